"""The scorecard: every experiment's claims judged on its result tables, one per stack, as JSON and Markdown,
and the generated tables of docs/reproduction.md written from it.

``mpsim reproduce --all`` writes ``OUT/scorecard.json`` and ``OUT/scorecard.md``. A scorecard names the
engine that produced it (``engine``, :func:`mpsim.fingerprint.engine_id` of the run) and the stacks its
experiments ran on (``stacks``: ``paper``, ``linux``, ``ns3``; :data:`mpsim.experiments.stacks.JUDGED_ON`), and
every table written from it repeats the engine's identity, so a table says which engine its numbers are from.
Each claim of an experiment has its words and where the paper says them (``text``, ``quote``, ``where``,
``headline``, ``derivation``, ``exploration``), its ``statement``, and ``verdicts``: per stack run, its
``verdict``, ``passed``, ``points`` and ``numbers``. A scorecard written before the stacks (each claim's verdict
at its top level, no ``stacks``) reads as judged on the paper's stack alone (:func:`verdicts`, :func:`stacks_of`).

``mpsim scorecard`` rewrites the blocks of docs/reproduction.md between the markers ``<!-- scorecard:NAME -->``
and ``<!-- /scorecard:NAME -->`` from a scorecard: NAME ``tally`` is the verdict counts per paper and stack and
the claims that hold only on the paper's stack, ``readings`` a table of checks judged under other readings
whose scorecard column is rewritten, any other NAME a paper (``css``, ``lisa``, ``gsam``, ``mpcubic``,
``couple``) and its experiments' verdict tables, the stacks side by side. ``make scorecard`` runs the catalogue
on every stack, copies its scorecard to ``docs/scorecard.json`` and rewrites the blocks; ``mpsim scorecard
--check`` and ``tests/test_stamps.py`` fail when the committed scorecard's engine is not the current one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpsim.experiments.base import Experiment
from mpsim.experiments.claims import Outcome, check_all
from mpsim.experiments.stacks import JUDGED_ON

VERDICTS = ("holds", "partly", "fails", "untested", "uncheckable")
STACKS = tuple(JUDGED_ON)
"""Every stack a claim is judged on, in the order the tables show them."""
REAL_STACKS = tuple(s for s in STACKS if s != "paper")
"""The stacks a claim that holds only on the paper's simulator does not hold on."""

Rows = Sequence[Mapping[str, Any]]


def judged(outcome: Outcome) -> dict[str, Any]:
    """A claim's verdict on one table as the scorecard records it."""
    return {"verdict": outcome.verdict, "passed": outcome.passed, "points": outcome.total, "numbers": outcome.numbers()}


def entry(exp: Experiment, tables: Mapping[str, Rows] | Rows) -> dict[str, Any]:
    """The scorecard entry of one experiment: each claim's words, where the paper says them and in which words
    (``quote``, ``where``, ``headline``, ``derivation``: empty, or false, when the check does not say), whether it
    is an exploration, its statement, and its verdict and numbers on each stack of ``tables``, the result rows
    by stack (rows alone: the paper's stack's), in the order of :data:`STACKS`."""
    by_stack: Mapping[str, Rows] = tables if isinstance(tables, Mapping) else {"paper": tables}
    unknown = [s for s in by_stack if s not in STACKS]
    if unknown:
        raise ValueError(f"tables: unknown stack '{unknown[0]}'; allowed: {', '.join(STACKS)}")
    outcomes = {s: check_all(exp.checks, by_stack[s]) for s in STACKS if s in by_stack}
    claims = [
        {
            "text": claim.text,
            "quote": claim.quote,
            "where": claim.where,
            "headline": claim.headline,
            "derivation": claim.derivation,
            "exploration": claim.exploration,
            "statement": claim.statement(),
            "verdicts": {s: judged(outcomes[s][i][1]) for s in outcomes},
        }
        for i, claim in enumerate(exp.checks)
    ]
    checked = {c["text"] for c in claims}
    return {
        "paper": re.sub(r"\W", "", exp.paper.split(":")[0].lower()),
        "figure": exp.figure,
        "claims": claims,
        "unchecked": [text for text in exp.claims if text not in checked],
    }


