//! EWTCP, equally weighted TCP (Couple+ paper Table I, row "EWTCP [23]";
//! Honda et al. 2009): every subflow runs AIMD on its own with the increase
//! scaled down, Δw_t = a/w_t per ACK with a = 1/sqrt(n), and the decrease
//! w_t/2 of Reno. Nothing but n couples the subflows.

use crate::cc::CcSetup;
use super::coupling::{self, CoupledAimd, CoupledRule};
use super::{CcFactory, SubflowCc};
use crate::error::Problems;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EwtcpConfig {
    /// The weight a of the increase a/w_t; `None` is Table I's 1/sqrt(n),
    /// n = the number of subflows taking part.
    pub a: Option<f64>,
}

impl CcFactory for EwtcpConfig {
    type Algorithm = Ewtcp;

    fn validate(&self, path: &str, problems: &mut Problems) {
        if let Some(a) = self.a.filter(|a| !(a.is_finite() && *a > 0.0)) {
            problems.out_of(format!("{path}.a"), a, "a positive number");
        }
    }

    fn build(&self, setup: &CcSetup) -> Ewtcp {
        Ewtcp::new(*self).with_reno(setup.reno)
    }
}

/// EWTCP: the coupled AIMD over [`EwtcpConfig`]'s rule.
pub type Ewtcp = CoupledAimd<EwtcpConfig>;

impl EwtcpConfig {
    /// Couple+ Table I: a = 1/sqrt(n) unless configured.
    pub fn weight(&self, s: &[SubflowCc]) -> f64 {
        self.a.unwrap_or_else(|| 1.0 / (coupling::counted(s).max(1) as f64).sqrt())
    }
}

impl CoupledRule for EwtcpConfig {
    /// n = 1 and a = 1/sqrt(n) = 1: Reno itself; a configured weight applies alone too.
    fn reno_alone(&self) -> bool {
        self.a.is_none()
    }

    /// Couple+ Table I: Δw_t = a/w_t per packet acknowledged, so
    /// acked·MSS·a/cwnd_t bytes for an ACK of `acked` bytes. The decrease
    /// is w_t/2, Reno's halving.
    fn increase_bytes(&self, s: &[SubflowCc], r: usize, acked: u64) -> Option<f64> {
        Some(self.weight(s) * acked as f64 * s[r].mss as f64 / s[r].cwnd as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::coupling::test_util::*;
    use super::*;
    use crate::cc::CongestionAvoidance;
    use crate::time::SimTime;

    #[test]
    fn increase_is_scaled_by_one_over_sqrt_n() {
        // n = 2: a = 1/sqrt(2); w = 10 packets: per 1000 B acked,
        // 1000·1000/(sqrt(2)·10000) = 70.71 B. n = 4: a = 1/2, 50 B.
        let s = vec![sf(10, 10), sf(20, 40)];
        let cc = Ewtcp::new(EwtcpConfig::default());
        assert!(close(cc.config.increase_bytes(&s, 0, 1000).unwrap(), 100.0 / 2f64.sqrt()));
        // On the 20-packet subflow: 50/sqrt(2) = 35.36 B.
        assert!(close(cc.config.increase_bytes(&s, 1, 1000).unwrap(), 50.0 / 2f64.sqrt()));
        let s4 = vec![sf(10, 10), sf(20, 40), sf(5, 5), sf(5, 5)];
        assert!(close(cc.config.increase_bytes(&s4, 0, 1000).unwrap(), 50.0));
        let mut s = s;
        let mut cc = cc;
        cc.on_ack(&mut s, 0, &ack(1000));
        assert_eq!(s[0].cwnd, 10_070);
    }

    #[test]
    fn configured_weight_and_reno_decrease() {
        let s = vec![sf(10, 10), sf(20, 40)];
        let mut cc = Ewtcp::new(EwtcpConfig { a: Some(0.25) });
        assert!(close(cc.config.increase_bytes(&s, 0, 2000).unwrap(), 50.0));
        let mut s = s;
        s[1].bytes_in_flight = 19_000;
        assert_eq!(cc.ssthresh_after_loss(&s, 1, SimTime::ZERO), 9_500);
    }

    #[test]
    fn one_subflow_is_reno() {
        let mut s = vec![sf(10, 10), sf(20, 40)];
        s[1].established = false;
        let mut cc = Ewtcp::new(EwtcpConfig::default());
        for _ in 0..10 {
            cc.on_ack(&mut s, 0, &ack(1000));
        }
        assert_eq!(s[0].cwnd, 11_000);
    }
}
