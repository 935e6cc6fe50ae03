//! Linux 6.18's receive-buffer autotuning of one TCP socket (Dynamic
//! Right-Sizing), as far as it bounds the receiver's `rcv_ssthresh` and so
//! decides its quick ACKs (`tcp_grow_window`).
//!
//! * **The buffer** (`sk_rcvbuf`) starts at `tcp_rmem[1]`, 131 072 bytes,
//!   and its window is `rcvbuf · ratio / 256` (`tcp_win_from_space`), the
//!   ratio (`scaling_ratio`) being payload over the memory a segment takes,
//!   `len · 256 / truesize`, measured at the first segment longer than
//!   `TCP_MSS_DEFAULT` (`tcp_measure_rcv_mss`); before that it is
//!   `TCP_DEFAULT_SCALING_RATIO`, half, and the window clamp is that
//!   window less one `advmss` (`tcp_init_buffer_space` reserves a segment).
//! * **`rcv_ssthresh` grows** with each data segment of 128 bytes or more
//!   by max(2 · advmss, 2 · len), up to the smaller of the window clamp and
//!   the free space's window (`tcp_space`), which the segment being answered
//!   still takes: `(rcvbuf − truesize) · ratio / 256` while the reader keeps
//!   up ([`RcvSpace::growth_cap`]).
//! * **The buffer grows** (`tcp_rcv_space_adjust` → `tcp_rcvbuf_grow`) at a
//!   read once a receiver RTT (`rcv_rtt_est`, from the timestamps the data
//!   echoes, `tcp_rcv_rtt_measure_ts`) has passed since the measure began:
//!   if the application read `c` bytes in it and `c` exceeds the last
//!   measure `o` (first min(rcv_ssthresh, rcv_wnd, 10 · advmss),
//!   `tcp_init_buffer_space`), the buffer becomes the space of the window
//!   `2c + 4c(c − o)/o` plus the span of the out-of-order queue, capped at
//!   `tcp_rmem[2]`, never shrinking, and `o` becomes `c`; the window clamp
//!   follows. Either way a new measure begins.
//!
//! The application reads what arrives in order as soon as the segment has
//! been answered (the rig's reader, as for MPTCP's connection window,
//! `data_level/rcv_window.rs`).

use crate::time::{SimDuration, SimTime};

/// `tcp_rmem[1]`: the buffer a socket starts with, bytes.
const RMEM_DEFAULT_BYTES: u64 = 131_072;
/// `tcp_rmem[2]` on the rig (4 GiB or more free): 32 MiB.
const RMEM_MAX_BYTES: u64 = 32 << 20;
/// Memory a full segment takes in the receive queue (`skb->truesize`) on the
/// rig's veth, bytes: with 1 448-byte segments the ratio 160/256, whose
/// windows the kernel's `rcv_ssthresh` reached in the rig's captures
/// (370 901 bytes of a 595 747-byte buffer: (595 747 − 2 304) · 160 / 256).
const SEGMENT_TRUESIZE_BYTES: u64 = 2_304;
/// `TCP_DEFAULT_SCALING_RATIO`, per 256.
const DEFAULT_RATIO: u64 = 128;
/// `TCP_MSS_DEFAULT`: the first `rcv_mss`.
const MSS_DEFAULT_BYTES: u32 = 536;
/// `TCP_INIT_CWND`: the first measure is at most this many `advmss`.
const INIT_CWND_SEGMENTS: u64 = 10;
/// The timestamps option with its padding (`TCPOLEN_TSTAMP_ALIGNED`).
const TIMESTAMPS_OPTION_BYTES: u64 = 12;
/// `tcp_select_initial_window`'s window of the default buffer at the
/// default ratio, bytes.
const FIRST_SPACE_BYTES: u64 = (RMEM_DEFAULT_BYTES * DEFAULT_RATIO) >> 8;

