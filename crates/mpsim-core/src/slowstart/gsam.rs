//! GSAM (Dong et al., IEEE Access 2019, Alg. 1, Eqs. 2–15).

use super::{SlowStart, StandardConfig};
use crate::cc::SubflowCc;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GsamConfig {}

#[derive(Clone, Debug, Default)]
pub struct Gsam {
    pub config: GsamConfig,
    /// The profile's standard slow start (ACK counting), for growth the
    /// algorithm leaves unchanged.
    pub standard: StandardConfig,
}

impl Gsam {
    pub fn new(config: GsamConfig, standard: StandardConfig) -> Self {
        Gsam { config, standard }
    }
}

impl SlowStart for Gsam {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked_bytes: u64, _now: SimTime) -> u64 {
        let room = s[r].ssthresh.saturating_sub(s[r].cwnd);
        let grow = acked_bytes.min(room);
        s[r].cwnd += grow;
        acked_bytes - grow
    }
}
