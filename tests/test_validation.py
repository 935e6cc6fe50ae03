"""The ns-3 validation harness: the mpsim builder makes the network and TCP the description says, and the
comparison applies the criterion as stated (FCT within ±5 %, retransmissions within ±10 % or ±1 below 10)."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

import mpsim
from validation import compare, mpsim_side
from validation.__main__ import REFERENCE, tcp_override
from validation.scenarios import BUFFERS_PKTS, FILE_SIZES_PKTS, PHASES, VARIANTS, Scenario, dumbbell, grid, parking_lot

MS = 1_000_000


def _core(sc: Scenario) -> dict[str, Any]:
    return mpsim.Scenario.from_dict(mpsim_side.scenario(sc)).to_core()


def _link(core: dict[str, Any], name: str) -> dict[str, Any]:
    return next(link for link in core["links"] if link["name"] == name)


def _variant(name: str) -> Any:
    return next(v for v in VARIANTS if v.name == name)


def test_grid_covers_every_dumbbell_combination_and_the_parking_lot() -> None:
    rows = grid()
    dumbbells = [s for s in rows if s.topology == "dumbbell"]
    assert len(dumbbells) == len(FILE_SIZES_PKTS) * len(BUFFERS_PKTS) * len(PHASES) * len(VARIANTS) == 216
    assert len({s.name for s in rows}) == len(rows)
    assert any(s.topology == "parking_lot" for s in rows)


def test_dumbbell_links_queues_and_delays_are_the_description() -> None:
    sc = dumbbell(200, 47, "early", _variant("newreno"))
    core = _core(sc)
    for name in ("R1-R2", "R2-R1"):
        link = _link(core, name)
        assert link["rate_bps"] == 5_000_000
        assert link["delay_ns"] == 30 * MS
        assert link["queue"] == {"type": "drop_tail", "limit_pkts": 47}
    for name in ("S1-R1", "R1-S1", "R2-D3", "D3-R2"):
        link = _link(core, name)
        assert link["rate_bps"] == 100_000_000
        assert link["delay_ns"] == 10 * MS
        assert link["queue"] == {"type": "drop_tail", "limit_pkts": 100}


def test_measured_and_background_flows_start_and_size_as_described() -> None:
    sc = dumbbell(200, 20, "early", _variant("newreno"))
    core = _core(sc)
    short = next(f for f in core["tcp_flows"] if f["name"] == "short")
    assert short["size_bytes"] == 200 * 1400
    assert short["start_ns"] == 300 * MS
    long = next(f for f in core["tcp_flows"] if f["name"] == "long2")
    assert long["start_ns"] == 0 and "size_bytes" not in long
    udp = core["udp_flows"][0]
    assert udp["packet_size_bytes"] == 1000
    assert udp["pattern"] == {"type": "cbr", "rate_bps": 500_000}
    assert core["stop_when_complete"] == ["short"]


def test_alone_has_no_background() -> None:
    core = _core(dumbbell(50, 20, "alone", _variant("newreno")))
    assert [f["name"] for f in core["tcp_flows"]] == ["short"]
    assert core.get("udp_flows", []) == []


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("newreno", {"profile": "ns3"}),
        ("nosack", {"profile": "ns3", "sack": False}),
        ("delack1", {"profile": "ns3", "delack_segments": 1}),
        ("cubic", {"profile": "ns3"}),
    ],
)
def test_tcp_overrides_are_only_what_the_variant_implies(variant: str, expected: dict[str, Any]) -> None:
    sc = dumbbell(100, 20, "alone", _variant(variant))
    assert mpsim_side.tcp_options(sc) == expected
    flow = _core(sc)["tcp_flows"][0]
    assert flow["tcp"]["profile"] == "ns3"
    assert flow["tcp"].get("sack", True) is (variant != "nosack")
    assert flow["tcp"].get("delack_segments", 2) == (1 if variant == "delack1" else 2)
    assert flow["cc"]["type"] == ("cubic" if variant == "cubic" else "reno")


def test_parking_lot_routes_each_flow_over_its_bottlenecks() -> None:
    core = _core(parking_lot(100, 20, _variant("newreno")))
    for name in ("R1-R2", "R2-R3"):
        assert _link(core, name)["queue"]["limit_pkts"] == 20
    ends = {(link["from"], link["to"]) for link in core["links"]}
    assert {("S1", "R1"), ("R3", "D1"), ("S2", "R1"), ("R2", "D2"), ("S3", "R2"), ("R3", "D3")} <= ends
    assert {f["name"] for f in core["tcp_flows"]} == {"short", "long2", "long3"}


def test_fct_criterion_is_five_percent_either_way() -> None:
    assert compare.fct_ok(1.05, 1.0)
    assert compare.fct_ok(0.95, 1.0)
    assert not compare.fct_ok(1.0501, 1.0)
    assert not compare.fct_ok(0.9499, 1.0)
    assert not compare.fct_ok(None, 1.0)


def test_retransmission_criterion_is_ten_percent_or_one_packet_below_ten() -> None:
    assert compare.retx_ok(0, 1) and compare.retx_ok(10, 9) and compare.retx_ok(8, 9)
    assert not compare.retx_ok(2, 0) and not compare.retx_ok(11, 9)
    assert compare.retx_ok(22, 20) and compare.retx_ok(18, 20)
    assert not compare.retx_ok(23, 20) and not compare.retx_ok(17, 20)
    assert compare.retx_ok(11, 10) and not compare.retx_ok(12, 10)


def _row(name: str, fct: float | None, retx: int) -> dict[str, Any]:
    return {
        "name": name,
        "fct_s": fct,
        "retransmissions": retx,
        "rto_count": 0,
        "fast_recoveries": 0,
        "cwnd_bytes_at_end": 14_000,
    }


def test_comparison_pairs_rows_by_name_and_needs_both_criteria() -> None:
    a, b, c = "db-cubic-early-b20-f50", "db-cubic-late-b20-f50", "pl-cubic-b20-f100"
    ns3 = [_row(a, 2.0, 20), _row(b, 2.0, 20), _row(c, 2.0, 20)]
    mine = [_row(c, 2.0, 30), _row(a, 2.08, 21), _row(b, 2.2, 20)]
    rows = compare.compare(ns3, mine)
    assert [r.name for r in rows] == [c, a, b]
    assert [r.passed for r in rows] == [False, True, False]
    assert rows[1].fct_diff == pytest.approx(0.04)
    groups = compare.summary(rows)
    assert groups["all"] == (1, 3)
    assert groups["db-cubic"] == (1, 2)
    assert groups["db-early"] == (1, 1)
    assert groups["pl-cubic"] == (0, 1)


def test_a_scenario_without_reference_is_an_error_naming_it() -> None:
    with pytest.raises(KeyError, match="'x' has no ns-3 reference row"):
        compare.compare([_row("a", 1.0, 0)], [_row("x", 1.0, 0)])


def test_only_the_ns3_block_of_the_document_is_replaced() -> None:
    doc = f"# V\n\nlinux table\n{compare.BEGIN}\nold\n{compare.END}\nafter\n"
    out = compare.replace_block(doc, "new\n")
    assert out == f"# V\n\nlinux table\n{compare.BEGIN}\nnew\n{compare.END}\nafter\n"
    with pytest.raises(ValueError, match="markers"):
        compare.replace_block("no markers", "x")


def test_what_if_options_reach_every_tcp_flow() -> None:
    sc = dumbbell(100, 20, "late", _variant("nosack"))
    core = mpsim.Scenario.from_dict(mpsim_side.scenario(sc, {"recovery": "sack"})).to_core()
    assert [f["tcp"]["recovery"] for f in core["tcp_flows"]] == ["sack", "sack"]
    assert all(f["tcp"]["sack"] is False for f in core["tcp_flows"])


def test_what_if_values_are_json_or_text() -> None:
    assert tcp_override("sack=false") == ("sack", False)
    assert tcp_override("initial_cwnd=4") == ("initial_cwnd", 4)
    assert tcp_override("recovery=sack") == ("recovery", "sack")
    with pytest.raises(argparse.ArgumentTypeError, match="expected KEY=VALUE, got 'sack'"):
        tcp_override("sack")


def test_committed_reference_has_one_row_per_scenario_of_the_grid() -> None:
    rows = compare.read_reference(REFERENCE)
    assert [r["name"] for r in rows] == [s.name for s in grid()]
    assert all(r["fct_s"] is not None for r in rows)
