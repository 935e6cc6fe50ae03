//! Subflows added and removed during a run (RFC 8684 §3.4 ADD_ADDR /
//! REMOVE_ADDR, §3.3.8 subflow close).

mod common;

use common::*;
use mpsim_core::build::build;
use mpsim_core::config::*;
use mpsim_core::results::{MptcpConnectionResult, RunResults};
use mpsim_core::run;
use mpsim_core::slowstart::SlowStartConfig;
use mpsim_core::time::SimTime;
use mpsim_core::transport::mptcp::SubflowEventOutcome;

/// Both paths: 10 Mbit/s bottleneck, 40 ms round trip.
const RATE: u64 = 10_000_000;

/// Two disjoint equal paths with a bottleneck buffer of two
/// bandwidth-delay products (35 packets each), so a lone subflow keeps its
/// bottleneck busy.
fn paths() -> ScenarioConfig {
    let mut cfg = two_paths([RATE; 2], [20 * MS; 2], 70);
    cfg.stop_time_ns = 60 * S;
    cfg
}

fn conn(src_addrs: &[&str], size: u64, cc: CcConfig) -> MptcpConnectionConfig {
    MptcpConnectionConfig {
        name: "mp".into(),
        src_addrs: src_addrs.iter().map(|&a| a.into()).collect(),
        dst_addrs: vec!["D".into()],
        size_bytes: Some(size),
        cc: Some(cc),
        // These tests time the joins by the RFC's rule: data from the
        // join's SYN-ACK (the Linux rule is tested on its own below).
        tcp: TcpOptions {
            mptcp_join: Some(MptcpJoin::Established),
            ..linux()
        },
        ..MptcpConnectionConfig::default()
    }
}

fn event(at_ns: u64, action: SubflowAction, src: &str, dst: &str) -> SubflowEventConfig {
    SubflowEventConfig {
        at_ns,
        action,
        src: src.into(),
        dst: dst.into(),
        index: None,
    }
}

fn down(at_ns: u64, link: &str) -> LinkChangeConfig {
    link_state(at_ns, link, false)
}

fn only(r: &RunResults) -> &MptcpConnectionResult {
    &r.mptcp_connections[0]
}

/// Every byte reached the application once and in order: the in-order
/// count is the size, and every byte a subflow carried is either part of
/// it or counted as a duplicate at the data level.
fn assert_delivered_once(c: &MptcpConnectionResult, size: u64) {
    assert!(c.completed_ns.is_some(), "{c:#?}");
    assert_eq!(c.bytes_delivered, size);
    let carried: u64 = c.subflows.iter().map(|s| s.bytes_received).sum();
    assert_eq!(carried, size + c.data_duplicate_bytes, "{c:#?}");
}

#[test]
fn a_subflow_added_later_doubles_the_capacity_from_then_on() {
    let size = 10_000_000;
    let t_add = 2 * S;
    let mut cfg = paths();
    cfg.mptcp_connections = vec![conn(
        &["S1"],
        size,
        CcConfig::Uncoupled {
            config: Default::default(),
        },
    )];
    let alone = run(&cfg).unwrap();
    let fct_alone = only(&alone).fct_ns.unwrap();
    assert_eq!(only(&alone).subflows.len(), 1);

    cfg.mptcp_connections[0].subflow_events = vec![event(t_add, SubflowAction::Add, "S2", "D")];
    // The MP_JOIN handshake on path B: SYN out and SYN-ACK back, 40 ms of
    // propagation plus the serialisation of two small packets per hop
    // (under 0.3 ms); path B is idle until then.
    let mut sim = build(&cfg).unwrap();
    sim.run_until(SimTime(t_add + 40 * MS));
    let early = sim.results();
    let b = &only(&early).subflows[1];
    assert_eq!(b.added_ns, Some(t_add));
    assert_eq!(b.established_ns, None, "no handshake is shorter than one RTT");
    assert_eq!(b.flow.segments_sent, 0);
    // Data sent at establishment needs another one-way trip (20 ms) to arrive.
    sim.run_until(SimTime(t_add + 60 * MS));
    let later = sim.results();
    let b = &only(&later).subflows[1];
    let established = b.established_ns.expect("the join completes after one RTT");
    assert!(
        (t_add + 40 * MS..t_add + 41 * MS).contains(&established),
        "established at {established}"
    );
    assert!(b.flow.segments_sent > 0);
    assert_eq!(b.bytes_received, 0, "bytes on B before T + RTT + one way");
    sim.run();
    let r = sim.results();
    let c = only(&r);
    assert_delivered_once(c, size);
    assert_eq!(c.subflow_events[0].outcome, SubflowEventOutcome::Applied);
    assert_eq!(c.subflow_events[0].applied_ns, Some(t_add));
    assert!(c
        .subflows
        .iter()
        .all(|s| s.removed_ns.is_none() && s.bytes_received > 0));
    // Path A alone would need fct_alone − T more after T; with twice the
    // capacity from T on, half of that: the saving is (fct_alone − T)/2.
    let fct = c.fct_ns.unwrap();
    let predicted = (fct_alone - t_add) as f64 / 2.0;
    let saving = fct_alone as f64 - fct as f64;
    assert!(
        (saving - predicted).abs() <= 0.15 * predicted,
        "alone {fct_alone} ns, with the add {fct} ns: saved {saving}, predicted {predicted}"
    );
}

