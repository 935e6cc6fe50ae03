//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways
//! for Congestion Avoidance", IEEE/ACM ToN 1(4), 1993), with the "gentle"
//! variant (Floyd, "Recommendation on using the gentle_ variant of RED", 2000).
//!
//! The algorithm is the paper's Fig. 2 ("Detailed algorithm for RED
//! gateways"), step by step; "mark" is always a drop here. Readings:
//!
//! - `q`, the "current queue size", is the number of packets waiting, not
//!   counting the one on the transmitter (the [`Fifo`] holds only those), so
//!   "the queue becomes empty" when the last waiting packet moves onto the
//!   transmitter, and the idle period of Fig. 2 starts then.
//! - `f(t)` of Fig. 2 is `t / s`, `s` the transmission time of a typical
//!   packet (§4: "the number m of small packets that could have been
//!   transmitted by the gateway during the idle period"). `m` is kept real
//!   rather than truncated (ns-2 truncates it to an integer).
//! - Fig. 2 does not say how a hard buffer limit interacts with RED. As in
//!   Floyd's ns-2 `red.cc`, every arrival first updates `avg` and takes RED's
//!   decision (so `count` counts every arrival, accepted or not); an arrival
//!   RED lets through is then tail-dropped if `limit_pkts` packets wait.
//!
//! Adaptive RED (Floyd, Gummadi, Shenker, "Adaptive RED: An Algorithm for
//! Increasing the Robustness of RED's Active Queue Management", 2001), what
//! ns-2 runs with `adaptive_ 1`, is this RED with its parameters set from the
//! link ([`AdaptiveParameters`]) and `max_p` adapted ([`Adaptation`]):
//!
//! - parameters: w_q = 1 − exp(−1/C), C the link's rate in typical packets per
//!   second (a time constant of one second); min_th = max(5, delay_target·C/2)
//!   packets, max_th = 3·min_th, so that the middle of the target range,
//!   2·min_th, is delay_target of queueing;
//! - the adaptive algorithm, every `interval` (0.5 s): with target = [min_th + 0.4(max_th −
//!   min_th), min_th + 0.6(max_th − min_th)], if avg > target and max_p ≤ 0.5,
//!   max_p ← max_p + α with α = min(0.01, max_p/4); if avg < target and
//!   max_p ≥ 0.01, max_p ← β·max_p with β = 0.9. As ns-2's `updateMaxP`, the
//!   interval is checked at arrivals, after the average is updated: the first
//!   arrival at least `interval` after the last adaptation adapts.

use super::{Fifo, QueuedPacket};
use crate::math;
use crate::observe::DropReason;
use crate::rng::RngStream;
use crate::time::{SimDuration, SimTime};

/// What the average queue size says about an arrival, before any coin is
/// tossed.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Region {
    /// `avg < min_th`: no congestion.
    Below,
    /// Drop with the count-corrected probability built on this `p_b`.
    Probabilistic { p_b: f64 },
    /// Drop every arrival.
    Forced,
}

#[derive(Debug)]
pub struct Red {
    pub(super) fifo: Fifo,
    /// Hard limit on packets waiting; an arrival that finds this many is
    /// dropped as [`DropReason::TailDrop`].
    limit_pkts: u32,
    /// `min_th`, in packets of average queue: below it nothing is dropped.
    min_th: f64,
    /// `max_th`, in packets of average queue: at it the base drop
    /// probability reaches `max_p`.
    max_th: f64,
    /// `max_p`, dimensionless: the base drop probability as `avg` reaches
    /// `max_th`.
    max_p: f64,
    /// `w_q`, dimensionless: weight of the newest sample in `avg`.
    w_q: f64,
    /// Gentle mode: between `max_th` and `2 max_th` the base probability
    /// rises linearly from `max_p` to 1 instead of jumping to 1 at `max_th`.
    gentle: bool,
    /// `s`: transmission time of a typical packet on this link, the unit in
    /// which idle time ages `avg`.
    typical_tx: SimDuration,
    /// `avg`, in packets: exponentially weighted average of `q` sampled at
    /// arrivals (Fig. 2, "saved variables").
    avg: f64,
    /// `q_time`: when the queue last became empty, the start of the current
    /// idle period. Meaningful only while the queue is empty.
    q_time: SimTime,
    /// `count`: arrivals since the last drop while `avg >= min_th`; -1 while
    /// `avg < min_th` (Fig. 2 initialises it to -1).
    count: i64,
    /// Adaptive RED's adaptation of `max_p`, if on.
    adaptation: Option<Adaptation>,
}

