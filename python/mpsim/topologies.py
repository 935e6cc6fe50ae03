"""The network of a scenario: nodes, links with their queues and loss, addresses, routes, link changes,
and presets (dumbbell, shared / non-shared bottleneck, k-ary fat-tree) that expand to them.

Links are written once and are duplex by default: ``{from = "R1", to = "R2", rate = "5Mbps"}`` makes
``R1-R2`` and its reverse ``R2-R1`` with the same rate, delay, queue and loss unless ``reverse``
overrides some of them. The core's links are one-way; :meth:`Link.to_core` makes both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BeforeValidator, Field, PlainValidator, model_validator
from pydantic_core import PydanticCustomError, PydanticKnownError

from mpsim._types import (
    U32_MAX,
    BufferSize,
    Duration,
    Flag,
    LossProbability,
    Model,
    Packets,
    PacketsFloat,
    PositiveDuration,
    Probability,
    Rate,
    Size,
    loss_probability,
)
from mpsim.traces import Trace
from mpsim.units import Buffer, SizeSpec, format_rate, format_time

__all__ = [
    "TRIANGLE_FLOWS",
    "Address",
    "Bernoulli",
    "Codel",
    "DropTail",
    "Dumbbell",
    "FatTree",
    "GilbertElliott",
    "Link",
    "LinkChange",
    "Network",
    "NoLoss",
    "NonShared",
    "ParallelLinks",
    "Preset",
    "Red",
    "Route",
    "SharedBottleneck",
    "Triangle",
    "dumbbell",
    "fat_tree",
    "non_shared",
    "parallel_links",
    "shared_bottleneck",
    "triangle",
]

# ---------------------------------------------------------------------------------------------- queues


class DropTail(Model):
    """First in, first out; arrivals that do not fit are dropped."""

    type: Literal["drop_tail"] = "drop_tail"
    limit: BufferSize = Buffer(100, "pkts")
    """Packets (``"47pkt"``) or bytes (``"64KB"``) waiting, the packet in service not counted."""

    def to_core(self) -> dict[str, Any]:
        key = "limit_pkts" if self.limit.unit == "pkts" else "limit_bytes"
        return {"type": "drop_tail", key: self.limit.value}


class Red(Model):
    """Random Early Detection (Floyd & Jacobson 1993), gentle by default; thresholds in packets.

    ``adaptive = true`` is Adaptive RED (Floyd, Gummadi, Shenker 2001; ns-2's ``adaptive_ 1``): min_th,
    max_th and weight follow from the link's rate and ``target_delay`` unless given, and max_p (its
    starting value) adapts every ``interval``."""

    type: Literal["red"]
    limit: Packets
    min_th: PacketsFloat | None = None
    max_th: PacketsFloat | None = None
    max_p: Probability = 0.1
    weight: Probability | None = None
    """0.002 unless adaptive (then 1 - exp(-1/C), C the link's rate in packets per second)."""
    gentle: Flag = True
    mean_pkt_size: Size = SizeSpec(1500, "bytes")
    adaptive: Flag = False
    target_delay: PositiveDuration | None = None
    """Adaptive: the average queueing delay aimed at (5 ms)."""
    interval: PositiveDuration | None = None
    """Adaptive: how often max_p adapts (0.5 s)."""

    @model_validator(mode="after")
    def _thresholds(self) -> Red:
        if not self.adaptive and (self.min_th is None or self.max_th is None):
            raise PydanticCustomError("red", "min_th and max_th are needed unless adaptive = true")
        if not self.adaptive and (self.target_delay is not None or self.interval is not None):
            raise PydanticCustomError("red", "target_delay and interval are for adaptive = true only")
        if (self.min_th is None) != (self.max_th is None):
            raise PydanticCustomError("red", "give both min_th and max_th, or neither (adaptive)")
        if self.min_th is not None and self.max_th is not None and self.max_th <= self.min_th:
            raise PydanticCustomError(
                "red",
                "max_th ({max_th}) must be greater than min_th ({min_th})",
                {"max_th": self.max_th, "min_th": self.min_th},
            )
        if self.max_p <= 0 or (self.weight is not None and self.weight <= 0):
            raise PydanticCustomError("red", "max_p and weight must be greater than 0")
        return self

    def to_core(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "adaptive_red" if self.adaptive else "red",
            "limit_pkts": self.limit,
            "max_p": self.max_p,
            "gentle": self.gentle,
            "mean_pkt_size_bytes": self.mean_pkt_size.to_bytes(1),
        }
        given = {
            "min_th_pkts": self.min_th,
            "max_th_pkts": self.max_th,
            "weight": self.weight if self.adaptive or self.weight is not None else 0.002,
            "target_delay_ns": self.target_delay,
            "interval_ns": self.interval,
        }
        return out | {k: v for k, v in given.items() if v is not None}


class Codel(Model):
    """Controlled Delay (RFC 8289): target 5 ms, interval 100 ms by default."""

    type: Literal["codel"]
    target: PositiveDuration = 5_000_000
    interval: PositiveDuration = 100_000_000
    limit: Packets = 1000

    def to_core(self) -> dict[str, Any]:
        return {"type": "codel", "target_ns": self.target, "interval_ns": self.interval, "limit_pkts": self.limit}


def _tagged(value: Any) -> Any:
    """``"codel"`` is ``{type = "codel"}``."""
    return {"type": value} if isinstance(value, str) else value


Queue = Annotated[Annotated[DropTail | Red | Codel, Field(discriminator="type")], BeforeValidator(_tagged)]

# ---------------------------------------------------------------------------------------------- loss


class NoLoss(Model):
    type: Literal["none"] = "none"

    def to_core(self) -> dict[str, Any]:
        return {"type": "none"}


class Bernoulli(Model):
    """Each packet lost independently with probability ``p``."""

    type: Literal["bernoulli"]
    p: LossProbability

    def to_core(self) -> dict[str, Any]:
        return {"type": "bernoulli", "p": self.p}


class GilbertElliott(Model):
    """Two-state Markov chain stepped per packet: good→bad with ``p_gb``, bad→good with ``p_bg``."""

    type: Literal["gilbert_elliott"]
    p_gb: Probability
    p_bg: Probability
    loss_good: Probability = 0.0
    loss_bad: Probability = 1.0

    def to_core(self) -> dict[str, Any]:
        return {
            "type": "gilbert_elliott",
            "p_gb": self.p_gb,
            "p_bg": self.p_bg,
            "loss_good": self.loss_good,
            "loss_bad": self.loss_bad,
        }


def _loss_shorthand(value: Any) -> Any:
    """``loss = 0.01`` or ``loss = "1%"`` is Bernoulli loss; ``loss = "none"`` is none."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return {"type": "bernoulli", "p": loss_probability(value)}
    if isinstance(value, str):
        return {"type": "bernoulli", "p": value} if value.strip()[:1].isdigit() else {"type": value}
    return value


Loss = Annotated[
    Annotated[NoLoss | Bernoulli | GilbertElliott, Field(discriminator="type")], BeforeValidator(_loss_shorthand)
]

# ---------------------------------------------------------------------------------------------- links


def _queue_core(buffer: Buffer | None, queue: DropTail | Red | Codel | None) -> dict[str, Any] | None:
    if queue is not None:
        return queue.to_core()
    if buffer is not None:
        return DropTail(limit=buffer).to_core()
    return None


def _one_queue(buffer: Buffer | None, queue: object) -> None:
    if buffer is not None and queue is not None:
        raise PydanticCustomError(
            "buffer_and_queue", "give either 'buffer' (a drop-tail queue of that size) or 'queue', not both"
        )


def _burst_bytes(burst: SizeSpec | None) -> int | None:
    """A link's ``burst`` in bytes; a size in packets has no meaning for a link, which has no MSS."""
    if burst is None:
        return None
    if burst.unit != "bytes":
        raise PydanticCustomError(
            "burst_unit", f'a link\'s burst is in bytes (e.g. "3028B": two 1514-byte frames), got {burst}'
        )
    return burst.value


class LinkDirection(Model):
    """Settings of a duplex link's reverse direction that differ from the forward one."""

    name: str | None = None
    rate: Rate | None = None
    delay: Duration | None = None
    buffer: BufferSize | None = None
    queue: Queue | None = None
    loss: Loss | None = None
    burst: Size | None = None
    jitter: Duration | None = None
    """The reverse direction's own jitter; ``"0s"``: none where the forward direction has some."""
    trace: Trace | None = None
    """The reverse direction's own delivery-opportunity trace (see ``Link.trace``)."""
    rate_limiter: Flag = False
    """The reverse direction's ``burst`` is a rate limiter (see ``Link.rate_limiter``)."""
    txtime_rate: Rate | None = None
    """The reverse direction's own ``txtime_rate`` (see ``Link.txtime_rate``)."""

    @model_validator(mode="after")
    def _check(self) -> LinkDirection:
        _one_queue(self.buffer, self.queue)
        _burst_bytes(self.burst)
        _one_service(self.rate, self.trace, self.burst, required=False)
        _limiter_needs_burst(self.rate_limiter, self.burst)
        return self


def _limiter_needs_burst(rate_limiter: bool, burst: SizeSpec | None) -> None:
    """``rate_limiter`` says what a token bucket's released packets do: it needs the ``burst`` of one."""
    if rate_limiter and burst is None:
        raise PydanticCustomError(
            "rate_limiter",
            "'rate_limiter' is true, which makes a token bucket a rate limiter: give the same direction a 'burst' "
            "(e.g. \"3028B\"), or leave 'rate_limiter' false",
        )


def _one_service(rate: int | None, trace: object, burst: SizeSpec | None, *, required: bool) -> None:
    """A link direction is served at a ``rate`` (shaped by a ``burst`` or not) or by a ``trace``, one only."""
    if rate is not None and trace is not None:
        raise PydanticCustomError(
            "rate_and_trace",
            "give a link either a 'rate' ({rate}) or a 'trace' (the trace sets its rate), not both",
            {"rate": format_rate(rate)},
        )
    if required and rate is None and trace is None:
        raise PydanticCustomError("rate_or_trace", "a link needs a 'rate' (e.g. \"10Mbps\") or a 'trace'")
    if trace is not None and burst is not None:
        raise PydanticCustomError(
            "trace_and_burst",
            "a link follows either a 'trace' or a 'burst' ({burst}), not both",
            {"burst": str(burst)},
        )


class Link(Model):
    """A link between two nodes: a queue, a transmitter of ``rate``, then a propagation ``delay``.

    The name defaults to ``"{from}-{to}"``; the reverse direction of a duplex link is named
    ``"{to}-{from}"`` (or ``reverse.name``).
    """

    name: str | None = None
    from_: str = Field(alias="from")
    to: str
    rate: Rate | None = None
    """The transmitter's rate; or give ``trace``."""
    delay: Duration = 0
    buffer: BufferSize | None = None
    """Shorthand for a drop-tail queue of this size (``"47pkt"``); the core's default is 100 packets."""
    queue: Queue | None = None
    loss: Loss | None = None
    weight: int = Field(1, ge=1, le=U32_MAX)
    """Routing cost; equal total costs become ECMP sets."""
    up: Flag = True
    duplex: Flag = True
    reverse: LinkDirection | None = None
    burst: Size | None = None
    """A token-bucket shaper instead of a transmitter, as Linux's ``tbf`` qdisc: packets leave at ``rate`` on
    average, but after an idle period up to ``burst`` bytes leave back to back (so a burst finds the queue that
    much larger); each then takes its transmission time and the delay to arrive, in order (only the delay with
    ``rate_limiter``). Bytes, e.g.
    ``"3028B"`` (two 1514-byte frames); none: a plain link. It shapes the forward direction only (a shaper is
    one direction's queue discipline); ``reverse.burst`` shapes the reverse."""
    jitter: PositiveDuration | None = None
    """A random extra delay after ``delay``, as an emulator's delay line adds: each packet takes an
    exponentially distributed extra delay of this mean (e.g. ``"50us"``), and arrives no sooner than the packet
    sent before it, so the link never reorders. Drawn from the run's seed, one stream per link direction; the
    reverse direction has the same unless ``reverse.jitter`` says otherwise (``"0s"``: none). None: no jitter."""
    rate_limiter: Flag = False
    """With ``burst``: the token bucket is a rate limiter in front of a link that takes no time, as Linux's ``tbf``
    on a veth: a released packet arrives ``delay`` after its release, without its transmission time (an
    emulator's delay line may add that: ``txtime_rate``). Forward direction only; ``reverse.rate_limiter`` for the
    reverse."""
    txtime_rate: Rate | None = None
    """Hold each packet also its transmission time at this rate after ``delay`` (and ``jitter``), as an emulator's
    delay line that adds it does (the Linux rig's ``delay.py --txtime``), keeping order only among the packets of
    one route: a short packet may overtake a longer one of another flow sent just before it. The reverse direction
    has the same unless ``reverse.txtime_rate`` says otherwise. None: no hold."""
    trace: Trace | None = None
    """A delivery-opportunity trace instead of a ``rate``, as Mahimahi's ``mm-link`` (a file: one time in ms a
    line, each letting 1 504 bytes leave, repeating after its last time; or a list of times): the queue is
    served at those times, then the packets take ``delay``. The reverse direction follows the same trace unless
    ``reverse.trace`` or ``reverse.rate`` says otherwise. The link's rate (what ``--resolved`` shows, and what
    adaptive RED and the run's cost estimate use) is the trace's mean."""

    @model_validator(mode="after")
    def _check(self) -> Link:
        _one_queue(self.buffer, self.queue)
        _burst_bytes(self.burst)
        _one_service(self.rate, self.trace, self.burst, required=True)
        _limiter_needs_burst(self.rate_limiter, self.burst)
        r = self.reverse
        if self.trace is not None and r is not None and r.burst is not None and r.rate is None and r.trace is None:
            raise PydanticCustomError(
                "trace_and_burst",
                "the reverse direction follows the link's trace, so it cannot take 'reverse.burst' ({burst}); "
                "give it a 'reverse.rate'",
                {"burst": str(r.burst)},
            )
        if self.reverse is not None and not self.duplex:
            raise PydanticCustomError("reverse", "'reverse' is given but the link is not duplex")
        return self

    @property
    def forward_name(self) -> str:
        return self.name or f"{self.from_}-{self.to}"

    @property
    def mean_rate(self) -> int:
        """The forward direction's rate in bit/s: ``rate``, or the trace's mean."""
        if self.trace is not None:
            return self.trace.mean_rate_bps
        assert self.rate is not None, "a link has a rate or a trace"
        return self.rate

    @property
    def reverse_name(self) -> str | None:
        if not self.duplex:
            return None
        if self.reverse is not None and self.reverse.name:
            return self.reverse.name
        return f"{self.to}-{self.from_}"

    def to_core(self) -> list[dict[str, Any]]:
        """One core link, or two for a duplex link (forward first)."""
        fwd: dict[str, Any] = {
            "name": self.forward_name,
            "from": self.from_,
            "to": self.to,
            "rate_bps": self.rate if self.trace is None else self.trace.mean_rate_bps,
            "delay_ns": self.delay,
            "weight": self.weight,
            "up": self.up,
        }
        if self.trace is not None:
            fwd["trace"] = self.trace.to_core()
        q = _queue_core(self.buffer, self.queue)
        if q is not None:
            fwd["queue"] = q
        if self.loss is not None:
            fwd["loss"] = self.loss.to_core()
        burst = _burst_bytes(self.burst)
        if burst is not None:
            fwd["burst_bytes"] = burst
        if self.jitter is not None:
            fwd["jitter_ns"] = self.jitter
        if self.rate_limiter:
            fwd["rate_limiter"] = True
        if self.txtime_rate is not None:
            fwd["txtime_rate_bps"] = self.txtime_rate
        out = [fwd]
        rev_name = self.reverse_name
        if rev_name is not None:
            r = self.reverse or LinkDirection()
            rev = dict(fwd, name=rev_name, **{"from": self.to, "to": self.from_})
            if r.rate is not None:
                rev.pop("trace", None)
                rev["rate_bps"] = r.rate
            if r.trace is not None:
                rev["trace"] = r.trace.to_core()
                rev["rate_bps"] = r.trace.mean_rate_bps
            if r.delay is not None:
                rev["delay_ns"] = r.delay
            rq = _queue_core(r.buffer, r.queue)
            if rq is not None:
                rev["queue"] = rq
            if r.loss is not None:
                rev["loss"] = r.loss.to_core()
            if r.jitter is not None:
                rev.pop("jitter_ns", None)
                if r.jitter > 0:
                    rev["jitter_ns"] = r.jitter
            # A shaper is a queue discipline of one direction: the reverse has one only if it names its own.
            rev.pop("burst_bytes", None)
            rev.pop("rate_limiter", None)
            rburst = _burst_bytes(r.burst)
            if rburst is not None:
                rev["burst_bytes"] = rburst
            if r.rate_limiter:
                rev["rate_limiter"] = True
            if r.txtime_rate is not None:
                rev["txtime_rate_bps"] = r.txtime_rate
            out.append(rev)
        return out


class Address(Model):
    """An address of a multi-homed host, bound to one of its interfaces.

    ``interface = "S-A"`` binds it to a duplex link leaving the node: traffic from the address
    leaves by that link and traffic to it arrives by the link's reverse. ``out_link`` / ``in_link``
    bind the two directions separately.
    """

    name: str
    node: str
    interface: str | None = None
    out_link: str | None = None
    in_link: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Address:
        if self.interface is not None and (self.out_link is not None or self.in_link is not None):
            raise PydanticCustomError("interface", "give either 'interface' or 'out_link' / 'in_link', not both")
        return self


def _interface(access: Link, host: str, addr: str, router: str) -> tuple[Link, Address]:
    """The access link from ``host``'s address ``addr`` to ``router``, named after the address both ways
    (``addr-router``, ``router-addr``), and the address bound to it."""
    name = f"{addr}-{router}"
    link = access.model_copy(update={"name": name, "reverse": LinkDirection(name=f"{router}-{addr}")})
    return link, Address(name=addr, node=host, interface=name)


def _nth(values: list[Any], i: int) -> Any:
    """The value of link ``i`` in a list of one value for every link or of one per link."""
    return values[i if len(values) > 1 else 0]


class Route(Model):
    """A static route replacing the computed ones of ``node`` towards address ``dst``."""

    node: str
    dst: str
    via: list[str] = Field(min_length=1)
    """Next-hop links leaving ``node``; more than one makes an ECMP set."""


class LinkChange(Model):
    """Changes one direction of a link at time ``at``; fields left out keep their value."""

    at: Duration
    link: str
    rate: Rate | None = None
    delay: Duration | None = None
    loss: Loss | None = None
    up: Flag | None = None

    def to_core(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at_ns": self.at, "link": self.link}
        if self.rate is not None:
            out["rate_bps"] = self.rate
        if self.delay is not None:
            out["delay_ns"] = self.delay
        if self.loss is not None:
            out["loss"] = self.loss.to_core()
        if self.up is not None:
            out["up"] = self.up
        return out


class Network(Model):
    """Nodes, links, addresses and routes, written out (a preset expands to one of these)."""

    hosts: list[str] = []
    routers: list[str] = []
    links: list[Link] = []
    addresses: list[Address] = []
    routes: list[Route] = []
    link_changes: list[LinkChange] = []

    def merged(self, other: Network) -> Network:
        return Network(
            hosts=self.hosts + other.hosts,
            routers=self.routers + other.routers,
            links=self.links + other.links,
            addresses=self.addresses + other.addresses,
            routes=self.routes + other.routes,
            link_changes=self.link_changes + other.link_changes,
        )


# ---------------------------------------------------------------------------------------------- presets


def _link(
    a: str,
    b: str,
    rate: int,
    delay: int,
    *,
    buffer: Buffer | None = None,
    queue: DropTail | Red | Codel | None = None,
    loss: NoLoss | Bernoulli | GilbertElliott | None = None,
) -> Link:
    reverse = None
    if loss is not None:
        # Random loss on the data direction only: the reverse of a bottleneck carries the ACKs.
        reverse = LinkDirection(loss=NoLoss())
    return Link.model_validate(
        {
            "from": a,
            "to": b,
            "rate": format_rate(rate),
            "delay": format_time(delay),
            "buffer": buffer,
            "queue": queue,
            "loss": loss,
            "reverse": reverse,
        }
    )


def _path_delays(value: Any) -> Any:
    return [value] if value is not None and not isinstance(value, list) else value


class _Bottleneck(Model, defer_build=True):
    """Settings of the bottleneck link(s) and the access links around them (CSS paper defaults)."""

    bottleneck: Rate = 5_000_000
    """Bottleneck rate (CSS, LISA, GSAM: 5 Mbit/s)."""
    delay: Duration = 30_000_000
    """Bottleneck one-way delay (CSS: 30 ms, so RTT = 2·(10 + 30 + 10) = 100 ms)."""
    buffer: BufferSize | None = None
    """Drop-tail bottleneck buffer (CSS: the 47-packet BDP); 100 packets when neither this nor queue is given."""
    queue: Queue | None = None
    """Any queue for the bottleneck instead of ``buffer`` (e.g. CoDel)."""
    loss: Loss | None = None
    """Random loss on the bottleneck's data direction (GSAM: 0.01 %)."""
    access: Rate = 100_000_000
    """Rate of every other link (CSS: 100 Mbit/s)."""
    access_delay: Duration = 10_000_000
    """One-way delay of every other link (CSS: 10 ms)."""
    path_delays: Annotated[list[Duration] | None, BeforeValidator(_path_delays)] = None
    """Per-path delay of the multi-homed sender's access links (heterogeneous RTTs), one per path."""

    @model_validator(mode="after")
    def _check(self) -> _Bottleneck:
        _one_queue(self.buffer, self.queue)
        paths = getattr(self, "paths", None)
        if self.path_delays is not None and paths is not None and len(self.path_delays) != paths:
            raise PydanticCustomError(
                "path_delays",
                "path_delays has {n} entries but there are {paths} paths",
                {"n": len(self.path_delays), "paths": paths},
            )
        return self

    def _bn(self, a: str, b: str) -> Link:
        return _link(a, b, self.bottleneck, self.delay, buffer=self.buffer, queue=self.queue, loss=self.loss)

    def _access(self, a: str, b: str, delay: int | None = None) -> Link:
        return _link(a, b, self.access, self.access_delay if delay is None else delay)

    def _path_delay(self, i: int) -> int:
        return self.access_delay if self.path_delays is None else self.path_delays[i]


class Dumbbell(_Bottleneck):
    """``pairs`` senders ``S1..Sn`` → router ``R1`` → bottleneck ``R1-R2`` → router ``R2`` → receivers ``D1..Dn``."""

    preset: Literal["dumbbell"] = "dumbbell"
    pairs: int = Field(1, ge=1, le=10_000)

    def expand(self) -> Network:
        hosts = [f"S{i}" for i in range(1, self.pairs + 1)] + [f"D{i}" for i in range(1, self.pairs + 1)]
        links = [self._bn("R1", "R2")]
        for i in range(1, self.pairs + 1):
            links += [self._access(f"S{i}", "R1"), self._access("R2", f"D{i}")]
        return Network(hosts=hosts, routers=["R1", "R2"], links=links)


class SharedBottleneck(_Bottleneck):
    """A multi-homed sender ``S0`` whose ``paths`` interfaces (addresses ``S0.1``, ``S0.2``, …) all
    reach router ``R1``, then one bottleneck ``R1-R2`` to the receiver ``D0`` (CSS Fig. 2a, LISA
    Fig. 3, GSAM Fig. 11a). ``background`` pairs ``S1→D1``, ``S2→D2``, … cross the same bottleneck.
    """

    preset: Literal["shared_bottleneck"] = "shared_bottleneck"
    paths: int = Field(2, ge=1, le=64)
    background: int = Field(0, ge=0, le=10_000)

    def expand(self) -> Network:
        hosts = ["S0", "D0"]
        links = [self._bn("R1", "R2"), self._access("R2", "D0")]
        addresses = []
        for i in range(1, self.paths + 1):
            link, address = _interface(self._access("S0", "R1", self._path_delay(i - 1)), "S0", f"S0.{i}", "R1")
            links.append(link)
            addresses.append(address)
        for k in range(1, self.background + 1):
            hosts += [f"S{k}", f"D{k}"]
            links += [self._access(f"S{k}", "R1"), self._access("R2", f"D{k}")]
        return Network(hosts=hosts, routers=["R1", "R2"], links=links, addresses=addresses)


class PathSettings(Model, defer_build=True):
    """One path's own bottleneck in ``non_shared``'s ``per_path``: whatever is left out is the preset's."""

    bottleneck: Rate | None = None
    """The path's bottleneck rate."""
    delay: Duration | None = None
    """The path's bottleneck one-way delay."""
    buffer: BufferSize | None = None
    """The path's drop-tail bottleneck buffer."""
    queue: Queue | None = None
    """Any queue for the path's bottleneck instead of ``buffer``."""
    loss: Loss | None = None
    """Random loss on the path's bottleneck (data direction)."""
    trace: Trace | None = None
    """A delivery-opportunity trace for the path's bottleneck, data direction, instead of its rate (see
    ``Link.trace``); the ACKs return at the preset's bottleneck rate."""
    reverse_trace: Trace | None = None
    """A trace for the bottleneck's ACK direction (a cellular uplink, say); none: the preset's rate."""

    @model_validator(mode="after")
    def _check(self) -> PathSettings:
        _one_queue(self.buffer, self.queue)
        if self.trace is not None and self.bottleneck is not None:
            raise PydanticCustomError(
                "rate_and_trace", "give the path either a 'bottleneck' rate or a 'trace' (the trace sets its rate)"
            )
        return self


class NonShared(_Bottleneck):
    """A multi-homed sender ``S0`` whose path ``i`` (address ``S0.i``) crosses its own bottleneck
    ``Ai-Bi`` to the receiver ``D0`` (CSS Fig. 2b, LISA Fig. 4, GSAM Fig. 11c). ``background``
    pairs per path, numbered on from 1 (with 2: ``S1``, ``S2`` on path 1, ``S3``, ``S4`` on path 2).
    ``per_path`` gives each path its own bottleneck rate, delay, buffer (or queue) and loss, or delivery traces
    (``trace``, ``reverse_trace``) instead of the rate.
    """

    preset: Literal["non_shared"] = "non_shared"
    paths: int = Field(2, ge=1, le=64)
    background: int = Field(0, ge=0, le=10_000)
    per_path: list[PathSettings] | None = None
    """One entry per path: its bottleneck's ``bottleneck`` (rate) or ``trace`` / ``reverse_trace``, ``delay``,
    ``buffer`` or ``queue``, and ``loss``, each the preset's when left out (a WiFi and an LTE path, say)."""

    @model_validator(mode="after")
    def _check_per_path(self) -> NonShared:
        if self.per_path is not None and len(self.per_path) != self.paths:
            raise PydanticCustomError(
                "per_path",
                "per_path has {n} entries but there are {paths} paths",
                {"n": len(self.per_path), "paths": self.paths},
            )
        return self

    def _path_bn(self, i: int, a: str, b: str) -> Link:
        """Path ``i``'s bottleneck (from 0): the preset's, with the path's own settings."""
        own = self.per_path[i] if self.per_path is not None else PathSettings()
        buffer, queue = (own.buffer, own.queue) if own.buffer or own.queue else (self.buffer, self.queue)
        link = _link(
            a,
            b,
            own.bottleneck or self.bottleneck,
            self.delay if own.delay is None else own.delay,
            buffer=buffer,
            queue=queue,
            loss=own.loss or self.loss,
        )
        if own.trace is None and own.reverse_trace is None:
            return link
        # The data direction follows the path's trace; the ACKs the preset's rate unless it has its own.
        reverse = (link.reverse or LinkDirection()).model_copy(
            update={"trace": own.reverse_trace, "rate": None if own.reverse_trace else self.bottleneck}
        )
        update: dict[str, Any] = {"reverse": reverse}
        if own.trace is not None:
            update |= {"rate": None, "trace": own.trace}
        return link.model_copy(update=update)

    def expand(self) -> Network:
        hosts = ["S0", "D0"]
        routers: list[str] = []
        links: list[Link] = []
        addresses = []
        k = 0
        for i in range(1, self.paths + 1):
            a, b = f"A{i}", f"B{i}"
            routers += [a, b]
            access, address = _interface(self._access("S0", a, self._path_delay(i - 1)), "S0", f"S0.{i}", a)
            links += [access, self._path_bn(i - 1, a, b), self._access(b, "D0")]
            addresses.append(address)
            for _ in range(self.background):
                k += 1
                hosts += [f"S{k}", f"D{k}"]
                links += [self._access(f"S{k}", a), self._access(b, f"D{k}")]
        return Network(hosts=hosts, routers=routers, links=links, addresses=addresses)


class FatTree(Model, defer_build=True):
    """A k-ary fat-tree (Al-Fares et al. 2008): ``k`` pods of ``k/2`` edge switches ``e{pod}.{j}`` and
    ``k/2`` aggregation switches ``a{pod}.{j}``, ``(k/2)²`` core switches ``c{j}``, and ``k³/4`` hosts
    ``h1..``, ``k/2`` per edge switch. All links have weight 1, so the core's routing spreads flows
    over every shortest path (ECMP, per 5-tuple hash): ``(k/2)²`` of them between pods.
    """

    preset: Literal["fat_tree"] = "fat_tree"
    k: int = Field(4, ge=2, le=48)
    rate: Rate = 50_000_000
    """Rate of every link (LISA §III-B: 50 Mbit/s core links)."""
    core_rate: Rate | None = None
    """Rate of the aggregation-core links when different from ``rate``."""
    delay: Duration = 400_000
    """One-way delay of every link: 12 hops make the RTT between pods (4.8 ms by default; LISA: 5 ms)."""
    buffer: BufferSize | None = None
    queue: Queue | None = None

    @model_validator(mode="after")
    def _check(self) -> FatTree:
        if self.k % 2:
            raise PydanticCustomError("fat_tree_k", "k must be even, got {k}", {"k": self.k})
        _one_queue(self.buffer, self.queue)
        return self

    def host(self, n: int) -> str:
        """Name of host ``n`` (1-based)."""
        return f"h{n}"

    @property
    def n_hosts(self) -> int:
        return self.k**3 // 4

    def expand(self) -> Network:
        k, half = self.k, self.k // 2

        def link(a: str, b: str, rate: int) -> Link:
            return _link(a, b, rate, self.delay, buffer=self.buffer, queue=self.queue)

        routers = [f"c{j}" for j in range(1, half * half + 1)]
        hosts: list[str] = []
        links: list[Link] = []
        for pod in range(1, k + 1):
            for j in range(1, half + 1):
                routers += [f"a{pod}.{j}", f"e{pod}.{j}"]
            for e in range(1, half + 1):
                for a in range(1, half + 1):
                    links.append(link(f"e{pod}.{e}", f"a{pod}.{a}", self.rate))
                for h in range(1, half + 1):
                    n = (pod - 1) * half * half + (e - 1) * half + h
                    hosts.append(self.host(n))
                    links.append(link(self.host(n), f"e{pod}.{e}", self.rate))
            for a in range(1, half + 1):
                for c in range(1, half + 1):
                    links.append(link(f"a{pod}.{a}", f"c{(a - 1) * half + c}", self.core_rate or self.rate))
        return Network(hosts=hosts, routers=routers, links=links)


def _per_link(value: Any) -> Any:
    """One value for every link, or a list of one per link."""
    return value if isinstance(value, list) else None if value is None else [value]


class _Links(Model, defer_build=True):
    """Bottleneck links, each with its own rate and one-way delay, and fast access links around them."""

    rates: Annotated[list[Rate], BeforeValidator(_per_link)]
    """Rate of each bottleneck link (one value: the same for all)."""
    delays: Annotated[list[Duration], BeforeValidator(_per_link)]
    """One-way propagation delay of each bottleneck link (one value: the same for all)."""
    buffer: BufferSize | None = None
    """Drop-tail buffer of every bottleneck; 100 packets when neither this nor queue is given."""
    queue: Queue | None = None
    """Any queue for every bottleneck instead of ``buffer`` (e.g. Adaptive RED)."""
    loss: Loss | None = None
    """Random loss on every bottleneck's data direction (exogenous drops)."""
    access: Rate = 1_000_000_000
    """Rate of every access link (1 Gbit/s: never the bottleneck)."""
    access_delay: Duration = 0
    """One-way delay of every access link (0: the bottleneck's delay is the path's)."""

    def _n_links(self) -> int:
        return max(len(self.rates), len(self.delays))

    def _check_links(self, n: int) -> None:
        _one_queue(self.buffer, self.queue)
        for field in ("rates", "delays"):
            given = len(getattr(self, field))
            if given not in (1, n):
                raise PydanticCustomError(
                    "per_link",
                    "{field} has {given} entries for {n} links",
                    {"field": field, "given": given, "n": n},
                )

    def _bottleneck(self, i: int, a: str, b: str, name: str | None = None) -> Link:
        link = _link(
            a, b, _nth(self.rates, i), _nth(self.delays, i), buffer=self.buffer, queue=self.queue, loss=self.loss
        )
        if name is None:
            return link
        return link.model_copy(update={"name": name, "reverse": LinkDirection(name=f"{name}-back", loss=NoLoss())})

    def _access(self, a: str, b: str) -> Link:
        return _link(a, b, self.access, self.access_delay)


class ParallelLinks(_Links):
    """A multi-homed sender ``S0`` whose path ``i`` (address ``S0.i``) crosses its own bottleneck
    ``Ai-Bi`` (rate ``rates[i]``, delay ``delays[i]``) to the receiver ``D0``, and ``background[i]``
    single-path pairs on link ``i``, numbered on from 1 (MPCubic Fig. 2a and 2c, and Fig. 7's
    heterogeneous links). With one link it is the one shared link of Fig. 2b.
    """

    preset: Literal["parallel_links"] = "parallel_links"
    background: Annotated[list[int], BeforeValidator(_per_link)] = [0]
    """Single-path sender-receiver pairs crossing each link (one value: the same on every link)."""

    @model_validator(mode="after")
    def _check(self) -> ParallelLinks:
        n = max(self._n_links(), len(self.background))
        self._check_links(n)
        if len(self.background) not in (1, n) or any(b < 0 for b in self.background):
            raise PydanticCustomError("per_link", "background needs 1 or {n} counts >= 0", {"n": n})
        return self

    def expand(self) -> Network:
        n = max(self._n_links(), len(self.background))
        hosts = ["S0", "D0"]
        routers: list[str] = []
        links: list[Link] = []
        addresses = []
        k = 0
        for i in range(n):
            a, b = f"A{i + 1}", f"B{i + 1}"
            routers += [a, b]
            access, address = _interface(self._access("S0", a), "S0", f"S0.{i + 1}", a)
            links += [access, self._bottleneck(i, a, b), self._access(b, "D0")]
            addresses.append(address)
            for _ in range(_nth(self.background, i)):
                k += 1
                hosts += [f"S{k}", f"D{k}"]
                links += [self._access(f"S{k}", a), self._access(b, f"D{k}")]
        return Network(hosts=hosts, routers=routers, links=links, addresses=addresses)


TRIANGLE_FLOWS = {"A": (1, 2), "B": (2, 3), "C": (3, 1)}
"""The links each two-path flow of the resource-pooling triangle crosses (MPCubic Fig. 2d; Wischik
et al., NSDI'11)."""


class Triangle(_Links):
    """Three bottleneck links ``L1``, ``L2``, ``L3`` (routers ``Xi`` → ``Yi``) and three multi-homed
    senders ``SA``, ``SB``, ``SC``, each with one address per link it uses: flow A on links 1 and 2
    (``SA.1``, ``SA.2``, to ``DA``), B on 2 and 3, C on 3 and 1 (:data:`TRIANGLE_FLOWS`). A
    receiver ``Dx`` is reached from the far end of both of its flow's links.
    """

    preset: Literal["triangle"] = "triangle"
    rates: Annotated[list[Rate], BeforeValidator(_per_link)] = [50_000_000]
    delays: Annotated[list[Duration], BeforeValidator(_per_link)] = [20_000_000]

    @model_validator(mode="after")
    def _check(self) -> Triangle:
        self._check_links(3)
        return self

    def expand(self) -> Network:
        routers = [r for i in (1, 2, 3) for r in (f"X{i}", f"Y{i}")]
        links = [self._bottleneck(i - 1, f"X{i}", f"Y{i}", name=f"L{i}") for i in (1, 2, 3)]
        hosts: list[str] = []
        addresses = []
        for flow, pair in TRIANGLE_FLOWS.items():
            s, d = f"S{flow}", f"D{flow}"
            hosts += [s, d]
            for i in pair:
                access, address = _interface(self._access(s, f"X{i}"), s, f"{s}.{i}", f"X{i}")
                links += [access, self._access(f"Y{i}", d)]
                addresses.append(address)
        return Network(hosts=hosts, routers=routers, links=links, addresses=addresses)


PRESETS: dict[str, type[Model]] = {
    "dumbbell": Dumbbell,
    "shared_bottleneck": SharedBottleneck,
    "non_shared": NonShared,
    "fat_tree": FatTree,
    "parallel_links": ParallelLinks,
    "triangle": Triangle,
}
PRESET_NAMES = tuple(PRESETS)
_PRESET_CLASSES = tuple(PRESETS.values())


def _preset(value: Any) -> Any:
    """A ``topology`` table validated as the preset its ``preset`` key names, with a tagged union's errors.

    Chosen by name here rather than declared as a tagged union: pydantic builds every member of a union
    when the scenario model is first built, and the presets (built only when used, ``defer_build``) are
    about a tenth of ``mpsim validate``'s start-up."""
    if isinstance(value, _PRESET_CLASSES):
        return value
    if not isinstance(value, Mapping):
        raise PydanticKnownError("dict_type")
    tag = value.get("preset")
    if tag is None:
        raise PydanticKnownError("union_tag_not_found", {"discriminator": "'preset'"})
    cls = PRESETS.get(tag) if isinstance(tag, str) else None
    if cls is None:
        expected = ", ".join(repr(name) for name in PRESET_NAMES)
        raise PydanticKnownError(
            "union_tag_invalid", {"discriminator": "'preset'", "tag": str(tag), "expected_tags": expected}
        )
    return cls(**value)


if TYPE_CHECKING:
    Preset = Dumbbell | SharedBottleneck | NonShared | FatTree | ParallelLinks | Triangle
else:
    Preset = Annotated[Any, PlainValidator(_preset)]
    """A topology preset, one of :data:`PRESETS` (``topology = {preset = "dumbbell", ...}``)."""


def dumbbell(pairs: int = 1, **settings: Any) -> Dumbbell:
    """``dumbbell(pairs=2, bottleneck="10Mbps", delay="20ms", buffer="50pkt")``."""
    return Dumbbell(pairs=pairs, **settings)


def shared_bottleneck(paths: int = 2, **settings: Any) -> SharedBottleneck:
    """``shared_bottleneck(paths=2, bottleneck="5Mbps", delay="30ms", buffer="47pkt", background=2)``."""
    return SharedBottleneck(paths=paths, **settings)


def non_shared(paths: int = 2, **settings: Any) -> NonShared:
    """``non_shared(paths=2, bottleneck="5Mbps", delay="30ms", buffer="47pkt", background=2)``."""
    return NonShared(paths=paths, **settings)


def parallel_links(rates: Any, delays: Any, **settings: Any) -> ParallelLinks:
    """``parallel_links(["100Mbps", "80Mbps"], ["40ms", "160ms"], background=[12, 6], queue=...)``."""
    return ParallelLinks(rates=rates, delays=delays, **settings)


def triangle(**settings: Any) -> Triangle:
    """``triangle(rates=["25Mbps", "50Mbps", "50Mbps"], delays="20ms", queue=...)``."""
    return Triangle(**settings)


def fat_tree(k: int = 4, **settings: Any) -> FatTree:
    """``fat_tree(4, rate="50Mbps", buffer="20pkt")``."""
    return FatTree(k=k, **settings)
