"""Two other houses as people build them in the UI: everyday requests run, the door still asks.

An apartment (blinds, climate, a robot vacuum, media, a front door lock with auto-lock and
"lock when everyone leaves", a guest mode that pauses the auto-lock) and a family house (the
kids' switches, a garage with its door and light, an alarm armed by a "Good night" script and
by presence, irrigation valves on a schedule, low-battery and water-leak notifications, an
actionable "the garage is open" notification, imported blueprints: the motion light, "notify
on low battery", a ZHA remote; UI device triggers and conditions, `choose` with template
conditions, `input_boolean`/`input_number`/`schedule`/`timer`/`counter` helpers, groups and
scenes). Both on Home Assistant's whole demo. Everyday requests, through our tools and Assist's,
run at once; what sets off the lock, the garage door, the alarm or a valve still asks.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest
from pytest_homeassistant_custom_component.typing import MqttMockHAClient

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component

from .conftest import speech
from .conftest import state
from .demo_house import phone_notifications
from .houses import ALARM
from .houses import FRONT_DOOR
from .houses import GARAGE
from .houses import LIVING_ROOM_LIGHTS
from .houses import MOVIE_SCENE
from .houses import Asking
from .houses import Request
from .houses import act
from .houses import assist
from .houses import colour
from .houses import comfort_temperature
from .houses import intent_call
from .houses import our_call
from .houses import ours
from .houses import place
from .houses import request_id
from .houses import runs_at_once
from .houses import set_up
from .houses import set_up_house_mode
from .houses import set_up_light_group
from .houses import set_up_yaml_groups
from .houses import sets
from .houses import still_asks
from .houses import temperature
from .houses import template
from .houses import volume
from .scene import Home
from .scene import Scene
from .scripted_model import answer
from .test_everyday_automations import TAPPED
from .test_everyday_automations import on
from .test_everyday_automations import when_the_bed_light_goes_on
from .test_redteam import asked
from .test_redteam import check_turning_on_the_bed_light
from .test_redteam import event_trigger
from .test_redteam import set_up_automations
from .test_redteam import with_the_bed_light_off
from .test_redteam_seventh import LOCK
from .test_redteam_seventh import UNLOCK


def automation(
    alias: str, triggers: list[dict[str, Any]], *actions: dict[str, Any], **more: Any
) -> dict[str, Any]:
    """An automation as the UI's editor writes it to automations.yaml."""
    return {
        "id": alias.lower().replace(" ", "_").replace(",", "").replace("'", ""),
        "alias": alias,
        "description": "",
        "triggers": triggers,
        "conditions": more.pop("conditions", []),
        "actions": list(actions),
        "mode": more.pop("mode", "single"),
        **more,
    }


def changes(entity_id: str, **how: Any) -> list[dict[str, Any]]:
    return [{"trigger": "state", "entity_id": [entity_id], **how}]


def notify(message: str, **data: Any) -> dict[str, Any]:
    said: dict[str, Any] = {"message": message}
    if data:
        said["data"] = data
    return {"action": "notify.phone", "metadata": {}, "data": said}


# --- A place for both houses: the whole demo, blueprints, the phone ----------------------------


def rename(hass: HomeAssistant, entity_id: str, name: str) -> None:
    er.async_get(hass).async_update_entity(entity_id, name=name)


def expose(hass: HomeAssistant, *entity_ids: str) -> None:
    for entity_id in entity_ids:
        assert hass.states.get(entity_id) is not None, entity_id
        async_expose_entity(hass, "conversation", entity_id, True)


# --- The apartment ------------------------------------------------------------------------------

BLINDS: Final = "cover.living_room_window"
VACUUM: Final = "vacuum.demo_vacuum_0_ground_floor"
TV: Final = "media_player.living_room"


