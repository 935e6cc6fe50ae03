//! The TCP data receiver: reassembly, cumulative ACK, SACK blocks, delayed ACK.
//!
//! A pure state machine: the caller owns timers and packets. After each
//! segment it follows the returned [`RxDecision`]; whenever it sends an ACK
//! it first takes the fields from [`TcpReceiver::fill_ack`], then calls
//! [`TcpReceiver::on_ack_sent`], which also stops the delayed-ACK timer.
//! The timer is a [`LazyTimer`]: stopping it or moving its deadline later
//! schedules nothing, so the event queue holds one entry for it while it is
//! armed (two while a deadline moved earlier than the pending one, as the
//! compressed-SACK timer's can), not one per arming.

use super::timer::LazyTimer;
use crate::time::{SimDuration, SimTime};
use crate::wire::tcp::{SackBlock, TcpHeader, MAX_SACK_BLOCKS};

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ReceiverConfig {
    /// Delay ACKs for in-order data (RFC 5681 §4.2); off: ACK every segment.
    pub delayed_ack: bool,
    /// ACK at least every this many segments (RFC 5681 §4.2: 2).
    pub delack_segments: u32,
    /// Longest an ACK is delayed (Linux 40 ms, ns-3 200 ms).
    pub delack_timeout: SimDuration,
    /// ACK every one of the first this many data segments (Linux quick-ACK).
    pub quickack_segments: u32,
    /// Linux `tcp_grow_window`: while the receiver's window threshold
    /// (`rcv_ssthresh`) is below its bound, each data segment raises it by
    /// two segments and is acknowledged at once (`icsk_ack.quick |= 1`).
    /// With a bound from the socket's autotuned buffer
    /// ([`TcpReceiver::bound_rcv_ssthresh`]: plain TCP, and an MPTCP
    /// subflow under Linux's connection-level window) Linux's quick-ACK
    /// count decides: 16 more after the growth stops; else the bound is
    /// 3 MiB and the quick ACKs end with the growth.
    pub quickack_window_growth: bool,
    /// Linux's SACK compression (`__tcp_ack_snd_check`, since 4.18): while
    /// data waits out of order, the first three duplicate ACKs for a
    /// cumulative ACK go at once, later ones wait for a timer of min(1 ms,
    /// RTT/20) (`tcp_comp_sack_delay_ns`), at most 44 held back
    /// (`tcp_comp_sack_nr`); off, every out-of-order segment is
    /// acknowledged at once (RFC 5681 §4.2).
    pub sack_compression: bool,
    /// Receive buffer, advertised as the window, bytes.
    pub rwnd_bytes: u64,
    /// The window offered is the buffer less the out-of-order data it holds
    /// (the free space), but never so small that the right edge of the
    /// window (RCV.NXT + RCV.WND) moves left of where an earlier ACK put it:
    /// RFC 9293 §3.8.6 ("the receiver SHOULD NOT shrink the window") and
    /// Linux `tcp_select_window` ("Never shrink the offered window"). Off,
    /// the whole buffer from the cumulative ACK on, as ns-3's
    /// `TcpRxBuffer::MaxRxSequence`.
    pub ooo_shrinks_window: bool,
    /// Which SACK blocks an ACK reports.
    pub sack_blocks: SackBlocks,
    /// Segment size expected, bytes.
    pub mss: u32,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            delayed_ack: true,
            delack_segments: 2,
            delack_timeout: SimDuration::from_millis(40),
            quickack_segments: 0,
            quickack_window_growth: false,
            sack_compression: false,
            rwnd_bytes: 64 << 20,
            ooo_shrinks_window: true,
            sack_blocks: SackBlocks::Highest,
            mss: 1400,
        }
    }
}

/// Which SACK blocks an ACK reports (RFC 2018 §4), up to three.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SackBlocks {
    /// The block holding the segment that triggered the ACK, then the
    /// highest blocks of everything held out of order.
    Highest,
    /// ns-3's `TcpRxBuffer` list and Linux's (`tcp_sack_new_ofo_skb`,
    /// `tcp_sack_maybe_coalesce`): each newly stored range goes first,
    /// merged with the blocks it touches; the list remembers four blocks,
    /// and a block pushed off it is never reported again (a later range
    /// next to it is reported without it), until the cumulative ACK passes
    /// it. Linux also sends a held compressed ACK early when the block a
    /// segment changes lies beyond the second place
    /// (`tcp_sack_compress_send_ack`); mpsim does not.
    Recent,
}

/// What the caller must do after a segment arrived.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RxDecision {
    /// Send an ACK now.
    AckNow,
    /// Schedule an event for the delayed-ACK timer at `at`; when it fires,
    /// call [`TcpReceiver::on_delack_timer`].
    ArmDelayedAck { at: SimTime },
    /// An ACK is already pending with its timer armed.
    Nothing,
}

