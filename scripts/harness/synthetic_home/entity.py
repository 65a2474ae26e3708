"""What every synthetic entity shares: identity from its spec, state pushed on change."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity import Entity
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback


class SyntheticEntity(Entity):
    """An entity named and numbered by its spec."""

    _attr_should_poll = False
    _attr_has_entity_name = False

    def __init__(self, spec: Mapping[str, Any]) -> None:
        """Take id, name and device class from the spec."""
        self.spec = spec
        self.index = int(spec["index"])
        self._attr_unique_id = str(spec["key"])
        self._attr_name = str(spec["name"])
        if spec.get("device_class"):
            self._attr_device_class = spec["device_class"]

    def changed(self) -> None:
        """Publish the new state."""
        self.async_write_ha_state()


def setup_domain(
    domain: str, factory: Callable[[Mapping[str, Any]], Entity]
) -> Callable[[HomeAssistant, ConfigEntry, AddConfigEntryEntitiesCallback], Any]:
    """Return a platform's async_setup_entry that adds the entry's entities of domain."""

    async def async_setup_entry(
        hass: HomeAssistant, entry: ConfigEntry, async_add_entities: AddConfigEntryEntitiesCallback
    ) -> None:
        async_add_entities(
            factory(spec) for spec in entry.data["entities"] if spec["domain"] == domain
        )

    return async_setup_entry
