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
use super::tcp::config::TcpParams;
use super::tcp::header::{TcpFlags, TcpHeader};
use super::tcp::receiver::{RxDecision, TcpReceiver};
use super::tcp::sender::{Chunk, OutSegment, SenderOutput, SenderState, Stream, TcpSender};
use crate::cc::{Cc, CongestionAvoidance, SubflowCc};
use crate::event::Event;
use crate::ids::{AddrId, EndpointId};
use crate::packet::{Packet, Payload};
use crate::sim::Core;
use crate::slowstart::{SlowStart, Ss};
use crate::time::{SimDuration, SimTime};

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

/// Optional time series of a subflow's sender, one row per ACK processed.
#[derive(Clone, Debug, Default)]
pub struct TcpTrace {
    pub time_ns: Vec<u64>,
    pub cwnd_bytes: Vec<u64>,
    pub ssthresh_bytes: Vec<u64>,
    pub srtt_ns: Vec<u64>,
    pub in_flight_bytes: Vec<u64>,
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
    pub trace: Option<TcpTrace>,
    /// When a subflow event opened it (`None` for the path manager's subflows).
    pub added_at: Option<SimTime>,
    /// When a subflow event closed it.
    pub removed_at: Option<SimTime>,
    /// Chunks the `linger` scheduler gave this subflow that its window has
    /// not yet let go, in order.
    pub(crate) queued: VecDeque<Chunk>,
    /// Payload bytes in `queued`.
    pub(crate) queued_bytes: u64,
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
    /// Round-robin pointer.
    next_rr: usize,
    pub data_rx: DataReceiver,
    pub stats: ConnectionStats,
    /// The next flow of a sequence: its connection index, and the generator
    /// of the gap between this flow's completion and the next one's start
    /// (each flow of a sequence has its own random stream).
    pub successor: Option<(u32, GapGenerator)>,
    /// Whether the run waits for this connection (`stop_when_complete`).
    pub watched: bool,
}

/// Draws the gaps of a flow sequence.
#[derive(Clone, Debug)]
pub struct GapGenerator {
    pub mean: SimDuration,
    pub distribution: crate::config::GapDistribution,
    pub rng: crate::rng::RngStream,
}

impl GapGenerator {
    pub fn draw(&mut self) -> SimDuration {
        use crate::config::GapDistribution::*;
        let mean = self.mean.as_secs_f64();
        SimDuration::from_secs_f64(match self.distribution {
            Exponential => self.rng.exponential(mean),
            Constant => mean,
            Uniform => 2.0 * mean * self.rng.uniform(),
        })
    }
}

/// Puts a subflow's segments on the network.
struct Wire<'a> {
    core: &'a mut Core,
    params: &'a TcpParams,
    mptcp: bool,
    conn: u32,
    subflow: u16,
    src: AddrId,
    dst: AddrId,
    hash: u64,
    to: EndpointId,
}

