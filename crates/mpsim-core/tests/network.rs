//! Behaviour of the network layer: links, drop-tail queues, loss, routing,
//! ECMP, link changes and UDP traffic, checked against what the model implies.

mod common;

use common::*;
use mpsim_core::config::*;
use mpsim_core::{run, RunResults};

fn conserved(r: &RunResults) {
    for l in &r.links {
        let dropped = l.dropped_overflow_pkts
            + l.dropped_red_pkts
            + l.dropped_codel_pkts
            + l.dropped_loss_pkts
            + l.dropped_link_down_pkts;
        assert_eq!(
            l.arrived_pkts,
            l.delivered_pkts + dropped + l.queued_pkts_at_end + l.in_transit_pkts_at_end,
            "packet conservation on link {}: {l:?}",
            l.name
        );
    }
}

#[test]
fn cbr_below_rate_has_exact_delay_and_count() {
    // 1000 B every 1 ms is 8 Mbit/s on a 10 Mbit/s link: no queue ever forms.
    let mut cfg = one_link(10_000_000, 7 * MS, droptail(10));
    cfg.udp_flows = vec![cbr("f", "A", "B", 8_000_000, 1000, 0, Some(S))];
    cfg.stop_time_ns = 2 * S;
    let r = run(&cfg).unwrap();
    let f = &r.udp_flows[0];
    // Packets leave at 0, 1 ms, ..., 999 ms: exactly 1000 of them.
    assert_eq!(f.sent_pkts, 1000);
    assert_eq!(f.received_pkts, 1000);
    let one_way = ser_ns(1000, 10_000_000) + 7 * MS; // 0.8 ms + 7 ms
    assert_eq!(f.delay_min_ns, one_way);
    assert_eq!(f.delay_max_ns, one_way);
    assert_eq!(f.first_rx_ns, Some(one_way));
    assert_eq!(f.last_rx_ns, Some(999 * MS + one_way));
    let l = &r.links[0];
    assert_eq!(l.max_queue_pkts, 0);
    assert_eq!(l.delivered_bytes, 1_000_000);
    conserved(&r);
}

#[test]
fn cbr_rate_is_exact_when_the_interval_is_not_whole_nanoseconds() {
    // 1500 B at 7 Mbit/s: one packet per 1.714285... ms. Over 6 s exactly
    // 3500 packets (the k-th leaves at ceil(k * 12000 / 7e6 s)).
    let mut cfg = one_link(1_000_000_000, 0, droptail(10));
    cfg.udp_flows = vec![cbr("f", "A", "B", 7_000_000, 1500, 0, Some(6 * S))];
    cfg.stop_time_ns = 7 * S;
    let r = run(&cfg).unwrap();
    assert_eq!(r.udp_flows[0].sent_pkts, 3500);
}

#[test]
fn overload_into_droptail_runs_at_link_rate() {
    // 2x the link rate for 10 s into a 20-packet drop-tail queue.
    let rate = 10_000_000;
    let size = 1250u64; // 1 ms on the wire
    let b = 20;
    let mut cfg = one_link(rate, 5 * MS, droptail(b));
    cfg.udp_flows = vec![cbr("f", "A", "B", 2 * rate, size as u32, 0, Some(10 * S))];
    cfg.stop_time_ns = 10 * S;
    cfg.trace.queue_links = vec!["ab".into()];
    let r = run(&cfg).unwrap();
    let l = &r.links[0];
    // The transmitter is never idle after the first packet: 10 000 packets
    // finish within 10 s, the last 5 of them still propagating at the end.
    assert_eq!(l.arrived_pkts, 20_000);
    assert_eq!(l.delivered_pkts, 10_000 - 5);
    assert_eq!(l.in_transit_pkts_at_end, 1 + 5);
    // The source sends its last packet just before 10 s; the transmission
    // that ends at 10 s has taken one packet from the full queue.
    assert_eq!(l.queued_pkts_at_end, b as u64 - 1);
    assert_eq!(
        l.dropped_overflow_pkts,
        l.arrived_pkts - l.delivered_pkts - l.queued_pkts_at_end - l.in_transit_pkts_at_end
    );
    assert!((l.utilisation - 1.0).abs() < 1e-9, "utilisation {}", l.utilisation);
    assert_eq!(l.max_queue_pkts, b);
    let t = &r.queue_traces[0];
    assert!(t.queue_pkts.iter().all(|&q| q <= b));
    // Goodput at the sink equals the link rate once the pipe is full.
    let f = &r.udp_flows[0];
    assert_eq!(f.received_pkts, l.delivered_pkts);
    // Queueing delay is B packets of 1 ms at most.
    assert!(f.delay_max_ns <= (b as u64 + 1) * MS + 5 * MS);
    conserved(&r);
}