def apartment_automations() -> list[dict[str, Any]]:
    return [
        automation(
            "Auto-lock",
            changes(FRONT_DOOR, to="unlocked", **{"for": {"minutes": 5}}),
            act("lock.lock", FRONT_DOOR),
        ),
        automation(
            "Lock when everyone leaves",
            [{"trigger": "numeric_state", "entity_id": ["zone.home"], "below": 1}],
            act("lock.lock", FRONT_DOOR),
            act("light.turn_off", "all"),
            act("vacuum.start", VACUUM),
            act("climate.set_temperature", "climate.hvac", temperature=17),
        ),
        automation(
            "Door unlocked, hall light",
            changes(FRONT_DOOR, to="unlocked"),
            act("light.turn_on", "light.entrance_color_white_lights"),
        ),
        automation(
            "Away mode",
            changes("input_boolean.away_mode", to="on"),
            act("lock.lock", FRONT_DOOR),
            act("cover.close_cover", BLINDS),
            act("vacuum.start", VACUUM),
        ),
        automation(
            "Guest mode pauses the auto-lock",
            changes("input_boolean.guest_mode"),
            {
                "choose": [
                    {
                        "conditions": [template("{{ trigger.to_state.state == 'on' }}")],
                        "sequence": [act("automation.turn_off", "automation.auto_lock")],
                    }
                ],
                "default": [act("automation.turn_on", "automation.auto_lock")],
            },
        ),
        automation(
            "Blinds down at sunset",
            [{"trigger": "sun", "event": "sunset", "offset": 0}],
            {
                "action": "cover.close_cover",
                "metadata": {},
                "data": {},
                "target": {"area_id": "living_room"},
            },
        ),
        automation(
            "Blinds up in the morning",
            [{"trigger": "time", "at": "07:30:00"}],
            act("cover.open_cover", BLINDS),
            conditions=[{"condition": "time", "weekday": ["mon", "tue", "wed", "thu", "fri"]}],
        ),
        automation(
            "Comfort temperature",
            changes("input_number.comfort_temperature"),
            act(
                "climate.set_temperature",
                "climate.hvac",
                temperature="{{ states('input_number.comfort_temperature') | float }}",
            ),
        ),
        automation(
            "Movie lights",
            changes(TV, to="playing"),
            act("scene.turn_on", "scene.movie"),
        ),
        automation(
            "Movie paused",
            changes(TV, **{"from": "playing", "to": "paused"}),
            act("light.turn_on", "light.living_room_rgbww_lights", brightness_pct=60),
        ),
        automation(
            "Vacuum done",
            changes(VACUUM, to="docked"),
            notify("The vacuum is back on its dock"),
            act("counter.increment", "counter.cleanings"),
        ),
        automation(
            "Window open, heating off",
            changes("cover.hall_window", to="open"),
            act("climate.set_hvac_mode", "climate.ecobee", hvac_mode="off"),
        ),
        automation(
            "Pasta timer",
            [event_trigger("timer.finished", entity_id="timer.pasta")],
            notify("The pasta is ready"),
            act("light.turn_on", "light.kitchen_lights", flash="short"),
        ),
        {
            "id": "hall_motion_light",
            "alias": "Hall motion light",
            "use_blueprint": {
                "path": "homeassistant/motion_light.yaml",
                "input": {
                    "motion_entity": "binary_sensor.movement_backyard",
                    "light_target": {"entity_id": "light.ceiling_lights"},
                    "no_motion_wait": 120,
                },
            },
        },
        automation(
            "Good night sentence",
            [{"trigger": "conversation", "command": ["good night"]}],
            act("light.turn_off", "all"),
            act("lock.lock", FRONT_DOOR),
        ),
        # The UI's way: one automation, a trigger for each mode (with an id), `choose` by it.
        automation(
            "House mode",
            [
                {**changes("input_select.house_mode", to="Night")[0], "id": "night"},
                {**changes("input_select.house_mode", to="Home")[0], "id": "home"},
                {**changes("input_select.house_mode", to="Movie")[0], "id": "movie"},
            ],
            {
                "choose": [
                    {
                        "conditions": [{"condition": "trigger", "id": "night"}],
                        "sequence": [act("lock.lock", FRONT_DOOR), act("light.turn_off", "all")],
                    },
                    {
                        "conditions": [{"condition": "trigger", "id": ["home", "movie"]}],
                        "sequence": [act("light.turn_on", "light.living_room")],
                    },
                ]
            },
            {
                "if": [{"condition": "trigger", "id": "movie"}],
                "then": [act("scene.turn_on", "scene.movie")],
                "else": [act("cover.open_cover", BLINDS)],
            },
        ),
        automation(
            "Fan with the heat",
            [
                {
                    "trigger": "numeric_state",
                    "entity_id": ["sensor.outside_temperature"],
                    "above": 26,
                }
            ],
            act("fan.turn_on", "fan.living_room_fan", percentage=50),
        ),
    ]


APARTMENT_EXPOSED: Final = (
    FRONT_DOOR,
    "light.bed_light",
    "light.kitchen_lights",
    "light.living_room_rgbww_lights",
    "light.ceiling_lights",
    "light.entrance_color_white_lights",
    "light.living_room",
    BLINDS,
    "cover.hall_window",
    "cover.kitchen_window",
    "climate.hvac",
    "climate.ecobee",
    "climate.heatpump",
    VACUUM,
    TV,
    "media_player.bedroom",
    "media_player.kitchen",
    "fan.living_room_fan",
    "input_boolean.away_mode",
    "input_boolean.guest_mode",
    "input_number.comfort_temperature",
    "input_select.house_mode",
    "timer.pasta",
    "counter.cleanings",
    "scene.movie",
    "scene.evening",
    "script.bedtime",
)


