//! CUBIC (RFC 9438), and the per-subflow CUBIC machinery MPCubic and
//! unMPCubic share.
//!
//! Units. RFC 9438 states windows in segments and time in seconds; mpsim's
//! `cwnd` is in bytes. Every CUBIC quantity here is kept in **segments**
//! (`f64`, window bytes / MSS) and **seconds** (`f64`); C is in
//! segments/s³. The window is converted back to bytes only when `cwnd` is
//! written, and the fraction of a byte an ACK earns is carried to the next
//! ACK, so the byte window follows the segment formulas without rounding
//! drift.
//!
//! Counting. RFC 9438 §4.4–4.5 grow cwnd by (target − cwnd)/cwnd "for each
//! received new ACK"; here the increase is per acknowledged segment
//! (acknowledged bytes / MSS), as Linux's `tcp_cubic.c` and ns-3's
//! `TcpCubic` count it. With one segment per ACK the two are the same; with
//! delayed ACKs per-segment counting keeps the RFC's intent that cwnd reaches
//! `target` in about one RTT. The Reno-friendly estimate (§4.3 Eq. 4) is
//! already per acknowledged segment.

use crate::cc::CcSetup;
use super::CcFactory;
use crate::error::Problems;
use super::cubic_ns3::Ns3CubicState;
use super::{AckInfo, CongestionAvoidance, SubflowCc};
use crate::math::cbrt;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// RFC 9438 §4.2 C, in segments/s³ (RFC 9438 §5.1: 0.4).
    pub c: f64,
    /// RFC 9438 §4.6 β_cubic: the window is multiplied by it at a loss (0.7).
    pub beta: f64,
    /// RFC 9438 §4.7 fast convergence.
    pub fast_convergence: bool,
    /// RFC 9438 §4.3 Reno-friendly region.
    pub reno_friendly: bool,
}

impl CcFactory for CubicConfig {
    type Algorithm = Cubic;

    fn validate(&self, path: &str, problems: &mut Problems) {
        check_c_beta(path, self.c, self.beta, problems);
    }

    /// Under the `ns3` profile, ns-3.44's `TcpCubic` (`cc/cubic_ns3.rs`);
    /// its slow start's counting is set in `build::resolve_tcp`.
    fn build(&self, setup: &CcSetup) -> Cubic {
        Cubic {
            ns3: setup.ns3,
            linux_first_growth: setup.linux,
            ..Cubic::new(*self)
        }
    }
}

/// CUBIC's C and β_cubic (RFC 9438 §4.2, §4.6), shared by its multipath
/// variants; `path` is the `cc` table's.
pub(crate) fn check_c_beta(path: &str, c: f64, beta: f64, problems: &mut Problems) {
    if !(beta > 0.0 && beta < 1.0) {
        problems.out_of(format!("{path}.beta"), beta, "in (0, 1)");
    }
    if !(c.is_finite() && c > 0.0) {
        problems.out_of(format!("{path}.c"), c, "a positive number");
    }
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

/// RFC 9438 §4.3 Eq. 5: α_cubic = 3(1 − β_cubic)/(1 + β_cubic), the
/// additive increase (segments per RTT) that makes AIMD(α, β) as fast on
/// average as Reno's AIMD(1, 0.5).
pub fn alpha_cubic(beta: f64) -> f64 {
    3.0 * (1.0 - beta) / (1.0 + beta)
}

/// RFC 9438 §4.2 Eq. 2: K = ∛((W_max − cwnd_epoch)/C), seconds; windows in
/// segments, C in segments/s³. After a loss cwnd_epoch = β·W_max and this is
/// the familiar K = ∛(W_max(1 − β)/C). Zero when cwnd_epoch ≥ W_max.
pub fn cubic_k(w_max: f64, cwnd_epoch: f64, c: f64) -> f64 {
    cbrt(((w_max - cwnd_epoch) / c).max(0.0))
}

/// RFC 9438 §4.2 Eq. 1: W_cubic(t) = C(t − K)³ + W_max, segments.
pub fn w_cubic(t: f64, k: f64, w_max: f64, c: f64) -> f64 {
    let d = t - k;
    c * d * d * d + w_max
}

/// How the friendly (AIMD-emulating) window of one congestion epoch grows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Friendly {
    /// No friendly region.
    Off,
    /// RFC 9438 §4.3 Eq. 4: W_est += α · segments_acked / cwnd, with α
    /// `alpha` until W_est ≥ cwnd_prior and `alpha_after` from then on (the
    /// RFC: α_cubic, then 1).
    PerAck { alpha: f64, alpha_after: f64 },
    /// MPCubic Eq. 12: w(t) = cwnd_epoch + `per_rtt` · t / RTT_s, with RTT_s
    /// the smoothed RTT at the ACK.
    PerTime { per_rtt: f64 },
}

