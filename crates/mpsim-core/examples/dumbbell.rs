//! The `dumbbell-N` benchmark scenario: N long-lived TCP NewReno flows
//! (profile `ns3`, MSS 1400, IW 10), each sender on its own 1 Gbit/s / 5 ms
//! access link to R1, receivers likewise behind R2, one 100 Mbit/s / 10 ms
//! bottleneck with a drop-tail buffer of one BDP (344 packets), flow i
//! starting at i/N s, 20 simulated seconds.
//!
//! `cargo run --release --example dumbbell -- 20`

use std::time::Instant;

use mpsim_core::config::*;

fn link(name: &str, from: &str, to: &str, rate_bps: u64, delay_ns: u64, limit: u32) -> LinkConfig {
    LinkConfig {
        name: name.into(),
        from: from.into(),
        to: to.into(),
        rate_bps,
        delay_ns,
        queue: QueueConfig::DropTail {
            limit: QueueLimit {
                limit_pkts: Some(limit),
                limit_bytes: None,
            },
        },
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

pub fn dumbbell(n: usize) -> ScenarioConfig {
    const MS: u64 = 1_000_000;
    let mut nodes = vec![
        NodeConfig {
            name: "R1".into(),
            kind: NodeKind::Router,
        },
        NodeConfig {
            name: "R2".into(),
            kind: NodeKind::Router,
        },
    ];
    let mut links = vec![
        link("R1-R2", "R1", "R2", 100_000_000, 10 * MS, 344),
        link("R2-R1", "R2", "R1", 100_000_000, 10 * MS, 344),
    ];
    let mut flows = Vec::new();
    for i in 0..n {
        let (s, d) = (format!("S{i}"), format!("D{i}"));
        for (h, r) in [(&s, "R1"), (&d, "R2")] {
            nodes.push(NodeConfig {
                name: h.clone(),
                kind: NodeKind::Host,
            });
            links.push(link(&format!("{h}-{r}"), h, r, 1_000_000_000, 5 * MS, 1000));
            links.push(link(&format!("{r}-{h}"), r, h, 1_000_000_000, 5 * MS, 1000));
        }
        flows.push(TcpFlowConfig {
            name: format!("f{i}"),
            src: s,
            dst: d,
            start_ns: i as u64 * 1_000_000_000 / n as u64,
            tcp: TcpOptions {
                profile: Profile::Ns3,
                ..TcpOptions::default()
            },
            cc: Some(CcConfig::Reno {
                config: Default::default(),
            }),
            ..TcpFlowConfig::default()
        });
    }
    ScenarioConfig {
        seed: 1,
        stop_time_ns: 20_000_000_000,
        nodes,
        links,
        addresses: vec![],
        routes: vec![],
        link_changes: vec![],
        udp_flows: vec![],
        tcp_flows: flows,
        mptcp_connections: vec![],
        trace: TraceConfig::default(),
        throughput: None,
        stop_when_complete: vec![],
        limits: Default::default(),
    }
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let cfg = dumbbell(n);
    let mut sim = mpsim_core::build::build(&cfg).expect("valid scenario");
    let t0 = Instant::now();
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let r = sim.results();
    let bottleneck = &r.links[0];
    let goodput: Vec<f64> = r
        .tcp_flows
        .iter()
        .map(|f| f.bytes_delivered as f64 * 8.0 / 20.0 / 1e6)
        .collect();
    let total: f64 = goodput.iter().sum();
    let jain = total * total / (goodput.len() as f64 * goodput.iter().map(|x| x * x).sum::<f64>());
    println!(
        "dumbbell-{n}: wall {wall:.3} s, events {}, {:.1} M events/s, bottleneck packets {}, {:.0} packets/s, goodput {total:.2} Mbit/s, Jain {jain:.4}, drops {}",
        r.events_processed,
        r.events_processed as f64 / wall / 1e6,
        bottleneck.delivered_pkts,
        bottleneck.delivered_pkts as f64 / wall,
        bottleneck.dropped_overflow_pkts
    );
}
