//! Coupled slow starts (LISA, CSS, GSAM) end to end.

mod common;

use common::*;
use mpsim_core::config::*;
use mpsim_core::results::{MptcpConnectionResult, RunResults, TcpTraceResult};
use mpsim_core::run;
use mpsim_core::slowstart::{CssConfig, GsamConfig, LisaConfig, SlowStartConfig};

const MSS: u64 = 1400;

/// The CSS paper's shared-bottleneck line (§IV-A, Fig. 2(a)): S — R1 — R2 — D
/// with 10 ms access links at 100 Mbit/s and a 30 ms bottleneck R1 → R2 of
/// `bottleneck_bps` with a drop-tail buffer of `buffer_pkts` (RTT 100 ms).
/// U → R1 and R2 → V carry background UDP.
fn shared_line(bottleneck_bps: u64, buffer_pkts: u32) -> ScenarioConfig {
    let access = 100_000_000;
    let big = droptail(10_000);
    let mut links = Vec::new();
    for (a, b, rate, delay, q) in [
        ("S", "R1", access, 10 * MS, big.clone()),
        ("R1", "R2", bottleneck_bps, 30 * MS, droptail(buffer_pkts)),
        ("R2", "D", access, 10 * MS, big.clone()),
        ("U", "R1", access, 10 * MS, big.clone()),
        ("R2", "V", access, 10 * MS, big.clone()),
    ] {
        links.push(link(&format!("{a}-{b}"), a, b, rate, delay, q));
        let back_rate = if a == "R1" { bottleneck_bps } else { access };
        links.push(link(&format!("{b}-{a}"), b, a, back_rate, delay, big.clone()));
    }
    scenario(
        1,
        60 * S,
        vec![
            node("S", NodeKind::Host),
            node("U", NodeKind::Host),
            node("R1", NodeKind::Router),
            node("R2", NodeKind::Router),
            node("D", NodeKind::Host),
            node("V", NodeKind::Host),
        ],
        links,
    )
}

/// An MPTCP connection S → D with `subflows` subflows over the one address
/// pair (ndiffports), all through the shared bottleneck.
fn mptcp(subflows: u32, size: u64, profile: Profile, slow_start: SlowStartConfig) -> MptcpConnectionConfig {
    MptcpConnectionConfig {
        name: "mp".into(),
        src_addrs: vec!["S".into()],
        dst_addrs: vec!["D".into()],
        size_bytes: Some(size),
        path_manager: PathManager::Ndiffports { subflows },
        cc: Some(CcConfig::Lia {
            config: Default::default(),
        }),
        slow_start,
        tcp: TcpOptions {
            profile,
            initial_cwnd_segments: Some(10),
            ..TcpOptions::default()
        },
        trace: true,
        ..MptcpConnectionConfig::default()
    }
}

fn trace(r: &RunResults, subflow: u32) -> &TcpTraceResult {
    r.tcp_traces
        .iter()
        .find(|t| t.flow == "mp" && t.subflow == subflow)
        .expect("traced")
}

/// Index of the last row at or before `t`.
fn row_at(t: &TcpTraceResult, at: u64) -> Option<usize> {
    t.time_ns.iter().rposition(|&x| x <= at)
}

fn css() -> SlowStartConfig {
    SlowStartConfig::Css {
        config: CssConfig::default(),
    }
}

