"""``python -m validation.linux``: compare mpsim's ``linux`` profile with the kernel's committed
results and write the table into docs/validation.md; ``--rerun-rig`` runs the kernel side again
first (as root, through the Linux rig), replacing its cells in the reference file. The share settings (two
congestion controls on one bottleneck, :mod:`validation.linux.shares`) have their own reference file and are
recorded alone with ``--rerun-rig --shares``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from validation import stamp
from validation.linux import compare, rig, shares, sim
from validation.linux.cells import Cell, grid

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "validation" / "reference" / "linux-6.18.jsonl"
SHARE_REFERENCE = ROOT / "validation" / "reference" / "linux-6.18-shares.jsonl"
DOC = ROOT / "docs" / "validation.md"
DIAGNOSIS = Path(__file__).with_name("diagnosis.md")
HEADER = Path(__file__).with_name("header.md")


def _selected(cells: list[Cell], only: list[str]) -> list[Cell]:
    return [c for c in cells if not only or any(s in c.key for s in only)]


def _wanted(key: str, only: list[str]) -> bool:
    return not only or any(s in key for s in only)


def compare_all(kernel: list[rig.KernelCell], seeds: tuple[int, ...]) -> list[compare.Row]:
    rows = []
    for k in kernel:
        runs = [sim.run(k.cell, s) for s in seeds]
        rows.append(compare.row(k, runs))
    return rows


def seed_list(seeds: tuple[int, ...]) -> str:
    """The seeds as written in the header: a run of consecutive seeds as its ends (\"1–24\")."""
    if len(seeds) > 2 and list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


def by_grid(rows: list[compare.Row]) -> tuple[list[compare.Row], list[compare.Row]]:
    """The Reno and CUBIC rows (the validation and wide grids) and the BBR rows (its own grid), counted apart."""
    return [r for r in rows if r.cell.cc != "bbr"], [r for r in rows if r.cell.cc == "bbr"]


def block(
    rows: list[compare.Row],
    kernel: list[rig.KernelCell],
    seeds: tuple[int, ...],
    share_rows: Sequence[shares.ShareRow] = (),
) -> str:
    """The text between the markers: header (grid, matching, pass rate), table, the shares' table, commands,
    diagnosis."""
    rows_all = rows
    rows, bbr = by_grid(rows_all)
    b_passed, b_total = compare.pass_rate(bbr)
    bbr_mptcp = [r for r in bbr if r.cell.proto == "mptcp"]
    passed, total = compare.pass_rate(rows)
    mptcp = [r for r in rows if r.cell.proto == "mptcp"]
    m_passed, m_total = compare.pass_rate(mptcp)
    f_passed, _ = compare.pass_rate(rows, strict=False)
    header = HEADER.read_text().format(
        stamp=stamp.line("make validate-linux"),
        kernels=", ".join(sorted({k.kernel for k in kernel})),
        runs=" / ".join(str(n) for n in sorted({k.cell.runs for k in kernel})),
        seeds=seed_list(seeds),
        tolerance_pct=compare.FCT_TOLERANCE * 100,
        passed=passed,
        total=total,
        pass_pct=100 * passed / max(total, 1),
        mptcp_passed=m_passed,
        mptcp_total=m_total,
        mptcp_pct=100 * m_passed / max(m_total, 1),
        fct_passed=f_passed,
        fct_pct=100 * f_passed / max(total, 1),
        share_within=sum(abs(r.share_diff) <= compare.SHARE_TOLERANCE for r in mptcp),
        cells=len(kernel),
        bbr_passed=b_passed,
        bbr_total=b_total,
        bbr_pct=100 * b_passed / max(b_total, 1),
        bbr_fct_passed=compare.pass_rate(bbr, strict=False)[0],
        bbr_mptcp_passed=compare.pass_rate(bbr_mptcp)[0],
        bbr_mptcp_total=len(bbr_mptcp),
        share_passed=sum(r.passed for r in share_rows),
        share_total=len(share_rows),
    )
    # (the rig call as shown, its delay line's statistics): the cells' calls without their protocols and sizes,
    # the shares' without the script they run.
    recorded = {k.command: (k.command.split(" --proto")[0], k.delay_line) for k in kernel} | {
        k.command: (k.command.split(" --exec")[0], k.delay_line) for k in (r.kernel for r in share_rows)
    }
    calls = "\n".join(f"    {c}" for c in recorded)
    quality = "\n".join(
        f"| `{shown.removeprefix('run.sh ')}` | {100 * rig.late_share(delay_line):.2f} % "
        f"| {delay_line.get('late_max_us', float('nan')) / 1e3:.1f} ms |"
        for shown, delay_line in recorded.values()
    )
    diagnosis = DIAGNOSIS.read_text() if DIAGNOSIS.exists() else ""
    return f"""{header}
{compare.table(rows_all)}
{shares.section(share_rows, seeds)}
Commands: `make validate-linux` (the mpsim side against the committed references
`validation/reference/linux-6.18.jsonl` and `linux-6.18-shares.jsonl`, seconds); `make validate-linux
LINUX_RERUN=1` (as root: the rig again, about an hour and a half for every cell and twenty minutes for the share
settings, then the comparison; `LINUX_ARGS=--shares` for the share settings alone). The rig calls behind the
references (in `../shared/tools/linux-rig/`):

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
    ap.add_argument("--share-reference", type=Path, default=SHARE_REFERENCE)
    ap.add_argument("--doc", type=Path, default=DOC)
    ap.add_argument("--rerun-rig", action="store_true", help="run the kernel side again (root; the Linux rig)")
    ap.add_argument(
        "--missing", action="store_true", help="with --rerun-rig: only the cells the reference does not have yet"
    )
    ap.add_argument("--record-only", action="store_true", help="with --rerun-rig: record, do not compare")
    ap.add_argument("--only", action="append", default=[], help="cells whose key contains this (repeatable)")
    ap.add_argument(
        "--shares",
        action="store_true",
        help="with --rerun-rig: only the share settings (two congestion controls on one bottleneck)",
    )
    ap.add_argument("--no-doc", action="store_true", help="compare and print only; leave docs/validation.md")
    ap.add_argument("--seeds", default=",".join(map(str, sim.DEFAULT_SEEDS)), help="mpsim seeds, comma list")
    args = ap.parse_args(argv)
    seeds = tuple(int(s) for s in args.seeds.split(","))
    if args.rerun_rig:
        wanted = [] if args.shares else _selected(grid(), args.only)
        wanted_shares = [s for s in shares.share_grid() if _wanted(s.key, args.only)]
        if args.missing:
            have = {k.cell.key for k in rig.read_reference(args.reference)} if args.reference.exists() else set()
            wanted = [c for c in wanted if c.key not in have]
            have_shares = (
                {k.setting.key for k in shares.read_reference(args.share_reference)}
                if args.share_reference.exists()
                else set()
            )
            wanted_shares = [s for s in wanted_shares if s.key not in have_shares]
        # Each rig call's cells are written as soon as it ends: an interrupted recording keeps what it did.
        for fresh in rig.run_groups(wanted) if wanted else ():
            old = rig.read_reference(args.reference) if args.reference.exists() else []
            rig.write_reference(args.reference, rig.merge(old, fresh))
        if wanted_shares:
            shares.record(args.share_reference, wanted_shares)
        if args.record_only:
            return 0
    kernel = [k for k in rig.read_reference(args.reference) if _wanted(k.cell.key, args.only)]
    kernel_shares = [k for k in shares.read_reference(args.share_reference) if _wanted(k.setting.key, args.only)]
    rows = compare_all(kernel, seeds)
    share_rows = shares.compare_all(kernel_shares, seeds)
    if not args.no_doc:
        compare.write_block(args.doc, block(rows, kernel, seeds, share_rows))
    for r in rows:
        share = f", share {r.sim_share.mean:.2f} vs {r.kernel_share.mean:.2f}" if r.cell.proto == "mptcp" else ""
        print(
            f"{'PASS' if r.passed else 'MISS'} {r.cell.key}: FCT {r.fct_diff * 100:+.1f} %, retrans "
            f"{r.sim_retrans.mean:.0f} vs {r.kernel_retrans.mean:.1f} (± {r.retrans_tolerance:.1f}){share}",
            file=sys.stderr,
        )
    for sr in share_rows:
        print(shares.summary_line(sr), file=sys.stderr)
    for label, part in zip(("Reno/CUBIC", "BBR"), by_grid(rows), strict=True):
        if not part:
            continue
        passed, total = compare.pass_rate(part)
        m_passed, m_total = compare.pass_rate([r for r in part if r.cell.proto == "mptcp"])
        print(
            f"{label}: {passed}/{total} cells pass strictly ({m_passed}/{m_total} MPTCP); "
            f"{compare.pass_rate(part, strict=False)[0]}/{total} on completion time alone",
            file=sys.stderr,
        )
    if share_rows:
        print(
            f"Shares: {sum(r.passed for r in share_rows)}/{len(share_rows)} settings within "
            f"{shares.SHARE_TOLERANCE:g} of the kernel's mean share (whole run and from {shares.LATE_FROM_S:g} s)",
            file=sys.stderr,
        )
    print(f"-> {args.doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
