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
* **MSS.** The rig runs at the kernel's default MTU of 1500: 1448 payload bytes per TCP segment
  with timestamps, 1424 per MPTCP data segment (the DSS option takes 24 bytes). mpsim's wire size
  is MSS + 40 + 12 (timestamps), + 20 on MPTCP data segments (its DSS), so a TCP segment is
  1500 bytes on both sides and an MPTCP one 1496 against Linux's 1500.
* **Ethernet framing** (14 bytes per frame, which the rig's tbf and delay line count) cannot be
  expressed in the ``linux`` profile: every full-size packet crosses the bottleneck 14/1514 =
  0.92 % (MPTCP: 18/1514 = 1.2 %) faster in mpsim. :func:`framing_rate_bps` gives the rate at
  which mpsim's packets take as long as Linux's frames; ``--framing-equivalent-rate`` uses it, to
  measure what the missing framing costs.
* **Congestion control** ``reno`` or ``cubic``, per subflow and uncoupled for MPTCP (upstream Linux
  has no coupled congestion control); everything else (IW 10, SACK, PRR, delayed ACKs with
  quick-ACK, RTO bounds, Linux HyStart with CUBIC) is the profile's.
* **MPTCP.** Two subflows, one per client address (``fullmesh`` over the two paths), the first
  from path 1 as the kernel's in-kernel path manager does; the second sends its first data when
  Linux's does (:func:`join_delay_ms`, measured); the ``linger`` scheduler, upstream Linux's default
  (``mptcp_subflow_get_send``), which queues data in a subflow beyond its window.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

import mpsim
from mpsim.topologies import LinkDirection, Network, NonShared, SharedBottleneck
from validation.linux.cells import Cell, CellError

MTU_BYTES = 1500
"""The rig's MTU (the kernel's default)."""
TCP_MSS_BYTES = 1448
"""Linux's MSS at MTU 1500 with timestamps: 1500 − 20 (IP) − 20 (TCP) − 12 (timestamps)."""
MPTCP_MSS_BYTES = 1424
"""Payload of an MPTCP data segment at MTU 1500: 24 more option bytes for the DSS."""
ETHERNET_HEADER_BYTES = 14
MPSIM_MPTCP_DSS_BYTES = 20
"""mpsim's DSS option on a data segment (docs/algorithms.md, MPTCP option bytes)."""
FAST_ACCESS_RATE = "10Gbps"
"""The rig's veth links have no rate limit: fast enough to add nothing measurable (1.2 µs a packet)."""
DEFAULT_SEEDS = (1, 2, 3)
BOTTLENECK_LINKS = ("R1-R2", "A1-B1", "A2-B2")
"""The data direction of the presets' bottlenecks (shared; separate)."""
DURATION = "60s"


def join_delay_ms(cell: Cell) -> float:
    """mpsim's ``join_delay`` that starts the second subflow's data when Linux's starts.

    Measured in a capture (docs/validation.md): the client's in-kernel path manager sends the
    MP_JOIN SYN once the connection is fully established, which it learns from the server's first
    data-level ACK, one RTT of path 1 after its own establishment; the joined subflow then sends
    data only after the server has acknowledged its third ACK (the fourth packet of MP_JOIN), one
    RTT of path 2 after the join's handshake. mpsim sends on a joined subflow as soon as its
    handshake is over, so the whole wait, RTT1 + RTT2, goes into ``join_delay``: the SYN leaves one
    RTT2 later than Linux's, the first data at the same time.
    """
    return cell.rtt_ms + cell.path2_rtt_ms


def mss_bytes(cell: Cell) -> int:
    return MPTCP_MSS_BYTES if cell.proto == "mptcp" else TCP_MSS_BYTES


def mpsim_wire_bytes(cell: Cell) -> int:
    """Bytes a full-size data segment occupies on mpsim's bottleneck (``linux`` profile)."""
    return mss_bytes(cell) + 52 + (MPSIM_MPTCP_DSS_BYTES if cell.proto == "mptcp" else 0)


def framing_rate_bps(cell: Cell) -> int:
    """The bottleneck rate at which mpsim's full-size segment takes the time Linux's Ethernet frame
    (MTU + 14 bytes) takes at the cell's rate."""
    frame = MTU_BYTES + ETHERNET_HEADER_BYTES
    return round(cell.rate_mbit * 1e6 * mpsim_wire_bytes(cell) / frame)


def _ms(value: float) -> str:
    return f"{value:.6f}ms"


def network(cell: Cell, rate_bps: int | None = None) -> Network:
    """The rig's network for the cell: the preset's, with an unshaped ACK direction."""
    rate = round(cell.rate_mbit * 1e6) if rate_bps is None else rate_bps
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
    links = [
        link.model_copy(update={"reverse": LinkDirection(rate=FAST_ACCESS_RATE)})
        if link.from_ in bottlenecks and link.rate == rate
        else link
        for link in net.links
    ]
    return net.model_copy(update={"links": links})


def scenario(cell: Cell, rate_bps: int | None = None) -> mpsim.Scenario:
    """The mpsim scenario of a cell (``rate_bps`` replaces the bottleneck rate, e.g. by
    :func:`framing_rate_bps`)."""
    if cell.direction != "up":
        raise CellError(
            f"cell.direction: mpsim models sender-initiated transfers only, got {cell.direction!r}, allowed: up"
        )
    net = network(cell, rate_bps)
    tcp = {"profile": "linux", "mss": mss_bytes(cell)}
    flow: dict[str, Any] = {"name": "xfer", "size": f"{cell.size_bytes}B", "dst": "D0", "cc": cell.cc, "tcp": tcp}
    if cell.proto == "tcp":
        flow |= {"type": "tcp", "src": "S0.1"}
    else:
        flow |= {
            "type": "mptcp",
            "src": ["S0.1", "S0.2"],
            "join_delay": _ms(join_delay_ms(cell)),
            "scheduler": "linger",
        }
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


def run(cell: Cell, seed: int, rate_bps: int | None = None) -> SimRun:
    res = mpsim.run(scenario(cell, rate_bps), seed=seed)
    row = res.flows.to_pylist()[0]
    if row["fct_s"] is None:
        raise RuntimeError(f"{cell.key}: the transfer did not complete within {DURATION} (seed {seed})")
    flows = _counters(res)
    sent = [f["bytes_delivered"] for f in flows]
    drops = sum(link["dropped_overflow_pkts"] for link in res.raw["links"] if link["name"] in BOTTLENECK_LINKS)
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
