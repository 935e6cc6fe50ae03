"""Reproductions of the Couple+ paper (Xue et al., "Migrating Unfairness Among Subflows in MPTCP With
Network Coding", IEEE TVT 2017), §V, Figs. 7, 9, 10 and 12–14 and Eqs. 4–6.

Fig. 8's wired–wireless network: every link 1 Mbit/s and 10 ms, three links on every path (base RTT
60 ms). Subflow 0 (S.0 → R0 → R2 → D) has a path of its own; subflow 1 (S.1 → R1 → R3 → D) shares the
wired bottleneck R1 → R3 ("subnet 10.1.5.0") with a non-coded TCP flow (T → R1 → R3 → U) and then
crosses the wireless hop R3 → D, which loses each packet with probability p. Subflow 1 is coded
(online network coding under its TCP, W = 6) in every variant but ``lia``.

Variants (the paper's legends, and Table I's coupled rules on the same MPTCP/NC):

- ``lia``: standard MPTCP, LIA (RFC 6356), no coding;
- ``mptcp_nc``: MPTCP/NC, LIA over the coded subflow (the paper's "RTT Compensator");
- ``couple_plus``: MPTCP/NC with Couple+ (§IV);
- ``ewtcp_nc``, ``coupled_nc``, ``semicoupled_nc``: MPTCP/NC with Table I's other rules.

The stack: the legacy ns-3 MPTCP model (:data:`mpsim.experiments.stacks.LEGACY_NS3`), read by the reasoning that
gives the CSS paper its stack. The paper says only "the ns-3 network simulator [29]" ([29] is ns-3's home page) and
"We implement “Couple+” in ns-3"; it names no MPTCP model. Three things point to the one the same group ran in
its two other ns-3 papers: (1) Couple+'s baseline is called "RTT Compensator" throughout, which is that model's
name for LIA and its default congestion control (``AlgoCC = RTT_Compensator``), not the name RFC 6356 or the Linux
kernel use; (2) the manuscript is of 2015 ("received June 6, 2015"), when mainline ns-3 had no MPTCP; (3) the CSS
paper (Wang, Xue, Yue, Han, Xu, Hong, GLOBECOM 2017; its ref. [9] is that model) and the GSAM paper (whose
corresponding author is Xue; its Fig. 8 is that model's subflow constructor) share three authors, the department
and the NSFC grant 61379129 with this one. As in CSS, the model replaces ns-3's whole TCP, so the single-path TCP
flows run it too. The paper sets none of the TCP settings: the segment size is the one the group states for its
ns-3 runs (the CSS paper, §IV-A: "In our simulation, the packet size is set to 1400 bytes"; the model's own default
would be ns-3's 536 B, which the GSAM authors kept), the initial window the model's own, 1 segment (the GSAM
paper's Fig. 8; the CSS paper's "IW (10 segments)" is an example in its motivation), and no initial ssthresh.

The readings this module had to choose are listed in docs/reproduction.md, section "Couple+".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from mpsim.engine import Results
from mpsim.experiments.base import (
    MS,
    RENO,
    Definition,
    Experiment,
    Panel,
    S,
    address,
    cbr,
    drop_tail,
    duplex,
    in_bytes,
    ns,
    scenario_of,
)
from mpsim.experiments.claims import (
    Band,
    Bound,
    Claim,
    Compare,
    CompareMetrics,
    Derived,
    Difference,
    EquivalentMetrics,
    NotCheckable,
    Trend,
)
from mpsim.experiments.css import MSS as CSS_MSS
from mpsim.experiments.stacks import legacy_ns3
from mpsim.scenario import Coding, CongestionControl, Flow, MptcpFlow, Scenario, TcpFlow, Throughput
from mpsim.topologies import Bernoulli, GilbertElliott, Link, LinkChange, Network, NoLoss

PAPER = "Couple+: Xue et al., Migrating Unfairness Among Subflows in MPTCP With Network Coding, IEEE TVT 2017"
RATE_BPS = 1_000_000
"""§V-B-1: "The bandwidth of each link is 1 Mb/s"."""
HOP_NS = 10 * MS
"""§V-B-1: "each link has equal delay of 10 ms" (base RTT 60 ms over three links)."""
MSS = CSS_MSS
"""Not given in the paper: the segment of the CSS paper's ns-3 setting (§IV-A, 1400 B), by the same group (the
legacy ns-3 model's own default would be 536 B)."""
BUFFER_PKTS = 100
"""ns-3's default drop-tail queue (the paper gives none)."""
WINDOW = 6
"""§V-B-1: "coding window size to 6"."""
SIZE_BYTES = 5_000_000
"""§V-B-1: "The total amount of data for each socket is 5 MB"."""
RUN_LIMIT_NS = 200 * S
BIN_NS = 1 * S
"""Width of the windowed-throughput bins."""
NONCONGESTED_LIMIT_NS = 200 * S