#[test]
fn a_removed_subflow_hands_its_data_over_at_once() {
    let size = 10_000_000;
    let t_rm = 2 * S;
    let mut cfg = paths();
    // A receive buffer of 256 kB (about the window of one path with its
    // queue, 150 kB, and less than both): data lost on B holds back the
    // DATA_ACK, so the window, until it is sent again on A.
    let mut m = conn(
        &["S1", "S2"],
        size,
        CcConfig::Uncoupled {
            config: Default::default(),
        },
    );
    m.rcv_buffer_bytes = Some(256_000);
    m.subflow_events = vec![event(t_rm, SubflowAction::Remove, "S2", "D")];
    cfg.mptcp_connections = vec![m];
    let mut sim = build(&cfg).unwrap();
    sim.run_until(SimTime(t_rm));
    let at_removal = sim.results();
    let before = &only(&at_removal).subflows[1];
    assert_eq!(before.removed_ns, Some(t_rm));
    sim.run();
    let removed = sim.results();
    let c = only(&removed);
    assert_delivered_once(c, size);
    let b = &c.subflows[1];
    // Nothing sent on B after its removal, and no timeout was needed.
    assert_eq!(b.flow.segments_sent, before.flow.segments_sent);
    assert_eq!(b.flow.rto_count, 0);
    assert!(c.reinjected_chunks > 0);
    // Reinjected copies are the only source of duplicates.
    assert!(c.data_duplicate_bytes <= c.reinjected_chunks * 1448, "{c:#?}");
    assert_eq!(c.subflow_events[0].outcome, SubflowEventOutcome::Applied);

    // The same path silently going down at the same time (both directions):
    // its data waits for B's retransmission timeout before reinjection.
    let mut cfg = paths();
    let mut m = conn(
        &["S1", "S2"],
        size,
        CcConfig::Uncoupled {
            config: Default::default(),
        },
    );
    m.rcv_buffer_bytes = Some(256_000);
    cfg.mptcp_connections = vec![m];
    cfg.link_changes = vec![down(t_rm, "R2-D"), down(t_rm, "D-R2")];
    let failed = run(&cfg).unwrap();
    let f = only(&failed);
    assert_eq!(f.bytes_delivered, size);
    assert!(f.subflows[1].flow.rto_count > 0);
    let (fct_rm, fct_down) = (c.fct_ns.unwrap(), f.fct_ns.unwrap());
    assert!(fct_rm < fct_down, "removal {fct_rm} ns, path down {fct_down} ns");

    // After T only path A carries data and stays busy: the rest of the data
    // (what had not reached the application at T) needs its wire time at
    // 10 Mbit/s. A full segment is MSS + 40 (IP, TCP) + 12 (timestamps) +
    // 20 (DSS) bytes on the wire.
    let mss = 1448.0;
    let goodput_bytes_per_s = RATE as f64 / 8.0 * mss / (mss + 72.0);
    let rest = (size - only(&at_removal).bytes_delivered) as f64;
    let predicted = t_rm as f64 + rest / goodput_bytes_per_s * 1e9;
    let err = (fct_rm as f64 - predicted) / predicted;
    assert!(err.abs() < 0.05, "fct {fct_rm} ns, predicted {predicted} ns");
}

/// Starts on path A alone; B joins at 0.4 s; A is removed at 0.9 s (the
/// connection runs on B alone); A joins again at 1.4 s as a new subflow.
fn handover(cc: CcConfig, slow_start: SlowStartConfig, size: u64) -> ScenarioConfig {
    let mut cfg = paths();
    let mut m = conn(&["S1"], size, cc);
    m.slow_start = slow_start;
    m.subflow_events = vec![
        event(400 * MS, SubflowAction::Add, "S2", "D"),
        event(900 * MS, SubflowAction::Remove, "S1", "D"),
        event(1400 * MS, SubflowAction::Add, "S1", "D"),
    ];
    cfg.mptcp_connections = vec![m];
    cfg
}

