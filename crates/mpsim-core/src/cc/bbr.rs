//! BBR v1 as Linux 6.18 runs it (`net/ipv4/tcp_bbr.c`, Cardwell et al.,
//! "BBR: Congestion-Based Congestion Control", ACM Queue 2016): a model of
//! the path — the windowed maximum delivery rate and the windowed minimum
//! RTT — from which the pacing rate and the congestion window follow, with
//! the four modes STARTUP, DRAIN, PROBE_BW and PROBE_RTT, the long-term
//! ("policer") bandwidth sampler and the ACK-aggregation allowance.
//!
//! BBR is not a congestion *avoidance* in mpsim's sense: the kernel calls it
//! as `cong_control` on every ACK (`tcp_cong_control`), in place of PRR and
//! of `tcp_cong_avoid`, with the ACK's delivery-rate sample
//! ([`crate::cc::rate`]). So it is a pure model here: the
//! sender hands it a [`SocketView`] and the [`RateSample`] and reads back
//! [`Bbr::cwnd`] and [`Bbr::pacing_rate`]. Each subflow of an MPTCP
//! connection runs its own, uncoupled, as upstream MPTCP does.
//!
//! Units and arithmetic are the kernel's, so that the numbers match it bit
//! for bit: windows and counts in packets (`u32`); bandwidth in packets per
//! µs scaled by 2²⁴ (`BW_SCALE`); gains scaled by 2⁸ (`BBR_SCALE`); times in
//! µs (`tcp_mstamp`) or, for the min-RTT window and ProbeRTT, in jiffies at
//! HZ = 1000 (milliseconds, `tcp_jiffies32`); the pacing rate in bytes per
//! second. Counters and stamps wrap as the kernel's `u32`s.

use crate::rng::RngStream;
use crate::time::SimTime;
use crate::cc::rate::{after, before, micros, RateSample};

use super::win_minmax::WindowedMax;

/// Bandwidth fixed point: packets per µs << 24.
pub const BW_SCALE: u32 = 24;
pub const BW_UNIT: u64 = 1 << BW_SCALE;
/// Gain fixed point: 1.0 is 256.
pub const BBR_SCALE: u32 = 8;
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;

/// Phases of the ProbeBW gain cycle (`CYCLE_LEN`).
const CYCLE_LEN: u8 = 8;
/// `bbr_bw_rtts`: the bandwidth filter's window, round trips.
const BW_RTTS: u32 = CYCLE_LEN as u32 + 2;
/// `bbr_min_rtt_win_sec`: the min-RTT filter's window, s.
const MIN_RTT_WIN_SEC: u32 = 10;
/// `bbr_probe_rtt_mode_ms`: least time at the minimum window in ProbeRTT, ms.
const PROBE_RTT_MODE_MS: u32 = 200;
/// `bbr_min_tso_rate`, bit/s: below it a TSO burst is one segment.
const MIN_TSO_RATE_BPS: u64 = 1_200_000;
/// `bbr_pacing_margin_percent`: pace 1 % below the estimated bandwidth.
const PACING_MARGIN_PERCENT: u64 = 1;
/// `bbr_high_gain` = 2/ln 2 (+1 to round up): STARTUP's gains, 739/256.
pub const HIGH_GAIN: u32 = BBR_UNIT * 2885 / 1000 + 1;
/// `bbr_drain_gain` = ln 2/2: DRAIN's pacing gain, 88/256.
pub const DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
/// `bbr_cwnd_gain`: ProbeBW's cwnd gain, 2.0.
pub const CWND_GAIN: u32 = BBR_UNIT * 2;
/// `bbr_pacing_gain`: ProbeBW's cycle, 1.25, 0.75, then six 1.0.
pub const PACING_GAIN: [u32; CYCLE_LEN as usize] =
    [BBR_UNIT * 5 / 4, BBR_UNIT * 3 / 4, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT];
/// `bbr_cycle_rand`: ProbeBW starts at one of this many phases (all but 0.75).
const CYCLE_RAND: u64 = 7;
/// `bbr_cwnd_min_target`, packets: the least cwnd, and ProbeRTT's.
pub const CWND_MIN_TARGET: u32 = 4;
/// `bbr_full_bw_thresh`: growth of 25 % means the pipe is not yet full.
const FULL_BW_THRESH: u32 = BBR_UNIT * 5 / 4;
/// `bbr_full_bw_cnt`: rounds without that growth before the pipe is full.
const FULL_BW_CNT: u8 = 3;
/// `bbr_lt_intvl_min_rtts`: least round trips in a long-term interval.
const LT_INTVL_MIN_RTTS: u8 = 4;
/// `bbr_lt_loss_thresh`: lost/delivered ≥ 50/256 (~20 %) is a lossy interval.
const LT_LOSS_THRESH: u32 = 50;
/// `bbr_lt_bw_ratio`: two intervals within 1/8 of each other are consistent…
const LT_BW_RATIO: u32 = BBR_UNIT / 8;
/// `bbr_lt_bw_diff`, bytes/s: …or within 4 kbit/s.
const LT_BW_DIFF: u64 = 4000 / 8;
/// `bbr_lt_bw_max_rtts`: round trips to keep using the long-term rate.
const LT_BW_MAX_RTTS: u8 = 48;
/// `bbr_extra_acked_gain`: 1.0.
const EXTRA_ACKED_GAIN: u32 = BBR_UNIT;
/// `bbr_extra_acked_win_rtts`: round trips per half of the aggregation window.
const EXTRA_ACKED_WIN_RTTS: u8 = 5;
/// `bbr_ack_epoch_acked_reset_thresh`, packets.
const ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;
/// `bbr_extra_acked_max_us`: the aggregation allowance is at most 100 ms of bw.
const EXTRA_ACKED_MAX_US: u64 = 100_000;
/// `TCP_INIT_CWND`, packets.
pub const TCP_INIT_CWND: u32 = 10;
/// `TCP_INFINITE_SSTHRESH`, packets.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;
/// Jiffies per second: the kernel's HZ, read as 1000 (a jiffy is 1 ms).
const HZ: u32 = 1000;
/// `sk_pacing_shift` (10): a TSO burst holds about 1/1024 s of the pacing rate.
const PACING_SHIFT: u32 = 10;
/// `GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER`, bytes: the largest TSO burst
/// `bbr_tso_segs_goal` allows, with an x86-64 distribution kernel's
/// `MAX_TCP_HEADER` = L1_CACHE_ALIGN(128 + MAX_HEADER 176) = 320.
const TSO_MAX_BYTES: u64 = 65_536 - 1 - 320;

/// `cc = {type = "bbr"}`: BBR v1 on each subflow (TCP, or every subflow of
/// an MPTCP connection, uncoupled as upstream MPTCP runs it), under the
/// `linux` profile. It has no parameters: the kernel's module parameters
/// are its constants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BbrConfig {}

impl super::CcFactory for BbrConfig {
    type Algorithm = BbrControl;
    fn build(&self, _setup: &super::CcSetup) -> BbrControl {
        BbrControl
    }
}

/// The connection-wide part of BBR: nothing. BBR replaces the stack's
/// window rules on each subflow (`cong_control`), so its state lives with
/// each subflow's sender ([`Bbr`], with the delivery-rate sampler and the
/// pacing clock it needs); the sender never calls these hooks for a
/// subflow that runs it.
#[derive(Clone, Copy, Debug, Default)]
pub struct BbrControl;

