"""Reproductions of the LISA paper (Barik et al., "LISA: A Linked Slow-Start Algorithm for MPTCP",
ICC 2016): §II–III, Figs. 1–2 (the motivation); §IV-A / §V-A, Figs. 6–8 and the text-only non-shared
heterogeneous-RTT test: a multi-homed server sends to a client over two subflows; §VI, Figs. 11–13: the
real-network measurements over 3G and WLAN, emulated (the paper gives none of their parameters, see below).
The data centre of §IV-B / §V-B (Fig. 9) is :mod:`mpsim.experiments.datacenter`.

The paper's platform is the CORE emulator with Linux 3.14.22 and MPTCP v0.89.3, so the stack is the
``linux_3_14`` profile (SACK with PRR, FACK, delayed early retransmit, the 3.x tail loss probe, F-RTO, IW 10,
min RTO 200 ms; docs/algorithms.md): MSS 1460 B (a "constant 1.5 KByte packet size", 1500 B on the wire
without timestamps), ssthresh unlimited, the receiver ACKs every packet (footnote 3: "which is the case with
Linux in slow-start"), and LIA in its kernel flavour. The bottleneck is 5 Mbit/s with a 40 ms base RTT (BDP
25 000 B, "17 packets"); the paper gives only capacity and RTT, so the per-link delays are ours:
non-bottleneck links 1 Gbit/s, 1 ms one way, and the bottleneck 19 ms one way.

Joins: "we measured 3 RTTs before the second subflow begins with its IW" (§III). The second subflow's SYN
leaves 3 base RTTs of the first path after the first subflow's SYN, times (1 + U[−0.25, 0.25]) per run,
and the connection starts at U[0, 10 ms]: the emulator's timing noise that makes runs differ (there is
no other randomness). The core counts ``join_delay_ns`` from the first subflow's establishment, one base
RTT after its SYN, so that RTT is subtracted.

Pooled queues (Figs. 6 c–d, 7a, 8c): the paper runs 10 transfers at each of the buffers 9, 17 and 30
packets and plots their mean. Run r uses buffer [9, 17, 30][(r − 1) mod 3]; with 30 runs each point
averages 10 runs of each buffer, and a quick mode with 6 runs averages 2 of each. Error bars are 95 %
confidence intervals of the mean, as the paper's (§V: "we will take the 95% confidence interval for all the
plots").

CSS keeps its paper's defaults (con_ssthresh 65 535 B, 44.9 packets of 1460 B; α = 1.5; 2·MSS cap);
GSAM gets the path's bottleneck rate (5 Mbit/s) and buffer (the run's B). docs/reproduction.md compares
each experiment with the paper.

Checks: every check quotes the paper's words (``quote``), says where they stand (``where``), whether they are
one of its headline claims (``headline``) and how its band follows from the paper's numbers or words
(``derivation``), by the band conventions of the scorecard's pre-registration ("about v": v ± 50 %; a
measured v: v ± 25 %; "up to v": [0.5·v, 1.5·v]; "more/less than v": one-sided at v; "similar": within
10 %; "consistently", "significantly": beyond two standard errors at every point; "almost all": at least
80 % of the points). Three forms of :mod:`mpsim.experiments.claims` came with these checks: :class:`Gap` (an
absolute difference of two variants' means at each x), :class:`GapTrend` (that difference, or the relative gain,
rising or falling with x) and :class:`Share` (a claim that holds at a stated share of its points).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from mpsim.engine import Results
from mpsim.experiments.base import (
    KB,
    MS,
    RENO,
    Definition,
    Experiment,
    Panel,
    S,
    address,
    bps,
    drop_tail,
    duplex,
    experiment_metrics,
    ns,
    run_random,
    scenario_of,
    transfer,
)
from mpsim.experiments.claims import (
    Compare,
    Difference,
    Equivalent,
    Gap,
    GapTrend,
    Ratio,
    Trend,
    share,
)
from mpsim.experiments.stacks import (
    IP_TCP_HEADER_BYTES,
    LINUX_3_14_LIA,
    LINUX_3_14_LISA,
    gsam,
    gsam_k_ns,
    gsam_on_path,
    linux_3_14,
)
from mpsim.scenario import CongestionControl, Flow, Scenario, SlowStart, TcpFlow, UdpFlow
from mpsim.topologies import Bernoulli, Link, Network

PAPER = "LISA: Barik et al., LISA: A Linked Slow-Start Algorithm for MPTCP, ICC 2016"
PACKET_BYTES = 1500
"""§III, footnote 2: "constant 1.5 KByte packet size": a full segment on the wire, headers included."""
MSS = PACKET_BYTES - IP_TCP_HEADER_BYTES
"""Payload of a full segment: 1460 B without timestamps."""
ACCESS_BPS = 1_000_000_000
"""Not given (§IV-A gives only the bottleneck): every other link 1 Gbit/s, never the constraint."""
ACCESS_DELAY_NS = 1 * MS
"""Not given: 1 ms one way on every other link."""
BOTTLENECK_BPS = 5_000_000
"""§IV-A: "The bottleneck capacity is set to 5 Mbps"."""
BASE_RTT_NS = 40 * MS
"""§IV-A: "RTT is set to 40 ms"."""
BOTTLENECK_DELAY_NS = BASE_RTT_NS // 2 - ACCESS_DELAY_NS
"""19 ms: the base RTT is 2·(1 + 19) ms without serialisation."""

TCP = linux_3_14(MSS)
"""Linux 3.14 with MPTCP v0.89, the emulator's kernel: the stack's settings with the paper's 1500-byte packets."""

JOIN_RTTS = 3
"""§III: "we measured 3 RTTs before the second subflow begins with its IW"."""
JOIN_JITTER = 0.25
"""The join's timing noise, ours: the second SYN 3 RTTs · (1 + U[−0.25, 0.25]) after the first."""
START_JITTER_NS = 10 * MS
"""The connection's timing noise, ours: it starts at U[0, 10 ms]."""
POOLED_BUFFERS = (9, 17, 30)
"""§V-A: the "good, medium and bad" buffers of Fig. 6(a, b), pooled in Figs. 6(c, d), 7(a), 8(c)."""

LONG_FILE_BYTES = 2_000_000
""""A long enough file" for the slow-start experiments (Figs. 6 a–b, 8 a–b): 3.2 s at 5 Mbit/s."""
RUN_LIMIT_NS = 60 * S
"""Every run ends when the measured transfer (and the competing flow, if any) completes; this cap is never
reached (``incomplete`` would count it)."""
FILE_SIZES_KB = (50, 100, 200, 300, 400, 500, 600, 700, 800, 900)
"""§V-A: "file transfers with sizes ranging from 50 KB to 900 KB"."""
QUICK_FILE_SIZES_KB = (50, 200, 300, 500, 900)
BUFFERS = tuple(range(1, 35))
"""§IV-A: "We vary the bottleneck queue size from 1 up to 34 packets (twice the path's BDP)"."""
QUICK_BUFFERS = (1, 4, 8, 12, 17, 24, 34)


def pooled_buffer(run: int) -> int:
    """The bottleneck buffer of run ``run`` (from 1) in a pooled experiment: 9, 17, 30, 9, …"""
    return POOLED_BUFFERS[(run - 1) % len(POOLED_BUFFERS)]


# ---------------------------------------------------------------------------------------------- topologies


def _nic(host: str, nic: str, peer: str, rate_bps: int, delay_ns: int, queue_out: int = 1000) -> Link:
    """Interface ``host.nic`` to ``peer`` (links ``host.nic-peer`` and ``peer-host.nic``): ``queue_out``
    packets towards the peer, 1000 back."""
    return duplex(f"{host}.{nic}", peer, rate_bps, delay_ns, drop_tail(queue_out), drop_tail(1000), node=host)


