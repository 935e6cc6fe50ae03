//! Queue disciplines. A link's queue holds the packets waiting for its
//! transmitter; the packet being transmitted has left the queue.
//!
//! Each discipline decides on arrival (`enqueue`) and, for CoDel, on departure
//! (`dequeue`) whether to drop. They share the FIFO storage [`Fifo`].

mod codel;
mod droptail;
mod red;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

pub use codel::Codel;
pub use droptail::DropTail;
pub use red::{AdaptiveParameters, Red};

use crate::ids::PacketId;
use crate::observe::DropReason;
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

impl From<DropReason> for DropCause {
    /// The counter a drop is counted in.
    fn from(why: DropReason) -> DropCause {
        match why {
            DropReason::TailDrop => DropCause::Overflow,
            DropReason::RedEarly | DropReason::RedForced => DropCause::RedEarly,
            DropReason::Codel => DropCause::Codel,
            DropReason::RandomLoss | DropReason::GilbertElliott => DropCause::Loss,
            // A packet without a route is counted by the network, not a link.
            DropReason::LinkDown | DropReason::NoRoute => DropCause::LinkDown,
        }
    }
}

/// A packet waiting in a queue, with what the disciplines need to know of
/// it: 16 bytes, four to a cache line. (CoDel, the one discipline that
/// needs the time a packet joined, keeps it itself.)
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueuedPacket {
    pub id: PacketId,
    pub size_bytes: u32,
    /// Where the packet is on its route ([`crate::wire::InTransit::step`]).
    pub step: u32,
    /// On the last link of its route, when the network prefetches: the
    /// index of the endpoint that the route's last packet was handed to (a
    /// hint for the caches, see `Network::on_tx_done`);
    /// [`QueuedPacket::NO_HINT`] otherwise.
    pub delivery_hint: u32,
}

impl QueuedPacket {
    /// [`QueuedPacket::delivery_hint`] when there is no hint.
    pub const NO_HINT: u32 = u32::MAX;
    /// [`QueuedPacket::delivery_hint`] of a packet that a lazy link's loss
    /// model has lost (drawn at admission, dropped when it leaves).
    pub const LOST: u32 = u32::MAX - 1;
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

/// A queue's capacity. With both limits set, a packet must fit both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueLimit {
    /// Most packets waiting (the packet being transmitted is not counted).
    #[serde(default)]
    pub limit_pkts: Option<u32>,
    /// Most bytes waiting (wire sizes).
    #[serde(default)]
    pub limit_bytes: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    /// First in, first out; arrivals that do not fit are dropped.
    DropTail {
        #[serde(flatten)]
        limit: QueueLimit,
    },
    /// Random Early Detection (Floyd & Jacobson 1993), thresholds in packets.
    Red {
        /// Hard limit on packets waiting.
        limit_pkts: u32,
        /// min_th, in packets of average queue.
        min_th_pkts: f64,
        /// max_th, in packets of average queue.
        max_th_pkts: f64,
        /// max_p: drop probability as the average reaches max_th.
        #[serde(default = "red_max_p")]
        max_p: f64,
        /// w_q: weight of the exponential moving average.
        #[serde(default = "red_weight")]
        weight: f64,
        /// Gentle mode: the drop probability rises linearly from max_p to 1
        /// between max_th and 2 max_th instead of jumping to 1.
        #[serde(default = "yes")]
        gentle: bool,
        /// Typical packet size used to age the average over idle periods.
        #[serde(default = "red_mean_pkt")]
        mean_pkt_size_bytes: u32,
    },
    /// Adaptive RED (Floyd, Gummadi, Shenker 2001; ns-2's `adaptive_ 1`):
    /// RED whose thresholds and weight follow from the link's rate and a
    /// target delay, and whose max_p adapts every `interval_ns`.
    AdaptiveRed {
        /// Hard limit on packets waiting.
        limit_pkts: u32,
        /// Target average queueing delay (the paper's 5 ms).
        #[serde(default = "adaptive_red_target")]
        target_delay_ns: u64,
        /// How often max_p adapts (the paper's 0.5 s).
        #[serde(default = "adaptive_red_interval")]
        interval_ns: u64,
        /// max_p at the start (then adapted).
        #[serde(default = "red_max_p")]
        max_p: f64,
        #[serde(default = "yes")]
        gentle: bool,
        /// Typical packet size: C in packets/s, and the idle aging.
        #[serde(default = "red_mean_pkt")]
        mean_pkt_size_bytes: u32,
        /// Overrides of the automatic min_th, max_th (packets) and w_q.
        #[serde(default)]
        min_th_pkts: Option<f64>,
        #[serde(default)]
        max_th_pkts: Option<f64>,
        #[serde(default)]
        weight: Option<f64>,
    },
    /// Controlled Delay (RFC 8289).
    Codel {
        /// Acceptable standing queue delay (RFC 8289 §4.3: 5 ms).
        #[serde(default = "codel_target")]
        target_ns: u64,
        /// Sliding window for the minimum sojourn time (RFC 8289 §4.4: 100 ms).
        #[serde(default = "codel_interval")]
        interval_ns: u64,
        /// Hard limit on packets waiting.
        #[serde(default = "codel_limit")]
        limit_pkts: u32,
    },
}

