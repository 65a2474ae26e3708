"""Red team: the gate's kept reading of the home (safety/reads.py) is never stale.

Each attack asks a first question (the reading is kept), changes the house by a path a user
or an integration takes, then asks again: the second verdict must follow the change. An
everyday action that now sets off an unlock is held at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from typing import Final
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.typing import MqttMockHAClient

from custom_components.local_agent.compat import AutomationTrigger
from custom_components.local_agent.compat import automation_triggers
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.safety import policy
from custom_components.local_agent.safety import reads
from custom_components.local_agent.safety.reads import kept_reading
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers import label_registry as lr
from homeassistant.helpers.template import async_load_custom_templates
from homeassistant.setup import async_setup_component

from .houses import place
from .probes import KITCHEN_ON
from .scene import Scene
from .test_everyday_devices import HALL_SWITCH
from .test_everyday_devices import MQTT_PLUG
from .test_everyday_devices import discover_button
from .test_everyday_devices import pressed_twice
from .test_policy_cost import kitchen_on_held
from .test_policy_cost import numbered
from .test_redteam import UNLOCK_FRONT_DOOR
from .test_redteam import lets_in_when_on
from .test_redteam import set_up_automations
from .test_redteam_twenty_first import held

KITCHEN: Final = "light.kitchen_lights"
DOOR_SELECT: Final = "input_select.door"


@contextmanager
def counting_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[AutomationTrigger]]:
    """Collect every automation the policy reads while in the block."""
    read: list[AutomationTrigger] = []

    def counted(hass: HomeAssistant) -> list[AutomationTrigger]:
        found = automation_triggers(hass)
        read.extend(found)
        return found

    with monkeypatch.context() as patched:
        patched.setattr(policy, "automation_triggers", counted)
        yield read


def guest_macro(reads: str) -> str:
    """custom_templates/guest.jinja: `guest_home()` tells whether `reads` is on."""
    return f"{{% macro guest_home() %}}{{{{ is_state('{reads}', 'on') }}}}{{% endmacro %}}"


def lets_in_when(condition: str) -> dict[str, Any]:
    """When the doorbell flag goes on and this template condition holds: unlock."""
    return {
        "id": "lets_in_a_guest",
        "alias": "Lets in a guest",
        "triggers": [{"trigger": "state", "entity_id": "input_boolean.flag_0", "to": "on"}],
        "conditions": [{"condition": "template", "value_template": condition}],
        "actions": UNLOCK_FRONT_DOOR,
    }


def lets_in_a_guest() -> dict[str, Any]:
    """When the doorbell flag goes on and the macro says a guest is home: unlock."""
    return lets_in_when("{% from 'guest.jinja' import guest_home %}{{ guest_home() }}")


async def test_a_custom_template_edited_and_reloaded_is_judged_at_once(
    hass: HomeAssistant, scene: Scene, tmp_path: Path
) -> None:
    """The macro read the flag; edited to read the kitchen light and reloaded with
    `homeassistant.reload_custom_templates` (no event), lighting the kitchen lets a guest
    in: held at once. [before: the kept reading still had the macro read the flag]"""
    assert scene.person is not None
    hass.config.config_dir = str(tmp_path)
    macros = tmp_path / "custom_templates"
    macros.mkdir()
    (macros / "guest.jinja").write_text(guest_macro("input_boolean.flag_1"))
    await async_load_custom_templates(hass)
    await set_up_automations(hass, lets_in_a_guest())
    assert not kitchen_on_held(hass)
    (macros / "guest.jinja").write_text(guest_macro(KITCHEN))
    await hass.services.async_call("homeassistant", "reload_custom_templates", blocking=True)
    await hass.async_block_till_done()
    assert kitchen_on_held(hass)


@pytest.mark.parametrize("expected_lingering_timers", [True])  # MQTT's housekeeping timer
@pytest.mark.parametrize("hass_config", [MQTT_PLUG])
async def test_an_mqtt_button_announced_again_on_another_topic_is_judged_at_once(
    hass: HomeAssistant,
    mqtt_mock: MqttMockHAClient,
    scene: Scene,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "Press the hall switch's button twice: unlock". Announced on its own action topic,
    switching the relay presses nothing; zigbee2mqtt announces it again on the relay's state
    topic (a discovery update: no registry, entry or service event), and switching the relay
    is held at once. [before: the kept reading heard the old topic]"""
    assert scene.person is not None
    discover_button(hass, "double", "zigbee2mqtt/hall_switch/action")
    await hass.async_block_till_done()
    await set_up_automations(hass, pressed_twice(hass, UNLOCK_FRONT_DOOR[0]))
    assert not held(hass, "switch", "turn_on", HALL_SWITCH)
    with counting_reads(monkeypatch) as read:
        assert not held(hass, "switch", "turn_on", HALL_SWITCH)
    assert read == []  # kept while the button is announced as it was
    discover_button(hass, "double", "zigbee2mqtt/hall_switch")
    await hass.async_block_till_done()
    assert held(hass, "switch", "turn_on", HALL_SWITCH)


