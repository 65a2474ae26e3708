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

from collections.abc import Iterable
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final
from unittest.mock import patch

import pytest

from custom_components.local_agent.home.unexposed import nameless_names_in
from custom_components.local_agent.home.unexposed import unexposed_names_in
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.core import State
from homeassistant.core import StateMachine
from homeassistant.helpers import entity_registry as er

from .conftest import speech
from .houses import set_up
from .scene import Scene
from .scene import tool_call
from .scripted_model import answer
from .scripted_model import call

DOORS: Final = ("lock.front_door", "lock.back_door")


def reads(*entity_ids: str) -> str:
    """The model reading each entity with get_state, in one round."""
    return answer("\n".join(call("get_state", entity_id=entity_id) for entity_id in entity_ids))


async def heard_after(scene: Scene, *rounds: str, language: str = "en") -> str:
    """What the person hears when the model writes `rounds` of calls to our tools, then
    nothing."""
    agent = await scene.our_agent()
    scene.worker.will_write(*rounds, answer(""))
    result = await agent.ask("are the doors locked", context=scene.person, language=language)
    return speech(result)


@pytest.mark.parametrize(
    ("language", "heard"),
    [
        ("en", "Front Door: locked and Back Door: locked."),
        ("de", "Front Door: Verriegelt und Back Door: Verriegelt."),
        ("fr", "Front Door\u00a0: verrouillé et Back Door\u00a0: verrouillé."),
    ],
)
async def test_a_silent_model_after_reads_says_what_was_read(
    hass: HomeAssistant, scene: Scene, language: str, heard: str
) -> None:
    """Before: "Sorry, I have no answer to that." after two good reads."""
    assert await heard_after(scene, reads(*DOORS), language=language) == heard


async def test_one_read_in_two_rounds_is_said_too(hass: HomeAssistant, scene: Scene) -> None:
    heard = await heard_after(scene, reads("lock.front_door"), reads("lock.back_door"))

    assert heard == "Front Door: locked and Back Door: locked."


async def test_a_long_read_is_cut(hass: HomeAssistant, scene: Scene) -> None:
    for number in range(12):
        hass.states.async_set(f"sensor.room_{number}", "21", {"friendly_name": f"Room {number}"})
        async_expose_entity(hass, "conversation", f"sensor.room_{number}", True)
    rooms = [f"sensor.room_{number}" for number in range(12)]

    heard = await heard_after(scene, reads(*rooms[:6]), reads(*rooms[6:]))

    assert heard == "Room 0: 21, Room 1: 21, Room 2: 21 and 9 more."


async def test_another_tools_read_is_not_said(hass: HomeAssistant, scene: Scene) -> None:
    """Guard: only our runner's reads are said, not what another tool read."""
    agent = await scene.assist_agent()
    scene.worker.will_write(tool_call("GetLiveContext"), answer(""))

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
    assert await heard_after(scene, reads(entity_id), language=language) == heard


async def test_a_failed_read_never_says_a_hidden_entitys_name(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Guard: an entity that is not exposed is said by the words the model wrote, not by Home
    Assistant's name for it, and alike one that does not exist."""
    hass.states.async_set("lock.cellar", "locked", {"friendly_name": "Wine Vault"})

    heard = await heard_after(scene, reads("lock.cellar"))

    assert heard == (
        "I could not read the state of cellar. Cellar: no such entity exposed to Assist."
    )


@dataclass
class StatesRead:
    """How many states Home Assistant handed out while counting."""

    count: int = 0


@contextmanager
def states_read() -> Iterator[StatesRead]:
    """Count the states read through hass.states (every state listed, each one fetched)."""
    read = StatesRead()
    listed, fetched = StateMachine.async_all, StateMachine.get

    def async_all(
        states: StateMachine, domain_filter: str | Iterable[str] | None = None
    ) -> list[State]:
        found = listed(states, domain_filter)
        read.count += len(found)
        return found

    def get(states: StateMachine, entity_id: str) -> State | None:
        read.count += 1
        return fetched(states, entity_id)

    with patch.object(StateMachine, "async_all", async_all), patch.object(StateMachine, "get", get):
        yield read


def a_house_of(hass: HomeAssistant, locks: int) -> None:
    for number in range(locks):
        hass.states.async_set(f"lock.gate_{number}", "locked", {"friendly_name": f"Gate {number}"})


HINTED: Final = "unlock gate 7 and press guest mode"


@pytest.mark.parametrize("locks", [20, 2000])
async def test_the_hints_read_what_the_words_name_not_the_house(
    hass: HomeAssistant, scene: Scene, locks: int
) -> None:
    """Before: each hint read every state of the house on each turn that did nothing (2,000
    locks: over 4,000 states a turn)."""
    a_house_of(hass, locks)
    await set_up(hass, "input_button", {"guest_mode": None})
    async_expose_entity(hass, "conversation", "input_button.guest_mode", True)
    assert unexposed_names_in(hass, HINTED) == ["Gate 7"]  # the names are read once

    with states_read() as read:
        assert unexposed_names_in(hass, HINTED) == ["Gate 7"]
        assert nameless_names_in(hass, [HINTED]) == ["guest mode"]

    assert read.count <= 10


async def test_the_hints_hear_a_new_name_at_once(hass: HomeAssistant, scene: Scene) -> None:
    """Guard: names read once are read again when one comes, goes or changes."""
    a_house_of(hass, 3)
    assert unexposed_names_in(hass, "unlock the shed") == []

    hass.states.async_set("lock.gate_1", "locked", {"friendly_name": "Shed"})
    assert unexposed_names_in(hass, "unlock the shed") == ["Shed"]
    hass.states.async_set("lock.barn", "locked", {"friendly_name": "Barn"})
    assert unexposed_names_in(hass, "unlock the barn") == ["Barn"]
    hass.states.async_remove("lock.barn")
    assert unexposed_names_in(hass, "unlock the barn") == []
    er.async_get(hass).async_update_entity("lock.back_door", aliases=["the cellar"])
    async_expose_entity(hass, "conversation", "lock.back_door", False)
    assert unexposed_names_in(hass, "unlock the cellar") == ["Back Door"]
