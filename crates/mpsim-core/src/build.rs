//! From a validated [`ScenarioConfig`] to a ready [`Simulator`]: names
//! resolved to arena indices, every component constructed. Validation
//! ([`crate::validate`]) runs first and collects every problem; what follows
//! it has no error path.

use crate::cc::Cc;
use crate::config::*;
use crate::context::SimContext;
use crate::error::ConfigErrors;
use crate::ids::{AddrId, EndpointId, LinkId, NodeId};
use crate::limits::CostEstimate;
use crate::net::link::{DeliveryTrace, Jitter, Link, LinkCounters, TokenBucket, TxTime};
use crate::net::routing::{RoutingTable, Topology};
use crate::net::{Address, LossModel, Network, Node, Queue};
use crate::rng::{mix64, RngStream, StreamDomain};
use crate::sim::{Endpoint, LinkChange, SampledTraces, Simulator};
use crate::slowstart::hystart_linux::HyStartLinuxOption;
use crate::throughput::{Bins, ThroughputRecorder};
use crate::time::{SimDuration, SimTime};
use crate::trace::QueueTrace;
use crate::traffic::gaps::GapGenerator;
use crate::traffic::udp::{Phase, UdpSink, UdpSource};
use crate::transport::coding::Coding;
use crate::transport::connection::{Connection, Subflow};
use crate::transport::scheduler::Scheduling;
use crate::transport::tcp::receiver::TcpReceiver;
use crate::transport::tcp::sender::TcpSender;
use crate::transport::tcp::TcpParams;
use crate::transport::Side;
use crate::validate::{address_configs, check_routes, initial_pairs, subflow_timeline, validate, Names};

/// A subflow's two endpoints and its TCP state machines.
#[allow(clippy::too_many_arguments)]
fn new_subflow(
    endpoints: &mut Vec<Endpoint>,
    conn: u32,
    r: usize,
    src: AddrId,
    dst: AddrId,
    sport: u16,
    params: &TcpParams,
    trace: bool,
) -> Subflow {
    let sender_ep = EndpointId(endpoints.len() as u32);
    let side_of = |side| Endpoint::Tcp {
        connection: conn,
        subflow: r as u16,
        side,
    };
    endpoints.push(side_of(Side::Sender));
    let receiver_ep = EndpointId(endpoints.len() as u32);
    endpoints.push(side_of(Side::Receiver));
    Subflow {
        src,
        dst,
        sender_ep,
        receiver_ep,
        sport,
        fwd_hash: five_tuple_hash(src, dst, sport, 5001, 6),
        rev_hash: five_tuple_hash(dst, src, 5001, sport, 6),
        fwd_route: Default::default(),
        rev_route: Default::default(),
        sender: TcpSender::new(params),
        receiver: TcpReceiver::new(params.receiver),
        ts_to_echo: None,
        acks_sent: 0,
        bytes_received: 0,
        traced: trace,
        segments_traced: false,
        reported: Default::default(),
        added_at: None,
        removed_at: None,
        queued: std::collections::VecDeque::new(),
        queued_bytes: 0,
        short_sent_end: 0,
        tail_skb: Default::default(),
        acked_at: SimTime::ZERO,
        stale: false,
        stale_count: 0,
        stale_acked_at: SimTime::ZERO,
        avg_pacing_rate: 0,
        held_ofo: Vec::new(),
        opening: None,
        join_pending: false,
        coding: None,
    }
}

