//! Linux CUBIC's HyStart end to end.

mod common;

use common::*;
use mpsim_core::build::build;
use mpsim_core::config::*;
use mpsim_core::slowstart::hystart_linux::{HyStartLinuxDetection, HyStartLinuxOption, HyStartLinuxState};
use mpsim_core::slowstart::{HyStartLinuxConfig, SlowStartConfig, Ss};
use mpsim_core::Simulator;

fn state(sim: &Simulator) -> HyStartLinuxState {
    match &sim.connections[0].ss {
        Ss::HyStartLinux(h) => h.state[0],
        other => panic!("not Linux HyStart: {other:?}"),
    }
}

fn drops(sim: &Simulator) -> u64 {
    sim.net.links[0].counters.dropped_pkts.iter().sum()
}

/// One CUBIC flow in the `linux` profile over `rate_bps`, 25 ms one way,
/// 600 packets of buffer.
/// One CUBIC flow of the `linux` profile over a bottleneck of `rate_bps`;
/// its receiver delays ACKs (two segments each) after the quick-ACK start,
/// without the profile's per-segment ACKs while the window opens, so that
/// the trains the tests below reason about are those of delayed ACKs.
fn bottleneck(rate_bps: u64, hystart_linux: Option<HyStartLinuxOption>) -> ScenarioConfig {
    let mut cfg = host_pair(rate_bps, 25 * MS, 600, 6 * S);
    cfg.tcp_flows = vec![TcpFlowConfig {
        name: "f".into(),
        src: "A".into(),
        dst: "B".into(),
        tcp: TcpOptions {
            profile: Profile::Linux,
            hystart_linux,
            quickack_window_growth: Some(false),
            ..TcpOptions::default()
        },
        cc: Some(CcConfig::Cubic {
            config: Default::default(),
        }),
        ..TcpFlowConfig::default()
    }];
    cfg
}

// Wire sizes (linux profile: 1400-byte MSS, timestamps): a data segment
// is 1452 bytes, 1161.6 µs at 10 Mbit/s; an ACK 52 bytes, 41.6 µs. Base
// RTT 51.2032 ms, 51 203 µs as Linux counts it; BDP 44.08 packets.
const BASE_RTT_US: u64 = 51_203;

#[test]
fn cubic_in_the_linux_profile_leaves_slow_start_before_the_first_loss() {
    // HyStart off: slow start ends with the first loss, the window past
    // BDP + buffer (644 packets).
    let mut sim = build(&bottleneck(10_000_000, Some(HyStartLinuxOption::Off))).unwrap();
    assert!(matches!(sim.connections[0].ss, Ss::Standard(_)));
    run_to_slow_start_exit(&mut sim, 6000);
    let st = &sim.connections[0].subflows[0].sender.stats;
    assert_eq!(st.fast_recoveries, 1);
    assert!(st.cwnd_at_slow_start_exit > 644 * 1400);
    assert!(drops(&sim) > 100);

    // Left out, the profile turns it on for CUBIC.
    let mut sim = build(&bottleneck(10_000_000, None)).unwrap();
    run_to_slow_start_exit(&mut sim, 6000);
    let hs = state(&sim);
    let st = sim.connections[0].subflows[0].sender.stats.clone();
    assert!(hs.found);
    assert_eq!(st.slow_start_exit_at, hs.detected_at);
    assert_eq!(st.cwnd_at_slow_start_exit, hs.cwnd_at_detection);
    assert_eq!(sim.connections[0].ccs[0].ssthresh, hs.cwnd_at_detection);
    assert_eq!((st.fast_recoveries, st.rto_count, drops(&sim)), (0, 0, 0));
    assert_eq!(st.retransmits_before_slow_start_exit, 0);
    // The RTT rise, not an ACK train: at 10 Mbit/s a delayed ACK of two
    // segments comes every 2.32 ms, more than hystart_ack_delta_us (2 ms),
    // so no train outlives its second ACK. delay_min is the base RTT and
    // the round's minimum exceeds it by more than 51.203/8 = 6.4 ms.
    assert_eq!(hs.detection, Some(HyStartLinuxDetection::Delay));
    assert_eq!(hs.delay_min_us, BASE_RTT_US);
    assert!(hs.curr_rtt_us > BASE_RTT_US + BASE_RTT_US / 8, "{hs:?}");
    // As for HyStart++: flights double, and the bottleneck empties between
    // them until one is longer than BDP + threshold·C (44.1 + 6.4 ms /
    // 1.1616 ms = 49.6 packets); the round after it sees the standing
    // queue and stops on its 9th sample (two segments per ACK): the exit
    // window lies between 2 and 4 times 49.6 segments, plus 18.
    let exit_segments = st.cwnd_at_slow_start_exit as f64 / 1400.0;
    assert!((99.2..=216.4).contains(&exit_segments), "{exit_segments}");
    sim.run();
    let res = &sim.results().tcp_flows[0];
    assert_eq!(res.slow_start_exit_ns, hs.detected_at.map(|t| t.nanos()));
}

