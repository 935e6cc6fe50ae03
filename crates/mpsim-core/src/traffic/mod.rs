//! Traffic: UDP sources and sinks, and the gaps between the flows of a
//! sequence.

pub mod gaps;
pub mod udp;
