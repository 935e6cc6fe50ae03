"""The few statistical tests the claims need, in plain Python: Student's t distribution, Spearman's rank
correlation with its one-sided p-value, and the two one-sided tests (TOST) of equivalence of two means.

Student's t distribution function is computed from the regularised incomplete beta function,
``F(t; ν) = 1 − I_{ν/(ν+t²)}(ν/2, 1/2) / 2`` for t ≥ 0 (Abramowitz & Stegun 26.7.1 with 26.5.27), whose
continued fraction is evaluated by the modified Lentz method (Numerical Recipes, 3rd ed., §6.4). It takes any
positive, not necessarily whole, number of degrees of freedom, as Welch's test needs.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

EXACT_SPEARMAN_MAX_N = 8
"""Up to this many pairs, Spearman's p-value is exact: the share of all n! orderings of one variable's ranks
whose correlation is at least as extreme as the one observed (40 320 orderings at 8). Beyond it, the t
approximation: ``t = ρ·√((n − 2)/(1 − ρ²))`` with n − 2 degrees of freedom."""

_FRACTION_STEPS = 300
_FRACTION_EPSILON = 1e-15
_TINY = 1e-300


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (Numerical Recipes §6.4, ``betacf``)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _FRACTION_STEPS + 1):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + aa / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _FRACTION_EPSILON:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), for a, b > 0 and 0 ≤ x ≤ 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    # The fraction converges fast for x below (a + 1)/(a + b + 2); above it, I_x(a, b) = 1 − I_{1−x}(b, a).
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def student_t_cdf(t: float, dof: float) -> float:
    """P(T ≤ t) for Student's t with ``dof`` degrees of freedom (any dof > 0; infinite: the normal)."""
    if math.isnan(t) or math.isnan(dof) or dof <= 0:
        return math.nan
    if math.isinf(dof):
        return 0.5 * math.erfc(-t / math.sqrt(2.0))
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * incomplete_beta(dof / 2.0, 0.5, dof / (dof + t * t))
    return 1.0 - tail if t > 0 else tail


@dataclass(frozen=True)
class RankCorrelation:
    """Spearman's rank correlation of n pairs and its one-sided p-value in the direction asked."""

    rho: float
    p: float
    """P(a correlation at least this far in the direction asked | no association)."""
    n: int
    exact: bool
    """Whether ``p`` is the exact permutation p-value (n ≤ :data:`EXACT_SPEARMAN_MAX_N`) or the t
    approximation."""


