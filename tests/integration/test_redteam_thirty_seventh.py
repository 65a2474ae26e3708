"""A thirty-seventh round of red-team probes: PIN masks, core's sentences, names told apart."""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.const import CONF_CONFIRMATION_PIN
from custom_components.local_agent.const import CONF_EXEMPT_TOOLS
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from testing.home_builder import async_add_fixture_home
from testing.home_builder import async_area
from testing.home_builder import async_expose_only
from testing.home_builder import async_place_entity

from .agents import async_setup_agent
from .agents import speech
from .agents import state
from .other_integrations import offer_answering_tool
from .scene import Scene
from .scene import ask_to_unlock
from .scene import tool_call
from .scene import tool_calls
from .scripted_model import ScriptedWorker
from .scripted_model import answer


@pytest.mark.parametrize("pin", ["4711", "47114711", "471147114711"])
@pytest.mark.parametrize("digits", [3, 5, 7, 8, 9, 11, 13])
async def test_what_a_pin_question_hides_never_tells_the_pins_length(
    hass: HomeAssistant, scene: Scene, pin: str, digits: int
) -> None:
    agent = await async_setup_agent(hass, scene.worker.info.path, **{CONF_CONFIRMATION_PIN: pin})
    question = await ask_to_unlock(agent, scene.worker, scene.person)
    scene.worker.will_write(answer("Okay."))
    number = "2" * digits

    await scene.reply(agent, question, f"set a timer for {number} seconds")

    assert state(hass, "lock.front_door") == "locked"
    assert "set a timer for" in scene.model_saw()
    assert number not in scene.model_saw()


# A timer as core's HassTimerStatus lists it; none runs.
MADE_UP_TIMER: Final = {
    "id": "made-up",
    "name": "",
    "is_active": True,
    "start_hours": 0,
    "start_minutes": 5,
    "start_seconds": 0,
    "hours_left": 0,
    "minutes_left": 5,
    "seconds_left": 0,
    "rounded_hours_left": 0,
    "rounded_minutes_left": 5,
    "rounded_seconds_left": 0,
    "total_seconds_left": 300,
}


async def test_another_apis_tool_named_as_an_intent_is_not_said_as_cores_sentence(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Core's sentence is said for what core's intent answered, never for a result that only
    carries its keys: another API's tool named HassTimerStatus, answering with a made-up
    timer, was said "5 minutes left." as if core had read a running timer."""
    tool = offer_answering_tool(
        hass,
        "HassTimerStatus",
        {"speech_slots": {"timers": [MADE_UP_TIMER]}},
    )
    # Its integration says it only reads, and the person trusts it.
    tool.annotations = llm.ToolAnnotations(read_only=True)
    agent = await scene.assist_agent(
        **{
            CONF_LLM_HASS_API: ["other_api"],
            CONF_EXEMPT_TOOLS: ["other_api/HassTimerStatus"],
        }
    )
    scene.worker.will_write(tool_call("HassTimerStatus"), answer(""))

    result = await agent.ask("how long is left on my timer?", context=scene.person)

    assert "minute" not in speech(result), speech(result)
