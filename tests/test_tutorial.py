"""docs/tutorial.md and examples/tutorial.ipynb: every command of the tutorial runs, in order, in an empty
directory and writes the files it says it writes; the notebook runs from top to bottom without an error."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

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
