//! Round-trip time estimation and the retransmission timeout, RFC 6298.

use crate::time::SimDuration;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RttConfig {
    /// RTO before the first sample (RFC 6298 §2.1: 1 s).
    pub initial_rto: SimDuration,
    /// Lower bound on the RTO (RFC 6298 §2.4: 1 s; Linux 200 ms).
    pub min_rto: SimDuration,
    /// Upper bound on the RTO (RFC 6298 §2.5: at least 60 s).
    pub max_rto: SimDuration,
    /// Clock granularity G of RFC 6298 §2.2–2.3.
    pub granularity: SimDuration,
    /// The minimum bounds the variation term, not the RTO: RTO = SRTT +
    /// max(4·RTTVAR, `min_rto`), as Linux's `tcp_set_rto` (its RTTVAR is
    /// at least `tcp_rto_min`), instead of RFC 6298's max(`min_rto`, SRTT
    /// + 4·RTTVAR).
    pub min_rto_bounds_variation: bool,
}

impl Default for RttConfig {
    fn default() -> Self {
        RttConfig {
            initial_rto: SimDuration::from_secs(1),
            min_rto: SimDuration::from_secs(1),
            max_rto: SimDuration::from_secs(60),
            granularity: SimDuration::from_millis(1),
            min_rto_bounds_variation: false,
        }
    }
}

/// SRTT, RTTVAR and RTO in integer nanoseconds. alpha = 1/8 and beta = 1/4
/// are applied with integer division, which rounds each update down by less
/// than a nanosecond.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub config: RttConfig,
    /// Smoothed RTT; zero before the first sample.
    pub srtt: SimDuration,
    /// RTT variation; zero before the first sample.
    pub rttvar: SimDuration,
    /// Smallest sample seen.
    pub min_rtt: SimDuration,
    /// Latest sample.
    pub latest: SimDuration,
    /// Whether any sample has been taken.
    pub has_sample: bool,
    /// Current RTO before back-off.
    rto: SimDuration,
    /// Exponential back-off shift (RFC 6298 §5.5), reset by a new sample.
    pub backoff: u32,
}

impl RttEstimator {
    pub fn new(config: RttConfig) -> Self {
        RttEstimator {
            config,
            srtt: SimDuration::ZERO,
            rttvar: SimDuration::ZERO,
            min_rtt: SimDuration::ZERO,
            latest: SimDuration::ZERO,
            has_sample: false,
            rto: config.initial_rto,
            backoff: 0,
        }
    }

    /// RFC 6298 §2.2 (first sample) and §2.3 (later samples).
    pub fn sample(&mut self, r: SimDuration) {
        let r_ns = r.nanos();
        if !self.has_sample {
            self.srtt = r;
            self.rttvar = SimDuration(r_ns / 2);
            self.min_rtt = r;
            self.has_sample = true;
        } else {
            let srtt = self.srtt.nanos();
            let diff = srtt.abs_diff(r_ns);
            // RTTVAR <- (1 - beta) RTTVAR + beta |SRTT - R'|, beta = 1/4
            self.rttvar = SimDuration((3 * self.rttvar.nanos() + diff) / 4);
            // SRTT <- (1 - alpha) SRTT + alpha R', alpha = 1/8
            self.srtt = SimDuration((7 * srtt + r_ns) / 8);
            self.min_rtt = self.min_rtt.min(r);
        }
        self.latest = r;
        // RTO <- SRTT + max(G, K * RTTVAR), K = 4; then §2.4 and §2.5 bounds.
        let floor = if self.config.min_rto_bounds_variation {
            self.config.min_rto
        } else {
            self.config.granularity
        };
        let var_term = (4 * self.rttvar.nanos()).max(floor.nanos());
        self.rto = SimDuration(self.srtt.nanos() + var_term);
        self.backoff = 0;
    }

    /// The RTO in force, with back-off applied and bounds enforced.
    pub fn rto(&self) -> SimDuration {
        let base = self.rto.max(self.config.min_rto);
        let backed = base.saturating_mul(1u64 << self.backoff.min(30));
        backed.min(self.config.max_rto)
    }

    /// RFC 6298 §5.5: double the RTO after a timeout.
    pub fn back_off(&mut self) {
        if self.rto() < self.config.max_rto {
            self.backoff += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn first_and_second_sample() {
        let mut e = RttEstimator::new(RttConfig {
            min_rto: SimDuration::from_millis(200),
            ..RttConfig::default()
        });
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        e.sample(SimDuration(100 * MS));
        assert_eq!(e.srtt, SimDuration(100 * MS));
        assert_eq!(e.rttvar, SimDuration(50 * MS));
        // 100 + 4 * 50 = 300 ms.
        assert_eq!(e.rto(), SimDuration(300 * MS));
        e.sample(SimDuration(180 * MS));
        // RTTVAR = 3/4 * 50 + 1/4 * 80 = 57.5 ms; SRTT = 7/8 * 100 + 1/8 * 180 = 110 ms.
        assert_eq!(e.rttvar, SimDuration(57_500_000));
        assert_eq!(e.srtt, SimDuration(110 * MS));
        assert_eq!(e.rto(), SimDuration(340 * MS));
        assert_eq!(e.min_rtt, SimDuration(100 * MS));
    }

    #[test]
    fn linux_bounds_the_variation_term_by_the_minimum() {
        // Linux `tcp_set_rto`: SRTT + max(4·RTTVAR, 200 ms). With a steady
        // RTT of 216 ms RTTVAR decays towards 0 and the minimum holds the
        // term at 200 ms: RTO = 416 ms, where RFC 6298 gives about 216 ms.
        let config = RttConfig {
            min_rto: SimDuration::from_millis(200),
            min_rto_bounds_variation: true,
            ..RttConfig::default()
        };
        let mut e = RttEstimator::new(config);
        for _ in 0..40 {
            e.sample(SimDuration(216 * MS));
        }
        assert!(e.rttvar < SimDuration(MS));
        assert_eq!(e.rto(), e.srtt + SimDuration(200 * MS));
        // RFC 6298 with the same samples: max(200 ms, SRTT + 4·RTTVAR).
        let mut rfc = RttEstimator::new(RttConfig {
            min_rto_bounds_variation: false,
            ..config
        });
        for _ in 0..40 {
            rfc.sample(SimDuration(216 * MS));
        }
        assert!(rfc.rto() < SimDuration(220 * MS));
    }

    #[test]
    fn min_rto_and_backoff() {
        let mut e = RttEstimator::new(RttConfig::default());
        e.sample(SimDuration(10 * MS));
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), SimDuration::from_secs(4));
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(60));
        e.sample(SimDuration(10 * MS));
        assert_eq!(e.rto(), SimDuration::from_secs(1));
    }
}
