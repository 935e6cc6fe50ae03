"""What an experiment of the catalogue is, and the pieces its scenarios are built from.

An experiment is a family of scenarios (:class:`mpsim.Scenario`) indexed by (x value, variant, run): the
paper's figure sweeps x, draws one curve per variant and averages over runs; each run is the core
configuration of its scenario (:meth:`mpsim.Scenario.to_core`). Most experiments are defined as data, a base
builder with its parameters, the one x sets and the variants' patches (:class:`Definition`). Variants are the
papers' own:

- ``tcp``: single-path TCP (Reno congestion avoidance, the experiment's loss recovery) on the first path;
- ``mptcp``: MPTCP with LIA (RFC 6356) and standard, uncoupled slow start on every subflow;
- ``lisa``, ``css``, ``gsam``: the same MPTCP with the coupled slow start of that name.

Every experiment runs all three coupled slow starts, also those its paper did not compare.

Flows are named by role so that one extractor serves every experiment: ``measured…`` are the flows
the figure reports, ``competing…`` the regular TCP flows whose fate some figures show, anything else
is background traffic.
"""

from __future__ import annotations

import dataclasses
import inspect
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mpsim.engine import Results, run_config
from mpsim.experiments.claims import Claim
from mpsim.experiments.stacks import JUDGED_ON, on_stack
from mpsim.scenario import CongestionControl, Flow, MptcpFlow, Scenario, SlowStart, TcpFlow, TcpOptions, UdpFlow
from mpsim.tcp_options import flow_mss
from mpsim.topologies import Address, DropTail, Link, LinkDirection, Loss, Network, Queue
from mpsim.units import SizeSpec

MS = 1_000_000
S = 1_000_000_000

VARIANTS: tuple[str, ...] = ("tcp", "mptcp", "lisa", "css", "gsam")
"""Every experiment's variants, in the order of the papers' legends."""

CoreConfig = dict[str, Any]

KB = 1000
"""A kilobyte as the papers count file sizes."""


def kilobytes(x: Any) -> int:
    """Bytes of ``x`` kilobytes: a :class:`Definition` axis given in KB for a parameter in bytes."""
    return int(x) * KB


@dataclass(frozen=True)
class Panel:
    """One sub-figure: a metric (a column of the results) against the experiment's x."""

    metric: str
    label: str
    log_y: bool = False


FCT = Panel("fct_s", "Completion time (s)")
RETX = Panel("retransmissions", "Retransmissions (packets)")


RUN_ARGUMENTS = ("experiment", "variant", "run")
"""What a :class:`Definition`'s base builder is told of each run besides its parameters (``experiment`` only
if it takes it: the name that salts the run's random streams)."""


@dataclass(frozen=True)
class Definition:
    """An experiment's runs as data: a base builder, its fixed parameters, the parameter the figure's x
    sets, and per variant the parameters that differ.

    The scenario of (x, variant, run) is ``base(experiment=…, variant=…, run=…, **parameters)`` where
    the parameters are ``fixed``, then ``{axis: axis_type(x)}``, then ``patches[variant]`` (later ones
    win). Every parameter must be a keyword of ``base``; ``streams`` names the experiment whose random
    draws the runs share (the experiment's own name unless given).
    """

    base: Callable[..., Scenario]
    axis: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    patches: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    axis_type: Callable[[Any], Any] = int
    streams: str | None = None

    def __post_init__(self) -> None:
        accepted = [p for p in inspect.signature(self.base).parameters if p not in RUN_ARGUMENTS]
        named = [("axis", self.axis)] + [(f"fixed[{k!r}]", k) for k in self.fixed]
        named += [(f"patches[{v!r}][{k!r}]", k) for v, patch in self.patches.items() for k in patch]
        for where, key in named:
            if key not in accepted:
                raise ValueError(
                    f"{where}: '{key}' is no parameter of {self.base.__name__}; allowed: {', '.join(accepted)}"
                )

    def parameters(self, x: Any, variant: str) -> dict[str, Any]:
        """The base builder's parameters at (x, variant)."""
        return {**self.fixed, self.axis: self.axis_type(x), **self.patches.get(variant, {})}

    def scenario(self, experiment: str, x: Any, variant: str, run: int) -> Scenario:
        """The scenario of one run of ``experiment``."""
        told: dict[str, Any] = {"variant": variant, "run": run}
        if "experiment" in inspect.signature(self.base).parameters:
            told["experiment"] = self.streams or experiment
        return self.base(**told, **self.parameters(x, variant))


