"""No second round after a plain action: the agent says what its tools did (plain_answer.py)."""

from __future__ import annotations

from typing import Any
from typing import Protocol

import pytest

from custom_components.local_agent.const import CONF_MODEL_PHRASES_ANSWERS
from custom_components.local_agent.const import CONF_SENSITIVE_ENTITIES
from custom_components.local_agent.turn.plain_answer import DoneAction
from custom_components.local_agent.turn.plain_answer import sentence
from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component
from testing.turn import chat_log_of

from .conftest import Agent
from .conftest import async_setup_agent
from .conftest import speech
from .conftest import state
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call

KITCHEN = "light.kitchen_lights"
LIGHT_OFF = call("light", action="turn_off", entity_id=KITCHEN)
LIGHT_TO_40 = call("light", action="turn_on", entity_id=KITCHEN, brightness_pct=40)
AC_TOGGLE = call("switch", action="toggle", entity_id="switch.ac")
AC_ON = call("switch", action="turn_on", entity_id="switch.ac")
BED_LIGHT_ON = call("light", action="turn_on", entity_id="light.bed_light")


class AskAfterCalls(Protocol):
    async def __call__(
        self, text: str, *calls: str, language: str = "en", context: Context | None = None
    ) -> conversation.ConversationResult: ...


@pytest.fixture
def ask_after_calls(scripted_agent: Agent, scripted_worker: ScriptedWorker) -> AskAfterCalls:
    """Ask the agent `text`; the model answers with `calls`, in one answer and nothing else."""

    async def ask(
        text: str, *calls: str, language: str = "en", context: Context | None = None
    ) -> conversation.ConversationResult:
        scripted_worker.will_write(answer("\n".join(calls)))
        return await scripted_agent.ask(text, language=language, context=context)

    return ask


async def test_a_plain_action_is_answered_without_a_second_round(
    hass: HomeAssistant, ask_after_calls: AskAfterCalls, scripted_worker: ScriptedWorker
) -> None:
    result = await ask_after_calls("turn off the kitchen light", LIGHT_OFF)

    assert state(hass, KITCHEN) == "off"
    assert speech(result) == "Turned off Kitchen Lights."
    assert len(scripted_worker.requests) == 1  # the model was asked once
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert [target.id for target in result.response.success_results] == [KITCHEN]


