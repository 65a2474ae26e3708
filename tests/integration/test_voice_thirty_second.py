"""A PIN through a satellite, and where a guess must never appear (round 32).

- A satellite's transcript of the PIN ("4 7 1 1", "47 11", "4711.", "vier sieben eins eins"
  in a German pipeline), answered to a held unlock through a real Assist pipeline, is read
  by the gate as typed. What the satellite says at each step (the question, a wrong PIN, the
  lock-out, success) never holds the PIN or a guess.
- A right PIN, a wrong one, a guess beside another request at the question, and a four-digit
  number outside a question leave no guess in the audit (the logbook's entries), the entry's
  diagnostics, what we put in the conversation trace, the history and context blocks later
  turns show the model, or the chat log; the person's own Assist dialog shows what they said.
  Core's own trace of the raw sentence is core's (README).
- A PIN agent hid every number of four digits or more outside a question: "2700 kelvin", "a
  timer for 1500 seconds" and "December 24, 2026" reached the model as "****", which could
  only guess or ask again. A quantity with its unit and a date are kept (safety/number_shapes):
  the message's words decide, never the PIN, so there is still no oracle; a message that names
  a code ("pin 4711 seconds") and an answer at a PIN question keep everything hidden.
- What stays hidden ("set a timer for 4712") reached the model as "****" with no word of why:
  a small model guesses a number or says the asterisks, which a voice leaves out, and the
  person hears their request lose its number. That message's block now tells the model the
  digits were hidden and to ask for the number with its unit or as a date, never to guess.
"""

from __future__ import annotations

import re
from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.diagnostics import async_get_config_entry_diagnostics
from custom_components.local_agent.safety.confirmation import PIN_LOCKOUT_SECONDS
from custom_components.local_agent.turn.agent import HIDDEN_DIGITS_LINE
from custom_components.local_agent.turn.home_context import kept_conversations
from homeassistant.components.conversation import trace as conversation_trace
from homeassistant.components.conversation.chat_log import DATA_CHAT_LOGS
from homeassistant.core import HomeAssistant
from testing.turn import chat_log_of
from testing.turn import logged_words

from .agents import state
from .conftest import Agent
from .conftest import Assist
from .scene import PIN
from .scene import Clock
from .scene import Scene
from .scene import unlock
from .scripted_model import answer
from .test_slow_turns import intent_output
from .test_voice_thirty_first import assert_reaches_the_model_whole
from .test_voice_thirty_first import seen
from .test_voice_twenty_ninth import a_spoken_pipeline
from .test_voice_twenty_seventh import a_satellite

# The scene's front door as our questions name it aloud: with its id, a name heard like
# another's (the id's brackets said as a pause since round 39).
FRONT_DOOR: Final = "Front Door, lock.front_door"
UNLOCK: Final = {"en": "unlock the front door", "de": "entsperre die Haustür"}


class Satellite:
    """A voice satellite in the hall, talking to an agent through its own pipeline."""

    def __init__(self, hass: HomeAssistant, assist: Assist, pipeline: str) -> None:
        self.assist = assist
        self.pipeline = pipeline
        self.device_id = a_satellite(hass, "Hall satellite", "Hall")
        self.conversation_id: str | None = None

    async def say(self, text: str, **options: Any) -> list[dict[str, Any]]:
        """Say `text` in the satellite's conversation; the pipeline's events."""
        events = await self.assist(
            text,
            pipeline=self.pipeline,
            device_id=self.device_id,
            conversation_id=self.conversation_id,
            **options,
        )
        self.conversation_id = intent_output(events)["conversation_id"]
        return events

    async def answer(self, text: str) -> str:
        """Say `text`; the agent's speech (what the satellite's text-to-speech is given)."""
        speech: str = intent_output(await self.say(text))["response"]["speech"]["plain"]["speech"]
        return speech


