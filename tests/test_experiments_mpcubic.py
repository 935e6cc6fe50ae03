"""The MPCubic paper's checks: each cites the paper verbatim, says where and how its band follows from the paper,
every figure and table of Sec. IV has one, and the measures they read (Table II's growth within one run, Jain's
index, the fluctuation of a rate) are what they say."""

from __future__ import annotations

import math

import pytest

from mpsim.engine import run_config
from mpsim.experiments import CATALOGUE, get, mpcubic
from mpsim.experiments.claims import Band, Claim, Compare, CompareMetrics, Equivalent, Ratio, Trend
from mpsim.topologies import Network, Route
from paper_texts import collapsed, paper_words

EXPERIMENTS = [e for e in CATALOGUE.values() if e.paper == mpcubic.PAPER]
CHECKS = [(e.name, c) for e in EXPERIMENTS for c in e.checks]


def has_band(c: Claim) -> bool:
    """Whether the check has a number of its own: a band, a tolerance, a factor or a margin."""
    if isinstance(c, Band | Ratio):
        return True
    if isinstance(c, Compare | CompareMetrics):
        return c.tolerance != 0 or c.factor != 1
    if isinstance(c, Trend):
        return c.tolerance != 0 or c.mode == "rank"
    return isinstance(c, Equivalent)


def test_the_paper_has_eight_experiments_and_every_claim_is_a_check() -> None:
    assert len(EXPERIMENTS) == 8
    for e in EXPERIMENTS:
        assert e.checks, e.name
        assert set(e.claims) == {c.text for c in e.checks}, e.name


@pytest.mark.parametrize(("name", "check"), CHECKS, ids=[f"{n}: {c.text[:40]}" for n, c in CHECKS])
def test_every_check_quotes_the_paper_verbatim_and_says_where(name: str, check: Claim) -> None:
    paper = paper_words("004_")
    assert check.quote and collapsed(check.quote) in paper, (name, check.quote)
    assert check.where, (name, check.text)


@pytest.mark.parametrize(("name", "check"), CHECKS, ids=[f"{n}: {c.text[:40]}" for n, c in CHECKS])
def test_every_check_says_how_its_band_follows_from_the_paper(name: str, check: Claim) -> None:
    # Every check says it, and one with a number of its own says where the number comes from.
    assert check.derivation, (name, check.text)
    if has_band(check):
        assert any(ch.isdigit() for ch in check.derivation), (name, check.derivation)
    assert not (isinstance(check, Trend) and check.mode == "endpoints"), (name, check.text)
    assert not check.exploration, (name, check.text)


def test_every_figure_and_table_of_the_evaluation_has_a_check() -> None:
    # Fig. 2 draws the scenarios; every other figure of Sec. IV and both tables are judged.
    where = " ".join(c.where for _, c in CHECKS)
    for figure in ("Fig. 1", "Fig. 3", "Fig. 4", "Fig. 5(a)", "Fig. 5(b)", "Fig. 6(a)", "Fig. 6(b)", "Fig. 7"):
        assert figure in where, figure
    for table in ("Table I,", "Table II,"):
        assert table in where, table


def test_each_headline_claim_is_judged_by_a_check_marked_headline() -> None:
    headline = {(name, c.metric if isinstance(c.metric, str) else str(c.metric)) for name, c in CHECKS if c.headline}
    # Stability (Figs. 1, 3), throughput improvement (Figs. 6, 7, Table I), fair sharing with Cubic, TCP and
    # MPTCP (Figs. 4, 5), load balancing (Fig. 1 bottom, Table II, Fig. 7).
    assert {
        ("mpcubic-trajectory", "share2_sd_equal"),
        ("mpcubic-cycle", "epoch_s"),
        ("mpcubic-pooling", "rate_mbps"),
        ("mpcubic-hetero", "rate_mbps"),
        ("mpcubic-triangle", "total_mbps"),
        ("mpcubic-shared", "rate_mbps"),
        ("mpcubic-reno", "rate_mbps"),
        ("mpcubic-vs-mptcp", "rate_mbps"),
        ("mpcubic-trajectory", "share2_mean_unequal"),
        ("mpcubic-triangle", "loss_growth_link1"),
        ("mpcubic-hetero", "path1_mbps"),
    } <= headline
    fair = [c for _, c in CHECKS if c.quote == mpcubic.FAIR_SHARING]
    assert len(fair) == 2 and all(c.headline for c in fair)


