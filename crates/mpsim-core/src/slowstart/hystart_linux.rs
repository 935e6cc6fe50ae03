//! Linux CUBIC's HyStart (Ha & Rhee 2011, "Taming the elephants: New TCP
//! slow start"; Linux 6.x `net/ipv4/tcp_cubic.c`): standard slow start that
//! ends, with ssthresh = cwnd, when a round's ACKs arrive as one long
//! closely spaced train or when the round's RTT rises over the smallest
//! RTT seen. It is not RFC 9406 HyStart++ ([`super::hystart`]): no
//! conservative phase, and the baseline is the flow's minimum RTT, not the
//! last round's.
//!
//! Linux runs it inside CUBIC (`cubictcp_acked` → `hystart_update`), on
//! every ACK that brings an RTT sample, before the window grows
//! (`tcp_clean_rtx_queue` calls `pkts_acked` before `tcp_cong_avoid`). Here
//! it is a slow-start strategy, so it can sit beside any congestion
//! avoidance; the `linux` profile turns it on with CUBIC only. Each subflow
//! runs its own, as each Linux subflow socket runs its own CUBIC.
//!
//! Readings of the kernel that shape this file:
//! - `hystart_update` runs while `!found` and in slow start; it starts a
//!   new round whatever the window, and tests only from cwnd ≥
//!   `hystart_low_window` on. This is Linux since 25c1a9ca53db ("tcp_cubic:
//!   fix incorrect HyStart round start detection", 6.14, backported to the
//!   stable 6.x series); from 4e1fddc98d25 (2022) until then the window
//!   test came first, so no round was tracked below 16 segments.
//! - A round ends when SND.UNA is strictly after `end_seq` (`after()`),
//!   i.e. on the first ACK beyond the SND.NXT of the round's start.
//! - `delay_min` is the smallest RTT sample; only `bictcp_reset` (at init
//!   and on entering TCP_CA_Loss, a retransmission timeout) clears it, with
//!   `found`. So `found` stays set for the flow's life unless a timeout
//!   comes, and after a timeout HyStart runs again in the new slow start.
//! - `cubictcp_acked` drops samples during the first second of a CUBIC
//!   epoch (`epoch_start` set and less than HZ ago). An epoch starts only
//!   in congestion avoidance (`bictcp_update`) and is cleared by a loss, so
//!   in slow start — the initial one of a fresh flow, or one after a
//!   timeout (`bictcp_reset` clears it) — nothing is dropped; this strategy
//!   sees only slow-start ACKs and drops none.

use super::SsFactory;
use crate::error::Problems;
use super::{SlowStart, Standard, StandardConfig};
use crate::cc::SubflowCc;
use crate::time::SimTime;

/// The module parameters and constants of Linux 6.x `tcp_cubic.c` that
/// HyStart reads; the defaults are the kernel's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HyStartLinuxConfig {
    /// `hystart_detect` bit HYSTART_ACK_TRAIN: detect by ACK trains (on).
    pub ack_train: bool,
    /// `hystart_detect` bit HYSTART_DELAY: detect by RTT rise (on).
    pub delay: bool,
    /// `hystart_low_window`, segments: HyStart acts only from this cwnd on (16).
    pub low_window_segments: u32,
    /// `hystart_ack_delta_us`, microseconds: ACKs at most this far apart
    /// extend a train (2 000).
    pub ack_delta_us: u64,
    /// HYSTART_MIN_SAMPLES: RTT samples a round takes before its minimum is
    /// compared (8).
    pub min_samples: u32,
    /// HYSTART_DELAY_MIN, microseconds: the least RTT rise that ends slow start (4 000).
    pub delay_thresh_min_us: u64,
    /// HYSTART_DELAY_MAX, microseconds: the largest RTT rise ever required (16 000).
    pub delay_thresh_max_us: u64,
    /// `sk_gso_max_size`, bytes: `hystart_ack_delay` allows for one GSO
    /// burst at each end (65 536, GSO_LEGACY_MAX_SIZE, a device's default).
    pub gso_max_size_bytes: u64,
}

