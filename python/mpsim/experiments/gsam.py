"""Reproductions of the GSAM paper (Dong et al., "Tuning the Aggressive Slow-Start Behavior of MPTCP for
Short Flows", IEEE Access 2019): the ns-3 motivation of §II (Figs. 2, 9) and the Linux testbed of §V
(Figs. 12, 17, 21, 22, 25, 27, 29).

Two settings, as in the paper:

- **ns-3 (§II, Fig. 1)**: a server sends two concurrent 55 KB transfers to a client over N subflows that
  share one 5 Mbit/s bottleneck of 150 ms RTT and a 50-packet drop-tail buffer; IW 1 (Fig. 8), 536-byte
  segments (the authors' ns-3 code), no delayed ACK, no SACK.
- **Linux testbed (§V-A, Fig. 11)**: two-interface server S2, client C2, a WANem bottleneck of
  5 Mbit/s (100 Mbit/s per path in the non-shared case), 40 ms RTT and 0.01 % random loss both ways;
  NCF concurrent transfers of one size, IW 10, 1400-byte segments, SACK.

Every scenario runs all five variants; which panel shows which figure, and every reading this module had
to choose (K, joins, CSS's parameters, the UDP streams), are in docs/reproduction.md.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from mpsim.engine import Results
from mpsim.experiments.base import (
    FCT,
    KB,
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
    experiment_metrics,
    flows_of,
    ns,
    run_random,
    scenario_of,
    transfer,
)
from mpsim.experiments.claims import Bound, Claim, Compare, Order, Ratio, Trend
from mpsim.experiments.lisa import JOIN_RTTS
from mpsim.experiments.stacks import (
    IP_TCP_HEADER_BYTES,
    LINUX_3_14_LIA,
    LISA_CREDIT_ONLY,
    PPP_FRAMING_BYTES,
    gsam,
    gsam_k_ns,
    gsam_on_path,
    legacy_ns3,
    linux_3_14,
)
from mpsim.scenario import Flow, Scenario, SlowStart, TcpOptions
from mpsim.topologies import Address, Bernoulli, Codel, Link, Network, Queue

PAPER = "GSAM: Dong et al., Tuning the Aggressive Slow-Start Behavior of MPTCP for Short Flows, IEEE Access 2019"
RUN_LIMIT_NS = 120 * S
"""Cap of every run: a run ends when its measured and competing flows have completed."""
START_SPREAD_S = 0.010
"""Each transfer starts at U[0, 10 ms]: the host timing noise between transfers started "together"."""

FCT_LOG = Panel("fct_s", "Completion time (s)", log_y=True)
RTO = Panel("rto_count", "Retransmission timeouts per connection")
R_SS = Panel("r_ss", "Retransmissions up to the last slow-start exit (packets)")
"""Fig. 15: a connection's retransmissions until the last of its subflows has left slow start."""
COMPETING_FCT = Panel("competing_fct_s", "Completion time of the regular TCP flows (s)")
RTO_SUBFLOWS = Panel("rto_subflows", "Subflows that timed out, per connection")
FIRST_RTO = Panel("first_rto_s", "First timeout since the first SYN (s)")


def _starts(experiment: str, run: int, salt: str, n: int) -> list[int]:
    """Start times of ``n`` transfers started together, U[0, 10 ms] each. Flow i's start depends on the
    run only, so it is the same for every variant and every x (also every NCF ≥ i + 1)."""
    rng = run_random(experiment, run, salt)
    return [int(rng.uniform(0.0, START_SPREAD_S) * S) for _ in range(n)]


# ============================================================================ ns-3 part (§II, Figs. 1–9)

NS3_BASE_RTT_NS = 150 * MS
"""§II, Fig. 2: "a common bottleneck of 5Mbps with the RTT of 150ms"."""
NS3_BOTTLENECK_BPS = 5_000_000
"""§II, Fig. 2: "a common bottleneck of 5Mbps"."""
NS3_ACCESS_BPS = 100_000_000
"""Not given (Fig. 1): the access links 100 Mbit/s, never the constraint."""
NS3_ACCESS_DELAY_NS = 1 * MS
"""Not given: 1 ms one way on each access link."""
NS3_BOTTLENECK_DELAY_NS = NS3_BASE_RTT_NS // 2 - 2 * NS3_ACCESS_DELAY_NS
"""73 ms: the base RTT is 2·(1 + 73 + 1) ms."""
NS3_BUFFER_PKTS = 50
"""§II, Fig. 1: "the router buffer size is 50 packets"."""
NS3_MSS = 536
"""Not in the paper: ns-3's default segment size, which the authors' ns-3 code keeps (docs/reproduction.md)."""
NS3_WIRE_BYTES = NS3_MSS + IP_TCP_HEADER_BYTES + PPP_FRAMING_BYTES
"""536-byte payload, IP + TCP headers without options, ns-3's PPP framing (the `ns3` profile)."""
NS3_FILE_BYTES = 55 * KB
"""§II, Fig. 1: "two concurrent flows with the size of 55KB"."""
NS3_IW = 1
"""The old ns-3 MPTCP model's initial window, in segments (Fig. 8), for every experiment but Fig. 9's sweep."""


def ns3_k_ns(buffer_pkts: int) -> int:
    """GSAM's K in the ns-3 setting with a ``buffer_pkts`` bottleneck buffer: 98.1 ms < D at 50 packets, so
    GSAM smooths from the first ACK. D is the authors' RTT_min, initialised to the path's configured 0.15 s
    and only lowered by samples, which never fall below it (each includes serialisation)."""
    return gsam_k_ns(buffer_pkts, NS3_WIRE_BYTES, NS3_BOTTLENECK_BPS, NS3_BASE_RTT_NS)


