"""One automation that watches a mode or a button and `choose`s by what happened.

People write "house modes" as one automation: it watches the mode select and picks a branch
by the new mode (a template on `trigger.to_state`, a state condition on the mode, the UI's
"Triggered by", `is_state(...)`, a trigger id). Only the Night branch locks the front door and
arms the alarm, so selecting Home, Away or Movie runs at once; Night, and whatever the policy
cannot decide from the mode alone (another entity read, the time, a default branch, a
condition that may still hold), still asks. Each request runs for real: a branch that the
policy judged not taken and that Home Assistant runs anyway would change the front door.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from .conftest import speech
from .conftest import state
from .houses import ALARM
from .houses import FRONT_DOOR
from .houses import Asking
from .houses import act
from .houses import ask_for
from .houses import intent_call
from .houses import our_call
from .houses import request_id
from .houses import set_up_house_mode
from .houses import template
from .scene import Scene
from .scene import tool_results
from .test_redteam import asked
from .test_redteam import set_up_automations
from .test_redteam_sixth import reload_with

# A time trigger set up here outlives no test (conftest.py: automations_stop).
pytestmark = pytest.mark.usefixtures("automations_stop")

MODE: Final = "input_select.house_mode"
GOOD_NIGHT: Final = "input_button.good_night"
GOOD_MORNING: Final = "input_button.good_morning"
GUESTS: Final = "input_boolean.guests"
REMOTE: Final = "0123456789abcdef0123456789abcdef"  # the remote's device, as ZHA names it


LOCK_UP: Final = [
    act("lock.lock", FRONT_DOOR),
    act("alarm_control_panel.alarm_arm_night", ALARM, code="1234"),
]
LIGHTS_ON: Final = [act("light.turn_on", "light.kitchen_lights")]
LIGHTS_OFF: Final = [act("light.turn_off", "light.kitchen_lights")]


def mode_changes(**how: Any) -> dict[str, Any]:
    return {"trigger": "state", "entity_id": MODE, **how}


def mode_is(*states: str) -> dict[str, Any]:
    return {"condition": "state", "entity_id": MODE, "state": list(states)}


def option(conditions: Any, steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "conditions": conditions if isinstance(conditions, list) else [conditions],
        "sequence": steps,
    }


def modes(triggers: list[dict[str, Any]], *actions: dict[str, Any], **more: Any) -> dict[str, Any]:
    """The house modes automation, as the UI's editor writes it."""
    return {
        "id": "house_modes",
        "alias": "House modes",
        "triggers": triggers,
        "conditions": more.pop("conditions", []),
        "actions": list(actions),
        "mode": "queued",
        **more,
    }


def on_mode_change(*actions: dict[str, Any], **more: Any) -> dict[str, Any]:
    """The house modes automation run by any change of the mode."""
    return modes([mode_changes()], *actions, **more)


def by_template(night: str, home: str) -> dict[str, Any]:
    """`choose` by a template on the new mode: night locks up, home lights up."""
    return {"choose": [option(template(night), LOCK_UP), option(template(home), LIGHTS_ON)]}


async def set_up_the_house(hass: HomeAssistant, *automations: dict[str, Any]) -> None:
    """The mode select (on Vacation), the bedside buttons, guests, the front door unlocked
    (locking it is a change to see), these automations, all exposed."""
    await set_up_house_mode(hass, ["Home", "Away", "Night", "Movie", "Vacation"], "Vacation")
    assert await async_setup_component(
        hass,
        "input_button",
        {"input_button": {"good_night": {"name": "Good night"}, "good_morning": {}}},
    )
    # The house's own input booleans are set up already: guests join them.
    await reload_with(hass, "input_boolean", {"guests": {"name": "Guests"}})
    await hass.services.async_call("lock", "unlock", {"entity_id": FRONT_DOOR}, blocking=True)
    await set_up_automations(hass, *automations)
    await hass.async_block_till_done()
    assert state(hass, GUESTS) == "off"
    for entity_id in (MODE, GOOD_NIGHT, GOOD_MORNING, GUESTS, "light.kitchen_lights"):
        async_expose_entity(hass, "conversation", entity_id, True)


def each_mode(table: list[tuple[str, Any, dict[str, bool]]]) -> list[Any]:
    """A case for each row's (name, what is set up, whether each mode selected asks) and mode:
    (what is set up, the mode, whether it asks), named by the row and the mode."""
    return [
        pytest.param(setup, mode, held, id=f"{name}: {mode}")
        for name, setup, held_by_mode in table
        for mode, held in held_by_mode.items()
    ]


