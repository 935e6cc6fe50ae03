"""Figures in the style of the papers: a metric's mean with error bars against the swept parameter,
one line per variant; cwnd and queue time series from traces. Matplotlib with the Agg backend
(unless ``MPLBACKEND`` names another, as a Jupyter kernel does for its inline figures); every figure
is saved as PNG and SVG.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import matplotlib

if not os.environ.get("MPLBACKEND"):
    matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pyarrow as pa

from mpsim import units
from mpsim._core import ConfigError
from mpsim.engine import Results
from mpsim.errors import did_you_mean
from mpsim.store import META_COLUMNS, RunStore, one_seed_where_identical

__all__ = [
    "mean_and_error",
    "numeric_axis",
    "outside_legend",
    "plot_cwnd",
    "plot_queue",
    "plot_run",
    "plot_sequence",
    "plot_store",
    "plot_sweep",
    "plot_throughput",
    "save",
]

ErrorKind = Literal["ci95", "std", "none"]

LABELS = {
    "fct_s": "flow completion time (s)",
    "retransmissions": "retransmissions (packets)",
    "rto_count": "retransmission timeouts",
    "sum_cwnd_pkts": "sum of cwnd (packets)",
    "goodput_mbps": "goodput (Mbit/s)",
}
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")

# Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom; 1.96 beyond.
_T95: tuple[float, ...] = (
    *(12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131),
    *(2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042),
)


BAR_NAMES = {"ci95": "95 % CI (Student t)", "std": "± 1 std", "none": "no error bars"}
"""How each kind of error bar is named in a legend."""

MIN_RUNS_FOR_CI = 3
"""Fewest values a 95 % confidence interval is drawn from: with 2, Student's t quantile (12.7) makes the
interval wider than anything it says."""


def mean_and_error(values: Sequence[float], kind: ErrorKind = "ci95") -> tuple[float, float]:
    """Mean and half-width of the error bar: sample std, or the 95 % Student-t confidence interval (NaN,
    no bar, with fewer than :data:`MIN_RUNS_FOR_CI` values)."""
    xs = _finite(values)
    if not xs:
        return math.nan, math.nan
    n = len(xs)
    mean = sum(xs) / n
    if kind == "none":
        return mean, 0.0
    if kind == "ci95" and n < MIN_RUNS_FOR_CI:
        return mean, math.nan
    if n < 2:
        return mean, 0.0
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    if kind == "std":
        return mean, std
    t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
    return mean, t * std / math.sqrt(n)


def _finite(values: Iterable[Any]) -> list[float]:
    return [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


def numeric_axis(values: Iterable[Any]) -> tuple[list[float], str]:
    """Axis values as numbers and their unit: ``"20pkt"`` → 20 (packets), ``"280KB"`` → 280 (KB),
    ``"30ms"`` → 30 (ms), ``"5Mbps"`` → 5 (Mbit/s); plain numbers as they are."""
    vals = list(values)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals):
        return [float(v) for v in vals], ""
    text = [str(v) for v in vals]
    attempts: list[tuple[str, Any]] = [
        ("", float),
        ("packets", lambda s: units.parse_buffer(s).value if units.parse_buffer(s).unit == "pkts" else None),
        ("KB", lambda s: units.parse_size(s).value / 1e3 if units.parse_size(s).unit == "bytes" else None),
        ("ms", lambda s: units.parse_time(s) / 1e6),
        ("Mbit/s", lambda s: units.parse_rate(s) / 1e6),
    ]
    for unit, parse in attempts:
        try:
            out = [parse(s) for s in text]
        except (units.UnitError, ValueError):
            continue
        if all(o is not None for o in out):
            return [float(o) for o in out], unit
    raise ValueError(f"cannot place {text[:3]} on a numeric axis")


def _x_positions(values: Sequence[Any]) -> tuple[dict[Any, float], str, list[Any] | None]:
    """Where each x value goes: numbers (with their unit), or, for categories, 0, 1, 2, … in order of
    first appearance (then the categories are returned for the tick labels)."""
    distinct = list(dict.fromkeys(values))
    try:
        xs, unit = numeric_axis(distinct)
        return dict(zip(distinct, xs, strict=True)), unit, None
    except ValueError:
        return {v: float(i) for i, v in enumerate(distinct)}, "", distinct


def plot_sweep(
    table: pa.Table | Any,
    x: str,
    y: str,
    *,
    hue: str = "variant",
    errors: ErrorKind = "ci95",
    ax: Any = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
) -> Any:
    """Mean of ``y`` (over seeds and any other rows) at each value of ``x``, one line per ``hue``.

    The legend names the error bars and the number of values behind each mean; a 95 % confidence
    interval is not drawn from fewer than 3 values (the legend says so); bars of a quantity that is never
    negative (a count, a time) stop at zero. A categorical ``x`` is spaced evenly in order of first
    appearance; groups without a finite value are left out, and with none at all the axes say so.
    """
    rows = table.to_pylist() if isinstance(table, pa.Table) else list(table)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
    groups: dict[str, dict[Any, list[float]]] = {}
    for r in rows:
        groups.setdefault(str(r[hue]), {}).setdefault(r[x], []).append(r[y])
    groups = {k: g for k, g in groups.items() if any(_finite(v) for v in g.values())}
    if not groups:
        ax.text(0.5, 0.5, f"no finite value of {y}", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return ax.figure
    position, x_unit, categories = _x_positions([v for g in groups.values() for v in g])
    never_negative = all(v >= 0 for g in groups.values() for vs in g.values() for v in _finite(vs))
    counts: list[int] = []
    no_ci = False
    for i, (label, by_x) in enumerate(groups.items()):
        points = sorted(
            ((position[v], *mean_and_error(ys, errors), len(_finite(ys))) for v, ys in by_x.items() if _finite(ys)),
        )
        xs = [p[0] for p in points]
        means = [p[1] for p in points]
        halves = [0.0 if math.isnan(p[2]) else p[2] for p in points]
        no_ci |= any(math.isnan(p[2]) for p in points)
        counts += [p[3] for p in points]
        low = [min(h, m) if never_negative else h for m, h in zip(means, halves, strict=True)]
        ax.errorbar(
            xs,
            means,
            yerr=None if errors == "none" else [low, halves],
            marker=MARKERS[i % len(MARKERS)],
            markersize=5,
            capsize=3,
            linewidth=1.4,
            label=label,
        )
    if categories is not None:
        ax.set_xticks(range(len(categories)), [str(c) for c in categories])
    ax.set_xlabel(xlabel or (f"{x} ({x_unit})" if x_unit else x))
    ax.set_ylabel(ylabel or LABELS.get(y, y))
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    n_text = f"n = {min(counts)}" if min(counts) == max(counts) else f"n = {min(counts)}–{max(counts)}"
    legend_title = f"mean, {BAR_NAMES[errors]}, {n_text}"
    if errors == "ci95" and no_ci:
        legend_title += f"\nno CI where n < {MIN_RUNS_FOR_CI}"
    outside_legend(ax, title=legend_title)
    return ax.figure


def outside_legend(ax: Any, title: str | None = None) -> None:
    """The legend to the right of the axes, where it cannot hide a curve."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False, title=title, fontsize=8)
    if ax.get_legend() is not None and title:
        ax.get_legend().get_title().set_fontsize(8)


