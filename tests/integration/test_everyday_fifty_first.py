"""Everyday use, round 51: questions about the house, and answers a person trusts.

A household asks about its house more than it commands it. What the model reads to answer
(the home list, each message's changed states, get_state's result) must be true and whole.

- **Hole.** An area's aliases and its floor's were missing from the home list: "what is on in
  the lounge?" or "is anything on downstairs?" (the living room's alias, the ground floor's)
  gave the model no area of that name, while Home Assistant's own intents and its live
  context answer to them. **Found.** Each area's heading says its aliases and its floor's,
  once per area, in whatever language they are written ("Living Room (aliases: Stube)
  (floor: Ground Floor (aliases: Erdgeschoss)):"); an alias given later retakes the list, and
  a floor's change warms it in the background as an area's always did (before, only the
  next command saw it).
- **Hole.** A sensor that is unavailable or unknown was shown with its unit, "unavailable °C",
  in the home list, in a message's changed states and in get_state's result: it reads as a
  value the sensor gave. **Found.** It is shown as the bare state ("unavailable"), which the
  model has to say, not guess at.
- **Hole.** A to-do list of 35 items was read as its first 20, and a week of 40 calendar
  events as its first 30, with nothing saying more were left out: "what's on the shopping
  list?" was answered as if the 20 were all of it. **Found.** The cut list says how many it
  left out ("items_not_shown": 15), so the answer can say "and 15 more".

**Guards (passed at once).** A question and a command in one sentence ("is the kitchen light
on? if so turn it off"): the light is off after it, and the answer is ours, in the person's
language, never the model's claim. An area without aliases keeps its heading as before.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from typing import Final

import pytest

from homeassistant.components.calendar import CalendarEvent
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import floor_registry as fr
from homeassistant.util import dt as dt_util
from testing.home_builder import async_place_in_area

from .agents import Talk
from .agents import state
from .conftest import Agent
from .conftest import async_setup_agent
from .conftest import speech
from .scene import tool_results
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call
from .test_calendar_read import calendar_home
from .test_redteam_twenty_fourth import SHOPPING
from .test_redteam_twenty_fourth import a_shared_list_of
from .test_redteam_twenty_fourth import ask_calendar
from .test_redteam_twenty_fourth import calendar_serving
from .test_warm_up import _after_debounce

__all__ = ["calendar_home"]

LANGUAGES: Final = ("en", "de", "fr", "es", "it", "nl", "pt")
# What a person calls the living room and the ground floor, in each language.
AREA_ALIASES: Final = {
    "en": ("lounge", "downstairs"),
    "de": ("Stube", "Erdgeschoss"),
    "fr": ("séjour", "rez-de-chaussée"),
    "es": ("salón", "planta baja"),
    "it": ("soggiorno", "pianterreno"),
    "nl": ("woonkamer", "begane grond"),
    "pt": ("sala de estar", "rés-do-chão"),
}
SENSOR: Final = "sensor.outside_temperature"
CLAIM: Final = "I did it."


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


def seeing(seen: list[SeenRequest], writes: str) -> Any:
    """The model writes `writes`, keeping the request it answers."""

    def write(request: SeenRequest) -> str:
        seen.append(request)
        return writes

    return write


def living_room_on_the_ground_floor(
    hass: HomeAssistant, area_aliases: set[str], floor_aliases: set[str]
) -> None:
    """The bed light in the Living Room, on the Ground Floor, each with these aliases."""
    floor = fr.async_get(hass).async_create("Ground Floor", aliases=floor_aliases)
    area = ar.async_get(hass).async_create(
        "Living Room", aliases=area_aliases, floor_id=floor.floor_id
    )
    async_place_in_area(hass, "light.bed_light", area.id)


@pytest.mark.parametrize("language", LANGUAGES)
async def test_an_areas_and_its_floors_aliases_are_in_the_home_list(
    hass: HomeAssistant, talk: Talk, language: str
) -> None:
    """Before: "Living Room (floor: Ground Floor):", no word of the lounge or downstairs."""
    area_alias, floor_alias = AREA_ALIASES[language]
    living_room_on_the_ground_floor(hass, {area_alias}, {floor_alias})
    seen: list[SeenRequest] = []

    await talk.ask(language, seeing(seen, answer("The bed light is off.")))

    heading = f"Living Room (aliases: {area_alias}) (floor: Ground Floor (aliases: {floor_alias}))"
    assert f"\n{heading}:\nlight.bed_light: off\n" in seen[0].static_prompt


async def test_an_alias_given_later_retakes_the_list_and_none_keeps_the_heading(
    hass: HomeAssistant, talk: Talk
) -> None:
    """An area with no alias reads as it did; one added between two questions is seen."""
    living_room_on_the_ground_floor(hass, set(), set())
    seen: list[SeenRequest] = []
    await talk.ask("en", seeing(seen, answer("Off.")))
    assert "\nLiving Room (floor: Ground Floor):\nlight.bed_light: off\n" in seen[0].static_prompt

    areas = ar.async_get(hass)
    living_room = areas.async_get_area_by_name("Living Room")
    assert living_room is not None
    areas.async_update(living_room.id, aliases={"lounge", "Living Room", "front room"})
    await talk.ask("en", seeing(seen, answer("Off.")))

    # Its own name is no alias of it; the others are sorted (a set has no order).
    heading = "Living Room (aliases: front room, lounge) (floor: Ground Floor)"
    assert f"\n{heading}:\nlight.bed_light: " in seen[1].static_prompt


async def test_a_floors_alias_warms_the_home_list_again(
    hass: HomeAssistant, agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Before: a floor's change warmed nothing; the next command evaluated the list."""
    living_room_on_the_ground_floor(hass, set(), set())
    await _after_debounce(hass)
    warmed = len(scripted_worker.warmed)
    assert "(floor: Ground Floor):" in scripted_worker.warmed[-1][0]

    floors = fr.async_get(hass)
    ground = floors.async_get_floor_by_name("Ground Floor")
    assert ground is not None
    floors.async_update(ground.floor_id, aliases={"downstairs"})
    await _after_debounce(hass)

    assert len(scripted_worker.warmed) == warmed + 1
    assert "(floor: Ground Floor (aliases: downstairs)):" in scripted_worker.warmed[-1][0]


