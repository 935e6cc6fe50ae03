//! A congestion control that replaces the stack's window rules
//! (`tcp_congestion_ops.cong_control`, Linux 6.18 `tcp_cong_control`):
//! BBR. On each ACK the kernel builds a delivery-rate sample
//! (`tcp_rate.c`) and hands it to `bbr_main` instead of running PRR or
//! `tcp_cong_avoid`; recovery still decides what is lost and resent, but
//! not the window (`tcp_end_cwnd_reduction` leaves it alone), and the
//! socket paces itself (`tcp_needs_internal_pacing`: the rig has no fq).
//!
//! The sender keeps this part boxed, present only on a subflow that runs
//! BBR: the sampler, the model, the pacing clock, the ACK's sample being
//! built and the connection's minimum RTT (`tcp_min_rtt`).

use super::*;
use crate::cc::bbr::{Bbr, BbrInit, CaState, SocketView, INFINITE_SSTHRESH};
use crate::cc::rate::{RateSample, RateSampler};
use crate::rng::RngStream;
use crate::transport::tcp::pacing::Pacer;

#[derive(Clone, Debug)]
pub(super) struct CongControl {
    pub rate: RateSampler,
    pub bbr: Bbr,
    pub pacer: Pacer,
    /// The sample of the ACK being processed.
    pub rs: RateSample,
    /// `tcp_min_rtt`, µs: the least congestion-control RTT sample
    /// (`tcp_update_rtt_min`; its 300 s window outlasts any run here).
    pub min_rtt_us: u32,
}

/// A duration in whole µs, at least 1 (the kernel's `rtt_us ? : 1`).
fn micros_of(d: SimDuration) -> u32 {
    (d.nanos() / 1_000).clamp(1, u32::MAX as u64) as u32
}

impl TcpSender {
    /// Whether the sender runs BBR.
    #[inline]
    pub fn runs_bbr(&self) -> bool {
        self.cong.is_some()
    }

    /// The subflow runs BBR (`cc = "bbr"`); `rng` is its own stream. The
    /// model starts when the handshake ends (`tcp_init_transfer`).
    pub fn use_bbr(&mut self, rng: RngStream) {
        self.bbr_rng = Some(rng);
    }

    /// The subflow runs BBR, or will once its handshake ends.
    pub fn chose_bbr(&self) -> bool {
        self.bbr_rng.is_some() || self.cong.is_some()
    }

    /// BBR's pacing rate, bytes/s, once it runs.
    pub fn bbr_pacing_rate(&self) -> Option<u64> {
        self.cong.as_ref().map(|c| c.bbr.pacing_rate)
    }

    /// BBR's mode, once it runs (for tests and traces).
    pub fn bbr(&self) -> Option<&Bbr> {
        self.cong.as_ref().map(|c| &c.bbr)
    }

    /// Segments the ACK or timer being processed delivered
    /// (`tcp_newly_delivered`).
    #[inline]
    pub(super) fn delivered_this_event(&self) -> u64 {
        self.delivered_segs - self.delivered_segs_at_event
    }

    /// `tcp_packets_in_flight` ([`Scoreboard::packets_in_flight`]).
    #[inline]
    pub(super) fn packets_in_flight(&self) -> u32 {
        self.board.packets_in_flight() as u32
    }

    /// `icsk_ca_state` as BBR reads it.
    fn ca_state(&self) -> CaState {
        if self.in_rto_recovery {
            CaState::Loss
        } else if self.recovery.is_some() {
            CaState::Recovery
        } else if self.board.sacked_bytes > 0 || self.dupacks > 0 {
            CaState::Disorder
        } else {
            CaState::Open
        }
    }

    fn socket_view(&self, now: SimTime) -> SocketView {
        view_of(self.cong.as_deref(), self.socket_state(now))
    }

    /// What BBR reads of the socket outside its own state.
    fn socket_state(&self, now: SimTime) -> SocketState {
        SocketState {
            now,
            lost: self.board.lost_marks as u32,
            in_flight: self.packets_in_flight(),
            ca_state: self.ca_state(),
            srtt_us: self.rtt.srtt.nanos() / 1_000,
        }
    }

