//! Linux's loss detection and timers: RACK, the tail loss probe, F-RTO,
//! early retransmit and FACK, each against a scripted exchange.

use super::*;

/// A Linux-like sender: SACK, PRR, RACK-TLP.
pub(super) fn rack(iw: u64, segments: u64) -> Script {
    rack_with(iw, segments, |_| {})
}

/// [`rack`] with `tweak` applied to its parameters.
fn rack_with(iw: u64, segments: u64, tweak: impl FnOnce(&mut TcpParams)) -> Script {
    Script::new(Recovery::Prr, iw, segments, |p| {
        p.rack = true;
        p.tlp = true;
        p.sack_rescue = false;
        tweak(p);
    })
}

#[test]
fn rack_marks_a_loss_when_its_reordering_window_runs_out() {
    // Three segments, the first lost: only two SACKs can come, too few for
    // DupThresh. RFC 8985 §6.2: segment 0, sent with segment 1, is lost
    // once RACK.rtt + reo_wnd has passed since it was sent, reo_wnd =
    // min_RTT/4 = 25 ms. The SACK of 1 at 201 ms (RACK.rtt 101 ms) arms the
    // timer at 100 + 101 + 25 = 226 ms, that of 2 at 202 ms moves it to 227.
    let mut s = rack(3, 3);
    assert_eq!(s.send(100), "N0 N1 N2");
    assert_eq!(s.ack(201, 0, &[(1, 2)]), "");
    assert_eq!(s.aux_deadline(), Some((226.0, AuxTimer::Reorder)));
    assert_eq!(s.ack(202, 0, &[(1, 3)]), "");
    assert_eq!(s.aux_deadline(), Some((227.0, AuxTimer::Reorder)));
    // The timer fires: 0 is lost, PRR recovery starts with cwnd = pipe + 1.
    assert_eq!(s.fire(227), "F0");
    assert_eq!(s.s.stats.fast_recoveries, 1);
    assert_eq!(s.ack(328, 3, &[]), "");
    assert_eq!(s.s.state, SenderState::Done);
    assert_eq!(s.s.stats.rto_count, 0);
}

#[test]
fn without_rack_the_same_loss_waits_for_the_timeout() {
    let mut s = Script::new(Recovery::Prr, 3, 3, |p| p.sack_rescue = false);
    s.send(100);
    s.ack(201, 0, &[(1, 2)]);
    s.ack(202, 0, &[(1, 3)]);
    assert_eq!(s.aux_deadline(), None);
    assert_eq!(s.fire(1100), "R0");
    assert_eq!(s.s.stats.rto_count, 1);
}

#[test]
fn rack_with_dupthresh_sacks_needs_no_reordering_window() {
    // Ten segments, 0 lost. With three segments SACKed and no reordering
    // seen, reo_wnd is 0 (§6.2 step 4): the third SACK (segment 3, RACK.rtt
    // 103 ms) finds 0, sent at 100 ms, past 100 + 103 ms: lost at once.
    let mut s = rack(10, 20);
    assert_eq!(s.send(100), "N0 N1 N2 N3 N4 N5 N6 N7 N8 N9");
    // Outside recovery the window counts SACKed segments out (Linux
    // `tcp_packets_in_flight`): each SACK lets a new segment go.
    assert_eq!(s.ack(201, 0, &[(1, 2)]), "N10");
    assert_eq!(s.ack(202, 0, &[(1, 3)]), "N11");
    // PRR on entry: cwnd = pipe + 1 = (12 − 3 SACKed − 1 lost) + 1.
    assert_eq!(s.ack(203, 0, &[(1, 4)]), "F0");
    assert_eq!(s.cwnd(), 9);
}

