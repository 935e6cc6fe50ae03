"""Property tests over generated scenarios: every input ends in a result or in a ConfigError naming a field,
and a scenario's model_dump() reads back to the same scenario.

``make fuzz`` runs the same properties over many more examples (``MPSIM_FUZZ_EXAMPLES``).
"""

from __future__ import annotations

import copy
import os
import tomllib
from pathlib import Path
from typing import Any, get_args

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import mpsim
from mpsim import ConfigError, Scenario
from mpsim.scenario import CC_ALGORITHMS, SLOW_STARTS, MptcpFlow

EXAMPLES = int(os.environ.get("MPSIM_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)

# ---------------------------------------------------------------------------------------------- valid scenarios

NAMES = st.text(alphabet="abcdefghij", min_size=1, max_size=6)
# Every algorithm, slow start and scheduler the model takes, from the core's registry and the model's fields:
# one added there is drawn here without a word changed. "python" names a plug-in, which needs its class
# (tests/test_plugins.py).
CC = st.sampled_from([name for name in CC_ALGORITHMS if name != "python"])
SLOW_START = st.sampled_from([name for name in SLOW_STARTS if name != "python"])
SCHEDULER = st.sampled_from([None, *get_args(get_args(MptcpFlow.model_fields["scheduler"].annotation)[0])])
SIZE = st.one_of(
    st.integers(1, 2000).map(lambda n: f"{n}pkt"),
    st.integers(1, 3000).map(lambda n: f"{n}KB"),
    st.integers(1, 10**6).map(lambda n: f"{n}B"),
)
DURATION_MS = 3000


def times_ms(lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.integers(lo, hi).map(lambda ms: f"{ms}ms")


def start() -> st.SearchStrategy[Any]:
    fixed = times_ms(0, DURATION_MS - 1)
    uniform = st.tuples(st.integers(0, 1000), st.integers(0, 1000)).map(
        lambda p: {"uniform": [f"{p[0]}ms", f"{p[0] + p[1]}ms"]}
    )
    return st.one_of(fixed, uniform, st.integers(0, 2).map(lambda s: f"{s}s"))


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """Valid scenarios on the shared-bottleneck preset: TCP, MPTCP and UDP flows with random settings."""
    paths = draw(st.integers(1, 3))
    background = draw(st.integers(1, 2))
    data: dict[str, Any] = {
        "seed": draw(st.integers(0, 2**64 - 1)),
        "duration": f"{DURATION_MS}ms",
        "topology": {
            "preset": "shared_bottleneck",
            "paths": paths,
            "bottleneck": f"{draw(st.integers(1, 50))}Mbps",
            "delay": draw(times_ms(1, 50)),
            "buffer": f"{draw(st.integers(1, 200))}pkt",
            "background": background,
        },
        "flows": [],
    }
    flows = data["flows"]
    flows.append(
        {
            "name": "m",
            "type": "mptcp",
            "src": "S0",
            "dst": "D0",
            "size": draw(SIZE),
            "start": draw(start()),
            "cc": draw(CC),
            "slow_start": draw(SLOW_START),
            "scheduler": draw(SCHEDULER),
            "tcp": draw(st.fixed_dictionaries({}, optional={"initial_ssthresh": st.just("65535B")})),
        }
    )
    for i in range(1, background + 1):
        kind = draw(st.sampled_from(["tcp", "udp"]))
        flow: dict[str, Any] = {"name": f"b{i}", "type": kind, "src": f"S{i}", "dst": f"D{i}", "start": draw(start())}
        if kind == "tcp":
            flow |= draw(st.fixed_dictionaries({}, optional={"size": SIZE, "cc": CC}))
        else:
            flow |= {"rate": f"{draw(st.integers(1, 2000))}kbps", "packet_size": f"{draw(st.integers(40, 1500))}B"}
        flows.append(flow)
    for flow in flows:
        if flow.get("cc") == "bbr":
            # BBR is the linux profile's, and no slow-start strategy runs with it (its refusals have their own tests).
            flow["tcp"] = {**flow.get("tcp", {}), "profile": "linux"}
            if "slow_start" in flow:
                flow["slow_start"] = "standard"
    if draw(st.booleans()):
        data["trace"] = {"flows": ["m"], "queues": ["R1-R2"], "queue_interval": draw(times_ms(1, 100))}
    return data


CUSTOM_NETWORK = tomllib.loads((Path(__file__).resolve().parents[1] / "examples" / "custom_network.toml").read_text())
PROBABILITY = st.one_of(st.floats(0, 1), st.integers(0, 100).map(lambda n: f"{n}%"))
QUEUES = st.one_of(
    st.integers(1, 500).map(lambda n: {"type": "drop_tail", "limit": f"{n}pkt"}),
    st.integers(2, 500).map(lambda n: {"type": "drop_tail", "limit": f"{n}KB"}),
    st.tuples(st.floats(0, 50), st.floats(0.5, 50), st.floats(0.001, 1)).map(
        lambda t: {"type": "red", "limit": "200pkt", "min_th": t[0], "max_th": t[0] + t[1], "max_p": t[2]}
    ),
    st.tuples(st.integers(1, 10_000), st.integers(1, 1000)).map(
        lambda t: {"type": "codel", "target": f"{t[0]}us", "interval": f"{t[1]}ms"}
    ),
)
LOSSES = st.one_of(
    st.just("none"),
    # A bare number is a Bernoulli loss below 1 (`loss = 1` is refused as a likely slip); every packet is "100%".
    PROBABILITY.map(lambda p: "100%" if isinstance(p, float) and p >= 1 else p),
    st.tuples(PROBABILITY, PROBABILITY).map(lambda t: {"type": "gilbert_elliott", "p_gb": t[0], "p_bg": t[1]}),
)


@st.composite
def written_networks(draw: st.DrawFn) -> dict[str, Any]:
    """The written-out network of examples/custom_network.toml with its queues, losses, rates, delays
    and the time of its link changes drawn anew."""
    data = copy.deepcopy(CUSTOM_NETWORK)
    data["seed"] = draw(st.integers(0, 2**64 - 1))
    for link in data["links"]:
        bps, mbps = st.integers(10**5, 10**10), st.integers(1, 1000)
        link["rate"] = draw(st.one_of(bps.map(lambda n: f"{n}bps"), mbps.map(lambda n: f"{n}Mbps")))
        link["delay"] = draw(st.one_of(st.integers(0, 10**8).map(lambda n: f"{n}ns"), times_ms(0, 100)))
        link["queue"] = draw(QUEUES)
        link["loss"] = draw(LOSSES)
    down = draw(st.integers(1, 5000))
    data["link_changes"][0]["at"] = f"{down}ms"
    data["link_changes"][1]["at"] = f"{down + draw(st.integers(0, 999))}ms"
    return data


@FUZZ
@given(st.one_of(scenarios(), written_networks()))
def test_model_dump_reads_back_to_the_same_scenario(data: dict[str, Any]) -> None:
    scenario = Scenario.from_dict(data)
    dump = scenario.model_dump()
    again = Scenario(**dump)
    assert again.model_dump() == dump
    assert again.to_core() == scenario.to_core()
    assert Scenario.from_dict(dump).to_core() == scenario.to_core()


# ---------------------------------------------------------------------------------------------- any input

UNIT_STRINGS = st.sampled_from(
    ["0s", "1ns", "-1s", "1e9s", "1e30s", "40Gbps", "0bps", "1B", "0pkt", "1e30pkt", "5Mbps", "lia", "css", "", "\n"]
)
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    UNIT_STRINGS,
)


def containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3))


