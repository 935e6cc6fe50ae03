"""Field types shared by the scenario models: quantities with units, probabilities, packet counts."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, PlainSerializer, PlainValidator, Strict, ValidationError
from pydantic_core import PydanticCustomError

from mpsim import units
from mpsim.errors import ScenarioError, did_you_mean, problems_from_validation
from mpsim.units import Buffer, SizeSpec


class Model(BaseModel):
    """Base of every scenario model: unknown keys are errors, Python names work beside aliases, and a value
    assigned to a field is checked as when the model is built (``scenario.duration = "abc"`` raises)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_default=False, validate_assignment=True)

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as e:
            raise ScenarioError(problems_from_validation(e, type(self))) from None

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            super().__setattr__(name, value)
        except ValidationError as e:
            raise ScenarioError(problems_from_validation(e, type(self))) from None


def unknown_name(kind: str, name: object, allowed: Iterable[str]) -> PydanticCustomError:
    allowed = list(allowed)
    hint = did_you_mean(name, allowed) if isinstance(name, str) else ""
    return PydanticCustomError(
        "unknown_name",
        "unknown {kind} {name}{hint} (allowed: {allowed})",
        {"kind": kind, "name": repr(name), "hint": hint, "allowed": ", ".join(allowed)},
    )


LARGEST = 2**64 - 1
"""The core holds every quantity in 64 bits of its base unit (ns, bit/s, bytes, packets)."""
U32_MAX = 2**32 - 1
"""The largest count the core holds in 32 bits (segments, subflow indices, link weights)."""


def _wrap(parse: Callable[[object], Any]) -> Callable[[object], Any]:
    def validate(value: object) -> Any:
        try:
            parsed = parse(value)
        except units.UnitError as e:
            raise PydanticCustomError("unit", str(e)) from None
        amount = parsed.value if isinstance(parsed, SizeSpec | Buffer) else parsed
        if isinstance(amount, int) and amount > LARGEST:
            raise PydanticCustomError(
                "too_large",
                "{value} is too large (allowed: up to 2^64 - 1 ns, bit/s, bytes or packets)",
                {"value": repr(value)},
            )
        return parsed

    return validate


def _positive(parse: Callable[[object], int], what: str) -> Callable[[object], int]:
    def validate(value: object) -> int:
        n = parse(value)
        if n <= 0:
            raise units.UnitError(f"must be a positive {what}, got {value!r}")
        return n

    return validate


def _size_positive(value: object) -> SizeSpec:
    if isinstance(value, SizeSpec):
        return value
    s = units.parse_size(value)
    if s.value <= 0:
        raise units.UnitError(f"must be at least 1 byte or 1 packet, got {value!r}")
    return s


def _buffer_positive(value: object) -> Buffer:
    if isinstance(value, Buffer):
        return value
    b = units.parse_buffer(value)
    if b.value <= 0:
        raise units.UnitError(f"must be at least 1 packet or 1 byte, got {value!r}")
    return b


def _packets(value: object) -> int:
    b = units.parse_buffer(value)
    if b.unit != "pkts":
        raise units.UnitError(f"must be a number of packets (e.g. '100pkt'), got {value!r}")
    if b.value <= 0:
        raise units.UnitError(f"must be at least 1 packet, got {value!r}")
    return b.value


def _packets_float(value: object) -> float:
    if isinstance(value, str):
        text = value.strip()
        for suffix in units.PKT_UNITS:
            if text.endswith(suffix):
                text = text[: -len(suffix)]
                break
        try:
            value = float(text)
        except ValueError:
            raise units.UnitError(f"cannot read {value!r} as a number of packets") from None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value or value < 0:
        raise units.UnitError(f"must be a number of packets >= 0, got {value!r}")
    return float(value)


def _suggestions(kind: str, value: int | float) -> list[str]:
    """What a bare number most likely meant, most likely first."""
    if kind == "time":
        if value < 1 and round(value * 10**9) >= 1:
            return [units.format_time(round(value * 10**9))]  # seconds
        if isinstance(value, int) and value >= 10**6:
            return [units.format_time(value)]  # nanoseconds, as the model holds a time
        return [f"{value}ms", f"{value}s"]
    if kind == "rate":
        if value >= 1000 and value == int(value):
            return [units.format_rate(int(value))]
        return [f"{value}Mbps", f"{value}Kbps"]
    if value >= 1000 and value == int(value):
        return [units.format_size(int(value))]
    return [f"{value}pkt", f"{value}KB"]


