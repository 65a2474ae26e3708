"""Describe Local Agent's audit events in the logbook."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from homeassistant.components.logbook.const import LOGBOOK_ENTRY_MESSAGE
from homeassistant.components.logbook.const import LOGBOOK_ENTRY_NAME
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback

from .const import DOMAIN
from .const import EVENT_ACTION


@callback
def async_describe_events(
    hass: HomeAssistant,
    async_describe_event: Callable[[str, str, Callable[[Event], dict[str, Any]]], None],
) -> None:
    """Describe `local_agent_action` events."""

    @callback
    def describe(event: Event) -> dict[str, Any]:
        data = event.data
        return {
            LOGBOOK_ENTRY_NAME: "Local Agent",
            LOGBOOK_ENTRY_MESSAGE: f"{data['outcome']}: {data['description']}",
        }

    async_describe_event(DOMAIN, EVENT_ACTION, describe)
