"""Result tables as plain text for a terminal: every number whole (never cut to fit the width), nulls as
``—``, columns aligned, and fast enough for 100 000 rows; beyond ``max_rows`` it says it shows the first
rows only."""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa

__all__ = ["format_table", "format_value"]

NULL = "—"


def format_value(value: Any) -> str:
    """One cell: integers in full; floats to 6 significant digits, written out without an exponent from
    1e-4 to 1e15 (``110739200``, ``0.00000384``) and with one beyond; NaN as ``nan``."""
    if value is None:
        return NULL
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value == 0 or not 1e-4 <= abs(value) < 1e15:
            return f"{value:.6g}"
        decimals = max(0, 5 - math.floor(math.log10(abs(value))))
        text = f"{value:.{decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    return str(value)


def format_table(table: pa.Table, *, title: str | None = None, max_rows: int | None = None) -> str:
    """``table`` as aligned text: text columns to the left, numbers to the right."""
    shown = table if max_rows is None or table.num_rows <= max_rows else table.slice(0, max_rows)
    names = table.column_names
    cells = [[format_value(v) for v in shown.column(c).to_pylist()] for c in names]
    widths = [max([len(n), *map(len, col)]) for n, col in zip(names, cells, strict=True)]
    left = [pa.types.is_string(table.schema.field(c).type) for c in names]

    def line(values: list[str]) -> str:
        parts = [v.ljust(w) if lft else v.rjust(w) for v, w, lft in zip(values, widths, left, strict=True)]
        return "  ".join(parts).rstrip()

    out = [title] if title else []
    out.append(line(names))
    out.append("  ".join("-" * w for w in widths))
    out.extend(line(list(row)) for row in zip(*cells, strict=True))
    if shown.num_rows < table.num_rows:
        out.append(f"(the first {shown.num_rows} of {table.num_rows} rows; --max-rows shows more)")
    return "\n".join(out)
