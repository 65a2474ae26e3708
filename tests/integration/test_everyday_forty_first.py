"""Ordinary requests in German, French and Spanish, and names at the start of a sentence.

- German and Dutch questions, and an "already" answer in every language, start with the
  name they are about, and the first letter was made upper case whatever it was: an
  "iPhone-Garage" was asked about as "IPhone-Garage öffnen?", a lamp named
  "stehlampe" was "Stehlampe: schon ausgeschaltet.", an entity id "Lock.back_door". A name or
  an id is now written as it is, wherever it stands; our own words still start upper case.
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.home.call_texts import capitalized
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .scripted_model import call

LAMP: Final = "light.bed_light"
GARAGE: Final = "cover.garage_door"


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
