//! Packet captures of a run in the pcap format, so that the tools people use
//! on real traces (Wireshark, tshark, MPTCP analysers) can read a run.
//!
//! A [`PcapRecorder`] watches the run through the tracing hook and writes,
//! for each captured host, every packet the host sends (when its first link
//! accepts or refuses it) and every packet delivered to it; for each
//! captured link, every packet as its transmission starts. Timestamps are
//! the simulated time, in nanoseconds (pcap's nanosecond format).
//!
//! Each packet is written as the IPv4 datagram it stands for
//! (`LINKTYPE_RAW`): an IPv4 header, then the TCP header with its options
//! (MSS, SACK permitted, window scale and timestamps on SYNs; timestamps and
//! SACK blocks after; the MPTCP options of RFC 8684) or a UDP header, then a
//! payload of zero bytes of the segment's length. Addresses are
//! `10.x.y.z`, the n-th address of the scenario being 10.0.0.0 + n + 1. A
//! subflow's opening end uses its own port (20000 + … for TCP flows, 30000 +
//! … for MPTCP subflows) and the listening end port 5001: the receiver in an
//! upload (the sender opens, the default), the sender in a download
//! (`initiator = "receiver"`); UDP flows use ports 9. The handshake's options
//! follow who opened it: the opening SYN, the SYN-ACK and the third ACK
//! (RFC 8684 §3.1, §3.2) whichever end sends data.
//! Sequence numbers are mpsim's, whose initial sequence number is 0, modulo
//! 2^32. MPTCP keys and tokens are derived from the connection's index, so
//! they are stable but not cryptographic; DSS options carry 8-byte data
//! sequence numbers and DATA_ACKs and no checksum. When SACK blocks and an
//! MPTCP option do not all fit the 40 bytes of TCP options, the last SACK
//! blocks are left out, as a real stack would.

#[cfg(test)]
use crate::ids::EndpointId;
use crate::ids::{LinkId, NodeId};
use crate::observe::{DropReason, Observer, PacketEvent};
use crate::sim::{Endpoint, Simulator};
use crate::time::SimTime;
use crate::transport::mptcp::Initiator;
use crate::transport::Side;
use crate::wire::{Packet, Payload, TcpFlags, TcpHeader};

/// pcap's magic number for nanosecond timestamps.
const PCAP_MAGIC_NS: u32 = 0xa1b2_3c4d;
/// The link type of raw IPv4 datagrams.
const LINKTYPE_RAW: u32 = 101;
/// Largest packet the files declare they may hold.
const SNAPLEN: u32 = 262_144;
/// The listening end's port of every subflow.
pub const LISTEN_PORT: u16 = 5001;
/// Both ports of UDP flows (the discard service).
const UDP_PORT: u16 = 9;
/// Window scale shift both ends announce (RFC 7323 §2.2).
const WINDOW_SHIFT: u8 = 10;
/// Most TCP option bytes a header holds.
const MAX_OPTION_BYTES: usize = 40;

const IPPROTO_TCP: u8 = 6;
const IPPROTO_UDP: u8 = 17;

/// TCP option kinds (IANA).
const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2;
const OPT_WINDOW_SCALE: u8 = 3;
const OPT_SACK_PERMITTED: u8 = 4;
const OPT_SACK: u8 = 5;
const OPT_TIMESTAMPS: u8 = 8;
const OPT_MPTCP: u8 = 30;

/// MPTCP option subtypes (RFC 8684 §3).
const MP_CAPABLE: u8 = 0;
const MP_JOIN: u8 = 1;
const DSS: u8 = 2;
/// MP_CAPABLE version 1, flag H (HMAC-SHA256), no checksums (RFC 8684 §3.1).
const MP_CAPABLE_VERSION: u8 = 1;
const MP_CAPABLE_FLAGS: u8 = 0x01;
/// DSS flags (RFC 8684 §3.3): DATA_FIN, 8-byte DSN, DSN present, 8-byte DATA_ACK, DATA_ACK present.
const DSS_DATA_FIN: u8 = 0x10;
const DSS_DSN8: u8 = 0x08;
const DSS_DSN: u8 = 0x04;
const DSS_ACK8: u8 = 0x02;
const DSS_ACK: u8 = 0x01;

/// What a capture holds: packets sent by and delivered to a host, or packets
/// transmitted on a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaptureOf {
    Host(String),
    Link(String),
}

