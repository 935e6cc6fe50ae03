#!/bin/bash
# Two TCP flows of different congestion controls sharing the rig's bottleneck, for their throughput shares.
# Runs inside the rig's namespaces (an upload: the client sends):
#   cd ../shared/tools/linux-rig && ./run.sh --variant shared --direction up --rate-mbit R --rtt-ms T \
#       --buffer-pkts B --bulk --exec "bash /path/to/validation/linux/share.sh CC_A CC_B SECONDS OUTFILE [RUNS]"
# Both flows go from the client's first address to the server, CC_A to port 5001 and CC_B to port 5002; they start
# together and send without end for SECONDS. Every 0.1 s the client's `ss -ti` gives each socket's bytes_acked, the
# time it has been busy sending (its data started that long before the sample) and its retransmissions. RUNS runs
# (default 1), one after the other, each appended to OUTFILE as a line "run <i>", one line per sample
# "<seconds since the poll started> <port> <bytes_acked> <busy ms> <segments retransmitted>", and a line
# "drops <n>": the packets the bottleneck dropped during the run. `python -m validation.linux.shares` reads it.
set -eu
A=$1 B=$2 SECS=$3 OUT=$4 RUNS=${5:-1}
RIG=$(pwd)
SIZE=100000000000   # more than either flow can send in SECONDS
PAUSE_S=2           # between runs: the bottleneck's queue drains, the killed sockets are gone
# xfer ROLE NAMESPACE MODE PORT CC: one side of one flow (xfer.py), in the background.
xfer() {
    ip netns exec "$2" python3 "$RIG/xfer.py" "$3" --port "$4" --proto tcp --role "$1" --size "$SIZE" --cc "$5" \
        $([ "$3" = serve ] && echo --bind || echo --addr) 10.200.4.2 > /dev/null 2>&1 &
    PIDS+=($!)
}
# The upload's bottleneck: the pfifo under the tbf on the first router's egress towards the second.
drops() {
    tc -n "$NS_RA" -s -j qdisc show dev ab |
        python3 -c 'import json, sys; print(sum(q.get("drops", 0) for q in json.load(sys.stdin) if q["kind"] == "pfifo"))'
}
for run in $(seq 1 "$RUNS"); do
    PIDS=()
    echo "run $run" >> "$OUT"
    before=$(drops)
    xfer recv "$NS_SRV" serve 5001 "$A"
    xfer recv "$NS_SRV" serve 5002 "$B"
    sleep 0.3
    xfer send "$NS_CLI" client 5001 "$A"
    xfer send "$NS_CLI" client 5002 "$B"
    ip netns exec "$NS_CLI" python3 - "$SECS" "$OUT" <<'PY'
import re, subprocess, sys, time
secs, out = float(sys.argv[1]), sys.argv[2]
start = time.monotonic()
with open(out, "a") as f:
    while (now := time.monotonic() - start) < secs:
        text = subprocess.run(
            ["ss", "-tinH", "state", "established", "dst", "10.200.4.2"], capture_output=True, text=True
        ).stdout
        # Each socket: a line with its addresses, then one with its tcp_info.
        port = None
        for line in text.splitlines():
            if m := re.search(r"10\.200\.4\.2:(\d+)", line):
                port = m.group(1)
            elif (acked := re.search(r"bytes_acked:(\d+)", line)) and port:
                busy = re.search(r"busy:(\d+)ms", line)
                retrans = re.search(r"retrans:\d+/(\d+)", line)
                f.write(
                    f"{now:.3f} {port} {acked.group(1)} {busy.group(1) if busy else 0} "
                    f"{retrans.group(1) if retrans else 0}\n"
                )
                port = None
        time.sleep(0.1)
PY
    # The receivers first: their sockets close with data unread and reset the senders', so nothing is left sending.
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    echo "drops $(($(drops) - before))" >> "$OUT"
    sleep "$PAUSE_S"
done
