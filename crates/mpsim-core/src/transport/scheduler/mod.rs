//! MPTCP packet schedulers: which subflow gets the connection's next chunk
//! of data. One file per scheduler; [`Scheduling`] dispatches by enum and
//! is built from the configuration's [`Scheduler`].
//!
//! A scheduler sees the subflows through [`Subflows`]: whether one has room
//! for a chunk now, and its window and RTT. It may also decline to send
//! (BLEST, ECF): the chunk then waits for the next ACK.

mod blest;
mod ecf;
mod minrtt;
pub mod plugin;
mod redundant;
mod roundrobin;

pub use blest::Blest;
pub use ecf::Ecf;
pub use minrtt::MinRtt;
pub use plugin::{DynSubflows, ExternalSchedule, PluginScheduler, PluginSchedulerConfig, SchedulerPluginFactory};
pub use redundant::Redundant;
pub use roundrobin::RoundRobin;

use super::mptcp::Scheduler;
use crate::time::SimDuration;

/// What a scheduler knows of one subflow.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SubflowState {
    /// Whether the subflow may carry data (established and not removed).
    pub established: bool,
    /// Smoothed RTT (RFC 6298).
    pub srtt: SimDuration,
    /// RTT variation (RFC 6298).
    pub rttvar: SimDuration,
    /// Congestion window, bytes.
    pub cwnd_bytes: u64,
    /// Slow-start threshold, bytes (`u64::MAX` before the first loss).
    pub ssthresh_bytes: u64,
    /// Bytes sent and not yet acknowledged.
    pub in_flight_bytes: u64,
    /// Segment size, bytes.
    pub mss: u32,
}

/// The subflows of a connection as a scheduler sees them, indexed from 0.
pub trait Subflows {
    fn count(&self) -> usize;
    /// Whether subflow `r` can send a chunk of `len` bytes now. Asking
    /// records, for a subflow without room, that its window limited it.
    fn has_room(&mut self, r: usize, len: u32) -> bool;
    fn state(&self, r: usize) -> SubflowState;
    /// Subflow `r`'s smoothed RTT: `state(r).srtt`, which the minimum-RTT
    /// choice compares for every chunk without the rest of the state.
    fn srtt(&self, r: usize) -> SimDuration {
        self.state(r).srtt
    }
}

/// The chunk to place, and the connection around it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Payload bytes.
    pub len: u32,
    /// A reinjected chunk avoids the subflow it came from while another has room.
    pub avoid: Option<usize>,
    /// Bytes the connection could still send after this chunk, within its
    /// window (ECF's k; `u64::MAX` without bound).
    pub unsent_bytes: u64,
    /// The connection's send window (RFC 8684 §3.3.4), bytes: the peer's
    /// window beyond DATA_ACK.
    pub window_bytes: u64,
}

/// A packet scheduler.
pub trait Schedule {
    /// The subflow to send `chunk` on, or `None` to wait.
    fn pick(&mut self, subflows: &mut impl Subflows, chunk: &Chunk) -> Option<usize>;

    /// Whether the chunk is sent again on every other subflow with room.
    fn duplicates(&self) -> bool {
        false
    }
}

/// The schedulers, dispatched by enum.
#[derive(Clone, Debug)]
pub enum Scheduling {
    MinRtt(MinRtt),
    RoundRobin(RoundRobin),
    Redundant(Redundant),
    Blest(Blest),
    Ecf(Ecf),
    /// A scheduler supplied by the caller (`scheduler = {type = "python"}`),
    /// boxed: its configuration is large beside the native schedulers.
    Plugin(Box<PluginScheduler>),
}

impl Scheduling {
    pub fn new(config: Scheduler) -> Self {
        match config {
            Scheduler::Minrtt => Scheduling::MinRtt(MinRtt),
            Scheduler::Roundrobin => Scheduling::RoundRobin(RoundRobin::default()),
            Scheduler::Redundant => Scheduling::Redundant(Redundant),
            Scheduler::Blest => Scheduling::Blest(Blest::default()),
            Scheduler::Ecf => Scheduling::Ecf(Ecf::default()),
            // `linger` queues chunks beyond a subflow's window: the data
            // level places them itself (`data_level/mptcp.rs`).
            Scheduler::Linger => Scheduling::MinRtt(MinRtt),
        }
    }
}

impl Schedule for Scheduling {
    #[inline]
    fn pick(&mut self, subflows: &mut impl Subflows, chunk: &Chunk) -> Option<usize> {
        match self {
            Scheduling::MinRtt(s) => s.pick(subflows, chunk),
            Scheduling::RoundRobin(s) => s.pick(subflows, chunk),
            Scheduling::Redundant(s) => s.pick(subflows, chunk),
            Scheduling::Blest(s) => s.pick(subflows, chunk),
            Scheduling::Ecf(s) => s.pick(subflows, chunk),
            Scheduling::Plugin(s) => s.pick(subflows, chunk),
        }
    }

    fn duplicates(&self) -> bool {
        matches!(self, Scheduling::Redundant(_))
    }
}

/// The established subflow with the lowest smoothed RTT, room or not (the
/// "fastest" subflow of BLEST and ECF); the first of equals.
fn fastest(subflows: &impl Subflows) -> Option<usize> {
    let mut best: Option<(usize, SimDuration)> = None;
    for r in 0..subflows.count() {
        let s = subflows.state(r);
        if s.established && best.is_none_or(|(_, srtt)| s.srtt < srtt) {
            best = Some((r, s.srtt));
        }
    }
    best.map(|(r, _)| r)
}

#[cfg(test)]
pub(crate) mod testing {
    //! Subflows set by hand for the schedulers' tests.
    use super::*;

    pub const MS: u64 = 1_000_000;
    pub const MSS: u32 = 1000;

    /// Subflows with the given states, and which of them have room.
    pub struct Fixed {
        pub states: Vec<SubflowState>,
        pub room: Vec<bool>,
        /// Subflows asked about, in order.
        pub asked: Vec<usize>,
    }

    impl Fixed {
        /// Established subflows of (srtt ms, cwnd segments, room).
        pub fn new(subflows: &[(u64, u64, bool)]) -> Self {
            Fixed {
                states: subflows
                    .iter()
                    .map(|&(srtt_ms, cwnd, _)| SubflowState {
                        established: true,
                        srtt: SimDuration(srtt_ms * MS),
                        rttvar: SimDuration::ZERO,
                        cwnd_bytes: cwnd * MSS as u64,
                        ssthresh_bytes: u64::MAX,
                        in_flight_bytes: 0,
                        mss: MSS,
                    })
                    .collect(),
                room: subflows.iter().map(|&(_, _, room)| room).collect(),
                asked: vec![],
            }
        }
    }

    impl Subflows for Fixed {
        fn count(&self) -> usize {
            self.states.len()
        }
        fn has_room(&mut self, r: usize, _len: u32) -> bool {
            self.asked.push(r);
            self.room[r]
        }
        fn state(&self, r: usize) -> SubflowState {
            self.states[r]
        }
    }

    /// A chunk of one MSS, no reinjection, with `unsent_bytes` behind it
    /// and a window of `window_bytes`.
    pub fn chunk(unsent_bytes: u64, window_bytes: u64) -> Chunk {
        Chunk {
            len: MSS,
            avoid: None,
            unsent_bytes,
            window_bytes,
        }
    }
}
