"""The base of our entities: one per subentry, with a device hanging off the model's device."""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable

from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers.entity import Entity
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .const import DOMAIN
from .runtime import updates as entry_updates
from .runtime.data import LocalAgentConfigEntry


class LocalAgentEntity(Entity):
    """An agent or AI task of a model entry, named by its subentry."""

    _attr_has_entity_name = True
    _attr_name = None

    def __init__(self, entry: LocalAgentConfigEntry, subentry: ConfigSubentry) -> None:
        """Describe the entity and its device (via the model entry's device, __init__.py)."""
        self.entry = entry
        self.subentry = subentry
        self._attr_unique_id = subentry.subentry_id
        info = entry.runtime_data.worker.info
        self._attr_device_info = dr.DeviceInfo(
            identifiers={(DOMAIN, subentry.subentry_id)},
            name=subentry.title,
            manufacturer="Local Agent",
            model=info.name or info.path.name,
            entry_type=dr.DeviceEntryType.SERVICE,
        )
        if entry.runtime_data.device_id is not None:
            self._attr_device_info["via_device_id"] = entry.runtime_data.device_id

    @staticmethod
    @callback
    def forget_subentry(hass: HomeAssistant, subentry_id: str) -> None:
        """Forget what an entity of a removed subentry kept beyond the entry (here: nothing)."""

    @callback
    def async_apply_subentry(self) -> None:
        """Follow the subentry's new name (an entity that keeps more of it applies that too)."""
        self._async_follow_title()

    def _async_follow_title(self) -> None:
        """Give the entity's device the subentry's current name."""
        if self.device_entry is not None and self.device_entry.name != self.subentry.title:
            dr.async_get(self.hass).async_update_device(
                self.device_entry.id, name=self.subentry.title
            )


type PlatformSetup = Callable[
    [HomeAssistant, LocalAgentConfigEntry, AddConfigEntryEntitiesCallback], Awaitable[None]
]


def subentry_platform_setup(
    subentry_type: str, entity_type: type[LocalAgentEntity]
) -> PlatformSetup:
    """Return a platform's async_setup_entry: one entity per subentry of a type.

    The platform follows later subentry changes: added, removed and changed subentries.
    """

    async def async_setup_entry(
        hass: HomeAssistant,
        entry: LocalAgentConfigEntry,
        async_add_entities: AddConfigEntryEntitiesCallback,
    ) -> None:
        entry_updates.async_follow_subentries(
            hass,
            entry,
            subentry_type,
            async_add_entities,
            create=lambda subentry: entity_type(entry, subentry),
            apply=entity_type.async_apply_subentry,
            forget=lambda subentry_id: entity_type.forget_subentry(hass, subentry_id),
        )

    return async_setup_entry
