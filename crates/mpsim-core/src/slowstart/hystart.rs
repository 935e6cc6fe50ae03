//! HyStart++ (RFC 9406): standard slow start that watches the round-trip
//! time round by round and, when it rises, leaves for Conservative Slow
//! Start (CSS, RFC 9406 §4.2; not mpsim's coupled slow start `css`), whose
//! growth is divided by CSS_GROWTH_DIVISOR; after CSS_ROUNDS rounds of CSS
//! it sets ssthresh = cwnd and congestion avoidance takes over, before any
//! loss.
//!
//! It runs on each subflow on its own (an MPTCP connection's subflows each
//! run their own HyStart++), only in the subflow's initial slow start (RFC
//! 9406 §4.3: "only for the initial slow start ... fall back to using
//! standard slow start for the remainder of the connection lifetime"); once
//! the subflow has left it (loss, or CSS done) growth is the profile's
//! standard slow start.
//!
//! Rounds (RFC 9406 §4.2): windowEnd is SND.NXT when the round starts; the
//! round ends on the ACK that acknowledges it. The sender keeps SND.UNA,
//! SND.NXT and its count of RTT samples in [`SubflowCc`], so the strategy
//! needs nothing else from it. The first round starts at the first ACK of
//! data, with windowEnd = SND.NXT then (the initial window), so that round
//! is the initial window's flight.

use super::SsFactory;
use crate::error::Problems;
use super::{SlowStart, Standard, StandardConfig};
use crate::cc::{AckCounting, SubflowCc};
use crate::time::{SimDuration, SimTime};

/// RFC 9406 §4.3 constants; the defaults are the RFC's RECOMMENDED values
/// for a sender that does not pace (mpsim's senders send when the window
/// opens, without pacing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HyStartConfig {
    /// MIN_RTT_THRESH, nanoseconds: the least RTT rise that ends slow start (4 ms).
    pub min_rtt_thresh_ns: u64,
    /// MAX_RTT_THRESH, nanoseconds: the largest RTT rise ever required (16 ms).
    pub max_rtt_thresh_ns: u64,
    /// MIN_RTT_DIVISOR: RttThresh = lastRoundMinRTT / MIN_RTT_DIVISOR before clamping (8).
    pub min_rtt_divisor: u32,
    /// N_RTT_SAMPLE: RTT samples a round needs before its minimum is compared (8).
    pub n_rtt_sample: u32,
    /// CSS_GROWTH_DIVISOR: CSS grows by the slow-start increase divided by it (4; §4.3: at least 2).
    pub css_growth_divisor: u32,
    /// CSS_ROUNDS: rounds of CSS, the partial round of entry included, before ssthresh = cwnd (5).
    pub css_rounds: u32,
    /// L, in MSS: the most bytes one ACK may count towards growth, in slow
    /// start and in CSS. `None` is L = infinity, the RFC's value for a paced
    /// sender; the default 8 is its value for a non-paced one (§4.3).
    pub abc_limit_mss: Option<u32>,
}

impl Default for HyStartConfig {
    /// RFC 9406 §4.3, non-paced.
    fn default() -> Self {
        HyStartConfig {
            min_rtt_thresh_ns: 4_000_000,
            max_rtt_thresh_ns: 16_000_000,
            min_rtt_divisor: 8,
            n_rtt_sample: 8,
            css_growth_divisor: 4,
            css_rounds: 5,
            abc_limit_mss: Some(8),
        }
    }
}

impl SsFactory for HyStartConfig {
    type Strategy = HyStart;

