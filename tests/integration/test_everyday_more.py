"""More everyday requests, in the seven languages, and what a model may get wrong.

test_everyday.py drives each common action in English; here the same home hears them in the
agent's other languages, and the model writes what a small model does write: a call that
fails beside one that works, a wrong type, an action or a tool that does not exist, a call cut
off, nothing at all. For each: no exception, the right response type, and a sentence that is
true, in the conversation's language, without an entity id, a service or field name, or a
Python value in it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
import re

import pytest

from custom_components.local_agent.const import CONF_EXEMPT_ENTITIES
from custom_components.local_agent.const import CONF_HOME_TOOLS
from custom_components.local_agent.const import CONF_SENSITIVE_ENTITIES
from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import intent
from homeassistant.setup import async_setup_component

from .conftest import Agent
from .conftest import Talk
from .conftest import async_setup_agent
from .conftest import speech
from .conftest import state
from .scene import tool_calls
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_everyday import everyday_home  # noqa: F401  (the fixture)

BED = "light.bed_light"
KITCHEN = "light.kitchen_lights"
PLAYER = "media_player.living_room"
VACUUM = "vacuum.demo_vacuum_0_ground_floor"
HVAC = "climate.hvac"
ECOBEE = "climate.ecobee"
FAN = "fan.living_room_fan"
SHOPPING = "todo.shopping_list"
TIMER = "timer.tea"

ACTION_DONE = intent.IntentResponseType.ACTION_DONE
QUERY_ANSWER = intent.IntentResponseType.QUERY_ANSWER
ERROR = intent.IntentResponseType.ERROR

# Never in what a person hears: an entity id, a service or field name, a Python value.
ENTITY_ID = re.compile(r"\b[a-z_]+\.[a-z0-9_]+\b")
NOT_SPOKEN = ("_", "{", "}", "[", "]", "Traceback", "None", "True", "False")
# English words that must not appear inside an answer in another language.
ENGLISH = re.compile(r"\b(?:turn|set|brightness|direction|code|position|volume|done|call)\b")


@pytest.fixture
async def agent(
    hass: HomeAssistant,
    everyday_home: None,  # noqa: F811
    scripted_worker: ScriptedWorker,
) -> AsyncGenerator[Agent]:
    """The everyday home with a tea timer too; the user exempted the script."""
    assert await async_setup_component(
        hass, "timer", {"timer": {"tea": {"name": "Tea", "duration": 180}}}
    )
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, TIMER, True)
    yield await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_EXEMPT_ENTITIES: ["script.movie_time"]}
    )
    await hass.services.async_call("timer", "cancel", {"entity_id": TIMER}, blocking=True)


def check_spoken(said: str, language: str) -> None:
    """What a person hears: no id, no markup, no English inside another language."""
    assert not ENTITY_ID.search(said), said
    assert not [part for part in NOT_SPOKEN if part in said], said
    if language != "en":
        assert not ENGLISH.search(said), said


def does(tool: str, **arguments: object) -> str:
    return answer(call(tool, **arguments))


ECOBEE_19_5_TO_23 = does(
    "climate", action="set_temperature", entity_id=ECOBEE, target_temp_low=19.5, target_temp_high=23
)

# Plain actions in the agent's other languages: said by the agent, values with their units, a
# mode in Home Assistant's own words for the language, a decimal comma.
PLAIN: list[tuple[str, str, str, dict[str, str]]] = [
    (
        "de",
        does("climate", action="set_temperature", entity_id=HVAC, temperature=21.5),
        "Erledigt: die Temperatur von Hvac auf 21,5° einstellen.",
        {HVAC: "cool"},
    ),
    (
        "de",
        does("climate", action="set_temperature", entity_id=HVAC, temperature=21, hvac_mode="heat"),
        "Erledigt: Hvac auf Heizbetrieb mit 21° einstellen.",
        {HVAC: "heat"},
    ),
    (
        "es",
        does("climate", action="set_hvac_mode", entity_id=HVAC, hvac_mode="heat"),
        "Hecho: poner Hvac en modo calor.",
        {HVAC: "heat"},
    ),
    (
        "de",
        does("fan", action="set_direction", entity_id=FAN, direction="reverse"),
        "Erledigt: die Richtung von Living Room Fan auf Rückwärts einstellen.",
        {},
    ),
    (
        "fr",
        does("cover", action="set_cover_position", entity_id="cover.hall_window", position=30),
        "C'est fait\u00a0: régler la position de Hall Window à 30\u00a0%.",
        {"cover.hall_window": "closing|opening|open"},
    ),
    (
        "de",
        does("media_player", action="volume_set", entity_id=PLAYER, volume_level=0.355),
        "Erledigt: die Lautstärke von Living Room auf 35,5 % einstellen.",
        {},
    ),
    (
        "it",
        does("media_player", action="media_pause", entity_id=PLAYER),
        "Fatto: mettere in pausa Living Room.",
        {PLAYER: "paused"},
    ),
    (
        "fr",
        does("light", action="turn_on", entity_id=KITCHEN, color_temp_kelvin=2700),
        "C'est fait\u00a0: allumer Kitchen Lights (2700\u00a0K).",
        {KITCHEN: "on"},
    ),
    (
        "nl",
        does("vacuum", action="start", entity_id=VACUUM),
        "Klaar: Demo vacuum 0 ground floor starten.",
        {VACUUM: "cleaning"},
    ),
    (
        "de",
        does("todo", action="add_item", entity_id=SHOPPING, item="Milch"),
        "Erledigt: Milch zu Shopping list hinzufügen.",
        {SHOPPING: "1"},
    ),
    (
        "pt",
        does("scene", action="turn_on", entity_id="scene.evening"),
        "Feito: ativar Evening.",
        {},
    ),
    (
        "de",
        does("scene", action="turn_on", entity_id="scene.evening"),
        "Erledigt: Evening aktivieren.",
        {},
    ),
    (
        "es",
        does("script", action="turn_on", entity_id="script.movie_time"),
        "Hecho: ejecutar Movie time.",
        {KITCHEN: "off"},
    ),
    (
        "de",
        does("timer", action="start", entity_id=TIMER),
        "Erledigt: Tea starten.",
        {TIMER: "active"},
    ),
    (
        "de",
        does("timer", action="start", entity_id=TIMER, duration="00:05:00"),
        "Erledigt: Tea für 5 Minuten starten.",
        {TIMER: "active"},
    ),
    (
        "en",
        does("timer", action="start", entity_id=TIMER, duration="00:05:00"),
        "Started Tea for 5 minutes.",
        {TIMER: "active"},
    ),
    (
        "en",
        does("climate", action="set_temperature", entity_id=HVAC, temperature=21.0),
        "Set the temperature of Hvac to 21°.",
        {HVAC: "cool"},
    ),
    (
        "en",
        ECOBEE_19_5_TO_23,
        "Set the temperature of Ecobee to between 19.5° and 23°.",
        {ECOBEE: "heat_cool"},
    ),
    (
        "nl",
        ECOBEE_19_5_TO_23,
        "Klaar: de temperatuur van Ecobee tussen 19,5° en 23° instellen.",
        {ECOBEE: "heat_cool"},
    ),
    (
        "it",
        does("media_player", action="volume_set", entity_id=PLAYER, volume_level=0.3),
        "Fatto: impostare il volume di Living Room al 30%.",
        {},
    ),
    (
        "pt",
        does("timer", action="start", entity_id=TIMER, duration="01:30:00"),
        "Feito: iniciar Tea por 1 hora e 30 minutos.",
        {TIMER: "active"},
    ),
    (
        "de",
        answer(
            call("light", action="turn_off", entity_id=BED)
            + "\n"
            + call("cover", action="close_cover", entity_id="cover.hall_window")
            + "\n"
            + call("switch", action="turn_on", entity_id="switch.ac")
        ),
        "Erledigt: Bed Light ausschalten, Hall Window schließen und AC einschalten.",
        {BED: "off", "switch.ac": "on"},
    ),
]


@pytest.mark.parametrize(
    ("language", "writes", "said", "states"), PLAIN, ids=[f"{p[0]}: {p[2]}" for p in PLAIN]
)
async def test_a_plain_action_reads_naturally_in_each_language(
    hass: HomeAssistant, talk: Talk, language: str, writes: str, said: str, states: dict[str, str]
) -> None:
    result = await talk.ask(language, writes)

    assert speech(result) == said
    assert result.response.response_type is ACTION_DONE
    assert len(talk.worker.requests) == 1
    for entity_id, wanted in states.items():
        assert state(hass, entity_id) in wanted.split("|"), entity_id


async def test_a_pin_the_model_passed_is_never_said(
    hass: HomeAssistant,
    everyday_home: None,  # noqa: F811
    scripted_worker: ScriptedWorker,
    person: Context,
) -> None:
    """A lock the user exempted runs at once; the code the model gave is not read out."""
    agent = await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_EXEMPT_ENTITIES: ["lock.front_door"]}
    )
    talk = Talk(agent, scripted_worker, person)
    for language, said in (
        ("en", "Unlocked Front Door."),
        ("de", "Erledigt: Front Door aufschließen."),
    ):
        result = await talk.ask(
            language, does("lock", action="unlock", entity_id="lock.front_door", code="4711")
        )
        assert speech(result) == said
        assert "4711" not in speech(result)
        await hass.services.async_call(
            "lock", "lock", {"entity_id": "lock.front_door"}, blocking=True
        )


# What a model gets wrong; the model then writes nothing (""), or a sentence of its own.
ATTIC = call("light", action="turn_on", entity_id="light.attic")
# Two calls in one answer: one that works, and one that does not.
BED_AND_ATTIC = answer(call("light", action="turn_on", entity_id=BED) + "\n" + ATTIC)
BED_AND_TELEPORT = answer(call("light", action="turn_on", entity_id=BED) + "\n" + call("teleport"))
BAD: list[tuple[str, tuple[str, ...], str, intent.IntentResponseType]] = [
    (
        "de",
        (does("light", action="turn_on", entity_id=BED, brightness_pct="bright"), answer("")),
        "Das ging nicht: Bed Light einschalten.",
        ERROR,
    ),
    (
        "en",
        (does("light", action="turn_on", entity_id=BED, brightness_pct="bright"), answer("Sorry.")),
        "I could not turn on Bed Light. Sorry.",
        ERROR,
    ),
    (
        "fr",
        (does("light", action="turn_on", entity_id=BED, brightness_pct=250), answer("")),
        "Je n'ai pas pu allumer Bed Light. La plage va de 0 à 100\u00a0%, pas 250\u00a0%.",
        ERROR,
    ),
    (
        "es",
        (does("light", action="turn_on", entity_id=BED, sparkle=True), answer("")),
        "No he podido encender Bed Light. "
        "Bed Light: el modelo pidió un ajuste que esta acción no tiene.",
        ERROR,
    ),
    # A light that does not exist: said by what the model wrote, in words.
    (
        "de",
        (answer(ATTIC), answer("")),
        "Das ging nicht: attic einschalten. Attic: keine Entität dieses Namens für Assist"
        " freigegeben.",
        ERROR,
    ),
    (
        "it",
        (answer(ATTIC), answer("")),
        "Non è stato possibile accendere attic. Attic: nessuna entità con questo nome esposta"
        " ad Assist.",
        ERROR,
    ),
    # Several targets, as the call wrote them (a JSON list), one of them made up.
    (
        "en",
        (does("light", action="turn_on", entity_id=[BED, "light.attic"]), answer("")),
        "I could not turn on Bed Light and attic. Attic: no such entity exposed to Assist.",
        ERROR,
    ),
    # The same action in several calls is said once, with its targets (at most four).
    (
        "en",
        (
            answer(ATTIC + "\n" + call("light", action="turn_on", entity_id="light.shed")),
            answer(""),
        ),
        "I could not turn on attic and shed. Attic and shed: no such entity exposed to Assist.",
        ERROR,
    ),
    (
        "de",
        (
            answer(
                "\n".join(
                    call("light", action="turn_off", entity_id=f"light.value_{n}") for n in range(4)
                )
            ),
            answer(""),
        ),
        "Das ging nicht: value 0, value 1, value 2 und value 3 ausschalten. Value 0, value 1,"
        " value 2 und value 3: keine Entität dieses Namens für Assist freigegeben.",
        ERROR,
    ),
    # A tool, an action or a target the words cannot say: the call is not named.
    (
        "de",
        (does("teleport", entity_id=BED), answer("")),
        "Das konnte ich nicht tun: Der Aufruf des Modells ist nicht durchgegangen.",
        ERROR,
    ),
    (
        "nl",
        (does("light", entity_id=BED), answer("")),
        "Dat lukte niet: de aanroep van het model ging niet door.",
        ERROR,
    ),
    (
        "pt",
        (does("light", action="turn_on"), answer("")),
        "Não consegui fazer isso: a chamada do modelo não foi executada.",
        ERROR,
    ),
    (
        "de",
        (
            answer("<tool_call>\n<function=light>\n<parameter=action>\nturn_on\n</function>"),
            answer(""),
        ),
        "Das konnte ich nicht tun: Der Aufruf des Modells ist nicht durchgegangen.",
        ERROR,
    ),
    (
        "de",
        (does("light", action="turn_on", entity_id="{{ states('lock.front_door') }}"), answer("")),
        "Das konnte ich nicht tun: Der Aufruf des Modells ist nicht durchgegangen.",
        ERROR,
    ),
    (
        "fr",
        (does("light", action="turn_on", entity_id=5), answer("")),
        "Je n'ai pas pu le faire\u00a0: l'appel du modèle n'a pas abouti.",
        ERROR,
    ),
    # A call the model corrected in the next round: what was done, and no failure.
    (
        "de",
        (
            does("light", action="explode", entity_id=BED),
            does("light", action="turn_on", entity_id=BED),
            answer(""),
        ),
        "Erledigt: Bed Light einschalten.",
        ACTION_DONE,
    ),
    # One call works, one does not, and the model says nothing: both are said, truthfully.
    (
        "en",
        (BED_AND_ATTIC, answer("")),
        "Turned on Bed Light. I could not turn on attic. Attic: no such entity exposed to Assist.",
        ACTION_DONE,
    ),
    (
        "fr",
        (BED_AND_ATTIC, answer("")),
        "C'est fait\u00a0: allumer Bed Light. Je n'ai pas pu allumer attic. Attic\u00a0: aucune"
        " entité de ce nom exposée à Assist.",
        ACTION_DONE,
    ),
    (
        "de",
        (BED_AND_TELEPORT, answer("")),
        "Erledigt: Bed Light einschalten. Der Rest ist nicht durchgegangen.",
        ACTION_DONE,
    ),
    # One works, one does not, and the model claims both: what did not is said first.
    (
        "en",
        (BED_AND_ATTIC, answer("Done.")),
        "I could not turn on attic. Attic: no such entity exposed to Assist. Done.",
        ACTION_DONE,
    ),
    (
        "de",
        (BED_AND_TELEPORT, answer("Erledigt.")),
        "Nicht alles, was das Modell versucht hat, ist durchgegangen. Erledigt.",
        ACTION_DONE,
    ),
    # The model only read a state and wrote nothing: what it read is said, and no "Done".
    (
        "es",
        (does("get_state", entity_id=BED), answer("")),
        "Bed Light: apagado.",
        QUERY_ANSWER,
    ),
    (
        "en",
        (does("get_state", entity_id=BED), answer("")),
        "Bed Light: off.",
        QUERY_ANSWER,
    ),
    # Every read failed: not answered (an error); the model's own full stop is not doubled.
    (
        "en",
        (does("get_state", entity_id="the user's entity."), answer("")),
        "I could not read the state of the user's entity. The user's entity: no such entity"
        " exposed to Assist.",
        ERROR,
    ),
    (
        "en",
        (
            answer("\n".join(call("get_state", entity_id=f"sensor.value_{n}") for n in range(4))),
            answer(""),
        ),
        "I could not read the state of value 0, value 1, value 2 and value 3. Value 0, value 1,"
        " value 2 and value 3: no such entity exposed to Assist.",
        ERROR,
    ),
    # Nothing at all.
    ("de", (answer(""),), "Entschuldigung, darauf habe ich keine Antwort.", ERROR),
]


@pytest.mark.parametrize(
    ("language", "writes", "said", "kind"), BAD, ids=[f"{b[0]}: {b[2]}" for b in BAD]
)
async def test_what_the_model_got_wrong_is_said_truthfully(
    talk: Talk,
    language: str,
    writes: tuple[str, ...],
    said: str,
    kind: intent.IntentResponseType,
) -> None:
    result = await talk.ask(language, *writes)

    assert speech(result) == said
    assert result.response.response_type is kind
    check_spoken(said, language)


@pytest.mark.parametrize("language", ["en", "de", "fr"])
async def test_a_device_that_fails_or_is_gone_is_not_done(
    hass: HomeAssistant, talk: Talk, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    """A service that raises and an unavailable light: an error, in words, never "Done"."""

    async def fail(*_args: object, **_kwargs: object) -> None:
        raise HomeAssistantError("Failed to connect to bridge at 192.168.1.5")

    monkeypatch.setattr("homeassistant.components.demo.light.DemoLight.async_turn_on", fail)
    hass.states.async_set("switch.ac", "unavailable", {"friendly_name": "AC"})
    for tool, entity_id in (("light", BED), ("switch", "switch.ac")):
        result = await talk.ask(
            language, does(tool, action="turn_on", entity_id=entity_id), answer("")
        )
        assert result.response.response_type is ERROR
        name = "Bed Light" if tool == "light" else "AC"
        assert name in speech(result)
        check_spoken(speech(result), language)


async def test_the_next_turn_reads_what_was_really_said(talk: Talk) -> None:
    """The model reads next time what the person heard: what was done and what was not."""
    first = await talk.ask("de", BED_AND_ATTIC, answer(""))
    await talk.reply(first, "hat es geklappt?", "de", answer("Ja."))

    history = talk.worker.requests[-1].dynamic_prompt
    assert (
        "Erledigt: Bed Light einschalten. Das ging nicht: attic einschalten. Attic: keine"
        " Entität dieses Namens für Assist freigegeben.<|im_end|>" in history
    )


async def test_an_assist_call_that_failed_beside_one_that_worked_is_said(
    hass: HomeAssistant,
    everyday_home: None,  # noqa: F811
    scripted_worker: ScriptedWorker,
    person: Context,
) -> None:
    """Assist's tools: what they did is the model's to say; without its answer, the agent
    says it was done and names what was not, in words."""
    agent = await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_HOME_TOOLS: False, CONF_LLM_HASS_API: ["assist"]}
    )
    two_calls = tool_calls(("HassTurnOn", {"name": "Bed Light"}), ("HassTurnOn", {"name": "Attic"}))

    result = await Talk(agent, scripted_worker, person).ask("de", two_calls, answer(""))

    assert speech(result) == "Erledigt. Das ging nicht: Attic einschalten."
    assert result.response.response_type is ACTION_DONE
    assert state(hass, BED) == "on"


# A thermostat's mode and preset in Home Assistant's own words for the language, in the
# question a held call asks and in the answer to a plain one: not "einstellen (heat)".
MODES: list[tuple[str, str, str]] = [
    (
        "de",
        "Den Modus von Hvac auf Heizbetrieb einstellen?",
        "Erledigt: die Voreinstellung von Ecobee auf Eco einstellen.",
    ),
    (
        "fr",
        "Mettre Hvac en mode chauffage\u00a0?",
        "C'est fait\u00a0: choisir le préréglage éco pour Ecobee.",
    ),
    ("es", "¿Poner Hvac en modo calor?", "Hecho: elegir el preajuste eco para Ecobee."),
    (
        "it",
        "Impostare Hvac in modalità riscaldamento?",
        "Fatto: scegliere il preset eco per Ecobee.",
    ),
    (
        "nl",
        "De modus van Hvac op verwarmen instellen?",
        "Klaar: de voorinstelling van Ecobee op eco instellen.",
    ),
    ("pt", "Pôr Hvac em modo aquecer?", "Feito: escolher a predefinição eco para Ecobee."),
    ("en", "Set the mode of Hvac to heat?", "Set the preset of Ecobee to eco."),
]


@pytest.mark.parametrize(("language", "question", "said"), MODES)
async def test_a_mode_is_said_in_the_languages_words_when_asked_and_when_done(
    hass: HomeAssistant,
    everyday_home: None,  # noqa: F811
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    question: str,
    said: str,
) -> None:
    agent = await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_SENSITIVE_ENTITIES: [HVAC]}
    )
    talk = Talk(agent, scripted_worker, person)

    held = await talk.ask(
        language, does("climate", action="set_hvac_mode", entity_id=HVAC, hvac_mode="heat")
    )
    done = await talk.ask(
        language,
        does("climate", action="set_preset_mode", entity_id=ECOBEE, preset_mode="eco"),
    )

    assert speech(held).startswith(question), speech(held)
    assert state(hass, HVAC) != "heat"
    assert speech(done) == said
    assert state(hass, ECOBEE) == "heat_cool"
    check_spoken(speech(done), language)
