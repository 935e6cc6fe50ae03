//! RFC 8985 §6 RACK: a segment is lost when one sent sufficiently later has
//! been delivered (Linux `tcp_recovery.c`, the only SACK loss detection
//! since 4.18).

use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::rtt::RttEstimator;
use crate::transport::tcp::scoreboard::{Scoreboard, Seg, EVER_RETRANS, LOST, RETRANS, SACKED};

/// RFC 8985 §6.1 RACK state: the most recently sent segment known to be
/// delivered (acknowledged or SACKed).
#[derive(Copy, Clone, Debug, Default)]
pub struct Rack {
    /// RACK.xmit_ts: when that segment was (last) sent; `None` before the
    /// first delivery.
    pub xmit_ts: Option<SimTime>,
    /// RACK.end_seq: one past its last sequence number.
    pub end_seq: u64,
    /// RACK.rtt: the RTT measured on the latest delivered segment that gave
    /// an unambiguous sample.
    pub rtt: SimDuration,
    /// Whether RACK.xmit_ts moved with the latest ACK (Linux `rack.advanced`).
    pub advanced: bool,
    /// RACK.fack: the highest sequence number delivered.
    pub fack: u64,
    /// RACK.fack before the ACK being processed: a segment this ACK
    /// delivers below it arrived out of order (Linux `prior_fack`).
    pub prior_fack: u64,
    /// RACK.reordering_seen: a segment was delivered below `fack` without
    /// having been retransmitted.
    pub reordering_seen: bool,
}

impl Rack {
    /// Before the segments an ACK delivers are seen.
    #[inline]
    pub fn begin_ack(&mut self) {
        self.advanced = false;
        self.prior_fack = self.fack;
    }

    /// RFC 8985 §6.2 steps 2–3 (Linux `tcp_rack_advance`): segment `s` was
    /// delivered at `now`.
    pub fn advance(&mut self, s: &Seg, now: SimTime, min_rtt: SimDuration) {
        let rtt = now.saturating_since(s.sent_at);
        // Step 2: a retransmitted segment whose RTT is below the minimum
        // was delivered by its original transmission: no sample.
        if s.flags & EVER_RETRANS != 0 && rtt < min_rtt {
            return;
        }
        // Step 3: delivered below the highest delivered sequence without a
        // retransmission: the network reorders.
        if s.flags & EVER_RETRANS == 0 && s.end() < self.prior_fack {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(s.end());
        self.rtt = rtt;
        self.advanced = true;
        let newer = match self.xmit_ts {
            None => true,
            Some(x) => s.sent_at > x || (s.sent_at == x && s.end() > self.end_seq),
        };
        if newer {
            self.xmit_ts = Some(s.sent_at);
            self.end_seq = s.end();
        }
    }

    /// RFC 8985 §6.2 steps 4–5 (Linux `tcp_rack_detect_loss`): every
    /// segment sent before the most recently delivered one and not
    /// delivered within RACK.rtt + reo_wnd of its transmission is lost.
    /// `recovering`: fast or timeout recovery is under way. Returns when the
    /// reordering timer must fire for the others.
    pub fn detect_losses(
        &self,
        board: &mut Scoreboard,
        now: SimTime,
        rtt: &RttEstimator,
        recovering: bool,
        dupack_threshold: u32,
    ) -> Option<SimTime> {
        let xmit_ts = self.xmit_ts?;
        // Step 4: no reordering seen, and in recovery or with DupThresh
        // segments SACKed: no window; else min_RTT/4, at most SRTT.
        let reo_wnd = if !self.reordering_seen && (recovering || board.sacked_segs >= dupack_threshold as u64) {
            SimDuration::ZERO
        } else {
            SimDuration(rtt.min_rtt.nanos() / 4).min(rtt.srtt)
        };
        let mut timeout: Option<SimTime> = None;
        for i in 0..board.segs.len() {
            let s = board.segs[i];
            let before = s.sent_at < xmit_ts || (s.sent_at == xmit_ts && s.end() < self.end_seq);
            if !before {
                // Segments above one never resent were all sent after it.
                if s.flags & EVER_RETRANS == 0 {
                    break;
                }
                continue;
            }
            // Delivered, or already waiting to be resent.
            if s.flags & SACKED != 0 || s.flags & (LOST | RETRANS) == LOST {
                continue;
            }
            let deadline = s.sent_at + self.rtt + reo_wnd;
            if deadline <= now {
                board.mark_lost(i);
            } else {
                timeout = Some(timeout.map_or(deadline, |t: SimTime| t.max(deadline)));
            }
        }
        timeout
    }
}
