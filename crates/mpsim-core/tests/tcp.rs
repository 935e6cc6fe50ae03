//! TCP behaviour checked against what the model implies.

mod common;

use common::*;
use mpsim_core::config::*;
use mpsim_core::run;

/// Hosts A and B joined by a link each way.
fn path(rate_bps: u64, delay_ns: u64, buffer_pkts: u32) -> ScenarioConfig {
    scenario(
        1,
        60 * S,
        vec![node("A", NodeKind::Host), node("B", NodeKind::Host)],
        vec![
            link("ab", "A", "B", rate_bps, delay_ns, droptail(buffer_pkts)),
            link("ba", "B", "A", rate_bps, delay_ns, droptail(buffer_pkts)),
        ],
    )
}

fn flow(name: &str, size: Option<u64>, profile: Profile) -> TcpFlowConfig {
    TcpFlowConfig {
        name: name.into(),
        src: "A".into(),
        dst: "B".into(),
        size_bytes: size,
        cc: (profile != Profile::Rfc).then_some(CcConfig::Reno {
            config: Default::default(),
        }),
        tcp: TcpOptions {
            profile,
            ..TcpOptions::default()
        },
        ..TcpFlowConfig::default()
    }
}

/// Completion time of an N-segment transfer on a lossless path with IW 10,
/// no delayed ACK and byte counting: slow start doubles the window each
/// round, so round r carries 10·2^(r−1) segments, and every round the link
/// sends back to back.
fn predicted_fct(n: u64, rate: u64, d: u64) -> u64 {
    let ser_d = ser_ns(1400 + 52, rate);
    let ser_a = ser_ns(52, rate);
    let handshake = 2 * (ser_a + d);
    let rtt = 2 * d + ser_a + ser_d;
    let (mut round, mut sent_before) = (1u64, 0u64);
    while sent_before + 10 * (1 << (round - 1)) < n {
        sent_before += 10 * (1 << (round - 1));
        round += 1;
    }
    let i = n - sent_before;
    let last_done = handshake + ser_a + ser_d + (round - 1) * rtt + (i - 1) * ser_d;
    last_done + 2 * d + ser_a
}

#[test]
fn lossless_slow_start_completion_times_are_exact() {
    let (rate, d) = (100_000_000, 50 * MS);
    for n in [1u64, 5, 10, 11, 30, 31, 100, 300, 630] {
        let mut cfg = path(rate, d, 1000);
        let mut f = flow("f", Some(n * 1400), Profile::Rfc);
        f.tcp.delayed_ack = Some(false);
        cfg.tcp_flows = vec![f];
        let r = run(&cfg).unwrap();
        let t = &r.tcp_flows[0];
        assert_eq!(t.bytes_delivered, n * 1400, "n = {n}");
        assert_eq!(t.segments_sent, n);
        let fct = t.fct_ns.expect("completes");
        let want = predicted_fct(n, rate, d);
        let ser = ser_ns(1452, rate);
        assert!(fct.abs_diff(want) <= ser, "n = {n}: fct {fct} ns, predicted {want} ns");
    }
}

/// Padhye, Firoiu, Towsley, Kurose (SIGCOMM 1998) eq. (30): throughput in
/// segments per second of a Reno flow with loss rate p, round-trip time
/// `rtt`, timeout `t0`, b segments per ACK, no receiver-window limit.
fn padhye_segments_per_s(p: f64, rtt: f64, t0: f64, b: f64) -> f64 {
    let a = rtt * (2.0 * b * p / 3.0).sqrt();
    let c = t0 * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
    1.0 / (a + c)
}

fn reno_under_loss(p: f64, recovery: Recovery, seed: u64) -> (f64, f64, f64) {
    // 1 Gbit/s so the window, never the link, limits; 50 ms RTT.
    let (rate, d) = (1_000_000_000, 25 * MS);
    let mut cfg = path(rate, d, 10_000);
    cfg.seed = seed;
    cfg.links[0].loss = LossConfig::Bernoulli { p };
    cfg.stop_time_ns = 200 * S;
    let mut f = flow("f", None, Profile::Rfc);
    f.tcp.recovery = Some(recovery);
    f.tcp.delayed_ack = Some(false);
    f.tcp.min_rto_ns = Some(200 * MS);
    cfg.tcp_flows = vec![f];
    let r = run(&cfg).unwrap();
    let t = &r.tcp_flows[0];
    let measured = t.bytes_delivered as f64 / 1400.0 / 200.0;
    // Padhye's p is the rate of loss indications (a window's losses are one
    // indication); with independent losses it is below the packet loss rate.
    let indications = (t.fast_recoveries + t.rto_count) as f64 / t.segments_sent as f64;
    let rtt = 2.0 * d as f64 / 1e9;
    let rto = (t.srtt_ns_at_end as f64 / 1e9 + 0.004).max(0.2);
    (measured, padhye_segments_per_s(indications, rtt, rto, 1.0), indications)
}

