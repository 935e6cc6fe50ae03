//! The windowed-throughput table (`mpsim_core::throughput`): bins of bytes
//! sent and delivered per flow and subflow, against what each run implies.

mod common;

use common::*;
use mpsim_core::config::*;
use mpsim_core::results::ThroughputSeries;
use mpsim_core::{run, RunResults};

fn bins(interval_ns: u64, start_ns: u64, end_ns: Option<u64>) -> Option<ThroughputConfig> {
    Some(ThroughputConfig {
        interval_ns,
        start_ns,
        end_ns,
    })
}

fn series<'a>(r: &'a RunResults, flow: &str, subflow: Option<u32>) -> &'a ThroughputSeries {
    let t = r.throughput.as_ref().expect("the throughput table");
    t.series
        .iter()
        .find(|s| s.flow == flow && s.subflow == subflow)
        .unwrap_or_else(|| panic!("no series for {flow} {subflow:?}"))
}

#[test]
fn a_constant_bit_rate_fills_every_bin_with_rate_times_interval() {
    // 1000 B every 1 ms (8 Mbit/s) on a 10 Mbit/s link: no queue, a constant delay.
    let mut cfg = one_link(10_000_000, 7 * MS, droptail(10));
    cfg.udp_flows = vec![cbr("f", "A", "B", 8_000_000, 1000, 0, None)];
    cfg.stop_time_ns = 2 * S;
    // Packet k leaves at k ms and arrives 7.8 ms later (0.8 ms on the wire):
    // 100 ms bins from 8.3 ms hold sends 9..=108 and arrivals of sends 1..=100.
    cfg.throughput = bins(100 * MS, 8 * MS + 300_000, Some(1908 * MS + 300_000));
    let r = run(&cfg).unwrap();
    let s = series(&r, "f", None);
    assert_eq!(s.kind, "udp");
    // 8 Mbit/s × 0.1 s = 100 000 bytes: 100 packets sent in every bin.
    assert_eq!(s.bytes_sent, vec![100_000; 19]);
    assert_eq!(s.bytes_delivered, vec![100_000; 19]);
}

#[test]
fn a_tcp_flows_bins_sum_to_what_it_delivered_and_sent() {
    let mut cfg = host_pair(10_000_000, 20 * MS, 30, 20 * S + 123_457);
    cfg.links[0].loss = LossConfig::Bernoulli { p: 0.002 };
    cfg.tcp_flows = vec![TcpFlowConfig {
        name: "t".into(),
        src: "A".into(),
        dst: "B".into(),
        size_bytes: None,
        tcp: linux(),
        ..TcpFlowConfig::default()
    }];
    cfg.throughput = bins(S, 0, None);
    let r = run(&cfg).unwrap();
    let s = series(&r, "t", None);
    assert_eq!(s.kind, "tcp");
    // 20 whole bins and a last one of 123 457 ns.
    assert_eq!(s.bytes_delivered.len(), 21);
    let f = &r.tcp_flows[0];
    assert_eq!(s.bytes_delivered.iter().sum::<u64>(), f.bytes_delivered);
    assert!(f.retransmits_fast > 0, "the loss made retransmissions: {f:?}");
    // Sent counts the retransmissions too.
    assert!(s.bytes_sent.iter().sum::<u64>() > f.bytes_delivered);
    // No bin carries more than the link.
    assert!(s.bytes_delivered.iter().all(|&b| b <= 10_000_000 / 8));
}

#[test]
fn a_lossless_transfer_sends_and_delivers_its_size_once() {
    let size = 3_000_000;
    let mut cfg = host_pair(10_000_000, 20 * MS, 1000, 10 * S);
    cfg.tcp_flows = vec![TcpFlowConfig {
        name: "t".into(),
        src: "A".into(),
        dst: "B".into(),
        size_bytes: Some(size),
        tcp: linux(),
        ..TcpFlowConfig::default()
    }];
    cfg.throughput = bins(250 * MS, 0, None);
    let r = run(&cfg).unwrap();
    let s = series(&r, "t", None);
    assert_eq!(r.tcp_flows[0].retransmits_fast + r.tcp_flows[0].retransmits_rto, 0);
    assert_eq!(s.bytes_sent.iter().sum::<u64>(), size);
    assert_eq!(s.bytes_delivered.iter().sum::<u64>(), size);
    // 3 MB at 10 Mbit/s take 2.4 s: the bins after 3 s are empty.
    assert!(s.bytes_delivered[12..].iter().all(|&b| b == 0));
    // No bin carries more than 250 ms of the link.
    assert!(s.bytes_delivered.iter().all(|&b| b <= 10_000_000 / 8 / 4));
}

#[test]
fn an_mptcp_connection_sends_the_sum_of_its_subflows_and_delivers_at_its_data_level() {
    let mut cfg = two_paths([10_000_000; 2], [20 * MS, 40 * MS], 30);
    cfg.stop_time_ns = 10 * S;
    cfg.links[2].loss = LossConfig::Bernoulli { p: 0.01 };
    cfg.mptcp_connections = vec![MptcpConnectionConfig {
        name: "mp".into(),
        src_addrs: vec!["S1".into(), "S2".into()],
        dst_addrs: vec!["D".into()],
        size_bytes: None,
        cc: Some(CcConfig::Lia {
            config: Default::default(),
        }),
        tcp: linux(),
        ..MptcpConnectionConfig::default()
    }];
    cfg.throughput = bins(500 * MS, 0, None);
    let r = run(&cfg).unwrap();
    let c = series(&r, "mp", None);
    let sub = [series(&r, "mp", Some(0)), series(&r, "mp", Some(1))];
    assert_eq!(c.kind, "mptcp");
    assert_eq!(sub[0].kind, "mptcp_subflow");
    // Sent: a connection's segments are its subflows' segments, bin by bin.
    for k in 0..c.bytes_sent.len() {
        assert_eq!(c.bytes_sent[k], sub[0].bytes_sent[k] + sub[1].bytes_sent[k], "bin {k}");
    }
    // Delivered: each at its own level, summing to what each reports.
    let m = &r.mptcp_connections[0];
    assert_eq!(c.bytes_delivered.iter().sum::<u64>(), m.bytes_delivered);
    for (s, row) in sub.iter().zip(&m.subflows) {
        assert_eq!(s.bytes_delivered.iter().sum::<u64>(), row.flow.bytes_delivered);
        assert!(row.flow.bytes_delivered > 0);
    }
}

#[test]
fn bins_are_checked() {
    let mut cfg = one_link(10_000_000, 7 * MS, droptail(10));
    cfg.stop_time_ns = 2 * S;
    let problems = |t| {
        let mut cfg = cfg.clone();
        cfg.throughput = t;
        mpsim_core::validate::validate(&cfg)
            .unwrap_err()
            .0
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    };
    let p = problems(bins(0, 0, None));
    assert!(
        p[0].contains("throughput.interval_ns") && p[0].contains("positive"),
        "{p:?}"
    );
    let p = problems(bins(S, 0, Some(3 * S)));
    assert!(
        p[0].contains("throughput.end_ns") && p[0].contains("at most the stop time"),
        "{p:?}"
    );
    let p = problems(bins(S, 2 * S, None));
    assert!(
        p[0].contains("throughput.start_ns") && p[0].contains("before the end"),
        "{p:?}"
    );
    let p = problems(bins(1_000, 0, None));
    assert!(
        p[0].contains("2000000 bins") && p[0].contains("widen the interval"),
        "{p:?}"
    );
    cfg.throughput = bins(S, 0, None);
    assert!(mpsim_core::validate::validate(&cfg).is_ok());
}
