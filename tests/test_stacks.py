"""The papers' stacks, defined once (python/mpsim/experiments/stacks.py): every experiment that emulates one
runs exactly its settings, and the legacy ns-3 model's 16-bit window bounds each subflow's flight."""

from __future__ import annotations

from typing import Any

import pytest

import mpsim
from mpsim.experiments import CATALOGUE
from mpsim.experiments.base import Experiment
from mpsim.experiments.stacks import (
    LEGACY_NS3,
    LINUX_3_14,
    LINUX_3_14_LIA,
    LISA_CREDIT_ONLY,
    PAPER_SETTINGS,
    STACKS,
)
from mpsim.scenario import MptcpFlow, SlowStart, TcpFlow, TcpOptions


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