#[test]
fn reno_throughput_follows_padhye_under_random_loss() {
    for p in [0.001, 0.005, 0.01, 0.02] {
        for rec in [Recovery::Reno, Recovery::NewReno, Recovery::Sack, Recovery::Prr] {
            let (m, model, ind) = reno_under_loss(p, rec, 1);
            let ratio = m / model;
            assert!(
                (0.8..=1.2).contains(&ratio),
                "p = {p}, {rec:?}: {m:.1} segments/s against Padhye's {model:.1} (indication rate {ind:.5})"
            );
        }
    }
}

/// cwnd (in segments) sampled between slow-start rounds of an unlimited flow
/// on a lossless 100 ms path: the factor per round.
fn growth_per_round(profile: Profile, counting: Option<mpsim_core::cc::AckCounting>) -> Vec<f64> {
    let (rate, d) = (100_000_000, 50 * MS);
    let mut cfg = path(rate, d, 10_000);
    cfg.stop_time_ns = 800 * MS;
    let mut f = flow("f", None, profile);
    f.trace = true;
    f.tcp.delack_timeout_ns = Some(MS);
    f.tcp.quickack_segments = Some(0);
    f.tcp.ack_counting = counting;
    cfg.tcp_flows = vec![f];
    let r = run(&cfg).unwrap();
    let t = &r.tcp_traces[0];
    let cwnd_at = |at: u64| {
        let i = t.time_ns.partition_point(|&x| x <= at);
        t.cwnd_bytes[i - 1] as f64 / 1400.0
    };
    // The handshake takes one RTT; round k's ACKs arrive around (k + 1) RTT.
    let rtt = 2 * d;
    let samples: Vec<f64> = (1..=5).map(|k| cwnd_at(k * rtt + rtt / 2 + rtt)).collect();
    samples.windows(2).map(|w| w[1] / w[0]).collect()
}

#[test]
fn delayed_ack_growth_is_two_with_byte_counting_and_one_and_a_half_per_ack() {
    use mpsim_core::cc::AckCounting;
    for g in growth_per_round(Profile::Rfc, Some(AckCounting::Bytes)) {
        assert!((g - 2.0).abs() < 0.1, "byte counting: growth {g}");
    }
    for g in growth_per_round(Profile::Ns3, None) {
        assert!((g - 1.5).abs() < 0.1, "per-ACK counting: growth {g}");
    }
}

#[test]
fn lost_syn_is_retransmitted_after_the_syn_timeout() {
    let mut cfg = path(10_000_000, 10 * MS, 100);
    cfg.link_changes = vec![
        LinkChangeConfig {
            at_ns: 0,
            link: "ab".into(),
            rate_bps: None,
            delay_ns: None,
            loss: None,
            up: Some(false),
        },
        LinkChangeConfig {
            at_ns: 500 * MS,
            link: "ab".into(),
            rate_bps: None,
            delay_ns: None,
            loss: None,
            up: Some(true),
        },
    ];
    cfg.tcp_flows = vec![flow("f", Some(14_000), Profile::Rfc)];
    let r = run(&cfg).unwrap();
    let t = &r.tcp_flows[0];
    assert_eq!(t.syn_retransmits, 1);
    assert_eq!(t.bytes_delivered, 14_000);
    // The second SYN leaves at 1 s (RFC 6298 initial RTO).
    assert!(t.fct_ns.unwrap() > S && t.fct_ns.unwrap() < S + 100 * MS, "{t:?}");
    assert_eq!(t.retransmits_fast + t.retransmits_rto, 0);
}

