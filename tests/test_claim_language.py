"""What the claim language says beyond the comparison of two variants' means (python/mpsim/experiments/claims.py):
where the paper says a claim and in which words; on tables built so that each must hold or fail."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from mpsim.experiments import CATALOGUE
from mpsim.experiments.claims import (
    Compare,
)
from mpsim.experiments.scorecard import check_words, claim_words, entry, experiment_table


def rows_of(runs: Mapping[tuple[str, Any], Sequence[float]], metric: str = "fct_s") -> list[dict[str, Any]]:
    """One row per run of each (variant, x), the run's value of ``metric``."""
    return [
        {"x": x, "variant": v, "run": k + 1, "seed": k + 1, metric: value}
        for (v, x), values in runs.items()
        for k, value in enumerate(values)
    ]


# ------------------------------------------------------------------------------------------------ provenance


def test_a_claim_says_where_the_paper_makes_it_and_the_scorecard_shows_it() -> None:
    plain = Compare("GSAM completes sooner.", "fct_s", left="gsam", op="<", right="tcp")
    cited = dataclasses.replace(
        plain,
        quote="GSAM reduces the completion time by up to 40 %.",
        where="Fig. 7",
        headline=True,
        derivation="'up to 40 %': any reduction at every x",
    )
    assert (plain.quote, plain.where, plain.headline, plain.derivation) == ("", "", False, "")
    assert cited.statement() == plain.statement()
    experiment = dataclasses.replace(CATALOGUE["gsam-loss"], claims=(), checks=(plain, cited))
    rows = rows_of({("gsam", 1): (1.0,), ("tcp", 1): (2.0,)})
    without, given = entry(experiment, rows)["claims"]
    # Every entry has the four keys, so that the scorecard's shape does not depend on what a check says.
    assert {k: without[k] for k in ("quote", "where", "headline", "derivation")} == {
        "quote": "",
        "where": "",
        "headline": False,
        "derivation": "",
    }
    assert claim_words(given) == (
        "Headline: GSAM completes sooner. (Fig. 7) Paper: “GSAM reduces the completion time by up to 40 %.”"
    )
    assert check_words(given) == "fct_s: gsam < tcp at every x (band: 'up to 40 %': any reduction at every x)"
    assert (claim_words(without), check_words(without)) == ("GSAM completes sooner.", "fct_s: gsam < tcp at every x")
    # A scorecard written before claims said where reads as it did.
    old = {k: without[k] for k in ("text", "statement", "numbers", "verdict", "passed", "points")}
    table = experiment_table("gsam-loss", {"figure": "Fig. 16", "claims": [old, given], "unchecked": []})
    row = "| GSAM completes sooner. | fct_s: gsam < tcp at every x | 1: 1 vs 2 | holds (1/1) |"
    assert table.splitlines()[-2] == row
    assert table.splitlines()[-1].startswith("| Headline: GSAM completes sooner. (Fig. 7) Paper: “GSAM")
