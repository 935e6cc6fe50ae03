//! The network: nodes, addresses, links and routing, and the movement of
//! packets through them.
//!
//! A packet leaves a host by its source address's interface (or by the
//! host's routing table), crosses links hop by hop — each a queue, a
//! transmitter and a propagation delay — and at every router takes a next
//! hop from the routing table, choosing among equal-cost hops by a per-flow
//! hash (ECMP). At the node that holds its destination address it is handed
//! to its endpoint.
//!
//! Forwarding is a set of methods of [`Network`] that take the simulation
//! context: the network needs the clock, the event queue and the packets,
//! nothing of the transports above it.

pub mod link;
pub mod loss;
pub mod queue;
pub mod routing;

use crate::context::{Forward, SimContext};
use crate::event::Event;
use crate::ids::{AddrId, EndpointId, LinkId, NodeId, PacketId};
use crate::observe::{DropReason, PacketEvent};
use crate::rng::mix64;
use crate::time::{serialization_time, SimTime};
use crate::wire::InTransit;
use routing::IdMap;

pub use crate::trace::QueueTrace;
pub use link::{Link, LinkCounters};
pub use loss::{LossConfig, LossModel};
pub use queue::{DropCause, Queue, QueueConfig, QueueLimit, QueuedPacket};
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
    /// Reused buffer for packets a queue drops in bulk (no allocation per event).
    drop_scratch: Vec<QueuedPacket>,
    /// The routes packets follow, one per (source, destination, flow hash).
    paths: Paths,
    /// Whether to prefetch what the next event and the next transmission
    /// will read (set by the builder for networks whose state outgrows the
    /// caches; it changes no result, only the time taken).
    pub prefetch: bool,
}

/// One entry of the routes' list: a link to cross, or, after a route's
/// last link, how it ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Link(LinkId),
    /// At the destination's node; with the endpoint that the route's last
    /// packet was handed to, if one has been noted (only when the network's
    /// `prefetch` is on: a hint for the caches; what a packet is delivered
    /// to is read from the packet, never from here).
    Deliver(Option<EndpointId>),
    /// At a node with no route onwards (or, for a route of no links, at
    /// the source).
    NoRoute,
    /// Back at a node already passed: the route goes on from the link at
    /// this index of the list (routes set by hand can loop).
    Loop(u32),
}

/// The routes' steps, four bytes each so that more of them stay in the
/// caches of a large network. The top two bits tell them apart: a link's
/// index below 2³¹ (top bit clear), a loop's target index below 2³⁰ after
/// `10`, and the ends of routes after `11`: no route onwards, a delivery
/// with no endpoint noted, or a delivery with the endpoint noted in the
/// low 30 bits.
#[derive(Debug, Default)]
struct StepList(Vec<u32>);

const STEP_LOOP: u32 = 0b10 << 30;
const STEP_END: u32 = 0b11 << 30;
const STEP_NO_ROUTE: u32 = u32::MAX;
const STEP_DELIVER: u32 = u32::MAX - 1;
/// Endpoints below this are noted in a delivery step; the rest are not.
const STEP_MAX_HINT: u32 = STEP_DELIVER & !STEP_END;

impl StepList {
    fn push(&mut self, step: Step) {
        let word = match step {
            Step::Link(l) => {
                assert!(l.0 < STEP_LOOP, "link index {} does not fit a route step", l.0);
                l.0
            }
            Step::Loop(at) => {
                assert!(at < STEP_END & !STEP_LOOP, "step index {at} does not fit a route step");
                STEP_LOOP | at
            }
            Step::Deliver(hint) => Self::deliver_word(hint),
            Step::NoRoute => STEP_NO_ROUTE,
        };
        self.0.push(word);
    }

    #[inline]
    fn deliver_word(hint: Option<EndpointId>) -> u32 {
        match hint {
            Some(ep) if ep.0 < STEP_MAX_HINT => STEP_END | ep.0,
            _ => STEP_DELIVER,
        }
    }

