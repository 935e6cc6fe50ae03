"""Reproductions of the CSS paper (Wang et al., "Coupled Slow-Start", GLOBECOM 2017), §IV, Figs. 3–7.

The paper's ns-3 setting (§IV-A): 1400-byte packets, IW 10, ssthresh and con_ssthresh 65535 **bytes**
(about 47 packets, so that con_ssthresh/baseRTT matches the 5 Mbit/s bottleneck at 100 ms), LIA in
congestion avoidance, a long-lived TCP flow and a 500 kbit/s UDP flow as background, 10 runs per point.
The short transfer starts at a random time in [2 s, 5 s]; that draw is what differs between runs.
The readings this module had to choose are listed in docs/reproduction.md.
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
from mpsim.experiments.claims import Bound, Compare, Difference, Order, Ratio, Trend
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
FALL = "Retransmissions and completion times fall as the buffer grows, for every scheme."
CUTS = "Above 30 packets CSS cuts packet loss drastically and completes sooner than MPTCP."

EXPERIMENTS = [
    Experiment(
        name="css-sequence",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 1, §I",
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
                high=1.0,
            ),
            Compare(
                "TCP retransmits 12 packets in total; MPTCP's subflows 15 and 13, after subflow 2 joins and the "
                "two subflows' bursts overrun the shared buffer.",
                "retransmissions",
                left="mptcp",
                op=">",
                right="tcp",
            ),
        ),
        trace_x=(200,),
        trace_kind="sequence",
        notes=("Fig. 1 is one run of the paper's; the figure draws run 1, the checks take the means of 10.",),
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
        checks=(
            Order(
                "TCP completes sooner than MPTCP and LISA for files under 400 packets.",
                "fct_s",
                ranking=("tcp",),
                rest=("mptcp", "lisa"),
                x_max=399,
            ),
            Ratio(
                "CSS cuts MPTCP's retransmissions by about half.",
                "retransmissions",
                left="css",
                right="mptcp",
                low=0.3,
                high=0.7,
                x_min=100,
            ),
            Difference(
                "CSS completes about 0.5 s sooner than MPTCP on average (up to 1.5 s).",
                "fct_s",
                left="css",
                right="mptcp",
                low=0.25,
                high=1.0,
            ),
            Compare(
                "LISA and MPTCP give nearly the same results.",
                "fct_s",
                left="lisa",
                op="≈",
                right="mptcp",
                tolerance=0.1,
                x_min=100,
                criterion="significant",
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
        checks=(
            Trend(FALL, "retransmissions", variants=SCHEMES),
            Trend(FALL, "fct_s", variants=SCHEMES),
            Ratio(CUTS, "retransmissions", left="css", right="mptcp", high=0.5, x_min=35),
            Compare(CUTS, "fct_s", left="css", op="<", right="mptcp", x_min=35),
            Bound(
                "Above 70 packets CSS and TCP lose no packets.",
                "retransmissions",
                variants=("css", "tcp"),
                value=0,
                tolerance=0.5,
                x_min=75,
            ),
            Order(
                "Above 115 packets MPTCP's and LISA's sum of cwnd exceeds CSS's (about 2·ssthresh against ssthresh).",
                "sum_cwnd_pkts",
                ranking=("css",),
                rest=("mptcp", "lisa"),
                x_min=120,
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
                    low=2.0,
                    high=3.3,
                    x_min=45,
                    x_max=45,
                )
                for v in ("mptcp", "lisa")
            ),
            Compare(
                "With CSS short flows the long flow fares about as with TCP short flows.",
                "fct_s",
                left="css",
                op="≈",
                right="tcp",
                tolerance=0.15,
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
        checks=(
            Compare(
                "Below 65 packets CSS cuts packet loss significantly, with up to 45 % goodput gain over MPTCP.",
                "retransmissions",
                left="css",
                op="<",
                right="mptcp",
                x_max=64,
                criterion="significant",
            ),
            *(
                Compare(
                    "Above 65 packets MPTCP and LISA complete sooner than CSS.",
                    "fct_s",
                    left=v,
                    op="<",
                    right="css",
                    x_min=66,
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
            ),
            Ratio(
                "CSS cuts packet loss by 50-67 % for files above 100 packets.",
                "retransmissions",
                left="css",
                right="mptcp",
                low=0.25,
                high=0.6,
                x_min=101,
            ),
        ),
    ),
]
