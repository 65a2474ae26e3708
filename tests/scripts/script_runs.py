"""Running the repository's scripts (scripts/ask, scripts/bench) as a user does."""

from __future__ import annotations

import os
from pathlib import Path
import subprocess

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_script(name: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run scripts/<name> with these arguments; return its exit status and output."""
    return subprocess.run(
        [str(REPO_ROOT / "scripts" / name), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=os.environ.copy(),
    )