impl SenderOutput for Wire<'_> {
    fn send(&mut self, seg: OutSegment) {
        let h = &seg.header;
        let options = match (self.mptcp, h.flags.has(TcpFlags::SYN), h.payload_bytes > 0) {
            (false, ..) => 0,
            (true, true, _) => MP_CAPABLE_SYN_BYTES,
            (true, false, true) => DSS_DATA_BYTES,
            (true, false, false) => DSS_ACK_BYTES,
        };
        let size = self
            .params
            .wire_size(h.payload_bytes, h.n_sack, h.flags.has(TcpFlags::SYN))
            + options;
        let id = self.core.packets.alloc(Packet {
            size_bytes: size,
            src: self.src,
            dst: self.dst,
            flow_hash: self.hash,
            endpoint: self.to,
            sent_at: self.core.now,
            payload: Payload::Tcp(seg.header),
        });
        self.core.send(id);
    }

    fn arm_timer(&mut self, at: SimTime) {
        self.core.events.schedule(at, Event::TcpRto(self.conn, self.subflow));
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
            next_rr: 0,
            data_rx: DataReceiver::new(rcv_buffer_bytes),
            stats: ConnectionStats::default(),
            successor: None,
            watched: false,
            subflows,
            params,
        }
    }

    fn wire<'a>(core: &'a mut Core, params: &'a TcpParams, mptcp: bool, conn: u32, r: usize, sf: &Subflow) -> Wire<'a> {
        Wire {
            core,
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
    pub fn start_subflow(&mut self, core: &mut Core, r: usize) {
        if self.is_complete() || self.subflows[r].sender.state != SenderState::Idle {
            return;
        }
        if r == 0 {
            self.stats.first_syn_at = Some(core.now);
        }
        let now = core.now;
        let sf = &mut self.subflows[r];
        let mut wire = Self::wire(core, &self.params, self.mptcp, self.index, r, sf);
        sf.sender.start(now, &self.params, &mut wire);
    }

    /// Subflow event `k` is due.
    pub fn on_subflow_event(&mut self, core: &mut Core, k: usize) {
        let now = core.now;
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
                    self.apply_add(core, k);
                }
            }
            SubflowAction::Remove => {
                self.subflow_events[k].applied_at = Some(now);
                self.subflow_events[k].outcome = SubflowEventOutcome::Applied;
                self.remove_subflow(core, r);
            }
        }
    }

    /// Opens the subflow of add event `k` now.
    fn apply_add(&mut self, core: &mut Core, k: usize) {
        let r = self.subflow_events[k].subflow;
        let e = &mut self.subflow_events[k];
        if self.subflows[r].removed_at.is_some() {
            e.outcome = SubflowEventOutcome::Cancelled;
            return;
        }
        e.applied_at = Some(core.now);
        e.outcome = SubflowEventOutcome::Applied;
        self.start_subflow(core, r);
    }

    /// Closes subflow `r` (RFC 8684 §3.4.2 REMOVE_ADDR / §3.3.8 RST): its
    /// data not yet covered by a DATA_ACK is queued for the other subflows at
    /// once, it leaves the coupled sums, and nothing is sent or received on
    /// it again. Both ends close at the same instant; packets of the subflow
    /// still in the network are discarded when they arrive.
    fn remove_subflow(&mut self, core: &mut Core, r: usize) {
        let now = core.now;
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        self.subflows[r].removed_at = Some(now);
        if self.subflows[r].sender.state == SenderState::Established {
            self.queue_reinjection(r);
        }
        self.subflows[r].queued_bytes = 0;
        for c in std::mem::take(&mut self.subflows[r].queued) {
            self.reinject.push_back((c.dsn, c.len, r));
            self.stats.reinjected_chunks += 1;
        }
        self.subflows[r].sender.abort();
        let c = &mut self.ccs[r];
        c.established = false;
        c.bytes_in_flight = 0;
        c.in_recovery = false;
        self.cc.on_subflows_changed(&self.ccs);
        self.ss.on_subflows_changed(&self.ccs);
        if self.stats.established_at.is_some() {
            self.push(core);
        }
    }

    /// Subflow `r`'s sender timer fired.
    pub fn on_sender_timer(&mut self, core: &mut Core, r: usize) {
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        let now = core.now;
        let rtos_before = self.subflows[r].sender.stats.rto_count;
        {
            let sf = &mut self.subflows[r];
            let mut wire = Self::wire(core, &self.params, self.mptcp, self.index, r, sf);
            sf.sender
                .on_timer(now, &self.params, &mut self.ccs, r, &mut self.cc, &mut wire);
        }
        if self.mptcp && self.subflows[r].sender.stats.rto_count > rtos_before {
            self.queue_reinjection(r);
        }
        self.push(core);
        self.after_event(now, r);
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
    pub fn on_sender_packet(&mut self, core: &mut Core, r: usize, hdr: &TcpHeader) {
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        let now = core.now;
        let was_established = self.subflows[r].sender.state == SenderState::Established;
        {
            let sf = &mut self.subflows[r];
            let mut wire = Self::wire(core, &self.params, self.mptcp, self.index, r, sf);
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
                    core.events
                        .schedule(now + self.join_delay, Event::TcpStart(self.index, j as u16));
                }
                // Adds that came before the establishment join now (no join delay).
                for i in 0..self.deferred_adds.len() {
                    let k = self.deferred_adds[i];
                    self.apply_add(core, k);
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
                self.complete(now, core);
            }
        }
        if !self.mptcp && !self.is_complete() && self.subflows[0].sender.state == SenderState::Done {
            self.complete(now, core);
        }
        if self.is_complete() {
            if let Some((next, mut gaps)) = self.successor.take() {
                let at = now + gaps.draw();
                core.events.schedule(at, Event::TcpStart(next, 0));
            }
        }
        if !self.is_complete() {
            self.push(core);
        }
        self.after_event(now, r);
    }

    fn complete(&mut self, now: SimTime, core: &mut Core) {
        if self.stats.completed_at.is_some() {
            return;
        }
        self.stats.completed_at = Some(now);
        if self.watched {
            core.watched_remaining -= 1;
            if core.watched_remaining == 0 {
                core.pause_at_event = 0; // the run loop ends after this event
            }
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

    /// Bookkeeping after any sender event: traces and the moment the last
    /// subflow leaves slow start.
    fn after_event(&mut self, now: SimTime, r: usize) {
        // A coupled slow start (CSS Alg. 1) can end the slow start of
        // subflows other than the one whose ACK it processed.
        for j in 0..self.subflows.len() {
            let c = &mut self.ccs[j];
            if c.established && !c.left_slow_start && !c.in_slow_start() {
                self.subflows[j].sender.note_slow_start_exit(now, c.cwnd);
                c.left_slow_start = true;
                self.ss.on_exit(&mut self.ccs, j, now);
            }
        }
        let sf = &mut self.subflows[r];
        if let Some(t) = sf.trace.as_mut() {
            let c = &self.ccs[r];
            t.time_ns.push(now.nanos());
            t.cwnd_bytes.push(c.cwnd);
            t.ssthresh_bytes.push(c.ssthresh);
            t.srtt_ns.push(c.srtt.nanos());
            t.in_flight_bytes.push(sf.sender.pipe());
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

    /// Sends what the windows allow: each subflow's retransmissions, then
    /// new data — for TCP from its stream, for MPTCP by the scheduler.
    fn push(&mut self, core: &mut Core) {
        let now = core.now;
        if !self.mptcp {
            let sf = &mut self.subflows[0];
            let mut wire = Self::wire(core, &self.params, false, self.index, 0, sf);
            sf.sender
                .transmit(now, &self.params, &mut self.ccs[0], &mut self.stream, &mut wire);
            return;
        }
        for r in 0..self.subflows.len() {
            let sf = &mut self.subflows[r];
            let mut wire = Self::wire(core, &self.params, true, self.index, r, sf);
            if sf
                .sender
                .send_retransmissions(now, &self.params, &mut self.ccs[r], &mut wire)
            {
                while let Some(&chunk) = sf.queued.front() {
                    if !sf.sender.room_for(&self.params, &self.ccs[r], chunk.len) {
                        break;
                    }
                    sf.queued.pop_front();
                    sf.queued_bytes -= chunk.len as u64;
                    sf.sender.send_chunk(chunk, now, &mut wire);
                }
                self.ccs[r].bytes_in_flight = sf.sender.pipe();
            }
        }
        while let Some((chunk, from)) = self.next_chunk() {
            if self.scheduler == Scheduler::Linger {
                let Some(r) = self.pick_linger(from) else { break };
                self.take_chunk(&chunk);
                let sf = &mut self.subflows[r];
                if sf.queued.is_empty() && sf.sender.room_for(&self.params, &self.ccs[r], chunk.len) {
                    self.send_on(core, r, chunk);
                } else {
                    sf.queued.push_back(chunk);
                    sf.queued_bytes += chunk.len as u64;
                }
                continue;
            }
            let Some(r) = self.pick(chunk.len, from) else { break };
            self.take_chunk(&chunk);
            self.send_on(core, r, chunk);
            if self.scheduler == Scheduler::Redundant {
                for k in 0..self.subflows.len() {
                    if k != r && self.subflows[k].sender.room_for(&self.params, &self.ccs[k], chunk.len) {
                        self.send_on(core, k, chunk);
                    }
                }
            }
        }
        for r in 0..self.subflows.len() {
            // RFC 6675 NextSeg rules 3 and 4 and RFC 8985's loss probe, once the
            // scheduler has placed its data.
            let sf = &mut self.subflows[r];
            let mut wire = Self::wire(core, &self.params, true, self.index, r, sf);
            sf.sender.after_push(now, &self.params, &mut self.ccs[r], &mut wire);
            self.ccs[r].bytes_in_flight = self.subflows[r].sender.pipe();
        }
    }

    fn send_on(&mut self, core: &mut Core, r: usize, chunk: Chunk) {
        let now = core.now;
        let sf = &mut self.subflows[r];
        let mut wire = Self::wire(core, &self.params, true, self.index, r, sf);
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

    /// The subflow the scheduler gives a chunk of `len` bytes to; a
    /// reinjected chunk avoids the subflow it came from while another has room.
    fn pick(&mut self, len: u32, from: Option<usize>) -> Option<usize> {
        let n = self.subflows.len();
        let mut best: Option<usize> = None;
        let mut fallback = None;
        for i in 0..n {
            let r = match self.scheduler {
                Scheduler::Roundrobin => (self.next_rr + i) % n,
                _ => i,
            };
            if !self.subflows[r].sender.room_for(&self.params, &self.ccs[r], len) {
                continue;
            }
            if Some(r) == from {
                fallback = Some(r);
                continue;
            }
            match self.scheduler {
                Scheduler::Roundrobin => {
                    best = Some(r);
                    break;
                }
                _ => {
                    if best.is_none_or(|b| self.ccs[r].srtt < self.ccs[b].srtt) {
                        best = Some(r);
                    }
                }
            }
        }
        let chosen = best.or(fallback);
        if let (Some(r), Scheduler::Roundrobin) = (chosen, self.scheduler) {
            self.next_rr = (r + 1) % n;
        }
        chosen
    }

    /// The `linger` scheduler's subflow for the next chunk: among the
    /// established subflows that hold less than two windows, the one whose
    /// data would drain first, (in flight + waiting)·SRTT/cwnd (Linux
    /// `mptcp_subflow_get_send`: `sk_wmem_queued` over the pacing rate, and
    /// `sk_stream_memory_free`); ties go to the lower index. A reinjected
    /// chunk avoids the subflow it came from while another can take it.
    fn pick_linger(&self, from: Option<usize>) -> Option<usize> {
        let mut best: Option<(u128, usize)> = None;
        let mut fallback = None;
        for (r, sf) in self.subflows.iter().enumerate() {
            let c = &self.ccs[r];
            if sf.sender.state != SenderState::Established || sf.removed_at.is_some() || c.cwnd == 0 {
                continue;
            }
            let held = sf.sender.pipe() + sf.queued_bytes;
            if held >= 2 * c.cwnd {
                continue;
            }
            if Some(r) == from {
                fallback = Some(r);
                continue;
            }
            let linger = held as u128 * c.srtt.nanos().max(1) as u128 / c.cwnd as u128;
            if best.is_none_or(|(l, _)| linger < l) {
                best = Some((linger, r));
            }
        }
        best.map(|(_, r)| r).or(fallback)
    }

    /// A packet reached subflow `r`'s receiver (a SYN, the handshake ACK, or data).
    pub fn on_receiver_packet(&mut self, core: &mut Core, r: usize, hdr: &TcpHeader) {
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        let now = core.now;
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
            self.send_to_sender(core, r, reply);
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
            RxDecision::AckNow => self.send_ack(core, r),
            RxDecision::ArmDelayedAck { at, generation } => {
                core.events
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
    pub fn on_delack_timer(&mut self, core: &mut Core, r: usize, generation: u64) {
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        if self.subflows[r].receiver.on_delack_timer(generation) {
            self.send_ack(core, r);
        }
    }

    fn send_ack(&mut self, core: &mut Core, r: usize) {
        let sf = &mut self.subflows[r];
        let mut hdr = TcpHeader {
            flags: TcpFlags(TcpFlags::ACK),
            seq: 1,
            ts_val: core.now,
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
        self.send_to_sender(core, r, hdr);
    }

    fn send_to_sender(&mut self, core: &mut Core, r: usize, hdr: TcpHeader) {
        let sf = &self.subflows[r];
        let options = match (self.mptcp, hdr.flags.has(TcpFlags::SYN)) {
            (false, _) => 0,
            (true, true) => MP_CAPABLE_SYN_BYTES,
            (true, false) => DSS_ACK_BYTES,
        };
        let size = self.params.wire_size(0, hdr.n_sack, hdr.flags.has(TcpFlags::SYN)) + options;
        let id = core.packets.alloc(Packet {
            size_bytes: size,
            src: sf.dst,
            dst: sf.src,
            flow_hash: sf.rev_hash,
            endpoint: sf.sender_ep,
            sent_at: core.now,
            payload: Payload::Tcp(hdr),
        });
        core.send(id);
    }
}
