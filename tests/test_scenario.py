"""The scenario model: TOML → core form → run, presets that expand as documented, and one clear
message per problem (path, value, what is allowed) for invalid input."""

from __future__ import annotations

import copy
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import mpsim
from mpsim.scenario import Scenario

ROOT = Path(__file__).resolve().parents[1]
CSS = ROOT / "examples" / "css_shared_bottleneck.toml"

FLOW_COLUMNS = [
    "name",
    "kind",
    "subflows",
    "start_s",
    "fct_s",
    "bytes_delivered",
    "retransmissions",
    "rto_count",
    "loss_probes",
    "cwnd_bytes_at_end",
    "cwnd_bytes_at_completion",
    "retransmissions_before_slow_start_exit",
    "cwnd_bytes_at_slow_start_exit",
    "goodput_mbps",
]


def test_toml_round_trip_gives_the_documented_columns() -> None:
    res = mpsim.run(CSS)
    flows = res.flows
    assert flows.column_names == FLOW_COLUMNS
    rows = {r["name"]: r for r in flows.to_pylist()}
    assert rows["short"]["kind"] == "mptcp" and rows["short"]["subflows"] == 2
    # 200 segments of 1400 B, delivered whole.
    assert rows["short"]["bytes_delivered"] == 280_000
    # The random start is drawn in [2 s, 5 s].
    assert 2.0 <= rows["short"]["start_s"] <= 5.0
    assert res.mptcp_subflows.num_rows == 2
    assert res.to_pandas().shape == (2, len(FLOW_COLUMNS))
    assert res.to_polars("links").height == 16


def test_trace_segments_of_an_mptcp_flow_and_an_unknown_name() -> None:
    data = tomllib.loads(CSS.read_text())
    data["trace"] = {"segments": ["short"]}
    res = mpsim.run(data)
    seg = res.segment_traces.to_pylist()
    assert {(r["flow"], r["subflow"]) for r in seg} == {("short", 0), ("short", 1)}
    # The 280 000 bytes are mapped once each over the two subflows (data sequence numbers from 1).
    sent = [r for r in seg if r["event"] == "send" and r["payload_bytes"] and not r["retransmission"]]
    mapped = sorted((r["data_seq"], r["data_seq"] + r["payload_bytes"]) for r in sent)
    assert mapped[0][0] == 1 and mapped[-1][1] == 280_001
    assert sum(b - a for a, b in mapped) >= 280_000
    data["trace"] = {"segments": ["cbr"]}
    with pytest.raises(mpsim.ConfigError, match=r"trace\.segments\[0\]: unknown TCP or MPTCP flow 'cbr'"):
        mpsim.run(data)


def test_same_seed_same_results_and_seed_override() -> None:
    s = mpsim.load(CSS)
    assert mpsim.run(s).raw == mpsim.run(s).raw
    other = mpsim.run(s, seed=2)
    assert other.seed == 2
    # The random start depends on the seed.
    assert s.to_core(1)["mptcp_connections"][0]["start_ns"] != s.to_core(2)["mptcp_connections"][0]["start_ns"]


def test_core_form_of_the_css_preset() -> None:
    cfg = mpsim.load(CSS).to_core()
    links = {link["name"]: link for link in cfg["links"]}
    bn = links["R1-R2"]
    assert (bn["rate_bps"], bn["delay_ns"], bn["queue"]) == (
        5_000_000,
        30_000_000,
        {"type": "drop_tail", "limit_pkts": 47},
    )
    # RTT of the path: 2 * (10 + 30 + 10) ms = 100 ms, as the paper states.
    one_way = links["S0.1-R1"]["delay_ns"] + bn["delay_ns"] + links["R2-D0"]["delay_ns"]
    assert 2 * one_way == 100_000_000
    assert cfg["addresses"] == [
        {"name": "S0.1", "node": "S0", "out_link": "S0.1-R1", "in_link": "R1-S0.1"},
        {"name": "S0.2", "node": "S0", "out_link": "S0.2-R1", "in_link": "R1-S0.2"},
    ]
    mp = cfg["mptcp_connections"][0]
    assert mp["src_addrs"] == ["S0.1", "S0.2"] and mp["dst_addrs"] == ["D0"]
    assert mp["size_bytes"] == 280_000 and mp["tcp"]["initial_ssthresh_bytes"] == 65_535
    assert cfg["udp_flows"][0]["pattern"] == {"type": "cbr", "rate_bps": 500_000}


