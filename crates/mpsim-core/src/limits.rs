//! Bounds on a run: its cost estimated before it starts, and the checks made
//! while it runs.
//!
//! A scenario that looks harmless can ask for years of work: a run of 10^9
//! simulated seconds, 1-byte packets at 40 Gbit/s, a queue sampled every
//! nanosecond. Before a run starts, [`estimate`] derives from the rates,
//! packet sizes, routes and sample intervals how many events the run will
//! process and how many trace rows it will record; [`check`] refuses a
//! scenario whose estimate exceeds its limits (`limits.max_events`,
//! `limits.max_trace_rows`) with the estimate in the message. While it runs,
//! the engine counts the same two quantities and stops when either passes its
//! limit, so an estimate that falls short never turns into a hang either.
//!
//! The run loop also pauses every [`CHECK_EVERY_EVENTS`] events to ask an
//! [`Interrupt`] whether to go on: the caller's hook for Ctrl-C or a wall-time
//! limit. The engine reads no clock itself; a stop is reported, and never
//! changes what happened before it.

use std::collections::HashMap;

use crate::config::ScenarioConfig;
use crate::error::ConfigError;
use crate::ids::{AddrId, LinkId};
use crate::net::Network;
use crate::time::{SimDuration, SimTime, NANOS_PER_SEC};
use crate::traffic::udp::PeriodDistribution;
use crate::traffic::udp::UdpSource;

pub use crate::stop::{
    Interrupt, Never, Stop, Stopped, CHECK_EVERY_EVENTS, DEFAULT_MAX_EVENTS, DEFAULT_MAX_TRACE_ROWS,
};

/// Wire bytes a TCP segment carries beyond its payload (IPv4 20, TCP 20,
/// timestamps 12, rounded up for MPTCP's options), for the estimate only.
const TCP_OVERHEAD_BYTES: f64 = 60.0;
/// Events per packet crossing one link: its arrival at the far end, and on a
/// link that is not lazy ([`crate::net::Link::lazy`]) the end of its
/// transmission.
const EVENTS_PER_LAZY_LINK_PACKET: f64 = 1.0;
const EVENTS_PER_LINK_PACKET: f64 = 2.0;
/// Timer events per TCP data segment (retransmission and delayed-ACK timers,
/// cancelled lazily, so each re-arm may still pop once).
const TIMER_EVENTS_PER_SEGMENT: f64 = 2.0;
/// Queue-trace rows per packet crossing a link traced at every change: one
/// when it joins the queue, one when it leaves.
const TRACE_ROWS_PER_PACKET: f64 = 2.0;
/// Segment-trace rows per data segment of a subflow whose segments are
/// traced: the segment, and at most one ACK.
const SEGMENT_ROWS_PER_SEGMENT: f64 = 2.0;
/// Building one TCP flow or MPTCP subflow (its endpoints, state machines
/// and buffers) takes about as long as this many events: 100 000 copies of
/// an 8-subflow connection took 13 s to build, 16 us a subflow, where an
/// event takes about 60 ns.
const BUILD_EVENTS_PER_SUBFLOW: f64 = 250.0;
/// Packets of a subflow's handshake (SYN, SYN-ACK, ACK), sent whatever its
/// size.
const HANDSHAKE_PKTS: f64 = 3.0;
/// A drawn period shorter than this many nanoseconds rounds to 0 ns
/// (`SimDuration::from_secs_f64`).
const ROUNDS_TO_ZERO_NS: f64 = 0.5;

/// What a run is expected to cost, from its configuration alone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CostEstimate {
    /// Events carrying packets over links (one or two per packet per link).
    pub link_events: f64,
    /// Source wake-ups and TCP timers.
    pub source_events: f64,
    /// Queue-sampling events and scheduled changes.
    pub other_events: f64,
    /// Building the flows and subflows, in events of the same cost.
    pub build_events: f64,
    /// Rows of queue and TCP traces.
    pub trace_rows: f64,
}

impl CostEstimate {
    pub fn events(&self) -> f64 {
        self.link_events + self.source_events + self.other_events + self.build_events
    }
}

/// One stream of packets along a route: data of a TCP subflow (with its ACKs
/// on the reverse route) or a UDP flow.
struct Stream {
    /// Links crossed, with the fraction of the packets crossing each.
    path: Vec<(LinkId, f64)>,
    ack_path: Vec<(LinkId, f64)>,
    /// Bytes it would send over the run with no competition.
    bytes: f64,
    /// Wire size of each packet, bytes.
    pkt_bytes: f64,
    /// Wake-ups of its source besides one per packet (on/off periods).
    extra_wakes: f64,
    tcp: bool,
    /// Trace rows per packet (TCP and segment traces).
    trace_rows_per_pkt: f64,
}

