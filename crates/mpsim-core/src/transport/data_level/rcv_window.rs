//! Linux 6.18's connection-level receive window for MPTCP (the `linux`
//! profile's `tcp.mptcp_rcv_window = "linux"`): the receive buffer the
//! connection's window is taken from, and how it grows.
//!
//! * **The buffer** (`sk_rcvbuf` of the MPTCP socket) starts at
//!   `tcp_rmem[1]` (128 KiB) and offers the window `rcvbuf · ratio / 256`
//!   (`tcp_win_from_space`, `__mptcp_space`), where the connection's ratio
//!   (`msk->scaling_ratio`) is `TCP_DEFAULT_SCALING_RATIO` until the
//!   application's first read and then the smallest of its subflows'
//!   (`mptcp_rcv_space_adjust`, at the first read and then once per
//!   receiver RTT, measured from when the connection was established at the
//!   receiver: `rcvq_space.time`). A subflow's ratio is payload over the memory a segment
//!   takes, measured by `tcp_measure_rcv_mss` as `len · 256 / truesize` at
//!   its first segment larger than `TCP_MSS_DEFAULT`; until then it is
//!   `TCP_DEFAULT_SCALING_RATIO`, half. So a subflow that has joined (from
//!   its SYN when the receiver opens it, `__mptcp_subflow_connect`; from
//!   the third ACK when the sender does, `mptcp_finish_join`) and carried
//!   no data yet holds the connection's window at half its buffer.
//! * **Its growth** (`mptcp_rcv_space_adjust` → `mptcp_rcvbuf_grow` in
//!   `net/mptcp/protocol.c`): once per receiver RTT (the largest of the
//!   subflows' estimates, `rcv_rtt_est`, from the timestamps their data
//!   echoes, `tcp_rcv_rtt_measure_ts`), if the application read `c` bytes
//!   in that RTT and `c` exceeds the previous measure `o` (first
//!   10 · advmss, `mptcp_rcv_space_init`), the buffer becomes the space of
//!   the window `2c + 4c(c − o)/o`, capped at `tcp_rmem[2]` (32 MiB), and
//!   never shrinks; `o` becomes `c`.
//! * **What a subflow offers** (`__tcp_select_window` for a subflow, then
//!   `mptcp_set_rwin`): the buffer's window less what the connection holds
//!   out of order and what waits unread, at most the subflow's own
//!   `rcv_ssthresh` (from the subflow's first window, growing two segments
//!   a data segment up to its `window_clamp`, its own buffer's window at the
//!   measured ratio, less the segment being answered; the subflow's buffer
//!   grows when the connection's does, by the same rule against its own last
//!   measure and at its own ratio, once it is established), rounded up to
//!   the window scale's unit (1024 bytes: `tcp_rmem[2]` of 32 MiB gives a
//!   scale of 10); a window below half the buffer's is rounded down, and
//!   is zero below a sixteenth of it or one segment. The connection's right
//!   edge (DATA_ACK + window) never moves left: a subflow offering less
//!   advertises the largest edge any subflow has.
//!
//! The receiver's RTT estimate (`rcv_rtt_est`, `tcp_rcv_rtt_measure_ts`) is
//! the difference of two ticks of its millisecond timestamp clock
//! (`TCP_TS_HZ`): the echoed TSval and its clock now; the clock's phase is
//! drawn per connection from the run's seed.
//!
//! The application reads whatever arrives in order as soon as the segment
//! that completed it has been answered (the rig's receiver reads within
//! 0.1 ms; Linux's softirq sends the ACK before the reader it woke runs), so
//! the ACK of a segment counts that segment as buffer space taken.

use crate::time::{SimDuration, SimTime};

/// `tcp_rmem[1]`: the buffer every socket starts with, bytes.
const RMEM_DEFAULT_BYTES: u64 = 131_072;
/// `tcp_rmem[2]` in Linux 6.18 on a host with 4 GiB or more free:
/// `min(32 MiB, free memory / 128)`, bytes.
const RMEM_MAX_BYTES: u64 = 32 << 20;
/// Memory one full-size segment takes in the receive queue (`skb->truesize`),
/// bytes: the value that gives the ratio the kernel measured on the
/// validation rig (veth, 1 514-byte frames), 158/256 with 1 424-byte MPTCP
/// segments. Its captures answer the segments of a first round, once the
/// first read has taken the measured ratio, with a plateau of 79 872 bytes:
/// the 131 072-byte buffer's 80 896 less the segment just queued and not
/// read yet, rounded up to the scale's unit.
pub const SEGMENT_TRUESIZE_BYTES: u64 = 2_304;
/// The window scale's unit: a scale of 10 (`tcp_select_initial_window`
/// with `tcp_rmem[2]` of 32 MiB); Linux rounds windows up to it.
const WINDOW_UNIT_BYTES: u64 = 1 << 10;
/// `TCP_INIT_CWND`: the first measure is this many `advmss`.
const INIT_CWND_SEGMENTS: u64 = 10;
/// `TCP_DEFAULT_SCALING_RATIO`: a subflow's ratio before it has measured one.
const DEFAULT_RATIO: u64 = 128;
/// The timestamps option with its padding (`TCPOLEN_TSTAMP_ALIGNED`).
const TIMESTAMPS_OPTION_BYTES: u64 = 12;
/// `TCP_MSS_DEFAULT`: the first `rcv_mss`; a segment longer than this
/// measures the subflow's ratio (`tcp_measure_rcv_mss`).
const MSS_DEFAULT_BYTES: u32 = 536;

