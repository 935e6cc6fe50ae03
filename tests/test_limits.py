"""Bounded runs: the cost estimate and its refusals, the limits while running, Ctrl-C, wall-time limits,
and sweeps whose workers die with their parent."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import mpsim
from mpsim import ConfigError, ScenarioError, TimeLimitError
from mpsim.engine import estimate_config, run_config
from mpsim.store import RunStore
from mpsim.sweep import Point, SweepFailed, flow_metrics, run_points

MB = 10**6


def dumbbell(**extra: Any) -> dict[str, Any]:
    """One sender and receiver across the preset dumbbell (3 links each way: S1-R1, R1-R2, R2-D1)."""
    return {"duration": "2s", "topology": {"preset": "dumbbell", "pairs": 1}, **extra}


def tcp(name: str = "a", **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": "tcp", "src": "S1", "dst": "D1", **extra}


def udp(**extra: Any) -> dict[str, Any]:
    return {"name": "u", "type": "udp", "src": "S1", "dst": "D1", **extra}


def refusal(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as info:
        mpsim.Scenario.from_dict(data)
    return str(info.value)


# ---------------------------------------------------------------------------------------------- estimate


def test_udp_source_estimate_is_its_packets_on_every_link_of_its_route() -> None:
    # 1 Mbit/s of 1000-byte packets for 2 s: 250 packets, each waking its source once and costing one
    # event (its arrival) on each of the 3 drop-tail links of its route: 250 * (1 + 3) = 1000 events.
    scenario = mpsim.Scenario.from_dict(dumbbell(flows=[udp(rate="1Mbps", packet_size="1000B")]))
    events, rows = estimate_config(scenario.to_core())
    assert events == pytest.approx(1000)
    assert rows == 0


def test_the_estimate_bounds_the_benchmark_runs_within_a_factor_of_two() -> None:
    from mpsim.bench import dumbbell_config

    cfg = dumbbell_config(20)
    events, _ = estimate_config(cfg)
    actual = run_config(cfg).events_processed
    assert actual <= events <= 2 * actual


@pytest.mark.parametrize(
    ("data", "message"),
    [
        # Reproducers of hangs: the estimate names its parts.
        (
            dumbbell(flows=[udp(rate="1Mbps", pattern="on_off", on="1ns", off="1ns")], duration="10s"),
            # Period ends every 1 ns on average over 10 s: 10^10 wake-ups.
            "at sources and timers",
        ),
        (
            dumbbell(
                duration="13s",
                topology={"preset": "dumbbell", "pairs": 1, "access": "40Gbps", "bottleneck": "40Gbps"},
                flows=[udp(rate="40Gbps", packet_size="1B")],
            ),
            # 5 * 10^9 packets/s for 13 s, one wake-up each and an arrival on each of 3 drop-tail links.
            "the run is estimated at 2.600e11 events (1.950e11 on links, 6.500e10 at sources and timers",
        ),
        (
            dumbbell(duration="8s", flows=[tcp()], trace={"queues": ["R1-R2"], "queue_interval": "1ns"}),
            # One sample per ns for 8 s.
            "8.000e9 sampling and scheduled changes",
        ),
        (dumbbell(duration="1e9s", flows=[tcp()]), "for 1000000000.000 s simulated, above the limit of 1000000000"),
    ],
)
def test_runs_estimated_above_the_event_limit_are_refused_with_the_estimate(data: dict[str, Any], message: str) -> None:
    text = refusal(data)
    assert text.startswith("limits.max_events: the run is estimated at ")
    assert message in text
    assert text.endswith("shorten the duration, lower the rates or raise limits.max_events")
    assert "\n" not in text


def test_on_off_periods_of_one_nanosecond_are_estimated_at_two_wake_ups_per_period_drawn() -> None:
    data = dumbbell(flows=[udp(rate="1Mbps", pattern="on_off", on="1ns", off="1ns")], duration="10s")
    data["limits"] = {"max_events": 10**12}
    events, _ = estimate_config(mpsim.Scenario.from_dict(data).to_core())
    # Periods drawn with a mean of 1 ns last exp(-1/2) ns on average once rounded to whole ns (those under
    # 1/2 ns last none): 10 s / (2 exp(-1/2) ns) cycles of two wake-ups each.
    assert events == pytest.approx(1e10 / math.exp(-0.5), rel=1e-3)


def on_off(shape: float | None, period: str, duration: str) -> dict[str, Any]:
    flow = udp(rate="1Mbps", pattern="on_off", on=period, off=period)
    if shape is not None:
        flow["pareto_shape"] = shape
    return dumbbell(flows=[flow], duration=duration)


def test_pareto_periods_of_a_shape_near_one_are_estimated_by_the_short_periods_that_make_most_of_them() -> None:
    # Shape 1.01: the mean of 1 ns is made by rare periods far longer than the run; most last under 1/2 ns.
    # P(X > x) = (m/x)^a with the scale m = mean (a - 1)/a; a period lasts on average the integral of that from
    # 1/2 ns (shorter ones round to none) to the run's 10 s, and each on/off cycle of two periods wakes twice.
    a, m, low, run = 1.01, 1.0 * 0.01 / 1.01, 0.5, 1e10
    drawn = m * (m / low) ** (a - 1) * (1 - (low / run) ** (a - 1)) / (a - 1)
    data = on_off(1.01, "1ns", "10s")
    data["limits"] = {"max_events": 10**12}
    events, _ = estimate_config(mpsim.Scenario.from_dict(data).to_core())
    assert events == pytest.approx(run / drawn, rel=1e-3)
    text = refusal(on_off(1.01, "1ns", "10s"))
    # The message writes the count as the core does: four significant digits, 4.974e10.
    assert f"at {run / drawn:.3e}".replace("e+", "e") in text, text
    assert "at sources and timers" in text
    exponential, _ = estimate_config(mpsim.Scenario.from_dict({**on_off(None, "1us", "1s")}).to_core())
    pareto, _ = estimate_config(mpsim.Scenario.from_dict({**on_off(1.01, "1us", "1s")}).to_core())
    assert pareto > 4 * exponential


@pytest.mark.parametrize(
    ("shape", "period"), [(1.01, "10us"), (1.05, "1us"), (1.5, "1us"), (2.5, "100us"), (None, "1us"), (None, "10us")]
)
def test_the_on_off_estimate_is_never_far_below_what_the_run_does(shape: float | None, period: str) -> None:
    data = on_off(shape, period, "10ms")
    events, _ = estimate_config(mpsim.Scenario.from_dict(data).to_core())
    # (Packets dropped at the bottleneck are priced on no link, those before it on every link: a little low.)
    assert mpsim.run(data).events_processed <= 1.25 * events


def test_building_many_copies_of_a_connection_of_many_subflows_is_in_the_estimate() -> None:
    # 5 000 connections of 8 subflows: 40 000 subflows built, each costing as much as 250 events.
    flow = {"name": "m", "type": "mptcp", "src": "S1", "dst": "D1", "subflows": 8, "copies": 5000, "size": "10KB"}
    text = refusal(dumbbell(flows=[flow], limits={"max_events": 5_000_000}))
    assert text.startswith("limits.max_events: the run is estimated at 1."), text
    assert "1.000e7 building flows and subflows" in text


def test_raising_the_limit_admits_the_run_and_the_trace_limit_is_checked_too() -> None:
    data = dumbbell(flows=[tcp(size="100pkt")], trace={"queues": ["R1-R2"], "queue_interval": "100us"})
    text = refusal({**data, "limits": {"max_trace_rows": 1000}})
    # 2 s sampled every 100 us: 20 001 samples of one queue.
    assert text.startswith("limits.max_trace_rows: the traces are estimated at 20001 rows, above the limit of 1000")
    res = mpsim.run(mpsim.Scenario.from_dict({**data, "limits": {"max_trace_rows": 20_001}}))
    assert 0 < res.queue_traces.num_rows <= 20_001


def test_a_sample_interval_without_traced_queues_schedules_no_sampling() -> None:
    plain = mpsim.run(dumbbell(flows=[tcp(size="100pkt")]))
    sampled = mpsim.run(dumbbell(flows=[tcp(size="100pkt")], trace={"queue_interval": "1us"}))
    assert sampled.events_processed == plain.events_processed


def test_limits_must_be_positive_whole_numbers() -> None:
    assert refusal(dumbbell(flows=[tcp()], limits={"max_events": 0})) == "limits.max_events: must be >= 1, got 0"
    assert refusal(dumbbell(flows=[tcp()], limits={"max_trace_rows": "many"})) == (
        "limits.max_trace_rows: expected a whole number, got 'many'"
    )
    assert refusal(dumbbell(flows=[tcp()], limits={"max_event": 5})).startswith(
        "limits.max_event: unknown field 'max_event'; did you mean 'max_events'?"
    )


# ---------------------------------------------------------------------------------------------- stopping


LONG = """\
duration = "100000s"
[topology]
preset = "dumbbell"
pairs = 2
[[flows]]
name = "a"
type = "tcp"
src = "S1"
dst = "D1"
[limits]
max_events = 100000000000
"""


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mpsim_cli(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mpsim.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigint_stops_a_long_run_with_status_130_within_two_seconds(tmp_path: Path) -> None:
    (tmp_path / "long.toml").write_text(LONG)
    proc = mpsim_cli("run", str(tmp_path / "long.toml"))
    try:
        # Well into the run: the imports take under two seconds of CPU, the run would take hours.
        while cpu_seconds(proc.pid) < 3 and proc.poll() is None:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=2)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130
    assert out == ""
    assert err.strip() == "error: interrupted (Ctrl-C); finished results are kept, nothing is left half-written"


def test_a_run_past_its_time_limit_exits_124_saying_how_far_it_came(tmp_path: Path) -> None:
    (tmp_path / "long.toml").write_text(LONG)
    proc = mpsim_cli("run", str(tmp_path / "long.toml"), "--time-limit", "0.5s")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 124
    assert out == ""
    assert re.fullmatch(
        r"error: stopped by the time limit of 0\.5 s at [\d.]+ s of 100000\.000 s simulated, "
        r"after \d+ events \(--time-limit\)\n",
        err,
    )


def test_time_limit_in_python_raises_and_bad_limits_are_named() -> None:
    s = mpsim.Scenario.from_dict(dumbbell(duration="100000s", flows=[tcp()], limits={"max_events": 10**11}))
    with pytest.raises(TimeLimitError, match=r"^stopped by the time limit of 0\.2 s at "):
        mpsim.run(s, time_limit=0.2)
    with pytest.raises(ConfigError, match=r"^time_limit: must be a positive number of seconds below 1e9, got -1"):
        mpsim.run(s, time_limit=-1)
    with pytest.raises(TypeError, match=r"^time_limit: expected a number of seconds, got '5s'"):
        mpsim.run(s, time_limit="5s")  # type: ignore[arg-type]


def test_a_sweep_records_a_timed_out_run_and_stores_the_others(tmp_path: Path) -> None:
    short = mpsim.Scenario.from_dict(dumbbell(flows=[tcp(size="100pkt")])).to_core()
    long = mpsim.Scenario.from_dict(dumbbell(duration="100000s", flows=[tcp()], limits={"max_events": 10**11}))
    points = [(Point("base", {"size": "short"}, 1), short), (Point("base", {"size": "long"}, 1), long.to_core())]
    out = tmp_path / "out"
    with pytest.raises(SweepFailed) as info:
        run_points(
            points, out, axes=["size"], variants=["base"], extract=flow_metrics, jobs=1, progress=False, time_limit=0.3
        )
    first, *rest = str(info.value).splitlines()
    assert first == (
        f"0 run(s) failed and 1 passed the time limit; the others are stored in {out} "
        f"(timed-out runs in {out / 'timed_out'}):"
    )
    assert len(rest) == 1 and rest[0].startswith("timed out: Point(variant='base', axes={'size': 'long'}, seed=1): ")
    store = RunStore(out)
    assert len(store.done()) == 1
    [record] = store.timed_out()
    assert record["axes"] == {"size": "long"} and record["time_limit_s"] == 0.3
    assert record["stopped"].startswith("stopped by the time limit of 0.3 s at ")


# ---------------------------------------------------------------------------------------------- orphans


def session_members(sid: int) -> list[int]:
    """Live processes of a session (zombies excluded)."""
    members = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            members.append(int(d.name))
    return members


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal and /proc")
@pytest.mark.timeout(120)
def test_sigkill_on_a_sweep_leaves_no_worker_behind(tmp_path: Path) -> None:
    base = tmp_path / "base.toml"
    # Runs of a few tenths of a second each (a long flow at 100 Mbit/s for 20 s): the sweep cannot end
    # before it is killed.
    base.write_text(
        'duration = "20s"\n[topology]\npreset = "dumbbell"\npairs = 1\nbottleneck = "100Mbps"\n'
        '[[flows]]\nname = "a"\ntype = "tcp"\nsrc = "S1"\ndst = "D1"\n'
    )
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('base = "base.toml"\nruns = 100\n[axes]\n"flows.a.cc" = ["reno", "cubic"]\n')
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "mpsim.cli", "sweep", str(sweep), "--out", str(out), "--jobs", "2", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    store = RunStore(out)
    try:
        # Both workers have stored runs: the pool is up and busy.
        while len(store.files()) < 2 and proc.poll() is None:
            time.sleep(0.05)
        assert len(session_members(proc.pid)) >= 3  # the sweep and its two workers at least
        os.kill(proc.pid, signal.SIGKILL)  # the parent only, not its process group
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while session_members(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = session_members(proc.pid)
    finally:
        for pid in session_members(proc.pid):
            os.kill(pid, signal.SIGKILL)
    assert left == []
    # What was stored is whole.
    assert all(store.read(p.stem).num_rows == 1 for p in store.files())
