"""Builds and runs validation scenarios in ns-3.44 through its Python bindings.

Runs only in ``validation/.venv-ns3`` (``pip install ns3==3.44.post0``): ``python -m validation.ns3_side
--out validation/reference/ns3-3.44.jsonl [--traces DIR] [--only SUBSTRING]``. Importing ns-3 costs about
10 s, so one process runs the whole grid; each scenario gets fresh defaults and ends with
``Simulator::Destroy``.

How the settings are matched to mpsim (docs/validation.md lists them too):

- Queues: ``Ipv4AddressHelper::Assign`` installs a 1000-packet ``pfifo_fast`` queue disc on every device,
  in front of the device's own 100-packet ``DropTailQueue``; with flow control that would make every
  buffer 1000 packets larger. The queue discs are removed, so a link's buffer is its device queue, which
  like mpsim's drop-tail holds the packets waiting and not the one on the wire.
- TCP: ``SegmentSize`` is the MSS, ``InitialCwnd`` the initial window; ``TcpL4Protocol::SocketType``,
  ``TcpSocketBase::Sack`` and ``TcpSocket::DelAckCount`` the variant; everything else stays ns-3's default
  (PRR recovery, timestamps, window scaling, limited transmit, min RTO 1 s, 1 ms clock granularity, 128 KiB
  send and receive buffers, 3 s SYN timeout).
- Traffic: the measured flow is a ``BulkSendApplication`` with ``MaxBytes`` the file size (its ``Connect``
  sends the SYN at the start time); the background TCP flow a ``BulkSendApplication`` without limit; the
  UDP flow a ``UdpClient`` that sends its first packet at its start and then one per interval, with
  970 bytes of payload so that the packet is 1000 bytes on the wire (+8 UDP, +20 IP, +2 PPP).

Measured by a C++ probe on the measured flow's socket (traces ``Tx``, ``HighestRxAck``,
``CongestionWindow``, ``SlowStartThreshold``, ``CongState``, ``RTO``): completion time from the SYN to the
ACK of the last data byte, data segments sent again (a ``Tx`` below the highest sequence sent),
retransmission timeouts (the RTO doubling that ``TcpSocketBase::ReTxTimeout`` does on every expiry),
fast-recovery episodes (entries into ``CA_RECOVERY``) and the congestion window the last ACK finds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from validation.scenarios import MS, Scenario, grid

NS3_VERSION = "3.44"

PROBE_CPP = r"""
#include <cstdio>
#include <string>
#include <vector>

namespace mpsim_validation
{
using namespace ns3;

// What one TCP sender did, recorded from its socket's trace sources.
struct FlowProbe
{
    uint64_t fileBytes = 0;      // payload of the transfer; 0 for a flow without end
    bool stopWhenComplete = false;
    int64_t completeNs = -1;     // time of the ACK of the last data byte
    uint64_t highestSentEnd = 1; // one past the highest data byte sent (data starts at 1)
    uint64_t dataSegments = 0;
    uint64_t retransmissions = 0;
    uint64_t rtos = 0;
    uint64_t recoveries = 0;
    uint64_t lossStates = 0;
    uint32_t cwnd = 0;
    uint32_t cwndAtComplete = 0;
    int64_t sampleAtNs = -1;     // a time at which to note the window (a background flow's at the
    uint32_t cwndAtSample = 0;   // measured flow's start)
    uint32_t ssthresh = UINT32_MAX;
    uint32_t ssthreshAtSample = UINT32_MAX;
    bool recordTrace = false;
    std::vector<std::string> trace; // "t_ns,kind,a,b" lines for diagnosis

    void Note(const char* kind, int64_t a, int64_t b)
    {
        if (recordTrace)
        {
            char line[128];
            std::snprintf(line, sizeof line, "%lld,%s,%lld,%lld",
                          (long long)Simulator::Now().GetNanoSeconds(), kind, (long long)a, (long long)b);
            trace.emplace_back(line);
        }
    }

    void OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        uint32_t size = p->GetSize();
        if (size == 0)
        {
            return;
        }
        uint64_t seq = h.GetSequenceNumber().GetValue();
        dataSegments++;
        bool retx = seq < highestSentEnd;
        if (retx)
        {
            retransmissions++;
        }
        else
        {
            highestSentEnd = seq + size;
        }
        Note(retx ? "retx" : "tx", seq, size);
    }

