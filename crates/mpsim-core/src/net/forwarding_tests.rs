//! Forwarding without a simulator: a network built by hand, a simulation
//! context, and the link events stepped one by one as the event loop would.

use super::*;
use crate::event::Event;
use crate::observe::Observer;
use crate::rng::{RngStream, StreamDomain};
use crate::time::{SimDuration, SimTime};
use crate::wire::{Packet, Payload};

const MS: u64 = 1_000_000;

/// What the observer saw: (time ns, link, event).
#[derive(Default)]
struct Seen(Vec<(u64, u32, PacketEvent)>);

impl Observer for Seen {
    fn on_packet(&mut self, now: SimTime, link: LinkId, _: &Packet, event: PacketEvent) {
        self.0.push((now.nanos(), link.0, event));
    }
}

fn link(name: &str, from: u32, to: u32, delay_ms: u64, limit_pkts: u32) -> Link {
    Link {
        name: name.into(),
        from: NodeId(from),
        to: NodeId(to),
        rate_bps: 10_000_000,
        delay: SimDuration(delay_ms * MS),
        up: true,
        weight: 1,
        queue: Queue::from_config(
            &QueueConfig::DropTail {
                limit: QueueLimit {
                    limit_pkts: Some(limit_pkts),
                    limit_bytes: None,
                },
            },
            10_000_000,
        ),
        loss: LossModel::None,
        loss_rng: RngStream::derive(1, StreamDomain::LinkLoss, 0),
        queue_rng: RngStream::derive(1, StreamDomain::QueueDisc, 0),
        in_service: None,
        service_started: SimTime::ZERO,
        busy_until: SimTime::ZERO,
        tx_memo: Link::NO_TX_MEMO,
        lazy: false,
        in_flight: 0,
        counters: LinkCounters::default(),
        traced_on_change: false,
        bucket: None,
        jitter: None,
        trace: None,
        txtime: None,
    }
}

fn node(name: &str, forwards: bool) -> Node {
    Node {
        name: name.into(),
        forwards,
        ecmp_salt: 0,
    }
}

fn addr(name: &str, node: u32) -> Address {
    Address {
        name: name.into(),
        node: NodeId(node),
        out_link: None,
        in_link: None,
    }
}

/// Host A (node 0) → router R (node 1) → host B (node 2): link 0 of 1 ms
/// holding one waiting packet, link 1 of 2 ms; both 10 Mbit/s.
fn line() -> Network {
    let routes = RoutingTable::compute(&routing::Topology {
        forwards: &[false, true, false],
        links: &[(NodeId(0), NodeId(1), 1), (NodeId(1), NodeId(2), 1)],
        addrs: &[(NodeId(0), None), (NodeId(2), None)],
    });
    Network {
        nodes: vec![node("A", false), node("R", true), node("B", false)],
        links: vec![link("A-R", 0, 1, 1, 1), link("R-B", 1, 2, 2, 100)],
        addrs: vec![addr("a", 0), addr("b", 2)],
        routes,
        ..Network::default()
    }
}

/// A 1250-byte packet from a to b: 1 ms on a 10 Mbit/s link.
fn packet(ctx: &mut SimContext, seq: u64) -> PacketId {
    ctx.packets.alloc(Packet {
        size_bytes: 1250,
        src: AddrId(0),
        dst: AddrId(1),
        flow_hash: 0,
        endpoint: EndpointId(7),
        sent_at: SimTime::ZERO,
        payload: Payload::Udp { seq },
    })
}

/// Handles one link event at `t` as the event loop does; returns the
/// delivery it makes, if any: (time ns, endpoint, datagram number).
fn step(net: &mut Network, ctx: &mut SimContext, t: SimTime, event: Event) -> Option<(u64, u32, u64)> {
    ctx.now = t;
    match event {
        Event::LinkTxDone(l) => {
            net.on_tx_done(ctx, l);
            None
        }
        Event::LinkArrival(p) => {
            let (ep, pkt) = net.on_link_arrival(ctx, p)?;
            let Payload::Udp { seq } = ctx.packets.get(pkt).payload else {
                panic!("only datagrams were sent")
            };
            ctx.packets.free(pkt);
            Some((t.nanos(), ep.0, seq))
        }
        other => panic!("no such event in this network: {other:?}"),
    }
}

