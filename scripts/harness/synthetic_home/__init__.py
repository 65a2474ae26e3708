"""A generated home of simple state-holding devices, for benchmarks and evaluations.

Never shipped: scripts/harness registers this package with Home Assistant's loader (see
synthetic.py). The config entry's data lists the entities (`EntitySpec.as_dict()` each);
every platform creates the entities of its domain.
"""

from __future__ import annotations

from typing import Final

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant

DOMAIN: Final = "synthetic_home"
PLATFORMS: Final = (
    Platform.BINARY_SENSOR,
    Platform.CLIMATE,
    Platform.COVER,
    Platform.FAN,
    Platform.LIGHT,
    Platform.LOCK,
    Platform.MEDIA_PLAYER,
    Platform.SENSOR,
    Platform.SWITCH,
)


def _platforms(entry: ConfigEntry) -> list[Platform]:
    domains = {spec["domain"] for spec in entry.data["entities"]}
    return [platform for platform in PLATFORMS if platform.value in domains]


async def async_setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Create the entities listed in the entry."""
    await hass.config_entries.async_forward_entry_setups(entry, _platforms(entry))
    return True


async def async_unload_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Remove them."""
    return await hass.config_entries.async_unload_platforms(entry, _platforms(entry))