/// The autotuned receive buffer of one TCP socket.
#[derive(Clone, Debug)]
pub struct RcvSpace {
    /// `sk_rcvbuf`, bytes of memory.
    rcvbuf: u64,
    /// `scaling_ratio`, window bytes per 256 of buffer, once measured.
    measured_ratio: Option<u64>,
    /// The ratio a full segment measures: payload · 256 / truesize.
    segment_ratio: u64,
    /// `advmss` with the timestamps option taken off, bytes.
    advmss: u64,
    /// Full-size payload, bytes (the RTT is sampled from such segments).
    mss: u64,
    /// `rcvq_space.space`: bytes read in the measure that last grew the buffer.
    space: u64,
    /// Bytes the application has read so far (`copied_seq`).
    read: u64,
    /// `rcvq_space.seq`: `read` when the current measure began.
    read_at_since: u64,
    /// `rcvq_space.time`: when the current measure began (`None` before
    /// the socket is established at the receiver).
    since: Option<SimTime>,
    /// `rcv_rtt_est`, zero before the first sample.
    estimate: SimDuration,
    /// TSecr of the last segment sampled: one sample per echoed value.
    last_ecr: SimTime,
    /// How far the receiver's millisecond timestamp clock is into its tick
    /// at time zero, nanoseconds.
    clock_phase_ns: u64,
}

impl RcvSpace {
    /// A socket whose full segments carry `mss` payload bytes; with the
    /// timestamps option its `advmss` is the same `mss` (the option's 12
    /// bytes taken off the MSS it announced).
    pub fn new(mss: u32) -> Self {
        let mss = mss as u64;
        RcvSpace {
            rcvbuf: RMEM_DEFAULT_BYTES,
            measured_ratio: None,
            segment_ratio: (mss * 256 / SEGMENT_TRUESIZE_BYTES).max(1),
            advmss: mss,
            mss,
            space: 0,
            read: 0,
            read_at_since: 0,
            since: None,
            estimate: SimDuration::ZERO,
            last_ecr: SimTime::ZERO,
            clock_phase_ns: 0,
        }
    }

    /// The receiver's timestamp clock is `phase_ns` into a millisecond tick
    /// at time zero.
    pub fn set_clock_phase(&mut self, phase_ns: u64) {
        self.clock_phase_ns = phase_ns % 1_000_000;
    }

    /// The socket's first `rcv_ssthresh`, bytes: its first window
    /// (`tcp_select_initial_window`: 64 KiB in whole segments of the MSS it
    /// knows then, its announced one, 1 460 bytes, when it `opened` the
    /// connection, one without the timestamps when it answered: 64 240 or
    /// 65 160 bytes). `tcp_init_buffer_space` lowers it to the reserved
    /// clamp (64 088) and the first full segment's ratio raises the clamp and
    /// it back to the window (`tcp_set_window_clamp`: max(rcv_ssthresh,
    /// min(rcv_wnd, clamp))), before it grows.
    pub fn first_rcv_ssthresh(&self, opened: bool) -> u64 {
        let mss = if opened {
            self.advmss + TIMESTAMPS_OPTION_BYTES
        } else {
            self.advmss
        };
        FIRST_SPACE_BYTES / mss * mss
    }

    /// The socket is established at the receiver at `now`
    /// (`tcp_init_transfer` → `tcp_init_buffer_space`): the first measure
    /// begins, its size min(rcv_ssthresh, rcv_wnd, 10 · advmss).
    pub fn on_established(&mut self, now: SimTime, opened: bool) {
        if self.since.is_none() {
            self.since = Some(now);
            let first = self.first_rcv_ssthresh(opened).min(self.window_clamp());
            self.space = first.min(INIT_CWND_SEGMENTS * self.advmss);
        }
    }

    /// The buffer, bytes of memory.
    pub fn rcvbuf(&self) -> u64 {
        self.rcvbuf
    }

