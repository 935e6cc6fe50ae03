"""Reproductions of the GSAM paper (Dong et al., "Tuning the Aggressive Slow-Start Behavior of MPTCP for Short
Flows", IEEE Access 2019): the ns-3 motivation of §II (Figs. 2, 3, 5–7, 9) and the Linux testbed of §V
(Figs. 12–29).

Two settings, as in the paper:

- **ns-3 (§II, Fig. 1)**: a server sends two concurrent 55 KB transfers to a client over N subflows that
  share one 5 Mbit/s bottleneck of 150 ms RTT and a 50-packet drop-tail buffer; IW 1 (Fig. 8), 536-byte
  segments (the authors' ns-3 code), no delayed ACK, no SACK; the subflows join together after subflow 0's
  handshake (§II).
- **Linux testbed (§V-A, Fig. 11)**: two-interface server S2, client C2, a WANem bottleneck of
  5 Mbit/s (100 Mbit/s per path in the non-shared case), 40 ms RTT and 0.01 % random loss both ways;
  NCF concurrent transfers of one size, IW 10, 1400-byte segments, SACK; the second subflow joins as soon as
  the first is established (:data:`JOIN_DELAY_NS`).

Every scenario runs all five variants. Each check cites the paper's words (``quote``, ``where``) and says how its
band follows from them (``derivation``); the trace figures' sentences (Figs. 3, 5, 6, 14, 18, 19, 23, 28) are
judged on measures of every run's traces (:func:`gsam_row`). Which panel shows which figure, and every reading
this module had to choose (K, joins, operating points, CSS's parameters, the UDP streams), are in
docs/reproduction.md.
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
from mpsim.experiments.claims import (
    INF,
    Band,
    BestCase,
    Bound,
    Claim,
    Compare,
    Derived,
    Equivalent,
    NotCheckable,
    Order,
    Ratio,
    Trend,
)
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
from mpsim.tcp_options import flow_mss
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
JOIN_DELAY_NS = 0
"""The second subflow's SYN leaves as soon as the first subflow is established, one RTT after its SYN: what the
paper says of MPTCP's path manager, §II: "It starts a MPTCP connection by establishing an initial TCP subflow
(Subflow0) with a standard TCP 3-way handshake. [...] it will advertise all additional IP addresses to the
connection initiator during this procedure. Then, the additional subflows are able to join in the Multipath TCP
connection and can start sending once they are established" (and of its ns-3 runs: "established simultaneously
after the 3-way handshake of subflow0"). The paper states no other join time: Fig. 18b's "when the second subflow
is established at 1.2s" is one run's outcome (with the first subflow's cwnd already down to 4 after losses, as a
join SYN lost once in the congested buffer and resent after Linux's 1 s initial RTO gives), not a delay of 30
RTTs. The 3 RTTs this module used before came from the LISA paper's own measurement, not from this paper."""

TCP = linux_3_14(MSS)
"""Linux 3.14 with MPTCP v0.89, the testbed's kernel, with the paper's 1400-byte segments: 1440 bytes on the
wire without timestamps, as the paper's arithmetic (360 packets = 100 Mbit/s × 40 ms) assumes."""

DEFAULT_BUFFER_PKTS = 20
"""The testbed's buffer wherever another setting varies. Fig. 15 (Fig. 12's flow-size panel): "when the router
buffer size is 20 packet and their are 5 concurrent flows under the network scenario shown in Fig. 12"; Fig. 18
(Fig. 17a): "the router buffer size is 20 and the number of concurrent flows is 5"; Fig. 20 (Fig. 17c): "the flow
size is 80KB and the router buffer size is 20"; Fig. 16: "The shared router buffer size is 20 packets". Fig. 12's
NCF panel states none: 20, as every panel that states one."""
DEFAULT_FILE_KB = 80
"""The testbed's flow size wherever another setting varies. Stated for Fig. 17's buffer and NCF panels by Fig. 21
("the flow size is 80KB and the number of concurrent flows is 5") and Fig. 20 ("the flow size is 80KB and the
router buffer size is 20"), and for Fig. 19 ("the flow size is 80KB, the router buffer size is 10"). Not stated
for Fig. 12's buffer and NCF panels nor for Fig. 25: 80 KB there is a reading, from the paper's words that Fig.
17's buffer panel "shows a similar behavior as that in the scenario shown in Fig. 12" (the same operating point,
with competing TCP added) and from Fig. 25's UDP streams, which each send an 80 KB file (Fig. 24: "-F
/var/www/80k")."""
DEFAULT_NCF = 5
"""The testbed's number of concurrent flows wherever another setting varies: Fig. 15 ("their are 5 concurrent
flows"), Figs. 18, 19, 21 ("the number of concurrent flows is 5"), Fig. 25 ("there are 5 MPTCP flows competing
with 5 UDP flows"). Fig. 12's buffer panel states none: 5, as Fig. 15 under "the network scenario shown in Fig. 12"."""


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


def _multipath(
    experiment: str,
    variant: str,
    run: int,
    ncf: int,
    size_bytes: int,
    threshold: SlowStart,
    traced: bool = False,
) -> list[Flow]:
    """NCF transfers ``measured0…`` of ``variant`` from S2 (both interfaces) to C2, started together; with
    ``traced`` every subflow's window and RTT are recorded at every ACK (for the trace figures' measures)."""
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
            trace=traced,
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
    traced: bool = False,
) -> Scenario:
    net = shared(drop_tail(buffer_pkts), competing)
    threshold = _gsam(net, buffer_pkts, BOTTLENECK_BPS)
    flows = _multipath(experiment, variant, run, ncf, file_kb * KB, threshold, traced)
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
    traced: bool = False,
) -> Scenario:
    net = nonshared(buffer_pkts)
    threshold = _gsam(net, buffer_pkts, NONSHARED_BOTTLENECK_BPS)
    return _finish(net, run, _multipath(experiment, variant, run, ncf, file_kb * KB, threshold, traced))


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


def _codel_run(
    experiment: str, variant: str, run: int, limit_pkts: int, interval_ms: int, traced: bool = False
) -> Scenario:
    """Figs. 27, 29: 20 transfers of 300 KB through the shared bottleneck (Fig. 11a) queued by CoDel;
    GSAM's B is the CoDel limit (the paper's "router buffer size (limit)")."""
    net = shared(codel(limit_pkts, interval_ms * MS))
    threshold = _gsam(net, limit_pkts, BOTTLENECK_BPS)
    flows = _multipath(experiment, variant, run, CODEL_NCF, CODEL_FILE_KB * KB, threshold, traced)
    return _finish(net, run, flows)


# ============================================================================ the trace figures' measures

FIG3_TIME_NS = 609_800_000
"""Fig. 3: "Its compound congestion window is about 8 at 0.6098s": the time, since the transfer's first SYN
(the trace's time axis read as the transfer's own), at which the text reads every variant's windows."""
EARLY_NS = 1_200_000_000
"""Fig. 18: LISA's window is "much smaller [...] especially at the start time", read as the first 1.2 s, the time
at which the text places the end of that start ("when the second subflow is established at 1.2s")."""

GSAM_MEASURES = (
    "cwnd_reductions",
    "sum_cwnd_fig3_pkts",
    "sub0_peak_cwnd_pkts",
    "others_peak_cwnd_pkts",
    "sum_cwnd_peak_pkts",
    "in_flight_peak_pkts",
    "sum_cwnd_mean_pkts",
    "sum_cwnd_early_pkts",
    "sub1_initial_cwnd_pkts",
    "cwnd_10_to_11_s",
    "ss_srtt_ms",
)
"""The columns :func:`gsam_row` adds to :func:`experiment_metrics`' (NaN where a run has no value: the trace
measures of an untraced run, the other subflows of a TCP flow)."""


def _totals(samples: Sequence[Mapping[str, Any]], key: str) -> list[tuple[int, int]]:
    """(time, sum over subflows of each one's latest ``key``) after each sample, in time order: a subflow counts 0
    until its first sample (its establishment, :func:`_since_establishment`) and then its latest value."""
    latest: dict[int, int] = {}
    total = 0
    out = []
    for s in samples:
        total += s[key] - latest.get(s["subflow"], 0)
        latest[s["subflow"]] = s[key]
        out.append((s["time_ns"], total))
    return out


