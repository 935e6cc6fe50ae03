//! Processing an ACK: the RTT sample, the scoreboard's update, duplicate
//! ACKs, loss detection, entering, running and leaving fast recovery, and
//! window growth outside it.

use super::*;
use crate::cc::{AckInfo, CongestionAvoidance};
use crate::slowstart::SlowStart;
use crate::transport::tcp::config::{DupAckRule, LossFlight, PartialAckRto, Recovery};
use crate::transport::tcp::loss::{dupack_marks, is_lost, LossDetection};
use crate::transport::tcp::recovery::{self, RecoveryAck, RecoveryKind};
use crate::transport::tcp::scoreboard::{SackFeed, EVER_RETRANS, LOST, RETRANS};
use crate::wire::tcp::{SackBlock, MAX_SACK_BLOCKS};

/// What one ACK said, as the later stages of its processing read it.
struct AckFacts {
    /// The cumulative ACK, at most SND.NXT.
    ack: u64,
    /// Bytes it advanced SND.UNA by.
    newly_acked: u64,
    /// RFC 6937 DeliveredData.
    delivered: u64,
    /// Whether it counts as a duplicate ACK under the stack's rule.
    is_dupack: bool,
    /// `pipe` in data octets before the ACK's own guessed mark, which
    /// ns-3's PRR reads without SACK; 0 where nothing reads it.
    pipe_before_marks: u64,
    /// Whether the window was in use, for growth (RFC 7661).
    cwnd_limited: bool,
}

