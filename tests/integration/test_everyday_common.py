"""The house people really have: the automations and scripts Home Assistant users write most.

Home Assistant's own motion-activated light blueprint, "tell me when a door opens", "leaving
home" (set off by the person, not by us: it turns everything off and locks up), blinds that
follow the sun (shades and blinds, not garage doors), a bedtime script (lights off, thermostat
down, TV off) beside a separate "lock up" script, "the washer is done" from a power sensor, a
doorbell that shows who is there, a morning routine (blinds up, coffee plug on, the radio), a
thermostat schedule, a vacuum schedule, a guest mode that the "at 23:00, lock the door unless
we have guests" automation reads, a counter, timers and an input number that automations
watch (numeric state triggers), scenes, a light group, media players, fans and climate
presets.

A sweep asks the agent for every everyday action of every exposed entity, and lists the calls
that are held: exactly the ones that really lock, open or arm something, or keep something
from locking. Everything else runs at once.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.const import CONF_EXEMPT_ENTITIES
from custom_components.local_agent.const import CONF_HOME_TOOLS
from custom_components.local_agent.home.service_catalog import action_supported
from custom_components.local_agent.home.service_catalog import build_catalog
from custom_components.local_agent.home.service_catalog import field_supported
from homeassistant.components.climate.const import ClimateEntityFeature
from homeassistant.components.conversation import ConversationResult
from homeassistant.components.cover import CoverEntityFeature
from homeassistant.components.fan.const import FanEntityFeature
from homeassistant.components.media_player.const import MediaPlayerEntityFeature
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.core import State
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.service import async_get_all_descriptions

from .conftest import Agent
from .conftest import Talk
from .conftest import async_setup_agent
from .conftest import speech
from .conftest import state
from .houses import ASSIST
from .houses import LIVING_ROOM_LIGHTS
from .houses import MOVIE_SCENE
from .houses import OURS
from .houses import Asking
from .houses import Request
from .houses import act
from .houses import assist
from .houses import colour as colour_of
from .houses import comfort_temperature
from .houses import from_blueprint
from .houses import intent_call
from .houses import is_state
from .houses import our_call
from .houses import ours
from .houses import place
from .houses import read
from .houses import request_id
from .houses import set_up
from .houses import set_up_anna
from .houses import set_up_light_group
from .houses import sets
from .houses import temperature
from .houses import volume
from .scene import Home
from .scene import Scene
from .scene import tool_call
from .scene import tool_results
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_choices import LOCK_UP as MODE_LOCKS_UP
from .test_everyday_choices import mode_changes
from .test_everyday_choices import mode_is
from .test_everyday_choices import modes
from .test_everyday_choices import option
from .test_everyday_choices import select
from .test_everyday_choices import set_up_the_house
from .test_everyday_homes import automation
from .test_everyday_homes import changes
from .test_everyday_homes import expose
from .test_everyday_homes import notify
from .test_everyday_homes import rename
from .test_redteam import asked
from .test_redteam import event_trigger
from .test_redteam import set_up_automations
from .turns import ask_changing_nothing

FRONT_DOOR: Final = "lock.front_door"
BACK_DOOR: Final = "lock.kitchen_door"
GARAGE: Final = "cover.garage_door"
ALARM: Final = "alarm_control_panel.security"
BLINDS: Final = "cover.living_room_window"
SHADE: Final = "cover.kitchen_window"
TV: Final = "media_player.living_room"
RADIO: Final = "media_player.kitchen"
COFFEE: Final = "switch.ac"
THERMOSTAT: Final = "climate.hvac"
VACUUM: Final = "vacuum.demo_vacuum_0_ground_floor"
GUESTS: Final = "input_boolean.guest_mode"
BATHROOM_FAN: Final = "fan.ceiling_fan"
BED_LIGHT: Final = "light.bed_light"


def motion_light(alias: str, motion: str, light: str) -> dict[str, Any]:
    """An automation made from Home Assistant's own motion-activated light blueprint."""
    return from_blueprint(
        alias,
        "homeassistant/motion_light.yaml",
        motion_entity=motion,
        light_target={"entity_id": light},
        no_motion_wait=120,
    )


def at(time: str) -> list[dict[str, Any]]:
    return [{"trigger": "time", "at": time}]


WEEKDAYS: Final = {"condition": "time", "weekday": ["mon", "tue", "wed", "thu", "fri"]}


