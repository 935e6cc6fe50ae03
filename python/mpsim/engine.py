"""The thin layer over the compiled core: a whole configuration goes in, whole result tables come out.

Each crossing happens once: a run's configuration goes in as one JSON document, which the core parses,
validates and builds in the same call; its results stay in the core until asked for, then come back as one
JSON document (:attr:`Results.raw`) or as Arrow buffers, one table at a time (:meth:`Results.tables`).

The configuration is the core's own JSON form (see ``crates/mpsim-core/src/config.rs``): quantities in
integer base units named in the field (``rate_bps``, ``delay_ns``, ``limit_pkts``). The typed scenario
model (:mod:`mpsim.scenario`) builds it from files with unit strings; this module accepts it directly,
which is what a test or a script that wants full control uses.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpsim._core import TABLES, ConfigError, Run, check_json, stored_run
from mpsim._core import run as run_core
from mpsim.errors import check_shape, did_you_mean

if TYPE_CHECKING:
    import pyarrow as pa

    GOODPUT_FIELD: pa.Field  # built when first read, by __getattr__ below

__all__ = [
    "GOODPUT_DEFINITION",
    "GOODPUT_FIELD",
    "Progress",
    "Results",
    "encode_config",
    "estimate_config",
    "goodput_field",
    "goodput_mbps",
    "run_config",
    "run_encoded",
    "validate_config",
]


def _check_finite(value: Any, path: str) -> None:
    """JSON has no NaN or infinity: name the field before the encoder fails without saying where."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{path}: {value!r} is not a finite number")
    if isinstance(value, Mapping):
        for k, v in value.items():
            # A key with a line break would split the one-line message.
            key = str(k) if str(k).isprintable() else repr(k)
            _check_finite(v, f"{path}.{key}" if path else key)
    elif isinstance(value, Sequence) and not isinstance(value, str | bytes):
        for i, v in enumerate(value):
            _check_finite(v, f"{path}[{i}]")


def encode_config(config: Mapping[str, Any]) -> str:
    """The core's configuration as the JSON text the core reads; raises :class:`mpsim.ConfigError` for a key
    that is not a string, a nesting too deep or a number JSON cannot hold."""
    if not isinstance(config, Mapping):
        raise TypeError(f"a core configuration is a dict, got {type(config).__name__} {config!r:.60}")
    check_shape(config)
    _check_finite(config, "")
    return json.dumps(config, allow_nan=False)


def validate_config(config: Mapping[str, Any]) -> None:
    """Raises :class:`mpsim.ConfigError` (a ``ValueError``) naming the field at fault, or returns. Builds no
    simulator: the core checks every field, then the run's estimated cost against its limits."""
    check_json(encode_config(config))


Progress = Callable[[int, int], object]
"""Called as ``progress(now_ns, stop_time_ns)`` every few milliseconds of a run and once at its end, with
non-decreasing simulated times: the engine reports at every pause of its loop (65 536 events), never per
event."""


def run_config(
    config: Mapping[str, Any],
    *,
    time_limit: float | None = None,
    pcap: str | Path | None = None,
    progress: Progress | None = None,
) -> Results:
    """Runs one scenario given in the core's configuration form; ``time_limit`` in wall seconds
    (:class:`mpsim.TimeLimitError` when passed); ``pcap``: a directory to write packet captures into
    (``crates/mpsim-core/src/pcap.rs``: one file per traced host and link); ``progress``: see
    :data:`Progress` (an exception it raises stops the run and is raised again)."""
    return run_encoded(encode_config(config), time_limit=time_limit, pcap=pcap, progress=progress)


def run_encoded(
    text: str,
    *,
    time_limit: float | None = None,
    pcap: str | Path | None = None,
    progress: Progress | None = None,
) -> Results:
    """:func:`run_config` of a configuration already encoded (:func:`encode_config`): one call into the core,
    which parses, validates, builds and runs it."""
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, int | float)):
        raise TypeError(f"time_limit: expected a number of seconds, got {time_limit!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress: expected a function of (now_ns, stop_time_ns), got {progress!r:.60}")
    limit = None if time_limit is None else float(time_limit)
    run = run_core(text, limit, progress, pcap is not None)
    if pcap is not None:
        directory = Path(pcap)
        directory.mkdir(parents=True, exist_ok=True)
        for name, data in run.captures():
            (directory / name).write_bytes(data)
    return Results.of_run(run)


def estimate_config(config: Mapping[str, Any]) -> tuple[float, float]:
    """A run's estimated ``(events, trace_rows)`` (docs/scenarios.md, Limits), without running it;
    raises :class:`mpsim.ConfigError` as :func:`validate_config` does."""
    return check_json(encode_config(config))


def goodput_field() -> pa.Field:
    """The column :class:`Results` adds to ``flows`` and ``mptcp_subflows``: goodput in Mbit/s, the bytes
    delivered in order to the receiving application (a subflow: in its own sequence space) over the time the
    flow was active, from its start to its completion or, for a flow that did not complete, to the end of the
    run (:func:`goodput_mbps`). Also the module attribute ``GOODPUT_FIELD``, built when first read: importing
    this module does not import Arrow."""
    import pyarrow as pa

    return pa.field("goodput_mbps", pa.float64(), nullable=True)