impl Friendly {
    /// RFC 9438 §4.3's Reno-friendly region, or `Off` unless `enabled`:
    /// α = α_cubic(β) until W_est ≥ cwnd_prior, then 1, both multiplied by
    /// `scale` (1 for CUBIC; s^(3/2) for unMPCubic's increase scale s).
    pub fn reno(enabled: bool, beta: f64, scale: f64) -> Friendly {
        if enabled {
            Friendly::PerAck {
                alpha: alpha_cubic(beta) * scale,
                alpha_after: scale,
            }
        } else {
            Friendly::Off
        }
    }
}

/// The CUBIC state of one subflow (RFC 9438 §4.1.2), windows in segments,
/// times in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CubicState {
    /// W_max: the window (segments) the cubic curve plateaus at.
    pub w_max: f64,
    /// Whether W_max comes from a congestion event by duplicate ACKs/SACK.
    /// False before the first one and after a timeout: RFC 9438 §4.8 and
    /// §4.10 then start the next epoch with K = 0 and W_max = cwnd_epoch.
    pub w_max_valid: bool,
    /// cwnd_prior: cwnd (segments) just before the last reduction.
    pub cwnd_prior: f64,
    /// epoch_start: the first congestion-avoidance ACK after the last
    /// congestion event; `None` until that ACK.
    pub epoch_start: Option<SimTime>,
    /// cwnd_epoch: cwnd (segments) at `epoch_start`.
    pub cwnd_epoch: f64,
    /// K (seconds) of the current epoch.
    pub k: f64,
    /// The cubic coefficient (segments/s³) of the current epoch: C for
    /// CUBIC, min(δ_s, 1)·C for MPCubic, C/n⁴ for unMPCubic.
    pub c: f64,
    /// The friendly-region rule of the current epoch.
    pub friendly: Option<Friendly>,
    /// W_est (segments), RFC 9438 §4.3.
    pub w_est: f64,
    /// Fraction of a byte earned by ACKs and not yet added to cwnd.
    pub carry_bytes: f64,
}

impl CubicState {
    /// A congestion event by duplicate ACKs or SACK (RFC 9438 §4.6, §4.7):
    /// updates W_max and cwnd_prior from `cwnd_bytes` and returns the new
    /// ssthresh in bytes, at least 2 MSS.
    pub fn on_congestion(&mut self, cwnd_bytes: u64, mss: u32, beta: f64, fast_convergence: bool) -> u64 {
        let cwnd = cwnd_bytes as f64 / mss as f64;
        // §4.7: a flow whose saturation point fell releases bandwidth faster.
        self.w_max = if fast_convergence && self.w_max_valid && cwnd < self.w_max {
            cwnd * (1.0 + beta) / 2.0
        } else {
            cwnd
        };
        self.w_max_valid = true;
        self.cwnd_prior = cwnd;
        self.epoch_start = None;
        self.carry_bytes = 0.0;
        // §4.6: ssthresh = cwnd·β_cubic, at least 2 segments. (The RFC
        // writes flight_size and allows cwnd where cwnd cannot outgrow the
        // flight; Linux and ns-3 use cwnd; see docs/algorithms.md.)
        ((cwnd_bytes as f64 * beta) as u64).max(2 * mss as u64)
    }

    /// A retransmission timeout (RFC 9438 §4.8): the next epoch starts with
    /// K = 0 and W_max = W_est = cwnd_epoch.
    pub fn on_timeout(&mut self) {
        self.w_max_valid = false;
        self.epoch_start = None;
        self.carry_bytes = 0.0;
    }

    /// Whether the next congestion-avoidance ACK starts a new epoch.
    pub fn needs_epoch(&self) -> bool {
        self.epoch_start.is_none()
    }