def shared(
    buffer_pkts: int,
    eth_delays_ns: tuple[int, int] = (ACCESS_DELAY_NS, ACCESS_DELAY_NS),
    bottleneck_delay_ns: int = BOTTLENECK_DELAY_NS,
    competing_host: bool = False,
    bottleneck_bps: int = BOTTLENECK_BPS,
) -> Network:
    """Fig. 3: Server.eth0 and Server.eth1 (1 Gbit/s) → router Rc → Client over the client's 5 Mbit/s
    downlink, the shared bottleneck with a drop-tail queue of ``buffer_pkts``. The ACK direction and every
    other queue hold 1000 packets (never the constraint). With ``competing_host``, a host H (1 Gbit/s, 1 ms
    to Rc) sends the competing TCP flow of Fig. 7(a) through the same downlink."""
    nics = ("eth0", "eth1")
    eth = [_nic("Server", nic, "Rc", ACCESS_BPS, delay) for nic, delay in zip(nics, eth_delays_ns, strict=True)]
    links = [
        *eth,
        duplex("Rc", "Client", bottleneck_bps, bottleneck_delay_ns, drop_tail(buffer_pkts), drop_tail(1000)),
    ]
    names = ["Server", "Client"]
    if competing_host:
        links.append(duplex("H", "Rc", ACCESS_BPS, ACCESS_DELAY_NS))
        names.append("H")
    return Network(
        hosts=names,
        routers=["Rc"],
        links=links,
        addresses=[address(f"Server.{nic}", link) for nic, link in zip(nics, eth, strict=True)],
    )


def nonshared(
    buffer_pkts: int, uplink_delays_ns: tuple[int, int] = (BOTTLENECK_DELAY_NS, BOTTLENECK_DELAY_NS)
) -> Network:
    """Fig. 4: Server.eth_i → R_i over a 5 Mbit/s server uplink (19 ms one way unless ``uplink_delays_ns``
    says otherwise) with a drop-tail queue of ``buffer_pkts`` (the two bottlenecks, one per subflow), then
    R_i → Client at 1 Gbit/s, 1 ms."""
    links = []
    addresses = []
    for (i, nic), delay in zip(((1, "eth0"), (2, "eth1")), uplink_delays_ns, strict=True):
        uplink = _nic("Server", nic, f"R{i}", BOTTLENECK_BPS, delay, queue_out=buffer_pkts)
        links += [uplink, duplex(f"R{i}", "Client", ACCESS_BPS, ACCESS_DELAY_NS)]
        addresses.append(address(f"Server.{nic}", uplink))
    return Network(hosts=["Server", "Client"], routers=["R1", "R2"], links=links, addresses=addresses)


# ---------------------------------------------------------------------------------------------- runs


def _gsam(net: Network, buffer_pkts: int) -> SlowStart:
    """GSAM's K (its authors' reading) from the first subflow's path (Server.eth0 → … → Client) and its
    bottleneck, the path's slowest link."""
    names = {link.forward_name for link in net.links}
    route = ["Server.eth0-Rc", "Rc-Client"] if "Rc-Client" in names else ["Server.eth0-R1", "R1-Client"]
    rate = min(link.mean_rate for link in net.links if link.forward_name in route)
    return gsam_on_path(net.links, route, buffer_pkts, rate, PACKET_BYTES, IP_TCP_HEADER_BYTES)


def timing(experiment: str, run: int, rtt1_ns: int = BASE_RTT_NS) -> tuple[int, int]:
    """(start, core join delay) of a run: start U[0, 10 ms]; the second SYN 3·RTT₁·(1 + U[−¼, ¼]) after
    the first, i.e. that less one RTT₁ after the first subflow is established."""
    rng = run_random(experiment, run)
    start = int(rng.uniform(0.0, START_JITTER_NS))
    syn_to_syn = round(JOIN_RTTS * rtt1_ns * (1.0 + rng.uniform(-JOIN_JITTER, JOIN_JITTER)))
    return start, syn_to_syn - rtt1_ns


def _run(
    net: Network,
    experiment: str,
    variant: str,
    run: int,
    size_bytes: int,
    buffer_pkts: int,
    rtt1_ns: int = BASE_RTT_NS,
    *,
    cc: CongestionControl | None = None,
    subflows: int | None = None,
    competing_offset_ns: int | None = None,
) -> Scenario:
    """The measured transfer Server → Client over ``net`` (``cc`` in place of its congestion control;
    ``subflows`` all over the first interface, ndiffports); with ``competing_offset_ns`` a Reno flow
    H → Client of the same size starts that long after it. The run ends when they complete."""
    start, join_delay = timing(experiment, run, rtt1_ns)
    flows = [
        transfer(
            variant,
            "measured",
            ["Server.eth0", "Server.eth1"],
            ["Client"],
            size_bytes,
            start,
            TCP,
            join_delay,
            gsam=_gsam(net, buffer_pkts),
            lisa=LINUX_3_14_LISA,
            coupled=cc or LINUX_3_14_LIA,
            single_path=cc or RENO,
            subflows=subflows,
        )
    ]
    if competing_offset_ns is not None:
        flows.append(transfer("tcp", "competing", ["H"], ["Client"], size_bytes, start + competing_offset_ns, TCP))
    return scenario_of(
        net,
        seed=run,
        duration_ns=start + RUN_LIMIT_NS,
        flows=flows,
        stop_when_complete=[f.name for f in flows],
    )


TOPOLOGIES: dict[str, Callable[[int], Network]] = {"shared": shared, "nonshared": nonshared}
"""The two topologies of §V-A by name, each of a given bottleneck buffer: Fig. 5(a) and Fig. 5(b)."""


def _buffer(buffer_pkts: int | None, run: int) -> int:
    """The given buffer, or run ``run``'s of the pooled buffers when none is given."""
    return pooled_buffer(run) if buffer_pkts is None else buffer_pkts


def _slow_start_run(experiment: str, variant: str, run: int, topology: str, buffer_pkts: int) -> Scenario:
    """The long transfer of the slow-start experiments through ``topology`` with a ``buffer_pkts`` buffer."""
    return _run(TOPOLOGIES[topology](buffer_pkts), experiment, variant, run, LONG_FILE_BYTES, buffer_pkts)


def _file_run(
    experiment: str, variant: str, run: int, topology: str, size_kb: int, buffer_pkts: int | None = None
) -> Scenario:
    """A ``size_kb`` transfer through ``topology``; the buffer is the run's pooled one unless given."""
    b = _buffer(buffer_pkts, run)
    return _run(TOPOLOGIES[topology](b), experiment, variant, run, size_kb * KB, b)


def _competing_run(experiment: str, variant: str, run: int, size_kb: int) -> Scenario:
    """Fig. 7(a): a Reno flow H → Client of the same size starts U[0, 1 RTT] after the measured transfer."""
    b = pooled_buffer(run)
    offset = int(run_random(experiment, run, "competing").uniform(0.0, BASE_RTT_NS))
    net = shared(b, competing_host=True)
    return _run(net, experiment, variant, run, size_kb * KB, b, competing_offset_ns=offset)


