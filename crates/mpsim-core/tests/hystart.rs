//! HyStart++ (RFC 9406) end to end.

mod common;

use common::*;
use mpsim_core::build::build;
use mpsim_core::config::*;
use mpsim_core::slowstart::hystart::{HyStartPhase, HyStartState};
use mpsim_core::slowstart::{HyStartConfig, SlowStartConfig, Ss};
use mpsim_core::time::{SimDuration, SimTime};
use mpsim_core::Simulator;

fn bulk(hystart: Option<HyStartConfig>, profile: Profile) -> TcpFlowConfig {
    TcpFlowConfig {
        name: "f".into(),
        src: "A".into(),
        dst: "B".into(),
        tcp: TcpOptions {
            profile,
            hystart,
            ..TcpOptions::default()
        },
        trace: true,
        ..TcpFlowConfig::default()
    }
}

fn hystart_state(sim: &Simulator, conn: usize, r: usize) -> HyStartState {
    match &sim.connections[conn].ss {
        Ss::HyStart(h) => h.state[r],
        other => panic!("not HyStart++: {other:?}"),
    }
}

fn drops(sim: &Simulator, link: usize) -> u64 {
    sim.net.links[link].counters.dropped_pkts.iter().sum()
}

/// 10 Mbit/s, 50 ms of propagation per round trip, 600 packets of buffer
/// (about 14 BDPs), one CUBIC flow (`rfc` profile: delayed ACKs every two
/// segments, SACK).
fn bottleneck(hystart: Option<HyStartConfig>) -> ScenarioConfig {
    let mut cfg = host_pair(10_000_000, 25 * MS, 600, 6 * S);
    let mut f = bulk(hystart, Profile::Rfc);
    f.cc = Some(CcConfig::Cubic {
        config: Default::default(),
    });
    cfg.tcp_flows = vec![f];
    cfg
}

// Wire sizes: a data segment is 1400 + 40 + 12 (timestamps) = 1452 bytes,
// 1161.6 µs at 10 Mbit/s; a pure ACK 52 bytes, 41.6 µs. Base RTT 51.2032 ms;
// BDP = 51.2032 ms / 1161.6 µs = 44.08 packets.
const PKT_NS: u64 = 1_161_600;
const BASE_RTT_NS: u64 = 50 * MS + PKT_NS + 41_600;

#[test]
fn hystart_leaves_slow_start_before_the_buffer_overflows() {
    // Without HyStart++ slow start ends with the first loss: the window
    // overshoots BDP + buffer (644 packets) and the buffer overflows.
    let mut sim = build(&bottleneck(None)).unwrap();
    run_to_slow_start_exit(&mut sim, 6000);
    let st = &sim.connections[0].subflows[0].sender.stats;
    assert_eq!(st.fast_recoveries, 1, "standard slow start ends by a loss");
    let plain_exit_cwnd = st.cwnd_at_slow_start_exit;
    assert!(plain_exit_cwnd > 644 * 1400, "{plain_exit_cwnd}");
    assert!(drops(&sim, 0) > 100, "{} drops", drops(&sim, 0));
    sim.run();
    let plain = sim.results().tcp_flows[0].clone();
    assert!(plain.retransmits_fast + plain.retransmits_rto > 100);

    // With it, CSS ends (ssthresh = cwnd) with not one packet lost and
    // nothing retransmitted, at a third of the window standard slow start
    // reached.
    let mut sim = build(&bottleneck(Some(HyStartConfig::default()))).unwrap();
    let exit_ms = run_to_slow_start_exit(&mut sim, 6000);
    let hs = hystart_state(&sim, 0, 0);
    let st = sim.connections[0].subflows[0].sender.stats.clone();
    assert_eq!(hs.phase, HyStartPhase::Done);
    assert_eq!(hs.css_entries, 1);
    assert_eq!(hs.css_spurious_exits, 0);
    assert_eq!(st.slow_start_exit_at, hs.css_done_at);
    assert_eq!(exit_ms * MS, hs.css_done_at.unwrap().nanos().div_ceil(MS) * MS);
    assert_eq!(st.cwnd_at_slow_start_exit, hs.cwnd_at_css_done);
    assert_eq!(sim.connections[0].ccs[0].ssthresh, hs.cwnd_at_css_done);
    assert_eq!((st.fast_recoveries, st.rto_count), (0, 0));
    assert_eq!(st.retransmits_fast + st.retransmits_rto, 0);
    assert_eq!(drops(&sim, 0), 0);
    assert!(st.cwnd_at_slow_start_exit < plain_exit_cwnd / 2);
    // CSS multiplies the window by 1 + 1/4 per round for five rounds (the
    // first partial): at most 1.25⁵ ≈ 3.05 times the entry window.
    let growth = hs.cwnd_at_css_done as f64 / hs.cwnd_at_first_css_entry as f64;
    assert!((2.0..=3.06).contains(&growth), "CSS grew cwnd {growth:.2} times");
    sim.run();
    let with = &sim.results().tcp_flows[0];
    assert_eq!(with.retransmits_fast + with.retransmits_rto, 0);
}

