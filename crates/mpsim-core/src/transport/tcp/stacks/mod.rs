//! The stacks a flow's TCP can stand for. Each is one file that sets every
//! constant and selects every component — the feed of the scoreboard, the
//! loss detection, the recovery, the timers and the ACK-processing rules —
//! so that what ns-3 or Linux does reads top to bottom in one place:
//!
//! - [`rfc`]: the RFCs, the base the others start from;
//! - [`linux`]: Linux 6.x;
//! - [`linux_3_14`]: Linux 3.14, the kernel of MPTCP v0.89;
//! - [`ns3`]: ns-3.44's `TcpSocketBase`;
//! - [`ns2`]: ns-2.35's `Sack1` agent, as the MPCubic paper ran it.
//!
//! A new stack is a file here, a variant of [`Profile`] and a line in each
//! match below. docs/algorithms.md cites each setting's source.

pub mod linux;
pub mod linux_3_14;
pub mod ns2;
pub mod ns3;
pub mod rfc;

use super::config::{Profile, TcpParams};
use crate::cc::{Cc, CcConfig};

impl Profile {
    /// The stack's settings before a flow's overrides.
    pub fn params(self) -> TcpParams {
        match self {
            Profile::Rfc => rfc::params(),
            Profile::Linux => linux::params(),
            Profile::Linux314 => linux_3_14::params(),
            Profile::Ns3 => ns3::params(),
            Profile::Ns2 => ns2::params(),
        }
    }

    /// The congestion control a flow of this stack runs when it names none:
    /// LIA for MPTCP, else the stack's own.
    pub fn default_cc(self, mptcp: bool) -> CcConfig {
        if mptcp {
            return CcConfig::Lia {
                config: Default::default(),
            };
        }
        match self {
            Profile::Rfc => CcConfig::Reno {
                config: Default::default(),
            },
            _ => CcConfig::Cubic {
                config: Default::default(),
            },
        }
    }

    /// The MPTCP packet scheduler a connection of this stack runs when it
    /// names none: upstream Linux's (`linger`, `mptcp_subflow_get_send`)
    /// under `linux`, the lowest RTT with room (the out-of-tree MPTCP's
    /// default, and the papers') under the others.
    pub fn default_scheduler(self) -> crate::transport::mptcp::Scheduler {
        match self {
            Profile::Linux => crate::transport::mptcp::Scheduler::Linger,
            _ => crate::transport::mptcp::Scheduler::Minrtt,
        }
    }

    /// What the stack changes once a flow's recovery is known, before the
    /// flow's own overrides of the same settings.
    pub fn with_recovery(self, t: &mut TcpParams) {
        if self == Profile::Rfc {
            rfc::with_recovery(t);
        }
    }

    /// What the stack changes once the flow's congestion control is known,
    /// where the flow did not choose otherwise.
    pub fn with_cc(self, t: &mut TcpParams, cc: &Cc, chosen: FlowChoices) {
        match self {
            Profile::Ns3 => ns3::with_cc(t, cc, chosen),
            Profile::Linux | Profile::Linux314 => linux::with_cc(t, cc, chosen),
            Profile::Rfc | Profile::Ns2 => {}
        }
    }
}

/// Which of the settings a stack adapts to the congestion control the flow
/// set itself (and so keep the flow's value).
#[derive(Copy, Clone, Debug, Default)]
pub struct FlowChoices {
    /// `tcp.ack_counting`.
    pub ack_counting: bool,
    /// `tcp.hystart_linux` (on or off).
    pub hystart_linux: bool,
}