def save(fig: Any, path: str | Path, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Saves ``fig`` as ``path.png`` and ``path.svg`` (or the formats given) and closes it."""
    base = Path(path)
    base.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for fmt in formats:
        p = base.parent / f"{base.name}.{fmt}"
        fig.savefig(p, dpi=150)
        out.append(p)
    plt.close(fig)
    return out


def plot_store(
    out: str | Path,
    *,
    flows: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    x: str | None = None,
    errors: ErrorKind | str = "ci95",
    formats: Sequence[str] = ("png", "svg"),
) -> list[Path]:
    """One figure per metric (and flow) of a sweep's store, in ``out/plots``.

    Each line is one variant with one value of every other axis and of every categorical column the
    rows keep apart (a custom extractor's ``path``, say), so that no two different things are averaged.
    A metric without a finite value is not drawn. A 95 % confidence interval needs at least 3 runs at
    every point: with fewer, a :class:`ConfigError` says so.
    """
    store = RunStore(out)
    kind = _kind(errors)
    try:
        manifest = store.read_manifest()
    except (OSError, ValueError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        what = f"{str(out)!r} is not a sweep's store ({reason})"
        raise ConfigError(f"directory: {what}; give the --out of a sweep") from None
    axes: list[str] = manifest["axes"]
    table = store.results()
    if table.num_rows == 0:
        raise ConfigError(f"directory: {str(out)!r} holds no finished runs to plot")
    if x is not None and x not in axes:
        raise ConfigError(f"x: unknown axis {x!r}{did_you_mean(x, axes)} (allowed: {', '.join(axes) or 'none'})")
    x = x or (axes[0] if axes else None)
    if x is None:
        raise ConfigError(f"directory: the sweep in {str(out)!r} has no axis to put on the x axis")
    # The axes, and their values in base units (``topology.buffer_pkts``), are no metrics.
    in_base_units = {c for c in table.column_names for a in axes if c.startswith(f"{a}_")}
    skip = {*META_COLUMNS, *axes, *in_base_units, "flow", "kind"}
    schema = table.schema
    numeric = [c for c in table.column_names if c not in skip and pa.types.is_integer(schema.field(c).type)] + [
        c for c in table.column_names if c not in skip and pa.types.is_floating(schema.field(c).type)
    ]
    rows = table.to_pylist()
    # Columns that tell rows apart without being measures: one line per value.
    categorical = [
        c
        for c in table.column_names
        if c not in skip and c not in numeric and c != x and len({str(r[c]) for r in rows}) > 1
    ]
    line_columns = [a for a in axes if a != x] + categorical
    _check_known("metric", metrics, numeric)
    chosen = [m for m in numeric if metrics is None or m in metrics]
    flow_names = sorted({r["flow"] for r in rows}) if "flow" in table.column_names else [None]
    _check_known("flow", flows, [f for f in flow_names if f is not None])
    for r in rows:
        r["_line"] = " ".join([r["variant"], *(f"{c}={r[c]}" for c in line_columns)])
    if kind == "ci95":
        _check_runs_for_ci(rows, x, out)
    # Seeds that gave one result at a point add no value there: it is drawn from one seed (n = 1, no bar).
    kept = set(one_seed_where_identical(table, axes).column("key").to_pylist())
    rows = [r for r in rows if r["key"] in kept]
    paths: list[Path] = []
    for flow in flow_names:
        if flows and flow not in flows:
            continue
        subset = [r for r in rows if flow is None or r["flow"] == flow]
        for metric in chosen:
            if not _finite(r[metric] for r in subset):
                continue  # nothing to draw: no empty figure
            title = None if flow is None else f"flow {flow}"
            fig = plot_sweep(subset, x, metric, hue="_line", errors=kind, title=title)
            name = metric if flow is None else f"{flow}-{metric}"
            paths += save(fig, Path(out) / "plots" / name, formats)
    if not paths:
        raise ConfigError(f"metric: no finite value of {', '.join(chosen) or 'any metric'} to plot in {str(out)!r}")
    return paths


def _check_runs_for_ci(rows: Sequence[Mapping[str, Any]], x: str, out: str | Path) -> None:
    """Refuses 95 % confidence intervals drawn from fewer than 3 runs at any point."""
    runs: dict[tuple[Any, ...], set[Any]] = {}
    for r in rows:
        runs.setdefault((r["_line"], r.get("flow"), str(r[x])), set()).add(r["seed"])
    fewest = min(len(s) for s in runs.values())
    if fewest < MIN_RUNS_FOR_CI:
        raise ConfigError(
            f"errors: a 95 % confidence interval needs at least {MIN_RUNS_FOR_CI} runs (seeds) per point, and "
            f"{str(out)!r} has {fewest} at some points; give more seeds, or --errors std or --errors none"
        )


def _kind(errors: str) -> ErrorKind:
    if errors not in ("ci95", "std", "none"):
        raise ConfigError(f"errors: unknown error bars {errors!r} (allowed: ci95, std, none)")
    return errors  # type: ignore[return-value]


def _check_known(option: str, asked: Sequence[str] | None, known: Sequence[str]) -> None:
    """Raises :class:`ConfigError` for the first of ``asked`` that is not among ``known``."""
    for name in asked or ():
        if name not in known:
            shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
            raise ConfigError(f"{option}: unknown {option} {name!r}{did_you_mean(name, known)} (known: {shown})")


def plot_cwnd(results: Results, flow: str | None = None, *, ax: Any = None) -> Any:
    """Congestion window (KB) of every traced flow and subflow over time."""
    traces = results.tcp_traces.to_pylist()
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
    lines: dict[tuple[str, int], tuple[list[float], list[float]]] = {}
    for r in traces:
        if flow is not None and r["flow"] != flow:
            continue
        xs, ys = lines.setdefault((r["flow"], r["subflow"]), ([], []))
        xs.append(r["time_ns"] / 1e9)
        ys.append(r["cwnd_bytes"] / 1e3)
    if not lines:
        raise ValueError("no cwnd trace: set trace = true on a flow (or list it in [trace] flows)")
    for (name, sub), (xs, ys) in lines.items():
        ax.step(xs, ys, where="post", linewidth=1.2, label=f"{name} subflow {sub}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (KB)")
    ax.grid(True, alpha=0.3)
    outside_legend(ax)
    return ax.figure


def plot_queue(results: Results, link: str | None = None, *, ax: Any = None) -> Any:
    """Queue occupancy (packets) of every traced link over time."""
    rows = results.queue_traces.to_pylist()
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
    lines: dict[str, tuple[list[float], list[float]]] = {}
    for r in rows:
        if link is not None and r["link"] != link:
            continue
        xs, ys = lines.setdefault(r["link"], ([], []))
        xs.append(r["time_ns"] / 1e9)
        ys.append(r["queue_pkts"])
    if not lines:
        raise ValueError("no queue trace: list links in [trace] queues")
    for name, (xs, ys) in lines.items():
        ax.step(xs, ys, where="post", linewidth=1.2, label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    ax.grid(True, alpha=0.3)
    outside_legend(ax)
    return ax.figure


def plot_sequence(results: Results, flow: str | None = None, *, ax: Any = None) -> Any:
    """Sequence and ACK progress over time (as the CSS paper's Fig. 1): per subflow, every data segment
    sent at its sequence number (retransmissions marked apart) and the cumulative ACK (SND.UNA) as a
    step line, in KB of the subflow's sequence space. Needs ``[trace] segments``."""
    rows = results.segment_traces.to_pylist()
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    subflows: dict[tuple[str, int], dict[str, list[float]]] = {}
    for r in rows:
        if flow is not None and r["flow"] != flow:
            continue
        d = subflows.setdefault((r["flow"], r["subflow"]), {k: [] for k in ("t", "seq", "rt", "rseq", "at", "ack")})
        if r["event"] == "send" and r["payload_bytes"]:
            kind = ("rt", "rseq") if r["retransmission"] else ("t", "seq")
            d[kind[0]].append(r["time_s"])
            d[kind[1]].append(r["seq"] / 1e3)
        elif r["event"] == "ack":
            d["at"].append(r["time_s"])
            d["ack"].append(r["snd_una"] / 1e3)
    if not subflows:
        raise ValueError("no segment trace: list the flow in [trace] segments")
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, ((name, sub), d) in enumerate(subflows.items()):
        c = colors[i % len(colors)]
        label = f"{name} subflow {sub}"
        ax.plot(d["t"], d["seq"], ".", color=c, markersize=2.5, label=f"{label}: segment sent")
        if d["rt"]:
            ax.plot(d["rt"], d["rseq"], "x", color=c, markersize=5, label=f"{label}: retransmission")
        ax.step(d["at"], d["ack"], where="post", color=c, linewidth=0.9, alpha=0.7, label=f"{label}: ACK (SND.UNA)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("subflow sequence number (KB)")
    ax.grid(True, alpha=0.3)
    outside_legend(ax)
    return ax.figure


def plot_throughput(results: Results, flow: str | None = None, *, sent: bool = False, ax: Any = None) -> Any:
    """Throughput over time (Mbit/s) of every flow, MPTCP connection and subflow, one step per bin of the
    windowed-throughput table: goodput (bytes delivered in order), or with ``sent`` the bytes sent.
    Needs ``[throughput]``."""
    rows = results.throughput.to_pylist()
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
    column = "sent_bps" if sent else "delivered_bps"
    lines: dict[tuple[str, str, int | None], tuple[list[float], list[float]]] = {}
    for r in rows:
        if flow is not None and r["flow"] != flow:
            continue
        xs, ys = lines.setdefault((r["flow"], r["kind"], r["subflow"]), ([], []))
        if not xs:
            xs.append(r["start_s"])
            ys.append(r[column] / 1e6)
        # Each bin's rate holds from its start to its end.
        xs.append(r["end_s"])
        ys.append(r[column] / 1e6)
    if not lines:
        raise ValueError("no throughput table: set [throughput] interval in the scenario")
    for (name, kind, sub), (xs, ys) in lines.items():
        label = f"{name} subflow {sub}" if kind == "mptcp_subflow" else f"{name} ({kind})"
        style = "--" if kind == "mptcp_subflow" else "-"
        ax.step(xs, ys, where="pre", linestyle=style, linewidth=1.2, label=label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(("sending rate" if sent else "goodput") + " (Mbit/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    outside_legend(ax)
    return ax.figure


def plot_run(results: Results, out: str | Path, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Every time-series figure a run's traces allow, in ``out``: ``cwnd``, ``queue``, ``sequence``,
    ``throughput``."""
    drawn: list[Path] = []
    for name, draw, table in (
        ("cwnd", plot_cwnd, results.tcp_traces),
        ("queue", plot_queue, results.queue_traces),
        ("sequence", plot_sequence, results.segment_traces),
        ("throughput", plot_throughput, results.throughput),
    ):
        if table.num_rows:
            drawn += save(draw(results), Path(out) / name, formats)
    if not drawn:
        raise ConfigError(
            "the run traced nothing to plot: trace flows (trace = true or [trace] flows), queues ([trace] queues) "
            "or segments ([trace] segments), or ask for [throughput]"
        )
    return drawn
