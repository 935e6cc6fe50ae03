"""A small demonstration scenario: one MPTCP connection and one TCP flow share a bottleneck.

Two 10 Mbit/s paths from a dual-homed sender meet a 10 Mbit/s, 20 ms bottleneck with a 50-packet
drop-tail buffer; a CBR UDP source adds 2 Mbit/s of cross traffic. It exists to show the whole chain
(configuration → Rust core → Arrow tables) working from a fresh clone.
"""

from __future__ import annotations

from typing import Any

MS = 1_000_000


def _link(name: str, src: str, dst: str, rate_bps: int, delay_ms: float, limit_pkts: int = 100) -> dict[str, Any]:
    return {
        "name": name,
        "from": src,
        "to": dst,
        "rate_bps": rate_bps,
        "delay_ns": int(delay_ms * MS),
        "queue": {"type": "drop_tail", "limit_pkts": limit_pkts},
    }


def demo_config(seed: int = 1) -> dict[str, Any]:
    """The demonstration scenario in the core's configuration form."""
    nodes = [{"name": n} for n in ("S", "T", "U", "D")] + [
        {"name": r, "kind": "router"} for r in ("A", "B", "R1", "R2")
    ]
    links = [
        # The MPTCP sender has two interfaces, one to each access router.
        _link("S-A", "S", "A", 10_000_000, 5),
        _link("A-S", "A", "S", 10_000_000, 5),
        _link("S-B", "S", "B", 10_000_000, 5),
        _link("B-S", "B", "S", 10_000_000, 5),
        _link("A-R1", "A", "R1", 100_000_000, 1),
        _link("R1-A", "R1", "A", 100_000_000, 1),
        _link("B-R1", "B", "R1", 100_000_000, 1),
        _link("R1-B", "R1", "B", 100_000_000, 1),
        _link("T-R1", "T", "R1", 100_000_000, 5),
        _link("R1-T", "R1", "T", 100_000_000, 5),
        _link("U-R1", "U", "R1", 100_000_000, 1),
        _link("R1-U", "R1", "U", 100_000_000, 1),
        _link("R1-R2", "R1", "R2", 10_000_000, 20, limit_pkts=50),
        _link("R2-R1", "R2", "R1", 10_000_000, 20, limit_pkts=50),
        _link("R2-D", "R2", "D", 100_000_000, 1),
        _link("D-R2", "D", "R2", 100_000_000, 1),
    ]
    addresses = [
        {"name": "S.a", "node": "S", "out_link": "S-A", "in_link": "A-S"},
        {"name": "S.b", "node": "S", "out_link": "S-B", "in_link": "B-S"},
    ]
    return {
        "seed": seed,
        "stop_time_ns": 20_000 * MS,
        "nodes": nodes,
        "links": links,
        "addresses": addresses,
        "mptcp_connections": [
            {
                "name": "mptcp",
                "src_addrs": ["S.a", "S.b"],
                "dst_addrs": ["D"],
                "size_bytes": 5_000_000,
                "start_ns": 0,
                "cc": {"type": "lia"},
            }
        ],
        "tcp_flows": [
            {"name": "tcp", "src": "T", "dst": "D", "size_bytes": 5_000_000, "start_ns": 0, "cc": {"type": "reno"}}
        ],
        "udp_flows": [
            {
                "name": "cbr",
                "src": "U",
                "dst": "D",
                "packet_size_bytes": 1000,
                "start_ns": 0,
                "stop_ns": 10_000 * MS,
                "pattern": {"type": "cbr", "rate_bps": 2_000_000},
            }
        ],
    }
