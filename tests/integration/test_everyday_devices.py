"""A house of devices: Zigbee remotes and switches, presence, energy, as people with many have it.

The automation editor's device automations (device triggers "turned on", "changed states", a
lock's "unlocked", a cover's "opened"; device conditions "is on", "is locked"; device actions
"turn on", "lock", "open"), remotes heard as events (`zha_event`, `hue_event`,
`deconz_event`, zigbee2mqtt action topics with a trigger for each press, the MQTT device
triggers of a plug and of a wall switch whose double press says goodnight, a `state_changed`
filter), presence (a person's zone trigger, a device tracker, "everyone
left" on the home zone, `condition: zone`), energy and power sensors (numeric state
triggers, a template sensor of the total), an adaptive lighting automation (a time pattern
that adjusts the lights that are on), scenes and a `scene.create` snapshot,
`homeassistant.turn_on` of mixed domains, `light.turn_on` with a profile and a transition,
input buttons, timers, counters, a wake-up light at an input datetime, a "goodnight" button
and script that locks next to the lights, the garage door opener, a water valve that a leak
closes, and an alarm panel armed and disarmed by presence.

A sweep asks the agent for every everyday action of every exposed entity, and Assist's
intents for about a hundred things people say, and lists the calls that are held: exactly the
ones that lock, open, arm or close the water, or set those off. Everything else runs at once.

The over-holds found, each with its neighbours that must still ask: a step aimed at a template
(the lights that are on, made warmer) was of unknown effect, and then each light's change
that sets the same automation off again ran past the depth limit; an MQTT device trigger
watched every entity of its device, not the topic its announcement gave it; an automation
heard by a message ran every branch, not those of the triggers that hear it; a cover's
device trigger "closed" was set off by any change of the blinds' device, not only by their
closing; and a light's "changed states" by a change of the other relay of its Shelly.
"""

from __future__ import annotations

import json
from typing import Any
from typing import Final

import pytest
from pytest_homeassistant_custom_component.common import async_fire_mqtt_message
from pytest_homeassistant_custom_component.typing import MqttMockHAClient

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.typing import ConfigType

from . import test_everyday_common as common
from .demo_house import phone_notifications
from .houses import ALARM
from .houses import ASSIST
from .houses import FRONT_DOOR
from .houses import GARAGE
from .houses import OURS
from .houses import Asking
from .houses import Request
from .houses import act
from .houses import another_integrations_service
from .houses import assist
from .houses import intent_call
from .houses import ours
from .houses import place
from .houses import read
from .houses import request_id
from .houses import set_up
from .houses import set_up_anna
from .houses import template
from .probes import assert_held_only_when
from .scene import Home
from .scene import Scene
from .test_everyday_homes import automation
from .test_everyday_homes import changes
from .test_everyday_homes import device_of
from .test_everyday_homes import expose
from .test_everyday_homes import notify
from .test_everyday_homes import rename
from .test_redteam import event_trigger
from .test_redteam import set_up_automations
from .test_redteam_seventh import UNLOCK

BACK_DOOR: Final = "lock.back_door"  # a zigbee2mqtt lock, on a device of its own
MAIN_WATER: Final = "valve.trees"
HALL_LIGHT: Final = "light.entrance_color_white_lights"
KITCHEN_LIGHTS: Final = "light.kitchen_lights"
BED_LIGHT: Final = "light.bed_light"
LIVING_ROOM: Final = "light.living_room_rgbww_lights"
GARAGE_LIGHT: Final = "light.ceiling_lights"
OFFICE: Final = "light.office_rgbw_lights"
BLINDS: Final = "cover.living_room_window"
HALL_BLIND: Final = "cover.hall_window"
HEATER: Final = "switch.ac"
FAIRY_LIGHTS: Final = "switch.decorative_lights"
THERMOSTAT: Final = "climate.hvac"
TV: Final = "media_player.living_room"
SPEAKER: Final = "media_player.bedroom"
VACUUM: Final = "vacuum.demo_vacuum_0_ground_floor"
LEAK: Final = "binary_sensor.basement_floor_wet"
MOTION: Final = "binary_sensor.movement_backyard"
POWER: Final = "sensor.power_consumption"
PLUG: Final = "switch.dishwasher_plug"
GOODNIGHT: Final = "input_button.goodnight"
FEED_THE_CAT: Final = "input_button.feed_the_cat"
WAKE_UP: Final = "input_datetime.wake_up"
ZHA_REMOTE: Final = (
    "7c3e6b1f00a4b2c15f0e9d8a7b6c5d4e"  # the bedroom remote's device, as ZHA names it
)
HUE_DIMMER: Final = "hue_dimmer_switch_1_button"
DECONZ_REMOTE: Final = "tradfri_on_off_switch"

SENSITIVE: Final = (FRONT_DOOR, BACK_DOOR, GARAGE, ALARM, MAIN_WATER)
# A zigbee2mqtt wall switch: a relay, and buttons whose presses are device triggers.
HALL_SWITCH: Final = "switch.hall_switch"
HALL_SWITCH_DEVICE: Final = "zigbee2mqtt_0x00158d0004d5e6f7"
BEDSIDE_REMOTE: Final = "zigbee2mqtt/bedside_remote/action"
# A Shelly with two relays, one device: the porch light and the garden pump.
SHELLY: Final = "shelly_porch"
PORCH_LIGHT: Final = "light.shelly_porch_light"
GARDEN_PUMP: Final = "switch.shelly_garden_pump"

# A zigbee2mqtt plug (its own device), whose power the energy automations watch.
MQTT_PLUG: Final = {
    "mqtt": {
        "switch": [
            {
                "name": None,
                "unique_id": "dishwasher_plug",
                "command_topic": "zigbee2mqtt/dishwasher_plug/set",
                "state_topic": "zigbee2mqtt/dishwasher_plug",
                "value_template": "{{ value_json.state }}",
                "device": {
                    "identifiers": ["zigbee2mqtt_0x00158d0001a2b3c4"],
                    "name": "Dishwasher plug",
                },
            },
            {
                "name": None,
                "unique_id": "hall_switch",
                "command_topic": "zigbee2mqtt/hall_switch/set",
                "state_topic": "zigbee2mqtt/hall_switch",
                "value_template": "{{ value_json.state }}",
                "device": {"identifiers": [HALL_SWITCH_DEVICE], "name": "Hall switch"},
            },
            {
                "name": "Garden pump",
                "unique_id": "shelly_relay_2",
                "command_topic": "shellies/porch/relay/1/command",
                "device": {"identifiers": [SHELLY], "name": "Shelly"},
            },
        ],
        "light": [
            {
                "name": "Porch light",
                "unique_id": "shelly_relay_1",
                "command_topic": "shellies/porch/relay/0/command",
                "device": {"identifiers": [SHELLY], "name": "Shelly"},
            }
        ],
        "lock": [
            {
                "name": None,
                "unique_id": "back_door_lock",
                "command_topic": "zigbee2mqtt/back_door/set",
                "device": {"identifiers": ["zigbee2mqtt_0x00124b0024c1d2e3"], "name": "Back door"},
            }
        ],
    }
}