HETERO_ETH_DELAYS_NS = (95 * MS, 5 * MS)
"""The server's interfaces one way: the paths' RTTs 2·(95 + 5) = 200 ms and 2·(5 + 5) = 20 ms."""
HETERO_BOTTLENECK_DELAY_NS = 5 * MS
HETERO_RTT1_NS = 2 * (HETERO_ETH_DELAYS_NS[0] + HETERO_BOTTLENECK_DELAY_NS)
"""§V-A: "the base RTT of the first connection ... is 200 ms while the other one is 20 ms" (2·(5 + 5))."""
HETERO_FILE_KB = 500
"""§V-A, Fig. 7(b): "We transfer a file of size 500 KB"."""
HETERO_BUFFERS = (5, 10, 20, 30, 40, 50, 60, 70, 83, 92)
"""§V-A, Fig. 7(b): "vary the queue size from 5 to 92 packets, which is above the sum of the two BDPs (8 and 83
packets, respectively)": the two BDPs, the ends, and steps of 10 between."""
QUICK_HETERO_BUFFERS = (5, 20, 50, 92)


def _hetero_run(experiment: str, variant: str, run: int, buffer_pkts: int) -> Scenario:
    """Fig. 7(b): the 500 KB transfer over paths of 200 ms and 20 ms RTT sharing the bottleneck."""
    net = shared(buffer_pkts, eth_delays_ns=HETERO_ETH_DELAYS_NS, bottleneck_delay_ns=HETERO_BOTTLENECK_DELAY_NS)
    return _run(net, experiment, variant, run, HETERO_FILE_KB * KB, buffer_pkts, HETERO_RTT1_NS)


FAVOURABLE_BUFFER_PKTS = 20
"""§V-A: "a separate test was run for a favorable buffer size of 20 packets"."""


MOTIVATION_BPS = 2_500_000
"""§II, Fig. 1: "a 2.5 Mbps shared bottleneck"."""
MOTIVATION_DELAY_NS = 34 * MS
"""Fig. 1: "the base RTT without queuing delay" is 70 ms, 2·(1 + 34) ms."""
MOTIVATION_BUFFER_PKTS = 15
"""Not given: the path's BDP, 2.5 Mbit/s × 70 ms = 14.6 packets of 1500 B, as §IV's "common choice"."""
MOTIVATION_FILE_BYTES = 300 * KB
"""§II, Fig. 1: "a 300 KB file transfer"."""


def _motivation_run(experiment: str, variant: str, run: int, subflows: int, cc: str | None = None) -> Scenario:
    """Figs. 1–2: 300 KB from the server to the client over ``subflows`` subflows that all join at once after
    the first (ndiffports, footnote 4), through the shared 2.5 Mbit/s downlink; ``cc`` replaces the flow's
    congestion control (Fig. 1a's TCP is CUBIC)."""
    b = MOTIVATION_BUFFER_PKTS
    net = shared(b, bottleneck_delay_ns=MOTIVATION_DELAY_NS, bottleneck_bps=MOTIVATION_BPS)
    rtt1 = 2 * (ACCESS_DELAY_NS + MOTIVATION_DELAY_NS)
    replaced = None if cc is None else CongestionControl(type=cc)
    return _run(net, experiment, variant, run, MOTIVATION_FILE_BYTES, b, rtt1, cc=replaced, subflows=subflows)


NONSHARED_HETERO_UPLINK_DELAYS_NS = (99 * MS, 9 * MS)
"""§V-A, non-shared: "we also tested heterogeneous RTT with 20 (second subflow) vs. 200 ms (first subflow)":
the server uplinks one way, so that the paths' RTTs are 2·(99 + 1) = 200 ms and 2·(9 + 1) = 20 ms."""
NONSHARED_HETERO_RTT1_NS = 2 * (NONSHARED_HETERO_UPLINK_DELAYS_NS[0] + ACCESS_DELAY_NS)


def _nonshared_hetero_run(experiment: str, variant: str, run: int, buffer_pkts: int) -> Scenario:
    """The non-shared heterogeneous-RTT test (text only, no figure): Fig. 7(b)'s 500 KB transfer over the
    non-shared topology whose paths have RTTs of 200 ms (first subflow) and 20 ms, each uplink 5 Mbit/s with
    a ``buffer_pkts`` queue. The paper gives neither its file size nor its buffers ("for all buffer sizes"):
    those of Fig. 7(b), "As in the shared bottleneck scenario"."""
    net = nonshared(buffer_pkts, uplink_delays_ns=NONSHARED_HETERO_UPLINK_DELAYS_NS)
    return _run(net, experiment, variant, run, HETERO_FILE_KB * KB, buffer_pkts, NONSHARED_HETERO_RTT1_NS)


# ---------------------------------------------------------------------------------------------- real network (§VI)
#
# Figs. 11–13: a multi-homed client on 3G and WLAN downloads 100–1000 KB from a server in a lab network, "3G
# path being the first subflow"; device cross traffic of "approximately 30% of the total capacity of each
# link"; in the shared case the lab network is made the bottleneck by background traffic from the server.
# The paper gives no capacity, delay, loss or queue of the 3G and WLAN paths and cites no source for them,
# so this is an emulation with typical values from outside the paper, each named with its source below; its
# verdicts judge the paper's claims on this emulated network, not on the authors' one.

LAB_BPS = 100_000_000
"""§VI: "These VMs are connected via 100 Mbps links", the one capacity of the setup the paper gives: here the
lab network's link from the server, which the shared case's background traffic loads."""
LAB_DELAY_NS = 1 * MS
"""Ours: 1 ms one way from the server to the Internet (a "well-provisioned lab network", Fig. 10)."""
VM_DELAY_NS = 9 * MS
"""Ours: the VM (the shared case's background traffic sink, "towards the VM") 20 ms RTT from the server."""
CELL_BPS = 2_000_000
CELL_DELAY_NS = 75 * MS
CELL_LOSS = 0.0075
WLAN_BPS = 10_000_000
WLAN_DELAY_NS = 10 * MS
WLAN_LOSS = 0.015
WIRELESS_QUEUE_PKTS = 1000
WIRELESS_SOURCE = (
    "3G 2 Mbit/s, 75 ms one way, 0.75 % loss; WLAN 10 Mbit/s, 10 ms one way, 1.5 % loss; 1000-packet queues: "
    "the WiFi/3G emulation of a public reproduction (github.com/cheney2cq/cs244-pa3, topo.py) of Raiciu et al., "
    "NSDI 2012, Fig. 7, without its jitter (which reorders packets). Not the paper's: it gives none"
)
"""Where the wireless paths' parameters come from: the paper says only that "3G and WLAN have very different
link characteristics in terms of capacity, packet loss and delay", which these have."""
CROSS_TRAFFIC_SHARE = 0.3
"""§VI: the device's cross traffic takes "approximately 30% of the total capacity of each link"."""
CROSS_TRAFFIC_PERIOD_NS = 500 * MS
"""Ours: the cross traffic's on and off periods, exponential with this mean; on, it sends at twice the share
(60 % of the link) so that it averages 30 %. The paper: "rate-limited TCP and UDP on/off flows"."""
BACKGROUND_FLOWS = 19
"""The shared case's greedy TCP flows from the server to the VM. The paper gives no number ("greedy and
rate-limited TCP and UDP on/off flows"); 19 give each of the 20 flows on the 100 Mbit/s lab link, the
measured one included, a fair share of 5 Mbit/s, the paper's own shared-bottleneck capacity (§IV-A), below
what the two wireless paths carry: the lab network is the bottleneck, as the paper's shared case asks."""
WARMUP_NS = 5 * S
"""Ours: the cross and background traffic run this long before the measured download starts."""
REALNET_SIZES_KB = (100, 200, 300, 400, 500, 600, 700, 800, 900, 1000)
"""§VI: "downloading different files sizes ranging from 100 KB to 1000 KB"."""
REALNET_RUNS = 15
"""§VI: "we collected 15 samples for each experiment"."""
CELL_DATA_LINK = "R-Client.3g"
"""The 3G link towards the client: the first subflow's last hop, whose queue the "bufferbloat" fills."""
CELL_RTT_NS = 2 * (LAB_DELAY_NS + CELL_DELAY_NS)


