//! Per-flow TCP configuration and the stack profiles that set every default
//! at once (`linux`, `ns3`, `rfc`). docs/algorithms.md compares them.

use serde::{Deserialize, Serialize};

use super::receiver::ReceiverConfig;
use super::rtt::RttConfig;
use crate::cc::RenoConfig;
use crate::slowstart::{HyStartConfig, HyStartLinuxConfig, HyStartNs3Config, StandardConfig};
use crate::time::SimDuration;

/// Loss recovery after three duplicate ACKs (or SACK evidence).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// RFC 5681 §3.2 fast retransmit / fast recovery (plain Reno): cwnd
    /// inflation by duplicate ACKs, and the first ACK of new data — even a
    /// partial one — ends recovery with cwnd = ssthresh.
    Reno,
    /// RFC 6582: cwnd inflation by duplicate ACKs, partial ACKs retransmit.
    NewReno,
    /// RFC 6675: SACK scoreboard, pipe-based sending with cwnd = ssthresh.
    Sack,
    /// RFC 6937 Proportional Rate Reduction over the RFC 6675 scoreboard.
    Prr,
}

/// Which duplicate ACKs count towards DupThresh with SACK.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DupAckRule {
    /// RFC 6675 §2: an ACK that acknowledges no new data and carries SACK
    /// information that is new (or none at all).
    Rfc6675,
    /// ns-3 `TcpSocketBase::ProcessAck`: any ACK whose SACK blocks update
    /// the scoreboard, even one that also advances SND.UNA.
    NewSack,
}

/// How PRR (RFC 6937) counts what was delivered and what it may send.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrrVariant {
    /// RFC 6937 §3: RecoverFS = FlightSize, DeliveredData = ΔSND.UNA +
    /// ΔSACKed, the slow-start reduction bound (PRR-SSRB).
    Rfc6937,
    /// ns-3.44 `TcpPrrRecovery`: RecoverFS = pipe at entry; one more MSS
    /// delivered per duplicate ACK while prr_delivered < RecoverFS; the
    /// conservative bound (PRR-CRB) unless the ACK covers retransmitted
    /// data; cwnd = pipe + sndcnt, at least one segment on entry.
    Ns3,
    /// Linux 6.x `tcp_cwnd_reduction`: in packets, RecoverFS = cwnd at
    /// entry, the slow-start bound's extra segment only on an ACK that
    /// advanced SND.UNA and marked no new loss.
    Linux,
}

/// What a loss (fast retransmit, a repaired tail loss probe, or a first
/// timeout) halves into the new ssthresh, for Reno and for every coupled
/// algorithm that decreases as Reno does (docs/algorithms.md, "What a loss
/// halves").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossFlight {
    /// RFC 5681 §2's FlightSize to the letter: SND.NXT − SND.UNA, data
    /// sent and not yet cumulatively acknowledged, whether or not the
    /// receiver already holds it.
    FlightSize,
    /// RFC 5681 eq. (4)'s FlightSize as "the amount of outstanding data in
    /// the network", which ssthresh must be no more than half of: SND.NXT −
    /// SND.UNA, but no more than cwnd. After a long NewReno recovery whose
    /// inflated window sent new data past holes, most of SND.NXT − SND.UNA
    /// is data the receiver holds; and §3.2 step 2 leaves out what limited
    /// transmit sent beyond a full window.
    CappedFlightSize,
    /// ns-3 `BytesInFlight()`: RFC 6675 pipe (sent − SACKed − lost +
    /// retransmitted).
    Pipe,
    /// cwnd: Linux's `tcp_reno_ssthresh` (and htsim's `TcpSrc`).
    Cwnd,
}

/// How a segment's TCP options are laid out, which decides its size on the
/// wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptionLayout {
    /// Each option NOP-padded to 32 bits, as Linux writes them
    /// (`tcp_options_write`): timestamps 12 bytes, SACK 4 + 8n; a SYN
    /// carries MSS (4), SACK-permitted with timestamps (12, or 4 without
    /// them) and window scale (4).
    Aligned,
    /// Options back to back and the whole list padded once to 32 bits, as
    /// ns-3 serialises them (`TcpHeader::CalculateHeaderLength`): timestamps
    /// 10, SACK 2 + 8n; a SYN carries timestamps, window scale (3) and
    /// SACK-permitted (2), no MSS option.
    Packed,
}

