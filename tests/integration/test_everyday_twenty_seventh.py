"""Whole areas said short, reads beside light-only automations, Home Assistant's own reasons.

- "Turn off everything upstairs": six lights went off and the answer read three names and
  "3 more". From four targets on, a done answer counts them by kind ("6 lights", "6 Lichter",
  "6 luzes"), with the area or the floor every one of them is in, as the registries place
  them: "Turned off 6 lights (Upstairs)." Two or three targets keep their names.
- A call on six lights of which the kitchen's bulb stayed off: the person heard "I could not
  turn on Bed Light, Ceiling Lights, Entrance Color + White Lights and …", five of them on.
  What took it is said done (counted), what did not is named: "Turned on 5 lights. I could
  not turn on Kitchen Lights." The model still reads which target missed.
- A core service that refuses with a translated reason (climate.set_temperature with the low
  end above the high end): the person heard only "Das ging nicht: die Temperatur von Ecobee
  einstellen." Now the integration's own "exceptions" translation follows, in the
  conversation's language, else English, else our own sentence; the model still reads Home
  Assistant's English error. An error naming our own domain is not said (trust no name).
- "When a light action is called, unlock the front door" (an event trigger on call_service
  whose data names the light domain) made Assist's calendar and to-do reads ask. Core's own
  calendar tool (told by its class) calls calendar.get_events, which that filter cannot
  match: it reads at once. A filter that may match, a templated one, one on the service only
  or none still asks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.home.call_texts import IntegrationReason
from custom_components.local_agent.home.call_texts import async_said
from custom_components.local_agent.home.counted_targets import TargetKind
from custom_components.local_agent.home.counted_targets import counted
from custom_components.local_agent.home.failure_reasons import integration_reason
from custom_components.local_agent.safety.tool_review import service_read_by
from homeassistant.components.calendar.llm import CalendarGetEventsTool
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import Platform
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import intent
from homeassistant.setup import async_setup_component
from testing.home_builder import async_area
from testing.home_builder import async_expose_only
from testing.home_builder import async_place_in_area

from .agents import Talk
from .agents import speech
from .agents import state
from .conftest import Agent
from .home import async_setup_demo
from .scene import model_saw
from .scene import tool_call
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_everyday import async_set_up_a_shopping_list_in
from .test_everyday_homes import automation
from .test_everyday_twenty_sixth import LIGHTS
from .test_everyday_twenty_sixth import all_six_turned_off
from .test_everyday_twenty_sixth import upstairs_lights
from .test_redteam import UNLOCK_FRONT_DOOR
from .test_redteam import event_trigger
from .test_redteam_twenty_fourth import ASKED_TO_READ
from .test_redteam_twenty_fourth import a_calendar_and_the_front_door
from .test_redteam_twenty_fourth import read_by_assist

FANS: Final = ("fan.living_room_fan", "fan.ceiling_fan")


UPSTAIRS: Final = {
    "en": "Turned off 6 lights (Upstairs).",
    "de": "Erledigt: 6 Lichter (Upstairs) ausschalten.",
    "fr": "C'est fait\u00a0: éteindre 6 lumières (Upstairs).",
    "es": "Hecho: apagar 6 luces (Upstairs).",
    "it": "Fatto: spegnere 6 luci (Upstairs).",
    "nl": "Klaar: 6 lampen (Upstairs) uitschakelen.",
    "pt": "Feito: desligar 6 luzes (Upstairs).",
}


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


@pytest.mark.parametrize(("language", "said"), UPSTAIRS.items())
async def test_a_whole_floor_turned_off_is_said_as_a_count_on_that_floor(
    hass: HomeAssistant, talk: Talk, language: str, said: str
) -> None:
    """Six lights in two upstairs rooms: their count and their floor, in each language."""
    upstairs_lights(hass)

    assert await all_six_turned_off(hass, talk, "turn off everything upstairs", language) == said


def lights_in_the_bedroom(hass: HomeAssistant) -> None:
    """Every demo light exposed, all in the Bedroom, on no floor."""
    bedroom = async_area(hass, "Bedroom")
    for light in LIGHTS:
        async_expose_entity(hass, "conversation", light, True)
        async_place_in_area(hass, light, bedroom)


async def test_one_rooms_lights_are_said_as_a_count_in_that_room(
    hass: HomeAssistant, talk: Talk
) -> None:
    """Every target in the Bedroom: "(Bedroom)", whatever the model called the place."""
    lights_in_the_bedroom(hass)

    result = await talk.say(
        "turn on the lights in the master suite",
        "de",
        call("light", action="turn_on", entity_id=list(LIGHTS)),
    )

    assert speech(result) == "Erledigt: 6 Lichter (Bedroom) einschalten."


async def test_lights_and_fans_turned_off_together_are_counted_by_kind(
    hass: HomeAssistant, talk: Talk
) -> None:
    """Four lights and two fans, in two calls of one round: "4 luces y 2 ventiladores"."""
    for entity_id in (*LIGHTS, *FANS):
        async_expose_entity(hass, "conversation", entity_id, True)

    result = await talk.say(
        "turn everything off",
        "es",
        call("light", action="turn_off", entity_id=list(LIGHTS[:4]))
        + call("fan", action="turn_off", entity_id=list(FANS)),
    )

    assert speech(result) == "Hecho: apagar 4 luces y 2 ventiladores."


async def test_three_targets_keep_their_names(hass: HomeAssistant, talk: Talk) -> None:
    """Three lights read well by name: they are not counted."""
    upstairs_lights(hass)

    result = await talk.say(
        "turn off three lights",
        "en",
        call("light", action="turn_off", entity_id=list(LIGHTS[:3])),
    )

    assert speech(result) == (
        "Turned off Bed Light, Ceiling Lights and Entrance Color + White Lights."
    )


LOW_ABOVE_HIGH: Final = {
    "de": "Das ging nicht: die Temperatur von Ecobee einstellen. 'Untere Soll-Temperatur' darf "
    "nicht höher als 'Obere Soll-Temperatur' sein.",
    "fr": "Je n'ai pas pu régler la température d'Ecobee. La «\u00a0température cible "
    "inférieure\u00a0» ne peut pas être supérieure à la «\u00a0température cible "
    "supérieure\u00a0».",
}


@pytest.mark.parametrize("language", list(LOW_ABOVE_HIGH))
async def test_home_assistants_own_reason_is_said_in_the_persons_language(
    hass: HomeAssistant, talk: Talk, language: str, caplog: pytest.LogCaptureFixture
) -> None:
    """climate.set_temperature with the low end above the high end: core's translated reason."""
    async_expose_entity(hass, "conversation", "climate.ecobee", True)

    result = await talk.say(
        "heat between 25 and 20 degrees",
        language,
        call(
            "climate",
            action="set_temperature",
            entity_id="climate.ecobee",
            target_temp_low=25,
            target_temp_high=20,
        ),
        answer(""),
    )

    assert "cannot be higher than 'Upper target temperature'" in model_saw(talk.worker)
    assert speech(result) == LOW_ABOVE_HIGH[language]
    assert "Detected blocking call" not in caplog.text  # its translations read off the loop


