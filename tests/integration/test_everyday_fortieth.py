"""Sentences a person would say back: what the agent says of what it did, read as a native
speaker reads it.

- Two lights named "Lamp" in two areas, both off: "turn them off" answered "Lamp and Lamp:
  already off". An "already" sentence now tells twins apart as a done one does, by area, and
  both by floor or device where the areas match ("Lamp (Hall) and Lamp (Kitchen)").
- German said a light already on as "schon ein" (Home Assistant's state word "Ein", which
  reads only alone): now "schon eingeschaltet", and "schon ausgeschaltet" alike.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from testing.home_builder import async_area
from testing.home_builder import async_floor

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .scripted_model import call

LAMPS: Final = ("light.bed_light", "light.ceiling_lights")


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


def lamps_in(hass: HomeAssistant, *areas: str) -> None:
    """Name both demo lights "Lamp", each in its area (the entity's own), all lights off."""
    entities = er.async_get(hass)
    ground = async_floor(hass, "Ground", 0)
    for light, area in zip(LAMPS, areas, strict=True):
        async_expose_entity(hass, "conversation", light, True)
        entities.async_update_entity(light, name="Lamp", area_id=async_area(hass, area, ground))


async def lamps_switched(hass: HomeAssistant, talk: Talk, action: str, language: str) -> str:
    await hass.services.async_call("light", "turn_off", {"entity_id": "all"}, blocking=True)
    result = await talk.say("…", language, call("light", action=action, entity_id=list(LAMPS)))
    return speech(result)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Lamp (Hall) and Lamp (Kitchen): already off."),
        ("de", "Lamp (Hall) und Lamp (Kitchen): schon ausgeschaltet."),
        ("fr", "Lamp (Hall) et Lamp (Kitchen)\u00a0: déjà éteint."),
    ],
)
async def test_twins_already_as_asked_are_told_apart_by_area(
    hass: HomeAssistant, talk: Talk, language: str, said: str
) -> None:
    """Before: "Lamp and Lamp: already off"."""
    lamps_in(hass, "Hall", "Kitchen")

    assert await lamps_switched(hass, talk, "turn_off", language) == said


def devices_named(hass: HomeAssistant, *names: str) -> None:
    devices = dr.async_get(hass)
    entities = er.async_get(hass)
    for light, name in zip(LAMPS, names, strict=True):
        entry = entities.async_get(light)
        assert entry is not None
        assert entry.device_id is not None
        devices.async_update_device(entry.device_id, name_by_user=name)


@pytest.mark.parametrize(
    ("action", "said"),
    [
        ("turn_on", "Turned on Lamp (Left bulb) and Lamp (Right bulb)."),
        ("turn_off", "Lamp (Left bulb) and Lamp (Right bulb): already off."),
    ],
)
async def test_twins_in_one_area_are_told_apart_by_device(
    hass: HomeAssistant, talk: Talk, action: str, said: str
) -> None:
    """Before: "Lamp (light.bed_light) and Lamp (light.ceiling_lights)" when done, and
    "Lamp and Lamp" when already so: a voice reads the ids letter by letter."""
    lamps_in(hass, "Hall", "Hall")
    devices_named(hass, "Left bulb", "Right bulb")

    assert await lamps_switched(hass, talk, action, "en") == said


async def test_twins_of_one_device_in_one_area_keep_their_ids(
    hass: HomeAssistant, talk: Talk
) -> None:
    """Guard: where nothing spoken tells them apart, the entity id does."""
    lamps_in(hass, "Hall", "Hall")
    devices_named(hass, "Bulb", "Bulb")

    assert await lamps_switched(hass, talk, "turn_on", "en") == (
        "Turned on Lamp (light.bed_light) and Lamp (light.ceiling_lights)."
    )


@pytest.mark.parametrize(
    ("action", "said"),
    [
        ("turn_on", "Bed Light: schon eingeschaltet."),
        ("turn_off", "Bed Light: schon ausgeschaltet."),
    ],
)
async def test_german_says_a_switched_state_as_a_word_of_a_sentence(
    hass: HomeAssistant, talk: Talk, action: str, said: str
) -> None:
    """Before: "Bed Light: schon ein." The state alone stays Home Assistant's ("Ein")."""
    async_expose_entity(hass, "conversation", LAMPS[0], True)
    await hass.services.async_call("light", action, {"entity_id": LAMPS[0]}, blocking=True)

    result = await talk.say("…", "de", call("light", action=action, entity_id=LAMPS[0]))

    assert speech(result) == said