    #[inline]
    fn decode(word: u32) -> Step {
        match word {
            w if w < STEP_LOOP => Step::Link(LinkId(w)),
            w if w < STEP_END => Step::Loop(w & !STEP_LOOP),
            STEP_NO_ROUTE => Step::NoRoute,
            STEP_DELIVER => Step::Deliver(None),
            w => Step::Deliver(Some(EndpointId(w & !STEP_END))),
        }
    }

    /// The step at index `at`.
    #[inline]
    fn at(&self, at: u32) -> Step {
        Self::decode(self.0[at as usize])
    }

    /// The step at index `at`, if there is one.
    #[inline]
    fn get(&self, at: u32) -> Option<Step> {
        self.0.get(at as usize).map(|&w| Self::decode(w))
    }

    /// Notes `ep` in the delivery step at index `at`.
    #[inline]
    fn note_delivery(&mut self, at: u32, ep: EndpointId) {
        let word = Self::deliver_word(Some(ep));
        let w = &mut self.0[at as usize];
        debug_assert!(matches!(Self::decode(*w), Step::Deliver(_)));
        // Written only when it changes: a line left clean need not be
        // written back when it leaves the caches.
        if *w != word {
            *w = word;
        }
    }

    /// Starts loading the step at index `at`, if there is one (see [`crate::cache`]).
    #[inline]
    fn prefetch(&self, at: u32) {
        if let Some(w) = self.0.get(at as usize) {
            crate::cache::prefetch(w);
        }
    }

    fn len(&self) -> usize {
        self.0.len()
    }
}

/// Every packet of a flow takes the same links: the next hop at each node
/// depends only on the node, the destination and the flow's hash. So the
/// route is worked out hop by hop for the first packet of each (source,
/// destination, hash) and appended to one list of steps; a packet then
/// carries its index in that list ([`InTransit::step`]) from hop to hop,
/// and each hop reads the next entry. What a hop touches is small and
/// contiguous, and never the packet.
#[derive(Debug, Default)]
struct Paths {
    /// Index of the first step of each route.
    ids: IdMap<(u32, u32, u64), u32>,
    steps: StepList,
    /// Scratch: next hops being chosen from, nodes decided on the route being built.
    hops: Vec<LinkId>,
    decided: Vec<(NodeId, u32)>,
}

impl Paths {
    /// The link at step `at`, which a packet is crossing.
    #[inline]
    fn link_at(&self, at: u32) -> LinkId {
        match self.steps.at(at) {
            Step::Link(l) => l,
            end => unreachable!("step {at} is an end of route ({end:?}), not a link"),
        }
    }
}

impl Network {
    /// The next link at `node` towards `dst` for a flow with hash
    /// `flow_hash`: one of the equal-cost next hops, chosen by the hash.
    fn next_hop(&self, hops: &mut Vec<LinkId>, node: NodeId, dst: AddrId, flow_hash: u64) -> Option<LinkId> {
        hops.clear();
        self.routes.next_hops(node, dst, hops);
        match hops.len() {
            0 => None,
            1 => Some(hops[0]),
            n => {
                let h = mix64(flow_hash ^ self.nodes[node.idx()].ecmp_salt);
                Some(hops[((h as u128 * n as u128) >> 64) as usize])
            }
        }
    }

    /// The first step of the route of packets from `src` to `dst` with
    /// hash `flow_hash`.
    #[inline]
    fn route_of(&mut self, src: AddrId, dst: AddrId, flow_hash: u64) -> u32 {
        match self.paths.ids.get(&(src.0, dst.0, flow_hash)) {
            Some(&start) => start,
            None => self.new_route(src, dst, flow_hash),
        }
    }

