//! MPCubic (Le, Hong, Lee 2011, "MPCubic: An Extended Cubic TCP for
//! Multiple Paths over High Bandwidth-Delay Networks").
//!
//! Each subflow s runs CUBIC's machinery ([`CubicState`]) with its cubic
//! coefficient scaled by the linking parameter δ_s:
//!
//! - Eq. 1: w_s(t) = min(δ_s C (t − K_s)³ + W_s^max, C (t − K_s)³ + W_s^max),
//!   read as the coefficient min(δ_s, 1)·C (see docs/algorithms.md: the
//!   minimum of the two window values would contradict Eq. 2 in the concave
//!   region);
//! - Eq. 2: K_s = (β W_s^max / (min(δ_s, 1) C))^(1/3), with the paper's β
//!   the fraction the window loses at a loss (β_paper = 1 − β_cubic);
//! - Sec. III, after Eq. 9: δ_s = w̄_s^k · max_i(w̄_i^(4−k)/RTT_i⁴) / (Σ_i w̄_i/RTT_i)⁴,
//!   k = 2;
//! - TCP-friendly region, Eq. 12: w_s^MTCP(t) = (1 − β)W_max +
//!   min(δ_s^MTCP, 1) · 3β/(2 − β) · t/RTT_s, with
//!   δ_s^MTCP = w̄_s · max_i(w̄_i/RTT_i²) / (Σ_i w̄_i/RTT_i)².
//!
//! w̄_i is the time-average of subflow i's window over its last complete
//! congestion epoch (loss to loss), in segments; before its first loss, its
//! current window. δ_s and δ_s^MTCP are computed at the start of each of
//! subflow s's epochs and held for the epoch, so K_s and the curve stay
//! consistent (Eq. 2 is derived for a fixed δ).

use crate::cc::CcSetup;
use super::CcFactory;
use crate::error::Problems;
use super::cubic::{ensure_len, CubicState, Friendly};
use super::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MpCubicConfig {
    /// CUBIC's C, segments/s³ (RFC 9438: 0.4).
    pub c: f64,
    /// β_cubic: the window is multiplied by it at a loss (0.7, so the
    /// paper's β = 1 − 0.7 = 0.3).
    pub beta: f64,
    /// Trade-off k between resource pooling and fluctuation, 0 ≤ k ≤ 4
    /// (Sec. III: k = 2).
    pub k: f64,
    /// RFC 9438 §4.7 fast convergence, as in the CUBIC the paper extends.
    pub fast_convergence: bool,
    /// TCP-friendly region, Eq. 12.
    pub tcp_friendly: bool,
}

impl Default for MpCubicConfig {
    fn default() -> Self {
        MpCubicConfig {
            c: 0.4,
            beta: 0.7,
            k: 2.0,
            fast_convergence: true,
            tcp_friendly: true,
        }
    }
}

/// Time-averages of a subflow's window and smoothed RTT over its
/// congestion epochs: the w̄_s and RTT_s of the paper's steady-state model.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EpochAverage {
    /// ∫ cwnd dt over the running epoch, segment·seconds.
    window_area: f64,
    /// ∫ srtt dt over the running epoch, seconds².
    rtt_area: f64,
    /// Length of the running epoch so far, seconds.
    span: f64,
    /// Last time the integrals were brought up to date, and the window
    /// (segments) and srtt (seconds) since then.
    last: Option<(SimTime, f64, f64)>,
    /// Mean window (segments) and srtt (seconds) of the last complete epoch.
    pub last_epoch_mean: Option<(f64, f64)>,
}

impl EpochAverage {
    /// Brings the integrals up to `now` and records window and srtt from now on.
    pub fn sample(&mut self, now: SimTime, sf: &SubflowCc) {
        if let Some((t, w, rtt)) = self.last {
            let dt = now.saturating_since(t).as_secs_f64();
            self.window_area += w * dt;
            self.rtt_area += rtt * dt;
            self.span += dt;
        }
        self.last = Some((now, sf.cwnd as f64 / sf.mss as f64, sf.srtt.as_secs_f64()));
    }

