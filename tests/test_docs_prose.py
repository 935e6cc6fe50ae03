"""docs/reproduction.md's hand-written prose states no verdict: the verdicts, their points and the counts of what
holds are generated from docs/scorecard.json into the blocks between the ``scorecard`` markers, and the prose
explains mechanisms, the papers' settings and the readings chosen. Outside those blocks a sentence may name the
verdict words only where they are defined ("How a claim is judged", "Claims as checks, and the scorecard", "The
report in the browser") or in the dated measurements of other readings ("Why the checks that fail do, measured",
whose tables judge other configurations than the scorecard's)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EXEMPT_SECTIONS = (
    "How a claim is judged",
    "Claims as checks, and the scorecard",
    "The report in the browser",
    "Why the checks that fail do, measured",
)

VERDICT = r"(?:holds|fails|partly|untested|uncheckable)"
STATES_A_VERDICT = {
    "a verdict with its points": re.compile(rf"\b{VERDICT}\s*\(?\d+/\d+\b"),
    "a verdict in brackets": re.compile(r"[(:]\s*(?:holds|fails|partly)(?: in part)?\)"),
    "a verdict on a stack": re.compile(rf"\b{VERDICT} (?:on|under) (?:the paper's stack|`linux`|`ns3`|every stack)"),
    "a count of what holds": re.compile(
        r"\b\d+ of (?:the )?\d+\b[^.;]{0,30}\b(?:hold|holds|fail|fails|pass|passes)\b"
        r"|\b(?:holds?|fails?|pass(?:es)?) (?:only )?(?:at|in|for) \d+ of (?:the )?\d+\b"
    ),
    "a tally": re.compile(r"\b\d+ (?:holds?|fail|fails)\b[,;]|\b\d+ (?:hold|holds) in part\b"),
    "a headline's verdict": re.compile(r"\bH\d\b[^.;]{0,60}\b(?:holds|fails|does not hold)\b"),
}

_MARKER = re.compile(r"<!-- (/?)scorecard:\w+ -->")


def prose(text: str) -> list[tuple[int, str, str]]:
    """The hand-written lines of ``text`` with their numbers and sections: outside the generated blocks, code
    fences and the sections of :data:`EXEMPT_SECTIONS`."""
    out, generated, fenced, section = [], False, False, ""
    for number, line in enumerate(text.splitlines(), 1):
        marker = _MARKER.fullmatch(line.strip())
        if marker:
            generated = not marker.group(1)
            continue
        if line.startswith("```"):
            fenced = not fenced
        if line.startswith("#"):
            section = line.lstrip("# ")
        if not (generated or fenced or section.startswith(EXEMPT_SECTIONS)):
            out.append((number, section, line))
    return out


_MOVED = re.compile(
    rf"\b{VERDICT}(?: \d+/\d+)?(?: at p = [\d.]+)? ?→ ?(?:{VERDICT})?(?: \d+/\d+)?|→ ?{VERDICT}(?: \d+/\d+)?"
)
"""A verdict moved by a reading, ``partly 4/6 → fails 0/6``: a measurement of another configuration, not the
scorecard's."""


def verdicts_stated(text: str) -> list[str]:
    return [
        f"line {number} ({section}): {what}: {line.strip()[:120]}"
        for number, section, line in prose(text)
        for what, pattern in STATES_A_VERDICT.items()
        if pattern.search(_MOVED.sub("", line))
    ]


def test_the_hand_written_prose_of_reproduction_md_states_no_verdict() -> None:
    found = verdicts_stated((ROOT / "docs" / "reproduction.md").read_text())
    assert not found, "verdicts belong in the generated blocks:\n" + "\n".join(found)


def test_the_scan_finds_verdicts_and_passes_explanations() -> None:
    stated = [
        "The check holds (3/3) at every buffer.",
        "GSAM's goodput stays within 10 % of MPTCP's (holds).",
        "It holds on the paper's stack and fails on `linux`.",
        "25 of 27 buffers hold, and it fails at 3 of 10 sizes.",
        "Of the checks, 33 hold, 29 hold in part and 35 fail.",
        "H4 (goodput of large flows) holds in all three sweeps.",
    ]
    for line in stated:
        assert verdicts_stated(f"# S\n\n{line}\n"), line
    explained = [
        "A claim *holds* where every point holds, is *partly* true where some do, *fails* where none do.",
        "The verdicts are in the table above; the check reads 'often' at every size.",
        "Both 55 KB transfers together are 206 segments of 536 B, in 28 of 50 connections.",
    ]
    for line in explained:
        assert not verdicts_stated(f"# S\n\n{line}\n"), line
    generated = "<!-- scorecard:css -->\n| `a#1` | holds (3/3) |\n<!-- /scorecard:css -->\n"
    assert not verdicts_stated(generated)
    assert not verdicts_stated("### Why the checks that fail do, measured\n\n| x | partly 1/2 | holds 2/2 |\n")
    assert not verdicts_stated("# S\n\nOn `rfc` the check went partly 4/6 → fails 0/6 and fails → holds 6/6.\n")
