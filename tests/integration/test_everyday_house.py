"""A real house with the automations and scripts people really write: everyday requests run.

The house of the red-team files (a front door lock, a garage door, an alarm, lights, media
players) with what a typical home runs around it: the motion-activated light blueprint,
"tell me when the washer is done", sunset and sunrise lights, a presence-based thermostat,
announcements (`tts.speak` and the older `tts.<platform>_say`), "pause when the phone rings",
logbook and system log steps, house modes, counters, timers, `choose`/`if`/`repeat`/
`wait_for_trigger`, `scene.create` snapshots, area/device/label targets, a template sensor
that counts the lights that are on, an old-style group and a light group, a Switch as X fan,
and the usual automations around the lock, the garage and the alarm. Everyday requests on the
harmless entities run at once; what really sets off the lock, the garage or the alarm asks.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path
import shutil
from typing import Any
from typing import Final
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.common import MockModule
from pytest_homeassistant_custom_component.common import MockPlatform
from pytest_homeassistant_custom_component.common import mock_config_flow
from pytest_homeassistant_custom_component.common import mock_integration
from pytest_homeassistant_custom_component.common import mock_platform

from homeassistant.components import automation as automation_component
from homeassistant.components import logbook
from homeassistant.components import tts
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigFlow
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import label_registry as lr
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.setup import async_setup_component

from .demo_house import phone_notifications
from .houses import ALARM
from .houses import FRONT_DOOR
from .houses import GARAGE
from .houses import Asking
from .houses import Request
from .houses import another_integrations_service
from .houses import assist
from .houses import attribute
from .houses import colour
from .houses import from_blueprint
from .houses import intent_call
from .houses import our_call
from .houses import ours
from .houses import place
from .houses import request_id
from .houses import runs_at_once
from .houses import set_up
from .houses import set_up_anna
from .houses import set_up_light_group
from .houses import set_up_yaml_groups
from .houses import sets
from .houses import still_asks
from .houses import temperature
from .houses import volume
from .scene import Scene
from .scripted_model import answer
from .test_everyday_automations import Beside
from .test_everyday_automations import check_the_bed_light_beside
from .test_everyday_automations import on
from .test_redteam import event_trigger
from .test_redteam import set_up_helper
from .test_redteam import template_helper
from .test_redteam_more import reload_scripts
from .test_redteam_seventh import UNLOCK
from .test_redteam_sixth import reload_with

LIVING_ROOM_TV: Final = "media_player.living_room"
PHONE: Final = {"action": "notify.phone", "data": {"message": "{{ trigger.to_state.name }}"}}


def automation(
    alias: str, triggers: list[dict[str, Any]], *actions: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": alias.lower().replace(" ", "_"),
        "alias": alias,
        "triggers": triggers,
        "actions": list(actions),
    }


def changes(entity_id: str, **how: Any) -> list[dict[str, Any]]:
    return [{"trigger": "state", "entity_id": entity_id, **how}]


def blueprint(alias: str, motion: str, light_target: dict[str, Any]) -> dict[str, Any]:
    """An automation made from Home Assistant's own motion-activated light blueprint."""
    return from_blueprint(
        alias,
        "homeassistant/motion_light.yaml",
        motion_entity=motion,
        light_target=light_target,
        no_motion_wait=60,
    )


def step(action: str, entity_id: str | list[str], **data: Any) -> dict[str, Any]:
    """An action step on the entities, with its data where it has any."""
    written: dict[str, Any] = {"action": action, "target": {"entity_id": entity_id}}
    if data:
        written["data"] = data
    return written


def light_on(target: dict[str, Any], **data: Any) -> dict[str, Any]:
    return {"action": "light.turn_on", "target": target, "data": data}


def announce(message: str) -> dict[str, Any]:
    """Say it on the kitchen speaker: the newer `tts.speak`."""
    return {
        "action": "tts.speak",
        "target": {"entity_id": "tts.speaker"},
        "data": {"media_player_entity_id": "media_player.kitchen", "message": message},
    }


def say(message: str) -> dict[str, Any]:
    """Say it on the kitchen speaker the older way (`tts.google_translate_say`'s kind)."""
    return {
        "action": "tts.demo_say",
        "data": {"entity_id": "media_player.kitchen", "message": message},
    }


