//! ECF, Earliest Completion First: Y.-s. Lim, E. M. Nahum, D. Towsley,
//! R. J. Gibbens, "ECF: An MPTCP Path Scheduler to Manage Heterogeneous
//! Paths", ACM CoNEXT 2017.
//!
//! When the fastest subflow x_f has no room and the minimum-RTT choice is a
//! slower subflow x_s, ECF compares when the data left to send would be
//! done by waiting for x_f with when it would be done by using x_s too, and
//! waits if x_f alone finishes first (Algorithm 1). The `waiting` flag adds
//! hysteresis β so that the choice does not flap.

use super::{fastest, Chunk, MinRtt, Schedule, Subflows};

#[derive(Clone, Copy, Debug)]
pub struct Ecf {
    /// β of Algorithm 1 (the paper's value: 0.25).
    pub beta: f64,
    /// Algorithm 1's `waiting`: whether the last decision was to wait.
    pub waiting: bool,
}

impl Default for Ecf {
    fn default() -> Self {
        Ecf {
            beta: 0.25,
            waiting: false,
        }
    }
}

impl Schedule for Ecf {
    fn pick(&mut self, subflows: &mut impl Subflows, chunk: &Chunk) -> Option<usize> {
        let s = MinRtt.pick(subflows, chunk)?;
        let Some(f) = fastest(subflows).filter(|&f| f != s) else {
            return Some(s);
        };
        let (fast, slow) = (subflows.state(f), subflows.state(s));
        let secs = |d: crate::time::SimDuration| d.as_secs_f64();
        // k: the data still to send, here in bytes like the windows.
        let k = chunk.unsent_bytes as f64 + chunk.len as f64;
        let cwnd_f = fast.cwnd_bytes.max(1) as f64;
        let cwnd_s = slow.cwnd_bytes.max(1) as f64;
        // Algorithm 1: n = 1 + k / CWND_f, δ = max(σ_f, σ_s).
        let n = 1.0 + k / cwnd_f;
        let delta = secs(fast.rttvar.max(slow.rttvar));
        let margin = 1.0 + if self.waiting { self.beta } else { 0.0 };
        if n * secs(fast.srtt) < margin * (secs(slow.srtt) + delta) {
            // x_f alone is done first; wait for it unless x_s would still
            // deliver its share within two RTTs of x_f.
            if (k / cwnd_s) * secs(slow.srtt) >= 2.0 * secs(fast.srtt) + delta {
                self.waiting = true;
                return None;
            }
            Some(s)
        } else {
            self.waiting = false;
            Some(s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    /// x_f: 10 ms, 10 segments, full; x_s: 100 ms, 10 segments, room;
    /// no RTT variation (δ = 0).
    fn two() -> Fixed {
        Fixed::new(&[(10, 10, false), (100, 10, true)])
    }

    #[test]
    fn waits_near_the_end_of_the_data_and_uses_both_before() {
        let mut ecf = Ecf::default();
        // k = 20 000 bytes: n = 3, 3 · 10 ms < 100 ms, and x_s would take
        // (20 000 / 10 000) · 100 ms = 200 ms ≥ 2 · 10 ms: wait.
        assert_eq!(ecf.pick(&mut two(), &chunk(19_000, u64::MAX)), None);
        assert!(ecf.waiting);
        // k = 2 000 000: n = 201, 2.01 s ≥ 100 ms: use x_s, and stop waiting.
        assert_eq!(ecf.pick(&mut two(), &chunk(1_999_000, u64::MAX)), Some(1));
        assert!(!ecf.waiting);
    }

    #[test]
    fn waiting_adds_the_hysteresis_beta() {
        // k = 100 000: n = 11, 110 ms: not below 100 ms, but below 1.25 · 100 ms.
        let mut ecf = Ecf::default();
        assert_eq!(ecf.pick(&mut two(), &chunk(99_000, u64::MAX)), Some(1));
        let mut ecf = Ecf {
            waiting: true,
            ..Ecf::default()
        };
        assert_eq!(ecf.pick(&mut two(), &chunk(99_000, u64::MAX)), None);
    }

    #[test]
    fn rtt_variation_widens_the_slow_side() {
        // δ = 20 ms: k = 100 000 gives 110 ms < 100 + 20 ms, and x_s needs
        // 1 s ≥ 2 · 10 + 20 ms: wait, even without hysteresis.
        let mut s = two();
        s.states[1].rttvar = crate::time::SimDuration(20 * MS);
        assert_eq!(Ecf::default().pick(&mut s, &chunk(99_000, u64::MAX)), None);
    }
}
