"""Type stubs of the compiled core (crates/mpsim-py)."""

from collections.abc import Callable

__version__: str

class Problem:
    """One problem of a configuration, as the core's validation found it."""

    path: str
    value: str
    allowed: str
    message: str

class ConfigError(ValueError):
    """An invalid scenario: the message names the field, the value and what is allowed. Raised by the
    core's validation, it has a ``problems`` attribute: a list of :class:`Problem`, every problem found."""

class InternalError(RuntimeError):
    """A broken invariant inside the engine: a bug in mpsim, not in the scenario."""

class TimeLimitError(RuntimeError):
    """A run stopped by its wall-time limit; the message says how far it had come."""

class PluginError(RuntimeError):
    """A plug-in failed: a hook raised (its exception is ``__cause__``, with its traceback) or returned a value
    out of its range (the message names the hook and the value)."""

class Subflow:
    """One subflow as a congestion control's or slow start's hook sees it, read in place while the hook
    runs: windows in bytes, times in ns. ``cwnd``, ``ssthresh`` and ``ca_credit`` can be set."""

    index: int
    cwnd: int
    ssthresh: int
    ca_credit: int
    @property
    def mss(self) -> int: ...
    @property
    def srtt(self) -> int: ...
    @property
    def srtt_s(self) -> float: ...
    @property
    def min_rtt(self) -> int: ...
    @property
    def latest_rtt(self) -> int: ...
    @property
    def rtt_samples(self) -> int: ...
    @property
    def bytes_in_flight(self) -> int: ...
    @property
    def in_recovery(self) -> bool: ...
    @property
    def established(self) -> bool: ...
    @property
    def in_slow_start(self) -> bool: ...
    @property
    def left_slow_start(self) -> bool: ...
    @property
    def bytes_acked(self) -> int: ...
    @property
    def delivered_bytes(self) -> int: ...
    @property
    def loss_events(self) -> int: ...
    @property
    def snd_una(self) -> int: ...
    @property
    def snd_nxt(self) -> int: ...
    @property
    def connection(self) -> tuple[Subflow, ...]: ...

class SchedulerSubflow:
    """One subflow as a scheduler's hook sees it."""

    index: int
    def has_room(self, length: int | None = None) -> bool: ...
    @property
    def established(self) -> bool: ...
    @property
    def srtt(self) -> int: ...
    @property
    def srtt_s(self) -> float: ...
    @property
    def rttvar(self) -> int: ...
    @property
    def cwnd(self) -> int: ...
    @property
    def ssthresh(self) -> int: ...
    @property
    def bytes_in_flight(self) -> int: ...
    @property
    def mss(self) -> int: ...

class Segment:
    """The segment a scheduler places."""

    @property
    def length(self) -> int: ...
    @property
    def reinjected_from(self) -> int | None: ...
    @property
    def unsent_bytes(self) -> int: ...
    @property
    def window_bytes(self) -> int: ...

TABLES: list[str]
"""The result tables' names, in the core's order (crates/mpsim-core/src/tables.rs)."""

class Run:
    """One run's outcome, kept in the core until asked for."""

    build_s: float
    """Wall seconds from the configuration's text to the built simulator."""
    run_s: float
    """Wall seconds of the run alone."""

    def results_json(self) -> str:
        """The results as one JSON document (the core's nested form)."""
    def table(self, name: str) -> list[tuple[str, str, bool, int, int, bytes | None, bytes | None, bytes]]:
        """One result table: per column (name, Arrow type, nullable, length, null count, validity bitmap or
        None, string offsets or None, data), the buffers in Arrow's columnar layout."""
    def captures(self) -> list[tuple[str, bytes]]:
        """The packet captures as (file name, pcap bytes); empty unless the run was asked for them."""

def run(
    config_json: str,
    time_limit_s: float | None = None,
    progress: Callable[[int, int], object] | None = None,
    pcap: bool = False,
) -> Run:
    """Parses, validates, builds and runs one scenario (JSON); Ctrl-C raises KeyboardInterrupt; ``progress`` is
    called as ``progress(now_ns, stop_time_ns)`` every 65 536 events and at the end; ``pcap`` captures packets."""

def stored_run(results_json: str) -> Run:
    """The :class:`Run` of stored results (the JSON ``Run.results_json`` gave), for their tables."""

def check_json(config_json: str) -> tuple[float, float]:
    """Checks a scenario (JSON) without building it: every field, then its estimated cost against its limits;
    returns the estimate (events, trace rows); raises ConfigError."""

def resolved_json(config_json: str) -> str:
    """Per flow: its name, kind, profile, and its resolved TCP parameters, congestion control and slow start
    written out in full, as typed JSON (durations in ns, unset values null)."""

def tcp_options_json() -> str:
    """The TCP options a flow may set and each profile's defaults: ``{"options": [{"name", "kind", "values",
    "param", "doc"}], "profiles": {profile: resolved TCP parameters}}`` (crates/mpsim-core/src/config.rs)."""

def algorithms_json() -> str:
    """The registry's algorithms: ``{"cc": [[name, {parameter: default}], ...], "slow_start": [...]}``."""

def engine_id() -> str:
    """The engine's identity: a hash of the sources it was built from (crates/mpsim-core/build.rs)."""
