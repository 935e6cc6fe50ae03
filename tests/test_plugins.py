"""Plug-ins (docs/plugins.md): the Python LIA, OLIA and minimum-RTT scheduler give the native algorithms'
result tables exactly; a failing hook, a bad window, a bad return value and a missing parameter each give
their error; a sweep over a plug-in's parameter stores the same with two workers as with one."""

from __future__ import annotations

import copy
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import mpsim
from mpsim import PluginError, ScenarioError
from mpsim.experiments import get
from mpsim.plugins import class_spec, load_class, source_fingerprint
from mpsim.scenario import Scenario, load
from mpsim.store import load_results
from mpsim.sweep import load_sweep, run_sweep

ROOT = Path(__file__).resolve().parents[1]
PLUGINS = ROOT / "examples" / "plugins"
BAD = ROOT / "tests" / "plugins" / "bad.py"
TABLES = ("flows", "mptcp_subflows", "mptcp_connections", "links")


def wifi_lte(**flow: Any) -> Scenario:
    scenario = load(ROOT / "examples" / "wifi_lte.toml")
    for key, value in flow.items():
        setattr(scenario.flows[0], key, value)
    return scenario


def tables(results: mpsim.Results) -> dict[str, pa.Table]:
    return {name: getattr(results, name) for name in TABLES}


def assert_identical(a: mpsim.Results, b: mpsim.Results) -> None:
    for name, table in tables(a).items():
        other = tables(b)[name]
        assert table.equals(other), f"{name} differs:\n{table.to_pylist()}\n{other.to_pylist()}"


@pytest.mark.parametrize("name", ["lia", "olia"])
def test_the_python_lia_and_olia_are_the_native_ones_on_the_wifi_lte_example(name: str) -> None:
    plugin = {"type": "python", "class": f"{PLUGINS / name}.py:{name.capitalize()}"}
    for seed in (1, 2):
        native = mpsim.run(wifi_lte(cc=name), seed=seed)
        python = mpsim.run(wifi_lte(cc=plugin), seed=seed)
        assert_identical(native, python)
        assert native.mptcp_subflows["fast_recoveries"].to_pylist() != [0, 0]  # losses were exercised


def test_the_python_minrtt_scheduler_is_the_native_one() -> None:
    plugin = {"type": "python", "class": f"{PLUGINS / 'minrtt.py'}:MinRtt"}
    native = mpsim.run(wifi_lte(scheduler="minrtt"))
    python = mpsim.run(wifi_lte(scheduler=plugin))
    assert_identical(native, python)


@pytest.mark.parametrize("profile", ["linux", "ns3", "rfc"])
def test_a_python_slow_start_is_the_native_standard_one(profile: str) -> None:
    """The Python base class's slow start, called for every ACK, under each way of counting: Linux's (no
    limit), ns-3's (one MSS per ACK) and RFC 3465's (L = 2)."""
    plugin = {"type": "python", "class": f"{ROOT / 'tests' / 'plugins' / 'standard.py'}:PythonStandard"}
    tcp = {"profile": profile}
    native = mpsim.run(wifi_lte(slow_start="standard", tcp=tcp, cc="lia"))
    python = mpsim.run(wifi_lte(slow_start=plugin, tcp=tcp, cc="lia"))
    assert_identical(native, python)


def with_plugin(config: dict[str, Any], cc: dict[str, Any]) -> dict[str, Any]:
    """The experiment's configuration with its congestion control, the paper's LIA, replaced by ``cc``."""
    config = copy.deepcopy(config)
    for m in config.get("mptcp_connections", []):
        m["cc"] = cc
    return config


@pytest.mark.parametrize(
    "experiment",
    [
        "css-sequence",
        "css-shared-filesize",
        "css-longlived",
        "lisa-motivation",
        "lisa-shared-filesize",
        "gsam-loss",
        "gsam-nonshared",
    ],
)
@pytest.mark.parametrize("name", ["lia", "olia"])
def test_the_python_lia_and_olia_are_the_native_ones_on_the_papers_experiments(experiment: str, name: str) -> None:
    """Every quick run of CSS, LISA and GSAM experiments (their slow starts, topologies, profiles, losses),
    with the paper flavour of the algorithm, native and in Python (LISA's and GSAM's experiments run the
    kernel's flavour of LIA, replaced here by the paper's on both sides)."""
    cls = load_class(f"{PLUGINS / name}.py:{name.capitalize()}")
    plugin = {"type": "python", "class": class_spec(cls), "params": {}, "source": source_fingerprint(cls)}
    for _, _, _, config in get(experiment).configs(quick=True):
        native = mpsim.run_config(with_plugin(config, {"type": name}))
        python = mpsim.run_config(with_plugin(config, plugin))
        assert_identical(native, python)


