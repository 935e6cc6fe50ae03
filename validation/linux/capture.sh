#!/bin/bash
# A packet capture of one rig transfer, for diagnosing a cell. Runs inside the rig's namespaces:
#   cd ../shared/tools/linux-rig && ./run.sh --variant shared --direction up --buffer-pkts 48 --bulk \
#       --exec "bash /path/to/validation/linux/capture.sh PROTO SIZE CC OUTDIR"
# The client sends (direction up); tcpdump records the client's two interfaces (c1, c2: what the
# sender puts on each path and the ACKs it gets back) and the server's (sb: what got through the
# bottleneck). Writes OUTDIR/{c1,c2,sb}.pcap, the transfer's JSON lines, and the nstat deltas.
set -eu
PROTO=$1 SIZE=$2 CC=$3 OUT=$4
RIG=$(pwd)
mkdir -p "$OUT"
export NSTAT_HISTORY="$OUT/nstat.history"   # nstat keeps its history per file, not per namespace
PIDS=()
for spec in "$NS_CLI c1" "$NS_CLI c2" "$NS_SRV sb"; do
    set -- $spec
    ip netns exec "$1" tcpdump -i "$2" -n -s 128 -w "$OUT/$2.pcap" tcp 2>/dev/null &
    PIDS+=($!)
done
sleep 1
ip netns exec "$NS_CLI" nstat -n >/dev/null
ip netns exec "$NS_SRV" python3 "$RIG/xfer.py" serve --bind 10.200.4.2 --proto "$PROTO" --role recv \
    --size "$SIZE" --cc "$CC" > "$OUT/server.json" &
SERVER=$!
sleep 0.3
ip netns exec "$NS_CLI" python3 "$RIG/xfer.py" client --addr 10.200.4.2 --proto "$PROTO" --role send \
    --size "$SIZE" --cc "$CC" > "$OUT/client.json"
wait "$SERVER"
sleep 1
ip netns exec "$NS_CLI" nstat > "$OUT/nstat-client.txt" || true
for pid in "${PIDS[@]}"; do kill "$pid"; done
wait "${PIDS[@]}" 2>/dev/null || true
