"""Inputs that once ended in a traceback, a hang or silence, each with the message it must give now."""

from __future__ import annotations

import signal
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import mpsim
from mpsim import ConfigError, Scenario, ScenarioError
from mpsim.cli import main
from mpsim.scenario import TcpFlow
from mpsim.topologies import SharedBottleneck

BASE: dict[str, Any] = {"duration": "2s", "topology": {"preset": "dumbbell", "pairs": 1}}
FLOW: dict[str, Any] = {"name": "a", "type": "tcp", "src": "S1", "dst": "D1", "size": "50pkt"}
CC_ALLOWED = (
    "reno, cubic, uncoupled, ewtcp, coupled, semicoupled, lia, olia, balia, mpcubic, unmpcubic, couple_plus, "
    "bbr, python"
)
TOP_LEVEL = (
    "seed, duration, topology, hosts, routers, links, addresses, routes, link_changes, flows, trace, throughput, "
    "stop_when_complete, limits"
)


def message(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(data)
    return str(info.value)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {**BASE, "flows": [{**FLOW, "cc": {"type": ["lia"]}}]},
            f"flows[0].cc: unknown algorithm ['lia'] (allowed: {CC_ALLOWED})",
        ),
        (
            {**BASE, "flows": [{**FLOW, "cc": {"type": {"x": 1}}}]},
            f"flows[0].cc: unknown algorithm {{'x': 1}} (allowed: {CC_ALLOWED})",
        ),
        # A key with a newline: one problem, one line.
        ({**BASE, "a\nb": 1}, f"'a\\nb': unknown field 'a\\nb' (allowed: {TOP_LEVEL})"),
        # The braces of the message are printed once.
        (
            {**BASE, "flows": [{**FLOW, "start": {"uniform": ["1s"]}}]},
            "flows[0].start: a random start is written {uniform = [earliest, latest]}, got {'uniform': ['1s']}",
        ),
        # The user's field, not the core's `nodes`.
        (
            {"duration": "1s"},
            "hosts: the network has no nodes: give a [topology] preset, or hosts, routers and links",
        ),
        # Numbers beyond the core's 64 bits, named in the user's terms (not `stop_time_ns`).
        (
            {**BASE, "duration": "1e30s"},
            "duration: '1e30s' is too large (allowed: up to 2^64 - 1 ns, bit/s, bytes or packets)",
        ),
        (
            {**BASE, "flows": [{**FLOW, "size": "1e30B"}]},
            "flows[0].size: '1e30B' is too large (allowed: up to 2^64 - 1 ns, bit/s, bytes or packets)",
        ),
        ({**BASE, "duration": float("nan")}, "duration: nan is not a finite number"),
        # Python dicts that no TOML file gives.
        ({**BASE, 1: "a"}, "top-level keys must be strings, got 1 (int)"),
        (
            {**BASE, "x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
            "x[0][0]: nested more than 32 levels deep (allowed: at most 32)",
        ),
    ],
)
def test_bad_values_are_named_in_one_line(data: dict[str, Any], expected: str) -> None:
    assert message(data) == expected


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("x = " + "[" * 1000 + "]" * 1000, "1 000 nested arrays"),
        ("x = " + "{a = " * 400 + "1" + "}" * 400, "400 nested tables"),
    ],
)
def test_deeply_nested_toml_is_a_message_not_a_recursion_error(tmp_path: Path, text: str, what: str) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(f'duration = "1s"\n{text}\n')
    with pytest.raises(ScenarioError) as info:
        mpsim.load(path)
    assert str(info.value) == (f"{path}: nested too deeply to read (allowed: at most 32 levels of tables and lists)"), (
        what
    )


@pytest.mark.parametrize(
    ("argument", "shown"),
    [(5, "int 5"), (None, "NoneType None"), (["duration"], "list ['duration']"), (3.5, "float 3.5")],
)
def test_run_with_an_argument_of_the_wrong_type_raises_type_error(argument: Any, shown: str) -> None:
    with pytest.raises(TypeError) as info:
        mpsim.run(argument)
    assert str(info.value) == (
        f"mpsim.run() takes a Scenario, the path of a TOML file or a dict of a scenario's fields, got {shown}"
    )


