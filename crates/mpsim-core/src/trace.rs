//! The traces a run records over time, kept by an [`Observer`] on the
//! tracing hook: queue occupancy at every change, one row of a TCP
//! sender's state per event it processes, the time of every retransmission
//! timeout of a traced subflow, and every segment a traced subflow sent and
//! every ACK it received.

use serde::{Deserialize, Serialize};

use crate::ids::LinkId;
use crate::observe::{Observer, SegmentEvent, SubflowRef, TransportEvent};
use crate::time::SimTime;
use crate::wire::{TcpHeader, MAX_SACK_BLOCKS};

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

/// One segment a subflow's sender sent, or one ACK it received. Sequence
/// numbers are the subflow's byte offsets (the SYN is 0, the first data byte
/// 1); data sequence numbers are the MPTCP connection's (RFC 8684 §3.3).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentRecord {
    pub time_ns: u64,
    /// Whether the sender received this segment (an ACK or the SYN-ACK)
    /// rather than sent it.
    pub received: bool,
    /// The header's flags (`wire::TcpFlags`).
    pub flags: u8,
    /// Sent: the sequence number of the first byte (or of the SYN or FIN).
    pub seq: u64,
    /// Sent: payload bytes.
    pub payload_bytes: u32,
    /// Sent: whether the segment is a retransmission.
    pub retransmission: bool,
    /// Sent: the data sequence number of the first payload byte.
    pub data_seq: u64,
    /// Received: the ACK's cumulative acknowledgement.
    pub ack: u64,
    /// Received: the sender's SND.UNA once it processed the ACK.
    pub snd_una: u64,
    /// Received: the SACK blocks [start, end), `n_sack` of them valid.
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    pub n_sack: u8,
    /// Received: the window the receiver advertised, bytes.
    pub rwnd_bytes: u64,
    /// Received: the MPTCP DATA_ACK.
    pub data_ack: u64,
    /// Received: the sender's congestion window once it processed the ACK, bytes.
    pub cwnd_bytes: u64,
}

impl SegmentRecord {
    fn of(now: SimTime, h: &TcpHeader) -> Self {
        let mut sack = [(0, 0); MAX_SACK_BLOCKS];
        for (slot, b) in sack.iter_mut().zip(h.sacks()) {
            *slot = (b.start, b.end);
        }
        SegmentRecord {
            time_ns: now.nanos(),
            received: false,
            flags: h.flags.0,
            seq: h.seq,
            payload_bytes: h.payload_bytes,
            retransmission: h.retransmission,
            data_seq: h.dsn,
            ack: h.ack,
            snd_una: 0,
            sack,
            n_sack: h.n_sack,
            rwnd_bytes: h.rwnd,
            data_ack: h.data_ack,
            cwnd_bytes: 0,
        }
    }
}

/// Records the traces a scenario asks for: every change of the chosen
/// links' queues, the state of the chosen subflows' senders, and the
/// segments and ACKs of the chosen subflows.
#[derive(Clone, Debug, Default)]
pub struct TraceRecorder {
    /// Indexed by link: the link's trace, if it is traced.
    queues: Vec<Option<QueueTrace>>,
    /// Indexed by connection, then subflow: the subflow's trace, if traced.
    tcp: Vec<Vec<Option<TcpTrace>>>,
    /// Indexed by connection, then subflow: the time of each of its
    /// retransmission timeouts, ns, in order, if its sender's state is traced.
    rto: Vec<Vec<Option<Vec<u64>>>>,
    /// Indexed by connection, then subflow: its segments and ACKs, if traced.
    segments: Vec<Vec<Option<Vec<SegmentRecord>>>>,
}

impl TraceRecorder {
    /// A recorder of the links and subflows marked `true` (per connection,
    /// per subflow: whether its sender's state is traced, whether its segments are).
    pub fn new(
        traced_links: impl IntoIterator<Item = bool>,
        traced_subflows: impl IntoIterator<Item = Vec<(bool, bool)>>,
    ) -> Self {
        let mut tcp = Vec::new();
        let mut rto = Vec::new();
        let mut segments = Vec::new();
        for c in traced_subflows {
            tcp.push(c.iter().map(|&(t, _)| t.then(TcpTrace::default)).collect());
            rto.push(c.iter().map(|&(t, _)| t.then(Vec::new)).collect());
            segments.push(c.iter().map(|&(_, s)| s.then(Vec::new)).collect());
        }
        TraceRecorder {
            queues: traced_links.into_iter().map(|t| t.then(QueueTrace::default)).collect(),
            tcp,
            rto,
            segments,
        }
    }

    /// Whether nothing is traced (then the recorder need not watch).
    pub fn is_empty(&self) -> bool {
        self.queues.iter().all(Option::is_none)
            && self.tcp.iter().flatten().all(Option::is_none)
            && self.segments.iter().flatten().all(Option::is_none)
    }

    /// The segments and ACKs of subflow `subflow` of connection `connection`, if traced.
    pub fn segments(&self, connection: usize, subflow: usize) -> Option<&[SegmentRecord]> {
        self.segments.get(connection)?.get(subflow)?.as_deref()
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

    /// The times of the retransmission timeouts of subflow `subflow` of
    /// connection `connection`, ns, if its sender's state is traced.
    pub fn rto_times(&self, connection: usize, subflow: usize) -> Option<&[u64]> {
        self.rto.get(connection)?.get(subflow)?.as_deref()
    }

    /// Rows recorded so far.
    pub fn rows(&self) -> u64 {
        let queue = self.queues.iter().flatten().map(|t| t.time_ns.len());
        let tcp = self.tcp.iter().flatten().flatten().map(|t| t.time_ns.len());
        let rto = self.rto.iter().flatten().flatten().map(Vec::len);
        let segments = self.segments.iter().flatten().flatten().map(Vec::len);
        queue.chain(tcp).chain(rto).chain(segments).map(|n| n as u64).sum()
    }
}

impl Observer for TraceRecorder {
    fn on_queue_length(&mut self, now: SimTime, link: LinkId, len_pkts: u32, len_bytes: u64) {
        if let Some(Some(t)) = self.queues.get_mut(link.idx()) {
            t.record(now, len_pkts, len_bytes);
        }
    }

    fn on_transport(&mut self, now: SimTime, sf: SubflowRef, event: TransportEvent) {
        if let TransportEvent::Rto { .. } = event {
            if let Some(Some(times)) = self
                .rto
                .get_mut(sf.connection as usize)
                .and_then(|c| c.get_mut(sf.subflow as usize))
            {
                times.push(now.nanos());
            }
            return;
        }
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

    fn on_segment(&mut self, now: SimTime, sf: SubflowRef, event: SegmentEvent<'_>) {
        let Some(Some(rows)) = self
            .segments
            .get_mut(sf.connection as usize)
            .and_then(|c| c.get_mut(sf.subflow as usize))
        else {
            return;
        };
        rows.push(match event {
            SegmentEvent::Sent(h) => SegmentRecord::of(now, h),
            SegmentEvent::AckReceived {
                header,
                snd_una,
                cwnd_bytes,
            } => SegmentRecord {
                received: true,
                snd_una,
                cwnd_bytes,
                ..SegmentRecord::of(now, header)
            },
        });
    }
}
