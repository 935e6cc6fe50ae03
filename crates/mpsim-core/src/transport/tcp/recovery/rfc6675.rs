//! RFC 6675 SACK-based loss recovery: on entry cwnd = ssthresh (§5 step
//! 4.2), and from then on `pipe` against cwnd decides what may be sent; the
//! window itself does not move until the episode ends. What to send (NextSeg
//! rules 1–4) is the sender's transmission (`TcpSender::send_rescue` for
//! rules 3 and 4).

/// RFC 6675 §5 step 4.2: cwnd = ssthresh.
#[inline]
pub fn entry_cwnd(ssthresh: u64) -> u64 {
    ssthresh
}
