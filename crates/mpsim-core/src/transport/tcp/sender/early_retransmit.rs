//! RFC 5827 early retransmit, with its §6 delay as Linux 3.x ran it.

use super::*;
use crate::cc::CongestionAvoidance;
use crate::transport::tcp::scoreboard::SackFeed;
impl TcpSender {
    /// Linux 3.x `tcp_resume_early_retransmit`: the held-back early
    /// retransmission goes, and recovery starts.
    pub(super) fn on_early_retransmit_timeout<C: CongestionAvoidance>(
        &mut self,
        cx: &mut Step<'_, C>,
        out: &mut impl SenderOutput,
    ) {
        let r = cx.r;
        if self.recovery.is_some() || self.in_rto_recovery {
            return;
        }
        self.fast_retransmit(cx, 0, out);
        cx.ccs[r].bytes_in_flight = self.pipe();
    }

    /// RFC 5827 §3.1–3.2: with fewer than four segments outstanding and no
    /// new data to send, ER_thresh = outstanding − 1 duplicate ACKs (with
    /// SACK: segments SACKed) start recovery; not while a retransmission is
    /// outstanding (Linux 3.x `tcp_time_to_recover`: `!retrans_out`).
    pub(super) fn early_retransmit_due(&self, params: &TcpParams) -> bool {
        let outstanding = self.board.segs.len() as u64;
        if !params.early_retransmit
            || !self.no_new_data
            || !(2..4).contains(&outstanding)
            || self.board.retrans_bytes > 0
        {
            return false;
        }
        let evidence = if SackFeed::of(params) == SackFeed::Blocks {
            self.board.sacked_segs
        } else {
            self.dupacks as u64
        };
        evidence >= outstanding - 1
    }

    /// The deadline of a held-back early retransmission (RFC 5827 §6
    /// mitigation A.3): max(SRTT/4, 2 ms) after the ACK that made it due
    /// (Linux 3.x `tcp_pause_early_retransmit`), kept by later ACKs, never
    /// after the RTO.
    pub(super) fn delayed_early_retransmit(
        &self,
        now: SimTime,
        params: &TcpParams,
        prior: Option<(SimTime, AuxTimer)>,
    ) -> Option<(SimTime, AuxTimer)> {
        if !params.early_retransmit_delay
            || self.recovery.is_some()
            || self.in_rto_recovery
            || !self.early_retransmit_due(params)
        {
            return None;
        }
        if let Some(p @ (_, AuxTimer::EarlyRetransmit)) = prior {
            return Some(p);
        }
        let delay = SimDuration(self.rtt.srtt.nanos() / 4).max(SimDuration::from_millis(2));
        Some(((now + delay).min(self.rto_at), AuxTimer::EarlyRetransmit))
    }
}
