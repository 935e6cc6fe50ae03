"""Choices in sight: each path's base RTT (the propagation delays of its links both ways, access links
included) and the profile, congestion control with its flavour, slow start and scheduler in force, defaults
marked, from the model and from ``mpsim run`` and ``mpsim validate``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import mpsim
from mpsim.overview import RTT_DEFINITION, flow_choices, overview_text, path_rtts, profiles_chosen

ROOT = Path(__file__).resolve().parents[1]

FLAVOUR_DEFAULT = "flavour paper (default; `linux` follows the kernel: see docs/algorithms.md)"


def diamond(**extra: Any) -> dict[str, Any]:
    """A → R1, then R2 or R3 (equal hop counts, different delays), then B; every link duplex."""
    return {
        "duration": "1s",
        "hosts": ["A", "B"],
        "routers": ["R1", "R2", "R3"],
        "links": [
            {"from": "A", "to": "R1", "rate": "100Mbps", "delay": "1ms"},
            {"from": "R1", "to": "R2", "rate": "100Mbps", "delay": "2ms"},
            {"from": "R1", "to": "R3", "rate": "100Mbps", "delay": "5ms"},
            {"from": "R2", "to": "B", "rate": "100Mbps", "delay": "4ms"},
            {"from": "R3", "to": "B", "rate": "100Mbps", "delay": "4ms"},
        ],
        "flows": [{"name": "f", "type": "tcp", "src": "A", "dst": "B"}],
        **extra,
    }


def test_equal_cost_paths_of_different_delays_give_a_range() -> None:
    (path,) = path_rtts(mpsim.Scenario.from_dict(diamond()).to_core())
    # There: 1 + 2 + 4 = 7 ms or 1 + 5 + 4 = 10 ms; back the same: 14 to 20 ms.
    assert path.rtt_ns == (14_000_000, 20_000_000)
    assert path.rtt_text == "14–20 ms (ECMP)"
    assert path.forward == ("A-R1", "R1-R2", "R2-B")


def test_routes_set_by_hand_and_weights_decide_the_path() -> None:
    routes = [{"node": "R1", "dst": "B", "via": ["R1-R3"]}, {"node": "R3", "dst": "A", "via": ["R3-R1"]}]
    (by_hand,) = path_rtts(mpsim.Scenario.from_dict(diamond(routes=routes)).to_core())
    # There by R3 (10 ms); back by either (7 or 10 ms): the route at R3 holds for packets through R3 only.
    assert by_hand.rtt_ns == (17_000_000, 20_000_000)
    assert by_hand.forward == ("A-R1", "R1-R3", "R3-B")
    data = diamond()
    data["links"][1]["weight"] = 3
    (weighted,) = path_rtts(mpsim.Scenario.from_dict(data).to_core())
    assert weighted.rtt_ns == (20_000_000, 20_000_000) and weighted.rtt_text == "20 ms"


def test_a_preset_delay_is_the_bottleneck_one_way_and_the_access_links_add_to_the_rtt() -> None:
    scenario = mpsim.Scenario.from_dict(
        {
            "duration": "1s",
            "topology": {
                "preset": "non_shared",
                "delay": "40ms",
                "access_delay": "10ms",
                "path_delays": ["1ms", "20ms"],
            },
            "flows": [{"name": "mp", "type": "mptcp", "src": "S0", "dst": "D0"}],
        }
    )
    paths = path_rtts(scenario.to_core())
    # 2 · (sender's access + 40 ms bottleneck + 10 ms receiver's access).
    assert [(p.src, p.dst, p.rtt_ns) for p in paths] == [
        ("S0.1", "D0", (102_000_000, 102_000_000)),
        ("S0.2", "D0", (140_000_000, 140_000_000)),
    ]
    assert paths[0].forward == ("S0.1-A1", "A1-B1", "B1-D0")


def test_no_route_is_said() -> None:
    data = diamond()
    data["links"] = [*data["links"][:3], {"from": "R3", "to": "B", "rate": "100Mbps", "delay": "4ms", "duplex": False}]
    # Validation refuses such a flow ('no route from B to A'); the overview, built from the core's
    # configuration, still says so for a path it cannot follow (an MPTCP connection's further subflows).
    (path,) = path_rtts(mpsim.Scenario.model_validate(data).to_core())
    # B reaches R3 by no link: nothing comes back.
    assert path.rtt_ns is None and path.rtt_text == "no route"


def test_choices_mark_what_was_left_to_its_default() -> None:
    scenario = mpsim.Scenario.from_dict(
        {
            "duration": "1s",
            "topology": {"preset": "shared_bottleneck", "background": 1},
            "flows": [
                {"name": "mp", "type": "mptcp", "src": "S0", "dst": "D0"},
                {
                    "name": "kernel",
                    "type": "mptcp",
                    "src": "S0",
                    "dst": "D0",
                    "cc": {"type": "olia", "flavour": "linux"},
                },
                {"name": "t", "type": "tcp", "src": "S1", "dst": "D1", "tcp": {"profile": "ns3"}},
            ],
        }
    )
    chosen = {c.flow: c.text for c in flow_choices(scenario.to_core(), profiles_chosen(scenario))}
    assert chosen["mp"] == (
        f"profile linux (default); cc lia (default), {FLAVOUR_DEFAULT}; slow start standard (default); "
        "scheduler linger (the profile's default)"
    )
    assert "cc olia, flavour linux; " in chosen["kernel"]
    # ns-3's TcpCubic and its HyStart are what the ns3 profile runs when nothing is named.
    assert chosen["t"] == "profile ns3; cc cubic (the profile's default); slow start hystart_ns3 (default)"


def mpsim_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpsim.cli", *args], capture_output=True, text=True, timeout=120)


def test_run_and_validate_print_the_choices_and_the_paths_rtts() -> None:
    file = ROOT / "examples" / "wifi_lte.toml"
    expected = overview_text(mpsim.Scenario.from_toml(file).to_core(), set())
    assert "download  S0.2 → D0  120 ms  via S0.2-A2 A2-B2 B2-D0" in expected  # LTE: 2 · (10 + 40 + 10) ms
    assert f"cc olia, {FLAVOUR_DEFAULT}" in expected
    run = mpsim_cli("run", str(file))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(expected + "\n")
    validate = mpsim_cli("validate", str(file))
    assert validate.returncode == 0, validate.stderr
    assert expected in validate.stdout
    resolved = mpsim_cli("validate", "--resolved", str(file))
    assert resolved.returncode == 0 and expected in resolved.stderr


def test_busiest_links_are_listed_busiest_first(tmp_path: Path) -> None:
    css = (ROOT / "examples" / "css_shared_bottleneck.toml").read_text()
    file = tmp_path / "s.toml"
    # An idle traced link is listed (and used to come first).
    file.write_text(css + '\n[trace]\nqueues = ["R2-R1"]\n')
    done = mpsim_cli("run", str(file))
    assert done.returncode == 0, done.stderr
    table = done.stdout.split("Busiest links\n")[1].split("\n\n")[0].splitlines()[2:]
    names = [line.split()[0] for line in table]
    utilisations = [float(line.split()[1]) for line in table]
    assert "R2-R1" in names and names[0] == "R1-R2"
    assert utilisations == sorted(utilisations, reverse=True)


def test_copies_of_a_flow_share_their_lines() -> None:
    scenario = mpsim.Scenario.from_dict(
        {
            "duration": "1s",
            "topology": {"preset": "dumbbell"},
            "flows": [{"name": "f", "type": "tcp", "src": "S1", "dst": "D1", "cc": "reno", "copies": 6}],
        }
    )
    text = overview_text(scenario.to_core(), profiles_chosen(scenario), max_flows=5)
    assert text.splitlines()[1:] == [
        "  f#0, f#1, f#2, f#3 and 2 more: profile linux (default); cc reno; slow start standard (default)",
        f"Paths ({RTT_DEFINITION}):",
        # The dumbbell's defaults: 2 · (10 + 30 + 10) ms.
        "  f#0, f#1, f#2, f#3 and 1 more  S1 → D1  100 ms  via S1-R1 R1-R2 R2-D1",
        "  (the paths of the first 5 of 6 flows)",
    ]


def test_the_paths_shown_are_the_links_the_core_routes_packets_over() -> None:
    # The overview works routes out in Python; the core's own routing must agree: the links of every path
    # shown, there and back, are exactly the links that carried packets in a run (no ECMP in this network,
    # no other traffic), both paths of a 2-subflow connection over the `non_shared` preset.
    scenario = mpsim.Scenario.from_toml(ROOT / "examples" / "wifi_lte.toml")
    core = scenario.to_core()
    shown = {link for p in path_rtts(core) for link in (*p.forward, *p.back)}
    res = mpsim.run(scenario, seed=1)
    used = {row["name"] for row in res.links.to_pylist() if row["delivered_pkts"] > 0}
    assert len(path_rtts(core)) == 2
    assert shown == used
