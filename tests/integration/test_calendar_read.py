"""A person asks what is on their calendar: the model can read its events, nothing is held.

- With our tools (the default), get_state on a calendar said only "on"/"off" (whether an
  event is going on now): no question about today's or this week's events could be
  answered. It now lists the calendar's events from the start of today for a week.
- With Assist's API, core's calendar__get_events is offered, runs at once (reading changes
  nothing) and its events go back to the model, whose prompt says today's date and time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.const import CONF_HOME_TOOLS
from custom_components.local_agent.turn.home_context import time_text
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.const import Platform
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util
from testing.home_builder import async_expose_only

from .conftest import async_setup_agent
from .conftest import speech
from .home import async_setup_demo
from .scene import tool_call
from .scene import tool_results
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call

CALENDAR: Final = "calendar.calendar_2"  # the demo's: "Current Event", begun 30 minutes ago
ASSIST: Final = {CONF_HOME_TOOLS: False, CONF_LLM_HASS_API: ["assist"]}


@pytest.fixture
async def calendar_home(hass: HomeAssistant) -> None:
    """The demo's calendars, only the second one exposed."""
    await async_setup_demo(hass, [Platform.CALENDAR])
    async_expose_only(hass, [CALENDAR])


def answer_seeing(seen: list[SeenRequest], text: str) -> Callable[[SeenRequest], str]:
    """A scripted answer that keeps the request it answers (the tool result is in it)."""

    def write(request: SeenRequest) -> str:
        seen.append(request)
        return answer(text)

    return write


@pytest.mark.parametrize(
    ("options", "first"),
    [({}, answer(call("get_state", entity_id=CALENDAR))), (ASSIST, None)],
    ids=["our get_state", "Assist's calendar__get_events"],
)
async def test_a_calendar_question_reads_the_events_and_asks_nothing(
    hass: HomeAssistant,
    calendar_home: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    audit: list[dict[str, Any]],
    options: dict[str, Any],
    first: str | None,
) -> None:
    agent = await async_setup_agent(hass, scripted_worker.info.path, **options)
    seen: list[SeenRequest] = []
    reading = first or tool_call("get_events", calendar="Calendar 2", range="today")
    scripted_worker.will_write(reading, answer_seeing(seen, "You are in Current Event."))

    result = await agent.ask("what is on my calendar today?", context=person)

    assert speech(result) == "You are in Current Event."
    [read] = tool_results(hass, result)
    assert "Current Event" in str(read), read
    assert "Current Event" in seen[0].dynamic_prompt
    assert f"Now: {time_text(dt_util.now())}" in seen[0].dynamic_prompt
    assert not [a for a in audit if a.get("outcome") in ("proposed", "refused")], audit
