"""A twenty-eighth round of red-team probes: the first round of session 59.

Hole. A done answer said once each name the calls of one round shared: two lamps both named
"Bed Light", one in the bedroom and one in the kitchen, turned on beside three other bedroom
lights were "Turned on 4 lights in area Bedroom", though five lights in two rooms were on.
Targets are now told apart by their entity, never by their name.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from testing.home_builder import async_area
from testing.home_builder import async_place_in_area

from .agents import Talk
from .agents import speech
from .agents import state
from .conftest import Agent
from .scripted_model import call
from .test_everyday_twenty_sixth import LIGHTS


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


BEDROOM_LIGHTS: Final = LIGHTS[:4]
KITCHEN_LAMP: Final = "light.office_rgbw_lights"


async def test_two_lamps_of_one_name_are_counted_as_two(hass: HomeAssistant, talk: Talk) -> None:
    """Four bedroom lights and a kitchen lamp named as one of them, in two calls: five lights,
    in no one area."""
    bedroom, kitchen = async_area(hass, "Bedroom"), async_area(hass, "Kitchen")
    for light in LIGHTS:
        async_expose_entity(hass, "conversation", light, True)
    for light in BEDROOM_LIGHTS:
        async_place_in_area(hass, light, bedroom)
    async_place_in_area(hass, KITCHEN_LAMP, kitchen)
    er.async_get(hass).async_update_entity(KITCHEN_LAMP, name="Bed Light")
    await hass.async_block_till_done()

    result = await talk.say(
        "turn on the bedroom lights and the kitchen lamp",
        "en",
        call("light", action="turn_on", entity_id=list(BEDROOM_LIGHTS))
        + call("light", action="turn_on", entity_id=KITCHEN_LAMP),
    )

    assert [state(hass, light) for light in (*BEDROOM_LIGHTS, KITCHEN_LAMP)] == ["on"] * 5
    assert speech(result) == "Turned on 5 lights."
