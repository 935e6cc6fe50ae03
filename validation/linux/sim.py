"""The mpsim side: a scenario built from a :class:`~validation.linux.cells.Cell`, run over a few seeds.

The scenario uses the ``linux`` TCP profile and overrides only what the cell (or the rig's network)
implies; everything else is the profile's, so a change of the profile shows in the comparison:

* **Network.** The rig's only emulated link is the bottleneck (rate R, drop-tail pfifo, RTT/2 of
  delay per direction through the delay line); its access links are veth pairs without rate or
  delay, and the ACK direction is not rate-limited. Here: the ``shared_bottleneck`` /
  ``non_shared`` presets' networks with 10 Gbit/s, zero-delay access links, a bottleneck of delay
  RTT/2 each way and an unshaped (10 Gbit/s) reverse direction. The second path's longer RTT is
  an access delay of (RTT2 − RTT)/2 each way on its first link, as the delay line adds it per path.
* **Buffer.** ``buffer_pkts`` packets waiting (mpsim's drop-tail convention); the rig gets B + 1
  because its pfifo also holds the packet being sent.
* **Send buffer.** The rig's ``--bulk`` gives every socket, each MPTCP subflow too, a send buffer of 8 MiB
  (``tcp_wmem[1]``), so Linux's scheduler may queue data on a subflow far beyond its window; the scenario sets
  ``send_buffer = "8388608B"`` (for a transfer of at most 8 MB it bounds nothing else).
* **Token bucket.** The rig's bottleneck is Linux's ``tbf`` with a bucket of two frames (3 028 bytes) in
  front of the pfifo, on a veth that takes no time: after an idle period two packets leave back to back, so a
  burst finds room for B + 3 packets where a link has B + 1. The shaped direction has ``burst = "3028B"`` and
  ``rate_limiter = true`` (mpsim's token-bucket link, docs/scenarios.md): a packet arrives its delay after its
  release.
* **Transmission time.** The rig's delay line adds each packet's transmission time at R, ``(len + 14)·8/R``,
  and keeps order per path only; it sits at the router next to the server, so a download's packets take it
  before the tbf and an upload's after it, and a short packet of one path can overtake a full-size one of the
  other (validation/linux/diagnosis.md item 36). The links into ``D0`` (both directions) have
  ``txtime_rate`` = R, which holds each packet so, in order per route.
* **Delay line.** The rig's delay is a user-space delay line, which holds each packet a little longer than
  it is set to: its README measures the hold-time error over 570 000 packets at a mean of 52 µs (99.90 %
  under 200 µs, never reordering a path). The bottleneck link has ``jitter = "52us"`` in both directions
  (an exponential extra delay of that mean, in order: docs/scenarios.md); the exponential has the mean but
  a longer tail (97.9 % under 200 µs), so mpsim's runs differ from seed
  to seed as the rig's do from run to run, and each cell is run with the 24 ``DEFAULT_SEEDS`` and compared
  by its mean.
* **MSS.** The rig runs at the kernel's default MTU of 1500: 1448 payload bytes per TCP segment
  with timestamps, 1424 per MPTCP data segment (the DSS option takes 24 bytes). mpsim's wire size
  is MSS + 40 + 12 (timestamps), + 20 on MPTCP data segments (its DSS), so a TCP segment is
  1500 bytes on both sides and an MPTCP one 1496 against Linux's 1500.
* **Ethernet framing**: the rig's tbf and delay line count 14 bytes per frame; the scenario sets
  the profile's ``framing_bytes = 14``, so a full-size TCP segment takes 1514 bytes of the
  bottleneck on both sides (an MPTCP one 1510 against Linux's 1514: mpsim's DSS is 4 bytes shorter).
* **Direction.** ``up``: the connecting client (the multi-homed ``S0``) sends to ``D0``; ``down``:
  the client connects and ``D0`` sends once it has accepted (``initiator = "receiver"``), the
  bottleneck shaping the direction towards the client as the rig's does.
* **Congestion control** ``reno`` or ``cubic``, per subflow and uncoupled for MPTCP (upstream Linux
  has no coupled congestion control); everything else (IW 10, SACK, PRR, delayed ACKs with
  quick-ACK, RTO bounds, Linux HyStart with CUBIC) is the profile's.
* **MPTCP.** Two subflows, one per client address (``path_manager = "kernel"`` with the rig's ``ip mptcp
  limits`` of 8 and 8, the client's second address its endpoint), the first
  from path 1 as the kernel's in-kernel path manager does; when the second joins and sends, and
  the scheduler (``linger``, upstream Linux's ``mptcp_subflow_get_send``), are the ``linux``
  profile's own (``tcp.mptcp_join = "linux"``): nothing is set by hand.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

import mpsim
from mpsim.topologies import LinkDirection, Network, NonShared, SharedBottleneck
from validation.linux.cells import Cell, CellError

TCP_MSS_BYTES = 1448
"""Linux's MSS at MTU 1500 with timestamps: 1500 − 20 (IP) − 20 (TCP) − 12 (timestamps)."""
MPTCP_MSS_BYTES = 1424
"""Payload of an MPTCP data segment at MTU 1500: 24 more option bytes for the DSS."""
FRAMING_BYTES = 14
"""What the rig's bottleneck counts per packet beyond the IP packet: an Ethernet header."""
RIG_SEND_BUFFER_BYTES = 8_388_608
"""The rig's ``--bulk``: ``tcp_wmem[1]`` of 8 MiB, every socket's (every subflow's) send buffer from the start."""
RIG_BURST_BYTES = 2 * (1500 + FRAMING_BYTES)
"""The rig's tbf bucket: two frames (its README: a one-frame bucket runs 1.3 % slow)."""
FAST_ACCESS_RATE = "10Gbps"
"""The rig's veth links have no rate limit: fast enough to add nothing measurable (1.2 µs a packet)."""
RIG_JITTER = "52us"
"""The rig's delay line: the mean of its hold-time error (its README, 570 000 packets)."""
DEFAULT_SEEDS = tuple(range(1, 25))
"""One mpsim run per seed: three times the reference's eight kernel runs a cell, so that mpsim's mean is
estimated more closely than the kernel's."""
BOTTLENECK_LINKS = {"up": ("R1-R2", "A1-B1", "A2-B2"), "down": ("R2-R1", "B1-A1", "B2-A2")}
"""The data direction of the presets' bottlenecks (shared; separate), by the cell's direction."""
DURATION = "60s"