#[test]
fn byte_limited_queue_never_exceeds_its_bytes() {
    let mut cfg = one_link(
        10_000_000,
        MS,
        QueueConfig::DropTail {
            limit: QueueLimit {
                limit_pkts: None,
                limit_bytes: Some(10_000),
            },
        },
    );
    cfg.udp_flows = vec![
        cbr("big", "A", "B", 15_000_000, 1500, 0, None),
        cbr("small", "A", "B", 2_000_000, 100, 0, None),
    ];
    cfg.stop_time_ns = 2 * S;
    let r = run(&cfg).unwrap();
    assert!(r.links[0].max_queue_bytes <= 10_000);
    assert!(r.links[0].max_queue_bytes > 10_000 - 1500);
    conserved(&r);
}

fn lossy_link_rate(loss: LossConfig, seed: u64) -> (f64, RunResults) {
    let mut cfg = one_link(1_000_000_000, MS, droptail(1000));
    cfg.seed = seed;
    cfg.links[0].loss = loss;
    // 100 000 packets of 125 B at 100 Mbit/s: 10 µs apart, 1 s.
    cfg.udp_flows = vec![cbr("f", "A", "B", 100_000_000, 125, 0, Some(S))];
    cfg.stop_time_ns = 2 * S;
    let r = run(&cfg).unwrap();
    let l = &r.links[0];
    assert_eq!(l.arrived_pkts, 100_000);
    conserved(&r);
    (l.dropped_loss_pkts as f64 / l.arrived_pkts as f64, r)
}

#[test]
fn bernoulli_loss_matches_p() {
    for &p in &[0.001, 0.01, 0.05] {
        let (rate, _) = lossy_link_rate(LossConfig::Bernoulli { p }, 3);
        let sd = (p * (1.0 - p) / 100_000.0).sqrt();
        assert!((rate - p).abs() < 5.0 * sd, "p = {p}: measured {rate}");
    }
}

#[test]
fn gilbert_elliott_loss_matches_stationary_rate() {
    let (p_gb, p_bg, lg, lb) = (0.005, 0.1, 0.0, 0.8);
    let (rate, _) = lossy_link_rate(
        LossConfig::GilbertElliott {
            p_gb,
            p_bg,
            loss_good: lg,
            loss_bad: lb,
        },
        4,
    );
    let expect = p_gb / (p_gb + p_bg) * lb;
    // Bursts of mean length 10 inflate the variance about 20-fold over
    // Bernoulli; 15 % relative is still more than 4 sigma at 100 000 packets.
    assert!(
        (rate - expect).abs() / expect < 0.15,
        "expected {expect}, measured {rate}"
    );
}

#[test]
fn same_seed_same_results_different_seed_different_draws() {
    let loss = LossConfig::Bernoulli { p: 0.02 };
    let (_, a) = lossy_link_rate(loss.clone(), 42);
    let (_, b) = lossy_link_rate(loss.clone(), 42);
    let (_, c) = lossy_link_rate(loss, 43);
    assert_eq!(a, b);
    assert_ne!(a.links[0].dropped_loss_pkts, c.links[0].dropped_loss_pkts);
}

