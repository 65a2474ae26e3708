"""PIN questions that hide guesses and nothing else (round 30).

- At a PIN question (open, or one that just timed out) an answer that asks something else had
  every run of three digits or two number words hidden: "wake me at 10:30" reached the model
  as "wake me at **:**", "set the heating to twenty one degrees" as "to ****** ***", "call
  0612 345 678" as "call **** *** ***". What could be a guess at the PIN is hidden (three
  digits or more, as the gate would read them; a time never), the rest is kept. A phone
  number is hidden at a PIN question: hiding by the PIN's own length told that length
  (redteam37).
- A guess in two halves ("47 and then 12, and turn on the kitchen light") reached the model
  whole: the gate reads a PIN's digits across "and then", so the mask does too.
- A second try after a wrong PIN ("4712" refused, then "4713") reached the model as a new
  request: the question is now kept as closed after a wrong PIN, and a try at it is told so
  and hidden as a late answer is.
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.safety.confirmation import spoken_pin
from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from testing.turn import chat_log_of
from testing.turn import logged_words

from .agents import speech
from .agents import state
from .scene import Clock
from .scene import Scene
from .scripted_model import answer

# Requests at a PIN question that carry numbers no guess could be (the PIN is 4711).
NO_GUESSES: Final = [
    "set the heating to twenty one degrees",
    "wake me at 10:30",
    "turn the kitchen light to 40 percent",
    "the code is on the fridge, turn on the kitchen light",
]


@pytest.mark.parametrize("said", NO_GUESSES)
@pytest.mark.parametrize("timed_out", [False, True])
async def test_what_is_no_guess_reaches_the_model_whole(
    hass: HomeAssistant, scene: Scene, clock: Clock, said: str, timed_out: bool
) -> None:
    agent, question = await scene.pin_question()
    if timed_out:
        clock.now += 31
    scene.worker.will_write(answer("Okay."), answer("Okay."))

    reply = await scene.reply(agent, question, said)
    await scene.reply(agent, question, "thanks")

    assert state(hass, "lock.front_door") == "locked"
    assert said in logged_words(chat_log_of(hass, reply))
    assert said in scene.worker.requests[-1].dynamic_prompt


LIGHT: Final = "and turn on the kitchen light"
# Guesses at the PIN (4711) beside another request, the way a person or a satellite says them.
GUESSES: Final = [
    ("47 and then 12", "en"),
    ("4 7 and 1 2", "en"),
    ("four seven one two", "en"),
    ("vier sieben eins zwei", "de"),
    ("quatre sept un deux", "fr"),
    ("cuatro siete uno dos", "es"),
    ("quattro sette uno due", "it"),
    ("vier zeven een twee", "nl"),
    ("quatro sete um dois", "pt"),
    ("forty-seven twelve", "en"),
]


@pytest.mark.parametrize(("guess", "language"), GUESSES)
@pytest.mark.parametrize("timed_out", [False, True])
async def test_a_guess_beside_another_request_stays_hidden(
    hass: HomeAssistant, scene: Scene, clock: Clock, guess: str, language: str, timed_out: bool
) -> None:
    agent, question = await scene.pin_question(language)
    if timed_out:
        clock.now += 31
    scene.worker.will_write(answer("Okay."), answer("Okay."))
    said = f"{guess}, {LIGHT}"

    reply = await scene.reply(agent, question, said, language=language)
    await scene.reply(agent, question, "thanks", language=language)

    assert state(hass, "lock.front_door") == "locked"
    (kept,) = [
        content.content
        for content in chat_log_of(hass, reply).content
        if isinstance(content, conversation.UserContent) and content.content.endswith(LIGHT)
    ]
    assert not {"4", "7", "1", "2"} & set(spoken_pin(kept))
    assert kept in scene.model_saw()
    assert guess not in scene.model_saw()


async def test_a_guess_in_a_long_transcripts_second_sentence_stays_hidden(
    hass: HomeAssistant, scene: Scene
) -> None:
    agent, question = await scene.pin_question()
    scene.worker.will_write(answer("Okay."))

    reply = await scene.reply(
        agent, question, "I just got home. It is 4712. Turn on the kitchen light please."
    )

    assert state(hass, "lock.front_door") == "locked"
    assert "4712" not in logged_words(chat_log_of(hass, reply))
    assert "4712" not in scene.model_saw()
    assert "Turn on the kitchen light" in scene.model_saw()


@pytest.mark.parametrize("again", ["4713", "4 7 1 3", "4713, and turn on the kitchen light"])
async def test_a_try_after_a_wrong_pin_stays_hidden(
    hass: HomeAssistant, scene: Scene, again: str
) -> None:
    agent, question = await scene.pin_question()
    scene.worker.will_write(answer("Okay."))

    wrong = await scene.reply(agent, question, "4712")
    retried = await scene.reply(agent, question, again)

    assert speech(wrong) == "That PIN is not right, so I did nothing."
    assert state(hass, "lock.front_door") == "locked"
    assert "4713" not in logged_words(chat_log_of(hass, retried))
    assert "4 7 1 3" not in logged_words(chat_log_of(hass, retried))
    assert "4713" not in scene.model_saw()
    if again == "4713":
        assert speech(retried) == (
            "That question was closed after a wrong PIN, so I did not unlock Front Door. "
            "Ask again if you still want it."
        )