/// When a partial ACK in NewReno recovery restarts the retransmission timer
/// (RFC 6582 §4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckRto {
    /// Only on the first partial ACK of an episode (RFC 6582 §3.2 step 5,
    /// the RFC's recommendation): a window with many losses times out and
    /// is resent by slow start.
    Impatient,
    /// On every partial ACK: one hole repaired per round trip however many
    /// there are.
    SlowButSteady,
}

/// How the tail loss probe's timeout (PTO) is set.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TlpPto {
    /// Linux 6.x and RFC 8985 §7.2: 2·SRTT plus the minimum RTO with one
    /// segment outstanding, else plus 2 ms.
    Linux6,
    /// Linux 3.10–4.x `tcp_schedule_loss_probe`: max(2·SRTT, 10 ms), and
    /// at least 1.5·SRTT + 200 ms (TCP_DELACK_MAX) with one segment
    /// outstanding.
    Linux3,
}

/// A stack whose defaults a flow takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// Linux 6.x: min RTO 200 ms, delayed ACK 40 ms with quick-ACK, SACK +
    /// PRR, RACK-TLP, F-RTO, IW 10, counting of acknowledged segments without
    /// the ABC limit; with CUBIC, CUBIC's HyStart (`tcp_cubic.c`) ends slow
    /// start.
    #[default]
    Linux,
    /// Linux 3.14, the kernel of MPTCP v0.89: as `linux` but no RACK (4.4),
    /// FACK loss detection (`tcp_fack` = 1) and delayed early retransmit
    /// beside the loss probe (`tcp_early_retrans` = 3).
    #[serde(rename = "linux_3_14")]
    Linux314,
    /// ns-3.44 `TcpSocketBase` defaults: min RTO 1 s, delayed ACK every 2
    /// segments or 200 ms, SACK + PRR, timestamps, slow start and congestion
    /// avoidance counted per ACK received (`TcpNewReno`), 2-byte PPP framing.
    Ns3,
    /// The RFCs: min RTO 1 s (RFC 6298), delayed ACK 2 segments / 200 ms
    /// (RFC 5681 §4.2 allows up to 500 ms), SACK (RFC 6675), byte counting
    /// with L = 2 (RFC 3465), IW 10 (RFC 6928).
    Rfc,
    /// ns-2.35's one-way `Agent/TCP/Sack1` with a `TCPSink/Sack1`, as the
    /// MPCubic paper ran it (Sec. IV): 1000-byte segments, every segment
    /// acknowledged, no timestamps, cwnd in segments grown per ACK, IW 2,
    /// RTO 3 s initial / 200 ms min / 60 s max with a 10 ms tick, and a
    /// receive window far above any of the paper's BDPs.
    Ns2,
}

