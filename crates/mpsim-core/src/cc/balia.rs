//! BALIA (Peng et al., IEEE/ACM ToN 2016).

use super::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaliaConfig {}

#[derive(Clone, Debug, Default)]
pub struct Balia {
    pub config: BaliaConfig,
}

impl Balia {
    pub fn new(config: BaliaConfig) -> Self {
        Balia { config }
    }
}

impl CongestionAvoidance for Balia {
    fn on_ack(&mut self, _s: &mut [SubflowCc], _r: usize, _ack: &AckInfo) {}

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        (s[r].cwnd / 2).max(2 * s[r].mss as u64)
    }
}
