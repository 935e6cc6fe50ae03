//! The RTO trace: a traced subflow's results carry the time of each of its
//! retransmission timeouts, one per timeout its counters report, backed off
//! as RFC 6298 §5.5 says while no ACK comes back; an untraced flow has none.

mod common;

use common::*;
use mpsim_core::config::*;

fn flow(name: &str, trace: bool) -> TcpFlowConfig {
    TcpFlowConfig {
        name: name.into(),
        src: "A".into(),
        dst: "B".into(),
        size_bytes: Some(2_000_000),
        cc: Some(CcConfig::Reno {
            config: Default::default(),
        }),
        trace,
        ..TcpFlowConfig::default()
    }
}

#[test]
fn an_outage_gives_each_timeout_its_time_doubling_the_gap_while_nothing_is_acknowledged() {
    // 10 Mbit/s, 20 ms round trip; the data link is down from 1 s to 6 s.
    const DOWN_NS: u64 = S;
    const UP_NS: u64 = 6 * S;
    let mut cfg = host_pair(10_000_000, 10 * MS, 100, 60 * S);
    cfg.tcp_flows = vec![flow("traced", true), flow("other", false)];
    cfg.link_changes = vec![link_state(DOWN_NS, "ab", false), link_state(UP_NS, "ab", true)];
    let mut sim = mpsim_core::build::build(&cfg).unwrap();
    sim.run();
    let res = sim.results();

    assert_eq!(res.rto_traces.len(), 1, "only the traced flow");
    let t = &res.rto_traces[0];
    assert_eq!((t.flow.as_str(), t.subflow), ("traced", 0));
    assert_eq!(t.time_ns.len() as u64, res.tcp_flows[0].rto_count);
    assert!(res.tcp_flows[1].rto_count > 0, "the untraced flow timed out too");

    // Every timeout of the outage falls inside it, the first within one RTO
    // (at most 1 s after the last ACK, RFC 6298 §2.4's floor being 1 s at
    // most); then each retransmission is lost and the timer doubles.
    let during: Vec<u64> = t.time_ns.iter().copied().filter(|&x| x < UP_NS).collect();
    assert!(during.len() >= 3, "{during:?}");
    assert!(during[0] > DOWN_NS && during[0] <= DOWN_NS + S + 20 * MS, "{during:?}");
    for w in during.windows(3) {
        assert_eq!(w[2] - w[1], 2 * (w[1] - w[0]), "{during:?}");
    }
    // The flow completes once the link is back.
    assert!(res.tcp_flows[0].fct_ns.is_some());
}
