//! Online network coding under a subflow's TCP (TCP/NC: Sundararajan et al.,
//! the Couple+ paper's ref. [10]; Couple+ paper §II-B, §III-A, §IV-A).
//!
//! The TCP sender and receiver are unchanged. A shim at the sender turns each
//! segment TCP hands down into `R` coded packets on average, each a random
//! linear combination of at most `W` consecutive segments (the coding window)
//! ending at the newest one; a shim at the receiver acknowledges every
//! packet that brings a new degree of freedom with the first segment not yet
//! **seen** (Sundararajan's definition), so a lost packet is not a duplicate
//! ACK when a later one is innovative, and hands the segments to TCP in order
//! as they are **decoded**.
//!
//! Coding is simulated by rank bookkeeping, not by arithmetic: coefficients
//! are drawn from a field large enough that a combination is non-innovative
//! only when its support leaves no choice (probability taken as zero). A coded
//! packet covering segments `a..=b` is then an equation on that interval, and
//! the rank of a set of such equations is the size of a maximum matching of
//! equations to segments inside their intervals (generic coefficients), which
//! earliest-deadline-first finds exactly ([`matching`]).
//!
//! The NC header (§IV-A, Fig. 3) rides in fields of the TCP header that a coded
//! subflow does not otherwise use (its segments carry no SACK blocks): on a
//! coded packet, `ack` is the packet's relative sequence number and `sack[0]`
//! the coding interval in segment indices; on an ACK, `sack[0]` holds the
//! number of coded packets received and the maximum relative sequence number
//! (+1), `sack[1]` the receiver's decoded boundary and the loss flag. `n_sack`
//! stays 0. Their bytes are counted on the wire (`header_bytes`,
//! `ack_header_bytes`). Segment headers (sequence numbers, data sequence
//! mapping, FIN) reach the receiver through the sender's table, as the
//! combined payloads would in a real coded packet.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::rc::Rc;

use crate::cc::CodingReport;
use crate::error::Problems;
use crate::wire::tcp::{SackBlock, TcpFlags, TcpHeader};

/// Coding on one subflow, as a scenario writes it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CodingConfig {
    /// Coding window W: most original segments one coded packet combines.
    pub window: u32,
    /// Redundancy R ≥ 1: coded packets sent per segment TCP hands down, on
    /// average (one redundant packet every R/(R − 1) packets).
    pub redundancy: f64,
    /// NC header bytes on each coded packet (relative sequence number, the
    /// window's base and count, one coefficient byte per segment of W).
    pub header_bytes: u32,
    /// NC header bytes on each ACK (packets received, maximum relative
    /// sequence number, loss flag).
    pub ack_header_bytes: u32,
}

impl Default for CodingConfig {
    fn default() -> Self {
        CodingConfig {
            window: 6,
            redundancy: 1.25,
            header_bytes: 16,
            ack_header_bytes: 8,
        }
    }
}

/// Largest redundancy accepted: five coded packets per segment.
pub const MAX_REDUNDANCY: f64 = 5.0;

impl CodingConfig {
    pub fn validate(&self, path: &str, problems: &mut Problems) {
        if self.window == 0 || self.window > 1024 {
            problems.out_of(format!("{path}.window"), self.window, "1 to 1024 segments");
        }
        if !(self.redundancy >= 1.0 && self.redundancy <= MAX_REDUNDANCY) {
            let allowed = format!("1 to {MAX_REDUNDANCY} coded packets per segment");
            problems.out_of(format!("{path}.redundancy"), self.redundancy, allowed);
        }
        for (field, v) in [
            ("header_bytes", self.header_bytes),
            ("ack_header_bytes", self.ack_header_bytes),
        ] {
            if v > 1024 {
                problems.out_of(format!("{path}.{field}"), v, "0 to 1024 bytes");
            }
        }
    }

    /// Redundancy in thousandths of a packet per segment (the sender's credit unit).
    fn redundancy_milli(&self) -> u64 {
        (self.redundancy * 1000.0).round() as u64
    }

    /// The redundant cycle size R/(R − 1) in packets (Couple+ §IV-C, Fig. 5:
    /// 5 for R = 1.25, 21 for R = 1.05), rounded up to whole packets; `None`
    /// without redundancy.
    pub fn cycle_packets(&self) -> Option<u64> {
        let milli = self.redundancy_milli();
        (milli > 1000).then(|| milli.div_ceil(milli - 1000))
    }
}