def ns3_tcp(iw: int) -> TcpOptions:
    """The legacy ns-3 MPTCP model (Fig. 8 shows its subflow constructor) with the authors' 536-byte segments
    and IW ``iw`` (1 in Fig. 2, Fig. 8)."""
    return legacy_ns3(NS3_MSS, iw)


def ns3_topology(buffer_pkts: int = NS3_BUFFER_PKTS) -> Network:
    """Fig. 1: server S → R1 → (5 Mbit/s, 73 ms, 50 packets) → R2 → client C; access links 100 Mbit/s,
    1 ms, so the base RTT is 2·(1 + 73 + 1) = 150 ms. All N subflows (ndiffports) take this one path."""
    return Network(
        hosts=["S", "C"],
        routers=["R1", "R2"],
        links=[
            duplex("S", "R1", NS3_ACCESS_BPS, NS3_ACCESS_DELAY_NS),
            duplex("R1", "R2", NS3_BOTTLENECK_BPS, NS3_BOTTLENECK_DELAY_NS, drop_tail(buffer_pkts)),
            duplex("R2", "C", NS3_ACCESS_BPS, NS3_ACCESS_DELAY_NS),
        ],
    )


def _ns3_run(
    experiment: str,
    variant: str,
    run: int,
    subflows: int,
    iw: int,
    file_bytes: int = NS3_FILE_BYTES,
    buffer_pkts: int = NS3_BUFFER_PKTS,
    traced: bool = False,
) -> Scenario:
    """Two concurrent transfers of ``variant`` (55 KB each unless ``file_bytes`` says otherwise) from S to
    C, each over ``subflows`` subflows, through a ``buffer_pkts`` bottleneck buffer (50 unless said);
    with ``traced`` every subflow's window and timeouts are recorded."""
    tcp = ns3_tcp(iw)
    # LISA in ns-3: credit bounds (min(3, IW), IW): with IW 1 each new subflow takes one
    # packet from a donor of at least 2 and otherwise starts alone with 1, the paper's §II account.
    lisa = SlowStart(type="lisa", **LISA_CREDIT_ONLY.params, max_credit_segments=iw, min_credit_segments=min(3, iw))
    flows = [
        transfer(
            variant,
            f"measured{i}",
            ["S"],
            ["C"],
            file_bytes,
            start,
            tcp,
            # The joins leave as soon as subflow 0 is established, one RTT after its SYN.
            join_delay_ns=0,
            gsam=gsam(ns3_k_ns(buffer_pkts)),
            lisa=lisa,
            subflows=subflows,
            trace=traced,
        )
        for i, start in enumerate(_starts(experiment, run, "transfers", 2))
    ]
    return _finish(ns3_topology(buffer_pkts), run, flows)


def rto_row(results: Results, config: Mapping[str, Any]) -> dict[str, Any]:
    """The row of one run of Fig. 7: :func:`experiment_metrics`, and from the ``rto_times`` table the
    number of subflows of a measured transfer that timed out at least once (``rto_subflows``) and the time
    of its first timeout since its first SYN (``first_rto_s``; NaN when none did), means over the measured
    transfers."""
    starts = {f["name"]: f["start_ns"] for f in flows_of(config) if f["name"].startswith("measured")}
    timed_out: dict[str, set[int]] = {name: set() for name in starts}
    first: dict[str, float] = {}
    for r in results.rto_times.to_pylist():
        if r["flow"] in starts:
            timed_out[r["flow"]].add(r["subflow"])
            t = (r["time_ns"] - starts[r["flow"]]) / 1e9
            first[r["flow"]] = min(first.get(r["flow"], t), t)
    return {
        **experiment_metrics(results.raw, config),
        "rto_subflows": statistics.fmean(len(s) for s in timed_out.values()),
        "first_rto_s": statistics.fmean(first.values()) if first else math.nan,
    }


NS3_LARGE_FILE_BYTES = 3 * NS3_FILE_BYTES
"""165 KB: the two transfers' 618 segments exceed the pipe (162 segments) plus the buffer (50), which the
55 KB transfers of Fig. 2 do not (206 segments)."""


NS3_SMALL_BUFFER_PKTS = 20
"""A small buffer for Fig. 2's setting: 20 packets, where two 55 KB transfers (206 segments) exceed the
pipe (162 segments) plus the buffer, as the paper's account of Fig. 2 (52 + 50 packets) has them do."""
NS3_MANY_SUBFLOWS = 8


# ============================================================================ Linux testbed (§V, Fig. 11)

BOTTLENECK_BPS = 5_000_000
"""§V-B-1, Fig. 12: "the bottleneck bandwidth is 5Mbps"."""
NONSHARED_BOTTLENECK_BPS = 100_000_000
"""§V-B-3: "the bandwidth is 100Mbps" on each path of Fig. 11c."""
BASE_RTT_NS = 40 * MS
"""§V-B-1, Fig. 12: "the RTT is 40ms" (every path of the testbed)."""
ACCESS_BPS = 1_000_000_000
"""§V-A: "two Gigabit network interface cards"."""
ACCESS_DELAY_NS = 1 * MS
"""Not given: 1 ms one way on every link but the bottleneck."""
BOTTLENECK_DELAY_NS = BASE_RTT_NS // 2 - 2 * ACCESS_DELAY_NS
"""18 ms: the base RTT is 2·(1 + 18 + 1) ms."""
LOSS_RATE = 1e-4
"""§V-B-1, Fig. 12: "the loss rate is 0.01%"."""
LOSS = Bernoulli(type="bernoulli", p=LOSS_RATE)
"""WANem's random loss, on both directions of the bottleneck (§V-A: "a two-way bottleneck link")."""
MSS = 1400
"""Not stated: §V-B-3's "bandwidth delay product is about 360 packets" (100 Mbit/s × 40 ms) counts packets of
about 1400 B."""
WIRE_BYTES = MSS + IP_TCP_HEADER_BYTES
"""A full segment on the wire, without timestamps."""
ACK_WIRE_BYTES = IP_TCP_HEADER_BYTES
"""An ACK on the wire, without timestamps."""
JOIN_DELAY_NS = (JOIN_RTTS - 1) * BASE_RTT_NS
"""The second subflow's SYN leaves 3 RTTs after the first's (as LISA §III measured on Linux):
one RTT of handshake, then this delay."""

