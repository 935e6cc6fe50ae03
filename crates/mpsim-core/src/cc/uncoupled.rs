//! Uncoupled MPTCP: the profile's Reno on every subflow, each on its own
//! (the baseline every coupled algorithm is compared with).

use crate::cc::CcSetup;
use super::{CcFactory, Reno};

/// `cc = {type = "uncoupled"}`: MPTCP with the profile's Reno on every
/// subflow, each on its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UncoupledConfig {}

impl CcFactory for UncoupledConfig {
    type Algorithm = Reno;
    fn build(&self, setup: &CcSetup) -> Reno {
        Reno::new(setup.reno)
    }
}