@dataclass(frozen=True)
class _FromDefinition:
    """The builder of an experiment defined as data: its definition's scenario of each run."""

    definition: Definition
    name: str

    def __call__(self, x: Any, variant: str, run: int) -> Scenario:
        return self.definition.scenario(self.name, x, variant, run)


def _no_builder(x: Any, variant: str, run: int) -> Scenario:
    raise TypeError("an Experiment needs scenario or definition")


@dataclass(frozen=True)
class _OnStack:
    """The builder of an experiment whose runs are moved onto another stack than its paper's: each scenario of
    the paper's builder, moved (:func:`mpsim.experiments.stacks.on_stack`)."""

    paper: Callable[[Any, str, int], Scenario]
    stack: str

    def __call__(self, x: Any, variant: str, run: int) -> Scenario:
        return on_stack(self.paper(x, variant, run), self.stack)


@dataclass(frozen=True, kw_only=True)
class Experiment:
    """A named reproduction of one paper figure.

    ``scenario(x, variant, run)`` is the :class:`mpsim.Scenario` of one run and ``build(x, variant, run)`` its
    core configuration; runs are numbered from 1 and the same run number gives every variant the same random
    draws (start times, loss), so variants are compared under common random numbers. An experiment gives
    either ``definition``, its runs as data (:class:`Definition`, from which ``scenario`` follows), or
    ``scenario`` itself where its runs need code.
    """

    name: str
    paper: str
    figure: str
    description: str
    x_name: str
    x_label: str
    x_values: tuple[Any, ...]
    quick_x_values: tuple[Any, ...]
    panels: tuple[Panel, ...]
    scenario: Callable[[Any, str, int], Scenario] = _no_builder
    definition: Definition | None = None
    claims: tuple[str, ...] = ()
    """The paper's claims in its words; those of ``checks`` are added to them."""
    variants: tuple[str, ...] = VARIANTS
    runs: int = 10
    quick_runs: int = 3
    error_bars: str = "std"
    """What the paper's error bars show: ``std`` or ``ci95`` (95 % confidence interval of the mean)."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    stack: str | None = None
    """The stack the paper ran, by its name in :data:`mpsim.experiments.stacks.STACKS`; every flow of the
    experiment runs it."""
    trace_x: tuple[Any, ...] = ()
    """x values whose run 1 is also drawn as time series (cwnd and SRTT of each subflow, one column per
    variant; :mod:`mpsim.experiments.timeseries`), the papers' trace figures."""
    trace_kind: str = "windows"
    """Which time series ``trace_x`` draws: ``windows`` (cwnd and SRTT), ``sequence`` (segments sent and
    acknowledged, the CSS paper's Fig. 1) or ``rto`` (the time of every retransmission timeout per subflow,
    the GSAM paper's Fig. 7)."""
    checks: tuple[Claim, ...] = ()
    """The paper's claims as checkable statements over the result table (:mod:`mpsim.experiments.claims`);
    ``claims`` keeps the words of those that have none."""
    measures: str = "completion"
    """What its figures measure: ``completion`` (finite transfers, :func:`experiment_metrics`) or ``rates``
    (long-lived flows over a window of the run, whose rows say nothing of completion)."""
    extract: Callable[[Results, Mapping[str, Any]], dict[str, Any]] | None = None
    """The row of one run when not :func:`experiment_metrics`' (a module-level function, so workers can run it)."""
    runs_on: str = "paper"
    """The stack its runs are on, a name of :data:`mpsim.experiments.stacks.JUDGED_ON`: ``paper``, as built, or a
    profile (``linux``, ``ns3``) that replaces the rest of every flow's TCP options (:meth:`on`)."""

    def __post_init__(self) -> None:
        stated = tuple(dict.fromkeys(c.text for c in self.checks if c.text not in self.claims))
        object.__setattr__(self, "claims", stated + self.claims)
        # A builder derived from a definition or moved onto a stack is not one given: `dataclasses.replace`
        # passes it back.
        paper = self.scenario.paper if isinstance(self.scenario, _OnStack) else self.scenario
        builder_given = not (paper is _no_builder or isinstance(paper, _FromDefinition))
        if (self.definition is not None) == builder_given:
            raise ValueError(f"{self.name}: give exactly one of scenario and definition")
        if self.definition is not None:
            unknown = [v for v in self.definition.patches if v not in self.variants]
            if unknown:
                allowed = ", ".join(self.variants)
                raise ValueError(f"{self.name}: definition.patches: unknown variant '{unknown[0]}'; allowed: {allowed}")
            paper = _FromDefinition(self.definition, self.name)
        if self.runs_on not in JUDGED_ON:
            raise ValueError(f"{self.name}: runs_on: unknown stack '{self.runs_on}'; allowed: {', '.join(JUDGED_ON)}")
        object.__setattr__(self, "scenario", paper if self.runs_on == "paper" else _OnStack(paper, self.runs_on))

    def on(self, stack: str) -> Experiment:
        """The experiment with its runs on ``stack`` (``paper``, ``linux`` or ``ns3``): the same x values,
        variants, runs and claims, every scenario moved onto it (:func:`mpsim.experiments.stacks.on_stack`)."""
        return dataclasses.replace(self, runs_on=stack)

    def build(self, x: Any, variant: str, run: int) -> CoreConfig:
        """The core configuration of one run: its scenario's (:meth:`mpsim.Scenario.to_core`)."""
        return self.scenario(x, variant, run).to_core()

    def xs(self, quick: bool) -> tuple[Any, ...]:
        """The x values swept in quick or full mode."""
        return self.quick_x_values if quick else self.x_values

    def run_count(self, quick: bool, runs: int | None = None) -> int:
        """Runs per (x, variant): ``runs`` if given, else the mode's own."""
        if runs is not None:
            return runs
        return self.quick_runs if quick else self.runs

    def configs(self, quick: bool, runs: int | None = None) -> list[tuple[Any, str, int, CoreConfig]]:
        """Every (x, variant, run, core configuration) of the experiment."""
        n = self.run_count(quick, runs)
        return [(x, v, r, self.build(x, v, r)) for v in self.variants for x in self.xs(quick) for r in range(1, n + 1)]

    def rows(self, xs: Iterable[Any], variants: Iterable[str], runs: Iterable[int]) -> list[dict[str, Any]]:
        """The result rows of the given runs at every (x, variant), each with its ``x``, ``variant`` and
        ``run``: a small table that the experiment's claims (``checks``) judge as they judge a reproduction's."""
        runs = list(runs)
        return [
            {"x": x, "variant": v, "run": r, **row}
            for x in xs
            for v in variants
            for r, row in zip(runs, self.point(x, v, runs), strict=True)
        ]

    def point(self, x: Any, variant: str, runs: Iterable[int]) -> list[dict[str, Any]]:
        """The result rows (``experiment_metrics``) of the given runs of one (x, variant) point, run here in
        this process: for a look at one point without a sweep or a store."""
        rows = []
        for run in runs:
            cfg = self.build(x, variant, run)
            res = run_config(cfg)
            rows.append(self.extract(res, cfg) if self.extract else experiment_metrics(res.raw, cfg))
        return rows


