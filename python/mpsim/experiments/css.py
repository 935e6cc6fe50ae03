"""Reproductions of the CSS paper (Wang et al., "Coupled Slow-Start", GLOBECOM 2017), §IV, Figs. 3–7.

The paper's ns-3 setting (§IV-A): 1400-byte packets, IW 10, ssthresh and con_ssthresh 65535 **bytes**
(about 47 packets, so that con_ssthresh/baseRTT matches the 5 Mbit/s bottleneck at 100 ms), LIA in
congestion avoidance, a long-lived TCP flow and a 500 kbit/s UDP flow as background, 10 runs per point.
The short transfer starts at a random time in [2 s, 5 s]; that draw is what differs between runs.
The readings this module had to choose are listed in docs/reproduction.md.

Settings the paper does not state, with their source (docs/reproduction.md, CSS, "Settings and the readings
chosen"): the stack is the legacy ns-3 MPTCP model the paper cites ([9]; `stacks.LEGACY_NS3`: every segment
ACKed, a 65 535-byte window per flow and subflow — Fig. 1's send window "is constant in simulation" —, plain Reno
recovery, minimum RTO 200 ms), though §III-B's α = 1.5 is chosen "as the receiver usually uses delayed ACK"; the
coupled increase is LIA (RFC 6356, the paper's [3]; the model's default, the RTT Compensator, is the same
increase); the second subflow joins 150 ms after the first is established (Fig. 1(c): "about 0.25s later"); the
file-size sweeps' buffer is the text's 47 packets (the captions of Figs. 3 and 7 say 45); the buffer grids step by
5 packets (the paper gives their ends); Fig. 4's start gaps are uniform on [0, 2.4 s] (the paper: "uniformly
distributed and the average is 1.2s").

Every check carries the paper's words (``quote``, verbatim), where they stand and, for a band, how it follows
from them (``derivation``), pre-registered before the runs that judge it; ``headline`` marks the checks of the
claims of the abstract, the contributions and the conclusion (listed in docs/reproduction.md).
"""

from __future__ import annotations

from mpsim.experiments.base import (
    FCT,
    MS,
    RETX,
    Definition,
    Experiment,
    Panel,
    S,
    address,
    cbr,
    drop_tail,
    duplex,
    run_random,
    scenario_of,
    transfer,
)
from mpsim.experiments.claims import (
    Band,
    BestCase,
    Bound,
    Compare,
    Difference,
    Equivalent,
    Order,
    Ratio,
    Trend,
)
from mpsim.experiments.stacks import IP_TCP_HEADER_BYTES, LISA_CREDIT_ONLY, PPP_FRAMING_BYTES, gsam_on_path, legacy_ns3
from mpsim.scenario import Flow, Scenario, SlowStart
from mpsim.topologies import Network

PAPER = "CSS: Wang et al., Coupled Slow-Start, GLOBECOM 2017"

# The paper's setting, §IV-A.
MSS = 1400
"""§IV-A: "the packet size is set to 1400 bytes"."""
ACCESS_BPS = 100_000_000
"""§IV-A: "Bandwidth of other links is set to 100 Mbps"."""
ACCESS_DELAY_NS = 10 * MS
"""§IV-A: "their link delay is set to 10 ms"."""
BOTTLENECK_BPS = 5_000_000
"""§IV-A: "The bottleneck bandwidth is set to 5 Mbps"."""
BOTTLENECK_DELAY_NS = 30 * MS
"""§IV-A: "the link delay is set to 30 ms"; RTT 2·(10 + 30 + 10) = 100 ms."""
BUFFER_PKTS = 47
"""§IV-A: the drop-tail bottleneck buffer is the path's BDP, "about 47 packets"."""
SSTHRESH_BYTES = 65_535
"""§IV-A: "TCP's ssthresh is set to 65535 and con_ssthresh is equal to ssthresh" (bytes in ns-3)."""
INITIAL_CWND = 10
"""§III-B: subflows start with an initial window of 10 segments."""
UDP_BPS = 500_000
"""§IV-A: "A long-lived UDP background flow ... at constant rate of 500 Kbps"."""
START_S = (2.0, 5.0)
"""§IV-A: the short flow "will start randomly in the interval [2 sec, 5 sec]"."""

# The paper's simulator is the legacy ns-3 MPTCP model it cites ([9]), for the single-path flows too, with
# the paper's 1400-byte packets, IW 10 and ssthresh 65535 bytes; LISA beside it as the paper
# describes it (§I: the new subflow's IW is subtracted from an existing subflow's cwnd).
TCP = legacy_ns3(MSS, INITIAL_CWND, SSTHRESH_BYTES)
LISA = LISA_CREDIT_ONLY
# Fig. 1(c): the second subflow starts about 0.25 s after the first, i.e. ~0.15 s after the first
# subflow's handshake (one 100 ms RTT).
JOIN_DELAY_NS = 150 * MS
RUN_LIMIT_NS = 70 * S


ACK_WIRE_BYTES = IP_TCP_HEADER_BYTES + PPP_FRAMING_BYTES
"""An ACK on the wire: IP and TCP headers without options, ns-3's PPP framing."""
WIRE_BYTES = MSS + ACK_WIRE_BYTES
"""A full segment on the wire."""


