"""The LISA experiments (Barik et al., ICC 2016): topologies with the paper's base RTTs and bottleneck,
valid configurations for every variant, the join timing, the pooling of buffers, and the headline sign."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import mpsim
from mpsim.experiments import CATALOGUE, lisa
from mpsim.experiments.base import MS, VARIANTS
from mpsim.experiments.claims import Compare, single
from mpsim.scenario import CongestionControl, TcpFlow

OTHER_SETTINGS = ("lisa-motivation", "lisa-datacenter", "lisa-datacenter-filesize")
LISA_EXPERIMENTS = [name for name in CATALOGUE if name.startswith("lisa-") and name not in OTHER_SETTINGS]
"""The multi-homed server experiments of §IV-A (Figs. 3, 4): all but the motivation and the data centre."""


def ser_ns(wire_bytes: int, rate_bps: int) -> int:
    return wire_bytes * 8 * 1_000_000_000 // rate_bps


def arrivals_ns(hops: list[tuple[int, int]], sizes: list[int]) -> list[int]:
    """When packets of ``sizes`` bytes, sent back to back at time 0, arrive over idle ``hops``
    (rate, one-way delay): each waits at a hop for the one before it, then is serialised and propagated."""
    times = [0] * len(sizes)
    for rate, delay in hops:
        free = 0
        for i, size in enumerate(sizes):
            free = max(times[i], free) + ser_ns(size, rate)
            times[i] = free + delay
    return times


def one_packet_fct_ns(hops: list[tuple[int, int]], back: list[tuple[int, int]]) -> int:
    """Handshake plus one full segment and its ACK over ``hops`` and back over ``back``.

    A single TCP flow without timestamps: SYN and SYN-ACK are 52 B on the wire (40 + MSS, SACK-permitted and
    window-scale options, 4 bytes each as Linux aligns them), the handshake's ACK 40 B, the segment MSS + 40 =
    1500 B and leaves right behind the handshake's ACK; its ACK is 40 B.
    """
    (syn,) = arrivals_ns(hops, [52])
    (syn_ack,) = arrivals_ns(back, [52])
    _, data = arrivals_ns(hops, [40, lisa.MSS + 40])
    (ack,) = arrivals_ns(back, [40])
    return syn + syn_ack + data + ack


def single_packet_run(cfg: dict[str, Any], src: str) -> int:
    """The completion time of a one-segment TCP transfer from ``src`` in the topology of ``cfg``."""
    cfg = copy.deepcopy(cfg)
    (flow,) = cfg["tcp_flows"]
    flow.update(src=src, size_bytes=lisa.MSS, start_ns=0)
    res = mpsim.run_config(cfg)
    (row,) = [f for f in res.raw["tcp_flows"] if f["name"] == "measured"]
    return int(row["fct_ns"])


GIG, FIVE = lisa.ACCESS_BPS, lisa.BOTTLENECK_BPS


def test_shared_topology_has_40_ms_base_rtt_on_both_server_interfaces() -> None:
    cfg = CATALOGUE["lisa-shared-filesize"].build(300, "tcp", 1)
    # Server.ethX → Rc (1 Gbit/s, 1 ms) → Client (5 Mbit/s, 19 ms), and back.
    there = [(GIG, 1 * MS), (FIVE, 19 * MS)]
    back = [(FIVE, 19 * MS), (GIG, 1 * MS)]
    expected = one_packet_fct_ns(there, back)
    # Two 40 ms round trips, the serialisation of each packet on each link, and the data's wait at Rc
    # behind the handshake's ACK (64 µs on 5 Mbit/s less the 12.32 µs it arrived earlier).
    assert expected == 80 * MS + 2_643_552 + 52_320
    assert single_packet_run(cfg, "Server.eth0") == expected
    assert single_packet_run(cfg, "Server.eth1") == expected


def test_nonshared_topology_puts_the_5_mbit_links_at_the_server() -> None:
    cfg = CATALOGUE["lisa-nonshared-filesize"].build(300, "tcp", 1)
    there = [(FIVE, 19 * MS), (GIG, 1 * MS)]
    back = [(GIG, 1 * MS), (FIVE, 19 * MS)]
    expected = one_packet_fct_ns(there, back)
    assert single_packet_run(cfg, "Server.eth0") == expected
    assert single_packet_run(cfg, "Server.eth1") == expected
    # Each subflow has its own bottleneck with the run's buffer.
    links = {link["name"]: link for link in cfg["links"]}
    for nic, router in (("eth0", "R1"), ("eth1", "R2")):
        up = links[f"Server.{nic}-{router}"]
        assert (up["rate_bps"], up["delay_ns"], up["queue"]["limit_pkts"]) == (FIVE, 19 * MS, 9)


def test_hetero_rtt_paths_are_200_and_20_ms() -> None:
    cfg = CATALOGUE["lisa-hetero-rtt"].build(20, "tcp", 1)
    bottleneck = (FIVE, 5 * MS)
    slow = one_packet_fct_ns([(GIG, 95 * MS), bottleneck], [bottleneck, (GIG, 95 * MS)])
    fast = one_packet_fct_ns([(GIG, 5 * MS), bottleneck], [bottleneck, (GIG, 5 * MS)])
    assert slow - fast == 4 * 90 * MS  # two round trips of 200 ms against two of 20 ms
    assert single_packet_run(cfg, "Server.eth0") == slow
    assert single_packet_run(cfg, "Server.eth1") == fast


@pytest.mark.parametrize("name", ["lisa-shared-buffer", "lisa-hetero-rtt"])
def test_the_shared_bottleneck_is_the_client_downlink_with_buffer_x(name: str) -> None:
    exp = CATALOGUE[name]
    for x in exp.quick_x_values:
        cfg = exp.build(x, "mptcp", 1)
        (down,) = [link for link in cfg["links"] if link["name"] == "Rc-Client"]
        assert down["rate_bps"] == 5_000_000 and down["queue"] == {"type": "drop_tail", "limit_pkts": x}
        # Only that link runs at 5 Mbit/s in the data direction.
        slow = [link["name"] for link in cfg["links"] if link["rate_bps"] < GIG]
        assert sorted(slow) == ["Client-Rc", "Rc-Client"]


FIRST_PATH = ("Server.eth0-Rc", "Rc-Client", "Server.eth0-R1", "R1-Client")
"""The links of the first subflow's data path, in the shared and in the non-shared topology."""