/// Adaptive RED's automatic parameters of a link (Floyd et al. 2001, its parameter settings).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AdaptiveParameters {
    /// min_th, packets.
    pub min_th: f64,
    /// max_th = 3 min_th, packets.
    pub max_th: f64,
    /// w_q = 1 − exp(−1/C).
    pub w_q: f64,
}

impl AdaptiveParameters {
    /// For a link of `rate_bps` carrying packets of `mean_pkt_size_bytes`,
    /// with an average queueing delay target of `delay_target`.
    pub fn of_link(rate_bps: u64, mean_pkt_size_bytes: u32, delay_target: SimDuration) -> Self {
        // C, typical packets per second.
        let c = rate_bps as f64 / (8.0 * mean_pkt_size_bytes.max(1) as f64);
        // min_th = max(5, delay_target·C/2), max_th = 3·min_th.
        let min_th = (delay_target.as_secs_f64() * c / 2.0).max(5.0);
        AdaptiveParameters {
            min_th,
            max_th: 3.0 * min_th,
            // w_q = 1 − exp(−1/C).
            w_q: 1.0 - math::exp(-1.0 / c),
        }
    }
}

/// The adaptation of `max_p` (Floyd et al. 2001, the adaptive algorithm).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Adaptation {
    /// How often `max_p` may change (0.5 s).
    pub interval: SimDuration,
    /// When it last changed, or the start of the run.
    last: SimTime,
}

impl Adaptation {
    pub fn new(interval: SimDuration) -> Self {
        Adaptation {
            interval,
            last: SimTime::ZERO,
        }
    }
}

/// The adaptive algorithm's step for an average queue `avg` against the thresholds: the new max_p.
pub fn adapted_max_p(max_p: f64, avg: f64, min_th: f64, max_th: f64) -> f64 {
    let low = min_th + 0.4 * (max_th - min_th);
    let high = min_th + 0.6 * (max_th - min_th);
    if avg > high && max_p <= 0.5 {
        // α = min(0.01, max_p/4): additive increase.
        max_p + (max_p / 4.0).min(0.01)
    } else if avg < low && max_p >= 0.01 {
        // β = 0.9: multiplicative decrease.
        0.9 * max_p
    } else {
        max_p
    }
}

impl Red {
    pub fn new(
        limit_pkts: u32,
        min_th: f64,
        max_th: f64,
        max_p: f64,
        w_q: f64,
        gentle: bool,
        typical_tx: SimDuration,
    ) -> Self {
        Red {
            fifo: Fifo::default(),
            limit_pkts,
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            typical_tx,
            // Fig. 2, "Initialization: avg <- 0, count <- -1".
            avg: 0.0,
            q_time: SimTime::ZERO,
            count: -1,
            adaptation: None,
        }
    }

    /// The same RED with Adaptive RED's adaptation of `max_p`.
    pub fn adaptive(mut self, interval: SimDuration) -> Self {
        self.adaptation = Some(Adaptation::new(interval));
        self
    }

    /// (min_th, max_th, max_p, w_q) now.
    pub fn parameters(&self) -> (f64, f64, f64, f64) {
        (self.min_th, self.max_th, self.max_p, self.w_q)
    }

