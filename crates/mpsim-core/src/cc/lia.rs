//! LIA, the Linked Increases Algorithm (RFC 6356 §3; the "RTT-Compensator"
//! row of the Couple+ paper's Table I).
//!
//! Per ACK on subflow i, cwnd_i grows by
//! min(alpha·bytes_acked·MSS_i/cwnd_total, bytes_acked·MSS_i/cwnd_i) with
//! alpha = cwnd_total·max_i(cwnd_i/rtt_i²)/(Σ_i cwnd_i/rtt_i)²; a loss halves
//! the subflow's window as Reno does. With one subflow taking part it is Reno.
//!
//! The `linux` flavour is `mptcp_coupled.c` of the out-of-tree kernel v0.9x
//! (reference-semantics.md §2.1): one counter step per ACK event against the
//! threshold max(2^12/alpha_k, cwnd_i) packets, alpha_k in the kernel's
//! fixed point, cwnd (not ssthresh) of subflows in recovery.

use crate::cc::CcSetup;
use super::CcFactory;
use super::coupling::{self, CoupledAimd, CoupledRule, Flavour};
use super::{AckInfo, CongestionAvoidance, RenoConfig, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LiaConfig {
    /// `paper` (RFC 6356, byte counting) or `linux` (kernel v0.9x).
    pub flavour: Flavour,
}

impl CcFactory for LiaConfig {
    type Algorithm = Lia;

    fn build(&self, setup: &CcSetup) -> Lia {
        Lia::new(*self).with_reno(setup.reno)
    }
}

impl CoupledRule for LiaConfig {
    /// RFC 6356 §3: with one subflow taking part, alpha = 1 and the
    /// increase is Reno's. The decrease "is the same as in standard TCP".
    fn increase_bytes(&self, s: &[SubflowCc], r: usize, acked: u64) -> Option<f64> {
        Some(Lia::increase_bytes(s, r, acked))
    }
}

#[derive(Clone, Debug, Default)]
pub struct Lia {
    pub config: LiaConfig,
    /// The paper flavour: the coupled AIMD over LIA's rule (the
    /// connection's Reno while one subflow takes part).
    paper: CoupledAimd<LiaConfig>,
    /// Per subflow: the kernel's `snd_cwnd_cnt`, in ACK events (linux).
    cnt: Vec<u64>,
}

/// The kernel's fixed-point scales (`alpha_scale_num`, `alpha_scale_den`,
/// `alpha_scale`): alpha_k = 2^12·(w_b/rtt_b²)/(Σ w_i/rtt_i)².
const ALPHA_SCALE_NUM: u32 = 32;
const ALPHA_SCALE_DEN: u32 = 10;
const ALPHA_SCALE: u32 = 12;

impl Lia {
    pub fn new(config: LiaConfig) -> Self {
        Lia {
            config,
            ..Lia::default()
        }
    }

    /// The Reno that runs while only one subflow takes part (the
    /// connection's profile: counting and halving).
    pub fn with_reno(mut self, reno: RenoConfig) -> Self {
        self.paper = CoupledAimd::new(self.config).with_reno(reno);
        self
    }

    fn size(&mut self, n: usize) {
        if self.cnt.len() < n {
            self.cnt.resize(n, 0);
        }
    }

    /// RFC 6356 §3: alpha = cwnd_total·max_i(cwnd_i/rtt_i²)/(Σ_i cwnd_i/rtt_i)²
    /// over the subflows taking part, windows in bytes (ssthresh for a
    /// subflow in fast recovery), RTT = SRTT.
    pub fn alpha(s: &[SubflowCc]) -> f64 {
        let (mut total, mut best, mut den) = (0.0, 0.0f64, 0.0);
        for sf in s.iter().filter(|sf| coupling::counts(sf)) {
            let (w, rtt) = (coupling::paper_window(sf), coupling::rtt_ns(sf));
            total += w;
            best = best.max(w / (rtt * rtt));
            den += w / rtt;
        }
        total * best / (den * den)
    }

    /// RFC 6356 §3: the increase of cwnd_r, in bytes, for an ACK of `acked`
    /// bytes: min(alpha·acked·MSS_r/cwnd_total, acked·MSS_r/cwnd_r).
    pub fn increase_bytes(s: &[SubflowCc], r: usize, acked: u64) -> f64 {
        let num = acked as f64 * s[r].mss as f64;
        (Self::alpha(s) * num / coupling::paper_total(s)).min(num / s[r].cwnd as f64)
    }

    /// Kernel `mptcp_ccc_recalc_alpha`: 2^12·(w_b/rtt_b²)/(Σ w_i/rtt_i)² in
    /// integer arithmetic, windows in packets (cwnd even in recovery), RTT =
    /// `srtt_us`; the best subflow maximises (w<<32)/srtt², ties to the later
    /// one; 1 with at most one established subflow or if it comes out 0.
    pub fn kernel_alpha(s: &[SubflowCc]) -> u64 {
        if coupling::established(s) <= 1 {
            return 1;
        }
        let (mut max_num, mut best_w, mut best_rtt, mut any) = (0u128, 0u128, 0u128, false);
        for sf in s.iter().filter(|sf| coupling::counts(sf)) {
            let (w, rtt) = (coupling::cwnd_pkts(sf) as u128, coupling::srtt_us8(sf) as u128);
            let tmp = (w << ALPHA_SCALE_NUM) / (rtt * rtt);
            if tmp >= max_num {
                max_num = tmp;
                best_w = w;
                best_rtt = rtt;
            }
            any = true;
        }
        if !any {
            return 1;
        }
        let sum: u128 = s
            .iter()
            .filter(|sf| coupling::counts(sf))
            .map(|sf| {
                ((coupling::cwnd_pkts(sf) as u128) << ALPHA_SCALE_DEN) * best_rtt / coupling::srtt_us8(sf) as u128
            })
            .sum();
        let den = (sum * sum).max(1);
        let alpha = ((best_w << ALPHA_SCALE_NUM) / den) as u64;
        alpha.max(1)
    }

    /// Kernel `mptcp_ccc_cong_avoid`: the ACK events after which cwnd_r grows
    /// by one packet, max(2^12/alpha_k, cwnd_r) (integer division); cwnd_r
    /// alone with at most one established subflow.
    pub fn kernel_threshold(s: &[SubflowCc], r: usize) -> u64 {
        let w = coupling::cwnd_pkts(&s[r]);
        if coupling::established(s) <= 1 {
            return w;
        }
        ((1u64 << ALPHA_SCALE) / Self::kernel_alpha(s)).max(w)
    }
}

impl CongestionAvoidance for Lia {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        if !ack.cwnd_limited || ack.acked_bytes == 0 {
            return;
        }
        self.size(s.len());
        match self.config.flavour {
            Flavour::Paper => self.paper.on_ack(s, r, ack),
            Flavour::Linux => {
                let threshold = Self::kernel_threshold(s, r);
                coupling::linux_counter_step(&mut s[r], &mut self.cnt[r], threshold);
            }
        }
    }

    /// RFC 6356 §3: "the decrease ... is the same as in standard TCP". Paper:
    /// the connection's Reno (RFC 5681 eq. (4) or cwnd/2 by profile); linux:
    /// `tcp_reno_ssthresh`, max(cwnd/2, 2) packets.
    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
        self.size(s.len());
        self.cnt[r] = 0;
        match self.config.flavour {
            Flavour::Paper => self.paper.ssthresh_after_loss(s, r, now),
            Flavour::Linux => coupling::linux_reno_ssthresh(&s[r]),
        }
    }

    fn on_rto(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.size(s.len());
        self.paper.on_rto(s, r, now);
        self.cnt[r] = 0;
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.size(s.len());
        self.paper.on_subflows_changed(s);
    }
}

