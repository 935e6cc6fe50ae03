//! Scripted exchanges with the sender, one RFC step each: set a state, inject
//! an ACK (or a timer) at time t, assert the exact segments and windows that
//! come out.
//!
//! Segments are numbered from 0 with an MSS of 1000 bytes: segment k holds
//! bytes [1 + 1000·k, 1 + 1000·(k + 1)); the last one also carries the FIN.
//! A transmission is written `N3` (new), `F3` (fast retransmission: loss
//! recovery) or `R3` (retransmission after a timeout). Delayed ACKs, limited
//! transmit and timestamps are off unless a test says otherwise, so the RTT
//! samples come from the segments' send times and every number below follows
//! from the rules cited.

use super::*;
use crate::cc::{Reno, SubflowCc};
use crate::slowstart::Standard;
use crate::transport::tcp::config::{PartialAckRto, Profile, Recovery, TcpParams};
use crate::transport::tcp::scoreboard::Seg;
use crate::wire::tcp::{SackBlock, TcpFlags, TcpHeader};

const MSS: u64 = 1000;
const MS: u64 = 1_000_000;

#[derive(Default)]
struct Out {
    sent: Vec<OutSegment>,
}

impl SenderOutput for Out {
    fn send(&mut self, seg: OutSegment) {
        self.sent.push(seg);
    }
    fn arm_timer(&mut self, _at: SimTime) {}
}

struct Script {
    p: TcpParams,
    s: TcpSender,
    ccs: Vec<SubflowCc>,
    cc: Reno,
    ss: Standard,
    stream: Stream,
    segments: u64,
}

fn seq(k: u64) -> u64 {
    1 + k * MSS
}

impl Script {
    /// A sender of `segments` segments, established at 100 ms (the
    /// handshake's RTT sample: SRTT 100 ms, RTO max(1 s, 300 ms) = 1 s).
    /// Nothing is sent yet.
    fn new(recovery: Recovery, iw: u64, segments: u64, tweak: impl FnOnce(&mut TcpParams)) -> Self {
        let mut p = Profile::Rfc.params();
        p.mss = MSS as u32;
        p.recovery = recovery;
        p.sack = !matches!(recovery, Recovery::Reno | Recovery::NewReno);
        p.limited_transmit = false;
        p.timestamps = false;
        p.initial_cwnd_segments = iw as u32;
        tweak(&mut p);
        let mut s = TcpSender::new(&p);
        let mut ccs = vec![SubflowCc::new(p.mss, iw * MSS, u64::MAX)];
        let mut cc = Reno::new(p.reno);
        let mut ss = Standard::new(p.slow_start);
        let mut out = Out::default();
        s.start(SimTime::ZERO, &p, &mut out);
        let synack = TcpHeader {
            flags: TcpFlags(TcpFlags::SYN | TcpFlags::ACK),
            ack: 1,
            rwnd: 1 << 30,
            ..TcpHeader::default()
        };
        s.on_ack(&synack, SimTime(100 * MS), &p, &mut ccs, 0, &mut cc, &mut ss, &mut out);
        Script {
            p,
            s,
            ccs,
            cc,
            ss,
            stream: Stream::new(Some(segments * MSS)),
            segments,
        }
    }

