"""The scorecard judged on three stacks (python/mpsim/experiments/scorecard.py): each claim's verdicts keyed by
stack in the JSON, the tally per paper and stack, the tables with the stacks side by side and a claim that holds
only on the paper's stack marked and listed, an old scorecard read as the paper's stack alone, `mpsim scorecard
--check` failing on another engine's scorecard, and a tiny quick run of `reproduce_all` and `mpsim reproduce
--stack`. Nothing here reads the committed scorecard: its shape is the one it was last generated in."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from mpsim.commands.experiments import Stack
from mpsim.experiments import CATALOGUE
from mpsim.experiments.base import Experiment
from mpsim.experiments.claims import Bound, Compare
from mpsim.experiments.reproduce import reproduce_all
from mpsim.experiments.scorecard import (
    entry,
    experiment_table,
    headline_table,
    holds_only_on_paper,
    load,
    paper_only_list,
    paper_section,
    shortened,
    stacks_of,
    tally,
    tally_table,
    update_docs,
    verdicts,
)
from mpsim.experiments.stacks import JUDGED_ON
from mpsim.fingerprint import engine_id

CLAIM_KEYS = ["text", "quote", "where", "headline", "derivation", "exploration", "statement", "verdicts"]
VERDICT_KEYS = ["verdict", "passed", "points", "numbers"]

FASTER = Compare("GSAM completes sooner.", "fct_s", left="gsam", op="<", right="tcp", where="Fig. 16", headline=True)
SLOWER = Compare("TCP completes later.", "fct_s", left="tcp", op=">", right="gsam")
BEYOND = Bound("GSAM completes within 5 s.", "fct_s", variants=("gsam",), value=5.0, exploration=True)


def rows(gsam: tuple[float, float], tcp: tuple[float, float]) -> list[dict[str, Any]]:
    """Two x values, one run each: GSAM's and TCP's completion times at x = 1 and 2."""
    return [
        {"x": x, "variant": v, "run": 1, "seed": 1, "fct_s": t}
        for v, times in (("gsam", gsam), ("tcp", tcp))
        for x, t in zip((1, 2), times, strict=True)
    ]


def experiment() -> Experiment:
    """gsam-loss with three checks of its own (the last an exploration) and a claim no check states."""
    return dataclasses.replace(
        CATALOGUE["gsam-loss"], claims=("A claim no check states.",), checks=(FASTER, SLOWER, BEYOND)
    )


def three_stacks() -> dict[str, Any]:
    """GSAM beats TCP at both x on the paper's stack, at one on Linux and at none on ns-3."""
    tables = {
        "paper": rows(gsam=(1.0, 1.0), tcp=(2.0, 2.0)),
        "linux": rows(gsam=(1.0, 3.0), tcp=(2.0, 2.0)),
        "ns3": rows(gsam=(3.0, 3.0), tcp=(2.0, 2.0)),
    }
    return entry(experiment(), tables)


def card(stacks: list[str], experiments: dict[str, Any], engine: str = "e1") -> dict[str, Any]:
    return {
        "mode": "full",
        "source": "mpsim reproduce --all",
        "engine": engine,
        "stacks": stacks,
        "experiments": experiments,
    }


def test_each_claim_has_its_words_and_a_verdict_per_stack_run() -> None:
    e = three_stacks()
    assert list(e) == ["paper", "figure", "claims", "unchecked"] and e["unchecked"] == ["A claim no check states."]
    faster, slower, beyond = e["claims"]
    assert list(faster) == CLAIM_KEYS
    assert (faster["where"], faster["headline"], beyond["exploration"]) == ("Fig. 16", True, True)
    assert list(faster["verdicts"]) == ["paper", "linux", "ns3"]
    assert all(list(v) == VERDICT_KEYS for c in e["claims"] for v in c["verdicts"].values())
    assert faster["verdicts"]["paper"] == {
        "verdict": "holds",
        "passed": 2,
        "points": 2,
        "numbers": "1: 1 vs 2; 2: 1 vs 2",
    }
    assert [faster["verdicts"][s]["verdict"] for s in ("paper", "linux", "ns3")] == ["holds", "partly", "fails"]
    assert holds_only_on_paper(faster) and holds_only_on_paper(slower) and not holds_only_on_paper(beyond)
    # A stack not run is absent; rows alone are the paper's stack's.
    alone = entry(experiment(), rows(gsam=(1.0, 1.0), tcp=(2.0, 2.0)))
    assert [list(c["verdicts"]) for c in alone["claims"]] == [["paper"]] * 3
    assert not holds_only_on_paper(alone["claims"][0])
    with pytest.raises(ValueError, match="unknown stack 'bsd'; allowed: paper, linux, ns3"):
        entry(experiment(), {"bsd": []})


