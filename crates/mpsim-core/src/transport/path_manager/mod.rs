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
mod ndiffports;

pub use fullmesh::Fullmesh;
pub use ndiffports::Ndiffports;

use crate::ids::AddrId;
use crate::transport::mptcp::PathManager;

/// A path manager.
pub trait ManagePaths {
    /// The (source, destination) address pairs of the connection's
    /// subflows, the first subflow's first; the others join once the first
    /// is established. `srcs` and `dsts` are the connection's addresses, in
    /// the scenario's order, neither empty.
    fn initial_subflows(&self, srcs: &[AddrId], dsts: &[AddrId]) -> Vec<(AddrId, AddrId)>;
}

impl ManagePaths for PathManager {
    fn initial_subflows(&self, srcs: &[AddrId], dsts: &[AddrId]) -> Vec<(AddrId, AddrId)> {
        match *self {
            PathManager::Fullmesh => Fullmesh.initial_subflows(srcs, dsts),
            PathManager::Ndiffports { subflows } => Ndiffports { subflows }.initial_subflows(srcs, dsts),
        }
    }
}