@pytest.fixture
async def apartment(hass: HomeAssistant, demo_house: Home) -> Home:
    await set_up(
        hass,
        "input_boolean",
        {"away_mode": {"name": "Away mode"}, "guest_mode": {"name": "Guests"}},
    )
    await set_up(hass, "input_number", {"comfort_temperature": comfort_temperature(up_to=25)})
    await set_up(hass, "timer", {"pasta": {"name": "Pasta", "duration": 600}})
    await set_up_house_mode(hass, ["Home", "Night", "Movie"], "Night")
    await set_up(hass, "counter", {"cleanings": {"name": "Cleanings", "initial": 0}})
    await set_up_light_group(hass, "Living Room", *LIVING_ROOM_LIGHTS)
    await set_up(
        hass,
        "scene",
        [
            MOVIE_SCENE,
            {
                "id": "evening",
                "name": "Evening",
                "entities": {"light.living_room": "on", "light.kitchen_lights": "on"},
            },
        ],
    )
    await set_up(
        hass,
        "script",
        {
            "bedtime": {
                "alias": "Bedtime",
                "sequence": [act("light.turn_off", "all"), act("lock.lock", FRONT_DOOR)],
            }
        },
    )
    place(hass, "Living Room", BLINDS, "light.living_room_rgbww_lights")
    place(hass, "Kitchen", "light.kitchen_lights", "cover.kitchen_window")
    place(hass, "Bedroom", "light.bed_light")
    await set_up(hass, "automation", apartment_automations())
    await hass.async_block_till_done()
    for alias in ("auto_lock", "hall_motion_light", "guest_mode_pauses_the_auto_lock"):
        assert state(hass, f"automation.{alias}") == "on", alias
    expose(hass, *APARTMENT_EXPOSED)
    return demo_house


APARTMENT_EVERYDAY: Final[list[Request]] = [
    ours("turn_on", "light.bed_light", "on"),
    ours("turn_off", "light.kitchen_lights", "off"),
    ours("turn_on", "light.living_room", "on", brightness_pct=30),
    ours("turn_off", "light.entrance_color_white_lights", "off"),
    ours("close_cover", BLINDS, "closing"),
    ours("open_cover", "cover.kitchen_window", "open"),
    ours("close_cover", "cover.hall_window", "closing"),
    sets("set_temperature", "climate.heatpump", temperature=21),
    ours("set_hvac_mode", "climate.hvac", "heat", hvac_mode="heat"),
    ours("start", VACUUM, "cleaning"),
    ours("media_pause", TV, "paused"),
    sets("volume_set", "media_player.bedroom", volume_level=0.2),
    ours("turn_on", "fan.living_room_fan", "on"),
    ours(
        "set_value",
        "input_number.comfort_temperature",
        22,
        changed=temperature("climate.hvac"),
        value=22,
    ),
    ours("start", "timer.pasta", "active"),
    ours("increment", "counter.cleanings", "1"),
    ours("turn_on", "scene.evening", "on", "light.living_room"),
    ours("turn_on", "scene.movie", "closing", BLINDS),
    assist("HassTurnOn", "light.bed_light", "on", name="Bed Light"),
    assist("HassTurnOff", "light.kitchen_lights", "off", area="Kitchen", domain=["light"]),
    assist("HassTurnOff", BLINDS, "closing", name="Living Room Window"),
    assist("HassSetPosition", BLINDS, "closing", name="Living Room Window", position=30),
    assist(
        "HassClimateSetTemperature", temperature("climate.hvac"), 20, name="Hvac", temperature=20
    ),
    assist("HassVacuumStart", VACUUM, "cleaning", name="Demo vacuum 0 ground floor"),
    assist("HassMediaPause", TV, "paused", name="Living Room"),
    assist("HassSetVolume", volume("media_player.kitchen"), 0.4, name="Kitchen", volume_level=40),
    assist("HassTurnOn", "fan.living_room_fan", "on", name="Living Room Fan"),
    assist("HassTurnOn", "light.kitchen_lights", "on", name="Evening"),
    assist("HassLightSet", "light.living_room", "on", name="Living Room", brightness=50),
    assist("HassMediaUnpause", "media_player.bedroom", "playing", name="Bedroom"),
    ours("media_play", TV, "playing"),
    ours(
        "select_option", "input_select.house_mode", "on", changed="light.living_room", option="Home"
    ),
    ours("select_option", "input_select.house_mode", "closing", changed=BLINDS, option="Movie"),
    ours("turn_off", TV, "off"),
    ours("set_cover_position", BLINDS, "closing", position=50),
    ours("set_percentage", "fan.living_room_fan", "on", percentage=33),
    ours("toggle", "light.ceiling_lights", "off"),
    ours("cancel", "timer.pasta", "idle"),
    assist("HassTurnOn", "light.living_room", "on", area="Living Room"),
    assist("HassTurnOff", "light.bed_light", "off", name="all", domain=["light"]),
    assist("HassMediaNext", TV, "playing", name="Living Room"),
    assist("HassTurnOff", "light.ceiling_lights", "off", name="Ceiling Lights"),
]


@pytest.mark.parametrize("everyday", APARTMENT_EVERYDAY, ids=request_id)
async def test_an_everyday_request_in_the_apartment_runs_at_once(
    apartment: Home, everyday: Request
) -> None:
    await runs_at_once(apartment, everyday, answer("Done."))


APARTMENT_SENSITIVE: Final[list[Asking]] = [
    our_call("unlock", FRONT_DOOR),
    # Locking it, locked already, is said so without a question (test_everyday_fiftieth).
    # Away mode locks the door; guest mode switches the auto-lock off.
    our_call("turn_on", "input_boolean.away_mode"),
    our_call("turn_on", "input_boolean.guest_mode"),
    our_call("turn_on", "script.bedtime"),
    our_call("select_option", "input_select.house_mode", option="Night"),
    intent_call("HassTurnOff", name="Front Door"),
    intent_call("HassTurnOn", name="Away mode"),
    intent_call("HassTurnOn", name="Guests"),
    intent_call("HassTurnOn", name="Bedtime"),
]


