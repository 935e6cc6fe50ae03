//! Coupled congestion avoidance end to end: fairness at a shared bottleneck
//! (RFC 6356 §2 goal 2, "do no harm") and moving traffic to the less
//! congested of two disjoint paths (goal 3, "balance congestion").

mod common;

use common::*;
use mpsim_core::cc::{BaliaConfig, LiaConfig, OliaConfig};
use mpsim_core::config::*;
use mpsim_core::run;

fn lia() -> CcConfig {
    CcConfig::Lia {
        config: LiaConfig::default(),
    }
}
fn olia() -> CcConfig {
    CcConfig::Olia {
        config: OliaConfig::default(),
    }
}
fn balia() -> CcConfig {
    CcConfig::Balia {
        config: BaliaConfig::default(),
    }
}
fn coupled() -> CcConfig {
    CcConfig::Coupled {
        config: Default::default(),
    }
}
fn ewtcp() -> CcConfig {
    CcConfig::Ewtcp {
        config: Default::default(),
    }
}

/// Hosts M (MPTCP sender) and T (TCP sender) — 1 Gbit/s — router R —
/// bottleneck — host D. Every hop has the same delay, so both flows see the
/// same RTT.
fn shared_bottleneck(rate_bps: u64, rtt_ns: u64, buffer_pkts: u32) -> ScenarioConfig {
    let d = rtt_ns / 4;
    let mut links = vec![
        link("R-D", "R", "D", rate_bps, d, droptail(buffer_pkts)),
        link("D-R", "D", "R", 1_000_000_000, d, droptail(10_000)),
    ];
    for h in ["M", "T"] {
        links.push(link(&format!("{h}-R"), h, "R", 1_000_000_000, d, droptail(10_000)));
        links.push(link(&format!("R-{h}"), "R", h, 1_000_000_000, d, droptail(10_000)));
    }
    scenario(
        1,
        120 * S,
        vec![
            node("M", NodeKind::Host),
            node("T", NodeKind::Host),
            node("R", NodeKind::Router),
            node("D", NodeKind::Host),
        ],
        links,
    )
}

/// The MPTCP connection's share of the bottleneck goodput when it runs two
/// subflows (ndiffports) through the bottleneck beside one TCP Reno flow.
fn mptcp_share(cc: CcConfig) -> f64 {
    let mut cfg = shared_bottleneck(10_000_000, 40 * MS, 35);
    cfg.mptcp_connections = vec![MptcpConnectionConfig {
        name: "mp".into(),
        src_addrs: vec!["M".into()],
        dst_addrs: vec!["D".into()],
        path_manager: PathManager::Ndiffports { subflows: 2 },
        cc: Some(cc),
        tcp: linux(),
        ..MptcpConnectionConfig::default()
    }];
    cfg.tcp_flows = vec![TcpFlowConfig {
        name: "tcp".into(),
        src: "T".into(),
        dst: "D".into(),
        cc: Some(CcConfig::Reno {
            config: Default::default(),
        }),
        tcp: linux(),
        ..TcpFlowConfig::default()
    }];
    let r = run(&cfg).unwrap();
    let c = &r.mptcp_connections[0];
    assert_eq!(c.subflows.len(), 2);
    assert!(c.subflows.iter().all(|s| s.bytes_received > 0));
    let mp = c.bytes_delivered as f64;
    let tcp = r.tcp_flows[0].bytes_delivered as f64;
    mp / (mp + tcp)
}

#[test]
fn coupled_algorithms_take_one_share_of_a_shared_bottleneck() {
    // RFC 6356 §2 goal 2: two subflows through one bottleneck take no more
    // than one TCP would, so the share against one Reno flow is 1/2.
    for (name, cc) in [
        ("lia", lia()),
        ("olia", olia()),
        ("balia", balia()),
        ("coupled", coupled()),
    ] {
        let share = mptcp_share(cc);
        println!("{name}: MPTCP share {share:.3}");
        assert!((0.35..=0.65).contains(&share), "{name}: MPTCP share {share:.3}");
    }
}

