//! OLIA, the Opportunistic Linked Increases Algorithm (Khalili, Gast,
//! Popovic, Le Boudec, "MPTCP is not Pareto-optimal: performance issues and a
//! possible solution", IEEE/ACM ToN 2013, §V).
//!
//! Per ACK on path r: w_r += (w_r/rtt_r²)/(Σ_p w_p/rtt_p)² + α_r/w_r (windows
//! in packets). With ℓ_r the inter-loss distance (the larger of the bytes
//! acknowledged between the last two losses and since the last loss), B the
//! paths maximising ℓ_r/rtt_r², M the paths with the largest window and n
//! the number of paths: α_r = 1/(n·|B\M|) for r ∈ B\M, −1/(n·|M|) for r ∈ M
//! when B\M is not empty, 0 otherwise. A loss halves the window as Reno.
//! The α term moves window from the largest paths to the best ones, so a
//! window in M can shrink between losses.
//!
//! The `linux` flavour is `mptcp_olia.c` of the out-of-tree kernel v0.9x
//! (reference-semantics.md §2.2): a counter in units of 1/1024 packet with
//! integer divisions, ±1 packet at ±1023 with the remainder discarded,
//! n = established subflows, windows in packets.

use crate::cc::CcSetup;
use super::CcFactory;
use super::coupling::{self, Flavour, PaperIncrease};
use super::{AckInfo, CongestionAvoidance, RenoConfig, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OliaConfig {
    /// `paper` (ToN 2013, byte counting) or `linux` (kernel v0.9x).
    pub flavour: Flavour,
}

/// Per-subflow OLIA state.
#[derive(Clone, Copy, Debug, Default)]
struct PathState {
    /// `bytes_acked` at the second-to-last loss (kernel `mptcp_loss1`), bytes.
    loss1: u64,
    /// `bytes_acked` at the last loss (kernel `mptcp_loss2`), bytes.
    loss2: u64,
    /// Kernel `mptcp_snd_cwnd_cnt`, 1/1024 packet (linux).
    cnt: i64,
}

impl CcFactory for OliaConfig {
    type Algorithm = Olia;

    fn build(&self, setup: &CcSetup) -> Olia {
        Olia::new(*self).with_reno(setup.reno)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Olia {
    pub config: OliaConfig,
    /// Single-path behaviour (one subflow taking part): the connection's
    /// Reno; and the carried fractions of the increase (paper).
    paper: PaperIncrease,
    paths: Vec<PathState>,
}

/// Kernel `scale`: the counter is in 1/2^10 packet.
const SCALE: u32 = 10;

/// α_r as a fraction num/den (num ∈ {−1, 0, 1}).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Epsilon {
    pub num: i64,
    pub den: u64,
}

impl Olia {
    pub fn new(config: OliaConfig) -> Self {
        Olia {
            config,
            ..Olia::default()
        }
    }

    pub fn with_reno(mut self, reno: RenoConfig) -> Self {
        self.paper = PaperIncrease::new(reno);
        self
    }

    fn size(&mut self, n: usize) {
        self.paper.size(n);
        if self.paths.len() < n {
            self.paths.resize(n, PathState::default());
        }
    }

    /// ToN 2013 §V: ℓ_r = max(bytes acknowledged since the last loss, bytes
    /// acknowledged between the last two losses).
    pub fn loss_distance(&self, s: &[SubflowCc], r: usize) -> u64 {
        let p = self.paths.get(r).copied().unwrap_or_default();
        s[r].bytes_acked.saturating_sub(p.loss2).max(p.loss2 - p.loss1)
    }

    /// α_r (ToN 2013 §V; kernel `mptcp_get_epsilon`) over the subflows taking
    /// part, with `win` the window each contributes, `rtt` its RTT and `n`
    /// the number of paths. B is compared exactly by cross-multiplication.
    fn epsilon(
        &self,
        s: &[SubflowCc],
        r: usize,
        win: impl Fn(&SubflowCc) -> u64,
        rtt: impl Fn(&SubflowCc) -> u64,
        n: u64,
    ) -> Epsilon {
        let zero = Epsilon { num: 0, den: 1 };
        let part = || s.iter().enumerate().filter(|(_, sf)| coupling::counts(sf));
        let max_w = part().map(|(_, sf)| win(sf)).max().unwrap_or(0);
        // The best path maximises ℓ/rtt²: ℓ_i·rtt_b² ≥ ℓ_b·rtt_i².
        let (mut best_l, mut best_rtt2) = (0u128, 1u128);
        for (i, sf) in part() {
            let (l, rtt2) = (self.loss_distance(s, i) as u128, (rtt(sf) as u128).pow(2));
            if l * best_rtt2 >= best_l * rtt2 {
                best_l = l;
                best_rtt2 = rtt2;
            }
        }
        let in_b = |i: usize, sf: &SubflowCc| {
            self.loss_distance(s, i) as u128 * best_rtt2 == best_l * (rtt(sf) as u128).pow(2)
        };
        let m = part().filter(|(_, sf)| win(sf) == max_w).count() as u64;
        let b_not_m = part().filter(|&(i, sf)| win(sf) != max_w && in_b(i, sf)).count() as u64;
        if b_not_m == 0 || !coupling::counts(&s[r]) {
            return zero;
        }
        let wr = win(&s[r]);
        if wr < max_w && in_b(r, &s[r]) {
            Epsilon {
                num: 1,
                den: n * b_not_m,
            }
        } else if wr == max_w {
            Epsilon { num: -1, den: n * m }
        } else {
            zero
        }
    }

    /// α_r of the paper flavour: windows in bytes (ssthresh in fast
    /// recovery), RTT = SRTT in ns, n = subflows taking part.
    pub fn alpha(&self, s: &[SubflowCc], r: usize) -> f64 {
        let e = self.epsilon(
            s,
            r,
            coupling::paper_window_bytes,
            |sf| sf.srtt.0,
            coupling::counted(s) as u64,
        );
        e.num as f64 / e.den as f64
    }

    /// ToN 2013 §V: the change of cwnd_r, in bytes, for an ACK of `acked`
    /// bytes: acked·MSS_r·[(w_r/rtt_r²)/(Σ_p w_p/rtt_p)² + α_r/w_r], windows
    /// in bytes. Negative for a path in M when the α term outweighs.
    pub fn increase_bytes(&self, s: &[SubflowCc], r: usize, acked: u64) -> f64 {
        let den: f64 = s
            .iter()
            .filter(|sf| coupling::counts(sf))
            .map(|sf| coupling::paper_window(sf) / coupling::rtt_ns(sf))
            .sum();
        let (w, rtt) = (s[r].cwnd as f64, coupling::rtt_ns(&s[r]));
        let per_byte = (w / (rtt * rtt)) / (den * den) + self.alpha(s, r) / w;
        acked as f64 * s[r].mss as f64 * per_byte
    }

    /// Kernel `mptcp_get_epsilon`: windows in packets (`mptcp_get_crt_cwnd`:
    /// ssthresh in recovery), RTT = `srtt_us`, n = `cnt_established`.
    pub fn kernel_epsilon(&self, s: &[SubflowCc], r: usize) -> Epsilon {
        self.epsilon(s, r, kernel_window, coupling::srtt_us8, coupling::established(s) as u64)
    }

    /// Kernel `mptcp_olia_cong_avoid`: the counter change, in 1/1024
    /// packet, for one ACK event on subflow r (integer divisions, truncated).
    pub fn kernel_counter_delta(&self, s: &[SubflowCc], r: usize) -> i64 {
        let e = self.kernel_epsilon(s, r);
        let path_rtt = coupling::srtt_us8(&s[r]) as u128;
        // mptcp_get_rate: (1 + Σ_p (w_p<<10)·rtt_r/rtt_p)².
        let mut rate: u128 = 1;
        for sf in s.iter().filter(|sf| coupling::counts(sf)) {
            rate += ((kernel_window(sf) as u128) << SCALE) * path_rtt / coupling::srtt_us8(sf) as u128;
        }
        let rate = rate * rate;
        let w = coupling::cwnd_pkts(&s[r]) as u128;
        let scaled = w << SCALE;
        let den = e.den as u128;
        let inc_den = (den * w * rate).max(1);
        let sq = den * scaled * scaled;
        if e.num == -1 {
            if sq < rate {
                -((((rate - sq) << SCALE) / inc_den) as i64)
            } else {
                (((sq - rate) << SCALE) / inc_den) as i64
            }
        } else {
            let num = e.num as u128 * rate + sq;
            ((num << SCALE) / inc_den) as i64
        }
    }
}

/// Kernel `mptcp_get_crt_cwnd`, packets: ssthresh in recovery, else cwnd.
fn kernel_window(sf: &SubflowCc) -> u64 {
    if sf.in_recovery {
        (sf.ssthresh / sf.mss as u64).max(1)
    } else {
        coupling::cwnd_pkts(sf)
    }
}

impl CongestionAvoidance for Olia {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        if !ack.cwnd_limited || ack.acked_bytes == 0 {
            return;
        }
        self.size(s.len());
        if coupling::single_path(s, r) {
            // One path: α = 0 and the first term is 1/w_r, Reno.
            return match self.config.flavour {
                Flavour::Paper => self.paper.reno.on_ack(s, r, ack),
                Flavour::Linux => {
                    let mut cnt = self.paths[r].cnt.max(0) as u64;
                    let w = coupling::cwnd_pkts(&s[r]);
                    coupling::linux_counter_step(&mut s[r], &mut cnt, w);
                    self.paths[r].cnt = cnt as i64;
                }
            };
        }
        match self.config.flavour {
            Flavour::Paper => {
                let inc = self.increase_bytes(s, r, ack.acked_bytes);
                self.paper.apply(s, r, inc);
            }
            Flavour::Linux => {
                let delta = self.kernel_counter_delta(s, r);
                let p = &mut self.paths[r];
                p.cnt += delta;
                let mss = s[r].mss as u64;
                let w = coupling::cwnd_pkts(&s[r]);
                if p.cnt >= (1 << SCALE) - 1 {
                    s[r].cwnd = (w + 1) * mss;
                    p.cnt = 0;
                } else if p.cnt <= -(1 << SCALE) + 1 {
                    s[r].cwnd = w.saturating_sub(1).max(1) * mss;
                    p.cnt = 0;
                }
            }
        }
    }

    /// A loss (fast recovery, or the first timeout of the data) shifts the
    /// loss marks unless nothing was acknowledged since the last one (kernel
    /// `mptcp_olia_set_state`); ssthresh is Reno's (paper: the connection's
    /// Reno; linux: `tcp_reno_ssthresh`).
    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
        self.size(s.len());
        let p = &mut self.paths[r];
        if s[r].bytes_acked != p.loss2 {
            p.loss1 = p.loss2;
            p.loss2 = s[r].bytes_acked;
        }
        p.cnt = 0;
        self.paper.reset(r);
        match self.config.flavour {
            Flavour::Paper => self.paper.reno.ssthresh_after_loss(s, r, now),
            Flavour::Linux => coupling::linux_reno_ssthresh(&s[r]),
        }
    }

    fn on_rto(&mut self, s: &mut [SubflowCc], r: usize, _now: SimTime) {
        self.size(s.len());
        self.paper.reset(r);
        self.paths[r].cnt = 0;
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.size(s.len());
    }
}

