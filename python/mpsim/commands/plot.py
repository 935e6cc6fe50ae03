"""``mpsim plot``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

console = Console()


class ErrorBars(StrEnum):
    ci95 = "ci95"
    std = "std"
    none = "none"


def register(app: typer.Typer) -> None:
    @app.command()
    def plot(
        directory: Annotated[Path, typer.Argument(help="A sweep's result store (the --out of mpsim sweep).")],
        flow: Annotated[
            list[str] | None, typer.Option(help="Plot only these flows (repeatable; default: every flow).")
        ] = None,
        metric: Annotated[
            list[str] | None, typer.Option(help="Plot only these metrics (repeatable; default: every metric).")
        ] = None,
        x: Annotated[str | None, typer.Option(help="Axis on the x axis (default: the sweep's first axis).")] = None,
        errors: Annotated[
            ErrorBars, typer.Option(help="Error bars: 95 % confidence interval or std.")
        ] = ErrorBars.ci95,
    ) -> None:
        """Plot a sweep: each metric's mean against the swept parameter, one line per variant (PNG and SVG)."""
        from mpsim.plots import plot_store

        paths = plot_store(directory, flows=flow, metrics=metric, x=x, errors=errors.value)
        for p in paths:
            console.print(str(p))