#[test]
fn css_leaves_slow_start_when_the_rate_first_exceeds_expected() {
    // Lossless and without queueing: every link at 100 Mbit/s, large buffers,
    // so both subflows see the same RTT (about 100 ms) and Alg. 1's test
    // Σ cwnd_j/RTT_j > con_ssthresh/baseRTT becomes Σ cwnd_j > con_ssthresh:
    // the connection leaves slow start with Σ cwnd in (65535, 65535 + one
    // increment], an increment being at most (α − 1)·2 MSS ≤ 1 MSS for the
    // delayed ACKs of two segments.
    let mut cfg = shared_line(100_000_000, 10_000);
    let mut m = mptcp(2, 3_000_000, Profile::Ns3, css());
    m.tcp.initial_ssthresh_bytes = Some(65_535);
    // Every data segment's ACK delayed alike (ns-3 ACKs a connection's first
    // one at once, which gives the first subflow's SRTT a 2 % head start).
    m.tcp.quickack_segments = Some(0);
    cfg.mptcp_connections = vec![m];
    let r = run(&cfg).unwrap();
    let c = &r.mptcp_connections[0];
    assert_eq!(c.bytes_delivered, 3_000_000);
    assert_eq!(c.retransmits_fast + c.retransmits_rto, 0);
    let exit = c.all_left_slow_start_ns.expect("left slow start");
    // Both subflows left together (Alg. 1 lines 11–17), not one by one.
    for sf in &c.subflows {
        assert_eq!(sf.flow.slow_start_exit_ns, Some(exit));
    }
    let sum = c.sum_cwnd_bytes_at_all_left_slow_start.unwrap();
    assert!(sum > 65_535 && sum <= 65_535 + MSS, "Σ cwnd at exit {sum}");
    // Each subflow stays below TCP's ssthresh: the exit is the coupled one.
    let (t0, t1) = (trace(&r, 0), trace(&r, 1));
    let (i0, i1) = (row_at(t0, exit).unwrap(), row_at(t1, exit).unwrap());
    assert_eq!(t0.cwnd_bytes[i0] + t1.cwnd_bytes[i1], sum);
    assert!(t0.cwnd_bytes[i0] < 65_535 && t1.cwnd_bytes[i1] < 65_535);
    // The condition itself, from the traced windows and smoothed RTTs: it
    // holds at the exit and did not hold at the ACK before it.
    let rate = |c0: u64, s0: u64, c1: u64, s1: u64| {
        let current = c0 as f64 / s0 as f64 + c1 as f64 / s1 as f64;
        let expected = 65_535.0 / s0.min(s1) as f64;
        (current, expected)
    };
    let (cur, exp) = rate(t0.cwnd_bytes[i0], t0.srtt_ns[i0], t1.cwnd_bytes[i1], t1.srtt_ns[i1]);
    assert!(cur > exp, "{cur} ≤ {exp}");
    let (r_exit, prev) = if t0.time_ns[i0] == exit { (0, i0) } else { (1, i1) };
    let (p0, p1) = if r_exit == 0 { (prev - 1, i1) } else { (i0, prev - 1) };
    let (cur, exp) = rate(t0.cwnd_bytes[p0], t0.srtt_ns[p0], t1.cwnd_bytes[p1], t1.srtt_ns[p1]);
    assert!(cur <= exp, "already {cur} > {exp} before the exit");
    // The RTTs are equal to within 1 %, which the prediction assumed.
    let (s0, s1) = (t0.srtt_ns[i0] as f64, t1.srtt_ns[i1] as f64);
    assert!((s0 / s1 - 1.0).abs() < 0.01, "{s0} vs {s1}");
    // After the exit the windows are those of congestion avoidance (LIA here).
    assert_eq!(t0.ssthresh_bytes[i0..].iter().min(), Some(&t0.cwnd_bytes[i0]));
}

#[test]
fn lisa_join_takes_ten_packets_and_the_old_subflow_ignores_ten_acks() {
    // The LISA paper's worked example end to end: lossless 100 Mbit/s path,
    // every segment acknowledged (the paper's footnote 3), and the second
    // subflow joining 150 ms after the first is established, when the first
    // has doubled twice to 40 packets, all in flight.
    let mut cfg = shared_line(100_000_000, 10_000);
    let mut m = mptcp(
        2,
        3_000_000,
        Profile::Rfc,
        SlowStartConfig::Lisa {
            config: LisaConfig::default(),
        },
    );
    m.tcp.delayed_ack = Some(false);
    m.join_delay_ns = 150 * MS;
    cfg.mptcp_connections = vec![m];
    let r = run(&cfg).unwrap();
    let (t0, t1) = (trace(&r, 0), trace(&r, 1));
    // The new subflow's first row is its establishment: IW 10 by credit.
    let join = t1.time_ns[0];
    assert_eq!(t1.cwnd_bytes[0], 10 * MSS);
    let before = row_at(t0, join).unwrap();
    assert_eq!(t0.cwnd_bytes[before], 40 * MSS);
    // The old subflow's next 10 ACKs find it at 30 and leave it there; the
    // 11th grows it by one packet.
    let after = &t0.cwnd_bytes[before + 1..];
    assert!(after[..10].iter().all(|&w| w == 30 * MSS), "{:?}", &after[..12]);
    assert_eq!(after[10], 31 * MSS);
    // Without LISA, the same moment: 40 and growing, and 10 for the new one.
    let mut cfg2 = cfg.clone();
    cfg2.mptcp_connections[0].slow_start = SlowStartConfig::default();
    let r2 = run(&cfg2).unwrap();
    let s0 = trace(&r2, 0);
    let b = row_at(s0, join).unwrap();
    assert_eq!(s0.cwnd_bytes[b + 1], 41 * MSS);
}

