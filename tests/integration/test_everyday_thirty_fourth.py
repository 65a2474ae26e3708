"""The history the model reads next reads as the person heard it.

- The model wrote no answer: the chat log kept an empty assistant message beside what the
  agent said instead, and the next turn showed the model both. The empty one is left out.
- A held question set aside by another reply: the person heard "I did not unlock Front Door,
  …" first and the answer to the rest after; the model read them the other way round.
"""

from __future__ import annotations

from typing import Final

from custom_components.local_agent.engine.types import Message
from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scene import unlock
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer

FRONT_DOOR: Final = "lock.front_door"


def next_turn_saw(worker: ScriptedWorker, text: str) -> tuple[list[Message], list[str]]:
    """Script the next generation to answer `text`; fill the returned list with its messages."""
    seen: list[Message] = []

    def write(request: SeenRequest) -> str:
        conversation = request.conversation
        assert conversation is not None
        seen.extend(conversation.messages)
        return answer(text)

    worker.will_write(write)
    return seen, []


def assistant_texts(messages: list[Message]) -> list[str]:
    return [message.content for message in messages if message.role == "assistant"]


async def test_an_empty_answer_is_not_kept_as_an_empty_message(
    scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    scripted_worker.will_write(answer(""))
    first = await scripted_agent.ask("hello", context=person)
    seen, _ = next_turn_saw(scripted_worker, "Hi.")

    await scripted_agent.ask("hello?", conversation_id=first.conversation_id, context=person)

    said = speech(first)
    assert said
    assert assistant_texts(seen) == [said]


async def test_a_set_aside_question_reads_first_as_it_was_heard(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    scripted_worker.will_write(unlock())
    question = await scripted_agent.ask("unlock the front door", context=person)
    scripted_worker.will_write(answer("It is sunny."))
    reply = await scripted_agent.ask(
        "no, what is the weather like?", conversation_id=question.conversation_id, context=person
    )
    seen, _ = next_turn_saw(scripted_worker, "Okay.")

    await scripted_agent.ask("thanks", conversation_id=question.conversation_id, context=person)

    not_done = "I did not unlock Front Door, since your answer was not a plain yes."
    assert speech(reply) == f"{not_done} It is sunny."
    assert state(hass, FRONT_DOOR) == "locked"
    assert assistant_texts(seen)[-2:] == [not_done, "It is sunny."]