def mss_bytes(cell: Cell) -> int:
    return MPTCP_MSS_BYTES if cell.proto == "mptcp" else TCP_MSS_BYTES


def _ms(value: float) -> str:
    return f"{value:.6f}ms"


def network(cell: Cell) -> Network:
    """The rig's network for the cell: the preset's, with the bottleneck shaping the data direction
    (towards ``D0`` for an upload, towards the client ``S0`` for a download) and the ACK direction
    unshaped."""
    rate = round(cell.rate_mbit * 1e6)
    extra_ms = (cell.path2_rtt_ms - cell.rtt_ms) / 2
    if extra_ms < 0:
        raise CellError(f"cell.rtt2_ms: must not be below rtt_ms ({cell.rtt_ms:g}), got {cell.rtt2_ms:g}")
    settings: dict[str, Any] = {
        "paths": 2,
        "bottleneck": f"{rate}bps",
        "delay": _ms(cell.rtt_ms / 2),
        "buffer": f"{cell.buffer_pkts}pkt",
        "access": FAST_ACCESS_RATE,
        "access_delay": "0s",
        "path_delays": ["0s", _ms(extra_ms)],
    }
    preset = SharedBottleneck if cell.variant == "shared" else NonShared
    net = preset.model_validate(settings).expand()
    bottlenecks = {"R1", "A1", "A2"}
    fast = LinkDirection(rate=FAST_ACCESS_RATE)
    jitter = LinkDirection(jitter=RIG_JITTER).jitter
    shaped = LinkDirection(
        rate=f"{rate}bps", buffer=f"{cell.buffer_pkts}pkt", burst=f"{RIG_BURST_BYTES}B", rate_limiter=True
    )
    links = [
        (
            link.model_copy(update={"reverse": fast, "burst": shaped.burst, "rate_limiter": True, "jitter": jitter})
            if cell.direction == "up"
            else link.model_copy(update={"rate": fast.rate, "reverse": shaped, "jitter": jitter})
        )
        if link.from_ in bottlenecks and link.rate == rate
        else link.model_copy(update={"txtime_rate": rate})
        if "D0" in (link.from_, link.to)
        else link
        for link in net.links
    ]
    return net.model_copy(update={"links": links})


