"""Reads that answer, and hints that cost what the command costs.

- "Are all the doors locked?": the model read both doors and wrote nothing, and the person
  heard "Sorry, I have no answer to that." The agent now says what was read, as labels in the
  person's language with Home Assistant's state words ("Front Door: locked and Back Door:
  locked"), a long list cut ("… and 10 more").
- A read that failed said "I could not read the state of nowhere." and not why: now it says
  that no such entity is exposed to Assist: the same for one that is not exposed, as the
  model is told.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from .conftest import speech
from .scene import Scene
from .scripted_model import answer
from .scripted_model import call

DOORS: Final = ("lock.front_door", "lock.back_door")


def reads(*entity_ids: str) -> str:
    """The model reading each entity with get_state, in one round."""
    return answer("\n".join(call("get_state", entity_id=entity_id) for entity_id in entity_ids))


@pytest.mark.parametrize(
    ("language", "heard"),
    [
        ("en", "Front Door: locked and Back Door: locked."),
        ("de", "Front Door: verriegelt und Back Door: verriegelt."),
        ("fr", "Front Door\u00a0: verrouillé et Back Door\u00a0: verrouillé."),
    ],
)
async def test_a_silent_model_after_reads_says_what_was_read(
    hass: HomeAssistant, scene: Scene, language: str, heard: str
) -> None:
    """Before: "Sorry, I have no answer to that." after two good reads."""
    agent = await scene.our_agent()
    scene.worker.will_write(reads(*DOORS), answer(""))

    result = await agent.ask("are all the doors locked", context=scene.person, language=language)

    assert speech(result) == heard


async def test_one_read_in_two_rounds_is_said_too(hass: HomeAssistant, scene: Scene) -> None:
    agent = await scene.our_agent()
    scene.worker.will_write(reads("lock.front_door"), reads("lock.back_door"), answer(""))

    result = await agent.ask("are the doors locked", context=scene.person)

    assert speech(result) == "Front Door: locked and Back Door: locked."


async def test_a_long_read_is_cut(hass: HomeAssistant, scene: Scene) -> None:
    for number in range(12):
        hass.states.async_set(f"sensor.room_{number}", "21", {"friendly_name": f"Room {number}"})
        async_expose_entity(hass, "conversation", f"sensor.room_{number}", True)
    agent = await scene.our_agent()
    rooms = [f"sensor.room_{number}" for number in range(12)]
    scene.worker.will_write(reads(*rooms[:6]), reads(*rooms[6:]), answer(""))

    result = await agent.ask("how warm is it everywhere", context=scene.person)

    assert speech(result) == "Room 0: 21, Room 1: 21, Room 2: 21 and 9 more."


async def test_another_tools_read_is_not_said(hass: HomeAssistant, scene: Scene) -> None:
    """Guard: only our runner's reads are said; Assist's intents answer by their own words."""
    agent = await scene.assist_agent()
    scene.worker.will_write(answer(""))

    result = await agent.ask("are the doors locked", context=scene.person)

    assert speech(result) == "Sorry, I have no answer to that."


@pytest.mark.parametrize(
    ("language", "entity_id", "heard"),
    [
        (
            "en",
            "nowhere",
            "I could not read the state of nowhere. Nowhere: no such entity exposed to Assist.",
        ),
        (
            "de",
            "nowhere",
            "Das ging nicht: den Zustand von nowhere lesen. Nowhere: keine Entität dieses"
            " Namens für Assist freigegeben.",
        ),
        (
            "en",
            "lock.garage_side_door",
            "I could not read the state of garage side door. Garage side door: no such entity"
            " exposed to Assist.",
        ),
        # Not exposed: said as one that does not exist (the resolver's rule), by its words.
        (
            "en",
            "light.ceiling_lights",
            "I could not read the state of ceiling lights. Ceiling lights: no such entity"
            " exposed to Assist.",
        ),
        (
            "fr",
            "light.ceiling_lights",
            "Je n'ai pas pu lire l'état de ceiling lights. Ceiling lights\u00a0: aucune entité"
            " de ce nom exposée à Assist.",
        ),
    ],
)
async def test_a_failed_read_says_why(
    hass: HomeAssistant, scene: Scene, language: str, entity_id: str, heard: str
) -> None:
    """Before: "I could not read the state of nowhere." and nothing of why."""
    agent = await scene.our_agent()
    scene.worker.will_write(reads(entity_id), answer(""))

    result = await agent.ask("is it shut", context=scene.person, language=language)

    assert speech(result) == heard
