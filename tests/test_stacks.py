"""The papers' stacks, defined once (python/mpsim/experiments/stacks.py): every experiment that emulates one
runs exactly its settings, and the legacy ns-3 model's 16-bit window bounds each subflow's flight; and the
stacks every claim is also judged on: an experiment moved onto Linux 6.18 or ns-3.44 keeps what its paper sets
and its algorithms, takes everything else of its flows' TCP from the profile, and never shares a store key with
its paper's runs."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

import mpsim
from mpsim._core import resolved_json
from mpsim.experiments import CATALOGUE
from mpsim.experiments.base import Experiment, flows_of
from mpsim.experiments.reproduce import experiment_row
from mpsim.experiments.stacks import (
    JUDGED_ON,
    LEGACY_NS3,
    LINUX_3_14,
    LINUX_3_14_LIA,
    LISA_CREDIT_ONLY,
    PAPER_SETTINGS,
    STACKS,
    on_stack,
)
from mpsim.scenario import MptcpFlow, SlowStart, TcpFlow, TcpOptions
from mpsim.sweep import run_key


def emulating(stack: str) -> list[Experiment]:
    return [e for e in CATALOGUE.values() if e.stack == stack]


def every_flow(e: Experiment) -> list[tuple[str, TcpFlow | MptcpFlow]]:
    """Every TCP flow and MPTCP connection of one run per variant at the first and the last x."""
    return [
        (v, f)
        for v in e.variants
        for x in (e.x_values[0], e.x_values[-1])
        for f in e.scenario(x, v, 1).flows
        if isinstance(f, TcpFlow | MptcpFlow)
    ]


def assert_runs_stack(e: Experiment, stack: TcpOptions) -> None:
    flows = every_flow(e)
    assert flows, e.name
    for variant, f in flows:
        # The flow's options are the stack's and what the paper sets itself, nothing else.
        assert f.tcp.model_copy(update=dict.fromkeys(PAPER_SETTINGS)) == stack, (e.name, variant, f.name)


def test_the_legacy_ns3_model_is_what_every_css_gsam_and_couple_ns3_experiment_runs() -> None:
    """The CSS paper, the GSAM paper's §II and the Couple+ paper (the same group's ns-3 model, read by the CSS
    paper's reasoning): one stack, whatever the module. Each flow, single-path or multipath, runs exactly
    LEGACY_NS3 (Reno recovery, no delayed ACK, min RTO 200 ms, the 65 535-byte window) and differs only in the
    paper's MSS (1400 / 536 / 1400), IW (10 / 1 / 1) and ssthresh; LISA beside it is credit-only."""
    exps = emulating("legacy_ns3")
    assert {e.name.split("-")[0] for e in exps} == {"css", "gsam", "couple"}
    assert {"css-shared-filesize", "css-longlived", "gsam-subflows", "gsam-iw"} <= {e.name for e in exps}
    core = LEGACY_NS3.to_core()
    assert core["receive_window_bytes"] == 65_535 and core["delayed_ack"] is False
    for e in exps:
        assert_runs_stack(e, LEGACY_NS3)
        for variant, f in every_flow(e):
            if isinstance(f, MptcpFlow) and variant == "lisa":
                assert f.slow_start is not None and f.slow_start.params["ignore_acks"] is False, e.name
            if isinstance(f, MptcpFlow) and variant == "gsam":
                assert f.slow_start is not None and set(f.slow_start.params) == {"k_ns"}, e.name


def test_linux_3_14_is_what_every_lisa_and_gsam_testbed_experiment_runs() -> None:
    """The LISA paper's emulator and the GSAM paper's testbed: the `linux_3_14` profile without timestamps and
    with an ACK per segment, LIA with the kernel's arithmetic; LISA as published in its own paper and
    credit-only on GSAM's testbed; GSAM with its authors' K."""
    exps = emulating("linux_3_14")
    assert {e.name.split("-")[0] for e in exps} == {"lisa", "gsam"}
    assert {"lisa-shared-buffer", "gsam-shared", "gsam-codel-limit"} <= {e.name for e in exps}
    for e in exps:
        assert_runs_stack(e, LINUX_3_14)
        for variant, f in every_flow(e):
            if not isinstance(f, MptcpFlow):
                continue
            assert f.cc == LINUX_3_14_LIA, e.name
            if variant == "lisa":
                expected = SlowStart(type="lisa") if e.paper.startswith("LISA") else LISA_CREDIT_ONLY
                assert f.slow_start == expected, e.name
            if variant == "gsam":
                assert f.slow_start is not None and set(f.slow_start.params) == {"k_ns"}, e.name


