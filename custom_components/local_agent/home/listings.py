"""What reading a to-do list or a calendar shows besides its state: its items, its events.

A to-do list's state is only its count and a calendar's only whether an event is on now:
reading them means listing what they hold, read from the entity read (never the house) as its
service reads it; a list cut to its bound says how many more it holds. Not through the
service: a read fires no `call_service` event, which an automation may hear.

What they hold is written by others (an invited calendar, a shared list, a meeting invite's
boilerplate) and read into the prompt: each text is cut to a bound, so a long description
cannot fill the model's context. A list that cannot be read (its integration raises, or does
not answer in time) says so: an empty list would be read as an empty calendar.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import timedelta
from typing import Any
from typing import Final

from custom_components.local_agent.compat import async_calendar_events
from custom_components.local_agent.compat import async_todo_summaries
from custom_components.local_agent.const import LOGGER
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.util import dt as dt_util

from .entity_view import local_moment

TODO_ITEMS_SHOWN: Final = 20
CALENDAR_EVENTS_SHOWN: Final = 30
# From the start of today: a question about this morning, tomorrow or Sunday finds its events.
CALENDAR_DAYS_SHOWN: Final = 7
# The most characters of each text shown (a to-do item is a summary); the rest is cut.
TEXT_CHARS: Final = {"summary": 120, "location": 120, "description": 300}
CUT_MARK: Final = "…"
# How long a list's integration may take (a remote calendar): then the turn goes on.
LISTING_SECONDS: Final = 10.0
_EVENT_FIELDS: Final = ("summary", "start", "end", "location", "description")
_KIND: Final = {"todo": "items", "calendar": "events"}


class _Unreadable(Exception):
    """The list could not be read; its message says why, for the model."""


async def async_listing(hass: HomeAssistant, entity_id: str) -> dict[str, Any]:
    """Return the items or events of a to-do list or calendar a person reads (else nothing)."""
    domain = entity_id.split(".", 1)[0]
    try:
        if domain == "todo":
            return _shown("items", *await _async_todo_items(hass, entity_id))
        if domain == "calendar":
            return _shown("events", *await _async_calendar_events(hass, entity_id))
    except _Unreadable as err:
        return {"error": f"Could not read the {_KIND[domain]} of {entity_id}: {err}"}
    return {}


def _shown(kind: str, shown: list[Any], total: int) -> dict[str, Any]:
    """Return what is shown, and how many more there are when it is cut ("and 12 more").

    Without that, the first twenty items read as the whole list.
    """
    if total <= len(shown):
        return {kind: shown}
    return {kind: shown, f"{kind}_not_shown": total - len(shown)}


def _cut(value: Any, field: str) -> str:
    """Return the value's text, cut to its field's bound."""
    text, bound = str(value), TEXT_CHARS[field]
    return text if len(text) <= bound else text[: bound - len(CUT_MARK)] + CUT_MARK


async def _async_todo_items(hass: HomeAssistant, entity_id: str) -> tuple[list[str], int]:
    """Return the first items still to do, and how many there are in all."""
    summaries = await _async_read(entity_id, async_todo_summaries(hass, entity_id))
    return [_cut(summary, "summary") for summary in summaries[:TODO_ITEMS_SHOWN]], len(summaries)


async def _async_calendar_events(
    hass: HomeAssistant, entity_id: str
) -> tuple[list[dict[str, Any]], int]:
    """Return the first events from the start of today for a week, and how many in all.

    The week is in the home's time zone.
    """
    start = dt_util.start_of_local_day()
    end = start + timedelta(days=CALENDAR_DAYS_SHOWN)
    events, total = await _async_read(
        entity_id, async_calendar_events(hass, entity_id, start, end, CALENDAR_EVENTS_SHOWN)
    )
    shown = [
        {key: _event_field(event[key], key) for key in _EVENT_FIELDS if event.get(key)}
        for event in events
    ]
    return shown, total


def _event_field(value: Any, field: str) -> Any:
    """Return a text cut to its bound, a start or end at the home's clock time.

    As a timer's end and the prompt's "Now:" read: the calendar may keep another time zone,
    and the model converts none. An all-day event's date stays as it is.
    """
    if field in TEXT_CHARS:
        return _cut(value, field)
    return local_moment(value) or value


async def _async_read[T](entity_id: str, reading: Coroutine[Any, Any, T]) -> T:
    """Return what the entity's integration reads; _Unreadable if it fails or takes too long."""
    unknown = "they are unknown"
    try:
        async with asyncio.timeout(LISTING_SECONDS):
            return await reading
    except TimeoutError:
        raise _Unreadable(f"it did not answer in time, {unknown}") from None
    except HomeAssistantError as err:
        raise _Unreadable(f"{err or type(err).__name__}, {unknown}") from None
    except Exception as err:  # any integration's own error: the turn goes on
        LOGGER.warning("Could not read %s: %r", entity_id, err)
        raise _Unreadable(unknown) from None