    /// RFC 9406 §4.3's constants.
    fn validate(&self, path: &str, problems: &mut Problems) {
        if self.min_rtt_thresh_ns == 0 {
            problems.out_of(format!("{path}.min_rtt_thresh_ns"), 0, "a positive time");
        } else if self.max_rtt_thresh_ns < self.min_rtt_thresh_ns {
            problems.out_of(
                format!("{path}.max_rtt_thresh_ns"),
                self.max_rtt_thresh_ns,
                format!("at least min_rtt_thresh_ns ({})", self.min_rtt_thresh_ns),
            );
        }
        if self.min_rtt_divisor == 0 {
            problems.out_of(format!("{path}.min_rtt_divisor"), 0, "at least 1");
        }
        if self.n_rtt_sample == 0 {
            problems.out_of(format!("{path}.n_rtt_sample"), 0, "at least 1 sample");
        }
        if self.css_growth_divisor < 2 {
            problems.out_of(
                format!("{path}.css_growth_divisor"),
                self.css_growth_divisor,
                "at least 2 (RFC 9406 §4.3)",
            );
        }
        if self.css_rounds == 0 {
            problems.out_of(format!("{path}.css_rounds"), 0, "at least 1 round");
        }
        if self.abc_limit_mss == Some(0) {
            problems.out_of(format!("{path}.abc_limit_mss"), 0, "at least 1 MSS (null for no limit)");
        }
    }

    fn build(&self, standard: StandardConfig, n_subflows: usize) -> HyStart {
        HyStart::new(*self, standard, n_subflows)
    }
}

impl HyStartConfig {
    /// RFC 9406 §4.2: RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT /
    /// MIN_RTT_DIVISOR, MAX_RTT_THRESH)).
    pub fn rtt_thresh(&self, last_round_min_rtt: SimDuration) -> SimDuration {
        let t = last_round_min_rtt.nanos() / self.min_rtt_divisor as u64;
        SimDuration(t.min(self.max_rtt_thresh_ns).max(self.min_rtt_thresh_ns))
    }
}

/// Where a subflow is in HyStart++.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum HyStartPhase {
    /// Standard slow start with the RTT watched.
    #[default]
    SlowStart,
    /// Conservative Slow Start (RFC 9406 §4.2).
    Conservative,
    /// The initial slow start is over (CSS completed, or a loss): standard
    /// slow start from now on.
    Done,
}

/// HyStart++ state of one subflow (RFC 9406 §4.2 variables).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HyStartState {
    pub phase: HyStartPhase,
    /// windowEnd: the sequence number whose acknowledgement ends the
    /// current round; `None` before the first ACK of data.
    pub window_end: Option<u64>,
    /// lastRoundMinRTT; `None` is infinity.
    pub last_round_min_rtt: Option<SimDuration>,
    /// currentRoundMinRTT; `None` is infinity.
    pub current_round_min_rtt: Option<SimDuration>,
    /// rttSampleCount: RTT samples taken in the current round.
    pub rtt_sample_count: u32,
    /// cssBaselineMinRtt; `None` is infinity.
    pub css_baseline_min_rtt: Option<SimDuration>,
    /// Rounds that ended in CSS, the partial round of entry included.
    pub css_rounds_done: u32,
    /// The subflow's `rtt_samples` at the last ACK seen: a larger count
    /// means the current ACK brought a sample.
    pub rtt_samples_seen: u64,
    /// Bytes of CSS growth not yet added (the remainder of the division by
    /// CSS_GROWTH_DIVISOR), so that CSS grows by exactly 1/divisor of the
    /// counted bytes.
    pub css_carry_bytes: u64,
    /// Rounds completed since the first ACK.
    pub rounds: u64,
    /// Times CSS was entered, and left again because the RTT fell below
    /// cssBaselineMinRtt (a spurious exit).
    pub css_entries: u32,
    pub css_spurious_exits: u32,
    /// When CSS was first entered, and cwnd (bytes) then.
    pub first_css_entry_at: Option<SimTime>,
    pub cwnd_at_first_css_entry: u64,
    /// When CSS ended with ssthresh = cwnd, and that cwnd (bytes).
    pub css_done_at: Option<SimTime>,
    pub cwnd_at_css_done: u64,
}

/// HyStart++ on every subflow of a connection, each on its own.
#[derive(Clone, Debug)]
pub struct HyStart {
    pub config: HyStartConfig,
    /// The profile's slow start: how ACKs are counted (bytes or per ACK),
    /// and the whole growth once HyStart++ is done.
    pub standard: Standard,
    /// Per-subflow state, indexed like the subflows; sized once.
    pub state: Vec<HyStartState>,
}

impl HyStart {
    pub fn new(config: HyStartConfig, standard: StandardConfig, n_subflows: usize) -> Self {
        HyStart {
            config,
            standard: Standard::new(standard),
            state: vec![HyStartState::default(); n_subflows],
        }
    }

