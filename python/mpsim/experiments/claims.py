"""The papers' claims as statements checked over an experiment's result table.

Each claim keeps the paper's words (``text``) beside a statement over the table's means per (x, variant):
a comparison of two variants at every x of a range, an order of variants, a trend against x, a bound, a
ratio or an average difference. A claim is judged at each of its points (an x, or a variant); the verdict is

- ``holds``: at every point;
- ``partly``: at some points, not all;
- ``fails``: at none;
- ``untested``: the table has no point in the claim's range (a quick run with fewer x values).

Tolerances are relative unless said. With ``criterion="significant"`` a comparison also needs the
difference of the means to exceed twice its standard error (Welch; about a 95 % one-sided test over
the paper's 10 runs), and "about equal" means not distinguishable at that level.

A claim may say where the paper makes it and in which words: ``quote`` (the paper's own sentence), ``where``
("Fig. 4", "Table II", "§IV-B", "Abstract"), ``headline`` (one of the paper's main results) and ``derivation``
(how the check's band follows from the paper's numbers or words).

Besides a column of the table, a claim's metric may be a :class:`Derived` one, the ratio or difference of two
columns computed on each run (row) that has both, then averaged like any other. :class:`CompareMetrics` compares
two metrics of one variant over the same runs, and :class:`Band` bounds a mean from both sides.

:class:`Equivalent` says "about the same" as a test of equivalence (TOST), which a wide spread of the runs fails.

:class:`Order` with ``tie`` counts two neighbours of the order within ``tie`` of each other as tied: the paper's
"a little", "similar".

``Trend`` judges a trend in one of three modes: ``monotone`` (every step from one x to the next), ``rank``
(Spearman's rank correlation against x, with its significance) and ``endpoints`` (the last x against the first
only). ``endpoints`` is the default for the checks written before the other two existed and is deprecated for
new checks: it passes a trend that jumps the other way in the middle of the range (7.6 → 33.2 → 8.0 "falls").
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypeVar

from mpsim.experiments.significance import paired_tost, spearman, tost

Verdict = Literal["holds", "partly", "fails", "untested", "uncheckable"]
Rows = Sequence[Mapping[str, Any]]
INF = math.inf


def _fmt(v: float) -> str:
    return "nan" if math.isnan(v) else f"{v:.3g}"


def _range_text(x_min: float, x_max: float) -> str:
    if x_min == -INF and x_max == INF:
        return "every x"
    if x_max == INF:
        return f"x ≥ {x_min:g}"
    if x_min == -INF:
        return f"x ≤ {x_max:g}"
    if x_min == x_max:
        return f"x = {x_min:g}"
    return f"{x_min:g} ≤ x ≤ {x_max:g}"


def _column(row: Mapping[str, Any], name: str) -> float | None:
    """The value of column ``name`` in ``row``; None when it has none (missing, None or NaN)."""
    v = row.get(name)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return float(v)


@dataclass(frozen=True)
class Derived:
    """A metric computed on each run from two of its columns: ``left / right`` or ``left - right``.

    A table's row is one run, so the two values of a run are those of one row; a run that lacks either has no
    value, and neither has a ratio's run where both are 0 (0/0; a nonzero value over 0 is ±inf). A claim over a
    derived metric judges the mean of the runs' values at each (x, variant), as it judges a column's."""

    left: str
    op: Literal["/", "-"]
    right: str

    def __str__(self) -> str:
        return f"{self.left} {'/' if self.op == '/' else '−'} {self.right} (per run)"

    def columns(self) -> tuple[str, str]:
        return (self.left, self.right)

    def value(self, row: Mapping[str, Any]) -> float | None:
        a, b = _column(row, self.left), _column(row, self.right)
        if a is None or b is None:
            return None
        if self.op == "-":
            return a - b
        if b == 0:
            return None if a == 0 else math.copysign(INF, a)
        return a / b


Metric: TypeAlias = str | Derived
"""What a claim is over: a column of the result table or a metric derived from two."""


def metric_value(row: Mapping[str, Any], metric: Metric) -> float | None:
    """The value of ``metric`` in one run's row; None when the run has none."""
    return metric.value(row) if isinstance(metric, Derived) else _column(row, metric)


def metric_columns(metric: Metric) -> tuple[str, ...]:
    """The columns of the table that ``metric`` reads."""
    return metric.columns() if isinstance(metric, Derived) else (metric,)


