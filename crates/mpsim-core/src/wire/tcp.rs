//! The TCP header fields the simulator models. Sequence numbers are 64-bit
//! byte offsets that never wrap; the SYN takes sequence number 0 and the
//! first data byte is 1 (RFC 9293 §3.4 with ISN = 0).

use crate::time::SimTime;

/// Most SACK blocks one ACK carries (RFC 2018 §3: 3 with timestamps).
pub const MAX_SACK_BLOCKS: usize = 3;

/// A received block of bytes above the cumulative ACK: [start, end).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const SYN: u8 = 1;
    pub const ACK: u8 = 2;
    pub const FIN: u8 = 4;
    /// MPTCP DSS DATA_FIN (RFC 8684 §3.3.3): the connection's data ends
    /// with this segment's payload.
    pub const DATA_FIN: u8 = 8;
    /// PSH (RFC 9293): set by Linux on the last segment of every send of
    /// more than one segment (`__tcp_transmit_skb`, "to expedite GRO flush
    /// at receiver"); with `tcp.mptcp_rcv_window = "linux"` it marks the
    /// last segment a subflow sends from its queue at once.
    pub const PSH: u8 = 16;

    #[inline]
    pub fn has(self, f: u8) -> bool {
        self.0 & f != 0
    }
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    pub flags: TcpFlags,
    /// Sequence number of the first byte of payload (or of the SYN/FIN).
    pub seq: u64,
    /// Next byte expected by the sender of this segment (valid with ACK).
    pub ack: u64,
    /// Payload bytes carried.
    pub payload_bytes: u32,
    /// Data sequence number of the first payload byte: the MPTCP DSS
    /// mapping (RFC 8684 §3.3.1); for single-path TCP it equals `seq`.
    pub dsn: u64,
    /// SACK blocks, most recent first (RFC 2018 §4); `n_sack` are valid.
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    pub n_sack: u8,
    /// MPTCP DATA_ACK (RFC 8684 §3.3.2): next data sequence number expected
    /// at the connection level (valid with ACK on an MPTCP subflow).
    pub data_ack: u64,
    /// Receive window advertised, bytes (for MPTCP, the connection's window
    /// relative to DATA_ACK, RFC 8684 §3.3.4).
    pub rwnd: u64,
    /// RFC 7323 TSval: the sender's clock when the segment was sent.
    pub ts_val: SimTime,
    /// RFC 7323 TSecr: the TSval echoed (valid with ACK when timestamps are on).
    pub ts_ecr: SimTime,
    /// Whether this segment is a retransmission (for accounting only; a real
    /// receiver cannot see it).
    pub retransmission: bool,
}

impl TcpHeader {
    /// Sequence space the segment occupies: payload plus one for SYN and FIN.
    #[inline]
    pub fn seq_len(&self) -> u64 {
        self.payload_bytes as u64 + self.flags.has(TcpFlags::SYN) as u64 + self.flags.has(TcpFlags::FIN) as u64
    }

    #[inline]
    pub fn sacks(&self) -> &[SackBlock] {
        &self.sack[..self.n_sack as usize]
    }
}