#[test]
fn uncoupled_subflows_take_two_shares() {
    // Two independent Reno subflows against one: 2/3.
    let share = mptcp_share(CcConfig::Uncoupled {
        config: Default::default(),
    });
    println!("uncoupled: MPTCP share {share:.3}");
    assert!(share > 0.6, "uncoupled: MPTCP share {share:.3}");
}

/// Host S (addresses S1, S2) — R1 / R2 — host D (D1, D2): two disjoint
/// paths of `rate_bps` and `rtt_ns` ([`two_paths`] with large buffers), with
/// Bernoulli loss `loss[i]` on the router → D link of path i.
fn two_lossy_paths(rate_bps: u64, rtt_ns: u64, loss: [f64; 2]) -> ScenarioConfig {
    let mut cfg = two_paths([rate_bps; 2], [rtt_ns / 2; 2], 10_000);
    for (i, r) in ["R1", "R2"].iter().enumerate() {
        let l = cfg
            .links
            .iter_mut()
            .find(|l| l.name == format!("{r}-D"))
            .expect("router → D link");
        l.loss = LossConfig::Bernoulli { p: loss[i] };
    }
    cfg
}

/// Fraction of the connection's data carried by the path with 0.1 % loss
/// when the other has 1 %; both 50 ms RTT, capacity (100 Mbit/s) far above
/// what loss lets TCP use, so random loss alone sets the windows. Bytes are
/// pooled over four seeds of 120 s each (about 100 losses per run on the
/// good path, so one seed alone varies by a few percent).
fn fraction_on_good_path(cc: CcConfig) -> f64 {
    let (mut good, mut bad) = (0.0, 0.0);
    for seed in 1..=4 {
        let mut cfg = two_lossy_paths(100_000_000, 50 * MS, [0.001, 0.01]);
        cfg.seed = seed;
        cfg.mptcp_connections = vec![MptcpConnectionConfig {
            name: "mp".into(),
            src_addrs: vec!["S1".into(), "S2".into()],
            dst_addrs: vec!["D".into()],
            cc: Some(cc.clone()),
            tcp: linux(),
            ..MptcpConnectionConfig::default()
        }];
        let r = run(&cfg).unwrap();
        let c = &r.mptcp_connections[0];
        assert_eq!(c.subflows.len(), 2);
        assert!(c.subflows.iter().all(|s| s.bytes_received > 0));
        good += c.subflows[0].bytes_received as f64;
        bad += c.subflows[1].bytes_received as f64;
    }
    good / (good + bad)
}

#[test]
fn uncoupled_and_ewtcp_split_by_per_path_tcp_throughput() {
    // Each subflow is a TCP of its own (EWTCP's weight 1/sqrt(2) scales both
    // windows alike): window ∝ 1/sqrt(p), so sqrt(10) : 1, 76 % on the good
    // path; timeouts cost the 1 % path a little more (the Padhye et al.
    // model with a 250 ms RTO gives 3.5 : 1, 78 %).
    for (name, cc) in [
        (
            "uncoupled",
            CcConfig::Uncoupled {
                config: Default::default(),
            },
        ),
        ("ewtcp", ewtcp()),
    ] {
        let f = fraction_on_good_path(cc);
        println!("{name}: fraction on the 0.1 % path {f:.3}");
        assert!((0.72..=0.84).contains(&f), "{name}: {f:.3}");
    }
}

