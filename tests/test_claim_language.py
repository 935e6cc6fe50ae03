"""What the claim language says beyond the comparison of two variants' means (python/mpsim/experiments/claims.py):
trends over the whole range, equivalence, two metrics of one variant, metrics derived per run, ties in an order,
where the paper says a claim and in which words; on tables built so that each must hold or fail."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from hypothesis import given
from hypothesis import strategies as st

from mpsim.experiments import CATALOGUE
from mpsim.experiments.claims import (
    Band,
    Compare,
    CompareMetrics,
    Derived,
    Equivalent,
    EquivalentMetrics,
    Order,
    Trend,
    single,
)
from mpsim.experiments.scorecard import check_words, claim_words, entry, experiment_table


def rows_of(runs: Mapping[tuple[str, Any], Sequence[float]], metric: str = "fct_s") -> list[dict[str, Any]]:
    """One row per run of each (variant, x), the run's value of ``metric``."""
    return [
        {"x": x, "variant": v, "run": k + 1, "seed": k + 1, metric: value}
        for (v, x), values in runs.items()
        for k, value in enumerate(values)
    ]


def series(means: Sequence[float], variant: str = "mptcp", spread: float = 0.0) -> list[dict[str, Any]]:
    """Three runs at x = 10, 20, … whose means are ``means``: each mean − spread, mean, mean + spread."""
    return rows_of({(variant, 10 * (i + 1)): (m - spread, m, m + spread) for i, m in enumerate(means)})


# ---------------------------------------------------------------------------------------------------- trends


def test_a_mid_range_jump_fails_the_monotone_and_rank_modes_where_the_endpoints_pass_it() -> None:
    def verdict(means: Sequence[float], **fields: Any) -> str:
        return Trend("", "fct_s", variants=("mptcp",), **fields).check(series(means)).verdict

    jump = (7.6, 33.2, 8.0)
    assert verdict((9.0, *jump)) == "holds"  # the default mode: endpoints, 9 → 8
    assert verdict((9.0, *jump), mode="endpoints") == "holds"
    assert verdict((9.0, *jump), mode="monotone") == "fails"
    assert verdict((9.0, *jump), mode="monotone", tolerance=0.5) == "fails"  # 25.6 back: all of the span
    # Over six x values a clean fall is significant (ρ = −1, p = 1/720); with the jump the ranks of the means
    # are 5, 4, 2, 6, 3, 1: Σ d² = 54, ρ = 1 − 6·54/(6·35) = −0.543, not significant (p = 0.149).
    assert verdict((9.0, 8.8, *jump, 7.0), mode="rank") == "fails"
    for mode in ("endpoints", "monotone", "rank"):
        assert verdict((9.0, 8.8, 8.4, 8.1, 7.6, 7.0), mode=mode) == "holds", mode

    jumped = Trend("", "fct_s", variants=("mptcp",), mode="monotone").check(series(jump))
    assert jumped.details == ("mptcp: 7.6 at 10 → 33.2 at 20 → 8 at 30; largest step back 25.6 after 10 ✗",)
    ranked = Trend("", "fct_s", variants=("mptcp",), mode="rank").check(series((9.0, 8.8, *jump, 7.0)))
    assert ranked.details == ("mptcp: ρ -0.543, p 0.149 over 6 x (exact) ✗",)


def test_monotone_forgives_a_step_back_within_its_tolerance_of_the_span_and_flat_steps() -> None:
    def verdict(means: Sequence[float], tolerance: float, direction: Literal["falls", "grows"] = "falls") -> str:
        claim = Trend("", "fct_s", variants=("mptcp",), mode="monotone", tolerance=tolerance, direction=direction)
        return claim.check(series(means)).verdict

    # The span is 10 − 2 = 8; the step back 5 → 5.6 is 7.5 % of it.
    assert verdict((10.0, 5.0, 5.6, 2.0), 0.0) == "fails"
    assert verdict((10.0, 5.0, 5.6, 2.0), 0.1) == "holds"
    assert verdict((10.0, 5.0, 5.6, 2.0), 0.05) == "fails"
    # Retransmissions falling to none and staying there fall; a flat line does not.
    assert verdict((4.0, 1.0, 0.0, 0.0), 0.0) == "holds"
    assert verdict((1.0, 1.0, 1.0), 0.5) == "fails"
    assert verdict((1.0, 2.0, 2.0, 3.0), 0.0, "grows") == "holds"