LOG: Final = {"action": "logbook.log", "data": {"name": "House", "message": "changed"}}
SYSTEM_LOG: Final = {"action": "system_log.write", "data": {"message": "changed", "level": "info"}}


def automations(bed_light_device: str) -> list[dict[str, Any]]:
    """The house's automations; the bed light's device is one of its targets."""
    return [
        blueprint(
            "Hall motion light", "binary_sensor.hall_motion", {"entity_id": "light.ceiling_lights"}
        ),
        blueprint("Kitchen motion light", "binary_sensor.kitchen_motion", {"area_id": "hall"}),
        automation(
            "Washer done",
            [
                {
                    "trigger": "numeric_state",
                    "entity_id": "sensor.washer_power",
                    "below": 5,
                    "for": 120,
                }
            ],
            PHONE,
            announce("The washer is done"),
            step("counter.increment", "counter.laundry_loads"),
        ),
        automation(
            "Sunset lights",
            [{"trigger": "sun", "event": "sunset", "offset": "-00:30:00"}],
            light_on({"entity_id": "light.living_lights"}, brightness_pct=60),
            light_on({"label_id": "christmas"}),
        ),
        automation(
            "Sunrise off",
            [{"trigger": "sun", "event": "sunrise"}],
            step("light.turn_off", "all"),
        ),
        automation(
            "Away heating",
            changes("person.anna", to="not_home"),
            step("climate.set_temperature", "climate.hall", temperature=16),
        ),
        automation(
            "Home heating",
            changes("person.anna", to="home"),
            step("climate.set_temperature", "climate.hall", temperature=21),
        ),
        automation(
            "Laundry timer announce",
            [event_trigger("timer.finished", entity_id="timer.laundry")],
            say("The laundry timer is up"),
            LOG,
        ),
        automation(
            "Pause when the phone rings",
            changes("sensor.anna_phone_state", to="ringing"),
            step("media_player.media_pause", LIVING_ROOM_TV),
        ),
        automation(
            "Movie lights",
            changes(LIVING_ROOM_TV, to="playing"),
            {
                "action": "scene.create",
                "data": {"scene_id": "before_movie", "snapshot_entities": ["light.living_lights"]},
            },
            light_on({"entity_id": "light.living_lights"}, brightness_pct=10),
        ),
        automation(
            "Movie paused",
            changes(LIVING_ROOM_TV, **{"from": "playing", "to": "paused"}),
            step("scene.turn_on", "scene.before_movie"),
        ),
        automation(
            "TV off raises the bed light",
            changes("media_player.bedroom", to="off"),
            {
                "action": "light.turn_on",
                "target": {"device_id": bed_light_device},
                "data": {"brightness_step_pct": 10},
            },
        ),
        automation(
            "Fan logged",
            changes("fan.fan_plug"),
            LOG,
            SYSTEM_LOG,
        ),
        automation(
            "Too many lights",
            [{"trigger": "numeric_state", "entity_id": "sensor.lights_on", "above": 4}],
            PHONE,
        ),
        automation(
            "House mode",
            changes("input_select.house_mode"),
            SYSTEM_LOG,
            {
                "choose": [
                    {
                        "conditions": [
                            {
                                "condition": "state",
                                "entity_id": "input_select.house_mode",
                                "state": "Away",
                            }
                        ],
                        "sequence": [step("light.turn_off", "all")],
                    },
                    {
                        "conditions": [
                            {
                                "condition": "state",
                                "entity_id": "input_select.house_mode",
                                "state": "Home",
                            }
                        ],
                        "sequence": [light_on({"entity_id": "light.entrance_color_white_lights"})],
                    },
                ]
            },
        ),
        automation(
            "Night mode",
            changes("input_select.house_mode", to="Night"),
            step("lock.lock", FRONT_DOOR),
            step("alarm_control_panel.alarm_arm_night", ALARM),
        ),
        automation(
            "Kitchen light timer",
            changes("light.kitchen_lights", to="on"),
            step("timer.start", "timer.kitchen", duration=1800),
        ),
        automation(
            "Kitchen light timer up",
            [event_trigger("timer.finished", entity_id="timer.kitchen")],
            step("light.turn_off", "light.kitchen_lights"),
        ),
        automation(
            "Window open, heating off",
            changes("cover.hall_window", to="open"),
            step("climate.set_hvac_mode", "climate.hall", hvac_mode="off"),
        ),
        automation(
            "Evening TV",
            changes(LIVING_ROOM_TV, to="on"),
            {
                "if": [{"condition": "sun", "after": "sunset"}],
                "then": [light_on({"area_id": "living_room"}, brightness_pct=40)],
            },
        ),
        automation(
            "Guests welcome",
            changes("input_boolean.guest_mode", to="on"),
            step("homeassistant.turn_on", ["light.entrance_color_white_lights", "switch.fan_plug"]),
            step("input_select.select_option", "input_select.house_mode", option="Home"),
        ),
        automation(
            "Downstairs off",
            changes("group.downstairs", to="off"),
            step("fan.turn_off", "fan.fan_plug"),
        ),
        automation(
            "Bed light blink",
            changes("input_boolean.wake_up", to="on"),
            {
                "repeat": {
                    "count": 3,
                    "sequence": [
                        step("light.toggle", "light.bed_light"),
                        {"delay": 1},
                    ],
                }
            },
        ),
        automation(
            "Bedtime",
            changes("input_boolean.bedtime", to="on"),
            step("light.turn_off", "all"),
            {"action": "media_player.media_pause", "entity_id": "all"},
        ),
        automation(
            "Heater notice",
            changes("input_boolean.heater", to="on"),
            {"action": "persistent_notification.create", "data": {"message": "Heating"}},
        ),
        automation(
            "Wait for the kettle",
            changes("switch.kettle", to="on"),
            {
                # (a short wait: the test waits for the run to end)
                "wait_for_trigger": [
                    {"trigger": "state", "entity_id": "switch.kettle", "to": "off"}
                ],
                "timeout": 0.01,
            },
            announce("The kettle is done"),
        ),
        # The lock, the garage and the alarm: the usual automations around them.
        automation(
            "Lock at night",
            [{"trigger": "time", "at": "23:00:00"}],
            step("lock.lock", FRONT_DOOR),
        ),
        automation(
            "Armed, lights off",
            changes(ALARM, to="armed_away"),
            step("light.turn_off", "all"),
        ),
        automation(
            "Arrive, open the garage",
            [
                {
                    "trigger": "zone",
                    "entity_id": "person.anna",
                    "zone": "zone.home",
                    "event": "enter",
                }
            ],
            step("cover.open_cover", GARAGE),
        ),
        automation(
            "Garage left open",
            changes(GARAGE, to="open", **{"for": 600}),
            PHONE,
        ),
        automation(
            "Disarmed, hall light",
            changes(ALARM, to="disarmed"),
            light_on({"entity_id": "light.entrance_color_white_lights"}),
        ),
        automation(
            "Leaving, arm",
            changes("person.anna", to="not_home"),
            step("alarm_control_panel.alarm_arm_away", ALARM),
        ),
    ]