def test_the_tally_counts_per_paper_and_stack_and_the_explorations_apart() -> None:
    other = entry(dataclasses.replace(CATALOGUE["css-longlived"], checks=(), claims=()), {"paper": []})
    scorecard = card(["paper", "linux", "ns3"], {"gsam-loss": three_stacks(), "css-longlived": other})
    counts = tally(scorecard)
    assert counts["gsam"]["paper"] == {"holds": 2, "partly": 0, "fails": 0, "untested": 0, "uncheckable": 0}
    assert counts["gsam"]["linux"]["partly"] == 2 and counts["gsam"]["ns3"]["fails"] == 2
    assert counts["css"] == {s: dict.fromkeys(counts["css"]["paper"], 0) for s in ("paper", "linux", "ns3")}
    assert tally(scorecard, explorations=True)["gsam"]["paper"]["holds"] == 1
    lines = tally_table(scorecard).splitlines()
    assert "on `paper` (the paper's stack as mpsim reproduces it), `linux` (mpsim's Linux 6.18 profile)" in lines[0]
    assert lines[4:13] == [
        "| gsam | paper | 1 | 2 | 2 | 0 | 0 | 0 | 0 |",
        "| gsam | linux | 1 | 2 | 0 | 2 | 0 | 0 | 0 |",
        "| gsam | ns3 | 1 | 2 | 0 | 0 | 2 | 0 | 0 |",
        "| css | paper | 1 | 0 | 0 | 0 | 0 | 0 | 0 |",
        "| css | linux | 1 | 0 | 0 | 0 | 0 | 0 | 0 |",
        "| css | ns3 | 1 | 0 | 0 | 0 | 0 | 0 | 0 |",
        "| all | paper | 2 | 2 | 2 | 0 | 0 | 0 | 0 |",
        "| all | linux | 2 | 2 | 0 | 2 | 0 | 0 | 0 |",
        "| all | ns3 | 2 | 2 | 0 | 0 | 2 | 0 | 0 |",
    ]
    assert "Explorations (checks of no figure or claim of the paper), not counted above:" in lines
    assert lines[-3:] == [
        "| all | paper | 2 | 1 | 1 | 0 | 0 | 0 | 0 |",
        "| all | linux | 2 | 1 | 1 | 0 | 0 | 0 | 0 |",
        "| all | ns3 | 2 | 1 | 1 | 0 | 0 | 0 | 0 |",
    ]


