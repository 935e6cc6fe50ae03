"""Sweeps: a base scenario times axes, named variants and seeds, run in parallel into a resumable store.

A sweep file::

    base = "css_shared_bottleneck.toml"   # a scenario file (relative to this one) or a [base] table
    seeds = [1, 2, 3]                      # or: runs = 10 (seeds 1..10)

    [axes]                                 # every combination of the values is a point
    "topology.buffer" = ["20pkt", "47pkt", "100pkt"]

    [variants.MPTCP]                       # each variant sets several fields
    "flows.short.slow_start" = "standard"
    [variants.CSS]
    "flows.short.slow_start" = "css"

Dotted paths address scenario fields; list items are picked by index or by ``name``
(``flows.short.size``). Each point's rows come from an extractor (``Results, core config ->
rows``), by default :func:`flow_metrics`; an experiment passes its own to :func:`run_sweep`.
"""

from __future__ import annotations

import copy
import gc
import hashlib
import importlib
import itertools
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Annotated, Any, Literal

import pyarrow as pa
from pydantic import Field, PrivateAttr, ValidationError, model_validator

from mpsim._core import ConfigError, TimeLimitError
from mpsim._types import Model
from mpsim.engine import Results, run_config
from mpsim.errors import Problem, ScenarioError, problems_from_validation
from mpsim.fingerprint import code_fingerprint, engine_id
from mpsim.scenario import Scenario, read_toml
from mpsim.store import RunStore
from mpsim.tcp_options import flow_mss

__all__ = [
    "Extractor",
    "Outcome",
    "Point",
    "SweepFailed",
    "SweepSpec",
    "flow_metrics",
    "load_sweep",
    "random_elements",
    "run_points",
    "run_sweep",
    "seed_warning",
    "set_path",
]

Extractor = Callable[[Results, Mapping[str, Any]], list[dict[str, Any]] | dict[str, Any]]
"""Maps one run's results (and its core configuration) to one row or a list of rows."""


def _mss(cfg: Mapping[str, Any], name: str) -> int:
    for f in [*cfg.get("tcp_flows", []), *cfg.get("mptcp_connections", [])]:
        if name == f["name"] or name.startswith(f"{f['name']}#"):
            return flow_mss(f.get("tcp", {}))
    return flow_mss({})