/// Runs the link events as the event loop does; returns the deliveries
/// (time ns, endpoint, datagram number).
fn run(net: &mut Network, ctx: &mut SimContext) -> Vec<(u64, u32, u64)> {
    let mut delivered = vec![];
    while let Some((t, event)) = ctx.events.pop() {
        delivered.extend(step(net, ctx, t, event));
    }
    delivered
}

/// Sends three 1250-byte datagrams from a at once and runs the link events
/// with an observer; returns the context (the observer in it) and the
/// deliveries.
fn three_datagrams(net: &mut Network) -> (SimContext, Vec<(u64, u32, u64)>) {
    let mut ctx = SimContext {
        observer: Some(Box::new(Seen::default())),
        ..SimContext::default()
    };
    for seq in 0..3 {
        let p = packet(&mut ctx, seq);
        net.send(&mut ctx, p);
    }
    let delivered = run(net, &mut ctx);
    (ctx, delivered)
}

#[test]
fn packets_cross_two_hops_queue_and_overflow_with_their_reasons() {
    let mut net = line();
    let (ctx, delivered) = three_datagrams(&mut net);
    // Packet 0: 1 ms on A-R, 1 ms to R, 1 ms on R-B, 2 ms to B = 5 ms.
    // Packet 1 waits 1 ms behind it on A-R and reaches R as packet 0 leaves
    // R-B's transmitter: 6 ms. Packet 2 found A-R's one place taken.
    assert_eq!(delivered, vec![(5 * MS, 7, 0), (6 * MS, 7, 1)]);
    let seen = crate::observe::find::<Seen>(ctx.observer.as_deref().unwrap()).unwrap();
    use PacketEvent::*;
    assert_eq!(
        seen.0,
        vec![
            (0, 0, Enqueue),
            (0, 0, Dequeue),
            (0, 0, Enqueue),
            (0, 0, Drop(DropReason::TailDrop)),
            (MS, 0, Dequeue),
            (2 * MS, 1, Enqueue),
            (2 * MS, 1, Dequeue),
            (3 * MS, 1, Enqueue),
            (3 * MS, 1, Dequeue),
            (5 * MS, 1, Deliver),
            (6 * MS, 1, Deliver),
        ]
    );
    let a_r = &net.links[0].counters;
    assert_eq!((a_r.arrived_pkts, a_r.enqueued_pkts, a_r.delivered_pkts), (3, 2, 2));
    assert_eq!(a_r.dropped_pkts[DropCause::Overflow as usize], 1);
    assert_eq!(ctx.packets.live(), 0);
}

/// A burst of six 1250-byte packets, 10 µs apart, reaches a 10 Mbit/s
/// link holding two waiting packets: behind a token bucket of two packets
/// (Linux `tbf` with `burst` 2500) five get through, behind a plain link
/// three (one on the transmitter, two waiting).
fn burst_through(bucket: Option<u32>, rate_limiter: bool) -> (Vec<(u64, u32, u64)>, u64) {
    let mut feed = link("A-R", 0, 1, 0, 100);
    feed.rate_bps = 1_000_000_000;
    let mut shaped = link("R-B", 1, 2, 2, 2);
    shaped.bucket = bucket.map(|b| crate::net::link::TokenBucket::new(b).with_rate_limiter(rate_limiter));
    let mut net = line();
    net.links = vec![feed, shaped];
    let mut ctx = SimContext::default();
    for seq in 0..6 {
        let p = packet(&mut ctx, seq);
        net.send(&mut ctx, p);
    }
    let delivered = run(&mut net, &mut ctx);
    assert_eq!(ctx.packets.live(), 0);
    (
        delivered,
        net.links[1].counters.dropped_pkts[DropCause::Overflow as usize],
    )
}

