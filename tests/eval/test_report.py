"""What a report shows of each sentence: rejected calls with their arguments, unreachable apart."""

from __future__ import annotations

from pathlib import Path

from custom_components.local_agent.engine.tool_calls import ToolCallFailed
from custom_components.local_agent.engine.types import ToolCallError
from scripts.evaluation.dataset import load_home
from scripts.evaluation.report import format_failures
from scripts.evaluation.report import format_table
from scripts.evaluation.report import format_unreachable
from scripts.evaluation.report import skipped_by_kind
from scripts.evaluation.report import summarise
from scripts.evaluation.runner import Case
from scripts.evaluation.runner import CaseResult
from scripts.evaluation.runner import _result
from scripts.evaluation.runner import raw_arguments
from scripts.evaluation.runner import skipped_result
from scripts.evaluation.scoring import Failure
from scripts.evaluation.scoring import Verdict
from testing.turn import ToolCallRecord
from testing.turn import TurnRecord

FLAT = Path(__file__).resolve().parents[2] / "eval" / "homes" / "flat"
RAW = (
    "<tool_call>\n<function=light>\n<parameter=action>\nturn_on\n</parameter>\n"
    '<parameter=entity_id>\n["light.kitchen"]\n</parameter>\n'
    "<parameter=brightness_pct>\nvery bright\n</parameter>\n</function>\n</tool_call>"
)


def test_raw_arguments_reads_texts_and_json() -> None:
    assert raw_arguments(RAW) == {
        "action": "turn_on",
        "entity_id": ["light.kitchen"],
        "brightness_pct": "very bright",
    }


def test_a_rejected_call_is_reported_with_the_arguments_the_model_wrote() -> None:
    home = load_home(FLAT)
    test = home.tests[0]
    turn = TurnRecord(
        text="x",
        answer="Sorry.",
        conversation_id="c",
        continue_conversation=False,
        tool_calls=[
            ToolCallRecord("light", {}, {"error": "brightness_pct must be a number"}, True),
        ],
    )
    failed = [ToolCallFailed(ToolCallError("brightness_pct must be a number", RAW, "light"))]
    verdict = Verdict()
    verdict.add(Failure.WRONG_STATE, "light.kitchen: state off, expected on")

    result = _result(Case(home, test, "x"), verdict, [turn], False, [], 0.1, failed)

    assert result.tool_calls[0].arguments["brightness_pct"] == "very bright"
    assert result.tool_calls[0].raw == RAW
    shown = format_failures([result])
    assert (
        'call light({"action": "turn_on", "entity_id": ["light.kitchen"], "brightness_pct": '
        in (shown)
    )
    assert "light({})" not in shown

    result.unreachable = ["light.kitchen: a light that is on has a brightness above 0"]
    assert format_failures([result]) == ""
    assert "cannot reach: light.kitchen: a light that is on" in format_unreachable([result])
    summary = summarise([result])
    assert (summary.sentences, summary.unreachable, summary.success_rate) == (1, 1, 0.0)


def test_skipped_sentences_are_neither_passed_nor_failed() -> None:
    home = load_home(FLAT)
    passed = CaseResult("flat", "lights", "flat/lights#1", "x", success=True)
    failed = CaseResult("flat", "lights", "flat/lights#2", "y")
    skipped = skipped_result(Case(home, home.tests[0], "z"), "domain 'calendar' is not simulated")

    summary = summarise([passed, failed, skipped])

    assert (summary.sentences, summary.passed, summary.skipped) == (3, 1, 1)
    assert (summary.tests, summary.success_rate) == (2, 0.5)
    assert format_failures([skipped]) == ""
    assert skipped_by_kind([passed, skipped]) == {"domain 'calendar' is not simulated": 1}
    overall = format_table([passed, failed, skipped]).splitlines()[-3].split()
    assert overall[:7] == ["overall", "3", "1", "0", "1", "50.0%", "2/2"]