#[test]
fn at_100_mbit_s_the_ack_train_ends_slow_start_above_the_bdp() {
    // 100 Mbit/s: a packet every 116.16 µs, a delayed ACK every 232 µs, so
    // while the bottleneck is busy the ACKs form one train. Base RTT
    // 50.120 ms (BDP 431.5 packets): the train must outlast (50 120 +
    // 1 000) / 2 = 25 560 µs (the ack delay is 1 ms at this rate).
    let mut sim = build(&bottleneck(100_000_000, None)).unwrap();
    run_to_slow_start_exit(&mut sim, 6000);
    let hs = state(&sim);
    let st = sim.connections[0].subflows[0].sender.stats.clone();
    assert_eq!(hs.detection, Some(HyStartLinuxDetection::AckTrain));
    assert_eq!(hs.delay_min_us, 50_120);
    let detected_us = hs.detected_at.unwrap().nanos() / 1_000;
    assert_eq!(hs.last_ack_us, detected_us);
    // The first ACK of the train past the threshold ends slow start: at
    // most one ACK gap (233 µs) later.
    let train_us = detected_us - hs.round_start_us;
    assert!((25_561..=25_560 + 233).contains(&train_us), "{hs:?}");
    // The queue is not yet standing for the delay test, and no packet is
    // lost: the exit window is above the BDP and below BDP + buffer.
    let exit_segments = st.cwnd_at_slow_start_exit / 1400;
    assert!((432..1031).contains(&exit_segments), "{exit_segments}");
    assert_eq!((st.fast_recoveries, st.rto_count, drops(&sim)), (0, 0, 0));
}

/// The MPTCP pair of subflows in the `linux` profile.
fn mptcp(cc: CcConfig, slow_start: SlowStartConfig, hystart_linux: Option<HyStartLinuxOption>) -> ScenarioConfig {
    let tcp = TcpOptions {
        hystart_linux,
        ..linux()
    };
    mptcp_pair(cc, slow_start, tcp)
}

#[test]
fn mptcp_subflows_run_it_under_cubic_only() {
    let cubic = CcConfig::Cubic {
        config: Default::default(),
    };
    let mut sim = build(&mptcp(cubic.clone(), SlowStartConfig::default(), None)).unwrap();
    run_until_all_left_slow_start(&mut sim, 6000);
    let Ss::HyStartLinux(h) = &sim.connections[0].ss else {
        panic!("not Linux HyStart")
    };
    for r in 0..2 {
        // Each subflow found its own exit in its own rounds, before any loss.
        let st = &sim.connections[0].subflows[r].sender.stats;
        assert!(h.state[r].found, "subflow {r}");
        assert_eq!(st.slow_start_exit_at, h.state[r].detected_at, "subflow {r}");
        assert_eq!(st.retransmits_fast + st.retransmits_rto, 0);
    }
    assert_eq!(drops(&sim), 0);
    // The coupled algorithms are not Linux's: no HyStart.
    let sim = build(&mptcp(
        CcConfig::Lia {
            config: Default::default(),
        },
        SlowStartConfig::default(),
        None,
    ))
    .unwrap();
    assert!(matches!(sim.connections[0].ss, Ss::Standard(_)));
    assert_eq!(sim.connections[0].params.hystart_linux, None);
    // A coupled slow start replaces the profile's HyStart ...
    let css = SlowStartConfig::Css {
        config: Default::default(),
    };
    let sim = build(&mptcp(cubic.clone(), css.clone(), None)).unwrap();
    assert!(matches!(sim.connections[0].ss, Ss::Css(_)));
    // ... and is an error with it asked for.
    let on = Some(HyStartLinuxOption::On(Default::default()));
    let Err(e) = build(&mptcp(cubic, css, on)) else {
        panic!("not rejected")
    };
    assert_eq!(e[0].path, "mptcp_connections[0].tcp.hystart_linux");
    assert!(e[0].message.contains("'css'"), "{e}");
}

fn flow_json(tcp: &str) -> String {
    format!(
        r#"{{"stop_time_ns": 1000000000,
            "nodes": [{{"name": "A"}}, {{"name": "B"}}],
            "links": [{{"name": "ab", "from": "A", "to": "B", "rate_bps": 10000000, "delay_ns": 1000000}},
                      {{"name": "ba", "from": "B", "to": "A", "rate_bps": 10000000, "delay_ns": 1000000}}],
            "tcp_flows": [{{"name": "f", "src": "A", "dst": "B", {tcp}}}]}}"#
    )
}

