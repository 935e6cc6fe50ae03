//! Queue disciplines. A link's queue holds the packets waiting for its
//! transmitter; the packet being transmitted has left the queue.
//!
//! Each discipline decides on arrival (`enqueue`) and, for CoDel, on departure
//! (`dequeue`) whether to drop. They share the FIFO storage [`Fifo`].

mod codel;
mod droptail;
mod red;

use std::collections::VecDeque;

pub use codel::Codel;
pub use droptail::DropTail;
pub use red::Red;

use crate::config::QueueConfig;
use crate::ids::PacketId;
use crate::rng::RngStream;
use crate::time::{SimDuration, SimTime};

/// Why a packet was dropped. The discriminant indexes [`DropCounters`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// Arrival found the queue full (drop-tail, or a RED/CoDel hard limit).
    Overflow = 0,
    /// RED's early (probabilistic or forced) drop.
    RedEarly = 1,
    /// CoDel's drop at dequeue.
    Codel = 2,
    /// The link's loss model.
    Loss = 3,
    /// The link was down.
    LinkDown = 4,
}

/// Number of [`DropCause`] variants.
pub const DROP_CAUSES: usize = 5;

/// A packet waiting in a queue, with what the disciplines need to know of it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueuedPacket {
    pub id: PacketId,
    pub size_bytes: u32,
    pub enqueued_at: SimTime,
}

/// FIFO storage with packet and byte counts.
#[derive(Debug, Default)]
pub struct Fifo {
    items: VecDeque<QueuedPacket>,
    bytes: u64,
}

impl Fifo {
    #[inline]
    pub fn push(&mut self, p: QueuedPacket) {
        self.bytes += p.size_bytes as u64;
        self.items.push_back(p);
    }
    #[inline]
    pub fn pop(&mut self) -> Option<QueuedPacket> {
        let p = self.items.pop_front()?;
        self.bytes -= p.size_bytes as u64;
        Some(p)
    }
    #[inline]
    pub fn front(&self) -> Option<&QueuedPacket> {
        self.items.front()
    }
    #[inline]
    pub fn len_pkts(&self) -> u32 {
        self.items.len() as u32
    }
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// A link's queue discipline, dispatched by enum (one file per discipline).
#[derive(Debug)]
pub enum Queue {
    DropTail(DropTail),
    Red(Red),
    Codel(Codel),
}

impl Queue {
    /// Builds the discipline; `link_rate_bps` lets RED age its average over
    /// idle periods in units of a typical packet's transmission time.
    pub fn from_config(cfg: &QueueConfig, link_rate_bps: u64) -> Queue {
        match *cfg {
            QueueConfig::DropTail { limit } => Queue::DropTail(DropTail::new(limit)),
            QueueConfig::Red {
                limit_pkts,
                min_th_pkts,
                max_th_pkts,
                max_p,
                weight,
                gentle,
                mean_pkt_size_bytes,
            } => Queue::Red(Red::new(
                limit_pkts,
                min_th_pkts,
                max_th_pkts,
                max_p,
                weight,
                gentle,
                crate::time::serialization_time(mean_pkt_size_bytes, link_rate_bps.max(1)),
            )),
            QueueConfig::Codel {
                target_ns,
                interval_ns,
                limit_pkts,
            } => Queue::Codel(Codel::new(SimDuration(target_ns), SimDuration(interval_ns), limit_pkts)),
        }
    }

    /// Offers an arriving packet. On drop the packet is handed back with the cause.
    #[inline]
    pub fn enqueue(
        &mut self,
        p: QueuedPacket,
        now: SimTime,
        rng: &mut RngStream,
    ) -> Result<(), (QueuedPacket, DropCause)> {
        match self {
            Queue::DropTail(q) => q.enqueue(p),
            Queue::Red(q) => q.enqueue(p, now, rng),
            Queue::Codel(q) => q.enqueue(p),
        }
    }

    /// Takes the next packet to transmit. Packets the discipline drops on the
    /// way out are pushed on `dropped`.
    #[inline]
    pub fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<QueuedPacket>) -> Option<QueuedPacket> {
        match self {
            Queue::DropTail(q) => q.fifo.pop(),
            Queue::Red(q) => q.dequeue(now),
            Queue::Codel(q) => q.dequeue(now, dropped),
        }
    }

    /// Removes every waiting packet (the link went down).
    pub fn drain(&mut self, out: &mut Vec<QueuedPacket>) {
        let fifo = self.fifo_mut();
        while let Some(p) = fifo.pop() {
            out.push(p);
        }
    }

    #[inline]
    pub fn len_pkts(&self) -> u32 {
        self.fifo().len_pkts()
    }

    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.fifo().len_bytes()
    }

    fn fifo(&self) -> &Fifo {
        match self {
            Queue::DropTail(q) => &q.fifo,
            Queue::Red(q) => &q.fifo,
            Queue::Codel(q) => &q.fifo,
        }
    }

    fn fifo_mut(&mut self) -> &mut Fifo {
        match self {
            Queue::DropTail(q) => &mut q.fifo,
            Queue::Red(q) => &mut q.fifo,
            Queue::Codel(q) => &mut q.fifo,
        }
    }
}