#[test]
fn every_cc_and_slow_start_survives_late_joins_and_a_removal() {
    let ccs = [
        CcConfig::Uncoupled {
            config: Default::default(),
        },
        CcConfig::Ewtcp {
            config: Default::default(),
        },
        CcConfig::Coupled {
            config: Default::default(),
        },
        CcConfig::SemiCoupled {
            config: Default::default(),
        },
        CcConfig::Lia {
            config: Default::default(),
        },
        CcConfig::Olia {
            config: Default::default(),
        },
        CcConfig::Balia {
            config: Default::default(),
        },
        CcConfig::MpCubic {
            config: Default::default(),
        },
        CcConfig::UnMpCubic {
            config: Default::default(),
        },
    ];
    let slow_starts = [
        SlowStartConfig::default(),
        SlowStartConfig::Lisa {
            config: Default::default(),
        },
        SlowStartConfig::Css {
            config: Default::default(),
        },
        SlowStartConfig::Gsam {
            config: Default::default(),
        },
    ];
    let size = 4_000_000;
    for cc in &ccs {
        for ss in &slow_starts {
            let r = run(&handover(cc.clone(), ss.clone(), size)).unwrap();
            let c = only(&r);
            let what = format!("{cc:?} with {ss:?}");
            assert_delivered_once(c, size);
            assert_eq!(c.subflows.len(), 3, "{what}");
            assert!(
                c.subflow_events
                    .iter()
                    .all(|e| e.outcome == SubflowEventOutcome::Applied && e.applied_ns == Some(e.at_ns)),
                "{what}: {:?}",
                c.subflow_events
            );
            let [a, b, a2] = &c.subflows[..] else { unreachable!() };
            assert_eq!(a.removed_ns, Some(900 * MS), "{what}");
            assert_eq!((b.added_ns, a2.added_ns), (Some(400 * MS), Some(1400 * MS)));
            for s in [b, a2] {
                let est = s.established_ns.expect("joined");
                assert!(est >= s.added_ns.unwrap() + 40 * MS, "{what}: {s:#?}");
                assert!(s.bytes_received > 0, "{what}: subflow {} carried nothing", s.index);
            }
            // The removed subflow's congestion state leaves the sum at the end.
            let live_sum: u64 = [b, a2].iter().map(|s| s.flow.cwnd_bytes_at_end).sum();
            assert_eq!(c.sum_cwnd_bytes_at_end, live_sum, "{what}");
        }
    }
}