async def select(hass: HomeAssistant, scene: Scene, mode: str, *, held: bool) -> None:
    """Ask our agent to set the house mode: held (asked first) or done, as `held` says."""
    before = state(hass, MODE)
    result = await scene.ask_to_call(
        await scene.agent_with("our tools"),
        "input_select",
        {"action": "select_option", "entity_id": MODE, "option": mode},
    )
    assert asked(result) is held, (speech(result), tool_results(hass, result))
    assert state(hass, MODE) == (before if held else mode)


# --- Deciding by the new mode --------------------------------------------------------------------

PER_MODE: Final = [
    mode_changes(to="Night", id="night"),
    mode_changes(to="Home", id="home"),
    mode_changes(to="Away", id="away"),
    mode_changes(to="Movie", id="movie"),
]
ZHA_REMOTE: Final = {
    "trigger": "event",
    "event_type": "zha_event",
    "event_data": {"device_id": REMOTE},
    "id": "remote",
}

# (what the house modes automation is, and for each mode selected whether it asks)
CHOICES: Final[list[tuple[str, dict[str, Any], dict[str, bool]]]] = [
    (
        "to_state template",
        on_mode_change(
            by_template(
                "{{ trigger.to_state.state == 'Night' }}", "{{ trigger.to_state.state == 'Home' }}"
            )
        ),
        {"Home": False, "Away": False, "Night": True},
    ),
    (
        "to_state template in a list",
        on_mode_change(
            by_template(
                "{{ trigger.to_state.state in ['Night', 'Vacation'] }}",
                "{{ trigger.to_state.state not in ['Night', 'Vacation'] }}",
            )
        ),
        {"Movie": False},
    ),
    (
        "to_state template, lower case",
        on_mode_change(
            by_template("{{ trigger.to_state.state | lower == 'night' }}", "{{ true }}")
        ),
        {"Home": False},
    ),
    (
        "state condition on the mode",
        on_mode_change({"choose": [option(mode_is("Night"), LOCK_UP)]}),
        {"Home": False, "Night": True},
    ),
    (
        "state condition, shorthand template string",
        on_mode_change(
            {"choose": [option("{{ is_state('input_select.house_mode', 'Night') }}", LOCK_UP)]}
        ),
        {"Away": False},
    ),
    (
        "the automation's own condition",
        on_mode_change(*LOCK_UP, conditions=[mode_is("Night")]),
        {"Away": False, "Night": True},
    ),
    ("a condition step", on_mode_change(mode_is("Night"), *LOCK_UP), {"Movie": False}),
    (
        "if is_state, else lights",
        on_mode_change(
            {
                "if": [template("{{ is_state('input_select.house_mode', 'Night') }}")],
                "then": LOCK_UP,
                "else": LIGHTS_ON,
            }
        ),
        {"Home": False},
    ),
    (
        "states() compared",
        on_mode_change(
            {
                "if": [template("{{ states('input_select.house_mode') == 'Night' }}")],
                "then": LOCK_UP,
            }
        ),
        {"Home": False},
    ),
    (
        "states.domain.object compared, on another trigger",
        modes(
            [{"trigger": "state", "entity_id": GUESTS}],
            {
                "if": [template("{{ states.input_select.house_mode.state == 'Night' }}")],
                "then": LOCK_UP,
            },
        ),
        {"Movie": False},
    ),
    (
        "trigger.id template",
        modes(
            PER_MODE,
            {
                "choose": [
                    option(template("{{ trigger.id == 'night' }}"), LOCK_UP),
                    option(template("{{ trigger.id in ['home', 'movie'] }}"), LIGHTS_ON),
                ]
            },
        ),
        {"Home": False},
    ),
    (
        "triggered by",
        modes(
            PER_MODE,
            {
                "choose": [
                    option({"condition": "trigger", "id": "night"}, LOCK_UP),
                    option({"condition": "trigger", "id": ["home", "away"]}, LIGHTS_ON),
                ]
            },
        ),
        {"Away": False},
    ),
    (
        "a remote's command or the mode",
        modes(
            [ZHA_REMOTE, mode_changes(id="mode")],
            {
                "choose": [
                    option(template("{{ trigger.event.data.command == 'off' }}"), LOCK_UP),
                    option(template("{{ trigger.to_state.state == 'Home' }}"), LIGHTS_ON),
                ]
            },
        ),
        {"Home": False},
    ),
    (
        "lights by default",
        on_mode_change({"choose": [option(mode_is("Night"), LOCK_UP)], "default": LIGHTS_ON}),
        {"Movie": False},
    ),
    (
        "the bedtime check reads the mode",
        modes(
            [{"trigger": "time", "at": "23:00:00"}],
            {"if": [mode_is("Night", "Away")], "then": LOCK_UP},
        ),
        {"Home": False, "Away": True},
    ),
    # --- What still asks ---
    (
        "to_state template in a list, one of them",
        on_mode_change(
            by_template("{{ trigger.to_state.state in ['Night', 'Away'] }}", "{{ false }}")
        ),
        {"Away": True},
    ),
    (
        "trigger.id template, night",
        modes(PER_MODE, {"choose": [option(template("{{ trigger.id == 'night' }}"), LOCK_UP)]}),
        {"Night": True},
    ),
    (
        "a template that reads another entity",
        on_mode_change(
            by_template(
                "{{ trigger.to_state.state == 'Home'"
                " and is_state('input_boolean.guests', 'off') }}",
                "{{ false }}",
            )
        ),
        {"Home": True},
    ),
    (
        "a template that reads the time",
        on_mode_change(
            by_template("{{ trigger.to_state.state == 'Night' or now().hour >= 22 }}", "{{ 1 }}")
        ),
        {"Home": True},
    ),
    (
        "a template of statements",
        on_mode_change(
            by_template(
                "{% if trigger.to_state.state == 'Night' %}true{% else %}false{% endif %}",
                "{{ false }}",
            )
        ),
        {"Home": True},
    ),
    (
        "a template with a filter it does not know",
        on_mode_change(
            by_template("{{ trigger.to_state.state | regex_match('N') }}", "{{ false }}")
        ),
        {"Home": True},
    ),
    (
        "the mode it left",
        on_mode_change(by_template("{{ trigger.from_state.state == 'Vacation' }}", "{{ false }}")),
        {"Home": True},
    ),
    (
        "or another entity",
        on_mode_change(
            {
                "choose": [
                    option(
                        {
                            "condition": "or",
                            "conditions": [
                                mode_is("Night"),
                                {"condition": "state", "entity_id": GUESTS, "state": "off"},
                            ],
                        },
                        LOCK_UP,
                    )
                ]
            }
        ),
        {"Home": True},
    ),
    (
        "not home: lock",
        on_mode_change(
            {"choose": [option({"condition": "not", "conditions": [mode_is("Home")]}, LOCK_UP)]}
        ),
        {"Home": False, "Away": True},
    ),
    (
        "lock by default",
        on_mode_change({"choose": [option(mode_is("Home"), LIGHTS_ON)], "default": LOCK_UP}),
        {"Away": True},
    ),
    (
        "a variable may hide the trigger",
        on_mode_change(
            {"variables": {"trigger": {"to_state": {"state": "Night"}}}},
            by_template("{{ trigger.to_state.state == 'Night' }}", "{{ false }}"),
        ),
        {"Home": True},
    ),
    (
        "the mode is read on another entity's change",
        modes(
            [{"trigger": "state", "entity_id": GUESTS}],
            {"if": [template("{{ trigger.to_state.state == 'Home' }}")], "then": LOCK_UP},
            conditions=[mode_is("Home")],
        ),
        {"Home": True},
    ),
    (
        "a trigger on the mode and guests: guests arriving later, in Home mode",
        modes(
            [{"trigger": "state", "entity_id": [MODE, GUESTS]}],
            {
                "if": [
                    template(
                        "{{ trigger.to_state.state == 'on'"
                        " and is_state('input_select.house_mode', 'Home') }}"
                    )
                ],
                "then": LOCK_UP,
            },
        ),
        {"Home": True},
    ),
    (
        "home selects night",
        on_mode_change(
            {
                "choose": [
                    option(mode_is("Night"), LOCK_UP),
                    option(
                        mode_is("Home"), [act("input_select.select_option", MODE, option="Night")]
                    ),
                ]
            }
        ),
        {"Home": True},
    ),
]


