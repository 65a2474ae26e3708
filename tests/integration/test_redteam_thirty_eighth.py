"""A thirty-eighth round of red-team probes: spoken names that still sound alike.

Hole. A satellite names a look-alike lock by the first of its area, floor or device that no
look-alike shares (voice33), compared by words: areas "Hallway" and "Hall-way" (or "Hall" and
"way" on two lines) were two places, and the satellite asked "Unlock Front Door in the
Hallway?" of a lock whose twin it says "in the Hall-way"; two areas of 10,000 characters alike
up to the cut were said alike; a floor named like a look-alike's area ("on the Upstairs" and
"in the Upstairs") was said as if it told them apart; a look-alike's area "Hall" written with
a Cyrillic H and a let the other be said "in the Hall", which the app shows for both. Now a
place is compared as it is said (on one line, cut, the gaps between words unheard) with every
place of every look-alike, and a look-alike's place that shows other than it says leaves the
id; nothing left, the id stays.

Hole. A lock moved between the question and the yes: "Unlock Front Door in the Hall?" was
answered yes, and the door unlocked was the one now in the Porch while the other Front Door
had moved into the Hall. What a device said of the held targets' places is kept with the
question; when the registries now say it otherwise the yes is refused, and so is one whose
areas swapped names. Guard: a yes with the places unchanged unlocks.

Hole. A turn that outlived its agent: deleted while the model wrote (a new agent of the same
name taking its entity id), its entry reloaded, or its settings changed, the turn's question
was held after the agent had dropped its questions, and the agent in its place unlocked the
door on a plain yes. A gate that dropped its questions holds none: the turn says why.

Hole. Targets found already as asked were all named: "turn off everything upstairs" with every
light off read each light's name, 500 in a house of 500. They are said as done answers are
bounded: three names and "N more" (two or three keep their names: guard).

Guard. After a wrong PIN the right one beside other words ("thanks 4711", "ok, four seven one
one", "no 4711") runs nothing and never reaches the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from collections.abc import Callable
from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.engine.generation import GenerationOutput
from homeassistant.components.conversation import ConversationResult
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from testing.home_builder import async_area
from testing.home_builder import async_floor
from testing.home_builder import async_place_entity

from .agents import Talk
from .agents import speech
from .agents import state
from .conftest import Agent
from .conftest import Assist
from .scene import Scene
from .scene import unlock as unlock_front_door
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_thirty_eighth import WRONG_PIN_CLOSED
from .test_everyday_thirty_eighth import reply_after_a_wrong_pin
from .test_everyday_twenty_sixth import LIGHTS
from .test_everyday_twenty_sixth import upstairs_lights
from .test_redteam_thirty_sixth import agent_again
from .test_voice_thirty_third import HALL_DOOR
from .test_voice_thirty_third import PORCH_DOOR
from .test_voice_thirty_third import front_doors
from .test_voice_thirty_third import hall_door_asked

LONG: Final = "Room " * 2000

# Aloud: the id's brackets are a pause (round 39).
SAID_BY_ID: Final = f"Unlock Front Door, {HALL_DOOR}? Say yes to confirm."


@pytest.mark.parametrize(
    ("hall", "porch"),
    [
        ("Hallway", "Hall-way"),
        ("Hallway", "Hall\nway"),
        (f"{LONG}Hall", f"{LONG}Porch"),
        ("Hall", "\u041d\u0430ll"),
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
    asked = await front_doors_asked(hass, assist, scripted_agent, scripted_worker, hall, porch)

    assert asked == SAID_BY_ID


async def front_doors_asked(
    hass: HomeAssistant,
    assist: Assist,
    agent: Agent,
    worker: ScriptedWorker,
    hall: str,
    porch: str,
) -> str:
    """Two locks named "Front Door" in these areas: the question about the Hall's, aloud."""
    _satellite, asked = await hall_door_asked(
        hass, assist, agent, worker, *front_doors(hall, porch)
    )
    return asked


