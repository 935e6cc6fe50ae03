"""The HTML report of a reproduction: ``OUT/index.html``, one page for everything ``mpsim reproduce`` ran.

For each experiment: its figures on each stack it ran on (the PNG files beside the page, by relative path), its
claims with their verdicts and numbers on those stacks side by side (:func:`mpsim.experiments.scorecard.entry`;
the paper's verdict marked where the claim holds only there), its goodput (the mean of every Mbit/s column at each
variant and x: the rates of long-lived flows, or the goodput of completed transfers), its configuration (x axis
and values, variants, runs per point, mode, stack, the core configuration of its first run on each stack) and its
provenance (seeds, result rows, wall time, per stack); for the whole page the mpsim version, the engine's
identity (:func:`mpsim.fingerprint.engine_id`), the command and the date, the verdict counts per experiment and
stack and per paper and stack, and the claims that hold only on the paper's stack.

The page is self-contained: no network, no fonts, scripts or styles from elsewhere; its one inline script
marks each figure with its decoded width (``data-natural-width``) once the page has loaded, and shows a
note beside a figure that did not load. Every text is escaped. It prints as it reads.
"""

from __future__ import annotations

import html
import json
import platform
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from mpsim.experiments.base import Experiment
from mpsim.experiments.scorecard import (
    PAPER_ONLY,
    STACKS,
    VERDICTS,
    check_words,
    claim_words,
    counts_rows,
    entry,
    holds_only_on_paper,
    paper_only_words,
    stack_words,
    tally,
    verdicts,
)
from mpsim.experiments.stacks import JUDGED_ON

__all__ = ["Ran", "Reproduction", "write_report"]


@dataclass(frozen=True)
class Reproduction:
    """What reproducing one experiment on one stack (``experiment.runs_on``) wrote: its result table and its files
    under ``directory``."""

    experiment: Experiment
    directory: Path
    table: pa.Table
    files: tuple[Path, ...]


@dataclass(frozen=True)
class Ran:
    """One experiment as it was reproduced: its result and what it took."""

    result: Reproduction
    wall_s: float
    """Wall time of the experiment, seconds (its runs, table and figures)."""
    quick: bool
    runs: int | None
    """Runs per point asked for (``--runs``); None: the experiment's own."""


_STYLE = """
body { font-family: sans-serif; max-width: 70rem; margin: 1.5rem auto; padding: 0 1rem; color: #111;
       line-height: 1.4; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; border-top: 1px solid #999; padding-top: 1rem; }
h3 { font-size: 1.05rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #bbb; padding: 0.2rem 0.5rem; vertical-align: top; text-align: left; }
th { background: #eee; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.holds { background: #d9f2d9; } .partly { background: #fff2cc; } .fails { background: #f8d0d0; }
.untested, .uncheckable { background: #eee; color: #555; }
td.paper-only { outline: 3px solid #a00; outline-offset: -3px; }
figure { margin: 0.5rem 0 1rem; } figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.9rem; color: #333; }
.missing { color: #a00; font-weight: bold; }
code, pre { font-family: monospace; font-size: 0.85rem; }
pre { background: #f6f6f6; padding: 0.5rem; overflow-x: auto; white-space: pre-wrap; }
@media print {
  body { max-width: none; margin: 0; }
  section.experiment { break-before: page; }
  details { display: block; } details > summary { display: none; }
  figure, tr { break-inside: avoid; }
}
"""

