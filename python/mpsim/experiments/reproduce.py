"""Runs an experiment of the catalogue through the sweep runner and writes its table and figure.

``reproduce("css-shared-filesize", out="results")`` writes, under ``results/css-shared-filesize/``:
``results.parquet`` and ``results.csv`` (one row per run: experiment, stack, variant, x_name, x, run, seed
and the metrics of :func:`~mpsim.experiments.base.experiment_metrics`), ``figure.png`` and ``figure.svg``
(one panel per metric the paper plots, mean and error bar per variant), and ``store/``, the sweep
runner's resumable store: an interrupted reproduction resumes where it stopped and never runs a
finished run again.

``stack="linux"`` or ``"ns3"`` runs it on that stack instead of the paper's
(:func:`mpsim.experiments.stacks.on_stack`) and writes under ``results/linux/css-shared-filesize/``: each stack
has its own directory and store, and its runs their own configurations, so their own store keys.
"""

from __future__ import annotations

import json
import textwrap
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from mpsim._core import ConfigError
from mpsim.engine import Results
from mpsim.experiments import CATALOGUE, get, scorecard, timeseries
from mpsim.experiments.base import Experiment, experiment_metrics
from mpsim.experiments.report import Ran, Reproduction, write_report
from mpsim.experiments.stacks import JUDGED_ON
from mpsim.fingerprint import engine_id
from mpsim.sweep import Point, axis_text, run_key, run_points

__all__ = ["Reproduction", "experiment_row", "reproduce", "reproduce_all", "stack_directory"]


def experiment_row(results: Results, config: Mapping[str, Any]) -> dict[str, Any]:
    """The sweep runner's extractor for every experiment (a module-level function, so workers can run it)."""
    return experiment_metrics(results.raw, config)


def stack_directory(out: str | Path, name: str, stack: str = "paper") -> Path:
    """Where experiment ``name`` run on ``stack`` writes: ``OUT/NAME`` on the paper's stack, ``OUT/STACK/NAME``
    on another."""
    return Path(out) / name if stack == "paper" else Path(out) / stack / name


