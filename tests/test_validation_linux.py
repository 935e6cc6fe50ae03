"""The Linux cross-validation harness (validation/linux): the mpsim scenario and the rig options built
from one cell description, and the comparison. No rig and no root needed."""

from __future__ import annotations

from typing import Any

import pytest

from validation.linux import compare, rig, shares, sim, trace
from validation.linux.cells import Cell, CellError, bbr_grid, grid, validation_grid, wide_grid


def _link(core: dict[str, Any], name: str) -> dict[str, Any]:
    return next(link for link in core["links"] if link["name"] == name)


def test_grid_covers_every_combination_once() -> None:
    cells = validation_grid()
    assert len(cells) == 2 * 2 * 2 * 4
    assert len({c.key for c in cells}) == len(cells)
    assert {c.rtt2_ms for c in cells if c.variant == "separate"} == {200.0}
    assert {c.rtt2_ms for c in cells if c.variant == "shared"} == {None}
    assert len({c.key for c in grid()}) == len(grid()) == len(cells) + len(wide_grid()) + len(bbr_grid())


def _bdp_pkts(c: Cell) -> float:
    return c.rate_mbit * 1e6 * c.rtt_ms / 1e3 / 8 / 1500


def test_bbr_grid_spans_both_protocols_variants_directions_and_shallow_buffers() -> None:
    cells = bbr_grid()
    assert len(cells) == 24 and all(c.cc == "bbr" and c.runs >= 8 for c in cells)
    assert {(c.proto, c.variant, c.direction) for c in cells} == {
        (p, v, d) for p in ("tcp", "mptcp") for v in ("shared", "separate") for d in ("up", "down")
    }
    assert len({c.rate_mbit for c in cells}) >= 3 and len({c.rtt_ms for c in cells}) >= 3
    buffers = [c.buffer_pkts / _bdp_pkts(c) for c in cells]
    assert min(buffers) == pytest.approx(0.25, abs=0.03) and max(buffers) == pytest.approx(2, abs=0.03)
    # The other grids keep Reno and CUBIC.
    assert {c.cc for c in validation_grid() + wide_grid()} == {"reno", "cubic"}


def test_wide_grid_spans_what_the_kernel_reference_must_cover() -> None:
    cells = wide_grid()
    assert len(cells) >= 150
    assert all(c.runs >= 8 for c in cells)
    assert (min(c.rate_mbit for c in cells), max(c.rate_mbit for c in cells)) == (5, 50)
    assert (min(c.rtt_ms for c in cells), max(c.path2_rtt_ms for c in cells)) == (10, 200)
    ratios = {c.path2_rtt_ms / c.rtt_ms for c in cells if c.variant == "separate"}
    assert min(ratios) == 2 and max(ratios) == 6
    buffers = [c.buffer_pkts / _bdp_pkts(c) for c in cells]
    assert min(buffers) == pytest.approx(0.25, abs=0.02) and max(buffers) == pytest.approx(2, abs=0.02)
    assert (min(c.size_bytes for c in cells), max(c.size_bytes for c in cells)) == (50_000, 8_000_000)
    for field, values in (("proto", {"tcp", "mptcp"}), ("cc", {"reno", "cubic"}), ("direction", {"up", "down"})):
        assert {getattr(c, field) for c in cells} == values
    assert {c.variant for c in cells} == {"shared", "separate"}


def test_bad_cell_names_field_value_and_allowed() -> None:
    with pytest.raises(CellError, match=r"cell\.cc: got 'vegas', allowed: reno, cubic, bbr"):
        Cell(variant="shared", proto="tcp", cc="vegas", size_bytes=70_000)  # type: ignore[arg-type]
    with pytest.raises(CellError, match=r"cell\.size_bytes: must be positive, got 0"):
        Cell(variant="shared", proto="tcp", cc="reno", size_bytes=0)
    with pytest.raises(CellError, match=r"cell\.direction: got 'sideways', allowed: up, down"):
        Cell(variant="shared", proto="tcp", cc="reno", size_bytes=70_000, direction="sideways")  # type: ignore[arg-type]


