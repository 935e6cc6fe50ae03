//! ns-2.35's one-way `Agent/TCP/Sack1` with a `TCPSink/Sack1`, as the
//! MPCubic paper ran it (Sec. IV): 1000-byte segments, every segment
//! acknowledged, no timestamps, cwnd in segments grown per ACK, IW 2, RTO 3 s
//! initial / 200 ms min / 60 s max with a 10 ms tick, and a receive window
//! far above any of the paper's BDPs; `ns-default.tcl` beside each value.

use crate::cc::{AckCounting, RenoConfig};
use crate::slowstart::StandardConfig;
use crate::time::SimDuration;
use crate::transport::tcp::config::{LossFlight, TcpParams};
use crate::transport::tcp::receiver::ReceiverConfig;
use crate::transport::tcp::rtt::RttConfig;

pub fn params() -> TcpParams {
    let rfc = super::rfc::params();
    TcpParams {
        // `packetSize_` 1000 (the paper's), 40 header bytes (`useHeaders_`).
        mss: 1000,
        // `timestamps_ false`: RTT from one timed segment per window.
        timestamps: false,
        // `Sack1`: RFC 2018 SACK, loss recovery by pipe without a rescue.
        sack_rescue: false,
        // `singledup_ 1`: limited transmit.
        limited_transmit: true,
        // `windowInit_ 2`.
        initial_cwnd_segments: 2,
        syn_rto: SimDuration::from_secs(3),
        rtt: RttConfig {
            // `rtxcur_init_ 3.0`, `minrto_ 0.2`, `maxrto_ 60`, `tcpTick_ 0.01`.
            initial_rto: SimDuration::from_secs(3),
            min_rto: SimDuration::from_millis(200),
            max_rto: SimDuration::from_secs(60),
            granularity: SimDuration::from_millis(10),
            min_rto_bounds_variation: false,
        },
        // `TcpAgent::opencwnd`: +1 per ACK in slow start, +1/cwnd in
        // congestion avoidance, whatever an ACK covers; `slowdown`
        // halves cwnd (`CLOSE_SSTHRESH_HALF`).
        slow_start: StandardConfig {
            counting: AckCounting::PerAck,
            abc_limit_mss: None,
        },
        reno: RenoConfig {
            counting: AckCounting::PerAck,
        },
        loss_flight: LossFlight::Cwnd,
        cwnd_in_segments: true,
        // ns-2 grows cwnd on every ACK, limited or not.
        cwnd_validation: false,
        receiver: ReceiverConfig {
            // `TCPSink`: one ACK per segment.
            delayed_ack: false,
            // The paper: a receive window above the BDP (ns-2's
            // `window_` set high); 64 MiB is 67 000 segments.
            rwnd_bytes: 64 << 20,
            ooo_shrinks_window: false,
            ..rfc.receiver
        },
        ..rfc
    }
}
