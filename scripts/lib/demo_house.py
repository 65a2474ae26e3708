"""Give the development home what a real one has beyond the demo platforms.

Used by `scripts/develop` before Home Assistant starts: a shopping list (to-do) and a local
calendar ("Family") with events today and tomorrow, added as config entries the way their
"Add integration" dialogs add them. Entries that exist already are kept; the calendar's events
are written only while its file does not exist yet.

Usage: python scripts/lib/demo_house.py CONFIG_DIR
"""

from __future__ import annotations

import asyncio
from datetime import date
from datetime import timedelta
import logging
from pathlib import Path
import sys
from types import MappingProxyType
from typing import Any

from homeassistant import loader
from homeassistant.config_entries import SOURCE_USER
from homeassistant.config_entries import ConfigEntries
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import EVENT_HOMEASSISTANT_FINAL_WRITE
from homeassistant.core import HomeAssistant

CALENDAR_NAME = "Family"
# (day offset, start, end, summary): what a family calendar holds today and tomorrow.
EVENTS = (
    (0, "0800", "0830", "School run"),
    (0, "1830", "1930", "Football practice"),
    (1, "0900", "1000", "Dentist"),
    (1, "1900", "2200", "Dinner with Anna and Marc"),
)
ENTRIES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("shopping_list", "Shopping list", {}),
    ("local_calendar", CALENDAR_NAME, {"calendar_name": CALENDAR_NAME, "storage_key": "family"}),
)


def calendar_text(today: date) -> str:
    """The calendar file: EVENTS on today's and tomorrow's dates."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Local Agent//demo house//EN"]
    for number, (offset, start, end, summary) in enumerate(EVENTS):
        day = (today + timedelta(days=offset)).strftime("%Y%m%d")
        lines += [
            "BEGIN:VEVENT",
            f"UID:demo-house-{number}",
            f"DTSTAMP:{day}T000000Z",
            f"DTSTART;TZID=Europe/Berlin:{day}T{start}00",
            f"DTEND;TZID=Europe/Berlin:{day}T{end}00",
            f"SUMMARY:{summary}",
            "END:VEVENT",
        ]
    return "\r\n".join([*lines, "END:VCALENDAR", ""])


async def add_entries(config_dir: str) -> str:
    """Add the missing entries and the calendar's events; say what was done."""
    hass = HomeAssistant(config_dir)
    loader.async_setup(hass)
    hass.config_entries = ConfigEntries(hass, {})
    await hass.config_entries.async_initialize()
    added = []
    try:
        for domain, title, data in ENTRIES:
            if hass.config_entries.async_entries(domain):
                continue
            entry = ConfigEntry(
                data=data,
                discovery_keys=MappingProxyType({}),
                domain=domain,
                minor_version=1,
                options={},
                source=SOURCE_USER,
                subentries_data=None,
                title=title,
                unique_id=None,
                version=1,
            )
            # Only stores the entry: Home Assistant sets it up when it starts.
            hass.config_entries._entries[entry.entry_id] = entry
            hass.config_entries._async_schedule_save()
            added.append(title)
        hass.bus.async_fire(EVENT_HOMEASSISTANT_FINAL_WRITE)
        await hass.async_block_till_done()
    finally:
        logging.getLogger("homeassistant.core").setLevel(logging.WARNING)
        await hass.async_stop()
    return f"added {', '.join(added)}" if added else "shopping list and calendar exist already"


def write_calendar(config_dir: str) -> None:
    """Write the calendar's events, unless its file exists (what the user changed stays)."""
    calendar = Path(config_dir, ".storage", "local_calendar.family.ics")
    if not calendar.exists():
        calendar.parent.mkdir(parents=True, exist_ok=True)
        calendar.write_text(calendar_text(date.today()), encoding="utf-8")


if __name__ == "__main__":
    write_calendar(sys.argv[1])
    print(asyncio.run(add_entries(sys.argv[1])))
