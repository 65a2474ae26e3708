"""Our own refusals say why, counts that read naturally, a vacuum's rooms.

- "Set the heating to 40 degrees": our tools refused the call before Home Assistant ran it
  (the thermostat goes from 7 to 35 °C) and the person heard only "I could not set the
  temperature of Hvac." Every refusal of our own tools that the entity's attributes or
  features explain now says why, short and translated: a number out of its range, a mode the
  device does not list, a service or a colour it cannot do, a vacuum with no room mapped to
  the area asked. The model still reads the full message with the allowed values.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.home.call_texts import async_said
from custom_components.local_agent.home.tools import ToolFailure
from custom_components.local_agent.home.tools import async_build_home_tools
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from .agents import Talk
from .agents import speech
from .agents import state
from .conftest import Agent
from .scene import model_saw
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_twenty_third import BED_LIGHT
from .test_everyday_twenty_third import VACUUM
from .test_everyday_twenty_third import a_vacuum_that_cleans_two_rooms

HVAC: Final = "climate.hvac"
WHITE_BULB: Final = "light.hallway_bulb"


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


async def refused(talk: Talk, language: str, tool: str, **arguments: Any) -> str:
    """What the person hears when the model makes this one call and then writes nothing."""
    result = await talk.say("do it", language, call(tool, **arguments), answer(""))
    return speech(result)


TOO_HOT: Final = {
    "en": "I could not set the temperature of Hvac. The range is 7 to 35 °C, not 40 °C.",
    "de": "Das ging nicht: die Temperatur von Hvac einstellen. Der Bereich geht von 7 bis 35 °C, "
    "nicht 40 °C.",
}


@pytest.mark.parametrize(("language", "said"), TOO_HOT.items())
async def test_a_temperature_out_of_the_thermostats_range_says_its_range(
    hass: HomeAssistant, talk: Talk, language: str, said: str
) -> None:
    """40 °C on a thermostat that goes from 7 to 35 °C: the range, in the person's words."""
    async_expose_entity(hass, "conversation", HVAC, True)

    said_back = await refused(
        talk, language, "climate", action="set_temperature", entity_id=HVAC, temperature=40
    )

    assert "temperature 40 is out of range for Hvac: from 7 to 35." in model_saw(talk.worker)
    assert said_back == said


async def test_a_mode_the_thermostat_does_not_have_is_named(
    hass: HomeAssistant, talk: Talk
) -> None:
    """A sauna mode on a thermostat whose modes are others: it does not offer sauna."""
    async_expose_entity(hass, "conversation", HVAC, True)

    said = await refused(
        talk, "de", "climate", action="set_hvac_mode", entity_id=HVAC, hvac_mode="sauna"
    )

    assert "Hvac has no hvac_mode 'sauna'. Use one of: off, heat, cool" in model_saw(talk.worker)
    assert said == ("Das ging nicht: den Modus von Hvac einstellen. Hvac: sauna ist keine Option.")


async def test_a_brightness_of_150_percent_says_the_lights_range(
    hass: HomeAssistant, talk: Talk
) -> None:
    """150 % is no brightness: it goes from 0 to 100 %."""
    async_expose_entity(hass, "conversation", BED_LIGHT, True)

    said = await refused(
        talk, "fr", "light", action="turn_on", entity_id=BED_LIGHT, brightness_pct=150
    )

    assert state(hass, BED_LIGHT) == "off"
    assert said == (
        "Je n'ai pas pu allumer Bed Light. La plage va de 0 à 100\u00a0%, pas 150\u00a0%."
    )


async def test_a_colour_on_a_white_only_bulb_says_it_has_no_colour(
    hass: HomeAssistant, talk: Talk
) -> None:
    """A bulb that dims only, beside a colour light: "Hallway Bulb cannot change colour"."""
    async_expose_entity(hass, "conversation", BED_LIGHT, True)
    hass.states.async_set(
        WHITE_BULB,
        "on",
        {"friendly_name": "Hallway Bulb", "supported_color_modes": ["brightness"]},
    )
    async_expose_entity(hass, "conversation", WHITE_BULB, True)

    said = await refused(
        talk, "es", "light", action="turn_on", entity_id=WHITE_BULB, color_name="red"
    )

    assert said == ("No he podido encender Hallway Bulb. Hallway Bulb: color no modificable.")


async def test_an_area_the_vacuum_has_no_room_for_is_named(hass: HomeAssistant) -> None:
    """The Bedroom is no room of the vacuum (another vacuum's, in the tool's list of areas):
    "it has no room mapped to Bedroom", by the area's own name."""
    await a_vacuum_that_cleans_two_rooms(hass)
    tools = await async_build_home_tools(hass, assistant="conversation")

    planned = tools.plan(
        ToolCall(
            "vacuum",
            {"action": "clean_area", "entity_id": VACUUM, "cleaning_area_id": ["bedroom"]},
        )
    )

    assert isinstance(planned, ToolFailure)
    assert planned.message.startswith("Demo vacuum 0 ground floor cleans no area 'bedroom'.")
    assert await async_said(hass, "it", planned.reason) == (
        "Demo vacuum 0 ground floor: nessuna stanza associata all'area Bedroom"
    )