#[test]
fn gsam_switches_from_doubling_to_slower_growth_at_k() {
    // One subflow through a 5 Mbit/s bottleneck with a buffer too large to
    // overflow: past the bandwidth-delay product (about 45 packets) the
    // queue builds and the smoothed RTT rises from 100 ms. K = 130 ms.
    let k = 130 * MS;
    let base = |ss: SlowStartConfig| {
        let mut cfg = shared_line(5_000_000, 10_000);
        cfg.stop_time_ns = 4 * S;
        cfg.mptcp_connections = vec![mptcp(1, 2_000_000, Profile::Rfc, ss)];
        run(&cfg).unwrap()
    };
    let g = base(SlowStartConfig::Gsam {
        config: GsamConfig {
            k_ns: Some(k),
            ..GsamConfig::default()
        },
    });
    let s = base(SlowStartConfig::default());
    let (tg, ts) = (trace(&g, 0), trace(&s, 0));
    // Up to the first ACK whose smoothed RTT reaches K, GSAM is standard
    // slow start (RFC 3465, L = 2: doubling per round trip with delayed ACKs).
    let switch = tg.srtt_ns.iter().position(|&x| x >= k).expect("queue builds");
    assert_eq!(tg.time_ns[..switch], ts.time_ns[..switch]);
    assert_eq!(tg.cwnd_bytes[..switch], ts.cwnd_bytes[..switch]);
    assert!(tg.cwnd_bytes[switch] < ts.cwnd_bytes[switch]);
    // Doubling before: cwnd one smoothed RTT before the switch was half or
    // less of cwnd at the switch, give or take one delayed ACK.
    let t_sw = ts.time_ns[switch];
    let w_sw = ts.cwnd_bytes[switch - 1];
    let earlier = row_at(ts, t_sw - ts.srtt_ns[switch]).unwrap();
    let ratio_before = w_sw as f64 / ts.cwnd_bytes[earlier] as f64;
    assert!(ratio_before >= 1.8, "growth per RTT before K: {ratio_before}");
    // After: the standard slow start keeps adding one segment per segment
    // acknowledged, at the bottleneck's ACK rate (5 Mbit/s of 1452-byte
    // packets: about 215 segments in 0.5 s); GSAM adds CWND^(−∂) < 1 per
    // segment (CWND ≥ 70 segments here) and grows less than half as much.
    let later = |t: &TcpTraceResult| row_at(t, t_sw + 500 * MS).unwrap();
    let grown_s = (ts.cwnd_bytes[later(ts)] - ts.cwnd_bytes[switch - 1]) as f64 / MSS as f64;
    let grown_g = (tg.cwnd_bytes[later(tg)] - tg.cwnd_bytes[switch - 1]) as f64 / MSS as f64;
    assert!((190.0..=225.0).contains(&grown_s), "standard grew {grown_s} segments");
    assert!(grown_g < grown_s / 2.0, "GSAM grew {grown_g} segments vs {grown_s}");
    // And the queue it builds is smaller.
    let q = |r: &RunResults| r.links.iter().find(|l| l.name == "R1-R2").unwrap().max_queue_pkts;
    assert!(q(&g) < q(&s), "{} vs {}", q(&g), q(&s));
}

