"""The scorecard: every experiment's claims judged on its result table, as JSON and Markdown, and the
generated tables of docs/reproduction.md written from it.

``mpsim reproduce --all`` writes ``OUT/scorecard.json`` and ``OUT/scorecard.md``. A scorecard names the
engine that produced it (``engine``, :func:`mpsim.fingerprint.engine_id` of the run), and every table written
from it repeats that identity, so a table says which engine its numbers are from.

``mpsim scorecard`` rewrites the blocks of docs/reproduction.md between the markers ``<!-- scorecard:NAME -->``
and ``<!-- /scorecard:NAME -->`` from a scorecard: NAME ``tally`` is the verdict counts per paper, ``readings`` a
table of checks judged under other readings whose scorecard column is rewritten, any other NAME a paper
(``css``, ``lisa``, ``gsam``, ``mpcubic``, ``couple``) and its experiments' verdict tables. ``make scorecard``
runs the catalogue, copies its scorecard to ``docs/scorecard.json`` and rewrites the blocks;
``tests/test_stamps.py`` fails when the committed scorecard's engine is not the current one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpsim.experiments.base import Experiment
from mpsim.experiments.claims import check_all

VERDICTS = ("holds", "partly", "fails", "untested", "uncheckable")


def entry(exp: Experiment, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The scorecard entry of one experiment: each claim's words, where the paper says them and in which words
    (``quote``, ``where``, ``headline``, ``derivation``: empty, or false, when the check does not say), its
    statement, verdict and numbers."""
    claims = [
        {
            "text": claim.text,
            "quote": claim.quote,
            "where": claim.where,
            "headline": claim.headline,
            "derivation": claim.derivation,
            "exploration": claim.exploration,
            "statement": claim.statement(),
            "verdict": outcome.verdict,
            "passed": outcome.passed,
            "points": outcome.total,
            "numbers": outcome.numbers(),
        }
        for claim, outcome in check_all(exp.checks, rows)
    ]
    checked = {c["text"] for c in claims}
    return {
        "paper": re.sub(r"\W", "", exp.paper.split(":")[0].lower()),
        "figure": exp.figure,
        "claims": claims,
        "unchecked": [text for text in exp.claims if text not in checked],
    }