@pytest.mark.parametrize("sensitive", APARTMENT_SENSITIVE, ids=request_id)
async def test_what_sets_off_the_apartments_lock_still_asks(
    apartment: Home, sensitive: Asking
) -> None:
    await still_asks(apartment, sensitive, answer("Done."))


# --- The family house ---------------------------------------------------------------------------

KIDS_NIGHT_LIGHT: Final = "switch.decorative_lights"
KIDS_FAN: Final = "switch.ac"
GARAGE_LIGHT: Final = "light.ceiling_lights"
GARDEN: Final = ("valve.front_garden", "valve.back_garden")
MAIN_WATER: Final = "valve.trees"
CLOSE_GARAGE: Final = "CLOSE_GARAGE"


def device_of(hass: HomeAssistant, entity_id: str) -> tuple[str, str]:
    """The device and registry id of an entity, as the UI's device triggers name them."""
    registered = er.async_get(hass).async_get(entity_id)
    assert registered is not None, entity_id
    assert registered.device_id is not None, entity_id
    return registered.device_id, registered.id


def family_automations(hass: HomeAssistant) -> list[dict[str, Any]]:
    night_light_device, night_light = device_of(hass, KIDS_NIGHT_LIGHT)
    bed_light_device, bed_light = device_of(hass, "light.bed_light")
    garage_light_device, garage_light = device_of(hass, GARAGE_LIGHT)
    return [
        # The garage: its light follows its door, a reminder with a button to close it.
        automation(
            "Garage door opens, light on",
            changes(GARAGE, to="open"),
            act("light.turn_on", GARAGE_LIGHT),
        ),
        automation(
            "Garage door closes, light off",
            changes(GARAGE, to="closed", **{"for": {"minutes": 2}}),
            {
                "type": "turn_off",
                "device_id": garage_light_device,
                "entity_id": garage_light,
                "domain": "light",
            },
        ),
        automation(
            "Garage left open",
            changes(GARAGE, to="open", **{"for": {"minutes": 10}}),
            notify(
                "The garage door is still open",
                actions=[{"action": CLOSE_GARAGE, "title": "Close it"}],
            ),
        ),
        automation(
            "Garage remote",
            [
                {
                    "trigger": "mqtt",
                    "topic": "zigbee2mqtt/garage_remote/action",
                    "payload": "toggle",
                }
            ],
            act("cover.toggle", GARAGE),
        ),
        automation(
            "Close the garage from the phone",
            [event_trigger("mobile_app_notification_action", action=CLOSE_GARAGE)],
            act("cover.close_cover", GARAGE),
        ),
        # The alarm: by presence, and the lights when it is armed for the night.
        automation(
            "Everyone left, arm",
            [{"trigger": "numeric_state", "entity_id": ["zone.home"], "below": 1}],
            act("alarm_control_panel.alarm_arm_away", ALARM),
            conditions=[
                {"condition": "state", "entity_id": "input_boolean.guest_mode", "state": "off"}
            ],
        ),
        automation(
            "Someone's home, disarm",
            [{"trigger": "numeric_state", "entity_id": ["zone.home"], "above": 0}],
            act("alarm_control_panel.alarm_disarm", ALARM),
        ),
        automation(
            "Armed for the night, lights off",
            changes(ALARM, to="armed_night"),
            act("light.turn_off", "all"),
            act("media_player.turn_off", "all"),
        ),
        # Irrigation on a schedule, not on vacation; the leak shuts the main water.
        automation(
            "Irrigation",
            [{"trigger": "state", "entity_id": ["schedule.irrigation"], "to": "on"}],
            act("valve.open_valve", list(GARDEN)),
            {"delay": {"minutes": "{{ states('input_number.irrigation_minutes') | int }}"}},
            act("valve.close_valve", list(GARDEN)),
            conditions=[
                {"condition": "state", "entity_id": "input_boolean.vacation_mode", "state": "off"}
            ],
            mode="restart",
        ),
        automation(
            "Water leak",
            changes("binary_sensor.basement_floor_wet", to="on"),
            act("valve.close_valve", MAIN_WATER),
            notify("Water leak in the basement!", priority="high", ttl=0),
        ),
        {
            "id": "low_battery",
            "alias": "Low battery",
            "use_blueprint": {
                "path": "community/low_battery.yaml",
                "input": {
                    "threshold": 15,
                    "time": "19:00:00",
                    "actions": [notify("Low battery: {{ sensors }}")],
                },
            },
        },
        {
            "id": "kids_remote",
            "alias": "Kids' remote",
            "use_blueprint": {
                "path": "community/zha_remote.yaml",
                "input": {
                    "remote": "kids_remote_device",
                    "light": {"entity_id": "light.bed_light"},
                },
            },
        },
        {
            "id": "porch_motion_light",
            "alias": "Porch motion light",
            "use_blueprint": {
                "path": "homeassistant/motion_light.yaml",
                "input": {
                    "motion_entity": "binary_sensor.movement_backyard",
                    "light_target": {"entity_id": "light.entrance_color_white_lights"},
                },
            },
        },
        # The kids: a UI device trigger and condition, a late-night reminder.
        automation(
            "Night light on, dim the bed light",
            [
                {
                    "trigger": "device",
                    "type": "turned_on",
                    "device_id": night_light_device,
                    "entity_id": night_light,
                    "domain": "switch",
                }
            ],
            {
                "type": "brightness_decrease",
                "device_id": bed_light_device,
                "entity_id": bed_light,
                "domain": "light",
            },
            conditions=[
                {
                    "condition": "device",
                    "type": "is_on",
                    "device_id": bed_light_device,
                    "entity_id": bed_light,
                    "domain": "light",
                }
            ],
        ),
        automation(
            "Kids' fan after bedtime",
            changes(KIDS_FAN, to="on"),
            {
                "choose": [
                    {
                        "conditions": [template("{{ now().hour >= 21 }}")],
                        "sequence": [notify("The kids' fan is on")],
                    },
                    {
                        "conditions": [template("{{ states('counter.screen_time') | int > 3 }}")],
                        "sequence": [act("media_player.turn_off", "media_player.bedroom")],
                    },
                ]
            },
        ),
        automation(
            "Bath timer",
            [event_trigger("timer.finished", entity_id="timer.bath")],
            act("light.turn_on", "light.bed_light", flash="long"),
            notify("Bath time is over"),
        ),
        automation(
            "Kids' lights off, fan off",
            changes("group.kids_room", to="off"),
            act("switch.turn_off", KIDS_FAN),
        ),
        automation(
            "Vacation mode",
            changes("input_boolean.vacation_mode", to="on"),
            act("climate.set_preset_mode", "climate.ecobee", preset_mode="away"),
            notify("Vacation mode is on"),
        ),
        automation(
            "Guests, hall light",
            changes("input_boolean.guest_mode", to="on"),
            act("light.turn_on", "light.entrance_color_white_lights"),
        ),
    ]


