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
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mpsim.engine import Results, run_config
from mpsim.experiments.base import Experiment, Panel, traced
from mpsim.experiments.claims import Bound, Compare, Ratio, Trend
from mpsim.experiments.stacks import IP_TCP_HEADER_BYTES
from mpsim.scenario import Scenario

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
    between congestion events of its first subflow (``epoch_s``), and the loss rate of each bottleneck.
    The completion columns every catalogue row has are NaN or 0 (the flows are long-lived)."""
    bins = results.throughput.to_pylist()
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
    for i in (1, 2):
        paths = [mbps(f, i - 1) for f in measured]
        if not any(math.isnan(p) for p in paths):
            row[f"path{i}_mbps"] = statistics.fmean(paths)
    if competing:
        row["competing_mbps"] = statistics.fmean(mbps(f) for f in competing)
        row["ratio"] = row["rate_mbps"] / row["competing_mbps"] if row["competing_mbps"] > 0 else float("nan")
        # Groups: ``competing1_k`` are the flows on link 1, ``competing2_k`` on link 2.
        for group in sorted({f.split("_")[0] for f in competing}):
            row[f"{group}_mbps"] = statistics.fmean(mbps(f) for f in competing if f.split("_")[0] == group)
    for f in measured:
        suffix = "" if f == "measured" else f"_{f.removeprefix('measured_')}"
        one = [r["bytes_delivered"] for r in bins if r["flow"] == f and r["subflow"] == 0]
        two = [r["bytes_delivered"] for r in bins if r["flow"] == f and r["subflow"] == 1]
        shares = [b / (a + b) for a, b in zip(one, two, strict=True) if a + b > 0]
        if len(shares) >= 2:
            row[f"share2_mean{suffix}"] = statistics.fmean(shares)
            row[f"share2_sd{suffix}"] = statistics.stdev(shares)
    first = _first_subflows(results, measured)
    epochs = [_epoch_s(r, results.end_time_s) for r in first]
    row["epoch_s"] = statistics.fmean(epochs) if epochs else float("nan")
    row["retransmissions"] = statistics.fmean(r["retransmits_fast"] + r["retransmits_rto"] for r in first)
    row["rto_count"] = statistics.fmean(r["rto_count"] for r in first)
    row["sum_cwnd_pkts"] = statistics.fmean(r["cwnd_bytes_at_end"] / MSS for r in first)
    for link in results.links.to_pylist():
        if link["name"] in BOTTLENECKS:
            lost = link["dropped_overflow_pkts"] + link["dropped_red_pkts"] + link["dropped_loss_pkts"]
            row[f"loss_pct_{BOTTLENECKS[link['name']]}"] = 100 * lost / max(1, link["arrived_pkts"])
    return row


BOTTLENECKS = {"L1": "link1", "L2": "link2", "L3": "link3", "A1-B1": "link1", "A2-B2": "link2", "R1-R2": "link1"}
"""The bottleneck links of the presets, by the name a row gives their loss rate."""


def _first_subflows(results: Results, measured: list[str]) -> list[dict[str, Any]]:
    """The TCP row of each measured flow, or of its first subflow."""
    tcp = [r for r in results.tcp_flows.to_pylist() if r["name"] in measured]
    sub = [r for r in results.mptcp_subflows.to_pylist() if r["connection"] in measured and r["subflow"] == 0]
    return tcp + sub


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
        "bottleneck": rate_bps,
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
        "rates": rates_bps,
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


def _triangle(link1_mbps: int, variant: str, run: int) -> Scenario:
    # Fig. 2(d): 50 Mbit/s links of 20 ms one way (the paper gives no delay), link 1 at x Mbit/s.
    rates = [link1_mbps * 1_000_000, 50_000_000, 50_000_000]
    topology = {"preset": "triangle", "rates": rates, "delays": "20ms", "queue": adaptive_red(50_000_000, 0.04)}
    flows = [_flow(f"measured_{f}", f"S{f}", f"D{f}", cc(variant)) for f in ("A", "B", "C")]
    return scenario(run, 400, 50, topology, flows)


def _experiment(**fields: Any) -> Experiment:
    """An experiment of this paper: long-lived flows whose rates :func:`rates_row` reads, 3 runs (1 quick)."""
    return Experiment(paper=PAPER, runs=3, quick_runs=1, measures="rates", extract=rates_row, **fields)


RATE = Panel("rate_mbps", "Rate of the multipath flow (Mbit/s)")
RATIO = Panel("ratio", "Multipath / competing rate")

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
            ),
            Trend(
                "p1 = p2: MPCubic's share varies little for k <= 2 and clearly more for k = 3 (windows swing "
                "between the axes).",
                "share2_sd_equal",
                variants=("mpcubic",),
                direction="grows",
                tolerance=0.5,
                x_min=2,
                x_max=3,
            ),
            Trend(
                "p1 > p2: MPCubic's share of the less lossy path 2 grows with k.",
                "share2_mean_unequal",
                variants=("mpcubic",),
                direction="grows",
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
        panels=(Panel("epoch_s", "Mean congestion epoch (s)"),),
        checks=(
            Ratio(
                "MPCubic's congestion epoch is 2^(4/3) ~ 2.52 times regular Cubic's (K_s = K / delta^(1/3), delta = "
                "1/16), with beta_cubic = 0.7 and 0.8 alike.",
                "epoch_s",
                left="mpcubic",
                right="cubic",
                low=2.27,
                high=2.77,
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
        panels=(RATE, RATIO),
        checks=(
            Bound(
                "The 2-path MPCubic flow takes about as much as the Cubic flow (ratio ~ 1).",
                "ratio",
                variants=("mpcubic",),
                op="≈",
                value=1.0,
                tolerance=0.2,
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
        panels=(RATE, RATIO),
        checks=(
            Bound(
                "In the TCP-friendly region MPCubic is not greedier than the Reno flow (ratio <= ~1).",
                "ratio",
                variants=("mpcubic",),
                op="<=",
                value=1.0,
                tolerance=0.15,
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
        panels=(RATE, RATIO),
        checks=(
            Bound(
                "In the TCP-friendly region MPCubic shares reasonably with MPTCP (ratio ~ 1).",
                "ratio",
                variants=("mpcubic",),
                op="≈",
                value=1.0,
                tolerance=0.2,
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
        panels=(RATE, RATIO),
        checks=(
            Bound(
                "MPCubic's total rate exceeds the mean Cubic flow's (ratio > 1).",
                "ratio",
                variants=("mpcubic",),
                op=">=",
                value=1.0,
            ),
            Compare("unMPCubic gets less than MPCubic.", "rate_mbps", left="unmpcubic", op="<", right="mpcubic"),
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
        panels=(Panel("total_mbps", "Sum of A, B, C (Mbit/s)"), Panel("loss_pct_link1", "Loss rate on link 1 (%)")),
        claims=("Table I: MPCubic's throughput is spread more evenly over A, B, C than unMPCubic's.",),
        checks=(
            Compare(
                "Table I: MPCubic's sum (171.6 Mbit/s) exceeds unMPCubic's (168).",
                "total_mbps",
                left="mpcubic",
                op=">",
                right="unmpcubic",
                x_min=50,
            ),
            Trend(
                "Table II: halving link 1 raises its loss rate, about twofold with MPCubic (0.0020 -> 0.0032 %) "
                "and about fivefold with unMPCubic (0.0029 -> 0.0155 %).",
                "loss_pct_link1",
                variants=("mpcubic", "unmpcubic"),
                direction="falls",
            ),
        ),
        variants=MULTIPATH,
        notes=("Links 50 Mbit/s, 20 ms one way (not given); 400 s as the paper's, rates after 50 s.",),
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
            ),
            Compare("more on path 2,", "path2_mbps", left="mpcubic", op=">", right="unmpcubic"),
            Compare("and more in total.", "rate_mbps", left="mpcubic", op=">", right="unmpcubic"),
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
