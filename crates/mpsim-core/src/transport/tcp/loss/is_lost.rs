//! Loss detection by SACKed segments above a hole: RFC 6675 §4 IsLost and
//! forward acknowledgement.

use crate::transport::tcp::scoreboard::{Scoreboard, EVER_RETRANS, LOST, RETRANS, SACKED};

/// RFC 6675 §4 IsLost(): a segment is lost when more than
/// (DupThresh − 1)·MSS bytes above it are SACKed. Walks down from the
/// top; below a segment already handled, everything was handled before.
pub fn rfc6675(board: &mut Scoreboard, dupack_threshold: u32, mss: u32) {
    let threshold = (dupack_threshold as u64 - 1) * mss as u64;
    let mut sacked_above = 0u64;
    for i in (0..board.segs.len()).rev() {
        let flags = board.segs[i].flags;
        if flags & SACKED != 0 {
            // Octets of data: a FIN takes a sequence number, not a byte.
            sacked_above += board.segs[i].payload() as u64;
            continue;
        }
        if sacked_above > threshold {
            if flags & LOST != 0 {
                break;
            }
            if flags & RETRANS != 0 {
                board.mark_resent_lost(i);
                continue;
            }
            board.mark_lost(i);
        }
    }
}

/// Forward acknowledgement (Mathis & Mahdavi, SIGCOMM 1996), as Linux
/// ran it until 4.15 (`tcp_update_scoreboard`, `tcp_mark_head_lost`
/// with `tcp_is_fack`): a segment is lost when the highest SACKed one is
/// DupThresh or more segments above it (the first fackets_out −
/// reordering segments), however many between are SACKed. And
/// `tcp_mark_lost_retrans`, which Linux ran with FACK only: a
/// retransmission is lost once a segment first sent after it is SACKed.
pub fn fack(board: &mut Scoreboard, dupack_threshold: u32) {
    let Some(top) = board.highest_sacked() else {
        return;
    };
    let threshold = dupack_threshold as usize;
    if top >= threshold {
        for i in (0..=top - threshold).rev() {
            let flags = board.segs[i].flags;
            if flags & SACKED != 0 {
                continue;
            }
            if flags & (LOST | RETRANS) != 0 {
                break;
            }
            board.mark_lost(i);
        }
    }
    if board.retrans_bytes == 0 {
        return;
    }
    // Linux compares sequence numbers (SND.NXT when the segment was
    // resent); the segments sent after a retransmission are those sent
    // no earlier, since a push resends before it sends new data.
    let Some(newest) = board
        .segs
        .iter()
        .filter(|s| s.flags & (SACKED | EVER_RETRANS) == SACKED)
        .map(|s| s.sent_at)
        .max()
    else {
        return;
    };
    let top_start = board.segs[top].start;
    for i in 0..board.segs.len() {
        let s = board.segs[i];
        if s.flags & (SACKED | RETRANS) == RETRANS && s.sent_at <= newest && s.end() <= top_start {
            board.mark_lost(i);
        }
    }
}