/// Counts of a coded subflow, for results.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CodingStats {
    /// Coded packets sent.
    pub packets_sent: u64,
    /// Coded packets received.
    pub packets_received: u64,
    /// Received coded packets that brought a new degree of freedom.
    pub innovative: u64,
    /// ACKs sent whose ACK number did not advance (innovative packets whose
    /// new degree of freedom is not the next segment to see).
    pub duplicate_acks: u64,
    /// ACKs that carried the loss flag.
    pub loss_flags: u64,
}

/// The sender's shim: the segments TCP handed down that the receiver has not
/// yet acknowledged as seen, and the redundancy credit.
#[derive(Debug)]
pub struct NcSender {
    pub config: CodingConfig,
    /// Headers of segments `base..base + len`, in sequence order.
    segments: VecDeque<TcpHeader>,
    /// Index (from the subflow's first segment) of `segments[0]`.
    base: u64,
    /// Redundancy credit, thousandths of a packet.
    credit_milli: u64,
    /// Relative sequence number of the next coded packet.
    next_rel: u64,
    /// ACK number of the latest ACK, bytes.
    last_ack: u64,
    /// Coded packets lost, as of the latest ACK.
    lost_total: u64,
    pub stats: CodingStats,
}

/// One coded packet's NC header.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NcHeader {
    /// Relative sequence number: coded packets sent before this one.
    pub rel: u64,
    /// First and last segment index combined.
    pub first: u64,
    pub last: u64,
}

impl NcHeader {
    fn write(&self, hdr: &mut TcpHeader) {
        hdr.ack = self.rel;
        hdr.sack[0] = SackBlock {
            start: self.first,
            end: self.last,
        };
        hdr.n_sack = 0;
    }

    pub fn read(hdr: &TcpHeader) -> Self {
        NcHeader {
            rel: hdr.ack,
            first: hdr.sack[0].start,
            last: hdr.sack[0].end,
        }
    }
}

/// The receiver's report on an ACK (§IV-A, Fig. 3).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AckReport {
    /// Coded packets received.
    pub received: u64,
    /// Maximum relative sequence number received + 1.
    pub max_rel: u64,
    /// Sequence number after the last decoded segment, bytes.
    pub decoded_end: u64,
    /// Coded packets were lost since the receiver's previous ACK.
    pub loss_flag: bool,
}

impl AckReport {
    pub fn write(&self, hdr: &mut TcpHeader) {
        hdr.sack[0] = SackBlock {
            start: self.received,
            end: self.max_rel,
        };
        hdr.sack[1] = SackBlock {
            start: self.decoded_end,
            end: self.loss_flag as u64,
        };
        hdr.n_sack = 0;
    }

    pub fn read(hdr: &TcpHeader) -> Self {
        AckReport {
            received: hdr.sack[0].start,
            max_rel: hdr.sack[0].end,
            decoded_end: hdr.sack[1].start,
            loss_flag: hdr.sack[1].end != 0,
        }
    }
}

/// `hdr` without its NC header: the ACK TCP sees.
pub fn plain_ack(hdr: &TcpHeader) -> TcpHeader {
    TcpHeader {
        sack: Default::default(),
        n_sack: 0,
        ..*hdr
    }
}

/// Whether the shim codes this segment: data and FIN do, the handshake does not.
pub fn is_coded(hdr: &TcpHeader) -> bool {
    !hdr.flags.has(TcpFlags::SYN) && hdr.seq_len() > 0
}

impl NcSender {
    pub fn new(config: CodingConfig) -> Self {
        NcSender {
            config,
            segments: VecDeque::new(),
            base: 0,
            credit_milli: 0,
            next_rel: 0,
            last_ack: 0,
            lost_total: 0,
            stats: CodingStats::default(),
        }
    }

    /// Index of the segment starting at `seq`, if the table holds it.
    fn index_of(&self, seq: u64) -> Option<u64> {
        let k = self.segments.partition_point(|h| h.seq < seq);
        (self.segments.get(k)?.seq == seq).then_some(self.base + k as u64)
    }

    /// Header of segment `index`, if the receiver has not yet seen it.
    pub fn segment(&self, index: u64) -> Option<&TcpHeader> {
        self.segments.get(index.checked_sub(self.base)? as usize)
    }

