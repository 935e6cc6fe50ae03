//! MPTCP's data level (RFC 8684): the connection-level receiver with its
//! shared receive buffer, and the configuration of the packet schedulers
//! (implemented in `transport/scheduler/`) and of the path managers.

use serde::{Deserialize, Serialize};

use crate::time::SimTime;

/// How new data is spread over subflows.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheduler {
    /// The subflow with the lowest smoothed RTT among those with room in
    /// their congestion window (the out-of-tree Linux MPTCP's default).
    #[default]
    Minrtt,
    /// Subflows in turn, skipping those without room.
    Roundrobin,
    /// Every chunk on every subflow that has room when it is sent.
    Redundant,
    /// Upstream Linux's default (`mptcp_subflow_get_send`, since 5.19):
    /// each chunk goes to the subflow whose data would drain first — bytes
    /// it holds (in flight and waiting) over Linux's pacing rate,
    /// max(cwnd, in flight)/SRTT times 2 in slow start and 1.2 after —
    /// whether or not its window has room, and waits in that subflow's own
    /// queue until the window lets it go. A subflow takes data while it
    /// holds less than its send buffer (the flow's `send_buffer`, else what
    /// Linux's `tcp_sndbuf_expand` gives it, about 3.7 windows).
    Linger,
    /// BLEST (Ferlin et al., IFIP Networking 2016): minimum RTT, but waits
    /// for the fastest subflow when a slower one would block it in the
    /// connection's send window.
    Blest,
    /// ECF (Lim et al., CoNEXT 2017): minimum RTT, but waits for the fastest
    /// subflow when it alone would finish the data left earlier.
    Ecf,
}

/// Which subflows a connection opens.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum PathManager {
    /// One subflow per pair of (source address, destination address), all
    /// joining as soon as the first is established.
    #[default]
    Fullmesh,
    /// `subflows` subflows over the first address pair, each with its own
    /// source port (so ECMP may or may not spread them).
    Ndiffports { subflows: u32 },
    /// Upstream Linux's in-kernel path manager at the side that opened the
    /// connection (`transport/path_manager/kernel.rs`): a subflow from each
    /// of its other addresses to the peer's first, and from its first to
    /// each address the peer announces, at most `add_addr_accepted` of those
    /// and `subflows` in all beyond the first (`ip mptcp limits`; Linux's
    /// defaults 2 and 0).
    Kernel {
        #[serde(default = "kernel_subflows_default")]
        subflows: u32,
        #[serde(default)]
        add_addr_accepted: u32,
    },
}

/// `ip mptcp limits`' default number of subflows beyond the first
/// (`pm_nl_init_net`: "2 subflows ought to be enough for anybody").
fn kernel_subflows_default() -> u32 {
    2
}

/// Which end opens a connection: sends the SYN of its first subflow and,
/// for MPTCP, runs the path manager that opens the others (Linux's in-kernel
/// path manager runs on the side that connected).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Initiator {
    /// The data sender connects and sends (an upload, a bulk sender).
    #[default]
    Sender,
    /// The data receiver connects and the sender sends once it has accepted
    /// (a download: a client connects to a server that sends).
    Receiver,
}

/// When the path manager opens the subflows beyond the first, and when a
/// joined subflow may carry data.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MptcpJoin {
    /// At the first subflow's establishment (the SYN-ACK at the side that
    /// connected), plus the flow's `join_delay`; a joined subflow sends data
    /// from its SYN-ACK (the fourth packet of MP_JOIN not modelled).
    #[default]
    Established,
    /// Linux 6.x (`mptcp_pm_nl_fully_established`, `check_fully_established`,
    /// `__mptcp_subflow_active`): the side that connected opens the subflows,
    /// all at once, when its connection becomes fully established: the
    /// first packet from the peer after the MP_CAPABLE handshake that carries
    /// a DATA_ACK (an upload: the ACK of the first data; a download: the
    /// first data); a subflow joined by the data sender carries data only
    /// once the peer has acknowledged the third packet of its handshake (the
    /// fourth, RFC 8684 §3.2), one joined by the receiver from the sender's
    /// receipt of that third packet. `join_delay` is added after the full
    /// establishment.
    Linux,
}

