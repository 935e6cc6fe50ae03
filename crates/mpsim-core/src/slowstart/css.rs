//! CSS, Coupled Slow-Start (Wang et al., GLOBECOM 2017, Algs. 1–3).
//!
//! Only the connection's initial slow start is coupled (CSS §III: "only
//! focuses on initial Slow-Start phase"):
//! - Alg. 1, coupled ssthresh: on every ACK, once Σ_j cwnd_j/RTT_j exceeds
//!   `expected = con_ssthresh / baseRTT`, every subflow still in its initial
//!   slow start sets ssthresh = cwnd and moves to congestion avoidance.
//! - Alg. 2, linked smooth growth: when a subflow joins, the growth factor α
//!   is lowered so that the total window still needs as many rounds to reach
//!   con_ssthresh as before the join, and each subflow's factor is
//!   compensated for its RTT: α_i = α^(RTT_i/baseRTT).
//! - Alg. 3, subflow byte counting: cwnd_i += min(2·MSS, (α_i − 1)·acked).
//!
//! A subflow that has left its initial slow start (a loss, or cwnd above
//! ssthresh: Alg. 1 lines 5–7 and 18–19), or that joins after the connection
//! has left it, uses the profile's standard slow start (Alg. 3 line 5).

use super::SsFactory;
use crate::error::Problems;
use super::{SlowStart, Standard, StandardConfig};
use crate::cc::SubflowCc;
use crate::math;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CssConfig {
    /// con_ssthresh, **bytes**: the connection's total window allowed when
    /// it leaves slow start (CSS §III-A: equal to TCP's ssthresh, 65535 in
    /// the paper's ns-3 runs, where ssthresh is in bytes).
    pub con_ssthresh_bytes: u64,
    /// α, the growth factor of the windows per round trip before any join
    /// (Alg. 2 line 1: 1.5, as the receiver uses delayed ACKs).
    pub alpha: f64,
    /// Cap on one ACK's increase, in MSS (Alg. 3 line 3: 2·MSS).
    pub max_increase_mss: u32,
}

impl Default for CssConfig {
    fn default() -> Self {
        CssConfig {
            con_ssthresh_bytes: 65_535,
            alpha: 1.5,
            max_increase_mss: 2,
        }
    }
}

impl SsFactory for CssConfig {
    type Strategy = Css;

    fn validate(&self, path: &str, problems: &mut Problems) {
        if self.con_ssthresh_bytes == 0 {
            problems.out_of(format!("{path}.con_ssthresh_bytes"), 0, "at least 1 byte");
        }
        if !(self.alpha.is_finite() && self.alpha > 1.0) {
            problems.out_of(format!("{path}.alpha"), self.alpha, "a finite growth factor > 1");
        }
        if self.max_increase_mss == 0 {
            problems.out_of(format!("{path}.max_increase_mss"), 0, "at least 1");
        }
    }

