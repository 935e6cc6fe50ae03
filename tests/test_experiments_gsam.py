"""The GSAM paper's experiments: topologies with the paper's base RTT and bottleneck rate, GSAM's K as
Eq. 15's unclamped upper end, valid configurations for every variant, and one headline sign."""

from __future__ import annotations

import math
import statistics
from typing import Any

import pytest

import mpsim
from mpsim.experiments import CATALOGUE, VARIANTS, get
from mpsim.experiments import gsam as g
from mpsim.experiments.base import Experiment
from mpsim.experiments.claims import (
    Band,
    BestCase,
    Bound,
    Claim,
    Compare,
    Equivalent,
    NotCheckable,
    Order,
    Ratio,
    Trend,
    single,
)
from mpsim.experiments.stacks import min_rtt_ns
from mpsim.scenario import UdpFlow
from paper_texts import collapsed, paper_words

MS = 1_000_000
GSAM_NAMES = [n for n in CATALOGUE if n.startswith("gsam-")]
REQUIRED = [
    "gsam-subflows",
    "gsam-iw",
    "gsam-shared",
    "gsam-competing",
    "gsam-udp",
    "gsam-nonshared",
    "gsam-codel-interval",
    "gsam-codel-limit",
]


def link(cfg: dict[str, Any], name: str) -> dict[str, Any]:
    return next(lk for lk in cfg["links"] if lk["name"] == name)


def one_way_ns(cfg: dict[str, Any], names: list[str]) -> int:
    return sum(link(cfg, n)["delay_ns"] for n in names)


def test_catalogue_has_every_required_experiment_with_all_variants() -> None:
    for name in REQUIRED:
        assert name in CATALOGUE, name
    for name in GSAM_NAMES:
        assert get(name).variants == VARIANTS


def test_ns3_topology_rtt_150ms_bottleneck_5mbps_50pkts() -> None:
    cfg = get("gsam-subflows").build(4, "gsam", 1)
    path = ["S-R1", "R1-R2", "R2-C"]
    back = ["C-R2", "R2-R1", "R1-S"]
    assert one_way_ns(cfg, path) + one_way_ns(cfg, back) == 150 * MS
    bottleneck = link(cfg, "R1-R2")
    assert bottleneck["rate_bps"] == 5_000_000
    assert bottleneck["queue"] == {"type": "drop_tail", "limit_pkts": 50}
    conn = cfg["mptcp_connections"][0]
    assert conn["path_manager"] == {"type": "ndiffports", "subflows": 4}
    assert conn["tcp"]["initial_cwnd_segments"] == 1 and conn["tcp"]["mss"] == 536
    # K = D/2 + B·S·8/(2C) = 75 ms + 50·578·8/(2·5e6) s = 75 + 23.12 ms, below D = 150 ms (not clamped).
    assert conn["slow_start"] == {"type": "gsam", "k_ns": 98_120_000}
    assert [c["name"] for c in cfg["mptcp_connections"]] == ["measured0", "measured1"]
    assert cfg["stop_when_complete"] == ["measured0", "measured1"]


def test_iw_applies_to_every_variant_and_lisa_bounds_follow_it() -> None:
    e = get("gsam-iw")
    tcp = e.build(4, "tcp", 1)
    assert all(f["tcp"]["initial_cwnd_segments"] == 4 for f in tcp["tcp_flows"])
    lisa = e.build(4, "lisa", 1)["mptcp_connections"][0]
    assert lisa["slow_start"] == {
        "type": "lisa",
        "ignore_acks": False,
        "max_credit_segments": 4,
        "min_credit_segments": 3,
    }
    assert lisa["path_manager"]["subflows"] == 6


