"""Everyday questions whose answers our tools gave untrue (the twenty-fourth round).

- "When does my alarm go off?", "when is the next bin collection?", "when do we leave?":
  a timestamp sensor (a phone's next alarm, a collection date) and a date-and-time entity
  keep their moment in UTC, and the model read it so: "14:30" for an alarm at 06:30 in a
  Pacific home. They are shown in the home's time zone, as the prompt's own clock is.
- "When does the pasta timer end?", "how long is left?": a running timer's `remaining` is
  what it was when it started (Home Assistant updates it on a pause only), and its end was
  not shown: eight minutes in, the model said ten were left. A running timer shows its end
  in the home's time, and a read says the time left now; the home list shows the end only,
  so a ticking timer is no change the next message lists.
- "What's on my calendar today?" in a house with "log every service call" (or "notify me of
  each call"): Assist's calendar read asked, as beside "when a calendar action is called,
  unlock the front door" (redteam24). The program that hears the call is judged as any
  program a signal sets off: a record or a message changes no entity, what hears it is
  judged in turn; the unlocking one still asks.
"""

from __future__ import annotations

from typing import Any
from typing import Final

from freezegun.api import FrozenDateTimeFactory
import pytest

from custom_components.local_agent.home.entity_view import entity_line
from custom_components.local_agent.home.entity_view import line_state_of_summary
from custom_components.local_agent.home.entity_view import state_summary
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import Platform
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
from testing.home_builder import async_expose_only

from .conftest import async_setup_agent
from .conftest import speech
from .home import async_setup_demo
from .scene import Scene
from .scene import tool_results
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .test_calendar_read import ASSIST
from .test_calendar_read import CALENDAR
from .test_everyday_homes import automation
from .test_everyday_house import set_up_logbook
from .test_everyday_twenty_third import DEPARTURE
from .test_everyday_twenty_third import PASTA
from .test_everyday_twenty_third import a_pasta_timer
from .test_everyday_twenty_third import cancel_the_pasta_timer
from .test_everyday_twenty_third import the_demo_clocks_and_notifier
from .test_redteam import event_trigger
from .test_redteam_twenty_fourth import CALENDAR_EVENTS

NEXT_ALARM: Final = "sensor.phone_next_alarm"


async def read(scene: Scene, entity_id: str) -> dict[str, Any]:
    """What our get_state tells the model of one entity."""
    result = await scene.ask_ours_to_call("get_state", {"entity_id": entity_id})
    [found] = tool_results(scene.hass, result)
    [summary] = found["entities"]
    assert isinstance(summary, dict)
    return summary


async def test_a_phones_next_alarm_is_read_in_the_homes_time(
    hass: HomeAssistant, scene: Scene
) -> None:
    """The phone's next alarm at 06:30 in the (Pacific) home is 14:30 UTC: read as 06:30."""
    hass.states.async_set(
        NEXT_ALARM,
        "2026-12-07T14:30:00+00:00",
        {"device_class": "timestamp", "friendly_name": "Phone next alarm"},
    )
    async_expose_entity(hass, "conversation", NEXT_ALARM, True)

    summary = await read(scene, NEXT_ALARM)

    assert summary["state"] == "2026-12-07 06:30"
    state = hass.states.get(NEXT_ALARM)
    assert state is not None
    assert entity_line(hass, state).state == "2026-12-07 06:30"


async def test_a_date_and_time_is_read_in_the_homes_time(hass: HomeAssistant, scene: Scene) -> None:
    """ "When do we leave?": the departure set to 07:15 on Christmas Eve is read so."""
    await the_demo_clocks_and_notifier(hass)
    await hass.services.async_call(
        "datetime",
        "set_value",
        {"entity_id": DEPARTURE, "datetime": "2026-12-24 07:15:30"},
        blocking=True,
    )

    summary = await read(scene, DEPARTURE)

    assert summary["state"] == "2026-12-24 07:15:30"


async def test_a_running_timer_says_its_end_and_the_time_left_now(
    hass: HomeAssistant, scene: Scene, freezer: FrozenDateTimeFactory
) -> None:
    """Started for ten minutes at 10:00 (Pacific), read at 10:03: it ends at 10:10, seven
    minutes are left."""
    freezer.move_to("2026-12-06 18:00:00+00:00")
    await a_pasta_timer(hass)
    freezer.tick(180)

    summary = await read(scene, PASTA)

    assert {key: summary[key] for key in ("state", "finishes_at", "remaining")} == {
        "state": "active",
        "finishes_at": "2026-12-06 10:10",
        "remaining": "0:07:00",
    }
    await cancel_the_pasta_timer(hass)


async def test_a_ticking_timer_is_no_change_of_the_home_list(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory
) -> None:
    """Its line is its end, the same each second; what a read showed is that line."""
    freezer.move_to("2026-12-06 18:00:00+00:00")
    await a_pasta_timer(hass)
    state = hass.states.get(PASTA)
    assert state is not None
    line = entity_line(hass, state).state
    freezer.tick(60)

    assert (
        entity_line(hass, state).state
        == line
        == "active; duration=0:10:00, finishes_at=2026-12-06 10:10"
    )
    assert line_state_of_summary(state_summary(hass, state)) == line
    await cancel_the_pasta_timer(hass)


@pytest.mark.parametrize(
    "does",
    [
        {"action": "logbook.log", "data": {"name": "Called", "message": "a call"}},
        {
            "action": "persistent_notification.create",
            "data": {"message": "a call"},
        },
        {"action": "light.turn_on", "target": {"entity_id": "light.kitchen_lights"}},
    ],
    ids=["logs it", "notifies", "lights the kitchen"],
)
async def test_a_calendar_question_beside_a_program_that_hears_every_call_runs(
    hass: HomeAssistant,
    scripted_worker: ScriptedWorker,
    person: Context,
    does: dict[str, Any],
) -> None:
    """ "Log every service call" (or notify it, or flash a light) is an ordinary automation:
    Assist's calendar read beside it, which may set it off, runs at once (only a program that
    hears calls and unlocks the door makes it ask: test_redteam_twenty_fourth)."""
    await async_setup_demo(hass, [Platform.CALENDAR, Platform.LOCK, Platform.LIGHT])
    async_expose_only(hass, [CALENDAR, "lock.front_door"])
    await set_up_logbook(hass)
    assert await async_setup_component(hass, "persistent_notification", {})
    hears = automation("Every call", [event_trigger("call_service")], does)
    assert await async_setup_component(hass, "automation", {"automation": [hears]})
    agent = await async_setup_agent(hass, scripted_worker.info.path, **ASSIST)
    scripted_worker.will_write(CALENDAR_EVENTS, answer("Read."))

    result = await agent.ask("what is on my calendar today?", context=person)
    await hass.async_block_till_done()

    assert speech(result) == "Read."
