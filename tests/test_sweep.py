"""Sweeps: dotted-path settings, a store that survives SIGKILL without losing, repeating or tearing
a run, the same rows from local processes and from a Dask cluster, pluggable extraction, plots."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mpsim.engine import Results
from mpsim.store import RunStore, load_results
from mpsim.sweep import SweepSpec, load_sweep, run_sweep, set_path

ROOT = Path(__file__).resolve().parents[1]

BASE = """
seed = 1
duration = "10s"

[topology]
preset = "shared_bottleneck"
paths = 2
buffer = "47pkt"
background = 1

[[flows]]
name = "short"
type = "mptcp"
src = "S0"
dst = "D0"
size = "200pkt"
start = { uniform = ["0.1s", "0.5s"] }

[[flows]]
name = "long"
type = "tcp"
src = "S1"
dst = "D1"
size = "1MB"
cc = "reno"
"""

SWEEP = """
base = "base.toml"
seeds = [1, 2]

[axes]
"topology.buffer" = {buffers}

[variants.LIA]
flows.short.cc = "lia"
[variants.OLIA]
flows.short.cc = "olia"
"""


def write_sweep(tmp: Path, buffers: list[str]) -> Path:
    (tmp / "base.toml").write_text(BASE)
    path = tmp / "sweep.toml"
    path.write_text(SWEEP.format(buffers="[" + ", ".join(f'"{b}"' for b in buffers) + "]"))
    return path


def sorted_rows(table: pa.Table) -> list[dict[str, Any]]:
    """Rows in a fixed order, NaN made comparable."""
    rows = [
        {k: ("nan" if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()} for r in table.to_pylist()
    ]
    return sorted(rows, key=lambda r: (r["key"], r.get("flow") or ""))


def test_set_path_by_name_index_and_through_strings() -> None:
    data: dict[str, Any] = {"flows": [{"name": "a", "cc": "cubic"}, {"name": "b"}], "topology": {"preset": "dumbbell"}}
    set_path(data, "flows.a.cc.beta", 0.5)
    set_path(data, "flows.1.size", "1MB")
    set_path(data, "topology.buffer", "20pkt")
    assert data["flows"][0]["cc"] == {"type": "cubic", "beta": 0.5}
    assert data["flows"][1]["size"] == "1MB"
    assert data["topology"]["buffer"] == "20pkt"
    with pytest.raises(KeyError, match=r"flows\.c: no item named 'c' \(known: a, b\)"):
        set_path(data, "flows.c.size", 1)


def test_points_are_the_product_of_variants_axes_and_seeds(tmp_path: Path) -> None:
    spec = load_sweep(write_sweep(tmp_path, ["20pkt", "47pkt", "100pkt"]))
    points = list(spec.points())
    assert len(points) == 2 * 3 * 2
    assert {p.variant for p in points} == {"LIA", "OLIA"}
    cfg = spec.scenario(points[0]).to_core(points[0].seed)
    assert cfg["mptcp_connections"][0]["cc"] == {"type": "lia"}
    assert cfg["links"][0]["queue"] == {"type": "drop_tail", "limit_pkts": 20}


def test_a_bad_point_names_variant_and_axis_values(tmp_path: Path) -> None:
    spec = load_sweep(write_sweep(tmp_path, ["20pkt", "0pkt"]))
    from mpsim import ScenarioError

    with pytest.raises(ScenarioError) as info:
        run_sweep(spec, tmp_path / "out", jobs=1, progress=False)
    assert str(info.value).splitlines() == [
        "topology.buffer (at variants.LIA, topology.buffer = '0pkt'): must be at least 1 packet or 1 byte, got '0pkt'",
        "topology.buffer (at variants.OLIA, topology.buffer = '0pkt'): must be at least 1 packet or 1 byte, got '0pkt'",
    ]
    assert not (tmp_path / "out" / "runs").exists()


def one_row(results: Results, config: Any) -> dict[str, Any]:
    """An experiment-style extractor: one row with the short flow's completion time."""
    row = next(r for r in results.flows.to_pylist() if r["name"] == "short")
    return {"fct_s": row["fct_s"], "bottleneck_drops": results.link("R1-R2")["dropped_overflow_pkts"]}


def test_custom_extractor_and_resume_without_rerunning(tmp_path: Path) -> None:
    spec = load_sweep(write_sweep(tmp_path, ["20pkt", "47pkt"]))
    out = tmp_path / "out"
    table = run_sweep(spec, out, jobs=2, extract=one_row, progress=False)
    assert table.num_rows == 8
    assert {"key", "variant", "seed", "topology.buffer", "fct_s", "bottleneck_drops"} <= set(table.column_names)
    stamps = {p.name: p.stat().st_mtime_ns for p in RunStore(out).files()}
    assert len(stamps) == 8
    again = run_sweep(spec, out, jobs=2, extract=one_row, progress=False)
    assert {p.name: p.stat().st_mtime_ns for p in RunStore(out).files()} == stamps
    assert sorted_rows(again) == sorted_rows(table)
    assert pq.read_table(out / "results.parquet").num_rows == 8


