"""Run scripts/eval as a user does: a subprocess with its own Home Assistant."""

from __future__ import annotations

from collections.abc import Callable
import json
from pathlib import Path
import subprocess
from typing import Any

import pytest

from tests.scripts.script_runs import run_script

REPO_ROOT = Path(__file__).resolve().parents[2]

type RunEval = Callable[..., tuple[subprocess.CompletedProcess[str], dict[str, Any]]]


@pytest.fixture
def run_eval(tmp_path: Path) -> RunEval:
    """Run scripts/eval with arguments; return the process and its JSON report."""

    def run(*args: str, timeout: float = 240) -> tuple[subprocess.CompletedProcess[str], Any]:
        report_path = tmp_path / "report.json"
        result = run_script("eval", "--quiet", "--json", str(report_path), *args, timeout=timeout)
        report = json.loads(report_path.read_text()) if report_path.exists() else {}
        return result, report

    return run
