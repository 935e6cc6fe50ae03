"""The windowed-throughput table from a scenario: bins asked for in TOML form, read back as Arrow."""

from __future__ import annotations

import pytest

import mpsim
from mpsim.errors import ScenarioError


def scenario(throughput: dict[str, object]) -> mpsim.Scenario:
    return mpsim.Scenario.from_dict(
        {
            "duration": "2s",
            "hosts": ["A", "B"],
            "links": [{"from": "A", "to": "B", "rate": "10Mbps", "delay": "7ms"}],
            # 1000 B every 1 ms: 100 000 B in every 100 ms.
            "flows": [{"type": "udp", "name": "u", "src": "A", "dst": "B", "rate": "8Mbps", "packet_size": "1000B"}],
            "throughput": throughput,
        }
    )


def test_a_constant_bit_rate_gives_rate_times_interval_in_every_bin() -> None:
    res = mpsim.run(scenario({"interval": "100ms", "start": "8.3ms", "end": "1.9083s"}))
    rows = res.throughput.to_pylist()
    assert len(rows) == 19
    assert [r["bin"] for r in rows] == list(range(19))
    assert rows[1]["start_ns"] == 108_300_000 and rows[1]["start_s"] == pytest.approx(0.1083)
    assert all(r["kind"] == "udp" and r["subflow"] is None for r in rows)
    assert all(r["bytes_sent"] == r["bytes_delivered"] == 100_000 for r in rows)
    assert all(r["delivered_bps"] == pytest.approx(8e6) for r in rows)


def test_no_throughput_asked_gives_an_empty_table() -> None:
    s = scenario({"interval": "1s"}).model_copy(update={"throughput": None})
    assert mpsim.run(s).throughput.num_rows == 0


def test_bins_beyond_the_run_are_refused_naming_the_field() -> None:
    with pytest.raises((ScenarioError, ValueError), match=r"throughput\.end"):
        mpsim.run(scenario({"interval": "1s", "end": "3s"}))


def test_the_bins_end_where_a_run_stopped_by_completion_ends() -> None:
    # A 100 kB transfer beside a 1 Mbit/s constant bit rate; the run stops when it completes, long before 2 s.
    res = mpsim.run(
        mpsim.Scenario.from_dict(
            {
                "duration": "2s",
                "stop_when_complete": ["t"],
                "hosts": ["A", "B"],
                "links": [{"from": "A", "to": "B", "rate": "10Mbps", "delay": "7ms"}],
                "flows": [
                    {"type": "udp", "name": "u", "src": "A", "dst": "B", "rate": "1Mbps", "packet_size": "1000B"},
                    {"type": "tcp", "name": "t", "src": "A", "dst": "B", "size": "100kB"},
                ],
                "throughput": {"interval": "100ms"},
            }
        )
    )
    end_s = res.end_time_s
    assert end_s < 1.0
    rows = [r for r in res.throughput.to_pylist() if r["flow"] == "u"]
    # Every bin up to the run's end and none beyond; the last one is cut there, and its rate is over the part
    # that was simulated: the constant bit rate's 125 000 B/s (±1 packet), not a fraction of it.
    assert len(rows) == int(end_s / 0.1) + 1
    last = rows[-1]
    assert last["end_s"] == pytest.approx(end_s)
    assert abs(last["bytes_sent"] - 125_000 * (last["end_s"] - last["start_s"])) <= 1000
