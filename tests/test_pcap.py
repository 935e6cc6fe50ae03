"""Packet captures (``mpsim run --pcap DIR``) read by tshark, Debian's: every packet decodes without
error, the MPTCP options are there, and tshark's own TCP analysis counts as many retransmissions and
duplicate ACKs as mpsim on lossy runs. tshark is installed by ``make tools`` (a prerequisite of ``make test``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mpsim
from tshark import tshark

LOSSY_TCP = """
seed = 3
duration = "20s"
hosts = ["A", "B"]

[[links]]
from = "A"
to = "B"
rate = "10Mbps"
delay = "10ms"
loss = "1%"
queue = { type = "drop_tail", limit = "40pkt" }

[[flows]]
name = "f"
type = "tcp"
src = "A"
dst = "B"
size = "3MB"
cc = "reno"
"""

LOSSY_MPTCP = """
seed = 5
duration = "20s"
hosts = ["S", "D"]
routers = ["R1", "R2"]

[[links]]
from = "S"
to = "R1"
rate = "10Mbps"
delay = "10ms"
loss = "1%"

[[links]]
from = "S"
to = "R2"
rate = "5Mbps"
delay = "30ms"
loss = "0.5%"

[[links]]
from = "R1"
to = "D"
rate = "100Mbps"
delay = "1ms"

[[links]]
from = "R2"
to = "D"
rate = "100Mbps"
delay = "1ms"

[[addresses]]
name = "S1"
node = "S"
out_link = "S-R1"
in_link = "R1-S"

[[addresses]]
name = "S2"
node = "S"
out_link = "S-R2"
in_link = "R2-S"

[[flows]]
name = "mp"
type = "mptcp"
src = ["S1", "S2"]
dst = "D"
size = "3MB"
cc = "olia"

