//! RFC 5681 §3.2 Reno and RFC 6582 NewReno fast recovery: the window is
//! inflated by one MSS per duplicate ACK, for the segment each one says
//! has left the network.

use super::RecoveryAck;
use crate::cc::SubflowCc;
use crate::transport::tcp::scoreboard::Scoreboard;

/// RFC 5681 §3.2 step 4 / RFC 6582 §3.2 step 2: cwnd = ssthresh +
/// DupThresh·MSS (inflation).
#[inline]
pub fn entry_cwnd(ssthresh: u64, dupack_threshold: u32, mss: u64) -> u64 {
    ssthresh + dupack_threshold as u64 * mss
}

/// RFC 5681 §3.2 step 5: inflate by one MSS per further duplicate ACK (an
/// ACK of new data has ended recovery before this).
pub fn reno_on_ack(sf: &mut SubflowCc, ack: &RecoveryAck, mss: u64) {
    if ack.dup {
        sf.cwnd += mss;
    }
}

/// RFC 6582 §3.2 steps 4–5: inflate per duplicate ACK; a partial ACK deems
/// the next unacknowledged segment lost (the sender resends it at once)
/// and deflates by the amount acknowledged, adding back one MSS if at
/// least one was.
pub fn newreno_on_ack(sf: &mut SubflowCc, board: &mut Scoreboard, ack: &RecoveryAck, mss: u64) {
    if ack.newly_acked > 0 {
        board.mark_lost(0);
        sf.cwnd = sf.cwnd.saturating_sub(ack.newly_acked);
        if ack.newly_acked >= mss {
            sf.cwnd += mss;
        }
        sf.cwnd = sf.cwnd.max(mss);
    } else if ack.dup {
        sf.cwnd += mss;
    }
}
