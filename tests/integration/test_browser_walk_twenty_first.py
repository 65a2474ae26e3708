"""What a twenty-first walk in a real browser found wrong (an English and then a Dutch
household typing into the Assist dialog: a timer, the wake-up time, the calendar, the shopping
list, the vacuum, the front door and the garage)."""

from __future__ import annotations

from datetime import timedelta
from typing import Final

from homeassistant.const import Platform
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util
from testing.home_builder import async_expose_only

from .conftest import Agent
from .home import async_setup_demo
from .scene import tool_results
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call

CALENDAR: Final = "calendar.calendar_1"  # the demo's: "Future Event", in half an hour


async def test_a_calendar_event_is_read_at_the_homes_own_clock_time(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """'What's on Calendar 1?' showed the walk '2026-12-06T23:44:03.225617+01:00 Future
    Event': the event's start as its integration wrote it, in the calendar's own offset, where
    a timer's end and the prompt's "Now:" are the home's clock time. A calendar in another time
    zone than the home (here: written before the home moved) had the model say the wrong hour.
    Its start and end now read as the home's clocks show them."""
    await async_setup_demo(hass, [Platform.CALENDAR])
    async_expose_only(hass, [CALENDAR])
    await hass.config.async_set_time_zone("Europe/Amsterdam")
    scripted_worker.will_write(answer(call("get_state", entity_id=CALENDAR)), answer("At …"))

    result = await scripted_agent.ask("What's on Calendar 1?", context=person)

    [read] = tool_results(hass, result)
    [event] = read["entities"][0]["events"]
    starts = dt_util.parse_datetime(str(event["start"]))
    assert event["summary"] == "Future Event"
    assert starts is not None, event
    assert starts.tzinfo is None, event
    expected = dt_util.now().replace(tzinfo=None) + timedelta(minutes=30)
    assert abs((starts - expected).total_seconds()) < 60, (event, expected)