/// Six packets at 10 µs apart into a 1 ms-a-packet link with a 2 500-byte
/// bucket: released at 10 and 20 µs on the full bucket, then one a
/// millisecond as tokens come. A shaper's packets take their 1 ms of
/// transmission after release, in order, then 2 ms of delay; a rate
/// limiter's arrive their delay after release; a plain link sends one a
/// millisecond and drops three.
#[test]
fn a_token_bucket_releases_a_burst_back_to_back_then_one_a_packet_time() {
    const US: u64 = 1_000;
    let at = |us: &[u64]| {
        us.iter()
            .enumerate()
            .map(|(k, &t)| (t * US, 7, k as u64))
            .collect::<Vec<_>>()
    };
    // (bucket, rate limiter, deliveries as (time, node, packet), drops)
    let cases = [
        (Some(2500), false, at(&[3010, 3020, 4010, 5010, 6010]), 1),
        (Some(2500), true, at(&[2010, 2020, 3010, 4010, 5010]), 1),
        (None, false, at(&[3010, 4010, 5010]), 3),
    ];
    for (burst, limiter, want, want_dropped) in cases {
        let (delivered, dropped) = burst_through(burst, limiter);
        assert_eq!(delivered, want, "burst {burst:?}, rate limiter {limiter}");
        assert_eq!(dropped, want_dropped, "burst {burst:?}, rate limiter {limiter}");
    }
}

#[test]
fn a_packet_without_a_route_is_dropped_at_the_node_that_has_none() {
    let mut net = line();
    net.routes.set(NodeId(1), AddrId(1), &[]);
    let mut ctx = SimContext::default();
    let p = packet(&mut ctx, 0);
    net.send(&mut ctx, p);
    assert_eq!(run(&mut net, &mut ctx), vec![]);
    assert_eq!(net.dropped_no_route, 1);
    assert_eq!(net.links[0].counters.delivered_pkts, 1);
    assert_eq!(ctx.packets.live(), 0);
}

#[test]
fn a_route_set_by_hand_that_loops_keeps_the_packet_circling() {
    // Host A (0) → R1 (1) ⇄ R2 (2) → host B (3); R2 is told to send b's traffic back to R1.
    let ends = [
        (NodeId(0), NodeId(1), 1),
        (NodeId(1), NodeId(2), 1),
        (NodeId(2), NodeId(1), 1),
        (NodeId(2), NodeId(3), 1),
    ];
    let mut routes = RoutingTable::compute(&routing::Topology {
        forwards: &[false, true, true, false],
        links: &ends,
        addrs: &[(NodeId(0), None), (NodeId(3), None)],
    });
    routes.set(NodeId(2), AddrId(1), &[LinkId(2)]);
    let mut net = Network {
        nodes: vec![node("A", false), node("R1", true), node("R2", true), node("B", false)],
        links: vec![
            link("A-R1", 0, 1, 1, 10),
            link("R1-R2", 1, 2, 1, 10),
            link("R2-R1", 2, 1, 1, 10),
            link("R2-B", 2, 3, 1, 10),
        ],
        addrs: vec![addr("a", 0), addr("b", 3)],
        routes,
        ..Network::default()
    };
    let mut ctx = SimContext::default();
    let p = packet(&mut ctx, 0);
    net.send(&mut ctx, p);
    // Each hop takes 1 ms on the transmitter and 1 ms on the wire.
    while ctx.events.peek_time().is_some_and(|t| t <= SimTime(20 * MS)) {
        let (t, event) = ctx.events.pop().expect("peeked");
        ctx.now = t;
        match event {
            Event::LinkTxDone(l) => {
                net.on_tx_done(&mut ctx, l);
            }
            Event::LinkArrival(t) => assert!(net.on_link_arrival(&mut ctx, t).is_none()),
            other => panic!("no such event in this network: {other:?}"),
        }
    }
    // Into R2 at 4, 8, 12, 16 and 20 ms; back into R1 at 6, 10, 14 and 18 ms; never to B, never dropped.
    let delivered: Vec<u64> = net.links.iter().map(|l| l.counters.delivered_pkts).collect();
    assert_eq!(delivered, vec![1, 5, 4, 0]);
    assert_eq!((net.dropped_no_route, ctx.packets.live()), (0, 1));
}

