//! CSS, Coupled Slow-Start (Wang et al., GLOBECOM 2017, Algs. 1–3).

use super::{SlowStart, StandardConfig};
use crate::cc::SubflowCc;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CssConfig {}

#[derive(Clone, Debug, Default)]
pub struct Css {
    pub config: CssConfig,
    /// The profile's standard slow start (ACK counting), for growth the
    /// algorithm leaves unchanged.
    pub standard: StandardConfig,
}

impl Css {
    pub fn new(config: CssConfig, standard: StandardConfig) -> Self {
        Css { config, standard }
    }
}

impl SlowStart for Css {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked_bytes: u64, _now: SimTime) -> u64 {
        let room = s[r].ssthresh.saturating_sub(s[r].cwnd);
        let grow = acked_bytes.min(room);
        s[r].cwnd += grow;
        acked_bytes - grow
    }
}
