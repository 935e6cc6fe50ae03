"""Extractors that keep a run's time series in a sweep's store, so that ``mpsim plot`` draws each series'
mean over seeds with a band: ``extract = "mpsim.series:throughput"`` in a sweep file.

A series is binned (the scenario's ``[throughput] interval``), so that every seed has a value in every bin and
a mean over seeds is a mean of like with like.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mpsim.engine import Results

__all__ = ["subflow_names", "throughput"]


def subflow_names(results: Results) -> dict[tuple[str, int], str]:
    """Each MPTCP subflow (connection, index) named by the addresses it runs between: ``"S0.1→D0"``."""
    return {(r["connection"], r["subflow"]): f"{r['src']}→{r['dst']}" for r in results.mptcp_subflows.to_pylist()}


def throughput(results: Results, config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per bin of the windowed-throughput table of every flow, MPTCP connection and subflow:
    ``flow``, ``part`` (``"tcp"``, ``"udp"``, ``"connection"``, or a subflow by the addresses it runs between,
    ``"subflow S0.1→D0"``), ``time_s`` (the middle of the bin), ``goodput_mbps`` (bytes delivered in order
    over the bin) and ``sending_rate_mbps`` (bytes sent, retransmissions included). Needs ``[throughput]``
    in the scenario (without it, a run has no rows)."""
    names = subflow_names(results)
    parts = {"mptcp": "connection", "tcp": "tcp", "udp": "udp"}
    rows = []
    for r in results.throughput.to_pylist():
        if r["kind"] == "mptcp_subflow":
            part = f"subflow {names.get((r['flow'], r['subflow']), r['subflow'])}"
        else:
            part = parts.get(r["kind"], r["kind"])
        rows.append(
            {
                "flow": r["flow"],
                "part": part,
                "time_s": (r["start_s"] + r["end_s"]) / 2,
                "goodput_mbps": r["delivered_bps"] / 1e6,
                "sending_rate_mbps": r["sent_bps"] / 1e6,
            }
        )
    return rows