def unlocks_when_the_issue_names_it_on() -> dict[str, Any]:
    """When the flag goes on and an entity a repair issue of "hall" names (its id) is on."""
    return lets_in_when(
        "{% for i in issues().values() if i.domain == 'hall' %}"
        "{{ is_state(i.issue_id, 'on') }}{% endfor %}"
    )


async def test_a_repair_issue_a_template_reads_is_judged_at_once(
    hass: HomeAssistant, scene: Scene
) -> None:
    """The condition reads the entity a repair issue names (`issue()`): with no issue, none;
    an issue that names the kitchen light is raised (the issue registry's own event), and
    lighting the kitchen is held at once. [before: no drop on the issue registry's event]"""
    assert scene.person is not None
    await set_up_automations(hass, unlocks_when_the_issue_names_it_on())
    assert not kitchen_on_held(hass)
    ir.async_create_issue(
        hass,
        "hall",
        KITCHEN,
        is_fixable=False,
        severity=ir.IssueSeverity.WARNING,
        translation_key="x",
    )
    await hass.async_block_till_done()
    assert kitchen_on_held(hass)


async def set_up_door_select(hass: HomeAssistant, *options: str) -> None:
    """The input select "Door" of configuration.yaml, with these options."""
    assert await async_setup_component(
        hass, "input_select", {"input_select": {"door": {"options": list(options)}}}
    )


async def options_edited(hass: HomeAssistant, how: str, options: list[str]) -> None:
    """Give the select these options: reloaded from configuration.yaml, or at run time."""
    if how == "set_options":
        data = {"entity_id": DOOR_SELECT, "options": options}
        await hass.services.async_call("input_select", "set_options", data, blocking=True)
        return
    with patch(
        "homeassistant.config.load_yaml_config_file",
        autospec=True,
        return_value={"input_select": {"door": {"options": options}}},
    ):
        await hass.services.async_call("input_select", "reload", blocking=True)


@pytest.mark.parametrize("how", ["reload", "set_options"])
async def test_a_select_whose_options_now_name_the_lock_is_judged_at_once(
    hass: HomeAssistant, scene: Scene, how: str
) -> None:
    """A helper of configuration.yaml that names the front door may switch it: its options
    changed in place (`input_select.reload` or `input_select.set_options`: the same entity
    object, the kept reading dropped by the registry's capabilities event), choosing one is
    held at once. [before: the house read again, but the settings read per entity object
    were kept while the object stayed the same]"""
    assert scene.person is not None
    await set_up_door_select(hass, KITCHEN, "closed")
    assert not held(hass, "input_select", "select_option", DOOR_SELECT)
    await options_edited(hass, how, ["lock.front_door", "closed"])
    await hass.async_block_till_done()
    assert held(hass, "input_select", "select_option", DOOR_SELECT)


async def test_a_select_that_names_the_lock_from_the_start_is_held(
    hass: HomeAssistant, scene: Scene
) -> None:
    """What the test above expects is what a fresh reading decides."""
    assert scene.person is not None
    await set_up_door_select(hass, "lock.front_door", "closed")
    assert held(hass, "input_select", "select_option", DOOR_SELECT)


# --- Paths that already drop the reading (checked: each passes with the reading kept) ------


