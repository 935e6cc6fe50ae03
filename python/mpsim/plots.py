"""Figures in the style of the papers: a metric's mean with error bars against the swept parameter, one
line per variant (or, without a swept parameter, one point per variant); a time series' mean over seeds with
a band; cwnd, queue, sequence and throughput time series of one run. Matplotlib with the Agg backend (unless
``MPLBACKEND`` names another, as a Jupyter kernel does for its inline figures); every figure is saved as PNG
and SVG, its title and caption (what the bars are, from how many runs) in the files' metadata.

Labels say what a column is and its unit: a metric from the suffix of its name (``fct_s``: seconds,
``goodput_mbps``: Mbit/s), a swept scenario field from its path (``topology.per_path.0.loss``: "path 1
loss") and from the values' units as :mod:`mpsim.units` reads them (``"0.5%"``, ``"47pkt"``, ``"30ms"``),
or, for bare numbers, from the type the scenario model gives the field (:func:`field_kinds`).
"""

from __future__ import annotations

import functools
import math
import os
import textwrap
import typing
import weakref
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import matplotlib

if not os.environ.get("MPLBACKEND"):
    matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pyarrow as pa
from matplotlib.lines import Line2D

from mpsim import __version__, units
from mpsim._core import ConfigError
from mpsim.engine import Results
from mpsim.errors import did_you_mean
from mpsim.series import subflow_names
from mpsim.store import META_COLUMNS, Point, RunStore, identical_seeds, point_of

__all__ = [
    "axis_label",
    "caption",
    "column_label",
    "describe",
    "field_kinds",
    "mean_and_error",
    "numeric_axis",
    "outside_legend",
    "plot_cwnd",
    "plot_queue",
    "plot_run",
    "plot_sequence",
    "plot_series",
    "plot_store",
    "plot_sweep",
    "plot_throughput",
    "save",
    "subflow_names",
]

ErrorKind = Literal["ci95", "std", "none"]

LABELS = {
    "fct_s": "flow completion time (s)",
    "retransmissions": "retransmissions (packets)",
    "rto_count": "retransmission timeouts",
    "sum_cwnd_pkts": "sum of cwnd (packets)",
    "goodput_mbps": "goodput (Mbit/s)",
    "sending_rate_mbps": "sending rate (Mbit/s)",
    "time_s": "time (s)",
    "completion_time": "completion time (s)",
}
"""Labels of the default extractor's columns (:func:`mpsim.sweep.flow_metrics`) and of the time series'
(:func:`mpsim.series.throughput`); any other column is named by :func:`column_label`'s rules."""

UNIT_SUFFIXES = (
    ("_mbps", "Mbit/s"),
    ("_kbps", "kbit/s"),
    ("_bps", "bit/s"),
    ("_ms", "ms"),
    ("_us", "µs"),
    ("_ns", "ns"),
    ("_s", "s"),
    ("_pkts", "packets"),
    ("_segments", "segments"),
    ("_bytes", "bytes"),
    ("_kb", "KB"),
    ("_mb", "MB"),
    ("_pct", "%"),
    ("_percent", "%"),
)
"""A column's unit from the end of its name, as the project names its quantities (``rate_bps``, ``fct_s``)."""

WORDS = {
    "mptcp": "MPTCP",
    "tcp": "TCP",
    "udp": "UDP",
    "rtt": "RTT",
    "srtt": "SRTT",
    "rto": "RTO",
    "fct": "completion time",
    "cc": "congestion control",
    "lia": "LIA",
    "olia": "OLIA",
    "balia": "BALIA",
    "reno": "Reno",
    "cubic": "CUBIC",
    "css": "CSS",
    "lisa": "LISA",
    "gsam": "GSAM",
    "ss": "slow start",
    "ecn": "ECN",
    "iw": "initial window",
}
"""How a word of a column's name reads in a label: the papers' acronyms in capitals."""

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
"""Line styles that tell the values of a second grouping apart when colour tells the first."""

LEGEND_WIDTH = 34
"""Characters a line of a legend's title holds before it wraps: the legend, beside the axes, stays narrow."""

CATEGORY_LABEL_CHARS = 50
"""Characters the tick labels of a categorical x axis may hold together (two more each for the space between)
before they are slanted: about what the axes of a 6.4-inch figure, its legend beside them, hold in a row.
Nine variants named "MPTCP LIA", "WiFi CUBIC", … would run into each other."""