def test_presets_from_python_in_a_few_lines() -> None:
    s = Scenario(
        duration="5s",
        topology=mpsim.shared_bottleneck(paths=2, bottleneck="5Mbps", delay="30ms", buffer="47pkt"),
        flows=[{"name": "mp", "type": "mptcp", "src": "S0", "dst": "D0", "size": "280KB", "cc": "olia"}],
    )
    res = mpsim.run(s)
    (row,) = res.flows.to_pylist()
    assert row["bytes_delivered"] == 280_000 and row["subflows"] == 2
    # Both interfaces carried data; only the bottleneck joins them.
    assert res.link("S0.1-R1")["delivered_pkts"] > 0 and res.link("S0.2-R1")["delivered_pkts"] > 0


def test_non_shared_paths_are_disjoint() -> None:
    s = Scenario(
        duration="5s",
        topology=mpsim.non_shared(paths=2, buffer="20pkt"),
        flows=[{"name": "t", "type": "tcp", "src": "S0.2", "dst": "D0", "size": "100KB"}],
    )
    res = mpsim.run(s)
    # A TCP flow from the second address uses only the second path, both ways.
    assert res.link("A2-B2")["delivered_pkts"] > 0 and res.link("B2-A2")["delivered_pkts"] > 0
    assert res.link("A1-B1")["arrived_pkts"] == 0 and res.link("B1-A1")["arrived_pkts"] == 0


def test_fat_tree_shape_and_ecmp() -> None:
    ft = mpsim.fat_tree(4)
    net = ft.expand()
    # k = 4: k³/4 = 16 hosts, 5k²/4 = 20 switches, 3k³/4 = 48 duplex links.
    assert (len(net.hosts), len(net.routers), len(net.links)) == (16, 20, 48)
    s = Scenario(
        duration="2s",
        topology=ft,
        flows=[{"name": "m", "type": "mptcp", "src": "h1", "dst": "h16", "subflows": 8, "size": "1MB"}],
    )
    res = mpsim.run(s)
    # h1 and h16 are in different pods: 8 subflows hashed over the (k/2)² = 4 core switches use
    # more than one of them (each core switch reaches pod 4 by one link).
    used = [c for c in range(1, 5) if res.link(f"c{c}-a4.{(c - 1) // 2 + 1}")["delivered_pkts"] > 0]
    assert len(used) >= 2
    assert res.flows.to_pylist()[0]["bytes_delivered"] == 1_000_000


# ---------------------------------------------------------------------------------------------- errors

Mutation = Callable[[dict[str, Any]], None]


def _set(*path: Any, value: Any) -> Mutation:
    def mutate(d: dict[str, Any]) -> None:
        node = d
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


INVALID: list[tuple[str, Mutation, str]] = [
    (
        "unknown algorithm",
        _set("flows", 0, "cc", value="lai"),
        "flows[0].cc: unknown algorithm 'lai'; did you mean 'lia'? (allowed: reno, cubic,",
    ),
    (
        "negative rate",
        _set("topology", "bottleneck", value="-5Mbps"),
        "topology.bottleneck: a rate must not be negative",
    ),
    ("zero rate", _set("flows", 2, "rate", value="0Mbps"), "flows[2].rate: must be a positive rate, got '0Mbps'"),
    (
        "bad unit",
        _set("topology", "delay", value="30 parsecs"),
        "topology.delay: unknown time unit 'parsecs' in '30 parsecs'; allowed: ns, us",
    ),
    ("missing node", _set("flows", 1, "src", value="S9"), "flows[1].src: unknown address or node 'S9' (known: D0, D1,"),
    (
        "buffer 0",
        _set("topology", "buffer", value="0pkt"),
        "topology.buffer: must be at least 1 packet or 1 byte, got '0pkt'",
    ),
    ("IW 0", _set("flows", 0, "tcp", "initial_cwnd", value=0), "flows[0].tcp.initial_cwnd: must be >= 1, got 0"),
    (
        "probability 1.5",
        _set("topology", "loss", value={"type": "bernoulli", "p": 1.5}),
        "topology.loss.p: must be a probability in [0, 1], got 1.5",
    ),
    (
        "duplicate flow names",
        _set("flows", 1, "name", value="short"),
        "flows[1].name: duplicate flow name 'short' (also in flows[0])",
    ),
    (
        "unknown key",
        _set("flows", 0, "sizee", value="1MB"),
        "flows[0].sizee: unknown field 'sizee'; did you mean 'size'? (allowed: name, start, initiator, src, dst, size,",
    ),
    (
        "unknown flow type",
        _set("flows", 0, "type", value="mptpc"),
        "flows[0]: unknown type 'mptpc'; did you mean 'mptcp'?",
    ),
    (
        "unknown profile",
        _set("flows", 0, "tcp", "profile", value="linus"),
        "flows[0].tcp.profile: 'linus' is not allowed; did you mean 'linux'? "
        "(allowed: linux, linux_3_14, ns3, rfc, ns2)",
    ),
    (
        "unknown slow start",
        _set("flows", 0, "slow_start", value="gasm"),
        "flows[0].slow_start: unknown slow start 'gasm'; did you mean 'gsam'?",
    ),
    (
        "unknown cubic parameter",
        _set("flows", 1, "cc", value={"type": "cubic", "betta": 0.5}),
        "flows[1].cc: unknown parameter 'betta' of cubic; did you mean 'beta'?",
    ),
    (
        "string for a boolean",
        _set("flows", 0, "trace", value="yes"),
        "flows[0].trace: expected true or false, got 'yes'",
    ),
    (
        "RED thresholds",
        _set("topology", "queue", value={"type": "red", "limit": 100, "min_th": 20, "max_th": 10}),
        "topology.queue: max_th (10.0) must be greater than min_th (20.0)",
    ),
    (
        "start after the end",
        _set("flows", 0, "start", value="30s"),
        "flows[0].start: 30s is at or after the end of the run (duration = 20s)",
    ),
    ("missing duration", lambda d: d.pop("duration"), "duration: required, but missing"),
    (
        "unknown traced link",
        _set("trace", value={"queues": ["R1-R3"]}),
        "trace.queues[0]: unknown link 'R1-R3'; did you mean 'R1-R2'?",
    ),
    # Found by the core's own check, translated to the scenario's names.
    (
        "ssthresh below 2 MSS",
        _set("flows", 0, "tcp", "initial_ssthresh", value="100B"),
        "flows[0].tcp.initial_ssthresh: must be at least 2 MSS (2800 bytes), got 100",
    ),
    (
        "CUBIC beta",
        _set("flows", 1, "cc", value={"type": "cubic", "beta": 1.5}),
        "flows[1].cc.beta: must be in (0, 1), got 1.5",
    ),
]