def test_every_experiment_of_the_three_papers_names_its_stack() -> None:
    for e in CATALOGUE.values():
        if e.name.split("-")[0] in ("css", "lisa", "gsam"):
            assert e.stack in STACKS, e.name


def mptcp_over_one_path(window: int | None) -> dict[str, Any]:
    """A 3 MB MPTCP transfer, two subflows over one 100 Mbit/s, 100 ms path with a large buffer: a BDP of
    1250 kB, so only the window, never the network, bounds the flight."""
    tcp = {"profile": "ns3", "mss": 1400, "initial_cwnd_segments": 10}
    if window is not None:
        tcp["receive_window_bytes"] = window
    return {
        "seed": 1,
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [
            {"name": "ab", "from": "a", "to": "b", "rate_bps": 100_000_000, "delay_ns": 50_000_000},
            {"name": "ba", "from": "b", "to": "a", "rate_bps": 100_000_000, "delay_ns": 50_000_000},
        ],
        "mptcp_connections": [
            {
                "name": "m",
                "src_addrs": ["a"],
                "dst_addrs": ["b"],
                "size_bytes": 3_000_000,
                "path_manager": {"type": "ndiffports", "subflows": 2},
                "tcp": tcp,
                "trace": True,
            }
        ],
        "stop_time_ns": 20_000_000_000,
    }


def test_the_receive_window_bounds_each_subflows_flight_size() -> None:
    """65 535 bytes hold 46 segments of 1400 B: no subflow ever has more in flight; without the cap the slow
    starts run on to the `ns3` profile's 128 KiB send buffer, 93 segments."""
    capped = mpsim.run_config(mptcp_over_one_path(65_535)).tcp_traces.to_pylist()
    free = mpsim.run_config(mptcp_over_one_path(None)).tcp_traces.to_pylist()
    assert {r["subflow"] for r in capped} == {0, 1}
    assert max(r["in_flight_bytes"] for r in capped) == 46 * 1400
    assert max(r["in_flight_bytes"] for r in free) == 131_072 // 1400 * 1400


@pytest.mark.parametrize("window", [1000, 2**31])
def test_a_receive_window_out_of_range_is_refused_naming_the_field(window: int) -> None:
    allowed = r"at least one MSS \(1400 bytes\) and at most 1073725440"
    with pytest.raises(mpsim.ConfigError, match=rf"tcp\.receive_window_bytes: must be {allowed}.*got {window}"):
        mpsim.validate_config(mptcp_over_one_path(window))


# ------------------------------------------------------------------------------ the stacks a claim is judged on

REAL = [s for s in JUDGED_ON if s != "paper"]

ONE_PER_PAPER = {
    "css-shared-filesize": "the legacy ns-3 model: Reno recovery, no SACK, 65 535-byte window, ssthresh 65 535 B",
    "lisa-shared-buffer": "Linux 3.14: no timestamps, an ACK per segment, LIA with the kernel's arithmetic",
    "gsam-subflows": "the legacy ns-3 model with ns-3's 536-byte segment and an IW of 1; GSAM's K",
    "mpcubic-cycle": "the ns2 profile, nothing set: its 1000-byte segment and IW of 2, CUBIC by default",
    "couple-wired-wireless-p1": "the rfc profile with NewReno and no SACK; network coding on subflow 1",
}


