//! The simulator: one event loop that owns every component of a run and
//! hands each event to the component it names — the network for link
//! events, a transport for its packets and timers — with the simulation
//! context.

use crate::context::SimContext;
use crate::event::Event;
use crate::ids::{EndpointId, LinkId, PacketId};
use crate::net::{LossModel, Network};
use crate::observe::{self, Observer, Tee, UdpEvent};
use crate::plugin::Abort;
use crate::stop::{Interrupt, Stop, Stopped, CHECK_EVERY_EVENTS};
use crate::time::{SimDuration, SimTime};
use crate::trace::{QueueTrace, TraceRecorder};
use crate::traffic::udp::{SourceAction, UdpSink, UdpSource};
use crate::transport::connection::Connection;
use crate::transport::{Io, Side, Transport, TransportTimer};
use crate::wire::Payload;

/// Who receives packets delivered to an [`EndpointId`].
#[derive(Clone, Copy, Debug)]
pub enum Endpoint {
    UdpSink(u32),
    /// One side of a TCP subflow: the sending side receives ACKs, the
    /// receiving side data.
    Tcp {
        connection: u32,
        subflow: u16,
        side: Side,
    },
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

/// When the state that a delivery reads is loaded, in two steps since
/// the second is found through what the first loads.
#[derive(Clone, Copy, Debug)]
enum Stage {
    /// The packet has left the transmitter of the last link of its route.
    Propagating,
    /// Its arrival is the next event.
    NextEvent,
}

#[derive(Debug)]
pub struct Simulator {
    /// Clock, event queue, packets and the tracing hook.
    pub ctx: SimContext,
    pub net: Network,
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
    /// Raised by an external algorithm that failed: the loop stops after the
    /// event in progress and [`Simulator::run_bounded`] returns
    /// [`Stop::Aborted`]. Never raised in a run of native algorithms.
    pub abort: Abort,
}

impl Simulator {
    /// Schedules the components' first events. Called once by the builder.
    pub(crate) fn prime(&mut self) {
        let recorder = TraceRecorder::new(
            self.net.links.iter().map(|l| l.traced_on_change),
            self.connections
                .iter()
                .map(|c| c.subflows.iter().map(|sf| (sf.traced, sf.segments_traced)).collect()),
        );
        if !recorder.is_empty() {
            self.observe(Box::new(recorder));
        }
        for (i, s) in self.udp_sources.iter().enumerate() {
            self.ctx.events.schedule(s.start, Event::UdpSource(i as u32));
        }
        for (i, c) in self.connections.iter().enumerate() {
            // Later flows of a sequence start when their predecessor completes.
            if c.start != SimTime::NEVER {
                self.ctx.events.schedule(c.start, Event::TcpStart(i as u32, 0));
            }
        }
        for (i, c) in self.link_changes.iter().enumerate() {
            self.ctx.events.schedule(c.at, Event::LinkChange(i as u32));
        }
        for (i, c) in self.connections.iter().enumerate() {
            for (k, e) in c.subflow_events.iter().enumerate() {
                self.ctx.events.schedule(e.at, Event::SubflowEvent(i as u32, k as u16));
            }
        }
        if self.sampled.is_some() {
            self.ctx.events.schedule(SimTime::ZERO, Event::TraceSample);
        }
    }

    /// Adds an observer of the run's packet and transport events (after any
    /// already watching).
    pub fn observe(&mut self, observer: Box<dyn Observer>) {
        self.ctx.observer = Some(match self.ctx.observer.take() {
            Some(first) => Box::new(Tee(first, observer)),
            None => observer,
        });
    }

