//! LISA, the Linked Slow-Start Algorithm (Barik et al., ICC 2016, Alg. 1).
//!
//! Before a new subflow sends its initial window, it takes a *credit* of
//! between 3 and 10 packets from the subflow in slow start with the largest
//! sending rate, and that subflow forgoes the growth of the ACKs of the data
//! it already has in flight beyond its reduced window (Alg. 1 lines 22–24).
//! Growth is otherwise the profile's standard slow start, so LISA combines
//! with any congestion avoidance.

use super::SsFactory;
use crate::error::Problems;
use super::{SlowStart, Standard, StandardConfig};
use crate::cc::SubflowCc;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LisaConfig {
    /// Upper bound on the credit, packets: Alg. 1 lines 5–9 take this many
    /// from a subflow with at least twice as many (LISA §III: IW 10 of RFC 6928).
    pub max_credit_segments: u32,
    /// Lower bound, packets: below twice this the old subflow gives nothing
    /// and the new subflow starts with this window (Alg. 1 lines 10–17:
    /// IW 3 of RFC 3390).
    pub min_credit_segments: u32,
    /// Alg. 1 lines 22–24: the subflow that gave the credit forgoes the
    /// growth of its data in flight beyond its reduced window. `false` keeps
    /// only the transfer of the credit (lines 1–21), the form in which the
    /// CSS paper (§I) describes LISA; an ablation, not LISA as published.
    pub ignore_acks: bool,
}

impl Default for LisaConfig {
    /// The paper's bounds, 3..10 packets.
    fn default() -> Self {
        LisaConfig {
            max_credit_segments: 10,
            min_credit_segments: 3,
            ignore_acks: true,
        }
    }
}

impl SsFactory for LisaConfig {
    type Strategy = Lisa;

    fn validate(&self, path: &str, problems: &mut Problems) {
        let (min, max) = (self.min_credit_segments, self.max_credit_segments);
        if min == 0 {
            problems.out_of(format!("{path}.min_credit_segments"), 0, "at least 1 packet");
        } else if max < min {
            problems.out_of(
                format!("{path}.max_credit_segments"),
                max,
                format!("at least min_credit_segments ({min})"),
            );
        }
    }

    fn build(&self, standard: StandardConfig, n_subflows: usize) -> Lisa {
        Lisa::new(*self, standard, n_subflows)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Lisa {
    pub config: LisaConfig,
    /// The profile's standard slow start (ACK counting), for the growth the
    /// algorithm leaves unchanged.
    pub standard: Standard,
    /// Per subflow: slow-start growth still to forgo, bytes. Alg. 1's
    /// `ACKs_to_ignore` counts ACKs of one packet that would each have grown
    /// cwnd by one packet; counting the growth itself keeps that meaning
    /// under delayed ACKs and either ACK-counting mode.
    growth_to_forgo: Vec<u64>,
}

impl Lisa {
    pub fn new(config: LisaConfig, standard: StandardConfig, n_subflows: usize) -> Self {
        Lisa {
            config,
            standard: Standard::new(standard),
            growth_to_forgo: vec![0; n_subflows],
        }
    }

    /// Grows the per-subflow state to `n` subflows (a subflow added after
    /// the build); no allocation otherwise.
    fn size(&mut self, n: usize) {
        if self.growth_to_forgo.len() < n {
            self.growth_to_forgo.resize(n, 0);
        }
    }

    /// Growth subflow `r` has still to forgo, bytes.
    pub fn growth_to_forgo(&self, r: usize) -> u64 {
        self.growth_to_forgo[r]
    }

    /// Alg. 1 line 3, `get_subflow_with_max_sendrate()`: among the other
    /// subflows that are established and still in their initial slow start
    /// (LISA §III: "applied to the subflows if and only if they are in
    /// slow-start"), the one with the largest cwnd/SRTT; ties go to the lower
    /// index.
    fn fastest_in_slow_start(s: &[SubflowCc], r: usize) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (j, sf) in s.iter().enumerate() {
            if j == r || !sf.established || sf.left_slow_start || sf.in_recovery || !sf.in_slow_start() {
                continue;
            }
            best = match best {
                None => Some(j),
                Some(b) => {
                    // cwnd_j/srtt_j > cwnd_b/srtt_b, cross-multiplied exactly.
                    let rate_j = sf.cwnd as u128 * s[b].srtt.nanos().max(1) as u128;
                    let rate_b = s[b].cwnd as u128 * sf.srtt.nanos().max(1) as u128;
                    Some(if rate_j > rate_b { j } else { b })
                }
            };
        }
        best
    }
}

impl SlowStart for Lisa {
    /// Standard slow start, less the growth the subflow still has to forgo
    /// after giving a credit (Alg. 1 line 23: "do not increase cwnd when ACKs
    /// arrive").
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked_bytes: u64, now: SimTime) -> u64 {
        self.size(s.len());
        if s[r].left_slow_start {
            // A credit only binds the initial slow start it was taken in.
            self.growth_to_forgo[r] = 0;
        }
        let before = s[r].cwnd;
        let rest = self.standard.on_ack(s, r, acked_bytes, now);
        let grown = s[r].cwnd - before;
        let forgo = grown.min(self.growth_to_forgo[r]);
        s[r].cwnd -= forgo;
        self.growth_to_forgo[r] -= forgo;
        rest
    }