class Sample:
    """The runs of a table by (x, variant), restricted to the runs that have a value of one metric (not missing,
    None or NaN)."""

    def __init__(self, rows: Rows, metric: Metric) -> None:
        self.values: dict[tuple[Any, str], list[float]] = {}
        for r in rows:
            v = metric_value(r, metric)
            if v is not None:
                self.values.setdefault((r["x"], r["variant"]), []).append(v)

    def xs(self, x_min: float, x_max: float, variants: Iterable[str]) -> list[Any]:
        """The x values in [x_min, x_max] where every one of ``variants`` has runs, in order."""
        vs = list(variants)
        found = {x for x, _ in self.values if x_min <= x <= x_max}
        return sorted(x for x in found if all((x, v) in self.values for v in vs))

    def mean(self, x: Any, variant: str) -> float:
        return statistics.fmean(self.values[x, variant])

    def stderr(self, x: Any, variant: str) -> float:
        runs = self.values[x, variant]
        return statistics.stdev(runs) / math.sqrt(len(runs)) if len(runs) > 1 else 0.0


@dataclass(frozen=True)
class Outcome:
    """A claim judged on one table: its verdict, and the numbers at each point."""

    verdict: Verdict
    passed: int
    total: int
    details: tuple[str, ...]

    def numbers(self) -> str:
        return "; ".join(self.details) if self.details else "no point in range"


def _verdict(points: Sequence[tuple[bool, str]]) -> Outcome:
    passed = sum(ok for ok, _ in points)
    if not points:
        verdict: Verdict = "untested"
    elif passed == len(points):
        verdict = "holds"
    elif passed == 0:
        verdict = "fails"
    else:
        verdict = "partly"
    return Outcome(verdict, passed, len(points), tuple(d + ("" if ok else " ✗") for ok, d in points))


@dataclass(frozen=True)
class Claim:
    """A paper's claim: its words and the metric its statement is over (subclasses say what is checked), and,
    given by keyword, where the paper makes it and how the check follows from it."""

    text: str
    """The claim in the catalogue's words: what ties the check to its experiment's ``claims``."""
    metric: Metric
    quote: str = field(default="", kw_only=True)
    """The paper's own words, verbatim; empty when the check does not cite them."""
    where: str = field(default="", kw_only=True)
    """Where the paper says it: "Fig. 4", "Table II", "§IV-B", "Abstract"."""
    headline: bool = field(default=False, kw_only=True)
    """Whether the claim is one of the paper's main results (its abstract's or conclusion's)."""
    derivation: str = field(default="", kw_only=True)
    """How the check's band or margin was derived from the paper's numbers or words."""
    exploration: bool = field(default=False, kw_only=True)
    """Whether the check is of an exploration that is no figure or claim of the paper (another operating point,
    a sweep beyond the paper's range): judged and reported apart, never counted in the paper's verdicts."""

    def statement(self) -> str:
        raise NotImplementedError

    def named_variants(self) -> tuple[str, ...]:
        """The variants the statement is about."""
        raise NotImplementedError

    def columns(self) -> tuple[str, ...]:
        """The columns of the result table the statement reads."""
        return metric_columns(self.metric)

    def check(self, rows: Rows) -> Outcome:
        return _verdict(self.points(Sample(rows, self.metric)))

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        raise NotImplementedError


Op = Literal["<", ">", "≈"]
Criterion = Literal["means", "significant"]


@dataclass(frozen=True)
class _Comparison(Claim):
    """``a op factor·b`` of two means at every x in [x_min, x_max]. ``op`` is ``<``, ``>`` or ``≈``. For ``<``
    and ``>`` the tolerance is slack (``<`` holds while a < b·(1 + tolerance)); for ``≈`` it is the largest
    relative gap. With ``criterion="significant"`` the difference must also exceed twice its standard error
    (for ``≈``: be within it, as an alternative to the tolerance)."""

    op: Op = "<"
    factor: float = 1.0
    tolerance: float = 0.0
    x_min: float = -INF
    x_max: float = INF
    criterion: Criterion = "means"

    def _compared(self, a: str, b: Metric) -> str:
        """The statement's comparison of ``a`` with ``b``: ``a op factor·b at RANGE (tolerance …), …``."""
        b_text = str(b) if self.factor == 1.0 else f"{self.factor:g}·{b}"
        tol = f" (tolerance {self.tolerance:.0%})" if self.tolerance else ""
        sig = ""
        if self.criterion == "significant":
            sig = ", or within 2 standard errors" if self.op == "≈" else ", difference beyond 2 standard errors"
        return f"{a} {self.op} {b_text} at {_range_text(self.x_min, self.x_max)}{tol}{sig}"

    def _point(self, x: Any, a: float, b: float, se: float) -> tuple[bool, str]:
        """The point at ``x`` of means ``a`` and ``b`` (``b`` already times ``factor``), the standard error of
        their difference ``se``."""
        slack = self.tolerance * abs(b)
        if self.op == "<":
            ok = a < b + slack and (self.criterion == "means" or b - a > 2 * se)
        elif self.op == ">":
            ok = a > b - slack and (self.criterion == "means" or a - b > 2 * se)
        else:
            ok = abs(a - b) <= slack or (self.criterion == "significant" and abs(a - b) <= 2 * se)
        return ok, f"{x}: {_fmt(a)} vs {_fmt(b)}"