    /// Fig. 2, "for each packet arrival". On drop the packet is handed back
    /// with the cause.
    pub fn enqueue(
        &mut self,
        p: QueuedPacket,
        now: SimTime,
        rng: &mut RngStream,
    ) -> Result<(), (QueuedPacket, DropReason)> {
        self.update_average(now);
        if let Some(a) = self.adaptation.as_mut() {
            if now >= a.last + a.interval {
                a.last = now;
                self.max_p = adapted_max_p(self.max_p, self.avg, self.min_th, self.max_th);
            }
        }
        if let Some(why) = self.early_drop(rng) {
            return Err((p, why));
        }
        if self.fifo.len_pkts() >= self.limit_pkts {
            return Err((p, DropReason::TailDrop));
        }
        self.fifo.push(p);
        Ok(())
    }

    pub fn dequeue(&mut self, now: SimTime) -> Option<QueuedPacket> {
        let p = self.fifo.pop()?;
        if self.fifo.is_empty() {
            // Fig. 2, "when queue becomes empty: q_time <- time".
            self.q_time = now;
        }
        Some(p)
    }

    /// Fig. 2, "calculate the new average queue size avg".
    fn update_average(&mut self, now: SimTime) {
        let q = self.fifo.len_pkts();
        if q > 0 {
            // Fig. 2: avg <- (1 - w_q) avg + w_q q. Written as in the paper,
            // not as avg + w_q (q - avg), so hand-computed values match.
            self.avg = (1.0 - self.w_q) * self.avg + self.w_q * q as f64;
        } else {
            // Fig. 2: m <- f(time - q_time); avg <- (1 - w_q)^m avg. Aging by
            // the packets the idle link could have sent (§4) lets avg fall
            // during idle periods, when no arrival samples the empty queue.
            // A zero `s` (a zero typical size) is taken as 1 ns so that m
            // stays finite.
            let idle_ns = now.saturating_since(self.q_time).nanos();
            let m = idle_ns as f64 / self.typical_tx.nanos().max(1) as f64;
            self.avg *= math::powf(1.0 - self.w_q, m);
        }
    }

    /// Where `avg` falls among the thresholds, and the base probability
    /// `p_b` where the decision is random.
    fn region(&self) -> Region {
        let avg = self.avg;
        if avg < self.min_th {
            Region::Below
        } else if avg < self.max_th {
            // Fig. 2: p_b <- max_p (avg - min_th) / (max_th - min_th).
            let p_b = self.max_p * (avg - self.min_th) / (self.max_th - self.min_th);
            Region::Probabilistic { p_b }
        } else if self.gentle && avg < 2.0 * self.max_th {
            // Floyd 2000 (gentle): p_b rises linearly from max_p at max_th
            // to 1 at 2 max_th, removing the jump to 1 that makes RED
            // oscillate around max_th.
            let p_b = self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th;
            Region::Probabilistic { p_b }
        } else {
            Region::Forced
        }
    }