    /// TCP hands down segment `seg` (new or a retransmission): the coded
    /// packets it triggers, each given to `emit` with its NC header written.
    /// A new segment k is combined with those before it, from
    /// max(oldest unseen, k − W + 1); a retransmission of segment k with the
    /// W − 1 after it that were sent. Each segment earns R packets of credit.
    pub fn encode(&mut self, seg: &TcpHeader, mut emit: impl FnMut(TcpHeader)) {
        let w = self.config.window as u64;
        let newest = self.base + self.segments.len() as u64;
        let (first, last) = match self.index_of(seg.seq) {
            Some(k) => (k, (k + w - 1).min(newest - 1)),
            None => {
                self.segments.push_back(*seg);
                (self.base.max((newest + 1).saturating_sub(w)), newest)
            }
        };
        self.credit_milli += self.config.redundancy_milli();
        let payload = (first..=last)
            .filter_map(|k| self.segment(k))
            .map(|h| h.payload_bytes)
            .max()
            .unwrap_or(0);
        while self.credit_milli >= 1000 {
            self.credit_milli -= 1000;
            let mut hdr = *seg;
            hdr.payload_bytes = payload;
            let nc = NcHeader {
                rel: self.next_rel,
                first,
                last,
            };
            nc.write(&mut hdr);
            self.next_rel += 1;
            self.stats.packets_sent += 1;
            emit(hdr);
        }
    }

    /// An ACK arrived: segments it acknowledges as seen leave the table;
    /// returns what it tells congestion control.
    pub fn on_ack(&mut self, hdr: &TcpHeader) -> CodingReport {
        let report = AckReport::read(hdr);
        while self.segments.front().is_some_and(|h| h.seq + h.seq_len() <= hdr.ack) {
            self.segments.pop_front();
            self.base += 1;
        }
        let advanced = hdr.ack > self.last_ack;
        self.last_ack = self.last_ack.max(hdr.ack);
        let lost_total = report.max_rel.saturating_sub(report.received);
        let new_losses = lost_total.saturating_sub(self.lost_total);
        self.lost_total = self.lost_total.max(lost_total);
        CodingReport {
            coded: true,
            advanced,
            loss_flag: report.loss_flag,
            new_losses,
            lost_total,
            all_decoded: report.decoded_end >= hdr.ack,
            cycle_packets: self.config.cycle_packets(),
            rwnd_bytes: hdr.rwnd,
        }
    }
}

/// What one coded packet did at the receiver.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    /// It brought a new degree of freedom (the receiver ACKs it).
    pub innovative: bool,
    /// Segments seen after it (the ACK's segment count).
    pub seen: u64,
    /// Segments decoded before it and after it: `decoded_before..decoded`
    /// are handed to TCP now.
    pub decoded_before: u64,
    pub decoded: u64,
}

/// The receiver's shim: the equations not yet decoded and the counts its
/// ACKs report.
#[derive(Debug, Default)]
pub struct NcReceiver {
    /// Segments decoded and handed to TCP.
    decoded: u64,
    /// Sequence number after the last decoded segment, bytes (1: after the SYN).
    decoded_end: u64,
    /// Headers of segments `decoded..decoded + len` known from coded packets.
    headers: VecDeque<TcpHeader>,
    /// Innovative equations not yet decoded: (first, last) segment indices,
    /// first ≥ `decoded`.
    pending: Vec<(u64, u64)>,
    /// Segments seen: every segment before it is seen.
    seen: u64,
    /// Coded packets received.
    received: u64,
    /// Maximum relative sequence number received + 1.
    max_rel: u64,
    /// `max_rel − received` when the previous ACK was sent.
    lost_at_last_ack: u64,
    /// Headers of segments decoded and not yet handed to TCP.
    decoded_out: Vec<TcpHeader>,
    /// ACK number of the previous ACK sent, bytes.
    last_ack: u64,
    /// Scratch: the pending equations' last segments, sorted.
    ends: Vec<u64>,
    /// Scratch of [`matching`].
    heap: BinaryHeap<Reverse<u64>>,
    pub stats: CodingStats,
}

