"""Reproductions of the MPCubic paper (Le, Hong, Lee, "MPCubic: An Extended Cubic TCP for Multiple Paths over
High Bandwidth-Delay Networks", 2011), Sec. IV: Figs. 1 and 3–7 and Tables I–II.

The paper ran ns-2 with SACK and 1000-byte data packets, so every flow runs the ``ns2`` profile (ns-2.35's
one-way Sack1 TCP: every segment acknowledged, a receive window far above the BDP; docs/algorithms.md).
"Regular Cubic" is RFC 9438's CUBIC with C = 0.4 and β_cubic = 0.7 (the paper never states β; ``mpcubic-cycle``
also runs the 2008 CUBIC's 0.8). Fig. 3 uses drop-tail queues; every other bottleneck is Adaptive RED (the
paper's reference [16]) with ns-2's defaults: 5 ms target delay, thresholds and weight from the link's rate
(C counted in 1040-byte packets), max_p adapted every 0.5 s, and a hard limit of one bandwidth-delay product.
Data rates are sampled in 5-second bins, as the paper's, through the windowed-throughput table.

The figures are images; what the text does not state is chosen here and said in each experiment's
``notes``: the exogenous loss rates and link rate of Fig. 1, the link rate and buffer of Fig. 3, the
delays of the triangle (20 ms one way per link), access links (1 Gbit/s, no delay). Flows start at
uniformly drawn times in the first second (the same draw for every variant of a run) and run to the end;
the rates are taken after a warm-up. The runs are shorter than the paper's (which gives no durations but
the triangle's 400 s): each experiment says its duration.

Variants are the paper's: ``mpcubic`` (k = 2 unless the experiment sweeps k), ``unmpcubic``, and MPTCP's
``lia``, ``olia`` and ``balia`` where a figure compares with MPTCP; ``cubic`` is one regular Cubic flow.

Flows are named by role: ``measured…`` are the flows the figure reports (``measured_X`` when there are
several), ``competing…`` the flows it compares them with. :func:`rates_row` turns a run into one row.

Every check cites the paper's sentence it judges (``quote``, verbatim), where it stands and, for its band or
tolerance, how that follows from the paper's words or numbers alone (``derivation``), by the catalogue's band
conventions: an exact number of the paper ± 25 %, "similar"/"nearly the same" within 10 %, "slightly" 0–10 %, a
comparison word ("more", "lower", "not greedy") one-sided with no tolerance. Every figure of Sec. IV (Figs. 1,
3–7) and both tables have checks; Fig. 2 draws the scenarios. The headline claims (Abstract, §I, §V) are those
marked ``headline``: stability (Figs. 1, 3), throughput improvement (Figs. 6, 7, Table I), fair sharing with
Cubic, TCP and MPTCP (Figs. 4, 5) and load balancing (Figs. 1, 7, Table II).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mpsim.engine import Results, run_config
from mpsim.experiments.base import Experiment, Panel, bps, traced
from mpsim.experiments.claims import Band, Compare, CompareMetrics, Ratio, Trend
from mpsim.experiments.stacks import IP_TCP_HEADER_BYTES
from mpsim.scenario import Scenario
from mpsim.topologies import LinkDirection, Network, Triangle

PAPER = "MPCubic: Le, Hong, Lee, MPCubic: An Extended Cubic TCP for Multiple Paths, 2011"
MSS = 1000
"""Sec. IV: "a 1000-byte data packet": the segment of the ``ns2`` profile every flow runs."""
TCP: dict[str, Any] = {"profile": "ns2"}
WIRE_BYTES = MSS + IP_TCP_HEADER_BYTES
"""A full segment on the wire: 1000 B of data and 40 B of IP and TCP headers."""
BIN_S = 5
"""Sec. IV: "Data rates were sampled every 5 seconds"."""
MULTIPATH = ("mpcubic", "unmpcubic")
WITH_MPTCP = (*MULTIPATH, "lia", "olia", "balia")


def cc(variant: str, **settings: Any) -> dict[str, Any]:
    """The congestion control of a variant (``mpcubic`` takes ``k`` and ``beta``; ``cubic`` takes ``beta``)."""
    return {"type": variant, **settings}


def adaptive_red(rate_bps: int, rtt_s: float) -> dict[str, Any]:
    """ns-2's Adaptive RED with a hard limit of one BDP (at least 100 packets)."""
    bdp = math.ceil(rate_bps * rtt_s / 8 / WIRE_BYTES)
    return {"type": "red", "limit": f"{max(100, bdp)}pkt", "adaptive": True, "mean_pkt_size": f"{WIRE_BYTES}B"}


def _flow(name: str, src: Any, dst: Any, congestion: Mapping[str, Any], copies: int = 1) -> dict[str, Any]:
    kind = "mptcp" if isinstance(src, list) or congestion["type"] in WITH_MPTCP else "tcp"
    flow: dict[str, Any] = {
        "type": kind,
        "name": name,
        "src": src,
        "dst": dst,
        "cc": dict(congestion),
        "tcp": TCP,
        "start": {"uniform": ["0s", "1s"]},
    }
    if copies > 1:
        flow["copies"] = copies
    return flow


def scenario(
    run: int,
    duration_s: int,
    warmup_s: int,
    topology: Mapping[str, Any],
    flows: list[dict[str, Any]],
    **more: Any,
) -> Scenario:
    """One run: the rates binned from ``warmup_s`` to the end."""
    return Scenario.from_dict(
        {
            "seed": run,
            "duration": f"{duration_s}s",
            "topology": dict(topology),
            "flows": flows,
            "throughput": {"interval": f"{BIN_S}s", "start": f"{warmup_s}s"},
            **more,
        }
    )


# ---------------------------------------------------------------------------------------------- metrics


