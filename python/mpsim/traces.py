"""Delivery-opportunity traces for links (Mahimahi's ``mm-link`` format).

A trace file has one whole number a line: a time in milliseconds at which one MTU-sized packet (1 504
bytes, Mahimahi's ``PACKET_SIZE``) may leave the link. The times never decrease; a time written twice is two
opportunities; the last time is the trace's period, after which it repeats. A link given ``trace = "file"``
serves its queue at those opportunities instead of at a fixed rate (docs/scenarios.md, Trace-driven links).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import PlainSerializer, PlainValidator
from pydantic_core import PydanticCustomError

BYTES_PER_OPPORTUNITY = 1504
"""Bytes one opportunity lets leave: Mahimahi's ``PACKET_SIZE``."""


@dataclass(frozen=True)
class DeliveryTrace:
    """The opportunities of a trace, in ms, and where they came from (a file, or ``None``: written inline)."""

    opportunities_ms: tuple[int, ...]
    source: Path | None = None

    @property
    def period_ms(self) -> int:
        return self.opportunities_ms[-1]

    @property
    def mean_rate_bps(self) -> int:
        """The trace's mean rate, bit/s (rounded up; at least 1)."""
        bits = len(self.opportunities_ms) * BYTES_PER_OPPORTUNITY * 8 * 1000
        return max(1, -(-bits // self.period_ms))

    def to_core(self) -> dict[str, Any]:
        return {"opportunities_ms": list(self.opportunities_ms), "bytes_per_opportunity": BYTES_PER_OPPORTUNITY}

    def dump(self) -> str | list[int]:
        """The file's absolute path, or the inline list."""
        return str(self.source) if self.source is not None else list(self.opportunities_ms)


MAX_TIME_MS = 1_000_000_000
"""The latest time a trace may list (about 11.6 days), as the core allows."""


def _check_times(times: list[int], where: str, lines: list[int] | None = None) -> tuple[int, ...]:
    """The times as a trace, or an error naming ``where`` (and the file's line, given ``lines``)."""

    def at(k: int) -> str:
        return f"line {lines[k]}" if lines is not None else f"opportunity {k + 1}"

    if not times:
        raise PydanticCustomError(
            "trace_empty",
            "{where} has no delivery opportunities (it needs at least one time in ms, the last positive)",
            {"where": where},
        )
    for k in range(1, len(times)):
        if times[k] < times[k - 1]:
            raise PydanticCustomError(
                "trace_order",
                "{where} {at}: {t} ms comes after {prev} ms; the times must not decrease",
                {"where": where, "at": at(k), "t": times[k], "prev": times[k - 1]},
            )
    if times[-1] <= 0:
        raise PydanticCustomError(
            "trace_period",
            "{where}: the last time is the trace's period and must be positive, got {t} ms",
            {"where": where, "t": times[-1]},
        )
    if times[-1] > MAX_TIME_MS:
        raise PydanticCustomError(
            "trace_too_long",
            "{where} {at}: {t} ms is past the latest time a trace may list, {max} ms (are the times in ms?)",
            {"where": where, "at": at(len(times) - 1), "t": times[-1], "max": MAX_TIME_MS},
        )
    return tuple(times)


def read_trace(path: Path) -> DeliveryTrace:
    """Reads a Mahimahi trace file; blank lines are skipped."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise PydanticCustomError(
            "trace_file", "cannot read trace file '{path}': {why}", {"path": str(path), "why": why}
        ) from None
    times: list[int] = []
    lines: list[int] = []
    for n, line in enumerate(text.splitlines(), start=1):
        word = line.strip()
        if not word:
            continue
        if not (word.isascii() and word.isdigit()):
            raise PydanticCustomError(
                "trace_line",
                "trace file '{path}' line {n}: '{text}' is not a whole number of milliseconds",
                {"path": str(path), "n": n, "text": word[:40]},
            )
        times.append(int(word))
        lines.append(n)
    return DeliveryTrace(_check_times(times, f"trace file '{path}'", lines), path)


_BASE_DIR: ContextVar[Path | None] = ContextVar("trace_base_dir", default=None)


@contextmanager
def files_relative_to(directory: Path | None) -> Iterator[None]:
    """Within the block, relative trace file names are read from ``directory`` (a scenario file's)."""
    token = _BASE_DIR.set(directory)
    try:
        yield
    finally:
        _BASE_DIR.reset(token)


def _validate(value: object) -> DeliveryTrace:
    if isinstance(value, DeliveryTrace):
        return value
    if isinstance(value, (str, Path)):
        path = Path(value).expanduser()
        if not path.is_absolute():
            base = _BASE_DIR.get()
            path = (base if base is not None else Path.cwd()) / path
        return read_trace(path.resolve())
    if isinstance(value, (list, tuple)) and all(isinstance(t, int) and not isinstance(t, bool) for t in value):
        if any(t < 0 for t in value):
            raise PydanticCustomError("trace_negative", "trace times are milliseconds >= 0, got {v}", {"v": min(value)})
        return DeliveryTrace(_check_times(list(value), "the trace"))
    raise PydanticCustomError(
        "trace_type",
        "a trace is a file name (Mahimahi's format: one time in ms a line) or a list of times in ms, got {v!r}",
        {"v": value},
    )


Trace = Annotated[DeliveryTrace, PlainValidator(_validate), PlainSerializer(DeliveryTrace.dump)]
"""A delivery-opportunity trace: a file name (relative to the scenario file, or to the current directory for a
scenario built in Python) or an inline list of times in ms."""
