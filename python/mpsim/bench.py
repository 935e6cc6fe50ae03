"""Fixed benchmark scenarios (docs/performance.md gives the figures and how they were measured).

Each benchmark builds its scenario, runs it once and reports the wall time of the run alone (building
excluded), events per second, simulated bottleneck packets per wall second and the process's peak
memory. Wall time is measured in the binding (``Run.build_s``, ``Run.run_s``); the engine never reads a clock.
"""

from __future__ import annotations

import resource
import statistics
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from mpsim._core import run as run_core
from mpsim.engine import Results, encode_config

MS = 1_000_000
S = 1_000_000_000


@dataclass
class BenchReport:
    name: str
    simulated_s: float
    bottleneck_packets: int
    events: int
    build_wall_s: float
    run_wall_s: float
    events_per_s: float
    ns_per_event: float
    bottleneck_packets_per_s: float
    peak_memory_mib: float
    event_queue_mean: float
    """The events pending when one was taken, averaged over the run's events (the core's
    ``event_queue_mean``)."""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _droptail_link(name: str, src: str, dst: str, rate_bps: int, delay_ns: int, limit_pkts: int) -> dict[str, Any]:
    return {
        "name": name,
        "from": src,
        "to": dst,
        "rate_bps": rate_bps,
        "delay_ns": delay_ns,
        "queue": {"type": "drop_tail", "limit_pkts": limit_pkts},
    }


def dumbbell_config(n: int) -> dict[str, Any]:
    """``dumbbell-N``: N long-lived TCP NewReno flows (profile ``ns3``, MSS 1400, IW 10), each sender on its
    own 1 Gbit/s / 5 ms access link to R1, receivers likewise behind R2, one 100 Mbit/s / 10 ms bottleneck
    R1→R2 with a drop-tail buffer of one BDP (344 packets: 100 Mbit/s x 40 ms over 1454-byte packets),
    flow i starting at i/N s, 20 simulated seconds."""
    nodes: list[dict[str, Any]] = [{"name": "R1", "kind": "router"}, {"name": "R2", "kind": "router"}]
    links = [
        _droptail_link("R1-R2", "R1", "R2", 100_000_000, 10 * MS, 344),
        _droptail_link("R2-R1", "R2", "R1", 100_000_000, 10 * MS, 344),
    ]
    flows = []
    for i in range(n):
        src, dst = f"S{i}", f"D{i}"
        for host, router in ((src, "R1"), (dst, "R2")):
            nodes.append({"name": host})
            links.append(_droptail_link(f"{host}-{router}", host, router, 1_000_000_000, 5 * MS, 1000))
            links.append(_droptail_link(f"{router}-{host}", router, host, 1_000_000_000, 5 * MS, 1000))
        flows.append(
            {
                "name": f"f{i}",
                "src": src,
                "dst": dst,
                "start_ns": i * S // n,
                "cc": {"type": "reno"},
                "tcp": {"profile": "ns3"},
            }
        )
    return {"seed": 1, "stop_time_ns": 20 * S, "nodes": nodes, "links": links, "tcp_flows": flows}


