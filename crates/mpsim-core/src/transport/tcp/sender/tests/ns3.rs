//! ns-3.44's rules, each against the script of the exchange that shows it.

use super::*;

/// ns-3.44's SACK recovery (the `ns3` profile's): ns-3's duplicate-ACK rule,
/// PRR accounting, ssthresh from pipe, the partial-ACK resend, no rescue.
pub(super) fn ns3_with_sack(p: &mut TcpParams) {
    use crate::transport::tcp::config::{DupAckRule, LossFlight, PrrVariant};
    p.prr_variant = PrrVariant::Ns3;
    p.dupack_rule = DupAckRule::NewSack;
    p.loss_flight = LossFlight::Pipe;
    p.partial_ack_retransmit = true;
    p.sack_rescue = false;
}

/// ns-3.44's recovery: any ACK with new SACK information is a duplicate one,
/// ssthresh halves pipe, PRR counts one more segment per duplicate ACK, and
/// a partial ACK sends one segment outside PRR's budget.
#[test]
fn ns3_recovery_accounting() {
    let mut s = Script::new(Recovery::Prr, 10, 20, ns3_with_sack);
    // Segments 0 and 5 lost. Outside recovery each SACK lowers pipe by one:
    // a new segment each.
    assert_eq!(s.send(100), "N0 N1 N2 N3 N4 N5 N6 N7 N8 N9");
    assert_eq!(s.ack(201, 0, &[(1, 2)]), "N10");
    assert_eq!(s.ack(202, 0, &[(1, 3)]), "N11");
    // Third duplicate ACK: 0 is lost (three SACKed above it); pipe = 12 −
    // 3 SACKed − 1 lost = 8, ssthresh = 4. RecoverFS = 8; delivered = 1
    // SACKed + 1 for the duplicate ACK; sndcnt = ⌈2·4/8⌉ = 1: cwnd = 9.
    assert_eq!(s.ack(203, 0, &[(1, 4)]), "F0");
    assert_eq!((s.ccs[0].ssthresh / MSS, s.cwnd()), (4, 9));
    // prr_delivered 4, pipe 8: sndcnt = ⌈4·4/8⌉ − 1 = 1, cwnd 9: new data.
    assert_eq!(s.ack(204, 0, &[(1, 5)]), "N12");
    // prr_delivered 6: ⌈6·4/8⌉ − 2 = 1 more.
    assert_eq!(s.ack(206, 0, &[(6, 7), (1, 5)]), "N13");
    // The partial ACK (0–4, covering the retransmission): RFC 6937's
    // DeliveredData is 1 segment (5 acknowledged, 4 of them SACKed before),
    // prr_delivered 7, pipe 8: sndcnt = ⌈7000·4000/8000⌉ − 3000 = 500
    // bytes, cwnd 8 500. One segment goes at once, outside that budget:
    // not 5, which one SACKed segment above does not make lost, but new
    // data; that leaves no room for more.
    assert_eq!(s.ack(303, 5, &[(6, 7)]), "N14");
    assert_eq!(s.ccs[0].cwnd, 8_500);
    // The timer restarted on this first partial ACK only.
    assert_eq!(s.rto_deadline_ms(), 303 + 1000);
}

/// ns-3.44 `TcpSocketBase::ProcessAck`: an ACK that advances SND.UNA and
/// SACKs new data is a duplicate ACK (CA_DISORDER) and does not grow the
/// window; the next plain ACK of new data does.
#[test]
fn ns3_an_ack_that_advances_and_sacks_does_not_grow_the_window() {
    use crate::transport::tcp::config::DupAckRule;
    let mut s = Script::new(Recovery::Prr, 4, 20, |p| {
        p.dupack_rule = DupAckRule::NewSack;
        p.cwnd_validation = false;
    });
    s.send(100);
    // Segment 0 acknowledged, segment 2 SACKed (1 missing): cwnd stays 4.
    s.ack(200, 1, &[(2, 3)]);
    assert_eq!(s.cwnd(), 4);
    // Segment 1 arrives: a plain ACK of new data (1 and 2), slow start
    // grows by the two segments it acknowledges (RFC 3465, L = 2).
    s.ack(201, 3, &[]);
    assert_eq!(s.cwnd(), 6);
}