#[test]
fn css_starts_in_the_first_round_whose_minimum_rtt_shows_a_standing_queue() {
    // While each slow-start train is shorter than the BDP the bottleneck
    // empties between trains, and every round's minimum RTT is the base
    // RTT plus at most a packet or two. The first train longer than
    // BDP + RttThresh·C leaves a standing queue for the next one, whose
    // samples all exceed the base RTT by at least RttThresh: HyStart++ must
    // enter CSS in that round, no earlier. Trains double, so the entry
    // window lies between 2·(BDP + RttThresh·C) and 4·(BDP + RttThresh·C)
    // plus the N_RTT_SAMPLE ACKs (two segments each) it waits for.
    let cfg = HyStartConfig::default();
    let mut sim = build(&bottleneck(Some(cfg))).unwrap();
    let mut round_minima = Vec::new();
    let mut rounds = 0;
    let mut t = 0;
    while hystart_state(&sim, 0, 0).first_css_entry_at.is_none() {
        t += 1;
        assert!(t < 2000);
        sim.run_until(SimTime(t * MS));
        let hs = hystart_state(&sim, 0, 0);
        if hs.rounds != rounds && hs.phase == HyStartPhase::SlowStart {
            rounds = hs.rounds;
            round_minima.push(hs.last_round_min_rtt.unwrap().nanos());
        }
    }
    let hs = hystart_state(&sim, 0, 0);
    let base = SimDuration(BASE_RTT_NS);
    let thresh = cfg.rtt_thresh(base).nanos(); // 6.40 ms
    assert_eq!(thresh, BASE_RTT_NS / 8);
    assert!(round_minima.len() >= 3, "{round_minima:?}");
    for &m in &round_minima {
        // Base RTT, plus at most two packets queued ahead.
        assert!(
            (BASE_RTT_NS..=BASE_RTT_NS + 2 * PKT_NS).contains(&m),
            "round minimum {m} ns"
        );
    }
    let baseline = hs.css_baseline_min_rtt.unwrap().nanos();
    assert!(baseline >= BASE_RTT_NS + thresh, "baseline {baseline} ns");
    assert_eq!(drops(&sim, 0), 0);
    let rate_pkts = thresh as f64 / PKT_NS as f64; // RttThresh·C = 5.51 packets
    let bdp = BASE_RTT_NS as f64 / PKT_NS as f64;
    let entry = hs.cwnd_at_first_css_entry as f64 / 1400.0;
    let (lo, hi) = (
        2.0 * (bdp + rate_pkts),
        4.0 * (bdp + rate_pkts) + 2.0 * cfg.n_rtt_sample as f64,
    );
    assert!(
        entry >= lo && entry <= hi,
        "entry cwnd {entry} segments, predicted [{lo:.1}, {hi:.1}]"
    );
    // The queue that raised the RTT is there: the train head's queueing
    // delay (baseline − base RTT) in packets is at least RttThresh·C.
    assert!((baseline - BASE_RTT_NS) as f64 / PKT_NS as f64 >= rate_pkts);
}

/// The MPTCP pair of uncoupled subflows in the `rfc` profile.
fn mptcp(hystart: Option<HyStartConfig>, slow_start: SlowStartConfig) -> ScenarioConfig {
    let tcp = TcpOptions {
        profile: Profile::Rfc,
        hystart,
        ..TcpOptions::default()
    };
    mptcp_pair(
        CcConfig::Uncoupled {
            config: Default::default(),
        },
        slow_start,
        tcp,
    )
}

