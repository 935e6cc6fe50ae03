"""Kernel against mpsim, cell by cell: the numbers, the pass mark and the table in docs/validation.md.

A cell passes when mpsim's completion time is within ±10 % of the kernel's mean. The completion
time compared is the rig's ``fct_ack_s`` (from ``connect()``, i.e. the first SYN, until the sender
sees every byte acknowledged), which is what mpsim's ``fct_s`` measures (first SYN to the ACK of the
last byte).
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from validation.linux.cells import Cell
from validation.linux.rig import KernelCell
from validation.linux.sim import SimRun

FCT_TOLERANCE = 0.10
"""Pass mark: mpsim's completion time within ±10 % of the kernel's mean."""
BEGIN = "<!-- linux:begin -->"
END = "<!-- linux:end -->"


@dataclass(frozen=True)
class Stat:
    """Mean, sample standard deviation and count of a metric over runs."""

    mean: float
    std: float
    n: int

    @staticmethod
    def of(values: Sequence[float]) -> Stat:
        if not values:
            return Stat(math.nan, math.nan, 0)
        std = statistics.stdev(values) if len(values) > 1 else 0.0
        return Stat(statistics.fmean(values), std, len(values))


@dataclass(frozen=True)
class Row:
    """One cell's comparison."""

    cell: Cell
    kernel_fct: Stat
    kernel_retrans: Stat
    kernel_timeouts: Stat
    kernel_loss_probes: Stat
    kernel_drops: Stat
    sim_fct: Stat
    sim_retrans: Stat
    sim_timeouts: Stat
    sim_drops: Stat
    sim_fct_framed: Stat | None = None
    """mpsim's completion time at the framing-equivalent bottleneck rate (see sim.framing_rate_bps)."""

    @property
    def fct_diff(self) -> float:
        """mpsim relative to the kernel: (mpsim − kernel) / kernel."""
        return relative_difference(self.sim_fct.mean, self.kernel_fct.mean)

    @property
    def passed(self) -> bool:
        return within(self.sim_fct.mean, self.kernel_fct.mean, FCT_TOLERANCE)


def relative_difference(value: float, reference: float) -> float:
    if reference == 0:
        raise ValueError(f"reference value must not be 0 (value {value})")
    return (value - reference) / reference


def within(value: float, reference: float, tolerance: float) -> bool:
    """``value`` within ``±tolerance`` (relative) of ``reference``."""
    return abs(relative_difference(value, reference)) <= tolerance


def row(kernel: KernelCell, sim: Sequence[SimRun], framed: Sequence[SimRun] = ()) -> Row:
    return Row(
        cell=kernel.cell,
        kernel_fct=Stat.of(kernel.values("fct_ack_s")),
        kernel_retrans=Stat.of(kernel.values("retrans_segs")),
        kernel_timeouts=Stat.of(kernel.values("timeouts")),
        kernel_loss_probes=Stat.of(kernel.values("loss_probes")),
        kernel_drops=Stat.of(kernel.values("bneck_drops")),
        sim_fct=Stat.of([r.fct_s for r in sim]),
        sim_retrans=Stat.of([r.retrans_segs for r in sim]),
        sim_timeouts=Stat.of([r.timeouts for r in sim]),
        sim_drops=Stat.of([r.drops for r in sim]),
        sim_fct_framed=Stat.of([r.fct_s for r in framed]) if framed else None,
    )


def pass_rate(rows: Sequence[Row]) -> tuple[int, int]:
    return sum(r.passed for r in rows), len(rows)


# ---------------------------------------------------------------------------------------------- table


def _pm(s: Stat, digits: int) -> str:
    return f"{s.mean:.{digits}f} ± {s.std:.{digits}f}"


def _sim(s: Stat, digits: int) -> str:
    # mpsim is deterministic for these scenarios unless the seeds disagree: show the spread only then.
    return f"{s.mean:.{digits}f}" if s.std == 0 else f"{s.mean:.{digits}f} ± {s.std:.{digits}f}"


def cell_label(c: Cell) -> str:
    size = f"{c.size_bytes / 1000:g} kB" if c.size_bytes < 1_000_000 else f"{c.size_bytes / 1e6:g} MB"
    return f"{c.variant} {c.proto} {c.cc} {size}"


def table(rows: Sequence[Row]) -> str:
    head = (
        "| cell | Linux FCT (s) | mpsim FCT (s) | Δ FCT | pass | mpsim FCT, framed (s) | Linux retrans | mpsim retrans "
        "| Linux RTOs | mpsim RTOs | Linux TLPs | Linux drops | mpsim drops |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for r in rows:
        framed = _sim(r.sim_fct_framed, 3) if r.sim_fct_framed is not None else "–"
        lines.append(
            f"| {cell_label(r.cell)} | {_pm(r.kernel_fct, 3)} ({r.kernel_fct.n}) | {_sim(r.sim_fct, 3)} "
            f"| {r.fct_diff * 100:+.1f} % | {'✓' if r.passed else '✗'} | {framed} "
            f"| {_pm(r.kernel_retrans, 1)} | {_sim(r.sim_retrans, 1)} "
            f"| {_pm(r.kernel_timeouts, 1)} | {_sim(r.sim_timeouts, 1)} "
            f"| {_pm(r.kernel_loss_probes, 1)} | {_pm(r.kernel_drops, 1)} | {_sim(r.sim_drops, 1)} |"
        )
    return head + "\n".join(lines) + "\n"


def replace_block(document: str, block: str) -> str:
    """``document`` with the text between the Linux markers replaced by ``block`` (markers kept);
    the block is appended, with its markers, when the document has none."""
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.DOTALL)
    new = f"{BEGIN}\n{block.rstrip()}\n{END}"
    found = pattern.findall(document)
    if len(found) > 1:
        raise ValueError(f"the document has {len(found)} Linux blocks ({BEGIN} … {END}), expected at most one")
    if found:
        return pattern.sub(lambda _: new, document)
    if BEGIN in document or END in document:
        raise ValueError(f"the document has one Linux marker without the other ({BEGIN}, {END})")
    return document.rstrip() + ("\n\n" if document.strip() else "") + new + "\n"


def write_block(path: Path, block: str) -> None:
    text = path.read_text() if path.exists() else "# Validation\n"
    path.write_text(replace_block(text, block))
