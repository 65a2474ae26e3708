"""Everyday requests through Home Assistant's Assist API, in the agent's seven languages.

The agent offers Assist's intents only (home tools off). What it does is the intents' own;
what it says itself is checked here: when the model writes nothing after a call, when a call
matched nothing or failed, when a call reaches something sensitive (the question, and the
answer after the yes). What a person hears is true, in their language, and names no intent,
slot, service or entity id; the chat log the next turn reads holds what was said.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_SENSITIVE_ENTITIES
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.intent import timers
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import floor_registry as fr
from homeassistant.helpers import intent
from homeassistant.setup import async_setup_component
from testing.turn import chat_log_of
from testing.turn import results_in

from .conftest import Agent
from .conftest import Talk
from .conftest import async_setup_agent
from .conftest import speech
from .conftest import state
from .scene import tool_call
from .scene import tool_calls
from .scripted_model import Script
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .test_everyday import ASSIST
from .test_everyday import everyday_home  # noqa: F401  (the fixture)
from .test_everyday_more import check_spoken

ACTION_DONE = intent.IntentResponseType.ACTION_DONE
QUERY_ANSWER = intent.IntentResponseType.QUERY_ANSWER
ERROR = intent.IntentResponseType.ERROR
BED = "light.bed_light"
KITCHEN = "light.kitchen_lights"
LIVING = "light.living_room_rgbww_lights"
GARAGE = "cover.garage_door"
YES = {"en": "yes", "de": "ja", "fr": "oui", "es": "sí", "it": "sì", "nl": "ja", "pt": "sim"}


@pytest.fixture
async def agent(
    hass: HomeAssistant,
    everyday_home: None,  # noqa: F811
    scripted_worker: ScriptedWorker,
) -> Agent:
    """Assist's tools on the everyday home; Kitchen and Living Room are on the Ground floor."""
    ground = fr.async_get(hass).async_create("Ground")
    areas = ar.async_get(hass)
    for name in ("Kitchen", "Living Room"):
        area = areas.async_get_area_by_name(name)
        assert area is not None
        areas.async_update(area.id, floor_id=ground.floor_id)
    return await async_setup_agent(hass, scripted_worker.info.path, **ASSIST)


# English words that say nothing in another language ("volume" and "position" are French,
# Italian and Dutch words too).
ENGLISH = re.compile(r"\b(?:turn|set|brightness|level|percentage|done|call|run)\b")


def check_said(said: str, language: str) -> None:
    """No entity id, markup or Python value; no intent name; no English in another language."""
    check_spoken(said, "en")
    assert "Hass" not in said, said
    if language != "en":
        assert not ENGLISH.search(said), said


def timer_device(hass: HomeAssistant) -> str:
    """A voice satellite that runs timers: Assist offers its timer intents then."""
    entry = MockConfigEntry(domain="test")
    entry.add_to_hass(hass)
    device = dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("test", "kitchen satellite")}
    )
    timers.async_register_timer_handler(hass, device.id, lambda *_args: None)
    return device.id


