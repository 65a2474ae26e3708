"""Everyday voice requests our tools had no action for, now offered, done at once and said.

- "Set the alarm clock to half past six", "set the holiday to Christmas Eve": the time, date
  and date-and-time entities' own set_value (an alarm clock's wake-up time, a start date).
  Home Assistant's time condition reads a time entity (`after: time.wake_up`); its time
  trigger takes only a date/time helper or a sensor (checked in this version's schema), which
  the policy follows by any id it names anyway. A change of one that an automation watches or
  reads is judged by what that automation does: an unlock asks, lights run at once.
- "Add a minute to the pasta timer" / "take two minutes off": the timer's own change (only
  start, pause, cancel and finish were offered). Its form is shown to the model
  ("HH:MM:SS, -HH:MM:SS to take off") and said with its sign; a start for a negative time is
  refused. A timer whose end an automation
  unlocks the door at asks: the change moves that end.
- "Send the vacuum to clean the kitchen and the living room": the vacuum's own clean_area,
  with the areas as an enum of the home's areas its owner mapped to its rooms (by id, as
  Home Assistant takes them; said by their names). Another area is refused with the list: Home
  Assistant would skip that vacuum. Not offered for a vacuum with no mapped rooms.
- "Put the bed light on rainbow": the light's own effect on turn-on, one of the effects the
  light lists (another is refused with its list).
- "Send 'dinner is ready' to the kitchen display": notify's send_message to an exposed notify
  entity (nothing was offered for notify). The message is the person's own text; a notify
  entity an automation watches is judged as any other entity.

Each answer is checked in the seven languages, through test_everyday_actions_offered's one
test of everyday requests.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.home.call_texts import Phrase
from custom_components.local_agent.home.tools import ToolFailure
from custom_components.local_agent.home.tools import async_build_home_tools
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import Platform
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
from testing.home_builder import async_area

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .home import async_setup_demo
from .probes import Request
from .probes import Step
from .probes import add_demo_platforms
from .probes import ask_ours_beside
from .probes import assert_held_only_when
from .probes import held_if_then_unlocks
from .probes import may_unlock
from .scene import Scene
from .scene import tool_results
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_homes import automation
from .test_redteam import event_trigger

ALARM_CLOCK: Final = "time.time"
HOLIDAY: Final = "date.date"
DEPARTURE: Final = "datetime.date_and_time"
PASTA: Final = "timer.pasta"
VACUUM: Final = "vacuum.demo_vacuum_0_ground_floor"
BED_LIGHT: Final = "light.bed_light"
DISPLAY: Final = "notify.notifier"
DATED: Final = (Platform.TIME, Platform.DATE, Platform.DATETIME, Platform.NOTIFY)


async def the_demo_clocks_and_notifier(hass: HomeAssistant) -> None:
    """The demo's "Time" (12:00:00), "Date" (2020-01-01), "Date and Time" and "Notifier"
    (a notify entity that fires a "notify" event with each message), exposed."""
    await async_setup_demo(hass, DATED)
    for entity_id in (ALARM_CLOCK, HOLIDAY, DEPARTURE, DISPLAY):
        async_expose_entity(hass, "conversation", entity_id, True)


async def a_vacuum_that_cleans_two_rooms(hass: HomeAssistant) -> None:
    """The demo's most capable vacuum, exposed, docked; its owner mapped the home's Kitchen
    and Living Room to its rooms (the Bedroom is no room of it)."""
    if hass.states.get(VACUUM) is None:
        await async_setup_demo(hass, [Platform.VACUUM])
    kitchen, living_room = async_area(hass, "Kitchen"), async_area(hass, "Living Room")
    async_area(hass, "Bedroom")
    er.async_get(hass).async_update_entity_options(
        VACUUM, "vacuum", {"area_mapping": {kitchen: ["kitchen"], living_room: ["living_room"]}}
    )
    async_expose_entity(hass, "conversation", VACUUM, True)
    await hass.async_block_till_done()


async def the_bed_light_exposed(hass: HomeAssistant) -> None:
    """The demo's "Bed Light" (off; its effects: rainbow and off), exposed."""
    async_expose_entity(hass, "conversation", BED_LIGHT, True)