async def a_hall_satellite(
    hass: HomeAssistant, assist: Assist, agent: Agent, language: str = "en"
) -> Satellite:
    """A satellite whose pipeline, in `language`, answers through `agent`."""
    return Satellite(hass, assist, await a_spoken_pipeline(hass, agent, None, language))


# What a satellite's speech-to-text writes for the scene's PIN (4711), by pipeline language.
TRANSCRIPTS: Final = [
    ("en", "4 7 1 1"),
    ("en", "47 11"),
    ("en", "4711."),
    ("en", "4711"),
    ("de", "vier sieben eins eins"),
    ("de", "4 7 1 1."),
]


@pytest.mark.parametrize(("language", "said"), TRANSCRIPTS)
async def test_a_satellites_transcript_of_the_pin_unlocks(
    hass: HomeAssistant, scene: Scene, assist: Assist, language: str, said: str
) -> None:
    satellite = await a_hall_satellite(hass, assist, await scene.pin_agent(), language)
    scene.worker.will_write(unlock())

    asked = await satellite.answer(UNLOCK[language])
    assert state(hass, "lock.front_door") == "locked"
    done = await satellite.answer(said)

    assert state(hass, "lock.front_door") == "unlocked"
    assert PIN not in asked + done


# Guesses one digit off the PIN, as a satellite writes them.
WRONG: Final = ["4 7 1 2", "47 12", "4713."]


async def test_what_a_satellite_says_never_holds_the_pin_or_a_guess(
    hass: HomeAssistant, scene: Scene, assist: Assist, clock: Clock
) -> None:
    """Guard."""
    satellite = await a_hall_satellite(hass, assist, await scene.pin_agent())
    said: list[str] = []
    for guess in WRONG:
        scene.worker.will_write(unlock())
        said += [await satellite.answer(UNLOCK["en"]), await satellite.answer(guess)]
    clock.now += PIN_LOCKOUT_SECONDS + 1
    scene.worker.will_write(unlock())
    said += [await satellite.answer(UNLOCK["en"]), await satellite.answer("4 7 1 1")]

    assert state(hass, "lock.front_door") == "unlocked"
    question = f"Unlock {FRONT_DOOR}? Say your PIN to confirm."
    wrong = "That PIN is not right, so I did nothing."
    assert said == [
        *[question, wrong] * 2,
        question,
        "Too many wrong PINs: I will not confirm anything for 5 minutes.",
        question,
        f"Done: unlock {FRONT_DOOR}.",
    ]
    for number in [PIN, "4712", "4713", "4 7", "47 1", "four", "seven"]:
        assert all(number not in words for words in said), number


async def everywhere_kept(hass: HomeAssistant, scene: Scene, agent: Agent) -> dict[str, str]:
    """Each place a turn leaves a trace of what was said, as text."""
    ours = [
        event["data"]
        for trace in conversation_trace.async_get_traces()
        for event in trace.as_dict()["events"]
        if event["event_type"] == conversation_trace.ConversationTraceEventType.AGENT_DETAIL
    ]
    return {
        "audit and logbook": repr(scene.audit),
        "diagnostics": repr(await async_get_config_entry_diagnostics(hass, agent.entry)),
        "our part of the conversation trace": repr(ours),
        "model's prompts": scene.model_saw(),
        "context blocks kept": repr(kept_conversations(hass, agent.entity_id)),
        "chat logs": repr([logged_words(log) for log in hass.data[DATA_CHAT_LOGS].values()]),
    }


# What a person says, turn by turn, to the PIN agent; "unlock" asks to unlock the front door.
SAID: Final = {
    "right PIN": ["unlock", "4 7 1 1", "what time is it"],
    "wrong PIN": ["unlock", "4 7 1 2", "what time is it"],
    "guess beside a request": ["unlock", "4712, and turn on the kitchen light", "what time is it"],
    "number outside a question": ["set a timer for 4712", "what time is it"],
}


