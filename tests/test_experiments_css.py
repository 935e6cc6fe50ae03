"""The CSS paper's experiments: the simulator it names (plain Reno recovery for every flow, ssthresh 65535
bytes), LISA in the credit-only form it compares, and the headline claims of Fig. 3 at the paper's 10 runs."""

from __future__ import annotations

import statistics

import pytest

from mpsim.experiments import VARIANTS, get
from mpsim.experiments.claims import Claim, Compare, Difference, Order, Ratio, single

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
    assert judged(single(FILESIZE.checks, Order, "fct_s"), 200) == "holds"


@pytest.mark.xfail(
    strict=True,
    reason="docs/reproduction.md, css-shared-filesize: LISA's retransmissions lie 3.8 standard deviations below "
    "MPTCP's at 100 packets (18.8 against 25.1 ± 1.7), and at 50 packets every variant takes the same 0.59 s",
)
def test_lisa_is_nearly_mptcp_within_its_spread_from_100_packets() -> None:
    """Fig. 3's "LISA does not limit the exponential growth of its subflows' cwnd, therefore LISA and MPTCP often
    have nearly the same results", judged as the paper plots it (mean and standard deviation of 10 runs): at every
    size from 100 packets, LISA's mean retransmissions and completion time lie within one standard deviation of
    MPTCP's runs, while CSS's retransmissions, which the paper contrasts with both, lie outside that band (full mode
    at 400 packets: retx 36.7, 37.5 ± 6.7, 15.6; FCT 4.03 against 3.93 ± 0.28 s). At 50 packets the file is done
    within the initial windows and every variant takes the same 0.59 s, so LISA is not apart from MPTCP there either."""
    name = "css-shared-filesize"
    nearly = single(FILESIZE.checks, Compare, "fct_s", left="lisa")

    def off_mptcp(variant: str, x: int, metric: str) -> float:
        """How far ``variant``'s mean lies from MPTCP's, in standard deviations of MPTCP's runs."""
        mptcp = runs(name, x, "mptcp", metric)
        return (mean(name, x, variant, metric) - statistics.mean(mptcp)) / statistics.stdev(mptcp)

    for x in get(name).x_values:
        for metric in ("retransmissions", "fct_s"):
            assert (abs(off_mptcp("lisa", x, metric)) < 1) == (x >= nearly.x_min), (x, metric)
        if x >= nearly.x_min:
            assert off_mptcp("css", x, "retransmissions") < -1, x


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
