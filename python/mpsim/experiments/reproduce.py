"""Runs an experiment of the catalogue through the sweep runner and writes its table and figure.

``reproduce("css-shared-filesize", out="results")`` writes, under ``results/css-shared-filesize/``:
``results.parquet`` and ``results.csv`` (one row per run: experiment, variant, x_name, x, run, seed and
the metrics of :func:`~mpsim.experiments.base.experiment_metrics`), ``figure.png`` and ``figure.svg``
(one panel per metric the paper plots, mean and error bar per variant), and ``store/``, the sweep
runner's resumable store: an interrupted reproduction resumes where it stopped and never runs a
finished run again.
"""

from __future__ import annotations

import json
import textwrap
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from mpsim.engine import Results
from mpsim.experiments import CATALOGUE, get, scorecard, timeseries
from mpsim.experiments.base import Experiment, experiment_metrics
from mpsim.experiments.report import Ran, Reproduction, write_report
from mpsim.fingerprint import engine_id
from mpsim.sweep import Point, axis_text, run_key, run_points

__all__ = ["Reproduction", "experiment_row", "reproduce", "reproduce_all"]


def experiment_row(results: Results, config: Mapping[str, Any]) -> dict[str, Any]:
    """The sweep runner's extractor for every experiment (a module-level function, so workers can run it)."""
    return experiment_metrics(results.raw, config)


def reproduce(
    name: str,
    out: str | Path = "results",
    *,
    quick: bool = False,
    runs: int | None = None,
    jobs: int | None = None,
    executor: Literal["local", "dask"] = "local",
    scheduler: str | None = None,
    progress: bool = True,
) -> Reproduction:
    """Runs experiment ``name`` (its quick form with fewer x values and runs when ``quick``)."""
    exp = get(name)
    extract = exp.extract or experiment_row
    directory = Path(out) / exp.name
    points: list[tuple[Point, dict[str, Any]]] = []
    meta: dict[tuple[str, str], tuple[Any, str, int, int]] = {}
    for x, variant, run, cfg in exp.configs(quick, runs):
        point = Point(variant, {exp.x_name: x}, int(cfg.get("seed", run)))
        points.append((point, cfg))
        # A configuration that does not depend on x (e.g. `tcp` against the number of subflows) has one key
        # for every x: the stored point's x tells them apart.
        meta[run_key(cfg, extract), axis_text(x)] = (x, variant, run, point.seed)
    stored = run_points(
        points,
        directory / "store",
        axes=[exp.x_name],
        variants=list(exp.variants),
        extract=extract,
        jobs=jobs,
        executor=executor,
        scheduler=scheduler,
        progress=progress,
    )
    table = _table(exp, stored, meta)
    files = [directory / "results.parquet", directory / "results.csv"]
    pq.write_table(table, files[0])
    pacsv.write_csv(table, files[1])
    files += figure(exp, table, directory / "figure")
    for x in exp.trace_x:
        files += timeseries.FIGURES[exp.trace_kind](exp, x, directory / f"traces-{x}")
    return Reproduction(exp, directory, table, tuple(files))


def _table(exp: Experiment, stored: pa.Table, meta: Mapping[tuple[str, str], tuple[Any, str, int, int]]) -> pa.Table:
    metrics = [c for c in stored.column_names if c not in ("key", "variant", "seed", exp.x_name)]
    rows = []
    for r in stored.to_pylist():
        x, variant, run, seed = meta[r["key"], r[exp.x_name]]
        rows.append(
            {
                "experiment": exp.name,
                "variant": variant,
                "x_name": exp.x_name,
                "x": x,
                "run": run,
                "seed": seed,
                **{m: r[m] for m in metrics},
            }
        )
    order = {v: i for i, v in enumerate(exp.variants)}
    xs: dict[str, int] = {}
    for x in sorted(set(exp.x_values + exp.quick_x_values), key=lambda v: (str(type(v)), v)):
        xs.setdefault(json.dumps(x), len(xs))
    rows.sort(key=lambda r: (order[r["variant"]], xs.get(json.dumps(r["x"]), 0), r["run"]))
    return pa.Table.from_pylist(rows)


def figure(exp: Experiment, table: pa.Table, path: Path) -> list[Path]:
    """One panel per metric of the paper's figure: mean and error bar against x, one line per variant."""
    import matplotlib.pyplot as plt

    from mpsim.plots import plot_sweep, save

    n = len(exp.panels)
    fig, axes = plt.subplots(1, n, figsize=(5.0 * n, 3.9), layout="constrained", squeeze=False)
    errors: Literal["ci95", "std"] = "ci95" if exp.error_bars == "ci95" else "std"
    for ax, panel in zip(axes[0], exp.panels, strict=True):
        plot_sweep(table, "x", panel.metric, errors=errors, ax=ax, xlabel=exp.x_label, ylabel=panel.label)
        if panel.log_y:
            ax.set_yscale("log")
    bars = "95 % CI" if errors == "ci95" else "±1 std"
    # About 12 characters of 10-point text per inch of figure: long titles wrap instead of running off it.
    title = f"{exp.name}: {exp.paper}, {exp.figure} (error bars {bars})"
    fig.suptitle(textwrap.fill(title, width=int(12 * fig.get_figwidth())), fontsize=10)
    return save(fig, path)


def reproduce_all(
    out: str | Path = "results",
    *,
    quick: bool = False,
    runs: int | None = None,
    jobs: int | None = None,
    executor: Literal["local", "dask"] = "local",
    scheduler: str | None = None,
    progress: bool = True,
    names: list[str] | None = None,
    command: str | None = None,
) -> tuple[dict[str, Any], list[Path]]:
    """Runs every experiment of the catalogue (or ``names``) and writes ``OUT/scorecard.json`` and
    ``OUT/scorecard.md`` (each claim's verdict on its table) and ``OUT/index.html``
    (:mod:`mpsim.experiments.report`, which names ``command``). Returns the scorecard and its files."""
    card: dict[str, Any] = {
        "mode": "quick" if quick else "full",
        "source": "mpsim reproduce --all" + (" --quick" if quick else "") + (f" --runs {runs}" if runs else ""),
        "engine": engine_id(),
        "experiments": {},
    }
    ran = []
    for name in names or list(CATALOGUE):
        started = time.perf_counter()
        result = reproduce(
            name, out, quick=quick, runs=runs, jobs=jobs, executor=executor, scheduler=scheduler, progress=progress
        )
        ran.append(Ran(result, time.perf_counter() - started, quick, runs))
        card["experiments"][name] = scorecard.entry(result.experiment, result.table.to_pylist())
    files = scorecard.write(card, Path(out))
    return card, [*files, write_report(Path(out), ran, command or card["source"])]
