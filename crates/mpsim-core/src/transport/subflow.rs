//! A subflow: one TCP connection between an address pair, with its sender,
//! its receiver, and [`Wire`], which turns the sender's segments into packets.

use super::coding::{self, Coding, NcSender};
use super::tcp::config::TcpParams;
use super::tcp::receiver::TcpReceiver;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::tcp::sender::{Chunk, OutSegment, SenderOutput, TcpSender};
use super::Io;
use crate::context::{Forward, RouteHint, SimContext};
use crate::event::Event;
use crate::ids::{AddrId, EndpointId};
use crate::observe::{SegmentEvent, SubflowPhase, SubflowRef, TransportEvent};
use crate::time::{SimDuration, SimTime};
use crate::wire::tcp::TcpFlags;
use crate::wire::{Packet, Payload};

/// What the tracing hook was last told of a subflow's sender, to report
/// only changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reported {
    pub(crate) cwnd: u64,
    pub(crate) ssthresh: u64,
    pub(crate) srtt: SimDuration,
    pub(crate) rto_count: u64,
    pub(crate) in_recovery: bool,
    /// Whether the sender has left slow start (for the first time).
    pub(crate) left_slow_start: bool,
    pub(crate) phase: SubflowPhase,
}

impl Default for Reported {
    fn default() -> Self {
        Reported {
            cwnd: 0,
            ssthresh: 0,
            srtt: SimDuration::ZERO,
            rto_count: 0,
            in_recovery: false,
            left_slow_start: false,
            phase: SubflowPhase::Idle,
        }
    }
}

#[derive(Debug)]
pub struct Subflow {
    pub src: AddrId,
    pub dst: AddrId,
    pub sender_ep: EndpointId,
    pub receiver_ep: EndpointId,
    /// The sender's port (the receiver's is 5001), which the 5-tuple hashes cover.
    pub sport: u16,
    /// 5-tuple hashes of the two directions.
    pub fwd_hash: u64,
    pub rev_hash: u64,
    /// The routes of the two directions, once the network has worked them out.
    pub fwd_route: RouteHint,
    pub rev_route: RouteHint,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    /// TSval of the first segment received since the receiver last ACKed
    /// (RFC 7323 §4.3: with delayed ACKs, echo the earliest).
    pub(crate) ts_to_echo: Option<SimTime>,
    pub acks_sent: u64,
    /// Payload bytes this subflow delivered to the data level.
    pub bytes_received: u64,
    /// Whether the scenario traces this subflow's sender (the trace itself
    /// is kept by [`crate::trace::TraceRecorder`]).
    pub traced: bool,
    /// Whether the scenario traces this subflow's segments and ACKs
    /// (`trace.segments`).
    pub segments_traced: bool,
    /// What the tracing hook was last told of this subflow.
    pub(crate) reported: Reported,
    /// When a subflow event opened it (`None` for the path manager's subflows).
    pub added_at: Option<SimTime>,
    /// When a subflow event closed it.
    pub removed_at: Option<SimTime>,
    /// Chunks the `linger` scheduler gave this subflow that its window has
    /// not yet let go, in order.
    pub(crate) queued: VecDeque<Chunk>,
    /// Payload bytes in `queued`.
    pub(crate) queued_bytes: u64,
    /// Network coding under this subflow's TCP, if the scenario codes it.
    pub coding: Option<Coding>,
    /// The receiver's handshake, when the receiver opens the subflow
    /// (`initiator = "receiver"`); `None` until it sends its SYN.
    pub opening: Option<Opening>,
    /// A subflow the sender joined waits for the peer's acknowledgement of
    /// the third packet of MP_JOIN before it carries data (RFC 8684 §3.2;
    /// Linux `__mptcp_subflow_active`).
    pub join_pending: bool,
    /// End (subflow sequence number) of the last segment shorter than the
    /// MSS this subflow sent: Nagle's rule with Minshall's refinement holds
    /// another short one while this is unacknowledged (`tcp_minshall_update`,
    /// `tcp_nagle_test`); used with `tcp.mptcp_rcv_window = "linux"`.
    pub(crate) short_sent_end: u64,
    /// The last skb of this subflow's write queue as Linux builds it, for
    /// the `linger` scheduler with Linux's window.
    pub(crate) tail_skb: TailSkb,
    /// When the sender last received a packet on this subflow (Linux
    /// `tcp_sock.rcv_tstamp`).
    pub(crate) acked_at: SimTime,
    /// Linux's stale subflow (`mptcp_pm_subflows_chk_stale`): the scheduler
    /// passes it by until it receives again.
    pub(crate) stale: bool,
    /// Expiries of the connection's retransmission timer that found this
    /// subflow with data outstanding and nothing received since
    /// `stale_acked_at` (`stale_count`, `stale_rcv_tstamp`).
    pub(crate) stale_count: u8,
    pub(crate) stale_acked_at: SimTime,
    /// The `linger` scheduler's view of this subflow's pacing rate, bytes
    /// per second (Linux `mptcp_subflow_context.avg_pacing_rate`): taken
    /// from the subflow's pacing rate when the scheduler first looks at it,
    /// then moved toward the current rate each time a burst is placed on
    /// it, weighted by the burst against what the subflow already holds.
    /// 0 before the first look.
    pub(crate) avg_pacing_rate: u64,
    /// Data segments that arrived out of order on this subflow, held at
    /// the subflow until its own sequence space fills up to them (Linux
    /// keeps them in the subflow's out-of-order queue, charged to the
    /// subflow, and passes them to the connection in order:
    /// `tcp_data_queue_ofo`, then `mptcp_data_ready`); used with
    /// `tcp.mptcp_rcv_window = "linux"`. Sorted by subflow sequence number.
    pub(crate) held_ofo: Vec<HeldSegment>,
}