async def test_the_next_turn_shows_the_model_what_was_said(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.will_write(
        answer(call("light", action="turn_on", entity_id=KITCHEN, brightness_pct=40)),
        answer("Yes."),
    )
    first = await scripted_agent.ask("kitchen light to 40 percent")
    await scripted_agent.ask("did it work?", conversation_id=first.conversation_id)

    assert speech(first) == "Turned on Kitchen Lights at 40%."
    history = scripted_worker.requests[1].dynamic_prompt
    # The call, its result and the agent's sentence, as they happened.
    assert "<function=light>" in history
    assert "<tool_response>" in history
    assert "Turned on Kitchen Lights at 40%.<|im_end|>" in history


# Two calls in one answer: said together, in one sentence, without a second round.
SAID_TOGETHER: list[tuple[tuple[str, str], list[tuple[str, str]]]] = [
    ((LIGHT_OFF, AC_TOGGLE), [("en", "Turned off Kitchen Lights and toggled AC.")]),
    (
        (LIGHT_TO_40, AC_TOGGLE),  # in each language the agent speaks
        [
            ("de", "Erledigt: Kitchen Lights auf 40 % einschalten und AC umschalten."),
            ("fr-CA", "C'est fait\u00a0: allumer Kitchen Lights à 40\u00a0% et basculer AC."),
            ("es", "Hecho: encender Kitchen Lights al 40% y alternar AC."),
            ("it", "Fatto: accendere Kitchen Lights al 40% e commutare AC."),
            ("nl", "Klaar: Kitchen Lights op 40% inschakelen en AC omschakelen."),
            ("pt-BR", "Feito: ligar Kitchen Lights a 40% e alternar AC."),
        ],
    ),
    (
        # The same action on two domains is said once ("Turn on the bed light and the AC"):
        # not "Turned on Bed Light and turned on AC." Both are off (the AC already off is said
        # as it was: test_everyday_thirty_fourth.py).
        (BED_LIGHT_ON, AC_ON),
        [
            ("en", "Turned on Bed Light and AC."),
            ("de", "Erledigt: Bed Light und AC einschalten."),
            ("fr", "C'est fait\u00a0: allumer Bed Light et AC."),
        ],
    ),
]


@pytest.mark.parametrize(
    ("calls", "language", "said"),
    [(calls, language, said) for calls, table in SAID_TOGETHER for language, said in table],
)
async def test_several_actions_are_said_together_in_the_conversation_language(
    ask_after_calls: AskAfterCalls,
    scripted_worker: ScriptedWorker,
    calls: tuple[str, str],
    language: str,
    said: str,
) -> None:
    result = await ask_after_calls("kitchen light and AC", *calls, language=language)

    assert speech(result) == said
    assert len(scripted_worker.requests) == 1


async def test_queries_errors_and_mixed_rounds_go_back_to_the_model(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    rounds = [
        answer(call("get_state", entity_id=KITCHEN)),  # a query
        answer(call("light", action="turn_off", entity_id="light.nowhere")),  # refused
        answer(  # an action and a query in one round
            LIGHT_OFF + "\n" + call("get_state", entity_id="light.bed_light")
        ),
    ]
    # When every call failed, the agent says so before the model's answer (turn/refusals.py).
    refusal = "I could not turn off nowhere. Nowhere: no such entity exposed to Assist. "
    for number, script in enumerate(rounds):
        scripted_worker.will_write(script, answer(f"Model answer {number}."))
        result = await scripted_agent.ask("do it")
        said_first = refusal if number == 1 else ""
        assert speech(result) == f"{said_first}Model answer {number}."
    assert len(scripted_worker.requests) == 2 * len(rounds)


async def test_the_option_lets_the_model_phrase_every_answer(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    agent = await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_MODEL_PHRASES_ANSWERS: True}
    )
    scripted_worker.will_write(answer(LIGHT_OFF), answer("It is off now."))

    result = await agent.ask("turn off the kitchen light")

    assert state(hass, KITCHEN) == "off"
    assert speech(result) == "It is off now."
    assert len(scripted_worker.requests) == 2


async def test_a_held_call_never_takes_the_fast_answer(
    hass: HomeAssistant, ask_after_calls: AskAfterCalls, hass_admin_user: Any
) -> None:
    """An unlock beside a plain action: nothing sensitive runs, the question is asked."""
    person = Context(user_id=hass_admin_user.id)
    unlock = call("lock", action="unlock", entity_id="lock.front_door")

    result = await ask_after_calls(
        "light off and unlock the door", LIGHT_OFF, unlock, context=person
    )

    assert state(hass, "lock.front_door") == "locked"
    # What the light did is said before the question, never "Done" for the door.
    assert speech(result) == "Turned off Kitchen Lights. Unlock Front Door? Say yes to confirm."
    assert result.continue_conversation


async def test_api_tools_go_back_to_the_model(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    agent = await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]}
    )
    scripted_worker.will_write(
        answer(call("intent__HassTurnOff", name="Kitchen Lights")), answer("Assist did it.")
    )

    result = await agent.ask("turn off the kitchen light")

    assert speech(result) == "Assist did it."
    assert len(scripted_worker.requests) == 2
    chat_log = chat_log_of(hass, result)
    assert any(isinstance(c, conversation.ToolResultContent) for c in chat_log.content)


async def test_a_conversation_in_another_language_is_answered_by_the_model(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    ask_after_calls: AskAfterCalls,
) -> None:
    # The agent has no sentences in Swedish: a Swedish speaker hears the model, in Swedish.
    scripted_worker.will_write(answer(LIGHT_OFF), answer("Klart."))

    result = await scripted_agent.ask("Köksljuset av", language="sv")

    assert state(hass, KITCHEN) == "off"
    assert speech(result) == "Klart."
    assert len(scripted_worker.requests) == 2
    # A regional English is still English.
    light_on = call("light", action="turn_on", entity_id=KITCHEN)
    british = await ask_after_calls("kitchen light on", light_on, language="en-GB")
    assert speech(british) == "Turned on Kitchen Lights."
    assert len(scripted_worker.requests) == 3


FAN_SWING_AND_MUTE: tuple[DoneAction, ...] = (
    DoneAction("fan", "oscillate", ("Living Room Fan",), (("oscillating", True),)),
    DoneAction("media_player", "volume_mute", ("Bedroom",), (("is_volume_muted", "false"),)),
    DoneAction("todo", "add_item", ("Shopping List",), (("item", "Milch"),)),
    DoneAction("todo", "update_item", ("Chores",), (("item", "Rasen"), ("status", "completed"))),
    DoneAction("todo", "update_item", ("Chores",), (("item", "Hecke"), ("rename", "Hecken"))),
)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        (
            "en",
            "turned on oscillation of Living Room Fan, unmuted Bedroom, added Milch to "
            "Shopping List, marked Rasen as done on Chores and renamed Hecke on Chores to "
            "Hecken",
        ),
        (
            "de",
            "die Oszillation von Living Room Fan einschalten, den Ton von Bedroom wieder "
            "einschalten, Milch zu Shopping List hinzufügen, Rasen auf Chores als erledigt "
            "markieren und Hecke auf Chores in Hecken umbenennen",
        ),
        (
            "es",
            "activar la oscilación de Living Room Fan, activar el sonido de Bedroom, añadir "
            "Milch a Shopping List, marcar Rasen como hecho en Chores y renombrar Hecke en Chores "
            "a Hecken",
        ),
    ],
)
def test_a_fields_words_are_said_not_its_name(language: str, said: str) -> None:
    """A yes/no field picks the words, and a to-do item goes inside them, in every language."""
    assert sentence(FAN_SWING_AND_MUTE, language) == said


