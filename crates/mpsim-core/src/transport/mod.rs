//! Transports: TCP (and, built on its subflows, MPTCP).

pub mod tcp;
