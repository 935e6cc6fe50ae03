"""The ``mpsim`` command line."""

from __future__ import annotations

import importlib
import sys
import time
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
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
    for row in res.tcp_flows.to_pylist():
        fct = row["fct_ns"]
        flows.add_row(
            row["name"],
            "TCP Reno",
            f"{fct / 1e9:.3f}" if fct is not None else "—",
            str(row["retransmits_fast"] + row["retransmits_rto"]),
            str(row["rto_count"]),
        )
    for row in res.mptcp_connections.to_pylist():
        fct = row["fct_ns"]
        flows.add_row(
            row["name"],
            "MPTCP LIA, 2 subflows",
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


# Each module defines ``register(app)``; a new command is a new module and one line here.
COMMANDS = (
    "mpsim.commands.run",
    "mpsim.commands.sweep",
    "mpsim.commands.plot",
)
for _module in COMMANDS:
    importlib.import_module(_module).register(app)


def main() -> None:
    """Entry point: configuration errors end with status 2 and one line per problem, never a traceback."""
    try:
        app()
    except ConfigError as e:
        for line in str(e).splitlines() or [str(e)]:
            err_console.print(f"[red]error:[/red] {escape(line)}", soft_wrap=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
