"""State-holding entities built from fixtures: the test homes of benchmarks and evaluations.

Never shipped: testing/home_builder.py registers this package with Home Assistant's
loader and adds a config entry whose data lists the devices and entities
(`{"devices": [...], "entities": [...]}`); every platform creates the entities of its domain.
An entity fixture is `{"entity_id", "name", "state", "attributes", "device"}`: the evaluation
homes (scripts/evaluation/home.py) take them from a dataset's `_fixtures.yaml`, the synthetic
benchmark homes (testing/synthetic.py) generate them. Each entity starts in its
fixture state and can be put back into any state at once (`FixtureEntity.async_apply`),
which is how a test's `setup` is applied and how the home is reset between sentences
without restarting Home Assistant.
"""

from __future__ import annotations

import importlib
from typing import Final

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from testing.fixture_home.const import DOMAIN
from testing.fixture_home.const import ENTITIES
from testing.fixture_home.entity import FixtureEntity

PLATFORMS: Final = (
    Platform.ALARM_CONTROL_PANEL,
    Platform.BINARY_SENSOR,
    Platform.CALENDAR,
    Platform.CLIMATE,
    Platform.COVER,
    Platform.FAN,
    Platform.LIGHT,
    Platform.LOCK,
    Platform.MEDIA_PLAYER,
    Platform.SENSOR,
    Platform.SWITCH,
    Platform.TODO,
    Platform.VACUUM,
    Platform.VALVE,
    Platform.WEATHER,
)
SUPPORTED_DOMAINS: Final = frozenset(platform.value for platform in PLATFORMS)

__all__ = ["DOMAIN", "ENTITIES", "PLATFORMS", "SUPPORTED_DOMAINS", "FixtureEntity", "entity_class"]


def entity_class(domain: str) -> type[FixtureEntity]:
    """The fixture entity class of a supported domain (its states, what it cannot simulate)."""
    module = importlib.import_module(f"{__name__}.{domain}")
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, FixtureEntity)
            and value is not FixtureEntity
        ):
            return value
    raise LookupError(f"fixture_home has no {domain} entities")


def _platforms(entry: ConfigEntry) -> list[Platform]:
    domains = {spec["entity_id"].split(".", 1)[0] for spec in entry.data["entities"]}
    return [platform for platform in PLATFORMS if platform.value in domains]


async def async_setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Create the devices, then the entities listed in the entry."""
    devices = dr.async_get(hass)
    for device in entry.data.get("devices", ()):
        devices.async_get_or_create(
            config_entry_id=entry.entry_id,
            identifiers={(DOMAIN, device["id"])},
            name=device["name"],
            manufacturer=device.get("manufacturer"),
            model=device.get("model"),
            model_id=device.get("model_id"),
            sw_version=device.get("sw_version"),
            hw_version=device.get("hw_version"),
            serial_number=device.get("serial_number"),
        )
    hass.data.setdefault(ENTITIES, {})
    await hass.config_entries.async_forward_entry_setups(entry, _platforms(entry))
    return True


async def async_unload_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Remove the entities."""
    unloaded = await hass.config_entries.async_unload_platforms(entry, _platforms(entry))
    hass.data.pop(ENTITIES, None)
    return unloaded