impl Default for HyStartLinuxConfig {
    /// Linux 6.x `tcp_cubic.c` module defaults (`hystart_detect` = 3).
    fn default() -> Self {
        HyStartLinuxConfig {
            ack_train: true,
            delay: true,
            low_window_segments: 16,
            ack_delta_us: 2_000,
            min_samples: 8,
            delay_thresh_min_us: 4_000,
            delay_thresh_max_us: 16_000,
            gso_max_size_bytes: 65_536,
        }
    }
}

/// `hystart_ack_delay` caps its allowance at USEC_PER_MSEC.
const ACK_DELAY_CAP_US: u64 = 1_000;

impl SsFactory for HyStartLinuxConfig {
    type Strategy = HyStartLinux;

    /// The clamp of the delay threshold: its upper bound not below its lower.
    fn validate(&self, path: &str, problems: &mut Problems) {
        super::check_delay_thresh(path, self.delay_thresh_min_us, self.delay_thresh_max_us, problems);
    }

    fn build(&self, standard: StandardConfig, n_subflows: usize) -> HyStartLinux {
        HyStartLinux::new(*self, standard, n_subflows)
    }
}

impl HyStartLinuxConfig {
    /// HYSTART_DELAY_THRESH(delay_min >> 3): the RTT rise over `delay_min`
    /// that ends slow start, microseconds.
    pub fn delay_thresh_us(&self, delay_min_us: u64) -> u64 {
        (delay_min_us >> 3).clamp(self.delay_thresh_min_us, self.delay_thresh_max_us)
    }

    /// `hystart_ack_delay`, microseconds: min(1 ms, 4 · sk_gso_max_size /
    /// sk_pacing_rate). Linux computes `sk_pacing_rate` on every socket,
    /// paced or not (`tcp_update_pacing_rate`): ratio · cwnd · MSS / SRTT.
    /// So the allowance is 1 ms unless that rate exceeds 4 · 64 KiB per ms
    /// (2.1 Gbit/s), and 0 before any SRTT (Linux then skips the division
    /// and the rate is enormous).
    pub fn ack_delay_us(&self, cwnd_bytes: u64, ssthresh_bytes: u64, srtt_us: u64) -> u64 {
        if srtt_us == 0 || cwnd_bytes == 0 {
            return 0;
        }
        let ratio = crate::cc::linux_pacing_ratio_percent(cwnd_bytes, ssthresh_bytes);
        // 4 · gso / (cwnd · ratio/100 / srtt), in µs.
        let us = (self.gso_max_size_bytes as u128 * 4 * 100 * srtt_us as u128) / (cwnd_bytes as u128 * ratio as u128);
        (us as u64).min(ACK_DELAY_CAP_US)
    }
}

/// How HyStart ended slow start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HyStartLinuxDetection {
    /// LINUX_MIB_TCPHYSTARTTRAINDETECT.
    AckTrain,
    /// LINUX_MIB_TCPHYSTARTDELAYDETECT.
    Delay,
}

/// Linux HyStart state of one subflow (`struct bictcp`'s HyStart fields).
/// Times are microseconds of simulated time, as the kernel's
/// `bictcp_clock_us`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HyStartLinuxState {
    /// `found`: slow start was ended by HyStart; it stays set until a
    /// retransmission timeout.
    pub found: bool,
    /// `delay_min`, microseconds: the smallest RTT sample; 0 before any.
    pub delay_min_us: u64,
    /// `round_start`, µs: when the current round began.
    pub round_start_us: u64,
    /// `last_ack`, µs: the last ACK of the round's train (not moved once an
    /// ACK comes more than `ack_delta_us` after it: the train is broken).
    pub last_ack_us: u64,
    /// `end_seq`: SND.NXT at the round's start; the round ends when SND.UNA
    /// passes it.
    pub end_seq: u64,
    /// `curr_rtt`, µs: the smallest RTT sample of the round; `u64::MAX` before any.
    pub curr_rtt_us: u64,
    /// `sample_cnt`: RTT samples of the round, counted up to `min_samples`.
    pub sample_cnt: u32,
    /// The subflow's `ca_rtt_samples` at the last ACK seen: a larger count
    /// means the current ACK brought a sample.
    pub rtt_samples_seen: u64,
    /// The subflow's `loss_events` at the last ACK seen.
    pub loss_events_seen: u64,
    /// Rounds started (`bictcp_hystart_reset` calls from `hystart_update`).
    pub rounds: u64,
    /// The last detection: how, when, and cwnd (bytes) then, which became ssthresh.
    pub detection: Option<HyStartLinuxDetection>,
    pub detected_at: Option<SimTime>,
    pub cwnd_at_detection: u64,
}

