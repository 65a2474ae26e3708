"""Everyday answers that read badly or untrue (the twenty-fifth round).

- "Set the holiday start to Christmas Eve": the answer said the ISO form in every language
  ("Holiday Start auf 2026-12-24 einstellen"), which a voice reads as numbers. A date is said
  as each language writes one in speech ("24. Dezember 2026", "December 24, 2026"), a date
  with its time with the language's "at" ("24 décembre 2026 à 07:15").
- "How windy is it?", "how warm is it inside?": a weather entity's temperature, wind speed
  and pressure reached the model as bare numbers (15: km/h or mph?), and nothing said the
  unit of a thermostat's temperatures (°F in a US home). A weather entity's values carry the
  entity's own units; the prompt says once the home's unit of the bare ones.
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.home.entity_view import entity_line
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.util.unit_system import US_CUSTOMARY_SYSTEM

from .conftest import Agent
from .conftest import speech
from .scene import Scene
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_twenty_fourth import read
from .test_everyday_twenty_second import WAKE_UP
from .test_everyday_twenty_second import a_wake_up_time

CHRISTMAS_EVE_AT_SEVEN: Final = {
    "en": "Set Wake up to December 24, 2026 at 07:15.",
    "de": "Erledigt: Wake up auf 24. Dezember 2026 um 07:15 einstellen.",
    "fr": "C'est fait\xa0: régler Wake up sur 24 décembre 2026 à 07:15.",
    "es": "Hecho: ajustar Wake up al 24 de diciembre de 2026 a las 07:15.",
    "it": "Fatto: impostare Wake up al 24 dicembre 2026 alle 07:15.",
    "nl": "Klaar: Wake up op 24 december 2026 om 07:15 instellen.",
    "pt": "Feito: definir Wake up para 24 de dezembro de 2026 às 07:15.",
}


CHRISTMAS_EVE: Final = {"date": "2026-12-24", "time": "07:15:00"}
MAY_DAY: Final = {"date": "2027-05-01"}


@pytest.mark.parametrize(
    ("fields", "language", "done"),
    [
        *((CHRISTMAS_EVE, language, done) for language, done in CHRISTMAS_EVE_AT_SEVEN.items()),
        # The first of a month as its language says it: "1er mai", "1º maggio".
        (MAY_DAY, "en", "Set Wake up to May 1, 2027."),
        (MAY_DAY, "fr", "C'est fait\xa0: régler Wake up sur 1er mai 2027."),
        (MAY_DAY, "it", "Fatto: impostare Wake up al 1º maggio 2027."),
    ],
)
async def test_a_date_set_is_said_as_people_say_it(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    fields: dict[str, str],
    language: str,
    done: str,
) -> None:
    """Not "2026-12-24 07:15": the month by its name, in the language's order."""
    await a_wake_up_time(hass)
    scripted_worker.will_write(
        call("input_datetime", action="set_datetime", entity_id=WAKE_UP, **fields)
    )

    result = await scripted_agent.ask("…", context=person, language=language)

    assert speech(result) == done


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
