//! A window that never moves: the smallest congestion control the registry
//! takes, kept to show (and test) that adding one is this file and one
//! registry line.

use crate::cc::CcSetup;
use super::{AckInfo, CcFactory, CongestionAvoidance, SubflowCc};
use crate::error::Problems;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FixedWindowConfig {
    /// The window, segments.
    pub window_segments: u64,
}

impl Default for FixedWindowConfig {
    fn default() -> Self {
        FixedWindowConfig { window_segments: 4 }
    }
}

impl CcFactory for FixedWindowConfig {
    type Algorithm = FixedWindow;

    fn validate(&self, path: &str, problems: &mut Problems) {
        if self.window_segments == 0 {
            problems.out_of(format!("{path}.window_segments"), 0, "at least 1 segment");
        }
    }

    fn build(&self, _setup: &CcSetup) -> FixedWindow {
        FixedWindow { config: *self }
    }
}

#[derive(Clone, Debug)]
pub struct FixedWindow {
    config: FixedWindowConfig,
}

impl CongestionAvoidance for FixedWindow {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, _ack: &AckInfo) {
        s[r].cwnd = self.config.window_segments * s[r].mss as u64;
    }

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        self.config.window_segments * s[r].mss as u64
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ScenarioConfig;

    fn scenario(cc: &str) -> String {
        format!(
            r#"{{"stop_time_ns": 2000000000,
                "nodes": [{{"name": "a"}}, {{"name": "b"}}],
                "links": [{{"name": "ab", "from": "a", "to": "b", "rate_bps": 10000000, "delay_ns": 10000000}},
                          {{"name": "ba", "from": "b", "to": "a", "rate_bps": 10000000, "delay_ns": 10000000}}],
                "tcp_flows": [{{"name": "f", "src": "a", "dst": "b", "size_bytes": 200000, "cc": {cc},
                                "tcp": {{"initial_ssthresh_bytes": 2800}}}}]}}"#
        )
    }

    /// The registry line is all a scenario needs to reach the new algorithm:
    /// with an initial ssthresh below the initial window, congestion
    /// avoidance runs from the first ACK and holds the window at
    /// `window_segments` (3 × 1400 bytes); a zero window is refused with its path.
    #[test]
    fn a_registered_algorithm_is_reachable_from_a_scenario() {
        let cfg = ScenarioConfig::from_json(&scenario(
            r#"{"type": "fixed_window", "window_segments": 3}"#,
        ))
        .unwrap();
        assert!(crate::cc::CcConfig::NAMES.contains(&"fixed_window"));
        let results = crate::run(&cfg).unwrap();
        assert_eq!(results.tcp_flows[0].bytes_delivered, 200_000);
        assert_eq!(results.tcp_flows[0].cwnd_bytes_at_end, 3 * 1400);

        let cfg = ScenarioConfig::from_json(&scenario(r#"{"type": "fixed_window", "window_segments": 0}"#)).unwrap();
        let Err(crate::Error::Config(e)) = crate::run(&cfg) else {
            panic!("a zero window must be refused")
        };
        assert_eq!(e[0].path, "tcp_flows[0].cc.window_segments");
        assert_eq!((e[0].value.as_str(), e[0].allowed.as_str()), ("0", "at least 1 segment"));
    }
}
