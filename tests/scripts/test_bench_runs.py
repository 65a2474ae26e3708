"""scripts/bench end to end on the tiny test model: the commands run and print their figures.

The benchmarks pin the random model's answers (a Steering), time a turn from its stream and
restart the entry; these runs catch a change that breaks them, which nothing else would.
"""

from __future__ import annotations

import json
from pathlib import Path

from .script_runs import run_script


def test_home_turns_evaluate_only_the_message_once_the_prefix_is_there(tmp_path: Path) -> None:
    result = run_script("bench",
        "turn", "--homes", "10", "--models", "qwen35", "--threads", "1", "--out", str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    rows = {row["scenario"]: row for row in json.loads((tmp_path / "home_turns.json").read_text())}
    first = rows["first, nothing saved"]
    assert first["evaluated_tokens"] > 0.9 * first["prompt_tokens"]  # the prefix, evaluated
    for scenario in ("first after restart", "follow-up", "new conversation"):
        assert rows[scenario]["evaluated_tokens"] < 120, scenario
    assert rows["first after restart"]["saved_prefix_bytes"] > 0
    for row in rows.values():  # the pinned call ran, and the agent answered it itself
        assert row["service_call_s"] is not None
        assert row["first_word_s"] is not None
        assert row["rounds"] == 1
        assert row["call_forced_tokens"] > 0
    assert "follow-up" in (tmp_path / "benchmarks.md").read_text()
    assert (tmp_path / "home_turns.png").is_file()


def test_structured_task_benchmark_runs(qwen35_model_path: Path) -> None:
    result = run_script(
        "bench", "task", "--model", str(qwen35_model_path), "--runs", "1", "--threads", "1"
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("structured task") == 2
