"""Subcommands of ``mpsim``: each module defines ``register(app)``; :mod:`mpsim.cli` lists them."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


@cache
def console(stderr: bool = False) -> Console:
    """The terminal's rich console (stdout, or stderr), made when a command first prints through it: importing
    rich takes about 20 ms, which a command that writes plain lines (``validate``) need not spend."""
    from rich.console import Console

    return Console(stderr=stderr)
