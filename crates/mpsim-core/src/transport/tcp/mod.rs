//! A packet-level TCP, shaped so that an MPTCP subflow is a TCP whose
//! congestion control and data supply are decided by its connection.

pub mod config;
pub mod loss;
pub mod pacing;
pub mod rcv_space;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod stacks;
pub mod timer;

pub use crate::cc::CcConfig;
pub use config::{Profile, Recovery, TcpParams};

pub use crate::wire::tcp::{SackBlock, TcpFlags, TcpHeader, MAX_SACK_BLOCKS};
