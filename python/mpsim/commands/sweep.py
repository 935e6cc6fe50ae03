"""``mpsim sweep``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from mpsim.commands import console


class Executor(StrEnum):
    local = "local"
    dask = "dask"


def register(app: typer.Typer) -> None:
    @app.command()
    def sweep(
        file: Annotated[Path, typer.Argument(help="Sweep file (TOML): base scenario, axes, variants, seeds.")],
        out: Annotated[Path, typer.Option("--out", "-o", help="Result store directory (resumed if it exists).")],
        jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Local processes (default: all cores).")] = None,
        executor: Annotated[Executor, typer.Option(help="Where runs execute.")] = Executor.local,
        scheduler: Annotated[
            str | None, typer.Option(help="Dask scheduler address (tcp://host:8786) for --executor dask.")
        ] = None,
        progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
        time_limit: Annotated[
            str | None,
            typer.Option("--time-limit", help="Stop any run after this much wall time (e.g. 30s); recorded as such."),
        ] = None,
    ) -> None:
        """Run every point of a sweep into a resumable store; finished runs are never run again."""
        from mpsim import ConfigError
        from mpsim.commands.run import wall_seconds
        from mpsim.sweep import load_sweep, run_sweep, seed_warning

        if jobs is not None and jobs < 1:
            raise ConfigError(f"--jobs: must be at least 1 process, got {jobs}")
        if executor is Executor.dask and not scheduler:
            raise ConfigError("--scheduler: the dask executor needs the scheduler's address (tcp://host:8786)")
        limit_s = wall_seconds(time_limit)
        spec = load_sweep(file)
        table = run_sweep(
            spec, out, jobs=jobs, executor=executor.value, scheduler=scheduler, progress=progress, time_limit=limit_s
        )
        console().print(f"{table.num_rows} rows from {len(set(table.column('key').to_pylist()))} runs in {out}")
        warning = seed_warning(spec, table)
        if warning is not None:
            console(stderr=True).print(warning, soft_wrap=True, highlight=False, markup=False)
