"""The thin layer over the compiled core: a whole configuration goes in, whole result tables come out.

The configuration is the core's own JSON form (see ``crates/mpsim-core/src/config.rs``): quantities in
integer base units named in the field (``rate_bps``, ``delay_ns``, ``limit_pkts``). The typed scenario
model (:mod:`mpsim.scenario`) builds it from files with unit strings; this module accepts it directly,
which is what a test or a script that wants full control uses.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from mpsim._core import ConfigError, estimate_json, run_json, validate_json
from mpsim.errors import check_shape

__all__ = ["Results", "estimate_config", "run_config", "validate_config"]


def _check_finite(value: Any, path: str) -> None:
    """JSON has no NaN or infinity: name the field before the encoder fails without saying where."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{path}: {value!r} is not a finite number")
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_finite(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, Sequence) and not isinstance(value, str | bytes):
        for i, v in enumerate(value):
            _check_finite(v, f"{path}[{i}]")


def _encode(config: Mapping[str, Any]) -> str:
    if not isinstance(config, Mapping):
        raise TypeError(f"a core configuration is a dict, got {type(config).__name__} {config!r:.60}")
    check_shape(config)
    _check_finite(config, "")
    return json.dumps(config, allow_nan=False)


def validate_config(config: Mapping[str, Any]) -> None:
    """Raises :class:`mpsim.ConfigError` (a ``ValueError``) naming the field at fault, or returns."""
    validate_json(_encode(config))


def run_config(config: Mapping[str, Any], *, time_limit: float | None = None) -> Results:
    """Runs one scenario given in the core's configuration form; ``time_limit`` in wall seconds
    (:class:`mpsim.TimeLimitError` when passed)."""
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, int | float)):
        raise TypeError(f"time_limit: expected a number of seconds, got {time_limit!r}")
    return Results(json.loads(run_json(_encode(config), None if time_limit is None else float(time_limit))))


def estimate_config(config: Mapping[str, Any]) -> tuple[float, float]:
    """A run's estimated ``(events, trace_rows)`` (docs/scenarios.md, Limits), without running it;
    raises :class:`mpsim.ConfigError` as :func:`validate_config` does."""
    return estimate_json(_encode(config))


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows)