def rates_row(results: Results, config: Mapping[str, Any]) -> dict[str, Any]:
    """One run's row: the delivered rates (Mbit/s) over the binned window of every measured flow, its
    subflows (``path1_mbps``, ``path2_mbps``) and the competing flows, their ratio, each measured flow's
    share of its windows' data on path 2 (mean and standard deviation over the bins), the mean time
    between congestion events of its first and second subflows (``epoch_s``, ``epoch2_s``), and the loss rate
    of each bottleneck. Besides, the measures some of the paper's sentences need:

    - ``rate_sd_mbps``: the standard deviation over the 5 s bins of a measured flow's rate (the mean over the
      measured flows), Fig. 6(b)'s "fluctuation of the obtained bandwidth";
    - ``jain_index``: Jain's fairness index of the measured flows' rates, (Σx)²/(n·Σx²), 1 when all are equal
      (Table I: "A perfect resource pooling should produce the equal throughput for each flow");
    - ``competing_best_mbps``: the larger of the per-link means of the competing flows (Fig. 6(a): "greater
      than average throughput of fifteen Cubic flows on each path");
    - ``loss_growth_link1``: the loss rate on link 1 over that on link 1 of the run's reference copy of the
      network (:data:`REFERENCE`, Table II's 50 Mbit/s), when the run has one.

    The completion columns every catalogue row has are NaN or 0 (the flows are long-lived)."""
    bins = [r for r in results.throughput.to_pylist() if not r["flow"].startswith(REFERENCE)]
    span_s = max(r["end_s"] for r in bins) - min(r["start_s"] for r in bins)

    def mbps(flow: str, subflow: int | None = None) -> float:
        got = [r["bytes_delivered"] for r in bins if r["flow"] == flow and r["subflow"] == subflow]
        return sum(got) * 8 / span_s / 1e6 if got else float("nan")

    flows = sorted({r["flow"] for r in bins if r["subflow"] is None})
    measured = [f for f in flows if f.startswith("measured")]
    competing = [f for f in flows if f.startswith("competing")]
    row: dict[str, Any] = {"fct_s": float("nan"), "incomplete": 0}
    rates = {f: mbps(f) for f in measured}
    row["rate_mbps"] = statistics.fmean(rates.values())
    row["total_mbps"] = sum(rates.values())
    for f, rate in rates.items():
        if f != "measured":
            row[f"rate_{f.removeprefix('measured_')}_mbps"] = rate
    if len(rates) >= 2:
        row["jain_index"] = jain_index(list(rates.values()))
    spreads = [_binned_sd_mbps(bins, f) for f in measured]
    row["rate_sd_mbps"] = statistics.fmean(spreads) if spreads else float("nan")
    for i in (1, 2):
        paths = [mbps(f, i - 1) for f in measured]
        if not any(math.isnan(p) for p in paths):
            row[f"path{i}_mbps"] = statistics.fmean(paths)
    if competing:
        row["competing_mbps"] = statistics.fmean(mbps(f) for f in competing)
        row["ratio"] = row["rate_mbps"] / row["competing_mbps"] if row["competing_mbps"] > 0 else float("nan")
        # Groups: ``competing1_k`` are the flows on link 1, ``competing2_k`` on link 2.
        groups = sorted({f.split("_")[0] for f in competing})
        for group in groups:
            row[f"{group}_mbps"] = statistics.fmean(mbps(f) for f in competing if f.split("_")[0] == group)
        if len(groups) >= 2:
            row["competing_best_mbps"] = max(row[f"{group}_mbps"] for group in groups)
    for f in measured:
        suffix = "" if f == "measured" else f"_{f.removeprefix('measured_')}"
        one = [r["bytes_delivered"] for r in bins if r["flow"] == f and r["subflow"] == 0]
        two = [r["bytes_delivered"] for r in bins if r["flow"] == f and r["subflow"] == 1]
        shares = [b / (a + b) for a, b in zip(one, two, strict=True) if a + b > 0]
        if len(shares) >= 2:
            row[f"share2_mean{suffix}"] = statistics.fmean(shares)
            row[f"share2_sd{suffix}"] = statistics.stdev(shares)
    first = _subflows(results, measured, 0)
    epochs = [_epoch_s(r, results.end_time_s) for r in first]
    row["epoch_s"] = statistics.fmean(epochs) if epochs else float("nan")
    second = [_epoch_s(r, results.end_time_s) for r in _subflows(results, measured, 1)]
    row["epoch2_s"] = statistics.fmean(second) if second else float("nan")
    row["retransmissions"] = statistics.fmean(r["retransmits_fast"] + r["retransmits_rto"] for r in first)
    row["rto_count"] = statistics.fmean(r["rto_count"] for r in first)
    row["sum_cwnd_pkts"] = statistics.fmean(r["cwnd_bytes_at_end"] / MSS for r in first)
    reference: dict[str, float] = {}
    for link in results.links.to_pylist():
        name = link["name"].removeprefix(REFERENCE)
        if name in BOTTLENECKS:
            lost = link["dropped_overflow_pkts"] + link["dropped_red_pkts"] + link["dropped_loss_pkts"]
            pct = 100 * lost / max(1, link["arrived_pkts"])
            if link["name"].startswith(REFERENCE):
                reference[BOTTLENECKS[name]] = pct
            else:
                row[f"loss_pct_{BOTTLENECKS[name]}"] = pct
    if "link1" in reference:
        base = reference["link1"]
        row["loss_pct_link1_reference"] = base
        row["loss_growth_link1"] = row["loss_pct_link1"] / base if base > 0 else float("nan")
    return row


BOTTLENECKS = {"L1": "link1", "L2": "link2", "L3": "link3", "A1-B1": "link1", "A2-B2": "link2", "R1-R2": "link1"}
"""The bottleneck links of the presets, by the name a row gives their loss rate."""

REFERENCE = "ref-"
"""The prefix of every node, link, address and flow of a run's reference copy of its network (Table II's
link 1 at 50 Mbit/s beside the network at x): never a measured or competing flow, and its bottlenecks' loss
rates are the row's ``…_reference`` columns."""


