"""Counts said the same for any place's name, long names said short, a family's requests.

- "Turn off everything downstairs" on a floor named "Ground Floor": the person heard "Turned
  off 6 lights on floor Ground Floor", "6 luci del piano Piano terra". The words put a generic
  noun before a name the user chose, and that name often says it already. Now the place
  follows the count in brackets, whatever it is called: "Turned off 6 lights (Ground Floor).",
  "6 Lichter (Erdgeschoss) ausschalten".
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
from .scripted_model import call
from .test_everyday_twenty_sixth import LIGHTS


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


def lights_on_a_floor(hass: HomeAssistant, floor: str) -> None:
    """Every demo light exposed, in two rooms of the floor of that name."""
    floor_id = async_floor(hass, floor, 0)
    rooms = (async_area(hass, "Hall", floor_id), async_area(hass, "Study", floor_id))
    for index, light in enumerate(LIGHTS):
        async_expose_entity(hass, "conversation", light, True)
        async_place_in_area(hass, light, rooms[index % 2])


# A floor named as a floor and one that is not, in each language.
COUNTED_ON_A_FLOOR: Final = {
    ("en", "Ground Floor"): "Turned off 6 lights (Ground Floor).",
    ("en", "Upstairs"): "Turned off 6 lights (Upstairs).",
    ("de", "Erdgeschoss"): "Erledigt: 6 Lichter (Erdgeschoss) ausschalten.",
    ("de", "Dachboden"): "Erledigt: 6 Lichter (Dachboden) ausschalten.",
    ("fr", "Rez-de-chaussée"): "C'est fait\u00a0: éteindre 6 lumières (Rez-de-chaussée).",
    ("fr", "Grenier"): "C'est fait\u00a0: éteindre 6 lumières (Grenier).",
    ("es", "Planta baja"): "Hecho: apagar 6 luces (Planta baja).",
    ("es", "Ático"): "Hecho: apagar 6 luces (Ático).",
    ("it", "Piano terra"): "Fatto: spegnere 6 luci (Piano terra).",
    ("it", "Soffitta"): "Fatto: spegnere 6 luci (Soffitta).",
    ("nl", "Begane grond"): "Klaar: 6 lampen (Begane grond) uitschakelen.",
    ("nl", "Zolder"): "Klaar: 6 lampen (Zolder) uitschakelen.",
    ("pt", "Rés-do-chão"): "Feito: desligar 6 luzes (Rés-do-chão).",
    ("pt", "Sótão"): "Feito: desligar 6 luzes (Sótão).",
}


@pytest.mark.parametrize(
    ("language", "floor", "said"), [(*k, v) for k, v in COUNTED_ON_A_FLOOR.items()]
)
async def test_a_counted_answer_says_any_floors_name_the_same_way(
    hass: HomeAssistant, talk: Talk, language: str, floor: str, said: str
) -> None:
    """Never "on floor Ground Floor" nor "del piano Piano terra": the name in brackets."""
    lights_on_a_floor(hass, floor)

    result = await talk.say(
        "turn off all the lights there",
        language,
        call("light", action="turn_off", entity_id=list(LIGHTS)),
    )

    assert [state(hass, light) for light in LIGHTS] == ["off"] * len(LIGHTS)
    assert speech(result) == said


async def test_a_counted_answer_says_one_rooms_name_in_brackets_too(
    hass: HomeAssistant, talk: Talk
) -> None:
    """A room called "Garden" is no "pièce": "6 lumières (Garden)", never "de la pièce"."""
    garden = async_area(hass, "Jardin")
    for light in LIGHTS:
        async_expose_entity(hass, "conversation", light, True)
        async_place_in_area(hass, light, garden)

    result = await talk.say(
        "allume le jardin", "fr", call("light", action="turn_on", entity_id=list(LIGHTS))
    )

    assert speech(result) == "C'est fait\u00a0: allumer 6 lumières (Jardin)."