/// One subflow at the receiver: its RTT estimate (`rcv_rtt_est`) and
/// whether it has measured its ratio.
#[derive(Clone, Copy, Debug)]
struct RcvSubflow {
    /// The subflow (its sender's port).
    sport: u16,
    /// TSecr of the last segment sampled: one sample per echoed value.
    last_ecr: SimTime,
    estimate: SimDuration,
    /// A segment longer than `TCP_MSS_DEFAULT` has arrived on it.
    measured: bool,
    /// Its `rcvq_space.space`: 0 until the subflow is established
    /// (`tcp_init_transfer` → `tcp_init_buffer_space`: ten `advmss`), then
    /// what the connection read in the measure that last grew the
    /// connection's buffer (`tcp_rcvbuf_grow`). A subflow at 0 does not
    /// follow the connection's growth ("subflows can be added before
    /// tcp_init_transfer()").
    space: u64,
    /// Its `sk_rcvbuf`, bytes of memory: its `window_clamp` is this
    /// buffer's window at its ratio.
    rcvbuf: u64,
}

impl RcvSubflow {
    /// The subflow's `scaling_ratio`: measured at its first full segment,
    /// `TCP_DEFAULT_SCALING_RATIO` before.
    fn ratio(&self, segment_ratio: u64) -> u64 {
        if self.measured {
            segment_ratio
        } else {
            DEFAULT_RATIO.min(segment_ratio)
        }
    }
}

/// The autotuned receive buffer of an MPTCP connection.
#[derive(Clone, Debug)]
pub struct LinuxRcvWindow {
    /// `sk_rcvbuf`, bytes of memory.
    rcvbuf: u64,
    /// The connection's `scaling_ratio`: window bytes per 256 bytes of buffer.
    ratio: u64,
    /// A subflow's measured ratio (every subflow's segments are alike).
    segment_ratio: u64,
    /// `rcvq_space.rtt_us`: the receiver RTT the last measure used.
    measure_rtt: SimDuration,
    /// The segment size, bytes.
    mss: u64,
    /// The MSS the subflows announce (`advmss`), bytes.
    advmss: u64,
    /// `rcvq_space.space`: what the application read in the last measured RTT.
    space: u64,
    /// `rcvq_space.copied`: read since `since`.
    copied: u64,
    /// `rcvq_space.time`: when the current measure began (`None`: not yet
    /// connected at the receiver; then the first data begins it).
    since: Option<SimTime>,
    subflows: Vec<RcvSubflow>,
    /// Bytes arrived in order and not read yet.
    unread: u64,
    /// How far the receiver's millisecond timestamp clock is into its
    /// current tick at time zero, nanoseconds.
    clock_phase_ns: u64,
}

impl LinuxRcvWindow {
    /// A connection whose data segments carry `mss` payload bytes and whose
    /// subflows announce `advmss` (the MSS option: payload plus the
    /// timestamps and DSS options).
    pub fn new(mss: u32, advmss: u32) -> Self {
        let mss = mss as u64;
        let segment_ratio = (mss * 256 / SEGMENT_TRUESIZE_BYTES).max(1);
        LinuxRcvWindow {
            rcvbuf: RMEM_DEFAULT_BYTES,
            // `msk->scaling_ratio` starts at the new subflow's ratio
            // (`__mptcp_socket_create`) or at the default
            // (`mptcp_sk_clone_init`), both `TCP_DEFAULT_SCALING_RATIO`, and
            // changes only at a read (`mptcp_rcv_space_adjust`): the first
            // data segment's ACK offers half the buffer.
            ratio: DEFAULT_RATIO.min(segment_ratio),
            segment_ratio,
            measure_rtt: SimDuration::ZERO,
            mss,
            advmss: advmss as u64,
            // `mptcp_rcv_space_init`: ten of the first subflow's `advmss`.
            // A receiver the sender connected to takes it in
            // `mptcp_sk_clone_init`, before the handshake's ACK has taken the
            // timestamps option off `advmss`; one that connected takes it
            // after (`on_connected`).
            space: INIT_CWND_SEGMENTS * advmss as u64,
            copied: 0,
            since: None,
            subflows: Vec::new(),
            unread: 0,
            clock_phase_ns: 0,
        }
    }