def common_automations() -> list[dict[str, Any]]:
    return [
        motion_light(
            "Hall motion light", "binary_sensor.hall_motion", "light.entrance_color_white_lights"
        ),
        motion_light(
            "Kitchen motion light", "binary_sensor.kitchen_motion", "light.kitchen_lights"
        ),
        automation(
            "Front door opened",
            changes("binary_sensor.front_door_contact", to="on"),
            notify("The front door opened"),
        ),
        automation(
            "Leaving home",
            changes("person.anna", to="not_home"),
            act("light.turn_off", "all"),
            act("media_player.turn_off", "all"),
            act("climate.set_preset_mode", THERMOSTAT, preset_mode="away"),
            act("lock.lock", FRONT_DOOR),
            act("alarm_control_panel.alarm_arm_away", ALARM),
        ),
        automation(
            "Everyone left",
            [{"trigger": "numeric_state", "entity_id": ["zone.home"], "below": 1}],
            act("vacuum.start", VACUUM),
            act("switch.turn_off", COFFEE),
        ),
        automation(
            "Blinds down at sunset",
            [{"trigger": "sun", "event": "sunset", "offset": "-00:15:00"}],
            act("cover.close_cover", [BLINDS, SHADE]),
        ),
        automation(
            "Blinds up at sunrise",
            [{"trigger": "sun", "event": "sunrise"}],
            act("cover.open_cover", [BLINDS, SHADE]),
        ),
        automation(
            "Washer done",
            [
                {
                    "trigger": "numeric_state",
                    "entity_id": ["sensor.washer_power"],
                    "below": 5,
                    "for": {"minutes": 2},
                }
            ],
            notify("The washer is done"),
            act("counter.increment", "counter.laundry_loads"),
        ),
        automation(
            "Doorbell",
            changes("binary_sensor.doorbell", to="on"),
            notify("Someone is at the door", image="/api/camera_proxy/camera.doorbell"),
            act("media_player.turn_on", TV),
            act(
                "media_player.play_media",
                TV,
                media_content_id="media-source://camera/camera.doorbell",
                media_content_type="application/vnd.apple.mpegurl",
            ),
        ),
        automation(
            "Morning",
            at("07:00:00"),
            act("script.turn_on", "script.morning"),
            conditions=[WEEKDAYS],
        ),
        automation(
            "Heating up in the morning",
            at("06:30:00"),
            act("climate.set_temperature", THERMOSTAT, temperature=21),
        ),
        automation(
            "Heating down at night",
            at("22:30:00"),
            act("climate.set_temperature", THERMOSTAT, temperature=17),
        ),
        automation(
            "Comfort temperature",
            changes("input_number.comfort_temperature"),
            act(
                "climate.set_temperature",
                THERMOSTAT,
                temperature="{{ states('input_number.comfort_temperature') | float }}",
            ),
        ),
        automation(
            "Too hot",
            [
                {
                    "trigger": "numeric_state",
                    "entity_id": ["input_number.comfort_temperature"],
                    "above": 24,
                }
            ],
            act("fan.turn_on", "fan.living_room_fan"),
        ),
        automation(
            "Vacuum while away",
            at("10:00:00"),
            act("vacuum.start", VACUUM),
            conditions=[is_state("zone.home", "0")],
        ),
        automation(
            "Lock at 23:00 unless guests",
            at("23:00:00"),
            act("lock.lock", FRONT_DOOR),
            act("lock.lock", BACK_DOOR),
            conditions=[is_state(GUESTS, "off")],
        ),
        automation(
            "Guests welcome",
            changes(GUESTS, to="on"),
            act("light.turn_on", "light.entrance_color_white_lights"),
        ),
        automation(
            "Too much coffee",
            [{"trigger": "numeric_state", "entity_id": ["counter.coffee_cups"], "above": 4}],
            notify("That is a lot of coffee"),
        ),
        automation(
            "Coffee counted",
            changes(COFFEE, to="on"),
            act("counter.increment", "counter.coffee_cups"),
        ),
        automation(
            "Laundry timer up",
            [event_trigger("timer.finished", entity_id="timer.laundry")],
            notify("The laundry timer is up"),
            act("media_player.volume_set", RADIO, volume_level=0.2),
        ),
        automation(
            "Bathroom fan timer",
            changes(BATHROOM_FAN, to="on"),
            act("timer.start", "timer.bathroom_fan", duration="00:15:00"),
        ),
        automation(
            "Bathroom fan off",
            [event_trigger("timer.finished", entity_id="timer.bathroom_fan")],
            act("fan.turn_off", BATHROOM_FAN),
        ),
        automation(
            "Movie lights",
            changes(TV, to="playing"),
            act("light.turn_on", "light.living_room", brightness_pct=20),
        ),
        automation(
            "Movie paused",
            changes(TV, to="paused"),
            act("light.turn_on", "light.living_room", brightness_pct=70),
        ),
        automation(
            "Eco when the window opens",
            changes("binary_sensor.window_contact", to="on"),
            act("climate.set_preset_mode", THERMOSTAT, preset_mode="eco"),
        ),
        # Around the lock, the garage door and the alarm.
        # "When the bedroom light goes out late, lock up", written as the editor's "From: On".
        automation(
            "Lights out, lock up",
            [{"trigger": "state", "entity_id": [BED_LIGHT], "from": "on"}],
            act("lock.lock", [FRONT_DOOR, BACK_DOOR]),
            conditions=[{"condition": "time", "after": "22:00:00"}],
        ),
        automation(
            "Movie over",
            [{"trigger": "state", "entity_id": [TV], "from": "playing"}],
            act("light.turn_on", "light.living_room", brightness_pct=70),
        ),
        # "The front door is unlocked": a notification whose button locks it.
        automation(
            "Front door left unlocked",
            changes(FRONT_DOOR, to="unlocked", **{"for": {"minutes": 10}}),
            notify(
                "The front door is unlocked",
                actions=[{"action": "LOCK_FRONT_DOOR", "title": "Lock it"}],
            ),
        ),
        automation(
            "Lock from the notification",
            [event_trigger("mobile_app_notification_action", action="LOCK_FRONT_DOOR")],
            act("lock.lock", FRONT_DOOR),
        ),
        automation(
            "Garage left open",
            changes(GARAGE, to="open", **{"for": {"minutes": 10}}),
            notify("The garage door is open"),
        ),
        automation(
            "Armed, lights off",
            changes(ALARM, to="armed_away"),
            act("light.turn_off", "all"),
        ),
        automation(
            "Disarmed, hall light",
            changes(ALARM, to="disarmed"),
            act("light.turn_on", "light.entrance_color_white_lights"),
        ),
        automation(
            "Front door unlocked, hall light",
            changes(FRONT_DOOR, to="unlocked"),
            act("light.turn_on", "light.entrance_color_white_lights"),
        ),
    ]


