//! The event queue: a min-priority queue ordered by (time, insertion
//! sequence), so events at the same instant run in the order they were
//! scheduled and a run never depends on anything but its inputs.

use crate::ids::LinkId;
use crate::time::SimTime;
use crate::wire::InTransit;

/// Something that happens at an instant. Variants name components by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The transmitter of a link has put the last bit of its packet on the wire.
    LinkTxDone(LinkId),
    /// A packet has crossed a link and reaches the link's far node (the
    /// link is the one at the packet's step of its route).
    LinkArrival(InTransit),
    /// A scheduled change to a link (index into the run's change list).
    LinkChange(u32),
    /// A UDP source sends its next packet or toggles on/off.
    UdpSource(u32),
    /// Periodic sampling of queue traces.
    TraceSample,
    /// Subflow (connection, subflow) starts: it sends its SYN.
    TcpStart(u32, u16),
    /// A subflow's sender timer (RTO or SYN timeout).
    TcpRto(u32, u16),
    /// The SYN timeout of a subflow its receiver opened (`initiator = "receiver"`).
    TcpOpenTimer(u32, u16),
    /// A subflow's receiver delayed-ACK timer (a lazy timer: the receiver
    /// tells whether it expired).
    TcpDelAck(u32, u16),
    /// An MPTCP connection's subflow event (connection, index into its events).
    SubflowEvent(u32, u16),
    /// An MPTCP connection's data-level retransmission timer (Linux
    /// `mptcp_retransmit_timer`).
    DataRtx(u32),
}

// Events are 16 bytes, slots 32: two to a cache line.
const _: () = assert!(std::mem::size_of::<Event>() == 16);

/// One pending event: 24 bytes. It needs no sequence number, since the
/// order of insertion is kept by the lists (see [`EventQueue`]).
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// When it happens, in nanoseconds.
    time: u64,
    event: Event,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 24);

/// Number of buckets for times after the base: one per bit of the time.
const BUCKETS: usize = 64;

/// The bucket of `time` relative to `base` (`time > base`): the position of
/// the highest bit in which they differ.
#[inline]
fn bucket_of(time: u64, base: u64) -> usize {
    debug_assert!(time > base);
    63 - (time ^ base).leading_zeros() as usize
}

/// The events in one bucket and the earliest of their times.
#[derive(Debug)]
struct Bucket {
    slots: Vec<Slot>,
    /// The earliest time in `slots`, in nanoseconds; `u64::MAX` when empty.
    min: u64,
}

impl Default for Bucket {
    fn default() -> Self {
        Bucket {
            slots: Vec::new(),
            min: u64::MAX,
        }
    }
}

/// A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for
/// the shortest path problem", J. ACM 37(2), 1990) over event times, with a
/// first-in-first-out list for the events at the current time.
///
/// `base` is the time of the last event popped and no event is earlier.
/// Events at `base` wait in `now`; an event at a later time sits in bucket
/// `b` when the highest bit in which its time differs from `base` is bit `b`:
/// it has a 1 there where `base` has a 0 and agrees with `base` above, so
/// every time in bucket `b` is earlier than every time in a higher bucket and
/// the lowest non-empty bucket holds the earliest time (each bucket keeps its
/// earliest time, so it is never searched for). When `now` runs dry,
/// popping takes that earliest time as the new `base` and walks its bucket
/// once: the events at that time go to `now`, the others into strictly lower
/// buckets (they agree with the new base on bit `b` and above); the higher
/// buckets stay valid because the new base agrees with the old one above bit
/// `b`. So a pop costs one pass over one bucket and no comparisons between
/// events, and an event moves at most once per bit of its time. When that
/// bucket holds a single event (most pops), the pop takes it without the walk.
///
/// Ties are served in insertion order without keeping or comparing
/// sequence numbers. The events at any one time are all in one list (the
/// list depends on the time and the base only), and every list holds its
/// events in the order they were scheduled: a new event goes to the back of
/// its list, and walking a bucket appends to lists that are empty (all below
/// the lowest non-empty bucket, `now` drained), keeping the walk's order.
///
/// The engine never schedules before the current time. Scheduling in the
/// past would still be served exactly in (time, insertion) order: the heap
/// re-files its events around a lower base list by list, each in its order,
/// which keeps the events of each time in theirs (a slow path, never taken
/// by the engine).
///
/// The earliest time is kept up to date at every operation so that
/// [`EventQueue::peek_time`] is O(1) and takes `&self`. Lists keep their
/// capacity, so the queue does not allocate in steady state.
#[derive(Debug)]
pub struct EventQueue {
    /// Events at `base`, in the order they were scheduled, from `now_head` on.
    now: Vec<Slot>,
    now_head: usize,
    buckets: [Bucket; BUCKETS],
    /// Bit `b` set iff bucket `b` is non-empty.
    occupied: u64,
    /// Time of the last event popped, in nanoseconds (0 before the first).
    base: u64,
    /// The earliest time held, in nanoseconds; `u64::MAX` when empty.
    min: u64,
    len: usize,
    /// The queue's length summed over every pop, before the pop: with
    /// `pops`, its mean size as the events found it.
    len_at_pops: u64,
    pops: u64,
    /// Reused by the re-filing slow path.
    scratch: Vec<Slot>,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            now: Vec::new(),
            now_head: 0,
            buckets: std::array::from_fn(|_| Bucket::default()),
            occupied: 0,
            base: 0,
            min: u64::MAX,
            len: 0,
            len_at_pops: 0,
            pops: 0,
            scratch: Vec::new(),
        }
    }
}

