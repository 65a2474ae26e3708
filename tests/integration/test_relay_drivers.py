"""A relay that a DIY lock switches through an automation its unlock sets off.

A template lock's unlock may not switch its relay itself: it fires an event ("side door
unlock") that an automation hears, or triggers an automation, which switches the relay.
Switching that relay on is then what unlocking does, as when the lock's own step switches it
(test_redteam.py's relay_lock). A relay that no such automation switches stays everyday.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.home.actions import PlannedAction
from custom_components.local_agent.safety.policy import SafetyPolicy
from custom_components.local_agent.safety.policy import sensitive_targets_of_action
from custom_components.local_agent.turn.defaults import AGENT_DEFAULTS
from homeassistant.core import HomeAssistant

from .conftest import speech
from .probes import assert_held_only_when
from .scene import Scene
from .test_redteam import relay
from .test_redteam import set_up_automations
from .test_redteam import template_lock

POLICY: Final = SafetyPolicy.from_data(AGENT_DEFAULTS)
UNLOCK_EVENT: Final = "side_door_unlock"


def state_name(hass: HomeAssistant, entity_id: str) -> str:
    state = hass.states.get(entity_id)
    assert state is not None
    return str(state.name)


def switches_on(relay_id: str) -> dict[str, Any]:
    return {"action": "switch.turn_on", "target": {"entity_id": relay_id}}


async def relays_beside(
    hass: HomeAssistant,
    *triggers: dict[str, Any],
    alias: str = "Side door relay",
    **settings: Any,
) -> tuple[str, str]:
    """The door relay, switched on by the automation `alias` on these triggers (with none, only
    what triggers the automation switches it), and a spare relay that nothing switches; returns
    both. `settings`: more of the automation's configuration (its initial state, say)."""
    door_relay = await relay(hass, "Door relay")
    spare = await relay(hass, "Spare relay")
    await set_up_automations(
        hass,
        {
            "id": alias.lower().replace(" ", "_"),
            "alias": alias,
            **settings,
            "triggers": list(triggers),
            "actions": [switches_on(door_relay)],
        },
    )
    return door_relay, spare


async def side_door(hass: HomeAssistant, unlock: list[dict[str, Any]]) -> str:
    """A DIY lock (a template lock helper) whose unlock runs these steps."""
    return await template_lock(hass, "Side door", state="{{ 'locked' }}", lock=[], unlock=unlock)


async def switching_on_is_held_only_when(
    hass: HomeAssistant, scene: Scene, switch: str, held: bool
) -> None:
    """Ask our agent to switch `switch` on: held exactly when `held`, and then the question
    says what switching it does (the side door unlocks)."""
    result = await scene.ask_ours_to_call("switch", {"action": "turn_on", "entity_id": switch})

    action = PlannedAction("switch", "switch", "turn_on", (switch,))
    assert bool(sensitive_targets_of_action(hass, POLICY, action)) is held
    assert_held_only_when(hass, result, held)
    if held:
        name = state_name(hass, switch)
        assert speech(result) == (
            f"Turn on {name} (this will unlock Side door)? Say yes to confirm."
        )


@pytest.mark.parametrize(("which", "held"), [("door", True), ("spare", False)])
async def test_a_relay_switched_by_an_automation_on_the_locks_event_is_held(
    hass: HomeAssistant, scene: Scene, which: str, held: bool
) -> None:
    """The lock's unlock fires "side_door_unlock"; an automation on that event switches the
    door relay on. The spare relay, which nothing of the lock switches, is everyday."""
    door_relay, spare = await relays_beside(hass, {"trigger": "event", "event_type": UNLOCK_EVENT})
    await side_door(hass, [{"event": UNLOCK_EVENT}])
    await hass.async_block_till_done()

    await switching_on_is_held_only_when(
        hass, scene, door_relay if which == "door" else spare, held
    )


@pytest.mark.parametrize(("which", "held"), [("door", True), ("spare", False)])
async def test_a_relay_switched_by_an_automation_the_lock_triggers_is_held(
    hass: HomeAssistant, scene: Scene, which: str, held: bool
) -> None:
    """The lock's unlock triggers the automation "Open side door" (automation.trigger), whose
    action switches the door relay on."""
    door_relay, spare = await relays_beside(hass, alias="Open side door")
    trigger = {"action": "automation.trigger", "target": {"entity_id": "automation.open_side_door"}}
    await side_door(hass, [trigger])
    await hass.async_block_till_done()

    await switching_on_is_held_only_when(
        hass, scene, door_relay if which == "door" else spare, held
    )


async def test_a_relay_an_automation_on_the_event_of_another_lock_switches_stays_everyday(
    hass: HomeAssistant, scene: Scene
) -> None:
    """An automation switches the relay on an event the lock does not fire: everyday."""
    door_relay, _ = await relays_beside(
        hass, {"trigger": "event", "event_type": "doorbell_pressed"}
    )
    await side_door(hass, [{"event": UNLOCK_EVENT}])
    await hass.async_block_till_done()

    await switching_on_is_held_only_when(hass, scene, door_relay, False)


async def test_a_relay_an_automation_switches_on_any_event_stays_everyday_beside_a_notifying_lock(
    hass: HomeAssistant, scene: Scene
) -> None:
    """The lock's unlock also tells the household (a message whose text is a template: it
    might be any signal). An automation on a remote's button event switches a relay: the lock
    does not send that event for certain, so the relay is not what unlocks."""
    remote_relay, _ = await relays_beside(
        hass, {"trigger": "event", "event_type": "remote_button"}, alias="Remote relay"
    )
    message = {"message": "{{ 'Side door unlocked at ' ~ now() }}"}
    await side_door(hass, [{"action": "persistent_notification.create", "data": message}])
    await hass.async_block_till_done()

    await switching_on_is_held_only_when(hass, scene, remote_relay, False)
