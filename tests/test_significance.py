"""The tests of significance behind the claims (python/mpsim/experiments/significance.py): Student's t against
its closed forms and a table, Spearman's p-values against every ordering counted here, TOST against a Welch
example computed by hand."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mpsim.experiments.significance import RankCorrelation, ranks, spearman, student_t_cdf, tost
from mpsim.plots import _T95


def test_student_t_matches_its_closed_forms_and_the_table_of_quantiles() -> None:
    # ν = 1 is Cauchy's, ν = 2 has F(t) = 1/2 + t/(2√(2 + t²)).
    for t in (-30.0, -2.0, -0.3, 0.0, 0.7, 5.0):
        assert student_t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-12)
        assert student_t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(2 + t * t)), abs=1e-12)
    # The plots' two-sided 95 % quantiles for 1..30 degrees of freedom, given to 3 decimals.
    for dof, quantile in enumerate(_T95, start=1):
        assert student_t_cdf(quantile, dof) == pytest.approx(0.975, abs=1e-4), dof
    assert student_t_cdf(1.959964, math.inf) == pytest.approx(0.975, abs=1e-6)
    assert student_t_cdf(2.5, 10_000) == pytest.approx(student_t_cdf(2.5, math.inf), abs=1e-4)


@given(st.floats(-50, 50), st.floats(0.5, 200))
def test_student_t_is_symmetric(t: float, dof: float) -> None:
    assert student_t_cdf(t, dof) + student_t_cdf(-t, dof) == pytest.approx(1.0, abs=1e-12)


def brute_force_p(xs: Sequence[float], ys: Sequence[float], increasing: bool) -> float:
    """The share of the orderings of ``ys`` whose Σ d² of ranks is at most (at least, for a fall) the observed."""
    rx, ry = ranks(xs), ranks(ys)

    def d2(order: Sequence[float]) -> float:
        return sum((a - b) ** 2 for a, b in zip(rx, order, strict=True))

    observed = d2(ry)
    orders = list(itertools.permutations(ry))
    as_extreme = [o for o in orders if (d2(o) <= observed if increasing else d2(o) >= observed)]
    return len(as_extreme) / len(orders)


def test_spearman_p_values_are_the_exact_ones() -> None:
    # n = 5, one neighbouring pair swapped: Σ d² = 2, ρ = 1 − 6·2/(5·24) = 0.9. As extreme: the identity
    # (Σ d² = 0) and the 4 orderings with one neighbouring pair swapped, 5 of 120: p = 1/24.
    r = spearman([1, 2, 3, 4, 5], [1, 2, 3, 5, 4], increasing=True)
    assert (r.n, r.exact) == (5, True)
    assert r.rho == pytest.approx(0.9) and r.p == pytest.approx(1 / 24)
    assert spearman([1, 2, 3, 4, 5], [1, 2, 3, 5, 4], increasing=False).p == pytest.approx(119 / 120)
    # n = 6 with a tie, against all 720 orderings counted here.
    ys = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0]
    assert spearman(range(6), ys, increasing=True).p == pytest.approx(brute_force_p(range(6), ys, True))
    assert spearman(range(6), ys, increasing=False).p == pytest.approx(brute_force_p(range(6), ys, False))
    assert spearman([1, 2, 3], [5, 5, 5], increasing=True) == RankCorrelation(0.0, 1.0, 3, True)


def test_spearman_beyond_eight_pairs_is_the_t_approximation() -> None:
    # Ten pairs, ρ = 1 − 6·10/(10·99) = 0.939 (five neighbouring swaps: Σ d² = 10); t = ρ√(8/(1 − ρ²)) ≈ 7.74.
    r = spearman(range(10), [2, 1, 4, 3, 6, 5, 8, 7, 10, 9], increasing=True)
    rho = 1 - 6 * 10 / (10 * 99)
    assert r.rho == pytest.approx(rho) and not r.exact
    assert r.p == pytest.approx(1 - student_t_cdf(rho * math.sqrt(8 / (1 - rho * rho)), 8))
    assert r.p < 1e-4


values = st.lists(st.integers(-1000, 1000), min_size=2, max_size=7)


@given(values)
def test_the_rank_test_is_the_same_for_any_increasing_transform_of_the_metric(ys: list[int]) -> None:
    xs = list(range(len(ys)))
    for increasing in (True, False):
        plain = spearman(xs, ys, increasing)
        for transform in (lambda v: v**3, lambda v: math.exp(v / 100), lambda v: 2.5 * v - 7):
            moved = spearman(xs, [transform(v) for v in ys], increasing)
            assert moved.rho == pytest.approx(plain.rho) and moved.p == pytest.approx(plain.p)


def test_tost_against_a_welch_example_computed_by_hand() -> None:
    # a = 10, 12 and b = 11, 13: d = −1, s² = 2 on each side, se = √(2/2 + 2/2) = √2, and Welch's degrees of
    # freedom (1 + 1)²/(1²/1 + 1²/1) = 2, where Student's t has the closed form F(t) = 1/2 + t/(2√(2 + t²)).
    # Margin 3: t_lower = (−1 + 3)/√2 = √2, p_lower = 1/2 − √2/(2·2) = 1/2 − √2/4 ≈ 0.146;
    # t_upper = (−1 − 3)/√2 = −2√2, p_upper = 1/2 − 2√2/(2√10) = 1/2 − 1/√5 ≈ 0.053.
    test = tost([10.0, 12.0], [11.0, 13.0], margin=3.0)
    assert test.difference == -1.0
    assert test.standard_error == pytest.approx(math.sqrt(2.0), rel=1e-12)
    assert test.dof == pytest.approx(2.0, rel=1e-12)
    assert test.p_lower == pytest.approx(0.5 - math.sqrt(2.0) / 4, rel=1e-9)
    assert test.p_upper == pytest.approx(0.5 - 1 / math.sqrt(5.0), rel=1e-9)
    assert test.p == test.p_lower


def test_tost_with_identical_runs_or_too_few_runs() -> None:
    exact = tost([5.0, 5.0], [5.5, 5.5], margin=1.0)
    assert (exact.standard_error, exact.p) == (0.0, 0.0)
    assert tost([5.0, 5.0], [7.0, 7.0], margin=1.0).p == 1.0
    with pytest.raises(ValueError, match="2 values or more"):
        tost([5.0], [5.0, 5.0], margin=1.0)


def test_two_samples_of_the_same_constant_are_equivalent_even_within_a_zero_margin() -> None:
    # Both sides 0 in every run (nobody loses a packet): a margin relative to a mean of 0 is 0, and the known
    # difference, 0, lies inside it; a constant difference outside it does not.
    assert tost([0.0, 0.0, 0.0], [0.0, 0.0], 0.0).p < 0.05
    assert tost([1.0, 1.0], [0.0, 0.0], 0.5).p > 0.05
