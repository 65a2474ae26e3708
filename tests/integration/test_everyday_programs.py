"""A house whose automations run scripts, scenes and other automations, as people write it.

Motion runs the "Hall light" script; the TV playing runs the "Movie lights" script and the
movie scene (with a transition); sunset runs "Evening"; "Sleeping" on runs "Goodnight", which
turns the lights off and locks the front door; "Leaving" (Anna leaves, or the "Leaving" button
triggers it) runs a script that runs the script that arms the alarm; "Morning" runs at the
time a wake-up helper holds and passes its script `variables`; scripts call scripts (one with
`continue_on_error`); automations made from a blueprint whose inputs are scripts; chains of
`automation.trigger`. The household exempts the harmless scripts, as the README tells them to.

A sweep asks the agent for every everyday action of every exposed entity (our tools, then
Assist's intents) and lists the calls that are held: exactly the ones that lock, arm, open or
set off what does, and those whose effect is genuinely unknown. Everything else runs at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any
from typing import Final

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .agents import state
from .houses import ASSIST
from .houses import LIVING_ROOM_LIGHTS
from .houses import MOVIE_SCENE
from .houses import OURS
from .houses import Asking
from .houses import act
from .houses import comfort_temperature
from .houses import from_blueprint
from .houses import intent_call
from .houses import our_call
from .houses import place
from .houses import set_up
from .houses import set_up_anna
from .houses import set_up_light_group
from .scene import Home
from .test_everyday_common import ALARM
from .test_everyday_common import BLINDS
from .test_everyday_common import FRONT_DOOR
from .test_everyday_common import GARAGE
from .test_everyday_common import HELD_GARAGE_AND_ALARM
from .test_everyday_common import RADIO
from .test_everyday_common import SENSITIVE
from .test_everyday_common import SHADE
from .test_everyday_common import TV
from .test_everyday_common import everyday_calls
from .test_everyday_common import intents_by_name
from .test_everyday_common import sweep
from .test_everyday_homes import automation
from .test_everyday_homes import changes
from .test_everyday_homes import expose
from .test_everyday_homes import rename

HALL: Final = "light.entrance_color_white_lights"
KITCHEN: Final = "light.kitchen_lights"
BED_LIGHT: Final = "light.bed_light"
SLEEPING: Final = "input_boolean.sleeping"
MOVIE_MODE: Final = "input_boolean.movie_mode"
WAKE_UP: Final = "input_datetime.wake_up"
LEAVING_BUTTON: Final = "input_button.leaving"

BLUEPRINT: Final = """\
blueprint:
  name: Motion-activated scripts
  description: Run a script when motion is detected, another when it stops.
  domain: automation
  input:
    motion_entity:
      name: Motion Sensor
      selector:
        entity:
          domain: [binary_sensor, input_boolean]
    on_script:
      name: Script to run on motion
      selector:
        entity:
          domain: script
    off_script:
      name: Script to run when motion stops
      selector:
        entity:
          domain: script
mode: restart
max_exceeded: silent
triggers:
  - trigger: state
    entity_id: !input motion_entity
    from: "off"
    to: "on"
actions:
  - action: script.turn_on
    target:
      entity_id: !input on_script
  - wait_for_trigger:
      - trigger: state
        entity_id: !input motion_entity
        from: "on"
        to: "off"
  - action: script.turn_on
    target:
      entity_id: !input off_script
"""


def by_blueprint(alias: str, motion: str, on_script: str, off_script: str) -> dict[str, Any]:
    """An automation made from the community's motion-activated scripts blueprint."""
    return from_blueprint(
        alias,
        "community/motion_scripts.yaml",
        motion_entity=motion,
        on_script=on_script,
        off_script=off_script,
    )