EXPOSED: Final = (
    "light.bed_light",
    "light.ceiling_lights",
    "light.kitchen_lights",
    "light.living_lights",
    "light.office_rgbw_lights",
    "light.entrance_color_white_lights",
    "light.living_room_rgbww_lights",
    "fan.fan_plug",
    "switch.kettle",
    "media_player.living_room",
    "media_player.bedroom",
    "media_player.kitchen",
    "climate.hall",
    "input_select.house_mode",
    "input_boolean.guest_mode",
    "input_boolean.wake_up",
    "input_boolean.heater",
    "input_boolean.bedtime",
    "counter.laundry_loads",
    "timer.laundry",
    "cover.hall_window",
    "script.good_night",
    "script.movie_time",
    "group.downstairs",
)

SCRIPTS: Final[dict[str, Any]] = {
    "good_night": {
        "alias": "Good night",
        "sequence": [
            step("light.turn_off", "all"),
            step("lock.lock", FRONT_DOOR),
        ],
    },
    "movie_time": {
        "alias": "Movie time",
        "sequence": [
            light_on({"entity_id": "light.living_lights"}, brightness_pct=10),
            step("media_player.media_play", LIVING_ROOM_TV),
        ],
    },
}


async def set_up_logbook(hass: HomeAssistant) -> None:
    """Set up the logbook (its `logbook.log`) without its database, panel and HTTP views."""
    hass.config.components.update({"recorder", "frontend", "http"})
    with (
        patch(f"{logbook.__name__}.frontend.async_register_built_in_panel"),
        patch(f"{logbook.__name__}.rest_api.async_setup"),
        patch(f"{logbook.__name__}.websocket_api.async_setup"),
    ):
        assert await async_setup_component(hass, "logbook", {})