@pytest.mark.parametrize("experiment", ["css-shared-filesize", "gsam-loss"])
def test_the_python_minrtt_is_the_native_one_on_the_papers_experiments(experiment: str) -> None:
    cls = load_class(f"{PLUGINS / 'minrtt.py'}:MinRtt")
    plugin = {"class": class_spec(cls), "params": {}, "source": source_fingerprint(cls)}
    for _, _, _, config in get(experiment).configs(quick=True):
        native, python = copy.deepcopy(config), copy.deepcopy(config)
        for m in native["mptcp_connections"]:
            m["scheduler"] = "minrtt"
        for m in python["mptcp_connections"]:
            m["scheduler_plugin"] = plugin
        assert_identical(mpsim.run_config(native), mpsim.run_config(python))


def test_a_hook_that_raises_ends_the_run_with_its_traceback() -> None:
    with pytest.raises(PluginError, match=r"cong_avoid raised ZeroDivisionError.*subflow \d at") as e:
        mpsim.run(wifi_lte(cc={"type": "python", "class": f"{BAD}:Raises"}))
    cause = e.value.__cause__
    assert isinstance(cause, ZeroDivisionError)
    frames = [(f.filename, f.lineno) for f in __import__("traceback").extract_tb(cause.__traceback__)]
    assert (str(BAD), 8) in frames


def test_a_nan_window_names_the_field_and_the_value() -> None:
    with pytest.raises(PluginError, match=r"cong_avoid raised ValueError\('sf.cwnd = nan: must be a number of bytes"):
        mpsim.run(wifi_lte(cc={"type": "python", "class": f"{BAD}:NanWindow"}))


def test_a_bad_return_value_names_the_hook_and_the_value() -> None:
    with pytest.raises(PluginError, match=r"ssthresh returned 'half'.*expected a number of bytes"):
        mpsim.run(wifi_lte(cc={"type": "python", "class": f"{BAD}:BadSsthresh"}))


def test_parameters_are_checked_against_the_declaration() -> None:
    with pytest.raises(ScenarioError, match=r"parameter 'gain' of NeedsGain: Field required"):
        wifi_lte(cc={"type": "python", "class": f"{BAD}:NeedsGain"})
    with pytest.raises(ScenarioError, match=r"parameter 'target_ms' of DelayLia: Input should be greater than 0"):
        wifi_lte(cc={"type": "python", "class": f"{PLUGINS / 'delay_lia.py'}:DelayLia", "target_ms": -1})
    with pytest.raises(ScenarioError, match=r"parameter 'targt_ms' of DelayLia: Extra inputs are not permitted"):
        wifi_lte(cc={"type": "python", "class": f"{PLUGINS / 'delay_lia.py'}:DelayLia", "targt_ms": 5})
    with pytest.raises(ScenarioError, match=r"no file"):
        wifi_lte(cc={"type": "python", "class": "nowhere.py:Lia"})


def test_a_module_path_names_a_class_and_hooks_left_to_the_base_class_run_natively() -> None:
    """``package.module:Class``; a class that overrides no hook is the engine's Reno, to the bit."""
    base = {"type": "python", "class": "mpsim.plugins:CongestionControl"}
    assert_identical(mpsim.run(wifi_lte(cc=base)), mpsim.run(wifi_lte(cc="reno")))


def test_a_class_object_runs_as_its_file_does() -> None:
    cls = load_class(f"{PLUGINS / 'lia.py'}:Lia")
    assert_identical(mpsim.run(wifi_lte(cc=cls)), mpsim.run(wifi_lte(cc="lia")))


def test_the_cli_shows_the_plugins_traceback_and_exits_1(tmp_path: Path) -> None:
    plugin = f'cc = {{ type = "python", class = "{BAD}:Raises" }}'
    text = (ROOT / "examples" / "wifi_lte.toml").read_text().replace('cc = "olia"', plugin)
    (tmp_path / "s.toml").write_text(text)
    out = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", "run", str(tmp_path / "s.toml"), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stderr
    assert f'File "{BAD}", line 8, in cong_avoid' in out.stderr
    assert "cong_avoid raised ZeroDivisionError" in out.stderr


