"""A link with ``jitter`` adds an exponentially distributed extra delay of that mean to each packet, and never
reorders, as an emulator's delay line does; the draws come from the run's seed.

UDP datagrams cross a 100 Mbit/s link of 2 ms delay: 125 bytes take 10 µs on the wire, so without jitter each
arrives 2.010 ms after it is sent. A millisecond apart, no datagram waits for another, and the mean extra delay
is the jitter's mean; 10 µs apart, most wait behind an earlier one's draw, and none overtakes another.
"""

from __future__ import annotations

import tomllib

import pytest

import mpsim

SCENARIO = """
duration = "6s"
hosts = ["S", "D"]
links = [ { from = "S", to = "D", rate = "100Mbps", delay = "2ms" JITTER } ]

[[flows]]
name = "u"
type = "udp"
src = "S"
dst = "D"
rate = "RATE"
packet_size = "125B"
stop = "5s"
"""

WIRE_NS = 2_010_000


def _scenario(jitter: str, rate: str = "1Mbps") -> mpsim.Scenario:
    return mpsim.Scenario.from_dict(tomllib.loads(SCENARIO.replace("JITTER", jitter).replace("RATE", rate)))


def _udp(jitter: str, rate: str = "1Mbps", seed: int = 1) -> dict:
    (udp,) = mpsim.run(_scenario(jitter, rate), seed=seed).raw["udp_flows"]
    return udp


def test_without_jitter_every_datagram_takes_the_wire_time() -> None:
    udp = _udp("")
    assert udp["delay_min_ns"] == udp["delay_max_ns"] == WIRE_NS


def test_spaced_datagrams_take_the_mean_extra_delay() -> None:
    udp = _udp(', jitter = "50us"')
    assert udp["received_pkts"] == 5000
    # 5000 draws of an exponential of mean 50 µs: the standard error of their mean is 0.7 µs.
    assert udp["delay_mean_ns"] - WIRE_NS == pytest.approx(50_000, abs=3_000)
    assert udp["delay_min_ns"] >= WIRE_NS
    assert udp["reordered_pkts"] == 0


def test_close_datagrams_arrive_in_order() -> None:
    udp = _udp(', jitter = "50us"', rate="100Mbps")
    assert udp["received_pkts"] == udp["sent_pkts"] > 10_000
    assert udp["reordered_pkts"] == 0
    # Each waits at least for its own draw, and often for an earlier one's longer draw.
    assert udp["delay_mean_ns"] - WIRE_NS > 50_000


def test_the_seed_draws_the_jitter() -> None:
    one, again, other = (_udp(', jitter = "50us"', seed=s)["delay_mean_ns"] for s in (1, 1, 2))
    assert one == again
    assert one != other


def test_the_reverse_direction_has_the_same_unless_it_names_its_own() -> None:
    def links(text: str) -> dict[str, int | None]:
        return {link["name"]: link.get("jitter_ns") for link in _scenario(text).to_core()["links"]}

    assert links(', jitter = "50us"') == {"S-D": 50_000, "D-S": 50_000}
    assert links(', jitter = "50us", reverse = { jitter = "1ms" }') == {"S-D": 50_000, "D-S": 1_000_000}
    assert links("") == {"S-D": None, "D-S": None}


def test_a_jitter_of_zero_is_refused_with_the_field_named() -> None:
    with pytest.raises(mpsim.ScenarioError, match=r"links\[0\]\.jitter.*positive"):
        _scenario(', jitter = "0s"')
