"""Results say what happened, with the response types and error codes Home Assistant's own
agent uses: action done, query answer, or an error with its code (issue: "done" said for turns
that did nothing)."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.local_agent.const import CONF_CONFIRMATION_PIN
from custom_components.local_agent.engine.errors import EngineError
from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from homeassistant.setup import async_setup_component

from .conftest import Agent
from .conftest import async_setup_agent
from .conftest import speech
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call

ACTION_DONE = intent.IntentResponseType.ACTION_DONE
QUERY_ANSWER = intent.IntentResponseType.QUERY_ANSWER
ERROR = intent.IntentResponseType.ERROR
FAILED_TO_HANDLE = intent.IntentResponseErrorCode.FAILED_TO_HANDLE
NO_INTENT_MATCH = intent.IntentResponseErrorCode.NO_INTENT_MATCH
FRONT_DOOR = "lock.front_door"


def kind(result: conversation.ConversationResult) -> tuple[Any, Any]:
    return result.response.response_type, result.response.error_code


async def test_action_done_names_what_changed(
    scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.will_write(
        answer(call("light", action="turn_off", entity_id="light.kitchen_lights")),
        answer("The kitchen light is off."),
    )

    result = await scripted_agent.ask("turn off the kitchen light")

    assert kind(result) == (ACTION_DONE, None)
    assert [target.id for target in result.response.success_results] == ["light.kitchen_lights"]


# (what the model writes over two turns, each turn's sentence and the kind of its result)
TWO_TURNS_WITHOUT_ACTION: list[tuple[tuple[str, ...], list[tuple[str, tuple[Any, Any]]]]] = [
    # An answer without an action is a query answer: a read, a chat.
    (
        (
            answer(call("get_state", entity_id="light.kitchen_lights")),
            answer("The kitchen light is on."),
            answer("Hello! How can I help?"),
        ),
        [
            ("is the kitchen light on?", (QUERY_ANSWER, None)),
            ("hello", (QUERY_ANSWER, None)),
        ],
    ),
    # "Is the ceiling light on?" about a light the agent may not see was not answered: every
    # read failed is an error, and one read that worked an answer.
    (
        (
            answer(call("get_state", entity_id="light.ceiling_lights")),
            answer("I cannot see that light."),
            answer(
                call("get_state", entity_id="light.ceiling_lights")
                + call("get_state", entity_id="light.kitchen_lights")
            ),
            answer("The kitchen light is on."),
        ),
        [
            ("is the ceiling light on?", (ERROR, FAILED_TO_HANDLE)),
            ("are the ceiling and kitchen lights on?", (QUERY_ANSWER, None)),
        ],
    ),
]


@pytest.mark.parametrize(
    ("writes", "turns"),
    TWO_TURNS_WITHOUT_ACTION,
    ids=[
        "answer without action is a query answer",
        "every read failed is an error and one that worked an answer",
    ],
)
async def test_a_turn_that_changes_nothing_is_a_query_answer_unless_every_read_failed(
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    writes: tuple[str, ...],
    turns: list[tuple[str, tuple[Any, Any]]],
) -> None:
    scripted_worker.will_write(*writes)

    results = [await scripted_agent.ask(sentence) for sentence, _kind in turns]

    assert [kind(result) for result in results] == [expected for _sentence, expected in turns]


async def test_no_answer_is_no_intent_match(
    scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.will_write(answer(""))

    result = await scripted_agent.ask("blorp")

    assert speech(result) == "Sorry, I have no answer to that."
    assert kind(result) == (ERROR, NO_INTENT_MATCH)


async def test_every_call_refused_is_an_error(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.will_write(
        answer(call("light", action="turn_off", entity_id="light.ceiling_lights")),
        answer("I cannot control that light."),
    )

    result = await scripted_agent.ask("turn off the ceiling lights")

    assert speech(result).startswith("I could not turn off ceiling lights. ")
    assert kind(result) == (ERROR, FAILED_TO_HANDLE)


async def test_sensitive_action_refused_without_a_person_is_an_error(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    async_expose_entity(hass, "conversation", FRONT_DOOR, True)
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id=FRONT_DOOR)))

    result = await scripted_agent.ask("unlock the front door", context=Context())

    assert "needs a person to confirm" in speech(result)
    assert kind(result) == (ERROR, FAILED_TO_HANDLE)


async def test_confirmation_question_is_not_done_yet(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    async_expose_entity(hass, "conversation", FRONT_DOOR, True)
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id=FRONT_DOOR)))

    result = await scripted_agent.ask("unlock the front door", context=person)

    assert speech(result).endswith("Say yes to confirm.")
    assert result.continue_conversation is True
    assert kind(result) == (QUERY_ANSWER, None)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [("yes", (ACTION_DONE, None)), ("no", (QUERY_ANSWER, None))],
)
async def test_answer_to_a_confirmation_says_what_it_led_to(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    reply: str,
    expected: tuple[Any, Any],
) -> None:
    async_expose_entity(hass, "conversation", FRONT_DOOR, True)
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id=FRONT_DOOR)))
    question = await scripted_agent.ask("unlock the front door", context=person)

    result = await scripted_agent.ask(
        reply, conversation_id=question.conversation_id, context=person
    )

    assert kind(result) == expected


async def test_a_wrong_pin_is_an_error(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker, person: Context
) -> None:
    agent = await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_CONFIRMATION_PIN: "4711"}
    )
    async_expose_entity(hass, "conversation", FRONT_DOOR, True)
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id=FRONT_DOOR)))
    question = await agent.ask("unlock the front door", context=person)

    result = await agent.ask("1234", conversation_id=question.conversation_id, context=person)

    assert kind(result) == (ERROR, FAILED_TO_HANDLE)


async def test_model_failure_and_round_limit_are_errors(
    phrasing_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    def fail(_request: SeenRequest) -> str:
        raise EngineError("the model went away")

    toggle = answer(call("switch", action="toggle", entity_id="switch.ac"))
    scripted_worker.will_write(fail, *([toggle] * 4))

    failed = await phrasing_agent.ask("turn on the AC")
    looping = await phrasing_agent.ask("keep toggling the AC")

    assert "the model went away" in speech(failed)
    assert kind(failed) == (ERROR, FAILED_TO_HANDLE)
    assert "4 steps" in speech(looping)
    assert kind(looping) == (ERROR, FAILED_TO_HANDLE)


async def test_rest_api_reports_the_type(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    hass_client: ClientSessionGenerator,
) -> None:
    """What `/api/conversation/process` answers, as automations and the UI see it."""
    assert await async_setup_component(hass, "conversation", {})
    client = await hass_client()
    scripted_worker.will_write(answer(""), answer("Hello!"))
    seen = []
    for text in ("blorp", "hello"):
        response = await client.post(
            "/api/conversation/process", json={"text": text, "agent_id": scripted_agent.entity_id}
        )
        assert response.status == 200
        seen.append((await response.json())["response"])

    assert seen[0]["response_type"] == "error"
    assert seen[0]["data"] == {"code": "no_intent_match"}
    assert seen[1]["response_type"] == "query_answer"