SCRIPTS: Final[dict[str, Any]] = {
    "bedtime": {
        "alias": "Bedtime",
        "sequence": [
            act("light.turn_off", ["light.living_room", "light.kitchen_lights"]),
            act("climate.set_temperature", THERMOSTAT, temperature=17),
            act("media_player.turn_off", TV),
        ],
    },
    "lock_up": {
        "alias": "Lock up",
        "sequence": [
            act("lock.lock", [FRONT_DOOR, BACK_DOOR]),
            act("cover.close_cover", GARAGE),
            act("alarm_control_panel.alarm_arm_night", ALARM),
        ],
    },
    "morning": {
        "alias": "Morning",
        "sequence": [
            act("cover.open_cover", [BLINDS, SHADE]),
            act("switch.turn_on", COFFEE),
            act("media_player.media_play", RADIO),
            act("media_player.volume_set", RADIO, volume_level=0.3),
        ],
    },
}
# The harmless scripts the person exempted in the agent's safety options.
EXEMPT: Final = ("script.bedtime", "script.morning")

SCENES: Final = [
    MOVIE_SCENE,
    {
        "id": "evening",
        "name": "Evening",
        "entities": {"light.living_room": "on", "light.kitchen_lights": "on", SHADE: "closed"},
    },
    {
        "id": "bright",
        "name": "Bright",
        "entities": {"light.kitchen_lights": {"state": "on", "brightness": 255}},
    },
]

EXPOSED: Final = (
    FRONT_DOOR,
    BACK_DOOR,
    GARAGE,
    ALARM,
    "light.bed_light",
    "light.ceiling_lights",
    "light.kitchen_lights",
    "light.office_rgbw_lights",
    "light.entrance_color_white_lights",
    "light.living_room_rgbww_lights",
    "light.living_room",
    BLINDS,
    SHADE,
    "cover.hall_window",
    THERMOSTAT,
    "climate.ecobee",
    "climate.heatpump",
    "fan.living_room_fan",
    BATHROOM_FAN,
    TV,
    RADIO,
    "media_player.bedroom",
    VACUUM,
    COFFEE,
    "switch.decorative_lights",
    "humidifier.dehumidifier",
    "select.speed",
    "number.volume",
    "button.push",
    GUESTS,
    "input_number.comfort_temperature",
    "counter.coffee_cups",
    "counter.laundry_loads",
    "timer.laundry",
    "timer.bathroom_fan",
    "scene.movie",
    "scene.evening",
    "scene.bright",
    "script.bedtime",
    "script.morning",
    "script.lock_up",
)


@pytest.fixture
async def home(hass: HomeAssistant, demo_house: Home) -> Home:
    """The demo's devices, with the helpers, scripts and automations of a common home."""
    rename(hass, COFFEE, "Coffee plug")
    rename(hass, "switch.decorative_lights", "Christmas lights")
    entities = er.async_get(hass)
    # Blinds and shades, as the user set their class (the demo's have none).
    entities.async_update_entity(BLINDS, device_class="blind")
    entities.async_update_entity(SHADE, device_class="shade")
    for entity_id, value in (
        ("binary_sensor.hall_motion", "off"),
        ("binary_sensor.kitchen_motion", "off"),
        ("binary_sensor.front_door_contact", "off"),
        ("binary_sensor.window_contact", "off"),
        ("binary_sensor.doorbell", "off"),
        ("sensor.washer_power", "120"),
    ):
        hass.states.async_set(entity_id, value)
    await set_up_anna(hass)
    await set_up(hass, "input_boolean", {"guest_mode": {"name": "Guest mode"}})
    await set_up(hass, "input_number", {"comfort_temperature": comfort_temperature(up_to=28)})
    await set_up(
        hass,
        "counter",
        {
            "coffee_cups": {"name": "Coffee cups", "initial": 0},
            "laundry_loads": {"name": "Laundry loads", "initial": 0},
        },
    )
    await set_up(
        hass,
        "timer",
        {
            "laundry": {"name": "Laundry", "duration": "01:30:00"},
            "bathroom_fan": {"name": "Bathroom fan timer", "duration": "00:15:00"},
        },
    )
    await set_up_light_group(hass, "Living Room", *LIVING_ROOM_LIGHTS)
    rename(hass, "light.living_room", "Living room lights")
    await set_up(hass, "scene", SCENES)
    await set_up(hass, "script", SCRIPTS)
    place(hass, "Living Room", BLINDS, "light.living_room_rgbww_lights")
    place(hass, "Kitchen", "light.kitchen_lights", SHADE, COFFEE)
    place(hass, "Bedroom", "light.bed_light")
    place(hass, "Garage", GARAGE)
    await set_up(hass, "automation", common_automations())
    await hass.async_block_till_done()
    assert state(hass, "automation.hall_motion_light") == "on"
    expose(hass, *EXPOSED)
    return demo_house


async def agent(home: Home, tools: str, exempt: Iterable[str] = EXEMPT) -> Agent:
    """An agent with our tools or Assist's, the harmless scripts exempt."""
    options: dict[str, Any] = {CONF_EXEMPT_ENTITIES: list(exempt)}
    if tools == ASSIST:
        options |= {CONF_HOME_TOOLS: False, CONF_LLM_HASS_API: ["assist"]}
    return await async_setup_agent(home.hass, home.worker.info.path, **options)


# --- The sweep: every everyday action of every exposed entity --------------------------------