def test_run_with_bad_keys_or_seed_raises_config_error() -> None:
    with pytest.raises(ConfigError, match=r"^top-level keys must be strings, got 1 \(int\)$"):
        mpsim.run({1: "a"})
    with pytest.raises(ConfigError, match=r"^seed: must be a whole number in \[0, 2\^64\), got -1$"):
        mpsim.run({**BASE, "flows": [FLOW]}, seed=-1)
    with pytest.raises(TypeError, match=r"^a core configuration is a dict, got str 'x'$"):
        mpsim.run_config("x")  # type: ignore[arg-type]


def test_a_scenario_with_a_sample_interval_and_no_traced_queue_runs_as_without_it() -> None:
    plain = mpsim.run({**BASE, "flows": [FLOW]})
    sampled = mpsim.run({**BASE, "flows": [FLOW], "trace": {"queue_interval": "1us"}})
    assert sampled.events_processed == plain.events_processed


def test_model_dump_keeps_start_times() -> None:
    s = Scenario.from_dict(
        {**BASE, "flows": [{**FLOW, "start": "1.5s"}, {**FLOW, "name": "b", "start": {"uniform": ["1ms", "2ms"]}}]}
    )
    dump = s.model_dump()
    assert [f["start"] for f in dump["flows"]] == ["1.5s", {"uniform": ["1ms", "2ms"]}]
    assert Scenario(**dump).to_core() == s.to_core()


# ---------------------------------------------------------------------------------------------- the CLI


def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["mpsim", *args])
    previous = signal.getsignal(signal.SIGINT)  # main() installs its own handler
    try:
        with pytest.raises(SystemExit) as info:
            main()
    finally:
        signal.signal(signal.SIGINT, previous)
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    (tmp_path / "base.toml").write_text(
        'duration = "2s"\n[topology]\npreset = "dumbbell"\npairs = 1\n'
        '[[flows]]\nname = "a"\ntype = "tcp"\nsrc = "S1"\ndst = "D1"\nsize = "50pkt"\n'
    )
    path = tmp_path / "sweep.toml"
    path.write_text('base = "base.toml"\nseeds = [1]\n[axes]\n"flows.a.size" = ["50pkt", "100pkt"]\n')
    return path


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--jobs", "0"], "error: --jobs: must be at least 1 process, got 0\n"),
        (["--jobs", "-3"], "error: --jobs: must be at least 1 process, got -3\n"),
        (
            ["--executor", "dask"],
            "error: --scheduler: the dask executor needs the scheduler's address (tcp://host:8786)\n",
        ),
        (["--time-limit", "soon"], None),
    ],
)
def test_sweep_options_out_of_range_end_with_status_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    sweep: Path,
    args: list[str],
    expected: str | None,
) -> None:
    status, _, err = cli(capsys, monkeypatch, "sweep", str(sweep), "--out", str(sweep.parent / "o"), *args)
    assert status == 2
    if expected is not None:
        assert err == expected
    else:
        assert err.startswith("error: --time-limit: cannot read 'soon' as a time")
    assert not (sweep.parent / "o").exists()


def test_sweep_into_a_file_ends_with_status_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sweep: Path
) -> None:
    target = sweep.parent / "a-file"
    target.write_text("not a directory")
    status, _, err = cli(capsys, monkeypatch, "sweep", str(sweep), "--out", str(target), "--no-progress")
    assert status == 2
    assert err == f"error: out: {str(target)!r} exists and is not a directory; give a directory for the store\n"


def test_an_unreachable_dask_scheduler_is_a_message(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sweep: Path
) -> None:
    import mpsim.sweep

    monkeypatch.setattr(mpsim.sweep, "DASK_CONNECT_TIMEOUT_S", 1)
    args = ["--executor", "dask", "--scheduler", "tcp://127.0.0.1:1", "--no-progress"]
    status, _, err = cli(capsys, monkeypatch, "sweep", str(sweep), "--out", str(sweep.parent / "o"), *args)
    assert status == 2
    assert err.startswith("error: scheduler: cannot reach a Dask scheduler at 'tcp://127.0.0.1:1' within 1 s (")


