//! The sender's one timer event: the RFC 6298 retransmission timer and the
//! earlier deadlines that share it (RACK's reordering timer, the loss
//! probe, a held-back early retransmission), and what a timeout does.

use super::*;
use crate::cc::CongestionAvoidance;
use crate::transport::tcp::loss::dupack_marks;
use crate::transport::tcp::scoreboard::{SackFeed, RETRANS};
/// What the sender's timer stands for when it fires before the RTO.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum AuxTimer {
    /// RFC 8985 §6.2 step 5: segments sent before the most recently
    /// delivered one become lost when their reordering window runs out.
    Reorder,
    /// RFC 8985 §7.2: the tail loss probe timeout (PTO).
    Probe,
    /// RFC 5827 §6 mitigation A.3 (Linux 3.x `tcp_pause_early_retransmit`):
    /// an early retransmission held back a quarter of an RTT.
    EarlyRetransmit,
}

impl TcpSender {
    /// RFC 6298 §5.1: start the timer when sending if it is not running.
    pub(super) fn ensure_timer(&mut self, now: SimTime, out: &mut impl SenderOutput) {
        if self.rto_at == SimTime::NEVER {
            self.rto_at = now + self.rtt.rto();
            self.sync_timer(out);
        }
    }

    pub(super) fn restart_timer(&mut self, now: SimTime, out: &mut impl SenderOutput) {
        self.rto_at = now + self.rtt.rto();
        self.sync_timer(out);
    }

    pub(super) fn stop_timer(&mut self) {
        self.rto_at = SimTime::NEVER;
        self.aux_timer = None;
        self.timer.stop();
    }

    /// The retransmission timer's deadline with the earlier ones that share
    /// it, not the pacing clock's (Linux's `icsk_timeout`).
    pub fn retransmit_deadline(&self) -> SimTime {
        self.aux_timer.map_or(self.rto_at, |(t, _)| t.min(self.rto_at))
    }

    /// Sets the timer event to the earlier of the RTO, the auxiliary
    /// deadline and the pacing clock's.
    pub(super) fn sync_timer(&mut self, out: &mut impl SenderOutput) {
        let at = self.retransmit_deadline().min(self.pace_at);
        if at == SimTime::NEVER {
            self.timer.stop();
        } else if let Some(at) = self.timer.set(at) {
            out.arm_timer(at);
        }
    }

    /// The timer event fired.
    pub fn on_timer<C: CongestionAvoidance>(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
        out: &mut impl SenderOutput,
    ) {
        let (expired, again) = self.timer.on_event(now);
        if let Some(at) = again {
            out.arm_timer(at);
        }
        if !expired {
            return;
        }
        if self.pace_at <= now {
            // The pacing clock let the held segment go: the connection
            // pushes after this event (`tcp_pace_kick`).
            self.pace_at = SimTime::NEVER;
            let aux_due = self.aux_timer.is_some_and(|(t, _)| t <= now);
            if !aux_due && self.rto_at > now {
                self.sync_timer(out);
                return;
            }
        }
        let cx = &mut Step {
            now,
            params,
            ccs,
            r,
            cc,
        };
        if let Some((at, kind)) = self.aux_timer {
            if at <= now && self.state == SenderState::Established {
                self.aux_timer = None;
                match kind {
                    AuxTimer::Reorder => self.on_reorder_timeout(cx),
                    AuxTimer::EarlyRetransmit => self.on_early_retransmit_timeout(cx, out),
                    AuxTimer::Probe => {
                        // One probe per tail-loss episode (RFC 8985 §7.3);
                        // then the RTO runs afresh.
                        if self.tlp_high_seq.is_none() {
                            self.probe_pending = true;
                            self.stats.loss_probes += 1;
                        }
                        self.rto_at = now + self.rtt.rto();
                    }
                }
                self.sync_timer(out);
                return;
            }
        }
        match self.state {
            SenderState::SynSent => {
                self.stats.syn_retransmits += 1;
                self.syn_rto = self.syn_rto.saturating_mul(2).min(params.rtt.max_rto);
                self.send_syn(now, params, out);
            }
            SenderState::SynReceived => {
                self.stats.syn_retransmits += 1;
                self.syn_rto = self.syn_rto.saturating_mul(2).min(params.rtt.max_rto);
                self.send_syn_ack(now, out);
            }
            SenderState::Established if self.snd_una < self.snd_nxt => self.on_rto(cx, out),
            _ => {}
        }
    }

