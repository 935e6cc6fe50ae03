"""docs/scenarios.md: every example it shows is a file in examples/ (the same text), and runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mpsim
from mpsim.sweep import load_sweep, run_sweep

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "scenarios.md").read_text()
BLOCKS = re.findall(r"<!-- example: (\S+) -->\n```(\w+)\n(.*?)```", DOC, re.S)
FILES = [(name, text) for name, lang, text in BLOCKS if lang == "toml"]
PYTHON = [text for name, lang, text in BLOCKS if lang == "python"]


def test_every_example_file_is_documented() -> None:
    documented = {name for name, _ in FILES}
    assert documented == {f"examples/{p.name}" for p in (ROOT / "examples").glob("*.toml")}
    assert PYTHON


@pytest.mark.parametrize(("name", "text"), FILES, ids=[n for n, _ in FILES])
def test_documented_example_is_the_file_and_runs(name: str, text: str, tmp_path: Path) -> None:
    path = ROOT / name
    assert path.read_text() == text
    if "base" in mpsim.scenario.read_toml(path):
        spec = load_sweep(path)
        table = run_sweep(spec, tmp_path / "out", jobs=2, progress=False)
        transfers = [f for f in spec.base["flows"] if f["type"] != "udp"]
        assert table.num_rows == len(list(spec.points())) * len(transfers)
    else:
        res = mpsim.run(path)
        assert res.flows.num_rows >= 1
        assert all(r["bytes_delivered"] > 0 for r in res.flows.to_pylist())


@pytest.mark.parametrize("code", PYTHON)
def test_documented_python_runs(code: str) -> None:
    exec(compile(code, "docs/scenarios.md", "exec"), {})