impl super::CongestionAvoidance for BbrControl {
    fn on_ack(&mut self, _s: &mut [super::SubflowCc], _r: usize, _ack: &super::AckInfo) {}
    fn ssthresh_after_loss(&mut self, s: &[super::SubflowCc], r: usize, _now: SimTime) -> u64 {
        s[r].ssthresh
    }
}

/// `enum bbr_mode`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Ramp up the sending rate fast to fill the pipe.
    Startup,
    /// Drain the queue STARTUP made.
    Drain,
    /// Pace around the estimated bandwidth, cycling the gain.
    ProbeBw,
    /// Cut inflight to 4 packets to measure the path's RTT.
    ProbeRtt,
}

/// The socket's congestion state (`icsk_ca_state`), in the kernel's order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    Open,
    Disorder,
    Cwr,
    Recovery,
    Loss,
}

/// What BBR reads of its socket at an ACK (or another hook): the `tcp_sock`
/// fields, as the sender has them after processing the ACK.
#[derive(Copy, Clone, Debug)]
pub struct SocketView {
    /// Now (`tcp_clock_cache`, ns; `tcp_jiffies32` is derived from it).
    pub now: SimTime,
    /// `tp->delivered`, packets.
    pub delivered: u32,
    /// `tp->delivered_mstamp`, µs.
    pub delivered_us: u64,
    /// `tp->lost`, packets ever marked lost.
    pub lost: u32,
    /// `tcp_packets_in_flight`, packets.
    pub in_flight: u32,
    /// `icsk_ca_state`.
    pub ca_state: CaState,
    /// Smoothed RTT, µs (`srtt_us >> 3`); zero before any sample.
    pub srtt_us: u64,
    /// `tp->tcp_wstamp_ns`: the earliest departure time of the next segment
    /// (internal pacing).
    pub earliest_departure: SimTime,
}

impl SocketView {
    /// `tcp_jiffies32` at HZ = 1000: milliseconds, wrapping.
    fn jiffies(&self) -> u32 {
        (self.now.nanos() / (1_000_000_000 / HZ as u64)) as u32
    }
}

/// BBR's state for one subflow (`struct bbr`) and the socket fields it
/// owns under `cong_control`: cwnd, ssthresh and the pacing rate.
#[derive(Clone, Debug)]
pub struct Bbr {
    /// Congestion window, packets (`snd_cwnd`; the stack writes it too,
    /// at a timeout or an undo).
    pub cwnd: u32,
    /// Slow-start threshold, packets (`snd_ssthresh`): infinite until DRAIN.
    pub ssthresh: u32,
    /// Pacing rate, bytes/s (`sk_pacing_rate`).
    pub pacing_rate: u64,
    /// Segment size, bytes (`mss_cache`).
    pub mss: u32,
    /// Current mode.
    pub mode: Mode,
    /// `min_rtt_us`, µs: the windowed minimum RTT; `u32::MAX` before any.
    pub min_rtt_us: u32,
    /// `min_rtt_stamp`, jiffies: when `min_rtt_us` was taken.
    pub min_rtt_stamp: u32,
    /// `probe_rtt_done_stamp`, jiffies: when ProbeRTT may end; `None` until
    /// inflight reached 4 packets (the kernel's 0).
    pub probe_rtt_done_stamp: Option<u32>,
    /// `bw`: the windowed maximum delivery rate over `BW_RTTS` rounds,
    /// packets/µs << 24, timed in rounds.
    pub bw: WindowedMax,
    /// `rtt_cnt`: packet-timed round trips so far.
    pub rtt_cnt: u32,
    /// `next_rtt_delivered`, packets: `delivered` at which the round ends.
    pub next_rtt_delivered: u32,
    /// `cycle_mstamp`, µs: when the current ProbeBW phase began.
    pub cycle_mstamp: u64,
    /// `prev_ca_state`: the CA state at the previous ACK.
    pub prev_ca_state: CaState,
    /// `packet_conservation`: the first round of recovery.
    pub packet_conservation: bool,
    /// `round_start`: this ACK began a round.
    pub round_start: bool,
    /// `idle_restart`: sending restarted after idle; no ACK of data since.
    pub idle_restart: bool,
    /// `probe_rtt_round_done`: ProbeRTT has spent a round at 4 packets.
    pub probe_rtt_round_done: bool,
    /// `lt_is_sampling`: a long-term interval is being timed.
    pub lt_is_sampling: bool,
    /// `lt_rtt_cnt`: round trips in the long-term interval (7 bits).
    pub lt_rtt_cnt: u8,
    /// `lt_use_bw`: the policer's rate `lt_bw` is the estimate.
    pub lt_use_bw: bool,
    /// `lt_bw`, packets/µs << 24: the long-term (policed) rate.
    pub lt_bw: u32,
    /// `lt_last_delivered`, packets: `delivered` at the interval's start.
    pub lt_last_delivered: u32,
    /// `lt_last_stamp`, ms: `delivered_mstamp` at the interval's start.
    pub lt_last_stamp: u32,
    /// `lt_last_lost`, packets: `lost` at the interval's start.
    pub lt_last_lost: u32,
    /// `pacing_gain`, 1/256.
    pub pacing_gain: u32,
    /// `cwnd_gain`, 1/256.
    pub cwnd_gain: u32,
    /// `full_bw_reached`: STARTUP has filled the pipe.
    pub full_bw_reached: bool,
    /// `full_bw_cnt`: rounds without 25 % growth.
    pub full_bw_cnt: u8,
    /// `cycle_idx`: the ProbeBW phase, 0..8.
    pub cycle_idx: u8,
    /// `has_seen_rtt`: the pacing rate was set from an RTT sample.
    pub has_seen_rtt: bool,
    /// `prior_cwnd`, packets: the cwnd before recovery or ProbeRTT.
    pub prior_cwnd: u32,
    /// `full_bw`, packets/µs << 24: the bandwidth at the last 25 % growth.
    pub full_bw: u32,
    /// `ack_epoch_mstamp`, µs: start of the ACK-aggregation epoch.
    pub ack_epoch_mstamp: u64,
    /// `extra_acked`, packets: the largest excess of ACKed over expected
    /// data in each of the two halves of the aggregation window.
    pub extra_acked: [u16; 2],
    /// `ack_epoch_acked`, packets (S)ACKed in the epoch (20 bits).
    pub ack_epoch_acked: u32,
    /// `extra_acked_win_rtts`: age of the current half, rounds (5 bits).
    pub extra_acked_win_rtts: u8,
    /// `extra_acked_win_idx`: the current half, 0 or 1.
    pub extra_acked_win_idx: usize,
    /// The subflow's own random stream: ProbeBW's start phase
    /// (`get_random_u32_below`).
    rng: RngStream,
}

/// `bbr_init`'s inputs: the socket as the congestion control is set up,
/// after the handshake (`tcp_init_transfer`).
#[derive(Copy, Clone, Debug)]
pub struct BbrInit {
    pub sock: SocketView,
    /// Initial congestion window, packets.
    pub cwnd: u32,
    /// Segment size, bytes.
    pub mss: u32,
    /// `tcp_min_rtt`, µs: the handshake's RTT; `u32::MAX` if none.
    pub min_rtt_us: u32,
}

impl Bbr {
    /// `bbr_init`.
    pub fn new(init: &BbrInit, rng: RngStream) -> Self {
        let sock = &init.sock;
        let mut bbr = Bbr {
            cwnd: init.cwnd,
            ssthresh: INFINITE_SSTHRESH,
            pacing_rate: 0,
            mss: init.mss,
            mode: Mode::Startup,
            min_rtt_us: init.min_rtt_us,
            min_rtt_stamp: sock.jiffies(),
            probe_rtt_done_stamp: None,
            bw: WindowedMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: sock.delivered,
            cycle_mstamp: 0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            // Zero until the first ACK's bbr_update_gains, as the kernel's
            // zeroed private area; nothing reads them before.
            pacing_gain: 0,
            cwnd_gain: 0,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: micros(sock.now),
            extra_acked: [0, 0],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            rng,
        };
        bbr.bw.reset(0, 0);
        bbr.init_pacing_rate_from_rtt(sock);
        bbr.reset_lt_bw_sampling(sock);
        bbr
    }

