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

from typing import Any
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


async def yes_after_a_change(
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    **change: Any,
) -> str:
    """Ask to open the (exposed) garage door (held), change its registry entry as Settings
    does, answer yes; return what the yes was told."""
    hass = scripted_agent.hass
    async_expose_entity(hass, "conversation", GARAGE, True)
    scripted_worker.will_write(answer(call("cover", action="open_cover", entity_id=GARAGE)))
    asked = await scripted_agent.ask("Open the garage door", context=person, language=language)
    assert speech(asked) == ASKED[language]

    er.async_get(hass).async_update_entity(GARAGE, **change)
    await hass.async_block_till_done()
    yes = await scripted_agent.ask(
        YES[language], conversation_id=asked.conversation_id, context=person, language=language
    )
    await hass.async_block_till_done()
    return speech(yes)


RENAMED: Final = {"name": "Shed Door"}
DISABLED: Final = {"disabled_by": er.RegistryEntryDisabler.USER}


@pytest.mark.parametrize(
    ("change", "language", "expected"),
    [
        (RENAMED, "en", "I could not finish: open Garage Door \u2013 now called Shed Door."),
        (RENAMED, "nl", "Ik kon het niet afmaken: Garage Door openen \u2013 heet nu Shed Door."),
        (DISABLED, "en", "I could not finish: open Garage Door \u2013 Garage Door: gone."),
        (
            DISABLED,
            "nl",
            "Ik kon het niet afmaken: Garage Door openen \u2013 Garage Door: niet meer aanwezig.",
        ),
    ],
    ids=["renamed-en", "renamed-nl", "disabled-en", "disabled-nl"],
)
async def test_a_yes_to_a_door_renamed_or_disabled_since_says_so(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    change: dict[str, Any],
    language: str,
    expected: str,
) -> None:
    """Before, both: "… - the devices it would change are not the same any more."."""
    said = await yes_after_a_change(scripted_agent, scripted_worker, person, language, **change)

    assert said == expected
    assert hass.states.get(GARAGE) is None or state(hass, GARAGE) == "closed"