def verdicts(claim: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """A scorecard claim's verdict on each stack it was judged on; a claim of a scorecard from before the stacks
    (its verdict at its top level) was judged on the paper's stack alone."""
    if "verdicts" in claim:
        return dict(claim["verdicts"])
    return {"paper": {k: claim[k] for k in ("verdict", "passed", "points", "numbers") if k in claim}}


def stacks_of(scorecard: Mapping[str, Any]) -> tuple[str, ...]:
    """The stacks a scorecard's experiments ran on, in the order of :data:`STACKS` (the paper's alone for a
    scorecard from before the stacks)."""
    run = scorecard.get("stacks", ["paper"])
    return tuple(s for s in STACKS if s in run)


def holds_only_on_paper(claim: Mapping[str, Any]) -> bool:
    """Whether a claim holds on the paper's stack and on no real one: judged on every stack of
    :data:`REAL_STACKS`, it holds on none of them (each partly, fails or untested)."""
    judged_on = verdicts(claim)
    if "paper" not in judged_on or any(s not in judged_on for s in REAL_STACKS):
        return False
    return judged_on["paper"]["verdict"] == "holds" and all(judged_on[s]["verdict"] != "holds" for s in REAL_STACKS)


def tally(scorecard: Mapping[str, Any], explorations: bool = False) -> dict[str, dict[str, dict[str, int]]]:
    """Verdict counts per paper and stack (``tally(card)["css"]["linux"]["holds"]``) of the paper's checks, or
    with ``explorations`` of its explorations alone (checks of no figure or claim of the paper), which the paper's
    counts never include."""
    stacks = stacks_of(scorecard)
    out: dict[str, dict[str, dict[str, int]]] = {}
    for e in scorecard["experiments"].values():
        counts = out.setdefault(e["paper"], {s: dict.fromkeys(VERDICTS, 0) for s in stacks})
        for c in e["claims"]:
            if bool(c.get("exploration")) != explorations:
                continue
            for s, v in verdicts(c).items():
                if s in counts:
                    counts[s][v["verdict"]] += 1
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


def verdict_points(verdict: Mapping[str, Any]) -> str:
    """A claim's verdict on one stack with its points: ``holds (3/3)``."""
    return f"{verdict['verdict']} ({verdict['passed']}/{verdict['points']})"


def verdict_words(verdict: Mapping[str, Any]) -> str:
    """A claim's verdict on one stack as its tables show it: ``holds (3/3): `` and its numbers."""
    numbers = verdict.get("numbers")
    return verdict_points(verdict) + (f": {numbers}" if numbers else "")


PAPER_ONLY = "paper only"
"""The mark of a claim that holds only on the paper's stack (:func:`holds_only_on_paper`), before its verdict there."""


def stack_words(claim: Mapping[str, Any], stack: str) -> str:
    """A claim's verdict on ``stack`` as its tables show it (:func:`verdict_words`); ``not run`` on a stack it was
    not judged on."""
    verdict = verdicts(claim).get(stack)
    return "not run" if verdict is None else verdict_words(verdict)


def experiment_table(name: str, e: Mapping[str, Any], stacks: Sequence[str] = ("paper",)) -> str:
    """The verdict table of one experiment: a row per claim, numbered as the ids of :func:`headline_claims` count,
    its verdicts on ``stacks`` side by side, the paper's marked :data:`PAPER_ONLY` where it holds there alone."""
    lines = [
        f"#### `{name}` ({e['figure']})",
        "",
        "| # | paper's claim | checked as | " + " | ".join(stacks) + " |",
        "|---:|---|---|" + "---|" * len(stacks),
    ]
    for i, c in enumerate(e["claims"], 1):
        cells = [str(i), _cell(claim_words(c)), _cell(check_words(c))]
        for s in stacks:
            mark = f"**{PAPER_ONLY}**: " if s == "paper" and holds_only_on_paper(c) else ""
            cells.append(mark + _cell(stack_words(c, s)))
        lines.append("| " + " | ".join(cells) + " |")
    for text in e["unchecked"]:
        lines.append(f"| | {_cell(text)} | not stated as a check |" + " — |" * len(stacks))
    return "\n".join(lines)


def provenance(scorecard: Mapping[str, Any]) -> str:
    """Where a scorecard's numbers come from: the command, the mode and the engine's identity."""
    engine = scorecard.get("engine", "not recorded")
    return f"`{scorecard['source']}` ({scorecard['mode']} mode, engine `{engine}`)"


def counts_words(counts: Mapping[str, int]) -> str:
    """Verdict counts as a phrase: ``10 holds, 5 partly, 5 fails, 0 untested, 0 uncheckable``."""
    return ", ".join(f"{counts[v]} {v}" for v in VERDICTS)


WORDS_SHOWN = 120
"""How many characters of a headline claim's words its row in the list of headline claims shows."""


def shortened(words: str, limit: int = WORDS_SHOWN) -> str:
    """``words`` cut at the last whole word within ``limit`` characters, marked ``…`` when cut."""
    words = " ".join(words.split())
    if len(words) <= limit:
        return words
    cut = words[: limit + 1].rsplit(" ", 1)[0] if " " in words[:limit] else words[:limit]
    return cut.rstrip(" ,;:.") + " …"


def headline_claims(scorecard: Mapping[str, Any], paper: str) -> list[tuple[str, Mapping[str, Any]]]:
    """Every headline claim of a paper's experiments, counted or not, each with its id: its experiment's name and
    its place among that experiment's checks (``css-shared-buffer#4``), as the verdict tables list them."""
    return [
        (f"{n}#{i}", c)
        for n, e in scorecard["experiments"].items()
        if e["paper"] == paper
        for i, c in enumerate(e["claims"], 1)
        if c.get("headline")
    ]


def headline_table(scorecard: Mapping[str, Any], paper: str) -> str:
    """The list of a paper's headline claims: a row per claim with its id, where the paper says it, the claim in
    the catalogue's words, shortened (several checks may quote one sentence of the paper; the catalogue's words
    tell them apart, and the paper's are in the verdict tables), and its verdict and points on each stack run;
    empty when the paper has none."""
    found = headline_claims(scorecard, paper)
    if not found:
        return ""
    stacks = stacks_of(scorecard)
    lines = [
        f"Headline claims ({len(found)}), the verdicts on each stack; their checks and numbers are in the tables "
        "below:",
        "",
        "| claim | where | the claim | " + " | ".join(stacks) + " |",
        "|---|---|---|" + "---|" * len(stacks),
    ]
    for claim_id, c in found:
        judged_on = verdicts(c)
        cells = [f"`{claim_id}`", _cell(c.get("where") or ""), _cell(shortened(c["text"]))]
        cells += [verdict_points(judged_on[s]) if s in judged_on else "not run" for s in stacks]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def paper_section(scorecard: Mapping[str, Any], paper: str) -> str:
    """The generated verdict tables of one paper's experiments, each claim's verdicts on every stack run side
    by side, after the list of the paper's headline claims (:func:`headline_table`)."""
    stacks = stacks_of(scorecard)
    counts = tally(scorecard).get(paper, {s: dict.fromkeys(VERDICTS, 0) for s in stacks})
    summary = "; ".join(f"{s}: {counts_words(counts[s])}" for s in stacks)
    headlines = headline_table(scorecard, paper)
    blocks = [
        f"Generated by `mpsim scorecard` from {provenance(scorecard)}: {summary}.",
        *([headlines] if headlines else []),
        *(experiment_table(n, e, stacks) for n, e in scorecard["experiments"].items() if e["paper"] == paper),
    ]
    return "\n\n".join(blocks)


def counts_rows(
    scorecard: Mapping[str, Any], counts: Mapping[str, Mapping[str, Mapping[str, int]]]
) -> tuple[list[str], list[list[str]]]:
    """The header and rows of a table of verdict counts (:func:`tally`) per paper and stack, and over every
    paper."""
    stacks = stacks_of(scorecard)
    total = {s: {v: sum(c[s][v] for c in counts.values()) for v in VERDICTS} for s in stacks}
    experiments = [e["paper"] for e in scorecard["experiments"].values()]
    rows = []
    for paper, c in [*counts.items(), ("all", total)]:
        n = len(experiments) if paper == "all" else experiments.count(paper)
        rows += [[paper, s, str(n), str(sum(c[s].values())), *(str(c[s][v]) for v in VERDICTS)] for s in stacks]
    return ["paper", "stack", "experiments", "checks", *VERDICTS], rows


def _counts_table(scorecard: Mapping[str, Any], counts: Mapping[str, Mapping[str, Mapping[str, int]]]) -> list[str]:
    """A Markdown table of verdict counts per paper and stack, and over every paper."""
    header, rows = counts_rows(scorecard, counts)
    lines = ["| " + " | ".join(header) + " |", "|---|---|" + "---:|" * (len(header) - 2)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def stacks_words(scorecard: Mapping[str, Any]) -> str:
    """The stacks a scorecard ran, each with what it is."""
    return ", ".join(f"`{s}` ({JUDGED_ON[s]})" for s in stacks_of(scorecard))


def tally_table(scorecard: Mapping[str, Any]) -> str:
    """The verdict counts per paper and stack, and over every paper, as a table; the explorations' apart."""
    lines = [
        f"Generated by `mpsim scorecard` from {provenance(scorecard)}, on {stacks_words(scorecard)}.",
        "",
        *_counts_table(scorecard, tally(scorecard)),
    ]
    explored = {
        p: c for p, c in tally(scorecard, explorations=True).items() if any(sum(v.values()) for v in c.values())
    }
    if explored:
        lines += ["", "Explorations (checks of no figure or claim of the paper), not counted above:", ""]
        lines += _counts_table(scorecard, explored)
    return "\n".join(lines)


def paper_only_claims(scorecard: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Every claim that holds only on the paper's stack (:func:`holds_only_on_paper`), with its experiment's name."""
    return [(n, c) for n, e in scorecard["experiments"].items() for c in e["claims"] if holds_only_on_paper(c)]


PAPER_ONLY_TITLE = (
    "Claims that hold only on the paper's stack (there, and on neither "
    + " nor ".join(f"`{s}`" for s in REAL_STACKS)
    + ")"
)


def paper_only_words(scorecard: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The list of the claims that hold only on the paper's stack, as a title with their count (or what the
    scorecard cannot say when it did not run every stack) and one line per claim: its experiment, words,
    check and verdicts on the real stacks."""
    missing = " or ".join(f"`{s}`" for s in STACKS if s not in stacks_of(scorecard))
    if missing:
        return f"{PAPER_ONLY_TITLE}: not judged, this scorecard did not run {missing}.", []
    found = paper_only_claims(scorecard)
    lines = []
    for name, c in found:
        elsewhere = ", ".join(f"{s} {verdict_points(verdicts(c)[s])}" for s in REAL_STACKS)
        lines.append(f"`{name}`: {claim_words(c)} — {check_words(c)} ({elsewhere})")
    return f"{PAPER_ONLY_TITLE}: {len(found)}.", lines


def paper_only_list(scorecard: Mapping[str, Any]) -> str:
    """The claims that hold only on the paper's stack as Markdown (:func:`paper_only_words`)."""
    title, lines = paper_only_words(scorecard)
    return "\n".join([title, *([""] + [f"- {line}" for line in lines] if lines else [])])


def markdown(scorecard: Mapping[str, Any]) -> str:
    """The whole scorecard as Markdown: the tally, the claims that hold only on the paper's stack, then paper by
    paper."""
    parts = [
        f"# Scorecard ({scorecard['mode']} mode, engine `{scorecard.get('engine', 'not recorded')}`)",
        tally_table(scorecard),
        paper_only_list(scorecard),
    ]
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


def claim_verdict(scorecard: Mapping[str, Any], experiment: str, statement: str, stack: str = "paper") -> str:
    """The verdict and points of one check of the scorecard on ``stack``, as ``partly 2/4``."""
    for c in scorecard["experiments"][experiment]["claims"]:
        if c["statement"] == statement:
            v = verdicts(c)[stack]
            return f"{v['verdict']} {v['passed']}/{v['points']}"
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
    """The generated text of the block ``name``: the tally with the claims that hold only on the paper's stack, a
    table of readings (``current`` with its scorecard column, the paper's stack's verdict, rewritten), or a paper's
    verdict tables."""
    if name == "tally":
        return tally_table(scorecard) + "\n\n" + paper_only_list(scorecard)
    if name == "readings":
        return readings_table(scorecard, current)
    return paper_section(scorecard, name)


def update_docs(scorecard: Mapping[str, Any], text: str) -> str:
    """``text`` with every block between scorecard markers rewritten from ``scorecard``."""
    return _BLOCK.sub(lambda m: f"{m.group(1)}\n{block(scorecard, m.group(2), m.group(3))}\n{m.group(4)}", text)


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def foreign_engine(scorecard: Mapping[str, Any], current: str) -> str | None:
    """Why a scorecard is not the ``current`` engine's, naming both identities; None when it is."""
    recorded = scorecard.get("engine")
    if recorded == current:
        return None
    made = f"was made on engine {recorded}" if recorded else "records no engine"
    return f"{made}, not the current engine {current}"