async def cancel_the_pasta_timer(hass: HomeAssistant) -> None:
    """The test leaves no timer running."""
    await hass.services.async_call("timer", "cancel", {"entity_id": PASTA}, blocking=True)


async def a_pasta_timer(hass: HomeAssistant) -> None:
    """A timer "Pasta", started for ten minutes, exposed."""
    assert await async_setup_component(
        hass, "timer", {"timer": {"pasta": {"name": "Pasta", "duration": "00:10:00"}}}
    )
    await hass.services.async_call("timer", "start", {"entity_id": PASTA}, blocking=True)
    async_expose_entity(hass, "conversation", PASTA, True)


def finishes_at(hass: HomeAssistant) -> datetime:
    """When the running pasta timer finishes."""
    timer = hass.states.get(PASTA)
    assert timer is not None
    end = dt_util.parse_datetime(timer.attributes["finishes_at"])
    assert end is not None
    return end


def done(said: str, *calls: str) -> dict[str, str]:
    """The answer in English, then in the six other languages after their word for done."""
    languages = ("de", "fr", "es", "it", "nl", "pt")
    dones = ("Erledigt", "C'est fait", "Hecho", "Fatto", "Klaar", "Feito")
    return {"en": said} | {
        language: f"{word}{chr(0xA0) if language == 'fr' else ''}: {text}."
        for language, word, text in zip(languages, dones, calls, strict=True)
    }


