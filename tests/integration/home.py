"""A demo home for integration tests: HA's demo entities, some exposed to Assist."""

from __future__ import annotations

from unittest.mock import patch

from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, device_registry as dr, entity_registry as er

DEMO_PLATFORMS = [
    Platform.CLIMATE,
    Platform.COVER,
    Platform.FAN,
    Platform.LIGHT,
    Platform.LOCK,
    Platform.SENSOR,
    Platform.SWITCH,
    Platform.UPDATE,
]
EXPOSED = (
    "climate.hvac",
    "cover.hall_window",
    "cover.kitchen_window",
    "light.bed_light",
    "light.kitchen_lights",
    "lock.front_door",
    "sensor.outside_temperature",
    "switch.ac",
    "update.demo_add_on",
)
NOT_EXPOSED = "light.ceiling_lights"


async def async_setup_demo_home(hass: HomeAssistant) -> None:
    """Set up the demo entities and expose EXPOSED only; the kitchen light has an area."""
    entry = MockConfigEntry(domain="demo")
    entry.add_to_hass(hass)
    with (
        patch(
            "homeassistant.components.demo.COMPONENTS_WITH_CONFIG_ENTRY_DEMO_PLATFORM",
            DEMO_PLATFORMS,
        ),
        patch("homeassistant.components.demo.lock.LOCK_UNLOCK_DELAY", 0),
    ):
        assert await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done()
    for state in hass.states.async_all():
        async_expose_entity(hass, "conversation", state.entity_id, False)
    for entity_id in EXPOSED:
        assert hass.states.get(entity_id) is not None, entity_id
        async_expose_entity(hass, "conversation", entity_id, True)
    kitchen = ar.async_get(hass).async_create("Kitchen")
    entities = er.async_get(hass)
    light = entities.async_update_entity(
        "light.kitchen_lights", aliases=[er.COMPUTED_NAME, "cooking light"]
    )
    assert light.device_id is not None
    dr.async_get(hass).async_update_device(light.device_id, area_id=kitchen.id)
