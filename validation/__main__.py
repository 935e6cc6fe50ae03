"""``python -m validation ns3 [--rerun] [--traces] [--only TEXT] [--tcp KEY=VALUE ...]``: the ns-3.44 comparison.

Runs every scenario of the grid in mpsim (seconds), compares with the committed ns-3.44 reference
(``validation/reference/ns3-3.44.jsonl``) and writes the table into docs/validation.md between its ns-3
markers. ``--rerun`` first runs ns-3 itself again (in ``validation/.venv-ns3``, 2–5 minutes on 2 cores) and rewrites
the reference; ``--traces`` also writes ns-3's per-scenario traces of the measured flow to
``validation/traces/`` (git-ignored). ``--tcp recovery=sack`` (a value is read as JSON when it parses, else
as a string) adds a TCP option to every mpsim flow: a what-if, printed and never written to the docs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from validation import compare, mpsim_side, stamp
from validation.scenarios import grid

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "validation" / "reference" / "ns3-3.44.jsonl"
NS3_PYTHON = ROOT / "validation" / ".venv-ns3" / "bin" / "python"
TRACES = ROOT / "validation" / "traces"
DOC = ROOT / "docs" / "validation.md"
NOTES = ROOT / "validation" / "ns3-notes.md"
RESULTS = ROOT / "validation" / "out" / "ns3-comparison.jsonl"

COMMANDS = """\
```sh
make validate-ns3                 # mpsim side only (seconds), against the committed ns-3 reference
make validate-ns3 NS3_RERUN=1     # runs ns-3.44 again too (2–5 min) and rewrites the reference
make validate-ns3 NS3_TRACES=1    # with NS3_RERUN=1: ns-3 traces of every row in validation/traces/
```
"""


def run_ns3(traces: bool, only: str) -> None:
    if not NS3_PYTHON.exists():
        raise SystemExit(f"{NS3_PYTHON} not found: `make validate-ns3 NS3_RERUN=1` creates it")
    cmd = [str(NS3_PYTHON), "-m", "validation.ns3_side", "--out", str(REFERENCE), "--only", only]
    if traces:
        cmd += ["--traces", str(TRACES)]
    subprocess.run(cmd, check=True, cwd=ROOT)


def tcp_override(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` with a JSON value (``sack=false``, ``initial_cwnd=4``) or a plain string (``recovery=sack``)."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--tcp: expected KEY=VALUE, got '{text}'")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m validation", description=__doc__.splitlines()[0])
    parser.add_argument("target", choices=["ns3"])
    parser.add_argument("--rerun", action="store_true", help="run ns-3.44 again and rewrite the reference")
    parser.add_argument("--traces", action="store_true", help="with --rerun: write ns-3 traces")
    parser.add_argument("--only", default="", help="only scenarios whose name contains this (no doc update)")
    parser.add_argument(
        "--tcp", type=tcp_override, action="append", default=[], help="KEY=VALUE: a TCP option for every mpsim flow"
    )
    args = parser.parse_args(argv)

    if args.rerun or not REFERENCE.exists():
        run_ns3(args.traces, args.only)
    t0 = time.monotonic()
    scenarios = [s for s in grid() if args.only in s.name]
    overrides = dict(args.tcp)
    mpsim_rows = [mpsim_side.run(s, overrides) for s in scenarios]
    elapsed = time.monotonic() - t0
    comparisons = compare.compare(compare.read_reference(REFERENCE), mpsim_rows)

    if not overrides:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        with RESULTS.open("w") as f:
            for c in comparisons:
                f.write(json.dumps({"name": c.name, "ns3": c.ns3, "mpsim": c.mpsim, "passed": c.passed}) + "\n")
    summary = compare.summary_table(comparisons)
    print(f"mpsim ran {len(scenarios)} scenarios in {elapsed:.1f} s")
    print(summary)
    if args.only or overrides:
        print(compare.table(comparisons))
        return 0
    notes = NOTES.read_text()
    if "{stamp}" not in notes:
        raise SystemExit(f"{NOTES.relative_to(ROOT)}: no {{stamp}} placeholder for the engine's identity")
    block = (
        notes.replace("{stamp}", stamp.line("make validate-ns3"))
        + "\n### Pass rate\n\nA row passes when mpsim's completion time is within ±5 % of ns-3's and its "
        "retransmissions within ±10 % (±1 segment when ns-3 has fewer than 10). Groups: `db-` dumbbell by "
        "variant and by phase, `pl-` parking lot by variant.\n\n"
        + summary
        + "\n### Commands\n\n"
        + COMMANDS
        + "\n### Every row\n\nΔFCT is (mpsim − ns-3) / ns-3; retx are data segments sent again; RTO counts "
        "retransmission timeouts, FR fast-recovery episodes; cwnd is the window the last ACK finds; bg is the "
        "background TCP flow's cwnd / ssthresh (packets) when the measured flow starts.\n\n"
        + compare.table(comparisons)
    )
    document = DOC.read_text() if DOC.exists() else f"# Validation\n\n{compare.BEGIN}\n{compare.END}\n"
    DOC.write_text(compare.replace_block(document, block))
    print(f"wrote {DOC.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