@pytest.mark.parametrize(("automation", "mode", "held"), each_mode(CHOICES))
async def test_a_branch_the_new_mode_does_not_take_does_not_count(
    hass: HomeAssistant, scene: Scene, automation: dict[str, Any], mode: str, held: bool
) -> None:
    await set_up_the_house(hass, automation)

    await select(hass, scene, mode, held=held)


async def test_a_mode_that_keeps_the_bedtime_lock_from_happening_still_asks(
    hass: HomeAssistant, scene: Scene
) -> None:
    """At 23:00, lock up if the house is in Night mode: leaving Night for Home keeps the
    door unlocked tonight (as cancelling a re-lock timer does), so it asks; from Vacation,
    Home changes nothing of it and runs at once."""
    await set_up_the_house(
        hass,
        modes([{"trigger": "time", "at": "23:00:00"}], {"if": [mode_is("Night")], "then": LOCK_UP}),
    )
    await select(hass, scene, "Home", held=False)
    await hass.services.async_call(
        "input_select", "select_option", {"entity_id": MODE, "option": "Night"}, blocking=True
    )

    await select(hass, scene, "Home", held=True)


# --- The whole house: its modes, bedside buttons, remote, bedtime check -----------------------


def house_automations() -> list[dict[str, Any]]:
    """The house's automations as its owner wrote them in the editor."""
    return [
        on_mode_change(
            {
                "choose": [
                    option(template("{{ trigger.to_state.state == 'Night' }}"), LOCK_UP),
                    option(template("{{ trigger.to_state.state == 'Home' }}"), LIGHTS_ON),
                    option(
                        template("{{ trigger.to_state.state in ['Away', 'Vacation'] }}"),
                        LIGHTS_OFF,
                    ),
                    option(
                        mode_is("Movie"),
                        [act("light.turn_on", "light.kitchen_lights", brightness_pct=20)],
                    ),
                ]
            },
        ),
        {
            "id": "bedside_buttons",
            "alias": "Bedside buttons",
            "triggers": [
                {"trigger": "state", "entity_id": GOOD_NIGHT, "id": "night"},
                {"trigger": "state", "entity_id": GOOD_MORNING, "id": "morning"},
            ],
            "actions": [
                {
                    "choose": [
                        option(
                            {"condition": "trigger", "id": "night"},
                            [act("input_select.select_option", MODE, option="Night")],
                        ),
                        option(
                            {"condition": "trigger", "id": "morning"},
                            [act("input_select.select_option", MODE, option="Home")],
                        ),
                    ]
                }
            ],
        },
        {
            "id": "living_room_remote",
            "alias": "Living room remote",
            "triggers": [ZHA_REMOTE],
            "actions": [
                {"variables": {"command": "{{ trigger.event.data.command }}"}},
                {
                    "choose": [
                        option(template("{{ command == 'on' }}"), LIGHTS_ON),
                        option(template("{{ command == 'off' }}"), LIGHTS_OFF),
                        option(template("{{ command == 'long_press' }}"), LOCK_UP),
                    ]
                },
            ],
        },
        {
            "id": "bedtime_check",
            "alias": "Bedtime check",
            "triggers": [{"trigger": "time", "at": "23:00:00"}],
            "actions": [{"if": [mode_is("Night")], "then": LOCK_UP}],
        },
        {
            "id": "guests_arrive",
            "alias": "Guests arrive",
            "triggers": [{"trigger": "state", "entity_id": GUESTS, "to": "on"}],
            "conditions": [mode_is("Away", "Vacation")],
            "actions": [act("input_select.select_option", MODE, option="Home")],
        },
    ]


