"""Two congestion controls sharing one bottleneck: the kernel's throughput shares against mpsim's.

A :class:`ShareSetting` is two TCP uploads from the client's first address to the server, one with each
congestion control (BBR against CUBIC, say), started together on the rig's shared bottleneck and sending without
end. The kernel side is ``share.sh`` inside the rig (``run.sh --exec``): each socket's ``bytes_acked`` polled
every 0.1 s, several runs in one rig call; :func:`parse_samples` reads its output and the reference file
(``validation/reference/linux-6.18-shares.jsonl``, one JSON line per setting) keeps every run's sample series.
The mpsim side is the same network (:func:`validation.linux.sim.network`) with two flows under the ``linux``
profile, one run per seed, each started as a kernel run started its flows: ``share.sh`` starts them from two
processes, so the kernel's second flow sends its first data segment tens of milliseconds before or after the
first, and which goes first moves the shares (:func:`sim_offsets_s`).

Both sides are measured over the same windows, counted from the first data segment of the flow that sends
first (the kernel's from each socket's busy time, mpsim's one RTT after the SYNs): the whole run
(``seconds - 0.5`` s, which the kernel's poll covers) and from 5 s on (after both flows' start-up). The first
flow's share of the bytes over a window is its bytes over both flows'. A setting passes when mpsim's mean share
over seeds is within 0.1 of the kernel's mean over runs in both windows.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

import mpsim
from validation.linux import rig, sim
from validation.linux.cells import CCS, CcName, Cell, CellError, from_fields
from validation.linux.compare import Stat

SHARE_TOLERANCE = 0.1
"""Pass mark: mpsim's mean share of the first flow within 0.1 of the kernel's mean, in both windows."""
LATE_FROM_S = 5.0
"""The second window starts this long after the first data segment: both flows are past their start-up."""
WINDOW_MARGIN_S = 0.5
"""The windows end ``seconds - 0.5`` s after the first data segment: the kernel's poll (``seconds`` from its own
start, a few tens of ms before the first data) always covers that."""
PORTS = (5001, 5002)
"""``share.sh``: the first congestion control's flow to port 5001, the second's to 5002."""
SCRIPT = Path(__file__).with_name("share.sh")
SHARE_RUNS = 8
"""Runs per setting: the kernel's run-to-run spread is part of the reference."""
SHARE_SECONDS = 20.0


@dataclass(frozen=True)
class ShareSetting:
    """Two TCP uploads, ``cc_a`` and ``cc_b``, sharing the bottleneck (rate, RTT, ``buffer_pkts`` waiting as
    mpsim counts them; the rig's pfifo gets one more) for ``seconds``, ``runs`` kernel runs."""

    cc_a: CcName
    cc_b: CcName
    rate_mbit: float
    rtt_ms: float
    buffer_pkts: int
    seconds: float = SHARE_SECONDS
    runs: int = SHARE_RUNS

    def __post_init__(self) -> None:
        for name in ("cc_a", "cc_b"):
            if getattr(self, name) not in CCS:
                raise CellError(f"share.{name}: got {getattr(self, name)!r}, allowed: {', '.join(CCS)}")
        if not self.seconds > LATE_FROM_S + WINDOW_MARGIN_S:
            raise CellError(f"share.seconds: must be above {LATE_FROM_S + WINDOW_MARGIN_S:g}, got {self.seconds!r}")
        if self.runs < 1:
            raise CellError(f"share.runs: must be positive, got {self.runs!r}")
        self.cell()  # the rate, RTT and buffer checked as a cell's

    @property
    def key(self) -> str:
        return (
            f"share-{self.cc_a}-{self.cc_b}-{self.rate_mbit:g}Mbit-{self.rtt_ms:g}ms-b{self.buffer_pkts}"
            f"-{self.seconds:g}s"
        )

    @property
    def window_s(self) -> float:
        """Length of the whole-run window, from the first data segment."""
        return self.seconds - WINDOW_MARGIN_S

    def cell(self) -> Cell:
        """The cell whose network both sides share: a TCP upload on the shared bottleneck (size unused)."""
        return Cell(
            variant="shared",
            proto="tcp",
            cc=self.cc_a,
            size_bytes=1,
            rate_mbit=self.rate_mbit,
            rtt_ms=self.rtt_ms,
            buffer_pkts=self.buffer_pkts,
            direction="up",
            runs=self.runs,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict[str, Any]) -> ShareSetting:
        return from_fields(ShareSetting, d, "share")


