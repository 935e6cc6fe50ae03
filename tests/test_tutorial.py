"""docs/tutorial.md and examples/tutorial.ipynb: every command of the tutorial runs, in order, in an empty
directory and writes the files it says it writes, and what the text states of the packet capture and of the WiFi +
LTE experiment is what the run gave; the notebook runs from top to bottom without an error."""

from __future__ import annotations

import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from mpsim import plots

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
        else:
            for path in text.split():
                assert (tmp_path / path).stat().st_size > 0, f"{path} is missing or empty"
                claimed += 1
    assert claimed >= 20
    # What the text says the captures hold: tshark's counts as the tutorial states them (its sentence
    # "The TCP flow `single`: R retransmissions and D duplicate ACKs in both", which also names mpsim's).
    said = re.search(r"The TCP flow `single`: (\d+) retransmissions and (\d+) duplicate ACKs", TUTORIAL.read_text())
    assert said is not None, "the tutorial no longer states the capture's counts"
    assert len((tmp_path / "retransmissions.txt").read_text().splitlines()) == int(said[1])
    assert len((tmp_path / "duplicate_acks.txt").read_text().splitlines()) == int(said[2])
    # What section 5 states of its run: each sentence with its numbers, as the run's tables give them.
    text = " ".join(TUTORIAL.read_text().split())
    for claim in wifi_lte_claims(tmp_path):
        assert claim in text, f"docs/tutorial.md, section 5, no longer says what its run gives:\n{claim}"


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

    def listed(names: list[str]) -> str:
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"

    claims.append(
        f"In {len(late)} of the {n} seeds some MPTCP variant took longer than CUBIC over WiFi alone ("
        + "; ".join(f"seed {s}: {listed(slower[s])}" for s in late)
        + "); only uncoupled CUBIC was sooner in every seed."
    )

    # Which MPTCP variant is soonest and which last; of their 95 % intervals only those two do not overlap.
    retransmissions = {v: mean[v]["retransmissions_mean"] for v in MPTCP_VARIANTS}
    assert min(means, key=means.__getitem__) == min(retransmissions, key=retransmissions.__getitem__) == "MPTCP CUBIC"
    assert max(means, key=means.__getitem__) == max(retransmissions, key=retransmissions.__getitem__) == "MPTCP BBR"
    intervals = {v: plots.mean_and_error([fct[v, s] for s in seeds], "ci95") for v in MPTCP_VARIANTS}
    apart = [
        (a, b)
        for i, a in enumerate(MPTCP_VARIANTS)
        for b in MPTCP_VARIANTS[i + 1 :]
        if abs(intervals[a][0] - intervals[b][0]) > intervals[a][1] + intervals[b][1]
    ]
    assert apart == [("MPTCP CUBIC", "MPTCP BBR")], apart
    stds = [mean[v]["fct_s_std"] for v in MPTCP_VARIANTS]
    cubic, bbr = intervals["MPTCP CUBIC"], intervals["MPTCP BBR"]
    claims.append(
        f"their 95 % confidence intervals do not overlap ({cubic[0]:.2f} ± {cubic[1]:.2f} s against {bbr[0]:.2f} ± "
        f"{bbr[1]:.2f} s); LIA, OLIA and BALIA lie between and overlap both, each variant's completion time varying by "
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