def _at(totals: Sequence[tuple[int, int]], t_ns: int) -> int:
    """The total at ``t_ns``: the last one at or before it, 0 before the first."""
    value = 0
    for t, v in totals:
        if t > t_ns:
            break
        value = v
    return value


def _time_mean(totals: Sequence[tuple[int, int]], start_ns: int, end_ns: int) -> float | None:
    """The time mean of the step function ``totals`` over [start_ns, end_ns]; None for an empty interval."""
    if end_ns <= start_ns:
        return None
    area, t0, v0 = 0, start_ns, _at(totals, start_ns)
    for t, v in totals:
        if t <= start_ns:
            continue
        if t >= end_ns:
            break
        area += v0 * (t - t0)
        t0, v0 = t, v
    area += v0 * (end_ns - t0)
    return area / (end_ns - start_ns)


def _transfer_measures(
    samples: Sequence[Mapping[str, Any]], start_ns: int, end_ns: int, mss: int, ss_exit_ns: Mapping[int, int | None]
) -> dict[str, float | None]:
    """The trace measures of one transfer from its traced samples (time order) of every subflow: windows in
    packets of ``mss`` bytes, times in s, SRTT in ms. ``ss_exit_ns``: when each subflow left slow start (None:
    never)."""
    by_subflow: dict[int, list[Mapping[str, Any]]] = {}
    for s in samples:
        by_subflow.setdefault(s["subflow"], []).append(s)
    cwnd = _totals(samples, "cwnd_bytes")
    in_flight = _totals(samples, "in_flight_bytes")
    peaks = {i: max(s["cwnd_bytes"] for s in rows) / mss for i, rows in by_subflow.items()}
    others = [p for i, p in peaks.items() if i != 0]
    first = by_subflow.get(0, [])
    # Fig. 23: from subflow 0's first window of 10 segments or more to its first of 11 or more.
    at_10 = next((s["time_ns"] for s in first if s["cwnd_bytes"] >= 10 * mss), None)
    at_11 = next((s["time_ns"] for s in first if s["cwnd_bytes"] >= 11 * mss), None)
    # An SRTT of 0 is none yet (no RTT sample: Karn's rule after a SYN sent again), not an RTT.
    in_slow_start = [
        s["srtt_ns"] / 1e6
        for s in samples
        if s["srtt_ns"] > 0 and ((exit_ns := ss_exit_ns.get(s["subflow"])) is None or s["time_ns"] <= exit_ns)
    ]
    early = _time_mean(cwnd, start_ns, min(start_ns + EARLY_NS, end_ns))
    mean = _time_mean(cwnd, start_ns, end_ns)
    return {
        "sum_cwnd_fig3_pkts": _at(cwnd, start_ns + FIG3_TIME_NS) / mss,
        "sub0_peak_cwnd_pkts": peaks.get(0),
        "others_peak_cwnd_pkts": statistics.fmean(others) if others else None,
        "sum_cwnd_peak_pkts": max(v for _, v in cwnd) / mss,
        "in_flight_peak_pkts": max(v for _, v in in_flight) / mss,
        "sum_cwnd_mean_pkts": None if mean is None else mean / mss,
        "sum_cwnd_early_pkts": None if early is None else early / mss,
        "sub1_initial_cwnd_pkts": by_subflow[1][0]["cwnd_bytes"] / mss if 1 in by_subflow else None,
        "cwnd_10_to_11_s": None if at_10 is None or at_11 is None else (at_11 - at_10) / 1e9,
        "ss_srtt_ms": statistics.fmean(in_slow_start) if in_slow_start else None,
    }


def _mean_of(values: Sequence[float | None]) -> float:
    """The mean of the values that exist; NaN when none does."""
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else math.nan


def gsam_row(results: Results, config: Mapping[str, Any]) -> dict[str, Any]:
    """The row of one run: :func:`experiment_metrics`, and means over the measured transfers of

    - ``cwnd_reductions``: the window reductions of the transfer, fast recoveries and timeouts of all its
      subflows (Fig. 19's "cwnd reduction"; Fig. 5's "CWND reductions");
    - from the traces of a run whose transfers are traced (NaN otherwise), windows in packets: ``sum_cwnd_fig3_pkts``
      (the sum of the subflows' windows 0.6098 s after the first SYN, Fig. 3), ``sub0_peak_cwnd_pkts`` and
      ``others_peak_cwnd_pkts`` (the largest window of subflow 0, and of each other subflow on average, Figs. 5,
      6), ``sum_cwnd_peak_pkts`` and ``in_flight_peak_pkts`` (the largest sum of the windows and of the bytes in
      flight, Figs. 5, 18), ``sum_cwnd_mean_pkts`` and ``sum_cwnd_early_pkts`` (the time mean of the sum of the
      windows from the first SYN to the completion, and over the first 1.2 s, Figs. 14, 18),
      ``sub1_initial_cwnd_pkts`` (subflow 1's window when it is established, Fig. 18), ``cwnd_10_to_11_s`` (the
      time subflow 0's window takes from 10 segments to 11, Fig. 23) and ``ss_srtt_ms`` (the mean SRTT of the
      ACKs a subflow takes in slow start, Fig. 28).
    """
    row: dict[str, Any] = {**experiment_metrics(results.raw, config), **dict.fromkeys(GSAM_MEASURES, math.nan)}
    mss = {f["name"]: flow_mss(f.get("tcp", {})) for f in flows_of(config) if f["name"].startswith("measured")}
    if not mss:
        return row
    raw = results.raw
    transfers = {f["name"]: f for f in raw["tcp_flows"] + raw["mptcp_connections"] if f["name"] in mss}
    subflows: dict[str, list[dict[str, Any]]] = {name: [] for name in transfers}
    for s in results.mptcp_subflows.to_pylist():
        if s["connection"] in subflows:
            subflows[s["connection"]].append(s)
    for f in raw["tcp_flows"]:
        if f["name"] in subflows:
            subflows[f["name"]].append({**f, "subflow": 0})
    row["cwnd_reductions"] = statistics.fmean(
        sum(s["fast_recoveries"] + s["rto_count"] for s in subflows[name]) for name in transfers
    )
    traces: dict[str, list[dict[str, Any]]] = {}
    for r in results.tcp_traces.to_pylist():
        if r["flow"] in transfers:
            traces.setdefault(r["flow"], []).append(r)
    if not traces:
        return row
    tcp = {f["name"] for f in raw["tcp_flows"]}
    measures = []
    for name, traced in traces.items():
        traced.sort(key=lambda r: r["time_ns"])
        established = None if name in tcp else {s["subflow"]: s["established_ns"] for s in subflows[name]}
        samples = _since_establishment(traced, established)
        if not samples:
            continue
        start = transfers[name]["start_ns"]
        end = transfers[name]["completed_ns"] or samples[-1]["time_ns"]
        exits = {s["subflow"]: s["slow_start_exit_ns"] for s in subflows[name]}
        measures.append(_transfer_measures(samples, start, end, mss[name], exits))
    if measures:
        row.update({k: _mean_of([m[k] for m in measures]) for k in measures[0]})
    return row


def _since_establishment(
    samples: Sequence[Mapping[str, Any]], established_ns: Mapping[int, int | None] | None
) -> list[Mapping[str, Any]]:
    """The samples (time order) each subflow took once established: the core also traces the timeouts of a SYN,
    with the initial window and no RTT yet, while the subflow cannot send. ``established_ns``: when each subflow
    of a connection was established (None: never); None for a TCP flow, whose table has no such time, which is
    established at its first sample with data in flight (it sends its initial window at once)."""
    if established_ns is None:
        first = next((i for i, s in enumerate(samples) if s["in_flight_bytes"] > 0), len(samples))
        return list(samples[first:])
    return [s for s in samples if (t := established_ns.get(s["subflow"])) is not None and s["time_ns"] >= t]


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
OPERATING_POINT_NOTE = (
    "Operating point: the paper states none for this panel; 80 KB, 5 concurrent flows and a 20-packet buffer, "
    "as Figs. 15, 20 and 21 state for their panels and as Fig. 17's buffer panel, pinned at 80 KB by Fig. 21, "
    '"shows a similar behavior as that in the scenario shown in Fig. 12".'
)
COMPETING_NOTE = (
    "Competing bottleneck (Fig. 11b, as the text says; Fig. 17's caption names Fig. 11a): NCF multipath transfers "
    "S2→C2 and NCF regular TCP transfers S1→C1 of the same size, all started together (the paper states neither "
    "the number nor the size of the TCP transfers); `competing_fct_s` is the regular TCP flows' mean (Fig. 21)."
)
NONSHARED_NOTE = "Non-shared bottlenecks (Fig. 11c): two disjoint 100 Mbit/s paths, RTT 40 ms, loss 0.01 % both ways."
JOIN_NOTE = (
    "The second subflow joins as soon as the first is established (§II: the additional subflows join after the "
    'initial 3-way handshake and "can start sending once they are established").'
)

