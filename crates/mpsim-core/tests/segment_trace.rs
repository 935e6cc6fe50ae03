//! The segment trace (`trace.segments`) records what the flow's results
//! count: every byte sent once, every retransmission, SND.UNA rising to the
//! end of the stream, and for MPTCP the data sequence space covered exactly.

mod common;

use common::*;
use mpsim_core::config::*;
use mpsim_core::results::{RunResults, SegmentTraceResult};
use mpsim_core::trace::SegmentRecord;
use mpsim_core::wire::TcpFlags;

fn run(cfg: &ScenarioConfig) -> RunResults {
    let mut sim = mpsim_core::build::build(cfg).unwrap();
    sim.run();
    sim.results()
}

fn tcp_flow(name: &str, size_bytes: Option<u64>) -> TcpFlowConfig {
    TcpFlowConfig {
        name: name.into(),
        src: "A".into(),
        dst: "B".into(),
        size_bytes,
        cc: Some(CcConfig::Reno {
            config: Default::default(),
        }),
        ..TcpFlowConfig::default()
    }
}

fn sent(t: &SegmentTraceResult) -> impl Iterator<Item = &SegmentRecord> {
    t.segments.iter().filter(|s| !s.received)
}

fn acks(t: &SegmentTraceResult) -> impl Iterator<Item = &SegmentRecord> {
    t.segments.iter().filter(|s| s.received)
}

#[test]
fn a_lossy_flow_sends_each_byte_once_new_and_retransmits_as_its_results_count() {
    // 10 Mbit/s, 20 ms round trip, 1 % random loss on the data path.
    const SIZE: u64 = 3_000_000;
    let mut cfg = host_pair(10_000_000, 10 * MS, 100, 30 * S);
    cfg.links[0].loss = LossConfig::Bernoulli { p: 0.01 };
    cfg.tcp_flows = vec![tcp_flow("traced", Some(SIZE)), tcp_flow("other", Some(SIZE))];
    cfg.trace.segments = vec!["traced".into()];
    let res = run(&cfg);

    assert_eq!(res.segment_traces.len(), 1, "only the traced flow");
    let t = &res.segment_traces[0];
    assert_eq!((t.flow.as_str(), t.subflow, t.mptcp), ("traced", 0, false));
    let flow = &res.tcp_flows[0];

    let first = &t.segments[0];
    assert_eq!(
        (first.received, first.flags, first.seq, first.time_ns),
        (false, TcpFlags::SYN, 0, 0)
    );
    let new_bytes: u64 = sent(t)
        .filter(|s| !s.retransmission)
        .map(|s| s.payload_bytes as u64)
        .sum();
    assert_eq!(new_bytes, SIZE);
    let retransmitted = sent(t).filter(|s| s.retransmission && s.payload_bytes > 0).count() as u64;
    assert!(retransmitted > 0);
    assert_eq!(retransmitted, flow.retransmits_fast + flow.retransmits_rto);
    let syns = sent(t).filter(|s| s.flags & TcpFlags::SYN != 0).count() as u64;
    assert_eq!(syns, 1 + flow.syn_retransmits);
    let data =
        sent(t).filter(|s| s.flags & TcpFlags::SYN == 0 && (s.payload_bytes > 0 || s.flags & TcpFlags::FIN != 0));
    assert_eq!(data.count() as u64, flow.segments_sent);

    // SND.UNA never falls and ends past the data and the FIN; the first
    // ACK is the SYN-ACK, one round trip (20 ms plus serialisation) after the SYN.
    let una: Vec<u64> = acks(t).map(|a| a.snd_una).collect();
    assert!(una.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(*una.last().unwrap(), SIZE + 2);
    let syn_ack = acks(t).next().unwrap();
    assert_eq!(syn_ack.flags, TcpFlags::SYN | TcpFlags::ACK);
    assert!(syn_ack.time_ns > 20 * MS && syn_ack.time_ns < 21 * MS);
    // With SACK on, some ACK above a hole carries blocks; its window is the flow's at that time.
    assert!(acks(t).any(|a| a.n_sack > 0));
    assert_eq!(acks(t).last().unwrap().cwnd_bytes, flow.cwnd_bytes_at_end);
}

#[test]
fn an_mptcp_connection_covers_its_data_sequence_space_once() {
    const SIZE: u64 = 2_000_000;
    let mut cfg = mptcp_pair(
        CcConfig::Lia {
            config: Default::default(),
        },
        Default::default(),
        TcpOptions::default(),
    );
    cfg.mptcp_connections[0].size_bytes = Some(SIZE);
    cfg.trace.segments = vec!["mp".into()];
    let res = run(&cfg);

    assert_eq!(res.segment_traces.len(), 2);
    let mut mapped: Vec<(u64, u64)> = res
        .segment_traces
        .iter()
        .flat_map(|t| sent(t).filter(|s| !s.retransmission && s.payload_bytes > 0))
        .map(|s| (s.data_seq, s.data_seq + s.payload_bytes as u64))
        .collect();
    mapped.sort();
    // Lossless: the new segments of the two subflows tile [1, SIZE + 1).
    assert_eq!(mapped[0].0, 1);
    assert!(mapped.windows(2).all(|w| w[0].1 == w[1].0));
    assert_eq!(mapped.last().unwrap().1, SIZE + 1);
    for t in &res.segment_traces {
        assert!(t.mptcp && sent(t).count() > 10);
        let data_acks: Vec<u64> = acks(t).map(|a| a.data_ack).collect();
        assert!(data_acks.windows(2).all(|w| w[0] <= w[1]));
    }
}

#[test]
fn an_unknown_name_in_trace_segments_is_refused() {
    let mut cfg = host_pair(10_000_000, 10 * MS, 100, S);
    cfg.tcp_flows = vec![tcp_flow("f", Some(1000))];
    cfg.trace.segments = vec!["g".into()];
    let err = mpsim_core::build::build(&cfg).unwrap_err().to_string();
    assert!(
        err.contains("trace.segments[0]") && err.contains("'g'") && err.contains("known: f"),
        "{err}"
    );
}
