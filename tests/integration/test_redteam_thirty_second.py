"""A thirty-second round of red-team probes: what voice29, everyday31 and browser23 changed.

Hole. At a PIN question an answer that asks something else has only what may be a PIN guess
hidden: a run of three digits, spaces and ",.-/" between them. The gate reads a PIN's digits
whatever separates them, so "4:7:1:2, and turn on the kitchen light" was a guess to it, yet
reached the model, the chat log and the history of later turns whole, as did "4·7·1·2",
"4;7;1;2", en dashes and digits parted by a zero-width space. Anything that is no word
now stands inside a number as a space does.

Hole. Assist's timer tools are offered to every request since one prefix serves every device;
core refuses a timer only to a start from a device that cannot start timers. Cancel, pause,
change and status find a timer by its name or as the only one in the house: the model, asked
from the dialog, an automation or a hall tablet, cancelled or paused the kitchen satellite's
timer, which core's own agents never offer there. Every timer tool now gets core's refusal
(TimersNotSupportedError) on such a device, before it runs.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.intent.const import TIMER_DATA
from homeassistant.components.intent.timers import TimerManager
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from testing.turn import chat_log_of
from testing.turn import logged_words

from .agents import state
from .scene import Scene
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_voice_twenty_eighth import assist_agent
from .test_voice_twenty_eighth import with_timers
from .test_voice_twenty_seventh import a_satellite

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
    agent, question = await scene.pin_question()
    scene.worker.will_write(answer("Okay."), answer("Okay."))

    reply = await scene.reply(agent, question, f"{guess}, and turn on the kitchen light")
    await scene.reply(agent, question, "thanks")

    assert state(hass, "lock.front_door") == "locked"
    assert guess not in logged_words(chat_log_of(hass, reply))
    assert guess not in scene.model_saw()
    assert "turn on the kitchen light" in scene.model_saw()


async def _kitchen_satellite_with_a_timer(hass: HomeAssistant) -> str:
    """A satellite that takes timers, with a five-minute timer of its own running; its id."""
    kitchen = a_satellite(hass, "Kitchen satellite", "Kitchen")
    with_timers(hass, kitchen)
    await intent.async_handle(
        hass, "test", intent.INTENT_START_TIMER, {"minutes": {"value": 5}}, device_id=kitchen
    )
    return kitchen


def _timers(hass: HomeAssistant) -> TimerManager:
    manager: TimerManager = hass.data[TIMER_DATA]
    return manager


@pytest.mark.parametrize("tool", ["intent__HassCancelTimer", "intent__HassPauseTimer"])
@pytest.mark.parametrize("asker", ["dialog", "automation", "hall tablet"])
async def test_the_kitchen_timer_is_out_of_reach_of_a_device_without_timers(
    hass: HomeAssistant,
    demo_home: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    tool: str,
    asker: str,
) -> None:
    agent = await assist_agent(hass, scripted_worker)
    kitchen = await _kitchen_satellite_with_a_timer(hass)
    hall = a_satellite(hass, "Hall tablet", "Hall")
    scripted_worker.will_write(answer(call(tool)), answer("I cannot do that here."))

    await agent.ask(
        "stop the timer",
        device_id=hall if asker == "hall tablet" else None,
        context=None if asker == "automation" else person,
    )

    (timer,) = _timers(hass).timers.values()
    assert timer.is_active
    assert timer.device_id == kitchen
    assert "Device does not support timers" in scripted_worker.requests[-1].dynamic_prompt


async def test_the_kitchen_satellite_still_cancels_its_own_timer(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Guard: a device that can start timers keeps core's timer tools as core runs them."""
    agent = await assist_agent(hass, scripted_worker)
    kitchen = await _kitchen_satellite_with_a_timer(hass)
    scripted_worker.will_write(answer(call("intent__HassCancelTimer")), answer("Cancelled."))

    await agent.ask("cancel the timer", device_id=kitchen, context=person)

    assert not _timers(hass).timers