def test_shared_tcp_cell_builds_the_rig_network_with_linux_mss() -> None:
    core = sim.scenario(Cell(variant="shared", proto="tcp", cc="reno", size_bytes=280_000)).to_core()
    bottleneck = _link(core, "R1-R2")
    assert bottleneck["rate_bps"] == 5_000_000
    assert bottleneck["delay_ns"] == 50_000_000
    assert bottleneck["queue"] == {"type": "drop_tail", "limit_pkts": 47}
    # The rig shapes only the data direction; its access links are veth pairs without delay.
    assert _link(core, "R2-R1")["rate_bps"] == 10_000_000_000
    assert _link(core, "S0.1-R1")["delay_ns"] == 0
    (flow,) = core["tcp_flows"]
    assert (flow["src"], flow["dst"], flow["size_bytes"]) == ("S0.1", "D0", 280_000)
    # The rig's bottleneck counts Ethernet's 14 bytes a frame: so does mpsim's.
    assert flow["tcp"] == {"profile": "linux", "mss": 1448, "framing_bytes": 14, "send_buffer_bytes": 8 << 20}
    assert flow["initiator"] == "sender"
    assert flow["cc"]["type"] == "reno"
    assert core["mptcp_connections"] == []


def test_the_bottleneck_holds_packets_as_the_rigs_delay_line_does() -> None:
    """The delay line's mean hold-time error (52 µs, the rig's README) on the bottleneck, both ways, and nowhere
    else; so the seeds give different runs, which the comparison averages."""
    cell = Cell(variant="separate", proto="mptcp", cc="reno", size_bytes=70_000, rtt2_ms=200.0, direction="down")
    core = sim.scenario(cell).to_core()
    jitter = {link["name"]: link.get("jitter_ns") for link in core["links"]}
    assert {name for name, j in jitter.items() if j is not None} == {"A1-B1", "B1-A1", "A2-B2", "B2-A2"}
    assert {jitter[name] for name in ("A1-B1", "B1-A1", "A2-B2", "B2-A2")} == {52_000}
    assert len(sim.DEFAULT_SEEDS) == 3 * 8
    runs = {sim.run(cell, seed).fct_s for seed in sim.DEFAULT_SEEDS[:4]}
    assert len(runs) > 1


@pytest.mark.parametrize("variant", ["shared", "separate"])
@pytest.mark.parametrize("direction", ["up", "down"])
def test_the_links_into_the_server_hold_packets_their_transmission_time_and_the_tbf_limits_the_rate(
    variant: str, direction: str
) -> None:
    """The rig's delay line sits at the router next to the server and adds each frame's transmission time at R,
    both ways: before the tbf for a download, after it for an upload; the tbf on its veth only limits the rate."""
    cell = Cell(variant=variant, proto="mptcp", cc="reno", size_bytes=70_000, rtt2_ms=200.0, direction=direction)
    core = sim.scenario(cell).to_core()
    held = {link["name"]: link["txtime_rate_bps"] for link in core["links"] if "txtime_rate_bps" in link}
    into_server = {"R2-D0", "D0-R2"} if variant == "shared" else {"B1-D0", "D0-B1", "B2-D0", "D0-B2"}
    assert held == dict.fromkeys(into_server, 5_000_000)
    limiters = {link["name"] for link in core["links"] if link.get("rate_limiter")}
    shaped = {link["name"] for link in core["links"] if "burst_bytes" in link}
    assert limiters == shaped == set(sim.BOTTLENECK_LINKS[direction]) & {link["name"] for link in core["links"]}


def test_the_header_writes_consecutive_seeds_as_a_range() -> None:
    from validation.linux.__main__ import seed_list

    assert seed_list(tuple(range(1, 25))) == "1–24"
    assert seed_list((1, 2)) == "1, 2"
    assert seed_list((1, 3, 4)) == "1, 3, 4"