TCP = linux_3_14(MSS)
"""Linux 3.14 with MPTCP v0.89, the testbed's kernel, with the paper's 1400-byte segments: 1440 bytes on the
wire without timestamps, as the paper's arithmetic (360 packets = 100 Mbit/s × 40 ms) assumes."""

DEFAULT_BUFFER_PKTS = 20
"""Figs. 15–21: "the router buffer size is 20 packets" wherever another setting varies."""
DEFAULT_FILE_KB = 80
"""Figs. 19–21: "the flow size is 80KB"."""
DEFAULT_NCF = 5
"""Figs. 15, 18, 21: "the number of concurrent flows is 5"."""


def _interfaces(routers: tuple[str, str]) -> list[Link]:
    """S2's two interfaces ``S2a`` and ``S2b`` (eth0, eth1), to the first and to the second router."""
    return [duplex(f"S2{nic}", r, ACCESS_BPS, ACCESS_DELAY_NS, node="S2") for nic, r in zip("ab", routers, strict=True)]


def _server(links: list[Link]) -> list[Address]:
    return [address(f"S2.eth{i}", link) for i, link in enumerate(links)]


def shared(bottleneck_queue: Queue, competing: bool = False, loss: Bernoulli = LOSS) -> Network:
    """Fig. 11a: S2.eth0 and S2.eth1 → R1 → (5 Mbit/s, 18 ms, queue, loss) → R2 → C2; with ``competing``
    Fig. 11b, which adds S1 → R1 and R2 → C1 for the regular TCP (or UDP) traffic. Access links 1 Gbit/s,
    1 ms, so the base RTT is 2·(1 + 18 + 1) = 40 ms on either interface."""
    eth = _interfaces(("R1", "R1"))
    links = [
        *eth,
        duplex("R1", "R2", BOTTLENECK_BPS, BOTTLENECK_DELAY_NS, bottleneck_queue, loss=loss),
        duplex("R2", "C2", ACCESS_BPS, ACCESS_DELAY_NS),
    ]
    hosts = ["S2", "C2"]
    if competing:
        links += [duplex("S1", "R1", ACCESS_BPS, ACCESS_DELAY_NS), duplex("R2", "C1", ACCESS_BPS, ACCESS_DELAY_NS)]
        hosts += ["S1", "C1"]
    return Network(hosts=hosts, routers=["R1", "R2"], links=links, addresses=_server(eth))


def nonshared(buffer_pkts: int) -> Network:
    """Fig. 11c: two disjoint paths S2.eth_i → R_i → (100 Mbit/s, 18 ms, B packets, loss) → SW → C2.
    Access links (S2–R_i, and SW–C2, C2's one NIC) 1 Gbit/s, 1 ms: base RTT 40 ms per path, BDP
    100 Mbit/s × 40 ms = 357 segments of 1400 B. The SW–C2 link carries both paths but at 1 Gbit/s
    never queues (2 × 100 Mbit/s)."""
    eth = _interfaces(("R1", "R2"))
    bottlenecks = [
        duplex(r, "SW", NONSHARED_BOTTLENECK_BPS, BOTTLENECK_DELAY_NS, drop_tail(buffer_pkts), loss=LOSS)
        for r in ("R1", "R2")
    ]
    links = [*eth, *bottlenecks, duplex("SW", "C2", ACCESS_BPS, ACCESS_DELAY_NS)]
    return Network(hosts=["S2", "C2"], routers=["R1", "R2", "SW"], links=links, addresses=_server(eth))


def _data_route(net: Network) -> list[str]:
    """The names of the links of the first subflow's path from S2 to C2, in order."""
    names = {link.forward_name for link in net.links}
    return ["S2a-R1", "R1-SW", "SW-C2"] if "R1-SW" in names else ["S2a-R1", "R1-R2", "R2-C2"]


def data_path(net: Network) -> list[Link]:
    """The links of the first subflow's path from S2 to C2, in order (for D, and for the tests)."""
    by_name = {link.forward_name: link for link in net.links}
    return [by_name[n] for n in _data_route(net)]


def _gsam(net: Network, buffer_pkts: int, rate_bps: int) -> SlowStart:
    """GSAM for the subflows of ``net``: K from the subflow's bottleneck (B, C) and its min RTT D (equal on
    every path of these topologies)."""
    return gsam_on_path(net.links, _data_route(net), buffer_pkts, rate_bps, WIRE_BYTES, ACK_WIRE_BYTES)


def _multipath(experiment: str, variant: str, run: int, ncf: int, size_bytes: int, threshold: SlowStart) -> list[Flow]:
    """NCF transfers ``measured0…`` of ``variant`` from S2 (both interfaces) to C2, started together."""
    return [
        transfer(
            variant,
            f"measured{i}",
            ["S2.eth0", "S2.eth1"],
            ["C2"],
            size_bytes,
            start,
            TCP,
            JOIN_DELAY_NS,
            gsam=threshold,
            lisa=LISA_CREDIT_ONLY,
            coupled=LINUX_3_14_LIA,
        )
        for i, start in enumerate(_starts(experiment, run, "multipath", ncf))
    ]


def _competing_tcp(experiment: str, run: int, ncf: int, size_bytes: int) -> list[Flow]:
    """NCF regular TCP (Reno, SACK) transfers ``competing0…`` from S1 to C1, started with the multipath ones."""
    return [
        transfer("tcp", f"competing{i}", ["S1"], ["C1"], size_bytes, start, TCP)
        for i, start in enumerate(_starts(experiment, run, "competing", ncf))
    ]