# Intents that work, with each kind of slot; the model answers in the person's language, and
# that answer is what they hear.
DONE: list[tuple[str, str, dict[str, Any], dict[str, str], str]] = [
    ("de", "HassTurnOn", {"name": "Bed Light"}, {BED: "on"}, "Das Licht ist an."),
    ("fr", "HassTurnOff", {"area": "Kitchen", "domain": ["light"]}, {KITCHEN: "off"}, "Éteint."),
    (
        "es",
        "HassTurnOff",
        {"floor": "Ground", "domain": ["light"]},
        {KITCHEN: "off", LIVING: "off"},
        "Luces apagadas.",
    ),
    ("nl", "HassTurnOff", {"name": "all", "domain": ["light"]}, {KITCHEN: "off"}, "Uit."),
    (
        "it",
        "HassTurnOff",
        {"area": "Living Room", "domain": ["cover"], "device_class": ["blind"]},
        {"cover.living_room_window": "closed|closing"},
        "Tapparelle chiuse.",
    ),
    ("pt", "HassLightSet", {"name": "Bed Light", "brightness": 30}, {BED: "on"}, "Feito."),
    ("de", "HassLightSet", {"name": "Bed Light", "color": "green"}, {BED: "on"}, "Grün."),
    ("fr", "HassLightSet", {"name": "Kitchen Lights", "temperature": 3000}, {KITCHEN: "on"}, "Ok."),
    (
        "nl",
        "HassClimateSetTemperature",
        {"name": "Hvac", "temperature": 21.5},
        {"climate.hvac": "cool"},
        "21,5 graden.",
    ),
    ("es", "HassFanSetSpeed", {"name": "Ceiling Fan", "percentage": 40}, {}, "Hecho."),
    ("it", "HassSetVolume", {"name": "Living Room", "volume_level": 20}, {}, "Volume al 20."),
    ("de", "HassMediaPause", {"name": "Kitchen"}, {"media_player.kitchen": "paused"}, "Pause."),
    ("pt", "HassMediaNext", {"name": "Kitchen"}, {"media_player.kitchen": "playing"}, "Próxima."),
    ("de", "HassListAddItem", {"name": "Shopping list", "item": "Milch"}, {}, "Milch steht drauf."),
    ("fr", "HassTurnOn", {"name": "Evening"}, {BED: "on"}, "Scène activée."),
]


@pytest.mark.parametrize(
    ("language", "tool", "arguments", "states", "said"),
    DONE,
    ids=[f"{case[0]}-{case[1]}-{'-'.join(case[2])}" for case in DONE],
)
async def test_an_intent_that_works_is_done_and_the_models_words_are_said(
    hass: HomeAssistant,
    talk: Talk,
    language: str,
    tool: str,
    arguments: dict[str, Any],
    states: dict[str, str],
    said: str,
) -> None:
    result = await talk.ask(language, tool_call(tool, **arguments), answer(said))

    assert speech(result) == said
    assert result.response.response_type is ACTION_DONE
    assert result.continue_conversation is False
    assert [r for r in results_in(chat_log_of(hass, result)) if "error" in r] == []
    for entity_id, wanted in states.items():
        assert state(hass, entity_id) in wanted.split("|"), entity_id


# The model wrote nothing after its calls: the agent says only what is true.
SILENT: list[tuple[str, Script, str, intent.IntentResponseType]] = [
    ("de", tool_call("HassTurnOn", name="Bed Light"), "Erledigt.", ACTION_DONE),
    ("nl", tool_call("GetLiveContext"), "Sorry, daar heb ik geen antwoord op.", QUERY_ANSWER),
    # How long is left on the timer? A question: no "Done".
    # As core's agent says the intent's answer (none is running).
    ("fr", tool_call("HassTimerStatus"), "Il n'y a aucun minuteur.", QUERY_ANSWER),
    ("es", tool_call("HassTimerStatus"), "No hay temporizadores.", QUERY_ANSWER),
    ("de", tool_call("HassStartTimer", minutes=5), "Erledigt.", ACTION_DONE),
]


@pytest.mark.parametrize(
    ("language", "writes", "said", "kind"), SILENT, ids=[f"{c[0]}: {c[2]}" for c in SILENT]
)
async def test_without_the_models_answer_the_agent_says_only_what_is_true(
    hass: HomeAssistant,
    talk: Talk,
    language: str,
    writes: Script,
    said: str,
    kind: intent.IntentResponseType,
) -> None:
    result = await talk.ask(language, writes, answer(""), device_id=timer_device(hass))

    assert speech(result) == said
    assert result.response.response_type is kind
    check_said(speech(result), language)