VALUES = st.recursive(LEAVES, containers, max_leaves=8)


def nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf] if depth % 2 else {"a": leaf}
    return leaf


def places(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``data``."""
    out = [path]
    if isinstance(data, dict):
        for k, v in data.items():
            out += places(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += places(v, (*path, i))
    return out


def put(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


def mutate(draw: st.DrawFn, data: dict[str, Any], top_level: list[str]) -> dict[str, Any]:
    """``data`` with up to three values replaced by anything: other types, extreme numbers, deep
    nesting, huge counts; or a top-level key set to anything."""
    for _ in range(draw(st.integers(0, 3))):
        where = draw(st.sampled_from(places(data)))
        value = draw(
            st.one_of(
                VALUES,
                st.integers(0, 200).map(lambda d: nested(d, 1)),
                st.sampled_from([10**6, 10**9, 2**63, 2**64, 10**30]),
            )
        )
        if where and draw(st.booleans()):
            data = put(data, where, value)
        else:
            data[draw(st.sampled_from([*top_level, "x\ny"]))] = value
    return data


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    """A valid scenario (TOML form), mutated."""
    data = copy.deepcopy(draw(scenarios()))
    data["limits"] = {"max_events": 3_000_000}
    return mutate(draw, data, ["flows", "trace", "topology", "limits", "duration"])


@st.composite
def mutated_core(draw: st.DrawFn) -> dict[str, Any]:
    """A valid scenario in the core's configuration form, mutated."""
    data = Scenario.from_dict(draw(scenarios())).to_core()
    data["limits"] = {"max_events": 3_000_000}
    return mutate(draw, data, ["links", "tcp_flows", "mptcp_connections", "trace", "limits", "stop_time_ns"])


def assert_names_a_field(error: ConfigError) -> None:
    for line in str(error).splitlines():
        path, sep, message = line.partition(": ")
        assert sep and path.strip() and message.strip(), f"no field named in {line!r}"


def refused(error: ConfigError) -> None:
    first = str(error).splitlines()[0].partition(": ")[0]
    event(f"refused: {first.split('[')[0].split('.')[0]}")
    assert_names_a_field(error)


@FUZZ
@given(mutated())
def test_any_scenario_runs_within_its_limits_or_is_refused_naming_a_field(data: dict[str, Any]) -> None:
    try:
        scenario = Scenario.from_dict(data)
        res = mpsim.run(scenario, time_limit=60)
    except ConfigError as e:
        refused(e)
    else:
        event("ran")
        assert res.events_processed <= 3_000_000


@FUZZ
@given(mutated_core())
def test_any_core_configuration_runs_within_its_limits_or_is_refused_naming_a_field(data: dict[str, Any]) -> None:
    try:
        res = mpsim.run_config(data, time_limit=60)
    except ConfigError as e:
        refused(e)
    else:
        event("ran")
        assert res.events_processed <= 3_000_000


# ---------------------------------------------------------------------------------------------- slips

HUGE = st.sampled_from([2**32, 2**63, 2**64 - 1, 2**64, 2**70, -1])
TINY_PERIODS = st.sampled_from(["1ns", "2ns", "10ns", "1us"])
NEAR_ONE = st.floats(1.0001, 1.1)
BARE = st.one_of(st.integers(1, 10**7), st.floats(0.001, 100))


@st.composite
def slips(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A valid scenario with one of the slips and extremes that once ran unbounded or ended in a traceback:
    integers beyond a field's range, on/off periods of nanoseconds (Pareto shapes near 1), many copies of a
    connection of many subflows, a flow to a node nothing joins, a bare number for a time, rate or size."""
    data = copy.deepcopy(draw(scenarios()))
    data["limits"] = {"max_events": 3_000_000}
    kind = draw(st.sampled_from(["integer", "on_off", "copies", "unconnected", "bare"]))
    mptcp = data["flows"][0]
    if kind == "integer":
        where = draw(st.sampled_from(["seed", "copies", "sequence", "delack_segments", "css_rounds", "index"]))
        value = draw(HUGE)
        if where == "seed":
            data["seed"] = value
        elif where == "copies":
            mptcp["copies"] = value
        elif where == "sequence":
            data["flows"].append({"name": "q", "type": "tcp", "src": "S1", "dst": "D1", "size": "10KB"})
            data["flows"][-1]["sequence"] = {"count": value, "gap": "1ms"}
            data["topology"]["background"] = max(1, data["topology"]["background"])
        elif where == "delack_segments":
            mptcp["tcp"] = {"delack_segments": value}
        elif where == "css_rounds":
            mptcp["tcp"] = {"hystart": {"css_rounds": value}}
            mptcp["slow_start"] = "standard"
        else:
            mptcp["subflow_events"] = [{"at": "1ms", "action": "remove", "src": "S0.1", "dst": "D0", "index": value}]
    elif kind == "on_off":
        flow = {"name": "oo", "type": "udp", "src": "S1", "dst": "D1", "rate": f"{draw(st.integers(1, 2000))}kbps"}
        flow |= {"pattern": "on_off", "on": draw(TINY_PERIODS), "off": draw(TINY_PERIODS)}
        if draw(st.booleans()):
            flow["pareto_shape"] = draw(NEAR_ONE)
        data["flows"].append(flow)
        data["topology"]["background"] = max(1, data["topology"]["background"])
    elif kind == "copies":
        mptcp |= {"path_manager": "ndiffports", "subflows": draw(st.integers(1, 64))}
        mptcp["copies"] = draw(st.sampled_from([1, 10, 1000, 20_000]))
    elif kind == "unconnected":
        data["hosts"] = ["Z"]
        mptcp["dst" if draw(st.booleans()) else "src"] = "Z"
    else:
        field = draw(st.sampled_from(["duration", "topology.delay", "topology.bottleneck", "size", "start"]))
        value = draw(BARE)
        if "." in field:
            data["topology"][field.split(".")[1]] = value
        elif field == "duration":
            data["duration"] = value
        else:
            mptcp[field] = value
    return kind, data


@FUZZ
@given(slips())
def test_every_slip_runs_within_its_limits_or_is_refused_naming_a_field(slip: tuple[str, dict[str, Any]]) -> None:
    kind, data = slip
    try:
        res = mpsim.run(Scenario.from_dict(data), time_limit=60)
    except ConfigError as e:
        refused(e)
        if kind == "unconnected":
            assert "no route from " in str(e)
        if kind == "bare":
            assert " has no unit; did you mean " in str(e)
    else:
        event(f"ran: {kind}")
        assert kind not in ("unconnected", "bare")
        assert res.events_processed <= 3_000_000
