"""What a change to a model entry needs: a reload for the model, none for its agents.

A change of the model itself (data: the file or server; options: context, threads, ...) is
made by a flow that reloads the entry (flows/options_reload.py, async_update_reload_and_abort).
Adding, changing or removing an agent is applied by the conversation platform to that agent
alone, so the model stays loaded and the other agents keep working: the entry follows Home
Assistant's entry-changed signal for that, not an update listener (which would reload the
model for every change of an agent).
"""

from __future__ import annotations

from collections.abc import Callable

from custom_components.local_agent.const import DOMAIN
from homeassistant.config_entries import SIGNAL_CONFIG_ENTRY_CHANGED
from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigEntryChange
from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.dispatcher import async_dispatcher_send
from homeassistant.helpers.entity import Entity
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback


def agents_changed_signal(entry_id: str) -> str:
    """Dispatcher signal sent when an entry's agent subentries may have changed."""
    return f"{DOMAIN}_{entry_id}_agents_changed"


@callback
def async_follow_subentries[E: Entity](
    hass: HomeAssistant,
    entry: ConfigEntry,
    subentry_type: str,
    async_add_entities: AddConfigEntryEntitiesCallback,
    *,
    create: Callable[[ConfigSubentry], E],
    apply: Callable[[E], None],
    forget: Callable[[str], None],
) -> None:
    """Keep one entity per subentry of a type: add new ones, apply changes, forget removed ones.

    The model stays loaded throughout; removing a subentry removes its entity and device from
    the registries by itself; forget drops what its entity kept beyond a reload.
    """
    entities: dict[str, E] = {}

    @callback
    def async_sync() -> None:
        current = {
            subentry_id: subentry
            for subentry_id, subentry in entry.subentries.items()
            if subentry.subentry_type == subentry_type
        }
        for subentry_id in entities.keys() - current.keys():
            del entities[subentry_id]
            forget(subentry_id)
        for subentry_id, subentry in current.items():
            if (entity := entities.get(subentry_id)) is not None:
                apply(entity)
                continue
            entity = entities[subentry_id] = create(subentry)
            async_add_entities([entity], config_subentry_id=subentry_id)

    async_sync()
    entry.async_on_unload(
        async_dispatcher_connect(hass, agents_changed_signal(entry.entry_id), async_sync)
    )


@callback
def async_listen(hass: HomeAssistant, entry: ConfigEntry, device_id: str | None) -> None:
    """Keep the model's device name and the agents in step with the entry while it is loaded."""
    title = entry.title

    @callback
    def changed(change: ConfigEntryChange, changed_entry: ConfigEntry) -> None:
        nonlocal title
        if changed_entry is not entry or change is not ConfigEntryChange.UPDATED:
            return
        if entry.title != title:
            title = entry.title
            if device_id is not None:
                dr.async_get(hass).async_update_device(device_id, name=entry.title)
        async_dispatcher_send(hass, agents_changed_signal(entry.entry_id))

    entry.async_on_unload(async_dispatcher_connect(hass, SIGNAL_CONFIG_ENTRY_CHANGED, changed))
