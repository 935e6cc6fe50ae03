"""The result store of a sweep: one Parquet file per finished run, written whole or not at all.

Layout under the output directory::

    sweep.json              the points: key, variant, axis values, seed; the engine identity and the
                            extractor's name and code fingerprint (rewritten at each start)
    runs/<kk>/<key>.parquet the rows one run produced, with the point's columns; <kk> is the key's first
                            two characters, so that workers writing at once rarely share a directory
    results.parquet         every run's rows concatenated (written when a sweep finishes)

A run's key is a hash of its fully resolved core configuration (seed included), of the engine's
identity (a hash of the core's sources taken when it was built) and of the row extractor's code, so a
finished run is recognised whatever the order of points, and a changed scenario, a rebuilt engine or an
edited extractor is run again (:mod:`mpsim.fingerprint`). Files are written to a temporary name and
renamed, so a sweep killed at any moment leaves only whole files; temporary leftovers are removed on
the next start. The manifest and ``results.parquet`` are also flushed to disk before the rename; a run's
file is not (it would cost as much as the run itself), so after a crash of the operating system (not of
the sweep) a run's file may be unreadable: :meth:`RunStore.drop_unreadable` finds such files when a
sweep resumes and the run is done again.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mpsim._core import ConfigError

__all__ = [
    "SEED_COLUMNS",
    "RunStore",
    "identical_seed_points",
    "identical_seeds",
    "identical_seeds_text",
    "load_results",
    "one_seed_where_identical",
    "point_of",
    "with_seed_counts",
]

SEED_COLUMNS = ("n_seeds", "n_distinct")
"""The columns :func:`with_seed_counts` adds: per point, how many seeds ran there and how many distinct results
they gave. ``n_distinct = 1`` with several seeds: every seed gave the same rows, so the point holds one value
(n = 1), and a confidence interval drawn from its seeds would be zero-wide for want of variation, not of
uncertainty."""

META_COLUMNS = ("key", "variant", "seed", *SEED_COLUMNS)


class RunStore:
    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)
        self.runs = self.out / "runs"
        self.timeouts = self.out / "timed_out"

    def prepare(self) -> None:
        """Creates the directories and removes temporary files left by a killed sweep; a directory that
        cannot be one becomes a :class:`ConfigError` naming it."""
        if self.out.exists() and not self.out.is_dir():
            raise ConfigError(f"out: {str(self.out)!r} exists and is not a directory; give a directory for the store")
        try:
            self.runs.mkdir(parents=True, exist_ok=True)
            self.timeouts.mkdir(exist_ok=True)
        except OSError as e:
            raise ConfigError(f"out: cannot create the store in {str(self.out)!r}: {e.strerror or e}") from None
        for pattern in (".tmp-*", "*/.tmp-*"):
            for tmp in self.runs.glob(pattern):
                tmp.unlink(missing_ok=True)

    def new_identity(self) -> str:
        """Gives the store a new identity, a random name in ``OUT/.store-id``, and returns it: a process that
        reads the same name at the same path sees this very store, not a copy of it made earlier or a
        directory of the same path on a disk of its own. Made anew for each sweep that hands its runs out."""
        name = uuid.uuid4().hex
        try:
            _atomic(self.out / ".store-id", lambda p: Path(p).write_text(name))
        except OSError as e:
            where = str(self.out)
            raise ConfigError(f"out: cannot write the store's identity in {where!r}: {e.strerror or e}") from None
        return name

    def is_store(self, identity: str) -> bool:
        """Whether this path holds the store named ``identity`` (see :meth:`new_identity`) and this process
        may write its runs there; creates nothing."""
        try:
            found = (self.out / ".store-id").read_text().strip()
        except (OSError, UnicodeDecodeError):
            return False
        return bool(identity) and found == identity and self.runs.is_dir() and os.access(self.runs, os.W_OK)

    def files(self) -> list[Path]:
        """The stored runs' files."""
        if not self.runs.is_dir():
            return []
        return sorted(self.runs.glob("*/*.parquet"))

    def done(self) -> set[str]:
        """Keys of the runs already stored."""
        return {p.stem for p in self.files()}

    def path(self, key: str) -> Path:
        # Files are spread over subdirectories: creating and renaming files takes a lock on their
        # directory, and two workers writing into one directory serialise on it (1.3x instead of 2x).
        return self.runs / key[:2] / f"{key}.parquet"

    def write(self, key: str, table: pa.Table) -> Path:
        """Writes one run's rows atomically."""
        final = self.path(key)
        final.parent.mkdir(exist_ok=True)
        _atomic(final, lambda p: pq.write_table(table, p), durable=False)
        return final

    def drop_unreadable(self, keys: set[str]) -> set[str]:
        """Removes the stored runs among ``keys`` whose file cannot be read (left by a crash of the
        operating system); returns the keys that remain stored."""
        kept = set()
        for key in keys:
            try:
                pq.read_metadata(self.path(key))
            except (OSError, pa.ArrowException):
                self.path(key).unlink(missing_ok=True)
            else:
                kept.add(key)
        return kept

    def write_timeout(self, key: str, record: Mapping[str, Any]) -> None:
        """Records that a run passed its time limit: a resumed sweep tries it again."""
        text = json.dumps(record, indent=1, sort_keys=True)
        _atomic(self.timeouts / f"{key}.json", lambda p: Path(p).write_text(text), durable=False)

    def clear_timeout(self, key: str) -> None:
        (self.timeouts / f"{key}.json").unlink(missing_ok=True)

    def timed_out(self) -> list[dict[str, Any]]:
        """The records of the runs that passed their time limit and have not finished since."""
        done = self.done()
        records = [json.loads(p.read_text()) for p in sorted(self.timeouts.glob("*.json"))]
        return [r for r in records if r["key"] not in done]

    def read(self, key: str) -> pa.Table:
        return pq.read_table(self.path(key))

    def write_manifest(self, manifest: Mapping[str, Any]) -> None:
        text = json.dumps(manifest, indent=1, sort_keys=True)
        _atomic(self.out / "sweep.json", lambda p: Path(p).write_text(text))

    def read_manifest(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads((self.out / "sweep.json").read_text())
        return result

    def results(self, typed: bool = True) -> pa.Table:
        """One row per (point, extracted row): the stored rows with each point's columns.

        Axis values keep their type (numbers as numbers, strings as written); an axis whose values are all
        quantities with units (``"20pkt"``, ``"30ms"``, ``"5Mbps"``, ``"280KB"``) also has a column of their
        values in the base unit, named after it (``topology.buffer_pkts``, ``..._ns``, ``..._bps``,
        ``..._bytes``). With ``typed`` false, each axis value is its text (a string as it is, anything else
        as JSON) and nothing is added.
        """
        manifest = self.read_manifest()
        axes: list[str] = manifest["axes"]
        done = self.done()
        points = [p for p in manifest["points"] if p["key"] in done]
        axis_types = {a: _axis_type([p["axes"][a] for p in points]) if typed else pa.string() for a in axes}
        quantities = {a: _quantity_column(a, [p["axes"][a] for p in points]) if typed else None for a in axes}
        cache: dict[str, pa.Table] = {}
        parts = []
        for point in points:
            key = point["key"]
            if key not in cache:
                cache[key] = self.read(key)
            rows = cache[key]
            rows = rows.drop_columns([c for c in (*META_COLUMNS, *axes) if c in rows.column_names])
            n = rows.num_rows
            columns = {
                "key": pa.array([key] * n, pa.string()),
                "variant": pa.array([point["variant"]] * n, pa.string()),
                "seed": pa.array([point["seed"]] * n, pa.int64()),
            }
            for a in axes:
                value = point["axes"][a]
                if axis_types[a] == pa.string() and not isinstance(value, str):
                    value = json.dumps(value)
                columns[a] = pa.array([value] * n, axis_types[a])
                quantity = quantities[a]
                if quantity is not None:
                    name, parse = quantity
                    columns[name] = pa.array([parse(point["axes"][a])] * n, pa.int64())
            parts.append(pa.table({**columns, **{c: rows.column(c) for c in rows.column_names}}))
        if not parts:
            return pa.table({c: pa.array([], pa.string()) for c in ("key", "variant", *axes)})
        return pa.concat_tables(parts, promote_options="default")

    def consolidate(self, typed: bool = True, seed_counts: bool = False) -> pa.Table:
        """Writes ``results.parquet`` and ``results.csv`` (every run's rows, :meth:`results`, with
        :data:`SEED_COLUMNS` when ``seed_counts``) and returns those rows."""
        import pyarrow.csv as pacsv

        table = self.results(typed)
        if seed_counts:
            table = with_seed_counts(table, self.read_manifest()["axes"])
        _atomic(self.out / "results.parquet", lambda p: pq.write_table(table, p))
        _atomic(self.out / "results.csv", lambda p: pacsv.write_csv(table, p))
        return table


def _atomic(final: Path, write: Any, durable: bool = True) -> None:
    # Unique to the writing thread: a Dask worker runs several in one process.
    tmp = final.parent / f".tmp-{final.name}-{os.getpid()}-{threading.get_ident()}"
    try:
        write(str(tmp))
        if durable:
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            tmp.unlink()


Point = tuple[Any, ...]
"""A variant's name and its value of each axis."""


def point_of(row: Mapping[str, Any], axes: Sequence[str]) -> Point:
    """The point a row belongs to: its variant and its value of each axis."""
    return (row["variant"], *(row[a] for a in axes))


def _seed_results(
    rows: Sequence[Mapping[str, Any]], axes: Sequence[str]
) -> tuple[list[Point], dict[Point, dict[Any, list[str]]]]:
    """Per row, its point (a variant with one value of each axis); per point, each seed's rows as text, every
    column but the run's key, seed and :data:`SEED_COLUMNS` (NaN equal to NaN)."""
    points: list[Point] = []
    runs: dict[Point, dict[Any, list[str]]] = {}
    for r in rows:
        point = point_of(r, axes)
        points.append(point)
        compared = sorted(c for c in r if c not in ("key", "seed", *SEED_COLUMNS))
        runs.setdefault(point, {}).setdefault(r["seed"], []).append(repr([(c, r[c]) for c in compared]))
    return points, runs


def _distinct(seeds: Mapping[Any, list[str]]) -> int:
    """How many different results the seeds of one point gave."""
    return len({tuple(sorted(rows)) for rows in seeds.values()})


def with_seed_counts(table: pa.Table, axes: Sequence[str]) -> pa.Table:
    """``table`` (:meth:`RunStore.results`) with :data:`SEED_COLUMNS`: two seeds of a point gave the same
    result when their runs gave the same rows."""
    table = table.drop_columns([c for c in SEED_COLUMNS if c in table.column_names])
    points, runs = _seed_results(table.to_pylist(), axes)
    n_seeds = [len(runs[p]) for p in points]
    distinct = {p: _distinct(seeds) for p, seeds in runs.items()}
    table = table.append_column("n_seeds", pa.array(n_seeds, pa.int64()))
    return table.append_column("n_distinct", pa.array([distinct[p] for p in points], pa.int64()))


def identical_seeds(rows: Sequence[Mapping[str, Any]], axes: Sequence[str]) -> tuple[list[Point], list[bool]]:
    """The points of ``rows`` (:meth:`RunStore.results`, or any rows with ``variant``, ``seed`` and the axes)
    that ran several seeds and got the same rows from all of them, and per row whether it stays when each such
    point keeps its first seed's rows only: one value (n = 1) where the seeds added none."""
    points, runs = _seed_results(rows, axes)
    first = {p: min(seeds) for p, seeds in runs.items() if len(seeds) > 1 and _distinct(seeds) == 1}
    keep = [p not in first or r["seed"] == first[p] for p, r in zip(points, rows, strict=True)]
    return list(first), keep


def identical_seed_points(table: pa.Table, axes: Sequence[str]) -> list[str]:
    """The points of ``table`` (:meth:`RunStore.results`) that ran several seeds and got one result from all
    of them (:func:`identical_seeds`), each as ``variant`` or ``variant, axis = value, ...``."""
    identical, _ = identical_seeds(table.to_pylist(), axes)
    return [
        ", ".join([str(variant), *(f"{a} = {v!r}" for a, v in zip(axes, values, strict=True))])
        for variant, *values in identical
    ]


def identical_seeds_text(table: pa.Table, axes: Sequence[str]) -> str | None:
    """Where the seeds of ``table`` gave identical results, as the start of a warning (None: nowhere):
    ``at 1 of 2 points the 3 seeds gave identical results (base, loss = '0%')``."""
    identical = identical_seed_points(table, axes)
    if not identical:
        return None
    _, runs = _seed_results(table.to_pylist(), axes)
    n_seeds = max(len(seeds) for seeds in runs.values())
    where = "every point" if len(identical) == len(runs) else f"{len(identical)} of {len(runs)} points"
    shown = "; ".join(identical[:3]) + (f"; and {len(identical) - 3} more" if len(identical) > 3 else "")
    return f"at {where} the {n_seeds} seeds gave identical results ({shown})"


def one_seed_where_identical(table: pa.Table, axes: Sequence[str]) -> pa.Table:
    """``table`` with, at each point whose seeds all gave the same result, the rows of its first seed only:
    one value (n = 1) where the seeds added none (:func:`identical_seeds`)."""
    _, keep = identical_seeds(table.to_pylist(), axes)
    return table.filter(pa.array(keep, pa.bool_()))


def load_results(out: str | Path) -> pa.Table:
    """The rows of a sweep's store (finished runs only), one per point and extracted row, with
    :data:`SEED_COLUMNS`: what ``results.parquet`` holds once the sweep is done."""
    store = RunStore(out)
    return with_seed_counts(store.results(), store.read_manifest()["axes"])


def _axis_type(values: list[Any]) -> pa.DataType:
    """The Arrow type of an axis's values: integers, numbers, booleans, or else strings."""
    if values and all(isinstance(v, bool) for v in values):
        return pa.bool_()
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return pa.int64()
    if values and all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return pa.float64()
    return pa.string()


def _quantity_column(axis: str, values: list[Any]) -> tuple[str, Callable[[Any], int]] | None:
    """The name of the column of an axis's values in a base unit and how to read them, when every value
    is a quantity of one kind written with its unit; ``None`` otherwise."""
    from mpsim import units

    def packets(v: Any) -> int:
        size = units.parse_size(v)
        if size.unit != "pkts":
            raise units.UnitError(v)
        return size.value

    def size_bytes(v: Any) -> int:
        size = units.parse_size(v)
        if size.unit != "bytes":
            raise units.UnitError(v)
        return size.value

    if not values or not all(isinstance(v, str) for v in values):
        return None
    kinds: list[tuple[str, Callable[[Any], int]]] = [
        ("pkts", packets),
        ("bytes", size_bytes),
        ("ns", units.parse_time),
        ("bps", units.parse_rate),
    ]
    for suffix, parse in kinds:
        try:
            for v in values:
                parse(v)
        except (units.UnitError, ValueError, TypeError):
            continue
        return f"{axis}_{suffix}", parse
    return None
