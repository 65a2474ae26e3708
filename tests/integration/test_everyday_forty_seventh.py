"""Small defects a reading of the code found, each seen in a turn (everyday47).

Fixed here (each test failed before):
- A held action counted as done: a turn whose agent was retired while it ran (its settings
  changed, Home Assistant stopping) said "I did not unlock", yet answered an automation or the
  API with `action_done`. A held action is not done: the turn reports `failed_to_handle`.
- A name the model wrote that names nothing was repeated in lower case: "Iphone: no such
  entity exposed to Assist" for "iPhone". It is repeated as written.
- A name in the model's casing that names one exposed entity ("iphone charger", where the
  grammar wants the id) was said as written: "I could not turn on iphone charger". The house's
  own spelling wins: "iPhone Charger". Nothing runs (the call was refused).
- A name written as an entity id (a server that ignores the grammar: "switch.iphone_charger"
  where the plug is switch.plug_3) was a bare "I could not turn on iphone charger". The person
  hears why ("no such entity exposed to Assist"), the model what it may mean; nothing runs.
- French wrote "30 %" with a plain space, which a narrow Assist bubble may break at, leaving
  "%" alone at the start of a line; it has a no-break space, as French's ":" "?" "!" have.
  (mend65) So has every other unit: "21,5 °C", "2700 K", a sensor read ("15,6 °C", before
  "15.6 °C" with the English decimal point), and the forms' "12 ko", "0,81 Go".

Found fine (pinned here, passing before): a German done answer of a turn says a climate mode in
Home Assistant's words ("auf Heizbetrieb"): every turn's done answer passes async_in_words; the
"auf heat" of everyday42 is its table's DoneAction said without it. French and Portuguese state
words are said as "name : state" (a label, as Home Assistant shows them), and nothing tells a
user-given name's gender: they are left as Home Assistant writes them.
"""

from __future__ import annotations

import json
from pathlib import Path
import re
from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.conversation import LocalAgentConversationEntity
from custom_components.local_agent.home.call_texts import call_words
from custom_components.local_agent.home.call_texts import quantity_words
from custom_components.local_agent.home.call_texts import value_words
from custom_components.local_agent.home.service_catalog import Quantity
from custom_components.local_agent.safety.confirmation import Ending
from homeassistant.components.conversation.const import DATA_COMPONENT
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .flow_helpers import translation
from .scripted_model import answer
from .scripted_model import call

FRONT_DOOR: Final = "lock.front_door"
KITCHEN: Final = "light.kitchen_lights"
PRODUCT: Final = Path(__file__).parents[2] / "custom_components" / "local_agent"
CHARGER: Final = "switch.plug_3"
OUTSIDE: Final = "sensor.outside_temperature"


@pytest.fixture
async def charger(hass: HomeAssistant, agent: Agent) -> None:
    """A plug whose name is not in the case of a sentence, and whose id says nothing of it."""
    hass.states.async_set(CHARGER, "off", {"friendly_name": "iPhone Charger"})
    async_expose_entity(hass, "conversation", CHARGER, True)


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


def _retire(hass: HomeAssistant, agent: Agent) -> None:
    """Close the agent's questions as a settings change does while a turn still runs on it."""
    entity = hass.data[DATA_COMPONENT].get_entity(agent.entity_id)
    assert isinstance(entity, LocalAgentConversationEntity)
    assert entity.agent is not None
    entity.agent.gate.async_drop_pending(Ending.SETTINGS_CHANGED)


async def test_a_held_unlock_of_a_retired_agent_is_not_reported_done(
    hass: HomeAssistant, agent: Agent, talk: Talk
) -> None:
    """The unlock waits for no yes (nothing is held any more): the door stays locked, and
    the response says the request was not carried out, with nothing reported changed."""
    await hass.services.async_call("lock", "lock", {"entity_id": FRONT_DOOR}, blocking=True)
    _retire(hass, agent)

    result = await talk.ask("en", call("lock", action="unlock", entity_id=FRONT_DOOR))

    assert "did not unlock Front Door" in speech(result)
    assert hass.states.get(FRONT_DOOR).state == "locked"  # type: ignore[union-attr]
    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert result.response.error_code is intent.IntentResponseErrorCode.FAILED_TO_HANDLE
    assert not result.response.success_results


async def test_a_name_that_names_nothing_is_repeated_as_written(
    hass: HomeAssistant, charger: None, talk: Talk
) -> None:
    result = await talk.ask("en", call("get_state", entity_id="iPhone"))

    assert "iPhone: no such entity exposed to Assist" in speech(result)
    assert "Iphone" not in speech(result)