@pytest.mark.timeout(180)
def test_sigkill_midway_then_resume_gives_the_uninterrupted_rows(tmp_path: Path) -> None:
    buffers = [f"{b}pkt" for b in range(10, 110, 10)]
    sweep = write_sweep(tmp_path, buffers)
    total = 2 * len(buffers) * 2
    reference = run_sweep(load_sweep(sweep), tmp_path / "reference", jobs=2, progress=False)

    out = tmp_path / "killed"
    store = RunStore(out)
    cmd = [sys.executable, "-m", "mpsim.cli", "sweep", str(sweep), "--out", str(out), "--jobs", "1", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            n = len(store.files())
            if n >= 3:
                break
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    stored = len(store.files())
    assert 3 <= stored < total, "the sweep must be killed midway"
    # Whatever was stored is whole.
    for p in store.files():
        pq.read_table(p)

    before = {p.name: p.stat().st_mtime_ns for p in store.files()}
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
    assert resumed.returncode == 0, resumed.stderr
    after = {p.name: p.stat().st_mtime_ns for p in store.files()}
    assert len(after) == total
    assert all(after[k] == v for k, v in before.items()), "a finished run was run again"
    assert not list(store.runs.glob("*/.tmp-*"))
    final = load_results(out)
    # Exactly one row per point and flow, identical to the uninterrupted sweep.
    assert final.num_rows == 2 * total
    assert len({(r["key"], r["flow"]) for r in final.to_pylist()}) == 2 * total
    assert sorted_rows(final) == sorted_rows(reference)


@pytest.mark.timeout(240)
def test_dask_local_cluster_gives_the_local_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers on this machine share the store: they write every run, the client none. Two sweeps of the
    same runs at once on one cluster each get all their runs stored."""
    import threading

    from distributed import LocalCluster

    spec = load_sweep(write_sweep(tmp_path, ["20pkt", "47pkt"]))
    local = run_sweep(spec, tmp_path / "local", jobs=2, progress=False)
    written_by_client: list[str] = []
    client_write = RunStore.write

    def counted(self: RunStore, key: str, table: pa.Table) -> Path:
        written_by_client.append(key)
        return client_write(self, key, table)

    monkeypatch.setattr(RunStore, "write", counted)  # in this process only: the workers are processes of their own
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = run_sweep(
            spec, tmp_path / "dask", executor="dask", scheduler=cluster.scheduler_address, progress=False
        )
        assert written_by_client == []
        twins: dict[str, pa.Table] = {}

        def sweep(name: str) -> None:
            twins[name] = run_sweep(
                spec, tmp_path / name, executor="dask", scheduler=cluster.scheduler_address, progress=False
            )

        threads = [threading.Thread(target=sweep, args=(name,)) for name in ("a", "b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert remote.num_rows == local.num_rows == 16
    assert sorted_rows(remote) == sorted_rows(local)
    assert sorted_rows(twins["a"]) == sorted_rows(twins["b"]) == sorted_rows(local)
    assert len(RunStore(tmp_path / "a").files()) == len(RunStore(tmp_path / "b").files()) == 8


def test_a_chunk_of_runs_keeps_each_runs_rows_or_error() -> None:
    from mpsim.bench import dumbbell_config
    from mpsim.sweep import Outcome, execute_chunk

    good = dumbbell_config(2)
    good["stop_time_ns"] = 100_000_000
    bad = dict(good, tcp_flows=[dict(f, cc={"type": "no-such-cc"}) for f in good["tcp_flows"]])

    def rows(res: Results, _cfg: Any) -> dict[str, Any]:
        return {"events": res.events_processed}

    results = execute_chunk([good, bad, good], rows)
    assert [type(r) for r in results] == [pa.Table, Outcome, pa.Table]
    first, failed, last = results
    assert isinstance(first, pa.Table) and isinstance(last, pa.Table)
    assert first.to_pylist() == last.to_pylist() and first.column("events")[0].as_py() > 0
    assert isinstance(failed, Outcome) and failed.kind == "failed" and failed.message


def test_a_dask_worker_stores_runs_only_in_the_store_it_was_sent_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that sees the sweep's store (same identity at the same path) writes the rows there itself;
    one that finds no store, another store, or a copy made before the sweep began, at that path returns the
    rows and writes nothing; so does one whose write fails. Failed runs give their outcome either way."""
    from mpsim.sweep import Outcome, _columns, _Runner, _Task, execute_chunk_into, flow_metrics, run_key

    spec = load_sweep(write_sweep(tmp_path, ["20pkt"]))
    points = list(spec.points())[:2]
    configs = [spec.scenario(p).to_core(p.seed) for p in points]
    tasks = [_Task(run_key(c, flow_metrics), c, p) for p, c in zip(points, configs, strict=True)]
    bad_config = dict(configs[0], tcp_flows=[dict(f, cc={"type": "no-such-cc"}) for f in configs[0]["tcp_flows"]])
    bad = _Task(run_key(bad_config, flow_metrics), bad_config, points[0])
    axes = ["topology.buffer"]
    store = RunStore(tmp_path / "store")
    store.prepare()
    earlier = store.new_identity()
    identity = store.new_identity()
    assert len(identity) == 32 and identity != earlier and store.is_store(identity) and not store.is_store(earlier)

    # Another machine's disk: nothing at that path, another store, or a copy with the identity of before.
    nowhere = str(tmp_path / "nowhere")
    returned = execute_chunk_into(nowhere, identity, tasks, flow_metrics, axes)
    assert all(isinstance(r, pa.Table) and r.num_rows > 0 for r in returned)
    assert not (tmp_path / "nowhere").exists()
    other = RunStore(tmp_path / "other")
    other.prepare()
    other.new_identity()
    assert all(isinstance(r, pa.Table) for r in execute_chunk_into(str(other.out), identity, tasks, flow_metrics, []))
    assert all(isinstance(r, pa.Table) for r in execute_chunk_into(str(store.out), earlier, tasks, flow_metrics, []))
    assert other.files() == [] and store.files() == []

    # A store it cannot write to after all: the rows go back.
    def refuse(self: RunStore, key: str, table: pa.Table) -> Path:
        raise PermissionError(13, "Permission denied")

    with monkeypatch.context() as m:
        m.setattr(RunStore, "write", refuse)
        assert all(
            isinstance(r, pa.Table) for r in execute_chunk_into(str(store.out), identity, tasks, flow_metrics, axes)
        )
    assert store.files() == []

    # The store itself: the rows are written, exactly those the client would have written; a failed run
    # gives its outcome.
    first, failed, last = execute_chunk_into(str(store.out), identity, [tasks[0], bad, tasks[1]], flow_metrics, axes)
    assert first is None and last is None
    assert isinstance(failed, Outcome) and failed.kind == "failed" and "no-such-cc" in failed.message
    assert sorted(p.stem for p in store.files()) == sorted(t.key for t in tasks)
    for t, rows in zip(tasks, returned, strict=True):
        assert isinstance(rows, pa.Table)
        assert store.read(t.key).equals(_columns(rows, t, axes))

    # The client checks that what workers reported stored is in its store.
    runner = _Runner(store, flow_metrics, axes, False, 3, None, None)
    runner.confirm_stored(tasks)
    assert runner.failures == []
    runner.confirm_stored([bad])
    assert len(runner.failures) == 1 and "not in" in runner.failures[0]


def test_plots_of_a_store_and_of_traces(tmp_path: Path) -> None:
    from mpsim import plots, run
    from mpsim.scenario import Scenario

    spec = load_sweep(write_sweep(tmp_path, ["20pkt", "47pkt"]))
    run_sweep(spec, tmp_path / "out", jobs=2, progress=False)
    # Axis values keep their type, with their value in the base unit beside them; a CSV beside the Parquet.
    table = pq.read_table(tmp_path / "out" / "results.parquet")
    assert table.schema.field("topology.buffer").type == pa.string()
    assert table.schema.field("topology.buffer_pkts").type == pa.int64()
    assert sorted(set(table.column("topology.buffer_pkts").to_pylist())) == [20, 47]
    csv = (tmp_path / "out" / "results.csv").read_text().splitlines()
    assert len(csv) == 1 + table.num_rows and '"topology.buffer_pkts"' in csv[0]
    paths = plots.plot_store(tmp_path / "out", flows=["short"], metrics=["fct_s"], errors="std")
    assert sorted(p.name for p in paths) == ["short-fct_s.png", "short-fct_s.svg"]
    assert all(p.stat().st_size > 1000 for p in paths)

    s = Scenario.from_toml(ROOT / "examples" / "lisa_non_shared.toml")
    res = run(s)
    for fig, name in ((plots.plot_cwnd(res), "cwnd"), (plots.plot_queue(res, "A1-B1"), "queue")):
        saved = plots.save(fig, tmp_path / name)
        assert [p.suffix for p in saved] == [".png", ".svg"]


def test_store_ignores_torn_temporary_files(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.prepare()
    torn = store.path("abcdef").parent / ".tmp-abcdef.parquet-123"
    torn.parent.mkdir()
    torn.write_bytes(b"PAR1 torn")
    store.write("k1", pa.table({"x": [1]}))
    assert store.done() == {"k1"}
    store.prepare()
    assert not torn.exists()


def test_spec_from_python() -> None:
    spec = SweepSpec(base={"duration": "1s"}, axes={"seed": [1, 2]}, runs=3)
    assert spec.seed_list == [1, 2, 3] and spec.variant_names == ["base"]
    assert len(list(spec.points())) == 6