@dataclass(frozen=True)
class Compare(_Comparison):
    """``left op factor·right``: two variants' means of the metric at every x in range (:class:`_Comparison`)."""

    left: str = ""
    right: str = ""

    def statement(self) -> str:
        return f"{self.metric}: {self._compared(self.left, self.right)}"

    def named_variants(self) -> tuple[str, ...]:
        return (self.left, self.right)

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        out = []
        for x in sample.xs(self.x_min, self.x_max, (self.left, self.right)):
            a, b = sample.mean(x, self.left), self.factor * sample.mean(x, self.right)
            se = math.hypot(sample.stderr(x, self.left), self.factor * sample.stderr(x, self.right))
            out.append(self._point(x, a, b, se))
        return out


@dataclass(frozen=True)
class CompareMetrics(_Comparison):
    """``metric op factor·other`` for one variant at every x in range (:class:`_Comparison`): two metrics of the
    same runs, such as "MPTCP's coded subflow carries more than 3 times what the TCP flow does". Each side is the
    mean over the runs that have both metrics, and the standard error is that of the runs' paired differences
    metric − factor·other."""

    variant: str = ""
    other: Metric = ""

    def statement(self) -> str:
        return f"{self.variant}, the same runs: {self._compared(str(self.metric), self.other)}"

    def named_variants(self) -> tuple[str, ...]:
        return (self.variant,)

    def columns(self) -> tuple[str, ...]:
        return (*metric_columns(self.metric), *metric_columns(self.other))

    def check(self, rows: Rows) -> Outcome:
        paired = [r for r in rows if all(metric_value(r, m) is not None for m in (self.metric, self.other))]
        return _verdict(self.paired_points(Sample(paired, self.metric), Sample(paired, self.other)))

    def paired_points(self, left: Sample, right: Sample) -> list[tuple[bool, str]]:
        """The points of the claim from its two metrics over the same runs, in the same order."""
        out = []
        for x in left.xs(self.x_min, self.x_max, (self.variant,)):
            a, b = left.mean(x, self.variant), self.factor * right.mean(x, self.variant)
            runs = zip(left.values[x, self.variant], right.values[x, self.variant], strict=True)
            gaps = [u - self.factor * v for u, v in runs]
            se = statistics.stdev(gaps) / math.sqrt(len(gaps)) if len(gaps) > 1 else 0.0
            out.append(self._point(x, a, b, se))
        return out


def _margin_text(margin: float, kind: str, reference: object) -> str:
    """An equivalence margin as a statement says it: ±10% of ``reference``, or ±0.5."""
    return f"±{margin:.0%} of {reference}" if kind == "relative" else f"±{margin:g}"


def _equivalence_point(
    x: Any, a: Sequence[float], b: Sequence[float], claim: Equivalent | EquivalentMetrics, paired: bool
) -> tuple[bool, str]:
    """The point at ``x`` of an equivalence claim (:class:`Equivalent`, :class:`EquivalentMetrics`): ``a``
    against ``b`` within the claim's margin (relative: of |mean(b)|) by the two one-sided tests, Welch's or,
    ``paired``, of the differences of the same runs. Fewer than 2 values on a side show nothing."""
    numbers = f"{x}: {_fmt(statistics.fmean(a))} vs {_fmt(statistics.fmean(b))}"
    if len(a) < 2 or len(b) < 2:
        return False, f"{numbers}, too few runs to test"
    margin = claim.margin * abs(statistics.fmean(b)) if claim.margin_kind == "relative" else claim.margin
    test = paired_tost(a, b, margin) if paired else tost(a, b, margin)
    name = "paired TOST" if paired else "TOST"
    return test.p < claim.alpha, f"{numbers} (±{_fmt(margin)}), {name} p {_fmt(test.p)}"


