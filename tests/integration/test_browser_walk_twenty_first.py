"""What a twenty-first walk in a real browser found wrong (an English and then a Dutch
household typing into the Assist dialog: a timer, the wake-up time, the calendar, the shopping
list, the vacuum, the front door and the garage)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
import re
from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import Platform
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
from testing.home_builder import async_expose_only

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .home import async_setup_demo
from .scene import tool_results
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_demo_model import demo_agent
from .test_everyday import async_set_up_a_shopping_list_in
from .test_everyday_languages import SHOPPING
from .test_everyday_twenty_third import VACUUM
from .test_everyday_twenty_third import a_vacuum_that_cleans_two_rooms

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


async def test_the_demo_sets_the_time_and_adds_the_item_a_dutch_household_says(
    hass: HomeAssistant,
    demo_home: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    person: Context,
) -> None:
    """The Dutch walk typed "Zet de wake up time op 06:30" and the develop house's stand-in
    model set 07:30 (its fixed time for a bare "zet"); "Voeg melk toe aan de Shopping List"
    and "Maak de keuken schoon" had "I do not know this command". It now reads the time said,
    adds the item and cleans the room, in Dutch as in German and French (its timer words
    already served)."""
    await a_vacuum_that_cleans_two_rooms(hass)
    await async_set_up_a_shopping_list_in(tmp_path, hass, monkeypatch)
    assert await async_setup_component(
        hass,
        "input_datetime",
        {"input_datetime": {"wake_up_time": {"name": "Wake-up Time", "has_time": True}}},
    )
    assert await async_setup_component(
        hass, "timer", {"timer": {"kitchen_timer": {"name": "Kitchen Timer"}}}
    )
    for entity_id in ("input_datetime.wake_up_time", "timer.kitchen_timer", SHOPPING):
        async_expose_entity(hass, "conversation", entity_id, True)
    agent = await demo_agent(hass, tmp_path)

    wake = await agent.ask("Zet de wake up time op 06:30", context=person, language="nl")
    started = await agent.ask(
        "Start de Kitchen Timer voor 5 minuten", context=person, language="nl"
    )
    cancelled = await agent.ask("Annuleer de Kitchen Timer", context=person, language="nl")
    added = await agent.ask("Voeg melk toe aan de Shopping List", context=person, language="nl")
    cleaning = await agent.ask("Maak de keuken schoon", context=person, language="nl")

    assert state(hass, "input_datetime.wake_up_time") == "06:30:00"
    assert speech(wake) == "Klaar: Wake-up Time op 06:30 instellen."
    assert speech(started) == "Klaar: Kitchen Timer voor 5 minuten starten."
    assert speech(cancelled).startswith("Klaar: Kitchen Timer"), speech(cancelled)
    assert state(hass, "timer.kitchen_timer") == "idle"
    assert speech(added) == "Klaar: melk aan Shopping list toevoegen."
    assert state(hass, SHOPPING) == "1"
    assert speech(cleaning) == "Klaar: Demo vacuum 0 ground floor Kitchen laten schoonmaken."
    assert state(hass, VACUUM) == "cleaning"


async def test_the_demo_says_how_long_a_running_timer_has_left(
    hass: HomeAssistant, demo_home: None, tmp_path: Path, person: Context
) -> None:
    """ "How long is left on the kitchen timer?" had the walk's stand-in answer "Kitchen Timer:
    active", though the read it got says the time left: it now says it, as a model would."""
    assert await async_setup_component(
        hass, "timer", {"timer": {"kitchen_timer": {"name": "Kitchen Timer"}}}
    )
    async_expose_entity(hass, "conversation", "timer.kitchen_timer", True)
    agent = await demo_agent(hass, tmp_path)

    await agent.ask("Start the kitchen timer for 10 minutes", context=person)
    left = await agent.ask("How long is left on the kitchen timer?", context=person)

    await hass.services.async_call(
        "timer", "cancel", {"entity_id": "timer.kitchen_timer"}, blocking=True
    )
    said = speech(left)
    assert re.fullmatch(r"Kitchen Timer: active \(0:(09:[0-5]\d|10:00)\)", said), said
