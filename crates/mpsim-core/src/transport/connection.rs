//! A transport connection: one or more TCP subflows joined to the network,
//! and the data level that feeds them.
//!
//! A single-path TCP flow is a connection with one subflow whose data is its
//! own byte stream. An MPTCP connection (RFC 8684) has several subflows; its
//! scheduler pushes chunks of the connection's data to whichever subflow it
//! picks, each subflow delivers its segments reliably in its own sequence
//! space, and the receiver reassembles by data sequence number in a shared
//! receive buffer. Congestion control and slow start see every subflow.

use std::collections::VecDeque;

use super::mptcp::{DataReceiver, Scheduler, SubflowAction, SubflowEvent, SubflowEventOutcome};
use super::scheduler::{self, Schedule, Scheduling};
use super::tcp::config::TcpParams;
use super::tcp::receiver::{RxDecision, TcpReceiver};
use super::tcp::sender::{Chunk, OutSegment, SenderOutput, SenderState, Stream, TcpSender};
use super::{Io, Side, Transport, TransportTimer};
use crate::cc::{Cc, CongestionAvoidance, SubflowCc};
use crate::context::{Forward, SimContext};
use crate::event::Event;
use crate::ids::{AddrId, EndpointId};
use crate::observe::{SubflowPhase, SubflowRef, TransportEvent};
use crate::slowstart::{SlowStart, Ss};
use crate::time::{SimDuration, SimTime};
use crate::traffic::gaps::GapGenerator;
use crate::wire::tcp::{TcpFlags, TcpHeader};
use crate::wire::{Packet, Payload};

/// MPTCP option bytes on the wire (RFC 8684 §3), as Linux v0.9x sends them.
const MP_CAPABLE_SYN_BYTES: u32 = 12;
/// DSS with a 4-byte DATA_ACK, a 4-byte data sequence number mapping,
/// subflow sequence number, length and checksum: 20 bytes.
const DSS_DATA_BYTES: u32 = 20;
/// DSS with only the 4-byte DATA_ACK: 8 bytes.
const DSS_ACK_BYTES: u32 = 8;
/// With timestamps (12) and DSS on an ACK (8), 40 − 20 bytes remain for
/// SACK: two blocks.
const MPTCP_MAX_SACK_BLOCKS: u8 = 2;

/// What the tracing hook was last told of a subflow's sender, to report
/// only changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reported {
    cwnd: u64,
    ssthresh: u64,
    srtt: SimDuration,
    rto_count: u64,
    in_recovery: bool,
    phase: SubflowPhase,
}

impl Default for Reported {
    fn default() -> Self {
        Reported {
            cwnd: 0,
            ssthresh: 0,
            srtt: SimDuration::ZERO,
            rto_count: 0,
            in_recovery: false,
            phase: SubflowPhase::Idle,
        }
    }
}

fn phase(state: SenderState) -> SubflowPhase {
    match state {
        SenderState::Idle => SubflowPhase::Idle,
        SenderState::SynSent => SubflowPhase::SynSent,
        SenderState::Established => SubflowPhase::Established,
        SenderState::Done => SubflowPhase::Done,
        SenderState::Closed => SubflowPhase::Closed,
    }
}

#[derive(Debug)]
pub struct Subflow {
    pub src: AddrId,
    pub dst: AddrId,
    pub sender_ep: EndpointId,
    pub receiver_ep: EndpointId,
    /// 5-tuple hashes of the two directions.
    pub fwd_hash: u64,
    pub rev_hash: u64,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    /// TSval of the first segment received since the receiver last ACKed
    /// (RFC 7323 §4.3: with delayed ACKs, echo the earliest).
    pub(crate) ts_to_echo: Option<SimTime>,
    pub acks_sent: u64,
    /// Payload bytes this subflow delivered to the data level.
    pub bytes_received: u64,
    /// Whether the scenario traces this subflow's sender (the trace itself
    /// is kept by [`crate::trace::TraceRecorder`]).
    pub traced: bool,
    /// What the tracing hook was last told of this subflow.
    pub(crate) reported: Reported,
    /// When a subflow event opened it (`None` for the path manager's subflows).
    pub added_at: Option<SimTime>,
    /// When a subflow event closed it.
    pub removed_at: Option<SimTime>,
}

