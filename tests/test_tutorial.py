"""docs/tutorial.md and examples/tutorial.ipynb: every command of the tutorial runs, in order, in an empty
directory and writes the files it says it writes, and what the text states of each run (its tables, its numbers and
what it says without a number) is what the run gave; the notebook runs from top to bottom without an error."""

from __future__ import annotations

import csv
import itertools
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

import mpsim
from mpsim import plots
from mpsim.topologies import NonShared

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial.md"
NOTEBOOK = ROOT / "examples" / "tutorial.ipynb"

# A file to save (`<!-- file: NAME -->` above its block), the commands of a ```sh block, or the files the
# commands just before claim to write (`<!-- produces: A B -->`), in the order the reader meets them.
STEP = re.compile(r"<!-- file: (\S+) -->\n```\w+\n(.*?)```|```sh\n(.*?)```|<!-- produces: ([^>]*) -->", re.S)


def steps(text: str) -> list[tuple[str, str, str]]:
    """The tutorial's steps as (kind, name, text): ("file", name, content), ("sh", "", commands) or
    ("produces", "", paths separated by spaces)."""
    found: list[tuple[str, str, str]] = []
    for m in STEP.finditer(text):
        name, content, commands, produced = m.groups()
        if name is not None:
            found.append(("file", name, content))
        elif commands is not None:
            found.append(("sh", "", commands))
        else:
            found.append(("produces", "", produced))
    return found


def test_every_shell_block_and_file_is_a_step() -> None:
    text = TUTORIAL.read_text()
    found = steps(text)
    assert sum(kind == "sh" for kind, _, _ in found) == text.count("```sh\n") >= 6
    assert sum(kind == "file" for kind, _, _ in found) == text.count("<!-- file: ") >= 7
    # Each claim of files follows the commands that write them.
    for i, (kind, _, _) in enumerate(found):
        if kind == "produces":
            assert found[i - 1][0] == "sh"


def test_the_tutorial_runs_command_by_command(tmp_path: Path) -> None:
    assert shutil.which("tshark"), "tshark is missing: `make tools` installs it (Debian's package)"
    # `mpsim` and `python` from this environment, as `. .venv/bin/activate` gives the reader.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env["MPSIM_REPO"] = str(ROOT)  # as the set-up has the reader export it
    claimed = 0
    printed: dict[str, str] = {}  # what each block of commands printed on stdout, by its commands
    for kind, name, text in steps(TUTORIAL.read_text()):
        if kind == "file":
            (tmp_path / name).write_text(text)
        elif kind == "sh":
            done = subprocess.run(
                ["bash", "-e", "-o", "pipefail", "-c", text],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, f"{text}\nexit status {done.returncode}\n{done.stdout}\n{done.stderr}"
            printed[text] = done.stdout
        else:
            for path in text.split():
                assert (tmp_path / path).stat().st_size > 0, f"{path} is missing or empty"
                claimed += 1
    assert claimed >= 20
    # What each section states of its runs: each table row and sentence with its numbers, as the run's files give
    # them (each helper first checks what its section says without a number).
    text = " ".join(TUTORIAL.read_text().split())
    claims = {
        "1": slow_start_claims(tmp_path),
        "2": degrade_claims(tmp_path),
        "3": capture_claims(tmp_path, printed),
        "4": delay_lia_claims(tmp_path),
        "5": wifi_lte_claims(tmp_path),
        "the last": flavour_claims(tmp_path, printed),
    }
    for section, stated in claims.items():
        for claim in stated:
            assert claim in text, f"docs/tutorial.md, section {section}, no longer says what its run gives:\n{claim}"


MSS = 1400
"""A full segment's payload, bytes, under the `linux` profile every run of the tutorial uses (docs/scenarios.md)."""
WIRE = 1452
"""A full TCP segment on the wire, bytes: its payload and 52 bytes of IPv4 and TCP headers with timestamps (the
frame length tshark shows in section 3)."""
NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
"""Small counts as the text writes them."""


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path) as f:
        return list(csv.DictReader(f))


def listed(names: list[str]) -> str:
    """``names`` as the text lists them: "a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def span(low: float, high: float, spec: str) -> str:
    """The range from ``low`` to ``high`` as the text writes it, "low–high" in ``spec``'s format, or one number
    when both print the same."""
    a, b = format(low, spec), format(high, spec)
    return a if a == b else f"{a}–{b}"


def spread(values: list[float], spec: str) -> str:
    """Mean ± sample standard deviation, as the text's tables write them."""
    return f"{statistics.mean(values):{spec}} ± {statistics.stdev(values):{spec}}"


def overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two intervals, each (mean, half-width), overlap."""
    return abs(a[0] - b[0]) <= a[1] + b[1]


def reductions(trace: list[dict[str, str]]) -> list[dict[str, str]]:
    """The rows of one subflow's window trace at which its ssthresh changed: its responses to a loss."""
    return [row for before, row in itertools.pairwise(trace) if row["ssthresh_bytes"] != before["ssthresh_bytes"]]


SLOW_STARTS = ["standard", "LISA", "CSS"]


def slow_start_claims(directory: Path) -> list[str]:
    """The table and sentences of section 1 with the numbers of its sweep (css-out/results.csv), after checking
    what the text says without one: CSS retransmits less and takes longer than the standard slow start at every
    buffer, and at every buffer the three slow starts' 95 % confidence intervals overlap."""
    runs: dict[tuple[int, str], list[dict[str, str]]] = {}
    for r in read_csv(directory / "css-out" / "results.csv"):
        if r["flow"] == "short":
            runs.setdefault((int(r["topology.buffer_pkts"]), r["variant"]), []).append(r)
    buffers = sorted({b for b, _ in runs})
    fct = {k: [float(r["fct_s"]) for r in rows] for k, rows in runs.items()}
    resent = {k: [float(r["retransmissions"]) for r in rows] for k, rows in runs.items()}
    (n,) = {len(rows) for rows in runs.values()}
    claims = [f"completion time, s (mean ± std, n = {n})"]
    claims += [
        f"| {b} pkt | {v} | {spread(fct[b, v], '.2f')} | {spread(resent[b, v], '.1f')} |"
        for b in buffers
        for v in SLOW_STARTS
    ]

    # CSS against the standard slow start: fewer retransmissions (none at some buffers), a longer download.
    standard = {b: statistics.mean(resent[b, "standard"]) for b in buffers}
    css = {b: statistics.mean(resent[b, "CSS"]) for b in buffers}
    cut = {b: standard[b] / css[b] for b in buffers if css[b] > 0}
    assert min(cut.values()) > 1
    longer = [statistics.mean(fct[b, "CSS"]) - statistics.mean(fct[b, "standard"]) for b in buffers]
    assert min(longer) > 0
    claims.append(
        f"CSS cuts the download's retransmissions by a factor of {span(min(cut.values()), max(cut.values()), '.0f')} "
        f"at {listed([str(b) for b in cut])} packets, and to none at "
        f"{listed([str(b) for b in buffers if b not in cut])}, "
        f"but the download takes {span(min(longer), max(longer), '.1f')} s *longer* at every buffer"
    )
    intervals = {k: plots.mean_and_error(values, "ci95") for k, values in fct.items()}
    assert all(overlap(intervals[b, v], intervals[b, w]) for b in buffers for v in SLOW_STARTS for w in SLOW_STARTS)
    claims.append(f"With {n} seeds the intervals overlap at every buffer")
    return claims


