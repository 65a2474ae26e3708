"""A thirty-seventh round of red-team probes: PIN masks, core's sentences, names told apart."""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.const import CONF_CONFIRMATION_PIN
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
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