def __getattr__(name: str) -> Any:
    """``GOODPUT_FIELD`` (:func:`goodput_field`), built when first read (PEP 562)."""
    if name == "GOODPUT_FIELD":
        return goodput_field()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


GOODPUT_DEFINITION = "goodput: bytes delivered in order / time active (start to completion, or to the end of the run)"
""":func:`goodput_field` in one line, for table headers."""


def goodput_mbps(bytes_delivered: int, active_ns: int) -> float | None:
    """Goodput in Mbit/s of ``bytes_delivered`` over ``active_ns``; None for a flow not yet started at the end
    of the run (no time active)."""
    if active_ns <= 0:
        return None
    return bytes_delivered * 8 / active_ns * 1e3


def _arrow(columns: list[tuple[str, str, bool, int, int, bytes | None, bytes | None, bytes]]) -> pa.Table:
    """One table of the core's, from its columns' Arrow buffers, with the core's schema. Arrow is imported
    here, at the first table asked for: checking or running a scenario does not need it."""
    import pyarrow as pa

    # The Arrow type of each column type the core names (crates/mpsim-core/src/tables.rs).
    arrow_types = {
        "string": pa.string(),
        "int64": pa.int64(),
        "uint32": pa.uint32(),
        "uint64": pa.uint64(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
    }
    fields, arrays = [], []
    for name, type_name, nullable, length, null_count, validity, offsets, data in columns:
        field = pa.field(name, arrow_types[type_name], nullable=nullable)
        buffers = [None if validity is None else pa.py_buffer(validity)]
        if offsets is not None:
            buffers.append(pa.py_buffer(offsets))
        buffers.append(pa.py_buffer(data))
        fields.append(field)
        arrays.append(pa.Array.from_buffers(field.type, length, buffers, null_count=null_count))
    return pa.table(arrays, schema=pa.schema(fields))


class Results:
    """What one run reports, as Arrow tables (``.to_pandas()`` / ``polars.from_arrow`` convert them).

    Every table, its columns and their types, and the derived measures (``retransmissions``) are the
    core's (``crates/mpsim-core/src/tables.rs``); ``raw`` keeps the core's nested form. Each part is
    fetched from the core when first read: a caller of one table converts that table alone.
    """

    def __init__(self, raw: dict[str, Any], text: str | None = None) -> None:
        """Stored results: ``raw`` in the core's nested form (``text``, if given, its JSON)."""
        self._raw: dict[str, Any] | None = raw
        self._text = text
        self._run: Run | None = None
        self._tables: dict[str, pa.Table] = {}

    @classmethod
    def of_run(cls, run: Run) -> Results:
        """The results a run keeps in the core."""
        results = cls({})
        results._raw = None
        results._run = run
        return results

    @property
    def raw(self) -> dict[str, Any]:
        """The core's nested form of the results, parsed once when first read."""
        if self._raw is None:
            assert self._run is not None
            self._raw = json.loads(self._run.results_json())
        return self._raw

    def _table(self, name: str) -> pa.Table:
        if name not in self._tables:
            if self._run is None:
                self._run = stored_run(self._text if self._text is not None else json.dumps(self.raw))
            table = _arrow(self._run.table(name))
            if name in ("flows", "mptcp_subflows"):
                import pyarrow as pa

                goodputs = self._flow_goodputs() if name == "flows" else self._subflow_goodputs(table)
                table = table.append_column(goodput_field(), pa.array(goodputs, pa.float64()))
            self._tables[name] = table
        return self._tables[name]

    def _active_ns(self, start_ns: int, completed_ns: int | None) -> int:
        """How long a transfer was active: from its start to its completion, or to the end of the run when it
        did not complete (the end of the run is read only then)."""
        end_ns = completed_ns if completed_ns is not None else int(self.raw["end_time_ns"])
        return end_ns - start_ns

    def _flow_goodputs(self) -> list[float | None]:
        """Per row of ``flows`` (its TCP flows, then its MPTCP connections), :func:`goodput_field`."""
        transfers = [*self._table("tcp_flows").to_pylist(), *self._table("mptcp_connections").to_pylist()]
        return [
            goodput_mbps(t["bytes_delivered"], self._active_ns(t["start_ns"], t["completed_ns"])) for t in transfers
        ]

    def _subflow_goodputs(self, subflows: pa.Table) -> list[float | None]:
        """Per subflow, the bytes it delivered in order (its own sequence space) over its connection's active
        time, so that a connection's subflows add up to about its goodput."""
        active = {
            c["name"]: self._active_ns(c["start_ns"], c["completed_ns"])
            for c in self._table("mptcp_connections").to_pylist()
        }
        columns = subflows.select(["connection", "bytes_delivered"]).to_pydict()
        return [
            goodput_mbps(delivered, active[name])
            for name, delivered in zip(columns["connection"], columns["bytes_delivered"], strict=True)
        ]

    @property
    def seed(self) -> int:
        return int(self.raw["seed"])

    @property
    def end_time_s(self) -> float:
        return float(self.raw["end_time_ns"]) / 1e9

    @property
    def events_processed(self) -> int:
        return int(self.raw["events_processed"])

    def tables(self) -> dict[str, pa.Table]:
        """Every table by name (``flows``, ``tcp_flows``, ``mptcp_connections``, ``mptcp_subflows``,
        ``udp_flows``, ``links``, ``tcp_traces``, ``rto_times``, ``queue_traces``, ``segment_traces``,
        ``throughput``)."""
        return {name: self._table(name) for name in TABLES}

    @property
    def links(self) -> pa.Table:
        """One row per link: counters of packets and bytes enqueued, dropped by cause, delivered."""
        return self._table("links")

    @property
    def udp_flows(self) -> pa.Table:
        return self._table("udp_flows")

    @property
    def tcp_flows(self) -> pa.Table:
        """One row per TCP flow (and per repetition of a flow sequence)."""
        return self._table("tcp_flows")

    @property
    def mptcp_connections(self) -> pa.Table:
        """One row per MPTCP connection (subflows in :attr:`mptcp_subflows`; ``subflow_events`` as JSON)."""
        return self._table("mptcp_connections")

    @property
    def mptcp_subflows(self) -> pa.Table:
        """One row per subflow, with its connection's name and when a subflow event added or removed it, and
        ``goodput_mbps``: the bytes the subflow delivered in order over its connection's time active
        (:func:`goodput_field`)."""
        return self._table("mptcp_subflows")

    @property
    def tcp_traces(self) -> pa.Table:
        """Long form: one row per traced ACK of every traced flow or subflow (``ssthresh_bytes`` is null
        while unlimited)."""
        return self._table("tcp_traces")

    @property
    def rto_times(self) -> pa.Table:
        """One row per retransmission timeout of every traced flow or subflow: ``flow``, ``subflow``, ``rto``
        (the subflow's timeouts counted from 1), ``time_ns`` and ``time_s`` (when the timer expired)."""
        return self._table("rto_times")

    @property
    def queue_traces(self) -> pa.Table:
        """Long form: one row per queue sample of every traced link."""
        return self._table("queue_traces")

    @property
    def segment_traces(self) -> pa.Table:
        """Long form: one row per segment sent (``event = "send"``) and per ACK received (``"ack"``) by
        every subflow of the flows in ``[trace] segments`` (docs/scenarios.md, Traces)."""
        return self._table("segment_traces")

    @property
    def throughput(self) -> pa.Table:
        """Windowed throughput in long form (empty unless the scenario asks for it): one row per bin
        of each flow and subflow. Columns: ``flow``, ``kind`` (``tcp``, ``mptcp`` — a connection at
        its data level —, ``mptcp_subflow``, ``udp``), ``subflow`` (null but for a subflow), ``bin``,
        ``start_ns`` / ``end_ns`` and ``start_s`` / ``end_s`` (the last bin may be shorter),
        ``bytes_sent`` (payload, retransmissions included; UDP: on the wire), ``bytes_delivered`` (in
        order at the receiver: goodput; UDP: received), ``sent_bps`` and ``delivered_bps``."""
        return self._table("throughput")

    @property
    def flows(self) -> pa.Table:
        """One row per transfer: every TCP flow (and repetition of a sequence) and MPTCP connection.

        Columns: ``name``, ``kind`` (``tcp`` / ``mptcp``), ``subflows``, ``start_s``, ``fct_s``
        (first SYN to the ACK of the last byte; null when unfinished), ``bytes_delivered``,
        ``retransmissions`` (fast, loss-probe and timeout ones), ``rto_count``, ``loss_probes`` (RFC 8985
        tail loss probes), ``cwnd_bytes_at_end`` (summed over subflows), ``cwnd_bytes_at_completion``
        (MPTCP, summed; null for TCP), ``retransmissions_before_slow_start_exit``,
        ``cwnd_bytes_at_slow_start_exit`` (MPTCP: until the last subflow left slow start, summed) and
        ``goodput_mbps`` (:func:`goodput_field`: bytes delivered in order over the time active, to the end of
        the run for an unfinished flow; null for a flow that had not started).
        """
        return self._table("flows")

    def _named_table(self, name: str) -> pa.Table:
        """One table by name; raises :class:`mpsim.ConfigError` listing the tables for any other name."""
        if name not in TABLES:
            raise ConfigError(
                f"table: unknown table {name!r}{did_you_mean(str(name), TABLES)} (allowed: {', '.join(TABLES)})"
            )
        return self._table(name)

    def to_pandas(self, table: str = "flows") -> Any:
        """One table as a pandas DataFrame."""
        return self._named_table(table).to_pandas()

    def to_polars(self, table: str = "flows") -> Any:
        """One table as a polars DataFrame."""
        import polars as pl

        return pl.from_arrow(self._named_table(table))

    def link(self, name: str) -> dict[str, Any]:
        """The counters of one link by name."""
        for row in self.raw["links"]:
            if row["name"] == name:
                return dict(row)
        raise KeyError(name)
