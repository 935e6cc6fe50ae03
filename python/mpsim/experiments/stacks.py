"""The stacks the papers ran, each defined once: every experiment that emulates one takes it from here; and the
stacks every claim is also judged on (Linux 6.18 and ns-3.44), with the transform that moves a run onto one.

Two stacks, each with its source and what mpsim reproduces of it (docs/reproduction.md reads them in full):

- **The legacy ns-3 MPTCP model** (code.google.com/p/mptcp-ns3, the Orange Labs model): the CSS paper's
  simulator (its ref. [9]), the GSAM paper's §II (its Fig. 8 shows that model's subflow constructor) and, by the
  same reasoning as CSS's, the Couple+ paper's (docs/reproduction.md, Couple+). It replaces ns-3's whole TCP, so
  the single-path flows of those experiments run it too.
- **Linux 3.14 with MPTCP v0.89**: the LISA paper's CORE emulator (3.14.22, v0.89.3) and the GSAM paper's
  testbed (§V-A), mpsim's ``linux_3_14`` profile (docs/algorithms.md).

What a paper sets itself (segment size, initial window, initial ssthresh) is an argument, never part of the
stack. The coupled slow starts are also set as each paper ran them: LISA as published or as the comparing
papers describe it, and GSAM's threshold K as its authors compute it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache

from mpsim._core import resolved_json
from mpsim.scenario import CongestionControl, MptcpFlow, Scenario, SlowStart, TcpFlow, TcpOptions
from mpsim.tcp_options import profile_params
from mpsim.topologies import Link
from mpsim.units import SizeSpec

# ============================================================================ the legacy ns-3 MPTCP model

LEGACY_NS3_WINDOW_BYTES = 65_535
"""The 16-bit advertised window without scaling: the model limits each subflow (and each TCP flow) to
min(receive window, cwnd), 46 full segments of 1400 B. The CSS paper's Fig. 1: the send window "is constant
in simulation"."""

LEGACY_NS3 = TcpOptions(
    # ns-3's per-ACK growth, option sizes and PPP framing.
    profile="ns3",
    # Plain Reno loss recovery: fast retransmit on the third duplicate ACK, no NewReno partial-ACK
    # retransmission, no SACK, no timestamps; a loss halves FlightSize (the model predates ns-3.44).
    recovery="reno",
    sack=False,
    timestamps=False,
    loss_flight="flight_size",
    # The model's receiver acknowledges every segment (docs/reproduction.md, "The paper's simulator, read").
    delayed_ack=False,
    # Its RTO is about 2·SRTT with no floor. With the papers' base RTTs of 100 and 150 ms a 200 ms floor
    # never binds on 2·SRTT, where ns-3's own 1 s would; the first RTO before any sample is 1 s.
    min_rto="200ms",
    initial_rto="1s",
    receive_window=SizeSpec(LEGACY_NS3_WINDOW_BYTES, "bytes"),
)
"""The legacy ns-3 MPTCP model as mpsim reproduces it. Not reproduced (docs/reproduction.md): its receiver
withholding subflow ACKs behind a data-level gap, its RTO that halves cwnd and resends one segment, its
ssthresh slip to 2·MSS, its round-robin scheduler."""


def legacy_ns3(mss: int, initial_cwnd_segments: int, initial_ssthresh_bytes: int | None = None) -> TcpOptions:
    """The legacy ns-3 MPTCP model's TCP options with a paper's segment size, IW and initial ssthresh."""
    ssthresh = None if initial_ssthresh_bytes is None else SizeSpec(initial_ssthresh_bytes, "bytes")
    return LEGACY_NS3.model_copy(
        update={"mss": mss, "initial_cwnd": initial_cwnd_segments, "initial_ssthresh": ssthresh}
    )


LISA_CREDIT_ONLY = SlowStart(type="lisa", ignore_acks=False)
"""LISA as the CSS (§I: the new subflow's IW is subtracted from an existing subflow's cwnd) and GSAM (§II:
"subflow1 and subflow2 each takes 1 packet from subflow0") papers describe the LISA they compared, in ns-3
and on GSAM's testbed alike: Alg. 1's credit without its ACKs to ignore."""

# ============================================================================ Linux 3.14 with MPTCP v0.89