def degrade_claims(directory: Path) -> list[str]:
    """The table and sentences of section 2 with the numbers of its run (wifi-out: throughput.csv, links.csv,
    tcp_traces.csv and the run's config.json), after checking what the text says without one."""
    out = directory / "wifi-out"
    config = json.loads((out / "config.json").read_text())
    links = {link["name"]: link for link in config["links"]}
    (change,) = config["link_changes"]
    at_s = change["at_ns"] / 1e9
    wifi_rate, lte_rate, new_rate = (
        links["A1-B1"]["rate_bps"] / 1e6,
        links["A2-B2"]["rate_bps"] / 1e6,
        change["rate_bps"] / 1e6,
    )
    bins = read_csv(out / "throughput.csv")

    def goodput(subflow: str, after: bool) -> float:
        """A subflow's mean goodput over the bins before the change or from it on, Mbit/s (as split.py)."""
        return statistics.mean(
            float(b["delivered_bps"]) / 1e6
            for b in bins
            if b["kind"] == "mptcp_subflow" and b["subflow"] == subflow and (float(b["start_s"]) >= at_s) == after
        )

    (wifi_before, lte_before), (wifi_after, lte_after) = split = [
        (goodput("0", a), goodput("1", a)) for a in (False, True)
    ]
    claims = [
        f"| {period} {at_s:g} s | {wifi:.2f} | {lte:.2f} | {100 * wifi / (wifi + lte):.0f} % |"
        for period, (wifi, lte) in zip(("before", "after"), split, strict=True)
    ]

    # WiFi's window before the change against its path's bandwidth-delay product (packets of WIRE bytes).
    traces = read_csv(out / "tcp_traces.csv")
    wifi_cwnd = [float(t["cwnd_bytes"]) / MSS for t in traces if t["subflow"] == "0" and float(t["time_s"]) < at_s]
    median = statistics.median(wifi_cwnd)
    rtt_s = 2 * sum(links[name]["delay_ns"] for name in ("S0.1-A1", "A1-B1", "B1-D0")) / 1e9
    bdp = links["A1-B1"]["rate_bps"] * rtt_s / 8 / WIRE
    assert round(4 * median / bdp) == 1  # a quarter
    claims.append(
        f"(a median of {median:.0f} segments before {at_s:g} s, a quarter of the path's bandwidth-delay product of "
        f"{bdp:.0f} packets at its {1000 * rtt_s:.0f} ms RTT)"
    )
    link_rows = {row["name"]: row for row in read_csv(out / "links.csv")}
    assert abs(wifi_before / wifi_rate - 1 / 5) < 0.03 and float(link_rows["A2-B2"]["utilisation"]) > 0.9
    claims.append(f"gives WiFi about a fifth of its {wifi_rate:g} Mbit/s and fills LTE")
    assert lte_after - lte_before < 1  # LTE adds little
    claims.append(
        f"When WiFi drops to {new_rate:g} Mbit/s, WiFi carries {wifi_after:.1f} Mbit/s on average and the connection "
        f"loses about {wifi_before + lte_before - wifi_after - lte_after:.1f} of the {wifi_before:.1f} Mbit/s WiFi "
        f"carried: LTE, nearly full already, can add little ({lte_after:.1f} Mbit/s on average after {at_s:g} s)."
    )

    # The connection's two lowest bins are the two in which LTE's subflow responded to a loss, and no other; the
    # retransmission comes through after the full queue and the one-way delay; the highest bin is the next one.
    total = sorted(
        (float(b["delivered_bps"]) / 1e6, float(b["start_s"]), float(b["end_s"])) for b in bins if b["kind"] == "mptcp"
    )
    dips = sorted(total[:2], key=lambda d: d[1])
    losses = reductions([t for t in traces if t["subflow"] == "1"])
    assert [[d for d in dips if d[1] <= float(t["time_s"]) < d[2]] for t in losses] == [[d] for d in dips], losses
    one_way_s = sum(links[name]["delay_ns"] for name in ("S0.2-A2", "A2-B2", "B2-D0")) / 1e9
    (through,) = {f"{float(t['srtt_ns']) / 1e9 - one_way_s:.1f}" for t in losses}
    top = total[-1]
    assert top[1] in [d[2] for d in dips] and top[0] > new_rate + lte_rate
    dropped = f"{int(link_rows['A2-B2']['dropped_bytes']):,}".replace(",", " ")
    (a, a_start, a_end), (b, b_start, b_end) = dips
    claims.append(
        f"The two deepest dips in the connection's goodput, at {a_start:g}–{a_end:g} s and {b_start:g}–{b_end:g} s "
        f"({a:.1f} and {b:.1f} Mbit/s), are LTE losses (the `links` table: `A2-B2` dropped {dropped} bytes): with "
        f"{links['A2-B2']['queue']['limit_pkts']} packets queued, the retransmission takes about {through} s to come "
        f"through, and everything received behind it waits in the receive buffer and is delivered at once in a later "
        f"bin ({top[0]:.1f} Mbit/s at {top[1]:g}–{top[2]:g} s)."
    )
    return claims


