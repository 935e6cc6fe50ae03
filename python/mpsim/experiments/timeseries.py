"""Time-series figures of one measured transfer, one column per variant, as the papers plot them: the
congestion window and the smoothed RTT of each subflow against time (LISA Figs. 1–2, GSAM Figs. 3, 5, 6, 18,
19, 23, 28), each subflow's sequence numbers sent and acknowledged against time (CSS Fig. 1), or the time of
every retransmission timeout of each subflow of every measured transfer (GSAM Fig. 7).

The run is run 1 of the experiment at the figure's x, traced (the core records cwnd, ssthresh, SRTT and
bytes in flight at every ACK of a flow that asks for it); the transfer drawn is the first measured one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mpsim.engine import Results, run_config
from mpsim.experiments.base import Experiment, traced
from mpsim.scenario import MptcpFlow, Scenario, TcpFlow, UdpFlow


def first_measured(scenario: Scenario) -> TcpFlow | MptcpFlow:
    """The first measured transfer of ``scenario`` by name: the one a time-series figure draws."""
    return min(
        (f for f in scenario.flows if f.name.startswith("measured") and not isinstance(f, UdpFlow)),
        key=lambda f: f.name,
    )


def _start_ns(results: Results, name: str) -> int:
    """When the flow or connection ``name`` of a run sent its first SYN, as the run reports it."""
    return int(
        next(f["start_ns"] for f in results.raw["tcp_flows"] + results.raw["mptcp_connections"] if f["name"] == name)
    )


def samples(exp: Experiment, x: Any, variant: str, run: int = 1) -> dict[int, dict[str, list[float]]]:
    """Per subflow of the traced transfer: time (s since its start), cwnd (packets) and SRTT (ms)."""
    scenario = exp.scenario(x, variant, run)
    flow = first_measured(scenario)
    name, mss = flow.name, flow.tcp.mss_bytes
    results = run_config(traced(scenario, [name]).to_core())
    start_ns = _start_ns(results, name)
    out: dict[int, dict[str, list[float]]] = {}
    for r in results.tcp_traces.to_pylist():
        if r["flow"] != name:
            continue
        s = out.setdefault(r["subflow"], {"time_s": [], "cwnd_pkts": [], "srtt_ms": []})
        s["time_s"].append((r["time_ns"] - start_ns) / 1e9)
        s["cwnd_pkts"].append(r["cwnd_bytes"] / mss)
        s["srtt_ms"].append(r["srtt_ns"] / 1e6)
    return out


def figure(exp: Experiment, x: Any, path: Path) -> list[Path]:
    """cwnd (top row) and SRTT (bottom row) of each subflow against time, one column per variant."""
    import matplotlib.pyplot as plt

    from mpsim.plots import save

    n = len(exp.variants)
    fig, axes = plt.subplots(2, n, figsize=(3.2 * n, 5.0), layout="constrained", squeeze=False, sharex="col")
    for col, variant in enumerate(exp.variants):
        for subflow, s in sorted(samples(exp, x, variant).items()):
            axes[0][col].step(s["time_s"], s["cwnd_pkts"], where="post", label=f"subflow {subflow}", lw=0.9)
            axes[1][col].plot(s["time_s"], s["srtt_ms"], lw=0.9)
        axes[0][col].set_title(variant)
        axes[1][col].set_xlabel("Time since the first SYN (s)")
    axes[0][0].set_ylabel("cwnd (packets)")
    axes[1][0].set_ylabel("SRTT (ms)")
    axes[0][-1].legend(fontsize=7)
    fig.suptitle(f"{exp.name} at {exp.x_name} = {x}, run 1: {exp.paper.split(':')[0]} {exp.figure}", fontsize=10)
    return save(fig, path)


def sequences(exp: Experiment, x: Any, variant: str, run: int = 1) -> dict[int, dict[str, list[Any]]]:
    """Per subflow of the traced transfer, from the core's segment trace: every segment sent (time in s since
    the transfer's start, first sequence number in packets, whether a retransmission) and every ACK (time,
    SND.UNA in packets, SND.UNA plus the send window min(cwnd, advertised window) in packets)."""
    scenario = exp.scenario(x, variant, run)
    flow = first_measured(scenario)
    name, mss = flow.name, flow.tcp.mss_bytes
    results = run_config(traced(scenario, [name], segments=[name]).to_core())
    start_ns = _start_ns(results, name)
    out: dict[int, dict[str, list[Any]]] = {}
    for r in results.segment_traces.to_pylist():
        if r["flow"] != name:
            continue
        s = out.setdefault(
            r["subflow"],
            {"sent_s": [], "seq_pkts": [], "retransmission": [], "ack_s": [], "una_pkts": [], "window_top_pkts": []},
        )
        t = (r["time_ns"] - start_ns) / 1e9
        if r["event"] == "send" and r["payload_bytes"]:
            s["sent_s"].append(t)
            s["seq_pkts"].append((r["seq"] - 1) / mss)
            s["retransmission"].append(bool(r["retransmission"]))
        elif r["event"] == "ack" and r["snd_una"] is not None:
            una = (r["snd_una"] - 1) / mss
            s["ack_s"].append(t)
            s["una_pkts"].append(una)
            s["window_top_pkts"].append(una + min(r["cwnd_bytes"], r["rwnd_bytes"]) / mss)
    return out


def sequence_figure(exp: Experiment, x: Any, path: Path) -> list[Path]:
    """One panel per subflow of each variant: a short mark per segment sent (retransmissions in red), bounded
    below by SND.UNA and above by SND.UNA plus the send window, as the CSS paper's Fig. 1 draws them."""
    import matplotlib.pyplot as plt

    from mpsim.plots import save

    panels = [(v, sf, s) for v in exp.variants for sf, s in sorted(sequences(exp, x, v).items())]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 3.6), layout="constrained", squeeze=False)
    for ax, (variant, subflow, s) in zip(axes[0], panels, strict=True):
        colours = ["tab:red" if r else "tab:blue" for r in s["retransmission"]]
        ax.scatter(s["sent_s"], s["seq_pkts"], c=colours, marker="_", s=30, lw=1.0)
        ax.step(s["ack_s"], s["una_pkts"], where="post", color="black", lw=0.8, label="SND.UNA")
        ax.step(s["ack_s"], s["window_top_pkts"], where="post", color="grey", lw=0.8, ls="--", label="+ window")
        retx = sum(s["retransmission"])
        ax.set_title(f"{variant}, subflow {subflow + 1}: {retx} retransmitted", fontsize=9)
        ax.set_xlabel("Time since the first SYN (s)")
    axes[0][0].set_ylabel("Sequence number (packets)")
    axes[0][-1].legend(fontsize=7, loc="upper left")
    fig.suptitle(f"{exp.name} at {exp.x_name} = {x}, run 1: {exp.paper.split(':')[0]} {exp.figure}", fontsize=10)
    return save(fig, path)