def test_plot_names_what_it_cannot_find(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sweep: Path
) -> None:
    missing = sweep.parent / "nosuch"
    status, _, err = cli(capsys, monkeypatch, "plot", str(missing))
    assert (status, err) == (
        2,
        f"error: directory: {str(missing)!r} is not a sweep's store (No such file or directory); "
        "give the --out of a sweep\n",
    )
    out = sweep.parent / "o"
    assert cli(capsys, monkeypatch, "sweep", str(sweep), "--out", str(out), "--jobs", "1", "--no-progress")[0] == 0
    for args, expected in (
        (["--x", "nosuch"], "error: x: unknown axis 'nosuch' (allowed: flows.a.size)\n"),
        (["--flow", "nosuch"], "error: flow: unknown flow 'nosuch' (known: a)\n"),
        (["--flow", "b"], "error: flow: unknown flow 'b' (known: a)\n"),
        (
            ["--metric", "fct"],
            "error: metric: unknown metric 'fct'; did you mean 'fct_s'? "
            "(known: retransmissions, rto_count, fct_s, sum_cwnd_pkts, goodput_mbps)\n",
        ),
    ):
        assert cli(capsys, monkeypatch, "plot", str(out), *args) == (2, "", expected)
    assert not (out / "plots").exists()


def test_a_negative_seed_in_a_sweep_file_is_refused_before_any_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sweep: Path
) -> None:
    sweep.write_text('base = "base.toml"\nseeds = [1, -1]\n')
    out = sweep.parent / "o"
    assert cli(capsys, monkeypatch, "sweep", str(sweep), "--out", str(out)) == (
        2,
        "",
        "error: seeds[1]: must be >= 0, got -1\n",
    )
    assert not out.exists()


@pytest.mark.parametrize("key", ["\x1e", "\u2028", "a\rb", "\x85"])
def test_keys_that_break_lines_stay_on_one_line(key: str) -> None:
    text = message({**BASE, "trace": {key: 1}})
    assert len(text.splitlines()) == 1
    assert text.startswith(f"trace.{key!r}: unknown field {key!r} (allowed: ")
    cfg = Scenario.from_dict({**BASE, "flows": [FLOW]}).to_core()
    cfg["trace"][key] = 1
    with pytest.raises(ConfigError) as info:
        mpsim.run_config(cfg)
    assert len(str(info.value).splitlines()) == 1
    assert str(info.value).startswith("trace.")


# ---------------------------------------------------------------------------------------------- slips that used to run

SHARED: dict[str, Any] = {"duration": "2s", "topology": {"preset": "shared_bottleneck", "paths": 2}}
LOSS_ALLOWED = '(allowed: a number in [0, 1) or a percentage up to "100%")'


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {**SHARED, "topology": {**SHARED["topology"], "loss": 1}},
            f'topology.loss: 1 is a bare number, a loss of every packet; for a loss of 1 %, write "1%" or 0.01 '
            f"{LOSS_ALLOWED}",
        ),
        (
            {**SHARED, "topology": {"preset": "non_shared", "paths": 2, "per_path": [{"loss": 2.5}, {}]}},
            "topology.per_path[0].loss: must be a probability in [0, 1], got 2.5; for a loss of 2.5 %, write "
            f'"2.5%" or 0.025 {LOSS_ALLOWED}',
        ),
        (
            {
                "duration": "2s",
                "hosts": ["A", "B"],
                "links": [{"from": "A", "to": "B", "rate": "1Mbps", "loss": {"type": "bernoulli", "p": 1}}],
            },
            f'links[0].loss.p: 1 is a bare number, a loss of every packet; for a loss of 1 %, write "1%" or 0.01 '
            f"{LOSS_ALLOWED}",
        ),
    ],
)
def test_a_bare_loss_of_one_or_more_is_refused(data: dict[str, Any], expected: str) -> None:
    assert message(data) == expected