# A value for each field an everyday action needs (options are taken from the entity).
SAMPLES: Final[dict[str, Any]] = {
    "brightness_pct": 40,
    "color_name": "blue",
    "color_temp_kelvin": 3000,
    "position": 40,
    "tilt_position": 40,
    "percentage": 50,
    "oscillating": True,
    "direction": "reverse",
    "volume_level": 0.25,
    "is_volume_muted": True,
    "humidity": 45,
    "duration": "00:10:00",
    "time": "06:30:00",
}
OPTIONS: Final[dict[str, str]] = {
    "option": "options",
    "preset_mode": "preset_modes",
    "hvac_mode": "hvac_modes",
    "fan_mode": "fan_modes",
    "fan_speed": "fan_speed_list",
    "mode": "available_modes",
    "source": "source_list",
    "sound_mode": "sound_mode_list",
    "swing_mode": "swing_modes",
    "swing_horizontal_mode": "swing_horizontal_modes",
}
# Actions whose one field Home Assistant's descriptions leave optional, but that need it.
NEEDS_DATA: Final = frozenset(
    {
        "set_hvac_mode",
        "set_preset_mode",
        "set_fan_mode",
        "set_humidity",
        "set_temperature",
        "set_datetime",
        "select_sound_mode",
    }
)
# Calls asked after the entity's others, per domain: Home Assistant changes only a running
# timer (started here for ten minutes: one of no duration of its own does not run), by no
# more than it was started for.
AFTER_THE_OTHERS: Final[dict[str, tuple[tuple[str, dict[str, Any]], ...]]] = {
    "timer": (("start", {"duration": "00:10:00"}), ("change", {"duration": "-00:05:00"})),
}
# The actions asked only there.
ONLY_AFTER_THE_OTHERS: Final = frozenset({("timer", "change")})
# The light's extra everyday variants (a brightness, a colour) besides a plain turn-on.
LIGHT_VARIANTS: Final = ({"brightness_pct": 40}, {"color_name": "blue"})


def values(current: State, field: str) -> Iterator[Any]:
    """A value for the field of an action on the entity: the options it lists, a sample,
    or the middle of its range."""
    if field in OPTIONS:
        yield from current.attributes.get(OPTIONS[field]) or []
    elif field == "temperature":
        low = float(current.attributes.get("min_temp", 7))
        high = float(current.attributes.get("max_temp", 35))
        yield min(max(20.0, low), high)
    elif field == "value":
        low = float(current.attributes.get("min", 0))
        high = float(current.attributes.get("max", 100))
        yield (low + high) / 2
    elif field in SAMPLES:
        yield SAMPLES[field]


async def everyday_calls(hass: HomeAssistant, exposed: Iterable[str] = EXPOSED) -> list[Asking]:
    """Every action our tools offer on each exposed entity, with each option it lists."""
    catalog = build_catalog(hass, await async_get_all_descriptions(hass))
    calls: list[Asking] = []
    for entity_id in exposed:
        current = hass.states.get(entity_id)
        assert current is not None, entity_id
        for service, action in sorted(catalog.get(current.domain, {}).items()):
            if (
                not action_supported(action, current)
                or (current.domain, service) in ONLY_AFTER_THE_OTHERS
            ):
                continue
            required = [name for name, spec in action.fields.items() if spec.required]
            if not required and service not in NEEDS_DATA:
                calls.append(our_call(service, entity_id))
                if current.domain == "light" and service == "turn_on":
                    calls += [our_call(service, entity_id, **data) for data in LIGHT_VARIANTS]
                continue
            if len(required) > 1 or "code" in required:
                continue
            field = required[0] if required else next(iter(action.fields))
            if not field_supported(action.fields[field], current):
                continue
            calls += [
                our_call(service, entity_id, **{field: value}) for value in values(current, field)
            ]
        calls += [
            our_call(service, entity_id, **data)
            for service, data in AFTER_THE_OTHERS.get(current.domain, ())
            if service in catalog.get(current.domain, {})
        ]
    return calls


def intents_by_name(hass: HomeAssistant, exposed: Iterable[str]) -> list[Asking]:
    """Assist's everyday intents on each of these entities, by its name."""
    calls: list[Asking] = []
    for entity_id in exposed:
        current = hass.states.get(entity_id)
        assert current is not None, entity_id
        name = current.name
        features = current.attributes.get("supported_features", 0)
        domain = current.domain
        switched = domain in SWITCHED_BY_ASSIST
        calls += [
            *([intent_call("HassTurnOn", name=name)] if switched or domain == "scene" else []),
            *(
                intent_call(intent_type, name=name, **slots)
                for intent_type, slots in ASSIST_INTENTS.get(domain, ())
                if features & (needed := NEEDED_FEATURES.get(intent_type, 0)) == needed
            ),
            *([intent_call("HassTurnOff", name=name)] if switched else []),
        ]
    return calls


def assist_calls(hass: HomeAssistant) -> list[Asking]:
    """Assist's everyday intents on each exposed entity by its name, on areas and on all."""
    calls = intents_by_name(hass, EXPOSED)
    for area, domains in (
        ("Living Room", ["light", "cover"]),
        ("Kitchen", ["light", "cover", "switch"]),
        ("Bedroom", ["light"]),
    ):
        calls += [intent_call("HassTurnOn", area=area), intent_call("HassTurnOff", area=area)]
        calls += [
            intent_call(intent_type, area=area, domain=[domain])
            for domain in domains
            for intent_type in ("HassTurnOn", "HassTurnOff")
        ]
    return [
        *calls,
        intent_call("HassTurnOff", name="all", domain=["light"]),
        intent_call("HassTurnOn", name="all", domain=["light"]),
        intent_call("HassTurnOff", name="all", domain=["cover"], device_class=["blind"]),
        intent_call("HassTurnOn", name="all", domain=["cover"], device_class=["shade"]),
        intent_call("HassTurnOff", name="all", domain=["media_player"]),
        intent_call("HassTurnOff", name="all", domain=["fan"]),
        intent_call("script__bedtime"),
        intent_call("script__morning"),
        intent_call("script__lock_up"),
        intent_call("HassCancelAllTimers"),
        intent_call("HassStopMoving", name="Living Room Window"),
    ]