/// The TCP parameters of a flow, validated: its profile's with the flow's
/// overrides, and its congestion control (the profile's unless given).
pub fn resolve_tcp(f: &TcpOptions, cc: &Option<CcConfig>, mptcp: bool) -> (TcpParams, Cc) {
    let mut t = f.profile.params();
    if let Some(mss) = f.mss {
        t.mss = mss;
    }
    t.receiver.mss = t.mss;
    if let Some(b) = f.framing_bytes {
        t.framing_bytes = b;
    }
    if let Some(l) = f.option_layout {
        t.option_layout = l;
    }
    if let Some(iw) = f.initial_cwnd_segments {
        t.initial_cwnd_segments = iw;
    }
    if let Some(s) = f.initial_ssthresh_bytes {
        t.initial_ssthresh_bytes = Some(s);
    }
    if let Some(r) = f.recovery {
        t.recovery = r;
    }
    if let Some(s) = f.sack {
        t.sack = s;
    }
    if matches!(
        t.recovery,
        crate::transport::tcp::Recovery::Sack | crate::transport::tcp::Recovery::Prr
    ) && !t.sack
        && !f.emulate_sack.unwrap_or(t.emulate_sack)
    {
        t.recovery = crate::transport::tcp::Recovery::NewReno;
    }
    if let Some(ts) = f.timestamps {
        t.timestamps = ts;
    }
    if let Some(l) = f.limited_transmit {
        t.limited_transmit = l;
    }
    f.profile.with_recovery(&mut t);
    if let Some(r) = f.partial_ack_rto {
        t.partial_ack_rto = r;
    }
    if let Some(v) = f.partial_ack_retransmit {
        t.partial_ack_retransmit = v;
    }
    if let Some(v) = f.emulate_sack {
        t.emulate_sack = v;
    }
    if let Some(v) = f.dupack_rule {
        t.dupack_rule = v;
    }
    if let Some(v) = f.prr_variant {
        t.prr_variant = v;
    }
    if let Some(v) = f.loss_flight {
        t.loss_flight = v;
    }
    if let Some(r) = f.sack_rule3 {
        t.sack_rule3 = r;
    }
    if let Some(r) = f.sack_rescue {
        t.sack_rescue = r;
    }
    if let Some(r) = f.rack {
        t.rack = r;
    }
    if let Some(r) = f.tlp {
        t.tlp = r;
    }
    if let Some(v) = f.tlp_pto {
        t.tlp_pto = v;
    }
    if let Some(v) = f.frto {
        t.frto = v;
    }
    if let Some(v) = f.early_retransmit {
        t.early_retransmit = v;
    }
    if let Some(v) = f.early_retransmit_delay {
        t.early_retransmit_delay = v;
    }
    if let Some(v) = f.fack {
        t.fack = v;
    }
    if let Some(v) = f.cwnd_in_segments {
        t.cwnd_in_segments = v;
    }
    if let Some(v) = f.min_rto_bounds_variation {
        t.rtt.min_rto_bounds_variation = v;
    }
    if let Some(d) = f.delayed_ack {
        t.receiver.delayed_ack = d;
    }
    if let Some(n) = f.delack_segments {
        t.receiver.delack_segments = n;
    }
    if let Some(ns) = f.delack_timeout_ns {
        t.receiver.delack_timeout = SimDuration(ns);
    }
    if let Some(n) = f.quickack_segments {
        t.receiver.quickack_segments = n;
    }
    if let Some(v) = f.quickack_window_growth {
        t.receiver.quickack_window_growth = v;
    }
    if let Some(v) = f.sack_compression {
        t.receiver.sack_compression = v;
    }
    if let Some(ns) = f.min_rto_ns {
        t.rtt.min_rto = SimDuration(ns);
    }
    if let Some(ns) = f.initial_rto_ns {
        t.rtt.initial_rto = SimDuration(ns);
    }
    if let Some(b) = f.rwnd_bytes {
        t.receiver.rwnd_bytes = b;
    }
    if let Some(v) = f.ooo_shrinks_window {
        t.receiver.ooo_shrinks_window = v;
    }
    if let Some(b) = f.send_buffer_bytes {
        t.send_buffer_bytes = (b > 0).then_some(b);
    }
    if let Some(b) = f.receive_window_bytes {
        t.receive_window_bytes = Some(b);
        // A TCP flow's receiver advertises it (an MPTCP subflow's header
        // carries the connection's window; its sender applies the cap).
        t.receiver.rwnd_bytes = t.receiver.rwnd_bytes.min(b);
    }
    if let Some(v) = f.sacked_retransmissions_in_pipe {
        t.sacked_retransmissions_in_pipe = v;
    }
    if let Some(v) = f.grow_on_recovery_exit {
        t.grow_on_recovery_exit = v;
    }
    if let Some(v) = f.rto_exit_growth_above_recover {
        t.rto_exit_growth_above_recover = v;
    }
    if let Some(c) = f.ack_counting {
        t.slow_start.counting = c;
        t.reno.counting = c;
    }
    if let Some(h) = f.hystart {
        t.hystart = Some(h);
    }
    if let Some(j) = f.mptcp_join {
        t.mptcp_join = j;
    }
    if let Some(w) = f.mptcp_rcv_window {
        t.mptcp_rcv_window = w;
    }
    if let Some(on) = f.mptcp_retransmit_timer {
        t.mptcp_retransmit_timer = on;
    }
    if let Some(ns) = f.mptcp_pm_delay_ns {
        t.mptcp_pm_delay = SimDuration(ns);
    }
    let default_cc = f.profile.default_cc(mptcp);
    let ns3 = f.profile == crate::transport::tcp::Profile::Ns3;
    let linux = f.profile == crate::transport::tcp::Profile::Linux;
    let setup = crate::cc::CcSetup {
        reno: t.reno,
        ns3,
        linux,
    };
    let cc = cc.as_ref().unwrap_or(&default_cc).build(&setup);
    t.hystart_linux = match f.hystart_linux {
        Some(HyStartLinuxOption::On(h)) => Some(h),
        Some(HyStartLinuxOption::Off) | None => None,
    };
    let chosen = crate::transport::tcp::stacks::FlowChoices {
        ack_counting: f.ack_counting.is_some(),
        hystart_linux: f.hystart_linux.is_some(),
    };
    f.profile.with_cc(&mut t, &cc, chosen);
    (t, cc)
}