    /// RED's decision for one arrival: whether to drop it early. Draws from
    /// `rng` only when the outcome is genuinely uncertain (0 < p_a < 1).
    fn early_drop(&mut self, rng: &mut RngStream) -> Option<DropReason> {
        match self.region() {
            Region::Below => {
                // Fig. 2: "else count <- -1".
                self.count = -1;
                None
            }
            Region::Forced => {
                // Fig. 2: "else if max_th <= avg: mark the arriving packet;
                // count <- 0" (with gentle mode: avg >= 2 max_th).
                self.count = 0;
                Some(DropReason::RedForced)
            }
            Region::Probabilistic { p_b } => {
                // Fig. 2: "increment count".
                self.count += 1;
                // Fig. 2: p_a <- p_b / (1 - count p_b). §7 ("Method 2"): the
                // growing p_a spaces drops uniformly rather than
                // geometrically, avoiding clusters of drops. Once
                // count p_b >= 1 the formula has no meaning (the uniform
                // spacing has run out): drop for certain.
                let count_p_b = self.count as f64 * p_b;
                let drop = if count_p_b >= 1.0 {
                    true
                } else {
                    let p_a = p_b / (1.0 - count_p_b);
                    if p_a >= 1.0 {
                        true
                    } else if p_a <= 0.0 {
                        false
                    } else {
                        rng.bernoulli(p_a)
                    }
                };
                if drop {
                    // Fig. 2: "with probability p_a: mark the arriving
                    // packet; count <- 0".
                    self.count = 0;
                }
                drop.then_some(DropReason::RedEarly)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PacketId;
    use crate::rng::StreamDomain;

    /// `s` in the tests: 1 ms.
    const S_NS: u64 = 1_000_000;

    fn qp(i: u32) -> QueuedPacket {
        QueuedPacket {
            id: PacketId(i),
            size_bytes: 1500,
            step: 0,
            delivery_hint: QueuedPacket::NO_HINT,
        }
    }

    fn rng() -> RngStream {
        RngStream::derive(11, StreamDomain::QueueDisc, 0)
    }

    /// A RED queue whose average never moves (w_q = 0: the update keeps
    /// avg and (1 - 0)^m = 1), parked at `avg`.
    fn frozen(avg: f64, min_th: f64, max_th: f64, max_p: f64, gentle: bool) -> Red {
        let mut r = Red::new(u32::MAX, min_th, max_th, max_p, 0.0, gentle, SimDuration(S_NS));
        r.avg = avg;
        r
    }

    /// Offers one packet at time 0 and takes it straight out again, so the
    /// queue stays empty. Returns why RED dropped it, if it did.
    fn offer_why(r: &mut Red, rng: &mut RngStream) -> Option<DropReason> {
        match r.enqueue(qp(0), SimTime::ZERO, rng) {
            Ok(()) => {
                r.dequeue(SimTime::ZERO);
                None
            }
            Err((_, why)) => Some(why),
        }
    }

    /// [`offer_why`]: whether RED dropped the packet, early or forced.
    fn offer(r: &mut Red, rng: &mut RngStream) -> bool {
        let why = offer_why(r, rng);
        assert!(matches!(why, None | Some(DropReason::RedEarly | DropReason::RedForced)));
        why.is_some()
    }

    #[test]
    fn average_follows_fig2_update_on_hand_computed_values() {
        // w_q = 1/4 keeps every value exact in binary.
        let mut r = Red::new(100, 50.0, 100.0, 0.1, 0.25, true, SimDuration(S_NS));
        let mut g = rng();
        // Arrivals at queue lengths 0 (aged: 0.75^0 * 0 = 0), 1, 2, 3.
        let expected = [0.0, 0.25, 0.75 * 0.25 + 0.25 * 2.0, 0.75 * 0.6875 + 0.25 * 3.0];
        for (i, want) in expected.into_iter().enumerate() {
            r.enqueue(qp(i as u32), SimTime::ZERO, &mut g).unwrap();
            assert_eq!(r.avg, want, "after arrival {i}");
        }
        assert_eq!(r.avg, 1.265625);
        assert_eq!(r.count, -1);
    }

    #[test]
    fn average_ages_over_idle_time_in_typical_packets() {
        let mut r = Red::new(100, 50.0, 100.0, 0.1, 0.25, true, SimDuration(S_NS));
        let mut g = rng();
        for i in 0..4 {
            r.enqueue(qp(i), SimTime::ZERO, &mut g).unwrap();
        }
        assert_eq!(r.avg, 1.265625);
        // The queue empties at 10 ms: the idle period starts then, not at
        // the earlier dequeues.
        for t in [7, 8, 9, 10] {
            r.dequeue(SimTime::from_millis(t)).unwrap();
        }
        assert_eq!(r.q_time, SimTime::from_millis(10));
        // Arrival 3 s later: m = 3, avg = 0.75^3 * 1.265625 = 0.533935546875.
        r.enqueue(qp(9), SimTime::from_millis(13), &mut g).unwrap();
        assert!((r.avg - 0.533935546875).abs() < 1e-15, "avg {}", r.avg);
        // Empty again at 13 ms, next arrival 1.5 packet times later: m = 1.5.
        r.dequeue(SimTime::from_millis(13)).unwrap();
        let before = r.avg;
        r.enqueue(qp(10), SimTime(13 * S_NS + 3 * S_NS / 2), &mut g).unwrap();
        let want = before * 0.75f64 * 0.75f64.sqrt();
        assert!((r.avg - want).abs() < 1e-14, "avg {} want {want}", r.avg);
    }

    #[test]
    fn no_early_drop_and_no_draw_below_min_th() {
        // Arrivals build a queue of 40 with w_q = 0.002: avg stays < 1.
        let mut r = Red::new(1000, 5.0, 15.0, 0.1, 0.002, false, SimDuration(S_NS));
        let mut g = rng();
        let untouched = g.clone();
        for i in 0..40 {
            r.enqueue(qp(i), SimTime::ZERO, &mut g).unwrap();
        }
        assert!(r.avg < 5.0);
        assert_eq!(r.count, -1);
        // No random number was drawn.
        assert_eq!(g.next_u64(), untouched.clone().next_u64());
    }

    #[test]
    fn hard_limit_is_overflow() {
        let mut r = Red::new(2, 50.0, 100.0, 0.1, 0.002, true, SimDuration(S_NS));
        let mut g = rng();
        assert!(r.enqueue(qp(0), SimTime::ZERO, &mut g).is_ok());
        assert!(r.enqueue(qp(1), SimTime::ZERO, &mut g).is_ok());
        assert_eq!(
            r.enqueue(qp(2), SimTime::ZERO, &mut g),
            Err((qp(2), DropReason::TailDrop))
        );
        assert_eq!(r.fifo.len_pkts(), 2);
    }

    #[test]
    fn base_probability_between_thresholds_and_on_the_gentle_ramp() {
        let at = |avg, gentle| frozen(avg, 5.0, 15.0, 0.1, gentle).region();
        assert_eq!(at(4.999, true), Region::Below);
        // p_b = max_p (avg - min_th) / (max_th - min_th).
        assert_eq!(at(5.0, true), Region::Probabilistic { p_b: 0.0 });
        assert_eq!(at(10.0, false), Region::Probabilistic { p_b: 0.05 });
        // Gentle: continuous at max_th (p_b = max_p), linear to 1 at 2 max_th.
        assert_eq!(at(15.0, true), Region::Probabilistic { p_b: 0.1 });
        assert_eq!(at(22.5, true), Region::Probabilistic { p_b: 0.1 + 0.9 * 0.5 });
        assert_eq!(at(30.0, true), Region::Forced);
        // Without gentle mode, max_th is a cliff.
        assert_eq!(at(15.0, false), Region::Forced);
        assert_eq!(at(22.5, false), Region::Forced);
    }

    #[test]
    fn drop_probability_between_thresholds_is_p_b_over_one_minus_count_p_b() {
        // avg = 10 between min_th = 5 and max_th = 15: p_b = 0.05. For each
        // value of count, the frequency of drops must match
        // p_a = p_b / (1 - count p_b) (Fig. 2).
        let p_b = 0.05;
        let mut r = frozen(10.0, 5.0, 15.0, 0.1, false);
        let mut g = rng();
        let mut trials = [0u64; 32];
        let mut drops = [0u64; 32];
        // gaps[n]: drops that came n arrivals after the previous drop.
        let mut gaps = [0u64; 32];
        let mut since_drop = 0;
        for _ in 0..400_000 {
            // Fig. 2 increments count before computing p_a.
            let c = (r.count + 1) as usize;
            trials[c] += 1;
            since_drop += 1;
            if offer(&mut r, &mut g) {
                drops[c] += 1;
                gaps[since_drop] += 1;
                since_drop = 0;
            }
        }
        for c in 1..19 {
            let p_a = p_b / (1.0 - c as f64 * p_b);
            let n = trials[c] as f64;
            let freq = drops[c] as f64 / n;
            let sd = (p_a * (1.0 - p_a) / n).sqrt();
            assert!((freq - p_a).abs() < 5.0 * sd, "count {c}: {freq} vs p_a {p_a} (n {n})");
        }
        // With Fig. 2's increment-first count the gap between drops is
        // uniform on 1 ..= 1/p_b - 1 (§7, "Method 2"; P = p_b / (1 - p_b)
        // each): p_a reaches 1 at count 19, so no gap is longer. The first
        // gap of the run starts from count -1 and may be one longer.
        assert!(gaps[21..].iter().all(|&k| k == 0), "{gaps:?}");
        let total: u64 = gaps[1..20].iter().sum();
        for (n, &k) in gaps.iter().enumerate().take(20).skip(1) {
            let share = k as f64 / total as f64;
            // ~40 000 gaps: sd of a share is ~0.0011; allow 5 sd.
            assert!((share - 1.0 / 19.0).abs() < 0.0056, "gap {n}: {share}");
        }
    }

    #[test]
    fn first_arrival_above_min_th_drops_with_p_b() {
        // From count = -1 the first arrival in the band sees count = 0, so
        // p_a = p_b. Gentle band, avg = 1.1 max_th: p_b = 0.1 + 0.9 * 0.1.
        let p_b = 0.19;
        let mut g = rng();
        let n = 40_000;
        let mut dropped = 0;
        for _ in 0..n {
            let mut r = frozen(16.5, 5.0, 15.0, 0.1, true);
            if offer(&mut r, &mut g) {
                dropped += 1;
            }
            // Either way count is 0: reset by the drop, or -1 + 1.
            assert_eq!(r.count, 0);
        }
        let freq = dropped as f64 / n as f64;
        let sd = (p_b * (1.0 - p_b) / n as f64).sqrt();
        assert!((freq - p_b).abs() < 5.0 * sd, "{freq} vs {p_b}");
    }

    #[test]
    fn forced_drop_at_and_above_max_th_without_gentle() {
        let mut r = frozen(15.0, 5.0, 15.0, 0.1, false);
        let mut g = rng();
        let untouched = g.clone();
        for _ in 0..100 {
            assert_eq!(offer_why(&mut r, &mut g), Some(DropReason::RedForced));
            assert_eq!(r.count, 0);
        }
        // Certain outcomes draw nothing.
        assert_eq!(g.next_u64(), untouched.clone().next_u64());
    }

    #[test]
    fn gentle_ramp_is_random_below_twice_max_th_and_forced_above() {
        let mut g = rng();
        // avg = 16.5 with gentle: not every packet is dropped ...
        let mut r = frozen(16.5, 5.0, 15.0, 0.1, true);
        let outcomes: Vec<_> = (0..1000).map(|_| offer_why(&mut r, &mut g)).collect();
        assert!(outcomes.contains(&None));
        // ... and what it drops there is an early drop, not a forced one.
        assert!(outcomes.iter().flatten().all(|&why| why == DropReason::RedEarly));
        // ... and since p_b = 0.19, p_a = p_b / (1 - count p_b) passes 1
        // at count 5 (0.19 / 0.05): never more than 4 arrivals in a row
        // get through.
        let mut run = 0;
        for _ in 0..10_000 {
            if offer(&mut r, &mut g) {
                run = 0;
            } else {
                run += 1;
                assert!(run <= 4, "{run} kept in a row");
            }
        }
        // At 2 max_th every packet is dropped, forced.
        let mut r = frozen(30.0, 5.0, 15.0, 0.1, true);
        assert!((0..100).all(|_| offer_why(&mut r, &mut g) == Some(DropReason::RedForced)));
    }

    #[test]
    fn below_min_th_resets_count() {
        let mut r = frozen(10.0, 5.0, 15.0, 0.1, false);
        let mut g = rng();
        offer(&mut r, &mut g);
        assert!(r.count >= 0);
        r.avg = 4.0;
        assert!(!offer(&mut r, &mut g));
        assert_eq!(r.count, -1);
    }
}

#[cfg(test)]
mod adaptive_tests {
    use super::*;
    use crate::ids::PacketId;
    use crate::rng::StreamDomain;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs()
    }

    #[test]
    fn automatic_parameters_follow_the_papers_formulas() {
        // 100 Mbit/s of 1000-byte packets: C = 12 500 packets/s.
        // min_th = 0.005 · 12 500 / 2 = 31.25, max_th = 93.75, w_q = 1 − e^(−1/12 500).
        let p = AdaptiveParameters::of_link(100_000_000, 1000, SimDuration::from_millis(5));
        assert!(close(p.min_th, 31.25) && close(p.max_th, 93.75));
        assert!(close(p.w_q, 7.999_680_008_530_241e-5), "{}", p.w_q);
        // 10 Mbit/s: C = 1250, delay_target·C/2 = 3.125 < 5, so min_th = 5, max_th = 15;
        // w_q = 1 − e^(−0.0008).
        let p = AdaptiveParameters::of_link(10_000_000, 1000, SimDuration::from_millis(5));
        assert_eq!((p.min_th, p.max_th), (5.0, 15.0));
        assert!(close(p.w_q, 7.996_800_853_162_789e-4), "{}", p.w_q);
    }

    #[test]
    fn max_p_steps_as_the_adaptive_algorithm_says() {
        // min_th 31.25, max_th 93.75: target = [56.25, 68.75].
        let step = |max_p, avg| adapted_max_p(max_p, avg, 31.25, 93.75);
        // Above the target: + min(0.01, max_p/4).
        assert!(close(step(0.1, 80.0), 0.11));
        assert!(close(step(0.02, 80.0), 0.025));
        assert!(close(step(0.5, 80.0), 0.51));
        assert_eq!(step(0.51, 80.0), 0.51);
        // Below: × 0.9, down to 0.01.
        assert!(close(step(0.1, 40.0), 0.09));
        assert!(close(step(0.01, 40.0), 0.009));
        assert_eq!(step(0.009, 40.0), 0.009);
        // Inside the target range: unchanged.
        assert_eq!(step(0.1, 56.25), 0.1);
        assert_eq!(step(0.1, 68.75), 0.1);
    }

    #[test]
    fn max_p_adapts_at_the_first_arrival_of_each_interval() {
        // A queue held far above its target (avg parked at 80 with w_q = 0).
        let mut r = Red::new(u32::MAX, 31.25, 93.75, 0.02, 0.0, true, SimDuration(1_000_000))
            .adaptive(SimDuration::from_millis(500));
        r.avg = 80.0;
        let mut g = RngStream::derive(3, StreamDomain::QueueDisc, 0);
        let mut arrive = |r: &mut Red, ms: u64| {
            let p = QueuedPacket {
                id: PacketId(0),
                size_bytes: 1000,
                step: 0,
                delivery_hint: QueuedPacket::NO_HINT,
            };
            if r.enqueue(p, SimTime(ms * 1_000_000), &mut g).is_ok() {
                r.dequeue(SimTime(ms * 1_000_000));
            }
            r.parameters().2
        };
        // Nothing before 0.5 s; then 0.02 + 0.005 at 0.5 s, 0.025 + 0.00625 at 1.0 s.
        assert_eq!(arrive(&mut r, 499), 0.02);
        assert!(close(arrive(&mut r, 500), 0.025));
        assert!(close(arrive(&mut r, 999), 0.025));
        assert!(close(arrive(&mut r, 1000), 0.03125));
        // Then the queue empties far below the target: × 0.9 from the next interval.
        r.avg = 10.0;
        assert!(close(arrive(&mut r, 1200), 0.03125));
        assert!(close(arrive(&mut r, 1600), 0.028125));
    }
}
