//! Uncoupled MPTCP: the profile's Reno on every subflow, each on its own
//! (the baseline every coupled algorithm is compared with).

use super::{CcFactory, Reno};
use crate::config::TcpOptions;
use crate::transport::tcp::TcpParams;

/// `cc = {type = "uncoupled"}`: MPTCP with the profile's Reno on every
/// subflow, each on its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UncoupledConfig {}

impl CcFactory for UncoupledConfig {
    type Algorithm = Reno;
    fn build(&self, tcp: &mut TcpParams, _options: &TcpOptions) -> Reno {
        Reno::new(tcp.reno)
    }
}