def realnet(shared_lab: bool) -> Network:
    """Fig. 10, emulated: Server —lab link (100 Mbit/s, 1 ms)— R, the Internet; the client's 3G and WLAN
    interfaces (addresses ``Client.3g``, ``Client.wlan``) hang off R by their wireless links (both directions
    lossy, :data:`WIRELESS_SOURCE`); a host X next to R sends the device's cross traffic. With ``shared_lab``
    a VM (100 Mbit/s, 9 ms from R) receives the background traffic that makes the lab link the bottleneck."""
    cell = duplex(
        "Client.3g",
        "R",
        CELL_BPS,
        CELL_DELAY_NS,
        drop_tail(WIRELESS_QUEUE_PKTS),
        drop_tail(WIRELESS_QUEUE_PKTS),
        loss=Bernoulli(type="bernoulli", p=CELL_LOSS),
        node="Client",
    )
    wlan = duplex(
        "Client.wlan",
        "R",
        WLAN_BPS,
        WLAN_DELAY_NS,
        drop_tail(WIRELESS_QUEUE_PKTS),
        drop_tail(WIRELESS_QUEUE_PKTS),
        loss=Bernoulli(type="bernoulli", p=WLAN_LOSS),
        node="Client",
    )
    links = [duplex("Server", "R", LAB_BPS, LAB_DELAY_NS), cell, wlan, duplex("X", "R", ACCESS_BPS, ACCESS_DELAY_NS)]
    hosts = ["Server", "Client", "X"]
    if shared_lab:
        links.append(duplex("R", "VM", LAB_BPS, VM_DELAY_NS))
        hosts.append("VM")
    return Network(
        hosts=hosts,
        routers=["R"],
        links=links,
        addresses=[address("Client.3g", cell), address("Client.wlan", wlan)],
    )


def _cross_traffic(run: int) -> list[Flow]:
    """The device's cross traffic: UDP on/off from X to each client interface, 60 % of the link while on."""
    on_off = {"pattern": "on_off", "on": ns(CROSS_TRAFFIC_PERIOD_NS), "off": ns(CROSS_TRAFFIC_PERIOD_NS)}
    return [
        UdpFlow(
            type="udp",
            name=f"cross-{nic}",
            src="X",
            dst=f"Client.{nic}",
            rate=bps(round(2 * CROSS_TRAFFIC_SHARE * rate)),
            packet_size=f"{PACKET_BYTES}B",
            **on_off,
        )
        for nic, rate in (("3g", CELL_BPS), ("wlan", WLAN_BPS))
    ]


def _realnet_run(experiment: str, variant: str, run: int, size_kb: int, shared_lab: bool) -> Scenario:
    """One download of ``size_kb`` from the server to the client over 3G (the first subflow) and WLAN, after
    :data:`WARMUP_NS` of cross traffic (and, with ``shared_lab``, of the background flows to the VM, each
    starting at U[0, 1 s])."""
    start, join_delay = timing(experiment, run, CELL_RTT_NS)
    threshold = gsam(gsam_k_ns(WIRELESS_QUEUE_PKTS, PACKET_BYTES, CELL_BPS, CELL_RTT_NS))
    measured = transfer(
        variant,
        "measured",
        ["Server"],
        ["Client.3g", "Client.wlan"],
        size_kb * KB,
        WARMUP_NS + start,
        TCP,
        join_delay,
        gsam=threshold,
        lisa=LINUX_3_14_LISA,
        coupled=LINUX_3_14_LIA,
    )
    flows: list[Flow] = [measured, *_cross_traffic(run)]
    if shared_lab:
        rng = run_random(experiment, run, "background")
        flows += [
            TcpFlow(
                name=f"background{k:02d}",
                src="Server",
                dst="VM",
                start=ns(int(rng.uniform(0.0, S))),
                cc=RENO,
                tcp=TCP,
            )
            for k in range(BACKGROUND_FLOWS)
        ]
    return scenario_of(
        realnet(shared_lab),
        seed=run,
        duration_ns=WARMUP_NS + start + RUN_LIMIT_NS,
        flows=flows,
        stop_when_complete=["measured"],
    )


def realnet_row(results: Results, config: Mapping[str, Any]) -> dict[str, Any]:
    """The row of one download (Figs. 11–13): :func:`~mpsim.experiments.base.experiment_metrics`, and

    - ``cell_share_pct``: the share of the connection's delivered bytes that the 3G subflow carried (Fig. 13's
      "traffic distribution on each path"; 100 for ``tcp``, which uses the 3G path alone);
    - ``first_loss_s``: from the first SYN to the first subflow's slow-start exit, the paper's "time for the
      first loss, i.e., the transition between the first slow-start to congestion avoidance phase" (for
      ``mptcp`` and ``lisa`` a slow-start exit is a loss: ssthresh starts unlimited); NaN when the transfer
      ended in slow start;
    - ``cell_max_queue_pkts``: the largest queue of the 3G link towards the client during the run, the
      "*bufferbloat* on the 3G path" (its cross traffic included)."""
    row = experiment_metrics(results.raw, config)
    subflows = [s for s in results.mptcp_subflows.to_pylist() if s["connection"] == "measured"]
    if subflows:
        first = next(s for s in subflows if s["subflow"] == 0)
        total = sum(s["bytes_delivered"] for s in subflows)
        share = 100.0 * first["bytes_delivered"] / total if total else math.nan
        exits = [s["slow_start_exit_ns"] for s in subflows if s["slow_start_exit_ns"] is not None]
        syn = first["first_syn_ns"]
    else:
        (flow,) = [f for f in results.tcp_flows.to_pylist() if f["name"] == "measured"]
        share = 100.0
        exits = [flow["slow_start_exit_ns"]] if flow["slow_start_exit_ns"] is not None else []
        syn = flow["first_syn_ns"]
    return {
        **row,
        "cell_share_pct": share,
        "first_loss_s": (min(exits) - syn) / 1e9 if exits else math.nan,
        "cell_max_queue_pkts": float(results.link(CELL_DATA_LINK)["max_queue_pkts"]),
    }


# ---------------------------------------------------------------------------------------------- panels and notes

R_SS = Panel("r_ss", "Retransmissions before the last subflow leaves slow start, R_ss (packets)")
CWND_SS = Panel("sum_cwnd_ss_exit_pkts", "Sum of cwnd when the last subflow leaves slow start (packets)")
FCT = Panel("fct_s", "Mean completion time (s)")
RETX = Panel("retransmissions", "Retransmissions, R (packets)")
COMPETING_RETX = Panel("competing_retransmissions", "Retransmissions of the competing TCP flow (packets)")
CELL_SHARE = Panel("cell_share_pct", "Share of the data carried by the 3G subflow (%)")
FIRST_LOSS = Panel("first_loss_s", "Time to the first loss (first slow-start exit) (s)")
CELL_QUEUE = Panel("cell_max_queue_pkts", "Largest queue of the 3G link (packets)")