@pytest.mark.parametrize("unread", ["unavailable", "unknown"])
async def test_a_sensor_without_a_value_is_shown_without_a_unit(
    hass: HomeAssistant, talk: Talk, unread: str
) -> None:
    """Before: "unavailable °C" in the home list, in the changed states and in get_state."""
    temperature = {
        "friendly_name": "Outside Temperature",
        "unit_of_measurement": "°C",
        "device_class": "temperature",
    }
    hass.states.async_set(SENSOR, unread, temperature)
    seen: list[SeenRequest] = []
    read = call("get_state", entity_id=SENSOR)
    asked = await talk.ask("en", seeing(seen, read), seeing(seen, answer(f"It is {unread}.")))

    assert [entity["state"] for entity in tool_results(hass, asked)[0]["entities"]] == [unread]
    # Read with a value, then without one again: each time the prompt says the bare state.
    hass.states.async_set(SENSOR, "4.5", temperature)
    await talk.reply(asked, "and now?", "en", seeing(seen, answer("4.5 °C.")))
    hass.states.async_set(SENSOR, unread, temperature)
    await talk.reply(asked, "and now?", "en", seeing(seen, answer(f"It is {unread}.")))

    shown = [request.static_prompt + request.dynamic_prompt for request in seen]
    assert [prompt.count(f"{SENSOR}: {unread}\n") for prompt in (shown[0], shown[-1])] == [1, 2]
    assert f"{SENSOR}: 4.5 °C\n" in shown[-1]
    assert not [prompt for prompt in shown if f"{unread} °C" in prompt]


async def test_a_long_shopping_list_says_how_many_it_leaves_out(
    hass: HomeAssistant, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Before: its first twenty items, read as the whole list."""
    await a_shared_list_of(hass, [f"item {number}" for number in range(35)])
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    scripted_worker.will_write(answer(call("get_state", entity_id=SHOPPING)), "Read.")

    result = await agent.ask("what's on the shopping list?", context=person)

    [shopping] = tool_results(hass, result)[0]["entities"]
    assert shopping["items"] == [f"item {number}" for number in range(20)]
    assert shopping["items_not_shown"] == 15


async def test_a_short_list_says_nothing_is_left_out(
    hass: HomeAssistant, scripted_worker: ScriptedWorker, person: Context
) -> None:
    await a_shared_list_of(hass, ["milk", "eggs"])
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    scripted_worker.will_write(answer(call("get_state", entity_id=SHOPPING)), "Read.")

    result = await agent.ask("what's on the shopping list?", context=person)

    [shopping] = tool_results(hass, result)[0]["entities"]
    assert shopping["items"] == ["milk", "eggs"]
    assert "items_not_shown" not in shopping


async def test_a_full_week_of_events_says_how_many_it_leaves_out(
    hass: HomeAssistant, calendar_home: None, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Before: the week's first thirty events of forty, read as the whole week."""

    async def forty_events(*_args: Any) -> list[CalendarEvent]:
        now = dt_util.now()
        return [
            CalendarEvent(
                start=now + timedelta(hours=hour),
                end=now + timedelta(hours=hour, minutes=30),
                summary=f"Meeting {hour}",
            )
            for hour in range(40)
        ]

    calendar_serving(hass, forty_events)
    _said, read, _seen = await ask_calendar(hass, scripted_worker, person)

    assert read.count("'summary'") == 30
    assert "'events_not_shown': 10" in read


# A question and a command in one sentence: the model turns the light off; the answer is ours.
TURNED_OFF: Final = {
    "en": "Turned off Kitchen Lights.",
    "de": "Erledigt: Kitchen Lights ausschalten.",
    "fr": "C'est fait\u00a0: éteindre Kitchen Lights.",
    "es": "Hecho: apagar Kitchen Lights.",
    "it": "Fatto: spegnere Kitchen Lights.",
    "nl": "Klaar: Kitchen Lights uitschakelen.",
    "pt": "Feito: desligar Kitchen Lights.",
}


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_question_and_a_command_in_one_sentence(
    hass: HomeAssistant, talk: Talk, language: str
) -> None:
    assert state(hass, "light.kitchen_lights") == "on"
    off = call("light", action="turn_off", entity_id="light.kitchen_lights")

    result = await talk.ask(language, answer(off), answer(CLAIM))

    assert state(hass, "light.kitchen_lights") == "off"
    assert speech(result) == TURNED_OFF[language]