    void OnAck(SequenceNumber32, SequenceNumber32 ack)
    {
        Note("ack", ack.GetValue(), 0);
        if (fileBytes > 0 && completeNs < 0 && ack.GetValue() >= fileBytes + 1)
        {
            completeNs = Simulator::Now().GetNanoSeconds();
            cwndAtComplete = cwnd;
            if (stopWhenComplete)
            {
                Simulator::Stop();
            }
        }
    }

    void OnCwnd(uint32_t, uint32_t now)
    {
        cwnd = now;
        if (Simulator::Now().GetNanoSeconds() <= sampleAtNs)
        {
            cwndAtSample = now;
        }
        // HighestRxAck moves before the ACK is processed: the window noted at completion is the one the
        // last ACK found, as mpsim's flow stops at that ACK.
        if (completeNs < 0)
        {
            cwndAtComplete = now;
        }
        Note("cwnd", now, 0);
    }

    void OnSsthresh(uint32_t, uint32_t now)
    {
        ssthresh = now;
        if (Simulator::Now().GetNanoSeconds() <= sampleAtNs)
        {
            ssthreshAtSample = now;
        }
        Note("ssthresh", now, 0);
    }

    void OnState(TcpSocketState::TcpCongState_t old, TcpSocketState::TcpCongState_t now)
    {
        if (now == TcpSocketState::CA_RECOVERY)
        {
            recoveries++;
        }
        if (now == TcpSocketState::CA_LOSS)
        {
            lossStates++;
        }
        Note("state", old, now);
    }

    void OnInFlight(uint32_t, uint32_t now)
    {
        Note("pipe", now, 0);
    }

    void OnRto(Time old, Time now)
    {
        // ReTxTimeout doubles m_rto (capped at 60 s) on every expiry; an RTT sample sets it otherwise.
        if (now.GetNanoSeconds() == 2 * old.GetNanoSeconds() ||
            (now == Seconds(60) && old.GetNanoSeconds() > 30 * 1000000000LL))
        {
            rtos++;
            Note("rto", old.GetNanoSeconds(), now.GetNanoSeconds());
        }
    }
};

// What a node drops because its device's queue is full: with the queue discs removed, the traffic
// control layer drops a packet for a stopped (full) device queue before the device sees it.
// Lines "t_ns,drop,IP bytes,TCP sequence (-1 for UDP),node" for diagnosis.
struct DropLog
{
    std::vector<std::string> trace;
    uint32_t node = 0;

    void OnDrop(Ptr<const Packet> p)
    {
        Ptr<Packet> copy = p->Copy();
        Ipv4Header ip;
        copy->RemoveHeader(ip);
        long long seq = -1;
        if (ip.GetProtocol() == 6)
        {
            TcpHeader tcp;
            copy->PeekHeader(tcp);
            seq = tcp.GetSequenceNumber().GetValue();
        }
        char line[128];
        std::snprintf(line, sizeof line, "%lld,drop,%u,%lld,%u",
                      (long long)Simulator::Now().GetNanoSeconds(), p->GetSize(), seq, node);
        trace.emplace_back(line);
    }
};

bool AttachDropLog(Ptr<Node> node, DropLog* log)
{
    log->node = node->GetId();
    return node->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop", MakeCallback(&DropLog::OnDrop, log));
}

void Attach(Ptr<Application> app, FlowProbe* probe)
{
    Ptr<Socket> socket = DynamicCast<BulkSendApplication>(app)->GetSocket();
    socket->TraceConnectWithoutContext("Tx", MakeCallback(&FlowProbe::OnTx, probe));
    socket->TraceConnectWithoutContext("HighestRxAck", MakeCallback(&FlowProbe::OnAck, probe));
    socket->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&FlowProbe::OnCwnd, probe));
    socket->TraceConnectWithoutContext("SlowStartThreshold", MakeCallback(&FlowProbe::OnSsthresh, probe));
    socket->TraceConnectWithoutContext("CongState", MakeCallback(&FlowProbe::OnState, probe));
    socket->TraceConnectWithoutContext("RTO", MakeCallback(&FlowProbe::OnRto, probe));
    if (probe->recordTrace)
    {
        socket->TraceConnectWithoutContext("BytesInFlight", MakeCallback(&FlowProbe::OnInFlight, probe));
    }
}