async def test_a_reason_with_no_translation_anywhere_is_said_in_our_own_words(
    hass: HomeAssistant, scripted_agent: Agent
) -> None:
    """A key the integration's translations lack: our own sentence, never the key."""
    reason = IntegrationReason("climate", "no_such_reason")

    assert await async_said(hass, "de", [reason]) == "Home Assistant hat einen Fehler gemeldet"


def test_a_reason_that_claims_to_be_ours_is_not_said() -> None:
    """Trust no name: an error that names our own domain cannot put our sentences in its mouth."""
    err = HomeAssistantError(translation_domain=DOMAIN, translation_key="confirm_single")

    assert integration_reason(err) == ()


@pytest.mark.parametrize(
    ("heard", "held"),
    [
        (event_trigger("call_service", domain="light"), False),
        (event_trigger("call_service", domain="light", service="turn_on"), False),
        (event_trigger("call_service", domain="calendar"), True),
        (event_trigger("call_service", domain="calendar", service="get_events"), True),
        (event_trigger("call_service", domain="{{ 'light' }}"), True),
        (event_trigger("call_service", service="turn_on"), True),
        (event_trigger("call_service"), True),
    ],
    ids=[
        "a filter on lights",
        "a filter on light.turn_on",
        "a filter on calendars",
        "a filter on calendar.get_events",
        "a templated filter",
        "a filter on the service only",
        "no filter",
    ],
)
async def test_a_calendar_read_beside_a_light_only_call_listener_runs_at_once(
    hass: HomeAssistant,
    scripted_worker: ScriptedWorker,
    person: Context,
    heard: dict[str, Any],
    held: bool,
) -> None:
    """ "When a light action is called, unlock the front door" cannot hear core's calendar tool
    call calendar.get_events: the read runs. A filter that may match still asks."""
    await a_calendar_and_the_front_door(hass)
    unlocking = automation("Calls unlock", [heard], *UNLOCK_FRONT_DOOR)
    assert await async_setup_component(hass, "automation", {"automation": [unlocking]})

    said = await read_by_assist(hass, scripted_worker, person)

    assert said == (ASKED_TO_READ if held else "Read.")