def device_trigger(hass: HomeAssistant, entity_id: str, kind: str, **more: Any) -> dict[str, Any]:
    """A device trigger of the entity's device, as the automation editor writes it."""
    device_id, registry_id = device_of(hass, entity_id)
    return {
        "trigger": "device",
        "device_id": device_id,
        "entity_id": registry_id,
        "domain": entity_id.split(".", 1)[0],
        "type": kind,
        **more,
    }


def device_condition(hass: HomeAssistant, entity_id: str, kind: str) -> dict[str, Any]:
    device_id, registry_id = device_of(hass, entity_id)
    return {
        "condition": "device",
        "device_id": device_id,
        "entity_id": registry_id,
        "domain": entity_id.split(".", 1)[0],
        "type": kind,
    }


def device_action(hass: HomeAssistant, entity_id: str, kind: str, **more: Any) -> dict[str, Any]:
    device_id, registry_id = device_of(hass, entity_id)
    return {
        "device_id": device_id,
        "entity_id": registry_id,
        "domain": entity_id.split(".", 1)[0],
        "type": kind,
        **more,
    }


def device_automations(hass: HomeAssistant) -> list[dict[str, Any]]:
    plug_device, _ = device_of(hass, PLUG)
    return [
        # --- Remotes -------------------------------------------------------------------------
        automation(
            "Bedroom remote",
            [event_trigger("zha_event", device_id=ZHA_REMOTE)],
            {
                "choose": [
                    {
                        "conditions": [template("{{ trigger.event.data.command == 'on' }}")],
                        "sequence": [act("light.turn_on", BED_LIGHT)],
                    },
                    {
                        "conditions": [template("{{ trigger.event.data.command == 'off' }}")],
                        "sequence": [act("light.turn_off", BED_LIGHT)],
                    },
                ]
            },
        ),
        automation(
            "Bedroom remote long press, goodnight",
            [
                {
                    "trigger": "event",
                    "event_type": "zha_event",
                    "event_data": {"device_id": ZHA_REMOTE, "command": "move_with_on_off"},
                }
            ],
            act("input_button.press", GOODNIGHT),
        ),
        automation(
            "Hue dimmer",
            [{"trigger": "event", "event_type": "hue_event", "event_data": {"id": HUE_DIMMER}}],
            act("light.turn_on", LIVING_ROOM, brightness_step_pct=10, transition=1),
        ),
        automation(
            "Tradfri switch",
            [
                {
                    "trigger": "event",
                    "event_type": "deconz_event",
                    "event_data": {"id": DECONZ_REMOTE, "event": 1002},
                }
            ],
            act("scene.turn_on", "scene.movie"),
        ),
        automation(
            "Living room remote",
            [{"trigger": "mqtt", "topic": "zigbee2mqtt/living_room_remote/action"}],
            act("light.toggle", LIVING_ROOM),
        ),
        automation(
            "Dishwasher plug button",
            [
                {
                    "trigger": "device",
                    "domain": "mqtt",
                    "device_id": plug_device,
                    "type": "action",
                    "subtype": "single",
                    "discovery_id": "0x00158d0001a2b3c4 action_single",
                }
            ],
            act("switch.toggle", PLUG),
        ),
        # zigbee2mqtt's action topic, a trigger for each press ("triggered by" in the editor).
        automation(
            "Bedside remote",
            [
                {"trigger": "mqtt", "topic": BEDSIDE_REMOTE, "payload": press, "id": press}
                for press in ("on", "off", "hold")
            ],
            {
                "choose": [
                    {
                        "conditions": [{"condition": "trigger", "id": "on"}],
                        "sequence": [act("light.turn_on", BED_LIGHT)],
                    },
                    {
                        "conditions": [{"condition": "trigger", "id": "off"}],
                        "sequence": [act("light.turn_off", BED_LIGHT)],
                    },
                    {
                        "conditions": [{"condition": "trigger", "id": "hold"}],
                        "sequence": [act("script.turn_on", "script.goodnight")],
                    },
                ]
            },
        ),
        # The hall switch's button pressed twice (a device trigger zigbee2mqtt announced).
        automation(
            "Hall switch pressed twice, goodnight",
            [
                {
                    "trigger": "device",
                    "domain": "mqtt",
                    "device_id": device_of(hass, HALL_SWITCH)[0],
                    "type": "action",
                    "subtype": "double",
                }
            ],
            act("script.turn_on", "script.goodnight"),
        ),
        automation(
            "Backyard motion, hall light",
            [
                {
                    "trigger": "event",
                    "event_type": "state_changed",
                    "event_data": {"entity_id": MOTION},
                }
            ],
            act("light.turn_on", HALL_LIGHT, transition=2),
            conditions=[template("{{ trigger.event.data.new_state.state == 'on' }}")],
        ),
        # --- The automation editor's device automations --------------------------------------
        automation(
            "Kitchen lights on, fairy lights on",
            [device_trigger(hass, KITCHEN_LIGHTS, "turned_on")],
            device_action(hass, FAIRY_LIGHTS, "turn_on"),
        ),
        automation(
            "Office light changed, log it",
            [device_trigger(hass, OFFICE, "changed_states")],
            notify("The office light changed"),
        ),
        automation(
            "Heater on, fan on",
            [device_trigger(hass, HEATER, "turned_on", **{"for": {"minutes": 5}})],
            act("fan.turn_on", "fan.living_room_fan"),
            conditions=[device_condition(hass, "light.bed_light", "is_off")],
        ),
        automation(
            "Back door unlocked, hall light",
            [device_trigger(hass, BACK_DOOR, "unlocked")],
            device_action(hass, HALL_LIGHT, "turn_on"),
        ),
        automation(
            "Back door locked, hall light off",
            [device_trigger(hass, BACK_DOOR, "locked")],
            device_action(hass, HALL_LIGHT, "turn_off"),
        ),
        automation(
            "Garage opened, garage light",
            [device_trigger(hass, GARAGE, "opened")],
            device_action(hass, GARAGE_LIGHT, "turn_on"),
        ),
        automation(
            "Garage open at night, close it",
            [{"trigger": "time", "at": "23:00:00"}],
            device_action(hass, GARAGE, "close"),
            conditions=[device_condition(hass, GARAGE, "is_open")],
        ),
        automation(
            "Back door unlocked at night, tell me",
            [{"trigger": "time", "at": "22:30:00"}],
            notify("The back door is unlocked"),
            conditions=[device_condition(hass, BACK_DOOR, "is_unlocked")],
        ),
        # --- Presence ------------------------------------------------------------------------
        automation(
            "Anna leaves, arm",
            [
                {
                    "trigger": "zone",
                    "entity_id": "person.anna",
                    "zone": "zone.home",
                    "event": "leave",
                }
            ],
            act("alarm_control_panel.alarm_arm_away", ALARM),
            conditions=[{"condition": "state", "entity_id": "group.family", "state": "not_home"}],
        ),
        automation(
            "Anna arrives, disarm and light",
            [
                {
                    "trigger": "zone",
                    "entity_id": "person.anna",
                    "zone": "zone.home",
                    "event": "enter",
                }
            ],
            act("alarm_control_panel.alarm_disarm", ALARM, code="1234"),
            act("light.turn_on", HALL_LIGHT),
        ),
        automation(
            "Everyone left, lock up",
            changes("group.family", to="not_home", **{"for": {"minutes": 5}}),
            act("lock.lock", [FRONT_DOOR, BACK_DOOR]),
            act("light.turn_off", "all"),
            act("climate.set_preset_mode", THERMOSTAT, preset_mode="away"),
        ),
        automation(
            "Ben's phone home, porch light",
            changes("device_tracker.ben_phone", to="home"),
            act("light.turn_on", HALL_LIGHT),
            conditions=[{"condition": "sun", "after": "sunset"}],
        ),
        automation(
            "Vacuum when nobody is home",
            [{"trigger": "numeric_state", "entity_id": "zone.home", "below": 1}],
            act("vacuum.start", VACUUM),
            conditions=[
                {"condition": "zone", "entity_id": "person.anna", "zone": "zone.work"},
            ],
        ),
        # --- Energy --------------------------------------------------------------------------
        automation(
            "Power too high, heater off",
            [{"trigger": "numeric_state", "entity_id": POWER, "above": 3000}],
            act("switch.turn_off", HEATER),
            notify("Power is over 3 kW"),
        ),
        automation(
            "Dishwasher done",
            [
                {
                    "trigger": "numeric_state",
                    "entity_id": "sensor.dishwasher_power",
                    "below": 3,
                    "for": {"minutes": 5},
                }
            ],
            notify("The dishwasher is done"),
            act("switch.turn_off", PLUG),
        ),
        automation(
            "Total power high",
            [{"trigger": "numeric_state", "entity_id": "sensor.total_power", "above": 5000}],
            act("light.turn_on", OFFICE, color_name="red", flash="short"),
        ),
        # --- Adaptive lighting ---------------------------------------------------------------
        automation(
            "Adaptive lighting",
            [{"trigger": "time_pattern", "minutes": "/5"}],
            {
                "repeat": {
                    "for_each": (
                        "{{ states.light | selectattr('state', 'eq', 'on') "
                        "| map(attribute='entity_id') | list }}"
                    ),
                    "sequence": [
                        act(
                            "light.turn_on",
                            "{{ repeat.item }}",
                            color_temp_kelvin="{{ 2700 if now().hour > 19 else 4000 }}",
                            transition=30,
                        )
                    ],
                }
            },
        ),
        # --- Helpers -------------------------------------------------------------------------
        automation(
            "Goodnight button",
            changes(GOODNIGHT),
            act("script.turn_on", "script.goodnight"),
        ),
        automation(
            "Cat fed",
            changes(FEED_THE_CAT),
            act("counter.increment", "counter.cat_meals"),
            act("timer.start", "timer.cat", duration="04:00:00"),
        ),
        automation(
            "Cat hungry",
            [event_trigger("timer.finished", entity_id="timer.cat")],
            notify("Time to feed the cat"),
        ),
        automation(
            "Wake-up light",
            [{"trigger": "time", "at": WAKE_UP}],
            act("light.turn_on", BED_LIGHT, profile="relax", transition=600),
            act("cover.open_cover", HALL_BLIND),
            act("climate.set_temperature", THERMOSTAT, temperature=21),
        ),
        automation(
            "Doorbell flash",
            changes("binary_sensor.doorbell", to="on"),
            {
                "action": "scene.create",
                "data": {
                    "scene_id": "before_doorbell",
                    "snapshot_entities": [LIVING_ROOM, KITCHEN_LIGHTS],
                },
            },
            act("light.turn_on", [LIVING_ROOM, KITCHEN_LIGHTS], flash="long"),
            {"delay": {"seconds": 5}},
            act("scene.turn_on", "scene.before_doorbell"),
        ),
        # --- The garage, the water, the alarm ------------------------------------------------
        automation(
            "Water leak, close the main",
            changes(LEAK, to="on"),
            act("valve.close_valve", MAIN_WATER),
            notify("Water leak!", priority="high"),
        ),
        automation(
            "Armed away, everything off",
            changes(ALARM, to="armed_away"),
            act("homeassistant.turn_off", [HEATER, FAIRY_LIGHTS, TV]),
        ),
        automation(
            "Disarmed, hall light",
            changes(ALARM, to="disarmed"),
            act("light.turn_on", HALL_LIGHT),
        ),
    ]


