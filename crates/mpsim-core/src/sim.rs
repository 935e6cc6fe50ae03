//! The simulator: one event loop that owns every component of a run.

use crate::event::{Event, EventQueue};
use crate::ids::{EndpointId, LinkId, PacketId};
use crate::limits::{Interrupt, Stop, Stopped, CHECK_EVERY_EVENTS};
use crate::net::link::QueueTrace;
use crate::net::{LossModel, Network, QueuedPacket};
use crate::packet::PacketPool;
use crate::packet::Payload;
use crate::time::{SimDuration, SimTime};
use crate::traffic::udp::{SourceAction, UdpSink, UdpSource};
use crate::transport::connection::Connection;

/// What every component needs to act: the clock, the event queue, the
/// packets and the network. Transports receive `&mut Core`.
#[derive(Debug, Default)]
pub struct Core {
    pub now: SimTime,
    pub events: EventQueue,
    pub packets: PacketPool,
    pub net: Network,
    /// Reused buffer for packets a queue drops in bulk (no allocation per event).
    pub(crate) drop_scratch: Vec<QueuedPacket>,
    /// Whether the run ends once every watched connection has completed
    /// (`ScenarioConfig::stop_when_complete`).
    pub(crate) watch: bool,
    /// Watched connections that have not completed yet.
    pub(crate) watched_remaining: u32,
    /// The run loop returns once this many events have been processed in
    /// all; the last watched connection to complete sets it to 0, so that
    /// one comparison per event covers both ways out of the loop.
    pub(crate) pause_at_event: u64,
}

/// Who receives packets delivered to an [`EndpointId`].
#[derive(Clone, Copy, Debug)]
pub enum Endpoint {
    UdpSink(u32),
    /// The sending side of subflow (connection, subflow): receives ACKs.
    TcpSender(u32, u16),
    /// The receiving side of subflow (connection, subflow): receives data.
    TcpReceiver(u32, u16),
}

/// A scheduled change to a link.
#[derive(Clone, Debug)]
pub struct LinkChange {
    pub at: SimTime,
    pub link: LinkId,
    pub rate_bps: Option<u64>,
    pub delay: Option<SimDuration>,
    pub loss: Option<LossModel>,
    pub up: Option<bool>,
}

/// Periodic sampling of queue occupancy.
#[derive(Debug)]
pub struct SampledTraces {
    pub interval: SimDuration,
    pub traces: Vec<(LinkId, QueueTrace)>,
}

#[derive(Debug)]
pub struct Simulator {
    pub core: Core,
    pub seed: u64,
    pub stop_time: SimTime,
    pub endpoints: Vec<Endpoint>,
    pub udp_sources: Vec<UdpSource>,
    pub udp_sinks: Vec<UdpSink>,
    /// TCP flows and MPTCP connections.
    pub connections: Vec<Connection>,
    pub link_changes: Vec<LinkChange>,
    pub sampled: Option<SampledTraces>,
    /// Events processed so far.
    pub events_processed: u64,
    /// Whether the run ended at the stop time (rather than running dry).
    pub stopped_by_limit: bool,
    /// `limits.max_events`: [`Simulator::run_bounded`] stops on reaching it.
    pub max_events: u64,
    /// `limits.max_trace_rows`: [`Simulator::run_bounded`] stops on passing it.
    pub max_trace_rows: u64,
}

impl Simulator {
    /// Schedules the components' first events. Called once by the builder.
    pub(crate) fn prime(&mut self) {
        for (i, s) in self.udp_sources.iter().enumerate() {
            self.core.events.schedule(s.start, Event::UdpSource(i as u32));
        }
        for (i, c) in self.connections.iter().enumerate() {
            // Later flows of a sequence start when their predecessor completes.
            if c.start != SimTime::NEVER {
                self.core.events.schedule(c.start, Event::TcpStart(i as u32, 0));
            }
        }
        for (i, c) in self.link_changes.iter().enumerate() {
            self.core.events.schedule(c.at, Event::LinkChange(i as u32));
        }
        for (i, c) in self.connections.iter().enumerate() {
            for (k, e) in c.subflow_events.iter().enumerate() {
                self.core.events.schedule(e.at, Event::SubflowEvent(i as u32, k as u16));
            }
        }
        if self.sampled.is_some() {
            self.core.events.schedule(SimTime::ZERO, Event::TraceSample);
        }
    }

    /// Runs until the stop time or until no event is left.
    pub fn run(&mut self) {
        self.run_until(self.stop_time);
    }

    /// Processes every event at or before `until` (capped at the stop time)
    /// and leaves the clock at `until` if events remain beyond it.
    pub fn run_until(&mut self, until: SimTime) {
        self.advance(until, u64::MAX);
    }

    /// Runs to the end as [`Simulator::run`] does, but pauses every
    /// [`CHECK_EVERY_EVENTS`] events to check the run's limits and to ask
    /// `interrupt` whether to go on. A stop leaves the simulator as it was at
    /// that event: what happened before it is what an unbounded run does.
    pub fn run_bounded(&mut self, interrupt: &mut dyn Interrupt) -> Result<(), Stopped> {
        loop {
            let pause_at = self
                .events_processed
                .saturating_add(CHECK_EVERY_EVENTS)
                .min(self.max_events);
            if !self.advance(self.stop_time, pause_at) {
                return Ok(());
            }
            let why = if self.events_processed >= self.max_events && self.work_left() {
                Some(Stop::EventLimit { limit: self.max_events })
            } else if self.trace_rows() > self.max_trace_rows {
                Some(Stop::TraceLimit {
                    limit: self.max_trace_rows,
                })
            } else {
                interrupt.poll()
            };
            if let Some(why) = why {
                return Err(Stopped {
                    why,
                    at: self.core.now,
                    stop_time: self.stop_time,
                    events_processed: self.events_processed,
                });
            }
        }
    }

