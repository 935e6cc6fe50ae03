//! Micro-benchmarks of the hot path: the event queue, one link hop, one TCP
//! ACK. `cargo bench -p mpsim-core --bench core`.

use std::hint::black_box;

/// The allocator of the Python extension.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use mpsim_core::cc::{Cc, Reno, SubflowCc};
use mpsim_core::config::*;
use mpsim_core::event::{Event, EventQueue};
use mpsim_core::rng::{RngStream, StreamDomain};
use mpsim_core::slowstart::{Ss, Standard};
use mpsim_core::time::SimTime;
use mpsim_core::transport::tcp::sender::{OutSegment, SenderOutput, Stream, TcpSender};
use mpsim_core::transport::tcp::Profile;
use mpsim_core::wire::tcp::{TcpFlags, TcpHeader};

/// Queue sizes of the hold-model benchmarks: the mean number of events the
/// benchmark scenarios' queues hold (docs/performance.md, "The event
/// queue" and "One event per link hop"), from 16 to the large fat-tree's.
const HOLD_SIZES: [usize; 9] = [16, 64, 300, 500, 1_100, 1_500, 5_000, 21_000, 100_000];

fn event_queue(c: &mut Criterion) {
    // The hold model: a queue holding `n` pending events; each iteration
    // pops the earliest and schedules a new one a random time (up to 1 ms)
    // later. Beside mpsim's queue, the bare floor at the same size: a
    // binary heap of (time, sequence) keys with a 16-byte payload, which is
    // what a queue ordered by time and insertion needs at the least.
    let mut g = c.benchmark_group("event_queue");
    g.throughput(Throughput::Elements(1));
    g.bench_function("pop_and_schedule_10k_pending", |b| {
        let mut rng = RngStream::derive(1, StreamDomain::Workload, 0);
        let mut q = EventQueue::default();
        for i in 0..10_000u32 {
            q.schedule(SimTime(rng.below(1_000_000_000)), Event::UdpSource(i));
        }
        b.iter(|| {
            let (t, e) = q.pop().unwrap();
            q.schedule(SimTime(t.nanos() + rng.below(1_000_000)), black_box(e));
        });
    });
    for n in HOLD_SIZES {
        g.bench_function(format!("hold_{n}"), |b| {
            let mut rng = RngStream::derive(1, StreamDomain::Workload, n as u64);
            let mut q = EventQueue::default();
            for i in 0..n as u32 {
                q.schedule(SimTime(rng.below(1_000_000)), Event::UdpSource(i));
            }
            b.iter(|| {
                let (t, e) = q.pop().unwrap();
                q.schedule(SimTime(t.nanos() + rng.below(1_000_000)), black_box(e));
            });
        });
        g.bench_function(format!("bare_binary_heap_hold_{n}"), |b| {
            use std::cmp::Reverse;
            use std::collections::BinaryHeap;
            let mut rng = RngStream::derive(1, StreamDomain::Workload, n as u64);
            let mut heap = BinaryHeap::with_capacity(n + 1);
            let mut seq = 0u64;
            for i in 0..n as u32 {
                heap.push(Reverse((rng.below(1_000_000), seq, [u64::from(i), 0u64])));
                seq += 1;
            }
            b.iter(|| {
                let Reverse((t, _, e)) = heap.pop().unwrap();
                heap.push(Reverse((t + rng.below(1_000_000), seq, black_box(e))));
                seq += 1;
            });
        });
    }
    g.finish();
}

fn link_hop(c: &mut Criterion) {
    // 10 000 packets of a CBR source through one drop-tail link: two events
    // each (source, arrival; the link is lazy, its transmissions have no
    // event of their own) and a queue operation.
    let cfg: ScenarioConfig = serde_json::from_value(serde_json::json!({
        "seed": 1,
        "stop_time_ns": 1_000_000_000u64,
        "nodes": [{"name": "A"}, {"name": "B"}],
        "links": [{"name": "ab", "from": "A", "to": "B", "rate_bps": 1_000_000_000u64, "delay_ns": 1_000_000u64}],
        "udp_flows": [{"name": "f", "src": "A", "dst": "B", "packet_size_bytes": 1250, "start_ns": 0,
                       "stop_ns": 100_000_000u64, "pattern": {"type": "cbr", "rate_bps": 1_000_000_000u64}}]
    }))
    .unwrap();
    let mut g = c.benchmark_group("link_hop");
    g.throughput(Throughput::Elements(10_000));
    g.bench_function("cbr_10k_packets", |b| {
        b.iter_batched(
            || mpsim_core::build::build(&cfg).unwrap(),
            |mut sim| {
                sim.run();
                black_box(sim.events_processed)
            },
            BatchSize::LargeInput,
        );
    });
    g.finish();
}

struct Discard(u64);

impl SenderOutput for Discard {
    fn send(&mut self, seg: OutSegment) {
        self.0 = self.0.wrapping_add(seg.header.seq);
    }
    fn arm_timer(&mut self, _at: SimTime) {}
}

fn tcp_ack(c: &mut Criterion) {
    // A sender in congestion avoidance with a 100-segment window: each ACK
    // acknowledges one segment and releases the next.
    let params = Profile::Rfc.params();
    let mut g = c.benchmark_group("tcp_ack");
    g.throughput(Throughput::Elements(1));
    g.bench_function("ack_one_segment_in_congestion_avoidance", |b| {
        let mut out = Discard(0);
        let mut sender = TcpSender::new(&params);
        let mut ccs = vec![SubflowCc::new(
            params.mss,
            100 * params.mss as u64,
            50 * params.mss as u64,
        )];
        let mut cc = Cc::Reno(Reno::new(params.reno));
        let mut ss = Ss::Standard(Standard::new(params.slow_start));
        let mut stream = Stream::new(None);
        sender.start(SimTime(0), &params, &mut out);
        let synack = TcpHeader {
            flags: TcpFlags(TcpFlags::SYN | TcpFlags::ACK),
            ack: 1,
            rwnd: u64::MAX,
            ..TcpHeader::default()
        };
        sender.on_ack(
            &synack,
            SimTime(1_000_000),
            &params,
            &mut ccs,
            0,
            &mut cc,
            &mut ss,
            &mut out,
        );
        sender.transmit(SimTime(1_000_000), &params, &mut ccs[0], &mut stream, &mut out);
        let mut now = 2_000_000u64;
        let mut ack = 1u64;
        b.iter(|| {
            now += 10_000;
            ack += params.mss as u64;
            let h = TcpHeader {
                flags: TcpFlags(TcpFlags::ACK),
                ack,
                rwnd: u64::MAX,
                ts_ecr: SimTime(now - 1_000_000),
                ..TcpHeader::default()
            };
            sender.on_ack(&h, SimTime(now), &params, &mut ccs, 0, &mut cc, &mut ss, &mut out);
            sender.transmit(SimTime(now), &params, &mut ccs[0], &mut stream, &mut out);
        });
        black_box(out.0);
    });
    g.finish();
}

criterion_group!(benches, event_queue, link_hop, tcp_ack);
criterion_main!(benches);