#[cfg(test)]
mod tests {
    use super::super::coupling::test_util::*;
    use super::*;

    /// Gives subflow r a loss distance of `l` bytes (one loss after `l`
    /// bytes acknowledged).
    fn lose_after(cc: &mut Olia, s: &mut [SubflowCc], r: usize, l: u64) {
        s[r].bytes_acked = l;
        let c = s[r].cwnd;
        cc.ssthresh_after_loss(s, r, SimTime::ZERO);
        s[r].cwnd = c;
    }

    /// w = (10, 20) packets, rtt = (10, 20) ms, ℓ = (100 kB, 200 kB):
    /// ℓ/rtt² = (1000, 500) → B = {0}; M = {1}; B\M = {0}.
    fn case_a(flavour: Flavour) -> (Olia, Vec<SubflowCc>) {
        let mut cc = Olia::new(OliaConfig { flavour });
        let mut s = vec![sf(10, 10), sf(20, 20)];
        lose_after(&mut cc, &mut s, 0, 100_000);
        lose_after(&mut cc, &mut s, 1, 200_000);
        (cc, s)
    }

    #[test]
    fn best_path_not_in_max_gains_and_max_path_loses() {
        let (mut cc, mut s) = case_a(Flavour::Paper);
        assert_eq!(cc.loss_distance(&s, 0), 100_000);
        // α_0 = 1/(2·1), α_1 = −1/(2·1).
        assert!(close(cc.alpha(&s, 0), 0.5));
        assert!(close(cc.alpha(&s, 1), -0.5));
        // Σ w/rtt = 1000 + 1000 B/ms. Per 1000 B acked:
        // path 0: 10^6·[(10000/100)/2000² + 0.5/10000] = 25 + 50 = 75 B;
        // path 1: 10^6·[(20000/400)/2000² − 0.5/20000] = 12.5 − 25 = −12.5 B.
        assert!(close(cc.increase_bytes(&s, 0, 1000), 75.0));
        assert!(close(cc.increase_bytes(&s, 1, 1000), -12.5));
        cc.on_ack(&mut s, 1, &ack(1000));
        // −12.5: floor −13 to cwnd, +0.5 carried.
        assert_eq!(s[1].cwnd, 19_987);
    }

