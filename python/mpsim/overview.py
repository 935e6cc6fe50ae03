"""What a scenario decides before it runs, in sight: the base RTT of every path a flow can take, and the TCP
profile, congestion control (with its flavour), slow start and scheduler in force for each flow, with the
defaults marked as such (docs/scenarios.md, Choices that swing results).

Routes are worked out from the core's configuration as the core works them out
(``crates/mpsim-core/src/net/routing.rs``): least total link weight through routers only, every tie kept as an
ECMP set, an address bound to an ``in_link`` reached only through it, an ``out_link`` taken first, and routes
set by hand in place of the computed next hops. Where ECMP offers paths of different delays, a path's base
RTT is the range over them.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from mpsim.scenario import Scenario

__all__ = ["RTT_DEFINITION", "FlowChoices", "PathRtt", "flow_choices", "overview_text", "path_rtts", "profiles_chosen"]

RTT_DEFINITION = (
    "base RTT: propagation delay of every link both ways, access links included; no serialisation, no queue"
)
"""What :class:`PathRtt` measures, for headers."""

MAX_ECMP_PATHS = 256
"""Paths enumerated per direction of an address pair before the range is taken from those alone."""

FLAVOURED = ("lia", "olia", "balia")
"""Congestion controls with a ``paper`` and a ``linux`` flavour (docs/algorithms.md)."""


class PathRtt(NamedTuple):
    """One address pair of a flow: the links there and back and the base RTT (min and max over ECMP)."""

    flow: str
    """The flow's name (a copy of a flow: ``name#k``)."""
    src: str
    """Source address (a node's name stands for its one address)."""
    dst: str
    forward: tuple[str, ...]
    """Links of one least-cost path from ``src`` to ``dst`` (the first in link order); empty: no route."""
    back: tuple[str, ...]
    rtt_ns: tuple[int, int] | None
    """The base RTT's least and greatest value over the ECMP choices there and back; None when either
    direction has no route."""

    @property
    def rtt_text(self) -> str:
        if self.rtt_ns is None:
            return "no route"
        low, high = self.rtt_ns[0] / 1e6, self.rtt_ns[1] / 1e6
        return f"{low:g} ms" if low == high else f"{low:g}–{high:g} ms (ECMP)"


