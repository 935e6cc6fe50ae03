"""Builds validation scenarios as mpsim scenarios and runs them.

The scenario is the dict form of a scenario file (docs/scenarios.md) with ``profile = "ns3"`` and only the
TCP overrides the description implies: ``cc = "cubic"``, ``sack = false``, ``delack_segments = 1``, and
the MSS or initial window when they differ from the profile's. Every flow of a scenario gets the same
TCP settings, as ns-3's ``Config::SetDefault`` gives every socket of a run the same.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from typing import Any

import mpsim
from mpsim.tcp_options import profile_params
from validation.scenarios import Scenario


def tcp_options(sc: Scenario) -> dict[str, Any]:
    """The ``tcp`` table of every TCP flow: the ``ns3`` profile and what the scenario changes in it."""
    ns3 = profile_params("ns3")
    options: dict[str, Any] = {"profile": "ns3"}
    if sc.mss_bytes != ns3["mss"]:
        options["mss"] = f"{sc.mss_bytes}B"
    if sc.initial_cwnd_segments != ns3["initial_cwnd_segments"]:
        options["initial_cwnd"] = sc.initial_cwnd_segments
    if not sc.variant.sack:
        options["sack"] = False
    if sc.variant.delack_segments != ns3["receiver"]["delack_segments"]:
        options["delack_segments"] = sc.variant.delack_segments
    return options


def _ns(t: int) -> str:
    return f"{t}ns"


def _link(a: str, b: str, rate_bps: int, delay_ns: int, buffer_pkts: int) -> dict[str, Any]:
    """A duplex link with the same rate, delay and drop-tail buffer both ways."""
    return {"from": a, "to": b, "rate": f"{rate_bps}bps", "delay": _ns(delay_ns), "buffer": f"{buffer_pkts}pkt"}


def _network(sc: Scenario) -> dict[str, Any]:
    access = (sc.access_bps, sc.access_delay_ns, sc.access_buffer_pkts)
    bottleneck = (sc.bottleneck_bps, sc.bottleneck_delay_ns, sc.buffer_pkts)
    if sc.topology == "dumbbell":
        routers = ["R1", "R2"]
        links = [_link("R1", "R2", *bottleneck)]
        ends = [(0, 1)] * 3
    else:
        routers = ["R1", "R2", "R3"]
        links = [_link("R1", "R2", *bottleneck), _link("R2", "R3", *bottleneck)]
        ends = [(0, 2), (0, 1), (1, 2)]  # S1 R1→R3 D1, S2 R1→R2 D2, S3 R2→R3 D3
    for i, (a, b) in enumerate(ends, 1):
        links += [_link(f"S{i}", routers[a], *access), _link(routers[b], f"D{i}", *access)]
    hosts = [f"S{i}" for i in (1, 2, 3)] + [f"D{i}" for i in (1, 2, 3)]
    return {"hosts": hosts, "routers": routers, "links": links}


def scenario(sc: Scenario, tcp_overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The mpsim scenario (dict form of a scenario file) of one validation scenario; ``tcp_overrides`` (a
    what-if, e.g. ``{"recovery": "sack"}``) are added to every TCP flow's options."""
    tcp = tcp_options(sc) | dict(tcp_overrides or {})
    cc = "cubic" if sc.variant.cc == "cubic" else "reno"
    flows: list[dict[str, Any]] = [
        {
            "name": "short",
            "type": "tcp",
            "src": "S1",
            "dst": "D1",
            "size": f"{sc.file_bytes}B",
            "start": _ns(sc.short_start_ns),
            "cc": cc,
            "tcp": tcp,
        }
    ]
    background = [2] if sc.background_tcp else []
    if sc.topology == "parking_lot":
        background.append(3)
    for i in background:
        flows.append(
            {
                "name": f"long{i}",
                "type": "tcp",
                "src": f"S{i}",
                "dst": f"D{i}",
                "start": _ns(sc.background_start_ns),
                "cc": cc,
                "tcp": tcp,
            }
        )
    if sc.udp_rate_bps > 0:
        flows.append(
            {
                "name": "udp",
                "type": "udp",
                "src": "S3",
                "dst": "D3",
                "rate": f"{sc.udp_rate_bps}bps",
                "packet_size": f"{sc.udp_packet_bytes}B",
                "start": _ns(sc.background_start_ns),
            }
        )
    trace = {"flows": ["long2"]} if sc.background_tcp else {}
    return {
        "seed": sc.seed,
        "duration": _ns(sc.time_limit_ns),
        **_network(sc),
        "flows": flows,
        "stop_when_complete": ["short"],
        "trace": trace,
    }


def run(sc: Scenario, tcp_overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Runs ``sc`` in mpsim; the measurements of the measured flow, named as in the ns-3 reference."""
    res = mpsim.run(scenario(sc, tcp_overrides))
    flow = next(r for r in res.raw["tcp_flows"] if r["name"] == "short")
    fct_ns = flow["fct_ns"]
    row = {
        "name": sc.name,
        "fct_s": fct_ns / 1e9 if fct_ns is not None else None,
        "retransmissions": flow["retransmits_fast"] + flow["retransmits_rto"],
        "rto_count": flow["rto_count"],
        "fast_recoveries": flow["fast_recoveries"],
        "cwnd_bytes_at_end": flow["cwnd_bytes_at_end"],
        "segments_sent": flow["segments_sent"],
    }
    if sc.background_tcp:
        # The background flow's window when the measured flow starts: as its last ACK before then left it.
        trace = next(t for t in res.raw["tcp_traces"] if t["flow"] == "long2")
        i = bisect.bisect_right(trace["time_ns"], sc.short_start_ns) - 1
        row["background_cwnd_bytes_at_start"] = trace["cwnd_bytes"][i] if i >= 0 else None
        ssthresh = trace["ssthresh_bytes"][i] if i >= 0 else None
        row["background_ssthresh_bytes_at_start"] = None if ssthresh is None or ssthresh >= 2**63 else ssthresh
    return row
