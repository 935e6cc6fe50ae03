//! The gaps between the flows of a sequence: a flow starts a drawn gap
//! after its predecessor completes.

use serde::{Deserialize, Serialize};

use crate::rng::RngStream;
use crate::time::SimDuration;

/// How the gap between a flow's completion and the next one's start is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum GapDistribution {
    #[default]
    Exponential,
    Constant,
    /// Uniform on [0, 2·mean].
    Uniform,
}

/// Draws the gaps of a flow sequence.
#[derive(Clone, Debug)]
pub struct GapGenerator {
    pub mean: SimDuration,
    pub distribution: GapDistribution,
    pub rng: RngStream,
}

impl GapGenerator {
    pub fn draw(&mut self) -> SimDuration {
        use GapDistribution::*;
        let mean = self.mean.as_secs_f64();
        SimDuration::from_secs_f64(match self.distribution {
            Exponential => self.rng.exponential(mean),
            Constant => mean,
            Uniform => 2.0 * mean * self.rng.uniform(),
        })
    }
}