def test_separate_mptcp_cell_joins_over_the_longer_path() -> None:
    cell = Cell(variant="separate", proto="mptcp", cc="cubic", size_bytes=700_000, rtt2_ms=200.0)
    core = sim.scenario(cell).to_core()
    for name in ("A1-B1", "A2-B2"):
        assert _link(core, name)["delay_ns"] == 50_000_000
        assert _link(core, name)["queue"]["limit_pkts"] == 47
    # Path 2's RTT is 100 ms longer: 50 ms more each way on its access link.
    assert _link(core, "S0.2-A2")["delay_ns"] == 50_000_000
    assert _link(core, "A2-S0.2")["delay_ns"] == 50_000_000
    (conn,) = core["mptcp_connections"]
    assert conn["src_addrs"] == ["S0.1", "S0.2"]
    assert conn["tcp"] == {"profile": "linux", "mss": 1424, "framing_bytes": 14, "send_buffer_bytes": 8 << 20}
    assert conn["cc"]["type"] == "cubic"
    # When the second subflow joins and the scheduler are the profile's, nothing set by hand.
    assert conn["join_delay_ns"] == 0
    assert "scheduler" not in conn


def test_download_cell_is_opened_by_the_client_and_shaped_towards_it() -> None:
    cell = Cell(variant="separate", proto="mptcp", cc="reno", size_bytes=70_000, rtt2_ms=200.0, direction="down")
    core = sim.scenario(cell).to_core()
    (conn,) = core["mptcp_connections"]
    assert (conn["src_addrs"], conn["dst_addrs"], conn["initiator"]) == (["D0"], ["S0.1", "S0.2"], "receiver")
    for name in ("B1-A1", "B2-A2"):
        assert _link(core, name)["rate_bps"] == 5_000_000
        assert _link(core, name)["queue"]["limit_pkts"] == 47
    assert _link(core, "A1-B1")["rate_bps"] == 10_000_000_000


def test_rig_options_count_the_packet_in_transmission() -> None:
    cell = Cell(variant="separate", proto="mptcp", cc="cubic", size_bytes=70_000, rtt2_ms=200.0)
    opts = rig.cell_options(cell)
    assert "--buffer-pkts=48" in opts
    assert "--rtt2-ms=200" in opts
    assert "--direction=up" in opts and "--bulk" in opts and "--cc=cubic" in opts


def test_rig_calls_group_protocols_and_sizes() -> None:
    calls = rig.commands(validation_grid())
    assert len(calls) == 4
    assert len(rig.commands(grid())) == 4 + 20 + 6
    args, members = calls[0]
    assert "--proto=tcp,mptcp" in args
    assert "--size=70000,280000,700000,1400000" in args
    assert len(members) == 8
    lone = [Cell(variant="shared", proto="tcp", cc="reno", size_bytes=70_000)]
    with pytest.raises(ValueError, match="every protocol × size"):
        rig.commands([*lone, Cell(variant="shared", proto="mptcp", cc="reno", size_bytes=280_000)])


def _record(cell: Cell, run: int, fct: float) -> dict[str, Any]:
    return {
        "variant": cell.variant,
        "direction": cell.direction,
        "cc": cell.cc,
        "proto": cell.proto,
        "size": cell.size_bytes,
        "buffer_pkts": cell.buffer_pkts + 1,
        "rate_mbit": cell.rate_mbit,
        "rtt_ms": cell.rtt_ms,
        "rtt2_ms": cell.rtt2_ms,
        "kernel": "6.18.0",
        "run": run,
        "fct_ack_s": fct,
        "retrans_segs": run,
        "timeouts": 0,
        "loss_probes": 1,
        "bneck_drops": run,
    }


def test_collect_takes_each_cells_runs_and_checks_their_number() -> None:
    a = Cell(variant="shared", proto="tcp", cc="reno", size_bytes=70_000, runs=2)
    b = Cell(variant="shared", proto="mptcp", cc="reno", size_bytes=70_000, runs=2)
    records = [_record(a, 0, 1.0), _record(b, 0, 2.0), _record(a, 1, 3.0), _record(b, 1, 4.0)]
    got = rig.collect([a, b], records, [], "run.sh ...", {})
    assert [k.values("fct_ack_s") for k in got] == [[1.0, 3.0], [2.0, 4.0]]
    assert got[0].kernel == "6.18.0"
    assert rig.KernelCell.from_json(got[0].to_json()) == got[0]
    with pytest.raises(RuntimeError, match="reported 1 runs, expected 2"):
        rig.collect([a], records[:1], [], "run.sh ...", {})