// The application creates its socket (and sends the SYN) at its start time; attach one nanosecond later.
void AttachAt(Ptr<Application> app, FlowProbe* probe, int64_t startNs)
{
    Simulator::Schedule(NanoSeconds(startNs + 1) - Simulator::Now(), &Attach, app, probe);
}
} // namespace mpsim_validation
"""


def _load_ns3() -> Any:
    from ns import ns

    ns.cppyy.cppdef(PROBE_CPP)
    return ns


def _p2p(ns: Any, a: Any, b: Any, rate_bps: int, delay_ns: int, buffer_pkts: int) -> Any:
    helper = ns.PointToPointHelper()
    helper.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(rate_bps)))
    helper.SetChannelAttribute("Delay", ns.TimeValue(ns.NanoSeconds(delay_ns)))
    helper.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{buffer_pkts}p")))
    return helper.Install(a, b)


def _set_defaults(ns: Any, sc: Scenario) -> None:
    cc = {"new_reno": "ns3::TcpNewReno", "cubic": "ns3::TcpCubic"}[sc.variant.cc]
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName(cc)))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(sc.mss_bytes))
    ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(sc.initial_cwnd_segments))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(sc.variant.delack_segments))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(sc.variant.sack))
    ns.RngSeedManager.SetSeed(sc.seed)
    ns.RngSeedManager.SetRun(1)


def _bulk(ns: Any, src: Any, dst_addr: Any, port: int, max_bytes: int, mss: int, start_ns: int) -> Any:
    helper = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(dst_addr, port).ConvertTo())
    helper.SetAttribute("MaxBytes", ns.UintegerValue(max_bytes))
    helper.SetAttribute("SendSize", ns.UintegerValue(mss))
    apps = helper.Install(src)
    apps.Start(ns.NanoSeconds(start_ns))
    return apps.Get(0)


def _sink(ns: Any, node: Any, port: int) -> None:
    helper = ns.PacketSinkHelper(
        "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
    )
    helper.Install(node).Start(ns.Seconds(0))


def run_scenario(ns: Any, sc: Scenario, trace_dir: Path | None = None) -> dict[str, Any]:
    """Builds ``sc`` in ns-3, runs it until the measured transfer completes, returns its measurements."""
    _set_defaults(ns, sc)
    senders, receivers, routers = ns.NodeContainer(), ns.NodeContainer(), ns.NodeContainer()
    senders.Create(3)
    receivers.Create(3)
    n_routers = 3 if sc.topology == "parking_lot" else 2
    routers.Create(n_routers)
    stack = ns.InternetStackHelper()
    for c in (senders, receivers, routers):
        stack.Install(c)

    # (node a, node b, rate, delay, buffer) for every duplex link; routers R1.. are routers.Get(0..).
    r = [routers.Get(i) for i in range(n_routers)]
    access = (sc.access_bps, sc.access_delay_ns, sc.access_buffer_pkts)
    bottleneck = (sc.bottleneck_bps, sc.bottleneck_delay_ns, sc.buffer_pkts)
    links: list[tuple[Any, Any, tuple[int, int, int]]] = []
    if sc.topology == "dumbbell":
        links.append((r[0], r[1], bottleneck))
        for i in range(3):
            links += [(senders.Get(i), r[0], access), (r[1], receivers.Get(i), access)]
    else:
        links += [(r[0], r[1], bottleneck), (r[1], r[2], bottleneck)]
        ends = ((0, 2), (0, 1), (1, 2))  # S1 R1→R3 D1, S2 R1→R2 D2, S3 R2→R3 D3
        for i, (a, b) in enumerate(ends):
            links += [(senders.Get(i), r[a], access), (r[b], receivers.Get(i), access)]

    address = ns.Ipv4AddressHelper()
    tc = ns.TrafficControlHelper()
    receiver_addr: dict[int, Any] = {}
    for k, (a, b, (rate, delay, buf)) in enumerate(links):
        devices = _p2p(ns, a, b, rate, delay, buf)
        address.SetBase(ns.Ipv4Address(f"10.{k // 250}.{k % 250}.0"), ns.Ipv4Mask("255.255.255.0"))
        ifaces = address.Assign(devices)
        tc.Uninstall(devices)
        for i in range(3):
            if b == receivers.Get(i):
                receiver_addr[i] = ifaces.GetAddress(1)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    drop_logs = []
    if trace_dir is not None:
        for c in (senders, routers, receivers):
            for i in range(c.GetN()):
                log = ns.cppyy.gbl.mpsim_validation.DropLog()
                if not ns.cppyy.gbl.mpsim_validation.AttachDropLog(c.Get(i), log):
                    raise RuntimeError("no TcDrop trace source on the traffic control layer")
                drop_logs.append(log)

    port = 5000
    for i in range(3):
        _sink(ns, receivers.Get(i), port)
    short = _bulk(ns, senders.Get(0), receiver_addr[0], port, sc.file_bytes, sc.mss_bytes, sc.short_start_ns)
    background = ns.cppyy.gbl.mpsim_validation.FlowProbe()
    background.sampleAtNs = sc.short_start_ns
    background.recordTrace = trace_dir is not None
    if sc.background_tcp:
        long = _bulk(ns, senders.Get(1), receiver_addr[1], port, 0, sc.mss_bytes, sc.background_start_ns)
        ns.cppyy.gbl.mpsim_validation.AttachAt(long, background, sc.background_start_ns)
    if sc.topology == "parking_lot":
        _bulk(ns, senders.Get(2), receiver_addr[2], port, 0, sc.mss_bytes, sc.background_start_ns)
    if sc.udp_rate_bps > 0:
        udp_port = 6000
        server = ns.UdpServerHelper(udp_port)
        server.Install(receivers.Get(2)).Start(ns.Seconds(0))
        client = ns.UdpClientHelper(receiver_addr[2].ConvertTo(), udp_port)
        interval_ns = sc.udp_packet_bytes * 8 * 1_000_000_000 // sc.udp_rate_bps
        client.SetAttribute("MaxPackets", ns.UintegerValue(0))
        client.SetAttribute("Interval", ns.TimeValue(ns.NanoSeconds(interval_ns)))
        client.SetAttribute("PacketSize", ns.UintegerValue(sc.udp_packet_bytes - 30))
        client.Install(senders.Get(2)).Start(ns.NanoSeconds(sc.background_start_ns))

    probe = ns.cppyy.gbl.mpsim_validation.FlowProbe()
    probe.fileBytes = sc.file_bytes
    probe.stopWhenComplete = True
    probe.recordTrace = trace_dir is not None
    ns.cppyy.gbl.mpsim_validation.AttachAt(short, probe, sc.short_start_ns)
    ns.Simulator.Stop(ns.NanoSeconds(sc.time_limit_ns))
    ns.Simulator.Run()
    ns.Simulator.Destroy()

    completed = probe.completeNs >= 0
    row = {
        "name": sc.name,
        "fct_s": (probe.completeNs - sc.short_start_ns) / 1e9 if completed else None,
        "retransmissions": int(probe.retransmissions),
        "rto_count": int(probe.rtos),
        "fast_recoveries": int(probe.recoveries),
        "cwnd_bytes_at_end": int(probe.cwndAtComplete),
        "segments_sent": int(probe.dataSegments),
    }
    if sc.background_tcp:
        row["background_cwnd_bytes_at_start"] = int(background.cwndAtSample)
        ssthresh = int(background.ssthreshAtSample)
        row["background_ssthresh_bytes_at_start"] = None if ssthresh == 2**32 - 1 else ssthresh
    if trace_dir is not None:
        trace_dir.mkdir(parents=True, exist_ok=True)
        lines = "\n".join(str(line) for line in probe.trace)
        (trace_dir / f"{sc.name}.csv").write_text("t_ns,kind,a,b\n" + lines + "\n")
        lines = "\n".join(str(line) for log in drop_logs for line in log.trace)
        (trace_dir / f"{sc.name}.drops.csv").write_text("t_ns,kind,bytes,seq,node\n" + lines + "\n")
        if sc.background_tcp:
            lines = "\n".join(str(line) for line in background.trace)
            (trace_dir / f"{sc.name}.long2.csv").write_text("t_ns,kind,a,b\n" + lines + "\n")
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON-lines file of results, one per scenario")
    parser.add_argument("--traces", type=Path, help="directory for per-scenario traces of the measured flow")
    parser.add_argument("--only", default="", help="run only scenarios whose name contains this")
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    ns = _load_ns3()
    scenarios = [s for s in grid() if args.only in s.name]
    rows = []
    for k, sc in enumerate(scenarios, 1):
        row = run_scenario(ns, sc, args.traces)
        rows.append(row)
        print(f"[{k}/{len(scenarios)} {time.monotonic() - t0:.0f}s] {json.dumps(row)}", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    header = {"ns3_version": NS3_VERSION, "scenarios": len(rows), "time_limit_ms": scenarios[0].time_limit_ns // MS}
    with args.out.open("w") as f:
        f.write(json.dumps({"meta": header}) + "\n")
        for row in rows:
            f.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