SCHEMES = ("tcp", "mptcp", "lisa", "gsam")
"""The schemes the paper compares."""

# The band conventions (from the paper's words only; docs/reproduction.md, "How a claim is judged").
RANK = (
    "a trend in words ('decreases/increases with the increasing …') with no tolerance: over the whole sweep, "
    "Spearman's rank correlation of the means per x with the stated sign, one-sided p < 0.05 (the paper's curves "
    "are means of 10 or 50 runs and its text describes no step of them)"
)
MONOTONE = (
    "a trend in words with no tolerance, over 3 x values, where no rank correlation can be significant: no step "
    "back at all (monotone, tolerance 0)"
)
SLIGHTLY = "'slightly': 0–10 % on the stated side (the band convention for 'slightly worse/better')"
A_LITTLE = "'a little': 0–10 % on the stated side (read as 'slightly')"
SIGNIFICANTLY = "'significantly': the stated side at every point, beyond 2 standard errors (band convention)"
MUCH = "'much': the stated side at every point, beyond 2 standard errors (band convention)"
SIMILAR = (
    "'similar', 'comparable', 'as': equivalent within ±10 % of the reference (the band convention for 'similar'), "
    "shown by two one-sided tests (α = 0.05)"
)


def _exact(value: str, low: float, high: float) -> str:
    return f"the paper's number {value} ± 25 % (band convention for an exact measured number): [{low:g}, {high:g}]"


def _about(value: str, low: float, high: float) -> str:
    return f"'about {value}' ± 50 % (band convention for 'about'): [{low:g}, {high:g}]"


def lisa_slightly_slower(text: str, quote: str, where: str, x_min: float) -> Claim:
    """ "LISA is slightly worse than MPTCP" from ``x_min`` on: its completion time 0–10 % above MPTCP's."""
    return Ratio(
        text,
        "fct_s",
        left="lisa",
        right="mptcp",
        low=1.0,
        high=1.1,
        x_min=x_min,
        quote=quote,
        where=where,
        derivation=SLIGHTLY,
    )


def _trend(
    text: str, quote: str, where: str, direction: str, metric: str = "fct_s", variants: tuple[str, ...] = SCHEMES
) -> Trend:
    """The paper's "X decreases (increases) with the increasing …" over the whole sweep (:data:`RANK`)."""
    return Trend(
        text,
        metric,
        variants=variants,
        direction="falls" if direction == "falls" else "grows",
        mode="rank",
        quote=quote,
        where=where,
        derivation=RANK,
    )


# ---------------------------------------------------------------------------------------------- §II, ns-3

Q_FIG2_SMALL = (
    "when the number of the competing subflows is small, i.e., 2 and 4, MPTCP as well as other two multipath "
    "protocols, namely, GSAM and LISA outperforms regular TCP benefit from the increased subflows"
)
Q_FIG2_SHARP = (
    "the completion time of MPTCP and LISA increases sharply and is significantly higher than that of TCP and "
    "GSAM when further increasing the subflows, i.e., 6 or 8 subflows"
)
Q_H1 = (
    "the transmission performance for short flows can become worse than regular single path TCP when the "
    "concurrent subflows transferred through a shared bottleneck due to MPTCP's aggressive slow start behavior"
)
Q_FIG7 = "This is due to the frequent RTOs caused by the competing subflow in the bottleneck as shown in Fig. 7"
Q_FIG7_LISA = (
    "no more packets can be taken from subflow0 to subflow3, subflow4 and subflow5 and these subflows behave "
    "independently as that in MPTCP, causing RTOs as described in Fig. 7"
)
FIG2_SHARP = "With 6 and 8 subflows MPTCP and LISA take significantly longer than TCP and GSAM, through frequent RTOs."