# Marks each figure with its decoded width once everything has loaded (0: it did not load) and says so.
_SCRIPT = """
window.addEventListener("load", function () {
  document.querySelectorAll("img").forEach(function (img) {
    var width = img.complete ? img.naturalWidth : 0;
    img.setAttribute("data-natural-width", String(width));
    if (width === 0) {
      var note = document.createElement("p");
      note.className = "missing";
      note.textContent = "figure not found: " + img.getAttribute("src");
      img.insertAdjacentElement("afterend", note);
    }
  });
  document.body.setAttribute("data-checked", "yes");
});
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _anchor(name: str) -> str:
    return "exp-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in name)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], cls: str = "") -> str:
    """An HTML table; the cells of ``rows`` are HTML already (escaped by the caller)."""
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(row) + "</tr>\n" for row in rows)
    attr = f' class="{cls}"' if cls else ""
    return f"<table{attr}>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>\n"


def _td(value: object, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<td{attr}>{_e(value)}</td>"


def _fields(pairs: Sequence[tuple[str, object]]) -> str:
    """A two-column table of names and values."""
    rows = [[f"<th>{_e(k)}</th>", _td(v)] for k, v in pairs]
    return "<table>\n<tbody>\n" + "".join("<tr>" + "".join(r) + "</tr>\n" for r in rows) + "</tbody>\n</table>\n"


def _values(values: Sequence[Any]) -> str:
    return ", ".join(str(v) for v in values)


def _claims(judged: Mapping[str, Any], stacks: Sequence[str]) -> str:
    """The claims table of one experiment: each claim's verdicts on ``stacks`` side by side, the paper's marked
    where the claim holds there alone."""
    out = []
    for c in judged["claims"]:
        row = [_td(claim_words(c)), _td(check_words(c))]
        for stack in stacks:
            verdict = verdicts(c).get(stack)
            only = stack == "paper" and holds_only_on_paper(c)
            cls = (verdict["verdict"] if verdict else "untested") + (" paper-only" if only else "")
            mark = f"<strong>{_e(PAPER_ONLY)}</strong>: " if only else ""
            row.append(f'<td class="{cls}">{mark}{_e(stack_words(c, stack))}</td>')
        out.append(row)
    for text in judged["unchecked"]:
        out.append([_td(text), _td("not stated as a check"), *(_td("—") for _ in stacks)])
    if not out:
        return "<p>The paper states no claim for this figure.</p>\n"
    return _table(["paper's claim", "checked as", *stacks], out, "claims")


def _counts(judged: Mapping[str, Any], stack: str) -> dict[str, int]:
    """How many of an experiment's checks have each verdict on ``stack``."""
    counts = dict.fromkeys(VERDICTS, 0)
    for c in judged["claims"]:
        if stack in verdicts(c):
            counts[verdicts(c)[stack]["verdict"]] += 1
    return counts


def _figures(ran: Ran, out: Path) -> str:
    """Every PNG figure of the experiment by its path relative to the page, with a link to its SVG."""
    parts = []
    for path in ran.result.files:
        if path.suffix != ".png":
            continue
        rel = Path(path).resolve().relative_to(out.resolve()).as_posix()
        svg = Path(path).with_suffix(".svg")
        link = ""
        if svg in ran.result.files:
            link = f' (<a href="{_e(svg.resolve().relative_to(out.resolve()).as_posix())}">SVG</a>)'
        parts.append(
            f'<figure><img src="{_e(rel)}" alt="{_e(ran.result.experiment.name)}: {_e(path.stem)}">'
            f"<figcaption>{_e(rel)}{link}</figcaption></figure>\n"
        )
    return "".join(parts) or "<p>No figure.</p>\n"


def _configuration(rans: Sequence[Ran]) -> str:
    """The configuration of one experiment, with the core configuration of its first run on each stack."""
    ran = rans[0]
    exp = ran.result.experiment
    xs = exp.xs(ran.quick)
    runs = exp.run_count(ran.quick, ran.runs)
    pairs: list[tuple[str, object]] = [
        ("mode", "quick" if ran.quick else "full"),
        ("x axis", f"{exp.x_name}: {exp.x_label}"),
        ("x values", _values(xs)),
        ("variants", _values(exp.variants)),
        ("runs per point", runs if ran.runs is None else f"{runs} (--runs; the paper's: {exp.runs})"),
        ("error bars", "95 % confidence interval" if exp.error_bars == "ci95" else "±1 standard deviation"),
        ("measures", exp.measures),
        ("stack", exp.stack or "each variant's own (docs/reproduction.md)"),
        ("run on", "; ".join(f"{_stack(r)}: {JUDGED_ON[_stack(r)]}" for r in rans)),
        ("panels", _values([p.metric for p in exp.panels])),
    ]
    if exp.trace_x:
        pairs.append(("time series", f"{exp.trace_kind} at x = {_values(exp.trace_x)}, run 1"))
    text = _fields(pairs)
    if exp.notes:
        text += "<ul>\n" + "".join(f"<li>{_e(n)}</li>\n" for n in exp.notes) + "</ul>\n"
    x, variant = xs[0], exp.variants[0]
    for r in rans:
        config = json.dumps(r.result.experiment.build(x, variant, 1), indent=1, sort_keys=True)
        text += (
            f"<details><summary>The core configuration of run 1 at x = {_e(x)}, variant {_e(variant)}, on "
            f"{_e(_stack(r))} (base units: ns, bit/s, bytes, packets)</summary>\n<pre>{_e(config)}</pre></details>\n"
        )
    return text


