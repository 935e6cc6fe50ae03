//! The event queue: a binary min-heap ordered by (time, insertion sequence),
//! so events at the same instant run in the order they were scheduled and a
//! run never depends on anything but its inputs.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::ids::{LinkId, PacketId};
use crate::time::SimTime;

/// Something that happens at an instant. Variants name components by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The transmitter of a link has put the last bit of its packet on the wire.
    LinkTxDone(LinkId),
    /// A packet has crossed a link and reaches the link's far node.
    LinkArrival(LinkId, PacketId),
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
    /// A subflow's receiver delayed-ACK timer, with the generation it was armed in.
    TcpDelAck(u32, u16, u64),
    /// An MPTCP connection's subflow event (connection, index into its events).
    SubflowEvent(u32, u16),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest entry.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }

    /// The time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
}