/// What a flow or connection runs: its TCP parameters, congestion
/// avoidance and slow start, every default filled in.
pub struct Resolved {
    pub params: TcpParams,
    pub cc: Cc,
    /// The slow start with the early exit (HyStart) it runs.
    pub slow_start: SlowStartConfig,
}

/// What a TCP flow (each flow of a sequence) runs.
pub fn resolve_tcp_flow(f: &TcpFlowConfig) -> Resolved {
    let (params, cc) = resolve_tcp(&f.tcp, &f.cc, false);
    let slow_start =
        SlowStartConfig::default().with_early_exit(params.hystart, params.hystart_linux, params.hystart_ns3);
    Resolved { params, cc, slow_start }
}

/// What each subflow of an MPTCP connection runs.
pub fn resolve_mptcp(m: &MptcpConnectionConfig) -> Resolved {
    let (mut params, cc) = resolve_tcp(&m.tcp, &m.cc, true);
    if !m.slow_start.is_standard() {
        // The profile's HyStart (CUBIC subflows) yields to the coupled strategy.
        params.hystart_linux = None;
        params.hystart_ns3 = None;
    }
    let slow_start = m
        .slow_start
        .with_early_exit(params.hystart, params.hystart_linux, params.hystart_ns3);
    Resolved { params, cc, slow_start }
}

/// What a TCP flow of `profile` runs when it sets nothing else (with its
/// profile's congestion control): the profile's defaults, where the `param`
/// of each option of [`TcpOptions::schema`] reads them.
pub fn profile_params(profile: Profile) -> TcpParams {
    let options = TcpOptions {
        profile,
        ..TcpOptions::default()
    };
    resolve_tcp(&options, &None, false).0
}

/// Hash of a flow's 5-tuple, the key ECMP hashes on.
pub fn five_tuple_hash(src: AddrId, dst: AddrId, src_port: u16, dst_port: u16, protocol: u8) -> u64 {
    let ports = ((src_port as u64) << 16) | dst_port as u64 | ((protocol as u64) << 32);
    mix64(mix64(mix64(src.0 as u64) ^ ((dst.0 as u64) << 20)) ^ ports)
}

/// Everything that refuses a configuration, without building its simulator:
/// validation (every problem at once), then the run's cost estimated from
/// the configuration and its network against its limits. Returns the
/// estimate.
pub fn check(cfg: &ScenarioConfig) -> Result<CostEstimate, ConfigErrors> {
    checked_network(cfg).map(|(_, est)| est)
}

