"""Everyday answers that read badly or untrue (the twenty-fifth round).

- "Set the holiday start to Christmas Eve": the answer said the ISO form in every language
  ("Holiday Start auf 2026-12-24 einstellen"), which a voice reads as numbers. A date is said
  as each language writes one in speech ("24. Dezember 2026", "December 24, 2026"), a date
  with its time with the language's "at" ("24 décembre 2026 à 07:15"); the cases are in
  test_phone_walk.py, beside the times said without zero seconds.
- "How windy is it?", "how warm is it inside?": a weather entity's temperature, wind speed
  and pressure reached the model as bare numbers (15: km/h or mph?), and nothing said the
  unit of a thermostat's temperatures (°F in a US home). A weather entity's values carry the
  entity's own units; the prompt says once the home's unit of the bare ones.
"""

from __future__ import annotations

from typing import Final

from custom_components.local_agent.home.entity_view import entity_line
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.util.unit_system import US_CUSTOMARY_SYSTEM

from .conftest import Agent
from .scene import Scene
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .test_everyday_twenty_fourth import read

OUTSIDE: Final = "weather.outside"


async def test_a_weather_entity_says_the_units_of_its_values(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Its own units, in the home list and in a read: 12 is mph here, not km/h."""
    hass.states.async_set(
        OUTSIDE,
        "sunny",
        {
            "friendly_name": "Outside",
            "temperature": 70,
            "temperature_unit": "°F",
            "humidity": 60,
            "wind_speed": 12.5,
            "wind_speed_unit": "mph",
            "pressure": 30.1,
            "pressure_unit": "inHg",
        },
    )
    async_expose_entity(hass, "conversation", OUTSIDE, True)
    said = "sunny; temperature=70 °F, humidity=60 %, wind_speed=12.5 mph, pressure=30.1 inHg"

    summary = await read(scene, OUTSIDE)

    state = hass.states.get(OUTSIDE)
    assert state is not None
    assert entity_line(hass, state).state == said
    assert {key: summary[key] for key in ("temperature", "wind_speed")} == {
        "temperature": "70 °F",
        "wind_speed": "12.5 mph",
    }


async def test_the_prompt_says_the_unit_of_a_thermostats_temperatures(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """A thermostat shows 70 in a US home: the prompt says once that bare ones are °F."""
    hass.config.units = US_CUSTOMARY_SYSTEM
    scripted_worker.will_write(answer("It is 70 °F."))

    await scripted_agent.ask("how warm is it?")

    [request] = scripted_worker.requests
    assert "Temperatures without a unit are in °F." in request.static_prompt