SCRIPTS: Final[dict[str, Any]] = {
    "goodnight": {
        "alias": "Goodnight",
        "sequence": [
            act("light.turn_off", "all"),
            act("media_player.turn_off", "all"),
            act("lock.lock", [FRONT_DOOR, BACK_DOOR]),
            act("alarm_control_panel.alarm_arm_night", ALARM, code="1234"),
        ],
    },
    "movie_night": {
        "alias": "Movie night",
        "sequence": [
            act("homeassistant.turn_on", [TV, FAIRY_LIGHTS, "fan.living_room_fan"]),
            act("light.turn_on", LIVING_ROOM, brightness_pct=15, transition=3),
            act("cover.close_cover", BLINDS),
        ],
    },
    "relax": {
        "alias": "Relax",
        "sequence": [act("light.turn_on", [LIVING_ROOM, BED_LIGHT], profile="relax")],
    },
}
# The harmless scripts the person exempted in the agent's safety options.
EXEMPT: Final = ("script.movie_night", "script.relax")

SCENES: Final = [
    {
        "id": "movie",
        "name": "Movie",
        "entities": {LIVING_ROOM: {"state": "on", "brightness": 40}, BLINDS: "closed"},
    },
    {
        "id": "reading",
        "name": "Reading",
        "entities": {OFFICE: {"state": "on", "brightness": 255}, FAIRY_LIGHTS: "off"},
    },
]

