//! A unidirectional link: queue → transmitter → propagation delay
//! (the htsim and ns-3 point-to-point model).

use super::loss::LossModel;
use super::queue::{DropCause, Queue, QueuedPacket, DROP_CAUSES};
use crate::ids::NodeId;
use crate::rng::RngStream;
use crate::time::{serialization_time, SimDuration, SimTime};

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
    /// On a link that needs no transmission events ([`Link::lazy`]): when
    /// the last packet admitted leaves the transmitter.
    pub busy_until: SimTime,
    /// The transmission time of the last size asked of [`Link::tx_time`]
    /// (a link carries mostly packets of one or two sizes).
    pub(crate) tx_memo: (u32, SimDuration),
    /// Transmission rate in bit/s.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// Packets transmitted and still propagating; on a lazy link
    /// ([`Link::lazy`]), packets admitted, not lost, and not yet arrived
    /// (see [`Link::propagating_pkts`]).
    pub in_flight: u32,
    pub up: bool,
    /// Whether the scenario traces this link's queue at every change (the
    /// trace itself is kept by [`crate::trace::TraceRecorder`]).
    pub traced_on_change: bool,
    /// A first-in-first-out link of fixed rate that never changes: each
    /// packet's departure is known when it is admitted, so its arrival at
    /// the far end is scheduled then and its transmission has no event of
    /// its own; the queue, the transmitter and the counters are brought up
    /// to date (`Network::settle`) whenever the link is next touched.
    pub lazy: bool,
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
    /// A delivery-opportunity trace in place of the transmitter's rate, if
    /// the link follows one.
    pub trace: Option<Box<DeliveryTrace>>,
    /// A delay line's hold of each packet's transmission time, if the link
    /// has a `txtime_rate`.
    pub txtime: Option<Box<TxTime>>,
}

/// Bytes one delivery opportunity of a Mahimahi trace lets leave
/// (`PACKET_SIZE` of Mahimahi's `link_queue.hh`: an MTU-sized frame).
pub const MAHIMAHI_PACKET_BYTES: u32 = 1504;

/// The packet-information header Mahimahi's tun device (`IFF_TUN` without
/// `IFF_NO_PI`) puts before every packet it reads: a packet costs its size
/// plus this of an opportunity, so an MTU-sized packet of 1 500 bytes takes
/// one whole opportunity.
pub const TUN_PI_BYTES: u32 = 4;

/// The latest time a trace may list, milliseconds (about 11.6 days).
pub const MAX_TRACE_MS: u64 = 1_000_000_000;

/// A link whose transmitter follows a delivery-opportunity trace, as
/// Mahimahi's `mm-link` (`LinkQueue`): the trace lists the times at which
/// `bytes_per_opportunity` bytes may leave, and repeats with the period of
/// its last time. At each opportunity the packet on the transmitter, then
/// the packets behind it, take the opportunity's bytes; a packet larger
/// than what is left takes the rest and continues at the next opportunity,
/// and what no packet takes is lost (`use_a_delivery_opportunity`). A
/// packet costs its size plus [`TUN_PI_BYTES`], as Mahimahi reads it from
/// its tun device. A packet leaves at the opportunity that gives its last
/// byte, then takes the link's delay to arrive. A packet that reaches an
/// idle transmitter waits for an opportunity after that instant (Mahimahi
/// serves the opportunities due before it queues what arrives); one behind
/// a packet that has just left takes what that instant's opportunities have
/// left (one reading of ours where Mahimahi's millisecond clock cannot tell
/// the two orders apart).
#[derive(Clone, Debug)]
pub struct DeliveryTrace {
    /// Times of the opportunities within one period, nanoseconds, non-decreasing.
    times_ns: Box<[u64]>,
    period_ns: u64,
    bytes_per_opportunity: u32,
    /// Index, counted over all periods, of the first opportunity no packet
    /// has drawn on.
    next: u64,
    /// Bytes left in the opportunity drawn on last, and its time.
    credit: u32,
    credit_at: SimTime,
}