/// A data segment held out of order at its subflow ([`Subflow::held_ofo`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeldSegment {
    /// Subflow sequence number.
    pub seq: u64,
    /// Data sequence number.
    pub dsn: u64,
    pub len: u32,
    pub data_fin: bool,
}

/// The data sequence numbers the last skb of a subflow's write queue maps,
/// as Linux builds it: `mptcp_sendmsg_frag` appends data that continues the
/// tail skb's mapping to it while the skb is below the size goal
/// (`tcp_send_mss`: half the largest window the peer offered, at most
/// 64 KiB less headers, in whole segments) and its mapping is not frozen;
/// `tso_fragment` and `tcp_fragment` freeze it when they split the skb
/// (`mptcp_skb_ext_copy`), so once part of it has been sent, a short piece
/// at its end stays short and the data after it starts a new mapping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TailSkb {
    /// Data sequence numbers `[start, end)`; `start == end`: none.
    pub start: u64,
    pub end: u64,
    /// Part of it was sent by an earlier push (or all of it left the write
    /// queue): nothing may be appended.
    pub frozen: bool,
    /// Part of it was sent by the push now running. Linux places a push's
    /// new data before it sends: the DATA_ACK that opens the window is read
    /// in `tcp_data_queue` and the push it starts appends and then sends
    /// (`__mptcp_subflow_push_pending`, `tcp_push`), all before the
    /// subflow's own `tcp_data_snd_check`. So the skb freezes when the push
    /// ends.
    pub sent_in_push: bool,
}

impl TailSkb {
    /// Places `len` bytes at `dsn` on the subflow: returns how many of them
    /// extend the tail skb (and its mapping), up to its size goal; the rest
    /// start a new skb (`mptcp_sendmsg_frag` copies at most the size goal
    /// less the tail's length into it).
    pub fn place(&mut self, dsn: u64, len: u32, size_goal: u64) -> u32 {
        let held = self.end - self.start;
        let room = if self.end > self.start && !self.frozen && self.end == dsn {
            size_goal.saturating_sub(held).min(len as u64) as u32
        } else {
            0
        };
        if room == len {
            self.end += len as u64;
        } else {
            *self = TailSkb {
                start: dsn + room as u64,
                end: dsn + len as u64,
                frozen: false,
                sent_in_push: false,
            };
        }
        room
    }

    /// `len` bytes at `dsn` were sent by the push now running.
    pub fn on_sent(&mut self, dsn: u64, len: u32) {
        if dsn < self.end && dsn + len as u64 > self.start {
            self.sent_in_push = true;
        }
    }