    /// The traces recorded so far, if the scenario traces anything.
    pub fn traces(&self) -> Option<&TraceRecorder> {
        observe::find::<TraceRecorder>(self.ctx.observer.as_deref()?)
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
            let paused = self.advance(self.stop_time, pause_at);
            interrupt.progress(self.ctx.now, self.stop_time);
            if !paused {
                return Ok(());
            }
            let why = if self.abort.is_raised() {
                Some(Stop::Aborted)
            } else if self.events_processed >= self.max_events && self.work_left() {
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
                    at: self.ctx.now,
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
        self.ctx.pause_at_event = pause_at;
        let until = until.min(self.stop_time);
        while let Some(t) = self.ctx.events.peek_time() {
            if t > until {
                self.ctx.now = until;
                self.stopped_by_limit = until == self.stop_time;
                self.net.settle_all(&mut self.ctx, true);
                return false;
            }
            let (time, event) = self.ctx.events.pop().expect("peeked");
            if self.net.prefetch {
                if let Some(next) = self.ctx.events.peek() {
                    if let Some(ep) = self.net.prefetch(next, &self.ctx.packets) {
                        self.prefetch_endpoint(ep, Stage::NextEvent);
                    }
                }
            }
            self.ctx.now = time;
            self.events_processed += 1;
            self.dispatch(event);
            if self.events_processed >= self.ctx.pause_at_event || self.abort.is_raised() {
                self.net.settle_all(&mut self.ctx, false);
                return !self.completed() || self.abort.is_raised();
            }
        }
        self.net.settle_all(&mut self.ctx, true);
        false
    }

    /// Whether every watched connection has completed (`stop_when_complete`).
    fn completed(&self) -> bool {
        self.ctx.watch && self.ctx.watched_remaining == 0
    }

    /// Whether an event remains to be processed before the stop time.
    fn work_left(&self) -> bool {
        !self.completed() && self.ctx.events.peek_time().is_some_and(|t| t <= self.stop_time)
    }

    /// Rows recorded so far in queue and TCP traces.
    pub fn trace_rows(&self) -> u64 {
        let sampled = self
            .sampled
            .iter()
            .flat_map(|s| &s.traces)
            .map(|(_, t)| t.time_ns.len() as u64)
            .sum::<u64>();
        sampled + self.traces().map_or(0, TraceRecorder::rows)
    }

    // Always inlined into the loop: left to LLVM's judgement it stopped
    // being once the congestion controls gained a variant holding a trait
    // object (plug-ins), and each event then paid a call and the loss of
    // what inlining lets the loop keep in registers (14 % of a dumbbell
    // run's time, 10-20 % per event; docs/performance.md, Plug-ins).
    #[inline(always)]
    fn dispatch(&mut self, event: Event) {
        // What a transport acts on; built where an arm needs it.
        macro_rules! io {
            () => {
                &mut Io {
                    ctx: &mut self.ctx,
                    net: &mut self.net,
                }
            };
        }
        match event {
            Event::LinkTxDone(l) => {
                if let Some(ep) = self.net.on_tx_done(&mut self.ctx, l) {
                    self.prefetch_endpoint(ep, Stage::Propagating);
                }
            }
            Event::LinkArrival(t) => {
                if let Some((ep, pkt)) = self.net.on_link_arrival(&mut self.ctx, t) {
                    self.deliver(ep, pkt);
                }
            }
            Event::UdpSource(i) => self.wake_udp_source(i),
            Event::LinkChange(i) => self.apply_link_change(i),
            Event::TraceSample => self.sample_traces(),
            Event::TcpStart(c, r) => {
                let conn = &mut self.connections[c as usize];
                if r == 0 && conn.start == SimTime::NEVER {
                    conn.start = self.ctx.now;
                }
                conn.start(io!(), r as usize)
            }
            Event::TcpRto(c, r) => {
                self.connections[c as usize].on_timer(io!(), TransportTimer::Retransmission { subflow: r as usize })
            }
            Event::TcpOpenTimer(c, r) => {
                self.connections[c as usize].on_timer(io!(), TransportTimer::Opening { subflow: r as usize })
            }
            Event::TcpDelAck(c, r) => {
                self.connections[c as usize].on_timer(io!(), TransportTimer::DelayedAck { subflow: r as usize })
            }
            Event::SubflowEvent(c, k) => {
                self.connections[c as usize].on_timer(io!(), TransportTimer::SubflowEvent { event: k as usize })
            }
            Event::DataRtx(c) => self.connections[c as usize].on_timer(io!(), TransportTimer::DataRetransmission),
        }
    }

    /// Starts loading what delivering a packet to `ep` reads first, one
    /// level of the connection's state at each [`Stage`]: the first reads
    /// the endpoint's entry and the connection's place, the second the
    /// connection's fields that the first loaded. `ep` is a hint (noted in
    /// the route's steps when the network's `prefetch` is on); a wrong one
    /// costs time only.
    #[inline]
    fn prefetch_endpoint(&self, ep: EndpointId, stage: Stage) {
        let Some(&Endpoint::Tcp {
            connection,
            subflow,
            side,
        }) = self.endpoints.get(ep.idx())
        else {
            return;
        };
        let Some(conn) = self.connections.get(connection as usize) else {
            return;
        };
        match stage {
            Stage::Propagating => conn.prefetch_fields(),
            Stage::NextEvent => conn.prefetch_subflows(subflow as usize, side),
        }
    }

    fn deliver(&mut self, ep: EndpointId, pkt: PacketId) {
        match self.endpoints[ep.idx()] {
            Endpoint::UdpSink(i) => {
                let packet = self.ctx.packets.get(pkt);
                if let Some(o) = self.ctx.observer.as_deref_mut() {
                    let bytes = packet.size_bytes as u64;
                    o.on_udp(self.ctx.now, i, UdpEvent::Received { bytes });
                }
                self.udp_sinks[i as usize].receive(self.ctx.now, packet);
                self.ctx.packets.free(pkt);
            }
            Endpoint::Tcp {
                connection,
                subflow,
                side,
            } => {
                let Payload::Tcp(hdr) = self.ctx.packets.get(pkt).payload else {
                    self.ctx.packets.free(pkt);
                    return;
                };
                self.ctx.packets.free(pkt);
                let mut io = Io {
                    ctx: &mut self.ctx,
                    net: &mut self.net,
                };
                self.connections[connection as usize].on_packet(&mut io, subflow as usize, side, &hdr);
            }
        }
    }

    fn wake_udp_source(&mut self, i: u32) {
        let now = self.ctx.now;
        let src = &mut self.udp_sources[i as usize];
        let next = match src.wake(now) {
            SourceAction::Send(packet, next) => {
                if let Some(o) = self.ctx.observer.as_deref_mut() {
                    let bytes = packet.size_bytes as u64;
                    o.on_udp(now, i, UdpEvent::Sent { bytes });
                }
                let id = self.ctx.packets.alloc(packet);
                self.net.send(&mut self.ctx, id);
                next
            }
            SourceAction::Wait(next) => next,
        };
        if let Some(t) = next {
            self.ctx.events.schedule(t, Event::UdpSource(i));
        }
    }

    fn apply_link_change(&mut self, i: u32) {
        let c = self.link_changes[i as usize].clone();
        let link = &mut self.net.links[c.link.idx()];
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
            self.net.set_link_up(&mut self.ctx, c.link, up);
        }
    }

    fn sample_traces(&mut self) {
        let Some(s) = self.sampled.as_mut() else { return };
        let now = self.ctx.now;
        for (l, trace) in s.traces.iter_mut() {
            self.net.settle_link(&mut self.ctx, *l);
            let q = &self.net.links[l.idx()].queue;
            trace.record(now, q.len_pkts(), q.len_bytes());
        }
        let next = now + s.interval;
        // Keep sampling only while something else may still happen.
        if next <= self.stop_time && !self.ctx.events.is_empty() {
            self.ctx.events.schedule(next, Event::TraceSample);
        }
    }
}