#[test]
fn adding_a_flow_does_not_change_another_links_draws() {
    // Two independent lossy links; a flow added on the second one leaves the
    // first link's loss pattern untouched (one stream per component).
    let build = |with_second: bool| {
        let mut cfg = scenario(
            9,
            2 * S,
            vec![
                node("A", NodeKind::Host),
                node("B", NodeKind::Host),
                node("C", NodeKind::Host),
                node("D", NodeKind::Host),
            ],
            vec![
                link("ab", "A", "B", 100_000_000, MS, droptail(100)),
                link("cd", "C", "D", 100_000_000, MS, droptail(100)),
            ],
        );
        for l in cfg.links.iter_mut() {
            l.loss = LossConfig::Bernoulli { p: 0.1 };
        }
        cfg.udp_flows = vec![cbr("f1", "A", "B", 10_000_000, 500, 0, Some(S))];
        if with_second {
            cfg.udp_flows.push(cbr("f2", "C", "D", 10_000_000, 500, 0, Some(S)));
        }
        run(&cfg).unwrap()
    };
    let (one, two) = (build(false), build(true));
    assert_eq!(one.links[0], two.links[0]);
    assert_eq!(one.udp_flows[0], two.udp_flows[0]);
}

/// Host S — router R1 — k parallel links — router R2 — host D.
fn parallel_paths(k: usize, seed: u64) -> ScenarioConfig {
    let mut nodes = vec![
        node("S", NodeKind::Host),
        node("R1", NodeKind::Router),
        node("R2", NodeKind::Router),
        node("D", NodeKind::Host),
    ];
    nodes.truncate(4);
    let mut links = vec![
        link("s-r1", "S", "R1", 1_000_000_000, MS, droptail(1000)),
        link("r2-d", "R2", "D", 1_000_000_000, MS, droptail(1000)),
    ];
    for i in 0..k {
        links.push(link(&format!("p{i}"), "R1", "R2", 1_000_000_000, MS, droptail(1000)));
    }
    scenario(seed, S, nodes, links)
}

#[test]
fn ecmp_keeps_a_flow_on_one_path_and_spreads_flows() {
    let mut cfg = parallel_paths(4, 5);
    cfg.udp_flows = (0..64)
        .map(|i| cbr(&format!("f{i}"), "S", "D", 1_000_000, 100, 0, Some(S / 2)))
        .collect();
    let r = run(&cfg).unwrap();
    let per_path: Vec<u64> = r.links[2..].iter().map(|l| l.delivered_pkts).collect();
    let per_flow = r.udp_flows[0].sent_pkts;
    // Every flow is pinned to one path, so each path carries a whole number of flows.
    assert!(per_path.iter().all(|&n| n % per_flow == 0), "{per_path:?}");
    assert_eq!(per_path.iter().sum::<u64>(), 64 * per_flow);
    // 64 flows over 4 paths: no path is empty, none has more than half.
    assert!(per_path.iter().all(|&n| n > 0 && n <= 32 * per_flow), "{per_path:?}");
    // A flow's packets never reorder (one path, FIFO).
    assert!(r.udp_flows.iter().all(|f| f.reordered_pkts == 0));
    // Another seed salts the hash differently.
    cfg.seed = 6;
    let r2 = run(&cfg).unwrap();
    let per_path2: Vec<u64> = r2.links[2..].iter().map(|l| l.delivered_pkts).collect();
    assert_ne!(per_path, per_path2);
}

