//! Couple+ (Xue et al., IEEE TVT 2017, §IV, Fig. 4): the RTT Compensator
//! (LIA, RFC 6356, paper flavour) with a transient state on network-coded
//! subflows, so that congestion loss that the coding hides is exposed.
//!
//! Normal state: LIA. An ACK with the loss flag (§IV-A) enters the transient
//! state: the transient window twnd is set "a little smaller" than cwnd
//! (`twnd_reduction_segments` below it) and sending is limited by both
//! (§IV-B). A transient counter advances by one per non-duplicate ACK, by the
//! newly lost packets + 1 when the ACK reports new losses, up to the
//! redundant cycle size ΔT = R/(R − 1) (§IV-C). The state is left as
//! - noncongestion when the receiver has decoded everything it has seen
//!   before the counter reaches ΔT: cwnd and twnd take the larger of the two;
//! - congestion when the counter reaches ΔT undecoded and the latest RTT is
//!   at least `rtt_factor` times the minimum RTT, or when the receive buffer
//!   limits sending (the supplementary judgment: the advertised window below
//!   cwnd): both halved and cwnd the smaller of the two.
//!   Reaching ΔT undecoded with a low RTT is read as noncongestion (§IV-C:
//!   "delay is the complementary criterion" against misjudging a run of
//!   wireless losses).
//!
//! Duplicate ACKs and timeouts stay congestion signals: TCP's recovery
//! applies LIA's decrease and the transient state ends.
//!
//! The sender uses `SubflowCc::cwnd` as its window, so during the transient
//! state it holds min(cwnd, twnd) = twnd and cwnd is kept here. Both grow by
//! the same increment per ACK (the RTT Compensator's increase at the window
//! that limits sending; slow start's if the subflow is still in it).

use super::coupling::Flavour;
use super::{AckInfo, CcFactory, CcSetup, CongestionAvoidance, Lia, LiaConfig, SubflowCc};
use crate::error::Problems;
use crate::time::SimTime;

/// What a coded subflow's latest ACK told its sender (Couple+ §IV-A),
/// filled by the coding shim before the sender processes the ACK. Every
/// field is zero on an uncoded subflow.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CodingReport {
    /// The subflow is coded.
    pub coded: bool,
    /// The ACK acknowledged new segments (a non-duplicate ACK).
    pub advanced: bool,
    /// The loss flag: the receiver counted coded packets lost since its previous ACK.
    pub loss_flag: bool,
    /// Coded packets this ACK reports lost that earlier ACKs did not.
    pub new_losses: u64,
    /// Coded packets lost so far: maximum relative sequence number − packets received.
    pub lost_total: u64,
    /// The receiver has decoded every segment it has seen.
    pub all_decoded: bool,
    /// The redundant cycle size R/(R − 1), packets (`None` without redundancy).
    pub cycle_packets: Option<u64>,
    /// The window the ACK advertises, bytes.
    pub rwnd_bytes: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CouplePlusConfig {
    /// twnd = cwnd − this many segments on entering the transient state
    /// (§IV-B: "a little smaller").
    pub twnd_reduction_segments: u32,
    /// Congestion needs the latest RTT at least this multiple of the
    /// minimum RTT (§IV-C: "at least twice higher").
    pub rtt_factor: f64,
}

impl Default for CouplePlusConfig {
    fn default() -> Self {
        CouplePlusConfig {
            twnd_reduction_segments: 1,
            rtt_factor: 2.0,
        }
    }
}

impl CcFactory for CouplePlusConfig {
    type Algorithm = CouplePlus;

    fn validate(&self, path: &str, problems: &mut Problems) {
        if self.twnd_reduction_segments > 64 {
            problems.out_of(
                format!("{path}.twnd_reduction_segments"),
                self.twnd_reduction_segments,
                "0 to 64",
            );
        }
        if !(self.rtt_factor >= 1.0 && self.rtt_factor <= 100.0) {
            problems.out_of(format!("{path}.rtt_factor"), self.rtt_factor, "1 to 100");
        }
    }

    fn build(&self, setup: &CcSetup) -> CouplePlus {
        CouplePlus {
            config: *self,
            lia: Lia::new(LiaConfig {
                flavour: Flavour::Paper,
            })
            .with_reno(setup.reno),
            subflows: Vec::new(),
        }
    }
}

/// A subflow's state (Fig. 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CouplePhase {
    #[default]
    Normal,
    /// `SubflowCc::cwnd` holds twnd.
    Transient {
        /// The congestion window, bytes.
        cwnd: u64,
        /// The transient counter, packets.
        counter: u64,
    },
}

/// How a transient state ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoupleCounts {
    pub transients: u64,
    pub noncongestion: u64,
    pub congestion: u64,
    /// Ended by duplicate ACKs or a timeout.
    pub tcp_loss: u64,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct CoupleSubflow {
    pub phase: CouplePhase,
    /// `SubflowCc::cwnd` after the previous report: its growth since is the
    /// increment cwnd takes too in the transient state.
    last_window: u64,
    pub counts: CoupleCounts,
}