    #[test]
    fn no_alpha_when_the_best_path_has_the_largest_window() {
        // w = (20, 10), rtt = (10, 20), ℓ as in case A: B = M = {0}.
        let (cc, mut s) = case_a(Flavour::Paper);
        s[0].cwnd = 20_000;
        s[1].cwnd = 10_000;
        assert_eq!(cc.alpha(&s, 0), 0.0);
        assert_eq!(cc.alpha(&s, 1), 0.0);
        // Σ w/rtt = 2000 + 500 = 2500; path 0: 10^6·200/2500² = 32 B;
        // path 1: 10^6·25/2500² = 4 B.
        assert!(close(cc.increase_bytes(&s, 0, 1000), 32.0));
        assert!(close(cc.increase_bytes(&s, 1, 1000), 4.0));
    }

    #[test]
    fn three_paths_two_in_b_not_m() {
        // rtt 10 ms each, w = (30, 10, 10), no loss yet: ℓ = 0 everywhere,
        // so every path is in B; M = {0}; B\M = {1, 2}; n = 3.
        let cc = Olia::new(OliaConfig::default());
        let s = vec![sf(30, 10), sf(10, 10), sf(10, 10)];
        assert!(close(cc.alpha(&s, 1), 1.0 / 6.0));
        assert!(close(cc.alpha(&s, 0), -1.0 / 3.0));
        // Σ w/rtt = 5000. Path 1: 10^6·[100/5000² + (1/6)/10000] = 4 + 16.67;
        // path 0: 10^6·[300/5000² − (1/3)/30000] = 12 − 11.11.
        assert!(close(cc.increase_bytes(&s, 1, 1000), 4.0 + 100.0 / 6.0));
        assert!(close(cc.increase_bytes(&s, 0, 1000), 12.0 - 100.0 / 9.0));
    }