/// Earliest-deadline-first over segments `from..`: returns (the first segment
/// index the equations cannot cover — every segment before it is matched —,
/// the size of a maximum matching). `eqs` must be sorted by first index;
/// `heap` is scratch space, kept by the caller so that a packet allocates nothing.
pub fn matching(eqs: &[(u64, u64)], from: u64, heap: &mut BinaryHeap<Reverse<u64>>) -> (u64, u64) {
    heap.clear();
    let (mut next, mut matched, mut j) = (0, 0u64, from);
    let mut prefix = None;
    loop {
        while next < eqs.len() && eqs[next].0 <= j {
            heap.push(Reverse(eqs[next].1));
            next += 1;
        }
        while heap.peek().is_some_and(|&Reverse(b)| b < j) {
            heap.pop();
        }
        if heap.pop().is_some() {
            matched += 1;
            j += 1;
            continue;
        }
        prefix.get_or_insert(j);
        match eqs.get(next) {
            Some(&(a, _)) => j = a.max(j + 1),
            None => return (prefix.unwrap_or(j), matched),
        }
    }
}

impl NcReceiver {
    pub fn new() -> Self {
        NcReceiver {
            decoded_end: 1,
            ..NcReceiver::default()
        }
    }

    /// Coded packet `nc` arrived; headers of segments not yet known are taken
    /// from the sender's table (`segment`).
    pub fn on_packet(&mut self, nc: NcHeader, segment: impl Fn(u64) -> Option<TcpHeader>) -> Arrival {
        self.received += 1;
        self.stats.packets_received += 1;
        self.max_rel = self.max_rel.max(nc.rel + 1);
        let decoded_before = self.decoded;
        let mut arrival = Arrival {
            innovative: false,
            seen: self.seen,
            decoded_before,
            decoded: decoded_before,
        };
        if nc.last < self.decoded {
            return arrival;
        }
        while self.decoded + (self.headers.len() as u64) <= nc.last {
            let k = self.decoded + self.headers.len() as u64;
            let Some(h) = segment(k) else { break };
            self.headers.push_back(h);
        }
        let eq = (nc.first.max(self.decoded), nc.last);
        let at = self.pending.partition_point(|e| *e <= eq);
        self.pending.insert(at, eq);
        let (seen, rank) = matching(&self.pending, self.decoded, &mut self.heap);
        // The pending equations are independent: the new one is innovative
        // only if the matching covers every one of them.
        if rank < self.pending.len() as u64 {
            self.pending.remove(at);
            return arrival;
        }
        self.stats.innovative += 1;
        arrival.innovative = true;
        self.seen = seen;
        self.decode();
        arrival.seen = self.seen;
        arrival.decoded = self.decoded;
        arrival
    }

    /// Decodes the longest prefix the equations close: the largest D such
    /// that as many equations end at or before D as there are segments from
    /// `decoded` to D (independent equations on those segments only: a
    /// square system of full rank).
    fn decode(&mut self) {
        self.ends.clear();
        self.ends.extend(self.pending.iter().map(|e| e.1));
        self.ends.sort_unstable();
        let mut best = None;
        for (i, &d) in self.ends.iter().enumerate() {
            if d + 1 - self.decoded == i as u64 + 1 {
                best = Some(d);
            }
        }
        let Some(d) = best else { return };
        self.pending.retain(|e| e.1 > d);
        for e in &mut self.pending {
            e.0 = e.0.max(d + 1);
        }
        self.pending.sort_unstable();
        for _ in self.decoded..=d {
            if let Some(h) = self.headers.pop_front() {
                self.decoded_end = h.seq + h.seq_len();
                self.decoded_out.push(h);
            }
        }
        self.decoded = d + 1;
    }

    /// Takes the headers of the segments decoded since the last call, oldest
    /// first, for TCP (the caller gives the vector back with [`Self::give_back`]).
    pub fn take_decoded(&mut self) -> Vec<TcpHeader> {
        std::mem::take(&mut self.decoded_out)
    }

    /// Returns the vector [`Self::take_decoded`] lent, emptied (keeps its capacity).
    pub fn give_back(&mut self, mut v: Vec<TcpHeader>) {
        v.clear();
        self.decoded_out = v;
    }

    /// Sequence number after the last segment seen, bytes: the ACK number.
    pub fn seen_end(&self) -> u64 {
        if self.seen > self.decoded {
            let h = &self.headers[(self.seen - self.decoded - 1) as usize];
            h.seq + h.seq_len()
        } else {
            self.decoded_end
        }
    }

    /// An ACK with ACK number `ack` is sent (counts duplicates).
    pub fn note_ack(&mut self, ack: u64) {
        if ack <= self.last_ack {
            self.stats.duplicate_acks += 1;
        }
        self.last_ack = self.last_ack.max(ack);
    }

