//! ns-3.44 `TcpCubic`'s slow start and its HyStart
//! (`src/internet/model/tcp-cubic.cc`: `IncreaseWindow`, `PktsAcked`,
//! `HystartUpdate`, `HystartReset`), a port of Linux's older `tcp_cubic.c`.
//!
//! How it differs from Linux's HyStart ([`super::hystart_linux`]):
//! - the RTT it reads is ns-3's smoothed RTT (`TcpSocketBase` passes
//!   `m_tcb->m_srtt` to `PktsAcked`), not the ACK's sample;
//! - the delay threshold is `delay_min` itself clamped to [4 ms, 1 s]
//!   (`HystartDelayThresh`), so slow start ends when the round's smallest
//!   SRTT exceeds about twice the smallest SRTT seen;
//! - the ACK train counts from the round's start and needs no ACK-delay
//!   allowance, and its spacing test keeps the last ACK's time only while
//!   the ACKs stay within 2 ms of each other;
//! - the window test comes first: nothing is measured below 16 segments
//!   (`PktsAcked` calls `HystartUpdate` only for cwnd ≥ `HyStartLowWindow`·MSS);
//! - a round starts again, on a cwnd-limited ACK only (`IncreaseWindow`
//!   returns early otherwise), once SND.UNA passes the `m_highTxMark` of the
//!   round's start.
//!
//! ns-3's slow start counts every acknowledged segment (its comment: it
//! emulates Linux's QUICKACK with RFC 3465 byte counting) and is not capped
//! at ssthresh: the whole ACK goes to slow start, nothing to congestion
//! avoidance, unless HyStart has just set ssthresh = cwnd on this ACK
//! (`PktsAcked` runs before `IncreaseWindow`), in which case the whole ACK
//! goes to congestion avoidance.
//!
//! `m_found` and `m_delayMin` are cleared only on entering CA_LOSS (a
//! retransmission timeout: `CubicReset`, `HystartReset`). Slow start is
//! entered again only after a timeout, so the strategy clears them when it
//! sees a loss it has not seen before.

use super::{SlowStart, SsFactory, StandardConfig};
use crate::cc::cubic::ensure_len;
use crate::cc::SubflowCc;
use crate::error::Problems;
use crate::time::{SimDuration, SimTime};

/// ns-3.44 `TcpCubic`'s HyStart attributes; the defaults are ns-3's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HyStartNs3Config {
    /// `HyStartDetect` PACKET_TRAIN or BOTH: detect by ACK trains (on).
    pub ack_train: bool,
    /// `HyStartDetect` DELAY or BOTH: detect by RTT rise (on).
    pub delay: bool,
    /// `HyStartLowWindow`, segments: HyStart acts only from this cwnd on (16).
    pub low_window_segments: u32,
    /// `HyStartAckDelta`, microseconds: ACKs at most this far apart extend a train (2 000).
    pub ack_delta_us: u64,
    /// `HyStartMinSamples`: RTT samples a round takes before its minimum is compared (8).
    pub min_samples: u32,
    /// `HyStartDelayMin`, microseconds: the least RTT rise that ends slow start (4 000).
    pub delay_thresh_min_us: u64,
    /// `HyStartDelayMax`, microseconds: the largest RTT rise ever required (1 000 000).
    pub delay_thresh_max_us: u64,
}

impl Default for HyStartNs3Config {
    /// ns-3.44 `TcpCubic::GetTypeId` defaults (`HyStartDetect` BOTH).
    fn default() -> Self {
        HyStartNs3Config {
            ack_train: true,
            delay: true,
            low_window_segments: 16,
            ack_delta_us: 2_000,
            min_samples: 8,
            delay_thresh_min_us: 4_000,
            delay_thresh_max_us: 1_000_000,
        }
    }
}

impl SsFactory for HyStartNs3Config {
    type Strategy = HyStartNs3;

    /// The clamp of the delay threshold: its upper bound not below its lower.
    fn validate(&self, path: &str, problems: &mut Problems) {
        super::check_delay_thresh(path, self.delay_thresh_min_us, self.delay_thresh_max_us, problems);
    }

    fn build(&self, _standard: StandardConfig, n_subflows: usize) -> HyStartNs3 {
        HyStartNs3 {
            config: *self,
            state: vec![RoundState::default(); n_subflows],
        }
    }
}

/// A duration of `us` microseconds.
fn micros(us: u64) -> SimDuration {
    SimDuration(us.saturating_mul(1_000))
}

impl HyStartNs3Config {
    /// `HystartDelayThresh`: `delay_min` clamped to [HyStartDelayMin, HyStartDelayMax].
    pub fn delay_thresh(&self, delay_min: SimDuration) -> SimDuration {
        delay_min.clamp(
            micros(self.delay_thresh_min_us),
            micros(self.delay_thresh_max_us),
        )
    }
}

