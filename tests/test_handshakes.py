"""Who opens a connection, and when each subflow may first send: scripted exchanges over two paths of known
round-trip time, where every time a segment leaves follows from the handshakes' rules.

The network: a client ``C`` with two addresses, ``C.1`` on path 1 (RTT1 = 40 ms) and ``C.2`` on path 2
(RTT2 = 120 ms), and a server ``S``; links of 1 Gbit/s, so a packet's serialisation (12 µs for 1500 bytes
per hop) is far below the 1 ms tolerance; 20 MB keep both subflows busy past every handshake. Times are from the
first SYN (the flow starts at 0).

* TCP, the sender connects: SYN at 0, SYN-ACK back at RTT1, data with the third ACK (RFC 9293 §3.5).
* TCP, the receiver connects (``initiator = "receiver"``): the sender answers the SYN at RTT1/2, and
  sends data once the third packet is in, at 1.5·RTT1.
* MPTCP, Linux's join (``tcp.mptcp_join = "linux"``, the ``linux`` profile's): the side that connected
  opens the second subflow once the connection is fully established (Linux ``check_fully_established``: the
  first packet from the peer with a DATA_ACK after the handshake). Upload: the ACK of the first data, at
  2·RTT1; the join's SYN-ACK is back at 2·RTT1 + RTT2, and its data waits for the fourth packet (the
  receiver's ACK of the third), at 2·RTT1 + 2·RTT2. Download: the first data reaches the client at 2·RTT1;
  the server answers the join's SYN at 2·RTT1 + RTT2/2 and sends once the third packet is in, at
  2·RTT1 + 1.5·RTT2.
* MPTCP, the ``established`` rule (the other profiles'): the join leaves when the side that connected
  learns the first subflow is established (the SYN-ACK, at RTT1), plus ``join_delay``; data follows the
  join's own handshake.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import mpsim

RTT1_MS = 40.0
RTT2_MS = 120.0
TOLERANCE_S = 1e-3


def _buffer(flow: dict[str, Any]) -> dict[str, Any]:
    return {"rcv_buffer": "64MiB"} if flow["type"] == "mptcp" else {}


def _scenario(flow: dict[str, Any]) -> mpsim.Scenario:
    return mpsim.Scenario.model_validate(
        {
            "duration": "5s",
            "hosts": ["C", "S"],
            "routers": ["R"],
            "links": [
                {
                    "from": "C",
                    "to": "R",
                    "name": "C1-R",
                    "rate": "1Gbps",
                    "delay": f"{RTT1_MS / 4}ms",
                    "reverse": {"name": "R-C1"},
                },
                {
                    "from": "C",
                    "to": "R",
                    "name": "C2-R",
                    "rate": "1Gbps",
                    "delay": f"{(RTT2_MS - RTT1_MS / 2) / 2}ms",
                    "reverse": {"name": "R-C2"},
                },
                {"from": "R", "to": "S", "rate": "1Gbps", "delay": f"{RTT1_MS / 4}ms"},
            ],
            "addresses": [
                {"name": "C.1", "node": "C", "interface": "C1-R"},
                {"name": "C.2", "node": "C", "interface": "C2-R"},
            ],
            # A fixed connection buffer of 64 MiB: the connection's window never holds data back, so the
            # first data on a subflow is when its handshake lets it go (with Linux's autotuned window the
            # first subflow may have taken all the window allows by then).
            "flows": [{"name": "x", "size": "20MB", "cc": "reno"} | _buffer(flow) | flow],
            "trace": {"segments": ["x"]},
            "stop_when_complete": ["x"],
        }
    )


def _first_sends(res: mpsim.Results) -> dict[int, dict[str, float]]:
    """Per subflow: when the sender first sent a SYN-ACK (``"synack"``), a SYN (``"syn"``) and data."""
    out: dict[int, dict[str, float]] = {}
    for r in res.segment_traces.to_pylist():
        if r["event"] != "send":
            continue
        kind = "data" if r["payload_bytes"] else {"SYN": "syn", "SYN|ACK": "synack"}.get(r["flags"], "")
        if kind:
            out.setdefault(r["subflow"], {}).setdefault(kind, r["time_s"])
    return out


def _s(*times_ms: float) -> float:
    """The sum of times in milliseconds, in seconds (the traces' unit)."""
    return sum(times_ms) / 1e3


def test_the_network_has_the_round_trip_times_the_rules_use() -> None:
    res = mpsim.run(_scenario({"type": "tcp", "src": "C.1", "dst": "S"}), seed=1)
    first = _first_sends(res)
    assert first[0]["syn"] == 0.0
    assert first[0]["data"] == pytest.approx(_s(RTT1_MS), abs=TOLERANCE_S)


def test_a_receiver_that_connects_gets_data_one_and_a_half_round_trips_after_its_syn() -> None:
    # The receivers' quick ACKs off: with them, Linux's autotuned buffer begins its first measure at the
    # SYN-ACK at a client that connects and at the handshake's ACK at a server, so the two receivers' ACKs
    # part later in the transfer (docs/algorithms.md, the `linux` receiver's quick ACKs).
    same_receiver = {"tcp": {"quickack_window_growth": False}}
    up = mpsim.run(_scenario({"type": "tcp", "src": "C.1", "dst": "S"} | same_receiver), seed=1)
    down = mpsim.run(
        _scenario({"type": "tcp", "src": "S", "dst": "C.1", "initiator": "receiver"} | same_receiver), seed=1
    )
    first = _first_sends(down)
    assert "syn" not in first[0]
    assert first[0]["synack"] == pytest.approx(_s(RTT1_MS / 2), abs=TOLERANCE_S)
    assert first[0]["data"] == pytest.approx(_s(1.5 * RTT1_MS), abs=TOLERANCE_S)
    # The completion time counts from the client's SYN: half a round trip more than the upload's.
    fct_up, fct_down = (r.flows.to_pylist()[0]["fct_s"] for r in (up, down))
    assert fct_down - fct_up == pytest.approx(_s(RTT1_MS / 2), abs=TOLERANCE_S)


def test_linux_upload_joins_at_full_establishment_and_sends_after_the_fourth_packet() -> None:
    flow = {"type": "mptcp", "src": ["C.1", "C.2"], "dst": "S", "tcp": {"mptcp_join": "linux"}}
    first = _first_sends(mpsim.run(_scenario(flow), seed=1))
    assert first[0]["data"] == pytest.approx(_s(RTT1_MS), abs=TOLERANCE_S)
    assert first[1]["syn"] == pytest.approx(_s(2 * RTT1_MS), abs=TOLERANCE_S)
    assert first[1]["data"] == pytest.approx(_s(2 * RTT1_MS, 2 * RTT2_MS), abs=TOLERANCE_S)


def test_linux_download_joins_from_the_client_and_the_server_sends_after_the_third_packet() -> None:
    flow = {"type": "mptcp", "src": "S", "dst": ["C.1", "C.2"], "initiator": "receiver", "tcp": {"profile": "linux"}}
    first = _first_sends(mpsim.run(_scenario(flow), seed=1))
    assert first[0]["synack"] == pytest.approx(_s(RTT1_MS / 2), abs=TOLERANCE_S)
    assert first[0]["data"] == pytest.approx(_s(1.5 * RTT1_MS), abs=TOLERANCE_S)
    assert first[1]["synack"] == pytest.approx(_s(2 * RTT1_MS, RTT2_MS / 2), abs=TOLERANCE_S)
    assert first[1]["data"] == pytest.approx(_s(2 * RTT1_MS, 1.5 * RTT2_MS), abs=TOLERANCE_S)


def _join_handshake_ns(flow: dict[str, Any]) -> int:
    """When the sender's first handshake packet of the second subflow left, nanoseconds: its SYN, or its
    SYN-ACK when the receiver opened the connection (the traces are the sender's)."""
    res = mpsim.run(_scenario(flow), seed=1)
    rows = res.segment_traces.to_pylist()
    return min(r["time_ns"] for r in rows if r["subflow"] == 1 and r["event"] == "send" and "SYN" in r["flags"])


@pytest.mark.parametrize("initiator", ["sender", "receiver"])
def test_the_path_manager_joins_its_worker_delay_after_the_full_establishment(initiator: str) -> None:
    """Linux's path manager runs in the connection's worker (``mptcp_pm_schedule_work``), after the packets
    being processed: the ``linux`` profile's SYN of the join leaves 0.22 ms after the packet that made the
    connection fully established, and ``mptcp_pm_delay`` sets that time."""
    if initiator == "sender":
        flow: dict[str, Any] = {"type": "mptcp", "src": ["C.1", "C.2"], "dst": "S"}
        expected_s = _s(2 * RTT1_MS)  # the join's SYN
    else:
        flow = {"type": "mptcp", "src": "S", "dst": ["C.1", "C.2"], "initiator": "receiver"}
        expected_s = _s(2 * RTT1_MS, RTT2_MS / 2)  # the server's answer to the join's SYN
    at = {d: _join_handshake_ns(flow | {"tcp": {"profile": "linux", "mptcp_pm_delay": d}}) for d in ("0ms", "5ms")}
    assert at["5ms"] - at["0ms"] == 5_000_000
    assert _join_handshake_ns(flow | {"tcp": {"profile": "linux"}}) - at["0ms"] == 220_000
    assert at["0ms"] / 1e9 == pytest.approx(expected_s, abs=TOLERANCE_S)


@pytest.mark.parametrize("delay_ms", [0.0, 100.0])
def test_established_rule_joins_at_the_syn_ack_plus_the_join_delay(delay_ms: float) -> None:
    tcp = {"mptcp_join": "established"}
    up = {"type": "mptcp", "src": ["C.1", "C.2"], "dst": "S", "tcp": tcp, "join_delay": f"{delay_ms}ms"}
    first = _first_sends(mpsim.run(_scenario(up), seed=1))
    assert first[1]["syn"] == pytest.approx(_s(RTT1_MS, delay_ms), abs=TOLERANCE_S)
    assert first[1]["data"] == pytest.approx(_s(RTT1_MS, delay_ms, RTT2_MS), abs=TOLERANCE_S)
    down = up | {"src": "S", "dst": ["C.1", "C.2"], "initiator": "receiver"}
    first = _first_sends(mpsim.run(_scenario(down), seed=1))
    assert first[1]["synack"] == pytest.approx(_s(RTT1_MS, delay_ms, RTT2_MS / 2), abs=TOLERANCE_S)
    assert first[1]["data"] == pytest.approx(_s(RTT1_MS, delay_ms, 1.5 * RTT2_MS), abs=TOLERANCE_S)


def test_a_lost_syn_of_a_receiver_that_connects_is_sent_again_after_the_initial_timeout() -> None:
    sc = _scenario({"type": "tcp", "src": "S", "dst": "C.1", "initiator": "receiver"})
    # Path 1's first hop loses everything the client sends for 5 ms (its SYN), then nothing.
    d = sc.model_dump(by_alias=True, exclude_none=True)
    d["links"][0]["loss"] = "100%"
    d["links"][0]["reverse"]["loss"] = "none"
    d["link_changes"] = [{"at": "5ms", "link": "C1-R", "loss": "none"}]
    res = mpsim.run(mpsim.Scenario.model_validate(d), seed=1)
    row = res.raw["tcp_flows"][0]
    assert row["syn_retransmits"] == 1
    first = _first_sends(res)
    # The linux profile's SYN timeout before any RTT sample: 1 s (RFC 6298 §2.1).
    assert first[0]["synack"] == pytest.approx(1.0 + _s(RTT1_MS / 2), abs=TOLERANCE_S)
    assert row["fct_ns"] / 1e9 > 1.0


def test_the_profile_chooses_the_scheduler_and_the_join_rule_when_the_flow_does_not() -> None:
    from mpsim._core import resolved_json

    flow = {"type": "mptcp", "src": ["C.1", "C.2"], "dst": "S"}
    linux, rfc = _scenario(flow), _scenario(flow | {"tcp": {"profile": "rfc"}})
    # What ran is shown (`mpsim validate --resolved`), not only chosen.
    (lc,), (rc,) = (json.loads(resolved_json(json.dumps(s.to_core()))) for s in (linux, rfc))
    assert (lc["scheduler"], lc["tcp"]["mptcp_join"], lc["initiator"]) == ("linger", "linux", "sender")
    assert (rc["scheduler"], rc["tcp"]["mptcp_join"]) == ("minrtt", "established")
    assert _first_sends(mpsim.run(linux, seed=1))[1]["syn"] == pytest.approx(_s(2 * RTT1_MS), abs=TOLERANCE_S)
    assert _first_sends(mpsim.run(rfc, seed=1))[1]["syn"] == pytest.approx(_s(RTT1_MS), abs=TOLERANCE_S)


def test_the_in_kernel_path_manager_joins_from_the_connecting_sides_endpoints_within_its_limit() -> None:
    # A download: the client connects from C.1; C.2 is its endpoint, joined unless the limit is 0.
    flow = {"type": "mptcp", "src": "S", "dst": ["C.1", "C.2"], "initiator": "receiver", "path_manager": "kernel"}

    def subflows(limits: dict[str, int] | None) -> list[tuple[str, str]]:
        res = mpsim.run(_scenario(flow | ({"kernel_limits": limits} if limits else {})), seed=1)
        return [(s["src"], s["dst"]) for s in res.raw["mptcp_connections"][0]["subflows"]]

    assert subflows(None) == [("S", "C.1"), ("S", "C.2")]
    assert subflows({"subflows": 0}) == [("S", "C.1")]
    with pytest.raises(ValueError, match=r"kernel_limits.*path_manager"):
        _scenario(flow | {"path_manager": "fullmesh", "kernel_limits": {"subflows": 1}})
