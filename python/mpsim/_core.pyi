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

def run_json(
    config_json: str, time_limit_s: float | None = None, progress: Callable[[int, int], object] | None = None
) -> str:
    """Runs one scenario (JSON) and returns its results (JSON); Ctrl-C raises KeyboardInterrupt; ``progress``
    is called as ``progress(now_ns, stop_time_ns)`` every 65 536 events and at the end."""

def run_json_pcap(
    config_json: str, time_limit_s: float | None = None, progress: Callable[[int, int], object] | None = None
) -> tuple[str, list[tuple[str, bytes]]]:
    """Runs one scenario as run_json does; also returns its packet captures as (file name, pcap bytes)."""

def estimate_json(config_json: str) -> tuple[float, float]:
    """A scenario's estimated (events, trace rows); raises ConfigError as validate_json does."""

def resolved_json(config_json: str) -> str:
    """Per flow: its name, kind, profile, and its resolved TCP parameters, congestion control and slow start
    written out in full, as typed JSON (durations in ns, unset values null)."""

def validate_json(config_json: str) -> None:
    """Checks a scenario (JSON) without running it; raises ConfigError."""

def run_json_timed(config_json: str) -> tuple[str, float, float]:
    """Runs one scenario; returns (results JSON, build wall seconds, run wall seconds)."""

def algorithms_json() -> str:
    """The registry's algorithms: ``{"cc": [[name, {parameter: default}], ...], "slow_start": [...]}``."""

def tables_json(results_json: str) -> str:
    """Every result table of a run (results JSON): ``[{"name", "columns": [{"name", "type", "nullable",
    "values"}]}]``."""

def engine_id() -> str:
    """The engine's identity: a hash of the sources it was built from (crates/mpsim-core/build.rs)."""
