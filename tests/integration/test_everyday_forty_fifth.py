"""A small model writes calls a little wrong; the house still does what was meant (everyday45).

A table of everyday requests, each answered with a call as BotPsy-0.8B plausibly writes it
almost right: the target by its name or a near id, a value as text, in another case or as a
share, a field with a neighbour's name, the action in the wrong place. Each row says what the
person sees after: the state it leaves, and a part of the sentence said. Where the intent is
plain it is done; where it is not, nothing changes and the person hears that it was not done.
Never a different entity acted on, never a guess at a lock.

Fixed here (each row marked "before:" failed before):
- An option written in another case or with spaces ("Eco", "Heat Cool", "On High") was "Eco is
  not an option"; it is now the entity's own option ("eco", "heat_cool", "on_high") when
  exactly one of them is written that way.
- A percent of a whole written as a share (brightness_pct 0.5, a fan's percentage 0.25) set
  the light to 1 of 255 and said "at 0.5%"; it is now 50 %.
  The sentence says what ran ("at 50%"), not what was written.
- A CSS colour written in words ("Light Blue") was refused with no reason; it is "lightblue".
- An optional field written as null (`brightness_pct: null`, a model without the grammar)
  made the whole call fail; it is a field not given.
- A toggle written twice in one answer switched the light on and back off, saying "Toggled";
  the repeat is dropped (any other repeat runs as written: twice the next track is two).

Left as they are, with the model told what to correct: a name, an alias or an area for an
entity id, a near id (never guessed: a lock's least of all), a value with its unit ("50%",
"21°C", "21,5"), an argument of a neighbour (`brightness`, `target_temp`, `color`) and the
action in the tool's place. The call grammar of the local model cannot write any of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .scripted_model import call

KITCHEN: Final = "light.kitchen_lights"
BED: Final = "light.bed_light"
HVAC: Final = "climate.hvac"
ECOBEE: Final = "climate.ecobee"
FAN: Final = "fan.living_room_fan"
FRONT_DOOR: Final = "lock.front_door"
AC: Final = "switch.ac"
STATE: Final = "state"
# Every entity a row may change, as the fixture leaves it: a row changes its own, no other.
WATCHED: Final = (KITCHEN, BED, HVAC, ECOBEE, FAN, FRONT_DOOR, AC)


@dataclass(frozen=True, slots=True)
class Row:
    """The model writes `writes` in `language`; `entity`'s `read` then reads `expected`."""

    language: str
    writes: str
    entity: str
    read: str
    expected: Any
    said: str


def light(language: str, said: str, read: str, expected: Any, **arguments: Any) -> Row:
    """A light.turn_on of the kitchen light (unless the arguments name another target)."""
    arguments = {"action": "turn_on", "entity_id": KITCHEN} | arguments
    return Row(language, call("light", **arguments), KITCHEN, read, expected, said)


def climate(entity: str, said: str, read: str, expected: Any, **arguments: Any) -> Row:
    """An English climate call on `entity`."""
    writes = call("climate", entity_id=entity, **arguments)
    return Row("en", writes, entity, read, expected, said)


def unchanged_light(language: str, said: str, **arguments: Any) -> Row:
    """A light call that must leave the kitchen light off."""
    return light(language, said, STATE, "off", **arguments)


NOT_ON: Final = "I could not turn on"
RED: Final = [255, 0, 0]
GREEN: Final = [0, 255, 0]
# CSS lightblue as the demo light shows it (by its hue and saturation).
LIGHT_BLUE: Final = [192, 239, 255]


def on(said: str = "Turned on Kitchen Lights", **arguments: Any) -> Row:
    """An English light call after which the kitchen light is on."""
    return light("en", said, STATE, "on", **arguments)