def run_random(experiment: str, run: int, *salt: object) -> random.Random:
    """The random stream of one run of an experiment: the same for every variant and x value unless salted.

    ``random.Random`` seeded with a string hashes it with SHA-512, so the draws are the same on every
    machine and Python version.
    """
    return random.Random(":".join([experiment, str(run), *map(str, salt)]))


# ---------------------------------------------------------------------------------------------- network


def ns(value: int) -> str:
    """A time of ``value`` nanoseconds as the scenario model reads it (a time needs its unit)."""
    return f"{value}ns"


def bps(value: int) -> str:
    """A rate of ``value`` bit/s as the scenario model reads it (a rate needs its unit)."""
    return f"{value}bps"


def in_bytes(value: int | None) -> SizeSpec | None:
    """A size of ``value`` bytes as the scenario model takes it (a size needs its unit); ``None`` stays."""
    return None if value is None else SizeSpec(value, "bytes")


QUEUE_PKTS = 1000
"""The drop-tail queue of every link whose queue an experiment leaves out: never the constraint."""


def drop_tail(limit_pkts: int) -> DropTail:
    """A drop-tail queue of ``limit_pkts`` packets."""
    return DropTail(limit=limit_pkts)


def duplex(
    a: str,
    b: str,
    rate_bps: int,
    delay_ns: int,
    queue: Queue | None = None,
    reverse_queue: Queue | None = None,
    *,
    loss: Loss | None = None,
    reverse_loss: Loss | None = None,
    node: str | None = None,
) -> Link:
    """The links ``a-b`` and ``b-a`` of equal rate and delay. ``queue`` is the forward one's (a
    :data:`QUEUE_PKTS` drop-tail queue unless given), ``reverse_queue`` the reverse one's (the forward one's
    unless given); ``loss`` is on both directions unless ``reverse_loss`` says otherwise. ``node``: the host
    of which ``a`` names an interface (``duplex("S0a", "R1", …, node="S0")`` runs from host ``S0``)."""
    return Link(
        name=f"{a}-{b}",
        from_=node or a,
        to=b,
        rate=bps(rate_bps),
        delay=ns(delay_ns),
        queue=queue or drop_tail(QUEUE_PKTS),
        loss=loss,
        reverse=LinkDirection(name=f"{b}-{a}", queue=reverse_queue, loss=reverse_loss),
    )