@pytest.mark.parametrize(("what", "mutate", "expected"), INVALID, ids=[w for w, _, _ in INVALID])
def test_invalid_input_names_path_value_and_allowed(what: str, mutate: Mutation, expected: str) -> None:
    data = tomllib.loads(CSS.read_text())
    mutate(data)
    with pytest.raises(mpsim.ScenarioError) as info:
        Scenario.from_dict(data)
    assert isinstance(info.value, mpsim.ConfigError)
    assert any(str(p).startswith(expected) for p in info.value.problems), str(info.value)


def test_every_problem_is_reported_at_once() -> None:
    data = tomllib.loads(CSS.read_text())
    data["flows"][0]["cc"] = "lai"
    data["flows"][2]["rate"] = "fast"
    data["topology"]["buffer"] = "0pkt"
    with pytest.raises(mpsim.ScenarioError) as info:
        Scenario.from_dict(data)
    paths = [p.path for p in info.value.problems]
    assert paths == ["topology.buffer", "flows[0].cc", "flows[2].rate"]
    assert len(str(info.value).splitlines()) == 3


def test_red_thresholds_in_a_written_link() -> None:
    data = {
        "duration": "1s",
        "hosts": ["A", "B"],
        "links": [
            {"from": "A", "to": "B", "rate": "1Mbps", "queue": {"type": "red", "limit": 10, "min_th": 5, "max_th": 2}}
        ],
    }
    with pytest.raises(
        mpsim.ScenarioError, match=r"links\[0\]\.queue: max_th \(2\.0\) must be greater than min_th \(5\.0\)"
    ):
        Scenario.from_dict(data)


def test_python_construction_raises_the_same_errors() -> None:
    with pytest.raises(mpsim.ScenarioError, match=r"^flows\[0\]\.cc: unknown algorithm 'olai'; did you mean 'olia'\?"):
        Scenario(duration="1s", flows=[{"name": "x", "type": "tcp", "src": "A", "dst": "B", "cc": "olai"}])


def _bad_file(tmp_path: Path) -> Path:
    data = CSS.read_text().replace('cc = "lia"', 'cc = "lai"').replace('buffer = "47pkt"', 'buffer = "0pkt"')
    bad = tmp_path / "bad.toml"
    bad.write_text(data)
    return bad


@pytest.mark.parametrize("command", ["validate", "run"])
def test_cli_exits_2_with_one_line_per_problem_and_no_traceback(tmp_path: Path, command: str) -> None:
    bad = _bad_file(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", command, str(bad)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert lines == [
        "error: topology.buffer: must be at least 1 packet or 1 byte, got '0pkt'",
        "error: flows[0].cc: unknown algorithm 'lai'; did you mean 'lia'? (allowed: reno, cubic, uncoupled, "
        "ewtcp, coupled, semicoupled, lia, olia, balia, mpcubic, unmpcubic, couple_plus, bbr, python)",
    ]


