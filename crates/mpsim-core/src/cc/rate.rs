//! Delivery-rate sampling (Linux 6.18 `net/ipv4/tcp_rate.c`): on every ACK,
//! how many packets the network delivered over how long, for congestion
//! controls that model the path's bandwidth (BBR) and for any other sender
//! component that wants the rate.
//!
//! The sampler is a pure state machine driven by the sender:
//! - at every (re)transmission, [`RateSampler::on_sent`] returns the
//!   [`TxRecord`] the sender stores beside the segment (`tcp_rate_skb_sent`);
//! - for every segment an ACK newly SACKs or cumulatively acknowledges,
//!   [`RateSampler::on_delivered`] folds its record into the ACK's
//!   [`RateSample`] (`tcp_rate_skb_delivered`);
//! - once per ACK, [`RateSampler::generate`] counts the delivered packets
//!   and finishes the sample (`tcp_rate_gen`);
//! - when the sender runs out of data, [`RateSampler::check_app_limited`]
//!   marks the samples to come as application-limited
//!   (`tcp_rate_check_app_limited`).
//!
//! Units. Counts are packets (segments), as the kernel's `tp->delivered`.
//! Times are whole microseconds, `u64`: the kernel's `tcp_mstamp` and
//! `tcp_skb_timestamp_us` are the nanosecond clock divided by 1000
//! (truncated), and every interval and rate the kernel derives is an integer
//! over those microseconds; rounding the simulator's nanoseconds the same
//! way ([`micros`]) makes the samples — and BBR's bandwidth, which divides
//! by them — the kernel's integers. Packet counters are `u32` and wrap
//! like the kernel's (`before`/`after` compare them modulo 2³²).
//!
//! What the sender stores per segment is one `Copy` record of 24 bytes, no
//! allocation: it lives in the scoreboard's segment record.

use crate::time::SimTime;

/// A time in the kernel's microseconds (`tcp_clock_us`, `tcp_skb_timestamp_us`):
/// nanoseconds divided by 1000, truncated.
#[inline]
pub fn micros(t: SimTime) -> u64 {
    t.nanos() / 1000
}

/// `after(a, b)` of `include/net/tcp.h`: `a` is later than `b` modulo 2³².
#[inline]
pub fn after(a: u32, b: u32) -> bool {
    (b.wrapping_sub(a) as i32) < 0
}

/// `before(a, b)`: `a` is earlier than `b` modulo 2³².
#[inline]
pub fn before(a: u32, b: u32) -> bool {
    after(b, a)
}

/// What a segment remembers of the connection's delivery state when it was
/// last sent (`TCP_SKB_CB(skb)->tx`, written by `tcp_rate_skb_sent`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TxRecord {
    /// `tx.first_tx_mstamp`, µs: the send time of the segment most recently
    /// delivered when this one was sent (start of the send phase).
    pub first_tx_us: u64,
    /// `tx.delivered_mstamp`, µs: when the connection's `delivered` last
    /// grew before this segment was sent (start of the ACK phase).
    pub delivered_us: u64,
    /// `tx.delivered`, packets: the connection's `delivered` then.
    pub delivered: u32,
    /// `tx.is_app_limited`: the application left a bubble in the pipe.
    pub is_app_limited: bool,
    /// The segment was SACKed and its record already taken into a sample:
    /// the kernel zeroes `tx.delivered_mstamp` for that, and a zero stamp
    /// is a real time in the simulator, so a flag says it instead.
    pub counted: bool,
}

