"""The LISA experiments (Barik et al., ICC 2016): topologies with the paper's base RTTs and bottleneck,
valid configurations for every variant, the join timing, the pooling of buffers, the headline sign, the
emulated real network of §VI, every check citing the paper's words with its band's derivation, and the three
check forms the LISA checks brought to the check language (Gap, GapTrend, Share) on tables built so that each
must hold or fail."""

from __future__ import annotations

import copy
import math
import re
from typing import Any

import pytest

import mpsim
from mpsim.experiments import CATALOGUE, lisa
from mpsim.experiments.base import MS, VARIANTS
from mpsim.experiments.claims import (
    Bound,
    Claim,
    Compare,
    CompareMetrics,
    Difference,
    Equivalent,
    Gap,
    GapTrend,
    Order,
    Ratio,
    Share,
    Trend,
    share,
    single,
)
from mpsim.scenario import CongestionControl, MptcpFlow, TcpFlow, UdpFlow
from paper_texts import paper_words

OTHER_SETTINGS = (
    "lisa-motivation",
    "lisa-datacenter",
    "lisa-datacenter-filesize",
    "lisa-realnet-shared",
    "lisa-realnet-nonshared",
)
LISA_EXPERIMENTS = [name for name in CATALOGUE if name.startswith("lisa-") and name not in OTHER_SETTINGS]
"""The multi-homed server experiments of §IV-A (Figs. 3, 4): all but the motivation, the data centre and the
emulated real network."""
EVERY_LISA_EXPERIMENT = [name for name in CATALOGUE if name.startswith("lisa-")]


def ser_ns(wire_bytes: int, rate_bps: int) -> int:
    return wire_bytes * 8 * 1_000_000_000 // rate_bps


def arrivals_ns(hops: list[tuple[int, int]], sizes: list[int]) -> list[int]:
    """When packets of ``sizes`` bytes, sent back to back at time 0, arrive over idle ``hops``
    (rate, one-way delay): each waits at a hop for the one before it, then is serialised and propagated."""
    times = [0] * len(sizes)
    for rate, delay in hops:
        free = 0
        for i, size in enumerate(sizes):
            free = max(times[i], free) + ser_ns(size, rate)
            times[i] = free + delay
    return times


def one_packet_fct_ns(hops: list[tuple[int, int]], back: list[tuple[int, int]]) -> int:
    """Handshake plus one full segment and its ACK over ``hops`` and back over ``back``.

    A single TCP flow without timestamps: SYN and SYN-ACK are 52 B on the wire (40 + MSS, SACK-permitted and
    window-scale options, 4 bytes each as Linux aligns them), the handshake's ACK 40 B, the segment MSS + 40 =
    1500 B and leaves right behind the handshake's ACK; its ACK is 40 B.
    """
    (syn,) = arrivals_ns(hops, [52])
    (syn_ack,) = arrivals_ns(back, [52])
    _, data = arrivals_ns(hops, [40, lisa.MSS + 40])
    (ack,) = arrivals_ns(back, [40])
    return syn + syn_ack + data + ack


def single_packet_run(cfg: dict[str, Any], src: str) -> int:
    """The completion time of a one-segment TCP transfer from ``src`` in the topology of ``cfg``."""
    cfg = copy.deepcopy(cfg)
    (flow,) = cfg["tcp_flows"]
    flow.update(src=src, size_bytes=lisa.MSS, start_ns=0)
    res = mpsim.run_config(cfg)
    (row,) = [f for f in res.raw["tcp_flows"] if f["name"] == "measured"]
    return int(row["fct_ns"])


GIG, FIVE = lisa.ACCESS_BPS, lisa.BOTTLENECK_BPS


