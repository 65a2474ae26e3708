"""Everyday over-holds and untrue answers left by the morning's changes (the twentieth).

- A light group switched off while one of its members is unavailable (a bulb switched off
  at the wall): the group is off, as the person sees it; the answer says it was done, in
  their language (its members are checked with it, not the one that could not be reached
  before the call). Switched on, that member stays dark: still said not done.
- A control on the device of a relay that a DIY garage door drives (a Shelly's second
  channel, the porch light) stays held: its firmware may switch the door's relay. The person
  who knows it does not exempts it, and then it runs at once. Its restart button is held
  too; its power sensor reads at once.
- A yes said through Developer tools' Conversation: Process, a second call after the one
  that asked (each call its own context, as Home Assistant gives each request one), unlocks:
  only the run that asked cannot answer itself.
- Skipping the Supervisor's offered Core update (or un-skipping it) installs nothing and
  restarts nothing: at once. Installing it still asks.
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.home.actions import PlannedAction
from custom_components.local_agent.safety.policy import SafetyPolicy
from custom_components.local_agent.safety.policy import sensitive_targets_of_action
from custom_components.local_agent.turn.defaults import AGENT_DEFAULTS
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .conftest import speech
from .conftest import state
from .houses import ASSIST
from .houses import LIVING_ROOM_LIGHTS
from .houses import OURS
from .probes import ask_to_run_exempt
from .probes import assert_held_only_when
from .scene import Home
from .scene import Scene
from .scene import tool_results
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_answers import language  # noqa: F401  (the fixture)
from .test_everyday_answers import say
from .test_everyday_common import agent as agent_of
from .test_everyday_common import home  # noqa: F401  (the fixture)
from .test_everyday_nineteenth import LIVING_ROOM_GROUP
from .test_everyday_nineteenth import NOT_DONE_START
from .test_everyday_nineteenth import ceiling_lost
from .test_redteam import relay
from .test_redteam import template_helper
from .test_redteam_eighteenth import exposed_update
from .test_redteam_eighteenth import relay_on_a_device

POLICY: Final = SafetyPolicy.from_data(AGENT_DEFAULTS)

# --- A group switched off while a member is unavailable ----------------------------------------

SWITCH_OFF: Final = {
    OURS: call("light", action="turn_off", entity_id=LIVING_ROOM_GROUP),
    ASSIST: call("intent__HassTurnOff", name="Living Room Lights"),
}


async def ceiling_unreachable(hass: HomeAssistant, monkeypatch: pytest.MonkeyPatch) -> None:
    """The living room's lights on, then the ceiling light switched off at the wall: its
    bridge lost it (unavailable; a call on it does nothing)."""
    for light in LIVING_ROOM_LIGHTS:
        await hass.services.async_call("light", "turn_on", {"entity_id": light}, blocking=True)
    await ceiling_lost(hass, monkeypatch)


@pytest.mark.parametrize("tools", [OURS, ASSIST])
async def test_a_group_switched_off_with_a_member_unavailable_is_said_done(
    home: Home,  # noqa: F811
    language: str,  # noqa: F811
    tools: str,
    monkeypatch: pytest.MonkeyPatch,
    quick_settle: None,
) -> None:
    """ "Turn off the living room lights" while the ceiling light is unreachable: the group
    goes off, every light the person sees is off: said done, not "I could not"."""
    hass = home.hass
    agent = await agent_of(home, tools)
    await ceiling_unreachable(hass, monkeypatch)

    result = await say(home, agent, language, answer(SWITCH_OFF[tools]), answer(""))

    assert state(hass, LIVING_ROOM_GROUP) == "off"
    said = speech(result)
    assert not said.startswith(NOT_DONE_START[language]), (said, tool_results(hass, result))


async def test_a_group_switched_on_with_a_member_unavailable_is_still_not_said_done(
    home: Home,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    quick_settle: None,
) -> None:
    """Its neighbour: switched on, the unreachable ceiling light stays dark: not done."""
    hass = home.hass
    agent = await agent_of(home, OURS)
    await ceiling_unreachable(hass, monkeypatch)
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": LIVING_ROOM_LIGHTS[0]}, blocking=True
    )
    turn_on = answer(call("light", action="turn_on", entity_id=LIVING_ROOM_GROUP))

    result = await say(home, agent, "en", turn_on, answer(""))

    assert speech(result).startswith(NOT_DONE_START["en"]), speech(result)


# --- The Supervisor's update skipped --------------------------------------------------------------


@pytest.mark.parametrize(("service", "held"), [("skip", False), ("install", True)])
async def test_skipping_the_core_update_runs_at_once(
    hass: HomeAssistant, scene: Scene, service: str, held: bool
) -> None:
    """ "Skip the Home Assistant update": the update component's own skip records the
    version and restarts nothing (installing it restarts Home Assistant: it asks)."""
    update = await exposed_update(hass, "hassio", "home_assistant_core_version_latest", "Core")
    action = PlannedAction("update", "update", service, (update,))
    assert bool(sensitive_targets_of_action(hass, POLICY, action)) is held

    result = await scene.ask_ours_to_call("update", {"action": service, "entity_id": update})

    assert_held_only_when(hass, result, held)


async def test_reading_the_core_update_answers_at_once(hass: HomeAssistant, scene: Scene) -> None:
    """ "Is there a Home Assistant update?": reading the update's state asks nothing."""
    update = await exposed_update(hass, "hassio", "home_assistant_core_version_latest", "Core")

    result = await scene.ask_ours_to_call("get_state", {"entity_id": update})

    assert_held_only_when(hass, result, False)
    assert tool_results(hass, result)[0]["entities"][0]["state"] == "on"