GOODPUT_WORDS = {
    "rates": "bytes delivered in order to the application over the measurement window of the long-lived flows "
    "(the throughput table's delivered_bps, bin by bin)",
    "completion": "bytes delivered in order over the completion time of the measured flows that completed (the "
    "others are counted in incomplete)",
}
"""What the experiments' Mbit/s columns measure, by what their figures measure (:attr:`Experiment.measures`)."""


def _goodput(ran: Ran) -> str:
    """The mean of every Mbit/s column of the result table (goodput, and the rates of long-lived flows) at each
    variant and x, with the number of runs behind it."""
    table = ran.result.table
    exp = ran.result.experiment
    columns = [
        c for c in table.column_names if c.endswith("_mbps") and pa.types.is_floating(table.schema.field(c).type)
    ]
    if not columns or table.num_rows == 0:
        return "<p>No goodput column.</p>\n"
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in table.to_pylist():
        groups.setdefault((str(r["variant"]), str(r["x"])), []).append(r)

    def mean(rows: list[dict[str, Any]], column: str) -> str:
        values = [v for v in (r[column] for r in rows) if isinstance(v, int | float) and v == v]
        return f"{sum(values) / len(values):.3f}" if values else "—"

    rows = [
        [_td(variant), _td(x), _td(len(found), "num"), *(_td(mean(found, c), "num") for c in columns)]
        for (variant, x), found in groups.items()
    ]
    words = GOODPUT_WORDS.get(exp.measures, GOODPUT_WORDS["completion"])
    return f"<p>Mbit/s, mean over the runs: {_e(words)}.</p>\n" + _table(
        ["variant", exp.x_name, "runs", *columns], rows, "goodput"
    )


def _provenance(ran: Ran, out: Path) -> str:
    table = ran.result.table
    seeds = sorted(set(table.column("seed").to_pylist())) if "seed" in table.column_names else []
    files = [p for p in ran.result.files if p.suffix in (".csv", ".parquet")]
    links = ", ".join(
        f'<a href="{_e(p.resolve().relative_to(out.resolve()).as_posix())}">{_e(p.name)}</a>' for p in files
    )
    return (
        _fields(
            [
                ("result rows (runs)", table.num_rows),
                ("seeds", _values(seeds)),
                ("wall time", f"{ran.wall_s:.1f} s"),
            ]
        )
        + f"<p>Results: {links}</p>\n"
    )


def _stack(ran: Ran) -> str:
    return ran.result.experiment.runs_on


def _per_stack(rans: Sequence[Ran], part: Callable[[Ran], str]) -> str:
    """``part`` of each stack's run, under a heading naming the stack when there are several."""
    if len(rans) == 1:
        return part(rans[0])
    return "".join(f"<h4>On {_e(_stack(r))}: {_e(JUDGED_ON[_stack(r)])}</h4>\n{part(r)}" for r in rans)


def _section(rans: Sequence[Ran], out: Path) -> tuple[str, dict[str, Any]]:
    """The section of one experiment over the stacks it ran on, and its scorecard entry."""
    exp = rans[0].result.experiment
    judged = entry(exp, {_stack(r): r.result.table.to_pylist() for r in rans})
    body = (
        f'<section class="experiment" id="{_anchor(exp.name)}">\n'
        f"<h2>{_e(exp.name)}</h2>\n"
        f"<p><strong>{_e(exp.paper)}</strong>, {_e(exp.figure)}. {_e(exp.description)}</p>\n"
        f"<h3>Figures</h3>\n{_per_stack(rans, lambda r: _figures(r, out))}"
        f"<h3>Claims</h3>\n{_claims(judged, [_stack(r) for r in rans])}"
        f"<h3>Goodput</h3>\n{_per_stack(rans, _goodput)}"
        f"<h3>Configuration</h3>\n{_configuration(rans)}"
        f"<h3>Provenance</h3>\n{_per_stack(rans, lambda r: _provenance(r, out))}"
        "</section>\n"
    )
    return body, judged