    /// RFC 8985 §6.3 (Linux `tcp_rack_reo_timeout`): the reordering window
    /// of some segments ran out: they are lost, and recovery starts.
    pub(super) fn on_reorder_timeout<C: CongestionAvoidance>(&mut self, cx: &mut Step<'_, C>) {
        let (now, params, r) = (cx.now, cx.params, cx.r);
        self.lost_marks_at_event = self.board.lost_marks;
        self.delivered_segs_at_event = self.delivered_segs;
        let again = self.rack.detect_losses(
            &mut self.board,
            now,
            &self.rtt,
            self.recovery.is_some() || self.in_rto_recovery,
            params.dupack_threshold,
        );
        if self.recovery.is_none() && !self.in_rto_recovery && self.board.lost_bytes > 0 {
            // Linux runs `tcp_cwnd_reduction(sk, 1, 0, 0)` here: one segment
            // counted delivered, so its PRR lets the first retransmission go.
            self.enter_recovery(cx, 0, 1);
        }
        self.aux_timer = again.map(|t| (t, AuxTimer::Reorder));
        cx.ccs[r].bytes_in_flight = self.pipe();
    }

    /// RFC 6298 §5.4–5.6 and RFC 5681 §3.1 eq. (4): ssthresh from the flight
    /// size, cwnd to one segment (the loss window), back off, and retransmit
    /// from the first unacknowledged segment. Every segment not SACKed is
    /// marked lost (RFC 6675 §5.1), so they are resent in order as the
    /// window reopens.
    pub(super) fn on_rto<C: CongestionAvoidance>(&mut self, cx: &mut Step<'_, C>, out: &mut impl SenderOutput) {
        let (now, params, r) = (cx.now, cx.params, cx.r);
        self.stats.rto_count += 1;
        if params.frto {
            self.frto_on_rto(&cx.ccs[r]);
        }
        cx.ccs[r].loss_events += 1;
        if cx.ccs[r].in_slow_start() {
            self.note_slow_start_exit(now, cx.ccs[r].cwnd);
        }
        cx.ccs[r].left_slow_start = true;
        // A second timeout of the same data does not halve ssthresh again
        // from the already-collapsed flight (RFC 5681 §3.1 note on eq. (4)).
        let first_timeout = !self.in_rto_recovery;
        if first_timeout && !self.runs_bbr() {
            cx.ccs[r].bytes_in_flight = self.loss_flight(params, cx.ccs[r].cwnd);
            cx.ccs[r].ssthresh = cx.cc.ssthresh_after_loss(cx.ccs, r, now);
        }
        cx.ccs[r].cwnd = self.mss as u64;
        cx.ccs[r].in_recovery = false;
        cx.ccs[r].ca_credit = 0;
        cx.cc.on_rto(cx.ccs, r, now);
        self.recovery = None;
        self.in_rto_recovery = true;
        self.tlp_high_seq = None;
        self.probe_pending = false;
        self.aux_timer = None;
        self.rto_recover = self.snd_nxt;
        self.dupacks = 0;
        if SackFeed::of(params) == SackFeed::DupAckMarks {
            dupack_marks::forget(&mut self.board);
        }
        for i in 0..self.board.segs.len() {
            let s = &mut self.board.segs[i];
            if s.flags & (SACKED | RETRANS) == SACKED | RETRANS {
                s.flags &= !RETRANS;
                self.board.retrans_bytes -= s.len as u64;
            }
            self.board.mark_lost(i);
        }
        if self.runs_bbr() {
            self.cong_control_timeout(now, &mut cx.ccs[r], first_timeout);
        }
        self.rtt.back_off();
        self.restart_timer(now, out);
        cx.ccs[r].bytes_in_flight = self.pipe();
    }
}
