//! Loss detection: which segments of the scoreboard are deemed lost, as a
//! stack chooses it. Each detector is a file:
//!
//! - [`is_lost`]: RFC 6675 §4 IsLost (DupThresh SACKed segments above), and
//!   forward acknowledgement as Linux ran it until 4.15;
//! - [`rack`]: RFC 8985 RACK, losses by time (Linux since 4.18);
//! - [`dupack_marks`]: ns-3's guesses without SACK, where duplicate ACKs
//!   mark segments received and only the head is ever deemed lost;
//! - and none at all for Reno and NewReno, which count duplicate ACKs
//!   (`TcpSender::dupacks`) and deem only the head lost.

pub mod dupack_marks;
pub mod is_lost;
pub mod rack;

use super::config::TcpParams;
use super::scoreboard::SackFeed;

pub use rack::Rack;

/// The detector a flow's settings select.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossDetection {
    /// Duplicate ACKs counted against DupThresh; the head deemed lost when
    /// recovery starts (RFC 5681 §3.2, RFC 6582).
    DupAcks,
    /// ns-3 without SACK: marks guessed from duplicate ACKs, the head deemed
    /// lost on entering recovery and at each partial ACK.
    DupAckMarks,
    /// RFC 6675 §4 IsLost on SACK blocks.
    IsLost,
    /// Forward acknowledgement on SACK blocks (`tcp_fack`).
    Fack,
    /// RFC 8985 RACK on SACK blocks.
    Rack,
}

impl LossDetection {
    #[inline]
    pub fn of(params: &TcpParams) -> Self {
        match SackFeed::of(params) {
            SackFeed::None => LossDetection::DupAcks,
            SackFeed::DupAckMarks => LossDetection::DupAckMarks,
            SackFeed::Blocks if params.rack => LossDetection::Rack,
            SackFeed::Blocks if params.fack => LossDetection::Fack,
            SackFeed::Blocks => LossDetection::IsLost,
        }
    }
}