#[test]
fn a_whole_lost_window_recovers_by_rto() {
    // The link carrying data goes down just after the handshake and comes
    // back before the RTO: every segment of the first window is lost.
    let mut cfg = path(10_000_000, 10 * MS, 100);
    cfg.link_changes = vec![link_state(21 * MS, "ab", false), link_state(300 * MS, "ab", true)];
    cfg.tcp_flows = vec![flow("f", Some(20 * 1400), Profile::Rfc)];
    let r = run(&cfg).unwrap();
    let t = &r.tcp_flows[0];
    assert_eq!(t.bytes_delivered, 20 * 1400);
    assert_eq!(t.rto_count, 1, "{t:?}");
    assert!(t.retransmits_rto >= 10, "{t:?}");
    assert_eq!(t.retransmits_fast, 0);
    // Each retransmission is counted once: segments sent = 20 new + retransmissions.
    assert_eq!(t.segments_sent, 20 + t.retransmits_rto);
}

/// A — fast link — R — bottleneck — B, with fast reverse links.
fn dumbbell(bottleneck_bps: u64, one_way_ns: u64, buffer_pkts: u32, senders: usize) -> ScenarioConfig {
    let mut nodes = vec![node("R", NodeKind::Router), node("B", NodeKind::Host)];
    let mut links = vec![
        link("r-b", "R", "B", bottleneck_bps, one_way_ns / 2, droptail(buffer_pkts)),
        link("b-r", "B", "R", 1_000_000_000, one_way_ns / 2, droptail(10_000)),
    ];
    for i in 0..senders {
        let a = format!("A{i}");
        nodes.push(node(&a, NodeKind::Host));
        links.push(link(
            &format!("{a}-r"),
            &a,
            "R",
            1_000_000_000,
            one_way_ns / 2,
            droptail(10_000),
        ));
        links.push(link(
            &format!("r-{a}"),
            "R",
            &a,
            1_000_000_000,
            one_way_ns / 2,
            droptail(10_000),
        ));
    }
    scenario(1, 60 * S, nodes, links)
}

#[test]
fn one_flow_fills_a_bdp_buffer() {
    // 10 Mbit/s, 100 ms RTT: BDP = 125 000 B = 86 packets of 1452 B.
    let mut cfg = dumbbell(10_000_000, 50 * MS, 86, 1);
    let mut f = flow("f", None, Profile::Rfc);
    f.src = "A0".into();
    cfg.tcp_flows = vec![f];
    cfg.stop_time_ns = 60 * S;
    let first = run(&cfg).unwrap();
    let exit = first.tcp_flows[0].slow_start_exit_ns.expect("a loss ends slow start");
    // Same seed, same run: measure the bottleneck from the first loss on.
    let mut sim = mpsim_core::build::build(&cfg).unwrap();
    sim.run_until(mpsim_core::time::SimTime(exit + 2 * S));
    let before = sim.net.links[0].counters.busy_ns;
    sim.run();
    let busy = sim.net.links[0].counters.busy_ns - before;
    let util = busy as f64 / (60 * S - exit - 2 * S) as f64;
    assert!(util >= 0.95, "utilisation after the first loss {util}");
}

fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    s * s / (xs.len() as f64 * s2)
}

#[test]
fn four_reno_flows_share_fairly() {
    let mut cfg = dumbbell(20_000_000, 40 * MS, 70, 4);
    cfg.tcp_flows = (0..4)
        .map(|i| {
            let mut f = flow(&format!("f{i}"), None, Profile::Rfc);
            f.src = format!("A{i}");
            f.start_ns = i as u64 * 100 * MS;
            f
        })
        .collect();
    let r = run(&cfg).unwrap();
    let bytes: Vec<f64> = r.tcp_flows.iter().map(|f| f.bytes_delivered as f64).collect();
    let j = jain(&bytes);
    assert!(j >= 0.95, "Jain's index {j}: {bytes:?}");
    let total: f64 = bytes.iter().sum::<f64>() * 8.0 / 60.0;
    assert!(total > 0.9 * 20e6 * 1400.0 / 1452.0, "aggregate goodput {total}");
}

#[test]
fn same_seed_same_tcp_results() {
    let mut cfg = path(10_000_000, 20 * MS, 50);
    cfg.links[0].loss = LossConfig::Bernoulli { p: 0.01 };
    cfg.tcp_flows = vec![flow("f", Some(2_000_000), Profile::Linux)];
    let a = run(&cfg).unwrap();
    let b = run(&cfg).unwrap();
    assert_eq!(a, b);
    cfg.seed = 2;
    let c = run(&cfg).unwrap();
    assert_ne!(a.tcp_flows[0], c.tcp_flows[0]);
}