#[test]
fn subflow_events_are_deterministic() {
    let mut cfg = handover(
        CcConfig::Lia {
            config: Default::default(),
        },
        SlowStartConfig::Lisa {
            config: Default::default(),
        },
        3_000_000,
    );
    cfg.links[2].loss = LossConfig::Bernoulli { p: 0.01 };
    let a = run(&cfg).unwrap();
    assert_eq!(a, run(&cfg).unwrap());
    let json = serde_json::to_string(&a).unwrap();
    assert_eq!(json, serde_json::to_string(&run(&cfg).unwrap()).unwrap());
    assert!(json.contains(r#""removed_ns":900000000"#), "{json}");
    assert!(json.contains(r#""action":"remove""#), "{json}");
    cfg.seed = 2;
    assert_ne!(a.mptcp_connections[0], run(&cfg).unwrap().mptcp_connections[0]);
}

/// 1 MB over path A from 100 ms, with an add of path B at 100 ms, before
/// the connection is established; subflows join by rule `join`.
fn add_at_start(join: MptcpJoin) -> ScenarioConfig {
    let mut cfg = paths();
    let mut m = conn(
        &["S1"],
        1_000_000,
        CcConfig::Uncoupled {
            config: Default::default(),
        },
    );
    m.tcp.mptcp_join = Some(join);
    // A fixed connection buffer: the window never holds data back, so the
    // join's first data is when its handshake lets it go.
    m.rcv_buffer_bytes = Some(64 << 20);
    m.start_ns = 100 * MS;
    m.subflow_events = vec![event(100 * MS, SubflowAction::Add, "S2", "D")];
    cfg.mptcp_connections = vec![m];
    cfg
}

#[test]
fn an_add_before_establishment_joins_at_establishment() {
    let r = run(&add_at_start(MptcpJoin::Established)).unwrap();
    let c = only(&r);
    let first = c.subflows[0].established_ns.unwrap();
    let e = &c.subflow_events[0];
    assert_eq!(e.outcome, SubflowEventOutcome::Applied);
    assert_eq!(e.applied_ns, Some(first));
    assert_eq!(c.subflows[1].flow.first_syn_ns, Some(first));
    assert!(c.subflows[1].bytes_received > 0);
}

#[test]
fn under_linux_an_add_joins_at_full_establishment_and_sends_after_the_fourth_packet() {
    // Both paths 40 ms round trip. The connection starts at 100 ms; its
    // SYN-ACK is back at 140 ms and the receiver's ACK of the first data
    // (which makes it fully established, Linux `check_fully_established`)
    // at 180 ms (plus the first data's serialisation, about 1.3 ms): the add
    // of 100 ms joins then. Its SYN-ACK is back one round trip later and the
    // receiver's ACK of the third packet another one later: the first data.
    let mut sim = build(&add_at_start(MptcpJoin::Linux)).unwrap();
    sim.run_until(SimTime(260 * MS));
    let early = sim.results();
    let b = &only(&early).subflows[1];
    let syn = b.flow.first_syn_ns.expect("the join has started");
    assert!((180 * MS..183 * MS).contains(&syn), "join SYN at {syn}");
    let established = b.established_ns.expect("the join's SYN-ACK is back");
    assert!(
        (syn + 40 * MS..syn + 41 * MS).contains(&established),
        "SYN-ACK at {established}"
    );
    assert_eq!(b.flow.segments_sent, 0, "no data before the fourth packet");
    sim.run_until(SimTime(established + 41 * MS));
    assert!(only(&sim.results()).subflows[1].flow.segments_sent > 0);
    sim.run();
    assert_delivered_once(only(&sim.results()), 1_000_000);
}

#[test]
fn an_add_removed_while_waiting_for_establishment_is_cancelled() {
    // The MP_CAPABLE handshake takes 40 ms; the add at 0 waits for it and
    // its subflow is removed at 10 ms: it never opens.
    let mut cfg = paths();
    let mut m = conn(
        &["S1"],
        1_000_000,
        CcConfig::Uncoupled {
            config: Default::default(),
        },
    );
    m.subflow_events = vec![
        event(0, SubflowAction::Add, "S2", "D"),
        event(10 * MS, SubflowAction::Remove, "S2", "D"),
    ];
    cfg.mptcp_connections = vec![m];
    let r = run(&cfg).unwrap();
    let c = only(&r);
    assert_delivered_once(c, 1_000_000);
    let outcomes: Vec<_> = c.subflow_events.iter().map(|e| (e.outcome, e.applied_ns)).collect();
    assert_eq!(
        outcomes,
        vec![
            (SubflowEventOutcome::Cancelled, None),
            (SubflowEventOutcome::Applied, Some(10 * MS))
        ]
    );
    assert_eq!(c.subflows[1].flow.first_syn_ns, None);
    assert_eq!(c.subflows[1].removed_ns, Some(10 * MS));
}

#[test]
fn events_after_completion_and_removals_before_a_join_are_reported() {
    let mut cfg = paths();
    let mut m = conn(
        &["S1", "S2"],
        500_000,
        CcConfig::Uncoupled {
            config: Default::default(),
        },
    );
    // The join of S2 waits for a long join delay; it is removed before.
    m.join_delay_ns = 500 * MS;
    m.subflow_events = vec![
        event(200 * MS, SubflowAction::Remove, "S2", "D"),
        event(50 * S, SubflowAction::Add, "S2", "D1"),
    ];
    cfg.mptcp_connections = vec![m];
    let r = run(&cfg).unwrap();
    let c = only(&r);
    assert_delivered_once(c, 500_000);
    let b = &c.subflows[1];
    assert_eq!(b.removed_ns, Some(200 * MS));
    assert_eq!(
        (b.flow.first_syn_ns, b.established_ns, b.bytes_received),
        (None, None, 0)
    );
    assert_eq!(c.subflow_events[0].outcome, SubflowEventOutcome::Applied);
    assert_eq!(c.subflow_events[1].outcome, SubflowEventOutcome::ConnectionComplete);
    assert_eq!(c.subflow_events[1].applied_ns, None);
    assert_eq!(c.subflows[2].flow.first_syn_ns, None);
}

#[test]
fn ndiffports_removes_the_subflow_picked_by_index() {
    let mut cfg = paths();
    let mut m = conn(
        &["S1"],
        2_000_000,
        CcConfig::Uncoupled {
            config: Default::default(),
        },
    );
    m.path_manager = PathManager::Ndiffports { subflows: 3 };
    let mut rm = event(300 * MS, SubflowAction::Remove, "S1", "D");
    rm.index = Some(1);
    m.subflow_events = vec![rm];
    cfg.mptcp_connections = vec![m];
    let r = run(&cfg).unwrap();
    let c = only(&r);
    assert_delivered_once(c, 2_000_000);
    let removed: Vec<_> = c.subflows.iter().map(|s| s.removed_ns).collect();
    assert_eq!(removed, vec![None, Some(300 * MS), None]);
}

fn config_error(cfg: &ScenarioConfig) -> (String, String) {
    match build(cfg) {
        Err(e) => (e[0].path.clone(), e[0].message.clone()),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn invalid_subflow_events_name_the_field() {
    let base = |events: Vec<SubflowEventConfig>, ndiff: bool| {
        let mut cfg = paths();
        let mut m = conn(
            &["S1"],
            1_000_000,
            CcConfig::Uncoupled {
                config: Default::default(),
            },
        );
        m.start_ns = 10 * MS;
        if ndiff {
            m.path_manager = PathManager::Ndiffports { subflows: 2 };
        }
        m.subflow_events = events;
        cfg.mptcp_connections = vec![m];
        cfg
    };
    let p = "mptcp_connections[0].subflow_events";
    let add = |at, src: &str, dst: &str| event(at, SubflowAction::Add, src, dst);
    let rm = |at, src: &str, dst: &str| event(at, SubflowAction::Remove, src, dst);
    let cases: Vec<(ScenarioConfig, String, &str)> = vec![
        (
            base(vec![add(S, "S9", "D")], false),
            format!("{p}[0].src"),
            "unknown address 'S9'",
        ),
        (
            base(vec![add(S, "S2", "X")], false),
            format!("{p}[0].dst"),
            "unknown address 'X'",
        ),
        // D1 is on the receiving node, not the sender's.
        (
            base(vec![add(S, "D1", "D")], false),
            format!("{p}[0].src"),
            "not on the connection's sending node 'S'",
        ),
        (
            base(vec![add(S, "S2", "S1")], false),
            format!("{p}[0].dst"),
            "not on the connection's receiving node 'D'",
        ),
        (
            base(vec![add(S, "S2", "D"), add(5 * MS, "S2", "D")], false),
            format!("{p}[1].at_ns"),
            "start_ns (10000000)",
        ),
        (
            base(vec![rm(S, "S2", "D")], false),
            format!("{p}[0]"),
            "no subflow from 'S2' to 'D' exists at 1000000000 ns",
        ),
        // Removed twice: the second finds nothing (events are taken in time order).
        (
            base(vec![rm(2 * S, "S1", "D"), rm(S, "S1", "D")], false),
            format!("{p}[0]"),
            "no subflow from 'S1' to 'D'",
        ),
        // Removing before the add is not removing it.
        (
            base(vec![rm(S, "S2", "D"), add(2 * S, "S2", "D")], false),
            format!("{p}[0]"),
            "exists at 1000000000 ns",
        ),
        (
            base(vec![rm(S, "S1", "D")], true),
            format!("{p}[0].index"),
            "2 subflows from 'S1' to 'D'",
        ),
        (
            base(
                vec![SubflowEventConfig {
                    index: Some(0),
                    ..add(S, "S2", "D")
                }],
                false,
            ),
            format!("{p}[0].index"),
            "only a remove",
        ),
        (
            base(
                vec![SubflowEventConfig {
                    index: Some(5),
                    ..rm(S, "S1", "D")
                }],
                true,
            ),
            format!("{p}[0].index"),
            "no subflow 5",
        ),
    ];
    for (cfg, path, needle) in cases {
        let (got_path, message) = config_error(&cfg);
        assert_eq!(got_path, path, "{message}");
        assert!(message.contains(needle), "{path}: {message}");
    }
    // Through JSON, an unknown action is a parse error at its path.
    let mut cfg = base(vec![add(S, "S2", "D")], false);
    let mut v = serde_json::to_value(&cfg).unwrap();
    v["mptcp_connections"][0]["subflow_events"][0]["action"] = "move".into();
    match mpsim_core::ScenarioConfig::from_json(&v.to_string()) {
        Err(e) => assert_eq!(e.path, format!("{p}[0].action")),
        Ok(_) => panic!("accepted"),
    }
    // More than 64 subflows in all.
    cfg.mptcp_connections[0].subflow_events = (0..64).map(|k| add(S + k, "S2", "D")).collect();
    let (path, message) = config_error(&cfg);
    assert_eq!(path, format!("{p}[63]"), "{message}");
    assert!(message.contains("at most 64"), "{message}");
}