#[test]
fn multihomed_addresses_take_their_own_interfaces() {
    // Host S with two interfaces, each to its own router, each router to D.
    let mut cfg = scenario(
        1,
        S,
        vec![
            node("S", NodeKind::Host),
            node("R1", NodeKind::Router),
            node("R2", NodeKind::Router),
            node("D", NodeKind::Host),
        ],
        vec![
            link("s-r1", "S", "R1", 10_000_000, MS, droptail(100)),
            link("s-r2", "S", "R2", 10_000_000, 3 * MS, droptail(100)),
            link("r1-d", "R1", "D", 10_000_000, MS, droptail(100)),
            link("r2-d", "R2", "D", 10_000_000, 3 * MS, droptail(100)),
            link("r1-r2", "R1", "R2", 10_000_000, MS, droptail(100)),
        ],
    );
    cfg.addresses = vec![
        AddressConfig {
            name: "S1".into(),
            node: "S".into(),
            out_link: Some("s-r1".into()),
            in_link: None,
        },
        AddressConfig {
            name: "S2".into(),
            node: "S".into(),
            out_link: Some("s-r2".into()),
            in_link: None,
        },
        AddressConfig {
            name: "D2".into(),
            node: "D".into(),
            out_link: None,
            in_link: Some("r2-d".into()),
        },
    ];
    // From S1 to D2: leaves by s-r1, must reach D over r2-d, so via r1-r2.
    cfg.udp_flows = vec![
        cbr("a", "S1", "D2", 1_000_000, 125, 0, Some(10 * MS)),
        cbr("b", "S2", "D2", 1_000_000, 125, 0, Some(10 * MS)),
    ];
    let r = run(&cfg).unwrap();
    let by_name = |n: &str| r.links.iter().find(|l| l.name == n).unwrap().delivered_pkts;
    assert_eq!(by_name("s-r1"), 10);
    assert_eq!(by_name("r1-r2"), 10);
    assert_eq!(by_name("s-r2"), 10);
    assert_eq!(by_name("r2-d"), 20);
    assert_eq!(by_name("r1-d"), 0);
    let ser = ser_ns(125, 10_000_000);
    assert_eq!(r.udp_flows[0].delay_min_ns, 3 * ser + 5 * MS);
    assert_eq!(r.udp_flows[1].delay_min_ns, 2 * ser + 6 * MS);
}

#[test]
fn static_route_overrides_computed_route() {
    let mut cfg = parallel_paths(2, 1);
    cfg.routes = vec![RouteConfig {
        node: "R1".into(),
        dst: "D".into(),
        via: vec!["p1".into()],
    }];
    cfg.udp_flows = (0..8)
        .map(|i| cbr(&format!("f{i}"), "S", "D", 1_000_000, 125, 0, Some(10 * MS)))
        .collect();
    let r = run(&cfg).unwrap();
    assert_eq!(r.links[2].delivered_pkts, 0);
    assert_eq!(r.links[3].delivered_pkts, 8 * 10);
}

#[test]
fn link_changes_apply_at_their_time() {
    // 1000 B every 1 ms on a 10 Mbit/s link; at 0.5 s the delay grows from
    // 5 ms to 25 ms; at 1 s the link goes down for 0.2 s.
    let mut cfg = one_link(10_000_000, 5 * MS, droptail(100));
    cfg.udp_flows = vec![cbr("f", "A", "B", 8_000_000, 1000, 0, Some(2 * S))];
    cfg.stop_time_ns = 3 * S;
    cfg.link_changes = vec![
        LinkChangeConfig {
            at_ns: S / 2,
            link: "ab".into(),
            rate_bps: None,
            delay_ns: Some(25 * MS),
            loss: None,
            up: None,
        },
        LinkChangeConfig {
            at_ns: S,
            link: "ab".into(),
            rate_bps: None,
            delay_ns: None,
            loss: None,
            up: Some(false),
        },
        LinkChangeConfig {
            at_ns: S + 200 * MS,
            link: "ab".into(),
            rate_bps: None,
            delay_ns: None,
            loss: None,
            up: Some(true),
        },
    ];
    let r = run(&cfg).unwrap();
    let f = &r.udp_flows[0];
    let ser = ser_ns(1000, 10_000_000);
    assert_eq!(f.delay_min_ns, ser + 5 * MS);
    assert_eq!(f.delay_max_ns, ser + 25 * MS);
    // Packets sent at 1000..1199 ms meet a down link (the one on the
    // transmitter at 1 s is not: the link is idle between packets).
    let l = &r.links[0];
    assert_eq!(l.dropped_link_down_pkts, 200);
    assert_eq!(f.received_pkts, 2000 - 200);
    conserved(&r);
}

