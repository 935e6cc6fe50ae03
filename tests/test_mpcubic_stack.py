"""The MPCubic paper's stack and topologies: the ns2 profile, Adaptive RED and the presets of its Fig. 2."""

from __future__ import annotations

from pathlib import Path

import pytest

import mpsim
from mpsim.errors import ScenarioError
from mpsim.experiments import mpcubic
from mpsim.experiments.mpcubic import rates_over_time, windows_over_time
from mpsim.scenario import Scenario, TcpOptions
from mpsim.topologies import TRIANGLE_FLOWS, Red


def test_ns2_segments_are_1000_bytes() -> None:
    assert TcpOptions(profile="ns2").mss_bytes == 1000
    assert TcpOptions(profile="ns2", mss=1460).mss_bytes == 1460
    assert TcpOptions().mss_bytes == 1400
    # The MPCubic experiments' flows send the paper's 1000-byte data packets.
    assert TcpOptions.model_validate(mpcubic.TCP).mss_bytes == mpcubic.MSS


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


@pytest.mark.parametrize(("flow", "links"), list(TRIANGLE_FLOWS.items()))
def test_each_triangle_flow_crosses_the_two_links_the_figure_gives_it(flow: str, links: tuple[int, int]) -> None:
    # The flow alone for a second: its subflows' data crosses exactly its two links, one each.
    s = mpsim.Scenario.from_dict(
        {
            "duration": "1s",
            "topology": {"preset": "triangle"},
            "flows": [{"type": "mptcp", "name": flow, "src": f"S{flow}", "dst": f"D{flow}", "tcp": {"profile": "ns2"}}],
        }
    )
    res = mpsim.run(s)
    carried = {r["name"]: r["arrived_pkts"] for r in res.links.to_pylist() if r["name"] in ("L1", "L2", "L3")}
    assert {name for name, pkts in carried.items() if pkts > 0} == {f"L{i}" for i in links}
    subflows = res.mptcp_subflows.to_pylist()
    assert sorted(r["src"] for r in subflows) == [f"S{flow}.{i}" for i in sorted(links)]
    assert all(r["bytes_delivered"] > 0 for r in subflows)
    # Each subflow alone on its link: the link's packets are the subflow's segments, its SYN and the
    # handshake's ACK.
    for r in subflows:
        link = f"L{r['src'].split('.')[1]}"
        assert carried[link] == r["segments_sent"] + 2


def test_parallel_links_take_one_value_or_one_per_link() -> None:
    net = mpsim.parallel_links(["100Mbps", "80Mbps"], ["40ms", "160ms"], background=[12, 6]).expand()
    bottlenecks = {link.forward_name: (link.rate, link.delay) for link in net.links if link.forward_name[0] == "A"}
    assert bottlenecks == {"A1-B1": (100_000_000, 40_000_000), "A2-B2": (80_000_000, 160_000_000)}
    assert len([h for h in net.hosts if h.startswith("S")]) == 1 + 18
    with pytest.raises(ValueError, match="delays has 2 entries for 3 links"):
        mpsim.parallel_links(["1Mbps"] * 3, ["1ms", "2ms"])


def test_the_rates_over_time_figure_draws_every_series(tmp_path: Path) -> None:
    files = rates_over_time("mpcubic-reno", 10, "mpcubic", 1, tmp_path / "reno")
    assert [f.suffix for f in files] == [".png", ".svg"]
    svg = files[1].read_text()
    for label in ("measured path 1", "measured path 2", "competing"):
        assert label in svg


def test_the_windows_over_time_figure_draws_every_subflow(tmp_path: Path) -> None:
    files = windows_over_time("mpcubic-reno", 10, "mpcubic", 1, tmp_path / "windows")
    svg = files[1].read_text()
    for label in ("measured path 1", "measured path 2", "competing path 1"):
        assert label in svg
