"""A link with ``burst`` is a token-bucket shaper (Linux's ``tbf``), seen from a scenario file.

A burst of ten 1250-byte datagrams, 10 µs apart, reaches a 10 Mbit/s link whose queue holds 4 waiting packets.
A plain link takes the one on its transmitter and 4 waiting: 5 arrive. Behind a bucket of two packets' bytes
(full at the start) the first two leave at once and the queue still takes one waiting for tokens and 4 more: 7
arrive. Under load the shaper sends at the link's rate: after the two on the full bucket, one a transmission
time.
"""

from __future__ import annotations

import tomllib

import pytest

import mpsim

SCENARIO = """
duration = "1s"
hosts = ["S", "D"]
routers = ["R"]
links = [
  { from = "S", to = "R", rate = "1Gbps" },
  { from = "R", to = "D", rate = "10Mbps", delay = "2ms", buffer = "4pkt" BURST },
]

[[flows]]
name = "u"
type = "udp"
src = "S"
dst = "D"
rate = "1Gbps"
packet_size = "1250B"
stop = "100us"
"""


def _run(burst: str) -> tuple[int, int, int]:
    """Datagrams received, dropped at R-D, and when the last arrived (ns)."""
    res = mpsim.run(mpsim.Scenario.from_dict(tomllib.loads(SCENARIO.replace("BURST", burst))))
    (udp,) = res.raw["udp_flows"]
    (link,) = [link for link in res.raw["links"] if link["name"] == "R-D"]
    return udp["received_pkts"], link["dropped_overflow_pkts"], udp["last_rx_ns"]


def test_a_plain_link_takes_its_queue_and_the_packet_on_its_transmitter() -> None:
    # The first reaches R at 10 µs; the fifth ends its 1 ms transmission at 5.01 ms, plus 2 ms of delay.
    assert _run("") == (5, 5, 7_010_000)


def test_a_full_bucket_of_two_packets_lets_two_more_of_a_burst_through() -> None:
    # Released at 10 and 20 µs on the full bucket, then one a millisecond as tokens come (the third at
    # 1.01 ms): the seventh at 5.01 ms, arriving after its 1 ms transmission and the 2 ms delay.
    assert _run(', burst = "2500B"') == (7, 3, 8_010_000)


def test_the_reverse_direction_is_shaped_only_when_it_names_its_own_burst() -> None:
    scenario = mpsim.Scenario.from_dict(tomllib.loads(SCENARIO.replace("BURST", ', burst = "2500B"')))
    core = {link["name"]: link for link in scenario.to_core()["links"]}
    assert core["R-D"]["burst_bytes"] == 2500
    assert "burst_bytes" not in core["D-R"]


def test_a_burst_in_packets_is_refused_with_the_field_named() -> None:
    with pytest.raises(mpsim.ScenarioError, match=r"burst.*bytes"):
        mpsim.Scenario.from_dict(tomllib.loads(SCENARIO.replace("BURST", ', burst = "2pkt"')))


def test_a_rate_limiter_delivers_each_packet_its_delay_after_its_release() -> None:
    # The same releases as the shaper's (the seventh at 5.01 ms), then only the 2 ms delay.
    assert _run(', burst = "2500B", rate_limiter = true') == (7, 3, 7_010_000)


def test_a_rate_limiter_needs_a_burst_and_stays_on_its_direction() -> None:
    with pytest.raises(mpsim.ScenarioError, match=r"rate_limiter.*burst"):
        mpsim.Scenario.from_dict(tomllib.loads(SCENARIO.replace("BURST", ", rate_limiter = true")))
    scenario = mpsim.Scenario.from_dict(
        tomllib.loads(SCENARIO.replace("BURST", ', burst = "2500B", rate_limiter = true'))
    )
    core = {link["name"]: link for link in scenario.to_core()["links"]}
    assert core["R-D"]["rate_limiter"] is True
    assert "rate_limiter" not in core["D-R"]


# The same network, R-D at 1 Gbit/s with 1 ms of delay and a hold of each packet's transmission time at
# 10 Mbit/s; two flows of one datagram each.
TWO_FLOWS = (
    SCENARIO.split("[[flows]]")[0].replace(
        'rate = "10Mbps", delay = "2ms", buffer = "4pkt" BURST', 'rate = "1Gbps", delay = "1ms", txtime_rate = "10Mbps"'
    )
    + """[[flows]]
name = "big"
type = "udp"
src = "S"
dst = "D"
rate = "1Gbps"
packet_size = "1250B"
stop = "1us"

[[flows]]
name = "small"
type = "udp"
src = "S"
dst = "D"
rate = "1Gbps"
packet_size = "125B"
start = "5us"
stop = "6us"
"""
)


def test_a_delay_lines_hold_lets_a_short_packet_of_another_flow_overtake() -> None:
    # The 1250-byte datagram leaves R at 20 µs (10 µs on each 1 Gbit/s hop) and is held 1 ms of delay and 1 ms of
    # transmission time at 10 Mbit/s: it arrives at 2.02 ms. The 125-byte one of the other flow, sent 5 µs later,
    # leaves R behind it at 21 µs and is held 1 ms and 0.1 ms: it arrives first, at 1.121 ms.
    res = mpsim.run(mpsim.Scenario.from_dict(tomllib.loads(TWO_FLOWS)))
    got = {u["name"]: (u["received_pkts"], u["first_rx_ns"]) for u in res.raw["udp_flows"]}
    assert got == {"big": (1, 2_020_000), "small": (1, 1_121_000)}
    scenario = mpsim.Scenario.from_dict(tomllib.loads(TWO_FLOWS))
    core = {link["name"]: link for link in scenario.to_core()["links"]}
    assert core["R-D"]["txtime_rate_bps"] == core["D-R"]["txtime_rate_bps"] == 10_000_000
    own = TWO_FLOWS.replace('txtime_rate = "10Mbps"', 'txtime_rate = "10Mbps", reverse = {txtime_rate = "1Mbps"}')
    core = {link["name"]: link for link in mpsim.Scenario.from_dict(tomllib.loads(own)).to_core()["links"]}
    assert (core["R-D"]["txtime_rate_bps"], core["D-R"]["txtime_rate_bps"]) == (10_000_000, 1_000_000)
