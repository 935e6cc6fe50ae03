//! Scripted exchanges with the sender, one RFC step each: set a state, inject
//! an ACK (or a timer) at time t, assert the exact segments and windows that
//! come out.
//!
//! Segments are numbered from 0 with an MSS of 1000 bytes: segment k holds
//! bytes [1 + 1000·k, 1 + 1000·(k + 1)); the last one also carries the FIN.
//! A transmission is written `N3` (new), `F3` (fast retransmission: loss
//! recovery) or `R3` (retransmission after a timeout). Delayed ACKs, limited
//! transmit and timestamps are off, and a loss halves SND.NXT − SND.UNA
//! (`loss_flight = "flight_size"`), unless a test says otherwise, so the RTT
//! samples come from the segments' send times and every number below follows
//! from the rules cited.

use super::*;
use crate::cc::{Reno, SubflowCc};
use crate::slowstart::Standard;
use crate::transport::tcp::config::{LossFlight, PartialAckRto, Profile, Recovery, TcpParams};
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
        p.loss_flight = LossFlight::FlightSize;
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

mod linux;
mod ns3;

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

/// Linux `tcp_xmit_retransmit_queue`: resending the first unacknowledged
/// segment restarts the timer (203 ms + RTO 1 s); RFC 6298 restarts it only
/// when new data is acknowledged, so it stays where the first send put it.
#[test]
fn resending_the_head_restarts_the_timer_as_linux_does() {
    let deadline = |restart: bool| {
        let mut s = Script::new(Recovery::Sack, 10, 10, |p| p.rto_restart_on_head_retransmit = restart);
        window_of_ten_loses_its_first(&mut s);
        s.rto_deadline_ms()
    };
    assert_eq!(deadline(false), 1100);
    assert_eq!(deadline(true), 1203);
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

/// ns-3 `TcpSocket::SndBufSize`: what is sent and not acknowledged never
/// exceeds the send buffer, in whole segments.
#[test]
fn the_send_buffer_bounds_the_data_outstanding() {
    let mut s = Script::new(Recovery::Sack, 10, 20, |p| p.send_buffer_bytes = Some(3_500));
    assert_eq!(s.send(100), "N0 N1 N2");
    assert_eq!(s.ack(200, 1, &[]), "N3");
}

/// Linux's `__tcp_transmit_skb` (with `push_flag`): what the windows let go
/// at once leaves as one skb, PSH on its last segment; a send of one segment
/// carries none, and without `push_flag` no segment does.
#[test]
fn a_send_of_several_segments_carries_psh_on_its_last() {
    let pushed = |s: &mut Script, ack: Option<(u64, u64)>| -> Vec<(u64, bool)> {
        let mut out = Out::default();
        if let Some((t, next)) = ack {
            let hdr = TcpHeader {
                flags: TcpFlags(TcpFlags::ACK),
                ack: seq(next),
                rwnd: 1 << 30,
                ..TcpHeader::default()
            };
            s.s.on_ack(
                &hdr,
                SimTime(t * MS),
                &s.p,
                &mut s.ccs,
                0,
                &mut s.cc,
                &mut s.ss,
                &mut out,
            );
        }
        let now = SimTime(ack.map_or(100, |a| a.0) * MS);
        s.s.transmit(now, &s.p, &mut s.ccs[0], &mut s.stream, &mut out);
        out.sent
            .iter()
            .map(|o| ((o.header.seq - 1) / MSS, o.header.flags.has(TcpFlags::PSH)))
            .collect()
    };
    let mut s = Script::new(Recovery::Sack, 3, 20, |p| p.push_flag = true);
    assert_eq!(pushed(&mut s, None), [(0, false), (1, false), (2, true)]);
    // Slow start: the ACK of one segment lets two go.
    assert_eq!(pushed(&mut s, Some((200, 1))), [(3, false), (4, true)]);
    let mut one = Script::new(Recovery::Sack, 1, 20, |p| p.push_flag = true);
    assert_eq!(pushed(&mut one, None), [(0, false)]);
    let mut off = Script::new(Recovery::Sack, 3, 20, |_| {});
    assert_eq!(pushed(&mut off, None), [(0, false), (1, false), (2, false)]);
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

/// Linux (≥ 3.16) judges "cwnd-limited" over a window (`tcp_cwnd_validate`,
/// `tcp_is_cwnd_limited`): in slow start a sender that had more than half
/// its cwnd outstanding still grows it. Five segments to send under an IW
/// of 8: cwnd 8 < 2·5, so the first ACK grows it to 9, where the count at
/// each ACK (5 + 1 < 8) leaves it at 8.
#[test]
fn linux_grows_a_slow_start_window_used_more_than_half() {
    for (linux, cwnd_after) in [(true, 9), (false, 8)] {
        let mut s = Script::new(Recovery::Sack, 8, 5, |p| {
            p.cwnd_validation = true;
            p.cwnd_limited_at_send = false;
            p.cwnd_limited_linux = linux;
        });
        assert_eq!(s.send(100), "N0 N1 N2 N3 N4");
        assert_eq!(s.ack(200, 1, &[]), "");
        assert_eq!(s.cwnd(), cwnd_after, "linux {linux}");
    }
    // Used less than half (3 of 8): no growth either way.
    let mut s = Script::new(Recovery::Sack, 8, 3, |p| {
        p.cwnd_validation = true;
        p.cwnd_limited_linux = true;
    });
    assert_eq!(s.send(100), "N0 N1 N2");
    assert_eq!(s.ack(200, 1, &[]), "");
    assert_eq!(s.cwnd(), 8);
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
                tx: Default::default(),
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

/// A path of 100 ms RTT that drops the first transmission of the segments
/// in `lost` and delivers the rest in order of sending, each ACKed at once
/// with the receiver's cumulative point (no SACK). Runs until the sender
/// enters fast recovery a second time and returns SND.NXT − SND.UNA, cwnd
/// (bytes) just before the ACK that started it, and the ssthresh it set.
fn second_recovery(s: &mut Script, lost: &[u64]) -> (u64, u64, u64) {
    let mut arrivals: std::collections::VecDeque<(u64, u64)> = std::collections::VecDeque::new();
    let mut dropped = std::collections::BTreeSet::new();
    let mut held = std::collections::BTreeSet::new();
    let mut next = 0;
    let mut carry = |out: &str, t: u64, arrivals: &mut std::collections::VecDeque<(u64, u64)>| {
        for tok in out.split_whitespace() {
            let k: u64 = tok[1..].parse().unwrap();
            if lost.contains(&k) && dropped.insert(k) {
                continue;
            }
            arrivals.push_back((t + 100, k));
        }
    };
    let first = s.send(100);
    carry(&first, 100, &mut arrivals);
    while let Some((t, k)) = arrivals.pop_front() {
        held.insert(k);
        while held.contains(&next) {
            next += 1;
        }
        let before = (s.s.flight_size(), s.ccs[0].cwnd);
        let recoveries = s.s.stats.fast_recoveries;
        let out = s.ack(t, next, &[]);
        if recoveries == 1 && s.s.stats.fast_recoveries == 2 {
            return (before.0, before.1, s.ccs[0].ssthresh);
        }
        carry(&out, t, &mut arrivals);
    }
    panic!("no second recovery");
}

/// RFC 5681 eq. (4) after a long NewReno recovery (docs/algorithms.md,
/// "What a loss halves"). A window of 20 loses four segments, which NewReno
/// repairs one per round trip while each duplicate ACK's inflation sends
/// new data, and the first of that new data is lost too: when recovery
/// ends at that hole, SND.NXT − SND.UNA is what those rounds sent, most of
/// it already at the receiver, against a cwnd of ssthresh = 10 segments.
/// The next loss halves SND.NXT − SND.UNA to the letter (`flight_size`),
/// or no more than cwnd (`capped_flight_size`, the `rfc` profile's), or
/// cwnd (`cwnd`).
#[test]
fn after_a_long_newreno_recovery_the_next_loss_halves_what_the_rule_says() {
    let lost = [0, 4, 8, 12, 20];
    let mut seen = Vec::new();
    for rule in [LossFlight::FlightSize, LossFlight::CappedFlightSize, LossFlight::Cwnd] {
        let mut s = Script::new(Recovery::NewReno, 20, 200, |p| p.loss_flight = rule);
        let (flight, cwnd, ssthresh) = second_recovery(&mut s, &lost);
        // The first episode set ssthresh to 10 segments and left cwnd there;
        // what NewReno sent during its four rounds is still outstanding.
        assert_eq!(cwnd, 10 * MSS, "{rule:?}");
        assert!(flight >= 2 * cwnd, "{rule:?}: flight {flight}, cwnd {cwnd}");
        let halved = match rule {
            LossFlight::FlightSize => flight,
            _ => flight.min(cwnd),
        };
        assert_eq!(ssthresh, (halved / 2).max(2 * MSS), "{rule:?}");
        seen.push((flight, ssthresh));
    }
    // The same run up to the loss whatever the rule: only the halving differs.
    assert_eq!(seen[0].0, seen[1].0);
    assert_eq!(seen[1], seen[2]);
    assert!(seen[0].1 >= 2 * seen[1].1);
}