@pytest.mark.parametrize(("loss", "p"), [(0.5, 0.5), (0, 0.0), ("1%", 0.01), ("100%", 1.0)])
def test_a_loss_below_one_or_in_percent_is_a_probability(loss: Any, p: float) -> None:
    s = Scenario.from_dict({**SHARED, "topology": {**SHARED["topology"], "loss": loss}}, check=False)
    assert isinstance(s.topology, SharedBottleneck) and s.topology.loss is not None
    assert s.topology.loss.to_core() == {"type": "bernoulli", "p": p}
    assert Scenario(**s.model_dump()).to_core() == s.to_core()


def test_the_cli_refuses_a_bare_loss_of_one_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "loss.toml"
    path.write_text('duration = "2s"\n[topology]\npreset = "shared_bottleneck"\nloss = 1\n')
    status, _, err = cli(capsys, monkeypatch, "validate", str(path))
    assert status == 2
    assert err == (
        f'error: topology.loss: 1 is a bare number, a loss of every packet; for a loss of 1 %, write "1%" or 0.01 '
        f"{LOSS_ALLOWED}\n"
    )


def test_a_field_assigned_from_python_is_checked_at_assignment() -> None:
    s = Scenario.from_dict({**BASE, "flows": [FLOW]})
    with pytest.raises(ScenarioError) as info:
        s.duration = "abc"  # type: ignore[assignment]
    assert (
        str(info.value) == "duration: cannot read 'abc' as a time; write a number and a unit (ns, us, µs, ms, s, min)"
    )
    with pytest.raises(ScenarioError) as info:
        s.flows[0].cc = "lai"  # type: ignore[assignment]
    assert str(info.value) == f"cc: unknown algorithm 'lai'; did you mean 'lia'? (allowed: {CC_ALLOWED})"
    s.duration = "5s"  # type: ignore[assignment]
    assert s.duration == 5 * 10**9
    assert s.to_core()["stop_time_ns"] == 5 * 10**9


def test_an_unknown_table_name_lists_the_tables() -> None:
    results = mpsim.run({**BASE, "flows": [FLOW]})
    with pytest.raises(ConfigError) as info:
        results.to_pandas("flow")
    assert (
        str(info.value)
        == f"table: unknown table 'flow'; did you mean 'flows'? (allowed: {', '.join(mpsim._core.TABLES)})"
    )
    with pytest.raises(ConfigError, match=r"^table: unknown table 'seed' \(allowed: "):
        results.to_polars("seed")
    assert results.to_pandas("flows")["name"].tolist() == ["a"]


BARE = (
    'duration = 20\n[topology]\npreset = "shared_bottleneck"\ndelay = 30\nbottleneck = 5000000\naccess_delay = 0\n'
    '[[flows]]\nname = "a"\ntype = "tcp"\nsrc = "S0.1"\ndst = "D0"\nsize = 280000\nstart = 1.5\n'
)
TIME_UNITS = "(a time needs one of: ns, us, µs, ms, s, min)"
RATE_UNITS = "(a rate needs one of: bps, bit/s, Kbps, kbps, kbit/s, Mbps, Mbit/s, Gbps, Gbit/s, Tbps)"
SIZE_UNITS = "(a size needs one of: B, KB, kB, MB, GB, KiB, MiB, GiB, pkt)"
BARE_PROBLEMS = [
    f'duration: 20 has no unit; did you mean "20ms" or "20s"? {TIME_UNITS}',
    f'topology.bottleneck: 5000000 has no unit; did you mean "5Mbps"? {RATE_UNITS}',
    f'topology.delay: 30 has no unit; did you mean "30ms" or "30s"? {TIME_UNITS}',
    f'flows[0].start: 1.5 has no unit; did you mean "1.5ms" or "1.5s"? {TIME_UNITS}',
    f'flows[0].size: 280000 has no unit; did you mean "280KB"? {SIZE_UNITS}',
]