LINUX_3_14 = TcpOptions(
    # SACK with PRR, FACK, delayed early retransmit, the 3.x tail loss probe, F-RTO, IW 10, min RTO 200 ms.
    profile="linux_3_14",
    # No timestamps: a full segment is MSS + 40 B on the wire, as both papers' packet arithmetic assumes.
    timestamps=False,
    # The receiver ACKs every segment: quick-ACK in slow start (LISA footnote 3).
    delayed_ack=False,
)
"""Linux 3.14 with MPTCP v0.89 as the LISA paper's emulator and the GSAM paper's testbed ran it."""

LINUX_3_14_LIA = CongestionControl(type="lia", flavour="linux")
"""MPTCP v0.89's default coupled congestion control, with the kernel's arithmetic."""

LINUX_3_14_LISA = SlowStart(type="lisa")
"""LISA as its paper publishes it (Alg. 1 with the ACKs to ignore): the core's defaults."""


def linux_3_14(mss: int) -> TcpOptions:
    """Linux 3.14's TCP options with a paper's segment size."""
    return LINUX_3_14.model_copy(update={"mss": mss})


STACKS: dict[str, TcpOptions] = {"legacy_ns3": LEGACY_NS3, "linux_3_14": LINUX_3_14}
"""Every stack by the name an experiment declares in ``Experiment.stack``."""

PAPER_SETTINGS = ("mss", "initial_cwnd", "initial_ssthresh")
"""The TCP options a paper sets beside its stack's."""

# ============================================================================ the stacks a claim is judged on

JUDGED_ON: dict[str, str] = {
    "paper": "the paper's stack as mpsim reproduces it",
    "linux": "mpsim's Linux 6.18 profile",
    "ns3": "mpsim's ns-3.44 profile",
}
"""The stacks every claim is judged on, in the order the scorecard shows them: ``paper`` runs an experiment as it
is built (its ``stack``, or the TCP options its flows set themselves), ``linux`` and ``ns3`` move its runs onto
mpsim's profile of that name (:func:`on_stack`), so that a claim that holds only on the paper's simulator shows."""


def on_stack(scenario: Scenario, stack: str) -> Scenario:
    """``scenario`` with its runs on ``stack``, a name of :data:`JUDGED_ON`: as it is for ``paper``; for a profile,
    every TCP flow and MPTCP connection takes that profile's TCP options in place of its own, but for what its
    paper sets and its algorithms. Of each flow,

    - kept at the values the paper's runs had: segment size, initial window and initial ssthresh
      (:data:`PAPER_SETTINGS`), the flow's own or else its own profile's (MPCubic's ns-2 segment of 1000 B and
      window of 2 segments), so that sizes and buffers in packets and GSAM's K mean what they meant;
    - kept: its congestion control with its parameters, the flow's own or else the one its own profile runs when
      a flow names none (CUBIC for a TCP flow of ``linux_3_14``, ``ns3`` or ``ns2``, Reno of ``rfc``, LIA for
      MPTCP), and everything outside its TCP options: the coupled slow start with its parameters (LISA's ACKs
      to ignore, GSAM's K), a scheduler the experiment names, the path manager and its subflows, the receive
      buffer, network coding, size, start, sequence and copies;
    - replaced by the profile's: every other TCP option (loss recovery, SACK, timestamps, delayed ACKs, RTO
      bounds, receive window and send buffer, HyStart, ACK counting, framing and option layout, MPTCP's join and
      connection-level receive window), and the scheduler where the experiment names none (Linux 6.18's
      ``linger`` under ``linux``).

    The network, the UDP flows, traces, seed and duration are the scenario's.
    """
    if stack == "paper":
        return scenario
    if stack not in JUDGED_ON:
        raise ValueError(f"stack: unknown '{stack}'; allowed: {', '.join(JUDGED_ON)}")
    flows = [_flow_on(f, stack) if isinstance(f, TcpFlow | MptcpFlow) else f for f in scenario.flows]
    return scenario.model_copy(update={"flows": flows})


