"""A question a satellite can say, however many targets it names (round 35).

A name that holds an entity id ("Garage (lock.front_door_porch)", perhaps another's) is said as
its own id alone, so the name cannot pass for another; through a satellite that id was read
letter by letter with nothing to tell where the door is ("Unlock lock.front_door_hall?"). The
id is now followed by its place, as round 34 does for a name holding marks of ours.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .agents import speech
from .agents import state
from .conftest import Agent
from .conftest import Assist
from .scripted_model import ScriptedWorker
from .test_voice_thirty_second import a_hall_satellite
from .test_voice_thirty_third import HALL_DOOR
from .test_voice_thirty_third import PORCH_DOOR
from .test_voice_thirty_third import YES
from .test_voice_thirty_third import set_up_locks
from .test_voice_thirty_third import unlock

# A name that writes the other door's id: said as its own id, never as its name.
POSING: Final = f"Garage ({PORCH_DOOR})"

ID_QUESTIONS: Final = [
    ("en", f"Unlock {HALL_DOOR} in the Hall? Say yes to confirm."),
    # A question begins with a capital, an id there too.
    ("de", f"L{HALL_DOOR[1:]} im Bereich Hall aufschließen? Sag „ja“ zum Bestätigen."),
    ("it", f"Sbloccare {HALL_DOOR} nell'area Hall? Di' \"sì\" per confermare."),
]


@pytest.mark.parametrize(("language", "question"), ID_QUESTIONS)
async def test_a_name_holding_an_id_is_said_by_its_place_beside_its_id(
    hass: HomeAssistant,
    assist: Assist,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    language: str,
    question: str,
) -> None:
    """Before: "Unlock lock.front_door_hall?", an id read letter by letter and no place."""
    await set_up_locks(
        hass,
        (POSING, "front_door_hall", "turn_off", "Hall"),
        ("Front Door", "front_door_porch", "turn_off", "Porch"),
    )
    satellite = await a_hall_satellite(hass, assist, scripted_agent, language)
    scripted_worker.will_write(unlock(HALL_DOOR))

    asked = await satellite.answer("unlock the garage")
    await satellite.answer(YES[language])

    assert asked == question
    assert state(hass, HALL_DOOR) == "unlocked"
    assert state(hass, PORCH_DOOR) == "locked"


async def test_the_typed_chat_says_a_name_holding_an_id_as_the_id(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Guard: on a screen the id alone stays, exact and what the app shows."""
    await set_up_locks(hass, (POSING, "front_door_hall", "turn_off", "Hall"))
    scripted_worker.will_write(unlock(HALL_DOOR))

    asked = await scripted_agent.ask("unlock the garage", context=person)

    assert speech(asked) == f"Unlock {HALL_DOOR}? Say yes to confirm."