def test_the_rank_mode_over_runs_pools_every_run_and_uses_the_t_approximation() -> None:
    # Three x values are too few for the means (the least exact p-value is 1/6), enough for nine runs.
    rows = series((9.0, 8.0, 7.0), spread=0.3)
    means = Trend("", "fct_s", variants=("mptcp",), mode="rank").check(rows)
    runs = Trend("", "fct_s", variants=("mptcp",), mode="rank", rank_over="runs").check(rows)
    assert (means.verdict, means.details) == ("fails", ("mptcp: ρ -1, p 0.167 over 3 x (exact) ✗",))
    assert runs.verdict == "holds" and runs.details[0].endswith("over 9 runs (t approximation)")


def test_every_trend_mode_says_what_it_checks() -> None:
    def statement(**fields: Any) -> str:
        return Trend("", "fct_s", variants=("tcp", "gsam"), x_max=40, **fields).statement()

    assert statement() == "fct_s of each of tcp, gsam: lower at the last x than at the first (x ≤ 40)"
    assert statement(mode="monotone", tolerance=0.1) == (
        "fct_s of each of tcp, gsam: never higher at an x than at the one before by more than 10% of the means' "
        "span, and lower at the last than at the first (x ≤ 40)"
    )
    assert statement(mode="rank", direction="grows", alpha=0.01) == (
        "fct_s of each of tcp, gsam: Spearman's rank correlation of its mean per x with x positive, one-sided "
        "p < 0.01 (x ≤ 40)"
    )


@given(st.lists(st.integers(-1000, 1000), min_size=2, max_size=7))
def test_a_trend_judged_by_rank_depends_only_on_the_order_of_the_means(ys: list[int]) -> None:
    claim = Trend("", "fct_s", variants=("mptcp",), mode="rank", direction="grows")
    plain = claim.check(series([float(y) for y in ys])).verdict
    assert claim.check(series([math.exp(y / 100) for y in ys])).verdict == plain


# ----------------------------------------------------------------------------------------------- equivalence


def test_equivalence_fails_a_wide_spread_and_passes_a_tight_one_with_the_same_means() -> None:
    def runs(spread: float) -> list[dict[str, Any]]:
        return rows_of({("gsam", 1): (10 - spread, 10, 10 + spread), ("tcp", 1): (10.2 - spread, 10.2, 10.2 + spread)})

    same = Equivalent("", "fct_s", left="gsam", right="tcp", margin=0.1)
    tight, wide = same.check(runs(0.1)), same.check(runs(5.0))
    assert (tight.verdict, wide.verdict) == ("holds", "fails")
    assert tight.details == ("1: 10 vs 10.2 (±1.02), TOST p 0.000276",)
    assert wide.details == ("1: 10 vs 10.2 (±1.02), TOST p 0.425 ✗",)
    # "Not distinguishable at two standard errors" passes the wide spread: it cannot tell that it knows nothing.
    blind = Compare("", "fct_s", left="gsam", op="≈", right="tcp", criterion="significant").check(runs(5.0))
    assert blind.verdict == "holds"
    assert same.statement() == "fct_s: gsam equivalent to tcp within ±10% of tcp at every x (TOST, Welch, α = 0.05)"
    absolute = Equivalent("", "fct_s", left="gsam", right="tcp", margin=0.5, margin_kind="absolute", x_min=2)
    assert absolute.statement() == "fct_s: gsam equivalent to tcp within ±0.5 at x ≥ 2 (TOST, Welch, α = 0.05)"