    /// Works a route out hop by hop, as a packet would be forwarded, and
    /// appends it to the steps.
    #[cold]
    fn new_route(&mut self, src: AddrId, dst: AddrId, flow_hash: u64) -> u32 {
        let mut p = std::mem::take(&mut self.paths);
        let start = p.steps.len() as u32;
        p.decided.clear();
        let from = &self.addrs[src.idx()];
        let to_node = self.addrs[dst.idx()].node;
        let first = match from.out_link {
            Some(l) => Some(l),
            None => {
                p.decided.push((from.node, start));
                self.next_hop(&mut p.hops, from.node, dst, flow_hash)
            }
        };
        let end = match first {
            None => Step::NoRoute,
            Some(mut l) => loop {
                p.steps.push(Step::Link(l));
                let node = self.links[l.idx()].to;
                if node == to_node {
                    break Step::Deliver(None);
                }
                if !self.nodes[node.idx()].forwards {
                    break Step::NoRoute;
                }
                if let Some(&(_, at)) = p.decided.iter().find(|(n, _)| *n == node) {
                    break Step::Loop(at);
                }
                p.decided.push((node, p.steps.len() as u32));
                match self.next_hop(&mut p.hops, node, dst, flow_hash) {
                    Some(next) => l = next,
                    None => break Step::NoRoute,
                }
            },
        };
        p.steps.push(end);
        p.ids.insert((src.0, dst.0, flow_hash), start);
        self.paths = p;
        start
    }
}

impl Network {
    /// Puts a packet that a transport built onto the network at its source.
    pub fn send(&mut self, ctx: &mut SimContext, pkt: PacketId) {
        let p = ctx.packets.get(pkt);
        let start = self.route_of(p.src, p.dst, p.flow_hash);
        self.send_routed(ctx, pkt, start);
    }

    /// [`Network::send`] by a route already looked up: `start` is the first
    /// step of the route of the packet's addresses and hash.
    pub fn send_routed(&mut self, ctx: &mut SimContext, pkt: PacketId, start: u32) {
        let p = ctx.packets.get_mut(pkt);
        p.sent_at = ctx.now;
        let size = p.size_bytes;
        debug_assert_eq!(Some(&start), self.paths.ids.get(&(p.src.0, p.dst.0, p.flow_hash)));
        match self.paths.steps.at(start) {
            Step::Link(l) => {
                let t = InTransit {
                    id: pkt,
                    size_bytes: size,
                    step: start,
                };
                self.link_enqueue(ctx, l, t);
            }
            // A route of no links: there is no way out of the source.
            _ => self.drop_no_route(ctx, None, pkt),
        }
    }

    /// Moves a packet that has crossed link `arrived_by` onto the next link
    /// of its route, or delivers or drops it where its route ends.
    #[inline]
    fn forward(&mut self, ctx: &mut SimContext, arrived_by: LinkId, t: InTransit) -> Option<(EndpointId, PacketId)> {
        let next = t.step + 1;
        let (l, step) = match self.paths.steps.at(next) {
            Step::Link(l) => (l, next),
            Step::Loop(at) => (self.paths.link_at(at), at),
            Step::Deliver(_) => {
                ctx.observe_packet(arrived_by, t.id, PacketEvent::Deliver);
                let ep = ctx.packets.get(t.id).endpoint;
                if self.prefetch {
                    self.paths.steps.note_delivery(next, ep);
                }
                return Some((ep, t.id));
            }
            Step::NoRoute => {
                self.drop_no_route(ctx, Some(arrived_by), t.id);
                return None;
            }
        };
        self.link_enqueue(ctx, l, InTransit { step, ..t });
        None
    }

    fn drop_no_route(&mut self, ctx: &mut SimContext, arrived_by: Option<LinkId>, pkt: PacketId) {
        self.dropped_no_route += 1;
        if let Some(o) = ctx.observer.as_deref_mut() {
            o.on_node_drop(ctx.now, arrived_by, ctx.packets.get(pkt));
        }
        ctx.packets.free(pkt);
    }