def _fig2_checks() -> tuple[Claim, ...]:
    """Fig. 2's sentences (completion time against 2–8 subflows), the abstract's two claims about it, and the
    sentences of its traces at 2 subflows (Fig. 3) and at 4 (Figs. 5, 6), judged on the same runs."""
    small = "With 2 and 4 subflows MPTCP, GSAM and LISA complete sooner than TCP (but LISA at 4 subflows)."
    fig3 = "At 0.61 s MPTCP's compound window is about 8, TCP's only 4, LISA's and GSAM's about 7 (2 subflows)."
    fig5 = "At 4 subflows MPTCP's subflow 0 reaches 31, the others about 30, with about 87 packets in flight."
    lisa4 = "At 4 subflows LISA's subflow 0 grows much slower; its windows 16, 31, 31, 30 sum to up to 108."
    return (
        Order(
            small,
            "fct_s",
            ranking=("tcp",),
            rest=("mptcp", "gsam"),
            higher_is_better=True,
            x_max=4,
            quote=Q_FIG2_SMALL,
            where="Fig. 2",
        ),
        Compare(small, "fct_s", left="lisa", op="<", right="tcp", x_max=2, quote=Q_FIG2_SMALL, where="Fig. 2"),
        Compare(
            "With 4 subflows LISA is slower than TCP.",
            "fct_s",
            left="tcp",
            op="<",
            right="lisa",
            x_min=4,
            x_max=4,
            quote="there is a contrast with LISA with 4 subflows, where LISA performs worse than regular TCP",
            where="Fig. 2",
        ),
        Order(
            "With 2 and 4 subflows MPTCP is sooner than GSAM and LISA.",
            "fct_s",
            ranking=("mptcp",),
            rest=("gsam", "lisa"),
            x_max=4,
            quote=(
                "MPTCP also performs better compared to GSAM and LISA in this situation as it increases the "
                "congestion window faster as illustrated in Fig. 3"
            ),
            where="Fig. 2",
        ),
        Compare(
            "With 6 and 8 subflows MPTCP takes significantly longer than TCP (the abstract's claim).",
            "fct_s",
            left="tcp",
            op="<",
            right="mptcp",
            x_min=6,
            criterion="significant",
            quote=Q_H1,
            where="Abstract (Fig. 2, 6 and 8 subflows)",
            headline=True,
            derivation=SIGNIFICANTLY + ", as Fig. 2's text says of this gap",
        ),
        *(
            Compare(
                FIG2_SHARP,
                "fct_s",
                left=fast,
                op="<",
                right=slow,
                x_min=6,
                criterion="significant",
                quote=Q_FIG2_SHARP,
                where="Fig. 2",
                derivation=SIGNIFICANTLY,
            )
            for fast, slow in (("tcp", "lisa"), ("gsam", "mptcp"), ("gsam", "lisa"))
        ),
        Trend(
            FIG2_SHARP,
            "fct_s",
            variants=("mptcp", "lisa"),
            direction="grows",
            x_min=4,
            mode="monotone",
            quote=Q_FIG2_SHARP,
            where="Fig. 2",
            derivation=MONOTONE,
        ),
        Equivalent(
            "With 6 and 8 subflows LISA behaves as MPTCP.",
            "fct_s",
            left="lisa",
            right="mptcp",
            margin=0.10,
            x_min=6,
            quote=(
                "it is unexpected that LISA suffers and shows a similar behavior as MPTCP when the subflows is more "
                "than 2, i.e., 6 or 8"
            ),
            where="Fig. 2",
            derivation=SIMILAR,
        ),
        BestCase(
            "GSAM reduces the completion time by up to 80 % (the abstract), where Fig. 2's gap is largest.",
            "fct_s",
            better="gsam",
            worse="mptcp",
            gain="reduction",
            low=0.40,
            high=1.0,
            x_min=6,
            quote="the GSAM reduces the completion time by up to 80%",
            where="Abstract (Fig. 2, 6 and 8 subflows)",
            headline=True,
            derivation=(
                "'up to 80%': the largest reduction over the range in [0.5·80 %, 1.5·80 %], capped at 100 % (band "
                "convention for 'up to'); read at Fig. 2's 6 and 8 subflows, the only gap the paper calls sharp "
                "and significant and the reason for Fig. 2's log-scaled axis"
            ),
        ),
        # Fig. 3, 2 subflows: the windows at 0.6098 s.
        Ratio(
            fig3,
            "sum_cwnd_fig3_pkts",
            left="mptcp",
            right="tcp",
            low=1.5,
            high=2.5,
            x_min=2,
            x_max=2,
            quote=(
                "Its compound congestion window is about 8 at 0.6098s. However, the congestion window of regular "
                "TCP is only 4 at the same time."
            ),
            where="Fig. 3",
            derivation="MPTCP's 8 against TCP's 4 at the same time, the ratio 2 ± 25 % (an exact measured number)",
        ),
        *(
            Ratio(
                fig3,
                "sum_cwnd_fig3_pkts",
                left=v,
                right="tcp",
                low=1.3125,
                high=2.1875,
                x_min=2,
                x_max=2,
                quote=(
                    "the congestion window of LISA and GSAM is about 7 at this time, which is a little slower than "
                    "MPTCP"
                ),
                where="Fig. 3",
                derivation="7 against TCP's 4 at the same time, the ratio 1.75 ± 25 % (an exact measured number)",
            )
            for v in ("lisa", "gsam")
        ),
        Order(
            fig3,
            "sum_cwnd_fig3_pkts",
            ranking=("mptcp",),
            rest=("lisa", "gsam"),
            higher_is_better=True,
            x_min=2,
            x_max=2,
            quote="the congestion window of LISA and GSAM is about 7 at this time, which is a little slower than MPTCP",
            where="Fig. 3",
        ),
        # Figs. 5, 6, 4 subflows.
        Compare(
            "At 4 subflows LISA reduces its windows (packet loss), MPTCP does so less.",
            "cwnd_reductions",
            left="lisa",
            op=">",
            right="mptcp",
            x_min=4,
            x_max=4,
            quote=(
                "the reason why LISA with 4 subflows breaks the trend compared to the other cases in this situation "
                "is because CWND reductions exist with LISA, which indicate packet loss events occur"
            ),
            where="Fig. 5",
        ),
        *(
            Compare(
                lisa4,
                "sub0_peak_cwnd_pkts",
                left="lisa",
                op="<",
                right=v,
                x_min=4,
                x_max=4,
                criterion="significant",
                quote="This makes Subflow0 increase CWND much slower compared to other algorithms",
                where="Figs. 5, 6",
                derivation=MUCH + "; the window subflow 0 reaches",
            )
            for v in ("tcp", "mptcp", "gsam")
        ),
        Band(
            fig5,
            "sub0_peak_cwnd_pkts",
            variants=("mptcp",),
            low=23.25,
            high=38.75,
            x_min=4,
            x_max=4,
            quote="in MPTCP, the congestion window of Subflow0 grows fast and attains 31 at 0.97696s",
            where="Fig. 5",
            derivation=_exact("31", 23.25, 38.75),
        ),
        Band(
            fig5,
            "others_peak_cwnd_pkts",
            variants=("mptcp",),
            low=15,
            high=45,
            x_min=4,
            x_max=4,
            quote="Although the CWND of other three subflows grows exponentially to about 30 packets at 1.12s",
            where="Fig. 5",
            derivation=_about("30", 15, 45),
        ),
        Band(
            fig5,
            "in_flight_peak_pkts",
            variants=("mptcp",),
            low=43.5,
            high=130.5,
            x_min=4,
            x_max=4,
            quote="the total data amount that stays in the network is about 87 packets",
            where="Fig. 5",
            derivation=_about("87", 43.5, 130.5),
        ),
        Band(
            lisa4,
            Derived("sub0_peak_cwnd_pkts", "/", "others_peak_cwnd_pkts"),
            variants=("lisa",),
            low=0.39,
            high=0.65,
            x_min=4,
            x_max=4,
            quote=(
                "in LISA, when packet loss occurs, all the four subflows are utilized to transmit packets and their "
                "CWND are 16, 31, 31 and 30, respectively"
            ),
            where="Figs. 5, 6",
            derivation=(
                "subflow 0's 16 against the others' 31, 31, 30 (mean 30.67): 0.52 ± 25 % (exact measured numbers); "
                "each subflow's largest window, which it holds when the loss occurs"
            ),
        ),
        Band(
            lisa4,
            "sum_cwnd_peak_pkts",
            variants=("lisa",),
            low=54,
            high=162,
            x_min=4,
            x_max=4,
            quote="The sum of the congestion window of the four subflows is up to 108 packets",
            where="Fig. 5",
            derivation="'up to 108': the largest sum in [0.5·108, 1.5·108] (band convention for 'up to')",
        ),
    )


def _fig2_changed(name: str, change: str, setting: str, fixed: Mapping[str, Any], claim: str) -> Experiment:
    """Fig. 2's layout (completion time against 2–8 subflows) with one setting changed: not a paper figure, so
    its check of Fig. 2's claim (GSAM sooner than MPTCP and LISA at 6 and 8 subflows) is an exploration."""
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
        checks=(
            Order(
                claim,
                "fct_s",
                ranking=("gsam",),
                rest=("mptcp", "lisa"),
                x_min=6,
                quote=Q_FIG2_SHARP,
                where=f"Fig. 2 with {change} (not a paper figure)",
                exploration=True,
            ),
        ),
    )


BUFFER_CLAIM = (
    "With 8 subflows GSAM completes sooner than MPTCP while the buffer is small enough for the two "
    "transfers to overflow it (pipe 162 segments); with room for both (50 packets) MPTCP is sooner."
)
LISA_UNCREDITED = (
    "With 6 subflows LISA behaves as MPTCP: subflows 1 and 2 take one packet each from subflow 0, subflows 3, "
    "4 and 5 get no credit and grow independently, causing RTOs (Fig. 7)."
)

# ---------------------------------------------------------------------------------------------- §V, testbed

SMALL_35 = "'small, i.e., ≤ 35' (Fig. 12's own words, for the same scenario)"
GOODPUT_AS_MPTCP = (
    "'retaining high Goodput … as MPTCP' read as 'comparable' (Fig. 18: GSAM's window 'is comparable with that of "
    "MPTCP'): GSAM's goodput at least MPTCP's less 10 % (the 10 % of 'similar', one-sided: more is also retaining "
    "it); 'large flows' above 200 KB, the paper's own split of flow sizes (Fig. 17a)"
)
Q_H4 = "while retaining high Goodput for large flows as MPTCP"


def _goodput_as_mptcp() -> Claim:
    return Compare(
        "GSAM retains MPTCP's goodput for large flows (the abstract).",
        "goodput_mbps",
        left="gsam",
        op=">",
        right="mptcp",
        tolerance=0.10,
        x_min=201,
        quote=Q_H4,
        where="Abstract",
        headline=True,
        derivation=GOODPUT_AS_MPTCP,
    )


def _shared_order(text: str, quote: str, where: str, headline: bool = False) -> Claim:
    """Fig. 12's order: GSAM best, then TCP, then MPTCP and LISA."""
    return Order(
        text,
        "fct_s",
        ranking=("gsam", "tcp"),
        rest=("mptcp", "lisa"),
        quote=quote,
        where=where,
        headline=headline,
    )


Q_FIG22_ORDER = (
    "LISA performs worse compared to GSAM because of the slower window increasement as analyzed above. "
    "Similarly, GSAM shows a little performance degradation compared to MPTCP."
)
Q_FIG22_TREND = (
    "the flow completion time of each algorithm decreases with the increasing router buffer size and increases with "
    "the flow size as well as the number of concurrent flows"
)


