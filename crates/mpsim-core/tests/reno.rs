//! Plain Reno fast recovery (RFC 5681 §3.2) against NewReno (RFC 6582) when
//! two segments of one window are lost.
//!
//! Scenario: A → B at 10 Mbit/s, 20 ms one way, a buffer that never fills,
//! no delayed ACK, no limited transmit, `rfc` profile (FlightSize halving,
//! min RTO 1 s). The whole initial window leaves back to back after the
//! handshake; the loss model of the data link is switched to "lose
//! everything" around the moment chosen segments finish serialisation, so
//! exactly those segments are lost. Every number asserted follows from the
//! recovery rules (worked out in each test).

mod common;

use common::*;
use mpsim_core::config::*;
use mpsim_core::run;

const RATE: u64 = 10_000_000;
const D: u64 = 20 * MS;
const MSS: u64 = 1400;
const SEGMENTS: u64 = 60;

/// Runs a 60-segment transfer with initial window `iw` whose first-window
/// segments `lost` (0-based) are dropped; returns the flow's result and trace.
fn two_losses(
    recovery: Recovery,
    iw: u32,
    lost: &[u64],
) -> (
    mpsim_core::results::TcpFlowResult,
    mpsim_core::results::TcpTraceResult,
    u64,
) {
    losses(recovery, iw, lost, SEGMENTS)
}

/// As [`two_losses`] for a transfer of `segments` segments.
fn losses(
    recovery: Recovery,
    iw: u32,
    lost: &[u64],
    segments: u64,
) -> (
    mpsim_core::results::TcpFlowResult,
    mpsim_core::results::TcpTraceResult,
    u64,
) {
    let mut cfg = scenario(
        1,
        30 * S,
        vec![node("A", NodeKind::Host), node("B", NodeKind::Host)],
        vec![
            link("ab", "A", "B", RATE, D, droptail(1000)),
            link("ba", "B", "A", RATE, D, droptail(1000)),
        ],
    );
    // Handshake: SYN and SYN-ACK of 52 bytes (40 + 12 timestamp bytes);
    // then the third ACK and the window leave A back to back.
    let ser_a = ser_ns(52, RATE);
    let ser_d = ser_ns(MSS + 52, RATE);
    // SYN and SYN-ACK carry MSS, SACK-permitted with timestamps, and
    // window scale: 20 option bytes, NOP-aligned as Linux writes them.
    let ser_syn = ser_ns(52 - 12 + 20, RATE);
    let established = 2 * (ser_syn + D);
    let change = |at_ns, loss| LinkChangeConfig {
        at_ns,
        link: "ab".into(),
        rate_bps: None,
        delay_ns: None,
        loss: Some(loss),
        up: None,
    };
    for &i in lost {
        let done = established + ser_a + (i + 1) * ser_d;
        cfg.link_changes
            .push(change(done - ser_d / 2, LossConfig::Bernoulli { p: 1.0 }));
        cfg.link_changes.push(change(done + ser_d / 2, LossConfig::None));
    }
    cfg.tcp_flows = vec![TcpFlowConfig {
        name: "f".into(),
        src: "A".into(),
        dst: "B".into(),
        size_bytes: Some(segments * MSS),
        trace: true,
        tcp: TcpOptions {
            profile: Profile::Rfc,
            recovery: Some(recovery),
            initial_cwnd_segments: Some(iw),
            delayed_ack: Some(false),
            limited_transmit: Some(false),
            ..TcpOptions::default()
        },
        ..TcpFlowConfig::default()
    }];
    let r = run(&cfg).unwrap();
    let dropped = r.links[0].dropped_loss_pkts;
    (r.tcp_flows[0].clone(), r.tcp_traces[0].clone(), dropped)
}

/// ssthresh values in the order they were set (consecutive repeats merged).
fn ssthresh_steps(tr: &mpsim_core::results::TcpTraceResult) -> Vec<u64> {
    let mut v: Vec<u64> = tr.ssthresh_bytes.clone();
    v.dedup();
    v
}