# (cc_a, cc_b, rate Mbit/s, RTT ms, buffer packets). Both rate-RTT pairs have a BDP of 125 000 bytes, 83
# packets of 1500 bytes: a quarter, one and two BDPs at 20 Mbit/s, 50 ms; one and two at 10 Mbit/s, 100 ms (CUBIC
# grows by wall-clock time, BBR by round trips: the longer RTT moves the balance); CUBIC against CUBIC as a control
# of the method (neither flow should be favoured by its port or its start).
SHARE_SETTINGS: tuple[tuple[CcName, CcName, float, float, int], ...] = (
    ("bbr", "cubic", 20, 50, 21),  # 0.25 BDP
    ("bbr", "cubic", 20, 50, 83),  # 1 BDP
    ("bbr", "cubic", 20, 50, 167),  # 2 BDP
    ("bbr", "cubic", 10, 100, 83),  # 1 BDP
    ("bbr", "cubic", 10, 100, 167),  # 2 BDP
    ("cubic", "cubic", 20, 50, 83),  # 1 BDP, control
)


def share_grid() -> list[ShareSetting]:
    """BBR against CUBIC at 20 Mbit/s, 50 ms (a quarter, one and two BDPs) and 10 Mbit/s, 100 ms (one and two
    BDPs), and CUBIC against CUBIC at one BDP; 20 s and 8 runs each."""
    return [
        ShareSetting(cc_a=a, cc_b=b, rate_mbit=float(rate), rtt_ms=float(rtt), buffer_pkts=buffer)
        for a, b, rate, rtt, buffer in SHARE_SETTINGS
    ]


# ------------------------------------------------------------------------------------------- kernel side


@dataclass(frozen=True)
class FlowSeries:
    """One kernel flow's samples: poll times (s, from the poll's start), ``bytes_acked`` at each, and when its
    first data segment left (s, same clock; from its busy time) and its retransmissions by the last sample."""

    port: int
    t_s: list[float]
    bytes_acked: list[int]
    data_start_s: float
    retrans_segs: int

    def bytes_at(self, t: float) -> float:
        """Bytes acknowledged by time ``t``, linear between samples; 0 before the first sample (the socket had
        none yet). Raises beyond the last sample: the series does not tell."""
        if t > self.t_s[-1]:
            raise ValueError(f"port {self.port}: no sample at {t:.3f} s (the last is at {self.t_s[-1]:.3f} s)")
        return float(np.interp(t, self.t_s, self.bytes_acked, left=0.0))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(d: dict[str, Any]) -> FlowSeries:
        return FlowSeries(**d)


@dataclass(frozen=True)
class KernelRun:
    """One kernel run: each flow's series (port 5001's first) and the packets the bottleneck dropped."""

    flows: tuple[FlowSeries, FlowSeries]
    drops: int

    def to_json(self) -> dict[str, Any]:
        return {"drops": self.drops, "flows": [f.to_json() for f in self.flows]}

    @staticmethod
    def from_json(d: dict[str, Any]) -> KernelRun:
        a, b = (FlowSeries.from_json(f) for f in d["flows"])
        return KernelRun(flows=(a, b), drops=int(d["drops"]))


