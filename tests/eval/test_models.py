"""Real models through scripts/eval: low scores, but every call parsed, validated, no crash."""

from __future__ import annotations

from pathlib import Path

from testing.model_files import llama_threads

from .conftest import RunEval


def test_qwen35_test_model_completes_a_small_subset(
    run_eval: RunEval, qwen35_model_path: Path
) -> None:
    result, report = run_eval(
        "--model",
        str(qwen35_model_path),
        "--only",
        "flat",
        "--limit",
        "3",
        "--max-tokens",
        "32",
        "--threads",
        str(llama_threads(1)),
    )

    assert result.returncode == 0, result.stderr[-4000:]
    assert "Traceback" not in result.stderr, result.stderr
    summary = report["summary"]
    assert summary["sentences"] == 3
    assert summary["crashes"] == 0
    assert report["run"]["model"] == str(qwen35_model_path)
    assert {r["home"] for r in report["results"]} == {"flat"}
    assert len({r["category"] for r in report["results"]}) == 3
    # The model ran (sampling is random: a sentence may end early, see turn/agent.py's
    # _VisibleText, so only the totals are certain).
    assert summary["prompt_tokens"] > 0
    for sentence in report["results"]:
        assert sentence["answer"]
        # Every call the model wrote was answered: executed, or refused with a reason.
        for call in sentence["tool_calls"]:
            assert call["result"] != "null", call
    assert "overall" in result.stdout


def test_a_missing_model_file_is_a_clear_error(run_eval: RunEval, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.gguf"

    result, report = run_eval("--model", str(missing))

    assert result.returncode == 2
    assert f"model file not found: {missing}" in result.stderr
    assert "Traceback" not in result.stderr
    assert report == {}
