"""The guard of the integration: the reference policy must pass every test of our homes.

The reference policy writes the ideal tool calls for each test; they go through the real
parser, validation, safety gate and execution. A failure here is a bug of the integration
(or of a dataset), never of a model.
"""

from __future__ import annotations

from pathlib import Path

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