class Results:
    """What one run reports, as Arrow tables (``.to_pandas()`` / ``polars.from_arrow`` convert them).

    ``raw`` keeps the core's nested form for anything not tabulated here.
    """

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    @property
    def seed(self) -> int:
        return int(self.raw["seed"])

    @property
    def end_time_s(self) -> float:
        return float(self.raw["end_time_ns"]) / 1e9

    @property
    def events_processed(self) -> int:
        return int(self.raw["events_processed"])

    @property
    def links(self) -> pa.Table:
        """One row per link: counters of packets and bytes enqueued, dropped by cause, delivered."""
        return _table(self.raw["links"])

    @property
    def udp_flows(self) -> pa.Table:
        return _table(self.raw["udp_flows"])

    @property
    def tcp_flows(self) -> pa.Table:
        """One row per TCP flow (and per repetition of a flow sequence)."""
        return _table(self.raw["tcp_flows"])

    @property
    def mptcp_connections(self) -> pa.Table:
        """One row per MPTCP connection (subflows in :attr:`mptcp_subflows`)."""
        rows = [{k: v for k, v in c.items() if k != "subflows"} for c in self.raw["mptcp_connections"]]
        return _table(rows)

    @property
    def mptcp_subflows(self) -> pa.Table:
        """One row per subflow, with its connection's name."""
        rows = []
        for c in self.raw["mptcp_connections"]:
            for s in c["subflows"]:
                flow = {f"{k}": v for k, v in s["flow"].items() if k != "name"}
                rows.append(
                    {
                        "connection": c["name"],
                        "subflow": s["index"],
                        "src": s["src"],
                        "dst": s["dst"],
                        "established_ns": s["established_ns"],
                        "bytes_received": s["bytes_received"],
                        **flow,
                    }
                )
        return _table(rows)

    @property
    def tcp_traces(self) -> pa.Table:
        """Long form: one row per traced ACK of every traced flow or subflow (``ssthresh_bytes`` is
        2^64 - 1 while unlimited)."""
        cols: dict[str, list[Any]] = {
            k: [] for k in ("flow", "subflow", "time_ns", "cwnd_bytes", "ssthresh_bytes", "srtt_ns", "in_flight_bytes")
        }
        for t in self.raw["tcp_traces"]:
            n = len(t["time_ns"])
            cols["flow"].extend([t["flow"]] * n)
            cols["subflow"].extend([t["subflow"]] * n)
            for k in ("time_ns", "cwnd_bytes", "ssthresh_bytes", "srtt_ns", "in_flight_bytes"):
                cols[k].extend(t[k])
        # ssthresh is u64::MAX while unlimited (before the first loss): unsigned columns hold it.
        types = {"flow": pa.string(), "subflow": pa.uint32()}
        return pa.table({k: pa.array(v, types.get(k, pa.uint64())) for k, v in cols.items()})

    @property
    def queue_traces(self) -> pa.Table:
        """Long form: one row per queue sample of every traced link."""
        cols: dict[str, list[Any]] = {k: [] for k in ("link", "time_ns", "queue_pkts", "queue_bytes")}
        for t in self.raw["queue_traces"]:
            cols["link"].extend([t["link"]] * len(t["time_ns"]))
            for k in ("time_ns", "queue_pkts", "queue_bytes"):
                cols[k].extend(t[k])
        return pa.table(cols)

    @property
    def flows(self) -> pa.Table:
        """One row per transfer: every TCP flow (and repetition of a sequence) and MPTCP connection.

        Columns: ``name``, ``kind`` (``tcp`` / ``mptcp``), ``subflows``, ``start_s``, ``fct_s``
        (first SYN to the ACK of the last byte; null when unfinished), ``bytes_delivered``,
        ``retransmissions`` (fast, loss-probe and timeout ones), ``rto_count``, ``loss_probes`` (RFC 8985
        tail loss probes), ``cwnd_bytes_at_end`` (summed over subflows).
        """
        rows: list[dict[str, Any]] = []
        for f in self.raw["tcp_flows"]:
            rows.append(_flow_row(f, "tcp", 1, f["cwnd_bytes_at_end"]))
        for c in self.raw["mptcp_connections"]:
            rows.append(_flow_row(c, "mptcp", len(c["subflows"]), c["sum_cwnd_bytes_at_end"]))
        schema = pa.schema(
            [
                ("name", pa.string()),
                ("kind", pa.string()),
                ("subflows", pa.int64()),
                ("start_s", pa.float64()),
                ("fct_s", pa.float64()),
                ("bytes_delivered", pa.int64()),
                ("retransmissions", pa.int64()),
                ("rto_count", pa.int64()),
                ("loss_probes", pa.int64()),
                ("cwnd_bytes_at_end", pa.int64()),
            ]
        )
        return pa.Table.from_pylist(rows, schema=schema)

    def tables(self) -> dict[str, pa.Table]:
        """Every table by name (``flows``, ``tcp_flows``, ``mptcp_connections``, ``mptcp_subflows``,
        ``udp_flows``, ``links``, ``tcp_traces``, ``queue_traces``)."""
        names = ("flows", "tcp_flows", "mptcp_connections", "mptcp_subflows", "udp_flows", "links")
        return {n: getattr(self, n) for n in (*names, "tcp_traces", "queue_traces")}

    def to_pandas(self, table: str = "flows") -> Any:
        """One table as a pandas DataFrame."""
        return getattr(self, table).to_pandas()

    def to_polars(self, table: str = "flows") -> Any:
        """One table as a polars DataFrame."""
        import polars as pl

        return pl.from_arrow(getattr(self, table))

    def link(self, name: str) -> dict[str, Any]:
        """The counters of one link by name."""
        for row in self.raw["links"]:
            if row["name"] == name:
                return dict(row)
        raise KeyError(name)


def _flow_row(f: dict[str, Any], kind: str, subflows: int, cwnd: int) -> dict[str, Any]:
    fct = f["fct_ns"]
    return {
        "name": f["name"],
        "kind": kind,
        "subflows": subflows,
        "start_s": f["start_ns"] / 1e9,
        "fct_s": fct / 1e9 if fct is not None else None,
        "bytes_delivered": f["bytes_delivered"],
        "retransmissions": f["retransmits_fast"] + f["retransmits_rto"],
        "rto_count": f["rto_count"],
        "loss_probes": f["loss_probes"],
        "cwnd_bytes_at_end": cwnd,
    }
