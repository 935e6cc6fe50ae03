"""The ``mpsim`` command line."""

from __future__ import annotations

import importlib
import inspect
import signal
import sys
import traceback
from typing import Annotated, Any

import typer

from mpsim import ConfigError, PluginError, TimeLimitError, __version__


def _flag_type(self: typer.core.TyperOption, ctx: Any) -> str | None:
    """No type beside a flag (``--help``, ``--progress/--no-progress``): it takes no value, and typer would
    print ``<bool>`` as if it took one."""
    return None if self.is_flag else _option_type(self, ctx)


_option_type = typer.core.TyperOption.display_type_rich
typer.core.TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign]

app = typer.Typer(
    name="mpsim",
    help="A fast, deterministic packet-level simulator of multipath TCP congestion control.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"mpsim {__version__}\n")
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
    "mpsim.commands.show",
    "mpsim.commands.demo",
    "mpsim.commands.bench",
    "mpsim.commands.experiments",
)
for _module in COMMANDS:
    importlib.import_module(_module).register(app)


def _paragraphs(text: str) -> str:
    """A docstring as help: each paragraph one line, which the terminal wraps (typer keeps a docstring's line
    breaks, and a wrapped line then breaks again mid-sentence)."""
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n"))


for _command in app.registered_commands:
    _command.help = _paragraphs(_command.help or inspect.getdoc(_command.callback) or "")


EXIT_CONFIG = 2
"""Status of a run refused or stopped for its input: one line per problem on stderr."""
EXIT_RUNS_FAILED = 1
"""Status of a sweep some of whose runs failed or passed their time limit (the others are stored)."""
EXIT_TIME_LIMIT = 124
"""Status of a run stopped by ``--time-limit`` (as timeout(1) exits)."""
EXIT_INTERRUPTED = 130
"""Status after Ctrl-C (128 + SIGINT), as shells report it."""


def _fail(message: str, status: int) -> None:
    from rich.markup import escape

    from mpsim.commands import console

    for line in message.splitlines() or [message]:
        console(stderr=True).print(f"[red]error:[/red] {escape(line)}", soft_wrap=True)
    sys.exit(status)


class _Interrupted(Exception):
    """Ctrl-C, raised by the CLI's own SIGINT handler: click turns a KeyboardInterrupt into
    "Aborted!" and status 1, and lets other exceptions through to :func:`main`. Marked as an interruption,
    so that one raised inside a plug-in's hook stops the run as Ctrl-C, not as the plug-in's failure."""

    mpsim_interruption = True


def _on_sigint(signum: int, frame: Any) -> None:
    raise _Interrupted


def _fail_plugin(e: PluginError) -> None:
    """A plug-in's failure: the traceback of its exception (its file and line), then the message, status 1."""
    cause = e.__cause__
    if cause is not None:
        sys.stderr.write("".join(traceback.format_exception(cause)))
    _fail(str(e), EXIT_RUNS_FAILED)


def _is_sweep_failure(e: Exception) -> bool:
    """Whether ``e`` is a sweep's :class:`~mpsim.sweep.SweepFailed`: only a command that imported the sweep
    module can raise one, and the others should not import it (with Arrow and the scenario model) to ask."""
    sweep = sys.modules.get("mpsim.sweep")
    return sweep is not None and isinstance(e, sweep.SweepFailed)


def main() -> None:
    """Entry point: every outcome is a result or a message, never a traceback. Configuration errors end
    with status 2 and one line per problem, a run past ``--time-limit`` with 124, Ctrl-C with 130."""
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        app()
    except ConfigError as e:
        _fail(str(e), EXIT_CONFIG)
    except TimeLimitError as e:
        _fail(f"{e} (--time-limit)", EXIT_TIME_LIMIT)
    except RuntimeError as e:
        if not _is_sweep_failure(e):
            raise
        _fail(str(e), EXIT_RUNS_FAILED)
    except PluginError as e:
        _fail_plugin(e)
    except (_Interrupted, KeyboardInterrupt):
        _fail("interrupted (Ctrl-C); finished results are kept, nothing is left half-written", EXIT_INTERRUPTED)


if __name__ == "__main__":
    main()