def _gsam(net: Network, buffer_pkts: int) -> SlowStart:
    """GSAM's K (its authors' reading) from the first subflow's path S0a → R1 → R2 → D0 (also R1a → R2a
    in the non-shared topology, of equal rate and delay)."""
    names = {link.forward_name for link in net.links}
    route = ["S0a-R1", "R1-R2", "R2-D0"] if "R1-R2" in names else ["S0a-R1a", "R1a-R2a", "R2a-D0"]
    return gsam_on_path(net.links, route, buffer_pkts, BOTTLENECK_BPS, WIRE_BYTES, ACK_WIRE_BYTES)


def shared(buffer_pkts: int) -> Network:
    """Fig. 2(a): S0 (two interfaces), S2, S3 → R1 → 5 Mbit/s, 30 ms, B packets → R2 → D0, D2, D3.

    Access links 100 Mbit/s, 10 ms one way, so the base RTT is 2·(10 + 30 + 10) = 100 ms.
    """
    links = [
        duplex("S0a", "R1", ACCESS_BPS, ACCESS_DELAY_NS, node="S0"),
        duplex("S0b", "R1", ACCESS_BPS, ACCESS_DELAY_NS, node="S0"),
        duplex("S2", "R1", ACCESS_BPS, ACCESS_DELAY_NS),
        duplex("S3", "R1", ACCESS_BPS, ACCESS_DELAY_NS),
        duplex("R1", "R2", BOTTLENECK_BPS, BOTTLENECK_DELAY_NS, drop_tail(buffer_pkts)),
        duplex("R2", "D0", ACCESS_BPS, ACCESS_DELAY_NS),
        duplex("R2", "D2", ACCESS_BPS, ACCESS_DELAY_NS),
        duplex("R2", "D3", ACCESS_BPS, ACCESS_DELAY_NS),
    ]
    return Network(
        hosts=["S0", "S2", "S3", "D0", "D2", "D3"],
        routers=["R1", "R2"],
        links=links,
        addresses=[address("S0.a", links[0]), address("S0.b", links[1])],
    )


def nonshared(buffer_pkts: int) -> Network:
    """Fig. 2(b): two disjoint 5 Mbit/s, 30 ms bottlenecks A (R1a→R2a) and B (R1b→R2b), each with a
    long-lived TCP flow and a 500 kbit/s UDP flow; the short transfer's subflow i uses path i."""
    links = []
    for p in ("a", "b"):
        links += [
            duplex(f"S0{p}", f"R1{p}", ACCESS_BPS, ACCESS_DELAY_NS, node="S0"),
            duplex(f"R1{p}", f"R2{p}", BOTTLENECK_BPS, BOTTLENECK_DELAY_NS, drop_tail(buffer_pkts)),
            duplex(f"R2{p}", "D0", ACCESS_BPS, ACCESS_DELAY_NS),
        ]
    for h, p in (("1", "a"), ("2", "a"), ("3", "b"), ("4", "b")):
        links += [
            duplex(f"S{h}", f"R1{p}", ACCESS_BPS, ACCESS_DELAY_NS),
            duplex(f"R2{p}", f"D{h}", ACCESS_BPS, ACCESS_DELAY_NS),
        ]
    return Network(
        hosts=["S0", "S1", "S2", "S3", "S4", "D0", "D1", "D2", "D3", "D4"],
        routers=["R1a", "R2a", "R1b", "R2b"],
        links=links,
        addresses=[address("S0.a", links[0]), address("S0.b", links[3])],
    )


def _background(pairs_tcp: list[tuple[str, str]], pairs_udp: list[tuple[str, str]]) -> list[Flow]:
    """The long-lived background: a TCP flow on each of ``pairs_tcp``, a 500 kbit/s UDP flow on each of
    ``pairs_udp``."""
    tcp = [transfer("tcp", f"background-tcp{i}", [s], [d], None, 0, TCP) for i, (s, d) in enumerate(pairs_tcp)]
    return [*tcp, *(cbr(f"background-udp{i}", s, d, UDP_BPS, MSS) for i, (s, d) in enumerate(pairs_udp))]


def _short_transfer(
    experiment: str, variant: str, run: int, size_pkts: int, buffer_pkts: int, net: Network, background: list[Flow]
) -> Scenario:
    """A ``size_pkts`` transfer of ``variant`` from S0's two interfaces to D0 at a random start in [2 s, 5 s],
    beside ``background``; the run ends when it completes."""
    lo, hi = START_S
    start = int(lo * S) + int(run_random(experiment, run).uniform(0.0, hi - lo) * S)
    measured = transfer(
        variant,
        "measured",
        ["S0.a", "S0.b"],
        ["D0"],
        size_pkts * MSS,
        start,
        TCP,
        JOIN_DELAY_NS,
        gsam=_gsam(net, buffer_pkts),
        lisa=LISA,
    )
    return scenario_of(
        net,
        seed=run,
        duration_ns=start + RUN_LIMIT_NS,
        flows=[*background, measured],
        stop_when_complete=["measured"],
    )


