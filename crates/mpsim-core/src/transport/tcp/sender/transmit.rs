//! What the sender puts on the wire and when: RFC 6675 NextSeg (lost
//! segments first, then new data, then rules 3 and 4), the congestion and
//! receive windows, the send buffer, and the segments themselves.

use super::*;
use crate::transport::tcp::scoreboard::{SackFeed, Seg, LOST, RETRANS};
impl TcpSender {
    /// Builds the header of the data segment `seg`.
    pub(super) fn data_header(&self, seg: &Seg, now: SimTime) -> TcpHeader {
        TcpHeader {
            flags: TcpFlags(
                TcpFlags::ACK
                    | if seg.fin { TcpFlags::FIN } else { 0 }
                    | if seg.data_fin { TcpFlags::DATA_FIN } else { 0 },
            ),
            seq: seg.start,
            ack: 1,
            payload_bytes: seg.payload(),
            dsn: seg.dsn,
            ts_val: now,
            ts_ecr: self.ts_recent,
            ..TcpHeader::default()
        }
    }

    /// Sends what the window allows: lost segments first (RFC 6675 NextSeg
    /// rule 1), then new data from `supply` (rule 2).
    pub fn transmit(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        cc: &mut SubflowCc,
        supply: &mut impl DataSupply,
        out: &mut impl SenderOutput,
    ) {
        if self.send_retransmissions(now, params, cc, out) {
            // Linux sends what the windows let go at once as one skb, PSH on
            // its last segment (`tcp_write_xmit`, `__tcp_transmit_skb`).
            let batch = if params.push_flag {
                self.send_quota_segments(params, cc)
            } else {
                0
            };
            let mut sent = 0;
            while let Some(chunk) = supply.peek(self.mss) {
                if !self.room_for(now, params, cc, chunk.len) {
                    break;
                }
                let chunk = supply.take(self.mss).expect("peeked");
                sent += 1;
                self.push_next = batch >= 2 && sent == batch;
                self.send_chunk(chunk, now, out);
            }
        }
        self.after_push(now, params, cc, out);
    }

    /// What follows the sending of lost segments and new data, once the
    /// caller (for MPTCP, the connection's scheduler) has placed its data:
    /// RFC 6675 NextSeg rules 3 and 4, the loss probe's retransmission
    /// when it found no new data to send, and a fresh probe timeout after
    /// new data.
    pub fn after_push(&mut self, now: SimTime, params: &TcpParams, cc: &mut SubflowCc, out: &mut impl SenderOutput) {
        if self.frto.is_some_and(|f| f.new_data_turn) {
            // RFC 5682 §3.1 step 2.b: no new data could go, so F-RTO gives
            // way to the conventional recovery (Linux `tcp_xmit_recovery`).
            self.frto = None;
            self.send_retransmissions(now, params, cc, out);
        }
        self.send_rescue(now, params, cc, out);
        if std::mem::take(&mut self.partial_ack_send)
            && self
                .board
                .segs
                .front()
                .is_some_and(|s| s.flags & (RETRANS | SACKED) == 0)
        {
            // No new data could go: ns-3's `DoRetransmit` resends the head.
            self.retransmit(0, now, out);
        }
        if self.probe_pending {
            // RFC 8985 §7.3: no new data could go: resend the last segment.
            self.probe_pending = false;
            if let Some(i) = self.board.highest_unsacked() {
                if self.board.segs[i].flags & RETRANS == 0 && self.state == SenderState::Established {
                    self.retransmit(i, now, out);
                    self.tlp_high_seq = Some(self.snd_nxt);
                    self.tlp_retrans = true;
                }
            }
        } else if self.sent_new
            && self.tlp_high_seq.is_none()
            && self.aux_timer.is_none_or(|(_, k)| k == AuxTimer::Probe)
        {
            // Linux `tcp_write_xmit` → `tcp_schedule_loss_probe`.
            self.schedule_probe(now, params);
            self.sync_timer(out);
        }
        self.sent_new = false;
        if self.pace_at != SimTime::NEVER {
            // A segment waits for the pacing clock (`tcp_pacing_check`
            // arms the pacing timer).
            self.sync_timer(out);
        }
        self.no_new_data = self.fin_sent() || self.send_budget(params, cc) >= self.mss as u64;
        cc.bytes_in_flight = self.pipe();
        if params.cwnd_limited_linux {
            self.validate_cwnd_linux(cc);
        }
        if params.cwnd_limited_at_send && self.stats.segments_sent != self.judged_at_segment {
            // ns-3 judges after each segment; the last one sent decides.
            self.judged_at_segment = self.stats.segments_sent;
            self.limited_at_send = cc.cwnd < self.data_pipe() + self.mss as u64;
        }
    }

