"""Core features reach the core from a scenario file: subflow events and stop_when_complete."""

from __future__ import annotations

import tomllib

import mpsim

SCENARIO = """
duration = "30s"

[topology]
preset = "non_shared"
paths = 2
bottleneck = "10Mbps"
delay = "20ms"
buffer = "100pkt"

[[flows]]
name = "m"
type = "mptcp"
src = "S0.1"
dst = "D0"
size = "5MB"
cc = "uncoupled"
EVENTS
"""


def _run(events: str) -> dict[str, object]:
    res = mpsim.run(mpsim.Scenario.from_dict(tomllib.loads(SCENARIO.replace("EVENTS", events))))
    (conn,) = res.raw["mptcp_connections"]
    return dict(conn)


def test_a_path_added_at_one_second_carries_data_and_shortens_the_transfer() -> None:
    alone = _run("")
    added = _run('subflow_events = [{ at = "1s", action = "add", src = "S0.2", dst = "D0" }]')
    assert len(alone["subflows"]) == 1  # type: ignore[arg-type]
    second = added["subflows"][1]  # type: ignore[index]
    assert second["added_ns"] == 1_000_000_000
    assert second["bytes_received"] > 0
    assert added["fct_ns"] < alone["fct_ns"]  # type: ignore[operator]


def test_stop_when_complete_ends_the_run_with_the_named_flow() -> None:
    text = (
        SCENARIO.replace("EVENTS", "")
        + """
[[flows]]
name = "bulk"
type = "tcp"
src = "S0.2"
dst = "D0"
cc = "reno"
"""
    )
    data = tomllib.loads(text)
    full = mpsim.run(mpsim.Scenario.from_dict(data)).raw
    data["stop_when_complete"] = ["m"]
    early = mpsim.run(mpsim.Scenario.from_dict(data)).raw
    (m_full,) = full["mptcp_connections"]
    (m_early,) = early["mptcp_connections"]
    assert early["end_time_ns"] == m_full["completed_ns"] < full["end_time_ns"]
    assert m_early == m_full
    data["stop_when_complete"] = ["nope"]
    try:
        mpsim.Scenario.from_dict(data)
    except mpsim.ConfigError as e:
        assert "stop_when_complete[0]: unknown flow or connection 'nope'" in str(e)
    else:
        raise AssertionError("an unknown name must be rejected")