# The domains Assist's HassTurnOn and HassTurnOff switch (a scene is only turned on).
SWITCHED_BY_ASSIST: Final = frozenset(
    {
        "alarm_control_panel",
        "climate",
        "cover",
        "fan",
        "humidifier",
        "input_boolean",
        "light",
        "lock",
        "media_player",
        "script",
        "switch",
    }
)
# What an intent needs its entity to support (the Ecobee keeps a range, not one temperature).
NEEDED_FEATURES: Final = {
    "HassSetPosition": CoverEntityFeature.SET_POSITION,
    "HassClimateSetTemperature": ClimateEntityFeature.TARGET_TEMPERATURE,
    "HassMediaPause": MediaPlayerEntityFeature.PAUSE,
    "HassMediaUnpause": MediaPlayerEntityFeature.PLAY,
    "HassMediaNext": MediaPlayerEntityFeature.NEXT_TRACK,
    "HassSetVolume": MediaPlayerEntityFeature.VOLUME_SET,
    "HassFanSetSpeed": FanEntityFeature.SET_SPEED,
}
ASSIST_INTENTS: Final[dict[str, list[tuple[str, dict[str, Any]]]]] = {
    "light": [("HassLightSet", {"brightness": 30}), ("HassLightSet", {"color": "red"})],
    "cover": [("HassSetPosition", {"position": 30})],
    "climate": [("HassClimateSetTemperature", {"temperature": 19})],
    "media_player": [
        ("HassMediaPause", {}),
        ("HassMediaUnpause", {}),
        ("HassMediaNext", {}),
        ("HassSetVolume", {"volume_level": 30}),
    ],
    "vacuum": [("HassVacuumStart", {}), ("HassVacuumReturnToBase", {})],
    "fan": [("HassFanSetSpeed", {"percentage": 40})],
}


def exactly(name: str, arguments: dict[str, Any]) -> Callable[[SeenRequest], str]:
    """A scripted answer calling our tool of this very name (`number`, not `input_number`)."""

    def write(request: SeenRequest) -> str:
        assert name in [spec.name for spec in request.tools], name
        return answer(call(name, **arguments))

    return write


async def sweep(
    home: Home,
    tools: str,
    calls: list[Asking],
    *,
    exempt: Iterable[str] = EXEMPT,
    sensitive: Iterable[str] | None = None,
) -> list[str]:
    """Ask for each call in turn, in one house (each call runs, or is held, and the next
    finds the house as it left it); return the ids of the held calls, with their question.
    Nothing sensitive (this house's SENSITIVE unless told) changes."""
    hass = home.hass
    asking = await agent(home, tools, exempt)
    watched = tuple(SENSITIVE if sensitive is None else sensitive)
    held: list[str] = []
    for _, tool, arguments in calls:
        result = await ask_changing_nothing(
            Talk(asking, home.worker, home.person),
            watched,
            tool_call(tool, **arguments) if tools == ASSIST else exactly(tool, arguments),
        )
        if asked(result):
            held.append(f"{request_id((tools, tool, arguments))}: {speech(result)}")
        else:
            assert not any("error" in found for found in tool_results(hass, result)), (
                tool,
                arguments,
                tool_results(hass, result),
            )
    return held


SENSITIVE: Final = (FRONT_DOOR, BACK_DOOR, GARAGE, ALARM)
LOCKS_AT_NIGHT: Final = "this may lock Front Door and Kitchen Door"
LOCK_UP: Final = (
    "Run Lock up (this will lock Front Door and Kitchen Door and close Garage Door and arm "
    "(night) Security)? Say yes to confirm."
)
# The held calls of our tools on the demo's garage door and alarm panel, in the sweep's order
# (every house built on the demo has them). The garage door starts closed: closing it is said
# "already closed", with no question.
HELD_GARAGE_AND_ALARM: Final = [
    "cover-open_cover-cover.garage_door: Open Garage Door? Say yes to confirm.",
    "alarm_control_panel-alarm_arm_away-alarm_control_panel.security: "
    "Arm (away) Security? Say yes to confirm.",
    "alarm_control_panel-alarm_arm_home-alarm_control_panel.security: "
    "Arm (home) Security? Say yes to confirm.",
    "alarm_control_panel-alarm_arm_night-alarm_control_panel.security: "
    "Arm (night) Security? Say yes to confirm.",
    "alarm_control_panel-alarm_arm_vacation-alarm_control_panel.security: "
    "Arm (vacation) Security? Say yes to confirm.",
    "alarm_control_panel-alarm_disarm-alarm_control_panel.security: "
    "Disarm Security? Say yes to confirm.",
]
# Every call of our tools that is held, in the order of the sweep: the locks, the garage door
# and the alarm; guest mode, which "at 23:00, lock the doors unless guests" reads; the
# "Lights out, lock up" bed light turned off (from on: its toggle; it starts off, so turning
# it off first changes nothing); the "Lock up" script, and stopping it. The front door starts
# locked: locking it is said "already locked", with no question.
HELD_OF_OUR_TOOLS: Final = [
    "lock-unlock-lock.front_door: Unlock Front Door? Say yes to confirm.",
    "lock-lock-lock.kitchen_door: Lock Kitchen Door? Say yes to confirm.",
    "lock-unlock-lock.kitchen_door: Unlock Kitchen Door? Say yes to confirm.",
    *HELD_GARAGE_AND_ALARM,
    f"light-toggle-light.bed_light: Toggle Bed Light ({LOCKS_AT_NIGHT})? Say yes to confirm.",
    f"input_boolean-toggle-input_boolean.guest_mode: Toggle Guest mode ({LOCKS_AT_NIGHT})? "
    "Say yes to confirm.",
    f"input_boolean-turn_off-input_boolean.guest_mode: Turn off Guest mode ({LOCKS_AT_NIGHT})? "
    "Say yes to confirm.",
    f"input_boolean-turn_on-input_boolean.guest_mode: Turn on Guest mode ({LOCKS_AT_NIGHT})? "
    "Say yes to confirm.",
    "script-turn_off-script.lock_up: Turn off Lock up? Say yes to confirm.",
    f"script-turn_on-script.lock_up: {LOCK_UP}",
]


