"""``mpsim bench``."""

from __future__ import annotations

from typing import Annotated

import typer

from mpsim import ConfigError
from mpsim.commands import console


def register(app: typer.Typer) -> None:
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
                console().print(f"[bold]{key}[/bold]  {description}")
            return
        if name not in BENCHMARKS:
            raise ConfigError(f"bench: unknown benchmark '{name}'; known: {', '.join(BENCHMARKS)}")
        with console().status(f"running {name} ..."):
            report = BENCHMARKS[name][1]()
        if as_json:
            print(_json.dumps(report.to_dict(), indent=2))
            return
        from rich.table import Table

        table = Table(title=f"{name}: {BENCHMARKS[name][0]}", show_header=False)
        rows = [
            ("simulated seconds", f"{report.simulated_s:g}"),
            ("bottleneck packets", f"{report.bottleneck_packets:,}"),
            ("events", f"{report.events:,}"),
            ("build wall s", f"{report.build_wall_s:.3f}"),
            ("run wall s", f"{report.run_wall_s:.3f}"),
            ("events / wall s", f"{report.events_per_s:,.0f}"),
            ("ns per event", f"{report.ns_per_event:.1f}"),
            ("events pending (mean)", f"{report.event_queue_mean:,.1f}"),
            ("bottleneck packets / wall s", f"{report.bottleneck_packets_per_s:,.0f}"),
            ("peak memory MiB", f"{report.peak_memory_mib:.1f}"),
        ]
        rows += [(k.replace("_", " "), f"{v:.4g}" if isinstance(v, float) else str(v)) for k, v in report.extra.items()]
        for key, value in rows:
            table.add_row(key, value)
        console().print(table)
