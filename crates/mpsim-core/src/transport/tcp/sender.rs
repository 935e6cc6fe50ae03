//! The TCP data sender of one subflow: handshake, segment transmission, ACK
//! processing, loss recovery (RFC 5681 Reno, RFC 6582 NewReno, RFC 6675
//! SACK, RFC 6937 PRR)
//! and retransmission timeout (RFC 6298).
//!
//! The sender is pure logic: it reads and writes its subflow's congestion
//! state ([`SubflowCc`]) and asks the caller, through [`SenderOutput`], to
//! send segments and to arm its timer. Window growth is delegated to a
//! slow-start strategy and a congestion-avoidance algorithm, both of which see
//! every subflow of the connection.
//!
//! The sender does not decide what data to send: a [`DataSupply`] hands it
//! chunks (for a TCP flow, its byte stream; for an MPTCP subflow, what the
//! connection's scheduler gives it), each sent as one segment and never
//! repacketised. The scoreboard is one small record per segment in a ring
//! buffer that grows to the largest window and is then reused.

use std::collections::VecDeque;

use super::config::{DupAckRule, LossFlight, PartialAckRto, PrrVariant, Recovery, TcpParams, TlpPto};
use super::rtt::RttEstimator;
use super::timer::LazyTimer;
use crate::cc::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::slowstart::SlowStart;
use crate::time::{SimDuration, SimTime};
use crate::wire::tcp::{SackBlock, TcpFlags, TcpHeader};

/// Whether the sender keeps a SACK scoreboard: Reno and NewReno recovery
/// ignore it (their window inflation already stands for the segments that
/// left); without SACK it is fed by duplicate ACKs when `emulate_sack`.
#[inline]
fn uses_sack(params: &TcpParams) -> bool {
    (params.sack || params.emulate_sack) && !matches!(params.recovery, Recovery::Reno | Recovery::NewReno)
}

const SACKED: u8 = 1;
/// Deemed lost (RFC 6675 IsLost, an RTO, a partial ACK, RACK); stays set
/// when the segment is retransmitted, so that a lost and retransmitted
/// segment counts once in `pipe` (RFC 6675 §4 SetPipe).
const LOST: u8 = 2;
/// Retransmitted and not deemed lost again since: lost with RETRANS is a
/// retransmission in flight, lost without it is waiting to be resent.
const RETRANS: u8 = 4;
/// Retransmitted at least once (Karn's rule: no RTT sample from it).
const EVER_RETRANS: u8 = 8;

#[derive(Copy, Clone, Debug)]
struct Seg {
    /// First sequence number.
    start: u64,
    /// Sequence space taken: payload plus one for a FIN.
    len: u32,
    /// Data sequence number of the first payload byte (MPTCP DSN; for TCP
    /// the same as `start`).
    dsn: u64,
    fin: bool,
    /// Whether the segment carries the MPTCP DATA_FIN.
    data_fin: bool,
    /// When the segment was last sent.
    sent_at: SimTime,
    flags: u8,
}

impl Seg {
    #[inline]
    fn end(&self) -> u64 {
        self.start + self.len as u64
    }
    #[inline]
    fn payload(&self) -> u32 {
        self.len - self.fin as u32
    }
}

/// A piece of data a segment carries.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Data sequence number of its first byte.
    pub dsn: u64,
    /// Payload bytes.
    pub len: u32,
    /// Whether the segment also carries the FIN (end of the stream).
    pub fin: bool,
    /// Whether the chunk ends the MPTCP connection's data (DATA_FIN).
    pub data_fin: bool,
}

/// Where a sender's new data comes from.
pub trait DataSupply {
    /// Payload length of the next chunk of at most `max_len` bytes, without
    /// taking it; `None` when there is nothing to send.
    fn peek(&self, max_len: u32) -> Option<Chunk>;
    /// Takes the chunk `peek` returned.
    fn take(&mut self, max_len: u32) -> Option<Chunk>;
}

/// The byte stream of a single-path TCP flow: bytes 1 .. 1 + size, then the FIN.
#[derive(Clone, Copy, Debug)]
pub struct Stream {
    /// Next byte to hand out.
    pub next: u64,
    /// One past the last byte; `u64::MAX` for a stream without end.
    pub end: u64,
}

impl Stream {
    pub fn new(size_bytes: Option<u64>) -> Self {
        Stream {
            next: 1,
            end: size_bytes.map_or(u64::MAX, |n| 1 + n),
        }
    }
}

impl DataSupply for Stream {
    fn peek(&self, max_len: u32) -> Option<Chunk> {
        if self.next > self.end || (self.next == self.end && self.end == u64::MAX) {
            return None;
        }
        let len = (self.end - self.next).min(max_len as u64) as u32;
        Some(Chunk {
            dsn: self.next,
            len,
            fin: self.next + len as u64 == self.end,
            data_fin: false,
        })
    }

    fn take(&mut self, max_len: u32) -> Option<Chunk> {
        let c = self.peek(max_len)?;
        // Past the end once the FIN is handed out.
        self.next += c.len as u64 + c.fin as u64;
        Some(c)
    }
}

/// Where the sender is in its life: the phase the tracing hook reports.
pub use crate::observe::SubflowPhase as SenderState;

/// Why a segment is (re)transmitted; every retransmission is counted once
/// with its cause.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TxKind {
    New,
    /// Retransmission during fast recovery (duplicate ACKs or SACK).
    FastRetransmit,
    /// Retransmission after a retransmission timeout.
    RtoRetransmit,
}

/// A segment the caller must put on the wire.
#[derive(Copy, Clone, Debug)]
pub struct OutSegment {
    pub header: TcpHeader,
    pub kind: TxKind,
}

/// What the sender asks of its caller.
pub trait SenderOutput {
    fn send(&mut self, seg: OutSegment);
    /// Schedule the sender's timer event at this time.
    fn arm_timer(&mut self, at: SimTime);
}

/// Recovery episode state.
#[derive(Clone, Copy, Debug)]
struct RecoveryState {
    /// RFC 6582 `recover` / RFC 6675 `RecoveryPoint`: the highest sequence
    /// number sent when recovery began; an ACK beyond it ends recovery.
    point: u64,
    /// RFC 6937 prr_delivered, bytes.
    prr_delivered: u64,
    /// RFC 6937 prr_out, bytes.
    prr_out: u64,
    /// RFC 6937 RecoverFS, bytes.
    recover_fs: u64,
    /// RFC 6675 HighRxt: one past the highest sequence number retransmitted
    /// in this episode.
    high_rxt: u64,
    /// RFC 6675 RescueRxt: the recovery point when the rescue
    /// retransmission (NextSeg rule 4) was sent; `None` before.
    rescue_rxt: Option<u64>,
    /// Partial ACKs received in this episode (RFC 6582 §3.2 step 5).
    partial_acks: u32,
}

/// What the sender's timer stands for when it fires before the RTO.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AuxTimer {
    /// RFC 8985 §6.2 step 5: segments sent before the most recently
    /// delivered one become lost when their reordering window runs out.
    Reorder,
    /// RFC 8985 §7.2: the tail loss probe timeout (PTO).
    Probe,
    /// RFC 5827 §6 mitigation A.3 (Linux 3.x `tcp_pause_early_retransmit`):
    /// an early retransmission held back a quarter of an RTT.
    EarlyRetransmit,
}

/// RFC 8985 §6.1 RACK state: the most recently sent segment known to be
/// delivered (acknowledged or SACKed).
#[derive(Copy, Clone, Debug, Default)]
struct Rack {
    /// RACK.xmit_ts: when that segment was (last) sent; `None` before the
    /// first delivery.
    xmit_ts: Option<SimTime>,
    /// RACK.end_seq: one past its last sequence number.
    end_seq: u64,
    /// RACK.rtt: the RTT measured on the latest delivered segment that gave
    /// an unambiguous sample.
    rtt: SimDuration,
    /// Whether RACK.xmit_ts moved with the latest ACK (Linux `rack.advanced`).
    advanced: bool,
    /// RACK.fack: the highest sequence number delivered.
    fack: u64,
    /// RACK.fack before the ACK being processed: a segment this ACK
    /// delivers below it arrived out of order (Linux `prior_fack`).
    prior_fack: u64,
    /// RACK.reordering_seen: a segment was delivered below `fack` without
    /// having been retransmitted.
    reordering_seen: bool,
}

/// RFC 5682 F-RTO after a retransmission timeout (Linux `tp->frto`).
#[derive(Copy, Clone, Debug)]
struct Frto {
    /// Linux `high_seq`: SND.NXT when the timeout fired, moved to SND.NXT
    /// again by the first ACK that advances SND.UNA (§3.1 step 2).
    high_seq: u64,
    /// §3.1 step 2.b: the next transmission sends new data, not the
    /// segments the timeout marked lost.
    new_data_turn: bool,
}

/// What the first timeout of an episode found, to restore if it was
/// spurious (Linux `prior_cwnd`, `prior_ssthresh`).
#[derive(Copy, Clone, Debug, Default)]
struct RtoUndo {
    /// cwnd before the timeout, bytes.
    cwnd: u64,
    /// ssthresh before it: at least 3/4 of cwnd outside recovery (Linux
    /// `tcp_current_ssthresh`), bytes.
    ssthresh: u64,
    /// SND.UNA at the latest timeout: a timeout with no progress since
    /// recurs (RFC 5682 §3.2).
    una: u64,
}

/// Counters reported per flow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub first_syn_at: Option<SimTime>,
    pub established_at: Option<SimTime>,
    pub completed_at: Option<SimTime>,
    pub syn_retransmits: u64,
    /// Data segments sent, retransmissions included.
    pub segments_sent: u64,
    pub retransmits_fast: u64,
    pub retransmits_rto: u64,
    pub rto_count: u64,
    pub fast_recoveries: u64,
    /// First time the subflow left slow start (ssthresh reached or a loss).
    pub slow_start_exit_at: Option<SimTime>,
    pub cwnd_at_slow_start_exit: u64,
    pub retransmits_before_slow_start_exit: u64,
    /// RFC 8985 tail loss probes sent (new data or a retransmission).
    pub loss_probes: u64,
    /// Timeouts that F-RTO (RFC 5682) found spurious and undid.
    pub spurious_rtos: u64,
    /// Duplicate ACKs received as RFC 5681 §2 defines them (what a packet
    /// trace's analysis counts), whatever recovery made of them.
    pub duplicate_acks: u64,
}