/// The links a packet from `src` to `dst` crosses, each with the fraction
/// of the flow's packets that cross it: an ECMP set splits them evenly, as
/// the hash does over many flows (and subflows).
fn route(net: &Network, src: AddrId, dst: AddrId) -> Vec<(LinkId, f64)> {
    let to_node = net.addrs[dst.idx()].node;
    let from = &net.addrs[src.idx()];
    let mut hops = Vec::new();
    let mut frontier: Vec<(LinkId, f64)> = match from.out_link {
        Some(l) => vec![(l, 1.0)],
        None => {
            net.routes.next_hops(from.node, dst, &mut hops);
            split(&hops, 1.0)
        }
    };
    let mut crossed = Vec::new();
    // Each round moves every packet one hop on; a route is at most as long
    // as there are links (longer means a loop, where packets die anyway).
    for _ in 0..=net.links.len() {
        let mut next = Vec::new();
        for (l, w) in frontier {
            crossed.push((l, w));
            let at = net.links[l.idx()].to;
            if at != to_node {
                hops.clear();
                net.routes.next_hops(at, dst, &mut hops);
                next.extend(split(&hops, w));
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = merge(next);
    }
    merge(crossed).into_iter().filter(|(_, w)| *w > 0.0).collect()
}

fn split(hops: &[LinkId], weight: f64) -> Vec<(LinkId, f64)> {
    hops.iter().map(|&l| (l, weight / hops.len() as f64)).collect()
}

/// Sums the weights of a frontier by link, so that it never holds more
/// entries than there are links.
fn merge(mut hops: Vec<(LinkId, f64)>) -> Vec<(LinkId, f64)> {
    hops.sort_by_key(|(l, _)| *l);
    let mut out: Vec<(LinkId, f64)> = Vec::with_capacity(hops.len());
    for (l, w) in hops {
        match out.last_mut() {
            Some((last, sum)) if *last == l => *sum += w,
            _ => out.push((l, w)),
        }
    }
    out
}

fn bottleneck_bps(net: &Network, path: &[(LinkId, f64)]) -> f64 {
    path.iter()
        .map(|(l, _)| net.links[l.idx()].rate_bps as f64)
        .fold(f64::INFINITY, f64::min)
}

/// Estimates the events and trace rows of a run from its configuration and
/// its network (routes included), before anything else is built.
///
/// Every flow offers what it could send alone: a UDP source its rate (times
/// its on fraction) from its start to its stop; a TCP subflow the rate of
/// the slowest link of its route, for at most its size. Each link grants
/// the offers crossing it in proportion to its capacity over the run; a
/// flow then gets its offer times the smallest grant along its route, and its
/// packets cost one or two events on every link of the route (TCP: one ACK per
/// segment on the reverse route, and timers). Queue sampling costs one event
/// per interval. Trace rows are one per sample per traced queue, two per
/// packet through a queue traced at every change, one per ACK of a
/// traced flow, and two per segment of a flow whose segments are traced.
pub fn estimate(cfg: &ScenarioConfig, net: &Network) -> CostEstimate {
    let end_s = cfg.stop_time_ns as f64 / NANOS_PER_SEC as f64;
    let by_name: HashMap<&str, AddrId> = net
        .addrs
        .iter()
        .enumerate()
        .map(|(i, a)| (a.name.as_str(), AddrId(i as u32)))
        .collect();
    let addr = |name: &str| by_name.get(name).copied();
    let mut streams = Vec::new();

    for f in &cfg.udp_flows {
        let (Some(src), Some(dst)) = (addr(&f.src), addr(&f.dst)) else {
            continue;
        };
        let (start, stop) = (SimTime(f.start_ns), f.stop_ns.map_or(SimTime::NEVER, SimTime));
        let active_s = (stop.min(SimTime(cfg.stop_time_ns)).as_secs_f64() - start.as_secs_f64()).max(0.0);
        let (rate_bps, on_off) = UdpSource::new_pattern(&f.pattern);
        let pkt_bytes = f.packet_size_bytes.max(1) as f64;
        let (on_fraction, cycles) = match on_off {
            None => (1.0, 0.0),
            Some((on, off, dist)) => {
                let horizon_ns = active_s * NANOS_PER_SEC as f64;
                let on_ns = drawn_period_ns(on.0 as f64, dist, horizon_ns);
                let off_ns = drawn_period_ns(off.0 as f64, dist, horizon_ns);
                let cycle_ns = on_ns + off_ns;
                let cycles = if cycle_ns > 0.0 {
                    horizon_ns / cycle_ns
                } else {
                    f64::INFINITY
                };
                (
                    on.as_secs_f64() / (on.as_secs_f64() + off.as_secs_f64()).max(1e-9),
                    cycles,
                )
            }
        };
        // Each on period that lasts sends its first packet at once, whatever the rate.
        let bytes = (rate_bps as f64 / 8.0 * on_fraction * active_s).max(cycles * pkt_bytes);
        streams.push(Stream {
            path: route(net, src, dst),
            ack_path: Vec::new(),
            bytes,
            pkt_bytes,
            extra_wakes: 2.0 * cycles,
            tcp: false,
            trace_rows_per_pkt: 0.0,
        });
    }

    let tcp_stream = |src: AddrId, dst: AddrId, size: Option<f64>, start_ns: u64, mss: u32, traced: f64| {
        let path = route(net, src, dst);
        let ack_path = route(net, dst, src);
        let active_s = (end_s - start_ns as f64 / NANOS_PER_SEC as f64).max(0.0);
        let mss = mss.max(1) as f64;
        let alone = bottleneck_bps(net, &path) / 8.0 * active_s * mss / (mss + TCP_OVERHEAD_BYTES);
        Stream {
            path,
            ack_path,
            bytes: size.map_or(alone, |s| s.min(alone)) * (mss + TCP_OVERHEAD_BYTES) / mss
                + HANDSHAKE_PKTS * (mss + TCP_OVERHEAD_BYTES),
            pkt_bytes: mss + TCP_OVERHEAD_BYTES,
            extra_wakes: 0.0,
            tcp: true,
            trace_rows_per_pkt: traced,
        }
    };
    let segment_rows = |name: &str| {
        let traced = cfg.trace.segments.iter().any(|n| n == name);
        traced as u8 as f64 * SEGMENT_ROWS_PER_SEGMENT
    };
    for f in &cfg.tcp_flows {
        let (Some(src), Some(dst)) = (addr(&f.src), addr(&f.dst)) else {
            continue;
        };
        let count = f.sequence.as_ref().map_or(1, |s| s.count.max(1)) as f64;
        let size = f.size_bytes.map(|b| b as f64 * count);
        let mss = f.tcp.mss.unwrap_or(1400);
        let traced = f.trace as u8 as f64 + segment_rows(&f.name);
        streams.push(tcp_stream(src, dst, size, f.start_ns, mss, traced));
    }
    let mut subflows_built = 0.0;
    for m in &cfg.mptcp_connections {
        let srcs: Vec<AddrId> = m.src_addrs.iter().filter_map(|a| addr(a)).collect();
        let dsts: Vec<AddrId> = m.dst_addrs.iter().filter_map(|a| addr(a)).collect();
        let (Some(&s0), Some(&d0)) = (srcs.first(), dsts.first()) else {
            continue;
        };
        let mut pairs = m.path_manager.subflows_of(&srcs, &dsts, m.initiator);
        if pairs.is_empty() {
            pairs.push((s0, d0)); // (`ndiffports` with 0 subflows is refused, but estimated as 1)
        }
        subflows_built += (pairs.len() + m.subflow_events.len()) as f64;
        // A finite connection's bytes are shared by its subflows.
        let size = m.size_bytes.map(|b| b as f64 / pairs.len() as f64);
        let mss = m.tcp.mss.unwrap_or(1400);
        for (s, d) in pairs {
            let traced = m.trace as u8 as f64 + segment_rows(&m.name);
            streams.push(tcp_stream(s, d, size, m.start_ns, mss, traced));
        }
    }

    // Each link grants the offers crossing it in proportion to its capacity.
    let mut offered = vec![0.0f64; net.links.len()];
    for s in &streams {
        for (l, w) in &s.path {
            offered[l.idx()] += s.bytes * w;
        }
    }
    let grant: Vec<f64> = net
        .links
        .iter()
        .zip(&offered)
        .map(|(link, &bytes)| {
            let capacity = link.rate_bps as f64 / 8.0 * end_s;
            if bytes > capacity {
                capacity / bytes
            } else {
                1.0
            }
        })
        .collect();

    // Packets each link carries over the run.
    let mut carried = vec![0.0f64; net.links.len()];
    let mut est = CostEstimate::default();
    for s in &streams {
        let share = s.path.iter().map(|(l, _)| grant[l.idx()]).fold(1.0, f64::min);
        let pkts = s.bytes * share / s.pkt_bytes;
        // A UDP flow has no ACK route.
        for (l, w) in s.path.iter().chain(&s.ack_path) {
            carried[l.idx()] += pkts * w;
        }
        if s.tcp {
            est.source_events += pkts * TIMER_EVENTS_PER_SEGMENT;
            est.trace_rows += pkts * s.trace_rows_per_pkt;
        } else {
            est.source_events += pkts + s.extra_wakes;
        }
    }
    est.link_events = carried
        .iter()
        .zip(&net.links)
        .map(|(pkts, link)| {
            pkts * if link.lazy {
                EVENTS_PER_LAZY_LINK_PACKET
            } else {
                EVENTS_PER_LINK_PACKET
            }
        })
        .sum();

    // Queues sampled at an interval (none when no queue is traced).
    let sampled = &cfg.trace.queue_links;
    if let Some(ns) = cfg.trace.queue_sample_interval_ns.filter(|_| !sampled.is_empty()) {
        let samples = (end_s / SimDuration(ns).as_secs_f64()).floor() + 1.0;
        est.other_events += samples;
        est.trace_rows += samples * sampled.len() as f64;
    }
    for (link, pkts) in net.links.iter().zip(&carried) {
        if link.traced_on_change {
            est.trace_rows += pkts * TRACE_ROWS_PER_PACKET;
        }
    }
    // One start per connection, a sequence's flows each.
    let connections: usize = (cfg.tcp_flows.iter())
        .map(|f| f.sequence.as_ref().map_or(1, |seq| seq.count as usize))
        .sum::<usize>()
        + cfg.mptcp_connections.len();
    est.other_events += (cfg.link_changes.len() + connections) as f64;
    // Every flow of a sequence and every subflow a connection may open is built before the run starts.
    let subflows = (cfg.tcp_flows.iter())
        .map(|f| f.sequence.as_ref().map_or(1.0, |seq| seq.count as f64))
        .sum::<f64>()
        + subflows_built;
    est.build_events = subflows * BUILD_EVENTS_PER_SUBFLOW;
    est
}

/// The mean length a drawn period takes in the simulator, in ns, as seen
/// over `horizon_ns`: periods are rounded to whole nanoseconds (those under
/// half of one last 0 ns) and none outlasts the horizon. Lower than the
/// distribution's mean, much lower for a Pareto shape near 1, whose mean is
/// made by rare periods far longer than any run; so the estimate of the
/// number of periods errs high, never low. This is the integral of the
/// survival function from 1/2 ns to the horizon.
fn drawn_period_ns(mean_ns: f64, dist: PeriodDistribution, horizon_ns: f64) -> f64 {
    let (c, t) = (ROUNDS_TO_ZERO_NS, horizon_ns.max(ROUNDS_TO_ZERO_NS));
    match dist {
        // P(X > x) = exp(-x / mean)
        PeriodDistribution::Exponential => mean_ns * ((-c / mean_ns).exp() - (-t / mean_ns).exp()),
        // P(X > x) = (m / x)^a for x >= m, with the scale m = mean (a - 1) / a (`RngStream::pareto`).
        PeriodDistribution::Pareto { shape: a } => {
            let m = mean_ns * (a - 1.0) / a;
            // ∫ (m/x)^a dx from u to t = m^a (u^(1-a) - t^(1-a)) / (a - 1) = m (m/u)^(a-1) (1 - (u/t)^(a-1)) / (a - 1)
            let tail = |u: f64| m * (m / u).powf(a - 1.0) * (1.0 - (u / t).powf(a - 1.0)) / (a - 1.0);
            if m >= t {
                t - c
            } else if m >= c {
                (m - c) + tail(m)
            } else {
                tail(c)
            }
        }
    }
    .max(0.0)
}

/// A count for messages: whole below 100 000, else in scientific notation.
fn count(x: f64) -> String {
    if x < 1e5 {
        format!("{x:.0}")
    } else {
        format!("{x:.3e}")
    }
}

/// The estimate in a few words, for messages.
fn describe(est: &CostEstimate) -> String {
    format!(
        "{} on links, {} at sources and timers, {} sampling and scheduled changes, {} building flows and subflows",
        count(est.link_events),
        count(est.source_events),
        count(est.other_events),
        count(est.build_events)
    )
}

/// Refuses a run whose estimate exceeds its limits, naming the limit and
/// the estimate.
pub fn check(cfg: &ScenarioConfig, est: &CostEstimate) -> Result<(), ConfigError> {
    let max_events = cfg.limits.max_events();
    if est.events() > max_events as f64 {
        return Err(ConfigError::new(
            "limits.max_events",
            format!(
                "the run is estimated at {} events ({}) for {:.3} s simulated, above the limit of {max_events}; \
                 shorten the duration, lower the rates or raise limits.max_events",
                count(est.events()),
                describe(est),
                cfg.stop_time_ns as f64 / NANOS_PER_SEC as f64,
            ),
        ));
    }
    let max_rows = cfg.limits.max_trace_rows();
    if est.trace_rows > max_rows as f64 {
        return Err(ConfigError::new(
            "limits.max_trace_rows",
            format!(
                "the traces are estimated at {} rows, above the limit of {max_rows}; trace fewer flows or queues, \
                 sample queues less often or raise limits.max_trace_rows",
                count(est.trace_rows)
            ),
        ));
    }
    Ok(())
}