#[derive(Clone, Debug)]
pub struct TcpReceiver {
    pub config: ReceiverConfig,
    /// Next sequence number expected.
    pub rcv_nxt: u64,
    /// Received ranges above `rcv_nxt`, sorted and disjoint.
    ooo: Vec<SackBlock>,
    /// Sequence number of the FIN, once seen.
    fin_seq: Option<u64>,
    /// Segments received since the last ACK sent.
    unacked_segments: u32,
    /// Data segments received so far.
    segments_received: u64,
    /// Linux's `rcv_ssthresh`, bytes, as it decides quick ACKs (with
    /// `quickack_window_growth`).
    rcv_ssthresh: u64,
    /// Where `rcv_ssthresh` stops growing when the socket's autotuned
    /// buffer bounds it (a plain TCP receiver under the `linux` profile,
    /// `RcvSpace::growth_cap`); `None`: at `RCV_SSTHRESH_CLAMP_BYTES`.
    growth_cap: Option<u64>,
    /// Linux's quick-ACK count (`icsk_ack.quick`) when `growth_cap` is set:
    /// while above zero every data segment is acknowledged at once, and each
    /// ACK of data takes one from it.
    quick: u32,
    /// Linux's `rcv_ssthresh` as it bounds the window offered, when the data
    /// level sets a `window_clamp` from its receive buffer (MPTCP's
    /// connection-level window): the same growth, stopped at the clamp.
    window_ssthresh: u64,
    /// Linux's `window_clamp` for `window_ssthresh`; `None` until the data
    /// level sets it.
    window_clamp: Option<u64>,
    /// What each data segment adds to `window_ssthresh` (`tcp_grow_window`),
    /// bytes: two segments (two of `mss` unless the data level starts it).
    window_step: u64,
    /// The data level has started `window_ssthresh`.
    window_started: bool,
    /// The delayed-ACK timer (also the compressed-SACK one): its deadline
    /// and the event pending for it.
    timer: LazyTimer,
    /// The segment being taken carries PSH ([`Self::note_push`]).
    pushed: bool,
    /// The block holding the most recently received out-of-order segment.
    last_block_start: Option<u64>,
    /// Bytes received more than once.
    pub duplicate_bytes: u64,
    /// The right edge of the window last advertised, RCV.NXT + RCV.WND,
    /// sequence number (0 before any ACK).
    right_edge: u64,
    /// [`SackBlocks::Recent`]: the blocks remembered, most recent first
    /// (the fifth slot is room for one insertion before the oldest goes).
    recent: [SackBlock; RECENT_CAPACITY + 1],
    recent_len: usize,
    /// RCV.NXT when the last ACK was sent (Linux `rcv_wup`).
    rcv_nxt_acked: u64,
    /// SACK compression: the cumulative ACK the duplicate-ACK count is for
    /// (`compressed_ack_rcv_nxt`), duplicate ACKs sent at once for it
    /// (`dup_ack_counter`), and ACKs held back since the last one sent
    /// (`compressed_ack`).
    comp_rcv_nxt: u64,
    dup_acks_sent: u32,
    compressed: u32,
    /// The smallest round trip measured from the timestamps data echoes
    /// (Linux's `rcv_rtt_est`, bounded by the handshake's `srtt`).
    min_rtt: Option<SimDuration>,
}

/// Linux `TCP_FASTRETRANS_THRESH`: duplicate ACKs sent before compression.
const COMP_DUP_ACKS: u32 = 3;
/// Linux `tcp_comp_sack_nr`: ACKs held back at most.
const COMP_SACK_NR: u32 = 44;
/// Linux `tcp_comp_sack_delay_ns`: the longest a SACK waits.
const COMP_SACK_DELAY: SimDuration = SimDuration::from_millis(1);

/// Linux's first `rcv_ssthresh`: the initial receive window, 64 KiB
/// (`tcp_select_initial_window` with the default `tcp_rmem[1]` of 128 KiB).
const RCV_SSTHRESH_INITIAL_BYTES: u64 = 65_535;
/// Where Linux's `rcv_ssthresh` stops growing: the window of the largest
/// autotuned receive buffer, half of `tcp_rmem[2]` (6 MiB), for a receiver
/// whose growth its own buffer does not bound (one without
/// [`TcpReceiver::bound_rcv_ssthresh`]: an MPTCP subflow under a fixed
/// connection-level window).
const RCV_SSTHRESH_CLAMP_BYTES: u64 = 3 << 20;

/// Blocks ns-3's `TcpRxBuffer::UpdateSackList` remembers.
const RECENT_CAPACITY: usize = 4;