/// Connection-level results computed as the run goes.
#[derive(Clone, Debug, Default)]
pub struct ConnectionStats {
    pub first_syn_at: Option<SimTime>,
    /// MPTCP: when the first subflow (MP_CAPABLE) was established.
    pub established_at: Option<SimTime>,
    pub completed_at: Option<SimTime>,
    /// Σ cwnd over subflows when the connection completed.
    pub sum_cwnd_at_completion: u64,
    /// When the last subflow to do so left slow start.
    pub all_left_slow_start_at: Option<SimTime>,
    pub sum_cwnd_at_all_left_slow_start: u64,
    /// Retransmissions on all subflows before the event at which the last
    /// left slow start (R_ss of the LISA paper), whichever subflow sent them
    /// and whether or not that subflow was itself still in slow start.
    pub retransmits_before_all_left_slow_start: u64,
    /// Chunks queued for reinjection after a subflow's timeout or removal.
    pub reinjected_chunks: u64,
}

#[derive(Debug)]
pub struct Connection {
    pub name: String,
    pub index: u32,
    pub params: TcpParams,
    /// MPTCP (data sequence mapping, DATA_ACK, shared window) or plain TCP.
    pub mptcp: bool,
    pub subflows: Vec<Subflow>,
    /// Congestion state of the subflows, indexed like `subflows`.
    pub ccs: Vec<SubflowCc>,
    pub cc: Cc,
    pub ss: Ss,
    pub scheduler: Scheduler,
    /// The scheduler's state.
    scheduling: Scheduling,
    pub start: SimTime,
    /// Delay between the first subflow's establishment and the joins.
    pub join_delay: SimDuration,
    joins_scheduled: bool,
    /// The subflows the path manager opens (the first `initial_subflows`);
    /// the others are opened by subflow events.
    pub initial_subflows: usize,
    /// Subflows added and removed at given times, in time order.
    pub subflow_events: Vec<SubflowEvent>,
    /// Add events (indices into `subflow_events`) that came before the
    /// connection was established and wait for it.
    deferred_adds: Vec<usize>,
    /// Plain TCP: the flow's byte stream.
    pub stream: Stream,
    /// MPTCP: next new data sequence number.
    data_next: u64,
    /// MPTCP: one past the last data byte; `u64::MAX` without end.
    data_end: u64,
    /// MPTCP: highest DATA_ACK received.
    data_una: u64,
    /// MPTCP: the connection's window from the latest ACK, bytes.
    data_wnd: u64,
    /// MPTCP: chunks to send again after a subflow's timeout, with the
    /// subflow they came from.
    reinject: VecDeque<(u64, u32, usize)>,
    pub data_rx: DataReceiver,
    pub stats: ConnectionStats,
    /// The next flow of a sequence: its connection index, and the generator
    /// of the gap between this flow's completion and the next one's start
    /// (each flow of a sequence has its own random stream).
    pub successor: Option<(u32, GapGenerator)>,
    /// Whether the run waits for this connection (`stop_when_complete`).
    pub watched: bool,
}

/// The subflows as the scheduler sees them.
struct SchedulerView<'a> {
    subflows: &'a mut [Subflow],
    ccs: &'a [SubflowCc],
    params: &'a TcpParams,
}

impl scheduler::Subflows for SchedulerView<'_> {
    fn count(&self) -> usize {
        self.subflows.len()
    }

    #[inline]
    fn has_room(&mut self, r: usize, len: u32) -> bool {
        self.subflows[r].sender.room_for(self.params, &self.ccs[r], len)
    }

    fn state(&self, r: usize) -> scheduler::SubflowState {
        let (sf, c) = (&self.subflows[r], &self.ccs[r]);
        scheduler::SubflowState {
            established: c.established,
            srtt: c.srtt,
            rttvar: sf.sender.rtt.rttvar,
            cwnd_bytes: c.cwnd,
            ssthresh_bytes: c.ssthresh,
            in_flight_bytes: sf.sender.pipe(),
            mss: c.mss,
        }
    }
}

