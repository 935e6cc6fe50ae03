"""Stored results cannot go stale: a run's key holds the engine's identity (derived from the core's
sources at build time) and the extractor's code, so a rebuilt engine or an edited extractor runs again,
and an unchanged one never does."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import mpsim
from mpsim import fingerprint, sweep
from mpsim.store import RunStore, load_results
from mpsim.sweep import load_sweep, run_sweep
from test_sweep import write_sweep

ROOT = Path(__file__).resolve().parents[1]


def tree_engine_id() -> str:
    """The engine identity as crates/mpsim-core/build.rs defines it, computed here from the tree."""
    files: list[str] = []
    for rel in (
        "Cargo.toml",
        "Cargo.lock",
        "crates/mpsim-core/Cargo.toml",
        "crates/mpsim-core/build.rs",
        "crates/mpsim-core/src",
        "crates/mpsim-py/Cargo.toml",
        "crates/mpsim-py/src",
    ):
        path = ROOT / rel
        if path.is_file():
            files.append(rel)
        else:
            files += [p.relative_to(ROOT).as_posix() for p in path.rglob("*") if p.is_file()]
    h = hashlib.sha256()
    for rel in sorted(files):
        data = (ROOT / rel).read_bytes()
        h.update(rel.encode() + b"\0" + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()[:20]


def test_the_engine_identity_is_the_hash_of_the_sources_it_was_built_from() -> None:
    # Fails when the installed core was built from other sources than the tree's: exactly the case in
    # which stored results must not be reused.
    assert mpsim.engine_id() == tree_engine_id()


def load_module(path: Path, name: str, body: str) -> ModuleType:
    path.write_text(body)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


EXTRACTOR = """
def scale():
    return {factor}

def rows(results, config):
    row = next(r for r in results.flows.to_pylist() if r["name"] == "short")
    return {{"fct_ms": row["fct_s"] * scale()}}
"""


def one_point_sweep(tmp_path: Path) -> Any:
    spec = load_sweep(write_sweep(tmp_path, ["20pkt"]))
    return spec.model_copy(update={"seeds": [1], "variants": {"LIA": spec.variants["LIA"]}})


def runs_done(spec: Any, out: Path, extract: Any) -> int:
    """How many runs a sweep actually ran (not found in its store)."""
    ran = 0
    original = sweep.execute

    def counting(config: Any, extractor: Any, *rest: Any) -> Any:
        nonlocal ran
        ran += 1
        return original(config, extractor, *rest)

    sweep.execute = counting  # type: ignore[assignment]
    try:
        run_sweep(spec, out, jobs=1, extract=extract, progress=False)
    finally:
        sweep.execute = original  # type: ignore[assignment]
    return ran


def test_editing_the_extractor_or_a_helper_it_calls_runs_again(tmp_path: Path) -> None:
    spec = one_point_sweep(tmp_path)
    out = tmp_path / "out"
    first = load_module(tmp_path / "ex_a.py", "mpsim_test_extract", EXTRACTOR.format(factor=1000))
    assert runs_done(spec, out, first.rows) == 1
    # The same code again (a fresh import of an unchanged file): nothing runs.
    same = load_module(tmp_path / "ex_b.py", "mpsim_test_extract", EXTRACTOR.format(factor=1000))
    assert runs_done(spec, out, same.rows) == 0
    # Only the helper changed, not the extractor's own lines: it runs again, with the new numbers.
    edited = load_module(tmp_path / "ex_c.py", "mpsim_test_extract", EXTRACTOR.format(factor=1))
    assert runs_done(spec, out, edited.rows) == 1
    stored = load_results(out).to_pylist()
    assert len(stored) == 1 and 0 < stored[0]["fct_ms"] < 100  # seconds, not milliseconds
    manifest = RunStore(out).read_manifest()
    code = fingerprint.code_fingerprint(edited.rows)
    assert manifest["extractor"] == {"name": "mpsim_test_extract:rows", "code": code}


def test_a_rebuilt_engine_runs_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = one_point_sweep(tmp_path)
    out = tmp_path / "out"
    assert runs_done(spec, out, None) == 1
    assert runs_done(spec, out, None) == 0
    assert RunStore(out).read_manifest()["engine"] == mpsim.engine_id()
    monkeypatch.setattr(sweep, "engine_id", lambda: "another-engine")
    assert runs_done(spec, out, None) == 1
    assert RunStore(out).read_manifest()["engine"] == "another-engine"


def test_captured_values_are_part_of_the_fingerprint() -> None:
    def make(factor: int) -> Any:
        def rows(results: Any, config: Any) -> dict[str, Any]:
            return {"x": factor}

        return rows

    assert fingerprint.code_fingerprint(make(1)) == fingerprint.code_fingerprint(make(1))
    assert fingerprint.code_fingerprint(make(1)) != fingerprint.code_fingerprint(make(2))