    #[test]
    fn linux_counter_in_1024ths_of_a_packet() {
        // Case A. srtt_us = (80000, 160000). Path 0: ε = 1/2, rate =
        // (1 + 10240 + 20480·80000/160000)² = 20481², counter += ((20481² +
        // 2·10240²)<<10)/(2·10·20481²) = 76 (76.797) per ACK event.
        let (mut cc, mut s) = case_a(Flavour::Linux);
        assert_eq!(cc.kernel_epsilon(&s, 0), Epsilon { num: 1, den: 2 });
        assert_eq!(cc.kernel_counter_delta(&s, 0), 76);
        // 13·76 = 988 < 1023: no growth (the paper flavour adds 75 B per
        // 1000 B acknowledged); the 14th event reaches 1064 and adds a packet.
        for _ in 0..13 {
            cc.on_ack(&mut s, 0, &ack(1000));
        }
        assert_eq!(s[0].cwnd, 10_000);
        cc.on_ack(&mut s, 0, &ack(1000));
        assert_eq!(s[0].cwnd, 11_000);
        // Path 1: ε = −1/2, rate = (1 + 20480 + 20480)² = 40961²; counter −=
        // ((40961² − 2·20480²)<<10)/(2·20·40961²) = 12 (12.8) per event:
        // −1020 after 85 events, −1032 ≤ −1023 at the 86th: one packet less.
        s[0].cwnd = 10_000;
        assert_eq!(cc.kernel_epsilon(&s, 1), Epsilon { num: -1, den: 2 });
        assert_eq!(cc.kernel_counter_delta(&s, 1), -12);
        for _ in 0..85 {
            cc.on_ack(&mut s, 1, &ack(1000));
        }
        assert_eq!(s[1].cwnd, 20_000);
        cc.on_ack(&mut s, 1, &ack(1000));
        assert_eq!(s[1].cwnd, 19_000);
    }

