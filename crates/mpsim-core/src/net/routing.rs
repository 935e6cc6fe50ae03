//! Least-cost routing with every equal-cost next hop kept as an ECMP set,
//! computed on demand instead of as a table of every node towards every
//! address.
//!
//! Hosts never forward, so a path between two hosts crosses routers only:
//! the cost from a router to a host's address is the cost to one of the
//! routers attached to it plus the last link's weight. The table therefore
//! keeps, per router that some address hangs off, the cost of every router
//! to it (one shortest-path search over the routers, made the first time it
//! is needed), and derives a node's next hops towards an address from those
//! costs when they are first asked for. A dumbbell of 10 000 flows needs 2
//! such searches, not 20 000, and nothing of size nodes × addresses is ever
//! held. Addresses on routers themselves (rare) get an exact search of
//! their own, also on demand.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use crate::ids::{AddrId, LinkId, NodeId};
use crate::rng::mix64;

/// What routing needs to know about the topology.
pub struct Topology<'a> {
    /// Whether each node forwards packets that are not its own.
    pub forwards: &'a [bool],
    /// (from, to, weight) of each link, indexed by `LinkId`.
    pub links: &'a [(NodeId, NodeId, u32)],
    /// (node, in_link) of each address, indexed by `AddrId`.
    pub addrs: &'a [(NodeId, Option<LinkId>)],
}

const UNREACHABLE: u64 = u64::MAX;

/// A hasher for small integer keys: deterministic (no per-process seed; the
/// maps it serves are only looked up, never iterated) and cheap.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        mix64(self.0)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = mix64(self.0 ^ n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = mix64(self.0 ^ n);
    }
}

pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Links of each node in compressed rows, in link-index order.
#[derive(Debug, Default)]
struct Adjacency {
    start: Vec<u32>,
    links: Vec<LinkId>,
}

impl Adjacency {
    fn new(n_nodes: usize, links: &[(NodeId, NodeId, u32)], end: impl Fn(&(NodeId, NodeId, u32)) -> NodeId) -> Self {
        let mut start = vec![0u32; n_nodes + 1];
        for l in links {
            start[end(l).idx() + 1] += 1;
        }
        for i in 0..n_nodes {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut out = vec![LinkId(0); links.len()];
        for (i, l) in links.iter().enumerate() {
            let at = &mut fill[end(l).idx()];
            out[*at as usize] = LinkId(i as u32);
            *at += 1;
        }
        Adjacency { start, links: out }
    }

    /// The same rows with only the links that `keep` accepts.
    fn only(self, keep: impl Fn(LinkId) -> bool) -> Self {
        let mut start = Vec::with_capacity(self.start.len());
        let mut links = Vec::new();
        start.push(0);
        for w in self.start.windows(2) {
            links.extend(
                self.links[w[0] as usize..w[1] as usize]
                    .iter()
                    .copied()
                    .filter(|&l| keep(l)),
            );
            start.push(links.len() as u32);
        }
        Adjacency { start, links }
    }

    #[inline]
    fn of(&self, node: NodeId) -> &[LinkId] {
        &self.links[self.start[node.idx()] as usize..self.start[node.idx() + 1] as usize]
    }
}

/// What has been computed so far.
#[derive(Debug, Default)]
struct Computed {
    /// Per node: the cost of every node to it through routers only, for
    /// routers that an address hangs off.
    to_router: IdMap<u32, Box<[u64]>>,
    /// Per address on a router: the cost of every node to it.
    to_router_addr: IdMap<u32, Box<[u64]>>,
    /// (node, address) → (start, len) into `hops`.
    next: IdMap<(u32, u32), (u32, u32)>,
    hops: Vec<LinkId>,
}

/// Next hops of every node towards every address, computed when first asked.
#[derive(Debug, Default)]
pub struct RoutingTable {
    forwards: Vec<bool>,
    links: Vec<(NodeId, NodeId, u32)>,
    addrs: Vec<(NodeId, Option<LinkId>)>,
    incoming: Adjacency,
    /// Per node, its links that lead to a router.
    to_routers: Adjacency,
    /// Next hops set by hand, which replace the computed ones.
    overrides: IdMap<(u32, u32), Vec<LinkId>>,
    computed: RefCell<Computed>,
}

impl RoutingTable {
    /// Least-cost routes from every node to every address.
    ///
    /// A path may pass through routers only: hosts originate and sink traffic
    /// but never forward it. An address bound to an `in_link` is reached only
    /// through that link, which is how a multi-homed host's interfaces get
    /// their own paths. Costs are integer link weights, so ties are exact and
    /// every tied next hop joins the ECMP set, in link-index order. Nothing
    /// is searched here: each route is computed the first time it is needed.
    pub fn compute(topo: &Topology) -> RoutingTable {
        let n = topo.forwards.len();
        RoutingTable {
            forwards: topo.forwards.to_vec(),
            links: topo.links.to_vec(),
            addrs: topo.addrs.to_vec(),
            incoming: Adjacency::new(n, topo.links, |l| l.1),
            to_routers: Adjacency::new(n, topo.links, |l| l.0).only(|l| topo.forwards[topo.links[l.idx()].1.idx()]),
            overrides: IdMap::default(),
            computed: RefCell::default(),
        }
    }