@dataclass(frozen=True)
class EquivalentMetrics(Claim):
    """The paper's "about the same" for two metrics of one variant (``metric`` and ``other`` of the same runs):
    at every x in range their means differ by less than the margin, shown by the two one-sided tests of the
    runs' paired differences (:func:`mpsim.experiments.significance.paired_tost`) at level ``alpha``. The margin
    is ``margin`` of |mean(other)| when ``margin_kind`` is ``relative``, ``margin`` itself when ``absolute``; it
    comes from the paper's words or numbers (say how in ``derivation``). A point with fewer than 2 runs having
    both metrics fails."""

    variant: str = ""
    other: Metric = ""
    margin: float = 0.0
    margin_kind: Literal["relative", "absolute"] = "relative"
    alpha: float = 0.05
    x_min: float = -INF
    x_max: float = INF

    def statement(self) -> str:
        return (
            f"{self.variant}, the same runs: {self.metric} equivalent to {self.other} within "
            f"{_margin_text(self.margin, self.margin_kind, self.other)} at "
            f"{_range_text(self.x_min, self.x_max)} (paired TOST, α = {self.alpha:g})"
        )

    def named_variants(self) -> tuple[str, ...]:
        return (self.variant,)

    def columns(self) -> tuple[str, ...]:
        return (*metric_columns(self.metric), *metric_columns(self.other))

    def check(self, rows: Rows) -> Outcome:
        paired = [r for r in rows if all(metric_value(r, m) is not None for m in (self.metric, self.other))]
        left, right = Sample(paired, self.metric), Sample(paired, self.other)
        return _verdict(
            [
                _equivalence_point(x, left.values[x, self.variant], right.values[x, self.variant], self, paired=True)
                for x in left.xs(self.x_min, self.x_max, (self.variant,))
            ]
        )


@dataclass(frozen=True)
class Order(Claim):
    """At every x in range the means rank as ``ranking`` (best first; lower is better unless
    ``higher_is_better``), and the last of the ranking is better than each of ``rest``.

    ``tie`` is the paper's "a little", "similar": two variants the order puts next to each other (adjacent in
    ``ranking``, or the last of it and one of ``rest``) whose means differ by at most ``tie`` of the larger
    magnitude, |a − b| ≤ tie·max(|a|, |b|), are tied and satisfy the order whichever is ahead. 0: no ties."""

    ranking: tuple[str, ...] = ()
    rest: tuple[str, ...] = ()
    higher_is_better: bool = False
    x_min: float = -INF
    x_max: float = INF
    tie: float = 0.0

    def statement(self) -> str:
        sign = " > " if self.higher_is_better else " < "
        rest = f"{sign}{{{', '.join(self.rest)}}}" if self.rest else ""
        tie = f" (neighbours within {self.tie:.0%} of each other tied)" if self.tie else ""
        return f"{self.metric}: {sign.join(self.ranking)}{rest} at {_range_text(self.x_min, self.x_max)}{tie}"

    def named_variants(self) -> tuple[str, ...]:
        return (*self.ranking, *self.rest)

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        out = []
        variants = (*self.ranking, *self.rest)
        neighbours = [
            *itertools.pairwise(self.ranking),
            *((self.ranking[-1], v) for v in self.rest),
        ]
        for x in sample.xs(self.x_min, self.x_max, variants):
            mean = {v: sample.mean(x, v) for v in variants}
            key = {v: m * (-1 if self.higher_is_better else 1) for v, m in mean.items()}
            tied = [
                (a, b)
                for a, b in neighbours
                if self.tie and abs(mean[a] - mean[b]) <= self.tie * max(abs(mean[a]), abs(mean[b]))
            ]
            ok = all(key[a] < key[b] or (a, b) in tied for a, b in neighbours)
            text = ", ".join(f"{v} {_fmt(mean[v])}" for v in variants)
            ties = "; tied: " + ", ".join(f"{a} ≈ {b}" for a, b in tied) if tied else ""
            out.append((ok, f"{x}: {text}{ties}"))
        return out


TrendMode = Literal["endpoints", "monotone", "rank"]


def monotone(
    xs: Sequence[Any], values: Sequence[float], direction: Literal["falls", "grows"], tolerance: float
) -> tuple[bool, str]:
    """Whether ``values`` (one per x, in order) go the stated way over the whole range: no step from one x to the
    next goes back against it by more than ``tolerance`` of the values' span (largest − smallest; a flat step does
    not go back), and the last value is beyond the first; with the path and its largest step back, as numbers."""
    way = -1.0 if direction == "falls" else 1.0
    # How far each step goes against the stated direction (0 for a step the stated way).
    backs = [max(0.0, -way * (b - a)) for a, b in itertools.pairwise(values)]
    worst = max(range(len(backs)), key=lambda i: backs[i])
    ok = backs[worst] <= tolerance * (max(values) - min(values)) and way * (values[-1] - values[0]) > 0
    path = " → ".join(f"{_fmt(v)} at {x}" for x, v in zip(xs, values, strict=True))
    back = f"; largest step back {_fmt(backs[worst])} after {xs[worst]}" if backs[worst] else ""
    return ok, path + back