#[test]
fn each_mptcp_subflow_runs_its_own_hystart() {
    let mut sim = build(&mptcp(Some(HyStartConfig::default()), SlowStartConfig::default())).unwrap();
    run_until_all_left_slow_start(&mut sim, 6000);
    for r in 0..2 {
        let hs = hystart_state(&sim, 0, r);
        let st = &sim.connections[0].subflows[r].sender.stats;
        // Each subflow saw the shared queue raise its own RTT and ended
        // its own CSS, before any loss.
        assert!(hs.css_entries >= 1, "subflow {r}: {hs:?}");
        assert_eq!(hs.phase, HyStartPhase::Done);
        assert_eq!(st.slow_start_exit_at, hs.css_done_at, "subflow {r}");
        assert_eq!(sim.connections[0].ccs[r].ssthresh, hs.cwnd_at_css_done);
        assert_eq!(st.retransmits_fast + st.retransmits_rto, 0);
    }
    // Their rounds are their own.
    assert_ne!(
        hystart_state(&sim, 0, 0).css_done_at,
        hystart_state(&sim, 0, 1).css_done_at
    );
    assert_eq!(drops(&sim, 0), 0);
    assert_eq!(sim.connections[0].stats.retransmits_before_all_left_slow_start, 0);
}

#[test]
fn hystart_with_a_coupled_slow_start_is_rejected() {
    let cfg = mptcp(
        Some(HyStartConfig::default()),
        SlowStartConfig::Css {
            config: Default::default(),
        },
    );
    let Err(e) = build(&cfg) else { panic!("not rejected") };
    assert_eq!(e[0].path, "mptcp_connections[0].tcp.hystart");
    assert!(e[0].message.contains("'css'"), "{}", e[0].message);
}

fn flow_json(hystart: &str) -> String {
    format!(
        r#"{{"stop_time_ns": 1000000000,
            "nodes": [{{"name": "A"}}, {{"name": "B"}}],
            "links": [{{"name": "ab", "from": "A", "to": "B", "rate_bps": 10000000, "delay_ns": 1000000}},
                      {{"name": "ba", "from": "B", "to": "A", "rate_bps": 10000000, "delay_ns": 1000000}}],
            "tcp_flows": [{{"name": "f", "src": "A", "dst": "B", "tcp": {{"profile": "rfc"{hystart}}}}}]}}"#
    )
}

#[test]
fn config_parses_with_the_rfc_defaults_and_is_off_unless_given() {
    let off = ScenarioConfig::from_json(&flow_json("")).unwrap();
    assert_eq!(off.tcp_flows[0].tcp.hystart, None);
    let sim = build(&off).unwrap();
    assert!(matches!(sim.connections[0].ss, Ss::Standard(_)));
    assert_eq!(sim.connections[0].params.hystart, None);
    for p in [Profile::Linux, Profile::Ns3, Profile::Rfc] {
        assert_eq!(p.params().hystart, None);
    }

    let on = ScenarioConfig::from_json(&flow_json(r#", "hystart": {}"#)).unwrap();
    let h = on.tcp_flows[0].tcp.hystart.unwrap();
    assert_eq!(h, HyStartConfig::default());
    assert_eq!(
        (
            h.min_rtt_thresh_ns,
            h.max_rtt_thresh_ns,
            h.min_rtt_divisor,
            h.n_rtt_sample
        ),
        (4_000_000, 16_000_000, 8, 8)
    );
    assert_eq!((h.css_growth_divisor, h.css_rounds, h.abc_limit_mss), (4, 5, Some(8)));
    let sim = build(&on).unwrap();
    assert!(matches!(sim.connections[0].ss, Ss::HyStart(_)));

    let some =
        ScenarioConfig::from_json(&flow_json(r#", "hystart": {"css_rounds": 3, "abc_limit_mss": null}"#)).unwrap();
    let h = some.tcp_flows[0].tcp.hystart.unwrap();
    assert_eq!(h.css_rounds, 3);
    assert_eq!(h.abc_limit_mss, None);
    assert_eq!(h.css_growth_divisor, 4);
}

#[test]
fn invalid_constants_name_their_field() {
    for (field, value) in [
        ("min_rtt_thresh_ns", "0"),
        ("max_rtt_thresh_ns", "3000000"),
        ("min_rtt_divisor", "0"),
        ("n_rtt_sample", "0"),
        ("css_growth_divisor", "1"),
        ("css_rounds", "0"),
        ("abc_limit_mss", "0"),
    ] {
        let cfg = ScenarioConfig::from_json(&flow_json(&format!(r#", "hystart": {{"{field}": {value}}}"#))).unwrap();
        let Err(e) = build(&cfg) else { panic!("not rejected") };
        assert_eq!(e[0].path, format!("tcp_flows[0].tcp.hystart.{field}"), "{e}");
        assert!(e[0].message.contains(value), "{e}");
    }
    let e = ScenarioConfig::from_json(&flow_json(r#", "hystart": {"rounds": 3}"#)).unwrap_err();
    assert!(e.path.starts_with("tcp_flows[0].tcp.hystart"), "{e}");
    assert!(e.message.contains("rounds"), "{e}");
}