#[derive(Clone, Debug)]
pub struct TcpSender {
    pub state: SenderState,
    /// Oldest unacknowledged sequence number.
    pub snd_una: u64,
    /// Next new sequence number to send (RFC 6675 HighData + 1).
    pub snd_nxt: u64,
    /// One past the FIN once it has been sent.
    fin_end: Option<u64>,
    /// Segment size in payload bytes.
    mss: u32,
    /// Per-segment scoreboard from the segment holding `snd_una`, in
    /// sequence order and contiguous.
    segs: VecDeque<Seg>,
    /// Bytes in segments [snd_una, snd_nxt) that are SACKed / deemed lost
    /// (retransmitted or not) / retransmitted and not lost again (FIN
    /// counted as one byte).
    sacked_bytes: u64,
    lost_bytes: u64,
    retrans_bytes: u64,
    /// Lowest sequence number that may hold a lost, not yet retransmitted segment.
    retx_hint: u64,
    /// Consecutive duplicate ACKs.
    pub dupacks: u32,
    /// Whether the latest ACK cumulatively acknowledged a retransmitted
    /// segment (ns-3's `m_isRetransDataAcked`, PRR's "safe ACK").
    acked_retransmission: bool,
    recovery: Option<RecoveryState>,
    /// After an RTO, the highest sequence sent when it fired: no fast
    /// retransmit until the cumulative ACK passes it (RFC 6582 §3.2 step 1).
    rto_recover: u64,
    /// In RTO loss recovery (Linux CA_Loss): retransmissions count as RTO ones.
    in_rto_recovery: bool,
    pub rtt: RttEstimator,
    /// The one timer event the sender keeps; its deadline is the earlier of
    /// `rto_at` and `aux_timer`'s.
    pub timer: LazyTimer,
    /// RFC 6298 retransmission timer deadline; `SimTime::NEVER` when stopped.
    pub rto_at: SimTime,
    /// A reordering or loss-probe deadline before the RTO.
    aux_timer: Option<(SimTime, AuxTimer)>,
    rack: Rack,
    /// Segments SACKed (Linux `sacked_out`).
    sacked_segs: u64,
    /// RFC 8985 §7: TLPRxtOut's sequence — SND.NXT when the outstanding
    /// probe was sent; `None` with no probe outstanding.
    tlp_high_seq: Option<u64>,
    /// Whether the outstanding probe was a retransmission.
    tlp_retrans: bool,
    /// The PTO fired: the next transmission may exceed cwnd by one segment,
    /// new data first, else the last segment again (RFC 8985 §7.3).
    probe_pending: bool,
    /// ns-3's partial-ACK retransmission found no lost segment: one new
    /// segment may go whatever cwnd, or else the head is resent.
    partial_ack_send: bool,
    /// New data left since the last [`TcpSender::after_push`].
    sent_new: bool,
    /// F-RTO under way after the latest timeout; `None` when off or over.
    frto: Option<Frto>,
    rto_undo: RtoUndo,
    /// The latest push left the window room unused, or the FIN is out: no
    /// new data to send (RFC 5827 §3.1's condition for early retransmit).
    no_new_data: bool,
    /// The ACK being processed delivered a segment sent before the
    /// timeout and never resent (Linux `FLAG_ORIG_SACK_ACKED`).
    orig_delivered: bool,
    /// SYN timeout in force (doubles per SYN retransmission).
    syn_rto: SimDuration,
    /// When the SYN was last sent and whether it was ever retransmitted.
    syn_sent_at: SimTime,
    /// Peer's advertised receive window, bytes.
    peer_rwnd: u64,
    /// Latest TSval received, to echo.
    ts_recent: SimTime,
    /// Whether the latest transmission attempt stopped because cwnd was full.
    cwnd_full: bool,
    /// An MPTCP subflow leaves flow control to its connection (RFC 8684
    /// §3.3.4: the window is relative to DATA_ACK).
    pub ignore_peer_rwnd: bool,
    /// SND.UNA when the sending application last heard of acknowledged data
    /// (ns-3's `NewAck`): the send buffer's data starts there.
    sndbuf_una: u64,
    /// Whether the last segment sent left less than one MSS of cwnd unused
    /// (`cwnd_limited_at_send`), and `stats.segments_sent` when judged.
    limited_at_send: bool,
    judged_at_segment: u64,
    pub stats: SenderStats,
}

impl TcpSender {
    pub fn new(params: &TcpParams) -> Self {
        TcpSender {
            state: SenderState::Idle,
            snd_una: 0,
            snd_nxt: 0,
            fin_end: None,
            mss: params.mss,
            segs: VecDeque::new(),
            sacked_bytes: 0,
            lost_bytes: 0,
            retrans_bytes: 0,
            retx_hint: 1,
            dupacks: 0,
            acked_retransmission: false,
            recovery: None,
            rto_recover: 0,
            in_rto_recovery: false,
            rtt: RttEstimator::new(params.rtt),
            timer: LazyTimer::default(),
            rto_at: SimTime::NEVER,
            aux_timer: None,
            rack: Rack::default(),
            sacked_segs: 0,
            tlp_high_seq: None,
            tlp_retrans: false,
            probe_pending: false,
            partial_ack_send: false,
            sent_new: false,
            frto: None,
            rto_undo: RtoUndo::default(),
            orig_delivered: false,
            no_new_data: false,
            syn_rto: params.syn_rto,
            syn_sent_at: SimTime::ZERO,
            peer_rwnd: u64::MAX,
            ts_recent: SimTime::ZERO,
            cwnd_full: false,
            ignore_peer_rwnd: false,
            sndbuf_una: 1,
            limited_at_send: false,
            judged_at_segment: 0,
            stats: SenderStats::default(),
        }
    }

    // ----- scoreboard helpers ------------------------------------------------

