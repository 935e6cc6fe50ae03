"""``mpsim plot``."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, TypedDict

import typer

from mpsim.commands import console


class Labels(TypedDict):
    """What ``--title`` and ``--xlabel`` give every figure, of a sweep or of a run."""

    title: str | None
    xlabel: str | None


class ErrorBars(StrEnum):
    ci95 = "ci95"
    std = "std"
    none = "none"


def register(app: typer.Typer) -> None:
    @app.command()
    def plot(
        directory: Annotated[
            Path,
            typer.Argument(help="A sweep's store (the --out of mpsim sweep) or a run's (the --out of mpsim run)."),
        ],
        flow: Annotated[
            list[str] | None, typer.Option(help="Plot only these flows (repeatable; default: every flow).")
        ] = None,
        metric: Annotated[
            list[str] | None, typer.Option(help="Plot only these metrics (repeatable; default: every metric).")
        ] = None,
        x: Annotated[str | None, typer.Option(help="Axis on the x axis (default: the sweep's first axis).")] = None,
        errors: Annotated[
            ErrorBars,
            typer.Option(help="Error bars: 95 % Student-t confidence interval (from 3 runs per point), std or none."),
        ] = ErrorBars.ci95,
        title: Annotated[str | None, typer.Option(help="Title of every figure (default: the flow's name).")] = None,
        xlabel: Annotated[
            str | None, typer.Option(help="Label of the x axis (default: the axis's name and unit).")
        ] = None,
        ylabel: Annotated[
            str | None,
            typer.Option(help="Label of the y axis, with one --metric (default: the metric's name and unit)."),
        ] = None,
    ) -> None:
        """Plot a sweep's metrics or a run's time series, as PNG and SVG.

        A sweep: each metric's mean with error bars against the swept parameter, one line per variant and
        category (without an axis, one point per variant; a time-series store, the mean over seeds with a
        band). A run: cwnd per subflow, queues, sequence and ACK progress, throughput."""
        from mpsim import ConfigError
        from mpsim.plots import plot_run, plot_store

        labels = Labels(title=title, xlabel=xlabel)
        if (directory / "results.json").is_file() and not (directory / "sweep.json").exists():
            if flow or metric or x or ylabel:
                raise ConfigError(
                    "--flow, --metric, --x, --ylabel: a run's time series (each with its own y axis) take none of them"
                )
            paths = plot_run(load_run(directory), directory / "plots", **labels)
        else:
            paths = plot_store(directory, flows=flow, metrics=metric, x=x, errors=errors.value, ylabel=ylabel, **labels)
            warn_identical_seeds(directory)
        for p in paths:
            console().print(str(p))


def load_run(directory: Path) -> Any:
    """The results a ``mpsim run --out DIR`` wrote."""
    from mpsim.engine import Results

    text = (directory / "results.json").read_text()
    return Results(json.loads(text), text)


def warn_identical_seeds(directory: Path) -> None:
    """Says on stderr where a sweep's seeds gave identical results, which its figures draw as n = 1."""
    from mpsim.store import RunStore, identical_seeds_text
    from mpsim.sweep import ONE_VALUE_EACH

    store = RunStore(directory)
    where = identical_seeds_text(store.results(), store.read_manifest()["axes"])
    if where is not None:
        text = f"warning: {where}, as a scenario without a random element does; the figures draw them as n = 1. "
        console(stderr=True).print(text + ONE_VALUE_EACH, soft_wrap=True, highlight=False, markup=False)