def test_the_tables_show_the_stacks_side_by_side_and_mark_what_holds_only_on_the_papers() -> None:
    e = three_stacks()
    table = experiment_table("gsam-loss", e, ("paper", "linux", "ns3")).splitlines()
    assert table[2:4] == ["| # | paper's claim | checked as | paper | linux | ns3 |", "|---:|---|---|---|---|---|"]
    assert table[4] == (
        "| 1 | Headline: GSAM completes sooner. (Fig. 16) | fct_s: gsam < tcp at every x | "
        "**paper only**: holds (2/2): 1: 1 vs 2; 2: 1 vs 2 | partly (1/2): 1: 1 vs 2; 2: 3 vs 2 ✗ | "
        "fails (0/2): 1: 3 vs 2 ✗; 2: 3 vs 2 ✗ |"
    )
    assert table[6].startswith("| 3 | Exploration, not counted: GSAM completes within 5 s. |")
    assert "paper only" not in table[6]
    assert table[7] == "| | A claim no check states. | not stated as a check | — | — | — |"
    scorecard = card(["paper", "linux", "ns3"], {"gsam-loss": e})
    summary = paper_section(scorecard, "gsam").splitlines()[0]
    assert summary.endswith(
        "paper: 2 holds, 0 partly, 0 fails, 0 untested, 0 uncheckable; linux: 0 holds, 2 partly, "
        "0 fails, 0 untested, 0 uncheckable; ns3: 0 holds, 0 partly, 2 fails, 0 untested, 0 uncheckable."
    )
    assert paper_only_list(scorecard).splitlines() == [
        "Claims that hold only on the paper's stack (there, and on neither `linux` nor `ns3`): 2.",
        "",
        "- `gsam-loss`: Headline: GSAM completes sooner. (Fig. 16) — fct_s: gsam < tcp at every x "
        "(linux partly (1/2), ns3 fails (0/2))",
        "- `gsam-loss`: TCP completes later. — fct_s: tcp > gsam at every x (linux partly (1/2), ns3 fails (0/2))",
    ]
    # The tally block carries the list; a scorecard of the paper's stack alone says it cannot judge.
    text = "<!-- scorecard:tally -->\n<!-- /scorecard:tally -->\n<!-- scorecard:gsam -->\n<!-- /scorecard:gsam -->\n"
    written = update_docs(scorecard, text)
    assert "(there, and on neither `linux` nor `ns3`): 2." in written and "| paper | linux | ns3 |" in written
    paper_alone = card(["paper"], {"gsam-loss": entry(experiment(), rows(gsam=(1.0, 1.0), tcp=(2.0, 2.0)))})
    assert paper_only_list(paper_alone).endswith("not judged, this scorecard did not run `linux` or `ns3`.")
    assert "| # | paper's claim | checked as | paper |" in update_docs(paper_alone, text)
    linux_alone = card(["linux"], {"gsam-loss": entry(experiment(), {"linux": rows(gsam=(1.0, 1.0), tcp=(2.0, 2.0))})})
    assert paper_only_list(linux_alone).endswith("did not run `paper` or `ns3`.")
    assert "| # | paper's claim | checked as | linux |" in update_docs(linux_alone, text)


def test_each_papers_section_lists_its_headline_claims_with_their_verdicts_per_stack() -> None:
    e = three_stacks()
    e["claims"][0]["text"] = "GSAM reduces the completion time " + "by far " * 20 + "of every flow."
    scorecard = card(["paper", "linux", "ns3"], {"gsam-loss": e})
    table = headline_table(scorecard, "gsam").splitlines()
    assert table[0].startswith("Headline claims (1), the verdicts on each stack")
    assert table[2:4] == ["| claim | where | the claim | paper | linux | ns3 |", "|---|---|---|---|---|---|"]
    words = shortened(e["claims"][0]["text"])
    assert len(words) <= 122 and words.endswith(" …") and words.startswith("GSAM reduces the completion time by far")
    assert table[4:] == [f"| `gsam-loss#1` | Fig. 16 | {words} | holds (2/2) | partly (1/2) | fails (0/2) |"]
    # The list stands between the section's summary and its experiments' tables; a paper without headlines has none.
    section = paper_section(scorecard, "gsam")
    summary, rest = section.split("\n\n", 1)
    assert summary.startswith("Generated by") and rest.startswith("\n".join(table) + "\n\n#### `gsam-loss`")
    assert headline_table(scorecard, "css") == ""
    e["claims"][0]["headline"] = False
    assert "Headline claims" not in paper_section(scorecard, "gsam")
    assert shortened("a few words") == "a few words"


def test_a_scorecard_from_before_the_stacks_reads_as_the_papers_stack_alone() -> None:
    old_claim = {"text": "t", "statement": "fct_s: a < b at every x", "verdict": "partly", "passed": 1, "points": 2}
    old = {
        "mode": "full",
        "source": "s",
        "engine": "e0",
        "experiments": {"x-one": {"paper": "x", "figure": "", "claims": [old_claim], "unchecked": []}},
    }
    assert stacks_of(old) == ("paper",)
    assert verdicts(old_claim) == {"paper": {"verdict": "partly", "passed": 1, "points": 2}}
    assert tally(old)["x"] == {"paper": {"holds": 0, "partly": 1, "fails": 0, "untested": 0, "uncheckable": 0}}
    assert experiment_table("x-one", old["experiments"]["x-one"]).splitlines()[-1] == (
        "| 1 | t | fct_s: a < b at every x | partly (1/2) |"
    )