impl HyStartLinuxState {
    fn new() -> Self {
        HyStartLinuxState {
            curr_rtt_us: u64::MAX,
            ..Default::default()
        }
    }

    /// `bictcp_hystart_reset`: a round starts now and ends when SND.UNA
    /// passes `snd_nxt`.
    fn start_round(&mut self, now_us: u64, snd_nxt: u64) {
        self.round_start_us = now_us;
        self.last_ack_us = now_us;
        self.end_seq = snd_nxt;
        self.curr_rtt_us = u64::MAX;
        self.sample_cnt = 0;
    }
}

/// Linux HyStart on every subflow of a connection, each on its own.
#[derive(Clone, Debug)]
pub struct HyStartLinux {
    pub config: HyStartLinuxConfig,
    /// The profile's slow start, which does the growing (Linux's
    /// `tcp_slow_start`).
    pub standard: Standard,
    /// Per-subflow state, indexed like the subflows.
    pub state: Vec<HyStartLinuxState>,
}

fn micros(t: SimTime) -> u64 {
    t.nanos() / 1_000
}

impl HyStartLinux {
    pub fn new(config: HyStartLinuxConfig, standard: StandardConfig, n_subflows: usize) -> Self {
        HyStartLinux {
            config,
            standard: Standard::new(standard),
            state: vec![HyStartLinuxState::new(); n_subflows],
        }
    }

    fn size(&mut self, n: usize) {
        if self.state.len() < n {
            self.state.resize(n, HyStartLinuxState::new());
        }
    }

    /// `cubictcp_acked` for an ACK of subflow `r` in slow start, before the
    /// window grows; it may end slow start by setting ssthresh = cwnd.
    fn observe(&mut self, sf: &mut SubflowCc, r: usize, now: SimTime) {
        self.size(r + 1);
        let cfg = self.config;
        let st = &mut self.state[r];
        let now_us = micros(now);
        if sf.loss_events != st.loss_events_seen {
            st.loss_events_seen = sf.loss_events;
            // Back in slow start after a loss: in mpsim only a timeout does
            // that (fast recovery ends with cwnd = ssthresh). Linux's
            // `cubictcp_state(TCP_CA_Loss)`: `bictcp_reset` clears
            // delay_min and found, `bictcp_hystart_reset` starts a round.
            st.found = false;
            st.delay_min_us = 0;
            st.start_round(now_us, sf.snd_nxt);
        }
        // `cubictcp_acked`: "Some calls are for duplicates without timestamps".
        // The sample is Linux's `ack_sample.rtt_us`: the newest segment the
        // ACK acknowledged or SACKed, not the echoed timestamp (the oldest).
        if sf.ca_rtt_samples == st.rtt_samples_seen {
            return;
        }
        st.rtt_samples_seen = sf.ca_rtt_samples;
        // The sample in µs, at least 1 (`if (delay == 0) delay = 1`).
        let delay_us = (sf.ca_rtt.nanos() / 1_000).max(1);
        if st.delay_min_us == 0 || st.delay_min_us > delay_us {
            st.delay_min_us = delay_us;
        }
        if st.found || !sf.in_slow_start() {
            return;
        }
        // `hystart_update`: rounds are tracked at any window, the tests
        // only from `hystart_low_window` on.
        if sf.snd_una > st.end_seq {
            st.start_round(now_us, sf.snd_nxt);
            st.rounds += 1;
        }
        if sf.cwnd < cfg.low_window_segments as u64 * sf.mss as u64 {
            return;
        }
        let mut detection = None;
        if cfg.ack_train && now_us.saturating_sub(st.last_ack_us) <= cfg.ack_delta_us {
            st.last_ack_us = now_us;
            let ack_delay = cfg.ack_delay_us(sf.cwnd, sf.ssthresh, sf.srtt.nanos() / 1_000);
            // Halved because mpsim's senders do not pace
            // (`sk_pacing_status == SK_PACING_NONE`): an unpaced round's
            // train is expected to span about half the minimum RTT.
            let threshold = (st.delay_min_us + ack_delay) >> 1;
            if now_us - st.round_start_us > threshold {
                detection = Some(HyStartLinuxDetection::AckTrain);
            }
        }
        if cfg.delay {
            st.curr_rtt_us = st.curr_rtt_us.min(delay_us);
            // The minimum is compared from the sample after the first
            // `min_samples` on, and keeps taking in later samples.
            if st.sample_cnt < cfg.min_samples {
                st.sample_cnt += 1;
            } else if st.curr_rtt_us > st.delay_min_us + cfg.delay_thresh_us(st.delay_min_us) {
                detection = detection.or(Some(HyStartLinuxDetection::Delay));
            }
        }
        if detection.is_some() {
            st.found = true;
            st.detection = detection;
            st.detected_at = Some(now);
            st.cwnd_at_detection = sf.cwnd;
            sf.ssthresh = sf.cwnd;
        }
    }
}

