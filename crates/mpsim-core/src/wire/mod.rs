//! What travels on the network: packets, their headers, and the pool that
//! holds them. This layer depends on nothing but ids and time; the network
//! moves packets and the transports fill and read their headers.
//!
//! Packets live in one slab for the whole run and are named by [`PacketId`];
//! queues and events carry the 4-byte id, never the packet. A freed slot is
//! reused, so once the pool has grown to the run's peak no packet allocates.

pub mod tcp;

use crate::ids::{AddrId, EndpointId, PacketId};
use crate::time::SimTime;
pub use tcp::{SackBlock, TcpFlags, TcpHeader, MAX_SACK_BLOCKS};

/// Transport-specific contents of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    /// A datagram of a UDP flow, numbered from 0.
    Udp { seq: u64 },
    /// A TCP segment.
    Tcp(TcpHeader),
}

#[derive(Clone, Debug)]
pub struct Packet {
    /// Size on the wire in bytes, all headers included; this is what links
    /// serialise and byte-limited queues count.
    pub size_bytes: u32,
    pub src: AddrId,
    pub dst: AddrId,
    /// Hash of the flow's 5-tuple; ECMP picks a next hop from it.
    pub flow_hash: u64,
    /// Where the destination node hands the packet (demultiplexing done once,
    /// at the sender, instead of a 5-tuple lookup per delivery).
    pub endpoint: EndpointId,
    /// When the source put the packet on the network.
    pub sent_at: SimTime,
    pub payload: Payload,
}

/// A packet crossing the network as its queues and events carry it: what
/// every hop needs, so that no hop reads the packet itself (written at the
/// source, the packet is read again only where it is delivered or dropped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InTransit {
    pub id: PacketId,
    /// Size on the wire, bytes (the packet's `size_bytes` when sent).
    pub size_bytes: u32,
    /// Where it is on its route: the index, in the network's list of route
    /// steps, of the link it is crossing.
    pub step: u32,
}

/// A slab of packets with a free list.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
    live: u32,
}

impl PacketPool {
    pub fn alloc(&mut self, packet: Packet) -> PacketId {
        self.live += 1;
        match self.free.pop() {
            Some(id) => {
                self.slots[id.idx()] = packet;
                id
            }
            None => {
                self.slots.push(packet);
                PacketId(self.slots.len() as u32 - 1)
            }
        }
    }

    /// Returns the slot to the pool. The id must not be used afterwards.
    pub fn free(&mut self, id: PacketId) {
        debug_assert!(self.live > 0);
        self.live -= 1;
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.idx()]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.idx()]
    }

    /// Starts loading packet `id` into the caches (see [`crate::cache`]).
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(p) = self.slots.get(id.idx()) {
            crate::cache::prefetch_all(p);
        }
    }

    /// Packets allocated and not yet freed.
    pub fn live(&self) -> u32 {
        self.live
    }

    /// Slots ever allocated (the run's peak of live packets).
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(seq: u64) -> Packet {
        Packet {
            size_bytes: 100,
            src: AddrId(0),
            dst: AddrId(1),
            flow_hash: 0,
            endpoint: EndpointId(0),
            sent_at: SimTime::ZERO,
            payload: Payload::Udp { seq },
        }
    }

    #[test]
    fn slots_are_reused() {
        let mut pool = PacketPool::default();
        let a = pool.alloc(pkt(1));
        let b = pool.alloc(pkt(2));
        pool.free(a);
        let c = pool.alloc(pkt(3));
        assert_eq!(c, a);
        assert_eq!(pool.get(c).payload, Payload::Udp { seq: 3 });
        assert_eq!(pool.get(b).payload, Payload::Udp { seq: 2 });
        assert_eq!(pool.live(), 2);
        assert_eq!(pool.capacity_used(), 2);
    }
}
