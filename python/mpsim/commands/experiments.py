"""``mpsim experiments`` and ``mpsim reproduce``."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from mpsim.commands.sweep import Executor

if TYPE_CHECKING:
    from mpsim.experiments.base import Experiment

console = Console()


def register(app: typer.Typer) -> None:
    @app.command()
    def experiments() -> None:
        """List the experiments of the catalogue: the CSS, LISA and GSAM papers' figures."""
        from mpsim.experiments import CATALOGUE

        table = Table(show_lines=False)
        # The name is what `mpsim reproduce` takes: never cut, whatever the terminal's width.
        table.add_column("name", style="bold", no_wrap=True, min_width=max(len(n) for n in CATALOGUE))
        table.add_column("figure")
        table.add_column("description")
        for exp in CATALOGUE.values():
            table.add_row(exp.name, f"{exp.paper.split(':')[0]} {exp.figure.split(', §')[0]}", exp.description)
        console.print(table)

    @app.command()
    def reproduce(
        names: Annotated[
            list[str] | None, typer.Argument(help="Experiments to run (`mpsim experiments` lists them).")
        ] = None,
        all_: Annotated[
            bool, typer.Option("--all", help="Every experiment, then OUT/scorecard.json and .md: each claim's verdict.")
        ] = False,
        runs: Annotated[int | None, typer.Option(min=1, help="Runs per point (default: the paper's).")] = None,
        jobs: Annotated[int | None, typer.Option(min=1, help="Local worker processes (default: all cores).")] = None,
        out: Annotated[Path, typer.Option(help="Directory; results go to OUT/NAME/.")] = Path("results"),
        quick: Annotated[bool, typer.Option("--quick", help="Fewer x values and runs, same shape.")] = False,
        executor: Annotated[Executor, typer.Option(help="local processes, or a Dask cluster.")] = Executor.local,
        scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address (with --executor dask).")] = None,
    ) -> None:
        """Reproduce paper figures: run each one's sweep, write results.parquet/.csv and the figure (PNG, SVG),
        judge the paper's claims on the table (holds / partly / fails, with the numbers), and write
        OUT/index.html, a report of every experiment run: figures, claims, configuration, provenance."""
        from mpsim import ConfigError
        from mpsim.experiments import CATALOGUE
        from mpsim.experiments.report import Ran, write_report
        from mpsim.experiments.reproduce import reproduce as run
        from mpsim.experiments.reproduce import reproduce_all

        mode = "quick" if quick else "full"
        command = shlex.join(["mpsim", *sys.argv[1:]])
        if all_:
            if names:
                raise ConfigError(f"reproduce: give experiment names or --all, not both (got '{' '.join(names)}')")
            card, files = reproduce_all(
                out, quick=quick, runs=runs, jobs=jobs, executor=executor.value, scheduler=scheduler, command=command
            )
            from mpsim.experiments.scorecard import tally

            for paper, counts in tally(card).items():
                console.print(f"{paper}: " + ", ".join(f"{n} {v}" for v, n in counts.items()))
            for path in files:
                console.print(f"  {path}")
            return
        if not names:
            raise ConfigError("reproduce: give an experiment name (`mpsim experiments` lists them) or --all")
        for name in names:
            if name not in CATALOGUE:
                raise ConfigError(f"reproduce: unknown experiment '{name}'; known: {', '.join(CATALOGUE)}")
        ran = []
        for name in dict.fromkeys(names):
            exp = CATALOGUE[name]
            console.print(f"[bold]{exp.name}[/bold] ({mode}): {exp.paper}, {exp.figure}")
            started = time.perf_counter()
            result = run(name, out, quick=quick, runs=runs, jobs=jobs, executor=executor.value, scheduler=scheduler)
            wall = time.perf_counter() - started
            ran.append(Ran(result, wall, quick, runs))
            _summary(result.table, exp.x_name, [p.metric for p in exp.panels], list(exp.variants))
            _verdicts(exp, result.table.to_pylist())
            console.print(f"{result.table.num_rows} runs in {wall:.1f} s")
            for path in result.files:
                console.print(f"  {path}")
        console.print(f"report: {write_report(out, ran, command)}")

    @app.command()
    def scorecard(
        source: Annotated[Path, typer.Option("--from", help="A scorecard.json.")] = Path("docs/scorecard.json"),
        docs: Annotated[Path, typer.Option(help="The Markdown file with scorecard markers.")] = Path(
            "docs/reproduction.md"
        ),
        check: Annotated[bool, typer.Option("--check", help="Only report whether the tables are current.")] = False,
    ) -> None:
        """Write the verdict tables of docs/reproduction.md (between its scorecard markers) from a scorecard."""
        from mpsim.experiments.scorecard import load, update_docs

        text = docs.read_text()
        new = update_docs(load(source), text)
        if check:
            if new != text:
                console.print(
                    f"{docs}: its tables differ from {source}; run `mpsim scorecard --from {source} --docs {docs}`"
                )
                raise typer.Exit(1)
            console.print(f"{docs} is current with {source}")
            return
        docs.write_text(new)
        console.print(f"{docs}: tables written from {source}")


def _verdicts(exp: Experiment, rows: list[dict[str, object]]) -> None:
    """Each claim of the experiment, its verdict and its numbers, as the scorecard judges them."""
    from mpsim.experiments.scorecard import check_words, claim_words, entry

    style = {"holds": "green", "partly": "yellow", "fails": "red", "untested": "dim", "uncheckable": "dim"}
    judged = entry(exp, rows)
    for c in judged["claims"]:
        console.print(
            f"[{style[c['verdict']]}]{c['verdict']}[/] ({c['passed']}/{c['points']}) {claim_words(c)}\n"
            f"    {check_words(c)}\n    {c['numbers']}"
        )
    for text in judged["unchecked"]:
        console.print(f"[dim]not stated as a check[/] {text}")


def _summary(table: object, x_name: str, metrics: list[str], variants: list[str]) -> None:
    """Means per x and variant of the figure's first metric, as a table."""
    import pyarrow as pa

    from mpsim.plots import mean_and_error

    assert isinstance(table, pa.Table)
    rows = table.to_pylist()
    metric = metrics[0]
    xs: list[object] = []
    for r in rows:
        if r["x"] not in xs:
            xs.append(r["x"])
    out = Table(title=f"mean {metric} by {x_name}")
    out.add_column(x_name, justify="right")
    for v in variants:
        out.add_column(v, justify="right")
    for x in xs:
        cells = []
        for v in variants:
            mean, _ = mean_and_error([r[metric] for r in rows if r["x"] == x and r["variant"] == v], "none")
            cells.append(f"{mean:.3g}")
        out.add_row(str(x), *cells)
    console.print(out)
