"""Judging a sentence, and the reference policy's plans, without Home Assistant."""

from __future__ import annotations

from typing import Any

from custom_components.local_agent.engine.types import ToolSpec
from scripts.evaluation.dataset import StateSpec
from scripts.evaluation.dataset import TestCase
from scripts.evaluation.home import Snapshot
from scripts.evaluation.reference import color_name
from scripts.evaluation.reference import plan_test
from scripts.evaluation.reference import unanswerable
from scripts.evaluation.reference import write_calls
from scripts.evaluation.scoring import Failure
from scripts.evaluation.scoring import expects_confirmation
from scripts.evaluation.scoring import judge
from scripts.evaluation.scoring import values_match


def case(**fields: Any) -> TestCase:
    return TestCase(home="flat", file="t.yaml", index=0, category="t", sentences=("x",), **fields)


def test_values_match_under_the_documented_rules() -> None:
    assert values_match("On", "on")
    assert values_match(21, 21.0)
    assert values_match(0.4, 0.30000000000000004 + 0.1)
    assert values_match(76, 77, "brightness")
    assert not values_match(21, 22, "temperature")
    assert values_match(["milk", "Eggs"], ["eggs", "milk"])
    assert values_match([255, 0, 0], (255, 0, 0))
    assert not values_match([255, 0, 0], (0, 0, 255))
    assert values_match(None, None)
    assert values_match(True, True)
    assert not values_match(False, None)


def test_judge_expected_unexpected_and_ignored_changes() -> None:
    before: Snapshot = {
        "light.kitchen": ("off", {"brightness": None}),
        "switch.coffee_machine": ("off", {}),
        "timer.kitchen_timer": ("idle", {"finishes_at": None}),
        "media_player.kitchen_speaker": ("playing", {"volume_level": 0.3}),
    }
    after: Snapshot = {
        "light.kitchen": ("on", {"brightness": 77}),
        "switch.coffee_machine": ("on", {}),
        "timer.kitchen_timer": ("idle", {"finishes_at": "2026-01-01T00:00:00"}),
        "media_player.kitchen_speaker": ("playing", {"volume_level": 0.5}),
    }
    test = case(
        expect_changes={"light.kitchen": StateSpec("on", {"brightness_pct": 30})},
        ignore_changes={"media_player.kitchen_speaker": ("volume_level",)},
    )

    verdict = judge(test, before, after, False, ["Done."])

    # light.kitchen: brightness 77 is 30 %; the timer's finishes_at is volatile; the speaker's
    # volume is ignored: only the coffee machine changed when it should not have.
    assert verdict.problems == [
        (Failure.UNEXPECTED_CHANGE, "switch.coffee_machine: state changed off -> on")
    ]
    after["light.kitchen"] = ("on", {"brightness": 128})
    verdict = judge(test, before, after, False, ["Done."])
    assert (Failure.WRONG_STATE, "light.kitchen: brightness_pct 50, expected 30") in (
        verdict.problems
    )


def test_confirmations_are_expected_on_sensitive_changes_that_change_something() -> None:
    unlock = case(expect_changes={"lock.front_door": StateSpec("unlocked")})
    stay_locked = case(expect_changes={"lock.front_door": StateSpec("locked")})
    light = case(expect_changes={"light.kitchen": StateSpec("on")})
    sensitive = {"lock.front_door"}  # what the policy holds (sensitive_targets, in a live home)
    before: Snapshot = {"lock.front_door": ("locked", {}), "light.kitchen": ("off", {})}

    assert expects_confirmation(unlock, sensitive, before)
    assert not expects_confirmation(stay_locked, sensitive, before)
    assert not expects_confirmation(light, sensitive, before)
    explicit = case(expect_confirmation=False, expect_changes=unlock.expect_changes)
    assert not expects_confirmation(explicit, sensitive, before)
    after: Snapshot = {**before, "light.kitchen": ("on", {})}
    verdict = judge(light, before, after, True, ["Turn on? Say yes."], sensitive)
    assert [kind for kind, _ in verdict.problems] == [Failure.CONFIRMATION_UNEXPECTED]
    verdict = judge(unlock, before, before, False, ["Done."], sensitive)
    assert Failure.CONFIRMATION_MISSING in [kind for kind, _ in verdict.problems]


def test_answers_are_checked_for_expected_texts_and_questions() -> None:
    status = case(expect_answer=("locked",))
    ambiguous = case(expect_question=True)
    upstream = case(expect_response=("yes", "on"))  # one of them is enough

    assert judge(status, {}, {}, False, ["The Front Door is Locked."]).success
    assert not judge(status, {}, {}, False, ["I don't know."]).success
    assert judge(ambiguous, {}, {}, False, ["Which light?"]).success
    assert not judge(ambiguous, {}, {}, False, ["Done."]).success
    assert judge(upstream, {}, {}, False, ["The plug is on."]).success
    verdict = judge(upstream, {}, {}, False, ["The plug is off."])
    assert verdict.problems == [(Failure.ANSWER, "the answer mentions none of 'yes' or 'on'")]


# A to-do list as get_state returns it, and the setup that put it in the home.
TASKS = [{"entities": [{"entity_id": "todo.tasks", "state": "2", "items": ["Buy salad"]}]}]
TASKS_SETUP = '{"todo.tasks": [null, {"todo_items": [{"summary": "Buy salad"}]}]}'
READ_ALOUD = "Tâches is 2 (items ['Buy salad'])."


def test_an_answer_that_translates_what_the_home_holds_is_out_of_reach() -> None:
    # questions-fr expects "salade" for the item "Buy salad": only a translation gives it.
    why = unanswerable(["salade"], TASKS, READ_ALOUD, TASKS_SETUP)

    assert why is not None
    assert "salade" in why
    assert "translate" in why