/// Validates the configuration (every problem at once) and builds the
/// simulator; a run estimated above its limits is refused. The network is
/// built once, for the estimate and for the run.
pub fn build(cfg: &ScenarioConfig) -> Result<Simulator, ConfigErrors> {
    let (net, _) = checked_network(cfg)?;
    let mut sim = construct(cfg, net);
    sim.prime();
    Ok(sim)
}

/// The network of a configuration that validation, the routes and the
/// limits accept, with the run's estimated cost.
fn checked_network(cfg: &ScenarioConfig) -> Result<(Network, CostEstimate), ConfigErrors> {
    validate(cfg)?;
    let net = network(cfg);
    check_routes(cfg, &net)?;
    let est = crate::limits::estimate(cfg, &net);
    crate::limits::check(cfg, &est)?;
    Ok((net, est))
}

/// The names of a validated configuration's links and addresses, each to its index.
fn link_and_address_names(cfg: &ScenarioConfig) -> (Names, Names) {
    let mut ignored = crate::error::Problems::default();
    let links = Names::new("links", cfg.links.iter().map(|l| &l.name), &mut ignored);
    let addrs = address_configs(cfg);
    let addrs = Names::new("addresses", addrs.iter().map(|a| &a.name), &mut ignored);
    (links, addrs)
}

/// The nodes, links, addresses and routes of a validated configuration;
/// links whose queue is traced at every change are marked.
fn network(cfg: &ScenarioConfig) -> Network {
    let seed = cfg.seed;
    let mut ignored = crate::error::Problems::default();
    let node_names = Names::new("nodes", cfg.nodes.iter().map(|n| &n.name), &mut ignored);
    let (link_names, addr_names) = link_and_address_names(cfg);
    let node = |name: &str| NodeId(node_names.id(name));
    let link = |name: &str| LinkId(link_names.id(name));

    let mut net = Network::default();
    for (i, n) in cfg.nodes.iter().enumerate() {
        net.nodes.push(Node {
            name: n.name.clone(),
            forwards: n.kind == NodeKind::Router,
            ecmp_salt: RngStream::derive(seed, StreamDomain::Ecmp, i as u64).next_u64(),
        });
    }

    let mut link_ends = Vec::with_capacity(cfg.links.len());
    for (i, l) in cfg.links.iter().enumerate() {
        let (from, to) = (node(&l.from), node(&l.to));
        link_ends.push((from, to, l.weight));
        let trace = l
            .trace
            .as_ref()
            .map(|t| Box::new(DeliveryTrace::new(&t.opportunities_ms, t.bytes_per_opportunity)));
        // A trace's link has the trace's mean rate, whatever the configuration says.
        let rate_bps = trace
            .as_ref()
            .map_or(l.rate_bps, |t| (t.mean_rate_bps().ceil() as u64).max(1));
        net.links.push(Link {
            name: l.name.clone(),
            from,
            to,
            rate_bps,
            delay: SimDuration(l.delay_ns),
            up: l.up,
            weight: l.weight,
            queue: Queue::from_config(&l.queue, rate_bps),
            loss: LossModel::from_config(&l.loss),
            loss_rng: RngStream::derive(seed, StreamDomain::LinkLoss, i as u64),
            queue_rng: RngStream::derive(seed, StreamDomain::QueueDisc, i as u64),
            in_service: None,
            service_started: SimTime::ZERO,
            busy_until: SimTime::ZERO,
            tx_memo: Link::NO_TX_MEMO,
            lazy: false,
            in_flight: 0,
            counters: LinkCounters::default(),
            traced_on_change: false,
            bucket: l
                .burst_bytes
                .map(|burst| TokenBucket::new(burst).with_rate_limiter(l.rate_limiter)),
            jitter: l.jitter_ns.map(|mean| {
                Box::new(Jitter::new(
                    mean,
                    RngStream::derive(seed, StreamDomain::LinkJitter, i as u64),
                ))
            }),
            trace,
            txtime: l.txtime_rate_bps.map(|rate| Box::new(TxTime::new(rate))),
        });
    }

    let addr = |name: &str| AddrId(addr_names.id(name));
    for a in &address_configs(cfg) {
        net.addrs.push(Address {
            name: a.name.clone(),
            node: node(&a.node),
            out_link: a.out_link.as_deref().map(link),
            in_link: a.in_link.as_deref().map(link),
        });
    }

    let forwards: Vec<bool> = net.nodes.iter().map(|n| n.forwards).collect();
    let addr_targets: Vec<_> = net.addrs.iter().map(|a| (a.node, a.in_link)).collect();
    net.routes = RoutingTable::compute(&Topology {
        forwards: &forwards,
        links: &link_ends,
        addrs: &addr_targets,
    });
    for r in &cfg.routes {
        let via: Vec<LinkId> = r.via.iter().map(|name| link(name)).collect();
        net.routes.set(node(&r.node), addr(&r.dst), &via);
    }
    // Links whose transmissions need no events of their own (`Link::lazy`):
    // drop-tail, of a fixed rate (no shaper, trace or hold) and never changed.
    for (i, l) in cfg.links.iter().enumerate() {
        let changed = cfg.link_changes.iter().any(|c| c.link == l.name);
        let link = &mut net.links[i];
        link.lazy = !changed
            && link.up
            && link.bucket.is_none()
            && link.trace.is_none()
            && link.txtime.is_none()
            && matches!(link.queue, Queue::DropTail(_));
    }
    // Sampled queues are traced by their own events instead (`construct`).
    if cfg.trace.queue_sample_interval_ns.is_none() {
        for name in &cfg.trace.queue_links {
            net.links[link(name).idx()].traced_on_change = true;
        }
    }
    net
}

