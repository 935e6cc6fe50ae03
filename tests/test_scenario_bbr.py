"""BBR (`cc = "bbr"`) reaches the core from a scenario: it keeps the bottleneck's queue short where CUBIC fills
it, and is refused outside the `linux` profile with the field named (each MPTCP subflow's own BBR is checked in
the core's `tests/bbr.rs`)."""

from __future__ import annotations

import tomllib

import pytest

import mpsim

SCENARIO = """
seed = 1
duration = "6s"

[topology]
preset = "dumbbell"
bottleneck = "10Mbps"
delay = "25ms"
buffer = "600pkt"
access = "1Gbps"
access_delay = "0s"

[[flows]]
name = "bulk"
type = "tcp"
src = "S1"
dst = "D1"
cc = "CC"
tcp = { profile = "PROFILE" }
"""


def _scenario(cc: str, profile: str = "linux") -> mpsim.Scenario:
    text = SCENARIO.replace("CC", cc).replace("PROFILE", profile)
    return mpsim.Scenario.from_dict(tomllib.loads(text))


def _bottleneck_queue(cc: str) -> int:
    res = mpsim.run(_scenario(cc))
    return max(link["max_queue_pkts"] for link in res.raw["links"])


def test_bbr_keeps_the_queue_that_cubic_builds_short() -> None:
    # 10 Mbit/s and 50 ms: a BDP of 44 packets (1452-byte frames). BBR's largest queue is STARTUP's: its window
    # of 739/256 BDP and a quantum of 6 packets, less the BDP in flight: 89 packets. CUBIC's HyStart leaves slow
    # start with more than twice that queued.
    startup = 44 * (739 - 256) // 256 + 6
    bbr, cubic = _bottleneck_queue("bbr"), _bottleneck_queue("cubic")
    assert bbr <= startup < 2 * startup < cubic


def test_bbr_outside_the_linux_profile_names_the_field() -> None:
    with pytest.raises(mpsim.ConfigError) as info:
        mpsim.run(_scenario("bbr", profile="ns3"))
    text = str(info.value)
    assert "tcp.profile" in text and "linux" in text and "ns3" in text
