//! Linux 3.14, the kernel of MPTCP v0.89: as [`super::linux`] but no RACK
//! (4.4), FACK loss detection (`tcp_fack` = 1), Linux 3's loss-probe timeout
//! and delayed early retransmit beside the loss probe (`tcp_early_retrans` = 3).
//! docs/algorithms.md gives every setting beside its 3.14 source.

use crate::transport::tcp::config::{TcpParams, TlpPto};

pub fn params() -> TcpParams {
    TcpParams {
        rack: false,
        tlp_pto: TlpPto::Linux3,
        early_retransmit: true,
        early_retransmit_delay: true,
        fack: true,
        ..super::linux::params()
    }
}
