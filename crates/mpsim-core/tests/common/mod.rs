//! Small builders for scenario configurations used across integration tests.
#![allow(dead_code)]

use mpsim_core::config::*;

/// One millisecond and one second, in nanoseconds.
pub const MS: u64 = 1_000_000;
pub const S: u64 = 1_000_000_000;

/// TCP options of the `linux` profile, nothing overridden.
pub fn linux() -> TcpOptions {
    TcpOptions {
        profile: Profile::Linux,
        ..TcpOptions::default()
    }
}

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
        burst_bytes: None,
        jitter_ns: None,
        rate_limiter: false,
        txtime_rate_bps: None,
        trace: None,
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

/// Link `link` going down (`up` false) or coming back up at `at_ns`.
pub fn link_state(at_ns: u64, link: &str, up: bool) -> LinkChangeConfig {
    LinkChangeConfig {
        at_ns,
        link: link.into(),
        rate_bps: None,
        delay_ns: None,
        loss: None,
        up: Some(up),
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
        throughput: None,
        stop_when_complete: vec![],
        limits: Default::default(),
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

/// Hosts A and B joined by a link each way of `rate_bps` and `one_way_ns`;
/// A → B has a drop-tail buffer of `buffer_pkts`, B → A one of 10 000.
pub fn host_pair(rate_bps: u64, one_way_ns: u64, buffer_pkts: u32, stop_ns: u64) -> ScenarioConfig {
    scenario(
        1,
        stop_ns,
        vec![node("A", NodeKind::Host), node("B", NodeKind::Host)],
        vec![
            link("ab", "A", "B", rate_bps, one_way_ns, droptail(buffer_pkts)),
            link("ba", "B", "A", rate_bps, one_way_ns, droptail(10_000)),
        ],
    )
}

/// Hosts A and B joined by one 10 Mbit/s bottleneck (25 ms one way, 600
/// packets) and an MPTCP connection of two subflows over it (ndiffports).
pub fn mptcp_pair(cc: CcConfig, slow_start: mpsim_core::slowstart::SlowStartConfig, tcp: TcpOptions) -> ScenarioConfig {
    let mut cfg = host_pair(10_000_000, 25 * MS, 600, 6 * S);
    cfg.mptcp_connections = vec![MptcpConnectionConfig {
        name: "mp".into(),
        src_addrs: vec!["A".into()],
        dst_addrs: vec!["B".into()],
        path_manager: PathManager::Ndiffports { subflows: 2 },
        cc: Some(cc),
        slow_start,
        tcp,
        ..MptcpConnectionConfig::default()
    }];
    cfg
}

/// Runs in steps of 1 ms until connection 0's subflow 0 has left slow
/// start, at most `limit_ms`; returns the time in ms.
pub fn run_to_slow_start_exit(sim: &mut mpsim_core::Simulator, limit_ms: u64) -> u64 {
    let mut t = 0;
    while sim.connections[0].subflows[0].sender.stats.slow_start_exit_at.is_none() {
        t += 1;
        assert!(t <= limit_ms, "no slow-start exit within {limit_ms} ms");
        sim.run_until(mpsim_core::time::SimTime(t * MS));
    }
    t
}

/// Runs in steps of 1 ms until every subflow of connection 0 has left
/// slow start, at most `limit_ms`.
pub fn run_until_all_left_slow_start(sim: &mut mpsim_core::Simulator, limit_ms: u64) {
    let mut t = 0;
    while sim.connections[0].stats.all_left_slow_start_at.is_none() {
        t += 1;
        assert!(t <= limit_ms, "subflows still in slow start after {limit_ms} ms");
        sim.run_until(mpsim_core::time::SimTime(t * MS));
    }
}

/// Serialisation time as the engine computes it (rounded up to the ns).
pub fn ser_ns(bytes: u64, rate_bps: u64) -> u64 {
    (bytes * 8 * 1_000_000_000).div_ceil(rate_bps)
}

/// Host S with interfaces S1 (to R1) and S2 (to R2); host D reachable
/// through both routers. Each path: access 1 Gbit/s, router→D `rate_bps`
/// with `delay_ns` one way split over two hops.
pub fn two_paths(rates: [u64; 2], one_way: [u64; 2], buffer_pkts: u32) -> ScenarioConfig {
    let mut links = Vec::new();
    for (i, r) in ["R1", "R2"].iter().enumerate() {
        let d = one_way[i] / 2;
        links.push(link(&format!("S-{r}"), "S", r, 1_000_000_000, d, droptail(10_000)));
        links.push(link(&format!("{r}-S"), r, "S", 1_000_000_000, d, droptail(10_000)));
        links.push(link(&format!("{r}-D"), r, "D", rates[i], d, droptail(buffer_pkts)));
        links.push(link(&format!("D-{r}"), "D", r, 1_000_000_000, d, droptail(10_000)));
    }
    let mut cfg = scenario(
        1,
        120_000_000_000,
        vec![
            node("S", NodeKind::Host),
            node("R1", NodeKind::Router),
            node("R2", NodeKind::Router),
            node("D", NodeKind::Host),
        ],
        links,
    );
    let addr = |name: &str, node: &str, out: Option<&str>, inl: Option<&str>| AddressConfig {
        name: name.into(),
        node: node.into(),
        out_link: out.map(Into::into),
        in_link: inl.map(Into::into),
    };
    cfg.addresses = vec![
        addr("S1", "S", Some("S-R1"), Some("R1-S")),
        addr("S2", "S", Some("S-R2"), Some("R2-S")),
        addr("D1", "D", Some("D-R1"), Some("R1-D")),
        addr("D2", "D", Some("D-R2"), Some("R2-D")),
        addr("D", "D", None, None),
    ];
    cfg
}

/// [`host_pair`] with random loss `p` on the data path (A → B) and one Reno
/// TCP flow `f` from A to B with the options given.
pub fn lossy_reno_pair(
    rate_bps: u64,
    one_way_ns: u64,
    buffer_pkts: u32,
    stop_ns: u64,
    p: f64,
    tcp: TcpOptions,
) -> ScenarioConfig {
    let mut cfg = host_pair(rate_bps, one_way_ns, buffer_pkts, stop_ns);
    cfg.links[0].loss = LossConfig::Bernoulli { p };
    cfg.tcp_flows = vec![TcpFlowConfig {
        name: "f".into(),
        src: "A".into(),
        dst: "B".into(),
        cc: Some(CcConfig::Reno {
            config: Default::default(),
        }),
        tcp,
        ..TcpFlowConfig::default()
    }];
    cfg
}