/// Everything a TCP flow's sender and receiver need, resolved from a profile
/// and any overrides (serialised for `mpsim validate --resolved`: durations
/// in nanoseconds, unset as null).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TcpParams {
    /// Payload bytes per full segment.
    pub mss: u32,
    /// IP + TCP header bytes on the wire, without options (40).
    pub header_bytes: u32,
    /// Link-layer framing bytes counted on the wire (ns-3's PPP: 2).
    pub framing_bytes: u32,
    /// How the TCP options are laid out (sizes of SYNs and of ACKs with SACK
    /// blocks).
    pub option_layout: OptionLayout,
    /// RFC 7323 timestamps: 12 more header bytes per segment, and an RTT
    /// sample from every ACK that acknowledges new data.
    pub timestamps: bool,
    pub sack: bool,
    pub recovery: Recovery,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// Which partial ACKs of a recovery episode restart the retransmission
    /// timer (NewReno, SACK and PRR recovery alike).
    pub partial_ack_rto: PartialAckRto,
    /// SACK and PRR recovery: a partial ACK resends the first
    /// unacknowledged segment at once, whatever the window, unless it was
    /// resent already (as NewReno does; ns-3 `TcpSocketBase::ProcessAck`).
    pub partial_ack_retransmit: bool,
    /// Linux `tcp_xmit_retransmit_queue`: resending the first
    /// unacknowledged segment restarts the retransmission timer (unless
    /// RACK's reordering timer holds it), so a recovery that repairs its
    /// holes in order is not cut short by a timeout.
    pub rto_restart_on_head_retransmit: bool,
    /// Without SACK, SACK and PRR recovery still run, on a scoreboard where
    /// each duplicate ACK marks the lowest unmarked segment above the first
    /// unacknowledged one as received (ns-3 `TcpTxBuffer::AddRenoSack`);
    /// off, recovery without SACK is NewReno.
    pub emulate_sack: bool,
    pub dupack_rule: DupAckRule,
    pub prr_variant: PrrVariant,
    /// What a loss (fast recovery or RTO) halves into ssthresh.
    pub loss_flight: LossFlight,
    /// SACK recovery: RFC 6675 §4 NextSeg rule 3 (resend an unSACKed
    /// segment below the highest SACKed one that is not yet deemed lost),
    /// when rules 1 and 2 have nothing to send.
    pub sack_rule3: bool,
    /// Rule 3 as ns-3.44 has it (`TcpTxBuffer::NextSeg`, enabled by
    /// `SendPendingData` in recovery with SACK on): never on marks emulated
    /// without SACK, and once SND.UNA has passed every SACKed byte
    /// (`DiscardUpTo` clears `m_sackSeen`) without an upper bound: any
    /// segment neither SACKed nor resent qualifies. Off, rule 3 needs a
    /// SACKed segment above (RFC 6675 §4).
    pub sack_rule3_ns3: bool,
    /// SACK recovery: RFC 6675 §4 NextSeg rule 4, one "rescue"
    /// retransmission of the highest unSACKed segment per episode, when
    /// rules 1–3 have nothing to send.
    pub sack_rescue: bool,
    /// Walk an ACK's SACK blocks in sequence order, as Linux's
    /// `tcp_sacktag_write_queue` sorts them before it walks the queue; off,
    /// in the order the ACK lists them (ns-3's `TcpTxBuffer::Update`). The
    /// order decides which newly SACKed segment RACK takes its RTT from
    /// (`tcp_rack_advance`: the last one).
    pub sack_blocks_in_order: bool,
    /// RFC 8985 §6 RACK with SACK (Linux's only SACK loss detection since
    /// 4.18): losses detected by time instead of by duplicate ACKs and IsLost.
    pub rack: bool,
    /// RFC 8985 §7 tail loss probe with SACK (Linux since 3.10): a probe
    /// two RTTs after the last transmission instead of waiting for the RTO.
    pub tlp: bool,
    /// How the loss probe's timeout is set.
    pub tlp_pto: TlpPto,
    /// RFC 5682 F-RTO, the SACK-enhanced variant as Linux runs it since 3.10
    /// (`tcp_process_loss`): after a timeout the first ACK that advances
    /// SND.UNA releases new data instead of retransmissions, and an ACK of
    /// data sent before the timeout and never resent shows the timeout was
    /// spurious: cwnd and ssthresh are restored.
    pub frto: bool,
    /// RFC 5827 early retransmit: with fewer than four segments outstanding
    /// and no new data to send, outstanding − 1 duplicate ACKs (SACKed
    /// segments) start recovery.
    pub early_retransmit: bool,
    /// RFC 5827 §6 mitigation A.3 as Linux 3.x ran it
    /// (`tcp_early_retrans` = 2 or 3): the early retransmission waits
    /// max(SRTT/4, 2 ms) for an ACK that makes it unnecessary.
    pub early_retransmit_delay: bool,
    /// Forward acknowledgement with SACK (Linux until 4.15, `tcp_fack`): a
    /// segment is lost when the highest SACKed one is DupThresh segments or
    /// more above it, instead of RFC 6675 IsLost's DupThresh SACKed
    /// segments; a retransmission is lost once a segment sent after it is
    /// SACKed.
    pub fack: bool,
    /// The window and the flight are counted in segments, whatever their
    /// lengths (Linux `tcp_cwnd_test` against `tcp_packets_in_flight`): a
    /// segment goes only while fewer segments are in flight than cwnd holds
    /// whole MSS, so a short segment out takes a whole one (with SACK; without,
    /// a segment needs a full MSS of room in bytes); off, the flight is
    /// counted in bytes and a short segment needs only its own length.
    pub cwnd_in_segments: bool,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    pub dupack_threshold: u32,
    /// A retransmitted segment that is then SACKed stays counted in pipe
    /// (once, as retransmitted) until SND.UNA passes it: ns-3's
    /// `TcpTxBuffer::Update` marks it SACKed without taking it out of the
    /// retransmitted bytes, which `BytesInFlight` adds back. RFC 6675
    /// SetPipe counts no SACKed segment.
    pub sacked_retransmissions_in_pipe: bool,
    /// The ACK that ends the recovery from a timeout grows the window only
    /// by what it acknowledges above the recovery point (ns-3
    /// `TcpSocketBase::ProcessAck` leaving `CA_LOSS`: `segsAcked = (ack −
    /// m_recover) / MSS`); off, by everything it acknowledges.
    pub rto_exit_growth_above_recover: bool,
    /// The ACK that ends fast recovery also grows the window from ssthresh
    /// (ns-3 `TcpSocketBase::ProcessAck` calls `IncreaseWindow` once the
    /// state is back to open); off, it only sets cwnd to ssthresh.
    pub grow_on_recovery_exit: bool,
    /// The sending application's socket buffer, bytes: data sent and not
    /// yet acknowledged, written in whole segments, never exceeds it (ns-3
    /// `TcpSocket::SndBufSize`, 128 KiB, filled by `BulkSendApplication`
    /// one segment at a time); `None` for no limit.
    pub send_buffer_bytes: Option<u64>,
    /// A constant window the receiver advertises on each TCP flow and each
    /// MPTCP subflow, bytes: the sender keeps at most this much sent and
    /// unacknowledged on it (RFC 9293 §3.8.6, SND.NXT − SND.UNA ≤ SND.WND;
    /// the legacy ns-3 MPTCP model's per-subflow min(rwnd, cwnd)). `None`:
    /// no cap beyond the receive buffer (and, for MPTCP, the connection's
    /// window).
    pub receive_window_bytes: Option<u64>,
    /// Initial window, segments (RFC 6928: 10).
    pub initial_cwnd_segments: u32,
    /// Initial ssthresh in bytes; `None` is unlimited (RFC 5681 "arbitrarily high").
    pub initial_ssthresh_bytes: Option<u64>,
    /// Timeout of the SYN before any RTT sample.
    pub syn_rto: SimDuration,
    pub rtt: RttConfig,
    pub receiver: ReceiverConfig,
    pub slow_start: StandardConfig,
    /// HyStart++ (RFC 9406) on the standard slow start; `None` (every
    /// profile's default) for none.
    pub hystart: Option<HyStartConfig>,
    /// Linux CUBIC's HyStart on the standard slow start; `None` for none.
    /// The `linux` profile turns it on when the congestion control is CUBIC
    /// (resolved with the flow's options, not here).
    pub hystart_linux: Option<HyStartLinuxConfig>,
    /// ns-3.44 `TcpCubic`'s slow start and HyStart; `None` for none. The
    /// `ns3` profile turns it on when the congestion control is CUBIC
    /// (resolved with the flow's options, not here).
    pub hystart_ns3: Option<HyStartNs3Config>,
    pub reno: RenoConfig,
    /// RFC 7661-style congestion window validation: the window grows only
    /// while the sender uses it.
    pub cwnd_validation: bool,
    /// With `cwnd_validation`, "uses it" as ns-3 judges it: whether the last
    /// data segment sent left less than one MSS of cwnd unused (ns-3.44
    /// `SendDataPacket` sets `m_isCwndLimited`, which holds until the next
    /// segment is sent); off, judged at every ACK from the flight before it.
    pub cwnd_limited_at_send: bool,
    /// With `cwnd_validation`, "uses it" as Linux ≥ 3.16 judges it
    /// (`tcp_cwnd_validate`, `tcp_is_cwnd_limited`): cwnd was full at some
    /// transmission of the current window, or, in slow start, cwnd is below
    /// twice the most segments that window had outstanding (so an
    /// application- or window-limited sender that used half its cwnd still
    /// doubles it). Takes precedence over `cwnd_limited_at_send`.
    pub cwnd_limited_linux: bool,
    /// Linux ≥ 4.12 (`__tcp_transmit_skb`: "to expedite GRO flush at
    /// receiver"): a send of more than one segment at once carries PSH on
    /// its last segment, and the receiver acknowledges a full segment with
    /// PSH once its application has read it (`tcp_measure_rcv_mss` sets
    /// `ICSK_ACK_PUSHED`, `tcp_cleanup_rbuf` sends the pending ACK), when
    /// its quick ACKs follow Linux's count.
    pub push_flag: bool,
    /// MPTCP: when the subflows beyond the first join and when a joined
    /// subflow may send (`established`: the RFC's minimum; `linux`: Linux
    /// 6.x's full establishment and fourth ACK).
    pub mptcp_join: crate::transport::mptcp::MptcpJoin,
    /// MPTCP: the connection-level receive window (`fixed`: the buffer;
    /// `linux`: Linux 6.18's autotuned buffer and the sender's short
    /// segments at the window's edge).
    pub mptcp_rcv_window: crate::transport::mptcp::MptcpRcvWindow,
    /// MPTCP: Linux's connection-level retransmission timer
    /// (`mptcp_retransmit_timer`).
    pub mptcp_retransmit_timer: bool,
    /// MPTCP: how long after the event that prompts it the path manager
    /// opens the connection's other initial subflows (Linux runs it in the
    /// connection's worker, `mptcp_worker` on a workqueue, after the packets
    /// being processed then); subflow events keep their own times.
    pub mptcp_pm_delay: SimDuration,
}

