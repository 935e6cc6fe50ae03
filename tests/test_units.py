"""Units: exact parsing to base units, formatting that parses back, garbage rejected with a reason."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mpsim import units
from mpsim.units import Buffer, SizeSpec, UnitError


@pytest.mark.parametrize(
    ("text", "bps"),
    [("5Mbps", 5_000_000), ("1Gbps", 10**9), ("500kbps", 500_000), ("1.5 Mbit/s", 1_500_000), (2400, 2400)],
)
def test_rates(text: object, bps: int) -> None:
    assert units.parse_rate(text) == bps


@pytest.mark.parametrize(
    ("text", "ns"),
    [("30ms", 30_000_000), ("1.5s", 1_500_000_000), ("100us", 100_000), ("7ns", 7), (0.03, 30_000_000), (2, 2 * 10**9)],
)
def test_times(text: object, ns: int) -> None:
    assert units.parse_time(text) == ns


def test_sizes_and_buffers() -> None:
    assert units.parse_size("280KB") == SizeSpec(280_000, "bytes")
    assert units.parse_size("64KiB") == SizeSpec(65_536, "bytes")
    assert units.parse_size("200pkt").to_bytes(1400) == 280_000
    assert units.parse_buffer("47pkt") == Buffer(47, "pkts")
    assert units.parse_buffer(47) == Buffer(47, "pkts")
    assert units.parse_buffer("64KB") == Buffer(64_000, "bytes")
    assert units.parse_probability("0.01%") == pytest.approx(1e-4)


@pytest.mark.parametrize(
    ("parse", "text", "reason"),
    [
        (units.parse_rate, "5 furlongs", "unknown rate unit 'furlongs'"),
        (units.parse_rate, "-5Mbps", "must not be negative"),
        (units.parse_rate, "0.5bps", "not a whole number of bit/s"),
        (units.parse_time, "30", "unknown time unit ''"),
        (units.parse_time, "0.5ns", "not a whole number of nanoseconds"),
        (units.parse_time, "fast", "cannot read 'fast' as a time"),
        (units.parse_size, "1.5pkt", "not a whole number of packets"),
        (units.parse_buffer, "10ms", "unknown buffer unit 'ms'"),
        (units.parse_probability, 1.5, "must be a probability in [0, 1]"),
        (units.parse_rate, True, "expected a rate"),
        (units.parse_time, float("nan"), "not a finite number"),
    ],
)
def test_garbage_is_rejected_with_a_reason(parse: object, text: object, reason: str) -> None:
    with pytest.raises(UnitError) as info:
        parse(text)  # type: ignore[operator]
    assert reason in str(info.value)


big = st.integers(min_value=0, max_value=10**15)


@given(big)
def test_rate_round_trip(bps: int) -> None:
    assert units.parse_rate(units.format_rate(bps)) == bps


@given(big)
def test_time_round_trip(ns: int) -> None:
    assert units.parse_time(units.format_time(ns)) == ns


@given(big)
def test_size_round_trip(n: int) -> None:
    assert units.parse_size(units.format_size(n)) == SizeSpec(n, "bytes")


@given(st.integers(min_value=1, max_value=10**6), st.sampled_from(["pkts", "bytes"]))
def test_buffer_round_trip(n: int, unit: str) -> None:
    b = Buffer(n, unit)  # type: ignore[arg-type]
    assert units.parse_buffer(units.format_buffer(b)) == b


@given(st.integers(min_value=1, max_value=10**6), st.sampled_from(sorted(units.RATE_UNITS)))
def test_any_unit_parses_to_its_scale(n: int, unit: str) -> None:
    assert units.parse_rate(f"{n}{unit}") == n * units.RATE_UNITS[unit]


@given(st.text(alphabet=st.characters(blacklist_categories=("Nd",)), min_size=1, max_size=12))
def test_text_without_digits_is_never_a_quantity(text: str) -> None:
    for parse in (units.parse_rate, units.parse_time, units.parse_size, units.parse_buffer):
        with pytest.raises(UnitError):
            parse(text)