_UNITS_OF = {"time": units.TIME_UNITS, "rate": units.RATE_UNITS, "size": [*units.SIZE_UNITS, "pkt"]}


def bare_number(kind: str, value: object) -> PydanticCustomError | None:
    """The error for a time, rate or size written as a bare number other than 0 (``delay = 30``: 30 ms or
    30 s?), or ``None``: every such quantity is written with its unit, in a file as in Python."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value == 0:
        return None
    if value < 0 or (isinstance(value, float) and not math.isfinite(value)):
        return None  # the parser names what is wrong with it
    shown = " or ".join(f'"{s}"' for s in _suggestions(kind, value))
    return PydanticCustomError(
        "bare_number",
        "{value} has no unit; did you mean {shown}? (a {kind} needs one of: {allowed})",
        {"value": repr(value), "shown": shown, "kind": kind, "allowed": ", ".join(_UNITS_OF[kind])},
    )


def _with_unit(parse: Callable[[object], Any], kind: str) -> Callable[..., Any]:
    """``parse`` checked as :func:`_wrap` does, a bare number other than 0 refused first."""
    checked = _wrap(parse)

    def validate(value: object) -> Any:
        refused = bare_number(kind, value)
        if refused is not None:
            raise refused
        return checked(value)

    return validate


Rate = Annotated[
    int,
    PlainValidator(_with_unit(_positive(units.parse_rate, "rate"), "rate")),
    PlainSerializer(units.format_rate),
]
"""A positive rate in bit/s, written ``"5Mbps"``."""
time_with_unit = _with_unit(units.parse_time, "time")
"""A time in ns as :data:`Duration` reads it (for fields that take other forms besides)."""
Duration = Annotated[int, PlainValidator(time_with_unit), PlainSerializer(units.format_time)]
"""A time >= 0 in ns, written ``"30ms"`` (``0`` needs no unit)."""
PositiveDuration = Annotated[
    int,
    PlainValidator(_with_unit(_positive(units.parse_time, "duration"), "time")),
    PlainSerializer(units.format_time),
]
Size = Annotated[SizeSpec, PlainValidator(_with_unit(_size_positive, "size")), PlainSerializer(str)]
"""A positive size in bytes (``"280KB"``) or in full segments (``"200pkt"``)."""
BufferSize = Annotated[Buffer, PlainValidator(_wrap(_buffer_positive)), PlainSerializer(str)]
"""A positive queue capacity in packets (``"47pkt"``, or a plain number) or bytes (``"64KB"``)."""
Packets = Annotated[int, PlainValidator(_wrap(_packets))]
PacketsFloat = Annotated[float, PlainValidator(_wrap(_packets_float))]
Probability = Annotated[float, PlainValidator(_wrap(units.parse_probability))]
"""A probability in [0, 1], or a percentage string such as ``"0.01%"``."""


def loss_probability(value: object) -> float:
    """A packet's loss probability: a number in [0, 1) or a percentage.

    ``loss = 1`` is refused rather than read as every packet lost: it is far more often a
    percentage written without its sign, and a link that loses everything is a link change.
    """
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 1:
        found = f"{value!r} is a bare number, a loss of every packet" if value == 1 else units.out_of_range(value)
        raise units.UnitError(
            f'{found}; for a loss of {value} %, write "{value}%" or {value / 100!r} '
            '(allowed: a number in [0, 1) or a percentage up to "100%")'
        )
    return units.parse_probability(value)


LossProbability = Annotated[
    float,
    PlainValidator(_wrap(loss_probability)),
    PlainSerializer(lambda p: "100%" if p >= 1 else p),
]
"""A loss probability in [0, 1), or a percentage string up to ``"100%"``."""
Flag = Annotated[bool, Strict()]
"""``true`` or ``false`` (no strings such as ``"yes"``)."""