@dataclass(frozen=True)
class Trend(Claim):
    """Each variant's mean falls (``falls``) or grows (``grows``) with x over the range; one point per variant
    with two x values or more. How it is judged is ``mode``'s:

    - ``endpoints`` (deprecated for new checks; the default so that the checks written with it keep their
      verdicts): the mean at the last x is below (above) the mean at the first by more than ``tolerance`` of
      the first. Nothing between the two counts.
    - ``monotone``: no step from one x to the next goes back against the stated way (a flat step does not), or
      by no more than ``tolerance`` of the span of the means over the range (largest − smallest); and the mean
      at the last x is below (above) the mean at the first. The span, not the previous mean, so that a metric
      falling to 0 (retransmissions) may wobble there as much as anywhere else.
    - ``rank``: Spearman's rank correlation ρ against x has the stated sign and its one-sided p-value is below
      ``alpha``: of the means per x (``rank_over="means"``) or of every run (``"runs"``). The p-value is exact
      (all orderings of the ranks) up to 8 pairs and from the t approximation with n − 2 degrees of freedom
      beyond (:func:`mpsim.experiments.significance.spearman`): at 3 x values no ordering is significant at
      5 %, at 4 only a perfect one (p = 1/24)."""

    variants: tuple[str, ...] = ()
    direction: Literal["falls", "grows"] = "falls"
    tolerance: float = 0.0
    x_min: float = -INF
    x_max: float = INF
    mode: TrendMode = "endpoints"
    alpha: float = 0.05
    rank_over: Literal["means", "runs"] = "means"

    def statement(self) -> str:
        where = _range_text(self.x_min, self.x_max)
        of = f"{self.metric} of each of {', '.join(self.variants)}"
        if self.mode == "monotone":
            than, never = ("lower", "higher") if self.direction == "falls" else ("higher", "lower")
            back = f" by more than {self.tolerance:.0%} of the means' span" if self.tolerance else ""
            return (
                f"{of}: never {never} at an x than at the one before{back}, and {than} at the last than at the "
                f"first ({where})"
            )
        if self.mode == "rank":
            sign = "negative" if self.direction == "falls" else "positive"
            over = "its mean per x" if self.rank_over == "means" else "its runs"
            return f"{of}: Spearman's rank correlation of {over} with x {sign}, one-sided p < {self.alpha:g} ({where})"
        than = "lower" if self.direction == "falls" else "higher"
        return f"{of}: {than} at the last x than at the first ({where})"

    def named_variants(self) -> tuple[str, ...]:
        return self.variants

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        out = []
        for v in self.variants:
            xs = sample.xs(self.x_min, self.x_max, (v,))
            if len(xs) < 2:
                continue
            if self.mode == "monotone":
                out.append(self._monotone(v, xs, [sample.mean(x, v) for x in xs]))
            elif self.mode == "rank":
                out.append(self._rank(v, xs, sample))
            else:
                first, last = sample.mean(xs[0], v), sample.mean(xs[-1], v)
                step = self.tolerance * abs(first)
                ok = last < first - step if self.direction == "falls" else last > first + step
                out.append((ok, f"{v}: {_fmt(first)} at {xs[0]} → {_fmt(last)} at {xs[-1]}"))
        return out

    def _monotone(self, variant: str, xs: Sequence[Any], means: Sequence[float]) -> tuple[bool, str]:
        ok, path = monotone(xs, means, self.direction, self.tolerance)
        return ok, f"{variant}: {path}"

    def _rank(self, variant: str, xs: Sequence[Any], sample: Sample) -> tuple[bool, str]:
        if self.rank_over == "means":
            at, values = list(xs), [sample.mean(x, variant) for x in xs]
        else:
            at = [x for x in xs for _ in sample.values[x, variant]]
            values = [v for x in xs for v in sample.values[x, variant]]
        r = spearman(at, values, increasing=self.direction == "grows")
        signed = r.rho < 0 if self.direction == "falls" else r.rho > 0
        n = f"{r.n} x" if self.rank_over == "means" else f"{r.n} runs"
        how = "exact" if r.exact else "t approximation"
        return signed and r.p < self.alpha, f"{variant}: ρ {_fmt(r.rho)}, p {_fmt(r.p)} over {n} ({how})"