    /// Starts an epoch at `now` with window `cwnd` (segments), cubic
    /// coefficient `c` and friendly rule `friendly` (RFC 9438 §4.2: t counts
    /// from the first ACK of congestion avoidance).
    pub fn begin_epoch(&mut self, now: SimTime, cwnd: f64, c: f64, friendly: Friendly) {
        self.epoch_start = Some(now);
        self.cwnd_epoch = cwnd;
        self.c = c;
        self.friendly = Some(friendly);
        if !self.w_max_valid {
            // §4.8 (after a timeout) and §4.10 (slow start left without loss).
            self.w_max = cwnd;
            self.k = 0.0;
            if self.cwnd_prior == 0.0 {
                // No congestion event yet: cwnd_prior is undefined; taking
                // cwnd_epoch makes α = 1 at once (W_est ≥ cwnd_prior).
                self.cwnd_prior = cwnd;
            }
        } else {
            self.k = cubic_k(self.w_max, cwnd, c);
        }
        // §4.3: W_est starts at cwnd_epoch.
        self.w_est = cwnd;
    }

    /// One acknowledgement in congestion avoidance, after `begin_epoch`:
    /// RFC 9438 §4.2–4.5. Grows `sf.cwnd`. Before the first congestion
    /// event the window grows by at least `first_growth` segments per
    /// segment acknowledged (Linux: 1/20), the friendly region included.
    pub fn on_ack(&mut self, sf: &mut SubflowCc, ack: &AckInfo, first_growth: f64) {
        let Some(start) = self.epoch_start else { return };
        let mss = sf.mss as f64;
        let cwnd = sf.cwnd as f64 / mss;
        let acked = ack.acked_bytes as f64 / mss;
        let t = ack.now.saturating_since(start).as_secs_f64();
        let rtt = sf.srtt.as_secs_f64();
        let (k, w_max, c) = (self.k, self.w_max, self.c);

        // §4.3: the friendly window after this ACK.
        let friendly = match self.friendly.unwrap_or(Friendly::Off) {
            Friendly::Off => None,
            Friendly::PerAck { alpha, alpha_after } => {
                let a = if self.w_est >= self.cwnd_prior {
                    alpha_after
                } else {
                    alpha
                };
                self.w_est += a * acked / cwnd;
                Some(self.w_est)
            }
            Friendly::PerTime { per_rtt } => (rtt > 0.0).then(|| self.cwnd_epoch + per_rtt * t / rtt),
        };
        let first_growth = if self.w_max_valid { 0.0 } else { first_growth };
        if let Some(w) = friendly.filter(|&w| first_growth == 0.0 || w > cwnd * (1.0 + first_growth * acked / cwnd)) {
            if w_cubic(t, k, w_max, c) < w {
                // §4.3: in the Reno-friendly region cwnd is set to W_est
                // (never lowered by an ACK, as §4.2's lower bound on target).
                let bytes = (w * mss) as u64;
                if bytes > sf.cwnd {
                    sf.cwnd = bytes;
                    self.carry_bytes = 0.0;
                }
                return;
            }
        }
        // §4.2 Fig. 1: target = W_cubic(t + RTT) bounded to [cwnd, 1.5·cwnd].
        let target = w_cubic(t + rtt, k, w_max, c).clamp(cwnd, 1.5 * cwnd);
        // §4.4/§4.5: (target − cwnd)/cwnd per acknowledged segment.
        self.carry_bytes += ((target - cwnd) / cwnd).max(first_growth) * acked * mss;
        let whole = self.carry_bytes.floor();
        if whole >= 1.0 {
            sf.cwnd += whole as u64;
            self.carry_bytes -= whole;
        }
    }
}

/// Grows a Vec of per-subflow state to `n` entries (only when subflows are
/// added, never per ACK).
pub(crate) fn ensure_len<T: Default + Clone>(v: &mut Vec<T>, n: usize) {
    if v.len() < n {
        v.resize(n, T::default());
    }
}

