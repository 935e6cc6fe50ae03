//! A unidirectional link: queue → transmitter → propagation delay
//! (the htsim and ns-3 point-to-point model).

use super::loss::LossModel;
use super::queue::{DropCause, Queue, QueuedPacket, DROP_CAUSES};
use crate::ids::NodeId;
use crate::rng::RngStream;
use crate::time::{SimDuration, SimTime};

/// Counters of one link, those every packet moves first. Packet conservation holds at every instant:
/// `arrived = delivered + Σ dropped + queued + in service + in flight`.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct LinkCounters {
    /// Packets offered to the link (accepted or not).
    pub arrived_pkts: u64,
    pub arrived_bytes: u64,
    /// Packets accepted into the queue.
    pub enqueued_pkts: u64,
    pub enqueued_bytes: u64,
    /// Packets that reached the far node.
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    /// Total time the transmitter was busy, in nanoseconds.
    pub busy_ns: u64,
    /// When the queue length last changed.
    pub last_queue_change: SimTime,
    /// ∫ queue length dt, in packet·nanoseconds (for the time-average).
    pub queue_pkts_integral: u128,
    /// Largest number of packets ever waiting.
    pub max_queue_pkts: u32,
    pub max_queue_bytes: u64,
    /// Drops indexed by [`DropCause`].
    pub dropped_pkts: [u64; DROP_CAUSES],
    pub dropped_bytes: [u64; DROP_CAUSES],
}

#[derive(Debug)]
#[repr(C)]
pub struct Link {
    pub queue: Queue,
    /// The packet on the transmitter, if any.
    pub in_service: Option<QueuedPacket>,
    /// When the packet on the transmitter started.
    pub service_started: SimTime,
    /// Transmission rate in bit/s.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// Packets transmitted and still propagating.
    pub in_flight: u32,
    pub up: bool,
    /// Whether the scenario traces this link's queue at every change (the
    /// trace itself is kept by [`crate::trace::TraceRecorder`]).
    pub traced_on_change: bool,
    pub loss: LossModel,
    /// Draws of the loss model.
    pub loss_rng: RngStream,
    pub counters: LinkCounters,
    /// Draws of the queue discipline (RED).
    pub queue_rng: RngStream,
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    /// Routing cost.
    pub weight: u32,
    /// A token-bucket shaper in place of the transmitter's pacing (Linux's
    /// `tbf`), if the link has a `burst`.
    pub bucket: Option<TokenBucket>,
    /// A random extra delay after the propagation delay, if the link has a
    /// `jitter`.
    pub jitter: Option<Box<Jitter>>,
}

/// A random extra delay on a link, as an emulator's delay line adds to the
/// delay it is set to (the hold-time error of the Linux rig's, measured in
/// its README): each packet takes an exponentially distributed extra delay
/// of the given mean after the propagation delay, and arrives no sooner
/// than the packet sent before it, so the link never reorders.
#[derive(Clone, Debug)]
pub struct Jitter {
    /// The mean extra delay, nanoseconds.
    mean_ns: f64,
    rng: RngStream,
    /// When the packet sent last arrives.
    last_arrival: SimTime,
}

impl Jitter {
    /// A jitter of mean `mean_ns` nanoseconds drawn from `rng`.
    pub fn new(mean_ns: u64, rng: RngStream) -> Self {
        Jitter {
            mean_ns: mean_ns as f64,
            rng,
            last_arrival: SimTime::ZERO,
        }
    }

    /// When a packet due at `at` without jitter arrives.
    #[inline]
    pub fn arrival(&mut self, at: SimTime) -> SimTime {
        let extra = self.rng.exponential(self.mean_ns) as u64;
        let t = (at + SimDuration(extra)).max(self.last_arrival);
        self.last_arrival = t;
        t
    }
}

/// A token-bucket shaper (Linux `sch_tbf.c`, `tbf_dequeue`): the head of the
/// queue leaves when the bucket holds its transmission time at the link's
/// rate; the bucket fills at one nanosecond a nanosecond up to the `burst`'s
/// transmission time. The packet then takes its transmission time and the
/// link's delay to arrive, behind the one released before it (the store and
/// forward of a real link after a shaper that releases a packet when its
/// transmission would start). After an idle period the first packets leave
/// back to back, so a burst finds the queue `burst` bytes larger than a
/// link's; under load the link is the plain one.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    pub burst_bytes: u32,
    /// Tokens, as transmission time, at `tokens_at` (not yet capped).
    tokens: SimDuration,
    tokens_at: SimTime,
    /// When the last released packet's transmission ends.
    pub(crate) last_end: SimTime,
}

