"""The gate's work per question does not grow with the house, and what it keeps is never stale.

At 1,000 automations each question rebuilt every automation's triggers and rendered their
templates: 150 ms of the event loop for "turn on the kitchen light". The reading is kept
(safety/reads.py) and dropped when what it came from changes: an automation added,
edited, switched off or on, disabled in the registry, or a script it runs changed between
two questions changes the next verdict at once.
"""

from __future__ import annotations

from typing import Any
from typing import Final
from unittest.mock import patch

import pytest

from custom_components.local_agent.compat import AutomationTrigger
from custom_components.local_agent.compat import automation_triggers
from custom_components.local_agent.safety import policy
from custom_components.local_agent.safety.reads import CONFIGURATION_EVENTS
from custom_components.local_agent.safety.reads import kept_reading
from homeassistant.const import EVENT_STATE_CHANGED
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .conftest import async_setup_agent
from .probes import KITCHEN_ON
from .scene import Scene
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_redteam import UNLOCK_FRONT_DOOR
from .test_redteam import lets_in_when_on
from .test_redteam import set_up_automations
from .test_redteam_more import reload_scripts
from .test_redteam_seventh import LOCK
from .test_redteam_tenth import nightly
from .test_redteam_twenty_first import held

KITCHEN: Final = "light.kitchen_lights"
LETS_IN: Final = "automation.kitchen_lets_in"


def kitchen_on_held(hass: HomeAssistant, *exempt: str) -> bool:
    return held(hass, "light", "turn_on", KITCHEN, *exempt)


async def kitchen_lets_in(hass: HomeAssistant, scene: Scene) -> None:
    """ "Kitchen lets in" set up: turning the kitchen on is held for the person."""
    assert scene.person is not None
    await set_up_automations(hass, lets_in_when_on("Kitchen", KITCHEN, UNLOCK_FRONT_DOOR))
    assert kitchen_on_held(hass)


def numbered(count: int) -> list[dict[str, Any]]:
    """`count` automations: when a flag of its own goes on, if the sun is up, light the hall."""
    return [
        {
            "id": f"flag_{i}",
            "alias": f"Flag {i}",
            "triggers": [{"trigger": "state", "entity_id": f"input_boolean.flag_{i}", "to": "on"}],
            "conditions": [
                {
                    "condition": "template",
                    "value_template": "{{ is_state('sun.sun', 'above_horizon') }}",
                }
            ],
            "actions": [KITCHEN_ON],
        }
        for i in range(count)
    ]


def automations_read(monkeypatch: pytest.MonkeyPatch) -> list[AutomationTrigger]:
    """From now on, every automation the gate reads, as it reads them."""
    read: list[AutomationTrigger] = []

    def counted(hass: HomeAssistant) -> list[AutomationTrigger]:
        found = automation_triggers(hass)
        read.extend(found)
        return found

    monkeypatch.setattr(policy, "automation_triggers", counted)
    return read


async def reload_automations(hass: HomeAssistant, *automations: dict[str, Any]) -> None:
    """Reload the automations of configuration.yaml: these now."""
    with patch(
        "homeassistant.config.load_yaml_config_file",
        autospec=True,
        return_value={"automation": list(automations)},
    ):
        await hass.services.async_call("automation", "reload", blocking=True)
    await hass.async_block_till_done()


@pytest.mark.parametrize("count", [10, 1000])
async def test_a_question_reads_no_automation_the_last_one_read(
    hass: HomeAssistant, scene: Scene, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """Three questions after a first read no automation again, at 10 as at 1,000 (each read
    every one: 3,000 automations at 1,000); the verdicts stay what they were."""
    assert scene.person is not None
    await set_up_automations(hass, *numbered(count))
    assert not kitchen_on_held(hass)
    read = automations_read(monkeypatch)
    assert not kitchen_on_held(hass)
    assert held(hass, "automation", "turn_off", "automation.flag_0")
    assert not kitchen_on_held(hass)
    assert read == []


# The automations before and after a reload between two questions.
RELOADED: Final[dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]]] = {
    "added": (
        numbered(3),
        [*numbered(3), lets_in_when_on("Kitchen", KITCHEN, UNLOCK_FRONT_DOOR)],
    ),
    # "Kitchen lets in" lit the hall; edited, it unlocks the front door.
    "edited": (
        [lets_in_when_on("Kitchen", KITCHEN, [KITCHEN_ON])],
        [lets_in_when_on("Kitchen", KITCHEN, UNLOCK_FRONT_DOOR)],
    ),
}