[trace]
segments = ["mp"]
"""

# At a sender's capture point every segment below the highest sequence number sent is a retransmission;
# tshark calls some of them "out-of-order" or "spurious" by its timing heuristics, so all four count.
RETRANSMISSIONS = (
    "tcp.analysis.retransmission || tcp.analysis.fast_retransmission || "
    "tcp.analysis.spurious_retransmission || tcp.analysis.out_of_order"
)


def senders(pcap: Path) -> list[str]:
    """The addresses that opened a connection (sent a SYN without ACK), sorted."""
    return sorted(set(tshark(pcap, "tcp.flags.syn == 1 && tcp.flags.ack == 0", "ip.src")))


def run_with_pcap(tmp_path: Path, text: str) -> tuple[mpsim.Results, Path]:
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(text)
    out = tmp_path / "pcap"
    return mpsim.run(scenario, pcap=out), out


def assert_clean(pcap: Path) -> None:
    """Every packet decodes: no malformed packet and no expert error."""
    assert tshark(pcap, "frame") != []
    assert tshark(pcap, "_ws.malformed || _ws.expert.severity == error") == []


def test_tshark_counts_the_retransmissions_of_a_lossy_tcp_flow(tmp_path: Path) -> None:
    res, out = run_with_pcap(tmp_path, LOSSY_TCP)
    assert sorted(p.name for p in out.iterdir()) == ["host-A.pcap", "host-B.pcap"]
    flow = res.tcp_flows.to_pylist()[0]
    expected = flow["retransmits_fast"] + flow["retransmits_rto"] + flow["syn_retransmits"]
    assert expected > 10
    for pcap in out.iterdir():
        assert_clean(pcap)
    # A's capture holds what A sent (and the ACKs delivered to it).
    a = out / "host-A.pcap"
    (sender,) = senders(a)
    sent = tshark(a, f"ip.src == {sender} && ({RETRANSMISSIONS})")
    assert len(sent) == expected
    # Every data segment is in A's capture, retransmissions included.
    data = tshark(a, f"ip.src == {sender} && tcp.len > 0")
    assert len(data) == flow["segments_sent"]


def test_tshark_decodes_mptcp_and_counts_its_retransmissions(tmp_path: Path) -> None:
    res, out = run_with_pcap(tmp_path, LOSSY_MPTCP)
    assert sorted(p.name for p in out.iterdir()) == ["host-D.pcap", "host-S.pcap"]
    for pcap in out.iterdir():
        assert_clean(pcap)
    s = out / "host-S.pcap"
    subflows = res.mptcp_subflows.to_pylist()
    expected = sum(r["retransmits_fast"] + r["retransmits_rto"] + r["syn_retransmits"] for r in subflows)
    assert expected > 10
    s1, s2 = senders(s)
    sent = tshark(s, f"(ip.src == {s1} || ip.src == {s2}) && ({RETRANSMISSIONS})")
    assert len(sent) == expected
    # The handshakes: MP_CAPABLE on the first subflow, MP_JOIN on the second (subtypes 0 and 1).
    subtypes = {line for line in tshark(s, "tcp.flags.syn == 1", "tcp.options.mptcp.subtype")}
    assert subtypes == {"0", "1"}
    # Every data segment maps its payload to the data sequence space; the segment trace has the same
    # mappings, so tshark shows the data sequence numbers mpsim used.
    dsns = tshark(s, "tcp.len > 0", "tcp.options.mptcp.rawdataseqno")
    seg = res.segment_traces.to_pandas()
    sent_data = seg[(seg.event == "send") & (seg.payload_bytes > 0)]
    assert sorted(int(d) for d in dsns) == sorted(int(d) for d in sent_data.data_seq)
    # The receiver's ACKs carry DATA_ACKs.
    assert tshark(out / "host-D.pcap", "tcp.len == 0 && tcp.options.mptcp.dataackpresent.flag == 1") != []


# tshark's duplicate ACK: no data, no SYN, FIN or RST, the cumulative ACK and the window of the previous
# segment in that direction; RFC 5681 §2 adds only "while data is outstanding", which the ACKs of these
# transfers always are until the last one. The fourth packet of an MP_JOIN (the receiver's ACK of the third,
# under the `linux` profile's join) repeats the SYN-ACK's acknowledgement before any data is sent, but not its
# window: it offers the connection's window (Linux's autotuned one, `tcp.mptcp_rcv_window = "linux"`), the
# SYN-ACK the 65 535 bytes an unscaled window holds, so neither tshark nor RFC 5681 counts it.
DUPLICATE_ACKS = "tcp.analysis.duplicate_ack"


@pytest.mark.parametrize(("scenario", "host"), [(LOSSY_TCP, "host-A.pcap"), (LOSSY_MPTCP, "host-S.pcap")])
def test_tshark_counts_the_duplicate_acks_the_senders_received(tmp_path: Path, scenario: str, host: str) -> None:
    """The receiver of the ``linux`` profile (the default) never shrinks the window it offered (Linux
    ``tcp_select_window``, ``mptcp_set_rwin``; RFC 9293 §3.8.6): the duplicate ACKs of a loss, sent while
    out-of-order data fills its buffer, all carry the window of the ACK before them, so tshark counts each
    one. (The ``ns3`` profile offers the whole buffer whatever it holds, as ns-3 does: no shrinking either.)"""
    res, out = run_with_pcap(tmp_path, scenario)
    pcap = out / host
    rows = res.tcp_flows.to_pylist() or res.mptcp_subflows.to_pylist()
    expected = sorted(r["duplicate_acks"] for r in rows)
    assert sum(expected) > 100
    # The ACKs delivered to each sender, one address per subflow.
    counted = sorted(len(tshark(pcap, f"ip.dst == {sender} && {DUPLICATE_ACKS}")) for sender in senders(pcap))
    assert counted == expected


def test_mpsim_run_writes_the_captures(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(LOSSY_TCP.replace('size = "3MB"', 'size = "100KB"'))
    out = tmp_path / "captures"
    done = subprocess.run(
        [sys.executable, "-m", "mpsim.cli", "run", str(scenario), "--pcap", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "host-A.pcap").stat().st_size > 100 * 1000
    assert "host-A.pcap" in done.stderr


def test_a_traced_link_captures_every_packet_it_transmits(tmp_path: Path) -> None:
    res, out = run_with_pcap(tmp_path, LOSSY_TCP + '\n[trace]\nqueues = ["A-B"]\n')
    # The traced queue's link only: no flow is traced, so no host.
    assert sorted(p.name for p in out.iterdir()) == ["link-A-B.pcap"]
    pcap = out / "link-A-B.pcap"
    assert_clean(pcap)
    link = res.link("A-B")
    # Every packet that left the queue for the wire, those the wire then lost included.
    assert len(tshark(pcap, "frame")) == link["enqueued_pkts"] - link["queued_pkts_at_end"]
    assert link["dropped_loss_pkts"] > 0


def test_a_download_capture_shows_the_client_opening_each_subflow(tmp_path: Path) -> None:
    """A connection its receiver opens (``initiator = "receiver"``): the client's SYNs go to the server's
    listening port 5001 and offer a window; the handshakes' MPTCP options are the opener's and the
    listener's (RFC 8684 §3.1: the SYN no key, the SYN-ACK the listener's, the third ACK both; §3.2: the
    joining SYN a token, the SYN-ACK a truncated HMAC, the third ACK the whole HMAC); and no segment of the
    server carries a mapping of length 0, which RFC 8684 §3.3.1 reads as an infinite mapping."""
    text = LOSSY_MPTCP.replace('cc = "olia"', 'cc = "olia"\ninitiator = "receiver"')
    _, out = run_with_pcap(tmp_path, text)
    for pcap in out.iterdir():
        assert_clean(pcap)
    d = out / "host-D.pcap"
    (client,) = senders(d)
    # The client is the data's receiver: it sends no data.
    assert client not in set(tshark(d, "tcp.len > 0", "ip.src"))
    assert set(tshark(d, "tcp.flags.syn == 1 && tcp.flags.ack == 0", "tcp.dstport")) == {"5001"}
    assert all(int(w) > 0 for w in tshark(d, "tcp.flags.syn == 1 && tcp.flags.ack == 0", "tcp.window_size_value"))

    def count(display_filter: str) -> int:
        return len(tshark(d, display_filter))

    syn, syn_ack = "tcp.flags.syn == 1 && tcp.flags.ack == 0", "tcp.flags.syn == 1 && tcp.flags.ack == 1"
    third_ack = f"ip.src == {client} && tcp.flags.syn == 0 && tcp.len == 0 && tcp.seq == 1 && tcp.ack == 1"
    capable, join = "tcp.options.mptcp.subtype == 0", "tcp.options.mptcp.subtype == 1"
    assert count(f"{syn} && {capable}") == 1
    assert count(f"{syn} && {capable} && tcp.options.mptcp.sendkey") == 0
    assert count(f"{syn_ack} && {capable} && tcp.options.mptcp.sendkey") == 1
    assert count(f"{third_ack} && {capable} && tcp.options.mptcp.sendkey && tcp.options.mptcp.recvkey") == 1
    joins = count(f"{syn} && {join}")
    assert joins >= 1
    assert count(f"{syn} && {join} && tcp.options.mptcp.recvtok") == joins
    assert count(f"{syn_ack} && {join} && tcp.options.mptcp.sendtrunchmac") == joins
    assert count(f"{third_ack} && {join} && tcp.options.mptcp.sendhmac") == joins
    assert count(f"ip.src != {client} && tcp.options.mptcp.datalvllen == 0") == 0
    assert count(f"ip.src != {client} && tcp.len > 0 && tcp.options.mptcp.datalvllen > 0") > 1000
    assert_keys_by_role(d, client)


def assert_keys_by_role(pcap: Path, opener: str) -> None:
    """RFC 8684 §3.1: the SYN-ACK carries the listener's key, the third ACK the opener's then the listener's;
    so the third ACK's receiver's key is the SYN-ACK's sender's, and the opener's key is another."""
    key = "tcp.options.mptcp.sendkey"
    (listener_key,) = tshark(pcap, "tcp.flags.syn == 1 && tcp.flags.ack == 1 && tcp.options.mptcp.subtype == 0", key)
    third = f"ip.src == {opener} && tcp.flags.syn == 0 && tcp.options.mptcp.subtype == 0 && tcp.options.mptcp.recvkey"
    ((opener_key, echoed),) = [line.split("\t") for line in tshark(pcap, third, key, "tcp.options.mptcp.recvkey")]
    assert echoed == listener_key
    assert opener_key != listener_key


def test_an_upload_capture_shows_the_sender_opening_each_subflow(tmp_path: Path) -> None:
    """The default (``initiator = "sender"``): the sender connects to the receiver's port 5001 and its keys are
    the opener's."""
    _, out = run_with_pcap(tmp_path, LOSSY_MPTCP)
    s = out / "host-S.pcap"
    opener = senders(s)[0]
    assert set(tshark(s, "tcp.flags.syn == 1 && tcp.flags.ack == 0", "tcp.dstport")) == {"5001"}
    assert_keys_by_role(s, opener)
