//! How a run stops before its end: the run's default limits, the reasons
//! for a stop, and the caller's [`Interrupt`] hook. A leaf of the crate, so
//! that the run loop, the errors and the configuration can all name them
//! (the cost estimate that checks a scenario against its limits is in
//! [`crate::limits`]).

use std::fmt;

use crate::time::SimTime;

/// Events a run may process unless `limits.max_events` says otherwise: about
/// a minute of wall time at the 12–26 M events/s of docs/performance.md.
pub const DEFAULT_MAX_EVENTS: u64 = 1_000_000_000;
/// Trace rows (queue samples plus per-ACK TCP rows) a run may record unless
/// `limits.max_trace_rows` says otherwise: a few hundred MB of results.
pub const DEFAULT_MAX_TRACE_ROWS: u64 = 10_000_000;
/// How often the run loop checks its limits and asks its [`Interrupt`],
/// in events: a few milliseconds of wall time at the engine's speed, and
/// nothing per event beyond one comparison.
pub const CHECK_EVERY_EVENTS: u64 = 1 << 16;

/// Why a run stopped before its end.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// The caller's [`Interrupt`] asked to stop (Ctrl-C).
    Interrupted,
    /// The caller's wall-time limit, in seconds, passed.
    TimeLimit { limit_s: f64 },
    /// `limits.max_events` was reached.
    EventLimit { limit: u64 },
    /// `limits.max_trace_rows` was reached.
    TraceLimit { limit: u64 },
    /// An algorithm supplied by the caller failed (`crate::plugin::Abort`);
    /// the caller holds what went wrong.
    Aborted,
}

/// Where a run stopped and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Stopped {
    pub why: Stop,
    /// Simulated time reached.
    pub at: SimTime,
    /// The run's stop time.
    pub stop_time: SimTime,
    pub events_processed: u64,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = format!(
            "at {:.3} s of {:.3} s simulated, after {} events",
            self.at.as_secs_f64(),
            self.stop_time.as_secs_f64(),
            self.events_processed
        );
        match &self.why {
            Stop::Interrupted => write!(f, "interrupted {at}"),
            Stop::TimeLimit { limit_s } => write!(f, "stopped by the time limit of {limit_s} s {at}"),
            Stop::EventLimit { limit } => write!(
                f,
                "limits.max_events: the run reached its limit of {limit} events {at}; raise limits.max_events to let it go on"
            ),
            Stop::Aborted => write!(f, "stopped by a plug-in's failure {at}"),
            Stop::TraceLimit { limit } => write!(
                f,
                "limits.max_trace_rows: the run reached its limit of {limit} trace rows {at}; raise limits.max_trace_rows, trace fewer flows or queues, or sample queues less often"
            ),
        }
    }
}

/// Asked every [`CHECK_EVERY_EVENTS`] events whether the run may go on.
pub trait Interrupt {
    /// `Some` stops the run with that reason.
    fn poll(&mut self) -> Option<Stop>;

    /// Told the simulated time reached (`now`, of `stop_time`) at every
    /// pause and once more when the run ends, in non-decreasing order: a
    /// progress report costs nothing per event.
    fn progress(&mut self, _now: SimTime, _stop_time: SimTime) {}
}

/// Never interrupts.
pub struct Never;

impl Interrupt for Never {
    fn poll(&mut self) -> Option<Stop> {
        None
    }
}

impl<F: FnMut() -> Option<Stop>> Interrupt for F {
    fn poll(&mut self) -> Option<Stop> {
        self()
    }
}
