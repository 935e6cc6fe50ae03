//! Simulated time: integer nanoseconds, never a wall clock.
//!
//! All arithmetic on time is integer arithmetic so that a run is bit-for-bit
//! reproducible on any machine. Conversions from and to seconds exist only at
//! the edges (configuration and results).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

use serde::{Deserialize, Serialize};

/// A point in simulated time, in nanoseconds since the start of the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SimTime(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SimDuration(pub u64);

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    /// Later than any event a run can schedule.
    pub const NEVER: SimTime = SimTime(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    pub const fn nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// Time elapsed since `earlier`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * NANOS_PER_SEC)
    }
    /// Rounds to the nearest nanosecond; negative or NaN input gives zero.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            SimDuration(0)
        } else if s >= u64::MAX as f64 / NANOS_PER_SEC as f64 {
            SimDuration::MAX
        } else {
            SimDuration((s * NANOS_PER_SEC as f64).round() as u64)
        }
    }
    pub const fn nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    pub fn saturating_mul(self, k: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(k))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl AddAssign<SimDuration> for SimTime {
    #[inline]
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}

impl Add for SimDuration {
    type Output = SimDuration;
    #[inline]
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}

impl Sub for SimTime {
    type Output = SimDuration;
    /// Panics in debug builds if `rhs` is later; use `saturating_since` when that can happen.
    #[inline]
    fn sub(self, rhs: SimTime) -> SimDuration {
        debug_assert!(self.0 >= rhs.0, "time went backwards: {} - {}", self.0, rhs.0);
        SimDuration(self.0.wrapping_sub(rhs.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

/// Time to put `bytes` on a wire of `rate_bps` bits per second, rounded up to
/// the next nanosecond (a packet has not left until its last bit has).
#[inline]
pub fn serialization_time(bytes: u32, rate_bps: u64) -> SimDuration {
    debug_assert!(rate_bps > 0);
    // Below 2³¹ bytes, bytes · 8 · 10⁹ < 1.72 · 10¹⁹ fits 64 bits, whose
    // division is several times cheaper than a 128-bit one (same result).
    if bytes < 1 << 31 {
        return SimDuration((bytes as u64 * 8 * NANOS_PER_SEC).div_ceil(rate_bps));
    }
    let bits = bytes as u128 * 8 * NANOS_PER_SEC as u128;
    let rate = rate_bps as u128;
    SimDuration(bits.div_ceil(rate) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_for_round_rates() {
        // 1400 B at 5 Mbit/s: 11 200 bits / 5e6 = 2.24 ms.
        assert_eq!(serialization_time(1400, 5_000_000), SimDuration(2_240_000));
        // 1500 B at 1 Gbit/s: 12 µs.
        assert_eq!(serialization_time(1500, 1_000_000_000), SimDuration(12_000));
    }

    #[test]
    fn serialization_rounds_up() {
        // 1 B at 3 bit/s = 2.666.. s, rounded up to the next nanosecond.
        assert_eq!(serialization_time(1, 3), SimDuration(2_666_666_667));
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(SimDuration::from_secs_f64(0.03), SimDuration::from_millis(30));
        assert_eq!(SimDuration::from_secs_f64(-1.0), SimDuration::ZERO);
        assert_eq!(SimDuration::from_secs_f64(f64::NAN), SimDuration::ZERO);
        assert_eq!(SimTime(1_500_000_000).as_secs_f64(), 1.5);
    }
}