#[test]
fn coupled_algorithms_move_traffic_to_the_less_lossy_path() {
    // Same RTTs, losses p1 = 0.001, p2 = 0.01 (windows in packets, balance
    // of increase and decrease per packet):
    // LIA: increase max_w/W² on each path (RFC 6356 with equal RTTs) against
    //   p_r·w_r/2 ⇒ w_r ∝ 1/p_r: 10 : 1, 0.909.
    // BALIA: path 1 has α = 1 and W² = 2/p1; path 2 with a = w1/w2 ≥ 1.5
    //   needs (1+a)(4+a)/10·p1/2 = p2·1.5/2, (1+a)(4+a) = 150, a = 9.84: 0.908.
    // OLIA and COUPLED: the fluid equilibrium uses only the least lossy path;
    //   what is left is the bad path's minimum window beside the good path's
    //   mean Reno window sqrt(3/(2·p1)) ≈ 39 packets: OLIA keeps Reno's
    //   ssthresh floor of 2 MSS (2–3 packets: ≈ 0.94), COUPLED's floor is
    //   1 MSS (1–1.5 packets: ≈ 0.97).
    let expected = [
        ("lia", lia(), 0.909),
        ("balia", balia(), 0.908),
        ("olia", olia(), 0.94),
        ("coupled", coupled(), 0.97),
    ];
    let uncoupled = fraction_on_good_path(CcConfig::Uncoupled {
        config: Default::default(),
    });
    for (name, cc, want) in expected {
        let f = fraction_on_good_path(cc);
        println!("{name}: fraction on the 0.1 % path {f:.3} (expected {want})");
        assert!((f - want).abs() <= 0.035, "{name}: {f:.3}, expected {want}");
        assert!(f > uncoupled + 0.08, "{name}: {f:.3} vs uncoupled {uncoupled:.3}");
    }
}

// ----- property: bounded windows, no faster than Reno ------------------------

mod properties {
    use mpsim_core::cc::*;
    use mpsim_core::time::{SimDuration, SimTime};
    use proptest::prelude::*;

    const MSS: u64 = 1000;