/// One ACK's delivery-rate sample (`struct rate_sample`), built by
/// [`RateSampler::on_delivered`] and finished by [`RateSampler::generate`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// `prior_mstamp`, µs: start of the ACK phase; `None` until a segment
    /// with a record was delivered (the kernel's zero).
    pub prior_us: Option<u64>,
    /// `prior_delivered`, packets: the connection's `delivered` at `prior_us`.
    pub prior_delivered: u32,
    /// `delivered`, packets delivered over the interval; `None` is the
    /// kernel's −1 (no timing information, or SACK reneging).
    pub delivered: Option<u32>,
    /// `interval_us`, µs: the longer of the send and ACK phases; `None` is
    /// the kernel's −1 (no sample, or shorter than the minimum RTT).
    pub interval_us: Option<u64>,
    /// `snd_interval_us`, µs: the send phase.
    pub send_interval_us: u64,
    /// `rcv_interval_us`, µs: the ACK phase.
    pub ack_interval_us: u64,
    /// `rtt_us`, µs: the ACK's congestion-control RTT sample (`ca_rtt_us`),
    /// set by the sender; `None` is −1.
    pub rtt_us: Option<u64>,
    /// `losses`, packets newly marked lost by this ACK.
    pub losses: u32,
    /// `acked_sacked`, packets newly SACKed or cumulatively acknowledged.
    pub acked_sacked: u32,
    /// `prior_in_flight`, packets in flight before this ACK (set by the sender).
    pub prior_in_flight: u32,
    /// `last_end_seq`, sequence number: end of the most recently sent
    /// segment delivered by this ACK.
    pub last_end_seq: u64,
    /// `is_app_limited`: the sample's segment was sent with a bubble in the pipe.
    pub is_app_limited: bool,
    /// `is_retrans`: the sample's segment was a retransmission.
    pub is_retrans: bool,
    /// `is_ack_delayed`: the ACK was likely delayed (`FLAG_ACK_MAYBE_DELAYED`;
    /// set by the sender).
    pub is_ack_delayed: bool,
}

/// What [`RateSampler::check_app_limited`] reads of the sender.
#[derive(Copy, Clone, Debug)]
pub struct SendState {
    /// Bytes written by the application and not yet sent (`write_seq - snd_nxt`).
    pub unsent_bytes: u64,
    /// Segment size, bytes (`mss_cache`).
    pub mss: u32,
    /// Nothing waits below TCP in the sending host (the kernel's
    /// `sk_wmem_alloc_get(sk) < SKB_TRUESIZE(1)`): the simulator hands
    /// segments straight to the link, so its sender passes `true`.
    pub host_queue_empty: bool,
    /// Packets in flight (`tcp_packets_in_flight`).
    pub in_flight: u32,
    /// Congestion window, packets.
    pub cwnd: u32,
    /// Packets deemed lost (`lost_out`).
    pub lost_out: u32,
    /// Packets retransmitted and in flight (`retrans_out`).
    pub retrans_out: u32,
}

/// The connection's delivery state (the `tcp_sock` fields `tcp_rate.c` keeps).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RateSampler {
    /// `tp->delivered`, packets delivered (SACKed or cumulatively acknowledged).
    pub delivered: u32,
    /// `tp->delivered_mstamp`, µs: when `delivered` last grew.
    pub delivered_us: u64,
    /// `tp->first_tx_mstamp`, µs: the send time of the segment most
    /// recently delivered (or of the first sent into an empty pipe).
    pub first_tx_us: u64,
    /// `tp->app_limited`, packets: zero, or the `delivered` count after
    /// which the bubble in the pipe has been acknowledged.
    pub app_limited: u32,
}

impl RateSampler {
    /// The state once the handshake is done: the SYN (or SYN-ACK) counts as
    /// one packet delivered (`tcp_rcv_state_process`: "SYN-ACK delivery
    /// isn't tracked in tcp_ack"; on the active side the SYN leaves the
    /// retransmission queue through `tcp_ack`), and the pipe holds a bubble
    /// until the first ACK of data (`tcp_init_sock`: `app_limited = ~0U`),
    /// so the initial window's samples are application-limited.
    pub fn established() -> Self {
        RateSampler {
            delivered: 1,
            delivered_us: 0,
            first_tx_us: 0,
            app_limited: u32::MAX,
        }
    }

    /// `tcp_rate_skb_sent`: the record of a segment (re)sent at `now`, with
    /// `packets_out` segments out before it (the kernel's `packets_out`:
    /// every segment sent and not cumulatively acknowledged, SACKed or
    /// not, not the loss-marking guess `tcp_packets_in_flight`). With
    /// nothing out, the send and ACK phases both start now: any ACK from
    /// here on measures the network alone.
    pub fn on_sent(&mut self, now: SimTime, packets_out: u32) -> TxRecord {
        if packets_out == 0 {
            let t = micros(now);
            self.first_tx_us = t;
            self.delivered_us = t;
        }
        TxRecord {
            first_tx_us: self.first_tx_us,
            delivered_us: self.delivered_us,
            delivered: self.delivered,
            is_app_limited: self.app_limited != 0,
            counted: false,
        }
    }