def test_merge_replaces_rerun_cells_in_place() -> None:
    a, b = (Cell(variant="shared", proto="tcp", cc="reno", size_bytes=s, runs=1) for s in (70_000, 280_000))
    old = [rig.KernelCell(c, [{"fct_ack_s": 1.0}], "old", "k") for c in (a, b)]
    new = [rig.KernelCell(b, [{"fct_ack_s": 2.0}], "new", "k")]
    assert [k.command for k in rig.merge(old, new)] == ["old", "new"]


def _sim_run(fct: float, retrans: int = 0) -> sim.SimRun:
    return sim.SimRun(
        seed=1, fct_s=fct, retrans_segs=retrans, timeouts=0, fast_recoveries=0, loss_probes=0, drops=0, path2_share=0
    )


def test_row_statistics_and_pass_mark() -> None:
    cell = Cell(variant="shared", proto="tcp", cc="reno", size_bytes=70_000, runs=3)
    kernel = rig.KernelCell(
        cell,
        [
            {"fct_ack_s": f, "retrans_segs": r, "timeouts": 0, "loss_probes": 0, "bneck_drops": r}
            for f, r in ((0.9, 1), (1.0, 2), (1.1, 3))
        ],
        "run.sh",
        "k",
    )
    ok = compare.row(kernel, [_sim_run(1.09, 4), _sim_run(1.09, 6)])
    assert ok.kernel_fct.mean == pytest.approx(1.0)
    assert ok.kernel_fct.std == pytest.approx(0.1)  # sample standard deviation
    assert ok.kernel_retrans == compare.Stat(2.0, 1.0, 3)
    assert ok.sim_retrans.mean == 5.0
    assert ok.fct_diff == pytest.approx(0.09)
    # Retransmissions: max(25 % of 2, 2 standard deviations = 2, 3) = 3 either side of 2.
    assert ok.retrans_tolerance == 3.0
    assert ok.passed
    too_many = compare.row(kernel, [_sim_run(1.0, 6)])
    assert too_many.fct_passed and not too_many.retrans_passed and not too_many.passed
    miss = compare.row(kernel, [_sim_run(0.89)])
    assert miss.fct_diff == pytest.approx(-0.11)
    assert not miss.passed
    assert compare.pass_rate([ok, too_many, miss]) == (1, 3)
    assert compare.pass_rate([ok, too_many, miss], strict=False) == (2, 3)
    table = compare.table([ok, miss])
    assert "| shared up tcp reno 5 Mb/s 100 ms b47 70 kB | 1.000 ± 0.100 (3) | 1.090 | +9.0 % |" in table
    assert "| -11.0 % |" in table and "| ✗ | ✓ | – | ✗ |" in table


def test_an_mptcp_cell_passes_only_with_the_kernels_share_of_the_second_path() -> None:
    cell = Cell(variant="shared", proto="mptcp", cc="reno", size_bytes=700_000, runs=2)
    kernel = rig.KernelCell(
        cell,
        [
            {"fct_ack_s": 1.0, "retrans_segs": 10, "timeouts": 0, "loss_probes": 0, "bneck_drops": 10, "path2_share": s}
            for s in (0.2, 0.3)
        ],
        "run.sh",
        "k",
    )

    def run(share: float) -> sim.SimRun:
        return sim.SimRun(
            seed=1, fct_s=1.0, retrans_segs=10, timeouts=0, fast_recoveries=0, loss_probes=0, drops=0, path2_share=share
        )

    assert compare.row(kernel, [run(0.34)]).passed
    off = compare.row(kernel, [run(0.36)])
    assert off.share_diff == pytest.approx(0.11)
    assert off.fct_passed and off.retrans_passed and not off.passed