def _nonshared_checks(trend: str, direction: str, where: str) -> tuple[Claim, ...]:
    """Fig. 22's claims, against any of its x: the trend, the order MPTCP, GSAM, LISA, TCP with "a little" as a
    tie, TCP worst, and GSAM a little slower than MPTCP."""
    return (
        _trend(trend, Q_FIG22_TREND, where, direction),
        Order(
            "MPTCP best; GSAM a little slower than MPTCP, and similarly LISA slower than GSAM; TCP worst.",
            "fct_s",
            ranking=("mptcp", "gsam", "lisa", "tcp"),
            tie=0.10,
            quote=Q_FIG22_ORDER,
            where=where,
            derivation=(
                "'a little' (0–10 %, as 'slightly'), which 'Similarly' extends to LISA against GSAM: neighbours within "
                "10 % of each other are tied (TCP's place is judged apart, without a tie)"
            ),
        ),
        Order(
            "TCP is the slowest, with one path.",
            "fct_s",
            ranking=("tcp",),
            rest=("mptcp", "gsam", "lisa"),
            higher_is_better=True,
            quote="TCP performs worst as it only utilizes one path",
            where=where,
        ),
        Ratio(
            "GSAM is a little slower than MPTCP on disjoint paths.",
            "fct_s",
            left="gsam",
            right="mptcp",
            low=1.0,
            high=1.1,
            quote="GSAM shows a little performance degradation compared to MPTCP",
            where=where,
            derivation=A_LITTLE,
        ),
    )


GOODPUT = Panel("goodput_mbps", "Goodput per transfer (Mbit/s)")
CWND_REDUCTIONS = Panel("cwnd_reductions", "Window reductions per connection (fast recoveries and timeouts)")
SUM_CWND_FIG3 = Panel("sum_cwnd_fig3_pkts", "Σcwnd 0.6098 s after the first SYN (packets)")
SUB0_PEAK = Panel("sub0_peak_cwnd_pkts", "Largest cwnd of subflow 0 (packets)")
OTHERS_PEAK = Panel("others_peak_cwnd_pkts", "Largest cwnd of each other subflow, mean (packets)")
SUM_CWND_PEAK = Panel("sum_cwnd_peak_pkts", "Largest Σcwnd (packets)")
IN_FLIGHT_PEAK = Panel("in_flight_peak_pkts", "Largest sum of packets in flight")
SUM_CWND_MEAN = Panel("sum_cwnd_mean_pkts", "Σcwnd, time mean from the first SYN to completion (packets)")
SUM_CWND_EARLY = Panel("sum_cwnd_early_pkts", "Σcwnd, time mean over the first 1.2 s (packets)")
SUB1_INITIAL = Panel("sub1_initial_cwnd_pkts", "cwnd of subflow 1 when established (packets)")
CWND_10_TO_11 = Panel("cwnd_10_to_11_s", "Time for subflow 0's cwnd to grow from 10 to 11 segments (s)")
SS_SRTT = Panel("ss_srtt_ms", "SRTT of the ACKs taken in slow start, mean (ms)")

Q_FIG12 = (
    "the flow completion time decreases with the increasing router buffer size where GSAM performs best, followed "
    "by TCP"
)
Q_FIG13 = (
    "when the router buffer size is small, which is the constraint on the performance of each algorithm, MPTCP has "
    "the largest number of retransmission, leading to the highest flow completion time"
)
Q_FIG13_ZERO = "the number of retransmission with each algorithm is gradually reduced to 0"
Q_H5 = "GSAM improves the MPTCP transfer completion time by reducing the number of retransmission and RTOs"
Q_FIG12_SIZE = (
    "the flow completion time becomes larger with the increasing flow size as well as the increasing number of "
    "concurrent flows"
)
Q_FIG12_SIMILAR = (
    "each algorithm in these two conditions shows a similar behavior in the different router buffer size scenario"
)
Q_FIG18_LISA = "the congestion window of LISA is much smaller than GSAM as well as MPTCP especially at the start time"
Q_FIG17C = (
    "for the completion time of each algorithm increases with increasing concurrent flows, both GSAM and LISA "
    "outperforms MPTCP"
)
Q_FIG20 = "window increasement and reduced retransmission compared to MPTCP as shown in Fig. 20"
Q_FIG25_ORDER = (
    "When buffer size is small (\\leq 35) and the buffer is the constraint, GSAM performs best, followed by LISA"
)
Q_FIG27 = "the flow completion time decreases with the increasing *Interval* where GSAM performs best, followed by LISA"
FIG13_RETX = "At small buffers (≤ 35) MPTCP retransmits most, and so completes last."
FIG13_GAIN = "GSAM's gain comes from fewer retransmissions and RTOs than MPTCP's."

