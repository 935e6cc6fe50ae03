//! unMPCubic: the uncoordinated multipath CUBIC the MPCubic paper (Le,
//! Hong, Lee 2011, Sec. III) compares against. Every subflow runs its own
//! CUBIC (RFC 9438, [`CubicState`]); "for two-path unMPCubic flow, we set the
//! window increase scale factor of (1/2)^(4/3) such that each sub-flow gets
//! half the throughput of what a regular Cubic gets".
//!
//! The scale factor s stretches CUBIC's clock: W(t) = C(s·t − K)³ + W_max
//! = C s³ (t − K/s)³ + W_max, the curve of CUBIC with coefficient C·s³ (and
//! K/s = ∛((W_max − cwnd_epoch)/(C s³))). CUBIC's mean window grows as
//! C^(1/4) (RFC 9438 §5.1; MPCubic paper Eq. 7), so a subflow gets the
//! fraction s^(3/4) of a CUBIC flow's window on the same path: s = (1/2)^(4/3)
//! gives 1/2, and for n subflows s = (1/n)^(4/3) (C_s = C/n⁴) gives 1/n each,
//! n subflows together one CUBIC flow. The Reno-friendly region (RFC 9438
//! §4.3) is scaled to the same fraction: Reno's mean window grows as √α, so
//! α becomes α·s^(3/2) (α/n²). docs/algorithms.md has the derivation.

use crate::cc::CcSetup;
use super::CcFactory;
use crate::error::Problems;
use super::{AckInfo, CongestionAvoidance, Cubic, CubicConfig, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UnMpCubicConfig {
    /// CUBIC's C, segments/s³ (RFC 9438: 0.4).
    pub c: f64,
    /// β_cubic (RFC 9438 §4.6: 0.7).
    pub beta: f64,
    /// RFC 9438 §4.7 fast convergence.
    pub fast_convergence: bool,
    /// RFC 9438 §4.3 Reno-friendly region, scaled like the cubic increase.
    pub reno_friendly: bool,
    /// The increase scale factor s in (0, 1]; `None` for (1/n)^(4/3) with n
    /// the established subflows when the epoch starts (the paper's
    /// (1/2)^(4/3) for two paths).
    pub scale: Option<f64>,
}

impl Default for UnMpCubicConfig {
    fn default() -> Self {
        UnMpCubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            scale: None,
        }
    }
}

/// The increase scale factor for `n` subflows: (1/n)^(4/3).
pub fn scale_for(n: usize) -> f64 {
    crate::math::powf(1.0 / n.max(1) as f64, 4.0 / 3.0)
}

impl CcFactory for UnMpCubicConfig {
    type Algorithm = UnMpCubic;

    fn validate(&self, path: &str, problems: &mut Problems) {
        super::cubic::check_c_beta(path, self.c, self.beta, problems);
        if let Some(s) = self.scale.filter(|s| !(*s > 0.0 && *s <= 1.0)) {
            problems.out_of(format!("{path}.scale"), s, "in (0, 1]");
        }
    }

    fn build(&self, _setup: &CcSetup) -> UnMpCubic {
        UnMpCubic::new(*self)
    }
}

#[derive(Clone, Debug, Default)]
pub struct UnMpCubic {
    pub config: UnMpCubicConfig,
    /// CUBIC with the configuration's C, β, fast convergence and
    /// Reno-friendly region; its epochs are scaled here.
    pub cubic: Cubic,
}

impl UnMpCubic {
    pub fn new(config: UnMpCubicConfig) -> Self {
        UnMpCubic {
            config,
            cubic: Cubic::new(CubicConfig {
                c: config.c,
                beta: config.beta,
                fast_convergence: config.fast_convergence,
                reno_friendly: config.reno_friendly,
            }),
        }
    }
}

impl CongestionAvoidance for UnMpCubic {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        if !ack.cwnd_limited || ack.acked_bytes == 0 {
            return;
        }
        // C·s³ for the cubic curve, α·s^(3/2) for the Reno-friendly one,
        // s fixed when the subflow's epoch starts.
        let configured = self.config.scale;
        self.cubic.on_ack_scaled(s, r, ack, |s| {
            configured.unwrap_or_else(|| scale_for(s.iter().filter(|x| x.established).count()))
        });
    }

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
        self.cubic.ssthresh_after_loss(s, r, now)
    }

    fn on_recovery_exit(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.cubic.on_recovery_exit(s, r, now)
    }

    fn on_rto(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.cubic.on_rto(s, r, now)
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.cubic.on_subflows_changed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::cubic::{alpha_cubic, Friendly};
    use crate::time::SimDuration;

    #[test]
    fn two_paths_scale_by_half_to_the_four_thirds() {
        assert!((scale_for(2) - 0.5f64.powf(4.0 / 3.0)).abs() < 1e-12);
        assert!((scale_for(1) - 1.0).abs() < 1e-15);
        // s³ = 1/n⁴ and s^(3/4) = 1/n.
        let s = scale_for(3);
        assert!((s * s * s - 1.0 / 81.0).abs() < 1e-12);
        assert!((s.powf(0.75) - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn epoch_of_two_subflows_uses_c_over_sixteen() {
        let mut u = UnMpCubic::new(UnMpCubicConfig::default());
        let mut s = vec![SubflowCc::new(1000, 100_000, u64::MAX); 2];
        for sf in s.iter_mut() {
            sf.srtt = SimDuration::from_millis(100);
            sf.established = true;
        }
        u.on_subflows_changed(&s);
        assert_eq!(u.ssthresh_after_loss(&s, 1, SimTime::ZERO), 70_000);
        s[1].cwnd = 70_000;
        u.on_ack(
            &mut s,
            1,
            &AckInfo {
                now: SimTime::ZERO,
                acked_bytes: 1000,
                cwnd_limited: true,
            },
        );
        let st = u.cubic.state[1];
        // C/16 = 0.025; K = ∛(30/0.025) = ∛1200 = 2^(4/3)·∛75.
        assert!((st.c - 0.025).abs() < 1e-12);
        assert!((st.k - 1200f64.cbrt()).abs() < 1e-9);
        // Reno-friendly α/4.
        if let Some(Friendly::PerAck { alpha, alpha_after }) = st.friendly {
            assert!((alpha - alpha_cubic(0.7) / 4.0).abs() < 1e-12);
            assert!((alpha_after - 0.25).abs() < 1e-12);
        } else {
            panic!("Reno-friendly region expected");
        }
        // Subflow 0 has not been touched.
        assert!(u.cubic.state[0].epoch_start.is_none());
    }
}