    /// Grows the per-subflow state to cover subflow `r` (a subflow added
    /// mid-run may call a hook before `on_subflows_changed`).
    fn size(&mut self, n: usize) {
        if self.state.len() < n {
            self.state.resize(n, HyStartState::default());
        }
    }

    /// Whether subflow `r` is still in its HyStart++ slow start.
    fn active(&mut self, sf: &SubflowCc, r: usize) -> bool {
        self.size(r + 1);
        let st = &mut self.state[r];
        if st.phase != HyStartPhase::Done && sf.left_slow_start {
            // A loss ended the initial slow start (RFC 9406 §4.2: loss in
            // slow start or CSS is handled by loss recovery as usual).
            st.phase = HyStartPhase::Done;
        }
        st.phase != HyStartPhase::Done
    }

    /// RFC 9406 §4.2, per ACK after the window update: the RTT sample, the
    /// delay-increase test (slow start → CSS), the spurious-exit test
    /// (CSS → slow start) and the end of the round (CSS → congestion
    /// avoidance after CSS_ROUNDS rounds).
    fn track(&mut self, sf: &mut SubflowCc, r: usize, now: SimTime) {
        let cfg = self.config;
        let st = &mut self.state[r];
        // §4.2: currentRoundMinRTT = min(currentRoundMinRTT, currRTT); rttSampleCount += 1.
        if sf.rtt_samples != st.rtt_samples_seen {
            st.rtt_samples_seen = sf.rtt_samples;
            let rtt = sf.latest_rtt;
            st.current_round_min_rtt = Some(st.current_round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            st.rtt_sample_count += 1;
        }
        let enough = st.rtt_sample_count >= cfg.n_rtt_sample;
        match st.phase {
            HyStartPhase::SlowStart => {
                if let (true, Some(cur), Some(last)) = (enough, st.current_round_min_rtt, st.last_round_min_rtt) {
                    // §4.2: exit slow start and enter CSS once the round's
                    // minimum RTT exceeds the last round's by RttThresh.
                    if cur >= last + cfg.rtt_thresh(last) {
                        st.css_baseline_min_rtt = Some(cur);
                        st.phase = HyStartPhase::Conservative;
                        st.css_rounds_done = 0;
                        st.css_carry_bytes = 0;
                        st.css_entries += 1;
                        if st.first_css_entry_at.is_none() {
                            st.first_css_entry_at = Some(now);
                            st.cwnd_at_first_css_entry = sf.cwnd;
                        }
                    }
                }
            }
            HyStartPhase::Conservative => {
                // §4.2: a round minimum below the baseline means the exit
                // was spurious: resume slow start, HyStart++ included.
                if let (true, Some(cur), Some(base)) = (enough, st.current_round_min_rtt, st.css_baseline_min_rtt) {
                    if cur < base {
                        st.css_baseline_min_rtt = None;
                        st.phase = HyStartPhase::SlowStart;
                        st.css_rounds_done = 0;
                        st.css_spurious_exits += 1;
                    }
                }
            }
            HyStartPhase::Done => return,
        }
        // §4.2: the round ends when windowEnd is acknowledged; the first
        // round starts at the first ACK.
        let end = *st.window_end.get_or_insert(sf.snd_nxt);
        if sf.snd_una >= end {
            st.rounds += 1;
            if st.phase == HyStartPhase::Conservative {
                // §4.2: "If the transition into CSS happens in the middle of
                // a round, that partial round counts towards the limit. If
                // CSS_ROUNDS rounds are complete, enter congestion avoidance
                // by setting the ssthresh to the current cwnd."
                st.css_rounds_done += 1;
                if st.css_rounds_done >= cfg.css_rounds {
                    sf.ssthresh = sf.cwnd;
                    st.phase = HyStartPhase::Done;
                    st.css_done_at = Some(now);
                    st.cwnd_at_css_done = sf.cwnd;
                    return;
                }
            }
            // §4.2: at the start of each round, lastRoundMinRTT =
            // currentRoundMinRTT, currentRoundMinRTT = infinity,
            // rttSampleCount = 0; windowEnd = SND.NXT.
            st.last_round_min_rtt = st.current_round_min_rtt;
            st.current_round_min_rtt = None;
            st.rtt_sample_count = 0;
            st.window_end = Some(sf.snd_nxt);
        }
    }
}

impl SlowStart for HyStart {
    /// RFC 9406 §4.2: in slow start cwnd += min(N, L·SMSS); in CSS cwnd +=
    /// min(N, L·SMSS)/CSS_GROWTH_DIVISOR, with N the bytes newly
    /// acknowledged (with the profile's per-ACK counting, N is one MSS per
    /// ACK, as ns-3 counts). cwnd stops at ssthresh (RFC 5681 §3.1) and what
    /// the ACK acknowledged beyond it goes to congestion avoidance.
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked: u64, now: SimTime) -> u64 {
        if !self.active(&s[r], r) {
            return self.standard.on_ack(s, r, acked, now);
        }
        let sf = &mut s[r];
        let mss = sf.mss as u64;
        let n = match self.standard.config.counting {
            AckCounting::Bytes => acked,
            AckCounting::PerAck => acked.min(mss),
        };
        let counted = match self.config.abc_limit_mss {
            Some(l) => n.min(l as u64 * mss),
            None => n,
        };
        let st = &mut self.state[r];
        let grow = if st.phase == HyStartPhase::Conservative {
            let total = counted + st.css_carry_bytes;
            let div = self.config.css_growth_divisor as u64;
            st.css_carry_bytes = total % div;
            total / div
        } else {
            counted
        };
        let room = sf.ssthresh.saturating_sub(sf.cwnd);
        let rest = if grow <= room {
            sf.cwnd += grow;
            0
        } else {
            sf.cwnd += room;
            acked.saturating_sub(room)
        };
        self.track(sf, r, now);
        rest
    }