# Asked through test_everyday_actions_offered's one test of everyday requests.
REQUESTS: Final = {
    "alarm clock set": Request(
        ALARM_CLOCK,
        the_demo_clocks_and_notifier,
        (
            Step(
                "set_value",
                {"time": "06:30:00"},
                done(
                    "Set Time to 06:30.",
                    "Time auf 06:30 einstellen",
                    "régler Time sur 06:30",
                    "ajustar Time a las 06:30",
                    "impostare Time alle 06:30",
                    "Time op 06:30 instellen",
                    "definir Time para as 06:30",
                ),
                {"state": "06:30:00"},
            ),
        ),
    ),
    "holiday date set": Request(
        HOLIDAY,
        the_demo_clocks_and_notifier,
        (
            Step(
                "set_value",
                {"date": "2026-12-24"},
                done(
                    "Set Date to December 24, 2026.",
                    "Date auf 24. Dezember 2026 einstellen",
                    "régler Date sur 24 décembre 2026",
                    "ajustar Date al 24 de diciembre de 2026",
                    "impostare Date al 24 dicembre 2026",
                    "Date op 24 december 2026 instellen",
                    "definir Date para 24 de dezembro de 2026",
                ),
                {"state": "2026-12-24"},
            ),
        ),
    ),
    # Read in Home Assistant's time zone (the tests' US/Pacific), shown in UTC.
    "departure date and time set": Request(
        DEPARTURE,
        the_demo_clocks_and_notifier,
        (
            Step(
                "set_value",
                {"datetime": "2026-12-24 07:15:00"},
                done(
                    "Set Date and Time to December 24, 2026 at 07:15.",
                    "Date and Time auf 24. Dezember 2026 um 07:15 einstellen",
                    "régler Date and Time sur 24 décembre 2026 à 07:15",
                    "ajustar Date and Time al 24 de diciembre de 2026 a las 07:15",
                    "impostare Date and Time al 24 dicembre 2026 alle 07:15",
                    "Date and Time op 24 december 2026 om 07:15 instellen",
                    "definir Date and Time para 24 de dezembro de 2026 às 07:15",
                ),
                {"state": "2026-12-24T15:15:00+00:00"},
            ),
        ),
    ),
    # A running timer may take no more than the duration it was started for: two minutes off,
    # then one back.
    "pasta timer changed": Request(
        PASTA,
        a_pasta_timer,
        (
            Step(
                "change",
                {"duration": "-00:02:00"},
                done(
                    "Changed Pasta by -2 minutes.",
                    "Pasta um -2 Minuten ändern",
                    "modifier Pasta de -2 minutes",
                    "cambiar Pasta en -2 minutos",
                    "modificare Pasta di -2 minuti",
                    "Pasta met -2 minuten wijzigen",
                    "alterar Pasta em -2 minutos",
                ),
                {"state": "active"},
            ),
            Step(
                "change",
                {"duration": "00:01:00"},
                done(
                    "Changed Pasta by 1 minute.",
                    "Pasta um 1 Minute ändern",
                    "modifier Pasta de 1 minute",
                    "cambiar Pasta en 1 minuto",
                    "modificare Pasta di 1 minuto",
                    "Pasta met 1 minuut wijzigen",
                    "alterar Pasta em 1 minuto",
                ),
                {"state": "active"},
            ),
            Step(
                "cancel",
                {},
                done(
                    "Cancelled Pasta.",
                    "Pasta abbrechen",
                    "annuler Pasta",
                    "cancelar Pasta",
                    "annullare Pasta",
                    "Pasta annuleren",
                    "cancelar Pasta",
                ),
                {"state": "idle"},
            ),
        ),
    ),
    "kitchen and living room cleaned": Request(
        VACUUM,
        a_vacuum_that_cleans_two_rooms,
        (
            Step(
                "clean_area",
                {"cleaning_area_id": ["kitchen", "living_room"]},
                done(
                    "Sent Demo vacuum 0 ground floor to clean Kitchen and Living Room.",
                    "mit Demo vacuum 0 ground floor Kitchen und Living Room reinigen",
                    "envoyer Demo vacuum 0 ground floor nettoyer Kitchen et Living Room",
                    "enviar Demo vacuum 0 ground floor a limpiar Kitchen y Living Room",
                    "mandare Demo vacuum 0 ground floor a pulire Kitchen e Living Room",
                    "Demo vacuum 0 ground floor Kitchen en Living Room laten schoonmaken",
                    "enviar Demo vacuum 0 ground floor para limpar Kitchen e Living Room",
                ),
                {"state": "cleaning", "cleaned_area": 1.4},
            ),
        ),
    ),
    "bed light in the rainbow effect": Request(
        BED_LIGHT,
        the_bed_light_exposed,
        (
            Step(
                "turn_on",
                {"effect": "rainbow"},
                done(
                    "Turned on Bed Light with the effect rainbow.",
                    "Bed Light mit dem Effekt rainbow einschalten",
                    "allumer Bed Light avec l'effet rainbow",
                    "encender Bed Light con el efecto rainbow",
                    "accendere Bed Light con l'effetto rainbow",
                    "Bed Light met het effect rainbow inschakelen",
                    "ligar Bed Light com o efeito rainbow",
                ),
                {"state": "on", "effect": "rainbow"},
            ),
        ),
    ),
    "message sent to the display": Request(
        DISPLAY,
        the_demo_clocks_and_notifier,
        (
            Step(
                "send_message",
                {"message": "Dinner is ready"},
                done(
                    'Sent "Dinner is ready" to Notifier.',
                    "„Dinner is ready“ an Notifier senden",
                    "envoyer «\u00a0Dinner is ready\u00a0» à Notifier",
                    "enviar «Dinner is ready» a Notifier",
                    'inviare "Dinner is ready" a Notifier',
                    "„Dinner is ready” naar Notifier sturen",
                    "enviar «Dinner is ready» para Notifier",
                ),
                {},
            ),
        ),
    ),
}


