//! What a run reports: plain, serialisable tables (one row per link, per
//! flow) plus traces as columns.

use serde::{Deserialize, Serialize};

use crate::net::queue::DropCause;
use crate::observe;
use crate::sim::Simulator;
use crate::throughput::{BinnedBytes, Bins, ThroughputRecorder};
use crate::time::SimTime;
use crate::transport::connection::Connection;
use crate::transport::data_level::DataLevel;
use crate::transport::mptcp::{SubflowAction, SubflowEventOutcome};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LinkResult {
    pub name: String,
    pub from: String,
    pub to: String,
    pub arrived_pkts: u64,
    pub arrived_bytes: u64,
    pub enqueued_pkts: u64,
    pub enqueued_bytes: u64,
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    pub dropped_overflow_pkts: u64,
    pub dropped_red_pkts: u64,
    pub dropped_codel_pkts: u64,
    pub dropped_loss_pkts: u64,
    pub dropped_link_down_pkts: u64,
    pub dropped_bytes: u64,
    /// Packets waiting in the queue when the run ended.
    pub queued_pkts_at_end: u64,
    /// Packets on the transmitter or propagating when the run ended.
    pub in_transit_pkts_at_end: u64,
    pub max_queue_pkts: u32,
    pub max_queue_bytes: u64,
    /// Time-average of packets waiting.
    pub mean_queue_pkts: f64,
    /// Fraction of the run the transmitter was busy.
    pub utilisation: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct UdpFlowResult {
    pub name: String,
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub received_pkts: u64,
    pub received_bytes: u64,
    pub reordered_pkts: u64,
    /// One-way delay statistics over received packets, in nanoseconds
    /// (zero when nothing arrived).
    pub delay_min_ns: u64,
    pub delay_mean_ns: f64,
    pub delay_max_ns: u64,
    pub first_rx_ns: Option<u64>,
    pub last_rx_ns: Option<u64>,
}

/// One row per TCP flow. Times are nanoseconds from the start of the run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TcpFlowResult {
    pub name: String,
    pub start_ns: u64,
    /// When the first SYN was sent.
    pub first_syn_ns: Option<u64>,
    /// When the sender received the ACK of the last data byte (and FIN).
    pub completed_ns: Option<u64>,
    /// Flow completion time: first SYN sent → ACK of the last data received.
    pub fct_ns: Option<u64>,
    /// Bytes the receiver delivered in order to the application.
    pub bytes_delivered: u64,
    pub segments_sent: u64,
    pub retransmits_fast: u64,
    pub retransmits_rto: u64,
    pub rto_count: u64,
    /// RFC 8985 tail loss probes sent.
    pub loss_probes: u64,
    pub syn_retransmits: u64,
    pub fast_recoveries: u64,
    pub cwnd_bytes_at_end: u64,
    pub ssthresh_bytes_at_end: Option<u64>,
    pub srtt_ns_at_end: u64,
    pub slow_start_exit_ns: Option<u64>,
    pub cwnd_bytes_at_slow_start_exit: Option<u64>,
    pub retransmits_before_slow_start_exit: u64,
    pub acks_sent: u64,
    /// Duplicate ACKs the sender received (RFC 5681 §2).
    pub duplicate_acks: u64,
}

/// One row per MPTCP subflow: its address pair and the same measures as a TCP flow.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MptcpSubflowResult {
    pub index: u32,
    pub src: String,
    pub dst: String,
    pub established_ns: Option<u64>,
    /// When a subflow event opened it (`None` for the path manager's subflows).
    pub added_ns: Option<u64>,
    /// When a subflow event closed it.
    pub removed_ns: Option<u64>,
    /// Payload bytes this subflow carried to the data level.
    pub bytes_received: u64,
    pub flow: TcpFlowResult,
}

/// What became of one subflow event.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SubflowEventResult {
    pub at_ns: u64,
    pub action: SubflowAction,
    /// The subflow it opened or closed (index into `subflows`).
    pub subflow: u32,
    /// When it took effect (later than `at_ns` for an add that waited for
    /// the connection's establishment).
    pub applied_ns: Option<u64>,
    pub outcome: SubflowEventOutcome,
}

