"""What a twenty-fifth walk in a real browser found wrong (a new owner's first hour, in English).

- "Turn on the kitchen lights" with the lights on was answered "Kitchen Lights was already
  on.": a plural name with a singular verb. A name says nothing sure of its number (and the
  seven languages agree their verbs with it), so the sentence no longer makes the name its
  subject: "Kitchen Lights: already on." Targets of one call found so are said once, together
  ("Kitchen Lights and Ceiling Lights: already on."), not one sentence for each.
- A lock renamed to a name of 150 characters was asked "Unlock Front Door of the old farmhouse
  … the p… (lock.stuck_door) (lock.stuck_door)? Say yes to confirm.": the cut name carries its
  id, whose brackets then read as marks of ours, and the question added the id again. After
  "yes", a lock that stayed locked was said "… because Front Door of the … p… (lock.stuck_door)
  is still locked": the reason names the target again, after the sentence that told it apart,
  by its name alone.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.conversation import ConversationResult
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scene import Scene
from .scene import tool_call
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call

KITCHEN_LIGHTS: Final = "light.kitchen_lights"
CEILING_LIGHTS: Final = "light.ceiling_lights"


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Kitchen Lights: already on."),
        ("de", "Kitchen Lights: schon eingeschaltet."),
        ("fr", "Kitchen Lights\u00a0: déjà allumé."),
    ],
)
async def test_a_plural_name_already_on_is_not_the_subject_of_a_singular_verb(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    said: str,
) -> None:
    assert state(hass, KITCHEN_LIGHTS) == "on"
    scripted_worker.will_write(answer(call("light", action="turn_on", entity_id=KITCHEN_LIGHTS)))

    result = await scripted_agent.ask(
        "turn on the kitchen lights", context=person, language=language
    )

    assert speech(result) == said


async def test_the_targets_of_one_call_found_as_asked_are_said_together(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    async_expose_entity(hass, "conversation", CEILING_LIGHTS, True)
    assert state(hass, KITCHEN_LIGHTS) == state(hass, CEILING_LIGHTS) == "on"
    scripted_worker.will_write(
        answer(call("light", action="turn_on", entity_id=[KITCHEN_LIGHTS, CEILING_LIGHTS]))
    )

    result = await scripted_agent.ask("turn on the kitchen and ceiling lights", context=person)

    assert speech(result) == "Kitchen Lights and Ceiling Lights: already on."


async def test_two_locks_already_unlocked_after_a_yes_are_said_together(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """The question is still asked (the state may be stale); the answer names both once."""
    doors = ["lock.kitchen_door", "lock.poorly_installed_door"]
    for door in doors:
        async_expose_entity(hass, "conversation", door, True)
        assert state(hass, door) == "unlocked"
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id=doors)))
    question = await scripted_agent.ask("unlock the doors", context=person)
    assert question.continue_conversation is True, speech(question)

    done = await scripted_agent.ask("yes", conversation_id=question.conversation_id, context=person)

    assert speech(done) == "Kitchen Door and Poorly Installed Door: already unlocked."


async def test_a_lock_with_a_long_name_is_asked_with_its_id_once(
    hass: HomeAssistant, scene: Scene
) -> None:
    _, question = await _ask_to_unlock_the_farmhouse_door(hass, scene)

    assert speech(question) == f"Unlock {CUT_NAME} (lock.stuck_door)? Say yes to confirm."


async def test_a_reason_after_a_long_name_says_the_cut_name_alone(
    hass: HomeAssistant, scene: Scene, quick_settle: None
) -> None:
    agent, question = await _ask_to_unlock_the_farmhouse_door(hass, scene)

    done = await scene.reply(agent, question, "yes")

    assert speech(done) == (
        f"I could not finish: unlock {CUT_NAME} (lock.stuck_door) \u2013 {CUT_NAME}: still locked."
    )


# The first 100 characters of LONG_NAME, as every answer and question cuts it.
CUT_NAME: Final = (
    "Front Door of the old farmhouse by the orchard, the heavy oak one with the brass knocker "
    "that the p…"
)
LONG_NAME: Final = (
    "Front Door of the old farmhouse by the orchard, the heavy oak one with the brass "
    "knocker that the postman always uses when he brings parcels on Monday"
)


async def _ask_to_unlock_the_farmhouse_door(
    hass: HomeAssistant, scene: Scene
) -> tuple[Agent, ConversationResult]:
    """Rename the scene's stuck door to a name of 150 characters and ask to unlock it."""
    er.async_get(hass).async_update_entity("lock.stuck_door", name=LONG_NAME)
    async_expose_entity(hass, "conversation", "lock.stuck_door", True)
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call("lock", action="unlock", entity_id="lock.stuck_door"))
    return agent, await agent.ask("unlock the farmhouse door", context=scene.person)