def test_equivalent_judges_each_x_by_tost_at_its_level() -> None:
    # TOST p = 0.146 here (tests/test_significance.py works it out by hand).
    rows = rows_of({("a", 1): (10.0, 12.0), ("b", 1): (11.0, 13.0)})
    for alpha, verdict in ((0.05, "fails"), (0.15, "holds")):
        claim = Equivalent("", "fct_s", left="a", right="b", margin=3.0, margin_kind="absolute", alpha=alpha)
        assert claim.check(rows).verdict == verdict


def test_a_point_with_a_single_run_cannot_show_equivalence() -> None:
    one_run = rows_of({("a", 1): (5.0,), ("b", 1): (5.0, 5.0)})
    outcome = Equivalent("", "fct_s", left="a", right="b", margin=0.5).check(one_run)
    assert outcome.details == ("1: 5 vs 5, too few runs to test ✗",)


# --------------------------------------------------------------------------- two metrics, derived metrics


def coded_runs() -> list[dict[str, Any]]:
    """mptcp_nc's coded subflow carries 3.5 and 4.5 times TCP's goodput (x = 1), 2 and 3 times (x = 2); a third
    run at x = 1 lost its TCP column; lia carries as much as TCP."""
    rows = [
        {"x": 1, "variant": "mptcp_nc", "seed": 1, "goodput_sub_coded": 7.0, "goodput_tcp": 2.0},
        {"x": 1, "variant": "mptcp_nc", "seed": 2, "goodput_sub_coded": 9.0, "goodput_tcp": 2.0},
        {"x": 1, "variant": "mptcp_nc", "seed": 3, "goodput_sub_coded": 100.0, "goodput_tcp": None},
        {"x": 2, "variant": "mptcp_nc", "seed": 1, "goodput_sub_coded": 4.0, "goodput_tcp": 2.0},
        {"x": 2, "variant": "mptcp_nc", "seed": 2, "goodput_sub_coded": 12.0, "goodput_tcp": 4.0},
    ]
    return rows + [{**r, "variant": "lia", "goodput_sub_coded": r["goodput_tcp"]} for r in rows]


def test_two_metrics_of_one_variant_are_compared_over_the_same_runs() -> None:
    def claim(factor: float, **fields: Any) -> CompareMetrics:
        return CompareMetrics(
            "", "goodput_sub_coded", variant="mptcp_nc", op=">", other="goodput_tcp", factor=factor, **fields
        )

    # Means over the runs with both: 8 vs 2 at x = 1 (the third run has no TCP goodput), 8 vs 3 at x = 2.
    three = claim(2.5).check(coded_runs())
    assert (three.verdict, three.details) == ("holds", ("1: 8 vs 5", "2: 8 vs 7.5"))
    assert claim(3.0).check(coded_runs()).verdict == "partly"
    assert claim(4.5).check(coded_runs()).verdict == "fails"
    # Paired differences 8 − 2.5·2: 2, 4 at x = 1 (mean 3, se 1); at x = 2, 3 and 2 (mean 0.5, se 2.5).
    significant = claim(2.5, criterion="significant").check(coded_runs())
    assert (significant.verdict, significant.passed) == ("partly", 1)
    assert claim(3.0).statement() == "mptcp_nc, the same runs: goodput_sub_coded > 3·goodput_tcp at every x"
    assert claim(3.0).named_variants() == ("mptcp_nc",)
    assert claim(3.0).columns() == ("goodput_sub_coded", "goodput_tcp")


