"""mpsim: a fast, deterministic packet-level simulator of multipath TCP congestion control.

The engine is Rust (``mpsim._core``); this package describes scenarios, runs them, and turns results
into Arrow tables, sweeps and plots.

The names below are imported when first used (PEP 562), so that ``import mpsim`` and a command that
needs none of them (``mpsim --help``) do not pay for pydantic's scenario model or Arrow.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mpsim._core import ConfigError, InternalError, PluginError, TimeLimitError
from mpsim._core import __version__ as __version__

if TYPE_CHECKING:
    from mpsim.engine import Results, estimate_config, run_config, validate_config
    from mpsim.errors import Problem, ScenarioError
    from mpsim.fingerprint import engine_id
    from mpsim.scenario import Scenario, load, run
    from mpsim.topologies import dumbbell, fat_tree, non_shared, parallel_links, shared_bottleneck, triangle

_LAZY = {
    "mpsim.engine": ("Results", "estimate_config", "run_config", "validate_config"),
    "mpsim.errors": ("Problem", "ScenarioError"),
    "mpsim.fingerprint": ("engine_id",),
    "mpsim.scenario": ("Scenario", "load", "run"),
    "mpsim.topologies": ("dumbbell", "fat_tree", "non_shared", "parallel_links", "shared_bottleneck", "triangle"),
}
_MODULE_OF = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'mpsim' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})


__all__ = [
    "ConfigError",
    "InternalError",
    "PluginError",
    "Problem",
    "Results",
    "Scenario",
    "ScenarioError",
    "TimeLimitError",
    "dumbbell",
    "engine_id",
    "estimate_config",
    "fat_tree",
    "load",
    "non_shared",
    "parallel_links",
    "run",
    "run_config",
    "shared_bottleneck",
    "triangle",
    "validate_config",
]
