"""Linux's connection-level receive window (the ``linux`` profile) while a second subflow has joined and carried
no data yet: ``mptcp_rcv_space_adjust`` takes the connection's ``scaling_ratio`` as the smallest of its
subflows', and a subflow has ``TCP_DEFAULT_SCALING_RATIO`` (128/256) until its first data, so the 131 072-byte
first buffer offers 65 536 bytes instead of 80 896 (158/256), less the segment each ACK answers before the reader
runs — what the rig's kernel did in this very cell, a
200 kB download at 5 Mbit/s, 200 ms (validation/linux/diagnosis.md items 25 and 29). Read from mpsim's packet capture
by tshark, the client's advertised windows (scaled by 1 024)."""

from __future__ import annotations

from pathlib import Path

import mpsim
from tshark import tshark
from validation.linux import sim
from validation.linux.cells import Cell

CELL = Cell(
    variant="shared",
    proto="mptcp",
    cc="reno",
    size_bytes=200_000,
    rate_mbit=5.0,
    rtt_ms=200.0,
    buffer_pkts=83,
    direction="down",
)
SERVER = "10.0.0.3"


def _fields(pcap: Path, display_filter: str, *fields: str) -> list[list[str]]:
    return [line.split("\t") for line in tshark(pcap, display_filter, *fields)]


def test_a_joined_subflow_without_data_halves_the_connections_window(tmp_path: Path) -> None:
    mpsim.run(sim.scenario(CELL), seed=1, pcap=tmp_path)
    pcap = tmp_path / "host-S0.pcap"
    ((join_syn, second),) = _fields(
        pcap,
        "tcp.flags.syn == 1 && tcp.flags.ack == 0 && tcp.options.mptcp.subtype == 1",
        "frame.time_relative",
        "ip.src",
    )
    first_data = min(
        float(t)
        for (t,) in _fields(pcap, f"ip.src == {SERVER} && ip.dst == {second} && tcp.len > 0", "frame.time_relative")
    )
    acks = [
        (float(t), int(w))
        for t, w in _fields(
            pcap,
            f"ip.dst == {SERVER} && tcp.len == 0 && tcp.flags.syn == 0",
            "frame.time_relative",
            "tcp.window_size_value",
        )
    ]
    joined = [w for t, w in acks if float(join_syn) < t < first_data]
    # The window grows at most to the first buffer's at the measured ratio less the segment each ACK answers
    # (80 896 − 1 424, rounded up to 1 024: 79 872 bytes), then falls to half the buffer less that segment,
    # 64 512 bytes (the kernel's captures show 64 512 in that round), while the second subflow has carried nothing:
    # within the first round or at the next measure, by where the receiver's millisecond clock puts the first
    # measure's RTT (item 29).
    low = 64_512 // 1024
    half = joined.index(low)
    peak = max(joined[:half])
    assert peak <= 79_872 // 1024
    falling = joined[joined.index(peak) : half + 1]
    # From the peak the offers only shrink (the right edge held) until they reach half the buffer, then hold.
    assert falling == sorted(falling, reverse=True)
    assert joined[half : half + 5] == [low] * 5