EXPOSED: Final = (
    *SENSITIVE,
    BED_LIGHT,
    KITCHEN_LIGHTS,
    LIVING_ROOM,
    HALL_LIGHT,
    GARAGE_LIGHT,
    OFFICE,
    BLINDS,
    HALL_BLIND,
    "cover.kitchen_window",
    HEATER,
    FAIRY_LIGHTS,
    PLUG,
    HALL_SWITCH,
    THERMOSTAT,
    "climate.ecobee",
    "fan.living_room_fan",
    "fan.ceiling_fan",
    TV,
    SPEAKER,
    "media_player.walkman",
    VACUUM,
    "humidifier.dehumidifier",
    GOODNIGHT,
    FEED_THE_CAT,
    WAKE_UP,
    "input_boolean.away_mode",
    "counter.cat_meals",
    "timer.cat",
    "timer.tea",
    "scene.movie",
    "scene.reading",
    "script.goodnight",
    "script.movie_night",
    "script.relax",
    POWER,
    "sensor.total_power",
    "sensor.outside_temperature",
)


@pytest.fixture
def hass_config() -> ConfigType:
    return MQTT_PLUG


@pytest.fixture
async def home(hass: HomeAssistant, mqtt_mock: MqttMockHAClient, demo_house: Home) -> Home:
    """The demo's devices, a zigbee2mqtt plug, and the automations of a house of devices."""
    assert hass.states.get(PLUG) is not None
    rename(hass, HALL_LIGHT, "Hall light")
    rename(hass, GARAGE_LIGHT, "Garage light")
    rename(hass, HEATER, "Heater")
    rename(hass, FAIRY_LIGHTS, "Fairy lights")
    rename(hass, MAIN_WATER, "Main water")
    # Blinds and shades, as the user set their class (the demo's have none).
    er.async_get(hass).async_update_entity(BLINDS, device_class="blind")
    er.async_get(hass).async_update_entity(HALL_BLIND, device_class="shade")
    for entity_id, value in (
        ("binary_sensor.doorbell", "off"),
        ("sensor.dishwasher_power", "0"),
        ("device_tracker.ben_phone", "home"),
    ):
        hass.states.async_set(entity_id, value)
    await set_up_anna(hass)
    await set_up(
        hass,
        "group",
        {"family": {"name": "Family", "entities": ["person.anna", "device_tracker.ben_phone"]}},
    )
    await set_up(
        hass,
        "input_button",
        {"goodnight": {"name": "Goodnight button"}, "feed_the_cat": {"name": "Feed the cat"}},
    )
    await set_up(
        hass,
        "input_datetime",
        {"wake_up": {"name": "Wake up", "has_date": False, "has_time": True}},
    )
    await set_up(hass, "input_boolean", {"away_mode": {"name": "Away mode"}})
    await set_up(hass, "counter", {"cat_meals": {"name": "Cat meals", "initial": 0}})
    await set_up(
        hass, "timer", {"cat": {"name": "Cat", "duration": "04:00:00"}, "tea": {"name": "Tea"}}
    )
    await set_up(
        hass,
        "template",
        [
            {
                "sensor": [
                    {
                        "name": "Total power",
                        "unit_of_measurement": "W",
                        "device_class": "power",
                        "state": (
                            "{{ states('sensor.power_consumption') | float(0)"
                            " + states('sensor.dishwasher_power') | float(0) }}"
                        ),
                    }
                ]
            }
        ],
    )
    await set_up(hass, "scene", SCENES)
    await set_up(hass, "script", SCRIPTS)
    place(hass, "Living Room", BLINDS, LIVING_ROOM, THERMOSTAT)
    place(hass, "Kitchen", KITCHEN_LIGHTS, "cover.kitchen_window", PLUG)
    place(hass, "Bedroom", BED_LIGHT, "climate.ecobee")
    place(hass, "Hallway", HALL_LIGHT, HALL_BLIND)
    place(hass, "Garage", GARAGE, GARAGE_LIGHT)
    place(hass, "Office", OFFICE, HEATER)
    discover_button(hass, "double", "zigbee2mqtt/hall_switch/action")
    await hass.async_block_till_done()
    await set_up(hass, "automation", device_automations(hass))
    await hass.async_block_till_done()
    expose(hass, *EXPOSED)
    return demo_house


async def sweep(home: Home, tools: str, calls: list[Asking]) -> list[str]:
    """Ask for each call in turn (test_everyday_common's sweep): the held calls' ids."""
    return await common.sweep(home, tools, calls, exempt=EXEMPT, sensitive=SENSITIVE)


GOODNIGHT_LOCKS: Final = "lock Back door and Front Door and arm (night) Security"
# Every call of our tools that is held, in the order of the sweep: the locks, the garage door,
# the alarm and the main water; the goodnight button (its automation runs the script) and the
# goodnight script, and stopping it. Before: every light (the adaptive lighting automation
# reads them all, and aims its step at a template) and what sets one off (a scene, a
# script, the cat's button and timer). The front door starts locked: locking it is said
# "already locked", with no question.
HELD_OF_OUR_TOOLS: Final = [
    "lock-unlock-lock.front_door: Unlock Front Door? Say yes to confirm.",
    "lock-lock-lock.back_door: Lock Back door? Say yes to confirm.",
    "lock-unlock-lock.back_door: Unlock Back door? Say yes to confirm.",
    *common.HELD_GARAGE_AND_ALARM,
    "valve-close_valve-valve.trees: Close Main water? Say yes to confirm.",
    "valve-open_valve-valve.trees: Open Main water? Say yes to confirm.",
    "valve-set_valve_position-valve.trees-40: "
    "Set the position of Main water to 40%? Say yes to confirm.",
    "valve-stop_valve-valve.trees: Stop Main water? Say yes to confirm.",
    "input_button-press-input_button.goodnight: "
    f"Press Goodnight button (this may {GOODNIGHT_LOCKS})? Say yes to confirm.",
    "script-turn_off-script.goodnight: Turn off Goodnight? Say yes to confirm.",
    f"script-turn_on-script.goodnight: Run Goodnight (this will {GOODNIGHT_LOCKS})? "
    "Say yes to confirm.",
]


@pytest.mark.parametrize("expected_lingering_timers", [True])  # MQTT's housekeeping timer
async def test_every_everyday_action_of_our_tools_runs_at_once_but_what_secures(
    hass: HomeAssistant, home: Home
) -> None:
    calls = await common.everyday_calls(hass, EXPOSED)
    assert len(calls) > 150

    held = await sweep(home, OURS, calls)

    assert held == HELD_OF_OUR_TOOLS


