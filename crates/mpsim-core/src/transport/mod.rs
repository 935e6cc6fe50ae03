//! Transports: TCP (and, built on its subflows, MPTCP).

pub mod connection;
pub mod mptcp;
pub mod tcp;