/// CUBIC (RFC 9438) on each subflow of its connection independently, or
/// under the `ns3` profile ns-3.44's `TcpCubic` ([`super::cubic_ns3`]).
#[derive(Clone, Debug, Default)]
pub struct Cubic {
    pub config: CubicConfig,
    /// Per-subflow state, indexed like the subflows.
    pub state: Vec<CubicState>,
    /// Whether this is ns-3.44's `TcpCubic` rather than RFC 9438.
    pub ns3: bool,
    /// Linux's CUBIC (the `linux` profile): before the first congestion
    /// event (`last_max_cwnd == 0`) `bictcp_update` caps `cnt` at 20, so the
    /// window grows at least 5 % per RTT whatever the cubic and
    /// Reno-friendly targets; and ssthresh after a loss is counted in whole
    /// segments (`cubictcp_recalc_ssthresh`).
    pub linux_first_growth: bool,
    /// Per-subflow state of ns-3's `TcpCubic`, indexed like the subflows.
    pub ns3_state: Vec<Ns3CubicState>,
}

impl Cubic {
    pub fn new(config: CubicConfig) -> Self {
        Cubic {
            config,
            state: Vec::new(),
            ns3: false,
            linux_first_growth: false,
            ns3_state: Vec::new(),
        }
    }

    /// RFC 9438 §4.2–4.5 for an ACK on subflow `r` (counted: cwnd-limited,
    /// bytes acknowledged). An epoch that starts here takes the increase
    /// scale factor s = `scale(s)` (evaluated only then): the cubic
    /// coefficient C·s³ and the Reno-friendly α·s^(3/2). s = 1 is CUBIC;
    /// unMPCubic's s is (1/n)^(4/3).
    pub(crate) fn on_ack_scaled(
        &mut self,
        s: &mut [SubflowCc],
        r: usize,
        ack: &AckInfo,
        scale: impl FnOnce(&[SubflowCc]) -> f64,
    ) {
        ensure_len(&mut self.state, s.len());
        if self.state[r].needs_epoch() {
            let scale = scale(s);
            let c = self.config.c * scale * scale * scale;
            // §4.3 Eq. 5, then α = 1 once W_est ≥ cwnd_prior.
            let friendly = Friendly::reno(self.config.reno_friendly, self.config.beta, scale * scale.sqrt());
            let cwnd = s[r].cwnd as f64 / s[r].mss as f64;
            self.state[r].begin_epoch(ack.now, cwnd, c, friendly);
        }
        let floor = if self.linux_first_growth { 1.0 / 20.0 } else { 0.0 };
        self.state[r].on_ack(&mut s[r], ack, floor);
    }
}

