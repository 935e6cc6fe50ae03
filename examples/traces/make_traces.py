"""Writes the two small delivery-opportunity traces of ``examples/wifi_lte_trace.toml`` and
``examples/wifi_lte_download.toml`` (Mahimahi's format: one time in ms a line, each an opportunity for one 1 504-byte
packet; the file repeats after its last time).

Both are synthetic, drawn from a fixed seed, and only shaped like their kind of link; they are not
measurements:

* ``lte.down``: a cellular downlink. The scheduler's rate is a Markov chain over 2-24 Mbit/s that moves every
  40-200 ms, and within it the opportunities come in the bursts of 1 ms transmission intervals (several packets
  in one millisecond, none in the next), now and then with a handover-like outage of 30-120 ms.
* ``wifi.down``: a WiFi downlink: 40 Mbit/s of airtime in aggregates of 8-32 packets, between contention gaps
  of 1-8 ms.

Run ``python examples/traces/make_traces.py`` to write them again (``tests/test_link_trace.py`` checks that this
gives the committed files byte for byte), or ``python examples/traces/make_traces.py DIR`` to write them into DIR
(docs/tutorial.md, section 5).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

PERIOD_MS = 5_000
PACKET_BITS = 1504 * 8


def lte(seed: int = 7) -> list[int]:
    rng = random.Random(seed)
    rates = [2, 4, 8, 12, 16, 24]  # Mbit/s
    state = 3
    times: list[int] = []
    t = 0
    credit = 0.0
    while t < PERIOD_MS:
        hold = rng.randint(40, 200)
        if rng.random() < 0.04:
            t += rng.randint(30, 120)  # an outage: no opportunity at all
            credit = 0.0
            continue
        per_ms = rates[state] * 1e6 / PACKET_BITS / 1000
        for ms in range(t, min(t + hold, PERIOD_MS)):
            # Transmission intervals are granted in bursts: a millisecond gets either nothing or a few packets.
            if rng.random() < 0.6:
                credit += per_ms / 0.6
                n = int(credit)
                credit -= n
                times.extend([ms + 1] * n)
        t += hold
        state = min(len(rates) - 1, max(0, state + rng.choice([-1, -1, 0, 1, 1])))
    return _close(times)


def wifi(seed: int = 11) -> list[int]:
    rng = random.Random(seed)
    times: list[int] = []
    t = 0
    while t < PERIOD_MS:
        t += rng.randint(1, 8)  # contention
        frames = rng.randint(8, 32)  # one aggregate, sent at 40 Mbit/s of airtime
        airtime_ms = frames * PACKET_BITS / 40e6 * 1000
        for k in range(frames):
            times.append(t + int(k * airtime_ms / frames) + 1)
        t += int(airtime_ms) + 1
    return _close(times)


def _close(times: list[int]) -> list[int]:
    """Times within the period, in order, ending on the period itself (the trace's length)."""
    times = sorted(x for x in times if x < PERIOD_MS)
    times.append(PERIOD_MS)
    return times


def write(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, times in (("lte.down", lte()), ("wifi.down", wifi())):
        path = directory / name
        path.write_text("".join(f"{x}\n" for x in times))
        written.append(path)
    return written


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for path in write(out):
        lines = path.read_text().split()
        mean = len(lines) * PACKET_BITS / (int(lines[-1]) / 1000) / 1e6
        print(f"{path}: {len(lines)} opportunities over {lines[-1]} ms, mean {mean:.1f} Mbit/s")