    /// LISA Alg. 1, run before subflow `r` sends its initial window.
    fn on_subflow_start(&mut self, s: &mut [SubflowCc], r: usize, _now: SimTime) {
        self.size(s.len());
        let max = self.config.max_credit_segments as u64;
        let min = self.config.min_credit_segments as u64;
        let mss = s[r].mss as u64;
        // Line 3.
        let Some(old) = Self::fastest_in_slow_start(s, r) else {
            // Line 20: no other subflow in slow start: the new subflow keeps
            // its initial window (IW 10 in the paper; the TCP options' IW here).
            return;
        };
        // LISA works in packets (footnote 2); cwnd is in bytes.
        let old_mss = s[old].mss as u64;
        let old_pkts = s[old].cwnd / old_mss;
        let ignore_acks = if old_pkts >= 2 * max {
            // Lines 5–9: take IW(10) packets.
            s[old].cwnd -= max * old_mss;
            s[r].cwnd = max * mss;
            true
        } else if old_pkts >= 2 * min {
            // Lines 10–14: take half the packets.
            let credit = old_pkts / 2;
            s[r].cwnd = credit * mss;
            s[old].cwnd -= credit * old_mss;
            true
        } else {
            // Lines 15–17: nothing to take; the new subflow starts with IW(3).
            s[r].cwnd = min * mss;
            false
        };
        // Lines 22–24: the data in flight beyond the reduced window would
        // grow the old subflow as it is acknowledged; it must not.
        let inflight = s[old].bytes_in_flight;
        if ignore_acks && self.config.ignore_acks && inflight >= s[old].cwnd {
            self.growth_to_forgo[old] = inflight - s[old].cwnd;
        }
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

    /// An established subflow in slow start with `cwnd_pkts` and as many
    /// packets in flight, SRTT 100 ms.
    fn busy(cwnd_pkts: u64) -> SubflowCc {
        let mut sf = SubflowCc::new(MSS as u32, cwnd_pkts * MSS, u64::MAX);
        sf.established = true;
        sf.srtt = SimDuration::from_millis(100);
        sf.bytes_in_flight = cwnd_pkts * MSS;
        sf
    }

    /// A subflow that has just completed its handshake, IW 10.
    fn joining() -> SubflowCc {
        let mut sf = SubflowCc::new(MSS as u32, 10 * MSS, u64::MAX);
        sf.established = true;
        sf.srtt = SimDuration::from_millis(100);
        sf
    }

    fn lisa(counting: AckCounting) -> Lisa {
        Lisa::new(
            LisaConfig::default(),
            StandardConfig {
                counting,
                abc_limit_mss: Some(2),
            },
            2,
        )
    }

    #[test]
    fn worked_example_takes_ten_and_ignores_ten_acks() {
        // LISA §III: old cwnd 40 with 40 in flight; the new subflow joins.
        for counting in [AckCounting::Bytes, AckCounting::PerAck] {
            let mut l = lisa(counting);
            let mut s = vec![busy(40), joining()];
            l.on_subflow_start(&mut s, 1, SimTime::ZERO);
            assert_eq!(s[0].cwnd, 30 * MSS);
            assert_eq!(s[1].cwnd, 10 * MSS);
            // ACKs_to_ignore = inflight − cwnd = 40 − 30 = 10 packets.
            assert_eq!(l.growth_to_forgo(0), 10 * MSS);
            // The first 10 ACKs (one packet each) do not grow the old subflow.
            for _ in 0..10 {
                assert_eq!(l.on_ack(&mut s, 0, MSS, SimTime::ZERO), 0);
                assert_eq!(s[0].cwnd, 30 * MSS);
            }
            // The 11th does; the 30 ACKs of the round bring it to 60 (the
            // paper's 60 + 20 = 80 after one RTT).
            l.on_ack(&mut s, 0, MSS, SimTime::ZERO);
            assert_eq!(s[0].cwnd, 31 * MSS);
            for _ in 0..29 {
                l.on_ack(&mut s, 0, MSS, SimTime::ZERO);
            }
            assert_eq!(s[0].cwnd, 60 * MSS);
        }
    }

    #[test]
    fn without_ignoring_acks_only_the_credit_moves() {
        // `ignore_acks: false`: the worked example's credit moves (40 → 30
        // and 10), but the old subflow grows from the first ACK on, so after
        // one round of 40 ACKs it has 70 (Alg. 1 as published: 60).
        let mut l = Lisa::new(
            LisaConfig {
                ignore_acks: false,
                ..LisaConfig::default()
            },
            StandardConfig::default(),
            2,
        );
        let mut s = vec![busy(40), joining()];
        l.on_subflow_start(&mut s, 1, SimTime::ZERO);
        assert_eq!((s[0].cwnd, s[1].cwnd), (30 * MSS, 10 * MSS));
        assert_eq!(l.growth_to_forgo(0), 0);
        l.on_ack(&mut s, 0, MSS, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 31 * MSS);
        for _ in 0..39 {
            l.on_ack(&mut s, 0, MSS, SimTime::ZERO);
        }
        assert_eq!(s[0].cwnd, 70 * MSS);
    }

    #[test]
    fn delayed_acks_forgo_the_same_growth() {
        // Byte counting with ACKs of two packets: 10 packets of growth are
        // forgone over 5 ACKs, not 10.
        let mut l = lisa(AckCounting::Bytes);
        let mut s = vec![busy(40), joining()];
        l.on_subflow_start(&mut s, 1, SimTime::ZERO);
        for _ in 0..5 {
            l.on_ack(&mut s, 0, 2 * MSS, SimTime::ZERO);
        }
        assert_eq!(s[0].cwnd, 30 * MSS);
        l.on_ack(&mut s, 0, 2 * MSS, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 32 * MSS);
    }

    #[test]
    fn half_credit_between_six_and_twenty() {
        let mut l = lisa(AckCounting::Bytes);
        let mut s = vec![busy(12), joining()];
        l.on_subflow_start(&mut s, 1, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 6 * MSS);
        assert_eq!(s[1].cwnd, 6 * MSS);
        assert_eq!(l.growth_to_forgo(0), 6 * MSS);
        // An odd window: the new subflow gets the floor of half (line 12).
        let mut s = vec![busy(13), joining()];
        l.on_subflow_start(&mut s, 1, SimTime::ZERO);
        assert_eq!((s[0].cwnd, s[1].cwnd), (7 * MSS, 6 * MSS));
        // Exactly 6 takes half (the authors' Linux code lets 6 fall through).
        let mut s = vec![busy(6), joining()];
        l.on_subflow_start(&mut s, 1, SimTime::ZERO);
        assert_eq!((s[0].cwnd, s[1].cwnd), (3 * MSS, 3 * MSS));
    }

    #[test]
    fn no_credit_below_six_and_the_new_subflow_gets_three() {
        let mut l = lisa(AckCounting::Bytes);
        let mut s = vec![busy(5), joining()];
        l.on_subflow_start(&mut s, 1, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 5 * MSS);
        assert_eq!(s[1].cwnd, 3 * MSS);
        assert_eq!(l.growth_to_forgo(0), 0);
        l.on_ack(&mut s, 0, MSS, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 6 * MSS);
    }

    #[test]
    fn only_subflows_in_slow_start_are_touched() {
        let mut l = lisa(AckCounting::Bytes);
        // The old subflow has left slow start: the new one keeps its IW.
        let mut s = vec![busy(40), joining()];
        s[0].ssthresh = 20 * MSS;
        s[0].left_slow_start = true;
        l.on_subflow_start(&mut s, 1, SimTime::ZERO);
        assert_eq!((s[0].cwnd, s[1].cwnd), (40 * MSS, 10 * MSS));
        // The first subflow of a connection has no one to take from.
        let mut s = vec![joining(), SubflowCc::new(MSS as u32, 10 * MSS, u64::MAX)];
        l.on_subflow_start(&mut s, 0, SimTime::ZERO);
        assert_eq!(s[0].cwnd, 10 * MSS);
    }

    #[test]
    fn the_credit_comes_from_the_largest_sending_rate() {
        let mut l = Lisa::new(LisaConfig::default(), StandardConfig::default(), 3);
        // Subflow 0: 30 packets per 100 ms; subflow 1: 24 per 40 ms (faster).
        let mut s = vec![busy(30), busy(24), joining()];
        s[1].srtt = SimDuration::from_millis(40);
        l.on_subflow_start(&mut s, 2, SimTime::ZERO);
        assert_eq!((s[0].cwnd, s[1].cwnd, s[2].cwnd), (30 * MSS, 14 * MSS, 10 * MSS));
        assert_eq!(l.growth_to_forgo(1), 10 * MSS);
        assert_eq!(l.growth_to_forgo(0), 0);
    }

    #[test]
    fn bounds_are_configuration() {
        let mut l = Lisa::new(
            LisaConfig {
                max_credit_segments: 4,
                min_credit_segments: 2,
                ignore_acks: true,
            },
            StandardConfig::default(),
            2,
        );
        let mut s = vec![busy(8), joining()];
        l.on_subflow_start(&mut s, 1, SimTime::ZERO);
        assert_eq!((s[0].cwnd, s[1].cwnd), (4 * MSS, 4 * MSS));
        let mut s = vec![busy(3), joining()];
        l.on_subflow_start(&mut s, 1, SimTime::ZERO);
        assert_eq!((s[0].cwnd, s[1].cwnd), (3 * MSS, 2 * MSS));
    }
}
