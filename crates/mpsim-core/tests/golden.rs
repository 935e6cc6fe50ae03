//! Golden results: fixed scenarios whose complete results per seed are
//! stored under `tests/golden/`. Any change in simulated behaviour shows up
//! here; regenerate deliberately with `MPSIM_UPDATE_GOLDEN=1 cargo test
//! -p mpsim-core --test golden` and review the diff.

mod common;

use common::*;
use mpsim_core::config::*;
use mpsim_core::run;

fn check(name: &str, cfg: &ScenarioConfig) {
    let results = run(cfg).expect("valid scenario");
    let text = serde_json::to_string_pretty(&results).unwrap() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{name}.json"));
    if std::env::var_os("MPSIM_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing; run with MPSIM_UPDATE_GOLDEN=1", path.display()));
    if want != text {
        let first = want.lines().zip(text.lines()).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "{name}: results differ from {} from line {}:\n  want: {}\n  got:  {}",
            path.display(),
            first + 1,
            want.lines().nth(first).unwrap_or(""),
            text.lines().nth(first).unwrap_or("")
        );
    }
}

/// Senders S0..S(n-1) → R1 → bottleneck → R2 → D0..D(n-1).
fn dumbbell(n: usize, profile: Profile, cc: Option<CcConfig>, seed: u64) -> ScenarioConfig {
    let mut nodes = vec![node("R1", NodeKind::Router), node("R2", NodeKind::Router)];
    let mut links = vec![
        link("R1-R2", "R1", "R2", 20_000_000, 10 * MS, droptail(50)),
        link("R2-R1", "R2", "R1", 20_000_000, 10 * MS, droptail(50)),
    ];
    let mut flows = Vec::new();
    for i in 0..n {
        let (s, d) = (format!("S{i}"), format!("D{i}"));
        for (h, r) in [(&s, "R1"), (&d, "R2")] {
            nodes.push(node(h, NodeKind::Host));
            links.push(link(
                &format!("{h}-{r}"),
                h,
                r,
                1_000_000_000,
                (2 + i as u64) * MS,
                droptail(1000),
            ));
            links.push(link(
                &format!("{r}-{h}"),
                r,
                h,
                1_000_000_000,
                (2 + i as u64) * MS,
                droptail(1000),
            ));
        }
        flows.push(TcpFlowConfig {
            name: format!("f{i}"),
            src: s,
            dst: d,
            start_ns: i as u64 * 100 * MS,
            size_bytes: if i % 2 == 0 { None } else { Some(300_000) },
            tcp: TcpOptions {
                profile,
                ..TcpOptions::default()
            },
            cc: cc.clone().or(Some(CcConfig::Reno {
                config: Default::default(),
            })),
            ..TcpFlowConfig::default()
        });
    }
    let mut cfg = scenario(seed, 5 * S, nodes, links);
    cfg.links[0].loss = LossConfig::Bernoulli { p: 0.002 };
    cfg.tcp_flows = flows;
    cfg.udp_flows = vec![UdpFlowConfig {
        name: "cross".into(),
        src: "S0".into(),
        dst: "D1".into(),
        packet_size_bytes: 500,
        start_ns: S,
        stop_ns: Some(4 * S),
        pattern: UdpPattern::OnOff {
            rate_bps: 4_000_000,
            on_mean_ns: 200 * MS,
            off_mean_ns: 300 * MS,
            distribution: PeriodDistribution::Exponential,
        },
    }];
    cfg
}

#[test]
fn golden_dumbbell_ns3_newreno() {
    check(
        "dumbbell_ns3_newreno",
        &dumbbell(
            4,
            Profile::Ns3,
            Some(CcConfig::Reno {
                config: Default::default(),
            }),
            1,
        ),
    );
}

#[test]
fn golden_dumbbell_rfc_reno() {
    check("dumbbell_rfc_reno", &dumbbell(4, Profile::Rfc, None, 2));
}

#[test]
fn golden_dumbbell_rfc_newreno_no_sack() {
    let mut cfg = dumbbell(3, Profile::Rfc, None, 3);
    for f in cfg.tcp_flows.iter_mut() {
        f.tcp.sack = Some(false);
        f.tcp.recovery = Some(Recovery::NewReno);
    }
    check("dumbbell_rfc_newreno_no_sack", &cfg);
}