@pytest.mark.parametrize(
    "name", ["gsam-shared", "gsam-competing-buffer", "gsam-udp", "gsam-codel-interval", "gsam-codel-limit"]
)
def test_shared_topology_rtt_40ms_bottleneck_5mbps_both_interfaces(name: str) -> None:
    e = get(name)
    cfg = e.build(e.x_values[0], "mptcp", 1)
    for first, last in (("S2a-R1", "R1-S2a"), ("S2b-R1", "R1-S2b")):
        forward = [first, "R1-R2", "R2-C2"]
        backward = ["C2-R2", "R2-R1", last]
        assert one_way_ns(cfg, forward) + one_way_ns(cfg, backward) == 40 * MS
    for bottleneck in ("R1-R2", "R2-R1"):
        assert link(cfg, bottleneck)["rate_bps"] == 5_000_000
        assert link(cfg, bottleneck)["loss"] == {"type": "bernoulli", "p": 1e-4}
    assert all(lk["rate_bps"] == 1_000_000_000 for lk in cfg["links"] if "R1-R2" != lk["name"] != "R2-R1")


def test_nonshared_topology_two_disjoint_100mbps_paths_of_40ms() -> None:
    cfg = get("gsam-nonshared").build(200, "mptcp", 1)
    for r, iface in (("R1", "S2a"), ("R2", "S2b")):
        forward = [f"{iface}-{r}", f"{r}-SW", "SW-C2"]
        backward = ["C2-SW", f"SW-{r}", f"{r}-{iface}"]
        assert one_way_ns(cfg, forward) + one_way_ns(cfg, backward) == 40 * MS
        assert link(cfg, f"{r}-SW")["rate_bps"] == 100_000_000
        assert link(cfg, f"{r}-SW")["queue"] == {"type": "drop_tail", "limit_pkts": 200}
    assert len(cfg["mptcp_connections"]) == 30


def test_k_is_eq15_upper_end_unclamped() -> None:
    # D = 40 ms propagation + a 1440 B segment and a 40 B ACK serialised on each link of the path:
    # 1480·8 bits at 5 Mbit/s (2.368 ms) and twice at 1 Gbit/s (2 × 11.84 µs).
    d = 40 * MS + 2_368_000 + 2 * 11_840
    assert min_rtt_ns(g.data_path(get("gsam-shared").scenario(20, "gsam", 1).network()), 1440, 40) == d
    for buffer_pkts in (5, 20, 100):
        cfg = get("gsam-shared").build(buffer_pkts, "gsam", 1)
        k = cfg["mptcp_connections"][0]["slow_start"]["k_ns"]
        # B·1440·8/(2·5 Mbit/s) = B · 1.152 ms.
        assert k == d // 2 + buffer_pkts * 1_152_000
    # At 5 packets K (27.0 ms) is below D: the reading that does not clamp.
    assert get("gsam-shared").build(5, "gsam", 1)["mptcp_connections"][0]["slow_start"]["k_ns"] < d
    # CoDel: B is the limit.
    codel = get("gsam-codel-interval").build(40, "gsam", 1)
    assert link(codel, "R1-R2")["queue"] == {
        "type": "codel",
        "target_ns": 5 * MS,
        "interval_ns": 40 * MS,
        "limit_pkts": 20,
    }
    assert codel["mptcp_connections"][0]["slow_start"]["k_ns"] == d // 2 + 20 * 1_152_000


def test_competing_and_udp_traffic() -> None:
    cfg = get("gsam-competing-buffer").build(20, "gsam", 1)
    assert [f["name"] for f in cfg["tcp_flows"]] == [f"competing{i}" for i in range(5)]
    assert all(f["size_bytes"] == 80_000 and f["src"] == "S1" for f in cfg["tcp_flows"])
    assert cfg["stop_when_complete"] == [f"measured{i}" for i in range(5)] + [f"competing{i}" for i in range(5)]
    udp = get("gsam-udp").build(20, "gsam", 1)
    assert len(udp["udp_flows"]) == 5
    # 55 datagrams of 1498 B at 5 Mbit/s: the last leaves 54 × 2.3968 ms after the first.
    for f in udp["udp_flows"]:
        assert f["stop_ns"] - f["start_ns"] == 54 * 2_396_800 + 1
    assert udp["stop_when_complete"] == [f"measured{i}" for i in range(5)]


def test_udp_stream_sends_the_80kb_file() -> None:
    cfg = get("gsam-udp").build(100, "tcp", 1)
    res = mpsim.run_config(cfg)
    sent = [f["sent_pkts"] for f in res.raw["udp_flows"]]
    assert sent == [55] * 5