    /// Replaces the next hops of `node` towards `addr`.
    pub fn set(&mut self, node: NodeId, addr: AddrId, via: &[LinkId]) {
        self.overrides.insert((node.0, addr.0), via.to_vec());
    }

    /// Next hops of `node` towards `addr` (empty when unreachable), appended
    /// to `out`.
    pub fn next_hops(&self, node: NodeId, addr: AddrId, out: &mut Vec<LinkId>) {
        if let Some(via) = self.overrides.get(&(node.0, addr.0)) {
            out.extend_from_slice(via);
            return;
        }
        let mut c = self.computed.borrow_mut();
        let (start, len) = match c.next.get(&(node.0, addr.0)) {
            Some(&range) => range,
            None => {
                let range = self.derive(&mut c, node, addr);
                c.next.insert((node.0, addr.0), range);
                range
            }
        };
        out.extend_from_slice(&c.hops[start as usize..(start + len) as usize]);
    }

    /// The cost of reaching `addr` from `node` by link `l` out of it, given
    /// the costs of the routers: the last hop must be the address's
    /// `in_link` when bound, and any other hop must land on a router.
    fn via(&self, c: &mut Computed, l: LinkId, addr: AddrId) -> u64 {
        let (target, in_link) = self.addrs[addr.idx()];
        let (_, to, w) = self.links[l.idx()];
        if to == target {
            match in_link {
                Some(bound) if bound != l => UNREACHABLE,
                _ => w as u64,
            }
        } else if self.forwards[to.idx()] {
            match self.cost(c, to, addr) {
                UNREACHABLE => UNREACHABLE,
                d => d + w as u64,
            }
        } else {
            UNREACHABLE
        }
    }

    /// Computes the next hops of `node` towards `addr` into `c.hops`: its
    /// links straight to the address's node and its links to routers,
    /// whichever cost least (a node's links to hosts lead nowhere else, so a
    /// router with thousands of hosts on it looks at a handful of links).
    fn derive(&self, c: &mut Computed, node: NodeId, addr: AddrId) -> (u32, u32) {
        let start = c.hops.len();
        let target = self.addrs[addr.idx()].0;
        if node == target {
            return (start as u32, 0);
        }
        let mut best = UNREACHABLE;
        let direct = self
            .incoming
            .of(target)
            .iter()
            .filter(|&&l| self.links[l.idx()].0 == node);
        let onwards = self
            .to_routers
            .of(node)
            .iter()
            .filter(|&&l| self.links[l.idx()].1 != target);
        for &l in direct.chain(onwards) {
            let cost = self.via(c, l, addr);
            if cost < best {
                best = cost;
                c.hops.truncate(start);
            }
            if cost == best && cost != UNREACHABLE {
                c.hops.push(l);
            }
        }
        c.hops[start..].sort_unstable();
        (start as u32, (c.hops.len() - start) as u32)
    }

    /// The least cost from router `router` to `addr`.
    fn cost(&self, c: &mut Computed, router: NodeId, addr: AddrId) -> u64 {
        let (target, in_link) = self.addrs[addr.idx()];
        if router == target {
            return 0;
        }
        if self.forwards[target.idx()] {
            let dist = c
                .to_router_addr
                .entry(addr.0)
                .or_insert_with(|| self.search(target, in_link));
            return dist[router.idx()];
        }
        // A host: through one of the routers it hangs off (or the bound one).
        let mut best = UNREACHABLE;
        for &l in self.incoming.of(target) {
            if in_link.is_some_and(|b| b != l) {
                continue;
            }
            let (from, _, w) = self.links[l.idx()];
            if !self.forwards[from.idx()] {
                continue;
            }
            let dist = c.to_router.entry(from.0).or_insert_with(|| self.search(from, None));
            if dist[router.idx()] != UNREACHABLE {
                best = best.min(dist[router.idx()] + w as u64);
            }
        }
        best
    }