    /// The loop of [`Simulator::run_until`]; it also returns early, with
    /// `true`, once `pause_at` events have been processed in all.
    #[inline]
    fn advance(&mut self, until: SimTime, pause_at: u64) -> bool {
        if self.completed() {
            return false; // the run ended when the last watched connection completed
        }
        self.core.pause_at_event = pause_at;
        let until = until.min(self.stop_time);
        while let Some(t) = self.core.events.peek_time() {
            if t > until {
                self.core.now = until;
                self.stopped_by_limit = until == self.stop_time;
                return false;
            }
            let (time, event) = self.core.events.pop().expect("peeked");
            self.core.now = time;
            self.events_processed += 1;
            self.dispatch(event);
            if self.events_processed >= self.core.pause_at_event {
                return !self.completed();
            }
        }
        false
    }

    /// Whether every watched connection has completed (`stop_when_complete`).
    fn completed(&self) -> bool {
        self.core.watch && self.core.watched_remaining == 0
    }

    /// Whether an event remains to be processed before the stop time.
    fn work_left(&self) -> bool {
        !self.completed() && self.core.events.peek_time().is_some_and(|t| t <= self.stop_time)
    }

    /// Rows recorded so far in queue and TCP traces.
    pub fn trace_rows(&self) -> u64 {
        let sampled = self
            .sampled
            .iter()
            .flat_map(|s| &s.traces)
            .map(|(_, t)| t.time_ns.len());
        let on_change = self
            .core
            .net
            .links
            .iter()
            .filter_map(|l| l.trace_on_change.as_ref())
            .map(|t| t.time_ns.len());
        let tcp = self
            .connections
            .iter()
            .flat_map(|c| &c.subflows)
            .filter_map(|sf| sf.trace.as_ref())
            .map(|t| t.time_ns.len());
        sampled.chain(on_change).chain(tcp).map(|n| n as u64).sum()
    }

    #[inline]
    fn dispatch(&mut self, event: Event) {
        match event {
            Event::LinkTxDone(l) => self.core.on_tx_done(l),
            Event::LinkArrival(l, p) => {
                if let Some((ep, pkt)) = self.core.on_link_arrival(l, p) {
                    self.deliver(ep, pkt);
                }
            }
            Event::UdpSource(i) => self.wake_udp_source(i),
            Event::LinkChange(i) => self.apply_link_change(i),
            Event::TraceSample => self.sample_traces(),
            Event::TcpStart(c, r) => {
                let conn = &mut self.connections[c as usize];
                if r == 0 && conn.start == SimTime::NEVER {
                    conn.start = self.core.now;
                }
                conn.start_subflow(&mut self.core, r as usize)
            }
            Event::TcpRto(c, r) => self.connections[c as usize].on_sender_timer(&mut self.core, r as usize),
            Event::TcpDelAck(c, r, generation) => {
                self.connections[c as usize].on_delack_timer(&mut self.core, r as usize, generation)
            }
            Event::SubflowEvent(c, k) => self.connections[c as usize].on_subflow_event(&mut self.core, k as usize),
        }
    }

    fn deliver(&mut self, ep: EndpointId, pkt: PacketId) {
        match self.endpoints[ep.idx()] {
            Endpoint::UdpSink(i) => {
                self.udp_sinks[i as usize].receive(self.core.now, self.core.packets.get(pkt));
                self.core.packets.free(pkt);
            }
            Endpoint::TcpSender(c, r) | Endpoint::TcpReceiver(c, r) => {
                let Payload::Tcp(hdr) = self.core.packets.get(pkt).payload else {
                    self.core.packets.free(pkt);
                    return;
                };
                self.core.packets.free(pkt);
                let conn = &mut self.connections[c as usize];
                if matches!(self.endpoints[ep.idx()], Endpoint::TcpSender(..)) {
                    conn.on_sender_packet(&mut self.core, r as usize, &hdr);
                } else {
                    conn.on_receiver_packet(&mut self.core, r as usize, &hdr);
                }
            }
        }
    }

    fn wake_udp_source(&mut self, i: u32) {
        let now = self.core.now;
        let src = &mut self.udp_sources[i as usize];
        let next = match src.wake(now) {
            SourceAction::Send(packet, next) => {
                let id = self.core.packets.alloc(packet);
                self.core.send(id);
                next
            }
            SourceAction::Wait(next) => next,
        };
        if let Some(t) = next {
            self.core.events.schedule(t, Event::UdpSource(i));
        }
    }

    fn apply_link_change(&mut self, i: u32) {
        let c = self.link_changes[i as usize].clone();
        let link = &mut self.core.net.links[c.link.idx()];
        if let Some(r) = c.rate_bps {
            link.rate_bps = r;
        }
        if let Some(d) = c.delay {
            link.delay = d;
        }
        if let Some(l) = c.loss {
            link.loss = l;
        }
        if let Some(up) = c.up {
            self.core.set_link_up(c.link, up);
        }
    }

    fn sample_traces(&mut self) {
        let Some(s) = self.sampled.as_mut() else { return };
        let now = self.core.now;
        for (l, trace) in s.traces.iter_mut() {
            let q = &self.core.net.links[l.idx()].queue;
            trace.record(now, q.len_pkts(), q.len_bytes());
        }
        let next = now + s.interval;
        // Keep sampling only while something else may still happen.
        if next <= self.stop_time && !self.core.events.is_empty() {
            self.core.events.schedule(next, Event::TraceSample);
        }
    }
}
