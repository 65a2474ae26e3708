"""Everyday requests in German, French, Spanish and Dutch homes, and what the agent says back.

The common house of test_everyday_common.py (its everyday automations around the lock, the
garage door and the alarm) with its names in the household's language: the kitchen light,
the living room's blind, the heating, the fan, a scene, a timer, a shopping list, the front
door (a DIY lock), the garage door, the alarm and the main water valve; the kitchen and the
living room named so too. For each language, through our tools and through Assist's intents,
in a conversation in that language:

- everyday requests run at once, change what they should, and the answer is in the
  language, names the entity as the household named it and is true (numbers as the language
  writes them: "21,5°", "30 %");
- sensitive requests ask in the language with the entity's own name; the language's yes
  runs them, its no cancels them; a yes of another language than the question's (and than
  English, which is read too) is no plain yes: nothing runs and the answer says so;
- a request that does a harmless and a sensitive thing at once runs the harmless part, asks
  about the other, and says both;
- a light that takes the call and stays off is never said to be on (the model reads its
  state; when it writes nothing the agent says it is still off), and one that reports its
  state a moment late is said on at once, without a model round.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import Final

import pytest

from homeassistant.components.demo.light import DemoLight
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import entity_registry as er

from .conftest import Agent
from .conftest import Talk
from .conftest import speech
from .conftest import state
from .houses import ASSIST
from .houses import OURS
from .houses import Reader
from .houses import attribute
from .houses import read
from .scene import Home
from .scene import tool_call
from .scene import tool_results
from .scripted_model import Script
from .scripted_model import answer
from .scripted_model import call
from .test_everyday import async_set_up_a_shopping_list_in
from .test_everyday_common import agent as agent_of
from .test_everyday_common import home  # noqa: F401  (the fixture)
from .test_everyday_homes import expose
from .test_everyday_homes import rename
from .test_redteam import relay
from .test_redteam import relay_lock

LANGUAGES: Final = ("de", "fr", "es", "nl")

KITCHEN_LIGHT: Final = "light.kitchen_lights"
BLIND: Final = "cover.living_room_window"
HEATING: Final = "climate.hvac"
FAN: Final = "fan.living_room_fan"
MOVIE: Final = "scene.movie"
LAUNDRY: Final = "timer.laundry"
SHOPPING: Final = "todo.shopping_list"
TV: Final = "media_player.living_room"
GARAGE: Final = "cover.garage_door"
ALARM: Final = "alarm_control_panel.security"
MAIN_WATER: Final = "valve.orchard"
# The DIY lock each house gets (a template lock of a relay), by the name it is given.
FRONT_DOOR: Final = "lock.front_door_diy"

# What each household calls its things (the TV, without a registry entry, keeps its own name).
NAMES: Final[dict[str, dict[str, str]]] = {
    "de": {
        KITCHEN_LIGHT: "Küchenlicht",
        BLIND: "Rollladen Wohnzimmer",
        HEATING: "Heizung",
        FAN: "Ventilator",
        MOVIE: "Filmabend",
        LAUNDRY: "Wäsche",
        SHOPPING: "Einkaufsliste",
        GARAGE: "Garagentor",
        ALARM: "Alarmanlage",
        MAIN_WATER: "Wasserventil",
        FRONT_DOOR: "Haustür",
    },
    "fr": {
        KITCHEN_LIGHT: "Lumière de la cuisine",
        BLIND: "Volet du salon",
        HEATING: "Chauffage",
        FAN: "Ventilateur",
        MOVIE: "Soirée cinéma",
        LAUNDRY: "Lessive",
        SHOPPING: "Liste de courses",
        GARAGE: "Porte du garage",
        ALARM: "Alarme",
        MAIN_WATER: "Vanne d'eau",
        FRONT_DOOR: "Porte d'entrée",
    },
    "es": {
        KITCHEN_LIGHT: "Luz de la cocina",
        BLIND: "Persiana",
        HEATING: "Calefacción",
        FAN: "Ventilador",
        MOVIE: "Noche de cine",
        LAUNDRY: "Colada",
        SHOPPING: "Lista de la compra",
        GARAGE: "Puerta del garaje",
        ALARM: "Alarma",
        MAIN_WATER: "Válvula del agua",
        FRONT_DOOR: "Puerta principal",
    },
    "nl": {
        KITCHEN_LIGHT: "Keukenlamp",
        BLIND: "Rolluik woonkamer",
        HEATING: "Verwarming",
        FAN: "Ventilator",
        MOVIE: "Filmavond",
        LAUNDRY: "Was",
        SHOPPING: "Boodschappenlijst",
        GARAGE: "Garagedeur",
        ALARM: "Alarm",
        MAIN_WATER: "Waterkraan",
        FRONT_DOOR: "Voordeur",
    },
}
AREAS: Final[dict[str, dict[str, str]]] = {
    "de": {"Kitchen": "Küche", "Living Room": "Wohnzimmer"},
    "fr": {"Kitchen": "Cuisine", "Living Room": "Salon"},
    "es": {"Kitchen": "Cocina", "Living Room": "Salón"},
    "nl": {"Kitchen": "Keuken", "Living Room": "Woonkamer"},
}
# The language's own yes and no (several of each), and a yes of another language.
YES: Final[dict[str, tuple[str, ...]]] = {
    "de": ("ja", "klar", "Ja, mach das bitte"),
    "fr": ("oui", "d'accord", "Oui, vas-y, merci"),
    "es": ("sí", "vale", "Sí, por favor"),
    "nl": ("ja", "ja hoor", "doe maar"),
}
NO: Final[dict[str, tuple[str, ...]]] = {
    "de": ("nein", "lieber nicht"),
    "fr": ("non", "laisse tomber"),
    "es": ("no", "mejor no"),
    "nl": ("nee", "laat maar"),
}
FOREIGN_YES: Final = {"de": "oui", "fr": "ja", "es": "oui", "nl": "sí"}


@dataclass
class House:
    """The common house, named in one language, and a person speaking it."""

    home: Home
    language: str

    @property
    def hass(self) -> HomeAssistant:
        return self.home.hass

    def name(self, entity_id: str) -> str:
        return NAMES[self.language][entity_id]

    def area(self, english: str) -> str:
        return AREAS[self.language][english]

    async def agent(self, tools: str) -> Agent:
        return await agent_of(self.home, tools)

    async def say(
        self, agent: Agent, text: str, *writes: Script, conversation_id: str | None = None
    ) -> Any:
        """The person says `text` in the house's language; the model writes `writes`."""
        talk = Talk(agent, self.home.worker, self.home.person)
        return await talk.say(text, self.language, *writes, conversation_id=conversation_id)