fn red_max_p() -> f64 {
    0.1
}
fn red_weight() -> f64 {
    0.002
}
fn red_mean_pkt() -> u32 {
    1500
}
fn adaptive_red_target() -> u64 {
    5_000_000
}
fn adaptive_red_interval() -> u64 {
    500_000_000
}
fn codel_target() -> u64 {
    5_000_000
}
fn codel_interval() -> u64 {
    100_000_000
}
fn codel_limit() -> u32 {
    1000
}

impl Default for QueueConfig {
    /// Drop-tail, 100 packets (the ns-3 default).
    fn default() -> Self {
        QueueConfig::DropTail {
            limit: QueueLimit {
                limit_pkts: Some(100),
                limit_bytes: None,
            },
        }
    }
}

fn yes() -> bool {
    true
}

/// A link's queue discipline, dispatched by enum (one file per discipline).
/// RED and CoDel keep their state behind a pointer, so that the common
/// drop-tail queue stays small inside its link (a few cache lines less to
/// touch per packet when thousands of links are busy).
#[derive(Debug)]
pub enum Queue {
    DropTail(DropTail),
    Red(Box<Red>),
    Codel(Box<Codel>),
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
            } => Queue::Red(Box::new(Red::new(
                limit_pkts,
                min_th_pkts,
                max_th_pkts,
                max_p,
                weight,
                gentle,
                crate::time::serialization_time(mean_pkt_size_bytes, link_rate_bps.max(1)),
            ))),
            QueueConfig::AdaptiveRed {
                limit_pkts,
                target_delay_ns,
                interval_ns,
                max_p,
                gentle,
                mean_pkt_size_bytes,
                min_th_pkts,
                max_th_pkts,
                weight,
            } => {
                let auto =
                    AdaptiveParameters::of_link(link_rate_bps, mean_pkt_size_bytes, SimDuration(target_delay_ns));
                let red = Red::new(
                    limit_pkts,
                    min_th_pkts.unwrap_or(auto.min_th),
                    max_th_pkts.unwrap_or(auto.max_th),
                    max_p,
                    weight.unwrap_or(auto.w_q),
                    gentle,
                    crate::time::serialization_time(mean_pkt_size_bytes, link_rate_bps.max(1)),
                );
                Queue::Red(Box::new(red.adaptive(SimDuration(interval_ns))))
            }
            QueueConfig::Codel {
                target_ns,
                interval_ns,
                limit_pkts,
            } => Queue::Codel(Box::new(Codel::new(
                SimDuration(target_ns),
                SimDuration(interval_ns),
                limit_pkts,
            ))),
        }
    }

    /// Offers an arriving packet. On drop the packet is handed back with
    /// the discipline's reason.
    #[inline]
    pub fn enqueue(
        &mut self,
        p: QueuedPacket,
        now: SimTime,
        rng: &mut RngStream,
    ) -> Result<(), (QueuedPacket, DropReason)> {
        match self {
            Queue::DropTail(q) => q.enqueue(p),
            Queue::Red(q) => q.enqueue(p, now, rng),
            Queue::Codel(q) => q.enqueue(p, now),
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

    /// For a packet that finds the queue empty and the transmitter idle:
    /// drop-tail's admission of it, without queueing it (it would be taken
    /// out again at once). `None` for RED and CoDel, whose state and random
    /// draws depend on seeing it queued and dequeued.
    #[inline]
    pub fn admits_straight_through(&self, p: QueuedPacket) -> Option<Result<(), (QueuedPacket, DropReason)>> {
        match self {
            Queue::DropTail(q) => Some(q.admits(p)),
            Queue::Red(_) | Queue::Codel(_) => None,
        }
    }

    /// Queues `p`, which [`Queue::admits_straight_through`] has just
    /// admitted (a drop-tail queue; the others are never asked).
    #[inline]
    pub fn push_admitted(&mut self, p: QueuedPacket) {
        debug_assert!(matches!(self.admits_straight_through(p), Some(Ok(()))));
        self.fifo_mut().push(p);
    }

    /// Starts loading the entry of the next packet out (see
    /// [`crate::cache`]): it is read when the transmission under way ends,
    /// long after it was queued.
    #[inline]
    pub fn prefetch_head(&self) {
        if let Some(p) = self.fifo().front() {
            crate::cache::prefetch(p);
        }
    }

    /// Removes every waiting packet (the link went down).
    pub fn drain(&mut self, out: &mut Vec<QueuedPacket>) {
        if let Queue::Codel(q) = self {
            q.forget_arrivals();
        }
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

    /// The waiting packets, first out first.
    pub fn packets(&self) -> impl Iterator<Item = &QueuedPacket> {
        self.fifo().items.iter()
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