LOG_SPAN = 100.0
"""Swept values whose largest is at least this many times their smallest (all positive) go on a log x axis:
file sizes from 10 KB to 10 MB, losses from 0.01 % to 5 %."""

LOG_SPAN_Y = 1000.0
"""Means whose largest is at least this many times their smallest (all positive) go on a log y axis: over
fewer decades a linear axis shows the differences between variants better."""

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

_METADATA: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()
"""Each drawn figure's title and caption, which :func:`save` writes into its files."""


def caption(fig: Any) -> dict[str, str]:
    """The title and caption (``{"Title": ..., "Description": ...}``) :func:`save` writes into ``fig``'s files."""
    return dict(_METADATA.get(fig, {}))


def describe(fig: Any, title: str, description: str) -> None:
    """Sets the title and caption :func:`save` writes into ``fig``'s files."""
    _METADATA[fig] = {"Title": title, "Description": description}


def mean_and_error(values: Sequence[float], kind: ErrorKind = "ci95") -> tuple[float, float]:
    """Mean and half-width of the error bar: sample std, or the 95 % Student-t confidence interval (NaN,
    no bar, with fewer than :data:`MIN_RUNS_FOR_CI` values)."""
    xs = finite_values(values)
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


def finite_values(values: Iterable[Any]) -> list[float]:
    """The values that are numbers: None and NaN left out."""
    return [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


def _percent(text: str) -> float | None:
    stripped = text.strip()
    return float(stripped[:-1]) if stripped.endswith("%") else None


def numeric_axis(values: Iterable[Any]) -> tuple[list[float], str]:
    """Axis values as numbers and their unit: ``"20pkt"`` → 20 (packets), ``"280KB"`` → 280 (KB),
    ``"30ms"`` → 30 (ms), ``"5Mbps"`` → 5 (Mbit/s), ``"0.5%"`` → 0.5 (%); plain numbers as they are."""
    vals = list(values)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals):
        return [float(v) for v in vals], ""
    text = [str(v) for v in vals]
    attempts: list[tuple[str, Any]] = [
        ("", float),
        ("%", _percent),
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


def column_label(name: str, unit: str = "") -> str:
    """A column's name as a label with its unit: ``fct_s`` → "flow completion time (s)",
    ``mptcp_over_reno`` → "MPTCP over Reno", ``queue_delay_ms`` → "queue delay (ms)"; ``unit`` when the
    name has none."""
    if name in LABELS and not unit:
        return LABELS[name]
    for suffix, suffix_unit in UNIT_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            name, unit = name[: -len(suffix)], unit or suffix_unit
            break
    words = " ".join(WORDS.get(w.lower(), w) for w in name.replace("-", "_").split("_") if w)
    return f"{words} ({unit})" if unit else words


def axis_label(path: str, unit: str = "") -> str:
    """A swept scenario field as a label: ``topology.per_path.0.loss`` → "path 1 loss",
    ``flows.short.size`` → "size of flow short", ``topology.buffer`` → "buffer"; with ``unit`` in brackets."""
    parts = path.split(".")
    if parts[0] == "topology" and len(parts) > 1:
        parts = parts[1:]
    where: list[str] = []
    i = 0
    while i < len(parts) - 1:
        part, following = parts[i], parts[i + 1]
        if part in ("per_path", "paths") and following.isdigit():
            where.append(f"path {int(following) + 1}")
        elif part == "flows":
            where.append(f"of flow {following}")
        elif part == "links":
            where.append(f"of link {following}")
        elif following.isdigit():
            where.append(f"{column_label(part)} {int(following) + 1}")
        else:
            where.append(column_label(part))
            i += 1
            continue
        i += 2
    leaf = column_label(parts[-1]) if i < len(parts) else ""
    before = [w for w in where if not w.startswith("of ")]
    after = [w for w in where if w.startswith("of ")]
    words = " ".join([*before, leaf, *after]).strip()
    return f"{words} ({unit})" if unit else words


BARE_NUMBER_UNITS: dict[str, tuple[str, float]] = {
    "probability": ("%", 100.0),
    "buffer": ("packets", 1.0),
}
"""How a bare number of each kind of scenario field that takes one reads (a fraction, packets), and the unit
and factor an axis shows it in; a time, rate or size needs its unit (a bare one is refused)."""


@functools.cache
def field_kinds() -> dict[str, str]:
    """The kind of quantity (``buffer``, ``probability``) of every field of the scenario model that takes a bare
    number, by its name, from the field's type (:mod:`mpsim._types`); a name whose fields differ in kind is
    left out."""
    import pydantic

    from mpsim import _types, scenario, topologies

    types = (
        (_types.BufferSize, "buffer"),
        (_types.LossProbability, "probability"),
        (_types.Probability, "probability"),
        (topologies.Loss, "probability"),
    )
    found: dict[str, set[str]] = {}
    for module in (scenario, topologies):
        for model in vars(module).values():
            if not (isinstance(model, type) and issubclass(model, pydantic.BaseModel)):
                continue
            for name, hint in typing.get_type_hints(model, include_extras=True).items():
                for candidate in (hint, *typing.get_args(hint)):
                    found.setdefault(name, set()).update(kind for t, kind in types if candidate == t)
    return {name: next(iter(kinds)) for name, kinds in found.items() if len(kinds) == 1}


def _x_positions(values: Sequence[Any], column: str = "") -> tuple[dict[Any, float], str, list[Any] | None]:
    """Where each x value goes: numbers (with their unit), or, for categories, 0, 1, 2, … in order of
    first appearance (then the categories are returned for the tick labels). Bare numbers of a scenario
    field (a sweep built in Python) are shown in the unit of the field's kind (:func:`field_kinds`): a loss
    of 0.01 as 1 %."""
    distinct = list(dict.fromkeys(values))
    try:
        xs, unit = numeric_axis(distinct)
    except ValueError:
        return {v: float(i) for i, v in enumerate(distinct)}, "", distinct
    kind = field_kinds().get(column.rsplit(".", 1)[-1]) if "." in column else None
    if not unit and kind is not None:
        unit, factor = BARE_NUMBER_UNITS[kind]
        xs = [x * factor for x in xs]
    return dict(zip(distinct, xs, strict=True)), unit, None


def _spans_decades(values: Iterable[float], span: float = LOG_SPAN) -> bool:
    xs = [v for v in values if math.isfinite(v)]
    return bool(xs) and min(xs) > 0 and max(xs) / min(xs) >= span


def _n_text(counts: Sequence[int]) -> str:
    return f"n = {min(counts)}" if min(counts) == max(counts) else f"n = {min(counts)}–{max(counts)}"


def _line_of(row: Mapping[str, Any], hue: str, style: str | None) -> tuple[str, str]:
    """The line a row belongs to: its colour's value and its line style's (empty without ``style``)."""
    return str(row[hue]), str(row[style]) if style else ""


def _styles(rows: Sequence[Mapping[str, Any]], hue: str, style: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """A colour per value of ``hue`` and a line style and marker per value of ``style``, in order of first
    appearance."""
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    hues = list(dict.fromkeys(str(r[hue]) for r in rows))
    styles = list(dict.fromkeys(str(r[style]) for r in rows)) if style else []
    color_of = {h: colors[i % len(colors)] for i, h in enumerate(hues)}
    style_of = {s: (LINESTYLES[i % len(LINESTYLES)], MARKERS[i % len(MARKERS)]) for i, s in enumerate(styles)}
    return color_of, style_of


def _legends(
    ax: Any,
    color_of: Mapping[str, Any],
    style_of: Mapping[str, Any],
    title: str,
    style_title: str | None,
    *,
    markers: bool,
) -> None:
    """One legend beside the axes, titled with what the lines are and from how many runs: an entry per
    colour and, when a second grouping has line styles, under the heading ``style_title`` an entry per style
    (3 + 3 entries, not 9)."""
    if not style_of:
        outside_legend(ax, title=title)
        return
    handles = [
        Line2D([], [], color=c, marker="o" if markers else None, linestyle="-", label=h) for h, c in color_of.items()
    ]
    handles.append(Line2D([], [], linestyle="none", label=f"{style_title}:"))
    handles += [
        Line2D([], [], color="0.3", linestyle=ls, marker=m if markers else None, label=s)
        for s, (ls, m) in style_of.items()
    ]
    outside_legend(ax, title=title, handles=handles)


def plot_sweep(
    table: pa.Table | Any,
    x: str,
    y: str,
    *,
    hue: str = "variant",
    style: str | None = None,
    errors: ErrorKind = "ci95",
    ax: Any = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    note: str | None = None,
    style_title: str | None = None,
    series: bool = False,
) -> Any:
    """Mean of ``y`` (over seeds and any other rows) at each value of ``x``, one line per ``hue`` (its
    colour) and ``style`` (its line style and marker); with ``series``, a time series (:func:`plot_series`).

    The legend names the error bars and the number of values behind each mean (and ``note``, if given); a
    95 % confidence interval is not drawn from fewer than 3 values (the legend says so); bars of a quantity
    that is never negative (a count, a time) stop at zero. A categorical ``x`` (text, or the variants
    themselves) is spaced evenly in order of first appearance, its points not joined by lines and set a
    little apart per line; a numeric ``x`` over two decades (:data:`LOG_SPAN`) or means over three
    (:data:`LOG_SPAN_Y`) go on a log axis. Groups without a finite value are left out, and with none at all
    the axes say so.
    """
    rows = table.to_pylist() if isinstance(table, pa.Table) else list(table)
    if ax is None:
        _, ax = plt.subplots(figsize=(7 if series else 6.4, 3.8), layout="constrained")
    groups: dict[tuple[str, str], dict[Any, list[float]]] = {}
    for r in rows:
        groups.setdefault(_line_of(r, hue, style), {}).setdefault(r[x], []).append(r[y])
    groups = {k: g for k, g in groups.items() if any(finite_values(v) for v in g.values())}
    if not groups:
        ax.text(0.5, 0.5, f"no finite value of {y}", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return ax.figure
    color_of, style_of = _styles([r for r in rows if _line_of(r, hue, style) in groups], hue, style)
    if series:
        position, x_unit, categories = {v: float(v) for g in groups.values() for v in g}, "", None
    else:
        position, x_unit, categories = _x_positions([v for g in groups.values() for v in g], x)
    never_negative = all(v >= 0 for g in groups.values() for vs in g.values() for v in finite_values(vs))
    # Points of several lines at one category are set apart, so that their bars do not hide each other; where
    # each category has one line (the variants compared without an axis), every point stays on its tick.
    shared = categories is not None and any(sum(v in g for g in groups.values()) > 1 for v in categories)
    dodge = 0.5 / len(groups) if shared else 0.0
    counts: list[int] = []
    all_means: list[float] = []
    no_ci = banded = False
    for i, ((h, st), by_x) in enumerate(groups.items()):
        offset = (i - (len(groups) - 1) / 2) * dodge
        points = sorted(
            (position[v] + offset, *mean_and_error(ys, errors), len(finite_values(ys)))
            for v, ys in by_x.items()
            if finite_values(ys)
        )
        xs = [p[0] for p in points]
        means = [p[1] for p in points]
        halves = [0.0 if math.isnan(p[2]) else p[2] for p in points]
        no_ci |= any(math.isnan(p[2]) for p in points)
        counts += [p[3] for p in points]
        all_means += means
        low = [min(e, m) if never_negative else e for m, e in zip(means, halves, strict=True)]
        linestyle, marker = style_of.get(st, ("-", MARKERS[i % len(MARKERS)]))
        label = f"{h}, {st}" if st else h
        if series:
            ax.plot(xs, means, color=color_of[h], linestyle=linestyle, linewidth=1.3, label=label)
            if errors != "none" and any(e > 0 for e in halves):
                lows = [m - e for m, e in zip(means, low, strict=True)]
                highs = [m + e for m, e in zip(means, halves, strict=True)]
                ax.fill_between(xs, lows, highs, color=color_of[h], alpha=0.2, linewidth=0)
                banded = True
            continue
        ax.errorbar(
            xs,
            means,
            yerr=None if errors == "none" else [low, halves],
            color=color_of[h],
            marker=marker,
            linestyle="none" if categories is not None else linestyle,
            markersize=5,
            capsize=3,
            linewidth=1.4,
            label=label,
        )
    if categories is not None:
        labels = [str(c) for c in categories]
        if sum(len(label) + 2 for label in labels) > CATEGORY_LABEL_CHARS:
            ax.set_xticks(range(len(categories)), labels, rotation=30, ha="right", rotation_mode="anchor")
        else:
            ax.set_xticks(range(len(categories)), labels)
        ax.set_xlim(-0.5, len(categories) - 0.5)
    elif not series and _spans_decades(position.values()):
        ax.set_xscale("log")
        ticks = sorted(set(position.values()))
        if len(ticks) <= 12:
            ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
            ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    if _spans_decades(all_means, LOG_SPAN_Y):
        ax.set_yscale("log")
    elif series and never_negative:
        ax.set_ylim(bottom=0)
    x_text = xlabel or (LABELS.get(x) or axis_label(x, x_unit) if x != "variant" else "")
    y_text = ylabel or column_label(y)
    ax.set_xlabel(x_text)
    ax.set_ylabel(y_text)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    n_text = _n_text(counts)
    if series:
        band = f"band: {BAR_NAMES[errors]}" if banded else "no band"
        if not banded and errors == "ci95" and max(counts) > 1:
            band += f" (n < {MIN_RUNS_FOR_CI})"
        legend_title = "one run" if max(counts) == 1 else f"mean over runs, {n_text}\n{band}"
        what, summary = f"{y_text} over time", f"mean over runs ({n_text}), {band}"
    else:
        legend_title = (
            "one run per point" if max(counts) == 1 else f"mean, {BAR_NAMES[errors]}\n{n_text} runs per point"
        )
        if errors == "ci95" and no_ci and max(counts) > 1:
            legend_title += f"\nno CI where n < {MIN_RUNS_FOR_CI}"
        what = f"{y_text} against {x_text}" if x_text else f"{y_text} by variant"
        summary = f"mean over runs, error bars {BAR_NAMES[errors]}, {n_text} runs per point"
    if note:
        legend_title += "\n" + textwrap.fill(note, LEGEND_WIDTH)
    _legends(ax, color_of, style_of, legend_title, style_title, markers=not series)
    describe(
        ax.figure,
        f"{title}: {what}" if title else what,
        f"{y_text} against {x_text}: {summary}"
        + (f" ({note})" if note else "")
        + "; lines: "
        + "; ".join(f"{h}, {st}" if st else h for h, st in groups),
    )
    return ax.figure


def plot_series(table: pa.Table | Any, t: str, y: str, **options: Any) -> Any:
    """A time series over seeds: at each time ``t`` (a bin, the same in every run), the mean of ``y`` as a
    line and its 95 % confidence interval (or ± 1 std) as a band, one line per ``hue`` (colour) and
    ``style`` (line style); ``options`` as :func:`plot_sweep` takes them. The legend says what the band is
    and over how many runs (n); no band is drawn from fewer than 3 runs with ``ci95``, nor from one run."""
    return plot_sweep(table, t, y, series=True, **options)


def outside_legend(ax: Any, title: str | None = None, handles: Sequence[Any] | None = None) -> None:
    """The legend to the right of the axes, where it cannot hide a curve."""
    extra = {} if handles is None else {"handles": list(handles)}
    ax.legend(
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        frameon=False,
        title=title,
        fontsize=8,
        title_fontsize=8,
        alignment="left",
        **extra,
    )


def save(fig: Any, path: str | Path, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Saves ``fig`` as ``path.png`` and ``path.svg`` (or the formats given) and closes it. PNG and SVG
    files carry the figure's title and caption (:func:`caption`) in their metadata."""
    base = Path(path)
    base.parent.mkdir(parents=True, exist_ok=True)
    described = {"Software": f"mpsim {__version__}", **caption(fig)}
    out = []
    for fmt in formats:
        p = base.parent / f"{base.name}.{fmt}"
        if fmt == "svg":
            metadata: dict[str, str] | None = {k: v for k, v in described.items() if k != "Software"}
        else:
            metadata = described if fmt == "png" else None
        fig.savefig(p, dpi=150, metadata=metadata)
        out.append(p)
    plt.close(fig)
    return out


TIME_COLUMN = "time_s"
"""A store whose rows have this column holds time series (:func:`mpsim.series.throughput`): each is drawn
against it, its mean over seeds with a band."""


def _one_run_where_seeds_agree(
    rows: list[dict[str, Any]], axes: Sequence[str]
) -> tuple[list[dict[str, Any]], set[Point], str | None]:
    """The rows with one seed kept at each point whose seeds all gave the same rows (a scenario that draws
    nothing from its seed: one measurement, not several; :func:`~mpsim.store.identical_seeds`), those points,
    and the legend's note on them."""
    identical, keep = identical_seeds(rows, axes)
    if not identical:
        return rows, set(), None
    seeds = len({r["seed"] for r in rows})
    where = "" if len(identical) == len({point_of(r, axes) for r in rows}) else " at some points"
    kept_rows = [r for r, kept in zip(rows, keep, strict=True) if kept]
    return kept_rows, set(identical), f"the {seeds} seeds gave identical results{where}: n = 1"


def plot_store(
    out: str | Path,
    *,
    flows: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    x: str | None = None,
    errors: ErrorKind | str = "ci95",
    formats: Sequence[str] = ("png", "svg"),
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
) -> list[Path]:
    """One figure per metric (and flow) of a sweep's store, in ``out/plots``.

    Against the first axis (or ``x``), one line per variant and value of every other axis and of every
    categorical column the rows keep apart (a custom extractor's ``path``, say), so that no two different
    things are averaged: colour tells the variants apart, line style the rest. A sweep without an axis
    compares its variants: one point with its error bar per variant. A store of time series (rows with
    ``time_s``) draws each series' mean over seeds with a band. A metric without a finite value is not
    drawn. A 95 % confidence interval needs at least 3 runs at every point: with fewer, a
    :class:`ConfigError` says so; a point whose seeds all gave the same rows counts as one run (n = 1, no
    error bar), and the legend says so.
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
    series = TIME_COLUMN in table.column_names
    if series and x is not None:
        raise ConfigError(f"x: the rows of {str(out)!r} are time series, drawn against {TIME_COLUMN}; leave out --x")
    if x is not None and x not in axes:
        raise ConfigError(f"x: unknown axis {x!r}{did_you_mean(x, axes)} (allowed: {', '.join(axes) or 'none'})")
    if ylabel is not None and (metrics is None or len(metrics) != 1):
        raise ConfigError("--ylabel: labels one metric's axis; name that metric with --metric")
    x = TIME_COLUMN if series else x or (axes[0] if axes else "variant")
    # The axes, and their values in base units (``topology.buffer_pkts``), are no metrics.
    in_base_units = {c for c in table.column_names for a in axes if c.startswith(f"{a}_")}
    skip = {*META_COLUMNS, *axes, *in_base_units, "flow", TIME_COLUMN}
    schema = table.schema
    numeric = [c for c in table.column_names if c not in skip and pa.types.is_integer(schema.field(c).type)] + [
        c for c in table.column_names if c not in skip and pa.types.is_floating(schema.field(c).type)
    ]
    rows, same, note = _one_run_where_seeds_agree(table.to_pylist(), axes)
    _check_known("metric", metrics, numeric)
    chosen = [m for m in numeric if metrics is None or m in metrics]
    flow_names = sorted({r["flow"] for r in rows}) if "flow" in table.column_names else [None]
    _check_known("flow", flows, [f for f in flow_names if f is not None])
    paths: list[Path] = []
    for flow in flow_names:
        if flows and flow not in flows:
            continue
        subset = [r for r in rows if flow is None or r["flow"] == flow]
        hue, style, style_title = _groupings(subset, x, [a for a in axes if a != x], skip | set(numeric))
        if kind == "ci95":
            _check_runs_for_ci(subset, x, [hue, style], same, axes, out)
        for metric in chosen:
            if not finite_values(r[metric] for r in subset):
                continue  # nothing to draw: no empty figure
            figure_title = title or (None if flow is None else f"flow {flow}")
            fig = plot_sweep(
                subset,
                x,
                metric,
                series=series,
                hue=hue,
                style=style,
                errors=kind,
                title=figure_title,
                xlabel=xlabel,
                ylabel=ylabel,
                note=note,
                style_title=style_title,
            )
            name = metric if flow is None else f"{flow}-{metric}"
            paths += save(fig, Path(out) / "plots" / name, formats)
    if not paths:
        raise ConfigError(f"metric: no finite value of {', '.join(chosen) or 'any metric'} to plot in {str(out)!r}")
    return paths


def _groupings(
    rows: list[dict[str, Any]], x: str, other_axes: Sequence[str], not_categories: set[str]
) -> tuple[str, str | None, str | None]:
    """What tells the lines of a figure apart: the variants (when there are several), the other axes' values
    and every text column whose value differs between rows (a custom extractor's ``path``). The first of these
    is the lines' colour, the rest together their line style. Each row gets ``_hue`` and ``_style``;
    returns those column names and the style legend's title."""
    columns = [c for c in rows[0] if c not in not_categories and c != x and not c.startswith("_")]
    categorical = [c for c in columns if len({str(r[c]) for r in rows}) > 1]
    parts = ["variant"] if len({r["variant"] for r in rows}) > 1 or x == "variant" else []
    parts += [a for a in other_axes if len({str(r[a]) for r in rows}) > 1] + categorical
    if not parts:
        parts = ["variant"]

    def text(r: Mapping[str, Any], columns: Sequence[str], named: bool) -> str:
        return ", ".join(f"{_short_label(c)} = {r[c]}" if named and c != "variant" else str(r[c]) for c in columns)

    for r in rows:
        r["_hue"] = text(r, parts[:1], named=True)
        # A single grouping by style is named once, in the legend's heading.
        r["_style"] = text(r, parts[1:], named=len(parts) > 2)
    if len(parts) == 1:
        return "_hue", None, None
    return "_hue", "_style", ", ".join(_short_label(c) for c in parts[1:])


def _short_label(column: str) -> str:
    """A column or axis named in a legend: its label without the unit."""
    return axis_label(column) if "." in column else column_label(column).split(" (")[0]


def _check_runs_for_ci(
    rows: Sequence[Mapping[str, Any]],
    x: str,
    lines: Sequence[str | None],
    same: set[Point],
    axes: Sequence[str],
    out: str | Path,
) -> None:
    """Refuses 95 % confidence intervals drawn from fewer than 3 runs at any point (but at a point whose
    seeds all gave the same results: that is one run, drawn without an interval, and the legend says so)."""
    runs: dict[tuple[Any, ...], set[Any]] = {}
    for r in rows:
        if point_of(r, axes) in same:
            continue
        runs.setdefault((*(r[c] for c in lines if c), str(r[x])), set()).add(r["seed"])
    if not runs:
        return
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


def _subflow_label(names: Mapping[tuple[str, int], str], flow: str, subflow: int | None) -> str:
    """A flow as a legend names it: a TCP flow by its name, an MPTCP subflow by its connection and addresses."""
    if subflow is None or (flow, subflow) not in names:
        return flow
    return f"{flow} via {names[flow, subflow]}"


def plot_cwnd(results: Results, flow: str | None = None, *, ax: Any = None) -> Any:
    """Congestion window (KB) of every traced flow and subflow over time; a subflow named by its addresses."""
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
    names = subflow_names(results)
    for (name, sub), (xs, ys) in lines.items():
        ax.step(xs, ys, where="post", linewidth=1.2, label=_subflow_label(names, name, sub))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (KB)")
    ax.grid(True, alpha=0.3)
    outside_legend(ax, title=f"seed {results.seed}")
    describe(ax.figure, "congestion window over time", _run_caption(results, "cwnd (KB) at every ACK", lines))
    return ax.figure


def _run_caption(results: Results, what: str, lines: Iterable[Any]) -> str:
    return f"{what}, one run (seed {results.seed}); lines: " + "; ".join(
        " ".join(str(p) for p in line if p is not None) if isinstance(line, tuple) else str(line) for line in lines
    )


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
        ax.step(xs, ys, where="post", linewidth=1.2, label=f"link {name}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    outside_legend(ax, title=f"seed {results.seed}")
    describe(ax.figure, "queue occupancy over time", _run_caption(results, "queue (packets)", lines))
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
    names = subflow_names(results)
    for i, ((name, sub), d) in enumerate(subflows.items()):
        c = colors[i % len(colors)]
        label = _subflow_label(names, name, sub)
        ax.plot(d["t"], d["seq"], ".", color=c, markersize=2.5, label=f"{label}: segment sent")
        if d["rt"]:
            ax.plot(d["rt"], d["rseq"], "x", color=c, markersize=5, label=f"{label}: retransmission")
        ax.step(d["at"], d["ack"], where="post", color=c, linewidth=0.9, alpha=0.7, label=f"{label}: ACK (SND.UNA)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("subflow sequence number (KB)")
    ax.grid(True, alpha=0.3)
    outside_legend(ax, title=f"seed {results.seed}")
    describe(
        ax.figure,
        "sequence and ACK progress",
        _run_caption(results, "segments sent and SND.UNA (KB of each subflow's sequence space)", subflows),
    )
    return ax.figure


def _throughput_rows(results: Results, flow: str | None, column: str) -> list[dict[str, Any]]:
    """One row per bin of each flow, connection and subflow (a subflow named by its addresses): ``line``,
    ``subflow`` (whether the line is an MPTCP subflow's), ``start_s``, ``end_s``, ``rate_mbps``."""
    names = subflow_names(results)
    out = []
    for r in results.throughput.to_pylist():
        if flow is not None and r["flow"] != flow:
            continue
        if r["kind"] == "mptcp_subflow":
            line = _subflow_label(names, r["flow"], r["subflow"])
        else:
            line = f"{r['flow']} ({r['kind']})"
        subflow = r["kind"] == "mptcp_subflow"
        out.append(
            {
                "line": line,
                "subflow": subflow,
                "start_s": r["start_s"],
                "end_s": r["end_s"],
                "rate_mbps": r[column] / 1e6,
            }
        )
    return out


def plot_throughput(
    results: Results | Sequence[Results], flow: str | None = None, *, sent: bool = False, ax: Any = None
) -> Any:
    """Throughput over time (Mbit/s) of every flow, MPTCP connection and subflow (named by its addresses),
    one step per bin of the windowed-throughput table: goodput (bytes delivered in order), or with ``sent``
    the bytes sent. Several runs (seeds) of one scenario: each line is their mean, with its 95 % confidence
    interval as a band (:func:`plot_series`); runs that gave the same table are one run (n = 1, no band), and
    the legend says so. Needs ``[throughput]``."""
    column = "sent_bps" if sent else "delivered_bps"
    what = ("sending rate" if sent else "goodput") + " (Mbit/s)"
    if not isinstance(results, Results):
        runs = list(results)
        rows = [
            {**r, "variant": "", "seed": i, "time_s": (r["start_s"] + r["end_s"]) / 2}
            for i, res in enumerate(runs)
            for r in _throughput_rows(res, flow, column)
        ]
        if not rows:
            raise ValueError("no throughput table: set [throughput] interval in the scenario")
        rows, _, note = _one_run_where_seeds_agree(rows, [])
        errors: ErrorKind = "ci95" if len(runs) >= MIN_RUNS_FOR_CI else "std"
        return plot_series(rows, "time_s", "rate_mbps", hue="line", errors=errors, ax=ax, ylabel=what, note=note)
    rows = _throughput_rows(results, flow, column)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
    lines: dict[str, tuple[list[float], list[float]]] = {}
    dashed = {r["line"] for r in rows if r["subflow"]}
    for r in rows:
        xs, ys = lines.setdefault(r["line"], ([], []))
        if not xs:
            xs.append(r["start_s"])
            ys.append(r["rate_mbps"])
        # Each bin's rate holds from its start to its end.
        xs.append(r["end_s"])
        ys.append(r["rate_mbps"])
    if not lines:
        raise ValueError("no throughput table: set [throughput] interval in the scenario")
    for label, (xs, ys) in lines.items():
        style = "--" if label in dashed else "-"
        ax.step(xs, ys, where="pre", linestyle=style, linewidth=1.2, label=label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(what)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    outside_legend(ax, title=f"seed {results.seed}")
    describe(ax.figure, f"{what.split(' (')[0]} over time", _run_caption(results, f"{what} per bin", lines))
    return ax.figure


def plot_run(
    results: Results,
    out: str | Path,
    formats: Sequence[str] = ("png", "svg"),
    *,
    title: str | None = None,
    xlabel: str | None = None,
) -> list[Path]:
    """Every time-series figure a run's traces allow, in ``out``: ``cwnd``, ``queue``, ``sequence``,
    ``throughput`` (each with ``title`` and ``xlabel``, if given)."""
    drawn: list[Path] = []
    for name, draw, table in (
        ("cwnd", plot_cwnd, results.tcp_traces),
        ("queue", plot_queue, results.queue_traces),
        ("sequence", plot_sequence, results.segment_traces),
        ("throughput", plot_throughput, results.throughput),
    ):
        if table.num_rows:
            fig = draw(results)
            if title:
                fig.axes[0].set_title(title)
                _METADATA[fig]["Title"] = title
            if xlabel:
                fig.axes[0].set_xlabel(xlabel)
            drawn += save(fig, Path(out) / name, formats)
    if not drawn:
        raise ConfigError(
            "the run traced nothing to plot: trace flows (trace = true or [trace] flows), queues ([trace] queues) "
            "or segments ([trace] segments), or ask for [throughput]"
        )
    return drawn