    /// The report for the ACK about to be sent (the loss flag: packets lost
    /// since the previous ACK).
    pub fn ack_report(&mut self) -> AckReport {
        let lost = self.max_rel - self.received;
        let loss_flag = lost > self.lost_at_last_ack;
        self.lost_at_last_ack = lost;
        if loss_flag {
            self.stats.loss_flags += 1;
        }
        AckReport {
            received: self.received,
            max_rel: self.max_rel,
            decoded_end: self.decoded_end,
            loss_flag,
        }
    }
}

/// Coding on a subflow: the two shims. The receiver reads the sender's table
/// of segment headers (what the coded payloads would carry), hence the shared cell.
#[derive(Debug)]
pub struct Coding {
    pub sender: Rc<RefCell<NcSender>>,
    pub receiver: NcReceiver,
}

impl Coding {
    pub fn new(config: CodingConfig) -> Self {
        Coding {
            sender: Rc::new(RefCell::new(NcSender::new(config))),
            receiver: NcReceiver::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Segment k: bytes 1 + 1000·k .. 1 + 1000·(k + 1).
    fn segment(k: u64) -> TcpHeader {
        TcpHeader {
            flags: TcpFlags(TcpFlags::ACK),
            seq: 1 + MSS * k,
            payload_bytes: MSS as u32,
            ..TcpHeader::default()
        }
    }

    /// What the receiver did with each coded packet that arrived.
    #[derive(Debug, Default, PartialEq, Eq)]
    struct Log {
        /// (relative sequence number, ACK number, loss flag) of each ACK.
        acks: Vec<(u64, u64, bool)>,
        /// (relative sequence number, segments decoded after it) at each decoding.
        decodings: Vec<(u64, u64)>,
    }

    /// TCP hands down `segments` new segments (then `retransmit`, if any)
    /// through a sender with window `w` and redundancy `r`; packets whose
    /// relative sequence number is in `lost` never arrive.
    fn run(w: u32, r: f64, segments: u64, retransmit: Option<u64>, lost: &[u64]) -> (Vec<(u64, u64, u64)>, Log) {
        let config = CodingConfig {
            window: w,
            redundancy: r,
            ..CodingConfig::default()
        };
        let mut tx = NcSender::new(config);
        let mut rx = NcReceiver::new();
        let mut sent = Vec::new();
        let mut log = Log::default();
        let order = (0..segments).chain(retransmit);
        for k in order {
            let mut packets = Vec::new();
            tx.encode(&segment(k), |h| packets.push(h));
            for h in packets {
                let nc = NcHeader::read(&h);
                sent.push((nc.rel, nc.first, nc.last));
                if lost.contains(&nc.rel) {
                    continue;
                }
                let arrival = rx.on_packet(nc, |i| tx.segment(i).copied());
                let decoded = rx.take_decoded();
                assert_eq!(decoded.len() as u64, arrival.decoded - arrival.decoded_before);
                for (i, d) in decoded.iter().enumerate() {
                    assert_eq!(*d, segment(arrival.decoded_before + i as u64), "decoded in order");
                }
                rx.give_back(decoded);
                if arrival.decoded > arrival.decoded_before {
                    log.decodings.push((nc.rel, arrival.decoded));
                }
                if arrival.innovative {
                    let report = rx.ack_report();
                    let ack = rx.seen_end();
                    rx.note_ack(ack);
                    log.acks.push((nc.rel, ack, report.loss_flag));
                }
            }
        }
        (sent, log)
    }

    fn ack_of(segments_seen: u64) -> u64 {
        1 + MSS * segments_seen
    }

    #[test]
    fn the_redundant_cycle_is_r_over_r_minus_one() {
        let cfg = |r| CodingConfig {
            redundancy: r,
            ..CodingConfig::default()
        };
        assert_eq!(cfg(1.25).cycle_packets(), Some(5));
        assert_eq!(cfg(1.05).cycle_packets(), Some(21));
        assert_eq!(cfg(1.15).cycle_packets(), Some(8)); // 7.67 rounded up
        assert_eq!(cfg(1.0).cycle_packets(), None);
    }

    #[test]
    fn packets_combine_the_last_w_segments_and_every_fourth_segment_sends_two_at_r_1_25() {
        let (sent, _) = run(4, 1.25, 8, None, &[]);
        // Credit 1.25 per segment: 1, 1, 1, 2 packets, then again.
        let expected = vec![
            (0, 0, 0),
            (1, 0, 1),
            (2, 0, 2),
            (3, 0, 3),
            (4, 0, 3),
            (5, 1, 4),
            (6, 2, 5),
            (7, 3, 6),
            (8, 4, 7),
            (9, 4, 7),
        ];
        assert_eq!(sent, expected);
    }

    #[test]
    fn without_loss_every_packet_decodes_at_once_and_redundant_ones_are_not_acknowledged() {
        let (_, log) = run(4, 1.25, 8, None, &[]);
        let acks: Vec<_> = [0, 1, 2, 3, 5, 6, 7, 8]
            .iter()
            .enumerate()
            .map(|(k, &rel)| (rel, ack_of(k as u64 + 1), false))
            .collect();
        assert_eq!(log.acks, acks);
        let decodings: Vec<_> = [0, 1, 2, 3, 5, 6, 7, 8]
            .iter()
            .enumerate()
            .map(|(k, &rel)| (rel, k as u64 + 1))
            .collect();
        assert_eq!(log.decodings, decodings);
    }

    #[test]
    fn one_loss_in_a_cycle_is_seen_late_by_one_packet_and_decoded_by_the_redundant_packet() {
        // Packet 1 (segment 1's) is lost. Packet 2 = [0,2] is innovative: segment
        // 1 is seen (ACK 2001, loss flag), nothing more decodes; packet 3 sees
        // segment 2; the redundant packet 4 closes segments 1..3.
        let (_, log) = run(4, 1.25, 5, None, &[1]);
        assert_eq!(
            log.acks,
            vec![
                (0, ack_of(1), false),
                (2, ack_of(2), true),
                (3, ack_of(3), false),
                (4, ack_of(4), false),
                (5, ack_of(5), false),
            ]
        );
        assert_eq!(log.decodings, vec![(0, 1), (4, 4), (5, 5)]);
    }

    #[test]
    fn two_losses_in_a_cycle_keep_decoding_waiting_for_the_next_cycle() {
        // Packets 1 and 2 lost: ACKs keep advancing (no duplicate), but
        // segments 1.. wait for the redundant packet of the next cycle (9).
        let (_, log) = run(4, 1.25, 8, None, &[1, 2]);
        assert_eq!(
            log.acks,
            vec![
                (0, ack_of(1), false),
                (3, ack_of(2), true),
                (4, ack_of(3), false),
                (5, ack_of(4), false),
                (6, ack_of(5), false),
                (7, ack_of(6), false),
                (8, ack_of(7), false),
                (9, ack_of(8), false),
            ]
        );
        assert_eq!(log.decodings, vec![(0, 1), (9, 8)]);
    }

    #[test]
    fn a_burst_longer_than_the_window_gives_duplicate_acks_until_tcp_retransmits() {
        // Packets 1..5 lost (segments 1, 2, 3 twice, 4): packets 6, 7, 8 and 9
        // start above segment 1, so segment 1 is never seen: four duplicate
        // ACKs for 1001 (the loss flag on the first). TCP's fast retransmit of
        // segment 1 gives [1, 4]: EDF matches it and [2,5], [3,6], [4,7], [4,7]
        // to segments 1..5, all seen (ACK 6001); five equations on segments
        // 1..7 do not decode.
        let (sent, log) = run(4, 1.25, 8, Some(1), &[1, 2, 3, 4, 5]);
        assert_eq!(sent.last(), Some(&(10, 1, 4)));
        assert_eq!(
            log.acks,
            vec![
                (0, ack_of(1), false),
                (6, ack_of(1), true),
                (7, ack_of(1), false),
                (8, ack_of(1), false),
                (9, ack_of(1), false),
                (10, ack_of(6), false),
            ]
        );
        assert_eq!(log.decodings, vec![(0, 1)]);
    }

    #[test]
    fn an_ack_leaves_seen_segments_out_of_later_packets() {
        let mut tx = NcSender::new(CodingConfig {
            window: 4,
            redundancy: 1.0,
            ..CodingConfig::default()
        });
        let mut last = (0, 0);
        for k in 0..3 {
            tx.encode(&segment(k), |h| {
                last = (NcHeader::read(&h).first, NcHeader::read(&h).last)
            });
        }
        assert_eq!(last, (0, 2));
        let mut ack = TcpHeader {
            ack: ack_of(2),
            ..TcpHeader::default()
        };
        AckReport {
            received: 3,
            max_rel: 3,
            decoded_end: ack_of(2),
            loss_flag: false,
        }
        .write(&mut ack);
        let report = tx.on_ack(&ack);
        assert!(report.advanced && report.all_decoded && !report.loss_flag);
        tx.encode(&segment(3), |h| {
            last = (NcHeader::read(&h).first, NcHeader::read(&h).last)
        });
        assert_eq!(last, (2, 3));
        assert!(tx.segment(1).is_none());
    }

    #[test]
    fn the_sender_counts_new_losses_from_the_reports() {
        let mut tx = NcSender::new(CodingConfig::default());
        let report = |received, max_rel, ack| {
            let mut h = TcpHeader {
                ack,
                ..TcpHeader::default()
            };
            AckReport {
                received,
                max_rel,
                decoded_end: 1,
                loss_flag: received < max_rel,
            }
            .write(&mut h);
            h
        };
        // Fig. 3: the second ACK tells two packets were lost.
        assert_eq!(tx.on_ack(&report(3, 3, ack_of(3))).new_losses, 0);
        let second = tx.on_ack(&report(4, 6, ack_of(4)));
        assert_eq!((second.new_losses, second.lost_total, second.loss_flag), (2, 2, true));
        assert!(!second.all_decoded);
        assert_eq!(tx.on_ack(&report(5, 7, ack_of(5))).new_losses, 0);
    }

    /// `n` segments through a Bernoulli(`p`) channel with ACKs fed back
    /// at once; returns (segments decoded, innovative packets, received).
    fn bernoulli(w: u32, r: f64, p: f64, n: u64) -> (u64, u64, u64) {
        let mut rng = crate::rng::RngStream::derive(7, crate::rng::StreamDomain::LinkLoss, 0);
        let mut tx = NcSender::new(CodingConfig {
            window: w,
            redundancy: r,
            ..CodingConfig::default()
        });
        let mut rx = NcReceiver::new();
        for k in 0..n {
            let mut packets = Vec::new();
            tx.encode(&segment(k), |h| packets.push(h));
            for h in packets {
                if rng.bernoulli(p) {
                    continue;
                }
                let arrival = rx.on_packet(NcHeader::read(&h), |i| tx.segment(i).copied());
                let v = rx.take_decoded();
                rx.give_back(v);
                if arrival.innovative {
                    let mut ack = TcpHeader {
                        ack: rx.seen_end(),
                        ..TcpHeader::default()
                    };
                    rx.ack_report().write(&mut ack);
                    tx.on_ack(&ack);
                }
            }
        }
        (rx.decoded, rx.stats.innovative, rx.stats.packets_received)
    }

    #[test]
    fn enough_redundancy_decodes_everything_and_too_little_stalls_decoding() {
        // R(1 − p) = 1.25 · 0.9 = 1.125 > 1: all but the last window decoded.
        let (decoded, _, _) = bernoulli(6, 1.25, 0.1, 3_000);
        assert!(decoded >= 3_000 - 10, "{decoded}");
        // R(1 − p) = 1.05 · 0.8 = 0.84 < 1: the receiver gains 0.84 degrees of
        // freedom per segment; every packet is innovative (it holds its
        // newest segment, which no earlier equation reaches) and the deficit
        // grows by 0.16 per segment, so decoding stops within the first
        // cycles and never catches up.
        let (decoded, innovative, received) = bernoulli(6, 1.05, 0.2, 3_000);
        assert_eq!(innovative, received);
        let expected = 3_000.0 * 1.05 * 0.8;
        assert!((received as f64 - expected).abs() < 0.02 * expected, "{received}");
        assert!(decoded < 200, "{decoded}");
    }

    #[test]
    fn matching_is_earliest_deadline_first() {
        // Equations [1,2], [1,3], [3,3]: segments 1, 2, 3 all matched.
        assert_eq!(matching(&[(1, 2), (1, 3), (3, 3)], 1, &mut BinaryHeap::new()), (4, 3));
        // [2,3] alone from 1: segment 1 uncovered, one matched.
        assert_eq!(matching(&[(2, 3)], 1, &mut BinaryHeap::new()), (1, 1));
        // Three equations on [1,2]: only two segments.
        assert_eq!(matching(&[(1, 2), (1, 2), (1, 2)], 1, &mut BinaryHeap::new()), (3, 2));
    }
}