def test_shared_topology_has_40_ms_base_rtt_on_both_server_interfaces() -> None:
    cfg = CATALOGUE["lisa-shared-filesize"].build(300, "tcp", 1)
    # Server.ethX → Rc (1 Gbit/s, 1 ms) → Client (5 Mbit/s, 19 ms), and back.
    there = [(GIG, 1 * MS), (FIVE, 19 * MS)]
    back = [(FIVE, 19 * MS), (GIG, 1 * MS)]
    expected = one_packet_fct_ns(there, back)
    # Two 40 ms round trips, the serialisation of each packet on each link, and the data's wait at Rc
    # behind the handshake's ACK (64 µs on 5 Mbit/s less the 12.32 µs it arrived earlier).
    assert expected == 80 * MS + 2_643_552 + 52_320
    assert single_packet_run(cfg, "Server.eth0") == expected
    assert single_packet_run(cfg, "Server.eth1") == expected


def test_nonshared_topology_puts_the_5_mbit_links_at_the_server() -> None:
    cfg = CATALOGUE["lisa-nonshared-filesize"].build(300, "tcp", 1)
    there = [(FIVE, 19 * MS), (GIG, 1 * MS)]
    back = [(GIG, 1 * MS), (FIVE, 19 * MS)]
    expected = one_packet_fct_ns(there, back)
    assert single_packet_run(cfg, "Server.eth0") == expected
    assert single_packet_run(cfg, "Server.eth1") == expected
    # Each subflow has its own bottleneck with the run's buffer.
    links = {link["name"]: link for link in cfg["links"]}
    for nic, router in (("eth0", "R1"), ("eth1", "R2")):
        up = links[f"Server.{nic}-{router}"]
        assert (up["rate_bps"], up["delay_ns"], up["queue"]["limit_pkts"]) == (FIVE, 19 * MS, 9)


def test_hetero_rtt_paths_are_200_and_20_ms() -> None:
    cfg = CATALOGUE["lisa-hetero-rtt"].build(20, "tcp", 1)
    bottleneck = (FIVE, 5 * MS)
    slow = one_packet_fct_ns([(GIG, 95 * MS), bottleneck], [bottleneck, (GIG, 95 * MS)])
    fast = one_packet_fct_ns([(GIG, 5 * MS), bottleneck], [bottleneck, (GIG, 5 * MS)])
    assert slow - fast == 4 * 90 * MS  # two round trips of 200 ms against two of 20 ms
    assert single_packet_run(cfg, "Server.eth0") == slow
    assert single_packet_run(cfg, "Server.eth1") == fast


@pytest.mark.parametrize("name", ["lisa-shared-buffer", "lisa-hetero-rtt"])
def test_the_shared_bottleneck_is_the_client_downlink_with_buffer_x(name: str) -> None:
    exp = CATALOGUE[name]
    for x in exp.quick_x_values:
        cfg = exp.build(x, "mptcp", 1)
        (down,) = [link for link in cfg["links"] if link["name"] == "Rc-Client"]
        assert down["rate_bps"] == 5_000_000 and down["queue"] == {"type": "drop_tail", "limit_pkts": x}
        # Only that link runs at 5 Mbit/s in the data direction.
        slow = [link["name"] for link in cfg["links"] if link["rate_bps"] < GIG]
        assert sorted(slow) == ["Client-Rc", "Rc-Client"]


FIRST_PATH = ("Server.eth0-Rc", "Rc-Client", "Server.eth0-R1", "R1-Client")
"""The links of the first subflow's data path, in the shared and in the non-shared topology."""