impl TcpParams {
    /// Wire size of a segment carrying `payload` bytes and `n_sack` SACK
    /// blocks (RFC 2018: 2 + 8n option bytes), a SYN if `syn`: IP + TCP
    /// headers, options as [`OptionLayout`] lays them out, framing.
    pub fn wire_size(&self, payload: u32, n_sack: u8, syn: bool) -> u32 {
        let n = n_sack as u32;
        let options = match (self.option_layout, syn) {
            (OptionLayout::Aligned, false) => {
                let ts = if self.timestamps { 12 } else { 0 };
                let sack = if n == 0 { 0 } else { 4 + 8 * n };
                ts + sack
            }
            // MSS, then SACK-permitted and timestamps sharing 12 bytes (or
            // NOP NOP SACK-permitted alone), then NOP window scale.
            (OptionLayout::Aligned, true) => {
                let sack_ts = match (self.sack, self.timestamps) {
                    (_, true) => 12,
                    (true, false) => 4,
                    (false, false) => 0,
                };
                4 + sack_ts + 4
            }
            (OptionLayout::Packed, false) => {
                let ts = if self.timestamps { 10 } else { 0 };
                let sack = if n == 0 { 0 } else { 2 + 8 * n };
                (ts + sack).div_ceil(4) * 4
            }
            (OptionLayout::Packed, true) => {
                let ts = if self.timestamps { 10 } else { 0 };
                let sack_permitted: u32 = if self.sack { 2 } else { 0 };
                (ts + 3 + sack_permitted).div_ceil(4) * 4
            }
        };
        self.header_bytes + options + self.framing_bytes + payload
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// IP + TCP 40 bytes; Linux: timestamps NOP NOP TS (12), SACK NOP NOP
    /// kind len 8n, SYN MSS 4 + SACK-permitted/TS 12 + NOP WS 4; ns-3: the
    /// option lengths summed (TS 10, SACK 2 + 8n, WS 3, SACK-permitted 2)
    /// and padded once, plus 2 bytes of PPP.
    #[test]
    fn option_layouts_give_the_sizes_on_the_wire() {
        let linux = Profile::Linux.params();
        assert_eq!(linux.wire_size(1400, 0, false), 1452);
        assert_eq!(linux.wire_size(0, 1, false), 64);
        assert_eq!(linux.wire_size(0, 3, false), 80);
        assert_eq!(linux.wire_size(0, 0, true), 60);
        let ns3 = Profile::Ns3.params();
        assert_eq!(ns3.wire_size(1400, 0, false), 1454);
        assert_eq!(ns3.wire_size(0, 1, false), 62);
        assert_eq!(ns3.wire_size(0, 3, false), 78);
        assert_eq!(ns3.wire_size(0, 0, true), 58);
    }
}
