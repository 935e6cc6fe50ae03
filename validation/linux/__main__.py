"""``python -m validation.linux``: compare mpsim's ``linux`` profile with the kernel's committed
results and write the table into docs/validation.md; ``--rerun-rig`` runs the kernel side again
first (as root, through the Linux rig), replacing its cells in the reference file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from validation import stamp
from validation.linux import compare, rig, sim
from validation.linux.cells import Cell, grid

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "validation" / "reference" / "linux-6.18.jsonl"
DOC = ROOT / "docs" / "validation.md"
DIAGNOSIS = Path(__file__).with_name("diagnosis.md")
HEADER = Path(__file__).with_name("header.md")


def _selected(cells: list[Cell], only: list[str]) -> list[Cell]:
    return [c for c in cells if not only or any(s in c.key for s in only)]


def compare_all(kernel: list[rig.KernelCell], seeds: tuple[int, ...]) -> list[compare.Row]:
    rows = []
    for k in kernel:
        runs = [sim.run(k.cell, s) for s in seeds]
        framed = [sim.run(k.cell, s, sim.framing_rate_bps(k.cell)) for s in seeds]
        rows.append(compare.row(k, runs, framed))
    return rows


def block(rows: list[compare.Row], kernel: list[rig.KernelCell], seeds: tuple[int, ...]) -> str:
    """The text between the markers: header (grid, matching, pass rate), table, commands, diagnosis."""
    passed, total = compare.pass_rate(rows)
    header = HEADER.read_text().format(
        stamp=stamp.line("make validate-linux"),
        kernels=", ".join(sorted({k.kernel for k in kernel})),
        runs=" / ".join(str(n) for n in sorted({k.cell.runs for k in kernel})),
        seeds=", ".join(map(str, seeds)),
        tolerance_pct=compare.FCT_TOLERANCE * 100,
        passed=passed,
        total=total,
        pass_pct=100 * passed / max(total, 1),
    )
    calls = "\n".join(f"    {c}" for c in dict.fromkeys(k.command for k in kernel))
    quality = "\n".join(
        f"| `{k.command.split(' --proto')[0].removeprefix('run.sh ')}` | {100 * rig.late_share(k.delay_line):.2f} % "
        f"| {k.delay_line.get('late_max_us', float('nan')) / 1e3:.1f} ms |"
        for k in {k.command: k for k in kernel}.values()
    )
    diagnosis = DIAGNOSIS.read_text() if DIAGNOSIS.exists() else ""
    return f"""{header}
{compare.table(rows)}
Commands: `make validate-linux` (the mpsim side against the committed reference
`validation/reference/linux-6.18.jsonl`, seconds); `make validate-linux LINUX_RERUN=1` (as root: the
rig again, about 15 minutes, then the comparison). The rig calls behind the reference (in
`../shared/tools/linux-rig/`):

{calls}

The delay line's timing in each call (packets released more than 1 ms late; the latest), to spot a
call perturbed by other load on the machine:

| rig call | > 1 ms late | latest |
|---|---|---|
{quality}

{diagnosis}"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m validation.linux", description=__doc__)
    ap.add_argument("--reference", type=Path, default=REFERENCE)
    ap.add_argument("--doc", type=Path, default=DOC)
    ap.add_argument("--rerun-rig", action="store_true", help="run the kernel side again (root; the Linux rig)")
    ap.add_argument("--only", action="append", default=[], help="cells whose key contains this (repeatable)")
    ap.add_argument("--seeds", default=",".join(map(str, sim.DEFAULT_SEEDS)), help="mpsim seeds, comma list")
    args = ap.parse_args(argv)
    seeds = tuple(int(s) for s in args.seeds.split(","))
    if args.rerun_rig:
        fresh = rig.run_cells(_selected(grid(), args.only))
        old = rig.read_reference(args.reference) if args.reference.exists() else []
        rig.write_reference(args.reference, rig.merge(old, fresh))
    kernel = rig.read_reference(args.reference)
    rows = compare_all(kernel, seeds)
    compare.write_block(args.doc, block(rows, kernel, seeds))
    passed, total = compare.pass_rate(rows)
    for r in rows:
        print(f"{'PASS' if r.passed else 'MISS'} {r.cell.key}: {r.fct_diff * 100:+.1f} %", file=sys.stderr)
    print(f"{passed}/{total} cells within ±{compare.FCT_TOLERANCE * 100:g} % -> {args.doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
