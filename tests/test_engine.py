"""The Python front over the core: build a topology and UDP flows from Python, run, read counters back."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

import mpsim

MS = 1_000_000


def two_nodes(rate_bps: int = 10_000_000, delay_ms: int = 10, limit_pkts: int = 100) -> dict[str, Any]:
    link = {"rate_bps": rate_bps, "delay_ns": delay_ms * MS, "queue": {"type": "drop_tail", "limit_pkts": limit_pkts}}
    return {
        "seed": 1,
        "stop_time_ns": 1_000 * MS,
        "nodes": [{"name": "A"}, {"name": "B"}],
        "links": [
            {"name": "ab", "from": "A", "to": "B", **link},
            {"name": "ba", "from": "B", "to": "A", **link},
        ],
    }


def cbr(rate_bps: int, size: int, stop_ms: int, name: str = "u") -> dict[str, Any]:
    return {
        "name": name,
        "src": "A",
        "dst": "B",
        "packet_size_bytes": size,
        "start_ns": 0,
        "stop_ns": stop_ms * MS,
        "pattern": {"type": "cbr", "rate_bps": rate_bps},
    }


def test_cbr_below_link_rate_has_the_computed_delay_and_count() -> None:
    cfg = two_nodes(rate_bps=10_000_000, delay_ms=10)
    # 1250-byte packets at 1 Mbit/s: one every 10 ms, so 10 packets start before 100 ms.
    cfg["udp_flows"] = [cbr(1_000_000, 1250, 100)]
    res = mpsim.run_config(cfg)
    (flow,) = res.udp_flows.to_pylist()
    serialisation_ns = 1250 * 8 * 1_000_000_000 // 10_000_000  # 1 ms at 10 Mbit/s
    assert flow["sent_pkts"] == flow["received_pkts"] == 10
    assert flow["delay_min_ns"] == flow["delay_max_ns"] == serialisation_ns + 10 * MS
    link = res.link("ab")
    assert link["delivered_pkts"] == 10 and link["dropped_bytes"] == 0


def test_overload_into_droptail_runs_at_link_rate_and_conserves_packets() -> None:
    cfg = two_nodes(rate_bps=1_000_000, delay_ms=1, limit_pkts=20)
    cfg["stop_time_ns"] = 2_000 * MS
    cfg["udp_flows"] = [cbr(2_000_000, 1000, 2_000)]
    res = mpsim.run_config(cfg)
    link = res.link("ab")
    assert link["max_queue_pkts"] <= 20
    accounted = ("delivered_pkts", "dropped_overflow_pkts", "queued_pkts_at_end", "in_transit_pkts_at_end")
    assert link["arrived_pkts"] == sum(link[k] for k in accounted)
    # 2 s at 1 Mbit/s carries 250 packets of 1000 bytes; the first starts after 0 and the last may be on the wire.
    assert 249 <= link["delivered_pkts"] <= 250


def test_same_seed_same_counters_different_seed_different_draws() -> None:
    cfg = two_nodes()
    cfg["links"][0]["loss"] = {"type": "bernoulli", "p": 0.1}
    cfg["udp_flows"] = [cbr(5_000_000, 1000, 1_000)]
    a = mpsim.run_config(cfg).raw
    b = mpsim.run_config(cfg).raw
    assert a == b
    cfg["seed"] = 2
    c = mpsim.run_config(cfg).raw
    assert a["links"][0]["dropped_loss_pkts"] != c["links"][0]["dropped_loss_pkts"]


def test_results_are_arrow_tables_that_convert() -> None:
    from mpsim.demo import demo_config

    res = mpsim.run_config(demo_config(seed=3))
    assert res.tcp_flows.num_rows == 1
    assert res.mptcp_connections.num_rows == 1
    assert res.mptcp_subflows.num_rows == 2
    assert set(res.mptcp_subflows.column("connection").to_pylist()) == {"mptcp"}
    df = res.links.to_pandas()
    assert "R1-R2" in set(df["name"])


Mutation = Callable[[dict[str, Any]], None]


def _set(path: tuple[Any, ...], value: Any) -> Mutation:
    def mutate(cfg: dict[str, Any]) -> None:
        node = cfg
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


INVALID: list[tuple[str, Mutation, str]] = [
    ("negative rate", _set(("links", 0, "rate_bps"), -5), "links[0].rate_bps"),
    ("zero rate", _set(("links", 0, "rate_bps"), 0), "links[0].rate_bps: must be a positive rate"),
    ("NaN probability", _set(("links", 0, "loss"), {"type": "bernoulli", "p": float("nan")}), "links[0].loss.p"),
    ("probability above 1", _set(("links", 0, "loss"), {"type": "bernoulli", "p": 1.5}), "links[0].loss.p"),
    (
        "negative Gilbert-Elliott probability",
        _set(("links", 0, "loss"), {"type": "gilbert_elliott", "p_gb": 0.1, "p_bg": -0.1}),
        "links[0].loss.p_bg",
    ),
    ("link to a missing node", _set(("links", 1, "to"), "C"), "links[1].to: unknown node 'C'"),
    ("route to a missing node", _set(("routes",), [{"node": "Q", "dst": "B", "via": ["ab"]}]), "routes[0].node"),
    ("route to a missing address", _set(("routes",), [{"node": "A", "dst": "Z", "via": ["ab"]}]), "routes[0].dst"),
    ("zero-packet buffer", _set(("links", 0, "queue"), {"type": "drop_tail", "limit_pkts": 0}), "limit_pkts"),
    ("unknown key", _set(("links", 0, "colour"), 3), "links[0].colour: unknown field `colour`"),
]


@pytest.mark.parametrize(("what", "mutate", "expected"), INVALID, ids=[w for w, _, _ in INVALID])
def test_invalid_parameters_raise_value_error_naming_the_field(what: str, mutate: Mutation, expected: str) -> None:
    cfg = two_nodes()
    cfg["udp_flows"] = [cbr(1_000_000, 1000, 10)]
    mutate(copy.deepcopy(cfg))  # the mutation itself must be well-formed
    mutate(cfg)
    with pytest.raises(ValueError, match=None) as info:
        mpsim.run_config(cfg)
    assert isinstance(info.value, mpsim.ConfigError)
    assert expected in str(info.value)
    assert " at line " not in str(info.value)
    with pytest.raises(mpsim.ConfigError):
        mpsim.validate_config(cfg)


def test_the_segment_trace_is_a_typed_table_with_nulls_where_a_column_does_not_apply() -> None:
    cfg = two_nodes()
    cfg["tcp_flows"] = [{"name": "t", "src": "A", "dst": "B", "size_bytes": 14_000}]
    cfg["trace"] = {"segments": ["t"]}
    seg = mpsim.run_config(cfg).segment_traces
    types = {f.name: str(f.type) for f in seg.schema}
    assert types["time_ns"] == "int64" and types["time_s"] == "double" and types["retransmission"] == "bool"
    rows = seg.to_pylist()
    sent = [r for r in rows if r["event"] == "send"]
    acks = [r for r in rows if r["event"] == "ack"]
    # SYN, handshake ACK, 10 data segments of 1400 B (the last with the FIN); one ACK per two segments.
    assert sum(r["payload_bytes"] for r in sent) == 14_000
    assert sent[0]["flags"] == "SYN" and sent[0]["seq"] == 0 and sent[0]["time_s"] == 0.0
    assert all(r["ack"] is None and r["cwnd_bytes"] is None for r in sent)
    assert all(r["seq"] is None and r["retransmission"] is None for r in acks)
    assert acks[0]["flags"] == "SYN|ACK" and acks[-1]["snd_una"] == 14_002
    assert all(r["data_seq"] is None and r["data_ack"] is None for r in rows)  # plain TCP
    assert all(r["time_s"] == r["time_ns"] / 1e9 for r in rows)


def test_an_unlimited_ssthresh_is_null_in_the_tcp_trace() -> None:
    cfg = two_nodes(limit_pkts=20)
    cfg["stop_time_ns"] = 3_000 * MS
    cfg["tcp_flows"] = [{"name": "t", "src": "A", "dst": "B", "trace": True}]
    rows = mpsim.run_config(cfg).tcp_traces.to_pylist()
    # Slow start until the 20-packet buffer overflows: null until then, a number of bytes after.
    assert rows[0]["ssthresh_bytes"] is None
    first = next(i for i, r in enumerate(rows) if r["ssthresh_bytes"] is not None)
    assert all(r["ssthresh_bytes"] is None for r in rows[:first]) and 0 < rows[-1]["ssthresh_bytes"] < 2**63
    assert all(r["time_s"] == r["time_ns"] / 1e9 for r in rows)