    /// Drops a packet at link `l` at instant `at` (now, or a lazy link's
    /// departure being settled): counts it, tells the observer, frees it.
    #[inline]
    fn drop_at(
        ctx: &mut SimContext,
        at: SimTime,
        link: &mut Link,
        l: LinkId,
        pkt: PacketId,
        size: u32,
        why: DropReason,
    ) {
        link.count_drop(why.into(), size);
        ctx.observe_packet_at(at, l, pkt, PacketEvent::Drop(why));
        ctx.packets.free(pkt);
    }

    /// Accounts a change of link `l`'s queue length at instant `at` (now,
    /// or a lazy link's departure being settled; `before` is the length last
    /// accounted for) and tells the observer.
    #[inline]
    fn queue_changed(ctx: &mut SimContext, at: SimTime, link: &mut Link, l: LinkId, before: u32) {
        link.queue_changed(at, before);
        if let Some(o) = ctx.observer.as_deref_mut() {
            o.on_queue_length(at, l, link.queue.len_pkts(), link.queue.len_bytes());
        }
    }

    /// Counts a packet offered to a link.
    #[inline]
    fn count_arrival(link: &mut Link, size: u32) {
        link.counters.arrived_pkts += 1;
        link.counters.arrived_bytes += size as u64;
    }

    /// Counts a packet that link `l`'s queue admitted, and tells the observer.
    #[inline]
    fn count_admitted(ctx: &mut SimContext, link: &mut Link, l: LinkId, pkt: PacketId, size: u32) {
        link.counters.enqueued_pkts += 1;
        link.counters.enqueued_bytes += size as u64;
        ctx.observe_packet(l, pkt, PacketEvent::Enqueue);
    }

    /// Offers a packet to a link's queue and starts the transmitter if idle.
    fn link_enqueue(&mut self, ctx: &mut SimContext, l: LinkId, t: InTransit) {
        if self.links[l.idx()].lazy {
            self.lazy_enqueue(ctx, l, t);
            return;
        }
        let now = ctx.now;
        let (pkt, size) = (t.id, t.size_bytes);
        let link = &mut self.links[l.idx()];
        Self::count_arrival(link, size);
        if !link.up {
            Self::drop_at(ctx, now, link, l, pkt, size, DropReason::LinkDown);
            return;
        }
        let before = link.queue.len_pkts();
        // The route's step after this link was read with this one's.
        let delivery_hint = if self.prefetch {
            match self.paths.steps.get(t.step + 1) {
                Some(Step::Deliver(Some(ep))) => ep.0,
                _ => QueuedPacket::NO_HINT,
            }
        } else {
            QueuedPacket::NO_HINT
        };
        let qp = QueuedPacket {
            id: pkt,
            size_bytes: size,
            step: t.step,
            delivery_hint,
        };
        // At an idle drop-tail link the packet would be queued and taken out
        // again at once: it goes straight to the transmitter, and the
        // queue's memory is not touched.
        let idle = link.in_service.is_none() && before == 0;
        let straight = if idle {
            link.queue.admits_straight_through(qp)
        } else {
            None
        };
        let admitted = match straight {
            Some(admitted) => admitted,
            None => link.queue.enqueue(qp, now, &mut link.queue_rng),
        };
        match admitted {
            Ok(()) => {
                Self::count_admitted(ctx, link, l, pkt, size);
                if straight.is_some() {
                    Self::transmit(ctx, link, l, qp);
                } else if link.in_service.is_none() {
                    // Straight through an idle transmitter: the queue length
                    // never visibly changes.
                    self.start_tx(ctx, l, before);
                } else {
                    Self::queue_changed(ctx, now, link, l, before);
                }
            }
            Err((p, why)) => Self::drop_at(ctx, now, link, l, p.id, p.size_bytes, why),
        }
    }

