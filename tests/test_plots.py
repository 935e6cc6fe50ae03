"""Honest figures: error bars that say what they are and from how many runs, no confidence interval from
2 runs, bars of counts and times that stop at zero, one line per categorical value, categorical x axes,
no empty figures, legends beside the data; variants compared without an axis; colour for the variants and
line style for the rest; labels with units; log axes over decades; seeds that gave one result counted as
one run; time series over seeds with a band; the time series of one run with subflows named by their
addresses; titles and captions in the files' metadata."""

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
    # Colour tells the variants apart, line style the paths: 2 + 2 entries under one legend.
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["LIA", "OLIA", "path:", "wifi", "lte"]
    assert ax.get_legend().get_title().get_text() == "mean, 95 % CI (Student t)\nn = 3 runs per point"
    lines = {c.get_label(): c.lines[0] for c in ax.containers}
    assert set(lines) == {"LIA, wifi", "LIA, lte", "OLIA, wifi", "OLIA, lte"}
    assert lines["LIA, wifi"].get_color() == lines["LIA, lte"].get_color() != lines["OLIA, lte"].get_color()
    assert (
        lines["LIA, wifi"].get_linestyle() == lines["OLIA, wifi"].get_linestyle() != lines["LIA, lte"].get_linestyle()
    )
    # Each line's means are its own path's: 10.2 and 4.2, never their average.
    means = sorted({round(y, 6) for bars in ax.containers for y in bars.lines[0].get_ydata()})
    assert means == [4.2, 10.2]
    # The legend is outside the axes: anchored right of them.
    assert ax.get_legend().get_bbox_to_anchor().x0 > ax.get_window_extent().x1 - 1
    assert ax.get_xlabel() == "buffer (packets)" and ax.get_ylabel() == "goodput (Mbit/s)"


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
    assert set(lines) == {"long (tcp)", "short (mptcp)", "short via S0.1→D0", "short via S0.2→D0", "cbr (udp)"}
    # The long flow's step line holds each 1 s bin's goodput from the bin's start to its end.
    long = [r for r in res.throughput.to_pylist() if r["flow"] == "long"]
    xs, ys = lines["long (tcp)"].get_data()
    assert list(xs) == [0.0, *(r["end_s"] for r in long)]
    assert list(ys[1:]) == pytest.approx([r["delivered_bps"] / 1e6 for r in long])
    plt.close(fig)
    fig = plots.plot_sequence(res)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "short via S0.1→D0: segment sent" in labels and "short via S0.2→D0: ACK (SND.UNA)" in labels
    plt.close(fig)
    fig = plots.plot_cwnd(res)
    assert {line.get_label() for line in fig.axes[0].get_lines()} == {"short via S0.1→D0", "short via S0.2→D0"}
    assert fig.axes[0].get_legend().get_title().get_text() == f"seed {res.seed}"
    plt.close(fig)


def png_text(path: Path) -> dict[str, str]:
    """The text chunks (title, caption) of a PNG file."""
    from PIL import Image

    with Image.open(path) as image:
        return dict(image.text)  # type: ignore[attr-defined]


def test_variants_without_an_axis_are_points_with_error_bars_and_the_png_says_what_they_are(tmp_path: Path) -> None:
    rows = [
        {"variant": v, "seed": s, "flow": "f", "fct_s": base + s / 10}
        for v, base in (("LIA", 1.0), ("OLIA", 2.0), ("BALIA", 3.0))
        for s in (1, 2, 3)
    ]
    make_store(tmp_path, rows, [])
    figures: list[Any] = []
    real_save = plots.save

    def keep(fig: Any, path: Any, formats: Any = ("png",)) -> list[Path]:
        figures.append(fig)
        return real_save(fig, path, ("png",))

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(plots, "save", keep)
        (png,) = plots.plot_store(tmp_path, title="three couplings")
    ax = figures[0].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["LIA", "OLIA", "BALIA"]
    # Points, not a line joining categories; each mean over its 3 runs.
    assert all(c.lines[0].get_linestyle() == "None" for c in ax.containers)
    assert [round(float(c.lines[0].get_ydata()[0]), 6) for c in ax.containers] == [1.2, 2.2, 3.2]
    # One point per category: each on its own tick, not set apart as points of several lines at one tick are.
    assert [float(c.lines[0].get_xdata()[0]) for c in ax.containers] == [0.0, 1.0, 2.0]
    assert all(t.get_rotation() == 0 for t in ax.get_xticklabels())
    assert ax.get_ylabel() == "flow completion time (s)" and ax.get_title() == "three couplings"
    text = png_text(png)
    assert text["Title"] == "three couplings: flow completion time (s) by variant"
    assert "95 % CI (Student t), n = 3 runs per point" in text["Description"]
    assert "LIA; OLIA; BALIA" in text["Description"]


