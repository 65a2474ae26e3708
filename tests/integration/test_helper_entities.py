"""Which entities follow an entity because a helper set up in the UI names it."""

from __future__ import annotations

from typing import Any

from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.safety.helper_entities import helper_followers
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from testing.synthetic import async_setup_synthetic_home


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


async def test_a_meter_follows_its_source_and_then_the_source_it_is_changed_to(
    hass: HomeAssistant,
) -> None:
    numbers = {name: {"min": 0, "max": 100, "initial": 10} for name in ("level", "other")}
    assert await async_setup_component(hass, "input_number", {"input_number": numbers})
    entry = MockConfigEntry(domain="utility_meter", options=meter_options("input_number.level"))
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    [meter] = er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id)

    assert helper_followers(hass) == {"input_number.level": (meter.entity_id,)}

    hass.config_entries.async_update_entry(entry, options=meter_options("input_number.other"))
    assert helper_followers(hass) == {"input_number.other": (meter.entity_id,)}


async def test_a_hub_whose_settings_list_its_own_entities_makes_none_follow_another(
    hass: HomeAssistant,
) -> None:
    home = await async_setup_synthetic_home(hass, 40)
    assert any(home.entity_ids[0] in str(value) for value in home.entry.data.values())

    assert helper_followers(hass) == {}
