"""What counts as done, and sentences that read right around any name.

- Whether anything was done (which decides if the person hears that what they named is not
  exposed) was told by the keys of a result: another integration's tool answering
  {"success": true} or {"entities": …} hid the hint, a read of something else hid it, and core's
  intents (whose "success" sits under "data") never counted, so "Done." came with a hint after
  Assist turned the lights off. It is now told by what produced the result: our runner's
  states after an action, or a core intent's response of an action.
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.const import CONF_EXEMPT_TOOLS
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.util.json import JsonValueType

from .conftest import speech
from .conftest import state
from .other_integrations import offer_answering_tool
from .scene import Scene
from .scene import tool_call
from .scripted_model import Script
from .scripted_model import answer
from .scripted_model import call

NOT_EXPOSED_HINT: Final = (
    "I cannot see or control Ceiling Lights: it is not exposed to Assist. "
    "To let me, expose it under Settings > Voice assistants > Expose."
)


@pytest.mark.parametrize(
    "data",
    [
        {"success": True},
        {"entities": [{"entity_id": "light.ceiling_lights", "state": "off"}]},
    ],
)
async def test_another_tools_keys_do_not_hide_that_a_name_is_not_exposed(
    hass: HomeAssistant, scene: Scene, data: dict[str, JsonValueType]
) -> None:
    """Before: its "success" or "entities" counted as done, and the person heard only "Done."."""
    offer_answering_tool(hass, "tidy_up", data)
    agent = await scene.our_agent(
        **{CONF_LLM_HASS_API: ["other_api"], CONF_EXEMPT_TOOLS: ["other_api/tidy_up"]}
    )
    scene.worker.will_write(answer(call("tidy_up")), answer("Done."))

    result = await agent.ask("turn off the ceiling lights", context=scene.person)

    assert speech(result).endswith(NOT_EXPOSED_HINT), speech(result)


async def test_a_read_of_something_else_does_not_hide_that_a_name_is_not_exposed(
    scene: Scene,
) -> None:
    """Before: the read's states counted as done: "It is on." about another light, and no word
    that the one named cannot be seen."""
    agent = await scene.our_agent()
    scene.worker.will_write(
        answer(call("get_state", entity_id="light.kitchen_lights")), answer("It is on.")
    )

    result = await agent.ask("is the ceiling lights on?", context=scene.person)

    assert speech(result) == f"It is on. {NOT_EXPOSED_HINT}"


@pytest.mark.parametrize(
    ("tools", "turn_off"),
    [
        ("our tools", tool_call("light", action="turn_off", entity_id="light.kitchen_lights")),
        ("assist", tool_call("HassTurnOff", name="Kitchen Lights")),
    ],
)
async def test_an_action_done_by_either_tool_set_counts_as_done(
    hass: HomeAssistant, scene: Scene, tools: str, turn_off: Script
) -> None:
    """Before: core's intent keeps "success" under "data", so Assist's turn-off did not count
    and "Done." came with the hint our own tools leave out."""
    agent = await scene.agent_with(tools)
    scene.worker.will_write(turn_off, answer("Done."))

    result = await agent.ask(
        "turn off the kitchen lights but leave the ceiling lights", context=scene.person
    )

    assert state(hass, "light.kitchen_lights") == "off"
    assert NOT_EXPOSED_HINT not in speech(result)
