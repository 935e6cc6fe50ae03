//! The RFCs: min RTO 1 s (RFC 6298), delayed ACK 2 segments / 200 ms
//! (RFC 5681 §4.2 allows up to 500 ms), SACK (RFC 6675) with NextSeg rules
//! 3 and 4, RFC 6675 IsLost, byte counting with L = 2 (RFC 3465), IW 10
//! (RFC 6928), Reno by default. Every other stack starts from these
//! settings and says where it differs.

use crate::cc::{AckCounting, RenoConfig};
use crate::slowstart::StandardConfig;
use crate::time::SimDuration;
use crate::transport::tcp::config::{
    DupAckRule, LossFlight, OptionLayout, PartialAckRto, PrrVariant, Recovery, TcpParams, TlpPto,
};
use crate::transport::tcp::receiver::ReceiverConfig;
use crate::transport::tcp::rtt::RttConfig;

pub fn params() -> TcpParams {
    TcpParams {
        mss: 1400,
        header_bytes: 40,
        framing_bytes: 0,
        option_layout: OptionLayout::Aligned,
        timestamps: true,
        sack: true,
        recovery: Recovery::Sack,
        limited_transmit: true,
        partial_ack_rto: PartialAckRto::SlowButSteady,
        partial_ack_retransmit: false,
        rto_restart_on_head_retransmit: false,
        emulate_sack: false,
        dupack_rule: DupAckRule::Rfc6675,
        prr_variant: PrrVariant::Rfc6937,
        // RFC 5681 eq. (4) bounds ssthresh by the data in the network, which
        // SND.NXT − SND.UNA overstates after a long NewReno recovery
        // (docs/algorithms.md, "What a loss halves").
        loss_flight: LossFlight::CappedFlightSize,
        sack_rule3: true,
        sack_rule3_ns3: false,
        sack_rescue: true,
        sack_blocks_in_order: false,
        rack: false,
        tlp: false,
        tlp_pto: TlpPto::Linux6,
        frto: false,
        early_retransmit: false,
        early_retransmit_delay: false,
        fack: false,
        cwnd_in_segments: false,
        dupack_threshold: 3,
        send_buffer_bytes: None,
        receive_window_bytes: None,
        grow_on_recovery_exit: false,
        rto_exit_growth_above_recover: false,
        sacked_retransmissions_in_pipe: false,
        initial_cwnd_segments: 10,
        initial_ssthresh_bytes: None,
        syn_rto: SimDuration::from_secs(1),
        rtt: RttConfig::default(),
        receiver: ReceiverConfig {
            delayed_ack: true,
            delack_segments: 2,
            delack_timeout: SimDuration::from_millis(200),
            quickack_segments: 0,
            ..ReceiverConfig::default()
        },
        slow_start: StandardConfig {
            counting: AckCounting::Bytes,
            abc_limit_mss: Some(2),
        },
        hystart: None,
        hystart_linux: None,
        hystart_ns3: None,
        reno: RenoConfig {
            counting: AckCounting::Bytes,
        },
        cwnd_validation: true,
        cwnd_limited_at_send: false,
        cwnd_limited_linux: false,
        push_flag: false,
        // RFC 8684 §3.2: a join needs the keys of the MP_CAPABLE handshake.
        mptcp_join: crate::transport::mptcp::MptcpJoin::Established,
        mptcp_rcv_window: crate::transport::mptcp::MptcpRcvWindow::Fixed,
        mptcp_retransmit_timer: false,
        mptcp_pm_delay: SimDuration::ZERO,
    }
}

/// RFC 6582 §4 recommends the Impatient timer for NewReno; RFC 6298
/// restarts it on every ACK of new data otherwise.
pub fn with_recovery(t: &mut TcpParams) {
    if t.recovery == Recovery::NewReno {
        t.partial_ack_rto = PartialAckRto::Impatient;
    }
}
