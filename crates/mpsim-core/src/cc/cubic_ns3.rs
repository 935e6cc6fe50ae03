//! ns-3.44 `TcpCubic`'s congestion avoidance (`src/internet/model/tcp-cubic.cc`:
//! `IncreaseWindow`, `Update`, `GetSsThresh`, `CubicReset`), a port of
//! Linux's older `tcp_cubic.c`, which the `ns3` profile runs for CUBIC.
//!
//! Unlike RFC 9438 ([`super::cubic`]) it works in whole segments: the
//! window is `cwnd / MSS` rounded down, the cubic curve's origin and its
//! offset are integers (the offset C·|t − K|³ truncated), and the increase
//! is a count: cwnd grows by one MSS once `cnt` segments have been
//! acknowledged since the last increase (at most one MSS per ACK), with
//! - `cnt = cwnd / (target − cwnd)` for target = W(t + delay_min) above
//!   cwnd, else 100·cwnd; t counts from the epoch's first ACK in
//!   congestion avoidance and delay_min is the smallest SRTT;
//! - `cnt` at most 20 (`CntClamp`) before the first loss (`m_lastMaxCwnd` 0);
//! - TCP friendliness: a Reno window estimate that gains one segment every
//!   ⌊cwnd·15/8⌋ acknowledged segments (β 0.7: 8(1 + β)/3/(1 − β) = 15.1,
//!   truncated) and, above cwnd, caps `cnt` at cwnd / (estimate − cwnd);
//! - `cnt` at least 2 (1.5·cwnd per RTT at most).
//!
//! At a loss W_max (`m_lastMaxCwnd`) takes cwnd, or cwnd·(1 + β)/2 under
//! fast convergence when cwnd is below the last W_max; ssthresh is
//! max(⌊cwnd·β⌋, 2) segments. The counter of acknowledged segments is
//! kept across losses. A timeout clears the origin, K, the Reno estimate
//! and delay_min (`CubicReset`), not W_max.
//!
//! delay_min: ns-3 takes it from the SRTT at every ACK (`PktsAcked`),
//! slow start's and recovery's included, except in the first
//! `CubicDelta` (10 ms) of an epoch. Congestion avoidance sees only its own
//! ACKs here, so delay_min starts from the subflow's smallest RTT sample
//! (which slow start's first ACKs set) and then follows the SRTT of each
//! congestion-avoidance ACK.

use super::{AckInfo, SubflowCc};
use crate::math::cbrt;
use crate::time::{SimDuration, SimTime};

/// `CntClamp`: the largest `cnt` before the first loss.
const CNT_CLAMP: u64 = 20;
/// `CubicDelta`: delay samples in the first 10 ms of an epoch are dropped.
const CUBIC_DELTA: SimDuration = SimDuration::from_millis(10);

/// One subflow's ns-3 CUBIC state (ns-3 `TcpCubic` members).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ns3CubicState {
    /// `m_cWndCnt`: segments acknowledged since the last increase.
    pub acked_since_increase: u64,
    /// `m_lastMaxCwnd`: W_max, segments; 0 before the first loss.
    pub last_max_cwnd: u64,
    /// `m_bicOriginPoint`: the curve's plateau, segments.
    pub origin: u64,
    /// `m_bicK`: seconds from the epoch's start to the plateau.
    pub k: f64,
    /// `m_delayMin`: the smallest SRTT taken, `None` until one is.
    pub delay_min: Option<SimDuration>,
    /// `m_epochStart`: the epoch's first congestion-avoidance ACK.
    pub epoch_start: Option<SimTime>,
    /// `m_ackCnt`: segments acknowledged towards the Reno estimate.
    pub ack_count: u64,
    /// `m_tcpCwnd`: the Reno-friendly window estimate, segments.
    pub reno_cwnd: u64,
    /// When fast recovery last ended: the ACK that ends it (at that
    /// instant) counts every segment it acknowledges, not only those it
    /// delivered.
    pub recovery_exit_at: Option<SimTime>,
}

