"""mpsim: a fast, deterministic packet-level simulator of multipath TCP congestion control.

The engine is Rust (``mpsim._core``); this package describes scenarios, runs them, and turns results
into Arrow tables, sweeps and plots.
"""

from mpsim._core import ConfigError, InternalError, PluginError, TimeLimitError
from mpsim._core import __version__ as __version__
from mpsim.engine import Results, estimate_config, run_config, validate_config
from mpsim.errors import Problem, ScenarioError
from mpsim.fingerprint import engine_id
from mpsim.scenario import Scenario, load, run
from mpsim.topologies import dumbbell, fat_tree, non_shared, parallel_links, shared_bottleneck, triangle

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
