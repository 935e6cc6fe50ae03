//! The sender's scoreboard (RFC 6675 §3; ns-3's `TcpTxBuffer`, Linux's
//! retransmission queue): one small record per segment sent and not yet
//! cumulatively acknowledged, in sequence order, in a ring buffer that grows
//! to the largest window and is then reused, with the byte counts that
//! RFC 6675's `pipe` is made of.
//!
//! The scoreboard records; it does not decide. What marks a segment SACKed
//! is the [`SackFeed`]; what marks it lost is the loss detection
//! (`super::loss`); what a mark does to the window is the recovery
//! (`super::recovery`).

use std::collections::VecDeque;

use super::config::{Recovery, TcpParams};
use crate::cc::rate::TxRecord;
use crate::time::SimTime;

/// Known received above SND.UNA (a SACK block, or ns-3's guess).
pub const SACKED: u8 = 1;
/// Deemed lost (RFC 6675 IsLost, an RTO, a partial ACK, RACK); stays set
/// when the segment is retransmitted, so that a lost and retransmitted
/// segment counts once in `pipe` (RFC 6675 §4 SetPipe).
pub const LOST: u8 = 2;
/// Retransmitted and not deemed lost again since: lost with RETRANS is a
/// retransmission in flight, lost without it is waiting to be resent.
pub const RETRANS: u8 = 4;
/// Retransmitted at least once (Karn's rule: no RTT sample from it).
pub const EVER_RETRANS: u8 = 8;

/// What tells the sender which segments above SND.UNA have arrived: the
/// one choice that decides whether the scoreboard holds SACK marks at all.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SackFeed {
    /// No marks: Reno and NewReno recovery count duplicate ACKs, and their
    /// window inflation stands for the segments that left (RFC 5681 §3.2,
    /// RFC 6582).
    None,
    /// The receiver's SACK blocks (RFC 2018, RFC 6675 §4 Update()).
    Blocks,
    /// No SACK on the connection, but SACK and PRR recovery kept on marks
    /// that each duplicate ACK makes on the lowest unmarked segment above
    /// the head (ns-3.44 `TcpTxBuffer::AddRenoSack`; `emulate_sack`).
    DupAckMarks,
}

impl SackFeed {
    /// The feed a flow's settings select: Reno and NewReno never keep marks.
    #[inline]
    pub fn of(params: &TcpParams) -> Self {
        if matches!(params.recovery, Recovery::Reno | Recovery::NewReno) {
            SackFeed::None
        } else if params.sack {
            SackFeed::Blocks
        } else if params.emulate_sack {
            SackFeed::DupAckMarks
        } else {
            SackFeed::None
        }
    }

    /// Whether the scoreboard holds marks (and `pipe` decides the window).
    #[inline]
    pub fn marks(self) -> bool {
        self != SackFeed::None
    }
}

/// One segment sent and not yet cumulatively acknowledged.
#[derive(Copy, Clone, Debug)]
pub struct Seg {
    /// First sequence number.
    pub start: u64,
    /// Sequence space taken: payload plus one for a FIN.
    pub len: u32,
    /// Data sequence number of the first payload byte (MPTCP DSN; for TCP
    /// the same as `start`).
    pub dsn: u64,
    pub fin: bool,
    /// Whether the segment carries the MPTCP DATA_FIN.
    pub data_fin: bool,
    /// When the segment was last sent.
    pub sent_at: SimTime,
    pub flags: u8,
    /// The delivery state at the last send, for the delivery-rate sampler
    /// (`TCP_SKB_CB(skb)->tx`); left at its default unless a sampler runs.
    pub tx: TxRecord,
}

impl Seg {
    #[inline]
    pub fn end(&self) -> u64 {
        self.start + self.len as u64
    }
    #[inline]
    pub fn payload(&self) -> u32 {
        self.len - self.fin as u32
    }
}