async def test_times_dates_and_a_timers_change_are_offered_with_their_form(
    hass: HomeAssistant, scripted_agent: Agent
) -> None:
    """Each is written as Home Assistant reads it; a timer's change may take time off."""
    await the_demo_clocks_and_notifier(hass)
    await a_pasta_timer(hass)

    tools = await async_build_home_tools(hass, assistant="conversation")

    await cancel_the_pasta_timer(hass)
    properties = {spec.name: spec.parameters["properties"] for spec in tools.specs}
    assert properties["time"]["time"] == {"type": "string", "description": "HH:MM:SS"}
    assert properties["date"]["date"] == {"type": "string", "description": "YYYY-MM-DD"}
    assert properties["datetime"]["datetime"] == {
        "type": "string",
        "description": "YYYY-MM-DD HH:MM:SS",
    }
    assert properties["timer"]["duration"] == {
        "type": "string",
        "description": "HH:MM:SS, -HH:MM:SS to take off",
    }
    assert properties["notify"]["action"]["enum"] == ["send_message"]
    assert properties["notify"]["message"] == {"type": "string"}


async def test_the_timers_change_moves_its_end(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """ "Take two minutes off the pasta timer": it finishes two minutes earlier."""
    await a_pasta_timer(hass)
    planned = finishes_at(hass)
    scripted_worker.will_write(
        answer(call("timer", action="change", entity_id=PASTA, duration="-00:02:00"))
    )

    result = await scripted_agent.ask("take two minutes off the pasta timer")

    assert speech(result) == "Changed Pasta by -2 minutes."
    assert (planned - finishes_at(hass)).total_seconds() == 120
    await cancel_the_pasta_timer(hass)


async def test_a_timer_is_not_started_for_a_negative_time(
    hass: HomeAssistant, scene: Scene
) -> None:
    """The timer tool's duration may be negative for a change only: a start is refused."""
    assert await async_setup_component(hass, "timer", {"timer": {"pasta": {"name": "Pasta"}}})
    async_expose_entity(hass, "conversation", PASTA, True)

    result = await scene.ask_ours_to_call(
        "timer", {"action": "start", "entity_id": PASTA, "duration": "-00:05:00"}
    )

    assert [found.get("error") for found in tool_results(hass, result)] == [
        "duration must be HH:MM:SS, not negative, got '-00:05:00'."
    ]
    assert state(hass, PASTA) == "idle"


async def test_the_message_reaches_the_display_with_its_title(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """The person's words are the message, as said; the display takes a title too."""
    await the_demo_clocks_and_notifier(hass)
    sent: list[dict[str, Any]] = []

    def heard(event: Event) -> None:
        sent.append(dict(event.data))

    hass.bus.async_listen("notify", heard)
    scripted_worker.will_write(
        answer(
            call(
                "notify",
                action="send_message",
                entity_id=DISPLAY,
                message="Dinner is ready",
                title="Kitchen",
            )
        )
    )

    result = await scripted_agent.ask("send dinner is ready to the display")
    await hass.async_block_till_done()

    assert speech(result) == 'Sent "Dinner is ready" to Notifier (Kitchen).'
    assert sent == [{"message": "Dinner is ready", "title": "Kitchen"}]


def state_trigger(entity_id: str, then: dict[str, Any]) -> dict[str, Any]:
    """ "When `entity_id` changes, `then`": an automation "Follows"."""
    return automation("Follows", [{"trigger": "state", "entity_id": entity_id}], then)


async def demo_entity_exposed(hass: HomeAssistant, entity_id: str, *platforms: Platform) -> None:
    """More of the demo house (these platforms), this entity of it exposed."""
    await add_demo_platforms(hass, *platforms)
    async_expose_entity(hass, "conversation", entity_id, True)


@held_if_then_unlocks
@pytest.mark.parametrize(
    ("entity_id", "action", "data", "change"),
    [
        (ALARM_CLOCK, "set_value", {"time": "06:30:00"}, "Set Time to 06:30"),
        (HOLIDAY, "set_value", {"date": "2026-12-24"}, "Set Date to December 24, 2026"),
        (
            DEPARTURE,
            "set_value",
            {"datetime": "2026-12-24 07:15:00"},
            "Set Date and Time to December 24, 2026 at 07:15",
        ),
        (
            DISPLAY,
            "send_message",
            {"message": "Dinner is ready"},
            'Send "Dinner is ready" to Notifier',
        ),
    ],
    ids=["time", "date", "date and time", "notify"],
)
async def test_a_change_an_automation_follows_is_judged_by_what_it_does(
    hass: HomeAssistant,
    scene: Scene,
    entity_id: str,
    action: str,
    data: dict[str, Any],
    change: str,
    then: dict[str, Any],
    held: bool,
) -> None:
    """ "When the alarm clock (the holiday, the display's last message) changes, unlock the
    front door": the change asks. One that lights the kitchen runs at once."""
    await demo_entity_exposed(hass, entity_id, *DATED)
    before = hass.states.get(entity_id)
    assert before is not None

    result = await ask_ours_beside(
        hass, scene, state_trigger(entity_id, then), action, entity_id, **data
    )

    assert_held_only_when(hass, result, held, may_unlock(change))
    now = hass.states.get(entity_id)
    assert now is not None
    assert (now.state == before.state) is held


@held_if_then_unlocks
async def test_an_alarm_clock_a_time_condition_reads_is_judged_by_what_it_lets_run(
    hass: HomeAssistant, scene: Scene, then: dict[str, Any], held: bool
) -> None:
    """ "When the courier rings after the alarm clock's time, unlock the front door": Home
    Assistant's time condition reads a time entity, so setting it decides whether the next
    ring unlocks; it asks. One that lights the kitchen runs at once."""
    await demo_entity_exposed(hass, ALARM_CLOCK, Platform.TIME)
    program = automation(
        "Courier",
        [event_trigger("courier_rang")],
        then,
        conditions=[{"condition": "time", "after": ALARM_CLOCK}],
    )

    result = await ask_ours_beside(hass, scene, program, "set_value", ALARM_CLOCK, time="06:30")

    assert_held_only_when(hass, result, held, may_unlock("Set Time to 06:30"))


@held_if_then_unlocks
async def test_a_timer_whose_end_an_automation_follows_is_judged_by_what_it_does(
    hass: HomeAssistant, scene: Scene, then: dict[str, Any], held: bool
) -> None:
    """ "When the pasta timer finishes, unlock the front door": adding a minute moves the
    unlocking; it asks. One that lights the kitchen at its end runs at once."""
    await a_pasta_timer(hass)
    program = automation("Pasta done", [event_trigger("timer.finished", entity_id=PASTA)], then)
    await hass.services.async_call(
        "timer", "change", {"entity_id": PASTA, "duration": "-00:02:00"}, blocking=True
    )
    planned = finishes_at(hass)

    result = await ask_ours_beside(hass, scene, program, "change", PASTA, duration="00:01:00")

    assert_held_only_when(hass, result, held, may_unlock("Change Pasta by 1 minute"))
    assert (finishes_at(hass) - planned).total_seconds() == (0 if held else 60)
    await cancel_the_pasta_timer(hass)


async def test_a_vacuum_is_offered_the_areas_mapped_to_its_rooms_only(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """The areas are an enum of the areas the vacuum cleans (by id, as Home Assistant takes
    them), never any text: one it has no room for (the Bedroom) is refused with the list."""
    await a_vacuum_that_cleans_two_rooms(hass)
    tools = await async_build_home_tools(hass, assistant="conversation")
    vacuum = next(spec for spec in tools.specs if spec.name == "vacuum")
    scripted_worker.will_write(
        answer(call("vacuum", action="clean_area", entity_id=VACUUM, cleaning_area_id="bedroom")),
        answer("It cannot clean the bedroom."),
    )

    result = await scripted_agent.ask("clean the bedroom")

    assert vacuum.parameters["properties"]["cleaning_area_id"] == {
        "type": "array",
        "items": {"type": "string", "enum": ["kitchen", "living_room"]},
    }
    assert [found.get("error") for found in tool_results(hass, result)] == [
        "Parameter 'cleaning_area_id' of tool 'vacuum': item 1: expected one of 'kitchen', "
        "'living_room', got 'bedroom'."
    ]
    assert state(hass, VACUUM) == "docked"
    # Past the enum (another vacuum of the home may clean the Bedroom), the plan refuses it.
    assert tools.plan(
        ToolCall(
            "vacuum",
            {"action": "clean_area", "entity_id": VACUUM, "cleaning_area_id": ["bedroom"]},
        )
    ) == ToolFailure(
        "Demo vacuum 0 ground floor cleans no area 'bedroom'. Use one of: kitchen, living_room.",
        (Phrase("refused_no_room_for", {"name": "Demo vacuum 0 ground floor", "area": "Bedroom"}),),
    )


async def test_a_vacuum_with_no_mapped_rooms_is_not_offered_an_area(
    hass: HomeAssistant, scripted_agent: Agent
) -> None:
    """Without the owner's mapping, Home Assistant refuses every area: not offered."""
    await async_setup_demo(hass, [Platform.VACUUM])
    async_expose_entity(hass, "conversation", VACUUM, True)

    tools = await async_build_home_tools(hass, assistant="conversation")

    vacuum = next(spec for spec in tools.specs if spec.name == "vacuum")
    assert "clean_area" not in vacuum.parameters["properties"]["action"]["enum"]
    assert "cleaning_area_id" not in vacuum.parameters["properties"]


@held_if_then_unlocks
async def test_a_vacuum_an_automation_follows_is_judged_by_what_it_does(
    hass: HomeAssistant, scene: Scene, then: dict[str, Any], held: bool
) -> None:
    """ "When the vacuum starts cleaning, unlock the front door" (to let it out): sending it
    to clean the kitchen asks. One that lights the kitchen runs at once."""
    await add_demo_platforms(hass, Platform.VACUUM)
    await a_vacuum_that_cleans_two_rooms(hass)

    result = await ask_ours_beside(
        hass, scene, state_trigger(VACUUM, then), "clean_area", VACUUM, cleaning_area_id=["kitchen"]
    )

    assert_held_only_when(
        hass, result, held, may_unlock("Send Demo vacuum 0 ground floor to clean Kitchen")
    )
    assert (state(hass, VACUUM) == "docked") is held


@held_if_then_unlocks
async def test_a_message_an_automation_hears_is_judged_by_what_it_does(
    hass: HomeAssistant, scene: Scene, then: dict[str, Any], held: bool
) -> None:
    """The demo display fires a "notify" event with each message: "when a notification
    comes, unlock the front door" hears the message sent, which asks. One that lights the
    kitchen runs at once."""
    await demo_entity_exposed(hass, DISPLAY, Platform.NOTIFY)
    program = automation("Heard", [event_trigger("notify")], then)

    result = await ask_ours_beside(
        hass, scene, program, "send_message", DISPLAY, message="Dinner is ready"
    )

    assert_held_only_when(hass, result, held, may_unlock('Send "Dinner is ready" to Notifier'))


async def test_an_effect_the_light_does_not_list_is_refused_with_its_list(
    hass: HomeAssistant, scene: Scene
) -> None:
    """ "Colour loop" on a light that has none: refused with the effects it has."""
    result = await scene.ask_ours_to_call(
        "light", {"action": "turn_on", "entity_id": BED_LIGHT, "effect": "colorloop"}
    )

    assert [found.get("error") for found in tool_results(hass, result)] == [
        "Bed Light has no effect 'colorloop'. Use one of: rainbow, off."
    ]
    assert state(hass, BED_LIGHT) == "off"


@held_if_then_unlocks
async def test_an_effect_an_automation_follows_is_judged_by_what_it_does(
    hass: HomeAssistant, scene: Scene, then: dict[str, Any], held: bool
) -> None:
    """ "When the bed light's effect changes, unlock the front door": asks. One that lights
    the kitchen runs at once."""
    follows = automation(
        "Follows", [{"trigger": "state", "entity_id": BED_LIGHT, "attribute": "effect"}], then
    )

    result = await ask_ours_beside(hass, scene, follows, "turn_on", BED_LIGHT, effect="off")

    assert_held_only_when(hass, result, held, may_unlock("Turn on Bed Light with the effect off"))
    assert (state(hass, BED_LIGHT) == "off") is held
