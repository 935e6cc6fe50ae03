"""Quantities written the way people write them: ``"5Mbps"``, ``"30ms"``, ``"280KB"``, ``"47pkt"``.

Every parser returns an exact integer in the core's base unit (bit/s, nanoseconds, bytes, packets)
or raises :class:`UnitError` saying what was wrong and what is allowed. Decimal prefixes are SI
(``1 KB = 1000 B``, ``1 Mbps = 10^6 bit/s``, as the papers count: 200 packets of 1400 B = 280 KB);
binary ones are spelled ``KiB``, ``MiB``, ``GiB``.

The parsers read plain numbers in a stated unit: bit/s for rates, seconds for durations, bytes for
sizes, packets for buffers. A scenario (a file, a dict or a model built or assigned in Python) refuses
them for rates, times and sizes other than 0 (``mpsim._types.bare_number``): ``delay = 30`` is more
often 30 ms written without its unit than 30 s. A buffer's plain number stays a number of packets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

__all__ = [
    "RATE_UNITS",
    "SIZE_UNITS",
    "TIME_UNITS",
    "Buffer",
    "SizeSpec",
    "UnitError",
    "format_buffer",
    "format_rate",
    "format_size",
    "format_time",
    "out_of_range",
    "parse_buffer",
    "parse_probability",
    "parse_rate",
    "parse_size",
    "parse_time",
]


class UnitError(ValueError):
    """A quantity that cannot be read; the message says what is allowed."""


RATE_UNITS: dict[str, int] = {
    "bps": 1,
    "bit/s": 1,
    "Kbps": 10**3,
    "kbps": 10**3,
    "kbit/s": 10**3,
    "Mbps": 10**6,
    "Mbit/s": 10**6,
    "Gbps": 10**9,
    "Gbit/s": 10**9,
    "Tbps": 10**12,
}
TIME_UNITS: dict[str, int] = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9, "min": 60 * 10**9}
SIZE_UNITS: dict[str, int] = {
    "B": 1,
    "KB": 10**3,
    "kB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
}
PKT_UNITS = ("pkt", "pkts", "packets", "packet")

_QUANTITY = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-zµ/%]*)\s*$")


def _split(text: str, what: str, allowed: str) -> tuple[Decimal, str]:
    m = _QUANTITY.match(text)
    if m is None:
        raise UnitError(f"cannot read {text!r} as {what}; write a number and a unit ({allowed})")
    try:
        value = Decimal(m.group(1))
    except InvalidOperation as e:  # pragma: no cover - the pattern only admits decimals
        raise UnitError(f"cannot read {text!r} as {what}") from e
    return value, m.group(2)


def _number(value: object, what: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UnitError(f"expected {what} as a string with a unit or a number, got {value!r}")
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        raise UnitError(f"{value!r} is not a finite number")
    return Decimal(value) if isinstance(value, int) else Decimal(repr(value))


def _exact(value: Decimal, scale: int, text: object, what: str, base: str, *, allow_round: bool = False) -> int:
    total = value * scale
    if total < 0:
        raise UnitError(f"{what} must not be negative, got {text!r}")
    integral = total.to_integral_value()
    if integral != total:
        if allow_round:
            return int(integral)
        raise UnitError(f"{text!r} is not a whole number of {base}")
    return int(integral)


def parse_rate(value: object) -> int:
    """A rate in bit/s: ``"5Mbps"``, ``"1.5 Gbit/s"``, ``"500kbps"`` or a number of bit/s."""
    allowed = ", ".join(RATE_UNITS)
    if isinstance(value, str):
        number, unit = _split(value, "a rate", allowed)
        if unit not in RATE_UNITS:
            raise UnitError(f"unknown rate unit {unit!r} in {value!r}; allowed: {allowed}")
        return _exact(number, RATE_UNITS[unit], value, "a rate", "bit/s")
    return _exact(_number(value, "a rate"), 1, value, "a rate", "bit/s")


def parse_time(value: object) -> int:
    """A duration or instant in ns: ``"30ms"``, ``"1.5s"``, ``"100us"`` or a number of seconds.

    Numbers of seconds are rounded to the nearest nanosecond (``0.1`` is not exact in binary).
    """
    allowed = ", ".join(TIME_UNITS)
    if isinstance(value, str):
        number, unit = _split(value, "a time", allowed)
        if unit not in TIME_UNITS:
            raise UnitError(f"unknown time unit {unit!r} in {value!r}; allowed: {allowed}")
        return _exact(number, TIME_UNITS[unit], value, "a time", "nanoseconds")
    return _exact(_number(value, "a time"), 10**9, value, "a time", "nanoseconds", allow_round=True)


@dataclass(frozen=True)
class SizeSpec:
    """A size given in bytes or in packets (a number of full segments, resolved with the MSS)."""

    value: int
    unit: Literal["bytes", "pkts"]

    def to_bytes(self, mss: int) -> int:
        return self.value if self.unit == "bytes" else self.value * mss

    def __str__(self) -> str:
        return format_size(self.value) if self.unit == "bytes" else f"{self.value}pkt"


def parse_size(value: object) -> SizeSpec:
    """A size: ``"280KB"``, ``"1.4MB"``, ``"64KiB"``, ``"200pkt"`` (segments of MSS bytes) or a number of bytes."""
    allowed = ", ".join([*SIZE_UNITS, "pkt"])
    if isinstance(value, str):
        number, unit = _split(value, "a size", allowed)
        if unit in PKT_UNITS:
            return SizeSpec(_exact(number, 1, value, "a size", "packets"), "pkts")
        if unit not in SIZE_UNITS:
            raise UnitError(f"unknown size unit {unit!r} in {value!r}; allowed: {allowed}")
        return SizeSpec(_exact(number, SIZE_UNITS[unit], value, "a size", "bytes"), "bytes")
    return SizeSpec(_exact(_number(value, "a size"), 1, value, "a size", "bytes"), "bytes")


@dataclass(frozen=True)
class Buffer:
    """A queue capacity: packets (``"47pkt"``) or bytes (``"64KB"``)."""

    value: int
    unit: Literal["pkts", "bytes"]

    def __str__(self) -> str:
        return format_buffer(self)


def parse_buffer(value: object) -> Buffer:
    """A queue capacity: ``"47pkt"``, ``"64KB"`` or a number of packets."""
    allowed = ", ".join(["pkt", *SIZE_UNITS])
    if isinstance(value, str):
        number, unit = _split(value, "a buffer size", allowed)
        if unit in PKT_UNITS:
            return Buffer(_exact(number, 1, value, "a buffer", "packets"), "pkts")
        if unit in SIZE_UNITS:
            return Buffer(_exact(number, SIZE_UNITS[unit], value, "a buffer", "bytes"), "bytes")
        raise UnitError(f"unknown buffer unit {unit!r} in {value!r}; allowed: {allowed}")
    return Buffer(_exact(_number(value, "a buffer size"), 1, value, "a buffer", "packets"), "pkts")


def parse_probability(value: object) -> float:
    """A probability: a number in [0, 1] or a percentage string such as ``"0.01%"``."""
    if isinstance(value, str):
        text = value.strip()
        try:
            p = float(Decimal(text[:-1]) / 100) if text.endswith("%") else float(Decimal(text))
        except InvalidOperation as e:
            raise UnitError(f"cannot read {value!r} as a probability; write a number in [0, 1] or a percentage") from e
    else:
        p = float(_number(value, "a probability"))
    if not 0.0 <= p <= 1.0:
        raise UnitError(out_of_range(value))
    return p


def out_of_range(value: object) -> str:
    """What is wrong with a probability outside [0, 1]."""
    return f"must be a probability in [0, 1], got {value!r}"


def _format(value: int, units: dict[str, int], preferred: tuple[str, ...]) -> str:
    """The largest preferred unit in which ``value`` is a whole number or a short exact decimal."""
    for unit in preferred:
        scale = units[unit]
        if value >= scale or unit == preferred[-1]:
            text = format(Decimal(value) / scale, "f")
            if "." in text:
                text = text.rstrip("0").rstrip(".")
            if len(text.replace(".", "").lstrip("0")) <= 6 or unit == preferred[-1]:
                return f"{text}{unit}"
    raise AssertionError("unreachable")  # pragma: no cover


def format_rate(bps: int) -> str:
    """``5_000_000 -> "5Mbps"``; ``parse_rate(format_rate(x)) == x``."""
    return _format(bps, RATE_UNITS, ("Tbps", "Gbps", "Mbps", "Kbps", "bps"))


def format_time(ns: int) -> str:
    """``30_000_000 -> "30ms"``; ``parse_time(format_time(x)) == x``."""
    return _format(ns, TIME_UNITS, ("s", "ms", "us", "ns"))


def format_size(n_bytes: int) -> str:
    """``280_000 -> "280KB"``; ``parse_size(format_size(x)).value == x``."""
    return _format(n_bytes, SIZE_UNITS, ("GB", "MB", "KB", "B"))


def format_buffer(buffer: Buffer) -> str:
    return f"{buffer.value}pkt" if buffer.unit == "pkts" else format_size(buffer.value)