def _finish(net: Network, run: int, flows: Sequence[Flow]) -> Scenario:
    """The run of ``flows`` over ``net``: it ends when its TCP and MPTCP flows have completed."""
    names = [f.name for f in flows if f.type != "udp"]
    return scenario_of(net, seed=run, duration_ns=RUN_LIMIT_NS, flows=flows, stop_when_complete=names)


def _shared_run(
    experiment: str,
    variant: str,
    run: int,
    buffer_pkts: int = DEFAULT_BUFFER_PKTS,
    file_kb: int = DEFAULT_FILE_KB,
    ncf: int = DEFAULT_NCF,
    competing: bool = False,
) -> Scenario:
    net = shared(drop_tail(buffer_pkts), competing)
    flows = _multipath(experiment, variant, run, ncf, file_kb * KB, _gsam(net, buffer_pkts, BOTTLENECK_BPS))
    if competing:
        flows += _competing_tcp(experiment, run, ncf, file_kb * KB)
    return _finish(net, run, flows)


UDP_STREAMS = 5
"""Fig. 24: iperf's ``-P 5``, "5 parallel streams"."""
UDP_RATE_BPS = 5_000_000
"""Fig. 24: iperf's ``-b 5M``, per stream."""
UDP_PAYLOAD_BYTES = 1470
"""Fig. 24: "Sending 1470 byte datagrams"."""
UDP_WIRE_BYTES = UDP_PAYLOAD_BYTES + 8 + 20
"""A datagram on the wire: its UDP (8 B) and IP (20 B) headers."""
UDP_FILE_BYTES = 80 * KB
"""Fig. 24: iperf's ``-F /var/www/80k``, the 80 KB file each stream sends."""