async def test_every_everyday_action_of_our_tools_runs_at_once_but_what_secures(
    hass: HomeAssistant, home: Home
) -> None:
    calls = await everyday_calls(hass)
    assert len(calls) > 150

    held = await sweep(home, OURS, calls)

    assert held == HELD_OF_OUR_TOOLS


# Locking the locked front door and closing the closed garage door are said "already", as
# our tools say them: no question.
HELD_OF_ASSIST: Final = [
    "HassTurnOff-Front Door: Unlock Front Door? Say yes to confirm.",
    "HassTurnOn-Kitchen Door: Lock Kitchen Door? Say yes to confirm.",
    "HassTurnOff-Kitchen Door: Unlock Kitchen Door? Say yes to confirm.",
    "HassTurnOn-Garage Door: Open Garage Door? Say yes to confirm.",
    "HassTurnOn-Security: Turn on Security? Say yes to confirm.",
    "HassTurnOff-Security: Turn off Security? Say yes to confirm.",
    # The bed light was turned on just before: turning it off at night may lock up.
    "HassTurnOff-Bed Light: Turn off Bed Light? Say yes to confirm.",
    "HassTurnOn-Guest mode: Turn on Guest mode? Say yes to confirm.",
    "HassTurnOff-Guest mode: Turn off Guest mode? Say yes to confirm.",
    f"HassTurnOn-Lock up: {LOCK_UP}",
    "HassTurnOff-Lock up: Turn off Lock up? Say yes to confirm.",
    "HassTurnOff-Bedroom: Turn off Bed Light? Say yes to confirm.",
    "HassTurnOff-Bedroom-['light']: Turn off Bed Light? Say yes to confirm.",
    "HassTurnOff-all-['light']: Turn off Bed Light? Say yes to confirm.",
    f"script__lock_up: {LOCK_UP}",
]


async def test_every_everyday_intent_runs_at_once_but_what_secures(
    hass: HomeAssistant, home: Home
) -> None:
    held = await sweep(home, ASSIST, assist_calls(hass))

    assert held == HELD_OF_ASSIST


# --- Everyday requests, each in a house of its own, and what must still ask ---------------------


async def ask(home: Home, tools: str, tool: str, arguments: dict[str, Any]) -> ConversationResult:
    """Ask the agent (the harmless scripts exempt) to make the call: nothing sensitive changes."""
    hass = home.hass
    before = {entity_id: state(hass, entity_id) for entity_id in SENSITIVE}
    home.worker.will_write(
        tool_call(tool, **arguments) if tools == ASSIST else exactly(tool, arguments)
    )
    result = await (await agent(home, tools)).ask("do it", context=home.person)
    await hass.async_block_till_done()
    assert {entity_id: state(hass, entity_id) for entity_id in SENSITIVE} == before
    return result


async def runs_at_once(home: Home, everyday: Request) -> None:
    """The request runs without a question, and what it changes reads what it should."""
    tools, tool, arguments, changed, expected = everyday
    result = await ask(home, tools, tool, arguments)
    assert not asked(result), (speech(result), tool_results(home.hass, result))
    assert read(home.hass, changed) == expected


async def still_asks(home: Home, sensitive: Asking) -> None:
    result = await ask(home, *sensitive)
    assert asked(result), (speech(result), tool_results(home.hass, result))


EVERYDAY: Final[list[Request]] = [
    ours("turn_on", BED_LIGHT, "on"),
    ours("turn_on", "light.kitchen_lights", "on", brightness_pct=60),
    ours("turn_off", "light.living_room", "off"),
    ours(
        "turn_on",
        "light.office_rgbw_lights",
        (0, 0, 255),
        colour_of("light.office_rgbw_lights"),
        color_name="blue",
    ),
    ours("close_cover", BLINDS, "closing"),
    ours("open_cover", SHADE, "open"),
    ours("set_cover_position", BLINDS, "closing", position=30),
    sets("set_temperature", THERMOSTAT, temperature=21),
    sets("set_preset_mode", "climate.ecobee", preset_mode="eco"),
    ours("set_hvac_mode", "climate.heatpump", "off", hvac_mode="off"),
    ours("turn_on", "fan.living_room_fan", "on", percentage=50),
    ours("turn_on", BATHROOM_FAN, "active", "timer.bathroom_fan"),
    ours("media_pause", TV, "paused"),
    ours("media_play", TV, "playing"),
    sets("volume_set", RADIO, volume_level=0.4),
    ours("turn_off", "media_player.bedroom", "off"),
    ours("start", VACUUM, "cleaning"),
    ours("turn_on", COFFEE, "1", "counter.coffee_cups"),
    ours("turn_off", "switch.decorative_lights", "off"),
    ours("set_value", "input_number.comfort_temperature", 23, temperature(THERMOSTAT), value=23),
    ours("increment", "counter.laundry_loads", "1"),
    ours("start", "timer.laundry", "active"),
    ours("cancel", "timer.bathroom_fan", "idle"),
    ours("turn_on", "scene.movie", "closing", BLINDS),
    ours("turn_on", "scene.evening", "on", "light.living_room"),
    ours("turn_on", "script.morning", "open", SHADE),
    ours("turn_on", "script.bedtime", "off", "light.kitchen_lights"),
    assist("HassTurnOn", BED_LIGHT, "on", name="Bed Light"),
    assist("HassLightSet", "light.kitchen_lights", "on", name="Kitchen Lights", brightness=30),
    assist("HassLightSet", colour_of(BED_LIGHT), (255, 0, 0), name="Bed Light", color="red"),
    assist("HassTurnOff", "light.kitchen_lights", "off", area="Kitchen", domain=["light"]),
    assist("HassTurnOff", BLINDS, "closing", name="Living Room Window"),
    assist("HassSetPosition", BLINDS, "closing", name="Living Room Window", position=20),
    assist("HassClimateSetTemperature", temperature(THERMOSTAT), 20, name="Hvac", temperature=20),
    assist("HassMediaPause", TV, "paused", name="Living Room"),
    assist("HassSetVolume", volume(RADIO), 0.3, name="Kitchen", volume_level=30),
    assist("HassVacuumStart", VACUUM, "cleaning", name="Demo vacuum 0 ground floor"),
    assist("HassTurnOn", "light.kitchen_lights", "on", name="Evening"),
    assist("HassTurnOn", COFFEE, "on", name="Coffee plug"),
    assist("HassTurnOn", SHADE, "open", name="Morning"),
]