def jain_index(rates: list[float]) -> float:
    """Jain's fairness index (Σx)²/(n·Σx²) of ``rates``: 1 when all are equal, 1/n when one takes everything."""
    squares = sum(r * r for r in rates)
    return sum(rates) ** 2 / (len(rates) * squares) if squares > 0 else float("nan")


def _binned_sd_mbps(bins: list[dict[str, Any]], flow: str) -> float:
    """The standard deviation of ``flow``'s delivered rate (Mbit/s) over its bins."""
    rates = [r["delivered_bps"] / 1e6 for r in bins if r["flow"] == flow and r["subflow"] is None]
    return statistics.stdev(rates) if len(rates) >= 2 else float("nan")


def _subflows(results: Results, measured: list[str], index: int) -> list[dict[str, Any]]:
    """The TCP row of each measured flow (``index`` 0 only) and the row of each measured connection's subflow
    ``index``."""
    tcp = [r for r in results.tcp_flows.to_pylist() if r["name"] in measured] if index == 0 else []
    rows = results.mptcp_subflows.to_pylist()
    return tcp + [r for r in rows if r["connection"] in measured and r["subflow"] == index]


def _epoch_s(row: Mapping[str, Any], end_s: float) -> float:
    """Mean time between congestion events after the first (the end of slow start)."""
    events = row["fast_recoveries"] + row["rto_count"]
    if row["slow_start_exit_ns"] is None or events < 2:
        return float("nan")
    return float((end_s - row["slow_start_exit_ns"] / 1e9) / (events - 1))


# ---------------------------------------------------------------------------------------------- experiments


def _trajectory(k: int, variant: str, run: int) -> Scenario:
    # Two MPCubic connections from S0 to D0 over four uncongested 100 Mbit/s links (100 ms one way) with
    # uniform random exogenous drops: "equal" on links 1 and 2 (p1 = p2 = 1e-4), "unequal" on 3 and 4
    # (p1 = 4e-4 > p2 = 1e-4). Links never queue: only the drops set the windows.
    topology = {"preset": "parallel_links", "rates": "100Mbps", "delays": "100ms", "buffer": "2000pkt"}
    congestion = cc("mpcubic", k=k) if variant == "mpcubic" else cc(variant)
    flows = [
        _flow("measured_equal", ["S0.1", "S0.2"], "D0", congestion),
        _flow("measured_unequal", ["S0.3", "S0.4"], "D0", congestion),
    ]
    loss = {"A1-B1": 1e-4, "A2-B2": 1e-4, "A3-B3": 4e-4, "A4-B4": 1e-4}
    changes = [{"at": "0s", "link": link, "loss": p} for link, p in loss.items()]
    return scenario(run, 300, 60, {**topology, "rates": ["100Mbps"] * 4}, flows, link_changes=changes)


def _cycle(beta: float, variant: str, run: int) -> Scenario:
    # Fig. 2(a) with drop-tail queues: two 10 Mbit/s links, 100 ms one way, 100-packet buffers (below
    # the 240-packet BDP, so each epoch ends in an overflow). ``cubic`` runs one Cubic flow on link 1 alone.
    topology = {"preset": "parallel_links", "rates": "10Mbps", "delays": "100ms", "buffer": "100pkt"}
    if variant == "cubic":
        flows = [_flow("measured", "S0.1", "D0", cc("cubic", beta=beta))]
    else:
        flows = [_flow("measured", ["S0.1", "S0.2"], "D0", cc(variant, beta=beta))]
    return scenario(run, 400, 50, {**topology, "rates": ["10Mbps", "10Mbps"]}, flows)


def _shared(rate_mbps: int, variant: str, run: int) -> Scenario:
    # Fig. 2(b): the 2-path flow (both subflows over the one link) and one regular Cubic flow.
    topology = _one_link(rate_mbps * 1_000_000, 0.1)
    flows = [
        _flow("measured", ["S0.1", "S0.2"], "D0", cc(variant)),
        _flow("competing", "S1", "D1", cc("cubic")),
    ]
    return scenario(run, 200, 50, topology, flows)


def _one_link(rate_bps: int, delay_s: float) -> dict[str, Any]:
    return {
        "preset": "shared_bottleneck",
        "paths": 2,
        "background": 1,
        "bottleneck": bps(rate_bps),
        "delay": f"{delay_s}s",
        "queue": adaptive_red(rate_bps, 2 * delay_s),
        "access": "1Gbps",
        "access_delay": 0,
    }


def _reno(rate_mbps: int, variant: str, run: int) -> Scenario:
    topology = _one_link(rate_mbps * 1_000_000, 0.016)
    flows = [
        _flow("measured", ["S0.1", "S0.2"], "D0", cc(variant)),
        _flow("competing", "S1", "D1", cc("reno")),
    ]
    return scenario(run, 120, 20, topology, flows)


def _two_links(rates_bps: list[int], delays_s: list[float], background: list[int]) -> dict[str, Any]:
    rtt = 2 * max(delays_s)
    return {
        "preset": "parallel_links",
        "rates": [bps(r) for r in rates_bps],
        "delays": [f"{d}s" for d in delays_s],
        "background": background,
        "queue": adaptive_red(max(rates_bps), rtt),
    }


def _vs_mptcp(rate_mbps: int, variant: str, run: int) -> Scenario:
    # Fig. 5(b): the 2-path flow and a 2-path MPTCP (LIA) flow, both from S0's two addresses, on two
    # separate 10 Mbit/s, 16 ms links.
    topology = _two_links([rate_mbps * 1_000_000] * 2, [0.016] * 2, [0])
    flows = [
        _flow("measured", ["S0.1", "S0.2"], "D0", cc(variant)),
        _flow("competing", ["S0.1", "S0.2"], "D0", cc("lia")),
    ]
    return scenario(run, 120, 20, topology, flows)