/// One pcap file's contents.
#[derive(Clone, Debug)]
pub struct Capture {
    pub of: CaptureOf,
    /// The whole file: the global header and every record.
    pub bytes: Vec<u8>,
    pub packets: u64,
}

impl Capture {
    fn new(of: CaptureOf) -> Self {
        let mut bytes = Vec::with_capacity(1 << 16);
        for v in [PCAP_MAGIC_NS, 2 | (4 << 16), 0, 0, SNAPLEN, LINKTYPE_RAW] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        // The version is two u16 (major 2, minor 4), written above as one u32.
        Capture { of, bytes, packets: 0 }
    }

    /// The file's name: `host-NAME.pcap` or `link-NAME.pcap`.
    pub fn file_name(&self) -> String {
        match &self.of {
            CaptureOf::Host(n) => format!("host-{}.pcap", safe(n)),
            CaptureOf::Link(n) => format!("link-{}.pcap", safe(n)),
        }
    }

    fn record(&mut self, now: SimTime, datagram: &[u8]) {
        let ns = now.nanos();
        let len = datagram.len() as u32;
        for v in [(ns / 1_000_000_000) as u32, (ns % 1_000_000_000) as u32, len, len] {
            self.bytes.extend_from_slice(&v.to_le_bytes());
        }
        self.bytes.extend_from_slice(datagram);
        self.packets += 1;
    }
}

/// A name as a file name: anything but letters, digits, `-`, `_` and `.` becomes `_`.
fn safe(name: &str) -> String {
    let keep = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
    name.chars().map(|c| if keep(c) { c } else { '_' }).collect()
}

/// What the capture needs to know of a subflow to write its headers.
#[derive(Clone, Copy, Debug)]
struct SubflowInfo {
    connection: u32,
    subflow: u16,
    sport: u16,
    mptcp: bool,
    sack: bool,
    timestamps: bool,
    mss: u16,
    /// The receiver opened the subflow (`initiator = "receiver"`).
    receiver_opened: bool,
    /// The stack models PSH (`push_flag`): the capture shows it where it
    /// was set; else every data segment carries it, as a stack that sets it
    /// on the last segment of each write would mostly show.
    push_modelled: bool,
}

/// Who a packet is addressed to, as the headers need it.
#[derive(Clone, Copy, Debug)]
enum Receiver {
    Udp,
    /// A subflow's sender (the packet is an ACK or a SYN-ACK) or its receiver.
    Tcp {
        info: SubflowInfo,
        to_sender: bool,
    },
}

/// Writes pcap captures of chosen hosts and links (see the module's documentation).
pub struct PcapRecorder {
    /// Per link: its capture, if captured.
    link_capture: Vec<Option<usize>>,
    /// Per link: the capture of its source host and of its destination host.
    host_ends: Vec<(Option<usize>, Option<usize>)>,
    /// Per endpoint: who receives there.
    receivers: Vec<Receiver>,
    captures: Vec<Capture>,
    /// IPv4 identification, counted over the run.
    ip_id: u16,
    /// The datagram being written (reused).
    buf: Vec<u8>,
}

impl PcapRecorder {
    /// A recorder of what the scenario traces: the hosts at either end of
    /// every traced subflow (`trace = true` or `[trace] segments`) and every
    /// link whose queue is traced; when nothing is traced, every host at an
    /// end of a TCP subflow.
    pub fn of_traced(sim: &Simulator) -> Self {
        let net = &sim.net;
        let subflows = || sim.connections.iter().flat_map(|c| &c.subflows);
        let mut traced: Vec<_> = subflows().filter(|sf| sf.traced || sf.segments_traced).collect();
        let mut links: Vec<LinkId> = (0..net.links.len() as u32)
            .map(LinkId)
            .filter(|l| net.links[l.idx()].traced_on_change)
            .collect();
        links.extend(sim.sampled.iter().flat_map(|s| s.traces.iter().map(|(l, _)| *l)));
        if traced.is_empty() && links.is_empty() {
            traced = subflows().collect();
        }
        let mut hosts = vec![false; net.nodes.len()];
        for sf in traced {
            for a in [sf.src, sf.dst] {
                hosts[net.addrs[a.idx()].node.idx()] = true;
            }
        }
        let hosts: Vec<NodeId> = (0..hosts.len() as u32).map(NodeId).filter(|n| hosts[n.idx()]).collect();
        Self::new(sim, &hosts, &links)
    }