def shared_run(experiment: str, variant: str, run: int, size_pkts: int, buffer_pkts: int) -> Scenario:
    """A ``size_pkts`` transfer over the shared bottleneck (Fig. 2a) of ``buffer_pkts``, with its background."""
    background = _background([("S2", "D2")], [("S3", "D3")])
    return _short_transfer(experiment, variant, run, size_pkts, buffer_pkts, shared(buffer_pkts), background)


def nonshared_run(experiment: str, variant: str, run: int, size_pkts: int, buffer_pkts: int) -> Scenario:
    """A ``size_pkts`` transfer over the two disjoint bottlenecks (Fig. 2b) of ``buffer_pkts``, with their
    background."""
    background = _background([("S2", "D2"), ("S3", "D3")], [("S1", "D1"), ("S4", "D4")])
    return _short_transfer(experiment, variant, run, size_pkts, buffer_pkts, nonshared(buffer_pkts), background)


FILE_SIZES = (50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000)
"""§IV-B, Fig. 3: "file size varying from 50 packets (70KB) to 1000 packets (1.4MB)"."""
QUICK_FILE_SIZES = (50, 200, 400, 700, 1000)
BUFFER_FILE_PKTS = 400
"""§IV-B, §IV-C: the buffer sweeps (Figs. 5, 6) run "with the file size of 400 packets (560KB)"."""

SUM_CWND = Panel("sum_cwnd_pkts", "Sum of cwnd at completion (packets)")


LONG_FLOW_PKTS = 4000
"""§IV-B, Fig. 4: "the long-lived TCP flow [transfers] a file of 4000 packets (5.6MB)"."""
SHORT_FLOWS = 80
"""§IV-B, Fig. 4: "we start 80 TCP or MPTCP short flows in sequence"."""
SHORT_FLOW_PKTS = 200
"""§IV-B, Fig. 4: "Each short flow transfers a file of 200 packets (280KB)"."""
SHORT_GAP_MEAN_S = 1.2
"""§IV-B, Fig. 4: the gaps between start-ups "are uniformly distributed and the average is 1.2s"."""
LONGLIVED_LIMIT_NS = 300 * S


def longlived_run(experiment: str, variant: str, run: int, buffer_pkts: int) -> Scenario:
    """Fig. 4: a 4000-packet TCP flow from S2 while 80 short 200-packet transfers of the variant
    start in sequence with gaps uniform on [0, 2.4 s] (mean 1.2 s); the long flow's time is reported."""
    net = shared(buffer_pkts)
    flows: list[Flow] = [
        transfer("tcp", "measured", ["S2"], ["D2"], LONG_FLOW_PKTS * MSS, 0, TCP),
        cbr("background-udp", "S3", "D3", UDP_BPS, MSS),
    ]
    rng = run_random(experiment, run)
    t = 0.0
    for k in range(SHORT_FLOWS):
        flows.append(
            transfer(
                variant,
                f"short{k}",
                ["S0.a", "S0.b"],
                ["D0"],
                SHORT_FLOW_PKTS * MSS,
                int(t * S),
                TCP,
                JOIN_DELAY_NS,
                gsam=_gsam(net, buffer_pkts),
                lisa=LISA,
            )
        )
        t += rng.uniform(0.0, 2 * SHORT_GAP_MEAN_S)
    return scenario_of(net, seed=run, duration_ns=LONGLIVED_LIMIT_NS, flows=flows, stop_when_complete=["measured"])


SCHEMES = ("tcp", "mptcp", "lisa", "css")
"""The schemes the paper compares."""
SSTHRESH_PKTS = SSTHRESH_BYTES / MSS
"""ssthresh and con_ssthresh in packets of 1400 B: 46.8."""

# ---------------------------------------------------------------------------------------------- the claims
#
# Every band below is derived from the paper's words or numbers before any run judged it (docs/reproduction.md,
# CSS, "Headline claims"), with the conventions of the catalogue's reading of the five papers:
# an exact number v ± 25 %; "about v" ± 50 %; "up to v" (a best case) the largest over the stated range in
# [0.5·v, 1.5·v]; "by half" a ratio in [0.3, 0.7]; "by X %–Y %" that range widened by 5 points each side;
# "twice" a ratio in [2/1.5, 2·1.5]; "similar", "nearly the same" equivalent within 10 % (TOST); "greater than
# (or similar to)" an order whose neighbours within 10 % are tied; "a little longer" 0–10 % longer;
# "significantly" beyond 2 standard errors; "drastically" that and a ratio ≤ 0.5.

EXACT = "an exact number of the paper v: v ± 25 %"
ABOUT = "'about v': v ± 50 %"
UP_TO = "'up to v', a best case: the largest over the range in [0.5·v, 1.5·v]"
SIMILAR = "'similar' / 'nearly the same': equivalent within ±10 % of the reference (TOST, α = 0.05)"