def test_two_metrics_of_one_variant_are_equivalent_by_the_tests_of_their_paired_differences() -> None:
    def rows(tcp: Sequence[float], sub1: Sequence[float]) -> list[dict[str, Any]]:
        return [
            {"x": 1, "variant": "couple_plus", "run": k + 1, "seed": k + 1, "tcp_kbps": t, "sub1_kbps": s}
            for k, (t, s) in enumerate(zip(tcp, sub1, strict=True))
        ]

    claim = EquivalentMetrics("", "tcp_kbps", variant="couple_plus", other="sub1_kbps", margin=0.1)
    # The runs move together (300 to 700 kbit/s) and TCP stays 2-6 kbit/s above subflow 1: the paired
    # differences 2, 6, 4, 4 (mean 4, s 1.63, se 0.82) lie well inside ±10 % of 500. Unpaired, the runs'
    # spread (s 183 on each side, Welch se 129) could not show it.
    tcp, sub1 = (302.0, 506.0, 704.0, 504.0), (300.0, 500.0, 700.0, 500.0)
    together = claim.check(rows(tcp, sub1))
    assert together.verdict == "holds", together.details
    assert "paired TOST" in together.details[0]
    unpaired = Equivalent("", "kbps", left="tcp", right="sub1", margin=0.1).check(
        rows_of({("tcp", 1): tcp, ("sub1", 1): sub1}, "kbps")
    )
    assert unpaired.verdict == "fails"
    # The same means with differences that scatter by ±120: not shown.
    scattered = claim.check(rows((420.0, 380.0, 824.0, 392.0), sub1))
    assert scattered.verdict == "fails", scattered.details
    # A steady 15 % gap lies outside the margin.
    assert claim.check(rows(tuple(1.15 * v for v in sub1), sub1)).verdict == "fails"
    assert claim.statement() == (
        "couple_plus, the same runs: tcp_kbps equivalent to sub1_kbps within ±10% of sub1_kbps at every x "
        "(paired TOST, α = 0.05)"
    )
    # One run with both metrics cannot show anything.
    assert claim.check(rows((500.0,), (500.0,))).verdict == "fails"


def test_a_derived_ratio_is_computed_per_run_then_averaged_and_serves_every_claim() -> None:
    ratio = Derived("goodput_sub_coded", "/", "goodput_tcp")
    # Per-run ratios of mptcp_nc: 3.5, 4.5 (mean 4) at x = 1; 2, 3 (mean 2.5) at x = 2. The ratio of the means
    # at x = 2 would be 16/6 = 2.67.
    band = Band("", ratio, variants=("mptcp_nc",), low=2.0, high=4.0)
    assert band.check(coded_runs()).details == ("mptcp_nc 1: 4", "mptcp_nc 2: 2.5")
    assert band.check(coded_runs()).verdict == "holds"
    assert Band("", ratio, variants=("mptcp_nc",), low=3.0).check(coded_runs()).verdict == "partly"
    assert band.statement() == "goodput_sub_coded / goodput_tcp (per run) of mptcp_nc in [2, 4] at every x"
    assert band.columns() == ("goodput_sub_coded", "goodput_tcp")
    # Between variants, as of any column: mptcp_nc's ratio is above lia's (1) by more than 2 at every x.
    above = Compare("", ratio, left="mptcp_nc", op=">", right="lia", factor=2.0)
    assert above.check(coded_runs()).verdict == "holds"
    assert single((band, above), Compare, ratio) is above
    gap = Band("", Derived("goodput_sub_coded", "-", "goodput_tcp"), variants=("mptcp_nc",), low=5.0, high=6.0)
    assert gap.check(coded_runs()).details == ("mptcp_nc 1: 6", "mptcp_nc 2: 5")


def test_a_derived_ratio_has_no_value_for_0_over_0_and_an_infinite_one_over_0() -> None:
    ratio = Derived("a", "/", "b")
    assert ratio.value({"a": 0, "b": 0}) is None
    assert ratio.value({"a": 3.0, "b": 0.0}) == math.inf
    assert ratio.value({"a": float("nan"), "b": 1.0}) is None
    assert ratio.value({"a": 3, "b": 2}) == 1.5
    assert Derived("a", "-", "b").value({"a": 3, "b": 2}) == 1.0
    assert Derived("a", "-", "b").value({"a": 3}) is None