def address(name: str, link: Link) -> Address:
    """An address of a multi-homed host bound to its interface ``link`` (out on it, in on its reverse)."""
    return Address(name=name, node=link.from_, interface=link.forward_name)


def directed(network: Network) -> dict[str, tuple[str, str, Link]]:
    """Every one-way link of ``network`` by name: its two ends (from, to) and the duplex link it belongs to."""
    out: dict[str, tuple[str, str, Link]] = {}
    for link in network.links:
        out[link.forward_name] = (link.from_, link.to, link)
        if link.reverse_name is not None:
            out[link.reverse_name] = (link.to, link.from_, link)
    return out


def scenario_of(
    network: Network,
    *,
    seed: int,
    duration_ns: int,
    flows: Sequence[Flow],
    stop_when_complete: Sequence[str] = (),
    **settings: Any,
) -> Scenario:
    """One run on ``network`` (each of its fields is the scenario's of that name): its flows, the seed, the run's
    duration and any other scenario ``settings``."""
    return Scenario(
        **{name: getattr(network, name) for name in Network.model_fields},
        seed=seed,
        duration=ns(duration_ns),
        flows=list(flows),
        stop_when_complete=list(stop_when_complete),
        **settings,
    )


def traced(scenario: Scenario, flows: Sequence[str], segments: Sequence[str] = ()) -> Scenario:
    """``scenario`` with the windows of ``flows`` traced at every ACK, and every segment of ``segments``."""
    trace = scenario.trace.model_copy(
        update={"flows": [*scenario.trace.flows, *flows], "segments": [*scenario.trace.segments, *segments]}
    )
    return scenario.model_copy(update={"trace": trace})


# ---------------------------------------------------------------------------------------------- flows

RENO = CongestionControl(type="reno")
LIA = CongestionControl(type="lia")


def slow_start(variant: str, gsam: SlowStart | None = None, lisa: SlowStart | None = None) -> SlowStart:
    """The slow start of an MPTCP variant; ``gsam`` and ``lisa`` with their parameters, if given."""
    if variant == "mptcp":
        return SlowStart(type="standard")
    if variant == "gsam":
        return gsam or SlowStart(type="gsam")
    if variant == "lisa":
        return lisa or SlowStart(type="lisa")
    if variant == "css":
        return SlowStart(type="css")
    raise ValueError(f"variant: unknown '{variant}'; allowed: {', '.join(VARIANTS)}")


def transfer(
    variant: str,
    name: str,
    src_addrs: Sequence[str],
    dst_addrs: Sequence[str],
    size_bytes: int | None,
    start_ns: int,
    tcp: TcpOptions,
    join_delay_ns: int = 0,
    *,
    gsam: SlowStart | None = None,
    lisa: SlowStart | None = None,
    coupled: CongestionControl = LIA,
    single_path: CongestionControl = RENO,
    subflows: int | None = None,
    trace: bool = False,
) -> TcpFlow | MptcpFlow:
    """One transfer of ``variant``: a TCP flow with ``single_path`` congestion control (Reno unless given) on
    the first address pair for ``tcp``, else an MPTCP connection over every address pair (or ``subflows``
    over the first, ndiffports) with the variant's slow start and ``coupled`` congestion avoidance (LIA
    unless given); ``trace`` records its windows."""
    if variant == "tcp":
        return TcpFlow(
            name=name,
            src=src_addrs[0],
            dst=dst_addrs[0],
            start=ns(start_ns),
            size=in_bytes(size_bytes),
            cc=single_path,
            tcp=tcp,
            trace=trace,
        )
    return MptcpFlow(
        type="mptcp",
        name=name,
        src=list(src_addrs),
        dst=list(dst_addrs),
        start=ns(start_ns),
        size=in_bytes(size_bytes),
        join_delay=ns(join_delay_ns),
        cc=coupled,
        slow_start=slow_start(variant, gsam, lisa),
        subflows=subflows,
        tcp=tcp,
        trace=trace,
    )


