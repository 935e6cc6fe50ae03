"""LISA's data centre (Fig. 9): the traffic matrix is a derangement, and each subflow takes the shortest path the
run's seed chose for it."""

from __future__ import annotations

import copy
from typing import Any

import mpsim
from mpsim.experiments import datacenter as dc
from mpsim.experiments import get
from mpsim.experiments.base import directed


def test_the_traffic_matrix_is_a_derangement_drawn_per_run() -> None:
    for run in range(1, 21):
        dst = dc.derangement("lisa-datacenter", run)
        assert sorted(dst) == list(range(16)), run
        assert all(d != i for i, d in enumerate(dst)), run
    assert dc.derangement("lisa-datacenter", 1) != dc.derangement("lisa-datacenter", 2)
    cfgs = [get("lisa-datacenter").build(10, v, 3) for v in ("mptcp", "lisa")]
    assert [c["dst_addrs"][0] for c in cfgs[0]["mptcp_connections"]] == [
        c["dst_addrs"][0] for c in cfgs[1]["mptcp_connections"]
    ]


def test_the_fat_tree_has_four_shortest_paths_between_pods_and_two_within_one() -> None:
    hops = dc.tree_links()
    between = dc.shortest_paths(hops, "h1", "h16")
    assert len(between) == 4 and all(len(p) == 6 for p in between)
    assert len({p[2] for p in between}) == 4  # each through its own core switch
    within = dc.shortest_paths(hops, "h1", "h3")
    assert len(within) == 2 and all(len(p) == 4 for p in within)
    assert dc.shortest_paths(hops, "h1", "h2") == [["h1-e1.1", "e1.1-h2"]]


def data_links(results: mpsim.Results) -> set[str]:
    """Links that carried data segments (mean packet above 500 B; ACK-only links carry 40–80 B packets)."""
    return {
        lk["name"]
        for lk in results.links.to_pylist()
        if lk["arrived_pkts"] and lk["arrived_bytes"] / lk["arrived_pkts"] > 500
    }


def test_each_subflow_takes_the_path_the_seed_chose() -> None:
    """Connection 0 of run 22 alone in the fat tree (h1 to h11, another pod: 4 shortest paths): its 8 subflows
    drew only 2 of them, and its data crosses exactly their links, the routes of its 8 destination addresses,
    where the core's own ECMP would have spread the 8 subflows over all four."""
    run = 22
    cfg = get("lisa-datacenter").build(10, "mptcp", run)
    hops = directed(get("lisa-datacenter").scenario(10, "mptcp", run).network())
    dst = dc.derangement("lisa-datacenter", run)[0]
    paths = dc.chosen_paths("lisa-datacenter", run, 0, dst)
    assert paths == dc.chosen_paths("lisa-datacenter", run, 0, dst)
    every = dc.shortest_paths(hops, "h1", f"h{dst + 1}")
    assert all(p in every for p in paths)
    assert (dst, len(every), len({tuple(p) for p in paths})) == (10, 4, 2)
    conn = cfg["mptcp_connections"][0]
    for address, path in zip(conn["dst_addrs"], paths, strict=True):
        assert [r["via"][0] for r in cfg["routes"] if r["dst"] == address] == path
    alone: dict[str, Any] = copy.deepcopy(cfg)
    alone["mptcp_connections"] = [conn]
    alone["stop_when_complete"] = [conn["name"]]
    results = mpsim.run_config(alone)
    assert results.flows.to_pylist()[0]["fct_s"] is not None
    assert data_links(results) == {name for p in paths for name in p}