#[test]
fn an_idle_link_passes_what_its_queue_would_take_and_drops_what_it_would_not() {
    // A packet that reaches an idle transmitter goes straight through, as if
    // queued and taken out at once: enqueued, never counted as waiting. A
    // queue with no place (0 packets, or fewer bytes than the packet) drops
    // it, idle transmitter or not.
    for (limit_pkts, limit_bytes, passes) in [
        (Some(1), None, true),
        (Some(0), None, false),
        (None, Some(1249), false),
        (None, Some(1250), true),
    ] {
        let mut net = line();
        net.links[0].queue = Queue::from_config(
            &QueueConfig::DropTail {
                limit: QueueLimit {
                    limit_pkts,
                    limit_bytes,
                },
            },
            10_000_000,
        );
        let mut ctx = SimContext::default();
        let p = packet(&mut ctx, 0);
        net.send(&mut ctx, p);
        let delivered = run(&mut net, &mut ctx);
        let c = &net.links[0].counters;
        assert_eq!(delivered.len(), passes as usize, "{limit_pkts:?} {limit_bytes:?}");
        assert_eq!(
            (c.arrived_pkts, c.enqueued_pkts, c.max_queue_pkts),
            (1, passes as u64, 0)
        );
        assert_eq!(c.dropped_pkts[DropCause::Overflow as usize], !passes as u64);
        assert_eq!(ctx.packets.live(), 0);
    }
}

#[test]
fn route_steps_read_back_as_written_at_the_edges_of_their_encoding() {
    let steps = [
        Step::Link(LinkId(0)),
        Step::Link(LinkId(STEP_LOOP - 1)),
        Step::Loop(0),
        Step::Loop((STEP_END & !STEP_LOOP) - 1),
        Step::Deliver(None),
        Step::Deliver(Some(EndpointId(0))),
        Step::Deliver(Some(EndpointId(STEP_MAX_HINT - 1))),
        Step::NoRoute,
    ];
    let mut list = StepList::default();
    for s in steps {
        list.push(s);
    }
    assert_eq!(list.len(), steps.len());
    for (i, s) in (0u32..).zip(steps) {
        assert_eq!(list.at(i), s);
        assert_eq!(list.get(i), Some(s));
    }
    assert_eq!(list.get(steps.len() as u32), None);
}

#[test]
#[should_panic(expected = "does not fit a route step")]
fn a_link_index_beyond_the_step_encoding_is_refused() {
    StepList::default().push(Step::Link(LinkId(STEP_LOOP)));
}

#[test]
fn a_delivery_step_notes_the_endpoint_it_last_delivered_to_when_it_fits() {
    let mut list = StepList::default();
    list.push(Step::Link(LinkId(3)));
    list.push(Step::Deliver(None));
    list.note_delivery(1, EndpointId(7));
    assert_eq!(list.at(1), Step::Deliver(Some(EndpointId(7))));
    list.note_delivery(1, EndpointId(STEP_MAX_HINT - 1));
    assert_eq!(list.at(1), Step::Deliver(Some(EndpointId(STEP_MAX_HINT - 1))));
    // An endpoint beyond the encoding is not noted, and none is implied.
    list.note_delivery(1, EndpointId(STEP_MAX_HINT));
    assert_eq!(list.at(1), Step::Deliver(None));
    assert_eq!(list.at(0), Step::Link(LinkId(3)));
}