def test_a_text_the_home_holds_or_a_yes_is_never_out_of_reach() -> None:
    # Missed, these are failures: the read results or the test's setup hold the text (a
    # product that drops the items must fail), or the policy answers yes or no itself.
    assert unanswerable(["salad"], TASKS, "Tâches is 2.", TASKS_SETUP) is None
    assert unanswerable(["salad"], [], "I could not read that.", TASKS_SETUP) is None
    assert unanswerable(["yes", "15"], [], "I could not read that.", "") is None


def test_null_expects_the_attribute_gone() -> None:
    test = case(expect_changes={"light.a": StateSpec("off", {"brightness": None})})
    before: Snapshot = {"light.a": ("on", {"brightness": 100, "color_mode": "brightness"})}

    assert judge(test, before, {"light.a": ("off", {"brightness": None})}, False, []).success
    verdict = judge(test, before, {"light.a": ("off", {"brightness": 100})}, False, [])
    assert verdict.problems == [(Failure.WRONG_STATE, "light.a: brightness 100, expected None")]


def tool(name: str, *properties: str) -> ToolSpec:
    schema = {"type": "object", "properties": {p: {"type": "string"} for p in properties}}
    return ToolSpec(name=name, description="", parameters=schema)


def test_reference_plans_group_entities_and_write_qwen_xml() -> None:
    tools = [tool("light", "action", "entity_id", "brightness_pct", "color_name")]
    test = case(
        expect_changes={
            "light.a": StateSpec("on", {"brightness_pct": 30}),
            "light.b": StateSpec("on", {"brightness": 76}),
        }
    )

    plan = plan_test(test, {"light.a": ("off", {}), "light.b": ("off", {})}, tools)

    assert plan.gaps == []
    assert write_calls(plan.calls) == (
        "<tool_call>\n<function=light>\n"
        "<parameter=action>\nturn_on\n</parameter>\n"
        '<parameter=entity_id>\n["light.a", "light.b"]\n</parameter>\n'
        "<parameter=brightness_pct>\n30\n</parameter>\n"
        "</function>\n</tool_call>"
    )


def test_reference_reports_what_the_tools_cannot_express() -> None:
    test = case(expect_changes={"light.a": StateSpec("on", {"rgb_color": [255, 0, 0]})})

    plan = plan_test(test, {"light.a": ("off", {})}, [tool("light", "action", "entity_id")])

    assert plan.gaps == ["light has no parameter 'color_name'"]
    assert color_name([255, 0, 0]) == "red"
    assert color_name([0, 0, 255]) == "blue"


def test_brightness_zero_is_planned_as_off_and_an_off_light_reads_as_zero() -> None:
    tools = [tool("light", "action", "entity_id", "brightness_pct")]
    off = case(expect_changes={"light.kitchen": StateSpec("off", {"brightness_pct": 0})})
    on_at_zero = case(expect_changes={"light.kitchen": StateSpec("on", {"brightness": 0})})
    before: Snapshot = {"light.kitchen": ("on", {"brightness": 200})}

    plan = plan_test(off, before, tools)
    assert [(c.name, c.arguments) for c in plan.calls] == [
        ("light", {"action": "turn_off", "entity_id": "light.kitchen"})
    ]
    assert plan_test(on_at_zero, before, tools).gaps == [
        "light.kitchen: a light that is on has a brightness above 0"
    ]
    after: Snapshot = {"light.kitchen": ("off", {"brightness": None})}
    assert judge(off, before, after, False, ["Done."]).success


def test_fans_get_their_speed_with_set_percentage() -> None:
    tools = [tool("fan", "action", "entity_id", "percentage")]
    test = case(expect_changes={"fan.a": StateSpec("on", {"percentage": 40})})

    plan = plan_test(test, {"fan.a": ("off", {"percentage": 0})}, tools)

    assert [c.arguments for c in plan.calls] == [
        {"action": "set_percentage", "entity_id": "fan.a", "percentage": 40}
    ]


def test_a_todo_count_adds_the_item_named_or_completes_the_one_named() -> None:
    tools = [tool("todo", "action", "entity_id", "item", "status")]
    before: Snapshot = {"todo.list": ("2", {"items": ["Milk", "Bread"], "completed": []})}
    more = case(expect_changes={"todo.list": StateSpec("3")})
    fewer = case(expect_changes={"todo.list": StateSpec("1")})

    added = plan_test(more, before, tools, sentence="please add oat milk to the list")
    done = plan_test(fewer, before, tools, sentence="I got the bread")

    assert [c.arguments for c in added.calls] == [
        {"action": "add_item", "entity_id": "todo.list", "item": "oat milk"}
    ]
    assert [c.arguments for c in done.calls] == [
        {"action": "update_item", "entity_id": "todo.list", "item": "Bread", "status": "completed"}
    ]


def test_an_expectation_already_met_needs_no_call_and_is_no_gap() -> None:
    test = case(expect_changes={"lock.front_door": StateSpec("locked")})

    plan = plan_test(test, {"lock.front_door": ("locked", {})}, [tool("lock", "action")])

    assert (plan.calls, plan.gaps) == ([], [])


def test_ignore_changes_for_a_whole_entity() -> None:
    before: Snapshot = {"sensor.x": ("1", {"a": 1}), "switch.coffee_machine": ("off", {})}
    after: Snapshot = {"sensor.x": ("2", {"a": 2}), "switch.coffee_machine": ("off", {})}

    assert judge(case(ignore_changes={"sensor.x": ("*",)}), before, after, False, []).success
    assert not judge(case(), before, after, False, []).success