ROWS: Final[dict[str, Row]] = {
    # 1. Targets: what is plainly one exposed entity is it; anything else changes nothing.
    "id in capitals": on(entity_id="LIGHT.KITCHEN_LIGHTS"),
    "id with spaces around": on(entity_id="  light.kitchen_lights "),
    "list of one": on(entity_id=[KITCHEN]),
    "list of one as text": on(entity_id='["light.kitchen_lights"]'),
    "the same id twice": on(entity_id=[KITCHEN, KITCHEN]),
    "list of two": Row(
        "en",
        call("light", action="turn_on", entity_id=[BED, KITCHEN]),
        BED,
        STATE,
        "on",
        "Turned on",
    ),
    "name for id": unchanged_light("en", NOT_ON, entity_id="Kitchen Lights"),
    "name in lower case": unchanged_light("en", NOT_ON, entity_id="kitchen lights"),
    "alias for id": unchanged_light("en", NOT_ON, entity_id="cooking light"),
    "domain missing": unchanged_light("en", NOT_ON, entity_id="kitchen_lights"),
    "area for entity": unchanged_light("en", NOT_ON, entity_id="Kitchen"),
    "area and name": unchanged_light("en", NOT_ON, entity_id="Kitchen Kitchen Lights"),
    "near id": unchanged_light("en", NOT_ON, entity_id="light.kitchen_light"),
    "shorter id": unchanged_light("en", NOT_ON, entity_id="light.kitchen"),
    "two ids joined by a comma": unchanged_light("en", NOT_ON, entity_id=f"{KITCHEN}, {BED}"),
    "an unexposed light": unchanged_light("en", NOT_ON, entity_id="light.ceiling_lights"),
    "near id in German": unchanged_light("de", "Das ging nicht", entity_id="light.kuche"),
    "a lock by near id": Row(
        "en",
        call("lock", action="unlock", entity_id="lock.front"),
        FRONT_DOOR,
        STATE,
        "locked",
        "I could not unlock",
    ),
    "a lock by name": Row(
        "en",
        call("lock", action="unlock", entity_id="Front Door"),
        FRONT_DOOR,
        STATE,
        "locked",
        "I could not unlock",
    ),
    "a lock by its object id": Row(
        "fr",
        call("lock", action="unlock", entity_id="front_door"),
        FRONT_DOOR,
        STATE,
        "locked",
        "Je n'ai pas pu",
    ),
    "a light id in the lock tool": Row(
        "en",
        call("lock", action="lock", entity_id=KITCHEN),
        KITCHEN,
        STATE,
        "off",
        "I could not",
    ),
    "a switch by its name": Row(
        "en", call("switch", action="turn_on", entity_id="AC"), AC, STATE, "off", NOT_ON
    ),
    # 2. Values.
    "brightness as text": on("Turned on Kitchen Lights at 50%", brightness_pct="50"),
    "brightness as a share (before: 1 of 255, at 0.5%)": on(
        "Turned on Kitchen Lights at 50%", brightness_pct=0.5
    ),
    "brightness a quarter (before: 1 of 255)": light(
        "de", "Kitchen Lights auf 25 % einschalten", "brightness", 64, brightness_pct=0.25
    ),
    "brightness as a share sets 128": light("en", "at 50%", "brightness", 128, brightness_pct=0.5),
    "brightness 1 stays one percent": light("en", "at 1%", "brightness", 3, brightness_pct=1),
    "brightness with a percent sign (before: refused by the parser)": light(
        "en", "at 50%", "brightness", 128, brightness_pct="50%"
    ),
    "brightness 0-255 over 100": unchanged_light("en", "not 200", brightness_pct=200),
    "brightness by its neighbour's name": unchanged_light("en", NOT_ON, brightness=128),
    "colour in French": light("fr", "(rouge)", "rgb_color", RED, color_name="rouge"),
    "colour in German": light("de", "(grün)", "rgb_color", GREEN, color_name="grün"),
    "colour in German, capital": light("de", "(grün)", "rgb_color", GREEN, color_name="Grün"),
    "colour in Spanish": light("es", "(rojo)", "rgb_color", RED, color_name="rojo"),
    "colour in Italian": light("it", "(rosso)", "rgb_color", RED, color_name="rosso"),
    "colour in Dutch": light("nl", "(rood)", "rgb_color", RED, color_name="rood"),
    "colour in Portuguese": light("pt", "(vermelho)", "rgb_color", RED, color_name="vermelho"),
    "colour in capitals": light("en", "Kitchen Lights", "rgb_color", RED, color_name="RED"),
    "colour in two words (before: refused)": light(
        "en", "Kitchen Lights", "rgb_color", LIGHT_BLUE, color_name="Light Blue"
    ),
    "colour in two words, German": light(
        "de", "Kitchen Lights", "rgb_color", LIGHT_BLUE, color_name="light blue"
    ),
    "colour by a neighbour's field": unchanged_light("en", NOT_ON, color="red"),
    "colour no light has": unchanged_light("en", NOT_ON, color_name="sparkly"),
    "kelvin in mireds": unchanged_light("en", "not 370 K", color_temp_kelvin=370),
    "kelvin as text": light(
        "en", "Kitchen Lights", "color_temp_kelvin", 3000, color_temp_kelvin="3000"
    ),
    "kelvin with its unit (before: refused by the parser)": light(
        "en", "Kitchen Lights", "color_temp_kelvin", 3000, color_temp_kelvin="3000K"
    ),
    "temperature as text": climate(
        HVAC, "Set the", "temperature", 23.5, action="set_temperature", temperature="23.5"
    ),
    "temperature in Fahrenheit": climate(
        HVAC, "not 70", "temperature", 21, action="set_temperature", temperature=70
    ),
    "temperature with its unit (before: refused by the parser)": climate(
        HVAC, "to 21°", "temperature", 21, action="set_temperature", temperature="21°C"
    ),
    "temperature with a decimal comma (before: refused by the parser)": Row(
        "de",
        call("climate", action="set_temperature", entity_id=HVAC, temperature="21,5"),
        HVAC,
        "temperature",
        21.5,
        "auf 21,5° einstellen",
    ),
    "temperature by a neighbour's name": climate(
        HVAC, "I could not", "temperature", 21, action="set_temperature", target_temp=23
    ),
    "mode in capitals (before: not an option)": climate(
        ECOBEE, "Set the", STATE, "cool", action="set_hvac_mode", hvac_mode="Cool"
    ),
    "mode with a space (before: not an option)": climate(
        ECOBEE, "Set the", STATE, "fan_only", action="set_hvac_mode", hvac_mode="Fan Only"
    ),
    "mode with a hyphen (before: not an option)": climate(
        ECOBEE, "Set the", STATE, "fan_only", action="set_hvac_mode", hvac_mode="fan-only"
    ),
    "preset in capitals (before: not an option)": climate(
        ECOBEE, "Set the", "preset_mode", "eco", action="set_preset_mode", preset_mode="Eco"
    ),
    "preset in capitals, all (before: not an option)": climate(
        ECOBEE, "Set the", "preset_mode", "away", action="set_preset_mode", preset_mode="AWAY"
    ),
    "fan mode in words (before: not an option)": climate(
        ECOBEE, "Set the", "fan_mode", "on_high", action="set_fan_mode", fan_mode="On High"
    ),
    "preset with a word more": climate(
        ECOBEE,
        "eco mode is not an option",
        "preset_mode",
        "home",
        action="set_preset_mode",
        preset_mode="eco mode",
    ),
    "mode the entity has not": climate(
        HVAC, "is not an option", STATE, "cool", action="set_hvac_mode", hvac_mode="Heat Cool"
    ),
    "fan speed as a share (before: 0.5 %)": Row(
        "en",
        call("fan", action="set_percentage", entity_id=FAN, percentage=0.5),
        FAN,
        "percentage",
        50,
        "Set the speed of Living Room Fan to 50%",
    ),
    "fan speed as text": Row(
        "it",
        call("fan", action="set_percentage", entity_id=FAN, percentage="66"),
        FAN,
        "percentage",
        66,
        "Fatto: impostare la velocità di Living Room Fan al 66%",
    ),
    "fan preset in capitals (before: not an option)": Row(
        "en",
        call("fan", action="set_preset_mode", entity_id=FAN, preset_mode="Smart"),
        FAN,
        "preset_mode",
        "smart",
        "Set the preset of Living Room Fan to smart",
    ),
    "oscillating as a word": Row(
        "en",
        call("fan", action="oscillate", entity_id=FAN, oscillating="on"),
        FAN,
        "oscillating",
        True,
        "Living Room Fan",
    ),
    "oscillating as true": Row(
        "nl",
        call("fan", action="oscillate", entity_id=FAN, oscillating=True),
        FAN,
        "oscillating",
        True,
        "Living Room Fan",
    ),
    # 3. Shape.
    "action with the domain (before: refused by the parser)": on(action="light.turn_on"),
    "action in capitals": on(action="TURN_ON"),
    "action in words": unchanged_light("en", "did not go through", action="Turn On"),
    "action shortened": unchanged_light("en", "did not go through", action="on"),
    "an unknown argument more": unchanged_light("en", NOT_ON, transition=2),
    "an argument of another action": unchanged_light("en", NOT_ON, hvac_mode="heat"),
    "a field of the action as null (before: refused)": on(brightness_pct=None),
    "no action": unchanged_light("en", "did not go through", action=None),
    "the action as the tool": Row(
        "en", call("light.turn_on", entity_id=KITCHEN), KITCHEN, STATE, "off", "did not go through"
    ),
    "the service as the tool": Row(
        "en", call("turn_on", entity_id=KITCHEN), KITCHEN, STATE, "off", "did not go through"
    ),
    "the same call twice": Row(
        "en",
        call("light", action="turn_on", entity_id=KITCHEN) * 2,
        KITCHEN,
        STATE,
        "on",
        "Turned on Kitchen Lights",
    ),
    "a toggle written twice": Row(
        "en",
        call("light", action="toggle", entity_id=KITCHEN) * 2,
        KITCHEN,
        STATE,
        "on",
        "Toggled Kitchen Lights",
    ),
    "two calls where one would do": Row(
        "es",
        call("light", action="turn_on", entity_id=KITCHEN)
        + call("light", action="turn_on", entity_id=KITCHEN, brightness_pct=30),
        KITCHEN,
        "brightness",
        76,
        "Hecho: encender Kitchen Lights",
    ),
    "two calls, two lights": Row(
        "pt",
        call("light", action="turn_on", entity_id=BED)
        + call("light", action="turn_on", entity_id=KITCHEN),
        BED,
        STATE,
        "on",
        "Bed Light",
    ),
}


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