@pytest.mark.parametrize("name", LISA_EXPERIMENTS)
def test_every_variant_builds_a_valid_configuration(name: str) -> None:
    exp = CATALOGUE[name]
    assert exp.variants == VARIANTS
    for x in exp.x_values:
        for variant in VARIANTS:
            for run in (1, 2, 3):
                cfg = exp.build(x, variant, run)
                mpsim.validate_config(cfg)
                assert "measured" in cfg["stop_when_complete"]
                measured = [
                    f for k in ("tcp_flows", "mptcp_connections") for f in cfg.get(k, []) if f["name"] == "measured"
                ]
                assert len(measured) == 1
                assert measured[0]["tcp"]["mss"] == 1460 and measured[0]["tcp"]["delayed_ack"] is False
                if variant == "tcp":
                    assert measured[0]["src"] == "Server.eth0"
                else:
                    conn = measured[0]
                    assert conn["src_addrs"] == ["Server.eth0", "Server.eth1"]
                    assert conn["cc"] == {"type": "lia", "flavour": "linux"}
                    assert conn["slow_start"]["type"] == ("standard" if variant == "mptcp" else variant)
                    if variant == "gsam":
                        # The data direction of each 5 Mbit/s link (from Rc or from the server).
                        buffers = {
                            link["queue"]["limit_pkts"]
                            for link in cfg["links"]
                            if link["rate_bps"] == FIVE and link["from"] in ("Rc", "Server")
                        }
                        (buffer,) = buffers
                        # GSAM's K as its authors compute it: D/2 + B·1500·8/(2·5 Mbit/s), D the first path's
                        # propagation both ways plus a 1500-byte segment and a 40-byte ACK serialised at
                        # 5 Mbit/s and 1 Gbit/s (2 464 000 + 12 320 ns).
                        d = 2 * sum(link["delay_ns"] for link in cfg["links"] if link["name"] in FIRST_PATH)
                        d += 2_476_320
                        assert conn["slow_start"] == {"type": "gsam", "k_ns": d // 2 + buffer * 1_200_000}


def test_pooled_experiments_give_each_buffer_a_third_of_the_runs() -> None:
    for name in ("lisa-shared-filesize", "lisa-competing", "lisa-nonshared-filesize"):
        exp = CATALOGUE[name]
        assert exp.runs == 30 and exp.quick_runs % 3 == 0
        used = [lisa.pooled_buffer(r) for r in range(1, exp.runs + 1)]
        assert {b: used.count(b) for b in set(used)} == {9: 10, 17: 10, 30: 10}


def test_join_comes_three_rtts_after_the_first_syn_within_the_jitter() -> None:
    exp = CATALOGUE["lisa-shared-filesize"]
    gaps = []
    for run in range(1, 11):
        res = mpsim.run_config(exp.build(300, "mptcp", run))
        (conn,) = res.raw["mptcp_connections"]
        syn0, syn1 = (sf["flow"]["first_syn_ns"] for sf in conn["subflows"])
        start, join = lisa.timing("lisa-shared-filesize", run)
        assert 0 <= start <= 10 * MS and syn0 == start
        # The core waits join_delay after the first subflow is established: one 40 ms RTT plus the
        # serialisation of SYN (64 B: MSS, SACK-permitted and window scale, and MP_CAPABLE) and SYN-ACK on the
        # 5 Mbit/s and 1 Gbit/s links.
        handshake = 40 * MS + 2 * (ser_ns(64, FIVE) + ser_ns(64, GIG))
        assert syn1 - syn0 == handshake + join
        gaps.append((syn1 - syn0 - handshake + 40 * MS) / (3 * 40 * MS))
    assert all(0.75 <= g <= 1.25 for g in gaps) and len(set(gaps)) == len(gaps)


def test_lisa_retransmits_less_than_mptcp_before_slow_start_ends_at_buffer_17() -> None:
    """The headline of Fig. 6(a), judged at the path's BDP-sized buffer: R_ss of LISA below MPTCP's."""
    exp = CATALOGUE["lisa-shared-buffer"]
    claim = single(exp.checks, Compare, "r_ss", op="<")
    rows = exp.rows([17], claim.named_variants(), range(1, exp.quick_runs + 1))
    assert all(r["sum_cwnd_ss_exit_pkts"] > 0 for r in rows)  # both subflows left slow start
    assert claim.check(rows).verdict == "holds"


def test_the_motivation_runs_x_subflows_through_a_2_5_mbit_70_ms_downlink() -> None:
    """Figs. 1–2: 300 KB, a 2.5 Mbit/s client downlink with a 15-packet queue, 70 ms base RTT; the multipath
    variants open x subflows together (ndiffports), TCP is CUBIC."""
    e = CATALOGUE["lisa-motivation"]
    for x in e.x_values:
        cfg = e.build(x, "lisa", 1)
        down = next(link for link in cfg["links"] if link["name"] == "Rc-Client")
        assert (down["rate_bps"], down["queue"]["limit_pkts"]) == (2_500_000, 15)
        rtt = 2 * sum(link["delay_ns"] for link in cfg["links"] if link["name"] in ("Server.eth0-Rc", "Rc-Client"))
        assert rtt == 70 * MS
        (conn,) = cfg["mptcp_connections"]
        assert conn["path_manager"] == {"type": "ndiffports", "subflows": x}
        assert conn["size_bytes"] == 300_000
    (tcp,) = e.scenario(2, "tcp", 1).flows
    assert isinstance(tcp, TcpFlow) and tcp.cc == CongestionControl(type="cubic")