impl DeliveryTrace {
    /// A trace of opportunities at `opportunities_ms` (non-decreasing, the
    /// last positive: checked by the configuration's validation).
    pub fn new(opportunities_ms: &[u64], bytes_per_opportunity: u32) -> Self {
        let times_ns: Box<[u64]> = opportunities_ms
            .iter()
            .map(|&t| t.min(MAX_TRACE_MS) * 1_000_000)
            .collect();
        let period_ns = times_ns.last().copied().unwrap_or(1).max(1);
        DeliveryTrace {
            times_ns,
            period_ns,
            bytes_per_opportunity: bytes_per_opportunity.max(1),
            next: 0,
            credit: 0,
            credit_at: SimTime::NEVER,
        }
    }

    /// The time of opportunity `k`, counted over all periods.
    #[inline]
    fn time_of(&self, k: u64) -> SimTime {
        let n = self.times_ns.len() as u64;
        SimTime((k / n) * self.period_ns + self.times_ns[(k % n) as usize])
    }

    /// The index of the first opportunity at or after `t`.
    fn first_at_or_after(&self, t: SimTime) -> u64 {
        let n = self.times_ns.len() as u64;
        let cycle = t.nanos() / self.period_ns;
        let offset = t.nanos() % self.period_ns;
        let mut k = cycle * n + self.times_ns.partition_point(|&x| x < offset) as u64;
        // The period's last time is also the next period's start.
        while k > 0 && self.time_of(k - 1) >= t {
            k -= 1;
        }
        k
    }

    /// When a packet of `size` bytes that reaches the transmitter at `now`
    /// has left: it takes what the opportunity drawn on last still holds if
    /// that opportunity is now, then whole opportunities.
    pub fn finish(&mut self, now: SimTime, size: u32) -> SimTime {
        let mut left = size + TUN_PI_BYTES;
        let behind_a_departure = self.credit_at == now;
        if behind_a_departure && self.credit > 0 {
            let take = left.min(self.credit);
            self.credit -= take;
            left -= take;
            if left == 0 {
                return now;
            }
        }
        // Behind a packet that has just left: the instant's opportunities
        // not yet drawn on; at an idle transmitter: those after now.
        let mut k = if behind_a_departure {
            self.next
        } else {
            self.next.max(self.first_at_or_after(SimTime(now.nanos() + 1)))
        };
        loop {
            let at = self.time_of(k);
            k += 1;
            let take = left.min(self.bytes_per_opportunity);
            left -= take;
            if left == 0 {
                self.next = k;
                self.credit = self.bytes_per_opportunity - take;
                self.credit_at = at;
                return at;
            }
        }
    }

    /// Opportunities in `[0, t]`, and so at most `bytes_per_opportunity`
    /// times as many bytes delivered by then.
    pub fn opportunities_through(&self, t: SimTime) -> u64 {
        self.first_at_or_after(SimTime(t.nanos().saturating_add(1)))
    }

    /// The mean rate of the trace, bit/s.
    pub fn mean_rate_bps(&self) -> f64 {
        self.times_ns.len() as f64 * self.bytes_per_opportunity as f64 * 8.0 * 1e9 / self.period_ns as f64
    }
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

/// The hold of an emulator's delay line that adds each packet's
/// transmission time at a rate to the delay it is set to, keeping order only
/// among the packets of one path (the Linux rig's `delay.py --txtime`,
/// FIFO per path and direction): a packet arrives `size · 8 / rate` after
/// the delay, but no sooner than the packet of its route that went before
/// it, so a short packet may overtake a longer one of another route sent
/// just before it. Keyed by route (a flow's path through the network; one
/// entry per route that has crossed the link, searched in order).
#[derive(Clone, Debug)]
pub struct TxTime {
    pub rate_bps: u64,
    /// Each route's step at this link and when its latest packet arrives.
    last: Vec<(u32, SimTime)>,
}

impl TxTime {
    pub fn new(rate_bps: u64) -> Self {
        TxTime {
            rate_bps,
            last: Vec::new(),
        }
    }