def test_block_replaces_only_the_linux_part() -> None:
    doc = "# Validation\n\nns-3 text\n\n<!-- linux:begin -->\nold\n<!-- linux:end -->\n\nmore ns-3\n"
    out = compare.replace_block(doc, "new table")
    assert out == "# Validation\n\nns-3 text\n\n<!-- linux:begin -->\nnew table\n<!-- linux:end -->\n\nmore ns-3\n"
    assert compare.replace_block("# V\n\nns-3\n", "t") == "# V\n\nns-3\n\n<!-- linux:begin -->\nt\n<!-- linux:end -->\n"
    with pytest.raises(ValueError, match="one Linux marker without the other"):
        compare.replace_block("<!-- linux:begin -->\n", "t")


def test_committed_reference_covers_the_grid() -> None:
    from validation.linux.__main__ import REFERENCE

    kernel = {k.cell.key: k for k in rig.read_reference(REFERENCE)}
    # The validation grid in full; the wide grid as far as it is recorded (it is recorded over several
    # sessions, a rig call at a time), and nothing that is not a cell of the grid.
    assert {c.key for c in validation_grid()} <= set(kernel) <= {c.key for c in grid()}
    for k in kernel.values():
        assert k.kernel.startswith("6.18")
        assert len(k.runs) == k.cell.runs
        assert all(r["fct_ack_s"] > r["fct_rcv_s"] > 0 for r in k.runs)
        assert f"--buffer-pkts={k.cell.buffer_pkts + 1}" in k.command


def test_late_share_counts_the_histogram_above_the_threshold() -> None:
    stats = {"late_hist_edges_us": [50.0, 100.0, 1000.0], "late_hist": [90, 6, 3, 1]}
    assert rig.late_share(stats) == pytest.approx(0.01)  # only the bin above 1000 µs
    assert rig.late_share(stats, threshold_us=100.0) == pytest.approx(0.04)
    assert rig.late_share({}) != rig.late_share({})  # NaN without statistics


def _segments(spec: list[tuple[float, str, bool]]) -> list[trace.Segment]:
    return [trace.Segment(t, who, 1424, False, rt) for t, who, rt in spec]


def test_trace_counts_each_senders_subflow_cumulatively_by_bin() -> None:
    server = "10.200.4.2"
    segments = [
        trace.Segment(0.0, "10.200.1.2:1>10.200.4.2", 0, True, False),
        *_segments(
            [
                (0.01, "10.200.1.2:1>10.200.4.2", False),
                (0.06, "10.200.2.2:2>10.200.4.2", False),
                (0.07, "10.200.1.2:1>10.200.4.2", True),
                (0.08, "10.200.4.2:5001>10.200.1.2", False),  # the receiver's: not counted in an upload
            ]
        ),
    ]
    counts = trace.count(segments, server, upload=True, bin_s=0.05)
    assert counts.sent == [[1, 2], [0, 1]]
    assert counts.retransmitted == [[0, 1], [0, 0]]
    download = trace.count(segments, server, upload=False, bin_s=0.05)
    assert download.sent == [[0, 1]]


def test_trace_names_the_first_bin_where_a_subflow_parts() -> None:
    kernel = trace.Counts(sent=[[10, 30, 70, 80], [0, 0, 10, 20]], retransmitted=[[0, 0, 0, 0], [0, 0, 0, 0]])
    # Within max(3, 10 %) of the other side's count in the bin or a bin on either side until the last
    # bin, where the second subflow's 20 segments are beyond 4-6 and its 6 below 10-20.
    ours = trace.Counts(sent=[[10, 32, 40, 80], [0, 0, 4, 6]], retransmitted=[[0, 0, 2, 2], [0, 0, 0, 0]])
    assert trace.first_difference(kernel, ours, 0.05) == (
        "by 0.200 s subflow 2 sent 20 segments in the kernel, 6 in mpsim"
    )
    same = trace.Counts(sent=[[10, 30, 70]], retransmitted=[[0, 0, 3]])
    assert trace.first_difference(same, same, 0.05).startswith("no bin apart")


# ------------------------------------------------------------------------- two congestion controls, one bottleneck


