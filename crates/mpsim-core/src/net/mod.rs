//! The network: nodes, addresses, links and routing, and the movement of
//! packets through them.
//!
//! A packet leaves a host by its source address's interface (or by the
//! host's routing table), crosses links hop by hop — each a queue, a
//! transmitter and a propagation delay — and at every router takes a next
//! hop from the routing table, choosing among equal-cost hops by a per-flow
//! hash (ECMP). At the node that holds its destination address it is handed
//! to its endpoint.

pub mod link;
pub mod loss;
pub mod queue;
pub mod routing;

use crate::event::Event;
use crate::ids::{AddrId, EndpointId, LinkId, NodeId, PacketId};
use crate::rng::mix64;
use crate::sim::Core;
use crate::time::serialization_time;

pub use link::{Link, LinkCounters, QueueTrace};
pub use loss::LossModel;
pub use queue::{DropCause, Queue, QueuedPacket};
pub use routing::RoutingTable;

#[derive(Debug)]
pub struct Node {
    pub name: String,
    /// Routers forward; hosts only originate and sink.
    pub forwards: bool,
    /// Per-node salt of the ECMP hash (derived from the run's seed), so that
    /// successive switches do not all pick the same hop index.
    pub ecmp_salt: u64,
}

#[derive(Debug)]
pub struct Address {
    pub name: String,
    pub node: NodeId,
    /// Interface that traffic from this address leaves by, if bound.
    pub out_link: Option<LinkId>,
    /// Interface that traffic to this address arrives by, if bound.
    pub in_link: Option<LinkId>,
}

#[derive(Debug, Default)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    pub addrs: Vec<Address>,
    pub routes: RoutingTable,
    /// Packets dropped at a node that had no route to their destination.
    pub dropped_no_route: u64,
}

impl Network {
    /// The next link for `pkt` at `node`, or `None` when there is no route.
    #[inline]
    fn next_hop(&self, node: NodeId, dst: AddrId, flow_hash: u64) -> Option<LinkId> {
        let hops = self.routes.next_hops(node, dst);
        match hops.len() {
            0 => None,
            1 => Some(hops[0]),
            n => {
                let h = mix64(flow_hash ^ self.nodes[node.idx()].ecmp_salt);
                Some(hops[((h as u128 * n as u128) >> 64) as usize])
            }
        }
    }
}

impl Core {
    /// Puts a packet that a transport built onto the network at its source.
    pub fn send(&mut self, pkt: PacketId) {
        let p = self.packets.get_mut(pkt);
        p.sent_at = self.now;
        let (src, dst, hash) = (p.src, p.dst, p.flow_hash);
        let addr = &self.net.addrs[src.idx()];
        let link = match addr.out_link {
            Some(l) => Some(l),
            None => self.net.next_hop(addr.node, dst, hash),
        };
        match link {
            Some(l) => self.link_enqueue(l, pkt),
            None => self.drop_no_route(pkt),
        }
    }

    fn drop_no_route(&mut self, pkt: PacketId) {
        self.net.dropped_no_route += 1;
        self.packets.free(pkt);
    }

    /// Offers a packet to a link's queue and starts the transmitter if idle.
    pub fn link_enqueue(&mut self, l: LinkId, pkt: PacketId) {
        let now = self.now;
        let size = self.packets.get(pkt).size_bytes;
        let link = &mut self.net.links[l.idx()];
        link.counters.arrived_pkts += 1;
        link.counters.arrived_bytes += size as u64;
        if !link.up {
            link.count_drop(DropCause::LinkDown, size);
            self.packets.free(pkt);
            return;
        }
        let before = link.queue.len_pkts();
        let qp = QueuedPacket {
            id: pkt,
            size_bytes: size,
            enqueued_at: now,
        };
        match link.queue.enqueue(qp, now, &mut link.queue_rng) {
            Ok(()) => {
                link.counters.enqueued_pkts += 1;
                link.counters.enqueued_bytes += size as u64;
                if link.in_service.is_none() {
                    // Straight through an idle transmitter: the queue length
                    // never visibly changes.
                    self.start_tx(l, before);
                } else {
                    link.queue_changed(now, before);
                }
            }
            Err((p, cause)) => {
                link.count_drop(cause, p.size_bytes);
                self.packets.free(p.id);
            }
        }
    }

