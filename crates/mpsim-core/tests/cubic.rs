//! CUBIC (RFC 9438), MPCubic and unMPCubic (Le, Hong, Lee 2011) checked
//! against their window functions.

mod common;

use common::*;
use mpsim_core::config::*;
use mpsim_core::results::TcpTraceResult;
use mpsim_core::run;
use mpsim_core::transport::tcp::Recovery;

const MSS: u64 = 1400;

/// RFC 9438 Eq. 1 in segments.
fn w_cubic(t: f64, k: f64, w_max: f64, c: f64) -> f64 {
    c * (t - k).powi(3) + w_max
}

/// Indices of the trace points where a congestion event set a new ssthresh.
fn losses(tr: &TcpTraceResult) -> Vec<usize> {
    (1..tr.time_ns.len())
        .filter(|&i| tr.ssthresh_bytes[i] != tr.ssthresh_bytes[i - 1])
        .collect()
}

#[test]
fn cwnd_between_losses_follows_the_cubic_curve() {
    // 20 Mbit/s, 100 ms base RTT: a BDP of about 172 segments of 1452 wire
    // bytes plus 30 in the buffer, so losses come at about 200 segments,
    // K = ∛(0.3·200/0.4) ≈ 5.3 s. Fast convergence is off, as RFC 9438 §4.7
    // says for a single flow alone on its path, so W_max is the window at
    // the loss. SACK recovery keeps cwnd = ssthresh during recovery, so the
    // epoch's first ACK is the first trace point with cwnd > ssthresh. The
    // `rfc` profile: RFC 9438 as written (the `linux` profile counts
    // ssthresh in whole segments, as Linux does).
    let mut cfg = host_pair(20_000_000, 50 * MS, 30, 60 * S);
    cfg.tcp_flows = vec![TcpFlowConfig {
        name: "f".into(),
        src: "A".into(),
        dst: "B".into(),
        cc: Some(CcConfig::Cubic {
            config: mpsim_core::cc::CubicConfig {
                fast_convergence: false,
                ..Default::default()
            },
        }),
        tcp: TcpOptions {
            profile: Profile::Rfc,
            recovery: Some(Recovery::Sack),
            ..TcpOptions::default()
        },
        trace: true,
        ..TcpFlowConfig::default()
    }];
    let r = run(&cfg).unwrap();
    assert_eq!(r.tcp_flows[0].rto_count, 0);
    let tr = &r.tcp_traces[0];
    let loss = losses(tr);
    assert!(loss.len() >= 6, "{} losses", loss.len());
    let (c, beta) = (0.4, 0.7);
    let mut checked = 0;
    let mut worst: f64 = 0.0;
    // The first loss ends slow start; the epochs after the later ones are
    // plain congestion avoidance. A loss detected while slow start's
    // overshoot is still being repaired (RACK finds a lost retransmission
    // or a late hole just after the first recovery) belongs to it: epochs
    // are checked from the first loss more than a second later.
    let first_ca = loss
        .iter()
        .position(|&i| tr.time_ns[i] > tr.time_ns[loss[0]] + S)
        .expect("a loss in congestion avoidance");
    for w in loss[first_ca - 1..].windows(2).skip(1) {
        let (l, next) = (w[0], w[1]);
        let w_max = tr.cwnd_bytes[l - 1] as f64 / MSS as f64;
        let ssthresh = tr.ssthresh_bytes[l];
        // RFC 9438 §4.6: ssthresh = β·cwnd.
        assert_eq!(ssthresh, (tr.cwnd_bytes[l - 1] as f64 * beta) as u64);
        let e = (l..next).find(|&i| tr.cwnd_bytes[i] > ssthresh).expect("epoch starts");
        let cwnd_epoch = ssthresh as f64 / MSS as f64;
        // RFC 9438 Eq. 2.
        let k = ((w_max - cwnd_epoch) / c).cbrt();
        let t0 = tr.time_ns[e];
        for i in e..next {
            let t = (tr.time_ns[i] - t0) as f64 / 1e9;
            let rtt = tr.srtt_ns[i] as f64 / 1e9;
            let want = w_cubic(t, k, w_max, c);
            let got = tr.cwnd_bytes[i] as f64 / MSS as f64;
            // cwnd chases target = W_cubic(t + RTT) by (target − cwnd)/cwnd
            // per acked segment, a cwnd's worth of segments per RTT: a lag
            // of one RTT that puts cwnd at W_cubic(t) up to the curvature
            // (3C·RTT²·|t − K| ≈ 0.1 segment here). The tolerance allows a
            // whole RTT of the curve's growth, |W(t + RTT) − W(t)|, plus one
            // segment for per-ACK steps and the Reno-friendly first ACK.
            let tol = (w_cubic(t + rtt, k, w_max, c) - want).abs() + 1.0;
            assert!(
                (got - want).abs() <= tol,
                "epoch after loss at {} ns, t = {t:.3} s: cwnd {got:.2} segments, W_cubic {want:.2} ± {tol:.2} (K = {k:.3} s, W_max = {w_max:.2})",
                tr.time_ns[l]
            );
            worst = worst.max((got - want).abs());
            checked += 1;
        }
        // The same buffer overflows every epoch: the next loss comes with
        // cwnd back near W_max (a few segments either side, from the RTT the
        // loss takes to be detected while cwnd still grows).
        let at_next = tr.cwnd_bytes[next - 1] as f64 / MSS as f64;
        assert!(
            (at_next / w_max - 1.0).abs() < 0.05,
            "loss at {at_next:.1}, W_max {w_max:.1}"
        );
    }
    assert!(checked > 10_000, "{checked} points checked");
    eprintln!("{checked} points, worst deviation {worst:.3} segments");
}