def test_cli_main_maps_errors_to_status_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mpsim import cli

    monkeypatch.setattr(sys, "argv", ["mpsim", "validate", str(_bad_file(tmp_path))])
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code == 2
    assert "flows[0].cc: unknown algorithm 'lai'" in capsys.readouterr().err
    monkeypatch.setattr(sys, "argv", ["mpsim", "validate", str(tmp_path / "missing.toml")])
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code == 2
    assert "missing.toml: cannot read" in capsys.readouterr().err


def test_cli_run_formats(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mpsim.cli import app

    runner = CliRunner()
    out = runner.invoke(app, ["run", str(CSS), "--format", "csv", "--seed", "3"])
    assert out.exit_code == 0, out.output
    header, *rows = out.stdout.strip().splitlines()
    assert header.replace('"', "").split(",") == FLOW_COLUMNS
    assert len(rows) == 2
    js = runner.invoke(app, ["run", str(CSS), "--format", "json"])
    assert js.exit_code == 0 and '"mptcp_connections"' in js.stdout
    for args in (["--help"], ["run", "--help"], ["validate", "--help"], ["sweep", "--help"], ["plot", "--help"]):
        assert runner.invoke(app, args).exit_code == 0


def test_copies_and_sequences_expand() -> None:
    data = copy.deepcopy(tomllib.loads(CSS.read_text()))
    data["flows"][0]["copies"] = 3
    cfg = Scenario.from_dict(data).to_core()
    assert [c["name"] for c in cfg["mptcp_connections"]] == ["short#0", "short#1", "short#2"]
    data["flows"][1]["size"] = "280KB"
    data["flows"][1]["sequence"] = {"count": 4, "gap": "1.2s", "distribution": "uniform"}
    cfg = Scenario.from_dict(data).to_core()
    assert cfg["tcp_flows"][0]["sequence"] == {
        "count": 4,
        "gap_mean_ns": 1_200_000_000,
        "gap_distribution": {"type": "uniform"},
    }


def test_the_core_reports_every_problem_at_once_with_path_value_and_allowed() -> None:
    """Three problems only the core checks, in two flows: all three come back, in the scenario's paths,
    each with the value found and what is allowed (not one, and not text to be parsed again)."""
    data = tomllib.loads(CSS.read_text())
    data["flows"][0]["cc"] = {"type": "mpcubic", "k": 9}
    data["flows"][0]["slow_start"] = {"type": "lisa", "min_credit_segments": 0}
    data["flows"][1]["cc"] = {"type": "cubic", "beta": 1.5}
    with pytest.raises(mpsim.ScenarioError) as info:
        Scenario.from_dict(data)
    found = [(p.path, p.value, p.allowed) for p in info.value.problems]
    assert found == [
        ("flows[1].cc.beta", "1.5", "in (0, 1)"),
        ("flows[0].cc.k", "9", "in [0, 4] (MPCubic Sec. III)"),
        ("flows[0].slow_start.min_credit_segments", "0", "at least 1 packet"),
    ]
    assert str(info.value).splitlines()[0] == "flows[1].cc.beta: must be in (0, 1), got 1.5"


def test_the_algorithms_are_the_core_registry() -> None:
    """The scenario model takes the algorithms and their parameters from the core, in its order."""
    from mpsim.scenario import CC_ALGORITHMS, SLOW_STARTS

    assert list(CC_ALGORITHMS)[:3] == ["reno", "cubic", "uncoupled"]
    assert CC_ALGORITHMS["mpcubic"] == {"c", "beta", "fast_convergence", "tcp_friendly", "k"}
    assert list(SLOW_STARTS) == ["standard", "lisa", "css", "gsam", "hystart", "hystart_linux", "hystart_ns3", "python"]
    # A test-only algorithm of the core's registry is not in a release build.
    assert "fixed_window" not in CC_ALGORITHMS


def test_result_tables_take_the_core_schema() -> None:
    """The tables' columns and types are the core's: nothing inferred, nullable columns declared, and
    the subflow table says when an event added or removed a subflow (null for the path manager's)."""
    import pyarrow as pa

    res = mpsim.run(CSS)
    subflows = res.mptcp_subflows
    assert subflows.schema.field("added_ns").type == pa.int64()
    assert subflows.schema.field("added_ns").nullable
    assert subflows.column("added_ns").to_pylist() == [None, None]
    assert subflows.column("removed_ns").to_pylist() == [None, None]
    assert res.flows.schema.field("fct_s").type == pa.float64()
    assert not res.flows.schema.field("retransmissions").nullable
    # Derived once, in the core: fast and timeout retransmissions.
    for row, tcp in zip(res.flows.to_pylist()[:1], res.tcp_flows.to_pylist(), strict=False):
        assert row["retransmissions"] == tcp["retransmits_fast"] + tcp["retransmits_rto"]
    assert res.tcp_traces.schema.field("ssthresh_bytes").type == pa.uint64()