    /// The push is over: what it sent of the skb froze it.
    pub fn settle(&mut self) {
        if self.sent_in_push {
            self.frozen = true;
            self.sent_in_push = false;
        }
    }
}

/// A handshake opened by the receiving end: its SYN, retransmitted on a
/// timeout that doubles (RFC 6298 §5.5) until the SYN-ACK arrives.
#[derive(Clone, Copy, Debug)]
pub struct Opening {
    /// Whether the SYN-ACK has arrived.
    pub syn_acked: bool,
    /// When the SYN is due again; a timer event at another time is stale.
    pub deadline: SimTime,
    /// The SYN's timeout in force.
    pub rto: SimDuration,
    /// When the first SYN left.
    pub first_syn_at: SimTime,
    /// SYNs sent again.
    pub retransmits: u64,
}

impl Subflow {
    /// Whether the scheduler may give this subflow data: established, not
    /// removed, not waiting for the fourth packet of MP_JOIN, and not stale
    /// (a stale subflow that has received a packet since is active again,
    /// Linux `mptcp_subflow_active`).
    #[inline]
    pub fn usable(&self) -> bool {
        self.can_send() && !(self.stale && self.stale_acked_at == self.acked_at)
    }

    /// Whether the subflow can carry data at all: not removed and not
    /// waiting for the fourth packet of MP_JOIN (Linux
    /// `__mptcp_subflow_active`, which a stale subflow passes).
    #[inline]
    pub fn can_send(&self) -> bool {
        !self.join_pending && self.removed_at.is_none()
    }

    /// Whether a segment shorter than the MSS this subflow sent is still
    /// unacknowledged (Minshall's `snd_sml` after `snd_una`).
    #[inline]
    pub(crate) fn short_unacked(&self) -> bool {
        self.short_sent_end > self.sender.snd_una
    }
}

/// Option bytes a data level adds to a subflow's segments (RFC 8684 §3
/// for MPTCP; none for plain TCP).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct OptionBytes {
    /// On a SYN or SYN-ACK.
    pub syn: u32,
    /// On a segment that carries data.
    pub data: u32,
    /// On any other segment (an ACK).
    pub ack: u32,
}

impl OptionBytes {
    #[inline]
    pub fn of(self, flags: TcpFlags, carries_data: bool) -> u32 {
        if flags.has(TcpFlags::SYN) {
            self.syn
        } else if carries_data {
            self.data
        } else {
            self.ack
        }
    }
}

/// Puts a subflow's segments on the network.
pub struct Wire<'a, N: Forward> {
    ctx: &'a mut SimContext,
    net: &'a mut N,
    params: &'a TcpParams,
    options: OptionBytes,
    conn: u32,
    subflow: u16,
    src: AddrId,
    dst: AddrId,
    hash: u64,
    to: EndpointId,
    route: u32,
    /// The coding shim the segments go through, on a coded subflow.
    coder: Option<Rc<RefCell<NcSender>>>,
}

impl<'a, N: Forward> Wire<'a, N> {
    /// The wire of subflow `r` (`sf`) of connection `conn`.
    pub fn new(
        io: &'a mut Io<'_, N>,
        params: &'a TcpParams,
        options: OptionBytes,
        conn: u32,
        r: usize,
        sf: &Subflow,
    ) -> Self {
        let route = sf.fwd_route.get(&mut *io.net, sf.src, sf.dst, sf.fwd_hash);
        Wire {
            ctx: &mut *io.ctx,
            net: &mut *io.net,
            params,
            options,
            conn,
            subflow: r as u16,
            src: sf.src,
            dst: sf.dst,
            hash: sf.fwd_hash,
            to: sf.receiver_ep,
            route,
            coder: sf.coding.as_ref().map(|c| Rc::clone(&c.sender)),
        }
    }
}

