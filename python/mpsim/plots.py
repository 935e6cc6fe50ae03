"""Figures in the style of the papers: a metric's mean with error bars against the swept parameter,
one line per variant; cwnd and queue time series from traces. Matplotlib with the Agg backend;
every figure is saved as PNG and SVG.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pyarrow as pa

from mpsim import units
from mpsim._core import ConfigError
from mpsim._types import did_you_mean
from mpsim.engine import Results
from mpsim.store import META_COLUMNS, RunStore

__all__ = ["mean_and_error", "numeric_axis", "plot_cwnd", "plot_queue", "plot_store", "plot_sweep", "save"]

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


def mean_and_error(values: Sequence[float], kind: ErrorKind = "ci95") -> tuple[float, float]:
    """Mean and half-width of the error bar: sample std, or the 95 % Student-t confidence interval."""
    xs = [v for v in values if v is not None and not math.isnan(v)]
    if not xs:
        return math.nan, math.nan
    n = len(xs)
    mean = sum(xs) / n
    if n < 2 or kind == "none":
        return mean, 0.0
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    if kind == "std":
        return mean, std
    t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
    return mean, t * std / math.sqrt(n)


def numeric_axis(values: Iterable[Any]) -> tuple[list[float], str]:
    """Axis values as numbers and their unit: ``"20pkt"`` → 20 (packets), ``"280KB"`` → 280 (KB),
    ``"30ms"`` → 30 (ms), ``"5Mbps"`` → 5 (Mbit/s); plain numbers as they are."""
    vals = list(values)
    try:
        return [float(v) for v in vals], ""
    except (TypeError, ValueError):
        pass
    text = [str(v) for v in vals]
    attempts: list[tuple[str, Any]] = [
        ("packets", lambda s: units.parse_buffer(s).value if units.parse_buffer(s).unit == "pkts" else None),
        ("KB", lambda s: units.parse_size(s).value / 1e3 if units.parse_size(s).unit == "bytes" else None),
        ("ms", lambda s: units.parse_time(s) / 1e6),
        ("Mbit/s", lambda s: units.parse_rate(s) / 1e6),
    ]
    for unit, parse in attempts:
        try:
            out = [parse(s) for s in text]
        except units.UnitError:
            continue
        if all(o is not None for o in out):
            return [float(o) for o in out], unit
    raise ValueError(f"cannot place {text[:3]} on a numeric axis")


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
    """Mean of ``y`` (over seeds and any other rows) at each value of ``x``, one line per ``hue``."""
    rows = table.to_pylist() if isinstance(table, pa.Table) else list(table)
    if ax is None:
        _, ax = plt.subplots(figsize=(5.2, 3.8), layout="constrained")
    groups: dict[str, dict[Any, list[float]]] = {}
    for r in rows:
        groups.setdefault(str(r[hue]), {}).setdefault(r[x], []).append(r[y])
    x_unit = ""
    for i, (label, by_x) in enumerate(groups.items()):
        xs, x_unit = numeric_axis(by_x)
        order = sorted(range(len(xs)), key=lambda j: xs[j])
        stats = [mean_and_error(v, errors) for v in by_x.values()]
        ax.errorbar(
            [xs[j] for j in order],
            [stats[j][0] for j in order],
            yerr=None if errors == "none" else [stats[j][1] for j in order],
            marker=MARKERS[i % len(MARKERS)],
            markersize=5,
            capsize=3,
            linewidth=1.4,
            label=label,
        )
    ax.set_xlabel(xlabel or (f"{x} ({x_unit})" if x_unit else x))
    ax.set_ylabel(ylabel or LABELS.get(y, y))
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(frameon=False)
    return ax.figure


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
    """One figure per metric (and flow) of a sweep's store, in ``out/plots``."""
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
    other_axes = [a for a in axes if a != x]
    skip = {*META_COLUMNS, *axes, "flow", "kind"}
    numeric = [c for c in table.column_names if c not in skip and pa.types.is_integer(table.schema.field(c).type)] + [
        c for c in table.column_names if c not in skip and pa.types.is_floating(table.schema.field(c).type)
    ]
    _check_known("metric", metrics, numeric)
    chosen = [m for m in numeric if metrics is None or m in metrics]
    rows = table.to_pylist()
    flow_names = sorted({r["flow"] for r in rows}) if "flow" in table.column_names else [None]
    _check_known("flow", flows, [f for f in flow_names if f is not None])
    paths: list[Path] = []
    for flow in flow_names:
        if flows and flow not in flows:
            continue
        subset = [r for r in rows if flow is None or r["flow"] == flow]
        for r in subset:
            r["_line"] = " ".join([r["variant"], *(f"{a}={r[a]}" for a in other_axes)])
        for metric in chosen:
            title = None if flow is None else f"flow {flow}"
            fig = plot_sweep(subset, x, metric, hue="_line", errors=kind, title=title)
            name = metric if flow is None else f"{flow}-{metric}"
            paths += save(fig, Path(out) / "plots" / name, formats)
    return paths


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
        _, ax = plt.subplots(figsize=(6, 3.8), layout="constrained")
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
    ax.legend(frameon=False)
    return ax.figure


def plot_queue(results: Results, link: str | None = None, *, ax: Any = None) -> Any:
    """Queue occupancy (packets) of every traced link over time."""
    rows = results.queue_traces.to_pylist()
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.8), layout="constrained")
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
    ax.legend(frameon=False)
    return ax.figure