SWEEP_BASE = """
seed = 1
duration = "4s"

[topology]
preset = "non_shared"
per_path = [
  { bottleneck = "20Mbps", delay = "5ms", buffer = "30pkt", loss = "0.5%" },
  { bottleneck = "10Mbps", delay = "40ms", buffer = "300pkt" },
]

[[flows]]
name = "download"
type = "mptcp"
src = "S0"
dst = "D0"
cc = { type = "python", class = "PLUGIN:DelayLia" }
"""

SWEEP = """
base = "base.toml"
seeds = [1, 2]

[axes]
"flows.download.cc.target_ms" = [2.0, 20.0]
"""


def test_a_sweep_over_a_plugin_parameter_stores_the_same_with_two_workers(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(SWEEP_BASE.replace("PLUGIN", str(PLUGINS / "delay_lia.py")))
    (tmp_path / "sweep.toml").write_text(SWEEP)
    spec = load_sweep(tmp_path / "sweep.toml")
    one = run_sweep(spec, tmp_path / "one", jobs=1, progress=False)
    two = run_sweep(spec, tmp_path / "two", jobs=2, progress=False)
    assert one.num_rows == two.num_rows == 4
    assert sorted_rows(one) == sorted_rows(two) == sorted_rows(load_results(tmp_path / "two"))
    # The parameter changes the runs.
    assert len(set(one["key"].to_pylist())) == 4
    assert len(set(one["sum_cwnd_pkts"].to_pylist())) == 4


@pytest.mark.timeout(240)
def test_dask_workers_load_the_plugin_and_store_what_local_workers_do(tmp_path: Path) -> None:
    from distributed import LocalCluster

    (tmp_path / "base.toml").write_text(SWEEP_BASE.replace("PLUGIN", str(PLUGINS / "delay_lia.py")))
    (tmp_path / "sweep.toml").write_text(SWEEP)
    spec = load_sweep(tmp_path / "sweep.toml")
    local = run_sweep(spec, tmp_path / "local", jobs=2, progress=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = run_sweep(
            spec, tmp_path / "dask", executor="dask", scheduler=cluster.scheduler_address, progress=False
        )
    assert sorted_rows(remote) == sorted_rows(local)


def test_a_stored_run_is_keyed_by_the_plugins_source(tmp_path: Path) -> None:
    """An edited plug-in runs again: its source's fingerprint is part of the configuration the store keys,
    and the edited file is loaded anew."""
    source = (PLUGINS / "delay_lia.py").read_text()
    idea = tmp_path / "idea.py"
    idea.write_text(source)
    first = wifi_lte(cc={"type": "python", "class": f"{idea}:DelayLia"}).to_core()
    idea.write_text(source + "\n# edited\n")
    second = wifi_lte(cc={"type": "python", "class": f"{idea}:DelayLia"}).to_core()
    cc = [c["mptcp_connections"][0]["cc"] for c in (first, second)]
    assert cc[0]["class"] == cc[1]["class"] and cc[0]["source"] != cc[1]["source"]


def sorted_rows(table: pa.Table) -> list[dict[str, Any]]:
    rows = [{k: ("nan" if isinstance(v, float) and v != v else v) for k, v in r.items()} for r in table.to_pylist()]
    return sorted(rows, key=lambda r: (r["key"], r.get("flow") or ""))


def test_the_same_scenario_and_seed_give_the_same_results() -> None:
    plugin = {"type": "python", "class": f"{PLUGINS / 'delay_lia.py'}:DelayLia"}
    assert_identical(mpsim.run(wifi_lte(cc=plugin)), mpsim.run(wifi_lte(cc=plugin)))


def test_the_tutorials_idea_is_the_example_file() -> None:
    tutorial = (ROOT / "docs" / "tutorial.md").read_text()
    block = tutorial.split("<!-- file: delay_lia.py -->\n```python\n", 1)[1].split("```", 1)[0]
    assert block == (PLUGINS / "delay_lia.py").read_text()


def test_ctrl_c_stops_a_run_with_a_plugin_within_a_second(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "wifi_lte.toml").read_text()
    text = text.replace('duration = "10s"', 'duration = "3000s"')
    text = text.replace('cc = "olia"', f'cc = {{ type = "python", class = "{PLUGINS / "olia.py"}:Olia" }}')
    (tmp_path / "long.toml").write_text(text)
    cmd = [sys.executable, "-m", "mpsim.cli", "run", str(tmp_path / "long.toml"), "--out", str(tmp_path / "o")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)  # well into the run: imports, the plug-in loaded, hooks called
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 1.0
    assert proc.returncode == 130, err
    assert "interrupted (Ctrl-C)" in err
