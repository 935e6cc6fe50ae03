//! CUBIC (RFC 9438).

use super::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CubicConfig {
    /// RFC 9438 §4.2 C, in MSS/s³.
    pub c: f64,
    /// RFC 9438 §4.6 beta_cubic.
    pub beta: f64,
    /// RFC 9438 §4.7 fast convergence.
    pub fast_convergence: bool,
    /// RFC 9438 §4.3 Reno-friendly region.
    pub reno_friendly: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Cubic {
    pub config: CubicConfig,
}

impl Cubic {
    pub fn new(config: CubicConfig) -> Self {
        Cubic { config }
    }
}

impl CongestionAvoidance for Cubic {
    fn on_ack(&mut self, _s: &mut [SubflowCc], _r: usize, _ack: &AckInfo) {}

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        let sf = &s[r];
        ((sf.cwnd as f64 * self.config.beta) as u64).max(2 * sf.mss as u64)
    }
}