#[cfg(test)]
mod tests {
    use super::super::coupling::test_util::*;
    use super::*;

    fn linux() -> Lia {
        Lia::new(LiaConfig {
            flavour: Flavour::Linux,
        })
    }

    #[test]
    fn two_subflows_different_rtts() {
        // w = (10, 20) packets of 1000 B, rtt = (10, 40) ms.
        // w/rtt² = (100, 12.5) B/ms², Σ w/rtt = 1000 + 500 = 1500 B/ms,
        // alpha = 30000·100/1500² = 4/3; increase per 1000 B acked
        // = alpha·1000·1000/30000 = 44.44 B, below both caps (100 B, 50 B).
        let s = vec![sf(10, 10), sf(20, 40)];
        assert!(close(Lia::alpha(&s), 4.0 / 3.0));
        assert!(close(Lia::increase_bytes(&s, 0, 1000), 400.0 / 9.0));
        assert!(close(Lia::increase_bytes(&s, 1, 1000), 400.0 / 9.0));
        let mut s = s;
        let mut cc = Lia::new(LiaConfig::default());
        cc.on_ack(&mut s, 0, &ack(2000));
        // 88.89 B: 88 to cwnd, 0.89 carried.
        assert_eq!(s[0].cwnd, 10_088);
        assert_eq!(s[1].cwnd, 20_000);
    }

    #[test]
    fn three_subflows() {
        // w = (10, 20, 30) packets, rtt = (10, 20, 30) ms: w/rtt² = (100, 50,
        // 33.3), Σ w/rtt = 3000, alpha = 60000·100/3000² = 2/3, increase per
        // 1000 B = (2/3)·10^6/60000 = 11.11 B on every subflow (caps 100, 50, 33.3).
        let s = vec![sf(10, 10), sf(20, 20), sf(30, 30)];
        assert!(close(Lia::alpha(&s), 2.0 / 3.0));
        for r in 0..3 {
            assert!(close(Lia::increase_bytes(&s, r, 1000), 100.0 / 9.0));
        }
    }

