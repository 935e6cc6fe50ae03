//! A single-path TCP flow: its sender and receiver endpoints, joined to the
//! network. The sender side runs as a connection with one subflow so that
//! the same congestion-control code serves TCP and MPTCP.

use super::config::TcpParams;
use super::header::{TcpFlags, TcpHeader};
use super::receiver::{RxDecision, TcpReceiver};
use super::sender::{OutSegment, SenderOutput, Stream, TcpSender};
use crate::cc::{Cc, SubflowCc};
use crate::event::Event;
use crate::ids::{AddrId, EndpointId};
use crate::packet::{Packet, Payload};
use crate::sim::Core;
use crate::slowstart::Ss;
use crate::time::SimTime;

/// Optional time series of a flow's sender, one row per ACK processed.
#[derive(Clone, Debug, Default)]
pub struct TcpTrace {
    pub time_ns: Vec<u64>,
    pub cwnd_bytes: Vec<u64>,
    pub ssthresh_bytes: Vec<u64>,
    pub srtt_ns: Vec<u64>,
    pub in_flight_bytes: Vec<u64>,
}

#[derive(Debug)]
pub struct TcpFlow {
    pub name: String,
    pub index: u32,
    pub params: TcpParams,
    pub src: AddrId,
    pub dst: AddrId,
    pub sender_ep: EndpointId,
    pub receiver_ep: EndpointId,
    /// 5-tuple hashes of the two directions.
    pub fwd_hash: u64,
    pub rev_hash: u64,
    pub start: SimTime,
    pub sender: TcpSender,
    /// The bytes the sender has to send.
    pub stream: Stream,
    pub receiver: TcpReceiver,
    /// Congestion state of the connection's subflows (one for TCP).
    pub ccs: Vec<SubflowCc>,
    pub cc: Cc,
    pub ss: Ss,
    /// TSval of the first segment received since the receiver last ACKed
    /// (RFC 7323 §4.3: with delayed ACKs, echo the earliest).
    pub(crate) ts_to_echo: Option<SimTime>,
    pub acks_sent: u64,
    pub trace: Option<TcpTrace>,
}

/// Puts the sender's segments on the network.
struct Wire<'a> {
    core: &'a mut Core,
    params: &'a TcpParams,
    flow: u32,
    src: AddrId,
    dst: AddrId,
    hash: u64,
    to: EndpointId,
}

impl SenderOutput for Wire<'_> {
    fn send(&mut self, seg: OutSegment) {
        let size = self.params.wire_size(seg.header.payload_bytes, seg.header.n_sack);
        let id = self.core.packets.alloc(Packet {
            size_bytes: size,
            src: self.src,
            dst: self.dst,
            flow_hash: self.hash,
            endpoint: self.to,
            sent_at: self.core.now,
            payload: Payload::Tcp(seg.header),
        });
        self.core.send(id);
    }

    fn arm_timer(&mut self, at: SimTime) {
        self.core.events.schedule(at, Event::TcpRto(self.flow));
    }
}

impl TcpFlow {
    fn record(&mut self, now: SimTime) {
        if let Some(t) = self.trace.as_mut() {
            let sf = &self.ccs[0];
            t.time_ns.push(now.nanos());
            t.cwnd_bytes.push(sf.cwnd);
            t.ssthresh_bytes.push(sf.ssthresh);
            t.srtt_ns.push(sf.srtt.nanos());
            t.in_flight_bytes.push(self.sender.pipe());
        }
    }

    /// The flow's start time: send the SYN.
    pub fn start(&mut self, core: &mut Core) {
        let mut wire = Wire {
            core,
            params: &self.params,
            flow: self.index,
            src: self.src,
            dst: self.dst,
            hash: self.fwd_hash,
            to: self.receiver_ep,
        };
        self.sender.start(wire.core.now, &self.params, &mut wire);
    }

    /// The sender's timer fired.
    pub fn on_sender_timer(&mut self, core: &mut Core) {
        let now = core.now;
        let mut wire = Wire {
            core,
            params: &self.params,
            flow: self.index,
            src: self.src,
            dst: self.dst,
            hash: self.fwd_hash,
            to: self.receiver_ep,
        };
        self.sender
            .on_timer(now, &self.params, &mut self.ccs, 0, &mut self.cc, &mut wire);
        self.sender
            .transmit(now, &self.params, &mut self.ccs[0], &mut self.stream, &mut wire);
        self.record(now);
    }

    /// A packet reached the sender (an ACK or the SYN-ACK).
    pub fn on_sender_packet(&mut self, core: &mut Core, hdr: &TcpHeader) {
        let now = core.now;
        let mut wire = Wire {
            core,
            params: &self.params,
            flow: self.index,
            src: self.src,
            dst: self.dst,
            hash: self.fwd_hash,
            to: self.receiver_ep,
        };
        self.sender.on_ack(
            hdr,
            now,
            &self.params,
            &mut self.ccs,
            0,
            &mut self.cc,
            &mut self.ss,
            &mut wire,
        );
        self.sender
            .transmit(now, &self.params, &mut self.ccs[0], &mut self.stream, &mut wire);
        self.record(now);
    }

    /// A packet reached the receiver (the SYN, the handshake ACK, or data).
    pub fn on_receiver_packet(&mut self, core: &mut Core, hdr: &TcpHeader) {
        let now = core.now;
        if hdr.flags.has(TcpFlags::SYN) {
            self.receiver.on_syn();
            let reply = TcpHeader {
                flags: TcpFlags(TcpFlags::SYN | TcpFlags::ACK),
                seq: 0,
                ack: 1,
                rwnd: self.params.receiver.rwnd_bytes,
                ts_val: now,
                ts_ecr: hdr.ts_val,
                ..TcpHeader::default()
            };
            self.send_to_sender(core, reply);
            return;
        }
        if hdr.seq_len() == 0 {
            return; // the handshake's ACK
        }
        if self.ts_to_echo.is_none() {
            self.ts_to_echo = Some(hdr.ts_val);
        }
        let fin = hdr.flags.has(TcpFlags::FIN);
        match self.receiver.on_segment(now, hdr.seq, hdr.payload_bytes, fin) {
            RxDecision::AckNow => self.send_ack(core),
            RxDecision::ArmDelayedAck { at, generation } => {
                core.events.schedule(at, Event::TcpDelAck(self.index, generation));
            }
            RxDecision::Nothing => {}
        }
    }

    /// The receiver's delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self, core: &mut Core, generation: u64) {
        if self.receiver.on_delack_timer(generation) {
            self.send_ack(core);
        }
    }

    fn send_ack(&mut self, core: &mut Core) {
        let mut hdr = TcpHeader {
            flags: TcpFlags(TcpFlags::ACK),
            seq: 1,
            ts_val: core.now,
            ts_ecr: self.ts_to_echo.take().unwrap_or_default(),
            ..TcpHeader::default()
        };
        self.receiver.fill_ack(&mut hdr);
        if !self.params.sack {
            hdr.n_sack = 0;
        }
        self.receiver.on_ack_sent();
        self.acks_sent += 1;
        self.send_to_sender(core, hdr);
    }

    fn send_to_sender(&mut self, core: &mut Core, hdr: TcpHeader) {
        let size = self.params.wire_size(0, hdr.n_sack);
        let id = core.packets.alloc(Packet {
            size_bytes: size,
            src: self.dst,
            dst: self.src,
            flow_hash: self.rev_hash,
            endpoint: self.sender_ep,
            sent_at: core.now,
            payload: Payload::Tcp(hdr),
        });
        core.send(id);
    }
}
