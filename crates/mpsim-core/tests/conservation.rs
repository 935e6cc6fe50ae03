//! Packet conservation on every link of random topologies, at many instants
//! of a run: arrived = delivered + dropped + queued + on the wire, and every
//! live packet is held by exactly one link.

mod common;

use common::*;
use mpsim_core::build::build;
use mpsim_core::config::*;
use mpsim_core::time::SimTime;
use proptest::prelude::*;

const MS: u64 = 1_000_000;

#[derive(Debug, Clone)]
struct Spec {
    hosts: usize,
    routers: usize,
    /// (from, to, rate Mbit/s, delay ms, queue kind, queue size, loss)
    links: Vec<(usize, usize, u64, u64, u8, u32, u8)>,
    /// (src host, dst host, rate Mbit/s, size)
    flows: Vec<(usize, usize, u64, u32)>,
    /// (at ms, link, up)
    changes: Vec<(u64, usize, bool)>,
    seed: u64,
}

fn spec() -> impl Strategy<Value = Spec> {
    (2usize..5, 1usize..5).prop_flat_map(|(hosts, routers)| {
        let n = hosts + routers;
        let link = (0..n, 0..n, 1u64..50, 0u64..20, 0u8..3, 1u32..30, 0u8..3);
        let flow = (0..hosts, 0..hosts, 1u64..40, 40u32..1500);
        (
            Just(hosts),
            Just(routers),
            prop::collection::vec(link, 1..16),
            prop::collection::vec(flow, 1..8),
            prop::collection::vec((0u64..400, 0usize..16, any::<bool>()), 0..4),
            any::<u64>(),
        )
            .prop_map(|(hosts, routers, links, flows, changes, seed)| Spec {
                hosts,
                routers,
                links,
                flows,
                changes,
                seed,
            })
    })
}

fn name(i: usize, hosts: usize) -> String {
    if i < hosts {
        format!("h{i}")
    } else {
        format!("r{}", i - hosts)
    }
}

fn to_config(s: &Spec) -> ScenarioConfig {
    let mut nodes: Vec<_> = (0..s.hosts).map(|i| node(&name(i, s.hosts), NodeKind::Host)).collect();
    nodes.extend((0..s.routers).map(|i| node(&name(s.hosts + i, s.hosts), NodeKind::Router)));
    let mut links = Vec::new();
    for (i, &(a, b, rate, delay, qkind, qsize, loss)) in s.links.iter().enumerate() {
        if a == b {
            continue;
        }
        let queue = match qkind {
            0 => droptail(qsize),
            1 => QueueConfig::Red {
                limit_pkts: qsize + 5,
                min_th_pkts: 1.0,
                max_th_pkts: 4.0,
                max_p: 0.1,
                weight: 0.02,
                gentle: true,
                mean_pkt_size_bytes: 1000,
            },
            _ => QueueConfig::Codel {
                target_ns: MS,
                interval_ns: 20 * MS,
                limit_pkts: qsize,
            },
        };
        let mut l = link(
            &format!("l{i}"),
            &name(a, s.hosts),
            &name(b, s.hosts),
            rate * 1_000_000,
            delay * MS,
            queue,
        );
        l.loss = match loss {
            0 => LossConfig::None,
            1 => LossConfig::Bernoulli { p: 0.05 },
            _ => LossConfig::GilbertElliott {
                p_gb: 0.05,
                p_bg: 0.3,
                loss_good: 0.0,
                loss_bad: 0.7,
            },
        };
        links.push(l);
    }
    let mut cfg = scenario(s.seed, 500 * MS, nodes, links);
    cfg.udp_flows = s
        .flows
        .iter()
        .enumerate()
        .filter(|(_, f)| f.0 != f.1)
        .map(|(i, &(a, b, rate, size))| {
            cbr(
                &format!("f{i}"),
                &name(a, s.hosts),
                &name(b, s.hosts),
                rate * 1_000_000,
                size,
                0,
                None,
            )
        })
        .collect();
    let n_links = cfg.links.len();
    cfg.link_changes = s
        .changes
        .iter()
        .filter(|_| n_links > 0)
        .map(|&(at, l, up)| LinkChangeConfig {
            at_ns: at * MS,
            link: cfg.links[l % n_links].name.clone(),
            rate_bps: None,
            delay_ns: None,
            loss: None,
            up: Some(up),
        })
        .collect();
    cfg
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_link_conserves_packets(s in spec()) {
        let mut cfg = to_config(&s);
        prop_assume!(!cfg.links.is_empty());
        // A flow between nodes that no route joins is refused; the others run.
        if let Err(e) = build(&cfg) {
            let refused: Vec<&str> = e.iter().map(|p| p.path.as_str()).collect();
            let mut i = 0;
            cfg.udp_flows.retain(|_| {
                i += 1;
                !refused.contains(&format!("udp_flows[{}].dst", i - 1).as_str())
            });
        }
        let mut sim = build(&cfg).expect("generated configurations are valid");
        for step in 1..=10u64 {
            sim.run_until(SimTime(step * 50 * MS));
            let mut held = 0u64;
            for l in &sim.net.links {
                let c = &l.counters;
                let dropped: u64 = c.dropped_pkts.iter().sum();
                prop_assert_eq!(
                    c.arrived_pkts,
                    c.delivered_pkts + dropped + l.held_pkts(),
                    "link {} at step {}", l.name, step
                );
                prop_assert!(c.enqueued_pkts <= c.arrived_pkts);
                held += l.held_pkts();
            }
            // Every packet alive is on exactly one link.
            prop_assert_eq!(sim.ctx.packets.live() as u64, held);
            // Every packet sent is received, dropped somewhere, or still held.
            let sent: u64 = sim.udp_sources.iter().map(|f| f.sent_pkts).sum();
            let received: u64 = sim.udp_sinks.iter().map(|k| k.received_pkts).sum();
            let dropped: u64 = sim
                .net
                .links
                .iter()
                .map(|l| l.counters.dropped_pkts.iter().sum::<u64>())
                .sum();
            prop_assert_eq!(sent, received + dropped + sim.net.dropped_no_route + held);
        }
    }
}