def capture_claims(directory: Path, printed: dict[str, str]) -> list[str]:
    """The sentence of section 3 with tshark's counts for the TCP flow, after checking that mpsim's counters give
    the same ("in both"), that the handshakes carry MP_CAPABLE on the first subflow and MP_JOIN on the second, and
    that each subflow's data segments count up from 1 while their data sequence numbers interleave."""
    retransmissions = len((directory / "retransmissions.txt").read_text().splitlines())
    duplicate_acks = len((directory / "duplicate_acks.txt").read_text().splitlines())
    (single,) = [r for r in read_csv(directory / "lossy-out" / "tcp_flows.csv") if r["name"] == "single"]
    assert sum(int(single[k]) for k in ("retransmits_fast", "retransmits_rto", "syn_retransmits")) == retransmissions
    assert int(single["duplicate_acks"]) == duplicate_acks
    (handshakes,) = [out for commands, out in printed.items() if "tcp.flags.syn == 1" in commands]
    syns = [
        line.split("\t")
        for line in handshakes.splitlines()
        if line.count("\t") == 2 and line.split("\t")[1].count(".") == 3
    ]
    assert syns == [
        ["10.0.0.1", "10.0.0.3", "0"],
        ["10.0.0.3", "10.0.0.1", "0"],
        ["10.0.0.2", "10.0.0.3", "1"],
        ["10.0.0.3", "10.0.0.2", "1"],
    ]
    mappings = [line.split("\t") for line in (directory / "mappings.txt").read_text().splitlines()]
    sources = list(dict.fromkeys(m[1] for m in mappings))
    assert sources == ["10.0.0.1", "10.0.0.2"] and all(
        next(int(m[2]) for m in mappings if m[1] == s) == 1 for s in sources
    )
    by_data = [m[1] for m in sorted(mappings, key=lambda m: int(m[4]))]
    assert sum(a != b for a, b in itertools.pairwise(by_data)) > 2  # the subflows' shares interleave
    assert {line.split("\t")[0] for line in (directory / "data_acks.txt").read_text().splitlines()} == {"10.0.0.3"}
    return [
        f"The TCP flow `single`: {retransmissions} retransmissions and {duplicate_acks} duplicate ACKs in both.",
        "The handshakes carry MP_CAPABLE (subtype 0) on the first subflow and MP_JOIN (subtype 1) on the second",
    ]


DELAY_VARIANTS = ["LIA", "OLIA", "delay-aware"]


