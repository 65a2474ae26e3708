"""What people say to a speaker, as the model writes it after the speech-to-text (everyday46).

A table of voice requests over the seven languages (lower case, numbers in words, relative
and collective requests, questions), each answered with the calls a small model plausibly
writes for it, right or a little wrong. Each row says what the person finds after: the state
each entity it names reads, a part of the sentence said (in the request's language), and that
no other entity changed.

Fixed here (each row marked "before:" failed before):
- A number still in words in an argument ("fifty", "twenty one", "einundzwanzig komma fünf",
  "vingt et un", "veintiuno", "ventuno", "eenentwintig", "vinte e um", "minus ten") was
  refused as "must be a number": nothing changed and the person heard "I could not". It is
  now the number, in any of the seven languages; the sentence says it in digits ("at 50%",
  "auf 21,5°"), and what is not wholly a number ("half", "one two") is still refused.
- A number with its unit in words ("fifty percent", "22 Grad", "vingt-deux degrés") or a bare
  degree sign ("22°", the home's unit) was refused the same way; the unit is now read off.
  A unit that is not the home's ("seventy degrees fahrenheit" in a °C home) is still refused.

Left as they are (pinned): a name, an area or "all" for an entity id is refused with the
model told what to correct; a question answers with the model's own words after get_state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from typing import Final

import pytest

from homeassistant.core import HomeAssistant

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .scripted_model import call

KITCHEN: Final = "light.kitchen_lights"
BED: Final = "light.bed_light"
HVAC: Final = "climate.hvac"
FRONT_DOOR: Final = "lock.front_door"
AC: Final = "switch.ac"
STATE: Final = "state"
BRIGHTNESS: Final = "brightness"
TEMPERATURE: Final = "temperature"
# Every entity a row may change, as the fixture leaves it: a row changes its own, no other.
WATCHED: Final = (KITCHEN, BED, HVAC, FRONT_DOOR, AC)


@dataclass(frozen=True, slots=True)
class Row:
    """The model writes `writes` (one answer) in `language`; each of `reads` then reads its
    value."""

    language: str
    writes: tuple[str, ...]
    reads: dict[tuple[str, str], Any]
    said: str


def light(language: str, said: str, expected: Any, **arguments: Any) -> Row:
    """A light.turn_on of the kitchen light; its brightness after (None: it stays off)."""
    writes = call("light", **({"action": "turn_on", "entity_id": KITCHEN} | arguments))
    return Row(language, (writes,), {(KITCHEN, BRIGHTNESS): expected}, said)


def at(language: str, written: str, said: str, expected: Any) -> Row:
    """The kitchen light turned on at `written` percent; its brightness after."""
    return light(language, said, expected, brightness_pct=written)


def temperature(language: str, written: Any, expected: float, said: str) -> Row:
    """A climate.set_temperature of the HVAC (21 ° before) with `written` as the temperature."""
    writes = call("climate", action="set_temperature", entity_id=HVAC, temperature=written)
    return Row(language, (writes,), {(HVAC, TEMPERATURE): expected}, said)


def dimmed(language: str, step: Any, expected: int, said: str) -> Row:
    """The kitchen light at 50 %, then its brightness changed by `step` percent."""
    writes = (
        call("light", action="turn_on", entity_id=KITCHEN, brightness_pct=50),
        call("light", action="turn_on", entity_id=KITCHEN, brightness_step_pct=step),
    )
    return Row(language, writes, {(KITCHEN, BRIGHTNESS): expected}, said)


NOT_ON: Final = "I could not turn on"
NOT_SET: Final = "I could not set the temperature of Hvac"
LOWERED: Final = "lowered the brightness of Kitchen Lights by 10%"

ROWS: Final[dict[str, Row]] = {
    # 1. "set the kitchen light to fifty percent": the number in words (before: refused).
    "en fifty (before: refused)": at("en", "fifty", "Turned on Kitchen Lights at 50%", 128),
    "en one hundred (before: refused)": at("en", "one hundred", "at 100%", 255),
    "en a hundred (before: refused)": at("en", "a hundred", "at 100%", 255),
    "en twenty-five (before: refused)": at("en", "twenty-five", "at 25%", 64),
    "de fünfzig (before: refused)": at("de", "fünfzig", "Kitchen Lights auf 50 % einschalten", 128),
    "de Fünfzig in capitals (before: refused)": at("de", "Fünfzig", "auf 50 %", 128),
    "de fünfundsiebzig (before: refused)": at("de", "fünfundsiebzig", "auf 75 %", 191),
    "fr trente (before: refused)": at("fr", "trente", "allumer Kitchen Lights à 30\u00a0%", 76),
    "fr soixante-dix (before: refused)": at("fr", "soixante-dix", "à 70\u00a0%", 178),
    "fr quatre-vingts (before: refused)": at("fr", "quatre-vingts", "à 80\u00a0%", 204),
    "es cincuenta (before: refused)": at("es", "cincuenta", "encender Kitchen Lights al 50%", 128),
    "es cuarenta y cinco (before: refused)": at("es", "cuarenta y cinco", "al 45%", 115),
    "it cinquanta (before: refused)": at("it", "cinquanta", "accendere Kitchen Lights al 50%", 128),
    "it settantacinque (before: refused)": at("it", "settantacinque", "al 75%", 191),
    "nl vijftig (before: refused)": at("nl", "vijftig", "Kitchen Lights op 50% inschakelen", 128),
    "nl vijfenzeventig (before: refused)": at("nl", "vijfenzeventig", "op 75%", 191),
    "pt cinquenta (before: refused)": at("pt", "cinquenta", "ligar Kitchen Lights a 50%", 128),
    "pt setenta e cinco (before: refused)": at("pt", "setenta e cinco", "a 75%", 191),
    "en digits still": at("en", "50", "at 50%", 128),
    "en a number": light("en", "at 30%", 76, brightness_pct=30),
    "en three thousand kelvin (before: refused)": Row(
        "en",
        (call("light", action="turn_on", entity_id=KITCHEN, color_temp_kelvin="three thousand"),),
        {(KITCHEN, "color_temp_kelvin"): 3000},
        "Turned on Kitchen Lights (3000 K)",
    ),
    "de zweitausendsiebenhundert kelvin (before: refused)": Row(
        "de",
        (call("light", action="turn_on", entity_id=KITCHEN,
              color_temp_kelvin="zweitausendsiebenhundert"),),
        {(KITCHEN, "color_temp_kelvin"): 2700},
        "2700 K",
    ),
    # With its unit in words or a bare degree sign (before: refused).
    "en fifty percent (before: refused)": at("en", "fifty percent", "at 50%", 128),
    "en 50 percent (before: refused)": at("en", "50 percent", "at 50%", 128),
    "de fünfzig Prozent (before: refused)": at("de", "fünfzig Prozent", "auf 50 %", 128),
    "fr trente pour cent (before: refused)": at("fr", "trente pour cent", "à 30\u00a0%", 76),
    "es treinta por ciento (before: refused)": at("es", "treinta por ciento", "al 30%", 76),
    "nl dertig procent (before: refused)": at("nl", "dertig procent", "op 30%", 76),
    # Not wholly a number: nothing changes, and the person hears it was not done.
    "en half": light("en", NOT_ON, None, brightness_pct="half"),
    "en bright": light("en", NOT_ON, None, brightness_pct="bright"),
    "en one two": light("en", NOT_ON, None, brightness_pct="one two"),
    "en fifty fifty": light("en", NOT_ON, None, brightness_pct="fifty fifty"),
    "en fifty percent of it": light("en", NOT_ON, None, brightness_pct="fifty of it"),
    "de the word and alone": at("de", "und", "Das ging nicht", None),
    "en two hundred is out of range (before: no number)": light(
        "en", "not 200", None, brightness_pct="two hundred"
    ),
    # 2. "set the kitchen to twenty two degrees" (before: refused).
    "en twenty two (before: refused)": temperature("en", "twenty two", 22,
                                                   "Set the temperature of Hvac to 22°"),
    "en twenty-two (before: refused)": temperature("en", "twenty-two", 22, "to 22°"),
    "en twenty two point five (before: refused)": temperature("en", "twenty two point five",
                                                              22.5, "to 22.5°"),
    "de zweiundzwanzig (before: refused)": temperature(
        "de", "zweiundzwanzig", 22, "die Temperatur von Hvac auf 22° einstellen"
    ),
    "de einundzwanzig komma fünf (before: refused)": temperature(
        "de", "einundzwanzig komma fünf", 21.5, "auf 21,5°"
    ),
    "fr vingt-deux (before: refused)": temperature(
        "fr", "vingt-deux", 22, "régler la température de Hvac à 22°"
    ),
    "fr vingt et un virgule cinq (before: refused)": temperature(
        "fr", "vingt et un virgule cinq", 21.5, "à 21,5°"
    ),
    "es veintidós (before: refused)": temperature(
        "es", "veintidós", 22, "ajustar la temperatura de Hvac a 22°"
    ),
    "es veintiuno coma cinco (before: refused)": temperature(
        "es", "veintiuno coma cinco", 21.5, "a 21,5°"
    ),
    "it ventidue (before: refused)": temperature(
        "it", "ventidue", 22, "impostare la temperatura di Hvac a 22°"
    ),
    "it ventuno virgola cinque (before: refused)": temperature(
        "it", "ventuno virgola cinque", 21.5, "a 21,5°"
    ),
    "nl tweeëntwintig (before: refused)": temperature(
        "nl", "tweeëntwintig", 22, "de temperatuur van Hvac op 22° instellen"
    ),
    "nl eenentwintig komma vijf (before: refused)": temperature(
        "nl", "eenentwintig komma vijf", 21.5, "op 21,5°"
    ),
    "pt vinte e dois (before: refused)": temperature(
        "pt", "vinte e dois", 22, "definir a temperatura de Hvac para 22°"
    ),
    "pt vinte e um vírgula cinco (before: refused)": temperature(
        "pt", "vinte e um vírgula cinco", 21.5, "para 21,5°"
    ),
    "en twenty two degrees (before: refused)": temperature("en", "twenty two degrees", 22,
                                                           "to 22°"),
    "en 22 with a degree sign (before: refused)": temperature("en", "22°", 22, "to 22°"),
    "de 22 Grad (before: refused)": temperature("de", "22 Grad", 22, "auf 22°"),
    "fr vingt-deux degrés (before: refused)": temperature("fr", "vingt-deux degrés", 22, "à 22°"),
    "it ventidue gradi (before: refused)": temperature("it", "ventidue gradi", 22, "a 22°"),
    "pt vinte e dois graus (before: refused)": temperature("pt", "vinte e dois graus", 22,
                                                           "para 22°"),
    "en degrees fahrenheit in a celsius home": temperature("en", "seventy degrees fahrenheit",
                                                           21, NOT_SET),
    "en digits as text": temperature("en", "22", 22, "to 22°"),
    "de digits with a comma": temperature("de", "22,5", 22.5, "auf 22,5°"),
    "en forty is out of range (before: no number)": temperature("en", "forty", 21, "not 40 °C"),
    # "warmer": written as a change, it is no temperature; refused, nothing set.
    "en plus one for warmer": temperature("en", "+1", 21, "The range is 7 to 35"),
    "en a bit warmer": temperature("en", "a bit warmer", 21, NOT_SET),
    "fr plus chaud": temperature("fr", "plus chaud", 21, "Je n'ai pas pu"),
    # 3. "dim the lights by ten percent", "a bit brighter": a step.
    "en dim by ten": dimmed("en", -10, 102, LOWERED),
    "en dim by minus ten in words (before: refused)": dimmed("en", "minus ten", 102, LOWERED),
    "en brighter by twenty in words (before: refused)": dimmed("en", "twenty", 178, "by 20%"),
    "de heller um zehn (before: refused)": dimmed("de", "zehn", 153, "Kitchen Lights"),
    "fr moins dix (before: refused)": dimmed("fr", "moins dix", 102, "Kitchen Lights"),
    "es menos diez (before: refused)": dimmed("es", "menos diez", 102, "Kitchen Lights"),
    "it meno dieci (before: refused)": dimmed("it", "meno dieci", 102, "Kitchen Lights"),
    # 4. Collective: one call per light, a list, an area or "all" for the id.
    "en one call per light": Row(
        "en",
        (call("light", action="turn_on", entity_id=KITCHEN),
         call("light", action="turn_on", entity_id=BED)),
        {(KITCHEN, STATE): "on", (BED, STATE): "on"},
        "Turned on Kitchen Lights",
    ),
    "de both lights in a list": Row(
        "de",
        (call("light", action="turn_on", entity_id=[KITCHEN, BED]),),
        {(KITCHEN, STATE): "on", (BED, STATE): "on"},
        "Kitchen Lights",
    ),
    "en the area for the id": Row(
        "en", (call("light", action="turn_on", entity_id="Kitchen"),),
        {(KITCHEN, STATE): "off"}, NOT_ON,
    ),
    "fr all for the id": Row(
        "fr", (call("light", action="turn_on", entity_id="all"),),
        {(KITCHEN, STATE): "off", (BED, STATE): "off"}, "Je n'ai pas pu",
    ),
    "en all but the bedroom": Row(
        "en",
        (call("light", action="turn_on", entity_id=[KITCHEN, BED]),
         call("light", action="turn_off", entity_id=BED)),
        {(KITCHEN, STATE): "on", (BED, STATE): "off"},
        "Kitchen Lights",
    ),
    "nl switch on": Row(
        "nl", (call("switch", action="turn_on", entity_id=AC),), {(AC, STATE): "on"}, "AC"
    ),
    "pt switch by name": Row(
        "pt", (call("switch", action="turn_on", entity_id="ac"),), {(AC, STATE): "off"},
        "Não consegui",
    ),
    # 5. Questions: a read changes nothing; a name for the id is told it is none.
    "en is the front door locked": Row(
        "en", (call("get_state", entity_id=FRONT_DOOR),), {(FRONT_DOOR, STATE): "locked"}, ""
    ),
    "en the door by its name": Row(
        "en", (call("get_state", entity_id="front door"),), {(FRONT_DOOR, STATE): "locked"},
        "I could not read the state of Front Door",
    ),
    "de which lights are on": Row(
        "de", (call("get_state", entity_id=KITCHEN), call("get_state", entity_id=BED)),
        {(KITCHEN, STATE): "off", (BED, STATE): "off"}, "",
    ),
    # 6. A lock, however it is said, is asked about first.
    "en unlock the front door": Row(
        "en", (call("lock", action="unlock", entity_id=FRONT_DOOR),),
        {(FRONT_DOOR, STATE): "locked"}, "Unlock Front Door? Say yes to confirm.",
    ),
    "es unlock in a list": Row(
        "es", (call("lock", action="unlock", entity_id=[FRONT_DOOR]),),
        {(FRONT_DOOR, STATE): "locked"}, "Front Door",
    ),
    "de a lock's code in words": Row(
        "de", (call("lock", action="unlock", entity_id=FRONT_DOOR, code="eins zwei drei vier"),),
        {(FRONT_DOOR, STATE): "locked"}, "Front Door",
    ),
}  # fmt: skip


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


@pytest.fixture
async def house(hass: HomeAssistant, agent: Agent) -> None:
    """The demo home with its lights off, its door locked and the HVAC at 21 °C."""
    await hass.services.async_call("light", "turn_off", {"entity_id": "all"}, blocking=True)
    await hass.services.async_call("lock", "lock", {"entity_id": FRONT_DOOR}, blocking=True)


def read(hass: HomeAssistant, entity_id: str, what: str) -> Any:
    current = hass.states.get(entity_id)
    assert current is not None, entity_id
    return current.state if what == STATE else current.attributes.get(what)


def snapshot(hass: HomeAssistant) -> dict[str, Any]:
    return {entity_id: hass.states.get(entity_id) for entity_id in WATCHED}


@pytest.mark.parametrize("row", list(ROWS.values()), ids=list(ROWS))
async def test_what_a_speaker_hears(hass: HomeAssistant, house: None, talk: Talk, row: Row) -> None:
    """The state each named entity reads after, a part of the sentence, no other change."""
    before = snapshot(hass)

    result = await talk.say("…", row.language, "".join(row.writes))

    said = speech(result)
    assert row.said in said
    assert "Traceback" not in said
    assert {what: read(hass, *what) for what in row.reads} == row.reads
    named = {entity_id for entity_id, _ in row.reads}
    assert not {e for e, s in snapshot(hass).items() if s != before[e] and e not in named}