def _code(text: str) -> str:
    """``text`` escaped, its `backquoted` parts as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _e(text))


def _tallies(card: Mapping[str, Any]) -> str:
    """The verdict counts per paper and stack (the explorations' apart) and the claims that hold only on the
    paper's stack."""

    def counts(explorations: bool) -> str:
        header, rows = counts_rows(card, tally(card, explorations))
        cells = [[_td(row[0]), _td(row[1]), *(_td(n, "num") for n in row[2:])] for row in rows]
        return _table(header, cells, "tally")

    text = counts(False)
    if any(sum(c.values()) for by_stack in tally(card, True).values() for c in by_stack.values()):
        text += "<p>Explorations (checks of no figure or claim of the paper), not counted above:</p>\n" + counts(True)
    title, lines = paper_only_words(card)
    text += f"<p>{_code(title)}</p>\n"
    if lines:
        text += '<ul class="paper-only">\n' + "".join(f"<li>{_code(line)}</li>\n" for line in lines) + "</ul>\n"
    return text


def write_report(out: Path, runs: Sequence[Ran], command: str) -> Path:
    """Writes ``out/index.html`` for the experiments of ``runs`` (their files under ``out``; an experiment run on
    several stacks is one section, its verdicts side by side) and returns it."""
    import mpsim
    from mpsim.fingerprint import engine_id

    out = Path(out)
    groups: dict[str, list[Ran]] = {}
    for ran in runs:
        groups.setdefault(ran.result.experiment.name, []).append(ran)
    sections, summary = [], []
    card: dict[str, Any] = {"stacks": [s for s in STACKS if any(_stack(r) == s for r in runs)], "experiments": {}}
    for name, rans in groups.items():
        rans.sort(key=lambda r: STACKS.index(_stack(r)))
        text, judged = _section(rans, out)
        sections.append(text)
        card["experiments"][name] = judged
        exp = rans[0].result.experiment
        for ran in rans:
            counts = _counts(judged, _stack(ran))
            summary.append(
                [
                    f'<td><a href="#{_anchor(name)}">{_e(name)}</a></td>',
                    _td(f"{exp.paper.split(':')[0]}, {exp.figure}"),
                    _td(_stack(ran)),
                    *(_td(counts[v], f"num {v}" if counts[v] else "num") for v in VERDICTS),
                    _td(f"{ran.wall_s:.1f}", "num"),
                ]
            )
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    provenance = _fields(
        [
            ("mpsim", mpsim.__version__),
            ("engine", engine_id()),
            ("command", command),
            ("date", now),
            ("total wall time", f"{sum(r.wall_s for r in runs):.1f} s"),
            ("Python", f"{platform.python_implementation()} {platform.python_version()} on {sys.platform}"),
        ]
    )
    stacks = "; ".join(f"<strong>{_e(s)}</strong>: {_e(JUDGED_ON[s])}" for s in card["stacks"])
    overview = _table(["experiment", "paper, figure", "stack", *VERDICTS, "wall time (s)"], summary, "summary")
    page = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>mpsim reproduction: {_e(', '.join(groups))}</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n"
        "<h1>mpsim reproduction</h1>\n"
        f"{provenance}"
        "<p>Each claim of a paper is judged on the result table of each stack run: <em>holds</em> at every point, "
        "<em>partly</em> at some, <em>fails</em> at none, <em>untested</em> when no point is in range, "
        "<em>uncheckable</em> when no check can judge it (docs/reproduction.md, Claims as checks). "
        f"Stacks: {stacks}. <strong>{_e(PAPER_ONLY)}</strong> marks a claim that holds on the paper's stack "
        "and on no other.</p>\n"
        f"{overview}"
        f"{_tallies(card)}"
        f"{''.join(sections)}"
        f"<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )
    path = out / "index.html"
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