    /// `tcp_rate_skb_delivered`: the segment ending at `end_seq`, last sent
    /// at `sent_at` with record `tx`, is newly SACKed (`sacked`) or
    /// cumulatively acknowledged. Of the segments one ACK delivers, the one
    /// sent last (the highest `end_seq` among equal times) gives the
    /// sample; the kernel also lets any segment replace a sample whose
    /// `prior_delivered` is zero, which only a wrapped counter can give.
    /// A SACKed segment's record is spent, so that its cumulative
    /// acknowledgement later does not count it twice.
    pub fn on_delivered(
        &mut self,
        rs: &mut RateSample,
        tx: &mut TxRecord,
        sent_at: SimTime,
        end_seq: u64,
        is_retrans: bool,
        sacked: bool,
    ) {
        if tx.counted {
            return;
        }
        let tx_us = micros(sent_at);
        // tcp_skb_sent_after(tx_tstamp, first_tx_mstamp, end_seq, last_end_seq)
        let sent_after = tx_us > self.first_tx_us || (tx_us == self.first_tx_us && end_seq > rs.last_end_seq);
        if rs.prior_delivered == 0 || sent_after {
            rs.prior_delivered = tx.delivered;
            rs.prior_us = Some(tx.delivered_us);
            rs.is_app_limited = tx.is_app_limited;
            rs.is_retrans = is_retrans;
            rs.last_end_seq = end_seq;
            self.first_tx_us = tx_us;
            // The send phase: from the send of the segment delivered last
            // when this one left, to this one's send.
            rs.send_interval_us = tx_us.saturating_sub(tx.first_tx_us);
        }
        if sacked {
            tx.counted = true;
        }
    }

    /// `tcp_rate_gen`: the ACK at `now` delivered `newly_delivered` packets
    /// (the sender's count, as `tcp_count_delivered`/`tcp_newly_delivered`)
    /// and marked `newly_lost` lost; `min_rtt_us` is the connection's
    /// windowed minimum RTT (`tcp_min_rtt`, `u32::MAX` before any).
    ///
    /// The interval is the longer of the send phase and the ACK phase
    /// (`now − prior_us`): ACK compression can make ACKs arrive faster than
    /// the network delivers, never for long. A sample shorter than the
    /// minimum RTT (typically one timed from a spurious retransmission) is
    /// discarded: `interval_us = None`, though `delivered` stays set.
    pub fn generate(
        &mut self,
        rs: &mut RateSample,
        now: SimTime,
        newly_delivered: u32,
        newly_lost: u32,
        is_sack_reneg: bool,
        min_rtt_us: u32,
    ) {
        self.delivered = self.delivered.wrapping_add(newly_delivered);
        // The bubble has been acknowledged and is gone.
        if self.app_limited != 0 && after(self.delivered, self.app_limited) {
            self.app_limited = 0;
        }
        let now_us = micros(now);
        if newly_delivered != 0 {
            self.delivered_us = now_us;
        }
        rs.acked_sacked = newly_delivered;
        rs.losses = newly_lost;
        // Samples over a SACK reneging may count packets SACKed before it.
        let Some(prior_us) = rs.prior_us.filter(|_| !is_sack_reneg) else {
            rs.delivered = None;
            rs.interval_us = None;
            return;
        };
        rs.delivered = Some(self.delivered.wrapping_sub(rs.prior_delivered));
        rs.ack_interval_us = now_us.saturating_sub(prior_us);
        let interval = rs.send_interval_us.max(rs.ack_interval_us);
        rs.interval_us = (interval >= min_rtt_us as u64).then_some(interval);
    }

    /// `tcp_rate_check_app_limited`: the application has less than a
    /// segment to send, nothing waits in the host, the window is not full
    /// and every lost packet has been resent: the pipe will hold a bubble,
    /// and samples stay application-limited until the packets now in flight
    /// (and one more) are delivered.
    pub fn check_app_limited(&mut self, s: &SendState) {
        if s.unsent_bytes < s.mss as u64 && s.host_queue_empty && s.in_flight < s.cwnd && s.lost_out <= s.retrans_out {
            self.mark_app_limited(s.in_flight);
        }
    }