    /// When a packet of `size_bytes` on the route at `step`, due at `at`
    /// without the hold, arrives.
    #[inline]
    pub fn arrival(&mut self, step: u32, at: SimTime, size_bytes: u32) -> SimTime {
        let t = at + serialization_time(size_bytes, self.rate_bps);
        // A link's packets reach the hold in order of `at` (its sends are in
        // order and its jitter never reorders), so a route whose latest
        // packet is out by `at` holds nothing from here: the list keeps only
        // the routes with a packet still held.
        self.last.retain(|e| e.1 > at);
        match self.last.iter_mut().find(|e| e.0 == step) {
            Some(e) => {
                e.1 = e.1.max(t);
                e.1
            }
            None => {
                self.last.push((step, t));
                t
            }
        }
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
/// link's; under load the link is the plain one. As a rate limiter
/// (`rate_limiter`), a released packet takes no transmission time: Linux's
/// `tbf` in front of a veth, whose packets arrive as they are released.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    pub burst_bytes: u32,
    /// A released packet arrives after the link's delay alone.
    pub rate_limiter: bool,
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
            rate_limiter: false,
            tokens: SimDuration(u64::MAX / 4),
            tokens_at: SimTime::ZERO,
            last_end: SimTime::ZERO,
        }
    }

    /// The same bucket as a rate limiter (`rate_limiter`) or a shaper.
    pub fn with_rate_limiter(mut self, rate_limiter: bool) -> Self {
        self.rate_limiter = rate_limiter;
        self
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
    /// [`Link::tx_memo`] before any size was asked.
    pub(crate) const NO_TX_MEMO: (u32, SimDuration) = (u32::MAX, SimDuration(0));

    /// The time a packet of `size` bytes takes on the transmitter.
    #[inline]
    pub(crate) fn tx_time(&mut self, size: u32) -> SimDuration {
        if self.tx_memo.0 != size {
            self.tx_memo = (size, serialization_time(size, self.rate_bps));
        }
        self.tx_memo.1
    }

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
        self.queue.len_pkts() as u64 + self.in_service.is_some() as u64 + self.propagating_pkts() as u64
    }

