//! The `ns2` profile: ns-2.35's one-way `Sack1` TCP as the MPCubic paper ran
//! it (docs/algorithms.md, the profiles side by side).

mod common;

use common::*;
use mpsim_core::build::resolve_tcp;
use mpsim_core::cc::{AckCounting, Cc};
use mpsim_core::config::*;
use mpsim_core::run;
use mpsim_core::time::SimDuration;
use mpsim_core::transport::tcp::config::LossFlight;
use mpsim_core::transport::tcp::Recovery;

fn ns2() -> TcpOptions {
    TcpOptions {
        profile: Profile::Ns2,
        ..TcpOptions::default()
    }
}

#[test]
fn the_profile_holds_ns2s_defaults() {
    let (t, cc) = resolve_tcp(&ns2(), &None, false);
    assert_eq!((t.mss, t.header_bytes, t.framing_bytes), (1000, 40, 0));
    assert_eq!(t.initial_cwnd_segments, 2);
    assert!(t.sack && !t.timestamps && !t.sack_rescue && t.limited_transmit);
    assert_eq!(t.recovery, Recovery::Sack);
    assert!(!t.receiver.delayed_ack);
    assert!(t.receiver.rwnd_bytes >= 64 << 20);
    assert_eq!(t.rtt.initial_rto, SimDuration::from_secs(3));
    assert_eq!(t.rtt.min_rto, SimDuration::from_millis(200));
    assert_eq!(t.rtt.max_rto, SimDuration::from_secs(60));
    assert_eq!(t.rtt.granularity, SimDuration::from_millis(10));
    assert_eq!(t.slow_start.counting, AckCounting::PerAck);
    assert_eq!(
        (t.reno.counting, t.loss_flight),
        (AckCounting::PerAck, LossFlight::Cwnd)
    );
    assert!(t.cwnd_in_segments && !t.cwnd_validation);
    assert!(t.hystart.is_none() && t.hystart_linux.is_none() && t.hystart_ns3.is_none());
    // The paper's "regular Cubic": RFC 9438's C = 0.4, β_cubic = 0.7.
    let Cc::Cubic(c) = cc else {
        panic!("CUBIC by default, not {cc:?}")
    };
    assert_eq!((c.config.c, c.config.beta), (0.4, 0.7));
    // An MPTCP connection takes LIA unless told otherwise, as in every profile.
    assert!(matches!(resolve_tcp(&ns2(), &None, true).1, Cc::Lia(_)));
}

#[test]
fn every_segment_is_acknowledged_and_is_1040_bytes_on_the_wire() {
    let size = 1_000_000;
    let mut cfg = host_pair(10_000_000, 10 * MS, 1000, 10 * S);
    cfg.tcp_flows = vec![TcpFlowConfig {
        name: "t".into(),
        src: "A".into(),
        dst: "B".into(),
        size_bytes: Some(size),
        tcp: ns2(),
        ..TcpFlowConfig::default()
    }];
    let r = run(&cfg).unwrap();
    let f = &r.tcp_flows[0];
    assert_eq!(f.bytes_delivered, size);
    assert_eq!(f.retransmits_fast + f.retransmits_rto, 0);
    // 1000 segments of 1000 B and a SYN and a FIN: 1000 data ACKs, the
    // SYN-ACK and the ACK of the FIN, one per segment.
    assert_eq!(f.segments_sent, 1000);
    let ab = r.links.iter().find(|l| l.name == "ab").unwrap();
    // SYN (40 B, no options but SACK-permitted), 1000 data segments of
    // 1040 B, the handshake's ACK and the FIN.
    let data_bytes = ab.delivered_bytes - (ab.delivered_pkts - 1000) * 40;
    assert!(data_bytes.abs_diff(1000 * 1040) <= 3 * 4, "{ab:?}");
    // An ACK for every segment, no delayed ACK: one per data segment (the
    // FIN rides on the last; the SYN-ACK is not counted as an ACK sent).
    assert_eq!(f.acks_sent, 1000, "{f:?}");
}