def programs() -> list[dict[str, Any]]:
    return [
        automation(
            "Hall motion",
            changes("binary_sensor.hall_motion", to="on"),
            act("script.hall_light"),
        ),
        automation(
            "Movie lights",
            changes(TV, to="playing"),
            act("script.turn_on", "script.movie_lights"),
            act("scene.turn_on", "scene.movie", transition=2),
        ),
        automation(
            "TV paused",
            changes(TV, to="paused"),
            act("automation.trigger", "automation.lights_up"),
        ),
        # Only ever triggered by another automation.
        automation("Lights up", [], act("light.turn_on", "light.living_room", brightness_pct=70)),
        automation(
            "Sunset",
            [{"trigger": "sun", "event": "sunset"}],
            act("script.turn_on", "script.evening"),
        ),
        automation(
            "Going to sleep",
            changes(SLEEPING, to="on"),
            act("script.turn_on", "script.goodnight"),
        ),
        automation(
            "Leaving",
            changes("person.anna", to="not_home"),
            act("script.turn_on", "script.leaving"),
        ),
        automation(
            "Leaving button",
            [{"trigger": "state", "entity_id": [LEAVING_BUTTON]}],
            act("automation.trigger", "automation.leaving"),
        ),
        automation(
            "Morning",
            [{"trigger": "time", "at": WAKE_UP}],
            act("script.turn_on", "script.morning", variables={"brightness": 60}),
        ),
        automation(
            "Movie mode",
            changes(MOVIE_MODE, to="on"),
            {"action": "script.tv_time", "continue_on_error": True},
        ),
        by_blueprint(
            "Kitchen motion scripts",
            "binary_sensor.kitchen_motion",
            "script.kitchen_on",
            "script.kitchen_off",
        ),
    ]


SCRIPTS: Final[dict[str, Any]] = {
    "hall_light": {
        "alias": "Hall light",
        "sequence": [act("light.turn_on", HALL, brightness_pct=80)],
    },
    "movie_lights": {
        "alias": "Movie lights",
        "sequence": [
            act("light.turn_on", "light.living_room", brightness_pct=20),
            act("scene.turn_on", "scene.movie", transition=3),
        ],
    },
    "evening": {
        "alias": "Sunset lights",
        "sequence": [
            act("scene.turn_on", "scene.evening", transition=5),
            act("cover.close_cover", [BLINDS, SHADE]),
        ],
    },
    "kitchen_on": {
        "alias": "Kitchen on",
        "sequence": [act("light.turn_on", KITCHEN, brightness_pct=100)],
    },
    "kitchen_off": {
        "alias": "Kitchen off",
        "sequence": [act("light.turn_off", KITCHEN)],
    },
    "tv_time": {
        "alias": "TV time",
        "sequence": [
            {**act("script.turn_on", "script.movie_lights"), "continue_on_error": True},
            act("media_player.volume_set", TV, volume_level=0.3),
        ],
    },
    "morning": {
        "alias": "Morning",
        "fields": {"brightness": {"name": "Brightness", "default": 80}},
        "sequence": [
            act("light.turn_on", KITCHEN, brightness_pct="{{ brightness | default(80) }}"),
            act("cover.open_cover", [BLINDS, SHADE]),
            act("media_player.media_play", RADIO),
        ],
    },
    "wake_up": {
        "alias": "Wake up",
        "sequence": [
            act("script.morning", brightness=40),
            act("script.hall_light"),
        ],
    },
    "goodnight": {
        "alias": "Goodnight",
        "sequence": [
            act("light.turn_off", "all"),
            act("media_player.turn_off", TV),
            act("lock.lock", FRONT_DOOR),
        ],
    },
    "leaving": {
        "alias": "Leaving",
        "sequence": [
            act("light.turn_off", "all"),
            act("media_player.turn_off", "all"),
            act("script.turn_on", "script.arm_away"),
        ],
    },
    "arm_away": {
        "alias": "Arm away",
        "sequence": [act("alarm_control_panel.alarm_arm_away", ALARM)],
    },
}
# The harmless scripts the household exempted (those that lock or arm are not).
EXEMPT: Final = (
    "script.hall_light",
    "script.movie_lights",
    "script.evening",
    "script.kitchen_on",
    "script.kitchen_off",
    "script.tv_time",
    "script.morning",
    "script.wake_up",
    # An automation only ever triggered by others is a script to them.
    "automation.lights_up",
)