def delay_lia_claims(directory: Path) -> list[str]:
    """The tables and sentences of section 4 with the numbers of its runs (race-out/results.csv and
    race-queue.csv), after checking what the text says without one, the LTE subflow's windows among it: those the
    text explains the queues by are the same runs' again, traced."""
    races = sorted(read_csv(directory / "race-out" / "results.csv"), key=lambda r: int(r["flows.download.size_bytes"]))
    sizes = list(dict.fromkeys(r["flows.download.size"] for r in races))
    fct = {
        (s, v): [float(r["fct_s"]) for r in races if r["flows.download.size"] == s and r["variant"] == v]
        for s in sizes
        for v in DELAY_VARIANTS
    }
    (n,) = {len(values) for values in fct.values()}
    claims = [f"(`race-out/plots/download-fct_s.png`, s, mean ± std over {n} seeds)"]
    claims += [
        "| "
        + " | ".join([re.sub(r"(\d)([A-Z])", r"\1 \2", s), *(spread(fct[s, v], ".2f") for v in DELAY_VARIANTS)])
        + " |"
        for s in sizes
    ]
    mean = {k: statistics.mean(values) for k, values in fct.items()}
    assert all(abs(mean[s, "delay-aware"] / mean[s, "LIA"] - 1) < 0.02 for s in sizes)  # as fast as LIA
    apart = max(abs(mean[s, "delay-aware"] - mean[s, "LIA"]) for s in sizes)
    largest = sizes[-1]
    assert min(DELAY_VARIANTS, key=lambda v: mean[largest, v]) == "OLIA"

    runs = {(r["variant"], int(r["seed"])): r for r in read_csv(directory / "race-queue.csv")}
    seeds = sorted({s for _, s in runs})

    def column(variant: str, name: str) -> list[float]:
        return [float(runs[variant, s][name]) for s in seeds]

    wifi = {v: statistics.mean(column(v, "wifi_mbps")) for v in DELAY_VARIANTS}
    assert wifi["OLIA"] > wifi["LIA"]
    claims.append(
        f"The new idea finishes as fast as LIA (the means within {math.ceil(100 * apart) / 100:.2f} s at every size); "
        f"OLIA, which keeps more on the lossy WiFi path than LIA (about {wifi['OLIA']:.1f} against {wifi['LIA']:.1f} "
        f"Mbit/s in a 30 s download), is {100 * (1 - mean[largest, 'OLIA'] / mean[largest, 'LIA']):.0f} % faster on "
        f"the largest one."
    )
    claims.append(
        f"| algorithm | mean LTE queue, packets (mean ± std, n = {len(seeds)}) | goodput, Mbit/s | over WiFi, Mbit/s |"
    )
    claims += [
        f"| {v} | {spread(column(v, 'lte_queue_pkts'), '.1f')} | {spread(column(v, 'goodput_mbps'), '.2f')} | "
        f"{spread(column(v, 'wifi_mbps'), '.2f')} |"
        for v in DELAY_VARIANTS
    ]
    queue = {v: dict(zip(seeds, column(v, "lte_queue_pkts"), strict=True)) for v in DELAY_VARIANTS}
    assert statistics.mean(queue["delay-aware"].values()) > statistics.mean(queue["LIA"].values())
    shorter = [s for s in seeds if queue["delay-aware"][s] < queue["LIA"][s]]
    assert 0 < len(shorter) < len(seeds)
    goodput_apart = max(
        abs(a - b) for a, b in zip(column("delay-aware", "goodput_mbps"), column("LIA", "goodput_mbps"), strict=True)
    )
    claims.append(
        f"The delay-aware LIA does not keep LTE's queue emptier: its queue is shorter than LIA's in "
        f"{NUMBERS[len(shorter)]} seed{'' if len(shorter) == 1 else 's'} of {NUMBERS[len(seeds)]} ("
        + "; ".join(f"seed {s}: {queue['delay-aware'][s]:.0f} against {queue['LIA'][s]:.0f} packets" for s in shorter)
        + f") and longer in the other {NUMBERS[len(seeds) - len(shorter)]}, up to "
        f"{max(queue['delay-aware'].values()):.0f} packets, while LIA's stays within "
        f"{span(min(queue['LIA'].values()), max(queue['LIA'].values()), '.0f')} packets and OLIA's within "
        f"{span(min(queue['OLIA'].values()), max(queue['OLIA'].values()), '.0f')}. Its goodput is within "
        f"{math.ceil(10 * goodput_apart) / 10:.1f} Mbit/s of LIA's in every seed"
    )

    # Why: the same runs again with the LTE subflow's window traced. Its first response to a loss (the end of
    # slow start) leaves a window larger than the buffer, and a run without a second keeps the queue nearly full;
    # each second halves the window, and there is no third. The delay-aware LIA's second comes later than LIA's in
    # every seed (in some not within the run), and its window grows back more slowly after it.
    topology = mpsim.load(directory / "wifi_lte_transfer.toml").topology
    assert isinstance(topology, NonShared) and topology.per_path is not None
    lte_buffer = topology.per_path[1].buffer
    assert lte_buffer is not None and lte_buffer.unit == "pkts"
    buffer = lte_buffer.value
    algorithms: dict[str, Any] = {
        "LIA": "lia",
        "delay-aware": {"type": "python", "class": f"{directory / 'delay_lia.py'}:DelayLia", "target_ms": 10},
    }
    second: dict[tuple[str, int], tuple[float, float] | None] = {}  # (time, growth in packets a second after it)
    for variant, cc in algorithms.items():
        for s in seeds:
            scenario: Any = mpsim.load(directory / "wifi_lte_transfer.toml")  # its fields take "30s", as lte_queue.py's
            scenario.duration = "30s"
            scenario.flows[0].size = None
            scenario.flows[0].cc = cc
            scenario.flows[0].trace = True
            res = mpsim.run(scenario, seed=s)
            assert math.isclose(res.link("A2-B2")["mean_queue_pkts"], queue[variant][s])  # the run of race-queue.csv
            trace = [{k: str(v) for k, v in t.items()} for t in res.tcp_traces.to_pylist() if t["subflow"] == 1]
            cuts = reductions(trace)
            assert 1 <= len(cuts) <= 2 and float(cuts[0]["ssthresh_bytes"]) / MSS > buffer
            if len(cuts) == 1:
                assert queue[variant][s] > 0.9 * buffer
                second[variant, s] = None
                continue
            assert abs(float(cuts[1]["ssthresh_bytes"]) / float(cuts[0]["ssthresh_bytes"]) - 1 / 2) < 0.01  # halved
            t0, end = float(cuts[1]["time_s"]), trace[-1]
            growth = (float(end["cwnd_bytes"]) - float(cuts[1]["cwnd_bytes"])) / MSS / (float(end["time_s"]) - t0)
            second[variant, s] = (t0, growth)
    never = [s for s in seeds if second["delay-aware", s] is None]
    assert all(second["LIA", s] is not None for s in seeds) and never
    for s in seeds:
        lia, aware = second["LIA", s], second["delay-aware", s]
        assert lia is not None and (aware is None or (aware[0] > lia[0] and aware[1] < lia[1])), (s, lia, aware)
    claims.append(
        "LTE's losses are its buffer overflowing: at the end of slow start, which leaves a window larger than the "
        "buffer, so that the buffer stays nearly full, and then once more, which halves the window as Reno does. The "
        "delay-aware increase, scaled down by the full queue's delay, reaches that second overflow later than LIA's in "
        f"every seed, in {NUMBERS[len(never)]} not within the 30 s, so its queue stays full the longer; after it, the "
        "window grows back into the queue at a reduced pace."
    )
    return claims