# What people say to Assist in this house, as the intent each becomes.
SAID: Final[list[tuple[str, Asking]]] = [
    ("turn on the kitchen lights", intent_call("HassTurnOn", name="Kitchen Lights")),
    ("turn off the kitchen lights", intent_call("HassTurnOff", name="Kitchen Lights")),
    ("lights on in the kitchen", intent_call("HassTurnOn", area="Kitchen", domain=["light"])),
    ("lights off in the bedroom", intent_call("HassTurnOff", area="Bedroom", domain=["light"])),
    ("dim the bedroom to 30%", intent_call("HassLightSet", area="Bedroom", brightness=30)),
    ("set the bed light to 30%", intent_call("HassLightSet", name="Bed Light", brightness=30)),
    ("bed light off", intent_call("HassTurnOff", name="Bed Light")),
    ("bed light on", intent_call("HassTurnOn", name="Bed Light")),
    (
        "make the living room lights red",
        intent_call("HassLightSet", name="Living Room RGBWW Lights", color="red"),
    ),
    ("turn on the hall light", intent_call("HassTurnOn", name="Hall light")),
    ("turn off the hall light", intent_call("HassTurnOff", name="Hall light")),
    ("turn on the garage light", intent_call("HassTurnOn", name="Garage light")),
    ("turn off the garage light", intent_call("HassTurnOff", name="Garage light")),
    ("turn off all the lights", intent_call("HassTurnOff", name="all", domain=["light"])),
    ("turn on all the lights", intent_call("HassTurnOn", name="all", domain=["light"])),
    (
        "brighten the office light",
        intent_call("HassLightSet", name="Office RGBW Lights", brightness=100),
    ),
    (
        "make the office light blue",
        intent_call("HassLightSet", name="Office RGBW Lights", color="blue"),
    ),
    ("living room lights on", intent_call("HassTurnOn", area="Living Room", domain=["light"])),
    ("turn off the living room", intent_call("HassTurnOff", area="Living Room")),
    ("turn on the office", intent_call("HassTurnOn", area="Office")),
    ("turn off everything in the office", intent_call("HassTurnOff", area="Office")),
    ("kitchen lights to 50 percent", intent_call("HassLightSet", area="Kitchen", brightness=50)),
    ("hallway lights on", intent_call("HassTurnOn", area="Hallway", domain=["light"])),
    ("garage lights off", intent_call("HassTurnOff", area="Garage", domain=["light"])),
    ("turn on the fairy lights", intent_call("HassTurnOn", name="Fairy lights")),
    ("turn off the fairy lights", intent_call("HassTurnOff", name="Fairy lights")),
    ("turn on the heater", intent_call("HassTurnOn", name="Heater")),
    ("turn off the heater", intent_call("HassTurnOff", name="Heater")),
    ("turn on the dishwasher", intent_call("HassTurnOn", name="Dishwasher plug")),
    ("turn off the dishwasher", intent_call("HassTurnOff", name="Dishwasher plug")),
    ("turn on the hall switch", intent_call("HassTurnOn", name="Hall switch")),
    ("turn off the hall switch", intent_call("HassTurnOff", name="Hall switch")),
    ("turn off all switches", intent_call("HassTurnOff", name="all", domain=["switch"])),
    ("open the living room blinds", intent_call("HassTurnOn", name="Living Room Window")),
    ("close the living room blinds", intent_call("HassTurnOff", name="Living Room Window")),
    (
        "blinds to 50 percent",
        intent_call("HassSetPosition", name="Living Room Window", position=50),
    ),
    ("stop the blinds", intent_call("HassStopMoving", name="Living Room Window")),
    ("open the hall blind", intent_call("HassTurnOn", name="Hall Window")),
    ("close the hall blind", intent_call("HassTurnOff", name="Hall Window")),
    ("close the kitchen window", intent_call("HassTurnOff", name="Kitchen Window")),
    ("open the kitchen window", intent_call("HassTurnOn", name="Kitchen Window")),
    (
        "open the living room covers",
        intent_call("HassTurnOn", area="Living Room", domain=["cover"]),
    ),
    (
        "close all the blinds",
        intent_call("HassTurnOff", name="all", domain=["cover"], device_class=["blind"]),
    ),
    (
        "open all the shades",
        intent_call("HassTurnOn", name="all", domain=["cover"], device_class=["shade"]),
    ),
    (
        "set the heating to 21",
        intent_call("HassClimateSetTemperature", name="Hvac", temperature=21),
    ),
    (
        "living room to 20 degrees",
        intent_call("HassClimateSetTemperature", area="Living Room", temperature=20),
    ),
    ("turn on the heating", intent_call("HassTurnOn", name="Hvac")),
    ("turn off the heating", intent_call("HassTurnOff", name="Hvac")),
    ("turn off the ecobee", intent_call("HassTurnOff", name="Ecobee")),
    ("turn on the living room fan", intent_call("HassTurnOn", name="Living Room Fan")),
    ("fan to half speed", intent_call("HassFanSetSpeed", name="Living Room Fan", percentage=50)),
    ("turn off the ceiling fan", intent_call("HassTurnOff", name="Ceiling Fan")),
    ("turn on the ceiling fan", intent_call("HassTurnOn", name="Ceiling Fan")),
    ("pause the music", intent_call("HassMediaPause", name="Bedroom")),
    ("resume the music", intent_call("HassMediaUnpause", name="Bedroom")),
    ("next song", intent_call("HassMediaNext", name="Walkman")),
    ("previous song", intent_call("HassMediaPrevious", name="Walkman")),
    ("music volume to 40", intent_call("HassSetVolume", name="Bedroom", volume_level=40)),
    ("pause the tv", intent_call("HassMediaPause", name="Living Room")),
    ("mute the tv", intent_call("HassMediaPlayerMute", name="Living Room")),
    ("unmute the tv", intent_call("HassMediaPlayerUnmute", name="Living Room")),
    ("tv volume to 20", intent_call("HassSetVolume", name="Living Room", volume_level=20)),
    ("turn off the tv", intent_call("HassTurnOff", name="Living Room", domain=["media_player"])),
    ("turn on the tv", intent_call("HassTurnOn", name="Living Room", domain=["media_player"])),
    ("stop all the music", intent_call("HassTurnOff", name="all", domain=["media_player"])),
    ("start the vacuum", intent_call("HassVacuumStart", name="Demo vacuum 0 ground floor")),
    (
        "send the vacuum home",
        intent_call("HassVacuumReturnToBase", name="Demo vacuum 0 ground floor"),
    ),
    ("turn on the dehumidifier", intent_call("HassTurnOn", name="Dehumidifier")),
    ("turn off the dehumidifier", intent_call("HassTurnOff", name="Dehumidifier")),
    (
        "dehumidifier to 50 percent",
        intent_call("HassHumidifierSetpoint", name="Dehumidifier", humidity=50),
    ),
    ("activate movie scene", intent_call("HassTurnOn", name="Movie")),
    ("reading light scene", intent_call("HassTurnOn", name="Reading")),
    ("start movie night", intent_call("HassTurnOn", name="Movie night")),
    ("movie night", intent_call("script__movie_night")),
    ("relax", intent_call("script__relax")),
    ("relax mode on", intent_call("HassTurnOn", name="Relax")),
    ("feed the cat", intent_call("HassTurnOn", name="Feed the cat")),
    ("away mode on", intent_call("HassTurnOn", name="Away mode")),
    ("away mode off", intent_call("HassTurnOff", name="Away mode")),
    ("cancel all timers", intent_call("HassCancelAllTimers")),
    ("what is the temperature", intent_call("GetLiveContext")),
    ("turn up the music", intent_call("HassSetVolumeRelative", name="Bedroom", volume_step="up")),
    (
        "turn the tv down",
        intent_call("HassSetVolumeRelative", name="Living Room", volume_step="down"),
    ),
    ("what time is it", intent_call("GetDateTime")),
    # What must still ask.
    ("unlock the front door", intent_call("HassTurnOff", name="Front Door")),
    ("lock the front door", intent_call("HassTurnOn", name="Front Door")),
    ("unlock the back door", intent_call("HassTurnOff", name="Back door")),
    ("lock the back door", intent_call("HassTurnOn", name="Back door")),
    ("open the garage", intent_call("HassTurnOn", name="Garage Door")),
    ("close the garage", intent_call("HassTurnOff", name="Garage Door")),
    ("garage door half open", intent_call("HassSetPosition", name="Garage Door", position=50)),
    ("everything in the garage on", intent_call("HassTurnOn", area="Garage")),
    ("everything in the garage off", intent_call("HassTurnOff", area="Garage")),
    ("arm the alarm", intent_call("HassTurnOn", name="Security")),
    ("disarm the alarm", intent_call("HassTurnOff", name="Security")),
    ("turn off the water", intent_call("HassTurnOff", name="Main water")),
    ("turn on the water", intent_call("HassTurnOn", name="Main water")),
    ("goodnight", intent_call("HassTurnOn", name="Goodnight")),
    ("goodnight, as the script's tool", intent_call("script__goodnight")),
    ("press the goodnight button", intent_call("HassTurnOn", name="Goodnight button")),
]


