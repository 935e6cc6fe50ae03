"""Goodput per flow and per subflow: bytes delivered in order over the time the flow was active (its start to
its completion, or to the end of the run), in the flows and subflows tables, the default sweep extractor and
``mpsim run``'s outputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mpsim
from mpsim.engine import Results
from mpsim.sweep import flow_metrics

LINE_RATE_MBPS = 10.0
PAYLOAD_SHARE = 1400 / 1440
"""Of each 1440-byte packet of the default profile, 1400 bytes are payload (40 bytes of headers)."""


def one_link(**flow: Any) -> dict[str, Any]:
    """A sender and a receiver on one 10 Mbit/s, 10 ms link with a 100-packet buffer and no random loss."""
    return {
        "duration": "20s",
        "hosts": ["A", "B"],
        "links": [{"from": "A", "to": "B", "rate": "10Mbps", "delay": "10ms", "buffer": "100pkt"}],
        "flows": [{"name": "bulk", "type": "tcp", "src": "A", "dst": "B", **flow}],
    }


def test_a_bulk_flow_on_a_lossless_link_has_the_line_rate_times_the_payload_share() -> None:
    res = mpsim.run(one_link())
    (row,) = res.flows.to_pylist()
    assert row["fct_s"] is None  # never completes: goodput is taken to the end of the run
    assert row["goodput_mbps"] == pytest.approx(row["bytes_delivered"] * 8 / 20.0 / 1e6)
    # The first round trips of slow start cost a little under 1 % of 20 s.
    assert 0.98 * LINE_RATE_MBPS * PAYLOAD_SHARE < row["goodput_mbps"] <= LINE_RATE_MBPS * PAYLOAD_SHARE


def test_a_finished_flow_counts_from_its_start_to_its_completion() -> None:
    res = mpsim.run(one_link(size="1MB", start="1s"))
    (row,) = res.flows.to_pylist()
    (tcp,) = res.tcp_flows.to_pylist()
    active_s = (tcp["completed_ns"] - 1_000_000_000) / 1e9
    assert row["goodput_mbps"] == pytest.approx(1_000_000 * 8 / active_s / 1e6, rel=1e-12)
    # Stored results (what `mpsim run --out` keeps) give the same column.
    assert Results(res.raw).flows.column("goodput_mbps").to_pylist() == [row["goodput_mbps"]]


def test_subflows_add_up_to_about_their_connections_goodput() -> None:
    res = mpsim.run(
        {
            "duration": "10s",
            "topology": {"preset": "non_shared", "bottleneck": "10Mbps", "delay": "10ms", "buffer": "100pkt"},
            "flows": [{"name": "mp", "type": "mptcp", "src": "S0", "dst": "D0"}],
        }
    )
    (connection,) = res.flows.to_pylist()
    subflows = res.mptcp_subflows.to_pylist()
    assert len(subflows) == 2
    for s in subflows:
        assert s["goodput_mbps"] == pytest.approx(s["bytes_delivered"] * 8 / 10.0 / 1e6)
        assert s["goodput_mbps"] <= LINE_RATE_MBPS * PAYLOAD_SHARE
    total = sum(s["goodput_mbps"] for s in subflows)
    # Two disjoint 10 Mbit/s paths: about twice one path; the subflows' in-order bytes also hold data the
    # connection has not yet delivered in order or received twice.
    assert 1.85 * LINE_RATE_MBPS * PAYLOAD_SHARE < connection["goodput_mbps"] <= total
    assert total == pytest.approx(connection["goodput_mbps"], rel=0.02)


def test_the_default_sweep_extractor_gives_goodput_for_a_flow_that_never_completes() -> None:
    config = mpsim.Scenario.from_dict(one_link()).to_core()
    res = mpsim.run_config(config)
    (row,) = flow_metrics(res, config)
    assert row["fct_s"] != row["fct_s"]  # NaN: no completion
    assert row["goodput_mbps"] == res.flows.column("goodput_mbps")[0].as_py()


BULK_TOML = """
duration = "20s"
hosts = ["A", "B"]
links = [{ from = "A", to = "B", rate = "10Mbps", delay = "10ms", buffer = "100pkt" }]
flows = [{ name = "bulk", type = "tcp", src = "A", dst = "B" }]
"""
"""The scenario of :func:`one_link`, as a file."""


def mpsim_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpsim.cli", *args], capture_output=True, text=True, timeout=120)


def test_run_prints_goodput_with_its_definition_and_writes_it_to_csv_and_json(tmp_path: Path) -> None:
    file = tmp_path / "bulk.toml"
    file.write_text(BULK_TOML)
    expected = mpsim.run(one_link()).flows.column("goodput_mbps")[0].as_py()
    text = mpsim_cli("run", str(file))
    assert text.returncode == 0, text.stderr
    definition = "goodput: bytes delivered in order / time active (start to completion, or to the end of the run)"
    assert definition in text.stdout
    header, _, row = text.stdout.split("flows (seed 1")[1].splitlines()[1:4]
    assert header.split()[:7] == ["name", "kind", "subflows", "start_s", "fct_s", "bytes_delivered", "goodput_mbps"]
    assert float(row.split()[6]) == pytest.approx(expected, rel=1e-5)
    as_json = mpsim_cli("run", str(file), "-f", "json", "-t", "flows")
    assert json.loads(as_json.stdout)[0]["goodput_mbps"] == pytest.approx(expected)
    as_csv = mpsim_cli("run", str(file), "-f", "csv")
    names, values = as_csv.stdout.splitlines()[:2]
    column = names.split(",").index('"goodput_mbps"')
    assert float(values.split(",")[column]) == pytest.approx(expected)
