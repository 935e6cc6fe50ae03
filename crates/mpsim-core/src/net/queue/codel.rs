//! Controlled Delay (Nichols, Jacobson, McGregor, Iyengar, RFC 8289, 2018),
//! following the pseudocode of §5 step by step.
//!
//! Readings:
//!
//! - The RFC calls `dequeue()` whenever the link can take a packet, and an
//!   empty queue there resets `first_above_time`. The link here calls
//!   [`Codel::dequeue`] only when a packet is waiting; nothing is lost, since
//!   the dequeue that empties the queue leaves 0 bytes behind, and
//!   `bytes <= MAXPACKET` resets `first_above_time` (and leaves the dropping
//!   state) just as the RFC's empty dequeue would.
//! - `MAXPACKET`, the RFC's "maximum packet size in bytes (SHOULD use
//!   interface MTU)", is 1500 bytes. As in the RFC, the byte test looks at
//!   the bytes still waiting after the head packet has been taken out.
//! - The RFC's `first_above_time = 0` ("not above target") is `None`, since
//!   0 is a valid simulated time.
//! - Time is integer nanoseconds. The control law's step
//!   `interval / sqrt(count)` is computed in `f64` and rounded to the nearest
//!   nanosecond; `sqrt` is exactly rounded (IEEE 754), so the result is the
//!   same on every platform.

use std::collections::VecDeque;

use super::{Fifo, QueuedPacket};
use crate::observe::DropReason;
use crate::time::{SimDuration, SimTime};

/// RFC 8289 §5.1 `maxpacket`: one MTU, in bytes. A queue holding no more than
/// this is never dropped from, so that a link whose one-packet transmission
/// time exceeds `target` keeps a packet ready.
const MAX_PACKET_BYTES: u64 = 1500;

/// RFC 8289 §5.4: re-entering the dropping state within this many intervals
/// of the last scheduled drop resumes from the drop rate reached before.
const REENTRY_INTERVALS: u64 = 16;

#[derive(Debug)]
pub struct Codel {
    pub(super) fifo: Fifo,
    /// When each packet in `fifo` joined it, in the same order (§5.2's
    /// timestamp, kept beside the queue's entries rather than in them).
    joined: VecDeque<SimTime>,
    /// `target`: the acceptable minimum standing queue delay (§4.3, 5 ms by
    /// default).
    target: SimDuration,
    /// `interval`: the window over which the sojourn time must stay above
    /// `target` before dropping starts, and the base of the control law
    /// (§4.4, 100 ms by default).
    interval: SimDuration,
    /// Hard limit on packets waiting; beyond it arrivals are tail-dropped
    /// ([`DropReason::TailDrop`]).
    limit_pkts: u32,
    /// `first_above_time`: when the sojourn time, above `target` since it
    /// last went above, will have been so for one `interval`; `None` while
    /// it is below `target` (the RFC's 0).
    first_above_time: Option<SimTime>,
    /// `drop_next`: while dropping, the time of the next drop.
    drop_next: SimTime,
    /// `count`: packets dropped since entering the dropping state (plus the
    /// carried-over count on a quick re-entry); sets the drop rate.
    count: u32,
    /// `lastcount`: `count` as it was set on the last entry to the dropping
    /// state, so that `count - lastcount` is the number dropped since.
    lastcount: u32,
    /// `dropping`: in the dropping state.
    dropping: bool,
}

impl Codel {
    pub fn new(target: SimDuration, interval: SimDuration, limit_pkts: u32) -> Self {
        Codel {
            fifo: Fifo::default(),
            joined: VecDeque::new(),
            target,
            interval,
            limit_pkts,
            first_above_time: None,
            drop_next: SimTime::ZERO,
            count: 0,
            lastcount: 0,
            dropping: false,
        }
    }

    /// RFC 8289 §5.2: enqueue timestamps the packet with `now`; the hard
    /// limit is plain tail drop.
    pub fn enqueue(&mut self, p: QueuedPacket, now: SimTime) -> Result<(), (QueuedPacket, DropReason)> {
        if self.fifo.len_pkts() >= self.limit_pkts {
            return Err((p, DropReason::TailDrop));
        }
        self.fifo.push(p);
        self.joined.push_back(now);
        Ok(())
    }

    /// Forgets the timestamps of every waiting packet (the caller empties the queue).
    pub(super) fn forget_arrivals(&mut self) {
        self.joined.clear();
    }

