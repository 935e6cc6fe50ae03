//! ns-3.44's `TcpSocketBase` defaults: min RTO 1 s, delayed ACK every 2
//! segments or 200 ms, SACK + PRR with ns-3's accounting, timestamps, slow
//! start and congestion avoidance counted per ACK received (`TcpNewReno`),
//! 2-byte PPP framing, and every rule of ns-3's ACK processing that differs
//! from the RFCs (docs/algorithms.md, ns-3).

use crate::cc::{AckCounting, Cc, RenoConfig};
use crate::slowstart::StandardConfig;
use crate::time::SimDuration;
use crate::transport::tcp::config::{
    DupAckRule, LossFlight, OptionLayout, PartialAckRto, PrrVariant, Recovery, TcpParams,
};
use crate::transport::tcp::receiver::{ReceiverConfig, SackBlocks};
use crate::transport::tcp::rtt::RttConfig;

pub fn params() -> TcpParams {
    let rfc = super::rfc::params();
    TcpParams {
        framing_bytes: 2,
        option_layout: OptionLayout::Packed,
        recovery: Recovery::Prr,
        // ns-3.44 `TcpSocketBase::ProcessAck`: the first partial ACK
        // only restarts the RTO (`NewAck(ack, m_isFirstPartialAck)`),
        // and every partial ACK resends the next segment.
        partial_ack_rto: PartialAckRto::Impatient,
        partial_ack_retransmit: true,
        // Without SACK ns-3 keeps PRR on marks made by duplicate ACKs
        // (`TcpTxBuffer::AddRenoSack`).
        emulate_sack: true,
        dupack_rule: DupAckRule::NewSack,
        prr_variant: PrrVariant::Ns3,
        // `TcpTxBuffer::NextSeg` has rules 1–3, no rescue.
        sack_rescue: false,
        sack_rule3_ns3: true,
        loss_flight: LossFlight::Pipe,
        send_buffer_bytes: Some(131_072),
        grow_on_recovery_exit: true,
        rto_exit_growth_above_recover: true,
        sacked_retransmissions_in_pipe: true,
        syn_rto: SimDuration::from_secs(3),
        rtt: RttConfig {
            initial_rto: SimDuration::from_secs(1),
            min_rto: SimDuration::from_secs(1),
            max_rto: SimDuration::from_secs(60),
            granularity: SimDuration::from_millis(1),
            min_rto_bounds_variation: false,
        },
        slow_start: StandardConfig {
            counting: AckCounting::PerAck,
            abc_limit_mss: None,
        },
        reno: RenoConfig {
            counting: AckCounting::PerAck,
        },
        receiver: ReceiverConfig {
            // ns-3 `TcpSocket::RcvBufSize`: 128 KiB, advertised
            // whole whatever the out-of-order data held
            // (`TcpRxBuffer::MaxRxSequence`).
            rwnd_bytes: 131_072,
            ooo_shrinks_window: false,
            sack_blocks: SackBlocks::Recent,
            // `TcpSocketBase::ReceivedData` acknowledges the first
            // data segment at once.
            quickack_segments: 1,
            ..rfc.receiver
        },
        cwnd_validation: false,
        cwnd_limited_at_send: false,
        cwnd_limited_linux: false,
        ..rfc
    }
}

/// ns-3 `TcpCubic`: slow start counts the segments an ACK acknowledges
/// (unless the flow chose its counting), the window grows only while
/// cwnd-limited as the last segment sent left it, and its own slow start
/// and HyStart run inside (attribute `HyStart`, on by default) unless the
/// flow asked for another HyStart.
pub fn with_cc(t: &mut TcpParams, cc: &Cc, chosen: super::FlowChoices) {
    if !matches!(cc, Cc::Cubic(_)) {
        return;
    }
    if !chosen.ack_counting {
        t.slow_start.counting = AckCounting::Bytes;
        t.slow_start.abc_limit_mss = None;
    }
    t.cwnd_validation = true;
    t.cwnd_limited_at_send = true;
    if t.hystart.is_none() && t.hystart_linux.is_none() {
        t.hystart_ns3 = Some(Default::default());
    }
}
