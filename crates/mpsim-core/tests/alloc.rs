//! The hot path allocates nothing per packet or per event: once windows,
//! queues and the event heap have reached their working sizes, simulating
//! more time performs almost no heap allocation — only the amortised growth
//! of a buffer that reaches a new peak (a receiver's out-of-order list, a
//! scoreboard), a handful in hundreds of thousands of events. A counting
//! global allocator (this test binary only, counting per thread so that
//! tests running in parallel do not see each other's allocations) checks it
//! on a dumbbell of TCP flows and on MPTCP connections with coupled
//! congestion control and coupled slow starts.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::*;
use mpsim_core::config::*;
use mpsim_core::ids::LinkId;
use mpsim_core::observe::{self, Observer, PacketEvent, SegmentEvent, SubflowRef, TransportEvent};
use mpsim_core::time::SimTime;
use mpsim_core::wire::Packet;
use mpsim_core::Simulator;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    ALLOCATIONS.with(|c| c.set(c.get() + 1));
}

fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made (and events processed) while simulating from `warm_s`
/// to `end_s` seconds.
/// Fewer than one allocation per 10 000 events, over at least `min_events` events.
fn assert_allocation_free(allocations: u64, events: u64, min_events: u64) {
    assert!(events > min_events, "{events} events");
    assert!(
        allocations * 10_000 < events,
        "{allocations} allocations in {events} events"
    );
}

fn allocations_in_steady_state(cfg: &ScenarioConfig, warm_s: u64, end_s: u64) -> (u64, u64) {
    let mut sim = mpsim_core::build::build(cfg).unwrap();
    allocations_between(&mut sim, warm_s, end_s)
}

/// [`allocations_in_steady_state`] of a simulator already built.
fn allocations_between(sim: &mut Simulator, warm_s: u64, end_s: u64) -> (u64, u64) {
    sim.run_until(SimTime(warm_s * S));
    let events_before = sim.events_processed;
    let before = allocations();
    sim.run_until(SimTime(end_s * S));
    let after = allocations();
    (after - before, sim.events_processed - events_before)
}

fn dumbbell(flows: usize) -> ScenarioConfig {
    let mut nodes = vec![node("R1", NodeKind::Router), node("R2", NodeKind::Router)];
    let mut links = vec![
        link("R1-R2", "R1", "R2", 100_000_000, 10 * MS, droptail(344)),
        link("R2-R1", "R2", "R1", 100_000_000, 10 * MS, droptail(344)),
    ];
    let mut tcp_flows = vec![];
    for i in 0..flows {
        let (s, d) = (format!("S{i}"), format!("D{i}"));
        nodes.push(node(&s, NodeKind::Host));
        nodes.push(node(&d, NodeKind::Host));
        links.push(link(
            &format!("{s}-R1"),
            &s,
            "R1",
            1_000_000_000,
            5 * MS,
            droptail(1000),
        ));
        links.push(link(
            &format!("R1-{s}"),
            "R1",
            &s,
            1_000_000_000,
            5 * MS,
            droptail(1000),
        ));
        links.push(link(
            &format!("{d}-R2"),
            &d,
            "R2",
            1_000_000_000,
            5 * MS,
            droptail(1000),
        ));
        links.push(link(
            &format!("R2-{d}"),
            "R2",
            &d,
            1_000_000_000,
            5 * MS,
            droptail(1000),
        ));
        tcp_flows.push(TcpFlowConfig {
            name: format!("f{i}"),
            src: s,
            dst: d,
            start_ns: i as u64 * 100 * MS,
            cc: Some(CcConfig::Reno {
                config: Default::default(),
            }),
            tcp: TcpOptions {
                profile: Profile::Ns3,
                ..TcpOptions::default()
            },
            ..TcpFlowConfig::default()
        });
    }
    let mut cfg = scenario(1, 30 * S, nodes, links);
    cfg.tcp_flows = tcp_flows;
    cfg
}

#[test]
fn tcp_flows_in_steady_state_allocate_nothing() {
    let (allocations, events) = allocations_in_steady_state(&dumbbell(10), 10, 20);
    // One allocation per packet would be one per ~5 events; growth to a new
    // peak is a handful in the whole interval.
    assert_allocation_free(allocations, events, 250_000);
}

