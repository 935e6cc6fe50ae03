//! UDP constant-bit-rate and on/off sources, and the sinks that count what
//! arrives.

use serde::{Deserialize, Serialize};

use crate::ids::{AddrId, EndpointId};
use crate::rng::RngStream;
use crate::time::{SimDuration, SimTime, NANOS_PER_SEC};
use crate::wire::{Packet, Payload};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum UdpPattern {
    /// Constant bit rate: one packet every size*8/rate seconds.
    Cbr { rate_bps: u64 },
    /// Sends at `rate_bps` during on periods and nothing during off periods;
    /// both period lengths are drawn from `distribution` with the given means.
    OnOff {
        rate_bps: u64,
        on_mean_ns: u64,
        off_mean_ns: u64,
        #[serde(default)]
        distribution: PeriodDistribution,
    },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum PeriodDistribution {
    #[default]
    Exponential,
    /// Pareto with the given shape (> 1, so the mean exists).
    Pareto { shape: f64 },
}

/// On/off state of a source.
#[derive(Clone, Debug)]
pub enum Phase {
    /// Before the start time.
    NotStarted,
    /// Sending at the pattern's rate until `until`.
    On { until: SimTime },
    /// Silent until the end of the off period.
    Off,
}

#[derive(Clone, Debug)]
pub struct UdpSource {
    pub name: String,
    pub src: AddrId,
    pub dst: AddrId,
    pub sink: EndpointId,
    pub flow_hash: u64,
    /// Wire size of every packet, bytes.
    pub packet_size_bytes: u32,
    pub rate_bps: u64,
    pub start: SimTime,
    /// Sends nothing at or after this time.
    pub stop: SimTime,
    /// Mean on and off period lengths and their distribution; `None` for CBR.
    pub on_off: Option<(SimDuration, SimDuration, PeriodDistribution)>,
    pub rng: RngStream,
    pub phase: Phase,
    /// Start of the current sending burst; packet k of the burst leaves at
    /// `burst_start + ceil(k · size · 8 / rate)`, so the long-run rate is exact.
    pub burst_start: SimTime,
    pub burst_index: u64,
    pub next_seq: u64,
    pub sent_pkts: u64,
    pub sent_bytes: u64,
}

/// What a source's event asks the simulator to do.
pub enum SourceAction {
    /// Send this packet and wake the source again at the given time.
    Send(Packet, Option<SimTime>),
    /// Nothing to send now; wake again at the given time (None: never).
    Wait(Option<SimTime>),
}

impl UdpSource {
    pub fn new_pattern(pattern: &UdpPattern) -> (u64, Option<(SimDuration, SimDuration, PeriodDistribution)>) {
        match *pattern {
            UdpPattern::Cbr { rate_bps } => (rate_bps, None),
            UdpPattern::OnOff {
                rate_bps,
                on_mean_ns,
                off_mean_ns,
                distribution,
            } => (
                rate_bps,
                Some((SimDuration(on_mean_ns), SimDuration(off_mean_ns), distribution)),
            ),
        }
    }

    fn draw_period(&mut self, mean: SimDuration) -> SimDuration {
        let Some((_, _, dist)) = self.on_off else {
            return SimDuration::MAX;
        };
        let mean_s = mean.as_secs_f64();
        let secs = match dist {
            PeriodDistribution::Exponential => self.rng.exponential(mean_s),
            PeriodDistribution::Pareto { shape } => self.rng.pareto(shape, mean_s),
        };
        SimDuration::from_secs_f64(secs)
    }

    /// Time at which packet `k` of the current burst leaves.
    fn burst_time(&self, k: u64) -> SimTime {
        let bits = self.packet_size_bytes as u128 * 8 * k as u128 * NANOS_PER_SEC as u128;
        self.burst_start + SimDuration(bits.div_ceil(self.rate_bps as u128) as u64)
    }

    fn start_burst(&mut self, now: SimTime) -> SourceAction {
        self.burst_start = now;
        self.burst_index = 0;
        self.phase = match self.on_off {
            Some((on_mean, _, _)) => Phase::On {
                until: now + self.draw_period(on_mean),
            },
            None => Phase::On { until: SimTime::NEVER },
        };
        self.wake(now)
    }

    /// Handles a wake-up at `now`.
    pub fn wake(&mut self, now: SimTime) -> SourceAction {
        if now >= self.stop {
            return SourceAction::Wait(None);
        }
        match self.phase {
            Phase::NotStarted | Phase::Off => self.start_burst(now),
            Phase::On { until } => {
                if now >= until {
                    // End of the on period: stay silent for an off period.
                    let off_mean = self.on_off.map(|o| o.1).unwrap_or_default();
                    self.phase = Phase::Off;
                    return SourceAction::Wait(Some(now + self.draw_period(off_mean)));
                }
                let packet = Packet {
                    size_bytes: self.packet_size_bytes,
                    src: self.src,
                    dst: self.dst,
                    flow_hash: self.flow_hash,
                    endpoint: self.sink,
                    sent_at: now,
                    payload: Payload::Udp { seq: self.next_seq },
                };
                self.next_seq += 1;
                self.sent_pkts += 1;
                self.sent_bytes += self.packet_size_bytes as u64;
                self.burst_index += 1;
                let next = self.burst_time(self.burst_index).min(until);
                SourceAction::Send(packet, Some(next))
            }
        }
    }
}

/// Counts what a UDP flow delivers.
#[derive(Clone, Debug, Default)]
pub struct UdpSink {
    pub received_pkts: u64,
    pub received_bytes: u64,
    /// Sum of one-way delays, in nanoseconds.
    pub delay_sum_ns: u128,
    pub delay_min_ns: u64,
    pub delay_max_ns: u64,
    pub first_rx: Option<SimTime>,
    pub last_rx: Option<SimTime>,
    /// Packets that arrived with a lower sequence number than one before.
    pub reordered_pkts: u64,
    highest_seq: Option<u64>,
}

impl UdpSink {
    pub fn receive(&mut self, now: SimTime, p: &Packet) {
        let delay = now.saturating_since(p.sent_at).nanos();
        if self.received_pkts == 0 {
            self.delay_min_ns = delay;
            self.first_rx = Some(now);
        }
        self.received_pkts += 1;
        self.received_bytes += p.size_bytes as u64;
        self.delay_sum_ns += delay as u128;
        self.delay_min_ns = self.delay_min_ns.min(delay);
        self.delay_max_ns = self.delay_max_ns.max(delay);
        self.last_rx = Some(now);
        if let Payload::Udp { seq } = p.payload {
            match self.highest_seq {
                Some(h) if seq < h => self.reordered_pkts += 1,
                _ => self.highest_seq = Some(seq),
            }
        }
    }
}