def cbr(
    name: str, src: str, dst: str, rate_bps: int, size: int, start_ns: int = 0, stop_ns: int | None = None
) -> UdpFlow:
    """A constant-bit-rate UDP flow of ``size``-byte packets (on the wire) from ``start_ns`` to ``stop_ns``."""
    return UdpFlow(
        type="udp",
        name=name,
        src=src,
        dst=dst,
        rate=bps(rate_bps),
        packet_size=in_bytes(size),
        start=ns(start_ns),
        stop=None if stop_ns is None else ns(stop_ns),
    )


# ---------------------------------------------------------------------------------------------- metrics


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _flow_rows(raw: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One dict per TCP flow and MPTCP connection with the measures every figure uses: the core's
    ``flows`` table (``crates/mpsim-core/src/tables.rs``)."""
    rows = []
    for f in Results(dict(raw)).flows.to_pylist():
        rows.append(
            {
                "name": f["name"],
                "fct_ns": None if f["fct_s"] is None else round(f["fct_s"] * 1e9),
                "retransmissions": f["retransmissions"],
                "rto_count": f["rto_count"],
                "cwnd_end": f["cwnd_bytes_at_completion"] or f["cwnd_bytes_at_end"],
                "r_ss": f["retransmissions_before_slow_start_exit"],
                "cwnd_ss_exit": f["cwnd_bytes_at_slow_start_exit"],
                "bytes": f["bytes_delivered"],
            }
        )
    return rows


def flows_of(config: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Every TCP flow and MPTCP connection of a core configuration, TCP flows first."""
    for kind in ("tcp_flows", "mptcp_connections"):
        yield from config.get(kind, [])


def _mss_of(config: Mapping[str, Any]) -> int:
    """The MSS of the measured flows (the first one's: an experiment gives all of them the same)."""
    return flow_mss(next((f.get("tcp", {}) for f in flows_of(config) if f["name"].startswith("measured")), {}))


def experiment_metrics(raw: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """The row of one run: means over the ``measured`` flows, and over the ``competing`` TCP flows.

    ``fct_s`` is NaN when a measured flow did not complete before the run's time limit; ``incomplete``
    counts such flows so that no figure averages them silently.
    """
    mss = _mss_of(config)
    rows = _flow_rows(raw)
    measured = [r for r in rows if r["name"].startswith("measured")]
    competing = [r for r in rows if r["name"].startswith("competing")]
    done = [r for r in measured if r["fct_ns"] is not None]

    def fct(rs: list[dict[str, Any]]) -> float:
        if not rs or any(r["fct_ns"] is None for r in rs):
            return float("nan")
        return _mean([r["fct_ns"] / 1e9 for r in rs])

    ss_exit = [r["cwnd_ss_exit"] for r in measured if r["cwnd_ss_exit"] is not None]
    return {
        "fct_s": fct(measured),
        "retransmissions": _mean([r["retransmissions"] for r in measured]),
        "rto_count": _mean([r["rto_count"] for r in measured]),
        "sum_cwnd_pkts": _mean([r["cwnd_end"] / mss for r in measured]),
        "r_ss": _mean([r["r_ss"] for r in measured]),
        "sum_cwnd_ss_exit_pkts": _mean([c / mss for c in ss_exit]),
        "goodput_mbps": _mean([r["bytes"] * 8 / r["fct_ns"] * 1e3 for r in done]),
        "incomplete": len(measured) - len(done),
        "competing_fct_s": fct(competing),
        "competing_retransmissions": _mean([r["retransmissions"] for r in competing]),
        "end_time_s": raw["end_time_ns"] / 1e9,
    }
