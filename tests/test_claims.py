"""Claims as data (python/mpsim/experiments/claims.py) on a small synthetic result table, the scorecard built
from them, and docs/reproduction.md's generated tables against the committed scorecard."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mpsim.experiments import CATALOGUE
from mpsim.experiments.claims import Bound, Compare, Difference, NotCheckable, Order, Ratio, Trend, single
from mpsim.experiments.reproduce import reproduce_all
from mpsim.experiments.scorecard import load, tally_table, update_docs
from mpsim.fingerprint import engine_id

ROOT = Path(__file__).resolve().parents[1]
VERDICT_WORDS = (["holds"], ["partly"], ["fails"], ["untested"])


def table() -> list[dict[str, Any]]:
    """Two runs per point: `fast` completes in 1 and 3 s, `slow` in 2 and 4 s (its mean is 1 s more) at
    x = 10; at x = 20 both take half as long, and at x = 30 `slow` is as fast as `fast` was at 10."""
    runs = {
        ("fast", 10): (1.0, 3.0),
        ("slow", 10): (2.0, 4.0),
        ("fast", 20): (0.5, 1.5),
        ("slow", 20): (1.0, 2.0),
        ("fast", 30): (0.4, 0.6),
        ("slow", 30): (1.5, 2.5),
    }
    return [{"variant": v, "x": x, "run": k + 1, "fct_s": t} for (v, x), ts in runs.items() for k, t in enumerate(ts)]


def test_a_claim_that_must_hold_holds_and_one_that_must_fail_fails() -> None:
    holds = Compare("fast is faster", "fct_s", left="fast", op="<", right="slow").check(table())
    assert (holds.verdict, holds.passed, holds.total) == ("holds", 3, 3)
    assert holds.details == ("10: 2 vs 3", "20: 1 vs 1.5", "30: 0.5 vs 2")
    fails = Compare("slow is faster", "fct_s", left="slow", op="<", right="fast").check(table())
    assert (fails.verdict, fails.passed, fails.total) == ("fails", 0, 3)


def test_partly_untested_and_the_statistical_criterion() -> None:
    # Means 2 vs 3 at x = 10: the gap, 1 s, is within twice its standard error (each mean's is 1 s).
    sig = Compare("", "fct_s", left="fast", op="<", right="slow", criterion="significant").check(table())
    assert (sig.verdict, sig.passed) == ("partly", 1)
    assert sig.details[0].endswith("✗") and not sig.details[2].endswith("✗")
    none = Compare("", "fct_s", left="fast", op="<", right="slow", x_min=40).check(table())
    assert none.verdict == "untested"


def test_every_kind_of_statement_on_the_table() -> None:
    rows = table()
    assert Trend("", "fct_s", variants=("fast", "slow")).check(rows).verdict == "holds"
    assert Trend("", "fct_s", variants=("fast",), direction="grows").check(rows).verdict == "fails"
    # slow/fast: 1.5, 1.5, 4.
    ratio = Ratio("", "fct_s", left="slow", right="fast", low=1.2, high=2.0).check(rows)
    assert (ratio.verdict, ratio.details[2]) == ("partly", "30: 4 ✗")
    # slow − fast: 1, 0.5, 1.5, mean 1.
    assert Difference("", "fct_s", left="fast", right="slow", low=0.9, high=1.1).check(rows).verdict == "holds"
    assert Bound("", "fct_s", variants=("fast",), value=1.0, x_min=20).check(rows).verdict == "holds"
    # fast: 2, 1, 0.5 — within 0.6 of 1.5 at x = 10 and 20, not at 30.
    band = Bound("", "fct_s", variants=("fast",), op="≈", value=1.5, tolerance=0.6).check(rows)
    assert (band.verdict, band.passed, band.total) == ("partly", 2, 3)
    assert Order("", "fct_s", ranking=("slow",), rest=("fast",)).check(rows).verdict == "fails"
    assert Compare("", "fct_s", left="fast", op="≈", right="slow", tolerance=0.5).check(rows).verdict == "partly"
    nothing = [{"variant": v, "x": 1, "run": 1, "fct_s": 0.0} for v in ("fast", "slow")]
    assert Ratio("", "fct_s", left="fast", right="slow", high=0.5).check(nothing).verdict == "untested"


def test_every_check_of_the_catalogue_names_a_metric_and_variants_of_its_experiment() -> None:
    for e in CATALOGUE.values():
        metrics = {p.metric for p in e.panels} | {"retransmissions", "rto_count", "sum_cwnd_pkts", "fct_s"}
        for c in e.checks:
            assert set(c.columns()) <= metrics, (e.name, c.columns())
            # A figure no check can judge (NotCheckable) names no variant.
            named = set(c.named_variants())
            assert (named or isinstance(c, NotCheckable)) and named <= set(e.variants), (e.name, c.statement())
            assert c.text in e.claims


def test_the_committed_verdict_tables_are_what_the_committed_scorecard_writes() -> None:
    docs = ROOT / "docs" / "reproduction.md"
    text = docs.read_text()
    scorecard = load(ROOT / "docs" / "scorecard.json")
    papers = {e["paper"] for e in scorecard["experiments"].values()}
    assert all(f"<!-- scorecard:{p} -->" in text for p in papers), papers
    assert {e.name for e in CATALOGUE.values()} <= set(scorecard["experiments"])
    assert update_docs(scorecard, text) == text
    proc = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", "scorecard", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_each_papers_headline_claims_are_listed_with_the_committed_scorecards_verdicts() -> None:
    """Every headline claim of docs/scorecard.json has its row in its paper's generated block, with its verdict
    and points on each stack as the JSON records them, and no other claim has one."""
    text = (ROOT / "docs" / "reproduction.md").read_text()
    scorecard = load(ROOT / "docs" / "scorecard.json")
    stacks = scorecard["stacks"]
    for paper in {e["paper"] for e in scorecard["experiments"].values()}:
        block = text.split(f"<!-- scorecard:{paper} -->")[1].split(f"<!-- /scorecard:{paper} -->")[0]
        listed = [line for line in block.splitlines() if re.match(r"\| `[\w-]+#\d+` \|", line)]
        expected = []
        for name, e in scorecard["experiments"].items():
            if e["paper"] != paper:
                continue
            for i, c in enumerate(e["claims"], 1):
                if c["headline"]:
                    v = c["verdicts"]
                    expected.append(
                        (f"`{name}#{i}`", [f"{v[s]['verdict']} ({v[s]['passed']}/{v[s]['points']})" for s in stacks])
                    )
        assert len(listed) == len(expected), paper
        for line, (claim_id, cells) in zip(listed, expected, strict=True):
            row = [cell.strip() for cell in line.strip("|").split(" | ")]
            assert row[0] == claim_id and row[-len(stacks) :] == cells, line


def card() -> dict[str, Any]:
    """A scorecard of two experiments of one paper and one of another, made on engine ``e1`` before claims were
    judged on other stacks than the paper's (each claim's verdict at its top level)."""

    def claim(statement: str, verdict: str, passed: int, points: int) -> dict[str, Any]:
        return {"text": "", "statement": statement, "verdict": verdict, "passed": passed, "points": points}

    experiments = {
        "a-one": {"paper": "a", "figure": "", "claims": [claim("x < y", "partly", 1, 2)], "unchecked": []},
        "a-two": {"paper": "a", "figure": "", "claims": [claim("x > y", "holds", 3, 3)], "unchecked": []},
        "b-one": {"paper": "b", "figure": "", "claims": [claim("x ≈ y", "fails", 0, 1)], "unchecked": []},
    }
    return {"mode": "full", "source": "mpsim reproduce --all", "engine": "e1", "experiments": experiments}


def test_the_tally_counts_each_papers_verdicts_and_names_the_engine() -> None:
    lines = tally_table(card()).splitlines()
    assert "engine `e1`" in lines[0] and "on `paper` (the paper's stack" in lines[0]
    # paper, stack, experiments, checks, holds, partly, fails, untested, uncheckable
    assert lines[4:] == [
        "| a | paper | 2 | 2 | 1 | 1 | 0 | 0 | 0 |",
        "| b | paper | 1 | 1 | 0 | 0 | 1 | 0 | 0 |",
        "| all | paper | 3 | 3 | 1 | 1 | 1 | 0 | 0 |",
    ]


def test_a_readings_table_takes_its_scorecard_column_from_the_scorecard_and_keeps_the_rest() -> None:
    text = (
        "<!-- scorecard:readings -->\n| experiment: check | scorecard | another reading |\n|---|---|---|\n"
        "| `a-one`: x < y | holds 2/2 | fails 0/2 |\n<!-- /scorecard:readings -->\n"
    )
    assert update_docs(card(), text) == text.replace("holds 2/2", "partly 1/2")
    with pytest.raises(KeyError, match="no check 'y < x' in a-one"):
        update_docs(card(), text.replace("x < y", "y < x"))


def test_reproduce_prints_each_claims_verdict_with_its_numbers(tmp_path: Path) -> None:
    command = ["reproduce", "lisa-motivation", "--quick", "--runs", "1", "--jobs", "1", "--out", str(tmp_path)]
    proc = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", *command],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stderr
    exp = CATALOGUE["lisa-motivation"]
    verdicts = [line.split()[0] for line in proc.stdout.splitlines() if line.split()[:1] in VERDICT_WORDS]
    assert len(verdicts) == len(exp.checks)
    for claim in exp.checks:
        assert claim.statement() in proc.stdout


def test_reproduce_all_writes_a_scorecard_of_every_experiment_it_ran(tmp_path: Path) -> None:
    card, files = reproduce_all(tmp_path, quick=True, runs=1, jobs=1, progress=False, names=["gsam-loss"])
    assert [f.name for f in files] == ["scorecard.json", "scorecard.md", "index.html"]
    assert load(files[0]) == card
    assert card["engine"] == engine_id()
    (entry,) = card["experiments"].values()
    assert entry["paper"] == "gsam" and len(entry["claims"]) == len(CATALOGUE["gsam-loss"].checks)
    assert card["stacks"] == ["paper"] and all(list(c["verdicts"]) == ["paper"] for c in entry["claims"])
    verdicts = [c["verdicts"]["paper"] for c in entry["claims"]]
    assert all(v["verdict"] in ("holds", "partly", "fails") and v["points"] > 0 for v in verdicts)
    assert "#### `gsam-loss` (Fig. 16, §V-B-1)" in files[1].read_text()


def test_a_claim_is_found_by_kind_metric_and_fields_and_names_its_variants() -> None:
    """Tests judge a claim where it is stated, found by what it is about: one claim, or an error saying so."""
    checks = (
        Compare("", "fct_s", left="fast", op="<", right="slow"),
        Compare("", "fct_s", left="slow", op=">", right="fast"),
        Trend("", "retransmissions", variants=("fast", "slow")),
        Order("", "fct_s", ranking=("fast",), rest=("slow", "other")),
    )
    assert single(checks, Compare, "fct_s", left="slow") is checks[1]
    assert single(checks, Trend, "retransmissions").named_variants() == ("fast", "slow")
    assert single(checks, Order, "fct_s").named_variants() == ("fast", "slow", "other")
    with pytest.raises(LookupError, match="2 claims are a Compare over fct_s"):
        single(checks, Compare, "fct_s")
    with pytest.raises(LookupError, match="0 claims are a Ratio over fct_s"):
        single(checks, Ratio, "fct_s")