def _pooling(rate_mbps: int, variant: str, run: int) -> Scenario:
    # Fig. 2(c): two 50 ms links, each with 15 Cubic flows (n = m = 15).
    topology = _two_links([rate_mbps * 1_000_000] * 2, [0.05] * 2, [15])
    flows = [
        _flow("measured", ["S0.1", "S0.2"], "D0", cc(variant)),
    ]
    flows += [_flow(f"competing1_{k}", f"S{k}", f"D{k}", cc("cubic")) for k in range(1, 16)]
    flows += [_flow(f"competing2_{k}", f"S{k}", f"D{k}", cc("cubic")) for k in range(16, 31)]
    return scenario(run, 120, 30, topology, flows)


def _hetero(rate_mbps: int, variant: str, run: int) -> Scenario:
    # Fig. 7: link 1 (x Mbit/s, 40 ms) with 12 Cubic flows, link 2 (0.8·x Mbit/s, 160 ms) with 6.
    rates = [rate_mbps * 1_000_000, rate_mbps * 800_000]
    topology = _two_links(rates, [0.04, 0.16], [12, 6])
    flows = [_flow("measured", ["S0.1", "S0.2"], "D0", cc(variant))]
    flows += [_flow(f"competing1_{k}", f"S{k}", f"D{k}", cc("cubic")) for k in range(1, 13)]
    flows += [_flow(f"competing2_{k}", f"S{k}", f"D{k}", cc("cubic")) for k in range(13, 19)]
    return scenario(run, 150, 50, topology, flows)


TRIANGLE_REFERENCE_MBPS = 50
"""Table II's first row: link 1 at 50 Mbit/s, the capacity the loss rate at 25 Mbit/s is compared with."""


def _triangle(link1_mbps: int, variant: str, run: int) -> Scenario:
    # Fig. 2(d): 50 Mbit/s links of 20 ms one way (the paper gives no delay), link 1 at x Mbit/s. Beside it,
    # in the same run and sharing nothing with it, a reference copy with link 1 at Table II's 50 Mbit/s
    # (every name prefixed ``ref-``): Table II's "increases five times" and "is double" compare the loss rate
    # at 25 Mbit/s with the one at 50, which a row can only hold when both are measured in its run.
    topology = _triangle_links(link1_mbps)
    flows = [_flow(f"measured_{f}", f"S{f}", f"D{f}", cc(variant)) for f in ("A", "B", "C")]
    reference = _prefixed(Triangle.model_validate(_triangle_links(TRIANGLE_REFERENCE_MBPS)).expand(), REFERENCE)
    flows += [_flow(f"{REFERENCE}{f}", f"{REFERENCE}S{f}", f"{REFERENCE}D{f}", cc(variant)) for f in ("A", "B", "C")]
    written = {
        "hosts": reference.hosts,
        "routers": reference.routers,
        "links": reference.links,
        "addresses": reference.addresses,
    }
    return scenario(run, 400, 50, topology, flows, **written)


def _triangle_links(link1_mbps: int) -> dict[str, Any]:
    rates = [link1_mbps * 1_000_000, 50_000_000, 50_000_000]
    queue = adaptive_red(50_000_000, 0.04)
    return {"preset": "triangle", "rates": [bps(r) for r in rates], "delays": "20ms", "queue": queue}


def _prefixed(network: Network, prefix: str) -> Network:
    """``network`` with every node, link and address renamed ``prefix`` + its name: a copy that can run
    beside the original in one scenario. Routes and link changes are not copied (the presets have none)."""
    if network.routes or network.link_changes:
        raise ValueError("a network with routes or link changes cannot be copied")
    links = []
    for link in network.links:
        reverse = None
        if link.reverse_name is not None:
            reverse = (link.reverse or LinkDirection()).model_copy(update={"name": prefix + link.reverse_name})
        update = {"name": prefix + link.forward_name, "from_": prefix + link.from_, "to": prefix + link.to}
        links.append(link.model_copy(update={**update, "reverse": reverse}))
    addresses = [
        a.model_copy(
            update={
                "name": prefix + a.name,
                "node": prefix + a.node,
                "interface": None if a.interface is None else prefix + a.interface,
                "out_link": None if a.out_link is None else prefix + a.out_link,
                "in_link": None if a.in_link is None else prefix + a.in_link,
            }
        )
        for a in network.addresses
    ]
    return Network(
        hosts=[prefix + h for h in network.hosts],
        routers=[prefix + r for r in network.routers],
        links=links,
        addresses=addresses,
    )


def _experiment(**fields: Any) -> Experiment:
    """An experiment of this paper: long-lived flows whose rates :func:`rates_row` reads, 3 runs (1 quick)."""
    return Experiment(paper=PAPER, runs=3, quick_runs=1, measures="rates", extract=rates_row, **fields)


RATE = Panel("rate_mbps", "Rate of the multipath flow (Mbit/s)")
RATIO = Panel("ratio", "Multipath / competing rate")
COMPETING = Panel("competing_mbps", "Rate of the competing flow (Mbit/s)")

FAIR_SHARING = "while preserving fair sharing with regular TCP, Cubic, and MPTCP at common bottlenecks"
"""The abstract's fairness claim (§I: "fairly share to regular Cubic and TCP at common bottleneck"; §V: "fairness to
regular TCP, Cubic and MPTCP"), judged at Figs. 4, 5(a) and 5(b)."""
NEARLY_EQUAL = 0.10
"""The band of the paper's closeness words ("fair sharing", "the same", "overlapped"): within 10 %, the convention
for "similar", "nearly the same", "nearly equal" (the catalogue's band conventions, docs/reproduction.md)."""
FAIR_DERIVATION = (
    "'fair sharing' at a common bottleneck: equal shares (Eq. 9 designs the multipath flow to take what a single-"
    "path flow takes on its best path, here the same link), within the convention's 10 % for 'nearly equal'"
)
SLIGHTLY = 0.10
"""The convention for "slightly": 0–10 % on the stated side."""
FIVE_TIMES = (3.75, 6.68)
"""Table II, unMPCubic: the text's "five times" (5) and the table's 0.0155/0.0029 = 5.34, each ± 25 % (the convention
for an exact number): [3.75, 6.25] ∪ [4.01, 6.68]."""
DOUBLE = (1.2, 2.5)
"""Table II, MPCubic: the text's "double" (2) and the table's 0.0032/0.0020 = 1.6, each ± 25 %: [1.5, 2.5] ∪
[1.2, 2.0]."""
CYCLE = (1.875, 3.125)
"""Fig. 3: "equals 2.5 times", a number the paper measured, ± 25 % (the convention for an exact number)."""