# ------------------------------------------------------------------------------------------------------ ties


def test_neighbours_within_the_tie_satisfy_the_order_either_way() -> None:
    # "GSAM is a little slower than MPTCP": here it is 2 % faster, at x = 1 and 30 % at x = 2.
    rows = rows_of({("mptcp", 1): (1.0,), ("gsam", 1): (0.98,), ("tcp", 1): (3.0,)})
    rows += rows_of({("mptcp", 2): (1.0,), ("gsam", 2): (0.7,), ("tcp", 2): (3.0,)})

    def order(tie: float, **fields: Any) -> Order:
        return Order("", "fct_s", ranking=("mptcp", "gsam"), rest=("tcp",), tie=tie, **fields)

    assert order(0.0).check(rows).verdict == "fails"
    assert order(0.01).check(rows).verdict == "fails"  # 0.02 apart, 2 % of the larger
    within = order(0.05).check(rows)
    assert (within.verdict, within.passed) == ("partly", 1)
    assert within.details == ("1: mptcp 1, gsam 0.98, tcp 3; tied: mptcp ≈ gsam", "2: mptcp 1, gsam 0.7, tcp 3 ✗")
    # A tie of the last of the ranking with one of the rest counts too, and the order may run the other way.
    close = rows_of({("gsam", 1): (2.0,), ("tcp", 1): (2.05,)}, metric="goodput_mbps")
    best = Order("", "goodput_mbps", ranking=("gsam",), rest=("tcp",), higher_is_better=True, tie=0.05)
    assert best.check(close).verdict == "holds"
    assert order(0.05).statement() == "fct_s: mptcp < gsam < {tcp} at every x (neighbours within 5% of each other tied)"


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
    # A scorecard written before claims said where (nor judged them on other stacks) reads as it did.
    old = {k: without[k] for k in ("text", "statement")} | without["verdicts"]["paper"]
    table = experiment_table("gsam-loss", {"figure": "Fig. 16", "claims": [old, given], "unchecked": []})
    row = "| 1 | GSAM completes sooner. | fct_s: gsam < tcp at every x | holds (1/1): 1: 1 vs 2 |"
    assert table.splitlines()[-2] == row
    assert table.splitlines()[-1].startswith("| 2 | Headline: GSAM completes sooner. (Fig. 7) Paper: “GSAM")


def test_a_figure_no_check_can_judge_is_uncheckable_and_an_exploration_is_not_counted() -> None:
    from mpsim.experiments.claims import Bound, NotCheckable
    from mpsim.experiments.scorecard import claim_words, tally

    rows = [{"x": 1, "variant": "a", "seed": 1, "m": 1.0}]
    figure = NotCheckable("Fig. 26", "", reason="its caption repeats Fig. 25's", where="Fig. 26")
    outcome = figure.check(rows)
    assert (outcome.verdict, outcome.passed, outcome.total) == ("uncheckable", 0, 0)
    assert figure.statement() == "not checkable: its caption repeats Fig. 25's"
    explored = Bound("a beyond the paper's range", "m", variants=("a",), op="<=", value=2.0, exploration=True)
    counted = Bound("a within it", "m", variants=("a",), op="<=", value=0.5)
    claims = [
        {"text": c.text, "verdict": c.check(rows).verdict, "exploration": c.exploration}
        for c in (figure, explored, counted)
    ]
    card = {"experiments": {"e": {"paper": "p", "claims": claims}}}
    assert tally(card)["p"] == {"paper": {"holds": 0, "partly": 0, "fails": 1, "untested": 0, "uncheckable": 1}}
    assert tally(card, explorations=True)["p"]["paper"]["holds"] == 1
    assert claim_words(claims[1]).startswith("Exploration, not counted: ")
