"""The committed generated tables name the engine they were produced with, and it is the current one.

docs/scorecard.json (and the tables of docs/reproduction.md written from it) and the two blocks of
docs/validation.md record :func:`mpsim.fingerprint.engine_id` of the run that made them. Re-running them is
minutes of work, so ``make test`` only compares the recorded identity with the engine built now; when the core
changes, these tests fail until the command each message names has been run and its output committed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mpsim.experiments.scorecard import load
from mpsim.fingerprint import engine_id
from validation import stamp

ROOT = Path(__file__).resolve().parents[1]
SCORECARD = ROOT / "docs" / "scorecard.json"
VALIDATION = ROOT / "docs" / "validation.md"
BLOCKS = {
    "ns3": ("<!-- ns3:begin -->", "<!-- ns3:end -->", "make validate-ns3", "the ns-3.44 comparison"),
    "linux": ("<!-- linux:begin -->", "<!-- linux:end -->", "make validate-linux", "the Linux 6.18 comparison"),
}


def stale(what: str, recorded: str | None, command: str) -> str:
    """Why a committed artefact is stale, and the one command that makes it current."""
    found = f"was generated on engine {recorded} (the core has changed since)" if recorded else "records no engine"
    return f"{what} {found}; the current engine is {engine_id()}. Regenerate it with `{command}` and commit the result."


def test_the_scorecard_is_from_the_current_engine() -> None:
    recorded = load(SCORECARD).get("engine")
    what = "docs/scorecard.json (and the generated tables of docs/reproduction.md)"
    assert recorded == engine_id(), stale(what, recorded, "make scorecard JOBS=2")


@pytest.mark.parametrize("name", BLOCKS)
def test_each_validation_table_is_from_the_current_engine(name: str) -> None:
    begin, end, command, what = BLOCKS[name]
    found = re.search(re.escape(begin) + r"(.*?)" + re.escape(end), VALIDATION.read_text(), re.DOTALL)
    assert found, f"docs/validation.md: no block between {begin} and {end}; `{command}` writes it"
    stamped = stamp.read(found[1])
    assert stamped is None or stamped[0] == command, f"{what} names `{stamped[0]}`, expected `{command}`"
    recorded = stamped[1] if stamped else None
    assert recorded == engine_id(), stale(f"docs/validation.md, {what},", recorded, command)


def test_a_stamp_reads_back_as_written() -> None:
    assert stamp.read(stamp.line("make validate-ns3") + " from the reference.") == ("make validate-ns3", engine_id())
    assert stamp.read("no stamp here") is None
