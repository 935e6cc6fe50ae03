//! RFC 8985 §7 tail loss probe, as Linux runs it (`tcp_schedule_loss_probe`,
//! `tcp_process_tlp_ack`).

use super::*;
use crate::cc::CongestionAvoidance;
use crate::transport::tcp::config::TlpPto;
use crate::transport::tcp::scoreboard::SackFeed;
impl TcpSender {
    /// RFC 8985 §7.4 (Linux `tcp_process_tlp_ack`): whether the
    /// outstanding probe repaired a loss. Without DSACK a probe that
    /// retransmitted the last segment counts as repairing one when the ACK
    /// goes beyond it; a pure duplicate ACK says both copies arrived.
    pub(super) fn process_tlp_ack<C: CongestionAvoidance>(
        &mut self,
        cx: &mut Step<'_, C>,
        hdr: &TcpHeader,
        ack: u64,
        prior_una: u64,
        prior_sacked: u64,
    ) {
        let (now, r) = (cx.now, cx.r);
        let Some(high) = self.tlp_high_seq else { return };
        if ack < high {
            return;
        }
        if !self.tlp_retrans {
            self.tlp_high_seq = None;
        } else if ack > high {
            // The probe repaired a loss: reduce as for one (CWR).
            self.tlp_high_seq = None;
            let ssthresh = self.loss_event(cx);
            cx.ccs[r].ssthresh = ssthresh;
            cx.ccs[r].cwnd = ssthresh.max(self.mss as u64);
            cx.cc.on_recovery_exit(cx.ccs, r, now);
        } else if ack == prior_una && self.board.sacked_bytes == prior_sacked && hdr.payload_bytes == 0 {
            self.tlp_high_seq = None;
        }
    }

    /// RFC 8985 §7.2 (Linux `tcp_schedule_loss_probe`): with data
    /// outstanding and no recovery under way, the loss probe fires after
    /// PTO = 2·SRTT, plus the minimum RTO when one segment is outstanding
    /// (its ACK may be delayed) or 2 ms otherwise (Linux
    /// `TCP_TIMEOUT_MIN_US`); never after the RTO.
    pub(super) fn schedule_probe(&mut self, now: SimTime, params: &TcpParams) {
        if !(params.tlp && SackFeed::of(params) == SackFeed::Blocks)
            || self.state != SenderState::Established
            || self.snd_una >= self.snd_nxt
            || self.recovery.is_some()
            || self.in_rto_recovery
        {
            return;
        }
        let pto = if self.rtt.has_sample && params.tlp_pto == TlpPto::Linux3 {
            // Linux 3.10–4.x: room for a delayed ACK (TCP_DELACK_MAX) when
            // one segment is outstanding, at least 10 ms.
            let srtt = self.rtt.srtt;
            let mut pto = srtt.saturating_mul(2).max(SimDuration::from_millis(10));
            if self.board.segs.len() == 1 {
                pto = pto.max(srtt + SimDuration(srtt.nanos() / 2) + SimDuration::from_millis(200));
            }
            pto
        } else if self.rtt.has_sample {
            let extra = if self.board.segs.len() == 1 {
                params.rtt.min_rto
            } else {
                SimDuration::from_millis(2)
            };
            self.rtt.srtt.saturating_mul(2) + extra
        } else {
            params.rtt.initial_rto
        };
        let at = (now + pto).min(self.rto_at);
        self.aux_timer = Some((at, AuxTimer::Probe));
    }
}
