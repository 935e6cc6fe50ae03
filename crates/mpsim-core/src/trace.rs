//! The traces a run records over time, kept by an [`Observer`] on the
//! tracing hook: queue occupancy at every change, and one row of a TCP
//! sender's state per event it processes.

use crate::ids::LinkId;
use crate::observe::{Observer, SubflowRef, TransportEvent};
use crate::time::SimTime;

/// Queue occupancy over time.
#[derive(Clone, Debug, Default)]
pub struct QueueTrace {
    pub time_ns: Vec<u64>,
    pub queue_pkts: Vec<u32>,
    pub queue_bytes: Vec<u64>,
}

impl QueueTrace {
    pub fn record(&mut self, now: SimTime, pkts: u32, bytes: u64) {
        self.time_ns.push(now.nanos());
        self.queue_pkts.push(pkts);
        self.queue_bytes.push(bytes);
    }
}

/// A subflow's sender over time, one row per event it processed.
#[derive(Clone, Debug, Default)]
pub struct TcpTrace {
    pub time_ns: Vec<u64>,
    pub cwnd_bytes: Vec<u64>,
    pub ssthresh_bytes: Vec<u64>,
    pub srtt_ns: Vec<u64>,
    pub in_flight_bytes: Vec<u64>,
}

/// Records the traces a scenario asks for: every change of the chosen
/// links' queues, and the state of the chosen subflows' senders.
#[derive(Clone, Debug, Default)]
pub struct TraceRecorder {
    /// Indexed by link: the link's trace, if it is traced.
    queues: Vec<Option<QueueTrace>>,
    /// Indexed by connection, then subflow: the subflow's trace, if traced.
    tcp: Vec<Vec<Option<TcpTrace>>>,
}

impl TraceRecorder {
    /// A recorder of the links and subflows marked `true`.
    pub fn new(
        traced_links: impl IntoIterator<Item = bool>,
        traced_subflows: impl IntoIterator<Item = Vec<bool>>,
    ) -> Self {
        TraceRecorder {
            queues: traced_links.into_iter().map(|t| t.then(QueueTrace::default)).collect(),
            tcp: traced_subflows
                .into_iter()
                .map(|c| c.into_iter().map(|t| t.then(TcpTrace::default)).collect())
                .collect(),
        }
    }

    /// Whether nothing is traced (then the recorder need not watch).
    pub fn is_empty(&self) -> bool {
        self.queues.iter().all(Option::is_none) && self.tcp.iter().flatten().all(Option::is_none)
    }

    /// The queue trace of link `l`, if traced.
    pub fn queue(&self, l: LinkId) -> Option<&QueueTrace> {
        self.queues.get(l.idx())?.as_ref()
    }

    /// Every traced link with its trace, in link order.
    pub fn queues(&self) -> impl Iterator<Item = (LinkId, &QueueTrace)> {
        self.queues
            .iter()
            .enumerate()
            .filter_map(|(i, t)| Some((LinkId(i as u32), t.as_ref()?)))
    }

    /// The TCP trace of subflow `subflow` of connection `connection`, if traced.
    pub fn tcp(&self, connection: usize, subflow: usize) -> Option<&TcpTrace> {
        self.tcp.get(connection)?.get(subflow)?.as_ref()
    }

    /// Rows recorded so far.
    pub fn rows(&self) -> u64 {
        let queue = self.queues.iter().flatten().map(|t| t.time_ns.len());
        let tcp = self.tcp.iter().flatten().flatten().map(|t| t.time_ns.len());
        queue.chain(tcp).map(|n| n as u64).sum()
    }
}

impl Observer for TraceRecorder {
    fn on_queue_length(&mut self, now: SimTime, link: LinkId, len_pkts: u32, len_bytes: u64) {
        if let Some(Some(t)) = self.queues.get_mut(link.idx()) {
            t.record(now, len_pkts, len_bytes);
        }
    }

    fn on_transport(&mut self, now: SimTime, sf: SubflowRef, event: TransportEvent) {
        let TransportEvent::Processed {
            cwnd_bytes,
            ssthresh_bytes,
            srtt,
            in_flight_bytes,
        } = event
        else {
            return;
        };
        let Some(Some(t)) = self
            .tcp
            .get_mut(sf.connection as usize)
            .and_then(|c| c.get_mut(sf.subflow as usize))
        else {
            return;
        };
        t.time_ns.push(now.nanos());
        t.cwnd_bytes.push(cwnd_bytes);
        t.ssthresh_bytes.push(ssthresh_bytes);
        t.srtt_ns.push(srtt.nanos());
        t.in_flight_bytes.push(in_flight_bytes);
    }
}
