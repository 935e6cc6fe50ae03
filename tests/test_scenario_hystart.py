"""HyStart++ and Linux CUBIC's HyStart reach the core from a scenario and change how slow start ends."""

from __future__ import annotations

import tomllib

import pytest

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
tcp = { TCP }
"""


def _scenario(tcp: str) -> mpsim.Scenario:
    return mpsim.Scenario.from_dict(tomllib.loads(SCENARIO.replace("TCP", tcp)))


def _run(tcp: str) -> dict[str, object]:
    res = mpsim.run(_scenario(tcp))
    (row,) = [r for r in res.raw["tcp_flows"] if r["name"] == "bulk"]
    return dict(row)


def test_hystart_leaves_slow_start_before_the_buffer_overflows() -> None:
    plain = _run('profile = "rfc", hystart = false')
    hystart = _run('profile = "rfc", hystart = true')
    assert plain["fast_recoveries"] > 0  # standard slow start overflows even a 2000-packet buffer
    assert hystart["retransmits_fast"] == 0 and hystart["rto_count"] == 0
    assert hystart["slow_start_exit_ns"] is not None


def test_the_linux_profile_leaves_slow_start_by_its_hystart_with_cubic() -> None:
    plain = _run('profile = "linux", hystart_linux = false')
    profile = _run('profile = "linux"')
    assert plain["fast_recoveries"] > 0
    assert profile["retransmits_fast"] == 0 and profile["rto_count"] == 0
    assert profile["slow_start_exit_ns"] is not None
    # A table turns it on too: the kernel's values written out give the same exit.
    table = _run('profile = "linux", hystart_linux = { low_window_segments = 16, ack_delta_us = 2000 }')
    assert table["slow_start_exit_ns"] == profile["slow_start_exit_ns"]


def test_linux_3_14_has_cubic_hystart_as_linux_has() -> None:
    # Without a loss (a 2000-packet buffer) the two kernels' profiles differ only in the receiver's ACK per
    # segment while its window opens (`linux`; not yet in `linux_3_14`): with it off, the same HyStart exit, no
    # retransmission. With it on, ACKs twice as often reach the exit sooner.
    new = _run('profile = "linux", quickack_window_growth = false')
    old = _run('profile = "linux_3_14"')
    assert old["slow_start_exit_ns"] == new["slow_start_exit_ns"] is not None
    assert old["retransmits_fast"] == 0 and old["rto_count"] == 0
    every_segment = _run('profile = "linux"')
    assert every_segment["slow_start_exit_ns"] < new["slow_start_exit_ns"]


def test_both_hystarts_is_an_error_naming_both() -> None:
    with pytest.raises(mpsim.ConfigError) as info:
        mpsim.run(_scenario('profile = "linux", hystart = true, hystart_linux = true'))
    assert "hystart_linux" in str(info.value) and "(hystart)" in str(info.value)
