//! TCP's internal pacing (Linux 6.18 `net/ipv4/tcp_output.c`), which a
//! socket uses when its congestion control asks for pacing and no fq
//! qdisc paces for it (`tcp_needs_internal_pacing`): each segment sent
//! pushes the earliest departure time (`tcp_wstamp_ns`) on by its length at
//! the pacing rate, and the sender holds the next segment until then
//! (`tcp_pacing_check`, the pacing hrtimer).
//!
//! A pure state machine: the sender asks [`Pacer::may_send`] before a
//! segment, brackets the send with [`Pacer::stamp`] and
//! [`Pacer::after_send`], and arms its pacing timer at
//! [`Pacer::earliest_departure`] when it is held. Times are the kernel's
//! nanoseconds, as the simulator's.

use crate::time::{SimTime, NANOS_PER_SEC};

/// Segments the kernel sends before pacing starts ("original sch_fq does
/// not pace first 10 MSS", `tcp_update_skb_after_send`).
const UNPACED_SEGMENTS: u64 = 10;

/// One socket's pacing clock.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pacer {
    /// `tp->tcp_wstamp_ns`: the earliest departure time of the next segment.
    pub earliest_departure: SimTime,
}

impl Pacer {
    /// `tcp_pacing_check`: whether a segment may leave at `now` (else the
    /// sender waits for `earliest_departure`).
    #[inline]
    pub fn may_send(&self, now: SimTime) -> bool {
        self.earliest_departure <= now
    }

    /// `__tcp_transmit_skb`'s stamping: the segment leaves at the later of
    /// now and the earliest departure time, which becomes its timestamp.
    /// Returns the departure time before it (`prior_wstamp`).
    pub fn stamp(&mut self, now: SimTime) -> SimTime {
        let prior = self.earliest_departure;
        self.earliest_departure = prior.max(now);
        prior
    }

    /// `tcp_update_skb_after_send`: a segment of `payload_bytes` left, the
    /// socket's `data_segs_out` (data segments sent, this one and
    /// retransmissions included) is now `data_segs_out`, and it paces at
    /// `pacing_rate` bytes/s (`u64::MAX` or 0: not paced). The next
    /// departure moves on by the segment's time at that rate, less the
    /// credit of time the send itself was late by, up to half of it ("OS
    /// jitter").
    pub fn after_send(&mut self, prior: SimTime, payload_bytes: u32, pacing_rate: u64, data_segs_out: u64) {
        if pacing_rate == u64::MAX || pacing_rate == 0 || data_segs_out < UNPACED_SEGMENTS {
            return;
        }
        let mut len_ns = payload_bytes as u64 * NANOS_PER_SEC / pacing_rate;
        let credit = self.earliest_departure.nanos() - prior.nanos();
        len_ns -= (len_ns / 2).min(credit);
        self.earliest_departure = SimTime::from_nanos(self.earliest_departure.nanos() + len_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send(p: &mut Pacer, now: SimTime, segs_out: u64, rate: u64) {
        let prior = p.stamp(now);
        p.after_send(prior, 1000, rate, segs_out);
    }

    /// At 1 MB/s a 1000-byte segment takes 1 ms. The first 9 segments go
    /// unpaced; the 10th pushes the departure 1 ms on; a segment sent on
    /// time then pushes it another 1 ms.
    #[test]
    fn segments_depart_a_segment_time_apart_after_the_first_ten() {
        let mut p = Pacer::default();
        let t = SimTime::from_millis(5);
        for k in 1..=9 {
            send(&mut p, t, k, 1_000_000);
            assert!(p.may_send(t));
        }
        send(&mut p, t, 10, 1_000_000);
        assert_eq!(p.earliest_departure, SimTime::from_millis(6));
        assert!(!p.may_send(SimTime::from_nanos(5_999_999)) && p.may_send(SimTime::from_millis(6)));
        send(&mut p, SimTime::from_millis(6), 11, 1_000_000);
        assert_eq!(p.earliest_departure, SimTime::from_millis(7));
    }

    /// A send late by 0.3 ms (the clock was behind): the next departure is
    /// 1 ms − 0.3 ms after the send; late by 0.8 ms, the credit is capped
    /// at half a segment time.
    #[test]
    fn a_late_send_is_credited_up_to_half_a_segment_time() {
        let mut p = Pacer {
            earliest_departure: SimTime::from_millis(7),
        };
        send(&mut p, SimTime::from_nanos(7_300_000), 12, 1_000_000);
        assert_eq!(p.earliest_departure, SimTime::from_nanos(7_300_000 + 700_000));
        send(&mut p, SimTime::from_nanos(8_800_000), 13, 1_000_000);
        assert_eq!(p.earliest_departure, SimTime::from_nanos(8_800_000 + 500_000));
        // Unpaced rates leave the clock alone.
        for rate in [0, u64::MAX] {
            let before = p;
            send(&mut p, SimTime::from_millis(9), 14, rate);
            assert_eq!(
                p.earliest_departure,
                SimTime::from_millis(9).max(before.earliest_departure)
            );
        }
    }
}