@dataclass(frozen=True)
class Bound(Claim):
    """Each variant's mean ``op`` ``value`` at every x in range (``tolerance`` absolute; with ``≈`` the mean
    lies within ``tolerance`` of ``value``)."""

    variants: tuple[str, ...] = ()
    op: Literal["<=", ">=", "≈"] = "<="
    value: float = 0.0
    tolerance: float = 0.0
    x_min: float = -INF
    x_max: float = INF

    def statement(self) -> str:
        tol = f" ± {self.tolerance:g}" if self.tolerance else ""
        return (
            f"{self.metric} of {', '.join(self.variants)} {self.op} {self.value:g}{tol} at "
            f"{_range_text(self.x_min, self.x_max)}"
        )

    def named_variants(self) -> tuple[str, ...]:
        return self.variants

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        out = []
        for v, x, m in _means(sample, self.variants, self.x_min, self.x_max):
            if self.op == "<=":
                ok = m <= self.value + self.tolerance
            elif self.op == ">=":
                ok = m >= self.value - self.tolerance
            else:
                ok = abs(m - self.value) <= self.tolerance
            out.append((ok, f"{v} {x}: {_fmt(m)}"))
        return out


def _means(sample: Sample, variants: Iterable[str], x_min: float, x_max: float) -> Iterable[tuple[str, Any, float]]:
    """(variant, x, mean) of each variant at each of its x values in [x_min, x_max]."""
    for v in variants:
        for x in sample.xs(x_min, x_max, (v,)):
            yield v, x, sample.mean(x, v)


@dataclass(frozen=True)
class Band(Claim):
    """Each variant's mean lies in [low, high] at every x in range: say, of a :class:`Derived` ratio of two of
    its metrics, "the coded subflow carries 2 to 4 times what TCP does"."""

    variants: tuple[str, ...] = ()
    low: float = -INF
    high: float = INF
    x_min: float = -INF
    x_max: float = INF

    def statement(self) -> str:
        return (
            f"{self.metric} of {', '.join(self.variants)} in [{self.low:g}, {self.high:g}] at "
            f"{_range_text(self.x_min, self.x_max)}"
        )

    def named_variants(self) -> tuple[str, ...]:
        return self.variants

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        return [
            (self.low <= m <= self.high, f"{v} {x}: {_fmt(m)}")
            for v, x, m in _means(sample, self.variants, self.x_min, self.x_max)
        ]


@dataclass(frozen=True)
class Ratio(Claim):
    """mean(left)/mean(right) lies in [low, high] at every x in range; an x where both means are 0 (nothing to
    cut, say) is no point of the claim."""

    left: str = ""
    right: str = ""
    low: float = 0.0
    high: float = INF
    x_min: float = -INF
    x_max: float = INF

    def statement(self) -> str:
        return (
            f"{self.metric}: {self.left}/{self.right} in [{self.low:g}, {self.high:g}] at "
            f"{_range_text(self.x_min, self.x_max)}"
        )

    def named_variants(self) -> tuple[str, ...]:
        return (self.left, self.right)

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        out = []
        for x in sample.xs(self.x_min, self.x_max, (self.left, self.right)):
            a, b = sample.mean(x, self.left), sample.mean(x, self.right)
            if a == b == 0:
                continue
            r = a / b if b else INF
            out.append((self.low <= r <= self.high, f"{x}: {_fmt(r)}"))
        return out


@dataclass(frozen=True)
class Difference(Claim):
    """mean(right) − mean(left), averaged over the x values in range, lies in [low, high]: one point."""

    left: str = ""
    right: str = ""
    low: float = -INF
    high: float = INF
    x_min: float = -INF
    x_max: float = INF

    def statement(self) -> str:
        return (
            f"{self.metric}: {self.right} − {self.left}, averaged over {_range_text(self.x_min, self.x_max)}, "
            f"in [{self.low:g}, {self.high:g}]"
        )

    def named_variants(self) -> tuple[str, ...]:
        return (self.left, self.right)

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        xs = sample.xs(self.x_min, self.x_max, (self.left, self.right))
        if not xs:
            return []
        gaps = [sample.mean(x, self.right) - sample.mean(x, self.left) for x in xs]
        d = statistics.fmean(gaps)
        return [(self.low <= d <= self.high, f"mean {_fmt(d)} over {len(xs)} x (max {_fmt(max(gaps))})")]


