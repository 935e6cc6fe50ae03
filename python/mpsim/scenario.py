"""The scenario model: a typed, validated description of one run, loaded from TOML or built in Python.

A scenario is a network (a preset from :mod:`mpsim.topologies` and/or hosts, routers, links,
addresses, routes and link changes written out), flows (TCP, MPTCP, UDP), what to trace, a run
duration and a seed. :meth:`Scenario.to_core` turns it into the core's configuration form
(``crates/mpsim-core/src/config.rs``); :func:`run` runs it. Every problem in a file is reported at
once, one line each, naming the path of the field (:class:`mpsim.errors.ScenarioError`).
"""

from __future__ import annotations

import hashlib
import json
import random
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from mpsim import plugins, tcp_options
from mpsim._core import ConfigError, algorithms_json
from mpsim._types import (
    U32_MAX,
    Duration,
    Flag,
    Model,
    PositiveDuration,
    Rate,
    Size,
    time_with_unit,
    unknown_name,
)
from mpsim.engine import Progress, Results, encode_config, estimate_config, run_encoded
from mpsim.errors import MAX_NESTING, Problem, ScenarioError, check_shape, did_you_mean, problems_from_validation
from mpsim.tcp_options import profile_mss
from mpsim.topologies import Address, Link, LinkChange, Network, Preset, Route
from mpsim.traces import files_relative_to
from mpsim.units import SizeSpec, format_time

__all__ = [
    "CC_ALGORITHMS",
    "SLOW_STARTS",
    "CongestionControl",
    "Limits",
    "MptcpFlow",
    "Scenario",
    "Sequence",
    "SlowStart",
    "TcpFlow",
    "TcpOptions",
    "Throughput",
    "Trace",
    "UdpFlow",
    "UniformStart",
    "load",
    "run",
]

# ---------------------------------------------------------------------------------------------- algorithms

# The core's registry (crates/mpsim-core/src/cc/mod.rs, slowstart/mod.rs): each algorithm's name and
# its parameters with their defaults, in the registry's order.
_REGISTRY: dict[str, list[tuple[str, dict[str, Any]]]] = json.loads(algorithms_json())

CC_ALGORITHMS: dict[str, frozenset[str] | None] = {name: frozenset(params) for name, params in _REGISTRY["cc"]}
"""Congestion-avoidance algorithms and their parameters, from the core's registry."""

SLOW_STARTS: dict[str, frozenset[str] | None] = {name: frozenset(params) for name, params in _REGISTRY["slow_start"]}
"""Slow starts and their parameters, from the core's registry."""

# RFC 9438's constants as the core's registry gives them: the core needs all four whenever any CUBIC
# parameter table is given.
_CUBIC_DEFAULTS = dict(_REGISTRY["cc"])["cubic"]


class _Algorithm(Model):
    """``"lia"`` or ``{type = "cubic", beta = 0.7}``: a name and the algorithm's parameters."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    KIND: ClassVar[str] = "algorithm"
    KNOWN: ClassVar[dict[str, frozenset[str] | None]] = {}

    type: str

    PLUGIN: ClassVar[str] = ""
    """The scenario field a plug-in of this kind is named in (``mpsim.plugins.BASES``); empty if none."""

    @model_validator(mode="before")
    @classmethod
    def _known(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = {"type": value}
        if isinstance(value, type):
            value = {"type": "python", "class": value}
        if not isinstance(value, dict):
            return value
        name = value.get("type")
        if name is not None and not isinstance(name, str):
            raise unknown_name(cls.KIND, name, cls.KNOWN)
        if name is None:
            raise PydanticCustomError(
                "needs_type", "needs a 'type' (allowed: {allowed})", {"allowed": ", ".join(cls.KNOWN)}
            )
        if name == "python" and cls.PLUGIN:
            return _plugin_table(cls.PLUGIN, value)
        if name not in cls.KNOWN:
            raise unknown_name(cls.KIND, name, cls.KNOWN)
        params = cls.KNOWN[name]
        if params is not None:
            extra = sorted(set(value) - {"type"} - params)
            if extra:
                allowed = ", ".join(sorted(params)) or "none"
                raise PydanticCustomError(
                    "unknown_parameter",
                    "unknown parameter {key} of {name}{hint} (allowed: {allowed})",
                    {"key": repr(extra[0]), "name": name, "hint": did_you_mean(extra[0], params), "allowed": allowed},
                )
        return value

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.model_extra or {})

    def to_core(self) -> dict[str, Any]:
        if self.type == "python":
            return _plugin_core(self.params)
        out = {"type": self.type, **self.params}
        if self.type == "cubic":
            out = {"type": "cubic", **_CUBIC_DEFAULTS, **self.params}
        return out


class CongestionControl(_Algorithm):
    KIND: ClassVar[str] = "algorithm"
    KNOWN: ClassVar[dict[str, frozenset[str] | None]] = CC_ALGORITHMS
    PLUGIN: ClassVar[str] = "cc"


class SlowStart(_Algorithm):
    KIND: ClassVar[str] = "slow start"
    KNOWN: ClassVar[dict[str, frozenset[str] | None]] = SLOW_STARTS
    PLUGIN: ClassVar[str] = "slow_start"


class PluginScheduler(_Algorithm):
    """``scheduler = {type = "python", class = "file.py:Class", ...}``: a scheduler written in Python."""

    KIND: ClassVar[str] = "scheduler"
    KNOWN: ClassVar[dict[str, frozenset[str] | None]] = {}
    PLUGIN: ClassVar[str] = "scheduler"


def _plugin_table(kind: str, value: dict[str, Any]) -> dict[str, Any]:
    """A plug-in's table (``{type = "python", class = ..., <params>}``) with its class loaded and its
    parameters checked against the class's declaration; kept as ``{type, class: the class, **params}``."""
    named = value.get("class")
    try:
        if isinstance(named, type):
            found: type = named
        elif isinstance(named, str):
            found = plugins.load_class(named)
        else:
            raise PydanticCustomError(
                "plugin_class",
                "needs a 'class': 'path/to/file.py:Class', 'package.module:Class' or the class itself, got {v}",
                {"v": repr(named)},
            )
        cls = plugins.check_class(found, kind)
    except ConfigError as e:
        raise PydanticCustomError("plugin_class", "{msg}", {"msg": str(e)}) from None
    params = {k: v for k, v in value.items() if k not in ("type", "class")}
    try:
        checked = plugins.check_params(cls, params)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        declared = ", ".join(plugins.params_model(cls).model_fields) or "none"
        raise PydanticCustomError(
            "plugin_parameter",
            "parameter {field} of {cls}: {msg} (parameters: {declared})",
            {"field": repr(field), "cls": cls.__qualname__, "msg": first["msg"], "declared": declared},
        ) from None
    return {"type": "python", "class": plugins.class_spec(cls), **checked}


