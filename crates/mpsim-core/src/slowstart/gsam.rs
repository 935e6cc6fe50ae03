//! GSAM, Gentle Slow stArt for MPTCP (Dong et al., IEEE Access 2019,
//! Alg. 1, Eqs. 1–3 and 15).
//!
//! Each subflow grows as in standard slow start until its smoothed RTT
//! reaches the threshold K; from then on each one-segment increase is scaled
//! to CWND^(−∂) segments (Eq. 3) with ∂ = (RTT − K)/RTT (Eq. 2), so growth
//! slows as queueing delay builds. K is either given, or derived from the
//! bottleneck buffer B, its capacity C and the base RTT D by Eq. 15.

use super::SsFactory;
use crate::error::Problems;
use super::{SlowStart, Standard, StandardConfig};
use crate::cc::SubflowCc;
use crate::math;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GsamConfig {
    /// The RTT threshold K, nanoseconds. When given, the path fields below
    /// are not used.
    pub k_ns: Option<u64>,
    /// C, the bottleneck capacity, bit/s (the paper's testbed: 5 Mbit/s).
    pub bottleneck_rate_bps: u64,
    /// B, the bottleneck buffer, packets of one MSS (the authors' code:
    /// 20 packets of 1400 bytes). Give this or `bottleneck_buffer_bytes`,
    /// not both; with neither, 20 packets.
    pub bottleneck_buffer_pkts: Option<u32>,
    /// B, the bottleneck buffer, bytes.
    pub bottleneck_buffer_bytes: Option<u64>,
    /// D, the round-trip time without queueing, nanoseconds; `None` for the
    /// subflow's smallest RTT sample (Alg. 1 lines 2–4 update K whenever
    /// min_RTT falls).
    pub base_rtt_ns: Option<u64>,
}

impl Default for GsamConfig {
    fn default() -> Self {
        GsamConfig {
            k_ns: None,
            bottleneck_rate_bps: 5_000_000,
            bottleneck_buffer_pkts: None,
            bottleneck_buffer_bytes: None,
            base_rtt_ns: None,
        }
    }
}

/// B when neither buffer field is given, packets.
pub const DEFAULT_BUFFER_PKTS: u32 = 20;

impl GsamConfig {
    /// Eq. 15: D ≤ K ≤ (B + C·D)/(2C), taking the upper end (as the
    /// authors' ns-3 code does: `K = (buffersize + C·RTT_min)/(2C)`), but
    /// never below D (Eq. 8: K is a round-trip time, and no RTT is shorter
    /// than the one without queueing). When B < C·D the upper end falls
    /// below D and K = D. Nanoseconds; `mss` converts a buffer in packets.
    pub fn k_from_path_ns(&self, d_ns: u64, mss: u32) -> u64 {
        let b_bytes = match (self.bottleneck_buffer_bytes, self.bottleneck_buffer_pkts) {
            (Some(b), _) => b,
            (None, Some(p)) => p as u64 * mss as u64,
            (None, None) => DEFAULT_BUFFER_PKTS as u64 * mss as u64,
        };
        // B/C in nanoseconds.
        let b_over_c_ns = (b_bytes as u128 * 8 * 1_000_000_000 / self.bottleneck_rate_bps.max(1) as u128) as u64;
        let upper = (b_over_c_ns + d_ns) / 2;
        upper.max(d_ns)
    }
}

impl SsFactory for GsamConfig {
    type Strategy = Gsam;

