"""A demo home for integration tests: HA's demo entities, some exposed to Assist."""

from __future__ import annotations

from collections.abc import Iterable

from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from testing.demo_home import instant_demo
from testing.home_builder import async_area
from testing.home_builder import async_expose_only
from testing.home_builder import async_place_entity
from testing.home_builder import async_place_in_area

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


async def async_setup_demo(hass: HomeAssistant, platforms: Iterable[Platform]) -> None:
    """The demo integration's entry with these platforms only, its locks unlocking at once."""
    entry = MockConfigEntry(domain="demo")
    entry.add_to_hass(hass)
    with instant_demo(platforms):
        assert await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done()


async def async_setup_demo_home(hass: HomeAssistant) -> None:
    """Set up the demo entities and expose EXPOSED only; the kitchen light has an area."""
    await async_setup_demo(hass, DEMO_PLATFORMS)
    for entity_id in EXPOSED:
        assert hass.states.get(entity_id) is not None, entity_id
    async_expose_only(hass, EXPOSED)
    async_place_entity(hass, "light.kitchen_lights", None, ["cooking light"])
    light = er.async_get(hass).async_get("light.kitchen_lights")
    assert light is not None
    assert light.device_id is not None
    async_place_in_area(hass, light.entity_id, async_area(hass, "Kitchen"))
