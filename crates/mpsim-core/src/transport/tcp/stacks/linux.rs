//! Linux 6.x (6.18, the rig's kernel): min RTO 200 ms, delayed ACK 40 ms
//! with quick-ACK, SACK + PRR, RACK-TLP, F-RTO, IW 10, counting of
//! acknowledged segments without the ABC limit, cwnd counted in segments;
//! with CUBIC, CUBIC's HyStart (`tcp_cubic.c`) ends slow start.

use crate::cc::{AckCounting, Cc, RenoConfig};
use crate::slowstart::StandardConfig;
use crate::time::SimDuration;
use crate::transport::mptcp::{MptcpJoin, MptcpRcvWindow};
use crate::transport::tcp::config::{LossFlight, PrrVariant, Recovery, TcpParams};
use crate::transport::tcp::receiver::{ReceiverConfig, SackBlocks};
use crate::transport::tcp::rtt::RttConfig;

pub fn params() -> TcpParams {
    let rfc = super::rfc::params();
    TcpParams {
        recovery: Recovery::Prr,
        // `tcp_cwnd_reduction`: PRR in packets from cwnd at entry.
        prr_variant: PrrVariant::Linux,
        // Linux ≥ 4.18 detects losses with RACK and probes tails
        // (net.ipv4.tcp_recovery = 1, tcp_early_retrans = 3); it has
        // no RFC 6675 rescue retransmission.
        rack: true,
        tlp: true,
        // net.ipv4.tcp_frto = 2, the default (`tcp_enter_loss`).
        frto: true,
        // `tcp_xmit_retransmit_queue`: the head's retransmission restarts
        // the RTO.
        rto_restart_on_head_retransmit: true,
        cwnd_in_segments: true,
        sack_rule3: false,
        sack_rescue: false,
        // `tcp_sacktag_write_queue` sorts the blocks by their start.
        sack_blocks_in_order: true,
        rtt: RttConfig {
            initial_rto: SimDuration::from_secs(1),
            min_rto: SimDuration::from_millis(200),
            max_rto: SimDuration::from_secs(120),
            granularity: SimDuration::from_millis(1),
            // `tcp_set_rto`: SRTT + max(4·mdev, tcp_rto_min).
            min_rto_bounds_variation: true,
        },
        receiver: ReceiverConfig {
            delayed_ack: true,
            delack_segments: 2,
            delack_timeout: SimDuration::from_millis(40),
            quickack_segments: 16,
            // `tcp_grow_window`: a quick ACK for each segment while the
            // window opens (the rig's captures: an ACK per data segment
            // throughout a 700 kB transfer).
            quickack_window_growth: true,
            sack_compression: true,
            // `tcp_sack_new_ofo_skb`: the block a segment starts or extends
            // goes first, merged with those it touches; four remembered.
            sack_blocks: SackBlocks::Recent,
            ..ReceiverConfig::default()
        },
        slow_start: StandardConfig {
            counting: AckCounting::Bytes,
            abc_limit_mss: None,
        },
        reno: RenoConfig {
            counting: AckCounting::Bytes,
        },
        // `tcp_reno_ssthresh`: max(cwnd / 2, 2 segments).
        loss_flight: LossFlight::Cwnd,
        // `mptcp_pm_nl_fully_established` and `__mptcp_subflow_active`.
        mptcp_join: MptcpJoin::Linux,
        // `mptcp_rcv_space_adjust`, `mptcp_set_rwin`, `mptcp_check_allowed_size`.
        mptcp_rcv_window: MptcpRcvWindow::Linux,
        // `mptcp_retransmit_timer`, `__mptcp_retrans`, `mptcp_subflow_get_retrans`.
        mptcp_retransmit_timer: true,
        // `mptcp_pm_fully_established` → `mptcp_pm_schedule_work`: the join
        // is made by the connection's worker. On the kernel comparison's rig
        // its SYN left 0.20–0.27 ms (median 0.22 ms, one of six at 0.81 ms)
        // after the packet that made the connection fully established, after
        // the data the next arrival released (validation/linux/diagnosis.md,
        // item 23).
        mptcp_pm_delay: SimDuration(220_000),
        // `tcp_cwnd_validate` and `tcp_is_cwnd_limited` (Linux ≥ 3.16).
        cwnd_limited_linux: true,
        // `__tcp_transmit_skb`'s PSH on multi-segment sends and the
        // receiver's pushed ACK (`tcp_measure_rcv_mss`, `tcp_cleanup_rbuf`).
        push_flag: true,
        ..rfc
    }
}

/// Linux has HyStart in `tcp_cubic.c` only: with CUBIC (and no HyStart the
/// flow chose) CUBIC's HyStart ends slow start; mpsim's coupled and
/// multipath CUBICs are not Linux's.
pub fn with_cc(t: &mut TcpParams, cc: &Cc, chosen: super::FlowChoices) {
    if !chosen.hystart_linux && t.hystart.is_none() && matches!(cc, Cc::Cubic(_)) {
        t.hystart_linux = Some(Default::default());
    }
}
