"""Your own algorithm in Python: a congestion control, a slow start or a packet scheduler, run by the engine
without a rebuild (docs/plugins.md).

Subclass :class:`CongestionControl` (after Linux's ``tcp_congestion_ops``), :class:`SlowStart` (the hook
LISA, CSS and GSAM use) or :class:`Scheduler` (after ``mptcp_sched_ops``), override the hooks you need, and
name the class in a scenario: ``cc = {type = "python", class = "path/to/file.py:Class", <params>}`` (or
``"package.module:Class"``), the same for ``slow_start`` and ``scheduler``, or pass the class itself from
Python. Parameters are the class's annotated attributes, with their defaults; a scenario's values are
checked against them like every other field, and can be swept.

A hook sees subflows as views (:class:`Subflow`) that read the engine's state in place while the hook runs:
windows in bytes, times in integer nanoseconds (:func:`seconds` turns them into floats). A hook changes a
window by setting ``sf.cwnd`` or ``sf.ssthresh``; a value that is not a number of bytes is refused where it
is set. An exception in a hook ends the run with a :class:`PluginError` whose cause is the exception, with
its traceback. Each instance serves one connection; ``self.rng`` is its own stream of the run's seeded
random numbers, so the same scenario and seed give the same results.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from mpsim._core import ConfigError, PluginError, SchedulerSubflow, Segment, Subflow

__all__ = [
    "CongestionControl",
    "PluginError",
    "Scheduler",
    "SchedulerSubflow",
    "Segment",
    "SlowStart",
    "Subflow",
    "class_spec",
    "load_class",
    "params_model",
    "seconds",
    "source_fingerprint",
]

NS_PER_S = 1_000_000_000


def seconds(ns: int) -> float:
    """A time or duration of the engine (integer nanoseconds) in seconds."""
    return ns / NS_PER_S


class Plugin:
    """What every plug-in has. Parameters are the annotated class attributes a subclass adds, each with its
    default; a scenario's values are set on the instance before ``__init__`` runs (which takes no
    argument and is the place for per-connection state)."""

    KIND: ClassVar[str] = "plug-in"
    rng: random.Random
    """The instance's own random stream, derived from the run's seed (never the wall clock)."""
    ack_counting: str
    """How the flow's profile counts ACKs: ``"bytes"`` (RFC 3465) or ``"per_ack"`` (ns-3, the MPTCP kernel)."""