    #[test]
    fn the_single_path_cap_binds_on_the_large_window() {
        // w = (4, 40) packets, rtt = (10, 100) ms: w/rtt² = (40, 4), Σ w/rtt =
        // 400 + 400 = 800, alpha = 44000·40/800² = 2.75; alpha·10^6/44000 =
        // 62.5 B, below subflow 0's cap 10^6/4000 = 250 B but above subflow
        // 1's cap 10^6/40000 = 25 B, which binds.
        let s = vec![sf(4, 10), sf(40, 100)];
        assert!(close(Lia::alpha(&s), 2.75));
        assert!(close(Lia::increase_bytes(&s, 0, 1000), 62.5));
        assert!(close(Lia::increase_bytes(&s, 1, 1000), 25.0));
    }

    #[test]
    fn one_subflow_taking_part_is_reno() {
        // The second subflow is not established: Reno byte counting, cwnd
        // grows by one MSS once a cwnd of bytes is acknowledged.
        let mut s = vec![sf(10, 10), sf(20, 40)];
        s[1].established = false;
        let mut cc = Lia::new(LiaConfig::default());
        for _ in 0..9 {
            cc.on_ack(&mut s, 0, &ack(1000));
        }
        assert_eq!(s[0].cwnd, 10_000);
        cc.on_ack(&mut s, 0, &ack(1000));
        assert_eq!(s[0].cwnd, 11_000);
        // Linux flavour: the kernel's counter against cwnd = 10 packets.
        let mut s = vec![sf(10, 10), sf(20, 40)];
        s[1].established = false;
        assert_eq!(Lia::kernel_threshold(&s, 0), 10);
    }

    #[test]
    fn linux_counts_ack_events_in_fixed_point() {
        // Same windows as `two_subflows_different_rtts`. srtt_us = 8·rtt in
        // µs: 80000 and 320000. (w<<32)/srtt² = (6, 0) → best is subflow 0.
        // Σ (w<<10)·80000/srtt = 10240 + 5120 = 15360; alpha_k =
        // (10<<32)/15360² = 182 (182.04); threshold = max(4096/182, w) =
        // max(22, 10) = 22 for subflow 0 and max(22, 20) = 22 for subflow 1.
        let mut s = vec![sf(10, 10), sf(20, 40)];
        assert_eq!(Lia::kernel_alpha(&s), 182);
        assert_eq!(Lia::kernel_threshold(&s, 0), 22);
        assert_eq!(Lia::kernel_threshold(&s, 1), 22);
        // 22 ACK events of 2 segments each do not grow cwnd (the paper
        // flavour would have added 22·88.9 B = 1955 B); the 23rd adds one
        // packet.
        let mut cc = linux();
        for _ in 0..22 {
            cc.on_ack(&mut s, 0, &ack(2000));
        }
        assert_eq!(s[0].cwnd, 10_000);
        cc.on_ack(&mut s, 0, &ack(2000));
        assert_eq!(s[0].cwnd, 11_000);
    }

    #[test]
    fn recovery_window_paper_ssthresh_linux_cwnd() {
        // Subflow 1 in fast recovery with cwnd 30 packets (inflated) and
        // ssthresh 10 packets. Paper: w = (10, 10) packets, rtt = (10, 40):
        // w/rtt² = (100, 6.25), Σ w/rtt = 1250, alpha = 20000·100/1250² =
        // 1.28, increase per 1000 B on subflow 0 = 1.28·10^6/20000 = 64 B.
        let mut s = vec![sf(10, 10), sf(30, 40)];
        s[1].in_recovery = true;
        s[1].ssthresh = 10_000;
        assert!(close(Lia::increase_bytes(&s, 0, 1000), 64.0));
        // Linux: cwnd 30 counts. Σ = 10240 + (30<<10)/4 = 17920, alpha_k =
        // (10<<32)/17920² = 133 (133.7), threshold 4096/133 = 30. (With
        // ssthresh it would be alpha_k 262, threshold 15.)
        assert_eq!(Lia::kernel_alpha(&s), 133);
        assert_eq!(Lia::kernel_threshold(&s, 0), 30);
    }

    #[test]
    fn loss_halves_like_reno() {
        let mut s = vec![sf(11, 10), sf(20, 40)];
        s[0].bytes_in_flight = 9_000;
        // Paper with the default Reno (RFC 5681 eq. (4)): flight size / 2.
        let mut cc = Lia::new(LiaConfig::default());
        assert_eq!(cc.ssthresh_after_loss(&s, 0, SimTime::ZERO), 4_500);
        // Linux: max(11/2, 2) = 5 packets.
        assert_eq!(linux().ssthresh_after_loss(&s, 0, SimTime::ZERO), 5_000);
        s[0].cwnd = 3_000;
        assert_eq!(linux().ssthresh_after_loss(&s, 0, SimTime::ZERO), 2_000);
    }

    #[test]
    fn config_parses_with_and_without_flavour() {
        let c: LiaConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(c.flavour, Flavour::Paper);
        let c: LiaConfig = serde_json::from_str(r#"{"flavour":"linux"}"#).unwrap();
        assert_eq!(c.flavour, Flavour::Linux);
        assert!(serde_json::from_str::<LiaConfig>(r#"{"flavor":"linux"}"#).is_err());
    }
}