    /// `segs.partition_point(below)` for a predicate `below` that holds of
    /// the segments before sequence number `seq` and of none after it.
    /// Segments follow each other and most are one MSS long, so the search
    /// starts where `seq` would be if all were, and walks from there: one or
    /// two reads of the scoreboard instead of a binary search's scattered
    /// ones. It falls back to halving after a few steps, so the answer is
    /// the binary search's whatever the segments' lengths.
    #[inline]
    fn search(&self, seq: u64, below: impl Fn(&Seg) -> bool) -> usize {
        let n = self.segs.len();
        let Some(front) = self.segs.front() else { return 0 };
        let guess = (seq.saturating_sub(front.start) / self.mss.max(1) as u64).min(n as u64) as usize;
        let (mut lo, mut hi) = (0, n);
        let mut at = guess;
        // The answer lies in [lo, hi] throughout.
        for _ in 0..4 {
            if at < n && below(&self.segs[at]) {
                lo = at + 1;
                at += 1;
            } else if at == 0 || below(&self.segs[at - 1]) {
                (lo, hi) = (at, at);
                break;
            } else {
                hi = at - 1;
                at -= 1;
            }
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if below(&self.segs[mid]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        debug_assert_eq!(lo, self.segs.partition_point(below));
        lo
    }

    /// Index in `segs` of the segment holding sequence number `seq`, if sent.
    #[inline]
    fn seg_at(&self, seq: u64) -> Option<usize> {
        let i = self.search(seq, |s| s.end() <= seq);
        (i < self.segs.len() && self.segs[i].start <= seq).then_some(i)
    }

    /// Bytes sent and not acknowledged (RFC 5681 FlightSize).
    #[inline]
    pub fn flight_size(&self) -> u64 {
        self.snd_nxt.saturating_sub(self.snd_una)
    }

    /// RFC 6675 `pipe`: bytes believed to be in the network. Per segment not
    /// SACKed (§4 SetPipe): one if not deemed lost, plus one if retransmitted.
    #[inline]
    pub fn pipe(&self) -> u64 {
        (self.flight_size() + self.retrans_bytes).saturating_sub(self.sacked_bytes + self.lost_bytes)
    }

    /// `pipe` in octets of data, as ns-3's `BytesInFlight` counts it: the
    /// FIN's sequence number left out.
    fn data_pipe(&self) -> u64 {
        let fin_counted = self
            .segs
            .back()
            .is_some_and(|s| s.fin && s.flags & SACKED == 0 && s.flags & (LOST | RETRANS) != LOST);
        self.pipe() - fin_counted as u64
    }

    pub fn in_recovery(&self) -> bool {
        self.recovery.is_some()
    }

    /// Whether the FIN has been sent.
    pub fn fin_sent(&self) -> bool {
        self.fin_end.is_some()
    }

    // ----- connection set-up -----------------------------------------------

    /// Sends the SYN at the flow's start time.
    pub fn start(&mut self, now: SimTime, params: &TcpParams, out: &mut impl SenderOutput) {
        self.state = SenderState::SynSent;
        self.stats.first_syn_at = Some(now);
        self.send_syn(now, params, out);
    }

    fn send_syn(&mut self, now: SimTime, params: &TcpParams, out: &mut impl SenderOutput) {
        self.syn_sent_at = now;
        let header = TcpHeader {
            flags: TcpFlags(TcpFlags::SYN),
            seq: 0,
            ts_val: now,
            ..TcpHeader::default()
        };
        let _ = params;
        out.send(OutSegment {
            header,
            kind: TxKind::New,
        });
        self.rto_at = now + self.syn_rto;
        self.sync_timer(out);
    }

    // ----- transmission ----------------------------------------------------

    /// Builds the header of the data segment `seg`.
    fn data_header(&self, seg: &Seg, now: SimTime) -> TcpHeader {
        TcpHeader {
            flags: TcpFlags(
                TcpFlags::ACK
                    | if seg.fin { TcpFlags::FIN } else { 0 }
                    | if seg.data_fin { TcpFlags::DATA_FIN } else { 0 },
            ),
            seq: seg.start,
            ack: 1,
            payload_bytes: seg.payload(),
            dsn: seg.dsn,
            ts_val: now,
            ts_ecr: self.ts_recent,
            ..TcpHeader::default()
        }
    }

    /// Sends what the window allows: lost segments first (RFC 6675 NextSeg
    /// rule 1), then new data from `supply` (rule 2).
    pub fn transmit(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        cc: &mut SubflowCc,
        supply: &mut impl DataSupply,
        out: &mut impl SenderOutput,
    ) {
        if self.send_retransmissions(now, params, cc, out) {
            while let Some(chunk) = supply.peek(self.mss) {
                if !self.room_for(params, cc, chunk.len) {
                    break;
                }
                let chunk = supply.take(self.mss).expect("peeked");
                self.send_chunk(chunk, now, out);
            }
        }
        self.after_push(now, params, cc, out);
    }

    /// What follows the sending of lost segments and new data, once the
    /// caller (for MPTCP, the connection's scheduler) has placed its data:
    /// RFC 6675 NextSeg rules 3 and 4, the loss probe's retransmission
    /// when it found no new data to send, and a fresh probe timeout after
    /// new data.
    pub fn after_push(&mut self, now: SimTime, params: &TcpParams, cc: &mut SubflowCc, out: &mut impl SenderOutput) {
        if self.frto.is_some_and(|f| f.new_data_turn) {
            // RFC 5682 §3.1 step 2.b: no new data could go, so F-RTO gives
            // way to the conventional recovery (Linux `tcp_xmit_recovery`).
            self.frto = None;
            self.send_retransmissions(now, params, cc, out);
        }
        self.send_rescue(now, params, cc, out);
        if std::mem::take(&mut self.partial_ack_send)
            && self.segs.front().is_some_and(|s| s.flags & (RETRANS | SACKED) == 0)
        {
            // No new data could go: ns-3's `DoRetransmit` resends the head.
            self.retransmit(0, now, out);
        }
        if self.probe_pending {
            // RFC 8985 §7.3: no new data could go: resend the last segment.
            self.probe_pending = false;
            if let Some(i) = self.segs.iter().rposition(|s| s.flags & SACKED == 0) {
                if self.segs[i].flags & RETRANS == 0 && self.state == SenderState::Established {
                    self.retransmit(i, now, out);
                    self.tlp_high_seq = Some(self.snd_nxt);
                    self.tlp_retrans = true;
                }
            }
        } else if self.sent_new
            && self.tlp_high_seq.is_none()
            && self.aux_timer.is_none_or(|(_, k)| k == AuxTimer::Probe)
        {
            // Linux `tcp_write_xmit` → `tcp_schedule_loss_probe`.
            self.schedule_probe(now, params);
            self.sync_timer(out);
        }
        self.sent_new = false;
        self.no_new_data = self.fin_sent() || self.send_budget(params, cc) >= self.mss as u64;
        cc.bytes_in_flight = self.pipe();
        if params.cwnd_limited_at_send && self.stats.segments_sent != self.judged_at_segment {
            // ns-3 judges after each segment; the last one sent decides.
            self.judged_at_segment = self.stats.segments_sent;
            self.limited_at_send = cc.cwnd < self.data_pipe() + self.mss as u64;
        }
    }

    /// RFC 6675 HighRxt of the recovery under way.
    fn high_rxt(&self) -> u64 {
        self.recovery.map_or(self.snd_una, |r| r.high_rxt)
    }

    /// RFC 6675 §4 NextSeg rules 3 and 4, for when rule 1 (lost segments)
    /// and rule 2 (new data) have nothing to send and the window has room:
    /// rule 3 resends the lowest unSACKed segment above HighRxt and below
    /// the highest SACKed byte that is not yet deemed lost; rule 4 resends,
    /// once per episode, the highest unSACKed segment (a "rescue"
    /// retransmission of a tail that no SACK can reveal as lost).
    pub fn send_rescue(&mut self, now: SimTime, params: &TcpParams, cc: &mut SubflowCc, out: &mut impl SenderOutput) {
        if !(params.sack_rule3 || params.sack_rescue) || !uses_sack(params) || self.state != SenderState::Established {
            return;
        }
        let Some(rec) = self.recovery else { return };
        if self.next_lost().is_some() {
            return;
        }
        let top = if params.sack_rule3 && (params.sack || !params.sack_rule3_ns3) {
            match self.segs.iter().rposition(|s| s.flags & SACKED != 0) {
                None if params.sack_rule3_ns3 && params.sack => Some(self.segs.len()),
                top => top,
            }
        } else {
            None
        };
        if let Some(top) = top {
            loop {
                let high_rxt = self.high_rxt();
                let from = self.segs.partition_point(|s| s.start < high_rxt);
                let Some(i) = (from..top).find(|&i| self.segs[i].flags & (SACKED | LOST | RETRANS) == 0) else {
                    break;
                };
                if !self.cwnd_room(params, cc, self.segs[i].payload()) {
                    cc.bytes_in_flight = self.pipe();
                    return;
                }
                self.retransmit(i, now, out);
            }
        }
        // Rule 4: once HighACK has passed RescueRxt (or there was none).
        if !params.sack_rescue || rec.rescue_rxt.is_some_and(|r| self.snd_una <= r) {
            return;
        }
        let Some(i) = self.segs.iter().rposition(|s| s.flags & SACKED == 0) else {
            return;
        };
        if self.segs[i].flags & RETRANS != 0 || !self.cwnd_room(params, cc, self.segs[i].payload()) {
            return;
        }
        let high_rxt = self.high_rxt();
        self.retransmit(i, now, out);
        if let Some(r) = self.recovery.as_mut() {
            // HighRxt is not moved by the rescue (RFC 6675 §4 rule 4).
            r.high_rxt = high_rxt;
            r.rescue_rxt = Some(r.point);
        }
        cc.bytes_in_flight = self.pipe();
    }

    /// Retransmits lost segments while the window allows. Returns whether
    /// the window still has room for new data.
    pub fn send_retransmissions(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        cc: &mut SubflowCc,
        out: &mut impl SenderOutput,
    ) -> bool {
        if self.state != SenderState::Established {
            return false;
        }
        self.cwnd_full = false;
        if self.frto.is_some_and(|f| f.new_data_turn) {
            return true;
        }
        while let Some(i) = self.next_lost() {
            // A retransmission fills a hole below snd_nxt: only cwnd limits it.
            if !self.cwnd_room(params, cc, self.segs[i].payload()) {
                return false;
            }
            self.retransmit(i, now, out);
        }
        cc.bytes_in_flight = self.pipe();
        true
    }

    /// Whether a segment of `payload` bytes fits the congestion window (the
    /// FIN takes a sequence number but no room) and the peer's window.
    /// Records when cwnd is what stops the sender.
    pub fn room_for(&mut self, params: &TcpParams, cc: &SubflowCc, payload: u32) -> bool {
        if self.state != SenderState::Established || self.fin_sent() {
            return false;
        }
        // A loss probe may send one new segment whatever cwnd (Linux
        // `tcp_write_xmit` with push_one = 2).
        let outstanding = self.snd_nxt + payload as u64 - self.snd_una;
        if let Some(b) = params.send_buffer_bytes {
            self.refill_when_short(b, params, cc);
        }
        let buffered = self.snd_nxt + payload as u64 - self.sndbuf_una.min(self.snd_una);
        (self.probe_pending || self.partial_ack_send || self.cwnd_room(params, cc, payload))
            && (self.ignore_peer_rwnd || outstanding <= self.peer_rwnd)
            && params.receive_window_bytes.is_none_or(|w| outstanding <= w)
            && params
                .send_buffer_bytes
                .is_none_or(|b| buffered <= b / self.mss as u64 * self.mss as u64)
    }

    /// ns-3's other refill of the send buffer (`SendPendingData` →
    /// `NotifySend`): about to send new data, when less is left unsent in
    /// the buffer than the window would take, the application is asked for
    /// more, which fills the buffer from SND.UNA as it stands.
    fn refill_when_short(&mut self, buffer_bytes: u64, params: &TcpParams, cc: &SubflowCc) {
        let mss = self.mss as u64;
        let written = self.sndbuf_una.min(self.snd_una) + buffer_bytes / mss * mss;
        let unsent = written.saturating_sub(self.snd_nxt);
        let window = if self.ignore_peer_rwnd {
            cc.cwnd
        } else {
            cc.cwnd.min(self.peer_rwnd)
        };
        let in_network = if uses_sack(params) {
            self.pipe()
        } else {
            self.flight_size()
        };
        let available = window.saturating_sub(in_network);
        if unsent > 0 && unsent < available {
            self.sndbuf_una = self.snd_una;
        }
    }

    /// Whether cwnd has room for `payload` bytes; records when it has not.
    fn cwnd_room(&mut self, params: &TcpParams, cc: &SubflowCc, payload: u32) -> bool {
        // Linux counts the window in segments (`tcp_cwnd_test`): a short
        // segment takes a whole one.
        let need = if params.cwnd_in_segments {
            self.mss as u64
        } else {
            (payload as u64).min(self.mss as u64).max(1)
        };
        if self.send_budget(params, cc) < need {
            self.cwnd_full = true;
            return false;
        }
        true
    }

    /// Bytes the congestion window (and PRR) allows to send now.
    pub fn send_budget(&self, params: &TcpParams, cc: &SubflowCc) -> u64 {
        let in_network = if uses_sack(params) {
            self.pipe()
        } else {
            // Without SACK: RFC 5681 FlightSize; RFC 3042 limited transmit
            // lets the first two duplicate ACKs each release one segment.
            let allowance = if params.limited_transmit && self.recovery.is_none() && self.dupacks > 0 {
                self.dupacks.min(2) as u64 * self.mss as u64
            } else {
                0
            };
            // A lost segment leaves the flight and its retransmission
            // enters it: FlightSize itself once every loss is resent.
            (self.flight_size() + self.retrans_bytes).saturating_sub(allowance + self.lost_bytes)
        };
        // The FIN takes a sequence number but no room in the window.
        let fin_in_flight = self.fin_end.is_some_and(|e| self.snd_una < e) as u64;
        cc.cwnd.saturating_sub(in_network.saturating_sub(fin_in_flight))
    }

    /// Index of the lowest segment deemed lost, not SACKed and not yet
    /// retransmitted (RFC 6675 NextSeg rule 1).
    fn next_lost(&mut self) -> Option<usize> {
        if self.lost_bytes == 0 {
            return None;
        }
        // Nothing at or above the hint (the common case once every loss is
        // resent): no search of the scoreboard, nor a read of it (the last
        // segment ends at snd_nxt).
        debug_assert!(self.segs.back().is_none_or(|s| s.end() == self.snd_nxt));
        if self.segs.is_empty() || self.snd_nxt <= self.retx_hint {
            self.retx_hint = self.snd_nxt;
            return None;
        }
        let hint = self.retx_hint;
        let from = self.search(hint, |s| s.end() <= hint);
        for i in from..self.segs.len() {
            let s = self.segs[i];
            if s.flags & (LOST | RETRANS | SACKED) == LOST {
                self.retx_hint = s.start;
                return Some(i);
            }
        }
        self.retx_hint = self.snd_nxt;
        None
    }

    /// Sends `chunk` as a new segment at `snd_nxt`.
    pub fn send_chunk(&mut self, chunk: Chunk, now: SimTime, out: &mut impl SenderOutput) {
        let seg = Seg {
            start: self.snd_nxt,
            len: chunk.len + chunk.fin as u32,
            dsn: chunk.dsn,
            fin: chunk.fin,
            data_fin: chunk.data_fin,
            sent_at: now,
            flags: 0,
        };
        let header = self.data_header(&seg, now);
        self.segs.push_back(seg);
        // A hint at snd_nxt says no segment waits to be resent; a new one
        // does not either, so the hint moves up with it (and NextSeg is not
        // sent searching the scoreboard for a loss that is not there).
        if self.retx_hint == self.snd_nxt {
            self.retx_hint = seg.end();
        }
        self.snd_nxt = seg.end();
        if chunk.fin {
            self.fin_end = Some(seg.end());
        }
        self.stats.segments_sent += 1;
        if let Some(r) = self.recovery.as_mut() {
            r.prr_out += seg.len as u64;
        }
        self.sent_new = true;
        self.partial_ack_send = false;
        if let Some(f) = self.frto.as_mut() {
            f.new_data_turn = false;
        }
        if self.probe_pending {
            // RFC 8985 §7.3: the probe is this new segment.
            self.probe_pending = false;
            self.tlp_high_seq = Some(self.snd_nxt);
            self.tlp_retrans = false;
        }
        out.send(OutSegment {
            header,
            kind: TxKind::New,
        });
        self.ensure_timer(now, out);
    }

    /// Resends segment `i`: one deemed lost (it then counts once in `pipe`),
    /// or one resent by NextSeg rules 3 and 4 (it then counts twice).
    fn retransmit(&mut self, i: usize, now: SimTime, out: &mut impl SenderOutput) {
        let kind = if self.in_rto_recovery {
            TxKind::RtoRetransmit
        } else {
            TxKind::FastRetransmit
        };
        let s = &mut self.segs[i];
        debug_assert!(s.flags & (RETRANS | SACKED) == 0);
        s.flags |= RETRANS | EVER_RETRANS;
        s.sent_at = now;
        let seg = *s;
        self.retrans_bytes += seg.len as u64;
        let mut header = self.data_header(&seg, now);
        header.retransmission = true;
        self.stats.segments_sent += 1;
        match kind {
            TxKind::RtoRetransmit => self.stats.retransmits_rto += 1,
            _ => self.stats.retransmits_fast += 1,
        }
        if self.stats.slow_start_exit_at.is_none() {
            self.stats.retransmits_before_slow_start_exit += 1;
        }
        if let Some(r) = self.recovery.as_mut() {
            r.prr_out += seg.len as u64;
            r.high_rxt = r.high_rxt.max(seg.end());
        }
        out.send(OutSegment { header, kind });
        self.ensure_timer(now, out);
    }

    /// RFC 6298 §5.1: start the timer when sending if it is not running.
    fn ensure_timer(&mut self, now: SimTime, out: &mut impl SenderOutput) {
        if self.rto_at == SimTime::NEVER {
            self.rto_at = now + self.rtt.rto();
            self.sync_timer(out);
        }
    }

    fn restart_timer(&mut self, now: SimTime, out: &mut impl SenderOutput) {
        self.rto_at = now + self.rtt.rto();
        self.sync_timer(out);
    }

    fn stop_timer(&mut self) {
        self.rto_at = SimTime::NEVER;
        self.aux_timer = None;
        self.timer.stop();
    }

    /// Sets the timer event to the earlier of the RTO and the auxiliary
    /// deadline.
    fn sync_timer(&mut self, out: &mut impl SenderOutput) {
        let at = match self.aux_timer {
            Some((t, _)) => t.min(self.rto_at),
            None => self.rto_at,
        };
        if at == SimTime::NEVER {
            self.timer.stop();
        } else if let Some(at) = self.timer.set(at) {
            out.arm_timer(at);
        }
    }

    /// Retransmits the first unacknowledged segment if it is marked lost and
    /// not yet resent, whatever the window.
    fn retransmit_head(&mut self, now: SimTime, out: &mut impl SenderOutput) {
        if self
            .segs
            .front()
            .is_some_and(|s| s.flags & (LOST | RETRANS | SACKED) == LOST)
        {
            self.retransmit(0, now, out);
        }
    }

    /// Deems segment `i` lost: it waits to be resent. A retransmission
    /// deemed lost again waits to be resent again.
    fn mark_lost(&mut self, i: usize) {
        let s = &mut self.segs[i];
        if s.flags & SACKED != 0 || s.flags & (LOST | RETRANS) == LOST {
            return;
        }
        let len = s.len as u64;
        if s.flags & RETRANS != 0 {
            s.flags &= !RETRANS;
            self.retrans_bytes -= len;
        }
        if s.flags & LOST == 0 {
            s.flags |= LOST;
            self.lost_bytes += len;
        }
        if s.start < self.retx_hint {
            self.retx_hint = s.start;
        }
    }

    /// Records the first exit from slow start.
    pub fn note_slow_start_exit(&mut self, now: SimTime, cwnd: u64) {
        if self.stats.slow_start_exit_at.is_none() {
            self.stats.slow_start_exit_at = Some(now);
            self.stats.cwnd_at_slow_start_exit = cwnd;
        }
    }

    // ----- acknowledgements --------------------------------------------------

    /// Processes an ACK (or SYN-ACK) for subflow `r` of a connection whose
    /// subflows' congestion state is `ccs`.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack<C: CongestionAvoidance, S: SlowStart>(
        &mut self,
        hdr: &TcpHeader,
        now: SimTime,
        params: &TcpParams,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
        ss: &mut S,
        out: &mut impl SenderOutput,
    ) {
        match self.state {
            SenderState::Idle | SenderState::Done | SenderState::Closed => return,
            SenderState::SynSent => {
                if hdr.flags.has(TcpFlags::SYN) && hdr.flags.has(TcpFlags::ACK) && hdr.ack == 1 {
                    self.established(hdr, now, ccs, r, ss, out);
                }
                return;
            }
            SenderState::Established => {}
        }
        if !hdr.flags.has(TcpFlags::ACK) || hdr.flags.has(TcpFlags::SYN) {
            return;
        }
        // RFC 5681 §2: no data, no SYN or FIN, SND.UNA acknowledged again
        // while data is outstanding, and the window of the last ACK.
        if hdr.payload_bytes == 0
            && !hdr.flags.has(TcpFlags::FIN)
            && hdr.ack == self.snd_una
            && self.snd_nxt > self.snd_una
            && hdr.rwnd.max(self.mss as u64) == self.peer_rwnd
        {
            self.stats.duplicate_acks += 1;
        }
        self.peer_rwnd = hdr.rwnd.max(self.mss as u64);
        if hdr.ack < self.snd_una {
            return; // an old ACK, overtaken by a later one
        }
        let ack = hdr.ack.min(self.snd_nxt);
        let prior_una = self.snd_una;
        let prior_sacked = self.sacked_bytes;
        let sack = uses_sack(params);
        let prior_in_flight = if sack { self.pipe() } else { self.flight_size() };
        let cwnd_limited = !params.cwnd_validation
            || if params.cwnd_limited_at_send {
                self.limited_at_send
            } else {
                self.cwnd_full || prior_in_flight + self.mss as u64 >= ccs[r].cwnd
            };

        // RTT sample: RFC 7323 §4 from the echoed timestamp of an ACK that
        // acknowledges new data; without timestamps, from the newest newly
        // acknowledged segment never retransmitted (Karn's rule, RFC 6298 §3).
        if ack > prior_una {
            let sample = if params.timestamps && hdr.ts_ecr > SimTime::ZERO {
                Some(now.saturating_since(hdr.ts_ecr))
            } else {
                self.seg_at(ack - 1).and_then(|i| {
                    let s = self.segs[i];
                    (s.flags & EVER_RETRANS == 0).then(|| now.saturating_since(s.sent_at))
                })
            };
            if let Some(rtt) = sample {
                self.take_rtt_sample(rtt, &mut ccs[r]);
            }
        }
        if hdr.ts_val > self.ts_recent {
            self.ts_recent = hdr.ts_val;
        }

        // RACK and the loss probe read real SACK blocks (RFC 8985 §2).
        let rack = sack && params.sack && params.rack;
        self.rack.advanced = false;
        self.rack.prior_fack = self.rack.fack;
        self.orig_delivered = false;
        if sack && params.sack {
            self.apply_sacks(hdr.sacks(), ack, now, rack, params.sacked_retransmissions_in_pipe);
        }
        // Bytes this ACK's SACK blocks newly cover (ns-3's `bytesSacked`),
        // counted before SND.UNA moves over SACKed data.
        let sacked_by_blocks = self.sacked_bytes - prior_sacked;
        let sacked_before_una = self.sacked_bytes;
        let newly_acked = ack - prior_una;
        self.acked_retransmission = false;
        if newly_acked > 0 {
            self.advance_una(ack, now, rack);
            ccs[r].bytes_acked += newly_acked;
        }
        // Acknowledged cumulatively but delivered before, by an earlier SACK.
        let acked_sacked = sacked_before_una - self.sacked_bytes;
        if newly_acked > 0 && !params.sack {
            // A duplicate ACK's mark cannot be right about the first
            // unacknowledged segment: ns-3's `DiscardUpTo` moves the mark to
            // the lowest unmarked segment above it and deems the head lost.
            if let Some(s) = self.segs.front_mut().filter(|s| s.flags & SACKED != 0) {
                s.flags &= !SACKED;
                self.sacked_bytes -= s.len as u64;
                self.sacked_segs -= 1;
                self.mark_lowest_unmarked(now, rack, params.sacked_retransmissions_in_pipe);
                self.mark_lost(0);
            }
        }
        if sack && params.sack && params.tlp {
            self.process_tlp_ack(hdr, ack, prior_una, prior_sacked, now, params, ccs, r, cc);
        }
        let mut newly_sacked = sacked_by_blocks;

        // Duplicate ACK: acknowledges nothing new while data is outstanding
        // (RFC 5681 §2; with SACK, RFC 6675 counts only ACKs with new SACK information).
        let is_dupack = if sack && params.sack && params.dupack_rule == DupAckRule::NewSack {
            newly_sacked > 0 && hdr.payload_bytes == 0
        } else {
            newly_acked == 0
                && hdr.payload_bytes == 0
                && self.snd_nxt > self.snd_una
                && (!sack || newly_sacked > 0 || hdr.n_sack == 0)
        };
        if is_dupack {
            self.dupacks += 1;
        } else if newly_acked > 0 {
            self.dupacks = 0;
        }
        // Without SACK, a duplicate ACK says one more segment above the
        // hole arrived: ns-3 marks the lowest unmarked one (during limited
        // transmit and recovery).
        // ns-3 reads pipe for PRR before the ACK's own mark (`BytesInFlight`
        // in `ReceivedAck`, then `AddRenoSack` in `DupAck`).
        let pipe_before_marks = self.data_pipe();
        if is_dupack
            && sack
            && !params.sack
            && !self.in_rto_recovery
            && (params.limited_transmit || self.recovery.is_some() || self.dupacks >= params.dupack_threshold)
        {
            let before = self.sacked_bytes;
            self.mark_lowest_unmarked(now, rack, params.sacked_retransmissions_in_pipe);
            newly_sacked += self.sacked_bytes - before;
        }
        // RFC 6937 §3 DeliveredData: the change in SND.UNA plus the change
        // in SACKed bytes, which is negative for SACKed data SND.UNA passed.
        // Without SACK the marks a duplicate ACK makes are guesses: ns-3
        // counts nothing delivered for them (`AddRenoSack` bypasses the rate
        // sample), only what SND.UNA passes.
        let delivered = if params.sack {
            newly_acked - acked_sacked + newly_sacked
        } else {
            newly_acked
        };
        if self.frto.is_some() {
            let dup = newly_acked == 0 && hdr.payload_bytes == 0;
            self.frto_on_ack(&mut ccs[r], newly_acked, newly_sacked, dup);
        }
        // Loss detection: RFC 8985 RACK (Linux ≥ 4.18 with SACK) or RFC 6675 IsLost.
        let mut reorder_at = None;
        if rack {
            if self.rack.advanced {
                reorder_at = self.rack_detect_losses(now, params);
            }
        } else if sack && params.sack && self.sacked_bytes > 0 {
            // (Marks made from duplicate ACKs without SACK are guesses: ns-3
            // deems only the head lost, on entering recovery and at each
            // partial ACK.)
            self.detect_losses(params);
        }
        ccs[r].snd_una = self.snd_una;
        ccs[r].snd_nxt = self.snd_nxt;
        ccs[r].delivered_bytes = delivered;

        if self.fin_end.is_some_and(|e| self.snd_una >= e) {
            self.complete(now);
            return;
        }

        // RTO loss recovery ends when everything outstanding at the RTO is acknowledged.
        let mut growth = newly_acked;
        if self.in_rto_recovery && self.snd_una >= self.rto_recover {
            self.in_rto_recovery = false;
            if params.rto_exit_growth_above_recover {
                growth = ack.saturating_sub(self.rto_recover);
            }
        }

        if let Some(rec) = self.recovery {
            // RFC 5681 §3.2 step 6 (plain Reno): the next ACK that
            // acknowledges new data ends recovery, a partial one included;
            // the holes left are found by new duplicate ACKs or the RTO.
            let reno_exit = params.recovery == Recovery::Reno && newly_acked > 0;
            if self.snd_una >= rec.point || reno_exit {
                // Full ACK: leave recovery with cwnd = ssthresh (RFC 6582
                // §3.2 step 3 option 2, RFC 6937 §3, Linux and ns-3 alike).
                self.recovery = None;
                let sf = &mut ccs[r];
                sf.cwnd = sf.ssthresh.max(self.mss as u64);
                sf.in_recovery = false;
                cc.on_recovery_exit(ccs, r, now);
                if params.grow_on_recovery_exit {
                    self.grow(now, ccs, r, cc, ss, newly_acked, cwnd_limited);
                }
            } else {
                if newly_acked > 0 {
                    if let Some(rec) = self.recovery.as_mut() {
                        rec.partial_acks += 1;
                    }
                }
                let pipe = if params.sack {
                    self.data_pipe()
                } else {
                    pipe_before_marks
                };
                self.recovery_ack(params, &mut ccs[r], newly_acked, delivered, is_dupack, pipe);
                if params.recovery == Recovery::NewReno && newly_acked > 0 {
                    // RFC 6582 §3.2 step 5: a partial ACK retransmits the
                    // first unacknowledged segment at once, then deflates.
                    self.retransmit_head(now, out);
                } else if params.partial_ack_retransmit && newly_acked > 0 && sack {
                    // ns-3 (`ProcessAck` → `DoRetransmit`): unless the first
                    // unacknowledged segment was already resent, a partial
                    // ACK sends one segment whatever cwnd — NextSeg's: the
                    // lowest lost one (without SACK the head, deemed lost
                    // first), else new data, else the head again.
                    if !params.sack {
                        self.mark_lost(0);
                    }
                    if self
                        .segs
                        .front()
                        .is_some_and(|s| s.flags & (RETRANS | SACKED) != RETRANS)
                    {
                        match self.next_lost() {
                            Some(i) => self.retransmit(i, now, out),
                            None => self.partial_ack_send = true,
                        }
                    }
                }
            }
        } else if self.should_enter_recovery(params, is_dupack) {
            self.fast_retransmit(now, params, ccs, r, cc, delivered, out);
        } else if growth > 0 && !(is_dupack && params.dupack_rule == DupAckRule::NewSack) {
            // An ACK that both advances SND.UNA and SACKs new data is a
            // duplicate ACK under ns-3's rule; it leaves ns-3 in CA_DISORDER,
            // where `TcpSocketBase::ProcessAck` does not grow the window.
            self.grow(now, ccs, r, cc, ss, growth, cwnd_limited);
        }

        // RFC 6298 §5.2–5.3: stop the timer when nothing is outstanding,
        // restart it when new data is acknowledged — but RFC 6582 §4's
        // Impatient NewReno (and ns-3 in every recovery) restarts it only on
        // the first partial ACK, so a window with many losses times out
        // instead of being repaired one hole per RTT.
        let patient = match self.recovery {
            Some(rec) if params.recovery != Recovery::Reno && newly_acked > 0 => {
                params.partial_ack_rto == PartialAckRto::SlowButSteady || rec.partial_acks <= 1
            }
            _ => true,
        };
        // ns-3 in CA_DISORDER: an ACK of new data that is also a duplicate
        // ACK reaches no `NewAck`, which restarts the timer and lets the
        // application refill the send buffer.
        let disorder =
            is_dupack && newly_acked > 0 && params.dupack_rule == DupAckRule::NewSack && self.recovery.is_none();
        let patient = patient && !disorder;
        if newly_acked > 0 && !disorder {
            self.sndbuf_una = self.snd_una;
        }
        if self.snd_una >= self.snd_nxt {
            self.stop_timer();
        } else {
            if newly_acked > 0 && patient {
                self.restart_timer(now, out);
            }
            // RFC 8985: a reordering timer for segments not yet lost, else
            // a fresh loss probe (Linux `tcp_set_xmit_timer` on every ACK).
            let prior_aux = self.aux_timer;
            self.aux_timer = reorder_at.map(|t| (t, AuxTimer::Reorder));
            if self.aux_timer.is_none() {
                self.aux_timer = self.delayed_early_retransmit(now, params, prior_aux);
            }
            if self.aux_timer.is_none() {
                self.schedule_probe(now, params);
            }
            self.sync_timer(out);
        }
        ccs[r].bytes_in_flight = self.pipe();
    }

    fn established<S: SlowStart>(
        &mut self,
        hdr: &TcpHeader,
        now: SimTime,
        ccs: &mut [SubflowCc],
        r: usize,
        ss: &mut S,
        out: &mut impl SenderOutput,
    ) {
        self.state = SenderState::Established;
        self.stats.established_at = Some(now);
        self.snd_una = 1;
        self.snd_nxt = 1;
        self.retx_hint = 1;
        self.peer_rwnd = hdr.rwnd.max(self.mss as u64);
        self.ts_recent = hdr.ts_val;
        self.stop_timer();
        // Karn: the handshake RTT counts only if the SYN was sent once.
        if self.stats.syn_retransmits == 0 {
            self.take_rtt_sample(now.saturating_since(self.syn_sent_at), &mut ccs[r]);
        }
        ccs[r].established = true;
        ccs[r].snd_una = self.snd_una;
        ccs[r].snd_nxt = self.snd_nxt;
        // The third packet of the handshake, then data.
        out.send(OutSegment {
            header: TcpHeader {
                flags: TcpFlags(TcpFlags::ACK),
                seq: 1,
                ack: 1,
                ts_val: now,
                ts_ecr: self.ts_recent,
                ..TcpHeader::default()
            },
            kind: TxKind::New,
        });
        ss.on_subflow_start(ccs, r, now);
    }

    /// An RTT sample: the estimator takes it and the subflow's congestion
    /// state sees the new SRTT, minimum and latest sample.
    fn take_rtt_sample(&mut self, rtt: SimDuration, sf: &mut SubflowCc) {
        self.rtt.sample(rtt);
        sf.srtt = self.rtt.srtt;
        sf.min_rtt = self.rtt.min_rtt;
        sf.latest_rtt = rtt;
        sf.rtt_samples += 1;
    }

    /// Data of the segments sent and neither acknowledged nor SACKed, as
    /// (data sequence number, payload bytes): what MPTCP reinjects on other
    /// subflows after a timeout.
    pub fn outstanding_data(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.segs
            .iter()
            .filter(|s| s.flags & SACKED == 0 && s.payload() > 0)
            .map(|s| (s.dsn, s.payload()))
    }

    /// Stops the sender: its connection has ended.
    pub fn close(&mut self, now: SimTime) {
        if !matches!(self.state, SenderState::Done | SenderState::Closed) {
            self.complete(now);
        }
    }

    /// Stops the sender before the end of its data (RFC 8684 §3.3.8: an
    /// MPTCP subflow closed by RST or after REMOVE_ADDR). Nothing is sent
    /// again and the scoreboard is dropped; the caller has taken the
    /// outstanding data for reinjection first.
    pub fn abort(&mut self) {
        self.state = SenderState::Closed;
        self.stop_timer();
        self.segs.clear();
        self.sacked_bytes = 0;
        self.sacked_segs = 0;
        self.lost_bytes = 0;
        self.retrans_bytes = 0;
        self.snd_una = self.snd_nxt;
    }

    fn complete(&mut self, now: SimTime) {
        self.state = SenderState::Done;
        self.stats.completed_at = Some(now);
        self.stop_timer();
        self.segs.clear();
        self.sacked_bytes = 0;
        self.sacked_segs = 0;
        self.lost_bytes = 0;
        self.retrans_bytes = 0;
    }

    /// Marks segments covered by SACK blocks (RFC 6675 §4 Update()).
    fn apply_sacks(&mut self, blocks: &[SackBlock], ack: u64, now: SimTime, rack: bool, keep_retrans: bool) {
        for b in blocks {
            let start = b.start.max(ack).max(self.snd_una);
            let end = b.end.min(self.snd_nxt);
            if start >= end {
                continue;
            }
            // Only whole segments inside the block count.
            let mut i = self.search(start, |s| s.start < start);
            while i < self.segs.len() && self.segs[i].end() <= end {
                let s = &mut self.segs[i];
                if s.flags & SACKED == 0 {
                    self.mark_sacked(i, now, rack, keep_retrans);
                }
                i += 1;
            }
        }
    }

    /// Without SACK, ns-3's guess from a duplicate ACK (`AddRenoSack`): the
    /// lowest segment above the head not yet marked is taken as received.
    fn mark_lowest_unmarked(&mut self, now: SimTime, rack: bool, keep_retrans: bool) {
        if let Some(i) = (1..self.segs.len()).find(|&i| self.segs[i].flags & SACKED == 0) {
            self.mark_sacked(i, now, rack, keep_retrans);
        }
    }

    /// Segment `i` is known received above SND.UNA.
    /// `keep_retrans`: a SACKed retransmission stays counted in pipe until
    /// cumulatively acknowledged (see `TcpParams::sacked_retransmissions_in_pipe`).
    fn mark_sacked(&mut self, i: usize, now: SimTime, rack: bool, keep_retrans: bool) {
        let s = &mut self.segs[i];
        let len = s.len as u64;
        if s.flags & LOST != 0 {
            self.lost_bytes -= len;
        }
        let mut kept = EVER_RETRANS;
        if s.flags & RETRANS != 0 {
            if keep_retrans {
                kept |= RETRANS;
            } else {
                self.retrans_bytes -= len;
            }
        }
        s.flags = (s.flags & kept) | SACKED;
        self.sacked_bytes += len;
        self.sacked_segs += 1;
        let seg = *s;
        if rack {
            self.rack_advance(&seg, now);
        }
        self.note_original_delivery(&seg);
    }

    /// Linux `FLAG_ORIG_SACK_ACKED`: segment `s`, delivered by this ACK,
    /// was sent before the timeout F-RTO is testing and never resent.
    fn note_original_delivery(&mut self, s: &Seg) {
        if s.flags & EVER_RETRANS == 0 && self.frto.is_some_and(|f| s.end() <= f.high_seq) {
            self.orig_delivered = true;
        }
    }

    /// RFC 5682 §3.1 steps 2 and 3 with SACK (Appendix B), as Linux
    /// `tcp_process_loss` runs them on every ACK after a timeout.
    fn frto_on_ack(&mut self, sf: &mut SubflowCc, newly_acked: u64, newly_sacked: u64, dup: bool) {
        let Some(mut f) = self.frto else { return };
        if !self.in_rto_recovery {
            // Everything outstanding at the timeout is acknowledged.
            self.frto = None;
            return;
        }
        if self.orig_delivered {
            // Step 3.b: data never resent arrived, so not all of the
            // window was lost: the timeout was spurious.
            self.frto_undo(sf);
            return;
        }
        if self.snd_nxt > f.high_seq {
            // Step 3.a: a duplicate ACK or SACK of the new data alone: the
            // loss was real.
            if newly_sacked > 0 || dup {
                self.frto = None;
            }
        } else if newly_acked > 0 && self.snd_una < f.high_seq {
            // Step 2.b: the retransmission arrived; send new data next.
            f.high_seq = self.snd_nxt;
            f.new_data_turn = true;
            self.frto = Some(f);
        }
    }

    /// Linux `tcp_try_undo_loss(sk, true)` → `tcp_undo_cwnd_reduction`:
    /// the segments the timeout marked lost are in flight after all, cwnd
    /// and ssthresh return to their values before it, and the sender is
    /// out of loss recovery (a later loss may fast-retransmit at once).
    fn frto_undo(&mut self, sf: &mut SubflowCc) {
        for s in self.segs.iter_mut() {
            if s.flags & LOST != 0 {
                s.flags &= !LOST;
                self.lost_bytes -= s.len as u64;
            }
        }
        self.retx_hint = self.snd_nxt;
        sf.cwnd = sf.cwnd.max(self.rto_undo.cwnd);
        sf.ssthresh = sf.ssthresh.max(self.rto_undo.ssthresh);
        self.frto = None;
        self.in_rto_recovery = false;
        self.rto_recover = 0;
        self.stats.spurious_rtos += 1;
    }

    /// Drops acknowledged segments from the scoreboard.
    fn advance_una(&mut self, ack: u64, now: SimTime, rack: bool) {
        while let Some(&s) = self.segs.front() {
            if s.end() > ack {
                break;
            }
            let len = s.len as u64;
            if s.flags & EVER_RETRANS != 0 {
                self.acked_retransmission = true;
            }
            if s.flags & SACKED != 0 {
                self.sacked_bytes -= len;
                self.sacked_segs -= 1;
            } else {
                if rack {
                    self.rack_advance(&s, now);
                }
                self.note_original_delivery(&s);
            }
            if s.flags & LOST != 0 {
                self.lost_bytes -= len;
            }
            if s.flags & RETRANS != 0 {
                self.retrans_bytes -= len;
            }
            self.segs.pop_front();
        }
        self.snd_una = ack;
    }

    /// RFC 6675 §4 IsLost(): a segment is lost when more than
    /// (DupThresh − 1)·MSS bytes above it are SACKed. Walks down from the
    /// top; below a segment already handled, everything was handled before.
    fn detect_losses(&mut self, params: &TcpParams) {
        if params.fack {
            self.detect_losses_fack(params);
            return;
        }
        let threshold = (params.dupack_threshold as u64 - 1) * self.mss as u64;
        let mut sacked_above = 0u64;
        for i in (0..self.segs.len()).rev() {
            let flags = self.segs[i].flags;
            if flags & SACKED != 0 {
                // Octets of data: a FIN takes a sequence number, not a byte.
                sacked_above += self.segs[i].payload() as u64;
                continue;
            }
            if sacked_above > threshold {
                if flags & LOST != 0 {
                    break;
                }
                if flags & RETRANS != 0 {
                    // Resent before it was deemed lost (rule 3, a partial
                    // ACK): RFC 6675 SetPipe counts it once from now on, not
                    // twice, and NextSeg rule 1 does not resend it (ns-3
                    // `TcpTxBuffer::UpdateLostCount` alike).
                    self.segs[i].flags |= LOST;
                    self.lost_bytes += self.segs[i].len as u64;
                    continue;
                }
                self.mark_lost(i);
            }
        }
    }

    /// Forward acknowledgement (Mathis & Mahdavi, SIGCOMM 1996), as Linux
    /// ran it until 4.15 (`tcp_update_scoreboard`, `tcp_mark_head_lost`
    /// with `tcp_is_fack`): a segment is lost when the highest SACKed one is
    /// DupThresh or more segments above it (the first fackets_out −
    /// reordering segments), however many between are SACKed. And
    /// `tcp_mark_lost_retrans`, which Linux ran with FACK only: a
    /// retransmission is lost once a segment first sent after it is SACKed.
    fn detect_losses_fack(&mut self, params: &TcpParams) {
        let Some(top) = self.segs.iter().rposition(|s| s.flags & SACKED != 0) else {
            return;
        };
        let threshold = params.dupack_threshold as usize;
        if top >= threshold {
            for i in (0..=top - threshold).rev() {
                let flags = self.segs[i].flags;
                if flags & SACKED != 0 {
                    continue;
                }
                if flags & (LOST | RETRANS) != 0 {
                    break;
                }
                self.mark_lost(i);
            }
        }
        if self.retrans_bytes == 0 {
            return;
        }
        // Linux compares sequence numbers (SND.NXT when the segment was
        // resent); the segments sent after a retransmission are those sent
        // no earlier, since a push resends before it sends new data.
        let Some(newest) = self
            .segs
            .iter()
            .filter(|s| s.flags & (SACKED | EVER_RETRANS) == SACKED)
            .map(|s| s.sent_at)
            .max()
        else {
            return;
        };
        for i in 0..self.segs.len() {
            let s = self.segs[i];
            if s.flags & (SACKED | RETRANS) == RETRANS && s.sent_at <= newest && s.end() <= self.segs[top].start {
                self.mark_lost(i);
            }
        }
    }

    /// RFC 8985 §6.2 steps 2–3 (Linux `tcp_rack_advance`): segment `s` was
    /// delivered at `now`.
    fn rack_advance(&mut self, s: &Seg, now: SimTime) {
        let rtt = now.saturating_since(s.sent_at);
        // Step 2: a retransmitted segment whose RTT is below the minimum
        // was delivered by its original transmission: no sample.
        if s.flags & EVER_RETRANS != 0 && rtt < self.rtt.min_rtt {
            return;
        }
        // Step 3: delivered below the highest delivered sequence without a
        // retransmission: the network reorders.
        if s.flags & EVER_RETRANS == 0 && s.end() < self.rack.prior_fack {
            self.rack.reordering_seen = true;
        }
        self.rack.fack = self.rack.fack.max(s.end());
        self.rack.rtt = rtt;
        self.rack.advanced = true;
        let newer = match self.rack.xmit_ts {
            None => true,
            Some(x) => s.sent_at > x || (s.sent_at == x && s.end() > self.rack.end_seq),
        };
        if newer {
            self.rack.xmit_ts = Some(s.sent_at);
            self.rack.end_seq = s.end();
        }
    }

    /// RFC 8985 §6.2 steps 4–5 (Linux `tcp_rack_detect_loss`): every
    /// segment sent before the most recently delivered one and not
    /// delivered within RACK.rtt + reo_wnd of its transmission is lost.
    /// Returns when the reordering timer must fire for the others.
    fn rack_detect_losses(&mut self, now: SimTime, params: &TcpParams) -> Option<SimTime> {
        let xmit_ts = self.rack.xmit_ts?;
        // Step 4: no reordering seen, and in recovery or with DupThresh
        // segments SACKed: no window; else min_RTT/4, at most SRTT.
        let reo_wnd = if !self.rack.reordering_seen
            && (self.recovery.is_some() || self.in_rto_recovery || self.sacked_segs >= params.dupack_threshold as u64)
        {
            SimDuration::ZERO
        } else {
            SimDuration(self.rtt.min_rtt.nanos() / 4).min(self.rtt.srtt)
        };
        let mut timeout: Option<SimTime> = None;
        for i in 0..self.segs.len() {
            let s = self.segs[i];
            let before = s.sent_at < xmit_ts || (s.sent_at == xmit_ts && s.end() < self.rack.end_seq);
            if !before {
                // Segments above one never resent were all sent after it.
                if s.flags & EVER_RETRANS == 0 {
                    break;
                }
                continue;
            }
            // Delivered, or already waiting to be resent.
            if s.flags & SACKED != 0 || s.flags & (LOST | RETRANS) == LOST {
                continue;
            }
            let deadline = s.sent_at + self.rack.rtt + reo_wnd;
            if deadline <= now {
                self.mark_lost(i);
            } else {
                timeout = Some(timeout.map_or(deadline, |t: SimTime| t.max(deadline)));
            }
        }
        timeout
    }

    /// RFC 8985 §7.4 (Linux `tcp_process_tlp_ack`): whether the
    /// outstanding probe repaired a loss. Without DSACK a probe that
    /// retransmitted the last segment counts as repairing one when the ACK
    /// goes beyond it; a pure duplicate ACK says both copies arrived.
    #[allow(clippy::too_many_arguments)]
    fn process_tlp_ack<C: CongestionAvoidance>(
        &mut self,
        hdr: &TcpHeader,
        ack: u64,
        prior_una: u64,
        prior_sacked: u64,
        now: SimTime,
        params: &TcpParams,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
    ) {
        let Some(high) = self.tlp_high_seq else { return };
        if ack < high {
            return;
        }
        if !self.tlp_retrans {
            self.tlp_high_seq = None;
        } else if ack > high {
            // The probe repaired a loss: reduce as for one (CWR).
            self.tlp_high_seq = None;
            let ssthresh = self.loss_event(now, params, ccs, r, cc);
            ccs[r].ssthresh = ssthresh;
            ccs[r].cwnd = ssthresh.max(self.mss as u64);
            cc.on_recovery_exit(ccs, r, now);
        } else if ack == prior_una && self.sacked_bytes == prior_sacked && hdr.payload_bytes == 0 {
            self.tlp_high_seq = None;
        }
    }

    /// RFC 8985 §7.2 (Linux `tcp_schedule_loss_probe`): with data
    /// outstanding and no recovery under way, the loss probe fires after
    /// PTO = 2·SRTT, plus the minimum RTO when one segment is outstanding
    /// (its ACK may be delayed) or 2 ms otherwise (Linux
    /// `TCP_TIMEOUT_MIN_US`); never after the RTO.
    fn schedule_probe(&mut self, now: SimTime, params: &TcpParams) {
        if !(params.tlp && params.sack && uses_sack(params))
            || self.state != SenderState::Established
            || self.snd_una >= self.snd_nxt
            || self.recovery.is_some()
            || self.in_rto_recovery
        {
            return;
        }
        let pto = if self.rtt.has_sample && params.tlp_pto == TlpPto::Linux3 {
            // Linux 3.10–4.x: room for a delayed ACK (TCP_DELACK_MAX) when
            // one segment is outstanding, at least 10 ms.
            let srtt = self.rtt.srtt;
            let mut pto = srtt.saturating_mul(2).max(SimDuration::from_millis(10));
            if self.segs.len() == 1 {
                pto = pto.max(srtt + SimDuration(srtt.nanos() / 2) + SimDuration::from_millis(200));
            }
            pto
        } else if self.rtt.has_sample {
            let extra = if self.segs.len() == 1 {
                params.rtt.min_rto
            } else {
                SimDuration::from_millis(2)
            };
            self.rtt.srtt.saturating_mul(2) + extra
        } else {
            params.rtt.initial_rto
        };
        let at = (now + pto).min(self.rto_at);
        self.aux_timer = Some((at, AuxTimer::Probe));
    }

    /// A congestion event on subflow `r`: counted, slow start left, and the
    /// congestion avoidance's new ssthresh from the current flight.
    fn loss_event<C: CongestionAvoidance>(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
    ) -> u64 {
        ccs[r].loss_events += 1;
        if ccs[r].in_slow_start() {
            self.note_slow_start_exit(now, ccs[r].cwnd);
        }
        ccs[r].left_slow_start = true;
        // ns-3 `EnterRecovery` without SACK counts the head, which it has
        // just marked lost, as still in flight: pipe + 1 MSS.
        let head_in_flight = if !params.sack && params.loss_flight == LossFlight::Pipe {
            self.mss as u64
        } else {
            0
        };
        ccs[r].bytes_in_flight = self.loss_flight(params) + head_in_flight;
        cc.ssthresh_after_loss(ccs, r, now)
    }

    /// What a loss halves: FlightSize (RFC 5681) or pipe (ns-3).
    fn loss_flight(&self, params: &TcpParams) -> u64 {
        match params.loss_flight {
            LossFlight::FlightSize => self.flight_size(),
            LossFlight::Pipe => self.data_pipe(),
        }
    }

    fn should_enter_recovery(&self, params: &TcpParams, is_dupack: bool) -> bool {
        // No fast retransmit for data sent before an RTO: RFC 6582 §3.2 step 1
        // waits for an ACK above `recover`; RFC 6675 §5.1 (and ns-3, Linux)
        // for HighACK ≥ RecoveryPoint. Plain Reno (RFC 5681 §3.2) has no
        // `recover` and takes every third duplicate ACK as a new loss.
        let before_recover = if uses_sack(params) {
            self.snd_una < self.rto_recover
        } else {
            self.snd_una <= self.rto_recover
        };
        if params.recovery != Recovery::Reno && before_recover && self.rto_recover > 0 {
            return false;
        }
        if uses_sack(params) && params.sack && params.rack {
            // Linux `tcp_time_to_recover`: RACK has deemed a segment lost.
            return self.lost_bytes > 0;
        }
        if self.dupacks >= params.dupack_threshold {
            return true;
        }
        if !params.early_retransmit_delay && self.early_retransmit_due(params) {
            return true;
        }
        // RFC 6675 §5: or when IsLost(HighACK + 1) — which ns-3 asks only of
        // a duplicate ACK (`TcpSocketBase::DupAck`); a lost head found on a
        // new ACK is resent from the open state.
        uses_sack(params)
            && (is_dupack || params.dupack_rule != DupAckRule::NewSack)
            && self.segs.front().is_some_and(|s| s.flags & LOST != 0)
    }

    /// Enters fast recovery and, except with PRR, retransmits the first
    /// unacknowledged segment at once, whatever cwnd and the flight allow
    /// (RFC 5681 §3.2 step 2, RFC 6582 §3.2 step 2, RFC 6675 §5 (4.3)); PRR's
    /// window on entry, pipe + 1 MSS, already has room for it.
    #[allow(clippy::too_many_arguments)]
    fn fast_retransmit<C: CongestionAvoidance>(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
        delivered: u64,
        out: &mut impl SenderOutput,
    ) {
        self.enter_recovery(now, params, ccs, r, cc, delivered);
        if params.recovery != Recovery::Prr || params.prr_variant == PrrVariant::Ns3 {
            self.retransmit_head(now, out);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn enter_recovery<C: CongestionAvoidance>(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
        delivered: u64,
    ) {
        if uses_sack(params) && !params.sack {
            // ns-3 `EnterRecovery` without SACK: `MarkHeadAsLost`.
            self.mark_lost(0);
        }
        self.stats.fast_recoveries += 1;
        let pipe_at_entry = if params.prr_variant == PrrVariant::Ns3 {
            self.data_pipe()
        } else {
            self.pipe()
        };
        // Plain Reno may fast-retransmit during RTO recovery: its
        // retransmissions are fast ones from here, and a later RTO halves
        // ssthresh again (a new loss event).
        self.in_rto_recovery = false;
        let ssthresh = self.loss_event(now, params, ccs, r, cc);
        let mss = self.mss as u64;
        let sf = &mut ccs[r];
        sf.ssthresh = ssthresh;
        sf.in_recovery = true;
        self.recovery = Some(RecoveryState {
            point: self.snd_nxt,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: match params.prr_variant {
                PrrVariant::Rfc6937 => self.flight_size(),
                PrrVariant::Ns3 => pipe_at_entry,
            },
            high_rxt: self.snd_una,
            rescue_rxt: None,
            partial_acks: 0,
        });
        // The first unacknowledged segment is retransmitted first (RFC 5681
        // §3.2 step 2); RACK has already said which segments are lost.
        if !(uses_sack(params) && params.sack && params.rack) {
            self.mark_lost(0);
        }
        sf.cwnd = match params.recovery {
            // RFC 5681 §3.2 step 4 / RFC 6582 §3.2 step 2: cwnd =
            // ssthresh + 3·MSS (inflation).
            Recovery::Reno | Recovery::NewReno => ssthresh + params.dupack_threshold as u64 * mss,
            // RFC 6675 §5 step 4.2: cwnd = ssthresh.
            Recovery::Sack => ssthresh,
            // RFC 6937: the window follows PRR from here; allow the fast retransmit.
            Recovery::Prr if params.prr_variant == PrrVariant::Rfc6937 => self.pipe() + mss,
            // ns-3 `TcpPrrRecovery::EnterRecovery`: the entering ACK is a
            // duplicate one for PRR's accounting.
            // With nothing delivered (no pipe to credit a duplicate ACK
            // against) it leaves cwnd as it was; `fast_retransmit` sends the
            // head regardless, as ns-3's `EnterRecovery` step (4.3) does.
            Recovery::Prr => {
                let (ssthresh, cwnd) = (sf.ssthresh, sf.cwnd);
                self.prr_ns3(ssthresh, pipe_at_entry, delivered, true).unwrap_or(cwnd)
            }
        };
    }

    /// ns-3.44 `TcpPrrRecovery::DoRecovery` with `pipe` as its
    /// `m_bytesInFlight`: the new cwnd, or `None` when nothing was delivered.
    fn prr_ns3(&mut self, ssthresh: u64, pipe: u64, delivered: u64, dup: bool) -> Option<u64> {
        let mss = self.mss as u64;
        let safe_ack = self.acked_retransmission;
        let rec = self.recovery.as_mut().expect("in recovery");
        let mut delivered = delivered;
        if dup && rec.prr_delivered < rec.recover_fs {
            delivered += mss;
        }
        if delivered == 0 {
            return None;
        }
        rec.prr_delivered += delivered;
        // ns-3.44 computes in 32-bit unsigned integers: the product of the
        // proportional part wraps above 4 GiB², and prr_delivered − prr_out
        // wraps when more was sent than delivered, which the conversion to
        // `int` turns into the negative difference, whatever DeliveredData.
        let send: i64 = if pipe > ssthresh {
            let product = (rec.prr_delivered as u32).wrapping_mul(ssthresh as u32) as u64;
            product.div_ceil(rec.recover_fs.max(1)) as i64 - rec.prr_out as i64
        } else {
            // PRR-CRB, or PRR-SSRB when the ACK covers retransmitted data.
            let mut limit = if rec.prr_delivered >= rec.prr_out {
                (rec.prr_delivered - rec.prr_out).max(delivered) as i64
            } else {
                rec.prr_delivered as i64 - rec.prr_out as i64
            };
            if safe_ack {
                limit += mss as i64;
            }
            limit.min(ssthresh as i64 - pipe as i64)
        };
        // At least one segment on entering recovery (the fast retransmit).
        let send = send.max(if rec.prr_out > 0 { 0 } else { mss as i64 });
        Some((pipe as i64 + send).max(0) as u64)
    }

    /// An ACK during fast recovery that does not end it.
    /// `delivered` is RFC 6937's DeliveredData of the ACK.
    /// `pipe` is what ns-3's PRR reads (see the caller).
    fn recovery_ack(
        &mut self,
        params: &TcpParams,
        sf: &mut SubflowCc,
        newly_acked: u64,
        delivered: u64,
        dup: bool,
        pipe: u64,
    ) {
        let mss = self.mss as u64;
        match params.recovery {
            // RFC 5681 §3.2 step 5: inflate by one MSS per further duplicate
            // ACK (an ACK of new data has ended recovery before this).
            Recovery::Reno => {
                if dup {
                    sf.cwnd += mss;
                }
            }
            Recovery::NewReno => {
                if newly_acked > 0 {
                    // RFC 6582 §3.2 step 5: partial ACK — retransmit the next
                    // unacknowledged segment and deflate by the amount acknowledged.
                    self.mark_lost(0);
                    sf.cwnd = sf.cwnd.saturating_sub(newly_acked);
                    if newly_acked >= mss {
                        sf.cwnd += mss;
                    }
                    sf.cwnd = sf.cwnd.max(mss);
                } else if dup {
                    // Step 4: inflate by one MSS per further duplicate ACK.
                    sf.cwnd += mss;
                }
            }
            Recovery::Sack => {}
            Recovery::Prr if params.prr_variant == PrrVariant::Ns3 => {
                // ns-3 `TcpSocketBase::ProcessAck`: a duplicate ACK runs
                // `DoRecovery` from `DupAck`, and an ACK of at least one
                // segment below the recovery point runs it (again, when the
                // ACK is both) as a partial ACK, with the same pipe.
                if dup {
                    if let Some(cwnd) = self.prr_ns3(sf.ssthresh, pipe, delivered, true) {
                        sf.cwnd = cwnd;
                    }
                }
                if newly_acked >= self.mss as u64 {
                    if let Some(cwnd) = self.prr_ns3(sf.ssthresh, pipe, delivered, false) {
                        sf.cwnd = cwnd;
                    }
                }
            }
            Recovery::Prr => {
                let pipe = self.pipe();
                let rec = self.recovery.as_mut().expect("in recovery");
                rec.prr_delivered += delivered;
                let ssthresh = sf.ssthresh;
                let sndcnt = if pipe > ssthresh {
                    // Proportional part: ceil(prr_delivered·ssthresh/RecoverFS) − prr_out.
                    (rec.prr_delivered * ssthresh)
                        .div_ceil(rec.recover_fs.max(1))
                        .saturating_sub(rec.prr_out)
                } else {
                    // Slow-start reduction bound (PRR-SSRB).
                    let limit = rec.prr_delivered.saturating_sub(rec.prr_out).max(delivered) + mss;
                    (ssthresh - pipe).min(limit)
                };
                sf.cwnd = pipe + sndcnt;
            }
        }
    }

    /// Window growth for an ACK of new data outside recovery: slow start
    /// first, the remainder to congestion avoidance (htsim's `tcp.cpp` →
    /// `mtcp.cpp` split; Linux ≥ 4.x `tcp_slow_start` returns the remainder).
    #[allow(clippy::too_many_arguments)]
    fn grow<C: CongestionAvoidance, S: SlowStart>(
        &mut self,
        now: SimTime,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
        ss: &mut S,
        acked: u64,
        cwnd_limited: bool,
    ) {
        let mut rest = acked;
        if ccs[r].in_slow_start() {
            if cwnd_limited {
                rest = ss.on_ack(ccs, r, acked, now);
            } else {
                // No growth, but the strategy still sees the ACK (HyStart++
                // counts its rounds and RTT samples on every ACK).
                ss.on_ack_without_growth(ccs, r, now);
            }
            if !ccs[r].in_slow_start() {
                self.note_slow_start_exit(now, ccs[r].cwnd);
                ccs[r].left_slow_start = true;
                ss.on_exit(ccs, r, now);
            }
        }
        if cwnd_limited && rest > 0 && !ccs[r].in_slow_start() {
            let info = AckInfo {
                now,
                acked_bytes: rest,
                cwnd_limited,
            };
            cc.on_ack(ccs, r, &info);
        }
    }

    // ----- timeout -----------------------------------------------------------

    /// The timer event fired.
    #[allow(clippy::too_many_arguments)]
    pub fn on_timer<C: CongestionAvoidance>(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
        out: &mut impl SenderOutput,
    ) {
        let (expired, again) = self.timer.on_event(now);
        if let Some(at) = again {
            out.arm_timer(at);
        }
        if !expired {
            return;
        }
        if let Some((at, kind)) = self.aux_timer {
            if at <= now && self.state == SenderState::Established {
                self.aux_timer = None;
                match kind {
                    AuxTimer::Reorder => self.on_reorder_timeout(now, params, ccs, r, cc),
                    AuxTimer::EarlyRetransmit => self.on_early_retransmit_timeout(now, params, ccs, r, cc, out),
                    AuxTimer::Probe => {
                        // One probe per tail-loss episode (RFC 8985 §7.3);
                        // then the RTO runs afresh.
                        if self.tlp_high_seq.is_none() {
                            self.probe_pending = true;
                            self.stats.loss_probes += 1;
                        }
                        self.rto_at = now + self.rtt.rto();
                    }
                }
                self.sync_timer(out);
                return;
            }
        }
        match self.state {
            SenderState::SynSent => {
                self.stats.syn_retransmits += 1;
                self.syn_rto = self.syn_rto.saturating_mul(2).min(params.rtt.max_rto);
                self.send_syn(now, params, out);
            }
            SenderState::Established if self.snd_una < self.snd_nxt => self.on_rto(now, params, ccs, r, cc, out),
            _ => {}
        }
    }

    /// Linux 3.x `tcp_resume_early_retransmit`: the held-back early
    /// retransmission goes, and recovery starts.
    fn on_early_retransmit_timeout<C: CongestionAvoidance>(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
        out: &mut impl SenderOutput,
    ) {
        if self.recovery.is_some() || self.in_rto_recovery {
            return;
        }
        self.fast_retransmit(now, params, ccs, r, cc, 0, out);
        ccs[r].bytes_in_flight = self.pipe();
    }

    /// RFC 5827 §3.1–3.2: with fewer than four segments outstanding and no
    /// new data to send, ER_thresh = outstanding − 1 duplicate ACKs (with
    /// SACK: segments SACKed) start recovery; not while a retransmission is
    /// outstanding (Linux 3.x `tcp_time_to_recover`: `!retrans_out`).
    fn early_retransmit_due(&self, params: &TcpParams) -> bool {
        let outstanding = self.segs.len() as u64;
        if !params.early_retransmit || !self.no_new_data || !(2..4).contains(&outstanding) || self.retrans_bytes > 0 {
            return false;
        }
        let evidence = if params.sack && uses_sack(params) {
            self.sacked_segs
        } else {
            self.dupacks as u64
        };
        evidence >= outstanding - 1
    }

    /// The deadline of a held-back early retransmission (RFC 5827 §6
    /// mitigation A.3): max(SRTT/4, 2 ms) after the ACK that made it due
    /// (Linux 3.x `tcp_pause_early_retransmit`), kept by later ACKs, never
    /// after the RTO.
    fn delayed_early_retransmit(
        &self,
        now: SimTime,
        params: &TcpParams,
        prior: Option<(SimTime, AuxTimer)>,
    ) -> Option<(SimTime, AuxTimer)> {
        if !params.early_retransmit_delay
            || self.recovery.is_some()
            || self.in_rto_recovery
            || !self.early_retransmit_due(params)
        {
            return None;
        }
        if let Some(p @ (_, AuxTimer::EarlyRetransmit)) = prior {
            return Some(p);
        }
        let delay = SimDuration(self.rtt.srtt.nanos() / 4).max(SimDuration::from_millis(2));
        Some(((now + delay).min(self.rto_at), AuxTimer::EarlyRetransmit))
    }

    /// RFC 5682 §3.1 step 1 (Linux `tcp_enter_loss`): F-RTO tests a
    /// timeout outside any recovery, or one that recurs with no progress
    /// since the last (§3.2); the first timeout of an episode keeps what an
    /// undo would restore.
    fn frto_on_rto(&mut self, sf: &SubflowCc) {
        let first = self.recovery.is_none() && !self.in_rto_recovery;
        let recurring = self.in_rto_recovery && self.snd_una == self.rto_undo.una;
        if !self.in_rto_recovery {
            let ssthresh = if self.recovery.is_some() {
                sf.ssthresh
            } else {
                sf.ssthresh.max(sf.cwnd / 2 + sf.cwnd / 4)
            };
            self.rto_undo.cwnd = sf.cwnd;
            self.rto_undo.ssthresh = ssthresh;
        }
        self.rto_undo.una = self.snd_una;
        self.frto = (first || recurring).then_some(Frto {
            high_seq: self.snd_nxt,
            new_data_turn: false,
        });
    }

    /// RFC 8985 §6.3 (Linux `tcp_rack_reo_timeout`): the reordering window
    /// of some segments ran out: they are lost, and recovery starts.
    fn on_reorder_timeout<C: CongestionAvoidance>(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
    ) {
        let again = self.rack_detect_losses(now, params);
        if self.recovery.is_none() && !self.in_rto_recovery && self.lost_bytes > 0 {
            self.enter_recovery(now, params, ccs, r, cc, 0);
        }
        self.aux_timer = again.map(|t| (t, AuxTimer::Reorder));
        ccs[r].bytes_in_flight = self.pipe();
    }

    /// RFC 6298 §5.4–5.6 and RFC 5681 §3.1 eq. (4): ssthresh from the flight
    /// size, cwnd to one segment (the loss window), back off, and retransmit
    /// from the first unacknowledged segment. Every segment not SACKed is
    /// marked lost (RFC 6675 §5.1), so they are resent in order as the
    /// window reopens.
    fn on_rto<C: CongestionAvoidance>(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        ccs: &mut [SubflowCc],
        r: usize,
        cc: &mut C,
        out: &mut impl SenderOutput,
    ) {
        self.stats.rto_count += 1;
        if params.frto {
            self.frto_on_rto(&ccs[r]);
        }
        ccs[r].loss_events += 1;
        if ccs[r].in_slow_start() {
            self.note_slow_start_exit(now, ccs[r].cwnd);
        }
        ccs[r].left_slow_start = true;
        // A second timeout of the same data does not halve ssthresh again
        // from the already-collapsed flight (RFC 5681 §3.1 note on eq. (4)).
        if !self.in_rto_recovery {
            ccs[r].bytes_in_flight = self.loss_flight(params);
            ccs[r].ssthresh = cc.ssthresh_after_loss(ccs, r, now);
        }
        ccs[r].cwnd = self.mss as u64;
        ccs[r].in_recovery = false;
        ccs[r].ca_credit = 0;
        cc.on_rto(ccs, r, now);
        self.recovery = None;
        self.in_rto_recovery = true;
        self.tlp_high_seq = None;
        self.probe_pending = false;
        self.aux_timer = None;
        self.rto_recover = self.snd_nxt;
        self.dupacks = 0;
        if !params.sack && self.sacked_bytes > 0 {
            // Marks made from duplicate ACKs are guesses: after a timeout
            // ns-3 forgets them and resends everything outstanding.
            for s in self.segs.iter_mut() {
                s.flags &= !SACKED;
            }
            self.sacked_bytes = 0;
            self.sacked_segs = 0;
        }
        for i in 0..self.segs.len() {
            let s = &mut self.segs[i];
            if s.flags & (SACKED | RETRANS) == SACKED | RETRANS {
                s.flags &= !RETRANS;
                self.retrans_bytes -= s.len as u64;
            }
            self.mark_lost(i);
        }
        self.rtt.back_off();
        self.restart_timer(now, out);
        ccs[r].bytes_in_flight = self.pipe();
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
