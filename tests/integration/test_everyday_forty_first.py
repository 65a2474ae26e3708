"""Ordinary requests in German, French and Spanish, and names at the start of a sentence.

- German and Dutch questions, and an "already" answer in every language, start with the
  name they are about, and the first letter was made upper case whatever it was: an
  "iPhone-Garage" was asked about as "IPhone-Garage öffnen?", a lamp named
  "stehlampe" was "Stehlampe: schon ausgeschaltet.", an entity id "Lock.back_door". A name or
  an id is now written as it is, wherever it stands; our own words still start upper case.
- A number set was said without its unit ("Soll auf 21,5 einstellen"): now with the unit its
  entity shows ("21,5 °C", "21,5 %"), in the language's way of writing it.
- Spanish set a number "en" a value ("ajustar Soll en 21,5", "in 21,5"): now "a 21,5".
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.home.call_texts import capitalized
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scripted_model import call

LAMP: Final = "light.bed_light"
GARAGE: Final = "cover.garage_door"
SET_POINT: Final = "input_number.soll"


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


def renamed(hass: HomeAssistant, entity_id: str, name: str) -> None:
    async_expose_entity(hass, "conversation", entity_id, True)
    er.async_get(hass).async_update_entity(entity_id, name=name)


@pytest.mark.parametrize(
    ("language", "name", "said"),
    [
        ("de", "iPhone-Garage", "iPhone-Garage öffnen? Sag „ja“ zum Bestätigen."),
        ("nl", "garagepoort", "garagepoort openen?"),
        ("de", "Garage", "Garage öffnen? Sag „ja“ zum Bestätigen."),
        ("en", "iPhone garage", "Open iPhone garage? Say yes to confirm."),
    ],
)
async def test_a_question_writes_the_name_it_starts_with_as_it_is(
    hass: HomeAssistant, talk: Talk, language: str, name: str, said: str
) -> None:
    """Before: "IPhone-Garage öffnen?", "Garagepoort openen?"; the others are guards:
    our own first word is still upper case."""
    renamed(hass, GARAGE, name)

    result = await talk.say("…", language, call("cover", action="open_cover", entity_id=GARAGE))

    assert speech(result).startswith(said)


@pytest.mark.parametrize(
    ("language", "name", "said"),
    [
        ("en", "iPhone lamp", "iPhone lamp: already off."),
        ("de", "stehlampe", "stehlampe: schon ausgeschaltet."),
        ("es", "lámpara", "lámpara: ya apagado."),
    ],
)
async def test_an_already_answer_writes_the_name_it_starts_with_as_it_is(
    hass: HomeAssistant, talk: Talk, language: str, name: str, said: str
) -> None:
    """Before: "IPhone lamp: already off.", "Stehlampe: schon ausgeschaltet."."""
    renamed(hass, LAMP, name)
    await hass.services.async_call("light", "turn_off", {"entity_id": LAMP}, blocking=True)

    result = await talk.say("…", language, call("light", action="turn_off", entity_id=LAMP))

    assert speech(result) == said


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("lock.back_door aufschließen?", "lock.back_door aufschließen?"),
        ("v1.2 hub ontgrendelen?", "v1.2 hub ontgrendelen?"),
        ("0 ground floor zur Basis schicken", "0 ground floor zur Basis schicken"),
        ("eBike-Lader einschalten?", "eBike-Lader einschalten?"),
        ("¿desbloquear Front Door?", "¿Desbloquear Front Door?"),
        ("déverrouiller Front Door ?", "Déverrouiller Front Door ?"),
        ("sbloccare lock.back_door?", "Sbloccare lock.back_door?"),
    ],
)
def test_an_id_or_a_name_shaped_word_first_is_written_as_it_is(text: str, written: str) -> None:
    """Before: "Lock.back_door aufschließen?", "V1.2 hub", "0 Ground floor", "EBike-Lader";
    our verbs first are guards."""
    assert capitalized(text) == written


async def number_set(hass: HomeAssistant, talk: Talk, language: str, unit: str | None) -> str:
    """Set up an input number "Soll" (in `unit`), have it set to 21.5; return what was said."""
    number = {"name": "Soll", "min": 5, "max": 30, "step": 0.5}
    if unit is not None:
        number["unit_of_measurement"] = unit
    assert await async_setup_component(hass, "input_number", {"input_number": {"soll": number}})
    async_expose_entity(hass, "conversation", SET_POINT, True)

    result = await talk.say(
        "…", language, call("input_number", action="set_value", entity_id=SET_POINT, value=21.5)
    )

    assert state(hass, SET_POINT) == "21.5"
    return speech(result)


@pytest.mark.parametrize(
    ("language", "unit", "said"),
    [
        ("en", "°C", "Set Soll to 21.5 °C."),
        ("de", "°C", "Erledigt: Soll auf 21,5 °C einstellen."),
        ("fr", "°C", "C'est fait\u00a0: régler Soll sur 21,5\u00a0°C."),
        ("es", "°C", "Hecho: ajustar Soll a 21,5 °C."),
        ("de", "%", "Erledigt: Soll auf 21,5 % einstellen."),
        ("nl", "%", "Klaar: Soll op 21,5% instellen."),
    ],
)
async def test_a_number_set_is_said_with_its_unit(
    hass: HomeAssistant, talk: Talk, language: str, unit: str, said: str
) -> None:
    """Before: "Soll auf 21,5 einstellen": 21,5 of what (a set point, a percentage)."""
    assert await number_set(hass, talk, language, unit) == said


async def test_a_number_without_a_unit_is_said_alone(hass: HomeAssistant, talk: Talk) -> None:
    """Guard: no unit, nothing added."""
    assert await number_set(hass, talk, "de", None) == "Erledigt: Soll auf 21,5 einstellen."


async def test_spanish_sets_a_number_to_a_value_with_a(hass: HomeAssistant, talk: Talk) -> None:
    """Before: "ajustar Soll en 21,5" ("en" reads as "in"; a value is set "a" it)."""
    assert await number_set(hass, talk, "es", None) == "Hecho: ajustar Soll a 21,5."