EXPERIMENTS = [
    Experiment(
        name="gsam-subflows",
        paper=PAPER,
        stack="legacy_ns3",
        figure="Fig. 2 (Fig. 3: windows at 2 subflows; Figs. 5, 6: at 4; Fig. 7: RTOs), §II",
        description="ns-3 setting: two concurrent 55 KB transfers over N subflows of one 5 Mbit/s, 150 ms, "
        "50-packet bottleneck: completion time vs number of subflows, and the windows of Figs. 3, 5 and 6",
        x_name="subflows",
        x_label="Number of subflows",
        x_values=(2, 4, 6, 8),
        quick_x_values=(2, 4, 8),
        trace_x=(2, 4),
        definition=Definition(_ns3_run, axis="subflows", fixed={"iw": NS3_IW, "traced": True}),
        extract=gsam_row,
        panels=(
            FCT_LOG,
            RTO,
            RETX,
            CWND_REDUCTIONS,
            SUM_CWND_FIG3,
            SUB0_PEAK,
            OTHERS_PEAK,
            SUM_CWND_PEAK,
            IN_FLIGHT_PEAK,
        ),
        checks=_fig2_checks(),
        notes=(
            "Every subflow is traced (the windows of Figs. 3, 5 and 6 are measures of every run); the runs are "
            "those of `gsam-rto-times`.",
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
            Bound(
                "With 6 and 8 subflows MPTCP and LISA time out frequently.",
                "rto_count",
                variants=("mptcp", "lisa"),
                op=">=",
                value=1,
                x_min=6,
                quote=Q_FIG7,
                where="Fig. 7",
                derivation="'frequent RTOs': at least one timeout per connection, on average over the two transfers",
            ),
            Order(
                "With 6 or 8 subflows MPTCP and LISA time out more than TCP.",
                "rto_count",
                ranking=("tcp",),
                rest=("mptcp", "lisa"),
                x_min=6,
                quote=Q_FIG7,
                where="Fig. 7",
            ),
            Order(
                "MPTCP's aggressive slow start causes timeouts (the abstract): with 6 or 8 subflows MPTCP and LISA "
                "time out more than GSAM.",
                "rto_count",
                ranking=("gsam",),
                rest=("mptcp", "lisa"),
                x_min=6,
                quote=(
                    "we first reveal that the MPTCP's aggressive behavior in slow start causes timeouts and "
                    "throughput collapse"
                ),
                where="Abstract (Fig. 7)",
                headline=True,
            ),
            Equivalent(
                LISA_UNCREDITED,
                "rto_subflows",
                left="lisa",
                right="mptcp",
                margin=0.10,
                x_min=6,
                x_max=6,
                quote=Q_FIG7_LISA,
                where="Fig. 7",
                derivation=SIMILAR + " ('behave independently as that in MPTCP')",
            ),
            Bound(
                LISA_UNCREDITED,
                "rto_subflows",
                variants=("lisa",),
                op=">=",
                value=3,
                x_min=6,
                x_max=6,
                quote=Q_FIG7_LISA,
                where="Fig. 7",
                derivation="the three subflows the text names (subflow3, subflow4 and subflow5) time out",
            ),
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
        checks=tuple(
            Compare(
                BUFFER_CLAIM,
                "fct_s",
                left=left,
                op="<",
                right=right,
                x_min=x_min,
                x_max=x_max,
                quote=Q_FIG2_SHARP,
                where="Fig. 2 with 8 subflows and the buffer varied (not a paper figure)",
                exploration=True,
            )
            for left, right, x_min, x_max in (("gsam", "mptcp", -INF, 20), ("mptcp", "gsam", 50, INF))
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
            _trend(
                "TCP's and GSAM's completion times fall as the initial window grows.",
                "the flow completion time of TCP and GSAM decreases with the increasing IW, which benefits from the "
                "increased network utilization",
                "Fig. 9",
                "falls",
                variants=("tcp", "gsam"),
            ),
            _trend(
                "A larger initial window makes MPTCP and LISA worse.",
                "the increased IW leads to further performance degradation in MPTCP as well as LISA",
                "Fig. 9",
                "grows",
                variants=("mptcp", "lisa"),
            ),
        ),
        notes=("The paper does not give its grid of initial windows; this one spans 1 (Fig. 8) to 10 (Linux's).",),
    ),
    Experiment(
        name="gsam-shared",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 12 (buffer panel), Fig. 13 and Fig. 14, §V-B-1",
        description="Shared bottleneck, 5 transfers of 80 KB: completion time, retransmissions and windows vs "
        "router buffer",
        x_name="buffer_pkts",
        x_label="Router buffer (packets)",
        x_values=BUFFERS,
        quick_x_values=QUICK_BUFFERS,
        definition=Definition(_shared_run, axis="buffer_pkts", fixed={"traced": True}),
        extract=gsam_row,
        panels=(FCT, RETX, RTO, SUM_CWND_MEAN),
        checks=(
            _trend("Completion time falls as the buffer grows.", Q_FIG12, "Fig. 12", "falls"),
            _shared_order(
                "GSAM is best, then TCP, then MPTCP and LISA (MPTCP behind TCP: the abstract's claim).",
                Q_FIG12,
                "Fig. 12",
                headline=True,
            ),
            Compare(
                "LISA beats MPTCP for buffers up to 35 packets.",
                "fct_s",
                left="lisa",
                op="<",
                right="mptcp",
                x_max=35,
                quote="LISA outperforms MPTCP when the router buffer size is small, i.e., \\leq 35",
                where="Fig. 12",
            ),
            lisa_slightly_slower(
                "Above 35 packets MPTCP is slightly better than LISA.",
                "MPTCP performs slightly better than LISA when the router buffer size is larger than 35 pkt",
                "Fig. 12",
                x_min=36,
            ),
            Order(
                FIG13_RETX,
                "retransmissions",
                ranking=("mptcp",),
                rest=("tcp", "lisa", "gsam"),
                higher_is_better=True,
                x_max=35,
                quote=Q_FIG13,
                where="Fig. 13",
                derivation=SMALL_35,
            ),
            Order(
                FIG13_RETX,
                "fct_s",
                ranking=("mptcp",),
                rest=("tcp", "lisa", "gsam"),
                higher_is_better=True,
                x_max=35,
                quote=Q_FIG13,
                where="Fig. 13",
                derivation=SMALL_35,
            ),
            _trend(
                "Every scheme's retransmissions fall to 0 as the buffer grows.",
                Q_FIG13_ZERO,
                "Fig. 13",
                "falls",
                metric="retransmissions",
            ),
            Bound(
                "Every scheme's retransmissions fall to 0 as the buffer grows.",
                "retransmissions",
                variants=SCHEMES,
                value=0,
                tolerance=0.5,
                x_min=100,
                quote=Q_FIG13_ZERO,
                where="Fig. 13",
                derivation="'reduced to 0' at the largest buffer (100): below half a packet per connection, a mean "
                "that rounds to 0",
            ),
            Compare(
                FIG13_GAIN,
                "retransmissions",
                left="gsam",
                op="<",
                right="mptcp",
                x_max=35,
                quote="we can find that the gains of GSAM is benefit from the reduced retransmission",
                where="Fig. 13",
                headline=True,
                derivation=SMALL_35 + ": where the text has retransmissions, not 'reduced to 0'",
            ),
            Compare(
                FIG13_GAIN,
                "rto_count",
                left="gsam",
                op="<",
                right="mptcp",
                x_max=35,
                quote=Q_H5,
                where="§VI Conclusions (Figs. 12, 13)",
                headline=True,
                derivation=SMALL_35 + ": where the buffer is the constraint",
            ),
            Order(
                "Above 35 packets LISA's window grows slower than the other schemes'.",
                "sum_cwnd_mean_pkts",
                ranking=("lisa",),
                rest=("tcp", "mptcp", "gsam"),
                x_min=36,
                quote=(
                    "which reveals that the reason is due to the slower cwnd increasement compared to other algorithms"
                ),
                where="Fig. 14",
                derivation="'when the router buffer size is large': above Fig. 12's 35; a slower growth read as a "
                "smaller time mean of the sum of the windows over the transfer",
            ),
        ),
        notes=(SHARED_NOTE, OPERATING_POINT_NOTE, JOIN_NOTE),
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
        panels=(FCT, RETX, R_SS, GOODPUT),
        checks=(
            _trend("Completion time grows with the file size.", Q_FIG12_SIZE, "Fig. 12", "grows"),
            _shared_order(
                "The same order as against the buffer: GSAM, TCP, then MPTCP and LISA.", Q_FIG12_SIMILAR, "Fig. 12"
            ),
            Order(
                "GSAM retransmits less than MPTCP and LISA until its last slow-start exit.",
                "r_ss",
                ranking=("gsam",),
                rest=("mptcp", "lisa"),
                quote=(
                    "which again validate that the performance gain of GSAM is benefit from the reduced retransmissions"
                ),
                where="Fig. 15",
                headline=True,
            ),
            BestCase(
                "GSAM shortens short flows by up to 35.73 % against MPTCP (the contributions).",
                "fct_s",
                better="gsam",
                worse="mptcp",
                gain="reduction",
                low=0.17865,
                high=0.53595,
                x_max=199,
                quote=(
                    "GSAM can decrease the completion time of short flows by up to 35.73% compared with the MPTCP's "
                    "default scheduler minRTT"
                ),
                where="§I contributions (Fig. 12, flow-size panel)",
                headline=True,
                derivation=(
                    "'up to 35.73%': the largest reduction in [0.5·35.73 %, 1.5·35.73 %] (band convention for 'up "
                    "to'); 'short flows' below 200 KB, the paper's own split of flow sizes (Fig. 17a), in the "
                    "flow-size sweep whose retransmissions (Fig. 15) the next sentence's 'reduced retransmission' "
                    "refers to"
                ),
            ),
            BestCase(
                "For long flows GSAM's gain is up to 21.3 % (the contributions).",
                "fct_s",
                better="gsam",
                worse="mptcp",
                gain="reduction",
                low=0.1065,
                high=0.3195,
                x_min=201,
                quote=(
                    "While for long flows, up to 21.3% of this revenue benefits from the reduced retransmission "
                    "and RTOs."
                ),
                where="§I contributions (Figs. 12, 15, flow-size panel)",
                headline=True,
                derivation=(
                    "read as 'for long flows the completion time falls by up to 21.3 %' against MPTCP: the largest "
                    "reduction in [0.5·21.3 %, 1.5·21.3 %] (band convention for 'up to'); 'long flows' above 200 KB "
                    "(Fig. 17a's split)"
                ),
            ),
            _goodput_as_mptcp(),
        ),
        notes=(SHARED_NOTE, JOIN_NOTE),
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
            _trend("Completion time grows with the number of concurrent flows.", Q_FIG12_SIZE, "Fig. 12", "grows"),
            _shared_order(
                "The same order as against the buffer: GSAM, TCP, then MPTCP and LISA.", Q_FIG12_SIMILAR, "Fig. 12"
            ),
        ),
        notes=(SHARED_NOTE, OPERATING_POINT_NOTE, JOIN_NOTE),
    ),
    Experiment(
        name="gsam-competing",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 17(a) and Fig. 18 (windows at 800 KB), §V-B-2",
        description="Multipath transfers competing with as many TCP transfers, buffer 20, NCF 5: "
        "completion time vs file size, and the windows of Fig. 18",
        x_name="file_size_kb",
        x_label="File size (KB)",
        x_values=FILE_SIZES_KB,
        quick_x_values=QUICK_FILE_SIZES_KB,
        trace_x=(800,),
        definition=Definition(_shared_run, axis="file_kb", fixed={"competing": True, "traced": True}),
        extract=gsam_row,
        panels=(FCT, COMPETING_FCT, GOODPUT, SUM_CWND_EARLY, SUM_CWND_PEAK, SUB1_INITIAL),
        checks=(
            Order(
                "Below 200 KB GSAM is best, then LISA.",
                "fct_s",
                ranking=("gsam", "lisa"),
                rest=("mptcp",),
                x_max=199,
                quote="GSAM performs best, followed by LISA when the flow size is smaller than 200KB",
                where="Fig. 17(a)",
            ),
            lisa_slightly_slower(
                "Above 200 KB LISA is slightly slower than MPTCP.",
                "the LISA's completion time is slightly larger than that of MPTCP when the flow size is larger than "
                "200KB",
                "Fig. 17(a)",
                x_min=201,
            ),
            _goodput_as_mptcp(),
            Order(
                "At 800 KB MPTCP's window grows fastest.",
                "sum_cwnd_early_pkts",
                ranking=("mptcp",),
                rest=("lisa", "gsam"),
                higher_is_better=True,
                x_min=800,
                x_max=800,
                quote="the cwnd of MPTCP increases faster than other two algorithms",
                where="Fig. 18",
                derivation=(
                    "the growth read as the time mean of the sum of the windows over the first 1.2 s (Fig. 18b's "
                    "time of the join)"
                ),
            ),
            Ratio(
                "At 800 KB GSAM's window grows slightly slower than MPTCP's.",
                "sum_cwnd_early_pkts",
                left="gsam",
                right="mptcp",
                low=0.9,
                high=1.0,
                x_min=800,
                x_max=800,
                quote="GSAM increases slightly slower than MPTCP",
                where="Fig. 18",
                derivation=SLIGHTLY + "; over the first 1.2 s",
            ),
            Equivalent(
                "At 800 KB GSAM's two windows sum to about MPTCP's.",
                "sum_cwnd_peak_pkts",
                left="gsam",
                right="mptcp",
                margin=0.10,
                x_min=800,
                x_max=800,
                quote="But the sum of the congestion window of its two subflows is comparable with that of MPTCP",
                where="Fig. 18",
                derivation=SIMILAR + "; the largest sum of the windows",
            ),
            *(
                Compare(
                    "At 800 KB LISA's window is much smaller than GSAM's and MPTCP's at the start.",
                    "sum_cwnd_early_pkts",
                    left="lisa",
                    op="<",
                    right=v,
                    x_min=800,
                    x_max=800,
                    criterion="significant",
                    quote=Q_FIG18_LISA,
                    where="Fig. 18",
                    derivation=MUCH + "; 'the start time' read as the first 1.2 s (Fig. 18b's time of the join)",
                )
                for v in ("gsam", "mptcp")
            ),
            Compare(
                "At 800 KB LISA's second subflow starts below the initial window of 10 that MPTCP's has.",
                "sub1_initial_cwnd_pkts",
                left="lisa",
                op="<",
                right="mptcp",
                x_min=800,
                x_max=800,
                quote=(
                    "the second subflow begins the transmission with the cwnd of 3 rather than the initial value of 10"
                ),
                where="Fig. 18",
            ),
        ),
        notes=(COMPETING_NOTE, JOIN_NOTE),
    ),
    Experiment(
        name="gsam-competing-buffer",
        paper=PAPER,
        stack="linux_3_14",
        figure="Figs. 17(b) and 21, Fig. 19 (window reductions at buffer 10), §V-B-2",
        description="Multipath transfers competing with as many TCP transfers, 80 KB, NCF 5: completion time of "
        "the multipath and of the TCP transfers vs router buffer",
        x_name="buffer_pkts",
        x_label="Router buffer (packets)",
        x_values=BUFFERS,
        quick_x_values=QUICK_BUFFERS,
        trace_x=(10,),
        definition=Definition(_shared_run, axis="buffer_pkts", fixed={"competing": True}),
        extract=gsam_row,
        panels=(FCT, COMPETING_FCT, RETX, CWND_REDUCTIONS),
        checks=(
            Order(
                "Up to 20 packets GSAM is best, then LISA.",
                "fct_s",
                ranking=("gsam", "lisa"),
                rest=("mptcp",),
                x_max=20,
                quote=(
                    "when router buffer size is small (≤ 20) and the buffer is the constraint, GSAM performs best, "
                    "followed by LISA"
                ),
                where="Fig. 17(b)",
            ),
            lisa_slightly_slower(
                "With larger buffers LISA is slightly worse than MPTCP.",
                "with the increasing router buffer size, LISA performs slightly worse than MPTCP due to the slow "
                "increase of cwnd as analyzed above",
                "Fig. 17(b)",
                x_min=21,
            ),
            Compare(
                "Fig. 21: the regular TCP flows complete sooner when competing with GSAM than with MPTCP.",
                "competing_fct_s",
                left="gsam",
                op="<",
                right="mptcp",
                quote="TCP obtains smaller flow completion time when competing with GSAM",
                where="Fig. 21",
            ),
            Compare(
                "Fig. 21: the regular TCP flows complete sooner when competing with LISA than with MPTCP.",
                "competing_fct_s",
                left="lisa",
                op="<",
                right="mptcp",
                quote="and LISA as they slow down the window increasement, and thus alleviate the congestion collapse",
                where="Fig. 21",
            ),
            Band(
                "At buffer 10 MPTCP reduces its window 4 times, LISA and GSAM 2 times.",
                "cwnd_reductions",
                variants=("mptcp",),
                low=3,
                high=5,
                x_min=10,
                x_max=10,
                quote="there are 4 times cwnd reduction with MPTCP and the number is 2 with LISA as well as GSAM",
                where="Fig. 19",
                derivation=_exact("4", 3, 5),
            ),
            Band(
                "At buffer 10 MPTCP reduces its window 4 times, LISA and GSAM 2 times.",
                "cwnd_reductions",
                variants=("lisa", "gsam"),
                low=1.5,
                high=2.5,
                x_min=10,
                x_max=10,
                quote="there are 4 times cwnd reduction with MPTCP and the number is 2 with LISA as well as GSAM",
                where="Fig. 19",
                derivation=_exact("2", 1.5, 2.5),
            ),
        ),
        notes=(
            COMPETING_NOTE,
            "Operating point: Fig. 21 states 80 KB and 5 concurrent flows for this sweep; Fig. 19 is its buffer 10.",
            JOIN_NOTE,
        ),
    ),
    Experiment(
        name="gsam-competing-flows",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 17(c) and Fig. 20, §V-B-2",
        description="Multipath transfers competing with as many TCP transfers, 80 KB, buffer 20: completion time "
        "and retransmissions vs number of concurrent flows",
        x_name="ncf",
        x_label="Number of concurrent flows (of each kind)",
        x_values=NCFS,
        quick_x_values=QUICK_NCFS,
        definition=Definition(_shared_run, axis="ncf", fixed={"competing": True}),
        panels=(FCT, RETX, COMPETING_FCT),
        checks=(
            _trend("Completion time grows with the number of concurrent flows.", Q_FIG17C, "Fig. 17(c)", "grows"),
            *(
                Compare(
                    "GSAM and LISA both beat MPTCP.",
                    "fct_s",
                    left=v,
                    op="<",
                    right="mptcp",
                    quote=Q_FIG17C,
                    where="Fig. 17(c)",
                )
                for v in ("gsam", "lisa")
            ),
            *(
                Compare(
                    "GSAM and LISA retransmit less than MPTCP.",
                    "retransmissions",
                    left=v,
                    op="<",
                    right="mptcp",
                    quote=Q_FIG20,
                    where="Fig. 20",
                    headline=v == "gsam",
                )
                for v in ("gsam", "lisa")
            ),
        ),
        notes=(
            COMPETING_NOTE,
            "Operating point: Fig. 20 states 80 KB and a 20-packet buffer for this sweep.",
            JOIN_NOTE,
        ),
    ),
    Experiment(
        name="gsam-udp",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 25 (Fig. 26 repeats its caption), §V-B-2",
        description="Five 80 KB multipath transfers with five 5 Mbit/s UDP streams of 80 KB through the shared "
        "bottleneck: completion time vs router buffer",
        x_name="buffer_pkts",
        x_label="Router buffer (packets)",
        x_values=BUFFERS,
        quick_x_values=QUICK_BUFFERS,
        definition=Definition(_udp_run, axis="buffer_pkts"),
        panels=(FCT, RETX),
        checks=(
            _trend(
                "Completion time falls as the buffer grows.",
                "the flow completion time decreases with the increasing buffer size",
                "Fig. 25",
                "falls",
            ),
            Order(
                "Up to 35 packets GSAM is best, then LISA.",
                "fct_s",
                ranking=("gsam", "lisa"),
                rest=("mptcp",),
                x_max=35,
                quote=Q_FIG25_ORDER,
                where="Fig. 25",
            ),
            lisa_slightly_slower(
                "With larger buffers the schemes converge and LISA is slightly worse than MPTCP.",
                "With the increasing buffer size, the difference between the flow completion time of each algorithm is "
                "getting smaller. LISA performs slightly worse than MPTCP",
                "Fig. 25",
                x_min=36,
            ),
            NotCheckable(
                "Fig. 26 cannot be checked.",
                "",
                quote=(
                    "The flow completion time when the regular UDP traffic competing the shared bottleneck with "
                    "MPTCP traffic."
                ),
                where="Fig. 26",
                reason="its caption repeats Fig. 25's word for word and the text never refers to it: what it plots is "
                "not said",
            ),
        ),
        notes=(
            "UDP: iperf2 `-u -b 5M -F 80k -P 5` read as five streams of 5 Mbit/s each, 1470-byte datagrams, "
            "each sending the 80 KB file once.",
            'Operating point: "there are 5 MPTCP flows competing with 5 UDP flows"; the MPTCP flows\' size is not '
            "stated: 80 KB, the file the UDP streams send (Fig. 24) and the size of every other buffer sweep with 5 "
            "flows (Figs. 19, 21).",
            JOIN_NOTE,
        ),
    ),
    Experiment(
        name="gsam-nonshared",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 22(a) and Fig. 23 (windows at buffer 200), §V-B-3",
        description="Non-shared 100 Mbit/s bottlenecks, 30 transfers of 100 KB: completion time vs router buffer",
        x_name="buffer_pkts",
        x_label="Router buffer (packets)",
        x_values=(25, 50, 100, 200, 360, 500, 800),
        quick_x_values=(25, 200, 800),
        trace_x=(200,),
        definition=Definition(_nonshared_run, axis="buffer_pkts", fixed={"traced": True}),
        extract=gsam_row,
        panels=(FCT, RETX, CWND_10_TO_11),
        checks=(
            *_nonshared_checks("Completion time falls as the buffer grows.", "falls", "Fig. 22(a)"),
            Band(
                "At buffer 200 MPTCP's window grows from 10 to 11 within 0.08 s, GSAM's in about 0.16 s.",
                "cwnd_10_to_11_s",
                variants=("mptcp",),
                low=0.06,
                high=0.10,
                x_min=200,
                x_max=200,
                quote="the congestion window of MPTCP grows from 10 to 11 within 0.08s while GSAM utilizes about 0.16s",
                where="Fig. 23",
                derivation=_exact("0.08 s", 0.06, 0.10),
            ),
            Band(
                "At buffer 200 MPTCP's window grows from 10 to 11 within 0.08 s, GSAM's in about 0.16 s.",
                "cwnd_10_to_11_s",
                variants=("gsam",),
                low=0.08,
                high=0.24,
                x_min=200,
                x_max=200,
                quote="the congestion window of MPTCP grows from 10 to 11 within 0.08s while GSAM utilizes about 0.16s",
                where="Fig. 23",
                derivation=_about("0.16 s", 0.08, 0.24),
            ),
            Compare(
                "At buffer 200 MPTCP's window grows from 10 to 11 within 0.08 s, GSAM's in about 0.16 s.",
                "cwnd_10_to_11_s",
                left="gsam",
                op=">",
                right="mptcp",
                x_min=200,
                x_max=200,
                quote="the congestion window of MPTCP grows from 10 to 11 within 0.08s while GSAM utilizes about 0.16s",
                where="Fig. 23",
            ),
            NotCheckable(
                "The introduction's claim that CSS degrades on disjoint paths cannot be checked.",
                "",
                quote="When the subflows do not share the bottleneck, its performance may also degrade due to the "
                "reduced congestion window size compared to regular MPTCP as well as TCP as validated in Section V.",
                where="§I",
                reason="Section V, which the sentence cites, never runs CSS (it compares LISA, MPTCP and TCP), so no "
                "figure of the paper shows what it claims; 'may also degrade' gives no size to judge (the `css` "
                "column is mpsim's, not the paper's)",
            ),
        ),
        notes=(NONSHARED_NOTE, JOIN_NOTE),
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
        panels=(FCT, RETX, GOODPUT),
        checks=(
            *_nonshared_checks("Completion time grows with the file size.", "grows", "Fig. 22(b)"),
            _goodput_as_mptcp(),
        ),
        notes=(NONSHARED_NOTE, JOIN_NOTE),
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
        checks=_nonshared_checks("Completion time grows with the number of concurrent flows.", "grows", "Fig. 22(c)"),
        notes=(NONSHARED_NOTE, JOIN_NOTE),
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
            _trend(
                "The completion time of each algorithm increases with the loss rate.",
                "the completion time of each algorithm increases with the increasing loss rate",
                "Fig. 16",
                "grows",
            ),
            Order(
                "GSAM outperforms the existing algorithms, followed by LISA and MPTCP.",
                "fct_s",
                ranking=("gsam", "lisa", "mptcp"),
                quote="GSAM outperforms existing algorithms, followed by LISA and MPTCP",
                where="Fig. 16",
            ),
        ),
        runs=50,
        quick_runs=2,
        notes=(
            SHARED_NOTE.replace("loss 0.01 % both ways", "the loss rate of x both ways"),
            "The paper's grid of loss rates is not given; this one spans its 0.01 % to 2 %.",
            JOIN_NOTE,
        ),
    ),
    Experiment(
        name="gsam-codel-interval",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 27 and Fig. 28 (RTTs at 40 ms), §V-B-4",
        description="Shared bottleneck with CoDel (limit 20, target 5 ms), 20 transfers of 300 KB: completion time "
        "vs CoDel interval",
        x_name="interval_ms",
        x_label="CoDel interval (ms)",
        x_values=(20, 40, 60, 80, 100, 150, 200),
        quick_x_values=(20, 40, 100, 200),
        trace_x=(40,),
        definition=Definition(_codel_run, axis="interval_ms", fixed={"limit_pkts": 20, "traced": True}),
        extract=gsam_row,
        panels=(FCT, RETX, SS_SRTT),
        checks=(
            _trend("Completion time falls as the interval grows.", Q_FIG27, "Fig. 27", "falls"),
            Order(
                "GSAM is best, then LISA.",
                "fct_s",
                ranking=("gsam", "lisa"),
                rest=("mptcp",),
                quote=Q_FIG27,
                where="Fig. 27",
            ),
            Order(
                "At 40 ms MPTCP's RTT rises fastest in slow start.",
                "ss_srtt_ms",
                ranking=("mptcp",),
                rest=("lisa", "gsam"),
                higher_is_better=True,
                x_min=40,
                x_max=40,
                quote="MPTCP increases faster compared to other algorithms due to its exponentially growth of cwnd",
                where="Fig. 28",
                derivation="a faster rise of the RTT read as a larger mean SRTT over the ACKs of the slow start (the "
                "'exponentially growth of cwnd')",
            ),
            Order(
                "At 40 ms GSAM shows the smallest RTT.",
                "ss_srtt_ms",
                ranking=("gsam",),
                rest=("lisa", "mptcp"),
                x_min=40,
                x_max=40,
                quote="GSAM starts to slow down the growth before packet loss occurs and shows the smallest RTT",
                where="Fig. 28",
                derivation="the mean SRTT over the ACKs of the slow start, where the text says GSAM slows the growth",
            ),
        ),
        notes=(JOIN_NOTE,),
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
                quote=(
                    "when the router buffer size (*limit*) is small and the buffer is the constraint, GSAM performs "
                    "best, followed by LISA"
                ),
                where="Fig. 29",
                derivation="'small' limit: up to 20, the limit the paper calls 'this buffer-restricted condition' "
                "(Fig. 27)",
            ),
            lisa_slightly_slower(
                "As the limit grows the schemes converge and LISA is slightly worse than MPTCP.",
                "with the increasing buffer size, the difference between each algorithm becomes smaller and LISA "
                "performs slightly worse than MPTCP",
                "Fig. 29",
                x_min=21,
            ),
        ),
        notes=(JOIN_NOTE,),
        quick_runs=2,
    ),
]
