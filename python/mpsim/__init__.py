"""mpsim: a fast, deterministic packet-level simulator of multipath TCP congestion control.

The engine is Rust (``mpsim._core``); this package describes scenarios, runs them, and turns results
into Arrow tables, sweeps and plots.
"""

from mpsim._core import ConfigError, InternalError
from mpsim._core import __version__ as __version__
from mpsim.engine import Results, run_config, validate_config

__all__ = ["ConfigError", "InternalError", "Results", "run_config", "validate_config"]