class CongestionControl(Plugin):
    """A congestion control, single-path or coupled (Linux's ``tcp_congestion_ops``). The engine calls
    :meth:`cong_avoid` for every ACK outside slow start and recovery, :meth:`ssthresh` at each loss (fast
    retransmit or timeout), and the event hooks. A hook left as it is here runs in the engine itself:
    Reno's increase and halving."""

    KIND: ClassVar[str] = "congestion control"

    def cong_avoid(self, sf: Subflow, acked: int, now: int) -> None:
        """``acked`` bytes were newly acknowledged on ``sf`` outside slow start (what slow start left over)
        while the window limited the sender; grow ``sf.cwnd``. Other subflows: ``sf.connection``.
        Here: Reno (RFC 5681 §3.1), counting as the profile does (:attr:`Plugin.ack_counting`)."""
        mss = sf.mss
        if self.ack_counting == "per_ack":
            sf.cwnd += max(mss * mss // sf.cwnd, 1)
            return
        sf.ca_credit += acked
        if sf.ca_credit >= sf.cwnd:
            sf.ca_credit -= sf.cwnd
            sf.cwnd += mss

    def ssthresh(self, sf: Subflow, now: int) -> int:
        """The new ssthresh, bytes, at a loss on ``sf`` (the window is set from it by the engine's
        recovery). ``sf.bytes_in_flight`` is what the profile halves. Here: RFC 5681 eq. (4)."""
        return max(sf.bytes_in_flight // 2, 2 * sf.mss)

    def on_recovery_exit(self, sf: Subflow, now: int) -> None:
        """``sf`` has left fast recovery (cwnd is already ssthresh)."""

    def on_timeout(self, sf: Subflow, now: int) -> None:
        """``sf`` had a retransmission timeout (after :meth:`ssthresh`; cwnd is one segment)."""

    def on_subflows_changed(self, subflows: Sequence[Subflow]) -> None:
        """A subflow joined or left the connection (read only)."""


class SlowStart(Plugin):
    """A slow start shared by a connection's subflows (the hook of LISA, CSS and GSAM). The engine calls
    :meth:`on_ack` while ``sf.cwnd < sf.ssthresh``; the bytes it returns go on to congestion avoidance.
    Left as it is here, ``on_ack`` runs in the engine: the profile's standard slow start."""

    KIND: ClassVar[str] = "slow start"
    abc_limit_mss: int | None
    """The profile's RFC 3465 limit L on the bytes one ACK counts, in MSS (None: no limit)."""

    def on_ack(self, sf: Subflow, acked: int, now: int) -> int | None:
        """Grow ``sf.cwnd`` for ``acked`` new bytes; return the bytes left for congestion avoidance (None
        for 0). Leave slow start by setting ``sf.ssthresh``. Here: RFC 5681 with RFC 3465's limit."""
        mss = sf.mss
        if self.ack_counting == "per_ack":
            if acked == 0:
                return 0
            sf.cwnd += mss
            return max(acked - mss, 0)
        grow = acked if self.abc_limit_mss is None else min(acked, self.abc_limit_mss * mss)
        room = max(sf.ssthresh - sf.cwnd, 0)
        if grow <= room:
            sf.cwnd += grow
            return 0
        sf.cwnd += room
        return max(acked - room, 0)

    def on_ack_without_growth(self, sf: Subflow, now: int) -> None:
        """An ACK of new data in slow start while the window did not limit the sender (RFC 7661)."""

    def on_subflow_start(self, sf: Subflow, now: int) -> None:
        """``sf`` is about to send its first data (LISA acts here)."""

    def on_exit(self, sf: Subflow, now: int) -> None:
        """``sf`` left slow start (a loss, or ssthresh reached)."""

    def on_subflows_changed(self, subflows: Sequence[Subflow]) -> None:
        """A subflow joined or left the connection (read only)."""


class Scheduler(Plugin):
    """A packet scheduler (Linux's ``mptcp_sched_ops``): for each segment, new or reinjected, the subflow to
    send it on. Left as it is here, the engine's minimum RTT (``minrtt``) runs."""

    KIND: ClassVar[str] = "scheduler"

    def get_subflow(self, subflows: Sequence[SchedulerSubflow], segment: Segment) -> int | None:
        """The index of the subflow to send ``segment`` on (one whose ``has_room()`` is true), or None to
        wait for the next ACK. ``segment.reinjected_from`` names the subflow a reinjected segment came
        from. A class that does not define it runs the engine's ``minrtt`` (examples/plugins/minrtt.py is
        the same in Python)."""
        raise NotImplementedError(f"{type(self).__qualname__} defines no get_subflow of its own")


BASES: dict[str, type[Plugin]] = {"cc": CongestionControl, "slow_start": SlowStart, "scheduler": Scheduler}
"""The base class of each kind of plug-in, by the scenario field that names it."""
_BY_KIND = {base.KIND: base for base in BASES.values()}

# ------------------------------------------------------------------------------------------ loading

_FILES: dict[Path, Any] = {}
"""Modules loaded from files, by resolved path; a file edited since it was loaded is loaded again."""
_STAMPS: dict[Path, tuple[int, int]] = {}
"""Each loaded file's modification time and size when it was loaded."""
_SESSION: dict[str, type[Plugin]] = {}
"""Classes with no file to load them from again (defined in a notebook or an interactive session), by the
name :func:`class_spec` gave them; known to this process and the workers it forks."""


def _module_of_file(path: Path) -> Any:
    path = path.resolve()
    stat = path.stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    module = _FILES.get(path)
    if module is None or _STAMPS.get(path) != stamp:
        name = "mpsim_plugin_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ConfigError(f"cannot load {str(path)!r} as a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        _FILES[path] = module
        _STAMPS[path] = stamp
    return module


def load_class(spec: str) -> type:
    """The class ``spec`` names: ``path/to/file.py:Class`` (relative to the current directory) or
    ``package.module:Class``; raises :class:`ConfigError` saying what is wrong."""
    if spec in _SESSION:
        return _SESSION[spec]
    where, sep, qualname = spec.rpartition(":")
    if where == "<session>":
        raise ConfigError(
            f"{spec!r}: the class was defined in a notebook or an interactive session that this process cannot "
            "see; define it in a file and name it as 'path/to/file.py:Class'"
        )
    if not sep or not where or not qualname:
        raise ConfigError(f"{spec!r}: a class is named as 'path/to/file.py:Class' or 'package.module:Class'")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise ConfigError(f"{spec!r}: no file {where!r} (from {str(Path.cwd())!r})")
        module = _module_of_file(path)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as e:
            raise ConfigError(f"{spec!r}: cannot import {where!r}: {e}") from e
    obj: Any = module
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise ConfigError(f"{spec!r}: {where!r} has no class {qualname!r}")
    if not isinstance(obj, type):
        raise ConfigError(f"{spec!r}: {qualname!r} is a {type(obj).__name__}, not a class")
    return obj


def class_spec(cls: type) -> str:
    """How a scenario names ``cls``: its file and name when it was loaded from a file or defined in a
    script, its module and name when that module can be imported; else (a notebook) a name known to this
    process only."""
    module = sys.modules.get(cls.__module__)
    file = getattr(module, "__file__", None)
    loaded = next((p for p, m in _FILES.items() if m is module), None)
    if loaded is not None:
        return f"{loaded}:{cls.__qualname__}"
    if cls.__module__ != "__main__" and module is not None and "<locals>" not in cls.__qualname__:
        return f"{cls.__module__}:{cls.__qualname__}"
    if file and "<locals>" not in cls.__qualname__:
        return f"{Path(file).resolve()}:{cls.__qualname__}"
    name = f"<session>:{cls.__qualname__}"
    _SESSION[name] = cls
    return name


def check_class(cls: type, kind: str) -> type[Plugin]:
    base = BASES[kind]
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ConfigError(f"{cls!r} is not a subclass of mpsim.plugins.{base.__name__}")
    return cls


_MODELS: dict[type, type[BaseModel]] = {}


def params_model(cls: type[Plugin]) -> type[BaseModel]:
    """The parameters ``cls`` declares (annotated class attributes other than the base classes'), as a
    pydantic model that checks a scenario's values; a parameter without a default is required."""
    model = _MODELS.get(cls)
    if model is None:
        own = {}
        base_names = set(get_type_hints(Plugin)) | {"abc_limit_mss"}
        hints = get_type_hints(cls, include_extras=True)
        for name, hint in hints.items():
            if name.startswith("_") or name in base_names or getattr(hint, "__origin__", None) is ClassVar:
                continue
            default = cls.__dict__.get(name, ...) if name in cls.__dict__ else getattr(cls, name, ...)
            own[name] = (hint, default)
        config = ConfigDict(extra="forbid", strict=False)
        model = create_model(f"{cls.__qualname__}Params", __config__=config, **own)  # type: ignore[call-overload]
        _MODELS[cls] = model
    return model


def check_params(cls: type[Plugin], params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` checked against ``cls``'s declaration, every parameter with its value (JSON-ready);
    raises pydantic's ``ValidationError``."""
    model = params_model(cls)
    return model.model_validate(dict(params)).model_dump(mode="json")


def source_fingerprint(cls: type) -> str:
    """A hash of the source of the module that defines ``cls`` (of the class alone when its module has no
    file): stored results are keyed by it, so an edited plug-in runs again."""
    module = sys.modules.get(cls.__module__)
    try:
        text = inspect.getsource(module) if module is not None else inspect.getsource(cls)
    except (OSError, TypeError):
        try:
            text = inspect.getsource(cls)
        except (OSError, TypeError):
            text = cls.__qualname__
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _hooks(instance: Plugin, base: type[Plugin], names: Sequence[str]) -> list[Callable[..., Any] | None]:
    cls = type(instance)
    return [None if getattr(cls, n) is getattr(base, n) else getattr(instance, n) for n in names]


def factory(kind: str, spec: str, params: Mapping[str, Any], path: str) -> Callable[..., list[Any]]:
    """Called by the engine for each plug-in a run names (``kind`` as :attr:`Plugin.KIND`, ``path`` the
    scenario's field): the class loaded and its parameters checked, then a function of ``(seed,
    settings, hook names)`` that makes one connection's instance and returns its hooks (None for a hook
    the class does not override, which the engine then runs itself)."""
    base = _BY_KIND[kind]
    try:
        cls = check_class(load_class(spec), next(k for k, b in BASES.items() if b is base))
        values = check_params(cls, params)
    except ConfigError as e:
        raise ConfigError(f"{path}.class: {e}") from e
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{path}.{field}: {first['msg']} (a parameter of {spec})") from None

    def make(seed: int, settings: Mapping[str, Any], names: Sequence[str]) -> list[Any]:
        instance = cls.__new__(cls)
        for name, value in values.items():
            setattr(instance, name, value)
        for name, value in settings.items():
            setattr(instance, name, value)
        instance.rng = random.Random(seed)
        instance.__init__()  # type: ignore[misc]
        return _hooks(instance, base, names)

    return make