@pytest.mark.parametrize(
    ("writes", "said"),
    [
        (call("switch", action="turn_on", entity_id="iphone charger"), "turn on iPhone Charger."),
        (call("get_state", entity_id="IPHONE CHARGER"), "read the state of iPhone Charger."),
    ],
)
async def test_a_name_that_names_one_entity_is_said_as_the_house_writes_it(
    hass: HomeAssistant, charger: None, talk: Talk, writes: str, said: str
) -> None:
    result = await talk.ask("en", writes)

    assert f"I could not {said}" in speech(result)
    assert hass.states.get(CHARGER).state == "off"  # type: ignore[union-attr]


async def test_a_name_written_as_an_id_says_why_and_runs_nothing(
    hass: HomeAssistant, charger: None, talk: Talk
) -> None:
    result = await talk.ask(
        "en", call("switch", action="turn_on", entity_id="switch.iphone_charger")
    )

    assert "Iphone charger: no such entity exposed to Assist." in speech(result)
    told = talk.worker.requests[-1].dynamic_prompt.rpartition("<tool_response>")[2]
    assert "Did you mean: switch.plug_3 (iPhone Charger)?" in told
    assert hass.states.get(CHARGER).state == "off"  # type: ignore[union-attr]


async def test_a_french_percent_keeps_its_number_on_the_line(
    hass: HomeAssistant, talk: Talk
) -> None:
    result = await talk.ask(
        "fr", call("light", action="turn_on", entity_id=KITCHEN, brightness_pct=30)
    )

    assert "à 30\u00a0%." in speech(result)


def _texts(tree: Any) -> list[str]:
    if isinstance(tree, dict):
        return [text for value in tree.values() for text in _texts(value)]
    if isinstance(tree, list):
        return [text for value in tree for text in _texts(value)]
    return [tree] if isinstance(tree, str) else []


# A number (or a placeholder) and a unit after it, apart.
_LOOSE_UNIT: Final = re.compile(
    r"[\d}] (?:%|°[CF]?|K|kWh|W|lx|mm|m³|[KMG]i?o|ko|bits|\{unit\})(?!\w)"
)


def test_no_french_value_has_a_plain_space_before_its_unit() -> None:
    """In our sentences' words and in the translations: "{} %", "95 %" and "12 ko" break at
    the space (before: "12 ko", "0,81 Go", "8 bits" in the forms, "{max_kib} Kio")."""
    words = json.loads((PRODUCT / "home" / "call_words.json").read_text(encoding="utf-8"))["fr"]
    shown = translation("fr")

    loose = [text for text in _texts([words, shown]) if _LOOSE_UNIT.search(text)]

    assert not loose


@pytest.mark.parametrize(
    ("said", "written"),
    [
        # Before: a plain space (quantity_words, value_words wrote "{number} {unit}").
        (quantity_words(Quantity(21.5, "°C"), call_words("fr")), "21,5\u00a0°C"),
        (quantity_words(Quantity(3.2, "kWh"), call_words("fr")), "3,2\u00a0kWh"),
        (value_words("color_temp_kelvin", 2700, call_words("fr")), "2700\u00a0K"),
        # Guards (passed at once): the other languages keep their plain space, or none.
        (quantity_words(Quantity(21.5, "°C"), call_words("de")), "21,5 °C"),
        (value_words("color_temp_kelvin", 2700, call_words("en")), "2700 K"),
        (quantity_words(Quantity(40, "%"), call_words("en")), "40%"),
    ],
)
def test_a_french_value_keeps_its_unit_on_the_line(said: str, written: str) -> None:
    assert said == written


async def test_a_french_reading_is_written_the_french_way(hass: HomeAssistant, talk: Talk) -> None:
    """A sensor read without a model answer was said "Outside Temperature : 15.6 °C" (the
    decimal point and the plain space of the entity view); now "15,6 °C", no-break."""
    result = await talk.ask("fr", call("get_state", entity_id=OUTSIDE), answer(""))

    assert "15,6\u00a0°C" in speech(result), speech(result)


@pytest.mark.parametrize(
    ("writes", "said"),
    [
        (
            call("climate", action="set_hvac_mode", entity_id="climate.hvac", hvac_mode="heat"),
            "den Modus von Hvac auf Heizbetrieb einstellen",
        ),
        (
            call(
                "climate",
                action="set_temperature",
                entity_id="climate.hvac",
                temperature=21,
                hvac_mode="heat",
            ),
            "Hvac auf Heizbetrieb mit 21° einstellen",
        ),
    ],
)
async def test_a_german_done_answer_says_a_mode_in_home_assistants_words(
    hass: HomeAssistant, talk: Talk, writes: str, said: str
) -> None:
    """The plain answer of a turn: not "auf heat"."""
    result = await talk.ask("de", writes)

    assert said in speech(result)
    assert "heat" not in speech(result)
