"""The experiment catalogue: every experiment runs in quick mode and produces its table and figure."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import mpsim
from mpsim.experiments import CATALOGUE, VARIANTS, get
from mpsim.experiments.reproduce import reproduce
from mpsim.store import RunStore


def same(a: object, b: object) -> bool:
    """Tables equal row by row, NaN equal to NaN (``Table.equals`` treats NaN as unequal)."""
    return repr(a.to_pylist()) == repr(b.to_pylist())  # type: ignore[attr-defined]


REQUIRED = ("experiment", "variant", "x_name", "x", "run", "seed", "fct_s", "retransmissions", "rto_count")


@pytest.mark.parametrize("name", [n for n, e in CATALOGUE.items() if e.extract is None])
def test_every_experiment_reproduces_in_quick_mode(name: str, tmp_path: Path) -> None:
    exp = get(name)
    result = reproduce(name, tmp_path, quick=True, jobs=2, progress=False)
    directory = tmp_path / name
    for f in ("results.parquet", "results.csv", "figure.png", "figure.svg"):
        assert (directory / f).stat().st_size > 0, f
    table = pq.read_table(directory / "results.parquet")
    assert table.num_rows == len(exp.quick_x_values) * len(exp.variants) * exp.quick_runs
    for column in (*REQUIRED, "sum_cwnd_pkts", *(p.metric for p in exp.panels)):
        assert column in table.column_names, column
    assert set(table.column("variant").to_pylist()) == set(exp.variants)
    assert same(table, result.table)
    rows = table.to_pylist()
    if exp.measures == "rates":
        # Long-lived flows: every run reports its rates.
        assert all(not math.isnan(r[p.metric]) for r in rows for p in exp.panels), rows
        return
    assert set(exp.variants) >= {"mptcp", "lisa", "css", "gsam"}
    # A run that did not finish is counted, never averaged silently.
    finished = [r for r in rows if r["incomplete"] == 0]
    assert all(not math.isnan(r["fct_s"]) for r in finished)
    assert len(finished) == len(rows), f"{len(rows) - len(finished)} runs did not complete"


def test_every_run_of_every_experiment_is_a_valid_scenario() -> None:
    """Every experiment builds its runs with the public model: each is an :class:`mpsim.Scenario` that passes
    the model's checks and the core's, and its core configuration is the one the experiment runs."""
    for exp in CATALOGUE.values():
        for x in dict.fromkeys(exp.x_values + exp.quick_x_values):
            for variant in exp.variants:
                scenario = exp.scenario(x, variant, 1)
                assert isinstance(scenario, mpsim.Scenario), exp.name
                scenario.check()
                assert exp.build(x, variant, 1) == scenario.to_core()


def test_variants_share_their_random_draws() -> None:
    exp = get("css-shared-filesize")
    starts = set()
    for variant in VARIANTS:
        cfg = exp.build(400, variant, 3)
        (flow,) = [f for k in ("tcp_flows", "mptcp_connections") for f in cfg.get(k, []) if f["name"] == "measured"]
        starts.add(flow["start_ns"])
    assert len(starts) == 1
    assert (
        exp.build(400, "css", 3)["mptcp_connections"][0]["start_ns"]
        != exp.build(400, "css", 4)["mptcp_connections"][0]["start_ns"]
    )


def test_a_reproduction_resumes_without_running_anything_twice(tmp_path: Path) -> None:
    first = reproduce("css-shared-filesize", tmp_path, quick=True, runs=1, jobs=1, progress=False)
    store = RunStore(tmp_path / "css-shared-filesize" / "store")
    stamps = {p.name: p.stat().st_mtime_ns for p in store.files()}
    second = reproduce("css-shared-filesize", tmp_path, quick=True, runs=1, jobs=1, progress=False)
    assert {p.name: p.stat().st_mtime_ns for p in store.files()} == stamps
    assert same(first.table, second.table)


def test_a_run_file_left_unreadable_by_a_crash_is_run_again(tmp_path: Path) -> None:
    first = reproduce("css-shared-filesize", tmp_path, quick=True, runs=1, jobs=1, progress=False)
    store = RunStore(tmp_path / "css-shared-filesize" / "store")
    victim = store.files()[0]
    victim.write_bytes(b"PAR1 torn")  # what an operating-system crash can leave behind
    others = {p.name: p.stat().st_mtime_ns for p in store.files() if p != victim}
    second = reproduce("css-shared-filesize", tmp_path, quick=True, runs=1, jobs=1, progress=False)
    assert pq.read_metadata(victim).num_rows == 1
    assert {p.name: p.stat().st_mtime_ns for p in store.files() if p != victim} == others
    assert same(first.table, second.table)


def test_the_experiments_command_shows_every_name_and_figure_whole_on_a_narrow_terminal() -> None:
    """`mpsim experiments` on an 80-column terminal: each paper's heading, then each name, which `mpsim
    reproduce` takes, whole at the start of its line with its figure ("Fig. 3 (a, b)"), its description wrapped
    below; no line wider than the terminal."""
    env = {**os.environ, "COLUMNS": "80"}
    proc = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", "experiments"], capture_output=True, text=True, timeout=60, env=env
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    names = {line.split()[0] for line in lines if line.startswith("  ") and not line.startswith("   ")}
    assert set(CATALOGUE) <= names
    assert "  css-shared-filesize     Fig. 3 (a, b), §IV-B" in lines
    headings = [line for line in lines if line and not line.startswith(" ")]
    assert [h.split(":")[0] for h in headings] == list(dict.fromkeys(e.paper.split(":")[0] for e in CATALOGUE.values()))
    assert len(headings) == 5
    description = [line for line in lines if line.startswith("      ")]
    # Wrapped at the terminal's width, not in a narrow column: about ten words a line.
    assert sum(len(line.split()) for line in description) / len(description) > 8


def test_a_configuration_shared_by_every_x_is_reported_at_each_x(tmp_path: Path) -> None:
    """`tcp` in `gsam-subflows-b20` does not depend on the number of subflows, so its configuration (and its
    run in the store) is the same at every x; the table still has one row per x and run, each at its own x."""
    e = get("gsam-subflows-b20")
    table = reproduce(e.name, tmp_path, quick=True, progress=False).table.to_pylist()
    tcp = [(r["x"], r["run"]) for r in table if r["variant"] == "tcp"]
    runs = range(1, e.quick_runs + 1)
    assert sorted(tcp) == sorted((x, run) for x in e.quick_x_values for run in runs)
    assert len({r["fct_s"] for r in table if r["variant"] == "tcp" and r["run"] == 1}) == 1