def test_only_cores_own_calendar_tool_is_known_to_read_by_its_one_call() -> None:
    """Trust no name: a subclass, or core's class with a method of its own, may call anything."""

    class LookAlike(CalendarGetEventsTool):
        async def async_call(self, *args: Any, **kwargs: Any) -> Any:
            return await super().async_call(*args, **kwargs)

    patched = CalendarGetEventsTool(["Calendar 2"])
    patched.async_call = LookAlike(["Calendar 2"]).async_call  # type: ignore[method-assign]

    assert service_read_by(CalendarGetEventsTool(["Calendar 2"])) == ("calendar", "get_events")
    assert service_read_by(LookAlike(["Calendar 2"])) is None
    assert service_read_by(patched) is None


@pytest.mark.parametrize(("domain", "held"), [("light", False), ("todo", True)])
async def test_a_to_do_read_beside_a_light_only_call_listener_runs_at_once(
    hass: HomeAssistant,
    scripted_worker: ScriptedWorker,
    person: Context,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    domain: str,
    held: bool,
) -> None:
    """Core's to-do tool calls todo.get_items on core's shopping list: a light-only call
    listener cannot hear it."""
    await async_setup_demo(hass, [Platform.LOCK])
    await async_set_up_a_shopping_list_in(tmp_path, hass, monkeypatch)
    async_expose_only(hass, ["todo.shopping_list", "lock.front_door"])
    heard = event_trigger("call_service", domain=domain)
    unlocking = automation("Calls unlock", [heard], *UNLOCK_FRONT_DOOR)
    assert await async_setup_component(hass, "automation", {"automation": [unlocking]})

    said = await read_by_assist(
        hass, scripted_worker, person, tool_call("todo__get_items", todo_list="Shopping List")
    )

    assert (said != "Read.") is held
    assert said.endswith("Say yes to confirm.") is held


@pytest.mark.usefixtures("dead_bulb")
@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Turned on 5 lights. I could not turn on Kitchen Lights."),
        ("de", "Erledigt: 5 Lichter einschalten. Das ging nicht: Kitchen Lights einschalten."),
    ],
)
async def test_a_light_that_stayed_off_among_many_is_named_the_others_counted(
    hass: HomeAssistant, talk: Talk, language: str, said: str
) -> None:
    """Six lights on, the kitchen's bulb does not answer: "I could not turn on Bed Light,
    Ceiling Lights, Entrance Color + White Lights and …", five of them on. Now what worked is
    counted and what did not is named."""
    for light in LIGHTS:
        async_expose_entity(hass, "conversation", light, True)
        await hass.services.async_call("light", "turn_off", {"entity_id": light}, blocking=True)

    result = await talk.say(
        "turn on every light",
        language,
        call("light", action="turn_on", entity_id=list(LIGHTS)),
        answer(""),
    )

    assert [state(hass, light) for light in LIGHTS].count("on") == 5
    assert state(hass, "light.kitchen_lights") == "off"
    assert speech(result) == said
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE


def test_covers_are_counted_by_what_they_are() -> None:
    """Shades are blinds; a kind with no noun of its own is its domain's ("covers"); two kinds
    a language calls the same are counted together ("6 tende", never "4 tende e 2 tende")."""
    shades = [TargetKind("cover.shade", "Living Room", "Ground")] * 4
    garage_doors = [TargetKind("cover.garage", "Garage", "Ground")] * 2

    assert counted(shades, "en") == "4 blinds (Living Room)"
    assert counted([*shades, *garage_doors], "en") == "4 blinds and 2 covers (Ground)"
    curtains = [TargetKind("cover.curtain", "Living Room", "Ground")] * 2
    assert counted([*shades, *curtains], "it") == "6 tende (Living Room)"
    assert counted(shades[:3], "en") is None
