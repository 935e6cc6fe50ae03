//! Standard, uncoupled slow start: every subflow on its own.

use super::SsFactory;
use super::SlowStart;
use crate::cc::{AckCounting, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StandardConfig {
    /// Byte counting (RFC 3465) or one MSS per ACK (ns-3 `TcpNewReno::SlowStart`).
    pub counting: AckCounting,
    /// RFC 3465 §2.2 limit L on the bytes one ACK may count, in MSS; `None`
    /// for no limit (Linux's `tcp_slow_start`, which counts every newly
    /// acknowledged segment).
    pub abc_limit_mss: Option<u32>,
}

impl Default for StandardConfig {
    /// RFC 3465 with L = 2.
    fn default() -> Self {
        StandardConfig {
            counting: AckCounting::Bytes,
            abc_limit_mss: Some(2),
        }
    }
}

/// `slow_start = {type = "standard"}`: each subflow on its own, as the
/// profile counts ACKs ([`StandardConfig`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StandardSsConfig {}

impl SsFactory for StandardSsConfig {
    type Strategy = Standard;
    fn build(&self, standard: StandardConfig, _n_subflows: usize) -> Standard {
        Standard::new(standard)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Standard {
    pub config: StandardConfig,
}

impl Standard {
    pub fn new(config: StandardConfig) -> Self {
        Standard { config }
    }
}

impl SlowStart for Standard {
    /// Byte counting: RFC 5681 §3.1 with RFC 3465 §2.2, cwnd += min(N, L·SMSS)
    /// capped at ssthresh; what exceeds ssthresh is returned for congestion
    /// avoidance (Linux ≥ 4.x `tcp_slow_start`).
    ///
    /// Per-ACK counting is ns-3's `TcpNewReno::SlowStart`: one MSS per ACK,
    /// not capped at ssthresh, and the ACK's other acknowledged bytes are
    /// returned for congestion avoidance (ns-3 returns `segmentsAcked − 1`).
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked: u64, _now: SimTime) -> u64 {
        let sf = &mut s[r];
        let mss = sf.mss as u64;
        match self.config.counting {
            AckCounting::Bytes => {
                let grow = match self.config.abc_limit_mss {
                    Some(l) => acked.min(l as u64 * mss),
                    None => acked,
                };
                let room = sf.ssthresh.saturating_sub(sf.cwnd);
                if grow <= room {
                    sf.cwnd += grow;
                    // Bytes counted beyond the ABC limit are not carried over.
                    0
                } else {
                    sf.cwnd += room;
                    acked.saturating_sub(room)
                }
            }
            AckCounting::PerAck => {
                if acked == 0 {
                    return 0;
                }
                sf.cwnd += mss;
                acked.saturating_sub(mss)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sf(cwnd: u64, ssthresh: u64) -> Vec<SubflowCc> {
        vec![SubflowCc::new(1000, cwnd, ssthresh)]
    }

    #[test]
    fn byte_counting_with_limit_two() {
        let mut ss = Standard::default();
        let mut s = sf(10_000, u64::MAX);
        // A delayed ACK for two segments grows cwnd by two MSS.
        assert_eq!(ss.on_ack(&mut s, 0, 2000, SimTime::ZERO), 0);
        assert_eq!(s[0].cwnd, 12_000);
        // A stretch ACK for five segments counts only L = 2.
        ss.on_ack(&mut s, 0, 5000, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 14_000);
    }

    #[test]
    fn per_ack_counting_adds_one_mss() {
        let mut ss = Standard::new(StandardConfig {
            counting: AckCounting::PerAck,
            abc_limit_mss: None,
        });
        let mut s = sf(10_000, u64::MAX);
        ss.on_ack(&mut s, 0, 2000, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 11_000);
    }

    #[test]
    fn per_ack_crosses_ssthresh_like_ns3() {
        let mut ss = Standard::new(StandardConfig {
            counting: AckCounting::PerAck,
            abc_limit_mss: None,
        });
        let mut s = sf(10_000, 10_500);
        // One MSS whatever ssthresh; a two-segment ACK leaves one segment over.
        assert_eq!(ss.on_ack(&mut s, 0, 2000, SimTime::ZERO), 1000);
        assert_eq!(s[0].cwnd, 11_000);
    }

    #[test]
    fn stops_at_ssthresh_and_returns_the_rest() {
        let mut ss = Standard::new(StandardConfig {
            counting: AckCounting::Bytes,
            abc_limit_mss: None,
        });
        let mut s = sf(10_000, 11_500);
        assert_eq!(ss.on_ack(&mut s, 0, 3000, SimTime::ZERO), 1500);
        assert_eq!(s[0].cwnd, 11_500);
        assert!(!s[0].in_slow_start());
    }
}
