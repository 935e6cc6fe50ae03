"""The committed generated tables name the engine they were produced with, and it is the current one.

docs/scorecard.json (and the tables of docs/reproduction.md written from it) records
:func:`mpsim.fingerprint.engine_id` of the run that made it. Re-running them is
minutes of work, so ``make test`` only compares the recorded identity with the engine built now; when the core
changes, these tests fail until the command each message names has been run and its output committed.
"""

from __future__ import annotations

from pathlib import Path

from mpsim.experiments.scorecard import load
from mpsim.fingerprint import engine_id

ROOT = Path(__file__).resolve().parents[1]
SCORECARD = ROOT / "docs" / "scorecard.json"


def stale(what: str, recorded: str | None, command: str) -> str:
    """Why a committed artefact is stale, and the one command that makes it current."""
    found = f"was generated on engine {recorded} (the core has changed since)" if recorded else "records no engine"
    return f"{what} {found}; the current engine is {engine_id()}. Regenerate it with `{command}` and commit the result."


def test_the_scorecard_is_from_the_current_engine() -> None:
    recorded = load(SCORECARD).get("engine")
    what = "docs/scorecard.json (and the generated tables of docs/reproduction.md)"
    assert recorded == engine_id(), stale(what, recorded, "make scorecard JOBS=2")