/// The CSS paper's shared-bottleneck experiment (§IV-B, Fig. 5 at 47
/// packets): a 400-packet (560 kB) MPTCP transfer with two subflows through
/// a 5 Mbit/s, 30 ms bottleneck with a drop-tail buffer of 47 packets
/// (RTT 100 ms), beside a 500 kbit/s UDP flow; IW 10, ssthresh =
/// con_ssthresh = 65535 bytes, ns-3 stack. The paper starts the short flow
/// at random in [2 s, 5 s]: here seed k starts it at 2 s + k·0.297 s, which
/// moves it against the UDP packets so that runs differ.
fn css_paper_run(seed: u64, slow_start: SlowStartConfig, cc: CcConfig) -> MptcpConnectionResult {
    let mut cfg = shared_line(5_000_000, 47);
    cfg.seed = seed;
    cfg.stop_time_ns = 40 * S;
    cfg.udp_flows = vec![cbr("udp", "U", "V", 500_000, 1000, 0, None)];
    let mut m = mptcp(2, 400 * MSS, Profile::Ns3, slow_start);
    m.tcp.initial_ssthresh_bytes = Some(65_535);
    m.cc = Some(cc);
    m.trace = false;
    m.start_ns = 2 * S + seed * 297 * MS;
    cfg.mptcp_connections = vec![m];
    run(&cfg).unwrap().mptcp_connections[0].clone()
}

fn css_paper_strategies() -> Vec<(&'static str, SlowStartConfig)> {
    vec![
        ("standard", SlowStartConfig::default()),
        (
            "lisa",
            SlowStartConfig::Lisa {
                config: LisaConfig::default(),
            },
        ),
        ("css", css()),
        (
            "gsam",
            // K from Eq. 15 with the experiment's bottleneck and buffer.
            SlowStartConfig::Gsam {
                config: GsamConfig {
                    bottleneck_rate_bps: 5_000_000,
                    bottleneck_buffer_pkts: Some(47),
                    ..GsamConfig::default()
                },
            },
        ),
    ]
}

#[test]
fn css_and_gsam_retransmit_less_than_standard_on_the_css_shared_bottleneck() {
    let lia = CcConfig::Lia {
        config: Default::default(),
    };
    let mut means = Vec::new();
    for (name, ss) in css_paper_strategies() {
        let (mut retx, mut fct) = (0u64, 0u64);
        for seed in 0..10 {
            let c = css_paper_run(seed, ss.clone(), lia.clone());
            assert_eq!(c.bytes_delivered, 400 * MSS, "{name} seed {seed}");
            retx += c.retransmits_fast + c.retransmits_rto;
            fct += c.fct_ns.unwrap();
        }
        let (retx, fct) = (retx as f64 / 10.0, fct as f64 / 10.0 / 1e9);
        println!("{name:>8}: mean retransmissions {retx:.1}, mean completion {fct:.3} s");
        means.push((name, retx, fct));
    }
    let retx = |n: &str| means.iter().find(|m| m.0 == n).unwrap().1;
    assert!(retx("css") < retx("standard"), "{means:?}");
    assert!(retx("gsam") < retx("standard"), "{means:?}");
}

#[test]
fn coupled_slow_starts_combine_with_any_congestion_avoidance() {
    for (cc_name, cc) in [
        (
            "olia",
            CcConfig::Olia {
                config: Default::default(),
            },
        ),
        (
            "uncoupled",
            CcConfig::Uncoupled {
                config: Default::default(),
            },
        ),
        (
            "balia",
            CcConfig::Balia {
                config: Default::default(),
            },
        ),
    ] {
        for (name, ss) in css_paper_strategies() {
            let c = css_paper_run(3, ss, cc.clone());
            assert_eq!(c.bytes_delivered, 400 * MSS, "{cc_name} + {name}");
            assert!(c.all_left_slow_start_ns.is_some(), "{cc_name} + {name}");
        }
    }
}