    /// Marks the pipe as holding a bubble up to the packets now in flight
    /// (`tp->app_limited = (delivered + in_flight) ?: 1`); BBR's ProbeRTT
    /// does it too, to keep its low-rate samples out of the filter.
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        let marker = self.delivered.wrapping_add(in_flight);
        self.app_limited = if marker == 0 { 1 } else { marker };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn at_us(us: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_micros(us)
    }

    /// A scripted sender: one-byte segments numbered 1, 2, …, each with
    /// its record and send time, none cumulatively acknowledged yet.
    struct Script {
        rate: RateSampler,
        /// (end_seq, sent_at µs, record, retransmitted)
        out: Vec<(u64, u64, TxRecord, bool)>,
        next_seq: u64,
        min_rtt_us: u32,
    }

    impl Script {
        fn new(min_rtt_us: u32) -> Self {
            Script {
                rate: RateSampler::established(),
                out: Vec::new(),
                next_seq: 1,
                min_rtt_us,
            }
        }
        fn send(&mut self, t_us: u64) {
            let tx = self.rate.on_sent(at_us(t_us), self.out.len() as u32);
            self.out.push((self.next_seq, t_us, tx, false));
            self.next_seq += 1;
        }
        fn resend(&mut self, end_seq: u64, t_us: u64) {
            let i = self.out.iter().position(|s| s.0 == end_seq).unwrap();
            let tx = self.rate.on_sent(at_us(t_us), self.out.len() as u32);
            self.out[i] = (end_seq, t_us, tx, true);
        }
        /// An ACK at `t_us` acknowledging every segment up to `cum`
        /// and SACKing those in `sack`; `fresh` of them are newly delivered.
        fn ack(&mut self, t_us: u64, cum: u64, sack: &[u64], fresh: u32) -> RateSample {
            let mut rs = RateSample::default();
            for s in self.out.iter_mut().filter(|s| sack.contains(&s.0)) {
                self.rate.on_delivered(&mut rs, &mut s.2, at_us(s.1), s.0, s.3, true);
            }
            for s in self.out.iter_mut().filter(|s| s.0 <= cum) {
                self.rate.on_delivered(&mut rs, &mut s.2, at_us(s.1), s.0, s.3, false);
            }
            self.out.retain(|s| s.0 > cum);
            self.rate
                .generate(&mut rs, at_us(t_us), fresh, 0, false, self.min_rtt_us);
            rs
        }
    }

    /// A path of 50 ms RTT delivering one packet per ms: four segments
    /// sent at 0, 1, 2, 3 ms are acknowledged one by one at 50..53 ms, and
    /// the fifth, sent at the first ACK, is acknowledged at 100 ms.
    #[test]
    fn a_lossless_window_gives_the_delivered_packets_over_the_longer_phase() {
        let mut s = Script::new(50_000);
        for t in [0, 1000, 2000, 3000] {
            s.send(t);
        }
        // The first send found nothing out: first_tx = delivered_us = 0;
        // every record holds delivered = 1 (the SYN) and the bubble.
        assert_eq!(
            s.out[3].2,
            TxRecord {
                first_tx_us: 0,
                delivered_us: 0,
                delivered: 1,
                is_app_limited: true,
                counted: false
            }
        );
        let rs = s.ack(50_000, 1, &[], 1);
        // delivered 2 − prior 1 = 1 packet; send phase 0 − 0 = 0, ACK
        // phase 50 000 − 0: interval 50 000 µs. app_limited (~0) is cleared
        // here, but the sample's segment carried the bubble.
        assert_eq!(
            (rs.delivered, rs.interval_us, rs.is_app_limited),
            (Some(1), Some(50_000), true)
        );
        assert_eq!(s.rate.app_limited, 0);
        s.send(50_000);
        // Sent with segments out: first_tx = 0 (segment 1's send),
        // delivered_us = 50 000, delivered = 2, no bubble any more.
        assert_eq!(
            s.out.last().unwrap().2,
            TxRecord {
                first_tx_us: 0,
                delivered_us: 50_000,
                delivered: 2,
                is_app_limited: false,
                counted: false
            }
        );
        let rs = s.ack(51_000, 2, &[], 1);
        // Segment 2: prior 1 at 0 µs; send phase 1000 − 0, ACK phase 51 000.
        assert_eq!(
            (rs.delivered, rs.send_interval_us, rs.interval_us),
            (Some(2), 1000, Some(51_000))
        );
        s.ack(52_000, 3, &[], 1);
        s.ack(53_000, 4, &[], 1);
        // first_tx is now segment 4's send (3000), delivered_us 53 000, delivered 5.
        let rs = s.ack(100_000, 5, &[], 1);
        // Segment 5: prior 2 at 50 000 µs; send phase 50 000 − 0, ACK phase
        // 100 000 − 50 000: 4 packets in 50 000 µs.
        assert_eq!(
            (rs.prior_delivered, rs.prior_us, rs.delivered, rs.interval_us),
            (2, Some(50_000), Some(4), Some(50_000))
        );
        assert_eq!((rs.acked_sacked, rs.is_app_limited, s.rate.delivered), (1, false, 6));
    }