    /// [`Network::link_enqueue`] on a lazy link ([`Link::lazy`]): after the
    /// departures up to now, the drop-tail queue's admission test; an
    /// admitted packet's departure follows from the last one's, its loss
    /// is drawn now (the link's draws stay in order of departure), and its
    /// arrival at the far end is scheduled now.
    fn lazy_enqueue(&mut self, ctx: &mut SimContext, l: LinkId, t: InTransit) {
        let now = ctx.now;
        self.settle(ctx, l, now);
        let (pkt, size) = (t.id, t.size_bytes);
        let link = &mut self.links[l.idx()];
        Self::count_arrival(link, size);
        let mut qp = QueuedPacket {
            id: pkt,
            size_bytes: size,
            step: t.step,
            delivery_hint: QueuedPacket::NO_HINT,
        };
        // Settled, an idle transmitter has an empty queue behind it.
        let idle = link.in_service.is_none();
        if let Some(Err((p, why))) = link.queue.admits_straight_through(qp) {
            Self::drop_at(ctx, now, link, l, p.id, p.size_bytes, why);
            return;
        }
        Self::count_admitted(ctx, link, l, pkt, size);
        let start = if idle { now } else { link.busy_until };
        let done = start + link.tx_time(size);
        link.busy_until = done;
        if link.loss.lose(&mut link.loss_rng) {
            qp.delivery_hint = QueuedPacket::LOST;
        } else {
            link.in_flight += 1;
            let mut at = done + link.delay;
            if let Some(j) = link.jitter.as_mut() {
                at = j.arrival(at);
            }
            ctx.events.schedule(at, Event::LinkArrival(t));
        }
        if idle {
            ctx.observe_packet(l, pkt, PacketEvent::Dequeue);
            link.in_service = Some(qp);
            link.service_started = now;
        } else {
            let before = link.queue.len_pkts();
            link.queue.push_admitted(qp);
            Self::queue_changed(ctx, now, link, l, before);
        }
    }

    /// Brings lazy link `l` up to the instant `before`: every packet whose
    /// transmission ended before it leaves the transmitter, lost or
    /// propagating, and the next starts, each at its own time. A departure
    /// at the very instant of an admission comes after it, since the
    /// admission settles up to its own instant (docs/algorithms.md, "Events
    /// at the same instant").
    #[inline]
    fn settle(&mut self, ctx: &mut SimContext, l: LinkId, before: SimTime) {
        let link = &mut self.links[l.idx()];
        while let Some(p) = link.in_service {
            let tx = link.tx_time(p.size_bytes);
            let done = link.service_started + tx;
            if done >= before {
                return;
            }
            link.counters.busy_ns += tx.nanos();
            if p.delivery_hint == QueuedPacket::LOST {
                let why = link.loss.drop_reason();
                Self::drop_at(ctx, done, link, l, p.id, p.size_bytes, why);
            }
            let before_pkts = link.queue.len_pkts();
            link.in_service = link.queue.dequeue(done, &mut self.drop_scratch);
            if let Some(next) = link.in_service {
                link.service_started = done;
                Self::queue_changed(ctx, done, link, l, before_pkts);
                ctx.observe_packet_at(done, l, next.id, PacketEvent::Dequeue);
            }
        }
    }

    /// Brings link `l`, if lazy, up to now, leaving departures at this
    /// instant for the admissions that may still come at it (before a trace
    /// reads its queue).
    pub fn settle_link(&mut self, ctx: &mut SimContext, l: LinkId) {
        if self.links[l.idx()].lazy {
            self.settle(ctx, l, ctx.now);
        }
    }

    /// Brings every lazy link up to now, before the results read them; with
    /// `through_now`, the departures at this instant too (no event is left
    /// at it).
    pub fn settle_all(&mut self, ctx: &mut SimContext, through_now: bool) {
        let before = if through_now {
            ctx.now + crate::time::SimDuration(1)
        } else {
            ctx.now
        };
        for i in 0..self.links.len() {
            if self.links[i].lazy {
                self.settle(ctx, LinkId(i as u32), before);
            }
        }
    }