/// The segments from the one holding SND.UNA up to SND.NXT, contiguous,
/// and the bytes among them that are SACKed, deemed lost (retransmitted or
/// not) and retransmitted and not lost again (a FIN counted as one byte).
#[derive(Clone, Debug)]
pub struct Scoreboard {
    pub segs: VecDeque<Seg>,
    pub sacked_bytes: u64,
    pub lost_bytes: u64,
    pub retrans_bytes: u64,
    /// Segments SACKed (Linux `sacked_out`).
    pub sacked_segs: u64,
    /// Segments deemed lost (Linux `lost_out`; none of them SACKed).
    pub lost_segs: u64,
    /// Segments resent and neither SACKed nor deemed lost again since
    /// (Linux `retrans_out`).
    pub retrans_segs: u64,
    /// Times a segment was marked lost, a resent one again included
    /// (Linux's `tp->lost`, `tcp_sum_lost`).
    pub lost_marks: u64,
    /// Lowest sequence number that may hold a lost, not yet retransmitted
    /// segment.
    pub retx_hint: u64,
    /// Segment size in payload bytes (the search's guess of a segment's
    /// length).
    mss: u32,
}

impl Scoreboard {
    pub fn new(mss: u32) -> Self {
        Scoreboard {
            segs: VecDeque::new(),
            sacked_bytes: 0,
            lost_bytes: 0,
            retrans_bytes: 0,
            sacked_segs: 0,
            lost_segs: 0,
            retrans_segs: 0,
            lost_marks: 0,
            retx_hint: 1,
            mss,
        }
    }

    /// Forgets every segment (the flow completed or was aborted).
    pub fn clear(&mut self) {
        self.segs.clear();
        self.sacked_bytes = 0;
        self.sacked_segs = 0;
        self.lost_bytes = 0;
        self.retrans_bytes = 0;
        self.lost_segs = 0;
        self.retrans_segs = 0;
    }

    /// Linux `tcp_packets_in_flight`: segments out, less those SACKed or
    /// deemed lost, plus those resent (a lost segment resent counts once,
    /// one resent without being deemed lost twice), whatever their length.
    #[inline]
    pub fn packets_in_flight(&self) -> u64 {
        (self.segs.len() as u64 + self.retrans_segs) - (self.sacked_segs + self.lost_segs)
    }