KITCHEN: Final = "light.kitchen_lights"
BED: Final = "light.bed_light"
WINDOW: Final = "cover.hall_window"
PLAYER: Final = "media_player.living_room"
EVERYDAY: Final = [
    our_call("select_option", MODE, option="Home"),
    our_call("select_option", MODE, option="Away"),
    our_call("select_option", MODE, option="Movie"),
    our_call("press", GOOD_MORNING),
    our_call("turn_on", GUESTS),
    our_call("turn_off", GUESTS),
    our_call("turn_on", KITCHEN),
    our_call("turn_off", KITCHEN),
    our_call("turn_on", KITCHEN, brightness_pct=40),
    our_call("turn_on", BED),
    our_call("turn_off", BED),
    our_call("open_cover", WINDOW),
    our_call("close_cover", WINDOW),
    our_call("media_play", PLAYER),
    our_call("media_pause", PLAYER),
    our_call("volume_set", PLAYER, volume_level=0.3),
    # Through Assist, each of these turned on and off.
    *(
        intent_call(intent, name=name)
        for name in ("Kitchen Lights", "Bed Light", "Guests")
        for intent in ("HassTurnOn", "HassTurnOff")
    ),
]
STILL_ASKS: Final = [
    our_call("select_option", MODE, option="Night"),
    # From Vacation the previous option is Night; the next one may be any after a change.
    our_call("select_previous", MODE),
    our_call("select_next", MODE),
    our_call("press", GOOD_NIGHT),
    our_call("lock", FRONT_DOOR),
    our_call("unlock", FRONT_DOOR),
    our_call("alarm_arm_away", ALARM, code="1234"),
    our_call("open_cover", "cover.garage_door"),
    intent_call("HassTurnOn", name="Front Door"),
    intent_call("HassTurnOff", name="Front Door"),
    intent_call("HassTurnOn", name="Garage Door"),
]


