"""What a run reports of its progress: the simulated time reached, at every pause of the engine's loop
(every 65 536 events) and at the end, to a callback that the CLI turns into a progress bar on stderr."""

from __future__ import annotations

import io
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

import mpsim
from mpsim.commands.run import RunProgress

ROOT = Path(__file__).resolve().parents[1]
CSS = ROOT / "examples" / "css_shared_bottleneck.toml"
# A run of more than one pause of the loop to its stop time: 10 s of MPTCP over two paths.
LONG = ROOT / "examples" / "wifi_lte.toml"
CHECK_EVERY_EVENTS = 1 << 16


def test_the_callback_sees_non_decreasing_simulated_times_ending_at_the_stop_time() -> None:
    calls: list[tuple[int, int]] = []
    res = mpsim.run(LONG, progress=lambda now, stop: calls.append((now, stop)))
    stop = mpsim.load(LONG).to_core()["stop_time_ns"]
    assert stop == 10 * 10**9
    # One call per pause of the loop, one at the end.
    assert len(calls) == res.events_processed // CHECK_EVERY_EVENTS + 1 >= 2
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(calls))
    assert all(s == stop for _, s in calls) and calls[-1] == (stop, stop) and calls[0][0] < stop
    # Watching changes nothing of the run.
    assert res.flows.equals(mpsim.run(LONG).flows)


def test_an_exception_in_the_callback_stops_the_run_and_is_raised() -> None:
    seen: list[int] = []

    def give_up(now: int, stop: int) -> None:
        seen.append(now)
        raise ValueError("enough")

    with pytest.raises(ValueError, match="enough"):
        mpsim.run(CSS, progress=give_up)
    assert len(seen) == 1  # the engine stopped at the pause that raised
    with pytest.raises(TypeError, match="progress: expected a function"):
        mpsim.run(CSS, progress=3)  # type: ignore[arg-type]


def test_the_bar_is_drawn_only_on_a_terminal_and_only_after_its_delay() -> None:
    assert RunProgress("x", console=Console(file=io.StringIO())).callback is None
    terminal = Console(file=io.StringIO(), force_terminal=True)
    with RunProgress("x", after_s=3600, console=terminal) as waiting:
        assert waiting.callback is not None
        waiting.update(1, 10)
        assert waiting.bar is None  # a short run draws nothing
    with RunProgress("x", after_s=0, console=terminal) as drawn:
        drawn.update(5 * 10**9, 20 * 10**9)
        drawn.update(20 * 10**9, 20 * 10**9)
        (task,) = drawn.bar.tasks
        assert (task.completed, task.total) == (20.0, 20.0)


def test_json_on_stdout_stays_json_when_stderr_is_a_pipe() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", "run", str(CSS), "-f", "json", "--table", "flows"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert {r["name"] for r in json.loads(done.stdout)} == {"short", "long"}
    assert done.stderr == ""