# What people say that is held: the locks, the garage door (also as the garage's area), the
# alarm, the main water, goodnight and its button. Before: every light, and what sets one off.
# Locking the locked front door and closing the closed garage door are said "already".
HELD_OF_WHAT_IS_SAID: Final = [
    "HassTurnOff-Front Door: Unlock Front Door? Say yes to confirm.",
    "HassTurnOff-Back door: Unlock Back door? Say yes to confirm.",
    "HassTurnOn-Back door: Lock Back door? Say yes to confirm.",
    "HassTurnOn-Garage Door: Open Garage Door? Say yes to confirm.",
    "HassSetPosition-Garage Door-50: Set the position of Garage Door to 50%? Say yes to confirm.",
    "HassTurnOn-Garage: Open Garage Door? Say yes to confirm.",
    "HassTurnOff-Garage: Close Garage Door? Say yes to confirm.",
    "HassTurnOn-Security: Turn on Security? Say yes to confirm.",
    "HassTurnOff-Security: Turn off Security? Say yes to confirm.",
    "HassTurnOff-Main water: Close Main water? Say yes to confirm.",
    "HassTurnOn-Main water: Open Main water? Say yes to confirm.",
    f"HassTurnOn-Goodnight: Run Goodnight (this will {GOODNIGHT_LOCKS})? Say yes to confirm.",
    f"script__goodnight: Run Goodnight (this will {GOODNIGHT_LOCKS})? Say yes to confirm.",
    "HassTurnOn-Goodnight button: Press Goodnight button? Say yes to confirm.",
]


@pytest.mark.parametrize("expected_lingering_timers", [True])  # MQTT's housekeeping timer
async def test_what_people_say_runs_at_once_but_what_secures(
    hass: HomeAssistant, home: Home
) -> None:
    assert len(SAID) >= 100

    held = await sweep(home, ASSIST, [call for _, call in SAID])

    assert held == HELD_OF_WHAT_IS_SAID


# Everyday requests that the sweeps found held before, run for real: what they change reads
# what it should, and nothing sensitive changes.
EVERYDAY: Final[list[Request]] = [
    ours("turn_on", BED_LIGHT, "on"),
    ours("turn_on", OFFICE, "on", brightness_pct=40),
    ours("turn_off", LIVING_ROOM, "off"),
    ours("turn_on", KITCHEN_LIGHTS, "on", FAIRY_LIGHTS),
    ours("press", FEED_THE_CAT, "1", "counter.cat_meals"),
    ours("start", "timer.cat", "active"),
    ours("turn_on", "scene.reading", "on", OFFICE),
    ours("turn_on", "script.movie_night", "closing", BLINDS),
    ours("turn_on", "script.relax", "on", LIVING_ROOM),
    assist("HassTurnOn", HALL_LIGHT, "on", name="Hall light"),
    assist("HassLightSet", BED_LIGHT, "on", area="Bedroom", brightness=30),
    assist("HassTurnOff", GARAGE_LIGHT, "off", area="Garage", domain=["light"]),
    assist("HassTurnOn", BLINDS, "closing", name="Movie"),
]


@pytest.mark.parametrize("expected_lingering_timers", [True])  # MQTT's housekeeping timer
@pytest.mark.parametrize("everyday", EVERYDAY, ids=request_id)
async def test_an_everyday_request_runs_at_once(
    hass: HomeAssistant, home: Home, everyday: Request
) -> None:
    tools, tool, arguments, changed, expected = everyday
    held = await sweep(home, tools, [(tools, tool, arguments)])

    assert held == []
    assert read(hass, changed) == expected


# --- Over-holds found, each class with its neighbours that must still ask ----------------------
# In the red-team house (the front door locked, the bed light off).


LIGHTS_ON: Final = (
    "{{ states.light | selectattr('state', 'eq', 'on') | map(attribute='entity_id') | list }}"
)


def every_five_minutes(*steps: dict[str, Any]) -> dict[str, Any]:
    """An adaptive lighting automation: every five minutes, these steps."""
    return {
        "id": "adaptive",
        "alias": "Adaptive",
        "triggers": [{"trigger": "time_pattern", "minutes": "/5"}],
        "actions": list(steps),
    }


def warmer(target: str, action: str = "light.turn_on") -> dict[str, Any]:
    return {
        "action": action,
        "target": {"entity_id": target},
        "data": {"color_temp_kelvin": "{{ 2700 if now().hour > 19 else 4000 }}", "transition": 30},
    }


def when_the_kitchen_lights_go(to: str) -> dict[str, Any]:
    """An automation: when the kitchen lights go on (or off), unlock the front door."""
    return {
        "id": f"kitchen_{to}_unlocks",
        "alias": f"Kitchen {to} unlocks",
        "triggers": [{"trigger": "state", "entity_id": KITCHEN_LIGHTS, "to": to}],
        "actions": [UNLOCK],
    }