    fn build(&self, standard: StandardConfig, n_subflows: usize) -> Css {
        Css::new(*self, standard, n_subflows)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Css {
    pub config: CssConfig,
    /// The profile's standard slow start, for subflows outside the initial
    /// slow start.
    pub standard: Standard,
    /// Alg. 1 `initialSS`: the connection is in its initial slow start.
    initial_ss: bool,
    /// Alg. 2 α: the connection's growth factor after the latest join.
    alpha: f64,
    /// Per subflow, Alg. 1 `subflow[i].initialSS`.
    subflow_initial_ss: Vec<bool>,
    /// Per subflow, Alg. 2 line 9 `subflow[i].α`.
    subflow_alpha: Vec<f64>,
    /// Per subflow, the fraction of a byte of increase not yet added to cwnd.
    fraction: Vec<f64>,
}

impl Css {
    pub fn new(config: CssConfig, standard: StandardConfig, n_subflows: usize) -> Self {
        Css {
            config,
            standard: Standard::new(standard),
            initial_ss: true,
            alpha: config.alpha,
            subflow_initial_ss: vec![true; n_subflows],
            subflow_alpha: vec![config.alpha; n_subflows],
            fraction: vec![0.0; n_subflows],
        }
    }

    /// Grows the per-subflow state to `n` subflows (a subflow added after
    /// the build); no allocation otherwise. A new subflow starts as if in
    /// the initial slow start; `on_subflow_start` decides.
    fn size(&mut self, n: usize) {
        if self.subflow_initial_ss.len() < n {
            self.subflow_initial_ss.resize(n, true);
            self.subflow_alpha.resize(n, self.alpha);
            self.fraction.resize(n, 0.0);
        }
    }

    /// Whether the connection is still in its initial (coupled) slow start.
    pub fn in_initial_slow_start(&self) -> bool {
        self.initial_ss
    }

    /// The connection's α (Alg. 2 line 7).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Subflow `r`'s α (Alg. 2 line 9).
    pub fn subflow_alpha(&self, r: usize) -> f64 {
        self.subflow_alpha[r]
    }

    /// `get_current_minRTT()`: the smallest current smoothed RTT among the
    /// established subflows, nanoseconds (`None` before any sample).
    fn base_rtt_ns(s: &[SubflowCc]) -> Option<u64> {
        s.iter()
            .filter(|sf| sf.established && sf.srtt.nanos() > 0)
            .map(|sf| sf.srtt.nanos())
            .min()
    }

    /// Alg. 1 lines 9–17, after subflow windows changed on an ACK.
    fn coupled_exit(&mut self, s: &mut [SubflowCc]) {
        if !self.initial_ss {
            return;
        }
        let Some(base) = Self::base_rtt_ns(s) else { return };
        // Line 10: Σ_j cwnd_j/RTT_j > con_ssthresh/baseRTT (bytes per ns).
        let current: f64 = s
            .iter()
            .filter(|sf| sf.established && sf.srtt.nanos() > 0)
            .map(|sf| sf.cwnd as f64 / sf.srtt.nanos() as f64)
            .sum();
        let expected = self.config.con_ssthresh_bytes as f64 / base as f64;
        if current > expected {
            // Lines 11–17.
            self.initial_ss = false;
            for (j, sf) in s.iter_mut().enumerate() {
                if self.subflow_initial_ss[j] && sf.established {
                    sf.ssthresh = sf.cwnd;
                    self.subflow_initial_ss[j] = false;
                }
            }
        }
    }
}

impl SlowStart for Css {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked_bytes: u64, now: SimTime) -> u64 {
        self.size(s.len());
        // Alg. 1 lines 5–7 (a loss) and 18–19 (cwnd above ssthresh): the
        // sender marks both as leaving slow start.
        for (j, sf) in s.iter().enumerate() {
            if sf.left_slow_start {
                self.subflow_initial_ss[j] = false;
            }
        }
        let rest = if self.subflow_initial_ss[r] {
            // Alg. 3 line 3: cwnd_i += min(2·MSS, (α_i − 1)·acked_bytes), not
            // capped at ssthresh: lines 18–19 of Alg. 1 move the subflow to
            // congestion avoidance once cwnd exceeds it.
            let mss = s[r].mss as f64;
            let inc = (self.config.max_increase_mss as f64 * mss)
                .min((self.subflow_alpha[r] - 1.0) * acked_bytes as f64)
                + self.fraction[r];
            let whole = inc.floor();
            self.fraction[r] = inc - whole;
            s[r].cwnd += whole as u64;
            0
        } else {
            // Alg. 3 line 5: outside the initial slow start, standard growth.
            self.standard.on_ack(s, r, acked_bytes, now)
        };
        self.coupled_exit(s);
        rest
    }

    /// Alg. 2, when subflow `r` joins (the connection's first subflow is not
    /// a join: it keeps the configured α).
    fn on_subflow_start(&mut self, s: &mut [SubflowCc], r: usize, _now: SimTime) {
        self.size(s.len());
        let joins = s.iter().enumerate().any(|(j, sf)| j != r && sf.established);
        if !joins {
            self.subflow_alpha[r] = self.alpha;
            return;
        }
        if !self.initial_ss {
            // Only the initial slow start is coupled: a late joiner ramps up
            // on its own.
            self.subflow_initial_ss[r] = false;
            return;
        }
        // Line 3.
        let Some(base) = Self::base_rtt_ns(s) else { return };
        // Lines 4–5: the existing subflows' total, and with the new IW.
        let total: u64 = s
            .iter()
            .enumerate()
            .filter(|&(j, sf)| j != r && sf.established)
            .map(|(_, sf)| sf.cwnd)
            .sum();
        let new_total = total + s[r].cwnd;
        let con = self.config.con_ssthresh_bytes as f64;
        self.alpha = if self.alpha > 1.0 && (new_total as f64) < con && total > 0 {
            // Line 6: rounds still needed to reach con_ssthresh at the old α.
            let round_trips = math::ln(con / total as f64) / math::ln(self.alpha);
            // Line 7: the α that reaches it in as many rounds from the new total.
            math::powf(con / new_total as f64, 1.0 / round_trips)
        } else {
            // The new total already reaches con_ssthresh: the limit of line 7
            // as newTotalcwnd → con_ssthresh is α = 1, no further growth.
            1.0
        };
        // Lines 8–10: compensate subflows with a larger RTT.
        for (i, sf) in s.iter().enumerate() {
            if sf.established && sf.srtt.nanos() > 0 {
                let ratio = sf.srtt.nanos() as f64 / base as f64;
                self.subflow_alpha[i] = math::powf(self.alpha, ratio);
            }
        }
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.size(s.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    const MSS: u64 = 1400;

    fn sf(cwnd_pkts: u64, srtt_ms: u64) -> SubflowCc {
        let mut sf = SubflowCc::new(MSS as u32, cwnd_pkts * MSS, 65_535);
        sf.established = true;
        sf.srtt = SimDuration::from_millis(srtt_ms);
        sf
    }

    fn css(n: usize) -> Css {
        Css::new(CssConfig::default(), StandardConfig::default(), n)
    }

    #[test]
    fn alpha_after_a_join_is_alg2_line7() {
        // Subflow 0 at 20 packets (28000 B), subflow 1 joins with IW 10
        // (14000 B); con_ssthresh = 65535 B, α = 1.5:
        // RoundTrip = log_1.5(65535/28000) = 2.0972947,
        // α = (65535/42000)^(1/2.0972947) = 1.2363178.
        let mut c = css(2);
        let mut s = vec![sf(20, 100), sf(10, 100)];
        c.on_subflow_start(&mut s, 1, SimTime::ZERO);
        assert!((c.alpha() - 1.236_317_8).abs() < 1e-6, "{}", c.alpha());
        assert!((c.subflow_alpha(0) - 1.236_317_8).abs() < 1e-6);
        assert!((c.subflow_alpha(1) - 1.236_317_8).abs() < 1e-6);
        // Alg. 3 with it: an ACK of two segments grows by (α − 1)·2800 = 661 B.
        let before = s[0].cwnd;
        c.on_ack(&mut s, 0, 2 * MSS, SimTime::ZERO);
        assert_eq!(s[0].cwnd - before, 661);
    }

    #[test]
    fn a_longer_rtt_gets_alpha_to_the_rtt_ratio() {
        // Same totals; the new subflow's RTT is twice baseRTT: α_1 = α².
        let mut c = css(2);
        let mut s = vec![sf(20, 100), sf(10, 200)];
        c.on_subflow_start(&mut s, 1, SimTime::ZERO);
        assert!((c.subflow_alpha(0) - 1.236_317_8).abs() < 1e-6);
        assert!(
            (c.subflow_alpha(1) - 1.528_481_7).abs() < 1e-6,
            "{}",
            c.subflow_alpha(1)
        );
    }

    #[test]
    fn byte_counting_with_the_two_mss_cap() {
        let mut c = css(1);
        let mut s = vec![sf(10, 100)];
        c.on_subflow_start(&mut s, 0, SimTime::ZERO);
        assert_eq!(c.subflow_alpha(0), 1.5);
        // (1.5 − 1)·2800 = 1400.
        c.on_ack(&mut s, 0, 2 * MSS, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 11 * MSS);
        // A stretch ACK of 6 segments: min(2·1400, 0.5·8400) = 2800.
        c.on_ack(&mut s, 0, 6 * MSS, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 13 * MSS);
        // Half a byte is carried, not lost: two ACKs of 1 byte add 1 byte.
        c.on_ack(&mut s, 0, 1, SimTime::ZERO);
        c.on_ack(&mut s, 0, 1, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 13 * MSS + 1);
    }

    #[test]
    fn the_connection_leaves_slow_start_when_the_rate_exceeds_expected() {
        // baseRTT 100 ms; expected = 65535 B / 100 ms. Subflow 0 at 100 ms
        // with 30 packets, subflow 1 at 200 ms with 30 packets:
        // current = 42000/100 + 42000/200 = 630 B/ms < 655.35 B/ms.
        let mut c = css(2);
        let mut s = vec![sf(30, 100), sf(30, 200)];
        s[0].ssthresh = u64::MAX;
        s[1].ssthresh = u64::MAX;
        // An ACK that grows subflow 1 by 1400 B: 42000/100 + 43400/200 = 637.
        c.on_ack(&mut s, 1, 2 * MSS, SimTime::ZERO);
        assert!(c.in_initial_slow_start());
        assert!(s[0].in_slow_start() && s[1].in_slow_start());
        // Subflow 0 grows to 43400: 434 + 217 = 651 < 655.35; then 44800:
        // 448 + 217 = 665 > 655.35: both leave with ssthresh = cwnd.
        c.on_ack(&mut s, 0, 2 * MSS, SimTime::ZERO);
        assert!(c.in_initial_slow_start());
        c.on_ack(&mut s, 0, 2 * MSS, SimTime::ZERO);
        assert!(!c.in_initial_slow_start());
        assert_eq!((s[0].ssthresh, s[1].ssthresh), (44_800, 43_400));
        assert!(!s[0].in_slow_start() && !s[1].in_slow_start());
    }

    #[test]
    fn a_subflow_after_a_loss_and_a_late_joiner_are_uncoupled() {
        let mut c = css(3);
        let mut s = vec![sf(10, 100), sf(10, 100), sf(10, 100)];
        for x in s.iter_mut() {
            x.ssthresh = u64::MAX;
        }
        s[2].established = false;
        // Subflow 1 had a loss and is in slow start again after a timeout:
        // standard growth (the default profile's RFC 3465 counting, +2 MSS).
        s[1].left_slow_start = true;
        c.on_ack(&mut s, 1, 2 * MSS, SimTime::ZERO);
        assert_eq!(s[1].cwnd, 12 * MSS);
        // Subflow 0 grows to beyond con_ssthresh: the connection leaves.
        s[0].cwnd = 50 * MSS;
        c.on_ack(&mut s, 0, 2 * MSS, SimTime::ZERO);
        assert!(!c.in_initial_slow_start());
        assert_eq!(s[0].ssthresh, 51 * MSS);
        // Subflow 1 was not in its initial slow start: untouched.
        assert_eq!(s[1].ssthresh, u64::MAX);
        // A join now does not change α and ramps up on its own.
        s[2].established = true;
        c.on_subflow_start(&mut s, 2, SimTime::ZERO);
        assert_eq!(c.alpha(), 1.5);
        c.on_ack(&mut s, 2, 2 * MSS, SimTime::ZERO);
        assert_eq!(s[2].cwnd, 12 * MSS);
    }

    #[test]
    fn a_join_at_or_beyond_con_ssthresh_stops_linked_growth() {
        let mut c = css(2);
        let mut s = vec![sf(40, 100), sf(10, 100)];
        s[0].ssthresh = u64::MAX;
        c.on_subflow_start(&mut s, 1, SimTime::ZERO);
        assert_eq!(c.alpha(), 1.0);
        assert_eq!(c.subflow_alpha(1), 1.0);
    }
}
