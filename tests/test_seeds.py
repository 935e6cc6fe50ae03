"""Seeds that change nothing: a sweep (and ``mpsim plot`` of it) whose seeds gave identical results at some
points says where and why, records n_seeds and n_distinct with every row, and its figures draw those points
from one seed (n = 1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.csv as pacsv

import mpsim
from mpsim.store import RunStore, identical_seed_points, one_seed_where_identical
from mpsim.sweep import random_elements

ROOT = Path(__file__).resolve().parents[1]

SWEEP = """
seeds = [1, 2, 3]
[base]
duration = "2s"
hosts = ["A", "B"]
links = [{{ from = "A", to = "B", rate = "10Mbps", delay = "10ms", buffer = "50pkt" }}]
flows = [{{ name = "bulk", type = "tcp", src = "A", dst = "B"{start} }}]
[axes]
"links.0.loss" = {losses}
"""


def mpsim_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpsim.cli", *args], capture_output=True, text=True, timeout=300)


def sweep(tmp_path: Path, losses: str, start: str = "") -> tuple[subprocess.CompletedProcess[str], Path]:
    file = tmp_path / "sweep.toml"
    file.write_text(SWEEP.format(losses=losses, start=start))
    out = tmp_path / "out"
    return mpsim_cli("sweep", str(file), "--out", str(out), "--jobs", "1", "--no-progress"), out


def test_a_sweep_says_where_its_seeds_gave_identical_results_and_why(tmp_path: Path) -> None:
    done, out = sweep(tmp_path, '["0%", "1%"]')
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(
        "warning: at 1 of 2 points the 3 seeds gave identical results (base, links.0.loss = '0%'): the scenario "
        "has no random element (fixed start times, no random loss, no random traffic). Each such point holds one "
        "value (n = 1; n_distinct = 1 in results.csv)"
    )
    assert 'random start (start = { uniform = ["0s", "1s"] })' in done.stderr
    assert "docs/scenarios.md, Seeds and randomness" in done.stderr
    rows = pacsv.read_csv(out / "results.csv").to_pylist()
    # Without loss every seed runs the same; 1 % random loss draws a different run from each seed.
    assert {(r["links.0.loss"], r["n_seeds"], r["n_distinct"]) for r in rows} == {("0%", 3, 1), ("1%", 3, 3)}


def test_random_elements_that_changed_nothing_are_named(tmp_path: Path) -> None:
    # One loss in a million packets: none is lost in 2 s at 10 Mbit/s, whatever the seed, most likely.
    done, _ = sweep(tmp_path, '["0.0001%"]')
    assert done.returncode == 0, done.stderr
    assert (
        "warning: at every point the 3 seeds gave identical results (base, links.0.loss = '0.0001%'): its random "
        "elements (random loss on A-B, random loss on B-A) changed nothing there." in done.stderr
    )


def test_a_random_start_gives_each_seed_its_run_and_no_warning(tmp_path: Path) -> None:
    done, out = sweep(tmp_path, '["0%"]', start=', start = { uniform = ["0s", "100ms"] }')
    assert done.returncode == 0, done.stderr
    assert "identical" not in done.stderr
    rows = pacsv.read_csv(out / "results.csv").to_pylist()
    assert {(r["n_seeds"], r["n_distinct"]) for r in rows} == {(3, 3)}


def test_plot_says_so_and_draws_identical_seeds_as_one_value(tmp_path: Path) -> None:
    done, out = sweep(tmp_path, '["0%", "1%"]')
    assert done.returncode == 0, done.stderr
    table = RunStore(out).results()
    assert identical_seed_points(table, ["links.0.loss"]) == ["base, links.0.loss = '0%'"]
    kept = one_seed_where_identical(table, ["links.0.loss"]).to_pylist()
    assert sorted((r["links.0.loss"], r["seed"]) for r in kept) == [("0%", 1), ("1%", 1), ("1%", 2), ("1%", 3)]
    plotted = mpsim_cli("plot", str(out))
    assert plotted.returncode == 0, plotted.stderr
    assert plotted.stderr.startswith(
        "warning: at 1 of 2 points the 3 seeds gave identical results (base, links.0.loss = '0%'), as a scenario "
        "without a random element does; the figures draw them as n = 1."
    )
    assert (out / "plots" / "bulk-goodput_mbps.png").is_file()


def test_every_kind_of_random_element_is_found() -> None:
    scenario = mpsim.Scenario.from_toml(ROOT / "examples" / "custom_network.toml")
    assert random_elements(scenario) == [
        "random loss on S-W",
        "random loss on S-L",
        "random loss on L-S",
        "RED drops on W-R",
        "RED drops on R-W",
        "random on/off periods of burst",
        "random gaps of the sequence web",
    ]
    css = mpsim.Scenario.from_toml(ROOT / "examples" / "css_shared_bottleneck.toml")
    # The `linux` profile's MPTCP receiver samples its RTT on a millisecond clock whose phase the seed draws.
    assert random_elements(css) == ["random start of short", "the receiver's timestamp clock of short"]
    for flow in css.flows:
        if flow.name == "short":
            flow.rcv_buffer = "4MB"  # a buffer set by hand: no autotuning, no clock
    assert random_elements(css) == ["random start of short"]
    jittery = mpsim.Scenario.from_dict(
        {
            "duration": "1s",
            "hosts": ["A", "B"],
            "links": [{"from": "A", "to": "B", "rate": "10Mbps", "jitter": "50us"}],
            "flows": [{"name": "f", "type": "tcp", "src": "A", "dst": "B", "size": "1MB"}],
        }
    )
    assert random_elements(jittery) == ["jitter on A-B", "jitter on B-A"]
