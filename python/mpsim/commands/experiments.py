"""``mpsim experiments`` and ``mpsim reproduce``."""

from __future__ import annotations

import shlex
import sys
import textwrap
import time
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mpsim.commands import console
from mpsim.commands.sweep import Executor

if TYPE_CHECKING:
    from mpsim.experiments.base import Experiment


class Stack(StrEnum):
    """The stacks a reproduction runs on (:data:`mpsim.experiments.stacks.JUDGED_ON`)."""

    paper = "paper"
    linux = "linux"
    ns3 = "ns3"


def register(app: typer.Typer) -> None:
    @app.command()
    def experiments() -> None:
        """List the experiments of the catalogue: the figures of the CSS, GSAM, Couple+, LISA and MPCubic papers.

        Grouped by paper; each name (what `mpsim reproduce` takes) with its figure, its description below."""
        from mpsim.experiments import CATALOGUE

        console().print(
            catalogue_text(CATALOGUE.values(), console().width), markup=False, highlight=False, soft_wrap=True
        )

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
        stack: Annotated[
            list[Stack] | None,
            typer.Option(
                help="The stack to run on, repeatable: paper (the paper's, the default), linux (Linux 6.18) or "
                "ns3 (ns-3.44); a real stack keeps the paper's segment size, initial window and ssthresh and the "
                "experiment's algorithms and replaces the rest of each flow's TCP options (docs/reproduction.md). "
                "Other stacks than the paper's write to OUT/STACK/NAME/.",
            ),
        ] = None,
    ) -> None:
        """Reproduce paper figures, judge the papers' claims on them, and write a report.

        Runs each experiment's sweep, writes results.parquet/.csv and the figure (PNG, SVG), judges the paper's
        claims on the table (holds / partly / fails, with the numbers), and writes OUT/index.html, a report of
        every experiment run: figures, claims, configuration, provenance."""
        from mpsim import ConfigError
        from mpsim.experiments import CATALOGUE
        from mpsim.experiments.report import Ran, write_report
        from mpsim.experiments.reproduce import reproduce as run
        from mpsim.experiments.reproduce import reproduce_all

        mode = "quick" if quick else "full"
        command = shlex.join(["mpsim", *sys.argv[1:]])
        stacks = [s.value for s in Stack if s in (stack or [Stack.paper])]
        if all_:
            if names:
                raise ConfigError(f"reproduce: give experiment names or --all, not both (got '{' '.join(names)}')")
            card, files = reproduce_all(
                out,
                quick=quick,
                runs=runs,
                jobs=jobs,
                executor=executor.value,
                scheduler=scheduler,
                command=command,
                stacks=stacks,
            )
            from mpsim.experiments.scorecard import counts_words, tally

            for paper, by_stack in tally(card).items():
                console().print(f"{paper}: " + "; ".join(f"{s}: {counts_words(c)}" for s, c in by_stack.items()))
            for path in files:
                console().print(f"  {path}")
            return
        if not names:
            raise ConfigError("reproduce: give an experiment name (`mpsim experiments` lists them) or --all")
        for name in names:
            if name not in CATALOGUE:
                raise ConfigError(f"reproduce: unknown experiment '{name}'; known: {', '.join(CATALOGUE)}")
        ran = []
        for name in dict.fromkeys(names):
            for on in stacks:
                exp = CATALOGUE[name].on(on)
                where = "" if on == "paper" else f" on {on}"
                console().print(f"[bold]{exp.name}[/bold] ({mode}{where}): {exp.paper}, {exp.figure}")
                started = time.perf_counter()
                result = run(
                    name,
                    out,
                    stack=on,
                    quick=quick,
                    runs=runs,
                    jobs=jobs,
                    executor=executor.value,
                    scheduler=scheduler,
                )
                wall = time.perf_counter() - started
                ran.append(Ran(result, wall, quick, runs))
                _summary(result.table, exp.x_name, [p.metric for p in exp.panels], list(exp.variants))
                _verdicts(exp, result.table.to_pylist())
                console().print(f"{result.table.num_rows} runs in {wall:.1f} s")
                for path in result.files:
                    console().print(f"  {path}")
        console().print(f"report: {write_report(out, ran, command)}")

    @app.command()
    def scorecard(
        source: Annotated[Path, typer.Option("--from", help="A scorecard.json.")] = Path("docs/scorecard.json"),
        docs: Annotated[Path, typer.Option(help="The Markdown file with scorecard markers.")] = Path(
            "docs/reproduction.md"
        ),
        check: Annotated[
            bool,
            typer.Option(
                "--check", help="Only report whether the tables are current and the scorecard is the current engine's."
            ),
        ] = False,
    ) -> None:
        """Write the verdict tables of docs/reproduction.md (between its scorecard markers) from a scorecard."""
        from mpsim.experiments.scorecard import foreign_engine, load, update_docs
        from mpsim.fingerprint import engine_id

        text = docs.read_text()
        card = load(source)
        new = update_docs(card, text)
        if check:
            problems = []
            foreign = foreign_engine(card, engine_id())
            if foreign:
                problems.append(f"{source} {foreign}; run `make scorecard JOBS=2` and commit what it writes")
            if new != text:
                problems.append(
                    f"{docs}: its tables differ from {source}; run `mpsim scorecard --from {source} --docs {docs}`"
                )
            for problem in problems:
                console().print(problem, soft_wrap=True)
            if problems:
                raise typer.Exit(1)
            console().print(
                f"{docs} is current with {source}, made on the current engine {engine_id()}", soft_wrap=True
            )
            return
        docs.write_text(new)
        console().print(f"{docs}: tables written from {source}")