def flavour_claims(directory: Path, printed: dict[str, str]) -> list[str]:
    """The table and sentences of the last section with the numbers of its sweep (flavour-out/results.csv),
    after checking that the output it shows is what `mpsim validate` printed and what the text says without a
    number: MPTCP's share leans one way with each flavour, and neither mean is clear of 1."""
    command = "mpsim validate fairness.toml\n"
    shown = re.search(f"```sh\n{command}```\n\n```\n(.*?)```", TUTORIAL.read_text(), re.S)
    assert shown is not None and shown[1] == printed[command], printed[command]
    (rtt,) = set(re.findall(r"(\d+) ms  via", printed[command]))
    claims = [f"The RTT is {rtt} ms"]
    goodput = {
        (r["flows.mptcp.cc.flavour"], int(r["seed"]), r["flow"]): float(r["goodput_mbps"])
        for r in read_csv(directory / "flavour-out" / "results.csv")
    }
    seeds = sorted({s for _, s, _ in goodput})
    n = len(seeds)
    ratio = {f: [goodput[f, s, "mptcp"] / goodput[f, s, "tcp"] for s in seeds] for f in ("paper", "linux")}
    claims.append(f"MPTCP / Reno (mean ± std, n = {n})")
    for flavour, label in (("paper", "`paper` (default)"), ("linux", "`linux`")):
        mptcp, tcp = (statistics.mean(goodput[flavour, s, flow] for s in seeds) for flow in ("mptcp", "tcp"))
        claims.append(f"| {label} | {mptcp:.2f} | {tcp:.2f} | {spread(ratio[flavour], '.2f')} |")
    paper, linux = ratio["paper"], ratio["linux"]
    more, less = sum(r > 1 for r in paper), sum(r < 1 for r in linux)
    assert statistics.mean(paper) > 1 > statistics.mean(linux) and more > n / 2 and less > n / 2
    assert all(abs(m - 1) <= e for m, e in (plots.mean_and_error(r, "ci95") for r in ratio.values()))
    claims.append(
        f"the paper's formula takes {statistics.mean(paper):.2f} times Reno's goodput on average, more than Reno in "
        f"{more} of the {n} seeds, the kernel's {statistics.mean(linux):.2f} times, less than Reno in {less} of the "
        f"{n}. "
        f"With {n} seeds neither answer is settled: the kernel's ratio spreads from {min(linux):.2f} to "
        f"{max(linux):.2f}, and both 95 % confidence intervals include 1"
    )
    return claims


MPTCP_VARIANTS = ["MPTCP LIA", "MPTCP OLIA", "MPTCP BALIA", "MPTCP CUBIC", "MPTCP BBR"]