def _flow_on(flow: TcpFlow | MptcpFlow, profile: str) -> TcpFlow | MptcpFlow:
    """One flow on ``profile`` (:func:`on_stack`)."""
    paper = flow.tcp
    defaults = profile_params(paper.profile)
    window = paper.initial_cwnd if paper.initial_cwnd is not None else defaults["initial_cwnd_segments"]
    ssthresh = paper.initial_ssthresh
    if ssthresh is None and defaults["initial_ssthresh_bytes"] is not None:
        ssthresh = SizeSpec(defaults["initial_ssthresh_bytes"], "bytes")
    tcp = TcpOptions.model_validate(
        {"profile": profile, "mss": paper.mss_bytes, "initial_cwnd": window, "initial_ssthresh": ssthresh}
    )
    cc = flow.cc or default_congestion_control(paper.profile, isinstance(flow, MptcpFlow))
    return flow.model_copy(update={"tcp": tcp, "cc": cc})


@cache
def default_congestion_control(profile: str, mptcp: bool) -> CongestionControl:
    """The congestion control a flow of ``profile`` (an MPTCP connection when ``mptcp``) runs when it names none,
    as the core resolves it for a flow between two hosts (nothing is run)."""
    flow = {"type": "mptcp" if mptcp else "tcp", "name": "f", "src": "a", "dst": "b", "tcp": {"profile": profile}}
    links = [{"from": "a", "to": "b", "rate": "1Mbps"}]
    probe = Scenario.from_dict({"duration": "1s", "hosts": ["a", "b"], "links": links, "flows": [flow]})
    (resolved,) = json.loads(resolved_json(json.dumps(probe.to_core())))
    return CongestionControl(type=resolved["cc"]["type"])


# ============================================================================ GSAM's threshold K

NS_PER_S = 1_000_000_000
"""Nanoseconds in a second (``base.S``; this module stands below base.py, which builds on it)."""

IP_TCP_HEADER_BYTES = 40
"""IPv4 and TCP headers without options: a full segment is MSS + 40 B on the wire without timestamps."""
PPP_FRAMING_BYTES = 2
"""The link-layer bytes of ns-3's point-to-point links on every packet (the ``ns3`` profile's framing)."""


def gsam_k_ns(buffer_pkts: int, wire_bytes: int, rate_bps: int, d_ns: int) -> int:
    """GSAM's RTT threshold, Eq. 15's upper end, **not** clamped to D: K = D/2 + B·S·8/(2C), nanoseconds.

    B is the bottleneck buffer in packets, S a full segment's wire size, C the bottleneck rate and D the
    path's round-trip time without queueing. Both author implementations compute this value and use it
    as it is, also where it falls below D (B < C·D); the core's derived K would be max(D, …). Every
    experiment passes this K, so GSAM runs the same way beside every stack.
    """
    return d_ns // 2 + buffer_pkts * wire_bytes * 8 * NS_PER_S // (2 * rate_bps)


def gsam(k_ns: int) -> SlowStart:
    """GSAM with the threshold ``k_ns`` (:func:`gsam_k_ns`)."""
    return SlowStart(type="gsam", k_ns=k_ns)


def min_rtt_ns(path: Sequence[Link], data_wire: int, ack_wire: int) -> int:
    """The smallest RTT a full segment can measure on ``path`` (its links in the data direction, each
    used back by an ACK on its reverse link of equal rate and delay): propagation both ways plus the
    serialisation of the segment forward and of its ACK back. This is what a sender's min_RTT converges to."""
    total = 0
    for link in path:
        total += 2 * link.delay
        total += (data_wire + ack_wire) * 8 * NS_PER_S // link.mean_rate
    return total


def gsam_on_path(
    links: Sequence[Link],
    route: Sequence[str],
    buffer_pkts: int,
    rate_bps: int,
    wire_bytes: int,
    ack_wire_bytes: int,
) -> SlowStart:
    """GSAM for a subflow whose data takes the links named ``route`` (in order, each a duplex link's forward
    direction) through a bottleneck of ``rate_bps`` with ``buffer_pkts``: K from the path's min RTT D."""
    by_name = {link.forward_name: link for link in links}
    d = min_rtt_ns([by_name[n] for n in route], wire_bytes, ack_wire_bytes)
    return gsam(gsam_k_ns(buffer_pkts, wire_bytes, rate_bps, d))