# Calls that matched nothing, or that Home Assistant's handler refused: said as the call, in
# the person's words, never as the intent's name, and never as "the model's call did not go
# through" when it is an ordinary request that did not work.
FAILED: list[tuple[str, Script, str]] = [
    ("de", tool_call("HassTurnOn", name="Attic"), "Das ging nicht: Attic einschalten."),
    (
        "de",
        tool_call("HassLightSet", name="Attic", brightness=50),
        "Das ging nicht: Attic auf 50 % einschalten.",
    ),
    (
        "fr",
        tool_call("HassClimateSetTemperature", name="Hvac", temperature=40),
        "Je n'ai pas pu régler la température de Hvac à 40°.",
    ),
    # Not exposed; the person's words named it: the hint says how to expose it.
    ("es", tool_call("HassTurnOn", name="Ceiling Lights"), "No he podido encender Ceiling Lights."),
    # An area that does not exist; a light that is in another area than the one named.
    ("nl", tool_call("HassTurnOn", area="Garage"), "Dat lukte niet: Garage inschakelen."),
    (
        "de",
        tool_call("HassTurnOff", name="Kitchen Lights", area="Living Room"),
        "Das ging nicht: Kitchen Lights ausschalten.",
    ),
    (
        "de",
        tool_call("HassListAddItem", name="Einkaufsliste", item="Milch"),
        "Das ging nicht: Milch zu Einkaufsliste hinzufügen.",
    ),
    (
        "pt",
        tool_call("HassListAddItem", name="Compras", item="pão"),
        "Não consegui adicionar pão a Compras.",
    ),
    (
        "de",
        tool_call("HassVacuumStart", name="Staubsauger"),
        "Das ging nicht: Staubsauger starten.",
    ),
    (
        "it",
        tool_call("HassSetVolume", name="Kitchen", volume_level=150),
        "Non è stato possibile impostare il volume di Kitchen al 150%.",
    ),
    (
        "en",
        tool_call("HassSetVolume", name="Kitchen", volume_level=150),
        "I could not set the volume of Kitchen to 150 %.",
    ),
    (
        "nl",
        tool_call("HassMediaUnpause", name="Attic Speaker"),
        "Dat lukte niet: Attic Speaker afspelen.",
    ),
    # A generic intent on covers reads as what it does to them.
    (
        "de",
        tool_call("HassTurnOn", name="Attic", domain=["cover"]),
        "Das ging nicht: Attic öffnen.",
    ),
    # HassTurnOn presses a button (OnOffIntentHandler): said as the press, not "turn on".
    (
        "en",
        tool_call("HassTurnOn", name="Doorbell", domain=["button"]),
        "I could not press Doorbell.",
    ),
    (
        "de",
        tool_call("HassTurnOn", name="Doorbell", domain=["button"]),
        "Das ging nicht: Doorbell drücken.",
    ),
]


@pytest.mark.parametrize(("language", "writes", "said"), FAILED, ids=[c[2] for c in FAILED])
async def test_an_intent_that_did_not_work_is_said_as_the_request_it_was(
    talk: Talk, language: str, writes: Script, said: str
) -> None:
    result = await talk.ask(language, writes, answer(""))

    assert speech(result) == said
    assert result.response.response_type is ERROR
    check_said(speech(result), language)


async def test_one_of_several_calls_failing_is_said_beside_the_models_words(
    hass: HomeAssistant, talk: Talk
) -> None:
    """Two calls, one works: the model's answer is said; without one, both are said truly."""
    two = tool_calls(("HassTurnOn", {"name": "Bed Light"}), ("HassLightSet", {"name": "Attic"}))
    result = await talk.ask("fr", two, answer(""))
    assert speech(result) == "C'est fait. Je n'ai pas pu allumer Attic."
    assert result.response.response_type is ACTION_DONE
    assert state(hass, BED) == "on"

    # Every call failed, and the model said so: the agent names them first.
    both = tool_calls(("HassTurnOn", {"name": "Attic"}), ("HassVacuumStart", {"name": "Robot"}))
    result = await talk.ask("es", both, answer("No los encuentro."))
    assert (
        speech(result) == "No he podido encender Attic y poner en marcha Robot. No los encuentro."
    )
    assert result.response.response_type is ERROR