def _peak_memory_mib() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def jain_index(values: list[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²): 1 when all are equal, 1/n when one takes everything."""
    total = sum(values)
    squares = sum(v * v for v in values)
    return total * total / (len(values) * squares) if squares > 0 else 0.0


def run_timed(config: dict[str, Any]) -> tuple[Results, float, float]:
    """Runs one configuration: its results, the wall seconds of its build (parsing and validation included)
    and of its run alone, as the core's binding measures them."""
    run = run_core(encode_config(config))
    return Results.of_run(run), run.build_s, run.run_s


def run_scenario_bench(name: str, config: dict[str, Any], bottleneck: str) -> tuple[BenchReport, Results]:
    """Runs one scenario and measures it; ``bottleneck`` names the link whose delivered packets count."""
    res, build_s, run_s = run_timed(config)
    packets = int(res.link(bottleneck)["delivered_pkts"])
    return _run_report(name, res, packets, build_s, run_s), res


def _run_report(
    name: str, res: Results, packets: int, build_s: float, run_s: float, extra: dict[str, Any] | None = None
) -> BenchReport:
    """The report of one simulation run: its counts and the rates per second of run wall time."""
    return BenchReport(
        name=name,
        simulated_s=res.end_time_s,
        bottleneck_packets=packets,
        events=res.events_processed,
        build_wall_s=build_s,
        run_wall_s=run_s,
        events_per_s=res.events_processed / run_s if run_s > 0 else float("inf"),
        ns_per_event=run_s * 1e9 / res.events_processed if res.events_processed else float("nan"),
        bottleneck_packets_per_s=packets / run_s if run_s > 0 else float("inf"),
        peak_memory_mib=_peak_memory_mib(),
        event_queue_mean=float(res.raw.get("event_queue_mean", float("nan"))),
        extra=extra or {},
    )


def bench_dumbbell(n: int) -> BenchReport:
    cfg = dumbbell_config(n)
    report, res = run_scenario_bench(f"dumbbell-{n}", cfg, "R1-R2")
    seconds = cfg["stop_time_ns"] / S
    goodputs = [row["bytes_delivered"] * 8 / seconds / 1e6 for row in res.tcp_flows.to_pylist()]
    report.extra = {
        "aggregate_goodput_mbps": sum(goodputs),
        "jain_index": jain_index(goodputs),
        "bottleneck_drops": res.link("R1-R2")["dropped_overflow_pkts"],
    }
    return report


def fattree_config(k: int = 8, seconds: int = 5, seed: int = 1) -> dict[str, Any]:
    """``fattree-k8``: a k-ary fat-tree (k³/4 hosts) of 100 Mbit/s links with 20 µs delay and 100-packet
    drop-tail buffers; every host opens a long-lived MPTCP connection (LIA, 8 subflows by ndiffports,
    spread by ECMP) to the host a random permutation without fixed points gives it (the SIGCOMM'11
    data-centre setting, scaled to 100 Mbit/s)."""
    import random

    from mpsim.scenario import Scenario
    from mpsim.topologies import fat_tree

    topo = fat_tree(k=k, rate="100Mbps", delay="20us", buffer="100pkt")
    n = topo.n_hosts
    rng = random.Random(f"fattree-k{k}:{seed}")
    while True:
        perm = list(range(1, n + 1))
        rng.shuffle(perm)
        if all(perm[i - 1] != i for i in range(1, n + 1)):
            break
    flows = [
        {
            "name": f"c{i}",
            "type": "mptcp",
            "src": topo.host(i),
            "dst": topo.host(perm[i - 1]),
            "subflows": 8,
            "cc": "lia",
        }
        for i in range(1, n + 1)
    ]
    scenario = Scenario(seed=seed, duration=f"{seconds}s", topology=topo, flows=flows)
    return scenario.to_core()


K4_RUNS = 3
"""Runs of the k = 4 fat-tree (1 s) that a larger fat-tree's report sets its cost per event against."""


def k4_ns_per_event(runs: int = K4_RUNS) -> float:
    """The median cost per event of ``fattree-k4`` over ``runs`` runs in this process: what a larger fat-tree's
    cost per event is held against, measured at the same moment (a shared machine's load moves both; the
    ratio of the two measured together moves much less)."""
    return statistics.median(bench_fattree(4, 1).ns_per_event for _ in range(runs))


def bench_fattree(k: int = 8, seconds: int = 5, against_k4: bool = False) -> BenchReport:
    """A fat-tree benchmark (``fattree_config``). With ``against_k4``, the report's ``extra`` also gives the
    k = 4 fat-tree's cost per event measured just before (``k4_ns_per_event``) and the ratio of this run's
    to it (``ns_per_event_vs_k4``): how much the cost of an event grows with the network."""
    k4 = k4_ns_per_event() if against_k4 else None
    cfg = fattree_config(k, seconds)
    res, build_s, run_s = run_timed(cfg)
    # Packets delivered to hosts (every edge→host link): data and ACKs that reached their end.
    to_hosts = [row for row in res.raw["links"] if row["to"].startswith("h")]
    packets = sum(int(row["delivered_pkts"]) for row in to_hosts)
    hops = sum(int(row["delivered_pkts"]) for row in res.raw["links"])
    seconds = cfg["stop_time_ns"] / S
    goodputs = [row["bytes_delivered"] * 8 / seconds / 1e6 for row in res.raw["mptcp_connections"]]
    report = _run_report(
        f"fattree-k{k}",
        res,
        packets,
        build_s,
        run_s,
        {
            "link_packet_hops": hops,
            "mean_goodput_mbps": sum(goodputs) / len(goodputs),
            "jain_index": jain_index(goodputs),
            "host_link_utilisation": sum(goodputs) / (100.0 * len(goodputs)),
        },
    )
    if k4 is not None:
        report.extra["k4_ns_per_event"] = k4
        report.extra["ns_per_event_vs_k4"] = report.ns_per_event / k4
    return report


def _sweep_report(name: str, wall_s: float, extra: dict[str, Any], simulated_s: float = 0.0) -> BenchReport:
    """The report of a benchmark of many runs: its wall time and figures of its own, no per-run counts."""
    return BenchReport(
        name=name,
        simulated_s=simulated_s,
        bottleneck_packets=0,
        events=0,
        build_wall_s=0.0,
        run_wall_s=wall_s,
        events_per_s=0.0,
        ns_per_event=float("nan"),
        bottleneck_packets_per_s=0.0,
        peak_memory_mib=_peak_memory_mib(),
        event_queue_mean=float("nan"),
        extra=extra,
    )


def bench_css_sweep(jobs: int | None = None) -> BenchReport:
    """``css-sweep``: the whole ``css-shared-filesize`` reproduction (every variant, 10 runs per point)
    through the sweep runner on all local cores, timed end to end (figure included), then the sweep
    runner's steady-state throughput with 1 and with 2 worker processes (both in a process pool, so that
    the two differ only in the number of workers) on 1650 runs of that figure."""
    import tempfile
    import time

    from mpsim.experiments import get
    from mpsim.experiments.reproduce import experiment_row, reproduce
    from mpsim.sweep import Point, run_points

    with tempfile.TemporaryDirectory() as d:
        started = time.perf_counter()
        result = reproduce("css-shared-filesize", d, jobs=jobs, progress=False)
        wall = time.perf_counter() - started
    exp = get("css-shared-filesize")
    # Three times the figure's runs (30 per point), so that starting the worker processes (about half a
    # second each) is a small part of the measurement.
    points = [(Point(v, {exp.x_name: x}, r), cfg) for x, v, r, cfg in exp.configs(False, runs=30)]
    throughput: dict[int, float] = {}
    for workers in (1, 2):
        best = 0.0
        for _ in range(2):  # the best of two, as benchmarks report the minimum time
            stamps: list[float] = []

            def stamp(_key: str, log: list[float] = stamps) -> None:
                log.append(time.perf_counter())

            with tempfile.TemporaryDirectory() as d:
                run_points(
                    points,
                    d,
                    axes=[exp.x_name],
                    variants=list(exp.variants),
                    extract=experiment_row,
                    jobs=workers,
                    progress=False,
                    on_run=stamp,
                    pool=True,
                )
            # Steady state: the middle 80 % of completions, leaving out worker start-up and the tail.
            a, b = len(stamps) // 10, len(stamps) - len(stamps) // 10
            best = max(best, (b - 1 - a) / (stamps[b - 1] - stamps[a]))
        throughput[workers] = best
    runs = result.table.num_rows
    return _sweep_report(
        "css-sweep",
        wall,
        {
            "runs": runs,
            "runs_per_s_end_to_end": runs / wall,
            "runs_per_s_1_worker": throughput[1],
            "runs_per_s_2_workers": throughput[2],
            "speedup_1_to_2_workers": throughput[2] / throughput[1],
        },
        simulated_s=float(sum(result.table.column("end_time_s").to_pylist())),
    )


def bench_dask_sweep(name: str = "css-shared-filesize", runs: int = 30) -> BenchReport:
    """``dask-sweep``: catalogue experiment ``name`` (``runs`` runs per point) sent to a Dask cluster on this
    machine, a scheduler and 1, then 2, worker processes of one thread each, timed from submission to the
    last stored result; the throughput of each and the speedup. Worker start-up is outside the timing."""
    import tempfile
    import time

    from distributed import LocalCluster

    from mpsim.experiments.reproduce import reproduce

    rates: dict[int, float] = {}
    n_runs = 0
    for workers in (1, 2):
        with (
            LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            tempfile.TemporaryDirectory() as d,
        ):
            started = time.perf_counter()
            result = reproduce(name, d, runs=runs, executor="dask", scheduler=cluster.scheduler_address, progress=False)
            wall = time.perf_counter() - started
        n_runs = result.table.num_rows
        rates[workers] = n_runs / wall
    return _sweep_report(
        "dask-sweep",
        n_runs / rates[2],
        {
            "experiment": name,
            "runs": n_runs,
            "runs_per_s_1_worker": rates[1],
            "runs_per_s_2_workers": rates[2],
            "speedup_1_to_2_workers": rates[2] / rates[1],
        },
    )


def bench_plugin(k: int = 4, seconds: int = 1) -> BenchReport:
    """``plugin-lia``: the ``fattree-k4`` scenario run with the engine's LIA, then with the Python LIA of
    examples/plugins/lia.py (the same windows, docs/plugins.md); the wall time of each run and their ratio,
    the cost of calling a Python hook for every ACK."""
    from pathlib import Path

    from mpsim import plugins

    spec = f"{Path(__file__).resolve().parents[2] / 'examples' / 'plugins' / 'lia.py'}:Lia"
    cls = plugins.load_class(spec)
    python_lia = {"type": "python", "class": spec, "params": {}, "source": plugins.source_fingerprint(cls)}
    native_cfg = fattree_config(k, seconds)
    plugin_cfg = {
        **native_cfg,
        "mptcp_connections": [{**m, "cc": python_lia} for m in native_cfg["mptcp_connections"]],
    }
    native, _, native_run_s = run_timed(native_cfg)
    python, build_s, run_s = run_timed(plugin_cfg)
    same = all(getattr(native, t).equals(getattr(python, t)) for t in ("flows", "mptcp_subflows", "links"))
    packets = sum(int(row["delivered_pkts"]) for row in python.links.to_pylist())
    extra = {
        "native_run_wall_s": native_run_s,
        "plugin_run_wall_s": run_s,
        "plugin_over_native": run_s / native_run_s if native_run_s > 0 else float("inf"),
        "identical_results": same,
        "subflows": len(python.mptcp_subflows),
    }
    return _run_report("plugin-lia", python, packets, build_s, run_s, extra)


BENCHMARKS: dict[str, tuple[str, Callable[[], BenchReport]]] = {
    "dumbbell-20": (
        "20 long-lived NewReno flows (ns3 profile) through a 100 Mbit/s dumbbell, 20 s",
        lambda: bench_dumbbell(20),
    ),
    "dumbbell-100": ("100 long-lived NewReno flows through the same dumbbell, 20 s", lambda: bench_dumbbell(100)),
    "fattree-k4": (
        "k = 4 fat-tree (16 hosts, 100 Mbit/s): a permutation of LIA connections with 8 ECMP subflows, 1 s",
        lambda: bench_fattree(4, 1),
    ),
    "fattree-k8": (
        "k = 8 fat-tree (128 hosts, 100 Mbit/s): a permutation of LIA connections with 8 ECMP subflows, 5 s",
        bench_fattree,
    ),
    "fattree-k16": (
        "k = 16 fat-tree (1 024 hosts, 100 Mbit/s): a permutation of LIA connections with 8 ECMP subflows, 1 s",
        lambda: bench_fattree(16, 1, against_k4=True),
    ),
    "dumbbell-10000": (
        "10 000 long-lived NewReno flows through the same dumbbell (20 002 hosts), 20 s; building it is timed too",
        lambda: bench_dumbbell(10_000),
    ),
    "plugin-lia": (
        "the fattree-k4 scenario with the Python LIA of examples/plugins/lia.py against the engine's: "
        "both run times and their ratio",
        bench_plugin,
    ),
    "dask-sweep": (
        "the css-shared-filesize reproduction (30 runs a point) on a local Dask cluster of 1, then 2 worker processes",
        bench_dask_sweep,
    ),
    "css-sweep": (
        "the css-shared-filesize reproduction (550 runs) through the sweep runner; 1- and 2-worker throughput",
        bench_css_sweep,
    ),
}