async def test_a_floor_named_like_a_look_alikes_area_tells_nothing_apart(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """This Front Door in the Hall on the floor Upstairs; one in the area Upstairs; one in
    the "Hall." on the Ground Floor: "on the Upstairs" is heard as "in the Upstairs"."""
    async_area(hass, "Hall", async_floor(hass, "Upstairs"))
    _satellite, asked = await hall_door_asked(
        hass,
        assist,
        scripted_agent,
        scripted_worker,
        *front_doors("Hall", "Upstairs"),
        ("Front Door", "front_door_ground", "turn_off", "Hall."),
    )

    assert asked == SAID_BY_ID


async def test_a_lock_moved_between_the_question_and_the_yes_is_not_unlocked(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Asked "in the Hall"; then the two Front Doors swap areas: a yes now means the other."""
    satellite, asked = await hall_door_asked(
        hass, assist, scripted_agent, scripted_worker, *front_doors()
    )
    async_place_entity(hass, HALL_DOOR, async_area(hass, "Porch"))
    async_place_entity(hass, PORCH_DOOR, async_area(hass, "Hall"))
    said = await satellite.answer("yes")

    assert asked == "Unlock Front Door in the Hall? Say yes to confirm."
    assert state(hass, HALL_DOOR) == "locked"
    assert state(hass, PORCH_DOOR) == "locked"
    assert "not the same any more" in said, said


async def test_an_area_renamed_between_the_question_and_the_yes_is_refused(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """The Hall is now the Porch and the Porch the Hall: the same swap, by names."""
    satellite, _asked = await hall_door_asked(
        hass, assist, scripted_agent, scripted_worker, *front_doors()
    )
    areas = ar.async_get(hass)
    areas.async_update(async_area(hass, "Hall"), name="Landing")
    areas.async_update(async_area(hass, "Porch"), name="Hall")
    await satellite.answer("yes")

    assert state(hass, HALL_DOOR) == "locked"


async def test_a_yes_with_the_places_unchanged_unlocks(
    hass: HomeAssistant, assist: Assist, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Guard: a third lock added elsewhere changes nothing said of this one."""
    garden_door = ("Back Door", "back_door", "turn_off", "Garden")
    satellite, _asked = await hall_door_asked(
        hass, assist, scripted_agent, scripted_worker, *front_doors(), garden_door
    )
    async_place_entity(hass, "lock.back_door", async_area(hass, "Porch"))
    await satellite.answer("yes")

    assert state(hass, HALL_DOOR) == "unlocked"


async def _asked_while(
    hass: HomeAssistant, scene: Scene, agent: Agent, meanwhile: Callable[[], Awaitable[Agent]]
) -> tuple[ConversationResult, Agent]:
    """Ask `agent` to unlock the front door; while the model writes, run `meanwhile`: what the
    turn answered, and the agent `meanwhile` left in its place."""
    release = asyncio.Event()
    writing = asyncio.Event()
    generate = scene.worker.generate

    async def paused(*args: Any, **kwargs: Any) -> GenerationOutput:
        writing.set()
        await release.wait()
        return await generate(*args, **kwargs)

    scene.worker.generate = paused  # type: ignore[method-assign]
    scene.worker.will_write(unlock_front_door())
    # Not a task of Home Assistant's: removing the agent waits for those to end.
    turn = asyncio.get_running_loop().create_task(
        agent.ask("unlock the front door", context=scene.person)
    )
    await writing.wait()
    now = await meanwhile()
    release.set()
    asked = await turn
    scene.worker.generate = generate  # type: ignore[method-assign]
    return asked, now


async def _deleted_and_added_again(hass: HomeAssistant, agent: Agent) -> Agent:
    return await agent_again(hass, agent)


async def _settings_changed(hass: HomeAssistant, agent: Agent) -> Agent:
    subentry = next(iter(agent.entry.subentries.values()))
    hass.config_entries.async_update_subentry(
        agent.entry, subentry, data={**subentry.data, CONF_TEMPERATURE: 0.5}
    )
    await hass.async_block_till_done()
    return agent


async def _reloaded(hass: HomeAssistant, agent: Agent) -> Agent:
    assert await hass.config_entries.async_reload(agent.entry.entry_id)
    await hass.async_block_till_done()
    return agent


@pytest.mark.parametrize(
    ("meanwhile", "why"),
    [
        (_deleted_and_added_again, "I restarted"),
        (_reloaded, "I restarted"),
        (_settings_changed, "My settings changed"),
    ],
    ids=["deleted-and-added-again", "reloaded", "settings-changed"],
)
async def test_a_turn_that_outlived_its_agent_holds_no_question(
    hass: HomeAssistant,
    scene: Scene,
    meanwhile: Callable[[HomeAssistant, Agent], Awaitable[Agent]],
    why: str,
) -> None:
    """While the model writes, the agent is deleted (one of the same name takes its entity
    id), its entry reloaded, or its settings changed: the turn's question was held after the
    agent dropped its questions, and the agent in its place unlocked the door on a yes."""
    agent = await scene.our_agent()

    asked, now = await _asked_while(hass, scene, agent, lambda: meanwhile(hass, agent))
    assert now.entity_id == agent.entity_id
    said = await now.ask("yes", conversation_id=asked.conversation_id, context=scene.person)

    assert state(hass, "lock.front_door") == "locked", speech(said)
    assert speech(asked) == (
        f"{why} before your answer came, so I did not unlock Front Door. "
        "Ask again if you still want it."
    )
    assert scene.outcomes() == ["cancelled"]


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


@pytest.mark.parametrize(
    ("lights", "said"),
    [
        (
            LIGHTS,
            "Bed Light, Ceiling Lights, Entrance Color + White Lights and 3 more: already off.",
        ),
        (LIGHTS[:2], "Bed Light and Ceiling Lights: already off."),
    ],
    ids=["six-counted", "two-named"],
)
async def test_already_off_names_a_few_and_counts_the_rest(
    hass: HomeAssistant, talk: Talk, lights: tuple[str, ...], said: str
) -> None:
    """ "Turn off everything upstairs" with every light already off named each of them: in a
    house of 500 lights, 500 names read aloud. The second case is a guard."""
    upstairs_lights(hass)
    await hass.services.async_call("light", "turn_off", {"entity_id": list(LIGHTS)}, blocking=True)

    result = await talk.say(
        "turn off everything upstairs",
        "en",
        call("light", action="turn_off", entity_id=list(lights)),
    )

    assert speech(result) == said


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ("thanks 4711", WRONG_PIN_CLOSED),
        ("ok, four seven one one", WRONG_PIN_CLOSED),
        ("no 4711", "Okay."),
    ],
)
async def test_the_right_pin_beside_other_words_after_a_wrong_one_is_never_tried(
    hass: HomeAssistant, scene: Scene, reply: str, said: str
) -> None:
    """Guard: the configured PIN after "That PIN is not right", with courtesy, assent or a no
    around it, runs nothing and never reaches the model."""
    later = await reply_after_a_wrong_pin(scene, reply, answer("Okay."))

    assert speech(later) == said
    assert state(hass, "lock.front_door") == "locked"
    assert "4711" not in scene.model_saw()
    assert "four seven" not in scene.model_saw()