class Speaker(tts.TextToSpeechEntity):
    """A text-to-speech entity (as Google's or Piper's): `tts.speak` says its messages."""

    _attr_name = "Speaker"
    _attr_default_language = "en"

    @property
    def supported_languages(self) -> list[str]:
        return ["en"]

    def get_tts_audio(
        self, message: str, language: str, options: dict[str, Any]
    ) -> tts.TtsAudioType:
        return "mp3", b""


class SpeakersFlow(ConfigFlow):
    """The text-to-speech integration's config flow (never shown)."""


async def set_up_speaker(
    hass: HomeAssistant, speaker: tts.TextToSpeechEntity | None = None
) -> None:
    """Set up tts.speaker (or `speaker`) from a config entry, as a text-to-speech integration
    does."""

    async def set_up_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
        await hass.config_entries.async_forward_entry_setups(entry, [Platform.TTS])
        return True

    async def set_up_platform(
        hass: HomeAssistant, entry: ConfigEntry, add: AddEntitiesCallback
    ) -> None:
        add([speaker or Speaker()])

    mock_integration(hass, MockModule("speakers", async_setup_entry=set_up_entry))
    mock_platform(hass, "speakers.config_flow")
    mock_platform(hass, "speakers.tts", MockPlatform(async_setup_entry=set_up_platform))
    entry = MockConfigEntry(domain="speakers")
    entry.add_to_hass(hass)
    with mock_config_flow("speakers", SpeakersFlow):
        assert await hass.config_entries.async_setup(entry.entry_id)


