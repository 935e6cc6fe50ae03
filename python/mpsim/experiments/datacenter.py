"""The LISA paper's data centre (Barik et al., ICC 2016, §IV-B, Fig. 9): a 4-ary fat tree of 16 hosts,
50 Mbit/s links, a 5 ms RTT between pods, and a random permutation traffic matrix as in Raiciu et al.
(SIGCOMM 2011, the paper's [13]): every host opens one MPTCP connection to another host, nobody to itself,
and each host receives one. Each connection has 8 subflows, each on a shortest path chosen at random
(the ECMP the paper simulates by choosing paths itself).

A subflow is pinned to its path by its destination address: host ``hN`` sends from ``hN.0`` and has 8
more addresses ``hN.1 … hN.8`` on its one link, subflow i of the connection to ``hN`` goes to ``hN.i``,
and every switch on the chosen path has a route for that address through the path's next link. Since
each host receives exactly one connection, an address names one subflow. ACKs return by the core's own ECMP.

The stack is the paper's (Linux 3.14 with MPTCP v0.89); every queue of the fat tree holds B packets.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from mpsim.experiments.base import MS, CoreConfig, Definition, Experiment, S, add, kilobytes, run_random, transfer
from mpsim.experiments.claims import Compare
from mpsim.experiments.lisa import CWND_SS, FCT, R_SS, RETX
from mpsim.experiments.stacks import IP_TCP_HEADER_BYTES, LINUX_3_14_LIA, LINUX_3_14_LISA, gsam_k_ns, linux_3_14
from mpsim.topologies import fat_tree

PAPER = "LISA: Barik et al., LISA: A Linked Slow-Start Algorithm for MPTCP, ICC 2016"
K = 4
HOSTS = K**3 // 4
LINK_BPS = 50_000_000
RTT_NS = 5 * MS
LINK_DELAY_NS = -(-RTT_NS // 12)
"""Between pods a packet crosses 6 links each way: 12 delays of 416 667 ns make the 5 ms RTT."""
SUBFLOWS = 8
MSS = 1460
TCP = linux_3_14(MSS)
JOIN_RTTS = 3
START_SPREAD_NS = 10 * MS
LONG_FILE_BYTES = 2_000_000
RUN_LIMIT_NS = 60 * S
POOLED_BUFFERS = (10, 25, 40)
"""§IV-B: the "good, medium and bad" queue sizes of Fig. 9(c, d), 10 runs of each."""


def topology(buffer_pkts: int) -> CoreConfig:
    """The 4-ary fat tree (the ``fat_tree`` preset) with B-packet drop-tail queues on every link."""
    net = fat_tree(K, rate=f"{LINK_BPS}bps", delay=f"{LINK_DELAY_NS}ns", buffer=f"{buffer_pkts}pkt").expand()
    return {
        "nodes": [{"name": h} for h in net.hosts] + [{"name": r, "kind": "router"} for r in net.routers],
        "links": [d for link in net.links for d in link.to_core()],
    }


def derangement(experiment: str, run: int) -> list[int]:
    """The traffic matrix of a run: ``dst[i]`` is the host (0-based) that host i sends to; a random
    permutation with no fixed point, drawn again until it has none (the same for every variant and x)."""
    rng = run_random(experiment, run, "matrix")
    dst = list(range(HOSTS))
    while True:
        rng.shuffle(dst)
        if all(d != i for i, d in enumerate(dst)):
            return dst


def shortest_paths(links: Sequence[Mapping[str, Any]], src: str, dst: str) -> list[list[str]]:
    """Every shortest path from node ``src`` to node ``dst``, as the names of its links, in a fixed order."""
    out_links: dict[str, list[Mapping[str, Any]]] = {}
    for link in links:
        out_links.setdefault(link["from"], []).append(link)
    hops = {dst: 0}
    queue = deque([dst])
    into: dict[str, list[Mapping[str, Any]]] = {}
    for link in links:
        into.setdefault(link["to"], []).append(link)
    while queue:
        node = queue.popleft()
        for link in into.get(node, []):
            if link["from"] not in hops:
                hops[link["from"]] = hops[node] + 1
                queue.append(link["from"])

    def walk(node: str) -> list[list[str]]:
        if node == dst:
            return [[]]
        return [
            [link["name"], *rest]
            for link in sorted(out_links[node], key=lambda lk: lk["name"])
            if hops.get(link["to"], -1) == hops[node] - 1
            for rest in walk(link["to"])
        ]

    return walk(src)


def host(i: int) -> str:
    return f"h{i + 1}"


def chosen_paths(cfg: CoreConfig, experiment: str, run: int, src: int, dst: int) -> list[list[str]]:
    """The paths (link names) of the 8 subflows from host ``src`` to host ``dst``: each drawn uniformly
    from the shortest paths, by the run's stream for that pair."""
    paths = shortest_paths(cfg["links"], host(src), host(dst))
    rng = run_random(experiment, run, "paths", src)
    return [rng.choice(paths) for _ in range(SUBFLOWS)]