    /// `tcp_init_transfer` → `bbr_init`, once the handshake is done: the
    /// sampler's first state, the handshake's RTT as the minimum, the
    /// initial window and the first pacing rate.
    pub(super) fn start_cong_control(&mut self, now: SimTime, sf: &mut SubflowCc) {
        let Some(rng) = self.bbr_rng.take() else { return };
        let min_rtt_us = if self.rtt.min_rtt > SimDuration::ZERO {
            micros_of(self.rtt.min_rtt)
        } else {
            u32::MAX
        };
        let init = BbrInit {
            sock: self.socket_view(now),
            cwnd: (sf.cwnd / self.mss as u64) as u32,
            mss: self.mss,
            min_rtt_us,
        };
        let bbr = Bbr::new(&init, rng);
        self.cong = Some(Box::new(CongControl {
            rate: RateSampler::established(),
            bbr,
            pacer: Pacer::default(),
            rs: RateSample::default(),
            min_rtt_us,
        }));
        self.publish_window(sf);
    }

    /// BBR's window and threshold, in the subflow's bytes.
    fn publish_window(&self, sf: &mut SubflowCc) {
        let Some(c) = self.cong.as_deref() else { return };
        let mss = self.mss as u64;
        sf.cwnd = c.bbr.cwnd as u64 * mss;
        sf.ssthresh = if c.bbr.ssthresh >= INFINITE_SSTHRESH {
            u64::MAX
        } else {
            c.bbr.ssthresh as u64 * mss
        };
    }

    /// The start of an ACK's processing (`tcp_ack`): a fresh sample.
    pub(super) fn begin_rate_sample(&mut self) {
        if let Some(c) = self.cong.as_deref_mut() {
            c.rs = RateSample {
                prior_in_flight: self.board.packets_in_flight() as u32,
                ..RateSample::default()
            };
        }
    }

    /// `tcp_count_delivered` and `tcp_rate_skb_delivered` for segment `i`,
    /// newly SACKed.
    pub(super) fn sacked_delivered(&mut self, i: usize) {
        self.delivered_segs += 1;
        let Some(c) = self.cong.as_deref_mut() else { return };
        let s = &mut self.board.segs[i];
        let (sent_at, end, retrans) = (s.sent_at, s.end(), s.flags & EVER_RETRANS != 0);
        c.rate.on_delivered(&mut c.rs, &mut s.tx, sent_at, end, retrans, true);
    }

    /// The same for a segment cumulatively acknowledged, `seg` as it was:
    /// counted delivered unless it was SACKed before.
    pub(super) fn acked_delivered(&mut self, seg: &Seg) {
        if seg.flags & SACKED == 0 {
            self.delivered_segs += 1;
        }
        let Some(c) = self.cong.as_deref_mut() else { return };
        let mut tx = seg.tx;
        c.rate.on_delivered(
            &mut c.rs,
            &mut tx,
            seg.sent_at,
            seg.end(),
            seg.flags & EVER_RETRANS != 0,
            false,
        );
    }

    /// `tcp_rate_gen` then `bbr_main` (`tcp_cong_control`), after the
    /// ACK's recovery transitions: the ACK's congestion-control RTT sample
    /// (`ca_rtt`, if it gave one), whether it may be a delayed ACK of a
    /// lone short segment (`FLAG_ACK_MAYBE_DELAYED`).
    pub(super) fn cong_control(
        &mut self,
        now: SimTime,
        sf: &mut SubflowCc,
        ca_rtt: Option<SimDuration>,
        maybe_delayed: bool,
    ) {
        let newly_lost = (self.board.lost_marks - self.lost_marks_at_event) as u32;
        let delivered = self.delivered_this_event() as u32;
        let state = self.socket_state(now);
        let Some(c) = self.cong.as_deref_mut() else { return };
        if let Some(rtt) = ca_rtt {
            c.min_rtt_us = c.min_rtt_us.min(micros_of(rtt));
        }
        let min_rtt = c.min_rtt_us;
        c.rate.generate(&mut c.rs, now, delivered, newly_lost, false, min_rtt);
        c.rs.rtt_us = ca_rtt.map(|d| micros_of(d) as u64);
        c.rs.is_ack_delayed = maybe_delayed;
        let view = view_of(Some(c), state);
        if c.bbr.on_ack(&view, &c.rs) {
            c.rate.mark_app_limited(view.in_flight);
        }
        self.publish_window(sf);
        // No slow-start strategy runs: the first threshold BBR sets (in
        // DRAIN), or a loss, ends slow start for the statistics.
        if !sf.in_slow_start() && !sf.left_slow_start {
            self.note_slow_start_exit(now, sf.cwnd);
            sf.left_slow_start = true;
        }
    }

