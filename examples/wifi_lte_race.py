"""MPTCP over a WiFi-like and an LTE-like trace against single-path TCP over each path alone: the sweep of
wifi_lte_race.toml with, per run, the download's completion time, the bytes each path delivered and each
downlink's queue; then one download of every variant, started with the traces, for its goodput over time.

    python wifi_lte_race.py [--seeds N] [--out DIR] [--figures DIR]

keeps the runs in DIR/store (a sweep's store: run it again and nothing runs twice), prints the table of means and
writes it to DIR/summary.csv, and draws wifi-lte-fct.png and wifi-lte-throughput.png (in DIR, or --figures).
"""

import argparse
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

import mpsim
from mpsim import plots
from mpsim.sweep import SweepSpec, load_sweep, run_sweep
from mpsim.traces import BYTES_PER_OPPORTUNITY, DeliveryTrace

HERE = Path(__file__).resolve().parent
PATHS = {"S0.1": ("WiFi", "A1-B1", "tab:blue"), "S0.2": ("LTE", "A2-B2", "tab:orange")}
"""Each path by the sender's address, in the order of `per_path`: its name, its downlink (the link that follows
the trace) and its colour."""


def per_path(results: mpsim.Results, config: dict[str, Any]) -> dict[str, Any]:
    """The download's row: its start, completion time and retransmissions, the MB each path delivered in order,
    and each downlink's mean queue while the download ran (a link's mean is over the whole run, which is idle until
    the download's random start: scaled to the download's time)."""
    flow = results.flows.to_pylist()[0]
    if flow["kind"] == "mptcp":
        delivered = {s["src"]: s["bytes_delivered"] for s in results.mptcp_subflows.to_pylist()}
    else:
        delivered = {config["tcp_flows"][0]["src"]: flow["bytes_delivered"]}
    active = results.end_time_s / (results.end_time_s - flow["start_s"])
    row = {key: flow[key] for key in ("start_s", "fct_s", "retransmissions")}
    row["flow"] = flow["name"]
    for address, (path, link, _) in PATHS.items():
        row[f"{path}_MB"] = delivered.get(address, 0) / 1e6
        row[f"{path}_queue_pkts"] = results.link(link)["mean_queue_pkts"] * active
    return row


def offered_mbps(trace: DeliveryTrace, width_s: float, end_s: float) -> pd.Series:
    """The rate a trace offers in each bin of ``width_s`` seconds before ``end_s``: its opportunities of 1 504
    bytes, the trace repeating every period."""
    times = pd.Series(trace.opportunities_ms) / 1000
    period_s = trace.period_ms / 1000
    repeated = pd.concat([times + k * period_s for k in range(int(end_s / period_s) + 1)])
    bins = (repeated[repeated < end_s] // width_s).value_counts().sort_index()
    return pd.Series(bins.values * BYTES_PER_OPPORTUNITY * 8 / width_s / 1e6, index=bins.index * width_s)


def goodput_over_time(spec: SweepSpec, figure: Path) -> None:
    """One download of every variant, started with the traces: each path's goodput per bin (the bytes its
    subflow delivered in order), their sum, and the rate each trace offers."""
    fig, axes = plt.subplots(3, 3, figsize=(10, 7.5), sharex=True, sharey=True, layout="constrained")
    points = {p.variant: p for p in spec.points()}
    for ax, name in zip(axes.flat, spec.variants, strict=True):
        scenario = spec.scenario(points[name])
        scenario.flows[0].start = "0s"  # with the traces, whatever the seed
        res = mpsim.run(scenario, seed=1)
        bins = res.throughput.to_pandas()
        width_s = bins.end_s.iloc[0] - bins.start_s.iloc[0]
        if scenario.flows[0].type == "mptcp":
            sources = [s["src"] for s in res.mptcp_subflows.to_pylist()]
            parts = [(sources[int(i)], b) for i, b in bins[bins.kind == "mptcp_subflow"].groupby("subflow")]
        else:
            parts = [(scenario.flows[0].src, bins[bins.kind == "tcp"])]
        for address, part in parts:
            colour = PATHS[address][2]
            trace = scenario.topology.per_path[list(PATHS).index(address)].trace
            offered = offered_mbps(trace, width_s, res.end_time_s)
            ax.step(offered.index, offered, where="post", color=colour, alpha=0.35, linewidth=0.8)
            ax.step(part.start_s, part.delivered_bps / 1e6, where="post", color=colour, linewidth=1.3)
        if len(parts) > 1:
            total = bins[bins.kind == "mptcp_subflow"].groupby("start_s").delivered_bps.sum() / 1e6
            ax.step(total.index, total, where="post", color="black", linewidth=1.3)
        ax.set_title(f"{name}: {res.flows.to_pylist()[0]['fct_s']:.1f} s", fontsize=10)
        ax.grid(True, alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    for ax in axes[:, 0]:
        ax.set_ylabel("goodput (Mbit/s)")
    lines = {"WiFi": "tab:blue", "LTE": "tab:orange", "WiFi + LTE": "black"}
    handles = [plt.Line2D([], [], color=c, linewidth=1.3, label=k) for k, c in lines.items()]
    handles.append(plt.Line2D([], [], color="grey", alpha=0.5, linewidth=0.8, label="rate the trace offers"))
    fig.legend(handles=handles, loc="outside lower center", ncols=4, frameon=False)
    fig.suptitle(f"A {scenario.flows[0].size} download started with the traces: goodput per {width_s:g} s bin")
    fig.savefig(figure, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="run seeds 1 to N (default 5)")
    parser.add_argument("--out", type=Path, default=Path("race-out"), help="the store and table (default race-out)")
    parser.add_argument("--figures", type=Path, help="where the figures go (default: --out)")
    args = parser.parse_args()
    spec = load_sweep(HERE / "wifi_lte_race.toml")
    spec.seeds = list(range(1, args.seeds + 1))
    rows = run_sweep(spec, args.out / "store", extract=per_path, progress=False).to_pandas()
    columns = ["fct_s", "retransmissions", "WiFi_MB", "LTE_MB", "WiFi_queue_pkts", "LTE_queue_pkts"]
    summary = rows.groupby("variant", sort=False)[columns].agg(["mean", "std"])
    summary.columns = [f"{column}_{stat}" for column, stat in summary.columns]
    summary.to_csv(args.out / "summary.csv")
    fct = summary.fct_s_mean.map("{:.2f}".format) + " ± " + summary.fct_s_std.map("{:.2f}".format)
    shown = {"completion time, s": fct, "retransmissions": summary.retransmissions_mean.map("{:.0f}".format)}
    for path in ("WiFi", "LTE"):
        shown[f"{path}, MB"] = summary[f"{path}_MB_mean"].map("{:.1f}".format)
    for path in ("WiFi", "LTE"):
        shown[f"{path} queue, pkts"] = summary[f"{path}_queue_pkts_mean"].map("{:.0f}".format)
    print(f"Means over {args.seeds} seeds (completion time: mean ± std)")
    print(pd.DataFrame(shown).to_string())
    figures = args.figures or args.out
    figures.mkdir(parents=True, exist_ok=True)
    size = spec.base["flows"][0]["size"]
    fig = plots.plot_sweep(rows.to_dict("records"), "variant", "fct_s", title=f"A {size} download over WiFi + LTE")
    fig.set_size_inches(7.5, 4.2)
    fig.savefig(figures / "wifi-lte-fct.png", dpi=100)
    goodput_over_time(spec, figures / "wifi-lte-throughput.png")


if __name__ == "__main__":
    main()