    /// Rounds and RTT samples go on while the window does not limit the
    /// sender (RFC 9406 §4.2 counts every ACK's sample, and a round ends
    /// whenever windowEnd is acknowledged).
    fn on_ack_without_growth(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        if self.active(&s[r], r) {
            self.track(&mut s[r], r, now);
        }
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.size(s.len());
    }

    fn on_exit(&mut self, _s: &mut [SubflowCc], r: usize, _now: SimTime) {
        self.size(r + 1);
        self.state[r].phase = HyStartPhase::Done;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    /// One subflow driven ACK by ACK. Every round carries 10 segments
    /// acknowledged one per ACK, so each round has 10 RTT samples: the
    /// sender's SND.NXT is the end of the current round until its last
    /// ACK, which sees the next round sent (SND.NXT 10 000 bytes further).
    struct Script {
        ss: HyStart,
        s: Vec<SubflowCc>,
        now: SimTime,
    }

    impl Script {
        fn new(config: HyStartConfig, standard: StandardConfig) -> Self {
            let mut sf = SubflowCc::new(MSS as u32, 10 * MSS, u64::MAX);
            sf.established = true;
            Script {
                ss: HyStart::new(config, standard, 1),
                s: vec![sf],
                now: SimTime::ZERO,
            }
        }

        fn rfc() -> Self {
            Script::new(HyStartConfig::default(), StandardConfig::default())
        }

        /// One ACK of `acked` bytes carrying an RTT sample of `rtt_us`
        /// microseconds; returns the bytes left for congestion avoidance.
        fn ack(&mut self, acked: u64, rtt_us: u64) -> u64 {
            let sf = &mut self.s[0];
            sf.snd_una += acked;
            sf.snd_nxt = (sf.snd_una / (10 * MSS) + 1) * 10 * MSS;
            sf.latest_rtt = SimDuration::from_micros(rtt_us);
            sf.rtt_samples += 1;
            self.now += SimDuration::from_millis(10);
            self.ss.on_ack(&mut self.s, 0, acked, self.now)
        }

        /// `n` one-segment ACKs with the same RTT.
        fn acks(&mut self, n: u32, rtt_us: u64) {
            for _ in 0..n {
                self.ack(MSS, rtt_us);
            }
        }

        fn st(&self) -> &HyStartState {
            &self.ss.state[0]
        }
        fn cwnd(&self) -> u64 {
            self.s[0].cwnd
        }
    }

    #[test]
    fn rtt_thresh_is_an_eighth_clamped_to_4_and_16_ms() {
        let c = HyStartConfig::default();
        assert_eq!(c.rtt_thresh(SimDuration(100 * MS)), SimDuration(12_500_000));
        assert_eq!(c.rtt_thresh(SimDuration(20 * MS)), SimDuration(4 * MS));
        assert_eq!(c.rtt_thresh(SimDuration(200 * MS)), SimDuration(16 * MS));
    }

    #[test]
    fn constant_rtt_stays_in_slow_start() {
        let mut t = Script::rfc();
        for _ in 0..6 {
            t.acks(10, 100_000);
        }
        // Six rounds of ten one-segment ACKs: cwnd = 10 + 60 segments.
        assert_eq!(t.cwnd(), 70 * MSS);
        assert_eq!(t.st().phase, HyStartPhase::SlowStart);
        assert_eq!(t.st().rounds, 6);
        assert_eq!(t.st().last_round_min_rtt, Some(SimDuration(100 * MS)));
        assert_eq!(t.s[0].ssthresh, u64::MAX);
        // A rise just short of RttThresh (12.5 ms) does not end slow start.
        t.acks(10, 112_499);
        assert_eq!(t.st().phase, HyStartPhase::SlowStart);
        assert_eq!(t.cwnd(), 80 * MSS);
    }

    #[test]
    fn rtt_rise_enters_conservative_slow_start_and_ends_it_after_five_rounds() {
        let mut t = Script::rfc();
        t.acks(20, 100_000);
        assert_eq!(t.cwnd(), 30 * MSS);
        // Round 3: 112.5 ms = 100 ms + RttThresh (100/8 ms). Seven samples
        // are not enough (N_RTT_SAMPLE = 8).
        t.acks(7, 112_500);
        assert_eq!(t.st().phase, HyStartPhase::SlowStart);
        assert_eq!(t.cwnd(), 37 * MSS);
        // The eighth grows by a full segment, then enters CSS (§4.2 order:
        // update cwnd, then test).
        t.ack(MSS, 112_500);
        assert_eq!(t.st().phase, HyStartPhase::Conservative);
        assert_eq!(t.st().css_baseline_min_rtt, Some(SimDuration(112_500_000)));
        assert_eq!(t.st().cwnd_at_first_css_entry, 38 * MSS);
        // In CSS a segment counts a quarter: 250 bytes per ACK.
        t.ack(MSS, 112_500);
        assert_eq!(t.cwnd(), 38 * MSS + 250);
        t.ack(MSS, 112_500);
        assert_eq!(t.cwnd(), 38 * MSS + 500);
        // The partial round of entry was the first of CSS_ROUNDS = 5.
        assert_eq!(t.st().css_rounds_done, 1);
        // Three more rounds at the same RTT: 2 500 bytes each, still CSS.
        t.acks(30, 112_500);
        assert_eq!(t.cwnd(), 38_500 + 3 * 2_500);
        assert_eq!(t.st().phase, HyStartPhase::Conservative);
        assert_eq!(t.s[0].ssthresh, u64::MAX);
        // The fifth ends CSS: ssthresh = cwnd = 48 500.
        t.acks(9, 112_500);
        assert!(t.s[0].in_slow_start());
        assert_eq!(t.ack(MSS, 112_500), 0);
        assert_eq!(t.cwnd(), 48_500);
        assert_eq!(t.s[0].ssthresh, 48_500);
        assert!(!t.s[0].in_slow_start());
        assert_eq!(t.st().phase, HyStartPhase::Done);
        assert_eq!(t.st().cwnd_at_css_done, 48_500);
    }

    #[test]
    fn rtt_below_the_baseline_resumes_slow_start() {
        let mut t = Script::rfc();
        t.acks(20, 100_000);
        // Round 3 at 120 ms enters CSS on its eighth ACK, baseline 120 ms.
        t.acks(10, 120_000);
        assert_eq!(t.st().phase, HyStartPhase::Conservative);
        assert_eq!(t.cwnd(), 38_500);
        // Round 4 at 110 ms: below the baseline once it has 8 samples. Its
        // first eight ACKs grow by a quarter segment (the eighth before the
        // test), the last two by a full one.
        t.acks(7, 110_000);
        assert_eq!(t.st().phase, HyStartPhase::Conservative);
        t.ack(MSS, 110_000);
        assert_eq!(t.st().phase, HyStartPhase::SlowStart);
        assert_eq!(t.st().css_baseline_min_rtt, None);
        assert_eq!(t.st().css_spurious_exits, 1);
        assert_eq!(t.cwnd(), 38_500 + 8 * 250);
        t.acks(2, 110_000);
        assert_eq!(t.cwnd(), 40_500 + 2 * MSS);
        // HyStart++ goes on: against 110 ms the threshold is 13.75 ms.
        t.acks(10, 123_000);
        assert_eq!(t.st().phase, HyStartPhase::SlowStart);
        // Then against 123 ms: 123 + 15.375 = 138.375 ms is needed.
        t.acks(10, 138_375);
        assert_eq!(t.st().phase, HyStartPhase::Conservative);
        assert_eq!(t.st().css_entries, 2);
    }

    #[test]
    fn abc_limit_and_per_ack_counting() {
        // L = 8: a stretch ACK of 20 segments counts 8, in CSS 8/4 = 2.
        let mut t = Script::rfc();
        t.ack(20 * MSS, 100_000);
        assert_eq!(t.cwnd(), 18 * MSS);
        t.ss.state[0].phase = HyStartPhase::Conservative;
        t.ack(20 * MSS, 100_000);
        assert_eq!(t.cwnd(), 20 * MSS);
        // Fractions of a byte are carried: 1 002 + 1 002 bytes add 2 004/4.
        t.ack(1002, 100_000);
        assert_eq!(t.cwnd(), 20 * MSS + 250);
        t.ack(1002, 100_000);
        assert_eq!(t.cwnd(), 20 * MSS + 501);
        // L = infinity counts everything.
        let mut t = Script::new(
            HyStartConfig {
                abc_limit_mss: None,
                ..Default::default()
            },
            StandardConfig::default(),
        );
        t.ack(20 * MSS, 100_000);
        assert_eq!(t.cwnd(), 30 * MSS);
        // Per-ACK counting (ns-3): one MSS per ACK, a quarter in CSS.
        let mut t = Script::new(
            HyStartConfig::default(),
            StandardConfig {
                counting: AckCounting::PerAck,
                abc_limit_mss: None,
            },
        );
        t.ack(2 * MSS, 100_000);
        assert_eq!(t.cwnd(), 11 * MSS);
        t.ss.state[0].phase = HyStartPhase::Conservative;
        t.ack(2 * MSS, 100_000);
        assert_eq!(t.cwnd(), 11 * MSS + 250);
    }

    #[test]
    fn after_a_loss_growth_is_the_profiles_standard_slow_start() {
        let mut t = Script::rfc();
        t.acks(10, 100_000);
        // A loss: the sender set ssthresh and marked the exit; a later slow
        // start (after a timeout) uses the profile's L = 2.
        t.s[0].left_slow_start = true;
        t.s[0].ssthresh = 100 * MSS;
        t.s[0].cwnd = MSS;
        t.ack(5 * MSS, 100_000);
        assert_eq!(t.cwnd(), 3 * MSS);
        assert_eq!(t.st().phase, HyStartPhase::Done);
    }

    #[test]
    fn acks_without_growth_still_count_rounds_and_samples() {
        let mut t = Script::rfc();
        t.acks(20, 100_000);
        for _ in 0..10 {
            let sf = &mut t.s[0];
            sf.snd_una += MSS;
            sf.snd_nxt = (sf.snd_una / (10 * MSS) + 1) * 10 * MSS;
            sf.latest_rtt = SimDuration(120 * MS);
            sf.rtt_samples += 1;
            t.ss.on_ack_without_growth(&mut t.s, 0, SimTime::ZERO);
        }
        assert_eq!(t.cwnd(), 30 * MSS);
        assert_eq!(t.st().phase, HyStartPhase::Conservative);
        assert_eq!(t.st().rounds, 3);
        assert_eq!(t.st().last_round_min_rtt, Some(SimDuration(120 * MS)));
    }
}