    fn ratio(&self) -> u64 {
        self.measured_ratio.unwrap_or(DEFAULT_RATIO)
    }

    /// `window_clamp`: the buffer's window at the measured ratio, or one
    /// `advmss` short of it at the default ratio (`tcp_init_buffer_space`).
    pub fn window_clamp(&self) -> u64 {
        match self.measured_ratio {
            Some(ratio) => (self.rcvbuf * ratio) >> 8,
            None => ((self.rcvbuf * DEFAULT_RATIO) >> 8) - self.advmss,
        }
    }

    /// Where `tcp_grow_window` stops `rcv_ssthresh`, bytes: the window
    /// clamp, or the free space's window with the segment just queued.
    pub fn growth_cap(&self) -> u64 {
        let free = (self.rcvbuf.saturating_sub(SEGMENT_TRUESIZE_BYTES) * self.ratio()) >> 8;
        self.window_clamp().min(free)
    }

    /// A data segment of `len` bytes arrived at `now` echoing `ts_ecr`:
    /// measures the ratio at the first segment longer than 536 bytes
    /// (`tcp_measure_rcv_mss`) and samples the RTT from each new echo of a
    /// full segment (`tcp_rcv_rtt_measure_ts`, `tcp_rcv_rtt_update`).
    pub fn on_data(&mut self, now: SimTime, ts_ecr: SimTime, len: u32) {
        if self.since.is_none() {
            self.on_established(now, false);
        }
        if len > MSS_DEFAULT_BYTES && self.measured_ratio.is_none() {
            self.measured_ratio = Some(self.segment_ratio);
        }
        if ts_ecr == SimTime::ZERO || ts_ecr == self.last_ecr {
            return;
        }
        self.last_ecr = ts_ecr;
        // `tcp_rtt_tsopt_us`: two ticks of the millisecond clock apart.
        let phase = self.clock_phase_ns;
        let tick = |t: SimTime| (t.nanos() + phase) / 1_000_000;
        let sample = SimDuration(tick(now).saturating_sub(tick(ts_ecr)) * 1_000_000);
        if len as u64 >= self.mss && sample > SimDuration::ZERO {
            // A smaller sample is taken as it is, a larger one with gain 1/8
            // (the reader keeps the queue empty, so Linux takes it too).
            self.estimate = if self.estimate == SimDuration::ZERO || sample < self.estimate {
                sample
            } else {
                SimDuration(self.estimate.0 - self.estimate.0 / 8 + sample.0 / 8)
            };
        }
    }

    /// The application has read everything up to `delivered` bytes at
    /// `now`, while `ooo_span` bytes lie between the next expected byte and
    /// the end of the out-of-order queue (`tcp_rcv_space_adjust`). Returns
    /// whether the buffer grew.
    pub fn on_read(&mut self, now: SimTime, delivered: u64, ooo_span: u64) -> bool {
        if delivered <= self.read {
            return false;
        }
        self.read = delivered;
        if self.estimate == SimDuration::ZERO {
            return false;
        }
        let since = self.since.unwrap_or(now);
        if now.saturating_since(since) < self.estimate {
            return false;
        }
        let copied = self.read - self.read_at_since;
        let grew = copied > self.space && self.grow(copied, ooo_span);
        self.read_at_since = self.read;
        self.since = Some(now);
        grew
    }