POOLED_NOTE = (
    "Buffers 9, 17 and 30 packets are pooled: run r uses [9, 17, 30][(r - 1) mod 3], "
    "so each point is the mean of 10 runs of each buffer (2 of each in quick mode)."
)
TIMING_NOTE = (
    "Runs differ only in their start (U[0, 10 ms]) and join time (second SYN 3 RTT x (1 + U[-0.25, 0.25]) after "
    "the first), standing in for the emulator's timing noise."
)
REALNET_NOTE = (
    "An emulation, not the paper's network: the paper gives no capacity, delay, loss or queue of its 3G and WLAN "
    f"paths. {WIRELESS_SOURCE}. The lab link is 100 Mbit/s (the paper's VM links), device cross traffic UDP "
    "on/off at 60 % of each wireless link while on (exponential periods of 0.5 s: 30 % on average, the paper's "
    "share); downloads start after 5 s of it. The 3G path is the first subflow; the join comes 3 RTTs of it "
    "(3 x 152 ms) after the first SYN, as in the emulation experiments."
)

# Band derivations shared by several checks.
ONE_SUBFLOW_UP_TO_200KB = (
    "x ≥ 300: §V-A, 'For small file sizes (up to 200 KByte), note that LISA does not provide any gains since "
    "there is only one subflow (i.e. LISA is not active yet)'; LISA is compared with MPTCP where it is active"
)
CONSISTENTLY = "'consistently': the stated side at every point, beyond 2 standard errors (band conventions)"
SIMILAR = "'similar': equivalent within 10 % of MPTCP's mean (band conventions), TOST at α = 0.05"
NOT_HARM = (
    "'does not harm': LISA no slower than MPTCP by more than what the band conventions call similar (10 %): "
    "lisa < 1.1·mptcp at every point"
)


def _realnet_experiment(shared_lab: bool) -> Experiment:
    """Figs. 11–13 in one scenario, shared (the lab network the bottleneck) or non-shared (the wireless links),
    emulated (:data:`REALNET_NOTE`)."""
    case, panel = ("shared", "a") if shared_lab else ("nonshared", "b")
    # §VI: "in the 100 KB file size case, LISA's completion time is on average reduction of 10% and 20% for
    # shared and non-shared bottleneck scenarios"; "LISA hit the first loss on average 50 ms later" (non-shared),
    # "100 ms later" (shared).
    reduction, first_loss = (0.10, 0.100) if shared_lab else (0.20, 0.050)
    loss_quote = (
        "for the shared bottleneck scenario, LISA's first loss occurred on average 100 ms later compared to MPTCP."
        if shared_lab
        else "For the non-shared bottleneck scenario, LISA hit the first loss on average 50 ms later compared to MPTCP."
    )
    bottleneck = (
        "the lab link is the shared bottleneck, loaded by 19 greedy Reno flows from the server to a VM"
        if shared_lab
        else "the wireless links are the bottlenecks, one per subflow"
    )
    return Experiment(
        name=f"lisa-realnet-{case}",
        paper=PAPER,
        stack="linux_3_14",
        figure=f"Figs. 11({panel}), 12({panel}), 13, §VI (emulated: the paper gives no 3G or WLAN parameters)",
        description=f"Emulated 3G (first subflow) and WLAN client downloading 100-1000 KB, {bottleneck}: "
        "completion time, retransmissions, the 3G subflow's share and the time to the first loss vs file size",
        x_name="file_size_kb",
        x_label="File size (KB)",
        x_values=REALNET_SIZES_KB,
        quick_x_values=(100, 500, 1000),
        definition=Definition(_realnet_run, axis="size_kb", fixed={"shared_lab": shared_lab}),
        extract=realnet_row,
        panels=(FCT, RETX, CELL_SHARE, FIRST_LOSS, CELL_QUEUE),
        checks=(
            Compare(
                "LISA improves the completion time at every file size.",
                "fct_s",
                left="lisa",
                op="<",
                right="mptcp",
                quote="We observe that LISA improves the completion time for all file sizes and scenarios.",
                where=f"§VI, Fig. 11({panel})",
            ),
            Ratio(
                f"At 100 KB LISA completes {reduction:.0%} sooner than MPTCP.",
                "fct_s",
                left="lisa",
                right="mptcp",
                low=1 - 1.25 * reduction,
                high=1 - 0.75 * reduction,
                x_min=100,
                x_max=100,
                quote="For example, in the 100 KB file size case, LISA's completion time is on average reduction of "
                "10% and 20% for shared and non-shared bottleneck scenarios, respectively.",
                where=f"§VI, Fig. 11({panel})",
                derivation=f"a measured {reduction:.0%} reduction ± 25 % (band conventions): LISA/MPTCP in "
                f"[1 − 1.25·{reduction:g}, 1 − 0.75·{reduction:g}] at 100 KB",
            ),
            Compare(
                "LISA retransmits less than MPTCP at every file size.",
                "retransmissions",
                left="lisa",
                op="<",
                right="mptcp",
                quote="We observe that LISA reduces the number of retransmissions.",
                where=f"§VI, Fig. 12({panel})",
            ),
            Compare(
                "LISA limits the bufferbloat on the 3G path: a shorter peak queue on the 3G link.",
                "cell_max_queue_pkts",
                left="lisa",
                op="<",
                right="mptcp",
                quote="One interesting observation is that LISA also limits the *bufferbloat* on the 3G path.",
                where=f"§VI, Fig. 12({panel})",
            ),
            Gap(
                "MPTCP sends 5 to 7 percentage points more of the data over the 3G path than LISA, at every size.",
                "cell_share_pct",
                left="mptcp",
                right="lisa",
                low=0.0,
                high=12.0,
                quote="MPTCP uses 5 to 7% more of the 3G path compared to MPTCP-LISA for all file sizes in both "
                "shared and non-shared bottleneck scenarios.",
                where="§VI, Fig. 13",
                derivation="'5 to 7%' read as percentage points of the traffic on the 3G path (Fig. 13: traffic "
                "distribution on each path), a stated range widened by 5 points each side (band conventions): "
                "[0, 12] at every size ('for all file sizes')",
            ),
            Difference(
                f"LISA hits its first loss {first_loss * 1000:.0f} ms later than MPTCP, on average over the sizes.",
                "first_loss_s",
                left="mptcp",
                right="lisa",
                low=0.75 * first_loss,
                high=1.25 * first_loss,
                quote=loss_quote,
                where="§VI (text beside Fig. 13)",
                derivation=f"a measured average of {first_loss * 1000:.0f} ms ± 25 % (band conventions), averaged "
                "over the file sizes ('in all measurements')",
            ),
        ),
        runs=REALNET_RUNS,
        quick_runs=3,
        error_bars="ci95",
        notes=(REALNET_NOTE, TIMING_NOTE),
    )


