//! TCP Reno/NewReno congestion avoidance (RFC 5681 §3.1). Loss recovery
//! (NewReno, RFC 6582; SACK, RFC 6675; PRR, RFC 6937) lives in the sender,
//! not here.

use crate::cc::CcSetup;
use super::{AckCounting, AckInfo, CcFactory, CongestionAvoidance, SubflowCc};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenoConfig {
    /// Whether the increase is per acknowledged byte or per ACK.
    pub counting: AckCounting,
}

impl Default for RenoConfig {
    fn default() -> Self {
        RenoConfig {
            counting: AckCounting::Bytes,
        }
    }
}

/// `cc = {type = "reno"}`: the profile's Reno, counting as the profile
/// does unless `counting` is given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenoCcConfig {
    pub counting: Option<AckCounting>,
}

impl CcFactory for RenoCcConfig {
    type Algorithm = Reno;
    fn build(&self, setup: &CcSetup) -> Reno {
        let mut config = setup.reno;
        if let Some(c) = self.counting {
            config.counting = c;
        }
        Reno::new(config)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Reno {
    pub config: RenoConfig,
}

impl Reno {
    pub fn new(config: RenoConfig) -> Self {
        Reno { config }
    }
}

impl CongestionAvoidance for Reno {
    /// RFC 5681 §3.1, eq. (3) in its byte-counting form (RFC 3465 §2.1):
    /// cwnd grows by one MSS once a full cwnd of bytes has been acknowledged.
    /// Per-ACK counting is ns-3's `TcpNewReno::CongestionAvoidance`:
    /// cwnd += max(1, MSS²/cwnd) bytes per ACK.
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        let sf = &mut s[r];
        if !ack.cwnd_limited || ack.acked_bytes == 0 {
            return;
        }
        let mss = sf.mss as u64;
        match self.config.counting {
            AckCounting::Bytes => {
                sf.ca_credit += ack.acked_bytes;
                if sf.ca_credit >= sf.cwnd {
                    sf.ca_credit -= sf.cwnd;
                    sf.cwnd += mss;
                }
            }
            AckCounting::PerAck => {
                sf.cwnd += (mss * mss / sf.cwnd).max(1);
            }
        }
    }

    /// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2·MSS), where
    /// what counts as the flight is the stack's choice, which the sender
    /// puts in `bytes_in_flight` at the loss (`TcpParams::loss_flight`:
    /// FlightSize, pipe as ns-3's `TcpNewReno`, or cwnd as Linux's
    /// `tcp_reno_ssthresh`).
    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, _now: SimTime) -> u64 {
        let sf = &s[r];
        (sf.bytes_in_flight / 2).max(2 * sf.mss as u64)
    }
}