#[test]
fn a_lost_tail_is_repaired_by_a_loss_probe_not_a_timeout() {
    // Ten segments, the last lost; minimum RTO 200 ms as in Linux. The ACK
    // of 0–8 at 209 ms leaves one segment outstanding: PTO = 2·SRTT + the
    // minimum RTO (its ACK may be delayed), but never after the RTO
    // (RFC 8985 §7.2, Linux `tcp_schedule_loss_probe`).
    let mut s = rack_with(10, 10, |p| p.rtt.min_rto = SimDuration::from_millis(200));
    assert_eq!(s.send(100), "N0 N1 N2 N3 N4 N5 N6 N7 N8 N9");
    for k in 1..=9 {
        assert_eq!(s.ack(200 + k, k, &[]), "");
    }
    let at = SimTime(209 * MS);
    let pto = (at + s.s.rtt.srtt.saturating_mul(2) + SimDuration::from_millis(200)).min(at + s.s.rtt.rto());
    assert_eq!(s.s.aux_timer, Some((pto, AuxTimer::Probe)));
    // The probe: no new data, so the last segment again (§7.3), and a
    // fresh RTO.
    let mut out = Out::default();
    s.s.on_timer(pto, &s.p, &mut s.ccs, 0, &mut s.cc, &mut out);
    s.s.transmit(pto, &s.p, &mut s.ccs[0], &mut s.stream, &mut out);
    assert_eq!(s.render(out), "F9");
    assert_eq!(s.s.stats.loss_probes, 1);
    assert_eq!(s.s.aux_timer, None);
    assert_eq!(s.s.rto_at, pto + s.s.rtt.rto());
    let done = (pto.0 / MS) + 101;
    assert_eq!(s.ack(done, 10, &[]), "");
    assert_eq!(s.s.state, SenderState::Done);
    assert_eq!(s.s.stats.rto_count, 0);
}

#[test]
fn a_probe_sends_new_data_when_there_is_some() {
    // Window 4 of 20 segments, all four lost: no ACK comes. SRTT is the
    // handshake's 100 ms: PTO = 2·100 + 2 ms after the window left; the
    // probe is new data (segment 4) beyond cwnd, then the RTO runs afresh:
    // 302 + max(200 ms, 100 + 4·50 ms) = 602 ms.
    let mut s = rack_with(4, 20, |p| p.rtt.min_rto = SimDuration::from_millis(200));
    assert_eq!(s.send(100), "N0 N1 N2 N3");
    assert_eq!(s.aux_deadline(), Some((302.0, AuxTimer::Probe)));
    assert_eq!(s.fire(302), "N4");
    assert_eq!(s.s.stats.loss_probes, 1);
    assert_eq!(s.aux_deadline(), None);
    assert_eq!(s.rto_deadline_ms(), 602);
    assert_eq!(s.fire(602), "R0");
}

#[test]
fn rack_sees_reordering_only_below_what_earlier_acks_delivered() {
    // RFC 8985 §6.2 step 3 compares with RACK.fack as it stood before the
    // ACK: one ACK that SACKs segments 6 and 4 (most recent block first)
    // is no reordering; a later ACK that SACKs 3, below 6, is.
    let mut s = rack(10, 20);
    s.send(100);
    s.ack(206, 0, &[(6, 7), (4, 5)]);
    assert!(!s.s.rack.reordering_seen);
    s.ack(207, 0, &[(3, 4), (6, 7)]);
    assert!(s.s.rack.reordering_seen);
}

#[test]
fn linux_takes_racks_rtt_from_the_highest_block_not_the_first_listed() {
    // Segments 0–3 leave at 100 ms; the ACK of 0 at 201 ms grows cwnd to 5
    // and sends 4 and 5 then. At 210 ms one ACK newly SACKs 5 (sent at 201)
    // and 2–3 (sent at 100), the most recent block first (RFC 2018). Three
    // segments SACKed and no reordering: reo_wnd = 0 (RFC 8985 §6.2 step 4).
    // RACK.rtt is the last segment's the walk delivers (`tcp_rack_advance`).
    // Linux sorts the blocks by start (`tcp_sacktag_write_queue`), so the
    // walk ends on 5: RACK.rtt = 9 ms, and 4, sent with 5, is past
    // 201 + 9 = 210 ms: lost at once, with 1.
    fn hole_after(in_order: bool) -> Script {
        let mut s = rack_with(4, 20, |p| p.sack_blocks_in_order = in_order);
        assert_eq!(s.send(100), "N0 N1 N2 N3");
        assert_eq!(s.ack(201, 1, &[]), "N4 N5");
        s.ack(210, 1, &[(5, 6), (2, 4)]);
        s
    }
    let linux = hole_after(true);
    assert_eq!(linux.s.rack.rtt, SimDuration::from_millis(9));
    assert_eq!(linux.s.board.lost_marks, 2);
    assert_eq!(linux.aux_deadline(), None);
    // Walked as listed, the walk ends on 3: RACK.rtt = 110 ms puts 4's
    // deadline at 201 + 110 = 311 ms, and only 1 is lost now.
    let listed = hole_after(false);
    assert_eq!(listed.s.rack.rtt, SimDuration::from_millis(110));
    assert_eq!(listed.s.board.lost_marks, 1);
    assert_eq!(listed.aux_deadline(), Some((311.0, AuxTimer::Reorder)));
}

