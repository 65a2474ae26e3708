"""Everyday voice requests our tools had no action for, now offered, done at once and said.

- "Swing the air conditioner's vanes" / "sweep it side to side": the climate tool offers
  the climate component's own set_swing_mode and set_swing_horizontal_mode, with the modes
  the entity lists (it offered fan, preset and hvac modes, not swing).
- "Put the TV in movie mode": the media player tool offers select_sound_mode, with
  the sound modes the player lists (it offered the source, not the sound mode).
- "Make the kitchen lights brighter" / "dimmer": the light tool's turn-on offers the light's
  own brightness step (brightness_step_pct) beside its brightness, so a small model does no
  arithmetic on a brightness it would first have to read. A step may end at nothing, which
  turns the light off: a light whose turning off unlocks the door asks.
- "Set the wake-up time to half past six": the date/time helper's set_datetime, with a date
  and a time (nothing was offered for input_datetime). An automation whose time trigger
  fires at the time the helper holds ("at: input_datetime.wake_up") and unlocks the door
  asks: the change sets the door's unlocking to that time.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.home.tools import async_build_home_tools
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from .conftest import Agent
from .conftest import state
from .home import async_setup_demo
from .probes import Request
from .probes import Step
from .probes import assert_held_only_when
from .scene import Scene
from .scene import tool_results
from .test_redteam import UNLOCK_FRONT_DOOR
from .test_redteam import set_up_automations

HVAC: Final = "climate.hvac"
KITCHEN: Final = "light.kitchen_lights"
PLAYER: Final = "media_player.living_room"
WAKE_UP: Final = "input_datetime.wake_up"


async def the_hvac_exposed(hass: HomeAssistant) -> None:
    """The demo's "Hvac": vertical swing off, horizontal swing auto."""
    async_expose_entity(hass, "conversation", HVAC, True)


async def the_kitchen_lights_exposed(hass: HomeAssistant) -> None:
    """The demo's "Kitchen Lights": on, at a brightness of 180 of 255."""
    async_expose_entity(hass, "conversation", KITCHEN, True)


async def the_living_room_player(hass: HomeAssistant) -> None:
    """The demo's "Living Room" player, playing in its "Music" sound mode, exposed."""
    await async_setup_demo(hass, [Platform.MEDIA_PLAYER])
    async_expose_entity(hass, "conversation", PLAYER, True)


async def a_wake_up_time(hass: HomeAssistant) -> None:
    """A date and time helper "Wake up", exposed."""
    assert await async_setup_component(
        hass,
        "input_datetime",
        {"input_datetime": {"wake_up": {"name": "Wake up", "has_date": True, "has_time": True}}},
    )
    async_expose_entity(hass, "conversation", WAKE_UP, True)


async def a_morning_at_wake_up_time(hass: HomeAssistant, at: Any, actions: list[Any]) -> None:
    """The "Wake up" helper, and an automation "Morning": at `at`, `actions`.

    The helper starts on a day long past, so a time the agent sets on it (with no date) is
    one its trigger never waits for: whatever hour the tests run at, no timer outlives them."""
    await a_wake_up_time(hass)
    await hass.services.async_call(
        "input_datetime",
        "set_datetime",
        {"entity_id": WAKE_UP, "datetime": "2020-01-01 00:00:00"},
        blocking=True,
    )
    await set_up_automations(
        hass,
        {
            "id": "morning",
            "alias": "Morning",
            "triggers": [{"trigger": "time", "at": at}],
            "actions": actions,
        },
    )


# Asked through test_everyday_actions_offered's one test of everyday requests.
REQUESTS: Final = {
    "air conditioner's swing set": Request(
        HVAC,
        the_hvac_exposed,
        (
            Step(
                "set_swing_mode",
                {"swing_mode": "1"},
                {
                    "en": "Set the swing mode of Hvac to 1.",
                    "de": "Erledigt: den Schwenkmodus von Hvac auf 1 einstellen.",
                },
                {"swing_mode": "1"},
            ),
            Step(
                "set_swing_horizontal_mode",
                {"swing_horizontal_mode": "rangefull"},
                {
                    "en": "Set the horizontal swing mode of Hvac to rangefull.",
                    "de": "Erledigt: den horizontalen Schwenkmodus von Hvac auf rangefull"
                    " einstellen.",
                },
                {"swing_horizontal_mode": "rangefull"},
            ),
        ),
    ),
    # Home Assistant steps in percent of full: 180 (70.6 %) + 20 % is 232 (90.6 %), - 20 % 181.
    "kitchen lights brighter, then dimmer": Request(
        KITCHEN,
        the_kitchen_lights_exposed,
        (
            Step(
                "turn_on",
                {"brightness_step_pct": 20},
                {
                    "en": "Changed the brightness of Kitchen Lights by 20%.",
                    "de": "Erledigt: die Helligkeit von Kitchen Lights um 20 % ändern.",
                },
                {"state": "on", "brightness": 232},
            ),
            Step(
                "turn_on",
                {"brightness_step_pct": -20},
                {
                    "en": "Lowered the brightness of Kitchen Lights by 20%.",
                    "de": "Erledigt: die Helligkeit von Kitchen Lights um 20 % verringern.",
                },
                {"state": "on", "brightness": 181},
            ),
        ),
    ),
    "TV in movie mode": Request(
        PLAYER,
        the_living_room_player,
        (
            Step(
                "select_sound_mode",
                {"sound_mode": "Movie"},
                {
                    "en": "Set the sound mode of Living Room to Movie.",
                    "de": "Erledigt: den Klangmodus von Living Room auf Movie einstellen.",
                },
                {"state": "playing", "sound_mode": "Movie"},
            ),
        ),
    ),
    "wake-up time set": Request(
        WAKE_UP,
        a_wake_up_time,
        (
            Step(
                "set_datetime",
                {"time": "06:30:00"},
                {
                    "en": "Set Wake up to 06:30.",
                    "de": "Erledigt: Wake up auf 06:30 einstellen.",
                },
                {"hour": 6, "minute": 30},
            ),
            Step(
                "set_datetime",
                {"date": "2026-12-24", "time": "07:15:00"},
                {
                    "en": "Set Wake up to December 24, 2026 at 07:15.",
                    "de": "Erledigt: Wake up auf 24. Dezember 2026 um 07:15 einstellen.",
                },
                {"state": "2026-12-24 07:15:00"},
            ),
        ),
    ),
}


