//! Linux's PRR (`tcp_init_cwnd_reduction` and `tcp_cwnd_reduction`,
//! `net/ipv4/tcp_input.c`, Linux 6.x): RFC 6937 counted in packets, with
//! two readings of its own.
//!
//! - RecoverFS is the congestion window when recovery starts
//!   (`tp->prior_cwnd`), not the FlightSize.
//! - Below ssthresh (the slow-start reduction bound) the extra segment the
//!   RFC allows on every ACK comes only when the ACK advanced SND.UNA and
//!   marked nothing newly lost (`FLAG_SND_UNA_ADVANCED && !newly_lost`): an
//!   ACK that only SACKs, or that reveals a new hole, sends what it
//!   delivered and no more.
//! - An ACK that delivered nothing leaves the window as it is; the first
//!   ACK of the episode sends at least one segment (the fast retransmit).
//!
//! The entering ACK is read like every later one: Linux enters recovery in
//! `tcp_fastretrans_alert` and runs `tcp_cwnd_reduction` for the same ACK in
//! `tcp_cong_control`.

use super::{RecoveryAck, RecoveryState};
use crate::cc::SubflowCc;

/// `tcp_cwnd_reduction` on one ACK of the episode: cwnd = packets in
/// flight + sndcnt.
pub fn on_ack(rec: &mut RecoveryState, sf: &mut SubflowCc, ack: &RecoveryAck, mss: u64) {
    sf.cwnd = cwnd_after(rec, sf.ssthresh, sf.cwnd, ack, mss);
}

