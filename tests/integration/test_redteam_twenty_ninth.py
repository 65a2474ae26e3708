"""A twenty-ninth round of red-team probes: the second round of session 59.

Hole. A PIN said as a number is never read, and its words are hidden like digits: but only
when the answer was read as a PIN, or had a digit word in it. "forty eleven, and turn on the
light" (PIN 4011) at a PIN question is something else (the question is set aside and the words
go to the model as a new request): no digit word in it, so "forty eleven" stayed in the chat
log and went to the model whole. A late "forty eleven" to a PIN question that had timed out
stayed in the log the same way. Every answer to a PIN question now hides its number words.
"""

from __future__ import annotations

import pytest

from homeassistant.core import HomeAssistant
from testing.turn import chat_log_of
from testing.turn import logged_words

from .agents import speech
from .agents import state
from .scene import Clock
from .scene import Scene
from .scripted_model import answer


@pytest.mark.parametrize(
    "said",
    ["forty eleven, and turn on the kitchen light", "vierzig elf und mach das Licht an"],
)
async def test_a_pin_said_as_a_number_beside_a_request_is_hidden_from_the_model(
    hass: HomeAssistant, scene: Scene, said: str
) -> None:
    """Set aside, the answer's number words (the PIN 4011 said as a number) stay out."""
    agent = await scene.pin_agent()
    question = await scene.ask_to_unlock(agent)
    scene.worker.will_write(answer("Which light?"))

    reply = await scene.reply(agent, question, said)

    assert state(hass, "lock.front_door") == "locked"
    number = said.split()[0]
    assert number not in scene.model_saw()
    assert number not in logged_words(chat_log_of(hass, reply))


async def test_a_late_pin_said_as_a_number_is_hidden(
    hass: HomeAssistant, scene: Scene, clock: Clock
) -> None:
    """An answer to a PIN question that timed out is told so, and its number words stay out."""
    agent = await scene.pin_agent()
    question = await scene.ask_to_unlock(agent)
    clock.now += 31

    late = await scene.reply(agent, question, "forty eleven")

    assert state(hass, "lock.front_door") == "locked"
    assert "forty" not in logged_words(chat_log_of(hass, late)), speech(late)


async def test_a_pin_said_as_a_number_in_another_tab_is_hidden(
    hass: HomeAssistant, scene: Scene
) -> None:
    """In a new conversation of the same person, a number (their PIN in words) stays out too."""
    agent = await scene.pin_agent()
    await scene.ask_to_unlock(agent)
    scene.worker.will_write(answer("Which light?"))

    elsewhere = await agent.ask("forty eleven", context=scene.person)

    assert state(hass, "lock.front_door") == "locked"
    assert "forty" not in scene.model_saw()
    assert "forty" not in logged_words(chat_log_of(hass, elsewhere)), speech(elsewhere)