FAMILY_EXPOSED: Final = (
    FRONT_DOOR,
    GARAGE,
    ALARM,
    *GARDEN,
    MAIN_WATER,
    KIDS_NIGHT_LIGHT,
    KIDS_FAN,
    GARAGE_LIGHT,
    "light.bed_light",
    "light.kitchen_lights",
    "light.office_rgbw_lights",
    "light.entrance_color_white_lights",
    "light.living_room_rgbww_lights",
    "cover.hall_window",
    "climate.ecobee",
    "media_player.bedroom",
    "media_player.living_room",
    "fan.ceiling_fan",
    "input_boolean.vacation_mode",
    "input_boolean.guest_mode",
    "input_number.irrigation_minutes",
    "schedule.irrigation",
    "timer.bath",
    "counter.screen_time",
    "group.kids_room",
    "scene.dinner",
    "script.good_night",
)


@pytest.fixture
async def family_house(hass: HomeAssistant, mqtt_mock: MqttMockHAClient, demo_house: Home) -> Home:
    """The family house; its garage remote talks MQTT (zigbee2mqtt)."""
    rename(hass, KIDS_NIGHT_LIGHT, "Kids night light")
    rename(hass, KIDS_FAN, "Kids fan")
    rename(hass, GARAGE_LIGHT, "Garage light")
    rename(hass, MAIN_WATER, "Main water")
    place(hass, "Garage", GARAGE, GARAGE_LIGHT)
    place(hass, "Kids room", KIDS_NIGHT_LIGHT, KIDS_FAN, "light.bed_light")
    place(hass, "Kitchen", "light.kitchen_lights")
    await set_up(
        hass,
        "input_boolean",
        {"vacation_mode": {"name": "Vacation"}, "guest_mode": {"name": "Guests"}},
    )
    await set_up(
        hass,
        "input_number",
        {"irrigation_minutes": {"name": "Irrigation minutes", "min": 1, "max": 60, "initial": 15}},
    )
    await set_up(
        hass,
        "schedule",
        {
            "irrigation": {
                "name": "Irrigation",
                "monday": [{"from": "06:00:00", "to": "06:30:00"}],
                "thursday": [{"from": "06:00:00", "to": "06:30:00"}],
            }
        },
    )
    await set_up(hass, "timer", {"bath": {"name": "Bath", "duration": 900}})
    await set_up(hass, "counter", {"screen_time": {"name": "Screen time", "initial": 0}})
    await set_up_yaml_groups(
        hass,
        {"kids_room": {"name": "Kids room", "entities": [KIDS_NIGHT_LIGHT, "light.bed_light"]}},
    )
    await set_up(
        hass,
        "scene",
        [
            {
                "id": "dinner",
                "name": "Dinner",
                "entities": {
                    "light.kitchen_lights": {"state": "on", "brightness": 200},
                    "light.living_room_rgbww_lights": "off",
                    "media_player.living_room": "off",
                },
            }
        ],
    )
    await set_up(
        hass,
        "script",
        {
            "good_night": {
                "alias": "Good night",
                "sequence": [
                    act("light.turn_off", "all"),
                    act("alarm_control_panel.alarm_arm_night", ALARM, code="1234"),
                    act("lock.lock", FRONT_DOOR),
                ],
            }
        },
    )
    await set_up(hass, "automation", family_automations(hass))
    await hass.async_block_till_done()
    for alias in ("low_battery", "kids_remote", "porch_motion_light", "irrigation"):
        assert state(hass, f"automation.{alias}") == "on", alias
    expose(hass, *FAMILY_EXPOSED)
    return demo_house


