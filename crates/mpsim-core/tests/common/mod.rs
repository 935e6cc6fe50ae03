//! Small builders for scenario configurations used across integration tests.
#![allow(dead_code)]

use mpsim_core::config::*;

pub fn node(name: &str, kind: NodeKind) -> NodeConfig {
    NodeConfig {
        name: name.into(),
        kind,
    }
}

pub fn link(name: &str, from: &str, to: &str, rate_bps: u64, delay_ns: u64, queue: QueueConfig) -> LinkConfig {
    LinkConfig {
        name: name.into(),
        from: from.into(),
        to: to.into(),
        rate_bps,
        delay_ns,
        queue,
        loss: LossConfig::None,
        weight: 1,
        up: true,
    }
}

pub fn droptail(limit_pkts: u32) -> QueueConfig {
    QueueConfig::DropTail {
        limit: QueueLimit {
            limit_pkts: Some(limit_pkts),
            limit_bytes: None,
        },
    }
}

pub fn cbr(
    name: &str,
    src: &str,
    dst: &str,
    rate_bps: u64,
    size: u32,
    start_ns: u64,
    stop_ns: Option<u64>,
) -> UdpFlowConfig {
    UdpFlowConfig {
        name: name.into(),
        src: src.into(),
        dst: dst.into(),
        packet_size_bytes: size,
        start_ns,
        stop_ns,
        pattern: UdpPattern::Cbr { rate_bps },
    }
}

pub fn scenario(seed: u64, stop_time_ns: u64, nodes: Vec<NodeConfig>, links: Vec<LinkConfig>) -> ScenarioConfig {
    ScenarioConfig {
        seed,
        stop_time_ns,
        nodes,
        links,
        addresses: vec![],
        routes: vec![],
        link_changes: vec![],
        udp_flows: vec![],
        tcp_flows: vec![],
        mptcp_connections: vec![],
        trace: TraceConfig::default(),
        stop_when_complete: vec![],
    }
}

/// Host A — link "ab" — host B: a single link.
pub fn one_link(rate_bps: u64, delay_ns: u64, queue: QueueConfig) -> ScenarioConfig {
    scenario(
        1,
        10_000_000_000,
        vec![node("A", NodeKind::Host), node("B", NodeKind::Host)],
        vec![link("ab", "A", "B", rate_bps, delay_ns, queue)],
    )
}

/// Serialisation time as the engine computes it (rounded up to the ns).
pub fn ser_ns(bytes: u64, rate_bps: u64) -> u64 {
    (bytes * 8 * 1_000_000_000).div_ceil(rate_bps)
}