#[test]
fn flows_in_sequence_start_a_gap_after_the_previous_completes() {
    let mut cfg = path(10_000_000, 10 * MS, 100);
    let mut f = flow("s", Some(100_000), Profile::Rfc);
    f.sequence = Some(SequenceConfig {
        count: 5,
        gap_mean_ns: 300 * MS,
        gap_distribution: GapDistribution::Constant,
    });
    cfg.tcp_flows = vec![f.clone()];
    let r = run(&cfg).unwrap();
    assert_eq!(r.tcp_flows.len(), 5);
    for (k, w) in r.tcp_flows.windows(2).enumerate() {
        assert_eq!(w[0].name, format!("s#{k}"));
        assert_eq!(w[1].first_syn_ns.unwrap(), w[0].completed_ns.unwrap() + 300 * MS);
    }
    assert!(r.tcp_flows.iter().all(|t| t.bytes_delivered == 100_000));
    // Exponential gaps: random, reproducible, mean near 300 ms over many flows.
    f.sequence = Some(SequenceConfig {
        count: 200,
        gap_mean_ns: 300 * MS,
        gap_distribution: GapDistribution::Exponential,
    });
    cfg.tcp_flows = vec![f];
    cfg.stop_time_ns = 1000 * S;
    let r = run(&cfg).unwrap();
    let gaps: Vec<f64> = r
        .tcp_flows
        .windows(2)
        .map(|w| (w[1].first_syn_ns.unwrap() - w[0].completed_ns.unwrap()) as f64 / 1e9)
        .collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    // sd of the mean of 199 exponential gaps: 0.3/sqrt(199) = 0.021 s.
    assert!((mean - 0.3).abs() < 0.07, "mean gap {mean}");
    assert_eq!(r, run(&cfg).unwrap());
}

#[test]
fn stop_when_complete_ends_the_run_at_the_watched_completion_and_changes_nothing_before() {
    let mut cfg = path(10_000_000, 10 * MS, 50);
    cfg.stop_time_ns = 30 * S;
    cfg.tcp_flows = vec![
        flow("short", Some(200 * 1400), Profile::Rfc),
        flow("bulk", None, Profile::Rfc),
    ];
    cfg.udp_flows = vec![cbr("u", "A", "B", 500_000, 1000, 0, None)];
    let full = run(&cfg).unwrap();
    cfg.stop_when_complete = vec!["short".into()];
    let early = run(&cfg).unwrap();
    let done = full.tcp_flows[0].completed_ns.expect("the short flow completes");
    assert_eq!(early.end_time_ns, done);
    assert!(early.events_processed < full.events_processed);
    assert_eq!(early.tcp_flows[0], full.tcp_flows[0]);
    assert!(early.tcp_flows[1].completed_ns.is_none());

    cfg.stop_when_complete = vec!["shrot".into()];
    let e = run(&cfg).unwrap_err().to_string();
    assert!(
        e.contains("stop_when_complete[0]: unknown flow or connection 'shrot'"),
        "{e}"
    );
}

#[test]
fn an_mss_beyond_an_ip_datagram_is_a_config_error() {
    // The MSS option is a 16-bit field (RFC 9293 §3.2), and the scenario
    // files allow 64 … 65 535. Larger values are refused by name instead of
    // overflowing the 32-bit packet size on the first full segment.
    for (mss, ok) in [(65_495, true), (65_535, true), (65_536, false), (u32::MAX, false)] {
        let mut cfg = path(10_000_000, 10 * MS, 100);
        let mut f = flow("f", Some(100_000), Profile::Rfc);
        f.tcp.mss = Some(mss);
        cfg.tcp_flows = vec![f];
        match mpsim_core::build::build(&cfg) {
            Ok(mut sim) if ok => {
                sim.run();
                assert_eq!(sim.results().tcp_flows[0].bytes_delivered, 100_000, "mss {mss}");
            }
            Ok(_) => panic!("mss {mss} accepted"),
            Err(e) if !ok => {
                assert_eq!(e[0].path, "tcp_flows[0].tcp.mss");
                assert!(e[0].message.contains(&mss.to_string()), "{}", e[0].message);
            }
            Err(e) => panic!("mss {mss}: {e}"),
        }
    }
}
