//! Traffic that is not TCP: UDP sources and sinks.

pub mod udp;
