"""Reproductions of the LISA paper (Barik et al., "LISA: A Linked Slow-Start Algorithm for MPTCP",
ICC 2016), §IV-A / §V-A, Figs. 6–8: a multi-homed server sends to a client over two subflows.

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
averages 10 runs of each buffer, and a quick mode with 6 runs averages 2 of each.

CSS keeps its paper's defaults (con_ssthresh 65 535 B, 44.9 packets of 1460 B; α = 1.5; 2·MSS cap);
GSAM gets the path's bottleneck rate (5 Mbit/s) and buffer (the run's B). docs/reproduction.md compares
each experiment with the paper.
"""

from __future__ import annotations

from collections.abc import Callable

from mpsim.experiments.base import (
    KB,
    MS,
    RENO,
    Definition,
    Experiment,
    Panel,
    S,
    address,
    drop_tail,
    duplex,
    run_random,
    scenario_of,
    transfer,
)
from mpsim.experiments.claims import Compare, Ratio
from mpsim.experiments.stacks import IP_TCP_HEADER_BYTES, LINUX_3_14_LIA, LINUX_3_14_LISA, gsam_on_path, linux_3_14
from mpsim.scenario import CongestionControl, Scenario, SlowStart
from mpsim.topologies import Link, Network

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


def nonshared(buffer_pkts: int) -> Network:
    """Fig. 4: Server.eth_i → R_i over a 5 Mbit/s, 19 ms server uplink with a drop-tail queue of
    ``buffer_pkts`` (the two bottlenecks, one per subflow), then R_i → Client at 1 Gbit/s, 1 ms."""
    links = []
    addresses = []
    for i, nic in ((1, "eth0"), (2, "eth1")):
        uplink = _nic("Server", nic, f"R{i}", BOTTLENECK_BPS, BOTTLENECK_DELAY_NS, queue_out=buffer_pkts)
        links += [uplink, duplex(f"R{i}", "Client", ACCESS_BPS, ACCESS_DELAY_NS)]
        addresses.append(address(f"Server.{nic}", uplink))
    return Network(hosts=["Server", "Client"], routers=["R1", "R2"], links=links, addresses=addresses)


# ---------------------------------------------------------------------------------------------- runs


def _gsam(net: Network, buffer_pkts: int) -> SlowStart:
    """GSAM's K (its authors' reading) from the first subflow's path (Server.eth0 → … → Client) and its
    bottleneck, the path's slowest link."""
    names = {link.forward_name for link in net.links}
    route = ["Server.eth0-Rc", "Rc-Client"] if "Rc-Client" in names else ["Server.eth0-R1", "R1-Client"]
    rate = min(link.rate for link in net.links if link.forward_name in route)
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


R_SS = Panel("r_ss", "Retransmissions before the last subflow leaves slow start, R_ss (packets)")
CWND_SS = Panel("sum_cwnd_ss_exit_pkts", "Sum of cwnd when the last subflow leaves slow start (packets)")
FCT = Panel("fct_s", "Mean completion time (s)")
RETX = Panel("retransmissions", "Retransmissions, R (packets)")
COMPETING_RETX = Panel("competing_retransmissions", "Retransmissions of the competing TCP flow (packets)")

POOLED_NOTE = (
    "Buffers 9, 17 and 30 packets are pooled: run r uses [9, 17, 30][(r - 1) mod 3], "
    "so each point is the mean of 10 runs of each buffer (2 of each in quick mode)."
)
TIMING_NOTE = (
    "Runs differ only in their start (U[0, 10 ms]) and join time (second SYN 3 RTT x (1 + U[-0.25, 0.25]) after "
    "the first), standing in for the emulator's timing noise."
)

