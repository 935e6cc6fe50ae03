#!/bin/bash
# A packet capture of one rig transfer, for diagnosing a cell. Runs inside the rig's namespaces:
#   cd ../shared/tools/linux-rig && ./run.sh --variant shared --direction up --buffer-pkts 48 --bulk \
#       --exec "bash /path/to/validation/linux/capture.sh PROTO SIZE CC OUTDIR [DIRECTION]"
# DIRECTION is the rig's --direction: up (the default: the client sends) or down (the client
# connects and the server sends); pass the same value to run.sh. tcpdump records the client's two
# interfaces (c1, c2) and the server's (sb): the sender's own view is c1/c2 for an upload and sb for
# a download. Writes OUTDIR/{c1,c2,sb}.pcap, the transfer's JSON lines, and the nstat deltas of
# the sender's namespace. With SS_POLL=1 in the environment it also records the receiver's socket
# memory and windows (`ss -tmMi`: each subflow's and the MPTCP socket's rb, rcv_space, rcv_ssthresh,
# rcv_rtt) about every 10 ms, each sample after a "T <epoch seconds>" line, in OUTDIR/ss.txt (SS_SIDE=sender polls
# the sender's sockets instead: cwnd, pacing rate, and BBR's `bbr:(bw, mrtt, pacing_gain, cwnd_gain)`). With
# TCP_PROBE=1 it records the kernel's tcp:tcp_probe tracepoint (every segment an established TCP socket or
# MPTCP subflow receives: its cwnd, ssthresh, srtt, snd_una, snd_nxt before the segment is processed) in
# OUTDIR/tcp_probe.txt. With MPTCP_TRACE=1 it records the MPTCP scheduler's tracepoints in
# OUTDIR/mptcp_trace.txt: mptcp:mptcp_subflow_get_send (each time mptcp_subflow_get_send looks at an active
# subflow: its current pacing rate and sk_wmem_queued << 32 over it) and mptcp:mptcp_sendmsg_frag (each
# mapping handed to a subflow). With RECV_TRACE=1 it records sock:sock_recv_length and sock:sk_data_ready (each
# read the receiving application makes, with its length, and each wake-up of a socket) in
# OUTDIR/recv_trace.txt. All need tracefs at /sys/kernel/tracing; with several, each file holds them all.
# With QUICK_POLL=1 it polls /proc/net/tcp in the receiver's namespace (every few milliseconds: the file walks
# the whole socket table) and records each change of a socket's delayed-ACK state in OUTDIR/quick.txt, one line
# "<epoch seconds> <local port> <remote port> <quick> <pingpong> <ato jiffies> <rx queue bytes>": `quick` is
# Linux's count of quick ACKs still to send (`icsk_ack.quick`), which no tracepoint or `ss` field shows.
set -eu
PROTO=$1 SIZE=$2 CC=$3 OUT=$4 DIR=${5:-up}
case "$DIR" in
    up) SROLE=recv CROLE=send SENDER_NS=$NS_CLI ;;
    down) SROLE=send CROLE=recv SENDER_NS=$NS_SRV ;;
    *) echo "capture.sh: DIRECTION must be up or down, got '$DIR'" >&2; exit 2 ;;
esac
RIG=$(pwd)
mkdir -p "$OUT"
export NSTAT_HISTORY="$OUT/nstat.history"   # nstat keeps its history per file, not per namespace
PIDS=()
for spec in "$NS_CLI c1" "$NS_CLI c2" "$NS_SRV sb"; do
    set -- $spec
    ip netns exec "$1" tcpdump -i "$2" -n -s 128 -w "$OUT/$2.pcap" tcp 2>/dev/null &
    PIDS+=($!)