FAMILY_EVERYDAY: Final[list[Request]] = [
    ours("turn_on", KIDS_NIGHT_LIGHT, "on"),
    ours("turn_on", KIDS_FAN, "on"),
    ours("turn_off", KIDS_NIGHT_LIGHT, "off", "group.kids_room"),
    ours("turn_on", GARAGE_LIGHT, "on"),
    ours("turn_off", GARAGE_LIGHT, "off"),
    ours("turn_on", "light.bed_light", "on"),
    ours("turn_off", "light.office_rgbw_lights", "off"),
    sets("set_temperature", "climate.ecobee", target_temp_low=19, target_temp_high=24),
    ours("start", "timer.bath", "active"),
    ours("increment", "counter.screen_time", "1"),
    sets("volume_set", "media_player.living_room", volume_level=0.5),
    ours("turn_on", "scene.dinner", "on", "light.kitchen_lights"),
    ours("media_pause", "media_player.bedroom", "paused"),
    ours("close_cover", "cover.hall_window", "closing"),
    ours("turn_on", "fan.ceiling_fan", "on"),
    assist("HassTurnOn", KIDS_NIGHT_LIGHT, "on", name="Kids night light"),
    assist("HassTurnOff", KIDS_FAN, "off", name="Kids fan"),
    assist("HassTurnOn", GARAGE_LIGHT, "on", name="Garage light"),
    assist("HassTurnOff", GARAGE_LIGHT, "off", area="Garage", domain=["light"]),
    assist("HassTurnOff", KIDS_NIGHT_LIGHT, "off", area="Kids room"),
    assist("HassTurnOn", "light.bed_light", "on", area="Kids room", domain=["light"]),
    assist("HassTurnOn", "light.kitchen_lights", "on", name="Dinner"),
    assist(
        "HassLightSet",
        colour("light.kitchen_lights"),
        (255, 0, 0),
        name="Kitchen Lights",
        color="red",
    ),
    assist("HassLightSet", "light.bed_light", "on", name="Bed Light", brightness=20),
    assist("HassMediaPause", "media_player.living_room", "paused", name="Living Room"),
    assist("HassTurnOn", "fan.ceiling_fan", "on", name="Ceiling Fan"),
    ours("toggle", "light.bed_light", "on"),
    ours("toggle", KIDS_NIGHT_LIGHT, "off"),
    ours("cancel", "timer.bath", "idle"),
    ours("reset", "counter.screen_time", "0"),
    sets("set_preset_mode", "climate.ecobee", preset_mode="away"),
    ours("open_cover", "cover.hall_window", "opening"),
    assist("HassTurnOn", KIDS_FAN, "on", area="Kids room"),
    assist("HassTurnOff", KIDS_FAN, "off", name="all", domain=["switch"]),
    assist("HassSetVolume", volume("media_player.bedroom"), 0.2, name="Bedroom", volume_level=20),
    assist("HassMediaUnpause", "media_player.bedroom", "playing", name="Bedroom"),
    assist("HassTurnOff", "light.office_rgbw_lights", "off", name="Office RGBW Lights"),
]


@pytest.mark.parametrize("expected_lingering_timers", [True])  # MQTT's, as above
@pytest.mark.parametrize("everyday", FAMILY_EVERYDAY, ids=request_id)
async def test_an_everyday_request_in_the_family_house_runs_at_once(
    family_house: Home, everyday: Request
) -> None:
    await runs_at_once(family_house, everyday, answer("Done."))


FAMILY_SENSITIVE: Final[list[Asking]] = [
    our_call("open_cover", GARAGE),
    # Closing it, closed already, is said so without a question (test_everyday_fiftieth).
    our_call("alarm_arm_away", ALARM),
    our_call("alarm_disarm", ALARM),
    our_call("open_valve", "valve.front_garden"),
    our_call("close_valve", MAIN_WATER),
    our_call("turn_on", "script.good_night"),
    our_call("unlock", FRONT_DOOR),
    # Guests at home keep the alarm from arming when everyone has left: it secures less.
    our_call("turn_on", "input_boolean.guest_mode"),
    intent_call("HassTurnOn", name="Guests"),
    # The irrigation reads vacation mode: changing them steers the valves.
    our_call("turn_off", "input_boolean.vacation_mode"),
    intent_call("HassTurnOn", name="Vacation"),
    intent_call("HassTurnOn", name="Garage Door"),
    intent_call("HassTurnOn", area="Garage"),
    intent_call("HassTurnOn", name="Front Garden"),
    intent_call("HassTurnOff", name="Main water"),
    intent_call("HassTurnOn", name="Good night"),
]


@pytest.mark.parametrize("expected_lingering_timers", [True])  # MQTT's, as above
@pytest.mark.parametrize("sensitive", FAMILY_SENSITIVE, ids=request_id)
async def test_what_sets_off_the_garage_alarm_or_valves_still_asks(
    family_house: Home, sensitive: Asking
) -> None:
    await still_asks(family_house, sensitive, answer("Done."))