# --- The second channel of a DIY garage door's relay ------------------------------------------


async def shelly_with_a_garage_door(hass: HomeAssistant) -> tuple[str, str]:
    """A Shelly 2.5: channel 1 the DIY garage door's opener (a template garage door pulses
    it), channel 2 the porch light; return the door's relay and the porch light."""
    opener, device = await relay_on_a_device(hass, "Channel 1")
    porch = await relay(hass, "Porch light")
    er.async_get(hass).async_update_entity(porch, device_id=device)
    pulse = [{"action": "switch.turn_on", "target": {"entity_id": opener}}]
    await template_helper(
        hass,
        {
            "template_type": "cover",
            "name": "DIY garage door",
            "device_class": "garage",
            "open_cover": pulse,
            "close_cover": pulse,
        },
    )
    return opener, porch


async def test_a_second_channel_of_a_garage_relay_is_held_unless_exempt(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Its firmware may tie the porch light's channel to the door's (an interlock, a
    script): held, as README's known limits say; exempted by the person, it runs at once."""
    opener, porch = await shelly_with_a_garage_door(hass)
    action = PlannedAction("switch", "switch", "turn_on", (porch,))
    assert sensitive_targets_of_action(hass, POLICY, action) == [porch]
    opener_before = state(hass, opener)

    result = await ask_to_run_exempt(hass, scene, porch)

    assert_held_only_when(hass, result, False)
    assert state(hass, opener) == opener_before


async def test_on_a_garage_relays_device_only_what_reports_reads_at_once(
    hass: HomeAssistant, scene: Scene
) -> None:
    """The same Shelly's restart button is held (the relay may come back on); its power
    sensor is read at once ("how much power does the garage draw?")."""
    opener, _ = await shelly_with_a_garage_door(hass)
    device = er.async_get(hass).async_get(opener)
    assert device is not None
    restart = await template_helper(hass, {"template_type": "button", "name": "Restart"})
    power = await template_helper(
        hass, {"template_type": "sensor", "name": "Power", "state": "{{ 12.5 }}"}
    )
    for entity_id in (restart, power):
        er.async_get(hass).async_update_entity(entity_id, device_id=device.device_id)
    press = PlannedAction("button", "button", "press", (restart,))
    assert sensitive_targets_of_action(hass, POLICY, press) == [restart]

    result = await scene.ask_ours_to_call("get_state", {"entity_id": power})

    assert_held_only_when(hass, result, False)
    assert tool_results(hass, result)[0]["entities"][0]["state"] == "12.5"


# --- A person's yes through Developer tools -------------------------------------------------------


async def test_a_yes_through_developer_tools_conversation_process_confirms(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Developer tools → Actions → Conversation: Process, twice: "unlock the front door",
    then "yes" in its conversation. Each call is its own request (its own context, the same
    person): the yes is the person's and unlocks."""
    agent = await scene.our_agent()
    scene.worker.will_write(answer(call("lock", action="unlock", entity_id="lock.front_door")))
    user_id = scene.person.user_id

    async def process(text: str) -> None:
        data = {"text": text, "agent_id": agent.entity_id, "conversation_id": "dev-tools"}
        await hass.services.async_call(
            "conversation",
            "process",
            data,
            blocking=True,
            context=Context(user_id=user_id),
            return_response=True,
        )

    await process("unlock the front door")
    assert state(hass, "lock.front_door") == "locked"
    await process("yes")

    assert state(hass, "lock.front_door") == "unlocked"