#[test]
fn newreno_recovers_two_losses_of_a_window_in_one_episode() {
    // Window of 20, segments 0 and 10 lost: 18 duplicate ACKs. The third
    // halves FlightSize (20 segments) to ssthresh = 10 segments; the partial
    // ACK for segment 10 retransmits it in the same episode and the full ACK
    // ends recovery with cwnd = ssthresh.
    let (t, tr, dropped) = two_losses(Recovery::NewReno, 20, &[0, 10]);
    assert_eq!(dropped, 2);
    assert_eq!(t.bytes_delivered, SEGMENTS * MSS);
    assert_eq!(t.fast_recoveries, 1, "{t:?}");
    assert_eq!(t.retransmits_fast, 2);
    assert_eq!((t.retransmits_rto, t.rto_count), (0, 0));
    assert_eq!(t.segments_sent, SEGMENTS + 2);
    let steps = ssthresh_steps(&tr);
    assert_eq!(steps[1..], [10 * MSS], "{steps:?}");
}

#[test]
fn reno_leaves_recovery_on_the_partial_ack_and_halves_again_for_the_second_hole() {
    // Window of 20, segments 0 and 10 lost.
    // 3rd duplicate ACK: ssthresh = 20/2 = 10 segments, cwnd = 13 segments,
    // segment 0 retransmitted at once. The 15 further duplicate ACKs inflate
    // cwnd to 28 segments; against a FlightSize of 20 (a retransmission
    // does not add to it, RFC 5681 §2), new data goes out from cwnd 21 on:
    // 8 segments (20–27).
    // Partial ACK (up to segment 10): recovery ends, cwnd = ssthresh = 14000.
    // Segments 20–27 bring 8 duplicate ACKs: the 3rd starts a second fast
    // retransmit. FlightSize is 18 segments (10–27), most of them at the
    // receiver, against cwnd = 10: the `rfc` profile halves the smaller
    // (docs/algorithms.md, "What a loss halves"), ssthresh = 5 segments =
    // 7000, and the ACK of the retransmission covers everything sent (a
    // full ACK).
    let (t, tr, dropped) = two_losses(Recovery::Reno, 20, &[0, 10]);
    assert_eq!(dropped, 2);
    assert_eq!(t.bytes_delivered, SEGMENTS * MSS);
    assert_eq!(t.fast_recoveries, 2, "{t:?}");
    assert_eq!(t.retransmits_fast, 2);
    assert_eq!((t.retransmits_rto, t.rto_count), (0, 0));
    assert_eq!(t.segments_sent, SEGMENTS + 2);
    let steps = ssthresh_steps(&tr);
    assert_eq!(steps[1..], [10 * MSS, 5 * MSS], "{steps:?}");
    // Inflation peaks at ssthresh + 18 segments; the partial ACK deflates to
    // ssthresh exactly.
    let peak = tr.cwnd_bytes.iter().copied().max().unwrap();
    assert_eq!(peak, 28 * MSS);
    let at_peak = tr.cwnd_bytes.iter().rposition(|&c| c == peak).unwrap();
    assert_eq!(tr.cwnd_bytes[at_peak + 1], 10 * MSS, "partial ACK: cwnd = ssthresh");
    assert_eq!(tr.ssthresh_bytes[at_peak + 1], 10 * MSS);
}

