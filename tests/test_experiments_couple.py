"""The Couple+ experiments (Xue et al., IEEE TVT 2017): Fig. 8's paths and their base RTT, the coded
subflow in every variant but ``lia``, the x values the paper allows, every experiment in quick mode, and every
check citing the paper's own words, with the derivation of its band."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import mpsim
from mpsim.experiments import CATALOGUE, couple, get
from mpsim.experiments.claims import (
    Band,
    Bound,
    Claim,
    Compare,
    CompareMetrics,
    Difference,
    Equivalent,
    NotCheckable,
    Ratio,
    Trend,
)
from mpsim.experiments.reproduce import reproduce
from mpsim.scenario import Coding, CongestionControl, MptcpFlow, TcpFlow
from paper_texts import collapsed, paper_words

COUPLE_EXPERIMENTS = [name for name in CATALOGUE if name.startswith("couple-")]
PAPER_FILE = "002_4899a4030525d091.txt"
"""The paper's plain text (not in the repository: ``paper_texts``)."""


def every_check() -> list[tuple[str, Claim]]:
    return [(name, c) for name in COUPLE_EXPERIMENTS for c in get(name).checks]


def has_band(c: Claim) -> bool:
    """Whether the check's statement rests on a number that is not the bare comparison: a band or bound, a
    margin, a tolerance, a factor, a significance criterion or level."""
    if isinstance(c, Band | Bound | Ratio | Difference | Equivalent):
        return True
    if isinstance(c, Trend):
        return c.mode == "rank" or c.tolerance != 0
    if isinstance(c, Compare | CompareMetrics):
        return c.tolerance != 0 or c.factor != 1 or c.criterion == "significant"
    return False


def test_the_catalogue_holds_every_figure() -> None:
    assert set(COUPLE_EXPERIMENTS) == {
        "couple-wired-wireless-p1",
        "couple-wired-wireless-p5",
        "couple-wired-wireless-p10",
        "couple-noncongested-p1",
        "couple-noncongested-p5",
        "couple-noncongested-p10",
        "couple-sensed-loss",
        "couple-mobile",
        "couple-loss-pattern",
    }


def test_redundancy_covers_the_wireless_loss() -> None:
    # Table II: r ≥ 1/(1 − p): 1/0.99 = 1.0101, 1/0.95 = 1.0526, 1/0.9 = 1.1111.
    assert couple.redundancies(0.01) == (1.05, 1.1, 1.15, 1.2, 1.25, 1.3)
    assert couple.redundancies(0.05) == (1.1, 1.15, 1.2, 1.25, 1.3)
    assert couple.redundancies(0.10) == (1.15, 1.2, 1.25, 1.3)


def test_subflow_one_is_coded_except_in_standard_mptcp() -> None:
    for variant in couple.VARIANTS:
        scenario = couple.wired_wireless(0.05, 1.25, variant, 1)
        (conn,) = [f for f in scenario.flows if isinstance(f, MptcpFlow)]
        expected = {} if variant == "lia" else {"S.1": Coding(window=couple.WINDOW, redundancy=1.25)}
        assert conn.coding == expected, variant
        scenario.check()
        if variant == "couple_plus":
            assert conn.cc == CongestionControl(type="couple_plus")


def test_every_path_has_a_base_rtt_of_60_ms() -> None:
    """Each path (three 1 Mbit/s, 10 ms hops each way) has a 60 ms round trip of propagation: a transfer of
    one 1400-byte segment takes two of them (handshake, then the segment and its ACK) plus the segment's
    serialisation on the three hops, whatever the path."""
    scenario = couple.wired_wireless(0.0, 1.05, "lia", 1)
    for src, dst in (("S.0", "D"), ("S.1", "D"), ("T", "U")):
        probe = TcpFlow(name="probe", src=src, dst=dst, size=f"{couple.MSS}B", tcp=couple.TCP)
        alone = scenario.model_copy(update={"flows": [probe], "throughput": None, "stop_when_complete": []})
        (row,) = mpsim.run(alone).raw["tcp_flows"]
        # Handshake: SYN + SYN-ACK (3 hops each, 60 ms) and the data segment and its ACK (60 ms): at least
        # 120 ms of propagation; serialisation of 1440 B three times at 1 Mbit/s is 34.56 ms.
        assert 154_000_000 < row["fct_ns"] < 160_000_000, (src, row["fct_ns"])


@pytest.mark.parametrize("name", COUPLE_EXPERIMENTS)
def test_every_couple_experiment_reproduces_in_quick_mode(name: str, tmp_path: Path) -> None:
    exp = get(name)
    result = reproduce(name, tmp_path, quick=True, jobs=2, progress=False)
    table = pq.read_table(tmp_path / name / "results.parquet")
    assert table.num_rows == len(exp.quick_x_values) * len(exp.variants) * exp.quick_runs
    for panel in exp.panels:
        assert panel.metric in table.column_names
        assert all(not math.isnan(v) for v in table.column(panel.metric).to_pylist()), panel.metric
    assert (tmp_path / name / "figure.png").stat().st_size > 0
    assert repr(table.to_pylist()) == repr(result.table.to_pylist())