EXPERIMENTS = [
    Experiment(
        name="lisa-motivation",
        paper=PAPER,
        stack="linux_3_14",
        figure="Figs. 1 and 2, §II",
        description="300 KB over a shared 2.5 Mbit/s, 70 ms bottleneck with 2 and 3 subflows: retransmissions, "
        "completion time and the cwnd of each subflow",
        x_name="subflows",
        x_label="Number of subflows",
        x_values=(2, 3),
        quick_x_values=(2, 3),
        definition=Definition(_motivation_run, axis="subflows", patches={"tcp": {"cc": "cubic"}}),
        panels=(RETX, FCT),
        checks=(
            Compare(
                "TCP (CUBIC) completes the 300 KB transfer about 50 ms earlier than MPTCP, whose second subflow's "
                "join overshoots and costs more retransmissions.",
                "fct_s",
                left="tcp",
                op="<",
                right="mptcp",
                x_max=2,
            ),
            Compare(
                "TCP (CUBIC) completes the 300 KB transfer about 50 ms earlier than MPTCP, whose second subflow's "
                "join overshoots and costs more retransmissions.",
                "retransmissions",
                left="mptcp",
                op=">",
                right="tcp",
                x_max=2,
            ),
            Compare(
                "LISA retransmits less than MPTCP, and more so with 3 subflows, whose overshoot is larger.",
                "retransmissions",
                left="lisa",
                op="<",
                right="mptcp",
            ),
        ),
        trace_x=(2, 3),
        quick_runs=2,
        notes=(
            "Buffer 15 packets (the BDP; not given). All subflows leave on Server.eth0 (ndiffports) and join "
            "together 3 RTTs after the first SYN, as footnote 4 allows; the bottleneck is the client's downlink.",
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
            ),
            Compare(
                "Below 8 packets the first subflow leaves slow start before the join, and LISA's R_ss is like MPTCP's.",
                "r_ss",
                left="lisa",
                op="≈",
                right="mptcp",
                tolerance=0.2,
                x_max=7,
                criterion="significant",
            ),
            Compare(
                "LISA has a larger total cwnd at the end of slow start for almost all buffer sizes.",
                "sum_cwnd_ss_exit_pkts",
                left="lisa",
                op=">",
                right="mptcp",
            ),
        ),
        notes=(
            "A 2 MB file (the run ends when it completes); only the slow-start phase is reported.",
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
            Ratio(
                "LISA completes up to 17 % sooner than MPTCP (300 KB), and more than 10 % sooner for files up to "
                "500 KB.",
                "fct_s",
                left="lisa",
                right="mptcp",
                low=0.8,
                high=0.92,
                x_min=300,
                x_max=500,
            ),
            Compare(
                "Up to 200 KB LISA gives no gain: there is only one subflow.",
                "fct_s",
                left="lisa",
                op="≈",
                right="mptcp",
                tolerance=0.05,
                x_max=200,
            ),
            Ratio(
                "Above 500 KB the gain decreases as congestion avoidance weighs more.",
                "fct_s",
                left="lisa",
                right="mptcp",
                low=0.9,
                high=1.02,
                x_min=600,
            ),
        ),
        runs=30,
        quick_runs=6,
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
            ),
        ),
        runs=30,
        quick_runs=6,
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
        x_values=(5, 10, 20, 30, 40, 50, 60, 70, 83, 92),
        quick_x_values=(5, 20, 50, 92),
        definition=Definition(_hetero_run, axis="buffer_pkts"),
        panels=(FCT,),
        checks=(
            Ratio(
                "Giving packets to the shorter-RTT subflow costs LISA a little completion time, a very small "
                "difference.",
                "fct_s",
                left="lisa",
                right="mptcp",
                low=1.0,
                high=1.05,
            ),
        ),
        notes=(
            "Server.eth0-Rc 95 ms, Server.eth1-Rc 5 ms, Rc-Client 5 Mbit/s 5 ms: RTTs 200 and 20 ms, BDPs 83 and 8 "
            "packets. The join comes 3 x 200 ms after the first SYN.",
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
        claims=(
            "LISA lowers R_ss by limiting the overshoot, but only for a distinct set of buffer sizes.",
            "The total cwnd at the end of slow start shows no clear trend.",
        ),
        notes=(
            "The grid 1..34 is the shared case's; the paper gives no range.",
            "A 2 MB file (the run ends when it completes); only the slow-start phase is reported.",
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
            Compare(
                "With the buffers pooled, LISA's completion time shows no clear trend against MPTCP's.",
                "fct_s",
                left="lisa",
                op="≈",
                right="mptcp",
                tolerance=0.05,
                criterion="significant",
            ),
        ),
        runs=30,
        quick_runs=6,
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
            ),
            Compare(
                "LISA does not harm transfer delay with non-shared bottlenecks.",
                "fct_s",
                left="lisa",
                op="<",
                right="mptcp",
                tolerance=0.02,
            ),
        ),
        notes=(
            "The paper's text puts this series and the pooled one both in Fig. 8(c); here it is its own experiment.",
            TIMING_NOTE,
        ),
    ),
]