/// Two dumbbell pairs with TCP, two with an MPTCP connection of three
/// subflows each (OLIA with CSS, BALIA with LISA), whose TCP options are
/// `profile`'s.
fn mptcp_dumbbell(profile: Option<Profile>) -> ScenarioConfig {
    let mut cfg = dumbbell(4);
    let mptcp = cfg.tcp_flows.drain(2..).collect::<Vec<_>>();
    for (k, (f, (cc, ss))) in mptcp
        .iter()
        .zip([
            (
                CcConfig::Olia {
                    config: Default::default(),
                },
                mpsim_core::slowstart::SlowStartConfig::Css {
                    config: Default::default(),
                },
            ),
            (
                CcConfig::Balia {
                    config: Default::default(),
                },
                mpsim_core::slowstart::SlowStartConfig::Lisa {
                    config: Default::default(),
                },
            ),
        ])
        .enumerate()
    {
        let mut tcp = f.tcp.clone();
        if let Some(p) = profile {
            tcp.profile = p;
        }
        cfg.mptcp_connections.push(MptcpConnectionConfig {
            name: format!("m{k}"),
            src_addrs: vec![f.src.clone()],
            dst_addrs: vec![f.dst.clone()],
            path_manager: PathManager::Ndiffports { subflows: 3 },
            cc: Some(cc),
            slow_start: ss,
            tcp,
            ..MptcpConnectionConfig::default()
        });
    }
    cfg
}

#[test]
fn mptcp_with_coupled_control_in_steady_state_allocates_nothing() {
    let (allocations, events) = allocations_in_steady_state(&mptcp_dumbbell(None), 10, 20);
    assert_allocation_free(allocations, events, 300_000);
}

/// The `linux` profile's MPTCP: the `linger` scheduler with its averaged
/// pacing rate and queues, Linux's connection window (its subflows' ratios,
/// the receiver's clock) and its connection-level retransmission timer;
/// and links with jitter.
#[test]
fn mptcp_under_the_linux_profile_in_steady_state_allocates_nothing() {
    let mut cfg = mptcp_dumbbell(Some(Profile::Linux));
    // With a delay line's jitter on every link: a draw per packet.
    for l in &mut cfg.links {
        l.jitter_ns = Some(50_000);
    }
    let (allocations, events) = allocations_in_steady_state(&cfg, 10, 20);
    assert_allocation_free(allocations, events, 300_000);
}

/// Counts what the tracing hook reports, keeping nothing else.
#[derive(Default)]
struct Counter {
    packet_events: u64,
    queue_lengths: u64,
    transport_events: u64,
    segment_events: u64,
}

impl Observer for Counter {
    fn on_packet(&mut self, _: SimTime, _: LinkId, _: &Packet, _: PacketEvent) {
        self.packet_events += 1;
    }
    fn on_queue_length(&mut self, _: SimTime, _: LinkId, _: u32, _: u64) {
        self.queue_lengths += 1;
    }
    fn on_transport(&mut self, _: SimTime, _: SubflowRef, _: TransportEvent) {
        self.transport_events += 1;
    }
    fn on_segment(&mut self, _: SimTime, _: SubflowRef, _: SegmentEvent<'_>) {
        self.segment_events += 1;
    }
}

#[test]
fn the_tracing_hook_allocates_nothing_per_event() {
    let mut sim = mpsim_core::build::build(&dumbbell(10)).unwrap();
    sim.observe(Box::new(Counter::default()));
    let (allocations, events) = allocations_between(&mut sim, 10, 20);
    assert_allocation_free(allocations, events, 250_000);
    let seen = observe::find::<Counter>(sim.ctx.observer.as_deref().unwrap()).unwrap();
    // A packet crossing a link is enqueued and dequeued, two calls of the
    // hook for the one event of its arrival: over the 20 s, more calls than
    // the events of the last 10 s.
    assert!(seen.packet_events > events, "{} packet events", seen.packet_events);
    assert!(seen.queue_lengths > 0 && seen.transport_events > 0 && seen.segment_events > 0);
}

#[test]
fn windowed_throughput_allocates_nothing_per_packet() {
    let mut cfg = dumbbell(10);
    cfg.throughput = Some(ThroughputConfig {
        interval_ns: 100 * MS,
        start_ns: 0,
        end_ns: None,
    });
    let (allocations, events) = allocations_in_steady_state(&cfg, 10, 20);
    assert_allocation_free(allocations, events, 250_000);
}

#[test]
fn a_coded_subflow_over_a_lossy_link_allocates_nothing_per_packet() {
    let tcp = TcpOptions {
        rwnd_bytes: Some(120_000),
        ..Default::default()
    };
    let mut cfg = lossy_reno_pair(10_000_000, 20 * MS, 10_000, 240 * S, 0.05, tcp);
    cfg.tcp_flows[0].coding = Some(mpsim_core::transport::coding::CodingConfig {
        window: 6,
        redundancy: 1.25,
        ..Default::default()
    });
    let (allocations, events) = allocations_in_steady_state(&cfg, 20, 240);
    // One per coded packet received would be about one per two events;
    // buffers growing to a new peak are a handful in the interval.
    assert_allocation_free(allocations, events, 250_000);
}