/// One row per MPTCP connection.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MptcpConnectionResult {
    pub name: String,
    pub start_ns: u64,
    pub first_syn_ns: Option<u64>,
    pub completed_ns: Option<u64>,
    /// First SYN sent → DATA_ACK of the DATA_FIN received.
    pub fct_ns: Option<u64>,
    /// Bytes delivered in order at the data level.
    pub bytes_delivered: u64,
    pub segments_sent: u64,
    pub retransmits_fast: u64,
    pub retransmits_rto: u64,
    pub rto_count: u64,
    /// RFC 8985 tail loss probes sent.
    pub loss_probes: u64,
    pub sum_cwnd_bytes_at_end: u64,
    pub sum_cwnd_bytes_at_completion: Option<u64>,
    /// When the last subflow left slow start.
    pub all_left_slow_start_ns: Option<u64>,
    pub sum_cwnd_bytes_at_all_left_slow_start: Option<u64>,
    /// R_ss of the LISA paper: retransmissions of all subflows before the event at
    /// which the last subflow left slow start.
    pub retransmits_before_all_left_slow_start: u64,
    pub reinjected_chunks: u64,
    /// Most bytes ever waiting out of order in the connection's receive buffer.
    pub max_out_of_order_bytes: u64,
    pub data_duplicate_bytes: u64,
    pub subflows: Vec<MptcpSubflowResult>,
    /// The connection's subflow events, in time order.
    pub subflow_events: Vec<SubflowEventResult>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TcpTraceResult {
    /// The TCP flow or MPTCP connection.
    pub flow: String,
    /// Subflow index (0 for a TCP flow).
    pub subflow: u32,
    pub time_ns: Vec<u64>,
    pub cwnd_bytes: Vec<u64>,
    pub ssthresh_bytes: Vec<u64>,
    pub srtt_ns: Vec<u64>,
    pub in_flight_bytes: Vec<u64>,
}

/// The time of every retransmission timeout of a traced subflow, in order.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RtoTraceResult {
    /// The TCP flow or MPTCP connection.
    pub flow: String,
    /// Subflow index (0 for a TCP flow).
    pub subflow: u32,
    /// When each timeout expired, ns.
    pub time_ns: Vec<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct QueueTraceResult {
    pub link: String,
    pub time_ns: Vec<u64>,
    pub queue_pkts: Vec<u32>,
    pub queue_bytes: Vec<u64>,
}

/// Every segment a traced subflow's sender sent and every ACK it received, in time order.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SegmentTraceResult {
    /// The TCP flow or MPTCP connection.
    pub flow: String,
    /// Subflow index (0 for a TCP flow).
    pub subflow: u32,
    /// Whether the flow is an MPTCP connection (its data sequence numbers
    /// and DATA_ACKs mean something).
    pub mptcp: bool,
    pub segments: Vec<crate::trace::SegmentRecord>,
}

/// One flow's or subflow's windowed throughput, bin by bin.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ThroughputSeries {
    /// The TCP flow, MPTCP connection or UDP flow.
    pub flow: String,
    /// `tcp`, `mptcp` (a connection's data level), `mptcp_subflow` or `udp`.
    pub kind: String,
    /// The subflow's index (`mptcp_subflow` only).
    pub subflow: Option<u32>,
    /// Payload bytes sent in each bin, retransmissions included (UDP: bytes
    /// on the wire).
    pub bytes_sent: Vec<u64>,
    /// Bytes delivered in order in each bin (UDP: bytes received).
    pub bytes_delivered: Vec<u64>,
}

/// Windowed throughput (`crate::throughput`): the bins and every series.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ThroughputResult {
    pub start_ns: u64,
    pub interval_ns: u64,
    pub end_ns: u64,
    pub series: Vec<ThroughputSeries>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunResults {
    pub seed: u64,
    /// Simulated time at which the run ended.
    pub end_time_ns: u64,
    pub events_processed: u64,
    /// The event queue's mean size: the events pending when one was taken,
    /// averaged over the events (a measure of the engine's work, not of the
    /// network; absent from results stored before it was kept).
    #[serde(default)]
    pub event_queue_mean: f64,
    pub dropped_no_route_pkts: u64,
    pub links: Vec<LinkResult>,
    pub udp_flows: Vec<UdpFlowResult>,
    pub tcp_flows: Vec<TcpFlowResult>,
    pub mptcp_connections: Vec<MptcpConnectionResult>,
    pub queue_traces: Vec<QueueTraceResult>,
    pub tcp_traces: Vec<TcpTraceResult>,
    /// One per subflow whose sender's state is traced (left out of the
    /// serialised results when empty, as the segment traces are).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rto_traces: Vec<RtoTraceResult>,
    /// Left out of the serialised results when empty, so that results of runs
    /// that trace no segments read as they always did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segment_traces: Vec<SegmentTraceResult>,
    /// When the scenario asks for it (left out of the JSON otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput: Option<ThroughputResult>,
}

