"""What a thirtieth walk in a real browser found wrong (an English and then a Dutch household
changing the house in Settings between requests, one Assist dialog open beside it).

- "Open the garage door" was held ("Open Garage Door? Say yes to confirm."); in Settings the
  garage door was renamed "Shed Door", and the yes was refused, rightly, but with "the devices
  it would change are not the same any more": the same door, only its name had changed, and
  the person was told someone had swapped it. The answer now says what it is called now.
- The same held question, and the door disabled in Settings before the yes: refused with the
  same words, though the door was simply gone. The answer now says it is gone, by the name
  the question said.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call

GARAGE: Final = "cover.garage_door"
YES: Final = {"en": "yes", "nl": "ja"}
ASKED: Final = {
    "en": "Open Garage Door? Say yes to confirm.",
    "nl": "Garage Door openen? Zeg „ja” om te bevestigen.",
}


async def held_open_garage(
    scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context, language: str
) -> str:
    """Ask to open the (exposed) garage door: held; return the conversation."""
    async_expose_entity(scripted_agent.hass, "conversation", GARAGE, True)
    scripted_worker.will_write(answer(call("cover", action="open_cover", entity_id=GARAGE)))
    asked = await scripted_agent.ask("Open the garage door", context=person, language=language)
    assert speech(asked) == ASKED[language]
    return asked.conversation_id


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "I could not finish: open Garage Door – now called Shed Door."),
        ("nl", "Ik kon het niet afmaken: Garage Door openen – heet nu Shed Door."),
    ],
)
async def test_a_held_question_whose_target_was_renamed_says_its_new_name(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    expected: str,
) -> None:
    """Before: "… – the devices it would change are not the same any more."."""
    conversation_id = await held_open_garage(scripted_agent, scripted_worker, person, language)
    er.async_get(hass).async_update_entity(GARAGE, name="Shed Door")
    await hass.async_block_till_done()

    yes = await scripted_agent.ask(
        YES[language], conversation_id=conversation_id, context=person, language=language
    )
    await hass.async_block_till_done()

    assert speech(yes) == expected
    assert state(hass, GARAGE) == "closed"


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "I could not finish: open Garage Door – Garage Door: gone."),
        ("nl", "Ik kon het niet afmaken: Garage Door openen – Garage Door: niet meer aanwezig."),
    ],
)
async def test_a_held_question_whose_target_was_disabled_says_it_is_gone(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    expected: str,
) -> None:
    """Before: "… – the devices it would change are not the same any more."."""
    conversation_id = await held_open_garage(scripted_agent, scripted_worker, person, language)
    er.async_get(hass).async_update_entity(GARAGE, disabled_by=er.RegistryEntryDisabler.USER)
    await hass.async_block_till_done()

    yes = await scripted_agent.ask(
        YES[language], conversation_id=conversation_id, context=person, language=language
    )
    await hass.async_block_till_done()

    assert speech(yes) == expected
    assert hass.states.get(GARAGE) is None