    /// `bbr_main` (the `cong_control` hook): update the model with the
    /// ACK's sample, then set the pacing rate and the window. Returns
    /// whether the sender must mark its pipe application-limited
    /// ([`crate::cc::rate::RateSampler::mark_app_limited`]),
    /// which ProbeRTT does on every ACK to keep its low-rate samples out of
    /// the filter.
    #[must_use]
    pub fn on_ack(&mut self, sock: &SocketView, rs: &RateSample) -> bool {
        // bbr_update_model
        self.update_bw(sock, rs);
        self.update_ack_aggregation(sock, rs);
        self.update_cycle_phase(sock, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(sock);
        let app_limited = self.update_min_rtt(sock, rs);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(sock, bw, self.pacing_gain);
        self.set_cwnd(sock, rs, rs.acked_sacked, bw, self.cwnd_gain);
        app_limited
    }

    /// `bbr_max_bw`: the bandwidth filter's maximum, packets/µs << 24.
    pub fn max_bw(&self) -> u32 {
        self.bw.get()
    }

    /// `bbr_bw`: the estimate in use: the policed rate if one was found.
    pub fn bw(&self) -> u32 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// `bbr_rate_bytes_per_sec`: `rate` (packets/µs << 24) times `gain`
    /// (1/256) in bytes/s, 1 % under (`bbr_pacing_margin_percent`).
    pub fn rate_bytes_per_sec(&self, rate: u64, gain: u32) -> u64 {
        // u64 products that wrap as the kernel's would (only at absurd rates).
        let rate = rate.wrapping_mul(self.mss as u64).wrapping_mul(gain as u64) >> BBR_SCALE;
        rate.wrapping_mul(1_000_000 / 100 * (100 - PACING_MARGIN_PERCENT)) >> BW_SCALE
    }

    /// `bbr_bw_to_pacing_rate` (no `SO_MAX_PACING_RATE` in mpsim).
    fn bw_to_pacing_rate(&self, bw: u32, gain: u32) -> u64 {
        self.rate_bytes_per_sec(bw as u64, gain)
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain × cwnd / SRTT, with a
    /// nominal 1 ms before any RTT sample.
    fn init_pacing_rate_from_rtt(&mut self, sock: &SocketView) {
        let rtt_us = if sock.srtt_us != 0 {
            self.has_seen_rtt = true;
            sock.srtt_us.max(1)
        } else {
            1000
        };
        let bw = self.cwnd as u64 * BW_UNIT / rtt_us;
        self.pacing_rate = self.bw_to_pacing_rate(bw as u32, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`: never lowers the rate before the pipe is
    /// full (STARTUP only speeds up).
    fn set_pacing_rate(&mut self, sock: &SocketView, bw: u32, gain: u32) {
        let rate = self.bw_to_pacing_rate(bw, gain);
        if !self.has_seen_rtt && sock.srtt_us != 0 {
            self.init_pacing_rate_from_rtt(sock);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_min_tso_segs`: one segment per burst below 1.2 Mbit/s, else two.
    pub fn min_tso_segs(&self) -> u32 {
        if self.pacing_rate < MIN_TSO_RATE_BPS >> 3 {
            1
        } else {
            2
        }
    }

    /// `bbr_tso_segs_goal`, packets: the segments of a TSO burst, ~1 ms of
    /// the pacing rate, at least `min_tso_segs`, at most 127. mpsim sends
    /// segment by segment; the goal enters the cwnd budget and the
    /// inflight estimate as the kernel's does.
    pub fn tso_segs_goal(&self) -> u32 {
        let bytes = (self.pacing_rate >> PACING_SHIFT).min(TSO_MAX_BYTES);
        let segs = ((bytes / self.mss as u64) as u32).max(self.min_tso_segs());
        segs.min(0x7f)
    }

    /// `bbr_save_cwnd`: remember the last good cwnd, not one that recovery
    /// or ProbeRTT cut.
    fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)`: the sender starts sending with
    /// nothing in flight; `app_limited` is the sampler's mark. Restarting
    /// from idle, pace at the estimated bandwidth (ProbeBW) or end ProbeRTT
    /// if it is due.
    pub fn on_tx_start(&mut self, sock: &SocketView, app_limited: bool) {
        if !app_limited {
            return;
        }
        self.idle_restart = true;
        self.ack_epoch_mstamp = micros(sock.now);
        self.ack_epoch_acked = 0;
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(sock, self.bw(), BBR_UNIT),
            Mode::ProbeRtt => self.check_probe_rtt_done(sock),
            _ => {}
        }
    }

    /// `bbr_bdp`, packets: `gain` × bw × min_rtt, rounded up; the initial
    /// window before any RTT sample.
    pub fn bdp(&self, bw: u32, gain: u32) -> u32 {
        if self.min_rtt_us == u32::MAX {
            return TCP_INIT_CWND;
        }
        let w = bw as u64 * self.min_rtt_us as u64;
        // (x + BW_UNIT − 1) / BW_UNIT; x < 2⁵⁶, so the sum cannot wrap.
        (w.wrapping_mul(gain as u64) >> BBR_SCALE).div_ceil(BW_UNIT) as u32
    }

    /// `bbr_quantization_budget`, packets: room for three TSO bursts, an
    /// even window (fewer delayed ACKs), and 2 more in ProbeBW's 1.25 phase
    /// so that small BDPs probe too.
    fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal();
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`, packets: the BDP with the quantization budget.
    pub fn inflight(&self, bw: u32, gain: u32) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`, packets: what will be in flight when the
    /// next segment departs (its earliest departure time may be ahead of
    /// now), counting that segment's burst when inflight is growing.
    fn packets_in_net_at_edt(&self, sock: &SocketView, inflight_now: u32) -> u32 {
        let now_ns = sock.now.nanos();
        let edt_ns = sock.earliest_departure.nanos().max(now_ns);
        let interval_us = (edt_ns - now_ns) / 1000;
        let interval_delivered = ((self.bw() as u64 * interval_us) >> BW_SCALE) as u32;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            inflight_at_edt += self.tso_segs_goal();
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// `bbr_ack_aggregation_cwnd`, packets: once the pipe is full, the
    /// largest recent excess of ACKed data, at most 100 ms of bandwidth.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if !self.full_bw_reached {
            return 0;
        }
        let max_aggr_cwnd = (self.bw() as u64 * EXTRA_ACKED_MAX_US / BW_UNIT) as u32;
        let extra = self.extra_acked[0].max(self.extra_acked[1]) as u32;
        ((EXTRA_ACKED_GAIN * extra) >> BBR_SCALE).min(max_aggr_cwnd)
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: take this ACK's losses off the
    /// window; on the first round of recovery, packet conservation (the
    /// window is what is in flight plus what this ACK delivered); on
    /// leaving recovery, restore the window saved when it began. Returns
    /// the window and whether packet conservation holds.
    fn set_cwnd_to_recover_or_restore(&mut self, sock: &SocketView, rs: &RateSample, acked: u32) -> (u32, bool) {
        let (prev, state) = (self.prev_ca_state, sock.ca_state);
        let mut cwnd = self.cwnd;
        if rs.losses > 0 {
            cwnd = (cwnd as i32).wrapping_sub(rs.losses as i32).max(1) as u32;
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = sock.delivered; // start a round now
            cwnd = sock.in_flight + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(sock.in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: slow-start towards the target window (gain × BDP +
    /// aggregation allowance + quantization budget), or snap down to it
    /// once the pipe is full; at least 4 packets, and 4 in ProbeRTT.
    fn set_cwnd(&mut self, sock: &SocketView, rs: &RateSample, acked: u32, bw: u32, gain: u32) {
        let mut cwnd = self.cwnd;
        if acked != 0 {
            let (recovered, conserving) = self.set_cwnd_to_recover_or_restore(sock, rs, acked);
            cwnd = recovered;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target += self.ack_aggregation_cwnd();
                target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || sock.delivered < TCP_INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        // No `snd_cwnd_clamp` in mpsim (the kernel's default is ~0).
        self.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(CWND_MIN_TARGET);
        }
    }

    /// `bbr_is_next_cycle_phase`: a 1.0 phase lasts one min_rtt; the 1.25
    /// phase lasts at least that and until inflight reaches 1.25 × BDP (or
    /// a loss); the 0.75 phase ends after min_rtt or once inflight is down
    /// to the BDP.
    fn is_next_cycle_phase(&self, sock: &SocketView, rs: &RateSample) -> bool {
        let is_full_length = sock.delivered_us.saturating_sub(self.cycle_mstamp) > self.min_rtt_us as u64;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(sock, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return is_full_length && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        is_full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    /// `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, sock: &SocketView) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = sock.delivered_us;
    }

    /// `bbr_update_cycle_phase`.
    fn update_cycle_phase(&mut self, sock: &SocketView, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(sock, rs) {
            self.advance_cycle_phase(sock);
        }
    }

    /// `bbr_reset_probe_bw_mode`: enter ProbeBW at a random phase other
    /// than the 0.75 one: index 7 − U{0..6}, then advanced by one, so the
    /// first phase is 0 (1.25) or one of 2..7 (1.0), each with chance 1/7.
    fn reset_probe_bw_mode(&mut self, sock: &SocketView) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.rng.below(CYCLE_RAND) as u8;
        self.advance_cycle_phase(sock);
    }