/// How an MPTCP connection's receiver sizes the window it offers (RFC 8684
/// §3.3.4: one window for the connection, relative to the DATA_ACK).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MptcpRcvWindow {
    /// The connection's receive buffer (`rcv_buffer`, 64 MiB by default)
    /// less what it holds out of order.
    #[default]
    Fixed,
    /// Linux 6.18: a buffer that starts at `tcp_rmem[1]` and grows once per
    /// receiver RTT with what the application read in it
    /// (`mptcp_rcv_space_adjust`, `mptcp_rcvbuf_grow`), each subflow
    /// offering at most its own `rcv_ssthresh`, which grows by two segments
    /// a segment up to the buffer's window (`tcp_grow_window`), the
    /// connection's right edge never moving left (`mptcp_set_rwin`); the
    /// sender fills the window to its edge, with a segment shorter than
    /// the MSS where the window ends, and holds such a short segment while
    /// one sent earlier on its subflow is unacknowledged (Nagle with
    /// Minshall's rule, `tcp_nagle_test`). See [`crate::transport::data_level`]
    /// and docs/algorithms.md.
    Linux,
}

/// What a subflow event does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubflowAction {
    /// Open a subflow with an MP_JOIN handshake (RFC 8684 §3.2), as after an
    /// ADD_ADDR of its address (§3.4.1) or when the sender gains an interface.
    Add,
    /// Close a subflow abortively (RFC 8684 §3.4.2 REMOVE_ADDR, §3.3.8): it
    /// sends and receives nothing more, and its unacknowledged data is sent
    /// again on the other subflows at once.
    Remove,
}

/// What became of a subflow event in the run.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubflowEventOutcome {
    /// Not applied yet when the run ended (its time not reached, or an add
    /// waiting for the connection to be established).
    Pending,
    /// Applied, at the event's time or, for an add before the connection was
    /// established, at the establishment.
    Applied,
    /// Nothing done: the connection had already completed.
    ConnectionComplete,
    /// An add that waited for the establishment, and whose subflow was
    /// removed before then: it never opened.
    Cancelled,
}

/// A subflow event resolved at build time: the subflow it adds or removes.
#[derive(Clone, Debug)]
pub struct SubflowEvent {
    pub at: SimTime,
    pub action: SubflowAction,
    /// Index of the subflow in the connection.
    pub subflow: usize,
    /// When it took effect.
    pub applied_at: Option<SimTime>,
    pub outcome: SubflowEventOutcome,
}

/// The connection-level receiver: data sequence numbers from every subflow
/// are reassembled here, and what arrives out of order waits in the shared
/// receive buffer until the hole before it fills (head-of-line blocking).
///
/// Data reaches this level as soon as a subflow receives it, even out of
/// order at the subflow level; Linux passes it on only once in order on its
/// subflow. Documented in docs/algorithms.md.
#[derive(Clone, Debug)]
pub struct DataReceiver {
    /// Next data sequence number expected (the DATA_ACK).
    pub rcv_nxt: u64,
    /// Ranges received above `rcv_nxt`, sorted and disjoint.
    ooo: Vec<(u64, u64)>,
    /// Bytes held in `ooo`.
    pub held_bytes: u64,
    /// Receive buffer size, bytes.
    pub buffer_bytes: u64,
    /// Data sequence number of the DATA_FIN, once seen.
    fin: Option<u64>,
    /// Largest number of bytes ever held out of order.
    pub max_held_bytes: u64,
    /// Bytes that arrived more than once at the data level.
    pub duplicate_bytes: u64,
    /// The right edge of the window last advertised, DATA_ACK + window,
    /// data sequence number.
    right_edge: u64,
}

impl DataReceiver {
    /// Starts loading the start of the out-of-order ranges (see [`crate::cache`]).
    #[inline]
    pub fn prefetch_buffer(&self) {
        if let Some(first) = self.ooo.first() {
            crate::cache::prefetch(first);
        }
    }

    pub fn new(buffer_bytes: u64) -> Self {
        DataReceiver {
            rcv_nxt: 1,
            ooo: Vec::new(),
            held_bytes: 0,
            buffer_bytes,
            fin: None,
            max_held_bytes: 0,
            duplicate_bytes: 0,
            right_edge: 0,
        }
    }

    /// Data [dsn, dsn + len) arrived; with `data_fin` the connection's data
    /// ends after it (the DATA_FIN takes one data sequence number).
    pub fn on_data(&mut self, dsn: u64, len: u32, data_fin: bool) {
        let end = dsn + len as u64;
        if data_fin {
            self.fin = Some(end);
        }
        let end = end + data_fin as u64;
        if end <= self.rcv_nxt {
            self.duplicate_bytes += len as u64;
            return;
        }
        // Payload bytes already delivered or held count as duplicates; the
        // DATA_FIN's sequence number is not a byte.
        self.duplicate_bytes += self.rcv_nxt.saturating_sub(dsn).min(len as u64);
        let mut s = dsn.max(self.rcv_nxt);
        let mut e = end;
        let payload_end = dsn + len as u64;
        // Merge into the out-of-order store.
        let i = self.ooo.partition_point(|&(_, be)| be < s);
        while i < self.ooo.len() && self.ooo[i].0 <= e {
            let (bs, be) = self.ooo.remove(i);
            self.duplicate_bytes += be.min(payload_end).saturating_sub(bs.max(s));
            self.held_bytes -= be - bs;
            s = s.min(bs);
            e = e.max(be);
        }
        if s <= self.rcv_nxt {
            self.rcv_nxt = e;
        } else {
            self.ooo.insert(i, (s, e));
            self.held_bytes += e - s;
            self.max_held_bytes = self.max_held_bytes.max(self.held_bytes);
        }
    }

