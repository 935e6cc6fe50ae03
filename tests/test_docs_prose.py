"""docs/reproduction.md's hand-written prose states no verdict: the verdicts, their points and the counts of what
holds are generated from docs/scorecard.json into the blocks between the ``scorecard`` markers, and the prose
explains mechanisms, the papers' settings and the readings chosen. Outside those blocks a sentence may name the
verdict words only where they are defined ("How a claim is judged", "Claims as checks, and the scorecard", "The
report in the browser") or in the dated measurements of other readings ("Why the checks that fail do, measured",
whose tables judge other configurations than the scorecard's). A verdict is stated by its word with its points or
in brackets, on a stack or a set ("holds on both stacks"), at points ("fails at every NCF", "holds at k = 0 only"),
of a claim, a quoted word or an order ('"comparable" fails', "the order holds"), of a whole experiment ("All four
hold", "Fails, narrowly"), set apart in bold, or as a check's points: "(7/7, 7/7)", "(0/15)" beside a verdict or a
claim, "at 12 of 15 NCF"."""

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
    "a verdict at points": re.compile(
        r"\b(?:holds|fails|partly)(?: only)? (?:at|for) (?:every|each|all|no|both|any|[a-zA-Zρ]+ = |\d)"
        r"|\bpass(?:es)?(?: only)? (?:at|for) (?:every|each|all)\b"
    ),
    "a verdict in or on a set": re.compile(
        r"\b(?:holds|fails|partly)(?: only)? (?:in|on) (?:every|each|all|both|no|two|three|four|\d)\b"
    ),
    "a claim's verdict": re.compile(
        r"(?:[\"”»]|\b(?:checks?|claims?|order|words|equivalence|headline|Table [IVX]+)\b),? (?:[\w'’]+ ){0,3}?"
        r"(?:holds?|fails?)\b(?! do\b)"
    ),
    "a verdict of a whole experiment": re.compile(
        r"\b(?:[Aa]ll|[Bb]oth) (?:\w+ )?(?:hold|fail)\b|(?:^|[.:;]\s+)(?:Holds|Fails|Partly)\b"
    ),
    "a verdict set apart": re.compile(
        r"\*\*(?:holds|fails|partly|untested|uncheckable)\*\*|\(\s*(?:holds|fails|partly)\b"
        r"|[,:]\s*(?:holds|fails|partly)(?: in part)?(?:\)|[,.;]|$)"
    ),
    "a verdict's points in brackets": re.compile(
        r"\(\d+/\d+(?:,\s*\d+/\d+)+\)"
        r"|(?:\b(?:holds?|fails?|partly|pass(?:es)?|checks?|claims?|order)\b|[\"”])[^.;]{0,80}\(\d+/\d+\)"
    ),
    "the points of a check, counted": re.compile(
        r"\bat \d+ of (?:the )?\d+\b(?! ?(?:[kMG]?bit|connections|runs|segments|packets|s\b))"
    ),
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


EACH_RULE_CATCHES = {
    "a verdict with its points": "The check holds (3/3) at every buffer.",
    "a verdict in brackets": "GSAM's goodput stays within 10 % of MPTCP's (holds).",
    "a verdict on a stack": "It holds on the paper's stack and fails on `linux`.",
    "a count of what holds": "25 of 27 buffers hold.",
    "a tally": "Of the checks, 33 hold, 29 hold in part and 35 fail.",
    "a headline's verdict": "H4 (goodput of large flows) holds in all three sweeps.",
    "a verdict at points": "Fig. 12's order fails at every size; it holds at k = 0 only.",
    "a verdict in or on a set": "It holds on both stacks and fails in two panels.",
    "a claim's verdict": 'Within 2 standard errors: "much smaller" fails.',
    "a verdict of a whole experiment": "All four hold. Fails, narrowly: MPCubic takes 11 % more.",
    "a verdict set apart": "p_nc < p_c (**holds**, by a factor of 4.7); falls at every step (ρ −1, holds).",
    "a verdict's points in brackets": "The four-way order ties neighbours within 10 % at every buffer (7/7, 7/7).",
    "the points of a check, counted": "GSAM beats MPTCP at 12 of 15 NCF.",
}


def test_each_rule_catches_its_own_form() -> None:
    assert set(EACH_RULE_CATCHES) == set(STATES_A_VERDICT)
    for what, line in EACH_RULE_CATCHES.items():
        assert STATES_A_VERDICT[what].search(line), (what, line)


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
        "Fig. 12's order fails at every size: TCP is the soonest at 50 KB.",
        "The order fails at every NCF (0/15).",
        "The four-way order holds at every buffer and every NCF (7/7, 7/7).",
        '"GSAM, then LISA, then MPTCP" fails at every rate.',
        'Over the first 1.2 s GSAM’s windows are 5.5 % smaller ("slightly slower", holds).',
        'LISA’s are within 2 standard errors: "much smaller" fails.',
        "The check holds at k = 0 only and partly at p = 0.05.",
        "TCP's completion time falls at every step (ρ −1, holds).",
        "Both checks hold. All four hold: MPCubic sends less on path 1.",
        "Fails, narrowly: MPCubic takes 11 % more. Table I fails, both checks.",
        "The sentence, judged: **partly**. p_nc < p_c (**holds**, by a factor of 4.7).",
        "GSAM beats MPTCP at 12 of 15 NCF, with fewer timeouts at 5 of the 6.",
        "The check of three fails; LISA's equivalence to MPTCP holds, exactly.",
        "MPCubic rises less than unMPCubic's (holds: × 1.01 against × 1.29).",
        "It holds on both stacks and fails in two panels.",
    ]
    for line in stated:
        assert verdicts_stated(f"# S\n\n{line}\n"), line
    explained = [
        "A claim *holds* where every point holds, is *partly* true where some do, *fails* where none do.",
        "The verdicts are in the table above; the check reads 'often' at every size.",
        "Both 55 KB transfers together are 206 segments of 536 B, in 28 of 50 connections.",
        "The 150 ms pipe holds 162 segments; GSAM's smoothing holds it at 20 packets.",
        "The link runs at 30 of 50 Mbit/s; the join's SYN is lost in 28 of 50 connections.",
        'The "Why the checks that fail do, measured" tables judge other readings.',
        "unMPCubic's (1/2)^(4/3) scaling leaves it below one Cubic flow; δ_s = 1/16 and p = 1/120.",
        "A check that needs |difference| < margin cannot pass at 50 packets, where nobody loses.",
        "The four-way order ties neighbours within 10 %: GSAM's smoothing costs 1–3 % at every buffer.",
        "The verdicts at every NCF are in the generated table; the loss rises at every rate.",
    ]
    for line in explained:
        assert not verdicts_stated(f"# S\n\n{line}\n"), line
    generated = "<!-- scorecard:css -->\n| `a#1` | holds (3/3) |\n<!-- /scorecard:css -->\n"
    assert not verdicts_stated(generated)
    assert not verdicts_stated("### Why the checks that fail do, measured\n\n| x | partly 1/2 | holds 2/2 |\n")
    assert not verdicts_stated("# S\n\nOn `rfc` the check went partly 4/6 → fails 0/6 and fails → holds 6/6.\n")