def ranks(values: Sequence[float]) -> list[float]:
    """The ranks of ``values``, 1 for the least; tied values share the mean of their ranks."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in order[start : end + 1]:
            out[i] = (start + end) / 2.0 + 1.0
        start = end + 1
    return out


def spearman(xs: Sequence[float], ys: Sequence[float], increasing: bool) -> RankCorrelation:
    """Spearman's ρ of ``ys`` against ``xs`` (the Pearson correlation of their ranks, ties sharing a rank) and
    its one-sided p-value against no association, for the alternative that ``ys`` grows with ``xs``
    (``increasing``) or falls. Exact up to :data:`EXACT_SPEARMAN_MAX_N` pairs, the t approximation beyond.
    With fewer than 2 pairs, or either variable constant, ρ is 0 and p is 1."""
    n = len(xs)
    if n != len(ys):
        raise ValueError(f"{n} x values but {len(ys)} y values")
    rx, ry = ranks(xs), ranks(ys)
    mean = (n + 1) / 2.0
    spread = math.sqrt(sum((r - mean) ** 2 for r in rx) * sum((r - mean) ** 2 for r in ry))
    if n < 2 or spread == 0:
        return RankCorrelation(0.0, 1.0, n, n <= EXACT_SPEARMAN_MAX_N)
    sign = 1.0 if increasing else -1.0
    # ρ is an increasing function of Σ rx·ry once the ranks are fixed: compare that sum over the orderings.
    observed = sum(a * b for a, b in zip(rx, ry, strict=True))
    rho = (observed - n * mean * mean) / spread
    if n <= EXACT_SPEARMAN_MAX_N:
        as_extreme = sum(
            sign * (sum(a * b for a, b in zip(rx, perm, strict=True)) - observed) >= -1e-9
            for perm in itertools.permutations(ry)
        )
        return RankCorrelation(rho, as_extreme / math.factorial(n), n, True)
    if abs(rho) >= 1.0:
        return RankCorrelation(rho, 0.0 if sign * rho > 0 else 1.0, n, False)
    t = rho * math.sqrt((n - 2) / (1.0 - rho * rho))
    return RankCorrelation(rho, 1.0 - student_t_cdf(sign * t, n - 2), n, False)


@dataclass(frozen=True)
class Equivalence:
    """The two one-sided tests (TOST) of |mean(a) − mean(b)| < margin with Welch's t."""

    difference: float
    """mean(a) − mean(b)."""
    standard_error: float
    """√(s_a²/n_a + s_b²/n_b)."""
    dof: float
    """Welch–Satterthwaite degrees of freedom (NaN when the standard error is 0)."""
    p_lower: float
    """p-value against the null hypothesis difference ≤ −margin."""
    p_upper: float
    """p-value against the null hypothesis difference ≥ +margin."""

    @property
    def p(self) -> float:
        """The TOST p-value: equivalence is shown at level α when both one-sided tests reject, p < α."""
        return max(self.p_lower, self.p_upper)


def tost(a: Sequence[float], b: Sequence[float], margin: float) -> Equivalence:
    """Welch's two one-sided tests of the means of ``a`` and ``b`` against the equivalence margin ±``margin``
    (Schuirmann 1987): t_lower = (d + margin)/se, p_lower = P(T ≥ t_lower); t_upper = (d − margin)/se, p_upper =
    P(T ≤ t_upper), T Student's t with the Welch–Satterthwaite degrees of freedom
    ν = (v_a + v_b)² / (v_a²/(n_a − 1) + v_b²/(n_b − 1)), v = s²/n. Each sample needs 2 values or more."""
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"TOST needs 2 values or more on each side, not {len(a)} and {len(b)}")
    d = statistics.fmean(a) - statistics.fmean(b)
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    se = math.sqrt(va + vb)
    dof = (va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1)) if se else math.nan
    return _two_one_sided(d, se, dof, margin)


def paired_tost(a: Sequence[float], b: Sequence[float], margin: float) -> Equivalence:
    """The two one-sided tests for paired values (two measures of the same runs): the one-sample t-tests of the
    differences a_i − b_i against ±``margin``, n − 1 degrees of freedom, se = s_d/√n. The pairs need 2 or more."""
    if len(a) != len(b) or len(a) < 2:
        raise ValueError(f"a paired TOST needs 2 pairs or more, not {len(a)} and {len(b)} values")
    gaps = [x - y for x, y in zip(a, b, strict=True)]
    return _two_one_sided(statistics.fmean(gaps), statistics.stdev(gaps) / math.sqrt(len(gaps)), len(gaps) - 1, margin)


def _two_one_sided(d: float, se: float, dof: float, margin: float) -> Equivalence:
    """The two one-sided t-tests of a difference ``d`` with standard error ``se`` against ±``margin``."""
    if se == 0:
        # Identical runs on each side: the difference is known exactly, and no difference lies inside any margin,
        # a zero one too (a relative margin of two means of 0).
        inside_low, inside_high = d > -margin or d == 0, d < margin or d == 0
        return Equivalence(d, 0.0, math.nan, 0.0 if inside_low else 1.0, 0.0 if inside_high else 1.0)
    p_lower = 1.0 - student_t_cdf((d + margin) / se, dof)
    p_upper = student_t_cdf((d - margin) / se, dof)
    return Equivalence(d, se, dof, p_lower, p_upper)
