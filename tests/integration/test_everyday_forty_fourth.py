"""Sentences a native speaker would write, in the seven languages (everyday44).

- A refused mode was said by its key: "HeatPump: dry ist keine Option". It is now said in
  Home Assistant's own words for it ("Entfeuchtung ist keine Option"), as the question and the
  done answer already said it; English keeps the key, its own word.
- A scene was asked "Turn on Welcome?" and done "Activated Welcome": one verb, "activate".
- French wrote "de Ecobee" where a name begins with a vowel: now "d'Ecobee"; French, Italian,
  Spanish and Portuguese contract a preposition with the article a name begins with ("de Le
  Salon": "du Salon", "di Il Salotto": "del Salotto", "de A Sala": "da Sala").
- What the model wrote that names no entity started a sentence in lower case ("the user's
  entity: no such entity exposed to Assist."): now "The user's entity: …".
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scripted_model import call
from .test_everyday_common import home  # noqa: F401  (the fixture)
from .test_everyday_homes import expose
from .test_redteam import asked

HEAT_PUMP: Final = "climate.heatpump"
ECOBEE: Final = "climate.ecobee"
BLINDS: Final = "cover.living_room_window"
FRONT_DOOR: Final = "lock.front_door"
WELCOME: Final = "scene.welcome"


pytestmark = pytest.mark.usefixtures("home")


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


# A dry mode the heat pump does not have, as each language says it was not an option.
NOT_AN_OPTION: Final = {
    "en": "HeatPump: dry is not an option.",
    "de": "HeatPump: Entfeuchtung ist keine Option.",
    "fr": "HeatPump\u00a0: déshumidification n'est pas une option.",
    "es": "HeatPump: deshumidificar no es una opción.",
    "it": "HeatPump: deumidificazione non è un'opzione.",
    "nl": "HeatPump: droog is geen optie.",
    "pt": "HeatPump: secar não é uma opção.",
}


@pytest.mark.parametrize("language", list(NOT_AN_OPTION))
async def test_a_refused_mode_is_said_in_home_assistants_words(
    hass: HomeAssistant, talk: Talk, language: str
) -> None:
    """Before: "HeatPump: dry ist keine Option." in German (the key, in every language)."""
    expose(hass, HEAT_PUMP)

    result = await talk.ask(
        language, call("climate", action="set_hvac_mode", entity_id=HEAT_PUMP, hvac_mode="dry")
    )

    assert NOT_AN_OPTION[language] in speech(result)
    assert state(hass, HEAT_PUMP) == "heat"


async def test_a_held_scene_is_asked_and_done_with_one_verb(
    hass: HomeAssistant, talk: Talk
) -> None:
    """Before: "Turn on Welcome (this will unlock Front Door)? …", then "Done: activate …"."""
    await hass.services.async_call(
        "scene",
        "create",
        {"scene_id": "welcome", "entities": {FRONT_DOOR: "unlocked"}},
        blocking=True,
    )
    expose(hass, WELCOME)

    question = await talk.ask("en", call("scene", action="turn_on", entity_id=WELCOME))
    done = await talk.reply(question, "yes", "en")

    assert asked(question)
    assert speech(question).startswith("Activate welcome (this will unlock Front Door")
    assert speech(done).startswith("Done: activate welcome (this will unlock Front Door")


# What each language's sentence says of a blind named with a vowel or an article first.
JOINED: Final = [
    ("fr", "Escalier", "C'est fait\u00a0: régler la position d'Escalier à 30\u00a0%."),
    ("fr", "Le Salon", "C'est fait\u00a0: régler la position du Salon à 30\u00a0%."),
    ("it", "Il Salotto", "Fatto: impostare la posizione del Salotto al 30%."),
    ("it", "L'Ingresso", "Fatto: impostare la posizione dell'Ingresso al 30%."),
    ("pt", "A Sala", "Feito: definir a posição da Sala para 30%."),
    ("es", "El Salón", "Hecho: ajustar la posición del Salón al 30%."),
]


@pytest.mark.parametrize(("language", "name", "said"), JOINED)
async def test_a_name_is_joined_to_the_word_before_it(
    hass: HomeAssistant, talk: Talk, language: str, name: str, said: str
) -> None:
    """Before: "la position de Escalier", "la posizione di Il Salotto", "de A Sala"."""
    er.async_get(hass).async_update_entity(BLINDS, name=name)
    expose(hass, BLINDS)

    result = await talk.ask(
        language, call("cover", action="set_cover_position", entity_id=BLINDS, position=30)
    )

    assert speech(result).startswith(said)


async def test_a_refusal_in_french_elides_before_a_vowel(hass: HomeAssistant, talk: Talk) -> None:
    """Before: "Je n'ai pas pu régler le mode de ventilation de Ecobee."."""
    expose(hass, ECOBEE)

    result = await talk.ask(
        "fr", call("climate", action="set_fan_mode", entity_id=ECOBEE, fan_mode="turbo")
    )

    assert speech(result).startswith("Je n'ai pas pu régler le mode de ventilation d'Ecobee.")


async def test_a_consonant_or_an_h_keeps_de(hass: HomeAssistant, talk: Talk) -> None:
    """Guard: "de HeatPump", "de Hvac": whether a name's h is mute is not known."""
    expose(hass, HEAT_PUMP)

    result = await talk.ask(
        "fr", call("climate", action="set_hvac_mode", entity_id=HEAT_PUMP, hvac_mode="dry")
    )

    assert speech(result).startswith("Je n'ai pas pu régler le mode de HeatPump.")


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("the user's entity", "The user's entity: no such entity exposed to Assist."),
        ("sensor.value_0", "Value 0: no such entity exposed to Assist."),
    ],
)
async def test_what_names_nothing_starts_its_sentence_with_a_capital(
    hass: HomeAssistant, talk: Talk, written: str, said: str
) -> None:
    """Before: "the user's entity: no such entity exposed to Assist."."""
    result = await talk.ask("en", call("get_state", entity_id=written))

    assert said in speech(result)
