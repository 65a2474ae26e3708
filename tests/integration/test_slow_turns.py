"""A slow turn says so early, ends before Home Assistant's pipeline gives up, and is logged.

Driven through the Assist pipeline's websocket command, as the Assist dialog runs it: the
events it gets (streamed chat log deltas, the answer) are what the dialog shows.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.turn import notices
from custom_components.local_agent.turn.notices import USER_ONLY
from homeassistant.components import conversation
from homeassistant.components.assist_pipeline.const import DEFAULT_PIPELINE_TIMEOUT
from homeassistant.components.conversation.chat_log import DATA_CHAT_LOGS
from homeassistant.core import HomeAssistant

from .conftest import Agent
from .conftest import Assist
from .conftest import state
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call

NOTICE = "This takes a moment: the model is still thinking."


@pytest.fixture
def notice_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    """The slow-turn notice after 50 ms instead of 5 s."""
    monkeypatch.setattr(notices, "SLOW_NOTICE_AFTER", 0.05)


def streamed_text(events: list[dict[str, Any]]) -> str:
    """The text the Assist dialog shows while the turn runs (before the final answer)."""
    return "".join(
        event["data"]["chat_log_delta"].get("content", "")
        for event in events
        if event["type"] == "intent-progress" and "chat_log_delta" in event["data"]
    )


def intent_output(events: list[dict[str, Any]]) -> dict[str, Any]:
    """What the turn's end gave the pipeline: its response and conversation id."""
    end = next(event for event in events if event["type"] == "intent-end")
    output: dict[str, Any] = end["data"]["intent_output"]
    return output


def final_speech(events: list[dict[str, Any]]) -> str:
    return str(intent_output(events)["response"]["speech"]["plain"]["speech"])


def assistant_contents(
    hass: HomeAssistant, events: list[dict[str, Any]]
) -> list[conversation.AssistantContent]:
    """The assistant's entries in the turn's chat log, which the next turn's prompt is made of."""
    chat_log = hass.data[DATA_CHAT_LOGS][intent_output(events)["conversation_id"]]
    return [c for c in chat_log.content if isinstance(c, conversation.AssistantContent)]


async def test_a_slow_turn_says_so_early_and_the_model_never_reads_it(
    hass: HomeAssistant,
    assist: Assist,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    notice_soon: None,
) -> None:
    scripted_worker.thinking_seconds = 0.5
    scripted_worker.will_write(
        answer("The kitchen light is on.", reasoning="The user asks about the kitchen light."),
        answer("Hello again."),
    )

    events = await assist("is the kitchen light on?")

    # The dialog shows the notice at once, then the model's text; the answer is the model's.
    assert streamed_text(events) == f"{NOTICE}\n\nThe kitchen light is on."
    assert final_speech(events) == "The kitchen light is on."
    assistant = assistant_contents(hass, events)
    assert [(c.native, c.content) for c in assistant] == [
        (USER_ONLY, f"{NOTICE}\n\n"),
        (None, "The kitchen light is on."),
    ]
    # The reasoning held back while the notice could still come is the model's, whole.
    assert assistant[1].thinking_content == "The user asks about the kitchen light."

    # The next turn's prompt has the model's answer but not the notice.
    scripted_worker.thinking_seconds = 0
    await scripted_agent.ask("hello", conversation_id=intent_output(events)["conversation_id"])
    prompt = scripted_worker.requests[-1].prompt.text
    assert "The kitchen light is on." in prompt
    assert "This takes a moment" not in prompt


async def test_a_quick_turn_has_no_notice(assist: Assist, scripted_worker: ScriptedWorker) -> None:
    scripted_worker.will_write(answer("Hello."))

    events = await assist("hello")

    assert streamed_text(events) == "Hello."
    assert final_speech(events) == "Hello."


