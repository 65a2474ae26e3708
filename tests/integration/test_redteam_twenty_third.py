"""A twenty-third round of red-team probes: this session's new everyday actions.

Holes. A template light whose effect action unlocks the front door was held, but its
question said only "Turn on Porch with the effect rainbow?": what a template entity runs for
a turn-on was read from its turn_on action alone, while Home Assistant runs the action that
sets the value asked for instead (set_effect, set_level) or after it (a fan's
set_percentage). A vacuum sent to clean an empty list of areas was said to be sent while
Home Assistant did nothing; past the enum, an empty area id was let through; an area named
twice was said twice ("Kitchen and Kitchen"). And one hold for no reason: a message our
notify tool sends was taken to say anything, so "Dinner is ready" asked beside "when I say
'open sesame', unlock the front door" (or an actionable notification's 'UNLOCK' answer);
what the call's message says is known, as a program's message step's is (its target's id
with it). Same house, scripted model and helpers as the other red-team files; each probe
has its neighbour.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.home.tools import ToolFailure
from custom_components.local_agent.home.tools import async_build_home_tools
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant

from .conftest import speech
from .conftest import state
from .probes import KITCHEN_ON
from .probes import ask_ours_beside
from .probes import assert_held_only_when
from .probes import held_if_then_unlocks
from .probes import may_unlock
from .probes import porch_fan_whose_speed_unlocks
from .scene import Scene
from .scene import tool_results
from .test_everyday_homes import automation
from .test_everyday_twenty_third import DISPLAY
from .test_everyday_twenty_third import VACUUM
from .test_everyday_twenty_third import a_vacuum_that_cleans_two_rooms
from .test_everyday_twenty_third import demo_entity_exposed
from .test_redteam import UNLOCK_FRONT_DOOR
from .test_redteam import event_trigger
from .test_redteam_more import reload_templates

PORCH: Final = "light.porch"


def will_unlock(change: str) -> str:
    """The question for a change whose own action unlocks the front door."""
    return f"{change} (this will unlock Front Door)? Say yes to confirm."


# --- What a template light runs for a turn-on with a value ---------------------------------------


async def porch_light_whose_setters_do(hass: HomeAssistant, then: dict[str, Any]) -> None:
    """A template light "Porch" (on, in its party effect) whose turn-on and turn-off light the
    kitchen, and whose effect and brightness actions do `then`; exposed."""
    await reload_templates(
        hass,
        {
            "light": [
                {
                    "name": "Porch",
                    "state": "{{ true }}",
                    "turn_on": [KITCHEN_ON],
                    "turn_off": [KITCHEN_ON],
                    "effect_list": "{{ ['rainbow', 'party'] }}",
                    "effect": "{{ 'party' }}",
                    "set_effect": [then],
                    "set_level": [then],
                }
            ]
        },
    )
    async_expose_entity(hass, "conversation", PORCH, True)


@held_if_then_unlocks
@pytest.mark.parametrize(
    ("data", "change"),
    [
        ({"effect": "rainbow"}, "Turn on Porch with the effect rainbow"),
        ({"brightness_pct": 40}, "Turn on Porch at 40%"),
    ],
    ids=["effect", "brightness"],
)
async def test_a_template_lights_effect_that_unlocks_says_so(
    hass: HomeAssistant,
    scene: Scene,
    data: dict[str, Any],
    change: str,
    then: dict[str, Any],
    held: bool,
) -> None:
    """ "Put the porch light on rainbow": Home Assistant runs the template light's
    set_effect (set_level for a brightness), not its turn_on. One that unlocks the front door
    asks, and the question says so (it said only "Turn on Porch with the effect rainbow?",
    read from its turn_on, which lights the kitchen). One that lights the kitchen runs."""
    await porch_light_whose_setters_do(hass, then)

    result = await scene.ask_ours_to_call(
        "light", {"action": "turn_on", "entity_id": PORCH, **data}
    )

    assert_held_only_when(hass, result, held, will_unlock(change))


async def test_a_template_fans_speed_on_turning_on_says_it_unlocks(
    hass: HomeAssistant, scene: Scene
) -> None:
    """ "Turn on the porch fan at half speed": Home Assistant runs the template fan's turn_on,
    then its set_percentage, which unlocks the front door. The question says so (it said only
    "Turn on Porch fan at 50%?", read from its turn_on, which does nothing)."""
    fan = await porch_fan_whose_speed_unlocks(hass)

    result = await scene.ask_ours_to_call(
        "fan", {"action": "turn_on", "entity_id": fan, "percentage": 50}
    )

    assert_held_only_when(hass, result, True, will_unlock("Turn on Porch fan at 50%"))


# --- What a message says -------------------------------------------------------------------------

OPEN_SESAME: Final = {"trigger": "conversation", "command": "open sesame"}
# The demo display fires a "notify" event with each message (its text and title as data).
SAYS_OPEN_UP: Final = event_trigger("notify", message="Open up")
# A phone's actionable notification answered "Unlock" (its action's id).
ANSWERED_UNLOCK: Final = event_trigger("mobile_app_notification_action", action="UNLOCK")


# A text that holds marks of our sentences ("!", "?") is left out of the question, as such a
# name is said by its id: it could make the question read as another.
WITHOUT_OUR_MARKS: Final = {
    ("Dinner is ready", "Open sesame!"): 'Send "Dinner is ready" to Notifier',
    ("Unlock the door?", "Kitchen"): "Send a message to Notifier (Kitchen)",
}


@pytest.mark.parametrize(
    ("trigger", "message", "title", "held"),
    [
        (OPEN_SESAME, "Dinner is ready", "Kitchen", False),
        (OPEN_SESAME, "Dinner is ready", "Open sesame!", True),
        (SAYS_OPEN_UP, "Dinner is ready", "Kitchen", False),
        (SAYS_OPEN_UP, "Open up", "Kitchen", True),
        (ANSWERED_UNLOCK, "Dinner is ready", "Kitchen", False),
        (ANSWERED_UNLOCK, "Unlock the door?", "Kitchen", True),
        (event_trigger("notify"), "Dinner is ready", "Kitchen", True),
        (event_trigger("notify", entity_id=DISPLAY), "Dinner is ready", "Kitchen", True),
    ],
    ids=[
        "another sentence",
        "the sentence in its title",
        "the display's event says another text",
        "the display's event says open up",
        "no unlock answer",
        "an unlock answer",
        "any message of the display",
        "any message of the display, by its id",
    ],
)
async def test_a_message_is_judged_by_what_it_says(
    hass: HomeAssistant,
    scene: Scene,
    trigger: dict[str, Any],
    message: str,
    title: str,
    held: bool,
) -> None:
    """ "Send 'dinner is ready' to the display" beside "when I say 'open sesame'", "when the
    display's notification says 'Open up'" or "when a notification is answered 'UNLOCK'",
    "unlock the front door": a message is heard only as what it says (it asked: any text was
    thought possible). One that says it, in its text or its title, asks; so does one beside
    a program that hears any message of the display."""
    await demo_entity_exposed(hass, DISPLAY, Platform.NOTIFY)
    program = automation("Heard", [trigger], *UNLOCK_FRONT_DOOR)

    result = await ask_ours_beside(
        hass, scene, program, "send_message", DISPLAY, message=message, title=title
    )

    sent = WITHOUT_OUR_MARKS.get((message, title), f'Send "{message}" to Notifier ({title})')
    assert_held_only_when(hass, result, held, may_unlock(sent))


# --- The areas a vacuum is sent to ---------------------------------------------------------------


async def test_a_vacuum_sent_to_no_area_is_refused_with_its_areas(
    hass: HomeAssistant, scene: Scene
) -> None:
    """ "Clean" with an empty list of areas: Home Assistant cleans nothing and raises nothing,
    so it was said as done ("Sent Demo vacuum 0 ground floor to clean ."); refused with the
    vacuum's areas, the vacuum still docked."""
    await a_vacuum_that_cleans_two_rooms(hass)

    result = await scene.ask_ours_to_call(
        "vacuum", {"action": "clean_area", "entity_id": VACUUM, "cleaning_area_id": []}
    )

    assert [found.get("error") for found in tool_results(hass, result)] == [
        "cleaning_area_id names no area. Use one of: kitchen, living_room."
    ]
    assert state(hass, VACUUM) == "docked"