def test_a_bare_number_for_a_time_rate_or_size_in_a_file_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "bare.toml"
    path.write_text(BARE)
    for command in ("validate", "run"):
        status, out, err = cli(capsys, monkeypatch, command, str(path))
        assert (status, out) == (2, "")
        assert err.splitlines() == [f"error: {line}" for line in BARE_PROBLEMS]
    with pytest.raises(ScenarioError) as info:
        mpsim.load(path)
    assert str(info.value).splitlines() == BARE_PROBLEMS
    # The same numbers from Python (0 needs no unit anywhere).
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(tomllib.loads(BARE))
    assert str(info.value).splitlines() == BARE_PROBLEMS


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda: SharedBottleneck(delay=0.03), f'delay: 0.03 has no unit; did you mean "30ms"? {TIME_UNITS}'),
        (
            lambda: SharedBottleneck(bottleneck=5),
            f'bottleneck: 5 has no unit; did you mean "5Mbps" or "5Kbps"? {RATE_UNITS}',
        ),
        (
            lambda: TcpFlow(name="a", src="A", dst="B", size=50),
            f'size: 50 has no unit; did you mean "50pkt" or "50KB"? {SIZE_UNITS}',
        ),
    ],
)
def test_a_bare_number_given_to_a_model_in_python_is_refused(build: Any, expected: str) -> None:
    with pytest.raises(ScenarioError) as info:
        build()
    assert str(info.value) == expected


def test_a_bare_number_assigned_in_python_is_refused_and_a_unit_or_zero_is_taken() -> None:
    s = Scenario.from_dict({**BASE, "flows": [FLOW]})
    with pytest.raises(ScenarioError) as info:
        s.duration = 30  # type: ignore[assignment]
    assert str(info.value) == f'duration: 30 has no unit; did you mean "30ms" or "30s"? {TIME_UNITS}'
    # A time read back is in ns: assigning it again is refused rather than read as seconds.
    with pytest.raises(ScenarioError) as info:
        s.duration = s.duration
    assert str(info.value) == f'duration: 2000000000 has no unit; did you mean "2s"? {TIME_UNITS}'
    s.duration = "3s"  # type: ignore[assignment]
    s.flows[0].start = 0
    assert (s.duration, s.flows[0].start) == (3 * 10**9, 0)
    assert s.to_core()["stop_time_ns"] == 3 * 10**9


def test_a_bare_number_in_a_sweep_file_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sweep: Path
) -> None:
    sweep.write_text('base = "base.toml"\nseeds = [1]\n[axes]\n"topology.delay" = ["10ms", 30]\n')
    status, _, err = cli(capsys, monkeypatch, "validate", str(sweep))
    assert status == 2
    where = "topology.delay (at base, topology.delay = 30)"
    assert err == f'error: {where}: 30 has no unit; did you mean "30ms" or "30s"? {TIME_UNITS}\n'


NO_ROUTE = "no chain of links through routers leads there (a host does not forward); add links or routes"
APART = (
    'duration = "2s"\nhosts = ["A", "B", "C", "D"]\n'
    'links = [{from = "A", to = "B", rate = "10Mbps", delay = "10ms"}, '
    '{from = "C", to = "D", rate = "10Mbps", delay = "10ms"}]\n'
)


@pytest.mark.parametrize(
    ("flow", "expected"),
    [
        ('type = "tcp"\nsrc = "A"\ndst = "D"\nsize = "100KB"', "flows[0].dst: no route from A to D"),
        ('type = "udp"\nsrc = "A"\ndst = "D"\nrate = "1Mbps"', "flows[0].dst: no route from A to D"),
        ('type = "mptcp"\nsrc = "C"\ndst = "A"\nsize = "100KB"', "flows[0].dst: no route from C to A"),
    ],
)
def test_a_flow_between_unconnected_nodes_is_refused_naming_the_nodes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, flow: str, expected: str
) -> None:
    path = tmp_path / "apart.toml"
    path.write_text(f'{APART}[[flows]]\nname = "x"\n{flow}\n')
    for command in ("validate", "run"):
        assert cli(capsys, monkeypatch, command, str(path)) == (2, "", f"error: {expected}: {NO_ROUTE}\n")
    with pytest.raises(ConfigError) as info:
        mpsim.run(path)
    assert str(info.value) == f"{expected}: {NO_ROUTE}"


