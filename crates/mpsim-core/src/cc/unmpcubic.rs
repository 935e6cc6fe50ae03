//! unMPCubic: independent CUBIC per subflow with the increase scaled by (1/n)^(4/3) (MPCubic paper Sec. IV).

use super::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnMpCubicConfig {}

#[derive(Clone, Debug, Default)]
pub struct UnMpCubic {
    pub config: UnMpCubicConfig,
}

impl UnMpCubic {
    pub fn new(config: UnMpCubicConfig) -> Self {
        UnMpCubic { config }
    }
}

impl CongestionAvoidance for UnMpCubic {
    fn on_ack(&mut self, _s: &mut [SubflowCc], _r: usize, _ack: &AckInfo) {}

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        (s[r].cwnd / 2).max(2 * s[r].mss as u64)
    }
}