    /// `segs.partition_point(below)` for a predicate `below` that holds of
    /// the segments before sequence number `seq` and of none after it.
    /// Segments follow each other and most are one MSS long, so the search
    /// starts where `seq` would be if all were, and walks from there: one or
    /// two reads of the scoreboard instead of a binary search's scattered
    /// ones. It falls back to halving after a few steps, so the answer is
    /// the binary search's whatever the segments' lengths.
    #[inline]
    pub fn search(&self, seq: u64, below: impl Fn(&Seg) -> bool) -> usize {
        let n = self.segs.len();
        let Some(front) = self.segs.front() else { return 0 };
        let guess = (seq.saturating_sub(front.start) / self.mss.max(1) as u64).min(n as u64) as usize;
        let (mut lo, mut hi) = (0, n);
        let mut at = guess;
        // The answer lies in [lo, hi] throughout.
        for _ in 0..4 {
            if at < n && below(&self.segs[at]) {
                lo = at + 1;
                at += 1;
            } else if at == 0 || below(&self.segs[at - 1]) {
                (lo, hi) = (at, at);
                break;
            } else {
                hi = at - 1;
                at -= 1;
            }
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if below(&self.segs[mid]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        debug_assert_eq!(lo, self.segs.partition_point(below));
        lo
    }

    /// Index of the segment holding sequence number `seq`, if sent.
    #[inline]
    pub fn seg_at(&self, seq: u64) -> Option<usize> {
        let i = self.search(seq, |s| s.end() <= seq);
        (i < self.segs.len() && self.segs[i].start <= seq).then_some(i)
    }

    /// Appends a segment just sent at `snd_nxt`.
    #[inline]
    pub fn push(&mut self, seg: Seg, snd_nxt: u64) {
        self.segs.push_back(seg);
        // A hint at snd_nxt says no segment waits to be resent; a new one
        // does not either, so the hint moves up with it (and NextSeg is not
        // sent searching the scoreboard for a loss that is not there).
        if self.retx_hint == snd_nxt {
            self.retx_hint = seg.end();
        }
    }

    /// Deems segment `i` lost: it waits to be resent. A retransmission
    /// deemed lost again waits to be resent again.
    pub fn mark_lost(&mut self, i: usize) {
        let s = &mut self.segs[i];
        if s.flags & SACKED != 0 || s.flags & (LOST | RETRANS) == LOST {
            return;
        }
        let len = s.len as u64;
        self.lost_marks += 1;
        if s.flags & RETRANS != 0 {
            s.flags &= !RETRANS;
            self.retrans_bytes -= len;
            self.retrans_segs -= 1;
        }
        if s.flags & LOST == 0 {
            s.flags |= LOST;
            self.lost_bytes += len;
            self.lost_segs += 1;
        }
        if s.start < self.retx_hint {
            self.retx_hint = s.start;
        }
    }

    /// Marks segment `i` lost without resending it again: it was resent
    /// before it was deemed lost (NextSeg rule 3, a partial ACK), so RFC
    /// 6675 SetPipe counts it once from now on, not twice, and NextSeg rule
    /// 1 does not resend it (ns-3 `TcpTxBuffer::UpdateLostCount` alike).
    pub fn mark_resent_lost(&mut self, i: usize) {
        self.lost_marks += 1;
        self.segs[i].flags |= LOST;
        self.lost_bytes += self.segs[i].len as u64;
        self.lost_segs += 1;
    }

    /// Segment `i` is known received above SND.UNA; returns it as marked.
    /// `keep_retrans`: a SACKed retransmission stays counted in pipe until
    /// cumulatively acknowledged (`TcpParams::sacked_retransmissions_in_pipe`).
    pub fn mark_sacked(&mut self, i: usize, keep_retrans: bool) -> Seg {
        let s = &mut self.segs[i];
        let len = s.len as u64;
        if s.flags & LOST != 0 {
            self.lost_bytes -= len;
            self.lost_segs -= 1;
        }
        let mut kept = EVER_RETRANS;
        if s.flags & RETRANS != 0 {
            self.retrans_segs -= 1;
            if keep_retrans {
                kept |= RETRANS;
            } else {
                self.retrans_bytes -= len;
            }
        }
        s.flags = (s.flags & kept) | SACKED;
        self.sacked_bytes += len;
        self.sacked_segs += 1;
        *s
    }

    /// Takes a SACK mark back off segment `i` (a guess found wrong).
    pub fn unmark_sacked(&mut self, i: usize) {
        let s = &mut self.segs[i];
        debug_assert!(s.flags & SACKED != 0);
        s.flags &= !SACKED;
        self.sacked_bytes -= s.len as u64;
        self.sacked_segs -= 1;
        if s.flags & RETRANS != 0 {
            self.retrans_segs += 1;
        }
    }

    /// Records segment `i` as resent now; returns it.
    pub fn mark_retransmitted(&mut self, i: usize, now: SimTime) -> Seg {
        let s = &mut self.segs[i];
        debug_assert!(s.flags & (RETRANS | SACKED) == 0);
        s.flags |= RETRANS | EVER_RETRANS;
        s.sent_at = now;
        self.retrans_bytes += s.len as u64;
        self.retrans_segs += 1;
        *s
    }

    /// Removes the first segment if `ack` covers it wholly, and returns it
    /// with its marks as they were.
    #[inline]
    pub fn pop_acked(&mut self, ack: u64) -> Option<Seg> {
        let s = *self.segs.front()?;
        if s.end() > ack {
            return None;
        }
        let len = s.len as u64;
        if s.flags & SACKED != 0 {
            self.sacked_bytes -= len;
            self.sacked_segs -= 1;
        }
        if s.flags & LOST != 0 {
            self.lost_bytes -= len;
            self.lost_segs -= 1;
        }
        if s.flags & RETRANS != 0 {
            self.retrans_bytes -= len;
            self.retrans_segs -= (s.flags & SACKED == 0) as u64;
        }
        self.segs.pop_front();
        Some(s)
    }

    /// Index of the lowest segment deemed lost, not SACKed and not yet
    /// retransmitted (RFC 6675 NextSeg rule 1); `snd_nxt` ends the last
    /// segment.
    pub fn next_lost(&mut self, snd_nxt: u64) -> Option<usize> {
        if self.lost_bytes == 0 {
            return None;
        }
        // Nothing at or above the hint (the common case once every loss is
        // resent): no search of the scoreboard, nor a read of it.
        debug_assert!(self.segs.back().is_none_or(|s| s.end() == snd_nxt));
        if self.segs.is_empty() || snd_nxt <= self.retx_hint {
            self.retx_hint = snd_nxt;
            return None;
        }
        let hint = self.retx_hint;
        let from = self.search(hint, |s| s.end() <= hint);
        for i in from..self.segs.len() {
            let s = self.segs[i];
            if s.flags & (LOST | RETRANS | SACKED) == LOST {
                self.retx_hint = s.start;
                return Some(i);
            }
        }
        self.retx_hint = snd_nxt;
        None
    }

    /// Index of the highest segment not SACKed.
    #[inline]
    pub fn highest_unsacked(&self) -> Option<usize> {
        self.segs.iter().rposition(|s| s.flags & SACKED == 0)
    }

    /// Index of the highest SACKed segment.
    #[inline]
    pub fn highest_sacked(&self) -> Option<usize> {
        self.segs.iter().rposition(|s| s.flags & SACKED != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Send(u32),
        Lost(usize),
        Sacked(usize, bool),
        Resent(usize),
        Acked(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (1u32..2000).prop_map(Op::Send),
            2 => any::<usize>().prop_map(Op::Lost),
            2 => (any::<usize>(), any::<bool>()).prop_map(|(i, k)| Op::Sacked(i, k)),
            2 => any::<usize>().prop_map(Op::Resent),
            1 => any::<usize>().prop_map(Op::Acked),
        ]
    }

    proptest! {
        /// Whatever the marks made and in whatever order, the byte counts
        /// `pipe` is made of are the sums over the segments' marks, the
        /// packets in flight are Linux's count over them, the
        /// resend hint is at or below every segment waiting to be resent,
        /// and `next_lost` finds the lowest of them.
        #[test]
        fn counts_follow_the_marks(ops in prop::collection::vec(op(), 1..120)) {
            let mut b = Scoreboard::new(1000);
            let (mut una, mut nxt) = (1u64, 1u64);
            for op in ops {
                let n = b.segs.len();
                match op {
                    Op::Send(len) => {
                        let seg = Seg { start: nxt, len, dsn: nxt, fin: false, data_fin: false, sent_at: SimTime::ZERO, flags: 0, tx: TxRecord::default() };
                        b.push(seg, nxt);
                        nxt += len as u64;
                    }
                    Op::Lost(i) if n > 0 => b.mark_lost(i % n),
                    Op::Sacked(i, keep) if n > 0 && b.segs[i % n].flags & SACKED == 0 => {
                        b.mark_sacked(i % n, keep);
                    }
                    Op::Resent(i) if n > 0 && b.segs[i % n].flags & (RETRANS | SACKED) == 0 => {
                        b.mark_retransmitted(i % n, SimTime::ZERO);
                    }
                    Op::Acked(i) if n > 0 => {
                        let ack = b.segs[i % n].end();
                        while b.pop_acked(ack).is_some() {}
                        una = ack;
                    }
                    _ => {}
                }
                let sum = |f: u8| b.segs.iter().filter(|s| s.flags & f != 0).map(|s| s.len as u64).sum::<u64>();
                prop_assert_eq!(b.sacked_bytes, sum(SACKED));
                prop_assert_eq!(b.lost_bytes, sum(LOST));
                prop_assert_eq!(b.retrans_bytes, sum(RETRANS));
                prop_assert_eq!(b.sacked_segs, b.segs.iter().filter(|s| s.flags & SACKED != 0).count() as u64);
                // tcp_packets_in_flight, segment by segment: none if SACKed,
                // else one unless lost, and one more if resent.
                let in_flight = b.segs.iter().map(|s| match s.flags {
                    f if f & SACKED != 0 => 0,
                    f => (f & LOST == 0) as u64 + (f & RETRANS != 0) as u64,
                });
                prop_assert_eq!(b.packets_in_flight(), in_flight.sum::<u64>());
                prop_assert!(b.segs.front().is_none_or(|s| s.start == una));
                let waiting = b.segs.iter().position(|s| s.flags & (LOST | RETRANS | SACKED) == LOST);
                if let Some(i) = waiting {
                    prop_assert!(b.retx_hint <= b.segs[i].start);
                }
                prop_assert_eq!(b.clone().next_lost(nxt), waiting);
            }
        }
    }
}