    /// `bbr_ssthresh` at the start of fast recovery or a timeout.
    pub(super) fn cong_control_ssthresh(&mut self, sf: &mut SubflowCc) {
        if let Some(c) = self.cong.as_deref_mut() {
            c.bbr.on_loss_ssthresh();
        }
        self.publish_window(sf);
    }

    /// `tcp_enter_loss` under BBR, after the timeout's marks: `bbr_ssthresh`
    /// at the first timeout of an episode, cwnd to the packets in flight
    /// plus one, then `bbr_set_state(TCP_CA_Loss)`.
    pub(super) fn cong_control_timeout(&mut self, now: SimTime, sf: &mut SubflowCc, first: bool) {
        let in_flight = self.packets_in_flight();
        let view = self.socket_view(now);
        let Some(c) = self.cong.as_deref_mut() else { return };
        if first {
            c.bbr.on_loss_ssthresh();
        }
        c.bbr.cwnd = in_flight + 1;
        c.bbr.on_enter_loss(&view);
        self.publish_window(sf);
    }

    /// `tcp_undo_cwnd_reduction` under BBR: `bbr_undo_cwnd` keeps the
    /// window; the threshold returns to the larger of the two.
    pub(super) fn cong_control_undo(&mut self, now: SimTime, sf: &mut SubflowCc, prior_ssthresh: u64) {
        let view = self.socket_view(now);
        let Some(c) = self.cong.as_deref_mut() else { return };
        c.bbr.undo_cwnd(&view);
        let prior = (prior_ssthresh / self.mss as u64).min(INFINITE_SSTHRESH as u64) as u32;
        c.bbr.ssthresh = c.bbr.ssthresh.max(prior);
        self.publish_window(sf);
    }

    /// Whether the pacing clock lets a segment leave now
    /// (`tcp_pacing_check`); if not, the sender's timer will wake it at the
    /// earliest departure time.
    pub(super) fn pacing_allows(&mut self, now: SimTime) -> bool {
        match self.cong.as_deref() {
            Some(c) if !c.pacer.may_send(now) => {
                self.pace_at = c.pacer.earliest_departure;
                false
            }
            _ => true,
        }
    }

    /// A data segment leaves (`__tcp_transmit_skb`): `CA_EVENT_TX_START`
    /// with nothing in flight, the sampler's record, the departure stamp.
    /// Returns the record and the departure before it, for
    /// [`TcpSender::after_data_sent`].
    pub(super) fn before_data_sent(&mut self, now: SimTime) -> Option<(TxRecord, SimTime)> {
        self.cong.as_ref()?;
        let in_flight = self.packets_in_flight();
        let packets_out = self.board.segs.len() as u32;
        if in_flight == 0 {
            let view = self.socket_view(now);
            let c = self.cong.as_deref_mut()?;
            c.bbr.on_tx_start(&view, c.rate.app_limited != 0);
        }
        let c = self.cong.as_deref_mut()?;
        let prior = c.pacer.stamp(now);
        Some((c.rate.on_sent(now, packets_out), prior))
    }

    /// `tcp_update_skb_after_send`: the pacing clock moves on by the
    /// segment's time at the pacing rate.
    pub(super) fn after_data_sent(&mut self, prior: SimTime, payload: u32) {
        let segs_out = self.stats.segments_sent;
        if let Some(c) = self.cong.as_deref_mut() {
            let rate = c.bbr.pacing_rate;
            c.pacer.after_send(prior, payload, rate, segs_out);
        }
    }
}

/// The socket's side of a [`SocketView`]: what the sender knows outside BBR
/// and its sampler.
struct SocketState {
    now: SimTime,
    lost: u32,
    in_flight: u32,
    ca_state: CaState,
    srtt_us: u64,
}

/// BBR's view of the socket: the sampler's delivery counters and the
/// pacing clock from `c` (their initial values before BBR starts), the rest
/// from `s`.
fn view_of(c: Option<&CongControl>, s: SocketState) -> SocketView {
    SocketView {
        now: s.now,
        delivered: c.map_or(1, |c| c.rate.delivered),
        delivered_us: c.map_or(0, |c| c.rate.delivered_us),
        lost: s.lost,
        in_flight: s.in_flight,
        ca_state: s.ca_state,
        srtt_us: s.srtt_us,
        earliest_departure: c.map_or(SimTime::ZERO, |c| c.pacer.earliest_departure),
    }
}