@pytest.fixture
async def house(hass: HomeAssistant, agent: Agent) -> None:
    """The demo home with the Ecobee and the living room fan exposed too; the lights off."""
    for entity_id in (ECOBEE, FAN):
        async_expose_entity(hass, "conversation", entity_id, True)
    await hass.services.async_call("light", "turn_off", {"entity_id": "all"}, blocking=True)
    await hass.services.async_call("lock", "lock", {"entity_id": FRONT_DOOR}, blocking=True)


def read(hass: HomeAssistant, entity_id: str, what: str) -> Any:
    current = hass.states.get(entity_id)
    assert current is not None, entity_id
    value = current.state if what == STATE else current.attributes.get(what)
    return list(value) if isinstance(value, tuple) else value


def snapshot(hass: HomeAssistant) -> dict[str, Any]:
    return {entity_id: hass.states.get(entity_id) for entity_id in WATCHED}


@pytest.mark.parametrize("row", list(ROWS.values()), ids=list(ROWS))
async def test_a_call_written_a_little_wrong(
    hass: HomeAssistant, house: None, talk: Talk, row: Row
) -> None:
    """The state the call leaves, a part of the sentence said, and no other entity touched."""
    before = snapshot(hass)

    result = await talk.say("…", row.language, row.writes)

    said = speech(result)
    assert row.said in said
    assert "Traceback" not in said
    assert read(hass, row.entity, row.read) == row.expected
    others = {e for e, s in snapshot(hass).items() if s != before[e] and e not in (row.entity,)}
    assert others <= {KITCHEN} if row.entity == BED else not others