@pytest.mark.parametrize("everyday", EVERYDAY, ids=request_id)
async def test_an_everyday_request_runs_at_once(home: Home, everyday: Request) -> None:
    await runs_at_once(home, everyday)


MUST_ASK: Final[list[Asking]] = [
    our_call("unlock", FRONT_DOOR),
    our_call("lock", BACK_DOOR),
    our_call("open_cover", GARAGE),
    our_call("alarm_arm_away", ALARM),
    our_call("alarm_disarm", ALARM),
    our_call("turn_on", "script.lock_up"),
    # "At 23:00, lock the doors unless we have guests" reads guest mode.
    our_call("turn_off", GUESTS),
    our_call("turn_on", GUESTS),
    # "Lights out, lock up": the bed light goes from on to anything.
    our_call("toggle", BED_LIGHT),
    intent_call("HassTurnOff", name="Front Door"),
    intent_call("HassTurnOn", name="Garage Door"),
    intent_call("HassTurnOn", name="Lock up"),
    intent_call("script__lock_up"),
    intent_call("HassTurnOff", name="Guest mode"),
]


@pytest.mark.parametrize("sensitive", MUST_ASK, ids=request_id)
async def test_what_locks_opens_or_arms_still_asks(home: Home, sensitive: Asking) -> None:
    await still_asks(home, sensitive)


async def test_closing_the_garage_door_once_open_still_asks(
    hass: HomeAssistant, home: Home
) -> None:
    """It starts closed (closing it is said "already closed"); open, closing it is asked."""
    garage = hass.states.get(GARAGE)
    assert garage is not None
    hass.states.async_set(GARAGE, "open", garage.attributes)

    await still_asks(home, our_call("close_cover", GARAGE))


async def test_turning_off_the_bed_light_late_still_asks(hass: HomeAssistant, home: Home) -> None:
    """Once it is on, turning the bed light off sets off "Lights out, lock up"."""
    await hass.services.async_call("light", "turn_on", {"entity_id": BED_LIGHT}, blocking=True)

    await still_asks(home, our_call("turn_off", BED_LIGHT))
    await still_asks(home, intent_call("HassTurnOff", name="Bed Light"))
    await still_asks(home, intent_call("HassLightSet", name="Bed Light", brightness=0))


# --- Over-holds found, each class with its neighbours that must still ask ----------------------
# In the red-team house (the front door locked; the bed light off, unless `on` says it is on).

LOCK_FRONT_DOOR: Final = {"action": "lock.lock", "target": {"entity_id": FRONT_DOOR}}
TURN_IT_OFF: Final = {"action": "light.turn_off", "target": {"entity_id": BED_LIGHT}}


def bed_light_changes(**how: Any) -> dict[str, Any]:
    return {"trigger": "state", "entity_id": [BED_LIGHT], **how}


def when(trigger: dict[str, Any], *actions: dict[str, Any]) -> dict[str, Any]:
    name = "_".join(f"{key}_{value}" for key, value in trigger.items() if key != "entity_id")
    return {"id": name, "alias": name, "triggers": [trigger], "actions": list(actions)}


FROM_ON: Final = when(bed_light_changes(**{"from": "on"}), LOCK_FRONT_DOOR)
# (the house's automations, whether the bed light is on, our call on it, held)
LEAVING: Final[list[tuple[list[dict[str, Any]], bool, dict[str, Any], bool]]] = [
    # A state trigger's `from:` (with no `to:`) fires only for a change from those states: a
    # light turned on from off does not go from on. [held before: every change of it counted]
    ([FROM_ON], False, {}, False),
    ([when(bed_light_changes(**{"from": ["on"], "to": None}), LOCK_FRONT_DOOR)], False, {}, False),
    (
        [when(bed_light_changes(**{"from": "on", "not_to": "unavailable"}), LOCK_FRONT_DOOR)],
        False,
        {},
        False,
    ),
    # Dimming a light that is on leaves it on: no change of its state at all.
    ([FROM_ON], True, {"brightness_pct": 30}, False),
    # What must still ask: a change from the state it has, ...
    ([when(bed_light_changes(**{"from": "off"}), LOCK_FRONT_DOOR)], False, {}, True),
    ([FROM_ON], True, {"action": "turn_off"}, True),
    # ... a turn-on that may end off (at 0 %: any of on and off), a toggle, ...
    ([FROM_ON], False, {"brightness_pct": 0}, True),
    ([FROM_ON], False, {"action": "toggle"}, True),
    # ... a light that another automation turns back off once it is on (from on), ...
    (
        [
            when(bed_light_changes(to="on"), TURN_IT_OFF),
            FROM_ON,
        ],
        False,
        {},
        True,
    ),
    # ... `from:` on an attribute, or `not_from:` (any state but those).
    (
        [when(bed_light_changes(**{"from": "on", "attribute": "brightness"}), LOCK_FRONT_DOOR)],
        False,
        {},
        True,
    ),
    ([when(bed_light_changes(not_from="on"), LOCK_FRONT_DOOR)], False, {}, True),
]


