//! Slow-start strategies: how a subflow's window grows from its initial
//! window until it reaches ssthresh (or leaves slow start on a loss).
//!
//! A strategy is a component held beside the congestion-avoidance algorithm
//! (as s2n-quic's `hybrid_slow_start` is held by its CUBIC), so any slow
//! start combines with any congestion avoidance. The subflow calls slow start
//! first; the acknowledged bytes it does not use go on to congestion
//! avoidance. Coupled strategies (LISA, CSS, GSAM) see every subflow of the
//! connection, like coupled congestion avoidance does.

pub mod standard;

use crate::cc::SubflowCc;
use crate::time::SimTime;

pub use standard::{Standard, StandardConfig};

/// A slow-start strategy.
pub trait SlowStart {
    /// Grows `subflows[r].cwnd` for an ACK of `acked_bytes` new bytes while
    /// the subflow is in slow start. Returns the acknowledged bytes left over
    /// for congestion avoidance (non-zero when cwnd reached ssthresh).
    fn on_ack(&mut self, subflows: &mut [SubflowCc], r: usize, acked_bytes: u64, now: SimTime) -> u64;

    /// Subflow `r` is about to send its first data (LISA acts here).
    fn on_subflow_start(&mut self, _subflows: &mut [SubflowCc], _r: usize, _now: SimTime) {}

    /// Subflow `r` left slow start (loss or ssthresh reached).
    fn on_exit(&mut self, _subflows: &mut [SubflowCc], _r: usize, _now: SimTime) {}
}

/// The slow-start strategies, dispatched by enum.
#[derive(Clone, Debug)]
pub enum Ss {
    Standard(Standard),
}

impl SlowStart for Ss {
    #[inline]
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked: u64, now: SimTime) -> u64 {
        match self {
            Ss::Standard(x) => x.on_ack(s, r, acked, now),
        }
    }
    fn on_subflow_start(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        match self {
            Ss::Standard(x) => x.on_subflow_start(s, r, now),
        }
    }
    fn on_exit(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        match self {
            Ss::Standard(x) => x.on_exit(s, r, now),
        }
    }
}
