//! The tracing hook: one [`Observer`] that the simulator tells what happens
//! to packets (enqueued, dropped with the exact cause, dequeued, delivered)
//! and to transports (window, RTT, loss detection, timeouts, state).
//!
//! The simulation context holds at most one observer, boxed; every event
//! point checks that `Option` once and does nothing more when it is empty,
//! so a run that nobody watches pays one predictable branch per event and
//! allocates nothing. The queue and TCP traces of a run's results are an
//! observer like any other ([`crate::trace::TraceRecorder`]); two observers
//! watch together through [`Tee`].

use std::any::Any;

use crate::ids::LinkId;
use crate::time::{SimDuration, SimTime};
use crate::wire::{Packet, TcpHeader};

/// Why a packet was dropped, as the component that dropped it knows it.
/// The network's drop counters group these into fewer causes
/// (`net::queue::DropCause`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The arrival did not fit the queue's limit (drop-tail, or the hard
    /// limit of RED or CoDel).
    TailDrop,
    /// RED's probabilistic drop, min_th ≤ avg < max_th (Floyd & Jacobson
    /// 1993, Fig. 2; with gentle mode up to 2 max_th).
    RedEarly,
    /// RED's forced drop, avg ≥ max_th (gentle: ≥ 2 max_th).
    RedForced,
    /// CoDel's drop at dequeue (RFC 8289 §5.4).
    Codel,
    /// The link's independent (Bernoulli) loss.
    RandomLoss,
    /// The link's Gilbert–Elliott loss.
    GilbertElliott,
    /// The link was down.
    LinkDown,
    /// A node had no route to the packet's destination.
    NoRoute,
}

/// What happened to a packet at a link.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PacketEvent {
    /// Accepted into the link's queue.
    Enqueue,
    /// Taken from the queue onto the transmitter.
    Dequeue,
    /// Dropped; the packet is freed after the observer has seen it.
    Drop(DropReason),
    /// Reached its destination node over this link and is handed to its endpoint.
    Deliver,
}

/// Names a subflow of a transport connection (a single-path TCP flow is
/// subflow 0 of its connection).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SubflowRef {
    /// Index of the connection in the run.
    pub connection: u32,
    /// Index of the subflow in its connection.
    pub subflow: u16,
}

/// Where a subflow's sender is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SubflowPhase {
    /// Before its start time.
    Idle,
    /// SYN sent, waiting for the SYN-ACK.
    SynSent,
    /// A receiver that opens the connection sent its SYN and the sender
    /// answered with its SYN-ACK: waiting for the third packet.
    SynReceived,
    Established,
    /// Everything including the FIN acknowledged.
    Done,
    /// Closed before the end of its data (a removed MPTCP subflow).
    Closed,
}

/// What happened at a transport's sender. Every variant but `Sent` and
/// `Delivered` is reported after the sender has processed the event (an
/// ACK, a timer, a subflow event) that caused it, at that event's time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TransportEvent {
    /// The subflow's sender put a segment carrying `payload_bytes` of data
    /// on the network (a retransmission too), reported as it is sent.
    Sent { payload_bytes: u64 },
    /// A data segment reached the subflow's receiver and moved the in-order
    /// point: `subflow_bytes` newly delivered in order in the subflow's own
    /// sequence space, `data_bytes` at the connection's data level (MPTCP:
    /// by data sequence number; plain TCP: the same as `subflow_bytes`).
    Delivered { subflow_bytes: u64, data_bytes: u64 },
    /// The congestion window or the slow-start threshold changed, bytes.
    Window { cwnd_bytes: u64, ssthresh_bytes: u64 },
    /// The smoothed RTT changed (RFC 6298 §2).
    Rtt { srtt: SimDuration },
    /// The sender detected a loss and entered fast recovery.
    LossDetected,
    /// The retransmission timer expired; `count` is the subflow's total so far.
    Rto { count: u64 },
    /// The subflow left slow start for the first time (by a loss, a
    /// timeout, its slow-start strategy or a coupled one), with this
    /// congestion window, bytes.
    SlowStartExit { cwnd_bytes: u64 },
    /// The sender's life moved on.
    Phase(SubflowPhase),
    /// The sender finished processing one event: its state now (one row of
    /// the TCP trace).
    Processed {
        cwnd_bytes: u64,
        ssthresh_bytes: u64,
        srtt: SimDuration,
        in_flight_bytes: u64,
    },
}