    /// Subflow `sport`'s `window_clamp` (`tcp_win_from_space` of its buffer
    /// at the measured ratio), bytes: what its `rcv_ssthresh` grows to.
    pub fn window_clamp(&self, sport: u16) -> u64 {
        (self.subflow_rcvbuf(sport) * self.segment_ratio) >> 8
    }

    /// Subflow `sport`'s buffer, bytes of memory (the default for a subflow
    /// not listed yet).
    fn subflow_rcvbuf(&self, sport: u16) -> u64 {
        self.subflows
            .iter()
            .find(|r| r.sport == sport)
            .map_or(RMEM_DEFAULT_BYTES, |r| r.rcvbuf)
    }

    /// A subflow's first `rcv_ssthresh` and what each data segment adds to
    /// it, bytes. `tcp_select_initial_window` makes the first window the
    /// default buffer's at the default ratio (64 KiB) rounded down to whole
    /// segments of the MSS the end knows then: its `advmss` when it `opened`
    /// the subflow (`tcp_connect_init`: no timestamp seen yet; 64 240 bytes
    /// on the rig, its SYN's window), less the timestamps when it answered a
    /// SYN that carried them (`tcp_openreq_init_rwin`: 65 160 bytes, its
    /// SYN-ACK's). The connections this window serves carry timestamps (the
    /// `linux` profile's), which `advmss` already counts. `tcp_grow_window` adds two segments of payload and
    /// timestamps (2 · 1 448 bytes), as the rig's captures step the window
    /// (upload: 74 752, 76 800 and 79 872 bytes at the third to fifth ACK).
    pub fn first_rcv_ssthresh(&self, opened: bool) -> (u64, u64) {
        let with_timestamps = self.advmss - TIMESTAMPS_OPTION_BYTES;
        let mss = if opened { self.advmss } else { with_timestamps };
        let space = (RMEM_DEFAULT_BYTES * DEFAULT_RATIO) >> 8;
        // Rounded down only when a segment fits (`if (space > mss)`).
        let first = if space > mss { space / mss * mss } else { space };
        (first, 2 * with_timestamps)
    }

    /// Where a subflow's `rcv_ssthresh` stops growing, bytes:
    /// `tcp_grow_window` grows it up to the smaller of the subflow's
    /// `window_clamp` and its own free space (`tcp_space`), which the segment
    /// being answered still takes (the subflow queues it before it grows the
    /// window and hands it to the connection after). So the window a grown
    /// buffer offers starts from one segment below the clamp (the rig's
    /// captures: 82 944 bytes at the first ACK past the 131 072-byte
    /// buffer's, 79 474 + 2 · 1 448 rounded up, not 83 968).
    pub fn rcv_ssthresh_cap(&self, sport: u16) -> u64 {
        self.cap_of(self.subflow_rcvbuf(sport))
    }

    /// [`Self::rcv_ssthresh_cap`] of a subflow whose buffer is `rcvbuf`.
    fn cap_of(&self, rcvbuf: u64) -> u64 {
        (rcvbuf.saturating_sub(SEGMENT_TRUESIZE_BYTES) * self.segment_ratio) >> 8
    }

    /// A subflow's first measure (`tcp_init_buffer_space`): ten `advmss`,
    /// the timestamps option taken off. The connection's first measure at a
    /// receiver that connected is the same (`on_connected`).
    fn first_subflow_space(&self) -> u64 {
        INIT_CWND_SEGMENTS * (self.advmss - TIMESTAMPS_OPTION_BYTES)
    }

    /// The window the connection's whole buffer offers (`mptcp_space`'s
    /// `full_space`), bytes.
    fn allowed(&self) -> u64 {
        (self.rcvbuf * self.ratio) >> 8
    }

    /// The phase of the receiver's timestamp clock: at time zero it is
    /// `phase_ns` (below a millisecond) into a tick. Linux's TCP timestamps
    /// count milliseconds (`TCP_TS_HZ`) from a point unrelated to the run's
    /// events.
    pub fn set_clock_phase(&mut self, phase_ns: u64) {
        self.clock_phase_ns = phase_ns % 1_000_000;
    }

    /// Subflow `sport` has joined the connection at the receiver; it has
    /// measured no ratio until its first data.
    pub fn add_subflow(&mut self, sport: u16) {
        self.subflow(sport);
    }

    /// Subflow `sport` is established at the receiver (`tcp_init_transfer`):
    /// its measure starts at `tcp_init_buffer_space`'s min(rcv_ssthresh,
    /// rcv_wnd, ten `advmss`), ten `advmss` here.
    pub fn subflow_established(&mut self, sport: u16) {
        self.established(sport);
    }

