"""What a change to a model entry needs: a reload for the model, none for its agents.

Home Assistant calls an entry's update listener for every change, subentries included. Only a
change of the model itself (data: the file or server; options: context, threads, ...) needs
the model loaded again. Adding, changing or removing an agent is applied by the conversation
platform to that agent alone, so the model stays loaded and the other agents keep working.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers.dispatcher import async_dispatcher_send

from .const import DOMAIN


def agents_changed_signal(entry_id: str) -> str:
    """Dispatcher signal sent when an entry's agent subentries may have changed."""
    return f"{DOMAIN}_{entry_id}_agents_changed"


@callback
def async_listen(hass: HomeAssistant, entry: ConfigEntry, device_id: str | None) -> None:
    """Reload the entry when its model changes; otherwise update its agents in place."""
    loaded_with: tuple[Mapping[str, Any], Mapping[str, Any]] = (
        dict(entry.data),
        dict(entry.options),
    )
    title = entry.title

    async def updated(hass: HomeAssistant, entry: ConfigEntry) -> None:
        nonlocal title
        if (dict(entry.data), dict(entry.options)) != loaded_with:
            await hass.config_entries.async_reload(entry.entry_id)
            return
        if entry.title != title:
            title = entry.title
            if device_id is not None:
                dr.async_get(hass).async_update_device(device_id, name=entry.title)
        async_dispatcher_send(hass, agents_changed_signal(entry.entry_id))

    entry.async_on_unload(entry.add_update_listener(updated))