def _plugin_core(table: dict[str, Any]) -> dict[str, Any]:
    """The core's form of a plug-in: where its class is, its parameters, its source's fingerprint."""
    params = dict(table)
    spec = params.pop("class")
    cls = plugins.load_class(spec)
    return {
        "type": "python",
        "class": spec,
        "params": params,
        "source": plugins.source_fingerprint(cls),
    }


# ---------------------------------------------------------------------------------------------- flows


@dataclass(frozen=True)
class UniformStart:
    """A start time drawn uniformly in [lo, hi] ns from the run's seed and the flow's name."""

    lo: int
    hi: int

    def draw(self, seed: int, name: str) -> int:
        digest = hashlib.sha256(f"mpsim-start/{seed}/{name}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "little")).randint(self.lo, self.hi)


def _start(value: Any) -> int | UniformStart:
    if isinstance(value, UniformStart):
        return value
    if isinstance(value, dict):
        if set(value) != {"uniform"} or not isinstance(value["uniform"], list) or len(value["uniform"]) != 2:
            raise PydanticCustomError(
                "start",
                "a random start is written {uniform = [earliest, latest]}, got {value}",
                {"value": repr(value)},
            )
        lo, hi = (int(time_with_unit(v)) for v in value["uniform"])
        if hi < lo:
            raise PydanticCustomError(
                "start", "uniform start: the latest is before the earliest, got {v}", {"v": value}
            )
        return UniformStart(lo, hi)
    return int(time_with_unit(value))


def _start_text(value: int | UniformStart) -> str | dict[str, list[str]]:
    """What :func:`_start` reads back to the same start."""
    if isinstance(value, UniformStart):
        return {"uniform": [format_time(value.lo), format_time(value.hi)]}
    return format_time(value)


Start = Annotated[int | UniformStart, PlainValidator(_start), PlainSerializer(_start_text)]
"""A time (``"2s"``) or a random one (``{uniform = ["2s", "5s"]}``)."""


class TcpOptions(Model):
    """TCP settings; every field left out takes the profile's value. The core defines each option and each
    profile's value of it (``crates/mpsim-core/src/config.rs``; the table in docs/scenarios.md is generated
    from it by :mod:`mpsim.tcp_options`); here they are typed for a scenario file: sizes (``"64KB"``,
    ``"45pkt"``) and durations (``"200ms"``) where the core takes bytes and nanoseconds."""

    profile: Literal["linux", "linux_3_14", "ns3", "rfc", "ns2"] = "linux"
    mss: int | None = Field(None, ge=64, le=65_535)
    framing_bytes: int | None = Field(None, ge=0, le=1_000)
    option_layout: Literal["aligned", "packed"] | None = None
    initial_cwnd: int | None = Field(None, ge=1, le=10_000)
    initial_ssthresh: Size | None = None
    recovery: Literal["reno", "new_reno", "sack", "prr"] | None = None
    sack: Flag | None = None
    timestamps: Flag | None = None
    limited_transmit: Flag | None = None
    partial_ack_rto: Literal["impatient", "slow_but_steady"] | None = None
    sack_rule3: Flag | None = None
    sack_rescue: Flag | None = None
    rack: Flag | None = None
    tlp: Flag | None = None
    tlp_pto: Literal["linux6", "linux3"] | None = None
    frto: Flag | None = None
    early_retransmit: Flag | None = None
    early_retransmit_delay: Flag | None = None
    fack: Flag | None = None
    min_rto_bounds_variation: Flag | None = None
    cwnd_in_segments: Flag | None = None
    partial_ack_retransmit: Flag | None = None
    emulate_sack: Flag | None = None
    dupack_rule: Literal["rfc6675", "new_sack"] | None = None
    prr_variant: Literal["rfc6937", "ns3", "linux"] | None = None
    loss_flight: Literal["flight_size", "capped_flight_size", "pipe", "cwnd"] | None = None
    delayed_ack: Flag | None = None
    delack_segments: int | None = Field(None, ge=1, le=U32_MAX)
    delack_timeout: PositiveDuration | None = None
    quickack_segments: int | None = Field(None, ge=0, le=U32_MAX)
    quickack_window_growth: Flag | None = None
    sack_compression: Flag | None = None
    min_rto: PositiveDuration | None = None
    initial_rto: PositiveDuration | None = None
    rwnd: Size | None = None
    ooo_shrinks_window: Flag | None = None
    send_buffer: Size | None = None
    """``"0B"`` for no limit."""
    receive_window: Size | None = None
    """``"65535B"`` is the 16-bit window without scaling, as the legacy ns-3 MPTCP model has it."""
    sacked_retransmissions_in_pipe: Flag | None = None
    grow_on_recovery_exit: Flag | None = None
    rto_exit_growth_above_recover: Flag | None = None
    ack_counting: Literal["bytes", "per_ack"] | None = None
    hystart: bool | dict[str, Any] | None = None
    """``true`` for the RFC's constants, or a table overriding some of them (``{css_rounds = 3}``)."""
    hystart_linux: bool | dict[str, Any] | None = None
    """``true`` for the kernel's constants, a table overriding some (``{ack_train = false}``), ``false`` for
    none."""
    mptcp_join: Literal["established", "linux"] | None = None
    """MPTCP: ``established`` (the joins leave at the first subflow's SYN-ACK and send from their own) or
    ``linux`` (Linux 6.x: at the full establishment, data after MP_JOIN's fourth packet)."""
    mptcp_rcv_window: Literal["fixed", "linux"] | None = None
    """MPTCP: the connection's receive window: ``fixed`` (the connection's ``rcv_buffer``) or ``linux`` (Linux
    6.18's autotuned buffer; the sender fills the window to its edge and holds a short segment while one is
    unacknowledged)."""
    mptcp_retransmit_timer: Flag | None = None
    """MPTCP: Linux's connection-level retransmission timer (the ``linux`` profile's): without a new DATA_ACK
    for the longest pending subflow timer (at least 200 ms), the first unacknowledged data fragment goes again
    on a subflow with nothing outstanding."""
    mptcp_pm_delay: Duration | None = None
    """MPTCP: how long after the event that prompts it the path manager opens the connection's other initial
    subflows (the ``linux`` profile's 0.22 ms: Linux's runs in a worker, after the packets being processed
    then); subflow events keep their own times."""

    @property
    def mss_bytes(self) -> int:
        return self.mss or profile_mss(self.profile)

    def to_core(self) -> dict[str, Any]:
        """The core's ``tcp`` table: every option the core defines that is set, by the core's name."""
        out: dict[str, Any] = {}
        for option in tcp_options.options():
            value = getattr(self, CORE_NAMES.get(option["name"], option["name"]))
            if value is None or (option["kind"] == "table" and value is False):
                continue
            if isinstance(value, SizeSpec):
                value = value.to_bytes(self.mss_bytes)
            elif option["kind"] == "table" and value is True:
                value = {}
            elif isinstance(value, dict):
                value = dict(value)
            out[option["name"]] = value
        return out


class Sequence(Model):
    """``count`` flows one after another, each starting a random gap after the previous one completed."""

    count: int = Field(ge=1, le=1_000_000)
    gap: Duration
    """Mean gap (CSS Fig. 4: 1.2 s, uniform)."""
    distribution: Literal["exponential", "constant", "uniform"] = "exponential"
    """``uniform`` is uniform on [0, 2·gap]."""


def _listify(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


class Coding(Model):
    """Online network coding under a subflow's TCP (TCP/NC; the Couple+ paper's MPTCP/NC, §II-B)."""

    window: int = Field(6, ge=1, le=1024)
    """Coding window W: most original segments one coded packet combines."""
    redundancy: float = Field(1.25, ge=1.0, le=5.0)
    """Redundancy R: coded packets per segment on average (one redundant packet every R/(R − 1))."""
    header_bytes: int = Field(16, ge=0, le=1024)
    """NC header bytes on each coded packet."""
    ack_header_bytes: int = Field(8, ge=0, le=1024)
    """NC header bytes on each ACK (packets received, maximum relative sequence number, loss flag)."""

    def to_core(self) -> dict[str, Any]:
        return self.model_dump()


class _FlowBase(Model):
    name: str = Field(min_length=1)
    start: Start = 0
    """When the first packet (SYN) is sent: ``"2s"`` or ``{uniform = ["2s", "5s"]}``."""


class _TransferBase(_FlowBase):
    initiator: Literal["sender", "receiver"] = "sender"
    """Which end connects: ``sender`` (an upload, a bulk sender) or ``receiver`` (a download: the client
    connects, the server sends once it has accepted; MPTCP's path manager runs at the client)."""


class TcpFlow(_TransferBase):
    """A single-path TCP transfer from ``src`` to ``dst`` (addresses or node names)."""

    type: Literal["tcp"] = "tcp"
    src: str
    dst: str
    size: Size | None = None
    """Bytes (``"280KB"``) or full segments (``"200pkt"``); a flow without end when left out."""
    cc: CongestionControl | None = None
    """Congestion avoidance; the profile's when left out (docs/algorithms.md)."""
    tcp: TcpOptions = TcpOptions()
    trace: Flag = False
    """Record cwnd, ssthresh, srtt and bytes in flight at every ACK."""
    sequence: Sequence | None = None
    copies: int = Field(1, ge=1, le=100_000)
    """Identical flows started together, named ``name#0``, ``name#1``, ..."""
    coding: Coding | None = None
    """Network coding under the flow's TCP."""


class SubflowEvent(Model):
    """A subflow opened (MP_JOIN) or closed at a given time during the run (RFC 8684 §3.2, §3.4)."""

    at: Duration
    action: Literal["add", "remove"]
    src: str
    """Source address of the subflow (an address of the sending node)."""
    dst: str
    """Destination address of the subflow (an address of the receiving node)."""
    index: int | None = Field(None, ge=0, le=U32_MAX)
    """Which of several subflows on that pair to remove (``ndiffports``)."""


class KernelLimits(Model):
    """``ip mptcp limits`` of Linux's in-kernel path manager (``path_manager = "kernel"``)."""

    subflows: int = Field(2, ge=0, le=8)
    """Subflows beyond the first (Linux's default: 2)."""
    add_addr_accepted: int = Field(0, ge=0, le=8)
    """Addresses announced by the peer that the connecting side joins (Linux's default: 0)."""


class MptcpFlow(_TransferBase):
    """An MPTCP connection from ``src`` to ``dst``: addresses, lists of them, or node names (a node
    stands for all its addresses)."""

    type: Literal["mptcp"]
    src: Annotated[list[str], BeforeValidator(_listify), Field(min_length=1)]
    dst: Annotated[list[str], BeforeValidator(_listify), Field(min_length=1)]
    size: Size | None = None
    cc: CongestionControl | None = None
    """Coupled congestion avoidance; LIA when left out."""
    slow_start: SlowStart | None = None
    """``standard`` (uncoupled, the default), ``lisa``, ``css`` or ``gsam``."""
    path_manager: Literal["fullmesh", "ndiffports", "kernel"] | None = None
    """``fullmesh``: one subflow per (source, destination) address pair; ``ndiffports``: ``subflows``
    subflows over the first pair; ``kernel``: Linux's in-kernel path manager at the side that connects (its
    other addresses join the peer's first; the peer's other addresses are announced, and joined within
    ``kernel_limits``). ``ndiffports`` when ``subflows`` is given, else ``fullmesh``."""
    kernel_limits: KernelLimits | None = None
    """With ``path_manager = "kernel"``: ``{subflows = 2, add_addr_accepted = 0}`` unless given."""
    subflows: int | None = Field(None, ge=1, le=64)
    scheduler: Literal["minrtt", "roundrobin", "redundant", "linger", "blest", "ecf"] | PluginScheduler | None = None
    """``minrtt`` (the out-of-tree Linux MPTCP's default), ``roundrobin``, ``redundant``, ``linger``
    (upstream Linux's default: data waits in the queue of the subflow that would drain it first), ``blest`` or
    ``ecf`` (docs/algorithms.md), or ``{type = "python", class = ...}`` (docs/plugins.md); left out, the
    profile's: ``linger`` under ``linux``, ``minrtt`` under the others."""
    join_delay: Duration = 0
    rcv_buffer: Size | None = None
    tcp: TcpOptions = TcpOptions()
    trace: Flag = False
    copies: int = Field(1, ge=1, le=100_000)
    subflow_events: list[SubflowEvent] = []
    """Subflows added or removed during the run, in addition to those the path manager opens."""
    coding: dict[str, Coding] = {}
    """Network coding under the TCP of the subflows from each source address named."""

    @model_validator(mode="after")
    def _kernel_limits(self) -> MptcpFlow:
        if self.kernel_limits is not None and self.path_manager != "kernel":
            raise PydanticCustomError(
                "kernel_limits",
                "'kernel_limits' applies to path_manager = \"kernel\" only, got path_manager {v}",
                {"v": repr(self.path_manager)},
            )
        return self


class UdpFlow(_FlowBase):
    """A UDP source: constant bit rate, or on/off with exponential (or Pareto) period lengths."""

    type: Literal["udp"]
    src: str
    dst: str
    rate: Rate
    packet_size: Size = Field(default_factory=lambda: _bytes(1500))
    """Size of each packet on the wire, headers included."""
    stop: Duration | None = None
    pattern: Literal["cbr", "on_off"] = "cbr"
    on: PositiveDuration | None = None
    """Mean on period (``on_off``)."""
    off: PositiveDuration | None = None
    """Mean off period (``on_off``)."""
    pareto_shape: float | None = Field(None, gt=1)
    """Pareto-distributed periods of this shape instead of exponential ones."""

    @model_validator(mode="after")
    def _pattern(self) -> UdpFlow:
        if self.pattern == "on_off" and (self.on is None or self.off is None):
            raise PydanticCustomError("on_off", "an on_off source needs 'on' and 'off' (mean period lengths)")
        if self.pattern == "cbr" and (self.on is not None or self.off is not None or self.pareto_shape is not None):
            raise PydanticCustomError("on_off", "'on', 'off' and 'pareto_shape' apply to pattern = \"on_off\" only")
        if self.packet_size.unit != "bytes":
            raise PydanticCustomError(
                "packet_size", "the packet size of a UDP flow is in bytes, got {v}", {"v": str(self.packet_size)}
            )
        return self


def _bytes(n: int) -> Any:
    from mpsim.units import SizeSpec

    return SizeSpec(n, "bytes")


Flow = Annotated[TcpFlow | MptcpFlow | UdpFlow, Field(discriminator="type")]


class Trace(Model):
    """What to record over time."""

    flows: list[str] = []
    """Flows (names) whose cwnd, ssthresh, srtt and bytes in flight are recorded at every ACK."""
    queues: list[str] = []
    """Links (names) whose queue occupancy is recorded."""
    queue_interval: PositiveDuration | None = None
    """One queue sample per interval; every change when left out."""
    segments: list[str] = []
    """TCP and MPTCP flows (names) whose every segment sent and ACK received is recorded, per subflow
    (the ``segment_traces`` table)."""


class Throughput(Model):
    """Windowed throughput (docs/scenarios.md): bytes each flow and subflow sent and delivered in
    bins of ``interval`` from ``start`` to ``end``."""

    interval: PositiveDuration
    """Width of a bin."""
    start: Duration = 0
    """Start of the first bin."""
    end: Duration | None = None
    """End of the last bin (the run's duration when left out; the last bin is cut there)."""

    def to_core(self) -> dict[str, int]:
        out = {"interval_ns": self.interval, "start_ns": self.start}
        if self.end is not None:
            out["end_ns"] = self.end
        return out


class Limits(Model):
    """Bounds on what a run may cost (docs/scenarios.md, Limits): a run estimated above them is
    refused before it starts, and a run that reaches them stops with an error."""

    max_events: int | None = Field(None, ge=1, lt=2**64)
    """Most events the run may process (default 10^9, about a minute of wall time)."""
    max_trace_rows: int | None = Field(None, ge=1, lt=2**64)
    """Most rows of queue and cwnd traces the run may record (default 10^7)."""

    def to_core(self) -> dict[str, int]:
        return {k: v for k, v in (("max_events", self.max_events), ("max_trace_rows", self.max_trace_rows)) if v}


# ---------------------------------------------------------------------------------------------- scenario

CORE_NAMES = {
    "rate_bps": "rate",
    "delay_ns": "delay",
    "limit_pkts": "limit",
    "burst_bytes": "burst",
    "jitter_ns": "jitter",
    "txtime_rate_bps": "txtime_rate",
    "limit_bytes": "limit",
    "min_th_pkts": "min_th",
    "max_th_pkts": "max_th",
    "mean_pkt_size_bytes": "mean_pkt_size",
    "target_delay_ns": "target_delay",
    "target_ns": "target",
    "interval_ns": "interval",
    "size_bytes": "size",
    "start_ns": "start",
    "stop_ns": "stop",
    "at_ns": "at",
    "initial_cwnd_segments": "initial_cwnd",
    "initial_ssthresh_bytes": "initial_ssthresh",
    "delack_timeout_ns": "delack_timeout",
    "mptcp_pm_delay_ns": "mptcp_pm_delay",
    "min_rto_ns": "min_rto",
    "initial_rto_ns": "initial_rto",
    "rwnd_bytes": "rwnd",
    "send_buffer_bytes": "send_buffer",
    "receive_window_bytes": "receive_window",
    "rcv_buffer_bytes": "rcv_buffer",
    "join_delay_ns": "join_delay",
    "packet_size_bytes": "packet_size",
    "src_addrs": "src",
    "dst_addrs": "dst",
    "queue_links": "queues",
    "queue_sample_interval_ns": "queue_interval",
    "stop_time_ns": "duration",
    "end_ns": "end",
}
"""The core's field names whose scenario names differ (the unit goes with the value): to translate the core's
error paths, and to name the core's TCP options."""


class Scenario(Model):
    """One run: network, flows, traces, duration and seed."""

    seed: int = Field(1, ge=0, lt=2**64)
    duration: PositiveDuration
    """The run stops at this simulated time (or earlier when nothing is left to do)."""
    topology: Preset | None = None
    hosts: list[str] = []
    routers: list[str] = []
    links: list[Link] = []
    addresses: list[Address] = []
    routes: list[Route] = []
    link_changes: list[LinkChange] = []
    flows: list[Flow] = []
    trace: Trace = Trace()
    throughput: Throughput | None = None
    """Windowed throughput: ``{interval = "5s", start = "10s", end = "60s"}`` (Results.throughput)."""
    stop_when_complete: list[str] = []
    """Names of TCP / MPTCP flows: the run ends as soon as they have all completed, even while
    long-lived or UDP background traffic goes on (their results are what they would be anyway)."""
    limits: Limits = Limits()
    """Bounds on the run's cost: ``max_events``, ``max_trace_rows``."""

    def __init__(self, /, **data: Any) -> None:
        check_shape(data)
        super().__init__(**data)

    # ------------------------------------------------------------------ loading

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, check: bool = True, base_dir: str | Path | None = None) -> Scenario:
        """Validates ``data`` (the TOML form) and checks names; raises :class:`ScenarioError`. With
        ``check=False`` only the fields are validated: :func:`run` checks the rest in its one call into the
        core. Relative file names in ``data`` (link traces) are read from ``base_dir`` (default: the current
        directory)."""
        check_shape(data)
        try:
            if base_dir is None:
                scenario = cls.model_validate(dict(data))
            else:
                with files_relative_to(Path(base_dir)):
                    scenario = cls.model_validate(dict(data))
        except ValidationError as e:
            raise ScenarioError(problems_from_validation(e, cls)) from None
        if check:
            scenario.check()
        return scenario

    @classmethod
    def from_toml(cls, path: str | Path, *, check: bool = True) -> Scenario:
        return cls.from_dict(read_toml(path), check=check, base_dir=Path(path).parent)

    # ------------------------------------------------------------------ checks

    def network(self) -> Network:
        """The preset's network (if any) followed by what is written out."""
        own = Network(
            hosts=self.hosts,
            routers=self.routers,
            links=self.links,
            addresses=self.addresses,
            routes=self.routes,
            link_changes=self.link_changes,
        )
        return self.topology.expand().merged(own) if self.topology is not None else own

    def problems(self) -> list[Problem]:
        """Every cross-field problem: unknown or duplicate names, impossible combinations."""
        return _Checker(self).run()

    def check(self) -> tuple[float, float]:
        """Raises :class:`ScenarioError` listing every problem; then lets the core check the rest without
        building the run. Returns the run's estimated ``(events, trace_rows)`` (docs/scenarios.md, Limits)."""
        self._check_model()
        cfg, paths = self._core()
        with _in_scenario_terms(paths):
            return estimate_config(cfg)

    def _check_model(self) -> None:
        """Raises :class:`ScenarioError` listing every problem only the model can find."""
        problems = self.problems()
        if problems:
            raise ScenarioError(problems)

    # ------------------------------------------------------------------ core form

    def to_core(self, seed: int | None = None) -> dict[str, Any]:
        """The core's configuration form (``crates/mpsim-core/src/config.rs``); ``seed`` overrides."""
        return self._core(seed)[0]

    def _core(self, seed: int | None = None) -> tuple[dict[str, Any], dict[str, str]]:
        seed = self.seed if seed is None else seed
        net = self.network()
        n_pre = len(self.topology.expand().links) if self.topology is not None else 0
        paths: dict[str, str] = {}
        links: list[dict[str, Any]] = []
        for i, link in enumerate(net.links):
            where = f"links[{i - n_pre}]" if i >= n_pre else f"topology (link '{link.forward_name}')"
            for j, core_link in enumerate(link.to_core()):
                paths[f"links[{len(links)}]"] = where if j == 0 else f"{where}.reverse"
                links.append(core_link)
        reverse = {link.forward_name: link.reverse_name for link in net.links if link.reverse_name}
        addresses: list[dict[str, Any]] = []
        for i, a in enumerate(net.addresses):
            out: dict[str, Any] = {"name": a.name, "node": a.node}
            if a.interface is not None:
                out["out_link"] = a.interface
                out["in_link"] = reverse.get(a.interface, a.interface)
            if a.out_link is not None:
                out["out_link"] = a.out_link
            if a.in_link is not None:
                out["in_link"] = a.in_link
            own = i - (len(net.addresses) - len(self.addresses))
            paths[f"addresses[{len(addresses)}]"] = (
                f"addresses[{own}]" if own >= 0 else f"topology (address '{a.name}')"
            )
            addresses.append(out)
        addrs_of = _addresses_by_node(net)
        traced = set(self.trace.flows)
        segments_traced: list[str] = []
        tcp: list[dict[str, Any]] = []
        mptcp: list[dict[str, Any]] = []
        udp: list[dict[str, Any]] = []
        for i, f in enumerate(self.flows):
            names = [f.name] if f.type == "udp" or f.copies == 1 else [f"{f.name}#{k}" for k in range(f.copies)]
            for name in names:
                if f.name in self.trace.segments:
                    segments_traced.append(name)
                start = f.start.draw(seed, name) if isinstance(f.start, UniformStart) else f.start
                if isinstance(f, TcpFlow):
                    paths[f"tcp_flows[{len(tcp)}]"] = f"flows[{i}]"
                    tcp.append(_tcp_core(f, name, start, addrs_of, f.trace or f.name in traced))
                elif isinstance(f, MptcpFlow):
                    paths[f"mptcp_connections[{len(mptcp)}]"] = f"flows[{i}]"
                    mptcp.append(_mptcp_core(f, name, start, addrs_of, f.trace or f.name in traced))
                else:
                    paths[f"udp_flows[{len(udp)}]"] = f"flows[{i}]"
                    udp.append(_udp_core(f, start, addrs_of))
        paths["trace"] = "trace"
        trace: dict[str, Any] = {"queue_links": list(self.trace.queues)}
        if self.trace.queue_interval is not None:
            trace["queue_sample_interval_ns"] = self.trace.queue_interval
        if segments_traced:
            trace["segments"] = segments_traced
        n_routes_pre = len(net.routes) - len(self.routes)
        for i in range(len(net.routes)):
            paths[f"routes[{i}]"] = f"routes[{i - n_routes_pre}]"
        cfg = {
            "seed": seed,
            "stop_time_ns": self.duration,
            "nodes": [{"name": h, "kind": "host"} for h in net.hosts]
            + [{"name": r, "kind": "router"} for r in net.routers],
            "links": links,
            "addresses": addresses,
            "routes": [{"node": r.node, "dst": _one_address(r.dst, addrs_of), "via": r.via} for r in net.routes],
            "link_changes": [c.to_core() for c in net.link_changes],
            "udp_flows": udp,
            "tcp_flows": tcp,
            "mptcp_connections": mptcp,
            "trace": trace,
        }
        if self.throughput is not None:
            paths["throughput"] = "throughput"
            cfg["throughput"] = self.throughput.to_core()
        if self.stop_when_complete:
            cfg["stop_when_complete"] = list(self.stop_when_complete)
        if self.limits.to_core():
            cfg["limits"] = self.limits.to_core()
        return cfg, paths


def _addresses_by_node(net: Network) -> dict[str, list[str]]:
    """Each node's addresses: those listed, or one named after the node when none is."""
    out: dict[str, list[str]] = {n: [] for n in net.hosts + net.routers}
    for a in net.addresses:
        out.setdefault(a.node, []).append(a.name)
    return {n: (addrs or [n]) for n, addrs in out.items()}


def _one_address(name: str, addrs_of: Mapping[str, list[str]]) -> str:
    addrs = addrs_of.get(name)
    return addrs[0] if addrs and name not in _all_addresses(addrs_of) else name


def _all_addresses(addrs_of: Mapping[str, list[str]]) -> set[str]:
    return {a for addrs in addrs_of.values() for a in addrs}


def _many_addresses(names: list[str], addrs_of: Mapping[str, list[str]]) -> list[str]:
    known = _all_addresses(addrs_of)
    out: list[str] = []
    for n in names:
        out += [n] if n in known else addrs_of.get(n, [n])
    return out


def _tcp_core(f: TcpFlow, name: str, start: int, addrs_of: Mapping[str, list[str]], trace: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": name,
        "src": _one_address(f.src, addrs_of),
        "dst": _one_address(f.dst, addrs_of),
        "start_ns": start,
        "initiator": f.initiator,
        "tcp": f.tcp.to_core(),
        "trace": trace,
    }
    if f.size is not None:
        out["size_bytes"] = f.size.to_bytes(f.tcp.mss_bytes)
    if f.cc is not None:
        out["cc"] = f.cc.to_core()
    if f.coding is not None:
        out["coding"] = f.coding.to_core()
    if f.sequence is not None:
        out["sequence"] = {
            "count": f.sequence.count,
            "gap_mean_ns": f.sequence.gap,
            "gap_distribution": {"type": f.sequence.distribution},
        }
    return out


def _path_manager_core(f: MptcpFlow, pm: str) -> dict[str, Any]:
    if pm == "ndiffports":
        return {"type": pm, "subflows": f.subflows}
    if pm == "kernel":
        return {"type": pm, **(f.kernel_limits or KernelLimits()).model_dump()}
    return {"type": pm}


def _mptcp_core(f: MptcpFlow, name: str, start: int, addrs_of: Mapping[str, list[str]], trace: bool) -> dict[str, Any]:
    pm = f.path_manager or ("ndiffports" if f.subflows is not None else "fullmesh")
    out: dict[str, Any] = {
        "name": name,
        "src_addrs": _many_addresses(f.src, addrs_of),
        "dst_addrs": _many_addresses(f.dst, addrs_of),
        "start_ns": start,
        "path_manager": _path_manager_core(f, pm),
        "initiator": f.initiator,
        "join_delay_ns": f.join_delay,
        "tcp": f.tcp.to_core(),
        "trace": trace,
    }
    if f.size is not None:
        out["size_bytes"] = f.size.to_bytes(f.tcp.mss_bytes)
    if f.cc is not None:
        out["cc"] = f.cc.to_core()
    if isinstance(f.scheduler, PluginScheduler):
        out["scheduler_plugin"] = {k: v for k, v in f.scheduler.to_core().items() if k != "type"}
    elif f.scheduler is not None:
        out["scheduler"] = f.scheduler
    if f.slow_start is not None:
        out["slow_start"] = f.slow_start.to_core()
    if f.rcv_buffer is not None:
        out["rcv_buffer_bytes"] = f.rcv_buffer.to_bytes(f.tcp.mss_bytes)
    if f.coding:
        out["coding"] = {src: c.to_core() for src, c in f.coding.items()}
    if f.subflow_events:
        out["subflow_events"] = [
            {"at_ns": e.at, "action": e.action, "src": e.src, "dst": e.dst}
            | ({"index": e.index} if e.index is not None else {})
            for e in f.subflow_events
        ]
    return out


def _udp_core(f: UdpFlow, start: int, addrs_of: Mapping[str, list[str]]) -> dict[str, Any]:
    pattern: dict[str, Any] = {"type": f.pattern, "rate_bps": f.rate}
    if f.pattern == "on_off":
        pattern["on_mean_ns"] = f.on
        pattern["off_mean_ns"] = f.off
        pattern["distribution"] = (
            {"type": "pareto", "shape": f.pareto_shape} if f.pareto_shape is not None else {"type": "exponential"}
        )
    out: dict[str, Any] = {
        "name": f.name,
        "src": _one_address(f.src, addrs_of),
        "dst": _one_address(f.dst, addrs_of),
        "packet_size_bytes": f.packet_size.value,
        "start_ns": start,
        "pattern": pattern,
    }
    if f.stop is not None:
        out["stop_ns"] = f.stop
    return out


@contextmanager
def _in_scenario_terms(paths: Mapping[str, str]) -> Iterator[None]:
    """A :class:`ConfigError` raised inside, as a :class:`ScenarioError` in the scenario's terms."""
    try:
        yield
    except ConfigError as e:
        raise _scenario_error(e, paths) from None


def _scenario_error(error: ConfigError, paths: Mapping[str, str]) -> ScenarioError:
    """Every problem of a :class:`ConfigError` in the scenario's terms (:func:`_translate`), each once: the
    copies of a flow are one flow of the scenario."""
    found = getattr(error, "problems", None)
    if not found:
        return ScenarioError([Problem("", str(error))])
    return ScenarioError(list(dict.fromkeys(_translate(p, paths) for p in found)))


def _translate(problem: Any, paths: Mapping[str, str]) -> Problem:
    """A problem the core found (``tcp_flows[0].tcp.mss``) in the scenario's terms (``flows[2].tcp.mss``):
    the component it names is the scenario's, and its fields take the scenario's names."""
    head, dot, rest = problem.path.partition(".")
    path = problem.path
    if head in paths:
        fields = []
        for part in rest.split(".") if dot else []:
            name, bracket, index = part.partition("[")
            fields.append(CORE_NAMES.get(name, name) + bracket + index)
        path = ".".join([paths[head], *fields])
    return Problem(path, problem.message, problem.value, problem.allowed)


class _Checker:
    """The checks of what only the scenario model knows: node names given as hosts, routers and a
    preset, duplex interfaces, a node standing for its addresses, copies and sequences, times against
    the run's duration, traced flows. Every other cross-field check (unknown or duplicate link and
    address names, routes, a flow within one node, every algorithm's parameters) is the core's, which
    reports all of them at once (:meth:`Scenario.check`)."""

    def __init__(self, s: Scenario) -> None:
        self.s = s
        self.net = s.network()
        self.out: list[Problem] = []

    def problem(self, path: str, message: str) -> None:
        self.out.append(Problem(path, message))

    def unknown(self, path: str, kind: str, name: str, known: list[str]) -> None:
        shown = ", ".join(sorted(known)[:12]) + (", ..." if len(known) > 12 else "")
        self.problem(path, f"unknown {kind} '{name}'{did_you_mean(name, known)} (known: {shown or 'none'})")

    def run(self) -> list[Problem]:
        s, net = self.s, self.net
        pre = s.topology.expand() if s.topology is not None else Network()
        nodes: dict[str, str] = {}
        for kind, own, pre_names in (("hosts", s.hosts, pre.hosts), ("routers", s.routers, pre.routers)):
            for n in pre_names:
                nodes[n] = "topology"
            for i, n in enumerate(own):
                if n in nodes:
                    self.problem(f"{kind}[{i}]", f"duplicate node name '{n}' (also in {nodes[n]})")
                nodes.setdefault(n, f"{kind}[{i}]")
        if not nodes:
            self.problem("hosts", "the network has no nodes: give a [topology] preset, or hosts, routers and links")
        by_name = {link.forward_name: link for link in net.links}
        for i, a in enumerate(s.addresses):
            bound = by_name.get(a.interface) if a.interface is not None else None
            if bound is not None and (bound.from_ != a.node or bound.reverse_name is None):
                self.problem(
                    f"addresses[{i}].interface",
                    f"'{a.interface}' must be a duplex link written from node '{a.node}' "
                    "(or bind out_link and in_link)",
                )
        addrs_of = _addresses_by_node(net)
        all_addresses = _all_addresses(addrs_of)
        endpoints = sorted(all_addresses | set(nodes))
        for i, c in enumerate(s.link_changes):
            if c.at > s.duration:
                self.problem(
                    f"link_changes[{i}].at",
                    f"{format_time(c.at)} is after the end of the run (duration = {format_time(s.duration)})",
                )

        def endpoint(path: str, name: str, single: bool) -> None:
            """An address, or a node standing for its addresses (for a single-path flow, its only one)."""
            if name in nodes and name not in all_addresses:
                if single and len(addrs_of[name]) > 1:
                    self.problem(
                        path, f"node '{name}' has several addresses ({', '.join(addrs_of[name])}); name one of them"
                    )
            elif name not in all_addresses:
                self.unknown(path, "address or node", name, endpoints)

        flows: dict[str, str] = {}
        for i, f in enumerate(s.flows):
            p = f"flows[{i}]"
            if f.name in flows:
                self.problem(f"{p}.name", f"duplicate flow name '{f.name}' (also in {flows[f.name]})")
            flows.setdefault(f.name, p)
            if isinstance(f, MptcpFlow):
                for key, names in (("src", f.src), ("dst", f.dst)):
                    for j, name in enumerate(names):
                        endpoint(f"{p}.{key}[{j}]", name, False)
                if f.path_manager == "ndiffports" and f.subflows is None:
                    self.problem(f"{p}.subflows", "the ndiffports path manager needs a number of subflows")
                if f.path_manager == "fullmesh" and f.subflows is not None:
                    self.problem(f"{p}.subflows", "fullmesh opens one subflow per address pair; use ndiffports")
            else:
                endpoint(f"{p}.src", f.src, True)
                endpoint(f"{p}.dst", f.dst, True)
            if isinstance(f, TcpFlow) and f.sequence is not None:
                if f.size is None:
                    self.problem(f"{p}.sequence", "a sequence needs flows of finite size")
                if f.copies > 1:
                    self.problem(f"{p}.copies", "give either copies or a sequence, not both")
            latest = f.start.hi if isinstance(f.start, UniformStart) else f.start
            if latest >= s.duration:
                self.problem(
                    f"{p}.start",
                    f"{format_time(latest)} is at or after the end of the run (duration = {format_time(s.duration)})",
                )
            if isinstance(f, UdpFlow) and f.stop is not None and f.stop <= latest:
                self.problem(f"{p}.stop", "must be later than start")
        for i, name in enumerate(s.trace.flows):
            if name not in flows:
                self.unknown(f"trace.flows[{i}]", "flow", name, list(flows))
        transports = [f.name for f in s.flows if f.type != "udp"]
        for i, name in enumerate(s.trace.segments):
            if name not in transports:
                self.unknown(f"trace.segments[{i}]", "TCP or MPTCP flow", name, transports)
        return self.out


# ---------------------------------------------------------------------------------------------- entry points


def read_toml(path: str | Path) -> dict[str, Any]:
    """A TOML file as a dict; unreadable files become a :class:`ScenarioError`."""
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as e:
        raise ScenarioError([Problem(str(path), f"cannot read: {e.strerror or e}")]) from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError([Problem(str(path), f"not valid TOML: {e}")]) from None
    except RecursionError:
        allowed = f"allowed: at most {MAX_NESTING} levels of tables and lists"
        raise ScenarioError([Problem(str(path), f"nested too deeply to read ({allowed})")]) from None
    check_shape(data)
    return data


def load(path: str | Path) -> Scenario:
    """Loads and checks a scenario file; raises :class:`ScenarioError` listing every problem."""
    return Scenario.from_toml(path)


def run(
    scenario: Scenario | str | Path | Mapping[str, Any],
    seed: int | None = None,
    *,
    time_limit: float | None = None,
    pcap: str | Path | None = None,
    progress: Progress | None = None,
) -> Results:
    """Runs a scenario (a :class:`Scenario`, a TOML file or its dict form); ``seed`` overrides its seed;
    ``pcap`` a directory for packet captures (docs/scenarios.md, Packet captures); ``progress`` is called
    with the simulated time reached (:data:`mpsim.engine.Progress`).

    Ctrl-C stops the run within milliseconds (``KeyboardInterrupt``); ``time_limit`` (wall seconds)
    stops it with :class:`mpsim.TimeLimitError`; a run that reaches ``limits.max_events`` or
    ``limits.max_trace_rows`` stops with a :class:`ConfigError` naming the limit."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64):
        raise ConfigError(f"seed: must be a whole number in [0, 2^64), got {seed!r}")
    if isinstance(scenario, str | Path):
        scenario = Scenario.from_toml(scenario, check=False)
    elif isinstance(scenario, Mapping):
        scenario = Scenario.from_dict(scenario, check=False)
    elif not isinstance(scenario, Scenario):
        raise TypeError(
            "mpsim.run() takes a Scenario, the path of a TOML file or a dict of a scenario's fields, "
            f"got {type(scenario).__name__} {scenario!r:.60}"
        )
    scenario._check_model()
    # Converted and encoded once; the core parses, validates, builds and runs it in one call.
    cfg, paths = scenario._core(seed)
    with _in_scenario_terms(paths):
        text = encode_config(cfg)
    try:
        return run_encoded(text, time_limit=time_limit, pcap=pcap, progress=progress)
    except ConfigError as e:
        if not getattr(e, "problems", None):
            raise  # a limit reached while running, named by the core
        raise _scenario_error(e, paths) from None