fn slow_start_of(tcp: &str) -> Ss {
    let cfg = ScenarioConfig::from_json(&flow_json(tcp)).unwrap();
    build(&cfg).unwrap().connections[0].ss.clone()
}

#[test]
fn on_in_the_linux_profile_with_cubic_and_switchable() {
    // linux + CUBIC (its default): on with the kernel's constants.
    let Ss::HyStartLinux(h) = slow_start_of(r#""tcp": {"profile": "linux"}"#) else {
        panic!()
    };
    let c = h.config;
    assert_eq!(c, HyStartLinuxConfig::default());
    assert_eq!(
        (c.ack_train, c.delay, c.low_window_segments, c.ack_delta_us),
        (true, true, 16, 2_000)
    );
    assert_eq!(
        (c.min_samples, c.delay_thresh_min_us, c.delay_thresh_max_us),
        (8, 4_000, 16_000)
    );
    assert_eq!(c.gso_max_size_bytes, 65_536);
    // Off with Reno, in the other profiles, and when switched off; ns3 +
    // CUBIC runs ns-3's `TcpCubic` slow start with its own HyStart instead,
    // unless the flow asks for Linux's.
    for tcp in [
        r#""tcp": {"profile": "linux"}, "cc": {"type": "reno"}"#,
        r#""tcp": {"profile": "rfc"}, "cc": {"type": "cubic"}"#,
        r#""tcp": {"profile": "ns3"}, "cc": {"type": "reno"}"#,
        r#""tcp": {"profile": "linux", "hystart_linux": false}"#,
    ] {
        assert!(matches!(slow_start_of(tcp), Ss::Standard(_)), "{tcp}");
    }
    let ns3 = r#""tcp": {"profile": "ns3"}, "cc": {"type": "cubic"}"#;
    assert!(matches!(slow_start_of(ns3), Ss::HyStartNs3(_)), "{ns3}");
    let ns3_linux = r#""tcp": {"profile": "ns3", "hystart_linux": true}, "cc": {"type": "cubic"}"#;
    assert!(matches!(slow_start_of(ns3_linux), Ss::HyStartLinux(_)), "{ns3_linux}");
    // Asked for: with any profile and algorithm, constants overridable.
    let tcp = r#""tcp": {"profile": "rfc", "hystart_linux": {"low_window_segments": 8, "ack_train": false}}"#;
    let Ss::HyStartLinux(h) = slow_start_of(tcp) else {
        panic!()
    };
    assert_eq!(
        (h.config.low_window_segments, h.config.ack_train, h.config.delay),
        (8, false, true)
    );
    assert!(matches!(
        slow_start_of(r#""tcp": {"profile": "rfc", "hystart_linux": true}"#),
        Ss::HyStartLinux(_)
    ));
    // HyStart++ asked for in the linux profile replaces it.
    assert!(matches!(
        slow_start_of(r#""tcp": {"profile": "linux", "hystart": {}}"#),
        Ss::HyStart(_)
    ));
}

#[test]
fn bad_settings_name_their_field() {
    let both = ScenarioConfig::from_json(&flow_json(r#""tcp": {"hystart": {}, "hystart_linux": true}"#)).unwrap();
    let Err(e) = build(&both) else { panic!("not rejected") };
    assert_eq!(e[0].path, "tcp_flows[0].tcp.hystart_linux");
    assert!(
        e[0].message.contains("hystart_linux") && e[0].message.contains("(hystart)"),
        "{e}"
    );
    let bounds = r#""tcp": {"hystart_linux": {"delay_thresh_min_us": 5000, "delay_thresh_max_us": 4000}}"#;
    let Err(e) = build(&ScenarioConfig::from_json(&flow_json(bounds)).unwrap()) else {
        panic!("not rejected")
    };
    assert_eq!(e[0].path, "tcp_flows[0].tcp.hystart_linux.delay_thresh_max_us");
    assert!(e[0].message.contains("5000") && e[0].message.contains("4000"), "{e}");
    let e = ScenarioConfig::from_json(&flow_json(r#""tcp": {"hystart_linux": {"low_window": 8}}"#)).unwrap_err();
    assert!(e.path.starts_with("tcp_flows[0].tcp.hystart_linux"), "{e}");
    assert!(e.message.contains("low_window"), "{e}");
    let e = ScenarioConfig::from_json(&flow_json(r#""tcp": {"hystart_linux": 1}"#)).unwrap_err();
    assert!(e.message.contains("true, false or a table"), "{e}");
}
