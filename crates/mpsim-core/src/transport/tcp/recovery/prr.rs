//! RFC 6937 Proportional Rate Reduction: during recovery the sender sends in
//! proportion to what the receiver reports delivered, so that the window
//! reaches ssthresh as the episode ends; below ssthresh the slow-start
//! reduction bound (PRR-SSRB) lets it grow back.

use super::{RecoveryAck, RecoveryState};
use crate::cc::SubflowCc;

/// RFC 6937 §3: the window follows PRR from here; it allows the fast
/// retransmission (pipe + 1 MSS).
#[inline]
pub fn entry_cwnd(pipe: u64, mss: u64) -> u64 {
    pipe + mss
}

/// RFC 6937 §3, on every ACK of the episode: cwnd = pipe + sndcnt.
pub fn on_ack(rec: &mut RecoveryState, sf: &mut SubflowCc, ack: &RecoveryAck, mss: u64) {
    let pipe = ack.pipe;
    rec.prr_delivered += ack.delivered;
    let ssthresh = sf.ssthresh;
    let sndcnt = if pipe > ssthresh {
        // Proportional part: ceil(prr_delivered·ssthresh/RecoverFS) − prr_out.
        (rec.prr_delivered * ssthresh)
            .div_ceil(rec.recover_fs.max(1))
            .saturating_sub(rec.prr_out)
    } else {
        // Slow-start reduction bound (PRR-SSRB).
        let limit = rec.prr_delivered.saturating_sub(rec.prr_out).max(ack.delivered) + mss;
        (ssthresh - pipe).min(limit)
    };
    sf.cwnd = pipe + sndcnt;
}