    #[test]
    fn n_is_established_subflows_in_linux_and_subflows_taking_part_in_paper() {
        // Case A plus a third subflow established but without an RTT sample.
        let (cc, mut s) = case_a(Flavour::Linux);
        let mut third = sf(5, 10);
        third.srtt = crate::time::SimDuration::ZERO;
        s.push(third);
        // Paper: n = 2, α_0 = 1/2 still, 75 B per 1000 B.
        let paper = Olia {
            config: OliaConfig::default(),
            ..cc.clone()
        };
        assert!(close(paper.alpha(&s, 0), 0.5));
        assert!(close(paper.increase_bytes(&s, 0, 1000), 75.0));
        // Linux: ε = 1/(3·1); counter += ((20481² + 3·10240²)<<10)/(3·10·20481²)
        // = 59 (59.73) instead of 76.
        assert_eq!(cc.kernel_epsilon(&s, 0), Epsilon { num: 1, den: 3 });
        assert_eq!(cc.kernel_counter_delta(&s, 0), 59);
    }

    #[test]
    fn loss_marks_shift_only_after_progress() {
        let (mut cc, mut s) = case_a(Flavour::Paper);
        s[0].bytes_acked = 130_000;
        // max(130000 − 100000, 100000 − 0).
        assert_eq!(cc.loss_distance(&s, 0), 100_000);
        lose_after(&mut cc, &mut s, 0, 130_000);
        // Marks (100000, 130000): max(0, 30000).
        assert_eq!(cc.loss_distance(&s, 0), 30_000);
        // A second loss without progress (a repeated timeout) changes nothing.
        lose_after(&mut cc, &mut s, 0, 130_000);
        assert_eq!(cc.loss_distance(&s, 0), 30_000);
    }

    #[test]
    fn a_best_path_without_the_largest_window_can_outgrow_reno() {
        // rtt = (10, 1000) ms, w = (5, 10) packets, no loss yet (all in B),
        // M = {1}, B\M = {0}, α_0 = 1/2. Per 1000 B acked on path 0:
        // 10^6·[(5000/100)/(500 + 10)² + 0.5/5000] = 192.2 + 100 = 292.2 B,
        // above Reno's 10^6/5000 = 200 B (bounded by 1.5× Reno: α ≤ 1/2).
        let cc = Olia::new(OliaConfig::default());
        let s = vec![sf(5, 10), sf(10, 1000)];
        let want = 1e6 * (50.0 / 510.0f64.powi(2) + 0.5 / 5000.0);
        assert!(close(cc.increase_bytes(&s, 0, 1000), want));
        assert!(want > 200.0 && want < 300.0);
    }

    #[test]
    fn one_subflow_is_reno() {
        let mut s = vec![sf(10, 10), sf(20, 40)];
        s[1].established = false;
        let mut cc = Olia::new(OliaConfig::default());
        for _ in 0..10 {
            cc.on_ack(&mut s, 0, &ack(1000));
        }
        assert_eq!(s[0].cwnd, 11_000);
    }
}
