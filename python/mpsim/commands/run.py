"""``mpsim run`` and ``mpsim validate``."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

console = Console()


class Format(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


def _fmt_s(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


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


def register(app: typer.Typer) -> None:
    @app.command()
    def run(
        file: Annotated[Path, typer.Argument(help="Scenario file (TOML).", exists=False)],
        seed: Annotated[int | None, typer.Option(help="Master seed (overrides the file's).")] = None,
        format: Annotated[
            Format, typer.Option("--format", "-f", help="table: readable; json: every result; csv: the flows table.")
        ] = Format.table,
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

        limit_s = wall_seconds(time_limit)
        scenario = mpsim.load(file)
        res = mpsim.run(scenario, seed=seed, time_limit=limit_s, pcap=pcap)
        if pcap is not None:
            files = sorted(p.name for p in pcap.glob("*.pcap"))
            sys.stderr.write(f"packet captures in {pcap}: {', '.join(files) or 'none'}\n")
        if format is Format.json:
            sys.stdout.write(json.dumps(res.raw) + "\n")
            return
        if format is Format.csv:
            import pyarrow.csv as pacsv

            pacsv.write_csv(res.flows, sys.stdout.buffer)
            return
        flows = Table(title=f"{file}: flows (seed {res.seed})")
        for col in ("flow", "kind", "subflows", "start s", "completion s", "delivered B", "retransmissions", "RTOs"):
            flows.add_column(col, justify="left" if col in ("flow", "kind") else "right")
        for r in res.flows.to_pylist():
            flows.add_row(
                r["name"],
                r["kind"],
                str(r["subflows"]),
                f"{r['start_s']:.3f}",
                _fmt_s(r["fct_s"]),
                f"{r['bytes_delivered']:,}",
                str(r["retransmissions"]),
                str(r["rto_count"]),
            )
        console.print(flows)
        if res.udp_flows.num_rows:
            udp = Table(title="UDP flows")
            for col in ("flow", "sent pkts", "received pkts", "mean delay ms"):
                udp.add_column(col, justify="left" if col == "flow" else "right")
            for r in res.udp_flows.to_pylist():
                udp.add_row(r["name"], str(r["sent_pkts"]), str(r["received_pkts"]), f"{r['delay_mean_ns'] / 1e6:.2f}")
            console.print(udp)
        links = sorted(res.links.to_pylist(), key=lambda r: -r["utilisation"])
        shown = [r for r in links if r["dropped_bytes"] > 0 or r["name"] in scenario.trace.queues] + links[:4]
        seen: set[str] = set()
        table = Table(title="Busiest links")
        for col in ("link", "utilisation", "delivered pkts", "drops", "max queue pkts", "mean queue pkts"):
            table.add_column(col, justify="left" if col == "link" else "right")
        for r in shown:
            if r["name"] in seen:
                continue
            seen.add(r["name"])
            drops = (
                r["dropped_overflow_pkts"] + r["dropped_red_pkts"] + r["dropped_codel_pkts"] + r["dropped_loss_pkts"]
            )
            table.add_row(
                r["name"],
                f"{r['utilisation']:.3f}",
                str(r["delivered_pkts"]),
                str(drops),
                str(r["max_queue_pkts"]),
                f"{r['mean_queue_pkts']:.1f}",
            )
        console.print(table)
        console.print(f"{res.events_processed:,} events, {res.end_time_s:.3f} s simulated.")

    @app.command()
    def validate(file: Annotated[Path, typer.Argument(help="Scenario file (TOML).")]) -> None:
        """Check a scenario file without running it: every problem, one line each."""
        import mpsim

        scenario = mpsim.load(file)
        net = scenario.network()
        n_links = sum(len(link.to_core()) for link in net.links)
        n_nodes = len(net.hosts) + len(net.routers)
        events, rows = mpsim.estimate_config(scenario.to_core())
        console.print(f"{file}: valid ({n_nodes} nodes, {n_links} one-way links, {len(scenario.flows)} flows)")
        console.print(f"estimated cost: {events:.3g} events, {rows:.3g} trace rows (docs/scenarios.md, Limits)")