/// A window of ten of twenty segments, with F-RTO (RFC 5682) on; no ACK
/// comes for a second, and the timeout resends segment 0 with cwnd 1 and
/// ssthresh FlightSize/2 = 5.
pub(super) fn frto_after_a_timeout() -> Script {
    let mut s = Script::new(Recovery::Prr, 10, 20, |p| {
        p.frto = true;
        p.sack_rescue = false;
    });
    assert_eq!(s.send(100), "N0 N1 N2 N3 N4 N5 N6 N7 N8 N9");
    assert_eq!(s.fire(1100), "R0");
    assert_eq!((s.cwnd(), s.ccs[0].ssthresh / MSS), (1, 5));
    s
}

#[test]
fn frto_undoes_a_spurious_timeout() {
    // The ACKs were only late: the first after the timeout acknowledges 0–4,
    // and 1–4 were never resent (RFC 5682 §3.1 step 3.b, Linux
    // `FLAG_ORIG_SACK_ACKED`): cwnd back to 10 and ssthresh to its value
    // before, unlimited (Linux `tcp_undo_cwnd_reduction`); slow start then
    // adds L = 2 segments (RFC 3465): cwnd 12, 5 outstanding, 7 new ones.
    // Nothing is marked lost any more, so 5–9 are not resent.
    let mut s = frto_after_a_timeout();
    assert_eq!(s.ack(1150, 5, &[]), "N10 N11 N12 N13 N14 N15 N16");
    assert_eq!((s.cwnd(), s.ccs[0].ssthresh), (12, u64::MAX));
    assert_eq!(s.s.stats.spurious_rtos, 1);
    assert_eq!(s.ack(1160, 10, &[]), "N17 N18 N19");
    assert_eq!(s.s.stats.retransmits_rto, 1);
}

#[test]
fn frto_keeps_a_genuine_timeout() {
    // The whole window was lost. The ACK of the retransmission of 0 grows
    // cwnd to 2 and, F-RTO's step 2.b, sends two new segments rather than
    // resending 1 and 2.
    let mut s = frto_after_a_timeout();
    assert_eq!(s.ack(1200, 1, &[]), "N10 N11");
    assert_eq!(s.cwnd(), 2);
    // Their SACKs (step 3.a): the loss was real. The retransmissions
    // resume, one per segment that leaves the network; nothing is undone.
    assert_eq!(s.ack(1300, 1, &[(10, 11)]), "R1");
    assert_eq!(s.ack(1301, 1, &[(10, 12)]), "R2");
    assert_eq!((s.cwnd(), s.ccs[0].ssthresh / MSS), (2, 5));
    assert_eq!(s.s.stats.spurious_rtos, 0);
    // The ACK of 1 (resent) is no sign of a spurious timeout either.
    assert_eq!(s.ack(1400, 2, &[(10, 12)]), "R3 R4");
    assert_eq!(s.s.stats.spurious_rtos, 0);
}

#[test]
fn frto_resends_at_once_when_there_is_no_new_data() {
    // Ten segments in all, all lost: step 2.b has no new data to send, so
    // the conventional recovery resumes on the same ACK (Linux
    // `tcp_process_loss` checks the send queue first).
    let mut s = Script::new(Recovery::Prr, 10, 10, |p| {
        p.frto = true;
        p.sack_rescue = false;
    });
    s.send(100);
    assert_eq!(s.fire(1100), "R0");
    assert_eq!(s.ack(1200, 1, &[]), "R1 R2");
    assert!(s.s.frto.is_none());
}

/// Two segments, the whole transfer, the first lost: one SACK at most can
/// come, fewer than DupThresh.
pub(super) fn two_segments_the_first_lost(tweak: impl FnOnce(&mut TcpParams)) -> Script {
    let mut s = Script::new(Recovery::Prr, 2, 2, |p| {
        p.sack_rescue = false;
        tweak(p);
    });
    assert_eq!(s.send(100), "N0 N1");
    s
}

#[test]
fn early_retransmit_needs_outstanding_minus_one_sacks() {
    // RFC 5827 §3.2: two outstanding and no new data (the FIN is out):
    // ER_thresh = 1. The SACK of 1 starts recovery and resends 0 (PRR on
    // entry: cwnd = pipe + 1).
    let mut s = two_segments_the_first_lost(|p| p.early_retransmit = true);
    assert_eq!(s.ack(201, 0, &[(1, 2)]), "F0");
    assert_eq!(s.s.stats.fast_recoveries, 1);
    assert_eq!(s.ack(302, 2, &[]), "");
    assert_eq!(s.s.state, SenderState::Done);
    assert_eq!(s.s.stats.rto_count, 0);
}