/// ns-3's `TcpTxBuffer`: a retransmission that is then SACKed stays in
/// pipe (SetPipe's count) until SND.UNA passes it; RFC 6675 drops it.
#[test]
fn a_sacked_retransmission_stays_in_pipe_as_ns3_counts_it() {
    for (keep, resent_in_pipe) in [(false, 1), (true, 2)] {
        let mut s = Script::new(Recovery::Sack, 10, 20, |p| {
            p.sacked_retransmissions_in_pipe = keep;
            p.sack_rescue = false;
            p.sack_rule3 = false;
        });
        s.send(100);
        // Segments 0 and 1 lost; three SACKs above make both lost: 0 is
        // resent at once, 1 when pipe has room.
        s.ack(200, 0, &[(2, 3)]);
        s.ack(201, 0, &[(2, 4)]);
        assert_eq!(s.ack(202, 0, &[(2, 5)]), "F0");
        // (Until pipe falls below cwnd.)
        assert_eq!(s.ack(203, 0, &[(2, 6)]), "");
        assert_eq!(s.ack(204, 0, &[(2, 7)]), "");
        assert_eq!(s.ack(205, 0, &[(2, 8)]), "F1");
        // Segment 1's retransmission arrives first and is SACKed: pipe
        // counts it no more (RFC 6675), or still once (ns-3).
        s.ack(300, 0, &[(1, 8)]);
        assert_eq!(s.s.board.retrans_bytes, resent_in_pipe * MSS, "keep {keep}");
    }
}

/// ns-3 leaving `CA_LOSS`: the ACK that reaches the recovery point grows the
/// window only by what it acknowledges above it.
#[test]
fn ns3_the_ack_ending_timeout_recovery_grows_only_above_the_recovery_point() {
    for (above, cwnd_after) in [(false, 2), (true, 1)] {
        let mut s = Script::new(Recovery::NewReno, 4, 8, |p| {
            p.rto_exit_growth_above_recover = above;
            p.reno.counting = crate::cc::AckCounting::PerAck;
            p.slow_start.counting = crate::cc::AckCounting::PerAck;
        });
        assert_eq!(s.send(100), "N0 N1 N2 N3");
        // Segment 0 lost, 1–3 held by the receiver; nothing comes back.
        assert_eq!(s.fire(1100), "R0");
        // Its retransmission fills the hole: everything acknowledged, exactly
        // the recovery point.
        s.ack(1200, 4, &[]);
        assert_eq!(s.cwnd(), cwnd_after, "above {above}");
    }
}

/// ns-3 without SACK (`TcpSocketBase::EnterRecovery`): the third duplicate
/// ACK marks one segment received and the head lost, and ssthresh halves
/// pipe + 1 MSS, the head counted as still in flight.
#[test]
fn ns3_emulated_recovery_without_sack_halves_pipe_and_the_head() {
    use crate::transport::tcp::config::{LossFlight, PrrVariant};
    let mut s = Script::new(Recovery::Prr, 10, 20, |p| {
        p.sack = false;
        p.emulate_sack = true;
        p.prr_variant = PrrVariant::Ns3;
        p.loss_flight = LossFlight::Pipe;
    });
    s.send(100);
    s.ack(200, 0, &[]);
    s.ack(201, 0, &[]);
    assert_eq!(s.ack(202, 0, &[]), "F0");
    // 10 sent, 1 marked received, the head lost: pipe 8, + 1 MSS, halved.
    assert_eq!(s.ccs[0].ssthresh, 4_500);
}

/// ns-3: only an ACK that reaches `NewAck` lets the application refill the
/// send buffer; in CA_DISORDER an ACK that advances SND.UNA and SACKs new
/// data does not (nor restarts the timer), and neither does a duplicate ACK.
#[test]
fn ns3_a_duplicate_ack_of_new_data_frees_no_send_buffer() {
    use crate::transport::tcp::config::DupAckRule;
    let mut s = Script::new(Recovery::Prr, 10, 20, |p| {
        p.dupack_rule = DupAckRule::NewSack;
        p.send_buffer_bytes = Some(4_000);
        p.cwnd_validation = false;
    });
    assert_eq!(s.send(100), "N0 N1 N2 N3");
    // Segment 0 acknowledged, 2 SACKed: no room made, no restart (RTO 1 s
    // from the first transmission).
    assert_eq!(s.ack(200, 1, &[(2, 3)]), "");
    assert_eq!(s.rto_deadline_ms(), 100 + 1000);
    // A plain duplicate ACK (3 SACKed) refills nothing either.
    assert_eq!(s.ack(201, 1, &[(2, 4)]), "");
    // Segment 1 arrives: everything acknowledged, the buffer refilled.
    assert_eq!(s.ack(202, 4, &[]), "N4 N5 N6 N7");
}

/// ns-3.44's recovery without SACK (the `ns3` profile with SACK off): marks
/// from duplicate ACKs, PRR on them, ssthresh from pipe.
pub(super) fn ns3_without_sack(p: &mut TcpParams) {
    ns3_with_sack(p);
    p.sack = false;
    p.emulate_sack = true;
}