    /// A loss closes the running epoch (`sf` holds the window set after it).
    pub fn close_epoch(&mut self, now: SimTime, sf: &SubflowCc) {
        self.sample(now, sf);
        if self.span > 0.0 {
            self.last_epoch_mean = Some((self.window_area / self.span, self.rtt_area / self.span));
        }
        self.window_area = 0.0;
        self.rtt_area = 0.0;
        self.span = 0.0;
    }

    /// (w̄ segments, RTT seconds): the last complete epoch's means, or the
    /// subflow's current window and srtt before its first loss.
    pub fn mean(&self, sf: &SubflowCc) -> (f64, f64) {
        self.last_epoch_mean
            .unwrap_or((sf.cwnd as f64 / sf.mss as f64, sf.srtt.as_secs_f64()))
    }
}

/// δ_s (Sec. III, the equation after Eq. 9 with the trade-off k) and
/// δ_s^MTCP (the equation before Eq. 12) of a subflow whose mean window is
/// `w_s` segments, from (w̄_i segments, RTT_i seconds) of every subflow
/// taking part (the subflow s among them).
pub fn deltas(subflows: impl IntoIterator<Item = (f64, f64)>, w_s: f64, k: f64) -> (f64, f64) {
    let mut max_cubic = 0.0f64;
    let mut max_tcp = 0.0f64;
    let mut sum = 0.0f64;
    for (w, rtt) in subflows {
        let rtt2 = rtt * rtt;
        // max_i w̄_i^(4−k)/RTT_i⁴ and max_i w̄_i/RTT_i².
        max_cubic = max_cubic.max(crate::math::powf(w, 4.0 - k) / (rtt2 * rtt2));
        max_tcp = max_tcp.max(w / rtt2);
        // Σ_i w̄_i/RTT_i.
        sum += w / rtt;
    }
    let sum2 = sum * sum;
    (
        crate::math::powf(w_s, k) * max_cubic / (sum2 * sum2),
        w_s * max_tcp / sum2,
    )
}

/// Eq. 2: K_s = (β_paper W_max / (min(δ_s, 1) C))^(1/3), seconds.
pub fn k_s(w_max: f64, beta_paper: f64, delta: f64, c: f64) -> f64 {
    crate::math::cbrt(beta_paper * w_max / (delta.min(1.0) * c))
}

impl CcFactory for MpCubicConfig {
    type Algorithm = MpCubic;

    fn validate(&self, path: &str, problems: &mut Problems) {
        super::cubic::check_c_beta(path, self.c, self.beta, problems);
        if !(self.k >= 0.0 && self.k <= 4.0) {
            problems.out_of(format!("{path}.k"), self.k, "in [0, 4] (MPCubic Sec. III)");
        }
    }

    fn build(&self, _setup: &CcSetup) -> MpCubic {
        MpCubic::new(*self)
    }
}

#[derive(Clone, Debug, Default)]
pub struct MpCubic {
    pub config: MpCubicConfig,
    /// Per-subflow CUBIC state, indexed like the subflows.
    pub state: Vec<CubicState>,
    /// Per-subflow window averages w̄.
    pub avg: Vec<EpochAverage>,
    /// (δ_s, δ_s^MTCP) of each subflow's current epoch.
    pub delta: Vec<(f64, f64)>,
}

impl MpCubic {
    pub fn new(config: MpCubicConfig) -> Self {
        MpCubic {
            config,
            ..MpCubic::default()
        }
    }

    fn ensure(&mut self, n: usize) {
        ensure_len(&mut self.state, n);
        ensure_len(&mut self.avg, n);
        ensure_len(&mut self.delta, n);
    }

    /// (δ_r, δ_r^MTCP) from the established subflows with an RTT sample.
    fn linking(&self, s: &[SubflowCc], r: usize) -> (f64, f64) {
        let avg = &self.avg;
        let taking_part = move |i: usize| {
            let sf: &SubflowCc = &s[i];
            let (w, rtt) = avg[i].mean(sf);
            (sf.established && rtt > 0.0 && sf.srtt.as_secs_f64() > 0.0).then_some((w, rtt))
        };
        match taking_part(r) {
            Some((w_r, _)) => deltas((0..s.len()).filter_map(taking_part), w_r, self.config.k),
            // Without an RTT sample the subflow is alone as far as it knows.
            None => (1.0, 1.0),
        }
    }
}

