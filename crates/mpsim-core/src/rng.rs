//! Seeded, splittable randomness.
//!
//! One master seed per run. Every component that draws random numbers owns a
//! [`RngStream`] derived from the master seed, a domain tag naming the kind of
//! component and the component's index, so adding a flow never changes the
//! draws of another component. Distributions are written here on top of the
//! raw generator (xoshiro256++) and use [`crate::math`] for transcendental
//! functions, so the numbers drawn do not depend on a library version or a
//! platform's libm.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::math;

/// The kinds of component that own a random stream. The discriminant is part
/// of the derivation, so it must never be renumbered.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum StreamDomain {
    LinkLoss = 1,
    QueueDisc = 2,
    TrafficSource = 3,
    Ecmp = 4,
    /// Per connection: the phase of its receiver's timestamp clock.
    Transport = 5,
    Workload = 6,
    /// Algorithms supplied by the caller (`crate::plugin`), one stream each.
    Plugin = 7,
    /// The jitter of a link's delay, one stream per link.
    LinkJitter = 8,
    /// Per subflow: a congestion control's own draws (BBR's ProbeBW start phase).
    CongestionControl = 9,
}

/// SplitMix64 finaliser: a bijective 64-bit mixer (Steele, Lea, Flood 2014).
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// An independent stream of random numbers owned by one component.
#[derive(Clone, Debug)]
pub struct RngStream(Xoshiro256PlusPlus);

impl RngStream {
    /// The stream of component `index` of kind `domain` in a run seeded `master_seed`.
    pub fn derive(master_seed: u64, domain: StreamDomain, index: u64) -> Self {
        let key = mix64(mix64(mix64(master_seed) ^ domain as u64) ^ index);
        RngStream(Xoshiro256PlusPlus::seed_from_u64(key))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1) with 53 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p` (p <= 0 never, p >= 1 always).
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// Exponential with the given mean, by inversion.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U is in (0, 1], so the logarithm is finite.
        -mean * math::ln(1.0 - self.uniform())
    }

    /// Pareto with shape `alpha > 1` and the given mean, by inversion.
    /// The scale is x_m = mean * (alpha - 1) / alpha.
    pub fn pareto(&mut self, shape: f64, mean: f64) -> f64 {
        let scale = mean * (shape - 1.0) / shape;
        scale / math::powf(1.0 - self.uniform(), 1.0 / shape)
    }

    /// Uniform integer in [0, n) (n > 0), by Lemire's multiply-shift.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_key_same_stream() {
        let mut a = RngStream::derive(7, StreamDomain::LinkLoss, 3);
        let mut b = RngStream::derive(7, StreamDomain::LinkLoss, 3);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn streams_differ_by_seed_domain_and_index() {
        let first = |s, d, i| RngStream::derive(s, d, i).next_u64();
        let base = first(7, StreamDomain::LinkLoss, 3);
        assert_ne!(base, first(8, StreamDomain::LinkLoss, 3));
        assert_ne!(base, first(7, StreamDomain::QueueDisc, 3));
        assert_ne!(base, first(7, StreamDomain::LinkLoss, 4));
    }

    #[test]
    fn uniform_mean_and_range() {
        let mut r = RngStream::derive(1, StreamDomain::Workload, 0);
        let n = 200_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let u = r.uniform();
            assert!((0.0..1.0).contains(&u));
            sum += u;
        }
        let mean = sum / n as f64;
        // Standard error is sqrt(1/12/n) ~ 0.00065; allow 5 sigma.
        assert!((mean - 0.5).abs() < 0.0033, "mean {mean}");
    }

    #[test]
    fn exponential_and_pareto_means() {
        let mut r = RngStream::derive(2, StreamDomain::Workload, 0);
        let n = 400_000;
        let exp_mean: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        // sd of the mean = 2/sqrt(n) ~ 0.0032.
        assert!((exp_mean - 2.0).abs() < 0.016, "exp mean {exp_mean}");
        // Shape 3 keeps the variance finite: var = xm^2 a/((a-1)^2 (a-2)).
        let par_mean: f64 = (0..n).map(|_| r.pareto(3.0, 1.5)).sum::<f64>() / n as f64;
        assert!((par_mean - 1.5).abs() < 0.02, "pareto mean {par_mean}");
    }

    #[test]
    fn below_is_in_range_and_covers() {
        let mut r = RngStream::derive(3, StreamDomain::Ecmp, 0);
        let mut seen = [0u32; 5];
        for _ in 0..10_000 {
            seen[r.below(5) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 1800 && c < 2200), "{seen:?}");
    }
}
