"""This session's sentences through a satellite (round 34).

A name holding a mark of our sentences ("Front Door: main", "Front Door?") is said with its
entity id, so a question never reads as another. Said through a satellite, two such locks heard
alike were told apart by nothing but their ids, read letter by letter ("lock dot front
underscore door underscore two"): the id-fallback bypassed round 33's naming by place. Such a
name keeps its id and is now followed by the first of its area, floor or device that no
look-alike shares ("Unlock Front Door: main (lock.front_door_hall) in the Hall?"); where
nothing spoken tells them apart, the id alone stays.

What a person says back is held to the question: "yes, the one in the hall" is no plain yes
and runs nothing (it is set aside, naming the door as the question did), a "yes" after an id
was spoken runs exactly that lock, and "fünfzig Prozent" / "cinquanta per cento" is said
back as the percentage the light was set to.
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.turn.spoken_text import said_aloud
from homeassistant.core import HomeAssistant
from testing.home_builder import async_expose_only

from .agents import state
from .conftest import Agent
from .conftest import Assist
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_voice_thirty_second import a_hall_satellite
from .test_voice_thirty_third import HALL_DOOR
from .test_voice_thirty_third import PORCH_DOOR
from .test_voice_thirty_third import front_doors
from .test_voice_thirty_third import hall_door_unlocked_by_yes
from .test_voice_thirty_third import set_up_locks
from .test_voice_thirty_third import set_up_look_alike_locks
from .test_voice_thirty_third import unlock

MARKED: Final = "Front Door: main"


async def set_up_marked_look_alikes(
    hass: HomeAssistant, hall: str | None = "Hall", porch: str | None = "Porch"
) -> None:
    """Two locks named "Front Door: main" (a colon of our sentences), by default apart."""
    await set_up_locks(hass, *front_doors(hall, porch, named=MARKED))


QUESTIONS: Final = [
    ("en", f"Unlock {MARKED} ({HALL_DOOR}) in the Hall? Say yes to confirm."),
    ("de", f"{MARKED} ({HALL_DOOR}) im Bereich Hall aufschließen? Sag „ja“ zum Bestätigen."),
    (
        "fr",
        f"Déverrouiller {MARKED} ({HALL_DOOR}) dans la pièce Hall\u00a0? "
        "Dites «\u00a0oui\u00a0» pour confirmer.",
    ),
    ("es", f"¿Desbloquear {MARKED} ({HALL_DOOR}) en el área Hall? Di «sí» para confirmar."),
]


@pytest.mark.parametrize(("language", "question"), QUESTIONS)
async def test_a_marked_look_alike_is_said_by_its_place_beside_its_id(
    hass: HomeAssistant,
    assist: Assist,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    language: str,
    question: str,
) -> None:
    """Before: "Unlock Front Door: main (lock.front_door_hall)?", the id the only difference
    a listener heard between the two doors."""
    await set_up_marked_look_alikes(hass)

    asked = await hall_door_unlocked_by_yes(hass, assist, scripted_agent, scripted_worker, language)

    assert asked == said_aloud(question, language)  # aloud: round 39


async def test_a_marked_name_beside_a_plain_look_alike_says_where_each_is(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """ "Front Door?" upstairs and "Front Door" in the Porch: both questions say the place,
    an area that names where a thing is follows the name alone."""
    await set_up_locks(
        hass,
        ("Front Door?", "front_door_hall", "turn_off", "Upstairs"),
        ("Front Door", "front_door_porch", "turn_off", "Porch"),
    )
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(unlock(HALL_DOOR), unlock(PORCH_DOOR))

    marked = await satellite.answer("unlock the front door")
    await satellite.answer("no")
    plain = await satellite.answer("unlock the front door")

    assert marked == f"Unlock Front Door? {HALL_DOOR}, upstairs? Say yes to confirm."
    assert plain == "Unlock Front Door in the Porch? Say yes to confirm."


async def test_marked_look_alikes_in_one_place_keep_the_id_and_a_yes_runs_that_one(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Guard: both in the Hall, on no device: nothing spoken tells them apart, the id stays
    alone, and a yes after it unlocks exactly the lock the id named."""
    await set_up_marked_look_alikes(hass, porch="Hall")
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(unlock(PORCH_DOOR))

    asked = await satellite.answer("unlock the front door")
    await satellite.answer("yes")

    assert asked == f"Unlock {MARKED}, {PORCH_DOOR}? Say yes to confirm."
    assert state(hass, PORCH_DOOR) == "unlocked"
    assert state(hass, HALL_DOOR) == "locked"


# A yes that also names a door: no plain yes, whichever door it names.
PLACED_YES: Final = [
    ("en", "yes, the one in the hall", "I did not unlock Front Door in the Hall"),
    ("en", "yes, the one in the porch", "I did not unlock Front Door in the Hall"),
    ("de", "ja, die im Flur", "Front Door im Bereich Hall aufschließen: nicht erledigt"),
]


@pytest.mark.parametrize(("language", "reply", "aside"), PLACED_YES)
async def test_a_yes_that_names_a_place_runs_nothing(
    hass: HomeAssistant,
    assist: Assist,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    language: str,
    reply: str,
    aside: str,
) -> None:
    """Guard: what the person hears ("I did not unlock …") is what happened: nothing."""
    await set_up_look_alike_locks(hass)
    satellite = await a_hall_satellite(hass, assist, scripted_agent, language)
    scripted_worker.will_write(unlock(HALL_DOOR), answer("OK."))

    await satellite.answer("unlock the front door")
    said = await satellite.answer(reply)

    assert said.startswith(aside)
    assert state(hass, HALL_DOOR) == "locked"
    assert state(hass, PORCH_DOOR) == "locked"


@pytest.mark.parametrize(
    ("language", "asked", "done"),
    [
        ("de", "Bettlicht auf fünfzig Prozent", "Erledigt: Bed Light auf 50 % einschalten."),
        ("it", "luce del letto al cinquanta per cento", "Fatto: accendere Bed Light al 50%."),
        ("nl", "bedlamp op vijftig procent", "Klaar: Bed Light op 50% inschakelen."),
    ],
)
async def test_a_percentage_said_in_words_is_said_back_as_set(
    hass: HomeAssistant,
    assist: Assist,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    language: str,
    asked: str,
    done: str,
) -> None:
    """Guard: the light is at half (128 of 255) and the satellite says 50, in the language's
    way of writing a percentage."""
    async_expose_only(hass, ["light.bed_light"])
    satellite = await a_hall_satellite(hass, assist, scripted_agent, language)
    scripted_worker.will_write(
        answer(call("light", action="turn_on", entity_id="light.bed_light", brightness_pct=50))
    )

    said = await satellite.answer(asked)

    light = hass.states.get("light.bed_light")
    assert light is not None
    assert light.attributes["brightness"] == 128
    assert said == said_aloud(done, language)  # aloud: round 39


async def test_both_marked_look_alikes_at_once_are_each_said_by_place(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """One call for both doors: the question and the done sentence name each by its place."""
    await set_up_marked_look_alikes(hass)
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(
        answer(call("lock", action="unlock", entity_id=[HALL_DOOR, PORCH_DOOR]))
    )

    asked = await satellite.answer("unlock both front doors")
    done = await satellite.answer("yes")

    both = f"{MARKED}, {HALL_DOOR}, in the Hall and {MARKED}, {PORCH_DOOR}, in the Porch"
    assert asked == f"Unlock {both}? Say yes to confirm."
    assert done == f"Done: unlock {both}."
    assert state(hass, HALL_DOOR) == state(hass, PORCH_DOOR) == "unlocked"
