"""The ``mpsim`` command line."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from mpsim import ConfigError, __version__, run_config

app = typer.Typer(
    name="mpsim",
    help="A fast, deterministic packet-level simulator of multipath TCP congestion control.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        console.print(f"mpsim {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """A fast, deterministic packet-level simulator of multipath TCP congestion control."""


@app.command()
def demo(seed: Annotated[int, typer.Option(help="Master seed of the run.")] = 1) -> None:
    """Run a small scenario (MPTCP and TCP at a shared bottleneck, UDP cross traffic) and print its results."""
    from mpsim.demo import demo_config

    cfg = demo_config(seed)
    started = time.perf_counter()
    with console.status("simulating 20 s of a shared bottleneck..."):
        res = run_config(cfg)
    wall = time.perf_counter() - started

    flows = Table(title="Flows (5 MB each)")
    for col in ("flow", "kind", "completion s", "retransmissions", "RTOs"):
        flows.add_column(col, justify="right" if col != "flow" else "left")
    kinds = [(res.tcp_flows, "TCP Reno"), (res.mptcp_connections, "MPTCP LIA, 2 subflows")]
    for table, kind in kinds:
        for row in table.to_pylist():
            fct = row["fct_ns"]
            flows.add_row(
                row["name"],
                kind,
                f"{fct / 1e9:.3f}" if fct is not None else "—",
                str(row["retransmits_fast"] + row["retransmits_rto"]),
                str(row["rto_count"]),
            )
    console.print(flows)

    bn = res.link("R1-R2")
    links = Table(title="Bottleneck R1→R2 (10 Mbit/s, 50-packet drop-tail)")
    for col in ("delivered pkts", "overflow drops", "max queue pkts", "mean queue pkts", "utilisation"):
        links.add_column(col, justify="right")
    links.add_row(
        str(bn["delivered_pkts"]),
        str(bn["dropped_overflow_pkts"]),
        str(bn["max_queue_pkts"]),
        f"{bn['mean_queue_pkts']:.1f}",
        f"{bn['utilisation']:.3f}",
    )
    console.print(links)
    console.print(
        f"{res.events_processed:,} events in {wall:.3f} s of wall time "
        f"({res.events_processed / max(wall, 1e-9):,.0f} events/s), seed {res.seed}."
    )


@app.command()
def bench(
    name: Annotated[str, typer.Argument(help="Benchmark to run; `mpsim bench list` names them.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Run a fixed benchmark scenario and report wall time, events/s, packets/s and peak memory."""
    import json as _json

    from mpsim.bench import BENCHMARKS

    if name == "list":
        for key, (description, _) in BENCHMARKS.items():
            console.print(f"[bold]{key}[/bold]  {description}")
        return
    if name not in BENCHMARKS:
        raise ConfigError(f"bench: unknown benchmark '{name}'; known: {', '.join(BENCHMARKS)}")
    with console.status(f"running {name} ..."):
        report = BENCHMARKS[name][1]()
    if as_json:
        print(_json.dumps(report.to_dict(), indent=2))
        return
    table = Table(title=f"{name}: {BENCHMARKS[name][0]}", show_header=False)
    rows = [
        ("simulated seconds", f"{report.simulated_s:g}"),
        ("bottleneck packets", f"{report.bottleneck_packets:,}"),
        ("events", f"{report.events:,}"),
        ("build wall s", f"{report.build_wall_s:.3f}"),
        ("run wall s", f"{report.run_wall_s:.3f}"),
        ("events / wall s", f"{report.events_per_s:,.0f}"),
        ("bottleneck packets / wall s", f"{report.bottleneck_packets_per_s:,.0f}"),
        ("peak memory MiB", f"{report.peak_memory_mib:.1f}"),
    ]
    rows += [(k.replace("_", " "), f"{v:.4g}" if isinstance(v, float) else str(v)) for k, v in report.extra.items()]
    for key, value in rows:
        table.add_row(key, value)
    console.print(table)


def main() -> None:
    """Entry point: configuration errors end with status 2 and one line per problem, never a traceback."""
    try:
        app()
    except ConfigError as e:
        err_console.print(f"[red]error:[/red] {e}")
        sys.exit(2)


if __name__ == "__main__":
    main()
