"""A forty-eighth round of red-team probes: what session 64 merged, attacked from outside.

Hole. Two locks whose names a voice says the same, but that are written apart, were asked
about by their names alone: "Frontdoor", "Frönt Door" or "Front Door" with no gap, beside the
front door; "Door two", "Tür zwei" or "Door ٢" beside a lock named "Door 2"; "Gate twenty
one" beside "Gate 21". The question "Unlock Door two? Say yes to confirm." was heard as the
one about the other door, and the yes unlocked a door the person may not have meant. A name is
now compared as it is heard, whatever its case, accents, marks, gaps between words, and
whether its numbers are written in digits (of any script) or in words of our languages: such a
look-alike is said with its entity id (by its place, aloud), as one with the same letters was.

Hole. The same look-alike given *between* the question and the yes ("Unlock Front Door?",
then the back door renamed "Frontdoor") let the yes unlock the front door: the question it
answered no longer tells the two apart. It now runs nothing ("not the same any more"), as for
a name alike letter for letter ("Front-Door", a guard).

Hole. A number too long for any float, as a model repeating a digit writes it (400 ones), for
a brightness or a helper an automation follows to unlock the front door, failed the turn with
an OverflowError (the person heard an unexpected error). It is no number, refused like "1e400"
and "NaN", wherever a number is read: the tool call's value, the service's field, a step's end,
a question's unit or duration, a structured answer's field.

Guards (passed at once): a name with a full-width digit or a trailing full stop is said with
its id; "Door 3" beside "Door 2", and a name with a number word that is no number ("Elfenbein
Door"), are said by their names alone; "1e400" and "NaN" for a brightness, and 400 ones for
the garage door's position, are refused.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .conftest import state
from .houses import FRONT_DOOR
from .houses import act
from .houses import set_up
from .scene import Scene
from .scripted_model import ScriptedWorker
from .test_everyday_forty_sixth import BRIGHTNESS
from .test_everyday_forty_sixth import KITCHEN
from .test_everyday_forty_sixth import NOT_ON
from .test_everyday_forty_sixth import light
from .test_everyday_forty_sixth import read
from .test_redteam import set_up_automations
from .test_redteam_forty_fifth import ASKED_ABOUT_THE_STUCK_DOOR
from .test_redteam_forty_fifth import BACK_DOOR
from .test_redteam_forty_fifth import OUR_TOOLS
from .test_redteam_forty_fifth import STUCK_DOOR
from .test_redteam_forty_fifth import rename
from .test_redteam_forty_seventh import DELAY

# A trigger set up here outlives no test (conftest.py: automations_stop).
pytestmark = pytest.mark.usefixtures("automations_stop")

UNLOCK_STUCK_DOOR: Final = {"action": "unlock", "entity_id": STUCK_DOOR}

# The stuck door's name beside another lock's (the front or back door): each pair is heard alike.
HEARD_ALIKE: Final[dict[str, tuple[str, str]]] = {
    "no gap (before: by name)": ("Frontdoor", "Front Door"),
    "joined in the middle (before: by name)": ("FrontDoor", "Front Door"),
    "accents (before: by name)": ("Frönt Döor", "Front Door"),
    "alias without gap (before: by name)": ("Mainentrance", "Back Door"),
    "digit and word (before: by name)": ("Door two", "Door 2"),
    "digit and German word (before: by name)": ("Tür zwei", "Tür 2"),
    "digit and French word (before: by name)": ("Porte deux", "Porte 2"),
    "two words and digits (before: by name)": ("Gate twenty one", "Gate 21"),
    "one German word and digits (before: by name)": ("Tor einundzwanzig", "Tor 21"),
    "Arabic-Indic digit (before: by name)": ("Door \u0662", "Door 2"),
    # Round 50: a place heard as its number.
    "place in digits and words (before: by name)": ("1st Door", "First Door"),
    "Dutch place (before: by name)": ("2e Deur", "Tweede Deur"),
    "German place (before: by name)": ("2te Tür", "Zweite Tür"),
    # Guards.
    "full-width digit": ("Door \uff12", "Door 2"),
    "trailing full stop": ("Front Door.", "Front Door"),
    "Italian place with a degree sign": ("1° Piano", "Primo Piano"),
    "Spanish place with an ordinal mark": ("1º Piso", "Primer Piso"),
    "German eleven": ("Elf", "11"),
    "Dutch ten": ("Tien", "10"),
    "a minus": ("-3", "3"),
}

# Guards: names written apart and heard apart stay said by their names alone.
HEARD_APART: Final[dict[str, tuple[str, str]]] = {
    "another number": ("Door 3", "Door 2"),
    "another number in words": ("Door three", "Door 2"),
    "a number word in a word": ("Elfenbein Door", "Elf Door"),
    "a place beside a name": ("Second Door", "Front Door"),
    "Dutch back, not the eighth": ("Achter Deur", "8e Deur"),
}


async def named(hass: HomeAssistant, stuck_door: str, other: str) -> None:
    """Rename the stuck door (exposed), and the back door unless `other` is the home's own."""
    rename(hass, STUCK_DOOR, stuck_door)
    if other not in ("Front Door", "Back Door"):
        rename(hass, BACK_DOOR, other)
    async_expose_entity(hass, "conversation", STUCK_DOOR, True)
    await hass.async_block_till_done()