EXPERIMENTS = [
    Experiment(
        name="css-sequence",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 1, §II",
        description="A 200-packet transfer over the shared bottleneck, TCP against 2-subflow MPTCP: the sequence "
        "numbers sent and acknowledged against time of TCP and of each MPTCP subflow (traces-200), completion "
        "time and retransmissions over 10 runs",
        x_name="file_size_pkts",
        x_label=f"File size (packets of {MSS} B)",
        x_values=(200,),
        quick_x_values=(200,),
        definition=Definition(shared_run, axis="size_pkts", fixed={"buffer_pkts": BUFFER_PKTS}),
        panels=(FCT, RETX),
        checks=(
            Difference(
                "TCP completes about 0.5 s earlier than MPTCP.",
                "fct_s",
                left="tcp",
                right="mptcp",
                low=0.25,
                high=0.75,
                quote="We can see clearly that TCP completes about 0.5s earlier than MPTCP.",
                where="Fig. 1, §II",
                headline=True,
                derivation=f"{ABOUT}: 0.5 s → [0.25, 0.75] s",
            ),
            Band(
                "TCP retransmits 12 packets in total.",
                "retransmissions",
                variants=("tcp",),
                low=0.75 * 12,
                high=1.25 * 12,
                quote="As shown in Fig. 1(a), TCP retransmits 12 packets in total.",
                where="Fig. 1(a), §II",
                derivation=f"{EXACT}: 12 → [9, 15] (the paper's one run against the mean of 10)",
            ),
            Band(
                "MPTCP's two subflows retransmit 15 and 13 packets, 28 in total.",
                "retransmissions",
                variants=("mptcp",),
                low=0.75 * 28,
                high=1.25 * 28,
                quote="Subflow 1 retransmits 15 packets and subflow 2 retransmits 13 packets in total.",
                where="Fig. 1(b, c), §II",
                derivation=f"{EXACT}: 15 + 13 = 28 → [21, 35] (the connection's total; the rows do not split "
                "it by subflow)",
            ),
            Ratio(
                "After subflow 2 joins, the two subflows' bursts overrun the shared buffer: MPTCP retransmits 28 "
                "packets where TCP retransmits 12.",
                "retransmissions",
                left="mptcp",
                right="tcp",
                low=0.75 * 28 / 12,
                high=1.25 * 28 / 12,
                quote="after subflow 2 joins, large bursts of traffic from the two subflows overrun the buffer at "
                "the shared bottleneck. Subflow 1 retransmits 15 packets and subflow 2 retransmits 13 packets in "
                "total.",
                where="Fig. 1, §II",
                derivation=f"{EXACT}: (15 + 13)/12 = 2.33 → [1.75, 2.92]",
            ),
        ),
        trace_x=(200,),
        trace_kind="sequence",
        notes=(
            "Fig. 1 is one run of the paper's; the figure draws run 1, the checks take the means of 10.",
            "The paper does not give this run's buffer; it is the scenario's BDP, 47 packets (§IV-A).",
        ),
    ),
    Experiment(
        name="css-shared-filesize",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 3 (a, b), §IV-B",
        description="Shared 5 Mbit/s bottleneck, buffer 47 packets: completion time and retransmissions vs file size",
        x_name="file_size_pkts",
        x_label=f"File size (packets of {MSS} B)",
        x_values=FILE_SIZES,
        quick_x_values=QUICK_FILE_SIZES,
        definition=Definition(shared_run, axis="size_pkts", fixed={"buffer_pkts": BUFFER_PKTS}),
        panels=(FCT, RETX),
        claims=(
            "Retransmissions do not increase rapidly once the file exceeds 300 packets, slow start being over (not "
            "checked: the paper gives no number or closeness word for 'rapidly').",
        ),
        checks=(
            Order(
                "TCP completes sooner than MPTCP and LISA for files under 400 packets.",
                "fct_s",
                ranking=("tcp",),
                rest=("mptcp", "lisa"),
                x_max=399,
                quote="We observe that TCP outperforms MPTCP and LISA in completion time when the file size is less "
                "than 400 packets",
                where="Fig. 3(a), §IV-B",
                headline=True,
                derivation="'less than 400 packets': x < 400; 'outperforms': strictly sooner, no tie",
            ),
            Order(
                "MPTCP and LISA retransmit more than TCP for files under 400 packets.",
                "retransmissions",
                ranking=("tcp",),
                rest=("mptcp", "lisa"),
                x_max=399,
                quote="the reason is that MPTCP and LISA have more retransmissions",
                where="Fig. 3(b), §IV-B",
                derivation="the reason given for TCP's lead at 'less than 400 packets': x < 400",
            ),
            Ratio(
                "CSS cuts MPTCP's retransmissions by about half.",
                "retransmissions",
                left="css",
                right="mptcp",
                low=0.3,
                high=0.7,
                quote="In Fig. 3(b), CSS significantly reduces MPTCP's packet loss by half.",
                where="Fig. 3(b), §IV-B",
                headline=True,
                derivation="'by half': a ratio in [0.3, 0.7], at every file size (a size where neither loses "
                "anything is no point of a ratio)",
            ),
            Compare(
                "CSS retransmits significantly less than MPTCP.",
                "retransmissions",
                left="css",
                op="<",
                right="mptcp",
                criterion="significant",
                quote="In Fig. 3(b), CSS significantly reduces MPTCP's packet loss by half.",
                where="Fig. 3(b), §IV-B",
                headline=True,
                derivation="'significantly': fewer at every file size, the difference beyond 2 standard errors",
            ),
            Order(
                "CSS completes sooner than TCP, MPTCP and LISA.",
                "fct_s",
                ranking=("css",),
                rest=("tcp", "mptcp", "lisa"),
                quote="As a result, CSS outperforms the other schemes",
                where="Fig. 3(a), §IV-B",
                headline=True,
                derivation="'outperforms the other schemes': strictly sooner than each, at every file size",
            ),
            Difference(
                "CSS completes about 0.5 s sooner than MPTCP on average.",
                "fct_s",
                left="css",
                right="mptcp",
                low=0.25,
                high=0.75,
                quote="reduces the completion time of MPTCP by about 0.5s on average and up to 1.5s in the best case.",
                where="Fig. 3(a), §IV-B",
                headline=True,
                derivation=f"{ABOUT}: 0.5 s on average over the file sizes → [0.25, 0.75] s",
            ),
            BestCase(
                "CSS completes up to 1.5 s sooner than MPTCP in the best case.",
                "fct_s",
                better="css",
                worse="mptcp",
                gain="difference",
                low=0.75,
                high=2.25,
                quote="reduces the completion time of MPTCP by about 0.5s on average and up to 1.5s in the best case.",
                where="Fig. 3(a), §IV-B",
                headline=True,
                derivation=f"{UP_TO}: 1.5 s → [0.75, 2.25] s",
            ),
            Equivalent(
                "CSS and TCP lose about as many packets.",
                "retransmissions",
                left="css",
                right="tcp",
                margin=0.10,
                quote="The packet loss of CSS and TCP is similar because MPTCP's *con_ssthresh* is equal to TCP's "
                "*ssthresh*, indicating that their aggressiveness is also similar.",
                where="Fig. 3(b), §IV-B",
                headline=True,
                derivation=f"{SIMILAR}, TCP the reference, at every file size",
            ),
            *(
                Equivalent(
                    "LISA and MPTCP give nearly the same results.",
                    metric,
                    left="lisa",
                    right="mptcp",
                    margin=0.10,
                    quote="LISA does not limit the exponential growth of its subflows' *cwnd*, therefore LISA and "
                    "MPTCP often have nearly the same results.",
                    where=f"Fig. 3({panel}), §IV-B",
                    derivation=f"{SIMILAR}, MPTCP the reference, at every file size ('often' asks less than every "
                    "size; the claim language has no share of points, so 'partly' is its reading)",
                )
                for metric, panel in (("fct_s", "a"), ("retransmissions", "b"))
            ),
        ),
    ),
    Experiment(
        name="css-shared-buffer",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 5 (a, b, c), §IV-B",
        description="Shared bottleneck, 400-packet file: completion time, retransmissions, sum of cwnd vs buffer",
        x_name="buffer_pkts",
        x_label="Bottleneck buffer (packets)",
        # §IV-B: "we vary the bottleneck buffer size from 20 to 130".
        x_values=tuple(range(20, 131, 5)),
        quick_x_values=(20, 30, 47, 70, 100, 130),
        definition=Definition(shared_run, axis="buffer_pkts", fixed={"size_pkts": BUFFER_FILE_PKTS}),
        panels=(FCT, RETX, SUM_CWND),
        claims=(
            "Above 70 packets TCP loses no packets (not checked: under the 65 535-byte window a TCP flow and the "
            "background TCP flow, each at most 47 packets in flight, cannot fill a buffer of 70 packets beyond the "
            "path's BDP, so no run could fail it).",
            "Above 70 packets the completion times of CSS and TCP reach their minimums (not checked: the paper "
            "gives no value of the minimum, and the claim language has no 'flat from here on').",
        ),
        checks=(
            *(
                Trend(
                    "Retransmissions and completion times fall as the buffer grows, for every scheme.",
                    metric,
                    variants=SCHEMES,
                    direction="falls",
                    mode="rank",
                    quote="With buffer size increasing, all schemes' retransmissions decrease, so their completion "
                    "time also decreases.",
                    where=f"Fig. 5({panel}), §IV-B",
                    derivation="'decrease' over the sweep 20–130, no tolerance stated: Spearman's ρ of the 10-run "
                    "means against the buffer negative, one-sided p < 0.05 (the paper plots means of 10 runs; "
                    "its words give the direction, not every step)",
                )
                for metric, panel in (("retransmissions", "b"), ("fct_s", "a"))
            ),
            Ratio(
                "Above 30 packets CSS cuts packet loss drastically.",
                "retransmissions",
                left="css",
                right="mptcp",
                high=0.5,
                x_min=31,
                x_max=115,
                quote="When buffer size exceeds 30 packets, CSS can drastically reduce packet loss, and "
                "continuously bring a goodput gain over MPTCP.",
                where="Fig. 5(b), §IV-B",
                headline=True,
                derivation="'drastically': a ratio ≤ 0.5; 'exceeds 30': x > 30, up to 115, above which the paper "
                "says MPTCP loses nothing in slow start",
            ),
            Compare(
                "Above 30 packets CSS retransmits significantly less than MPTCP.",
                "retransmissions",
                left="css",
                op="<",
                right="mptcp",
                criterion="significant",
                x_min=31,
                x_max=115,
                quote="When buffer size exceeds 30 packets, CSS can drastically reduce packet loss, and "
                "continuously bring a goodput gain over MPTCP.",
                where="Fig. 5(b), §IV-B",
                headline=True,
                derivation="'drastically': fewer at every buffer, the difference beyond 2 standard errors; "
                "30 < x ≤ 115 as above",
            ),
            Compare(
                "From 30 up to 115 packets CSS completes sooner than MPTCP.",
                "fct_s",
                left="css",
                op="<",
                right="mptcp",
                x_min=31,
                x_max=115,
                quote="When buffer size exceeds 30 packets, CSS can drastically reduce packet loss, and "
                "continuously bring a goodput gain over MPTCP.",
                where="Fig. 5(a), §IV-B",
                headline=True,
                derivation="'continuously bring a goodput gain': sooner at every buffer over 30 packets, up to "
                "115, above which the paper says CSS takes a little longer",
            ),
            *(
                Ratio(
                    "Above 115 packets CSS and TCP take a little longer than MPTCP and LISA.",
                    "fct_s",
                    left=slow,
                    right=fast,
                    low=1.0,
                    high=1.1,
                    x_min=116,
                    quote="Since CSS and TCP use *con_ssthresh* and *ssthresh*, respectively, to limit their total "
                    "*cwnd*, it takes a little longer to complete the transfer as shown in Fig. 5(a))",
                    where="Fig. 5(a), §IV-B",
                    derivation="'a little longer': 0–10 % longer, a ratio in [1, 1.1]; 'exceeds 115 packets': x > 115",
                )
                for slow in ("css", "tcp")
                for fast in ("mptcp", "lisa")
            ),
            Bound(
                "Above 70 packets CSS loses no packets.",
                "retransmissions",
                variants=("css",),
                op="<=",
                value=0,
                x_min=71,
                quote="However, when the buffer size exceeds 70 packets, CSS and TCP experience no packet loss,",
                where="Fig. 5(b), §IV-B",
                derivation="'no packet loss': none in any run (mean 0, no tolerance); 'exceeds 70': x > 70. CSS "
                "only: its two subflows may hold 2 × 47 packets, so it can overflow these buffers, where TCP "
                "cannot (see the unchecked claims)",
            ),
            Order(
                "Below 115 packets CSS's sum of cwnd at completion is greater than (or similar to) MPTCP's and LISA's.",
                "sum_cwnd_pkts",
                ranking=("css",),
                rest=("mptcp", "lisa"),
                higher_is_better=True,
                tie=0.10,
                x_max=114,
                quote="When the buffer size is less than 115 packets, the *Sum of cwnd* of CSS is greater than (or "
                "similar to) that of MPTCP and LISA",
                where="Fig. 5(c), §IV-B",
                headline=True,
                derivation="'greater than (or similar to)': greater, or within 10 % ('similar', tied); 'less "
                "than 115': x < 115. The paper's bulk-transfer claim, 'at least as well as original MPTCP', rests "
                "on this panel",
            ),
            *(
                Order(
                    "Above 115 packets MPTCP's and LISA's sum of cwnd exceeds CSS's and TCP's.",
                    "sum_cwnd_pkts",
                    ranking=(v,),
                    rest=("css", "tcp"),
                    higher_is_better=True,
                    x_min=116,
                    quote="When buffer size exceeds 115 packets, the *Sum of cwnd* of MPTCP and LISA outperforms "
                    "that of CSS and TCP.",
                    where="Fig. 5(c), §IV-B",
                    derivation="'outperforms': strictly greater; 'exceeds 115': x > 115",
                )
                for v in ("mptcp", "lisa")
            ),
            Band(
                "Above 115 packets MPTCP's and LISA's sum of cwnd reaches 2·ssthresh.",
                "sum_cwnd_pkts",
                variants=("mptcp", "lisa"),
                low=0.75 * 2 * SSTHRESH_PKTS,
                high=1.25 * 2 * SSTHRESH_PKTS,
                x_min=116,
                quote="The reason is that MPTCP and LISA experience no packet loss during Slow-Start, so their "
                "total *cwnd* reach the upper bound, i.e., $2 * ssthresh$.",
                where="Fig. 5(c), §IV-B",
                derivation=f"{EXACT}: 2 · 65535 B / 1400 B = 93.6 packets → [70.2, 117.0]",
            ),
            Band(
                "Above 115 packets CSS's and TCP's sum of cwnd is held to con_ssthresh and ssthresh.",
                "sum_cwnd_pkts",
                variants=("css", "tcp"),
                low=0.75 * SSTHRESH_PKTS,
                high=1.25 * SSTHRESH_PKTS,
                x_min=116,
                quote="Since CSS and TCP use *con_ssthresh* and *ssthresh*, respectively, to limit their total *cwnd*",
                where="Fig. 5(c), §IV-B",
                derivation=f"{EXACT}: 65535 B / 1400 B = 46.8 packets → [35.1, 58.5]",
            ),
            Ratio(
                "An MPTCP connection of two subflows uses twice TCP's resources in slow start.",
                "sum_cwnd_pkts",
                left="mptcp",
                right="tcp",
                low=2 / 1.5,
                high=2 * 1.5,
                x_min=116,
                quote="For example, an MPTCP connection with two subflows would use twice as many resources (e.g., "
                "bandwidth and buffer) as single-path TCP does during Slow-Start.",
                where="§I; Fig. 5(c), §IV-B",
                headline=True,
                derivation="'twice': a ratio in [2/1.5, 2·1.5] = [1.33, 3]; judged on the sum of cwnd where the "
                "paper says neither loses anything in slow start, so that each ends it at its bound (x > 115)",
            ),
        ),
    ),
    Experiment(
        name="css-longlived",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 4, §IV-B",
        description="Completion time of a 4000-packet TCP flow while 80 short transfers of each scheme come and go",
        x_name="buffer_pkts",
        x_label="Bottleneck buffer (packets)",
        # §IV-B: "bottleneck buffer size varying from 20 to 95 packets".
        x_values=tuple(range(20, 96, 5)),
        quick_x_values=(20, 45, 70, 95),
        definition=Definition(longlived_run, axis="buffer_pkts"),
        panels=(FCT,),
        checks=(
            *(
                Ratio(
                    "At 45 packets the long flow takes 265 % of its TCP-neighbour time when the short flows use "
                    "MPTCP or LISA.",
                    "fct_s",
                    left=v,
                    right="tcp",
                    low=0.75 * 2.65,
                    high=1.25 * 2.65,
                    x_min=45,
                    x_max=45,
                    quote="The completion time of the long-lived TCP flow when short flows use MPTCP and LISA is 265% "
                    "the time when short flows use TCP at buffer size of 45 packets, due to more retransmissions "
                    "they cause.",
                    where="Fig. 4, §IV-B",
                    headline=True,
                    derivation=f"{EXACT}: 265 % → [1.99, 3.31]",
                )
                for v in ("mptcp", "lisa")
            ),
            Order(
                "Beside MPTCP or LISA short flows the long TCP flow completes later than beside TCP short flows.",
                "fct_s",
                ranking=("tcp",),
                rest=("mptcp", "lisa"),
                quote="We observe that the MPTCP and LISA's Slow-Start are more aggressive than TCP's Slow-Start.",
                where="Fig. 4, §IV-B",
                headline=True,
                derivation="'more aggressive': the long flow strictly later beside MPTCP and LISA than beside TCP, "
                "at every buffer",
            ),
            Equivalent(
                "With CSS short flows the long flow fares about as with TCP short flows.",
                "fct_s",
                left="css",
                right="tcp",
                margin=0.10,
                quote="We can conclude that CSS shows similar aggressiveness with TCP.",
                where="Fig. 4, §IV-B",
                headline=True,
                derivation=f"{SIMILAR}, the long flow beside TCP short flows the reference, at every buffer",
            ),
            Compare(
                "The long TCP flow completes sooner beside CSS short flows than beside MPTCP ones.",
                "fct_s",
                left="css",
                op="<",
                right="mptcp",
                quote="CSS can bring a goodput gain of up to 40% for short flows while improving performance of "
                "concurrent TCP flows.",
                where="§I; Fig. 4, §IV-B",
                headline=True,
                derivation="'improving performance of concurrent TCP flows': the long flow strictly sooner beside "
                "CSS than beside MPTCP, at every buffer",
            ),
        ),
        quick_runs=2,
    ),
    Experiment(
        name="css-nonshared-buffer",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 6 (a, b, c), §IV-C",
        description="Two disjoint 5 Mbit/s bottlenecks, 400-packet file: completion, retransmissions, cwnd vs buffer",
        x_name="buffer_pkts",
        x_label="Bottleneck buffer (packets)",
        # §IV-C: "we vary the bottleneck buffer size from 20 to 70 packets".
        x_values=tuple(range(20, 71, 5)),
        quick_x_values=(20, 35, 50, 65, 70),
        definition=Definition(nonshared_run, axis="buffer_pkts", fixed={"size_pkts": BUFFER_FILE_PKTS}),
        panels=(FCT, RETX, SUM_CWND),
        claims=(
            "Above 65 packets MPTCP and LISA lose no packets in slow start (not checked: under the 65 535-byte "
            "window a subflow and its path's background TCP flow, each at most 47 packets in flight, cannot fill a "
            "buffer of 70 packets beyond the path's BDP, so no run could fail it).",
        ),
        checks=(
            Compare(
                "Below 65 packets CSS cuts packet loss significantly.",
                "retransmissions",
                left="css",
                op="<",
                right="mptcp",
                x_max=64,
                criterion="significant",
                quote="When the buffer size is less than 65 packets, CSS can significantly reduce packet loss and "
                "bring a goodput gain of up to 45% to MPTCP.",
                where="Fig. 6(b), §IV-C",
                headline=True,
                derivation="'significantly': fewer at every buffer, the difference beyond 2 standard errors; "
                "'less than 65': x < 65",
            ),
            Compare(
                "Below 65 packets CSS completes sooner than MPTCP.",
                "fct_s",
                left="css",
                op="<",
                right="mptcp",
                x_max=64,
                quote="When the buffer size is less than 65 packets, CSS can significantly reduce packet loss and "
                "bring a goodput gain of up to 45% to MPTCP.",
                where="Fig. 6(a), §IV-C",
                headline=True,
                derivation="'bring a goodput gain': strictly sooner at every buffer under 65 packets",
            ),
            BestCase(
                "Below 65 packets CSS brings MPTCP a goodput gain of up to 45 %.",
                "fct_s",
                better="css",
                worse="mptcp",
                gain="increase",
                low=0.5 * 0.45,
                high=1.5 * 0.45,
                x_max=64,
                quote="When the buffer size is less than 65 packets, CSS can significantly reduce packet loss and "
                "bring a goodput gain of up to 45% to MPTCP.",
                where="Fig. 6(a), §IV-C",
                headline=True,
                derivation=f"{UP_TO}: 45 % → [0.225, 0.675]; the goodput gain of one file is FCT(MPTCP)/FCT(CSS) − 1",
            ),
            BestCase(
                "CSS lowers short flows' latency by up to 45 % (the abstract's reading, judged on Fig. 6).",
                "fct_s",
                better="css",
                worse="mptcp",
                gain="reduction",
                low=0.5 * 0.45,
                high=1.5 * 0.45,
                quote="Our simulation shows that CSS can lower short flows' latency of up to 45%",
                where="Abstract; Fig. 6(a), §IV-C",
                headline=True,
                derivation=f"{UP_TO}: 45 % → [0.225, 0.675] of 1 − FCT(CSS)/FCT(MPTCP). Judged on Fig. 6, the only "
                "figure the paper gives a best-case percentage for (§IV-C's 45 %, there a goodput gain: latency "
                "−45 % would be a goodput gain of 82 %)",
            ),
            BestCase(
                "CSS brings short flows a goodput gain of up to 40 % (the contributions' reading, judged on Fig. 6).",
                "fct_s",
                better="css",
                worse="mptcp",
                gain="increase",
                low=0.5 * 0.40,
                high=1.5 * 0.40,
                quote="CSS can bring a goodput gain of up to 40% for short flows",
                where="§I; Fig. 6(a), §IV-C",
                headline=True,
                derivation=f"{UP_TO}: 40 % → [0.2, 0.6] of FCT(MPTCP)/FCT(CSS) − 1. Judged on Fig. 6, the figure "
                "of the paper's only best-case percentage (45 % in §IV-C)",
            ),
            *(
                Compare(
                    "Above 65 packets MPTCP and LISA complete sooner than CSS.",
                    "fct_s",
                    left=v,
                    op="<",
                    right="css",
                    x_min=66,
                    quote="When buffer size exceeds 65 packets, MPTCP and LISA outperform CSS in completion time.",
                    where="Fig. 6(a), §IV-C",
                    derivation="'outperform': strictly sooner; 'exceeds 65': x > 65",
                )
                for v in ("mptcp", "lisa")
            ),
            *(
                Equivalent(
                    "Below 65 packets CSS's sum of cwnd at completion is similar to MPTCP's and LISA's.",
                    "sum_cwnd_pkts",
                    left="css",
                    right=v,
                    margin=0.10,
                    x_max=64,
                    quote="When the buffer size is less than 65 packets, the $Sum\\ of\\ cwnd$ of CSS is similar to "
                    "that of MPTCP and LISA.",
                    where="Fig. 6(c), §IV-C",
                    headline=True,
                    derivation=f"{SIMILAR}, {v.upper()} the reference; 'less than 65': x < 65. The paper's "
                    "bulk-transfer claim rests on this panel in the non-shared scenario",
                )
                for v in ("mptcp", "lisa")
            ),
        ),
    ),
    Experiment(
        name="css-nonshared-filesize",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 7 (a, b), §IV-C",
        description="Two disjoint bottlenecks, buffer 47 packets: completion time and retransmissions vs file size",
        x_name="file_size_pkts",
        x_label=f"File size (packets of {MSS} B)",
        x_values=FILE_SIZES,
        quick_x_values=QUICK_FILE_SIZES,
        definition=Definition(nonshared_run, axis="size_pkts", fixed={"buffer_pkts": BUFFER_PKTS}),
        panels=(FCT, RETX),
        checks=(
            Difference(
                "CSS completes about 1.2 s sooner than MPTCP on average.",
                "fct_s",
                left="css",
                right="mptcp",
                low=0.6,
                high=1.8,
                quote="We observe that CSS reduces the completion time by about 1.2s on average as compared with "
                "MPTCP.",
                where="Fig. 7(a), §IV-C",
                headline=True,
                derivation=f"{ABOUT}: 1.2 s on average over the file sizes → [0.6, 1.8] s",
            ),
            Ratio(
                "CSS cuts packet loss by 50-67 % for files above 100 packets.",
                "retransmissions",
                left="css",
                right="mptcp",
                low=0.28,
                high=0.55,
                x_min=101,
                quote="As shown in Fig. 7(b), CSS reduces the packet loss by 50%-67% when the file size exceeds 100 "
                "packets.",
                where="Fig. 7(b), §IV-C",
                headline=True,
                derivation="'by 50%-67%', a stated range widened by 5 points each side: a cut of 45–72 %, a ratio "
                "in [0.28, 0.55]; 'exceeds 100 packets': x > 100",
            ),
        ),
    ),
]
