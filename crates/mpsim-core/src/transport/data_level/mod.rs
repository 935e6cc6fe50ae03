//! The data level of a connection: what its subflows carry and how the
//! receiver puts it back together. Plain TCP carries its own byte stream on
//! one subflow ([`StreamLevel`]); MPTCP (RFC 8684) spreads one data
//! sequence space over several subflows with a scheduler, acknowledges it
//! with DATA_ACKs and reassembles it in a shared receive buffer
//! ([`MptcpLevel`]). A network-coded level would be a third [`DataLevel`].
//!
//! The connection calls its data level at each point where the two kinds
//! differ, and never asks which kind it has.

mod mptcp;
mod rcv_window;
mod stream;

pub use mptcp::MptcpLevel;
pub use rcv_window::LinuxRcvWindow;
pub use stream::StreamLevel;

use super::mptcp::DataReceiver;
use super::subflow::{OptionBytes, Subflow};
use super::tcp::config::TcpParams;
use super::Io;
use crate::cc::SubflowCc;
use crate::context::Forward;
use crate::time::SimTime;
use crate::wire::TcpHeader;

/// The subflows of a connection, as a data level sends on them.
pub struct SubflowSet<'a> {
    pub subflows: &'a mut [Subflow],
    /// Congestion state, indexed like `subflows`.
    pub ccs: &'a mut [SubflowCc],
    pub params: &'a TcpParams,
    /// The connection's index (names its timers).
    pub connection: u32,
}

/// What a connection asks of its data level.
pub trait DataLevel {
    /// Option bytes this level adds to its subflows' segments.
    fn options(&self) -> OptionBytes;

    /// Subflow `sf` has just been established.
    fn on_established(&mut self, _sf: &mut Subflow) {}

    /// Subflow `sf` joined the connection at its receiver (the receiver sent
    /// its SYN, or the sender's handshake ACK reached it).
    fn on_receiver_join(&mut self, _sf: &Subflow) {}

    /// The connection became established at its receiver at `now` (the
    /// first subflow's SYN-ACK reached the receiver that `opened` it, or the
    /// handshake's ACK reached the receiver the sender connected to).
    fn on_receiver_connected(&mut self, _now: SimTime, _opened: bool) {}

    /// Subflow `sf` is established at the receiver, before any data: it
    /// opened the subflow (`opened`: its SYN-ACK arrived) or accepted it (the
    /// sender's handshake ACK arrived).
    fn on_receiver_established(&mut self, _sf: &mut Subflow, _opened: bool) {}

    /// The receiver has sent (or scheduled) its answer to the segment that
    /// reached subflow `sf`; the application now reads what arrived.
    fn after_receive(&mut self, _now: SimTime, _sf: &mut Subflow) {}

    /// The receiver's timestamp clock is `phase_ns` into a millisecond tick
    /// at time zero.
    fn set_clock_phase(&mut self, _phase_ns: u64) {}

    /// Subflow `sf` left the connection (it was removed).
    fn on_receiver_leave(&mut self, _sf: &Subflow) {}

    /// Subflow `r` (`sf`) timed out or was removed: its data not yet
    /// acknowledged may have to be sent on others. Returns the chunks queued.
    fn on_subflow_failed(&mut self, _r: usize, _sf: &Subflow) -> u64 {
        0
    }

    /// A segment reached a subflow's sender, which has processed it.
    /// Returns whether all of the connection's data is now delivered.
    fn on_ack(&mut self, hdr: &TcpHeader, subflows: &[Subflow]) -> bool;

    /// Sends what the windows allow.
    fn push<N: Forward>(&mut self, io: &mut Io<'_, N>, set: SubflowSet<'_>);

    /// The data-level retransmission timer fired. Returns the chunks queued
    /// to be sent again.
    fn on_retransmit_timer<N: Forward>(&mut self, _io: &mut Io<'_, N>, _set: SubflowSet<'_>) -> u64 {
        0
    }

    /// A data segment reached subflow `sf`'s receiver at `now`. Returns
    /// whether the subflow must acknowledge it at once.
    fn on_data(&mut self, _now: SimTime, _hdr: &TcpHeader, _sf: &mut Subflow) -> bool {
        false
    }

    /// The window subflow `sf`'s receiver advertises, bytes.
    fn advertised_window(&self, sf: &Subflow) -> u64;

    /// Fills the data-level fields of an ACK subflow `sf`'s receiver sends.
    fn fill_ack(&mut self, _hdr: &mut TcpHeader, _sf: &Subflow) {}

    /// The connection-level receiver, if this level has one.
    fn receiver(&self) -> Option<&DataReceiver> {
        None
    }
}

/// The data levels, dispatched by enum.
#[derive(Debug)]
pub enum Data {
    Stream(StreamLevel),
    Mptcp(MptcpLevel),
}

macro_rules! each_level {
    ($self:ident, $l:ident => $e:expr) => {
        match $self {
            Data::Stream($l) => $e,
            Data::Mptcp($l) => $e,
        }
    };
}

impl DataLevel for Data {
    #[inline]
    fn options(&self) -> OptionBytes {
        each_level!(self, l => l.options())
    }
    fn on_established(&mut self, sf: &mut Subflow) {
        each_level!(self, l => l.on_established(sf))
    }
    fn on_receiver_join(&mut self, sf: &Subflow) {
        each_level!(self, l => l.on_receiver_join(sf))
    }
    fn on_receiver_established(&mut self, sf: &mut Subflow, opened: bool) {
        each_level!(self, l => l.on_receiver_established(sf, opened))
    }
    fn on_receiver_connected(&mut self, now: SimTime, opened: bool) {
        each_level!(self, l => l.on_receiver_connected(now, opened))
    }
    fn after_receive(&mut self, now: SimTime, sf: &mut Subflow) {
        each_level!(self, l => l.after_receive(now, sf))
    }
    fn set_clock_phase(&mut self, phase_ns: u64) {
        each_level!(self, l => l.set_clock_phase(phase_ns))
    }
    fn on_receiver_leave(&mut self, sf: &Subflow) {
        each_level!(self, l => l.on_receiver_leave(sf))
    }

    fn on_subflow_failed(&mut self, r: usize, sf: &Subflow) -> u64 {
        each_level!(self, l => l.on_subflow_failed(r, sf))
    }
    #[inline]
    fn on_ack(&mut self, hdr: &TcpHeader, subflows: &[Subflow]) -> bool {
        each_level!(self, l => l.on_ack(hdr, subflows))
    }
    #[inline]
    fn on_retransmit_timer<N: Forward>(&mut self, io: &mut Io<'_, N>, set: SubflowSet<'_>) -> u64 {
        each_level!(self, l => l.on_retransmit_timer(io, set))
    }

    fn push<N: Forward>(&mut self, io: &mut Io<'_, N>, set: SubflowSet<'_>) {
        each_level!(self, l => l.push(io, set))
    }
    #[inline]
    fn on_data(&mut self, now: SimTime, hdr: &TcpHeader, sf: &mut Subflow) -> bool {
        each_level!(self, l => l.on_data(now, hdr, sf))
    }
    #[inline]
    fn advertised_window(&self, sf: &Subflow) -> u64 {
        each_level!(self, l => l.advertised_window(sf))
    }
    #[inline]
    fn fill_ack(&mut self, hdr: &mut TcpHeader, sf: &Subflow) {
        each_level!(self, l => l.fill_ack(hdr, sf))
    }
    fn receiver(&self) -> Option<&DataReceiver> {
        each_level!(self, l => l.receiver())
    }
}
