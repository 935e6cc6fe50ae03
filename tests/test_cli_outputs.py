"""The files and commands people expect: ``mpsim run --out`` (every table as Parquet and CSV), ``-f csv``
and ``-f json`` for every table, a terminal table that never cuts a number, ``validate --resolved`` and
sweep files, ``mpsim show``, ``mpsim plot`` of a run, typed sweep axes with a CSV, per-path presets."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import mpsim
from mpsim._core import resolved_json
from mpsim.scenario import Scenario
from mpsim.textable import format_table

ROOT = Path(__file__).resolve().parents[1]
CSS = ROOT / "examples" / "css_shared_bottleneck.toml"

WIFI_LTE = """
duration = "10s"
[topology]
preset = "non_shared"
per_path = [
  { bottleneck = "20Mbps", delay = "5ms", buffer = "30pkt", loss = "0.5%" },   # WiFi
  { bottleneck = "10Mbps", delay = "40ms", buffer = "300pkt" },                # LTE
]
[[flows]]
name = "mp"
type = "mptcp"
src = "S0"
dst = "D0"
cc = "olia"
"""


def mpsim_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpsim.cli", *args], capture_output=True, text=True, timeout=120)


def test_run_out_writes_every_table_and_plot_and_show_read_it(tmp_path: Path) -> None:
    data = tomllib.loads(CSS.read_text())
    data["trace"] = {"flows": ["short"], "segments": ["short"], "queues": ["R1-R2"]}
    scenario = tmp_path / "s.toml"
    scenario.write_text(CSS.read_text() + '\n[trace]\nflows = ["short"]\nsegments = ["short"]\nqueues = ["R1-R2"]\n')
    out = tmp_path / "run"
    done = mpsim_cli("run", str(scenario), "--out", str(out))
    assert done.returncode == 0, done.stderr
    res = mpsim.run(data)
    for name, table in res.tables().items():
        assert pq.read_table(out / f"{name}.parquet").equals(table), name
        assert pacsv.read_csv(out / f"{name}.csv").num_rows == table.num_rows, name
    shown = mpsim_cli("show", str(out))
    assert shown.returncode == 0, shown.stderr
    assert f"segment_traces: {res.segment_traces.num_rows} rows" in shown.stdout
    plotted = mpsim_cli("plot", str(out))
    assert plotted.returncode == 0, plotted.stderr
    assert sorted(p.name for p in (out / "plots").glob("*.png")) == ["cwnd.png", "queue.png", "sequence.png"]


def test_csv_and_json_of_any_table_with_nulls(tmp_path: Path) -> None:
    done = mpsim_cli("run", str(CSS), "-f", "csv", "--table", "links")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith('"name","from","to"')
    assert len(done.stdout.splitlines()) == 1 + 16
    js = mpsim_cli("run", str(CSS), "-f", "json", "--table", "flows")
    rows = json.loads(js.stdout)
    assert {r["name"]: r["fct_s"] for r in rows}["long"] is None  # a long-lived flow has no completion time
    every = json.loads(mpsim_cli("run", str(CSS), "-f", "json").stdout)
    assert set(every) == set(mpsim.run(CSS).tables())
    bad = mpsim_cli("run", str(CSS), "--table", "flow")
    assert bad.returncode == 2 and "--table: unknown table 'flow'" in bad.stderr and "did you mean" in bad.stderr


def test_the_terminal_table_keeps_every_digit_and_is_fast() -> None:
    n = 100_000
    table = pa.table({"name": [f"f{i}" for i in range(n)], "bytes_delivered": [10**12 + i for i in range(n)]})
    lines = format_table(table).splitlines()
    assert len(lines) == 2 + n and lines[-1].split() == ["f99999", str(10**12 + 99_999)]
    short = format_table(table, max_rows=10).splitlines()
    assert short[-1] == f"(the first 10 of {n} rows; --max-rows shows more)"


def test_validate_resolved_shows_the_profile_and_reads_sweeps(tmp_path: Path) -> None:
    done = mpsim_cli("validate", str(CSS), "--resolved")
    assert done.returncode == 0, done.stderr
    assert "valid (" in done.stderr  # stdout is the JSON alone
    resolved = json.loads(done.stdout)
    assert resolved["config"] == mpsim.load(CSS).to_core()
    flows = {f["name"]: f for f in resolved["flows"]}
    assert set(flows) == {"short", "long"}
    short, long = flows["short"], flows["long"]
    # The linux profile's values, typed: MSS, initial window, minimum RTO (200 ms in ns), delayed ACK.
    assert (short["kind"], short["profile"]) == ("mptcp", "linux")
    assert (short["tcp"]["mss"], short["tcp"]["initial_cwnd_segments"]) == (1400, 10)
    assert short["tcp"]["rtt"]["min_rto"] == 200_000_000 and short["tcp"]["receiver"]["delack_timeout"] == 40_000_000
    assert short["tcp"]["initial_ssthresh_bytes"] == 65535  # the flow's override
    assert short["tcp"]["sack"] is True and short["tcp"]["recovery"] == "prr"
    # Unset values are null: no send buffer limit, no HyStart++.
    assert long["tcp"]["send_buffer_bytes"] is None and long["tcp"]["hystart"] is None
    # What runs, with every parameter: the flows' LIA with CSS, and Reno with the standard slow start.
    assert short["cc"] == {"type": "lia", "flavour": short["cc"]["flavour"]} and short["slow_start"]["type"] == "css"
    assert long["cc"] == {"type": "reno", "counting": None} and long["slow_start"]["type"] == "standard"
    # Without `cc`, a TCP flow of the linux profile runs CUBIC with Linux's HyStart, written out in full.
    data = tomllib.loads(CSS.read_text())
    del data["flows"][1]["cc"]
    (cubic,) = (
        f for f in json.loads(resolved_json(json.dumps(Scenario.from_dict(data).to_core()))) if f["name"] == "long"
    )
    assert cubic["cc"]["type"] == "cubic" and cubic["slow_start"]["type"] == "hystart_linux"
    assert cubic["slow_start"]["low_window_segments"] == 16  # tcp_cubic.c hystart_low_window
    sweep = mpsim_cli("validate", str(ROOT / "examples" / "css_buffer_sweep.toml"))
    assert sweep.returncode == 0, sweep.stderr
    assert "valid sweep (3 variants × 3 topology.buffer = 9 scenarios, 2 seeds each: 18 runs)" in sweep.stdout
    points = json.loads(mpsim_cli("validate", str(ROOT / "examples" / "css_buffer_sweep.toml"), "--resolved").stdout)
    assert len(points["points"]) == 9
    buffers = {p["axes"]["topology.buffer"] for p in points["points"]}
    assert len(buffers) == 3 and all(isinstance(p["flows"][0]["tcp"]["mss"], int) for p in points["points"])
    bad = tmp_path / "bad_sweep.toml"
    bad.write_text(f'base = "{CSS}"\nseeds = [1]\n[axes]\n"topology.buffer" = ["20pkt", "-3pkt"]\n')
    failed = mpsim_cli("validate", str(bad))
    assert failed.returncode == 2 and "topology.buffer" in failed.stderr and "-3pkt" in failed.stderr


def test_per_path_presets_give_each_path_its_own_bottleneck() -> None:
    s = Scenario.from_dict(tomllib.loads(WIFI_LTE))
    links = {link["name"]: link for link in s.to_core()["links"]}
    wifi, lte = links["A1-B1"], links["A2-B2"]
    assert (wifi["rate_bps"], wifi["delay_ns"], wifi["queue"]["limit_pkts"]) == (20_000_000, 5_000_000, 30)
    assert wifi["loss"] == {"type": "bernoulli", "p": 0.005}
    assert (lte["rate_bps"], lte["delay_ns"], lte["queue"]["limit_pkts"]) == (10_000_000, 40_000_000, 300)
    assert lte.get("loss", {"type": "none"}) == {"type": "none"}
    data = tomllib.loads(WIFI_LTE)
    data["topology"]["per_path"] = data["topology"]["per_path"][:1]
    with pytest.raises(mpsim.ConfigError, match="per_path has 1 entries but there are 2 paths"):
        Scenario.from_dict(data)


def test_show_summarises_a_sweep_store_and_a_reproduction(tmp_path: Path) -> None:
    from mpsim.store import RunStore

    store = RunStore(tmp_path / "sweep")
    store.prepare()
    store.write("k1", pa.table({"flow": ["f"], "fct_s": [1.5]}))
    points = [
        {"key": k, "variant": "LIA", "seed": s, "axes": {"topology.buffer": b}}
        for k, s, b in (("k1", 1, "20pkt"), ("k2", 2, "20pkt"))
    ]
    store.write_manifest({"axes": ["topology.buffer"], "variants": ["LIA"], "points": points})
    shown = mpsim_cli("show", str(tmp_path / "sweep"))
    assert shown.returncode == 0, shown.stderr
    assert 'axis topology.buffer: "20pkt"' in shown.stdout and "runs: 1 of 2 finished, 0 timed out" in shown.stdout
    experiment = tmp_path / "repro" / "css-shared-filesize"
    experiment.mkdir(parents=True)
    pq.write_table(pa.table({"x": [1, 2, 3]}), experiment / "results.parquet")
    (experiment / "figure.png").write_bytes(b"png")
    for where in (tmp_path / "repro", experiment):
        shown = mpsim_cli("show", str(where))
        assert shown.returncode == 0 and "css-shared-filesize: 3 rows; figure.png" in shown.stdout, shown.stdout
    empty = mpsim_cli("show", str(tmp_path))
    assert empty.returncode == 2 and "holds no sweep store" in empty.stderr