def test_share_grid_pits_bbr_against_cubic_at_a_quarter_one_and_two_bdps() -> None:
    grid_ = shares.share_grid()
    assert len({s.key for s in grid_}) == len(grid_)
    assert all(s.runs >= 8 and s.seconds == 20 for s in grid_)
    bbr_cubic = [s for s in grid_ if (s.cc_a, s.cc_b) == ("bbr", "cubic")]
    at_20_50 = sorted(s.buffer_pkts / _bdp_pkts(s.cell()) for s in bbr_cubic if (s.rate_mbit, s.rtt_ms) == (20, 50))
    assert at_20_50 == pytest.approx([0.25, 1, 2], abs=0.03)
    assert len({(s.rate_mbit, s.rtt_ms) for s in bbr_cubic}) >= 2
    with pytest.raises(CellError, match=r"share\.cc_b: got 'vegas'"):
        shares.ShareSetting(cc_a="bbr", cc_b="vegas", rate_mbit=20, rtt_ms=50, buffer_pkts=83)  # type: ignore[arg-type]
    with pytest.raises(CellError, match=r"cell\.buffer_pkts: must be positive"):
        shares.ShareSetting(cc_a="bbr", cc_b="cubic", rate_mbit=20, rtt_ms=50, buffer_pkts=0)


def test_share_setting_runs_the_script_on_the_rigs_upload_with_the_packet_in_transmission() -> None:
    s = shares.ShareSetting(cc_a="bbr", cc_b="cubic", rate_mbit=10, rtt_ms=100, buffer_pkts=83)
    opts = shares.rig_options(s)
    assert "--buffer-pkts=84" in opts and "--direction=up" in opts and "--variant=shared" in opts
    assert "--bulk" in opts and not any(o.startswith("--cc") for o in opts)
    assert shares.exec_command(s, shares.SCRIPT, "/tmp/x y").endswith("share.sh bbr cubic 20 '/tmp/x y' 8")


def test_share_scenario_is_the_cells_network_with_two_uploads_and_windows_from_the_first_data() -> None:
    s = shares.ShareSetting(cc_a="bbr", cc_b="cubic", rate_mbit=20, rtt_ms=50, buffer_pkts=21)
    core = shares.scenario(s).to_core()
    assert core["links"] == sim.scenario(s.cell()).to_core()["links"]
    assert [(f["src"], f["dst"], f["cc"]["type"], f.get("size_bytes")) for f in core["tcp_flows"]] == [
        ("S0.1", "D0", "bbr", None),
        ("S0.1", "D0", "cubic", None),
    ]
    assert [f["start_ns"] for f in core["tcp_flows"]] == [0, 0]
    # The kernel's second flow starts some milliseconds after the first, or before it.
    assert [f["start_ns"] for f in shares.scenario(s, 0.03).to_core()["tcp_flows"]] == [0, 30_000_000]
    assert [f["start_ns"] for f in shares.scenario(s, -0.02).to_core()["tcp_flows"]] == [20_000_000, 0]
    assert core["tcp_flows"][0]["tcp"] == {
        "profile": "linux",
        "mss": 1448,
        "framing_bytes": 14,
        "send_buffer_bytes": 8 << 20,
    }
    # Bins of 5 s from the first data segment (one RTT after the SYNs) to the end of the whole-run window.
    assert core["throughput"] == {"interval_ns": 5 * 10**9, "start_ns": 50 * 10**6, "end_ns": 19_550 * 10**6}


SAMPLES = """run 1
0.100 5002 1 0 0
0.100 5001 1 40 0
0.200 5001 100 140 0
0.200 5002 50 130 0
5.100 5001 3000 5040 4
5.100 5002 1000 5030 7
9.600 5001 6000 9540 5
9.600 5002 5000 9530 9
drops 12
run 2
0.100 5001 1 30 0
0.100 5002 1 20 0
9.600 5001 500 9530 0
9.600 5002 1500 9520 0
drops 0
"""


