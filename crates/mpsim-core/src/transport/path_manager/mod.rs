//! MPTCP path managers: which subflows a connection opens. RFC 8684 §3.4
//! leaves the choice to the host; the Linux implementations ship several
//! (the out-of-tree kernel's `fullmesh` and `ndiffports`, upstream's
//! in-kernel and userspace managers). One file per manager; the scenario
//! names one in `path_manager` ([`PathManager`]).
//!
//! Subflows opened or closed later by subflow events (`transport/mptcp.rs`,
//! [`crate::transport::mptcp::SubflowAction`]) do not go through a path
//! manager: they are the scenario's own decisions at given times.

mod fullmesh;
mod kernel;
mod ndiffports;

pub use fullmesh::Fullmesh;
pub use kernel::Kernel;
pub use ndiffports::Ndiffports;

use crate::ids::AddrId;
use crate::transport::mptcp::{Initiator, PathManager};

/// A path manager.
pub trait ManagePaths {
    /// The (source, destination) address pairs of the connection's
    /// subflows, the first subflow's first; the others join once the first
    /// is established. `srcs` and `dsts` are the connection's addresses, in
    /// the scenario's order, neither empty.
    fn initial_subflows(&self, srcs: &[AddrId], dsts: &[AddrId]) -> Vec<(AddrId, AddrId)>;
}

impl PathManager {
    /// The subflows of a connection opened by `initiator` (the in-kernel
    /// manager runs at that side; the others do not depend on it).
    pub fn subflows_of(&self, srcs: &[AddrId], dsts: &[AddrId], initiator: Initiator) -> Vec<(AddrId, AddrId)> {
        match *self {
            PathManager::Fullmesh => Fullmesh.initial_subflows(srcs, dsts),
            PathManager::Ndiffports { subflows } => Ndiffports { subflows }.initial_subflows(srcs, dsts),
            PathManager::Kernel {
                subflows,
                add_addr_accepted,
            } => Kernel {
                subflows,
                add_addr_accepted,
                initiator,
            }
            .initial_subflows(srcs, dsts),
        }
    }
}