#[test]
fn golden_dumbbell_linux_cubic() {
    // The linux profile: SACK, PRR, RACK-TLP, CUBIC, quick-ACK.
    check(
        "dumbbell_linux_cubic",
        &dumbbell(
            4,
            Profile::Linux,
            Some(CcConfig::Cubic {
                config: Default::default(),
            }),
            4,
        ),
    );
}

#[test]
fn golden_dumbbell_linux_3_14_cubic() {
    // Linux 3.14: SACK, PRR, FACK, delayed early retransmit, TLP, F-RTO, CUBIC.
    check(
        "dumbbell_linux_3_14_cubic",
        &dumbbell(
            4,
            Profile::Linux314,
            Some(CcConfig::Cubic {
                config: Default::default(),
            }),
            7,
        ),
    );
}

/// Two MPTCP connections (LIA, then uncoupled) over two paths of 10 and
/// 5 Mbit/s whose buffers overflow, with random loss on the first.
fn two_path_mptcp(profile: Profile, seed: u64) -> ScenarioConfig {
    let mut cfg = two_paths([10_000_000, 5_000_000], [20 * MS, 60 * MS], 25);
    cfg.seed = seed;
    cfg.stop_time_ns = 6 * S;
    cfg.links[2].loss = LossConfig::Bernoulli { p: 0.001 };
    let conn = |name: &str, size: Option<u64>, start_ns: u64, cc: CcConfig| MptcpConnectionConfig {
        name: name.into(),
        src_addrs: vec!["S1".into(), "S2".into()],
        dst_addrs: vec!["D".into()],
        size_bytes: size,
        start_ns,
        cc: Some(cc),
        tcp: TcpOptions {
            profile,
            ..TcpOptions::default()
        },
        ..MptcpConnectionConfig::default()
    };
    cfg.mptcp_connections = vec![
        conn(
            "lia",
            None,
            0,
            CcConfig::Lia {
                config: Default::default(),
            },
        ),
        conn(
            "uncoupled",
            Some(2_000_000),
            500 * MS,
            CcConfig::Uncoupled {
                config: Default::default(),
            },
        ),
    ];
    cfg
}

#[test]
fn golden_mptcp_linux() {
    check("mptcp_linux", &two_path_mptcp(Profile::Linux, 5));
}

/// The same connection opened by its receiver (a download): the receiver's
/// SYNs, the sender's SYN-ACKs and the joins from the receiver's side.
#[test]
fn golden_mptcp_linux_opened_by_the_receiver() {
    let mut cfg = two_path_mptcp(Profile::Linux, 5);
    cfg.mptcp_connections[0].initiator = Initiator::Receiver;
    check("mptcp_linux_receiver_opens", &cfg);
}

#[test]
fn golden_mptcp_ns3() {
    check("mptcp_ns3", &two_path_mptcp(Profile::Ns3, 6));
}

#[test]
fn golden_mptcp_linux_3_14() {
    check("mptcp_linux_3_14", &two_path_mptcp(Profile::Linux314, 8));
}

/// The builder turns prefetching on only when a network's link, connection
/// and subflow structures pass 1 MiB (a 300-flow dumbbell: about 1.2 MiB;
/// the 3-flow goldens are far below), and it changes no result. This is also
/// the one test that runs the prefetching path, with the debug build's
/// assertions, over whole runs: both ways on the large dumbbell, and forced
/// on for the goldens.
#[test]
fn prefetching_is_for_large_networks_and_changes_no_result() {
    let large = dumbbell(300, Profile::Linux, None, 3);
    let scenarios = [
        (dumbbell(3, Profile::Ns3, None, 1), false),
        (two_path_mptcp(Profile::Linux, 5), false),
        (large, true),
    ];
    for (cfg, on) in &scenarios {
        let mut sim = mpsim_core::build::build(cfg).expect("valid scenario");
        assert_eq!(sim.net.prefetch, *on, "{} flows", cfg.tcp_flows.len());
        let chosen = serde_json::to_string(&run(cfg).expect("valid scenario")).unwrap();
        sim.net.prefetch = !on;
        sim.run();
        assert_eq!(serde_json::to_string(&sim.results()).unwrap(), chosen);
    }
}
