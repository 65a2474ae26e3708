"""True answers when nothing changed, and a history that reads as it happened.

- A call that found its target already as it asked ("turn on" a light that was on, "unlock"
  a door that was unlocked, "close" a closed cover) was said done ("Feito: destrancar …").
  Now it is said as it was found. A sensitive one is still asked first: the state Home
  Assistant shows may be stale, and only the call makes sure (fail closed).
- A reload of the entry made a new agent without its conversations' context blocks: the
  next turn showed the model its earlier messages bare.
- The model wrote no answer: the chat log kept an empty assistant message beside what the
  agent said instead, and the next turn showed the model both. The empty one is left out.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Final

import pytest
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.local_agent.engine.types import Message
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call

FRONT_DOOR: Final = "lock.front_door"
KITCHEN_DOOR: Final = "lock.kitchen_door"
KITCHEN_LIGHTS: Final = "light.kitchen_lights"
HALL_WINDOW: Final = "cover.hall_window"


def next_turn_saw(worker: ScriptedWorker, text: str) -> tuple[list[Message], list[str]]:
    """Script the next generation to answer `text`; fill the returned list with its messages."""
    seen: list[Message] = []

    def write(request: SeenRequest) -> str:
        conversation = request.conversation
        assert conversation is not None
        seen.extend(conversation.messages)
        return answer(text)

    worker.will_write(write)
    return seen, []


def assistant_texts(messages: list[Message]) -> list[str]:
    return [message.content for message in messages if message.role == "assistant"]


async def test_an_empty_answer_is_not_kept_as_an_empty_message(
    scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    scripted_worker.will_write(answer(""))
    first = await scripted_agent.ask("hello", context=person)
    seen, _ = next_turn_saw(scripted_worker, "Hi.")

    await scripted_agent.ask("hello?", conversation_id=first.conversation_id, context=person)

    said = speech(first)
    assert said
    assert assistant_texts(seen) == [said]


async def test_a_light_already_on_is_said_to_have_been_on(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    assert state(hass, KITCHEN_LIGHTS) == "on"
    scripted_worker.will_write(answer(call("light", action="turn_on", entity_id=KITCHEN_LIGHTS)))

    result = await scripted_agent.ask("turn on the kitchen lights", context=person)

    assert speech(result) == "Kitchen Lights: already on."


async def test_a_call_that_changed_some_of_its_targets_is_done_for_all(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """A "turn on the lights" with one already on: every target is now as asked, so the call is
    said done for all, not done for one and a sentence for each light that was on before."""
    assert state(hass, KITCHEN_LIGHTS) == "on"
    assert state(hass, "light.bed_light") == "off"
    scripted_worker.will_write(
        answer(call("light", action="turn_on", entity_id=[KITCHEN_LIGHTS, "light.bed_light"]))
    )

    result = await scripted_agent.ask("turn on the kitchen and bed lights", context=person)

    assert speech(result) == "Turned on Kitchen Lights and Bed Light."
    assert state(hass, "light.bed_light") == "on"


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Kitchen Door: already unlocked."),
        ("pt", "Kitchen Door: já destrancada."),
    ],
)
async def test_a_lock_already_unlocked_is_still_asked_and_said_as_it_was(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    said: str,
) -> None:
    """browser23 heard "Feito: destrancar Front Door." for a door already unlocked. The question
    is still asked (the lock's state may be stale: only the call makes sure), the answer says
    what was found."""
    async_expose_entity(hass, "conversation", KITCHEN_DOOR, True)
    assert state(hass, KITCHEN_DOOR) == "unlocked"
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id=KITCHEN_DOOR)))
    question = await scripted_agent.ask(
        "unlock the kitchen door", context=person, language=language
    )
    assert question.continue_conversation is True, speech(question)

    done = await scripted_agent.ask(
        "yes", conversation_id=question.conversation_id, context=person, language=language
    )

    assert speech(done) == said


async def test_a_cover_already_closed_is_said_closed(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    await hass.services.async_call(
        "cover", "close_cover", {"entity_id": HALL_WINDOW}, blocking=True
    )
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=30))
    await hass.async_block_till_done()
    assert state(hass, HALL_WINDOW) == "closed"
    scripted_worker.will_write(answer(call("cover", action="close_cover", entity_id=HALL_WINDOW)))

    result = await scripted_agent.ask("close the hall window", context=person)

    assert speech(result) == "Hall Window: already closed."


async def test_a_reload_keeps_what_earlier_messages_read(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """The context block of each user message (the time, the states that changed) was kept by
    the agent, and a reload made a new one: the next turn showed the earlier message bare."""
    first = await scripted_agent.ask("hello", context=person)
    assert await hass.config_entries.async_reload(scripted_agent.entry.entry_id)
    await hass.async_block_till_done()
    seen, _ = next_turn_saw(scripted_worker, "Hi.")

    await scripted_agent.ask("hello again", conversation_id=first.conversation_id, context=person)

    earlier, now = [message.content for message in seen if message.role == "user"]
    assert earlier.startswith("Now: "), earlier
    assert earlier.endswith("\n\nhello"), earlier
    assert now.startswith("Now: "), now
