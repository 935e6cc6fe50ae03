//! BALIA, the Balanced Linked Adaptation algorithm (Peng, Walid, Hwang, Low,
//! "Multipath TCP: analysis, design, and implementation", IEEE/ACM ToN 2016,
//! §VI).
//!
//! With x_k = w_k/rtt_k and α_r = max_k x_k / x_r: per ACK on path r,
//! w_r += x_r/(rtt_r·(Σ_k x_k)²)·(1+α_r)/2·(4+α_r)/5; per loss on path r,
//! w_r −= w_r/2·min(α_r, 1.5). With one path it is Reno.
//!
//! The `linux` flavour is `mptcp_balia.c` of the out-of-tree kernel v0.9x
//! (reference-semantics.md §2.3): rates in bytes/s from `srtt_us`, an
//! integer α, a per-ACK-event threshold `ai`, and a decrease `md` computed
//! when the subflow last grew (or left recovery or timed out), which may be
//! stale at the loss; ssthresh is floored at one packet.

use crate::cc::CcSetup;
use super::CcFactory;
use super::coupling::{self, Flavour, PaperIncrease};
use super::{AckInfo, CongestionAvoidance, RenoConfig, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BaliaConfig {
    /// `paper` (ToN 2016, byte counting) or `linux` (kernel v0.9x).
    pub flavour: Flavour,
}

/// Per-subflow BALIA state.
#[derive(Clone, Copy, Debug)]
struct PathState {
    /// Kernel `snd_cwnd_cnt`, ACK events (linux).
    cnt: u64,
    /// Kernel `ai`: ACK events per one-packet increase, as last computed.
    ai: u64,
    /// Kernel `md`: the decrease at the next loss, packets, as last computed.
    md: u64,
    /// The subflow has been in slow start since its last recalculation
    /// (the kernel recalculates on every slow-start ACK, which this hook
    /// does not see).
    ss_pending: bool,
}

impl Default for PathState {
    fn default() -> Self {
        PathState {
            cnt: 0,
            ai: 0,
            md: 0,
            ss_pending: true,
        }
    }
}

impl CcFactory for BaliaConfig {
    type Algorithm = Balia;

    fn build(&self, setup: &CcSetup) -> Balia {
        Balia::new(*self).with_reno(setup.reno)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Balia {
    pub config: BaliaConfig,
    /// Single-path behaviour (one subflow taking part): the connection's
    /// Reno; and the carried fractions of the increase (paper).
    paper: PaperIncrease,
    paths: Vec<PathState>,
}

/// Kernel constants: rates above 2^25 are shifted right by 5 until below;
/// α is scaled by 2^10 in the decrease.
const RATE_SCALE_LIMIT: u32 = 25;
const SCALE_NUM: u32 = 5;
const ALPHA_SCALE: u32 = 10;

impl Balia {
    pub fn new(config: BaliaConfig) -> Self {
        Balia {
            config,
            ..Balia::default()
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

    /// (x_r, Σ x_k, max x_k) in bytes/ns over the subflows taking part,
    /// x_k = w_k/SRTT_k with w_k the paper window (ssthresh in fast
    /// recovery); subflow r contributes `own_w` bytes.
    fn rates(s: &[SubflowCc], r: usize, own_w: f64) -> (f64, f64, f64) {
        let (mut sum, mut max) = (0.0, 0.0f64);
        let xr = own_w / coupling::rtt_ns(&s[r]);
        for (i, sf) in s.iter().enumerate().filter(|(_, sf)| coupling::counts(sf)) {
            let x = if i == r {
                xr
            } else {
                coupling::paper_window(sf) / coupling::rtt_ns(sf)
            };
            sum += x;
            max = max.max(x);
        }
        (xr, sum, max)
    }

    /// ToN 2016 §VI: α_r = max_k x_k / x_r.
    pub fn alpha(s: &[SubflowCc], r: usize) -> f64 {
        let (xr, _, max) = Self::rates(s, r, s[r].cwnd as f64);
        max / xr
    }

    /// ToN 2016 §VI: the increase of cwnd_r, bytes, for an ACK of `acked`
    /// bytes: acked·MSS_r·x_r/(rtt_r·(Σ x_k)²)·(1+α_r)/2·(4+α_r)/5, windows in bytes.
    pub fn increase_bytes(s: &[SubflowCc], r: usize, acked: u64) -> f64 {
        let (xr, sum, max) = Self::rates(s, r, s[r].cwnd as f64);
        let a = max / xr;
        let base = xr / (coupling::rtt_ns(&s[r]) * sum * sum);
        acked as f64 * s[r].mss as f64 * base * (1.0 + a) / 2.0 * (4.0 + a) / 5.0
    }

    /// ToN 2016 §VI: the window after a loss, bytes: w_r − w_r/2·min(α_r,
    /// 1.5), at least 2 MSS as Reno's (RFC 5681 eq. (4)).
    pub fn window_after_loss(s: &[SubflowCc], r: usize) -> u64 {
        let w = s[r].cwnd as f64;
        let md = w / 2.0 * Self::alpha(s, r).min(1.5);
        ((w - md) as u64).max(2 * s[r].mss as u64)
    }

    /// Kernel `mptcp_balia_recalc_ai`: (ai, md) of subflow r from the current
    /// windows, packets and `srtt_us`; (0, 0) with at most one established
    /// subflow.
    pub fn kernel_ai_md(s: &[SubflowCc], r: usize) -> (u64, u64) {
        if coupling::established(s) <= 1 {
            return (0, 0);
        }
        let mss = s[r].mss as u128;
        let rate_of = |sf: &SubflowCc| {
            mss * coupling::cwnd_pkts(sf) as u128 * (1_000_000u128 << 3) / coupling::srtt_us8(sf) as u128
        };
        let (mut max_rate, mut sum, mut rate) = (0u128, 0u128, 0u128);
        for (i, sf) in s.iter().enumerate().filter(|(_, sf)| coupling::counts(sf)) {
            let x = rate_of(sf);
            sum += x;
            if i == r {
                rate = x;
            }
            max_rate = max_rate.max(x);
        }
        if rate == 0 {
            return (0, 0);
        }
        // α is an integer division: 1.9 becomes 1.
        let alpha = max_rate / rate;
        let mut shift = 0;
        while max_rate > 1u128 << RATE_SCALE_LIMIT {
            max_rate >>= SCALE_NUM;
            shift += SCALE_NUM;
        }
        if shift > 0 {
            sum = s
                .iter()
                .filter(|sf| coupling::counts(sf))
                .map(|sf| rate_of(sf) >> shift)
                .sum();
            rate >>= shift;
        }
        let w = coupling::cwnd_pkts(&s[r]) as u128;
        let ai = sum * sum * 10 / (rate + max_rate).max(1);
        let mut ai = (ai * w / ((rate << 2) + max_rate).max(1)) as u64;
        if ai == 0 {
            ai = w as u64;
        }
        let md = (((w >> 1) * (alpha << ALPHA_SCALE).min((3u128 << ALPHA_SCALE) >> 1)) >> ALPHA_SCALE) as u64;
        (ai, md)
    }

    fn recalc(&mut self, s: &[SubflowCc], r: usize) {
        let (ai, md) = Self::kernel_ai_md(s, r);
        self.paths[r].ai = ai;
        self.paths[r].md = md;
        self.paths[r].ss_pending = false;
    }
}

impl CongestionAvoidance for Balia {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        if !ack.cwnd_limited || ack.acked_bytes == 0 {
            return;
        }
        self.size(s.len());
        match self.config.flavour {
            Flavour::Paper => {
                if coupling::single_path(s, r) {
                    return self.paper.reno.on_ack(s, r, ack);
                }
                let inc = Self::increase_bytes(s, r, ack.acked_bytes);
                self.paper.apply(s, r, inc);
            }
            Flavour::Linux => {
                if self.paths[r].ss_pending {
                    self.recalc(s, r);
                }
                // `mptcp_balia_cong_avoid`: threshold ai with more than one
                // established subflow, else cwnd (Reno).
                let threshold = if coupling::established(s) > 1 {
                    self.paths[r].ai
                } else {
                    coupling::cwnd_pkts(&s[r])
                };
                let mut cnt = self.paths[r].cnt;
                let grew = coupling::linux_counter_step(&mut s[r], &mut cnt, threshold);
                self.paths[r].cnt = cnt;
                if grew {
                    self.recalc(s, r);
                }
            }
        }
    }

    /// Paper: ToN 2016's decrease (Reno's with one subflow). Linux
    /// `mptcp_balia_ssthresh`: max(cwnd − md, 1) packets with the stored md
    /// (recomputed first if the subflow was in slow start, where the kernel
    /// recomputes on every ACK); `tcp_reno_ssthresh` with one subflow.
    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
        self.size(s.len());
        self.paper.reset(r);
        self.paths[r].cnt = 0;
        match self.config.flavour {
            Flavour::Paper => {
                if coupling::single_path(s, r) {
                    return self.paper.reno.ssthresh_after_loss(s, r, now);
                }
                Self::window_after_loss(s, r)
            }
            Flavour::Linux => {
                if coupling::established(s) <= 1 {
                    return coupling::linux_reno_ssthresh(&s[r]);
                }
                if self.paths[r].ss_pending || s[r].in_slow_start() {
                    self.recalc(s, r);
                }
                // The kernel subtracts in u64 and truncates to u32, so a
                // stale md larger than cwnd wraps; here it saturates.
                let pkts = coupling::cwnd_pkts(&s[r]).saturating_sub(self.paths[r].md).max(1);
                pkts * s[r].mss as u64
            }
        }
    }

    /// Kernel `CA_EVENT_COMPLETE_CWR`: recalculated with cwnd = ssthresh.
    fn on_recovery_exit(&mut self, s: &mut [SubflowCc], r: usize, _now: SimTime) {
        self.size(s.len());
        if self.config.flavour == Flavour::Linux {
            self.recalc(s, r);
        }
    }

    /// Kernel `CA_EVENT_LOSS`: recalculated; slow start follows.
    fn on_rto(&mut self, s: &mut [SubflowCc], r: usize, _now: SimTime) {
        self.size(s.len());
        self.paper.reset(r);
        self.paths[r].cnt = 0;
        if self.config.flavour == Flavour::Linux {
            self.recalc(s, r);
            self.paths[r].ss_pending = true;
        }
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.size(s.len());
    }
}

#[cfg(test)]
mod tests {
    use super::super::coupling::test_util::*;
    use super::*;

    fn linux() -> Balia {
        Balia::new(BaliaConfig {
            flavour: Flavour::Linux,
        })
    }

    #[test]
    fn increase_and_decrease_on_two_paths() {
        // w = (10, 20) packets, rtt = (10, 40) ms: x = (1000, 500) B/ms,
        // Σx = 1500. Path 0: α = 1, factor 1, 10^6·1000/(10·1500²) = 44.44 B.
        // Path 1: α = 2, factor (3/2)(6/5) = 1.8, 10^6·500/(40·1500²)·1.8 = 10 B.
        let s = vec![sf(10, 10), sf(20, 40)];
        assert!(close(Balia::alpha(&s, 1), 2.0));
        assert!(close(Balia::increase_bytes(&s, 0, 1000), 400.0 / 9.0));
        assert!(close(Balia::increase_bytes(&s, 1, 1000), 10.0));
        // Decrease: path 0 10000 − 5000·1; path 1 20000 − 10000·1.5.
        assert_eq!(Balia::window_after_loss(&s, 0), 5_000);
        assert_eq!(Balia::window_after_loss(&s, 1), 5_000);
        let mut s = s;
        let mut cc = Balia::new(BaliaConfig::default());
        assert_eq!(cc.ssthresh_after_loss(&s, 1, SimTime::ZERO), 5_000);
        cc.on_ack(&mut s, 1, &ack(3000));
        // 30 B up to floating-point rounding of the carried fraction.
        assert!((20_029..=20_030).contains(&s[1].cwnd), "{}", s[1].cwnd);
    }

    #[test]
    fn kernel_ai_and_md() {
        // Same windows. x = 1000·w·8·10^6/srtt_us = (10^6, 5·10^5) B/s.
        // Path 1: α = 2, ai = (1.5·10^6)²·10/(1.5·10^6) = 1.5·10^7, then
        // ·20/(2·10^6 + 10^6) = 100; md = (20>>1)·1536>>10 = 15.
        // Path 0: α = 1, ai = 2.25·10^13/(2·10^6) = 1.125·10^7, ·10/(5·10^6)
        // = 22 (22.5); md = 5.
        let s = vec![sf(10, 10), sf(20, 40)];
        assert_eq!(Balia::kernel_ai_md(&s, 1), (100, 15));
        assert_eq!(Balia::kernel_ai_md(&s, 0), (22, 5));
        // 22 events leave cwnd; the 23rd adds one packet (paper: 44.4 B per
        // 1000 B acknowledged, so 977 B after 22 ACKs).
        let mut s = s;
        let mut cc = linux();
        for _ in 0..22 {
            cc.on_ack(&mut s, 0, &ack(1000));
        }
        assert_eq!(s[0].cwnd, 10_000);
        cc.on_ack(&mut s, 0, &ack(1000));
        assert_eq!(s[0].cwnd, 11_000);
    }

    #[test]
    fn integer_alpha_in_linux() {
        // w = (19, 10) packets, rtt 10 ms each: α_1 = 1.9. Paper: md = 10000/2
        // ·1.5 = 7500 → 2500 B. Linux: α = 1, md = 5 → 5 packets.
        let s = vec![sf(19, 10), sf(10, 10)];
        assert!(close(Balia::alpha(&s, 1), 1.9));
        assert_eq!(
            Balia::new(BaliaConfig::default()).ssthresh_after_loss(&s, 1, SimTime::ZERO),
            2_500
        );
        assert_eq!(linux().ssthresh_after_loss(&s, 1, SimTime::ZERO), 5_000);
    }

    #[test]
    fn stale_md_in_linux() {
        // md of path 0 is computed at its first CA ACK with w = (10, 20),
        // rtt (10, 40): α = 1, md = 5. Path 1 then grows to 80 packets (x =
        // 2·10^6 B/s, α_0 = 2). At a loss on path 0, linux uses the stale
        // md: 10 − 5 = 5 packets; fresh it would be 10 − (5·1536>>10 = 7) = 3.
        // Paper: α = 2 → 10000 − 5000·1.5 = 2500 B.
        let mut s = vec![sf(10, 10), sf(20, 40)];
        let mut cc = linux();
        cc.on_ack(&mut s, 0, &ack(1000));
        s[1].cwnd = 80_000;
        assert_eq!(Balia::kernel_ai_md(&s, 0).1, 7);
        assert_eq!(cc.ssthresh_after_loss(&s, 0, SimTime::ZERO), 5_000);
        assert_eq!(
            Balia::new(BaliaConfig::default()).ssthresh_after_loss(&s, 0, SimTime::ZERO),
            2_500
        );
    }

    #[test]
    fn linux_floor_is_one_packet_paper_two() {
        // w_0 = 2 packets beside 10 packets at the same RTT: α = 5.
        // Linux: md = (2>>1)·1536>>10 = 1 → max(2 − 1, 1) = 1 packet.
        // Paper: 2000 − 1000·1.5 = 500 B → floor 2 MSS = 2000 B.
        let s = vec![sf(2, 10), sf(10, 10)];
        let mut cc = linux();
        assert_eq!(cc.ssthresh_after_loss(&s, 0, SimTime::ZERO), 1_000);
        assert_eq!(
            Balia::new(BaliaConfig::default()).ssthresh_after_loss(&s, 0, SimTime::ZERO),
            2_000
        );
    }

    #[test]
    fn one_subflow_is_reno() {
        let mut s = vec![sf(10, 10), sf(20, 40)];
        s[1].established = false;
        let mut cc = Balia::new(BaliaConfig::default());
        for _ in 0..10 {
            cc.on_ack(&mut s, 0, &ack(1000));
        }
        assert_eq!(s[0].cwnd, 11_000);
        s[0].bytes_in_flight = 11_000;
        assert_eq!(cc.ssthresh_after_loss(&s, 0, SimTime::ZERO), 5_500);
        assert_eq!(linux().ssthresh_after_loss(&s, 0, SimTime::ZERO), 5_000);
    }
}
