"""The LISA paper's data centre (Barik et al., ICC 2016, §IV-B, Fig. 9): a 4-ary fat tree of 16 hosts,
50 Mbit/s links, a 5 ms RTT between pods, and a random permutation traffic matrix as in Raiciu et al.
(SIGCOMM 2011, the paper's [13]): every host opens one MPTCP connection to another host, nobody to itself,
and each host receives one. Each connection has 8 subflows, each on a shortest path chosen at random
(the ECMP the paper simulates by choosing paths itself).

A subflow is pinned to its path by its destination address: host ``hN`` sends from ``hN.0`` and has 8
more addresses ``hN.1 … hN.8`` on its one link, subflow i of the connection to ``hN`` goes to ``hN.i``,
and every switch on the chosen path has a route for that address through the path's next link. Since
each host receives exactly one connection, an address names one subflow. ACKs return by the core's own ECMP.

The stack is the paper's (Linux 3.14 with MPTCP v0.89); every queue of the fat tree holds B packets. Link
rates: the paper gives only "the core links have a link capacity of 50Mbps" (§IV-B) and says nothing of the
aggregation and edge links; every link runs at 50 Mbit/s here, which its own words about the queues support:
"up to 42 packets (i.e., up to 2 BDPs)" makes a path's BDP 21 packets, and 50 Mbit/s × 5 ms of 1500-byte
packets is 20.8. Error bars are 95 % confidence intervals, as the paper's (§V).

Each check cites the paper's words (see :mod:`mpsim.experiments.lisa` for the band conventions).
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Mapping, Sequence

from mpsim.experiments.base import (
    MS,
    Definition,
    Experiment,
    bps,
    directed,
    kilobytes,
    ns,
    run_random,
    scenario_of,
    transfer,
)
from mpsim.experiments.claims import Compare
from mpsim.experiments.lisa import (
    CONSISTENTLY,
    CWND_SS,
    FCT,
    JOIN_JITTER,
    JOIN_RTTS,
    LONG_FILE_BYTES,
    PACKET_BYTES,
    PAPER,
    R_SS,
    RETX,
    RUN_LIMIT_NS,
    START_JITTER_NS,
    TCP,
)
from mpsim.experiments.stacks import LINUX_3_14_LIA, LINUX_3_14_LISA, gsam, gsam_k_ns
from mpsim.scenario import Scenario
from mpsim.topologies import Address, FatTree, Link, Network, Route, fat_tree

K = 4
"""§IV-B: "a 4-ary fat tree with up to 16 nodes"."""
HOSTS = K**3 // 4
LINK_BPS = 50_000_000
"""§IV-B: "the core links have a link capacity of 50Mbps". The paper gives no rate for the aggregation and edge
links: every link here, as "up to 42 packets (i.e., up to 2 BDPs)" implies (a 21-packet BDP is 50 Mbit/s over
the 5 ms RTT)."""
RTT_NS = 5 * MS
"""§IV-B: "RTT is set to 5ms"."""
LINK_DELAY_NS = -(-RTT_NS // 12)
"""Between pods a packet crosses 6 links each way: 12 delays of 416 667 ns make the 5 ms RTT."""
SUBFLOWS = 8
"""§IV-B: "we set the number of subflows to 8"."""
POOLED_BUFFERS = (10, 25, 40)
"""§V-B: the "good, medium and bad" queue sizes of Fig. 9(c, d), 10 runs of each."""


def topology(buffer_pkts: int) -> FatTree:
    """The 4-ary fat tree (the ``fat_tree`` preset) with B-packet drop-tail queues on every link."""
    return fat_tree(K, rate=bps(LINK_BPS), delay=ns(LINK_DELAY_NS), buffer=f"{buffer_pkts}pkt")


def derangement(experiment: str, run: int) -> list[int]:
    """The traffic matrix of a run: ``dst[i]`` is the host (0-based) that host i sends to; a random
    permutation with no fixed point, drawn again until it has none (the same for every variant and x)."""
    rng = run_random(experiment, run, "matrix")
    dst = list(range(HOSTS))
    while True:
        rng.shuffle(dst)
        if all(d != i for i, d in enumerate(dst)):
            return dst


Hops = Mapping[str, tuple[str, str, Link]]
"""A network's one-way links by name, each with its two ends (:func:`mpsim.experiments.base.directed`)."""


