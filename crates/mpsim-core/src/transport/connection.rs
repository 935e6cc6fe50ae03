//! A transport connection: one or more TCP subflows joined to the network,
//! and the data level that feeds them (`data_level/`).
//!
//! A single-path TCP flow is a connection with one subflow whose data is its
//! own byte stream. An MPTCP connection (RFC 8684) has several subflows; its
//! scheduler pushes chunks of the connection's data to whichever subflow it
//! picks, each subflow delivers its segments reliably in its own sequence
//! space, and the receiver reassembles by data sequence number in a shared
//! receive buffer. Congestion control and slow start see every subflow.

use super::coding::{self, NcHeader};
use super::data_level::{Data, DataLevel, MptcpLevel, StreamLevel, SubflowSet};
use super::mptcp::{Initiator, MptcpJoin, Scheduler, SubflowAction, SubflowEvent, SubflowEventOutcome};
pub use super::subflow::Subflow;
use super::subflow::{Opening, Reported, Wire};
use super::tcp::config::TcpParams;
use super::tcp::receiver::RxDecision;
use super::tcp::sender::SenderState;
use super::{Io, Side, Transport, TransportTimer};
use crate::cc::{Cc, CongestionAvoidance, SubflowCc};
use crate::context::{Forward, SimContext};
use crate::event::Event;
use crate::observe::{SegmentEvent, SubflowRef, TransportEvent};
use crate::rng::{RngStream, StreamDomain};
use crate::slowstart::{SlowStart, Ss};
use crate::time::{SimDuration, SimTime};
use crate::traffic::gaps::GapGenerator;
use crate::wire::tcp::{TcpFlags, TcpHeader};
use crate::wire::{Packet, Payload};

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
    pub subflows: Vec<Subflow>,
    /// Congestion state of the subflows, indexed like `subflows`.
    pub ccs: Vec<SubflowCc>,
    pub cc: Cc,
    pub ss: Ss,
    pub start: SimTime,
    /// Delay between the first subflow's establishment (with the `linux`
    /// join rule: the connection's full establishment) and the joins.
    pub join_delay: SimDuration,
    /// Which end opened the connection (and opens its other subflows).
    pub initiator: Initiator,
    /// The joins may start: the keys are exchanged (`established`) or the
    /// side that connected holds the connection fully established (`linux`).
    joins_scheduled: bool,
    /// The subflows the path manager opens (the first `initial_subflows`);
    /// the others are opened by subflow events.
    pub initial_subflows: usize,
    /// Subflows added and removed at given times, in time order.
    pub subflow_events: Vec<SubflowEvent>,
    /// Add events (indices into `subflow_events`) that came before the
    /// connection was established and wait for it.
    deferred_adds: Vec<usize>,
    /// What the subflows carry: a TCP byte stream, or MPTCP's data level.
    pub data: Data,
    pub stats: ConnectionStats,
    /// The next flow of a sequence: its connection index, and the generator
    /// of the gap between this flow's completion and the next one's start
    /// (each flow of a sequence has its own random stream).
    pub successor: Option<(u32, GapGenerator)>,
    /// Whether the run waits for this connection (`stop_when_complete`).
    pub watched: bool,
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
        rcv_buffer_bytes: Option<u64>,
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
            data: if mptcp {
                Data::Mptcp(MptcpLevel::new(size_bytes, rcv_buffer_bytes, scheduler, &params))
            } else {
                Data::Stream(StreamLevel::new(size_bytes, &params))
            },
            ccs,
            cc,
            ss,
            start,
            join_delay,
            initiator: Initiator::Sender,
            joins_scheduled: false,
            initial_subflows: subflows.len(),
            subflow_events: Vec::new(),
            deferred_adds: Vec::new(),
            stats: ConnectionStats::default(),
            successor: None,
            watched: false,
            subflows,
            params,
        }
    }

    /// Each subflow runs BBR if the connection's congestion control is
    /// `bbr`, with its own random stream of the run's `seed`.
    pub fn use_bbr(&mut self, seed: u64) {
        if !matches!(self.cc, Cc::Bbr(_)) {
            return;
        }
        for (j, sf) in self.subflows.iter_mut().enumerate() {
            let index = (self.index as u64) << 16 | j as u64;
            sf.sender
                .use_bbr(RngStream::derive(seed, StreamDomain::CongestionControl, index));
        }
    }

    /// Hands an MPTCP connection's chunks to `scheduling` (an external
    /// scheduler, which the builder sets after the connection is made).
    pub fn set_scheduling(&mut self, scheduling: super::scheduler::Scheduling) {
        if let Data::Mptcp(level) = &mut self.data {
            level.set_scheduling(scheduling);
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

    /// Whether the connection is MPTCP (rather than plain TCP).
    pub fn is_mptcp(&self) -> bool {
        matches!(self.data, Data::Mptcp(_))
    }

    /// Whether the connection has delivered everything.
    pub fn is_complete(&self) -> bool {
        self.stats.completed_at.is_some()
    }

    /// Subflow `r` starts: the side that opens the connection sends its SYN
    /// (MP_CAPABLE for the first, MP_JOIN for the others).
    pub fn start_subflow<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize) {
        if self.is_complete()
            || self.subflows[r].sender.state != SenderState::Idle
            || self.subflows[r].opening.is_some()
        {
            return;
        }
        if r == 0 {
            self.stats.first_syn_at = Some(io.ctx.now);
        }
        if self.initiator == Initiator::Receiver {
            let rto = self.params.syn_rto;
            self.subflows[r].opening = Some(Opening {
                syn_acked: false,
                deadline: io.ctx.now,
                rto,
                first_syn_at: io.ctx.now,
                retransmits: 0,
            });
            self.send_opening_syn(io, r);
            return;
        }
        let now = io.ctx.now;
        let sf = &mut self.subflows[r];
        let mut wire = Wire::new(io, &self.params, self.data.options(), self.index, r, sf);
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
                if !self.joins_scheduled {
                    // RFC 8684 §3.2: MP_JOIN needs the keys exchanged by the
                    // MP_CAPABLE handshake (Linux's path manager: the full
                    // establishment); the join waits for it.
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
        self.data.on_receiver_leave(&self.subflows[r]);
        if self.subflows[r].sender.state == SenderState::Established {
            self.stats.reinjected_chunks += self.data.on_subflow_failed(r, &self.subflows[r]);
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
            let mut wire = Wire::new(io, &self.params, self.data.options(), self.index, r, sf);
            sf.sender
                .on_timer(now, &self.params, &mut self.ccs, r, &mut self.cc, &mut wire);
        }
        // With Linux's connection timer, the data level does not act on a
        // subflow's timeout: the timer finds the subflow stale in time.
        if self.subflows[r].sender.stats.rto_count > rtos_before && !self.params.mptcp_retransmit_timer {
            self.stats.reinjected_chunks += self.data.on_subflow_failed(r, &self.subflows[r]);
        }
        self.push(io);
        self.after_event(io, r);
    }

    /// The data level's retransmission timer fired: it may send data
    /// again on an idle subflow; then whatever the windows allow.
    fn on_data_timer<N: Forward>(&mut self, io: &mut Io<'_, N>) {
        if self.is_complete() {
            return;
        }
        let set = SubflowSet {
            subflows: &mut self.subflows,
            ccs: &mut self.ccs,
            params: &self.params,
            connection: self.index,
        };
        self.stats.reinjected_chunks += self.data.on_retransmit_timer(io, set);
        self.push(io);
    }

    /// Starts loading the fields that handling any packet reads first (see
    /// [`crate::cache`]).
    #[inline]
    pub fn prefetch_fields(&self) {
        crate::cache::prefetch(&self.subflows);
        crate::cache::prefetch(&self.ccs);
        crate::cache::prefetch_all(&self.data);
    }

    /// Starts loading what subflow `r`'s `side` reads first on a packet:
    /// for an ACK, every subflow's sender, since an ACK may let any of
    /// them send; for data, the subflow's receiver and the data level's
    /// out-of-order ranges.
    #[inline]
    pub fn prefetch_subflows(&self, r: usize, side: Side) {
        match side {
            Side::Sender => {
                for (sf, cc) in self.subflows.iter().zip(&self.ccs) {
                    crate::cache::prefetch(&sf.removed_at);
                    crate::cache::prefetch(&sf.fwd_route);
                    crate::cache::prefetch_all(&sf.sender);
                    crate::cache::prefetch(cc);
                }
            }
            Side::Receiver => {
                let Some(sf) = self.subflows.get(r) else { return };
                crate::cache::prefetch(&sf.removed_at);
                crate::cache::prefetch_all(&sf.receiver);
                crate::cache::prefetch(&sf.ts_to_echo);
                if let Some(rx) = self.data.receiver() {
                    rx.prefetch_buffer();
                }
            }
        }
    }

    /// A packet reached subflow `r`'s sender (an ACK, a SYN-ACK, or the
    /// SYN of a receiver that opens the connection).
    pub fn on_sender_packet<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize, hdr: &TcpHeader) {
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        let now = io.ctx.now;
        if hdr.flags.has(TcpFlags::SYN) && !hdr.flags.has(TcpFlags::ACK) {
            if self.initiator == Initiator::Receiver {
                let first_syn = self.subflows[r].opening.map_or(now, |o| o.first_syn_at);
                let sf = &mut self.subflows[r];
                let mut wire = Wire::new(io, &self.params, self.data.options(), self.index, r, sf);
                sf.sender.on_syn(hdr, now, first_syn, &mut wire);
                if io.ctx.observer.is_some() {
                    self.report_changes(io.ctx);
                }
            }
            return;
        }
        let was_established = self.subflows[r].sender.state == SenderState::Established;
        self.subflows[r].acked_at = now;
        // A coded subflow's ACK: its NC header goes to congestion control,
        // TCP sees a plain ACK.
        let coded_ack = match &self.subflows[r].coding {
            Some(c) if !hdr.flags.has(TcpFlags::SYN) => {
                self.ccs[r].coding = c.sender.borrow_mut().on_ack(hdr);
                Some(coding::plain_ack(hdr))
            }
            _ => None,
        };
        let hdr = coded_ack.as_ref().unwrap_or(hdr);
        {
            let sf = &mut self.subflows[r];
            let mut wire = Wire::new(io, &self.params, self.data.options(), self.index, r, sf);
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
        if io.ctx.observer.is_some() {
            let ack = SegmentEvent::AckReceived {
                header: hdr,
                snd_una: self.subflows[r].sender.snd_una,
                cwnd_bytes: self.ccs[r].cwnd,
            };
            io.ctx.observe_segment(self.subflow_ref(r), ack);
        }
        if coded_ack.is_some() {
            self.cc.on_coding_report(&mut self.ccs, r, now);
        }
        let linux_joins = self.params.mptcp_join == MptcpJoin::Linux;
        let sender_opened = self.initiator == Initiator::Sender;
        if !was_established && self.subflows[r].sender.state == SenderState::Established {
            self.data.on_established(&mut self.subflows[r]);
            self.cc.on_subflows_changed(&self.ccs);
            self.ss.on_subflows_changed(&self.ccs);
            if r == 0 && self.stats.established_at.is_none() {
                self.stats.established_at = Some(now);
                if sender_opened && !linux_joins {
                    self.open_joins(io);
                }
            }
            // The sender joined it: data waits for the fourth packet.
            if r > 0 && sender_opened && linux_joins && self.is_mptcp() {
                self.subflows[r].join_pending = true;
            }
        } else if was_established && !hdr.flags.has(TcpFlags::SYN) {
            // Linux `check_fully_established`: the first packet after the
            // handshake that carries a DATA_ACK; the fourth packet of MP_JOIN.
            if r == 0 && sender_opened && linux_joins && self.is_mptcp() {
                self.open_joins(io);
            }
            self.subflows[r].join_pending = false;
        }
        if self.data.on_ack(hdr, &self.subflows) {
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

    /// The path manager opens the subflows beyond the first, `join_delay`
    /// and the profile's `mptcp_pm_delay` from now, and the subflow events'
    /// adds that waited for this join now.
    fn open_joins<N: Forward>(&mut self, io: &mut Io<'_, N>) {
        if self.joins_scheduled {
            return;
        }
        self.joins_scheduled = true;
        let now = io.ctx.now;
        for j in 1..self.initial_subflows {
            io.ctx.events.schedule(
                now + self.join_delay + self.params.mptcp_pm_delay,
                Event::TcpStart(self.index, j as u16),
            );
        }
        // Adds that came before the establishment join now (no join delay).
        for i in 0..self.deferred_adds.len() {
            let k = self.deferred_adds[i];
            self.apply_add(io, k);
        }
        self.deferred_adds.clear();
    }

    /// The receiver's timestamp clock is `phase_ns` into a millisecond tick
    /// at time zero (Linux's window model samples its RTT with it).
    pub fn set_clock_phase(&mut self, phase_ns: u64) {
        self.data.set_clock_phase(phase_ns);
    }

    /// The receiver (re)sends the SYN of subflow `r`, which it opens, and
    /// arms the SYN's timeout.
    fn send_opening_syn<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize) {
        let now = io.ctx.now;
        let Some(o) = self.subflows[r].opening.as_mut() else {
            return;
        };
        o.deadline = now + o.rto;
        let deadline = o.deadline;
        if r > 0 {
            // Linux `__mptcp_subflow_connect`: a join is one of the
            // connection's subflows from its SYN on.
            self.data.on_receiver_join(&self.subflows[r]);
        }
        let syn = TcpHeader {
            flags: TcpFlags(TcpFlags::SYN),
            seq: 0,
            rwnd: self.advertised_window(r),
            ts_val: now,
            ..TcpHeader::default()
        };
        self.send_to_sender(io, r, syn);
        io.ctx
            .events
            .schedule(deadline, Event::TcpOpenTimer(self.index, r as u16));
    }

    /// The SYN timeout of subflow `r`, which its receiver opened: without
    /// a SYN-ACK yet, the SYN again with the timeout doubled (RFC 6298 §5.5).
    fn on_opening_timer<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize) {
        let now = io.ctx.now;
        let max_rto = self.params.rtt.max_rto;
        let removed = self.subflows[r].removed_at.is_some();
        match self.subflows[r].opening.as_mut() {
            Some(o) if !o.syn_acked && o.deadline == now && !removed => {
                o.rto = o.rto.saturating_mul(2).min(max_rto);
                o.retransmits += 1;
            }
            _ => return,
        }
        if self.is_complete() {
            return;
        }
        self.send_opening_syn(io, r);
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
                self.ss.on_exit(&mut self.ccs, j, now);
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
                left_slow_start: sf.sender.stats.slow_start_exit_at.is_some(),
                phase: sf.sender.state,
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
            if now.left_slow_start && !was.left_slow_start {
                let cwnd_bytes = sf.sender.stats.cwnd_at_slow_start_exit;
                ctx.observe_transport(who, TransportEvent::SlowStartExit { cwnd_bytes });
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

    /// Sends what the windows allow.
    fn push<N: Forward>(&mut self, io: &mut Io<'_, N>) {
        let set = SubflowSet {
            subflows: &mut self.subflows,
            ccs: &mut self.ccs,
            params: &self.params,
            connection: self.index,
        };
        self.data.push(io, set);
    }

    /// A packet reached subflow `r`'s receiver (a SYN, the handshake ACK, or data).
    pub fn on_receiver_packet<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize, hdr: &TcpHeader) {
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        let now = io.ctx.now;
        if hdr.flags.has(TcpFlags::SYN) && hdr.flags.has(TcpFlags::ACK) {
            return self.on_syn_ack_at_receiver(io, r, hdr);
        }
        if hdr.flags.has(TcpFlags::SYN) {
            self.subflows[r].receiver.on_syn();
            let reply = self.handshake_reply(r, TcpFlags(TcpFlags::SYN | TcpFlags::ACK), 0, now, hdr);
            self.send_to_sender(io, r, reply);
            return;
        }
        if hdr.seq_len() == 0 {
            if r == 0 && self.initiator == Initiator::Sender {
                self.data.on_receiver_connected(now, false);
            }
            if self.initiator == Initiator::Sender {
                self.data.on_receiver_established(&mut self.subflows[r], false);
            }
            // The handshake's ACK: a join the sender opened is one of the
            // connection's subflows at the receiver from here (Linux
            // `mptcp_finish_join` on the third ACK).
            if r > 0 && self.initiator == Initiator::Sender {
                self.data.on_receiver_join(&self.subflows[r]);
            }
            // Of an MP_JOIN the sender opened, Linux's
            // receiver acknowledges it (the fourth packet, RFC 8684 §3.2).
            if r > 0
                && self.is_mptcp()
                && self.initiator == Initiator::Sender
                && self.params.mptcp_join == MptcpJoin::Linux
                && self.subflows[r].receiver.delivered_bytes() <= 1
                && self.subflows[r].acks_sent == 0
            {
                self.subflows[r].ts_to_echo = Some(hdr.ts_val);
                self.send_ack(io, r);
            }
            return;
        }
        // Linux `check_fully_established` at a receiver that connected: the
        // first data (with its DATA_ACK) makes the connection fully
        // established, and its path manager opens the other subflows.
        if self.initiator == Initiator::Receiver
            && self.params.mptcp_join == MptcpJoin::Linux
            && self.is_mptcp()
            && !self.joins_scheduled
        {
            self.open_joins(io);
        }
        if self.subflows[r].coding.is_some() {
            return self.on_coded_packet(io, r, hdr);
        }
        let delivered_before = self.delivered(r);
        let sf = &mut self.subflows[r];
        if sf.ts_to_echo.is_none() {
            sf.ts_to_echo = Some(hdr.ts_val);
        }
        let ack_now = self.data.on_data(now, hdr, sf);
        let fin = hdr.flags.has(TcpFlags::FIN);
        sf.receiver.observe_echo(now, hdr.ts_ecr);
        if hdr.flags.has(TcpFlags::PSH) {
            sf.receiver.note_push();
        }
        let mut decision = sf.receiver.on_segment(now, hdr.seq, hdr.payload_bytes, fin);
        if ack_now {
            decision = RxDecision::AckNow;
        }
        if io.ctx.observer.is_some() {
            let (subflow_after, data_after) = self.delivered(r);
            let delivered = TransportEvent::Delivered {
                subflow_bytes: subflow_after - delivered_before.0,
                data_bytes: data_after - delivered_before.1,
            };
            io.ctx.observe_transport(self.subflow_ref(r), delivered);
        }
        match decision {
            RxDecision::AckNow => self.send_ack(io, r),
            RxDecision::ArmDelayedAck { at } => {
                io.ctx.events.schedule(at, Event::TcpDelAck(self.index, r as u16));
            }
            RxDecision::Nothing => {}
        }
        self.data.after_receive(now, &mut self.subflows[r]);
    }

    /// The SYN-ACK of a subflow the receiver opened: the receiver answers
    /// with the third packet (again for a SYN-ACK sent again), and the
    /// sender may then send. With the `established` join rule the first
    /// subflow's SYN-ACK lets the path manager open the others.
    fn on_syn_ack_at_receiver<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize, hdr: &TcpHeader) {
        let now = io.ctx.now;
        let Some(o) = self.subflows[r].opening.as_mut() else {
            return;
        };
        o.syn_acked = true;
        if r == 0 {
            self.data.on_receiver_connected(now, true);
        }
        self.subflows[r].receiver.on_syn();
        self.data.on_receiver_established(&mut self.subflows[r], true);
        let ack = self.handshake_reply(r, TcpFlags(TcpFlags::ACK), 1, now, hdr);
        self.send_to_sender(io, r, ack);
        if r == 0 && self.params.mptcp_join == MptcpJoin::Established && self.is_mptcp() {
            self.open_joins(io);
        }
    }

    /// The receiver's answer in a handshake, to the sender's `hdr`: its
    /// SYN-ACK (sequence number 0) or the third packet (1), acknowledging
    /// the sender's SYN, with the window and, for MPTCP, the DATA_ACK (plain
    /// TCP has none, RFC 8684 §3.3.2).
    fn handshake_reply(&self, r: usize, flags: TcpFlags, seq: u64, now: SimTime, hdr: &TcpHeader) -> TcpHeader {
        TcpHeader {
            flags,
            seq,
            ack: 1,
            rwnd: self.advertised_window(r),
            data_ack: self.data.receiver().map_or(0, |rx| rx.rcv_nxt),
            ts_val: now,
            ts_ecr: hdr.ts_val,
            ..TcpHeader::default()
        }
    }

    /// A coded packet reached coded subflow `r`'s receiver: the segments it
    /// lets the shim decode go to TCP and the data level in order, and a new
    /// degree of freedom is acknowledged at once with the segments seen.
    fn on_coded_packet<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize, hdr: &TcpHeader) {
        let now = io.ctx.now;
        let Some(coding) = self.subflows[r].coding.as_mut() else {
            return;
        };
        let arrival = {
            let sender = coding.sender.borrow();
            coding
                .receiver
                .on_packet(NcHeader::read(hdr), |k| sender.segment(k).copied())
        };
        let decoded = coding.receiver.take_decoded();
        let delivered_before = self.delivered(r);
        for seg in &decoded {
            let sf = &mut self.subflows[r];
            let _ = self.data.on_data(now, seg, sf);
            // The shim acknowledges; TCP's own ACK decisions are not used.
            let _ = sf
                .receiver
                .on_segment(now, seg.seq, seg.payload_bytes, seg.flags.has(TcpFlags::FIN));
        }
        if io.ctx.observer.is_some() && !decoded.is_empty() {
            let (subflow_after, data_after) = self.delivered(r);
            let delivered = TransportEvent::Delivered {
                subflow_bytes: subflow_after - delivered_before.0,
                data_bytes: data_after - delivered_before.1,
            };
            io.ctx.observe_transport(self.subflow_ref(r), delivered);
        }
        let Some(coding) = self.subflows[r].coding.as_mut() else {
            return;
        };
        coding.receiver.give_back(decoded);
        if arrival.innovative {
            self.send_coded_ack(io, r, hdr);
        }
        // The application reads after the shim's answer, as on TCP subflows.
        self.data.after_receive(now, &mut self.subflows[r]);
    }

    /// The shim's ACK of a new degree of freedom on coded subflow `r`, with
    /// the segments seen.
    fn send_coded_ack<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize, hdr: &TcpHeader) {
        let now = io.ctx.now;
        let Some(coding) = self.subflows[r].coding.as_mut() else {
            return;
        };
        let report = coding.receiver.ack_report();
        let mut ack = TcpHeader {
            flags: TcpFlags(TcpFlags::ACK),
            seq: 1,
            ack: coding.receiver.seen_end(),
            ts_val: now,
            ts_ecr: hdr.ts_val,
            ..TcpHeader::default()
        };
        coding.receiver.note_ack(ack.ack);
        ack.rwnd = self.advertised_window(r);
        self.data.fill_ack(&mut ack, &self.subflows[r]);
        report.write(&mut ack);
        self.subflows[r].acks_sent += 1;
        self.send_to_sender(io, r, ack);
    }

    /// Bytes delivered in order so far: by subflow `r` in its own sequence
    /// space, and by the connection at its data level.
    fn delivered(&self, r: usize) -> (u64, u64) {
        let subflow = self.subflows[r].receiver.delivered_bytes();
        (subflow, self.data.receiver().map_or(subflow, |rx| rx.delivered_bytes()))
    }

    fn advertised_window(&self, r: usize) -> u64 {
        self.data.advertised_window(&self.subflows[r])
    }

    /// Subflow `r`'s delayed-ACK timer fired.
    pub fn on_delack_timer<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize) {
        if self.subflows[r].removed_at.is_some() {
            return;
        }
        let (expired, again) = self.subflows[r].receiver.on_delack_timer(io.ctx.now);
        if let Some(at) = again {
            io.ctx.events.schedule(at, Event::TcpDelAck(self.index, r as u16));
        }
        if expired {
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
        self.data.fill_ack(&mut hdr, sf);
        sf.receiver.on_ack_sent();
        sf.acks_sent += 1;
        self.send_to_sender(io, r, hdr);
    }

    fn send_to_sender<N: Forward>(&mut self, io: &mut Io<'_, N>, r: usize, hdr: TcpHeader) {
        let sf = &self.subflows[r];
        let options = self.data.options().of(hdr.flags, false);
        let nc_bytes = match &sf.coding {
            Some(c) if !hdr.flags.has(TcpFlags::SYN) => c.sender.borrow().config.ack_header_bytes,
            _ => 0,
        };
        let size = self.params.wire_size(0, hdr.n_sack, hdr.flags.has(TcpFlags::SYN)) + options + nc_bytes;
        let id = io.ctx.packets.alloc(Packet {
            size_bytes: size,
            src: sf.dst,
            dst: sf.src,
            flow_hash: sf.rev_hash,
            endpoint: sf.sender_ep,
            sent_at: io.ctx.now,
            payload: Payload::Tcp(hdr),
        });
        let route = sf.rev_route.get(&mut *io.net, sf.dst, sf.src, sf.rev_hash);
        io.net.send_routed(io.ctx, id, route);
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
            TransportTimer::DelayedAck { subflow } => self.on_delack_timer(io, subflow),
            TransportTimer::SubflowEvent { event } => self.on_subflow_event(io, event),
            TransportTimer::Opening { subflow } => self.on_opening_timer(io, subflow),
            TransportTimer::DataRetransmission => self.on_data_timer(io),
        }
    }
}

#[cfg(test)]
#[path = "connection_tests.rs"]
mod connection_tests;
