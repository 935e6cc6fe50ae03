//! Fast recovery: what the congestion window does from the loss that starts
//! an episode to the ACK that ends it. Each algorithm is a file:
//!
//! - [`reno`]: RFC 5681 §3.2 Reno and RFC 6582 NewReno, window inflation by
//!   duplicate ACKs;
//! - [`rfc6675`]: RFC 6675 SACK recovery, cwnd = ssthresh and `pipe`
//!   decides (its NextSeg rules 3 and 4 are in the sender's transmission);
//! - [`prr`]: RFC 6937 Proportional Rate Reduction;
//! - [`prr_ns3`]: ns-3.44's `TcpPrrRecovery`, PRR with ns-3's accounting;
//! - [`prr_linux`]: Linux 6.x's `tcp_cwnd_reduction`, PRR in packets.
//!
//! A new algorithm is a file here and a line in [`RecoveryKind`].

pub mod prr;
pub mod prr_linux;
pub mod prr_ns3;
pub mod reno;
pub mod rfc6675;

use super::config::{PrrVariant, Recovery, TcpParams};
use super::scoreboard::Scoreboard;
use crate::cc::SubflowCc;

/// One recovery episode's state.
#[derive(Clone, Copy, Debug)]
pub struct RecoveryState {
    /// RFC 6582 `recover` / RFC 6675 `RecoveryPoint`: the highest sequence
    /// number sent when recovery began; an ACK beyond it ends recovery.
    pub point: u64,
    /// RFC 6937 prr_delivered, bytes.
    pub prr_delivered: u64,
    /// RFC 6937 prr_out, bytes.
    pub prr_out: u64,
    /// Linux's `tp->prr_delivered`: segments delivered in the episode.
    pub prr_delivered_pkts: u64,
    /// Linux's `tp->prr_out`: segments sent in the episode.
    pub prr_out_pkts: u64,
    /// RFC 6937 RecoverFS, bytes.
    pub recover_fs: u64,
    /// RFC 6675 HighRxt: one past the highest sequence number retransmitted
    /// in this episode.
    pub high_rxt: u64,
    /// RFC 6675 RescueRxt: the recovery point when the rescue
    /// retransmission (NextSeg rule 4) was sent; `None` before.
    pub rescue_rxt: Option<u64>,
    /// Partial ACKs received in this episode (RFC 6582 §3.2 step 5).
    pub partial_acks: u32,
}

/// The recovery algorithm a flow's settings select.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RecoveryKind {
    Reno,
    NewReno,
    Sack,
    Prr,
    PrrNs3,
    PrrLinux,
}

impl RecoveryKind {
    #[inline]
    pub fn of(params: &TcpParams) -> Self {
        match (params.recovery, params.prr_variant) {
            (Recovery::Reno, _) => RecoveryKind::Reno,
            (Recovery::NewReno, _) => RecoveryKind::NewReno,
            (Recovery::Sack, _) => RecoveryKind::Sack,
            (Recovery::Prr, PrrVariant::Rfc6937) => RecoveryKind::Prr,
            (Recovery::Prr, PrrVariant::Ns3) => RecoveryKind::PrrNs3,
            (Recovery::Prr, PrrVariant::Linux) => RecoveryKind::PrrLinux,
        }
    }

    /// Whether the first unacknowledged segment is resent at once on
    /// entry, whatever the window (RFC 5681 §3.2 step 2, RFC 6582 §3.2 step
    /// 2, RFC 6675 §5 (4.3), ns-3's `EnterRecovery`); RFC 6937 PRR's window
    /// on entry, pipe + 1 MSS, already has room for it.
    #[inline]
    pub fn resends_head_on_entry(self) -> bool {
        self != RecoveryKind::Prr
    }

    /// RecoverFS for an episode starting with this FlightSize, pipe and
    /// congestion window.
    #[inline]
    pub fn recover_fs(self, flight_size: u64, pipe: u64, cwnd: u64) -> u64 {
        match self {
            RecoveryKind::PrrNs3 => pipe,
            RecoveryKind::PrrLinux => cwnd,
            _ => flight_size,
        }
    }
}

/// What an ACK tells the recovery under way (one that does not end it).
#[derive(Clone, Copy, Debug)]
pub struct RecoveryAck {
    /// Bytes the ACK advanced SND.UNA by.
    pub newly_acked: u64,
    /// RFC 6937 DeliveredData.
    pub delivered: u64,
    /// The segments it delivered, a short one as a whole one
    /// (`tp->delivered`'s step).
    pub delivered_pkts: u64,
    /// Whether the ACK counts as a duplicate one.
    pub dup: bool,
    /// RFC 6675 pipe after the ACK.
    pub pipe: u64,
    /// `tcp_packets_in_flight` after the ACK.
    pub pipe_pkts: u64,
    /// The pipe ns-3's PRR reads (`BytesInFlight`, data octets; without
    /// SACK, before this ACK's own guessed mark).
    pub pipe_ns3: u64,
    /// The ACK cumulatively acknowledged a retransmitted segment (ns-3's
    /// `m_isRetransDataAcked`, PRR's "safe ACK").
    pub safe: bool,
    /// The ACK marked segments lost that were not (Linux's `rs->losses`).
    pub newly_lost: bool,
}

/// The congestion window on entering recovery with the new `ssthresh`,
/// after the head was deemed lost; `ack` is the ACK that started the
/// episode `entry`.
pub fn entry_cwnd(
    kind: RecoveryKind,
    params: &TcpParams,
    entry: &mut RecoveryState,
    sf: &SubflowCc,
    ack: &RecoveryAck,
) -> u64 {
    let mss = params.mss as u64;
    match kind {
        RecoveryKind::Reno | RecoveryKind::NewReno => reno::entry_cwnd(sf.ssthresh, params.dupack_threshold, mss),
        RecoveryKind::Sack => rfc6675::entry_cwnd(sf.ssthresh),
        RecoveryKind::Prr => prr::entry_cwnd(ack.pipe, mss),
        RecoveryKind::PrrNs3 => prr_ns3::entry_cwnd(entry, sf, ack, mss),
        RecoveryKind::PrrLinux => prr_linux::cwnd_after(entry, sf.ssthresh, sf.cwnd, ack, mss),
    }
}

/// An ACK during fast recovery that does not end it: the new cwnd.
pub fn on_ack(
    kind: RecoveryKind,
    rec: &mut RecoveryState,
    sf: &mut SubflowCc,
    board: &mut Scoreboard,
    ack: &RecoveryAck,
    mss: u64,
) {
    match kind {
        RecoveryKind::Reno => reno::reno_on_ack(sf, ack, mss),
        RecoveryKind::NewReno => reno::newreno_on_ack(sf, board, ack, mss),
        RecoveryKind::Sack => {}
        RecoveryKind::Prr => prr::on_ack(rec, sf, ack, mss),
        RecoveryKind::PrrNs3 => prr_ns3::on_ack(rec, sf, ack, mss),
        RecoveryKind::PrrLinux => prr_linux::on_ack(rec, sf, ack, mss),
    }
}
