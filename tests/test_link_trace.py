"""A link may follow a delivery-opportunity trace (Mahimahi's ``mm-link`` format) instead of a rate: at each
listed millisecond 1 504 bytes may leave, and the trace repeats after its last time.

A packet costs its size plus the 4-byte header Mahimahi's tun device adds, so with one opportunity a millisecond a
trace is a 12 Mbit/s link for 1 500-byte packets: a saturating UDP flow delivers exactly what the fixed-rate link
delivers, and a TCP transfer completes within 0.1 % of its time (a packet reaching the idle link waits for the next
whole millisecond rather than its own transmission time). Over a bursty trace no run ever delivers more bytes than
the opportunities up to its end allow, and a saturated one uses nearly all of them.
"""

from __future__ import annotations

import runpy
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import mpsim
from mpsim.sweep import load_sweep
from mpsim.traces import BYTES_PER_OPPORTUNITY

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "examples" / "traces"

NETWORK = """
duration = "DURATION"
hosts = ["S", "D"]
links = [ { from = "S", to = "D", LINK, delay = "DELAY", buffer = "BUFFER" } ]

[[flows]]
src = "S"
dst = "D"
"""
UDP = (
    NETWORK.replace("DELAY", "5ms").replace("BUFFER", "50pkt")
    + """name = "u"
type = "udp"
rate = "RATE"
packet_size = "1500B"
stop = "STOP"
"""
)
TCP = (
    NETWORK.replace("DELAY", "20ms").replace("BUFFER", "60pkt").replace("DURATION", "30s")
    + """name = "f"
type = "tcp"
size = "10MB"
"""
)


def _scenario(text: str, **fields: str) -> mpsim.Scenario:
    for key, value in fields.items():
        text = text.replace(key.upper(), value)
    return mpsim.Scenario.from_dict(tomllib.loads(text))


def _link(results: mpsim.Results, name: str = "S-D") -> dict:
    (link,) = [row for row in results.raw["links"] if row["name"] == name]
    return link


def _opportunities_through(times_ms: list[int], t_ms: float) -> int:
    """Opportunities of a looping trace at or before ``t_ms``."""
    period = times_ms[-1]
    whole, rest = divmod(t_ms, period)
    return int(whole) * len(times_ms) + sum(1 for x in times_ms if x <= rest)


def test_a_constant_trace_delivers_what_the_fixed_rate_link_does() -> None:
    runs = {
        link: mpsim.run(_scenario(UDP, link=link, duration="3s", rate="30Mbps", stop="2s"), seed=1)
        for link in ('rate = "12Mbps"', "trace = [1]")
    }
    (fixed,), (traced,) = (r.raw["udp_flows"] for r in runs.values())
    # Two seconds at 1 000 packets a second, then the 50 the buffer held.
    assert traced["received_pkts"] == fixed["received_pkts"] == 2050
    assert _link(runs["trace = [1]"])["delivered_bytes"] == 2050 * 1500


def test_a_constant_trace_completes_a_transfer_as_the_fixed_rate_link_does() -> None:
    fixed = mpsim.run(_scenario(TCP, link='rate = "12Mbps"'), seed=1).flows.to_pylist()[0]
    # The ACKs return at the same rate both ways.
    traced = _scenario(TCP, link='trace = [1], reverse = { rate = "12Mbps" }')
    traced = mpsim.run(traced, seed=1).flows.to_pylist()[0]
    assert traced["fct_s"] == pytest.approx(fixed["fct_s"], rel=0.001)
    assert traced["retransmissions"] == fixed["retransmissions"]


@pytest.mark.parametrize("stop_s", [0.7, 2.5, 5.3, 9.1])
def test_delivered_bytes_never_exceed_the_opportunities(stop_s: float) -> None:
    times = [int(x) for x in (TRACES / "lte.down").read_text().split()]
    scenario = _scenario(
        UDP, link=f'trace = "{TRACES / "lte.down"}"', duration=f"{stop_s}s", rate="40Mbps", stop=f"{stop_s}s"
    )
    link = _link(mpsim.run(scenario, seed=1))
    allowed = _opportunities_through(times, stop_s * 1000)
    # Each packet costs its size and the tun header's 4 bytes.
    assert link["delivered_bytes"] + 4 * link["delivered_pkts"] <= allowed * BYTES_PER_OPPORTUNITY
    # Saturated from the first millisecond, so every opportunity but those of the last 5 ms (the delay) is used.
    assert link["delivered_pkts"] >= _opportunities_through(times, stop_s * 1000 - 5) - 1


def test_the_reverse_follows_the_same_trace_unless_it_has_its_own() -> None:
    def links(link: str) -> dict[str, tuple[int, int | None]]:
        core = _scenario(UDP, link=link, duration="1s", rate="1Mbps", stop="1s").to_core()["links"]
        return {
            row["name"]: (row["rate_bps"], len(row["trace"]["opportunities_ms"]) if "trace" in row else None)
            for row in core
        }

    # Two opportunities per 2 ms: 1 504 bytes a millisecond, 12.032 Mbit/s.
    assert links("trace = [1, 2]") == {"S-D": (12_032_000, 2), "D-S": (12_032_000, 2)}
    assert links('trace = [1, 2], reverse = { rate = "1Mbps" }') == {"S-D": (12_032_000, 2), "D-S": (1_000_000, None)}
    assert links("trace = [1, 2], reverse = { trace = [4] }") == {"S-D": (12_032_000, 2), "D-S": (3_008_000, 1)}