    /// Linux `tcp_cwnd_validate` after `tcp_write_xmit`: a pass that sent
    /// something or found cwnd full records, once per window (until SND.UNA
    /// passes the SND.NXT of the last record), whether cwnd was full and the
    /// most segments outstanding; a full cwnd or a new maximum records at once.
    fn validate_cwnd_linux(&mut self, cc: &SubflowCc) {
        let mss = self.mss as u64;
        let limited = self.pipe() + mss > cc.cwnd;
        let sent = self.stats.segments_sent != self.validated_at_segment;
        self.validated_at_segment = self.stats.segments_sent;
        if !(sent || limited) {
            return;
        }
        let packets_out = (self.snd_nxt - self.snd_una).div_ceil(mss);
        if self.snd_una >= self.cwnd_usage_seq
            || limited
            || (!self.linux_cwnd_limited && packets_out > self.max_packets_out)
        {
            self.linux_cwnd_limited = limited;
            self.max_packets_out = packets_out;
            self.cwnd_usage_seq = self.snd_nxt;
        }
    }

    /// Linux `tcp_is_cwnd_limited`: cwnd was full in the window measured,
    /// or, in slow start, it is below twice what that window had outstanding.
    pub(super) fn is_cwnd_limited_linux(&self, cc: &SubflowCc) -> bool {
        self.linux_cwnd_limited || (cc.in_slow_start() && cc.cwnd < 2 * self.max_packets_out * self.mss as u64)
    }

    /// RFC 6675 HighRxt of the recovery under way.
    pub(super) fn high_rxt(&self) -> u64 {
        self.recovery.map_or(self.snd_una, |r| r.high_rxt)
    }

    /// RFC 6675 §4 NextSeg rules 3 and 4, for when rule 1 (lost segments)
    /// and rule 2 (new data) have nothing to send and the window has room:
    /// rule 3 resends the lowest unSACKed segment above HighRxt and below
    /// the highest SACKed byte that is not yet deemed lost; rule 4 resends,
    /// once per episode, the highest unSACKed segment (a "rescue"
    /// retransmission of a tail that no SACK can reveal as lost).
    pub fn send_rescue(&mut self, now: SimTime, params: &TcpParams, cc: &mut SubflowCc, out: &mut impl SenderOutput) {
        let feed = SackFeed::of(params);
        if !(params.sack_rule3 || params.sack_rescue) || !feed.marks() || self.state != SenderState::Established {
            return;
        }
        let Some(rec) = self.recovery else { return };
        if self.board.next_lost(self.snd_nxt).is_some() {
            return;
        }
        // ns-3 never runs rule 3 on guessed marks, and without a SACKed
        // segment left runs it up to the tail.
        let blocks = feed == SackFeed::Blocks;
        let top = if params.sack_rule3 && (blocks || !params.sack_rule3_ns3) {
            match self.board.highest_sacked() {
                None if params.sack_rule3_ns3 && blocks => Some(self.board.segs.len()),
                top => top,
            }
        } else {
            None
        };
        if let Some(top) = top {
            loop {
                let high_rxt = self.high_rxt();
                let from = self.board.segs.partition_point(|s| s.start < high_rxt);
                let Some(i) = (from..top).find(|&i| self.board.segs[i].flags & (SACKED | LOST | RETRANS) == 0) else {
                    break;
                };
                if !self.cwnd_room(now, params, cc, self.board.segs[i].payload()) {
                    cc.bytes_in_flight = self.pipe();
                    return;
                }
                self.retransmit(i, now, out);
            }
        }
        // Rule 4: once HighACK has passed RescueRxt (or there was none).
        if !params.sack_rescue || rec.rescue_rxt.is_some_and(|r| self.snd_una <= r) {
            return;
        }
        let Some(i) = self.board.highest_unsacked() else {
            return;
        };
        if self.board.segs[i].flags & RETRANS != 0 || !self.cwnd_room(now, params, cc, self.board.segs[i].payload()) {
            return;
        }
        let high_rxt = self.high_rxt();
        self.retransmit(i, now, out);
        if let Some(r) = self.recovery.as_mut() {
            // HighRxt is not moved by the rescue (RFC 6675 §4 rule 4).
            r.high_rxt = high_rxt;
            r.rescue_rxt = Some(r.point);
        }
        cc.bytes_in_flight = self.pipe();
    }

