"""The command line's help reads as prose: a flag shows no value type, and a docstring's paragraphs are
wrapped by the terminal, not broken where the source broke them."""

from __future__ import annotations

import os
import subprocess
import sys


def help_text(*args: str, columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns)}
    done = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", *args, "--help"], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_flags_show_no_value_type() -> None:
    top = help_text(columns=80)
    assert "<bool>" not in top and "--version" in top
    sweep = help_text("sweep", columns=80)
    assert "<bool>" not in sweep and "--no-progress" in sweep and "<int>" in sweep


def test_a_paragraph_of_help_is_one_paragraph() -> None:
    text = help_text("plot", columns=240)
    assert (
        "A sweep: each metric's mean with error bars against the swept parameter, one line per variant and category"
        in text
    )
    listing = help_text(columns=240)
    # The listing shows each command's first paragraph whole, on its row.
    assert "Reproduce paper figures, judge the papers' claims on them, and write a report." in listing
    assert (
        "List the experiments of the catalogue: the figures of the CSS, GSAM, Couple+, LISA and MPCubic papers."
        in listing
    )