async def test_the_next_turn_reads_what_was_said_about_a_failed_intent(talk: Talk) -> None:
    first = await talk.ask(
        "de", tool_call("HassListAddItem", name="Einkaufsliste", item="Milch"), answer("")
    )
    await talk.reply(first, "hat es geklappt?", "de", answer("Nein."))

    history = talk.worker.requests[-1].dynamic_prompt
    assert "Das ging nicht: Milch zu Einkaufsliste hinzufügen.<|im_end|>" in history


# Everything of a kind, or of an area: only what is sensitive in it is named, and asked.
BY_AREA: list[tuple[str, str, dict[str, Any], str, str]] = [
    (
        "de",
        "HassTurnOn",
        {"name": "all", "domain": ["cover"]},
        "Garage Door öffnen? Sag „ja“ zum Bestätigen.",
        "Erledigt: Garage Door öffnen.",
    ),
    (
        "en",
        "HassTurnOn",
        {"name": "all", "domain": ["cover"]},
        "Open Garage Door? Say yes to confirm.",
        "Done: open Garage Door.",
    ),
    (
        "fr",
        "HassTurnOff",
        {"name": "all", "domain": ["lock"]},
        "Déverrouiller Front Door\u00a0? Dites «\u00a0oui\u00a0» pour confirmer.",
        "C'est fait\u00a0: déverrouiller Front Door.",
    ),
    (
        "nl",
        "HassSetPosition",
        {"name": "all", "domain": ["cover"], "device_class": ["garage"], "position": 100},
        "De positie van Garage Door instellen (100%)? Zeg „ja” om te bevestigen.",
        "",
    ),
]


@pytest.mark.parametrize(
    ("language", "tool", "arguments", "question", "done"),
    BY_AREA,
    ids=[f"{c[0]}-{c[1]}" for c in BY_AREA],
)
async def test_everything_of_a_kind_asks_about_the_sensitive_part_only(
    hass: HomeAssistant,
    talk: Talk,
    language: str,
    tool: str,
    arguments: dict[str, Any],
    question: str,
    done: str,
) -> None:
    before = {e: state(hass, e) for e in (GARAGE, "lock.front_door", "cover.hall_window")}
    asked = await talk.ask(language, tool_call(tool, **arguments))

    assert speech(asked) == question
    assert asked.continue_conversation is True
    assert asked.response.response_type is QUERY_ANSWER
    # Nothing ran yet: not the sensitive part, not the rest.
    assert {e: state(hass, e) for e in before} == before
    if not done:
        return
    reply = await talk.reply(asked, YES[language], language)
    assert speech(reply) == done
    assert reply.response.response_type is ACTION_DONE
    assert {e: state(hass, e) for e in before} != before


# Entities the user made sensitive, reached by intents that are no on/off call: the question
# and the answer after the yes say the call as its service reads, the values with their units
# inside the words.
HELD: list[tuple[str, dict[str, Any], dict[str, str]]] = [
    (
        "HassLightSet",
        {"name": "Bed Light", "brightness": 40},
        {"de": "Bed Light auf 40 % einschalten", "en": "turn on Bed Light at 40 %"},
    ),
    (
        "HassSetVolume",
        {"name": "Living Room", "volume_level": 50},
        {
            "de": "die Lautstärke von Living Room auf 50 % einstellen",
            "en": "set the volume of Living Room to 50 %",
        },
    ),
    (
        "HassClimateSetTemperature",
        {"name": "Hvac", "temperature": 21.5},
        {
            "en": "set the temperature of Hvac to 21.5°",
            "fr": "régler la température de Hvac à 21,5°",
        },
    ),
    (
        "HassFanSetSpeed",
        {"name": "Living Room Fan", "percentage": 30},
        {"en": "fan at 30 %", "pt": "a 30%"},
    ),
    ("HassMediaPause", {"name": "Living Room"}, {"es": "pausar Living Room"}),
    ("HassMediaPlayerMute", {"name": "Living Room"}, {"it": "Living Room"}),
]