async def test_an_area_without_a_name_is_refused_with_its_areas(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Past the enum, an empty area id was let through (an empty text read as no unknown
    area): Home Assistant cleans the kitchen, then fails on it. Refused with the list."""
    await a_vacuum_that_cleans_two_rooms(hass)
    tools = await async_build_home_tools(hass, assistant="conversation")

    planned = tools.plan(
        ToolCall(
            "vacuum",
            {"action": "clean_area", "entity_id": VACUUM, "cleaning_area_id": ["kitchen", ""]},
        )
    )

    assert planned == ToolFailure(
        "Demo vacuum 0 ground floor cleans no area ''. Use one of: kitchen, living_room."
    )


async def test_an_area_named_twice_is_said_once(hass: HomeAssistant, scene: Scene) -> None:
    """ "Clean the kitchen, the kitchen": cleaned once, said once (it said "Kitchen and
    Kitchen")."""
    await a_vacuum_that_cleans_two_rooms(hass)

    result = await scene.ask_ours_to_call(
        "vacuum",
        {"action": "clean_area", "entity_id": VACUUM, "cleaning_area_id": ["kitchen", "kitchen"]},
    )

    assert speech(result) == "Sent Demo vacuum 0 ground floor to clean Kitchen."
    assert state(hass, VACUUM) == "cleaning"
