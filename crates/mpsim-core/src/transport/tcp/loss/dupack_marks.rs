//! ns-3.44's recovery without SACK (`TcpTxBuffer::AddRenoSack`,
//! `DiscardUpTo`, `MarkHeadAsLost`): each duplicate ACK is taken to say
//! that one more segment above the hole arrived, and marks the lowest
//! unmarked segment above the head as SACKed, so that SACK and PRR
//! recovery can run on the marks. The marks are guesses: they deem nothing
//! lost but the head, count nothing delivered, and are forgotten after a
//! timeout.

use crate::transport::tcp::scoreboard::{Scoreboard, RETRANS, SACKED};

/// The segment a duplicate ACK marks: the lowest unmarked one above the
/// head.
#[inline]
pub fn next_to_mark(board: &Scoreboard) -> Option<usize> {
    (1..board.segs.len()).find(|&i| board.segs[i].flags & SACKED == 0)
}

/// After an ACK of new data, whether the new head carried a mark, now
/// taken off: a duplicate ACK's mark cannot be right about the first
/// unacknowledged segment. ns-3's `DiscardUpTo` then moves the mark to the
/// lowest unmarked segment above it and deems the head lost (the caller's
/// part, which marks through the sender).
pub fn take_mark_off_head(board: &mut Scoreboard) -> bool {
    if board.segs.front().is_none_or(|s| s.flags & SACKED == 0) {
        return false;
    }
    board.unmark_sacked(0);
    true
}

/// After a timeout ns-3 forgets the guesses and resends everything
/// outstanding.
pub fn forget(board: &mut Scoreboard) {
    if board.sacked_bytes == 0 {
        return;
    }
    for s in board.segs.iter_mut() {
        if s.flags & (SACKED | RETRANS) == SACKED | RETRANS {
            board.retrans_segs += 1;
        }
        s.flags &= !SACKED;
    }
    board.sacked_bytes = 0;
    board.sacked_segs = 0;
}