#[test]
fn slow_start_configuration_is_validated() {
    let cases = [
        (r#"{"type":"css","alpha":1.0}"#, "slow_start.alpha"),
        (
            r#"{"type":"css","con_ssthresh_bytes":0}"#,
            "slow_start.con_ssthresh_bytes",
        ),
        (r#"{"type":"css","max_increase_mss":0}"#, "slow_start.max_increase_mss"),
        (
            r#"{"type":"lisa","min_credit_segments":0}"#,
            "slow_start.min_credit_segments",
        ),
        (
            r#"{"type":"lisa","min_credit_segments":5,"max_credit_segments":4}"#,
            "slow_start.max_credit_segments",
        ),
        (r#"{"type":"gsam","k_ns":0}"#, "slow_start.k_ns"),
        (
            r#"{"type":"gsam","bottleneck_rate_bps":0}"#,
            "slow_start.bottleneck_rate_bps",
        ),
        (
            r#"{"type":"gsam","bottleneck_buffer_pkts":4,"bottleneck_buffer_bytes":4000}"#,
            "slow_start.bottleneck_buffer_bytes",
        ),
        (r#"{"type":"gsam","base_rtt_ns":0}"#, "slow_start.base_rtt_ns"),
    ];
    for (json, field) in cases {
        let mut cfg = shared_line(5_000_000, 47);
        let mut m = mptcp(2, 10 * MSS, Profile::Ns3, SlowStartConfig::default());
        m.slow_start = serde_json::from_str(json).unwrap();
        cfg.mptcp_connections = vec![m];
        match run(&cfg) {
            Err(mpsim_core::Error::Config(e)) => {
                assert_eq!(e[0].path, format!("mptcp_connections[0].{field}"), "{json}: {e}")
            }
            other => panic!("{json}: expected a configuration error, got {other:?}"),
        }
    }
    // Defaults: the type alone is enough, and unknown fields are refused.
    for json in [r#"{"type":"css"}"#, r#"{"type":"lisa"}"#, r#"{"type":"gsam"}"#] {
        let ss: SlowStartConfig = serde_json::from_str(json).unwrap();
        assert_ne!(ss, SlowStartConfig::default());
    }
    assert!(serde_json::from_str::<SlowStartConfig>(r#"{"type":"css","alpah":1.5}"#).is_err());
    let ss: SlowStartConfig = serde_json::from_str(r#"{"type":"css"}"#).unwrap();
    assert_eq!(ss, css());
}

#[test]
fn r_ss_counts_the_retransmissions_of_subflows_that_left_slow_start_earlier() {
    // LISA §V: R_ss is "the total number of retransmitted packets before the
    // last subflow exits slow-start". Subflow 0 overshoots a 5 Mbit/s
    // bottleneck with an 8-packet buffer, leaves slow start and recovers
    // alone; subflow 1 joins 2 s after subflow 0 is established and leaves
    // slow start on its own overshoot later. Every retransmission subflow 0
    // sent in its first 2 s precedes that exit and counts.
    let join_delay = 2 * S;
    let build = |stop: u64| {
        let mut cfg = shared_line(5_000_000, 8);
        cfg.stop_time_ns = stop;
        let mut m = mptcp(2, 3_000_000, Profile::Linux, SlowStartConfig::default());
        m.join_delay_ns = join_delay;
        m.trace = false;
        cfg.mptcp_connections = vec![m];
        cfg
    };
    let full = run(&build(60 * S)).unwrap();
    let c = &full.mptcp_connections[0];
    assert_eq!(c.bytes_delivered, 3_000_000);
    let exit = c.all_left_slow_start_ns.expect("both left slow start");
    let first_exit = c.subflows[0].flow.slow_start_exit_ns.unwrap();
    assert!(
        first_exit < join_delay && exit > join_delay + 100 * MS,
        "exits {first_exit}, {exit}"
    );
    // The same run cut off before the join: identical up to then.
    let early = run(&build(join_delay)).unwrap();
    let e = &early.mptcp_connections[0];
    let before_join = e.retransmits_fast + e.retransmits_rto;
    assert!(before_join >= 2, "{before_join} retransmissions before the join");
    let total = c.retransmits_fast + c.retransmits_rto;
    let r_ss = c.retransmits_before_all_left_slow_start;
    assert!(before_join <= r_ss && r_ss <= total, "{before_join} ≤ {r_ss} ≤ {total}");
}