/// One subflow's HyStart state (ns-3 `TcpCubic` members of the same names).
#[derive(Clone, Debug, Default)]
pub struct RoundState {
    /// Whether the state has been initialised (`TcpCubic::Init`).
    started: bool,
    /// `m_found`: slow start has been ended by HyStart.
    pub found: bool,
    /// `m_delayMin`: the smallest SRTT seen (since the start or the last timeout).
    pub delay_min: Option<SimDuration>,
    /// `m_roundStart`: when the current round began.
    pub round_start: SimTime,
    /// `m_lastAck`: the last ACK of the current closely spaced train.
    pub last_ack: SimTime,
    /// `m_endSeq`: SND.NXT at the round's start, sequence bytes.
    pub end_seq: u64,
    /// `m_currRtt`: the smallest SRTT of the round's first samples.
    pub curr_rtt: Option<SimDuration>,
    /// `m_sampleCnt`: samples taken this round.
    pub samples: u32,
    /// Losses of the subflow already accounted for (`loss_events`).
    losses_seen: u64,
}

impl RoundState {
    /// `HystartReset`: a new round from `now`, ending when `snd_nxt` is passed.
    fn reset_round(&mut self, now: SimTime, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.samples = 0;
    }
}

/// ns-3.44 `TcpCubic`'s slow start with its HyStart, each subflow on its own.
#[derive(Clone, Debug)]
pub struct HyStartNs3 {
    pub config: HyStartNs3Config,
    /// Per-subflow state, indexed like the subflows.
    pub state: Vec<RoundState>,
}

impl HyStartNs3 {
    /// `TcpCubic::PktsAcked` (HyStart's half) for an ACK in slow start:
    /// takes the SRTT into `delay_min`, then tests for the exit. Clears the
    /// state first when a timeout has come since the last ACK (`CubicReset`
    /// and `HystartReset` on CA_LOSS).
    fn packets_acked(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        ensure_len(&mut self.state, s.len());
        let sf = &mut s[r];
        let st = &mut self.state[r];
        if !st.started {
            // `TcpCubic::Init`: the first round runs from the start.
            st.started = true;
            st.reset_round(now, 0);
        }
        if sf.loss_events != st.losses_seen {
            st.losses_seen = sf.loss_events;
            st.found = false;
            st.delay_min = None;
            st.reset_round(now, sf.snd_nxt);
        }
        let rtt = sf.srtt;
        if st.delay_min.is_none_or(|d| d > rtt) {
            st.delay_min = Some(rtt);
        }
        if sf.cwnd > sf.ssthresh || sf.cwnd < self.config.low_window_segments as u64 * sf.mss as u64 || st.found {
            return;
        }
        let delay_min = st.delay_min.unwrap_or(rtt);
        // `HystartUpdate` first test: the ACK train.
        if now.saturating_since(st.last_ack) <= micros(self.config.ack_delta_us) {
            st.last_ack = now;
            if now.saturating_since(st.round_start) > delay_min && self.config.ack_train {
                st.found = true;
            }
        }
        // Second test: the smallest of the round's first samples against
        // delay_min plus the clamped threshold.
        if st.samples < self.config.min_samples {
            if st.curr_rtt.is_none_or(|c| c > rtt) {
                st.curr_rtt = Some(rtt);
            }
            st.samples += 1;
        } else if st.curr_rtt.is_some_and(|c| c > delay_min + self.config.delay_thresh(delay_min)) && self.config.delay {
            st.found = true;
        }
        if st.found {
            sf.ssthresh = sf.cwnd;
        }
    }
}

