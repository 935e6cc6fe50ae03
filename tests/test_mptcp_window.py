"""The MPTCP connection's receive window as Linux 6.18 runs it (``tcp.mptcp_rcv_window = "linux"``, the
``linux`` profile's), seen from the sender's segment trace of a 2-subflow upload over a shared 20 Mbit/s
bottleneck (50 ms, a buffer of 167 packets: no loss).

What follows from the model (docs/algorithms.md, "The connection's receive window"):

* the buffer starts at ``tcp_rmem[1]`` = 131 072 bytes, whose window with 1 424-byte segments (ratio
  158/256) is 80 896 bytes; an ACK sent at once counts the segment it answers as buffer taken (the reader
  runs after it), so no ACK offers more than 80 896 − 1 424 bytes rounded up to the window scale's 1 024, 79 872
  (the plateau of the rig's captures of this transfer),
  until the buffer has grown, which takes one receiver RTT in which more than 10 · advmss = 14 600 bytes
  were read;
* the connection's right edge (DATA_ACK + window) never moves left on a subflow;
* the sender never sends new data beyond the highest right edge it has been given (the first: its
  peer's SYN window of 65 160 bytes), and cuts a short segment where the edge falls;
* a short segment last in its subflow's queue waits while another short one sent on that subflow is
  unacknowledged (Nagle with Minshall's rule, which Linux applies to the write queue's tail only); one with
  more data queued behind it on its subflow goes at once.

With ``"fixed"`` the window is the connection's buffer (64 MiB) and the only short segment is the last.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import mpsim

MSS = 1424
FIRST_WINDOW = 131_072 * 158 // 256
FIRST_OFFER = -(-(FIRST_WINDOW - MSS) // 1024) * 1024
INITIAL_EDGE = 1 + 65_160


def _run(window: str | None = None) -> list[dict[str, Any]]:
    tcp: dict[str, Any] = {"profile": "linux", "mss": MSS}
    if window:
        tcp["mptcp_rcv_window"] = window
    scenario = mpsim.Scenario.model_validate(
        {
            "duration": "10s",
            "topology": {
                "preset": "shared_bottleneck",
                "paths": 2,
                "bottleneck": "20Mbps",
                "delay": "25ms",
                "buffer": "167pkt",
                "access": "10Gbps",
                "access_delay": "0s",
            },
            "flows": [
                {
                    "name": "x",
                    "type": "mptcp",
                    "src": ["S0.1", "S0.2"],
                    "dst": "D0",
                    "size": "400kB",
                    "cc": "reno",
                    "tcp": tcp,
                }
            ],
            "trace": {"segments": ["x"]},
            "stop_when_complete": ["x"],
        }
    )
    res = mpsim.run(scenario, seed=1)
    assert res.flows.to_pylist()[0]["fct_s"] is not None
    # In time order across the subflows (the table lists them one after the other).
    return sorted(res.segment_traces.to_pylist(), key=lambda r: r["time_ns"])


def _acks(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["event"] != "send" and r["data_ack"] and "SYN" not in r["flags"]]


def _offered(first: int, segments: int) -> int:
    """The window an ACK offers once ``segments`` data segments have grown a subflow's ``rcv_ssthresh`` from
    ``first`` by 2 · 1 448 bytes each (``tcp_grow_window``), rounded up to the window scale's 1 024, when that
    threshold is below the buffer's window."""
    return -(-(first + segments * 2 * 1448) // 1024) * 1024


def test_the_first_acks_step_up_as_the_kernels_captures_do() -> None:
    # The server answered the SYN: its subflow's rcv_ssthresh starts at the SYN-ACK's window, 65 536 rounded down
    # to whole 1 448-byte segments (`tcp_select_initial_window`). The first data ACK is taken before the first
    # read, at the default ratio: half the buffer less the segment it answers, rounded up. The rig's kernel
    # offered 64 512, (63 488: a second segment within its reader's wake-up), 74 752, 76 800, 79 872
    # (validation/linux/diagnosis.md item 31).
    windows = [a["rwnd_bytes"] for a in _acks(_run())[:6]]
    first = 65_536 // 1448 * 1448
    assert first == 65_160
    assert windows[0] == -(-(65_536 - MSS) // 1024) * 1024 == 64_512
    assert windows[1:4] == [_offered(first, k) for k in (2, 3, 4)] == [71_680, 74_752, 76_800]
    # The fifth ACK's threshold (79 640) reaches the plateau, where the buffer's window less the unread segment
    # bounds the offer.
    assert windows[4:6] == [FIRST_OFFER, FIRST_OFFER] == [79_872, 79_872]


def test_the_first_window_is_the_default_buffers_until_it_grows() -> None:
    acks = _acks(_run())
    windows = [a["rwnd_bytes"] for a in acks]
    assert max(windows[:20]) == FIRST_OFFER == 79_872
    first_grown = next(i for i, w in enumerate(windows) if w > FIRST_WINDOW)
    # The buffer grows only after a receiver RTT (50 ms) in which more than 14 600 bytes were read.
    assert acks[first_grown]["time_s"] - acks[0]["time_s"] > 0.1
    assert acks[first_grown]["data_ack"] > 1 + 14_600
    # It then grows far beyond (to about twice what a round trip delivers).
    assert max(windows) > 3 * FIRST_WINDOW


def test_the_right_edge_never_moves_left_on_a_subflow() -> None:
    edges: dict[int, int] = {}
    for a in _acks(_run()):
        edge = a["data_ack"] + a["rwnd_bytes"]
        assert edge >= edges.get(a["subflow"], 0), a
        edges[a["subflow"]] = edge


def test_the_sender_fills_the_window_to_its_edge_and_no_further() -> None:
    rows = _run()
    edge = INITIAL_EDGE
    cut_at_edge = 0
    for r in rows:
        if r["event"] != "send":
            if r["data_ack"]:
                edge = max(edge, r["data_ack"] + r["rwnd_bytes"])
            continue
        if not r["payload_bytes"] or r["retransmission"]:
            continue
        end = r["data_seq"] + r["payload_bytes"]
        assert end <= edge, r
        cut_at_edge += end == edge and r["payload_bytes"] < MSS
    # The window limits this transfer: some segments are cut short where the edge falls.
    assert cut_at_edge > 0


def test_a_short_segment_waits_while_another_short_one_is_unacknowledged() -> None:
    rows = _run()
    sent = [r for r in rows if r["event"] == "send" and r["payload_bytes"] and not r["retransmission"]]
    starts = {(r["subflow"], r["seq"]) for r in sent}
    short_end: dict[int, int] = {}
    una: dict[int, int] = {}
    shorts = 0
    held_tail = False
    for r in rows:
        sf = r["subflow"]
        if r["event"] != "send":
            if r["snd_una"] is not None:
                una[sf] = max(una.get(sf, 0), r["snd_una"])
            continue
        if not r["payload_bytes"] or r["retransmission"] or r["payload_bytes"] >= MSS:
            continue
        if r["data_seq"] + r["payload_bytes"] == 1 + 400_000:
            # The data's last byte is always its subflow's queue tail: it waits.
            assert short_end.get(sf, 0) <= una.get(sf, 0), r
            held_tail = True
        elif short_end.get(sf, 0) > una.get(sf, 0):
            # Sent past Nagle's rule: it was not its subflow's last queued data, so its subflow's
            # sequence goes on from its end.
            assert (sf, r["seq"] + r["payload_bytes"]) in starts, r
        short_end[sf] = r["seq"] + r["payload_bytes"]
        shorts += 1
    assert shorts > 1 and held_tail


def test_a_fixed_window_is_the_buffer_and_cuts_no_segment_but_the_last() -> None:
    rows = _run("fixed")
    # The buffer less what waits out of order.
    windows = {a["rwnd_bytes"] for a in _acks(rows)}
    assert max(windows) == 64 << 20
    assert min(windows) > (64 << 20) - 400_000
    data = [r for r in rows if r["event"] == "send" and r["payload_bytes"] and not r["retransmission"]]
    short = [r for r in data if r["payload_bytes"] < MSS]
    assert [r["data_seq"] + r["payload_bytes"] for r in short] == [1 + 400_000]


def test_a_short_piece_whose_skb_was_split_stays_short_before_the_data_after_it() -> None:
    # Linux extends the write queue's tail skb (and its mapping) with the data that continues it only while
    # none of that skb has been sent: `tso_fragment` splits an skb it sends in part, and
    # `mptcp_skb_ext_copy` freezes the mapping. A short piece cut at the window's edge then leaves as a short
    # segment with the data after it on its heels, in the same burst (the rig's 2 MB upload: 224, 624, 128
    # and 448-byte segments between whole ones; validation/linux/diagnosis.md item 32). Were every queued
    # short piece filled by the data after it, no such pair could be sent at one instant: the rule filled
    # before gave none in this run, Linux's gives several.
    sent = [r for r in _run() if r["event"] == "send" and r["payload_bytes"] and not r["retransmission"]]
    by_subflow: dict[int, list[dict[str, Any]]] = {}
    for r in sent:
        by_subflow.setdefault(r["subflow"], []).append(r)
    pairs = [
        (a, b)
        for rows in by_subflow.values()
        for a, b in pairwise(rows)
        if a["payload_bytes"] < MSS
        and a["data_seq"] + a["payload_bytes"] == b["data_seq"]
        and a["time_ns"] == b["time_ns"]
    ]
    assert len(pairs) >= 3, pairs
    # Each is a piece the edge cut, followed by whole segments of a new mapping.
    assert all(b["payload_bytes"] == MSS for _, b in pairs)