def test_a_preset_beside_a_host_without_links_is_refused_in_one_line_per_flow() -> None:
    data = {**BASE, "hosts": ["A"], "flows": [{**FLOW, "src": "A"}, {**FLOW, "name": "b", "copies": 3, "src": "A"}]}
    assert message(data).splitlines() == [
        f"flows[0].dst: no route from A to D1: {NO_ROUTE}",
        f"flows[1].dst: no route from A to D1: {NO_ROUTE}",
    ]


def test_acks_need_a_way_back() -> None:
    data = {
        "duration": "2s",
        "hosts": ["A", "B"],
        "links": [{"from": "A", "to": "B", "rate": "1Mbps", "duplex": False}],
    }
    with pytest.raises(ScenarioError) as info:
        mpsim.run({**data, "flows": [{**FLOW, "src": "A", "dst": "B"}]})
    assert str(info.value) == f"flows[0].dst: no route from B to A: {NO_ROUTE}"
    # A UDP flow sends one way only.
    udp = {"name": "u", "type": "udp", "src": "A", "dst": "B", "rate": "100kbps"}
    assert mpsim.run({**data, "flows": [udp]}).raw["udp_flows"][0]["received_pkts"] > 0


@pytest.mark.parametrize(
    "build",
    [lambda: SharedBottleneck(pathz=2), lambda: mpsim.topologies.shared_bottleneck(pathz=2)],
)
def test_a_preset_keyword_typo_gets_a_did_you_mean(build: Any) -> None:
    with pytest.raises(ScenarioError) as info:
        build()
    assert str(info.value) == (
        "pathz: unknown field 'pathz'; did you mean 'paths'? "
        "(allowed: bottleneck, delay, buffer, queue, loss, access, access_delay, path_delays, paths, background)"
    )


@pytest.mark.parametrize(
    ("flow", "expected"),
    [
        ({"tcp": {"delack_segments": 2**40}}, "flows[0].tcp.delack_segments: must be <= 4294967295, got 1099511627776"),
        ({"copies": 10**6}, "flows[0].copies: must be <= 100000, got 1000000"),
        (
            {"sequence": {"count": 2**64, "gap": "1s"}},
            "flows[0].sequence.count: must be <= 1000000, got 18446744073709551616",
        ),
        # An algorithm's parameter, checked by the core.
        (
            {"tcp": {"hystart": {"css_rounds": 2**70}}},
            "flows[0].tcp.hystart.css_rounds: must be a whole number from 0 to 4294967295, got 1.1805916207174113e+21",
        ),
        (
            {"tcp": {"hystart": {"css_rounds": -1}}},
            "flows[0].tcp.hystart.css_rounds: must be a whole number from 0 to 4294967295, got -1",
        ),
    ],
)
def test_an_integer_beyond_its_field_range_names_the_field_and_the_range(flow: dict[str, Any], expected: str) -> None:
    with pytest.raises(ScenarioError) as info:
        mpsim.run({**BASE, "flows": [{**FLOW, **flow}]})
    assert str(info.value) == expected


@pytest.mark.parametrize(("seed", "ok"), [(2**64 - 1, True), (2**64, False)])
def test_the_largest_seed_runs_and_one_more_is_named(seed: int, ok: bool) -> None:
    data = {**BASE, "seed": seed, "flows": [FLOW]}
    if ok:
        assert mpsim.run(data).seed == seed
    else:
        assert message(data) == "seed: must be < 18446744073709551616, got 18446744073709551616"


def test_a_seed_beyond_64_bits_ends_with_status_2_naming_the_seed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "seed.toml"
    body = (
        '[topology]\npreset = "dumbbell"\n[[flows]]\nname = "a"\ntype = "tcp"\nsrc = "S1"\ndst = "D1"\nsize = "10KB"\n'
    )
    path.write_text(f'duration = "1s"\nseed = {2**64}\n{body}')
    assert cli(capsys, monkeypatch, "run", str(path)) == (
        2,
        "",
        "error: seed: must be < 18446744073709551616, got 18446744073709551616\n",
    )
    path.write_text(f'duration = "1s"\n{body}')
    assert cli(capsys, monkeypatch, "run", str(path), "--seed", str(2**64)) == (
        2,
        "",
        "error: seed: must be a whole number in [0, 2^64), got 18446744073709551616\n",
    )