#[test]
#[should_panic(expected = "does not fit a route step")]
fn a_loop_target_beyond_the_step_encoding_is_refused() {
    StepList::default().push(Step::Loop(STEP_END & !STEP_LOOP));
}

/// With prefetching on, a route's last step notes the endpoint of the
/// packet it delivered, and a later packet on the route's last link hands
/// the note back as it leaves the transmitter; with it off, nothing is
/// noted and nothing handed back.
#[test]
fn a_delivery_is_noted_and_handed_back_on_the_last_link_only_when_prefetching() {
    for prefetch in [false, true] {
        let mut net = Network { prefetch, ..line() };
        let mut ctx = SimContext::default();
        let mut handed_back = vec![];
        // The second packet is sent once the first has been delivered.
        for seq in 0..2 {
            let p = packet(&mut ctx, seq);
            net.send(&mut ctx, p);
            while let Some((t, event)) = ctx.events.pop() {
                ctx.now = t;
                match event {
                    Event::LinkTxDone(l) => handed_back.push((l.0, net.on_tx_done(&mut ctx, l))),
                    Event::LinkArrival(t) => {
                        if let Some((_, pkt)) = net.on_link_arrival(&mut ctx, t) {
                            ctx.packets.free(pkt);
                        }
                    }
                    other => panic!("no such event in this network: {other:?}"),
                }
            }
        }
        let noted = prefetch.then_some(EndpointId(7));
        assert_eq!(handed_back, vec![(0, None), (1, None), (0, None), (1, noted)]);
        let start = net.route_of(AddrId(0), AddrId(1), 0);
        assert_eq!(net.paths.steps.at(start + 2), Step::Deliver(noted));
    }
}

/// What the observer saw, with each packet's datagram number: (time ns,
/// link, datagram, event).
#[derive(Default)]
struct SeenPackets(Vec<(u64, u32, u64, PacketEvent)>);

impl Observer for SeenPackets {
    fn on_packet(&mut self, now: SimTime, link: LinkId, packet: &Packet, event: PacketEvent) {
        let Payload::Udp { seq } = packet.payload else {
            panic!("only datagrams were sent")
        };
        self.0.push((now.nanos(), link.0, seq, event));
    }
}

/// Sends datagrams of the given (time ns, size) from a to b, each at its time
/// before the link events of that instant, running the link events between
/// them as the event loop does; returns the deliveries (time ns, datagram).
fn run_sends(net: &mut Network, ctx: &mut SimContext, sends: &[(u64, u32)]) -> Vec<(u64, u64)> {
    let mut delivered = vec![];
    for (seq, &(at, size)) in sends.iter().enumerate() {
        while ctx.events.peek_time().is_some_and(|t| t.nanos() < at) {
            let (t, event) = ctx.events.pop().expect("peeked");
            delivered.extend(step(net, ctx, t, event));
        }
        ctx.now = SimTime(at);
        let p = packet(ctx, seq as u64);
        ctx.packets.get_mut(p).size_bytes = size;
        net.send(ctx, p);
    }
    delivered.extend(run(net, ctx));
    // Whatever the lazy link still holds has left by then (lost packets
    // have no arrival to wait for).
    ctx.now = SimTime(ctx.now.nanos() + 1_000 * MS);
    net.settle_all(ctx, true);
    delivered.into_iter().map(|(t, _, seq)| (t, seq)).collect()
}

