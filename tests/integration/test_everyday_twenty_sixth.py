"""Whole areas and floors with our own tools (the twenty-sixth round).

- "Turn off everything upstairs", "close all the blinds downstairs": the home list named each
  entity's area but no area's floor, so the model could not tell which areas are upstairs.
  Each area's heading says its floor, once per area ("Bedroom (floor: Upstairs):"), never per
  entity: the prompt's cost per entity stays what test_prompt_layout pins.
- A call on a whole floor's lights ran, and the answer read every name aloud ("Turned off Bed
  Light, Ceiling Lights, ... and Office RGBW Lights"). Since everyday27 it counts them by kind
  (test_everyday_twenty_seventh).
- "Add 5 minutes" to a ten-minute timer just started: Home Assistant refuses with an English
  message and no translation ("Not possible to change timer timer.pasta beyond duration"); the
  person heard only "I could not change Pasta." and whatever the model wrote. The reason is
  decided again from the timer's state and the change asked (never from the error's text) and
  said in the person's language after it ("Pasta kann nicht länger laufen, als eingestellt
  wurde."); a timer that is not running says so. The model still reads Home Assistant's error.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from testing.home_builder import async_area
from testing.home_builder import async_floor
from testing.home_builder import async_place_in_area

from .agents import Talk
from .agents import speech
from .agents import state
from .conftest import Agent
from .scene import model_saw
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_twenty_third import PASTA
from .test_everyday_twenty_third import a_pasta_timer
from .test_everyday_twenty_third import cancel_the_pasta_timer

# The demo's six lights (four more than the demo home exposes).
LIGHTS: Final = (
    "light.bed_light",
    "light.ceiling_lights",
    "light.entrance_color_white_lights",
    "light.kitchen_lights",
    "light.living_room_rgbww_lights",
    "light.office_rgbw_lights",
)


def upstairs_lights(hass: HomeAssistant) -> None:
    """Every demo light exposed, in the Bedroom and the Office, both upstairs."""
    upstairs = async_floor(hass, "Upstairs", 1)
    bedroom, office = async_area(hass, "Bedroom", upstairs), async_area(hass, "Office", upstairs)
    for index, light in enumerate(LIGHTS):
        async_expose_entity(hass, "conversation", light, True)
        async_place_in_area(hass, light, office if index % 2 else bedroom)


async def all_six_turned_off(hass: HomeAssistant, talk: Talk, said: str, language: str) -> str:
    """The person says `said`, the model turns every one of LIGHTS off: what the agent says."""
    result = await talk.say(
        said, language, call("light", action="turn_off", entity_id=list(LIGHTS))
    )

    assert [state(hass, light) for light in LIGHTS] == ["off"] * len(LIGHTS)
    return speech(result)


async def test_the_home_list_says_each_areas_floor_once(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Which areas are upstairs is in the prompt, said once per area, not per light."""
    upstairs_lights(hass)

    await scripted_agent.ask("turn off everything upstairs")

    prompt = scripted_worker.requests[0].static_prompt
    assert "\nBedroom (floor: Upstairs):\nlight.bed_light: " in prompt
    assert "\nOffice (floor: Upstairs):\nlight.ceiling_lights: " in prompt
    assert prompt.count("Upstairs") == 2


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk)."""
    return scripted_agent


BEYOND: Final = {
    "en": "I could not change Pasta. Pasta: a timer cannot run longer than it was set for.",
    "de": "Das ging nicht: Pasta ändern. Pasta: Ein Timer kann nicht länger laufen, als "
    "eingestellt wurde.",
    "fr": "Je n'ai pas pu modifier Pasta. "
    "Pasta\u00a0: un minuteur ne peut pas durer plus longtemps que prévu au départ.",
    "es": "No he podido cambiar Pasta. Pasta: un temporizador no puede durar más de lo que se "
    "programó.",
    "it": "Non è stato possibile modificare Pasta. Pasta: un timer non può durare più di quanto "
    "impostato.",
    "nl": "Dat lukte niet: Pasta wijzigen. Pasta: een timer kan niet langer lopen dan is "
    "ingesteld.",
    "pt": "Não consegui alterar Pasta. Pasta: um temporizador não pode durar mais do que foi "
    "programado.",
}


@pytest.mark.parametrize("language", list(BEYOND))
async def test_a_timer_given_more_time_than_it_was_set_for_says_why(
    hass: HomeAssistant, talk: Talk, language: str
) -> None:
    """Five more minutes on a ten-minute timer just started: refused, and the person hears why."""
    await a_pasta_timer(hass)

    result = await talk.say(
        "add 5 minutes to the pasta timer",
        language,
        call("timer", action="change", entity_id=PASTA, duration="00:05:00"),
        answer(""),
    )

    await cancel_the_pasta_timer(hass)
    assert "Not possible to change timer timer.pasta beyond duration" in model_saw(talk.worker)
    assert speech(result) == BEYOND[language]


async def test_a_timer_that_is_not_running_says_so_when_changed(
    hass: HomeAssistant, talk: Talk
) -> None:
    """A cancelled timer cannot be changed: "Pasta is not running"."""
    await a_pasta_timer(hass)
    await cancel_the_pasta_timer(hass)

    result = await talk.say(
        "add a minute to the pasta timer",
        "en",
        call("timer", action="change", entity_id=PASTA, duration="00:01:00"),
        answer(""),
    )

    assert speech(result) == (
        "I could not change Pasta. Pasta: not running; only a running timer can be changed."
    )