    /// A recorder of hosts `hosts` and links `links`.
    pub fn new(sim: &Simulator, hosts: &[NodeId], links: &[LinkId]) -> Self {
        let net = &sim.net;
        let mut captures = Vec::new();
        let mut host_capture = vec![None; net.nodes.len()];
        for &h in hosts {
            host_capture[h.idx()] = Some(captures.len());
            captures.push(Capture::new(CaptureOf::Host(net.nodes[h.idx()].name.clone())));
        }
        let mut link_capture = vec![None; net.links.len()];
        for &l in links {
            link_capture[l.idx()] = Some(captures.len());
            captures.push(Capture::new(CaptureOf::Link(net.links[l.idx()].name.clone())));
        }
        let host_ends = net
            .links
            .iter()
            .map(|l| (host_capture[l.from.idx()], host_capture[l.to.idx()]))
            .collect();
        let receivers = sim
            .endpoints
            .iter()
            .map(|e| match *e {
                Endpoint::UdpSink(_) => Receiver::Udp,
                Endpoint::Tcp {
                    connection: c,
                    subflow: r,
                    side,
                } => {
                    let conn = &sim.connections[c as usize];
                    let info = SubflowInfo {
                        connection: c,
                        subflow: r,
                        sport: conn.subflows[r as usize].sport,
                        mptcp: conn.is_mptcp(),
                        sack: conn.params.sack,
                        timestamps: conn.params.timestamps,
                        mss: conn.params.mss.min(u16::MAX as u32) as u16,
                        receiver_opened: conn.initiator == Initiator::Receiver,
                        push_modelled: conn.params.push_flag,
                    };
                    let to_sender = side == Side::Sender;
                    Receiver::Tcp { info, to_sender }
                }
            })
            .collect();
        PcapRecorder {
            link_capture,
            host_ends,
            receivers,
            captures,
            ip_id: 0,
            buf: Vec::with_capacity(1600),
        }
    }

    /// The captures, in the order hosts then links were named.
    pub fn captures(&self) -> &[Capture] {
        &self.captures
    }

    fn write(&mut self, now: SimTime, capture: usize, packet: &Packet) {
        self.ip_id = self.ip_id.wrapping_add(1);
        let receiver = self.receivers.get(packet.endpoint.idx()).copied();
        datagram(&mut self.buf, packet, receiver, self.ip_id);
        self.captures[capture].record(now, &self.buf);
    }
}

impl Observer for PcapRecorder {
    fn on_packet(&mut self, now: SimTime, link: LinkId, packet: &Packet, event: PacketEvent) {
        let l = link.idx();
        if event == PacketEvent::Dequeue {
            if let Some(c) = self.link_capture[l] {
                self.write(now, c, packet);
            }
        }
        let (from_host, to_host) = self.host_ends[l];
        // A host's packet leaves it when its first link takes it or refuses
        // it on arrival; a loss on the wire comes after it has left.
        let leaves = matches!(
            event,
            PacketEvent::Enqueue
                | PacketEvent::Drop(DropReason::TailDrop | DropReason::RedEarly | DropReason::RedForced)
        );
        if let (Some(c), true) = (from_host, leaves) {
            self.write(now, c, packet);
        }
        if let (Some(c), PacketEvent::Deliver) = (to_host, event) {
            self.write(now, c, packet);
        }
    }
}

