//! COUPLED (Couple+ paper Table I; Kelly & Voice 2005, Han et al. 2006): increase 1/w_total per ACK, decrease w_total/2.

use super::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoupledConfig {}

#[derive(Clone, Debug, Default)]
pub struct Coupled {
    pub config: CoupledConfig,
}

impl Coupled {
    pub fn new(config: CoupledConfig) -> Self {
        Coupled { config }
    }
}

impl CongestionAvoidance for Coupled {
    fn on_ack(&mut self, _s: &mut [SubflowCc], _r: usize, _ack: &AckInfo) {}

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        (s[r].cwnd / 2).max(2 * s[r].mss as u64)
    }
}
