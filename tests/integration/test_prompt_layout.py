"""The prompt's layout for reuse: the home in the prefix, what changed at the end (issue 14).

A scripted model records every request; the tests change the home between turns and check
what the next prompt shows: current states always, a prefix that stays the same while only
states change, and a follow-up that extends the previous turn's prompt.
"""

from __future__ import annotations

from freezegun.api import FrozenDateTimeFactory
import pytest

from custom_components.local_agent.turn import home_context
from custom_components.local_agent.turn.home_context import time_text
from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.util import dt as dt_util

from .conftest import Agent
from .home import NOT_EXPOSED
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call


def last_user_message(request: SeenRequest) -> str:
    """The text of the last user message as the model reads it."""
    return request.dynamic_prompt.rsplit("<|im_start|>user\n", 1)[1].split("<|im_end|>")[0]


def stable(request: SeenRequest) -> str:
    """What the next request of the conversation repeats: the prompt up to the last message."""
    assert request.prompt.stable_end is not None
    return request.static_prompt + request.dynamic_prompt[: request.prompt.stable_end]


async def turn_off(hass: HomeAssistant, entity_id: str) -> None:
    domain = entity_id.split(".", maxsplit=1)[0]
    await hass.services.async_call(domain, "turn_off", {"entity_id": entity_id}, blocking=True)