def test_coding_masks_the_wireless_loss_of_a_lone_connection() -> None:
    """Fig. 14's setting at p = 0.05, R = 1.25, run 1: coded under LIA (``mptcp_nc``), subflow 1 carries more of
    the 5 MB than uncoded (``lia``), and the transfer ends sooner. (Couple+ on the same subflow can judge a run
    of wireless losses congestion, its RTT being twice the minimum behind the standing queue: not a mechanism
    to pin on one run.)"""
    exp = get("couple-noncongested-p5")
    rows = exp.rows([1.25], ["lia", "mptcp_nc"], [1])
    lia, coded = (next(r for r in rows if r["variant"] == v) for v in ("lia", "mptcp_nc"))
    assert coded["sub1_mb"] > lia["sub1_mb"]
    assert coded["fct_s"] < lia["fct_s"]


def test_the_loss_pattern_run_is_cut_after_whole_cycles() -> None:
    """Each x value sends exactly 21 packets per cycle: 100 kbit/s of 1000-byte packets is one per 80 ms."""
    exp = get("couple-loss-pattern")
    for cycles in (1, 3):
        (row,) = exp.point(cycles, "wifi_emulation", [1])
        assert row["sent_pkts"] == 21 * cycles


def test_a_scenario_codes_a_tcp_flow_and_a_subflow_by_source_address() -> None:
    data = {
        "seed": 1,
        "duration": "3s",
        "hosts": ["S", "D"],
        "addresses": [
            {"name": "S.a", "node": "S", "out_link": "S-D", "in_link": "D-S"},
        ],
        "links": [{"from": "S", "to": "D", "rate": "10Mbps", "delay": "10ms", "loss": "2%"}],
        "flows": [
            {"name": "t", "type": "tcp", "src": "S", "dst": "D", "coding": {"window": 4, "redundancy": 1.1}},
            {"name": "m", "type": "mptcp", "src": "S.a", "dst": "D", "cc": "couple_plus", "coding": {"S.a": {}}},
        ],
    }
    scenario = mpsim.Scenario.from_dict(data)
    core = scenario.to_core()
    (tcp,) = core["tcp_flows"]
    assert tcp["coding"] == {"window": 4, "redundancy": 1.1, "header_bytes": 16, "ack_header_bytes": 8}
    (conn,) = core["mptcp_connections"]
    assert conn["coding"] == {"S.a": {"window": 6, "redundancy": 1.25, "header_bytes": 16, "ack_header_bytes": 8}}
    res = mpsim.run(scenario)
    assert all(f["bytes_delivered"] > 0 for f in res.raw["tcp_flows"] + res.raw["mptcp_connections"])


def test_a_coding_problem_names_the_field() -> None:
    cfg = couple.wired_wireless(0.01, 1.05, "mptcp_nc", 1).to_core()
    cfg["mptcp_connections"][0]["coding"] = {"S.9": {"window": 0, "redundancy": 0.5}}
    with pytest.raises(mpsim.ConfigError) as e:
        mpsim.validate_config(cfg)
    text = str(e.value)
    for expected in ("mptcp_connections[0].coding", "S.9", "coding.S.9.window", "coding.S.9.redundancy"):
        assert expected in text, text


def test_every_check_says_where_the_paper_makes_it_and_how_its_band_follows() -> None:
    """Each check quotes the paper and says where; a check of the paper's (no exploration, no figure it cannot
    judge) says how its band follows from the paper's words, and so does every check with a band."""
    for name, c in every_check():
        assert c.quote and c.where, (name, c.text)
        if has_band(c) or not (c.exploration or isinstance(c, NotCheckable)):
            assert c.derivation, (name, c.text)
        if isinstance(c, NotCheckable):
            assert c.reason, (name, c.text)


def test_the_headline_claims_are_checked_in_every_figure_that_shows_them() -> None:
    """cp-H1, H4, H5 (Figs. 9-10, every p), cp-H3 (Fig. 14, every p), cp-H2 (Eq. 6), cp-H6 (Figs. 12-13),
    cp-H7 (Fig. 7, not checkable): docs/reproduction.md lists them."""
    headline = {name: sum(c.headline for c in get(name).checks) for name in COUPLE_EXPERIMENTS}
    for tag in ("p1", "p5", "p10"):
        assert headline[f"couple-wired-wireless-{tag}"] == 5
        assert headline[f"couple-noncongested-{tag}"] == 1
    assert headline["couple-sensed-loss"] == headline["couple-mobile"] == headline["couple-loss-pattern"] == 1
    assert not any(c.headline and c.exploration for _, c in every_check())


def test_every_quote_is_the_papers_words_verbatim() -> None:
    """Whitespace aside, every quote, and every sentence a NotCheckable's reason quotes, is in the paper's text."""
    paper = paper_words(PAPER_FILE[:4])
    for name, c in every_check():
        assert collapsed(c.quote) in paper, (name, c.quote)
        if isinstance(c, NotCheckable):
            for quoted in re.findall(r"“([^”]+)”", c.reason):
                assert collapsed(quoted) in paper, (name, quoted)


def test_couple_runs_the_legacy_ns3_model_with_1400_byte_segments_and_iw_1() -> None:
    """The stack the CSS paper's reasoning gives the paper (docs/reproduction.md, "Couple+"), for the MPTCP
    connection and the single-path TCP flow alike; the UDP-only loss pattern has no TCP to set."""
    for name in COUPLE_EXPERIMENTS:
        exp = get(name)
        assert exp.stack == (None if name == "couple-loss-pattern" else "legacy_ns3"), name
    assert couple.TCP.mss == 1400 and couple.TCP.initial_cwnd == 1 and couple.TCP.initial_ssthresh is None
    scenario = couple.wired_wireless(0.01, 1.05, "couple_plus", 1)
    assert {f.name: f.tcp for f in scenario.flows} == {"measured": couple.TCP, "competing": couple.TCP}