impl<N: Forward> SenderOutput for Wire<'_, N> {
    fn send(&mut self, seg: OutSegment) {
        // The shim is taken out for the call, so that it can hand its
        // packets to `put` without a second handle on it.
        if let Some(coder) = self.coder.take() {
            if coding::is_coded(&seg.header) {
                let mut c = coder.borrow_mut();
                let extra = c.config.header_bytes;
                c.encode(&seg.header, |hdr| self.put(hdr, extra));
                drop(c);
                self.coder = Some(coder);
                return;
            }
            self.coder = Some(coder);
        }
        self.put(seg.header, 0);
    }

    fn arm_timer(&mut self, at: SimTime) {
        self.ctx.events.schedule(at, Event::TcpRto(self.conn, self.subflow));
    }
}

impl<N: Forward> Wire<'_, N> {
    /// Puts one packet carrying `header` on the network, with `extra`
    /// header bytes (the NC header of a coded packet).
    fn put(&mut self, header: crate::wire::TcpHeader, extra: u32) {
        let h = &header;
        let options = self.options.of(h.flags, h.payload_bytes > 0);
        let size = self
            .params
            .wire_size(h.payload_bytes, h.n_sack, h.flags.has(TcpFlags::SYN))
            + options
            + extra;
        let sf = SubflowRef {
            connection: self.conn,
            subflow: self.subflow,
        };
        self.ctx.observe_segment(sf, SegmentEvent::Sent(h));
        let id = self.ctx.packets.alloc(Packet {
            size_bytes: size,
            src: self.src,
            dst: self.dst,
            flow_hash: self.hash,
            endpoint: self.to,
            sent_at: self.ctx.now,
            payload: Payload::Tcp(header),
        });
        if h.payload_bytes > 0 {
            let payload_bytes = h.payload_bytes as u64;
            self.ctx.observe_transport(sf, TransportEvent::Sent { payload_bytes });
        }
        self.net.send_routed(self.ctx, id, self.route);
    }
}

#[cfg(test)]
mod tests {
    use super::TailSkb;

    /// `mptcp_sendmsg_frag` extends the tail skb's mapping with the data
    /// that continues it, up to the size goal; once a push has sent part of
    /// it (`tso_fragment` froze the mapping), the next push's data starts a
    /// new skb, so a short piece cut at the window's edge stays short.
    #[test]
    fn the_tail_skb_takes_data_until_a_push_has_sent_part_of_it() {
        let goal = 22 * 1424;
        let mut skb = TailSkb::default();
        // The first data on the subflow starts an skb.
        assert_eq!(skb.place(1, 1424, goal), 0);
        // The same push: what follows extends it, even after the push has
        // sent its first segment (Linux sends once the push has appended).
        skb.on_sent(1, 1424);
        assert_eq!(skb.place(1425, 224, goal), 224);
        skb.settle();
        // The next push: the skb was split, its mapping frozen.
        assert_eq!(skb.place(1649, 1424, goal), 0);
        assert_eq!((skb.start, skb.end), (1649, 3073));
        // Nothing of this one was sent: the next push extends it.
        skb.settle();
        assert_eq!(skb.place(3073, 1000, goal), 1000);
        // Data that does not continue the mapping starts a new skb.
        assert_eq!(skb.place(9000, 1424, goal), 0);
        assert_eq!((skb.start, skb.end), (9000, 10_424));
    }

    /// At the size goal the tail skb is full: the bytes beyond it start a new
    /// skb, which the data after them may extend.
    #[test]
    fn the_tail_skb_stops_at_its_size_goal() {
        let goal = 2 * 1424;
        let mut skb = TailSkb::default();
        skb.place(1, 1424, goal);
        assert_eq!(skb.place(1425, 1000, goal), 1000);
        // 424 bytes fit, the other 1 000 begin the next skb.
        assert_eq!(skb.place(2425, 1424, goal), 424);
        assert_eq!((skb.start, skb.end), (2849, 3849));
        assert_eq!(skb.place(3849, 424, goal), 424);
        assert_eq!(skb.place(4273, 1424, goal), 1424);
        // Exactly at the goal: nothing more fits, a new skb starts.
        assert_eq!(skb.end - skb.start, goal);
        assert_eq!(skb.place(5697, 1424, goal), 0);
        assert_eq!((skb.start, skb.end), (5697, 7121));
        // A chunk sent across the skb's start freezes it too.
        skb.on_sent(5000, 1424);
        skb.settle();
        assert!(skb.frozen);
    }
}