    #[derive(Clone, Debug)]
    enum Op {
        /// An ACK of `segs` segments on subflow r.
        Ack { r: usize, segs: u64 },
        /// Fast recovery starts on subflow r (SACK: cwnd = ssthresh).
        Loss { r: usize },
        /// Fast recovery ends on subflow r (cwnd = ssthresh).
        Exit { r: usize },
        /// A retransmission timeout on subflow r (cwnd = 1 MSS).
        Rto { r: usize },
        /// A new RTT estimate on subflow r.
        Rtt { r: usize, ms: u64 },
        /// Subflow r becomes established.
        Join { r: usize },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            8 => (0..4usize, 1..4u64).prop_map(|(r, segs)| Op::Ack { r, segs }),
            1 => (0..4usize).prop_map(|r| Op::Loss { r }),
            1 => (0..4usize).prop_map(|r| Op::Exit { r }),
            1 => (0..4usize).prop_map(|r| Op::Rto { r }),
            1 => (0..4usize, 1..400u64).prop_map(|(r, ms)| Op::Rtt { r, ms }),
            1 => (0..4usize).prop_map(|r| Op::Join { r }),
        ]
    }

    fn subflow() -> impl Strategy<Value = (u64, u64, bool)> {
        (1..200u64, 1..400u64, prop::bool::weighted(0.8))
    }

    /// Every coupled algorithm in both flavours, and how much faster than
    /// Reno's acked·MSS/cwnd a subflow may grow per ACK: 1 for all but OLIA,
    /// whose α_r ≤ 1/n ≤ 1/2 adds up to half of Reno's increase on a best
    /// path that does not have the largest window (its first term alone is
    /// at most 1/w_r); the kernel's OLIA counter also rounds 1023/1024 up.
    fn algorithms() -> Vec<(&'static str, Cc, f64)> {
        let reno = RenoConfig::default();
        let mut v = Vec::new();
        for flavour in [Flavour::Paper, Flavour::Linux] {
            v.push(("lia", Cc::Lia(Lia::new(LiaConfig { flavour }).with_reno(reno)), 1.0));
            v.push((
                "olia",
                Cc::Olia(Olia::new(OliaConfig { flavour }).with_reno(reno)),
                1.5 * 1024.0 / 1023.0,
            ));
            v.push((
                "balia",
                Cc::Balia(Balia::new(BaliaConfig { flavour }).with_reno(reno)),
                1.0,
            ));
        }
        v.push((
            "ewtcp",
            Cc::Ewtcp(Ewtcp::new(EwtcpConfig::default()).with_reno(reno)),
            1.0,
        ));
        v.push((
            "coupled",
            Cc::Coupled(Coupled::new(CoupledConfig::default()).with_reno(reno)),
            1.0,
        ));
        v.push((
            "semicoupled",
            Cc::SemiCoupled(SemiCoupled::new(SemiCoupledConfig::default()).with_reno(reno)),
            1.0,
        ));
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn windows_stay_bounded_and_never_outgrow_reno(
            init in prop::collection::vec(subflow(), 1..=4),
            ops in prop::collection::vec(op(), 0..300),
        ) {
            for (name, mut cc, factor) in algorithms() {
                let mut s: Vec<SubflowCc> = init
                    .iter()
                    .map(|&(pkts, ms, est)| {
                        let mut sf = SubflowCc::new(MSS as u32, pkts * MSS, pkts * MSS);
                        sf.srtt = SimDuration::from_millis(ms);
                        sf.established = est;
                        sf
                    })
                    .collect();
                cc.on_subflows_changed(&s);
                let n = s.len();
                // Per subflow since its last loss: growth from congestion
                // avoidance, and what Reno would have grown (Σ acked·MSS/cwnd).
                let mut growth = vec![0.0f64; n];
                let mut reno = vec![0.0f64; n];
                let now = SimTime::ZERO;
                for o in &ops {
                    match *o {
                        Op::Ack { r, segs } if r < n && s[r].established && !s[r].in_recovery => {
                            let acked = segs * MSS;
                            s[r].bytes_acked += acked;
                            if s[r].in_slow_start() {
                                // Slow start is not congestion avoidance's.
                                s[r].cwnd = (s[r].cwnd + acked).min(s[r].ssthresh);
                                continue;
                            }
                            let before = s[r].cwnd;
                            let info = AckInfo { now, acked_bytes: acked, cwnd_limited: true };
                            cc.on_ack(&mut s, r, &info);
                            growth[r] += s[r].cwnd.saturating_sub(before) as f64;
                            reno[r] += (acked * MSS) as f64 / before as f64;
                            prop_assert!(
                                growth[r] <= factor * reno[r] + 2.0 * MSS as f64,
                                "{name}: subflow {r} grew {} B where Reno would grow {} B", growth[r], reno[r]
                            );
                        }
                        Op::Loss { r } if r < n && s[r].established && !s[r].in_recovery => {
                            s[r].bytes_in_flight = s[r].cwnd;
                            let ssthresh = cc.ssthresh_after_loss(&s, r, now);
                            s[r].ssthresh = ssthresh;
                            s[r].cwnd = ssthresh;
                            s[r].in_recovery = true;
                            s[r].loss_events += 1;
                            // Reno's credit carried over a loss is Reno's own
                            // business; start the comparison afresh.
                            s[r].ca_credit = 0;
                            growth[r] = 0.0;
                            reno[r] = 0.0;
                        }
                        Op::Exit { r } if r < n && s[r].in_recovery => {
                            s[r].cwnd = s[r].ssthresh.max(MSS);
                            s[r].in_recovery = false;
                            cc.on_recovery_exit(&mut s, r, now);
                        }
                        Op::Rto { r } if r < n && s[r].established => {
                            s[r].bytes_in_flight = s[r].cwnd;
                            s[r].ssthresh = cc.ssthresh_after_loss(&s, r, now);
                            s[r].cwnd = MSS;
                            s[r].in_recovery = false;
                            s[r].ca_credit = 0;
                            s[r].loss_events += 1;
                            cc.on_rto(&mut s, r, now);
                            growth[r] = 0.0;
                            reno[r] = 0.0;
                        }
                        Op::Rtt { r, ms } if r < n => s[r].srtt = SimDuration::from_millis(ms),
                        Op::Join { r } if r < n && !s[r].established => {
                            s[r].established = true;
                            cc.on_subflows_changed(&s);
                        }
                        _ => {}
                    }
                    for (i, sf) in s.iter().enumerate() {
                        // Every algorithm's floor is one MSS (Reno's
                        // ssthresh floor is 2 MSS; COUPLED and the kernel's
                        // BALIA allow 1).
                        prop_assert!(sf.cwnd >= MSS, "{name}: subflow {i} cwnd {}", sf.cwnd);
                        prop_assert!(sf.ssthresh >= MSS, "{name}: subflow {i} ssthresh {}", sf.ssthresh);
                        prop_assert!(sf.cwnd < 1 << 40, "{name}: subflow {i} cwnd {}", sf.cwnd);
                    }
                }
            }
        }
    }
}