/// [`two_paths`] with equal paths of `rate_bps` and `one_way_ns`, run for `stop_ns`.
fn equal_paths(rate_bps: u64, one_way_ns: u64, buffer_pkts: u32, stop_ns: u64) -> ScenarioConfig {
    let mut cfg = two_paths([rate_bps; 2], [one_way_ns; 2], buffer_pkts);
    cfg.stop_time_ns = stop_ns;
    cfg
}

/// Mean time (s) between consecutive congestion events of a trace after `from_ns`,
/// and how many intervals it averages.
fn mean_epoch(tr: &TcpTraceResult, from_ns: u64) -> (f64, usize) {
    let t: Vec<u64> = losses(tr)
        .into_iter()
        .map(|i| tr.time_ns[i])
        .filter(|&t| t >= from_ns)
        .collect();
    let n = t.len() - 1;
    ((t[n] - t[0]) as f64 / 1e9 / n as f64, n)
}

/// MPCubic paper Sec. IV-A (Fig. 3): a two-path MPCubic flow on two
/// separate, equal paths and a CUBIC flow alone on one of them. "A window
/// growth cycle of sub-flow in MPCubic equals 2.5 times as long as that of
/// regular Cubic", because equal paths give δ_s = (1/2)^4 and Eq. 2 then
/// K_s = 2^(4/3)·K. A cycle is two consecutive congestion epochs, so the
/// ratio of mean epoch lengths (time between losses) is the ratio of cycles.
/// Both flows fill the same buffer, so W_max is the same and only K differs.
/// The predicted ratio 2^(4/3) = 2.52 holds for the K part of each epoch;
/// the RTT or so between crossing the buffer's capacity and the loss's
/// detection adds about the same short time (≈ 0.1–0.2 s against epochs of
/// 5 s and 12.6 s) to both, pulling the ratio a few per cent below 2.52: the
/// test allows 2.52 within 8 %. unMPCubic's (1/2)^(4/3) scale gives the
/// same C/16 curve and is checked alike; an uncoupled CUBIC per path would
/// give a ratio of 1.
#[test]
fn mpcubic_cycle_is_two_to_the_four_thirds_times_cubic() {
    let (rate, one_way, buffer) = (10_000_000, 50 * MS, 20);
    let warmup = 40 * S;
    let mut cfg = equal_paths(rate, one_way, buffer, 120 * S);
    cfg.tcp_flows = vec![TcpFlowConfig {
        name: "cubic".into(),
        src: "S1".into(),
        dst: "D1".into(),
        cc: Some(CcConfig::Cubic {
            config: Default::default(),
        }),
        tcp: linux(),
        trace: true,
        ..TcpFlowConfig::default()
    }];
    let r = run(&cfg).unwrap();
    let (cubic, n_cubic) = mean_epoch(&r.tcp_traces[0], warmup);

    let mut ratios = Vec::new();
    for cc in [
        CcConfig::MpCubic {
            config: Default::default(),
        },
        CcConfig::UnMpCubic {
            config: Default::default(),
        },
    ] {
        let mut cfg = equal_paths(rate, one_way, buffer, 300 * S);
        cfg.mptcp_connections = vec![MptcpConnectionConfig {
            name: "mp".into(),
            src_addrs: vec!["S1".into(), "S2".into()],
            dst_addrs: vec!["D".into()],
            cc: Some(cc.clone()),
            tcp: linux(),
            trace: true,
            ..MptcpConnectionConfig::default()
        }];
        let r = run(&cfg).unwrap();
        assert_eq!(r.tcp_traces.len(), 2);
        for tr in &r.tcp_traces {
            let (mp, n) = mean_epoch(tr, warmup);
            let ratio = mp / cubic;
            eprintln!(
                "{cc:?} subflow {}: {n} epochs of {mp:.2} s; CUBIC {n_cubic} of {cubic:.2} s; ratio {ratio:.3}",
                tr.subflow
            );
            ratios.push(ratio);
        }
    }
    let want = 2f64.powf(4.0 / 3.0);
    for ratio in ratios {
        assert!((ratio / want - 1.0).abs() <= 0.08, "ratio {ratio:.3}, want {want:.3}");
    }
}