def test_long_category_labels_are_slanted_and_lines_sharing_a_category_are_set_apart() -> None:
    names = ["MPTCP LIA", "MPTCP OLIA", "MPTCP BALIA", "MPTCP CUBIC", "WiFi CUBIC", "LTE CUBIC", "MPTCP BBR"]
    rows = [{"variant": v, "seed": s, "fct_s": i + s / 10} for i, v in enumerate(names) for s in (1, 2, 3)]
    fig = plots.plot_sweep(rows, "variant", "fct_s")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == names
    assert all(t.get_rotation() == 30 for t in ax.get_xticklabels())
    plt.close(fig)
    # Two variants at each of two categories: the points of one category are set apart, symmetrically.
    rows = [
        {"variant": v, "cc": cc, "seed": s, "fct_s": 1.0}
        for v in ("a", "b")
        for cc in ("reno", "cubic")
        for s in (1, 2, 3)
    ]
    fig = plots.plot_sweep(rows, "cc", "fct_s")
    xs = sorted(float(x) for c in fig.axes[0].containers for x in c.lines[0].get_xdata())
    assert xs == pytest.approx([-0.125, 0.125, 0.875, 1.125])
    plt.close(fig)


def test_a_percent_axis_is_numeric_labelled_with_its_unit_and_logarithmic_over_decades(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    losses = ["0.01%", "0.1%", "1%", "5%"]
    rows = [
        {"variant": "LIA", "topology.per_path.0.loss": p, "seed": s, "flow": "f", "retransmissions": i * 10 + s}
        for i, p in enumerate(losses)
        for s in (1, 2, 3)
    ]
    make_store(tmp_path, rows, ["topology.per_path.0.loss"])
    figures = drawn(monkeypatch)
    plots.plot_store(tmp_path)
    ax = figures[0].axes[0]
    assert ax.get_xlabel() == "path 1 loss (%)"
    assert ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.01", "0.1", "1", "5"]
    assert list(ax.containers[0].lines[0].get_xdata()) == [0.01, 0.1, 1.0, 5.0]


def test_seeds_that_gave_identical_results_count_as_one_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scenario that draws nothing from its seed gives the same rows for every seed: that is one
    measurement, not three, so no confidence interval is drawn or refused, and the legend says so."""
    rows = [
        {"variant": v, "buffer": b, "seed": s, "flow": "f", "fct_s": 1.0 + b / 100 + (v == "OLIA")}
        for v in ("LIA", "OLIA")
        for b in (20, 47, 100)
        for s in (1, 2, 3)
    ]
    make_store(tmp_path, rows, ["buffer"])
    figures = drawn(monkeypatch)
    plots.plot_store(tmp_path)
    ax = figures[0].axes[0]
    title = ax.get_legend().get_title().get_text()
    assert title.startswith("one run per point\nthe 3 seeds gave identical")
    assert "n = 1" in title
    assert "n = 1" in plots.caption(figures[0])["Description"]
    # No error bar: each bar's segments have zero length.
    for container in ax.containers:
        for collection in container.lines[2]:
            assert all(abs(seg[0][1] - seg[1][1]) == 0 for seg in collection.get_segments())
    # Seeds that differ at one point are counted there as 3 runs, and the legend says n = 1–3.
    rows[0]["fct_s"] += 0.5
    make_store(tmp_path / "mixed", rows, ["buffer"])
    plots.plot_store(tmp_path / "mixed")
    title = figures[-1].axes[0].get_legend().get_title().get_text()
    assert title.startswith("mean, 95 % CI (Student t)\nn = 1–3 runs per point\nno CI where n < 3\n")
    assert "the 3 seeds gave identical results at some points: n = 1" in title.replace("\n", " ")


def test_time_series_over_seeds_draw_the_mean_with_a_band_and_n(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        {"variant": v, "seed": s, "flow": "f", "part": part, "time_s": t + 0.5, "goodput_mbps": rate + s + t}
        for v, rate in (("LIA", 10.0), ("OLIA", 20.0))
        for s in (1, 2, 3)
        for part in ("connection", "subflow S0.1→D0")
        for t in range(4)
    ]
    make_store(tmp_path, rows, [])
    figures = drawn(monkeypatch)
    plots.plot_store(tmp_path)
    ax = figures[0].axes[0]
    assert ax.get_xlabel() == "time (s)" and ax.get_ylabel() == "goodput (Mbit/s)"
    assert ax.get_legend().get_title().get_text() == "mean over runs, n = 3\nband: 95 % CI (Student t)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "LIA",
        "OLIA",
        "part:",
        "connection",
        "subflow S0.1→D0",
    ]
    lines = {line.get_label(): line for line in ax.get_lines()}
    # The mean of seeds 1, 2, 3 at each bin's middle: rate + 2 + t.
    xs, ys = lines["LIA, connection"].get_data()
    assert list(xs) == [0.5, 1.5, 2.5, 3.5] and list(ys) == [12.0, 13.0, 14.0, 15.0]
    # One band per line: the 95 % CI of 1, 2, 3 is ±4.303/sqrt(3).
    bands = ax.collections
    assert len(bands) == 4
    with pytest.raises(mpsim.ConfigError, match="time series, drawn against time_s"):
        plots.plot_store(tmp_path, x="variant")
    low = min(float(y) for path in bands[0].get_paths() for _, y in path.vertices)
    assert low == pytest.approx(12.0 - 4.303 / 3**0.5, abs=1e-3)


def test_a_run_time_series_over_seeds_and_the_throughput_extractor() -> None:
    from mpsim.series import throughput

    scenario = Path(__file__).resolve().parents[1] / "examples" / "wifi_lte.toml"
    data = read_toml(scenario)
    data["throughput"] = {"interval": "1s"}
    data["duration"] = "4s"
    runs = [mpsim.run(data, seed=s) for s in (1, 2, 3)]
    fig = plots.plot_throughput(runs)
    ax = fig.axes[0]
    assert ax.get_legend().get_title().get_text() == "mean over runs, n = 3\nband: 95 % CI (Student t)"
    labels = {line.get_label() for line in ax.get_lines()}
    assert labels == {"download (mptcp)", "download via S0.1→D0", "download via S0.2→D0"}
    plt.close(fig)
    # The same run three times is one run: no band, and the legend says why.
    fig = plots.plot_throughput([runs[0]] * 3)
    title = fig.axes[0].get_legend().get_title().get_text()
    assert title.startswith("one run\nthe 3 seeds gave identical") and not fig.axes[0].collections
    plt.close(fig)
    rows = throughput(runs[0], {})
    assert {r["part"] for r in rows} == {"connection", "subflow S0.1→D0", "subflow S0.2→D0"}
    assert [r["time_s"] for r in rows if r["part"] == "connection"] == [0.5, 1.5, 2.5, 3.5]


def test_labels_say_what_a_column_is_and_its_unit() -> None:
    assert plots.axis_label("topology.per_path.0.loss", "%") == "path 1 loss (%)"
    assert plots.axis_label("flows.short.size", "packets") == "size of flow short (packets)"
    assert plots.axis_label("topology.buffer") == "buffer"
    assert plots.column_label("fct_s") == "flow completion time (s)"
    assert plots.column_label("mptcp_over_reno") == "MPTCP over Reno"
    assert plots.column_label("queue_delay_ms") == "queue delay (ms)"
    assert plots.column_label("rtt_ratio") == "RTT ratio"
    # Bare numbers of a scenario field that takes them (a sweep built in Python) read in the unit its type gives
    # them; a time, rate or size needs its unit, so none is read bare.
    assert plots.field_kinds()["buffer"] == "buffer" and plots.field_kinds()["loss"] == "probability"
    assert "delay" not in plots.field_kinds() and "rate" not in plots.field_kinds()
    rows = [
        {"variant": "v", "topology.buffer": b, "topology.per_path.1.loss": p, "fct_s": 1.0}
        for b in (20, 47)
        for p in (0.001, 0.01)
    ]
    fig = plots.plot_sweep(rows, "topology.buffer", "fct_s", errors="none")
    assert fig.axes[0].get_xlabel() == "buffer (packets)"
    assert list(fig.axes[0].containers[0].lines[0].get_xdata()) == [20.0, 47.0]
    plt.close(fig)
    fig = plots.plot_sweep(rows, "topology.per_path.1.loss", "fct_s", errors="none")
    assert fig.axes[0].get_xlabel() == "path 2 loss (%)"
    assert list(fig.axes[0].containers[0].lines[0].get_xdata()) == [0.1, 1.0]
    plt.close(fig)


def test_plot_command_takes_a_title_and_axis_labels(tmp_path: Path) -> None:
    rows = [{"variant": "v", "buffer": b, "seed": s, "flow": "f", "fct_s": b + s} for b in (20, 47) for s in (1, 2, 3)]
    make_store(tmp_path, rows, ["buffer"])
    args = ["--title", "Short flows", "--xlabel", "bottleneck buffer (packets)", "--metric", "fct_s"]
    done = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", "plot", str(tmp_path), *args, "--ylabel", "FCT (s)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    text = png_text(tmp_path / "plots" / "f-fct_s.png")
    assert text["Title"] == "Short flows: FCT (s) against bottleneck buffer (packets)"
    done = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", "plot", str(tmp_path), "--ylabel", "FCT (s)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--ylabel: labels one metric's axis" in done.stderr


def test_the_report_figure_letters_its_panels_and_has_one_legend(tmp_path: Path) -> None:
    from mpsim.experiments import get
    from mpsim.experiments.reproduce import figure

    exp = get("css-shared-buffer")
    rows = [
        {"variant": v, "x": x, "run": run, **{p.metric: float(i + x / 10 + run) for p in exp.panels}}
        for i, v in enumerate(exp.variants)
        for x in (20, 47, 100)
        for run in (1, 2, 3)
    ]
    with pytest.MonkeyPatch.context() as mp:
        kept = drawn(mp)
        figure(exp, pa.Table.from_pylist(rows), tmp_path / "figure")
    (fig,) = kept
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    assert [ax.get_title(loc="left") for ax in panels] == ["(a)", "(b)", "(c)"]
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + fig.legends
    (legend,) = legends
    assert [t.get_text() for t in legend.get_texts()] == list(exp.variants)
    assert legend.get_title().get_text() == "mean, ± 1 std\nn = 3 runs per point"
    description = plots.caption(fig)["Description"]
    assert description.startswith("(a) ") and " (b) " in description and " (c) " in description
    # Two panels a row: readable when the report shows the figure at the page's width.
    assert fig.get_figwidth() <= 11
    plt.close(fig)


@pytest.mark.parametrize("panel", [0, -1])
def test_a_report_panel_no_run_has_a_value_for_says_so(tmp_path: Path, panel: int) -> None:
    """The first RTO's time when no run timed out (gsam-rto-times on a stack that has none): the panel
    says that no run has a value, the other panels and the one legend are drawn as usual, also when the
    empty panel is the first."""
    from mpsim.experiments import get
    from mpsim.experiments.reproduce import figure

    exp = get("gsam-rto-times")
    empty = exp.panels[panel].metric
    rows = [
        {"variant": v, "x": x, "run": run, **{p.metric: None if p.metric == empty else 0.0 for p in exp.panels}}
        for v in exp.variants
        for x in (1, 2)
        for run in (1, 2)
    ]
    with pytest.MonkeyPatch.context() as mp:
        kept = drawn(mp)
        figure(exp, pa.Table.from_pylist(rows), tmp_path / "figure")
    (fig,) = kept
    said = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert said == [f"no run has a value of\n{exp.panels[panel].label}"]
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + fig.legends
    (legend,) = legends
    assert [t.get_text() for t in legend.get_texts()] == list(exp.variants)
    assert f"{exp.panels[panel].label}: no run has a value." in plots.caption(fig)["Description"]
    plt.close(fig)


def test_means_over_three_decades_go_on_a_log_axis() -> None:
    wide = [{"variant": "v", "x": x, "rto_count": y} for x, y in ((1, 1.0), (2, 30.0), (3, 2000.0))]
    fig = plots.plot_sweep(wide, "x", "rto_count", errors="none")
    assert fig.axes[0].get_yscale() == "log" and fig.axes[0].get_xscale() == "linear"
    plt.close(fig)
    narrow = [{"variant": "v", "x": x, "rto_count": y} for x, y in ((1, 1.0), (2, 30.0), (3, 500.0))]
    fig = plots.plot_sweep(narrow, "x", "rto_count", errors="none")
    assert fig.axes[0].get_yscale() == "linear"
    plt.close(fig)