def catalogue_text(experiments: Iterable[Experiment], width: int) -> str:
    """The catalogue as text ``width`` columns wide: one heading per paper, then each experiment's name and
    figure on one line (a name never cut: it is what ``mpsim reproduce`` takes) and its description wrapped
    below, indented."""
    by_paper: dict[str, list[Experiment]] = {}
    for exp in experiments:
        by_paper.setdefault(exp.paper, []).append(exp)
    width = max(width, 40)

    def wrap(text: str, indent: int, first_indent: int = 0) -> list[str]:
        return textwrap.wrap(
            text, width, initial_indent=" " * first_indent, subsequent_indent=" " * indent, break_long_words=False
        )

    lines: list[str] = []
    for paper, group in by_paper.items():
        if lines:
            lines.append("")
        lines += wrap(paper, 2)
        name_width = max(len(e.name) for e in group)
        for exp in group:
            lines += wrap(f"{exp.name:<{name_width}}  {exp.figure}", name_width + 4, 2)
            lines += wrap(exp.description, 6, 6)
    return "\n".join(lines)


def _verdicts(exp: Experiment, rows: list[dict[str, object]]) -> None:
    """Each claim of the experiment, its verdict and its numbers on the stack it ran on, as the scorecard judges
    them."""
    from mpsim.experiments.scorecard import check_words, claim_words, entry

    style = {"holds": "green", "partly": "yellow", "fails": "red", "untested": "dim", "uncheckable": "dim"}
    judged = entry(exp, {exp.runs_on: rows})
    for c in judged["claims"]:
        v = c["verdicts"][exp.runs_on]
        console().print(
            f"[{style[v['verdict']]}]{v['verdict']}[/] ({v['passed']}/{v['points']}) {claim_words(c)}\n"
            f"    {check_words(c)}\n    {v['numbers']}"
        )
    for text in judged["unchecked"]:
        console().print(f"[dim]not stated as a check[/] {text}")


def _summary(table: object, x_name: str, metrics: list[str], variants: list[str]) -> None:
    """Means per x and variant of the figure's first metric, as a table."""
    import pyarrow as pa
    from rich.table import Table

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
    console().print(out)