/// The simulator of a validated configuration on its network.
fn construct(cfg: &ScenarioConfig, net: Network) -> Simulator {
    let seed = cfg.seed;
    let (link_names, addr_names) = link_and_address_names(cfg);
    let link = |name: &str| LinkId(link_names.id(name));
    let addr = |name: &str| AddrId(addr_names.id(name));
    let addr_cfgs = address_configs(cfg);

    let link_changes = cfg
        .link_changes
        .iter()
        .map(|c| LinkChange {
            at: SimTime(c.at_ns),
            link: link(&c.link),
            rate_bps: c.rate_bps,
            delay: c.delay_ns.map(SimDuration),
            loss: c.loss.as_ref().map(LossModel::from_config),
            up: c.up,
        })
        .collect();

    let mut endpoints = Vec::new();
    let mut udp_sources = Vec::new();
    let mut udp_sinks = Vec::new();
    for (i, f) in cfg.udp_flows.iter().enumerate() {
        let (src, dst) = (addr(&f.src), addr(&f.dst));
        let stop = f.stop_ns.map(SimTime).unwrap_or(SimTime::NEVER);
        let sink = EndpointId(endpoints.len() as u32);
        endpoints.push(Endpoint::UdpSink(udp_sinks.len() as u32));
        udp_sinks.push(UdpSink::default());
        let (rate_bps, on_off) = UdpSource::new_pattern(&f.pattern);
        let src_port = 10_000u16.wrapping_add(i as u16);
        udp_sources.push(UdpSource {
            name: f.name.clone(),
            src,
            dst,
            sink,
            flow_hash: five_tuple_hash(src, dst, src_port, 9, 17),
            packet_size_bytes: f.packet_size_bytes,
            rate_bps,
            start: SimTime(f.start_ns),
            stop,
            on_off,
            rng: RngStream::derive(seed, StreamDomain::TrafficSource, i as u64),
            phase: Phase::NotStarted,
            burst_start: SimTime(f.start_ns),
            burst_index: 0,
            next_seq: 0,
            sent_pkts: 0,
            sent_bytes: 0,
        });
    }

    let mut connections = Vec::new();
    for (i, f) in cfg.tcp_flows.iter().enumerate() {
        let (src, dst) = (addr(&f.src), addr(&f.dst));
        let Resolved { params, cc, slow_start } = resolve_tcp_flow(f);
        let repeats = f.sequence.as_ref().map_or(1, |seq| seq.count);
        for k in 0..repeats {
            let index = connections.len() as u32;
            let sport = 20_000u16.wrapping_add((i as u32 * 131 + k) as u16);
            let mut sf = new_subflow(&mut endpoints, index, 0, src, dst, sport, &params, f.trace);
            sf.coding = f.coding.clone().map(Coding::new);
            let name = if f.sequence.is_some() {
                format!("{}#{k}", f.name)
            } else {
                f.name.clone()
            };
            let mut conn = Connection::new(
                name,
                index,
                params.clone(),
                false,
                vec![sf],
                cc.clone(),
                slow_start.build(params.slow_start, 1),
                Scheduler::Minrtt,
                if k == 0 { SimTime(f.start_ns) } else { SimTime::NEVER },
                SimDuration::ZERO,
                f.size_bytes,
                None,
            );
            conn.initiator = f.initiator;
            conn.use_bbr(seed);
            if let Some(seq) = &f.sequence {
                if k + 1 < repeats {
                    conn.successor = Some((
                        index + 1,
                        GapGenerator {
                            mean: SimDuration(seq.gap_mean_ns),
                            distribution: seq.gap_distribution,
                            rng: RngStream::derive(seed, StreamDomain::Workload, ((i as u64) << 32) | k as u64),
                        },
                    ));
                }
            }
            connections.push(conn);
        }
    }
    for (i, m) in cfg.mptcp_connections.iter().enumerate() {
        let p = format!("mptcp_connections[{i}]");
        let srcs: Vec<AddrId> = m.src_addrs.iter().map(|a| addr(a)).collect();
        let dsts: Vec<AddrId> = m.dst_addrs.iter().map(|a| addr(a)).collect();
        let mut pairs = initial_pairs(m, &srcs, &dsts);
        let initial_subflows = pairs.len();
        let resolved: Vec<(AddrId, AddrId)> = m.subflow_events.iter().map(|e| (addr(&e.src), addr(&e.dst))).collect();
        let addr_name = |a: AddrId| addr_cfgs[a.idx()].name.as_str();
        let events = subflow_timeline(&p, m, &resolved, &addr_name, &mut pairs).expect("validated subflow events");
        let Resolved { params, cc, slow_start } = resolve_mptcp(m);
        let rcv_buffer = m.rcv_buffer_bytes;
        let index = connections.len() as u32;
        let subflows: Vec<Subflow> = pairs
            .iter()
            .enumerate()
            .map(|(r, &(s, d))| {
                let sport = 30_000u16.wrapping_add((i * 64 + r) as u16);
                let mut sf = new_subflow(&mut endpoints, index, r, s, d, sport, &params, m.trace);
                sf.coding = m.coding.get(addr_name(s)).cloned().map(Coding::new);
                sf
            })
            .collect();
        let mut conn = Connection::new(
            m.name.clone(),
            index,
            params.clone(),
            true,
            subflows,
            cc,
            slow_start.build(params.slow_start, pairs.len()),
            m.scheduler.unwrap_or(m.tcp.profile.default_scheduler()),
            SimTime(m.start_ns),
            SimDuration(m.join_delay_ns),
            m.size_bytes,
            rcv_buffer,
        );
        if let Some(plugin) = &m.scheduler_plugin {
            conn.set_scheduling(Scheduling::Plugin(Box::new(plugin.build())));
        }
        conn.initiator = m.initiator;
        conn.use_bbr(cfg.seed);
        // The phase of the receiver's millisecond timestamp clock, drawn per
        // MPTCP connection (its place among the connections, not the flows).
        conn.set_clock_phase(RngStream::derive(cfg.seed, StreamDomain::Transport, i as u64).below(1_000_000));
        conn.set_subflow_events(initial_subflows, events);
        connections.push(conn);
    }

    let traced: Vec<LinkId> = cfg.trace.queue_links.iter().map(|name| link(name)).collect();
    let sampled = match cfg.trace.queue_sample_interval_ns {
        // Sampling nothing would only cost events.
        Some(ns) if !traced.is_empty() => Some(SampledTraces {
            interval: SimDuration(ns),
            traces: traced.iter().map(|&l| (l, QueueTrace::default())).collect(),
        }),
        _ => None,
    };

    // A flow of a sequence is named `name#k`: tracing `name` traces all of them.
    for c in connections.iter_mut() {
        if cfg.trace.segments.iter().any(|name| names_flow(name, &c.name)) {
            for sf in c.subflows.iter_mut() {
                sf.segments_traced = true;
            }
        }
    }

    // A flow of a sequence is named `name#k`: watching `name` waits for all of them.
    let mut watched_remaining = 0;
    for name in &cfg.stop_when_complete {
        for c in connections.iter_mut() {
            if names_flow(name, &c.name) && !c.watched {
                c.watched = true;
                watched_remaining += 1;
            }
        }
    }

    let mut sim = Simulator {
        ctx: SimContext {
            watch: !cfg.stop_when_complete.is_empty(),
            watched_remaining,
            ..SimContext::default()
        },
        net,
        seed,
        stop_time: SimTime(cfg.stop_time_ns),
        endpoints,
        udp_sources,
        udp_sinks,
        connections,
        link_changes,
        sampled,
        events_processed: 0,
        stopped_by_limit: false,
        max_events: cfg.limits.max_events(),
        max_trace_rows: cfg.limits.max_trace_rows(),
        abort: Default::default(),
    };
    sim.net.prefetch = state_bytes(&sim) > PREFETCH_ABOVE_BYTES;
    if let Some(t) = &cfg.throughput {
        let bins = Bins {
            start: SimTime(t.start_ns),
            interval: SimDuration(t.interval_ns),
            end: SimTime(t.end_ns.unwrap_or(cfg.stop_time_ns)),
        };
        let subflows = sim.connections.iter().map(|c| c.is_mptcp().then_some(c.subflows.len()));
        let recorder = ThroughputRecorder::new(bins, subflows, sim.udp_sources.len());
        sim.observe(Box::new(recorder));
    }
    sim
}

