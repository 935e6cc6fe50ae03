//! Static routing tables: least-cost paths computed once at build time, with
//! every equal-cost next hop kept as an ECMP set.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::ids::{AddrId, LinkId, NodeId};

/// What routing needs to know about the topology.
pub struct Topology<'a> {
    /// Whether each node forwards packets that are not its own.
    pub forwards: &'a [bool],
    /// (from, to, weight) of each link, indexed by `LinkId`.
    pub links: &'a [(NodeId, NodeId, u32)],
    /// (node, in_link) of each address, indexed by `AddrId`.
    pub addrs: &'a [(NodeId, Option<LinkId>)],
}

/// Next hops of every node towards every address.
#[derive(Debug, Default)]
pub struct RoutingTable {
    n_addrs: usize,
    /// (start, len) into `hops`, indexed by node * n_addrs + addr.
    entries: Vec<(u32, u32)>,
    hops: Vec<LinkId>,
}

const UNREACHABLE: u64 = u64::MAX;

impl RoutingTable {
    /// Least-cost routes from every node to every address.
    ///
    /// A path may pass through routers only: hosts originate and sink traffic
    /// but never forward it. An address bound to an `in_link` is reached only
    /// through that link, which is how a multi-homed host's interfaces get
    /// their own paths. Costs are integer link weights, so ties are exact and
    /// every tied next hop joins the ECMP set, in link-index order.
    pub fn compute(topo: &Topology) -> RoutingTable {
        let n_nodes = topo.forwards.len();
        let n_addrs = topo.addrs.len();
        let mut incoming: Vec<Vec<LinkId>> = vec![Vec::new(); n_nodes];
        let mut outgoing: Vec<Vec<LinkId>> = vec![Vec::new(); n_nodes];
        for (i, &(from, to, _)) in topo.links.iter().enumerate() {
            incoming[to.idx()].push(LinkId(i as u32));
            outgoing[from.idx()].push(LinkId(i as u32));
        }
        let mut table = RoutingTable {
            n_addrs,
            entries: vec![(0, 0); n_nodes * n_addrs],
            hops: Vec::new(),
        };
        let mut dist = vec![UNREACHABLE; n_nodes];
        let mut heap = BinaryHeap::new();
        for (a, &(target, in_link)) in topo.addrs.iter().enumerate() {
            dist.fill(UNREACHABLE);
            // Cost of reaching the address through link `l`, given the
            // current distances: the last hop must be `in_link` when bound,
            // and any other hop must land on a router.
            let via = |l: LinkId, dist: &[u64]| -> u64 {
                let (_, to, w) = topo.links[l.idx()];
                if to == target {
                    match in_link {
                        Some(bound) if bound != l => UNREACHABLE,
                        _ => w as u64,
                    }
                } else if topo.forwards[to.idx()] && dist[to.idx()] != UNREACHABLE {
                    dist[to.idx()] + w as u64
                } else {
                    UNREACHABLE
                }
            };
            dist[target.idx()] = 0;
            heap.push(Reverse((0u64, target.0)));
            while let Some(Reverse((d, v))) = heap.pop() {
                if d > dist[v as usize] {
                    continue;
                }
                if v != target.0 && !topo.forwards[v as usize] {
                    continue; // a host is an end point of a path, never a transit
                }
                for &l in &incoming[v as usize] {
                    let u = topo.links[l.idx()].0;
                    if u == target {
                        continue;
                    }
                    let cand = via(l, &dist);
                    if cand < dist[u.idx()] {
                        dist[u.idx()] = cand;
                        heap.push(Reverse((cand, u.0)));
                    }
                }
            }
            for u in 0..n_nodes {
                if u == target.idx() || dist[u] == UNREACHABLE {
                    continue;
                }
                let start = table.hops.len() as u32;
                for &l in &outgoing[u] {
                    if via(l, &dist) == dist[u] {
                        table.hops.push(l);
                    }
                }
                let len = table.hops.len() as u32 - start;
                table.entries[u * n_addrs + a] = (start, len);
            }
        }
        table
    }