    /// The entry of subflow `sport`, established if it was not yet.
    fn established(&mut self, sport: u16) -> &mut RcvSubflow {
        let space = self.first_subflow_space();
        let r = self.subflow(sport);
        if r.space == 0 {
            r.space = space;
        }
        r
    }

    /// Subflow `sport` has left the connection (`mptcp_close_ssk`): its ratio
    /// and RTT no longer count.
    pub fn remove_subflow(&mut self, sport: u16) {
        self.subflows.retain(|r| r.sport != sport);
    }

    /// The entry of subflow `sport`, made if new.
    fn subflow(&mut self, sport: u16) -> &mut RcvSubflow {
        let i = match self.subflows.iter().position(|r| r.sport == sport) {
            Some(i) => i,
            None => {
                self.subflows.push(RcvSubflow {
                    sport,
                    last_ecr: SimTime::ZERO,
                    estimate: SimDuration::ZERO,
                    measured: false,
                    space: 0,
                    rcvbuf: RMEM_DEFAULT_BYTES,
                });
                self.subflows.len() - 1
            }
        };
        &mut self.subflows[i]
    }

    /// The connection is established at its receiver at `now`: the first
    /// measure begins (`rcvq_space.time`, set by `mptcp_finish_connect` when
    /// the receiver opened the connection and its SYN-ACK arrives, by
    /// `mptcp_sk_clone_init` when the sender opened it and its handshake ACK
    /// arrives). So the receiver that connected judges its first read
    /// against a measure begun one RTT before the data.
    pub fn on_connected(&mut self, now: SimTime, opened: bool) {
        if self.since.is_none() {
            self.since = Some(now);
        }
        if opened {
            // `__mptcp_sync_state` after `tcp_finish_connect` has taken the
            // timestamps option off `advmss`.
            self.space = self.first_subflow_space();
        }
    }

    /// The buffer, bytes of memory.
    pub fn rcvbuf(&self) -> u64 {
        self.rcvbuf
    }

    /// A data segment of `len` bytes arrived at `now` on the subflow whose
    /// sender's port is `sport`, echoing `ts_ecr`; `read` bytes with it are
    /// now in order, waiting for the application. Samples the subflow's RTT
    /// (`tcp_rcv_rtt_measure_ts`: a full-size segment with a new echo) and
    /// marks its ratio measured (`tcp_measure_rcv_mss`). The bytes take
    /// buffer space until [`Self::read_pending`]: Linux's softirq queues the
    /// segment and sends its ACK (or arms the delayed ACK), and the reader
    /// it woke runs after. Returns the subflow's
    /// [`Self::rcv_ssthresh_cap`], which its segment cannot move (only a
    /// read grows a buffer).
    pub fn on_data(&mut self, now: SimTime, sport: u16, ts_ecr: SimTime, len: u32, read: u64) -> u64 {
        if self.since.is_none() {
            self.since = Some(now);
        }
        let mss = self.mss;
        let phase = self.clock_phase_ns;
        // A subflow whose handshake's last ACK was lost is established by its
        // first data.
        let r = self.established(sport);
        // `tcp_measure_rcv_mss`: a segment longer than the first `rcv_mss`.
        if len > MSS_DEFAULT_BYTES {
            r.measured = true;
        }
        // `tcp_rcv_rtt_measure_ts`: each echoed value once, whatever the
        // segment's length; then a full segment gives a sample.
        if ts_ecr > SimTime::ZERO && ts_ecr != r.last_ecr {
            r.last_ecr = ts_ecr;
            // `tcp_rtt_tsopt_us`: the difference of two ticks of the
            // receiver's millisecond timestamp clock (`TCP_TS_HZ`).
            let tick = |t: SimTime| (t.nanos() + phase) / 1_000_000;
            let sample = SimDuration(tick(now).saturating_sub(tick(ts_ecr)) * 1_000_000);
            if len as u64 >= mss && sample > SimDuration::ZERO {
                // `tcp_rcv_rtt_update`: a smaller sample is taken as it is,
                // a larger one with a gain of 1/8.
                r.estimate = if r.estimate == SimDuration::ZERO || sample < r.estimate {
                    sample
                } else {
                    SimDuration(r.estimate.0 - r.estimate.0 / 8 + sample.0 / 8)
                };
            }
        }
        let rcvbuf = r.rcvbuf;
        self.unread += read;
        self.cap_of(rcvbuf)
    }

    /// The application reads what is waiting; returns whether there was
    /// anything to read.
    pub fn read_pending(&mut self, now: SimTime) -> bool {
        let n = std::mem::take(&mut self.unread);
        self.read(now, n);
        n > 0
    }

