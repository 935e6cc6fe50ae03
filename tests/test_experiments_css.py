"""The CSS paper's experiments: the simulator it names (plain Reno recovery for every flow, ssthresh 65535
bytes), LISA in the credit-only form it compares, and the headline claims of Fig. 3 at the paper's 10 runs."""

from __future__ import annotations

import re
import statistics
from typing import Any, Literal

import pytest

from mpsim.experiments import VARIANTS, get
from mpsim.experiments.claims import BestCase, Bound, Claim, Compare, Difference, Equivalent, Order, Ratio, single
from mpsim.experiments.css import EXPERIMENTS
from paper_texts import collapsed, paper_words

RUNS = range(1, 11)


def runs(name: str, x: int, variant: str, metric: str) -> list[float]:
    """``metric`` of each of the paper's 10 runs, every transfer complete."""
    rows = get(name).point(x, variant, RUNS)
    assert all(r["incomplete"] == 0 for r in rows)
    return [r[metric] for r in rows]


def mean(name: str, x: int, variant: str, metric: str) -> float:
    return statistics.mean(runs(name, x, variant, metric))


def test_every_flow_runs_reno_recovery_with_65535_byte_ssthresh() -> None:
    for name in ("css-shared-filesize", "css-nonshared-buffer", "css-longlived"):
        for variant in VARIANTS:
            cfg = get(name).build(get(name).x_values[0], variant, 1)
            flows = cfg.get("tcp_flows", []) + cfg.get("mptcp_connections", [])
            assert flows
            for f in flows:
                assert f["tcp"]["recovery"] == "reno" and f["tcp"]["sack"] is False, (name, f["name"])
                assert f["tcp"]["initial_ssthresh_bytes"] == 65_535
            for c in cfg.get("mptcp_connections", []):
                if variant == "lisa":
                    assert c["slow_start"] == {"type": "lisa", "ignore_acks": False}


FILESIZE = get("css-shared-filesize")


def judged(claim: Claim, x: int) -> str:
    """The verdict of ``claim`` of the file-size experiment on the paper's 10 runs at file size ``x``."""
    rows = FILESIZE.rows([x], claim.named_variants(), RUNS)
    assert all(r["incomplete"] == 0 for r in rows)
    return claim.check(rows).verdict


def test_css_halves_mptcp_retransmissions_at_400_packets() -> None:
    """Fig. 3 at 400 packets, buffer 47: CSS cuts MPTCP's retransmissions by about half (15.6 against 37.5 over
    the paper's 10 runs)."""
    assert judged(single(FILESIZE.checks, Ratio, "retransmissions", left="css"), 400) == "holds"


@pytest.mark.xfail(
    strict=True,
    reason="docs/reproduction.md, the legacy ns-3 stack: with each subflow held to the 65 535-byte window and "
    "timeouts of SRTT + 4·RTTVAR (at least 200 ms), MPTCP's losses cost little and CSS is slower (4.83 vs 3.93 s)",
)
def test_css_completes_sooner_than_mptcp_at_400_packets() -> None:
    """Fig. 3: CSS completes about 0.5 s sooner than MPTCP on average."""
    assert judged(single(FILESIZE.checks, Difference, "fct_s", left="css"), 400) == "holds"


@pytest.mark.xfail(
    strict=True,
    reason="docs/reproduction.md, css-shared-filesize: with RFC-exact go-back-N after a timeout TCP is slower than "
    "MPTCP from 100 packets (2.62 vs 2.43 s at 200)",
)
def test_tcp_completes_sooner_than_mptcp_below_400_packets() -> None:
    """Fig. 3: TCP is sooner than MPTCP and LISA for files under 400 packets (200: 5.07 vs 5.83 s)."""
    assert judged(single(FILESIZE.checks, Order, "fct_s", ranking=("tcp",)), 200) == "holds"


def test_lisa_is_equivalent_to_mptcp_in_completion_time_at_400_packets() -> None:
    """Fig. 3's "LISA and MPTCP often have nearly the same results", completion time: equivalent within 10 % of
    MPTCP's by two one-sided tests over the paper's 10 runs (4.03 against 3.93 s)."""
    assert judged(single(FILESIZE.checks, Equivalent, "fct_s", left="lisa"), 400) == "holds"


@pytest.mark.xfail(
    strict=True,
    reason="docs/reproduction.md, css-shared-filesize: LISA's and MPTCP's retransmissions differ by 2 % (36.7 "
    "against 37.5) but their runs spread too widely (standard deviation 6.7) to show them within 10 %: TOST p 0.14",
)
def test_lisa_is_equivalent_to_mptcp_in_retransmissions_at_400_packets() -> None:
    """Fig. 3's "nearly the same results", retransmissions, by the same test."""
    assert judged(single(FILESIZE.checks, Equivalent, "retransmissions", left="lisa"), 400) == "holds"


