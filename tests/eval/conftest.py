"""Run scripts/eval as a user does: a subprocess with its own Home Assistant."""

from __future__ import annotations

from collections.abc import Callable
import json
import os
from pathlib import Path
import subprocess
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
EVAL = REPO_ROOT / "scripts" / "eval"

type RunEval = Callable[..., tuple[subprocess.CompletedProcess[str], dict[str, Any]]]


@pytest.fixture
def run_eval(tmp_path: Path) -> RunEval:
    """Run scripts/eval with arguments; return the process and its JSON report."""

    def run(*args: str, timeout: float = 240) -> tuple[subprocess.CompletedProcess[str], Any]:
        report_path = tmp_path / "report.json"
        result = subprocess.run(
            [str(EVAL), "--quiet", "--json", str(report_path), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=os.environ.copy(),
        )
        report = json.loads(report_path.read_text()) if report_path.exists() else {}
        return result, report

    return run