/// The n-th address of the run as an IPv4 address: 10.0.0.0 + n + 1.
fn ipv4(addr: u32) -> [u8; 4] {
    let n = addr + 1;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// RFC 1071: the Internet checksum of `bytes`.
fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32)
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Writes into `buf` the IPv4 datagram that `packet` stands for.
fn datagram(buf: &mut Vec<u8>, packet: &Packet, receiver: Option<Receiver>, ip_id: u16) {
    buf.clear();
    buf.resize(20, 0);
    let (protocol, payload_bytes) = match (&packet.payload, receiver) {
        (Payload::Tcp(h), Some(Receiver::Tcp { info, to_sender })) => {
            tcp_header(buf, h, &info, to_sender);
            (IPPROTO_TCP, h.payload_bytes as usize)
        }
        (Payload::Tcp(h), _) => {
            // A segment of no known subflow: plain TCP between unknown ports.
            let info = SubflowInfo {
                connection: 0,
                subflow: 0,
                sport: 0,
                mptcp: false,
                sack: false,
                timestamps: false,
                mss: 0,
                receiver_opened: false,
                push_modelled: false,
            };
            tcp_header(buf, h, &info, false);
            (IPPROTO_TCP, h.payload_bytes as usize)
        }
        (Payload::Udp { .. }, _) => {
            // The UDP datagram is the packet's size less the IPv4 header.
            let len = (packet.size_bytes as usize).max(28) - 20;
            buf.extend_from_slice(&UDP_PORT.to_be_bytes());
            buf.extend_from_slice(&UDP_PORT.to_be_bytes());
            buf.extend_from_slice(&(len as u16).to_be_bytes());
            buf.extend_from_slice(&[0, 0]); // no checksum (RFC 768)
            (IPPROTO_UDP, len - 8)
        }
    };
    buf.resize(buf.len() + payload_bytes, 0);
    let total = buf.len().min(u16::MAX as usize) as u16;
    let ip = &mut buf[..20];
    ip[0] = 0x45; // IPv4, 5 words of header
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[4..6].copy_from_slice(&ip_id.to_be_bytes());
    ip[6] = 0x40; // don't fragment
    ip[8] = 64; // TTL
    ip[9] = protocol;
    ip[12..16].copy_from_slice(&ipv4(packet.src.0));
    ip[16..20].copy_from_slice(&ipv4(packet.dst.0));
    let sum = checksum(ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
}

/// Appends the TCP header of `h` (with its options) to `buf`.
fn tcp_header(buf: &mut Vec<u8>, h: &TcpHeader, sf: &SubflowInfo, to_sender: bool) {
    // The opening end's port is the subflow's own; the listening end's 5001.
    let (sender_port, receiver_port) = if sf.receiver_opened {
        (LISTEN_PORT, sf.sport)
    } else {
        (sf.sport, LISTEN_PORT)
    };
    let (sport, dport) = if to_sender {
        (receiver_port, sender_port)
    } else {
        (sender_port, receiver_port)
    };
    let syn = h.flags.has(TcpFlags::SYN);
    let mut opts = [0u8; MAX_OPTION_BYTES];
    let n = options(&mut opts, h, sf, to_sender);
    let start = buf.len();
    buf.extend_from_slice(&sport.to_be_bytes());
    buf.extend_from_slice(&dport.to_be_bytes());
    buf.extend_from_slice(&(h.seq as u32).to_be_bytes());
    let has_ack = h.flags.has(TcpFlags::ACK);
    buf.extend_from_slice(&(if has_ack { h.ack as u32 } else { 0 }).to_be_bytes());
    let words = (20 + n) / 4;
    buf.push((words as u8) << 4);
    let mut flags = 0u8;
    if h.flags.has(TcpFlags::FIN) {
        flags |= 0x01;
    }
    if syn {
        flags |= 0x02;
    }
    if has_ack {
        flags |= 0x10;
    }
    let psh = if sf.push_modelled {
        h.flags.has(TcpFlags::PSH)
    } else {
        h.payload_bytes > 0
    };
    if psh {
        flags |= 0x08;
    }
    buf.push(flags);
    // The data sender's own receive window is never the limit; the
    // receiver's is its advertised one. Windows on SYNs are not scaled.
    let rwnd = if to_sender { h.rwnd } else { u64::MAX };
    let window = if syn { rwnd } else { rwnd >> WINDOW_SHIFT };
    buf.extend_from_slice(&(window.min(u16::MAX as u64) as u16).to_be_bytes());
    buf.extend_from_slice(&[0, 0, 0, 0]); // checksum (not computed), urgent pointer
    buf.extend_from_slice(&opts[..n]);
    debug_assert_eq!(buf.len() - start, words * 4);
}

/// Writes the TCP options of `h` into `out` (padded to a multiple of 4
/// bytes); returns their length.
fn options(out: &mut [u8; MAX_OPTION_BYTES], h: &TcpHeader, sf: &SubflowInfo, to_sender: bool) -> usize {
    let mut o = Options { out, len: 0 };
    let syn = h.flags.has(TcpFlags::SYN);
    let mut mptcp = [0u8; 28];
    let mp = if sf.mptcp {
        mptcp_option(&mut mptcp, h, sf, to_sender)
    } else {
        0
    };
    if syn {
        o.put(&[OPT_MSS, 4]);
        o.put(&sf.mss.to_be_bytes());
        if sf.sack {
            o.put(&[OPT_SACK_PERMITTED, 2]);
        } else {
            o.put(&[OPT_NOP, OPT_NOP]);
        }
        if sf.timestamps {
            timestamps(&mut o, h);
        }
        o.put(&[OPT_NOP, OPT_WINDOW_SCALE, 3, WINDOW_SHIFT]);
    } else if sf.timestamps {
        o.put(&[OPT_NOP, OPT_NOP]);
        timestamps(&mut o, h);
    }
    let mp_padded = mp.div_ceil(4) * 4;
    let room = MAX_OPTION_BYTES - o.len - mp_padded;
    let blocks = h.sacks().len().min(room.saturating_sub(4) / 8);
    if blocks > 0 {
        o.put(&[OPT_NOP, OPT_NOP, OPT_SACK, 2 + 8 * blocks as u8]);
        for b in &h.sacks()[..blocks] {
            o.put(&(b.start as u32).to_be_bytes());
            o.put(&(b.end as u32).to_be_bytes());
        }
    }
    o.put(&mptcp[..mp]);
    while o.len % 4 != 0 {
        o.put(&[OPT_NOP]);
    }
    o.len
}

struct Options<'a> {
    out: &'a mut [u8; MAX_OPTION_BYTES],
    len: usize,
}