COLOURS = [
    ("de", "rot", "Erledigt: Kitchen Lights einschalten (rot)."),
    ("fr-CA", "rouge", "C'est fait\u00a0: allumer Kitchen Lights (rouge)."),
    ("es", "rojo", "Hecho: encender Kitchen Lights (rojo)."),
    ("it", "rosso", "Fatto: accendere Kitchen Lights (rosso)."),
    ("nl", "rood", "Klaar: Kitchen Lights inschakelen (rood)."),
    ("pt-BR", "vermelho", "Feito: ligar Kitchen Lights (vermelho)."),
    ("en", "red", "Turned on Kitchen Lights (red)."),
]


@pytest.mark.parametrize(("language", "colour", "said"), COLOURS)
@pytest.mark.parametrize("written", ["in the language", "as Home Assistant names it"])
async def test_a_colour_is_understood_and_said_in_the_conversation_language(
    hass: HomeAssistant,
    ask_after_calls: AskAfterCalls,
    scripted_worker: ScriptedWorker,
    language: str,
    colour: str,
    said: str,
    written: str,
) -> None:
    # "mach das Licht rot": the model writes the colour as the person said it, or as the
    # service names it; either way the light turns red and the answer says the person's word.
    name = "red" if written != "in the language" else colour if language == "en" else colour.title()
    light_red = call("light", action="turn_on", entity_id=KITCHEN, color_name=name)

    result = await ask_after_calls("the kitchen light red", light_red, language=language)

    assert speech(result) == said
    light = hass.states.get(KITCHEN)
    assert light is not None
    assert light.attributes["rgb_color"] == (255, 0, 0)
    assert len(scripted_worker.requests) == 1


async def test_a_held_colour_is_asked_about_in_the_conversation_language(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker, person: Context
) -> None:
    agent = await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_SENSITIVE_ENTITIES: [KITCHEN]}
    )
    scripted_worker.will_write(
        answer(call("light", action="turn_on", entity_id=KITCHEN, color_name="blau"))
    )

    result = await agent.ask("mach das Küchenlicht blau", language="de", context=person)

    assert speech(result).startswith("Kitchen Lights einschalten (blau)?"), speech(result)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Set Target to 21.5."),
        ("de", "Erledigt: Target auf 21,5 einstellen."),
        ("fr", "C'est fait\u00a0: régler Target sur 21,5."),
        ("es", "Hecho: ajustar Target a 21,5."),
        ("it", "Fatto: impostare Target a 21,5."),
        ("nl", "Klaar: Target op 21,5 instellen."),
        ("pt", "Feito: definir Target para 21,5."),
    ],
)
async def test_a_value_set_is_said_with_its_value_in_the_language(
    hass: HomeAssistant, ask_after_calls: AskAfterCalls, language: str, said: str
) -> None:
    # Not "Target einstellen (value 21,5)": the English field name in a German sentence.
    numbers = {"target": {"name": "Target", "min": 0, "max": 30, "step": 0.5}}
    assert await async_setup_component(hass, "input_number", {"input_number": numbers})
    async_expose_entity(hass, "conversation", "input_number.target", True)
    set_target = call(
        "input_number", action="set_value", entity_id="input_number.target", value=21.5
    )

    result = await ask_after_calls("target to 21.5", set_target, language=language)

    assert speech(result) == said
    assert state(hass, "input_number.target") == "21.5"


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Turned off Kitchen Lights."),
        ("de", "Erledigt: Kitchen Lights ausschalten."),
        ("it", "Fatto: spegnere Kitchen Lights."),
    ],
)
async def test_a_light_dimmed_or_a_fan_slowed_to_nothing_is_said_to_be_off(
    hass: HomeAssistant, ask_after_calls: AskAfterCalls, language: str, said: str
) -> None:
    # Home Assistant turns a light off at brightness 0: not "Turned on Kitchen Lights (0 %)".
    light_to_0 = call("light", action="turn_on", entity_id=KITCHEN, brightness_pct=0)
    fan_to_0 = call("fan", action="turn_on", entity_id="fan.living_room_fan", percentage=0)

    result = await ask_after_calls("kitchen light to zero", light_to_0, language=language)

    assert state(hass, KITCHEN) == "off"
    assert speech(result) == said
    async_expose_entity(hass, "conversation", "fan.living_room_fan", True)
    fan = await ask_after_calls("living room fan to zero", fan_to_0, language=language)
    assert state(hass, "fan.living_room_fan") == "off"
    assert speech(fan) == said.replace("Kitchen Lights", "Living Room Fan")