/// ns-3 `TcpTxBuffer::DiscardUpTo`: when SND.UNA reaches a segment a
/// duplicate ACK had marked received, the guess was wrong about that one: its
/// mark moves to the lowest unmarked segment above, and it is deemed lost.
#[test]
fn ns3_without_sack_a_wrong_mark_at_the_head_moves_up_and_the_head_is_lost() {
    let mut s = Script::new(Recovery::Prr, 10, 20, ns3_without_sack);
    assert_eq!(s.send(100), "N0 N1 N2 N3 N4 N5 N6 N7 N8 N9");
    // Segments 0 and 2 lost: eight duplicate ACKs. The third starts
    // recovery and marks segment 1; the next five mark 2 to 6 (2 wrongly).
    assert_eq!(s.ack(200, 0, &[]), "");
    assert_eq!(s.ack(201, 0, &[]), "");
    assert_eq!(s.ack(202, 0, &[]), "F0");
    for t in 203..208 {
        s.ack(t, 0, &[]);
    }
    assert_eq!(s.s.board.sacked_bytes, 6 * MSS);
    // The retransmission of 0 brings the ACK up to segment 2, marked: the
    // mark moves to 7 (marks stay at five: 2 → 7, 3–6), segment 2 is lost
    // and resent at once as the partial ACK's retransmission.
    assert_eq!(s.ack(300, 2, &[]), "F2");
    assert_eq!(s.s.board.sacked_bytes, 5 * MSS);
    assert_eq!(s.s.board.segs[0].start, seq(2));
    assert_eq!(s.s.board.segs[0].flags & (LOST | SACKED), LOST);
    assert_ne!(s.s.board.segs[5].flags & SACKED, 0, "segment 7 carries the moved mark");
}

/// ns-3 `TcpSocketBase::DupAck` ignores duplicate ACKs in CA_LOSS: after a
/// timeout they mark nothing, and the timeout's go-back-N resends every
/// segment in order.
#[test]
fn ns3_without_sack_duplicate_acks_after_a_timeout_mark_nothing() {
    let mut s = Script::new(Recovery::Prr, 10, 20, ns3_without_sack);
    assert_eq!(s.send(100), "N0 N1 N2 N3 N4 N5 N6 N7 N8 N9");
    assert_eq!(s.fire(1100), "R0");
    for t in 1150..1153 {
        assert_eq!(s.ack(t, 0, &[]), "");
    }
    assert_eq!(s.s.board.sacked_bytes, 0);
    // The ACK of segment 0: cwnd 2, segments 1 and 2 (none skipped).
    assert_eq!(s.ack(1200, 1, &[]), "R1 R2");
}

/// ns-3 `TcpPrrRecovery::EnterRecovery` with nothing in flight once the
/// entering ACK's mark and the head's loss are counted: `DoRecovery` has no
/// duplicate ACK to credit and leaves cwnd unchanged, and `EnterRecovery`
/// resends the head regardless.
#[test]
fn ns3_recovery_entered_with_an_empty_pipe_keeps_cwnd() {
    let mut s = Script::new(Recovery::Prr, 4, 20, |p| {
        ns3_without_sack(p);
        p.limited_transmit = true;
    });
    assert_eq!(s.send(100), "N0 N1 N2 N3");
    // The state an ACK ending an earlier recovery leaves: segments 1 and 2
    // marked received, the head deemed lost and resent from the open state.
    let t = SimTime(150 * MS);
    s.s.mark_sacked(1, t, false, true);
    s.s.mark_sacked(2, t, false, true);
    s.s.board.mark_lost(0);
    s.s.retransmit(0, t, &mut Out::default());
    // A duplicate ACK marks 3; the head is still deemed lost (IsLost), so
    // recovery starts. Pipe: 4 − 3 marked − 1 lost = 0; ssthresh = max(2,
    // (0 + 1)/2) segments. cwnd stays 4: the head and three new segments.
    assert_eq!(s.ack(200, 0, &[]), "F0 N4 N5 N6");
    assert_eq!((s.cwnd(), s.ccs[0].ssthresh / MSS), (4, 2));
}

/// ns-3 asks IsLost(HighACK + 1) only of a duplicate ACK
/// (`TcpSocketBase::DupAck`): a new ACK that finds the head deemed lost
/// starts no recovery; the head is resent from the open state and the
/// window grows.
#[test]
fn ns3_a_new_ack_finding_the_head_lost_starts_no_recovery() {
    let mut s = Script::new(Recovery::Prr, 6, 20, ns3_without_sack);
    assert_eq!(s.send(100), "N0 N1 N2 N3 N4 N5");
    s.s.board.mark_lost(1);
    // Slow start: cwnd 7 against pipe 4 (5 outstanding, 1 lost).
    assert_eq!(s.ack(200, 1, &[]), "F1 N6 N7");
    assert!(s.s.recovery.is_none());
    assert_eq!((s.cwnd(), s.ccs[0].ssthresh), (7, u64::MAX));
}