def test_the_kernels_samples_give_each_flows_start_and_its_shares_over_the_windows() -> None:
    runs = shares.parse_samples(SAMPLES)
    assert [r.drops for r in runs] == [12, 0]
    a, b = runs[0].flows
    # The first sample that shows the flow busy: 5001 busy 40 ms at 0.1 s, 5002 (idle at 0.1 s) 130 ms at 0.2 s.
    assert (a.port, a.data_start_s, b.port, b.data_start_s) == (5001, 0.06, 5002, 0.07)
    assert (a.retrans_segs, b.retrans_segs) == (5, 9)
    assert shares.start_offset_s(runs[0]) == pytest.approx(0.01)
    assert a.bytes_at(0.0) == 0 and a.bytes_at(5.1) == 3000 and a.bytes_at(9.6) == 6000
    assert a.bytes_at(7.35) == pytest.approx(4500)  # halfway between 5.1 s and 9.6 s
    with pytest.raises(ValueError, match=r"no sample at 9\.700"):
        a.bytes_at(9.7)
    # Windows from the earlier start (0.06 s) to 0.06 + 9.5 s, and from 0.06 + 5 s; nothing acknowledged at 0.06 s.
    a_end, b_end = 3000 + 3000 * 4.46 / 4.5, 1000 + 4000 * 4.46 / 4.5
    a_5, b_5 = 100 + 2900 * 4.86 / 4.9, 50 + 950 * 4.86 / 4.9
    got = shares.kernel_shares(runs[0], window_s=9.5)
    assert got.whole == pytest.approx(a_end / (a_end + b_end))
    assert got.late == pytest.approx((a_end - a_5) / (a_end - a_5 + b_end - b_5))
    assert shares.kernel_shares(runs[1], window_s=9.5).whole == pytest.approx(0.25, abs=0.01)
    run = shares.KernelRun.from_json(runs[0].to_json())
    assert run == runs[0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0.1 5001 1 0 0\n", "before the first 'run' line"),
        ("run 1\n0.1 5001 1 10 0\n0.1 5002 1 10 0\n", "no 'drops' line"),
        ("run 1\n0.1 5001 1 10 0\ndrops 0\n", r"ports \[5001\], expected \[5001, 5002\]"),
        ("run 1\n0.1 5001 1 10 0\n0.1 5002 1 0 0\ndrops 0\n", "port 5002 never sent data"),
        ("run 1\n0.1 5001 1 10\n", "expected '<t> <port>"),
    ],
)
def test_incomplete_kernel_samples_are_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        shares.parse_samples(text)


def _kernel_shares(
    setting: shares.ShareSetting, whole: list[float], second_starts_s: list[float] | None = None
) -> shares.KernelShares:
    """Kernel runs whose first flow has the given share over every window: constant rates from 0.1 s to 20 s
    (the second flow's first data at the given times, by default with the first's, at 0.1 s)."""
    runs = []
    for share, second_start in zip(whole, second_starts_s or [0.1] * len(whole), strict=True):
        a, b = (
            shares.FlowSeries(port, [0.1, 20.0], [0, round(1e6 * x)], data_start_s=start, retrans_segs=0)
            for port, x, start in zip(shares.PORTS, (share, 1 - share), (0.1, second_start), strict=True)
        )
        runs.append(shares.KernelRun(flows=(a, b), drops=3))
    return shares.KernelShares(setting, runs, "run.sh", "6.18", "2025-01-01")


def test_a_setting_passes_with_mpsims_mean_share_within_a_tenth_of_the_kernels_in_both_windows() -> None:
    setting = shares.ShareSetting(cc_a="bbr", cc_b="cubic", rate_mbit=20, rtt_ms=50, buffer_pkts=83, runs=2)
    kernel = _kernel_shares(setting, [0.8, 0.9])
    ok = shares.share_row(kernel, [shares.Shares(0.939, 0.94), shares.Shares(0.959, 0.74)])
    assert ok.kernel_whole.mean == pytest.approx(0.85) and ok.kernel_whole.std == pytest.approx(0.0707, abs=1e-4)
    assert ok.kernel_late.mean == pytest.approx(0.85)
    assert ok.whole_diff == pytest.approx(0.099) and ok.late_diff == pytest.approx(-0.01)
    assert ok.passed
    high = shares.share_row(kernel, [shares.Shares(0.96, 0.85)])
    assert high.whole_diff == pytest.approx(0.11) and not high.passed
    late_low = shares.share_row(kernel, [shares.Shares(0.85, 0.74)])
    assert late_low.late_diff == pytest.approx(-0.11) and not late_low.passed
    assert ok.start_offset_ms.mean == 0 and ok.kernel_drops.mean == 3
    table = shares.table([ok, late_low])
    assert "| bbr vs cubic 20 Mb/s 50 ms b83 | 0.850 ± 0.071 (2) | 0.949 ± 0.014 | +0.099 |" in table
    assert "| -0.110 | ✗ |" in table
    assert shares.section([], (1,)) == ""
    assert shares.KernelShares.from_json(kernel.to_json()) == kernel