    /// The cost of every router (and host) to `target`, searching backwards
    /// from it through routers: `in_link`, when bound, must be the last hop.
    fn search(&self, target: NodeId, in_link: Option<LinkId>) -> Box<[u64]> {
        let mut dist = vec![UNREACHABLE; self.forwards.len()].into_boxed_slice();
        let mut heap = BinaryHeap::new();
        dist[target.idx()] = 0;
        heap.push(Reverse((0u64, target.0)));
        while let Some(Reverse((d, v))) = heap.pop() {
            if d > dist[v as usize] {
                continue;
            }
            if v != target.0 && !self.forwards[v as usize] {
                continue; // a host is an end point of a path, never a transit
            }
            for &l in self.incoming.of(NodeId(v)) {
                let (u, _, w) = self.links[l.idx()];
                if u == target {
                    continue;
                }
                if v == target.0 && in_link.is_some_and(|b| b != l) {
                    continue;
                }
                let cand = d + w as u64;
                if cand < dist[u.idx()] {
                    dist[u.idx()] = cand;
                    heap.push(Reverse((cand, u.0)));
                }
            }
        }
        dist
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(i: u32) -> NodeId {
        NodeId(i)
    }

    fn hops(t: &RoutingTable, node: NodeId, addr: AddrId) -> Vec<LinkId> {
        let mut out = Vec::new();
        t.next_hops(node, addr, &mut out);
        out
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
        assert_eq!(hops(&t, n(0), AddrId(0)), &[LinkId(0), LinkId(2)]);
        assert_eq!(hops(&t, n(1), AddrId(0)), &[LinkId(1)]);
        assert_eq!(hops(&t, n(4), AddrId(0)), &[LinkId(5)]);
        // No link leads back to node 0.
        assert!(hops(&t, n(3), AddrId(1)).is_empty());
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
        assert_eq!(hops(&t, n(0), AddrId(0)), &[LinkId(2)]);
        // Node 1 itself may still send to 2 directly.
        assert_eq!(hops(&t, n(1), AddrId(0)), &[LinkId(1)]);
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
        assert_eq!(hops(&t, n(0), AddrId(0)), &[LinkId(1)]);
        assert_eq!(hops(&t, n(1), AddrId(0)), &[LinkId(4)]);
        assert_eq!(hops(&t, n(0), AddrId(1)), &[LinkId(0)]);
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
        assert_eq!(hops(&t, n(0), AddrId(0)), &[LinkId(2)]);
    }

    /// Next hops of every node towards every address by plain relaxation
    /// (Bellman–Ford) under the same rules: a different computation of the
    /// same definition.
    fn reference(topo: &Topology) -> Vec<Vec<Vec<LinkId>>> {
        let n = topo.forwards.len();
        let mut table = Vec::new();
        for &(target, in_link) in topo.addrs {
            let cost = |l: usize, dist: &[u64]| -> u64 {
                let (_, to, w) = topo.links[l];
                if to == target {
                    if in_link.is_some_and(|b| b.idx() != l) {
                        UNREACHABLE
                    } else {
                        w as u64
                    }
                } else if topo.forwards[to.idx()] && dist[to.idx()] != UNREACHABLE {
                    dist[to.idx()] + w as u64
                } else {
                    UNREACHABLE
                }
            };
            let mut dist = vec![UNREACHABLE; n];
            dist[target.idx()] = 0;
            for _ in 0..n {
                for (l, &(from, _, _)) in topo.links.iter().enumerate() {
                    if from != target {
                        dist[from.idx()] = dist[from.idx()].min(cost(l, &dist));
                    }
                }
            }
            table.push(
                (0..n)
                    .map(|u| {
                        if u == target.idx() || dist[u] == UNREACHABLE {
                            return Vec::new();
                        }
                        (0..topo.links.len())
                            .filter(|&l| topo.links[l].0.idx() == u && cost(l, &dist) == dist[u])
                            .map(|l| LinkId(l as u32))
                            .collect()
                    })
                    .collect(),
            );
        }
        table
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        #[test]
        fn next_hops_match_a_reference_computation(
            forwards in proptest::collection::vec(proptest::bool::weighted(0.6), 2..14),
            raw_links in proptest::collection::vec((0u32..14, 0u32..14, 1u32..4), 0..40),
            raw_addrs in proptest::collection::vec((0u32..14, proptest::option::weighted(0.3, 0usize..40)), 1..8),
        ) {
            let n = forwards.len() as u32;
            let links: Vec<_> = raw_links
                .iter()
                .map(|&(a, b, w)| (n_of(a % n), n_of(b % n), w))
                .filter(|(a, b, _)| a != b)
                .collect();
            let addrs: Vec<_> = raw_addrs
                .iter()
                .map(|&(node, bound)| {
                    let node = n_of(node % n);
                    // A bound interface must be a link into the address's node.
                    let into: Vec<_> = (0..links.len()).filter(|&l| links[l].1 == node).collect();
                    let in_link = bound.filter(|_| !into.is_empty()).map(|b| LinkId(into[b % into.len()] as u32));
                    (node, in_link)
                })
                .collect();
            let topo = Topology { forwards: &forwards, links: &links, addrs: &addrs };
            let want = reference(&topo);
            let t = RoutingTable::compute(&topo);
            for (a, per_node) in want.iter().enumerate() {
                for (u, hops_want) in per_node.iter().enumerate() {
                    proptest::prop_assert_eq!(&hops(&t, n_of(u as u32), AddrId(a as u32)), hops_want, "node {} addr {}", u, a);
                }
            }
        }
    }

    fn n_of(i: u32) -> NodeId {
        NodeId(i)
    }
}
