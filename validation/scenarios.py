"""One description per validation scenario, and the grid of them.

A :class:`Scenario` says everything both simulators need to build the same network: the topology and
its rates, delays and buffers, the measured transfer (size, start), the background traffic, and the TCP
settings the scenario departs from ns-3.44's defaults with (congestion control, SACK, delayed-ACK count).
Both builders (``validation.ns3_side`` and ``validation.mpsim_side``) read only this description.

This module imports neither simulator, so that the ns-3 process and the mpsim process both can use it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

MS = 1_000_000
S = 1_000_000_000

Topology = Literal["dumbbell", "parking_lot"]
CongestionControl = Literal["new_reno", "cubic"]
Phase = Literal["alone", "early", "late"]

FILE_SIZES_PKTS = (50, 100, 200, 400, 700, 1000)
BUFFERS_PKTS = (20, 47, 100)
PHASES: tuple[Phase, ...] = ("alone", "early", "late")

EARLY_START_NS = 300 * MS
"""Start of the measured transfer while the background TCP flow (started at 0) is still in slow start:
its handshake ends at 0.1 s and its window has grown for two round trips, far from filling the
bottleneck's 5 Mbit/s × 100 ms (45 packets) plus the smallest buffer."""

LATE_START_NS = 8 * S
"""Start of the measured transfer once the background TCP flow has left slow start (or, with the
100-packet buffer, where it never loses a packet, sits at its 128 KiB receive window)."""

TIME_LIMIT_NS = 60 * S
"""Both simulators stop here if the measured transfer has not completed."""


@dataclass(frozen=True)
class Variant:
    """TCP settings of every flow of a scenario; everything else is ns-3.44's default."""

    name: str
    cc: CongestionControl = "new_reno"
    sack: bool = True
    delack_segments: int = 2


VARIANTS = (
    Variant("newreno"),
    Variant("cubic", cc="cubic"),
    Variant("nosack", sack=False),
    Variant("delack1", delack_segments=1),
)
"""ns-3's default TCP (NewReno with SACK, PRR, delayed ACK every 2 segments), CUBIC, SACK off, and an ACK
for every segment."""


@dataclass(frozen=True)
class Scenario:
    """One row of the validation grid.

    ``dumbbell``: the measured sender S1, the background TCP sender S2 and the UDP sender S3 reach router
    R1 over access links; R1-R2 is the bottleneck; R2 reaches D1, D2, D3 over access links.

    ``parking_lot``: routers R1-R2-R3, two bottlenecks R1-R2 and R2-R3 of the same rate, delay and buffer;
    the measured flow S1→D1 crosses both, a long-lived TCP flow S2→D2 crosses the first only
    (R1→R2) and another S3→D3 the second only (R2→R3).

    Every link is duplex with the same rate, delay and drop-tail queue both ways; a buffer counts the
    packets waiting, not the one being sent. Sizes are TCP payload; the measured transfer is
    ``file_pkts`` full segments.
    """

    name: str
    topology: Topology
    file_pkts: int
    buffer_pkts: int
    phase: Phase
    """``alone``: no background; ``early``/``late``: started while the background TCP is in slow start or
    after (the parking lot's cross flows start at 0 and the measured one at ``LATE_START_NS``)."""
    variant: Variant
    short_start_ns: int
    background_tcp: bool
    udp_rate_bps: int
    """Constant-rate UDP beside the background TCP flow (0: none); wire rate, IP/UDP/PPP headers included."""
    udp_packet_bytes: int = 1000
    """Wire size of a UDP packet: 970 bytes of payload + 8 UDP + 20 IP + 2 PPP."""
    bottleneck_bps: int = 5_000_000
    bottleneck_delay_ns: int = 30 * MS
    access_bps: int = 100_000_000
    access_delay_ns: int = 10 * MS
    access_buffer_pkts: int = 100
    """ns-3's default PointToPoint device queue (`DropTailQueue` 100 packets), mpsim's default buffer."""
    mss_bytes: int = 1400
    initial_cwnd_segments: int = 10
    background_start_ns: int = 0
    time_limit_ns: int = TIME_LIMIT_NS
    seed: int = 1

    @property
    def file_bytes(self) -> int:
        return self.file_pkts * self.mss_bytes

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def dumbbell(file_pkts: int, buffer_pkts: int, phase: Phase, variant: Variant) -> Scenario:
    background = phase != "alone"
    start = {"alone": 0, "early": EARLY_START_NS, "late": LATE_START_NS}[phase]
    return Scenario(
        name=f"db-{variant.name}-{phase}-b{buffer_pkts}-f{file_pkts}",
        topology="dumbbell",
        file_pkts=file_pkts,
        buffer_pkts=buffer_pkts,
        phase=phase,
        variant=variant,
        short_start_ns=start,
        background_tcp=background,
        udp_rate_bps=500_000 if background else 0,
    )


def parking_lot(file_pkts: int, buffer_pkts: int, variant: Variant) -> Scenario:
    return Scenario(
        name=f"pl-{variant.name}-b{buffer_pkts}-f{file_pkts}",
        topology="parking_lot",
        file_pkts=file_pkts,
        buffer_pkts=buffer_pkts,
        phase="late",
        variant=variant,
        short_start_ns=LATE_START_NS,
        background_tcp=True,
        udp_rate_bps=0,
    )


def grid() -> list[Scenario]:
    """The whole grid: the dumbbell (file size × buffer × phase × variant), then the parking lot."""
    rows = [dumbbell(f, b, p, v) for v in VARIANTS for p in PHASES for b in BUFFERS_PKTS for f in FILE_SIZES_PKTS]
    rows += [parking_lot(f, b, v) for v in VARIANTS[:2] for b in (20, 100) for f in (100, 400, 1000)]
    return rows


def by_name(scenarios: list[Scenario]) -> dict[str, Scenario]:
    return {s.name: s for s in scenarios}
