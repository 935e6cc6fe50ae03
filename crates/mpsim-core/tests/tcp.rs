//! TCP behaviour checked against what the model implies.

mod common;

use common::*;
use mpsim_core::config::*;
use mpsim_core::run;

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

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
        profile,
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
        f.delayed_ack = Some(false);
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
    f.recovery = Some(recovery);
    f.delayed_ack = Some(false);
    f.min_rto_ns = Some(200 * MS);
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
        for rec in [Recovery::NewReno, Recovery::Sack, Recovery::Prr] {
            let (m, model, ind) = reno_under_loss(p, rec, 1);
            let ratio = m / model;
            assert!(
                (0.8..=1.2).contains(&ratio),
                "p = {p}, {rec:?}: {m:.1} segments/s against Padhye's {model:.1} (indication rate {ind:.5})"
            );
        }
    }
}