def tcp_options(cell: Cell) -> dict[str, Any]:
    """A flow's TCP options as the rig's sockets have them: the `linux` profile, the cell's MSS, Ethernet
    framing and the rig's send buffer."""
    return {
        "profile": "linux",
        "mss": mss_bytes(cell),
        "framing_bytes": FRAMING_BYTES,
        "send_buffer": f"{RIG_SEND_BUFFER_BYTES}B",
    }


def scenario(cell: Cell) -> mpsim.Scenario:
    """The mpsim scenario of a cell."""
    net = network(cell)
    flow: dict[str, Any] = {"name": "xfer", "size": f"{cell.size_bytes}B", "cc": cell.cc, "tcp": tcp_options(cell)}
    client: Any = "S0.1" if cell.proto == "tcp" else ["S0.1", "S0.2"]
    if cell.direction == "up":
        flow |= {"src": client, "dst": "D0"}
    else:
        flow |= {"src": "D0", "dst": client, "initiator": "receiver"}
    flow["type"] = cell.proto
    if cell.proto == "mptcp":
        # The rig's client: `ip mptcp limits set subflow 8 add_addr_accepted 8` and its second address
        # as a `subflow` endpoint; the server announces nothing.
        flow |= {"path_manager": "kernel", "kernel_limits": {"subflows": 8, "add_addr_accepted": 8}}
    return mpsim.Scenario(
        duration=DURATION,
        hosts=net.hosts,
        routers=net.routers,
        links=net.links,
        addresses=net.addresses,
        flows=[flow],
        stop_when_complete=["xfer"],
    )


@dataclass(frozen=True)
class SimRun:
    """What one mpsim run of a cell reports, in the rig's terms."""

    seed: int
    fct_s: float
    """First SYN to the ACK of the last byte (the rig's ``fct_ack_s``)."""
    retrans_segs: int
    timeouts: int
    fast_recoveries: int
    loss_probes: int
    """Tail loss probes: none in mpsim (no RACK-TLP)."""
    drops: int
    """Packets dropped at the bottleneck(s)."""
    path2_share: float
    """Share of the data bytes delivered over the second path."""


def _counters(res: mpsim.Results) -> list[dict[str, Any]]:
    """The core's per-(sub)flow TCP counters of the transfer."""
    flows = [f for f in res.raw["tcp_flows"] if f["name"] == "xfer"]
    for c in res.raw["mptcp_connections"]:
        flows += [s["flow"] for s in c["subflows"]]
    return flows


def run(cell: Cell, seed: int) -> SimRun:
    res = mpsim.run(scenario(cell), seed=seed)
    row = res.flows.to_pylist()[0]
    if row["fct_s"] is None:
        raise RuntimeError(f"{cell.key}: the transfer did not complete within {DURATION} (seed {seed})")
    flows = _counters(res)
    sent = [f["bytes_delivered"] for f in flows]
    bottlenecks = BOTTLENECK_LINKS[cell.direction]
    drops = sum(link["dropped_overflow_pkts"] for link in res.raw["links"] if link["name"] in bottlenecks)
    return SimRun(
        seed=seed,
        fct_s=float(row["fct_s"]),
        retrans_segs=int(row["retransmissions"]),
        timeouts=int(row["rto_count"]),
        fast_recoveries=sum(int(f["fast_recoveries"]) for f in flows),
        loss_probes=0,
        drops=int(drops),
        path2_share=sum(sent[1:]) / sum(sent) if len(sent) > 1 and sum(sent) else 0.0,
    )


def mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else float("nan")