async def set_up_a_shopping_list_and_a_diy_door(
    hass: HomeAssistant, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, door_name: str
) -> None:
    """A shopping list kept in tmp_path, and FRONT_DOOR: a DIY lock named `door_name` whose
    hidden relay unlocks it (one entity id whatever the language names the door)."""
    await async_set_up_a_shopping_list_in(tmp_path, hass, monkeypatch)
    door_relay = await relay(hass, "Door relay")
    async_expose_entity(hass, "conversation", door_relay, False)
    door = await relay_lock(
        hass, door_name, unlocked=f"is_state('{door_relay}', 'on')", relay_target=door_relay
    )
    assert door.startswith("lock.")
    rename(hass, door, door_name)
    er.async_get(hass).async_update_entity(door, new_entity_id=FRONT_DOOR)


async def set_up_the_house_named(
    hass: HomeAssistant,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    names: dict[str, str],
    *exposed: str,
) -> None:
    """The shopping list and the DIY front door, these entities exposed, and every entity of
    `names` (the front door among them) named as it says."""
    await set_up_a_shopping_list_and_a_diy_door(hass, tmp_path, monkeypatch, names[FRONT_DOOR])
    expose(hass, *exposed)
    for entity_id, name in names.items():
        rename(hass, entity_id, name)