FIG6B = (
    "Two-path unMPCubic flow in Fig. 6(b) gives less fluctuation of the obtained bandwidth, and lower throughput than "
    "MPCubic."
)
TABLE1 = (
    "Table I shows that MPCubic appears more fair than unMPCubic, and MPCubic's sum throughput is larger than that of "
    "unMPCubic as well."
)
TABLE2_MPCUBIC = "Since MPCubic is able to move traffic away from the congested link (link 1), the loss rate is double."
FIG7A = "Fig. 7(a) shows that MPCubic produces less aggressive rate on path 1, but more aggressive rate on path 2."

EXPERIMENTS: list[Experiment] = [
    _experiment(
        name="mpcubic-trajectory",
        figure="Fig. 1",
        description="Two-path windows on separate paths with random drops, p1 = p2 and p1 > p2, against k",
        x_name="k",
        x_label="Trade-off k",
        x_values=(0, 1, 2, 3, 4),
        quick_x_values=(3,),
        scenario=_trajectory,
        panels=(
            Panel("share2_sd_equal", "p1 = p2: sd of path 2's share"),
            Panel("share2_mean_unequal", "p1 > p2: path 2's share"),
        ),
        checks=(
            Compare(
                "p1 = p2: unMPCubic's share of path 2 varies least.",
                "share2_sd_equal",
                left="unmpcubic",
                op="<",
                right="mpcubic",
                quote="when $p_1 = p_2$, unMPCubic demonstrates non-variation in increment of both windows",
                where="Fig. 1 (top), §III",
                derivation="'non-variation' (unMPCubic) against MPCubic's 'variations' at every k: unMPCubic's spread "
                "below MPCubic's; no tolerance, the paper's words give none",
            ),
            Compare(
                "p1 = p2: MPCubic's share varies only slightly more than unMPCubic's for k <= 2.",
                "share2_sd_equal",
                left="mpcubic",
                op="<",
                right="unmpcubic",
                tolerance=SLIGHTLY,
                x_max=2,
                quote="MPCubic with $k \\leq 2$ gives the slight variations",
                where="Fig. 1 (top), §III",
                headline=True,
                derivation="'slight variations' against unMPCubic's 'non-variation' (the spread the random drops alone "
                "give): at most 10 % above unMPCubic's, the convention for 'slightly'. Headline: the abstract's "
                "'stability' (§I: 'window evolution fluctuation')",
            ),
            Compare(
                "p1 = p2: at k = 3 MPCubic's share varies more than slightly (windows swing between the axes).",
                "share2_sd_equal",
                left="mpcubic",
                op=">",
                right="unmpcubic",
                factor=1 + SLIGHTLY,
                x_min=3,
                x_max=3,
                quote="for $k = 3$, pairs of window increment move from one axis to another, and so on",
                where="Fig. 1 (top), §III",
                derivation="'move from one axis to another' is more than the 'slight variations' of k <= 2: beyond "
                "10 % above unMPCubic's spread, where the 'slightly' convention ends (the former +50 % over k = 2 "
                "had no source in the paper)",
            ),
            Trend(
                "p1 > p2: MPCubic's share of the less lossy path 2 grows with k.",
                "share2_mean_unequal",
                variants=("mpcubic",),
                direction="grows",
                mode="rank",
                quote="when $p_1 > p_2$ as shown in the bottom plots in Fig. 1, MPCubic demonstrates the capability "
                "of less aggressive increase in the congestion window on path 1 and the more aggressive increase on "
                "path 2 as increasing k value",
                where="Fig. 1 (bottom), §III",
                headline=True,
                derivation="'as increasing k value' states a tendency over the k range, not each step: Spearman's "
                "rank correlation of the means with k, one-sided p < 0.05 (the conventional level; over 5 k values a "
                "perfect order gives p = 1/120). Headline: 'move traffic away from congested paths' (§I, §V)",
            ),
        ),
        variants=MULTIPATH,
        notes=(
            "Links 100 Mbit/s, 100 ms one way, never queueing; drops p = 1e-4, and 4e-4 on path 1 of the unequal "
            "pair (the paper gives neither rate nor p). 300 s, shares of path 2's delivered bytes per 5 s bin "
            "after 60 s stand for the (cwnd1, cwnd2) trajectory (equal RTTs: rates are proportional to windows).",
        ),
    ),
    _experiment(
        name="mpcubic-cycle",
        figure="Fig. 3",
        description="Congestion epoch of a 2-path MPCubic subflow against a Cubic flow alone, on equal drop-tail paths",
        x_name="beta",
        x_label="β_cubic",
        x_values=(0.7, 0.8),
        quick_x_values=(0.7,),
        scenario=_cycle,
        panels=(
            Panel("epoch_s", "Mean congestion epoch (s)"),
            Panel("epoch2_s", "Mean congestion epoch of subflow 2 (s)"),
        ),
        checks=(
            Ratio(
                "MPCubic's window growth cycle is 2.5 times regular Cubic's (theory: 2^(4/3) ~ 2.52), with "
                "beta_cubic = 0.7 and 0.8 alike.",
                "epoch_s",
                left="mpcubic",
                right="cubic",
                low=CYCLE[0],
                high=CYCLE[1],
                quote="window growth cycle of sub-flow in MPCubic equals 2.5 times as long as that of regular Cubic",
                where="Fig. 3, §IV-A",
                headline=True,
                derivation="'equals 2.5 times', a number the paper measured: 2.5 ± 25 % (the convention for an exact "
                "number), [1.875, 3.125]; its theory's 2^(4/3) = 2.52 lies inside. A cycle is two epochs of each flow, "
                "so the ratio of cycles is that of epochs. The lower end above 1 is also 'the regular Cubic flow is "
                "more aggressive in window growth'. Headline: the abstract's 'stability' (window evolution)",
            ),
            CompareMetrics(
                "On equal paths the two MPCubic subflows' windows evolve alike (equal epochs).",
                "epoch_s",
                variant="mpcubic",
                op="≈",
                other="epoch2_s",
                tolerance=NEARLY_EQUAL,
                quote="Since two paths's parameters are equal, the window evolution of two sub-flows is overlapped.",
                where="Fig. 3, §IV-A",
                derivation="'overlapped': the two subflows' windows the same, read as their congestion epochs nearly "
                "the same, within the convention's 10 % for 'nearly the same'",
            ),
        ),
        variants=("cubic", "mpcubic"),
        notes=("Links 10 Mbit/s, 100 ms one way, drop-tail 100 packets; 400 s; epochs counted after slow start.",),
    ),
    _experiment(
        name="mpcubic-shared",
        figure="Fig. 4",
        description="A 2-path flow and one regular Cubic flow on one 50 Mbit/s, 100 ms link",
        x_name="link_mbps",
        x_label="Link rate (Mbit/s)",
        x_values=(50,),
        quick_x_values=(10,),
        scenario=_shared,
        panels=(RATE, COMPETING, RATIO),
        checks=(
            CompareMetrics(
                "The 2-path MPCubic flow is friendly to the Cubic flow: it takes no more than the Cubic flow.",
                "rate_mbps",
                variant="mpcubic",
                op="<",
                other="competing_mbps",
                quote="The simulation results in Fig. 4 show that two-path MPCubic can be friendly regular Cubic at a "
                "bottleneck.",
                where="Fig. 4, §IV-B",
                derivation="'friendly' to regular Cubic: the 2-path flow takes no more than the Cubic flow, one-sided "
                "with no tolerance (the paper's words give none)",
            ),
            CompareMetrics(
                "The 2-path MPCubic flow shares the bottleneck fairly with the Cubic flow (rates nearly equal).",
                "rate_mbps",
                variant="mpcubic",
                op="≈",
                other="competing_mbps",
                tolerance=NEARLY_EQUAL,
                quote=FAIR_SHARING,
                where="Abstract (Fig. 4, §IV-B)",
                headline=True,
                derivation=FAIR_DERIVATION,
            ),
        ),
        variants=(*MULTIPATH, "lia"),
        notes=("200 s, rates after 50 s; quick mode at 10 Mbit/s.",),
    ),
    _experiment(
        name="mpcubic-reno",
        figure="Fig. 5a",
        description="A 2-path flow against TCP Reno on one 10 Mbit/s, 16 ms link (RTT 32 ms)",
        x_name="link_mbps",
        x_label="Link rate (Mbit/s)",
        x_values=(10,),
        quick_x_values=(10,),
        scenario=_reno,
        panels=(RATE, COMPETING, RATIO),
        checks=(
            CompareMetrics(
                "In the TCP-friendly region MPCubic takes no more than the regular TCP (Reno) flow.",
                "rate_mbps",
                variant="mpcubic",
                op="<",
                other="competing_mbps",
                quote="Fig. 5(a) shows that two-path MPCubic is not greedy to capture more bandwidth than the regular "
                "TCP.",
                where="Fig. 5(a), §IV-B",
                derivation="'not greedy to capture more bandwidth than the regular TCP': MPCubic's rate at most the "
                "TCP flow's, one-sided with no tolerance (the paper's words give none; the former 15 % had no source "
                "in the paper). The paper compares with the TCP flow, not with MPTCP",
            ),
            CompareMetrics(
                "The 2-path MPCubic flow shares the bottleneck fairly with the regular TCP flow (rates nearly equal).",
                "rate_mbps",
                variant="mpcubic",
                op="≈",
                other="competing_mbps",
                tolerance=NEARLY_EQUAL,
                quote=FAIR_SHARING,
                where="Abstract (Fig. 5(a), §IV-B)",
                headline=True,
                derivation=FAIR_DERIVATION,
            ),
        ),
        variants=WITH_MPTCP,
        notes=("120 s, rates after 20 s.",),
    ),
    _experiment(
        name="mpcubic-vs-mptcp",
        figure="Fig. 5b",
        description="A 2-path flow against a 2-path MPTCP (LIA) flow on two separate 10 Mbit/s, 16 ms links",
        x_name="link_mbps",
        x_label="Link rate (Mbit/s)",
        x_values=(10,),
        quick_x_values=(10,),
        scenario=_vs_mptcp,
        panels=(RATE, COMPETING, RATIO),
        checks=(
            CompareMetrics(
                "In the TCP-friendly region MPCubic shares the two links with MPTCP reasonably (rates nearly equal).",
                "rate_mbps",
                variant="mpcubic",
                op="≈",
                other="competing_mbps",
                tolerance=NEARLY_EQUAL,
                quote="Fig. 5(b) shows that in the TCP-friendliness region MPCubic can allocate the bandwidth "
                "reasonably with regular MPTCP.",
                where="Fig. 5(b), §IV-B",
                headline=True,
                derivation="'reasonably' is no closeness word of the conventions; read by §III's design of MPCubic's "
                "TCP-friendly region ('the throughput of both approaches in the steady state are the same') and the "
                "abstract's 'fair sharing with ... MPTCP': nearly the same, within the convention's 10 %. Headline: "
                "the abstract's fair sharing with MPTCP",
            ),
        ),
        variants=(*MULTIPATH, "olia", "balia"),
        notes=("120 s, rates after 20 s.",),
    ),
    _experiment(
        name="mpcubic-pooling",
        figure="Fig. 6",
        description="A 2-path flow on two 50 ms links, each with 15 Cubic flows: its rate against the mean Cubic flow",
        x_name="link_mbps",
        x_label="Link rate (Mbit/s)",
        x_values=(100,),
        quick_x_values=(10,),
        scenario=_pooling,
        panels=(
            RATE,
            Panel("competing_best_mbps", "Mean Cubic flow of the link where it is larger (Mbit/s)"),
            RATIO,
            Panel("rate_sd_mbps", "sd of the multipath flow's rate over 5 s bins (Mbit/s)"),
        ),
        checks=(
            CompareMetrics(
                "MPCubic's total rate exceeds the mean Cubic flow's on each link.",
                "rate_mbps",
                variant="mpcubic",
                op=">",
                other="competing_best_mbps",
                quote="Fig. 6(a) shows that total throughput of a two-path MPCubic flow is greater than average "
                "throughput of fifteen Cubic flows on each path.",
                where="Fig. 6(a), §IV-C",
                derivation="'greater than average throughput of fifteen Cubic flows on each path': above the mean "
                "Cubic flow of each link, so above the larger of the two (per run); one-sided, no tolerance",
            ),
            Compare(
                "unMPCubic's rate fluctuates less than MPCubic's.",
                "rate_sd_mbps",
                left="unmpcubic",
                op="<",
                right="mpcubic",
                quote=FIG6B,
                where="Fig. 6(b), §IV-C",
                derivation="'less fluctuation of the obtained bandwidth': the standard deviation of the flow's rate "
                "over the paper's 5 s samples, lower for unMPCubic; no tolerance",
            ),
            Compare(
                "unMPCubic gets less than MPCubic.",
                "rate_mbps",
                left="unmpcubic",
                op="<",
                right="mpcubic",
                quote=FIG6B,
                where="Fig. 6(b), §IV-C",
                headline=True,
                derivation="'lower throughput than MPCubic': one-sided, no tolerance. Headline: the abstract's "
                "'throughput improvement' (§IV-C: 'the improvement of the throughput of MPCubic compared with "
                "unMPCubic')",
            ),
        ),
        variants=MULTIPATH,
        notes=("120 s, rates after 30 s; quick mode at 10 Mbit/s.",),
    ),
    _experiment(
        name="mpcubic-triangle",
        figure="Tables I-II",
        description="Resource pooling on the triangle: flows A, B, C each on two of three links, link 1 at x Mbit/s",
        x_name="link1_mbps",
        x_label="Link 1 rate (Mbit/s)",
        x_values=(50, 25),
        quick_x_values=(25,),
        scenario=_triangle,
        panels=(
            Panel("total_mbps", "Sum of A, B, C (Mbit/s)"),
            Panel("jain_index", "Jain's index of A, B, C"),
            Panel("loss_pct_link1", "Loss rate on link 1 (%)"),
            Panel("loss_growth_link1", "Loss on link 1 / loss at 50 Mbit/s (same run)"),
        ),
        checks=(
            Compare(
                "Table I: MPCubic's throughput is spread more evenly over A, B, C than unMPCubic's (Jain's index).",
                "jain_index",
                left="mpcubic",
                op=">",
                right="unmpcubic",
                x_min=50,
                x_max=50,
                quote=TABLE1,
                where="Table I, §IV-D",
                derivation="'more fair', with the paper's 'A perfect resource pooling should produce the equal "
                "throughput for each flow': Jain's index of A, B, C (1 when equal) higher for MPCubic; no tolerance "
                "(the table's own indices, 0.973 against 0.964, differ by 1 %)",
            ),
            Compare(
                "Table I: MPCubic's sum (171.6 Mbit/s) exceeds unMPCubic's (168).",
                "total_mbps",
                left="mpcubic",
                op=">",
                right="unmpcubic",
                x_min=50,
                x_max=50,
                quote=TABLE1,
                where="Table I, §IV-D",
                headline=True,
                derivation="'larger': one-sided, no tolerance (the table's 171.6 against 168 is 2.1 %, too close for a "
                "band of ± 25 % to say anything). Headline: 'MPCubic can achieve the throughput improvement' (§IV-D; "
                "Abstract)",
            ),
            Trend(
                "Table II: halving link 1 raises its loss rate with MPCubic and with unMPCubic.",
                "loss_pct_link1",
                variants=("mpcubic", "unmpcubic"),
                direction="falls",
                mode="monotone",
                quote="Table II shows that the loss rates always increase as reducing link 1's capacity.",
                where="Table II, §IV-D",
                derivation="'always increase' as link 1's capacity falls: the loss rate never lower at a smaller "
                "capacity, no step back allowed (tolerance 0)",
            ),
            Band(
                "Table II: unMPCubic's loss rate on link 1 about fivefold when link 1 is halved (0.0029 -> 0.0155 %).",
                "loss_growth_link1",
                variants=("unmpcubic",),
                low=FIVE_TIMES[0],
                high=FIVE_TIMES[1],
                x_min=25,
                x_max=25,
                quote="For unMPCubic the loss rate at link 1 increases five times because unMPCubic is a uncoordinated "
                "congestion controller.",
                where="Table II, §IV-D",
                derivation="'five times' and the table's 0.0155/0.0029 = 5.34, each ± 25 % (the convention for an "
                "exact number): [3.75, 6.25] ∪ [4.01, 6.68]; the growth is the loss at 25 Mbit/s over the loss at 50 "
                "in the same run",
            ),
            Band(
                "Table II: with MPCubic, halving link 1 about doubles its loss rate (0.0020 -> 0.0032 %).",
                "loss_growth_link1",
                variants=("mpcubic",),
                low=DOUBLE[0],
                high=DOUBLE[1],
                x_min=25,
                x_max=25,
                quote=TABLE2_MPCUBIC,
                where="Table II, §IV-D",
                derivation="'double' and the table's 0.0032/0.0020 = 1.6, each ± 25 % (the convention for an exact "
                "number): [1.5, 2.5] ∪ [1.2, 2.0]",
            ),
            Compare(
                "Table II: MPCubic's loss rate on link 1 grows less than unMPCubic's when link 1 is halved.",
                "loss_growth_link1",
                left="mpcubic",
                op="<",
                right="unmpcubic",
                x_min=25,
                x_max=25,
                quote=TABLE2_MPCUBIC,
                where="Table II, §IV-D",
                headline=True,
                derivation="'double' for MPCubic against 'five times' for unMPCubic: MPCubic's growth the smaller, one-"
                "sided, no tolerance. Headline: 'move traffic away from congested paths' (§I, §V; Abstract: "
                "'load-balancing')",
            ),
        ),
        variants=MULTIPATH,
        notes=(
            "Links 50 Mbit/s, 20 ms one way (not given); 400 s as the paper's, rates after 50 s. Each run also "
            "carries a reference copy of the network with link 1 at 50 Mbit/s (names prefixed 'ref-'), sharing "
            "nothing with it, so that Table II's growth of the loss rate is a ratio within one run.",
        ),
    ),
    _experiment(
        name="mpcubic-hetero",
        figure="Fig. 7",
        description="Links (100 Mbit/s, 40 ms) with 12 Cubic flows and (80 Mbit/s, 160 ms) with 6: per-path rates",
        x_name="link_mbps",
        x_label="Link 1 rate (Mbit/s; link 2 at 0.8 of it)",
        x_values=(100,),
        quick_x_values=(10,),
        scenario=_hetero,
        panels=(
            Panel("path1_mbps", "Path 1 rate (Mbit/s)"),
            Panel("path2_mbps", "Path 2 rate (Mbit/s)"),
            Panel("rate_mbps", "Total rate (Mbit/s)"),
        ),
        checks=(
            Compare(
                "MPCubic sends less on the more congested path 1 than unMPCubic,",
                "path1_mbps",
                left="mpcubic",
                op="<",
                right="unmpcubic",
                quote=FIG7A,
                where="Fig. 7, §IV-D",
                headline=True,
                derivation="'less aggressive rate on path 1', read against unMPCubic's Fig. 7(b): one-sided, no "
                "tolerance. Headline: 'move traffic away from congested paths' (§I, §V)",
            ),
            Compare(
                "more on path 2,",
                "path2_mbps",
                left="mpcubic",
                op=">",
                right="unmpcubic",
                quote=FIG7A,
                where="Fig. 7, §IV-D",
                headline=True,
                derivation="'more aggressive rate on path 2', read against unMPCubic's Fig. 7(b): one-sided, no "
                "tolerance. Headline: 'move traffic away from congested paths ... to lightly load paths' (§V)",
            ),
            CompareMetrics(
                "MPCubic's own rate on path 1 is below its rate on path 2.",
                "path1_mbps",
                variant="mpcubic",
                op="<",
                other="path2_mbps",
                quote=FIG7A,
                where="Fig. 7(a), §IV-D",
                derivation="the same sentence read within Fig. 7(a) alone: MPCubic's path-1 subflow slower than its "
                "path-2 subflow; one-sided, no tolerance",
            ),
            Compare(
                "and more in total.",
                "rate_mbps",
                left="mpcubic",
                op=">",
                right="unmpcubic",
                quote="Whereas, unMPCubic in Fig. 7(b) gets the total throughput lower than MPCubic because there is "
                "no coordination of congestion control between paths.",
                where="Fig. 7(b), §IV-D",
                headline=True,
                derivation="'the total throughput lower than MPCubic': one-sided, no tolerance. Headline: the "
                "abstract's 'throughput improvement' (§V: 'greater throughput')",
            ),
        ),
        variants=MULTIPATH,
        notes=("150 s, rates after 50 s; quick mode at 10 and 8 Mbit/s.",),
    ),
]


