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
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

Verdict = Literal["holds", "partly", "fails", "untested"]
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


class Sample:
    """The runs of a table by (x, variant), restricted to finite values of one metric."""

    def __init__(self, rows: Rows, metric: str) -> None:
        self.values: dict[tuple[Any, str], list[float]] = {}
        for r in rows:
            v = r.get(metric)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                continue
            self.values.setdefault((r["x"], r["variant"]), []).append(float(v))

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
    metric: str
    quote: str = field(default="", kw_only=True)
    """The paper's own words, verbatim; empty when the check does not cite them."""
    where: str = field(default="", kw_only=True)
    """Where the paper says it: "Fig. 4", "Table II", "§IV-B", "Abstract"."""
    headline: bool = field(default=False, kw_only=True)
    """Whether the claim is one of the paper's main results (its abstract's or conclusion's)."""
    derivation: str = field(default="", kw_only=True)
    """How the check's band or margin was derived from the paper's numbers or words."""

    def statement(self) -> str:
        raise NotImplementedError

    def named_variants(self) -> tuple[str, ...]:
        """The variants the statement is about."""
        raise NotImplementedError

    def check(self, rows: Rows) -> Outcome:
        return _verdict(self.points(Sample(rows, self.metric)))

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        raise NotImplementedError


@dataclass(frozen=True)
class Compare(Claim):
    """``left op factor·right`` of the means at every x in [x_min, x_max]. ``op`` is ``<``, ``>`` or ``≈``.
    For ``<`` and ``>`` the tolerance is slack (``<`` holds while left < right·(1 + tolerance)); for ``≈``
    it is the largest relative gap."""

    left: str = ""
    op: Literal["<", ">", "≈"] = "<"
    right: str = ""
    factor: float = 1.0
    tolerance: float = 0.0
    x_min: float = -INF
    x_max: float = INF
    criterion: Literal["means", "significant"] = "means"

    def statement(self) -> str:
        right = self.right if self.factor == 1.0 else f"{self.factor:g}·{self.right}"
        tol = f" (tolerance {self.tolerance:.0%})" if self.tolerance else ""
        sig = ""
        if self.criterion == "significant":
            sig = ", or within 2 standard errors" if self.op == "≈" else ", difference beyond 2 standard errors"
        return f"{self.metric}: {self.left} {self.op} {right} at {_range_text(self.x_min, self.x_max)}{tol}{sig}"

    def named_variants(self) -> tuple[str, ...]:
        return (self.left, self.right)

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        out = []
        for x in sample.xs(self.x_min, self.x_max, (self.left, self.right)):
            a, b = sample.mean(x, self.left), self.factor * sample.mean(x, self.right)
            se = math.hypot(sample.stderr(x, self.left), self.factor * sample.stderr(x, self.right))
            slack = self.tolerance * abs(b)
            if self.op == "<":
                ok = a < b + slack and (self.criterion == "means" or b - a > 2 * se)
            elif self.op == ">":
                ok = a > b - slack and (self.criterion == "means" or a - b > 2 * se)
            else:
                ok = abs(a - b) <= slack or (self.criterion == "significant" and abs(a - b) <= 2 * se)
            out.append((ok, f"{x}: {_fmt(a)} vs {_fmt(b)}"))
        return out


@dataclass(frozen=True)
class Order(Claim):
    """At every x in range the means rank as ``ranking`` (best first; lower is better unless
    ``higher_is_better``), and the last of the ranking is better than each of ``rest``."""

    ranking: tuple[str, ...] = ()
    rest: tuple[str, ...] = ()
    higher_is_better: bool = False
    x_min: float = -INF
    x_max: float = INF

    def statement(self) -> str:
        sign = " > " if self.higher_is_better else " < "
        rest = f"{sign}{{{', '.join(self.rest)}}}" if self.rest else ""
        return f"{self.metric}: {sign.join(self.ranking)}{rest} at {_range_text(self.x_min, self.x_max)}"

    def named_variants(self) -> tuple[str, ...]:
        return (*self.ranking, *self.rest)

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        out = []
        variants = (*self.ranking, *self.rest)
        for x in sample.xs(self.x_min, self.x_max, variants):
            key = {v: sample.mean(x, v) * (-1 if self.higher_is_better else 1) for v in variants}
            chain = all(key[a] < key[b] for a, b in zip(self.ranking, self.ranking[1:], strict=False))
            last = key[self.ranking[-1]]
            ok = chain and all(last < key[v] for v in self.rest)
            text = ", ".join(f"{v} {_fmt(sample.mean(x, v))}" for v in variants)
            out.append((ok, f"{x}: {text}"))
        return out


@dataclass(frozen=True)
class Trend(Claim):
    """Each variant's mean at the last x of the range is below (``falls``) or above (``grows``) its mean at
    the first, by more than ``tolerance`` of the first."""

    variants: tuple[str, ...] = ()
    direction: Literal["falls", "grows"] = "falls"
    tolerance: float = 0.0
    x_min: float = -INF
    x_max: float = INF

    def statement(self) -> str:
        than = "lower" if self.direction == "falls" else "higher"
        return (
            f"{self.metric} of each of {', '.join(self.variants)}: {than} at the last x than at the first "
            f"({_range_text(self.x_min, self.x_max)})"
        )

    def named_variants(self) -> tuple[str, ...]:
        return self.variants

    def points(self, sample: Sample) -> list[tuple[bool, str]]:
        out = []
        for v in self.variants:
            xs = sample.xs(self.x_min, self.x_max, (v,))
            if len(xs) < 2:
                continue
            first, last = sample.mean(xs[0], v), sample.mean(xs[-1], v)
            step = self.tolerance * abs(first)
            ok = last < first - step if self.direction == "falls" else last > first + step
            out.append((ok, f"{v}: {_fmt(first)} at {xs[0]} → {_fmt(last)} at {xs[-1]}"))
        return out


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
        for v in self.variants:
            for x in sample.xs(self.x_min, self.x_max, (v,)):
                m = sample.mean(x, v)
                if self.op == "<=":
                    ok = m <= self.value + self.tolerance
                elif self.op == ">=":
                    ok = m >= self.value - self.tolerance
                else:
                    ok = abs(m - self.value) <= self.tolerance
                out.append((ok, f"{v} {x}: {_fmt(m)}"))
        return out


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


def check_all(claims: Iterable[Claim], rows: Rows) -> list[tuple[Claim, Outcome]]:
    """Every claim judged on ``rows``."""
    return [(c, c.check(rows)) for c in claims]


C = TypeVar("C", bound=Claim)


def single(checks: Iterable[Claim], kind: type[C], metric: str, **fields: Any) -> C:
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