def test_the_sequence_figure_shows_every_packet_sent_and_acknowledged_and_each_retransmission() -> None:
    """CSS Fig. 1 from the core's segment trace: every packet of the 200 is sent, SND.UNA only advances, the
    window's top never lies below it, and the retransmissions drawn are the run's."""
    from mpsim.engine import run_config
    from mpsim.experiments import experiment_metrics
    from mpsim.experiments.timeseries import sequences

    exp = get("css-sequence")
    for variant, subflows in (("tcp", 1), ("mptcp", 2)):
        seq = sequences(exp, 200, variant)
        assert sorted(seq) == list(range(subflows))
        cfg = exp.build(200, variant, 1)
        metrics = experiment_metrics(run_config(cfg).raw, cfg)
        assert sum(sum(s["retransmission"]) for s in seq.values()) == metrics["retransmissions"]
        # Segments sent for the first time on their subflow: TCP's are the 200 packets; MPTCP's also hold
        # the data a subflow resends for another (reinjection), new in its own sequence space.
        sent = sum(len(s["sent_s"]) - sum(s["retransmission"]) for s in seq.values())
        assert sent == 200 if variant == "tcp" else sent >= 200
        for s in seq.values():
            assert all(top >= una for una, top in zip(s["una_pkts"], s["window_top_pkts"], strict=True))
            assert s["una_pkts"] == sorted(s["una_pkts"])
        assert max(max(s["una_pkts"]) for s in seq.values()) >= 1


# ------------------------------------------------------------------------------------- the paper's words


CHECKS = [(e.name, c) for e in EXPERIMENTS for c in e.checks]


def test_every_check_cites_the_paper_where_it_says_it_and_derives_its_band() -> None:
    """Each check of the CSS paper carries the paper's words, where they stand and how its band (or its range,
    tie or margin) follows from them."""
    assert len(CHECKS) >= 40
    for name, c in CHECKS:
        assert c.quote and c.where and c.derivation, (name, c.statement())
        assert re.search(r"Fig\. \d|§|Abstract", c.where), (name, c.where)
        assert not c.exploration, (name, c.statement())


def test_every_quote_is_the_papers_own_words() -> None:
    paper = paper_words("000_")
    for name, c in CHECKS:
        assert collapsed(c.quote) in paper, (name, c.quote)


def test_every_figure_of_the_evaluation_and_every_headline_claim_has_a_check() -> None:
    """Figs. 1 and 3–7 each have a check of their text; the headline claims (the abstract's, the contributions',
    the conclusion's; docs/reproduction.md lists them) each have one marked as such."""
    for figure in ("Fig. 1", "Fig. 3", "Fig. 4", "Fig. 5", "Fig. 6", "Fig. 7"):
        assert any(figure in c.where for _, c in CHECKS), figure
    headline = {c.quote for _, c in CHECKS if c.headline}
    for words in (
        "twice as many resources",  # H1: MPTCP takes more than TCP in slow start
        "TCP completes about 0.5s earlier than MPTCP",  # H2: MPTCP's short flows are slower than TCP's
        "265%",  # H3: concurrent TCP flows suffer
        "lower short flows' latency of up to 45%",  # H4, the abstract's form
        "goodput gain of up to 40%",  # H4, the contributions' form
        "goodput gain of up to 45%",  # H4, §IV-C's form
        "significantly reduces MPTCP's packet loss by half",  # H5
        "CSS shows similar aggressiveness with TCP",  # H6
        "greater than (or similar to)",  # H7, shared bottleneck
        "is similar to that of MPTCP and LISA",  # H7, non-shared bottlenecks
    ):
        assert any(words in q for q in headline), words


def test_sooner_than_mptcp_is_asked_up_to_115_packets_and_a_little_longer_above() -> None:
    """§IV-B: CSS brings a goodput gain over MPTCP above 30 packets, but above 115 it "takes a little longer"."""
    shared = get("css-shared-buffer").checks
    sooner = single(shared, Compare, "fct_s", left="css", right="mptcp")
    assert (sooner.op, sooner.x_min, sooner.x_max) == ("<", 31, 115)
    longer = [c for c in shared if isinstance(c, Ratio) and c.metric == "fct_s"]
    assert {(c.left, c.right) for c in longer} == {(s, f) for s in ("css", "tcp") for f in ("mptcp", "lisa")}
    assert all((c.low, c.high, c.x_min) == (1.0, 1.1, 116) for c in longer)
    # TCP cannot overflow these buffers under the 65 535-byte window: only CSS's no-loss claim is checked.
    assert single(shared, Bound, "retransmissions").variants == ("css",)


def rows_of(means: dict[tuple[str, int], float]) -> list[dict[str, Any]]:
    return [{"x": x, "variant": v, "run": 1, "fct_s": m} for (v, x), m in means.items()]


def test_a_best_case_is_the_largest_gain_over_the_range() -> None:
    """'up to v': the largest gain of one variant over another among the x values in range, as a difference, a
    relative increase (a goodput gain from completion times) or a reduction."""
    table = rows_of({("css", 1): 1.0, ("mptcp", 1): 1.5, ("css", 2): 2.0, ("mptcp", 2): 2.2, ("css", 3): 3.0})
    gains: dict[Literal["difference", "increase", "reduction"], float] = {
        "difference": 0.5,
        "increase": 0.5,
        "reduction": 1 / 3,
    }
    for gain, largest in gains.items():
        claim = BestCase("", "fct_s", better="css", worse="mptcp", gain=gain, low=largest - 0.01, high=largest + 0.01)
        outcome = claim.check(table)
        assert (outcome.verdict, outcome.passed, outcome.total) == ("holds", 1, 1), gain
        assert outcome.details[0].startswith(f"largest {largest:.3g} at 1 (of 2 x)")
    upto = BestCase("", "fct_s", better="css", worse="mptcp", gain="increase", low=0.225, high=0.675, x_min=2)
    assert upto.check(table).verdict == "fails"  # 2.2/2.0 − 1 = 0.1 at the one x in range
    assert upto.statement() == "fct_s: the largest mptcp/css − 1 over x ≥ 2 in [0.225, 0.675]"
    assert BestCase("", "fct_s", better="css", worse="mptcp", x_min=4).check(table).verdict == "untested"