impl CongestionAvoidance for Cubic {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        if self.ns3 {
            ensure_len(&mut self.ns3_state, s.len());
            let c = &self.config;
            self.ns3_state[r].on_ack(&mut s[r], ack, c.c, c.beta, c.reno_friendly);
            return;
        }
        if !ack.cwnd_limited || ack.acked_bytes == 0 {
            return;
        }
        self.on_ack_scaled(s, r, ack, |_| 1.0);
    }

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        let sf = &s[r];
        if self.ns3 {
            ensure_len(&mut self.ns3_state, s.len());
            return self.ns3_state[r].on_loss(sf.cwnd, sf.mss, self.config.beta, self.config.fast_convergence);
        }
        ensure_len(&mut self.state, s.len());
        let ssthresh = self.state[r].on_congestion(sf.cwnd, sf.mss, self.config.beta, self.config.fast_convergence);
        if !self.linux_first_growth {
            return ssthresh;
        }
        // Linux `cubictcp_recalc_ssthresh`: in whole segments, β as a
        // fraction of 1024 (717 for 0.7), at least 2.
        let beta_1024 = (self.config.beta * 1024.0).round() as u64;
        let mss = sf.mss as u64;
        ((sf.cwnd / mss) * beta_1024 / 1024).max(2) * mss
    }

    fn on_recovery_exit(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        if self.ns3 {
            // ns-3's `GetSsThresh` has already ended the epoch.
            ensure_len(&mut self.ns3_state, s.len());
            self.ns3_state[r].recovery_exit_at = Some(now);
            return;
        }
        ensure_len(&mut self.state, s.len());
        self.state[r].epoch_start = None;
    }

    fn on_rto(&mut self, s: &mut [SubflowCc], r: usize, _now: SimTime) {
        if self.ns3 {
            ensure_len(&mut self.ns3_state, s.len());
            self.ns3_state[r].on_timeout();
            return;
        }
        ensure_len(&mut self.state, s.len());
        self.state[r].on_timeout();
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        ensure_len(&mut self.state, s.len());
        ensure_len(&mut self.ns3_state, s.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    const MSS: u32 = 1000;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn k_follows_rfc_9438_eq_2() {
        // W_max = 100, β = 0.7, C = 0.4: K = ∛(100·0.3/0.4) = ∛75 = 4.217163…
        assert!(close(cubic_k(100.0, 70.0, 0.4), 4.217_163_326_508_746, 1e-12));
        // W_max = 10, cwnd_epoch = 7: K = ∛7.5 = 1.957433…
        assert!(close(cubic_k(10.0, 7.0, 0.4), 1.957_433_820_584_431_7, 1e-12));
        // W_max = 50, C = 0.4, β = 0.5: K = ∛(25/0.4) = ∛62.5 = 3.968503…
        assert!(close(cubic_k(50.0, 25.0, 0.4), 3.968_502_629_920_499, 1e-12));
        // No room to grow back: K = 0.
        assert_eq!(cubic_k(10.0, 12.0, 0.4), 0.0);
    }

    #[test]
    fn w_cubic_values() {
        let k = cubic_k(100.0, 70.0, 0.4);
        // t = 0: back at cwnd_epoch = 70.
        assert!(close(w_cubic(0.0, k, 100.0, 0.4), 70.0, 1e-9));
        // t = K: the plateau W_max.
        assert!(close(w_cubic(k, k, 100.0, 0.4), 100.0, 1e-12));
        // t = K + 2: 0.4·8 + 100 = 103.2; t = K − 1: 100 − 0.4 = 99.6.
        assert!(close(w_cubic(k + 2.0, k, 100.0, 0.4), 103.2, 1e-9));
        assert!(close(w_cubic(k - 1.0, k, 100.0, 0.4), 99.6, 1e-9));
        // Concave then convex: symmetric around K.
        let a = w_cubic(k - 0.5, k, 100.0, 0.4) - 100.0;
        let b = w_cubic(k + 0.5, k, 100.0, 0.4) - 100.0;
        assert!(close(a, -b, 1e-12) && close(b, 0.05, 1e-12));
    }

    fn subflow(cwnd_segs: u64, srtt_ms: u64) -> Vec<SubflowCc> {
        let mut s = vec![SubflowCc::new(MSS, cwnd_segs * MSS as u64, u64::MAX)];
        s[0].srtt = SimDuration::from_millis(srtt_ms);
        s[0].established = true;
        s
    }

    fn ack(at_ms: u64, bytes: u64) -> AckInfo {
        AckInfo {
            now: SimTime::ZERO + SimDuration::from_millis(at_ms),
            acked_bytes: bytes,
            cwnd_limited: true,
        }
    }

    #[test]
    fn loss_sets_w_max_and_ssthresh() {
        let mut c = Cubic::new(CubicConfig::default());
        let mut s = subflow(100, 100);
        c.on_subflows_changed(&s);
        // §4.6: ssthresh = 0.7·100 segments; W_max = 100.
        assert_eq!(c.ssthresh_after_loss(&s, 0, SimTime::ZERO), 70_000);
        assert_eq!(c.state[0].w_max, 100.0);
        assert!(c.state[0].epoch_start.is_none());
        // The first CA ACK starts the epoch at cwnd_epoch = 70: K = ∛75.
        s[0].cwnd = 70_000;
        s[0].ssthresh = 70_000;
        c.on_ack(&mut s, 0, &ack(1000, 1000));
        let st = c.state[0];
        assert_eq!(st.epoch_start, Some(SimTime::ZERO + SimDuration::from_millis(1000)));
        assert!(close(st.k, 75f64.cbrt(), 1e-12));
        // t = 0: W_cubic(0) = 70 < W_est = 70 + α/70 = 70.007563 (§4.3):
        // the Reno-friendly window wins the epoch's first ACK.
        assert!(close(st.w_est, 70.0 + alpha_cubic(0.7) / 70.0, 1e-12));
        assert_eq!(s[0].cwnd, 70_007);
        // 50 ms later W_cubic(0.05) = 71.05 > W_est = 70.015: the cubic region.
        // RTT = 0.1 s: target = W_cubic(0.15) = 0.4(0.15 − K)³ + 100; one
        // acked segment adds (target − 70.007)/70.007 segments.
        c.on_ack(&mut s, 0, &ack(1050, 1000));
        let k = st.k;
        assert!(w_cubic(0.05, k, 100.0, 0.4) > c.state[0].w_est);
        let target = 0.4 * (0.15 - k).powi(3) + 100.0;
        let inc = (target - 70.007) / 70.007 * 1000.0;
        assert_eq!(s[0].cwnd, 70_007 + inc.floor() as u64);
        assert!(close(c.state[0].carry_bytes, inc - inc.floor(), 1e-9));
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut c = Cubic::new(CubicConfig::default());
        let mut s = subflow(100, 100);
        c.ssthresh_after_loss(&s, 0, SimTime::ZERO);
        assert_eq!(c.state[0].w_max, 100.0);
        // The next loss comes at 80 < W_max: W_max = 80·(1 + 0.7)/2 = 68.
        s[0].cwnd = 80_000;
        assert_eq!(c.ssthresh_after_loss(&s, 0, SimTime::ZERO), 56_000);
        assert!(close(c.state[0].w_max, 68.0, 1e-12));
        assert_eq!(c.state[0].cwnd_prior, 80.0);
        // A loss above W_max remembers cwnd itself.
        s[0].cwnd = 90_000;
        c.ssthresh_after_loss(&s, 0, SimTime::ZERO);
        assert_eq!(c.state[0].w_max, 90.0);
        // Without fast convergence W_max is cwnd at the loss.
        let mut c = Cubic::new(CubicConfig {
            fast_convergence: false,
            ..CubicConfig::default()
        });
        s[0].cwnd = 100_000;
        c.ssthresh_after_loss(&s, 0, SimTime::ZERO);
        s[0].cwnd = 80_000;
        c.ssthresh_after_loss(&s, 0, SimTime::ZERO);
        assert_eq!(c.state[0].w_max, 80.0);
    }

    #[test]
    fn reno_friendly_region_takes_over_when_w_est_exceeds_w_cubic() {
        // W_max = 10, cwnd_epoch = 7, K = ∛7.5 = 1.957 s, RTT = 10 ms.
        // W_est grows α = 0.3·3/1.7 = 0.5294 segments per cwnd of acked
        // segments, i.e. per RTT; the cubic curve near t = 0 grows at
        // 3CK² = 4.6 segments/s = 0.046 per RTT: W_est wins at once.
        let mut c = Cubic::new(CubicConfig::default());
        let mut s = subflow(10, 10);
        c.ssthresh_after_loss(&s, 0, SimTime::ZERO);
        s[0].cwnd = 7000;
        // Seven ACKs of one segment at t = 0 (the epoch's first ACK): W_est
        // = 7 + 7·α/cwnd with cwnd the window at each ACK.
        let mut w_est = 7.0;
        for _ in 0..7 {
            let cwnd = s[0].cwnd as f64 / 1000.0;
            w_est += alpha_cubic(0.7) / cwnd;
            c.on_ack(&mut s, 0, &ack(0, 1000));
            assert!(close(c.state[0].w_est, w_est, 1e-12));
            // W_cubic(0) = 7 < W_est: cwnd = W_est.
            assert_eq!(s[0].cwnd, (w_est * 1000.0) as u64);
        }
        // By hand for the first ACK: W_est = 7 + 0.529412/7 = 7.075630, cwnd 7075 bytes.
        let mut c1 = Cubic::new(CubicConfig::default());
        let mut s1 = subflow(10, 10);
        c1.ssthresh_after_loss(&s1, 0, SimTime::ZERO);
        s1[0].cwnd = 7000;
        c1.on_ack(&mut s1, 0, &ack(0, 1000));
        assert!(close(c1.state[0].w_est, 7.075_630_252, 1e-9));
        assert_eq!(s1[0].cwnd, 7075);
        // With the region off, the same ACK follows the cubic curve: target =
        // W_cubic(0.01) = 7.0454, so cwnd grows by (7.0454 − 7)/7 segment = 6 bytes.
        let mut c = Cubic::new(CubicConfig {
            reno_friendly: false,
            ..CubicConfig::default()
        });
        let mut s = subflow(10, 10);
        c.ssthresh_after_loss(&s, 0, SimTime::ZERO);
        s[0].cwnd = 7000;
        c.on_ack(&mut s, 0, &ack(0, 1000));
        let k = 7.5f64.cbrt();
        let target = 0.4 * (0.01 - k).powi(3) + 10.0;
        assert_eq!(s[0].cwnd, 7000 + ((target - 7.0) / 7.0 * 1000.0).floor() as u64);
    }

    #[test]
    fn alpha_becomes_one_once_w_est_reaches_cwnd_prior() {
        let mut st = CubicState {
            w_max_valid: true,
            w_max: 10.0,
            cwnd_prior: 10.0,
            ..CubicState::default()
        };
        st.begin_epoch(
            SimTime::ZERO,
            10.0,
            0.4,
            Friendly::PerAck {
                alpha: 0.5,
                alpha_after: 1.0,
            },
        );
        // W_est = cwnd_epoch = 10 ≥ cwnd_prior: α = 1, so ten segments add one.
        let mut s = subflow(10, 100);
        st.on_ack(&mut s[0], &ack(0, 10_000), 0.0);
        assert!(close(st.w_est, 11.0, 1e-12));
        assert_eq!(s[0].cwnd, 11_000);
    }

    #[test]
    fn timeout_restarts_with_k_zero_at_cwnd_epoch() {
        let mut c = Cubic::new(CubicConfig::default());
        let mut s = subflow(100, 100);
        c.ssthresh_after_loss(&s, 0, SimTime::ZERO);
        c.on_rto(&mut s, 0, SimTime::ZERO);
        // Slow start brought cwnd back to 40: the epoch starts with K = 0,
        // W_max = W_est = 40 (RFC 9438 §4.8).
        s[0].cwnd = 40_000;
        c.on_ack(&mut s, 0, &ack(2000, 1000));
        let st = c.state[0];
        assert_eq!((st.k, st.w_max, st.cwnd_epoch), (0.0, 40.0, 40.0));
        // W_est = 40 + α/40 > W_cubic(0) = 40: the friendly region sets cwnd.
        assert!(close(st.w_est, 40.0 + alpha_cubic(0.7) / 40.0, 1e-12));
        assert_eq!(s[0].cwnd, (st.w_est * 1000.0) as u64);
    }

    #[test]
    fn target_is_capped_at_one_and_a_half_cwnd() {
        let mut st = CubicState {
            w_max_valid: true,
            w_max: 10.0,
            ..CubicState::default()
        };
        st.begin_epoch(SimTime::ZERO, 10.0, 0.4, Friendly::Off);
        // K = 0; at t = 10 s, W_cubic(10.1) = 0.4·1030 + 10 ≫ 15: target = 15,
        // one acked segment adds (15 − 10)/10 = 0.5 segment.
        let mut s = subflow(10, 100);
        st.on_ack(&mut s[0], &ack(10_000, 1000), 0.0);
        assert_eq!(s[0].cwnd, 10_500);
    }

    #[test]
    fn linux_grows_five_percent_a_round_before_the_first_congestion_event() {
        // Slow start left without a loss (HyStart) at 200 segments, RTT 100 ms:
        // W_max = cwnd, K = 0, so the cubic curve and W_est add well under a
        // segment in the first RTT; Linux's `cnt ≤ 20` adds 10 (5 %).
        let run = |linux: bool, valid: bool| {
            let mut c = Cubic::new(CubicConfig::default());
            c.linux_first_growth = linux;
            let mut s = subflow(200, 100);
            ensure_len(&mut c.state, 1);
            c.state[0].w_max_valid = valid;
            c.state[0].w_max = 200.0;
            for k in 0..200 {
                c.on_ack(&mut s, 0, &ack(k / 2, 1000));
            }
            s[0].cwnd
        };
        assert_eq!(run(true, false), 210_000);
        assert!(run(false, false) < 201_000);
        // After a congestion event (W_max known) the rule is off.
        assert_eq!(run(true, true), run(false, true));
    }

    #[test]
    fn linux_counts_ssthresh_after_a_loss_in_whole_segments() {
        // cwnd 124 segments and 72 bytes: RFC 9438 takes 0.7 of the bytes,
        // 86.8 segments; Linux ⌊124·717/1024⌋ = 86 segments.
        let ssthresh = |linux: bool| {
            let mut c = Cubic::new(CubicConfig::default());
            c.linux_first_growth = linux;
            let mut s = subflow(124, 1000);
            s[0].cwnd += 72;
            c.ssthresh_after_loss(&s, 0, SimTime::ZERO)
        };
        assert_eq!(ssthresh(false), 86_850);
        assert_eq!(ssthresh(true), 86_000);
    }
}