impl SlowStart for HyStartLinux {
    /// HyStart first, then the profile's slow start (`tcp_slow_start`) for
    /// what is left of slow start; an ACK on which HyStart ends slow start
    /// goes whole to congestion avoidance, as `cubictcp_cong_avoid` finds
    /// cwnd = ssthresh and skips `tcp_slow_start`.
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked: u64, now: SimTime) -> u64 {
        self.observe(&mut s[r], r, now);
        if !s[r].in_slow_start() {
            return acked;
        }
        self.standard.on_ack(s, r, acked, now)
    }

    /// `pkts_acked` runs whether or not the window limits the sender.
    fn on_ack_without_growth(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.observe(&mut s[r], r, now);
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.size(s.len());
    }
}

/// The scenario's `tcp.hystart_linux`: `false` (off), `true` (on with the
/// kernel's constants) or a table of constants to override (on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartLinuxOption {
    Off,
    On(HyStartLinuxConfig),
}

impl HyStartLinuxOption {
    /// The constants when on.
    pub fn config(self) -> Option<HyStartLinuxConfig> {
        match self {
            HyStartLinuxOption::Off => None,
            HyStartLinuxOption::On(c) => Some(c),
        }
    }
}

impl serde::Serialize for HyStartLinuxOption {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            HyStartLinuxOption::Off => s.serialize_bool(false),
            HyStartLinuxOption::On(c) => c.serialize(s),
        }
    }
}