    /// RFC 8289 §5.4 `dequeue()`: the packet to transmit, if any. Packets
    /// dropped on the way are pushed on `dropped`.
    pub fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<QueuedPacket>) -> Option<QueuedPacket> {
        let (mut p, ok_to_drop) = self.dodequeue(now);
        if self.dropping {
            if !ok_to_drop {
                // §5.4: "sojourn time below target - leave dropping state".
                self.dropping = false;
            }
            // §5.4: drop, then take the next packet; a large backlog may
            // leave several drops overdue, hence the loop. While dropping
            // is true the last dodequeue said ok_to_drop, which implies it
            // returned a packet, so `p` is Some here.
            while self.dropping && now >= self.drop_next {
                dropped.extend(p.take());
                self.count = self.count.saturating_add(1);
                let (next, ok_to_drop) = self.dodequeue(now);
                p = next;
                if ok_to_drop {
                    // §5.4: "schedule the next drop".
                    self.drop_next = self.control_law(self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            // §5.4: the sojourn time has stayed above target for an
            // interval: drop this packet and enter the dropping state.
            dropped.extend(p.take());
            p = self.dodequeue(now).0;
            self.dropping = true;
            // §5.4 (the Linux variant the RFC adopts): if the queue went
            // bad again soon after the last dropping state, the drop rate
            // that controlled it then is a good start now. `drop_next` is at
            // most one interval after the last drop, so `now - drop_next`
            // approximates the time since it.
            let delta = self.count.saturating_sub(self.lastcount);
            let recent = now.saturating_since(self.drop_next) < self.interval.saturating_mul(REENTRY_INTERVALS);
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
        }
        p
    }

    /// RFC 8289 §5.3 `dodequeue()`: takes the head packet and says whether
    /// it may be dropped, tracking how long the sojourn time has stayed
    /// above `target`.
    fn dodequeue(&mut self, now: SimTime) -> (Option<QueuedPacket>, bool) {
        let (Some(p), Some(joined)) = (self.fifo.pop(), self.joined.pop_front()) else {
            // §5.3: "queue is empty - we can't be above target".
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.saturating_since(joined);
        // §5.3: below target, or too little left to keep the link busy
        // (the backlog-based half of CoDel for links where one MTU takes
        // longer than target to send): not a standing queue.
        if sojourn < self.target || self.fifo.len_bytes() <= MAX_PACKET_BYTES {
            self.first_above_time = None;
            return (Some(p), false);
        }
        match self.first_above_time {
            // §5.3: "just went above from below"; drop only if still above
            // one interval from now.
            None => {
                self.first_above_time = Some(now + self.interval);
                (Some(p), false)
            }
            Some(t) => (Some(p), now >= t),
        }
    }

    /// RFC 8289 §5.5: `control_law(t, count) = t + interval / sqrt(count)`.
    /// The drop rate grows as sqrt(count), the rate that makes TCP's
    /// throughput fall linearly (§4.5). In f64, rounded to the nearest ns.
    fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        let step_ns = self.interval.nanos() as f64 / f64::from(count.max(1)).sqrt();
        t + SimDuration(step_ns.round() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PacketId;

    const MS: u64 = 1_000_000;

    fn ms(x: u64) -> SimTime {
        SimTime(x * MS)
    }

    /// CoDel with the RFC's defaults (5 ms, 100 ms), holding `n` packets of
    /// 1500 B enqueued at `at`.
    fn filled(n: u32, at: SimTime) -> Codel {
        let mut q = Codel::new(SimDuration::from_millis(5), SimDuration::from_millis(100), 100_000);
        push(&mut q, n, at);
        q
    }

    fn push(q: &mut Codel, n: u32, at: SimTime) {
        for _ in 0..n {
            let id = PacketId(q.fifo.len_pkts());
            q.enqueue(
                QueuedPacket {
                    id,
                    size_bytes: 1500,
                    step: 0,
                    delivery_hint: QueuedPacket::NO_HINT,
                },
                at,
            )
            .unwrap();
        }
    }

    /// Dequeues at `now`; returns how many were dropped on the way.
    fn deq(q: &mut Codel, now: SimTime) -> usize {
        let mut dropped = Vec::new();
        let p = q.dequeue(now, &mut dropped);
        assert!(p.is_some(), "queue ran dry at {now}");
        dropped.len()
    }

    /// Enters the dropping state at 110 ms (first above target at 10 ms).
    fn dropping_at_110ms(n: u32) -> Codel {
        let mut q = filled(n, SimTime::ZERO);
        assert_eq!(deq(&mut q, ms(10)), 0);
        assert_eq!(deq(&mut q, ms(110)), 1);
        assert!(q.dropping);
        q
    }

    #[test]
    fn no_drop_while_sojourn_is_below_target() {
        let mut q = filled(1000, SimTime::ZERO);
        // Sojourn times up to 4.999999 ms, for far longer than an interval
        // in total, never start the clock.
        for i in 0..500 {
            let now = SimTime(i * 10_000);
            assert_eq!(deq(&mut q, now), 0);
            assert_eq!(q.first_above_time, None);
        }
        // A fresh packet each time: sojourn 4 ms at 1 s, 2 s, ...
        let mut q = filled(0, SimTime::ZERO);
        for s in 1..20u64 {
            push(&mut q, 3, SimTime(s * 1_000 * MS - 4 * MS));
            for _ in 0..3 {
                assert_eq!(deq(&mut q, ms(s * 1_000)), 0);
            }
        }
        assert!(!q.dropping);
    }

    #[test]
    fn first_drop_comes_one_interval_after_sojourn_exceeds_target() {
        let mut q = filled(1000, SimTime::ZERO);
        // Sojourn reaches target at 5 ms: the clock starts.
        assert_eq!(deq(&mut q, ms(5)), 0);
        assert_eq!(q.first_above_time, Some(ms(105)));
        assert_eq!(deq(&mut q, ms(50)), 0);
        assert_eq!(deq(&mut q, SimTime(105 * MS - 1)), 0);
        assert!(!q.dropping);
        // One interval later: drop the head, hand over the next.
        let mut dropped = Vec::new();
        let p = q.dequeue(ms(105), &mut dropped).unwrap();
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].id, PacketId(3));
        assert_eq!(p.id, PacketId(4));
        assert!(q.dropping);
        assert_eq!(q.count, 1);
        assert_eq!(q.drop_next, ms(205));
    }

    #[test]
    fn a_dip_below_target_restarts_the_interval() {
        let mut q = filled(3, SimTime::ZERO);
        push(&mut q, 3, ms(58));
        push(&mut q, 1000, ms(60));
        assert_eq!(deq(&mut q, ms(10)), 0);
        assert_eq!(q.first_above_time, Some(ms(110)));
        assert_eq!(deq(&mut q, ms(60)), 0);
        assert_eq!(deq(&mut q, ms(61)), 0);
        // Sojourn 3 ms < target: the clock stops.
        assert_eq!(deq(&mut q, ms(61)), 0);
        assert_eq!(q.first_above_time, None);
        // Above again at 66 ms (sojourn 8 ms): no drop at 110 ms, nor until
        // 166 ms.
        assert_eq!(deq(&mut q, ms(66)), 0);
        assert_eq!(q.first_above_time, Some(ms(166)));
        assert_eq!(deq(&mut q, ms(110)), 0);
        assert_eq!(deq(&mut q, ms(165)), 0);
        assert_eq!(deq(&mut q, ms(166)), 1);
    }

    #[test]
    fn one_mtu_left_is_never_dropped_from() {
        // Two old packets: after taking the first, 1500 B = MAXPACKET wait.
        let mut q = filled(2, SimTime::ZERO);
        assert_eq!(deq(&mut q, ms(10)), 0);
        assert_eq!(q.first_above_time, None);
        // Three: 3000 B left after the head, the clock starts; then only
        // one MTU is left and it stops again.
        let mut q = filled(3, SimTime::ZERO);
        assert_eq!(deq(&mut q, ms(10)), 0);
        assert_eq!(q.first_above_time, Some(ms(110)));
        assert_eq!(deq(&mut q, ms(200)), 0);
        assert_eq!(q.first_above_time, None);
        assert!(!q.dropping);
    }

    #[test]
    fn drops_follow_the_control_law() {
        let mut q = dropping_at_110ms(1000);
        // interval / sqrt(count), rounded to the ns: 100 ms, 70.710678 ms,
        // 57.735027 ms, 50 ms, 44.721360 ms.
        let steps = [100_000_000, 70_710_678, 57_735_027, 50_000_000, 44_721_360];
        let mut next = 110 * MS;
        for (i, step) in steps.into_iter().enumerate() {
            next += step;
            assert_eq!(q.drop_next, SimTime(next), "drop {}", i + 2);
            // Nothing before the scheduled time ...
            assert_eq!(deq(&mut q, SimTime(next - 1)), 0);
            // ... one drop at it.
            assert_eq!(deq(&mut q, SimTime(next)), 1);
            assert_eq!(q.count, i as u32 + 2);
        }
    }

    #[test]
    fn overdue_drops_are_taken_in_one_dequeue() {
        let mut q = dropping_at_110ms(1000);
        // At 290 ms the drops due at 210 ms and 280.710678 ms are both
        // overdue; the next is due at 338.445705 ms.
        assert_eq!(deq(&mut q, ms(290)), 2);
        assert_eq!(q.count, 3);
        assert_eq!(q.drop_next, SimTime(210 * MS + 70_710_678 + 57_735_027));
    }

    #[test]
    fn leaves_dropping_when_sojourn_falls_below_target() {
        let mut q = filled(10, SimTime::ZERO);
        push(&mut q, 1000, ms(148));
        assert_eq!(deq(&mut q, ms(10)), 0);
        assert_eq!(deq(&mut q, ms(110)), 1);
        assert!(q.dropping);
        // The old packets go out undropped until drop_next (210 ms).
        for _ in 0..7 {
            assert_eq!(deq(&mut q, ms(150)), 0);
        }
        assert!(q.dropping);
        // A packet enqueued at 148 ms has waited 2 ms: leave the state.
        assert_eq!(deq(&mut q, ms(150)), 0);
        assert!(!q.dropping);
        // At 210 ms (the old drop_next), with sojourn 62 ms, nothing is
        // dropped: the clock starts afresh.
        assert_eq!(deq(&mut q, ms(210)), 0);
        assert_eq!(q.first_above_time, Some(ms(310)));
    }

    #[test]
    fn quick_reentry_resumes_from_the_drops_of_the_last_episode() {
        // 11 packets from time 0: enter at 110 ms, three more drops on the
        // control law. count 4, lastcount 1 (set on entry).
        let mut q = dropping_at_110ms(11);
        for t in [210 * MS, 280_710_678, 338_445_705] {
            assert_eq!(deq(&mut q, SimTime(t)), 1);
        }
        assert_eq!((q.count, q.lastcount), (4, 1));
        assert_eq!(q.drop_next, SimTime(388_445_705));
        // Fresh traffic behind the last two old packets.
        push(&mut q, 2, ms(379));
        push(&mut q, 1000, ms(380));
        assert_eq!(deq(&mut q, ms(380)), 0);
        assert_eq!(deq(&mut q, ms(381)), 0);
        assert!(q.dropping);
        // Sojourn 4 ms: leave the dropping state; count is kept.
        assert_eq!(deq(&mut q, ms(383)), 0);
        assert!(!q.dropping);
        assert_eq!(q.count, 4);
        // Above target from 384 ms; dropping again at 484 ms, 95.55 ms after
        // the last drop_next (< 16 intervals), with 4 - 1 = 3 drops in the
        // last episode (> 1): count resumes at 3, and drop_next is
        // interval / sqrt(3) away.
        assert_eq!(deq(&mut q, ms(384)), 0);
        assert_eq!(q.first_above_time, Some(ms(484)));
        assert_eq!(deq(&mut q, ms(484)), 1);
        assert!(q.dropping);
        assert_eq!((q.count, q.lastcount), (3, 3));
        assert_eq!(q.drop_next, SimTime(484 * MS + 57_735_027));
    }

    #[test]
    fn late_reentry_starts_over_at_count_one() {
        let mut q = Codel::new(SimDuration::from_millis(5), SimDuration::from_millis(100), 100_000);
        q.drop_next = ms(300);
        q.count = 4;
        q.lastcount = 1;
        // 16 intervals after drop_next is 1.9 s: re-entering then is not
        // "soon".
        push(&mut q, 1000, ms(1790));
        assert_eq!(deq(&mut q, ms(1800)), 0);
        assert_eq!(deq(&mut q, ms(1900)), 1);
        assert_eq!((q.count, q.lastcount), (1, 1));
        assert_eq!(q.drop_next, ms(2000));
    }

    #[test]
    fn hard_limit_is_overflow() {
        let mut q = Codel::new(SimDuration::from_millis(5), SimDuration::from_millis(100), 2);
        push(&mut q, 2, SimTime::ZERO);
        let p = QueuedPacket {
            id: PacketId(9),
            size_bytes: 40,
            step: 0,
            delivery_hint: QueuedPacket::NO_HINT,
        };
        assert_eq!(q.enqueue(p, SimTime::ZERO), Err((p, DropReason::TailDrop)));
    }
}