@pytest.mark.parametrize(
    ("language", "tool", "arguments", "action"),
    [
        pytest.param(language, tool, arguments, action, id=f"{language}-{tool}")
        for tool, arguments, by_language in HELD
        for language, action in by_language.items()
    ],
)
async def test_a_held_intent_is_said_as_what_it_does(
    hass: HomeAssistant,
    everyday_home: None,  # noqa: F811
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    tool: str,
    arguments: dict[str, Any],
    action: str,
) -> None:
    sensitive = [BED, "media_player.living_room", "climate.hvac", "fan.living_room_fan"]
    agent = await async_setup_agent(
        hass, scripted_worker.info.path, **{**ASSIST, CONF_SENSITIVE_ENTITIES: sensitive}
    )
    talk = Talk(agent, scripted_worker, person)
    asked = await talk.ask(language, tool_call(tool, **arguments))
    assert asked.continue_conversation is True
    assert action.lower() in speech(asked).lower()
    check_said(speech(asked), language)

    reply = await talk.reply(asked, YES[language], language)
    assert reply.response.response_type is ACTION_DONE, speech(reply)
    assert action.lower() in speech(reply).lower()
    check_said(speech(reply), language)


@pytest.mark.parametrize(
    ("language", "action"), [("en", "press Garage Opener"), ("de", "Garage Opener drücken")]
)
async def test_a_held_button_turned_on_is_said_as_the_press_it_is(
    hass: HomeAssistant,
    everyday_home: None,  # noqa: F811
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    action: str,
) -> None:
    """HassTurnOn presses a button (OnOffIntentHandler): a button that opens the garage is
    asked about as the press it is, never as "turn on", and pressed only after the yes."""
    opener = "input_button.garage_opener"
    assert await async_setup_component(
        hass, "input_button", {"input_button": {"garage_opener": {"name": "Garage Opener"}}}
    )
    async_expose_entity(hass, "conversation", opener, True)
    agent = await async_setup_agent(
        hass, scripted_worker.info.path, **{**ASSIST, CONF_SENSITIVE_ENTITIES: [opener]}
    )
    before = state(hass, opener)
    talk = Talk(agent, scripted_worker, person)
    asked = await talk.ask(language, tool_call("HassTurnOn", name="Garage Opener"))

    assert asked.continue_conversation is True
    assert action.lower() in speech(asked).lower()
    assert "turn" not in speech(asked).lower()
    check_said(speech(asked), language)
    assert state(hass, opener) == before

    reply = await talk.reply(asked, YES[language], language)
    assert reply.response.response_type is ACTION_DONE, speech(reply)
    assert action.lower() in speech(reply).lower()
    check_said(speech(reply), language)
    assert state(hass, opener) != before


@pytest.mark.parametrize(
    ("language", "said"),
    [
        (
            "de",
            "Das hat nicht geklappt: die Position von Garage Door einstellen (50 %) "
            "\u2013 Home Assistant hat einen Fehler gemeldet.",
        ),
        (
            "en",
            "I could not finish: set the position of Garage Door to 50 % \u2013 "
            "Home Assistant reported an error.",
        ),
    ],
)
async def test_a_confirmed_intent_that_home_assistant_fails_is_said_in_words(
    hass: HomeAssistant, talk: Talk, language: str, said: str
) -> None:
    """The demo garage door has no position: its service raises once confirmed. Home
    Assistant's English error, which names the entity id, stays in the audit and the result."""
    asked = await talk.ask(language, tool_call("HassSetPosition", name="Garage Door", position=50))
    assert asked.continue_conversation is True

    reply = await talk.reply(asked, YES[language], language)

    assert speech(reply) == said
    assert reply.response.response_type is ERROR
    check_said(speech(reply), language)
    assert state(hass, GARAGE) == "closed"