    /// The application reads `read` bytes at `now` (`mptcp_recvmsg` →
    /// `mptcp_rcv_space_adjust`): once a receiver RTT has passed it takes
    /// the subflows' ratio and grows the buffer.
    fn read(&mut self, now: SimTime, read: u64) {
        if read == 0 {
            return;
        }
        self.copied += read;
        let since = self.since.unwrap_or(now);
        let elapsed = now.saturating_since(since);
        // `mptcp_rcv_space_adjust`: within the last measure's RTT nothing
        // changes; past it the connection takes its subflows' largest RTT and
        // smallest ratio.
        if self.measure_rtt > SimDuration::ZERO && elapsed < self.measure_rtt {
            return;
        }
        let rtt = self
            .subflows
            .iter()
            .map(|r| r.estimate)
            .max()
            .unwrap_or(SimDuration::ZERO);
        self.measure_rtt = rtt;
        let segment_ratio = self.segment_ratio;
        self.ratio = self
            .subflows
            .iter()
            .map(|r| r.ratio(segment_ratio))
            .min()
            .unwrap_or(segment_ratio);
        if rtt == SimDuration::ZERO || elapsed < rtt {
            return;
        }
        if self.copied > self.space {
            self.grow(self.copied);
        }
        self.copied = 0;
        self.since = Some(now);
    }

    /// `mptcp_rcvbuf_grow`: the buffer for a window of twice what was read,
    /// plus four times its growth over the last measure. When it grows,
    /// every subflow follows (`tcp_rcvbuf_grow`) with the same rule against
    /// its own last measure (ten `advmss` for a subflow that has not
    /// followed yet) and at its own ratio, so a subflow that joined late, or
    /// has carried no data, gets a larger buffer than the connection's.
    fn grow(&mut self, copied: u64) {
        let rcvwin = |old: u64| {
            let old = old.max(1);
            2 * copied + 4 * copied * copied.saturating_sub(old) / old
        };
        let win = rcvwin(self.space);
        self.space = copied;
        let rcvbuf = (win * 256 / self.ratio).min(RMEM_MAX_BYTES);
        if rcvbuf > self.rcvbuf {
            self.rcvbuf = rcvbuf;
            // "Make subflows follow along."
            let segment_ratio = self.segment_ratio;
            for r in self.subflows.iter_mut().filter(|r| r.space > 0) {
                let win = rcvwin(r.space);
                r.space = copied;
                let buf = (win * 256 / r.ratio(segment_ratio)).min(RMEM_MAX_BYTES);
                r.rcvbuf = r.rcvbuf.max(buf);
            }
        }
    }

