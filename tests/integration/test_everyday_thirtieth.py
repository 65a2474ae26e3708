"""Counts said the same for any place's name, long names said short, a family's requests.

- "Turn off everything downstairs" on a floor named "Ground Floor": the person heard "Turned
  off 6 lights on floor Ground Floor", "6 luci del piano Piano terra". The words put a generic
  noun before a name the user chose, and that name often says it already. Now the place
  follows the count in brackets, whatever it is called: "Turned off 6 lights (Ground Floor).",
  "6 Lichter (Erdgeschoss) ausschalten".
- A lamp named with 300 characters and line breaks (a name pasted from somewhere) was said
  whole, breaks and all, in "Turned on …", "I could not turn on …" and the question before a
  sensitive action. Our answers now say a name as the home list shows it, on one line and cut
  at its bound, and a cut name with its entity id: two locks whose long names differ only
  after the cut ("… Front Door", "… Kitchen Door") are two different questions.
- "Living room lights at 40 %": six languages said the value inside the sentence ("auf 40 %
  einschalten", "al 40 %"), as the question does in English ("Turn on Bed Light at 40 %?"),
  but the English answer read like a log line: "Turned on … (brightness 40 %)." Now "Turned
  on … at 40 %.", a fan's speed too.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from testing.home_builder import async_area
from testing.home_builder import async_floor
from testing.home_builder import async_place_in_area

from .agents import Talk
from .agents import async_setup_agent
from .agents import speech
from .agents import state
from .conftest import Agent
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_twenty_sixth import LIGHTS
from .test_everyday_twenty_sixth import all_six_turned_off


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

    assert await all_six_turned_off(hass, talk, "turn off all the lights there", language) == said


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


# A name pasted with its line breaks, far longer than any name the home list shows whole.
LONG: Final = "Reading\nlamp   by the window " + "of the big upstairs guest bedroom " * 9


def long_named(hass: HomeAssistant, entity_id: str, name: str) -> None:
    er.async_get(hass).async_update_entity(entity_id, name=name)
    async_expose_entity(hass, "conversation", entity_id, True)


def one_bounded_line(said: str) -> None:
    assert "\n" not in said, said
    assert "  " not in said, said
    assert len(said) < 200, said


async def test_a_long_name_is_said_on_one_line_and_cut_when_done(
    hass: HomeAssistant, talk: Talk
) -> None:
    long_named(hass, "light.bed_light", LONG)

    result = await talk.say(
        "turn on the reading lamp",
        "en",
        call("light", action="turn_on", entity_id="light.bed_light"),
    )

    assert state(hass, "light.bed_light") == "on"
    said = speech(result)
    one_bounded_line(said)
    assert said.startswith("Turned on Reading lamp by the window of the big upstairs guest"), said
    assert "… (light.bed_light)" in said


@pytest.mark.usefixtures("dead_bulb")
async def test_a_long_name_is_said_on_one_line_and_cut_when_it_failed(
    hass: HomeAssistant, talk: Talk
) -> None:
    long_named(hass, "light.kitchen_lights", LONG)
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": "light.kitchen_lights"}, blocking=True
    )

    result = await talk.say(
        "turn on the reading lamp",
        "de",
        call("light", action="turn_on", entity_id="light.kitchen_lights"),
        answer(""),
    )

    said = speech(result)
    one_bounded_line(said)
    assert "Reading lamp by the window" in said
    assert "… (light.kitchen_lights)" in said


@pytest.mark.usefixtures("dead_bulb")
async def test_a_long_name_is_said_on_one_line_in_a_partly_done_answer(
    hass: HomeAssistant, talk: Talk
) -> None:
    """Five lights on, the long-named kitchen bulb not: the one it names is cut, on one line."""
    for light in LIGHTS:
        async_expose_entity(hass, "conversation", light, True)
        await hass.services.async_call("light", "turn_off", {"entity_id": light}, blocking=True)
    long_named(hass, "light.kitchen_lights", LONG)

    result = await talk.say(
        "turn on every light",
        "en",
        call("light", action="turn_on", entity_id=list(LIGHTS)),
        answer(""),
    )

    said = speech(result)
    one_bounded_line(said)
    assert said.startswith("Turned on 5 lights. I could not turn on Reading lamp by the"), said
    assert "… (light.kitchen_lights)" in said


async def test_two_locks_whose_long_names_differ_after_the_cut_are_asked_apart(
    hass: HomeAssistant, house: None, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """The question must say which lock: the one whose name ends in "Back Door"."""
    talk = Talk(await async_setup_agent(hass, scripted_worker.info.path), scripted_worker, person)
    shared = "Smart lock of the house " + "with the blue shutters and the old oak tree " * 4
    long_named(hass, "lock.back_door", shared + "Back Door")
    long_named(hass, "lock.stuck_door", shared + "Stuck Door")

    back = await talk.say(
        "unlock it", "en", call("lock", action="unlock", entity_id="lock.back_door")
    )
    await talk.reply(back, "no", "en")
    stuck = await talk.say(
        "unlock it", "en", call("lock", action="unlock", entity_id="lock.stuck_door")
    )

    assert state(hass, "lock.back_door") == "locked"
    for asked, entity_id in ((back, "lock.back_door"), (stuck, "lock.stuck_door")):
        said = speech(asked)
        one_bounded_line(said)
        assert said.startswith("Unlock Smart lock of the house with the blue shutters"), said
        assert f"… ({entity_id})" in said, said
    assert speech(back) != speech(stuck)


ROOM_AT_A_BRIGHTNESS: Final = {
    "en": "Turned on Living Room RGBWW Lights and Ceiling Lights at 40%.",
    "de": "Erledigt: Living Room RGBWW Lights und Ceiling Lights auf 40 % einschalten.",
    "fr": "C'est fait\u00a0: allumer Living Room RGBWW Lights et Ceiling Lights à 40\u00a0%.",
    "es": "Hecho: encender Living Room RGBWW Lights y Ceiling Lights al 40%.",
    "it": "Fatto: accendere Living Room RGBWW Lights e Ceiling Lights al 40%.",
    "nl": "Klaar: Living Room RGBWW Lights en Ceiling Lights op 40% inschakelen.",
    "pt": "Feito: ligar Living Room RGBWW Lights e Ceiling Lights a 40%.",
}


@pytest.mark.parametrize(("language", "said"), ROOM_AT_A_BRIGHTNESS.items())
async def test_lights_at_a_brightness_say_the_value_in_the_sentence(
    hass: HomeAssistant, talk: Talk, language: str, said: str
) -> None:
    lights = ["light.living_room_rgbww_lights", "light.ceiling_lights"]
    for light in lights:
        async_expose_entity(hass, "conversation", light, True)

    result = await talk.say(
        "living room lights at 40 percent",
        language,
        call("light", action="turn_on", entity_id=lights, brightness_pct=40),
    )

    assert speech(result) == said


async def test_a_fan_turned_on_at_a_speed_says_it_in_the_sentence(
    hass: HomeAssistant, talk: Talk
) -> None:
    async_expose_entity(hass, "conversation", "fan.living_room_fan", True)

    result = await talk.say(
        "fan on at half speed",
        "en",
        call("fan", action="turn_on", entity_id="fan.living_room_fan", percentage=50),
    )

    assert speech(result) == "Turned on Living Room Fan at 50%."