INITIAL_CWND = 1
"""Not given in the paper: the legacy ns-3 MPTCP model's initial window, 1 segment (the GSAM paper's Fig. 8 shows
that model's subflow constructor with ``cwnd = 1``)."""
STACK = "legacy_ns3"
"""The stack the paper ran, read as the CSS paper's (the module's docstring says why)."""
TCP = legacy_ns3(MSS, INITIAL_CWND)
"""Every TCP flow and subflow: the legacy ns-3 model (plain Reno recovery without SACK, every segment ACKed, a
65 535-byte window per flow and subflow), 1400-byte segments, IW 1. The coding shim acknowledges every new degree
of freedom at once, as the model's receiver does every segment."""

VARIANTS: tuple[str, ...] = ("lia", "mptcp_nc", "couple_plus", "ewtcp_nc", "coupled_nc", "semicoupled_nc")
_CC = {
    "lia": "lia",
    "mptcp_nc": "lia",
    "couple_plus": "couple_plus",
    "ewtcp_nc": "ewtcp",
    "coupled_nc": "coupled",
    "semicoupled_nc": "semicoupled",
}
REDUNDANCIES: tuple[float, ...] = (1.05, 1.1, 1.15, 1.2, 1.25, 1.3)
"""§V-B-1, Figs. 9, 10, 14: the redundancy parameters on their x axes."""


def redundancies(p: float) -> tuple[float, ...]:
    """The x values for wireless loss ``p``: only R ≥ 1/(1 − p), enough to cover the loss (Table II)."""
    return tuple(r for r in REDUNDANCIES if r * (1.0 - p) >= 1.0)


def _hop(a: str, b: str, **settings: Any) -> Link:
    """One 1 Mbit/s, 10 ms hop of Fig. 8, 100 packets queued each way."""
    return duplex(a, b, RATE_BPS, HOP_NS, drop_tail(BUFFER_PKTS), **settings)


def fig8(p: float, competing: bool, p_path0: float | None = None) -> Network:
    """Fig. 8: the two paths of the MPTCP host S to D, and (``competing``) the TCP flow's hosts T and U
    at the ends of subflow 1's wired bottleneck R1 → R3. The wireless hop R3 → D loses data packets with
    probability ``p`` (its ACK direction does not); with ``p_path0`` subflow 0's last hop R2 → D does too."""

    def lossy(q: float | None) -> dict[str, Any]:
        return {} if q is None else {"loss": Bernoulli(type="bernoulli", p=q), "reverse_loss": NoLoss()}

    links = [
        _hop("S0", "R0", node="S"),
        _hop("R0", "R2"),
        _hop("R2", "D", **lossy(p_path0)),
        _hop("S1", "R1", node="S"),
        _hop("R1", "R3"),
        _hop("R3", "D", **lossy(p)),
    ]
    if competing:
        links += [_hop("T", "R1"), _hop("R3", "U")]
    return Network(
        hosts=["S", "D", *(("T", "U") if competing else ())],
        routers=["R0", "R1", "R2", "R3"],
        links=links,
        addresses=[address("S.0", links[0]), address("S.1", links[3])],
    )


def mptcp(variant: str, coding: Mapping[str, Coding], size_bytes: int | None) -> MptcpFlow:
    """The measured MPTCP connection of ``variant``: subflow i from S.i to D; ``coding`` by source address,
    used by every variant but ``lia``."""
    if variant not in _CC:
        raise ValueError(f"variant: unknown '{variant}'; allowed: {', '.join(VARIANTS)}")
    return MptcpFlow(
        type="mptcp",
        name="measured",
        src=["S.0", "S.1"],
        dst=["D"],
        cc=CongestionControl(type=_CC[variant]),
        tcp=TCP,
        coding={} if variant == "lia" else dict(coding),
        size=in_bytes(size_bytes),
    )


def _coded(redundancy: float) -> dict[str, Coding]:
    """Subflow 1 coded with window W and redundancy ``redundancy``."""
    return {"S.1": Coding(window=WINDOW, redundancy=redundancy)}


def wired_wireless(p: float, redundancy: float, variant: str, run: int) -> Scenario:
    """Figs. 9 and 10: the MPTCP connection and the TCP flow, 5 MB each, both from time 0, with the windowed
    throughput in bins of 1 s: the competition period is every whole bin before the first of them completes."""
    flows: list[Flow] = [
        mptcp(variant, _coded(redundancy), SIZE_BYTES),
        TcpFlow(name="competing", src="T", dst="U", size=in_bytes(SIZE_BYTES), cc=RENO, tcp=TCP),
    ]
    return scenario_of(
        fig8(p, competing=True),
        seed=run,
        duration_ns=RUN_LIMIT_NS,
        flows=flows,
        stop_when_complete=["measured", "competing"],
        throughput=Throughput(interval=ns(BIN_NS)),
    )


def noncongested(p: float, redundancy: float, variant: str, run: int) -> Scenario:
    """Fig. 14: the MPTCP connection alone, 5 MB."""
    return scenario_of(
        fig8(p, competing=False),
        seed=run,
        duration_ns=NONCONGESTED_LIMIT_NS,
        flows=[mptcp(variant, _coded(redundancy), SIZE_BYTES)],
        stop_when_complete=["measured"],
    )