def test_mpsims_runs_start_their_flows_as_the_kernels_runs_did_in_turn() -> None:
    setting = shares.ShareSetting(cc_a="bbr", cc_b="cubic", rate_mbit=20, rtt_ms=50, buffer_pkts=83, runs=3)
    kernel = _kernel_shares(setting, [0.8, 0.9, 0.7], second_starts_s=[0.1, 0.13, 0.08])
    assert shares.sim_offsets_s(kernel, 5) == pytest.approx([0.0, 0.03, -0.02, 0.0, 0.03])


def test_committed_share_reference_covers_the_share_grid() -> None:
    from validation.linux.__main__ import SHARE_REFERENCE

    kernel = {k.setting.key: k for k in shares.read_reference(SHARE_REFERENCE)}
    assert set(kernel) == {s.key for s in shares.share_grid()}
    for k in kernel.values():
        assert k.kernel.startswith("6.18") and len(k.runs) == k.setting.runs
        assert f"--buffer-pkts={k.setting.buffer_pkts + 1}" in k.command
        for s in k.shares():
            assert 0 < s.whole < 1 and 0 < s.late < 1


def test_mpsims_shares_come_from_the_windows_bins() -> None:
    s = shares.ShareSetting(cc_a="cubic", cc_b="cubic", rate_mbit=5, rtt_ms=20, buffer_pkts=8, seconds=6)
    got = shares.sim_shares(s, seed=1)
    assert 0.2 < got.whole < 0.8 and 0.05 < got.late < 0.95
    assert got != shares.sim_shares(
        shares.ShareSetting(cc_a="bbr", cc_b="cubic", rate_mbit=5, rtt_ms=20, buffer_pkts=8, seconds=6), seed=1
    )


def test_a_resend_is_a_segment_that_starts_below_what_its_subflow_had_sent() -> None:
    a, b = "10.200.1.2:1>10.200.4.2", "10.200.2.2:2>10.200.4.2"
    sent = [
        (a, 0, 0),  # the SYN
        (a, 1, 1000),
        (a, 1001, 1000),
        (b, 1, 1000),  # another subflow's sequence space
        (a, 1, 1000),  # resent at once: tshark calls this "out of order"
        (a, 2001, 500),
        (a, 1001, 1000),
        (b, 1001, 1000),
        (a, 2501, 0),  # a bare ACK is never a resend
    ]
    assert trace.resent_flags(sent) == [False, False, False, False, True, False, True, False, False]


def test_a_capture_refuses_to_start_without_the_rigs_tools(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    # Without ethtool the rig leaves segmentation offload on and records another transfer than the reference's.
    monkeypatch.setattr(rig.shutil, "which", lambda tool: None if tool in ("ethtool", "tcpdump") else "/bin/" + tool)
    cell = next(c for c in bbr_grid() if c.proto == "tcp")
    with pytest.raises(FileNotFoundError, match=r"needs ethtool, tcpdump on the PATH \(apt: ethtool tcpdump\)"):
        trace.capture(cell, tmp_path)
    # The rig's own calls check the same tools, and name each tool's package.
    monkeypatch.setattr(rig.shutil, "which", lambda tool: None if tool in ("ping", "tc", "ip") else "/bin/" + tool)
    with pytest.raises(FileNotFoundError, match=r"needs ping, ip, tc on the PATH \(apt: iputils-ping iproute2\)"):
        rig.require_tools()