@pytest.mark.parametrize("change", list(RELOADED))
async def test_an_automation_added_or_edited_between_two_questions_is_judged_at_once(
    hass: HomeAssistant, scene: Scene, change: str
) -> None:
    before, after = RELOADED[change]
    assert scene.person is not None
    await set_up_automations(hass, *before)
    assert not kitchen_on_held(hass)
    await reload_automations(hass, *after)
    assert kitchen_on_held(hass)


async def test_an_automation_switched_off_then_on_is_judged_at_once(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Switched off, "Kitchen lets in" sets nothing off; switched on again, it unlocks."""
    await kitchen_lets_in(hass, scene)
    await hass.services.async_call("automation", "turn_off", {"entity_id": LETS_IN}, blocking=True)
    assert not kitchen_on_held(hass)
    await hass.services.async_call("automation", "turn_on", {"entity_id": LETS_IN}, blocking=True)
    assert kitchen_on_held(hass)


async def test_an_automation_disabled_in_the_registry_is_judged_at_once(
    hass: HomeAssistant, scene: Scene
) -> None:
    await kitchen_lets_in(hass, scene)
    er.async_get(hass).async_update_entity(LETS_IN, disabled_by=er.RegistryEntryDisabler.USER)
    await hass.async_block_till_done()
    assert not kitchen_on_held(hass)


async def test_a_script_changed_between_two_questions_is_judged_at_once(
    hass: HomeAssistant, scene: Scene
) -> None:
    """The exempt "Nightly" runs the exempt "Lock up", which lit the kitchen: disabling
    Nightly needs no yes. Lock up changed to lock the front door: it is held at once."""
    assert scene.person is not None
    await reload_scripts(hass, {"lock_up": {"sequence": [KITCHEN_ON]}})
    await set_up_automations(hass, nightly({"action": "script.lock_up"}))
    assert not disabling_nightly_held(hass)
    await reload_scripts(hass, {"lock_up": {"sequence": [LOCK]}})
    assert disabling_nightly_held(hass)


def disabling_nightly_held(hass: HomeAssistant) -> bool:
    nightly_id = "automation.nightly"
    return held(hass, "automation", "turn_off", nightly_id, nightly_id, "script.lock_up")


async def test_a_reading_whose_templates_read_the_time_is_read_again_at_each_question(
    hass: HomeAssistant, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a template that reads the time reads may change with no event at all (the hour
    passes): a reading that rendered one is not kept, and each question reads the house."""
    assert scene.person is not None
    at_night = {
        "condition": "template",
        "value_template": "{{ now().hour >= 22 and is_state('input_boolean.flag_0', 'on') }}",
    }
    await set_up_automations(
        hass, *numbered(3), {**numbered(1)[0], "id": "night", "conditions": [at_night]}
    )
    assert not kitchen_on_held(hass)
    read = automations_read(monkeypatch)
    assert not kitchen_on_held(hass)
    assert not kitchen_on_held(hass)
    assert len(read) == 2 * 4


async def test_the_kept_reading_stops_listening_when_the_last_entry_unloads(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """The reading listens to every state change while it is kept: once no entry of ours is
    loaded, nothing of it may go on listening (or keep a reading a reload would not drop)."""
    listening_before = hass.bus.async_listeners()
    agent = await async_setup_agent(hass, scripted_worker.info.path)
    scripted_worker.will_write(answer(call("light", action="turn_on", entity_id=KITCHEN)))
    await agent.ask("kitchen light on", context=person)
    assert kept_reading(hass) is not None

    assert await hass.config_entries.async_unload(agent.entry.entry_id)
    await hass.async_block_till_done()
    assert kept_reading(hass) is None
    listening_after = hass.bus.async_listeners()
    assert {
        event: listening_after.get(event, 0) - listening_before.get(event, 0)
        for event in (*CONFIGURATION_EVENTS, EVENT_STATE_CHANGED)
        if listening_after.get(event, 0) > listening_before.get(event, 0)
    } == {}
