//! Controlled Delay, RFC 8289.

use super::{DropCause, Fifo, QueuedPacket};
use crate::time::{SimDuration, SimTime};

#[derive(Debug)]
pub struct Codel {
    pub(super) fifo: Fifo,
    target: SimDuration,
    interval: SimDuration,
    limit_pkts: u32,
}

impl Codel {
    pub fn new(target: SimDuration, interval: SimDuration, limit_pkts: u32) -> Self {
        Codel {
            fifo: Fifo::default(),
            target,
            interval,
            limit_pkts,
        }
    }

    pub fn enqueue(&mut self, p: QueuedPacket) -> Result<(), (QueuedPacket, DropCause)> {
        if self.fifo.len_pkts() >= self.limit_pkts {
            return Err((p, DropCause::Overflow));
        }
        self.fifo.push(p);
        Ok(())
    }

    pub fn dequeue(&mut self, _now: SimTime, _dropped: &mut Vec<QueuedPacket>) -> Option<QueuedPacket> {
        self.fifo.pop()
    }
}