@pytest.mark.parametrize(("name", "other"), HEARD_ALIKE.values(), ids=HEARD_ALIKE)
async def test_a_name_heard_like_another_locks_is_said_with_its_id(
    hass: HomeAssistant, scene: Scene, name: str, other: str
) -> None:
    """Before: "Unlock Door two? Say yes to confirm." beside the lock named "Door 2"."""
    await named(hass, name, other)

    result = await scene.ask_to_call(await scene.agent_with(OUR_TOOLS), "lock", UNLOCK_STUCK_DOOR)

    assert speech(result) == ASKED_ABOUT_THE_STUCK_DOOR.format(name)


@pytest.mark.parametrize(("name", "other"), HEARD_APART.values(), ids=HEARD_APART)
async def test_a_name_heard_apart_is_said_alone(
    hass: HomeAssistant, scene: Scene, name: str, other: str
) -> None:
    """Guard: a lock only near another's name is not said with its id."""
    await named(hass, name, other)

    result = await scene.ask_to_call(await scene.agent_with(OUR_TOOLS), "lock", UNLOCK_STUCK_DOOR)

    assert speech(result) == f"Unlock {name}? Say yes to confirm."


# What the back door is renamed to while "Unlock Front Door?" waits, and the front door after yes.
RENAMED: Final[dict[str, tuple[str, str]]] = {
    "no gap (before: unlocked)": ("Frontdoor", "locked"),
    "accents (before: unlocked)": ("Frönt Door", "locked"),
    # Guards.
    "hyphen": ("Front-Door", "locked"),
    "heard apart": ("Back Porch", "unlocked"),
}


@pytest.mark.parametrize(("renamed", "after"), RENAMED.values(), ids=RENAMED)
async def test_a_look_alike_named_while_the_question_waits_runs_nothing(
    hass: HomeAssistant, scene: Scene, renamed: str, after: str
) -> None:
    """Before: "Unlock Front Door?" was asked, the back door was renamed "Frontdoor", and the
    yes unlocked the front door: the question no longer said which door it meant."""
    agent = await scene.agent_with(OUR_TOOLS)
    question = await scene.ask_to_call(agent, "lock", {"action": "unlock", "entity_id": FRONT_DOOR})
    assert speech(question) == "Unlock Front Door? Say yes to confirm."

    rename(hass, BACK_DOOR, renamed)
    await hass.async_block_till_done()
    yes = await scene.reply(agent, question, "yes")
    await hass.async_block_till_done()

    assert state(hass, FRONT_DOOR) == after, speech(yes)


# A number too long for any float, as a model repeating a digit writes it.
ENDLESS: Final = "1" * 400


@pytest.mark.parametrize(
    "written",
    [ENDLESS, f"-{ENDLESS}", "1e400", "NaN"],
    ids=["400 ones (before: failed)", "minus 400 ones (before: failed)", "1e400", "NaN"],
)
async def test_a_number_no_float_holds_is_refused_not_a_failed_turn(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    written: str,
) -> None:
    """Before: a brightness of 400 ones failed the turn with an OverflowError ("1e400" and
    "NaN", guards, were refused): now refused as any number out of range, the light left off."""
    await hass.services.async_call("light", "turn_off", {"entity_id": KITCHEN}, blocking=True)

    talk = Talk(scripted_agent, scripted_worker, person)
    result = await talk.say("…", "en", *light("en", NOT_ON, None, brightness_pct=written).writes)

    assert NOT_ON in speech(result)
    assert read(hass, KITCHEN, BRIGHTNESS) is None


@pytest.mark.parametrize(
    ("entity_id", "arguments"),
    [
        ("cover.garage_door", {"action": "set_cover_position", "position": ENDLESS}),
        ("input_number.delay", {"action": "set_value", "value": ENDLESS}),
    ],
    ids=["garage door (guard)", "helper followed to unlock (before: failed)"],
)
async def test_a_number_no_float_holds_for_a_sensitive_target_runs_nothing(
    hass: HomeAssistant, scene: Scene, entity_id: str, arguments: dict[str, Any]
) -> None:
    """Before: a helper an automation follows to unlock failed the turn with an OverflowError
    (the garage door's position, a guard, was refused); now the call is refused, nothing is
    asked and nothing runs (ask_to_call checks every sensitive entity is as it was)."""
    await set_up(hass, "input_number", DELAY)
    await set_up_automations(
        hass,
        {
            "id": "follows",
            "alias": "Follows",
            "triggers": [{"trigger": "state", "entity_id": "input_number.delay"}],
            "actions": [act("lock.unlock", FRONT_DOOR)],
        },
    )
    async_expose_entity(hass, "conversation", entity_id, True)

    result = await scene.ask_to_call(
        await scene.agent_with(OUR_TOOLS),
        entity_id.split(".", maxsplit=1)[0],
        {**arguments, "entity_id": entity_id},
    )

    assert "Say yes" not in speech(result)
    assert state(hass, "input_number.delay") == "0.0"