async def test_follow_up_in_an_unchanged_home_extends_the_previous_prompt(
    scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.will_write(answer("Hello."), answer("Fine."))

    first = await scripted_agent.ask("hello")
    await scripted_agent.ask("how are you?", conversation_id=first.conversation_id)

    one, two = scripted_worker.requests
    assert two.static_prompt == one.static_prompt
    assert (two.static_prompt + two.dynamic_prompt).startswith(stable(one))
    new = two.dynamic_prompt[one.prompt.stable_end :]
    # Only the answer, the new message with its time, and the generation prompt are new.
    assert "Hello." in new
    assert "Changed since" not in new
    assert last_user_message(two).startswith("Now: ")
    assert last_user_message(two).endswith("\n\nhow are you?")
    assert len(new) < 200


@pytest.mark.parametrize(
    ("language", "said", "line"),
    [
        ("de", "Wie geht's?", "Answer in German."),
        ("pt-BR", "Tudo bem?", "Answer in Portuguese."),
        ("tlh", "nuqneH", "Answer in the language 'tlh'."),
        ("en-GB", "How are you?", None),
    ],
)
async def test_a_message_not_in_english_names_the_language_to_answer_in(
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    language: str,
    said: str,
    line: str | None,
) -> None:
    """The block around the person's words is English: a small model is told the language."""
    scripted_worker.will_write(answer("…"), answer("…"))

    first = await scripted_agent.ask(said, language=language)
    await scripted_agent.ask(said, conversation_id=first.conversation_id, language=language)

    one, two = scripted_worker.requests
    time_line, *rest = last_user_message(one).removesuffix(f"\n\n{said}").split("\n")
    assert time_line.startswith("Now: ")
    assert rest == ([line] if line else [])
    # The earlier message keeps its block: the follow-up extends the prompt.
    assert (two.static_prompt + two.dynamic_prompt).startswith(stable(one))
    assert two.dynamic_prompt.count(line or "Answer in") == (2 if line else 0)


async def test_state_changed_between_turns_is_listed_with_the_current_state(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.will_write(answer("Hello."), answer("It is off."), answer("Still off."))
    first = await scripted_agent.ask("hello")
    kitchen = "\nlight.kitchen_lights (aliases: cooking light): on; brightness_pct=71"
    assert kitchen in scripted_worker.requests[0].static_prompt

    await turn_off(hass, "light.kitchen_lights")
    await scripted_agent.ask("is the kitchen light on?", conversation_id=first.conversation_id)
    await scripted_agent.ask("and now?", conversation_id=first.conversation_id)

    one, two, three = scripted_worker.requests
    assert two.static_prompt == one.static_prompt  # the home list stays; one line says more
    block = last_user_message(two).split("\n\n")[0]
    assert block.startswith("Changed since:\n")  # before the time line, which changes more
    changes = block.removeprefix("Changed since:\n").split("\nNow: ")[0]
    assert changes == "- light.kitchen_lights: off"
    assert (two.static_prompt + two.dynamic_prompt).startswith(stable(one))
    # Once read, an unchanged state is not repeated.
    assert "Changed since" not in last_user_message(three)
    assert (three.static_prompt + three.dynamic_prompt).startswith(stable(two))


async def test_state_back_to_its_listed_value_is_listed_again(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.will_write(answer("A."), answer("B."), answer("C."))
    first = await scripted_agent.ask("hello")
    await turn_off(hass, "light.kitchen_lights")
    await scripted_agent.ask("is the kitchen light on?", conversation_id=first.conversation_id)
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": "light.kitchen_lights", "brightness": 180}, blocking=True
    )
    await scripted_agent.ask("and now?", conversation_id=first.conversation_id)

    one, _, three = scripted_worker.requests
    # As the home list says, but an earlier message said "off": listed again.
    listed = "- light.kitchen_lights: on; brightness_pct=71"
    assert listed in last_user_message(three)
    assert "\nlight.kitchen_lights (aliases: cooking light): on; brightness_pct=71" in (
        one.static_prompt
    )


async def turn_off_the_kitchen_light(
    agent: Agent, worker: ScriptedWorker, next_answer: str
) -> conversation.ConversationResult:
    """The model turns the kitchen light off with our tool and says so; next_answer is what it
    answers in the turn after."""
    worker.will_write(
        answer(call("light", action="turn_off", entity_id="light.kitchen_lights")),
        answer("Off."),
        answer(next_answer),
    )
    return await agent.ask("turn off the kitchen light")


async def test_an_entity_a_tool_acted_on_is_listed_in_the_next_turn(
    hass: HomeAssistant, phrasing_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    first = await turn_off_the_kitchen_light(phrasing_agent, scripted_worker, "It is on.")
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": "light.kitchen_lights"}, blocking=True
    )
    await phrasing_agent.ask("is it on?", conversation_id=first.conversation_id)

    third = scripted_worker.requests[2]
    assert "- light.kitchen_lights: on" in last_user_message(third)
    # The tool round went on from the end of the user's message too.
    one, two = scripted_worker.requests[:2]
    assert (two.static_prompt + two.dynamic_prompt).startswith(stable(one))


async def test_an_entity_a_tool_acted_on_is_not_repeated_while_its_result_holds(
    hass: HomeAssistant, phrasing_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    first = await turn_off_the_kitchen_light(phrasing_agent, scripted_worker, "It is off.")
    await phrasing_agent.ask("is it off?", conversation_id=first.conversation_id)

    third = scripted_worker.requests[2]
    # The tool result showed "off" (with the other lights' states as they are): nothing new.
    assert '"entity_id":"light.kitchen_lights"' in third.dynamic_prompt
    assert "Changed since" not in last_user_message(third)


async def test_the_engine_prepares_the_start_of_the_next_turn(
    hass: HomeAssistant,
    phrasing_agent: Agent,
    scripted_worker: ScriptedWorker,
    freezer: FrozenDateTimeFactory,
) -> None:
    freezer.move_to("2026-12-02 07:41:10+00:00")
    scripted_worker.will_write(
        answer(
            call("light", action="turn_off", entity_id="light.kitchen_lights"),
            reasoning="Turning it off.",
        ),
        answer("Off."),
        answer("Yes."),
    )
    first = await phrasing_agent.ask("turn off the kitchen light")
    await hass.async_block_till_done(wait_background_tasks=True)
    static, prepared = scripted_worker.prepared[-1]
    await phrasing_agent.ask("is it off?", conversation_id=first.conversation_id)

    one, two, three = scripted_worker.requests
    assert three.static_prompt == static == one.static_prompt
    # The answered turn as the next prompt shows it (its reasoning dropped), which the
    # prompts of that turn did not hold; after it, only the new message is left to evaluate.
    assert "Turning it off." in two.dynamic_prompt
    assert "Turning it off." not in prepared
    assert not two.dynamic_prompt.startswith(prepared)
    # Into the new message: its time line, written before the person speaks.
    assert prepared.endswith(f"<|im_start|>user\nNow: {time_text(dt_util.now())}")
    assert three.dynamic_prompt.startswith(prepared)
    new = three.dynamic_prompt[len(prepared) :]
    assert new.startswith(".\n\n")
    assert "is it off?" in new
    assert "Off." not in new
    assert "<tool_response>" not in new


async def test_renamed_entity_changes_the_home_list(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.will_write(answer("A."), answer("B."))
    first = await scripted_agent.ask("hello")
    er.async_get(hass).async_update_entity("light.bed_light", name="Reading Lamp")
    await hass.async_block_till_done()
    await scripted_agent.ask("hello again", conversation_id=first.conversation_id)

    one, two = scripted_worker.requests
    assert "\nlight.bed_light: off" in one.static_prompt
    assert "Reading Lamp" not in one.static_prompt
    assert "\nlight.bed_light 'Reading Lamp': off" in two.static_prompt


async def test_exposed_and_unexposed_between_turns(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.will_write(answer("A."), answer("B."), answer("C."))
    first = await scripted_agent.ask("hello")
    async_expose_entity(hass, "conversation", NOT_EXPOSED, True)
    await scripted_agent.ask("and now?", conversation_id=first.conversation_id)
    async_expose_entity(hass, "conversation", NOT_EXPOSED, False)
    async_expose_entity(hass, "conversation", "light.bed_light", False)
    await scripted_agent.ask("and now?", conversation_id=first.conversation_id)

    one, two, three = scripted_worker.requests
    assert f"\n{NOT_EXPOSED}" not in one.static_prompt
    assert f"\n{NOT_EXPOSED}" in two.static_prompt
    assert f"\n{NOT_EXPOSED}" not in three.static_prompt
    assert "\nlight.bed_light" not in three.static_prompt
    assert "- light.bed_light" not in last_user_message(three)


async def test_many_changes_take_the_home_list_again(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(home_context, "CHANGE_LIMIT", 1)
    scripted_worker.will_write(answer("A."), answer("B."), answer("C."))
    first = await scripted_agent.ask("hello")
    await turn_off(hass, "light.kitchen_lights")
    await scripted_agent.ask("and now?", conversation_id=first.conversation_id)
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": "light.bed_light"}, blocking=True
    )
    await scripted_agent.ask("and now?", conversation_id=first.conversation_id)

    one, two, three = scripted_worker.requests
    assert two.static_prompt == one.static_prompt
    assert three.static_prompt != one.static_prompt
    assert "\nlight.kitchen_lights (aliases: cooking light): off" in three.static_prompt
    assert "\nlight.bed_light: on" in three.static_prompt
    # The older message said the kitchen light was off and the new list agrees.
    assert "Changed since" not in last_user_message(three)


async def test_new_conversation_shares_the_home_prefix_and_sees_changes(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.will_write(answer("A."), answer("B."))
    await scripted_agent.ask("hello")
    await turn_off(hass, "light.kitchen_lights")
    await scripted_agent.ask("is the kitchen light on?")

    one, two = scripted_worker.requests
    assert two.static_prompt == one.static_prompt
    assert "- light.kitchen_lights: off" in last_user_message(two)
