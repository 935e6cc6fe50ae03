"""Kernel against mpsim, cell by cell: the numbers, the pass marks and the table in docs/validation.md.

A cell passes strictly when mpsim's completion time is within ±10 % of the kernel's mean, its
retransmissions within max(25 % of the kernel's mean, two standard deviations of the kernel's runs,
3 segments) of the kernel's mean and, for MPTCP, the second subflow's share of the bytes within 0.1
of the kernel's mean share. The completion time compared is the rig's ``fct_ack_s`` (from
``connect()``, i.e. the first SYN, until the sender sees every byte acknowledged), which is what
mpsim's ``fct_s`` measures (first SYN to the ACK of the last byte).
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
RETRANS_RELATIVE = 0.25
RETRANS_SIGMAS = 2.0
RETRANS_FLOOR = 3.0
"""Pass mark: mpsim's retransmissions within max(25 % of the kernel's mean, 2 standard deviations of
its runs, 3 segments) of the kernel's mean."""
SHARE_TOLERANCE = 0.1
"""Pass mark (MPTCP): the second subflow's share of the bytes within 0.1 of the kernel's mean."""
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
    kernel_share: Stat = Stat(math.nan, math.nan, 0)
    """The second path's share of the data bytes (MPTCP)."""
    sim_share: Stat = Stat(math.nan, math.nan, 0)

    @property
    def fct_diff(self) -> float:
        """mpsim relative to the kernel: (mpsim − kernel) / kernel."""
        return relative_difference(self.sim_fct.mean, self.kernel_fct.mean)

    @property
    def fct_passed(self) -> bool:
        return within(self.sim_fct.mean, self.kernel_fct.mean, FCT_TOLERANCE)

    @property
    def retrans_tolerance(self) -> float:
        k = self.kernel_retrans
        return max(RETRANS_RELATIVE * k.mean, RETRANS_SIGMAS * k.std, RETRANS_FLOOR)

    @property
    def retrans_passed(self) -> bool:
        return abs(self.sim_retrans.mean - self.kernel_retrans.mean) <= self.retrans_tolerance

    @property
    def share_diff(self) -> float:
        """mpsim's second-path share less the kernel's (NaN for TCP)."""
        return self.sim_share.mean - self.kernel_share.mean

    @property
    def share_passed(self) -> bool:
        return self.cell.proto != "mptcp" or abs(self.share_diff) <= SHARE_TOLERANCE

    @property
    def passed(self) -> bool:
        """The strict judgement: completion time, retransmissions and (MPTCP) share."""
        return self.fct_passed and self.retrans_passed and self.share_passed


def relative_difference(value: float, reference: float) -> float:
    if reference == 0:
        raise ValueError(f"reference value must not be 0 (value {value})")
    return (value - reference) / reference


def within(value: float, reference: float, tolerance: float) -> bool:
    """``value`` within ``±tolerance`` (relative) of ``reference``."""
    return abs(relative_difference(value, reference)) <= tolerance


def row(kernel: KernelCell, sim: Sequence[SimRun]) -> Row:
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
        kernel_share=Stat.of(kernel.values("path2_share")) if kernel.cell.proto == "mptcp" else Stat.of([]),
        sim_share=Stat.of([r.path2_share for r in sim]) if kernel.cell.proto == "mptcp" else Stat.of([]),
    )


def pass_rate(rows: Sequence[Row], strict: bool = True) -> tuple[int, int]:
    return sum(r.passed if strict else r.fct_passed for r in rows), len(rows)


# ---------------------------------------------------------------------------------------------- table


def _pm(s: Stat, digits: int) -> str:
    return f"{s.mean:.{digits}f} ± {s.std:.{digits}f}"


def _sim(s: Stat, digits: int) -> str:
    # The spread of mpsim's runs (the seeds draw the delay line's jitter), unless they agree.
    return f"{s.mean:.{digits}f}" if s.std == 0 else f"{s.mean:.{digits}f} ± {s.std:.{digits}f}"


def cell_label(c: Cell) -> str:
    size = f"{c.size_bytes / 1000:g} kB" if c.size_bytes < 1_000_000 else f"{c.size_bytes / 1e6:g} MB"
    rtts = f"{c.rtt_ms:g}" if c.rtt2_ms is None else f"{c.rtt_ms:g}/{c.rtt2_ms:g}"
    return f"{c.variant} {c.direction} {c.proto} {c.cc} {c.rate_mbit:g} Mb/s {rtts} ms b{c.buffer_pkts} {size}"


def _share(r: Row) -> tuple[str, str]:
    if r.cell.proto != "mptcp":
        return "–", "–"
    return f"{_pm(r.kernel_share, 2)}", f"{_sim(r.sim_share, 2)}"


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def table(rows: Sequence[Row]) -> str:
    head = (
        "| cell | Linux FCT (s) | mpsim FCT (s) | Δ FCT | Linux retrans | mpsim retrans | Linux path-2 share "
        "| mpsim path-2 share | FCT | retrans | share | pass | Linux RTOs | mpsim RTOs | Linux TLPs |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for r in rows:
        k_share, s_share = _share(r)
        lines.append(
            f"| {cell_label(r.cell)} | {_pm(r.kernel_fct, 3)} ({r.kernel_fct.n}) | {_sim(r.sim_fct, 3)} "
            f"| {r.fct_diff * 100:+.1f} % | {_pm(r.kernel_retrans, 1)} | {_sim(r.sim_retrans, 1)} "
            f"| {k_share} | {s_share} | {_mark(r.fct_passed)} | {_mark(r.retrans_passed)} "
            f"| {_mark(r.share_passed) if r.cell.proto == 'mptcp' else '–'} | {_mark(r.passed)} "
            f"| {_pm(r.kernel_timeouts, 1)} | {_sim(r.sim_timeouts, 1)} | {_pm(r.kernel_loss_probes, 1)} |"
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
