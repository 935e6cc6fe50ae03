"""Comparing mpsim's rows with ns-3's, the pass criterion, and the table written into docs/validation.md."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FCT_TOLERANCE = 0.05
"""Completion time within ±5 % of ns-3's."""
RETX_TOLERANCE = 0.10
"""Retransmissions within ±10 % of ns-3's ..."""
RETX_SMALL = 10
RETX_SMALL_SLACK = 1
"""... or, when ns-3 retransmits fewer than 10 segments, within ±1 segment."""
_ROUNDING = 1e-9
"""Slack for the floating-point rounding of a relative difference (1.05 / 1.0 − 1 > 0.05 in binary)."""

BEGIN = "<!-- ns3:begin -->"
END = "<!-- ns3:end -->"

Row = Mapping[str, Any]


def relative(mine: float, reference: float) -> float | None:
    """(mine − reference) / reference; ``None`` when the reference is 0."""
    return None if reference == 0 else (mine - reference) / reference


def fct_ok(mpsim_fct: float | None, ns3_fct: float | None) -> bool:
    if mpsim_fct is None or ns3_fct is None:
        return False
    rel = relative(mpsim_fct, ns3_fct)
    return rel is not None and abs(rel) <= FCT_TOLERANCE + _ROUNDING


def retx_ok(mpsim_retx: int, ns3_retx: int) -> bool:
    if ns3_retx < RETX_SMALL:
        return abs(mpsim_retx - ns3_retx) <= RETX_SMALL_SLACK
    return abs(mpsim_retx - ns3_retx) <= RETX_TOLERANCE * ns3_retx


@dataclass(frozen=True)
class Comparison:
    name: str
    ns3: Row
    mpsim: Row

    @property
    def fct_diff(self) -> float | None:
        a, b = self.mpsim["fct_s"], self.ns3["fct_s"]
        return None if a is None or b is None else relative(a, b)

    @property
    def passed(self) -> bool:
        return fct_ok(self.mpsim["fct_s"], self.ns3["fct_s"]) and retx_ok(
            self.mpsim["retransmissions"], self.ns3["retransmissions"]
        )


def compare(ns3_rows: Iterable[Row], mpsim_rows: Iterable[Row]) -> list[Comparison]:
    """Pairs rows by scenario name, in mpsim's order; a scenario missing from the reference is an error."""
    reference = {r["name"]: r for r in ns3_rows}
    out = []
    for row in mpsim_rows:
        if row["name"] not in reference:
            raise KeyError(
                f"scenario '{row['name']}' has no ns-3 reference row; re-run ns-3 (make validate-ns3 NS3_RERUN=1)"
            )
        out.append(Comparison(row["name"], reference[row["name"]], row))
    return out


def read_reference(path: Path) -> list[dict[str, Any]]:
    """The ns-3 rows of a JSON-lines reference file (its first line is metadata)."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if "meta" not in r]


def _fmt_s(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


def _fmt_pct(v: float | None) -> str:
    return "—" if v is None else f"{v * 100:+.1f} %"


def _pkts(cwnd_bytes: int, mss: int) -> str:
    return f"{cwnd_bytes / mss:.1f}"


def _background(row: Row, mss: int) -> str:
    """The background TCP flow's cwnd (and ssthresh, once set) in packets when the measured flow starts."""
    cwnd = row.get("background_cwnd_bytes_at_start")
    if cwnd is None:
        return "—"
    ssthresh = row.get("background_ssthresh_bytes_at_start")
    return _pkts(cwnd, mss) + ("" if ssthresh is None else f" / {_pkts(ssthresh, mss)}")


def table(comparisons: list[Comparison], mss: int = 1400) -> str:
    """The Markdown table: both tools' values per scenario, the differences, the pass mark."""
    head = (
        "| scenario | FCT ns-3 (s) | FCT mpsim (s) | ΔFCT | retx ns-3 | retx mpsim | RTO ns-3 | RTO mpsim "
        "| FR ns-3 | FR mpsim | cwnd ns-3 (pkt) | cwnd mpsim (pkt) | bg ns-3 | bg mpsim | pass |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:-:|\n"
    )
    lines = []
    for c in comparisons:
        n, m = c.ns3, c.mpsim
        lines.append(
            f"| {c.name} | {_fmt_s(n['fct_s'])} | {_fmt_s(m['fct_s'])} | {_fmt_pct(c.fct_diff)} "
            f"| {n['retransmissions']} | {m['retransmissions']} | {n['rto_count']} | {m['rto_count']} "
            f"| {n['fast_recoveries']} | {m['fast_recoveries']} "
            f"| {_pkts(n['cwnd_bytes_at_end'], mss)} | {_pkts(m['cwnd_bytes_at_end'], mss)} "
            f"| {_background(n, mss)} | {_background(m, mss)} | {'✓' if c.passed else '✗'} |"
        )
    return head + "\n".join(lines) + "\n"


def summary(comparisons: list[Comparison]) -> dict[str, tuple[int, int]]:
    """Passed and total rows, over the grid and per group: topology and variant (``db-cubic``), and for the
    dumbbell the phase (``db-early``), read from the scenario names of :mod:`validation.scenarios`."""
    groups: dict[str, tuple[int, int]] = {}
    for c in comparisons:
        parts = c.name.split("-")
        keys = ["all"]
        if len(parts) >= 2:
            keys.append(f"{parts[0]}-{parts[1]}")
        if parts[0] == "db" and len(parts) >= 3:
            keys.append(f"db-{parts[2]}")
        for key in keys:
            passed, total = groups.get(key, (0, 0))
            groups[key] = (passed + c.passed, total + 1)
    return groups


def summary_table(comparisons: list[Comparison]) -> str:
    lines = ["| rows | passed | total | pass rate |", "|---|---:|---:|---:|"]
    for key, (passed, total) in summary(comparisons).items():
        lines.append(f"| {key} | {passed} | {total} | {100 * passed / total:.0f} % |")
    return "\n".join(lines) + "\n"


def replace_block(document: str, block: str) -> str:
    """``document`` with the text between the ns-3 markers replaced by ``block``; markers are required."""
    start, end = document.find(BEGIN), document.find(END)
    if start < 0 or end < start:
        raise ValueError(f"docs/validation.md: markers '{BEGIN}' and '{END}' not found in that order")
    return document[: start + len(BEGIN)] + "\n" + block + document[end:]
