"""The guard of the integration: the reference policy must pass every test of our homes.

The reference policy writes the ideal tool calls for each test; they go through the real
parser, validation, safety gate and execution. A failure here is a bug of the integration
(or of a dataset), never of a model.
"""

from __future__ import annotations

from pathlib import Path
import re
from typing import Any

from scripts.evaluation.dataset import load_homes

from .conftest import RunEval

HOMES = Path(__file__).resolve().parents[2] / "eval" / "homes"


def test_reference_policy_passes_every_sentence_of_every_home(run_eval: RunEval) -> None:
    result, report = run_eval("--policy", "reference", "--fail-under", "100", timeout=180)

    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    summary = report["summary"]
    homes = load_homes(HOMES)
    assert summary["sentences"] == sum(len(t.sentences) for h in homes for t in h.tests)
    assert summary["success_rate"] == 1.0
    assert summary["crashes"] == 0
    assert summary["tool_errors"] == 0
    failed = [r for r in report["results"] if not r["success"] or r["notes"] or r["unreachable"]]
    assert not failed, failed[:3]
    assert summary["unreachable"] == 0
    assert report["run"]["homes"] == ["family_house", "flat", "large_home"]
    assert report["run"]["homes_path"] == str(HOMES)

    # Confirmations exactly where the product's SafetyPolicy (default options), asked in the
    # live home, holds an expected change.
    results = report["results"]
    expected = {r["test_id"] for r in results if r["confirmation_expected"]}
    asked = {r["test_id"] for r in results if r["confirmation_asked"]}
    assert asked == expected
    assert summary["confirmations_unexpected"] == summary["confirmations_missing"] == 0
    assert all(r["confirmation_asked"] == r["confirmation_expected"] for r in results)
    tests = {test.id: test for home in homes for test in home.tests}
    assert {"lock", "alarm_control_panel", "valve", "cover"} <= {
        entity_id.split(".")[0]
        for test_id in expected
        for entity_id in tests[test_id].expect_changes
    }
    assert "overall" in result.stdout
    assert "100.0%" in result.stdout


def test_every_home_passes_in_german_and_the_agent_speaks_german(run_eval: RunEval) -> None:
    """The same homes with German conversations: every question and every "done" the agent
    says itself is German, with no English service or field name inside."""
    result, report = run_eval(
        "--policy", "reference", "--language", "de", "--fail-under", "100", timeout=180
    )

    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert report["summary"]["success_rate"] == 1.0
    assert report["summary"]["confirmations_unexpected"] == 0
    assert report["summary"]["confirmations_missing"] == 0
    said = [
        _without_items(part, r)
        for r in report["results"]
        for part in r["answer"].split(" / ")
        if part.startswith("Erledigt: ") or part.endswith("Sag „ja“ zum Bestätigen.")
    ]
    questions = [part for part in said if part.endswith("Sag „ja“ zum Bestätigen.")]
    assert len(questions) == report["summary"]["confirmations_asked"]
    english = re.compile(r"\b(turn|set|the|of|run|use|add|item|status|on|to)\b|\w_\w")
    assert [part for part in said if english.search(part)] == []


def _without_items(text: str, result: dict[str, Any]) -> str:
    """The text without the to-do items the homes name in English ("wash the car")."""
    for call in result["tool_calls"]:
        if isinstance(item := call["arguments"].get("item"), str):
            text = text.replace(item, "…")
    return text