def shortest_paths(hops: Hops, src: str, dst: str) -> list[list[str]]:
    """Every shortest path from node ``src`` to node ``dst`` over the one-way links ``hops``, as the names of
    its links, in a fixed order."""
    out_links: dict[str, list[str]] = {}
    into: dict[str, list[str]] = {}
    for name, (a, b, _) in hops.items():
        out_links.setdefault(a, []).append(name)
        into.setdefault(b, []).append(name)
    distance = {dst: 0}
    queue = deque([dst])
    while queue:
        node = queue.popleft()
        for name in into.get(node, []):
            a = hops[name][0]
            if a not in distance:
                distance[a] = distance[node] + 1
                queue.append(a)

    def walk(node: str) -> list[list[str]]:
        if node == dst:
            return [[]]
        return [
            [name, *rest]
            for name in sorted(out_links[node])
            if distance.get(hops[name][1], -1) == distance[node] - 1
            for rest in walk(hops[name][1])
        ]

    return walk(src)


def host(i: int) -> str:
    return f"h{i + 1}"


@functools.cache
def tree_links() -> Hops:
    """The tree's one-way links by name with their ends, which its rates, delays and queues do not change."""
    return directed(fat_tree(K).expand())


@functools.cache
def _shortest_paths(src: str, dst: str) -> list[list[str]]:
    return shortest_paths(tree_links(), src, dst)


def chosen_paths(experiment: str, run: int, src: int, dst: int) -> list[list[str]]:
    """The paths (link names) of the 8 subflows from host ``src`` to host ``dst``: each drawn uniformly
    from the shortest paths, by the run's stream for that pair."""
    paths = _shortest_paths(host(src), host(dst))
    rng = run_random(experiment, run, "paths", src)
    return [rng.choice(paths) for _ in range(SUBFLOWS)]


def _pin(hops: Hops, address: str, path: Sequence[str]) -> list[Route]:
    """Routes for ``address`` along ``path`` (one-way links of ``hops``): at each node of it, the path's next
    link."""
    return [Route(node=hops[name][0], dst=address, via=[name]) for name in path]


def build(experiment: str, variant: str, run: int, size_bytes: int, buffer_pkts: int | None = None) -> Scenario:
    """One run: every host sends ``size_bytes`` to its partner in the run's derangement, through queues of
    ``buffer_pkts`` (the run's of the pooled buffers when not given)."""
    if buffer_pkts is None:
        buffer_pkts = POOLED_BUFFERS[(run - 1) % len(POOLED_BUFFERS)]
    hops = tree_links()
    # GSAM's K (its authors' reading) for the inter-pod RTT, the links' rate and the B-packet queues.
    threshold = gsam(gsam_k_ns(buffer_pkts, PACKET_BYTES, LINK_BPS, RTT_NS))
    addresses: list[Address] = []
    routes: list[Route] = []
    flows = []
    for i, d in enumerate(derangement(experiment, run)):
        receiver = host(d)
        rng = run_random(experiment, run, "start", i)
        start = int(rng.uniform(0.0, START_JITTER_NS))
        join_delay = round(JOIN_RTTS * RTT_NS * (1.0 + rng.uniform(-JOIN_JITTER, JOIN_JITTER))) - RTT_NS
        dsts = [f"{receiver}.{k}" for k in range(1, SUBFLOWS + 1)]
        link_in = next(name for name, (_, b, _) in hops.items() if b == receiver)
        link_out = next(name for name, (a, _, _) in hops.items() if a == receiver)
        addresses += [
            Address(name=a, node=receiver, out_link=link_out, in_link=link_in) for a in (f"{receiver}.0", *dsts)
        ]
        for dst_address, path in zip(dsts, chosen_paths(experiment, run, i, d), strict=True):
            routes += _pin(hops, dst_address, path)
        flows.append(
            transfer(
                variant,
                f"measured{i:02d}",
                [f"{host(i)}.0"],
                dsts,
                size_bytes,
                start,
                TCP,
                join_delay,
                gsam=threshold,
                lisa=LINUX_3_14_LISA,
                coupled=LINUX_3_14_LIA,
            )
        )
    return scenario_of(
        Network(addresses=addresses, routes=routes),
        seed=run,
        duration_ns=RUN_LIMIT_NS,
        flows=flows,
        stop_when_complete=[f"measured{i:02d}" for i in range(HOSTS)],
        topology=topology(buffer_pkts),
    )


