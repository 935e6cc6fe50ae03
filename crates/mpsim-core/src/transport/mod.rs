//! Transports: TCP (and, built on its subflows, MPTCP).
//!
//! A transport sees the rest of the simulator through [`Io`]: the
//! simulation context (clock, events, packets, tracing hook) and somewhere
//! to put the packets it builds ([`Forward`], the network in a run, a
//! collector in a test). The simulator drives it through [`Transport`].

pub mod coding;
pub mod connection;
pub mod data_level;
pub mod mptcp;
pub mod path_manager;
pub mod scheduler;
pub mod subflow;
pub mod tcp;

use crate::context::{Forward, SimContext};
use crate::wire::TcpHeader;

/// What a transport acts on: the context and the network below it.
pub struct Io<'a, N: Forward> {
    pub ctx: &'a mut SimContext,
    pub net: &'a mut N,
}

/// Which end of a subflow a packet was delivered to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Side {
    /// The sending end: ACKs and SYN-ACKs.
    Sender,
    /// The receiving end: SYNs, data.
    Receiver,
}

/// A transport's timers and scheduled events.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TransportTimer {
    /// Subflow `subflow`'s retransmission (or loss-probe) timer.
    Retransmission { subflow: usize },
    /// An event of subflow `subflow`'s delayed-ACK timer (which may have
    /// been stopped or moved later since it was scheduled).
    DelayedAck { subflow: usize },
    /// The SYN timeout of subflow `subflow`, opened by its receiver.
    Opening { subflow: usize },
    /// Scheduled subflow event `event` (a subflow added or removed).
    SubflowEvent { event: usize },
    /// The connection's data-level retransmission timer (MPTCP).
    DataRetransmission,
}

/// A transport connection as the simulator drives it: started, handed the
/// packets delivered to its endpoints, woken by its timers.
pub trait Transport {
    /// Subflow `subflow` opens (the connection's start, or a join).
    fn start<N: Forward>(&mut self, io: &mut Io<'_, N>, subflow: usize);

    /// A segment arrived at one end of subflow `subflow`.
    fn on_packet<N: Forward>(&mut self, io: &mut Io<'_, N>, subflow: usize, side: Side, hdr: &TcpHeader);

    /// One of the transport's timers fired.
    fn on_timer<N: Forward>(&mut self, io: &mut Io<'_, N>, timer: TransportTimer);
}