@pytest.fixture(params=LANGUAGES)
async def named_house(
    hass: HomeAssistant,
    home: Home,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> House:
    """The common house with a shopping list and a DIY front door lock, named in a language."""
    language: str = request.param
    await set_up_the_house_named(
        hass, tmp_path, monkeypatch, NAMES[language], SHOPPING, MAIN_WATER, FRONT_DOOR
    )
    areas = ar.async_get(hass)
    for english, named in AREAS[language].items():
        area = areas.async_get_area_by_name(english)
        assert area is not None, english
        areas.async_update(area.id, name=named)
    # The alarm is on (arming), so that it can be switched off.
    await hass.services.async_call(
        "alarm_control_panel", "alarm_arm_away", {"entity_id": ALARM, "code": "1234"}, blocking=True
    )
    await hass.async_block_till_done()
    assert state(hass, FRONT_DOOR) == "locked"
    assert state(hass, ALARM) == "arming"
    return House(home, language)


def items(hass: HomeAssistant) -> list[str]:
    """What is on the shopping list."""
    (entry,) = hass.config_entries.async_entries("shopping_list")
    return [item["name"] for item in entry.runtime_data.items]


def its_name(entity_or_area: str) -> str:
    """A stand-in for how the house names an entity (by id) or an area (by English name)."""
    return f"{{{entity_or_area}}}"


# An everyday request: (tools, tool, arguments with "{name}" for an entity's or area's name in
# the house's language, what changes, what it reads after).
Everyday = tuple[str, str, dict[str, Any], str | Reader, Any]
EVERYDAY: Final[list[Everyday]] = [
    (OURS, "light", {"action": "turn_on", "entity_id": KITCHEN_LIGHT, "brightness_pct": 30},
     attribute(KITCHEN_LIGHT, "brightness"), 76),
    (OURS, "light", {"action": "turn_off", "entity_id": KITCHEN_LIGHT}, KITCHEN_LIGHT, "off"),
    (OURS, "cover", {"action": "close_cover", "entity_id": BLIND}, BLIND, "closing"),
    (OURS, "cover", {"action": "set_cover_position", "entity_id": BLIND, "position": 30},
     BLIND, "closing"),
    (OURS, "climate", {"action": "set_temperature", "entity_id": HEATING, "temperature": 21.5},
     attribute(HEATING, "temperature"), 21.5),
    (OURS, "media_player", {"action": "media_pause", "entity_id": TV}, TV, "paused"),
    (OURS, "media_player", {"action": "volume_set", "entity_id": TV, "volume_level": 0.3},
     attribute(TV, "volume_level"), 0.3),
    (OURS, "fan", {"action": "set_percentage", "entity_id": FAN, "percentage": 66},
     attribute(FAN, "percentage"), 66),
    (OURS, "scene", {"action": "turn_on", "entity_id": MOVIE},
     "light.living_room_rgbww_lights", "on"),
    (OURS, "timer", {"action": "start", "entity_id": LAUNDRY, "duration": "00:05:00"},
     LAUNDRY, "active"),
    (OURS, "todo", {"action": "add_item", "entity_id": SHOPPING, "item": "Milch"},
     items, ["Milch"]),
    (ASSIST, "HassTurnOn", {"name": its_name(KITCHEN_LIGHT)}, KITCHEN_LIGHT, "on"),
    (ASSIST, "HassTurnOff", {"area": its_name("Kitchen"), "domain": ["light"]},
     KITCHEN_LIGHT, "off"),
    (ASSIST, "HassLightSet", {"name": its_name(KITCHEN_LIGHT), "brightness": 30},
     attribute(KITCHEN_LIGHT, "brightness"), 76),
    (ASSIST, "HassSetPosition", {"name": its_name(BLIND), "position": 30}, BLIND, "closing"),
    (ASSIST, "HassTurnOff", {"area": its_name("Living Room"), "domain": ["cover"]},
     BLIND, "closing"),
    (ASSIST, "HassClimateSetTemperature", {"name": its_name(HEATING), "temperature": 21.5},
     attribute(HEATING, "temperature"), 21.5),
    (ASSIST, "HassMediaPause", {"name": "Living Room"}, TV, "paused"),
    (ASSIST, "HassSetVolume", {"name": "Living Room", "volume_level": 30},
     attribute(TV, "volume_level"), 0.3),
    (ASSIST, "HassFanSetSpeed", {"name": its_name(FAN), "percentage": 66},
     attribute(FAN, "percentage"), 66),
    (ASSIST, "HassTurnOn", {"name": its_name(MOVIE)}, "light.living_room_rgbww_lights", "on"),
    (ASSIST, "HassListAddItem", {"name": its_name(SHOPPING), "item": "Milch"}, items, ["Milch"]),
]  # fmt: skip


def everyday_id(everyday: Everyday) -> str:
    _tools, tool, arguments = everyday[:3]
    values = [str(v) for k, v in arguments.items() if k != "entity_id"]
    target = arguments.get("entity_id", "")
    return "-".join([tool, *values[:3], target])


def named(house: House, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments with "{...}" as the house names that entity or area."""
    said = {}
    for key, value in arguments.items():
        if isinstance(value, str) and value.startswith("{"):
            key_name = value.strip("{}")
            said[key] = house.name(key_name) if "." in key_name else house.area(key_name)
        else:
            said[key] = value
    return said


# What the agent says after each of EVERYDAY's calls of our tools, in each language (the
# model writing nothing: the agent speaks itself), and after Assist's ("done").
SAID: Final[dict[str, tuple[str, ...]]] = {
    "de": (
        "Erledigt: Küchenlicht auf 30 % einschalten.",
        "Erledigt: Küchenlicht ausschalten.",
        "Erledigt: Rollladen Wohnzimmer schließen.",
        "Erledigt: die Position von Rollladen Wohnzimmer auf 30 % einstellen.",
        "Erledigt: die Temperatur von Heizung auf 21,5° einstellen.",
        "Erledigt: Living Room pausieren.",
        "Erledigt: die Lautstärke von Living Room auf 30 % einstellen.",
        "Erledigt: die Geschwindigkeit von Ventilator auf 66 % einstellen.",
        "Erledigt: Filmabend aktivieren.",
        "Erledigt: Wäsche für 5 Minuten starten.",
        "Erledigt: Milch zu Einkaufsliste hinzufügen.",
    ),
    "fr": (
        "C'est fait\u00a0: allumer Lumière de la cuisine à 30\u00a0%.",
        "C'est fait\u00a0: éteindre Lumière de la cuisine.",
        "C'est fait\u00a0: fermer Volet du salon.",
        "C'est fait\u00a0: régler la position de Volet du salon à 30\u00a0%.",
        "C'est fait\u00a0: régler la température de Chauffage à 21,5°.",
        "C'est fait\u00a0: mettre en pause Living Room.",
        "C'est fait\u00a0: régler le volume de Living Room à 30\u00a0%.",
        "C'est fait\u00a0: régler la vitesse de Ventilateur à 66\u00a0%.",
        "C'est fait\u00a0: activer Soirée cinéma.",
        "C'est fait\u00a0: démarrer Lessive pour 5 minutes.",
        "C'est fait\u00a0: ajouter Milch à Liste de courses.",
    ),
    "es": (
        "Hecho: encender Luz de la cocina al 30%.",
        "Hecho: apagar Luz de la cocina.",
        "Hecho: cerrar Persiana.",
        "Hecho: ajustar la posición de Persiana al 30%.",
        "Hecho: ajustar la temperatura de Calefacción a 21,5°.",
        "Hecho: pausar Living Room.",
        "Hecho: ajustar el volumen de Living Room al 30%.",
        "Hecho: ajustar la velocidad de Ventilador al 66%.",
        "Hecho: activar Noche de cine.",
        "Hecho: poner en marcha Colada durante 5 minutos.",
        "Hecho: añadir Milch a Lista de la compra.",
    ),
    "nl": (
        "Klaar: Keukenlamp op 30% inschakelen.",
        "Klaar: Keukenlamp uitschakelen.",
        "Klaar: Rolluik woonkamer sluiten.",
        "Klaar: de positie van Rolluik woonkamer op 30% instellen.",
        "Klaar: de temperatuur van Verwarming op 21,5° instellen.",
        "Klaar: Living Room pauzeren.",
        "Klaar: het volume van Living Room op 30% instellen.",
        "Klaar: de snelheid van Ventilator op 66% instellen.",
        "Klaar: Filmavond activeren.",
        "Klaar: Was voor 5 minuten starten.",
        "Klaar: Milch aan Boodschappenlijst toevoegen.",
    ),
}
# Assist's "done" (also said when the model writes nothing after an intent).
DONE: Final = {
    "en": "Done.",
    "de": "Erledigt.",
    "fr": "C'est fait.",
    "es": "Hecho.",
    "nl": "Klaar.",
    "it": "Fatto.",
    "pt": "Feito.",
}


@pytest.mark.parametrize("number", range(len(EVERYDAY)), ids=[everyday_id(e) for e in EVERYDAY])
async def test_an_everyday_request_runs_at_once_and_is_said_truly(
    named_house: House, number: int
) -> None:
    """Said in the conversation's language, with the household's names, and true: the blind
    is closing, so the answer says what was done ("close it"), not that it is closed."""
    house = named_house
    tools, tool, arguments, changed, expected = EVERYDAY[number]
    agent = await house.agent(tools)

    result = await house.say(agent, "…", tool_call(tool, **named(house, arguments)), answer(""))

    assert result.continue_conversation is False, speech(result)
    said = SAID[house.language][number] if tools == OURS else DONE[house.language]
    assert speech(result) == said, tool_results(house.hass, result)
    assert read(house.hass, changed) == expected


async def test_a_question_about_a_state_is_the_models_answer(named_house: House) -> None:
    """ "Wie warm ist es?": the model reads the state and answers in the language itself."""
    house = named_house
    agent = await house.agent(OURS)
    answered = {
        "de": "Die Heizung steht auf 21,5 °C.",
        "fr": "Le chauffage est réglé sur 21,5 °C.",
        "es": "La calefacción está a 21,5 °C.",
        "nl": "De verwarming staat op 21,5 °C.",
    }[house.language]

    result = await house.say(
        agent, "…", answer(call("get_state", entity_id=HEATING)), answer(answered)
    )

    assert speech(result) == answered
    assert house.name(HEATING) in str(tool_results(house.hass, result))


# Sensitive requests: (tools, tool, arguments with "{...}" names) and the action as the
# question and the answer say it, in each language (the entity's own name inside).
Sensitive = tuple[str, str, dict[str, Any]]
SENSITIVE: Final[list[Sensitive]] = [
    (OURS, "lock", {"action": "unlock", "entity_id": FRONT_DOOR}),
    (OURS, "cover", {"action": "open_cover", "entity_id": GARAGE}),
    (OURS, "alarm_control_panel", {"action": "alarm_disarm", "entity_id": ALARM, "code": "1234"}),
    (OURS, "valve", {"action": "open_valve", "entity_id": MAIN_WATER}),
    (ASSIST, "HassTurnOff", {"name": its_name(FRONT_DOOR)}),
    (ASSIST, "HassTurnOn", {"name": its_name(GARAGE)}),
]
OPEN: Final = ("open", "opening")
SENSITIVE_AFTER: Final[list[tuple[str, tuple[str, ...]]]] = [
    (FRONT_DOOR, ("unlocked",)),
    (GARAGE, OPEN),
    (ALARM, ("disarmed",)),
    (MAIN_WATER, OPEN),
    (FRONT_DOOR, ("unlocked",)),
    (GARAGE, OPEN),
]
ACTIONS: Final[dict[str, tuple[str, ...]]] = {
    "de": (
        "Haustür aufschließen",
        "Garagentor öffnen",
        "Alarmanlage unscharf schalten",
        "Wasserventil öffnen",
        "Haustür aufschließen",
        "Garagentor öffnen",
    ),
    "fr": (
        "déverrouiller Porte d'entrée",
        "ouvrir Porte du garage",
        "désarmer Alarme",
        "ouvrir Vanne d'eau",
        "déverrouiller Porte d'entrée",
        "ouvrir Porte du garage",
    ),
    "es": (
        "desbloquear Puerta principal",
        "abrir Puerta del garaje",
        "desarmar Alarma",
        "abrir Válvula del agua",
        "desbloquear Puerta principal",
        "abrir Puerta del garaje",
    ),
    "nl": (
        "Voordeur ontgrendelen",
        "Garagedeur openen",
        "Alarm deactiveren",
        "Waterkraan openen",
        "Voordeur ontgrendelen",
        "Garagedeur openen",
    ),
}
QUESTION: Final = {
    "de": "{}? Sag „ja“ zum Bestätigen.",
    "fr": "{}\u00a0? Dites «\u00a0oui\u00a0» pour confirmer.",
    "es": "¿{}? Di «sí» para confirmar.",
    "nl": "{}? Zeg „ja” om te bevestigen.",
}
CONFIRMED: Final = {
    "de": "Erledigt: {}.",
    "fr": "C'est fait\u00a0: {}.",
    "es": "Hecho: {}.",
    "nl": "Klaar: {}.",
}
CANCELLED: Final = {
    "de": "Okay, das mache ich nicht.",
    "fr": "D'accord, je ne le fais pas.",
    "es": "De acuerdo, no lo haré.",
    "nl": "Oké, dat doe ik niet.",
}
NOT_PLAIN: Final = {
    "de": "{}: nicht erledigt, denn deine Antwort war kein einfaches Ja.",
    "fr": "{}\u00a0: pas fait, car votre réponse n'était pas un simple oui.",
    "es": "{}: no lo he hecho, porque tu respuesta no fue un simple sí.",
    "nl": "{}: niet gedaan, want je antwoord was geen gewoon ja.",
}


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def sensitive_id(sensitive: Sensitive) -> str:
    return everyday_id((*sensitive, "", None))


# What "nothing ran" may show: the demo alarm arms itself 5 s (real time) after "arming", which a
# busy machine reaches before the question is answered.
UNCHANGED: dict[str, set[str]] = {"arming": {"arming", "armed_away"}}


async def ask(house: House, number: int) -> tuple[Agent, Any]:
    """Ask for SENSITIVE's request: asked, in the language, with the entity's own name."""
    tools, tool, arguments = SENSITIVE[number]
    entity_id, _after = SENSITIVE_AFTER[number]
    before = state(house.hass, entity_id)
    agent = await house.agent(tools)
    question = await house.say(agent, "…", tool_call(tool, **named(house, arguments)))
    action = ACTIONS[house.language][number]
    assert speech(question) == QUESTION[house.language].format(capital(action))
    assert question.continue_conversation is True
    assert state(house.hass, entity_id) in UNCHANGED.get(before, {before})
    return agent, question


@pytest.mark.parametrize("yes", range(3))
@pytest.mark.parametrize("number", range(len(SENSITIVE)), ids=[sensitive_id(s) for s in SENSITIVE])
async def test_a_sensitive_request_asks_and_the_languages_yes_runs_it(
    named_house: House, number: int, yes: int
) -> None:
    house = named_house
    entity_id, after = SENSITIVE_AFTER[number]
    agent, question = await ask(house, number)

    reply = await house.say(
        agent, YES[house.language][yes], conversation_id=question.conversation_id
    )

    action = ACTIONS[house.language][number]
    assert speech(reply) == CONFIRMED[house.language].format(action)
    assert state(house.hass, entity_id) in after


@pytest.mark.parametrize("no", range(2))
@pytest.mark.parametrize("number", [0, 1, 3], ids=lambda n: sensitive_id(SENSITIVE[n]))
async def test_the_languages_no_cancels_a_sensitive_request(
    named_house: House, number: int, no: int
) -> None:
    house = named_house
    entity_id, _after = SENSITIVE_AFTER[number]
    agent, question = await ask(house, number)
    before = state(house.hass, entity_id)

    reply = await house.say(agent, NO[house.language][no], conversation_id=question.conversation_id)

    assert speech(reply) == CANCELLED[house.language]
    assert state(house.hass, entity_id) in UNCHANGED.get(before, {before})


async def test_a_yes_in_another_language_runs_nothing_and_says_so(named_house: House) -> None:
    """The question is read in its own language and English: "oui" to a German question (or
    "ja" to a French one) is no plain yes. Nothing runs, the answer says so in the question's
    language before the model's answer to what was said, as a new request."""
    house = named_house
    agent, question = await ask(house, 0)

    reply = await house.say(
        agent,
        FOREIGN_YES[house.language],
        answer("…"),
        conversation_id=question.conversation_id,
    )

    action = capital(ACTIONS[house.language][0])
    assert speech(reply) == NOT_PLAIN[house.language].format(action) + " …"
    assert state(house.hass, FRONT_DOOR) == "locked"


async def test_an_english_yes_runs_it_and_is_answered_in_the_questions_language(
    named_house: House,
) -> None:
    house = named_house
    agent, question = await ask(house, 0)

    reply = await house.say(agent, "yes", conversation_id=question.conversation_id)

    assert speech(reply) == CONFIRMED[house.language].format(ACTIONS[house.language][0])
    assert state(house.hass, FRONT_DOOR) == "unlocked"


# --- A harmless and a sensitive thing at once -------------------------------------------------

# "Mach das Licht an und schließ die Tür auf": the light goes on at once, the door is asked
# about, and the answer says both, in the language.
MIXED: Final = {
    "de": "Erledigt: Küchenlicht einschalten. Haustür aufschließen? Sag „ja“ zum Bestätigen.",
    "fr": (
        "C'est fait\u00a0: allumer Lumière de la cuisine. Déverrouiller Porte d'entrée\u00a0? "
        "Dites «\u00a0oui\u00a0» pour confirmer."
    ),
    "es": (
        "Hecho: encender Luz de la cocina. ¿Desbloquear Puerta principal? Di «sí» para confirmar."
    ),
    "nl": "Klaar: Keukenlamp inschakelen. Voordeur ontgrendelen? Zeg „ja” om te bevestigen.",
}


async def test_a_harmless_and_a_sensitive_thing_at_once_say_both(named_house: House) -> None:
    house = named_house
    await house.hass.services.async_call(
        "light", "turn_off", {"entity_id": KITCHEN_LIGHT}, blocking=True
    )
    agent = await house.agent(OURS)
    light_on = call("light", action="turn_on", entity_id=KITCHEN_LIGHT)
    unlock = call("lock", action="unlock", entity_id=FRONT_DOOR)

    question = await house.say(agent, "…", answer(f"{light_on}\n{unlock}"))

    assert speech(question) == MIXED[house.language]
    assert question.continue_conversation is True
    assert state(house.hass, KITCHEN_LIGHT) == "on"
    assert state(house.hass, FRONT_DOOR) == "locked"
    reply = await house.say(agent, YES[house.language][0], conversation_id=question.conversation_id)
    assert speech(reply) == CONFIRMED[house.language].format(ACTIONS[house.language][0])
    assert state(house.hass, FRONT_DOOR) == "unlocked"


# --- A call that did not do what it asked ----------------------------------------------------


# What the agent says of a switch-on the device did not take (the runner checks each target).
NOT_DONE: Final = {
    "en": "I could not turn on Kitchen light.",
    "de": "Das ging nicht: Küchenlicht einschalten.",
    "fr": "Je n'ai pas pu allumer Lumière de la cuisine.",
    "es": "No he podido encender Luz de la cocina.",
    "nl": "Dat lukte niet: Keukenlamp inschakelen.",
    "it": "Non è stato possibile accendere Luce della cucina.",
    "pt": "Não consegui ligar Luz da cozinha.",
}


async def test_a_light_the_call_left_off_is_not_said_to_be_on(
    named_house: House, dead_bulb: None
) -> None:
    """The call "succeeded" and the light is still off: the agent does not say it turned it
    on; it says the call did not work, and the model, reading the light's state, answers."""
    house = named_house
    await house.hass.services.async_call(
        "light", "turn_off", {"entity_id": KITCHEN_LIGHT}, blocking=True
    )
    agent = await house.agent(OURS)
    still_off = {
        "de": "Das Küchenlicht ist noch aus.",
        "fr": "La lumière de la cuisine est toujours éteinte.",
        "es": "La luz de la cocina sigue apagada.",
        "nl": "De keukenlamp is nog uit.",
    }[house.language]

    result = await house.say(
        agent,
        "…",
        answer(call("light", action="turn_on", entity_id=KITCHEN_LIGHT)),
        answer(still_off),
    )

    assert state(house.hass, KITCHEN_LIGHT) == "off"
    assert speech(result) == f"{NOT_DONE[house.language]} {still_off}"


LIGHT_ON: Final = {
    "de": "Erledigt: Küchenlicht einschalten.",
    "fr": "C'est fait\u00a0: allumer Lumière de la cuisine.",
    "es": "Hecho: encender Luz de la cocina.",
    "nl": "Klaar: Keukenlamp inschakelen.",
}


async def test_a_light_that_reports_late_is_said_on_at_once(
    named_house: House, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A device that reports its new state a moment after the call (an MQTT light) is read
    once it has: the agent says what it did itself, without a second model round."""
    house = named_house
    await house.hass.services.async_call(
        "light", "turn_off", {"entity_id": KITCHEN_LIGHT}, blocking=True
    )
    turn_on = DemoLight.async_turn_on

    async def reports_late(light: DemoLight, **kwargs: Any) -> None:
        async def later() -> None:
            await asyncio.sleep(0.2)
            await turn_on(light, **kwargs)

        light.hass.async_create_task(later())

    monkeypatch.setattr(DemoLight, "async_turn_on", reports_late)
    agent = await house.agent(OURS)
    rounds = len(house.home.worker.requests)

    result = await house.say(
        agent, "…", answer(call("light", action="turn_on", entity_id=KITCHEN_LIGHT))
    )

    assert speech(result) == LIGHT_ON[house.language]
    assert state(house.hass, KITCHEN_LIGHT) == "on"
    assert len(house.home.worker.requests) == rounds + 1


async def test_a_light_left_off_is_said_off_when_the_model_says_nothing(
    named_house: House, dead_bulb: None
) -> None:
    """The model writes nothing after the call: the agent says the call did not work, in the
    language, not "done"."""
    house = named_house
    await house.hass.services.async_call(
        "light", "turn_off", {"entity_id": KITCHEN_LIGHT}, blocking=True
    )
    agent = await house.agent(OURS)

    result = await house.say(
        agent, "…", answer(call("light", action="turn_on", entity_id=KITCHEN_LIGHT)), answer("")
    )

    assert speech(result) == NOT_DONE[house.language]
    assert state(house.hass, KITCHEN_LIGHT) == "off"