def resolved(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What the core runs for each flow of ``config``, by name (``mpsim validate --resolved``)."""
    return {f["name"]: f for f in json.loads(resolved_json(json.dumps(config)))}


@pytest.mark.parametrize("name", ONE_PER_PAPER)
@pytest.mark.parametrize("stack", REAL)
def test_a_stack_keeps_the_papers_settings_and_algorithms_and_replaces_the_rest(name: str, stack: str) -> None:
    """Each flow of the built core configuration on ``stack``: the TCP table is the profile with the paper's
    segment size, initial window and ssthresh as the paper's runs resolved them, nothing else; the congestion
    control the paper's flow ran (named, or its profile's default); every other field of the flow (slow start and
    its parameters, scheduler, path manager, coding, size, start) and everything outside the flows unchanged."""
    e = CATALOGUE[name]
    moved = e.on(stack)
    assert (moved.runs_on, moved.name, moved.checks, moved.claims) == (stack, e.name, e.checks, e.claims)
    replaced = 0
    for variant in e.variants:
        paper, on = e.build(e.x_values[0], variant, 1), moved.build(e.x_values[0], variant, 1)
        mpsim.validate_config(on)
        strip = ("tcp_flows", "mptcp_connections")
        assert {k: v for k, v in on.items() if k not in strip} == {k: v for k, v in paper.items() if k not in strip}
        ran = resolved(paper)
        pairs = list(zip(flows_of(paper), flows_of(on), strict=True))
        assert pairs, (name, variant)
        for before, after in pairs:
            what = (name, stack, variant, after["name"])
            params = ran[before["name"]]["tcp"]
            expected = {
                "profile": stack,
                "mss": params["mss"],
                "initial_cwnd_segments": params["initial_cwnd_segments"],
            }
            if params["initial_ssthresh_bytes"] is not None:
                expected["initial_ssthresh_bytes"] = params["initial_ssthresh_bytes"]
            assert after["tcp"] == expected, what
            replaced += len(set(before["tcp"]) - set(expected))
            assert after["cc"] == before.get("cc", {"type": ran[before["name"]]["cc"]["type"]}), what
            others = {k: v for k, v in before.items() if k not in ("tcp", "cc")}
            assert {k: v for k, v in after.items() if k not in ("tcp", "cc")} == others, what
    # The paper's stack set options of its own, and they are gone.
    assert replaced > 0 or name == "mpcubic-cycle", name


def test_the_paper_settings_are_kept_where_the_paper_left_them_to_its_profile() -> None:
    """MPCubic's flows name the ns2 profile alone: on Linux 6.18 they keep ns-2's 1000-byte segment and window
    of 2 segments and the CUBIC ns-2 would run, where a bare `linux` flow would send 1400 B from a window of 10."""
    e = CATALOGUE["mpcubic-cycle"]
    (flow,) = list(flows_of(e.on("linux").build(e.x_values[0], "cubic", 1)))
    assert flow["tcp"] == {"profile": "linux", "mss": 1000, "initial_cwnd_segments": 2}
    assert flow["cc"]["type"] == "cubic"
    lisa = CATALOGUE["lisa-shared-buffer"]
    tcp = lisa.scenario(lisa.x_values[0], "tcp", 1).flows[0]
    assert isinstance(tcp, TcpFlow) and tcp.cc is not None and tcp.cc.type == "reno"
    # A flow that names no congestion control runs its own profile's on the new stack too (rfc: Reno).
    bare = TcpFlow(name="f", src="a", dst="b", tcp=TcpOptions(profile="rfc", mss=1000))
    scenario = mpsim.Scenario(duration="1s", hosts=["a", "b"], links=[{"from": "a", "to": "b", "rate": "1Mbps"}])
    (moved,) = on_stack(scenario.model_copy(update={"flows": [bare]}), "linux").flows
    assert isinstance(moved, TcpFlow) and moved.cc is not None and moved.cc.type == "reno"
    assert on_stack(scenario, "paper") is scenario


def test_every_experiment_runs_valid_scenarios_on_every_stack() -> None:
    """Every variant of every experiment at its first x (the move does not depend on x) on each real stack."""
    for e in CATALOGUE.values():
        for stack in REAL:
            moved = e.on(stack)
            for variant in e.variants:
                scenario = moved.scenario(e.x_values[0], variant, 1)
                scenario.check()
                assert moved.build(e.x_values[0], variant, 1) == scenario.to_core(), (e.name, stack)


def test_no_two_stacks_share_a_store_key() -> None:
    """The store keys a run by its whole core configuration: every run of every experiment has a key of its own on
    each stack, but where the experiment has no TCP flow to move (the Wi-Fi emulation's UDP flow alone), whose
    configuration and so results are the same on every stack."""
    without_tcp = set()
    for e in CATALOGUE.values():
        for variant in e.variants:
            configs = {s: e.on(s).build(e.x_values[0], variant, 2) for s in JUDGED_ON}
            keys = {run_key(cfg, e.extract or experiment_row) for cfg in configs.values()}
            if not any(flows_of(configs["paper"])):
                without_tcp.add(e.name)
                assert len(keys) == 1, e.name
                continue
            assert len(keys) == len(JUDGED_ON), (e.name, variant)
    assert without_tcp == {"couple-loss-pattern"}


def test_an_experiment_moves_between_stacks_and_refuses_one_it_does_not_know() -> None:
    e = CATALOGUE["gsam-subflows"]
    assert e.definition is not None and e.on("ns3").definition == e.definition
    assert e.on("linux").on("paper").build(4, "gsam", 1) == e.build(4, "gsam", 1)
    assert e.on("linux").on("ns3").build(4, "gsam", 1) == e.on("ns3").build(4, "gsam", 1)
    assert dataclasses.replace(e.on("linux"), description="d").build(4, "tcp", 1) == e.on("linux").build(4, "tcp", 1)
    with pytest.raises(ValueError, match="runs_on: unknown stack 'bsd'; allowed: paper, linux, ns3"):
        e.on("bsd")
    with pytest.raises(ValueError, match="stack: unknown 'bsd'; allowed: paper, linux, ns3"):
        on_stack(e.scenario(4, "tcp", 1), "bsd")