def tally(scorecard: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """Verdict counts per paper, of the paper's checks: explorations (checks of no figure or claim of the paper)
    are not counted."""
    out: dict[str, dict[str, int]] = {}
    for e in scorecard["experiments"].values():
        counts = out.setdefault(e["paper"], dict.fromkeys(VERDICTS, 0))
        for c in e["claims"]:
            if not c.get("exploration"):
                counts[c["verdict"]] += 1
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def claim_words(claim: Mapping[str, Any]) -> str:
    """A scorecard claim's words as its tables show them: the catalogue's, marked when a headline, then where
    the paper says it and its own words when the check gives them (a scorecard from before these were recorded
    reads as it did)."""
    mark = "Exploration, not counted: " if claim.get("exploration") else "Headline: " if claim.get("headline") else ""
    words = mark + claim["text"]
    if claim.get("where"):
        words += f" ({claim['where']})"
    if claim.get("quote"):
        words += f" Paper: “{claim['quote']}”"
    return str(words)


def check_words(claim: Mapping[str, Any]) -> str:
    """A scorecard claim's statement as its tables show it, with how its band was derived when the check says."""
    derivation = claim.get("derivation")
    return str(claim["statement"]) + (f" (band: {derivation})" if derivation else "")


def experiment_table(name: str, e: Mapping[str, Any]) -> str:
    lines = [
        f"#### `{name}` ({e['figure']})",
        "",
        "| paper's claim | checked as | mpsim | verdict |",
        "|---|---|---|---|",
    ]
    for c in e["claims"]:
        lines.append(
            f"| {_cell(claim_words(c))} | {_cell(check_words(c))} | {_cell(c['numbers'])} | "
            f"{c['verdict']} ({c['passed']}/{c['points']}) |"
        )
    for text in e["unchecked"]:
        lines.append(f"| {_cell(text)} | not stated as a check | | — |")
    return "\n".join(lines)


def provenance(scorecard: Mapping[str, Any]) -> str:
    """Where a scorecard's numbers come from: the command, the mode and the engine's identity."""
    engine = scorecard.get("engine", "not recorded")
    return f"`{scorecard['source']}` ({scorecard['mode']} mode, engine `{engine}`)"


def paper_section(scorecard: Mapping[str, Any], paper: str) -> str:
    """The generated verdict tables of one paper's experiments."""
    counts = tally(scorecard).get(paper, dict.fromkeys(VERDICTS, 0))
    summary = ", ".join(f"{counts[v]} {v}" for v in VERDICTS)
    blocks = [
        f"Generated by `mpsim scorecard` from {provenance(scorecard)}: {summary}.",
        *(experiment_table(n, e) for n, e in scorecard["experiments"].items() if e["paper"] == paper),
    ]
    return "\n\n".join(blocks)


def tally_table(scorecard: Mapping[str, Any]) -> str:
    """The verdict counts per paper, and over every paper, as a table."""
    counts = tally(scorecard)
    total = {v: sum(c[v] for c in counts.values()) for v in VERDICTS}
    lines = [
        f"Generated by `mpsim scorecard` from {provenance(scorecard)}.",
        "",
        "| paper | experiments | checks | " + " | ".join(VERDICTS) + " |",
        "|---|---:|---:|" + "---:|" * len(VERDICTS),
    ]
    experiments = [e["paper"] for e in scorecard["experiments"].values()]
    for paper, c in [*counts.items(), ("all", total)]:
        n = len(experiments) if paper == "all" else experiments.count(paper)
        lines.append(f"| {paper} | {n} | {sum(c.values())} | " + " | ".join(str(c[v]) for v in VERDICTS) + " |")
    return "\n".join(lines)


def markdown(scorecard: Mapping[str, Any]) -> str:
    """The whole scorecard as Markdown, paper by paper."""
    parts = [f"# Scorecard ({scorecard['mode']} mode, engine `{scorecard.get('engine', 'not recorded')}`)"]
    for paper in tally(scorecard):
        parts += [f"## {paper.upper()}", paper_section(scorecard, paper)]
    return "\n\n".join(parts) + "\n"


def write(scorecard: Mapping[str, Any], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    files = [directory / "scorecard.json", directory / "scorecard.md"]
    files[0].write_text(json.dumps(scorecard, indent=1, ensure_ascii=False) + "\n")
    files[1].write_text(markdown(scorecard))
    return files


_BLOCK = re.compile(r"(<!-- scorecard:(\w+) -->)\n(.*?)\n?(<!-- /scorecard:\2 -->)", re.DOTALL)


def claim_verdict(scorecard: Mapping[str, Any], experiment: str, statement: str) -> str:
    """The verdict and points of one check of the scorecard, as ``partly 2/4``."""
    for c in scorecard["experiments"][experiment]["claims"]:
        if c["statement"] == statement:
            return f"{c['verdict']} {c['passed']}/{c['points']}"
    raise KeyError(f"the scorecard has no check '{statement}' in {experiment}")


_CHECK_LABEL = re.compile(r"\| `(?P<experiment>[\w-]+)`: (?P<statement>.+)")


def readings_table(scorecard: Mapping[str, Any], table: str) -> str:
    """A table of checks judged under other readings, its second column rewritten from ``scorecard``.

    Its rows are ``| `EXPERIMENT`: STATEMENT | verdict | verdict under a reading | …``; the header, the rule and
    every other column are kept as they are (those are measurements of another configuration, not generated)."""
    lines = []
    for line in table.split("\n"):
        cells = line.split(" | ")
        label = _CHECK_LABEL.fullmatch(cells[0])
        if label and len(cells) > 2:
            cells[1] = claim_verdict(scorecard, label["experiment"], label["statement"])
        lines.append(" | ".join(cells))
    return "\n".join(lines)


def block(scorecard: Mapping[str, Any], name: str, current: str = "") -> str:
    """The generated text of the block ``name``: the tally, a table of readings (``current`` with its scorecard
    column rewritten), or a paper's verdict tables."""
    if name == "tally":
        return tally_table(scorecard)
    if name == "readings":
        return readings_table(scorecard, current)
    return paper_section(scorecard, name)


def update_docs(scorecard: Mapping[str, Any], text: str) -> str:
    """``text`` with every block between scorecard markers rewritten from ``scorecard``."""
    return _BLOCK.sub(lambda m: f"{m.group(1)}\n{block(scorecard, m.group(2), m.group(3))}\n{m.group(4)}", text)


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data
