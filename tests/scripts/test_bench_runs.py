"""scripts/bench end to end on the tiny test model: the commands run and print their figures.

The benchmarks reach into the engine (a stand-in clock, forced answers, the old prompt layout
rebuilt); these runs catch a change that breaks them, which nothing else would.
"""

from __future__ import annotations

import json
from pathlib import Path

from testing.model_files import llama_threads

from .script_runs import run_script

THREADS = str(llama_threads(1))


def test_home_turns_compare_the_layouts_and_a_follow_up_evaluates_only_its_message(
    tmp_path: Path,
) -> None:
    result = run_script("bench",
        "turn", "--homes", "10", "--models", "qwen35", "--threads", THREADS,
        "--layouts", "old,new", "--out", str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    rows = json.loads((tmp_path / "home_turns.json").read_text())
    evaluated = {(row["layout"], row["scenario"]): row["evaluated_tokens"] for row in rows}
    assert evaluated[("new", "follow-up")] < 120
    assert evaluated[("old", "follow-up")] > 4 * evaluated[("new", "follow-up")]
    assert "follow-up" in (tmp_path / "benchmarks.md").read_text()


def test_structured_task_benchmark_runs(qwen35_model_path: Path) -> None:
    result = run_script(
        "bench", "task", "--model", str(qwen35_model_path), "--runs", "1", "--threads", THREADS
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("structured task") == 2
