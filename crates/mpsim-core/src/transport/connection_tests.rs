//! A transport without a simulator: one TCP connection whose packets a test
//! carries between its two ends, 10 ms each way, through a [`Forward`] that
//! only collects them.

use super::*;
use crate::cc::Reno;
use crate::ids::PacketId;
use crate::ids::{AddrId, EndpointId};
use crate::observe::Observer;
use crate::observe::SubflowPhase;
use crate::slowstart::Standard;
use crate::transport::tcp::receiver::TcpReceiver;
use crate::transport::tcp::sender::TcpSender;
use crate::transport::tcp::{Profile, TcpParams};
use crate::wire::{Payload, TcpFlags};

const MS: u64 = 1_000_000;

/// The network of this test: it keeps what the transport sends.
#[derive(Default)]
struct Collect(Vec<PacketId>);

impl Forward for Collect {
    fn send(&mut self, _ctx: &mut SimContext, pkt: PacketId) {
        self.0.push(pkt);
    }

    fn route(&mut self, _: AddrId, _: AddrId, _: u64) -> u32 {
        0
    }

    fn send_routed(&mut self, _ctx: &mut SimContext, pkt: PacketId, _: u32) {
        self.0.push(pkt);
    }
}

/// The transport events the hook reported: (time ns, event).
#[derive(Default)]
struct Events(Vec<(u64, TransportEvent)>);

impl Observer for Events {
    fn on_transport(&mut self, now: SimTime, _: SubflowRef, event: TransportEvent) {
        self.0.push((now.nanos(), event));
    }
}

/// A single-path TCP flow of `size` bytes, segments of 1000 bytes, an
/// initial window of two segments, every segment ACKed at once.
fn flow(size: u64) -> Connection {
    let mut p: TcpParams = Profile::Rfc.params();
    p.mss = 1000;
    p.initial_cwnd_segments = 2;
    p.receiver.mss = 1000;
    p.receiver.delayed_ack = false;
    let subflow = Subflow {
        src: AddrId(0),
        dst: AddrId(1),
        sender_ep: EndpointId(0),
        receiver_ep: EndpointId(1),
        sport: 20_000,
        fwd_hash: 0,
        rev_hash: 0,
        fwd_route: Default::default(),
        rev_route: Default::default(),
        sender: TcpSender::new(&p),
        receiver: TcpReceiver::new(p.receiver),
        ts_to_echo: None,
        acks_sent: 0,
        bytes_received: 0,
        traced: false,
        segments_traced: false,
        reported: Reported::default(),
        added_at: None,
        removed_at: None,
        queued: Default::default(),
        queued_bytes: 0,
        short_sent_end: 0,
        tail_skb: Default::default(),
        acked_at: SimTime::ZERO,
        stale: false,
        stale_count: 0,
        stale_acked_at: SimTime::ZERO,
        avg_pacing_rate: 0,
        held_ofo: Vec::new(),
        opening: None,
        join_pending: false,
        coding: None,
    };
    Connection::new(
        "f".into(),
        0,
        p.clone(),
        false,
        vec![subflow],
        Cc::Reno(Reno::new(p.reno)),
        Ss::Standard(Standard::new(p.slow_start)),
        Scheduler::Minrtt,
        SimTime::ZERO,
        SimDuration::ZERO,
        Some(size),
        Some(1 << 20),
    )
}

/// Carries every packet to the other end 10 ms after it was sent, until
/// none is left. Returns what crossed: (arrival ns, to the sender?, flags,
/// seq, ack, payload bytes).
fn exchange(conn: &mut Connection, ctx: &mut SimContext) -> Vec<(u64, bool, u8, u64, u64, u32)> {
    let mut net = Collect::default();
    conn.start(&mut Io { ctx, net: &mut net }, 0);
    let mut log = vec![];
    let mut i = 0;
    while i < net.0.len() {
        let pkt = net.0[i];
        i += 1;
        let p = ctx.packets.get(pkt).clone();
        ctx.packets.free(pkt);
        let Payload::Tcp(hdr) = p.payload else {
            panic!("a TCP flow sends TCP")
        };
        ctx.now = p.sent_at + SimDuration(10 * MS);
        let to_sender = p.endpoint == conn.subflows[0].sender_ep;
        log.push((
            ctx.now.nanos(),
            to_sender,
            hdr.flags.0,
            hdr.seq,
            hdr.ack,
            hdr.payload_bytes,
        ));
        let side = if to_sender { Side::Sender } else { Side::Receiver };
        conn.on_packet(&mut Io { ctx, net: &mut net }, 0, side, &hdr);
    }
    log
}

#[test]
fn a_flow_of_three_segments_handshakes_grows_its_window_and_completes() {
    let mut conn = flow(3000);
    let mut ctx = SimContext {
        observer: Some(Box::new(Events::default())),
        ..SimContext::default()
    };
    let log = exchange(&mut conn, &mut ctx);
    let (syn, ack, fin) = (TcpFlags::SYN, TcpFlags::ACK, TcpFlags::FIN);
    assert_eq!(
        log,
        vec![
            // The SYN (sequence number 0) and the SYN-ACK.
            (10 * MS, false, syn, 0, 0, 0),
            (20 * MS, true, syn | ack, 0, 1, 0),
            // The handshake's ACK, then the initial window: two segments.
            (30 * MS, false, ack, 1, 1, 0),
            (30 * MS, false, ack, 1, 1, 1000),
            (30 * MS, false, ack, 1001, 1, 1000),
            // One ACK per segment; the first opens room for the last
            // segment, which carries the FIN (sequence number 3001).
            (40 * MS, true, ack, 1, 1001, 0),
            (40 * MS, true, ack, 1, 2001, 0),
            (50 * MS, false, ack | fin, 2001, 1, 1000),
            (60 * MS, true, ack, 1, 3002, 0),
        ]
    );
    assert_eq!(conn.stats.completed_at, Some(SimTime(60 * MS)));
    assert_eq!(ctx.packets.live(), 0);
    // The retransmission timer was armed with the first SYN.
    assert!(ctx.events.peek_time().is_some());

    let events = &crate::observe::find::<Events>(ctx.observer.as_deref().unwrap())
        .unwrap()
        .0;
    let phases: Vec<_> = events
        .iter()
        .filter_map(|&(t, e)| match e {
            TransportEvent::Phase(p) => Some((t, p)),
            _ => None,
        })
        .collect();
    assert_eq!(
        phases,
        vec![
            (0, SubflowPhase::SynSent),
            (20 * MS, SubflowPhase::Established),
            (60 * MS, SubflowPhase::Done),
        ]
    );
    // The handshake's sample: SRTT = the 20 ms round trip (RFC 6298 §2.2).
    assert!(events.contains(&(
        20 * MS,
        TransportEvent::Rtt {
            srtt: SimDuration(20 * MS)
        }
    )));
    // Slow start: each ACK of 1000 new bytes adds 1000 bytes (RFC 5681
    // §3.1) while the window is full; the last ACK, with one segment out in
    // a window of four, adds nothing (RFC 7661: not cwnd-limited).
    let windows: Vec<_> = events
        .iter()
        .filter_map(|&(t, e)| match e {
            TransportEvent::Window { cwnd_bytes, .. } => Some((t, cwnd_bytes)),
            _ => None,
        })
        .collect();
    assert_eq!(windows, vec![(0, 2000), (40 * MS, 3000), (40 * MS, 4000)]);
}
