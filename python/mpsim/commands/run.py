"""``mpsim run`` and ``mpsim validate``."""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from mpsim.commands import console as terminal

if TYPE_CHECKING:
    from rich.console import Console


class Format(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


def wall_seconds(text: str | None, option: str = "--time-limit") -> float | None:
    """A wall-time option (``"30s"``, ``"5min"``, or plain seconds) in seconds."""
    if text is None:
        return None
    from mpsim import ConfigError
    from mpsim.units import UnitError, parse_time

    try:
        ns = parse_time(text)
    except UnitError as e:
        raise ConfigError(f"{option}: {e}") from None
    if ns <= 0:
        raise ConfigError(f"{option}: must be a positive duration, got {text!r}")
    return ns / 1e9


def write_run(res: Any, out: Path, scenario: Any) -> list[Path]:
    """Every table of a run as ``out/NAME.parquet`` and ``out/NAME.csv``, the core's results as
    ``out/results.json`` and the resolved configuration as ``out/config.json``."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in res.tables().items():
        pq.write_table(table, out / f"{name}.parquet")
        pacsv.write_csv(table, out / f"{name}.csv")
        written += [out / f"{name}.parquet", out / f"{name}.csv"]
    (out / "results.json").write_text(json.dumps(res.raw))
    (out / "config.json").write_text(json.dumps(scenario.to_core(res.seed), indent=1))
    return [*written, out / "results.json", out / "config.json"]


class RunProgress:
    """A progress bar on stderr for a run that takes more than ``after_s`` of wall time: simulated time
    reached of the stop time. Nothing when stderr is not a terminal (``callback`` is then None, so the
    engine calls nothing) or while the run is short, and never anything on stdout."""

    def __init__(self, label: str, after_s: float = 2.0, console: Console | None = None) -> None:
        self.label = label
        self.after_s = after_s
        self.console = console or terminal(stderr=True)
        self.started = time.monotonic()
        self.bar: Any = None
        self.task: Any = None

    @property
    def callback(self) -> Callable[[int, int], None] | None:
        return self.update if self.console.is_terminal else None

    def update(self, now_ns: int, stop_time_ns: int) -> None:
        if self.bar is None:
            if time.monotonic() - self.started < self.after_s:
                return
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TextColumn("{task.completed:.3f} of {task.total:.3f} s simulated"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=stop_time_ns / 1e9)
        self.bar.update(self.task, completed=now_ns / 1e9)

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _json_row(row: dict[str, Any]) -> dict[str, Any]:
    """A table row for JSON, which has no NaN: a value that is not a number is null."""
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in row.items()}


FIRST_FLOW_COLUMNS = ["name", "kind", "subflows", "start_s", "fct_s", "bytes_delivered", "goodput_mbps"]
"""The columns the summary puts first: what a transfer achieved, before its counters."""


def _summary(res: Any, scenario: Any, file: Path, max_rows: int | None) -> str:
    """The choices in force and the paths' base RTTs, the flows (goodput among the first columns), the
    subflows, the UDP flows and the busiest links (every link that dropped or is traced, and the four busiest,
    busiest first), as text."""
    import pyarrow as pa

    from mpsim.engine import GOODPUT_DEFINITION
    from mpsim.textable import format_table

    flows = res.flows
    columns = FIRST_FLOW_COLUMNS + [c for c in flows.column_names if c not in FIRST_FLOW_COLUMNS]
    parts = [_overview(scenario, res.seed)]
    title = f"{file}: flows (seed {res.seed}; {GOODPUT_DEFINITION}, Mbit/s)"
    parts.append(format_table(flows.select(columns), title=title, max_rows=max_rows))
    if res.mptcp_subflows.num_rows:
        subflow_columns = ["connection", "subflow", "src", "dst", "bytes_delivered", "goodput_mbps"]
        title = "MPTCP subflows (goodput: bytes the subflow delivered in order / its connection's time active)"
        parts.append(format_table(res.mptcp_subflows.select(subflow_columns), title=title, max_rows=max_rows))
    if res.udp_flows.num_rows:
        parts.append(format_table(res.udp_flows, title="UDP flows", max_rows=max_rows))
    links = sorted(res.links.to_pylist(), key=lambda r: -r["utilisation"])
    shown = [r for r in links if r["dropped_bytes"] > 0 or r["name"] in scenario.trace.queues] + links[:4]
    rows = sorted({r["name"]: r for r in shown}.values(), key=lambda r: -r["utilisation"])
    columns = ["name", "utilisation", "delivered_pkts", "dropped_bytes", "max_queue_pkts", "mean_queue_pkts"]
    busiest = pa.Table.from_pylist([{c: r[c] for c in columns} for r in rows], schema=res.links.select(columns).schema)
    parts.append(format_table(busiest, title="Busiest links"))
    parts.append(f"{res.events_processed:,} events, {res.end_time_s:.3f} s simulated.")
    return "\n\n".join(parts)


def _overview(scenario: Any, seed: int | None = None) -> str:
    """The choices in force for each flow and the base RTT of each of its paths (:mod:`mpsim.overview`)."""
    from mpsim.overview import overview_text, profiles_chosen

    return overview_text(scenario.to_core(seed), profiles_chosen(scenario))


def register(app: typer.Typer) -> None:
    @app.command()
    def run(
        file: Annotated[Path, typer.Argument(help="Scenario file (TOML).", exists=False)],
        seed: Annotated[int | None, typer.Option(help="Master seed (overrides the file's).")] = None,
        format: Annotated[
            Format,
            typer.Option(
                "--format",
                "-f",
                help="table: readable text; csv: one table (--table, default flows); json: every table, or --table.",
            ),
        ] = Format.table,
        table: Annotated[
            str | None,
            typer.Option("--table", "-t", help="The table to print (flows, links, tcp_traces, segment_traces, ...)."),
        ] = None,
        max_rows: Annotated[
            int | None, typer.Option("--max-rows", help="Print at most this many rows of a table (text format).")
        ] = 100_000,
        out: Annotated[
            Path | None,
            typer.Option("--out", "-o", help="Also write every table as Parquet and CSV into this directory."),
        ] = None,
        time_limit: Annotated[
            str | None, typer.Option("--time-limit", help="Stop the run after this much wall time (e.g. 30s, 5min).")
        ] = None,
        pcap: Annotated[
            Path | None,
            typer.Option(
                "--pcap",
                help="Write packet captures into this directory: one pcap per traced host and link "
                "(every TCP end host when nothing is traced).",
            ),
        ] = None,
    ) -> None:
        """Run one scenario and print its results (nothing if it is stopped)."""
        import mpsim
        from mpsim import ConfigError
        from mpsim.errors import did_you_mean

        limit_s = wall_seconds(time_limit)
        if max_rows is not None and max_rows < 1:
            raise ConfigError(f"--max-rows: must be at least 1, got {max_rows}")
        # Checked by the core in the run's one call (mpsim.run).
        scenario = mpsim.Scenario.from_toml(file, check=False)
        with RunProgress(file.name) as bar:
            res = mpsim.run(scenario, seed=seed, time_limit=limit_s, pcap=pcap, progress=bar.callback)
        tables = res.tables()
        if table is not None and table not in tables:
            known = list(tables)
            hint = did_you_mean(table, known)
            raise ConfigError(f"--table: unknown table {table!r}{hint} (known: {', '.join(known)})")
        if out is not None:
            write_run(res, out, scenario)
            sys.stderr.write(f"every table as Parquet and CSV in {out}\n")
        if pcap is not None:
            files = sorted(p.name for p in pcap.glob("*.pcap"))
            sys.stderr.write(f"packet captures in {pcap}: {', '.join(files) or 'none'}\n")
        if format is Format.json:
            chosen = {table: tables[table]} if table else tables
            rows = {name: [_json_row(r) for r in t.to_pylist()] for name, t in chosen.items()}
            sys.stdout.write(json.dumps(rows[table] if table else rows, allow_nan=False) + "\n")
            return
        if format is Format.csv:
            import pyarrow.csv as pacsv

            pacsv.write_csv(tables[table or "flows"], sys.stdout.buffer)
            return
        if table is not None:
            from mpsim.textable import format_table

            sys.stdout.write(format_table(tables[table], title=f"{file}: {table}", max_rows=max_rows) + "\n")
            return
        sys.stdout.write(_summary(res, scenario, file, max_rows) + "\n")

    @app.command()
    def validate(
        file: Annotated[Path, typer.Argument(help="Scenario or sweep file (TOML).")],
        resolved: Annotated[
            bool,
            typer.Option(
                "--resolved",
                help="Print the full resolved configuration as JSON on stdout: the network and flows in base "
                "units, and every TCP parameter of each flow's profile with its overrides (the check's summary "
                "goes to stderr).",
            ),
        ] = False,
    ) -> None:
        """Check a scenario or sweep file without running it: every problem, one line each."""
        import mpsim
        from mpsim.scenario import read_toml

        # Plain lines (no rich: this command should start fast); with --resolved, stdout is the JSON alone.
        said = sys.stderr if resolved else sys.stdout
        data = read_toml(file)
        if _is_sweep(data):
            _validate_sweep(file, resolved, said)
            return
        scenario = mpsim.Scenario.from_dict(data, check=False, base_dir=Path(file).parent)
        events, rows = scenario.check()
        net = scenario.network()
        n_links = sum(len(link.to_core()) for link in net.links)
        n_nodes = len(net.hosts) + len(net.routers)
        n_flows = len(scenario.flows)
        said.write(f"{file}: valid ({n_nodes} nodes, {n_links} one-way links, {n_flows} flow{'s' * (n_flows != 1)})\n")
        said.write(f"estimated cost: {events:.3g} events, {rows:.3g} trace rows (docs/scenarios.md, Limits)\n")
        said.write(_overview(scenario) + "\n")
        if resolved:
            document = {"file": str(file), "units": UNITS, **_resolved(scenario.to_core())}
            sys.stdout.write(json.dumps(document, indent=1) + "\n")


def _is_sweep(data: dict[str, Any]) -> bool:
    """Whether a TOML file is a sweep (a base scenario with axes, variants or seeds) rather than a scenario."""
    return "base" in data and any(k in data for k in ("axes", "variants", "seeds", "runs", "extract"))


UNITS = (
    "times and durations in integer nanoseconds (fields ending in _ns, and the TCP parameters' durations such "
    "as rtt.min_rto), rates in bit/s, sizes in bytes unless the name says packets or segments; null: unset"
)
"""What the numbers of ``validate --resolved`` are in."""


def _resolved(config: dict[str, Any]) -> dict[str, Any]:
    """The configuration as the core runs it (base units) and each flow's resolved parameters: its TCP
    parameters (the profile's, with the flow's overrides), congestion control and slow start, typed."""
    from mpsim._core import resolved_json

    return {"config": config, "flows": json.loads(resolved_json(json.dumps(config)))}


def _validate_sweep(file: Path, resolved: bool, said: TextIO) -> None:
    """Checks every point of a sweep: each variant with each combination of axis values."""
    import mpsim
    from mpsim.sweep import load_sweep

    spec = load_sweep(file)
    seeds = spec.seed_list
    checked = 0
    points = []
    for point in spec.points():
        if point.seed != seeds[0]:
            continue  # the seed changes no setting
        scenario = spec.scenario(point)
        mpsim.validate_config(scenario.to_core(point.seed))
        checked += 1
        if resolved:
            points.append({"variant": point.variant, "axes": point.axes, **_resolved(scenario.to_core(point.seed))})
    if resolved:
        sys.stdout.write(json.dumps({"file": str(file), "units": UNITS, "points": points}, indent=1) + "\n")
    n_axes = " × ".join(f"{len(v)} {k}" for k, v in spec.axes.items()) or "no axis"
    said.write(
        f"{file}: valid sweep ({len(spec.variant_names)} variants × {n_axes} = {checked} scenarios, "
        f"{len(seeds)} seeds each: {checked * len(seeds)} runs)\n"
    )