impl Ns3CubicState {
    /// `PktsAcked`: the SRTT of this ACK into delay_min, unless the epoch
    /// began less than `CubicDelta` ago.
    fn take_delay(&mut self, sf: &SubflowCc, now: SimTime) {
        if self.epoch_start.is_some_and(|e| now.saturating_since(e) < CUBIC_DELTA) {
            return;
        }
        if self.delay_min.is_none() && sf.min_rtt > SimDuration::ZERO {
            self.delay_min = Some(sf.min_rtt);
        }
        if self.delay_min.is_none_or(|d| d > sf.srtt) {
            self.delay_min = Some(sf.srtt);
        }
    }

    /// `Update`: the number of acknowledged segments that earns the next MSS.
    pub fn count(&mut self, cwnd_segs: u64, acked_segs: u64, now: SimTime, c: f64, beta: f64, friendly: bool) -> u64 {
        self.ack_count += acked_segs;
        if self.epoch_start.is_none() {
            self.epoch_start = Some(now);
            self.ack_count = acked_segs;
            self.reno_cwnd = cwnd_segs;
            if self.last_max_cwnd <= cwnd_segs {
                self.k = 0.0;
                self.origin = cwnd_segs;
            } else {
                self.k = cbrt((self.last_max_cwnd - cwnd_segs) as f64 / c);
                self.origin = self.last_max_cwnd;
            }
        }
        let start = self.epoch_start.unwrap_or(now);
        let t = (now.saturating_since(start) + self.delay_min.unwrap_or_default()).as_secs_f64();
        let offset = (c * (t - self.k).abs().powi(3)) as u64;
        let target = if t < self.k {
            self.origin.saturating_sub(offset)
        } else {
            self.origin + offset
        };
        let mut cnt = if target > cwnd_segs {
            cwnd_segs / (target - cwnd_segs)
        } else {
            100 * cwnd_segs
        };
        if self.last_max_cwnd == 0 {
            cnt = cnt.min(CNT_CLAMP);
        }
        if friendly {
            let scale = (8.0 * (1024.0 + beta * 1024.0) / 3.0 / (1024.0 - beta * 1024.0)) as u64;
            let per_segment = (cwnd_segs * scale) >> 3;
            // The estimate gains a segment for every `per_segment` counted
            // while the count *exceeds* the step: an exact multiple keeps
            // one step in hand.
            if per_segment > 0 && self.ack_count > per_segment {
                let steps = (self.ack_count - 1) / per_segment;
                self.ack_count -= steps * per_segment;
                self.reno_cwnd += steps;
            }
            if self.reno_cwnd > cwnd_segs {
                cnt = cnt.min(cwnd_segs / (self.reno_cwnd - cwnd_segs));
            }
        }
        cnt.max(2)
    }

    /// One ACK in congestion avoidance (`PktsAcked` then `IncreaseWindow`).
    pub fn on_ack(&mut self, sf: &mut SubflowCc, ack: &AckInfo, c: f64, beta: f64, friendly: bool) {
        self.take_delay(sf, ack.now);
        if !ack.cwnd_limited {
            return;
        }
        // ns-3 counts the segments an ACK delivered (`currentDelivered`),
        // except on the ACK that ends fast recovery, which counts all it
        // acknowledges (`segsAcked` from ackNumber − oldHeadSequence).
        let mss = sf.mss as u64;
        let counted = if self.recovery_exit_at.take() == Some(ack.now) {
            ack.acked_bytes
        } else {
            ack.acked_bytes.min(sf.delivered_bytes)
        };
        let acked_segs = counted / mss;
        if acked_segs == 0 {
            return;
        }
        self.acked_since_increase += acked_segs;
        let cnt = self.count(sf.cwnd / mss, acked_segs, ack.now, c, beta, friendly);
        if self.acked_since_increase >= cnt {
            sf.cwnd += mss;
            self.acked_since_increase -= cnt;
        }
    }

