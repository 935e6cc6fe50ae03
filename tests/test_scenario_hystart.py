"""HyStart++ reaches the core from a scenario and changes how slow start ends."""

from __future__ import annotations

import tomllib

import mpsim

SCENARIO = """
seed = 1
duration = "8s"

[topology]
preset = "dumbbell"
bottleneck = "10Mbps"
delay = "25ms"
buffer = "2000pkt"

[[flows]]
name = "bulk"
type = "tcp"
src = "S1"
dst = "D1"
cc = "cubic"
tcp = { profile = "rfc", hystart = HYSTART }
"""


def _run(hystart: str) -> dict[str, object]:
    res = mpsim.run(mpsim.Scenario.from_dict(tomllib.loads(SCENARIO.replace("HYSTART", hystart))))
    (row,) = [r for r in res.raw["tcp_flows"] if r["name"] == "bulk"]
    return dict(row)


def test_hystart_leaves_slow_start_before_the_buffer_overflows() -> None:
    plain = _run("false")
    hystart = _run("true")
    assert plain["fast_recoveries"] > 0  # standard slow start overflows even a 2000-packet buffer
    assert hystart["retransmits_fast"] == 0 and hystart["rto_count"] == 0
    assert hystart["slow_start_exit_ns"] is not None