#[derive(Clone, Debug)]
pub struct CouplePlus {
    pub config: CouplePlusConfig,
    lia: Lia,
    pub subflows: Vec<CoupleSubflow>,
}

impl CouplePlus {
    fn size(&mut self, n: usize) {
        if self.subflows.len() < n {
            self.subflows.resize(n, CoupleSubflow::default());
        }
    }

    /// Leaves the transient state of subflow `r`, if in it, because TCP
    /// detected a loss: LIA's decrease applies to the window that limited sending.
    fn end_by_tcp(&mut self, r: usize) {
        self.size(r + 1);
        let sf = &mut self.subflows[r];
        if let CouplePhase::Transient { .. } = sf.phase {
            sf.phase = CouplePhase::Normal;
            sf.counts.tcp_loss += 1;
        }
    }
}

impl CongestionAvoidance for CouplePlus {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        self.lia.on_ack(s, r, ack)
    }

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
        self.end_by_tcp(r);
        self.lia.ssthresh_after_loss(s, r, now)
    }

    fn on_recovery_exit(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.lia.on_recovery_exit(s, r, now);
        self.size(r + 1);
        self.subflows[r].last_window = s[r].cwnd;
    }

    fn on_rto(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.end_by_tcp(r);
        self.lia.on_rto(s, r, now);
        self.subflows[r].last_window = s[r].cwnd;
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.size(s.len());
        self.lia.on_subflows_changed(s);
    }

    fn on_coding_report(&mut self, s: &mut [SubflowCc], r: usize, _now: SimTime) {
        self.size(s.len());
        let report = s[r].coding;
        let mss = s[r].mss as u64;
        let state = &mut self.subflows[r];
        let grown = s[r].cwnd.saturating_sub(state.last_window);
        match &mut state.phase {
            CouplePhase::Normal if report.loss_flag && !s[r].in_recovery => {
                // §IV-B: twnd a little smaller than cwnd; the sender is held to twnd.
                let reduction = self.config.twnd_reduction_segments as u64 * mss;
                let cwnd = s[r].cwnd;
                s[r].cwnd = cwnd.saturating_sub(reduction).max(mss);
                // §IV-C: this ACK conveys new losses: lost + 1.
                let counter = report.new_losses + 1;
                state.phase = CouplePhase::Transient { cwnd, counter };
                state.counts.transients += 1;
            }
            CouplePhase::Normal => {}
            CouplePhase::Transient { cwnd, counter } => {
                *cwnd += grown;
                if report.advanced {
                    *counter += 1 + report.new_losses;
                }
            }
        }
        if let CouplePhase::Transient { cwnd, counter } = state.phase {
            let twnd = s[r].cwnd;
            let reached = report.cycle_packets.is_some_and(|dt| counter >= dt);
            let slow = s[r].latest_rtt.0 as f64 >= self.config.rtt_factor * s[r].min_rtt.0 as f64;
            let buffer_full = report.rwnd_bytes < cwnd;
            if report.all_decoded || (reached && !slow && !buffer_full) {
                // Noncongestion: both take the larger.
                s[r].cwnd = cwnd.max(twnd);
                state.phase = CouplePhase::Normal;
                state.counts.noncongestion += 1;
            } else if buffer_full || reached {
                // Congestion: both halved, cwnd the smaller of the two.
                let w = (cwnd.min(twnd) / 2).max(2 * mss);
                s[r].cwnd = w;
                s[r].ssthresh = w;
                state.phase = CouplePhase::Normal;
                state.counts.congestion += 1;
            }
        }
        state.last_window = s[r].cwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::super::coupling::test_util::*;
    use super::*;
    use crate::time::SimDuration;

    fn couple() -> CouplePlus {
        CouplePlusConfig::default().build(&CcSetup::default())
    }

    /// A coded ACK's report with a redundant cycle of 5 packets (R = 1.25).
    fn report(advanced: bool, new_losses: u64, all_decoded: bool) -> CodingReport {
        CodingReport {
            coded: true,
            advanced,
            loss_flag: new_losses > 0,
            new_losses,
            lost_total: 0,
            all_decoded,
            cycle_packets: Some(5),
            rwnd_bytes: 1 << 30,
        }
    }

    fn two_subflows() -> Vec<SubflowCc> {
        let mut s = vec![sf(10, 60), sf(10, 60)];
        for x in &mut s {
            x.min_rtt = SimDuration::from_millis(60);
            x.latest_rtt = x.min_rtt;
        }
        s
    }

    fn step(cc: &mut CouplePlus, s: &mut [SubflowCc], rep: CodingReport) {
        s[1].coding = rep;
        cc.on_coding_report(s, 1, SimTime::ZERO);
    }

    #[test]
    fn a_loss_flag_enters_the_transient_state_and_decoding_ends_it_as_noncongestion() {
        let mut cc = couple();
        let mut s = two_subflows();
        cc.on_subflows_changed(&s);
        step(&mut cc, &mut s, report(true, 0, true));
        assert_eq!(cc.subflows[1].phase, CouplePhase::Normal);
        // Loss flag, one packet lost: twnd = 10000 − 1000, counter = 1 + 1.
        step(&mut cc, &mut s, report(true, 1, false));
        assert_eq!(s[1].cwnd, 9_000);
        assert_eq!(
            cc.subflows[1].phase,
            CouplePhase::Transient {
                cwnd: 10_000,
                counter: 2
            }
        );
        // An ACK grows the sending window by LIA's increase: with equal
        // windows and RTTs alpha = 20000·(9000/60²)/((9000 + 10000)/60)² ...
        // whatever it is, cwnd takes the same increment.
        let before = s[1].cwnd;
        cc.on_ack(&mut s, 1, &ack(1000));
        let inc = s[1].cwnd - before;
        assert!(inc > 0);
        step(&mut cc, &mut s, report(true, 0, false));
        assert_eq!(
            cc.subflows[1].phase,
            CouplePhase::Transient {
                cwnd: 10_000 + inc,
                counter: 3
            }
        );
        // A duplicate ACK does not advance the counter.
        step(&mut cc, &mut s, report(false, 0, false));
        assert_eq!(
            cc.subflows[1].phase,
            CouplePhase::Transient {
                cwnd: 10_000 + inc,
                counter: 3
            }
        );
        // Decoded at counter 4 < 5: both windows take the larger, cwnd.
        step(&mut cc, &mut s, report(true, 0, true));
        assert_eq!(cc.subflows[1].phase, CouplePhase::Normal);
        assert_eq!(s[1].cwnd, 10_000 + inc);
        assert_eq!(cc.subflows[1].counts.noncongestion, 1);
    }

    #[test]
    fn undecoded_at_the_cycle_with_a_doubled_rtt_is_congestion() {
        let mut cc = couple();
        let mut s = two_subflows();
        cc.on_subflows_changed(&s);
        step(&mut cc, &mut s, report(true, 2, false)); // counter 3, twnd 9000
        s[1].latest_rtt = SimDuration::from_millis(120);
        step(&mut cc, &mut s, report(true, 0, false)); // counter 4
        assert!(matches!(
            cc.subflows[1].phase,
            CouplePhase::Transient { counter: 4, .. }
        ));
        step(&mut cc, &mut s, report(true, 0, false)); // counter 5 = ΔT
                                                       // Both halved, cwnd the smaller: min(10000, 9000)/2.
        assert_eq!(cc.subflows[1].phase, CouplePhase::Normal);
        assert_eq!((s[1].cwnd, s[1].ssthresh), (4_500, 4_500));
        assert_eq!(cc.subflows[1].counts.congestion, 1);
    }

    #[test]
    fn undecoded_at_the_cycle_with_a_low_rtt_is_noncongestion() {
        let mut cc = couple();
        let mut s = two_subflows();
        cc.on_subflows_changed(&s);
        step(&mut cc, &mut s, report(true, 1, false)); // counter 2
        s[1].latest_rtt = SimDuration::from_millis(119); // below 2 × 60 ms
        step(&mut cc, &mut s, report(true, 2, false)); // counter 2 + 3 = 5
        assert_eq!(cc.subflows[1].phase, CouplePhase::Normal);
        assert_eq!(s[1].cwnd, 10_000);
        assert_eq!(cc.subflows[1].counts.noncongestion, 1);
    }

    #[test]
    fn a_full_receive_buffer_in_the_transient_state_is_congestion() {
        let mut cc = couple();
        let mut s = two_subflows();
        cc.on_subflows_changed(&s);
        step(&mut cc, &mut s, report(true, 1, false));
        let mut rep = report(true, 0, false);
        rep.rwnd_bytes = 5_000; // below cwnd = 10000
        step(&mut cc, &mut s, rep);
        assert_eq!((s[1].cwnd, s[1].ssthresh), (4_500, 4_500));
    }

    #[test]
    fn duplicate_acks_end_the_transient_state_with_lia_s_decrease() {
        let mut cc = couple();
        let mut s = two_subflows();
        cc.on_subflows_changed(&s);
        step(&mut cc, &mut s, report(true, 1, false));
        // TCP's fast retransmit with twnd (9000 B) in flight: LIA (Reno,
        // RFC 5681 eq. (4)) halves the flight that twnd limited.
        s[1].bytes_in_flight = s[1].cwnd;
        let ssthresh = cc.ssthresh_after_loss(&s, 1, SimTime::ZERO);
        assert_eq!(ssthresh, 4_500);
        assert_eq!(cc.subflows[1].phase, CouplePhase::Normal);
        assert_eq!(cc.subflows[1].counts.tcp_loss, 1);
    }
}