    /// A stretched ACK over several segments takes its sample from the one
    /// sent last; an ACK phase shorter than the send phase (compressed
    /// ACKs) gives way to the send phase.
    #[test]
    fn a_stretch_ack_samples_its_newest_segment_and_compressed_acks_the_send_phase() {
        let mut s = Script::new(10_000);
        s.send(0);
        s.ack(20_000, 1, &[], 1); // delivered 2 at 20 000; nothing out any more
        for t in [20_000, 25_000, 30_000, 35_000] {
            // The first finds nothing out: first_tx = delivered_us = 20 000.
            s.send(t);
        }
        // Segments 2..5 acknowledged at once at 31 000 µs (a compressed ACK).
        let rs = s.ack(31_000, 5, &[], 4);
        // Segment 5 (sent 35 000) gives the sample: send phase
        // 35 000 − 20 000 = 15 000, ACK phase 31 000 − 20 000 = 11 000:
        // interval 15 000 µs, 4 packets.
        assert_eq!(
            (rs.last_end_seq, rs.delivered, rs.send_interval_us, rs.ack_interval_us),
            (5, Some(4), 15_000, 11_000)
        );
        assert_eq!(rs.interval_us, Some(15_000));
        assert_eq!(s.rate.first_tx_us, 35_000);
    }

    /// A SACKed segment gives its sample once: when SND.UNA later passes
    /// it, its spent record does not replace the ACK's sample.
    #[test]
    fn a_sacked_segment_is_not_sampled_again_when_cumulatively_acknowledged() {
        let mut s = Script::new(10_000);
        s.send(0);
        s.ack(20_000, 1, &[], 1); // delivered 2 at 20 000; nothing out
        for t in [20_000, 21_000, 22_000] {
            s.send(t); // segments 2, 3, 4: first_tx = delivered_us = 20 000
        }
        // Segment 2 is lost; segment 3 SACKed at 40 000: prior 2 at
        // 20 000, send phase 21 000 − 20 000, ACK phase 20 000; 1 packet.
        let rs = s.ack(40_000, 1, &[3], 1);
        assert_eq!(
            (rs.delivered, rs.send_interval_us, rs.interval_us, rs.last_end_seq),
            (Some(1), 1000, Some(20_000), 3)
        );
        assert!(s.out[1].2.counted);
        // Segment 4 SACKed at 41 000: delivered 4 at 41 000, first_tx 22 000.
        s.ack(41_000, 1, &[4], 1);
        // Segment 2 resent at 45 000 with that state.
        s.resend(2, 45_000);
        assert_eq!(
            s.out[0].2,
            TxRecord {
                first_tx_us: 22_000,
                delivered_us: 41_000,
                delivered: 4,
                is_app_limited: false,
                counted: false
            }
        );
        // The retransmission arrives at 70 000: a cumulative ACK of 2, 3,
        // 4, one packet newly delivered. Only segment 2 has a live record:
        // prior 4 at 41 000, send phase 45 000 − 22 000 = 23 000, ACK
        // phase 70 000 − 41 000 = 29 000.
        let rs = s.ack(70_000, 4, &[], 1);
        assert_eq!((rs.last_end_seq, rs.is_retrans, rs.prior_delivered), (2, true, 4));
        assert_eq!(
            (rs.delivered, rs.send_interval_us, rs.interval_us),
            (Some(1), 23_000, Some(29_000))
        );
    }

