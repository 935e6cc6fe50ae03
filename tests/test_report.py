"""The HTML report of ``mpsim reproduce``: opened in headless Chromium (Debian's package, installed by
``make tools``), every figure loads, nothing is fetched from beyond the file system, and the claims tables
have one row per claim of each experiment, its verdicts on the three stacks side by side as the scorecard judges
them."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import struct
import subprocess
import sys
from collections.abc import Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import mpsim
from mpsim.experiments import CATALOGUE
from mpsim.experiments.report import Ran, Reproduction, write_report
from mpsim.experiments.reproduce import stack_directory
from mpsim.experiments.scorecard import check_words, claim_words, entry, holds_only_on_paper, stack_words

EXPERIMENTS = ("lisa-motivation", "gsam-loss")
"""Two cheap experiments: one with time-series figures beside its sweep figure, one without."""
STACKS = ("paper", "linux", "ns3")
"""Each run on the three stacks."""


class Page(HTMLParser):
    """What a test reads of a page: every URL it refers to, its images' attributes, and the cells of the
    claims table of each experiment's section."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.images: list[dict[str, str]] = []
        self.body: dict[str, str] = {}
        self.claims: dict[str, list[list[str]]] = {}
        self._section: str | None = None
        self._in_claims = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.urls += [a[k] for k in ("src", "href") if k in a]
        if tag == "img":
            self.images.append(a)
        elif tag == "body":
            self.body = a
        elif tag == "section":
            self._section = a["id"].removeprefix("exp-")
            self.claims[self._section] = []
        elif tag == "table" and "claims" in a.get("class", "").split():
            self._in_claims = True
        elif tag == "tr" and self._in_claims and self._section is not None:
            self.claims[self._section].append([])
        elif tag == "td" and self._in_claims:
            self._cell = []

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr" and self._in_claims and self._section is not None and not self.claims[self._section][-1]:
            self.claims[self._section].pop()  # the header row
        elif tag == "td" and self._cell is not None and self._section is not None:
            self.claims[self._section][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._in_claims = False


def read(html: str) -> Page:
    page = Page()
    page.feed(html)
    return page


def png_width(path: Path) -> int:
    """The width in the PNG's IHDR chunk."""
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return int(struct.unpack(">I", data[16:20])[0])


def expected_claims(out: Path, name: str, stacks: tuple[str, ...] = ("paper",)) -> list[list[str]]:
    """The rows the claims table of ``name`` must have: the scorecard's judgement of its result table on each of
    ``stacks``, side by side (the paper's marked where the claim holds there alone)."""
    exp = CATALOGUE[name]
    tables = {s: pq.read_table(stack_directory(out, name, s) / "results.parquet").to_pylist() for s in stacks}
    judged = entry(exp, tables)

    def cell(c: Mapping[str, Any], stack: str) -> str:
        return ("paper only: " if stack == "paper" and holds_only_on_paper(c) else "") + stack_words(c, stack)

    rows = [[claim_words(c), check_words(c), *(cell(c, s) for s in stacks)] for c in judged["claims"]]
    return rows + [[text, "not stated as a check", *("—" for _ in stacks)] for text in judged["unchecked"]]


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "results"
    stacks = [a for s in STACKS for a in ("--stack", s)]
    command = ["reproduce", *EXPERIMENTS, "--quick", "--runs", "1", "--jobs", "1", *stacks, "--out", str(out)]
    done = subprocess.run([sys.executable, "-m", "mpsim.cli", *command], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"report: {out / 'index.html'}" in done.stdout
    return out


def test_the_report_names_every_experiment_its_figures_claims_and_provenance(reproduced: Path) -> None:
    text = (reproduced / "index.html").read_text()
    page = read(text)
    for url in page.urls:
        # Relative paths inside the output directory, or anchors: nothing from a network.
        assert "://" not in url and not url.startswith(("//", "/", "..")), url
        if not url.startswith("#"):
            assert (reproduced / url).is_file(), url
    figures = {img["src"] for img in page.images}
    assert figures == {
        p.relative_to(reproduced).as_posix()
        for name in EXPERIMENTS
        for s in STACKS
        for p in stack_directory(reproduced, name, s).glob("*.png")
    }
    assert "lisa-motivation/figure.png" in figures and any(f.startswith("lisa-motivation/traces-") for f in figures)
    assert {"linux/gsam-loss/figure.png", "ns3/lisa-motivation/figure.png"} <= figures
    assert set(page.claims) == set(EXPERIMENTS)
    for name in EXPERIMENTS:
        rows, exp = page.claims[name], CATALOGUE[name]
        # One row per check of a claim of the paper, then one per claim not stated as a check.
        checked = [c.text for c in exp.checks]
        words = [claim_words(dataclasses.asdict(c)) for c in exp.checks]
        assert [r[0] for r in rows] == words + [text for text in exp.claims if text not in checked]
        # The claim, its check, then its verdict on each stack side by side.
        assert all(len(r) == 2 + len(STACKS) for r in rows)
        verdict_words = {cell.removeprefix("paper only: ").split()[0] for r in rows[: len(checked)] for cell in r[2:]}
        assert verdict_words <= {"holds", "partly", "fails", "untested", "uncheckable"}
        assert rows == expected_claims(reproduced, name, STACKS)
        seeds = sorted(set(pq.read_table(reproduced / name / "results.parquet").column("seed").to_pylist()))
        assert f"<td>{', '.join(map(str, seeds))}</td>" in text
    assert f"<td>{mpsim.engine_id()}</td>" in text and f"<td>{mpsim.__version__}</td>" in text
    assert "<td>mpsim reproduce lisa-motivation gsam-loss --quick --runs 1" in text
    shown = subprocess.run([sys.executable, "-m", "mpsim.cli", "show", str(reproduced)], capture_output=True, text=True)
    assert f"  report: {reproduced / 'index.html'}" in shown.stdout
    assert "  gsam-loss: 10 rows; figure.png" in shown.stdout and "  ns3/lisa-motivation: 10 rows; " in shown.stdout


def on_ci() -> bool:
    """Whether the tests run under continuous integration (``CI=true``), where every tool they use is there."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def chromium() -> str:
    """The Chromium executable. Missing, the test is skipped on a developer's machine and fails under CI:
    ``make test`` installs it (``make tools``), so a CI run without it would pass without checking the page."""
    exe = shutil.which("chromium")
    if exe is None:
        message = "chromium is missing: `make tools` installs it (Debian's package)"
        if on_ci():
            pytest.fail(message)
        pytest.skip(message)
    return exe


def test_chromium_is_required_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without Chromium the report's browser test skips on a developer's machine and fails under CI."""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="chromium is missing"):
        chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="chromium is missing"):
        chromium()


