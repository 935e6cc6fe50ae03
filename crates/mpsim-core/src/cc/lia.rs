//! LIA, the RTT-compensator (RFC 6356; Couple+ paper Table I).

use super::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiaConfig {}

#[derive(Clone, Debug, Default)]
pub struct Lia {
    pub config: LiaConfig,
}

impl Lia {
    pub fn new(config: LiaConfig) -> Self {
        Lia { config }
    }
}

impl CongestionAvoidance for Lia {
    fn on_ack(&mut self, _s: &mut [SubflowCc], _r: usize, _ack: &AckInfo) {}

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        (s[r].cwnd / 2).max(2 * s[r].mss as u64)
    }
}
