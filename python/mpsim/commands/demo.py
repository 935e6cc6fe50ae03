"""``mpsim demo``."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from mpsim.commands import console


def register(app: typer.Typer) -> None:
    @app.command()
    def demo(seed: Annotated[int, typer.Option(help="Master seed of the run.")] = 1) -> None:
        """Run a small scenario (MPTCP and TCP at a shared bottleneck, UDP cross traffic) and print its results."""
        from rich.table import Table

        from mpsim.demo import demo_config
        from mpsim.engine import run_config

        cfg = demo_config(seed)
        started = time.perf_counter()
        with console().status("simulating 20 s of a shared bottleneck..."):
            res = run_config(cfg)
        wall = time.perf_counter() - started

        flows = Table(title="Flows (5 MB each)")
        for col in ("flow", "kind", "completion s", "retransmissions", "RTOs"):
            flows.add_column(col, justify="right" if col != "flow" else "left")
        kinds = {"tcp": "TCP Reno", "mptcp": "MPTCP LIA, 2 subflows"}
        for row in res.flows.to_pylist():
            fct = row["fct_s"]
            flows.add_row(
                row["name"],
                kinds[row["kind"]],
                f"{fct:.3f}" if fct is not None else "—",
                str(row["retransmissions"]),
                str(row["rto_count"]),
            )
        console().print(flows)

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
        console().print(links)
        console().print(
            f"{res.events_processed:,} events in {wall:.3f} s of wall time "
            f"({res.events_processed / max(wall, 1e-9):,.0f} events/s), seed {res.seed}."
        )
