"""A question a satellite can say (round 33).

Two locks heard by the same name are told apart in our texts by their entity ids ("Unlock Front
Door (lock.front_door)? Say yes to confirm."), which a satellite's text-to-speech reads as "lock
dot front underscore door". Said through a satellite, a look-alike is named by the first of its
area, floor or device that no look-alike shares, read from the registries (home/spoken_names):
"Unlock Front Door in the Hall?", in each language the agent speaks; the typed chat keeps the id.
A lock named "Front Door in the Hall" by someone else does not make two locks sound alike: that
spoken form is not used. What a satellite says after a failed yes names the lock the same way.
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.const import ASSISTANT
from custom_components.local_agent.turn.spoken_text import said_aloud
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
from testing.home_builder import async_add_script
from testing.home_builder import async_area
from testing.home_builder import async_expose_only
from testing.home_builder import async_floor
from testing.home_builder import async_place_entity

from .agents import speech
from .agents import state
from .conftest import Agent
from .conftest import Assist
from .scene import template_lock
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_voice_thirty_second import Satellite
from .test_voice_thirty_second import a_hall_satellite

HALL_DOOR: Final = "lock.front_door_hall"
PORCH_DOOR: Final = "lock.front_door_porch"
NAMED_LIKE_A_PLACE: Final = "lock.front_door_in_the_hall"


# A template lock for set_up_locks: name, unique id, how unlocking works, area (or None).
LockSpec = tuple[str, str, str, str | None]


def front_doors(
    hall: str | None = "Hall",
    porch: str | None = "Porch",
    *,
    named: str = "Front Door",
    hall_unlocks: str = "turn_off",
) -> tuple[LockSpec, LockSpec]:
    """Two locks of the same name: the Hall's door (HALL_DOOR) and the Porch's (PORCH_DOOR), in
    these areas ("turn_on" in hall_unlocks: the Hall's door is stuck)."""
    hall_door = (named, "front_door_hall", hall_unlocks, hall)
    return hall_door, (named, "front_door_porch", "turn_off", porch)


async def set_up_locks(hass: HomeAssistant, *locks: LockSpec) -> None:
    """Template locks (name, unique id, how unlocking works, area on the Ground Floor)."""
    booleans = {unique_id: f"{unique_id}_locked" for _, unique_id, _, _ in locks}
    assert await async_setup_component(
        hass,
        "input_boolean",
        {"input_boolean": {name: {"initial": True} for name in booleans.values()}},
    )
    assert await async_setup_component(
        hass,
        "template",
        {
            "template": [
                {
                    "lock": [
                        # Named by their unique ids: "Front Door" twice is not front_door_2.
                        template_lock(name, unique_id, unlock=unlock)
                        | {"default_entity_id": f"lock.{unique_id}"}
                        for name, unique_id, unlock, _ in locks
                    ]
                }
            ]
        },
    )
    await hass.async_block_till_done()
    ground = async_floor(hass, "Ground Floor")
    for _, unique_id, _, area in locks:
        async_place_entity(
            hass, f"lock.{unique_id}", async_area(hass, area, ground) if area else None
        )
    await hass.async_block_till_done()
    async_expose_only(hass, [f"lock.{unique_id}" for _, unique_id, _, _ in locks])


async def set_up_look_alike_locks(hass: HomeAssistant) -> None:
    """Two locks named "Front Door": one in the Hall, one in the Porch."""
    await set_up_locks(hass, *front_doors())


def unlock(entity_id: str) -> str:
    return answer(call("lock", action="unlock", entity_id=entity_id))


async def hall_door_asked(
    hass: HomeAssistant,
    assist: Assist,
    agent: Agent,
    worker: ScriptedWorker,
    *locks: LockSpec,
    words: str = "unlock the front door",
) -> tuple[Satellite, str]:
    """Set up the locks; a Hall satellite is told `words`, the model unlocks the Hall's door:
    the satellite and the question it said."""
    await set_up_locks(hass, *locks)
    satellite = await a_hall_satellite(hass, assist, agent)
    worker.will_write(unlock(HALL_DOOR))
    return satellite, await satellite.answer(words)


# The question a satellite says for the Hall's front door, by pipeline language.
QUESTIONS: Final = [
    ("en", "Unlock Front Door in the Hall? Say yes to confirm."),
    ("de", "Front Door im Bereich Hall aufschließen? Sag „ja“ zum Bestätigen."),
    (
        "fr",
        "Déverrouiller Front Door dans la pièce Hall\u00a0? "
        "Dites «\u00a0oui\u00a0» pour confirmer.",
    ),
    ("es", "¿Desbloquear Front Door en el área Hall? Di «sí» para confirmar."),
    ("it", "Sbloccare Front Door nell'area Hall? Di' \"sì\" per confermare."),
    ("nl", "Front Door in de ruimte Hall ontgrendelen? Zeg „ja” om te bevestigen."),
    ("pt", "Destrancar Front Door na área Hall? Diga «sim» para confirmar."),
]


YES: Final = {"en": "yes", "de": "ja", "fr": "oui", "es": "sí", "it": "sì", "nl": "ja", "pt": "sim"}


@pytest.mark.parametrize(("language", "question"), QUESTIONS)
async def test_a_satellite_names_a_look_alike_by_its_area(
    hass: HomeAssistant,
    assist: Assist,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    language: str,
    question: str,
) -> None:
    await set_up_look_alike_locks(hass)

    asked = await hall_door_unlocked_by_yes(hass, assist, scripted_agent, scripted_worker, language)

    assert asked == said_aloud(question, language)  # aloud: round 39


async def hall_door_unlocked_by_yes(
    hass: HomeAssistant, assist: Assist, agent: Agent, worker: ScriptedWorker, language: str
) -> str:
    """Ask a satellite to unlock the front door, say yes; the question it asked. The yes
    unlocked the Hall's door and left the Porch's locked."""
    satellite = await a_hall_satellite(hass, assist, agent, language)
    worker.will_write(unlock(HALL_DOOR))
    asked = await satellite.answer("unlock the front door")
    await satellite.answer(YES[language])
    assert state(hass, HALL_DOOR) == "unlocked"
    assert state(hass, PORCH_DOOR) == "locked"
    return asked


async def test_the_typed_chat_keeps_the_entity_id(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Guard: on a screen the id is exact, and it is what the app shows."""
    await set_up_look_alike_locks(hass)
    scripted_worker.will_write(unlock(HALL_DOOR))

    asked = await scripted_agent.ask("unlock the front door", context=person)

    assert speech(asked) == f"Unlock Front Door ({HALL_DOOR})? Say yes to confirm."


async def test_a_name_that_holds_a_place_does_not_pass_as_told_apart(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """A lock named "Front Door in the Hall" (in no area): the Hall's front door is named
    by another place, so the two questions never sound alike."""
    await set_up_locks(
        hass,
        ("Front Door", "front_door_hall", "turn_off", "Hall"),
        ("Front Door", "front_door_porch", "turn_off", None),
        ("Front Door in the Hall", "front_door_in_the_hall", "turn_off", None),
    )
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(unlock(HALL_DOOR), unlock(NAMED_LIKE_A_PLACE))

    hall = await satellite.answer("unlock the front door")
    await satellite.answer("no")
    named = await satellite.answer("unlock the front door in the hall")

    assert hall == "Unlock Front Door on the Ground Floor? Say yes to confirm."
    assert named == "Unlock Front Door in the Hall? Say yes to confirm."


async def test_nothing_spoken_tells_them_apart_the_id_stays(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Guard: two look-alikes in no area and on no device: fail closed, the id is said."""
    _satellite, asked = await hall_door_asked(
        hass, assist, scripted_agent, scripted_worker, *front_doors(None, None)
    )

    assert asked == f"Unlock Front Door, {HALL_DOOR}? Say yes to confirm."


async def test_a_failed_yes_names_the_lock_as_the_question_did(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """The Hall's lock is stuck: unlocking changes nothing, and the satellite says so."""
    satellite, _asked = await hall_door_asked(
        hass, assist, scripted_agent, scripted_worker, *front_doors(hall_unlocks="turn_on")
    )
    failed = await satellite.answer("yes")

    assert state(hass, HALL_DOOR) == "locked"
    assert "Front Door in the Hall" in failed
    assert "lock." not in failed


async def test_what_a_script_would_unlock_and_a_set_aside_name_the_lock_aloud(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """A script that unlocks the Hall's front door is asked about by what it unlocks; an
    answer that is no plain yes sets the question aside, naming the door the same way."""
    await set_up_look_alike_locks(hass)
    await async_add_script(hass, "let_in", "Let in", "lock.unlock", HALL_DOOR)
    async_expose_entity(hass, ASSISTANT, "script.let_in", True)
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(
        answer(call("script", action="turn_on", entity_id="script.let_in")), answer("On.")
    )

    asked = await satellite.answer("let me in")
    aside = await satellite.answer("yes and turn on the hall light")

    assert asked == "Run Let in, this will unlock Front Door in the Hall? Say yes to confirm."
    assert aside.startswith("I did not run Let in, this will unlock Front Door in the Hall")
    assert "lock." not in aside
    assert state(hass, HALL_DOOR) == "locked"


LONG: Final = "Smart lock of the house " * 5


async def test_names_alike_up_to_the_cut_keep_their_ids(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Guard: two locks in the Hall whose names differ only after the cut."""
    _satellite, asked = await hall_door_asked(
        hass,
        assist,
        scripted_agent,
        scripted_worker,
        (f"{LONG}back", "front_door_hall", "turn_off", "Hall"),
        (f"{LONG}front", "front_door_porch", "turn_off", "Hall"),
        words="unlock the smart lock",
    )

    assert asked.endswith(f"… {HALL_DOOR}? Say yes to confirm.")