    /// The window to advertise: the buffer less what waits out of order,
    /// but never so small that the right edge moves left of where an
    /// earlier ACK put it (Linux `mptcp_set_rwin` keeps the connection's
    /// `rcv_wnd_sent`, as TCP does, RFC 9293 §3.8.6).
    pub fn window(&self) -> u64 {
        self.window_from(self.buffer_bytes.saturating_sub(self.held_bytes))
    }

    /// The window to advertise when a subflow offers `offer` bytes: the
    /// offer, or what reaches the right edge already advertised.
    pub fn window_from(&self, offer: u64) -> u64 {
        offer.max(self.right_edge.saturating_sub(self.rcv_nxt))
    }

    /// The window of an ACK being sent, whose right edge later ACKs keep.
    pub fn advertise(&mut self) -> u64 {
        self.advertise_from(self.buffer_bytes.saturating_sub(self.held_bytes))
    }

    /// [`Self::advertise`] for a subflow that offers `offer` bytes.
    pub fn advertise_from(&mut self, offer: u64) -> u64 {
        let window = self.window_from(offer);
        self.right_edge = self.right_edge.max(self.rcv_nxt.saturating_add(window));
        window
    }

    /// Whether every byte and the DATA_FIN have arrived.
    pub fn is_complete(&self) -> bool {
        self.fin.is_some_and(|f| self.rcv_nxt > f)
    }

    /// Bytes delivered in order to the application.
    pub fn delivered_bytes(&self) -> u64 {
        let through = match self.fin {
            Some(f) if self.rcv_nxt > f => f,
            _ => self.rcv_nxt,
        };
        through - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linux `mptcp_set_rwin`: data held out of order takes buffer space,
    /// but the right edge of the window advertised (`rcv_wnd_sent`) never
    /// moves left.
    #[test]
    fn the_right_edge_of_the_data_window_never_moves_left() {
        let mut d = DataReceiver::new(10_000);
        assert_eq!(d.advertise(), 10_000);
        // 1400 bytes held out of order: 8600 free, but the edge stays at 10 001.
        d.on_data(1401, 1400, false);
        assert_eq!(d.advertise(), 10_000);
        // The hole fills and later data is held: the free space, 8600 from
        // the DATA_ACK 2801, reaches past the old edge.
        d.on_data(1, 1400, false);
        d.on_data(4201, 1400, false);
        assert_eq!(d.advertise(), 8600);
    }

    #[test]
    fn reassembles_across_subflows() {
        let mut d = DataReceiver::new(10_000);
        d.on_data(1401, 1400, false);
        assert_eq!(d.rcv_nxt, 1);
        assert_eq!(d.held_bytes, 1400);
        assert_eq!(d.window(), 8600);
        d.on_data(4201, 1400, true);
        d.on_data(1, 1400, false);
        assert_eq!(d.rcv_nxt, 2801);
        assert_eq!(d.held_bytes, 1401);
        d.on_data(2801, 1400, false);
        assert_eq!(d.rcv_nxt, 5602);
        assert_eq!(d.delivered_bytes(), 5600);
        assert_eq!(d.held_bytes, 0);
        d.on_data(1, 1400, false);
        assert_eq!(d.duplicate_bytes, 1400);
        // Data resegmented across the DATA_ACK: its first 400 bytes are
        // duplicates, the rest new.
        let mut d = DataReceiver::new(10_000);
        d.on_data(1, 1400, false);
        d.on_data(1001, 1000, false);
        assert_eq!((d.rcv_nxt, d.duplicate_bytes), (2001, 400));
    }

    #[test]
    fn a_data_fin_held_out_of_order_and_received_again_is_its_payload_twice() {
        let mut d = DataReceiver::new(10_000);
        d.on_data(1401, 1400, true);
        d.on_data(1401, 1400, true);
        // 1400 payload bytes again; the DATA_FIN's sequence number is no byte.
        assert_eq!(d.duplicate_bytes, 1400);
        d.on_data(1, 1400, false);
        assert_eq!(d.delivered_bytes(), 2800);
    }
}