impl TokenBucket {
    /// A full bucket of `burst_bytes`.
    pub fn new(burst_bytes: u32) -> Self {
        TokenBucket {
            burst_bytes,
            tokens: SimDuration(u64::MAX / 4),
            tokens_at: SimTime::ZERO,
            last_end: SimTime::ZERO,
        }
    }

    /// When a packet of transmission time `tx` that reaches the head of the
    /// queue at `now` leaves, at a bucket depth of `depth` (the burst's
    /// transmission time at the link's rate). A packet larger than the burst
    /// leaves when the bucket is full (Linux's tbf refuses such a
    /// configuration).
    pub fn release(&mut self, now: SimTime, tx: SimDuration, depth: SimDuration) -> SimTime {
        let have = (self.tokens.0.saturating_add(now.saturating_since(self.tokens_at).0)).min(depth.0);
        let need = tx.0.min(depth.0);
        let (at, left) = if have >= need {
            (now, have - need)
        } else {
            (now + SimDuration(need - have), 0)
        };
        self.tokens = SimDuration(left);
        self.tokens_at = at;
        at
    }
}

impl Link {
    /// Accounts a change of queue length that happened at `now`: the time
    /// integral and the maxima.
    #[inline]
    pub(crate) fn queue_changed(&mut self, now: SimTime, before_pkts: u32) {
        let c = &mut self.counters;
        c.queue_pkts_integral += before_pkts as u128 * now.saturating_since(c.last_queue_change).nanos() as u128;
        c.last_queue_change = now;
        let (pkts, bytes) = (self.queue.len_pkts(), self.queue.len_bytes());
        c.max_queue_pkts = c.max_queue_pkts.max(pkts);
        c.max_queue_bytes = c.max_queue_bytes.max(bytes);
    }

    #[inline]
    pub(crate) fn count_drop(&mut self, cause: DropCause, size_bytes: u32) {
        self.counters.dropped_pkts[cause as usize] += 1;
        self.counters.dropped_bytes[cause as usize] += size_bytes as u64;
    }

    /// Packets the link holds now: waiting, on the transmitter, propagating.
    pub fn held_pkts(&self) -> u64 {
        self.queue.len_pkts() as u64 + self.in_service.is_some() as u64 + self.in_flight as u64
    }

    /// Time-average of the number of packets waiting, over [0, now].
    pub fn mean_queue_pkts(&self, now: SimTime) -> f64 {
        if now.nanos() == 0 {
            return 0.0;
        }
        let c = &self.counters;
        let tail = self.queue.len_pkts() as u128 * now.saturating_since(c.last_queue_change).nanos() as u128;
        (c.queue_pkts_integral + tail) as f64 / now.nanos() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamDomain;

    /// Packets far apart each take their own exponential draw: the mean
    /// extra delay is the configured mean, and its median ln 2 of it.
    #[test]
    fn jitter_adds_an_exponential_delay_of_the_mean() {
        let mut j = Jitter::new(50_000, RngStream::derive(7, StreamDomain::LinkJitter, 0));
        let n = 200_000u64;
        let mut extras: Vec<u64> = (0..n)
            .map(|k| {
                let due = SimTime(k * 1_000_000);
                j.arrival(due).saturating_since(due).nanos()
            })
            .collect();
        let mean = extras.iter().sum::<u64>() as f64 / n as f64;
        assert!((mean - 50_000.0).abs() < 50_000.0 * 0.01, "mean {mean}");
        extras.sort_unstable();
        let median = extras[n as usize / 2] as f64;
        assert!(
            (median - 50_000.0 * std::f64::consts::LN_2).abs() < 50_000.0 * 0.01,
            "median {median}"
        );
    }

    /// Packets closer together than the jitter never overtake one another.
    #[test]
    fn jitter_never_reorders() {
        let mut j = Jitter::new(50_000, RngStream::derive(7, StreamDomain::LinkJitter, 1));
        let mut last = SimTime::ZERO;
        let mut held = 0;
        for k in 0..100_000u64 {
            let due = SimTime(k * 2_000);
            let at = j.arrival(due);
            assert!(at >= last && at >= due);
            if at == last {
                held += 1;
            }
            last = at;
        }
        // At 2 µs apart most packets wait behind an earlier one's draw.
        assert!(held > 50_000, "{held}");
    }
}
