"""Sentences a person would say back: what the agent says of what it did, read as a native
speaker reads it.

- Two lights named "Lamp" in two areas, both off: "turn them off" answered "Lamp and Lamp:
  already off". An "already" sentence now tells twins apart as a done one does, by area, and
  both by floor or device where the areas match ("Lamp (Hall) and Lamp (Kitchen)").
- German said a light already on as "schon ein" (Home Assistant's state word "Ein", which
  reads only alone): now "schon eingeschaltet", and "schon ausgeschaltet" alike.
- A look-alike said by its place read "Lamp in the The Hall" (an area named "The Hall") and
  "Lamp on the Upstairs" (a floor): a place's own article replaces the pattern's, and a place
  that says where ("Upstairs", "Oben") follows the name alone ("Lamp upstairs"). German sent a
  vacuum "zum Reinigen von Das Bad", and French, Spanish, Italian and Portuguese put "à",
  "a" before an area named with its article ("à Le Salon"): each now names it after a noun
  ("la zone Le Salon") or as what is cleaned ("mit Saugroboter Das Bad reinigen").
- French, Spanish, Italian and Portuguese said the state of several things as of one ("Lamp
  et Lamp : déjà éteint", "ya apagado"): a one-word state now agrees ("déjà éteints", "ya
  apagados", "già spenti", "já desligados"); one said of one thing stays as it was.
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.home.call_words import ENGLISH_WORDS
from custom_components.local_agent.home.call_words import WORDS_BY_LANGUAGE
from custom_components.local_agent.home.spoken_names import placed_name
from custom_components.local_agent.home.spoken_names import spoken_name
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
        ("fr", "Lamp (Hall) et Lamp (Kitchen)\u00a0: déjà éteints."),
        ("es", "Lamp (Hall) y Lamp (Kitchen): ya apagados."),
        ("it", "Lamp (Hall) e Lamp (Kitchen): già spenti."),
        ("pt", "Lamp (Hall) e Lamp (Kitchen): já desligados."),
        ("nl", "Lamp (Hall) en Lamp (Kitchen): al uit."),
    ],
)
async def test_twins_already_as_asked_are_told_apart_by_area(
    hass: HomeAssistant, talk: Talk, language: str, said: str
) -> None:
    """Before: "Lamp and Lamp: already off", and "Lamp et Lamp : déjà éteint" (the state of
    two said as of one)."""
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


async def test_a_look_alike_in_an_area_named_with_its_article_is_said_with_one(
    hass: HomeAssistant, talk: Talk
) -> None:
    """Before: "Lamp in the The Hall"."""
    lamps_in(hass, "The Hall", "Kitchen")

    assert spoken_name(hass, LAMPS[0], "en") == "Lamp in The Hall"
    assert spoken_name(hass, LAMPS[1], "en") == "Lamp in the Kitchen"


@pytest.mark.parametrize(
    ("language", "pattern", "place", "said"),
    [
        ("en", "on_floor", "Upstairs", "Lamp upstairs"),
        ("en", "on_floor", "Ground Floor", "Lamp on the Ground Floor"),
        ("en", "in_area", "The Hall", "Lamp in The Hall"),
        ("en", "in_area", "Theatre", "Lamp in the Theatre"),
        ("de", "on_floor", "Oben", "Lamp oben"),
        ("de", "in_area", "Das Bad", "Lamp im Bereich Das Bad"),
        ("fr", "on_floor", "En haut", "Lamp en haut"),
        ("fr", "in_area", "La Cuisine", "Lamp dans la pièce La Cuisine"),
        ("es", "in_area", "El Salón", "Lamp en el área El Salón"),
        ("es", "on_floor", "Arriba", "Lamp arriba"),
        ("it", "on_floor", "Di sopra", "Lamp di sopra"),
        ("nl", "on_floor", "Boven", "Lamp boven"),
        ("pt", "on_floor", "Lá em cima", "Lamp lá em cima"),
    ],
)
def test_a_place_is_said_as_its_name_reads_in_the_sentence(
    language: str, pattern: str, place: str, said: str
) -> None:
    """Before: "Lamp on the Upstairs", "Lamp im Stockwerk Oben"; the others are guards: a
    pattern whose noun stands before the place keeps it ("im Bereich Das Bad")."""
    words = WORDS_BY_LANGUAGE.get(language, ENGLISH_WORDS)

    assert placed_name(getattr(words, pattern), "Lamp", place, words) == said


@pytest.mark.parametrize(
    ("language", "said"),
    [("fr", "Bed Light\u00a0: déjà éteint."), ("es", "Bed Light: ya apagado.")],
)
async def test_the_state_of_one_thing_stays_singular(
    hass: HomeAssistant, talk: Talk, language: str, said: str
) -> None:
    """Guard: only a state said of several names is plural."""
    async_expose_entity(hass, "conversation", LAMPS[0], True)
    await hass.services.async_call("light", "turn_off", {"entity_id": LAMPS[0]}, blocking=True)

    result = await talk.say("…", language, call("light", action="turn_off", entity_id=LAMPS[0]))

    assert speech(result) == said