def reproduce(
    name: str,
    out: str | Path = "results",
    *,
    stack: str = "paper",
    quick: bool = False,
    runs: int | None = None,
    jobs: int | None = None,
    executor: Literal["local", "dask"] = "local",
    scheduler: str | None = None,
    progress: bool = True,
) -> Reproduction:
    """Runs experiment ``name`` (its quick form with fewer x values and runs when ``quick``) on ``stack``: the
    paper's, ``linux`` or ``ns3`` (:data:`mpsim.experiments.stacks.JUDGED_ON`)."""
    exp = get(name).on(stack)
    extract = exp.extract or experiment_row
    directory = stack_directory(out, exp.name, stack)
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
                "stack": exp.runs_on,
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
    """One panel per metric of the paper's figure, lettered as the paper's panels ((a), (b), (c)): mean and
    error bar against x, one line per variant. Two panels a row, so that a page shows them at a readable size;
    one legend for all, above them, with the error bars and the number of runs behind each mean."""
    import matplotlib.pyplot as plt

    from mpsim.plots import caption, describe, finite_values, plot_sweep, save

    n = len(exp.panels)
    columns = min(n, 2)
    rows = -(-n // columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(5.2 * columns, 3.4 * rows + 0.9), layout="constrained", squeeze=False
    )
    errors: Literal["ci95", "std"] = "ci95" if exp.error_bars == "ci95" else "std"
    legend_titles: list[tuple[Any, str]] = []
    captions: list[str] = []
    handles: list[Any] = []
    labels: list[str] = []
    for i, (ax, panel) in enumerate(zip(axes.flat, exp.panels, strict=False)):
        letter = f"({chr(ord('a') + i)})"
        if not finite_values(table.column(panel.metric).to_pylist()):
            # No run has a value (an RTO's time where no run timed out): the panel says so, and is not drawn.
            ax.text(0.5, 0.5, f"no run has a value of\n{panel.label}", ha="center", va="center", transform=ax.transAxes)
            ax.set_xlabel(exp.x_label)
            ax.set_ylabel(panel.label)
            ax.set_title(letter, loc="left", fontweight="bold", fontsize=10)
            captions.append(f"{letter} {panel.label}: no run has a value.")
            continue
        plot_sweep(table, "x", panel.metric, errors=errors, ax=ax, xlabel=exp.x_label, ylabel=panel.label)
        if panel.log_y:
            ax.set_yscale("log")
        ax.set_title(letter, loc="left", fontweight="bold", fontsize=10)
        legend_titles.append((ax, ax.get_legend().get_title().get_text()))
        captions.append(f"{letter} {caption(fig)['Description']}")
        if not handles:
            handles, labels = ax.get_legend_handles_labels()
        ax.get_legend().remove()
    # One legend for every panel; when the panels' runs differ, each panel says its own.
    texts = {text for _, text in legend_titles}
    if len(texts) > 1:
        for ax, text in legend_titles:
            ax.set_title(text.replace("\n", ", "), loc="right", fontsize=8)
    shared = texts.pop() if len(texts) == 1 else "mean and error bars"
    spare = list(axes.flat)[n:]
    for ax in spare:
        ax.set_axis_off()
    if spare:
        # The empty cell of the grid holds the legend.
        spare[0].legend(handles, labels, loc="center", frameon=False, title=shared)
    else:
        fig.legend(
            handles, labels, loc="outside lower center", ncols=max(1, min(len(labels), 6)), frameon=False, title=shared
        )
    bars = "95 % CI" if errors == "ci95" else "±1 std"
    on = "" if exp.runs_on == "paper" else f" on {JUDGED_ON[exp.runs_on]}"
    # About 12 characters of 10-point text per inch of figure: long titles wrap instead of running off it.
    title = f"{exp.name}{on}: {exp.paper}, {exp.figure} (error bars {bars})"
    fig.suptitle(textwrap.fill(title, width=int(12 * fig.get_figwidth())), fontsize=10)
    describe(fig, title, " ".join(captions))
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
    stacks: Sequence[str] = ("paper",),
) -> tuple[dict[str, Any], list[Path]]:
    """Runs every experiment of the catalogue (or ``names``) on each of ``stacks`` (the paper's, ``linux``,
    ``ns3``) and writes ``OUT/scorecard.json`` and ``OUT/scorecard.md`` (each claim's verdict on each stack's
    table) and ``OUT/index.html`` (:mod:`mpsim.experiments.report`, which names ``command``). Returns the
    scorecard and its files."""
    unknown = [s for s in stacks if s not in JUDGED_ON]
    if unknown or not stacks:
        raise ConfigError(f"stacks: unknown {unknown or 'none given'}; allowed: {', '.join(JUDGED_ON)}")
    stacks = [s for s in JUDGED_ON if s in stacks]
    source = "mpsim reproduce --all" + (" --quick" if quick else "") + (f" --runs {runs}" if runs else "")
    if stacks != ["paper"]:
        source += "".join(f" --stack {s}" for s in stacks)
    card: dict[str, Any] = {
        "mode": "quick" if quick else "full",
        "source": source,
        "engine": engine_id(),
        "stacks": stacks,
        "experiments": {},
    }
    ran = []
    for name in names or list(CATALOGUE):
        tables = {}
        for stack in stacks:
            started = time.perf_counter()
            result = reproduce(
                name,
                out,
                stack=stack,
                quick=quick,
                runs=runs,
                jobs=jobs,
                executor=executor,
                scheduler=scheduler,
                progress=progress,
            )
            ran.append(Ran(result, time.perf_counter() - started, quick, runs))
            tables[stack] = result.table.to_pylist()
        card["experiments"][name] = scorecard.entry(get(name), tables)
    files = scorecard.write(card, Path(out))
    return card, [*files, write_report(Path(out), ran, command or card["source"])]