#[test]
fn reno_with_a_small_window_needs_a_timeout_for_the_second_hole() {
    // Window of 8, segments 0 and 4 lost: 6 duplicate ACKs. The 3rd: ssthresh
    // = 4 segments, cwnd = 7, segment 0 retransmitted; duplicate ACKs 4–6
    // inflate cwnd to 10 segments against a FlightSize of 8: 2 new segments
    // (8, 9). The partial ACK (up to segment 4) ends recovery with cwnd = 4
    // segments; segments 8 and 9 bring only 2 duplicate ACKs, so segment 4
    // waits for the RTO (1 s minimum). Its retransmission fills the last
    // hole: one RTO retransmission.
    let (t, tr, dropped) = two_losses(Recovery::Reno, 8, &[0, 4]);
    assert_eq!(dropped, 2);
    assert_eq!(t.bytes_delivered, SEGMENTS * MSS);
    assert_eq!(t.fast_recoveries, 1, "{t:?}");
    assert_eq!(t.retransmits_fast, 1);
    assert_eq!((t.retransmits_rto, t.rto_count), (1, 1));
    assert_eq!(t.segments_sent, SEGMENTS + 2);
    // The timeout halves the 6-segment flight (segments 4–9) no further than
    // cwnd, 4 segments: ssthresh = 2 segments.
    let steps = ssthresh_steps(&tr);
    assert_eq!(steps[1..], [4 * MSS, 2 * MSS], "{steps:?}");
    assert!(t.fct_ns.unwrap() > S, "the RTO costs at least the 1 s minimum");

    // NewReno in the same case: one episode, no timeout, done well within 1 s.
    let (n, _, _) = two_losses(Recovery::NewReno, 8, &[0, 4]);
    assert_eq!((n.fast_recoveries, n.retransmits_fast, n.rto_count), (1, 2, 0), "{n:?}");
    assert!(n.fct_ns.unwrap() < S);
}

/// RFC 5681 §3.2 step 2, RFC 6582 §3.2 step 2 and RFC 6675 §5 (4.3): the
/// fast retransmission leaves on the third duplicate ACK, whatever cwnd and
/// the flight allow. A 20-segment transfer sent as one initial window loses
/// its first segment; segments 1–3 each draw an immediate duplicate ACK, the
/// third reaches the sender at T3, the retransmission crosses the idle link
/// and the receiver, now holding everything, acknowledges the FIN at once:
/// the transfer completes at T3 + ser(data) + D + ser(ACK) + D, for every
/// recovery. (Waiting for cwnd room instead would add six more duplicate
/// ACKs' worth of time with NewReno and seven with SACK.) The SACK
/// recoveries also send RFC 6675's rule-4 rescue retransmission of the last
/// segment once pipe falls below cwnd with no new data left; it arrives
/// after the transfer's last ACK has left and changes nothing else.
#[test]
fn the_fast_retransmission_leaves_on_the_third_duplicate_ack() {
    let ser_a = ser_ns(52, RATE);
    let ser_d = ser_ns(MSS + 52, RATE);
    // SYN and SYN-ACK carry MSS, SACK-permitted with timestamps, and
    // window scale: 20 option bytes, NOP-aligned as Linux writes them.
    let ser_syn = ser_ns(52 - 12 + 20, RATE);
    let established = 2 * (ser_syn + D);
    // The `rfc` profile negotiates SACK, so a duplicate ACK carries one SACK
    // block (2 + 8 bytes padded to 12) even where the sender's recovery
    // ignores it.
    let ser_dupack = ser_ns(52 + 12, RATE);
    for recovery in [Recovery::Reno, Recovery::NewReno, Recovery::Sack, Recovery::Prr] {
        let third_dupack = established + ser_a + 4 * ser_d + D + ser_dupack + D;
        let want = third_dupack + ser_d + D + ser_a + D;
        let (t, _, dropped) = losses(recovery, 20, &[0], 20);
        assert_eq!(dropped, 1);
        let rescue = matches!(recovery, Recovery::Sack | Recovery::Prr) as u64;
        assert_eq!(
            (t.fast_recoveries, t.retransmits_fast, t.rto_count),
            (1, 1 + rescue, 0),
            "{recovery:?}"
        );
        let fct = t.fct_ns.expect("completes");
        assert!(
            fct.abs_diff(want) <= 1_000,
            "{recovery:?}: fct {fct} ns, predicted {want} ns"
        );
    }
}
