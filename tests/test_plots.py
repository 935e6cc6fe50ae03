"""Honest figures: error bars that say what they are and from how many runs, no confidence interval from
2 runs, bars of counts and times that stop at zero, one line per categorical value, categorical x axes,
no empty figures, legends beside the data; and the time series of one run."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pyarrow as pa
import pytest

import mpsim
from mpsim import plots
from mpsim.scenario import read_toml
from mpsim.store import RunStore


def make_store(out: Path, rows: list[dict[str, Any]], axes: list[str]) -> None:
    """A sweep's store holding ``rows``, one run per (variant, axis values, seed)."""
    store = RunStore(out)
    store.prepare()
    points: dict[str, dict[str, Any]] = {}
    by_key: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        key = "k" + "-".join(str(r[c]) for c in ("variant", *axes, "seed"))
        points[key] = {"key": key, "variant": r["variant"], "seed": r["seed"], "axes": {a: r[a] for a in axes}}
        by_key.setdefault(key, []).append({c: v for c, v in r.items() if c not in ("variant", "seed", *axes)})
    for key, kept in by_key.items():
        store.write(key, pa.Table.from_pylist(kept))
    store.write_manifest(
        {"axes": axes, "variants": sorted({r["variant"] for r in rows}), "points": list(points.values())}
    )


def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures plot_store saves, kept open for the test to look at."""
    figures: list[Any] = []

    def keep(fig: Any, path: Any, formats: Any = ("png",)) -> list[Path]:
        figures.append(fig)
        return [Path(f"{path}.png")]

    monkeypatch.setattr(plots, "save", keep)
    return figures


def test_a_two_seed_sweep_refuses_a_confidence_interval(tmp_path: Path) -> None:
    rows = [{"variant": "LIA", "buffer": b, "seed": s, "flow": "f", "fct_s": 1.0 + s} for b in (20, 47) for s in (1, 2)]
    make_store(tmp_path, rows, ["buffer"])
    with pytest.raises(mpsim.ConfigError, match=r"at least 3 runs \(seeds\) per point.* has 2 at some points"):
        plots.plot_store(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", "plot", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "at least 3 runs" in done.stderr
    # Standard deviations say so, with n, in the legend.
    assert [p.name for p in plots.plot_store(tmp_path, errors="std", formats=("png",))] == ["f-fct_s.png"]


def test_one_line_per_categorical_value_and_legend_with_kind_and_n(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A custom extractor's rows keep two paths apart: averaging them would give neither path's rate.
    rows = [
        {"variant": v, "buffer": b, "seed": s, "flow": "f", "path": p, "goodput_mbps": rate + s / 10}
        for v in ("LIA", "OLIA")
        for b in ("20pkt", "47pkt")
        for s in (1, 2, 3)
        for p, rate in (("wifi", 10.0), ("lte", 4.0))
    ]
    make_store(tmp_path, rows, ["buffer"])
    figures = drawn(monkeypatch)
    plots.plot_store(tmp_path, metrics=["goodput_mbps"])
    (fig,) = figures
    ax = fig.axes[0]
    labels = sorted(t.get_text() for t in ax.get_legend().get_texts())
    assert labels == ["LIA path=lte", "LIA path=wifi", "OLIA path=lte", "OLIA path=wifi"]
    assert ax.get_legend().get_title().get_text() == "mean, 95 % CI (Student t), n = 3"
    # Each line's means are its own path's: 10.2 and 4.2, never their average.
    means = sorted({round(y, 6) for bars in ax.containers for y in bars.lines[0].get_ydata()})
    assert means == [4.2, 10.2]
    # The legend is outside the axes: anchored right of them.
    assert ax.get_legend().get_bbox_to_anchor().x0 > ax.get_window_extent().x1 - 1


def test_categorical_x_axis_and_no_empty_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [
        {"variant": "v", "cc": cc, "seed": s, "flow": "f", "fct_s": t + s, "goodput_mbps": math.nan}
        for cc, t in (("reno", 1.0), ("cubic", 2.0), ("olia", 3.0))
        for s in (1, 2, 3)
    ]
    make_store(tmp_path, rows, ["cc"])
    figures = drawn(monkeypatch)
    paths = plots.plot_store(tmp_path)
    # goodput_mbps is NaN everywhere: no figure for it.
    assert [p.name for p in paths] == ["f-fct_s.png"]
    ax = figures[0].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["reno", "cubic", "olia"]
    with pytest.raises(mpsim.ConfigError, match="no finite value of goodput_mbps"):
        plots.plot_store(tmp_path, metrics=["goodput_mbps"])


def test_error_bars_of_counts_stop_at_zero() -> None:
    rows = [{"variant": "v", "x": 1, "retransmissions": r} for r in (0, 0, 0, 9)]
    fig = plots.plot_sweep(rows, "x", "retransmissions", errors="std")
    ax = fig.axes[0]
    # mean 2.25, std 4.5: the bar would reach -2.25; it stops at 0 (and reaches 6.75 above).
    (segments,) = [c for c in ax.collections if len(c.get_segments()) == 1]
    (bottom, top) = sorted(y for _, y in segments.get_segments()[0])
    assert bottom == 0.0 and top == pytest.approx(6.75)
    plt.close(fig)


def test_mean_and_error_bars() -> None:
    # Sample std of 1, 2, 3 is 1; the 95 % t quantile with 2 degrees of freedom is 4.303.
    assert plots.mean_and_error([1.0, 2.0, 3.0], "std") == (2.0, 1.0)
    mean, half = plots.mean_and_error([1.0, 2.0, 3.0], "ci95")
    assert mean == 2.0 and half == pytest.approx(4.303 / 3**0.5)
    mean, half = plots.mean_and_error([5.0, 6.0], "ci95")
    assert mean == 5.5 and math.isnan(half)


def test_time_series_of_a_run(tmp_path: Path) -> None:
    scenario = Path(__file__).resolve().parents[1] / "examples" / "css_shared_bottleneck.toml"
    data = read_toml(scenario)
    data["trace"] = {"flows": ["short"], "queues": ["R1-R2"], "segments": ["short"]}
    data["throughput"] = {"interval": "1s"}
    res = mpsim.run(data)
    paths = plots.plot_run(res, tmp_path, formats=("png",))
    assert sorted(p.name for p in paths) == ["cwnd.png", "queue.png", "sequence.png", "throughput.png"]
    fig = plots.plot_throughput(res)
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert set(lines) == {"long (tcp)", "short (mptcp)", "short subflow 0", "short subflow 1", "cbr (udp)"}
    # The long flow's step line holds each 1 s bin's goodput from the bin's start to its end.
    long = [r for r in res.throughput.to_pylist() if r["flow"] == "long"]
    xs, ys = lines["long (tcp)"].get_data()
    assert list(xs) == [0.0, *(r["end_s"] for r in long)]
    assert list(ys[1:]) == pytest.approx([r["delivered_bps"] / 1e6 for r in long])
    plt.close(fig)
    fig = plots.plot_sequence(res)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "short subflow 0: segment sent" in labels and "short subflow 1: ACK (SND.UNA)" in labels
    plt.close(fig)
