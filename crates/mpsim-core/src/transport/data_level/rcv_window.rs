//! Linux 6.18's connection-level receive window for MPTCP (the `linux`
//! profile's `tcp.mptcp_rcv_window = "linux"`): the receive buffer the
//! connection's window is taken from, and how it grows.
//!
//! * **The buffer** (`sk_rcvbuf` of the MPTCP socket) starts at
//!   `tcp_rmem[1]` (128 KiB) and offers the window `rcvbuf · ratio / 256`
//!   (`tcp_win_from_space`, `__mptcp_space`), where the ratio is payload
//!   over the memory a segment takes (`scaling_ratio`, measured by
//!   `tcp_measure_rcv_mss` as `len · 256 / truesize`).
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
//!   out of order, at most the subflow's own `rcv_ssthresh`, rounded up to
//!   the window scale's unit (1024 bytes: `tcp_rmem[2]` of 32 MiB gives a
//!   scale of 10); a window below half the buffer's is rounded down, and
//!   is zero below a sixteenth of it or one segment. The connection's right
//!   edge (DATA_ACK + window) never moves left: a subflow offering less
//!   advertises the largest edge any subflow has.
//!
//! The application reads whatever arrives in order at once (the rig's
//! receiver does), so only data held out of order takes buffer space.

use crate::time::{SimDuration, SimTime};

/// `tcp_rmem[1]`: the buffer every socket starts with, bytes.
const RMEM_DEFAULT_BYTES: u64 = 131_072;
/// `tcp_rmem[2]` in Linux 6.18 on a host with 4 GiB or more free:
/// `min(32 MiB, free memory / 128)`, bytes.
const RMEM_MAX_BYTES: u64 = 32 << 20;
/// Memory one full-size segment takes in the receive queue (`skb->truesize`),
/// bytes: the value that gives the ratio the kernel measured on the
/// validation rig (veth, 1 514-byte frames): a window of 79 872 bytes from
/// the 131 072-byte buffer with 1 424-byte MPTCP segments, ratio 156/256.
pub const SEGMENT_TRUESIZE_BYTES: u64 = 2_336;
/// The window scale's unit: a scale of 10 (`tcp_select_initial_window`
/// with `tcp_rmem[2]` of 32 MiB); Linux rounds windows up to it.
const WINDOW_UNIT_BYTES: u64 = 1 << 10;
/// `TCP_INIT_CWND`: the first measure is this many `advmss`.
const INIT_CWND_SEGMENTS: u64 = 10;

/// One subflow's receiver-side RTT estimate (`rcv_rtt_est`).
#[derive(Clone, Copy, Debug)]
struct RcvRtt {
    /// The subflow (its sender's port).
    sport: u16,
    /// TSecr of the last segment sampled: one sample per echoed value.
    last_ecr: SimTime,
    estimate: SimDuration,
}

/// The autotuned receive buffer of an MPTCP connection.
#[derive(Clone, Debug)]
pub struct LinuxRcvWindow {
    /// `sk_rcvbuf`, bytes of memory.
    rcvbuf: u64,
    /// `scaling_ratio`: window bytes per 256 bytes of buffer.
    ratio: u64,
    /// The segment size, bytes.
    mss: u64,
    /// `rcvq_space.space`: what the application read in the last measured RTT.
    space: u64,
    /// `rcvq_space.copied`: read since `since`.
    copied: u64,
    /// `rcvq_space.time`: when the current measure began (`None`: at the first data).
    since: Option<SimTime>,
    rtts: Vec<RcvRtt>,
}

impl LinuxRcvWindow {
    /// A connection whose data segments carry `mss` payload bytes and whose
    /// subflows announce `advmss` (the MSS option: payload plus the
    /// timestamps and DSS options).
    pub fn new(mss: u32, advmss: u32) -> Self {
        let mss = mss as u64;
        LinuxRcvWindow {
            rcvbuf: RMEM_DEFAULT_BYTES,
            ratio: (mss * 256 / SEGMENT_TRUESIZE_BYTES).max(1),
            mss,
            space: INIT_CWND_SEGMENTS * advmss as u64,
            copied: 0,
            since: None,
            rtts: Vec::new(),
        }
    }

    /// The window the whole buffer offers (`tcp_win_from_space`), bytes:
    /// what a subflow's `rcv_ssthresh` grows to (its `window_clamp`).
    pub fn window_clamp(&self) -> u64 {
        (self.rcvbuf * self.ratio) >> 8
    }

    /// The buffer, bytes of memory.
    pub fn rcvbuf(&self) -> u64 {
        self.rcvbuf
    }

