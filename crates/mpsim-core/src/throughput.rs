//! Windowed throughput, kept by an [`Observer`] on the tracing hook: the
//! payload bytes each flow and subflow sent and delivered in fixed bins of
//! time, counted as they happen into counters allocated before the run.
//!
//! What is counted, per bin, at the time of the event:
//! - sent: the payload bytes of every data segment a subflow's sender puts
//!   on the network (retransmissions too); a connection's is the sum of its
//!   subflows';
//! - delivered: the bytes that move a receiver's in-order point (goodput).
//!   A subflow counts its own sequence space, a connection its data level
//!   (MPTCP: by data sequence number, so a connection's bins are not the sum
//!   of its subflows' while data waits out of order or a reinjected chunk
//!   arrives twice);
//! - UDP: the bytes on the wire of every packet sent and received.

use crate::observe::{Observer, SubflowRef, TransportEvent, UdpEvent};
use crate::time::{SimDuration, SimTime};

/// The bins: `[start + k interval, start + (k+1) interval)` for `k` in
/// `0..count`, the last one cut at `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bins {
    pub start: SimTime,
    pub interval: SimDuration,
    pub end: SimTime,
}

impl Bins {
    /// Number of bins (`interval` must be positive).
    pub fn count(&self) -> usize {
        self.end
            .saturating_since(self.start)
            .nanos()
            .div_ceil(self.interval.nanos()) as usize
    }

    /// The bin holding `now`, if any.
    #[inline]
    pub fn of(&self, now: SimTime) -> Option<usize> {
        if now < self.start || now >= self.end {
            return None;
        }
        Some((now.saturating_since(self.start).nanos() / self.interval.nanos()) as usize)
    }

    /// Start and end of bin `k`, nanoseconds.
    pub fn span_ns(&self, k: usize) -> (u64, u64) {
        let from = self.start.nanos() + k as u64 * self.interval.nanos();
        (from, (from + self.interval.nanos()).min(self.end.nanos()))
    }
}

/// Bytes sent and delivered, one counter per bin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BinnedBytes {
    pub sent: Vec<u64>,
    pub delivered: Vec<u64>,
}

impl BinnedBytes {
    fn new(bins: usize) -> Self {
        BinnedBytes {
            sent: vec![0; bins],
            delivered: vec![0; bins],
        }
    }
}

/// Records windowed throughput of every TCP flow, MPTCP connection and
/// subflow, and UDP flow of a run.
#[derive(Clone, Debug)]
pub struct ThroughputRecorder {
    pub bins: Bins,
    /// Indexed by connection: the flow's bytes (a connection's data level).
    pub connections: Vec<BinnedBytes>,
    /// Indexed by connection, then subflow: an MPTCP subflow's bytes (empty
    /// for a plain TCP flow, whose only subflow is the flow).
    pub subflows: Vec<Vec<BinnedBytes>>,
    /// Indexed by UDP flow.
    pub udp: Vec<BinnedBytes>,
}

impl ThroughputRecorder {
    /// A recorder over `bins` of connections with the given numbers of
    /// subflows (`None` for a plain TCP flow) and of `udp_flows` UDP flows.
    pub fn new(bins: Bins, subflows: impl IntoIterator<Item = Option<usize>>, udp_flows: usize) -> Self {
        let n = bins.count();
        let subflows: Vec<Vec<BinnedBytes>> = subflows
            .into_iter()
            .map(|s| (0..s.unwrap_or(0)).map(|_| BinnedBytes::new(n)).collect())
            .collect();
        ThroughputRecorder {
            bins,
            connections: subflows.iter().map(|_| BinnedBytes::new(n)).collect(),
            subflows,
            udp: (0..udp_flows).map(|_| BinnedBytes::new(n)).collect(),
        }
    }
}