    /// Packets transmitted and still propagating (on a lazy link, brought
    /// up to date: `Network::settle`).
    pub fn propagating_pkts(&self) -> u32 {
        if !self.lazy {
            return self.in_flight;
        }
        let not_lost = |p: &&QueuedPacket| p.delivery_hint != QueuedPacket::LOST;
        let waiting = self.queue.packets().filter(not_lost).count() + self.in_service.iter().filter(not_lost).count();
        self.in_flight - waiting as u32
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

    /// One 1 504-byte opportunity a millisecond: 1 500-byte packets (1 504
    /// with the tun header) queued at once leave one a millisecond.
    #[test]
    fn a_full_size_packet_takes_one_opportunity() {
        let mut t = DeliveryTrace::new(&[1], MAHIMAHI_PACKET_BYTES);
        let left: Vec<u64> = (0..4).map(|_| t.finish(SimTime::ZERO, 1500).nanos()).collect();
        assert_eq!(left, [1_000_000, 2_000_000, 3_000_000, 4_000_000]);
        // Half a millisecond after an idle spell: the next opportunity, not the lost ones.
        assert_eq!(t.finish(SimTime(10_500_000), 1500), SimTime(11_000_000));
        // At the very time of an opportunity, at an idle transmitter: the next one.
        assert_eq!(t.finish(SimTime(20_000_000), 1500), SimTime(21_000_000));
        // A 1 501-byte packet needs a second opportunity.
        assert_eq!(t.finish(SimTime(30_500_000), 1501), SimTime(32_000_000));
    }

    /// Mahimahi's `use_a_delivery_opportunity`: packets queued together share
    /// an opportunity's bytes; one that does not fit takes the rest and
    /// ends at the next; what is left when the queue empties is lost.
    #[test]
    fn small_packets_share_an_opportunity_and_its_rest_is_lost() {
        let mut t = DeliveryTrace::new(&[1], 1504);
        // Three packets of 496 bytes (500 with the header) fit the opportunity at 1 ms.
        assert_eq!(t.finish(SimTime::ZERO, 496), SimTime(1_000_000));
        assert_eq!(t.finish(SimTime(1_000_000), 496), SimTime(1_000_000));
        assert_eq!(t.finish(SimTime(1_000_000), 496), SimTime(1_000_000));
        // A fourth takes the last 4 bytes and 496 of the next opportunity.
        assert_eq!(t.finish(SimTime(1_000_000), 496), SimTime(2_000_000));
        // The 1 008 bytes left at 2 ms are lost to a packet that comes later.
        assert_eq!(t.finish(SimTime(2_500_000), 1500), SimTime(3_000_000));
    }

    /// The trace repeats with the period of its last time; a time listed
    /// twice is two opportunities.
    #[test]
    fn the_trace_loops_on_its_last_time() {
        let mut t = DeliveryTrace::new(&[4, 10, 10], 1004);
        let left: Vec<u64> = (0..7)
            .map(|_| t.finish(SimTime::ZERO, 1000).nanos() / 1_000_000)
            .collect();
        assert_eq!(left, [4, 10, 10, 14, 20, 20, 24]);
        assert!((t.mean_rate_bps() - 3.0 * 1004.0 * 8.0 / 0.010).abs() < 1e-6);
        assert_eq!(t.opportunities_through(SimTime(20_000_000)), 6);
        assert_eq!(t.opportunities_through(SimTime(19_999_999)), 4);
        assert_eq!(
            t.opportunities_through(SimTime::NEVER),
            t.opportunities_through(SimTime(u64::MAX - 1))
        );
    }

    /// Against a second implementation that steps through the opportunities
    /// one by one as Mahimahi's `LinkQueue` does (a packet may use an
    /// opportunity after it reached the transmitter, or at the instant the
    /// packet before it left there): the same departure for every packet,
    /// over random arrivals on and off the trace's times, idle gaps, back to
    /// back packets and packets of up to three opportunities.
    #[test]
    fn departures_are_those_of_stepping_through_the_opportunities() {
        let trace_ms: Vec<u64> = vec![1, 1, 2, 5, 5, 5, 9, 12, 13, 20];
        let (bytes, period) = (1504u64, 20_000_000u64);
        let time_of = |k: u64| (k / 10) * period + trace_ms[(k % 10) as usize] * 1_000_000;
        let mut rng = RngStream::derive(3, StreamDomain::LinkJitter, 9);
        let mut t = DeliveryTrace::new(&trace_ms, bytes as u32);
        // The reference: the next opportunity, its bytes left and its time.
        let (mut k, mut credit, mut credit_at) = (0u64, 0u64, u64::MAX);
        let (mut now, mut total) = (0u64, 0u64);
        for _ in 0..50_000 {
            match rng.next_u64() % 6 {
                0 => now += rng.next_u64() % 9_000_000 + 1,
                1 => now = (now / 1_000_000 + 1 + rng.next_u64() % 5) * 1_000_000,
                _ => {}
            }
            let size = 40 + rng.next_u64() % 4_000;
            let mut left = size + 4;
            let behind = credit_at == now;
            let done = if behind && credit >= left {
                credit -= left;
                now
            } else {
                if behind {
                    left -= credit;
                } else {
                    while time_of(k) <= now {
                        k += 1;
                    }
                }
                loop {
                    let at = time_of(k);
                    k += 1;
                    if left <= bytes {
                        credit = bytes - left;
                        credit_at = at;
                        break at;
                    }
                    left -= bytes;
                }
            };
            assert_eq!(
                t.finish(SimTime(now), size as u32),
                SimTime(done),
                "a packet of {size} B at {now} ns"
            );
            total += size + 4;
            assert!(total <= t.opportunities_through(SimTime(done)) * bytes);
            now = done;
        }
    }

    /// A delay line's hold (`txtime_rate`) keeps each route's packets in
    /// order, but a short packet of another route may overtake a long one.
    #[test]
    fn a_delay_lines_hold_keeps_each_route_in_order_but_not_two() {
        // 8 Mbit/s: a byte a microsecond.
        let mut hold = TxTime::new(8_000_000);
        let us = |n: u64| SimTime(n * 1_000);
        // A 1000-byte packet of route 1 due at 0 arrives at 1000 µs; a
        // 100-byte one of route 2 due at 10 µs, at 110 µs: before it.
        assert_eq!(hold.arrival(1, us(0), 1000), us(1000));
        assert_eq!(hold.arrival(2, us(10), 100), us(110));
        // Route 1's next, 100 bytes due at 20 µs, would arrive at 120 µs:
        // it waits for its route's packet ahead.
        assert_eq!(hold.arrival(1, us(20), 100), us(1000));
        // Route 2's next is not held behind route 1's.
        assert_eq!(hold.arrival(2, us(30), 500), us(530));
        assert_eq!(hold.arrival(1, us(2000), 8), us(2008));
        // Both routes' packets were out by 2000 µs: only the new one is kept.
        assert_eq!(hold.last, [(1, us(2008))]);
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
