"""Where the tests find the five papers' plain texts: they are not part of the repository, but sit beside the
checkout (``../shared/papers``, as the developers' guide has them), or where ``MPSIM_PAPERS`` says. A test of a
check's quotes against its paper is skipped where the text is absent."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

PAPERS = Path(os.environ.get("MPSIM_PAPERS", Path(__file__).resolve().parents[2] / "shared" / "papers"))


def paper_file(prefix: str) -> Path | None:
    """The text of the paper whose file name starts with ``prefix`` (``"002_"``), if it is on this machine."""
    found = sorted(PAPERS.glob(f"{prefix}*.txt")) if PAPERS.is_dir() else []
    return found[0] if found else None


def collapsed(text: str) -> str:
    """``text`` with its whitespace collapsed: a quote may cross a line or a page break of the paper's file."""
    return re.sub(r"\s+", " ", text).strip()


def paper_words(prefix: str) -> str:
    """The text of the paper whose file name starts with ``prefix``, its whitespace collapsed (as a check's quote
    is compared with it); the test is skipped where the text is not on this machine."""
    text = paper_file(prefix)
    if text is None:
        pytest.skip(f"the paper's text {prefix}*.txt is not in {PAPERS}")
    return collapsed(text.read_text())