    /// Moves the head of the queue onto the idle transmitter. `before` is the
    /// queue length last accounted for.
    fn start_tx(&mut self, ctx: &mut SimContext, l: LinkId, before: u32) {
        let now = ctx.now;
        let link = &mut self.links[l.idx()];
        debug_assert!(link.in_service.is_none());
        let next = link.queue.dequeue(now, &mut self.drop_scratch);
        for d in self.drop_scratch.drain(..) {
            Self::drop_at(ctx, now, link, l, d.id, d.size_bytes, DropReason::Codel);
        }
        if link.queue.len_pkts() != before {
            Self::queue_changed(ctx, now, link, l, before);
        }
        if let Some(p) = next {
            Self::transmit(ctx, link, l, p);
        }
    }

    /// Puts packet `p`, just taken from the queue, on link `l`'s idle transmitter.
    #[inline]
    fn transmit(ctx: &mut SimContext, link: &mut Link, l: LinkId, p: QueuedPacket) {
        ctx.observe_packet(l, p.id, PacketEvent::Dequeue);
        link.in_service = Some(p);
        link.service_started = ctx.now;
        if let Some(trace) = link.trace.as_mut() {
            // Leaves at the opportunity that gives its last byte.
            let done = trace.finish(ctx.now, p.size_bytes);
            ctx.events.schedule(done, Event::LinkTxDone(l));
            return;
        }
        let tx = serialization_time(p.size_bytes, link.rate_bps);
        let done = match link.bucket.as_mut() {
            None => ctx.now + tx,
            // Released when the bucket holds its transmission time.
            Some(b) => b.release(ctx.now, tx, serialization_time(b.burst_bytes, link.rate_bps)),
        };
        ctx.events.schedule(done, Event::LinkTxDone(l));
    }

    /// The transmitter finished a packet: it is lost or starts propagating.
    /// When prefetching, and the packet is propagating on the last link of
    /// its route, returns the endpoint its queue entry noted (that the
    /// route's last packet went to, if noted by the time it was queued): a
    /// hint of what the caller may start loading for the delivery.
    #[inline]
    pub fn on_tx_done(&mut self, ctx: &mut SimContext, l: LinkId) -> Option<EndpointId> {
        let now = ctx.now;
        let link = &mut self.links[l.idx()];
        if self.prefetch {
            // The next packet out, read below once this one is dealt with.
            link.queue.prefetch_head();
        }
        let p = link.in_service.take()?;
        let mut hint = None;
        // Behind a token bucket the packet is released now and takes its
        // transmission time after it, in order (see [`TokenBucket`]).
        let sent = match link.bucket.as_mut() {
            None => {
                link.counters.busy_ns += now.saturating_since(link.service_started).nanos();
                now
            }
            Some(b) => {
                let tx = serialization_time(p.size_bytes, link.rate_bps);
                link.counters.busy_ns += tx.nanos();
                if b.rate_limiter {
                    now
                } else {
                    b.last_end = b.last_end.max(now + tx);
                    b.last_end
                }
            }
        };
        if !link.up {
            Self::drop_at(ctx, now, link, l, p.id, p.size_bytes, DropReason::LinkDown);
        } else if link.loss.lose(&mut link.loss_rng) {
            let why = link.loss.drop_reason();
            Self::drop_at(ctx, now, link, l, p.id, p.size_bytes, why);
        } else {
            link.in_flight += 1;
            let mut at = sent + link.delay;
            if let Some(j) = link.jitter.as_mut() {
                at = j.arrival(at);
            }
            if let Some(h) = link.txtime.as_mut() {
                at = h.arrival(p.step, at, p.size_bytes);
            }
            let t = InTransit {
                id: p.id,
                size_bytes: p.size_bytes,
                step: p.step,
            };
            ctx.events.schedule(at, Event::LinkArrival(t));
            if self.prefetch {
                if p.delivery_hint != QueuedPacket::NO_HINT {
                    ctx.packets.prefetch(t.id);
                    hint = Some(EndpointId(p.delivery_hint));
                } else {
                    // Read when the arrival is the next event.
                    self.paths.steps.prefetch(t.step + 1);
                }
            }
        }
        if link.up && !link.queue.is_empty_fast() {
            let before = link.queue.len_pkts();
            self.start_tx(ctx, l, before);
        }
        hint
    }

