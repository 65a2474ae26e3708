"""A thirty-eighth round of red-team probes: spoken names that still sound alike.

Hole. A satellite names a look-alike lock by the first of its area, floor or device that no
look-alike shares (voice33), compared by words: areas "Hallway" and "Hall-way" (or "Hall" and
"way" on two lines) were two places, and the satellite asked "Unlock Front Door in the
Hallway?" of a lock whose twin it says "in the Hall-way"; two areas of 10,000 characters alike
up to the cut were said alike; a floor named like a look-alike's area ("on the Upstairs" and
"in the Upstairs") was said as if it told them apart; a look-alike's area "Наll" (Cyrillic and
Latin) let the other be said "in the Hall", which the app shows for both. Now a place is compared as it is said (on
one line, cut, the gaps between words unheard) with every place of every look-alike, and a
look-alike's place that shows other than it says leaves the id; nothing left, the id stays.

Hole. A lock moved between the question and the yes: "Unlock Front Door in the Hall?" was
answered yes, and the door unlocked was the one now in the Porch while the other Front Door
had moved into the Hall. What a device said of the held targets' places is kept with the
question; when the registries now say it otherwise the yes is refused, and so is one whose
areas swapped names. Guard: a yes with the places unchanged unlocks.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from testing.home_builder import async_area
from testing.home_builder import async_floor
from testing.home_builder import async_place_entity

from .agents import state
from .conftest import Agent
from .conftest import Assist
from .scripted_model import ScriptedWorker
from .test_voice_thirty_second import a_hall_satellite
from .test_voice_thirty_third import HALL_DOOR
from .test_voice_thirty_third import PORCH_DOOR
from .test_voice_thirty_third import set_up_locks
from .test_voice_thirty_third import unlock

LONG: Final = "Room " * 2000

SAID_BY_ID: Final = f"Unlock Front Door ({HALL_DOOR})? Say yes to confirm."


@pytest.mark.parametrize(
    ("hall", "porch"),
    [
        ("Hallway", "Hall-way"),
        ("Hallway", "Hall\nway"),
        (f"{LONG}Hall", f"{LONG}Porch"),
        ("Hall", "Наll"),
    ],
    ids=["hyphen", "line-break", "alike-up-to-the-cut", "another-script"],
)
async def test_areas_that_sound_alike_leave_the_id(
    hass: HomeAssistant,
    assist: Assist,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    hall: str,
    porch: str,
) -> None:
    """Both on the Ground Floor and on no device: no place said tells them apart."""
    await set_up_locks(
        hass,
        ("Front Door", "front_door_hall", "turn_off", hall),
        ("Front Door", "front_door_porch", "turn_off", porch),
    )
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(unlock(HALL_DOOR))

    asked = await satellite.answer("unlock the front door")

    assert asked == SAID_BY_ID


async def test_a_floor_named_like_a_look_alikes_area_tells_nothing_apart(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """This Front Door in the Hall on the floor Upstairs; one in the area Upstairs; one in
    the "Hall." on the Ground Floor: "on the Upstairs" is heard as "in the Upstairs"."""
    await set_up_locks(
        hass,
        ("Front Door", "front_door_hall", "turn_off", None),
        ("Front Door", "front_door_porch", "turn_off", "Upstairs"),
        ("Front Door", "front_door_ground", "turn_off", "Hall."),
    )
    async_place_entity(hass, HALL_DOOR, async_area(hass, "Hall", async_floor(hass, "Upstairs")))
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(unlock(HALL_DOOR))

    asked = await satellite.answer("unlock the front door")

    assert asked == SAID_BY_ID


async def test_a_lock_moved_between_the_question_and_the_yes_is_not_unlocked(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Asked "in the Hall"; then the two Front Doors swap areas: a yes now means the other."""
    await set_up_locks(
        hass,
        ("Front Door", "front_door_hall", "turn_off", "Hall"),
        ("Front Door", "front_door_porch", "turn_off", "Porch"),
    )
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(unlock(HALL_DOOR))

    asked = await satellite.answer("unlock the front door")
    async_place_entity(hass, HALL_DOOR, async_area(hass, "Porch"))
    async_place_entity(hass, PORCH_DOOR, async_area(hass, "Hall"))
    said = await satellite.answer("yes")

    assert asked == "Unlock Front Door in the Hall? Say yes to confirm."
    assert state(hass, HALL_DOOR) == "locked"
    assert state(hass, PORCH_DOOR) == "locked"
    assert "not the same" in said or "changed" in said, said


async def test_an_area_renamed_between_the_question_and_the_yes_is_refused(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """The Hall is now the Porch and the Porch the Hall: the same swap, by names."""
    await set_up_locks(
        hass,
        ("Front Door", "front_door_hall", "turn_off", "Hall"),
        ("Front Door", "front_door_porch", "turn_off", "Porch"),
    )
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(unlock(HALL_DOOR))
    areas = ar.async_get(hass)

    await satellite.answer("unlock the front door")
    areas.async_update(async_area(hass, "Hall"), name="Landing")
    areas.async_update(async_area(hass, "Porch"), name="Hall")
    await satellite.answer("yes")

    assert state(hass, HALL_DOOR) == "locked"


async def test_a_yes_with_the_places_unchanged_unlocks(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Guard: a third lock added elsewhere changes nothing said of this one."""
    await set_up_locks(
        hass,
        ("Front Door", "front_door_hall", "turn_off", "Hall"),
        ("Front Door", "front_door_porch", "turn_off", "Porch"),
        ("Back Door", "back_door", "turn_off", "Garden"),
    )
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(unlock(HALL_DOOR))

    await satellite.answer("unlock the front door")
    async_place_entity(hass, "lock.back_door", async_area(hass, "Porch"))
    await satellite.answer("yes")

    assert state(hass, HALL_DOOR) == "unlocked"