/// Above this much link and connection state the event loop prefetches for
/// the next event. Below it, the state stays in the caches and a prefetch
/// only costs time (docs/performance.md measures both sides).
const PREFETCH_ABOVE_BYTES: usize = 1 << 20;

/// The bytes of the link, connection and subflow structures of a run (the
/// state its events move between; what they point to, such as scoreboards,
/// queues and packets, comes on top, so this is a floor).
fn state_bytes(sim: &Simulator) -> usize {
    use std::mem::size_of;
    let subflows: usize = sim.connections.iter().map(|c| c.subflows.len()).sum();
    sim.net.links.len() * size_of::<Link>()
        + sim.connections.len() * size_of::<Connection>()
        + subflows * size_of::<Subflow>()
}

/// Whether `name`, as a scenario names a flow, stands for the connection
/// `connection`: itself, or every flow `name#k` of a sequence.
fn names_flow(name: &str, connection: &str) -> bool {
    let base = connection.split_once('#').map_or(connection, |(b, _)| b);
    connection == name || base == name
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The value at a dotted path of a serialised `TcpParams`.
    fn at<'a>(params: &'a Value, path: &str) -> &'a Value {
        path.split('.').fold(params, |v, key| &v[key])
    }

    /// Each option, set to a value other than the `rfc` profile's, lands
    /// where the schema's `param` says: the profiles' defaults read there
    /// are what the option overrides.
    #[test]
    fn every_option_lands_where_the_schema_says() {
        let base = serde_json::to_value(profile_params(Profile::Rfc)).unwrap();
        for o in TcpOptions::schema().iter().filter(|o| o.name != "profile") {
            let default = at(&base, &o.param);
            let value: Value = match o.kind {
                OptionKind::Flag => (!default.as_bool().unwrap()).into(),
                OptionKind::Integer => default.as_u64().map_or(100_000, |n| n + 1).into(),
                OptionKind::Choice => o.values.iter().find(|v| *default != **v).unwrap().as_str().into(),
                OptionKind::Table => serde_json::json!({}),
                OptionKind::FlagOrTable => true.into(),
            };
            let document = serde_json::json!({ "profile": "rfc", o.name: value });
            let options: TcpOptions = serde_json::from_value(document).unwrap();
            // The option as it is held, serialised: a table with its defaults filled in.
            let set = &serde_json::to_value(&options).unwrap()[o.name];
            let params = serde_json::to_value(resolve_tcp(&options, &None, false).0).unwrap();
            assert_ne!(set, default, "{}", o.name);
            assert_eq!(at(&params, &o.param), set, "{} at {}", o.name, o.param);
        }
    }
}