def trace_rates_mbps(path: Path, bin_ms: int) -> list[float]:
    """A delivery trace's rate in each bin of one period, Mbit/s (1 504 bytes an opportunity)."""
    times = [int(line) for line in path.read_text().split()]
    counts = [0] * (times[-1] // bin_ms)
    for t in times:
        counts[min(t // bin_ms, len(counts) - 1)] += 1
    return [n * 1504 * 8 / (bin_ms / 1000) / 1e6 for n in counts]


def wifi_lte_claims(directory: Path) -> list[str]:
    """The sentences of section 5 with the numbers of its run in ``directory`` (race-out/summary.csv, the
    store's rows and the traces), after checking the claims the text makes without a number."""
    with open(directory / "race-out" / "summary.csv") as f:
        mean = {r["variant"]: {k: float(v) for k, v in r.items() if k != "variant"} for r in csv.DictReader(f)}
    with open(directory / "race-out" / "store" / "results.csv") as f:
        runs = list(csv.DictReader(f))
    fct = {(r["variant"], int(r["seed"])): float(r["fct_s"]) for r in runs}
    start = {int(r["seed"]): float(r["start_s"]) for r in runs}
    seeds = sorted(start)
    n = len(seeds)
    claims = []

    def row(variant: str) -> str:
        m = mean[variant]
        cells = [
            variant,
            f"{m['fct_s_mean']:.2f} ± {m['fct_s_std']:.2f}",
            f"{m['retransmissions_mean']:.0f}",
            *(f"{m[f'{path}_MB_mean']:.1f}" for path in ("WiFi", "LTE")),
            *(f"{m[f'{path}_queue_pkts_mean']:.0f}" for path in ("WiFi", "LTE")),
        ]
        return "| " + " | ".join(cells) + " |"

    claims += [f"completion time, s (mean ± std, n = {n})", *(row(v) for v in mean)]

    # MPTCP against the quickest single path: every variant but BBR sooner on average, BBR not.
    single = {v: m["fct_s_mean"] for v, m in mean.items() if not v.startswith("MPTCP")}
    assert min(single, key=single.__getitem__) == "WiFi CUBIC"
    wifi = single["WiFi CUBIC"]
    means = {v: mean[v]["fct_s_mean"] for v in MPTCP_VARIANTS}
    sooner = {v: t for v, t in means.items() if t < wifi}
    assert sorted(set(means) - set(sooner)) == ["MPTCP BBR"], means
    low, high = min(sooner.values()), max(sooner.values())
    claims.append(
        f"quickest single path, CUBIC over WiFi alone ({wifi:.2f} s): LIA, OLIA, BALIA and uncoupled CUBIC in "
        f"{low:.2f} to {high:.2f} s, {wifi - high:.2f}–{wifi - low:.2f} s or {100 * (1 - high / wifi):.0f}–"
        f"{100 * (1 - low / wifi):.0f} % sooner. With BBR it takes {means['MPTCP BBR']:.2f} s, "
        f"{means['MPTCP BBR'] - wifi:.2f} s longer than WiFi alone."
    )
    assert single["LTE CUBIC"] > 2 * single["WiFi CUBIC"] and single["LTE BBR"] > 2 * single["WiFi BBR"]
    claims.append("LTE alone takes more than twice as long as WiFi alone.")

    # The seeds in which some MPTCP variant was slower than CUBIC over WiFi alone; CUBIC never was.
    slower = {s: [v.removeprefix("MPTCP ") for v in MPTCP_VARIANTS if fct[v, s] > fct["WiFi CUBIC", s]] for s in seeds}
    late = [s for s in seeds if slower[s]]
    assert all("CUBIC" not in slower[s] for s in seeds)
    claims.append(
        f"In {len(late)} of the {n} seeds some MPTCP variant took longer than CUBIC over WiFi alone ("
        + "; ".join(f"seed {s}: {listed(slower[s])}" for s in late)
        + "); only uncoupled CUBIC was sooner in every seed."
    )

    # Which MPTCP variant is soonest and which last; with five seeds every pair of 95 % intervals overlaps.
    retransmissions = {v: mean[v]["retransmissions_mean"] for v in MPTCP_VARIANTS}
    assert min(means, key=means.__getitem__) == min(retransmissions, key=retransmissions.__getitem__) == "MPTCP CUBIC"
    assert max(means, key=means.__getitem__) == max(retransmissions, key=retransmissions.__getitem__) == "MPTCP BBR"
    intervals = {v: plots.mean_and_error([fct[v, s] for s in seeds], "ci95") for v in MPTCP_VARIANTS}
    apart = [
        (a, b)
        for i, a in enumerate(MPTCP_VARIANTS)
        for b in MPTCP_VARIANTS[i + 1 :]
        if not overlap(intervals[a], intervals[b])
    ]
    assert apart == [], apart
    stds = [mean[v]["fct_s_std"] for v in MPTCP_VARIANTS]
    cubic, bbr = intervals["MPTCP CUBIC"], intervals["MPTCP BBR"]
    claims.append(
        f"but even their 95 % confidence intervals overlap ({cubic[0]:.2f} ± {cubic[1]:.2f} s against {bbr[0]:.2f} ± "
        f"{bbr[1]:.2f} s); LIA, OLIA and BALIA lie between, each variant's completion time varying by "
        f"{min(stds):.2f}–{max(stds):.2f} s (standard deviation) from seed to seed"
    )

    # How the bytes split, against what the traces offer.
    wifi_rates = trace_rates_mbps(directory / "traces" / "wifi.down", 250)
    lte_rates = trace_rates_mbps(directory / "traces" / "lte.down", 250)
    offered = statistics.mean(wifi_rates), statistics.mean(lte_rates)
    wifi_mb = [mean[v]["WiFi_MB_mean"] for v in MPTCP_VARIANTS]
    size = re.search(r'size = "(\d+)MB"', (directory / "wifi_lte_download.toml").read_text())
    assert size is not None
    size_mb = int(size[1])
    claims.append(
        f"WiFi carried {min(wifi_mb):.1f}–{max(wifi_mb):.1f} MB of the {size_mb} ({100 * min(wifi_mb) / size_mb:.0f}–"
        f"{100 * max(wifi_mb) / size_mb:.0f} %)"
    )
    claims.append(f"({offered[0]:.1f} and {offered[1]:.1f} Mbit/s: {100 * offered[0] / sum(offered):.0f} % over WiFi)")
    assert min(lte_rates[:8]) > 13 and max(lte_rates[-5:]) < 3.5
    claims.append("LTE's rate is above 13 Mbit/s for the first 2 s of each period and below 3.5 Mbit/s for its last")

    # BBR's queues and retransmissions against CUBIC's, over each path alone.
    queue = {v: mean[v][f"{v.split()[0]}_queue_pkts_mean"] for v in ("WiFi BBR", "WiFi CUBIC", "LTE BBR", "LTE CUBIC")}
    assert queue["WiFi BBR"] > 0.9 * queue["WiFi CUBIC"] and queue["LTE BBR"] > 0.9 * queue["LTE CUBIC"]
    ratio = {
        p: mean[f"{p} BBR"]["retransmissions_mean"] / mean[f"{p} CUBIC"]["retransmissions_mean"]
        for p in ("WiFi", "LTE")
    }
    claims.append(
        f"over WiFi alone its mean queue is {queue['WiFi BBR']:.0f} packets to CUBIC's {queue['WiFi CUBIC']:.0f}, "
        f"over LTE alone {queue['LTE BBR']:.0f} to {queue['LTE CUBIC']:.0f}, and it retransmits {ratio['WiFi']:.0f} "
        f"and {ratio['LTE']:.0f} times as much; over LTE alone it finishes "
        f"{single['LTE BBR'] - single['LTE CUBIC']:.2f} s after CUBIC."
    )
    return claims


def test_the_experiments_files_are_the_repositorys_examples() -> None:
    # Section 5's scenario, sweep and script are examples/'s (the figures of docs/figures come from them).
    blocks = dict(re.findall(r"<!-- file: (\S+) -->\n```\w+\n(.*?)```", TUTORIAL.read_text(), re.S))
    for name in ("wifi_lte_download.toml", "wifi_lte_race.toml", "wifi_lte_race.py"):
        assert blocks[name] == (ROOT / "examples" / name).read_text(), name


def test_the_experiments_figures_are_committed_small_and_shown() -> None:
    text = TUTORIAL.read_text()
    for name in ("wifi-lte-fct.png", "wifi-lte-throughput.png"):
        path = ROOT / "docs" / "figures" / name
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert path.stat().st_size < 200_000, f"{name}: {path.stat().st_size} bytes"
        assert f"](figures/{name})" in text, name


def test_the_notebook_runs_without_an_error(tmp_path: Path) -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    # Committed without outputs: what it shows is what a reader's run makes.
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError at the first cell that fails
    # The last cell drew the sweep: a figure came out.
    last = notebook.cells[-1]
    assert any("image/png" in o.get("data", {}) for o in last.outputs)
