"""``mpsim show``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def show(
        directory: Annotated[
            Path, typer.Argument(help="A sweep's store, a run's output (mpsim run --out) or a reproduction's.")
        ],
    ) -> None:
        """Summarise a result directory: what was run, how far it got, which tables and figures it holds.

        A reproduction is ``mpsim reproduce --out DIR`` (every experiment) or one experiment's directory."""
        from mpsim import ConfigError

        if (directory / "sweep.json").is_file():
            text = show_sweep(directory)
        elif (directory / "results.json").is_file():
            text = show_run(directory)
        elif (directory / "results.parquet").is_file() or _reproduced(directory):
            text = show_reproduction(directory)
        else:
            raise ConfigError(
                f"directory: {str(directory)!r} holds no sweep store (sweep.json), run (results.json) or "
                "reproduction (*/results.parquet)"
            )
        print(text)


def show_sweep(directory: Path) -> str:
    """Axes, variants, seeds, runs done and timed out, and the result columns of a sweep's store."""
    from mpsim.store import RunStore

    store = RunStore(directory)
    manifest = store.read_manifest()
    points = manifest["points"]
    done = store.done()
    finished = [p for p in points if p["key"] in done]
    lines = [f"{directory}: sweep store"]
    for axis in manifest["axes"]:
        values = list(dict.fromkeys(json.dumps(p["axes"][axis]) for p in points))
        lines.append(f"  axis {axis}: {', '.join(values)}")
    lines.append(f"  variants: {', '.join(manifest.get('variants') or sorted({p['variant'] for p in points}))}")
    lines.append(f"  seeds: {', '.join(str(s) for s in sorted({p['seed'] for p in points}))}")
    lines.append(f"  runs: {len(finished)} of {len(points)} finished, {len(store.timed_out())} timed out")
    if finished:
        table = store.results()
        lines.append(f"  rows: {table.num_rows}; columns: {', '.join(table.column_names)}")
    for name in ("results.parquet", "results.csv", "plots"):
        if (directory / name).exists():
            lines.append(f"  {name}")
    return "\n".join(lines)


def show_run(directory: Path) -> str:
    """The tables (rows) and figures a ``mpsim run --out`` wrote, and the run's seed and length."""
    import pyarrow.parquet as pq

    raw = json.loads((directory / "results.json").read_text())
    lines = [
        f"{directory}: one run (seed {raw['seed']}, {raw['end_time_ns'] / 1e9:.3f} s simulated, "
        f"{raw['events_processed']:,} events)"
    ]
    for p in sorted(directory.glob("*.parquet")):
        lines.append(f"  {p.stem}: {pq.read_metadata(p).num_rows} rows ({p.name}, {p.stem}.csv)")
    lines += [f"  figure {p.relative_to(directory)}" for p in sorted(directory.glob("plots/*.png"))]
    return "\n".join(lines)


def _reproduced(directory: Path) -> list[Path]:
    """The result tables of the experiments a reproduction ran: ``NAME/results.parquet`` on the paper's stack,
    ``STACK/NAME/results.parquet`` on another."""
    from mpsim.experiments.stacks import JUDGED_ON

    stacks = [directory.glob(f"{stack}/*/results.parquet") for stack in JUDGED_ON if stack != "paper"]
    return sorted([*directory.glob("*/results.parquet"), *(p for found in stacks for p in found)])


def show_reproduction(directory: Path) -> str:
    """Each experiment of a reproduction, on each stack it ran on: its rows and its figures."""
    import pyarrow.parquet as pq

    lines = [f"{directory}: reproduction"]
    for results in sorted(directory.glob("results.parquet")) + _reproduced(directory):
        exp = results.parent
        figures = ", ".join(p.name for p in sorted(exp.glob("*.png"))) or "no figure"
        name = exp.name if exp == directory else exp.relative_to(directory).as_posix()
        lines.append(f"  {name}: {pq.read_metadata(results).num_rows} rows; {figures}")
    if (directory / "index.html").is_file():
        lines.append(f"  report: {directory / 'index.html'}")
    return "\n".join(lines)