async def test_a_turn_past_its_time_limit_stops_and_answers_before_the_pipeline_gives_up(
    hass: HomeAssistant,
    assist: Assist,
    scripted_worker: ScriptedWorker,
    notice_soon: None,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(notices, "TURN_TIME_LIMIT", 0.3)
    scripted_worker.thinking_seconds = 30
    scripted_worker.will_write(
        answer(call("light", action="turn_off", entity_id="light.kitchen_lights"))
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    warmed = len(scripted_worker.warmed)

    # The pipeline would give up after 5 s; the turn answers at its own limit.
    events = await assist("turn off the kitchen light", timeout=5)

    assert [e["type"] for e in events if e["type"] == "error"] == []
    # The dialog keeps the notice and shows the answer once (in red: an error response).
    assert streamed_text(events) == f"{NOTICE}\n\n"
    assert final_speech(events).startswith(
        "Sorry, that took too long, so I stopped after 0 seconds"
    )
    response = intent_output(events)["response"]
    assert response["response_type"] == "error"
    assert response["data"]["code"] == "failed_to_handle"
    assert "stopped a turn at its time limit" in caplog.text
    # The generation was stopped: the model never got to write its call.
    assert state(hass, "light.kitchen_lights") == "on"
    # What the stopped turn left of the prefix goes on being evaluated in the background.
    await hass.async_block_till_done(wait_background_tasks=True)
    assert len(scripted_worker.warmed) == warmed + 1


async def test_a_turn_the_pipeline_abandons_is_logged_with_why(
    hass: HomeAssistant,
    assist: Assist,
    scripted_worker: ScriptedWorker,
    caplog: pytest.LogCaptureFixture,
) -> None:
    scripted_worker.thinking_seconds = 30
    scripted_worker.will_write(answer("Too late."))
    await hass.async_block_till_done(wait_background_tasks=True)
    warmed = len(scripted_worker.warmed)

    # Home Assistant ends the run, then reports its timeout.
    events = await assist("hello", "error", timeout=0.3)

    assert events[-1]["type"] == "error"
    assert events[-1]["data"]["code"] == "timeout"
    assert "was abandoned after" in caplog.text
    assert "Home Assistant cancelled it" in caplog.text
    await hass.async_block_till_done(wait_background_tasks=True)
    assert len(scripted_worker.warmed) == warmed + 1


def test_the_time_limit_leaves_the_pipeline_time_to_speak() -> None:
    assert notices.TURN_TIME_LIMIT <= DEFAULT_PIPELINE_TIMEOUT - 60


async def test_after_a_streamed_call_the_agents_question_is_streamed_too(
    hass: HomeAssistant, assist: Assist, scripted_worker: ScriptedWorker, notice_soon: None
) -> None:
    # Text, then a call: a voice pipeline now speaks the stream and no longer the final
    # answer, so the question must be in the stream or it is never heard.
    scripted_worker.thinking_seconds = 0.3
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id="lock.front_door")))

    events = await assist("unlock the front door")

    question = "Unlock Front Door? Say yes to confirm."
    assert streamed_text(events) == f"{NOTICE}\n\n{question}"
    assert final_speech(events) == question
    assert state(hass, "lock.front_door") == "locked"


async def test_a_command_waiting_for_the_prefix_says_that_and_not_the_slow_notice_too(
    hass: HomeAssistant,
    assist: Assist,
    scripted_worker: ScriptedWorker,
    notice_soon: None,
) -> None:
    scripted_worker.warming_left = 41.2
    scripted_worker.thinking_seconds = 0.5  # past the slow-turn notice's 50 ms
    scripted_worker.will_write(answer("Hello.", reasoning="A greeting."))

    events = await assist("hello")

    waiting = "I am still reading your home, about 42 seconds."
    assert streamed_text(events) == f"{waiting}\n\nHello."
    assert NOTICE not in streamed_text(events)
    assert final_speech(events) == "Hello."


# The model's words beside its call: a claim of done before the call the gate holds, a promise
# before a call that runs. A voice pipeline speaks the stream from the call on, so either would
# be heard before what is true; neither is streamed, said, or kept in the chat log the next
# turn's prompt is made of. A case: the words, the call (domain, action, entity and the state
# it is in after the turn), what the person says and is told, a part of the words never heard.
BESIDE_A_CALL: Final = {
    "before a held call: never streamed, said or read again": (
        "Done, the front door is unlocked!",
        ("lock", "unlock", "lock.front_door", "locked"),
        ("unlock the front door", "Unlock Front Door? Say yes to confirm."),
        "unlocked!",
    ),
    "beside calls that ran: not said before what they did": (
        "Sure, I will switch the air conditioner on for you right now, one moment please.",
        ("switch", "turn_on", "switch.ac", "on"),  # the demo's AC starts off
        ("turn on the AC", "Turned on AC."),
        "Sure",
    ),
}


@pytest.mark.parametrize(
    ("words", "written", "turn", "unsaid"), BESIDE_A_CALL.values(), ids=list(BESIDE_A_CALL)
)
async def test_the_models_text_beside_a_call_is_never_streamed_said_or_read_again(
    hass: HomeAssistant,
    assist: Assist,
    scripted_worker: ScriptedWorker,
    words: str,
    written: tuple[str, str, str, str],
    turn: tuple[str, str],
    unsaid: str,
) -> None:
    domain, action, entity_id, after = written
    command, said = turn
    scripted_worker.will_write(
        answer(f"{words}\n" + call(domain, action=action, entity_id=entity_id))
    )

    events = await assist(command)

    assert unsaid not in streamed_text(events)
    assert final_speech(events) == said
    assert state(hass, entity_id) == after
    assistant = assistant_contents(hass, events)
    assert [(bool(c.tool_calls), c.content) for c in assistant] == [(True, None), (False, said)]