@dataclass(frozen=True)
class Equivalent(Claim):
    """The paper's "about the same" as a test of equivalence: at every x in range the means of ``left`` and
    ``right`` differ by less than the margin, shown by Welch's two one-sided tests (TOST) at level ``alpha``
    (:func:`mpsim.experiments.significance.tost`). The margin is ``margin`` of |mean(right)| when ``margin_kind``
    is ``relative`` (right is the reference: the paper's "as fast as TCP"), ``margin`` itself when ``absolute``;
    it comes from the paper's words or numbers (say how in ``derivation``).

    A point holds only when both one-sided tests reject, so runs spread too widely to tell the means apart fail
    it, where "not distinguishable" (:class:`Compare` ``≈`` with ``criterion="significant"``) would pass them. A
    point with fewer than 2 runs of either variant fails: it cannot show anything."""

    left: str = ""
    right: str = ""
    margin: float = 0.0
    margin_kind: Literal["relative", "absolute"] = "relative"
    alpha: float = 0.05
    x_min: float = -INF
    x_max: float = INF

    def statement(self) -> str:
        return (
            f"{self.metric}: {self.left} equivalent to {self.right} within "
            f"{_margin_text(self.margin, self.margin_kind, self.right)} at "
            f"{_range_text(self.x_min, self.x_max)} (TOST, Welch, α = {self.alpha:g})"
        )

    def named_variants(self) -> tuple[str, ...]:
        return (self.left, self.right)

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        return [
            _equivalence_point(x, sample.values[x, self.left], sample.values[x, self.right], self, paired=False)
            for x in sample.xs(self.x_min, self.x_max, (self.left, self.right))
        ]


@dataclass(frozen=True)
class BestCase(Claim):
    """The paper's "up to v": the largest gain of ``better`` over ``worse`` among the x values in range lies in
    [low, high]; one point, at the x where it is largest. The gain at an x is, of the two means there, ``worse −
    better`` (``gain="difference"``: "up to 1.5 s in the best case"), ``worse/better − 1`` (``"increase"``: a
    goodput gain read from the completion times of one file) or ``1 − better/worse`` (``"reduction"``: "reduces
    the completion time by up to 80 %"). A :class:`Ratio` asks every x to reach the band, and a
    :class:`Difference` judges the mean over x: neither is "up to"."""

    better: str = ""
    worse: str = ""
    gain: Literal["difference", "increase", "reduction"] = "difference"
    low: float = -INF
    high: float = INF
    x_min: float = -INF
    x_max: float = INF

    def _gain_text(self) -> str:
        if self.gain == "difference":
            return f"{self.worse} − {self.better}"
        if self.gain == "increase":
            return f"{self.worse}/{self.better} − 1"
        return f"1 − {self.better}/{self.worse}"

    def statement(self) -> str:
        return (
            f"{self.metric}: the largest {self._gain_text()} over {_range_text(self.x_min, self.x_max)} in "
            f"[{self.low:g}, {self.high:g}]"
        )

    def named_variants(self) -> tuple[str, ...]:
        return (self.better, self.worse)

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        gains = []
        for x in sample.xs(self.x_min, self.x_max, (self.better, self.worse)):
            better, worse = sample.mean(x, self.better), sample.mean(x, self.worse)
            if self.gain == "difference":
                gains.append((worse - better, x))
            elif better and self.gain == "increase":
                gains.append((worse / better - 1, x))
            elif worse and self.gain == "reduction":
                gains.append((1 - better / worse, x))
        if not gains:
            return []
        best, at = max(gains)
        return [(self.low <= best <= self.high, f"largest {best:.3g} at {at} (of {len(gains)} x)")]


def _one_sided(low: float, high: float) -> str:
    if low == -INF:
        return f"≤ {high:g}"
    if high == INF:
        return f"≥ {low:g}"
    return f"in [{low:g}, {high:g}]"


@dataclass(frozen=True)
class Gap(Claim):
    """``mean(left) − mean(right)`` lies in [low, high] at every x in range, in the metric's own unit: the
    papers' absolute numbers ("a 200 ms shorter completion time", "less than 50 ms"), which :class:`Ratio`
    would make relative."""

    left: str = ""
    right: str = ""
    low: float = -INF
    high: float = INF
    x_min: float = -INF
    x_max: float = INF

    def statement(self) -> str:
        where = _range_text(self.x_min, self.x_max)
        return f"{self.metric}: {self.left} − {self.right} {_one_sided(self.low, self.high)} at {where}"

    def named_variants(self) -> tuple[str, ...]:
        return (self.left, self.right)

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        out = []
        for x in sample.xs(self.x_min, self.x_max, (self.left, self.right)):
            gap = sample.mean(x, self.left) - sample.mean(x, self.right)
            out.append((self.low <= gap <= self.high, f"{x}: {_fmt(gap)}"))
        return out