impl Options<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.out[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }
}

/// RFC 7323 §3: TSval and TSecr, in microseconds of simulated time.
fn timestamps(o: &mut Options<'_>, h: &TcpHeader) {
    o.put(&[OPT_TIMESTAMPS, 10]);
    o.put(&((h.ts_val.nanos() / 1000) as u32).to_be_bytes());
    o.put(&((h.ts_ecr.nanos() / 1000) as u32).to_be_bytes());
}

/// The connection's 64-bit keys (the data sender's, the data receiver's),
/// derived from its index (RFC 8684 §3.1 leaves them random).
fn keys(connection: u32) -> (u64, u64) {
    let base = 0x6d70_7369_6d00_0000u64 ^ ((connection as u64) << 8);
    (base | 0x01, base | 0x02)
}

/// The bytes of one MPTCP option, written in place.
struct OptionBytes<'a> {
    out: &'a mut [u8; 28],
    len: usize,
}

impl OptionBytes<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.out[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }
}

/// Writes the MPTCP option of `h` into `out`; returns its length.
fn mptcp_option(out: &mut [u8; 28], h: &TcpHeader, sf: &SubflowInfo, to_sender: bool) -> usize {
    let syn = h.flags.has(TcpFlags::SYN);
    let syn_ack = syn && h.flags.has(TcpFlags::ACK);
    // The opening end sends the SYN and the third ACK: the sender in an
    // upload, the receiver in a download.
    let from_opener = to_sender == sf.receiver_opened;
    // The third ACK acknowledges the SYN-ACK alone and carries no data.
    let handshake_ack =
        !syn && from_opener && h.seq_len() == 0 && h.seq == 1 && h.ack == 1 && !h.flags.has(TcpFlags::DATA_FIN);
    // Keys by role: the opening end's and the listening end's.
    let (sender_key, receiver_key) = keys(sf.connection);
    let (opener_key, listener_key) = if sf.receiver_opened {
        (receiver_key, sender_key)
    } else {
        (sender_key, receiver_key)
    };
    let mut o = OptionBytes { out, len: 0 };
    if sf.subflow == 0 && (syn || handshake_ack) {
        // RFC 8684 §3.1: SYN no key; SYN-ACK the listener's; the third ACK both.
        o.put(&[OPT_MPTCP, 0, (MP_CAPABLE << 4) | MP_CAPABLE_VERSION, MP_CAPABLE_FLAGS]);
        if syn_ack {
            o.put(&listener_key.to_be_bytes());
        } else if handshake_ack {
            o.put(&opener_key.to_be_bytes());
            o.put(&listener_key.to_be_bytes());
        }
    } else if syn || handshake_ack {
        // RFC 8684 §3.2: the joining SYN names the listener's token and a
        // nonce (12 bytes); the SYN-ACK carries a truncated HMAC and a nonce
        // (16), the third ACK the whole HMAC (24), here stand-ins.
        let address_id = sf.subflow as u8;
        let nonce = 0x6e6f_6e00u32 | sf.subflow as u32;
        if !syn_ack && syn {
            let token = (listener_key >> 32) as u32;
            o.put(&[OPT_MPTCP, 0, MP_JOIN << 4, address_id]);
            o.put(&token.to_be_bytes());
            o.put(&nonce.to_be_bytes());
        } else if syn_ack {
            o.put(&[OPT_MPTCP, 0, MP_JOIN << 4, 0]);
            o.put(&listener_key.to_be_bytes());
            o.put(&nonce.to_be_bytes());
        } else {
            o.put(&[OPT_MPTCP, 0, MP_JOIN << 4, 0]);
            for _ in 0..2 {
                o.put(&opener_key.to_be_bytes());
            }
            o.put(&nonce.to_be_bytes());
        }
    } else if to_sender {
        // RFC 8684 §3.3.2: the DATA_ACK.
        o.put(&[OPT_MPTCP, 0, DSS << 4, DSS_ACK | DSS_ACK8]);
        o.put(&h.data_ack.to_be_bytes());
    } else if h.payload_bytes == 0 && !h.flags.has(TcpFlags::DATA_FIN) {
        // A sender's segment without data or DATA_FIN (such as its ACK of
        // the receiver's FIN): its DATA_ACK of the receiver's data
        // sequence space, where nothing is sent, rather than a mapping of
        // length 0, which RFC 8684 §3.3.1 reads as an infinite mapping.
        o.put(&[OPT_MPTCP, 0, DSS << 4, DSS_ACK | DSS_ACK8]);
        o.put(&1u64.to_be_bytes());
    } else {
        // RFC 8684 §3.3.1: the mapping of this segment's payload; a DATA_FIN
        // takes one byte of data sequence space, and a mapping of a
        // DATA_FIN alone has subflow sequence number 0.
        let data_fin = h.flags.has(TcpFlags::DATA_FIN);
        let flags = DSS_DSN | DSS_DSN8 | if data_fin { DSS_DATA_FIN } else { 0 };
        let relative_seq = if h.payload_bytes > 0 { h.seq as u32 } else { 0 };
        let length = h.payload_bytes + data_fin as u32;
        o.put(&[OPT_MPTCP, 0, DSS << 4, flags]);
        o.put(&h.dsn.to_be_bytes());
        o.put(&relative_seq.to_be_bytes());
        o.put(&(length.min(u16::MAX as u32) as u16).to_be_bytes());
    }
    o.out[1] = o.len as u8;
    o.len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::SackBlock;

    fn info(mptcp: bool) -> SubflowInfo {
        SubflowInfo {
            connection: 0,
            subflow: 1,
            sport: 30_001,
            mptcp,
            sack: true,
            timestamps: true,
            mss: 1400,
            receiver_opened: false,
            push_modelled: false,
        }
    }

    fn ack_with_three_sack_blocks() -> TcpHeader {
        let block = |k: u64| SackBlock {
            start: 1 + 2800 * k,
            end: 1401 + 2800 * k,
        };
        TcpHeader {
            flags: TcpFlags(TcpFlags::ACK),
            seq: 1,
            ack: 1,
            sack: [block(1), block(2), block(3)],
            n_sack: 3,
            ..TcpHeader::default()
        }
    }

    #[test]
    fn options_fit_forty_bytes_by_leaving_out_the_last_sack_blocks() {
        let h = ack_with_three_sack_blocks();
        let mut out = [0u8; MAX_OPTION_BYTES];
        // Plain TCP: timestamps (12) and three blocks (28) fill the 40 bytes.
        assert_eq!(options(&mut out, &h, &info(false), true), 40);
        assert_eq!(out[15], 2 + 3 * 8);
        // MPTCP: timestamps (12), the DATA_ACK (12), one block (12).
        let n = options(&mut out, &h, &info(true), true);
        assert_eq!((n, out[15], out[24], out[25]), (36, 2 + 8, OPT_MPTCP, 12));
    }

    #[test]
    fn the_ipv4_header_checksum_verifies() {
        let mut buf = Vec::new();
        let packet = Packet {
            size_bytes: 1452,
            src: crate::ids::AddrId(0),
            dst: crate::ids::AddrId(300),
            flow_hash: 0,
            endpoint: EndpointId(0),
            sent_at: SimTime::ZERO,
            payload: Payload::Tcp(TcpHeader {
                payload_bytes: 1400,
                ..ack_with_three_sack_blocks()
            }),
        };
        let receiver = Receiver::Tcp {
            info: info(false),
            to_sender: false,
        };
        datagram(&mut buf, &packet, Some(receiver), 7);
        // RFC 1071: the sum over a header that carries its checksum is zero.
        assert_eq!(checksum(&buf[..20]), 0);
        assert_eq!(&buf[12..20], &[10, 0, 0, 1, 10, 0, 1, 45]);
        assert_eq!(u16::from_be_bytes([buf[2], buf[3]]) as usize, buf.len());
    }
}