#[test]
fn without_early_retransmit_the_sack_waits_for_the_timeout() {
    let mut s = two_segments_the_first_lost(|_| {});
    assert_eq!(s.ack(201, 0, &[(1, 2)]), "");
    assert_eq!(s.aux_deadline(), None);
    assert_eq!(s.fire(1100), "R0");
}

#[test]
fn early_retransmit_does_not_fire_while_new_data_waits() {
    // RFC 5827 §3.1: only when no new data can be sent. Twenty segments,
    // window 2: the SACK releases a new segment instead.
    let mut s = Script::new(Recovery::Prr, 2, 20, |p| {
        p.early_retransmit = true;
        p.sack_rescue = false;
    });
    assert_eq!(s.send(100), "N0 N1");
    assert_eq!(s.ack(201, 0, &[(1, 2)]), "N2");
    assert_eq!(s.s.stats.fast_recoveries, 0);
}

#[test]
fn delayed_early_retransmit_waits_a_quarter_of_an_rtt() {
    // Linux 3.x (`tcp_early_retrans` = 3, RFC 5827 §6 A.3): the due early
    // retransmission is held back max(SRTT/4, 2 ms) = 25 ms.
    let mut s = two_segments_the_first_lost(|p| {
        p.early_retransmit = true;
        p.early_retransmit_delay = true;
    });
    assert_eq!(s.ack(201, 0, &[(1, 2)]), "");
    assert_eq!(s.aux_deadline(), Some((226.0, AuxTimer::EarlyRetransmit)));
    assert_eq!(s.fire(226), "F0");
    assert_eq!(s.s.stats.fast_recoveries, 1);
}

#[test]
fn delayed_early_retransmit_spares_a_segment_that_was_only_reordered() {
    let mut s = two_segments_the_first_lost(|p| {
        p.early_retransmit = true;
        p.early_retransmit_delay = true;
    });
    assert_eq!(s.ack(201, 0, &[(1, 2)]), "");
    assert_eq!(s.ack(210, 2, &[]), "");
    assert_eq!(s.s.state, SenderState::Done);
    assert_eq!(s.s.stats.retransmits_fast, 0);
}

#[test]
fn fack_deems_a_segment_lost_three_segments_below_the_highest_sack() {
    // Segments 0, 1 and 2 of ten lost. The SACK of 3 puts the highest
    // SACKed segment three above 0: with FACK 0 is lost (Linux 3.x
    // `tcp_mark_head_lost` with fackets_out − reordering = 1) and recovery
    // starts; RFC 6675 IsLost needs three SACKed segments above it.
    let mut s = Script::new(Recovery::Prr, 10, 10, |p| {
        p.fack = true;
        p.sack_rescue = false;
    });
    s.send(100);
    assert_eq!(s.ack(204, 0, &[(3, 4)]), "F0");
    // The SACK of 4 makes 1 lost; PRR: pipe 7 > ssthresh 5, so sndcnt =
    // ⌈1·5/10⌉ − 1 ≤ 0 segments: it waits.
    assert_eq!(s.ack(205, 0, &[(3, 5)]), "");
    assert_eq!(s.s.board.lost_bytes, 2 * MSS);

    let mut s = Script::new(Recovery::Prr, 10, 10, |p| p.sack_rescue = false);
    s.send(100);
    assert_eq!(s.ack(204, 0, &[(3, 4)]), "");
    assert_eq!(s.s.stats.fast_recoveries, 0);
}

