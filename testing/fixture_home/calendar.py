"""Calendars: the events of the fixture's `events` attribute, as upstream's synthetic homes serve.

An event is `{summary, start, end, description?, location?}`; start and end are ISO date-times
(with their offset) or dates (an all-day event, its end inclusive as upstream writes it). The
state follows from the events and the clock (Home Assistant's own rule: on during an event).
"""

from __future__ import annotations

from collections.abc import Mapping
import datetime as dt
from typing import Any

from homeassistant.components.calendar import CalendarEntity
from homeassistant.components.calendar import CalendarEvent
from homeassistant.components.calendar.const import CalendarEntityFeature
from homeassistant.util import dt as dt_util
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import setup_domain


def _moment(value: Any) -> dt.date | dt.datetime:
    """A date or a date-time as the fixture writes it (YAML may have read it already)."""
    if isinstance(value, dt.date):
        return value
    text = str(value).strip()
    if len(text) <= len("2025-04-02"):
        return dt.date.fromisoformat(text)
    return dt.datetime.fromisoformat(text)


def _event(raw: Mapping[str, Any]) -> CalendarEvent:
    start, end = _moment(raw["start"]), _moment(raw["end"])
    if not isinstance(start, dt.datetime) and not isinstance(end, dt.datetime) and end <= start:
        end = start + dt.timedelta(days=1)  # an all-day event's end is exclusive in RFC 5545
    return CalendarEvent(
        start=start,
        end=end,
        summary=str(raw.get("summary") or ""),
        description=raw.get("description"),
        location=raw.get("location"),
    )


def _events(attributes: Mapping[str, Any]) -> list[CalendarEvent]:
    events = [_event(raw) for raw in attributes.get("events") or () if isinstance(raw, Mapping)]
    return sorted(events, key=lambda event: event.start_datetime_local)


class FixtureCalendar(FixtureEntity, CalendarEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A calendar serving the fixture's events (read-only: the fixture's features are shown)."""

    HANDLED = frozenset({"events"})

    @classmethod
    def features_type(cls) -> Any:
        """Calendar features."""
        return CalendarEntityFeature

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """The events (the state follows from them and the clock)."""
        self._events = _events(attributes)

    @property
    def event(self) -> CalendarEvent | None:
        """The event going on now, else the next one."""
        now = dt_util.now()
        return next((e for e in self._events if e.end_datetime_local > now), None)

    async def async_get_events(
        self, hass: Any, start_date: dt.datetime, end_date: dt.datetime
    ) -> list[CalendarEvent]:
        """The events that overlap [start_date, end_date)."""
        return [
            event
            for event in self._events
            if event.start_datetime_local < end_date and event.end_datetime_local > start_date
        ]


async_setup_entry = setup_domain("calendar", FixtureCalendar)