def _binned_kbps(raw: Mapping[str, Any], until_ns: float) -> dict[tuple[str, int | None], float]:
    """Each series' delivered rate (kbit/s) over the whole bins of the windowed throughput that end by
    ``until_ns``, by (flow, subflow)."""
    tp = raw["throughput"]
    start, width = tp["start_ns"], tp["interval_ns"]
    n = max(int((min(until_ns, tp["end_ns"]) - start) // width), 1)
    return {
        (x["flow"], x["subflow"]): sum(x["bytes_delivered"][:n]) * 8 / (n * width / 1e9) / 1e3 for x in tp["series"]
    }


def competition_row(results: Results, config: Mapping[str, Any]) -> dict[str, Any]:
    """One run of Figs. 9–10: each subflow's, the connection's and the TCP flow's delivered rate (kbit/s)
    in the competition period, the whole 1 s bins before the first transfer completes."""
    raw = results.raw
    ends = [f["fct_ns"] for f in raw["tcp_flows"] + raw["mptcp_connections"]]
    until = min((e for e in ends if e is not None), default=raw["end_time_ns"])
    rates = _binned_kbps(raw, until)
    return {
        "sub0_kbps": rates["measured", 0],
        "sub1_kbps": rates["measured", 1],
        "mptcp_kbps": rates["measured", None],
        "tcp_kbps": rates["competing", None],
        "competition_s": until / 1e9,
    }


def couple_row(results: Results, config: Mapping[str, Any]) -> dict[str, Any]:
    """One run's row: data-level goodput of each subflow, of the connection and of the competing TCP
    flow over the whole run (kbit/s), each subflow's data volume (MB) and the completion time."""
    raw = results.raw
    seconds = float(raw["end_time_ns"]) / 1e9
    conn = next(c for c in raw["mptcp_connections"] if c["name"] == "measured")
    subflows = conn["subflows"]
    competing = [f["bytes_delivered"] for f in raw["tcp_flows"] if f["name"].startswith("competing")]

    def kbps(b: float) -> float:
        return b * 8 / seconds / 1e3

    fct = conn["fct_ns"]
    return {
        "sub0_kbps": kbps(subflows[0]["bytes_received"]),
        "sub1_kbps": kbps(subflows[1]["bytes_received"]),
        "mptcp_kbps": kbps(conn["bytes_delivered"]),
        "tcp_kbps": kbps(sum(competing) / len(competing)) if competing else math.nan,
        "sub0_mb": subflows[0]["bytes_received"] / 1e6,
        "sub1_mb": subflows[1]["bytes_received"] / 1e6,
        "tcp_mb": sum(competing) / len(competing) / 1e6 if competing else math.nan,
        "fct_s": math.nan if fct is None else fct / 1e9,
        "retransmissions": conn["retransmits_fast"] + conn["retransmits_rto"],
    }


SUB0 = Panel("sub0_kbps", "Subflow 0 throughput (kbit/s)")
SUB1 = Panel("sub1_kbps", "Subflow 1 throughput (kbit/s)")
TCP_FLOW = Panel("tcp_kbps", "TCP flow throughput (kbit/s)")
CONNECTION = Panel("mptcp_kbps", "MPTCP connection throughput (kbit/s)")
VOLUME0 = Panel("sub0_mb", "Data sent by subflow 0 (MB)")
VOLUME1 = Panel("sub1_mb", "Data sent by subflow 1 (MB)")

_LOSSES = ((0.01, "p1", "a"), (0.05, "p5", "b"), (0.10, "p10", "c"))

# The paper's words, verbatim (whitespace aside), that the checks below judge. §V-B-1 (Figs. 9 and 10):
MANY_TIMES = (
    "if RTT Compensator is adopted as the congestion control scheme in MPTCP/NC, the throughput of subflow 1 is "
    "many times higher than the throughput of TCP flow in the same bottleneck"
)
EXAMPLE = (
    "in Fig. 9(a), when the wireless loss rate is 0.01, the redundancy is 1.05 and the throughput of subflow 1 is "
    "around 700 Kb/s, whereas in Fig. 10(a), the corresponding TCP flow gets throughput less than 100 Kb/s"
)
TCP_INCREASED = "If using Couple+, as shown in Fig. 10, the throughput of TCP flow is significantly increased"
NEARLY_EQUAL = "the throughput of TCP flow is significantly increased, which is nearly equal to that of subflow 1"
AT_MOST_TCP = (
    "The maximum throughput of coded subflow is nearly equal to or less than that of TCP flow in the congested "
    "bottleneck"
)
TOTAL_ABOVE_TCP = (
    "Although the throughput of coded subflow 1 is less than TCP flow, the total throughput of MPTCP/NC is higher "
    "than that of TCP flow"
)
BALANCE = (
    "The difference of throughput between subflow 0 and subflow 1 is much higher adopting Couple+ than that "
    "adopting RTT Compensator"
)
SUB1_HIGHER = (
    "It is obvious that the throughput of subflow 1 is higher if the congestion control scheme is RTT Compensator"
)
SIMILAR = "The phenomena are similar in Fig. 9(b) and (c), respectively, as compared with Fig. 10(b) and (c)"
# §V-B-3 (Fig. 14):
VOLUME_LOW = "The volume of data sent by sub1 is low when it is not coded"
VOLUME_LITTLE_LESS = (
    "Although the volume of data sent by sub1 (with coding) in Couple+ scenario is only a little less than that "
    "transferred by sub1 (without coding) in standard MPTCP scenario"
)
MUCH_HIGHER = "the throughput in the former is much higher than that in the latter"
AS_HIGH_AS_POSSIBLE = "can ensure that the flow can achieve throughput as high as possible"


def _over_redundancy(
    p: float,
    name: str,
    figure: str,
    description: str,
    build: Callable[[float, float, str, int], Scenario],
    panels: tuple[Panel, ...],
    claims: tuple[str, ...],
    checks: tuple[Claim, ...],
    variants: tuple[str, ...],
    extract: Callable[[Results, Mapping[str, Any]], dict[str, Any]],
) -> Experiment:
    """An experiment at wireless loss ``p`` whose x is the coded subflow's redundancy."""
    xs = redundancies(p)
    return Experiment(
        name=name,
        paper=PAPER,
        stack=STACK,
        figure=figure,
        description=description,
        x_name="redundancy",
        x_label="Redundancy R",
        x_values=xs,
        quick_x_values=(xs[0], xs[-1]),
        definition=Definition(build, axis="redundancy", fixed={"p": p}, axis_type=float),
        panels=panels,
        claims=claims,
        checks=checks,
        variants=variants,
        runs=5,
        quick_runs=1,
        extract=extract,
    )


def _every_r(p: float) -> str:
    """Why a sentence of §V-B-1 is checked at every redundancy of the panel at loss ``p``."""
    if p == 0.01:
        return "at every R of Fig. 9(a)/10(a), of which the text speaks"
    return f"at every R of the p = {p:g} panels, by §V-B-1: “{SIMILAR}”"


def _example_checks(p: float, where: str) -> tuple[Claim, ...]:
    """The one example of §V-B-1 with numbers: p = 0.01, R = 1.05, the RTT Compensator."""
    if p != 0.01:
        return ()
    return (
        Band(
            "mptcp_nc: sub1_kbps around 700 kbit/s at R = 1.05 (Fig. 9(a)).",
            "sub1_kbps",
            variants=("mptcp_nc",),
            low=350.0,
            high=1050.0,
            x_min=1.05,
            x_max=1.05,
            quote=EXAMPLE,
            where=where,
            derivation="“around 700 Kb/s”: the band convention for “around v” is v ± 50 %, [350, 1050] kbit/s; at "
            "the example's one point, p = 0.01, R = 1.05.",
        ),
        Bound(
            "mptcp_nc: tcp_kbps below 100 kbit/s at R = 1.05 (Fig. 10(a)).",
            "tcp_kbps",
            variants=("mptcp_nc",),
            op="<=",
            value=100.0,
            x_min=1.05,
            x_max=1.05,
            quote=EXAMPLE,
            where=where,
            derivation="“less than 100 Kb/s”: one-sided at the paper's number, 100 kbit/s; at the example's one "
            "point, p = 0.01, R = 1.05.",
        ),
    )


def _wired_wireless(p: float, tag: str, panel: str) -> Experiment:
    where = f"Figs. 9({panel}), 10({panel}), §V-B-1"
    every_r = _every_r(p)
    return _over_redundancy(
        p,
        f"couple-wired-wireless-{tag}",
        f"Figs. 9({panel}) and 10({panel})",
        f"Fig. 8, wireless loss {p}: MPTCP (subflow 1 coded, W = {WINDOW}) against a TCP flow on subflow 1's "
        "wired bottleneck, 5 MB each; throughput of each subflow, of the connection and of the TCP flow in the "
        "competition period.",
        wired_wireless,
        (SUB0, SUB1, TCP_FLOW, CONNECTION),
        (),
        (
            CompareMetrics(
                "mptcp_nc: sub1_kbps more than 3 times tcp_kbps at every R (the coded subflow takes 'many times' "
                "the TCP flow's throughput).",
                "sub1_kbps",
                variant="mptcp_nc",
                op=">",
                factor=3.0,
                other="tcp_kbps",
                quote=MANY_TIMES,
                where=where,
                headline=True,
                derivation="“many times higher”: the band convention for “many times” is a ratio of at least 3 (the "
                "example of Fig. 9(a)/10(a), 700 against less than 100 kbit/s, is checked on its own point); "
                f"{every_r}.",
            ),
            *_example_checks(p, where),
            Compare(
                "mptcp_nc: sub1_kbps higher than under couple_plus at every R.",
                "sub1_kbps",
                left="mptcp_nc",
                op=">",
                right="couple_plus",
                quote=SUB1_HIGHER,
                where=where,
                derivation=f"“higher”: one-sided, no margin in the words; {every_r}.",
            ),
            Compare(
                "couple_plus: tcp_kbps higher than under mptcp_nc at every R.",
                "tcp_kbps",
                left="couple_plus",
                op=">",
                right="mptcp_nc",
                criterion="significant",
                quote=TCP_INCREASED,
                where=where,
                headline=True,
                derivation="“significantly increased” (and “Adopting Couple+, the performance of TCP is much "
                "better”): the band convention for “significantly”, “much” is the stated side at every point, the "
                f"difference beyond 2 standard errors; {every_r}.",
            ),
            EquivalentMetrics(
                "couple_plus: tcp_kbps nearly equal to sub1_kbps (within 10 %) at every R (Do No Harm).",
                "tcp_kbps",
                variant="couple_plus",
                other="sub1_kbps",
                margin=0.1,
                quote=NEARLY_EQUAL,
                where=where,
                headline=True,
                derivation="“nearly equal”: the band convention for “nearly equal” is within 10 %, here of subflow "
                "1's mean over the same runs, shown by the two one-sided tests of the runs' paired differences "
                f"(as every “about the same” is an equivalence test); {every_r}.",
            ),
            CompareMetrics(
                "couple_plus: sub1_kbps below tcp_kbps, or above it by at most 10 %, at every R (Do No Harm).",
                "sub1_kbps",
                variant="couple_plus",
                op="<",
                other="tcp_kbps",
                tolerance=0.1,
                quote=AT_MOST_TCP,
                where=where,
                headline=True,
                derivation="“nearly equal to or less than”: below the TCP flow, or above it within the 10 % of "
                f"“nearly equal” (band convention); {every_r}.",
            ),
            CompareMetrics(
                "couple_plus: mptcp_kbps (the connection's total) above tcp_kbps at every R.",
                "mptcp_kbps",
                variant="couple_plus",
                op=">",
                other="tcp_kbps",
                quote=TOTAL_ABOVE_TCP,
                where=where,
                derivation=f"“higher”: one-sided, no margin in the words; {every_r}.",
            ),
            Compare(
                "couple_plus: sub0_kbps − sub1_kbps larger than under mptcp_nc at every R (Balance Congestion).",
                Derived("sub0_kbps", "-", "sub1_kbps"),
                left="couple_plus",
                op=">",
                right="mptcp_nc",
                criterion="significant",
                quote=BALANCE,
                where=where,
                headline=True,
                derivation="“much higher”: the band convention for “much” is the stated side at every point, the "
                f"difference beyond 2 standard errors; {every_r}.",
            ),
        ),
        VARIANTS,
        competition_row,
    )


def _noncongested(p: float, tag: str, panel: str) -> Experiment:
    where = f"Fig. 14({panel}), §V-B-3"
    return _over_redundancy(
        p,
        f"couple-noncongested-{tag}",
        f"Fig. 14({panel})",
        f"Fig. 8 without the TCP flow, wireless loss {p}: data volume of each subflow for a 5 MB transfer, "
        "Couple+ (subflow 1 coded) against standard MPTCP (both subflows uncoded).",
        noncongested,
        (VOLUME0, VOLUME1, SUB1),
        (),
        (
            NotCheckable(
                "couple_plus: sub1_mb against lia's sub1_mb (§V-B-3: the coded subflow's data volume).",
                "sub1_mb",
                reason="The two sentences on sub1's data volume contradict each other: “"
                + VOLUME_LOW
                + "” puts the uncoded subflow 1 of standard MPTCP below the coded one of Couple+, and the next, “"
                + VOLUME_LITTLE_LESS
                + "”, puts it above. No direction of the comparison is the paper's; only the throughput that the "
                "second sentence goes on to compare is checked.",
                quote=VOLUME_LITTLE_LESS,
                where=where,
            ),
            Compare(
                "couple_plus: sub1_kbps above lia's sub1_kbps at every R (§V-B3: its throughput is 'much higher').",
                "sub1_kbps",
                left="couple_plus",
                op=">",
                right="lia",
                criterion="significant",
                quote=MUCH_HIGHER,
                where=where,
                headline=True,
                derivation="“much higher”: the band convention for “much” is the stated side at every point, the "
                "difference beyond 2 standard errors; at every R of the panel, of which the text speaks.",
            ),
            Compare(
                "couple_plus: fct_s below lia's fct_s at every R (not a claim of the paper).",
                "fct_s",
                left="couple_plus",
                op="<",
                right="lia",
                quote=AS_HIGH_AS_POSSIBLE,
                where=f"{where} (the paper states no completion time)",
                exploration=True,
            ),
        ),
        ("lia", "mptcp_nc", "couple_plus"),
        couple_row,
    )


SENSED_BOTTLENECK_PKTS = 20
"""Ours (Eqs. 4–6 have no setting): a bottleneck queue short enough for congestion losses."""
SENSED_LIMIT_NS = 60 * S


def sensed_loss(redundancy: float, variant: str, run: int) -> Scenario:
    """Eqs. 4–6: two long TCP flows, A → B (``measured``: coded in ``tcp_nc``) and C → B (``competing``),
    through one 1 Mbit/s, 10 ms bottleneck R1 → R2 of 20 packets (access links 10 Mbit/s, 10 ms; base RTT
    60 ms), for 60 s. Only congestion loses packets."""
    if variant not in ("tcp", "tcp_nc"):
        raise ValueError(f"variant: unknown '{variant}'; allowed: tcp, tcp_nc")
    network = Network(
        hosts=["A", "B", "C"],
        routers=["R1", "R2"],
        links=[
            duplex("A", "R1", 10 * RATE_BPS, HOP_NS),
            duplex("C", "R1", 10 * RATE_BPS, HOP_NS),
            duplex("R1", "R2", RATE_BPS, HOP_NS, drop_tail(SENSED_BOTTLENECK_PKTS)),
            duplex("R2", "B", 10 * RATE_BPS, HOP_NS),
        ],
    )
    coding = Coding(window=WINDOW, redundancy=redundancy) if variant == "tcp_nc" else None
    flows = [
        TcpFlow(name="measured", src="A", dst="B", cc=RENO, tcp=TCP, coding=coding),
        TcpFlow(name="competing", src="C", dst="B", cc=RENO, tcp=TCP),
    ]
    return scenario_of(network, seed=run, duration_ns=SENSED_LIMIT_NS, flows=flows)


def sensed_loss_row(results: Results, config: Mapping[str, Any]) -> dict[str, Any]:
    """One run's row: the loss rate the measured sender senses (loss events — fast recoveries and
    timeouts — per segment sent) and the bottleneck's loss rate (drops per packet arriving)."""
    raw = results.raw
    f = next(f for f in raw["tcp_flows"] if f["name"] == "measured")
    link = next(x for x in raw["links"] if x["name"] == "R1-R2")
    sensed = (f["fast_recoveries"] + f["rto_count"]) / max(f["segments_sent"], 1)
    return {
        "sensed_loss": sensed,
        "bottleneck_loss": link["dropped_overflow_pkts"] / max(link["arrived_pkts"], 1),
        "goodput_kbps": f["bytes_delivered"] * 8 / (raw["end_time_ns"] / 1e9) / 1e3,
    }


# Fig. 11's mobile user, read onto Fig. 8's paths: subflow 0 is 4G, subflow 1 WiFi, both coded with W = 6, the
# TCP flow on the WiFi path's wired bottleneck. The user walks away from the access point at 20 s, is out of
# reach for 2 s at the farthest point and is back at 32 s: the WiFi hop's loss rate climbs and falls in steps
# around a 2 s outage.
LTE_LOSS, LTE_REDUNDANCY = 0.001, 1.05
"""§V-B-2: "The wireless loss rate of 4G access network is 0.001; hence, the redundancy of sub0 is 1.05"."""
WIFI_LOSS, WIFI_REDUNDANCY = 0.05, 1.15
"""§V-B-2: "The wireless loss rate of WiFi is 0.05; therefore, the redundancy of sub1 is 1.15"."""
WIFI_SCHEDULE: tuple[tuple[float, float | None], ...] = (
    (20.0, 0.10),
    (22.0, 0.20),
    (24.0, 0.40),
    (25.0, None),
    (27.0, 0.40),
    (28.0, 0.20),
    (30.0, 0.10),
    (32.0, WIFI_LOSS),
)
"""(time in s, WiFi loss rate from then; ``None``: the link is down). §V-B-2: worse from 20 s, out of reach for
2 s, recovered at 32 s; the steps between are ours."""
MOBILE_TIMES: tuple[float, ...] = tuple(float(t) for t in range(4, 45, 2))

# §V-B-2's words (Figs. 12 and 13) that the checks judge.
MOBILE_WHERE = "Figs. 12(b), 13(b), §V-B-2"
DECREASING = "In Figs. 12(b) and 13(b), throughput starts decreasing after 20 s when the link state becomes worse."
LOWEST = "Adopting RTT Compensator, the lowest throughput of sub1 is higher than that if adopting Couple+."
FAIRNESS = (
    "Despite the fairness existing between subflows and between coded subflow and TCP flow if using our proposed scheme"
)
RECOVERS = "recovers to the original state at 32 s"


def instant_row(results: Results, config: Mapping[str, Any]) -> dict[str, Any]:
    """One run of Figs. 12–13: each flow's delivered rate (kbit/s) in the run's one throughput bin, and the
    data each subflow and the TCP flow delivered by the end (MB)."""
    rates = _binned_kbps(results.raw, math.inf)
    row = couple_row(results, config)
    return {
        "sub0_kbps": rates["measured", 0],
        "sub1_kbps": rates["measured", 1],
        "tcp_kbps": rates["competing", None],
        "sub0_mb": row["sub0_mb"],
        "sub1_mb": row["sub1_mb"],
        "tcp_mb": row["tcp_mb"],
    }


def mobile(until_s: float, variant: str, run: int) -> Scenario:
    """Figs. 12 and 13: the run up to ``until_s`` seconds with one windowed-throughput bin, the last second
    (each x value is the same run stopped at that time: its row is the instantaneous throughput at t)."""
    if variant not in ("mptcp_nc", "couple_plus"):
        raise ValueError(f"variant: unknown '{variant}'; allowed: mptcp_nc, couple_plus")
    until_ns = round(until_s * S)
    # The changes the run reaches (a scenario ends before those after its duration).
    changes = [
        LinkChange(at=ns(round(at_s * S)), link="R3-D", up=False)
        if loss is None
        else LinkChange(at=ns(round(at_s * S)), link="R3-D", up=True, loss=Bernoulli(type="bernoulli", p=loss))
        for at_s, loss in WIFI_SCHEDULE
        if round(at_s * S) <= until_ns
    ]
    coding = {
        "S.0": Coding(window=WINDOW, redundancy=LTE_REDUNDANCY),
        "S.1": Coding(window=WINDOW, redundancy=WIFI_REDUNDANCY),
    }
    network = fig8(WIFI_LOSS, competing=True, p_path0=LTE_LOSS)
    return scenario_of(
        network.model_copy(update={"link_changes": changes}),
        seed=run,
        duration_ns=until_ns,
        flows=[mptcp(variant, coding, None), TcpFlow(name="competing", src="T", dst="U", cc=RENO, tcp=TCP)],
        throughput=Throughput(interval=ns(BIN_NS), start=ns(until_ns - BIN_NS)),
    )


MOBILE = Experiment(
    name="couple-mobile",
    paper=PAPER,
    stack=STACK,
    figure="Figs. 12 and 13",
    description=(
        "Fig. 11: 4G and WiFi subflows, both coded, a TCP flow on the WiFi bottleneck; the WiFi hop degrades "
        "from 20 s, is down 25–27 s and is back at 32 s. Instantaneous throughput: each flow's delivered rate "
        "in the second before t."
    ),
    x_name="time_s",
    x_label="Time (s)",
    x_values=MOBILE_TIMES,
    quick_x_values=(20.0, 34.0),
    scenario=mobile,
    panels=(SUB0, SUB1, TCP_FLOW),
    checks=(
        Trend(
            "mptcp_nc, couple_plus: sub1_kbps falls from t = 20 s to the outage (26 s) (Figs. 12(b), 13(b)).",
            "sub1_kbps",
            variants=("mptcp_nc", "couple_plus"),
            direction="falls",
            mode="rank",
            rank_over="runs",
            x_min=20,
            x_max=26,
            quote=DECREASING,
            where=MOBILE_WHERE,
            derivation="“starts decreasing after 20 s when the link state becomes worse”: a direction without a "
            "size, from the last second before the WiFi worsens (t = 20 s) to its worst state, the 2 s outage "
            "(t = 26 s); judged by Spearman's rank correlation over every run against t, negative at one-sided "
            "p < 0.05 (the conventional level: the words give none).",
        ),
        Difference(
            "mptcp_nc: sub1_kbps higher than couple_plus's, on average over t from 22 s to 32 s (the lowest "
            "throughput of sub1 while the WiFi is worse).",
            "sub1_kbps",
            left="couple_plus",
            right="mptcp_nc",
            low=0.0,
            x_min=22,
            x_max=32,
            quote=LOWEST,
            where=MOBILE_WHERE,
            headline=True,
            derivation="“the lowest throughput of sub1 is higher”: one-sided at 0, no margin in the words, over "
            "the seconds the WiFi is worse (20–32 s: the sampled seconds ending at 22, 24, …, 32 s). The 2 s "
            "outage (“the user cannot access the network via WiFi”) stops subflow 1 under both schemes, so the "
            "minimum itself is 0 for both: the depth of the dip is compared by its mean over the period, which "
            "a dip that is lower throughout makes lower.",
        ),
        CompareMetrics(
            "couple_plus: tcp_kbps within 10 % of sub1_kbps at every t up to 18 s (fairness between the coded "
            "subflow and the TCP flow).",
            "tcp_kbps",
            variant="couple_plus",
            op="≈",
            other="sub1_kbps",
            tolerance=0.1,
            x_max=18,
            quote=FAIRNESS,
            where=MOBILE_WHERE,
            derivation="“the fairness existing ... between coded subflow and TCP flow”: equal shares, within the "
            "10 % of “nearly equal” (band convention), of subflow 1's mean over the same runs; while the WiFi is in "
            "its original state (t ≤ 18 s; it worsens at 20 s).",
        ),
        Compare(
            "couple_plus: sub1_kbps above mptcp_nc's at every t from 34 s to 44 s (faster recovery; not a claim of "
            "the paper).",
            "sub1_kbps",
            left="couple_plus",
            op=">",
            right="mptcp_nc",
            x_min=34,
            x_max=44,
            quote=RECOVERS,
            where="Figs. 12(b), 13(b), §V-B-2 (no sentence of the paper compares the schemes after 32 s)",
            exploration=True,
        ),
    ),
    variants=("mptcp_nc", "couple_plus"),
    runs=3,
    quick_runs=1,
    extract=instant_row,
)


# Fig. 7's WiFi trace, emulated: a Gilbert–Elliott link whose losses are rare and isolated (the paper: "the
# number of lost packets in a redundant cycle is one with extremely high probability"): a bad state entered
# with probability 0.01 per packet and left with 0.95 (mean burst 1.05 packets), loss 1 in it and 0 outside,
# about 1 % loss in all (R = 1.05 then covers it, as the paper chose). A 100 kbit/s UDP flow of 1000-byte
# packets (12.5 per second) crosses it.
GE_LOSS = GilbertElliott(type="gilbert_elliott", p_gb=0.01, p_bg=0.95, loss_good=0.0, loss_bad=1.0)
UDP_BPS = 100_000
"""§V-A: "the transmission rate is limited to no more than 100 Kb/s"."""
UDP_PACKET_BYTES = 1000
"""Not given: 1000-byte datagrams, 12.5 a second at 100 kbit/s."""
CYCLE_PACKETS = 21
"""§V-A: at R = 1.05 "the redundant cycle size is 21" packets (1.05/0.05)."""
UDP_GAP_NS = UDP_PACKET_BYTES * 8 * S // UDP_BPS
"""80 ms between packets."""


def loss_pattern(cycles: int, variant: str, run: int) -> Scenario:
    """Fig. 7: the first ``cycles`` redundant cycles of 21 packets of the UDP flow (each x value is the same
    run cut after that many cycles, so that the losses per cycle are the steps of the cumulative count)."""
    if variant != "wifi_emulation":
        raise ValueError(f"variant: unknown '{variant}'; allowed: wifi_emulation")
    stop = cycles * CYCLE_PACKETS * UDP_GAP_NS
    link = duplex("A", "B", RATE_BPS, HOP_NS, loss=GE_LOSS, reverse_loss=NoLoss())
    return scenario_of(
        Network(hosts=["A", "B"], links=[link]),
        seed=run,
        duration_ns=stop + S,
        flows=[cbr("wifi", "A", "B", UDP_BPS, UDP_PACKET_BYTES, 0, stop)],
    )


def loss_pattern_row(results: Results, config: Mapping[str, Any]) -> dict[str, Any]:
    """One run's row: packets sent and lost so far."""
    (flow,) = results.raw["udp_flows"]
    return {"sent_pkts": flow["sent_pkts"], "lost_pkts": flow["sent_pkts"] - flow["received_pkts"]}


LOSS_PATTERN = Experiment(
    name="couple-loss-pattern",
    paper=PAPER,
    figure="Fig. 7 (emulated with a Gilbert–Elliott link, not the paper's WiFi trace)",
    description=(
        "Lost packets of a 100 kbit/s UDP flow over a Gilbert–Elliott link with rare, isolated losses, counted "
        "after each redundant cycle of 21 packets (R = 1.05); the step at cycle k is the loss in that cycle."
    ),
    x_name="cycles",
    x_label="Redundant cycles (21 packets each)",
    x_values=tuple(range(1, 61)),
    quick_x_values=(1, 10),
    scenario=loss_pattern,
    panels=(Panel("lost_pkts", "Packets lost so far"),),
    checks=(
        NotCheckable(
            "wifi_emulation: lost_pkts grows by at most 1 at 95 % or more of the cycles (Fig. 7: one lost packet per "
            "cycle with extremely high probability).",
            "lost_pkts",
            reason="Fig. 7 is a measurement of a real 802.11 link (Iperf UDP at no more than 100 kbit/s, §V-A), "
            "not a simulation: a simulator has no such link to measure. The emulation here draws its losses from "
            "a Gilbert–Elliott model chosen to match the observation, so any check of it judges the model put in, "
            "not a result; its counts are reported, not judged.",
            quote="the number of lost packets in a redundant cycle is one with extremely high probability",
            where="Fig. 7, §V-A",
            headline=True,
        ),
    ),
    variants=("wifi_emulation",),
    runs=1,
    quick_runs=1,
    extract=loss_pattern_row,
)


SENSED = Experiment(
    name="couple-sensed-loss",
    paper=PAPER,
    stack=STACK,
    figure="Eqs. 4–6",
    description=(
        "A coded and an uncoded TCP flow (and, as the baseline, two uncoded ones) at one congested 1 Mbit/s "
        "bottleneck: the loss rate each measured sender senses against the bottleneck's."
    ),
    x_name="redundancy",
    x_label="Redundancy R of the coded flow",
    x_values=(1.05, 1.1, 1.25, 1.5),
    quick_x_values=(1.25,),
    scenario=sensed_loss,
    panels=(Panel("sensed_loss", "Loss rate sensed by the sender"), Panel("goodput_kbps", "Goodput (kbit/s)")),
    checks=(
        Compare(
            "tcp_nc: sensed_loss below tcp's sensed_loss at every R (Eq. 6: p_nc < p_c).",
            "sensed_loss",
            left="tcp_nc",
            op="<",
            right="tcp",
            quote="Obviously, the sender of network coding flows senses less loss rate as in (6).",
            where="§III-A, Eq. (6)",
            headline=True,
            derivation="“less”: one-sided, no margin (Eq. 5's magnitude is unusable: its denominator is ≤ 0 "
            "whenever R ≥ 1/(1 − p_max)); at every R, none being excepted.",
        ),
        Compare(
            "tcp_nc: goodput_kbps above tcp's goodput_kbps at every R (the coded flow is the greedier).",
            "goodput_kbps",
            left="tcp_nc",
            op=">",
            right="tcp",
            quote="The coded subflow becomes greedier when the coding factors, i.e., redundancy factor and coding "
            "window size, are higher than the required level.",
            where="§I",
            derivation="“greedier”: one-sided, no margin; at every R, each above the required level 1/(1 − p) = 1 "
            "of a path without wireless loss.",
        ),
    ),
    variants=("tcp", "tcp_nc"),
    runs=5,
    quick_runs=1,
    extract=sensed_loss_row,
)


EXPERIMENTS: list[Experiment] = (
    [_wired_wireless(p, tag, panel) for p, tag, panel in _LOSSES]
    + [_noncongested(p, tag, panel) for p, tag, panel in _LOSSES]
    + [SENSED, MOBILE, LOSS_PATTERN]
)