    /// `tcp_rcvbuf_grow`: "DRS is always one RTT late", and in slow start the
    /// sender may double its rate. (Linux scales the growth down below an
    /// RTT of `tcp_rcvbuf_low_rtt`, 1 ms; the receiver's estimate counts
    /// whole milliseconds and is never below one when it grows the buffer.)
    fn grow(&mut self, copied: u64, ooo_span: u64) -> bool {
        let old = self.space.max(1);
        self.space = copied;
        let rcvwin = 2 * copied + 4 * copied * copied.saturating_sub(old) / old + ooo_span;
        let rcvbuf = ((rcvwin << 8) / self.ratio()).min(RMEM_MAX_BYTES);
        if rcvbuf > self.rcvbuf {
            self.rcvbuf = rcvbuf;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimTime {
        SimTime::from_millis(n)
    }

    #[test]
    fn the_first_window_and_clamp_are_the_kernels() {
        let s = RcvSpace::new(1448);
        // 65 536 in whole segments of 1 460 (connecting end) and 1 448.
        assert_eq!(s.first_rcv_ssthresh(true), 44 * 1460);
        assert_eq!(s.first_rcv_ssthresh(false), 45 * 1448);
        // 65 536 less one advmss, before a full segment measures the ratio.
        assert_eq!(s.window_clamp(), 64_088);
        assert_eq!(s.growth_cap(), 64_088);
    }

    #[test]
    fn a_full_segment_measures_the_ratio_and_opens_the_clamp() {
        let mut s = RcvSpace::new(1448);
        s.on_established(ms(0), true);
        // The first measure: ten advmss, below the first window.
        assert_eq!(s.space, 14_480);
        s.on_data(ms(20), SimTime::ZERO, 1448);
        // 1 448 · 256 / 2 304 = 160.9, so 160.
        assert_eq!(s.window_clamp(), 131_072 * 160 / 256);
        // The segment just queued takes its truesize off the free space.
        assert_eq!(s.growth_cap(), (131_072 - 2_304) * 160 / 256);
    }

    #[test]
    fn the_buffer_grows_once_a_receiver_rtt_has_passed_by_the_drs_rule() {
        let mut s = RcvSpace::new(1448);
        s.on_established(ms(0), false);
        // One echo sampled 20 ms back.
        s.on_data(ms(20), ms(0) + SimDuration::from_micros(1), 1448);
        assert_eq!(s.estimate, SimDuration::from_millis(20));
        // 10 ms into the measure: too early, nothing changes.
        assert!(!s.on_read(ms(10), 1448, 0));
        // At 20 ms: 14 480 read is not more than the first measure's 14 480.
        assert!(!s.on_read(ms(20), 14_480, 0));
        assert_eq!(s.rcvbuf(), 131_072);
        // A measure later 28 960 bytes more: window 2c + 4c(c − o)/o with
        // c = 28 960, o = 14 480: 57 920 + 115 840 = 173 760, its space at
        // 160/256: 278 016.
        assert!(s.on_read(ms(40), 14_480 + 28_960, 0));
        assert_eq!(s.rcvbuf(), 173_760 * 256 / 160);
        assert_eq!(s.window_clamp(), (173_760 * 256 / 160) * 160 / 256);
        // The next measure reads less than the last: it never shrinks.
        assert!(!s.on_read(ms(60), 14_480 + 28_960 + 20_000, 0));
        assert_eq!(s.rcvbuf(), 278_016);
    }

    #[test]
    fn the_kernels_plateau_is_the_free_space_of_its_grown_buffer() {
        // The rig's 400 kB download: a 595 747-byte buffer, and the client's
        // rcv_ssthresh stopped at 370 901 bytes (`SS_POLL`).
        let mut s = RcvSpace::new(1448);
        s.on_data(ms(1), SimTime::ZERO, 1448);
        s.rcvbuf = 595_747;
        assert_eq!(s.growth_cap(), 370_901);
    }

    #[test]
    fn the_out_of_order_span_adds_to_the_window() {
        let mut s = RcvSpace::new(1448);
        s.on_established(ms(0), false);
        s.on_data(ms(10), ms(0) + SimDuration::from_micros(1), 1448);
        assert!(s.on_read(ms(10), 40_000, 5_792));
        // c = 40 000, o = 14 480: 80 000 + 4 · 40 000 · 25 520 / 14 480
        // (281 988) + 5 792 = 367 780, at 160/256: 588 448.
        assert_eq!(s.rcvbuf(), 588_448);
    }
}
