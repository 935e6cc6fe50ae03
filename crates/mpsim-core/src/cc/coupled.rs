//! COUPLED (Couple+ paper Table I, row "COUPLED [24], [25]"; Kelly & Voice
//! 2005, Han et al. 2006): fully coupled AIMD, Δw_t = 1/w_total per ACK and a
//! decrease of w_total/2 on the subflow that saw the loss. It moves all
//! traffic to the least congested paths and may abandon the others; here a
//! subflow keeps at least one MSS so that it can still probe its path.

use crate::cc::CcSetup;
use super::coupling::{self, CoupledAimd, CoupledRule};
use super::{CcFactory, SubflowCc};

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CoupledConfig {}

impl CcFactory for CoupledConfig {
    type Algorithm = Coupled;

    fn build(&self, setup: &CcSetup) -> Coupled {
        Coupled::new(*self).with_reno(setup.reno)
    }
}

/// COUPLED: the coupled AIMD over [`CoupledConfig`]'s rule.
pub type Coupled = CoupledAimd<CoupledConfig>;

impl CoupledRule for CoupledConfig {
    /// Couple+ Table I: Δw_t = 1/w_total per packet acknowledged, so
    /// acked·MSS/cwnd_total bytes.
    fn increase_bytes(&self, s: &[SubflowCc], r: usize, acked: u64) -> Option<f64> {
        Some(acked as f64 * s[r].mss as f64 / coupling::paper_total(s))
    }

    /// Couple+ Table I: w_t − w_total/2 (cwnd of the subflow at the loss,
    /// w_total over the subflows taking part), at least one MSS.
    fn decrease(&self, s: &[SubflowCc], r: usize) -> Option<u64> {
        let half_total = (coupling::paper_total(s) / 2.0) as u64;
        Some(s[r].cwnd.saturating_sub(half_total).max(s[r].mss as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::super::coupling::test_util::*;
    use super::*;
    use crate::cc::CongestionAvoidance;
    use crate::time::SimTime;

    #[test]
    fn increase_and_decrease_use_the_total_window() {
        // w = (10, 30) packets: per 1000 B acked, 10^6/40000 = 25 B.
        let mut s = vec![sf(10, 10), sf(30, 40)];
        assert!(close(CoupledConfig::default().increase_bytes(&s, 0, 1000).unwrap(), 25.0));
        let mut cc = Coupled::new(CoupledConfig::default());
        cc.on_ack(&mut s, 0, &ack(3000));
        assert_eq!(s[0].cwnd, 10_075);
        // Loss on subflow 1: 30000 − 40075/2 = 9963 (40075/2 = 20037.5 → 20037).
        assert_eq!(cc.ssthresh_after_loss(&s, 1, SimTime::ZERO), 9_963);
        // Loss on subflow 0: 10075 − 20037 < 0 → one MSS.
        assert_eq!(cc.ssthresh_after_loss(&s, 0, SimTime::ZERO), 1_000);
    }

    #[test]
    fn a_subflow_in_recovery_counts_with_its_ssthresh() {
        let mut s = vec![sf(10, 10), sf(30, 40)];
        s[1].in_recovery = true;
        s[1].ssthresh = 15_000;
        // w_total = 10000 + 15000: 10^6/25000 = 40 B.
        assert!(close(CoupledConfig::default().increase_bytes(&s, 0, 1000).unwrap(), 40.0));
    }
}