    fn validate(&self, path: &str, problems: &mut Problems) {
        if self.k_ns == Some(0) {
            problems.out_of(format!("{path}.k_ns"), 0, "a positive time");
        }
        if self.bottleneck_rate_bps == 0 {
            problems.out_of(format!("{path}.bottleneck_rate_bps"), 0, "a positive rate in bit/s");
        }
        if let (Some(pkts), Some(bytes)) = (self.bottleneck_buffer_pkts, self.bottleneck_buffer_bytes) {
            problems.say(
                format!("{path}.bottleneck_buffer_bytes"),
                format!("{bytes} (with bottleneck_buffer_pkts = {pkts})"),
                "one of bottleneck_buffer_pkts and bottleneck_buffer_bytes",
                "give the buffer in packets or in bytes, not both",
            );
        }
        if self.base_rtt_ns == Some(0) {
            problems.out_of(format!("{path}.base_rtt_ns"), 0, "a positive time");
        }
    }

    fn build(&self, standard: StandardConfig, n_subflows: usize) -> Gsam {
        Gsam::new(*self, standard, n_subflows)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Gsam {
    pub config: GsamConfig,
    /// The profile's standard slow start: the growth that GSAM scales.
    pub standard: Standard,
    /// Per subflow, the fraction of a byte of increase not yet added to cwnd.
    fraction: Vec<f64>,
}

impl Gsam {
    pub fn new(config: GsamConfig, standard: StandardConfig, n_subflows: usize) -> Self {
        Gsam {
            config,
            standard: Standard::new(standard),
            fraction: vec![0.0; n_subflows],
        }
    }

    /// Grows the per-subflow state to `n` subflows (a subflow added after
    /// the build); no allocation otherwise.
    fn size(&mut self, n: usize) {
        if self.fraction.len() < n {
            self.fraction.resize(n, 0.0);
        }
    }

    /// K for a subflow, nanoseconds (`None` before its first RTT sample
    /// when K is derived from the measured base RTT).
    pub fn threshold_ns(&self, sf: &SubflowCc) -> Option<u64> {
        if let Some(k) = self.config.k_ns {
            return Some(k);
        }
        let d = match self.config.base_rtt_ns {
            Some(d) => d,
            None if sf.min_rtt.nanos() > 0 => sf.min_rtt.nanos(),
            None => return None,
        };
        Some(self.config.k_from_path_ns(d, sf.mss))
    }
}

impl SlowStart for Gsam {
    /// Alg. 1. Smooth_RTT is the subflow's RFC 6298 SRTT (Eq. 1 with the new
    /// sample on the right-hand side; α = 1/8). Below K, the standard
    /// growth; at or above it, each segment's worth of standard growth is
    /// scaled by CWND^(−∂), CWND in segments, ∂ = (RTT − K)/RTT from the
    /// latest sample, kept in [0, 1) (a sample below K while SRTT is above
    /// gives ∂ = 0, the standard growth).
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked_bytes: u64, now: SimTime) -> u64 {
        self.size(s.len());
        let before = s[r].cwnd;
        let rest = self.standard.on_ack(s, r, acked_bytes, now);
        let Some(k) = self.threshold_ns(&s[r]) else { return rest };
        let srtt = s[r].srtt.nanos();
        // Line 5: Smooth_RTT ≥ K.
        if srtt == 0 || srtt < k {
            return rest;
        }
        let rtt = if s[r].latest_rtt.nanos() > 0 {
            s[r].latest_rtt.nanos()
        } else {
            srtt
        };
        // Line 6, Eq. 2.
        let d = (rtt.saturating_sub(k)) as f64 / rtt as f64;
        // Line 7, Eq. 3: CWND += CWND^(−∂) per segment's worth of growth.
        let w_segments = (before as f64 / s[r].mss as f64).max(1.0);
        let grown = (s[r].cwnd - before) as f64;
        let inc = grown * math::powf(w_segments, -d) + self.fraction[r];
        let whole = inc.floor();
        self.fraction[r] = inc - whole;
        s[r].cwnd = before + whole as u64;
        rest
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.size(s.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::AckCounting;
    use crate::time::SimDuration;

    const MSS: u64 = 1000;

    fn sf(cwnd_pkts: u64, srtt_ms: u64, latest_ms: u64) -> Vec<SubflowCc> {
        let mut sf = SubflowCc::new(MSS as u32, cwnd_pkts * MSS, u64::MAX);
        sf.established = true;
        sf.srtt = SimDuration::from_millis(srtt_ms);
        sf.latest_rtt = SimDuration::from_millis(latest_ms);
        sf.min_rtt = SimDuration::from_millis(100);
        vec![sf]
    }

    fn gsam(k_ms: u64, counting: AckCounting) -> Gsam {
        Gsam::new(
            GsamConfig {
                k_ns: Some(k_ms * 1_000_000),
                ..GsamConfig::default()
            },
            StandardConfig {
                counting,
                abc_limit_mss: None,
            },
            1,
        )
    }

    #[test]
    fn increment_per_ack_is_cwnd_to_the_minus_d() {
        // K = 100 ms, SRTT 150 ms ≥ K, latest RTT 200 ms: ∂ = (200 − 100)/200
        // = 0.5; cwnd 16 segments: 16^(−0.5) = 0.25 segment = 250 bytes.
        for counting in [AckCounting::Bytes, AckCounting::PerAck] {
            let mut g = gsam(100, counting);
            let mut s = sf(16, 150, 200);
            g.on_ack(&mut s, 0, MSS, SimTime::ZERO);
            assert_eq!(s[0].cwnd, 16 * MSS + 250);
        }
        // cwnd 100 segments, K = 50 ms, RTT 200 ms: ∂ = 0.75,
        // 100^(−0.75) = 0.0316228 segment; ten ACKs add 316 bytes.
        let mut g = gsam(50, AckCounting::Bytes);
        let mut s = sf(100, 150, 200);
        for _ in 0..10 {
            g.on_ack(&mut s, 0, MSS, SimTime::ZERO);
        }
        // The window moves by 31–32 bytes per ACK; the fractions are kept.
        let grown = s[0].cwnd - 100 * MSS;
        assert!((315..=317).contains(&grown), "{grown}");
    }

    #[test]
    fn below_k_the_growth_is_standard() {
        let mut g = gsam(100, AckCounting::Bytes);
        let mut s = sf(16, 99, 200);
        g.on_ack(&mut s, 0, 2 * MSS, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 18 * MSS);
        // SRTT above K but the latest sample below it: ∂ = 0, standard.
        let mut s = sf(16, 120, 90);
        g.on_ack(&mut s, 0, 2 * MSS, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 18 * MSS);
    }

    #[test]
    fn k_from_eq_15() {
        let cfg = GsamConfig {
            bottleneck_rate_bps: 5_000_000,
            bottleneck_buffer_pkts: Some(47),
            ..GsamConfig::default()
        };
        // B = 47·1400 B = 526400 bit: B/C = 105.28 ms; D = 100 ms:
        // K = (105.28 + 100)/2 = 102.64 ms.
        assert_eq!(cfg.k_from_path_ns(100_000_000, 1400), 102_640_000);
        // B < C·D: 20 packets, B/C = 44.8 ms, (44.8 + 100)/2 = 72.4 ms < D:
        // K = D.
        let small = GsamConfig {
            bottleneck_buffer_bytes: Some(28_000),
            ..cfg
        };
        assert_eq!(small.k_from_path_ns(100_000_000, 1400), 100_000_000);
        // The measured min RTT stands for D unless D is given.
        let g = Gsam::new(cfg, StandardConfig::default(), 1);
        let s = sf(10, 100, 100);
        assert_eq!(g.threshold_ns(&s[0]), Some(cfg.k_from_path_ns(100_000_000, 1000)));
        let g = Gsam::new(
            GsamConfig {
                base_rtt_ns: Some(40_000_000),
                ..cfg
            },
            StandardConfig::default(),
            1,
        );
        assert_eq!(g.threshold_ns(&s[0]), Some((47 * 8_000 * 1000 / 5 + 40_000_000) / 2));
    }
}