def scorecard_check(tmp_path: Path, engine: str) -> subprocess.CompletedProcess[str]:
    """`mpsim scorecard --check` on a scorecard made on ``engine`` and a document whose tables it wrote."""
    scorecard = card(["paper", "linux", "ns3"], {"gsam-loss": three_stacks()}, engine=engine)
    source, docs = tmp_path / "scorecard.json", tmp_path / "reproduction.md"
    source.write_text(json.dumps(scorecard))
    docs.write_text(update_docs(scorecard, "# R\n\n<!-- scorecard:gsam -->\n<!-- /scorecard:gsam -->\n"))
    command = ["scorecard", "--check", "--from", str(source), "--docs", str(docs)]
    return subprocess.run(
        [sys.executable, "-m", "mpsim.cli", *command],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "300"},
    )


def test_the_check_fails_on_a_scorecard_of_another_engine_naming_both(tmp_path: Path) -> None:
    foreign = scorecard_check(tmp_path, "0123456789abcdef0123")
    assert foreign.returncode == 1, foreign.stdout + foreign.stderr
    assert f"was made on engine 0123456789abcdef0123, not the current engine {engine_id()}" in foreign.stdout
    assert "make scorecard" in foreign.stdout and "tables differ" not in foreign.stdout
    current = scorecard_check(tmp_path, engine_id())
    assert current.returncode == 0, current.stdout + current.stderr


def test_reproduce_all_judges_every_claim_on_each_stack(tmp_path: Path) -> None:
    stacks = ("ns3", "paper", "linux")
    scorecard, files = reproduce_all(
        tmp_path, quick=True, runs=1, jobs=1, progress=False, names=["gsam-loss"], stacks=stacks
    )
    assert load(files[0]) == scorecard
    assert scorecard["stacks"] == ["paper", "linux", "ns3"] and scorecard["engine"] == engine_id()
    assert scorecard["source"] == "mpsim reproduce --all --quick --runs 1 --stack paper --stack linux --stack ns3"
    (e,) = scorecard["experiments"].values()
    assert len(e["claims"]) == len(CATALOGUE["gsam-loss"].checks)
    for c in e["claims"]:
        assert list(c) == CLAIM_KEYS and list(c["verdicts"]) == ["paper", "linux", "ns3"]
        assert all(v["points"] > 0 for v in c["verdicts"].values())
    for directory, stack in ((tmp_path / "gsam-loss", "paper"), (tmp_path / "linux" / "gsam-loss", "linux")):
        table = pq.read_table(directory / "results.parquet")
        assert set(table.column("stack").to_pylist()) == {stack}
    assert (tmp_path / "ns3" / "gsam-loss" / "figure.png").stat().st_size > 0
    # The paper's and Linux's runs differ: their stores hold runs of other configurations.
    paper, linux = (
        pq.read_table(d / "results.parquet").to_pylist()
        for d in (tmp_path / "gsam-loss", tmp_path / "linux" / "gsam-loss")
    )
    assert [r["fct_s"] for r in paper] != [r["fct_s"] for r in linux]
    assert "| # | paper's claim | checked as | paper | linux | ns3 |" in files[1].read_text()
    with pytest.raises(Exception, match="stacks: unknown"):
        reproduce_all(tmp_path, quick=True, runs=1, names=["gsam-loss"], stacks=("bsd",))


def test_reproduce_runs_an_experiment_on_the_stack_asked_for(tmp_path: Path) -> None:
    assert [s.value for s in Stack] == list(JUDGED_ON)
    command = [
        "reproduce",
        "gsam-loss",
        "--quick",
        "--runs",
        "1",
        "--jobs",
        "1",
        "--stack",
        "ns3",
        "--out",
        str(tmp_path),
    ]
    done = subprocess.run([sys.executable, "-m", "mpsim.cli", *command], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "gsam-loss (quick on ns3)" in done.stdout
    assert set(pq.read_table(tmp_path / "ns3" / "gsam-loss" / "results.parquet").column("stack").to_pylist()) == {"ns3"}
    assert not (tmp_path / "gsam-loss").exists()
    refused = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", *command[:-4], "--stack", "bsd"], capture_output=True, text=True
    )
    assert refused.returncode != 0 and "bsd" in refused.stderr
