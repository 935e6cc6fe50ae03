"""The ``mpsim`` command line."""

from __future__ import annotations

import importlib
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from mpsim import ConfigError, __version__

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


# Each module defines ``register(app)``; a new command is a new module and one line here.
COMMANDS = (
    "mpsim.commands.run",
    "mpsim.commands.sweep",
    "mpsim.commands.plot",
    "mpsim.commands.demo",
    "mpsim.commands.bench",
    "mpsim.commands.experiments",
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