    /// A data segment of `len` bytes arrived at `now` on the subflow whose
    /// sender's port is `sport`, echoing `ts_ecr`; `read` bytes reached the
    /// application in order with it. Samples the subflow's RTT
    /// (`tcp_rcv_rtt_measure_ts`: a full-size segment with a new echo) and,
    /// once a receiver RTT has passed, grows the buffer.
    pub fn on_data(&mut self, now: SimTime, sport: u16, ts_ecr: SimTime, len: u32, read: u64) {
        if self.since.is_none() {
            self.since = Some(now);
        }
        if len as u64 >= self.mss && ts_ecr > SimTime::ZERO {
            let sample = now.saturating_since(ts_ecr);
            let i = match self.rtts.iter().position(|r| r.sport == sport) {
                Some(i) => i,
                None => {
                    self.rtts.push(RcvRtt {
                        sport,
                        last_ecr: SimTime::ZERO,
                        estimate: SimDuration::ZERO,
                    });
                    self.rtts.len() - 1
                }
            };
            let r = &mut self.rtts[i];
            if ts_ecr != r.last_ecr && sample > SimDuration::ZERO {
                r.last_ecr = ts_ecr;
                // `tcp_rcv_rtt_update`: a smaller sample is taken as it is,
                // a larger one with a gain of 1/8.
                r.estimate = if r.estimate == SimDuration::ZERO || sample < r.estimate {
                    sample
                } else {
                    SimDuration(r.estimate.0 - r.estimate.0 / 8 + sample.0 / 8)
                };
            }
        }
        if read == 0 {
            return;
        }
        self.copied += read;
        let rtt = self.rtts.iter().map(|r| r.estimate).max().unwrap_or(SimDuration::ZERO);
        let since = self.since.unwrap_or(now);
        if rtt == SimDuration::ZERO || now.saturating_since(since) < rtt {
            return;
        }
        if self.copied > self.space {
            self.grow(self.copied);
        }
        self.copied = 0;
        self.since = Some(now);
    }

    /// `mptcp_rcvbuf_grow`: the buffer for a window of twice what was read,
    /// plus four times its growth over the last measure.
    fn grow(&mut self, copied: u64) {
        let old = self.space.max(1);
        self.space = copied;
        let rcvwin = 2 * copied + 4 * copied * (copied - old.min(copied)) / old;
        let rcvbuf = (rcvwin * 256 / self.ratio).min(RMEM_MAX_BYTES);
        self.rcvbuf = self.rcvbuf.max(rcvbuf);
    }

    /// The window a subflow whose `rcv_ssthresh` is `rcv_ssthresh` computes
    /// while `held` bytes wait out of order (`__tcp_select_window`), before
    /// the connection's right edge is applied.
    pub fn offer(&self, held: u64, rcv_ssthresh: u64) -> u64 {
        let allowed = self.window_clamp();
        let mut free = allowed.saturating_sub(held);
        if free < allowed / 2 {
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

    /// The rig's kernel: 131 072 · 156 / 256 = 79 872 bytes before any growth
    /// (the plateau of the window in a capture of a 400 kB MPTCP upload).
    #[test]
    fn the_first_window_is_the_default_buffers() {
        let w = LinuxRcvWindow::new(MSS, ADVMSS);
        assert_eq!(w.ratio, 156);
        assert_eq!(w.window_clamp(), 79_872);
        assert_eq!(w.offer(0, u64::MAX), 79_872);
        // At most the subflow's rcv_ssthresh, rounded up to 1024.
        assert_eq!(w.offer(0, 64_076), 64_512);
    }

    /// `mptcp_rcv_space_adjust`: nothing grows within the first RTT; a
    /// round that read c = 28 480 bytes after one that read o = 14 600
    /// makes the window 2c + 4c(c − o)/o.
    #[test]
    fn the_buffer_grows_once_per_receiver_rtt_by_what_was_read() {
        let mut w = LinuxRcvWindow::new(MSS, ADVMSS);
        let ms = |m: u64| SimTime(m * 1_000_000);
        // Round 1: 9 segments at 50..54 ms echoing a timestamp of 1 ms: RTT 49 ms.
        for k in 0..9 {
            w.on_data(ms(50 + k / 2), 7, ms(1), MSS, MSS as u64);
        }
        assert_eq!(w.window_clamp(), 79_872);
        // A tenth segment an RTT on: 14 240 bytes read, not more than the first
        // measure (14 600): no growth, and a new measure begins.
        w.on_data(ms(101), 7, ms(51), MSS, MSS as u64);
        assert_eq!(w.window_clamp(), 79_872);
        assert_eq!(w.copied, 0);
        // Round 2: 20 segments (28 480 bytes) read over the next RTT.
        for k in 0..19 {
            w.on_data(ms(102 + k / 4), 7, ms(52), MSS, MSS as u64);
        }
        w.on_data(ms(152), 7, ms(102), MSS, MSS as u64);
        let (c, o) = (20 * MSS as u64, 10 * ADVMSS as u64);
        let rcvwin = 2 * c + 4 * c * (c - o) / o;
        assert_eq!(w.rcvbuf(), rcvwin * 256 / 156);
        assert!(
            w.window_clamp().abs_diff(rcvwin) < 2,
            "{} vs {rcvwin}",
            w.window_clamp()
        );
    }

    /// `__tcp_select_window`: out-of-order data takes buffer space; below
    /// half the buffer's window the offer is rounded down, and below a
    /// sixteenth it is zero.
    #[test]
    fn data_held_out_of_order_shrinks_the_offer() {
        let w = LinuxRcvWindow::new(MSS, ADVMSS);
        assert_eq!(w.offer(10_000, u64::MAX), 70_656);
        assert_eq!(w.offer(50_000, u64::MAX), 29_696);
        assert_eq!(w.offer(76_000, u64::MAX), 0);
    }
}