/// The window after `ack`, from `cwnd` before it, with `ssthresh`. Every
/// count is in segments, a short segment as a whole one, as the kernel's
/// `tcp_skb_pcount` counts them: the segments the ACK delivered and those
/// in flight after it, and the episode's segments delivered and sent.
pub fn cwnd_after(rec: &mut RecoveryState, ssthresh: u64, cwnd: u64, ack: &RecoveryAck, mss: u64) -> u64 {
    if ack.delivered_pkts == 0 {
        return cwnd;
    }
    rec.prr_delivered_pkts += ack.delivered_pkts;
    let in_flight = ack.pipe_pkts as i64;
    let ssthresh = (ssthresh / mss) as i64;
    let prior_cwnd = (rec.recover_fs / mss).max(1) as i64;
    let (delivered, out) = (rec.prr_delivered_pkts as i64, rec.prr_out_pkts as i64);
    let delta = ssthresh - in_flight;
    let mut sndcnt = if delta < 0 {
        (ssthresh * delivered + prior_cwnd - 1) / prior_cwnd - out
    } else {
        let mut n = (delivered - out).max(ack.delivered_pkts as i64);
        if ack.newly_acked > 0 && !ack.newly_lost {
            n += 1;
        }
        n.min(delta)
    };
    // "Force a fast retransmit upon entering fast recovery."
    sndcnt = sndcnt.max(if rec.prr_out_pkts > 0 { 0 } else { 1 });
    (in_flight + sndcnt).max(0) as u64 * mss
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn episode(prior_cwnd_pkts: u64) -> RecoveryState {
        RecoveryState {
            point: 0,
            prr_delivered: 0,
            prr_out: 0,
            prr_delivered_pkts: 0,
            prr_out_pkts: 0,
            recover_fs: prior_cwnd_pkts * MSS,
            high_rxt: 0,
            rescue_rxt: None,
            partial_acks: 0,
        }
    }

    fn ack(delivered_pkts: u64, pipe_pkts: u64, una_advanced: bool, newly_lost: bool) -> RecoveryAck {
        RecoveryAck {
            newly_acked: if una_advanced { delivered_pkts * MSS } else { 0 },
            delivered: delivered_pkts * MSS,
            delivered_pkts,
            dup: !una_advanced,
            pipe: pipe_pkts * MSS,
            pipe_pkts,
            pipe_ns3: 0,
            safe: false,
            newly_lost,
        }
    }

    #[test]
    fn above_ssthresh_the_window_follows_ssthresh_over_the_cwnd_at_entry() {
        // prior_cwnd 10, ssthresh 7: after d packets delivered, ceil(7·d/10)
        // may have been sent in all.
        let mut rec = episode(10);
        // The entering ACK: one delivered, 9 in flight; ceil(0.7) = 1.
        assert_eq!(
            cwnd_after(&mut rec, 7 * MSS, 10 * MSS, &ack(1, 9, false, true), MSS),
            10 * MSS
        );
        rec.prr_out_pkts += 1;
        // Two delivered: ceil(1.4) − 1 = 1.
        assert_eq!(
            cwnd_after(&mut rec, 7 * MSS, 10 * MSS, &ack(1, 9, false, false), MSS),
            10 * MSS
        );
        rec.prr_out_pkts += 1;
        // Three delivered: ceil(2.1) − 2 = 1; four: ceil(2.8) − 3 = 0, one
        // packet fewer in flight: 0.7 of a packet sent per packet delivered.
        assert_eq!(
            cwnd_after(&mut rec, 7 * MSS, 10 * MSS, &ack(1, 9, false, false), MSS),
            10 * MSS
        );
        rec.prr_out_pkts += 1;
        assert_eq!(
            cwnd_after(&mut rec, 7 * MSS, 10 * MSS, &ack(1, 9, false, false), MSS),
            9 * MSS
        );
    }

    #[test]
    fn below_ssthresh_only_an_ack_that_advances_snd_una_without_new_loss_adds_a_segment() {
        // ssthresh 7, 4 in flight, prr_delivered = prr_out so far.
        let run = |una_advanced: bool, newly_lost: bool| {
            let mut rec = episode(10);
            rec.prr_delivered_pkts = 5;
            rec.prr_out_pkts = 5;
            cwnd_after(&mut rec, 7 * MSS, 10 * MSS, &ack(1, 4, una_advanced, newly_lost), MSS) / MSS
        };
        // RFC 6937's bound would send max(1, 1) + 1 = 2 on every ACK; Linux
        // sends the one delivered, plus one only for an ACK of new data that
        // revealed no new loss.
        assert_eq!(run(false, false), 4 + 1);
        assert_eq!(run(true, true), 4 + 1);
        assert_eq!(run(true, false), 4 + 2);
        // Never beyond ssthresh.
        let mut rec = episode(10);
        rec.prr_out_pkts = 1;
        assert_eq!(
            cwnd_after(&mut rec, 7 * MSS, 10 * MSS, &ack(5, 6, true, false), MSS),
            7 * MSS
        );
    }

    #[test]
    fn short_segments_count_as_whole_ones() {
        // Three 300-byte segments delivered below ssthresh: three sent back
        // (plus one for SND.UNA's advance), not the one their 900 bytes
        // would make.
        let mut rec = episode(10);
        rec.prr_delivered_pkts = 5;
        rec.prr_out_pkts = 5;
        let short = RecoveryAck {
            delivered: 900,
            newly_acked: 900,
            ..ack(3, 4, true, false)
        };
        assert_eq!(cwnd_after(&mut rec, 7 * MSS, 10 * MSS, &short, MSS), (4 + 3) * MSS);
        assert_eq!(rec.prr_delivered_pkts, 8);
    }

    #[test]
    fn an_ack_that_delivers_nothing_leaves_the_window_and_the_first_sends_one() {
        let mut rec = episode(10);
        assert_eq!(
            cwnd_after(&mut rec, 7 * MSS, 12 * MSS, &ack(0, 9, false, true), MSS),
            12 * MSS
        );
        assert_eq!(rec.prr_delivered_pkts, 0);
        // In flight far above ssthresh: the proportional part is 0, but the
        // fast retransmission goes (prr_out is still 0).
        let mut rec = episode(100);
        assert_eq!(
            cwnd_after(&mut rec, 10 * MSS, 100 * MSS, &ack(1, 99, false, true), MSS),
            100 * MSS
        );
    }
}