# (the house's automations, held)
TEMPLATED_TARGETS: Final[list[tuple[list[dict[str, Any]], bool]]] = [
    # A step of an entity service aimed at a template changes at most every entity its
    # handler was registered for, judged each: every light, none of which sets anything
    # off. [held before: of unknown effect; and, once judged so, each light's change that
    # sets the same automation off again ran past the depth limit: held]
    ([every_five_minutes(warmer(LIGHTS_ON))], False),
    (
        [
            every_five_minutes(
                {"repeat": {"for_each": LIGHTS_ON, "sequence": [warmer("{{ repeat.item }}")]}}
            )
        ],
        False,
    ),
    ([every_five_minutes(warmer(LIGHTS_ON, "light.turn_off"))], False),
    # What must still ask: a lock aimed at by a template, core's turn-on (any entity, the
    # lock among them), a light among those that sets off an unlock, a script's turn-on (a
    # program), and another integration's service (not an entity service).
    ([every_five_minutes(warmer(LIGHTS_ON, "lock.unlock"))], True),
    ([every_five_minutes(warmer(LIGHTS_ON, "homeassistant.turn_on"))], True),
    ([every_five_minutes(warmer(LIGHTS_ON)), when_the_kitchen_lights_go("on")], True),
    (
        [
            every_five_minutes(warmer(LIGHTS_ON, "light.turn_off")),
            when_the_kitchen_lights_go("off"),
        ],
        True,
    ),
    ([every_five_minutes(warmer(LIGHTS_ON, "script.turn_on"))], True),
    ([every_five_minutes(warmer(LIGHTS_ON, "shell_command.adjust"))], True),
]


@pytest.mark.parametrize(
    ("automations", "held"),
    TEMPLATED_TARGETS,
    ids=[
        "lights that are on",
        "for each light that is on",
        "lights that are on, off",
        "locks",
        "core's turn-on",
        "lights, one of which unlocks",
        "lights that are on, off, one of which unlocks",
        "scripts",
        "a shell command",
    ],
)
async def test_a_step_aimed_at_a_template_changes_at_most_what_its_service_acts_on(
    hass: HomeAssistant, scene: Scene, automations: list[dict[str, Any]], held: bool
) -> None:
    """The adaptive lighting automation reads the lights that are on: turning one on steers
    what its next run changes, judged by the entities its step's service acts on."""
    another_integrations_service(hass, "shell_command", "adjust")
    await set_up_automations(hass, *automations)

    try:
        result = await scene.ask_ours_to_call(
            "light", {"action": "turn_on", "entity_id": BED_LIGHT}
        )
    finally:  # the time pattern's timer must not outlive the test
        await hass.services.async_call(
            "automation", "turn_off", {"entity_id": "all"}, blocking=True
        )

    assert_held_only_when(hass, result, held)


def discover_button(hass: HomeAssistant, subtype: str, topic: str) -> None:
    """zigbee2mqtt announces a press of the hall switch's button (a device trigger)."""
    config = {
        "automation_type": "trigger",
        "type": "action",
        "subtype": subtype,
        "payload": subtype,
        "topic": topic,
        "device": {"identifiers": [HALL_SWITCH_DEVICE], "name": "Hall switch"},
    }
    async_fire_mqtt_message(
        hass,
        f"homeassistant/device_automation/0x00158d0004d5e6f7/action_{subtype}/config",
        json.dumps(config),
    )


def pressed_twice(hass: HomeAssistant, then: dict[str, Any]) -> dict[str, Any]:
    """When the hall switch's button is pressed twice (the editor's MQTT device trigger)."""
    device_id, _ = device_of(hass, HALL_SWITCH)
    return {
        "id": "pressed_twice",
        "alias": "Pressed twice",
        "triggers": [
            {
                "trigger": "device",
                "domain": "mqtt",
                "device_id": device_id,
                "type": "action",
                "subtype": "double",
            }
        ],
        "actions": [then],
    }


# (the topic zigbee2mqtt announces the button's presses on, or None: not announced; what the
# automation does; held)
BUTTON_TOPICS: Final[list[tuple[str | None, dict[str, Any], bool]]] = [
    # An MQTT device trigger is an MQTT trigger on the topic its discovery gave it: switching
    # the relay publishes on the relay's topics, not the button's. [held before: the device's
    # every entity counted]
    ("zigbee2mqtt/hall_switch/action", UNLOCK, False),
    # What must still ask: the button announced on the relay's state topic (where the device
    # answers the call) or its command topic, and a button not announced yet (its topic
    # unknown: any change of the device).
    ("zigbee2mqtt/hall_switch", UNLOCK, True),
    ("zigbee2mqtt/+/set", UNLOCK, True),
    (None, UNLOCK, True),
]


@pytest.mark.parametrize("expected_lingering_timers", [True])  # MQTT's housekeeping timer
@pytest.mark.parametrize(
    ("topic", "then", "held"),
    BUTTON_TOPICS,
    ids=["its own action topic", "the relay's state topic", "a command topic", "not announced"],
)
async def test_a_button_of_the_relays_device_is_heard_on_its_own_topic(
    hass: HomeAssistant,
    mqtt_mock: MqttMockHAClient,
    scene: Scene,
    topic: str | None,
    then: dict[str, Any],
    held: bool,
) -> None:
    """ "Press the hall switch's button twice: unlock" beside its relay: switching the relay
    is not a press of the button."""
    assert hass.states.get(HALL_SWITCH) is not None
    async_expose_entity(hass, "conversation", HALL_SWITCH, True)
    if topic is not None:
        discover_button(hass, "double", topic)
        await hass.async_block_till_done()
    await set_up_automations(hass, pressed_twice(hass, then))

    result = await scene.ask_ours_to_call("switch", {"action": "turn_on", "entity_id": HALL_SWITCH})

    assert_held_only_when(hass, result, held)


KITCHEN_ON: Final = {"action": "light.turn_on", "target": {"entity_id": KITCHEN_LIGHTS}}


def remote(presses: dict[str, dict[str, Any]], *, by: str = "trigger id") -> dict[str, Any]:
    """A zigbee2mqtt remote's automation: for each press (a payload on its action topic), its
    step, picked "triggered by" (a trigger with a payload and an id for each press) or by a
    template of the payload (one trigger on the topic, any payload)."""
    if by == "trigger id":
        triggers = [
            {"trigger": "mqtt", "topic": BEDSIDE_REMOTE, "payload": press, "id": press}
            for press in presses
        ]
        options = [
            {"conditions": [{"condition": "trigger", "id": press}], "sequence": [step]}
            for press, step in presses.items()
        ]
    else:
        triggers = [{"trigger": "mqtt", "topic": BEDSIDE_REMOTE}]
        options = [
            {
                "conditions": [template(f"{{{{ trigger.payload == '{press}' }}}}")],
                "sequence": [step],
            }
            for press, step in presses.items()
        ]
    return {
        "id": "remote",
        "alias": "Remote",
        "triggers": triggers,
        "actions": [{"choose": options}],
    }


