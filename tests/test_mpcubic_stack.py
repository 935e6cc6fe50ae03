"""The MPCubic paper's stack from a scenario: the ns2 profile and Adaptive RED as the scenario model passes them."""

from __future__ import annotations

import pytest

from mpsim.errors import ScenarioError
from mpsim.scenario import Scenario, TcpOptions
from mpsim.topologies import Red


def test_ns2_segments_are_1000_bytes() -> None:
    assert TcpOptions(profile="ns2").mss_bytes == 1000
    assert TcpOptions(profile="ns2", mss=1460).mss_bytes == 1460
    assert TcpOptions().mss_bytes == 1400


def test_adaptive_red_leaves_the_thresholds_to_the_core_unless_given() -> None:
    assert Red(type="red", limit=100, adaptive=True, target_delay="10ms").to_core() == {
        "type": "adaptive_red",
        "limit_pkts": 100,
        "max_p": 0.1,
        "gentle": True,
        "mean_pkt_size_bytes": 1500,
        "target_delay_ns": 10_000_000,
    }
    plain = Red(type="red", limit=100, min_th=5, max_th=15).to_core()
    assert plain["type"] == "red" and plain["weight"] == 0.002


@pytest.mark.parametrize(
    ("queue", "expected"),
    [
        ({"type": "red", "limit": "100pkt"}, "min_th and max_th are needed unless adaptive = true"),
        ({"type": "red", "limit": "100pkt", "min_th": 5, "max_th": 15, "interval": "1s"}, "for adaptive = true only"),
        ({"type": "red", "limit": "100pkt", "adaptive": True, "min_th": 5}, "give both min_th and max_th"),
    ],
)
def test_red_settings_that_do_not_go_together_are_refused(queue: dict[str, object], expected: str) -> None:
    with pytest.raises(ScenarioError, match=expected):
        Scenario.from_dict(
            {
                "duration": "1s",
                "hosts": ["A", "B"],
                "links": [{"from": "A", "to": "B", "rate": "1Mbps", "queue": queue}],
            }
        )