impl<'de> serde::Deserialize<'de> for HyStartLinuxOption {
    /// A bool or a table; a table's fields are checked by name (an unknown
    /// one is an error at its path).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = HyStartLinuxOption;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("true, false or a table of HyStart constants")
            }
            fn visit_bool<E: serde::de::Error>(self, on: bool) -> Result<Self::Value, E> {
                Ok(if on {
                    HyStartLinuxOption::On(HyStartLinuxConfig::default())
                } else {
                    HyStartLinuxOption::Off
                })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let de = serde::de::value::MapAccessDeserializer::new(map);
                Ok(HyStartLinuxOption::On(serde::Deserialize::deserialize(de)?))
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    const MSS: u64 = 1000;

    /// One subflow driven ACK by ACK, each acknowledging one segment. The
    /// sender keeps its window full: before each ACK, SND.NXT = SND.UNA +
    /// cwnd of the previous one. With 16 segments initially the first round
    /// (from the first ACK) holds ACKs 1–16, the second ACKs 17–48, the
    /// third ACKs 49–112.
    struct Script {
        ss: HyStartLinux,
        s: Vec<SubflowCc>,
        now: SimTime,
        acks: u32,
    }

    impl Script {
        fn new(config: HyStartLinuxConfig, initial_cwnd_segments: u64) -> Self {
            let mut sf = SubflowCc::new(MSS as u32, initial_cwnd_segments * MSS, u64::MAX);
            sf.established = true;
            Script {
                ss: HyStartLinux::new(config, StandardConfig::default(), 1),
                s: vec![sf],
                now: SimTime(1_000_000_000),
                acks: 0,
            }
        }

        fn linux() -> Self {
            Script::new(HyStartLinuxConfig::default(), 16)
        }

        /// One ACK `gap_us` after the previous, with an RTT sample of
        /// `rtt_us` (the SRTT follows it); returns the bytes left for
        /// congestion avoidance.
        fn ack(&mut self, rtt_us: u64, gap_us: u64) -> u64 {
            let sf = &mut self.s[0];
            sf.snd_nxt = sf.snd_una + sf.cwnd;
            sf.snd_una += MSS;
            sf.ca_rtt = SimDuration::from_micros(rtt_us);
            sf.srtt = sf.ca_rtt;
            sf.ca_rtt_samples += 1;
            self.now += SimDuration::from_micros(gap_us);
            self.acks += 1;
            self.ss.on_ack(&mut self.s, 0, MSS, self.now)
        }

        fn acks(&mut self, n: u32, rtt_us: u64, gap_us: u64) {
            for _ in 0..n {
                self.ack(rtt_us, gap_us);
            }
        }

        fn st(&self) -> &HyStartLinuxState {
            &self.ss.state[0]
        }
        fn cwnd(&self) -> u64 {
            self.s[0].cwnd
        }
    }

    #[test]
    fn delay_threshold_is_an_eighth_of_delay_min_clamped_to_4_and_16_ms() {
        let c = HyStartLinuxConfig::default();
        assert_eq!(c.delay_thresh_us(100_000), 12_500);
        assert_eq!(c.delay_thresh_us(20_000), 4_000);
        assert_eq!(c.delay_thresh_us(200_000), 16_000);
    }

    #[test]
    fn ack_delay_is_four_gso_bursts_at_the_pacing_rate_capped_at_1_ms() {
        let c = HyStartLinuxConfig::default();
        // 16 segments per 100 ms: 4·64 KiB at 2·160 kB/s is 819 ms, capped.
        assert_eq!(c.ack_delay_us(16 * MSS, u64::MAX, 100_000), 1_000);
        // 1 MB per 1 ms in slow start (200 %): 4·65 536 B / 2 GB/s = 131 µs.
        assert_eq!(c.ack_delay_us(1_000_000, u64::MAX, 1_000), 131);
        // From ssthresh/2 on the rate is 120 %: 218 µs.
        assert_eq!(c.ack_delay_us(1_000_000, 2_000_000, 1_000), 218);
        assert_eq!(c.ack_delay_us(1_000_000, u64::MAX, 0), 0);
    }

    #[test]
    fn flat_rtt_and_spread_acks_never_end_slow_start() {
        let mut t = Script::linux();
        // Three rounds at 100 ms, ACKs 2.001 ms apart: the train breaks on
        // the second ACK of every round.
        t.acks(112, 100_000, 2_001);
        assert_eq!(t.cwnd(), 128 * MSS);
        assert!(!t.st().found);
        assert_eq!(t.st().rounds, 3);
        assert_eq!(t.st().delay_min_us, 100_000);
        assert_eq!(t.s[0].ssthresh, u64::MAX);
        // A fourth round just at the threshold (100 + 12.5 ms) is not above it.
        t.acks(128, 112_500, 2_001);
        assert!(!t.st().found);
        assert_eq!(t.cwnd(), 256 * MSS);
    }

    #[test]
    fn delay_rise_ends_slow_start_on_the_ninth_sample_of_the_round() {
        let mut t = Script::linux();
        t.acks(16, 100_000, 3_000);
        assert_eq!((t.st().rounds, t.cwnd()), (1, 32 * MSS));
        // Round 2 from ACK 17, every sample 1 µs above 100 + 12.5 ms. The
        // first eight only fill sample_cnt (HYSTART_MIN_SAMPLES).
        t.acks(8, 112_501, 3_000);
        assert_eq!(t.st().rounds, 2);
        assert!(!t.st().found);
        assert_eq!(t.cwnd(), 40 * MSS);
        // ACK 25 tests the minimum before it grows the window: ssthresh =
        // cwnd = 40 segments, and its segment goes to congestion avoidance.
        assert_eq!(t.ack(112_501, 3_000), MSS);
        assert!(t.st().found);
        assert_eq!(t.st().detection, Some(HyStartLinuxDetection::Delay));
        assert_eq!((t.cwnd(), t.s[0].ssthresh), (40 * MSS, 40 * MSS));
        assert_eq!(t.st().cwnd_at_detection, 40 * MSS);
        assert_eq!(t.st().detected_at, Some(t.now));
    }

    #[test]
    fn the_round_minimum_takes_in_samples_after_the_eighth() {
        let mut t = Script::linux();
        t.acks(16, 100_000, 3_000);
        // Eight high samples, then a ninth at the base: the minimum over all
        // nine is not above the threshold.
        t.acks(8, 130_000, 3_000);
        t.ack(100_000, 3_000);
        assert!(!t.st().found);
        t.acks(23, 130_000, 3_000);
        assert!(!t.st().found);
        // Round 3 from ACK 49: its ninth sample ends slow start at 16 + 56.
        t.acks(8, 130_000, 3_000);
        assert!(!t.st().found);
        t.ack(130_000, 3_000);
        assert_eq!(t.st().rounds, 3);
        assert_eq!(t.s[0].ssthresh, 72 * MSS);
    }

    #[test]
    fn ack_train_longer_than_half_the_minimum_rtt_ends_slow_start() {
        let mut t = Script::linux();
        // Round 1 (ACKs 1–16) spans 30 ms, under (100 + 1) / 2 = 50.5 ms.
        t.acks(16, 100_000, 2_000);
        assert!(!t.st().found);
        // Round 2 starts at ACK 17; ACK 17 + j is 2j ms into it. 52 ms >
        // 50.5 ms first at j = 26: ACK 43, cwnd 16 + 42 segments.
        t.acks(26, 100_000, 2_000);
        assert!(!t.st().found);
        assert_eq!(t.cwnd(), 58 * MSS);
        assert_eq!(t.ack(100_000, 2_000), MSS);
        assert_eq!(t.acks, 43);
        assert_eq!(t.st().detection, Some(HyStartLinuxDetection::AckTrain));
        assert_eq!((t.cwnd(), t.s[0].ssthresh), (58 * MSS, 58 * MSS));
        // With the train detection off the same ACKs keep slow start going.
        let mut t = Script::new(
            HyStartLinuxConfig {
                ack_train: false,
                ..Default::default()
            },
            16,
        );
        t.acks(43, 100_000, 2_000);
        assert!(!t.st().found);
        assert_eq!(t.cwnd(), 59 * MSS);
    }

    #[test]
    fn no_exit_below_16_segments() {
        let mut t = Script::new(HyStartLinuxConfig::default(), 10);
        // The first sample sets delay_min = 100 ms; then every sample is
        // 200 ms. ACK 1 starts a round (to SND.NXT 10 000), but ACKs 1–6
        // find cwnd 10–15 segments: no sample counts, no test.
        t.ack(100_000, 10);
        t.acks(5, 200_000, 10);
        assert_eq!((t.st().rounds, t.st().sample_cnt), (1, 0));
        assert_eq!(t.cwnd(), 16 * MSS);
        // ACKs 7–10 count four samples; ACK 11 (SND.UNA 11 000) starts the
        // next round and its count afresh, so the round's 9th sample is
        // ACK 19, which ends slow start at 10 + 18 segments.
        t.acks(4, 200_000, 10);
        assert_eq!((t.st().rounds, t.st().sample_cnt), (1, 4));
        t.acks(8, 200_000, 10);
        assert_eq!(t.st().rounds, 2);
        assert!(!t.st().found);
        t.ack(200_000, 10);
        assert_eq!(t.acks, 19);
        assert_eq!(t.s[0].ssthresh, 28 * MSS);
    }

    #[test]
    fn found_stays_set_until_a_timeout_which_restarts_hystart() {
        let mut t = Script::linux();
        t.acks(16, 100_000, 3_000);
        t.acks(9, 120_000, 3_000);
        assert!(t.st().found);
        // ssthresh raised again by hand: HyStart does not act twice.
        t.s[0].ssthresh = u64::MAX;
        t.acks(40, 200_000, 3_000);
        assert_eq!(t.s[0].ssthresh, u64::MAX);
        // A timeout (a loss, then slow start again): delay_min and found
        // are cleared; the new minimum is 150 ms, and a flat 150 ms stays.
        t.s[0].loss_events += 1;
        t.s[0].cwnd = 16 * MSS;
        t.s[0].ssthresh = 1000 * MSS;
        t.acks(100, 150_000, 3_000);
        assert!(!t.st().found);
        assert_eq!(t.st().delay_min_us, 150_000);
        // 150 + 16 ms: 150/8 = 18.75 ms, clamped to HYSTART_DELAY_MAX.
        t.acks(200, 166_001, 3_000);
        assert!(t.st().found);
    }
}