def when_the_bed_light_goes_on_tell_me(message: str) -> dict[str, Any]:
    return {
        "id": "tell_me",
        "alias": "Tell me",
        "triggers": [{"trigger": "state", "entity_id": BED_LIGHT, "to": "on"}],
        "actions": [notify(message)],
    }


# (the remote's automation, what the notification says, held)
REMOTE_PRESSES: Final[list[tuple[dict[str, Any], str, bool]]] = [
    # A message heard by the remote's "on" trigger runs that trigger's branch, not the "hold"
    # one that unlocks. [held before: every branch of an automation that hears a message]
    (remote({"on": KITCHEN_ON, "hold": UNLOCK}), "The bed light is on", False),
    # What must still ask: a message that says "hold", ...
    (remote({"on": KITCHEN_ON, "hold": UNLOCK}), "Hold on, the bed light is on", True),
    # ... a branch picked by a template of the payload (any message may be any payload), ...
    (remote({"on": KITCHEN_ON, "hold": UNLOCK}, by="payload"), "The bed light is on", True),
    # ... and a press whose own branch unlocks.
    (remote({"on": UNLOCK}), "The bed light is on", True),
]


@pytest.mark.parametrize(
    ("program", "message", "held"),
    REMOTE_PRESSES,
    ids=["says on", "says hold", "the payload's template", "on unlocks"],
)
async def test_a_message_runs_only_the_branches_of_the_triggers_that_hear_it(
    hass: HomeAssistant, scene: Scene, program: dict[str, Any], message: str, held: bool
) -> None:
    """ "When the bed light goes on, tell my phone" beside a remote whose hold unlocks: the
    message may reach the remote's topic (a notification may be any signal), saying what
    it says: its "on" press, not its hold."""
    await phone_notifications(hass)
    await set_up_automations(hass, program, when_the_bed_light_goes_on_tell_me(message))

    result = await scene.ask_ours_to_call("light", {"action": "turn_on", "entity_id": BED_LIGHT})

    assert_held_only_when(hass, result, held)


LOCK_FRONT_DOOR: Final = {"action": "lock.lock", "target": {"entity_id": FRONT_DOOR}}


def when_the_blinds(hass: HomeAssistant, kind: str, then: dict[str, Any]) -> dict[str, Any]:
    """The editor's device trigger of the living room blinds (a cover's `opened`, `closed`
    ...), then a step."""
    return {
        "id": f"blinds_{kind}",
        "alias": f"Blinds {kind}",
        "triggers": [
            device_trigger(hass, BLINDS, kind, **({"above": 10} if kind == "position" else {}))
        ],
        "actions": [then],
    }


# (the blinds' device trigger and its step, the call on the blinds, held)
BLIND_TRIGGERS: Final[list[tuple[str, dict[str, Any], str, bool]]] = [
    # A cover's device trigger "closed" is a state trigger on the cover to `closed` (Home
    # Assistant's cover integration attaches it so): opening the blinds does not set off
    # "when the blinds close, lock up". [held before: any change of the blinds' device]
    ("closed", LOCK_FRONT_DOOR, "open_cover", False),
    ("closing", LOCK_FRONT_DOOR, "open_cover", False),
    # What must still ask: the call that closes (or opens) them, a trigger whose state is
    # not told (a position), ...
    ("closed", LOCK_FRONT_DOOR, "close_cover", True),
    ("opened", LOCK_FRONT_DOOR, "open_cover", True),
    # (closing them may stop them open on the way, or reverse them on an obstruction)
    ("opened", LOCK_FRONT_DOOR, "close_cover", True),
    ("position", LOCK_FRONT_DOOR, "open_cover", True),
    # ... and an everyday step beside it: at once whatever the call.
    ("closed", KITCHEN_ON, "close_cover", False),
]


@pytest.mark.parametrize(
    ("kind", "then", "service", "held"),
    BLIND_TRIGGERS,
    ids=[
        f"{case[0]}, {case[2]}{'' if case[1] is LOCK_FRONT_DOOR else ', lights'}"
        for case in BLIND_TRIGGERS
    ],
)
async def test_a_covers_device_trigger_is_set_off_only_by_its_states(
    hass: HomeAssistant, scene: Scene, kind: str, then: dict[str, Any], service: str, held: bool
) -> None:
    async_expose_entity(hass, "conversation", BLINDS, True)
    await set_up_automations(hass, when_the_blinds(hass, kind, then))

    result = await scene.ask_ours_to_call("cover", {"action": service, "entity_id": BLINDS})

    assert_held_only_when(hass, result, held)
    await hass.services.async_call("cover", "stop_cover", {"entity_id": BLINDS}, blocking=True)


# (the porch light's device trigger, the entity called, held)
RELAYS: Final[list[tuple[str, str, bool]]] = [
    # Home Assistant's own light integration attaches every device trigger of the porch light
    # to the porch light: switching the other relay of its device does not set it off.
    # [held before: "changed states" watched every entity of the device]
    ("changed_states", GARDEN_PUMP, False),
    ("turned_off", GARDEN_PUMP, False),
    # What must still ask: switching the porch light itself.
    ("changed_states", PORCH_LIGHT, True),
]


@pytest.mark.parametrize("expected_lingering_timers", [True])  # MQTT's housekeeping timer
@pytest.mark.parametrize(
    ("kind", "called", "held"), RELAYS, ids=[f"{kind}: {called}" for kind, called, _ in RELAYS]
)
async def test_a_device_trigger_of_an_entity_watches_that_entity_not_its_device(
    hass: HomeAssistant,
    mqtt_mock: MqttMockHAClient,
    scene: Scene,
    kind: str,
    called: str,
    held: bool,
) -> None:
    """ "When the porch light changes, lock up" beside the garden pump, the other relay of the
    same Shelly: switching the pump runs at once; switching the porch light still asks."""
    for entity_id in (PORCH_LIGHT, GARDEN_PUMP):
        assert hass.states.get(entity_id) is not None, entity_id
        async_expose_entity(hass, "conversation", entity_id, True)
    program = {
        "id": "porch_light_changes",
        "alias": "Porch light changes",
        "triggers": [device_trigger(hass, PORCH_LIGHT, kind)],
        "actions": [LOCK_FRONT_DOOR],
    }
    await set_up_automations(hass, program)
    domain = called.split(".", 1)[0]

    result = await scene.ask_ours_to_call(domain, {"action": "turn_on", "entity_id": called})

    assert_held_only_when(hass, result, held)
