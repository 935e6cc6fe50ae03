//! Whether each flow's packets can reach their destination, once the
//! network and its routes are known: a flow between nodes that no chain of
//! links and routers joins would run and deliver nothing, or (with no link
//! at all) leave the cost estimate without a route to price.

use std::collections::HashMap;

use crate::config::ScenarioConfig;
use crate::error::{ConfigErrors, Problems};
use crate::ids::{AddrId, LinkId};
use crate::net::Network;

/// Whether a packet from `src` can arrive at `dst`'s node: from `src`'s
/// bound interface (or its node's next hops), along any next hop of each
/// router reached, as the forwarding does (a host never forwards).
fn reaches(net: &Network, src: AddrId, dst: AddrId) -> bool {
    let to_node = net.addrs[dst.idx()].node;
    let from = &net.addrs[src.idx()];
    let mut stack: Vec<LinkId> = Vec::new();
    match from.out_link {
        Some(l) => stack.push(l),
        None => net.routes.next_hops(from.node, dst, &mut stack),
    }
    let mut crossed = vec![false; net.links.len()];
    while let Some(l) = stack.pop() {
        if std::mem::replace(&mut crossed[l.idx()], true) {
            continue;
        }
        let at = net.links[l.idx()].to;
        if at == to_node {
            return true;
        }
        if net.nodes[at.idx()].forwards {
            net.routes.next_hops(at, dst, &mut stack);
        }
    }
    false
}

/// Every flow whose data cannot reach its destination, or (TCP, MPTCP's
/// first subflow) whose ACKs cannot come back: `no route from A to D`, at
/// the flow's `dst`. Only an MPTCP connection's first subflow must have a
/// route; its others may fail as they would on a real network.
pub(crate) fn check_routes(cfg: &ScenarioConfig, net: &Network) -> Result<(), ConfigErrors> {
    let by_name: HashMap<&str, AddrId> = (net.addrs.iter().enumerate())
        .map(|(i, a)| (a.name.as_str(), AddrId(i as u32)))
        .collect();
    let mut known: HashMap<(AddrId, AddrId), bool> = HashMap::new();
    let mut p = Problems::default();
    let mut check = |path: String, src: &str, dst: &str, both_ways: bool, p: &mut Problems| {
        let (Some(&s), Some(&d)) = (by_name.get(src), by_name.get(dst)) else {
            return;
        };
        let ways = if both_ways { vec![(s, d), (d, s)] } else { vec![(s, d)] };
        for (a, b) in ways {
            if !*known.entry((a, b)).or_insert_with(|| reaches(net, a, b)) {
                let (from, to) = (shown(net, a), shown(net, b));
                p.say(
                    path,
                    dst,
                    format!("an address that packets from {src} reach and whose packets reach {src}"),
                    format!(
                        "no route from {from} to {to}: no chain of links through routers leads there \
                         (a host does not forward); add links or routes"
                    ),
                );
                return;
            }
        }
    };
    for (i, f) in cfg.udp_flows.iter().enumerate() {
        check(format!("udp_flows[{i}].dst"), &f.src, &f.dst, false, &mut p);
    }
    for (i, f) in cfg.tcp_flows.iter().enumerate() {
        check(format!("tcp_flows[{i}].dst"), &f.src, &f.dst, true, &mut p);
    }
    for (i, m) in cfg.mptcp_connections.iter().enumerate() {
        let ids = |names: &[String]| -> Vec<AddrId> {
            names.iter().filter_map(|n| by_name.get(n.as_str()).copied()).collect()
        };
        let (srcs, dsts) = (ids(&m.src_addrs), ids(&m.dst_addrs));
        if let Some(&(s, d)) = super::initial_pairs(m, &srcs, &dsts).first() {
            let (src, dst) = (&net.addrs[s.idx()].name, &net.addrs[d.idx()].name);
            check(format!("mptcp_connections[{i}].dst_addrs"), src, dst, true, &mut p);
        }
    }
    p.finish()
}

/// An address as a message names it: its name, and its node's when they differ.
fn shown(net: &Network, a: AddrId) -> String {
    let addr = &net.addrs[a.idx()];
    let node = &net.nodes[addr.node.idx()].name;
    if *node == addr.name {
        node.clone()
    } else {
        format!("{} (on {node})", addr.name)
    }
}