async def test_the_wake_up_time_is_offered_with_its_form(
    hass: HomeAssistant, scripted_agent: Agent
) -> None:
    """The time is written as Home Assistant reads it ("06:30:00"), as a duration is."""
    await a_wake_up_time(hass)

    tools = await async_build_home_tools(hass, assistant="conversation")

    spec = next(spec for spec in tools.specs if spec.name == "input_datetime")
    assert spec.parameters["properties"]["time"] == {"type": "string", "description": "HH:MM:SS"}
    assert spec.parameters["properties"]["date"] == {"type": "string"}


@pytest.mark.parametrize(
    "at",
    [WAKE_UP, {"entity_id": WAKE_UP, "offset": "-00:10:00"}],
    ids=["at the time", "ten minutes before"],
)
@pytest.mark.parametrize(
    ("actions", "held"),
    [
        (UNLOCK_FRONT_DOOR, True),
        ([{"action": "light.turn_on", "target": {"entity_id": "light.kitchen_lights"}}], False),
    ],
    ids=["unlocks", "lights the kitchen"],
)
async def test_a_time_an_automation_unlocks_at_asks(
    hass: HomeAssistant, scene: Scene, at: Any, actions: list[dict[str, Any]], held: bool
) -> None:
    """ "When it is wake-up time, unlock the front door": setting the wake-up time sets when
    the door unlocks, so it is asked, as any change that sets off an unlocking is. One that
    lights the kitchen at that time runs at once."""
    await a_morning_at_wake_up_time(hass, at, actions)

    result = await scene.ask_ours_to_call(
        "input_datetime", {"action": "set_datetime", "entity_id": WAKE_UP, "time": "06:30:00"}
    )

    assert_held_only_when(
        hass,
        result,
        held,
        "Set Wake up to 06:30 (this may unlock Front Door)? Say yes to confirm.",
    )
    if not held:
        assert state(hass, WAKE_UP) == "2020-01-01 06:30:00"


async def test_a_sound_mode_the_player_does_not_list_is_refused_with_its_list(
    hass: HomeAssistant, scene: Scene
) -> None:
    """ "Cinema mode" on a player that has none: refused with the modes it has."""
    await the_living_room_player(hass)

    result = await scene.ask_ours_to_call(
        "media_player",
        {"action": "select_sound_mode", "entity_id": PLAYER, "sound_mode": "Cinema"},
    )

    assert [found.get("error") for found in tool_results(hass, result)] == [
        "Living Room has no sound_mode 'Cinema'. Use one of: Music, Movie."
    ]
    now = hass.states.get(PLAYER)
    assert now is not None
    assert now.attributes["sound_mode"] == "Music"


async def test_a_dimming_step_of_a_light_whose_turning_off_unlocks_asks(
    hass: HomeAssistant, scene: Scene
) -> None:
    """ "When the kitchen lights go off, unlock the front door": a step down may end at
    nothing, which turns them off, so it is asked; it is not done before the yes."""
    await set_up_automations(
        hass,
        {
            "id": "kitchen_off",
            "alias": "Kitchen off",
            "triggers": [{"trigger": "state", "entity_id": KITCHEN, "to": "off"}],
            "actions": UNLOCK_FRONT_DOOR,
        },
    )

    result = await scene.ask_ours_to_call(
        "light", {"action": "turn_on", "entity_id": KITCHEN, "brightness_step_pct": -20}
    )

    assert_held_only_when(
        hass,
        result,
        True,
        "Lower the brightness of Kitchen Lights by 20% (this may unlock Front Door)? "
        "Say yes to confirm.",
    )
    now = hass.states.get(KITCHEN)
    assert now is not None
    assert now.attributes["brightness"] == 180
