"""A question a satellite can say, however many targets it names (round 35).

A name that holds an entity id ("Garage (lock.front_door_porch)", perhaps another's) is said as
its own id alone, so the name cannot pass for another; through a satellite that id was read
letter by letter with nothing to tell where the door is ("Unlock lock.front_door_hall?"). The
id is now followed by its place, as round 34 does for a name holding marks of ours.

A held action names every sensitive target, by design. "Unlock all doors" with eight locks of
long names made a satellite say a question of several hundred characters that nobody can follow
(and a satellite's text-to-speech may cut), and a yes then unlocked doors the person could not
have heard. A question a satellite would say with more than five names, or longer than a person
follows, is not held: nothing runs, the person hears how many it named and is asked to name
fewer, or to ask in the app, whose typed chat still shows the whole list.
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.turn.spoken_text import said_aloud
from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .agents import speech
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
from .test_voice_thirty_third import set_up_locks
from .test_voice_thirty_third import unlock

# A name that writes the other door's id: said as its own id, never as its name.
POSING: Final = f"Garage ({PORCH_DOOR})"

ID_QUESTIONS: Final = [
    ("en", f"Unlock {HALL_DOOR} in the Hall? Say yes to confirm."),
    # An id that begins a question is written as it is (no capital).
    ("de", f"{HALL_DOOR} im Bereich Hall aufschließen? Sag „ja“ zum Bestätigen."),
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

    assert asked == said_aloud(question, language)  # aloud: round 39
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


# Eight doors with names as long as people give them.
DOORS: Final = [
    (f"{where} door to the {to}", f"door_{index}", "turn_off", where)
    for index, (where, to) in enumerate(
        [
            ("Front", "garden path and the mailbox"),
            ("Back", "terrace behind the kitchen"),
            ("Side", "driveway beside the garage"),
            ("Cellar", "boiler room and the workshop"),
            ("Patio", "swimming pool and the sauna"),
            ("Garage", "utility room beside the laundry"),
            ("Attic", "roof terrace over the bedrooms"),
            ("Garden", "shed behind the greenhouse"),
        ]
    )
]


def unlock_all(count: int) -> str:
    return answer(call("lock", action="unlock", entity_id=[f"lock.door_{i}" for i in range(count)]))


TOO_MANY: Final = [
    ("en", "I did not do that: it names 8 things, too many to follow in one spoken question."),
    ("de", "Nicht ausgeführt: Das nennt 8 Dinge, zu viele für eine gesprochene Frage."),
    ("fr", "Je ne l\u2019ai pas fait\u00a0: cela nomme 8 éléments, trop pour une question parlée."),
]


@pytest.mark.parametrize(("language", "refused"), TOO_MANY)
async def test_a_satellite_does_not_hold_a_question_too_long_to_follow(
    hass: HomeAssistant,
    assist: Assist,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    language: str,
    refused: str,
) -> None:
    """Before: "Unlock Front door to the garden path …, Back door … and Garden door …? Say yes
    to confirm.", some 300 characters, and a yes unlocked all eight."""
    await set_up_locks(hass, *DOORS)
    satellite = await a_hall_satellite(hass, assist, scripted_agent, language)
    scripted_worker.will_write(unlock_all(8))

    said = await satellite.answer("unlock all doors")
    await satellite.answer(YES[language])

    assert said.startswith(refused)
    assert all(state(hass, f"lock.door_{i}") == "locked" for i in range(8))


async def test_five_names_are_still_asked_aloud(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Guard: five doors are a question a person follows; the yes unlocks exactly those."""
    await set_up_locks(hass, *DOORS)
    satellite = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(unlock_all(5))

    asked = await satellite.answer("unlock the doors")
    await satellite.answer("yes")

    assert asked.startswith("Unlock Front door to the garden path and the mailbox, ")
    assert asked.endswith("? Say yes to confirm.")
    assert [state(hass, f"lock.door_{i}") for i in range(8)] == ["unlocked"] * 5 + ["locked"] * 3


async def test_the_typed_chat_still_asks_with_the_whole_list(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Guard: on a screen the list can be read at leisure; the yes unlocks all eight."""
    await set_up_locks(hass, *DOORS)
    scripted_worker.will_write(unlock_all(8))

    question = await scripted_agent.ask("unlock all doors", context=person)
    await scripted_agent.ask("yes", conversation_id=question.conversation_id, context=person)

    assert all(name in speech(question) for name, _, _, _ in DOORS)
    assert [state(hass, f"lock.door_{i}") for i in range(8)] == ["unlocked"] * 8