impl Observer for ThroughputRecorder {
    fn on_transport(&mut self, now: SimTime, sf: SubflowRef, event: TransportEvent) {
        let (sent, subflow_delivered, data_delivered) = match event {
            TransportEvent::Sent { payload_bytes } => (payload_bytes, 0, 0),
            TransportEvent::Delivered {
                subflow_bytes,
                data_bytes,
            } => (0, subflow_bytes, data_bytes),
            _ => return,
        };
        let Some(k) = self.bins.of(now) else { return };
        let c = sf.connection as usize;
        if let Some(conn) = self.connections.get_mut(c) {
            conn.sent[k] += sent;
            conn.delivered[k] += data_delivered;
        }
        if let Some(s) = self.subflows.get_mut(c).and_then(|s| s.get_mut(sf.subflow as usize)) {
            s.sent[k] += sent;
            s.delivered[k] += subflow_delivered;
        }
    }

    fn on_udp(&mut self, now: SimTime, flow: u32, event: UdpEvent) {
        let (Some(k), Some(u)) = (self.bins.of(now), self.udp.get_mut(flow as usize)) else {
            return;
        };
        match event {
            UdpEvent::Sent { bytes } => u.sent[k] += bytes,
            UdpEvent::Received { bytes } => u.delivered[k] += bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bins() -> Bins {
        Bins {
            start: SimTime(1_000),
            interval: SimDuration(300),
            end: SimTime(2_000),
        }
    }

    #[test]
    fn bins_cover_start_to_end_and_the_last_is_cut() {
        let b = bins();
        assert_eq!(b.count(), 4);
        assert_eq!(b.of(SimTime(999)), None);
        assert_eq!(b.of(SimTime(1_000)), Some(0));
        assert_eq!(b.of(SimTime(1_299)), Some(0));
        assert_eq!(b.of(SimTime(1_300)), Some(1));
        assert_eq!(b.of(SimTime(1_999)), Some(3));
        assert_eq!(b.of(SimTime(2_000)), None);
        assert_eq!(b.span_ns(3), (1_900, 2_000));
    }

    #[test]
    fn a_subflow_counts_its_own_bytes_and_its_connection_the_data_level() {
        let mut r = ThroughputRecorder::new(bins(), [None, Some(2)], 1);
        let sf = |connection, subflow| SubflowRef { connection, subflow };
        r.on_transport(SimTime(1_100), sf(0, 0), TransportEvent::Sent { payload_bytes: 10 });
        r.on_transport(SimTime(1_100), sf(1, 0), TransportEvent::Sent { payload_bytes: 7 });
        r.on_transport(SimTime(1_400), sf(1, 1), TransportEvent::Sent { payload_bytes: 5 });
        let held = TransportEvent::Delivered {
            subflow_bytes: 5,
            data_bytes: 0,
        };
        r.on_transport(SimTime(1_500), sf(1, 1), held);
        let released = TransportEvent::Delivered {
            subflow_bytes: 7,
            data_bytes: 12,
        };
        r.on_transport(SimTime(1_950), sf(1, 0), released);
        // Outside the bins: not counted.
        r.on_transport(SimTime(2_000), sf(1, 0), TransportEvent::Sent { payload_bytes: 99 });
        r.on_udp(SimTime(1_000), 0, UdpEvent::Sent { bytes: 3 });
        r.on_udp(SimTime(1_300), 0, UdpEvent::Received { bytes: 3 });

        assert_eq!(r.connections[0].sent, [10, 0, 0, 0]);
        assert!(r.subflows[0].is_empty());
        assert_eq!(r.connections[1].sent, [7, 5, 0, 0]);
        assert_eq!(r.connections[1].delivered, [0, 0, 0, 12]);
        assert_eq!(r.subflows[1][0].delivered, [0, 0, 0, 7]);
        assert_eq!(r.subflows[1][1].sent, [0, 5, 0, 0]);
        assert_eq!(r.subflows[1][1].delivered, [0, 5, 0, 0]);
        assert_eq!(r.udp[0].sent, [3, 0, 0, 0]);
        assert_eq!(r.udp[0].delivered, [0, 3, 0, 0]);
    }
}
