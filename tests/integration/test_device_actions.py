"""Device actions, as the automation and script editors write them ("Device: Side gate, unlock").

Home Assistant's own entity domains (lock, cover, alarm, light, switch, fan, remote) make a
device action one service call on its entity: it is judged as that call, and a question names
it. Any other device action (a button's press, an integration's command) is of unknown effect.
"""

from __future__ import annotations

from typing import Any

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from .conftest import speech
from .conftest import state
from .probes import give_a_device
from .scene import Scene
from .scene import tool_results
from .scripted_model import answer
from .test_redteam import asked
from .test_redteam import relay
from .test_redteam import relay_lock
from .test_redteam import template_helper
from .test_redteam_more import reload_scripts


async def on_a_device(hass: HomeAssistant, entity_id: str, name: str) -> dict[str, Any]:
    """Give the entity a device of its own; return what a device action on it names."""
    registry_id, device_id = give_a_device(hass, entity_id, name)
    return {"device_id": device_id, "entity_id": registry_id}


async def side_gate(hass: HomeAssistant) -> dict[str, Any]:
    """A lock on a device of its own (a template lock over a relay): its device action."""
    gate_relay = await relay(hass, "Gate relay")
    gate = await relay_lock(
        hass, "Side gate", unlocked=f"is_state('{gate_relay}', 'on')", relay_target=gate_relay
    )
    return {"domain": "lock", **await on_a_device(hass, gate, "side gate")}


async def porch_lamp(hass: HomeAssistant) -> dict[str, Any]:
    """A lamp's relay on a device of its own: its device action."""
    lamp = await relay(hass, "Porch lamp relay")
    return {"domain": "switch", **await on_a_device(hass, lamp, "porch lamp")}


async def doorbell(hass: HomeAssistant) -> dict[str, Any]:
    """A button on a device of its own: its device action (no service this module knows)."""
    button = await template_helper(hass, {"template_type": "button", "name": "Chime", "press": []})
    return {"domain": "button", **await on_a_device(hass, button, "chime")}


@pytest.mark.parametrize(
    ("device", "kind", "question"),
    [
        (porch_lamp, "turn_on", None),
        (side_gate, "unlock", "Turn on Porch (this will unlock Side gate)? Say yes to confirm."),
        (doorbell, "press", "Turn on Porch? Say yes to confirm."),
    ],
    ids=["it switches a lamp", "it unlocks a gate", "it presses a button"],
)
async def test_a_template_switchs_device_action_is_judged_by_the_call_it_makes(
    hass: HomeAssistant, scene: Scene, device: Any, kind: str, question: str | None
) -> None:
    """A template switch whose turn-on is a device action: switching a lamp runs at once,
    unlocking the gate is asked about by name, a press of unknown effect is asked about."""
    step = {**await device(hass), "type": kind}
    porch = await template_helper(
        hass, {"template_type": "switch", "name": "Porch", "turn_on": [step], "turn_off": []}
    )
    result = await scene.ask_ours_to_call("switch", {"action": "turn_on", "entity_id": porch})

    assert asked(result) is (question is not None), (speech(result), tool_results(hass, result))
    if question is not None:
        assert speech(result) == question
    assert (state(hass, porch) == "on") is (question is None)


async def test_a_question_names_what_a_scripts_device_action_unlocks(
    hass: HomeAssistant, scene: Scene
) -> None:
    step = {**await side_gate(hass), "type": "unlock"}
    await reload_scripts(hass, {"open_up": {"alias": "Open up", "sequence": [step]}})
    async_expose_entity(hass, "conversation", "script.open_up", True)
    agent = await scene.our_agent()

    result = await scene.ask_to_call(
        agent, "script", {"action": "turn_on", "entity_id": "script.open_up"}, answer("Done.")
    )

    assert speech(result) == "Run Open up (this will unlock Side gate)? Say yes to confirm."
    await scene.reply(agent, result, "yes")
    await hass.async_block_till_done()
    assert state(hass, "lock.side_gate") == "unlocked"