SETTING = (
    "4-ary fat tree, 16 hosts, 50 Mbit/s links (the paper gives 50 Mbit/s for the core links only; the others' rate "
    "is ours, as its 2-BDP queues of 42 packets imply), RTT 5 ms between pods; a random derangement of the hosts, "
    "one MPTCP connection per pair, 8 subflows each on a shortest path drawn per run (pinned by routes)."
)

EXPERIMENTS = [
    Experiment(
        name="lisa-datacenter",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 9 (a, b), §V-B",
        description="4-ary fat tree, 16 connections of 8 subflows, long file: R_ss and sum of cwnd at the last SS "
        "exit vs queue size",
        x_name="buffer_pkts",
        x_label="Queue size (packets)",
        x_values=(2, 6, 10, 14, 18, 22, 26, 30, 34, 38, 42),
        quick_x_values=(2, 42),
        definition=Definition(build, axis="buffer_pkts", fixed={"size_bytes": LONG_FILE_BYTES}),
        panels=(R_SS, CWND_SS),
        checks=(
            Compare(
                "LISA consistently reduces the retransmissions during slow start.",
                "r_ss",
                left="lisa",
                op="<",
                right="mptcp",
                criterion="significant",
                quote="Figure 9(a) shows a consistent reduction of the number of retransmitted packets during SS",
                where="§V-B, Fig. 9(a)",
                derivation=CONSISTENTLY,
            ),
            Compare(
                "LISA has a consistently lower total cwnd at the end of slow start.",
                "sum_cwnd_ss_exit_pkts",
                left="lisa",
                op="<",
                right="mptcp",
                criterion="significant",
                quote="whereas Figure 9(b) shows a consistently lower *cwnd* at the end of SS",
                where="§V-B, Fig. 9(b)",
                derivation=CONSISTENTLY,
            ),
        ),
        quick_runs=1,
        error_bars="ci95",
        notes=(
            SETTING,
            "A 2 MB file per connection; only the slow-start phase is reported.",
            "Runs: 10 per queue size (the paper does not say how many it ran for Fig. 9(a, b)).",
        ),
    ),
    Experiment(
        name="lisa-datacenter-filesize",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 9 (c, d), §V-B",
        description="4-ary fat tree, queues 10/25/40 pooled: completion time and retransmissions vs file size",
        x_name="file_size_kb",
        x_label="File size (KB)",
        x_values=(50, 100, 200, 300, 400, 500, 600, 700, 800, 900),
        quick_x_values=(100, 500),
        definition=Definition(build, axis="size_bytes", axis_type=kilobytes),
        panels=(FCT, RETX),
        checks=(
            Compare(
                "The transfer completion time is significantly reduced by LISA.",
                "fct_s",
                left="lisa",
                op="<",
                right="mptcp",
                criterion="significant",
                quote="in Figure 9(c), the transfer completion time is significantly reduced by LISA",
                where="§V-B, Fig. 9(c)",
                derivation="'significantly': the stated side at every point, beyond 2 standard errors (band "
                "conventions)",
            ),
            Compare(
                "The reduction correlates with the reduction of retransmissions.",
                "retransmissions",
                left="lisa",
                op="<",
                right="mptcp",
                quote="this reduction correlates with the reduction of retransmits in Figure 9(d)",
                where="§V-B, Fig. 9(d)",
            ),
        ),
        runs=30,
        quick_runs=3,
        error_bars="ci95",
        notes=(
            SETTING,
            "Queues of 10, 25 and 40 packets pooled: run r uses [10, 25, 40][(r - 1) mod 3], 30 runs per size as the "
            "paper's 'running 30 tests, 10 for each good, medium and bad queue value case (10, 25 and 40)'.",
        ),
    ),
]
