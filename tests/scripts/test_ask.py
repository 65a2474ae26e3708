"""scripts/ask end to end: a real Home Assistant, the demo home, the tiny qwen35 model."""

from __future__ import annotations

from pathlib import Path
import re
import subprocess

from testing.model_files import llama_threads

from .script_runs import run_script

THREADS = str(llama_threads(1))

SECTIONS = ("== Setup", "== Question", "== Answer", "== Tool calls", "== State changes")


def run_ask(*args: str) -> subprocess.CompletedProcess[str]:
    return run_script("ask", *args, timeout=240)


def test_ask_prints_every_section_and_caches_the_prefix_on_turn_two(
    qwen35_model_path: Path,
) -> None:
    result = run_ask(
        "turn on the kitchen light",
        "--model",
        str(qwen35_model_path),
        "--max-tokens",
        "48",
        "--threads",
        THREADS,
        "--repeat",
        "2",
    )

    assert result.returncode == 0, result.stderr
    out = result.stdout
    for heading in (*SECTIONS, "== Timings", "== Turn 2 of 2"):
        assert heading in out, heading
    assert "Traceback" not in result.stderr
    cached = [int(n) for n in re.findall(r"^tokens: prompt \d+, cached (\d+)", out, re.M)]
    assert len(cached) == 2
    assert cached[1] > 0, "the second turn should reuse the static prefix"
    for phase in ("prompt build", "prompt eval", "generation", "tool execution", "total turn"):
        assert phase in out, phase


def test_ask_shows_the_prompt_when_asked(qwen35_model_path: Path) -> None:
    result = run_ask(
        "hello",
        "--model",
        str(qwen35_model_path),
        "--max-tokens",
        "8",
        "--threads",
        THREADS,
        "--show-prompt",
    )

    assert result.returncode == 0, result.stderr
    assert "== Prompt" in result.stdout
    assert "<|im_start|>system" in result.stdout
    assert "light.kitchen_lights" in result.stdout


def test_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.gguf"

    result = run_ask("turn on the kitchen light", "--model", str(missing))

    assert result.returncode == 2
    assert f"model file not found: {missing}" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_a_file_that_is_not_gguf_is_a_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a model")

    result = run_ask("hello", "--model", str(junk))

    assert result.returncode == 2
    assert f"not a GGUF model file: {junk}" in result.stderr
    assert "Traceback" not in result.stderr