async def test_a_light_moved_into_the_area_a_template_reads_is_judged_at_once(
    hass: HomeAssistant, scene: Scene
) -> None:
    """ "Unlock when anything in the pantry is on": the kitchen light moved into the pantry
    (area and registry events) is held at once."""
    assert scene.person is not None
    await set_up_automations(
        hass, lets_in_when("{{ area_entities('Pantry') | select('is_state', 'on') | list }}")
    )
    assert not kitchen_on_held(hass)
    place(hass, "Pantry", KITCHEN)
    await hass.async_block_till_done()
    assert kitchen_on_held(hass)


async def test_a_label_given_to_the_light_a_template_reads_is_judged_at_once(
    hass: HomeAssistant, scene: Scene
) -> None:
    assert scene.person is not None
    await set_up_automations(
        hass, lets_in_when("{{ label_entities('Guests') | select('is_state', 'on') | list }}")
    )
    assert not kitchen_on_held(hass)
    label = lr.async_get(hass).async_create("Guests")
    er.async_get(hass).async_update_entity(KITCHEN, labels={label.label_id})
    await hass.async_block_till_done()
    assert kitchen_on_held(hass)


async def test_an_automation_saved_in_the_editor_after_we_were_set_up_again_is_judged_at_once(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Our integration set up again keeps the listeners of the kept reading; the editor's
    save reloads that one automation (`automation.reload` with its id)."""
    assert scene.person is not None
    await set_up_automations(hass, lets_in_when_on("Kitchen", KITCHEN, [KITCHEN_ON]))
    assert not kitchen_on_held(hass)
    for entry in hass.config_entries.async_entries(DOMAIN):
        assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    assert not kitchen_on_held(hass)
    edited = lets_in_when_on("Kitchen", KITCHEN, UNLOCK_FRONT_DOOR)
    with patch(
        "homeassistant.config.load_yaml_config_file",
        autospec=True,
        return_value={"automation": [edited]},
    ):
        await hass.services.async_call(
            "automation", "reload", {"id": "kitchen_lets_in"}, blocking=True
        )
    await hass.async_block_till_done()
    assert kitchen_on_held(hass)


async def reload_templates(hass: HomeAssistant, sections: list[dict[str, Any]]) -> None:
    """The template sections of configuration.yaml are these now (`template.reload`)."""
    with patch(
        "homeassistant.config.load_yaml_config_file",
        autospec=True,
        return_value={"template": sections},
    ):
        await hass.services.async_call("template", "reload", blocking=True)
    await hass.async_block_till_done()


def kitchen_section(then: dict[str, Any]) -> list[dict[str, Any]]:
    """A trigger-based template section: when the kitchen light goes on, `then`."""
    return [
        {
            "triggers": [{"trigger": "state", "entity_id": KITCHEN, "to": "on"}],
            "actions": [then],
            "sensor": [{"name": "Kitchen lit", "state": "{{ 1 }}"}],
        }
    ]


async def test_a_template_section_edited_and_reloaded_is_judged_at_once(
    hass: HomeAssistant, scene: Scene
) -> None:
    """ "When the kitchen light goes on" lit the hall; edited in configuration.yaml and
    reloaded (`template.reload`), it unlocks the front door."""
    assert scene.person is not None
    await reload_templates(hass, kitchen_section(KITCHEN_ON))
    assert not kitchen_on_held(hass)
    await reload_templates(hass, kitchen_section(UNLOCK_FRONT_DOOR[0]))
    assert kitchen_on_held(hass)


async def test_a_house_read_again_reuses_what_it_read_of_each_program(
    hass: HomeAssistant, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read again after a drop (the sun, which the conditions read, sets), the house walks
    none of its automations' conditions again: what each names is kept per validated object
    (only the trigger settings, copied at each read without what they watch, are read).
    [before: each question's running programs replaced what the house's reading kept, and
    every read again walked all 10 automations' conditions and actions]"""
    assert scene.person is not None
    await set_up_automations(hass, *numbered(10))
    assert not kitchen_on_held(hass)
    walked: list[object] = []
    read_whole = reads._read_whole

    def counted(registry: er.EntityRegistry, value: Any, written: Any, key: Any = None) -> None:
        walked.append(value)
        read_whole(registry, value, written, key)

    monkeypatch.setattr(reads, "_read_whole", counted)
    hass.states.async_set("sun.sun", "below_horizon")
    assert kept_reading(hass) is None
    assert not kitchen_on_held(hass)
    assert [part for part in walked if isinstance(part, Mapping) and "condition" in part] == []