# --- The class of over-hold found: a notification heard as any signal ---------------------------


def said(sentence: str) -> dict[str, Any]:
    return {"trigger": "conversation", "command": [sentence]}


TAPPED_OPEN: Final = event_trigger("mobile_app_notification_action", action="OPEN_DOOR")
OPEN_BUTTON: Final = {"actions": [{"action": "OPEN_DOOR", "title": "Open"}]}
# (what the bed light's own automation says, the house's other automations, held)
MESSAGES: Final[list[tuple[dict[str, Any], list[dict[str, Any]], bool]]] = [
    # A message says what it says: a sentence it does not say is not said by it.
    (notify("The bed light is on"), [on(said("good night"), UNLOCK)], False),
    (notify("Good night!"), [on(said("good night"), UNLOCK)], True),
    (notify("Well, good night to you"), [on(said("Good night"), UNLOCK)], True),
    (notify("{{ 'good night' }}"), [on(said("good night"), UNLOCK)], True),
    (
        {"action": "notify.phone", "data_template": {"message": "{{ 'good night' }}"}},
        [on(said("good night"), UNLOCK)],
        True,
    ),
    (
        {"service": "notify.phone", "data_template": {"message": "Good night"}},
        [on(said("good night"), UNLOCK)],
        True,
    ),
    (notify("The bed light is on", title="good night"), [on(said("good night"), UNLOCK)], True),
    # hassil's optional words, alternatives and lists may match many texts.
    (notify("The bed light is on"), [on(said("good [night]"), UNLOCK)], True),
    (notify("The bed light is on"), [on(said("{anything}"), UNLOCK)], True),
    # A tap fires an event with the action the notification carries; one it does not carry
    # is not fired by it.
    (notify("The bed light is on"), [on(TAPPED_OPEN, UNLOCK)], False),
    (notify("Let them in?", **OPEN_BUTTON), [on(TAPPED_OPEN, UNLOCK)], True),
    (notify("The bed light is on"), [on(TAPPED, UNLOCK)], True),
    (notify("The bed light is {{ 'on' }}"), [on(TAPPED_OPEN, UNLOCK)], True),
    # A request to a webhook or a persistent notification hears any message.
    (notify("The bed light is on"), [on({"trigger": "webhook", "webhook_id": "x"}, UNLOCK)], True),
]


@pytest.mark.parametrize(
    ("message", "others", "held"),
    MESSAGES,
    ids=[
        "a sentence it does not say",
        "the sentence",
        "the sentence among its words",
        "a template",
        "a template the old way",
        "the sentence the old way",
        "the sentence as its title",
        "a sentence with optional words",
        "a sentence of a list",
        "an action it does not carry",
        "the action it carries",
        "any action",
        "a template and an action",
        "a webhook",
    ],
)
async def test_a_notification_sets_off_only_what_its_words_can(
    hass: HomeAssistant,
    scene: Scene,
    message: dict[str, Any],
    others: list[dict[str, Any]],
    held: bool,
) -> None:
    """ "When the bed light goes on, tell my phone" beside "when I say good night, unlock" or
    "when I tap Open on my phone, unlock": the phone's message is not the sentence, nor the
    tap of a button it does not have. Any signal made of a message carries what it says."""
    assert await async_setup_component(hass, "conversation", {})
    await phone_notifications(hass)
    await with_the_bed_light_off(hass, when_the_bed_light_goes_on(message), *others)

    await check_turning_on_the_bed_light(hass, scene, held=held)


REMOTE_OPENS: Final = {"trigger": "mqtt", "topic": "zigbee2mqtt/remote/action", "payload": "open"}


# The plugin's mocked MQTT client never disconnects, so MQTT's housekeeping timer outlives the
# test whatever the test does.
@pytest.mark.parametrize("expected_lingering_timers", [True])
@pytest.mark.parametrize(
    ("message", "trigger", "held"),
    [
        (notify("The bed light is on"), REMOTE_OPENS, False),
        (notify("Time to open up"), REMOTE_OPENS, True),
        (notify("The bed light is on"), {**REMOTE_OPENS, "value_template": "{{ 'open' }}"}, True),
        (notify("The bed light is on"), {"trigger": "mqtt", "topic": "zigbee2mqtt/#"}, True),
    ],
    ids=["a payload it does not say", "the payload", "a value template", "any payload"],
)
async def test_a_notification_sets_off_an_mqtt_remote_only_with_its_payload(
    hass: HomeAssistant,
    mqtt_mock: MqttMockHAClient,
    scene: Scene,
    message: dict[str, Any],
    trigger: dict[str, Any],
    held: bool,
) -> None:
    """ "When the remote's Open button is pressed (zigbee2mqtt publishes `open`), unlock": a
    message that does not say `open` cannot be that button, wherever it is sent."""
    await phone_notifications(hass)
    await with_the_bed_light_off(hass, when_the_bed_light_goes_on(message), on(trigger, UNLOCK))

    await check_turning_on_the_bed_light(hass, scene, held=held)