impl Simulator {
    /// The rows `row` makes of the subflows, connection by connection and
    /// subflow by subflow (given the connection's index, the connection and
    /// the subflow's index; `None` for a subflow without one).
    fn per_subflow<T>(&self, row: impl Fn(usize, &Connection, usize) -> Option<T>) -> Vec<T> {
        self.connections
            .iter()
            .enumerate()
            .flat_map(|(i, c)| (0..c.subflows.len()).map(move |r| (i, c, r)))
            .filter_map(|(i, c, r)| row(i, c, r))
            .collect()
    }

    pub fn results(&self) -> RunResults {
        let now = self.ctx.now;
        let net = &self.net;
        let links = net
            .links
            .iter()
            .map(|l| {
                let c = &l.counters;
                LinkResult {
                    name: l.name.clone(),
                    from: net.nodes[l.from.idx()].name.clone(),
                    to: net.nodes[l.to.idx()].name.clone(),
                    arrived_pkts: c.arrived_pkts,
                    arrived_bytes: c.arrived_bytes,
                    enqueued_pkts: c.enqueued_pkts,
                    enqueued_bytes: c.enqueued_bytes,
                    delivered_pkts: c.delivered_pkts,
                    delivered_bytes: c.delivered_bytes,
                    dropped_overflow_pkts: c.dropped_pkts[DropCause::Overflow as usize],
                    dropped_red_pkts: c.dropped_pkts[DropCause::RedEarly as usize],
                    dropped_codel_pkts: c.dropped_pkts[DropCause::Codel as usize],
                    dropped_loss_pkts: c.dropped_pkts[DropCause::Loss as usize],
                    dropped_link_down_pkts: c.dropped_pkts[DropCause::LinkDown as usize],
                    dropped_bytes: c.dropped_bytes.iter().sum(),
                    queued_pkts_at_end: l.queue.len_pkts() as u64,
                    in_transit_pkts_at_end: l.in_service.is_some() as u64 + l.propagating_pkts() as u64,
                    max_queue_pkts: c.max_queue_pkts,
                    max_queue_bytes: c.max_queue_bytes,
                    mean_queue_pkts: l.mean_queue_pkts(now),
                    utilisation: if now.nanos() == 0 {
                        0.0
                    } else {
                        let busy = c.busy_ns
                            + l.in_service
                                .map_or(0, |_| now.saturating_since(l.service_started).nanos());
                        busy as f64 / now.nanos() as f64
                    },
                }
            })
            .collect();
        let udp_flows = self
            .udp_sources
            .iter()
            .zip(&self.udp_sinks)
            .map(|(s, k)| UdpFlowResult {
                name: s.name.clone(),
                sent_pkts: s.sent_pkts,
                sent_bytes: s.sent_bytes,
                received_pkts: k.received_pkts,
                received_bytes: k.received_bytes,
                reordered_pkts: k.reordered_pkts,
                delay_min_ns: k.delay_min_ns,
                delay_mean_ns: if k.received_pkts == 0 {
                    0.0
                } else {
                    k.delay_sum_ns as f64 / k.received_pkts as f64
                },
                delay_max_ns: k.delay_max_ns,
                first_rx_ns: k.first_rx.map(|t| t.nanos()),
                last_rx_ns: k.last_rx.map(|t| t.nanos()),
            })
            .collect();
        let traces = self.traces();
        let mut queue_traces: Vec<QueueTraceResult> = traces
            .into_iter()
            .flat_map(|t| t.queues())
            .map(|(l, t)| QueueTraceResult {
                link: net.links[l.idx()].name.clone(),
                time_ns: t.time_ns.clone(),
                queue_pkts: t.queue_pkts.clone(),
                queue_bytes: t.queue_bytes.clone(),
            })
            .collect();
        if let Some(s) = &self.sampled {
            queue_traces.extend(s.traces.iter().map(|(l, t)| QueueTraceResult {
                link: net.links[l.idx()].name.clone(),
                time_ns: t.time_ns.clone(),
                queue_pkts: t.queue_pkts.clone(),
                queue_bytes: t.queue_bytes.clone(),
            }));
        }
        let flow_row = |c: &crate::transport::connection::Connection, r: usize| {
            let sf = &c.subflows[r];
            let st = &sf.sender.stats;
            let cc = &c.ccs[r];
            TcpFlowResult {
                name: c.name.clone(),
                start_ns: c.start.nanos(),
                first_syn_ns: st.first_syn_at.map(|t| t.nanos()),
                completed_ns: st.completed_at.map(|t| t.nanos()),
                fct_ns: st
                    .completed_at
                    .zip(st.first_syn_at)
                    .map(|(done, syn)| done.saturating_since(syn).nanos()),
                bytes_delivered: sf.receiver.delivered_bytes(),
                segments_sent: st.segments_sent,
                retransmits_fast: st.retransmits_fast,
                retransmits_rto: st.retransmits_rto,
                rto_count: st.rto_count,
                loss_probes: st.loss_probes,
                syn_retransmits: st.syn_retransmits + sf.opening.map_or(0, |o| o.retransmits),
                fast_recoveries: st.fast_recoveries,
                cwnd_bytes_at_end: cc.cwnd,
                ssthresh_bytes_at_end: (cc.ssthresh != u64::MAX).then_some(cc.ssthresh),
                srtt_ns_at_end: cc.srtt.nanos(),
                slow_start_exit_ns: st.slow_start_exit_at.map(|t| t.nanos()),
                cwnd_bytes_at_slow_start_exit: st.slow_start_exit_at.map(|_| st.cwnd_at_slow_start_exit),
                retransmits_before_slow_start_exit: st.retransmits_before_slow_start_exit,
                acks_sent: sf.acks_sent,
                duplicate_acks: st.duplicate_acks,
            }
        };
        let tcp_flows = self
            .connections
            .iter()
            .filter(|c| !c.is_mptcp())
            .map(|c| flow_row(c, 0))
            .collect();
        let mptcp_connections = self
            .connections
            .iter()
            .filter_map(|c| Some((c, c.data.receiver()?)))
            .map(|(c, rx)| {
                let st = &c.stats;
                let subflows: Vec<MptcpSubflowResult> = (0..c.subflows.len())
                    .map(|r| {
                        let row = flow_row(c, r);
                        MptcpSubflowResult {
                            index: r as u32,
                            src: net.addrs[c.subflows[r].src.idx()].name.clone(),
                            dst: net.addrs[c.subflows[r].dst.idx()].name.clone(),
                            established_ns: c.subflows[r].sender.stats.established_at.map(|t| t.nanos()),
                            added_ns: c.subflows[r].added_at.map(|t| t.nanos()),
                            removed_ns: c.subflows[r].removed_at.map(|t| t.nanos()),
                            bytes_received: c.subflows[r].bytes_received,
                            flow: row,
                        }
                    })
                    .collect();
                let total = |f: fn(&TcpFlowResult) -> u64| subflows.iter().map(|s| f(&s.flow)).sum::<u64>();
                MptcpConnectionResult {
                    name: c.name.clone(),
                    start_ns: c.start.nanos(),
                    first_syn_ns: st.first_syn_at.map(|t| t.nanos()),
                    completed_ns: st.completed_at.map(|t| t.nanos()),
                    fct_ns: st
                        .completed_at
                        .zip(st.first_syn_at)
                        .map(|(done, syn)| done.saturating_since(syn).nanos()),
                    bytes_delivered: rx.delivered_bytes(),
                    segments_sent: total(|f| f.segments_sent),
                    retransmits_fast: total(|f| f.retransmits_fast),
                    retransmits_rto: total(|f| f.retransmits_rto),
                    rto_count: total(|f| f.rto_count),
                    loss_probes: total(|f| f.loss_probes),
                    sum_cwnd_bytes_at_end: c.sum_cwnd(),
                    sum_cwnd_bytes_at_completion: st.completed_at.map(|_| st.sum_cwnd_at_completion),
                    all_left_slow_start_ns: st.all_left_slow_start_at.map(|t| t.nanos()),
                    sum_cwnd_bytes_at_all_left_slow_start: st
                        .all_left_slow_start_at
                        .map(|_| st.sum_cwnd_at_all_left_slow_start),
                    retransmits_before_all_left_slow_start: st.retransmits_before_all_left_slow_start,
                    reinjected_chunks: st.reinjected_chunks,
                    max_out_of_order_bytes: rx.max_held_bytes,
                    data_duplicate_bytes: rx.duplicate_bytes,
                    subflows,
                    subflow_events: c
                        .subflow_events
                        .iter()
                        .map(|e| SubflowEventResult {
                            at_ns: e.at.nanos(),
                            action: e.action,
                            subflow: e.subflow as u32,
                            applied_ns: e.applied_at.map(|t| t.nanos()),
                            outcome: e.outcome,
                        })
                        .collect(),
                }
            })
            .collect();
        let tcp_traces = self.per_subflow(|i, c, r| {
            traces?.tcp(i, r).map(|t| TcpTraceResult {
                flow: c.name.clone(),
                subflow: r as u32,
                time_ns: t.time_ns.clone(),
                cwnd_bytes: t.cwnd_bytes.clone(),
                ssthresh_bytes: t.ssthresh_bytes.clone(),
                srtt_ns: t.srtt_ns.clone(),
                in_flight_bytes: t.in_flight_bytes.clone(),
            })
        });
        let rto_traces = self.per_subflow(|i, c, r| {
            traces?.rto_times(i, r).map(|times| RtoTraceResult {
                flow: c.name.clone(),
                subflow: r as u32,
                time_ns: times.to_vec(),
            })
        });
        let segment_traces = self.per_subflow(|i, c, r| {
            traces?.segments(i, r).map(|rows| SegmentTraceResult {
                flow: c.name.clone(),
                subflow: r as u32,
                mptcp: c.is_mptcp(),
                segments: rows.to_vec(),
            })
        });
        RunResults {
            seed: self.seed,
            end_time_ns: now.nanos(),
            events_processed: self.events_processed,
            event_queue_mean: self.ctx.events.mean_len(),
            dropped_no_route_pkts: net.dropped_no_route,
            links,
            udp_flows,
            tcp_flows,
            mptcp_connections,
            queue_traces,
            tcp_traces,
            rto_traces,
            segment_traces,
            throughput: self.throughput(now),
        }
    }

