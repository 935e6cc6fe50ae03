"""tshark (Debian's, installed by ``make tools``) on a capture of mpsim's, for the tests that read captures."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def tshark(pcap: Path, display_filter: str, *fields: str) -> list[str]:
    """The lines tshark prints for the packets of ``pcap`` that match ``display_filter`` (their frame
    numbers, or the fields asked for, tab-separated), with its two-pass TCP analysis."""
    exe = shutil.which("tshark")
    assert exe, "tshark is missing: `make tools` installs it (Debian's package)"
    columns = [x for f in fields or ("frame.number",) for x in ("-e", f)]
    out = subprocess.run(
        [exe, "-r", str(pcap), "-2", "-Y", display_filter, "-T", "fields", *columns],
        capture_output=True,
        text=True,
        check=True,
    )
    # tshark warns when it runs as root; anything else on stderr is a problem with the file.
    problems = [line for line in out.stderr.splitlines() if line.strip() and "could be dangerous" not in line]
    assert problems == [], out.stderr
    return [line for line in out.stdout.splitlines() if line.strip()]
