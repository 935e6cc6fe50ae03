"""The benchmark scenarios: their reports are complete and the simulated outcome matches ns-3's.

Speed is measured by running ``mpsim bench``, never asserted here; these tests check what the
benchmarks simulate.
"""

from __future__ import annotations

from typing import Any

import pytest

from mpsim.bench import BENCHMARKS, bench_dumbbell, jain_index


def test_jain_index_bounds() -> None:
    assert jain_index([3.0, 3.0, 3.0]) == pytest.approx(1.0)
    assert jain_index([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)


@pytest.mark.parametrize(("n", "ns3_goodput_mbps"), [(20, 95.1), (100, 95.6)])
def test_dumbbell_goodput_is_within_two_percent_of_ns3(n: int, ns3_goodput_mbps: float) -> None:
    report = bench_dumbbell(n)
    assert report.name in BENCHMARKS
    assert report.simulated_s == pytest.approx(20.0)
    # 100 Mbit/s for 20 s is at most 171,939 packets of 1454 bytes.
    assert 0.95 * 171_939 < report.bottleneck_packets <= 171_940
    # Each data packet crosses three drop-tail links, each costing its arrival (and half as many ACKs
    # come back).
    assert report.events >= 4.5 * report.bottleneck_packets
    goodput = report.extra["aggregate_goodput_mbps"]
    assert abs(goodput - ns3_goodput_mbps) / ns3_goodput_mbps < 0.02
    assert 0.0 < report.extra["jain_index"] <= 1.0
    assert report.run_wall_s > 0 and report.peak_memory_mib > 0


def test_ten_thousand_flow_dumbbell_routes_every_flow() -> None:
    """The 10 000-flow dumbbell (20 002 hosts) is built and every flow that starts gets its data across:
    routes are found for every host pair without a table of every node towards every address."""
    from mpsim.bench import dumbbell_config
    from mpsim.engine import run_config

    cfg = dumbbell_config(10_000)
    cfg["stop_time_ns"] = 200_000_000  # flow i starts at i * 0.1 ms: flows 0 .. 1999 within the first 0.2 s
    res = run_config(cfg)
    flows = res.tcp_flows.to_pylist()
    assert len(flows) == 10_000
    # Every flow whose SYN went out before the first data (at 40 ms, after flow 0's handshake) has measured
    # a round trip over its own path of at least the path's 40 ms: its SYN and SYN-ACK found their routes
    # both ways. (Later SYNs meet a bottleneck queue that the data bursts overflow: not routing's doing.)
    early = [f for f in flows if f["first_syn_ns"] is not None and f["first_syn_ns"] <= 30_000_000]
    assert len(early) == 301  # flows 0 .. 300: their SYNs leave at 0, 0.1, .., 30 ms
    assert all(f["syn_retransmits"] == 0 and f["srtt_ns_at_end"] >= 40_000_000 for f in early)
    assert res.raw["dropped_no_route_pkts"] == 0


def test_fattree_report_sets_its_cost_per_event_against_k4(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``against_k4`` a fat-tree's report holds its cost per event against the median of three runs of
    the `fattree-k4` benchmark made just before. The run times are replaced here by fixed costs per event
    (30, 70, 40 ns for the three reference runs, 60 for the measured one), so the figures are exact; the
    reference runs and the measured one simulate the same events (same scenario, same seed)."""
    import mpsim.bench as bench
    from mpsim.engine import Results

    costs = iter([30.0, 70.0, 40.0, 60.0])
    events: list[int] = []
    real = bench.run_timed

    def timed(config: dict[str, Any]) -> tuple[Results, float, float]:
        res, build_s, _ = real(config)
        events.append(res.events_processed)
        return res, build_s, events[-1] * next(costs) * 1e-9

    monkeypatch.setattr(bench, "run_timed", timed)
    report = bench.bench_fattree(4, 1, against_k4=True)
    assert report.name == "fattree-k4" and "fattree-k4" in BENCHMARKS
    assert len(events) == 4 and len(set(events)) == 1 and events[0] == report.events
    assert report.ns_per_event == pytest.approx(60.0)
    assert report.extra["k4_ns_per_event"] == pytest.approx(40.0)
    assert report.extra["ns_per_event_vs_k4"] == pytest.approx(1.5)
