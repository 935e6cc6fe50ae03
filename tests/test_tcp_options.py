"""The TCP options and the profiles' defaults have one definition, the core's (crates/mpsim-core/src/config.rs):
the scenario model's ``tcp`` table, docs/scenarios.md's options table and the profile values docs/algorithms.md
quotes are held to it, each way."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import pytest

from mpsim import docs, tcp_options
from mpsim.scenario import CORE_NAMES, TcpFlow, TcpOptions

ROOT = Path(__file__).resolve().parents[1]


def core_name(field: str) -> str:
    """The core's name of a field of the scenario model's ``tcp`` table."""
    by_scenario_name = {scenario: core for core, scenario in CORE_NAMES.items()}
    return by_scenario_name.get(field, field)


def test_the_scenario_model_has_every_core_option_and_no_other() -> None:
    core = [o["name"] for o in tcp_options.options()]
    model = [core_name(f) for f in TcpOptions.model_fields]
    assert sorted(model) == sorted(core), (
        f"only in the core: {sorted(set(core) - set(model))}; only in the model: {sorted(set(model) - set(core))}"
    )


def test_choices_and_the_default_profile_are_the_cores() -> None:
    for o in tcp_options.options():
        if o["kind"] != "choice":
            continue
        annotation = TcpOptions.model_fields[CORE_NAMES.get(o["name"], o["name"])].annotation
        if typing.get_origin(annotation) is not typing.Literal:  # Optional
            annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
        assert sorted(typing.get_args(annotation)) == sorted(o["values"]), o["name"]
    assert TcpOptions().profile == tcp_options.default_profile()


def every_option_set() -> dict[str, Any]:
    """A ``tcp`` table setting every field of the model."""
    values: dict[str, Any] = {}
    for o in tcp_options.options():
        name = CORE_NAMES.get(o["name"], o["name"])
        annotation = str(TcpOptions.model_fields[name].annotation)
        if o["kind"] == "choice":
            values[name] = o["values"][-1]
        elif o["kind"] in ("flag", "flag_or_table", "table"):
            values[name] = True
        elif "SizeSpec" in annotation:
            values[name] = "100000B"
        elif o["name"].endswith("_ns"):
            values[name] = "3ms"
        else:
            values[name] = 100
    return values


def test_every_option_of_the_model_reaches_the_core_under_the_cores_name() -> None:
    table = TcpOptions(**every_option_set()).to_core()
    assert sorted(table) == sorted(o["name"] for o in tcp_options.options())
    assert table["min_rto_ns"] == 3_000_000 and table["rwnd_bytes"] == 100_000 and table["hystart"] == {}


def test_the_profiles_segment_sizes_are_the_cores() -> None:
    """1400-byte segments in every stack but ns-2's `Agent/TCP/Sack1`, which the MPCubic paper ran with
    `packetSize_` 1000 (crates/mpsim-core/src/transport/tcp/stacks/), and a size in packets counted in them."""
    expected = {"linux": 1400, "linux_3_14": 1400, "ns3": 1400, "rfc": 1400, "ns2": 1000}
    assert {p: tcp_options.profile_mss(p) for p in tcp_options.profiles()} == expected
    assert tcp_options.flow_mss({"mss": 1448}) == 1448
    for profile, mss in expected.items():
        flow = TcpFlow(name="f", src="S0", dst="D0", size="10pkt", tcp=TcpOptions(profile=profile))
        assert flow.size is not None and flow.size.to_bytes(flow.tcp.mss_bytes) == 10 * mss


def test_the_options_table_of_the_docs_is_generated_from_the_core() -> None:
    text = docs.SCENARIOS_MD.read_text()
    assert docs.generated_scenarios_md(text) == text, "run `python -m mpsim.docs` to write it anew"


# ------------------------------------------------------------------------ docs/algorithms.md's profiles table


def _time(ns: int) -> str:
    """A duration as docs/algorithms.md writes it: ``200 ms``, ``1 s``."""
    return f"{ns // 10**9} s" if ns % 10**9 == 0 else f"{ns // 10**6} ms"


def _on(flag: bool) -> str:
    return "on" if flag else "off"


# The rows of "The profiles side by side" that quote a profile's values, each with what the cell begins with.
QUOTED: dict[str, Any] = {
    "MSS, IW": lambda p: f"{p['mss']} B, {p['initial_cwnd_segments']}",
    "framing": lambda p: f"{p['framing_bytes']}",
    "option layout": lambda p: p["option_layout"],
    "timestamps, SACK": lambda p: f"{_on(p['timestamps'])}, {_on(p['sack'])}",
    "delayed ACK": lambda p: (
        f"{p['receiver']['delack_segments']} segments / {_time(p['receiver']['delack_timeout'])}"
        if p["receiver"]["delayed_ack"]
        else "none"
    ),
    "RTO: initial, min, max": lambda p: ", ".join(_time(p["rtt"][k]) for k in ("initial_rto", "min_rto", "max_rto")),
    "SYN timeout": lambda p: _time(p["syn_rto"]),
}


def profiles_table() -> tuple[list[str], dict[str, list[str]]]:
    """The profiles (columns) and rows of docs/algorithms.md's "The profiles side by side"."""
    text = (ROOT / "docs" / "algorithms.md").read_text()
    section = text.split("### The profiles side by side", 1)[1]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    profiles = [re.match(r"`(\w+)`", c).group(1) for c in cells[0][1:-1]]  # type: ignore[union-attr]
    return profiles, {row[0]: row[1:-1] for row in cells[2:]}


@pytest.mark.parametrize("row", QUOTED)
def test_the_profile_values_docs_algorithms_quotes_are_the_cores(row: str) -> None:
    profiles, rows = profiles_table()
    assert sorted(profiles) == sorted(tcp_options.profiles())
    for profile, cell in zip(profiles, rows[row], strict=True):
        expected = QUOTED[row](tcp_options.profile_params(profile))
        assert cell.startswith(expected), f"{row}, {profile}: the core has {expected!r}, the doc {cell!r}"