    /// `GetSsThresh`: W_max with fast convergence, the epoch ended, and
    /// the new ssthresh in bytes.
    pub fn on_loss(&mut self, cwnd_bytes: u64, mss: u32, beta: f64, fast_convergence: bool) -> u64 {
        let mss = mss as u64;
        let segs = cwnd_bytes / mss;
        self.last_max_cwnd = if fast_convergence && segs < self.last_max_cwnd {
            (segs as f64 * (1.0 + beta) / 2.0) as u64
        } else {
            segs
        };
        self.epoch_start = None;
        ((segs as f64 * beta) as u64).max(2) * mss
    }

    /// `CubicReset` on a timeout (CA_LOSS).
    pub fn on_timeout(&mut self) {
        self.origin = 0;
        self.k = 0.0;
        self.ack_count = 0;
        self.reno_cwnd = 0;
        self.delay_min = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn subflow(cwnd_segs: u64, rtt_ms: u64) -> SubflowCc {
        let mut sf = SubflowCc::new(MSS as u32, cwnd_segs * MSS, u64::MAX);
        sf.srtt = SimDuration::from_millis(rtt_ms);
        sf.min_rtt = sf.srtt;
        sf.delivered_bytes = MSS;
        sf
    }

    fn ack(at_ms: u64) -> AckInfo {
        AckInfo {
            now: SimTime::ZERO + SimDuration::from_millis(at_ms),
            acked_bytes: MSS,
            cwnd_limited: true,
        }
    }

    /// Before the first loss `cnt` is clamped to 20: at 20 segments, with
    /// the curve flat (C·(t + 0.1 s)³ < 1 segment), one MSS per 20 ACKs.
    #[test]
    fn before_the_first_loss_one_mss_per_twenty_acks() {
        let mut st = Ns3CubicState::default();
        let mut sf = subflow(20, 100);
        for k in 0..19 {
            st.on_ack(&mut sf, &ack(k), 0.4, 0.7, true);
        }
        assert_eq!(sf.cwnd, 20 * MSS);
        st.on_ack(&mut sf, &ack(19), 0.4, 0.7, true);
        assert_eq!((sf.cwnd, st.acked_since_increase), (21 * MSS, 0));
    }

    /// W_max 100, cwnd 70 segments, delay_min 100 ms: K = ∛(30/0.4) =
    /// 4.217 s; at t + delay_min = 0.1 s the target is 100 − ⌊0.4·4.117³⌋ =
    /// 100 − 27 = 73, so cnt = ⌊70/3⌋ = 23: the 23rd ACK adds one MSS.
    #[test]
    fn concave_region_counts_cwnd_over_target_minus_cwnd() {
        let mut st = Ns3CubicState {
            last_max_cwnd: 100,
            ..Default::default()
        };
        let mut sf = subflow(70, 100);
        for k in 0..22 {
            st.on_ack(&mut sf, &ack(k), 0.4, 0.7, true);
        }
        assert_eq!((st.origin, sf.cwnd), (100, 70 * MSS));
        assert!((st.k - 4.217_163_326_508_746).abs() < 1e-12);
        st.on_ack(&mut sf, &ack(22), 0.4, 0.7, true);
        assert_eq!(sf.cwnd, 71 * MSS);
    }

    /// On the plateau (W_max = cwnd = 100, t = 0) the cubic count is
    /// 100·100; the Reno estimate gains a segment once the count exceeds
    /// ⌊100·15/8⌋ = 187, at the 188th ACK, and caps cnt at 100/(101 − 100):
    /// the 188 segments acknowledged by then pay for one MSS at once.
    #[test]
    fn reno_estimate_caps_the_count_on_the_plateau() {
        let mut st = Ns3CubicState {
            last_max_cwnd: 100,
            ..Default::default()
        };
        let mut sf = subflow(100, 0);
        for _ in 0..187 {
            st.on_ack(&mut sf, &ack(0), 0.4, 0.7, true);
        }
        assert_eq!((sf.cwnd, st.reno_cwnd), (100 * MSS, 100));
        st.on_ack(&mut sf, &ack(0), 0.4, 0.7, true);
        assert_eq!((sf.cwnd, st.reno_cwnd, st.acked_since_increase), (101 * MSS, 101, 88));
        // Without TCP friendliness the plateau does not grow.
        let mut st = Ns3CubicState {
            last_max_cwnd: 100,
            ..Default::default()
        };
        let mut sf = subflow(100, 0);
        for _ in 0..188 {
            st.on_ack(&mut sf, &ack(0), 0.4, 0.7, false);
        }
        assert_eq!(sf.cwnd, 100 * MSS);
    }

    /// ssthresh = max(⌊cwnd·0.7⌋, 2) segments; a second loss below W_max
    /// sets W_max = ⌊70·1.7/2⌋ = 59 (fast convergence), and the epoch ends.
    #[test]
    fn loss_sets_ssthresh_and_fast_convergence() {
        let mut st = Ns3CubicState::default();
        assert_eq!(st.on_loss(100 * MSS + 500, MSS as u32, 0.7, true), 70 * MSS);
        assert_eq!(st.last_max_cwnd, 100);
        st.epoch_start = Some(SimTime::ZERO);
        assert_eq!(st.on_loss(70 * MSS, MSS as u32, 0.7, true), 49 * MSS);
        assert_eq!((st.last_max_cwnd, st.epoch_start), (59, None));
        assert_eq!(st.on_loss(2 * MSS, MSS as u32, 0.7, true), 2 * MSS);
        // 2 < 59: W_max = ⌊2·1.7/2⌋ = 1. A timeout keeps it and clears the rest.
        st.delay_min = Some(SimDuration::from_millis(5));
        st.on_timeout();
        assert_eq!((st.last_max_cwnd, st.delay_min, st.origin), (1, None, 0));
    }

    /// An ACK over 19 segments of which 18 were SACKed earlier counts the
    /// one it delivered; the ACK that ends fast recovery counts all 19.
    #[test]
    fn counts_delivered_segments_except_when_leaving_recovery() {
        let mut st = Ns3CubicState::default();
        let mut sf = subflow(20, 100);
        let ack19 = AckInfo {
            acked_bytes: 19 * MSS,
            ..ack(0)
        };
        st.on_ack(&mut sf, &ack19, 0.4, 0.7, true);
        assert_eq!(st.acked_since_increase, 1);
        st.recovery_exit_at = Some(ack(1).now);
        st.on_ack(
            &mut sf,
            &AckInfo {
                now: ack(1).now,
                ..ack19
            },
            0.4,
            0.7,
            true,
        );
        // 1 + 19 = 20 reaches the clamp: one MSS, nothing left over.
        assert_eq!((sf.cwnd, st.acked_since_increase), (21 * MSS, 0));
    }

    /// Samples in the first 10 ms of an epoch (`CubicDelta`) are dropped.
    #[test]
    fn delay_samples_wait_ten_ms_into_an_epoch() {
        let mut st = Ns3CubicState {
            delay_min: Some(SimDuration::from_millis(50)),
            ..Default::default()
        };
        let mut sf = subflow(20, 50);
        st.on_ack(&mut sf, &ack(0), 0.4, 0.7, true);
        sf.srtt = SimDuration::from_millis(30);
        st.on_ack(&mut sf, &ack(9), 0.4, 0.7, true);
        assert_eq!(st.delay_min, Some(SimDuration::from_millis(50)));
        st.on_ack(&mut sf, &ack(10), 0.4, 0.7, true);
        assert_eq!(st.delay_min, Some(SimDuration::from_millis(30)));
    }
}
