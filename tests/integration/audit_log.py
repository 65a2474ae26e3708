"""Reading our audit events as the logbook does: the events fired, and its words for them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from custom_components.local_agent import logbook
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import EVENT_ACTION
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback

type Describe = Callable[[Event], dict[str, Any]]


def describer(hass: HomeAssistant) -> Describe:
    """The logbook's description of our audit events (what logbook.py registers)."""
    described: dict[tuple[str, str], Describe] = {}
    logbook.async_describe_events(
        hass,
        lambda domain, event_type, describe: described.update({(domain, event_type): describe}),
    )
    return described[(DOMAIN, EVENT_ACTION)]


def fired(hass: HomeAssistant) -> list[Event]:
    """Our audit events from now on, as they are fired."""
    events: list[Event] = []

    @callback
    def record(event: Event) -> None:
        """In the event loop, in order (a plain function would run in the executor)."""
        events.append(event)

    hass.bus.async_listen(EVENT_ACTION, record)
    return events


def outcomes(audit: list[dict[str, Any]]) -> list[str]:
    """The outcome of each audit record, in order ("proposed", "confirmed", "executed", ...)."""
    return [record["outcome"] for record in audit]
