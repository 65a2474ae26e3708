"""Session 64's sentences through a satellite (round 37).

A lock named like what another lock is called by an alias ("Main Entrance" beside the back
door the house calls "main entrance"), or like a cover or valve its verb shares ("Garage Door"
beside the garage door), is now written with its id (redteam45); said aloud, the id gave way
to the first place no look-alike of the lock's *own name* shared, so the alias holder and the
other kind were never compared: "Unlock Main Entrance in the Hall?" beside the back door in the
Hall, "Unlock Garage Door in the Garage?" beside the garage door in the Garage, one question
for two doors. Said aloud, the look-alikes are now the same ones the written question compares.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import entity_registry as er
from testing.home_builder import async_place_in_area

from .agents import state
from .conftest import Assist
from .scene import Scene
from .scene import tool_call
from .test_voice_thirty_second import a_hall_satellite
from .test_voice_thirty_third import YES

STUCK_DOOR: Final = "lock.stuck_door"
LANGUAGES: Final = ["en", "de", "fr", "es", "it", "nl", "pt"]


async def a_stuck_door_named(hass: HomeAssistant, name: str, area: str) -> None:
    """The safety home's stuck door, renamed, exposed and placed in the area."""
    er.async_get(hass).async_update_entity(STUCK_DOOR, name=name)
    async_expose_entity(hass, "conversation", STUCK_DOOR, True)
    place = ar.async_get(hass).async_get_area_by_name(area)
    assert place is not None
    async_place_in_area(hass, STUCK_DOOR, place.id)
    await hass.async_block_till_done()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    ("name", "area"),
    [("Main Entrance", "Hall"), ("Garage Door", "Garage")],
    ids=["alias", "another-kind"],
)
async def test_a_look_alike_by_alias_or_kind_is_not_said_by_the_place_they_share(
    hass: HomeAssistant, scene: Scene, assist: Assist, language: str, name: str, area: str
) -> None:
    """Before: "Unlock Main Entrance in the Hall?" beside the back door (called "main
    entrance", in the Hall), "Unlock Garage Door in the Garage?" beside the garage door."""
    await a_stuck_door_named(hass, name, area)
    satellite = await a_hall_satellite(hass, assist, await scene.agent_with("our tools"), language)
    scene.worker.will_write(tool_call("lock", action="unlock", entity_id=STUCK_DOOR))

    asked = await satellite.answer("unlock it")
    await satellite.answer(YES[language])

    assert f"{name}, {STUCK_DOOR}" in asked, asked
    assert asked.count(area) == name.count(area), asked  # the name's own, no place said
    assert "confirmed" in scene.outcomes(), scene.outcomes()
    assert state(hass, "lock.back_door") == "locked"
    assert state(hass, "cover.garage_door") == "closed"


async def test_a_lock_in_a_place_no_look_alike_shares_is_said_by_it(
    hass: HomeAssistant, scene: Scene, assist: Assist
) -> None:
    """Guard: the stuck door called "Main Entrance" in the Garage is told by the Garage."""
    await a_stuck_door_named(hass, "Main Entrance", "Garage")
    satellite = await a_hall_satellite(hass, assist, await scene.agent_with("our tools"))
    scene.worker.will_write(tool_call("lock", action="unlock", entity_id=STUCK_DOOR))

    asked = await satellite.answer("unlock the main entrance")

    assert asked == "Unlock Main Entrance in the Garage? Say yes to confirm."