#[test]
fn fack_finds_a_lost_retransmission() {
    // Linux 3.x `tcp_mark_lost_retrans` (FACK only): segment 0 is resent at
    // 203 ms and the retransmission is lost too. Once a segment sent after
    // it is SACKed, the retransmission is lost and goes again, without
    // waiting for the timeout.
    let mut s = Script::new(Recovery::Prr, 10, 20, |p| {
        p.fack = true;
        p.sack_rescue = false;
    });
    assert_eq!(s.send(100), "N0 N1 N2 N3 N4 N5 N6 N7 N8 N9");
    assert_eq!(s.ack(201, 0, &[(1, 2)]), "N10");
    assert_eq!(s.ack(202, 0, &[(1, 3)]), "N11");
    assert_eq!(s.ack(203, 0, &[(1, 4)]), "F0");
    // PRR sends new segments 12 and 13 at 208 and 209 ms, after the
    // retransmission.
    for k in 5..=7 {
        assert_eq!(s.ack(200 + k, 0, &[(1, k)]), "");
    }
    assert_eq!(s.ack(208, 0, &[(1, 8)]), "N12");
    assert_eq!(s.ack(209, 0, &[(1, 9)]), "N13");
    // The SACKs of 10 and 11 (sent at 201 and 202 ms, before it) say
    // nothing of the retransmission; that of 12 does.
    assert_eq!(s.ack(300, 0, &[(1, 10)]), "N14");
    assert_eq!(s.ack(301, 0, &[(1, 11)]), "N15");
    assert_eq!(s.ack(302, 0, &[(1, 12)]), "N16");
    assert_eq!(s.ack(305, 0, &[(1, 13)]), "F0 N17");
    assert_eq!(s.s.stats.rto_count, 0);
}

#[test]
fn linux_3_loss_probe_timeout() {
    // Linux 3.10–4.x: PTO = max(2·SRTT, 10 ms) = 200 ms with several
    // segments outstanding; with one, at least 1.5·SRTT + 200 ms = 350 ms.
    use crate::transport::tcp::config::TlpPto;
    let mut s = Script::new(Recovery::Prr, 4, 20, |p| {
        p.tlp = true;
        p.tlp_pto = TlpPto::Linux3;
        p.sack_rescue = false;
    });
    assert_eq!(s.send(100), "N0 N1 N2 N3");
    assert_eq!(s.aux_deadline(), Some((300.0, AuxTimer::Probe)));
    let mut s = Script::new(Recovery::Prr, 1, 20, |p| {
        p.tlp = true;
        p.tlp_pto = TlpPto::Linux3;
        p.sack_rescue = false;
    });
    assert_eq!(s.send(100), "N0");
    assert_eq!(s.aux_deadline(), Some((450.0, AuxTimer::Probe)));
}

#[test]
fn a_short_segment_needs_a_whole_segment_of_window_when_counted_in_segments() {
    // cwnd 3.5 segments, three full segments out, a last one of 500 bytes
    // left: in bytes it fits the half segment of room; Linux, counting in
    // segments (`tcp_cwnd_test`: in flight < cwnd, both whole), holds it.
    for (in_segments, want) in [(false, "N0 N1 N2 N3"), (true, "N0 N1 N2")] {
        let mut s = Script::new(Recovery::Prr, 3, 4, |p| p.cwnd_in_segments = in_segments);
        s.stream = Stream::new(Some(3 * MSS + 500));
        s.ccs[0].cwnd = 3 * MSS + MSS / 2;
        assert_eq!(s.send(100), want);
    }
}

/// Linux `tcp_xmit_retransmit_queue`: the head's retransmission restarts
/// the RTO unless RACK's reordering timer holds the timer slot
/// (`icsk_pending == ICSK_TIME_REO_TIMEOUT`). Segments 0, 1 and 2 leave at
/// 100, 110 and 130 ms; the SACK of 2 at 231 ms gives RACK.rtt 101 ms and,
/// with reo_wnd = min_RTT/4 = 25 ms, makes 0 lost at once (100 + 126 ≤ 231)
/// and arms the reordering timer for 1 (110 + 126 = 236 ms) before 0 is
/// resent: the RTO stays where the first send put it, where without the
/// pending timer it would restart from 231 ms.
#[test]
fn resending_the_head_under_a_pending_reordering_timer_leaves_the_rto() {
    let mut s = rack_with(3, 3, |p| p.rto_restart_on_head_retransmit = true);
    s.p.receive_window_bytes = Some(MSS);
    assert_eq!(s.send(100), "N0");
    s.p.receive_window_bytes = Some(2 * MSS);
    assert_eq!(s.send(110), "N1");
    s.p.receive_window_bytes = None;
    assert_eq!(s.send(130), "N2");
    let rto_before = s.rto_deadline_ms();
    assert_eq!(s.ack(231, 0, &[(2, 3)]), "F0");
    assert_eq!(s.aux_deadline(), Some((236.0, AuxTimer::Reorder)));
    assert_eq!(s.rto_deadline_ms(), rto_before);
    assert!(rto_before < 231 + s.s.rtt.rto().0 / MS);
}
