//! EWTCP, equally weighted TCP (Couple+ paper Table I, row "EWTCP [23]";
//! Honda et al. 2009): every subflow runs AIMD on its own with the increase
//! scaled down, Δw_t = a/w_t per ACK with a = 1/sqrt(n), and the decrease
//! w_t/2 of Reno. Nothing but n couples the subflows.

use super::CcFactory;
use crate::config::TcpOptions;
use crate::error::Problems;
use crate::transport::tcp::TcpParams;
use super::coupling::{self, PaperIncrease};
use super::{AckInfo, CongestionAvoidance, RenoConfig, SubflowCc};
use crate::time::SimTime;

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

    fn build(&self, tcp: &mut TcpParams, _options: &TcpOptions) -> Ewtcp {
        Ewtcp::new(*self).with_reno(tcp.reno)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Ewtcp {
    pub config: EwtcpConfig,
    /// Single-path behaviour (one subflow taking part) and the halving: the
    /// connection's Reno; and the carried fractions of the increase.
    paper: PaperIncrease,
}

impl Ewtcp {
    pub fn new(config: EwtcpConfig) -> Self {
        Ewtcp {
            config,
            ..Ewtcp::default()
        }
    }

    /// The Reno whose halving EWTCP uses, and which runs alone while only
    /// one subflow takes part.
    pub fn with_reno(mut self, reno: RenoConfig) -> Self {
        self.paper = PaperIncrease::new(reno);
        self
    }

    /// Couple+ Table I: a = 1/sqrt(n) unless configured.
    pub fn weight(&self, s: &[SubflowCc]) -> f64 {
        self.config
            .a
            .unwrap_or_else(|| 1.0 / (coupling::counted(s).max(1) as f64).sqrt())
    }

    /// Couple+ Table I: Δw_t = a/w_t per packet acknowledged, so
    /// acked·MSS·a/cwnd_t bytes for an ACK of `acked` bytes.
    pub fn increase_bytes(&self, s: &[SubflowCc], r: usize, acked: u64) -> f64 {
        self.weight(s) * acked as f64 * s[r].mss as f64 / s[r].cwnd as f64
    }
}

impl CongestionAvoidance for Ewtcp {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        if !ack.cwnd_limited || ack.acked_bytes == 0 {
            return;
        }
        self.paper.size(s.len());
        if self.config.a.is_none() && coupling::single_path(s, r) {
            // n = 1: a = 1, Reno itself.
            return self.paper.reno.on_ack(s, r, ack);
        }
        let inc = self.increase_bytes(s, r, ack.acked_bytes);
        self.paper.apply(s, r, inc);
    }

    /// Couple+ Table I: decrease w_t/2, i.e. Reno's halving.
    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
        self.paper.reset(r);
        self.paper.reno.ssthresh_after_loss(s, r, now)
    }

    fn on_rto(&mut self, _s: &mut [SubflowCc], r: usize, _now: SimTime) {
        self.paper.reset(r);
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.paper.size(s.len());
    }
}

#[cfg(test)]
mod tests {
    use super::super::coupling::test_util::*;
    use super::*;

    #[test]
    fn increase_is_scaled_by_one_over_sqrt_n() {
        // n = 2: a = 1/sqrt(2); w = 10 packets: per 1000 B acked,
        // 1000·1000/(sqrt(2)·10000) = 70.71 B. n = 4: a = 1/2, 50 B.
        let s = vec![sf(10, 10), sf(20, 40)];
        let cc = Ewtcp::new(EwtcpConfig::default());
        assert!(close(cc.increase_bytes(&s, 0, 1000), 100.0 / 2f64.sqrt()));
        // On the 20-packet subflow: 50/sqrt(2) = 35.36 B.
        assert!(close(cc.increase_bytes(&s, 1, 1000), 50.0 / 2f64.sqrt()));
        let s4 = vec![sf(10, 10), sf(20, 40), sf(5, 5), sf(5, 5)];
        assert!(close(cc.increase_bytes(&s4, 0, 1000), 50.0));
        let mut s = s;
        let mut cc = cc;
        cc.on_ack(&mut s, 0, &ack(1000));
        assert_eq!(s[0].cwnd, 10_070);
    }

    #[test]
    fn configured_weight_and_reno_decrease() {
        let s = vec![sf(10, 10), sf(20, 40)];
        let mut cc = Ewtcp::new(EwtcpConfig { a: Some(0.25) });
        assert!(close(cc.increase_bytes(&s, 0, 2000), 50.0));
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