/// A lazy link (no event for the end of a transmission) delivers what the
/// same link with one delivers: the same packets at the same times, the same
/// losses drawn from the same stream, the same drops and counters, and the
/// observer hears the same events at the same times (later in the run, once
/// the link is next touched). Random datagrams of 40 to 1 500 bytes, 0 to
/// 2 ms apart (bursts included), into a 10 Mbit/s link of 1 ms holding five
/// packets or 4 000 bytes, losing one packet in ten. A send at the instant a
/// transmission ends is admitted before it, in both.
#[test]
fn a_lazy_link_carries_packets_as_a_link_with_transmission_events_does() {
    let mut rng = RngStream::derive(11, StreamDomain::LinkJitter, 3);
    for round in 0..200 {
        let mut at = 0u64;
        let sends: Vec<(u64, u32)> = (0..300)
            .map(|_| {
                at += match rng.next_u64() % 4 {
                    0 => 0,
                    _ => rng.next_u64() % (2 * MS),
                };
                (at, 40 + (rng.next_u64() % 1461) as u32)
            })
            .collect();
        let mut outcomes = vec![];
        for lazy in [false, true] {
            let mut net = line();
            let limit = QueueLimit {
                limit_pkts: Some(5),
                limit_bytes: Some(4_000),
            };
            net.links[0].queue = Queue::from_config(&QueueConfig::DropTail { limit }, 10_000_000);
            net.links[0].loss = LossModel::Bernoulli { p: 0.1 };
            net.links[0].loss_rng = RngStream::derive(round, StreamDomain::LinkLoss, 0);
            net.links[0].lazy = lazy;
            let mut ctx = SimContext {
                observer: Some(Box::new(SeenPackets::default())),
                ..SimContext::default()
            };
            let delivered = run_sends(&mut net, &mut ctx, &sends);
            let link = &net.links[0];
            assert!(link.in_service.is_none() && link.queue.len_pkts() == 0);
            assert_eq!(ctx.packets.live(), 0, "lazy {lazy}");
            let seen = crate::observe::find::<SeenPackets>(ctx.observer.as_deref().unwrap()).unwrap();
            let mut events: Vec<_> = seen.0.iter().filter(|e| e.1 == 0).copied().collect();
            // The lazy link tells of a departure when it is next touched:
            // in time order on the link, after events of other links.
            assert!(events.windows(2).all(|w| w[0].0 <= w[1].0), "lazy {lazy}");
            events.sort_by_key(|e| (e.0, e.2, format!("{:?}", e.3)));
            let c = &link.counters;
            outcomes.push((delivered, events, format!("{c:?}")));
        }
        assert_eq!(outcomes[0], outcomes[1], "round {round}");
    }
}

/// The first test's line with both links lazy: the same deliveries, and the
/// observer hears the same events in the same order (each link's departures
/// told when it is next touched, here before the next event of the link
/// after them). One instant differs, as the rule of equal times says: at
/// 3 ms packet 1 reaches R-B as packet 0 leaves its transmitter; the lazy
/// link admits it first, so it waits behind packet 0 for no time at all
/// (R-B's most packets waiting: 1), where the transmission's end here came
/// first (0).
#[test]
fn a_line_of_lazy_links_tells_the_observer_what_the_line_of_events_does() {
    let mut outcomes = vec![];
    for lazy in [false, true] {
        let mut net = line();
        for l in &mut net.links {
            l.lazy = lazy;
        }
        let (mut ctx, delivered) = three_datagrams(&mut net);
        net.settle_all(&mut ctx, true);
        let seen = crate::observe::find::<Seen>(ctx.observer.as_deref().unwrap()).unwrap();
        let r_b = &net.links[1].counters;
        assert_eq!(r_b.queue_pkts_integral, 0);
        let counters = (
            format!("{:?}", net.links[0].counters),
            r_b.delivered_pkts,
            r_b.busy_ns,
            r_b.max_queue_pkts,
        );
        outcomes.push((delivered, seen.0.clone(), counters));
    }
    let (events, lazy) = (&outcomes[0], &outcomes[1]);
    assert_eq!((&lazy.0, &lazy.1, &lazy.2 .0), (&events.0, &events.1, &events.2 .0));
    assert_eq!(lazy.0, vec![(5 * MS, 7, 0), (6 * MS, 7, 1)]);
    assert_eq!((events.2 .1, events.2 .2, events.2 .3), (2, 2 * MS, 0));
    assert_eq!((lazy.2 .1, lazy.2 .2, lazy.2 .3), (2, 2 * MS, 1));
}
