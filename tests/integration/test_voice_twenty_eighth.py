"""Satellites with Assist's API, and what a voice household says (the twenty-eighth round).

- Assist's API prompt says where the device is ("You are in area Kitchen …") and whether it
  can start timers: that text was part of the home prefix, so each satellite had a prefix of
  its own and a house with two re-evaluated the whole home whenever the room changed. The
  lines core says differently for a device now go in the request's block; the prefix is the
  same for every satellite, and each request still says its own area and timer ability
  (core's timer tools, offered only to a device that can start timers, stay in its prefix).
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.home.entity_view import VOICE_TIMER_LINE
from homeassistant.components.intent.timers import TimerEventType
from homeassistant.components.intent.timers import TimerInfo
from homeassistant.components.intent.timers import async_register_timer_handler
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from testing.turn import chat_log_of
from testing.turn import logged_words

from .agents import async_setup_agent
from .agents import speech
from .agents import state
from .conftest import Agent
from .scene import Scene
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .test_prompt_layout import last_user_message
from .test_voice_twenty_seventh import a_satellite

NO_TIMERS: Final = "not able to start timers"


def block(request_prompt: str) -> str:
    """The context block of a user message (before the person's words)."""
    return request_prompt.split("\n\n", maxsplit=1)[0]


def with_timers(hass: HomeAssistant, device_id: str) -> None:
    """The device takes timer events, as an ESPHome satellite registers itself."""

    def _on_timer(_event: TimerEventType, _timer: TimerInfo) -> None:
        pass

    async_register_timer_handler(hass, device_id, _on_timer)


async def assist_agent(hass: HomeAssistant, worker: ScriptedWorker) -> Agent:
    return await async_setup_agent(
        hass, worker.info.path, **{CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]}
    )


def kitchen_with_timers_and_hall(hass: HomeAssistant) -> tuple[str, str]:
    """A kitchen satellite that takes timers and a hall tablet that does not (their ids)."""
    kitchen = a_satellite(hass, "Kitchen satellite", "Kitchen")
    with_timers(hass, kitchen)
    return kitchen, a_satellite(hass, "Hall tablet", "Hall")


async def ask_from_kitchen_hall_and_dialog(
    hass: HomeAssistant, worker: ScriptedWorker, said: str
) -> None:
    """Assist's agent hears `said` from the kitchen, from the hall, then with no device."""
    agent = await assist_agent(hass, worker)
    kitchen, hall = kitchen_with_timers_and_hall(hass)
    worker.will_write(answer("…"), answer("…"), answer("…"))

    await agent.ask(said, device_id=kitchen)
    await agent.ask(said, device_id=hall)
    await agent.ask(said)


async def test_two_satellites_share_one_prefix_with_assist(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    """Each request says its own area and timer ability; the prefix is the same."""
    agent = await assist_agent(hass, scripted_worker)
    kitchen = a_satellite(hass, "Kitchen satellite", "Kitchen", "Ground Floor")
    bedroom = a_satellite(hass, "Bedroom satellite", "Bedroom")
    with_timers(hass, kitchen)
    with_timers(hass, bedroom)
    scripted_worker.will_write(answer("…"), answer("…"))

    await agent.ask("turn on the lights", device_id=kitchen)
    await agent.ask("turn on the lights", device_id=bedroom)

    one, two = scripted_worker.requests
    assert one.static_prompt == two.static_prompt
    assert "You are in area" not in one.static_prompt
    assert "You are in area Kitchen (floor Ground Floor)" in block(last_user_message(one))
    assert "You are in area Bedroom and" in block(last_user_message(two))
    for request in (one, two):
        assert NO_TIMERS not in request.static_prompt + request.dynamic_prompt


async def test_a_device_without_timers_and_the_dialog_say_their_own_lines(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    """What core says of a device that cannot start timers, or of no device, is kept whole."""
    await ask_from_kitchen_hall_and_dialog(hass, scripted_worker, "turn on the lights")

    kitchen_asks, hall_asks, dialog = scripted_worker.requests
    assert NO_TIMERS in block(last_user_message(hall_asks))
    assert "You are in area Hall" in block(last_user_message(hall_asks))
    assert NO_TIMERS in block(last_user_message(dialog))
    assert "ask the user to specify an area" in block(last_user_message(dialog))
    # Core offers its timer tools to a device that can start timers only: those two differ.
    assert dialog.static_prompt == hall_asks.static_prompt
    assert NO_TIMERS not in kitchen_asks.static_prompt + kitchen_asks.dynamic_prompt


async def test_with_our_tools_the_model_knows_no_voice_timer_starts(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """No tool of ours starts a satellite's timer: the model is told, the same for every device."""
    kitchen, hall = kitchen_with_timers_and_hall(hass)
    scripted_worker.will_write(answer("…"), answer("…"))

    await scripted_agent.ask("set a timer for five minutes", device_id=kitchen)
    await scripted_agent.ask("set a timer for five minutes", device_id=hall)

    one, two = scripted_worker.requests
    assert VOICE_TIMER_LINE in one.static_prompt
    assert one.static_prompt == two.static_prompt


# A PIN (4711) said as a number, as a voice says it, by language: never read as a code.
PIN_AS_NUMBER: Final = {
    "en": ("forty seven eleven", "I heard no PIN: say its digits one by one"),
    "de": ("siebenundvierzig elf", "Ich habe keine PIN gehört"),
    "fr": ("quarante-sept onze", "Je n'ai entendu aucun code PIN"),
    "es": ("cuarenta y siete once", "No he oído ningún PIN"),
    "it": ("quarantasette undici", "Non ho sentito nessun PIN"),
    "nl": ("zevenenveertig elf", "Ik hoorde geen pincode"),
    "pt": ("quarenta e sete onze", "Não ouvi nenhum PIN"),
}


@pytest.mark.parametrize("language", sorted(PIN_AS_NUMBER))
async def test_a_pin_said_as_a_number_is_asked_again_digit_by_digit(
    hass: HomeAssistant, scene: Scene, language: str
) -> None:
    """No reading of a number as a code: the person hears why, the question stays, no failure."""
    said, heard = PIN_AS_NUMBER[language]
    agent, question = await scene.pin_question(language)

    reply = await scene.reply(agent, question, said, language=language)

    assert heard in speech(reply)
    assert reply.continue_conversation
    assert state(hass, "lock.front_door") == "locked"
    assert said.split()[0] not in logged_words(chat_log_of(hass, reply))
    await scene.reply(agent, question, "4 7 1 1", language=language)
    assert state(hass, "lock.front_door") == "unlocked"


@pytest.mark.parametrize(
    ("language", "said"),
    [("en", "four seven one one"), ("de", "vier sieben eins eins"), ("fr", "quatre sept un un")],
)
async def test_a_pin_said_digit_by_digit_unlocks(
    hass: HomeAssistant, scene: Scene, language: str, said: str
) -> None:
    """Digit words in the conversation's language are the code, as before."""
    agent, question = await scene.pin_question(language)

    await scene.reply(agent, question, said, language=language)

    assert state(hass, "lock.front_door") == "unlocked"