#[test]
fn configs_parse_with_defaults_and_bad_values_name_their_field() {
    let cc: CcConfig = serde_json::from_str(r#"{"type":"mpcubic"}"#).unwrap();
    assert_eq!(
        cc,
        CcConfig::MpCubic {
            config: Default::default()
        }
    );
    let cc: CcConfig = serde_json::from_str(r#"{"type":"unmpcubic","scale":0.5}"#).unwrap();
    let CcConfig::UnMpCubic { config } = cc else { panic!() };
    assert_eq!((config.scale, config.c), (Some(0.5), 0.4));
    let cc: CcConfig = serde_json::from_str(r#"{"type":"cubic","beta":0.8}"#).unwrap();
    let CcConfig::Cubic { config: cubic } = cc else {
        panic!()
    };
    assert_eq!((cubic.beta, cubic.c, cubic.fast_convergence), (0.8, 0.4, true));

    let bad = |cc: CcConfig| {
        let mut cfg = equal_paths(10_000_000, 10 * MS, 20, S);
        cfg.mptcp_connections = vec![MptcpConnectionConfig {
            name: "mp".into(),
            src_addrs: vec!["S1".into(), "S2".into()],
            dst_addrs: vec!["D".into()],
            cc: Some(cc),
            ..MptcpConnectionConfig::default()
        }];
        match run(&cfg) {
            Err(mpsim_core::Error::Config(e)) => e[0].path.clone(),
            other => panic!("expected a configuration error, got {other:?}"),
        }
    };
    let mp = mpsim_core::cc::MpCubicConfig::default();
    let un = mpsim_core::cc::UnMpCubicConfig::default();
    assert_eq!(
        bad(CcConfig::MpCubic {
            config: mpsim_core::cc::MpCubicConfig { k: 5.0, ..mp }
        }),
        "mptcp_connections[0].cc.k"
    );
    assert_eq!(
        bad(CcConfig::MpCubic {
            config: mpsim_core::cc::MpCubicConfig { beta: 1.0, ..mp }
        }),
        "mptcp_connections[0].cc.beta"
    );
    assert_eq!(
        bad(CcConfig::UnMpCubic {
            config: mpsim_core::cc::UnMpCubicConfig { c: 0.0, ..un }
        }),
        "mptcp_connections[0].cc.c"
    );
    assert_eq!(
        bad(CcConfig::UnMpCubic {
            config: mpsim_core::cc::UnMpCubicConfig { scale: Some(1.5), ..un }
        }),
        "mptcp_connections[0].cc.scale"
    );
}