    fn render(&self, out: Out) -> String {
        out.sent
            .iter()
            .filter(|o| o.header.payload_bytes > 0)
            .map(|o| {
                let k = (o.header.seq - 1) / MSS;
                let tag = match o.kind {
                    TxKind::New => 'N',
                    TxKind::FastRetransmit => 'F',
                    TxKind::RtoRetransmit => 'R',
                };
                format!("{tag}{k}")
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Sends what the window allows at `t_ms`.
    fn send(&mut self, t_ms: u64) -> String {
        let mut out = Out::default();
        self.s.transmit(
            SimTime(t_ms * MS),
            &self.p,
            &mut self.ccs[0],
            &mut self.stream,
            &mut out,
        );
        self.render(out)
    }

    /// An ACK at `t_ms` of every segment below `next` (all of them and the
    /// FIN when `next` is the number of segments), SACKing the segment
    /// ranges `[a, b)` given; then what the window allows is sent.
    fn ack(&mut self, t_ms: u64, next: u64, sacked: &[(u64, u64)]) -> String {
        let mut hdr = TcpHeader {
            flags: TcpFlags(TcpFlags::ACK),
            ack: seq(next) + (next == self.segments) as u64,
            rwnd: 1 << 30,
            ..TcpHeader::default()
        };
        for (n, &(a, b)) in sacked.iter().enumerate() {
            hdr.sack[n] = SackBlock {
                start: seq(a),
                end: seq(b) + (b == self.segments) as u64,
            };
        }
        hdr.n_sack = sacked.len() as u8;
        let now = SimTime(t_ms * MS);
        let mut out = Out::default();
        self.s.on_ack(
            &hdr,
            now,
            &self.p,
            &mut self.ccs,
            0,
            &mut self.cc,
            &mut self.ss,
            &mut out,
        );
        self.s
            .transmit(now, &self.p, &mut self.ccs[0], &mut self.stream, &mut out);
        self.render(out)
    }

    /// The sender's timer fires at `t_ms`; then what the window allows is sent.
    fn fire(&mut self, t_ms: u64) -> String {
        let now = SimTime(t_ms * MS);
        let mut out = Out::default();
        self.s.on_timer(now, &self.p, &mut self.ccs, 0, &mut self.cc, &mut out);
        self.s
            .transmit(now, &self.p, &mut self.ccs[0], &mut self.stream, &mut out);
        self.render(out)
    }

    fn cwnd(&self) -> u64 {
        self.ccs[0].cwnd / MSS
    }

    fn rto_deadline_ms(&self) -> u64 {
        self.s.rto_at.0 / MS
    }

    /// The reordering or probe deadline, in ms, and which it is.
    fn aux_deadline(&self) -> Option<(f64, AuxTimer)> {
        self.s.aux_timer.map(|(t, k)| (t.0 as f64 / MS as f64, k))
    }
}

/// A window of ten segments whose segments 0, 4 and 7 are lost, under
/// NewReno: three duplicate ACKs (for segments 1–3) start recovery and
/// resend segment 0; its ACK is partial (up to 4) and resends 4 and restarts
/// the timer; the next partial ACK (up to 7) resends 7 — and, Impatient,
/// leaves the timer where the first partial ACK put it.
fn newreno_three_holes(rto: PartialAckRto) -> Script {
    let mut s = Script::new(Recovery::NewReno, 10, 20, |p| p.partial_ack_rto = rto);
    assert_eq!(s.send(100), "N0 N1 N2 N3 N4 N5 N6 N7 N8 N9");
    // RFC 6298 §5.1: the timer starts with the first segment, RTO 1 s.
    assert_eq!(s.rto_deadline_ms(), 1100);
    assert_eq!(s.ack(201, 0, &[]), "");
    assert_eq!(s.ack(202, 0, &[]), "");
    // RFC 6582 §3.2 step 2: ssthresh = FlightSize/2 = 5, resend, cwnd = 5 + 3.
    assert_eq!(s.ack(203, 0, &[]), "F0");
    assert_eq!((s.ccs[0].ssthresh / MSS, s.cwnd()), (5, 8));
    // Duplicate ACKs for 5, 6, 8, 9 inflate cwnd by one each (step 4): 12,
    // against a FlightSize of 10: two new segments.
    assert_eq!(s.ack(205, 0, &[]), "");
    assert_eq!(s.ack(206, 0, &[]), "");
    assert_eq!(s.ack(208, 0, &[]), "N10");
    assert_eq!(s.ack(209, 0, &[]), "N11");
    // Step 5: the partial ACK of 0–3 resends 4 and deflates cwnd by the 4
    // acknowledged, plus one: 12 − 4 + 1 = 9, against a FlightSize of 8
    // (4–11): one new segment. The timer restarts: 303 + 1000.
    assert_eq!(s.ack(303, 4, &[]), "F4 N12");
    assert_eq!(s.cwnd(), 9);
    assert_eq!(s.rto_deadline_ms(), 1303);
    // The second partial ACK (0–6) resends 7; cwnd 9 − 3 + 1 = 7 against
    // a FlightSize of 6 (7–12): one new segment.
    assert_eq!(s.ack(403, 7, &[]), "F7 N13");
    assert_eq!(s.cwnd(), 7);
    s
}

#[test]
fn impatient_newreno_restarts_the_timer_on_the_first_partial_ack_only() {
    let s = newreno_three_holes(PartialAckRto::Impatient);
    assert_eq!(s.rto_deadline_ms(), 1303);
}

#[test]
fn slow_but_steady_newreno_restarts_the_timer_on_every_partial_ack() {
    let s = newreno_three_holes(PartialAckRto::SlowButSteady);
    assert_eq!(s.rto_deadline_ms(), 1403);
}

/// SACK recovery's start: a window of ten whose first segment is lost;
/// the SACKs of 1–3 (at 201–203 ms) make it lost and resend it (RFC 6675
/// §5: IsLost with three segments SACKed above it, then step 4.3).
fn window_of_ten_loses_its_first(s: &mut Script) {
    assert_eq!(s.send(100), "N0 N1 N2 N3 N4 N5 N6 N7 N8 N9");
    assert_eq!(s.ack(201, 0, &[(1, 2)]), "");
    assert_eq!(s.ack(202, 0, &[(1, 3)]), "");
    assert_eq!(s.ack(203, 0, &[(1, 4)]), "F0");
}

#[test]
fn a_lost_and_retransmitted_segment_counts_once_in_pipe() {
    // RFC 6675 §4 SetPipe: a segment deemed lost counts 0, its
    // retransmission 1. Ten segments, 0 lost, 1–3 SACKed: 0 is lost
    // (3 segments SACKed above it) and resent at once (§5 step 4.3).
    let mut s = Script::new(Recovery::Sack, 10, 10, |_| {});
    window_of_ten_loses_its_first(&mut s);
    // pipe = 6 outstanding (4–9) + 1 retransmission = 7 segments, and the
    // FIN's sequence number.
    assert_eq!(s.s.pipe(), 7 * MSS + 1);
    // ssthresh = cwnd = FlightSize/2 = 5 (RFC 6675 §5 step 4.2).
    assert_eq!(s.cwnd(), 5);
}

#[test]
fn sack_recovery_rescues_a_lost_tail_that_no_sack_reveals() {
    // Segments 0 and 9 (the last) lost. SACKs of 1–3 start recovery and
    // resend 0; SACKs of 4, 5 and 6 bring pipe from 7 to 4, below cwnd 5.
    // No segment below the highest SACK is left (rule 3: 0 is already
    // resent) and there is no new data (rule 2), so rule 4 resends 9, the
    // highest unSACKed segment, once.
    let mut s = Script::new(Recovery::Sack, 10, 10, |_| {});
    window_of_ten_loses_its_first(&mut s);
    assert_eq!(s.ack(204, 0, &[(1, 5)]), "");
    assert_eq!(s.ack(205, 0, &[(1, 6)]), "");
    assert_eq!(s.ack(206, 0, &[(1, 7)]), "F9");
    assert_eq!(s.ack(207, 0, &[(1, 8)]), "");
    assert_eq!(s.ack(208, 0, &[(1, 9)]), "");
    // The retransmissions of 0 and 9 arrive: everything is acknowledged
    // one RTT after recovery began, with no timeout.
    assert_eq!(s.ack(303, 9, &[]), "");
    assert_eq!(s.ack(306, 10, &[]), "");
    assert_eq!(s.s.state, SenderState::Done);
    assert_eq!(s.s.stats.rto_count, 0);
    assert_eq!(s.s.stats.retransmits_fast, 2);
}

#[test]
fn without_the_rescue_a_lost_tail_waits_for_the_timeout() {
    let mut s = Script::new(Recovery::Sack, 10, 10, |p| p.sack_rescue = false);
    s.send(100);
    for (t, k) in (201..=208).zip(2..=9) {
        s.ack(t, 0, &[(1, k)]);
    }
    assert_eq!(s.ack(303, 9, &[]), "");
    // The RTO restarted by the partial ACK: 303 + 1000.
    assert_eq!(s.rto_deadline_ms(), 1303);
    assert_eq!(s.fire(1303), "R9");
    assert_eq!(s.s.stats.rto_count, 1);
}

#[test]
fn sack_rule_3_resends_a_hole_below_the_highest_sack_not_yet_deemed_lost() {
    // Segments 0 and 5 of ten lost. SACKs of 1–3 start recovery (F0, pipe
    // 7, cwnd 5); SACKs of 4, 6 and 7 bring pipe to 4. Segment 5 has only
    // two segments SACKed above it, so it is not deemed lost (rule 1), and
    // there is no new data (rule 2): rule 3 resends it.
    let mut s = Script::new(Recovery::Sack, 10, 10, |_| {});
    window_of_ten_loses_its_first(&mut s);
    assert_eq!(s.ack(204, 0, &[(1, 5)]), "");
    assert_eq!(s.ack(206, 0, &[(6, 7), (1, 5)]), "");
    assert_eq!(s.ack(207, 0, &[(6, 8), (1, 5)]), "F5");
    // Resent without being deemed lost, 5 counts twice (SetPipe): 0 once,
    // 5 twice, 8 and 9 once: 5 = cwnd (and the FIN's sequence number).
    assert_eq!(s.s.pipe(), 5 * MSS + 1);
    // SACK of 8: pipe 4. Rules 1–3 have nothing (5 is resent already, and
    // HighRxt is past it); rule 4 resends the highest unSACKed segment, 9.
    assert_eq!(s.ack(208, 0, &[(6, 9), (1, 5)]), "F9");
    // The first retransmission's ACK (0–4) and the rest: done, no timeout.
    assert_eq!(s.ack(209, 0, &[(6, 10), (1, 5)]), "");
    assert_eq!(s.ack(303, 5, &[(6, 10)]), "");
    assert_eq!(s.ack(307, 10, &[]), "");
    assert_eq!(s.s.state, SenderState::Done);
    assert_eq!(s.s.stats.rto_count, 0);
}

/// A Linux-like sender: SACK, PRR, RACK-TLP.
fn rack(iw: u64, segments: u64) -> Script {
    Script::new(Recovery::Prr, iw, segments, |p| {
        p.rack = true;
        p.tlp = true;
        p.sack_rescue = false;
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
    let mut s = Script::new(Recovery::Prr, 10, 10, |p| {
        p.rack = true;
        p.tlp = true;
        p.sack_rescue = false;
        p.rtt.min_rto = SimDuration::from_millis(200);
    });
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
    let mut s = Script::new(Recovery::Prr, 4, 20, |p| {
        p.rack = true;
        p.tlp = true;
        p.sack_rescue = false;
        p.rtt.min_rto = SimDuration::from_millis(200);
    });
    assert_eq!(s.send(100), "N0 N1 N2 N3");
    assert_eq!(s.aux_deadline(), Some((302.0, AuxTimer::Probe)));
    assert_eq!(s.fire(302), "N4");
    assert_eq!(s.s.stats.loss_probes, 1);
    assert_eq!(s.aux_deadline(), None);
    assert_eq!(s.rto_deadline_ms(), 602);
    assert_eq!(s.fire(602), "R0");
}

/// ns-3.44's SACK recovery (the `ns3` profile's): ns-3's duplicate-ACK rule,
/// PRR accounting, ssthresh from pipe, the partial-ACK resend, no rescue.
fn ns3_with_sack(p: &mut TcpParams) {
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

/// ns-3 `TcpSocket::SndBufSize`: what is sent and not acknowledged never
/// exceeds the send buffer, in whole segments.
#[test]
fn the_send_buffer_bounds_the_data_outstanding() {
    let mut s = Script::new(Recovery::Sack, 10, 20, |p| p.send_buffer_bytes = Some(3_500));
    assert_eq!(s.send(100), "N0 N1 N2");
    assert_eq!(s.ack(200, 1, &[]), "N3");
}

/// A constant advertised window (the legacy ns-3 MPTCP model's 16-bit
/// window per subflow) bounds the data outstanding whatever cwnd: 3 500
/// bytes hold three segments of 1 000, and each ACK of one lets one more go.
#[test]
fn the_receive_window_cap_bounds_the_flight_size() {
    let mut s = Script::new(Recovery::Sack, 10, 20, |p| p.receive_window_bytes = Some(3_500));
    assert_eq!(s.send(100), "N0 N1 N2");
    assert_eq!(s.ack(200, 1, &[]), "N3");
    assert_eq!(s.ack(210, 3, &[]), "N4 N5");
}

/// A window of ten of twenty segments, with F-RTO (RFC 5682) on; no ACK
/// comes for a second, and the timeout resends segment 0 with cwnd 1 and
/// ssthresh FlightSize/2 = 5.
fn frto_after_a_timeout() -> Script {
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
fn two_segments_the_first_lost(tweak: impl FnOnce(&mut TcpParams)) -> Script {
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
fn ns3_without_sack(p: &mut TcpParams) {
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

/// After a timeout, a new recovery may start once HighACK reaches the
/// recovery point (RFC 6675 §5.1, as ns-3 and Linux do); RFC 6582 §3.2 step 1
/// waits for an ACK above it.
#[test]
fn after_a_timeout_sack_recovery_may_start_at_the_recovery_point_newreno_only_above() {
    for (recovery, third) in [(Recovery::Sack, "F4"), (Recovery::NewReno, "")] {
        let mut s = Script::new(recovery, 4, 20, |_| {});
        assert_eq!(s.send(100), "N0 N1 N2 N3");
        assert_eq!(s.fire(1100), "R0");
        // SND.UNA reaches the recovery point (segment 4); RFC 3465 L = 2: cwnd 3.
        assert_eq!(s.ack(1200, 4, &[]), "N4 N5 N6");
        assert_eq!(s.ack(1201, 4, &[]), "");
        assert_eq!(s.ack(1202, 4, &[]), "");
        assert_eq!(s.ack(1203, 4, &[]), third, "{recovery:?}");
    }
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

/// Window growth only while cwnd-limited, judged as ns-3's
/// `SendDataPacket` does (`m_isCwndLimited` after the last segment sent,
/// holding until the next) or at every ACK from the flight before it.
#[test]
fn cwnd_limited_as_the_last_segment_sent_left_it_or_as_each_ack_finds_it() {
    for (at_send, cwnd_after) in [(true, 6), (false, 5)] {
        let mut s = Script::new(Recovery::Sack, 4, 4, |p| {
            p.cwnd_validation = true;
            p.cwnd_limited_at_send = at_send;
        });
        // The whole transfer in the first window: cwnd 4 full.
        assert_eq!(s.send(100), "N0 N1 N2 N3");
        // Slow start: the first ACK finds the window full either way.
        assert_eq!(s.ack(200, 1, &[]), "");
        assert_eq!(s.cwnd(), 5);
        // 3 of 5 outstanding: not limited by this ACK's count, still
        // limited by ns-3's, as nothing was sent since.
        assert_eq!(s.ack(201, 2, &[]), "");
        assert_eq!(s.cwnd(), cwnd_after, "at_send {at_send}");
    }
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

mod search {
    use super::*;
    use proptest::prelude::*;

    /// A sender whose scoreboard holds segments of the given lengths, one
    /// after the other from sequence number 1 (MSS 1000).
    fn with_segments(lens: &[u32]) -> TcpSender {
        let mut p = Profile::Rfc.params();
        p.mss = MSS as u32;
        let mut s = TcpSender::new(&p);
        let mut start = 1;
        for &len in lens {
            s.board.segs.push_back(Seg {
                start,
                len,
                dsn: start,
                fin: false,
                data_fin: false,
                sent_at: SimTime::ZERO,
                flags: 0,
            });
            start += len as u64;
        }
        s
    }

    proptest! {
        /// The search from the MSS guess finds what a binary search finds,
        /// for both predicates the sender uses, whatever the segments'
        /// lengths (shorter or longer than the MSS, or mixed) and wherever
        /// the sequence number is (before, inside, after the scoreboard).
        #[test]
        fn finds_what_a_binary_search_finds(
            lens in prop::collection::vec(prop_oneof![3 => Just(1000u32), 1 => 1u32..3000], 0..60),
            at in 0u64..70_000,
        ) {
            let s = with_segments(&lens);
            prop_assert_eq!(s.board.search(at, |g| g.end() <= at), s.board.segs.partition_point(|g| g.end() <= at));
            prop_assert_eq!(s.board.search(at, |g| g.start < at), s.board.segs.partition_point(|g| g.start < at));
        }
    }
}