/// Puts a subflow's segments on the network.
struct Wire<'a, N: Forward> {
    ctx: &'a mut SimContext,
    net: &'a mut N,
    params: &'a TcpParams,
    mptcp: bool,
    conn: u32,
    subflow: u16,
    src: AddrId,
    dst: AddrId,
    hash: u64,
    to: EndpointId,
}

impl<N: Forward> SenderOutput for Wire<'_, N> {
    fn send(&mut self, seg: OutSegment) {
        let h = &seg.header;
        let options = match (self.mptcp, h.flags.has(TcpFlags::SYN), h.payload_bytes > 0) {
            (false, ..) => 0,
            (true, true, _) => MP_CAPABLE_SYN_BYTES,
            (true, false, true) => DSS_DATA_BYTES,
            (true, false, false) => DSS_ACK_BYTES,
        };
        let size = self.params.wire_size(h.payload_bytes, h.n_sack) + options;
        let id = self.ctx.packets.alloc(Packet {
            size_bytes: size,
            src: self.src,
            dst: self.dst,
            flow_hash: self.hash,
            endpoint: self.to,
            sent_at: self.ctx.now,
            payload: Payload::Tcp(seg.header),
        });
        self.net.send(self.ctx, id);
    }

    fn arm_timer(&mut self, at: SimTime) {
        self.ctx.events.schedule(at, Event::TcpRto(self.conn, self.subflow));
    }
}