EXPERIMENTS = [
    Experiment(
        name="lisa-motivation",
        paper=PAPER,
        stack="linux_3_14",
        figure="Figs. 1 and 2, §II–III",
        description="300 KB over a shared 2.5 Mbit/s, 70 ms bottleneck with 2 and 3 subflows: retransmissions, "
        "completion time and the cwnd of each subflow",
        x_name="subflows",
        x_label="Number of subflows",
        x_values=(2, 3),
        quick_x_values=(2, 3),
        definition=Definition(_motivation_run, axis="subflows", patches={"tcp": {"cc": "cubic"}}),
        panels=(RETX, FCT, R_SS),
        checks=(
            Compare(
                "MPTCP's uncoupled slow start harms MPTCP itself: TCP (CUBIC) completes the 300 KB transfer before "
                "MPTCP with 2 subflows.",
                "fct_s",
                left="tcp",
                op="<",
                right="mptcp",
                x_max=2,
                quote="We first illustrate that MPTCP’s uncoupled SS harms the performance of both MPTCP and the "
                "concurrent TCP at the shared bottleneck.",
                where="§I (Abstract, §VIII); shown by Fig. 1(a)",
                headline=True,
            ),
            Gap(
                "TCP (CUBIC) completes the 300 KB transfer about 50 ms earlier than MPTCP.",
                "fct_s",
                left="mptcp",
                right="tcp",
                low=0.025,
                high=0.075,
                x_min=2,
                x_max=2,
                quote="Here, we observe that TCP completes the transmission approximately 50ms earlier than MPTCP.",
                where="§II, Fig. 1(a)",
                derivation="'approximately 50ms': 50 ms ± 50 % (band conventions, 'about v'), in seconds",
            ),
            Compare(
                "MPTCP's second subflow overshoots when it joins and costs more retransmissions than TCP.",
                "retransmissions",
                left="mptcp",
                op=">",
                right="tcp",
                x_max=2,
                quote="This is due to the large overshoot when the second subflow joins, causing more "
                "retransmissions as shown in Fig. 1(b).",
                where="§II, Fig. 1(b)",
            ),
            Compare(
                "LISA retransmits less than MPTCP with 2 subflows.",
                "retransmissions",
                left="lisa",
                op="<",
                right="mptcp",
                x_max=2,
                quote="LISA prevents the first subflow from increasing its *cwnd* after every ACK, hence limiting "
                "MPTCP's in flight data and reducing the number of retransmissions as shown in Figure 1(b).",
                where="§III, Fig. 1(b)",
            ),
            Gap(
                "LISA completes the 300 KB transfer 200 ms sooner than MPTCP with 2 subflows.",
                "fct_s",
                left="mptcp",
                right="lisa",
                low=0.15,
                high=0.25,
                x_min=2,
                x_max=2,
                quote="Overall, we observe a 200 ms shorter completion time with LISA for this setup.",
                where="§III, Fig. 1(c, d)",
                derivation="a measured 200 ms ± 25 % (band conventions), in seconds",
            ),
            Trend(
                "With 3 subflows MPTCP's overshoot is larger: more retransmissions before slow start ends.",
                "r_ss",
                variants=("mptcp",),
                direction="grows",
                mode="monotone",
                quote="Figure 2(a) depicts the compound *cwnd* of 3 subflows in the same scenario as shown in "
                "Figure 1. The overshoot is more significant, hence, taking longer to recover from the losses.",
                where="§III, Fig. 2(a)",
                derivation="'more significant' with 3 subflows than with 2: grows from 2 to 3, no tolerance",
            ),
            GapTrend(
                "LISA's reduction of retransmissions against MPTCP is greater with 3 subflows than with 2.",
                "retransmissions",
                left="lisa",
                right="mptcp",
                direction="grows",
                quote="We also observe a greater reduction in retransmissions with LISA, depicted in Figure 2(b).",
                where="§III, Fig. 2(b)",
                derivation="'a greater reduction': the reduction mptcp − lisa in packets is larger at 3 subflows "
                "than at 2, no tolerance",
            ),
            Trend(
                "MPTCP's aggressiveness in slow start escalates with the number of subflows: more retransmissions "
                "with 3 than with 2.",
                "retransmissions",
                variants=("mptcp",),
                direction="grows",
                mode="monotone",
                quote="For an MPTCP connection with 2 subflows, this results in MPTCP doubling its queue occupancy, "
                "and hence, increasing the unfairness compared to a concurrent TCP flow at the shared bottleneck. "
                "This further escalates with an increasing number of subflows.",
                where="§I; shown by Figs. 1–2",
                headline=True,
                derivation="'further escalates with an increasing number of subflows': MPTCP's retransmissions grow "
                "from 2 to 3 subflows, no tolerance (the queue occupancy itself is not measured)",
            ),
        ),
        trace_x=(2, 3),
        quick_runs=2,
        error_bars="ci95",
        notes=(
            "Buffer 15 packets (the BDP; not given). All subflows leave on Server.eth0 (ndiffports) and join "
            "together 3 RTTs after the first SYN, as footnote 4 allows; the bottleneck is the client's downlink.",
            "Runs: 10 per point (the paper does not say how many it ran).",
            TIMING_NOTE,
        ),
    ),
    Experiment(
        name="lisa-shared-buffer",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 6 (a, b), §V-A",
        description="Shared 5 Mbit/s, 40 ms bottleneck, long file: R_ss and sum of cwnd at the last SS exit vs buffer",
        x_name="buffer_pkts",
        x_label="Bottleneck queue (packets)",
        x_values=BUFFERS,
        quick_x_values=QUICK_BUFFERS,
        definition=Definition(_slow_start_run, axis="buffer_pkts", fixed={"topology": "shared"}),
        panels=(R_SS, CWND_SS),
        checks=(
            Compare(
                "LISA has fewer retransmissions before the last slow-start exit (R_ss) than MPTCP at every buffer "
                "except the very small ones.",
                "r_ss",
                left="lisa",
                op="<",
                right="mptcp",
                x_min=8,
                criterion="significant",
                quote="We show that LISA consistently reduces the number of retransmissions compared to MPTCP, "
                "irrespective of the buffer size, except for the very small buffer sizes.",
                where="§V-A, Fig. 6(a)",
                derivation=f"x ≥ 8: 'very small' is the next sentence's 'less than 8 packets'; {CONSISTENTLY}",
            ),
            Equivalent(
                "Below 8 packets the first subflow leaves slow start before the join, and LISA's R_ss is like MPTCP's.",
                "r_ss",
                left="lisa",
                right="mptcp",
                margin=0.10,
                x_max=7,
                quote="We observe that for a buffer size less than 8 packets, the first subflow leaves SS early, "
                "causing buffer overflow, and the newly established subflow sets its IW to 10 similar to the "
                "behavior of MPTCP. Hence, LISA experiences similar R_{ss} to MPTCP.",
                where="§V-A, Fig. 6(a)",
                derivation=f"x ≤ 7: 'less than 8 packets'; {SIMILAR}",
            ),
            share(
                Compare(
                    "LISA has a larger total cwnd at the end of slow start for almost all buffer sizes.",
                    "sum_cwnd_ss_exit_pkts",
                    left="lisa",
                    op=">",
                    right="mptcp",
                ),
                0.8,
                quote="The figure illustrates that LISA had a larger total *cwnd* at the end of slow-start for almost "
                "all buffer size values.",
                where="§V-A, Fig. 6(b)",
                derivation="'almost all': at least 80 % of the buffers (band conventions)",
            ),
        ),
        error_bars="ci95",
        notes=(
            "A 2 MB file (the run ends when it completes); only the slow-start phase is reported.",
            "Runs: 10 per buffer (the paper does not say how many it ran).",
            TIMING_NOTE,
        ),
    ),
    Experiment(
        name="lisa-shared-filesize",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 6 (c, d), §V-A",
        description="Shared bottleneck, buffers 9/17/30 pooled: completion time and retransmissions vs file size",
        x_name="file_size_kb",
        x_label="File size (KB)",
        x_values=FILE_SIZES_KB,
        quick_x_values=QUICK_FILE_SIZES_KB,
        definition=Definition(_file_run, axis="size_kb", fixed={"topology": "shared"}),
        panels=(FCT, RETX),
        checks=(
            Compare(
                "Coupling the slow start gains MPTCP completion time: LISA completes sooner than MPTCP wherever it "
                "is active.",
                "fct_s",
                left="lisa",
                op="<",
                right="mptcp",
                x_min=300,
                quote="Our evaluations show that coupling in slow-start not only provides gains for MPTCP",
                where="Abstract (§I, §VIII); shown by Fig. 6(c)",
                headline=True,
                derivation=ONE_SUBFLOW_UP_TO_200KB,
            ),
            Compare(
                "LISA retransmits less than MPTCP wherever it is active, which lowers completion times.",
                "retransmissions",
                left="lisa",
                op="<",
                right="mptcp",
                x_min=300,
                quote="By coupling the slow-start, LISA effectively reduces number of retransmissions resulting in "
                "lower completion times.",
                where="§VIII (§I); shown by Fig. 6(d)",
                headline=True,
                derivation=ONE_SUBFLOW_UP_TO_200KB,
            ),
            Ratio(
                "LISA completes up to 17 % sooner than MPTCP, at 300 KB.",
                "fct_s",
                left="lisa",
                right="mptcp",
                low=1 - 1.5 * 0.17,
                high=1 - 0.5 * 0.17,
                x_min=300,
                x_max=300,
                quote="the completion time is improved by up to 17% for the 300 Kbyte file",
                where="§V-A, Fig. 6(c)",
                derivation="'up to 17%' at the 300 KB file: a best-case gain in [0.5·17 %, 1.5·17 %] (band "
                "conventions), LISA/MPTCP in [0.745, 0.915] at 300 KB",
            ),
            Ratio(
                "LISA completes more than 10 % sooner than MPTCP for files up to 500 KB.",
                "fct_s",
                left="lisa",
                right="mptcp",
                low=0.0,
                high=0.9,
                x_min=300,
                x_max=500,
                quote="and by more than 10% for files up to 500 Kbyte",
                where="§V-A, Fig. 6(c)",
                derivation=f"'more than 10%': one-sided, LISA/MPTCP ≤ 0.9 (band conventions); "
                f"{ONE_SUBFLOW_UP_TO_200KB}",
            ),
            Equivalent(
                "Up to 200 KB LISA gives no gain: there is only one subflow.",
                "fct_s",
                left="lisa",
                right="mptcp",
                margin=0.10,
                x_max=200,
                quote="For small file sizes (up to 200 KByte), note that LISA does not provide any gains since there "
                "is only one subflow (i.e. LISA is not active yet).",
                where="§V-A, Fig. 6(c)",
                derivation="x ≤ 200: 'up to 200 KByte'; 'does not provide any gains' (LISA is not active: it is "
                f"MPTCP): {SIMILAR}",
            ),
            GapTrend(
                "Above 500 KB LISA's gain decreases with the file size as congestion avoidance weighs more.",
                "fct_s",
                left="lisa",
                right="mptcp",
                direction="falls",
                relative=True,
                x_min=500,
                quote="On the other hand, for file sizes larger than 500 Kbyte, as we increase the file size, we add "
                "more and more weight to the CA phase and the performance gain decreases.",
                where="§V-A, Fig. 6(c)",
                derivation="'as we increase the file size ... the performance gain decreases': LISA's relative gain "
                "(mptcp − lisa)/mptcp falls at every step from 500 KB on, no tolerance",
            ),
        ),
        runs=30,
        quick_runs=6,
        error_bars="ci95",
        notes=(POOLED_NOTE, TIMING_NOTE),
    ),
    Experiment(
        name="lisa-competing",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 7 (a), §V-A",
        description="Shared bottleneck with a competing Reno flow of the same size: its retransmissions vs file size",
        x_name="file_size_kb",
        x_label="File size (KB)",
        x_values=FILE_SIZES_KB,
        quick_x_values=QUICK_FILE_SIZES_KB,
        definition=Definition(_competing_run, axis="size_kb"),
        panels=(COMPETING_RETX, FCT),
        checks=(
            Compare(
                "The competing TCP flow has fewer retransmissions when the multipath transfer uses LISA.",
                "competing_retransmissions",
                left="lisa",
                op="<",
                right="mptcp",
                x_min=300,
                quote="The figure confirms that our intuition is indeed correct and the number of retransmitted "
                "packets experienced by the TCP flow is reduced with LISA.",
                where="§V-A, Fig. 7(a) (Abstract: 'but also for a concurrent TCP at the bottleneck')",
                headline=True,
                derivation=ONE_SUBFLOW_UP_TO_200KB,
            ),
            Compare(
                "MPTCP's uncoupled slow start harms the concurrent TCP flow: it retransmits more beside MPTCP than "
                "beside a TCP transfer.",
                "competing_retransmissions",
                left="mptcp",
                op=">",
                right="tcp",
                x_min=300,
                quote="we first identify the adverse effect of MPTCP's uncoupled slow-start on the performance of "
                "MPTCP itself as well as the concurrent TCP traffic",
                where="§VIII (Abstract, §I); the paper shows no figure of it",
                headline=True,
                derivation="the harm read against a regular TCP transfer in MPTCP's place (the `tcp` variant); "
                f"{ONE_SUBFLOW_UP_TO_200KB}",
            ),
        ),
        runs=30,
        quick_runs=6,
        error_bars="ci95",
        notes=(
            "The competing Reno flow (IW 10, SACK) goes from an extra host H (1 Gbit/s, 1 ms to Rc) to the client, "
            "transfers the same file size and starts U[0, 40 ms] after the multipath transfer.",
            POOLED_NOTE,
            TIMING_NOTE,
        ),
    ),
    Experiment(
        name="lisa-hetero-rtt",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 7 (b), §V-A",
        description="Shared 5 Mbit/s bottleneck, RTTs 200 ms (first path) and 20 ms, 500 KB: completion time vs buffer",
        x_name="buffer_pkts",
        x_label="Bottleneck queue (packets)",
        x_values=HETERO_BUFFERS,
        quick_x_values=QUICK_HETERO_BUFFERS,
        definition=Definition(_hetero_run, axis="buffer_pkts"),
        panels=(FCT,),
        checks=(
            Compare(
                "Giving packets to the shorter-RTT subflow costs LISA completion time at every buffer.",
                "fct_s",
                left="lisa",
                op=">",
                right="mptcp",
                quote="As expected, giving packets to the shorter-RTT flow reduced the overall efficiency, but with "
                "a very small difference, as shown in the Figure 7(b).",
                where="§V-A, Fig. 7(b)",
            ),
            Gap(
                "LISA's disadvantage with heterogeneous RTTs is marginal, in the order of one RTT of the long path.",
                "fct_s",
                left="lisa",
                right="mptcp",
                high=0.3,
                quote="because the disadvantage was marginal (in the order of one RTT)",
                where="§VIII; shown by Fig. 7(b)",
                headline=True,
                derivation="'in the order of one RTT': the long (first) path's 200 ms RTT, 'about v' ± 50 % (band "
                "conventions): at most 0.3 s at every buffer",
            ),
        ),
        error_bars="ci95",
        notes=(
            "Server.eth0-Rc 95 ms, Server.eth1-Rc 5 ms, Rc-Client 5 Mbit/s 5 ms: RTTs 200 and 20 ms, BDPs 83 and 8 "
            "packets. The join comes 3 x 200 ms after the first SYN.",
            "Runs: 10 per buffer (the paper does not say how many it ran).",
            TIMING_NOTE,
        ),
    ),
    Experiment(
        name="lisa-nonshared-hetero-rtt",
        paper=PAPER,
        stack="linux_3_14",
        figure="§V-A, non-shared heterogeneous RTTs (text only, no figure)",
        description="Two disjoint 5 Mbit/s bottlenecks, RTTs 200 ms (first path) and 20 ms, 500 KB: completion "
        "time vs buffer",
        x_name="buffer_pkts",
        x_label="Bottleneck queue on each path (packets)",
        x_values=HETERO_BUFFERS,
        quick_x_values=QUICK_HETERO_BUFFERS,
        definition=Definition(_nonshared_hetero_run, axis="buffer_pkts"),
        panels=(FCT, RETX),
        checks=(
            Compare(
                "With non-shared bottlenecks and heterogeneous RTTs LISA has a small disadvantage at every buffer.",
                "fct_s",
                left="lisa",
                op=">",
                right="mptcp",
                quote="As in the shared bottleneck scenario, we also tested heterogeneous RTT with 20 (second "
                "subflow) vs. 200 ms (first subflow) and found a small disadvantage of LISA.",
                where="§V-A (non-shared, no figure)",
            ),
            Gap(
                "LISA's disadvantage is less than 50 ms at every buffer.",
                "fct_s",
                left="lisa",
                right="mptcp",
                high=0.05,
                quote="This disadvantage is less than 50 ms for all buffer sizes (less than a quarter of the RTT of "
                "the long subflow).",
                where="§V-A (non-shared, no figure)",
                derivation="'less than 50 ms': one-sided at 0.05 s (band conventions) at every buffer ('for all "
                "buffer sizes')",
            ),
        ),
        error_bars="ci95",
        notes=(
            "The paper gives no file size and no buffers for this test, only its RTTs and 'As in the shared "
            "bottleneck scenario': Fig. 7(b)'s 500 KB and 5-92 packets. Server uplinks 5 Mbit/s, 99 ms and 9 ms one "
            "way, then 1 Gbit/s, 1 ms to the client: RTTs 200 and 20 ms. The join comes 3 x 200 ms after the first "
            "SYN.",
            "Runs: 10 per buffer (the paper does not say how many it ran).",
            TIMING_NOTE,
        ),
    ),
    Experiment(
        name="lisa-nonshared-buffer",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 8 (a, b), §V-A",
        description="Two disjoint 5 Mbit/s, 40 ms bottlenecks, long file: R_ss, sum of cwnd at last SS exit vs buffer",
        x_name="buffer_pkts",
        x_label="Bottleneck queue on each path (packets)",
        x_values=BUFFERS,
        quick_x_values=QUICK_BUFFERS,
        definition=Definition(_slow_start_run, axis="buffer_pkts", fixed={"topology": "nonshared"}),
        panels=(R_SS, CWND_SS),
        checks=(
            share(
                Compare(
                    "LISA lowers R_ss by limiting the overshoot, but only for a distinct set of buffer sizes.",
                    "r_ss",
                    left="lisa",
                    op="<",
                    right="mptcp",
                    criterion="significant",
                ),
                0.0,
                not_all=True,
                quote="We observe that the reduced aggression of LISA lower the number of retransmitted packets by "
                "limiting the overshoot. Note that this overshoot heavily depends on the queue size, thus the "
                "benefit only plays out for a distinct set of values.",
                where="§V-A, Fig. 8(a)",
                derivation="'only ... for a distinct set of values': lower beyond 2 standard errors at some buffers "
                "(at least one), not at all of them",
            ),
            Equivalent(
                "The total cwnd at the end of slow start shows no clear trend against MPTCP's.",
                "sum_cwnd_ss_exit_pkts",
                left="lisa",
                right="mptcp",
                margin=0.10,
                quote="The total *cwnd* at the end of SS, depicted in Figure 8(b), shows no clear trend.",
                where="§V-A, Fig. 8(b)",
                derivation=f"'no clear trend' of LISA against MPTCP read as about the same: {SIMILAR}",
            ),
        ),
        error_bars="ci95",
        notes=(
            "The grid 1..34 is the shared case's; the paper gives no range.",
            "A 2 MB file (the run ends when it completes); only the slow-start phase is reported.",
            "Runs: 10 per buffer (the paper does not say how many it ran).",
            TIMING_NOTE,
        ),
    ),
    Experiment(
        name="lisa-nonshared-filesize",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 8 (c), §V-A",
        description="Two disjoint bottlenecks, buffers 9/17/30 pooled: completion time vs file size",
        x_name="file_size_kb",
        x_label="File size (KB)",
        x_values=FILE_SIZES_KB,
        quick_x_values=QUICK_FILE_SIZES_KB,
        definition=Definition(_file_run, axis="size_kb", fixed={"topology": "nonshared"}),
        panels=(FCT, RETX),
        checks=(
            Equivalent(
                "With the buffers pooled, LISA's completion time shows no clear trend against MPTCP's.",
                "fct_s",
                left="lisa",
                right="mptcp",
                margin=0.10,
                quote="The same is true for the average completion time shown in Figure 8(c) when, as before, we "
                "used the low, medium and good case queue values",
                where="§V-A, Fig. 8(c)",
                derivation=f"'no clear trend' (the sentence before, of Fig. 8(b)) read as about the same: {SIMILAR}",
            ),
            Compare(
                "With non-shared bottlenecks LISA does not harm the completion time.",
                "fct_s",
                left="lisa",
                op="<",
                right="mptcp",
                tolerance=0.10,
                quote="Moreover, for the non-shared bottleneck scenario, we show that LISA does not harm",
                where="§VIII; shown by Fig. 8(c)",
                headline=True,
                derivation=NOT_HARM,
            ),
        ),
        runs=30,
        quick_runs=6,
        error_bars="ci95",
        notes=(POOLED_NOTE, TIMING_NOTE),
    ),
    Experiment(
        name="lisa-nonshared-filesize-b20",
        paper=PAPER,
        stack="linux_3_14",
        figure="Fig. 8 (c), second series (shown here as a panel 8(d)), §V-A",
        description="Two disjoint bottlenecks, buffer 20 packets: completion time vs file size",
        x_name="file_size_kb",
        x_label="File size (KB)",
        x_values=FILE_SIZES_KB,
        quick_x_values=QUICK_FILE_SIZES_KB,
        definition=Definition(
            _file_run, axis="size_kb", fixed={"topology": "nonshared", "buffer_pkts": FAVOURABLE_BUFFER_PKTS}
        ),
        panels=(FCT, RETX),
        checks=(
            Compare(
                "At the favourable buffer of 20 packets LISA's transfer time is consistently smaller than MPTCP's.",
                "fct_s",
                left="lisa",
                op="<",
                right="mptcp",
                x_min=300,
                criterion="significant",
                quote="As expected, we observe that the transfer time for LISA is consistently smaller.",
                where="§V-A, Fig. 8(c) (buffer 20)",
                derivation=f"{CONSISTENTLY}; {ONE_SUBFLOW_UP_TO_200KB}",
            ),
            Compare(
                "LISA does not harm transfer delay with non-shared bottlenecks.",
                "fct_s",
                left="lisa",
                op="<",
                right="mptcp",
                tolerance=0.10,
                quote="We conclude that, somewhat surprisingly, LISA does not harm transfer delay in the non-shared "
                "bottleneck case.",
                where="§V-A, Fig. 8(c) (buffer 20)",
                derivation=NOT_HARM,
            ),
            Compare(
                "For a favourable buffer LISA even provides gains with non-shared bottlenecks.",
                "fct_s",
                left="lisa",
                op="<",
                right="mptcp",
                x_min=300,
                quote="on the contrary, for favorable buffer sizes, LISA even provides gains.",
                where="§VIII; shown by Fig. 8(c) (buffer 20)",
                headline=True,
                derivation=ONE_SUBFLOW_UP_TO_200KB,
            ),
        ),
        error_bars="ci95",
        notes=(
            "The paper's text puts this series and the pooled one both in Fig. 8(c); here it is its own experiment.",
            "Runs: 10 per size (the paper does not say how many it ran).",
            TIMING_NOTE,
        ),
    ),
    _realnet_experiment(shared_lab=True),
    _realnet_experiment(shared_lab=False),
]