impl EventQueue {
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let time = time.nanos();
        if time < self.base {
            self.lower_base(time);
        }
        self.file(Slot { time, event });
        self.min = self.min.min(time);
        self.len += 1;
    }

    #[inline]
    fn file(&mut self, slot: Slot) {
        if slot.time == self.base {
            self.now.push(slot);
        } else {
            let b = bucket_of(slot.time, self.base);
            let bucket = &mut self.buckets[b];
            bucket.slots.push(slot);
            bucket.min = bucket.min.min(slot.time);
            self.occupied |= 1 << b;
        }
    }

    /// Re-files every event around `base`, earlier than all of them: for an
    /// event scheduled before the last one popped.
    #[cold]
    fn lower_base(&mut self, base: u64) {
        let mut all = std::mem::take(&mut self.scratch);
        all.extend(self.now.drain(self.now_head..));
        self.now.clear();
        self.now_head = 0;
        for bucket in self.buckets.iter_mut() {
            all.append(&mut bucket.slots);
            bucket.min = u64::MAX;
        }
        // Each time's events come from one list, in their order, and are
        // filed in that order.
        self.occupied = 0;
        self.base = base;
        for slot in all.drain(..) {
            self.file(slot);
        }
        self.scratch = all;
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        if self.len == 0 {
            return None;
        }
        self.len_at_pops += self.len as u64;
        self.pops += 1;
        self.len -= 1;
        if self.now_head == self.now.len() {
            if let Some(slot) = self.take_single() {
                return Some((SimTime(slot.time), slot.event));
            }
            self.advance();
        }
        let slot = self.now[self.now_head];
        self.now_head += 1;
        if self.now_head == self.now.len() {
            self.now.clear();
            self.now_head = 0;
            self.min = self.lowest_min();
        }
        Some((SimTime(slot.time), slot.event))
    }

    /// The earliest time in the buckets: the lowest non-empty one's.
    #[inline]
    fn lowest_min(&self) -> u64 {
        match self.occupied {
            0 => u64::MAX,
            o => self.buckets[o.trailing_zeros() as usize].min,
        }
    }

    /// With `now` empty and events left, when the lowest bucket holds a
    /// single event (most pops: that bucket holds the events nearest in
    /// time): takes it out, making its time the base, without walking the
    /// bucket down through `now`.
    #[inline]
    fn take_single(&mut self) -> Option<Slot> {
        let b = self.occupied.trailing_zeros() as usize;
        let from = &mut self.buckets[b];
        if from.slots.len() != 1 {
            return None;
        }
        let slot = from.slots.pop()?;
        from.min = u64::MAX;
        self.occupied &= !(1 << b);
        self.base = slot.time;
        self.min = self.lowest_min();
        Some(slot)
    }

    /// With `now` empty and events left: makes the earliest time the base
    /// and walks the lowest bucket, which holds it, down.
    #[inline]
    fn advance(&mut self) {
        let m = self.min;
        let b = self.occupied.trailing_zeros() as usize;
        self.occupied &= !(1 << b);
        self.base = m;
        let (lower, from) = self.buckets.split_at_mut(b);
        let from = &mut from[0];
        debug_assert_eq!(from.min, m);
        from.min = u64::MAX;
        for slot in from.slots.drain(..) {
            if slot.time == m {
                self.now.push(slot);
            } else {
                let c = bucket_of(slot.time, m);
                lower[c].slots.push(slot);
                lower[c].min = lower[c].min.min(slot.time);
                self.occupied |= 1 << c;
            }
        }
    }

    /// The earliest event, the one [`EventQueue::pop`] returns next: the
    /// head of the current list, or else the first event at the earliest
    /// time in the lowest bucket (found by a walk of that bucket, which
    /// holds only the events nearest in time).
    #[inline]
    pub fn peek(&self) -> Option<&Event> {
        if let Some(slot) = self.now.get(self.now_head) {
            return Some(&slot.event);
        }
        if self.occupied == 0 {
            return None;
        }
        let bucket = &self.buckets[self.occupied.trailing_zeros() as usize];
        bucket.slots.iter().find(|s| s.time == self.min).map(|s| &s.event)
    }

    /// The time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        (self.len > 0).then_some(SimTime(self.min))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Every event held, with its time, in no particular order (for tests
    /// and diagnostics).
    pub fn iter(&self) -> impl Iterator<Item = (SimTime, &Event)> {
        self.now[self.now_head..]
            .iter()
            .chain(self.buckets.iter().flat_map(|b| b.slots.iter()))
            .map(|s| (SimTime(s.time), &s.event))
    }

    /// The mean number of events held when one was popped (the event itself
    /// included), over every pop so far; 0 before the first.
    pub fn mean_len(&self) -> f64 {
        if self.pops == 0 {
            0.0
        } else {
            self.len_at_pops as f64 / self.pops as f64
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(5), Event::UdpSource(0));
        q.schedule(SimTime(1), Event::UdpSource(1));
        q.schedule(SimTime(5), Event::UdpSource(2));
        q.schedule(SimTime(1), Event::UdpSource(3));
        q.schedule(SimTime(3), Event::TraceSample);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(1), Event::UdpSource(1)),
                (SimTime(1), Event::UdpSource(3)),
                (SimTime(3), Event::TraceSample),
                (SimTime(5), Event::UdpSource(0)),
                (SimTime(5), Event::UdpSource(2)),
            ]
        );
    }

    #[test]
    fn empty_queue() {
        let mut q = EventQueue::default();
        assert!(q.is_empty());
        assert_eq!(q.peek_time(), None);
        assert_eq!(q.pop(), None);
        q.schedule(SimTime(7), Event::TraceSample);
        assert_eq!((q.len(), q.peek_time()), (1, Some(SimTime(7))));
        assert_eq!(q.pop(), Some((SimTime(7), Event::TraceSample)));
        assert!(q.is_empty());
        assert_eq!(q.peek_time(), None);
    }

    #[test]
    fn extreme_times() {
        let mut q = EventQueue::default();
        q.schedule(SimTime::NEVER, Event::UdpSource(0));
        q.schedule(SimTime::ZERO, Event::UdpSource(1));
        q.schedule(SimTime::NEVER, Event::UdpSource(2));
        q.schedule(SimTime(1 << 63), Event::UdpSource(3));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime::ZERO, Event::UdpSource(1)),
                (SimTime(1 << 63), Event::UdpSource(3)),
                (SimTime::NEVER, Event::UdpSource(0)),
                (SimTime::NEVER, Event::UdpSource(2)),
            ]
        );
    }

    #[test]
    fn event_scheduled_before_the_last_pop_still_comes_first() {
        let mut q = EventQueue::default();
        for (i, t) in [10, 20, 20, 30].into_iter().enumerate() {
            q.schedule(SimTime(t), Event::UdpSource(i as u32));
        }
        assert_eq!(q.pop(), Some((SimTime(10), Event::UdpSource(0))));
        q.schedule(SimTime(5), Event::UdpSource(4));
        q.schedule(SimTime(20), Event::UdpSource(5));
        assert_eq!(q.peek_time(), Some(SimTime(5)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(5), Event::UdpSource(4)),
                (SimTime(20), Event::UdpSource(1)),
                (SimTime(20), Event::UdpSource(2)),
                (SimTime(20), Event::UdpSource(5)),
                (SimTime(30), Event::UdpSource(3)),
            ]
        );
    }

    #[test]
    fn buffers_are_reused_not_shrunk() {
        // A hold run (pop one, schedule it again later) with 1 000 pending:
        // no bucket ever gives back capacity, and since a bucket never holds
        // more than the 1 000 events, it grows by doubling at most 10 times
        // (up to 1 024 slots), however long the run.
        let mut q = EventQueue::default();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut step = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % 1_000_000
        };
        for i in 0..1000 {
            q.schedule(SimTime(step()), Event::UdpSource(i));
        }
        let capacities = |q: &EventQueue| {
            let mut c: Vec<_> = q.buckets.iter().map(|b| b.slots.capacity()).collect();
            c.push(q.now.capacity());
            c
        };
        let mut before = capacities(&q);
        let mut growths = 0;
        for _ in 0..200_000 {
            let (t, e) = q.pop().unwrap();
            q.schedule(SimTime(t.nanos() + step()), e);
            let after = capacities(&q);
            for (b, a) in before.iter().zip(&after) {
                assert!(a >= b, "a bucket shrank from {b} to {a}");
                growths += (a > b) as usize;
            }
            before = after;
        }
        assert!(before.iter().all(|&c| c <= 1024));
        assert!(growths <= (BUCKETS + 1) * 10, "{growths} growths");
        assert_eq!(q.len(), 1000);
    }

    /// One step of a random run: schedule at an offset from the time of the
    /// last event popped (negative: in the past), or pop.
    #[derive(Clone, Debug)]
    enum Op {
        Schedule(i64),
        Pop,
    }

    /// Replays `ops` on the queue and on a reference (a Vec kept sorted by
    /// (time, sequence)) and asserts that every pop, peek and length agree.
    fn check_against_sorted_vec(ops: &[Op]) -> Result<(), proptest::test_runner::TestCaseError> {
        use proptest::prelude::*;
        let mut q = EventQueue::default();
        let mut reference: Vec<(u64, u32)> = Vec::new();
        let mut now = 0u64;
        let mut seq = 0u32;
        for op in ops {
            match *op {
                Op::Schedule(offset) => {
                    let t = now.saturating_add_signed(offset);
                    q.schedule(SimTime(t), Event::UdpSource(seq));
                    let at = reference.partition_point(|&(rt, _)| rt <= t);
                    reference.insert(at, (t, seq));
                    seq += 1;
                }
                Op::Pop => {
                    let expected = (!reference.is_empty()).then(|| reference.remove(0));
                    let got = q.pop();
                    prop_assert_eq!(got, expected.map(|(t, s)| (SimTime(t), Event::UdpSource(s))));
                    if let Some((t, _)) = expected {
                        now = t;
                    }
                }
            }
            prop_assert_eq!(q.len(), reference.len());
            prop_assert_eq!(q.is_empty(), reference.is_empty());
            prop_assert_eq!(q.peek_time(), reference.first().map(|&(t, _)| SimTime(t)));
            prop_assert_eq!(q.peek().copied(), reference.first().map(|&(_, s)| Event::UdpSource(s)));
        }
        while let Some(&(t, s)) = reference.first() {
            reference.remove(0);
            prop_assert_eq!(q.pop(), Some((SimTime(t), Event::UdpSource(s))));
        }
        prop_assert_eq!(q.pop(), None);
        Ok(())
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Offsets as the engine makes them: never in the past, often zero
        /// (equal times), small, or spread over many orders of magnitude.
        fn forward_offset() -> impl Strategy<Value = i64> {
            prop_oneof![
                2 => Just(0i64),
                3 => 0i64..4,
                3 => 0i64..2_000,
                2 => (0u32..40).prop_flat_map(|bits| 0i64..(1i64 << bits) + 1),
            ]
        }

        fn ops(offset: impl Strategy<Value = i64>) -> impl Strategy<Value = Vec<Op>> {
            prop::collection::vec(
                prop_oneof![3 => offset.prop_map(Op::Schedule), 2 => Just(Op::Pop)],
                0..400,
            )
        }

        proptest! {
            #[test]
            fn pops_in_exact_time_then_sequence_order(ops in ops(forward_offset())) {
                check_against_sorted_vec(&ops)?;
            }

            #[test]
            fn also_when_scheduling_in_the_past(ops in ops(prop_oneof![
                3 => forward_offset(),
                1 => -2_000i64..0,
            ])) {
                check_against_sorted_vec(&ops)?;
            }
        }
    }
}