SCENES: Final = [
    MOVIE_SCENE,
    {
        "id": "evening",
        "name": "Evening",
        "entities": {"light.living_room": "on", KITCHEN: "on", SHADE: "closed"},
    },
]

EXPOSED: Final = (
    FRONT_DOOR,
    GARAGE,
    ALARM,
    BED_LIGHT,
    KITCHEN,
    HALL,
    "light.office_rgbw_lights",
    "light.living_room",
    BLINDS,
    SHADE,
    "climate.hvac",
    "fan.living_room_fan",
    TV,
    RADIO,
    "switch.decorative_lights",
    SLEEPING,
    MOVIE_MODE,
    LEAVING_BUTTON,
    WAKE_UP,
    "input_number.comfort_temperature",
    "input_select.house_mode",
    "scene.movie",
    "scene.evening",
    "script.hall_light",
    "script.movie_lights",
    "script.evening",
    "script.tv_time",
    "script.morning",
    "script.wake_up",
    "script.goodnight",
    "script.leaving",
)


@pytest.fixture
async def home(hass: HomeAssistant, demo_house: Home, tmp_path: Path) -> Home:
    """The demo's devices, with the scripts, scenes and automations above."""
    (tmp_path / "blueprints" / "automation" / "community" / "motion_scripts.yaml").write_text(
        BLUEPRINT
    )
    rename(hass, "switch.decorative_lights", "Christmas lights")
    for entity_id in ("binary_sensor.hall_motion", "binary_sensor.kitchen_motion"):
        hass.states.async_set(entity_id, "off")
    await set_up_anna(hass)
    await set_up(
        hass,
        "input_boolean",
        {"sleeping": {"name": "Sleeping"}, "movie_mode": {"name": "Movie mode"}},
    )
    await set_up(hass, "timer", {"tea": {"name": "Tea", "duration": "00:04:00"}})
    await set_up(hass, "input_button", {"leaving": {"name": "Going out"}})
    await set_up(
        hass,
        "input_datetime",
        {"wake_up": {"name": "Wake-up time", "has_time": True, "initial": "07:00:00"}},
    )
    await set_up(hass, "input_number", {"comfort_temperature": comfort_temperature(up_to=28)})
    await set_up(
        hass,
        "input_select",
        {"house_mode": {"name": "House mode", "options": ["Home", "Away", "Night"]}},
    )
    await set_up_light_group(hass, "Living Room", *LIVING_ROOM_LIGHTS)
    rename(hass, "light.living_room", "Living room lights")
    await set_up(hass, "scene", SCENES)
    await set_up(hass, "script", SCRIPTS)
    place(hass, "Living Room", BLINDS, "light.living_room_rgbww_lights")
    place(hass, "Kitchen", KITCHEN, SHADE)
    place(hass, "Bedroom", BED_LIGHT)
    await set_up(hass, "automation", programs())
    await hass.async_block_till_done()
    assert state(hass, "automation.kitchen_motion_scripts") == "on"
    expose(hass, *EXPOSED)
    entities = er.async_get(hass)
    entities.async_update_entity(BLINDS, device_class="blind")
    entities.async_update_entity(SHADE, device_class="shade")
    return demo_house


def assist_calls(hass: HomeAssistant, exposed: Iterable[str] = EXPOSED) -> list[Asking]:
    """Assist's everyday intents on each exposed entity by its name, and on the areas."""
    calls = intents_by_name(hass, exposed)
    for area in ("Living Room", "Kitchen", "Bedroom"):
        calls += [intent_call("HassTurnOn", area=area), intent_call("HassTurnOff", area=area)]
    return [
        *calls,
        intent_call("HassTurnOff", name="all", domain=["light"]),
        intent_call("HassTurnOn", name="all", domain=["light"]),
        *(
            intent_call(f"script__{entity_id.split('.', 1)[1]}")
            for entity_id in EXPOSED
            if entity_id.startswith("script.")
        ),
        intent_call("script__morning", brightness=50),
    ]


