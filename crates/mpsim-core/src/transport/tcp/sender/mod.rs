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
//! repacketised.

//!
//! The sender is put together from components, each in a file of its own
//! and chosen by the stack's settings: the scoreboard (`super::scoreboard`),
//! the loss detection (`super::loss`), the fast recovery
//! (`super::recovery`), and here the transmission (`transmit`), the
//! processing of an ACK (`ack`), the timers (`timers`), the tail loss probe
//! (`tlp`), F-RTO (`frto`) and early retransmit (`early_retransmit`).

mod ack;
mod cong_control;
mod early_retransmit;
mod frto;
mod timers;
mod tlp;
mod transmit;

use super::config::TcpParams;
use super::loss::Rack;
use super::recovery::RecoveryState;
use super::rtt::RttEstimator;
use super::scoreboard::{Scoreboard, Seg, EVER_RETRANS, LOST, RETRANS, SACKED};
use super::timer::LazyTimer;
use crate::cc::rate::TxRecord;
use crate::cc::SubflowCc;
use crate::time::{SimDuration, SimTime};
use crate::wire::tcp::{TcpFlags, TcpHeader};

use cong_control::CongControl;
use frto::{Frto, RtoUndo};

/// What a step of an ACK's or a timeout's processing works on besides the
/// sender: the time, the flow's settings, the congestion state of the
/// connection's subflows (the sender's is `r`) and their congestion
/// avoidance.
pub(super) struct Step<'a, C> {
    pub now: SimTime,
    pub params: &'a TcpParams,
    pub ccs: &'a mut [SubflowCc],
    pub r: usize,
    pub cc: &'a mut C,
}
use timers::AuxTimer;

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
    /// The segments from the one holding `snd_una` on, and their marks.
    board: Scoreboard,
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
    /// The next segment [`TcpSender::send_chunk`] sends carries PSH.
    pub(crate) push_next: bool,
    /// F-RTO under way after the latest timeout; `None` when off or over.
    frto: Option<Frto>,
    rto_undo: RtoUndo,
    /// The latest push left the window room unused, or the FIN is out: no
    /// new data to send (RFC 5827 §3.1's condition for early retransmit).
    no_new_data: bool,
    /// The ACK being processed delivered a segment sent before the
    /// timeout and never resent (Linux `FLAG_ORIG_SACK_ACKED`).
    orig_delivered: bool,
    /// When the newest segment the ACK being processed SACKed, and the
    /// newest it acknowledged cumulatively, were sent (never resent, not
    /// SACKed before): Linux's `last_sackt` and `last_ackt`.
    newest_sacked_sent: Option<SimTime>,
    newest_acked_sent: Option<SimTime>,
    /// The scoreboard's `lost_marks` when the ACK (or timer) being
    /// processed came: a larger count now means it marked new losses.
    lost_marks_at_event: u64,
    /// Segments delivered (SACKed, or acknowledged without a SACK before),
    /// a short one as a whole one (`tp->delivered`), and their count when
    /// this event began.
    delivered_segs: u64,
    delivered_segs_at_event: u64,
    /// SYN timeout in force (doubles per SYN retransmission).
    syn_rto: SimDuration,
    /// `TcpParams::rto_restart_on_head_retransmit`.
    rto_restart_on_head: bool,
    /// When the SYN was last sent and whether it was ever retransmitted.
    syn_sent_at: SimTime,
    /// Peer's advertised receive window, bytes.
    peer_rwnd: u64,
    /// The largest window the peer has offered, bytes (Linux
    /// `tcp_sock.max_window`, from the SYN-ACK or handshake ACK and
    /// `tcp_ack_update_window`).
    pub(crate) max_window: u64,
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
    /// `cwnd_limited_linux`: Linux's `is_cwnd_limited`, `max_packets_out`
    /// (segments) and `cwnd_usage_seq` of the window being measured, and
    /// `stats.segments_sent` at the last transmission pass.
    linux_cwnd_limited: bool,
    max_packets_out: u64,
    cwnd_usage_seq: u64,
    validated_at_segment: u64,
    /// BBR (`cc = "bbr"`), which replaces the window rules on this subflow:
    /// its random stream until the handshake ends, then its state.
    bbr_rng: Option<crate::rng::RngStream>,
    cong: Option<Box<CongControl>>,
    /// When the pacing clock lets the next segment leave, if the sender
    /// is holding one for it; `SimTime::NEVER` otherwise.
    pace_at: SimTime,
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
            board: Scoreboard::new(params.mss),
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
            tlp_high_seq: None,
            tlp_retrans: false,
            probe_pending: false,
            partial_ack_send: false,
            sent_new: false,
            push_next: false,
            frto: None,
            rto_undo: RtoUndo::default(),
            orig_delivered: false,
            no_new_data: false,
            newest_sacked_sent: None,
            newest_acked_sent: None,
            lost_marks_at_event: 0,
            delivered_segs: 0,
            delivered_segs_at_event: 0,
            syn_rto: params.syn_rto,
            rto_restart_on_head: params.rto_restart_on_head_retransmit,
            syn_sent_at: SimTime::ZERO,
            peer_rwnd: u64::MAX,
            max_window: 0,
            ts_recent: SimTime::ZERO,
            cwnd_full: false,
            ignore_peer_rwnd: false,
            sndbuf_una: 1,
            limited_at_send: false,
            judged_at_segment: 0,
            linux_cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
            validated_at_segment: 0,
            bbr_rng: None,
            cong: None,
            pace_at: SimTime::NEVER,
            stats: SenderStats::default(),
        }
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
        (self.flight_size() + self.board.retrans_bytes).saturating_sub(self.board.sacked_bytes + self.board.lost_bytes)
    }

    /// `pipe` in octets of data, as ns-3's `BytesInFlight` counts it: the
    /// FIN's sequence number left out.
    pub(super) fn data_pipe(&self) -> u64 {
        let fin_counted = self
            .board
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

    /// Sends the SYN at the flow's start time.
    pub fn start(&mut self, now: SimTime, params: &TcpParams, out: &mut impl SenderOutput) {
        self.state = SenderState::SynSent;
        self.stats.first_syn_at = Some(now);
        self.send_syn(now, params, out);
    }

    pub(super) fn send_syn(&mut self, now: SimTime, params: &TcpParams, out: &mut impl SenderOutput) {
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

    /// A SYN from the receiver, which opens the connection
    /// (`initiator = "receiver"`): the listening sender answers with its
    /// SYN-ACK (RFC 9293 §3.5), and again to a SYN sent again (its SYN-ACK
    /// was lost or is late; Linux's request socket resends it,
    /// `inet_rtx_syn_ack`). The first SYN's time counts as the flow's start.
    pub fn on_syn(&mut self, hdr: &TcpHeader, now: SimTime, first_syn_at: SimTime, out: &mut impl SenderOutput) {
        match self.state {
            SenderState::Idle => {
                self.state = SenderState::SynReceived;
                self.stats.first_syn_at = Some(first_syn_at);
            }
            // Karn: a SYN-ACK sent twice gives no RTT sample.
            SenderState::SynReceived => self.stats.syn_retransmits += 1,
            _ => return,
        }
        self.ts_recent = hdr.ts_val;
        self.send_syn_ack(now, out);
    }

    pub(super) fn send_syn_ack(&mut self, now: SimTime, out: &mut impl SenderOutput) {
        self.syn_sent_at = now;
        let header = TcpHeader {
            flags: TcpFlags(TcpFlags::SYN | TcpFlags::ACK),
            seq: 0,
            ack: 1,
            ts_val: now,
            ts_ecr: self.ts_recent,
            ..TcpHeader::default()
        };
        out.send(OutSegment {
            header,
            kind: TxKind::New,
        });
        self.rto_at = now + self.syn_rto;
        self.sync_timer(out);
    }

    /// Records the first exit from slow start.
    pub fn note_slow_start_exit(&mut self, now: SimTime, cwnd: u64) {
        if self.stats.slow_start_exit_at.is_none() {
            self.stats.slow_start_exit_at = Some(now);
            self.stats.cwnd_at_slow_start_exit = cwnd;
        }
    }

    /// An RTT sample: the estimator takes it and the subflow's congestion
    /// state sees the new SRTT, minimum and latest sample.
    pub(super) fn take_rtt_sample(&mut self, rtt: SimDuration, sf: &mut SubflowCc) {
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
        self.board
            .segs
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
        self.board.clear();
        self.snd_una = self.snd_nxt;
    }

    pub(super) fn complete(&mut self, now: SimTime) {
        self.state = SenderState::Done;
        self.stats.completed_at = Some(now);
        self.stop_timer();
        self.board.clear();
    }
}

#[cfg(test)]
mod tests;
