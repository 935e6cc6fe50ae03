//! ns-3.44's `TcpPrrRecovery`: RFC 6937 PRR with ns-3's accounting.
//! RecoverFS is the pipe at entry; a duplicate ACK counts one more MSS
//! delivered while prr_delivered < RecoverFS; below ssthresh the
//! conservative bound (PRR-CRB) applies unless the ACK covers retransmitted
//! data; cwnd = pipe + sndcnt, at least one segment on entry; and ns-3's
//! 32-bit arithmetic is kept.

use super::{RecoveryAck, RecoveryState};
use crate::cc::SubflowCc;

/// ns-3 `TcpPrrRecovery::EnterRecovery`: the entering ACK is a duplicate
/// one for PRR's accounting. With nothing delivered (no pipe to credit a
/// duplicate ACK against) it leaves cwnd as it was; the head is resent
/// regardless, as ns-3's `EnterRecovery` step (4.3) does.
pub fn entry_cwnd(rec: &mut RecoveryState, sf: &SubflowCc, ack: &RecoveryAck, mss: u64) -> u64 {
    cwnd(rec, sf.ssthresh, ack.pipe_ns3, ack.delivered, ack.dup, ack.safe, mss).unwrap_or(sf.cwnd)
}

/// ns-3 `TcpSocketBase::ProcessAck`: a duplicate ACK runs `DoRecovery`
/// from `DupAck`, and an ACK of at least one segment below the recovery
/// point runs it (again, when the ACK is both) as a partial ACK, with the
/// same pipe.
pub fn on_ack(rec: &mut RecoveryState, sf: &mut SubflowCc, ack: &RecoveryAck, mss: u64) {
    if ack.dup {
        if let Some(c) = cwnd(rec, sf.ssthresh, ack.pipe_ns3, ack.delivered, true, ack.safe, mss) {
            sf.cwnd = c;
        }
    }
    if ack.newly_acked >= mss {
        if let Some(c) = cwnd(rec, sf.ssthresh, ack.pipe_ns3, ack.delivered, false, ack.safe, mss) {
            sf.cwnd = c;
        }
    }
}

/// ns-3.44 `TcpPrrRecovery::DoRecovery` with `pipe` as its
/// `m_bytesInFlight`: the new cwnd, or `None` when nothing was delivered.
fn cwnd(
    rec: &mut RecoveryState,
    ssthresh: u64,
    pipe: u64,
    delivered: u64,
    dup: bool,
    safe: bool,
    mss: u64,
) -> Option<u64> {
    let mut delivered = delivered;
    if dup && rec.prr_delivered < rec.recover_fs {
        delivered += mss;
    }
    if delivered == 0 {
        return None;
    }
    rec.prr_delivered += delivered;
    // ns-3.44 computes in 32-bit unsigned integers: the product of the
    // proportional part wraps above 4 GiB², and prr_delivered − prr_out
    // wraps when more was sent than delivered, which the conversion to
    // `int` turns into the negative difference, whatever DeliveredData.
    let send: i64 = if pipe > ssthresh {
        let product = (rec.prr_delivered as u32).wrapping_mul(ssthresh as u32) as u64;
        product.div_ceil(rec.recover_fs.max(1)) as i64 - rec.prr_out as i64
    } else {
        // PRR-CRB, or PRR-SSRB when the ACK covers retransmitted data.
        let mut limit = if rec.prr_delivered >= rec.prr_out {
            (rec.prr_delivered - rec.prr_out).max(delivered) as i64
        } else {
            rec.prr_delivered as i64 - rec.prr_out as i64
        };
        if safe {
            limit += mss as i64;
        }
        limit.min(ssthresh as i64 - pipe as i64)
    };
    // At least one segment on entering recovery (the fast retransmit).
    let send = send.max(if rec.prr_out > 0 { 0 } else { mss as i64 });
    Some((pipe as i64 + send).max(0) as u64)
}
