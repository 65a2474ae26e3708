"""Session 63's sentences through a satellite (round 36).

A name a contraction joined to the word before it ("régler la position de Le Garage (cover.…)"
written "du Garage (cover.…)") was no longer the written name the satellite's text looks for,
so the id stayed and was read letter by letter; it is now said by its place, the contraction
kept: "régler la position du Garage dans la pièce Hall". A look-alike lock disabled between the
question and a satellite's yes was refused as "Front Door (lock.front_door_hall) - the devices
it would change are not the same any more": the id read aloud, and a swap told where the door
was only gone.
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.turn.spoken_text import said_aloud
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from testing.home_builder import async_area
from testing.home_builder import async_expose_only
from testing.home_builder import async_floor
from testing.home_builder import async_place_entity

from .agents import state
from .conftest import Agent
from .conftest import Assist
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_voice_thirty_second import a_hall_satellite
from .test_voice_thirty_third import HALL_DOOR
from .test_voice_thirty_third import PORCH_DOOR
from .test_voice_thirty_third import YES
from .test_voice_thirty_third import front_doors
from .test_voice_thirty_third import hall_door_asked
from .test_voice_thirty_third import set_up_look_alike_locks
from .test_voice_thirty_third import unlock

UNLOCK_BACK: Final = "unlock the back door"


async def test_a_look_alike_a_lock_was_renamed_to_is_said_by_its_place(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Guard: "now called Front Door (lock.front_door_hall)" is said by the door's place."""
    _front_door, porch_door = front_doors()
    hall_door = ("Back Door", "front_door_hall", "turn_off", "Hall")
    satellite, _asked = await hall_door_asked(
        hass, assist, scripted_agent, scripted_worker, hall_door, porch_door, words=UNLOCK_BACK
    )
    er.async_get(hass).async_update_entity(HALL_DOOR, name="Front Door")
    await hass.async_block_till_done()

    said = await satellite.answer("yes")

    assert said == "I could not finish: unlock Back Door \u2013 now called Front Door in the Hall."
    assert state(hass, HALL_DOOR) == state(hass, PORCH_DOOR) == "locked"


HALL_GARAGE: Final = "cover.garage_a"
GARAGES: Final = {"fr": "Le Garage", "it": "Il Garage", "es": "El Garaje", "pt": "O Portão"}


async def set_up_garages(hass: HomeAssistant, name: str) -> None:
    assert await async_setup_component(
        hass,
        "input_number",
        {"input_number": {f"pos_{k}": {"min": 0, "max": 100, "initial": 0} for k in ("a", "b")}},
    )
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "cover": [
                        {
                            "name": name,
                            "unique_id": f"garage_{k}",
                            "default_entity_id": f"cover.garage_{k}",
                            "device_class": "garage",
                            "position": f"{{{{ states('input_number.pos_{k}') | int }}}}",
                            "open_cover": {
                                "action": "input_number.set_value",
                                "target": {"entity_id": f"input_number.pos_{k}"},
                                "data": {"value": 100},
                            },
                            "close_cover": {
                                "action": "input_number.set_value",
                                "target": {"entity_id": f"input_number.pos_{k}"},
                                "data": {"value": 0},
                            },
                            "set_cover_position": {
                                "action": "input_number.set_value",
                                "target": {"entity_id": f"input_number.pos_{k}"},
                                "data": {"value": "{{ position }}"},
                            },
                        }
                        for k in ("a", "b")
                    ]
                }
            ]
        },
    )
    await hass.async_block_till_done()
    ground = async_floor(hass, "Ground Floor")
    async_place_entity(hass, "cover.garage_a", async_area(hass, "Hall", ground))
    async_place_entity(hass, "cover.garage_b", async_area(hass, "Porch", ground))
    await hass.async_block_till_done()
    async_expose_only(hass, ["cover.garage_a", "cover.garage_b"])


CONTRACTED: Final = [
    ("fr", "Régler la position du Garage dans la pièce Hall à 50\u00a0%\u00a0? "),
    ("it", "Impostare la posizione del Garage nell'area Hall al 50%? "),
    ("es", "¿Ajustar la posición del Garaje en el área Hall al 50%? "),
    ("pt", "Definir a posição do Portão na área Hall para 50%? "),
]


@pytest.mark.parametrize(("language", "question"), CONTRACTED)
async def test_a_contracted_look_alike_is_said_by_its_place(
    hass: HomeAssistant,
    assist: Assist,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    language: str,
    question: str,
) -> None:
    """Before: "Régler la position du Garage (cover.garage_a) à 50 % ?", the id read aloud."""
    await set_up_garages(hass, GARAGES[language])
    satellite = await a_hall_satellite(hass, assist, scripted_agent, language)
    scripted_worker.will_write(
        answer(call("cover", action="set_cover_position", entity_id=HALL_GARAGE, position=50))
    )

    asked = await satellite.answer("garage half open")
    done = await satellite.answer(YES[language])

    assert asked.startswith(said_aloud(question, language))  # aloud: round 39
    assert "cover." not in asked + done
    positions = [hass.states.get(g) for g in (HALL_GARAGE, "cover.garage_b")]
    assert [p.attributes["current_position"] for p in positions if p] == [50, 0]


async def test_a_look_alike_disabled_before_the_yes_is_said_gone_by_its_place(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Before: "unlock Front Door (lock.front_door_hall) - the devices it would change are not
    the same any more.", the id read aloud and a swap told."""
    await set_up_look_alike_locks(hass)
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(unlock(HALL_DOOR))
    await satellite.answer("unlock the front door")
    er.async_get(hass).async_update_entity(HALL_DOOR, disabled_by=er.RegistryEntryDisabler.USER)
    await hass.async_block_till_done()

    said = await satellite.answer("yes")

    assert said == (
        "I could not finish: unlock Front Door in the Hall \u2013 Front Door in the Hall: gone."
    )
    assert state(hass, PORCH_DOOR) == "locked"