@pytest.fixture
async def home(hass: HomeAssistant, scene: Scene, tmp_path: Path) -> AsyncGenerator[Scene]:
    """The red-team house with the helpers, scripts and automations of a typical home."""
    # Home Assistant's own blueprints, where it copies them at its first start.
    hass.config.config_dir = str(tmp_path)
    shutil.copytree(
        Path(automation_component.__file__).parent / "blueprints",
        tmp_path / "blueprints" / "automation" / "homeassistant",
    )
    hass.states.async_set("sensor.washer_power", "100", {"unit_of_measurement": "W"})
    hass.states.async_set("sensor.anna_phone_state", "idle")
    hass.states.async_set("sensor.hall_temperature", "20", {"unit_of_measurement": "°C"})
    for component in ("zone", "persistent_notification", "system_log", "scene"):
        assert await async_setup_component(hass, component, {})
    await set_up_logbook(hass)
    await phone_notifications(hass)
    assert await async_setup_component(hass, "tts", {"tts": {"platform": "demo"}})
    await set_up_speaker(hass)
    await reload_with(
        hass,
        "input_boolean",
        {
            "guest_mode": {"initial": False},
            "heater": {"initial": False},
            "wake_up": {"initial": False},
            "bedtime": {"initial": False},
            "hall_motion": {"initial": False},
            "kettle": {"initial": False},
            "fan_relay": {"initial": False},
        },
    )
    await set_up(
        hass,
        "input_select",
        {"house_mode": {"options": ["Home", "Away", "Night"], "initial": "Home"}},
    )
    await set_up(hass, "counter", {"laundry_loads": {"initial": 0, "step": 1}})
    await set_up(hass, "timer", {"laundry": {"duration": 3600}, "kitchen": {"duration": 1800}})
    await set_up_anna(hass)
    await set_up(
        hass,
        "climate",
        [
            {
                "platform": "generic_thermostat",
                "name": "Hall",
                "heater": "input_boolean.heater",
                "target_sensor": "sensor.hall_temperature",
            }
        ],
    )
    downstairs = {"downstairs": {"entities": ["light.kitchen_lights", "light.ceiling_lights"]}}
    await set_up_yaml_groups(hass, downstairs)
    await set_up_light_group(
        hass, "Living Lights", "light.living_room_rgbww_lights", "light.office_rgbw_lights"
    )
    await template_helper(
        hass,
        {
            "template_type": "sensor",
            "name": "Lights on",
            "state": "{{ states.light | selectattr('state', 'eq', 'on') | list | count }}",
        },
    )
    for name, source in (("Hall motion", "hall_motion"), ("Kitchen motion", "hall_motion")):
        await template_helper(
            hass,
            {
                "template_type": "binary_sensor",
                "name": name,
                "device_class": "motion",
                "state": f"{{{{ is_state('input_boolean.{source}', 'on') }}}}",
            },
        )
    # Switches of relays (template switches of input booleans).
    for name, relay in (
        ("Fan plug", "input_boolean.fan_relay"),
        ("Kettle", "input_boolean.kettle"),
    ):
        await template_helper(
            hass,
            {
                "template_type": "switch",
                "name": name,
                "state": f"{{{{ is_state('{relay}', 'on') }}}}",
                "turn_on": [step("input_boolean.turn_on", relay)],
                "turn_off": [step("input_boolean.turn_off", relay)],
            },
        )
    await set_up_helper(
        hass,
        "switch_as_x",
        "Fan plug",
        {"entity_id": "switch.fan_plug", "invert": False, "target_domain": "fan"},
    )
    # Areas and a label (the hall, with the back door's lock, is the red-team house's).
    place(hass, "Kitchen", "light.kitchen_lights")
    place(hass, "Living Room", "light.living_room_rgbww_lights")
    entities = er.async_get(hass)
    christmas = lr.async_get(hass).async_create("Christmas")
    entities.async_update_entity("light.office_rgbw_lights", labels={christmas.label_id})
    bed_light = entities.async_get("light.bed_light")
    assert bed_light is not None
    assert bed_light.device_id is not None
    await reload_scripts(hass, SCRIPTS)
    await set_up(hass, "automation", automations(bed_light.device_id))
    await hass.async_block_till_done()
    for entity_id in EXPOSED:
        async_expose_entity(hass, "conversation", entity_id, True)
    # Switch as X hides the switch it shows as a fan.
    async_expose_entity(hass, "conversation", "switch.fan_plug", False)
    # The lights start off, the living room TV is paused.
    await hass.services.async_call("light", "turn_off", {"entity_id": "all"}, blocking=True)
    await hass.services.async_call(
        "media_player", "media_pause", {"entity_id": LIVING_ROOM_TV}, blocking=True
    )
    await hass.async_block_till_done()
    yield scene
    # Sun and time triggers and timers wait for their time: stopped, none outlives the test.
    await hass.services.async_call("automation", "turn_off", {"entity_id": "all"}, blocking=True)
    await hass.services.async_call("timer", "cancel", {"entity_id": "all"}, blocking=True)


async def test_the_house_is_set_up(hass: HomeAssistant, home: Scene) -> None:
    ids = hass.states.async_entity_ids()
    for expected in (
        "fan.fan_plug",
        "light.living_lights",
        "climate.hall",
        "sensor.lights_on",
        "automation.hall_motion_light",
        "automation.kitchen_motion_light",
        "script.good_night",
        "group.downstairs",
        "timer.laundry",
        "counter.laundry_loads",
        "person.anna",
    ):
        assert expected in ids, expected
    assert "tts.speaker" in ids