@pytest.mark.parametrize("said", sorted(SAID))
async def test_a_guess_appears_nowhere_the_turn_is_kept(
    hass: HomeAssistant, scene: Scene, said: str
) -> None:
    agent = await scene.pin_agent()
    conversation_trace.async_clear_traces()
    conversation_id = None
    for text in SAID[said]:
        scene.worker.will_write(unlock() if text == "unlock" else answer("Okay."))
        result = await agent.ask(
            UNLOCK["en"] if text == "unlock" else text,
            conversation_id=conversation_id,
            context=scene.person,
        )
        conversation_id = result.conversation_id

    kept = await everywhere_kept(hass, scene, agent)
    assert "what time is it" in kept["model's prompts"]
    # Whole words only: a timestamp's microseconds or an id may hold the same digits by chance.
    for place, words in kept.items():
        for number in ("4711", "4712", "4 7 1"):
            assert not re.search(rf"\b{number}\b", words), (place, number)


# Everyday numbers of four digits or more, said to a PIN agent when no question is open: their
# shape (a unit after them, a date) says what they are, so the model can act on them.
EVERYDAY: Final = [
    "set the bedroom light to 2700 kelvin",
    "set a timer for 1500 seconds",
    "remind me on December 24, 2026",
    "erinnere mich am 24. Dezember 2026",
    "put the meeting on 2026-12-24",
    "un minuteur de 1200 secondes",
]


@pytest.mark.parametrize("said", EVERYDAY)
async def test_a_quantity_or_a_date_reaches_the_model_whole(
    hass: HomeAssistant, scene: Scene, said: str
) -> None:
    await assert_reaches_the_model_whole(hass, scene, said)


# A number framed as a code, or with no unit, stays hidden whatever its shape.
STILL_HIDDEN: Final = {
    "unlock the front door, pin 4711 seconds": "pin **** seconds",
    "my code is 4712 minutes": "my code is **** minutes",
    "set a timer for 4712": "set a timer for ****",
    "pon un temporizador de 4712 por favor": "de **** por favor",
}


@pytest.mark.parametrize("said", sorted(STILL_HIDDEN))
async def test_a_number_framed_as_a_code_stays_hidden(
    hass: HomeAssistant, scene: Scene, said: str
) -> None:
    """Guard."""
    logged, prompts = await seen(hass, scene, said)

    assert STILL_HIDDEN[said] in logged
    assert STILL_HIDDEN[said] in prompts


async def test_at_a_pin_question_a_guess_with_a_unit_stays_hidden(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Guard: a quantity is kept only where no PIN question is open."""
    agent, question = await scene.pin_question()
    scene.worker.will_write(answer("Okay."))

    reply = await scene.reply(agent, question, "set a timer for 4712 seconds")

    assert "4712" not in logged_words(chat_log_of(hass, reply))
    assert "4712" not in scene.model_saw()


async def test_the_assist_dialog_shows_what_the_person_said(
    hass: HomeAssistant, scene: Scene, assist: Assist
) -> None:
    """Guard: the model's view hides a possible PIN; the person's own dialog does not."""
    satellite = await a_hall_satellite(hass, assist, await scene.pin_agent())
    scene.worker.will_write(answer("Okay."))

    events = await satellite.say("set a timer for 4712")

    start = next(event for event in events if event["type"] == "intent-start")
    assert start["data"]["intent_input"] == "set a timer for 4712"
    assert "set a timer for ****" in scene.model_saw()


@pytest.mark.parametrize(
    ("said", "told"), [("set a timer for 4712", True), ("set a timer for 1500 seconds", False)]
)
async def test_the_model_is_told_digits_were_hidden_and_not_to_guess_them(
    hass: HomeAssistant, scene: Scene, said: str, told: bool
) -> None:
    """A small model shown "****" guessed a number or said the asterisks, which a voice
    leaves out: the person heard a request lose its number without a word."""
    _logged, prompts = await seen(hass, scene, said)

    assert (HIDDEN_DIGITS_LINE in prompts) is told
