"""The result store of a sweep: one Parquet file per finished run, written whole or not at all.

Layout under the output directory::

    sweep.json              the points: key, variant, axis values, seed (rewritten at each start)
    runs/<key>.parquet      the rows one run produced, with the point's columns
    results.parquet         every run's rows concatenated (written when a sweep finishes)

A run's key is a hash of its fully resolved core configuration (seed included) and of the row
extractor, so a finished run is recognised whatever the order of points, and a changed scenario or
extractor is run again. Files are written to a temporary name, flushed to disk and renamed, so a
sweep killed at any moment leaves only whole files; temporary leftovers are removed on the next
start.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["RunStore", "load_results"]

META_COLUMNS = ("key", "variant", "seed")


class RunStore:
    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)
        self.runs = self.out / "runs"

    def prepare(self) -> None:
        """Creates the directories and removes temporary files left by a killed sweep."""
        self.runs.mkdir(parents=True, exist_ok=True)
        for tmp in self.runs.glob(".tmp-*"):
            tmp.unlink(missing_ok=True)

    def done(self) -> set[str]:
        """Keys of the runs already stored."""
        if not self.runs.is_dir():
            return set()
        return {p.stem for p in self.runs.glob("*.parquet")}

    def path(self, key: str) -> Path:
        return self.runs / f"{key}.parquet"

    def write(self, key: str, table: pa.Table) -> Path:
        """Writes one run's rows atomically."""
        final = self.path(key)
        _atomic(final, lambda p: pq.write_table(table, p))
        return final

    def read(self, key: str) -> pa.Table:
        return pq.read_table(self.path(key))

    def write_manifest(self, manifest: Mapping[str, Any]) -> None:
        text = json.dumps(manifest, indent=1, sort_keys=True)
        _atomic(self.out / "sweep.json", lambda p: Path(p).write_text(text))

    def read_manifest(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads((self.out / "sweep.json").read_text())
        return result

    def results(self) -> pa.Table:
        """One row per (point, extracted row): the stored rows with each point's columns."""
        manifest = self.read_manifest()
        axes: list[str] = manifest["axes"]
        done = self.done()
        cache: dict[str, pa.Table] = {}
        parts = []
        for point in manifest["points"]:
            key = point["key"]
            if key not in done:
                continue
            if key not in cache:
                cache[key] = self.read(key)
            rows = cache[key]
            meta = {"key": key, "variant": point["variant"], "seed": point["seed"]}
            meta.update({a: point["axes"][a] for a in axes})
            rows = rows.drop_columns([c for c in (*META_COLUMNS, *axes) if c in rows.column_names])
            n = rows.num_rows
            columns = {k: pa.array([v] * n, type=pa.int64() if k == "seed" else pa.string()) for k, v in meta.items()}
            parts.append(pa.table({**columns, **{c: rows.column(c) for c in rows.column_names}}))
        if not parts:
            return pa.table({c: pa.array([], pa.string()) for c in ("key", "variant", *axes)})
        return pa.concat_tables(parts, promote_options="default")

    def consolidate(self) -> pa.Table:
        """Writes ``results.parquet`` (every run's rows) and returns those rows."""
        table = self.results()
        final = self.out / "results.parquet"
        _atomic(final, lambda p: pq.write_table(table, p))
        return table


def _atomic(final: Path, write: Any) -> None:
    tmp = final.parent / f".tmp-{final.name}-{os.getpid()}"
    try:
        write(str(tmp))
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            tmp.unlink()


def load_results(out: str | Path) -> pa.Table:
    """The rows of a sweep's store (finished runs only), one per point and extracted row."""
    return RunStore(out).results()
