//! The simulation context: what every component above the event queue
//! receives to act — the clock, the event queue, the packet pool and the
//! tracing hook — and the one thing a transport asks of the network below
//! it, [`Forward`]. It depends only on the layers under it, so a queue,
//! the network or a transport can be driven in a test by a context alone.

use crate::event::EventQueue;
use crate::ids::{AddrId, LinkId, PacketId};
use crate::observe::{Observer, PacketEvent, SegmentEvent, SubflowRef, TransportEvent};
use crate::time::SimTime;
use crate::wire::PacketPool;

#[derive(Default)]
pub struct SimContext {
    /// The simulated time of the event being processed.
    pub now: SimTime,
    pub events: EventQueue,
    pub packets: PacketPool,
    /// The tracing hook; `None` when nobody watches.
    pub observer: Option<Box<dyn Observer>>,
    /// Whether the run ends once every watched connection has completed
    /// (`ScenarioConfig::stop_when_complete`).
    pub(crate) watch: bool,
    /// Watched connections that have not completed yet.
    pub(crate) watched_remaining: u32,
    /// The run loop returns once this many events have been processed in
    /// all; the last watched connection to complete sets it to 0, so that
    /// one comparison per event covers both ways out of the loop.
    pub(crate) pause_at_event: u64,
}

impl std::fmt::Debug for SimContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimContext")
            .field("now", &self.now)
            .field("live_packets", &self.packets.live())
            .field("observed", &self.observer.is_some())
            .finish_non_exhaustive()
    }
}

impl SimContext {
    /// Tells the observer, if any, of a packet event at link `link`.
    #[inline]
    pub fn observe_packet(&mut self, link: LinkId, pkt: PacketId, event: PacketEvent) {
        if let Some(o) = self.observer.as_deref_mut() {
            o.on_packet(self.now, link, self.packets.get(pkt), event);
        }
    }

    /// [`SimContext::observe_packet`] of an event at `at`, no later than now
    /// (a lazy link's departures, accounted when the link is next touched).
    #[inline]
    pub fn observe_packet_at(&mut self, at: SimTime, link: LinkId, pkt: PacketId, event: PacketEvent) {
        if let Some(o) = self.observer.as_deref_mut() {
            o.on_packet(at, link, self.packets.get(pkt), event);
        }
    }

    /// Tells the observer, if any, of a transport event.
    #[inline]
    pub fn observe_transport(&mut self, subflow: SubflowRef, event: TransportEvent) {
        if let Some(o) = self.observer.as_deref_mut() {
            o.on_transport(self.now, subflow, event);
        }
    }

    /// Tells the observer, if any, of a segment sent or an ACK received.
    #[inline]
    pub fn observe_segment(&mut self, subflow: SubflowRef, event: SegmentEvent<'_>) {
        if let Some(o) = self.observer.as_deref_mut() {
            o.on_segment(self.now, subflow, event);
        }
    }

    /// A watched connection has completed: the run ends after this event
    /// if it was the last.
    pub fn watched_completed(&mut self) {
        self.watched_remaining -= 1;
        if self.watched_remaining == 0 {
            self.pause_at_event = 0;
        }
    }
}

/// The network as a transport sees it: somewhere to put a packet it has
/// built. The network implements it; a test may collect the packets instead.
pub trait Forward {
    /// Puts packet `pkt` (allocated in `ctx.packets`) on the network at its source.
    fn send(&mut self, ctx: &mut SimContext, pkt: PacketId);

    /// The route of the packets from `src` to `dst` with hash `flow_hash`,
    /// worked out now if it has not been: a handle that
    /// [`Forward::send_routed`] takes back.
    fn route(&mut self, src: AddrId, dst: AddrId, flow_hash: u64) -> u32;

    /// [`Forward::send`] for a packet whose route is known: `route` is what
    /// [`Forward::route`] returned for the packet's addresses and hash.
    fn send_routed(&mut self, ctx: &mut SimContext, pkt: PacketId, route: u32);
}

/// Where a flow's route is remembered once the network has worked it out,
/// so that its packets are sent without looking it up again. This holds
/// because a flow's addresses and hash never change and the
/// network's routes never change after the build (a link going down drops
/// what it holds; it does not reroute): anything that reroutes during a run
/// must forget the network's routes and every subflow's hints together.
#[derive(Clone, Debug, Default)]
pub struct RouteHint(std::cell::Cell<Option<u32>>);

impl RouteHint {
    /// The route of the flow of `src`, `dst` and `flow_hash` through `net`,
    /// asked of the network the first time only.
    #[inline]
    pub fn get<N: Forward>(&self, net: &mut N, src: AddrId, dst: AddrId, flow_hash: u64) -> u32 {
        match self.0.get() {
            Some(route) => route,
            None => {
                let route = net.route(src, dst, flow_hash);
                self.0.set(Some(route));
                route
            }
        }
    }
}