impl Connection {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        index: u32,
        params: TcpParams,
        mptcp: bool,
        subflows: Vec<Subflow>,
        cc: Cc,
        ss: Ss,
        scheduler: Scheduler,
        start: SimTime,
        join_delay: SimDuration,
        size_bytes: Option<u64>,
        rcv_buffer_bytes: u64,
    ) -> Self {
        let initial_cwnd = params.initial_cwnd_segments as u64 * params.mss as u64;
        let ssthresh = params.initial_ssthresh_bytes.unwrap_or(u64::MAX);
        let ccs = subflows
            .iter()
            .map(|_| SubflowCc::new(params.mss, initial_cwnd, ssthresh))
            .collect();
        Connection {
            name,
            index,
            mptcp,
            ccs,
            cc,
            ss,
            scheduler,
            scheduling: Scheduling::new(scheduler),
            start,
            join_delay,
            joins_scheduled: false,
            initial_subflows: subflows.len(),
            subflow_events: Vec::new(),
            deferred_adds: Vec::new(),
            stream: Stream::new(size_bytes),
            data_next: 1,
            data_end: size_bytes.map_or(u64::MAX, |n| 1 + n),
            data_una: 1,
            data_wnd: rcv_buffer_bytes,
            reinject: VecDeque::new(),
            data_rx: DataReceiver::new(rcv_buffer_bytes),
            stats: ConnectionStats::default(),
            successor: None,
            watched: false,
            subflows,
            params,
        }
    }

    fn wire<'a, N: Forward>(
        io: &'a mut Io<'_, N>,
        params: &'a TcpParams,
        mptcp: bool,
        conn: u32,
        r: usize,
        sf: &Subflow,
    ) -> Wire<'a, N> {
        Wire {
            ctx: &mut *io.ctx,
            net: &mut *io.net,
            params,
            mptcp,
            conn,
            subflow: r as u16,
            src: sf.src,
            dst: sf.dst,
            hash: sf.fwd_hash,
            to: sf.receiver_ep,
        }
    }

    /// Sets the subflow events (resolved and in time order); the subflows
    /// they add must be the last ones of `subflows`.
    pub fn set_subflow_events(&mut self, initial_subflows: usize, events: Vec<SubflowEvent>) {
        self.initial_subflows = initial_subflows;
        for e in &events {
            if e.action == SubflowAction::Add {
                self.subflows[e.subflow].added_at = Some(e.at);
            }
        }
        self.deferred_adds = Vec::with_capacity(events.len());
        self.subflow_events = events;
    }

    /// Whether the connection has delivered everything.
    pub fn is_complete(&self) -> bool {
        self.stats.completed_at.is_some()
    }

    /// Subflow `r` starts: it sends its SYN (MP_CAPABLE for the first,
    /// MP_JOIN for the others).
    pub fn start_subflow<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize) {
        if self.is_complete() || self.subflows[r].sender.state != SenderState::Idle {
            return;
        }
        if r == 0 {
            self.stats.first_syn_at = Some(io.ctx.now);
        }
        let now = io.ctx.now;
        let sf = &mut self.subflows[r];
        let mut wire = Self::wire(io, &self.params, self.mptcp, self.index, r, sf);
        sf.sender.start(now, &self.params, &mut wire);
        if io.ctx.observer.is_some() {
            self.report_changes(io.ctx);
        }
    }

    /// Subflow event `k` is due.
    pub fn on_subflow_event<N: Forward>(&mut self, io: &mut Io<'_, N>, k: usize) {
        let now = io.ctx.now;
        if self.is_complete() {
            self.subflow_events[k].outcome = SubflowEventOutcome::ConnectionComplete;
            return;
        }
        let r = self.subflow_events[k].subflow;
        match self.subflow_events[k].action {
            SubflowAction::Add => {
                if self.stats.established_at.is_none() {
                    // RFC 8684 §3.2: MP_JOIN needs the keys exchanged by the
                    // MP_CAPABLE handshake; the join waits for it.
                    self.deferred_adds.push(k);
                } else {
                    self.apply_add(io, k);
                }
            }
            SubflowAction::Remove => {
                self.subflow_events[k].applied_at = Some(now);
                self.subflow_events[k].outcome = SubflowEventOutcome::Applied;
                self.remove_subflow(io, r);
            }
        }
    }

    /// Opens the subflow of add event `k` now.
    fn apply_add<N: Forward>(&mut self, io: &mut Io<'_, N>, k: usize) {
        let r = self.subflow_events[k].subflow;
        let e = &mut self.subflow_events[k];
        if self.subflows[r].removed_at.is_some() {
            e.outcome = SubflowEventOutcome::Cancelled;
            return;
        }
        e.applied_at = Some(io.ctx.now);
        e.outcome = SubflowEventOutcome::Applied;
        self.start_subflow(io, r);
    }

    /// Closes subflow `r` (RFC 8684 §3.4.2 REMOVE_ADDR / §3.3.8 RST): its
    /// data not yet covered by a DATA_ACK is queued for the other subflows at
    /// once, it leaves the coupled sums, and nothing is sent or received on
    /// it again. Both ends close at the same instant; packets of the subflow
    /// still in the network are discarded when they arrive.
    fn remove_subflow<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize) {
        let now = io.ctx.now;
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        self.subflows[r].removed_at = Some(now);
        if self.subflows[r].sender.state == SenderState::Established {
            self.queue_reinjection(r);
        }
        self.subflows[r].sender.abort();
        let c = &mut self.ccs[r];
        c.established = false;
        c.bytes_in_flight = 0;
        c.in_recovery = false;
        self.cc.on_subflows_changed(&self.ccs);
        self.ss.on_subflows_changed(&self.ccs);
        if self.stats.established_at.is_some() {
            self.push(io);
        }
        if io.ctx.observer.is_some() {
            self.report_changes(io.ctx);
        }
    }

    /// Subflow `r`'s sender timer fired.
    pub fn on_sender_timer<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize) {
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        let now = io.ctx.now;
        let rtos_before = self.subflows[r].sender.stats.rto_count;
        {
            let sf = &mut self.subflows[r];
            let mut wire = Self::wire(io, &self.params, self.mptcp, self.index, r, sf);
            sf.sender
                .on_timer(now, &self.params, &mut self.ccs, r, &mut self.cc, &mut wire);
        }
        if self.mptcp && self.subflows[r].sender.stats.rto_count > rtos_before {
            self.queue_reinjection(r);
        }
        self.push(io);
        self.after_event(io, r);
    }

    /// RFC 8684 §3.3.6 / Linux `mptcp_reinject_data`: after a timeout, the
    /// data outstanding on the subflow is queued to be sent on the others too.
    fn queue_reinjection(&mut self, r: usize) {
        let data_una = self.data_una;
        for (dsn, len) in self.subflows[r].sender.outstanding_data() {
            if dsn + len as u64 <= data_una || self.reinject.iter().any(|&(d, _, _)| d == dsn) {
                continue;
            }
            self.reinject.push_back((dsn, len, r));
            self.stats.reinjected_chunks += 1;
        }
    }

    /// A packet reached subflow `r`'s sender (an ACK or a SYN-ACK).
    pub fn on_sender_packet<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize, hdr: &TcpHeader) {
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        let now = io.ctx.now;
        let was_established = self.subflows[r].sender.state == SenderState::Established;
        {
            let sf = &mut self.subflows[r];
            let mut wire = Self::wire(io, &self.params, self.mptcp, self.index, r, sf);
            sf.sender.on_ack(
                hdr,
                now,
                &self.params,
                &mut self.ccs,
                r,
                &mut self.cc,
                &mut self.ss,
                &mut wire,
            );
        }
        if !was_established && self.subflows[r].sender.state == SenderState::Established {
            if self.mptcp {
                self.subflows[r].sender.ignore_peer_rwnd = true;
            }
            self.cc.on_subflows_changed(&self.ccs);
            self.ss.on_subflows_changed(&self.ccs);
            if r == 0 && !self.joins_scheduled {
                self.joins_scheduled = true;
                self.stats.established_at = Some(now);
                for j in 1..self.initial_subflows {
                    io.ctx
                        .events
                        .schedule(now + self.join_delay, Event::TcpStart(self.index, j as u16));
                }
                // Adds that came before the establishment join now (no join delay).
                for i in 0..self.deferred_adds.len() {
                    let k = self.deferred_adds[i];
                    self.apply_add(io, k);
                }
                self.deferred_adds.clear();
            }
        }
        if self.mptcp && hdr.flags.has(TcpFlags::ACK) && !hdr.flags.has(TcpFlags::SYN) {
            if hdr.data_ack > self.data_una {
                self.data_una = hdr.data_ack;
            }
            self.data_wnd = hdr.rwnd;
            if self.data_end != u64::MAX && self.data_una > self.data_end && !self.is_complete() {
                self.complete(now, io);
            }
        }
        if !self.mptcp && !self.is_complete() && self.subflows[0].sender.state == SenderState::Done {
            self.complete(now, io);
        }
        if self.is_complete() {
            if let Some((next, mut gaps)) = self.successor.take() {
                let at = now + gaps.draw();
                io.ctx.events.schedule(at, Event::TcpStart(next, 0));
            }
        }
        if !self.is_complete() {
            self.push(io);
        }
        self.after_event(io, r);
    }

    fn complete<N: Forward>(&mut self, now: SimTime, io: &mut Io<'_, N>) {
        if self.stats.completed_at.is_some() {
            return;
        }
        self.stats.completed_at = Some(now);
        if self.watched {
            io.ctx.watched_completed();
        }
        self.stats.sum_cwnd_at_completion = self.sum_cwnd();
        for sf in self.subflows.iter_mut() {
            sf.sender.close(now);
        }
    }

    /// Σ cwnd over the subflows not removed, bytes.
    pub fn sum_cwnd(&self) -> u64 {
        self.ccs
            .iter()
            .zip(&self.subflows)
            .filter(|(_, s)| s.removed_at.is_none())
            .map(|(c, _)| c.cwnd)
            .sum()
    }

    /// Bookkeeping after any sender event of subflow `r`: slow-start exits,
    /// the tracing hook, and the moment the last subflow leaves slow start.
    fn after_event<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize) {
        let now = io.ctx.now;
        // A coupled slow start (CSS Alg. 1) can end the slow start of
        // subflows other than the one whose ACK it processed.
        for j in 0..self.subflows.len() {
            let c = &mut self.ccs[j];
            if c.established && !c.left_slow_start && !c.in_slow_start() {
                self.subflows[j].sender.note_slow_start_exit(now, c.cwnd);
                c.left_slow_start = true;
                let cwnd_bytes = c.cwnd;
                self.ss.on_exit(&mut self.ccs, j, now);
                io.ctx
                    .observe_transport(self.subflow_ref(j), TransportEvent::SlowStartExit { cwnd_bytes });
            }
        }
        if io.ctx.observer.is_some() {
            self.report_changes(io.ctx);
            let c = &self.ccs[r];
            let row = TransportEvent::Processed {
                cwnd_bytes: c.cwnd,
                ssthresh_bytes: c.ssthresh,
                srtt: c.srtt,
                in_flight_bytes: self.subflows[r].sender.pipe(),
            };
            io.ctx.observe_transport(self.subflow_ref(r), row);
        }
        if self.stats.all_left_slow_start_at.is_none()
            && self
                .subflows
                .iter()
                .all(|s| s.sender.stats.slow_start_exit_at.is_some() || s.removed_at.is_some())
        {
            self.stats.all_left_slow_start_at = Some(now);
            self.stats.sum_cwnd_at_all_left_slow_start = self.sum_cwnd();
            // LISA §V: "the total number of retransmitted packets before the
            // last subflow exits slow-start": every retransmission of every
            // subflow so far, including those of subflows that left slow
            // start earlier and are recovering while the last is still in it,
            // but not those a subflow leaving now sent on the loss that ended
            // its slow start (as a single TCP flow counts them).
            self.stats.retransmits_before_all_left_slow_start = self
                .subflows
                .iter()
                .map(|s| {
                    let st = &s.sender.stats;
                    if st.slow_start_exit_at == Some(now) {
                        st.retransmits_before_slow_start_exit
                    } else {
                        st.retransmits_fast + st.retransmits_rto
                    }
                })
                .sum();
        }
    }

    fn subflow_ref(&self, r: usize) -> SubflowRef {
        SubflowRef {
            connection: self.index,
            subflow: r as u16,
        }
    }

    /// Tells the tracing hook what changed in any subflow's sender since it
    /// was last told (a coupled algorithm changes other subflows' windows).
    fn report_changes(&mut self, ctx: &mut SimContext) {
        for j in 0..self.subflows.len() {
            let (sf, c) = (&self.subflows[j], &self.ccs[j]);
            let now = Reported {
                cwnd: c.cwnd,
                ssthresh: c.ssthresh,
                srtt: c.srtt,
                rto_count: sf.sender.stats.rto_count,
                in_recovery: sf.sender.in_recovery(),
                phase: phase(sf.sender.state),
            };
            let was = sf.reported;
            if now == was {
                continue;
            }
            let who = self.subflow_ref(j);
            if now.phase != was.phase {
                ctx.observe_transport(who, TransportEvent::Phase(now.phase));
            }
            if (now.cwnd, now.ssthresh) != (was.cwnd, was.ssthresh) {
                let window = TransportEvent::Window {
                    cwnd_bytes: now.cwnd,
                    ssthresh_bytes: now.ssthresh,
                };
                ctx.observe_transport(who, window);
            }
            if now.srtt != was.srtt {
                ctx.observe_transport(who, TransportEvent::Rtt { srtt: now.srtt });
            }
            if now.rto_count > was.rto_count {
                ctx.observe_transport(who, TransportEvent::Rto { count: now.rto_count });
            }
            if now.in_recovery && !was.in_recovery {
                ctx.observe_transport(who, TransportEvent::LossDetected);
            }
            self.subflows[j].reported = now;
        }
    }

    /// Sends what the windows allow: each subflow's retransmissions, then
    /// new data — for TCP from its stream, for MPTCP by the scheduler.
    fn push<N: Forward>(&mut self, io: &mut Io<'_, N>) {
        let now = io.ctx.now;
        if !self.mptcp {
            let sf = &mut self.subflows[0];
            let mut wire = Self::wire(io, &self.params, false, self.index, 0, sf);
            sf.sender
                .transmit(now, &self.params, &mut self.ccs[0], &mut self.stream, &mut wire);
            return;
        }
        for r in 0..self.subflows.len() {
            let sf = &mut self.subflows[r];
            let mut wire = Self::wire(io, &self.params, true, self.index, r, sf);
            sf.sender
                .send_retransmissions(now, &self.params, &mut self.ccs[r], &mut wire);
        }
        while let Some((chunk, from)) = self.next_chunk() {
            let Some(r) = self.pick(chunk.len, from) else { break };
            self.take_chunk(&chunk);
            self.send_on(io, r, chunk);
            if self.scheduling.duplicates() {
                for k in 0..self.subflows.len() {
                    if k != r && self.subflows[k].sender.room_for(&self.params, &self.ccs[k], chunk.len) {
                        self.send_on(io, k, chunk);
                    }
                }
            }
        }
        for r in 0..self.subflows.len() {
            // RFC 6675 NextSeg rules 3 and 4 and RFC 8985's loss probe, once the
            // scheduler has placed its data.
            let sf = &mut self.subflows[r];
            let mut wire = Self::wire(io, &self.params, true, self.index, r, sf);
            sf.sender.after_push(now, &self.params, &mut self.ccs[r], &mut wire);
            self.ccs[r].bytes_in_flight = self.subflows[r].sender.pipe();
        }
    }

    fn send_on<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize, chunk: Chunk) {
        let now = io.ctx.now;
        let sf = &mut self.subflows[r];
        let mut wire = Self::wire(io, &self.params, true, self.index, r, sf);
        sf.sender.send_chunk(chunk, now, &mut wire);
        self.ccs[r].bytes_in_flight = sf.sender.pipe();
    }

    /// The next chunk of data to send, and the subflow it is reinjected
    /// from, if it is a reinjection. Respects the connection's window.
    fn next_chunk(&mut self) -> Option<(Chunk, Option<usize>)> {
        while let Some(&(dsn, len, from)) = self.reinject.front() {
            if dsn + len as u64 <= self.data_una {
                self.reinject.pop_front();
                continue;
            }
            let data_fin = self.data_end != u64::MAX && dsn + len as u64 == self.data_end;
            return Some((
                Chunk {
                    dsn,
                    len,
                    fin: false,
                    data_fin,
                },
                Some(from),
            ));
        }
        if self.data_next >= self.data_end {
            return None;
        }
        let len = (self.data_end - self.data_next).min(self.params.mss as u64) as u32;
        // RFC 8684 §3.3.4: the window is relative to the DATA_ACK (its
        // right edge saturates: a buffer of u64::MAX bytes is never full).
        if self.data_next + len as u64 > self.data_una.saturating_add(self.data_wnd) {
            return None;
        }
        Some((
            Chunk {
                dsn: self.data_next,
                len,
                fin: false,
                data_fin: self.data_end != u64::MAX && self.data_next + len as u64 == self.data_end,
            },
            None,
        ))
    }

    fn take_chunk(&mut self, chunk: &Chunk) {
        if self.reinject.front().is_some_and(|&(d, _, _)| d == chunk.dsn) {
            self.reinject.pop_front();
        } else {
            self.data_next = chunk.dsn + chunk.len as u64;
        }
    }

    /// The subflow the scheduler gives a chunk of `len` bytes to (a
    /// reinjected chunk avoids the subflow it came from while another has
    /// room), or `None` when the chunk waits.
    fn pick(&mut self, len: u32, from: Option<usize>) -> Option<usize> {
        let window_end = self.data_una.saturating_add(self.data_wnd);
        let chunk = scheduler::Chunk {
            len,
            avoid: from,
            unsent_bytes: self
                .data_end
                .min(window_end)
                .saturating_sub(self.data_next + len as u64),
            window_bytes: self.data_wnd,
        };
        let mut view = SchedulerView {
            subflows: &mut self.subflows,
            ccs: &self.ccs,
            params: &self.params,
        };
        self.scheduling.pick(&mut view, &chunk)
    }

    /// A packet reached subflow `r`'s receiver (a SYN, the handshake ACK, or data).
    pub fn on_receiver_packet<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize, hdr: &TcpHeader) {
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        let now = io.ctx.now;
        if hdr.flags.has(TcpFlags::SYN) {
            self.subflows[r].receiver.on_syn();
            let reply = TcpHeader {
                flags: TcpFlags(TcpFlags::SYN | TcpFlags::ACK),
                seq: 0,
                ack: 1,
                rwnd: self.advertised_window(r),
                data_ack: self.data_rx.rcv_nxt,
                ts_val: now,
                ts_ecr: hdr.ts_val,
                ..TcpHeader::default()
            };
            self.send_to_sender(io, r, reply);
            return;
        }
        if hdr.seq_len() == 0 {
            return; // the handshake's ACK
        }
        let sf = &mut self.subflows[r];
        if sf.ts_to_echo.is_none() {
            sf.ts_to_echo = Some(hdr.ts_val);
        }
        if self.mptcp && hdr.payload_bytes > 0 {
            sf.bytes_received += hdr.payload_bytes as u64;
            self.data_rx
                .on_data(hdr.dsn, hdr.payload_bytes, hdr.flags.has(TcpFlags::DATA_FIN));
        }
        let fin = hdr.flags.has(TcpFlags::FIN);
        match sf.receiver.on_segment(now, hdr.seq, hdr.payload_bytes, fin) {
            RxDecision::AckNow => self.send_ack(io, r),
            RxDecision::ArmDelayedAck { at, generation } => {
                io.ctx
                    .events
                    .schedule(at, Event::TcpDelAck(self.index, r as u16, generation));
            }
            RxDecision::Nothing => {}
        }
    }

    fn advertised_window(&self, r: usize) -> u64 {
        if self.mptcp {
            self.data_rx.window()
        } else {
            self.subflows[r].receiver.config.rwnd_bytes
        }
    }

    /// Subflow `r`'s delayed-ACK timer fired.
    pub fn on_delack_timer<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize, generation: u64) {
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        if self.subflows[r].receiver.on_delack_timer(generation) {
            self.send_ack(io, r);
        }
    }

    fn send_ack<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize) {
        let sf = &mut self.subflows[r];
        let mut hdr = TcpHeader {
            flags: TcpFlags(TcpFlags::ACK),
            seq: 1,
            ts_val: io.ctx.now,
            ts_ecr: sf.ts_to_echo.take().unwrap_or_default(),
            ..TcpHeader::default()
        };
        sf.receiver.fill_ack(&mut hdr);
        if !self.params.sack {
            hdr.n_sack = 0;
        }
        if self.mptcp {
            hdr.n_sack = hdr.n_sack.min(MPTCP_MAX_SACK_BLOCKS);
            hdr.data_ack = self.data_rx.rcv_nxt;
            hdr.rwnd = self.data_rx.window();
        }
        sf.receiver.on_ack_sent();
        sf.acks_sent += 1;
        self.send_to_sender(io, r, hdr);
    }

    fn send_to_sender<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize, hdr: TcpHeader) {
        let sf = &self.subflows[r];
        let options = match (self.mptcp, hdr.flags.has(TcpFlags::SYN)) {
            (false, _) => 0,
            (true, true) => MP_CAPABLE_SYN_BYTES,
            (true, false) => DSS_ACK_BYTES,
        };
        let size = self.params.wire_size(0, hdr.n_sack) + options;
        let id = io.ctx.packets.alloc(Packet {
            size_bytes: size,
            src: sf.dst,
            dst: sf.src,
            flow_hash: sf.rev_hash,
            endpoint: sf.sender_ep,
            sent_at: io.ctx.now,
            payload: Payload::Tcp(hdr),
        });
        io.send(id);
    }
}

impl Transport for Connection {
    fn start<N: Forward>(&mut self, io: &mut Io<'_, N>, subflow: usize) {
        self.start_subflow(io, subflow);
    }

    fn on_packet<N: Forward>(&mut self, io: &mut Io<'_, N>, subflow: usize, side: Side, hdr: &TcpHeader) {
        match side {
            Side::Sender => self.on_sender_packet(io, subflow, hdr),
            Side::Receiver => self.on_receiver_packet(io, subflow, hdr),
        }
    }

    fn on_timer<N: Forward>(&mut self, io: &mut Io<'_, N>, timer: TransportTimer) {
        match timer {
            TransportTimer::Retransmission { subflow } => self.on_sender_timer(io, subflow),
            TransportTimer::DelayedAck { subflow, generation } => self.on_delack_timer(io, subflow, generation),
            TransportTimer::SubflowEvent { event } => self.on_subflow_event(io, event),
        }
    }
}

#[cfg(test)]
#[path = "connection_tests.rs"]
mod connection_tests;