EVERYDAY: Final[list[Request]] = [
    # A state trigger's `to:` ("house mode changes to Night": lock) is compared with the
    # state the call, or a step it sets off, leaves the entity in.
    ours("select_option", "input_select.house_mode", "Away", option="Away"),
    ours("turn_on", "input_boolean.guest_mode", "on", "light.entrance_color_white_lights"),
    ours("turn_on", "light.bed_light", "on"),
    ours("turn_on", "light.kitchen_lights", "active", "timer.kitchen"),
    ours("turn_on", "light.living_lights", "on", brightness_pct=50),
    ours("turn_on", "light.ceiling_lights", "on", "group.downstairs"),
    ours("toggle", "light.office_rgbw_lights", "on"),
    ours("turn_on", "light.entrance_color_white_lights", "on"),
    ours("turn_on", "fan.fan_plug", "on", "input_boolean.fan_relay"),
    ours("turn_on", "switch.kettle", "on"),
    ours("media_pause", LIVING_ROOM_TV, "paused"),
    ours("media_play", LIVING_ROOM_TV, "playing"),
    ours("turn_off", "media_player.bedroom", "off"),
    sets("volume_set", "media_player.kitchen", volume_level=0.3),
    sets("set_temperature", "climate.hall", temperature=22),
    ours("turn_on", "input_boolean.wake_up", "on"),
    ours("turn_on", "input_boolean.heater", "on"),
    ours("turn_on", "input_boolean.bedtime", "paused", "media_player.kitchen"),
    ours("increment", "counter.laundry_loads", "1"),
    ours("start", "timer.laundry", "active"),
    ours("open_cover", "cover.hall_window", "off", attribute("climate.hall", "hvac_action")),
    assist("HassTurnOn", "light.bed_light", "on", name="Bed Light"),
    assist("HassTurnOn", "light.kitchen_lights", "on", area="Kitchen", domain=["light"]),
    assist("HassTurnOn", "light.living_room_rgbww_lights", "on", area="Living Room"),
    assist("HassTurnOff", "light.bed_light", "off", name="all", domain=["light"]),
    assist("HassLightSet", "light.living_lights", "on", name="Living Lights", brightness=30),
    assist("HassLightSet", colour("light.bed_light"), (255, 0, 0), name="Bed Light", color="red"),
    assist("HassSetPosition", "cover.hall_window", "opening", name="Hall Window", position=40),
    assist(
        "HassClimateSetTemperature",
        temperature("climate.hall"),
        19,
        name="Hall",
        temperature=19,
    ),
    assist("HassMediaUnpause", LIVING_ROOM_TV, "playing", name="Living Room"),
    assist("HassSetVolume", volume("media_player.kitchen"), 0.3, name="Kitchen", volume_level=30),
    assist("HassTurnOn", "fan.fan_plug", "on", name="Fan plug"),
    assist("HassTurnOn", "switch.kettle", "on", name="Kettle"),
    assist("HassTurnOn", "group.downstairs", "on", name="Ceiling Lights"),
    assist("HassTurnOff", "light.kitchen_lights", "off", name="Kitchen Lights"),
]


@pytest.mark.parametrize("everyday", EVERYDAY, ids=request_id)
async def test_an_everyday_request_runs_at_once(
    hass: HomeAssistant, home: Scene, everyday: Request
) -> None:
    await runs_at_once(home, everyday, answer("Done."))


# What really sets off the lock, the garage door or the alarm, and programs of unknown effect.
SENSITIVE: Final[list[Asking]] = [
    our_call("unlock", FRONT_DOOR),
    # Locking it, locked already, is said so without a question (test_everyday_fiftieth).
    our_call("open_cover", GARAGE),
    our_call("alarm_arm_away", ALARM),
    our_call("select_option", "input_select.house_mode", option="Night"),
    our_call("turn_on", "script.good_night"),
    our_call("turn_on", "script.movie_time"),
    intent_call("HassTurnOn", area="Hall"),
    intent_call("HassTurnOn", name="Garage Door"),
    intent_call("HassTurnOn", name="Good night"),
]


@pytest.mark.parametrize("sensitive", SENSITIVE, ids=request_id)
async def test_what_sets_off_the_lock_garage_or_alarm_still_asks(
    home: Scene, sensitive: Asking
) -> None:
    await still_asks(home, sensitive, answer("Done."))


# --- Each class of over-hold found, and its neighbour that must still ask -----------------------


def snapshot(scene_id: Any, *entities: str) -> dict[str, Any]:
    """`scene.create`: remember how these entities are now, as scene.<scene_id>."""
    return {
        "action": "scene.create",
        "data": {"scene_id": scene_id, "snapshot_entities": list(entities)},
    }


def apply(entity_id: str) -> dict[str, Any]:
    """`scene.apply`: set the entity to "on" (or "unlocked") as a scene of it would."""
    value = "unlocked" if entity_id.startswith("lock.") else "on"
    return {"action": "scene.apply", "data": {"entities": {entity_id: value}}}


