//! LISA, the Linked Slow-Start Algorithm (Barik et al., ICC 2016, Alg. 1).

use super::{SlowStart, StandardConfig};
use crate::cc::SubflowCc;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LisaConfig {}

#[derive(Clone, Debug, Default)]
pub struct Lisa {
    pub config: LisaConfig,
    /// The profile's standard slow start (ACK counting), for growth the
    /// algorithm leaves unchanged.
    pub standard: StandardConfig,
}

impl Lisa {
    pub fn new(config: LisaConfig, standard: StandardConfig) -> Self {
        Lisa { config, standard }
    }
}

impl SlowStart for Lisa {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked_bytes: u64, _now: SimTime) -> u64 {
        let room = s[r].ssthresh.saturating_sub(s[r].cwnd);
        let grow = acked_bytes.min(room);
        s[r].cwnd += grow;
        acked_bytes - grow
    }
}