impl TcpSender {
    /// Processes an ACK (or SYN-ACK) for subflow `r` of a connection whose
    /// subflows' congestion state is `ccs`, in the order of its jobs: the
    /// scoreboard and the counts read from the ACK ([`TcpSender::read_ack`]),
    /// loss detection, the window ([`TcpSender::respond`]) and the timers.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack<C: CongestionAvoidance, S: SlowStart>(
        &mut self,
        hdr: &TcpHeader,
        now: SimTime,
        params: &TcpParams,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
        ss: &mut S,
        out: &mut impl SenderOutput,
    ) {
        if !self.accept(hdr, now, ccs, r, ss, out) {
            return;
        }
        self.lost_marks_at_event = self.board.lost_marks;
        self.delivered_segs_at_event = self.delivered_segs;
        let sacked_before = self.board.sacked_bytes;
        let ca_rtt_samples = ccs[r].ca_rtt_samples;
        self.begin_rate_sample();
        let cx = &mut Step {
            now,
            params,
            ccs,
            r,
            cc,
        };
        let a = self.read_ack(cx, hdr);
        let reorder_at = self.find_losses(now, params);
        let sf = &mut cx.ccs[r];
        sf.snd_una = self.snd_una;
        sf.snd_nxt = self.snd_nxt;
        sf.delivered_bytes = a.delivered;
        if self.fin_end.is_some_and(|e| self.snd_una >= e) {
            self.complete(now);
            return;
        }
        self.respond(cx, &a, ss, out);
        if self.runs_bbr() {
            let sf = &mut cx.ccs[r];
            let ca_rtt = (sf.ca_rtt_samples != ca_rtt_samples).then_some(sf.ca_rtt);
            // `FLAG_ACK_MAYBE_DELAYED`: the ACK delivered one short segment
            // alone, nothing SACKed before or now.
            let lone_runt = a.newly_acked > 0
                && a.newly_acked < self.mss as u64
                && a.delivered == a.newly_acked
                && sacked_before == 0;
            self.cong_control(now, sf, ca_rtt, lone_runt);
        }
        self.rearm_timers(&a, reorder_at, now, params, out);
        cx.ccs[r].bytes_in_flight = self.pipe();
    }

    /// Whether the segment is an ACK the established sender processes; a
    /// SYN-ACK establishes it. Counts duplicate ACKs as RFC 5681 §2 defines
    /// them and takes the peer's window.
    fn accept<S: SlowStart>(
        &mut self,
        hdr: &TcpHeader,
        now: SimTime,
        ccs: &mut [SubflowCc],
        r: usize,
        ss: &mut S,
        out: &mut impl SenderOutput,
    ) -> bool {
        match self.state {
            SenderState::Idle | SenderState::Done | SenderState::Closed => return false,
            SenderState::SynSent => {
                if hdr.flags.has(TcpFlags::SYN) && hdr.flags.has(TcpFlags::ACK) && hdr.ack == 1 {
                    self.established(hdr, now, ccs, r, ss);
                    // The third packet of the handshake, then data.
                    out.send(OutSegment {
                        header: TcpHeader {
                            flags: TcpFlags(TcpFlags::ACK),
                            seq: 1,
                            ack: 1,
                            ts_val: now,
                            ts_ecr: self.ts_recent,
                            ..TcpHeader::default()
                        },
                        kind: TxKind::New,
                    });
                }
                return false;
            }
            SenderState::SynReceived => {
                // The third packet of a handshake the receiver opened.
                if hdr.flags.has(TcpFlags::ACK) && !hdr.flags.has(TcpFlags::SYN) && hdr.ack == 1 {
                    self.established(hdr, now, ccs, r, ss);
                }
                return false;
            }
            SenderState::Established => {}
        }
        if !hdr.flags.has(TcpFlags::ACK) || hdr.flags.has(TcpFlags::SYN) {
            return false;
        }
        // RFC 5681 §2: no data, no SYN or FIN, SND.UNA acknowledged again
        // while data is outstanding, and the window of the last ACK.
        if hdr.payload_bytes == 0
            && !hdr.flags.has(TcpFlags::FIN)
            && hdr.ack == self.snd_una
            && self.snd_nxt > self.snd_una
            && hdr.rwnd.max(self.mss as u64) == self.peer_rwnd
        {
            self.stats.duplicate_acks += 1;
        }
        self.peer_rwnd = hdr.rwnd.max(self.mss as u64);
        // An old ACK, overtaken by a later one.
        let fresh = hdr.ack >= self.snd_una;
        if fresh {
            // `tcp_ack_update_window` (behind `tcp_may_update_window`).
            self.max_window = self.max_window.max(hdr.rwnd);
        }
        fresh
    }

    /// What the ACK says, applied to the scoreboard: the RTT sample, the
    /// SACK blocks (or, without SACK, ns-3's guessed marks), SND.UNA, the
    /// loss probe's outcome, whether the ACK is a duplicate one, and what
    /// it delivered.
    fn read_ack<C: CongestionAvoidance>(&mut self, cx: &mut Step<'_, C>, hdr: &TcpHeader) -> AckFacts {
        let (now, params, r) = (cx.now, cx.params, cx.r);
        let feed = SackFeed::of(params);
        let ack = hdr.ack.min(self.snd_nxt);
        let prior_una = self.snd_una;
        let prior_sacked = self.board.sacked_bytes;
        let prior_in_flight = if feed.marks() { self.pipe() } else { self.flight_size() };
        let cwnd_limited = !params.cwnd_validation
            || if params.cwnd_limited_linux {
                self.is_cwnd_limited_linux(&cx.ccs[r])
            } else if params.cwnd_limited_at_send {
                self.limited_at_send
            } else {
                self.cwnd_full || prior_in_flight + self.mss as u64 >= cx.ccs[r].cwnd
            };

        // RTT sample: RFC 7323 §4 from the echoed timestamp of an ACK that
        // acknowledges new data; without timestamps, from the newest newly
        // acknowledged segment never retransmitted (Karn's rule, RFC 6298 §3).
        if ack > prior_una {
            let sample = if params.timestamps && hdr.ts_ecr > SimTime::ZERO {
                Some(now.saturating_since(hdr.ts_ecr))
            } else {
                self.board.seg_at(ack - 1).and_then(|i| {
                    let s = self.board.segs[i];
                    (s.flags & EVER_RETRANS == 0).then(|| now.saturating_since(s.sent_at))
                })
            };
            if let Some(rtt) = sample {
                self.take_rtt_sample(rtt, &mut cx.ccs[r]);
            }
        }
        if hdr.ts_val > self.ts_recent {
            self.ts_recent = hdr.ts_val;
        }

        // RACK and the loss probe read real SACK blocks (RFC 8985 §2).
        let rack = LossDetection::of(params) == LossDetection::Rack;
        let keep_retrans = params.sacked_retransmissions_in_pipe;
        self.rack.begin_ack();
        self.orig_delivered = false;
        self.newest_sacked_sent = None;
        self.newest_acked_sent = None;
        if feed == SackFeed::Blocks {
            self.apply_sacks(hdr.sacks(), params.sack_blocks_in_order, ack, now, rack, keep_retrans);
        }
        // Bytes this ACK's SACK blocks newly cover (ns-3's `bytesSacked`),
        // counted before SND.UNA moves over SACKed data.
        let mut newly_sacked = self.board.sacked_bytes - prior_sacked;
        let sacked_before_una = self.board.sacked_bytes;
        let newly_acked = ack - prior_una;
        self.acked_retransmission = false;
        if newly_acked > 0 {
            self.advance_una(ack, now, rack);
            cx.ccs[r].bytes_acked += newly_acked;
        }
        self.take_ca_rtt(cx, hdr, newly_acked);
        // Acknowledged cumulatively but delivered before, by an earlier SACK.
        let acked_sacked = sacked_before_una - self.board.sacked_bytes;
        if newly_acked > 0 && feed == SackFeed::DupAckMarks {
            // A duplicate ACK's mark cannot be right about the first
            // unacknowledged segment: ns-3's `DiscardUpTo` moves the mark to
            // the lowest unmarked segment above it and deems the head lost.
            if dupack_marks::take_mark_off_head(&mut self.board) {
                self.mark_lowest_unmarked(now, rack, keep_retrans);
                self.board.mark_lost(0);
            }
        }
        if feed == SackFeed::Blocks && params.tlp {
            self.process_tlp_ack(cx, hdr, ack, prior_una, prior_sacked);
        }

        // Duplicate ACK: acknowledges nothing new while data is outstanding
        // (RFC 5681 §2; with SACK, RFC 6675 counts only ACKs with new SACK
        // information; ns-3 any ACK whose SACK blocks are news).
        let is_dupack = if feed == SackFeed::Blocks && params.dupack_rule == DupAckRule::NewSack {
            newly_sacked > 0 && hdr.payload_bytes == 0
        } else {
            newly_acked == 0
                && hdr.payload_bytes == 0
                && self.snd_nxt > self.snd_una
                && (!feed.marks() || newly_sacked > 0 || hdr.n_sack == 0)
        };
        if is_dupack {
            self.dupacks += 1;
        } else if newly_acked > 0 {
            self.dupacks = 0;
        }
        // ns-3 reads pipe for PRR before the ACK's own guessed mark
        // (`BytesInFlight` in `ReceivedAck`, then `AddRenoSack` in `DupAck`).
        let pipe_before_marks = if feed != SackFeed::Blocks && RecoveryKind::of(params) == RecoveryKind::PrrNs3 {
            self.data_pipe()
        } else {
            0
        };
        // Without SACK, a duplicate ACK says one more segment above the
        // hole arrived: ns-3 marks the lowest unmarked one (during limited
        // transmit and recovery).
        if is_dupack
            && feed == SackFeed::DupAckMarks
            && !self.in_rto_recovery
            && (params.limited_transmit || self.recovery.is_some() || self.dupacks >= params.dupack_threshold)
        {
            let before = self.board.sacked_bytes;
            self.mark_lowest_unmarked(now, rack, keep_retrans);
            newly_sacked += self.board.sacked_bytes - before;
        }
        // RFC 6937 §3 DeliveredData: the change in SND.UNA plus the change
        // in SACKed bytes, which is negative for SACKed data SND.UNA passed.
        // The marks a duplicate ACK makes without SACK are guesses: ns-3
        // counts nothing delivered for them (`AddRenoSack` bypasses the rate
        // sample), only what SND.UNA passes.
        let delivered = if feed == SackFeed::DupAckMarks {
            newly_acked
        } else {
            newly_acked - acked_sacked + newly_sacked
        };
        if self.frto.is_some() {
            let dup = newly_acked == 0 && hdr.payload_bytes == 0;
            self.frto_on_ack(now, &mut cx.ccs[r], newly_acked, newly_sacked, dup);
        }
        AckFacts {
            ack,
            newly_acked,
            delivered,
            is_dupack,
            pipe_before_marks,
            cwnd_limited,
        }
    }

    /// The stack's loss detection after an ACK; returns when RACK's
    /// reordering timer must fire. Marks guessed from duplicate ACKs deem
    /// nothing lost: ns-3 deems only the head lost, on entering recovery and
    /// at each partial ACK.
    fn find_losses(&mut self, now: SimTime, params: &TcpParams) -> Option<SimTime> {
        match LossDetection::of(params) {
            LossDetection::Rack if self.rack.advanced => self.rack.detect_losses(
                &mut self.board,
                now,
                &self.rtt,
                self.recovery.is_some() || self.in_rto_recovery,
                params.dupack_threshold,
            ),
            LossDetection::IsLost if self.board.sacked_bytes > 0 => {
                is_lost::rfc6675(&mut self.board, params.dupack_threshold, self.mss);
                None
            }
            LossDetection::Fack if self.board.sacked_bytes > 0 => {
                is_lost::fack(&mut self.board, params.dupack_threshold);
                None
            }
            _ => None,
        }
    }

    /// What the ACK does to the window: the end of a timeout's recovery, an
    /// ACK during fast recovery (its end, or the recovery's own rules), the
    /// start of fast recovery, or growth.
    fn respond<C: CongestionAvoidance, S: SlowStart>(
        &mut self,
        cx: &mut Step<'_, C>,
        a: &AckFacts,
        ss: &mut S,
        out: &mut impl SenderOutput,
    ) {
        let (now, params, r) = (cx.now, cx.params, cx.r);
        // RTO loss recovery ends when everything outstanding at the RTO is acknowledged.
        let mut growth = a.newly_acked;
        if self.in_rto_recovery && self.snd_una >= self.rto_recover {
            self.in_rto_recovery = false;
            if params.rto_exit_growth_above_recover {
                growth = a.ack.saturating_sub(self.rto_recover);
            }
        }
        if self.runs_bbr() {
            self.respond_cong_control(cx, a);
            return;
        }
        if let Some(rec) = self.recovery {
            // RFC 5681 §3.2 step 6 (plain Reno): the next ACK that
            // acknowledges new data ends recovery, a partial one included;
            // the holes left are found by new duplicate ACKs or the RTO.
            let reno_exit = params.recovery == Recovery::Reno && a.newly_acked > 0;
            if self.snd_una >= rec.point || reno_exit {
                self.exit_recovery(cx, a, ss);
            } else {
                self.recovery_ack(a, now, params, &mut cx.ccs[r], out);
            }
        } else if self.should_enter_recovery(params, a.is_dupack) {
            self.fast_retransmit(cx, a.delivered, out);
        } else if growth > 0 && !(a.is_dupack && params.dupack_rule == DupAckRule::NewSack) {
            // An ACK that both advances SND.UNA and SACKs new data is a
            // duplicate ACK under ns-3's rule; it leaves ns-3 in CA_DISORDER,
            // where `TcpSocketBase::ProcessAck` does not grow the window.
            self.grow(cx, ss, growth, a.cwnd_limited);
        }
    }

    /// What the ACK does to recovery when the congestion control sets the
    /// window itself (`cong_control`, BBR): the episodes start and end as
    /// the stack's rules say, but neither PRR nor the end of recovery
    /// touches cwnd (`tcp_cong_control`, `tcp_end_cwnd_reduction`), and
    /// the head waits for room and the pacing clock like any other
    /// retransmission (`tcp_xmit_retransmit_queue`).
    fn respond_cong_control<C: CongestionAvoidance>(&mut self, cx: &mut Step<'_, C>, a: &AckFacts) {
        let (params, r) = (cx.params, cx.r);
        if self.in_rto_recovery && self.snd_una >= self.rto_recover {
            self.in_rto_recovery = false;
        }
        if let Some(mut rec) = self.recovery {
            if self.snd_una >= rec.point {
                self.recovery = None;
                cx.ccs[r].in_recovery = false;
            } else if a.newly_acked > 0 {
                rec.partial_acks += 1;
                self.recovery = Some(rec);
            }
        } else if self.should_enter_recovery(params, a.is_dupack) {
            self.enter_recovery(cx, a.delivered, self.delivered_this_event());
        }
    }

    /// Full ACK: leave recovery with cwnd = ssthresh (RFC 6582 §3.2 step 3
    /// option 2, RFC 6937 §3, Linux and ns-3 alike); ns-3 then grows the
    /// window from there with the same ACK.
    fn exit_recovery<C: CongestionAvoidance, S: SlowStart>(&mut self, cx: &mut Step<'_, C>, a: &AckFacts, ss: &mut S) {
        let (now, params, r) = (cx.now, cx.params, cx.r);
        self.recovery = None;
        let sf = &mut cx.ccs[r];
        sf.cwnd = sf.ssthresh.max(self.mss as u64);
        sf.in_recovery = false;
        cx.cc.on_recovery_exit(cx.ccs, r, now);
        if params.grow_on_recovery_exit {
            self.grow(cx, ss, a.newly_acked, a.cwnd_limited);
        }
    }

    /// An ACK during fast recovery that does not end it: the recovery's
    /// window, and what a partial ACK resends at once.
    fn recovery_ack(
        &mut self,
        a: &AckFacts,
        now: SimTime,
        params: &TcpParams,
        sf: &mut SubflowCc,
        out: &mut impl SenderOutput,
    ) {
        let partial = a.newly_acked > 0;
        let kind = RecoveryKind::of(params);
        let Some(mut rec) = self.recovery else { return };
        if partial {
            rec.partial_acks += 1;
        }
        let pipe_ns3 = match kind {
            RecoveryKind::PrrNs3 if SackFeed::of(params) == SackFeed::Blocks => self.data_pipe(),
            RecoveryKind::PrrNs3 => a.pipe_before_marks,
            _ => 0,
        };
        let info = RecoveryAck {
            newly_acked: a.newly_acked,
            delivered: a.delivered,
            delivered_pkts: self.delivered_this_event(),
            dup: a.is_dupack,
            pipe: self.pipe(),
            pipe_pkts: self.packets_in_flight() as u64,
            pipe_ns3,
            safe: self.acked_retransmission,
            newly_lost: self.board.lost_marks != self.lost_marks_at_event,
        };
        recovery::on_ack(kind, &mut rec, sf, &mut self.board, &info, self.mss as u64);
        self.recovery = Some(rec);
        let feed = SackFeed::of(params);
        if kind == RecoveryKind::NewReno && partial {
            // RFC 6582 §3.2 step 5: a partial ACK retransmits the first
            // unacknowledged segment at once, then deflates.
            self.retransmit_head(now, out);
        } else if params.partial_ack_retransmit && partial && feed.marks() {
            // ns-3 (`ProcessAck` → `DoRetransmit`): unless the first
            // unacknowledged segment was already resent, a partial ACK
            // sends one segment whatever cwnd — NextSeg's: the lowest lost
            // one (without SACK the head, deemed lost first), else new data,
            // else the head again.
            if feed == SackFeed::DupAckMarks {
                self.board.mark_lost(0);
            }
            if self
                .board
                .segs
                .front()
                .is_some_and(|s| s.flags & (RETRANS | SACKED) != RETRANS)
            {
                match self.board.next_lost(self.snd_nxt) {
                    Some(i) => self.retransmit(i, now, out),
                    None => self.partial_ack_send = true,
                }
            }
        }
    }

    /// RFC 6298 §5.2–5.3: stop the timer when nothing is outstanding,
    /// restart it when new data is acknowledged — but RFC 6582 §4's
    /// Impatient NewReno (and ns-3 in every recovery) restarts it only on
    /// the first partial ACK, so a window with many losses times out
    /// instead of being repaired one hole per RTT. Then the earlier
    /// deadlines: RACK's reordering timer, a held-back early
    /// retransmission, or a fresh loss probe.
    fn rearm_timers(
        &mut self,
        a: &AckFacts,
        reorder_at: Option<SimTime>,
        now: SimTime,
        params: &TcpParams,
        out: &mut impl SenderOutput,
    ) {
        let newly_acked = a.newly_acked;
        let patient = match self.recovery {
            Some(rec) if params.recovery != Recovery::Reno && newly_acked > 0 => {
                params.partial_ack_rto == PartialAckRto::SlowButSteady || rec.partial_acks <= 1
            }
            _ => true,
        };
        // ns-3 in CA_DISORDER: an ACK of new data that is also a duplicate
        // ACK reaches no `NewAck`, which restarts the timer and lets the
        // application refill the send buffer.
        let disorder =
            a.is_dupack && newly_acked > 0 && params.dupack_rule == DupAckRule::NewSack && self.recovery.is_none();
        let patient = patient && !disorder;
        if newly_acked > 0 && !disorder {
            self.sndbuf_una = self.snd_una;
        }
        if self.snd_una >= self.snd_nxt {
            self.stop_timer();
            return;
        }
        if newly_acked > 0 && patient {
            self.restart_timer(now, out);
        }
        // RFC 8985: a reordering timer for segments not yet lost, else a
        // fresh loss probe (Linux `tcp_set_xmit_timer` on every ACK).
        let prior_aux = self.aux_timer;
        self.aux_timer = reorder_at.map(|t| (t, AuxTimer::Reorder));
        if self.aux_timer.is_none() {
            self.aux_timer = self.delayed_early_retransmit(now, params, prior_aux);
        }
        if self.aux_timer.is_none() {
            self.schedule_probe(now, params);
        }
        self.sync_timer(out);
    }

    /// The handshake is over: the SYN-ACK reached the sender that sent the
    /// SYN, or the third packet reached the sender that answered one.
    pub(super) fn established<S: SlowStart>(
        &mut self,
        hdr: &TcpHeader,
        now: SimTime,
        ccs: &mut [SubflowCc],
        r: usize,
        ss: &mut S,
    ) {
        self.state = SenderState::Established;
        self.stats.established_at = Some(now);
        self.snd_una = 1;
        self.snd_nxt = 1;
        self.board.retx_hint = 1;
        self.peer_rwnd = hdr.rwnd.max(self.mss as u64);
        self.max_window = self.max_window.max(hdr.rwnd);
        self.ts_recent = hdr.ts_val;
        self.stop_timer();
        // Karn: the handshake RTT counts only if the SYN (or SYN-ACK) was
        // sent once (Linux `tcp_synack_rtt_meas` on the passive side).
        if self.stats.syn_retransmits == 0 {
            self.take_rtt_sample(now.saturating_since(self.syn_sent_at), &mut ccs[r]);
        }
        self.start_cong_control(now, &mut ccs[r]);
        ccs[r].established = true;
        ccs[r].snd_una = self.snd_una;
        ccs[r].snd_nxt = self.snd_nxt;
        ss.on_subflow_start(ccs, r, now);
    }

    /// Marks segments covered by SACK blocks (RFC 6675 §4 Update()), the
    /// blocks in sequence order when `in_order` (Linux's
    /// `tcp_sacktag_write_queue`, a stable sort by start), else as listed.
    pub(super) fn apply_sacks(
        &mut self,
        blocks: &[SackBlock],
        in_order: bool,
        ack: u64,
        now: SimTime,
        rack: bool,
        keep_retrans: bool,
    ) {
        let mut walk = [SackBlock::default(); MAX_SACK_BLOCKS];
        let walk = &mut walk[..blocks.len()];
        walk.copy_from_slice(blocks);
        if in_order {
            for i in 1..walk.len() {
                let mut j = i;
                while j > 0 && walk[j - 1].start > walk[j].start {
                    walk.swap(j - 1, j);
                    j -= 1;
                }
            }
        }
        for b in walk.iter() {
            let start = b.start.max(ack).max(self.snd_una);
            let end = b.end.min(self.snd_nxt);
            if start >= end {
                continue;
            }
            // Only whole segments inside the block count.
            let mut i = self.board.search(start, |s| s.start < start);
            while i < self.board.segs.len() && self.board.segs[i].end() <= end {
                let s = self.board.segs[i];
                if s.flags & SACKED == 0 {
                    if s.flags & EVER_RETRANS == 0 {
                        self.newest_sacked_sent = self.newest_sacked_sent.max(Some(s.sent_at));
                    }
                    self.mark_sacked(i, now, rack, keep_retrans);
                }
                i += 1;
            }
        }
    }

    /// Without SACK, ns-3's guess from a duplicate ACK (`AddRenoSack`): the
    /// lowest segment above the head not yet marked is taken as received.
    pub(super) fn mark_lowest_unmarked(&mut self, now: SimTime, rack: bool, keep_retrans: bool) {
        if let Some(i) = dupack_marks::next_to_mark(&self.board) {
            self.mark_sacked(i, now, rack, keep_retrans);
        }
    }

    /// Segment `i` is known received above SND.UNA.
    /// `keep_retrans`: a SACKed retransmission stays counted in pipe until
    /// cumulatively acknowledged (see `TcpParams::sacked_retransmissions_in_pipe`).
    pub(super) fn mark_sacked(&mut self, i: usize, now: SimTime, rack: bool, keep_retrans: bool) {
        self.sacked_delivered(i);
        let seg = self.board.mark_sacked(i, keep_retrans);
        if rack {
            self.rack.advance(&seg, now, self.rtt.min_rtt);
        }
        self.note_original_delivery(&seg);
    }

    /// Drops acknowledged segments from the scoreboard.
    pub(super) fn advance_una(&mut self, ack: u64, now: SimTime, rack: bool) {
        while let Some(s) = self.board.pop_acked(ack) {
            if s.flags & EVER_RETRANS != 0 {
                self.acked_retransmission = true;
            }
            self.acked_delivered(&s);
            if s.flags & SACKED == 0 {
                if rack {
                    self.rack.advance(&s, now, self.rtt.min_rtt);
                }
                self.note_original_delivery(&s);
                if s.flags & EVER_RETRANS == 0 {
                    self.newest_acked_sent = self.newest_acked_sent.max(Some(s.sent_at));
                }
            }
        }
        self.snd_una = ack;
    }

    /// Linux's congestion-control RTT sample of this ACK (`tcp_clean_rtx_queue`,
    /// `tcp_ack_update_rtt`): from the newest segment SACKed, else the newest
    /// acknowledged cumulatively unless a retransmission was among those
    /// (Karn, `FLAG_RETRANS_DATA_ACKED`), else, on an ACK of new data, the
    /// echoed timestamp.
    fn take_ca_rtt<C: CongestionAvoidance>(&mut self, cx: &mut Step<'_, C>, hdr: &TcpHeader, newly_acked: u64) {
        let now = cx.now;
        let sent = self
            .newest_sacked_sent
            .or(self.newest_acked_sent.filter(|_| !self.acked_retransmission));
        let sample = match sent {
            Some(t) => Some(now.saturating_since(t)),
            None if newly_acked > 0 && cx.params.timestamps && hdr.ts_ecr > SimTime::ZERO => {
                Some(now.saturating_since(hdr.ts_ecr))
            }
            None => None,
        };
        if let Some(rtt) = sample {
            let sf = &mut cx.ccs[cx.r];
            sf.ca_rtt = rtt;
            sf.ca_rtt_samples += 1;
        }
    }

    /// A congestion event on subflow `r`: counted, slow start left, and the
    /// congestion avoidance's new ssthresh from the current flight.
    pub(super) fn loss_event<C: CongestionAvoidance>(&mut self, cx: &mut Step<'_, C>) -> u64 {
        let (now, params, r) = (cx.now, cx.params, cx.r);
        cx.ccs[r].loss_events += 1;
        if cx.ccs[r].in_slow_start() {
            self.note_slow_start_exit(now, cx.ccs[r].cwnd);
        }
        cx.ccs[r].left_slow_start = true;
        // ns-3 `EnterRecovery` without SACK counts the head, which it has
        // just marked lost, as still in flight: pipe + 1 MSS.
        let head_in_flight = if !params.sack && params.loss_flight == LossFlight::Pipe {
            self.mss as u64
        } else {
            0
        };
        cx.ccs[r].bytes_in_flight = self.loss_flight(params, cx.ccs[r].cwnd) + head_in_flight;
        cx.cc.ssthresh_after_loss(cx.ccs, r, now)
    }

    /// What a loss halves ([`LossFlight`]), with the window at the loss.
    pub(super) fn loss_flight(&self, params: &TcpParams, cwnd: u64) -> u64 {
        match params.loss_flight {
            LossFlight::FlightSize => self.flight_size(),
            LossFlight::CappedFlightSize => self.flight_size().min(cwnd),
            LossFlight::Pipe => self.data_pipe(),
            LossFlight::Cwnd => cwnd,
        }
    }

    pub(super) fn should_enter_recovery(&self, params: &TcpParams, is_dupack: bool) -> bool {
        // No fast retransmit for data sent before an RTO: RFC 6582 §3.2 step 1
        // waits for an ACK above `recover`; RFC 6675 §5.1 (and ns-3, Linux)
        // for HighACK ≥ RecoveryPoint. Plain Reno (RFC 5681 §3.2) has no
        // `recover` and takes every third duplicate ACK as a new loss.
        let marks = SackFeed::of(params).marks();
        let before_recover = if marks {
            self.snd_una < self.rto_recover
        } else {
            self.snd_una <= self.rto_recover
        };
        if params.recovery != Recovery::Reno && before_recover && self.rto_recover > 0 {
            return false;
        }
        if LossDetection::of(params) == LossDetection::Rack {
            // Linux `tcp_time_to_recover`: RACK has deemed a segment lost.
            return self.board.lost_bytes > 0;
        }
        if self.dupacks >= params.dupack_threshold {
            return true;
        }
        if !params.early_retransmit_delay && self.early_retransmit_due(params) {
            return true;
        }
        // RFC 6675 §5: or when IsLost(HighACK + 1) — which ns-3 asks only of
        // a duplicate ACK (`TcpSocketBase::DupAck`); a lost head found on a
        // new ACK is resent from the open state.
        marks
            && (is_dupack || params.dupack_rule != DupAckRule::NewSack)
            && self.board.segs.front().is_some_and(|s| s.flags & LOST != 0)
    }

    /// Enters fast recovery and, except with PRR, retransmits the first
    /// unacknowledged segment at once, whatever cwnd and the flight allow
    /// (RFC 5681 §3.2 step 2, RFC 6582 §3.2 step 2, RFC 6675 §5 (4.3)); PRR's
    /// window on entry, pipe + 1 MSS, already has room for it.
    pub(super) fn fast_retransmit<C: CongestionAvoidance>(
        &mut self,
        cx: &mut Step<'_, C>,
        delivered: u64,
        out: &mut impl SenderOutput,
    ) {
        let (now, params) = (cx.now, cx.params);
        self.enter_recovery(cx, delivered, self.delivered_this_event());
        if RecoveryKind::of(params).resends_head_on_entry() {
            self.retransmit_head(now, out);
        }
    }

    /// Enters fast recovery: the head deemed lost, the congestion
    /// avoidance's new ssthresh, and the recovery's window on entry, for an
    /// event that delivered `delivered` bytes in `delivered_pkts` segments.
    pub(super) fn enter_recovery<C: CongestionAvoidance>(
        &mut self,
        cx: &mut Step<'_, C>,
        delivered: u64,
        delivered_pkts: u64,
    ) {
        let (params, r) = (cx.params, cx.r);
        if SackFeed::of(params) == SackFeed::DupAckMarks {
            // ns-3 `EnterRecovery` without SACK: `MarkHeadAsLost`.
            self.board.mark_lost(0);
        }
        self.stats.fast_recoveries += 1;
        let kind = RecoveryKind::of(params);
        let pipe_at_entry = if kind == RecoveryKind::PrrNs3 {
            self.data_pipe()
        } else {
            self.pipe()
        };
        // Plain Reno may fast-retransmit during RTO recovery: its
        // retransmissions are fast ones from here, and a later RTO halves
        // ssthresh again (a new loss event).
        self.in_rto_recovery = false;
        let ssthresh = self.loss_event(cx);
        cx.ccs[r].ssthresh = ssthresh;
        cx.ccs[r].in_recovery = true;
        let mut rec = RecoveryState {
            point: self.snd_nxt,
            prr_delivered: 0,
            prr_out: 0,
            prr_delivered_pkts: 0,
            prr_out_pkts: 0,
            recover_fs: kind.recover_fs(self.flight_size(), pipe_at_entry, cx.ccs[r].cwnd),
            high_rxt: self.snd_una,
            rescue_rxt: None,
            partial_acks: 0,
        };
        // The first unacknowledged segment is retransmitted first (RFC 5681
        // §3.2 step 2); RACK has already said which segments are lost.
        if LossDetection::of(params) != LossDetection::Rack {
            self.board.mark_lost(0);
        }
        if self.runs_bbr() {
            // `tcp_init_cwnd_reduction` → `bbr_ssthresh`; the window is
            // BBR's, set by the ACK's `bbr_main`.
            self.recovery = Some(rec);
            self.cong_control_ssthresh(&mut cx.ccs[r]);
            return;
        }
        let pipe = self.pipe();
        let safe = self.acked_retransmission;
        let sf = &mut cx.ccs[r];
        // The ACK that starts the episode, as the recovery reads it: a
        // duplicate one for ns-3's PRR accounting (`EnterRecovery`); no
        // entry rule reads what it acknowledged.
        let ack = RecoveryAck {
            newly_acked: 0,
            delivered,
            delivered_pkts,
            dup: true,
            pipe,
            pipe_pkts: self.packets_in_flight() as u64,
            pipe_ns3: pipe_at_entry,
            safe,
            newly_lost: self.board.lost_marks != self.lost_marks_at_event,
        };
        sf.cwnd = recovery::entry_cwnd(kind, params, &mut rec, sf, &ack);
        self.recovery = Some(rec);
    }

    /// Window growth for an ACK of new data outside recovery: slow start
    /// first, the remainder to congestion avoidance (htsim's `tcp.cpp` →
    /// `mtcp.cpp` split; Linux ≥ 4.x `tcp_slow_start` returns the remainder).
    pub(super) fn grow<C: CongestionAvoidance, S: SlowStart>(
        &mut self,
        cx: &mut Step<'_, C>,
        ss: &mut S,
        acked: u64,
        cwnd_limited: bool,
    ) {
        let (now, r) = (cx.now, cx.r);
        let mut rest = acked;
        if cx.ccs[r].in_slow_start() {
            if cwnd_limited {
                rest = ss.on_ack(cx.ccs, r, acked, now);
            } else {
                // No growth, but the strategy still sees the ACK (HyStart++
                // counts its rounds and RTT samples on every ACK).
                ss.on_ack_without_growth(cx.ccs, r, now);
            }
            if !cx.ccs[r].in_slow_start() {
                self.note_slow_start_exit(now, cx.ccs[r].cwnd);
                cx.ccs[r].left_slow_start = true;
                ss.on_exit(cx.ccs, r, now);
            }
        }
        if cwnd_limited && rest > 0 && !cx.ccs[r].in_slow_start() {
            let info = AckInfo {
                now,
                acked_bytes: rest,
                cwnd_limited,
            };
            cx.cc.on_ack(cx.ccs, r, &info);
        }
    }
}