@pytest.mark.parametrize("name", LISA_EXPERIMENTS)
def test_every_variant_builds_a_valid_configuration(name: str) -> None:
    exp = CATALOGUE[name]
    assert exp.variants == VARIANTS
    for x in exp.x_values:
        for variant in VARIANTS:
            for run in (1, 2, 3):
                cfg = exp.build(x, variant, run)
                mpsim.validate_config(cfg)
                assert "measured" in cfg["stop_when_complete"]
                measured = [
                    f for k in ("tcp_flows", "mptcp_connections") for f in cfg.get(k, []) if f["name"] == "measured"
                ]
                assert len(measured) == 1
                assert measured[0]["tcp"]["mss"] == 1460 and measured[0]["tcp"]["delayed_ack"] is False
                if variant == "tcp":
                    assert measured[0]["src"] == "Server.eth0"
                else:
                    conn = measured[0]
                    assert conn["src_addrs"] == ["Server.eth0", "Server.eth1"]
                    assert conn["cc"] == {"type": "lia", "flavour": "linux"}
                    assert conn["slow_start"]["type"] == ("standard" if variant == "mptcp" else variant)
                    if variant == "gsam":
                        # The data direction of each 5 Mbit/s link (from Rc or from the server).
                        buffers = {
                            link["queue"]["limit_pkts"]
                            for link in cfg["links"]
                            if link["rate_bps"] == FIVE and link["from"] in ("Rc", "Server")
                        }
                        (buffer,) = buffers
                        # GSAM's K as its authors compute it: D/2 + B·1500·8/(2·5 Mbit/s), D the first path's
                        # propagation both ways plus a 1500-byte segment and a 40-byte ACK serialised at
                        # 5 Mbit/s and 1 Gbit/s (2 464 000 + 12 320 ns).
                        d = 2 * sum(link["delay_ns"] for link in cfg["links"] if link["name"] in FIRST_PATH)
                        d += 2_476_320
                        assert conn["slow_start"] == {"type": "gsam", "k_ns": d // 2 + buffer * 1_200_000}


def test_pooled_experiments_give_each_buffer_a_third_of_the_runs() -> None:
    for name in ("lisa-shared-filesize", "lisa-competing", "lisa-nonshared-filesize"):
        exp = CATALOGUE[name]
        assert exp.runs == 30 and exp.quick_runs % 3 == 0
        used = [lisa.pooled_buffer(r) for r in range(1, exp.runs + 1)]
        assert {b: used.count(b) for b in set(used)} == {9: 10, 17: 10, 30: 10}


def test_join_comes_three_rtts_after_the_first_syn_within_the_jitter() -> None:
    exp = CATALOGUE["lisa-shared-filesize"]
    gaps = []
    for run in range(1, 11):
        res = mpsim.run_config(exp.build(300, "mptcp", run))
        (conn,) = res.raw["mptcp_connections"]
        syn0, syn1 = (sf["flow"]["first_syn_ns"] for sf in conn["subflows"])
        start, join = lisa.timing("lisa-shared-filesize", run)
        assert 0 <= start <= 10 * MS and syn0 == start
        # The core waits join_delay after the first subflow is established: one 40 ms RTT plus the
        # serialisation of SYN (64 B: MSS, SACK-permitted and window scale, and MP_CAPABLE) and SYN-ACK on the
        # 5 Mbit/s and 1 Gbit/s links.
        handshake = 40 * MS + 2 * (ser_ns(64, FIVE) + ser_ns(64, GIG))
        assert syn1 - syn0 == handshake + join
        gaps.append((syn1 - syn0 - handshake + 40 * MS) / (3 * 40 * MS))
    assert all(0.75 <= g <= 1.25 for g in gaps) and len(set(gaps)) == len(gaps)


def test_lisa_retransmits_less_than_mptcp_before_slow_start_ends_at_buffer_17() -> None:
    """The headline of Fig. 6(a), judged at the path's BDP-sized buffer: R_ss of LISA below MPTCP's."""
    exp = CATALOGUE["lisa-shared-buffer"]
    claim = single(exp.checks, Compare, "r_ss", op="<")
    rows = exp.rows([17], claim.named_variants(), range(1, exp.quick_runs + 1))
    assert all(r["sum_cwnd_ss_exit_pkts"] > 0 for r in rows)  # both subflows left slow start
    assert claim.check(rows).verdict == "holds"


def test_the_motivation_runs_x_subflows_through_a_2_5_mbit_70_ms_downlink() -> None:
    """Figs. 1–2: 300 KB, a 2.5 Mbit/s client downlink with a 15-packet queue, 70 ms base RTT; the multipath
    variants open x subflows together (ndiffports), TCP is CUBIC."""
    e = CATALOGUE["lisa-motivation"]
    for x in e.x_values:
        cfg = e.build(x, "lisa", 1)
        down = next(link for link in cfg["links"] if link["name"] == "Rc-Client")
        assert (down["rate_bps"], down["queue"]["limit_pkts"]) == (2_500_000, 15)
        rtt = 2 * sum(link["delay_ns"] for link in cfg["links"] if link["name"] in ("Server.eth0-Rc", "Rc-Client"))
        assert rtt == 70 * MS
        (conn,) = cfg["mptcp_connections"]
        assert conn["path_manager"] == {"type": "ndiffports", "subflows": x}
        assert conn["size_bytes"] == 300_000
    (tcp,) = e.scenario(2, "tcp", 1).flows
    assert isinstance(tcp, TcpFlow) and tcp.cc == CongestionControl(type="cubic")


# ------------------------------------------------------------------------------------------ the paper's words


def every_check() -> list[tuple[str, Claim]]:
    return [(name, claim) for name in EVERY_LISA_EXPERIMENT for claim in CATALOGUE[name].checks]


def has_band(claim: Claim) -> bool:
    """Whether a check states a number the paper has to justify: a tolerance, margin, factor, bound, share or
    the two-standard-error criterion (an x range alone is not a band)."""
    if isinstance(claim, Share):
        return True
    if isinstance(claim, Compare | CompareMetrics):
        return bool(claim.tolerance) or claim.factor != 1.0 or claim.criterion == "significant"
    if isinstance(claim, Trend | GapTrend):
        return bool(claim.tolerance)
    if isinstance(claim, Order):
        return bool(claim.tie)
    return isinstance(claim, Ratio | Difference | Equivalent | Bound | Gap)


def test_every_check_quotes_the_paper_verbatim_says_where_and_derives_its_band() -> None:
    text = paper_words("003_")
    for name, claim in every_check():
        quote = re.sub(r"\s+", " ", claim.quote).strip()
        assert quote and quote in text, (name, claim.text, claim.quote)
        assert claim.where, (name, claim.text)
        if has_band(claim):
            assert claim.derivation, (name, claim.statement())
        if claim.headline:
            # A headline claim is the abstract's, the introduction's (§I) or the conclusion's (§VIII).
            assert re.search(r"Abstract|§I\b|§VIII", claim.where), (name, claim.where)


def test_the_headline_claims_are_all_checked() -> None:
    """The paper's headline claims (docs/reproduction.md lists them): each has a check marked headline."""
    quotes = " ".join(claim.quote for _, claim in every_check() if claim.headline)
    for words in (
        "harms the performance of both MPTCP and the concurrent TCP",  # H1, MPTCP itself
        "the adverse effect of MPTCP's uncoupled slow-start",  # H2, the concurrent TCP
        "not only provides gains for MPTCP",  # H3
        "the number of retransmitted packets experienced by the TCP flow is reduced with LISA",  # H4 (Fig. 7a)
        "LISA effectively reduces number of retransmissions",  # H5
        "LISA does not harm",  # H6
        "LISA even provides gains",  # H6
        "the disadvantage was marginal",  # H7
        "This further escalates with an increasing number of subflows",  # H8
    ):
        assert words in quotes, words


def test_every_lisa_experiment_draws_the_papers_95_percent_confidence_intervals() -> None:
    # §V: "we will take the 95% confidence interval for all the plots".
    assert {CATALOGUE[name].error_bars for name in EVERY_LISA_EXPERIMENT} == {"ci95"}


# ------------------------------------------------------------------------------------------ check forms


def table(means: dict[tuple[str, Any], tuple[float, ...]], metric: str = "fct_s") -> list[dict[str, Any]]:
    """One row per run of each (variant, x)."""
    return [
        {"x": x, "variant": v, "run": k + 1, metric: value}
        for (v, x), values in means.items()
        for k, value in enumerate(values)
    ]


def test_a_gap_bounds_the_absolute_difference_of_two_variants_at_every_x() -> None:
    rows = table({("mptcp", 2): (1.6, 1.8), ("lisa", 2): (1.5, 1.5), ("mptcp", 3): (1.5, 1.5), ("lisa", 3): (1.5, 1.5)})
    gap = Gap("", "fct_s", left="mptcp", right="lisa", low=0.15, high=0.25)
    outcome = gap.check(rows)
    assert (outcome.verdict, outcome.details) == ("partly", ("2: 0.2", "3: 0 ✗"))
    assert gap.statement() == "fct_s: mptcp − lisa in [0.15, 0.25] at every x"
    one_sided = Gap("", "fct_s", left="mptcp", right="lisa", high=0.05, x_max=2)
    assert one_sided.statement() == "fct_s: mptcp − lisa ≤ 0.05 at x ≤ 2"
    assert one_sided.check(rows).verdict == "fails"


def test_a_gap_trend_judges_every_step_of_the_gap_or_of_the_relative_gain() -> None:
    # MPTCP 10, 10, 10; LISA 8, 7, 6: the reduction 2, 3, 4 grows at every step.
    rows = table({("mptcp", x): (10.0,) for x in (1, 2, 3)} | {("lisa", x): (9.0 - x,) for x in (1, 2, 3)})
    grows = GapTrend("", "fct_s", left="lisa", right="mptcp", direction="grows")
    assert grows.check(rows).verdict == "holds"
    assert grows.check(rows).details == ("gap 2 at 1 → 3 at 2 → 4 at 3",)
    relative = GapTrend("", "fct_s", left="lisa", right="mptcp", direction="falls", relative=True)
    assert relative.check(rows).verdict == "fails"
    # A gain that falls, then rises back: the monotone reading fails it unless the step back is within tolerance.
    wobble = table(
        {("mptcp", x): (10.0,) for x in (1, 2, 3)} | {("lisa", 1): (7.0,), ("lisa", 2): (9.5,), ("lisa", 3): (9.0,)}
    )
    falls = GapTrend("", "fct_s", left="lisa", right="mptcp", direction="falls", relative=True)
    assert falls.check(wobble).verdict == "fails"  # 0.3 → 0.05 → 0.1: a step back of 0.05, 20 % of the span
    assert (
        GapTrend("", "fct_s", left="lisa", right="mptcp", direction="falls", relative=True, tolerance=0.2)
        .check(wobble)
        .verdict
        == "holds"
    )
    assert (
        GapTrend("", "fct_s", left="lisa", right="mptcp")
        .check(table({("mptcp", 1): (1.0,), ("lisa", 1): (1.0,)}))
        .verdict
        == "untested"
    )


def test_a_share_holds_at_the_stated_share_of_its_points() -> None:
    # LISA above MPTCP at 8 of 10 x values: "almost all" (80 %) holds, every x would not.
    rows = table({("mptcp", x): (1.0,) for x in range(10)} | {("lisa", x): (2.0 if x < 8 else 0.5,) for x in range(10)})
    above = Compare("", "fct_s", left="lisa", op=">", right="mptcp")
    assert above.check(rows).verdict == "partly"
    almost = share(above, 0.8, quote="q", where="Fig. 6(b)", derivation="'almost all': 80 %")
    outcome = almost.check(rows)
    assert (outcome.verdict, outcome.passed, outcome.total) == ("holds", 8, 10)
    assert outcome.details[-1] == "8 of 10 points hold, 8 needed"
    assert (almost.quote, almost.where, almost.statement()) == (
        "q",
        "Fig. 6(b)",
        "at least 80% of the points of: fct_s: lisa > mptcp at every x",
    )
    assert share(above, 0.9).check(rows).verdict == "partly"
    # "Only for a distinct set of values": some points but not all.
    some = share(above, 0.0, not_all=True)
    assert some.statement().startswith("at least one point but not all of: ")
    assert some.check(rows).verdict == "holds"
    everywhere = table({("mptcp", x): (1.0,) for x in range(3)} | {("lisa", x): (2.0,) for x in range(3)})
    assert some.check(everywhere).verdict == "partly"
    nowhere = table({("mptcp", x): (1.0,) for x in range(3)} | {("lisa", x): (0.5,) for x in range(3)})
    assert some.check(nowhere).verdict == "fails"
    assert some.check([]).verdict == "untested"
    assert isinstance(some, Share) and some.named_variants() == ("lisa", "mptcp") and some.columns() == ("fct_s",)


# ------------------------------------------------------------------------------------------ §V-A, §VI settings


def test_the_nonshared_hetero_rtt_paths_are_200_and_20_ms_each_behind_its_own_5_mbit_uplink() -> None:
    cfg = CATALOGUE["lisa-nonshared-hetero-rtt"].build(20, "tcp", 1)
    slow = one_packet_fct_ns([(FIVE, 99 * MS), (GIG, 1 * MS)], [(GIG, 1 * MS), (FIVE, 99 * MS)])
    fast = one_packet_fct_ns([(FIVE, 9 * MS), (GIG, 1 * MS)], [(GIG, 1 * MS), (FIVE, 9 * MS)])
    assert slow - fast == 4 * 90 * MS
    assert single_packet_run(cfg, "Server.eth0") == slow
    assert single_packet_run(cfg, "Server.eth1") == fast
    links = {link["name"]: link for link in cfg["links"]}
    assert [links[f"Server.eth{i}-R{i + 1}"]["queue"]["limit_pkts"] for i in (0, 1)] == [20, 20]
    (conn,) = CATALOGUE["lisa-nonshared-hetero-rtt"].build(20, "lisa", 1)["mptcp_connections"]
    assert conn["size_bytes"] == 500_000


@pytest.mark.parametrize("name", ["lisa-realnet-shared", "lisa-realnet-nonshared"])
def test_the_emulated_real_network_downloads_over_3g_first_then_wlan_with_30_percent_cross_traffic(name: str) -> None:
    exp = CATALOGUE[name]
    assert exp.runs == 15 and exp.x_values == tuple(range(100, 1001, 100))
    scenario = exp.scenario(100, "lisa", 1)
    flows = {f.name: f for f in scenario.flows}
    measured = flows["measured"]
    assert isinstance(measured, MptcpFlow)
    assert measured.dst == ["Client.3g", "Client.wlan"]  # the 3G path is the first subflow
    cfg = exp.build(100, "lisa", 1)
    mpsim.validate_config(cfg)
    links = {link["name"]: link for link in cfg["links"]}
    for nic, rate, delay, p in (("3g", 2_000_000, 75 * MS, 0.0075), ("wlan", 10_000_000, 10 * MS, 0.015)):
        down = links[f"R-Client.{nic}"]
        assert (down["rate_bps"], down["delay_ns"], down["queue"]["limit_pkts"]) == (rate, delay, 1000)
        assert down["loss"] == {"type": "bernoulli", "p": p}
        cross = flows[f"cross-{nic}"]
        # On half the time on average at 60 % of the link: the paper's 30 %.
        assert isinstance(cross, UdpFlow) and cross.pattern == "on_off" and cross.on == cross.off
        assert cross.rate == round(0.6 * rate)
    background = [f for f in scenario.flows if f.name.startswith("background")]
    if name == "lisa-realnet-shared":
        assert len(background) == 19 and all(isinstance(f, TcpFlow) and f.dst == "VM" for f in background)
        # 20 flows on the 100 Mbit/s lab link: 5 Mbit/s each, the paper's shared-bottleneck capacity.
        assert links["Server-R"]["rate_bps"] // (len(background) + 1) == 5_000_000
    else:
        assert background == []
    (tcp,) = [f for f in exp.scenario(100, "tcp", 1).flows if f.name == "measured"]
    assert isinstance(tcp, TcpFlow) and tcp.dst == "Client.3g"


def test_the_emulated_real_networks_row_has_the_3g_share_and_the_first_loss() -> None:
    exp = CATALOGUE["lisa-realnet-nonshared"]
    cfg = exp.build(300, "mptcp", 1)
    row = lisa.realnet_row(mpsim.run_config(cfg), cfg)
    assert 0.0 < row["cell_share_pct"] < 100.0
    assert row["first_loss_s"] > 0 or math.isnan(row["first_loss_s"])
    assert row["cell_max_queue_pkts"] >= 1 and row["incomplete"] == 0
    tcp_cfg = exp.build(300, "tcp", 1)
    assert lisa.realnet_row(mpsim.run_config(tcp_cfg), tcp_cfg)["cell_share_pct"] == 100.0