@dataclass(frozen=True)
class GapTrend(Claim):
    """The gap of ``left`` below ``right`` at each x, ``mean(right) − mean(left)`` (with ``relative``, divided by
    ``mean(right)``: left's gain over right), grows or falls with x over the range, judged as
    :class:`Trend`'s ``monotone`` mode judges a mean: no step from one x to the next
    goes back against the stated way by more than ``tolerance`` of the gaps' span, and the gap at the last x is
    beyond the gap at the first. One point: LISA's "a greater reduction in retransmissions with LISA" (3
    subflows against 2), "the performance gain decreases" (with the file size)."""

    left: str = ""
    right: str = ""
    direction: Literal["falls", "grows"] = "grows"
    relative: bool = False
    tolerance: float = 0.0
    x_min: float = -INF
    x_max: float = INF

    def statement(self) -> str:
        gap = f"({self.right} − {self.left})" + (f"/{self.right}" if self.relative else "")
        than, never = ("lower", "higher") if self.direction == "falls" else ("higher", "lower")
        back = f" by more than {self.tolerance:.0%} of the gaps' span" if self.tolerance else ""
        return (
            f"{self.metric}: {gap} never {never} at an x than at the one before{back}, and {than} at the last x "
            f"than at the first ({_range_text(self.x_min, self.x_max)})"
        )

    def named_variants(self) -> tuple[str, ...]:
        return (self.left, self.right)

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        xs = sample.xs(self.x_min, self.x_max, (self.left, self.right))
        if len(xs) < 2:
            return []
        gaps = []
        for x in xs:
            a, b = sample.mean(x, self.left), sample.mean(x, self.right)
            gaps.append(((b - a) / b if b else math.nan) if self.relative else b - a)
        ok, path = monotone(xs, gaps, self.direction, self.tolerance)
        return [(ok, f"gap {path}")]


@dataclass(frozen=True)
class Share(Claim):
    """Another claim (``of``) judged by the share of its points that hold: it holds when at least ``at_least``
    of them do, and at least one; with ``not_all``, also when not every one does (a paper's "the benefit only
    plays out for a distinct set of values"). Otherwise it fails when no point holds and holds partly when some
    do. "Almost all" is ``at_least=0.8`` (the band conventions). Build one with :func:`share`."""

    of: Claim | None = None
    at_least: float = 1.0
    not_all: bool = False

    def inner(self) -> Claim:
        if self.of is None:
            raise ValueError(f"Share '{self.text}': no claim to judge (of=None)")
        return self.of

    def statement(self) -> str:
        need = "at least one point" if self.at_least == 0 else f"at least {self.at_least:.0%} of the points"
        but = " but not all" if self.not_all else ""
        return f"{need}{but} of: {self.inner().statement()}"

    def named_variants(self) -> tuple[str, ...]:
        return self.inner().named_variants()

    def columns(self) -> tuple[str, ...]:
        return self.inner().columns()

    def check(self, rows: Rows) -> Outcome:
        judged = self.inner().check(rows)
        held, total = judged.passed, judged.total
        needed = max(1, math.ceil(self.at_least * total - 1e-9))
        ok = held >= needed and not (self.not_all and held == total)
        verdict: Verdict = "untested" if total == 0 else "holds" if ok else "fails" if held == 0 else "partly"
        summary = f"{held} of {total} points hold, {needed} needed" + (", not all" if self.not_all else "")
        return Outcome(verdict, held, total, (*judged.details, summary))

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        return self.inner().points(sample)


def share(of: Claim, at_least: float, *, not_all: bool = False, **cited: Any) -> Share:
    """``of`` judged by the share of its points that hold (:class:`Share`), with the citation fields
    (``quote``, ``where``, ``headline``, ``derivation``, ``exploration``) given."""
    return Share(of.text, of.metric, of=of, at_least=at_least, not_all=not_all, **cited)


@dataclass(frozen=True)
class NotCheckable(Claim):
    """A figure or claim of the paper that no check can judge, and why (a caption that contradicts its text, a
    figure whose data the paper does not give): verdict ``uncheckable``, never a pass or a fail."""

    reason: str = ""

    def statement(self) -> str:
        return f"not checkable: {self.reason}"

    def named_variants(self) -> tuple[str, ...]:
        return ()

    def columns(self) -> tuple[str, ...]:
        return ()

    def check(self, rows: Rows) -> Outcome:
        return Outcome("uncheckable", 0, 0, (self.reason,))

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        return []


def check_all(claims: Iterable[Claim], rows: Rows) -> list[tuple[Claim, Outcome]]:
    """Every claim judged on ``rows``."""
    return [(c, c.check(rows)) for c in claims]


C = TypeVar("C", bound=Claim)


def single(checks: Iterable[Claim], kind: type[C], metric: Metric, **fields: Any) -> C:
    """The one claim among ``checks`` that is a ``kind`` over ``metric`` with the given field values (say
    ``left="gsam"``): a claim stated once, found where it is needed."""
    found = [
        c
        for c in checks
        if isinstance(c, kind) and c.metric == metric and all(getattr(c, k) == v for k, v in fields.items())
    ]
    if len(found) != 1:
        raise LookupError(f"{len(found)} claims are a {kind.__name__} over {metric} with {fields}, not one")
    return found[0]