def rto_times(exp: Experiment, x: Any, variant: str, run: int = 1) -> tuple[dict[tuple[str, int], list[float]], float]:
    """The time of each retransmission timeout (s since the transfer's start) per (measured transfer, subflow),
    every subflow listed, from the core's ``rto_times`` table (the experiment traces the subflows it
    measures); and the end of the run, s."""
    scenario = exp.scenario(x, variant, run)
    measured = [f for f in scenario.flows if f.name.startswith("measured") and not isinstance(f, UdpFlow)]
    subflows = {f.name: getattr(f, "subflows", None) or 1 for f in measured}
    out: dict[tuple[str, int], list[float]] = {(name, k): [] for name, n in subflows.items() for k in range(n)}
    results = run_config(scenario.to_core())
    starts = {name: _start_ns(results, name) for name in subflows}
    for r in results.rto_times.to_pylist():
        if r["flow"] in starts:
            out.setdefault((r["flow"], r["subflow"]), []).append((r["time_ns"] - starts[r["flow"]]) / 1e9)
    return out, results.end_time_s


def rto_figure(exp: Experiment, x: Any, path: Path) -> list[Path]:
    """One panel per variant: a mark at the time of each retransmission timeout, one row per subflow of each
    measured transfer, as the GSAM paper's Fig. 7 draws them."""
    import matplotlib.pyplot as plt

    from mpsim.plots import save

    n = len(exp.variants)
    drawn = {v: rto_times(exp, x, v) for v in exp.variants}
    rows = sorted({key for per, _ in drawn.values() for key in per})
    transfers = sorted({flow for flow, _ in rows})
    end_s = max(end for _, end in drawn.values())
    fig, axes = plt.subplots(1, n, figsize=(3.2 * n, 3.6), layout="constrained", squeeze=False, sharey=True)
    for ax, variant in zip(axes[0], exp.variants, strict=True):
        per, _ = drawn[variant]
        for (flow, subflow), times in per.items():
            y = rows.index((flow, subflow))
            ax.scatter(times, [y] * len(times), marker="x", s=25, color=f"C{transfers.index(flow)}")
        ax.set_title(f"{variant}: RTOs {sum(len(t) for t in per.values())}", fontsize=9)
        ax.set_xlim(0, end_s)
        ax.set_xlabel("Time since the transfer's first SYN (s)")
    axes[0][0].set_yticks(range(len(rows)), [f"{flow} sf {sf}" for flow, sf in rows], fontsize=7)
    axes[0][0].set_ylim(-0.5, len(rows) - 0.5)
    axes[0][0].set_ylabel("Subflow")
    fig.suptitle(f"{exp.name} at {exp.x_name} = {x}, run 1: {exp.paper.split(':')[0]} {exp.figure}", fontsize=10)
    return save(fig, path)


FIGURES = {"windows": figure, "sequence": sequence_figure, "rto": rto_figure}
"""The time-series figure an experiment's ``trace_kind`` names."""