def restore(scene_id: str) -> dict[str, Any]:
    return {"action": "scene.turn_on", "target": {"entity_id": f"scene.{scene_id}"}}


KITCHEN_PLAYS: Final = {"trigger": "state", "entity_id": "media_player.kitchen"}
HUB_NOTE: Final = {"action": "logbook.note", "data": {"message": "noted"}}
CLASSES: Final[list[Beside]] = [
    # A logbook entry or a log line changes no entity: what hears its event is judged.
    ([LOG], [], False),
    ([LOG], [on(event_trigger("logbook_entry"), UNLOCK)], True),
    ([SYSTEM_LOG], [], False),
    ([SYSTEM_LOG], [on(event_trigger("system_log_event"), UNLOCK)], True),
    # Another integration's service in the logbook's domain is not the logbook's.
    ([HUB_NOTE], [], True),
    # An announcement changes the media player it plays on, and what that sets off.
    ([say("The bed light is on")], [], False),
    ([say("The bed light is on")], [on(KITCHEN_PLAYS, UNLOCK)], True),
    ([announce("The bed light is on")], [], False),
    ([announce("The bed light is on")], [on(KITCHEN_PLAYS, UNLOCK)], True),
    # "All" is every entity the service's handler acts on: all lights, everything for core's.
    ([{"action": "light.turn_on", "target": {"entity_id": "all"}}], [], False),
    ([{"action": "media_player.media_pause", "entity_id": "all"}], [], False),
    ([{"action": "homeassistant.turn_off", "target": {"entity_id": "all"}}], [], True),
    ([{"action": "lock.unlock", "target": {"entity_id": "all"}}], [], True),
    # A snapshot scene is judged by what is put in it, also before it first exists.
    ([snapshot("before", "light.kitchen_lights"), restore("before")], [], False),
    ([restore("before")], [on(event_trigger("doorbell"), snapshot("before", FRONT_DOOR))], True),
    ([snapshot("before", FRONT_DOOR), restore("before")], [], True),
    ([snapshot("{{ 'before' }}", "light.kitchen_lights")], [], True),
    ([restore("never_made")], [], True),
    # A scene of a file is not made again by scene.create: it sets what it says.
    (
        [restore("evening")],
        [on(event_trigger("doorbell"), snapshot("{{ 'x' }}", FRONT_DOOR))],
        False,
    ),
    (
        [restore("hub_scene")],
        [on(event_trigger("doorbell"), snapshot("hub_scene", "light.kitchen_lights"))],
        True,
    ),
    ([apply("light.kitchen_lights")], [], False),
    ([apply(FRONT_DOOR)], [], True),
]


@pytest.mark.parametrize(
    "beside",
    CLASSES,
    ids=[
        "logs an entry",
        "logs an entry that unlocks",
        "writes a log line",
        "writes a log line that unlocks",
        "another integration's service in the logbook's domain",
        "says it the older way",
        "says it the older way on a player that unlocks",
        "says it with tts.speak",
        "says it with tts.speak on a player that unlocks",
        "turns on all lights",
        "pauses all media players",
        "turns off everything",
        "unlocks all locks",
        "snapshots and restores the kitchen",
        "restores what the doorbell snapshots of the lock",
        "snapshots and restores the lock",
        "snapshots a scene named by a template",
        "turns on a scene nothing makes",
        "turns on a scene of a file beside a snapshot named by a template",
        "turns on a hub's scene that a snapshot names",
        "applies a state to the kitchen lights",
        "applies a state to the lock",
    ],
)
async def test_what_a_record_an_announcement_or_a_snapshot_sets_off_decides(
    hass: HomeAssistant, scene: Scene, beside: Beside
) -> None:
    assert await async_setup_component(hass, "system_log", {})
    assert await async_setup_component(
        hass, "scene", {"scene": [{"name": "Evening", "entities": {"light.kitchen_lights": "on"}}]}
    )
    # A hub's scene: what it sets is the hub's.
    hass.states.async_set("scene.hub_scene", "unknown")
    await set_up_logbook(hass)
    assert await async_setup_component(hass, "tts", {"tts": {"platform": "demo"}})
    await set_up_speaker(hass)

    another_integrations_service(hass, "logbook", "note")

    await check_the_bed_light_beside(hass, scene, beside)