def parse_samples(text: str) -> list[KernelRun]:
    """``share.sh``'s output: per run a line ``run <i>``, its samples ``<t> <port> <bytes_acked> <busy ms>
    <retransmitted>`` and a line ``drops <n>``. A flow's first data segment left ``busy`` before the first
    sample that shows it busy."""
    runs: list[KernelRun] = []
    samples: dict[int, list[tuple[float, int, int, int]]] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words:
            continue
        if words[0] == "run":
            samples = {}
        elif samples is None:
            raise ValueError(f"line {number}: {line!r} before the first 'run' line")
        elif words[0] == "drops":
            runs.append(KernelRun(flows=_flows(samples, len(runs) + 1), drops=int(words[1])))
            samples = None
        elif len(words) == 5:
            t, port, acked, busy_ms, retrans = words
            samples.setdefault(int(port), []).append((float(t), int(acked), int(busy_ms), int(retrans)))
        else:
            raise ValueError(f"line {number}: expected '<t> <port> <bytes_acked> <busy ms> <retrans>', got {line!r}")
    if samples is not None:
        raise ValueError(f"run {len(runs) + 1} has no 'drops' line: the run did not finish")
    return runs


def _flows(samples: dict[int, list[tuple[float, int, int, int]]], run: int) -> tuple[FlowSeries, FlowSeries]:
    if set(samples) != set(PORTS):
        raise ValueError(f"run {run}: samples of ports {sorted(samples)}, expected {list(PORTS)}")
    out = []
    for port in PORTS:
        rows = samples[port]
        busy = [(t, b) for t, _, b, _ in rows if b > 0]
        if not busy:
            raise ValueError(f"run {run}: port {port} never sent data")
        out.append(
            FlowSeries(
                port=port,
                t_s=[t for t, *_ in rows],
                bytes_acked=[acked for _, acked, *_ in rows],
                data_start_s=round(busy[0][0] - busy[0][1] / 1e3, 3),
                retrans_segs=rows[-1][3],
            )
        )
    return out[0], out[1]


@dataclass(frozen=True)
class Shares:
    """The first flow's share of both flows' bytes over the whole run and from ``LATE_FROM_S`` on."""

    whole: float
    late: float


def kernel_shares(run: KernelRun, window_s: float) -> Shares:
    """The first flow's shares in a kernel run, the windows counted from the earlier flow's first data."""
    origin = min(f.data_start_s for f in run.flows)
    return Shares(
        whole=_share(run.flows, origin, origin + window_s),
        late=_share(run.flows, origin + LATE_FROM_S, origin + window_s),
    )


def _share(flows: Sequence[FlowSeries], start: float, end: float) -> float:
    a, b = (f.bytes_at(end) - f.bytes_at(start) for f in flows)
    if a + b <= 0:
        raise ValueError(f"no bytes acknowledged between {start:.3f} s and {end:.3f} s")
    return a / (a + b)


def start_offset_s(run: KernelRun) -> float:
    """How much later the second flow's first data segment left than the first's (negative: earlier)."""
    return run.flows[1].data_start_s - run.flows[0].data_start_s