    /// Replaces the next hops of `node` towards `addr`.
    pub fn set(&mut self, node: NodeId, addr: AddrId, via: &[LinkId]) {
        let start = self.hops.len() as u32;
        self.hops.extend_from_slice(via);
        self.entries[node.idx() * self.n_addrs + addr.idx()] = (start, via.len() as u32);
    }

    /// Next hops of `node` towards `addr`; empty when unreachable.
    #[inline]
    pub fn next_hops(&self, node: NodeId, addr: AddrId) -> &[LinkId] {
        let (start, len) = self.entries[node.idx() * self.n_addrs + addr.idx()];
        &self.hops[start as usize..(start + len) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(i: u32) -> NodeId {
        NodeId(i)
    }

    #[test]
    fn diamond_has_two_equal_cost_hops() {
        // 0 -> 1 -> 3, 0 -> 2 -> 3 (routers 1, 2; hosts 0, 3), plus a long way 0 -> 4 -> 5 -> 3.
        let forwards = [false, true, true, false, true, true];
        let links = [
            (n(0), n(1), 1),
            (n(1), n(3), 1),
            (n(0), n(2), 1),
            (n(2), n(3), 1),
            (n(0), n(4), 1),
            (n(4), n(5), 1),
            (n(5), n(3), 1),
        ];
        let addrs = [(n(3), None), (n(0), None)];
        let t = RoutingTable::compute(&Topology {
            forwards: &forwards,
            links: &links,
            addrs: &addrs,
        });
        assert_eq!(t.next_hops(n(0), AddrId(0)), &[LinkId(0), LinkId(2)]);
        assert_eq!(t.next_hops(n(1), AddrId(0)), &[LinkId(1)]);
        assert_eq!(t.next_hops(n(4), AddrId(0)), &[LinkId(5)]);
        // No link leads back to node 0.
        assert!(t.next_hops(n(3), AddrId(1)).is_empty());
    }

    #[test]
    fn hosts_do_not_forward() {
        // 0 -> 1 (host) -> 2 is not a path; 0 -> 3 (router) -> 4 (router) -> 2 is.
        let forwards = [false, false, false, true, true];
        let links = [
            (n(0), n(1), 1),
            (n(1), n(2), 1),
            (n(0), n(3), 1),
            (n(3), n(4), 1),
            (n(4), n(2), 1),
        ];
        let addrs = [(n(2), None)];
        let t = RoutingTable::compute(&Topology {
            forwards: &forwards,
            links: &links,
            addrs: &addrs,
        });
        assert_eq!(t.next_hops(n(0), AddrId(0)), &[LinkId(2)]);
        // Node 1 itself may still send to 2 directly.
        assert_eq!(t.next_hops(n(1), AddrId(0)), &[LinkId(1)]);
    }

    #[test]
    fn bound_address_is_reached_through_its_interface() {
        // Host 0 -> routers 1 and 2 -> host 3 over links 2 (via 1) and 3 (via 2).
        let forwards = [false, true, true, false];
        let links = [
            (n(0), n(1), 1),
            (n(0), n(2), 1),
            (n(1), n(3), 1),
            (n(2), n(3), 1),
            (n(1), n(2), 1),
        ];
        let addrs = [(n(3), Some(LinkId(3))), (n(3), Some(LinkId(2)))];
        let t = RoutingTable::compute(&Topology {
            forwards: &forwards,
            links: &links,
            addrs: &addrs,
        });
        assert_eq!(t.next_hops(n(0), AddrId(0)), &[LinkId(1)]);
        assert_eq!(t.next_hops(n(1), AddrId(0)), &[LinkId(4)]);
        assert_eq!(t.next_hops(n(0), AddrId(1)), &[LinkId(0)]);
    }

    #[test]
    fn weights_decide() {
        let forwards = [false, true, true, false];
        let links = [(n(0), n(1), 5), (n(1), n(3), 1), (n(0), n(2), 1), (n(2), n(3), 1)];
        let addrs = [(n(3), None)];
        let t = RoutingTable::compute(&Topology {
            forwards: &forwards,
            links: &links,
            addrs: &addrs,
        });
        assert_eq!(t.next_hops(n(0), AddrId(0)), &[LinkId(2)]);
    }
}