    /// The window a subflow whose `rcv_ssthresh` is `rcv_ssthresh` computes
    /// while `held` bytes wait out of order and the bytes arrived in order
    /// wait unread (`__tcp_select_window`), before the connection's right
    /// edge is applied.
    pub fn offer(&self, sport: u16, held: u64, rcv_ssthresh: u64) -> u64 {
        let allowed = self.allowed();
        let full = allowed.min(self.window_clamp(sport));
        let mut free = allowed.saturating_sub(held + self.unread);
        if free < full / 2 {
            free -= free % WINDOW_UNIT_BYTES;
            if free < allowed / 16 || free < self.mss {
                return 0;
            }
        }
        free.min(rcv_ssthresh).div_ceil(WINDOW_UNIT_BYTES) * WINDOW_UNIT_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1424;
    const ADVMSS: u32 = 1460;

    /// A segment arrives, is answered, and the application reads it.
    fn arrive(w: &mut LinuxRcvWindow, now: SimTime, sport: u16, ts_ecr: SimTime, len: u32, read: u64) {
        let cap = w.on_data(now, sport, ts_ecr, len, read);
        assert_eq!(cap, w.rcv_ssthresh_cap(sport));
        w.read_pending(now);
    }

    /// Linux's softirq answers a segment before its reader runs: the ACK
    /// counts the segment as buffer taken (one segment's window less), and
    /// the read, with the measure it may close, comes after. Until that first
    /// read the connection's ratio is the default, half.
    #[test]
    fn the_ack_counts_the_segment_the_reader_has_not_read() {
        let mut w = LinuxRcvWindow::new(MSS, ADVMSS);
        let ms = |m: u64| SimTime(m * 1_000_000);
        w.on_data(ms(50), 7, ms(1), MSS, MSS as u64);
        assert_eq!(w.unread, MSS as u64);
        // The rig's first ACK of every capture: 65 536 − 1 424 rounded up.
        assert_eq!(w.offer(7, 0, u64::MAX), 64_512);
        assert_eq!(w.copied, 0);
        assert!(w.read_pending(ms(50)));
        assert_eq!((w.unread, w.copied), (0, MSS as u64));
        assert_eq!(w.offer(7, 0, u64::MAX), 80_896);
        // The next segment's ACK, before its read: the first round's plateau
        // in the captures, 80 896 − 1 424 rounded up to 1 024.
        w.on_data(ms(51), 7, ms(1), MSS, MSS as u64);
        assert_eq!(w.offer(7, 0, u64::MAX), 79_872);
        assert!(w.read_pending(ms(51)));
        assert!(!w.read_pending(ms(51)));
    }

    /// The rig's kernel: a ratio of 158/256 (1 424 · 256 / 2 304), so the
    /// 131 072-byte buffer offers 80 896 bytes before any growth; the
    /// subflows' `rcv_ssthresh` stops one segment short of it.
    #[test]
    fn the_first_window_is_the_default_buffers() {
        let w = LinuxRcvWindow::new(MSS, ADVMSS);
        assert_eq!((w.ratio, w.segment_ratio), (128, 158));
        assert_eq!(w.window_clamp(7), 80_896);
        assert_eq!(w.rcv_ssthresh_cap(7), (131_072 - 2_304) * 158 / 256);
        assert_eq!(w.offer(7, 0, u64::MAX), 65_536);
        // At most the subflow's rcv_ssthresh, rounded up to 1024.
        assert_eq!(w.offer(7, 0, 64_076), 64_512);
    }

    /// `tcp_select_initial_window`: 64 KiB rounded down to whole segments of
    /// 1 460 bytes at the end that connected (its SYN's window on the rig,
    /// 64 240) or of 1 448 at the end that answered (its SYN-ACK's, 65 160);
    /// each segment adds 2 · 1 448. (The windows the ACKs then offer, ACK by
    /// ACK, are checked end to end against the rig's captures in
    /// `tests/test_mptcp_window.py`.)
    #[test]
    fn the_subflows_first_rcv_ssthresh_is_their_first_window() {
        let w = LinuxRcvWindow::new(MSS, ADVMSS);
        assert_eq!(w.first_rcv_ssthresh(true), (64_240, 2_896));
        assert_eq!(w.first_rcv_ssthresh(false), (65_160, 2_896));
    }

    /// `mptcp_rcv_space_adjust`: nothing grows within the first RTT; a
    /// round that read c = 28 480 bytes after the first measure's
    /// o = 14 600 (ten `advmss` of 1 460, at a receiver the sender connected
    /// to) makes the window 2c + 4c(c − o)/o.
    #[test]
    fn the_buffer_grows_once_per_receiver_rtt_by_what_was_read() {
        let mut w = LinuxRcvWindow::new(MSS, ADVMSS);
        let ms = |m: u64| SimTime(m * 1_000_000);
        // Round 1: 9 segments at 50..54 ms echoing a timestamp of 1 ms: RTT 49 ms.
        for k in 0..9 {
            arrive(&mut w, ms(50 + k / 2), 7, ms(1), MSS, MSS as u64);
        }
        assert_eq!(w.window_clamp(7), 80_896);
        // A tenth segment an RTT on: 14 240 bytes read, not more than the first
        // measure (14 600): no growth, and a new measure begins.
        arrive(&mut w, ms(101), 7, ms(51), MSS, MSS as u64);
        assert_eq!(w.window_clamp(7), 80_896);
        assert_eq!(w.copied, 0);
        // Round 2: 20 segments (28 480 bytes) read over the next RTT.
        for k in 0..19 {
            arrive(&mut w, ms(102 + k / 4), 7, ms(52), MSS, MSS as u64);
        }
        arrive(&mut w, ms(152), 7, ms(102), MSS, MSS as u64);
        let (c, o) = (20 * MSS as u64, 10 * ADVMSS as u64);
        let rcvwin = 2 * c + 4 * c * (c - o) / o;
        assert_eq!(w.rcvbuf(), rcvwin * 256 / 158);
        // The subflow follows from its own first measure, ten `advmss` of
        // 1 448 (`tcp_init_buffer_space`).
        let sf_rcvwin = 2 * c + 4 * c * (c - 14_480) / 14_480;
        assert!(
            w.window_clamp(7).abs_diff(sf_rcvwin) < 2,
            "{} vs {sf_rcvwin}",
            w.window_clamp(7)
        );
    }

    /// "Make subflows follow along": when the connection's buffer grows,
    /// each subflow's grows by the same rule against its own last measure
    /// and at its own ratio (`tcp_rcvbuf_grow`). The rig's receiver in a
    /// 400 kB upload at 10 Mbit/s, 20 ms (`ss -tmi` every 15 ms): the
    /// connection's buffer 131 072 → 189 961 → 283 300 bytes, the first
    /// subflow's 239 965 and then unchanged, the joined subflow's, which had
    /// carried no data, 662 916. Each within a few bytes of the rule's
    /// values from 12, 19 and 27 segments read.
    #[test]
    fn subflows_follow_the_connections_buffer_from_their_own_measures() {
        let mut w = LinuxRcvWindow::new(MSS, ADVMSS);
        // The upload's server: the sender connected to it, ten `advmss` of
        // 1 460; a receiver that connected measures from ten of 1 448.
        assert_eq!(w.space, 14_600);
        let mut opener = LinuxRcvWindow::new(MSS, ADVMSS);
        opener.on_connected(SimTime::ZERO, true);
        assert_eq!(opener.space, 14_480);
        arrive(&mut w, SimTime(1_000_000), 7, SimTime::ZERO, MSS, MSS as u64);
        w.ratio = 158;
        // A measure that read 12 segments: the window it asks for is below the
        // default buffer's, so nothing grows and the subflow does not follow.
        w.grow(12 * MSS as u64);
        assert_eq!(
            (w.rcvbuf, w.subflows[0].rcvbuf, w.subflows[0].space),
            (131_072, 131_072, 14_480)
        );
        // 19 segments: the connection's window 2c + 4c(c − o)/o against o = 12
        // segments, the subflow's against its ten advmss.
        let (c, o) = (19 * MSS as u64, 12 * MSS as u64);
        w.grow(c);
        assert_eq!(w.rcvbuf, (2 * c + 4 * c * (c - o) / o) * 256 / 158);
        let sf7 = (2 * c + 4 * c * (c - 14_480) / 14_480) * 256 / 158;
        assert_eq!(w.subflows[0].rcvbuf, sf7);
        assert!(w.rcvbuf.abs_diff(189_961) < 4 && sf7.abs_diff(239_965) < 8);
        // A subflow joins and carries nothing: the connection's ratio and the
        // subflow's own are the default's.
        w.add_subflow(8);
        w.subflow_established(8);
        w.ratio = 128;
        let (c2, o2) = (27 * MSS as u64, c);
        w.grow(c2);
        assert_eq!(w.rcvbuf, (2 * c2 + 4 * c2 * (c2 - o2) / o2) * 2);
        let sf8 = (2 * c2 + 4 * c2 * (c2 - 14_480) / 14_480) * 2;
        assert_eq!((w.subflows[0].rcvbuf, w.subflows[1].rcvbuf), (sf7, sf8));
        assert!(w.rcvbuf.abs_diff(283_300) < 8 && sf8.abs_diff(662_916) < 8);
        // Its window clamp is its own buffer's, at the measured ratio.
        assert_eq!(w.window_clamp(8), (sf8 * 158) >> 8);
        assert_eq!(w.window_clamp(7), (sf7 * 158) >> 8);
        // A join listed from its SYN and not yet established does not follow.
        w.add_subflow(9);
        w.grow(60 * MSS as u64);
        assert_eq!(w.subflows[2].rcvbuf, RMEM_DEFAULT_BYTES);
        assert!(w.subflows[1].rcvbuf > sf8);
    }

    /// `__tcp_select_window`: out-of-order data takes buffer space; below
    /// half the buffer's window the offer is rounded down, and below a
    /// sixteenth it is zero.
    #[test]
    fn data_held_out_of_order_shrinks_the_offer() {
        let mut w = LinuxRcvWindow::new(MSS, ADVMSS);
        // Read once: the measured ratio, 80 896 bytes of window.
        arrive(&mut w, SimTime(1_000_000), 7, SimTime::ZERO, MSS, MSS as u64);
        assert_eq!(w.offer(7, 10_000, u64::MAX), 71_680);
        assert_eq!(w.offer(7, 50_000, u64::MAX), 30_720);
        assert_eq!(w.offer(7, 76_000, u64::MAX), 0);
    }

    /// `mptcp_rcv_space_adjust` takes the smallest of the subflows' ratios: a
    /// subflow that has joined and carried no data (`TCP_DEFAULT_SCALING_RATIO`,
    /// 128) holds the connection's window at half its 131 072-byte buffer,
    /// 65 536 bytes, from the next measure on (the rig's kernel in a 200 kB
    /// download at 5 Mbit/s, 200 ms), until its first segment measures 158.
    #[test]
    fn a_joined_subflow_without_data_halves_the_window_until_it_measures() {
        let mut w = LinuxRcvWindow::new(MSS, ADVMSS);
        let ms = |m: u64| SimTime(m * 1_000_000);
        // Round 1 on subflow 7: 8 segments, RTT 100 ms; nothing grows.
        for k in 0..8 {
            arrive(&mut w, ms(100 + k), 7, ms(1), MSS, MSS as u64);
        }
        assert_eq!(w.offer(7, 0, u64::MAX), 80_896);
        // Subflow 8 joins; the connection's ratio changes only at a measure.
        w.add_subflow(8);
        arrive(&mut w, ms(150), 7, ms(51), MSS, MSS as u64);
        assert_eq!(w.offer(7, 0, u64::MAX), 80_896);
        // The next measure (100 ms on) reads 9 segments, no more than the
        // first measure: the buffer stays, the ratio halves it.
        arrive(&mut w, ms(201), 7, ms(101), MSS, MSS as u64);
        assert_eq!(w.rcvbuf(), RMEM_DEFAULT_BYTES);
        assert_eq!(w.offer(7, 0, u64::MAX), 65_536);
        // A subflow's own clamp keeps the measured ratio.
        assert_eq!(w.window_clamp(7), 80_896);
        // Subflow 8's first segment measures its ratio: 158 again at the next measure.
        arrive(&mut w, ms(210), 8, ms(110), MSS, MSS as u64);
        assert_eq!(w.offer(7, 0, u64::MAX), 65_536);
        arrive(&mut w, ms(302), 7, ms(202), MSS, MSS as u64);
        assert_eq!(w.offer(7, 0, u64::MAX), 80_896);
        // A subflow that leaves no longer counts.
        w.add_subflow(9);
        arrive(&mut w, ms(403), 7, ms(303), MSS, MSS as u64);
        assert_eq!(w.offer(7, 0, u64::MAX), 65_536);
        w.remove_subflow(9);
        arrive(&mut w, ms(504), 7, ms(404), MSS, MSS as u64);
        assert_eq!(w.offer(7, 0, u64::MAX), 80_896);
    }

    /// `rcvq_space.time` starts when the connection is established at the
    /// receiver (`mptcp_finish_connect`, at the SYN-ACK, for a client that
    /// connected), so a download's first read is judged against a measure
    /// already one handshake RTT old, and against the RTT its echo samples
    /// in whole milliseconds. Two downloads of 700 kB at 5 Mbit/s, 200 ms on
    /// the rig's kernel: data 203.41 ms after the SYN-ACK sampled 204 ms, so
    /// the first read fell inside the measure, the second (a segment later,
    /// the join's SYN sent between them) took the new subflow's ratio and the
    /// window fell to 64 KiB within the first round; data 203.66 ms after it
    /// sampled 203 ms, a new measure began at the first read, and the window
    /// held 80 896 bytes (79 872 at each ACK) through the first round.
    #[test]
    fn the_first_measure_begins_at_the_connection() {
        let us = |u: u64| SimTime(u * 1_000);
        let first_round_window = |synack_us: u64, data_us: u64| {
            let mut w = LinuxRcvWindow::new(MSS, ADVMSS);
            w.set_clock_phase(300_000);
            w.on_connected(us(synack_us), true);
            arrive(&mut w, us(data_us), 7, us(synack_us), MSS, MSS as u64);
            let sample = w.subflows[0].estimate;
            w.add_subflow(8);
            arrive(&mut w, us(data_us + 2_400), 7, us(synack_us), MSS, MSS as u64);
            (sample, w.offer(7, 0, u64::MAX))
        };
        let ms = |m: u64| SimDuration(m * 1_000_000);
        assert_eq!(first_round_window(540_397, 743_811), (ms(204), 65_536));
        assert_eq!(first_round_window(299_828, 503_484), (ms(203), 80_896));
        // Measured from the first data instead, neither would fall in the first round.
        let mut w = LinuxRcvWindow::new(MSS, ADVMSS);
        w.set_clock_phase(300_000);
        arrive(&mut w, us(743_811), 7, us(540_397), MSS, MSS as u64);
        w.add_subflow(8);
        arrive(&mut w, us(746_211), 7, us(540_397), MSS, MSS as u64);
        assert_eq!(w.offer(7, 0, u64::MAX), 80_896);
    }

    /// `tcp_rtt_tsopt_us` with millisecond timestamps: an RTT of 10.2 ms is
    /// sampled as 10 ms or 11 ms, by where the clock's ticks fall.
    #[test]
    fn the_receiver_samples_its_rtt_in_whole_milliseconds() {
        let us = |u: u64| SimTime(u * 1_000);
        let estimate = |phase_ns: u64| {
            let mut w = LinuxRcvWindow::new(MSS, ADVMSS);
            w.set_clock_phase(phase_ns);
            arrive(&mut w, us(20_300), 7, us(10_100), MSS, MSS as u64);
            w.subflows[0].estimate
        };
        // The echoed TSval at 10.1 ms and now 20.3 ms: ticks 10 and 20 ...
        assert_eq!(estimate(0), SimDuration(10_000_000));
        // ... or, 0.8 ms later in the tick, 10 and 21.
        assert_eq!(estimate(800_000), SimDuration(11_000_000));
    }
}