def udp_stream_stop_ns(start_ns: int) -> int:
    """`iperf -u -b 5M -F 80k`: a stream sends the 80 KB file in 1470-byte datagrams at 5 Mbit/s and
    stops: ⌈80000/1470⌉ = 55 datagrams, one every 1498·8/5e6 s, the first at the start."""
    datagrams = -(-UDP_FILE_BYTES // UDP_PAYLOAD_BYTES)
    gap_ns = UDP_WIRE_BYTES * 8 * S // UDP_RATE_BPS
    return start_ns + (datagrams - 1) * gap_ns + 1


def _udp_run(experiment: str, variant: str, run: int, buffer_pkts: int) -> Scenario:
    """Fig. 25: five 80 KB multipath transfers S2 → C2 and five UDP streams S1 → C1 (iperf2 ``-P 5``:
    ``-b 5M`` per stream), all started together through the shared bottleneck of B packets."""
    net = shared(drop_tail(buffer_pkts), competing=True)
    threshold = _gsam(net, buffer_pkts, BOTTLENECK_BPS)
    flows = _multipath(experiment, variant, run, DEFAULT_NCF, DEFAULT_FILE_KB * KB, threshold)
    flows += [
        cbr(f"udp{i}", "S1", "C1", UDP_RATE_BPS, UDP_WIRE_BYTES, start, udp_stream_stop_ns(start))
        for i, start in enumerate(_starts(experiment, run, "udp", UDP_STREAMS))
    ]
    return _finish(net, run, flows)


NONSHARED_BUFFER_PKTS = 200
"""Figs. 22(b, c), 23: "the router buffer size is 200 packets"."""
NONSHARED_FILE_KB = 100
"""Figs. 22(a, c), 23: "the flow size is 100KB"."""
NONSHARED_NCF = 30
"""Figs. 22(a, b), 23: "there are 30 concurrent flows"."""


def _nonshared_run(
    experiment: str,
    variant: str,
    run: int,
    buffer_pkts: int = NONSHARED_BUFFER_PKTS,
    file_kb: int = NONSHARED_FILE_KB,
    ncf: int = NONSHARED_NCF,
) -> Scenario:
    net = nonshared(buffer_pkts)
    threshold = _gsam(net, buffer_pkts, NONSHARED_BOTTLENECK_BPS)
    return _finish(net, run, _multipath(experiment, variant, run, ncf, file_kb * KB, threshold))


LOSS_NCF = 20
"""Fig. 16: "20 concurrent flows"."""
LOSS_FILE_KB = 300
"""Fig. 16: "with the size of 300KB"."""


def _loss_run(experiment: str, variant: str, run: int, loss_pct: float) -> Scenario:
    """Fig. 16: 20 transfers of 300 KB through the shared bottleneck (Fig. 11a), buffer 20 packets, with
    WANem's random loss at ``loss_pct`` per cent both ways."""
    net = shared(drop_tail(DEFAULT_BUFFER_PKTS), loss=Bernoulli(type="bernoulli", p=loss_pct / 100))
    threshold = _gsam(net, DEFAULT_BUFFER_PKTS, BOTTLENECK_BPS)
    return _finish(net, run, _multipath(experiment, variant, run, LOSS_NCF, LOSS_FILE_KB * KB, threshold))


CODEL_NCF = 20
"""Figs. 27, 29: "the number of concurrent flows is 20"."""
CODEL_FILE_KB = 300
"""Figs. 27, 29: "the flow size is 300KB"."""
CODEL_TARGET_NS = 5 * MS
"""RFC 8289's target; the paper varies only the interval and the limit."""


def codel(limit_pkts: int, interval_ns: int) -> Codel:
    """RFC 8289 CoDel: target 5 ms, the given interval, ``limit_pkts`` as the hard tail-drop limit."""
    return Codel(type="codel", target=ns(CODEL_TARGET_NS), interval=ns(interval_ns), limit=f"{limit_pkts}pkt")


def _codel_run(experiment: str, variant: str, run: int, limit_pkts: int, interval_ms: int) -> Scenario:
    """Figs. 27, 29: 20 transfers of 300 KB through the shared bottleneck (Fig. 11a) queued by CoDel;
    GSAM's B is the CoDel limit (the paper's "router buffer size (limit)")."""
    net = shared(codel(limit_pkts, interval_ms * MS))
    threshold = _gsam(net, limit_pkts, BOTTLENECK_BPS)
    return _finish(net, run, _multipath(experiment, variant, run, CODEL_NCF, CODEL_FILE_KB * KB, threshold))


# ============================================================================ the catalogue

BUFFERS = (5, 10, 15, 20, 25, 35, 50, 75, 100)
"""§V-B: "The router buffer size also varies from 5 packets to 100 packets"."""
QUICK_BUFFERS = (5, 10, 20, 35, 100)
FILE_SIZES_KB = (50, 80, 100, 200, 300, 400, 500, 600, 800, 1000)
"""§V-B: "the binary documents range from 50KB to 1MB"."""
QUICK_FILE_SIZES_KB = (50, 80, 300, 1000)
NCFS = tuple(range(1, 16))
"""§V-B: "the number of concurrent MPTCP flows ranges from 1 to 15"."""
QUICK_NCFS = (1, 5, 10, 15)

SHARED_NOTE = "Shared bottleneck (Fig. 11a): 5 Mbit/s, RTT 40 ms, loss 0.01 % both ways; two subflows."
COMPETING_NOTE = (
    "Competing bottleneck (Fig. 11b): NCF multipath transfers S2→C2 and NCF regular TCP transfers S1→C1 of the "
    "same size, all started together; `competing_fct_s` is the regular TCP flows' mean (Fig. 21)."
)
NONSHARED_NOTE = "Non-shared bottlenecks (Fig. 11c): two disjoint 100 Mbit/s paths, RTT 40 ms, loss 0.01 % both ways."


SCHEMES = ("tcp", "mptcp", "lisa", "gsam")
"""The schemes the paper compares."""
BUFFER_CLAIM = (
    "With 8 subflows GSAM completes sooner than MPTCP while the buffer is small enough for the two "
    "transfers to overflow it (pipe 162 segments); with room for both (50 packets) MPTCP is sooner."
)
GSAM_THEN_TCP = "Completion time falls as the buffer grows; GSAM is best, then TCP."
LISA_BEATS = "LISA beats MPTCP for buffers up to 35 packets; above 35 MPTCP is slightly better than LISA."
RETX_CLAIM = "MPTCP retransmits most at small buffers; every scheme's retransmissions fall to 0 as the buffer grows."
FILESIZE_CLAIM = "Completion time grows with the file size, with the same order as against the buffer (GSAM best)."
FLOWS_CLAIM = "Completion time grows with the number of concurrent flows, with the same order (GSAM best)."
COMPETING_CLAIM = "Up to 20 packets GSAM is best, then LISA; with larger buffers LISA is slightly worse than MPTCP."
LOSS_CLAIM = (
    "The completion time of each algorithm increases with the loss rate, and GSAM outperforms the existing "
    "algorithms, followed by LISA and MPTCP."
)
LISA_UNCREDITED = (
    "With 6 subflows LISA behaves as MPTCP: subflows 1 and 2 take one packet each from subflow 0, subflows 3, "
    "4 and 5 get no credit and grow independently, causing RTOs (Fig. 7)."
)
CODEL_CLAIM = "Completion time falls as the interval grows; GSAM is best, then LISA."


def lisa_slightly_slower(text: str, x_min: float) -> Claim:
    """ "LISA is slightly worse than MPTCP" from ``x_min`` on: its completion time 0–10 % above MPTCP's."""
    return Ratio(text, "fct_s", left="lisa", right="mptcp", low=1.0, high=1.1, x_min=x_min)


def _nonshared_checks(trend: str, direction: str) -> tuple[Claim, ...]:
    """Fig. 22's two claims, against any of its x: the trend, and the order MPTCP, GSAM, LISA, TCP."""
    return (
        Trend(trend, "fct_s", variants=SCHEMES, direction="falls" if direction == "falls" else "grows"),
        Order(
            "TCP is worst, MPTCP best; GSAM is a little slower than MPTCP and LISA slower than GSAM.",
            "fct_s",
            ranking=("mptcp", "gsam", "lisa", "tcp"),
        ),
    )


def _fig2_changed(name: str, change: str, setting: str, fixed: Mapping[str, Any], claim: str) -> Experiment:
    """GSAM sooner than MPTCP and LISA at 6 and 8 subflows is the claim of each."""
    """Fig. 2's layout (completion time against 2–8 subflows) with one setting changed: not a paper figure."""
    return Experiment(
        name=name,
        paper=PAPER,
        stack="legacy_ns3",
        figure=f"Fig. 2 setting with {change} (not a paper figure), §II",
        description=f"Fig. 2's ns-3 setting with {setting}: completion time vs number of subflows",
        x_name="subflows",
        x_label="Number of subflows",
        x_values=(2, 4, 6, 8),
        quick_x_values=(2, 8),
        definition=Definition(_ns3_run, axis="subflows", fixed={"iw": NS3_IW, **fixed}),
        panels=(FCT_LOG, RTO, RETX),
        checks=(Order(claim, "fct_s", ranking=("gsam",), rest=("mptcp", "lisa"), x_min=6),),
    )


EXPERIMENTS = [
    Experiment(
        name="gsam-subflows",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 2 (Fig. 7: RTOs; Figs. 3, 5, 6: traces at 6 and 4 subflows), §II",
        description="ns-3 setting: two concurrent 55 KB transfers over N subflows of one 5 Mbit/s, 150 ms, "
        "50-packet bottleneck: completion time vs number of subflows",
        x_name="subflows",
        x_label="Number of subflows",
        x_values=(2, 4, 6, 8),
        quick_x_values=(2, 4, 8),
        trace_x=(4, 6),
        definition=Definition(_ns3_run, axis="subflows", fixed={"iw": NS3_IW}),
        panels=(FCT_LOG, RTO, RETX),
        checks=(
            Order(
                "With 2 and 4 subflows MPTCP, LISA and GSAM complete sooner than TCP, MPTCP soonest "
                "(except LISA at 4 subflows, slower than TCP).",
                "fct_s",
                ranking=("mptcp", "gsam", "tcp"),
                x_max=4,
            ),
            *(
                Order(
                    "With 6 and 8 subflows MPTCP and LISA take sharply longer than TCP and GSAM, through frequent "
                    "RTOs.",
                    "fct_s",
                    ranking=(v,),
                    rest=("mptcp", "lisa"),
                    x_min=6,
                )
                for v in ("tcp", "gsam")
            ),
        ),
    ),
    Experiment(
        name="gsam-rto-times",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 7 (traces-6: the time of every RTO per subflow), §II",
        description="Fig. 2's runs with every subflow traced: the time of each retransmission timeout of each "
        "subflow of the two 55 KB transfers (traces-6), and per connection the timeouts, the subflows that "
        "timed out and the first timeout, vs number of subflows",
        x_name="subflows",
        x_label="Number of subflows",
        x_values=(2, 4, 6, 8),
        quick_x_values=(2, 6),
        trace_x=(6,),
        trace_kind="rto",
        definition=Definition(_ns3_run, axis="subflows", fixed={"iw": NS3_IW, "traced": True}, streams="gsam-subflows"),
        extract=rto_row,
        panels=(RTO, RTO_SUBFLOWS, FIRST_RTO),
        checks=(
            *(
                Order(
                    "With 6 or 8 subflows MPTCP's and LISA's completion times rise sharply above TCP's and GSAM's "
                    "through the frequent RTOs of the subflows competing at the bottleneck (Fig. 7).",
                    "rto_count",
                    ranking=(v,),
                    rest=("mptcp", "lisa"),
                    x_min=6,
                )
                for v in ("tcp", "gsam")
            ),
            Compare(
                LISA_UNCREDITED,
                "rto_subflows",
                left="lisa",
                op="≈",
                right="mptcp",
                tolerance=0.25,
                x_min=6,
                x_max=6,
            ),
            Bound(LISA_UNCREDITED, "rto_subflows", variants=("lisa",), op=">=", value=3, x_min=6, x_max=6),
        ),
    ),
    _fig2_changed(
        "gsam-subflows-165kb",
        "165 KB transfers",
        "two 165 KB transfers, which overflow pipe plus buffer",
        {"file_bytes": NS3_LARGE_FILE_BYTES},
        "Fig. 2's mechanism where it can act: with 6 and 8 subflows GSAM completes sooner than MPTCP and "
        "LISA, which lose packets and wait for RTOs.",
    ),
    _fig2_changed(
        "gsam-subflows-b20",
        "a 20-packet buffer",
        "a 20-packet bottleneck buffer, which two 55 KB transfers overflow",
        {"buffer_pkts": NS3_SMALL_BUFFER_PKTS},
        "Fig. 2's headline with a small buffer: with 6 and 8 subflows GSAM completes sooner than MPTCP "
        "and LISA, which lose packets and wait for RTOs.",
    ),
    Experiment(
        name="gsam-subflows-buffer",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 2 setting with 8 subflows and the buffer varied (not a paper figure), §II",
        description="Fig. 2's ns-3 setting with 8 subflows: completion time vs bottleneck buffer",
        x_name="buffer_pkts",
        x_label="Bottleneck buffer (packets)",
        x_values=(10, 15, 20, 25, 30, 35, 40, 45, 50),
        quick_x_values=(10, 20, 50),
        definition=Definition(_ns3_run, axis="buffer_pkts", fixed={"subflows": NS3_MANY_SUBFLOWS, "iw": NS3_IW}),
        panels=(FCT_LOG, RTO, RETX),
        checks=(
            Compare(BUFFER_CLAIM, "fct_s", left="gsam", op="<", right="mptcp", x_max=20),
            Compare(BUFFER_CLAIM, "fct_s", left="mptcp", op="<", right="gsam", x_min=50),
        ),
    ),
    Experiment(
        name="gsam-iw",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 9, §II",
        description="ns-3 setting with 6 subflows: completion time vs initial window",
        x_name="initial_cwnd_segments",
        x_label="Initial congestion window (segments)",
        x_values=(1, 2, 4, 6, 8, 10),
        quick_x_values=(1, 4, 10),
        definition=Definition(_ns3_run, axis="iw", fixed={"subflows": 6}),
        panels=(FCT_LOG, RTO),
        checks=(
            Trend(
                "TCP's and GSAM's completion times fall as the initial window grows.",
                "fct_s",
                variants=("tcp", "gsam"),
            ),
            Trend(
                "A larger initial window makes MPTCP and LISA worse.",
                "fct_s",
                variants=("mptcp", "lisa"),
                direction="grows",
            ),
        ),
    ),
    Experiment(
        name="gsam-shared",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 12 (buffer panel) and Fig. 13, §V-B-1",
        description="Shared bottleneck, 5 transfers of 80 KB: completion time and retransmissions vs router buffer",
        x_name="buffer_pkts",
        x_label="Router buffer (packets)",
        x_values=BUFFERS,
        quick_x_values=QUICK_BUFFERS,
        definition=Definition(_shared_run, axis="buffer_pkts"),
        panels=(FCT, RETX),
        checks=(
            Trend(GSAM_THEN_TCP, "fct_s", variants=SCHEMES),
            Order(GSAM_THEN_TCP, "fct_s", ranking=("gsam", "tcp"), rest=("mptcp", "lisa")),
            Compare(LISA_BEATS, "fct_s", left="lisa", op="<", right="mptcp", x_max=35),
            Compare(LISA_BEATS, "fct_s", left="mptcp", op="<", right="lisa", x_min=36),
            Order(
                RETX_CLAIM,
                "retransmissions",
                ranking=("mptcp",),
                rest=("tcp", "lisa", "gsam"),
                higher_is_better=True,
                x_max=10,
            ),
            Bound(RETX_CLAIM, "retransmissions", variants=SCHEMES, value=0, tolerance=0.5, x_min=100),
        ),
        notes=(SHARED_NOTE,),
    ),
    Experiment(
        name="gsam-shared-filesize",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 12 (flow-size panel) and Fig. 15, §V-B-1",
        description="Shared bottleneck, buffer 20, 5 concurrent transfers: completion time vs file size",
        x_name="file_size_kb",
        x_label="File size (KB)",
        x_values=FILE_SIZES_KB,
        quick_x_values=QUICK_FILE_SIZES_KB,
        definition=Definition(_shared_run, axis="file_kb"),
        panels=(FCT, RETX, R_SS),
        checks=(
            Trend(FILESIZE_CLAIM, "fct_s", variants=SCHEMES, direction="grows"),
            Order(FILESIZE_CLAIM, "fct_s", ranking=("gsam",), rest=("tcp", "mptcp", "lisa")),
        ),
        notes=(SHARED_NOTE,),
    ),
    Experiment(
        name="gsam-shared-flows",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 12 (NCF panel), §V-B-1",
        description="Shared bottleneck, buffer 20, 80 KB transfers: completion time vs number of concurrent flows",
        x_name="ncf",
        x_label="Number of concurrent flows",
        x_values=NCFS,
        quick_x_values=QUICK_NCFS,
        definition=Definition(_shared_run, axis="ncf"),
        panels=(FCT, RETX),
        checks=(
            Trend(FLOWS_CLAIM, "fct_s", variants=SCHEMES, direction="grows"),
            Order(FLOWS_CLAIM, "fct_s", ranking=("gsam",), rest=("tcp", "mptcp", "lisa")),
        ),
        notes=(SHARED_NOTE,),
    ),
    Experiment(
        name="gsam-competing",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 17(a) (with Fig. 21's measure; Fig. 18: traces at 800 KB), §V-B-2",
        description="Multipath transfers competing with as many TCP transfers, buffer 20, NCF 5: "
        "completion time vs file size",
        x_name="file_size_kb",
        x_label="File size (KB)",
        x_values=FILE_SIZES_KB,
        quick_x_values=QUICK_FILE_SIZES_KB,
        trace_x=(800,),
        definition=Definition(_shared_run, axis="file_kb", fixed={"competing": True}),
        panels=(FCT, COMPETING_FCT),
        checks=(
            Order(
                "Below 200 KB GSAM is best, then LISA.", "fct_s", ranking=("gsam", "lisa"), rest=("mptcp",), x_max=199
            ),
            lisa_slightly_slower("Above 200 KB LISA is slightly slower than MPTCP.", x_min=201),
        ),
        notes=(COMPETING_NOTE,),
    ),
    Experiment(
        name="gsam-competing-buffer",
        paper=PAPER,
        stack="linux_3_14",
        figure="Figs. 17(b) and 21 (Fig. 19: traces at buffer 10), §V-B-2",
        description="Multipath transfers competing with as many TCP transfers, 80 KB, NCF 5: completion time of "
        "the multipath and of the TCP transfers vs router buffer",
        x_name="buffer_pkts",
        x_label="Router buffer (packets)",
        x_values=BUFFERS,
        quick_x_values=QUICK_BUFFERS,
        trace_x=(10,),
        definition=Definition(_shared_run, axis="buffer_pkts", fixed={"competing": True}),
        panels=(FCT, COMPETING_FCT, RETX),
        checks=(
            Order(COMPETING_CLAIM, "fct_s", ranking=("gsam", "lisa"), rest=("mptcp",), x_max=20),
            lisa_slightly_slower(COMPETING_CLAIM, x_min=21),
            *(
                Compare(
                    "Fig. 21: the regular TCP flows complete sooner when competing with GSAM or LISA than with MPTCP.",
                    "competing_fct_s",
                    left=v,
                    op="<",
                    right="mptcp",
                )
                for v in ("gsam", "lisa")
            ),
        ),
        notes=(COMPETING_NOTE,),
    ),
    Experiment(
        name="gsam-competing-flows",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 17(c) and Fig. 20, §V-B-2",
        description="Multipath transfers competing with as many TCP transfers, 80 KB, buffer 20: completion time "
        "vs number of concurrent flows",
        x_name="ncf",
        x_label="Number of concurrent flows (of each kind)",
        x_values=NCFS,
        quick_x_values=QUICK_NCFS,
        definition=Definition(_shared_run, axis="ncf", fixed={"competing": True}),
        panels=(FCT, RETX, COMPETING_FCT),
        checks=tuple(
            Compare(
                "As the number of concurrent flows grows, GSAM and LISA both beat MPTCP.",
                "fct_s",
                left=v,
                op="<",
                right="mptcp",
                x_min=5,
            )
            for v in ("gsam", "lisa")
        ),
        notes=(COMPETING_NOTE,),
    ),
    Experiment(
        name="gsam-udp",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 25, §V-B-2",
        description="Five 80 KB multipath transfers with five 5 Mbit/s UDP streams of 80 KB through the shared "
        "bottleneck: completion time vs router buffer",
        x_name="buffer_pkts",
        x_label="Router buffer (packets)",
        x_values=BUFFERS,
        quick_x_values=QUICK_BUFFERS,
        definition=Definition(_udp_run, axis="buffer_pkts"),
        panels=(FCT, RETX),
        checks=(
            Trend("Completion time falls as the buffer grows.", "fct_s", variants=SCHEMES),
            Order(
                "Up to 35 packets GSAM is best, then LISA.",
                "fct_s",
                ranking=("gsam", "lisa"),
                rest=("mptcp",),
                x_max=35,
            ),
            lisa_slightly_slower(
                "With larger buffers the schemes converge and LISA is slightly worse than MPTCP.", x_min=36
            ),
        ),
        notes=(
            "UDP: iperf2 `-u -b 5M -F 80k -P 5` read as five streams of 5 Mbit/s each, 1470-byte datagrams, "
            "each sending the 80 KB file once.",
        ),
    ),
    Experiment(
        name="gsam-nonshared",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 22(a) (Fig. 23: traces at buffer 200), §V-B-3",
        description="Non-shared 100 Mbit/s bottlenecks, 30 transfers of 100 KB: completion time vs router buffer",
        x_name="buffer_pkts",
        x_label="Router buffer (packets)",
        x_values=(25, 50, 100, 200, 360, 500, 800),
        quick_x_values=(25, 200, 800),
        trace_x=(200,),
        definition=Definition(_nonshared_run, axis="buffer_pkts"),
        panels=(FCT, RETX),
        checks=_nonshared_checks("Completion time falls as the buffer grows.", "falls"),
        notes=(NONSHARED_NOTE,),
        quick_runs=2,
    ),
    Experiment(
        name="gsam-nonshared-filesize",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 22(b), §V-B-3",
        description="Non-shared 100 Mbit/s bottlenecks, buffer 200, 30 concurrent transfers: completion time vs "
        "file size",
        x_name="file_size_kb",
        x_label="File size (KB)",
        x_values=(50, 100, 200, 300, 500, 800, 1000),
        quick_x_values=(50, 100, 1000),
        definition=Definition(_nonshared_run, axis="file_kb"),
        panels=(FCT, RETX),
        checks=_nonshared_checks("Completion time grows with the file size.", "grows"),
        notes=(NONSHARED_NOTE,),
        quick_runs=2,
    ),
    Experiment(
        name="gsam-nonshared-flows",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 22(c), §V-B-3",
        description="Non-shared 100 Mbit/s bottlenecks, buffer 200, 100 KB transfers: completion time vs number of "
        "concurrent flows",
        x_name="ncf",
        x_label="Number of concurrent flows",
        x_values=(1, 5, 10, 15, 20, 25, 30),
        quick_x_values=(1, 10, 30),
        definition=Definition(_nonshared_run, axis="ncf"),
        panels=(FCT, RETX),
        checks=_nonshared_checks("Completion time grows with the number of concurrent flows.", "grows"),
        notes=(NONSHARED_NOTE,),
        quick_runs=2,
    ),
    Experiment(
        name="gsam-loss",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 16, §V-B-1",
        description="Shared bottleneck, buffer 20, 20 transfers of 300 KB: completion time vs random loss rate",
        x_name="loss_pct",
        x_label="Random loss rate, both ways (%)",
        x_values=(0.01, 0.05, 0.1, 0.5, 1.0, 2.0),
        quick_x_values=(0.01, 1.0),
        definition=Definition(_loss_run, axis="loss_pct", axis_type=float),
        panels=(FCT, RETX),
        checks=(
            Trend(LOSS_CLAIM, "fct_s", variants=SCHEMES, direction="grows"),
            Order(LOSS_CLAIM, "fct_s", ranking=("gsam", "lisa", "mptcp")),
        ),
        runs=50,
        quick_runs=2,
        notes=(
            SHARED_NOTE.replace("loss 0.01 % both ways", "the loss rate of x both ways"),
            "The paper's grid of loss rates is not given; this one spans its 0.01 % to 2 %.",
        ),
    ),
    Experiment(
        name="gsam-codel-interval",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 27 (Fig. 28: RTT traces at 40 ms), §V-B-4",
        description="Shared bottleneck with CoDel (limit 20, target 5 ms), 20 transfers of 300 KB: completion time "
        "vs CoDel interval",
        x_name="interval_ms",
        x_label="CoDel interval (ms)",
        x_values=(20, 40, 60, 80, 100, 150, 200),
        quick_x_values=(20, 40, 100, 200),
        trace_x=(40,),
        definition=Definition(_codel_run, axis="interval_ms", fixed={"limit_pkts": 20}),
        panels=(FCT, RETX),
        checks=(
            Trend(CODEL_CLAIM, "fct_s", variants=SCHEMES),
            Order(CODEL_CLAIM, "fct_s", ranking=("gsam", "lisa"), rest=("mptcp",)),
        ),
        quick_runs=2,
    ),
    Experiment(
        name="gsam-codel-limit",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 29, §V-B-4",
        description="Shared bottleneck with CoDel (interval 100 ms, target 5 ms), 20 transfers of 300 KB: "
        "completion time vs CoDel limit",
        x_name="limit_pkts",
        x_label="CoDel limit (packets)",
        x_values=(5, 10, 15, 20, 35, 50, 75, 100),
        quick_x_values=(5, 10, 20, 50, 100),
        definition=Definition(_codel_run, axis="limit_pkts", fixed={"interval_ms": 100}),
        panels=(FCT, RETX),
        checks=(
            Order(
                "With small limits GSAM is best, then LISA.",
                "fct_s",
                ranking=("gsam", "lisa"),
                rest=("mptcp",),
                x_max=20,
            ),
            lisa_slightly_slower(
                "As the limit grows the schemes converge and LISA is slightly worse than MPTCP.", x_min=21
            ),
        ),
        quick_runs=2,
    ),
]