def test_the_bands_are_the_papers_numbers_within_the_conventions() -> None:
    """Each band from the paper's own numbers, ± 25 % for an exact number (never from mpsim's)."""
    assert pytest.approx((2.5 * 0.75, 2.5 * 1.25)) == mpcubic.CYCLE
    # Table II: "five times" and 0.0155/0.0029; "double" and 0.0032/0.0020.
    assert pytest.approx((5 * 0.75, 0.0155 / 0.0029 * 1.25), abs=0.005) == mpcubic.FIVE_TIMES
    assert pytest.approx((0.0032 / 0.0020 * 0.75, 2 * 1.25)) == mpcubic.DOUBLE
    assert mpcubic.NEARLY_EQUAL == mpcubic.SLIGHTLY == 0.10
    (five,) = [c for _, c in CHECKS if isinstance(c, Band) and c.variants == ("unmpcubic",)]
    (double,) = [c for _, c in CHECKS if isinstance(c, Band) and c.variants == ("mpcubic",)]
    assert (five.low, five.high, double.low, double.high) == (*mpcubic.FIVE_TIMES, *mpcubic.DOUBLE)


def test_fig5a_compares_mpcubic_with_the_tcp_flow_without_tolerance() -> None:
    (greedy,) = [c for n, c in CHECKS if n == "mpcubic-reno" and isinstance(c, CompareMetrics) and c.op == "<"]
    assert (greedy.variant, greedy.metric, greedy.other, greedy.tolerance) == (
        "mpcubic",
        "rate_mbps",
        "competing_mbps",
        0.0,
    )


def test_jains_index_is_1_when_equal_and_1_over_n_when_one_takes_all() -> None:
    assert mpcubic.jain_index([40.0, 40.0, 40.0]) == pytest.approx(1.0)
    assert mpcubic.jain_index([90.0, 0.0, 0.0]) == pytest.approx(1 / 3)
    # Table I's own numbers: MPCubic the more even.
    assert mpcubic.jain_index([63.7, 43.7, 64.2]) > mpcubic.jain_index([64.1, 40.6, 63.3])
    assert math.isnan(mpcubic.jain_index([0.0, 0.0]))


def test_each_triangle_run_carries_a_reference_copy_with_link_1_at_50_mbps() -> None:
    exp = get("mpcubic-triangle")
    for x in exp.x_values:
        cfg = exp.build(x, "mpcubic", 1)
        rates = {link["name"]: link["rate_bps"] for link in cfg["links"]}
        assert rates["L1"] == x * 1_000_000 and rates["ref-L1"] == 50_000_000
        assert rates["L2"] == rates["ref-L2"] == rates["L3"] == rates["ref-L3"] == 50_000_000
        names = [c["name"] for c in cfg["mptcp_connections"]]
        assert names == ["measured_A", "measured_B", "measured_C", "ref-A", "ref-B", "ref-C"]
    # The copy's subflows leave from its own addresses, one per link of flow A (links 1 and 2).
    (ref_a,) = [c for c in exp.build(25, "mpcubic", 1)["mptcp_connections"] if c["name"] == "ref-A"]
    assert (ref_a["src_addrs"], ref_a["dst_addrs"]) == (["ref-SA.1", "ref-SA.2"], ["ref-DA"])
    with pytest.raises(ValueError, match="routes or link changes"):
        mpcubic._prefixed(Network(routes=[Route(node="A", dst="B", via=["A-B"])]), "ref-")


def test_a_short_triangle_run_reads_the_reference_apart_from_the_measured_flows() -> None:
    exp = get("mpcubic-triangle")
    scenario = exp.scenario(25, "unmpcubic", 1)
    assert scenario.throughput is not None
    # 20 s instead of 400, rates after 5 s: enough for every flow to deliver in every bin.
    binned = scenario.throughput.model_copy(update={"start": 5 * 10**9})
    short = scenario.model_copy(update={"duration": 20 * 10**9, "throughput": binned})
    cfg = short.to_core()
    row = mpcubic.rates_row(run_config(cfg), cfg)
    assert {k for k in row if k.startswith("rate_") and k.endswith("_mbps") and len(k) == 11} == {
        "rate_A_mbps",
        "rate_B_mbps",
        "rate_C_mbps",
    }
    assert row["loss_growth_link1"] == pytest.approx(row["loss_pct_link1"] / row["loss_pct_link1_reference"])
    assert row["jain_index"] == pytest.approx(mpcubic.jain_index([row[f"rate_{f}_mbps"] for f in "ABC"]))
    assert row["total_mbps"] == pytest.approx(sum(row[f"rate_{f}_mbps"] for f in "ABC"))
    assert row["rate_sd_mbps"] > 0
