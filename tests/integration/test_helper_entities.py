"""Entities that follow an entity because a helper set up in the UI names it, as the policy
sees them: an automation on the helper makes changing the entity a question."""

from __future__ import annotations

from typing import Any

from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.safety.policy import SafetyPolicy
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from testing.synthetic import async_setup_synthetic_home

from .conftest import async_add_helper

UNLOCK = [{"action": "lock.unlock", "target": {"entity_id": "lock.front_door"}}]


def meter_options(source: str) -> dict[str, Any]:
    return {
        "name": "Taken in",
        "source": source,
        "cycle": "none",
        "offset": 0,
        "tariffs": [],
        "net_consumption": False,
        "delta_values": False,
        "periodically_resetting": True,
        "always_available": False,
    }


async def lets_in_when_changed(hass: HomeAssistant, entity_id: str) -> None:
    automation = {"id": "lets_in", "triggers": [{"trigger": "state", "entity_id": entity_id}]}
    assert await async_setup_component(
        hass, "automation", {"automation": [{**automation, "actions": UNLOCK}]}
    )


def sensitive(hass: HomeAssistant, *entity_ids: str) -> list[str]:
    return SafetyPolicy.from_data({}).sensitive_entities(hass, list(entity_ids))


async def test_a_meter_follows_its_source_and_then_the_source_it_is_changed_to(
    hass: HomeAssistant,
) -> None:
    numbers = {name: {"min": 0, "max": 100, "initial": 10} for name in ("level", "other")}
    assert await async_setup_component(hass, "input_number", {"input_number": numbers})
    entry = MockConfigEntry(domain="utility_meter", options=meter_options("input_number.level"))
    meter = await async_add_helper(hass, entry)
    await lets_in_when_changed(hass, meter.entity_id)

    assert sensitive(hass, "input_number.level", "input_number.other") == ["input_number.level"]

    hass.config_entries.async_update_entry(entry, options=meter_options("input_number.other"))
    assert sensitive(hass, "input_number.level", "input_number.other") == ["input_number.other"]


async def test_a_hub_whose_settings_list_its_own_entities_makes_none_follow_another(
    hass: HomeAssistant,
) -> None:
    home = await async_setup_synthetic_home(hass, 40)
    first, second = [e for e in home.entity_ids if e.startswith("light.")][:2]
    assert any(first in str(value) for value in home.entry.data.values())
    await lets_in_when_changed(hass, second)

    assert sensitive(hass, first) == []
    assert sensitive(hass, second) == [second]


async def test_a_meter_that_names_its_source_by_registry_id_follows_it(
    hass: HomeAssistant,
) -> None:
    registry = er.async_get(hass)
    source = registry.async_get_or_create("sensor", "test", "water", suggested_object_id="water")
    entry = MockConfigEntry(domain="utility_meter", options=meter_options(source.id))
    meter = await async_add_helper(hass, entry)
    await lets_in_when_changed(hass, meter.entity_id)

    assert sensitive(hass, source.entity_id) == [source.entity_id]