@pytest.mark.parametrize(
    ("automations", "on", "call", "held"),
    LEAVING,
    ids=[
        "from on: turned on",
        "from on to anything: turned on",
        "from on, not to unavailable: turned on",
        "from on: dimmed while on",
        "from off: turned on",
        "from on: turned off while on",
        "from on: turned on at 0%",
        "from on: toggled",
        "from on: turned on, which another automation turns off",
        "from on of an attribute: turned on",
        "not from on: turned on",
    ],
)
async def test_a_trigger_from_a_state_the_light_does_not_leave_is_not_set_off(
    hass: HomeAssistant,
    scene: Scene,
    automations: list[dict[str, Any]],
    on: bool,
    call: dict[str, Any],
    held: bool,
) -> None:
    service = "turn_on" if on else "turn_off"
    await hass.services.async_call("light", service, {"entity_id": BED_LIGHT}, blocking=True)
    await set_up_automations(hass, *automations)
    arguments = {"action": "turn_on", "entity_id": BED_LIGHT, **call}

    result = await scene.ask_ours_to_call("light", arguments)

    assert asked(result) is held, speech(result)
    assert state(hass, FRONT_DOOR) == "locked"


# (the house's automation on the bed light, Assist's HassLightSet slots, held)
LIGHT_SET: Final[list[tuple[dict[str, Any], dict[str, Any], bool]]] = [
    # HassLightSet turns the light on (core's handler calls light.turn_on with the brightness):
    # "when the bed light goes off, lock" is not set off by it. [held before: any state]
    (bed_light_changes(to="off"), {"brightness": 30}, False),
    (bed_light_changes(to="off"), {"color": "red"}, False),
    (bed_light_changes(to="off"), {"brightness": 1}, False),
    # A brightness of 0 turns it off; "when it goes on" is set off by any of them.
    (bed_light_changes(to="off"), {"brightness": 0}, True),
    (bed_light_changes(to="on"), {"brightness": 30}, True),
    (bed_light_changes(to="on"), {"color": "red"}, True),
    (bed_light_changes(attribute="brightness"), {"brightness": 30}, True),
]


@pytest.mark.parametrize(
    ("trigger", "slots", "held"),
    LIGHT_SET,
    ids=[
        "to off: brightness 30",
        "to off: red",
        "to off: brightness 1",
        "to off: brightness 0",
        "to on: brightness 30",
        "to on: red",
        "its brightness: brightness 30",
    ],
)
async def test_assists_light_set_leaves_the_light_on_unless_its_brightness_is_zero(
    hass: HomeAssistant, scene: Scene, trigger: dict[str, Any], slots: dict[str, Any], held: bool
) -> None:
    await set_up_automations(hass, when(trigger, LOCK_FRONT_DOOR))
    await hass.async_block_till_done()
    agent = await scene.assist_agent()

    result = await scene.ask_to_call(
        agent, "HassLightSet", {"name": "Bed Light", **slots}, answer("Done.")
    )

    assert asked(result) is held, speech(result)
    assert state(hass, FRONT_DOOR) == "locked"


# Conditions of the option that locks up, each judged below with a mode that takes it and one
# that does not.
NIGHT_OR_AWAY: Final[dict[str, Any]] = {
    "condition": "or",
    "conditions": [mode_is("Night"), mode_is("Away")],
}
NOT_HOME: Final[dict[str, Any]] = {"condition": "not", "conditions": [mode_is("Home")]}
NOT_HOME_OR_MOVIE: Final[dict[str, Any]] = {
    "condition": "not",
    "conditions": [mode_is("Home"), mode_is("Movie")],
}

# (the house modes automation's option that locks up, the mode selected, held)
EITHER: Final[list[tuple[str, dict[str, Any], str, bool]]] = [
    # `or` and `not` of what the new mode decides are judged as Home Assistant reads them:
    # "if Night or Away, lock up" is not taken when Home is selected. [held before]
    ("Night or Away: Home", NIGHT_OR_AWAY, "Home", False),
    ("not Home: Home", NOT_HOME, "Home", False),
    ("not Home or Movie: Movie", NOT_HOME_OR_MOVIE, "Movie", False),
    (
        "Night or Away, and a trigger id: Home",
        {"condition": "and", "conditions": [NIGHT_OR_AWAY, {"condition": "trigger", "id": "0"}]},
        "Home",
        False,
    ),
    # What must still ask: the modes that lock up, ...
    ("Night or Away: Away", NIGHT_OR_AWAY, "Away", True),
    ("not Home: Movie", NOT_HOME, "Movie", True),
    ("not Home or Movie: Away", NOT_HOME_OR_MOVIE, "Away", True),
    # ... and what the mode alone does not decide: another entity, the time.
    (
        "Night or no guests: Home",
        {
            "condition": "or",
            "conditions": [
                mode_is("Night"),
                {"condition": "state", "entity_id": GUESTS, "state": "off"},
            ],
        },
        "Home",
        True,
    ),
    (
        "not Home or before 6: Away",
        {
            "condition": "not",
            "conditions": [mode_is("Home"), {"condition": "time", "before": "06:00:00"}],
        },
        "Away",
        True,
    ),
]


@pytest.mark.parametrize(
    ("condition", "mode", "held"), [case[1:] for case in EITHER], ids=[case[0] for case in EITHER]
)
async def test_an_or_or_not_of_the_new_mode_is_judged(
    hass: HomeAssistant, scene: Scene, condition: dict[str, Any], mode: str, held: bool
) -> None:
    await set_up_the_house(
        hass, modes([mode_changes()], {"choose": [option(condition, MODE_LOCKS_UP)]})
    )

    await select(hass, scene, mode, held=held)