def test_the_same_seed_gives_the_same_run() -> None:
    scenario = mpsim.Scenario.from_toml(ROOT / "examples" / "wifi_lte_trace.toml")
    one, again = (mpsim.run(scenario, seed=3).raw for _ in range(2))
    assert one == again


def test_trace_files_are_read_relative_to_the_scenario_file(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    shutil.copy(TRACES / "wifi.down", tmp_path / "traces" / "w")
    text = (ROOT / "examples" / "wifi_lte_trace.toml").read_text().replace('"traces/wifi.down"', '"traces/w"')
    text = text.replace('"traces/lte.down"', f'"{TRACES / "lte.down"}"')
    (tmp_path / "s.toml").write_text(text)
    scenario = mpsim.Scenario.from_toml(tmp_path / "s.toml")
    wifi = scenario.topology.per_path[0].trace
    assert wifi.source == (tmp_path / "traces" / "w").resolve()
    # A dump names the file by its full path, so it loads again from anywhere.
    again = mpsim.Scenario.from_dict(scenario.model_dump(mode="json", by_alias=True, exclude_unset=True))
    assert again.to_core() == scenario.to_core()
    core = {row["name"]: row for row in scenario.to_core()["links"]}
    assert "trace" in core["A1-B1"] and "trace" not in core["B1-A1"] and core["B1-A1"]["rate_bps"] == 50_000_000


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("1\n2\nx\n", r"line 3: 'x' is not a whole number of milliseconds"),
        ("1\n5\n\n3\n", r"line 4: 3 ms comes after 5 ms; the times must not decrease"),
        ("0\n0\n", r"the last time is the trace's period and must be positive, got 0 ms"),
        ("1\n\n5000000000000\n", r"line 3: 5000000000000 ms is past the latest time a trace may list"),
        ("1\n\u00b2\n", r"line 2: '\u00b2' is not a whole number of milliseconds"),
        ("\n\n", r"has no delivery opportunities"),
    ],
)
def test_a_bad_trace_file_is_named_with_its_fault(tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "bad.trace"
    bad.write_text(content)
    with pytest.raises(mpsim.ScenarioError, match=r"links\[0\]\.trace: .*" + message):
        _scenario(UDP, link=f'trace = "{bad}"', duration="1s", rate="1Mbps", stop="1s")


def test_missing_files_and_contradictions_are_refused(tmp_path: Path) -> None:
    with pytest.raises(mpsim.ScenarioError, match=r"cannot read trace file '.*nowhere'"):
        _scenario(UDP, link=f'trace = "{tmp_path / "nowhere"}"', duration="1s", rate="1Mbps", stop="1s")
    with pytest.raises(mpsim.ScenarioError, match=r"either a 'rate' \(1Mbps\) or a 'trace'"):
        _scenario(UDP, link='rate = "1Mbps", trace = [1]', duration="1s", rate="1Mbps", stop="1s")
    with pytest.raises(mpsim.ScenarioError, match=r"follows the link's trace, so it cannot take 'reverse.burst'"):
        _scenario(UDP, link='trace = [1], reverse = { burst = "3028B" }', duration="1s", rate="1Mbps", stop="1s")
    with pytest.raises(mpsim.ScenarioError, match=r"needs a 'rate'"):
        _scenario(UDP, link='name = "x"', duration="1s", rate="1Mbps", stop="1s")
    with pytest.raises(mpsim.ScenarioError, match=r"either a 'trace' or a 'burst'"):
        _scenario(UDP, link='trace = [1], burst = "3028B"', duration="1s", rate="1Mbps", stop="1s")
    changed = tomllib.loads(
        UDP.replace("LINK", "trace = [1]").replace("DURATION", "1s").replace("RATE", "1Mbps").replace("STOP", "1s")
    )
    changed["link_changes"] = [{"at": "0.5s", "link": "S-D", "rate": "2Mbps"}]
    with pytest.raises(mpsim.ScenarioError, match=r"link_changes\[0\]\.rate.*follows a delivery trace"):
        mpsim.Scenario.from_dict(changed)


def test_the_script_writes_the_committed_traces(tmp_path: Path) -> None:
    module = runpy.run_path(str(TRACES / "make_traces.py"))
    for path in module["write"](tmp_path):
        assert path.read_bytes() == (TRACES / path.name).read_bytes(), path.name


def test_validate_and_sweeps_read_traces_relative_to_their_files(tmp_path: Path) -> None:
    # From another directory: `mpsim validate` and a sweep whose base is the example read its traces beside it.
    example = ROOT / "examples" / "wifi_lte_trace.toml"
    done = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", "validate", str(example)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(f'base = "{example}"\nruns = 1\n[axes]\n"topology.per_path.1.delay" = ["30ms", "60ms"]\n')
    spec = load_sweep(sweep)
    scenario = spec.scenario(next(iter(spec.points())))
    assert scenario.topology.per_path[1].trace.source == TRACES / "lte.down"