@dataclass
class _Net:
    """The configuration's network as routing sees it."""

    forwards: dict[str, bool]
    links: dict[str, tuple[str, str, int, int]]
    """name → (from, to, weight, delay_ns)."""
    addresses: dict[str, tuple[str, str | None, str | None]]
    """name → (node, out_link, in_link); a node's name is an address of its own unless it has others."""
    overrides: dict[tuple[str, str], list[str]]
    outgoing: dict[str, list[str]] = field(default_factory=dict)
    incoming: dict[str, list[str]] = field(default_factory=dict)
    _costs: dict[str, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> _Net:
        net = cls(
            forwards={n["name"]: n.get("kind") == "router" for n in config.get("nodes", [])},
            links={
                link["name"]: (link["from"], link["to"], int(link.get("weight", 1)), int(link["delay_ns"]))
                for link in config.get("links", [])
            },
            addresses={
                a["name"]: (a["node"], a.get("out_link"), a.get("in_link")) for a in config.get("addresses", [])
            },
            overrides={(r["node"], r["dst"]): list(r["via"]) for r in config.get("routes", [])},
        )
        for name, (a, b, _, _) in net.links.items():
            net.outgoing.setdefault(a, []).append(name)
            net.incoming.setdefault(b, []).append(name)
        return net

    def address(self, name: str) -> tuple[str, str | None, str | None]:
        return self.addresses.get(name, (name, None, None))

    def cost_to(self, dst: str) -> dict[str, int]:
        """The least cost of every node to address ``dst`` through routers only (routing.rs, ``search``)."""
        if dst not in self._costs:
            target, _, bound = self.address(dst)
            dist = {target: 0}
            heap = [(0, target)]
            while heap:
                d, v = heapq.heappop(heap)
                if d > dist.get(v, d) or (v != target and not self.forwards.get(v, False)):
                    continue  # a host ends a path, never carries one
                for link in self.incoming.get(v, []):
                    u, _, weight, _ = self.links[link]
                    if u == target or (v == target and bound is not None and link != bound):
                        continue
                    if d + weight < dist.get(u, d + weight + 1):
                        dist[u] = d + weight
                        heapq.heappush(heap, (d + weight, u))
            self._costs[dst] = dist
        return self._costs[dst]

    def next_hops(self, node: str, dst: str) -> list[str]:
        """The links ``node`` forwards packets for ``dst`` on (routing.rs, ``next_hops``)."""
        if (node, dst) in self.overrides:
            return self.overrides[(node, dst)]
        target, _, bound = self.address(dst)
        costs = self.cost_to(dst)
        best: int | None = None
        hops: list[str] = []
        for link in self.outgoing.get(node, []):
            _, to, weight, _ = self.links[link]
            if to == target:
                if bound is not None and bound != link:
                    continue
                cost = weight
            elif self.forwards.get(to, False) and to in costs:
                cost = costs[to] + weight
            else:
                continue
            if best is None or cost < best:
                best, hops = cost, []
            if cost == best:
                hops.append(link)
        return sorted(hops, key=list(self.links).index)

    def paths(self, src: str, dst: str) -> list[tuple[str, ...]]:
        """Every path a packet from ``src`` to ``dst`` can take (up to :data:`MAX_ECMP_PATHS`), each as its
        links; none when there is no route or it loops."""
        node, out_link, _ = self.address(src)
        target = self.address(dst)[0]
        found: list[tuple[str, ...]] = []

        def walk(at: str, route: tuple[str, ...], seen: frozenset[str]) -> None:
            first = [out_link] if not route and out_link is not None else self.next_hops(at, dst)
            for link in first:
                if len(found) >= MAX_ECMP_PATHS:
                    return
                to = self.links[link][1]
                if to == target:
                    found.append((*route, link))
                elif self.forwards.get(to, False) and to not in seen:
                    walk(to, (*route, link), seen | {to})

        walk(node, (), frozenset({node}))
        return found

    def delay_ns(self, route: Sequence[str]) -> int:
        return sum(self.links[link][3] for link in route)


def _pairs(flow: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """The address pairs a flow of the core's configuration sends between."""
    if "src" in flow:
        yield flow["src"], flow["dst"]
        return
    src, dst = flow["src_addrs"], flow["dst_addrs"]
    pairs = [(s, d) for s in src for d in dst]
    if flow.get("path_manager", {}).get("type") == "ndiffports":
        pairs = pairs[:1]
    pairs += [(e["src"], e["dst"]) for e in flow.get("subflow_events", []) if e.get("action") == "add"]
    yield from dict.fromkeys(pairs)


def path_rtts(config: Mapping[str, Any], flows: Sequence[str] | None = None) -> list[PathRtt]:
    """The base RTT of every address pair of every TCP flow and MPTCP connection of a core configuration
    (of the ``flows`` named, if given), :data:`RTT_DEFINITION`."""
    net = _Net.of(config)
    out = []
    for flow in [*config.get("tcp_flows", []), *config.get("mptcp_connections", [])]:
        if flows is not None and flow["name"] not in flows:
            continue
        for src, dst in _pairs(flow):
            there, back = net.paths(src, dst), net.paths(dst, src)
            if not there or not back:
                out.append(PathRtt(flow["name"], src, dst, there[0] if there else (), (), None))
                continue
            ways = [[net.delay_ns(r) for r in there], [net.delay_ns(r) for r in back]]
            rtt = (min(ways[0]) + min(ways[1]), max(ways[0]) + max(ways[1]))
            out.append(PathRtt(flow["name"], src, dst, there[0], back[0], rtt))
    return out


@dataclass(frozen=True)
class FlowChoices:
    """The algorithms and profile in force for one flow, each with whether it was left to its default."""

    flow: str
    kind: str
    profile: str
    profile_default: bool
    cc: str
    cc_default: bool
    flavour: str | None
    flavour_default: bool
    slow_start: str
    slow_start_default: bool
    scheduler: str | None
    scheduler_default: bool

    @property
    def text(self) -> str:
        profile_default = "the profile's default"

        def mark(default: bool, why: str = "default") -> str:
            return f" ({why})" if default else ""

        cc = f"cc {self.cc}{mark(self.cc_default, profile_default if self.kind == 'tcp' else 'default')}"
        if self.flavour is not None:
            cc += f", flavour {self.flavour}"
            if self.flavour_default:
                cc += " (default; `linux` follows the kernel: see docs/algorithms.md)"
        parts = [f"profile {self.profile}{mark(self.profile_default)}", cc]
        parts.append(f"slow start {self.slow_start}{mark(self.slow_start_default)}")
        if self.scheduler is not None:
            parts.append(f"scheduler {self.scheduler}{mark(self.scheduler_default, profile_default)}")
        return "; ".join(parts)


def profiles_chosen(scenario: Scenario) -> set[str]:
    """The flows of a scenario that name their TCP profile (the others take the default, ``linux``)."""
    from mpsim.scenario import MptcpFlow, TcpFlow

    transfers = [f for f in scenario.flows if isinstance(f, TcpFlow | MptcpFlow)]
    return {f.name for f in transfers if "profile" in f.tcp.model_fields_set}


def flow_choices(config: Mapping[str, Any], profiles_chosen: set[str] | None = None) -> list[FlowChoices]:
    """Per TCP flow and MPTCP connection of a core configuration, what the core runs it with
    (``validate --resolved``); ``profiles_chosen``: the flows whose profile the scenario names
    (:func:`profiles_chosen`; a copy ``name#k`` counts as ``name``), every flow's when not given."""
    from mpsim._core import resolved_json

    given = {f["name"]: f for f in [*config.get("tcp_flows", []), *config.get("mptcp_connections", [])]}
    out = []
    for r in json.loads(resolved_json(json.dumps(config))):
        flow = given[r["name"]]
        cc = r.get("cc") or {}
        cc_given = flow.get("cc") or flow.get("cc_plugin") or {}
        slow_start = r.get("slow_start") or {}
        scheduler = r.get("scheduler")
        out.append(
            FlowChoices(
                flow=r["name"],
                kind=r["kind"],
                profile=r["profile"],
                profile_default=profiles_chosen is not None and r["name"].split("#")[0] not in profiles_chosen,
                cc=str(cc.get("type", "python")),
                cc_default=not cc_given,
                flavour=cc.get("flavour") if cc.get("type") in FLAVOURED else None,
                flavour_default="flavour" not in cc_given,
                slow_start=str(slow_start.get("type", "python")),
                slow_start_default="slow_start" not in flow and "slow_start_plugin" not in flow,
                scheduler=None if r["kind"] != "mptcp" else str(scheduler or "python"),
                scheduler_default="scheduler" not in flow and "scheduler_plugin" not in flow,
            )
        )
    return out


def _names(names: Sequence[str], limit: int = 4) -> str:
    """Flow names, at most ``limit`` of them shown: ``f#0, f#1, f#2, f#3 and 16 more``."""
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _grouped(lines: Sequence[tuple[str, str]]) -> list[str]:
    """``(flow, text)`` pairs, flows with the same text on one line."""
    by_text: dict[str, list[str]] = {}
    for name, text in lines:
        by_text.setdefault(text, []).append(name)
    return [f"  {_names(names)}: {text}" for text, names in by_text.items()]


def overview_text(config: Mapping[str, Any], profiles_chosen: set[str] | None = None, max_flows: int = 20) -> str:
    """The choices in force and the paths' base RTTs of a core configuration, as text (``mpsim run`` and
    ``mpsim validate``); at most ``max_flows`` flows' paths are listed."""
    choices = flow_choices(config, profiles_chosen)
    lines = ["Choices in force (docs/scenarios.md, Choices that swing results):"]
    lines += _grouped([(c.flow, c.text) for c in choices])
    names = [c.flow for c in choices]
    rtts = path_rtts(config, names[:max_flows])
    if rtts:
        lines.append(f"Paths ({RTT_DEFINITION}):")
        # Flows on the same path (copies of a flow, say) share one line.
        by_path: dict[tuple[str, str, str], list[str]] = {}
        for p in rtts:
            route = f"  via {' '.join(p.forward)}" if p.forward else ""
            by_path.setdefault((f"{p.src} → {p.dst}", p.rtt_text, route), []).append(p.flow)
        labels = {path: _names(flows) for path, flows in by_path.items()}
        flow_width = max(len(label) for label in labels.values())
        pair_width = max(len(pair) for pair, _, _ in by_path)
        for (pair, rtt, route), label in labels.items():
            lines.append(f"  {label.ljust(flow_width)}  {pair.ljust(pair_width)}  {rtt}{route}")
        if len(names) > max_flows:
            lines.append(f"  (the paths of the first {max_flows} of {len(names)} flows)")
    return "\n".join(lines)