    /// Moves the head of the queue onto the idle transmitter. `before` is the
    /// queue length last accounted for.
    fn start_tx(&mut self, l: LinkId, before: u32) {
        let now = self.now;
        let link = &mut self.net.links[l.idx()];
        debug_assert!(link.in_service.is_none());
        let next = link.queue.dequeue(now, &mut self.drop_scratch);
        for d in self.drop_scratch.drain(..) {
            link.count_drop(DropCause::Codel, d.size_bytes);
            self.packets.free(d.id);
        }
        if link.queue.len_pkts() != before {
            link.queue_changed(now, before);
        }
        if let Some(p) = next {
            link.in_service = Some(p);
            link.service_started = now;
            let done = now + serialization_time(p.size_bytes, link.rate_bps);
            self.events.schedule(done, Event::LinkTxDone(l));
        }
    }

    /// The transmitter finished a packet: it is lost or starts propagating.
    pub(crate) fn on_tx_done(&mut self, l: LinkId) {
        let now = self.now;
        let link = &mut self.net.links[l.idx()];
        let Some(p) = link.in_service.take() else {
            return;
        };
        link.counters.busy_ns += now.saturating_since(link.service_started).nanos();
        if !link.up {
            link.count_drop(DropCause::LinkDown, p.size_bytes);
            self.packets.free(p.id);
        } else if link.loss.lose(&mut link.loss_rng) {
            link.count_drop(DropCause::Loss, p.size_bytes);
            self.packets.free(p.id);
        } else {
            link.in_flight += 1;
            let at = now + link.delay;
            self.events.schedule(at, Event::LinkArrival(l, p.id));
        }
        if link.up && !link.queue.is_empty_fast() {
            let before = link.queue.len_pkts();
            self.start_tx(l, before);
        }
    }

    /// A packet reached the far end of link `l`. Returns the endpoint and
    /// packet when it has arrived at its destination; otherwise forwards it.
    pub(crate) fn on_link_arrival(&mut self, l: LinkId, pkt: PacketId) -> Option<(EndpointId, PacketId)> {
        let link = &mut self.net.links[l.idx()];
        let p = self.packets.get(pkt);
        link.in_flight -= 1;
        link.counters.delivered_pkts += 1;
        link.counters.delivered_bytes += p.size_bytes as u64;
        let node = link.to;
        let (dst, hash, endpoint) = (p.dst, p.flow_hash, p.endpoint);
        if self.net.addrs[dst.idx()].node == node {
            return Some((endpoint, pkt));
        }
        if !self.net.nodes[node.idx()].forwards {
            self.drop_no_route(pkt);
            return None;
        }
        match self.net.next_hop(node, dst, hash) {
            Some(next) => self.link_enqueue(next, pkt),
            None => self.drop_no_route(pkt),
        }
        None
    }

    /// Takes a link up or down. Going down drops what waits in its queue;
    /// the packet on the transmitter is dropped when its transmission ends,
    /// and packets already propagating still arrive.
    pub fn set_link_up(&mut self, l: LinkId, up: bool) {
        let now = self.now;
        let link = &mut self.net.links[l.idx()];
        if link.up == up {
            return;
        }
        link.up = up;
        if !up {
            let before = link.queue.len_pkts();
            link.queue.drain(&mut self.drop_scratch);
            for d in self.drop_scratch.drain(..) {
                link.count_drop(DropCause::LinkDown, d.size_bytes);
                self.packets.free(d.id);
            }
            if before > 0 {
                link.queue_changed(now, before);
            }
        }
    }
}

impl Queue {
    #[inline]
    fn is_empty_fast(&self) -> bool {
        self.len_pkts() == 0
    }
}