@dataclass
class KernelShares:
    """A setting's kernel runs and the rig call that produced them."""

    setting: ShareSetting
    runs: list[KernelRun]
    command: str
    kernel: str
    date: str
    delay_line: dict[str, Any] = field(default_factory=dict)

    def shares(self) -> list[Shares]:
        return [kernel_shares(r, self.setting.window_s) for r in self.runs]

    def to_json(self) -> dict[str, Any]:
        return {
            "setting": self.setting.to_dict(),
            "key": self.setting.key,
            "kernel": self.kernel,
            "date": self.date,
            "command": self.command,
            "delay_line": self.delay_line,
            "runs": [r.to_json() for r in self.runs],
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> KernelShares:
        return KernelShares(
            setting=ShareSetting.from_dict(d["setting"]),
            runs=[KernelRun.from_json(r) for r in d["runs"]],
            command=d["command"],
            kernel=d["kernel"],
            date=d["date"],
            delay_line=d.get("delay_line", {}),
        )


def rig_options(s: ShareSetting) -> list[str]:
    """The rig's network for a setting (the congestion controls are set per socket by ``share.sh``)."""
    c = s.cell()
    return [
        f"--variant={c.variant}",
        f"--direction={c.direction}",
        f"--rate-mbit={c.rate_mbit:g}",
        f"--rtt-ms={c.rtt_ms:g}",
        # The rig's pfifo counts the packet in transmission too.
        f"--buffer-pkts={c.buffer_pkts + 1}",
        *rig.FIXED_OPTIONS,
    ]


def exec_command(s: ShareSetting, script: Path, out: str) -> str:
    return f"bash {shlex.quote(str(script))} {s.cc_a} {s.cc_b} {s.seconds:g} {shlex.quote(out)} {s.runs}"


def run_settings(settings: Sequence[ShareSetting], rig_path: Path | None = None) -> Iterator[KernelShares]:
    """Runs the rig (as root) once per setting, yielding each setting's runs as soon as its call ends."""
    if os.geteuid() != 0:
        raise PermissionError("running the Linux rig needs root: it creates network namespaces and qdiscs")
    where = rig_path or rig.rig_dir()
    script = where / "run.sh"
    if not script.exists():
        raise FileNotFoundError(f"the Linux rig is not at {where} (set MPSIM_LINUX_RIG)")
    rig.require_tools()
    for i, s in enumerate(settings, 1):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "samples.txt"
            argv = [str(script), *rig_options(s), "--exec", exec_command(s, SCRIPT, str(out))]
            shown = (
                "run.sh "
                + " ".join(rig_options(s))
                + " --exec "
                + shlex.quote(exec_command(s, Path("validation/linux/share.sh"), "OUTFILE"))
            )
            print(f"rig [{i}/{len(settings)}]: {shown}", file=sys.stderr, flush=True)
            proc = subprocess.run(argv, capture_output=True, text=True, cwd=where, check=False)
            if proc.returncode != 0:
                raise RuntimeError(f"rig call failed ({proc.returncode}): {shown}\n{proc.stderr}")
            runs = parse_samples(out.read_text())
        if len(runs) != s.runs:
            raise RuntimeError(f"{s.key}: the rig reported {len(runs)} runs, expected {s.runs}")
        stats = [
            json.loads(line)["delay_line"] for line in proc.stderr.splitlines() if line.startswith('{"delay_line"')
        ]
        yield KernelShares(
            setting=s,
            runs=runs,
            command=shown,
            kernel=os.uname().release,
            date=datetime.now(UTC).strftime("%Y-%m-%d"),
            delay_line=stats[-1] if stats else {},
        )


def write_reference(path: Path, settings: Sequence[KernelShares]) -> None:
    rig.write_records(path, [k.to_json() for k in settings])


def read_reference(path: Path) -> list[KernelShares]:
    lines = rig.read_records(path, "no kernel share reference at {}: run with --rerun-rig --shares (as root)")
    return [KernelShares.from_json(d) for d in lines]


def merge(old: Sequence[KernelShares], new: Sequence[KernelShares]) -> list[KernelShares]:
    """``old`` with the settings of ``new`` replaced (or added), in ``old``'s order then ``new``'s."""
    return rig.merge_by(old, new, lambda k: k.setting.key)


def record(path: Path, settings: Sequence[ShareSetting], rig_path: Path | None = None) -> None:
    """Runs the settings on the rig and writes each into the reference as soon as its call ends."""
    for fresh in run_settings(settings, rig_path):
        old = read_reference(path) if path.exists() else []
        write_reference(path, merge(old, [fresh]))


# -------------------------------------------------------------------------------------------- mpsim side


def scenario(s: ShareSetting, start_offset_s: float = 0.0) -> mpsim.Scenario:
    """The setting in mpsim: the rig's network, two endless TCP uploads from ``S0.1`` to ``D0``, the second
    started ``start_offset_s`` after the first (before it, when negative), and windowed throughput over the two
    windows (bins of ``LATE_FROM_S`` from the earlier flow's first data, one RTT after its SYN)."""
    net = sim.network(s.cell())
    tcp = sim.tcp_options(s.cell())
    starts_ms = (max(0.0, -start_offset_s) * 1e3, max(0.0, start_offset_s) * 1e3)
    flows = [
        {"name": name, "type": "tcp", "src": "S0.1", "dst": "D0", "cc": cc, "tcp": tcp, "start": f"{start:.6f}ms"}
        for name, cc, start in zip(("a", "b"), (s.cc_a, s.cc_b), starts_ms, strict=True)
    ]
    first_data_ms = s.rtt_ms
    end_ms = first_data_ms + s.window_s * 1e3
    return mpsim.Scenario(
        duration=f"{end_ms:.6f}ms",
        hosts=net.hosts,
        routers=net.routers,
        links=net.links,
        addresses=net.addresses,
        flows=flows,
        throughput={"interval": f"{LATE_FROM_S:g}s", "start": f"{first_data_ms:.6f}ms", "end": f"{end_ms:.6f}ms"},
    )


def sim_shares(s: ShareSetting, seed: int, start_offset_s: float = 0.0) -> Shares:
    """The first flow's shares in one mpsim run: bytes delivered in order, per window."""
    res = mpsim.run(scenario(s, start_offset_s), seed=seed)
    delivered: dict[str, list[int]] = {"a": [], "b": []}
    for r in sorted(res.throughput.to_pylist(), key=lambda r: r["bin"]):
        if r["kind"] == "tcp":
            delivered[r["flow"]].append(int(r["bytes_delivered"]))
    a, b = delivered["a"], delivered["b"]
    if len(a) != len(b) or len(a) < 2:
        raise RuntimeError(f"{s.key}: expected the same two or more throughput bins per flow, got {len(a)}, {len(b)}")
    return Shares(whole=sum(a) / (sum(a) + sum(b)), late=sum(a[1:]) / (sum(a[1:]) + sum(b[1:])))


# ------------------------------------------------------------------------------------------- judgement


@dataclass(frozen=True)
class ShareRow:
    """One setting's comparison: the first flow's share over runs (kernel) and seeds (mpsim), per window."""

    setting: ShareSetting
    kernel_whole: Stat
    kernel_late: Stat
    sim_whole: Stat
    sim_late: Stat
    start_offset_ms: Stat
    """How much later the kernel's second flow started sending than its first."""
    kernel_drops: Stat
    kernel: KernelShares
    """The kernel's runs and the rig call behind them."""

    @property
    def whole_diff(self) -> float:
        return self.sim_whole.mean - self.kernel_whole.mean

    @property
    def late_diff(self) -> float:
        return self.sim_late.mean - self.kernel_late.mean

    @property
    def passed(self) -> bool:
        return abs(self.whole_diff) <= SHARE_TOLERANCE and abs(self.late_diff) <= SHARE_TOLERANCE


def share_row(kernel: KernelShares, sim_runs: Sequence[Shares]) -> ShareRow:
    k = kernel.shares()
    return ShareRow(
        setting=kernel.setting,
        kernel_whole=Stat.of([x.whole for x in k]),
        kernel_late=Stat.of([x.late for x in k]),
        sim_whole=Stat.of([x.whole for x in sim_runs]),
        sim_late=Stat.of([x.late for x in sim_runs]),
        start_offset_ms=Stat.of([1e3 * start_offset_s(r) for r in kernel.runs]),
        kernel_drops=Stat.of([float(r.drops) for r in kernel.runs]),
        kernel=kernel,
    )


def sim_offsets_s(kernel: KernelShares, n: int) -> list[float]:
    """The second flow's start offset for each of ``n`` mpsim runs: the kernel's runs' offsets in turn (seed
    ``i`` starts as run ``i mod runs`` did). Which flow starts first moves the shares. Measured on mpsim, 24 seeds:
    CUBIC against CUBIC at 20 Mbit/s, 50 ms, one BDP, the first flow's share is 0.57 when the second starts 30 ms
    after it and 0.43 when 30 ms before (0.56 when both start at the same instant); BBR's share against CUBIC is
    0.004 to 0.05 higher with CUBIC 30 ms after than 30 ms before, over the grid's settings."""
    offsets = [start_offset_s(r) for r in kernel.runs]
    return [offsets[i % len(offsets)] for i in range(n)]


def compare_all(kernel: Sequence[KernelShares], seeds: Sequence[int]) -> list[ShareRow]:
    return [
        share_row(
            k, [sim_shares(k.setting, seed, o) for seed, o in zip(seeds, sim_offsets_s(k, len(seeds)), strict=True)]
        )
        for k in kernel
    ]


def label(s: ShareSetting) -> str:
    return f"{s.cc_a} vs {s.cc_b} {s.rate_mbit:g} Mb/s {s.rtt_ms:g} ms b{s.buffer_pkts}"


def _pm(s: Stat) -> str:
    return f"{s.mean:.3f} ± {s.std:.3f}"


def table(rows: Sequence[ShareRow]) -> str:
    head = (
        "| setting | Linux share, whole run | mpsim | Δ | Linux share, from 5 s | mpsim | Δ | pass "
        "| Linux start offset (ms) | Linux drops |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = [
        f"| {label(r.setting)} | {_pm(r.kernel_whole)} ({r.kernel_whole.n}) | {_pm(r.sim_whole)} "
        f"| {r.whole_diff:+.3f} | {_pm(r.kernel_late)} | {_pm(r.sim_late)} | {r.late_diff:+.3f} "
        f"| {'✓' if r.passed else '✗'} | {r.start_offset_ms.mean:+.1f} ± {r.start_offset_ms.std:.1f} "
        f"| {r.kernel_drops.mean:.0f} |"
        for r in rows
    ]
    return head + "\n".join(lines) + "\n"


def summary_line(r: ShareRow) -> str:
    return (
        f"{'PASS' if r.passed else 'MISS'} {r.setting.key}: {r.setting.cc_a}'s share {r.sim_whole.mean:.3f} vs "
        f"{r.kernel_whole.mean:.3f} ± {r.kernel_whole.std:.3f} (whole run), {r.sim_late.mean:.3f} vs "
        f"{r.kernel_late.mean:.3f} ± {r.kernel_late.std:.3f} (from {LATE_FROM_S:g} s)"
    )


def section(rows: Sequence[ShareRow], seeds: Sequence[int]) -> str:
    """The shares' part of docs/validation.md: what is measured and judged, and the table (nothing without
    rows)."""
    if not rows:
        return ""
    runs = " / ".join(str(n) for n in sorted({len(r.kernel.runs) for r in rows}))
    window = " / ".join(f"{w:g}" for w in sorted({r.setting.window_s for r in rows}))
    return f"""**Two congestion controls sharing the bottleneck** (the share grid, `validation/linux/shares.py`; the
kernel's `validation/reference/linux-6.18-shares.jsonl`): the first flow's share of the two flows' bytes (for BBR
against CUBIC, BBR's), over the whole run ({window} s from the first data segment) and from {LATE_FROM_S:g} s on;
the kernel's mean ± standard deviation over {runs} runs a setting (each socket's `bytes_acked` polled every
0.1 s by `validation/linux/share.sh`), mpsim's over {len(seeds)} seeds (bytes delivered in order). A setting
passes when mpsim's mean is within {SHARE_TOLERANCE:g} of the kernel's in both windows. The kernel's two flows are
started by two processes: the start offset is when the second sent its first data segment less when the first did
(each socket's busy time), mean ± standard deviation over the runs. The flow that starts first gains (in mpsim,
CUBIC against CUBIC: 0.57 of the bytes to the flow started 30 ms before the other), so mpsim's seed *i* starts its
second flow as the kernel's run *i* mod {runs} did.

{table(rows)}"""