    /// The windowed-throughput table's series, if the scenario asks for it:
    /// each TCP flow, each MPTCP connection followed by its subflows, each UDP flow.
    /// The bins end where the run ended (`now`: a `stop_when_complete` run
    /// stops before its duration), the last one cut there.
    fn throughput(&self, now: SimTime) -> Option<ThroughputResult> {
        let r = observe::find::<ThroughputRecorder>(self.ctx.observer.as_deref()?)?;
        let bins = Bins {
            end: r.bins.end.min(now.max(r.bins.start)),
            ..r.bins
        };
        let count = bins.count();
        let series = |flow: &str, kind: &str, subflow: Option<u32>, b: &BinnedBytes| ThroughputSeries {
            flow: flow.to_string(),
            kind: kind.to_string(),
            subflow,
            bytes_sent: b.sent[..count].to_vec(),
            bytes_delivered: b.delivered[..count].to_vec(),
        };
        let mut out = Vec::new();
        for (c, conn) in self.connections.iter().enumerate() {
            let kind = if conn.is_mptcp() { "mptcp" } else { "tcp" };
            out.push(series(&conn.name, kind, None, &r.connections[c]));
            for (s, b) in r.subflows[c].iter().enumerate() {
                out.push(series(&conn.name, "mptcp_subflow", Some(s as u32), b));
            }
        }
        for (u, b) in self.udp_sources.iter().zip(&r.udp) {
            out.push(series(&u.name, "udp", None, b));
        }
        Some(ThroughputResult {
            start_ns: bins.start.nanos(),
            interval_ns: bins.interval.nanos(),
            end_ns: bins.end.nanos(),
            series: out,
        })
    }
}