    /// Retransmits lost segments while the window allows. Returns whether
    /// the window still has room for new data.
    pub fn send_retransmissions(
        &mut self,
        now: SimTime,
        params: &TcpParams,
        cc: &mut SubflowCc,
        out: &mut impl SenderOutput,
    ) -> bool {
        if self.state != SenderState::Established {
            return false;
        }
        self.cwnd_full = false;
        if self.frto.is_some_and(|f| f.new_data_turn) {
            return true;
        }
        while let Some(i) = self.board.next_lost(self.snd_nxt) {
            // A retransmission fills a hole below snd_nxt: only cwnd limits it.
            if !self.cwnd_room(now, params, cc, self.board.segs[i].payload()) {
                return false;
            }
            self.retransmit(i, now, out);
        }
        cc.bytes_in_flight = self.pipe();
        true
    }

    /// Whether a segment of `payload` bytes fits the congestion window (the
    /// FIN takes a sequence number but no room) and the peer's window.
    /// Records when cwnd is what stops the sender.
    pub fn room_for(&mut self, now: SimTime, params: &TcpParams, cc: &SubflowCc, payload: u32) -> bool {
        if self.state != SenderState::Established || self.fin_sent() {
            return false;
        }
        // A loss probe may send one new segment whatever cwnd (Linux
        // `tcp_write_xmit` with push_one = 2).
        let outstanding = self.snd_nxt + payload as u64 - self.snd_una;
        if let Some(b) = params.send_buffer_bytes {
            self.refill_when_short(b, params, cc);
        }
        let buffered = self.snd_nxt + payload as u64 - self.sndbuf_una.min(self.snd_una);
        (self.probe_pending || self.partial_ack_send || self.cwnd_room(now, params, cc, payload))
            && (self.ignore_peer_rwnd || outstanding <= self.peer_rwnd)
            && params.receive_window_bytes.is_none_or(|w| outstanding <= w)
            && params
                .send_buffer_bytes
                .is_none_or(|b| buffered <= b / self.mss as u64 * self.mss as u64)
            && self.pacing_allows(now)
    }

    /// ns-3's other refill of the send buffer (`SendPendingData` →
    /// `NotifySend`): about to send new data, when less is left unsent in
    /// the buffer than the window would take, the application is asked for
    /// more, which fills the buffer from SND.UNA as it stands.
    pub(super) fn refill_when_short(&mut self, buffer_bytes: u64, params: &TcpParams, cc: &SubflowCc) {
        let mss = self.mss as u64;
        let written = self.sndbuf_una.min(self.snd_una) + buffer_bytes / mss * mss;
        let unsent = written.saturating_sub(self.snd_nxt);
        let window = if self.ignore_peer_rwnd {
            cc.cwnd
        } else {
            cc.cwnd.min(self.peer_rwnd)
        };
        let in_network = if SackFeed::of(params).marks() {
            self.pipe()
        } else {
            self.flight_size()
        };
        let available = window.saturating_sub(in_network);
        if unsent > 0 && unsent < available {
            self.sndbuf_una = self.snd_una;
        }
    }

    /// Whether cwnd has room for `payload` bytes; records when it has not.
    pub(super) fn cwnd_room(&mut self, now: SimTime, params: &TcpParams, cc: &SubflowCc, payload: u32) -> bool {
        // Linux counts the window in segments (`tcp_cwnd_test`): a short
        // segment takes a whole one.
        let need = if params.cwnd_in_segments {
            self.mss as u64
        } else {
            (payload as u64).min(self.mss as u64).max(1)
        };
        if self.send_budget(params, cc) < need {
            self.cwnd_full = true;
            return false;
        }
        self.pacing_allows(now)
    }

    /// Whole segments Linux's `tcp_write_xmit` would send now as one skb:
    /// the congestion window's quota ([`Self::send_budget`]) within the
    /// peer's window (`tcp_cwnd_test`, `tcp_snd_wnd_test`).
    pub fn send_quota_segments(&self, params: &TcpParams, cc: &SubflowCc) -> u64 {
        let mss = self.mss as u64;
        let cwnd = self.send_budget(params, cc) / mss;
        if self.ignore_peer_rwnd {
            return cwnd;
        }
        let edge = self.snd_una.saturating_add(self.peer_rwnd);
        cwnd.min(edge.saturating_sub(self.snd_nxt) / mss)
    }

    /// Bytes the congestion window (and PRR) allows to send now. Counted
    /// in segments (`cwnd_in_segments`, with SACK), the flight is Linux's
    /// `tcp_packets_in_flight` against the window's whole segments
    /// (`tcp_cwnd_test`): a short segment out takes a whole one.
    pub fn send_budget(&self, params: &TcpParams, cc: &SubflowCc) -> u64 {
        let mss = self.mss as u64;
        if params.cwnd_in_segments && SackFeed::of(params).marks() {
            return (cc.cwnd / mss).saturating_sub(self.board.packets_in_flight()) * mss;
        }
        let in_network = if SackFeed::of(params).marks() {
            self.pipe()
        } else {
            // Without SACK: RFC 5681 FlightSize; RFC 3042 limited transmit
            // lets the first two duplicate ACKs each release one segment.
            let allowance = if params.limited_transmit && self.recovery.is_none() && self.dupacks > 0 {
                self.dupacks.min(2) as u64 * self.mss as u64
            } else {
                0
            };
            // A lost segment leaves the flight and its retransmission
            // enters it: FlightSize itself once every loss is resent.
            (self.flight_size() + self.board.retrans_bytes).saturating_sub(allowance + self.board.lost_bytes)
        };
        // The FIN takes a sequence number but no room in the window.
        let fin_in_flight = self.fin_end.is_some_and(|e| self.snd_una < e) as u64;
        cc.cwnd.saturating_sub(in_network.saturating_sub(fin_in_flight))
    }

