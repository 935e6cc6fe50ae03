#!/bin/bash
# Two TCP flows of different congestion controls sharing the rig's bottleneck, for their throughput shares.
# Runs inside the rig's namespaces (an upload: the client sends):
#   cd ../shared/tools/linux-rig && ./run.sh --variant shared --direction up --rate-mbit R --rtt-ms T \
#       --buffer-pkts B --bulk --exec "bash /path/to/validation/linux/share.sh CC_A CC_B SECONDS OUTFILE"
# Both flows go from the client's first address to the server, CC_A to port 5001 and CC_B to port 5002; they start
# together and send without end for SECONDS. Every 0.1 s the client's `ss -ti` gives each socket's bytes_acked; the
# samples are appended to OUTFILE, one line "<seconds since the start> <port> <bytes_acked>".
set -eu
A=$1 B=$2 SECS=$3 OUT=$4
RIG=$(pwd)
SIZE=100000000000   # more than either flow can send in SECONDS
PIDS=()
# xfer ROLE NAMESPACE MODE PORT CC: one side of one flow (xfer.py), in the background.
xfer() {
    ip netns exec "$2" python3 "$RIG/xfer.py" "$3" --port "$4" --proto tcp --role "$1" --size "$SIZE" --cc "$5" \
        $([ "$3" = serve ] && echo --bind || echo --addr) 10.200.4.2 > /dev/null 2>&1 &
    PIDS+=($!)
}
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
        text = subprocess.run(["ss", "-tinH", "dst", "10.200.4.2"], capture_output=True, text=True).stdout
        # Each socket: a line with its addresses, then one with its tcp_info (bytes_acked among them).
        port = None
        for line in text.splitlines():
            if m := re.search(r"10\.200\.4\.2:(\d+)", line):
                port = m.group(1)
            elif (acked := re.search(r"bytes_acked:(\d+)", line)) and port:
                f.write(f"{now:.3f} {port} {acked.group(1)}\n")
                port = None
        time.sleep(0.1)
PY
for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
wait 2>/dev/null || true