# ---------------------------------------------------------------------------------------------- time series


def _named(name: str) -> Experiment:
    """This paper's experiment called ``name``."""
    found = {e.name: e for e in EXPERIMENTS}
    if name not in found:
        raise KeyError(f"unknown MPCubic experiment '{name}'; known: {', '.join(found)}")
    return found[name]


def rates_over_time(name: str, x: Any, variant: str, run: int, path: str | Path) -> list[Path]:
    """Runs one point of experiment ``name`` and draws the paper's kind of time series: the delivered
    rate of every measured flow, each of its subflows and the competing flows in 5 s bins (Figs. 4b–7)."""
    series: dict[str, list[tuple[float, float]]] = {}
    for r in run_config(_named(name).build(x, variant, run)).throughput.to_pylist():
        if r["flow"].startswith(("measured", "competing")):
            label = r["flow"] if r["subflow"] is None else f"{r['flow']} path {r['subflow'] + 1}"
            series.setdefault(label, []).append((r["start_s"], r["delivered_bps"] / 1e6))
    return _plot(series, "Delivered rate (Mbit/s)", f"{name}, {variant}, x = {x}, run {run}", path)


def windows_over_time(name: str, x: Any, variant: str, run: int, path: str | Path) -> list[Path]:
    """Runs one point of experiment ``name`` with the measured and competing flows traced and draws each
    subflow's congestion window (segments) against time (Figs. 3, 4a)."""
    scenario = _named(name).scenario(x, variant, run)
    scenario = traced(scenario, [f.name for f in scenario.flows if f.name.startswith(("measured", "competing"))])
    series: dict[str, list[tuple[float, float]]] = {}
    for r in run_config(scenario.to_core()).tcp_traces.to_pylist():
        label = f"{r['flow']} path {r['subflow'] + 1}"
        series.setdefault(label, []).append((r["time_ns"] / 1e9, r["cwnd_bytes"] / MSS))
    return _plot(series, "cwnd (segments)", f"{name}, {variant}, x = {x}, run {run}", path)


def _plot(series: Mapping[str, list[tuple[float, float]]], ylabel: str, title: str, path: str | Path) -> list[Path]:
    import matplotlib.pyplot as plt

    from mpsim.plots import save

    fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
    for label, points in series.items():
        # At most ~4000 points a line: a per-ACK trace has millions.
        step = max(1, len(points) // 4000)
        ax.plot(*zip(*points[::step], strict=True), label=label, linewidth=1)
    ax.set_xlabel("Time (s)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, ncols=2)
    return save(fig, path)