async def ask(hass: HomeAssistant, scene: Scene, request: Asking) -> bool:
    """Ask an agent with these tools to make this call; return whether it asked first."""
    for entity_id in (BED, WINDOW, PLAYER, "cover.garage_door"):
        async_expose_entity(hass, "conversation", entity_id, True)
    return asked(await ask_for(scene, request))


@pytest.mark.parametrize("request_", EVERYDAY, ids=[request_id(r) for r in EVERYDAY])
async def test_an_everyday_request_in_the_house_runs_at_once(
    hass: HomeAssistant, scene: Scene, request_: Asking
) -> None:
    await set_up_the_house(hass, *house_automations())

    assert not await ask(hass, scene, request_)


@pytest.mark.parametrize("request_", STILL_ASKS, ids=[request_id(r) for r in STILL_ASKS])
async def test_what_locks_up_in_the_house_still_asks(
    hass: HomeAssistant, scene: Scene, request_: Asking
) -> None:
    await set_up_the_house(hass, *house_automations())

    assert await ask(hass, scene, request_)


# --- A scene chosen by the new mode -----------------------------------------------------------


async def set_up_the_mode_scenes(hass: HomeAssistant) -> None:
    """A scene for each mode; Night's locks the front door."""
    assert await async_setup_component(
        hass,
        "scene",
        {
            "scene": [
                {"name": "Home", "entities": {"light.kitchen_lights": "on"}},
                {"name": "Away", "entities": {"light.kitchen_lights": "off"}},
                {"name": "Movie", "entities": {"light.kitchen_lights": "off"}},
                {"name": "Night", "entities": {FRONT_DOOR: "locked"}},
            ]
        },
    )
    await hass.async_block_till_done()
    assert hass.states.get("scene.night") is not None


def scene_of(template_text: str) -> dict[str, Any]:
    return on_mode_change(act("scene.turn_on", template_text))


# (the scene the house modes automation turns on, and for each mode selected whether it asks)
SCENES: Final[list[tuple[str, str, dict[str, bool]]]] = [
    (
        "states() of the mode",
        "scene.{{ states('input_select.house_mode') | lower }}",
        {"Home": False, "Night": True},
    ),
    ("to_state, slugified", "scene.{{ trigger.to_state.state | slugify }}", {"Away": False}),
    ("concatenated", "{{ 'scene.' ~ trigger.to_state.state | lower }}", {"Movie": False}),
    ("replaced", "scene.{{ trigger.to_state.state | replace('H', 'h') }}", {"Home": False}),
    ("another helper", "scene.{{ states('input_boolean.guests') }}", {"Home": True}),
    ("the hour", "scene.{{ trigger.to_state.state | lower }}{{ now().hour }}", {"Home": True}),
    ("a variable", "scene.{{ mode }}", {"Home": True}),
]


@pytest.mark.parametrize(("template_text", "mode", "held"), each_mode(SCENES))
async def test_the_scene_of_the_new_mode_is_the_one_judged(
    hass: HomeAssistant, scene: Scene, template_text: str, mode: str, held: bool
) -> None:
    await set_up_the_mode_scenes(hass)
    await set_up_the_house(hass, scene_of(template_text))

    await select(hass, scene, mode, held=held)


@pytest.mark.parametrize(("mode", "held"), [("Home", False), ("Night", True)])
async def test_an_action_written_as_a_template_is_the_one_it_renders(
    hass: HomeAssistant, scene: Scene, mode: str, held: bool
) -> None:
    """A service name is rendered as a target is: "scene.turn_on" on the mode's scene."""
    await set_up_the_mode_scenes(hass)
    await set_up_the_house(
        hass,
        on_mode_change(
            {
                "action": "scene.{{ 'turn_on' }}",
                "target": {"entity_id": "scene.{{ trigger.to_state.state | lower }}"},
            }
        ),
    )

    await select(hass, scene, mode, held=held)