GOODNIGHT: Final = "Run Goodnight (this will lock Front Door)? Say yes to confirm."
LEAVING: Final = "Run Leaving (this will arm (away) Security)? Say yes to confirm."
# Every call of our tools that is held, in the order of the sweep: the lock, the garage door
# and the alarm; "Sleeping", which runs Goodnight; the "Going out" button, which triggers
# Leaving; Goodnight and Leaving themselves, and turning them off (scripts not exempt: what
# stopping them keeps from happening is theirs to say). The front door starts locked: locking
# it is said "already locked", with no question.
HELD_OF_OUR_TOOLS: Final = [
    "lock-unlock-lock.front_door: Unlock Front Door? Say yes to confirm.",
    *HELD_GARAGE_AND_ALARM,
    "input_boolean-toggle-input_boolean.sleeping: "
    "Toggle Sleeping (this may lock Front Door)? Say yes to confirm.",
    "input_boolean-turn_on-input_boolean.sleeping: "
    "Turn on Sleeping (this may lock Front Door)? Say yes to confirm.",
    "input_button-press-input_button.leaving: "
    "Press Going out (this may arm (away) Security)? Say yes to confirm.",
    "script-turn_off-script.goodnight: Turn off Goodnight? Say yes to confirm.",
    f"script-turn_on-script.goodnight: {GOODNIGHT}",
    "script-turn_off-script.leaving: Turn off Leaving? Say yes to confirm.",
    f"script-turn_on-script.leaving: {LEAVING}",
]


async def test_every_everyday_action_of_our_tools_runs_at_once_but_what_secures(
    hass: HomeAssistant, home: Home
) -> None:
    # Our tools offer no action on the wake-up time: it is only shown.
    calls = await everyday_calls(hass, [e for e in EXPOSED if e != WAKE_UP])

    held = await sweep(home, OURS, calls, exempt=EXEMPT, sensitive=SENSITIVE)

    assert held == HELD_OF_OUR_TOOLS


# Locking the locked front door and closing the closed garage door are said "already".
HELD_OF_ASSIST: Final = [
    "HassTurnOff-Front Door: Unlock Front Door? Say yes to confirm.",
    "HassTurnOn-Garage Door: Open Garage Door? Say yes to confirm.",
    "HassTurnOn-Security: Turn on Security? Say yes to confirm.",
    "HassTurnOff-Security: Turn off Security? Say yes to confirm.",
    "HassTurnOn-Sleeping: Turn on Sleeping? Say yes to confirm.",
    f"HassTurnOn-Goodnight: {GOODNIGHT}",
    "HassTurnOff-Goodnight: Turn off Goodnight? Say yes to confirm.",
    f"HassTurnOn-Leaving: {LEAVING}",
    "HassTurnOff-Leaving: Turn off Leaving? Say yes to confirm.",
    f"script__goodnight: {GOODNIGHT}",
    f"script__leaving: {LEAVING}",
]


async def test_every_everyday_intent_runs_at_once_but_what_secures(
    hass: HomeAssistant, home: Home
) -> None:
    held = await sweep(home, ASSIST, assist_calls(hass), exempt=EXEMPT, sensitive=SENSITIVE)

    assert held == HELD_OF_ASSIST


async def test_pausing_the_tv_asks_while_the_automation_it_triggers_is_not_exempt(
    home: Home,
) -> None:
    """Kept: "TV paused" triggers Lights up, which the household has not exempted yet: an
    automation run by another is judged as itself, like a script (asks until exempt)."""
    exempt = [e for e in EXEMPT if e != "automation.lights_up"]
    pause = our_call("media_pause", TV)

    assert await sweep(home, OURS, [pause], exempt=exempt, sensitive=SENSITIVE) == [
        "media_player-media_pause-media_player.living_room: "
        "Pause Living Room (this may run Lights up)? Say yes to confirm."
    ]
    assert await sweep(home, OURS, [pause], sensitive=SENSITIVE, exempt=EXEMPT) == []