def flow_metrics(results: Results, config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The default extractor: one row per TCP flow and MPTCP connection of the run.

    ``flow``, ``kind``, ``fct_s`` (NaN when unfinished), ``retransmissions`` (fast + timeout),
    ``rto_count``, ``sum_cwnd_pkts`` (summed over subflows, at completion for MPTCP, else at the
    end of the run, in segments of the flow's MSS), ``goodput_mbps`` (the flows table's: bytes delivered in
    order over the time the flow was active, to the end of the run for a flow that did not complete).
    """
    rows = []
    completion = {c["name"]: c.get("sum_cwnd_bytes_at_completion") for c in results.raw["mptcp_connections"]}
    for r in results.flows.to_pylist():
        cwnd = completion.get(r["name"]) or r["cwnd_bytes_at_end"]
        fct = r["fct_s"]
        rows.append(
            {
                "flow": r["name"],
                "kind": r["kind"],
                "fct_s": float("nan") if fct is None else float(fct),
                "retransmissions": int(r["retransmissions"]),
                "rto_count": int(r["rto_count"]),
                "sum_cwnd_pkts": cwnd / _mss(config, r["name"]),
                "goodput_mbps": float("nan") if r["goodput_mbps"] is None else float(r["goodput_mbps"]),
            }
        )
    return rows


# ---------------------------------------------------------------------------------------------- paths


def _flatten(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"flows": {"short": {"cc": "lia"}}}`` (TOML's unquoted dotted keys) → ``{"flows.short.cc": "lia"}``."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        path = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict) and v and not any(key in v for key in ("type", "preset", "uniform")):
            out.update(_flatten(v, path))
        else:
            out[path] = v
    return out


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Sets ``value`` at a dotted ``path`` of a scenario's dict form, in place.

    A list item is named by its index or by its ``name``; a string met on the way (``cc = "lia"``)
    becomes ``{type = "lia"}`` so that ``flows.short.cc.beta`` can be set.
    """
    parts = path.split(".")
    node: Any = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        where = ".".join(parts[: i + 1])
        if isinstance(node, list):
            idx = next((j for j, item in enumerate(node) if isinstance(item, dict) and item.get("name") == part), None)
            if idx is None and part.isdigit() and int(part) < len(node):
                idx = int(part)
            if idx is None:
                names = [str(item.get("name")) for item in node if isinstance(item, dict)]
                raise KeyError(f"{where}: no item named '{part}' (known: {', '.join(names)})")
            if last:
                node[idx] = value
                return
            if isinstance(node[idx], str):
                node[idx] = {"type": node[idx]}
            node = node[idx]
        elif isinstance(node, dict):
            if last:
                node[part] = value
                return
            child = node.get(part)
            if child is None:
                child = node[part] = {}
            elif isinstance(child, str):
                child = node[part] = {"type": child}
            node = child
        else:
            raise KeyError(f"{where}: cannot set a field inside {node!r}")


# ---------------------------------------------------------------------------------------------- spec


class SweepSpec(Model):
    """A sweep: a base scenario, axes of values, named variants and seeds."""

    base: dict[str, Any]
    """The base scenario in its dict (TOML) form."""
    axes: dict[str, list[Any]] = {}
    """Dotted path → values; every combination is a point."""
    variants: dict[str, dict[str, Any]] = {}
    """Name → {dotted path: value}; none means one variant named ``base``."""
    seeds: list[Annotated[int, Field(ge=0, lt=2**64)]] | None = None
    runs: int | None = Field(None, ge=1, le=1_000_000)
    """Seeds 1..runs (when ``seeds`` is not given)."""
    extract: str | None = None
    """Extractor as ``"module:function"``; :func:`flow_metrics` when left out."""
    _files_from: Path | None = PrivateAttr(default=None)
    """The directory the base scenario's relative file names (link traces) are read from."""

    @model_validator(mode="before")
    @classmethod
    def _flatten_variants(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if isinstance(data.get("variants"), dict):
                data["variants"] = {k: _flatten(v) if isinstance(v, dict) else v for k, v in data["variants"].items()}
            if isinstance(data.get("axes"), dict):
                axes: dict[str, Any] = {}
                for k, v in data["axes"].items():
                    axes.update(_flatten({k: v}) if isinstance(v, dict) else {k: v})
                data["axes"] = axes
        return data

    @model_validator(mode="after")
    def _check(self) -> SweepSpec:
        if self.seeds is not None and self.runs is not None:
            raise ValueError("give either seeds or runs, not both")
        for name, values in self.axes.items():
            if not values:
                raise ValueError(f"axis '{name}' has no values")
        return self

    @property
    def seed_list(self) -> list[int]:
        if self.seeds is not None:
            return list(self.seeds)
        return list(range(1, (self.runs or 1) + 1))

    @property
    def variant_names(self) -> list[str]:
        return list(self.variants) or ["base"]

    def points(self) -> Iterator[Point]:
        """Every (variant, axis values, seed), variants outermost, seeds innermost."""
        names = list(self.axes)
        for variant in self.variant_names:
            for combo in itertools.product(*(self.axes[n] for n in names)):
                for seed in self.seed_list:
                    yield Point(variant, dict(zip(names, combo, strict=True)), seed)

    def scenario(self, point: Point) -> Scenario:
        """The point's scenario; a :class:`ScenarioError` names the variant and axis values at fault."""
        data = copy.deepcopy(self.base)
        where = f"variants.{point.variant}" if self.variants else "base"
        try:
            for path, value in self.variants.get(point.variant, {}).items():
                set_path(data, path, copy.deepcopy(value))
            for path, value in point.axes.items():
                set_path(data, path, copy.deepcopy(value))
        except KeyError as e:
            raise ScenarioError([Problem(where, str(e.args[0]))]) from None
        try:
            return Scenario.from_dict(data, base_dir=self._files_from)
        except ScenarioError as e:
            label = ", ".join([where, *(f"{k} = {v!r}" for k, v in point.axes.items())])
            raise ScenarioError([Problem(f"{p.path} (at {label})", p.message) for p in e.problems]) from None


@dataclass(frozen=True)
class Point:
    variant: str
    axes: dict[str, Any]
    seed: int


def load_sweep(path: str | Path) -> SweepSpec:
    """Reads a sweep file; ``base`` may name a scenario file relative to it."""
    data = read_toml(path)
    base = data.get("base")
    files_from = Path(path).parent
    if isinstance(base, str):
        data["base"] = read_toml(files_from / base)
        files_from = (files_from / base).parent
    try:
        spec = SweepSpec.model_validate(data)
    except ValidationError as e:
        raise ScenarioError(problems_from_validation(e, SweepSpec)) from None
    spec._files_from = files_from
    return spec


# ---------------------------------------------------------------------------------------------- running


def _extractor(spec: SweepSpec, extract: Extractor | None) -> Extractor:
    if extract is not None:
        return extract
    if spec.extract is None:
        return flow_metrics
    module, _, name = spec.extract.partition(":")
    try:
        fn: Extractor = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as e:
        raise ScenarioError([Problem("extract", f"cannot import {spec.extract!r}: {e}")]) from None
    return fn


def _extractor_name(fn: Extractor) -> str:
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"


def run_key(config: Mapping[str, Any], extractor: Extractor) -> str:
    """Hash of a run's fully resolved core configuration (seed included), of the engine that runs it
    (:func:`~mpsim.fingerprint.engine_id`) and of the extractor's code
    (:func:`~mpsim.fingerprint.code_fingerprint`): a rebuilt engine or an edited extractor runs again."""
    text = json.dumps(
        {
            "config": config,
            "engine": engine_id(),
            "extract": _extractor_name(extractor),
            "extract_code": code_fingerprint(extractor),
        },
        sort_keys=True,
        allow_nan=False,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def execute(config: Mapping[str, Any], extractor: Extractor, time_limit: float | None = None) -> pa.Table:
    """Runs one configuration and returns the extracted rows (what a worker does); a run longer than
    ``time_limit`` wall seconds raises :class:`mpsim.TimeLimitError`."""
    res = run_config(config, time_limit=time_limit)
    rows = extractor(res, config)
    return pa.Table.from_pylist([rows] if isinstance(rows, dict) else rows)


def random_elements(scenario: Scenario) -> list[str]:
    """What draws on a run's seed in a scenario: random start times, random loss, RED's random drops, a link's
    jitter, random on/off periods of UDP sources, random gaps between the flows of a sequence and the phase of
    the receiver's timestamp clock of an MPTCP connection with Linux's receive window. Without any, every seed
    gives the same run."""
    from mpsim.scenario import UniformStart
    from mpsim.tcp_options import default_profile, profile_params

    config = scenario.to_core()
    found = [f"random start of {f.name}" for f in scenario.flows if isinstance(f.start, UniformStart)]
    for link in config["links"]:
        loss = link.get("loss") or {"type": "none"}
        if loss["type"] != "none" and any(v for k, v in loss.items() if k != "type"):
            found.append(f"random loss on {link['name']}")
        if (link.get("queue") or {}).get("type") == "red":
            found.append(f"RED drops on {link['name']}")
        if link.get("jitter_ns"):
            found.append(f"jitter on {link['name']}")
    found += [f"random on/off periods of {f['name']}" for f in config["udp_flows"] if f["pattern"]["type"] == "on_off"]
    found += [
        f"random gaps of the sequence {f['name']}"
        for f in config["tcp_flows"]
        if f.get("sequence", {}).get("gap_distribution", {}).get("type", "constant") != "constant"
    ]
    for c in config["mptcp_connections"]:
        tcp = c.get("tcp") or {}
        window = (
            tcp.get("mptcp_rcv_window") or profile_params(tcp.get("profile", default_profile()))["mptcp_rcv_window"]
        )
        if window == "linux" and c.get("rcv_buffer_bytes") is None:
            found.append(f"the receiver's timestamp clock of {c['name']}")
    return found


def seed_warning(spec: SweepSpec, table: pa.Table) -> str | None:
    """What to tell the reader of a sweep whose seeds gave identical results at some points (None if they did
    not): where, why it is likely (the scenario there has no random element, or its random elements changed
    nothing) and how to add randomness."""
    from mpsim.store import identical_seed_points, identical_seeds_text

    axes = list(spec.axes)
    where = identical_seeds_text(table, axes)
    if where is None:
        return None
    identical = identical_seed_points(table, axes)
    points = list(spec.points())
    first = next((p for p in points if _label(p, axes) == identical[0]), points[0])
    elements = random_elements(spec.scenario(first))
    why = (
        f"its random elements ({', '.join(elements)}) changed nothing there"
        if elements
        else "the scenario has no random element (fixed start times, no random loss, no random traffic)"
    )
    return f"warning: {where}: {why}. {ONE_VALUE_EACH}"


ONE_VALUE_EACH = (
    "Each such point holds one value (n = 1; n_distinct = 1 in results.csv), however many seeds ran, and no "
    "confidence interval can be drawn from it. To vary the runs, give flows a random start (start = { uniform = "
    '["0s", "1s"] }) or links random loss (loss = "0.1%") (docs/scenarios.md, Seeds and randomness).'
)
"""The end of the warnings about seeds that gave identical results: what it means and how to add randomness."""


def _label(point: Point, axes: Sequence[str]) -> str:
    """A point as :func:`~mpsim.store.identical_seed_points` names it."""
    return ", ".join([point.variant, *(f"{a} = {point.axes[a]!r}" for a in axes)])


class SweepFailed(RuntimeError):
    """Some runs of a sweep failed or passed their time limit; the others are stored."""


@dataclass(frozen=True)
class Outcome:
    """How a run that stored no rows ended: ``failed`` (the error) or ``timed_out`` (where it stopped)."""

    kind: Literal["failed", "timed_out"]
    message: str

    @staticmethod
    def of(error: BaseException) -> Outcome:
        if isinstance(error, TimeLimitError):
            return Outcome("timed_out", str(error))
        return Outcome("failed", f"{type(error).__name__}: {error}")


def execute_chunk(
    configs: list[Mapping[str, Any]], extractor: Extractor, time_limit: float | None = None
) -> list[pa.Table | Outcome]:
    """Runs a chunk of configurations (what a Dask worker does); per configuration its rows, or how it
    ended without rows."""
    results: list[pa.Table | Outcome] = []
    for config in configs:
        try:
            results.append(execute(config, extractor, time_limit))
        except Exception as e:
            results.append(Outcome.of(e))
    return results


def execute_and_store(
    out: str,
    tasks: list[_Task],
    extractor: Extractor,
    axes: list[str],
    time_limit: float | None = None,
    hand_back: bool = False,
) -> list[pa.Table | Outcome | None]:
    """Runs a chunk of tasks and writes each one's rows to the store under ``out`` as it finishes (what a
    local worker does, so that writing the store is spread over the workers as the runs are). Returns, per
    task, ``None`` or how it ended without rows. With ``hand_back``, a run whose rows cannot be written (an
    ``OSError``), and every run after it, gives its rows instead, for the caller to store."""
    store = RunStore(out)
    writing = True
    results: list[pa.Table | Outcome | None] = []
    for task in tasks:
        try:
            table = execute(task.config, extractor, time_limit)
        except Exception as e:
            results.append(Outcome.of(e))
            continue
        if writing:
            try:
                store.write(task.key, _columns(table, task, axes))
            except Exception as e:
                if not (hand_back and isinstance(e, OSError)):
                    results.append(Outcome.of(e))
                    continue
                writing = False
            else:
                results.append(None)
                continue
        results.append(table)
    return results


def execute_chunk_into(
    out: str,
    identity: str,
    tasks: list[_Task],
    extractor: Extractor,
    axes: list[str],
    time_limit: float | None = None,
) -> list[pa.Table | Outcome | None]:
    """What a Dask worker does with a chunk of runs. A worker that sees the sweep's store (``out`` holds the
    store named ``identity`` and it may write there) writes each run's rows itself, as a local worker does,
    and gives ``None`` for the run; one that does not, or whose write fails, gives the rows back for the
    client to store. A run that ends without rows gives its :class:`Outcome`."""
    if RunStore(out).is_store(identity):
        return execute_and_store(out, tasks, extractor, axes, time_limit, hand_back=True)
    return execute_chunk([t.config for t in tasks], extractor, time_limit)


def die_with_parent(parent_pid: int) -> None:
    """Pool worker initializer: the worker gets SIGKILL when its parent dies, however it dies (SIGKILL
    included), so that a killed sweep leaves no worker behind (Linux ``PR_SET_PDEATHSIG``; elsewhere
    workers notice the parent is gone only when they next talk to it)."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1  # <linux/prctl.h>
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    # The parent may have died before the request took effect.
    if os.getppid() != parent_pid:
        os._exit(1)


@dataclass
class _Task:
    key: str
    config: dict[str, Any]
    point: Point


def _columns(table: pa.Table, task: _Task, axes: list[str]) -> pa.Table:
    n = table.num_rows
    meta = {"key": task.key, "variant": task.point.variant}
    meta.update({a: axis_text(task.point.axes[a]) for a in axes})
    cols: dict[str, Any] = {k: pa.array([v] * n, pa.string()) for k, v in meta.items()}
    cols["seed"] = pa.array([task.point.seed] * n, pa.int64())
    for c in table.column_names:
        if c not in cols:
            cols[c] = table.column(c)
    return pa.table(cols)


def axis_text(value: Any) -> str:
    """How the store keeps an axis value: a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def run_sweep(
    spec: SweepSpec | str | Path,
    out: str | Path,
    *,
    jobs: int | None = None,
    executor: Literal["local", "dask"] = "local",
    scheduler: str | None = None,
    extract: Extractor | None = None,
    progress: bool = True,
    time_limit: float | None = None,
) -> pa.Table:
    """Runs every point not yet in the store under ``out``, writing each as it finishes.

    ``jobs`` processes run locally (all cores by default); ``executor="dask"`` sends runs to the
    Dask scheduler at ``scheduler``. Returns the store's rows (also written to
    ``out/results.parquet``). A sweep interrupted at any moment resumes where it stopped. A run
    longer than ``time_limit`` wall seconds is stopped and recorded under ``out/timed_out``; a
    resumed sweep tries it again.
    """
    if not isinstance(spec, SweepSpec):
        spec = load_sweep(spec)
    fn = _extractor(spec, extract)
    axes = list(spec.axes)

    points: list[tuple[Point, dict[str, Any]]] = []
    problems: list[Problem] = []
    # Every point is checked before the first run, once whatever its seeds (a seed changes no setting).
    checked: dict[str, Scenario] = {}
    for point in spec.points():
        key = json.dumps([point.variant, point.axes], sort_keys=True, default=repr)
        try:
            if key not in checked:
                checked[key] = spec.scenario(point)
            points.append((point, checked[key].to_core(point.seed)))
        except ScenarioError as e:
            problems += [p for p in e.problems if p not in problems]
    if problems:
        raise ScenarioError(problems)
    return run_points(
        points,
        out,
        axes=axes,
        variants=spec.variant_names,
        extract=fn,
        jobs=jobs,
        executor=executor,
        scheduler=scheduler,
        progress=progress,
        time_limit=time_limit,
        typed_axes=True,
        seed_counts=True,
    )


def run_points(
    points: Sequence[tuple[Point, Mapping[str, Any]]],
    out: str | Path,
    *,
    axes: Sequence[str],
    variants: Sequence[str],
    extract: Extractor,
    jobs: int | None = None,
    executor: Literal["local", "dask"] = "local",
    scheduler: str | None = None,
    progress: bool = True,
    on_run: Callable[[str], None] | None = None,
    pool: bool = False,
    time_limit: float | None = None,
    typed_axes: bool = False,
    seed_counts: bool = False,
) -> pa.Table:
    """Runs every (point, core configuration) not yet in the store under ``out`` and returns the
    store's rows for these points. What :func:`run_sweep` does once it has resolved its scenarios;
    the experiment catalogue calls it with configurations it builds itself. ``on_run`` is called with
    each finished run's key; ``pool`` runs even a single worker in a separate process (one worker
    otherwise runs in this process), which is what a measurement of scaling compares against.
    ``typed_axes``: the rows (and ``results.parquet``) keep the axis values' types, with their values in
    base units beside them (:meth:`RunStore.results`); otherwise each axis value is its text. ``seed_counts``:
    the rows also say how many seeds ran at their point and how many distinct results these gave
    (:data:`~mpsim.store.SEED_COLUMNS`)."""
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ConfigError(f"jobs: must be a whole number of processes >= 1, got {jobs!r}")
    if time_limit is not None and not (isinstance(time_limit, int | float) and 0 < time_limit < 1e9):
        raise ConfigError(f"time_limit: must be a positive number of seconds, got {time_limit!r}")
    store = RunStore(out)
    fn = extract
    tasks = [_Task(run_key(cfg, fn), dict(cfg), point) for point, cfg in points]
    store.prepare()
    store.write_manifest(
        {
            "engine": engine_id(),
            "extractor": {"name": _extractor_name(fn), "code": code_fingerprint(fn)},
            "axes": list(axes),
            "variants": list(variants),
            "points": [
                {
                    "key": t.key,
                    "variant": t.point.variant,
                    "seed": t.point.seed,
                    "axes": {a: t.point.axes[a] for a in axes},
                }
                for t in tasks
            ],
        }
    )
    # The configurations are many small dicts that live until the end: keep them out of the cyclic
    # garbage collector's full passes, which otherwise rescan them again and again as runs finish.
    gc.freeze()
    done = store.drop_unreadable(store.done() & {t.key for t in tasks})
    todo: dict[str, _Task] = {}
    for t in tasks:
        if t.key not in done and t.key not in todo:
            todo[t.key] = t
    runner = _Runner(store, fn, list(axes), progress, len(tasks), on_run, time_limit)
    runner.run_all(list(todo.values()), jobs, executor, scheduler, pool)
    table = store.consolidate(typed=typed_axes, seed_counts=seed_counts)
    problems = [f"failed: {m}" for m in runner.failures] + [f"timed out: {m}" for m in runner.timeouts]
    if problems:
        shown = "\n".join(problems[:10]) + (f"\n... and {len(problems) - 10} more" if len(problems) > 10 else "")
        counts = f"{len(runner.failures)} run(s) failed and {len(runner.timeouts)} passed the time limit"
        where = f"the others are stored in {store.out} (timed-out runs in {store.timeouts})"
        raise SweepFailed(f"{counts}; {where}:\n{shown}")
    return table


def _progress(enabled: bool) -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("runs"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not enabled,
    )


class _Runner:
    """Runs tasks on an executor, storing each finished run's rows (or its time-out) as it comes in."""

    def __init__(
        self,
        store: RunStore,
        fn: Extractor,
        axes: list[str],
        progress: bool,
        total: int,
        on_run: Callable[[str], None] | None,
        time_limit: float | None,
    ) -> None:
        self.store, self.fn, self.axes, self.progress, self.total = store, fn, axes, progress, total
        self.on_run, self.time_limit = on_run, time_limit
        self.failures: list[str] = []
        self.timeouts: list[str] = []

    def run_all(self, todo: list[_Task], jobs: int | None, executor: str, scheduler: str | None, pool: bool) -> None:
        if not todo:
            return
        with _progress(self.progress) as bar:
            self.bar = bar
            self.bar_task = bar.add_task(
                f"sweep ({self.total - len(todo)} of {self.total} stored before)", total=len(todo)
            )
            if executor == "dask":
                self.run_dask(todo, scheduler)
            elif executor == "local":
                self.run_local(todo, jobs, pool)
            else:
                raise ConfigError(f"executor: unknown executor {executor!r} (allowed: local, dask)")

    def finished(self, t: _Task, table: pa.Table | None, outcome: Outcome | None) -> None:
        """``table`` is None when a worker has stored the rows itself, or when ``outcome`` says why there
        are none."""
        if outcome is not None and outcome.kind == "timed_out":
            self.timeouts.append(f"{t.point}: {outcome.message}")
            record = {"key": t.key, "variant": t.point.variant, "seed": t.point.seed, "stopped": outcome.message}
            record |= {"axes": {a: axis_text(t.point.axes[a]) for a in self.axes}, "time_limit_s": self.time_limit}
            self.store.write_timeout(t.key, record)
        elif outcome is not None:
            self.failures.append(f"{t.point}: {outcome.message}")
        else:
            if table is not None:
                self.store.write(t.key, _columns(table, t, self.axes))
            self.store.clear_timeout(t.key)
        self.bar.advance(self.bar_task)
        if self.on_run is not None:
            self.on_run(t.key)

    def run_local(self, todo: list[_Task], jobs: int | None, pool: bool) -> None:
        workers = max(1, min(jobs or os.cpu_count() or 1, len(todo)))
        if workers == 1 and not pool:
            for t in todo:
                try:
                    table = execute(t.config, self.fn, self.time_limit)
                except Exception as e:
                    self.finished(t, None, Outcome.of(e))
                else:
                    self.finished(t, table, None)
            return
        out = str(self.store.out)
        executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=get_context("spawn"), initializer=die_with_parent, initargs=(os.getpid(),)
        )
        try:
            # Small chunks keep both workers busy to the end while sparing most of the per-task messaging.
            size = max(1, min(16, len(todo) // (workers * 8)))
            chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
            futures: dict[Future[list[Outcome | None]], list[_Task]] = {
                executor.submit(execute_and_store, out, chunk, self.fn, self.axes, self.time_limit): chunk
                for chunk in chunks
            }
            for fut in as_completed(futures):
                chunk = futures[fut]
                error = fut.exception()
                if error is not None:
                    self.chunk_failed(chunk, error)
                    continue
                for t, result in zip(chunk, fut.result(), strict=True):
                    self.settle(t, result)
        except BaseException:
            # Ctrl-C or an error: stop the runs under way instead of waiting for them (a store file is
            # written whole or not at all) and drop the queued ones.
            for process in list(getattr(executor, "_processes", {}).values()):
                process.terminate()
            executor.shutdown(wait=True, cancel_futures=True)
            raise
        executor.shutdown(wait=True)

    def run_dask(self, todo: list[_Task], scheduler: str | None) -> None:
        if not scheduler:
            raise ConfigError(
                "scheduler: the dask executor needs the scheduler's address (--scheduler tcp://host:8786)"
            )
        from distributed import Client
        from distributed import as_completed as dask_completed

        try:
            client = Client(scheduler, timeout=DASK_CONNECT_TIMEOUT_S)  # type: ignore[no-untyped-call]
        except (OSError, ValueError, TypeError) as e:
            raise ConfigError(
                f"scheduler: cannot reach a Dask scheduler at {scheduler!r} "
                f"within {DASK_CONNECT_TIMEOUT_S} s ({type(e).__name__}: {e})"
            ) from None
        with client:
            # Runs of a few milliseconds each would spend most of their time in Dask's per-task messaging
            # (measured: 1 worker at 32 runs/s, 2 workers no faster): send them in chunks, as the local pool
            # does, small enough to keep every worker busy to the end.
            workers = max(1, len(client.scheduler_info().get("workers", {})))
            size = max(1, min(16, len(todo) // (workers * 8)))
            chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
            # Workers that share the store's file system write their runs' rows themselves; the client
            # stores the rest. (Storing every run in the client capped two local workers at 1.1-1.3x one.)
            # The identity is new for each sweep, and so are the task names: a copy of the store made
            # earlier is never taken for it, and two sweeps of the same runs on one cluster do not share
            # tasks (Dask runs a task once per name), each storing its own.
            out, identity = str(self.store.out.resolve()), self.store.new_identity()
            stored_by_workers: list[_Task] = []
            futures = {
                client.submit(
                    execute_chunk_into,
                    out,
                    identity,
                    chunk,
                    self.fn,
                    self.axes,
                    self.time_limit,
                    key=f"mpsim-runs-{identity}-{chunk[0].key}-{len(chunk)}",
                    pure=False,
                ): chunk
                for chunk in chunks
            }
            for fut in dask_completed(list(futures)):  # type: ignore[no-untyped-call]
                chunk = futures[fut]
                try:
                    results = fut.result()
                except Exception as e:
                    self.chunk_failed(chunk, e)
                    continue
                for t, result in zip(chunk, results, strict=True):
                    self.settle(t, result)
                    if result is None:
                        stored_by_workers.append(t)
            self.confirm_stored(stored_by_workers)

    def settle(self, t: _Task, result: pa.Table | Outcome | None) -> None:
        """Records a run by what its worker gave back: its rows to store, how it ended without rows, or
        ``None`` when the worker stored the rows itself."""
        if isinstance(result, Outcome):
            self.finished(t, None, result)
        else:
            self.finished(t, result, None)

    def chunk_failed(self, chunk: list[_Task], error: BaseException) -> None:
        """A chunk of runs ended in an error of its own (its worker died, say): the runs it had stored
        before count as stored, the others as failed."""
        for t in chunk:
            if self.store.path(t.key).is_file():
                self.finished(t, None, None)
            else:
                self.finished(t, None, Outcome.of(error))

    def confirm_stored(self, tasks: list[_Task]) -> None:
        """Runs that workers reported stored must be in this store; any that is not (a worker wrote into a
        directory of its own that passed for the store) is a failure, run again by a resumed sweep."""
        for t in tasks:
            if not self.store.path(t.key).is_file():
                self.failures.append(
                    f"{t.point}: a Dask worker reported it stored, but it is not in {self.store.out}: "
                    "the worker wrote it into a directory of its own at that path"
                )


DASK_CONNECT_TIMEOUT_S = 10
"""How long a sweep waits for the Dask scheduler before it gives up with a message."""
