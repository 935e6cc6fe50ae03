//! SEMI-COUPLED (Couple+ paper Table I, row "SEMI-COUPLED [4]"): the increase
//! is coupled, Δw_t = a/w_total per ACK with a constant a, the decrease is
//! each subflow's own, w_t/2. It keeps some traffic on every path while
//! preferring the less congested ones.

use crate::cc::CcSetup;
use super::coupling::{self, CoupledAimd, CoupledRule};
use super::{CcFactory, SubflowCc};
use crate::error::Problems;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SemiCoupledConfig {
    /// The constant a of the increase a/w_total (Table I leaves it open;
    /// 1 makes a lone subflow Reno).
    pub a: f64,
}

impl Default for SemiCoupledConfig {
    fn default() -> Self {
        SemiCoupledConfig { a: 1.0 }
    }
}

impl CcFactory for SemiCoupledConfig {
    type Algorithm = SemiCoupled;

    fn validate(&self, path: &str, problems: &mut Problems) {
        if !(self.a.is_finite() && self.a > 0.0) {
            problems.out_of(format!("{path}.a"), self.a, "a positive number");
        }
    }

    fn build(&self, setup: &CcSetup) -> SemiCoupled {
        SemiCoupled::new(*self).with_reno(setup.reno)
    }
}

/// SEMI-COUPLED: the coupled AIMD over [`SemiCoupledConfig`]'s rule.
pub type SemiCoupled = CoupledAimd<SemiCoupledConfig>;

impl CoupledRule for SemiCoupledConfig {
    /// w_total = w_t and a = 1: Reno itself.
    fn reno_alone(&self) -> bool {
        self.a == 1.0
    }

    /// Couple+ Table I: Δw_t = a/w_total per packet acknowledged, so
    /// acked·MSS·a/cwnd_total bytes; cwnd_total over the subflows taking
    /// part (ssthresh for one in fast recovery), and nothing for a subflow
    /// that does not take part. The decrease is w_t/2, Reno's halving.
    fn increase_bytes(&self, s: &[SubflowCc], r: usize, acked: u64) -> Option<f64> {
        coupling::counts(&s[r]).then(|| self.a * acked as f64 * s[r].mss as f64 / coupling::paper_total(s))
    }
}

#[cfg(test)]
mod tests {
    use super::super::coupling::test_util::*;
    use super::*;
    use crate::cc::CongestionAvoidance;
    use crate::time::SimTime;

    #[test]
    fn increase_is_a_over_total_window() {
        // w = (10, 30) packets: per 1000 B acked, 10^6/40000 = 25 B on
        // either subflow; with a = 0.5, 12.5 B.
        let s = vec![sf(10, 10), sf(30, 40)];
        let cc = SemiCoupled::new(SemiCoupledConfig::default());
        assert!(close(cc.config.increase_bytes(&s, 0, 1000).unwrap(), 25.0));
        assert!(close(cc.config.increase_bytes(&s, 1, 1000).unwrap(), 25.0));
        let half = SemiCoupled::new(SemiCoupledConfig { a: 0.5 });
        assert!(close(half.config.increase_bytes(&s, 1, 1000).unwrap(), 12.5));
        let mut s = s;
        let mut cc = cc;
        cc.on_ack(&mut s, 1, &ack(2000));
        assert_eq!(s[1].cwnd, 30_050);
        // The halving is the subflow's own (RFC 5681 eq. (4) by default).
        s[1].bytes_in_flight = 30_000;
        assert_eq!(cc.ssthresh_after_loss(&s, 1, SimTime::ZERO), 15_000);
    }
}
