//! OLIA (Khalili et al., IEEE/ACM ToN 2013).

use super::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OliaConfig {}

#[derive(Clone, Debug, Default)]
pub struct Olia {
    pub config: OliaConfig,
}

impl Olia {
    pub fn new(config: OliaConfig) -> Self {
        Olia { config }
    }
}

impl CongestionAvoidance for Olia {
    fn on_ack(&mut self, _s: &mut [SubflowCc], _r: usize, _ack: &AckInfo) {}

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        (s[r].cwnd / 2).max(2 * s[r].mss as u64)
    }
}