/// ns-3's partial ACK (`ProcessAck` → `DoRetransmit` → `NextSeg`): when the
/// segment it leaves first is not deemed lost, it sends new data, and the
/// head again only when there is none.
#[test]
fn ns3_a_partial_ack_sends_new_data_before_resending_a_head_not_deemed_lost() {
    // 20 segments leave new data to send; with 12, all is sent by then.
    for (segments, sent) in [(20, "N12"), (12, "F5")] {
        let mut s = Script::new(Recovery::Prr, 10, segments, ns3_with_sack);
        assert_eq!(s.send(100), "N0 N1 N2 N3 N4 N5 N6 N7 N8 N9");
        // Segment 0 lost; recovery as in `ns3_recovery_accounting`.
        assert_eq!(s.ack(201, 0, &[(1, 2)]), "N10");
        assert_eq!(s.ack(202, 0, &[(1, 3)]), "N11");
        assert_eq!(s.ack(203, 0, &[(1, 4)]), "F0");
        // The ACK of 0–4 delivers 2 segments (0 and 4; 1–3 were SACKed):
        // prr_delivered 4, pipe 7 (5–11) > ssthresh 4: sndcnt = ⌈4·4/8⌉ −
        // 1 = 1, cwnd 8. Segment 5 is not deemed lost (nothing SACKed above
        // it): one new segment, or segment 5 again when none is left.
        assert_eq!(s.ack(303, 5, &[]), sent, "{segments} segments");
        assert_eq!(s.ccs[0].cwnd / MSS, 8);
    }
}

/// ns-3's application also refills the send buffer from `SendPendingData`
/// (`NotifySend`) when less is left unsent than the window would take — on
/// any ACK, a duplicate one included.
#[test]
fn ns3_the_send_buffer_is_refilled_when_less_is_unsent_than_the_window_takes() {
    use crate::transport::tcp::config::DupAckRule;
    let mut s = Script::new(Recovery::Prr, 3, 20, |p| {
        p.dupack_rule = DupAckRule::NewSack;
        p.send_buffer_bytes = Some(4_000);
        p.cwnd_validation = false;
    });
    // cwnd 3 of a 4-segment buffer: segment 3 is written, not sent.
    assert_eq!(s.send(100), "N0 N1 N2");
    // Segment 0 acknowledged and 2 SACKed (CA_DISORDER: no `NewAck`, cwnd
    // stays 3). Pipe 1 (segment 1): the window takes 2 segments, more than
    // the 1 unsent, so the buffer is refilled from segment 1: 3 and 4 go.
    assert_eq!(s.ack(200, 1, &[(2, 3)]), "N3 N4");
    assert_eq!(s.cwnd(), 3);
}

/// ns-3's NextSeg rule 3 once SND.UNA has passed every SACKed byte
/// (`m_sackSeen` cleared): no upper bound, so the tail segment no SACK
/// follows is resent within the window; RFC 6675's rule 3 needs a SACKed
/// segment above it, and the tail waits.
#[test]
fn ns3_rule_3_reaches_the_tail_once_no_sack_is_left_above_snd_una() {
    for (ns3, sent) in [(true, "F18 F19"), (false, "F18")] {
        let mut s = Script::new(Recovery::Prr, 20, 20, |p| {
            ns3_with_sack(p);
            p.sack_rule3_ns3 = ns3;
        });
        assert_eq!(
            s.send(100),
            "N0 N1 N2 N3 N4 N5 N6 N7 N8 N9 N10 N11 N12 N13 N14 N15 N16 N17 N18 N19"
        );
        // Segments 0, 18 and 19 lost; 1–17 SACKed one by one. The third
        // SACK starts recovery: pipe 20 − 3 − 1 = 16, ssthresh 8.
        for k in 2..19 {
            s.ack(200 + k, 0, &[(1, k)]);
        }
        assert_eq!(s.ccs[0].ssthresh / MSS, 8);
        // The ACK of 0–17 leaves 18 and 19, neither SACKed above nor deemed
        // lost; PRR-SSRB gives cwnd 8 over a pipe of 2. The partial ACK
        // resends the head, 18; rule 3 then takes 19 (ns-3) or nothing.
        assert_eq!(s.ack(300, 18, &[]), sent, "ns3 {ns3}");
        assert_eq!(s.cwnd(), 8);
    }
}
