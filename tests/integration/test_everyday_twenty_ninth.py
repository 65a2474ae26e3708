"""A failed call said once, counts in the person's words, a device's request no dearer.

- "Accendi la luce al 150 %": the model's call failed and it wrote "Non ha funzionato."; the
  Assist dialog streamed that, then showed the error's speech, our sentence and the model's
  again. What was streamed is not said again at the end.
- A request from a satellite with Assist's API built that API a second time, without the
  device, at every request: now once per change of the device's prompt (the home's structure,
  the device's area).
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.llm import AssistAPI
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import llm

from .conftest import Assist
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_slow_turns import assistant_contents
from .test_slow_turns import final_speech
from .test_slow_turns import intent_output
from .test_slow_turns import streamed_text
from .test_voice_twenty_eighth import assist_agent
from .test_voice_twenty_seventh import a_satellite

BED_LIGHT: Final = "light.bed_light"


def bed_light_set_too_bright(hass: HomeAssistant, worker: ScriptedWorker, then: str) -> None:
    """The bed light exposed; the model will set it to 150 % (out of range), then say `then`."""
    async_expose_entity(hass, "conversation", BED_LIGHT, True)
    worker.will_write(
        answer(call("light", action="turn_on", entity_id=BED_LIGHT, brightness_pct=150)),
        answer(then),
    )


async def test_a_failed_calls_streamed_answer_is_not_said_again_by_the_error(
    hass: HomeAssistant, assist: Assist, scripted_worker: ScriptedWorker
) -> None:
    bed_light_set_too_bright(hass, scripted_worker, "That did not work.")

    events = await assist("bed light to 150 percent")

    # The dialog shows the stream in one bubble, an error's speech in another.
    assert streamed_text(events) == "That did not work."
    assert intent_output(events)["response"]["response_type"] == "error"
    assert final_speech(events) == (
        "I could not turn on Bed Light. The range is 0 to 100%, not 150%."
    )
    # The model reads its own words and ours in the next turn: both stay in the chat log.
    said = [c.content for c in assistant_contents(hass, events) if c.content]
    assert said[-2:] == [
        "That did not work.",
        "I could not turn on Bed Light. The range is 0 to 100%, not 150%.",
    ]


async def test_a_satellites_requests_build_the_api_without_it_once_per_home_change(
    hass: HomeAssistant,
    demo_home: None,
    scripted_worker: ScriptedWorker,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = await assist_agent(hass, scripted_worker)
    kitchen = a_satellite(hass, "Kitchen satellite", "Kitchen")
    built_without_device: list[llm.LLMContext] = []
    build = AssistAPI.async_get_api_instance

    async def counted(api: AssistAPI, llm_context: llm.LLMContext) -> llm.APIInstance:
        if llm_context.device_id is None:
            built_without_device.append(llm_context)
        return await build(api, llm_context)

    monkeypatch.setattr(AssistAPI, "async_get_api_instance", counted)
    scripted_worker.will_write(answer("…"), answer("…"), answer("…"))

    await agent.ask("turn on the lights", device_id=kitchen)
    await agent.ask("turn on the lights", device_id=kitchen)
    assert len(built_without_device) == 1

    er.async_get(hass).async_update_entity(BED_LIGHT, name="Reading Lamp")
    await agent.ask("turn on the lights", device_id=kitchen)
    assert len(built_without_device) == 2
    assert "Reading Lamp" in scripted_worker.requests[-1].static_prompt