    /// A packet reached the far end of the link it was crossing. Returns
    /// the endpoint and packet when it has arrived at its destination;
    /// otherwise forwards it.
    #[inline]
    pub fn on_link_arrival(&mut self, ctx: &mut SimContext, t: InTransit) -> Option<(EndpointId, PacketId)> {
        let l = self.paths.link_at(t.step);
        if ctx.observer.is_some() && self.links[l.idx()].lazy {
            // The observer hears of the packet leaving the transmitter
            // before it hears of it anywhere else.
            self.settle(ctx, l, ctx.now);
        }
        let link = &mut self.links[l.idx()];
        link.in_flight -= 1;
        link.counters.delivered_pkts += 1;
        link.counters.delivered_bytes += t.size_bytes as u64;
        self.forward(ctx, l, t)
    }

    /// Starts loading what handling `event` will touch first (see
    /// [`crate::cache`]): the link of a transmission that ends; for an
    /// arrival, the link crossed and the next step of the route, and then
    /// the next link or, at the destination, the packet. For an arrival at
    /// the destination, returns the endpoint noted in the route's last step
    /// (the caller's to load).
    #[inline]
    pub fn prefetch(&self, event: &Event, packets: &crate::wire::PacketPool) -> Option<EndpointId> {
        let link = |l: LinkId| {
            if let Some(link) = self.links.get(l.idx()) {
                crate::cache::prefetch(link);
                crate::cache::prefetch(&link.counters);
            }
        };
        match *event {
            Event::LinkTxDone(l) => link(l),
            Event::LinkArrival(t) => {
                // Of the link crossed, only its arrival counters are read.
                if let Some(Step::Link(l)) = self.paths.steps.get(t.step) {
                    if let Some(crossed) = self.links.get(l.idx()) {
                        crate::cache::prefetch(&crossed.counters);
                    }
                }
                match self.paths.steps.get(t.step + 1) {
                    Some(Step::Link(l)) => link(l),
                    Some(Step::Deliver(ep)) => {
                        packets.prefetch(t.id);
                        return ep;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        None
    }

    /// Takes a link up or down. Going down drops what waits in its queue;
    /// the packet on the transmitter is dropped when its transmission ends,
    /// and packets already propagating still arrive.
    pub fn set_link_up(&mut self, ctx: &mut SimContext, l: LinkId, up: bool) {
        let link = &mut self.links[l.idx()];
        if link.up == up {
            return;
        }
        link.up = up;
        if !up {
            let now = ctx.now;
            let before = link.queue.len_pkts();
            link.queue.drain(&mut self.drop_scratch);
            for d in self.drop_scratch.drain(..) {
                Self::drop_at(ctx, now, link, l, d.id, d.size_bytes, DropReason::LinkDown);
            }
            if before > 0 {
                Self::queue_changed(ctx, now, link, l, before);
            }
        }
    }
}

impl Forward for Network {
    #[inline]
    fn send(&mut self, ctx: &mut SimContext, pkt: PacketId) {
        Network::send(self, ctx, pkt);
    }

    fn route(&mut self, src: AddrId, dst: AddrId, flow_hash: u64) -> u32 {
        self.route_of(src, dst, flow_hash)
    }

    #[inline]
    fn send_routed(&mut self, ctx: &mut SimContext, pkt: PacketId, route: u32) {
        Network::send_routed(self, ctx, pkt, route);
    }
}

#[cfg(test)]
mod forwarding_tests;

impl Queue {
    #[inline]
    fn is_empty_fast(&self) -> bool {
        self.len_pkts() == 0
    }
}