/// A segment at a subflow's sender: one it put on the network, or an ACK
/// (or SYN-ACK) it received, with its state once it has processed it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SegmentEvent<'a> {
    /// A segment the sender put on the network (data, SYN or FIN; new or
    /// retransmitted, as the header says).
    Sent(&'a TcpHeader),
    /// An ACK that reached the sender, and the sender after processing it.
    AckReceived {
        header: &'a TcpHeader,
        /// The sender's cumulative ACK point (SND.UNA), bytes of sequence space.
        snd_una: u64,
        cwnd_bytes: u64,
    },
}

/// What happened to a UDP flow's packet, with its size on the wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UdpEvent {
    Sent { bytes: u64 },
    Received { bytes: u64 },
}

/// Watches a run. Every method has a default that does nothing: implement
/// only what you need. An observer must not change what it watches; it is
/// told, after the fact, and cannot act.
pub trait Observer: Any {
    /// A packet event at link `link`.
    fn on_packet(&mut self, _now: SimTime, _link: LinkId, _packet: &Packet, _event: PacketEvent) {}

    /// A packet dropped at a node rather than at a link (no route to its
    /// destination; `link` is the link it arrived by, `None` at its source).
    fn on_node_drop(&mut self, _now: SimTime, _link: Option<LinkId>, _packet: &Packet) {}

    /// The number of packets waiting in `link`'s queue changed. Reported
    /// once per change of length, after the packet events that caused it.
    fn on_queue_length(&mut self, _now: SimTime, _link: LinkId, _len_pkts: u32, _len_bytes: u64) {}

    /// A transport event of subflow `subflow`.
    fn on_transport(&mut self, _now: SimTime, _subflow: SubflowRef, _event: TransportEvent) {}

    /// A segment sent or an ACK received by subflow `subflow`'s sender.
    fn on_segment(&mut self, _now: SimTime, _subflow: SubflowRef, _event: SegmentEvent<'_>) {}
    /// A packet of UDP flow `flow` (its index in the run) was sent or received.
    fn on_udp(&mut self, _now: SimTime, _flow: u32, _event: UdpEvent) {}
}

/// Two observers watching the same run, told in order.
pub struct Tee(pub Box<dyn Observer>, pub Box<dyn Observer>);

impl Observer for Tee {
    fn on_packet(&mut self, now: SimTime, link: LinkId, packet: &Packet, event: PacketEvent) {
        self.0.on_packet(now, link, packet, event);
        self.1.on_packet(now, link, packet, event);
    }
    fn on_node_drop(&mut self, now: SimTime, link: Option<LinkId>, packet: &Packet) {
        self.0.on_node_drop(now, link, packet);
        self.1.on_node_drop(now, link, packet);
    }
    fn on_queue_length(&mut self, now: SimTime, link: LinkId, len_pkts: u32, len_bytes: u64) {
        self.0.on_queue_length(now, link, len_pkts, len_bytes);
        self.1.on_queue_length(now, link, len_pkts, len_bytes);
    }
    fn on_transport(&mut self, now: SimTime, subflow: SubflowRef, event: TransportEvent) {
        self.0.on_transport(now, subflow, event);
        self.1.on_transport(now, subflow, event);
    }
    fn on_segment(&mut self, now: SimTime, subflow: SubflowRef, event: SegmentEvent<'_>) {
        self.0.on_segment(now, subflow, event);
        self.1.on_segment(now, subflow, event);
    }
    fn on_udp(&mut self, now: SimTime, flow: u32, event: UdpEvent) {
        self.0.on_udp(now, flow, event);
        self.1.on_udp(now, flow, event);
    }
}

/// The observer of type `T` among `observer` and, through [`Tee`], the
/// observers it holds.
pub fn find<T: Observer>(observer: &dyn Observer) -> Option<&T> {
    let any: &dyn Any = observer;
    if let Some(t) = any.downcast_ref::<T>() {
        return Some(t);
    }
    let tee = any.downcast_ref::<Tee>()?;
    find::<T>(&*tee.0).or_else(|| find::<T>(&*tee.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Count(u32);
    impl Observer for Count {
        fn on_queue_length(&mut self, _: SimTime, _: LinkId, _: u32, _: u64) {
            self.0 += 1;
        }
    }
    struct Other;
    impl Observer for Other {}

    #[test]
    fn a_tee_tells_both_and_each_is_found_through_it() {
        let mut tee = Tee(Box::new(Count(0)), Box::new(Tee(Box::new(Other), Box::new(Count(10)))));
        tee.on_queue_length(SimTime::ZERO, LinkId(0), 1, 100);
        assert_eq!(find::<Count>(&tee).map(|c| c.0), Some(1));
        let inner = find::<Tee>(&*tee.1).expect("the inner tee");
        assert_eq!(find::<Count>(&*inner.1).map(|c| c.0), Some(11));
        assert!(find::<Other>(&tee).is_some());
        assert!(find::<Count>(&Other).is_none());
    }
}