def _pin(cfg: CoreConfig, address: str, path: Sequence[str]) -> None:
    """Routes for ``address`` along ``path``: at each node of it, the path's next link."""
    by_name = {link["name"]: link for link in cfg["links"]}
    for name in path:
        cfg.setdefault("routes", []).append({"node": by_name[name]["from"], "dst": address, "via": [name]})


def _gsam(buffer_pkts: int) -> dict[str, Any]:
    """GSAM's K (its authors' reading) for the 5 ms inter-pod RTT, 50 Mbit/s links and B-packet queues."""
    wire = MSS + IP_TCP_HEADER_BYTES
    return {"k_ns": gsam_k_ns(buffer_pkts, wire, LINK_BPS, RTT_NS)}


def build(experiment: str, variant: str, run: int, size_bytes: int, buffer_pkts: int | None = None) -> CoreConfig:
    """One run: every host sends ``size_bytes`` to its partner in the run's derangement, through queues of
    ``buffer_pkts`` (the run's of the pooled buffers when not given)."""
    if buffer_pkts is None:
        buffer_pkts = POOLED_BUFFERS[(run - 1) % len(POOLED_BUFFERS)]
    cfg: CoreConfig = {"seed": run, **topology(buffer_pkts)}
    addresses = []
    for i, d in enumerate(derangement(experiment, run)):
        receiver = host(d)
        rng = run_random(experiment, run, "start", i)
        start = int(rng.uniform(0.0, START_SPREAD_NS))
        join_delay = round(JOIN_RTTS * RTT_NS * (1.0 + rng.uniform(-0.25, 0.25))) - RTT_NS
        dsts = [f"{receiver}.{k}" for k in range(1, SUBFLOWS + 1)]
        link_in = next(lk["name"] for lk in cfg["links"] if lk["to"] == receiver)
        link_out = next(lk["name"] for lk in cfg["links"] if lk["from"] == receiver)
        addresses += [
            {"name": a, "node": receiver, "out_link": link_out, "in_link": link_in} for a in (f"{receiver}.0", *dsts)
        ]
        for address, path in zip(dsts, chosen_paths(cfg, experiment, run, i, d), strict=True):
            _pin(cfg, address, path)
        add(
            cfg,
            transfer(
                variant,
                f"measured{i:02d}",
                [f"{host(i)}.0"],
                dsts,
                size_bytes,
                start,
                TCP,
                join_delay,
                gsam=_gsam(buffer_pkts),
                lisa=LINUX_3_14_LISA,
                coupled=LINUX_3_14_LIA,
            ),
        )
    cfg["addresses"] = addresses
    cfg["stop_when_complete"] = [f"measured{i:02d}" for i in range(HOSTS)]
    cfg["stop_time_ns"] = RUN_LIMIT_NS
    return cfg


SETTING = (
    "4-ary fat tree, 16 hosts, 50 Mbit/s links, RTT 5 ms between pods; a random derangement of the hosts, "
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
            ),
            Compare(
                "LISA has a consistently lower total cwnd at the end of slow start.",
                "sum_cwnd_ss_exit_pkts",
                left="lisa",
                op="<",
                right="mptcp",
            ),
        ),
        quick_runs=1,
        notes=(SETTING, "A 2 MB file per connection; only the slow-start phase is reported."),
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
            ),
            Compare(
                "The reduction correlates with the reduction of retransmissions.",
                "retransmissions",
                left="lisa",
                op="<",
                right="mptcp",
            ),
        ),
        runs=30,
        quick_runs=3,
        notes=(SETTING, "Queues of 10, 25 and 40 packets pooled: run r uses [10, 25, 40][(r - 1) mod 3]."),
    ),
]
