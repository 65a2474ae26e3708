"""A thirty-second round of red-team probes: what voice29, everyday31 and browser23 changed.

Hole. At a PIN question an answer that asks something else has only what may be a PIN guess
hidden: a run of three digits, spaces and ",.-/" between them. The gate reads a PIN's digits
whatever separates them, so "4:7:1:2, and turn on the kitchen light" was a guess to it, yet
reached the model, the chat log and the history of later turns whole, as did "4·7·1·2",
"4;7;1;2", en dashes and digits parted by a zero-width space. Anything that is no word
now stands inside a number as a space does.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.core import HomeAssistant
from testing.turn import chat_log_of
from testing.turn import logged_words

from .agents import state
from .scene import Scene
from .scripted_model import answer

# A guess one digit off the scene's PIN (4711), its digits parted by what is no word.
PARTED_GUESSES: Final = [
    "4:7:1:2",
    "4·7·1·2",
    "4;7;1;2",
    "4 \u2013 7 \u2013 1 \u2013 2",
    "4\u200b7\u200b1\u200b2",
]


@pytest.mark.parametrize("guess", PARTED_GUESSES)
async def test_a_guess_parted_by_any_mark_stays_hidden(
    hass: HomeAssistant, scene: Scene, guess: str
) -> None:
    agent = await scene.pin_agent()
    question = await scene.ask_to_unlock(agent)
    scene.worker.will_write(answer("Okay."), answer("Okay."))

    reply = await scene.reply(agent, question, f"{guess}, and turn on the kitchen light")
    await scene.reply(agent, question, "thanks")

    assert state(hass, "lock.front_door") == "locked"
    assert guess not in logged_words(chat_log_of(hass, reply))
    assert guess not in scene.model_saw()
    assert "turn on the kitchen light" in scene.model_saw()