impl TcpReceiver {
    pub fn new(config: ReceiverConfig) -> Self {
        TcpReceiver {
            config,
            rcv_nxt: 0,
            ooo: Vec::new(),
            fin_seq: None,
            unacked_segments: 0,
            segments_received: 0,
            rcv_ssthresh: RCV_SSTHRESH_INITIAL_BYTES,
            growth_cap: None,
            quick: 0,
            window_ssthresh: RCV_SSTHRESH_INITIAL_BYTES,
            window_clamp: None,
            window_step: 2 * config.mss as u64,
            window_started: false,
            timer: LazyTimer::default(),
            pushed: false,
            last_block_start: None,
            duplicate_bytes: 0,
            right_edge: 0,
            recent: [SackBlock::default(); RECENT_CAPACITY + 1],
            recent_len: 0,
            rcv_nxt_acked: 0,
            comp_rcv_nxt: 0,
            dup_acks_sent: 0,
            compressed: 0,
            min_rtt: None,
        }
    }

    /// A data segment echoed `ts_ecr`, a timestamp this receiver sent: a
    /// round-trip sample (`tcp_rcv_rtt_measure_ts`), of which SACK
    /// compression's delay keeps the smallest.
    pub fn observe_echo(&mut self, now: SimTime, ts_ecr: SimTime) {
        if ts_ecr > SimTime::ZERO && now > ts_ecr {
            let rtt = now.saturating_since(ts_ecr);
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
    }

    /// Linux's `rcv_ssthresh` as it bounds the window: the most window
    /// this receiver offers, bytes.
    pub fn window_ssthresh(&self) -> u64 {
        self.window_ssthresh
    }

    /// Starts the window's `rcv_ssthresh` at `initial` bytes, the subflow's
    /// first window (`tcp_select_initial_window`), growing by `step` bytes
    /// with each data segment (`tcp_grow_window`); once, before any data
    /// arrives (a later call changes nothing).
    pub fn start_window_ssthresh(&mut self, initial: u64, step: u64) {
        if self.segments_received == 0 && !self.window_started {
            self.window_ssthresh = initial;
            self.window_step = step;
            self.window_started = true;
        }
    }

    /// Sets where the window's `rcv_ssthresh` stops growing (Linux's
    /// `window_clamp`, as the receive buffer's autotuning moves it): from
    /// then on it grows by its step with every segment up to the clamp,
    /// and a lower clamp lowers it (`tcp_set_window_clamp`). The quick ACKs
    /// do not follow it: the kernel acknowledged every segment while its
    /// window waited for the buffer to grow (docs/algorithms.md).
    pub fn set_window_clamp(&mut self, clamp: u64) {
        self.window_clamp = Some(clamp);
        self.window_ssthresh = self.window_ssthresh.min(clamp);
    }

    /// Bounds the growth of `rcv_ssthresh` by the socket's autotuned buffer
    /// (`tcp_grow_window` grows it up to min(window_clamp, tcp_space)), from
    /// `first` bytes, once, before any data arrives (a later call changes
    /// nothing), and from then on decides quick ACKs by Linux's count
    /// (`tcp_incr_quickack`, `tcp_dec_quickack_mode`).
    pub fn bound_rcv_ssthresh(&mut self, first: u64, cap: u64) {
        if self.segments_received == 0 && self.growth_cap.is_none() {
            self.rcv_ssthresh = first;
            self.growth_cap = Some(cap);
        }
    }

    /// Moves the bound of [`Self::bound_rcv_ssthresh`] (the buffer grew, or
    /// its ratio was measured); it never lowers `rcv_ssthresh`.
    pub fn set_rcv_ssthresh_cap(&mut self, cap: u64) {
        if self.growth_cap.is_some() {
            self.growth_cap = Some(cap);
        }
    }

    /// Bytes from the next expected one to the end of the data held out of
    /// order (0 with none).
    pub fn ooo_span(&self) -> u64 {
        self.ooo.last().map_or(0, |b| b.end.saturating_sub(self.rcv_nxt))
    }

    /// The SYN arrived: data is expected from sequence number 1.
    pub fn on_syn(&mut self) -> RxDecision {
        if self.rcv_nxt == 0 {
            self.rcv_nxt = 1;
        }
        RxDecision::AckNow
    }

    /// Bytes delivered in order to the application.
    pub fn delivered_bytes(&self) -> u64 {
        let through = match self.fin_seq {
            Some(f) if self.rcv_nxt > f => f,
            _ => self.rcv_nxt,
        };
        through.saturating_sub(1)
    }

    /// Whether every byte and the FIN have arrived.
    pub fn is_complete(&self) -> bool {
        self.fin_seq.is_some_and(|f| self.rcv_nxt > f)
    }

    /// A data segment [seq, seq + payload) arrived, with FIN if `fin`.
    pub fn on_segment(&mut self, now: SimTime, seq: u64, payload: u32, fin: bool) -> RxDecision {
        let end = seq + payload as u64 + fin as u64;
        if fin {
            self.fin_seq = Some(seq + payload as u64);
        }
        self.segments_received += 1;
        let out_of_order = seq > self.rcv_nxt;
        let old = end <= self.rcv_nxt;
        let had_hole = !self.ooo.is_empty();
        if old {
            self.duplicate_bytes += payload as u64;
        } else if out_of_order {
            if self.config.sack_blocks == SackBlocks::Recent {
                if let Some((s, e)) = self.not_yet_held(seq, end) {
                    self.remember_block(s, e);
                }
            }
            self.insert(seq, end);
        } else {
            if seq < self.rcv_nxt {
                self.duplicate_bytes += self.rcv_nxt - seq;
            }
            self.rcv_nxt = end;
            // Pull in what the new data joins.
            while let Some(b) = self.ooo.first().copied() {
                if b.start > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(b.end);
                self.ooo.remove(0);
            }
            self.forget_blocks_below(self.rcv_nxt);
        }
        self.unacked_segments += 1;
        // Linux `tcp_grow_window` (from `tcp_event_data_recv` and for
        // out-of-order data): the window threshold grows by two segments and
        // the segment is acknowledged at once, until the threshold is at its clamp.
        let counted = self.growth_cap.is_some() && self.config.quickack_window_growth;
        let window_grows = match self.growth_cap {
            // `tcp_event_data_recv`: segments of 128 bytes or more, by
            // max(2 · advmss, 2 · len), up to the buffer's bound.
            Some(cap) => {
                let grows = self.config.quickack_window_growth && !old && payload >= 128 && self.rcv_ssthresh < cap;
                if grows {
                    let incr = 2 * (self.config.mss as u64).max(payload as u64);
                    self.rcv_ssthresh = (self.rcv_ssthresh + incr).min(cap);
                }
                grows
            }
            None => {
                let grows = self.config.quickack_window_growth && !old && self.rcv_ssthresh < RCV_SSTHRESH_CLAMP_BYTES;
                if grows {
                    self.rcv_ssthresh = (self.rcv_ssthresh + 2 * self.config.mss as u64).min(RCV_SSTHRESH_CLAMP_BYTES);
                }
                grows
            }
        };
        if counted {
            // `tcp_incr_quickack` at the first data segment (`icsk_ack.ato`
            // still zero) and `tcp_enter_quickack_mode` for a duplicate
            // (`tcp_data_queue`): 16 (`TCP_MAX_QUICKACKS`, below the window
            // over two `rcv_mss`); `tcp_grow_window` sets the lowest bit.
            if self.segments_received == 1 || old {
                self.quick = self.quick.max(self.config.quickack_segments);
            }
            if window_grows {
                self.quick |= 1;
            }
        }
        let quick_mode = if counted {
            self.quick > 0
        } else {
            window_grows || self.segments_received <= self.config.quickack_segments as u64
        };
        if let Some(clamp) = self.window_clamp.filter(|_| !old) {
            self.window_ssthresh = (self.window_ssthresh + self.window_step).min(clamp);
        }
        if self.config.sack_compression && out_of_order {
            return self.compressed_sack(now, quick_mode);
        }
        // RFC 5681 §4.2: immediate ACK for out-of-order data, for data that
        // fills a hole, and for duplicates; RFC 9293: for the FIN.
        // Linux `tcp_measure_rcv_mss` marks a full segment with PSH
        // (`ICSK_ACK_PUSHED`), and the read that empties the subflow's queue
        // sends the pending ACK (`tcp_cleanup_rbuf`).
        let pushed = std::mem::take(&mut self.pushed) && counted && payload >= self.config.mss;
        let immediate = !self.config.delayed_ack
            || quick_mode
            || pushed
            || out_of_order
            || old
            || had_hole
            || fin
            || self.unacked_segments >= self.config.delack_segments;
        if immediate {
            return RxDecision::AckNow;
        }
        self.arm(now + self.config.delack_timeout)
    }

    /// Linux `__tcp_ack_snd_check` for a segment that arrived out of order,
    /// with SACK compression: at once while in quick-ACK mode, when more
    /// than a segment arrived in order since the last ACK, for the first
    /// three duplicate ACKs of a cumulative ACK, and when 44 are held back;
    /// else on a timer of min(1 ms, RTT/20).
    fn compressed_sack(&mut self, now: SimTime, quick_mode: bool) -> RxDecision {
        let in_order = self.rcv_nxt.saturating_sub(self.rcv_nxt_acked);
        if quick_mode || in_order > self.config.mss as u64 || self.compressed >= COMP_SACK_NR {
            return RxDecision::AckNow;
        }
        if self.comp_rcv_nxt != self.rcv_nxt {
            self.comp_rcv_nxt = self.rcv_nxt;
            self.dup_acks_sent = 0;
        }
        if self.dup_acks_sent < COMP_DUP_ACKS {
            self.dup_acks_sent += 1;
            return RxDecision::AckNow;
        }
        self.compressed += 1;
        let delay = self.min_rtt.map_or(COMP_SACK_DELAY, |rtt| {
            COMP_SACK_DELAY.min(SimDuration(rtt.nanos() / 20))
        });
        self.arm(now + delay)
    }

    /// Arms the ACK timer at `at`, unless it is armed for no later.
    fn arm(&mut self, at: SimTime) -> RxDecision {
        if self.timer.deadline <= at {
            return RxDecision::Nothing;
        }
        match self.timer.set(at) {
            Some(at) => RxDecision::ArmDelayedAck { at },
            // An event already pending no later serves the new deadline.
            None => RxDecision::Nothing,
        }
    }

    /// The part of [start, end) not held yet, trimmed at its ends as ns-3's
    /// `TcpRxBuffer::Add` trims an arriving segment; `None` if all is held.
    fn not_yet_held(&self, start: u64, end: u64) -> Option<(u64, u64)> {
        let (mut s, mut e) = (start, end);
        for b in &self.ooo {
            if b.start <= s && b.end > s {
                s = b.end;
            }
            if b.start < e && b.end >= e {
                e = b.start;
            }
        }
        (s < e).then_some((s, e))
    }

    /// ns-3 `TcpRxBuffer::UpdateSackList`: [s, e) goes first, merged with
    /// every remembered block it touches; beyond four, the oldest goes.
    fn remember_block(&mut self, s: u64, e: u64) {
        let n = self.recent_len;
        self.recent.copy_within(0..n, 1);
        self.recent[0] = SackBlock { start: s, end: e };
        let mut len = n + 1;
        let mut i = 1;
        while i < len {
            let (first, b) = (self.recent[0], self.recent[i]);
            let merged = if first.start == b.end {
                Some(SackBlock {
                    start: b.start,
                    end: first.end,
                })
            } else if first.end == b.start {
                Some(SackBlock {
                    start: first.start,
                    end: b.end,
                })
            } else {
                None
            };
            match merged {
                Some(m) => {
                    self.recent.copy_within(i + 1..len, i);
                    len -= 1;
                    self.recent[0] = m;
                    i = 1;
                }
                None => i += 1,
            }
        }
        self.recent_len = len.min(RECENT_CAPACITY);
    }

    /// ns-3 `TcpRxBuffer::ClearSackList`: blocks wholly below `seq` go.
    fn forget_blocks_below(&mut self, seq: u64) {
        let mut kept = 0;
        for i in 0..self.recent_len {
            if self.recent[i].end > seq {
                self.recent[kept] = self.recent[i];
                kept += 1;
            }
        }
        self.recent_len = kept;
    }

    fn insert(&mut self, start: u64, end: u64) {
        let mut s = start;
        let mut e = end;
        let mut i = 0;
        while i < self.ooo.len() {
            let b = self.ooo[i];
            if b.end < s {
                i += 1;
                continue;
            }
            if b.start > e {
                break;
            }
            self.duplicate_bytes += b.end.min(e).saturating_sub(b.start.max(s));
            s = s.min(b.start);
            e = e.max(b.end);
            self.ooo.remove(i);
        }
        self.ooo.insert(i, SackBlock { start: s, end: e });
        self.last_block_start = Some(s);
    }

    /// The window the next ACK advertises, bytes.
    pub fn window(&self) -> u64 {
        if !self.config.ooo_shrinks_window {
            return self.config.rwnd_bytes;
        }
        let held: u64 = self.ooo.iter().map(|b| b.end - b.start).sum();
        let free = self.config.rwnd_bytes.saturating_sub(held);
        // RFC 9293 §3.8.6: the right edge stays where an earlier ACK put it
        // while the free space is smaller than the window that leaves.
        free.max(self.right_edge.saturating_sub(self.rcv_nxt))
    }

    /// Writes the cumulative ACK, window and SACK blocks of the next ACK
    /// (RFC 2018 §4: the first block holds the most recent segment).
    pub fn fill_ack(&self, hdr: &mut TcpHeader) {
        hdr.ack = self.rcv_nxt;
        hdr.rwnd = self.window();
        if self.config.sack_blocks == SackBlocks::Recent {
            let n = self.recent_len.min(MAX_SACK_BLOCKS);
            hdr.sack[..n].copy_from_slice(&self.recent[..n]);
            hdr.n_sack = n as u8;
            return;
        }
        let mut n = 0;
        if let Some(first) = self
            .last_block_start
            .and_then(|s| self.ooo.iter().find(|b| b.start == s))
        {
            hdr.sack[0] = *first;
            n = 1;
        }
        for b in self.ooo.iter().rev() {
            if n >= MAX_SACK_BLOCKS {
                break;
            }
            if n > 0 && hdr.sack[0] == *b {
                continue;
            }
            hdr.sack[n] = *b;
            n += 1;
        }
        hdr.n_sack = n as u8;
    }

    /// An ACK was sent: remember the right edge it advertised, reset the
    /// counters and invalidate the armed timer.
    pub fn on_ack_sent(&mut self) {
        self.use_quick_ack();
        self.right_edge = self.right_edge.max(self.rcv_nxt.saturating_add(self.window()));
        self.unacked_segments = 0;
        self.timer.stop();
        self.rcv_nxt_acked = self.rcv_nxt;
        self.compressed = 0;
    }

    /// The next segment [`Self::on_segment`] takes carries PSH.
    pub fn note_push(&mut self) {
        self.pushed = true;
    }

    /// An ACK is about to acknowledge the data received since the last one
    /// (`tcp_event_ack_sent` → `tcp_dec_quickack_mode`): one quick ACK used.
    fn use_quick_ack(&mut self) {
        if self.unacked_segments > 0 {
            self.quick = self.quick.saturating_sub(1);
        }
    }

    /// An event of the delayed-ACK timer fired at `now`: whether to ACK
    /// now, and a time to schedule the timer's next event at (when the
    /// deadline moved later than the event that fired).
    pub fn on_delack_timer(&mut self, now: SimTime) -> (bool, Option<SimTime>) {
        self.timer.on_event(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 100;

    fn receiver(sack_blocks: SackBlocks) -> TcpReceiver {
        let mut r = TcpReceiver::new(ReceiverConfig {
            delayed_ack: false,
            sack_blocks,
            ..ReceiverConfig::default()
        });
        r.on_syn();
        r
    }

    /// Segment k holds [1 + 100k, 1 + 100(k + 1)).
    fn arrive(r: &mut TcpReceiver, k: u64) {
        r.on_segment(SimTime::ZERO, 1 + k * MSS, MSS as u32, false);
    }

    fn blocks(r: &TcpReceiver) -> Vec<(u64, u64)> {
        let mut hdr = TcpHeader::default();
        r.fill_ack(&mut hdr);
        hdr.sacks()
            .iter()
            .map(|b| ((b.start - 1) / MSS, (b.end - 1) / MSS))
            .collect()
    }

    /// The cumulative ACK and window of the next ACK, which is then sent.
    fn ack(r: &mut TcpReceiver) -> (u64, u64) {
        let mut hdr = TcpHeader::default();
        r.fill_ack(&mut hdr);
        r.on_ack_sent();
        (hdr.ack, hdr.rwnd)
    }

    /// The window's `rcv_ssthresh` under a data level's clamp: it starts at
    /// the subflow's first window, grows by the step with every segment from
    /// the first, and stops at the clamp; once data has arrived, a later
    /// start changes nothing.
    #[test]
    fn the_window_threshold_starts_at_the_first_window_and_grows_to_the_clamp() {
        let mut r = TcpReceiver::new(ReceiverConfig::default());
        r.on_syn();
        r.start_window_ssthresh(64_240, 2_896);
        r.set_window_clamp(79_474);
        assert_eq!(r.window_ssthresh(), 64_240);
        for k in 0..3 {
            arrive(&mut r, k);
        }
        assert_eq!(r.window_ssthresh(), 64_240 + 3 * 2_896);
        for k in 3..10 {
            arrive(&mut r, k);
        }
        assert_eq!(r.window_ssthresh(), 79_474);
        r.start_window_ssthresh(1_000, 1);
        assert_eq!(r.window_ssthresh(), 79_474);
        // A lower clamp lowers it (`tcp_set_window_clamp`).
        r.set_window_clamp(70_000);
        assert_eq!(r.window_ssthresh(), 70_000);
    }

    #[test]
    fn while_the_window_opens_every_segment_is_acknowledged_at_once() {
        // Full segments of 1448 bytes: Linux's rcv_ssthresh grows by two a
        // segment from 65 535 to the clamp of 3 MiB, so for the first
        // ceil((3 MiB − 65 535) / 2 896) = 1 064 segments each one is
        // acknowledged at once; then every second one, as delayed ACKs go.
        let decisions = |growth: bool| {
            let mut r = TcpReceiver::new(ReceiverConfig {
                quickack_window_growth: growth,
                mss: 1448,
                ..ReceiverConfig::default()
            });
            r.on_syn();
            (0..1200u64)
                .map(|k| {
                    let now = SimTime(k * 1_000_000);
                    let d = r.on_segment(now, 1 + k * 1448, 1448, false);
                    if d == RxDecision::AckNow {
                        r.on_ack_sent();
                    }
                    d == RxDecision::AckNow
                })
                .collect::<Vec<bool>>()
        };
        let grows = decisions(true);
        let expected = ((3u64 << 20) - 65_535).div_ceil(2 * 1448) as usize;
        assert_eq!(expected, 1064);
        assert!(grows[..expected].iter().all(|&now| now));
        assert_eq!(
            grows[expected..].iter().filter(|&&now| now).count(),
            (1200 - expected) / 2
        );
        // Without it, every second segment once the receiver has left its
        // (here zero) quick-ACK start.
        let delayed = decisions(false);
        assert_eq!(delayed.iter().filter(|&&now| now).count(), 600);
    }

    /// A TCP receiver whose `rcv_ssthresh` its autotuned buffer bounds
    /// (`tcp_grow_window`, `tcp_incr_quickack`, `tcp_dec_quickack_mode`):
    /// from the first window of 64 240 bytes to the first buffer's bound of
    /// 80 480 ((131 072 − 2 304) · 160 / 256) the threshold grows in
    /// ceil(16 240 / 2 896) = 6 segments, each setting the count's lowest
    /// bit over the 16 the first segment gave; so 6 + 16 = 22 segments are
    /// acknowledged one by one (the rig's captures), then every second one,
    /// until a grown buffer raises the bound and the threshold grows again.
    /// A receiver of 1 448-byte segments whose quick ACKs follow Linux's
    /// count, its `rcv_ssthresh` from 64 240 bytes up to `cap`; and its next
    /// full segment, one a millisecond, with PSH if `push`: whether it was
    /// acknowledged at once.
    fn counted_receiver(cap: u64) -> (TcpReceiver, impl FnMut(&mut TcpReceiver, bool) -> bool) {
        let mut r = TcpReceiver::new(ReceiverConfig {
            quickack_window_growth: true,
            quickack_segments: 16,
            mss: 1448,
            ..ReceiverConfig::default()
        });
        r.on_syn();
        r.bound_rcv_ssthresh(64_240, cap);
        let mut k = 0u64;
        let next = move |r: &mut TcpReceiver, push: bool| {
            if push {
                r.note_push();
            }
            let d = r.on_segment(SimTime(k * 1_000_000), 1 + k * 1448, 1448, false);
            k += 1;
            if d == RxDecision::AckNow {
                r.on_ack_sent();
            }
            d == RxDecision::AckNow
        };
        (r, next)
    }

    #[test]
    fn the_quick_acks_end_16_segments_after_the_buffers_bound() {
        let (mut r, mut segment) = counted_receiver(80_480);
        let mut next = |r: &mut TcpReceiver| segment(r, false);
        let first: Vec<bool> = (0..40).map(|_| next(&mut r)).collect();
        assert!(first[..22].iter().all(|&now| now));
        // Segments 23, 25, … wait for the next; 24, 26, … are answered with it.
        let rest: Vec<bool> = first[22..].to_vec();
        assert_eq!(rest, (0..18).map(|i| i % 2 == 1).collect::<Vec<_>>());
        // The buffer grew, its bound by three steps: with the count at 0, each
        // segment that raises the threshold sets the bit and is answered at
        // once (three), then every second one again.
        r.set_rcv_ssthresh_cap(80_480 + 3 * 2_896);
        let grown: Vec<bool> = (0..8).map(|_| next(&mut r)).collect();
        assert_eq!(grown, [true, true, true, false, true, false, true, false]);
        // A duplicate segment re-enters quick-ACK mode for 16 ACKs
        // (`tcp_enter_quickack_mode`), its own the first.
        let d = r.on_segment(SimTime(100_000_000), 1, 1448, false);
        assert_eq!(d, RxDecision::AckNow);
        r.on_ack_sent();
        let after: Vec<bool> = (0..17).map(|_| next(&mut r)).collect();
        assert!(after[..15].iter().all(|&now| now));
        assert!(!after[15]);
    }

    /// Linux `tcp_measure_rcv_mss` and `tcp_cleanup_rbuf`: once the quick
    /// ACKs are spent, a full segment with PSH is acknowledged when the
    /// application has read it, at once here, where one without waits for
    /// the next.
    #[test]
    fn a_full_segment_with_psh_is_acknowledged_once_read() {
        let (mut r, mut next) = counted_receiver(64_240);
        // The 16 quick ACKs of the first data, then every second segment.
        assert!((0..16).all(|_| next(&mut r, false)));
        assert_eq!([next(&mut r, false), next(&mut r, false)], [false, true]);
        assert_eq!(
            [next(&mut r, true), next(&mut r, false), next(&mut r, true)],
            [true, false, true]
        );
        // Without the count's rule (no bound on `rcv_ssthresh`) PSH changes nothing.
        let mut plain = TcpReceiver::new(ReceiverConfig {
            quickack_segments: 0,
            mss: 1448,
            ..ReceiverConfig::default()
        });
        plain.on_syn();
        plain.note_push();
        assert_ne!(plain.on_segment(SimTime::ZERO, 1, 1448, false), RxDecision::AckNow);
    }

    /// RFC 9293 §3.8.6, Linux `tcp_select_window`: data held out of order
    /// takes buffer space, but the window's right edge never moves left, so
    /// the duplicate ACKs of a loss all repeat the window before them (what
    /// a trace analysis requires of a duplicate ACK).
    #[test]
    fn out_of_order_data_never_pulls_the_right_edge_back() {
        let mut r = TcpReceiver::new(ReceiverConfig {
            delayed_ack: false,
            rwnd_bytes: 1000,
            ..ReceiverConfig::default()
        });
        r.on_syn();
        arrive(&mut r, 0);
        assert_eq!(ack(&mut r), (101, 1000));
        // Segment 1 is lost; 2, 3 and 4 leave 700 bytes free.
        for k in [2, 3, 4] {
            arrive(&mut r, k);
            assert_eq!(ack(&mut r), (101, 1000));
        }
        // The hole fills: the buffer is free again, the edge moves right.
        arrive(&mut r, 1);
        assert_eq!(ack(&mut r), (501, 1000));
    }

    /// ns-3 `TcpRxBuffer`: the newest range first, merged with the blocks it
    /// touches; five separate ranges push the oldest off the list for good,
    /// so a range next to it is reported without it.
    #[test]
    fn the_recent_list_forgets_its_fifth_block_as_ns3_does() {
        let mut r = receiver(SackBlocks::Recent);
        for k in [2, 4, 6, 8, 10] {
            arrive(&mut r, k);
        }
        assert_eq!(blocks(&r), [(10, 11), (8, 9), (6, 7)]);
        // 3 joins 2 and 4, but 2 is forgotten: reported as 3–5 only.
        arrive(&mut r, 3);
        assert_eq!(blocks(&r), [(3, 5), (10, 11), (8, 9)]);
        // The highest-first list remembers everything it holds.
        let mut h = receiver(SackBlocks::Highest);
        for k in [2, 4, 6, 8, 10, 3] {
            arrive(&mut h, k);
        }
        assert_eq!(blocks(&h), [(2, 5), (10, 11), (8, 9)]);
        // The cumulative ACK passing blocks removes them from the list.
        arrive(&mut r, 0);
        arrive(&mut r, 1);
        assert_eq!(blocks(&r), [(10, 11), (8, 9), (6, 7)]);
    }

    #[test]
    fn with_sack_compression_only_the_first_three_duplicate_acks_go_at_once() {
        let run = |compression: bool, rtt_ms: Option<u64>| {
            let mut r = TcpReceiver::new(ReceiverConfig {
                sack_compression: compression,
                mss: MSS as u32,
                ..ReceiverConfig::default()
            });
            r.on_syn();
            r.on_ack_sent();
            if let Some(ms) = rtt_ms {
                // Two samples; the smaller counts.
                r.observe_echo(SimTime::from_millis(1 + ms), SimTime::from_millis(1));
                r.observe_echo(SimTime::from_millis(3 + 2 * ms), SimTime::from_millis(3));
            }
            let mut out = vec![];
            // Segment 0 in order, then 2..=7 with segment 1 missing, 0.6 ms apart.
            for (i, k) in [0u64, 2, 3, 4, 5, 6, 7].into_iter().enumerate() {
                let now = SimTime(600_000 * i as u64);
                let d = r.on_segment(now, 1 + k * MSS, MSS as u32, false);
                if d == RxDecision::AckNow {
                    r.on_ack_sent();
                }
                out.push(d);
            }
            out
        };
        let now = |i: u64| SimTime(600_000 * i);
        let on = run(true, None);
        // Segment 0 waits for the delayed ACK (40 ms); 2, 3 and 4 are the three
        // duplicate ACKs; 5 holds its SACK back for 1 ms, and 6 and 7 join it.
        assert!(matches!(on[0], RxDecision::ArmDelayedAck { .. }));
        assert_eq!(&on[1..4], &[RxDecision::AckNow; 3]);
        assert_eq!(
            on[4],
            RxDecision::ArmDelayedAck {
                at: now(4) + COMP_SACK_DELAY
            }
        );
        assert_eq!(&on[5..], &[RxDecision::Nothing; 2]);
        // A round trip of 10 ms: the SACK waits RTT/20 = 0.5 ms.
        let short = run(true, Some(10));
        assert_eq!(
            short[4],
            RxDecision::ArmDelayedAck {
                at: now(4) + SimDuration::from_micros(500)
            }
        );
        // Without compression every out-of-order segment is acknowledged at once.
        assert_eq!(&run(false, None)[1..], &[RxDecision::AckNow; 6]);
    }
}
