"""The kernel side: the Linux rig (``../shared/tools/linux-rig/run.sh``) run on the grid's cells, and
the committed reference file that keeps its results.

The rig takes lists of protocols and sizes in one call, so cells that differ only in those (and have
as many runs) share a call: :func:`commands`. Each call appends every run's record to a JSON-lines
file (``--runs-jsonl``) and prints the delay line's statistics on stderr; :func:`run_cells` reads
both and returns one :class:`KernelCell` per cell. :func:`write_reference` / :func:`read_reference`
store them, with the kernel version and the rig's options, one JSON line per cell.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from validation.linux.cells import Cell

RIG_DIR_DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "tools" / "linux-rig"
"""``../shared/tools/linux-rig`` beside the repository; ``MPSIM_LINUX_RIG`` overrides it."""

FIXED_OPTIONS = ("--bulk",)
"""Always: the sender's socket buffer takes the whole transfer at once, like a simulator's sender."""

RUN_METRICS = (
    "fct_rcv_s",
    "fct_ack_s",
    "connect_s",
    "first_byte_s",
    "retrans_segs",
    "out_segs",
    "timeouts",
    "loss_probes",
    "fast_retrans",
    "spurious_rtos",
    "hystart_train",
    "hystart_delay",
    "bneck_drops",
    "path2_share",
    "sf2_payload_share",
    "dly0_drops",
)
"""Per-run values kept in the reference (the rig's names)."""
RUN_DETAILS = ("subflows", "mptcp_snd_counters", "mptcp_rcv_counters", "mptcp_subflows", "mptcp_fallback")
"""Per-run details kept for diagnosis: each subflow's ``tcp_info``, the MPTCP MIB deltas."""


REQUIRED_TOOLS = ("ethtool", "ping", "ip", "tc")
TOOL_PACKAGES = {"ping": "iputils-ping", "ip": "iproute2", "tc": "iproute2"}
"""The Debian package of each tool whose package has another name."""
"""What the rig runs: without ethtool its offloads stay on, without ping it has no base RTT."""


def require_tools(extra: tuple[str, ...] = ()) -> None:
    """Raises :class:`FileNotFoundError` naming the rig's tools (``REQUIRED_TOOLS``, then ``extra``) missing
    from the PATH. The rig turns segmentation offloads off with ethtool and does not stop when ethtool is
    missing: TCP then hands 2-segment GSO packets to an upload's bottleneck, whose pfifo counts each as one
    packet (twice the buffer in segments). Measured: shared TCP CUBIC 700 kB upload, 74 retransmissions without
    ethtool, 105 with; the separate 2 MB BBR upload at 10 Mbit/s, 20/40 ms, 47.5 ± 11.6 without, 67.4 ± 6.1
    with (the reference's 68.9 ± 3.8)."""
    missing = [tool for tool in (*REQUIRED_TOOLS, *extra) if shutil.which(tool) is None]
    if missing:
        packages = " ".join(dict.fromkeys(TOOL_PACKAGES.get(t, t) for t in missing))
        raise FileNotFoundError(
            f"the Linux rig needs {', '.join(missing)} on the PATH (apt: {packages}); "
            "`make validate-linux LINUX_RERUN=1` installs ethtool and ping"
        )


def rig_dir() -> Path:
    return Path(os.environ.get("MPSIM_LINUX_RIG", str(RIG_DIR_DEFAULT)))


def _group_key(cell: Cell) -> tuple[Any, ...]:
    c = cell
    return (c.variant, c.cc, c.rate_mbit, c.rtt_ms, c.rtt2_ms, c.buffer_pkts, c.direction, c.runs)


def cell_options(cell: Cell) -> list[str]:
    """The rig options of everything in a cell but its protocol and size."""
    opts = [
        f"--variant={cell.variant}",
        f"--direction={cell.direction}",
        f"--rate-mbit={cell.rate_mbit:g}",
        f"--rtt-ms={cell.rtt_ms:g}",
        # The rig's pfifo counts the packet in transmission too.
        f"--buffer-pkts={cell.buffer_pkts + 1}",
        f"--cc={cell.cc}",
        f"--runs={cell.runs}",
        *FIXED_OPTIONS,
    ]
    if cell.rtt2_ms is not None:
        opts.append(f"--rtt2-ms={cell.rtt2_ms:g}")
    return opts


def commands(cells: Sequence[Cell]) -> list[tuple[list[str], list[Cell]]]:
    """One rig call per group of cells differing only in protocol and size (each call runs every
    protocol × size of its group, so a group must be such a product): (arguments, cells)."""
    groups: dict[tuple[Any, ...], list[Cell]] = {}
    for c in cells:
        groups.setdefault(_group_key(c), []).append(c)
    out = []
    for members in groups.values():
        protos = list(dict.fromkeys(c.proto for c in members))
        sizes = list(dict.fromkeys(c.size_bytes for c in members))
        if len(members) != len(protos) * len(sizes):
            raise ValueError(f"cells of one rig call must cover every protocol × size: {[c.key for c in members]}")
        args = [*cell_options(members[0]), f"--proto={','.join(protos)}", f"--size={','.join(map(str, sizes))}"]
        out.append((args, members))
    return out


@dataclass
class KernelCell:
    """The rig's result for one cell: per-run values and the call that produced them."""

    cell: Cell
    runs: list[dict[str, Any]]
    command: str
    kernel: str
    base_rtt_ping_ms: dict[str, Any] = field(default_factory=dict)
    delay_line: dict[str, Any] = field(default_factory=dict)

    def values(self, metric: str) -> list[float]:
        return [float(r[metric]) for r in self.runs]

    def to_json(self) -> dict[str, Any]:
        return {
            "cell": self.cell.to_dict(),
            "key": self.cell.key,
            "kernel": self.kernel,
            "command": self.command,
            "base_rtt_ping_ms": self.base_rtt_ping_ms,
            "delay_line": self.delay_line,
            "runs": self.runs,
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> KernelCell:
        return KernelCell(
            cell=Cell.from_dict(d["cell"]),
            runs=d["runs"],
            command=d["command"],
            kernel=d["kernel"],
            base_rtt_ping_ms=d.get("base_rtt_ping_ms", {}),
            delay_line=d.get("delay_line", {}),
        )


def _matches(cell: Cell, rec: dict[str, Any]) -> bool:
    return bool(
        rec["variant"] == cell.variant
        and rec["direction"] == cell.direction
        and rec["cc"] == cell.cc
        and rec["proto"] == cell.proto
        and rec["size"] == cell.size_bytes
        and rec["buffer_pkts"] == cell.buffer_pkts + 1
        and float(rec["rate_mbit"]) == cell.rate_mbit
        and float(rec["rtt_ms"]) == cell.rtt_ms
        and (rec["rtt2_ms"] is None if cell.rtt2_ms is None else float(rec["rtt2_ms"]) == cell.rtt2_ms)
    )


def collect(
    cells: Iterable[Cell],
    run_records: Sequence[dict[str, Any]],
    summaries: Sequence[dict[str, Any]],
    command: str,
    delay_line: dict[str, Any],
) -> list[KernelCell]:
    """The cells' results from one rig call's per-run records and summary lines."""
    out = []
    for cell in cells:
        runs = [r for r in run_records if _matches(cell, r)]
        if len(runs) != cell.runs:
            raise RuntimeError(f"{cell.key}: the rig reported {len(runs)} runs, expected {cell.runs}")
        summary = next((s for s in summaries if _matches(cell, s)), {})
        kept = [{k: r[k] for k in RUN_METRICS if k in r} | {k: r[k] for k in RUN_DETAILS if k in r} for r in runs]
        out.append(
            KernelCell(
                cell=cell,
                runs=kept,
                command=command,
                kernel=str(runs[0]["kernel"]),
                base_rtt_ping_ms=summary.get("base_rtt_ping_ms", {}),
                delay_line=delay_line,
            )
        )
    return out


def late_share(delay_line: dict[str, Any], threshold_us: float = 1000.0) -> float:
    """Share of the packets the delay line released more than ``threshold_us`` late (its histogram
    ``late_hist`` counts packets between the edges ``late_hist_edges_us``, first bin below the first
    edge, last above the last); NaN without statistics. A threshold between edges counts from the
    next edge up."""
    hist = delay_line.get("late_hist")
    edges = delay_line.get("late_hist_edges_us")
    if not hist or not edges or sum(hist) == 0:
        return float("nan")
    first = next((i + 1 for i, e in enumerate(edges) if e >= threshold_us), len(hist))
    return float(sum(hist[first:]) / sum(hist))


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def run_groups(cells: Sequence[Cell], rig: Path | None = None) -> Iterator[list[KernelCell]]:
    """Runs the rig (as root) on the cells, one call per group, yielding each group's results as
    soon as its call ends (so a caller can keep them before the next call starts)."""
    if os.geteuid() != 0:
        raise PermissionError("running the Linux rig needs root: it creates network namespaces and qdiscs")
    rig = rig or rig_dir()
    script = rig / "run.sh"
    if not script.exists():
        raise FileNotFoundError(f"the Linux rig is not at {rig} (set MPSIM_LINUX_RIG)")
    require_tools()
    calls = commands(cells)
    for i, (args, members) in enumerate(calls, 1):
        with tempfile.TemporaryDirectory() as tmp:
            runs_file = Path(tmp) / "runs.jsonl"
            argv = [str(script), *args, f"--runs-jsonl={runs_file}"]
            shown = "run.sh " + " ".join(shlex.quote(a) for a in args)
            print(f"rig [{i}/{len(calls)}]: {shown}", file=sys.stderr, flush=True)
            proc = subprocess.run(argv, capture_output=True, text=True, cwd=rig, check=False)
            if proc.returncode != 0:
                raise RuntimeError(f"rig call failed ({proc.returncode}): {shown}\n{proc.stderr}")
            stats = [d["delay_line"] for d in _json_lines(proc.stderr) if "delay_line" in d]
            records = _json_lines(runs_file.read_text())
        yield collect(members, records, _json_lines(proc.stdout), shown, stats[-1] if stats else {})


def run_cells(cells: Sequence[Cell], rig: Path | None = None) -> list[KernelCell]:
    """Runs the rig (as root) on the cells, one call per group; returns their results."""
    return [k for group in run_groups(cells, rig) for k in group]


R = TypeVar("R")


def write_records(path: Path, records: Sequence[dict[str, Any]]) -> None:
    """A reference file: one JSON object a line, keys sorted."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")


def read_records(path: Path, missing: str) -> list[dict[str, Any]]:
    """The objects of a reference file; ``missing`` (with ``{}`` for the path) says how to make one."""
    if not path.exists():
        raise FileNotFoundError(missing.format(path))
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def merge_by(old: Sequence[R], new: Sequence[R], key: Callable[[R], str]) -> list[R]:
    """``old`` with the records of ``new`` replaced (or added) by ``key``, in ``old``'s order then ``new``'s."""
    fresh = {key(k): k for k in new}
    out = [fresh.pop(key(k), k) for k in old]
    return out + list(fresh.values())


def write_reference(path: Path, cells: Sequence[KernelCell]) -> None:
    write_records(path, [k.to_json() for k in cells])


def read_reference(path: Path) -> list[KernelCell]:
    lines = read_records(path, "no kernel reference at {}: run with --rerun-rig (as root) to make one")
    return [KernelCell.from_json(d) for d in lines]


def merge(old: Sequence[KernelCell], new: Sequence[KernelCell]) -> list[KernelCell]:
    """``old`` with the cells of ``new`` replaced (or added), in ``old``'s order then ``new``'s."""
    return merge_by(old, new, lambda k: k.cell.key)