done
RECEIVER_NS=$NS_SRV
[ "$DIR" = down ] && RECEIVER_NS=$NS_CLI
SS_NS=$RECEIVER_NS
[ "${SS_SIDE:-receiver}" = sender ] && SS_NS=$SENDER_NS
if [ "${SS_POLL:-0}" = 1 ]; then
    ( while true; do echo "T $(date +%s.%N)"; ip netns exec "$SS_NS" ss -tmMiHn state established; \
        sleep 0.003; done > "$OUT/ss.txt" 2>/dev/null ) &
    PIDS+=($!)
fi
if [ "${QUICK_POLL:-0}" = 1 ]; then
    ip netns exec "$RECEIVER_NS" python3 - "$OUT/quick.txt" <<'PY' &
import sys, time
last = {}
with open(sys.argv[1], "w", buffering=1) as out:
    while True:
        t = time.time()
        with open("/proc/net/tcp") as f:
            f.readline()
            for line in f:
                p = line.split()
                if len(p) < 17:  # a socket closing as the file is read
                    continue
                key = (int(p[1].split(":")[1], 16), int(p[2].split(":")[1], 16))
                # get_tcp4_sock: ... rto, ato, (quick << 1) | pingpong, cwnd, ssthresh
                val = (int(p[14]) >> 1, int(p[14]) & 1, int(p[13]), int(p[4].split(":")[1], 16))
                if last.get(key) != val:
                    last[key] = val
                    out.write("%.6f %d %d %d %d %d %d\n" % ((t,) + key + val))
PY
    PIDS+=($!)
fi
TRACING=/sys/kernel/tracing
EVENTS=()
[ "${TCP_PROBE:-0}" = 1 ] && EVENTS+=(tcp/tcp_probe)
[ "${MPTCP_TRACE:-0}" = 1 ] && EVENTS+=(mptcp/mptcp_subflow_get_send mptcp/mptcp_sendmsg_frag)
[ "${RECV_TRACE:-0}" = 1 ] && EVENTS+=(sock/sock_recv_length sock/sk_data_ready)
events_off() {
    for e in "${EVENTS[@]}"; do echo 0 > "$TRACING/events/$e/enable"; done
}
if [ ${#EVENTS[@]} -gt 0 ]; then
    # The tracepoints are global: switched off however the script ends.
    trap 'events_off; echo 0 > "$TRACING/tracing_on"' EXIT
    echo 0 > "$TRACING/tracing_on"
    echo > "$TRACING/trace"
    echo 65536 > "$TRACING/buffer_size_kb"
    for e in "${EVENTS[@]}"; do echo 1 > "$TRACING/events/$e/enable"; done
    echo 1 > "$TRACING/tracing_on"
fi
sleep 1
ip netns exec "$SENDER_NS" nstat -n >/dev/null
ip netns exec "$NS_SRV" python3 "$RIG/xfer.py" serve --bind 10.200.4.2 --proto "$PROTO" --role "$SROLE" \
    --size "$SIZE" --cc "$CC" > "$OUT/server.json" &
SERVER=$!
sleep 0.3
ip netns exec "$NS_CLI" python3 "$RIG/xfer.py" client --addr 10.200.4.2 --proto "$PROTO" --role "$CROLE" \
    --size "$SIZE" --cc "$CC" > "$OUT/client.json"
wait "$SERVER"
sleep 1
if [ ${#EVENTS[@]} -gt 0 ]; then
    echo 0 > "$TRACING/tracing_on"
    events_off
    [ "${TCP_PROBE:-0}" = 1 ] && cp "$TRACING/trace" "$OUT/tcp_probe.txt"
    [ "${MPTCP_TRACE:-0}" = 1 ] && cp "$TRACING/trace" "$OUT/mptcp_trace.txt"
    [ "${RECV_TRACE:-0}" = 1 ] && cp "$TRACING/trace" "$OUT/recv_trace.txt"
fi
ip netns exec "$SENDER_NS" nstat > "$OUT/nstat-sender.txt" || true
for pid in "${PIDS[@]}"; do kill "$pid"; done
wait "${PIDS[@]}" 2>/dev/null || true
