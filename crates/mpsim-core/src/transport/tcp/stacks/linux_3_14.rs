//! Linux 3.14, the kernel of MPTCP v0.89: as [`super::linux`] but no RACK
//! (4.4), FACK loss detection (`tcp_fack` = 1), Linux 3's loss-probe timeout
//! and delayed early retransmit beside the loss probe (`tcp_early_retrans` = 3);
//! MPTCP subflows join as the out-of-tree MPTCP did, at the first subflow's establishment.
//! docs/algorithms.md gives every setting beside its 3.14 source.

use crate::time::SimDuration;
use crate::transport::mptcp::{MptcpJoin, MptcpRcvWindow};
use crate::transport::tcp::config::{PrrVariant, TcpParams, TlpPto};
use crate::transport::tcp::receiver::ReceiverConfig;

pub fn params() -> TcpParams {
    let linux = super::linux::params();
    TcpParams {
        rack: false,
        tlp_pto: TlpPto::Linux3,
        early_retransmit: true,
        early_retransmit_delay: true,
        fack: true,
        // The out-of-tree MPTCP v0.89's path managers join at the first
        // subflow's establishment; the scenarios that use this profile set
        // the join's delay themselves (docs/reproduction.md).
        mptcp_join: MptcpJoin::Established,
        // v0.89's meta-socket window is not modelled: the fixed buffer.
        mptcp_rcv_window: MptcpRcvWindow::Fixed,
        // v0.89 retransmits at the data level after a subflow's timeout
        // (reinjection), not by the upstream connection timer.
        mptcp_retransmit_timer: false,
        // The out-of-tree path manager's worker latency was never measured:
        // the join leaves at the SYN-ACK (the `established` rule) at once.
        mptcp_pm_delay: SimDuration::ZERO,
        // 3.14's `tcp_is_cwnd_limited` judged the flight at each ACK (the
        // measurement over a window came with 3.16).
        cwnd_limited_linux: false,
        // The PSH forced on multi-segment sends came with Linux 4.12.
        push_flag: false,
        // 3.14's `tcp_cwnd_reduction` adds the slow-start bound's segment on
        // every ACK, as RFC 6937 does.
        prr_variant: PrrVariant::Rfc6937,
        // 3.14's `tcp_grow_window` quick-ACKs too; not turned on here yet
        // (docs/algorithms.md, the profiles table).
        receiver: ReceiverConfig {
            quickack_window_growth: false,
            // SACK compression came with Linux 4.18.
            sack_compression: false,
            ..linux.receiver
        },
        ..linux
    }
}