def open_in_chromium(page: Path, scratch: Path) -> tuple[str, list[str]]:
    """The DOM of ``page`` once headless Chromium has loaded it and run its scripts, and the URL of every
    request the page made through the network stack (Chromium reads file:// URLs outside it). Every
    request is logged (``--log-net-log``); the browser's own (time, updates, accounts) have no initiating
    origin, the page's have the page's (``null`` for a file)."""
    net_log = scratch / "net-log.json"
    done = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            f"--user-data-dir={scratch / 'profile'}",
            "--host-resolver-rules=MAP * ~NOTFOUND",  # any host name resolves to nothing
            f"--log-net-log={net_log}",
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    log = json.loads(net_log.read_text())
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    jobs = [e.get("params", {}) for e in log["events"] if e["type"] == start_job]
    return done.stdout, [j["url"] for j in jobs if "url" in j and j.get("initiator") != "not an origin"]


def test_chromium_loads_every_figure_of_the_report_from_the_file_system_alone(reproduced: Path, tmp_path: Path) -> None:
    chromium()
    dom, requests = open_in_chromium(reproduced / "index.html", tmp_path / "report")
    page = read(dom)
    assert page.body.get("data-checked") == "yes", "the page's script did not run to its end"
    assert len(page.images) == len(list(reproduced.rglob("*.png"))) >= 9
    for img in page.images:
        # The width Chromium decoded is the file's: every figure loaded.
        assert int(img["data-natural-width"]) == png_width(reproduced / img["src"]) > 0, img["src"]
    assert 'class="missing"' not in dom  # the note beside a figure that did not load
    assert requests == []
    assert page.claims == {n: expected_claims(reproduced, n, STACKS) for n in EXPERIMENTS}
    # The same check sees a page that fetches from elsewhere.
    control = tmp_path / "control.html"
    control.write_text('<!DOCTYPE html><html><body><img src="http://example.com/a.png"></body></html>')
    assert open_in_chromium(control, tmp_path / "control")[1] == ["http://example.com/a.png"]


def test_every_text_is_escaped_and_a_missing_figure_is_no_broken_page(tmp_path: Path) -> None:
    exp = dataclasses.replace(CATALOGUE["gsam-loss"], description='<script>alert("x")</script> & more')
    table = pa.table({"x": [1], "variant": ["no such variant"], "run": [1], "seed": [7], "fct_s": [1.5]})
    figure = tmp_path / "gsam-loss" / "figure.png"
    result = Reproduction(exp, tmp_path / "gsam-loss", table, (figure,))
    text = write_report(tmp_path, [Ran(result, 1.25, quick=True, runs=None)], "mpsim reproduce <x>").read_text()
    assert "<script>alert" not in text and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more" in text
    assert "<td>mpsim reproduce &lt;x&gt;</td>" in text
    assert '<img src="gsam-loss/figure.png"' in text  # the page's script says so when it does not load
    # No point of the table is in any claim's range: each is untested, none is dropped.
    rows = read(text).claims["gsam-loss"]
    assert len(rows) == len(exp.checks) + len(set(exp.claims) - {c.text for c in exp.checks})
    assert all(r[2] in ("untested (0/0): no point in range", "—") for r in rows)


def test_the_goodput_of_long_lived_flows_is_tabled_per_variant_and_x(tmp_path: Path) -> None:
    exp = CATALOGUE["mpcubic-shared"]
    assert exp.measures == "rates"
    table = pa.table(
        {
            "variant": ["mpcubic", "mpcubic", "lia"],
            "x": [10, 10, 10],
            "run": [1, 2, 1],
            "seed": [1, 2, 1],
            "rate_mbps": [4.0, 5.0, 3.0],
            "competing_mbps": [6.0, float("nan"), 7.0],
            "ratio": [0.67, 1.0, 0.43],
        }
    )
    result = Reproduction(exp, tmp_path / exp.name, table, ())
    text = write_report(tmp_path, [Ran(result, 1.0, quick=True, runs=None)], "mpsim reproduce").read_text()
    assert "<p>Mbit/s, mean over the runs: bytes delivered in order to the application over the measurement" in text
    assert "<th>variant</th><th>link_mbps</th><th>runs</th><th>rate_mbps</th><th>competing_mbps</th>" in text
    # The mean of each column over the runs at that point; a run without a value is left out of it.
    assert (
        '<tr><td>mpcubic</td><td>10</td><td class="num">2</td><td class="num">4.500</td><td class="num">6.000</td>'
        in text
    )
    assert (
        '<tr><td>lia</td><td>10</td><td class="num">1</td><td class="num">3.000</td><td class="num">7.000</td>' in text
    )