def test_same_run_same_start_times_across_variants_and_x() -> None:
    e = get("gsam-shared-flows")
    a = e.build(5, "mptcp", 3)["mptcp_connections"]
    b = e.build(10, "gsam", 3)["mptcp_connections"]
    assert [c["start_ns"] for c in a] == [c["start_ns"] for c in b[:5]]
    assert all(0 <= c["start_ns"] < 10 * MS for c in b)
    assert [c["start_ns"] for c in e.build(5, "mptcp", 4)["mptcp_connections"]] != [c["start_ns"] for c in a]


@pytest.mark.parametrize("name", GSAM_NAMES)
def test_every_variant_builds_a_valid_config(name: str) -> None:
    e = get(name)
    xs = sorted({e.x_values[0], e.x_values[-1], *e.quick_x_values})
    for variant in e.variants:
        for x in xs:
            mpsim.validate_config(e.build(x, variant, 1))


def mean_fct(name: str, x: Any, variant: str, runs: range) -> float:
    rows = get(name).point(x, variant, runs)
    assert all(r["incomplete"] == 0 for r in rows)
    return statistics.mean(r["fct_s"] for r in rows)


def test_fig2_setting_leaves_the_buffer_no_room_to_overflow() -> None:
    """Fig. 2's setting as specified (5 Mbit/s, 150 ms, 50 packets, 2 × 55 KB of 536-byte segments): both
    transfers together have 2·⌈55000/536⌉ = 206 segments, fewer than the 162 segments of 578 B the pipe
    holds plus the 50 the buffer holds, so the queue can overflow only on a burst, never by a standing excess;
    with 8 subflows each no burst overflows it either, whatever the variant."""
    cfg = get("gsam-subflows").build(8, "mptcp", 1)
    segments = 2 * -(-g.NS3_FILE_BYTES // g.NS3_MSS)
    pipe = 5_000_000 * 150 * MS // (8 * g.NS3_WIRE_BYTES * 1_000_000_000)
    assert segments == 206 and pipe == 162 and segments < pipe + 50
    for variant in VARIANTS:
        raw = mpsim.run_config(get("gsam-subflows").build(8, variant, 1)).raw
        bottleneck = next(lk for lk in raw["links"] if lk["name"] == "R1-R2")
        assert bottleneck["dropped_overflow_pkts"] == 0, variant
    assert cfg["stop_time_ns"] == 120_000 * MS


def test_gsam_beats_mptcp_at_the_testbed_default_operating_point() -> None:
    """Fig. 12's headline at the testbed's default point (buffer 20, 5 × 80 KB): GSAM, the claim's best,
    completes sooner than MPTCP."""
    e = get("gsam-shared")
    best = single(e.checks, Order, "fct_s", ranking=("gsam", "tcp"))
    beats = Compare(best.text, best.metric, left=best.ranking[0], op="<", right="mptcp")
    assert beats.check(e.rows([g.DEFAULT_BUFFER_PKTS], beats.named_variants(), range(1, 4))).verdict == "holds"


def test_gsam_beats_mptcp_with_six_subflows_and_large_initial_window() -> None:
    """Fig. 9's mechanism: 6 uncoupled subflows with IW 8 burst past the 50-packet buffer into RTOs;
    GSAM's smoothing (K < D, so from the first ACK) loses less and completes sooner."""
    assert mean_fct("gsam-iw", 8, "gsam", range(1, 4)) < mean_fct("gsam-iw", 8, "mptcp", range(1, 4))


def many_subflows(e: Experiment, runs: range) -> tuple[Order, list[dict[str, Any]]]:
    """Fig. 2's claim of a variant of its setting (GSAM sooner than MPTCP and LISA from 6 subflows on) and the
    rows of the given runs at every x of its range."""
    claim = single(e.checks, Order, "fct_s")
    xs = [x for x in e.x_values if claim.x_min <= x <= claim.x_max]
    rows = e.rows(xs, claim.named_variants(), runs)
    assert xs and all(r["incomplete"] == 0 for r in rows)
    return claim, rows


def test_with_transfers_beyond_pipe_plus_buffer_gsam_beats_mptcp_at_six_and_eight_subflows() -> None:
    """Fig. 2's headline where the setting lets it act (`gsam-subflows-165kb`: 618 segments > 162 + 50):
    MPTCP's uncoupled slow starts overflow the buffer and wait for RTOs, GSAM loses nothing and is sooner."""
    claim, rows = many_subflows(get("gsam-subflows-165kb"), range(1, 3))
    assert claim.check(rows).verdict == "holds"
    for r in rows:
        if r["run"] == 1 and r["variant"] in ("mptcp", "gsam"):
            assert (r["rto_count"] >= 1) == (r["variant"] == "mptcp"), r


def test_small_buffer_experiments_keep_fig2_setting_but_the_buffer_and_k() -> None:
    """`gsam-subflows-b20` and `gsam-subflows-buffer` differ from Fig. 2's configuration only in the bottleneck
    buffer (20 packets; the swept one with 8 subflows), in GSAM's K, which follows it (Eq. 15), and in the
    transfers' start draws, which each experiment makes for itself."""
    for name, x, subflows, buffer_pkts in (("gsam-subflows-b20", 6, 6, 20), ("gsam-subflows-buffer", 15, 8, 15)):
        cfg = get(name).build(x, "gsam", 1)
        for direction in ("R1-R2", "R2-R1"):
            assert link(cfg, direction)["queue"] == {"type": "drop_tail", "limit_pkts": buffer_pkts}
        # K = 75 ms + B·578·8/(2·5e6) s = 75 ms + B·0.4624 ms.
        for conn in cfg["mptcp_connections"]:
            assert conn["slow_start"] == {"type": "gsam", "k_ns": 75 * MS + buffer_pkts * 462_400}
        reference = get("gsam-subflows").build(subflows, "gsam", 1)
        for c in (cfg, reference):
            for direction in ("R1-R2", "R2-R1"):
                link(c, direction)["queue"] = None
            for conn in c["mptcp_connections"]:
                # `gsam-subflows` traces its windows (Figs. 3, 5, 6); these explorations need no trace.
                conn["slow_start"]["k_ns"] = conn["start_ns"] = conn["trace"] = None
        assert cfg == reference, name


def test_with_a_small_buffer_gsam_beats_mptcp_and_lisa_at_six_and_eight_subflows() -> None:
    """Fig. 2's headline with a 20-packet buffer (`gsam-subflows-b20`: 206 segments > 162 + 20): MPTCP's and
    LISA's uncoupled slow starts overflow the buffer, and the paper's "frequent RTOs" follow (more than one per
    MPTCP connection; full mode 4.3 at 6 subflows, 4.8 at 8); GSAM's smoothing avoids most of them (fewer than
    half MPTCP's; full mode 0.5 and 1.8) and completes sooner than both."""
    claim, rows = many_subflows(get("gsam-subflows-b20"), range(1, 4))
    assert claim.check(rows).verdict == "holds"
    for x in sorted({r["x"] for r in rows}):
        at_x = [r for r in rows if r["x"] == x]
        rto = {v: statistics.mean(r["rto_count"] for r in at_x if r["variant"] == v) for v in claim.named_variants()}
        assert rto["mptcp"] > 1 and rto["gsam"] < rto["mptcp"] / 2, (x, rto)


def test_with_eight_subflows_gsam_wins_with_small_buffers_and_mptcp_once_nothing_overflows() -> None:
    """`gsam-subflows-buffer`: with small buffers MPTCP waits for RTOs and GSAM is sooner; with room for both
    transfers no variant loses a packet and MPTCP, unsmoothed, is sooner than GSAM (Fig. 2 at 8 subflows in
    mpsim). Each of the two claims judged at the quick x values in its range."""
    e = get("gsam-subflows-buffer")
    for claim in e.checks:
        assert isinstance(claim, Compare)
        xs = [x for x in e.quick_x_values if claim.x_min <= x <= claim.x_max]
        rows = e.rows(xs, claim.named_variants(), range(1, 4))
        assert xs and claim.check(rows).verdict == "holds", claim.statement()
        if claim.left == "mptcp":
            assert all(r["rto_count"] == 0 and r["retransmissions"] == 0 for r in rows)


def test_rto_times_runs_fig2_with_every_subflow_traced() -> None:
    """Fig. 7 is drawn from Fig. 2's runs: `gsam-rto-times` builds `gsam-subflows`' configuration (the same
    random draws, every measured transfer traced, as `gsam-subflows` traces them for Figs. 3, 5 and 6)."""
    for variant in VARIANTS:
        scenario = get("gsam-rto-times").scenario(6, variant, 2)
        reference = get("gsam-subflows").scenario(6, variant, 2)
        assert [f.trace for f in scenario.flows if not isinstance(f, UdpFlow)] == [True, True], variant
        assert scenario.to_core() == reference.to_core(), variant


def test_rto_times_table_gives_each_timeout_of_each_traced_subflow() -> None:
    """At 6 subflows one MPTCP transfer of run 1 times out once: the `rto_times` table has one row per
    timeout the subflow counters report, on the subflow that counts it, while the transfer was running."""
    cfg = get("gsam-rto-times").build(6, "mptcp", 1)
    res = mpsim.run_config(cfg)
    rows = res.rto_times.to_pylist()
    counted = {(s["connection"], s["subflow"]): s["rto_count"] for s in res.mptcp_subflows.to_pylist()}
    assert sum(counted.values()) == len(rows) >= 1
    for r in rows:
        assert counted[r["flow"], r["subflow"]] >= r["rto"] >= 1
        assert r["time_s"] == r["time_ns"] / 1e9
        flow = next(f for f in res.flows.to_pylist() if f["name"] == r["flow"])
        assert flow["start_s"] < r["time_s"] < flow["start_s"] + flow["fct_s"]
    assert res.rto_times.column_names == ["flow", "subflow", "rto", "time_ns", "time_s"]


def test_rto_times_reproduces_in_quick_mode(tmp_path: Any) -> None:
    from mpsim.experiments.reproduce import reproduce

    exp = get("gsam-rto-times")
    result = reproduce(exp.name, tmp_path, quick=True, jobs=2, progress=False)
    for f in ("results.parquet", "figure.png", "traces-6.png", "traces-6.svg"):
        assert (tmp_path / exp.name / f).stat().st_size > 0, f
    rows = result.table.to_pylist()
    assert len(rows) == len(exp.quick_x_values) * len(exp.variants) * exp.quick_runs
    for r in rows:
        assert r["incomplete"] == 0
        # A subflow that timed out did so at least once; the first timeout exists exactly when one happened.
        assert r["rto_subflows"] <= r["rto_count"]
        assert (r["rto_count"] > 0) == (not math.isnan(r["first_rto_s"])), r
    by = {(r["x"], r["variant"], r["run"]): r for r in rows}
    # Fig. 2's setting: with 2 subflows nothing times out; with 6 MPTCP's later transfer times out once (one
    # subflow, mean 0.5 over the two transfers) and GSAM's never do.
    assert all(by[2, v, k]["rto_count"] == 0 for v in exp.variants for k in (1, 2, 3))
    assert [by[6, "mptcp", k]["rto_subflows"] for k in (1, 2, 3)] == [0.5, 0.5, 0.5]
    assert all(by[6, "gsam", k]["rto_count"] == 0 for k in (1, 2, 3))


# ---------------------------------------------------------------------------------------------- the paper's words


def has_band(c: Claim) -> bool:
    """Whether the check has a numeric band, margin or tolerance that must be derived from the paper."""
    if isinstance(c, Band | Ratio | Bound | Equivalent | BestCase):
        return True
    if isinstance(c, Trend):
        return c.mode == "rank" or c.tolerance != 0
    if isinstance(c, Order):
        return c.tie != 0
    if isinstance(c, Compare):
        return c.tolerance != 0 or c.factor != 1 or c.criterion == "significant"
    return False


GSAM_CHECKS = [(name, c) for name in GSAM_NAMES for c in get(name).checks]


@pytest.mark.parametrize(("name", "check"), GSAM_CHECKS, ids=[f"{n}:{c.statement()[:50]}" for n, c in GSAM_CHECKS])
def test_every_check_quotes_the_paper_says_where_and_derives_its_band(name: str, check: Claim) -> None:
    """Each check carries the paper's words, where the paper says them, and, for a numeric band, how the band
    follows from the paper."""
    assert check.quote.strip() and check.where, (name, check.statement())
    if has_band(check):
        assert check.derivation, (name, check.statement())
    if isinstance(check, NotCheckable):
        assert check.reason


def test_every_quote_is_the_papers_own_words() -> None:
    """Each check's quote is found verbatim in the paper's plain text (whitespace aside)."""
    paper = paper_words("001_")
    missing = [(name, c.quote) for name, c in GSAM_CHECKS if collapsed(c.quote) not in paper]
    assert not missing, missing


def test_no_trend_is_judged_by_its_endpoints_alone() -> None:
    for _, c in GSAM_CHECKS:
        assert not isinstance(c, Trend) or c.mode in ("monotone", "rank"), c.statement()


def test_the_checks_of_no_paper_figure_are_explorations_and_only_they() -> None:
    explored = {n for n, c in GSAM_CHECKS if c.exploration}
    assert explored == {"gsam-subflows-165kb", "gsam-subflows-b20", "gsam-subflows-buffer"}
    assert all(c.exploration for n, c in GSAM_CHECKS if n in explored)
    assert all("not a paper figure" in get(n).figure for n in explored)


def test_every_headline_claim_has_a_check() -> None:
    """The abstract's, the contributions' and the conclusion's claims (docs/reproduction.md, GSAM's headline
    claims): each is judged by at least one check marked as a headline."""
    headline = " ".join(" ".join(c.quote.split()) for _, c in GSAM_CHECKS if c.headline)
    for words in (
        "worse than regular single path TCP",
        "causes timeouts and throughput collapse",
        "by up to 80%",
        "retaining high Goodput for large flows as MPTCP",
        "by up to 35.73%",
        "up to 21.3%",
        "by reducing the number of retransmission and RTOs",
        "benefit from the reduced retransmission",
    ):
        assert words in headline, words


def test_fig3_is_traced_at_two_subflows_and_figs_5_6_at_four() -> None:
    e = get("gsam-subflows")
    assert e.trace_x == (2, 4)
    fig3 = [c for c in e.checks if c.where == "Fig. 3"]
    assert fig3 and all(c.x_min == c.x_max == 2 for c in fig3 if isinstance(c, Ratio | Order))
    assert all(f["trace"] for f in e.build(2, "mptcp", 1)["mptcp_connections"])


def test_the_second_subflow_joins_as_soon_as_the_first_is_established() -> None:
    """§II: the additional subflows join after the initial handshake and "can start sending once they are
    established"; the core's join delay counts from the first subflow's establishment."""
    assert g.JOIN_DELAY_NS == 0
    for name in ("gsam-shared", "gsam-competing", "gsam-nonshared", "gsam-codel-limit", "gsam-udp"):
        e = get(name)
        for conn in e.build(e.x_values[0], "lisa", 1)["mptcp_connections"]:
            assert conn["join_delay_ns"] == 0, name


def test_up_to_judges_the_largest_reduction_over_its_range() -> None:
    rows = [
        {"x": x, "variant": v, "run": 1, "fct_s": f}
        for x, v, f in ((1, "gsam", 0.9), (1, "mptcp", 1.0), (2, "gsam", 0.5), (2, "mptcp", 1.0), (3, "gsam", 2.0))
    ]

    def up_to(**band: float) -> BestCase:
        return BestCase("", "fct_s", better="gsam", worse="mptcp", gain="reduction", **band)

    claim = up_to(low=0.4, high=1.0)
    outcome = claim.check(rows)
    assert (outcome.verdict, outcome.details) == ("holds", ("largest 0.5 at 2 (of 2 x)",))
    assert up_to(low=0.6, high=1.0).check(rows).verdict == "fails"
    assert up_to(x_max=1).check(rows).details == ("largest 0.1 at 1 (of 1 x)",)
    assert claim.statement() == "fct_s: the largest 1 − gsam/mptcp over every x in [0.4, 1]"


def sample(t: int, subflow: int, cwnd: int, in_flight: int = 1, srtt_ms: float = 40.0) -> dict[str, Any]:
    return {
        "time_ns": t,
        "subflow": subflow,
        "cwnd_bytes": cwnd * 1000,
        "in_flight_bytes": in_flight * 1000,
        "srtt_ns": int(srtt_ms * 1e6),
    }


def test_window_sums_count_each_subflow_from_its_establishment() -> None:
    # Subflow 1's SYN times out at 150 (traced with the initial window, nothing in flight, no RTT) before it is
    # established at 300.
    traced = [
        sample(100, 0, 10, 10),
        sample(150, 1, 10, 0, 0.0),
        sample(200, 0, 11, 11, 42.0),
        sample(300, 1, 3, 3, 0.0),
        sample(400, 0, 12, 5, 50.0),
        sample(500, 1, 4, 4, 60.0),
    ]
    samples = g._since_establishment(traced, {0: 100, 1: 300})
    assert [s["time_ns"] for s in samples] == [100, 200, 300, 400, 500]
    assert g._since_establishment(traced, {0: 100, 1: None}) == [traced[0], traced[2], traced[4]]
    # A TCP flow: established at its first sample with data in flight.
    assert g._since_establishment([sample(50, 0, 10, 0, 0.0), *traced[:1]], None) == traced[:1]
    totals = g._totals(samples, "cwnd_bytes")
    assert totals == [(100, 10_000), (200, 11_000), (300, 14_000), (400, 15_000), (500, 16_000)]
    assert (g._at(totals, 99), g._at(totals, 350), g._at(totals, 10**9)) == (0, 14_000, 16_000)
    # (0·100 + 10·100 + 11·100 + 14·100 + 15·100 + 16·100) / 600 packets of 1000 B.
    assert g._time_mean(totals, 0, 600) == 11_000
    m = g._transfer_measures(samples, 0, 600, 1000, {0: 250, 1: None})
    assert (m["sub0_peak_cwnd_pkts"], m["others_peak_cwnd_pkts"], m["sub1_initial_cwnd_pkts"]) == (12, 4, 3)
    assert (m["sum_cwnd_peak_pkts"], m["in_flight_peak_pkts"], m["sum_cwnd_mean_pkts"]) == (16, 14, 11)
    assert m["cwnd_10_to_11_s"] == 100 / 1e9
    # Slow start: subflow 0 until 250 (40, 42 ms), subflow 1 throughout but for its sample without an RTT (60).
    assert m["ss_srtt_ms"] == pytest.approx((40 + 42 + 60) / 3)


def test_gsam_row_measures_every_run_of_a_traced_experiment() -> None:
    """The windows of Figs. 3, 5 and 6 are measures of each run of `gsam-subflows` (at 3 subflows, a point no
    check judges): TCP has one subflow, so no other subflow's window; MPTCP's sum exceeds its subflow 0's."""
    e = get("gsam-subflows")
    tcp, mptcp = (e.point(3, v, [1])[0] for v in ("tcp", "mptcp"))
    assert math.isnan(tcp["others_peak_cwnd_pkts"]) and math.isnan(tcp["sub1_initial_cwnd_pkts"])
    assert mptcp["sum_cwnd_peak_pkts"] > mptcp["sub0_peak_cwnd_pkts"] >= 1
    assert mptcp["sub1_initial_cwnd_pkts"] == g.NS3_IW
    assert all(r["cwnd_reductions"] >= 0 for r in (tcp, mptcp))
    # An untraced experiment has the window reductions, and no trace measure.
    row = get("gsam-competing-buffer").point(12, "mptcp", [1])[0]
    assert row["cwnd_reductions"] >= 0 and math.isnan(row["sum_cwnd_peak_pkts"])
