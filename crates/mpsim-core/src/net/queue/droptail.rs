//! Drop-tail: first in, first out, arrivals that do not fit are dropped.

use super::QueueLimit;
use super::{Fifo, QueuedPacket};
use crate::observe::DropReason;

#[derive(Debug)]
pub struct DropTail {
    pub(super) fifo: Fifo,
    /// Most packets waiting, if limited.
    limit_pkts: Option<u32>,
    /// Most bytes waiting, if limited.
    limit_bytes: Option<u64>,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail {
            fifo: Fifo::default(),
            limit_pkts: limit.limit_pkts,
            limit_bytes: limit.limit_bytes,
        }
    }

    #[inline]
    pub fn enqueue(&mut self, p: QueuedPacket) -> Result<(), (QueuedPacket, DropReason)> {
        self.admits(p)?;
        self.fifo.push(p);
        Ok(())
    }

    /// Whether the queue as it is has room for `p`: the packet is handed
    /// back as a tail drop if not.
    #[inline]
    pub fn admits(&self, p: QueuedPacket) -> Result<(), (QueuedPacket, DropReason)> {
        let over_pkts = self.limit_pkts.is_some_and(|l| self.fifo.len_pkts() >= l);
        let over_bytes = self
            .limit_bytes
            .is_some_and(|l| self.fifo.len_bytes() + p.size_bytes as u64 > l);
        if over_pkts || over_bytes {
            return Err((p, DropReason::TailDrop));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PacketId;

    fn qp(i: u32, size: u32) -> QueuedPacket {
        QueuedPacket {
            id: PacketId(i),
            size_bytes: size,
            step: 0,
            delivery_hint: QueuedPacket::NO_HINT,
        }
    }

    #[test]
    fn packet_limit() {
        let mut q = DropTail::new(QueueLimit {
            limit_pkts: Some(2),
            limit_bytes: None,
        });
        assert!(q.enqueue(qp(0, 1500)).is_ok());
        assert!(q.enqueue(qp(1, 1500)).is_ok());
        assert_eq!(q.enqueue(qp(2, 40)), Err((qp(2, 40), DropReason::TailDrop)));
        assert_eq!(q.fifo.pop(), Some(qp(0, 1500)));
        assert!(q.enqueue(qp(3, 40)).is_ok());
    }

    #[test]
    fn byte_limit_admits_what_fits() {
        let mut q = DropTail::new(QueueLimit {
            limit_pkts: None,
            limit_bytes: Some(3000),
        });
        assert!(q.enqueue(qp(0, 1500)).is_ok());
        assert!(q.enqueue(qp(1, 1460)).is_ok());
        assert!(q.enqueue(qp(2, 100)).is_err());
        assert!(q.enqueue(qp(3, 40)).is_ok());
        assert_eq!(q.fifo.len_bytes(), 3000);
    }
}