@pytest.mark.parametrize(("message", "held"), [("The tea is ready", False), ("Good night", True)])
async def test_a_cancelled_timer_keeps_only_what_its_message_says_from_happening(
    hass: HomeAssistant, scene: Scene, message: str, held: bool
) -> None:
    """ "When the tea timer finishes, tell my phone" beside "when I say good night, lock the
    door": cancelling the timer keeps its message from being sent, which is no "good night"
    (the door would not have been locked by it), unless it is one."""
    assert await async_setup_component(hass, "conversation", {})
    assert await async_setup_component(hass, "timer", {"timer": {"tea": {"duration": 300}}})
    await phone_notifications(hass)
    tea_finished = event_trigger("timer.finished", entity_id="timer.tea")
    await set_up_automations(hass, on(tea_finished, notify(message)), on(said("good night"), LOCK))
    await hass.services.async_call("timer", "start", {"entity_id": "timer.tea"}, blocking=True)
    async_expose_entity(hass, "conversation", "timer.tea", True)

    result = await scene.ask_to_call(
        await scene.our_agent(),
        "timer",
        {"action": "cancel", "entity_id": "timer.tea"},
        answer("Done."),
    )

    assert asked(result) is held, speech(result)
    assert state(hass, "timer.tea") == ("active" if held else "idle")
    await hass.services.async_call("timer", "cancel", {"entity_id": "timer.tea"}, blocking=True)


# --- A trigger's own branch: `condition: trigger` ------------------------------------------------

BED_ON: Final = {"trigger": "state", "entity_id": "light.bed_light", "to": "on", "id": "on"}
BED_OFF: Final = {"trigger": "state", "entity_id": "light.bed_light", "to": "off", "id": "off"}
BED_CHANGES: Final = {"trigger": "state", "entity_id": "light.bed_light", "id": "changes"}
KITCHEN: Final = {"action": "light.turn_on", "target": {"entity_id": "light.kitchen_lights"}}


def by_trigger(name: str) -> dict[str, Any]:
    return {"condition": "trigger", "id": name}


def when(name: str, *steps: dict[str, Any]) -> dict[str, Any]:
    return {"conditions": [by_trigger(name)], "sequence": list(steps)}


# (the bed light's automation's triggers, its actions, held)
BRANCHES: Final[list[tuple[list[dict[str, Any]], list[dict[str, Any]], bool]]] = [
    ([BED_ON, BED_OFF], [{"choose": [when("off", UNLOCK), when("on", KITCHEN)]}], False),
    ([BED_ON, BED_OFF], [{"choose": [when("on", UNLOCK)]}], True),
    ([BED_ON, BED_OFF], [{"choose": [when("off", KITCHEN)], "default": [UNLOCK]}], True),
    ([BED_ON, BED_CHANGES], [{"choose": [when("changes", UNLOCK)]}], True),
    (
        [BED_ON, BED_OFF],
        [
            {
                "choose": [
                    {
                        "conditions": [{"condition": "or", "conditions": [by_trigger("off")]}],
                        "sequence": [UNLOCK],
                    }
                ]
            }
        ],
        False,
    ),
    ([BED_ON, BED_OFF], [{"if": [by_trigger("off")], "then": [UNLOCK], "else": [KITCHEN]}], False),
    ([BED_ON, BED_OFF], [{"if": [by_trigger("off")], "then": [KITCHEN], "else": [UNLOCK]}], True),
    ([BED_ON, BED_OFF], [by_trigger("off"), UNLOCK], False),
    ([BED_ON, BED_OFF], [by_trigger("on"), UNLOCK], True),
    # Without ids, a trigger is known by its number.
    (
        [{k: v for k, v in t.items() if k != "id"} for t in (BED_ON, BED_OFF)],
        [{"choose": [when("1", UNLOCK)]}],
        False,
    ),
    (
        [{k: v for k, v in t.items() if k != "id"} for t in (BED_ON, BED_OFF)],
        [{"choose": [when("0", UNLOCK)]}],
        True,
    ),
]


@pytest.mark.parametrize(
    ("triggers", "actions", "held"),
    BRANCHES,
    ids=[
        "unlocks when it goes off",
        "unlocks when it goes on",
        "unlocks by default",
        "unlocks on any change",
        "unlocks when it goes off, or",
        "if it went off, unlock",
        "if it went off, else unlock",
        "stops unless it went off, then unlocks",
        "stops unless it went on, then unlocks",
        "unlocks for the second trigger",
        "unlocks for the first trigger",
    ],
)
async def test_a_branch_of_a_trigger_the_change_does_not_set_off_does_not_run(
    hass: HomeAssistant,
    scene: Scene,
    triggers: list[dict[str, Any]],
    actions: list[dict[str, Any]],
    held: bool,
) -> None:
    """The editor's way: one automation with a trigger per state ("turned on", "turned off"),
    each with an id, and `choose` by "triggered by": turning the light on runs the "on" branch
    only, not the "off" branch that unlocks."""
    automation = {"id": "bed_light", "alias": "Bed light", "triggers": triggers, "actions": actions}
    await with_the_bed_light_off(hass, automation)

    await check_turning_on_the_bed_light(hass, scene, held=held)
