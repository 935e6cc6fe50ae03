"""The grid: one description per cell, shared by the kernel rig and the mpsim scenario.

A :class:`Cell` says everything both sides need: the topology variant, the bottleneck rate, the two
paths' round-trip times, the bottleneck buffer, the transfer size, the protocol (single-path TCP or
2-subflow MPTCP), the congestion control, the direction and how many runs. The rig's options
(:mod:`validation.linux.rig`) and the mpsim scenario (:mod:`validation.linux.sim`) are both built
from it, so the two sides cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal, TypeVar

Variant = Literal["shared", "separate"]
Proto = Literal["tcp", "mptcp"]
CcName = Literal["reno", "cubic", "bbr"]
Direction = Literal["up", "down"]

VARIANTS: tuple[Variant, ...] = ("shared", "separate")
PROTOS: tuple[Proto, ...] = ("tcp", "mptcp")
CCS: tuple[CcName, ...] = ("reno", "cubic", "bbr")
DIRECTIONS: tuple[Direction, ...] = ("up", "down")

GRID_SIZES_BYTES = (70_000, 280_000, 700_000, 1_400_000)
"""Transfer sizes of the grid: 50, 200, 500 and 1000 segments of 1400 bytes."""
GRID_RATE_MBIT = 5.0
GRID_RTT_MS = 100.0
GRID_SEPARATE_RTT2_MS = 200.0
"""Round-trip time of the second path in the ``separate`` variant (the first keeps 100 ms)."""
GRID_BUFFER_PKTS = 47
"""Bottleneck buffer as mpsim counts it (packets waiting, the one on the wire not counted): the BDP
of 5 Mbit/s × 100 ms in 1400-byte segments, as in the CSS paper."""
GRID_RUNS = 10
GRID_CCS: tuple[CcName, ...] = ("reno", "cubic")
"""The congestion controls of the validation and wide grids (BBR has its own, :func:`bbr_grid`)."""


class CellError(ValueError):
    """A cell that neither side can run: names the field, the value and what is allowed."""


T = TypeVar("T")


def from_fields(cls: type[T], d: dict[str, Any], what: str) -> T:
    """``cls(**d)`` for a dataclass, a field it does not have refused by name (``what``: the record, for the
    message)."""
    fields = set(cls.__dataclass_fields__)  # type: ignore[attr-defined]
    unknown = set(d) - fields
    if unknown:
        raise CellError(f"{what}: unknown field(s) {sorted(unknown)} (allowed: {sorted(fields)})")
    return cls(**d)


@dataclass(frozen=True)
class Cell:
    """One scenario of the grid, in the terms both sides share.

    ``buffer_pkts`` counts packets waiting at the bottleneck, not the one being transmitted (mpsim's
    and ns-3's convention); the rig's pfifo also holds the packet in transmission, so it gets
    ``buffer_pkts + 1``. ``rtt2_ms`` is the second path's base RTT (``None``: the same as the first).
    """

    variant: Variant
    proto: Proto
    cc: CcName
    size_bytes: int
    rate_mbit: float = GRID_RATE_MBIT
    rtt_ms: float = GRID_RTT_MS
    rtt2_ms: float | None = None
    buffer_pkts: int = GRID_BUFFER_PKTS
    direction: Direction = "up"
    runs: int = GRID_RUNS

    def __post_init__(self) -> None:
        _allowed("variant", self.variant, VARIANTS)
        _allowed("proto", self.proto, PROTOS)
        _allowed("cc", self.cc, CCS)
        _allowed("direction", self.direction, DIRECTIONS)
        _positive("size_bytes", self.size_bytes)
        _positive("rate_mbit", self.rate_mbit)
        _positive("rtt_ms", self.rtt_ms)
        if self.rtt2_ms is not None:
            _positive("rtt2_ms", self.rtt2_ms)
        _positive("buffer_pkts", self.buffer_pkts)
        _positive("runs", self.runs)

    @property
    def path2_rtt_ms(self) -> float:
        return self.rtt_ms if self.rtt2_ms is None else self.rtt2_ms

    @property
    def key(self) -> str:
        """A name that identifies the cell in the reference file and in the table."""
        rtts = f"{self.rtt_ms:g}" if self.rtt2_ms is None else f"{self.rtt_ms:g}/{self.rtt2_ms:g}"
        return (
            f"{self.variant}-{self.proto}-{self.cc}-{self.size_bytes}B-{self.rate_mbit:g}Mbit-"
            f"{rtts}ms-b{self.buffer_pkts}-{self.direction}"
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Cell:
        return from_fields(Cell, d, "cell")


def _allowed(field: str, value: object, allowed: Iterable[object]) -> None:
    allowed = tuple(allowed)
    if value not in allowed:
        raise CellError(f"cell.{field}: got {value!r}, allowed: {', '.join(map(str, allowed))}")


def _positive(field: str, value: float) -> None:
    if not value > 0:
        raise CellError(f"cell.{field}: must be positive, got {value!r}")


def validation_grid() -> list[Cell]:
    """TCP and 2-subflow MPTCP × Reno and CUBIC × shared and separate bottlenecks × four sizes, on a
    5 Mbit/s bottleneck with a 100 ms RTT (the separate variant's second path: 200 ms), 47 packets of
    buffer, client-sent (``up``), 10 runs each: 32 cells."""
    return [
        Cell(
            variant=variant,
            proto=proto,
            cc=cc,
            size_bytes=size,
            rtt2_ms=GRID_SEPARATE_RTT2_MS if variant == "separate" else None,
        )
        for variant in VARIANTS
        for cc in GRID_CCS
        for proto in PROTOS
        for size in GRID_SIZES_BYTES
    ]


WIDE_RUNS = 8
"""Runs per cell of the wide grid: the kernel's run-to-run spread is part of the reference."""

# (variant, cc, rate Mbit/s, RTT ms, path-2 RTT ms, buffer packets, direction, sizes in bytes). The buffer
# counts packets waiting (mpsim's convention) and is the stated fraction of the bandwidth-delay product of
# path 1 in 1500-byte packets; the second path's RTT is 2-6 times the first's.
_BIG = (50_000, 400_000, 2_000_000, 8_000_000)
_SMALL_RATE = (50_000, 200_000, 700_000, 2_000_000)
_PAPER = GRID_SIZES_BYTES
Setting = tuple[Variant, CcName, float, float, float | None, int, Direction, tuple[int, ...]]
"""(variant, cc, rate Mbit/s, RTT ms, path-2 RTT ms, buffer packets, direction, sizes in bytes)."""

WIDE_GROUPS: tuple[Setting, ...] = (
    ("shared", "reno", 10, 20, None, 8, "down", _BIG),  # 0.5 BDP
    ("shared", "cubic", 10, 20, None, 17, "up", _BIG),  # 1 BDP
    ("shared", "cubic", 20, 50, None, 21, "down", _BIG),  # 0.25 BDP
    ("shared", "reno", 20, 50, None, 167, "up", _BIG),  # 2 BDP
    ("shared", "cubic", 50, 10, None, 42, "down", _BIG),  # 1 BDP
    ("shared", "reno", 50, 10, None, 21, "up", _BIG),  # 0.5 BDP
    ("shared", "cubic", 5, 200, None, 42, "down", _SMALL_RATE),  # 0.5 BDP
    ("shared", "reno", 5, 200, None, 83, "down", _SMALL_RATE),  # 1 BDP
    ("separate", "reno", 10, 20, 80, 17, "down", _BIG),  # 1 BDP, 4x
    ("separate", "cubic", 10, 20, 40, 8, "up", _BIG),  # 0.5 BDP, 2x
    ("separate", "cubic", 20, 30, 180, 50, "down", _BIG),  # 1 BDP, 6x
    ("separate", "reno", 20, 50, 150, 21, "down", _BIG),  # 0.25 BDP, 3x
    ("separate", "cubic", 50, 10, 30, 83, "up", _BIG),  # 2 BDP, 3x
    ("separate", "reno", 50, 10, 60, 42, "down", _BIG),  # 1 BDP, 6x
    ("separate", "cubic", 5, 50, 100, 42, "down", _SMALL_RATE),  # 2 BDP, 2x
    ("separate", "reno", 5, 100, 200, 21, "down", _SMALL_RATE),  # 0.5 BDP, 2x
    ("shared", "cubic", 5, 100, None, 42, "down", _PAPER),  # the validation grid's, downloaded
    ("separate", "cubic", 5, 100, 200, 42, "down", _PAPER),
    ("shared", "reno", 5, 100, None, 42, "down", _PAPER),
    ("shared", "cubic", 20, 100, None, 167, "up", _BIG),  # 1 BDP
)


def _cells(settings: Iterable[Setting]) -> list[Cell]:
    """Each setting with TCP and 2-subflow MPTCP at each of its sizes, ``WIDE_RUNS`` runs a cell."""
    return [
        Cell(
            variant=variant,
            proto=proto,
            cc=cc,
            size_bytes=size,
            rate_mbit=float(rate),
            rtt_ms=float(rtt),
            rtt2_ms=None if rtt2 is None else float(rtt2),
            buffer_pkts=buffer,
            direction=direction,
            runs=WIDE_RUNS,
        )
        for variant, cc, rate, rtt, rtt2, buffer, direction, sizes in settings
        for proto in PROTOS
        for size in sizes
    ]


def wide_grid() -> list[Cell]:
    """Beyond the validation grid: 20 settings of rate (5-50 Mbit/s), RTT (10-200 ms; the separate
    variant's second path 2-6 times the first's), buffer (a quarter to twice the BDP), congestion
    control, bottleneck variant and direction (14 downloads, 6 uploads), each with TCP and 2-subflow
    MPTCP at four sizes from 50 kB to 8 MB, 8 runs each: 160 cells."""
    return _cells(WIDE_GROUPS)


# BBR (v1, the rig's `--cc bbr`): (variant, rate Mbit/s, RTT ms, path-2 RTT ms, buffer packets, direction,
# sizes). Shallow buffers (a quarter of the BDP) are where BBR loses most; the buffer counts packets
# waiting and is the stated fraction of path 1's BDP in 1500-byte packets.
BBR_GROUPS: tuple[tuple[Variant, float, float, float | None, int, Direction, tuple[int, ...]], ...] = (
    ("shared", 10, 20, None, 4, "up", (400_000, 2_000_000)),  # 0.25 BDP
    ("shared", 20, 50, None, 83, "down", (400_000, 2_000_000)),  # 1 BDP
    ("shared", 50, 10, None, 83, "up", (2_000_000, 8_000_000)),  # 2 BDP
    ("shared", 5, 100, None, 10, "down", (400_000, 2_000_000)),  # 0.25 BDP
    ("separate", 10, 20, 40, 17, "up", (400_000, 2_000_000)),  # 1 BDP, 2x
    ("separate", 20, 30, 90, 12, "down", (400_000, 2_000_000)),  # 0.25 BDP, 3x
)


def bbr_grid() -> list[Cell]:
    """BBR: six settings of rate (5-50 Mbit/s), RTT (10-100 ms; the separate variant's second path 2 or 3
    times the first's), buffer (a quarter of the BDP to twice it), bottleneck variant and direction (three
    uploads, three downloads), each with TCP and 2-subflow MPTCP at two sizes, 8 runs each: 24 cells."""
    return _cells((v, "bbr", rate, rtt, rtt2, b, d, sizes) for v, rate, rtt, rtt2, b, d, sizes in BBR_GROUPS)


def grid() -> list[Cell]:
    """Every cell with a kernel reference: the validation grid, the wide grid (192 cells), then BBR's 24."""
    return validation_grid() + wide_grid() + bbr_grid()
