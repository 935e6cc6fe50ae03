"""``python -m validation.linux.trace``: where a cell's kernel transfer and mpsim's first part ways.

For each cell key given, reads a capture of one kernel transfer (``validation/linux/capture.sh``;
with ``--capture``, records it first through the rig, as root) and mpsim's ``--pcap`` of the same
scenario (seed 1), takes the data segments the sender puts on each subflow, in time bins of half the
first path's base RTT from the first SYN, and prints the first bin where the two differ: a subflow
whose segments sent so far differ by more than ``max(3, 10 %)`` or whose retransmissions so far
differ by more than ``max(3, 25 %)``, each from the other side's count in that bin and in the bins on
either side (a round that leaves a few milliseconds later is not a difference). One kernel run is
not the reference's mean, so a first difference is where to look, not a verdict.

    python -m validation.linux.trace --out /tmp/traces --capture KEY [KEY ...]
    python -m validation.linux.trace --out /tmp/traces --misses     # every cell that misses

tshark reads the captures (``make tools`` installs it).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import mpsim
from validation.linux import rig, sim
from validation.linux.cells import Cell, grid

KERNEL_SERVER = "10.200.4.2"
"""The rig's server address; the client's are 10.200.1.2 and 10.200.2.2."""
SIM_SERVER = "10.0.0.3"
"""``D0``'s address in the presets' networks; the client ``S0`` has 10.0.0.1 and 10.0.0.2."""
CAPTURE = Path(__file__).with_name("capture.sh")
FIELDS = (
    "frame.time_epoch",
    "ip.src",
    "ip.dst",
    "tcp.srcport",
    "tcp.len",
    "tcp.flags.syn",
    "tcp.seq",
)


@dataclass(frozen=True)
class Segment:
    time_s: float
    subflow: str
    """The sender's address, port and the receiver's address."""
    payload: int
    syn: bool
    retransmission: bool


def read_segments(pcaps: list[Path]) -> list[Segment]:
    """Every TCP segment of the captures, in time order."""
    segments = []
    for pcap in pcaps:
        fields = [arg for f in FIELDS for arg in ("-e", f)]
        out = subprocess.run(
            ["tshark", "-r", str(pcap), "-T", "fields", *fields, "-E", "separator=;"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        rows = [line.split(";") for line in out.splitlines()]
        sent = [(f"{src}:{port}>{dst}", int(seq or 0), int(length or 0)) for _, src, dst, port, length, _, seq in rows]
        for row, (subflow, _, length), resent in zip(rows, sent, resent_flags(sent), strict=True):
            segments.append(Segment(float(row[0]), subflow, length, row[5] == "1", resent))
    segments.sort(key=lambda s: s.time_s)
    return segments


def resent_flags(sent: list[tuple[str, int, int]]) -> list[bool]:
    """For each (subflow, sequence number, payload) in the order a capture saw them, whether the segment
    starts below the highest sequence number its subflow had sent: a retransmission. (tshark's own
    ``tcp.analysis.retransmission`` calls a resend within its reordering guess "out of order" and leaves it
    out; a sender's capture sees no reordering.)"""
    highest: dict[str, int] = {}
    flags = []
    for subflow, seq, length in sent:
        flags.append(length > 0 and seq < highest.get(subflow, 0))
        if length:
            highest[subflow] = max(highest.get(subflow, 0), seq + length)
    return flags


@dataclass(frozen=True)
class Counts:
    """Per subflow (in the order each sent its first packet): data segments and retransmissions sent
    up to the end of each bin."""

    sent: list[list[int]]
    retransmitted: list[list[int]]


def count(segments: list[Segment], server: str, upload: bool, bin_s: float) -> Counts:
    """The counts of the sender's subflows: the client's (every source but ``server``) for an
    upload, the server's for a download."""
    t0 = segments[0].time_s
    order: list[str] = []
    for s in segments:
        if s.subflow.startswith(server + ":") != upload and s.subflow not in order:
            order.append(s.subflow)
    bins = int((segments[-1].time_s - t0) / bin_s) + 1
    sent = [[0] * bins for _ in order]
    retransmitted = [[0] * bins for _ in order]
    for s in segments:
        if s.subflow in order and s.payload:
            k, b = order.index(s.subflow), int((s.time_s - t0) / bin_s)
            sent[k][b] += 1
            retransmitted[k][b] += s.retransmission
    for rows in (sent, retransmitted):
        for row in rows:
            for b in range(1, bins):
                row[b] += row[b - 1]
    return Counts(sent, retransmitted)


def _apart(rows_a: list[list[int]], rows_b: list[list[int]], k: int, b: int, share: float) -> bool:
    """Whether subflow ``k``'s count at the end of bin ``b`` differs by more than ``max(3, share)``,
    and by more than that from the other side's counts one bin before and after too (a round that
    leaves a few milliseconds later on one side is not a difference)."""

    def at(rows: list[list[int]], j: int) -> int:
        if k >= len(rows) or not rows[k]:
            return 0
        return rows[k][min(max(j, 0), len(rows[k]) - 1)]

    a = at(rows_a, b)
    lo = min(at(rows_b, b - 1), at(rows_b, b), at(rows_b, b + 1))
    hi = max(at(rows_b, b - 1), at(rows_b, b), at(rows_b, b + 1))
    slack = max(3.0, share * max(a, hi))
    return a < lo - slack or a > hi + slack


def first_difference(kernel: Counts, ours: Counts, bin_s: float) -> str:
    """The first bin where a subflow's counts part, as a sentence."""
    bins = max(len(r) for r in kernel.sent + ours.sent)
    subflows = max(len(kernel.sent), len(ours.sent))

    def at(rows: list[list[int]], k: int, b: int) -> int:
        return rows[k][min(b, len(rows[k]) - 1)] if k < len(rows) and rows[k] else 0

    for b in range(bins):
        for k in range(subflows):
            end = (b + 1) * bin_s
            if _apart(kernel.sent, ours.sent, k, b, 0.10) and _apart(ours.sent, kernel.sent, k, b, 0.10):
                ks, ms = at(kernel.sent, k, b), at(ours.sent, k, b)
                return f"by {end:.3f} s subflow {k + 1} sent {ks} segments in the kernel, {ms} in mpsim"
            rk, rm = kernel.retransmitted, ours.retransmitted
            if _apart(rk, rm, k, b, 0.25) and _apart(rm, rk, k, b, 0.25):
                kr, mr = at(kernel.retransmitted, k, b), at(ours.retransmitted, k, b)
                return f"by {end:.3f} s subflow {k + 1} retransmitted {kr} segments in the kernel, {mr} in mpsim"
    return "no bin apart (the whole transfer agrees within the bounds)"


def capture(cell: Cell, out: Path) -> None:
    """One kernel transfer of the cell into ``out`` (as root, through the rig). The rig's tools and
    tcpdump come first (:func:`validation.linux.rig.require_tools`): without ethtool the capture would
    record another transfer than the reference's."""
    rig.require_tools(extra=("tcpdump",))
    options = [o for o in rig.cell_options(cell) if not o.startswith(("--runs", "--cc"))]
    command = f"bash {CAPTURE} {cell.proto} {cell.size_bytes} {cell.cc} {out} {cell.direction}"
    subprocess.run(
        ["./run.sh", *options, "--exec", command],
        cwd=rig.rig_dir(),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def trace(cell: Cell, out: Path, record: bool) -> str:
    kernel_dir, sim_dir = out / cell.key.replace("/", "_") / "kernel", out / cell.key.replace("/", "_") / "mpsim"
    if record:
        shutil.rmtree(kernel_dir, ignore_errors=True)
        capture(cell, kernel_dir)
    upload = cell.direction == "up"
    names = ["c1.pcap", "c2.pcap"] if upload else ["sb.pcap"]
    kernel_pcaps = [kernel_dir / n for n in names if (kernel_dir / n).exists()]
    if not kernel_pcaps:
        return f"no capture in {kernel_dir} (run with --capture, as root)"
    sim_dir.mkdir(parents=True, exist_ok=True)
    mpsim.run(sim.scenario(cell), seed=1, pcap=sim_dir)
    bin_s = cell.rtt_ms / 2000
    kernel = count(read_segments(kernel_pcaps), KERNEL_SERVER, upload, bin_s)
    ours = count(read_segments([sim_dir / f"host-{'S0' if upload else 'D0'}.pcap"]), SIM_SERVER, upload, bin_s)
    return first_difference(kernel, ours, bin_s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m validation.linux.trace", description=__doc__.split("\n")[0])
    parser.add_argument("keys", nargs="*", help="cell keys (as docs/validation.md's table names them)")
    parser.add_argument("--out", type=Path, required=True, help="directory for the captures")
    parser.add_argument("--capture", action="store_true", help="record a kernel transfer first (as root)")
    parser.add_argument("--misses", action="store_true", help="every cell that misses the strict criterion")
    args = parser.parse_args(argv)
    cells = {c.key: c for c in grid()}
    keys = list(args.keys)
    if args.misses:
        keys += _missing_keys()
    unknown = [k for k in keys if k not in cells]
    if unknown:
        print(f"trace: unknown cell(s) {unknown}; the grid's keys are in docs/validation.md", file=sys.stderr)
        return 2
    for key in keys:
        print(f"{key}: {trace(cells[key], args.out, args.capture)}", flush=True)
    return 0


def _missing_keys() -> list[str]:
    from validation.linux.__main__ import REFERENCE, compare_all

    kernel = rig.read_reference(REFERENCE)
    return [r.cell.key for r in compare_all(kernel, sim.DEFAULT_SEEDS) if not r.passed]


if __name__ == "__main__":
    sys.exit(main())