    /// Sends `chunk` as a new segment at `snd_nxt`.
    pub fn send_chunk(&mut self, chunk: Chunk, now: SimTime, out: &mut impl SenderOutput) {
        let paced = self.before_data_sent(now);
        let seg = Seg {
            start: self.snd_nxt,
            len: chunk.len + chunk.fin as u32,
            dsn: chunk.dsn,
            fin: chunk.fin,
            data_fin: chunk.data_fin,
            sent_at: now,
            flags: 0,
            tx: paced.map(|p| p.0).unwrap_or_default(),
        };
        let mut header = self.data_header(&seg, now);
        if std::mem::take(&mut self.push_next) {
            header.flags.0 |= TcpFlags::PSH;
        }
        self.board.push(seg, self.snd_nxt);
        self.snd_nxt = seg.end();
        if chunk.fin {
            self.fin_end = Some(seg.end());
        }
        self.stats.segments_sent += 1;
        if let Some((_, prior)) = paced {
            self.after_data_sent(prior, chunk.len);
        }
        if let Some(r) = self.recovery.as_mut() {
            r.prr_out += seg.len as u64;
            r.prr_out_pkts += 1;
        }
        self.sent_new = true;
        self.partial_ack_send = false;
        if let Some(f) = self.frto.as_mut() {
            f.new_data_turn = false;
        }
        if self.probe_pending {
            // RFC 8985 §7.3: the probe is this new segment.
            self.probe_pending = false;
            self.tlp_high_seq = Some(self.snd_nxt);
            self.tlp_retrans = false;
        }
        out.send(OutSegment {
            header,
            kind: TxKind::New,
        });
        self.ensure_timer(now, out);
    }

    /// Resends segment `i`: one deemed lost (it then counts once in `pipe`),
    /// or one resent by NextSeg rules 3 and 4 (it then counts twice).
    pub(super) fn retransmit(&mut self, i: usize, now: SimTime, out: &mut impl SenderOutput) {
        let kind = if self.in_rto_recovery {
            TxKind::RtoRetransmit
        } else {
            TxKind::FastRetransmit
        };
        let paced = self.before_data_sent(now);
        if let Some((tx, _)) = paced {
            self.board.segs[i].tx = tx;
        }
        let seg = self.board.mark_retransmitted(i, now);
        let mut header = self.data_header(&seg, now);
        header.retransmission = true;
        self.stats.segments_sent += 1;
        if let Some((_, prior)) = paced {
            self.after_data_sent(prior, seg.payload());
        }
        match kind {
            TxKind::RtoRetransmit => self.stats.retransmits_rto += 1,
            _ => self.stats.retransmits_fast += 1,
        }
        if self.stats.slow_start_exit_at.is_none() {
            self.stats.retransmits_before_slow_start_exit += 1;
        }
        if let Some(r) = self.recovery.as_mut() {
            r.prr_out += seg.len as u64;
            r.prr_out_pkts += 1;
            r.high_rxt = r.high_rxt.max(seg.end());
        }
        out.send(OutSegment { header, kind });
        // Linux `tcp_xmit_retransmit_queue`: the head resent restarts the
        // timer, unless RACK's reordering timer is the one pending; the RTO
        // takes the timer's one slot from a loss probe or an early
        // retransmission pending (`tcp_reset_xmit_timer`).
        let reordering = matches!(self.aux_timer, Some((_, AuxTimer::Reorder)));
        if self.rto_restart_on_head && i == 0 && !reordering {
            self.aux_timer = None;
            self.restart_timer(now, out);
        } else {
            self.ensure_timer(now, out);
        }
    }

    /// Retransmits the first unacknowledged segment if it is marked lost and
    /// not yet resent, whatever the window.
    pub(super) fn retransmit_head(&mut self, now: SimTime, out: &mut impl SenderOutput) {
        if self
            .board
            .segs
            .front()
            .is_some_and(|s| s.flags & (LOST | RETRANS | SACKED) == LOST)
        {
            self.retransmit(0, now, out);
        }
    }
}