impl SlowStart for HyStartNs3 {
    /// `PktsAcked` then `IncreaseWindow`'s slow-start branch: a new round
    /// once SND.UNA passes the round's end, then cwnd += the acknowledged
    /// segments, not capped at ssthresh. When HyStart has just ended slow
    /// start, the whole ACK goes to congestion avoidance.
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked: u64, now: SimTime) -> u64 {
        self.packets_acked(s, r, now);
        let sf = &mut s[r];
        if !sf.in_slow_start() {
            return acked;
        }
        let st = &mut self.state[r];
        if sf.snd_una > st.end_seq {
            st.reset_round(now, sf.snd_nxt);
        }
        // ns-3 counts the segments the ACK *delivered* (`segsAcked` from
        // `currentDelivered`): after a timeout an ACK over segments SACKed
        // before it grows the window by the retransmission alone.
        let mss = sf.mss as u64;
        sf.cwnd += acked.min(sf.delivered_bytes) / mss * mss;
        0
    }

    /// Not cwnd-limited: `PktsAcked` runs, `IncreaseWindow` returns at once.
    fn on_ack_without_growth(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.packets_acked(s, r, now);
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        ensure_len(&mut self.state, s.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn at_us(us: u64) -> SimTime {
        SimTime::ZERO + micros(us)
    }

    fn subflow(cwnd_segs: u64, srtt_ms: u64) -> Vec<SubflowCc> {
        let mut s = vec![SubflowCc::new(MSS as u32, cwnd_segs * MSS, u64::MAX)];
        s[0].srtt = SimDuration::from_millis(srtt_ms);
        s[0].established = true;
        s[0].delivered_bytes = MSS;
        s
    }

    fn strategy() -> HyStartNs3 {
        HyStartNs3Config::default().build(StandardConfig::default(), 1)
    }

    #[test]
    fn delay_threshold_is_delay_min_clamped_to_4ms_and_1s() {
        let c = HyStartNs3Config::default();
        assert_eq!(c.delay_thresh(SimDuration::from_millis(1)), SimDuration::from_millis(4));
        assert_eq!(c.delay_thresh(SimDuration::from_millis(40)), SimDuration::from_millis(40));
        assert_eq!(c.delay_thresh(SimDuration::from_secs(3)), SimDuration::from_secs(1));
    }

    /// Below 16 segments every acknowledged segment adds one MSS, past
    /// ssthresh too, and nothing is left for congestion avoidance.
    #[test]
    fn slow_start_counts_segments_and_is_not_capped() {
        let mut ss = strategy();
        let mut s = subflow(10, 40);
        s[0].ssthresh = 11_500;
        s[0].snd_una = 2000;
        s[0].delivered_bytes = 2000;
        assert_eq!(ss.on_ack(&mut s, 0, 2000, at_us(0)), 0);
        assert_eq!(s[0].cwnd, 12_000);
    }

    /// After a timeout, an ACK over 19 segments of which 18 were SACKed
    /// before it delivers one: cwnd grows by one MSS, not 19.
    #[test]
    fn slow_start_counts_what_the_ack_delivered() {
        let mut ss = strategy();
        let mut s = subflow(1, 40);
        s[0].ssthresh = 46 * MSS;
        s[0].snd_una = 19 * MSS;
        s[0].delivered_bytes = MSS;
        assert_eq!(ss.on_ack(&mut s, 0, 19 * MSS, at_us(0)), 0);
        assert_eq!(s[0].cwnd, 2 * MSS);
    }

    /// SRTT 40 ms: delay_min = 40 ms, threshold 40 ms. Eight samples at
    /// 40 ms fill the round; a round whose first eight SRTTs are 81 ms
    /// (> 40 + 40) ends slow start at the ninth ACK with ssthresh = cwnd,
    /// and that ACK goes whole to congestion avoidance.
    #[test]
    fn delay_rise_over_twice_delay_min_ends_slow_start() {
        let mut ss = strategy();
        let mut s = subflow(20, 40);
        // ACKs 10 ms apart: no train. The first round ends at once (end_seq 0).
        s[0].snd_una = 1000;
        s[0].snd_nxt = 100_000;
        ss.on_ack(&mut s, 0, 1000, at_us(0));
        s[0].srtt = SimDuration::from_millis(81);
        for k in 1..=8 {
            s[0].snd_una += 1000;
            assert_eq!(ss.on_ack(&mut s, 0, 1000, at_us(10_000 * k)), 0);
        }
        // Round reset at the first ACK (SND.UNA 1000 > 0): samples of the
        // second to the ninth ACKs; eight taken, then the ninth compares.
        assert_eq!(ss.state[0].samples, 8);
        assert_eq!(s[0].cwnd, 29 * MSS);
        s[0].snd_una += 1000;
        assert_eq!(ss.on_ack(&mut s, 0, 1000, at_us(90_000)), 1000);
        assert_eq!((s[0].cwnd, s[0].ssthresh), (29 * MSS, 29 * MSS));
        assert!(ss.state[0].found);
    }

    /// A train of ACKs 1 ms apart that lasts longer than delay_min (40 ms)
    /// from the round's start ends slow start on the first ACK past 40 ms.
    #[test]
    fn ack_train_longer_than_delay_min_ends_slow_start() {
        let mut ss = strategy();
        let mut s = subflow(16, 40);
        s[0].snd_nxt = 1_000_000;
        let mut k = 0;
        while s[0].in_slow_start() {
            s[0].snd_una += 1000;
            ss.on_ack(&mut s, 0, 1000, at_us(1000 * k));
            k += 1;
        }
        // The round starts at the first ACK (t = 0): t = 41 ms is the first
        // ACK more than 40 ms later; 41 ACKs grew cwnd before it.
        assert_eq!(k, 42);
        assert_eq!(s[0].ssthresh, (16 + 41) * MSS);
    }

    /// A timeout clears `found` and `delay_min`: HyStart runs again.
    #[test]
    fn timeout_clears_found_and_delay_min() {
        let mut ss = strategy();
        let mut s = subflow(20, 40);
        ss.state = vec![RoundState {
            started: true,
            found: true,
            delay_min: Some(SimDuration::from_millis(10)),
            ..Default::default()
        }];
        s[0].loss_events = 1;
        s[0].cwnd = MSS;
        s[0].ssthresh = 10 * MSS;
        ss.on_ack(&mut s, 0, 1000, at_us(5_000_000));
        assert!(!ss.state[0].found);
        assert_eq!(ss.state[0].delay_min, Some(SimDuration::from_millis(40)));
    }
}