    /// `bbr_reset_mode`: back to STARTUP unless the pipe was found full.
    fn reset_mode(&mut self, sock: &SocketView) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(sock);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_reset_lt_bw_sampling_interval`.
    fn reset_lt_bw_sampling_interval(&mut self, sock: &SocketView) {
        self.lt_last_stamp = (sock.delivered_us / 1000) as u32;
        self.lt_last_delivered = sock.delivered;
        self.lt_last_lost = sock.lost;
        self.lt_rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    fn reset_lt_bw_sampling(&mut self, sock: &SocketView) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval(sock);
    }

    /// `bbr_lt_bw_interval_done`: two consecutive lossy intervals with
    /// rates within 1/8 or 4 kbit/s of each other: a policer; use their
    /// average.
    fn lt_bw_interval_done(&mut self, sock: &SocketView, bw: u32) {
        if self.lt_bw != 0 {
            // abs() of the u32 difference taken as an int, as the kernel's macro.
            let diff = (bw.wrapping_sub(self.lt_bw) as i32).unsigned_abs();
            if diff.wrapping_mul(BBR_UNIT) <= LT_BW_RATIO.wrapping_mul(self.lt_bw)
                || self.rate_bytes_per_sec(diff as u64, BBR_UNIT) <= LT_BW_DIFF
            {
                self.lt_bw = bw.wrapping_add(self.lt_bw) >> 1;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(sock);
    }

    /// `bbr_lt_bw_sampling`: time intervals of 4 to 16 rounds that begin
    /// and end with a loss; an interval losing ≥ 20 % gives a long-term
    /// rate (delivered over the interval's ms). Once policed, use the rate
    /// for 48 rounds of ProbeBW, then probe afresh.
    fn lt_bw_sampling(&mut self, sock: &SocketView, rs: &RateSample) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling(sock);
                    self.reset_probe_bw_mode(sock);
                }
            }
            return;
        }
        // Wait for the policer to run out of tokens: start at a loss.
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(sock);
            self.lt_is_sampling = true;
        }
        // An application-limited sample would under-estimate.
        if rs.is_app_limited {
            self.reset_lt_bw_sampling(sock);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling(sock);
            return;
        }
        if rs.losses == 0 {
            return;
        }
        let lost = sock.lost.wrapping_sub(self.lt_last_lost);
        let delivered = sock.delivered.wrapping_sub(self.lt_last_delivered);
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH.wrapping_mul(delivered) {
            return;
        }
        let t = ((sock.delivered_us / 1000) as u32).wrapping_sub(self.lt_last_stamp);
        if (t as i32) < 1 {
            return; // under a millisecond: wait
        }
        if t >= u32::MAX / 1000 {
            self.reset_lt_bw_sampling(sock);
            return;
        }
        let bw = delivered as u64 * BW_UNIT / (t as u64 * 1000);
        self.lt_bw_interval_done(sock, bw as u32);
    }

    /// `bbr_update_bw`: count rounds by `delivered` (a round ends when a
    /// packet sent after the round began is delivered), run the long-term
    /// sampler, and put the sample's rate in the max filter — an
    /// application-limited one only if it is no lower than the maximum.
    fn update_bw(&mut self, sock: &SocketView, rs: &RateSample) {
        self.round_start = false;
        let (Some(delivered), Some(interval_us)) = (rs.delivered, rs.interval_us) else {
            return;
        };
        if interval_us == 0 {
            return;
        }
        if !before(rs.prior_delivered, self.next_rtt_delivered) {
            self.next_rtt_delivered = sock.delivered;
            self.rtt_cnt = self.rtt_cnt.wrapping_add(1);
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(sock, rs);
        let bw = delivered as u64 * BW_UNIT / interval_us;
        if !rs.is_app_limited || bw >= self.max_bw() as u64 {
            self.bw.update(BW_RTTS, self.rtt_cnt, bw as u32);
        }
    }

    /// `bbr_update_ack_aggregation`: the largest excess of (S)ACKed packets
    /// over what the bandwidth estimate delivers in the same time, in a
    /// window of 5–10 rounds (two halves).
    fn update_ack_aggregation(&mut self, sock: &SocketView, rs: &RateSample) {
        if rs.acked_sacked == 0 || rs.delivered.is_none() || rs.interval_us.is_none_or(|i| i == 0) {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = sock.delivered_us.saturating_sub(self.ack_epoch_mstamp) as u32;
        let mut expected_acked = (self.bw() as u64 * epoch_us as u64 / BW_UNIT) as u32;
        // The ACK rate fell below the estimate, or the epoch is very old: restart it.
        if self.ack_epoch_acked <= expected_acked || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = sock.delivered_us;
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xfffff);
        let extra_acked = (self.ack_epoch_acked - expected_acked).min(self.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        if extra_acked > *slot as u32 {
            *slot = extra_acked as u16;
        }
    }

    /// `bbr_check_full_bw_reached`: at each round start of a sample not
    /// application-limited, the pipe is full after 3 rounds in a row in
    /// which the max bandwidth grew less than 25 %.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw_thresh = ((self.full_bw as u64 * FULL_BW_THRESH as u64) >> BBR_SCALE) as u32;
        if self.max_bw() >= bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`: a full pipe ends STARTUP (ssthresh then is the
    /// BDP's inflight); DRAIN ends once what will be in the network at
    /// the next departure is down to the BDP.
    fn check_drain(&mut self, sock: &SocketView) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
        }
        if self.mode == Mode::Drain && self.packets_in_net_at_edt(sock, sock.in_flight) <= self.inflight(self.max_bw(), BBR_UNIT) {
            self.reset_probe_bw_mode(sock);
        }
    }

    /// `bbr_check_probe_rtt_done`: ProbeRTT's time is up: restart the
    /// min-RTT window, restore the saved window, leave.
    fn check_probe_rtt_done(&mut self, sock: &SocketView) {
        let Some(done) = self.probe_rtt_done_stamp else { return };
        if !after(sock.jiffies(), done) {
            return;
        }
        self.min_rtt_stamp = sock.jiffies();
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_mode(sock);
    }

    /// `bbr_update_min_rtt`: a lower RTT, or any (not delayed-ACK) sample
    /// once the minimum is 10 s old, becomes the minimum; a 10 s old
    /// minimum also starts ProbeRTT (unless restarting from idle), which
    /// holds inflight at 4 packets for max(200 ms, one round). Returns
    /// whether the pipe must be marked application-limited (in ProbeRTT).
    fn update_min_rtt(&mut self, sock: &SocketView, rs: &RateSample) -> bool {
        let now = sock.jiffies();
        let filter_expired = after(now, self.min_rtt_stamp.wrapping_add(MIN_RTT_WIN_SEC * HZ));
        if let Some(rtt_us) = rs.rtt_us {
            if rtt_us < self.min_rtt_us as u64 || (filter_expired && !rs.is_ack_delayed) {
                self.min_rtt_us = rtt_us as u32;
                self.min_rtt_stamp = now;
            }
        }
        if filter_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
        }
        let in_probe_rtt = self.mode == Mode::ProbeRtt;
        if in_probe_rtt {
            if self.probe_rtt_done_stamp.is_none() && sock.in_flight <= CWND_MIN_TARGET {
                self.probe_rtt_done_stamp = Some(now.wrapping_add(PROBE_RTT_MODE_MS * HZ / 1000));
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = sock.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(sock);
                }
            }
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
        in_probe_rtt
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw if self.lt_use_bw => (BBR_UNIT, CWND_GAIN),
            Mode::ProbeBw => (PACING_GAIN[self.cycle_idx as usize], CWND_GAIN),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// `bbr_ssthresh`: the stack enters recovery or loss; remember the
    /// window to restore. ssthresh itself is left as it is (infinite until
    /// DRAIN set it).
    pub fn on_loss_ssthresh(&mut self) -> u32 {
        self.save_cwnd();
        self.ssthresh
    }

    /// `bbr_undo_cwnd`: a reduction was spurious: the pipe may not be full
    /// after all, and no policer was found; the window stays as it is.
    pub fn undo_cwnd(&mut self, sock: &SocketView) -> u32 {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_bw_sampling(sock);
        self.cwnd
    }

    /// `bbr_set_state(TCP_CA_Loss)`: a retransmission timeout ends a round
    /// and is a loss to the long-term sampler; full-pipe detection starts
    /// over (without undoing `full_bw_reached`).
    pub fn on_enter_loss(&mut self, sock: &SocketView) {
        let rs = RateSample { losses: 1, ..RateSample::default() };
        self.prev_ca_state = CaState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        self.lt_bw_sampling(sock, &rs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamDomain;
    use crate::time::SimDuration;

    const MSS: u32 = 1000;
    /// The scripted path's RTT, µs (no queue: every sample is the minimum).
    const RTT_US: u64 = 10_000;
    /// 100 packets per 10 ms in the kernel's fixed point:
    /// 100 · 2²⁴ / 10 000 = 167 772.16, truncated.
    const BW_100: u32 = 167_772;

    fn at_us(us: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_micros(us)
    }

    /// A lossless path of fixed RTT, fed to BBR as the rate samples
    /// `tcp_rate.c` would make of it: the packets an ACK at t delivers left
    /// one RTT earlier, so the sample is the packets delivered since the
    /// ACK one RTT before t, over that RTT.
    struct Path {
        bbr: Bbr,
        sock: SocketView,
        /// (µs, delivered) at every ACK so far.
        history: Vec<(u64, u32)>,
        /// BBR asked the sampler to mark the pipe application-limited
        /// (ProbeRTT): the next samples are.
        app_limited: bool,
    }

    impl Path {
        /// A connection just set up at time 0: delivered 1 (the SYN), cwnd
        /// 10, SRTT and min RTT one RTT.
        fn new(seed: u64) -> Path {
            let sock = SocketView {
                now: SimTime::ZERO,
                delivered: 1,
                delivered_us: 0,
                lost: 0,
                in_flight: 0,
                ca_state: CaState::Open,
                srtt_us: RTT_US,
                earliest_departure: SimTime::ZERO,
            };
            let init = BbrInit { sock, cwnd: 10, mss: MSS, min_rtt_us: RTT_US as u32 };
            let bbr = Bbr::new(&init, RngStream::derive(seed, StreamDomain::CongestionControl, 0));
            Path { bbr, sock, history: vec![(0, 1)], app_limited: false }
        }

        /// BBR in ProbeBW at `t0_us` at phase `cycle_idx`, begun then, the
        /// bandwidth filter holding 100 packets per RTT, cwnd 200, and
        /// 1000 packets delivered, 10 in each of the last 10 ms.
        fn probe_bw(seed: u64, t0_us: u64, cycle_idx: u8) -> Path {
            let mut p = Path::new(seed);
            p.history = (0..=10).map(|k| (t0_us - RTT_US + 1000 * k, 900 + 10 * k as u32)).collect();
            p.sock.delivered = 1000;
            p.sock.delivered_us = t0_us;
            p.sock.now = at_us(t0_us);
            let b = &mut p.bbr;
            b.mode = Mode::ProbeBw;
            b.full_bw_reached = true;
            b.bw.reset(0, BW_100);
            b.cycle_idx = cycle_idx;
            b.cycle_mstamp = t0_us;
            b.ack_epoch_mstamp = t0_us;
            b.min_rtt_stamp = (t0_us / 1000) as u32;
            b.next_rtt_delivered = 1000;
            b.cwnd = 200;
            b.update_gains();
            b.pacing_rate = b.rate_bytes_per_sec(BW_100 as u64, b.pacing_gain);
            p
        }

        /// An ACK at `t_us` delivering `n` packets and marking `losses`
        /// lost, `in_flight` left after it (`in_flight + n` before).
        fn ack_lossy(&mut self, t_us: u64, n: u32, losses: u32, in_flight: u32) {
            let &(prior_us, prior_delivered) =
                self.history.iter().rev().find(|h| h.0 + RTT_US <= t_us).unwrap_or(&self.history[0]);
            self.sock.now = at_us(t_us);
            self.sock.earliest_departure = self.sock.now;
            self.sock.delivered += n;
            self.sock.delivered_us = t_us;
            self.sock.lost += losses;
            self.sock.in_flight = in_flight;
            let rs = RateSample {
                prior_us: Some(prior_us),
                prior_delivered,
                delivered: Some(self.sock.delivered - prior_delivered),
                interval_us: Some(t_us - prior_us),
                rtt_us: Some(RTT_US),
                acked_sacked: n,
                losses,
                prior_in_flight: in_flight + n,
                is_app_limited: self.app_limited,
                ..RateSample::default()
            };
            self.history.push((t_us, self.sock.delivered));
            self.app_limited = self.bbr.on_ack(&self.sock, &rs);
        }

        fn ack(&mut self, t_us: u64, n: u32, in_flight: u32) {
            self.ack_lossy(t_us, n, 0, in_flight);
        }
    }

    #[test]
    fn the_gains_are_the_kernels_fixed_point_constants() {
        // 256 · 2885 / 1000 = 738.56 → 738, + 1; 256 000 / 2885 = 88.7 → 88.
        assert_eq!((HIGH_GAIN, DRAIN_GAIN, CWND_GAIN), (739, 88, 512));
        assert_eq!(PACING_GAIN, [320, 192, 256, 256, 256, 256, 256, 256]);
    }

    /// Before any ACK: high_gain × cwnd / SRTT. bw = 10 · 2²⁴ / 10 000 =
    /// 16 777; rate = ((16 777 · 1000 · 739) >> 8) · 990 000 >> 24 =
    /// 48 430 480 · 990 000 / 2²⁴ → 2 857 814 bytes/s. Without an SRTT,
    /// 1 ms: bw 167 772, rate 28 578 488.
    #[test]
    fn the_initial_pacing_rate_is_high_gain_times_the_initial_window_over_srtt() {
        let p = Path::new(1);
        assert_eq!((p.bbr.pacing_rate, p.bbr.has_seen_rtt), (2_857_814, true));
        assert_eq!((p.bbr.mode, p.bbr.ssthresh, p.bbr.min_rtt_us), (Mode::Startup, INFINITE_SSTHRESH, 10_000));
        let init = BbrInit { sock: SocketView { srtt_us: 0, ..p.sock }, cwnd: 10, mss: MSS, min_rtt_us: u32::MAX };
        let b = Bbr::new(&init, RngStream::derive(1, StreamDomain::CongestionControl, 0));
        assert_eq!((b.pacing_rate, b.has_seen_rtt), (28_578_488, false));
        // No RTT sample at all: the BDP is the initial window.
        assert_eq!(b.bdp(BW_100, BBR_UNIT), TCP_INIT_CWND);
    }

    /// `bbr_rate_bytes_per_sec` and `bbr_tso_segs_goal` at hand-computed
    /// points: bw 167 772 at gain 1.0: ((167 772 000 · 256 >> 8) · 990 000)
    /// / 2²⁴ = 9 899 990 bytes/s (1 % under 10 MB/s, less the truncations);
    /// its TSO goal 9 899 990 >> 10 = 9667 bytes = 9 segments.
    #[test]
    fn pacing_rate_and_tso_goal_follow_the_kernels_integers() {
        let mut b = Path::new(1).bbr;
        assert_eq!(b.rate_bytes_per_sec(BW_100 as u64, BBR_UNIT), 9_899_990);
        assert_eq!(b.rate_bytes_per_sec(BW_100 as u64, 320), 12_374_988);
        b.pacing_rate = 9_899_990;
        assert_eq!(b.tso_segs_goal(), 9);
        // Below 1.2 Mbit/s = 150 000 bytes/s: 1 segment; just above
        // (146 bytes per ms < 1 MSS): 2.
        b.pacing_rate = 149_999;
        assert_eq!(b.tso_segs_goal(), 1);
        b.pacing_rate = 150_000;
        assert_eq!(b.tso_segs_goal(), 2);
        // 10 GB/s: 9 765 625 bytes per 1/1024 s, capped at 65 215 bytes:
        // 65 segments of 1000, 130 of 500 capped at 127.
        b.pacing_rate = 10_000_000_000;
        assert_eq!(b.tso_segs_goal(), 65);
        b.mss = 500;
        assert_eq!(b.tso_segs_goal(), 127);
        // The BDP rounds up: 167 772 · 10 000 / 2²⁴ = 99.99998 → 100;
        // × 2.0 → 200; × 1.25 → 125.
        b.min_rtt_us = 10_000;
        assert_eq!((b.bdp(BW_100, BBR_UNIT), b.bdp(BW_100, CWND_GAIN), b.bdp(BW_100, 320)), (100, 200, 125));
    }

    /// One ACK per round on a path delivering 10, 20, 40, 80, then 100
    /// packets per round: bw 16 777, 33 554, 67 108, 134 217, 167 772.
    /// Each grows ≥ 25 % over `full_bw` (80 → 100 just: 134 217 · 320 >> 8
    /// = 167 771 ≤ 167 772), so `full_bw_cnt` is 0 after round 5; rounds 6,
    /// 7, 8 bring no growth and at round 8 (80 ms) the pipe is full: DRAIN.
    /// ssthresh = inflight(bw, 1.0) = BDP 100 + 3 TSO goals at STARTUP's
    /// pacing rate (28 578 488 bytes/s → 27 908 bytes → 27 segments): 181,
    /// even: 182. DRAIN paces at 88/256: 3 403 121 bytes/s, whose TSO goal
    /// is 3, so it ends once inflight ≤ 100 + 9 → 110.
    #[test]
    fn startup_ends_after_three_rounds_without_growth_and_drain_at_the_bdp() {
        let mut p = Path::new(7);
        for (k, n) in [10, 20, 40, 80, 100, 100, 100].into_iter().enumerate() {
            p.ack((k as u64 + 1) * RTT_US, n, 200);
            assert_eq!(p.bbr.mode, Mode::Startup, "round {}", k + 1);
            assert_eq!(p.bbr.rtt_cnt, k as u32 + 1);
            if k == 0 {
                // cwnd 10 grows by the 10 delivered while under its target.
                assert_eq!(p.bbr.cwnd, 20);
            }
        }
        assert_eq!((p.bbr.full_bw, p.bbr.full_bw_cnt, p.bbr.max_bw()), (BW_100, 2, BW_100));
        // STARTUP never lowers the pacing rate: high_gain × bw 167 772.
        assert_eq!(p.bbr.pacing_rate, 28_578_488);
        p.ack(80_000, 100, 200);
        assert_eq!((p.bbr.mode, p.bbr.full_bw_reached, p.bbr.ssthresh), (Mode::Drain, true, 182));
        assert_eq!((p.bbr.pacing_gain, p.bbr.cwnd_gain, p.bbr.pacing_rate), (DRAIN_GAIN, HIGH_GAIN, 3_403_121));
        p.ack(90_000, 100, 111);
        assert_eq!(p.bbr.mode, Mode::Drain);
        p.ack(100_000, 100, 110);
        assert_eq!(p.bbr.mode, Mode::ProbeBw);
        assert_eq!(p.bbr.cycle_mstamp, 100_000);
        assert_ne!(p.bbr.cycle_idx, 1, "ProbeBW never starts in the 0.75 phase");
        let gain = PACING_GAIN[p.bbr.cycle_idx as usize];
        assert_eq!((p.bbr.pacing_gain, p.bbr.cwnd_gain), (gain, CWND_GAIN));
        assert_eq!(p.bbr.pacing_rate, p.bbr.rate_bytes_per_sec(BW_100 as u64, gain));
    }

    /// An application-limited sample below the maximum neither enters the
    /// filter nor counts towards a full pipe; one above it enters.
    #[test]
    fn app_limited_samples_only_raise_the_filter() {
        let mut p = Path::new(3);
        p.ack(10_000, 50, 50);
        assert_eq!(p.bbr.max_bw(), 83_886); // 50 · 2²⁴ / 10 000
        p.app_limited = true;
        p.ack(20_000, 20, 20);
        assert_eq!((p.bbr.max_bw(), p.bbr.full_bw_cnt, p.bbr.rtt_cnt), (83_886, 0, 2));
        p.app_limited = true;
        p.ack(30_000, 100, 100);
        assert_eq!(p.bbr.max_bw(), BW_100);
    }

    /// With ACKs every ms (10 packets each) and the queue never drained
    /// (250 packets in flight), each 1.0 phase ends on the first ACK more
    /// than min_rtt after it began: 11 ms; the 1.25 phase too, as inflight
    /// 250 + 12 ≥ 1.25 × BDP 125 + 3 · 12 + 2; the 0.75 phase at its full
    /// length, inflight staying above the BDP. Pacing follows the gain:
    /// 9 899 990, 12 374 988, 7 424 992 bytes/s.
    #[test]
    fn probe_bw_cycles_its_gains_one_min_rtt_each() {
        let t0 = 1_000_000;
        let mut p = Path::probe_bw(1, t0, 2);
        let mut changes = Vec::new();
        for ms in 1..=100 {
            let before = p.bbr.cycle_idx;
            p.ack(t0 + ms * 1000, 10, 240);
            if p.bbr.cycle_idx != before {
                changes.push((ms, p.bbr.cycle_idx, p.bbr.pacing_rate));
            }
        }
        let unit = 9_899_990;
        assert_eq!(
            changes,
            [
                (11, 3, unit),
                (22, 4, unit),
                (33, 5, unit),
                (44, 6, unit),
                (55, 7, unit),
                (66, 0, 12_374_988),
                (77, 1, 7_424_992),
                (88, 2, unit),
                (99, 3, unit),
            ]
        );
    }

    /// The 1.25 phase outlasts min_rtt until inflight reaches its target
    /// (or a loss); the 0.75 phase ends early once inflight is down to the
    /// BDP's: 100 + 3 · 7 (TSO goal at 7 424 992 bytes/s) = 121 → 122.
    #[test]
    fn probe_bw_phases_end_on_inflight() {
        let t0 = 1_000_000;
        // 1.25: inflight 100 + 12 < 125 + 36 → 162 + 2.
        let mut p = Path::probe_bw(1, t0, 0);
        for ms in 1..=30 {
            p.ack(t0 + ms * 1000, 10, 90);
        }
        assert_eq!(p.bbr.cycle_idx, 0);
        p.ack_lossy(t0 + 31_000, 10, 1, 90);
        assert_eq!((p.bbr.cycle_idx, p.bbr.cycle_mstamp), (1, t0 + 31_000));
        // 0.75: 123 packets before the ACK stay; 122 end the phase.
        let mut p = Path::probe_bw(1, t0, 1);
        p.ack(t0 + 1000, 10, 113);
        assert_eq!(p.bbr.cycle_idx, 1);
        p.ack(t0 + 2000, 10, 112);
        assert_eq!(p.bbr.cycle_idx, 2);
    }

    /// ProbeBW's window: 2 × BDP (200) + the ACK-aggregation allowance + 3
    /// TSO goals, even, + 2 in the 1.25 phase. ACKs of 10 packets every ms
    /// against an estimate of 9.99998 per ms exceed it by 11 (the epoch's
    /// expected count truncates: 10k + 10 − (10k − 1)), 10 at the epoch's
    /// first ACK. cwnd grows by the ACKed packets up to the target: 210,
    /// 220, 230, then 200 + 11 + 27 = 238. In the 1.25 phase (TSO goal
    /// 12): 200 + 11 + 36 = 247 → 248, + 2 = 250; in the 0.75 phase (7):
    /// 232, to which the window snaps down.
    #[test]
    fn probe_bw_cwnd_is_twice_the_bdp_plus_budgets() {
        let t0 = 1_000_000;
        let mut p = Path::probe_bw(1, t0, 7);
        let mut cwnds = Vec::new();
        for ms in 1..=5 {
            p.ack(t0 + ms * 1000, 10, 240);
            cwnds.push(p.bbr.cwnd);
        }
        assert_eq!(cwnds, [210, 220, 230, 238, 238]);
        assert_eq!(p.bbr.extra_acked, [11, 0]);
        let cwnd_in = |idx: u8| {
            let mut p = Path::probe_bw(1, t0, idx);
            p.bbr.cwnd = 300;
            p.ack(t0 + 1000, 10, 240);
            p.ack(t0 + 2000, 10, 240);
            p.bbr.cwnd
        };
        assert_eq!((cwnd_in(0), cwnd_in(1), cwnd_in(4)), (250, 232, 238));
    }

    /// ProbeBW starts at phase 7 − U{0..6} + 1 (mod 8): every phase but the
    /// 0.75 one, from the subflow's own stream, the same for the same seed.
    #[test]
    fn probe_bw_starts_at_a_seeded_random_phase_never_the_draining_one() {
        let mut seen = [false; 8];
        for seed in 0..300 {
            let mut p = Path::probe_bw(seed, 1_000_000, 2);
            let sock = p.sock;
            p.bbr.reset_probe_bw_mode(&sock);
            seen[p.bbr.cycle_idx as usize] = true;
        }
        assert_eq!(seen, [true, false, true, true, true, true, true, true]);
        let first = |seed| {
            let mut p = Path::probe_bw(seed, 1_000_000, 2);
            let sock = p.sock;
            p.bbr.reset_probe_bw_mode(&sock);
            p.bbr.cycle_idx
        };
        assert_eq!(first(42), first(42));
    }

    /// The min RTT, taken at 0, is 10 s old at 10 000 ms: not yet expired
    /// (`after` is strict); at 10 001 ms ProbeRTT begins, the cwnd (210
    /// after the first ACK) saved and cut to 4. Inflight falls to 4 at
    /// 10 003 ms: ProbeRTT ends 200 ms later and after a round, on the
    /// first ACK past 10 203 ms, restoring the window (min(210 + 1, a
    /// target of at least 200 + 1 + 21)) and ProbeBW, the min-RTT window
    /// restarting then.
    #[test]
    fn probe_rtt_comes_after_ten_seconds_and_lasts_200_ms_and_a_round() {
        let t0 = 9_999_000;
        let mut p = Path::probe_bw(5, t0, 2);
        p.bbr.min_rtt_stamp = 0;
        p.ack(10_000_000, 10, 240);
        assert_eq!((p.bbr.mode, p.bbr.cwnd), (Mode::ProbeBw, 210));
        p.ack(10_001_000, 10, 240);
        assert_eq!((p.bbr.mode, p.bbr.cwnd, p.bbr.prior_cwnd), (Mode::ProbeRtt, 4, 210));
        // The expired filter took this ACK's sample as the minimum.
        assert_eq!((p.bbr.min_rtt_us, p.bbr.min_rtt_stamp), (10_000, 10_001));
        assert_eq!((p.bbr.pacing_gain, p.bbr.cwnd_gain), (BBR_UNIT, BBR_UNIT));
        assert!(p.app_limited, "ProbeRTT marks the pipe application-limited");
        p.ack(10_002_000, 1, 50);
        assert_eq!(p.bbr.probe_rtt_done_stamp, None);
        p.ack(10_003_000, 1, 4);
        assert_eq!(p.bbr.probe_rtt_done_stamp, Some(10_203));
        for ms in 10_004..=10_203 {
            p.ack(ms * 1000, 1, 4);
            assert_eq!((p.bbr.mode, p.bbr.cwnd), (Mode::ProbeRtt, 4), "{ms} ms");
            // The round begun at 10 003 ms ends at 10 013 ms.
            assert_eq!(p.bbr.probe_rtt_round_done, ms >= 10_013, "{ms} ms");
        }
        p.ack(10_204_000, 1, 4);
        assert_eq!((p.bbr.mode, p.bbr.cwnd, p.bbr.min_rtt_stamp), (Mode::ProbeBw, 211, 10_204));
        // The ACK that ends ProbeRTT still marks the pipe (the kernel marks
        // it before testing the end), the next no more.
        assert!(p.app_limited);
        p.ack(10_205_000, 1, 4);
        assert!(!p.app_limited);
        assert_eq!(p.bbr.max_bw(), BW_100, "ProbeRTT's app-limited samples stayed out of the filter");
    }

    /// Entering recovery: the losses come off and the window is what is in
    /// flight plus what the ACK delivered (packet conservation) for one
    /// round; leaving it restores the window saved by `bbr_ssthresh`.
    #[test]
    fn recovery_conserves_packets_for_a_round_then_restores_the_window() {
        let t0 = 1_000_000;
        let mut p = Path::probe_bw(1, t0, 4);
        assert_eq!(p.bbr.on_loss_ssthresh(), INFINITE_SSTHRESH);
        assert_eq!(p.bbr.prior_cwnd, 200);
        p.sock.ca_state = CaState::Recovery;
        // 200 − 3 lost, then conservation: 150 in flight + 5 delivered.
        p.ack_lossy(t0 + 1000, 5, 3, 150);
        assert_eq!((p.bbr.cwnd, p.bbr.packet_conservation, p.bbr.next_rtt_delivered), (155, true, 1005));
        // max(155, 148 + 5).
        p.ack(t0 + 2000, 5, 148);
        assert_eq!(p.bbr.cwnd, 155);
        // max(155, 160 + 5).
        p.ack(t0 + 3000, 5, 160);
        assert_eq!(p.bbr.cwnd, 165);
        // Conservation never lowers the window: max(165, 100 + 5).
        for ms in 4..=10 {
            p.ack(t0 + ms * 1000, 5, 100);
            assert_eq!((p.bbr.cwnd, p.bbr.packet_conservation), (165, true));
        }
        // 10 ms after the round began (the ACK's prior_delivered reaches
        // 1005) conservation ends; cwnd grows by the 5 packets towards the
        // target (200 + 5 + 27 → 232: ACKs of 5 per ms fall behind the
        // estimate, so each restarts the aggregation epoch at 5).
        p.ack(t0 + 11_000, 5, 100);
        assert!(!p.bbr.packet_conservation);
        assert_eq!(p.bbr.cwnd, 170);
        // Out of recovery: max(170, prior 200), + 5 acked (under target).
        p.sock.ca_state = CaState::Open;
        p.ack(t0 + 12_000, 5, 100);
        assert_eq!(p.bbr.cwnd, 205);
        // Saving again inside recovery keeps the larger of the two.
        p.bbr.prev_ca_state = CaState::Recovery;
        p.bbr.cwnd = 50;
        p.bbr.on_loss_ssthresh();
        assert_eq!(p.bbr.prior_cwnd, 200);
    }

    /// Two lossy intervals (≥ 4 rounds, ≥ 20 % lost) delivering the same
    /// 5 packets per ms, 2 lost per ms. The first loss (1 ms) opens the
    /// first interval; rounds start at 10, 20, 30, 40 ms (the ACK at 1 ms
    /// delivers packets sent before the state's round began), so it ends
    /// at 40 ms: 195 delivered, 78 lost, in 39 ms: 195 · 2²⁴ / 39 000 =
    /// 83 886. The second ends at 80 ms: 200 in 40 ms, 83 886: a policer.
    /// BBR then uses lt_bw = 83 886 at gain 1.0 (4 949 995 bytes/s) for 48
    /// rounds of ProbeBW, to 560 ms.
    #[test]
    fn two_consistent_lossy_intervals_mean_a_policer() {
        let t0 = 1_000_000;
        let mut p = Path::probe_bw(1, t0, 2);
        for ms in 1..=79 {
            p.ack_lossy(t0 + ms * 1000, 5, 2, 100);
            match ms {
                1 => assert!(p.bbr.lt_is_sampling && p.bbr.lt_last_stamp == 1001 && p.bbr.lt_rtt_cnt == 0),
                39 => assert_eq!((p.bbr.lt_bw, p.bbr.lt_rtt_cnt), (0, 3)),
                40 => assert_eq!((p.bbr.lt_bw, p.bbr.lt_use_bw, p.bbr.lt_last_stamp), (83_886, false, 1040)),
                _ => assert!(!p.bbr.lt_use_bw),
            }
        }
        p.ack_lossy(t0 + 80_000, 5, 2, 100);
        assert_eq!((p.bbr.lt_use_bw, p.bbr.lt_bw, p.bbr.bw()), (true, 83_886, 83_886));
        assert_eq!((p.bbr.pacing_gain, p.bbr.pacing_rate), (BBR_UNIT, 4_949_995));
        // Rounds start every 10 ms; the 48th after 80 ms is at 560 ms.
        for ms in 81..=559 {
            p.ack_lossy(t0 + ms * 1000, 5, 2, 100);
            assert!(p.bbr.lt_use_bw, "{ms} ms");
        }
        p.ack_lossy(t0 + 560_000, 5, 2, 100);
        assert!(!p.bbr.lt_use_bw && p.bbr.lt_bw == 0);
        assert_eq!(p.bbr.cycle_mstamp, t0 + 560_000);
    }

    /// An undo restarts full-pipe detection and the policer search and
    /// leaves the window; a timeout ends a round and starts long-term
    /// sampling.
    #[test]
    fn undo_and_timeout_reset_what_the_kernel_resets() {
        let t0 = 1_000_000;
        let mut p = Path::probe_bw(1, t0, 2);
        p.bbr.full_bw = 5;
        p.bbr.full_bw_cnt = 2;
        p.bbr.lt_use_bw = true;
        p.bbr.lt_bw = 9;
        let sock = p.sock;
        assert_eq!(p.bbr.undo_cwnd(&sock), 200);
        assert_eq!((p.bbr.full_bw, p.bbr.full_bw_cnt, p.bbr.lt_use_bw, p.bbr.lt_bw), (0, 0, false, 0));
        assert!(p.bbr.full_bw_reached);
        p.bbr.full_bw = 5;
        p.bbr.on_enter_loss(&sock);
        assert_eq!((p.bbr.prev_ca_state, p.bbr.full_bw, p.bbr.round_start), (CaState::Loss, 0, true));
        // The loss opened a long-term interval, and the round it ended counts.
        assert_eq!((p.bbr.lt_is_sampling, p.bbr.lt_rtt_cnt, p.bbr.lt_last_delivered), (true, 1, 1000));
    }

    /// Sending again after idle with the pipe application-limited: ProbeBW
    /// paces at the estimate (gain 1.0, even in the 1.25 phase), and no
    /// ProbeRTT starts until an ACK of data.
    #[test]
    fn restarting_from_idle_paces_at_the_estimate() {
        let t0 = 1_000_000;
        let mut p = Path::probe_bw(1, t0, 0);
        assert_eq!(p.bbr.pacing_rate, 12_374_988);
        let sock = p.sock;
        p.bbr.on_tx_start(&sock, false);
        assert!(!p.bbr.idle_restart);
        p.bbr.on_tx_start(&sock, true);
        assert_eq!((p.bbr.idle_restart, p.bbr.pacing_rate, p.bbr.ack_epoch_mstamp), (true, 9_899_990, t0));
        // The min RTT expires while idle-restarting: no ProbeRTT yet.
        p.bbr.min_rtt_stamp = 0;
        p.sock.now = at_us(20_000_000);
        let rs = RateSample::default();
        let _ = p.bbr.on_ack(&p.sock, &rs);
        assert_eq!(p.bbr.mode, Mode::ProbeBw);
    }
}