impl CongestionAvoidance for MpCubic {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        self.ensure(s.len());
        if !ack.cwnd_limited || ack.acked_bytes == 0 {
            return;
        }
        let mss = s[r].mss as f64;
        self.avg[r].sample(ack.now, &s[r]);
        if self.state[r].needs_epoch() {
            let (delta, delta_tcp) = self.linking(s, r);
            self.delta[r] = (delta, delta_tcp);
            let beta_paper = 1.0 - self.config.beta;
            let friendly = if self.config.tcp_friendly {
                // Eq. 12: min(δ^MTCP, 1)·3β/(2 − β) segments per RTT.
                Friendly::PerTime {
                    per_rtt: delta_tcp.min(1.0) * 3.0 * beta_paper / (2.0 - beta_paper),
                }
            } else {
                Friendly::Off
            };
            // Eq. 1–2: the epoch's cubic coefficient is min(δ_s, 1)·C.
            let c = delta.min(1.0) * self.config.c;
            self.state[r].begin_epoch(ack.now, s[r].cwnd as f64 / mss, c, friendly);
        }
        self.state[r].on_ack(&mut s[r], ack, 0.0);
        self.avg[r].sample(ack.now, &s[r]);
    }

    /// CUBIC's multiplicative decrease by β_cubic (Sec. III: "decreased by
    /// factor β as used in regular Cubic") with fast convergence.
    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
        self.ensure(s.len());
        let mut sf = s[r].clone();
        let ssthresh = self.state[r].on_congestion(sf.cwnd, sf.mss, self.config.beta, self.config.fast_convergence);
        // The window from here on is about the new ssthresh.
        sf.cwnd = ssthresh;
        self.avg[r].close_epoch(now, &sf);
        ssthresh
    }

    fn on_recovery_exit(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.ensure(s.len());
        self.state[r].epoch_start = None;
        self.avg[r].sample(now, &s[r]);
    }

    fn on_rto(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.ensure(s.len());
        self.state[r].on_timeout();
        self.avg[r].sample(now, &s[r]);
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.ensure(s.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-300)
    }

    #[test]
    fn k_s_follows_eq_2() {
        // δ = 1: CUBIC's K = ∛(0.3·100/0.4) = ∛75.
        assert!(close(k_s(100.0, 0.3, 1.0, 0.4), 75f64.cbrt(), 1e-12));
        // δ > 1 is capped at 1.
        assert!(close(k_s(100.0, 0.3, 3.0, 0.4), 75f64.cbrt(), 1e-12));
        // δ = 1/16 (two equal paths): K_s = ∛(75·16) = ∛1200 = 2^(4/3)·∛75.
        let k = k_s(100.0, 0.3, 1.0 / 16.0, 0.4);
        assert!(close(k, 1200f64.cbrt(), 1e-12));
        assert!(close(k / 75f64.cbrt(), 2f64.powf(4.0 / 3.0), 1e-12));
        // δ = 1/8, W_max = 50: K = ∛(0.3·50·8/0.4) = ∛300 = 6.694329…
        assert!(close(k_s(50.0, 0.3, 0.125, 0.4), 6.694_329_500_821_694, 1e-12));
    }

    #[test]
    fn delta_on_equal_paths_is_one_sixteenth() {
        // Sec. IV-A: two equal paths give δ_s = (1/2)^4; δ^MTCP = 1/4.
        let p = [(50.0, 0.1), (50.0, 0.1)];
        let (d, dt) = deltas(p, p[0].0, 2.0);
        assert!(close(d, 1.0 / 16.0, 1e-12) && close(dt, 0.25, 1e-12));
        // One path: δ = δ^MTCP = 1, MPCubic is CUBIC.
        let (d, dt) = deltas([(37.0, 0.05)], 37.0, 2.0);
        assert!(close(d, 1.0, 1e-12) && close(dt, 1.0, 1e-12));
    }

    #[test]
    fn delta_by_hand_on_unequal_paths() {
        // w̄ = (20, 40) segments, RTT = (0.1, 0.2) s, k = 2.
        // w̄/RTT = (200, 200), Σ = 400, Σ⁴ = 2.56e10.
        // w̄^(4−k)/RTT⁴ = (400/1e-4, 1600/1.6e-3) = (4e6, 1e6): max 4e6.
        // δ_1 = 400·4e6/2.56e10 = 0.0625; δ_2 = 1600·4e6/2.56e10 = 0.25.
        // δ^MTCP: w̄/RTT² = (2000, 1000): max 2000; Σ² = 1.6e5;
        // δ_1^MTCP = 20·2000/1.6e5 = 0.25; δ_2^MTCP = 40·2000/1.6e5 = 0.5.
        let p = [(20.0, 0.1), (40.0, 0.2)];
        let (d1, t1) = deltas(p, p[0].0, 2.0);
        let (d2, t2) = deltas(p, p[1].0, 2.0);
        assert!(close(d1, 0.0625, 1e-12) && close(d2, 0.25, 1e-12));
        assert!(close(t1, 0.25, 1e-12) && close(t2, 0.5, 1e-12));
        // k = 0 drops the own-window weight: δ = max(w̄⁴/RTT⁴)/Σ⁴ = 200⁴/400⁴.
        let (d0, _) = deltas(p, p[1].0, 0.0);
        assert!(close(d0, 1.0 / 16.0, 1e-12));
    }

    #[test]
    fn epoch_uses_linked_coefficient_and_k_s() {
        // Two established subflows, equal windows and RTTs: δ = 1/16.
        let mut m = MpCubic::new(MpCubicConfig::default());
        let mut s = vec![SubflowCc::new(1000, 100_000, u64::MAX); 2];
        for sf in s.iter_mut() {
            sf.srtt = SimDuration::from_millis(100);
            sf.established = true;
        }
        m.on_subflows_changed(&s);
        assert_eq!(m.ssthresh_after_loss(&s, 0, SimTime::ZERO), 70_000);
        s[0].cwnd = 70_000;
        s[0].ssthresh = 70_000;
        // w̄_0 = 70 (the window since the loss), w̄_1 = 100 (current window).
        let now = SimTime::ZERO + SimDuration::from_millis(100);
        m.on_ack(
            &mut s,
            0,
            &AckInfo {
                now,
                acked_bytes: 1000,
                cwnd_limited: true,
            },
        );
        let (d, dt) = deltas([(70.0, 0.1), (100.0, 0.1)], 70.0, 2.0);
        assert!(close(m.delta[0].0, d, 1e-12) && close(m.delta[0].1, dt, 1e-12));
        let st = m.state[0];
        assert!(close(st.c, d * 0.4, 1e-12));
        assert!(close(st.k, k_s(100.0, 0.3, d, 0.4), 1e-9));
    }

    #[test]
    fn epoch_average_is_time_weighted() {
        let mut a = EpochAverage::default();
        let t = |ms| SimTime::ZERO + SimDuration::from_millis(ms);
        let mut sf = SubflowCc::new(1000, 10_000, u64::MAX);
        sf.srtt = SimDuration::from_millis(100);
        a.sample(t(0), &sf);
        sf.cwnd = 20_000;
        sf.srtt = SimDuration::from_millis(140);
        a.sample(t(1000), &sf);
        // 10 segments / 100 ms for 1 s, 20 / 140 ms for 3 s: means 17.5 and 130 ms.
        sf.cwnd = 14_000;
        a.close_epoch(t(4000), &sf);
        let (w, rtt) = a.last_epoch_mean.unwrap();
        assert!(close(w, 17.5, 1e-12) && close(rtt, 0.13, 1e-12));
        assert_eq!(a.mean(&sf), (w, rtt));
    }
}