#[test]
fn rate_change_changes_serialisation() {
    let mut cfg = one_link(10_000_000, MS, droptail(100));
    cfg.udp_flows = vec![cbr("f", "A", "B", 1_000_000, 1000, 0, Some(S))];
    cfg.link_changes = vec![LinkChangeConfig {
        at_ns: S / 2,
        link: "ab".into(),
        rate_bps: Some(20_000_000),
        delay_ns: None,
        loss: None,
        up: None,
    }];
    let r = run(&cfg).unwrap();
    let f = &r.udp_flows[0];
    assert_eq!(f.delay_max_ns, ser_ns(1000, 10_000_000) + MS);
    assert_eq!(f.delay_min_ns, ser_ns(1000, 20_000_000) + MS);
}

#[test]
fn onoff_source_sends_its_duty_cycle() {
    // Exponential on 100 ms / off 300 ms at 4 Mbit/s: a quarter of the time on,
    // so about 1 Mbit/s on average over 200 s.
    let mut cfg = one_link(100_000_000, MS, droptail(1000));
    cfg.udp_flows = vec![UdpFlowConfig {
        name: "f".into(),
        src: "A".into(),
        dst: "B".into(),
        packet_size_bytes: 500,
        start_ns: 0,
        stop_ns: Some(200 * S),
        pattern: UdpPattern::OnOff {
            rate_bps: 4_000_000,
            on_mean_ns: 100 * MS,
            off_mean_ns: 300 * MS,
            distribution: PeriodDistribution::Exponential,
        },
    }];
    cfg.stop_time_ns = 201 * S;
    let r = run(&cfg).unwrap();
    let mean_rate = r.udp_flows[0].sent_bytes as f64 * 8.0 / 200.0;
    // 500 cycles of 0.4 s: the relative sd of the on fraction is about
    // sqrt((0.1² + 0.3²)/500)/0.4 ≈ 4 %; allow 15 %.
    assert!((mean_rate - 1.0e6).abs() / 1.0e6 < 0.15, "mean rate {mean_rate}");
    // Pareto periods with the same means give the same long-run rate.
    cfg.udp_flows[0].pattern = UdpPattern::OnOff {
        rate_bps: 4_000_000,
        on_mean_ns: 100 * MS,
        off_mean_ns: 300 * MS,
        distribution: PeriodDistribution::Pareto { shape: 2.5 },
    };
    let r = run(&cfg).unwrap();
    let mean_rate = r.udp_flows[0].sent_bytes as f64 * 8.0 / 200.0;
    assert!((mean_rate - 1.0e6).abs() / 1.0e6 < 0.25, "pareto mean rate {mean_rate}");
}

#[test]
fn run_stops_at_the_time_limit() {
    let mut cfg = one_link(10_000_000, MS, droptail(10));
    cfg.udp_flows = vec![cbr("f", "A", "B", 1_000_000, 125, 0, None)];
    cfg.stop_time_ns = 100 * MS + 1;
    let r = run(&cfg).unwrap();
    assert_eq!(r.end_time_ns, 100 * MS + 1);
    // Sends at 0, 1, ..., 100 ms.
    assert_eq!(r.udp_flows[0].sent_pkts, 101);
}

#[test]
fn a_flow_to_an_unreachable_destination_is_refused_naming_both_ends() {
    // (A packet that meets a node without a route at run time is counted: net/forwarding_tests.rs.)
    let mut cfg = scenario(
        1,
        S,
        vec![node("A", NodeKind::Host), node("B", NodeKind::Host)],
        vec![link("ba", "B", "A", 10_000_000, MS, droptail(10))],
    );
    cfg.udp_flows = vec![cbr("f", "A", "B", 1_000_000, 125, 0, Some(10 * MS))];
    let Err(mpsim_core::Error::Config(e)) = run(&cfg) else {
        panic!("a flow without a route ran");
    };
    assert_eq!(e[0].path, "udp_flows[0].dst");
    assert!(e[0].message.starts_with("no route from A to B: "), "{}", e[0].message);
}
