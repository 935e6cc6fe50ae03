//! RFC 5682 F-RTO with SACK, as Linux runs it (`tcp_process_loss`): after a
//! timeout, whether it was spurious, and the undo if so.

use super::*;
use crate::transport::tcp::scoreboard::{Seg, EVER_RETRANS, LOST};
/// RFC 5682 F-RTO after a retransmission timeout (Linux `tp->frto`).
#[derive(Copy, Clone, Debug)]
pub(super) struct Frto {
    /// Linux `high_seq`: SND.NXT when the timeout fired, moved to SND.NXT
    /// again by the first ACK that advances SND.UNA (§3.1 step 2).
    pub high_seq: u64,
    /// §3.1 step 2.b: the next transmission sends new data, not the
    /// segments the timeout marked lost.
    pub new_data_turn: bool,
}

/// What the first timeout of an episode found, to restore if it was
/// spurious (Linux `prior_cwnd`, `prior_ssthresh`).
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct RtoUndo {
    /// cwnd before the timeout, bytes.
    pub cwnd: u64,
    /// ssthresh before it: at least 3/4 of cwnd outside recovery (Linux
    /// `tcp_current_ssthresh`), bytes.
    pub ssthresh: u64,
    /// SND.UNA at the latest timeout: a timeout with no progress since
    /// recurs (RFC 5682 §3.2).
    pub una: u64,
}

impl TcpSender {
    /// Linux `FLAG_ORIG_SACK_ACKED`: segment `s`, delivered by this ACK,
    /// was sent before the timeout F-RTO is testing and never resent.
    pub(super) fn note_original_delivery(&mut self, s: &Seg) {
        if s.flags & EVER_RETRANS == 0 && self.frto.is_some_and(|f| s.end() <= f.high_seq) {
            self.orig_delivered = true;
        }
    }

    /// RFC 5682 §3.1 steps 2 and 3 with SACK (Appendix B), as Linux
    /// `tcp_process_loss` runs them on every ACK after a timeout.
    pub(super) fn frto_on_ack(
        &mut self,
        now: SimTime,
        sf: &mut SubflowCc,
        newly_acked: u64,
        newly_sacked: u64,
        dup: bool,
    ) {
        let Some(mut f) = self.frto else { return };
        if !self.in_rto_recovery {
            // Everything outstanding at the timeout is acknowledged.
            self.frto = None;
            return;
        }
        if self.orig_delivered {
            // Step 3.b: data never resent arrived, so not all of the
            // window was lost: the timeout was spurious.
            self.frto_undo(now, sf);
            return;
        }
        if self.snd_nxt > f.high_seq {
            // Step 3.a: a duplicate ACK or SACK of the new data alone: the
            // loss was real.
            if newly_sacked > 0 || dup {
                self.frto = None;
            }
        } else if newly_acked > 0 && self.snd_una < f.high_seq {
            // Step 2.b: the retransmission arrived; send new data next.
            f.high_seq = self.snd_nxt;
            f.new_data_turn = true;
            self.frto = Some(f);
        }
    }

    /// Linux `tcp_try_undo_loss(sk, true)` → `tcp_undo_cwnd_reduction`:
    /// the segments the timeout marked lost are in flight after all, cwnd
    /// and ssthresh return to their values before it, and the sender is
    /// out of loss recovery (a later loss may fast-retransmit at once).
    pub(super) fn frto_undo(&mut self, now: SimTime, sf: &mut SubflowCc) {
        for s in self.board.segs.iter_mut() {
            if s.flags & LOST != 0 {
                s.flags &= !LOST;
                self.board.lost_bytes -= s.len as u64;
                self.board.lost_segs -= 1;
            }
        }
        self.board.retx_hint = self.snd_nxt;
        if self.runs_bbr() {
            self.cong_control_undo(now, sf, self.rto_undo.ssthresh);
        } else {
            sf.cwnd = sf.cwnd.max(self.rto_undo.cwnd);
            sf.ssthresh = sf.ssthresh.max(self.rto_undo.ssthresh);
        }
        self.frto = None;
        self.in_rto_recovery = false;
        self.rto_recover = 0;
        self.stats.spurious_rtos += 1;
    }

    /// RFC 5682 §3.1 step 1 (Linux `tcp_enter_loss`): F-RTO tests a
    /// timeout outside any recovery, or one that recurs with no progress
    /// since the last (§3.2); the first timeout of an episode keeps what an
    /// undo would restore.
    pub(super) fn frto_on_rto(&mut self, sf: &SubflowCc) {
        let first = self.recovery.is_none() && !self.in_rto_recovery;
        let recurring = self.in_rto_recovery && self.snd_una == self.rto_undo.una;
        if !self.in_rto_recovery {
            let ssthresh = if self.recovery.is_some() {
                sf.ssthresh
            } else {
                sf.ssthresh.max(sf.cwnd / 2 + sf.cwnd / 4)
            };
            self.rto_undo.cwnd = sf.cwnd;
            self.rto_undo.ssthresh = ssthresh;
        }
        self.rto_undo.una = self.snd_una;
        self.frto = (first || recurring).then_some(Frto {
            high_seq: self.snd_nxt,
            new_data_turn: false,
        });
    }
}