    /// A retransmission acknowledged sooner than the minimum RTT after the
    /// sample began (the original arrived: the retransmission was
    /// spurious) gives no interval, and no rate.
    #[test]
    fn a_sample_shorter_than_the_minimum_rtt_is_discarded() {
        let mut s = Script::new(50_000);
        s.send(0);
        s.ack(50_000, 1, &[], 1); // delivered 2 at 50 000
        s.send(50_000); // segment 2: nothing out, first_tx = delivered_us = 50 000
        s.resend(2, 60_000); // record: first_tx 50 000, delivered_us 50 000
                             // The original arrives at 90 000, sampled with the retransmission's
                             // record: send phase 60 000 − 50 000 = 10 000, ACK phase
                             // 90 000 − 50 000 = 40 000, both under 50 000.
        let rs = s.ack(90_000, 2, &[], 1);
        assert_eq!((rs.is_retrans, rs.delivered, rs.interval_us), (true, Some(1), None));
        // A fresh segment into an empty pipe at 90 000, acknowledged one
        // minimum RTT later: interval 50 000, kept.
        s.send(90_000);
        let rs = s.ack(140_000, 3, &[], 1);
        assert_eq!(
            (rs.is_retrans, rs.delivered, rs.interval_us),
            (false, Some(1), Some(50_000))
        );
    }

    /// No segment with a record delivered (a duplicate ACK), or a SACK
    /// reneging: the sample is invalid, yet the losses and deliveries the
    /// ACK brings are counted.
    #[test]
    fn an_ack_without_timing_or_after_reneging_is_invalid() {
        let mut s = Script::new(1);
        s.send(0);
        let mut rs = RateSample::default();
        s.rate.generate(&mut rs, at_us(5_000), 0, 2, false, 1);
        assert_eq!((rs.delivered, rs.interval_us, rs.losses), (None, None, 2));
        let mut rs = RateSample::default();
        let (mut tx, end) = (s.out[0].2, s.out[0].0);
        s.rate.on_delivered(&mut rs, &mut tx, at_us(0), end, false, false);
        s.rate.generate(&mut rs, at_us(6_000), 1, 0, true, 1);
        assert_eq!((rs.delivered, rs.interval_us, rs.acked_sacked), (None, None, 1));
        assert_eq!((s.rate.delivered, s.rate.delivered_us), (2, 6_000));
    }

    /// The application runs dry with 3 packets in flight and 8 delivered:
    /// the marker is 11, segments sent meanwhile are app-limited, and the
    /// mark clears once delivered passes 11. A full window or an unsent
    /// segment's worth of data or an unrepaired loss means no bubble.
    #[test]
    fn a_bubble_marks_samples_until_it_is_acknowledged() {
        let mut r = RateSampler {
            delivered: 8,
            delivered_us: 0,
            first_tx_us: 0,
            app_limited: 0,
        };
        let st = SendState {
            unsent_bytes: 999,
            mss: 1000,
            host_queue_empty: true,
            in_flight: 3,
            cwnd: 10,
            lost_out: 1,
            retrans_out: 1,
        };
        for busy in [
            SendState {
                unsent_bytes: 1000,
                ..st
            },
            SendState {
                host_queue_empty: false,
                ..st
            },
            SendState { in_flight: 10, ..st },
            SendState { lost_out: 2, ..st },
        ] {
            r.check_app_limited(&busy);
            assert_eq!(r.app_limited, 0, "{busy:?}");
        }
        r.check_app_limited(&st);
        assert_eq!(r.app_limited, 11);
        assert!(r.on_sent(at_us(1), 3).is_app_limited);
        let mut rs = RateSample::default();
        r.generate(&mut rs, at_us(2), 3, 0, false, 1); // delivered 11: not after 11
        assert_eq!(r.app_limited, 11);
        r.generate(&mut rs, at_us(3), 1, 0, false, 1); // delivered 12
        assert_eq!(r.app_limited, 0);
        // delivered + in flight = 0 (wrapped) marks 1, never 0.
        let mut r = RateSampler {
            delivered: u32::MAX,
            ..r
        };
        r.mark_app_limited(1);
        assert_eq!(r.app_limited, 1);
    }

    /// Times are the kernel's truncated microseconds.
    #[test]
    fn times_are_truncated_to_microseconds() {
        let mut r = RateSampler::established();
        let tx = r.on_sent(SimTime::from_nanos(1_999), 0);
        assert_eq!((tx.first_tx_us, tx.delivered_us), (1, 1));
        assert!(after(0, u32::MAX) && before(u32::MAX, 0) && !after(5, 5));
    }
}
