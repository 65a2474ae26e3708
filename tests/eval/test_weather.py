"""The fixture home's weather: its state and forecast as core's weather entity reports them,
and "what's the weather" through Assist's HassGetWeather and through our tools (get_state).
"""

from __future__ import annotations

from pathlib import Path
import textwrap
from typing import Any
from typing import cast

import pytest

from homeassistant.components import conversation
from homeassistant.const import UnitOfTemperature
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from homeassistant.setup import async_setup_component
from homeassistant.util.unit_conversion import TemperatureConverter
from scripts.evaluation.dataset import load_home
from scripts.evaluation.home import async_setup_fixture_home
from testing.agent import async_create_person
from testing.agent import async_local_agent
from testing.stand_in import StandInWorker
from testing.stand_in import answer
from testing.stand_in import call
from testing.turn import async_run_turn

FIXTURES = """
name: Weather Flat
entities:
  - name: Outside
    id: weather.outside
    attributes:
      condition: rainy
      native_temperature: 47
      native_temperature_unit: °F
      humidity: 81
      forecast:
        - {datetime: "2026-05-04", condition: sunny, native_temperature: 59, templow: 41}
        - {datetime: "2026-05-05", condition: cloudy, temperature: 50}
"""
TASKS = """
category: weather
tests:
  - sentences: [what's the weather]
    answer_from: [weather.outside]
"""


@pytest.fixture
async def weather_home(
    hass: HomeAssistant, enable_custom_integrations: None, tmp_path: Path
) -> None:
    """A home with one weather entity, in °F, in Home Assistant's metric test home."""
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "intent", {})
    folder = tmp_path / "weather_flat"
    folder.mkdir()
    (folder / "_fixtures.yaml").write_text(textwrap.dedent(FIXTURES))
    (folder / "weather.yaml").write_text(textwrap.dedent(TASKS))
    await async_setup_fixture_home(hass, load_home(folder))


def celsius(fahrenheit: float) -> float:
    return round(
        TemperatureConverter.convert(
            fahrenheit, UnitOfTemperature.FAHRENHEIT, UnitOfTemperature.CELSIUS
        ),
        1,
    )


async def test_state_and_forecast_as_the_weather_entity_reports_them(
    hass: HomeAssistant, weather_home: None
) -> None:
    assert hass.config.units.temperature_unit == UnitOfTemperature.CELSIUS
    state = hass.states.get("weather.outside")

    assert state is not None
    assert state.state == "rainy"
    assert state.attributes["temperature"] == celsius(47)
    assert state.attributes["temperature_unit"] == UnitOfTemperature.CELSIUS
    assert state.attributes["humidity"] == 81
    response = await hass.services.async_call(
        "weather",
        "get_forecasts",
        {"entity_id": "weather.outside", "type": "daily"},
        blocking=True,
        return_response=True,
    )
    days = cast(dict[str, Any], response)["weather.outside"]["forecast"]
    assert [(d["condition"], d["temperature"]) for d in days] == [
        ("sunny", celsius(59)),
        ("cloudy", celsius(50)),
    ]
    assert days[0]["templow"] == celsius(41)


async def test_whats_the_weather_through_assists_hass_get_weather(
    hass: HomeAssistant, weather_home: None
) -> None:
    assert await async_setup_component(hass, "conversation", {})

    found = await intent.async_handle(hass, "test", "HassGetWeather", {}, assistant="conversation")
    said = await conversation.async_converse(
        hass, "what's the weather", None, Context(), language="en"
    )

    assert [s.entity_id for s in found.matched_states] == ["weather.outside"]
    assert said.response.intent is not None
    assert said.response.intent.intent_type == "HassGetWeather"
    speech = said.response.speech["plain"]["speech"]
    assert speech.strip() == f"{celsius(47)} °C and raining"


async def test_whats_the_weather_through_our_tools(
    hass: HomeAssistant, weather_home: None, tmp_path: Path
) -> None:
    model = tmp_path / "stand-in.gguf"
    model.write_bytes(b"GGUF" + bytes(60))
    worker = StandInWorker(model)

    async with async_local_agent(hass, model, stand_in=worker) as handle:
        person = await async_create_person(hass, "Ann")
        worker.will_write(
            answer(call("get_state", entity_id="weather.outside")), answer("Rainy, 8 degrees.")
        )
        ours = await async_run_turn(handle, "what's the weather", user_id=person)

    (read,) = ours.tool_calls
    assert (read.name, read.error) == ("get_state", False)
    assert read.result["entities"][0] == {
        "entity_id": "weather.outside",
        "name": "Outside",
        "state": "rainy",
        # With the entity's own units: a bare 8.3 could be °F in another home.
        "temperature": f"{celsius(47):g} °C",
        "humidity": "81 %",
    }
    assert ours.answer == "Rainy, 8 degrees."
