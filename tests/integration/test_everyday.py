"""Everyday requests: harmless actions run at once, queries answer truthfully, nothing asks.

A demo home with what people talk to every day (lights, switches, fans, thermostats, blinds,
media players, vacuums, a shopping list, a scene, a script the user exempted), driven by a
scripted model that writes what a good model would write, with our own tools and with
Assist's. For each request: no question, the state really changed (or the answer carries the
true value), a sensible sentence, and no error logged by the integration. The last tests check
that what must still ask (a lock, a garage door) still does.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from datetime import timedelta
import logging
from pathlib import Path
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.local_agent.const import CONF_EXEMPT_ENTITIES
from custom_components.local_agent.const import CONF_HOME_TOOLS
from custom_components.local_agent.const import CONF_SENSITIVE_ENTITIES
from homeassistant.components import conversation
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.const import Platform
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import intent
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
from testing.demo_home import instant_demo
from testing.home_builder import async_add_script
from testing.home_builder import async_area
from testing.home_builder import async_expose_only
from testing.home_builder import async_place_in_area
from testing.turn import calls_in
from testing.turn import chat_log_of
from testing.turn import results_in

from .conftest import Agent
from .conftest import Talk
from .conftest import async_setup_agent
from .conftest import speech
from .scene import tool_call
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call

# Fewer than testing/demo_home.py's: the demo's number platform has a "Volume" of its own.
PLATFORMS = [
    Platform.CLIMATE,
    Platform.COVER,
    Platform.FAN,
    Platform.LIGHT,
    Platform.LOCK,
    Platform.MEDIA_PLAYER,
    Platform.SENSOR,
    Platform.SWITCH,
    Platform.VACUUM,
    Platform.WEATHER,
]
EXPOSED = (
    "climate.ecobee",
    "climate.heatpump",
    "climate.hvac",
    "cover.garage_door",
    "cover.hall_window",
    "cover.kitchen_window",
    "cover.living_room_window",
    "fan.ceiling_fan",
    "fan.living_room_fan",
    "light.bed_light",
    "light.kitchen_lights",
    "light.living_room_rgbww_lights",
    "lock.front_door",
    "media_player.kitchen",
    "media_player.living_room",
    "scene.evening",
    "script.movie_time",
    "sensor.outside_temperature",
    "switch.ac",
    "switch.decorative_lights",
    "todo.shopping_list",
    "vacuum.demo_vacuum_0_ground_floor",
    "weather.demo_weather_south",
)
SENSITIVE = ("lock.front_door", "cover.garage_door")


def keep_the_shopping_list_in(
    folder: Path, hass: HomeAssistant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keep the shopping list's file in the test's own folder, not in the shared test config."""
    config_path = hass.config.path

    def path(*parts: str) -> str:
        if parts == (".shopping_list.json",):
            return str(folder / parts[0])
        return config_path(*parts)

    monkeypatch.setattr(hass.config, "path", path)


async def async_set_up_a_shopping_list_in(
    folder: Path, hass: HomeAssistant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shopping list (todo.shopping_list) whose file is kept in `folder`."""
    keep_the_shopping_list_in(folder, hass, monkeypatch)
    shopping = MockConfigEntry(domain="shopping_list")
    shopping.add_to_hass(hass)
    assert await hass.config_entries.async_setup(shopping.entry_id)


@pytest.fixture
async def everyday_home(
    hass: HomeAssistant, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncGenerator[None]:
    """The demo home; Kitchen and Living Room areas; blinds that are no garage; a shopping
    list, a scene and a script (the agents below exempt it).

    The shopping list is kept in the test's own folder, not in the shared test config.
    """
    keep_the_shopping_list_in(tmp_path, hass, monkeypatch)
    entry = MockConfigEntry(domain="demo")
    entry.add_to_hass(hass)
    with instant_demo(PLATFORMS):
        assert await hass.config_entries.async_setup(entry.entry_id)
        shopping = MockConfigEntry(domain="shopping_list")
        shopping.add_to_hass(hass)
        assert await hass.config_entries.async_setup(shopping.entry_id)
        assert await async_setup_component(
            hass,
            "scene",
            {
                "scene": [
                    {
                        "name": "Evening",
                        "entities": {
                            "light.bed_light": {"state": "on", "brightness": 128},
                            "switch.decorative_lights": "off",
                        },
                    }
                ]
            },
        )
        await async_add_script(
            hass, "movie_time", "Movie time", "light.turn_off", "light.kitchen_lights"
        )
        await hass.async_block_till_done()
        async_expose_only(hass, EXPOSED)
        kitchen = async_area(hass, "Kitchen")
        living_room = async_area(hass, "Living Room")
        for entity_id in ("light.kitchen_lights", "cover.kitchen_window"):
            async_place_in_area(hass, entity_id, kitchen)
        for entity_id in ("light.living_room_rgbww_lights", "cover.living_room_window"):
            async_place_in_area(hass, entity_id, living_room)
        entities = er.async_get(hass)
        entities.async_update_entity("cover.living_room_window", device_class="blind")
        entities.async_update_entity("cover.hall_window", device_class="curtain")
        await hass.async_block_till_done()
        yield
        # Demo covers move on a timer: stop them so no timer outlives the test; a demo vacuum
        # sent home docks 30 s later.
        await hass.services.async_call("cover", "stop_cover", {"entity_id": "all"}, blocking=True)
        async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=31), fire_all=True)
        await hass.async_block_till_done()


ASSIST = {CONF_HOME_TOOLS: False, CONF_LLM_HASS_API: ["assist"]}


@pytest.fixture
async def our_agent(
    hass: HomeAssistant, everyday_home: None, scripted_worker: ScriptedWorker
) -> Agent:
    """An agent with our own tools; the user exempted the script."""
    return await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_EXEMPT_ENTITIES: ["script.movie_time"]}
    )


@pytest.fixture
async def assist_agent(
    hass: HomeAssistant, everyday_home: None, scripted_worker: ScriptedWorker
) -> Agent:
    """An agent with Assist's tools; the user exempted the script."""
    return await async_setup_agent(
        hass, scripted_worker.info.path, **{**ASSIST, CONF_EXEMPT_ENTITIES: ["script.movie_time"]}
    )


@dataclass(frozen=True)
class Request:
    """What the person says, what the model writes, what must be true afterwards.

    `states`: entity → its state after the turn ("a|b": either). `attributes`: entity →
    attributes it must have. `said`: the whole answer.
    """

    text: str
    writes: tuple[str | Callable[[SeenRequest], str], ...]
    said: str
    states: Mapping[str, str] = field(default_factory=dict)
    attributes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.text


def ours(tool: str, **arguments: Any) -> str:
    return answer(call(tool, **arguments))


def both(*calls: str) -> str:
    return answer("\n".join(calls))


KITCHEN, BED, LIVING = (
    "light.kitchen_lights",
    "light.bed_light",
    "light.living_room_rgbww_lights",
)
PLAYER = "media_player.living_room"
VACUUM = "vacuum.demo_vacuum_0_ground_floor"

# Plain actions of our own tools: the agent says what it did (one model round).
OUR_TOOLS: list[Request] = [
    Request(
        "turn on the bed light",
        (ours("light", action="turn_on", entity_id=BED),),
        "Turned on Bed Light.",
        {BED: "on"},
    ),
    Request(
        "turn off the kitchen and living room lights",
        (ours("light", action="turn_off", entity_id=[KITCHEN, LIVING]),),
        "Turned off Kitchen Lights and Living Room RGBWW Lights.",
        {KITCHEN: "off", LIVING: "off"},
    ),
    Request(
        "turn off the kitchen and living room lights, one call each",
        (
            both(
                call("light", action="turn_off", entity_id=KITCHEN),
                call("light", action="turn_off", entity_id=LIVING),
            ),
        ),
        "Turned off Kitchen Lights and Living Room RGBWW Lights.",
        {KITCHEN: "off", LIVING: "off"},
    ),
    Request(
        "bed light to 40 percent",
        (ours("light", action="turn_on", entity_id=BED, brightness_pct=40),),
        "Turned on Bed Light at 40%.",
        {BED: "on"},
        {BED: {"brightness": 102}},
    ),
    Request(
        "make the bed light red",
        (ours("light", action="turn_on", entity_id=BED, color_name="red"),),
        "Turned on Bed Light (red).",
        {BED: "on"},
        {BED: {"rgb_color": (255, 0, 0)}},
    ),
    Request(
        "warm white in the kitchen",
        (ours("light", action="turn_on", entity_id=KITCHEN, color_temp_kelvin=2700),),
        "Turned on Kitchen Lights (2700 K).",
        {KITCHEN: "on"},
        {KITCHEN: {"color_temp_kelvin": 2700}},
    ),
    Request(
        "switch on the AC",
        (ours("switch", action="turn_on", entity_id="switch.ac"),),
        "Turned on AC.",
        {"switch.ac": "on"},
    ),
    Request(
        "ceiling fan on",
        (ours("fan", action="turn_on", entity_id="fan.ceiling_fan"),),
        "Turned on Ceiling Fan.",
        {"fan.ceiling_fan": "on"},
    ),
    Request(
        "living room fan to half speed",
        (ours("fan", action="set_percentage", entity_id="fan.living_room_fan", percentage=50),),
        "Set the speed of Living Room Fan to 50%.",
        {"fan.living_room_fan": "on"},
        {"fan.living_room_fan": {"percentage": 50}},
    ),
    Request(
        "set the thermostat to 23 degrees",
        (ours("climate", action="set_temperature", entity_id="climate.hvac", temperature=23),),
        "Set the temperature of Hvac to 23°.",
        {"climate.hvac": "cool"},
        {"climate.hvac": {"temperature": 23}},
    ),
    Request(
        "heat pump off",
        (ours("climate", action="turn_off", entity_id="climate.heatpump"),),
        "Turned off HeatPump.",
        {"climate.heatpump": "off"},
    ),
    Request(
        "open the living room blinds",
        (ours("cover", action="open_cover", entity_id="cover.living_room_window"),),
        "Opened Living Room Window.",
        {"cover.living_room_window": "open|opening"},
    ),
    Request(
        "close the kitchen window blind",
        (ours("cover", action="close_cover", entity_id="cover.kitchen_window"),),
        "Kitchen Window: already closed.",  # the demo's kitchen blind starts closed
        {"cover.kitchen_window": "closed|closing"},
    ),
    Request(
        "hall curtains to 50 percent",
        (ours("cover", action="set_cover_position", entity_id="cover.hall_window", position=50),),
        "Set the position of Hall Window to 50%.",
        {"cover.hall_window": "open|opening"},
    ),
    Request(
        "pause the living room",
        (ours("media_player", action="media_pause", entity_id=PLAYER),),
        "Paused Living Room.",
        {PLAYER: "paused"},
    ),
    Request(
        "next song in the kitchen",
        (ours("media_player", action="media_next_track", entity_id="media_player.kitchen"),),
        "Skipped to the next track on Kitchen.",
        {"media_player.kitchen": "playing"},
    ),
    Request(
        "living room volume to 30 percent",
        (ours("media_player", action="volume_set", entity_id=PLAYER, volume_level=0.3),),
        "Set the volume of Living Room to 30%.",
        {PLAYER: "playing"},
        {PLAYER: {"volume_level": 0.3}},
    ),
    Request(
        "mute the living room",
        (ours("media_player", action="volume_mute", entity_id=PLAYER, is_volume_muted=True),),
        "Muted Living Room.",
        {PLAYER: "playing"},
        {PLAYER: {"is_volume_muted": True}},
    ),
    Request(
        "unmute the living room",
        (ours("media_player", action="volume_mute", entity_id=PLAYER, is_volume_muted=False),),
        "Unmuted Living Room.",
        {PLAYER: "playing"},
        {PLAYER: {"is_volume_muted": False}},
    ),
    Request(
        "put milk on the shopping list",
        (ours("todo", action="add_item", entity_id="todo.shopping_list", item="milk"),),
        "Added milk to Shopping list.",
        {"todo.shopping_list": "1"},
    ),
    Request(
        "send the vacuum home",
        (ours("vacuum", action="return_to_base", entity_id=VACUUM),),
        "Sent Demo vacuum 0 ground floor back to base.",
        {VACUUM: "returning|docked"},
    ),
    Request(
        "vacuum on max",
        (ours("vacuum", action="set_fan_speed", entity_id=VACUUM, fan_speed="max"),),
        "Set the fan speed of Demo vacuum 0 ground floor to max.",
        {VACUUM: "docked"},
        {VACUUM: {"fan_speed": "max"}},
    ),
    Request(
        "heat pump to heating",
        (ours("climate", action="set_hvac_mode", entity_id="climate.hvac", hvac_mode="heat"),),
        "Set the mode of Hvac to heat.",
        {"climate.hvac": "heat"},
    ),
    Request(
        "ecobee between 20 and 25",
        (
            ours(
                "climate",
                action="set_temperature",
                entity_id="climate.ecobee",
                target_temp_low=20,
                target_temp_high=25,
            ),
        ),
        "Set the temperature of Ecobee to between 20° and 25°.",
        {"climate.ecobee": "heat_cool"},
        {"climate.ecobee": {"target_temp_low": 20, "target_temp_high": 25}},
    ),
    Request(
        "stop the living room blinds",
        (ours("cover", action="stop_cover", entity_id="cover.living_room_window"),),
        "Stopped Living Room Window.",
        {"cover.living_room_window": "open"},
    ),
    Request(
        "turn off the decorative lights",
        (ours("switch", action="turn_off", entity_id="switch.decorative_lights"),),
        "Turned off Decorative Lights.",
        {"switch.decorative_lights": "off"},
    ),
    Request(
        "toggle the bed light",
        (ours("light", action="toggle", entity_id=BED),),
        "Toggled Bed Light.",
        {BED: "on"},
    ),
    Request(
        "living room fan oscillating",
        (ours("fan", action="oscillate", entity_id="fan.living_room_fan", oscillating=True),),
        "Turned on oscillation of Living Room Fan.",
        {"fan.living_room_fan": "off"},
        {"fan.living_room_fan": {"oscillating": True}},
    ),
    Request(
        "kitchen music louder",
        (ours("media_player", action="volume_up", entity_id="media_player.kitchen"),),
        # The demo's Kitchen player starts at full volume: louder changes nothing.
        "Kitchen: already 100%.",
        {"media_player.kitchen": "playing"},
    ),
    Request(
        "start the vacuum",
        (ours("vacuum", action="start", entity_id=VACUUM),),
        "Started Demo vacuum 0 ground floor.",
        {VACUUM: "cleaning"},
    ),
    Request(
        "evening scene",
        (ours("scene", action="turn_on", entity_id="scene.evening"),),
        "Activated Evening.",
        {BED: "on", "switch.decorative_lights": "off"},
    ),
    Request(
        "movie time",
        (ours("script", action="turn_on", entity_id="script.movie_time"),),
        "Ran Movie time.",
        {KITCHEN: "off"},
    ),
    Request(
        "kitchen light off and pause the music in the living room",
        (
            both(
                call("light", action="turn_off", entity_id=KITCHEN),
                call("media_player", action="media_pause", entity_id=PLAYER),
            ),
        ),
        "Turned off Kitchen Lights and paused Living Room.",
        {KITCHEN: "off", PLAYER: "paused"},
    ),
]


def integration_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.levelno >= logging.ERROR and "local_agent" in record.name
    ]


async def ask(
    hass: HomeAssistant,
    agent: Agent,
    worker: ScriptedWorker,
    request: Request,
    person: Context,
) -> conversation.ConversationResult:
    return await Talk(agent, worker, person).say(request.text, "en", *request.writes)


def check_done(
    hass: HomeAssistant, request: Request, result: conversation.ConversationResult
) -> None:
    """No question, no failed call, every state and attribute as asked."""
    assert result.continue_conversation is False
    assert result.response.response_type is not intent.IntentResponseType.ERROR
    errors = [item for item in results_in(chat_log_of(hass, result)) if "error" in item]
    assert errors == []
    for entity_id, wanted in request.states.items():
        current = hass.states.get(entity_id)
        assert current is not None, entity_id
        assert current.state in wanted.split("|"), (entity_id, current.state)
    for entity_id, attributes in request.attributes.items():
        current = hass.states.get(entity_id)
        assert current is not None, entity_id
        for key, value in attributes.items():
            assert current.attributes.get(key) == value, (entity_id, key, current.attributes)


@pytest.mark.parametrize("request_", OUR_TOOLS, ids=[r.id for r in OUR_TOOLS])
async def test_our_tools_do_everyday_things_at_once(
    hass: HomeAssistant,
    our_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    caplog: pytest.LogCaptureFixture,
    request_: Request,
) -> None:
    result = await ask(hass, our_agent, scripted_worker, request_, person)

    assert speech(result) == request_.said
    check_done(hass, request_, result)
    assert len(scripted_worker.requests) == 1  # the agent said it itself
    assert integration_errors(caplog) == []


# Assist's tools: the model reads the result and answers (its answer is "Done.").
ASSIST_TOOLS: list[Request] = [
    Request(
        "turn on the bed light",
        (tool_call("HassTurnOn", name="Bed Light"), answer("Done.")),
        "Done.",
        {BED: "on"},
    ),
    Request(
        "turn off the lights in the kitchen",
        (tool_call("HassTurnOff", area="Kitchen", domain=["light"]), answer("Done.")),
        "Done.",
        {KITCHEN: "off", "cover.kitchen_window": "closed"},
    ),
    Request(
        "everything on in the living room",
        (tool_call("HassTurnOn", area="Living Room"), answer("Done.")),
        "Done.",
        {LIVING: "on", "cover.living_room_window": "open|opening"},
    ),
    Request(
        "close the blinds in the living room",
        (
            tool_call("HassTurnOff", area="Living Room", domain=["cover"], device_class=["blind"]),
            answer("Done."),
        ),
        "Done.",
        {"cover.living_room_window": "closed|closing"},
    ),
    Request(
        "bed light to 40 percent",
        (tool_call("HassLightSet", name="Bed Light", brightness=40), answer("Done.")),
        "Done.",
        {BED: "on"},
        {BED: {"brightness": 102}},
    ),
    Request(
        "bed light blue",
        (tool_call("HassLightSet", name="Bed Light", color="blue"), answer("Done.")),
        "Done.",
        {BED: "on"},
        {BED: {"rgb_color": (0, 0, 255)}},
    ),
    Request(
        "set the hvac to 22",
        (tool_call("HassClimateSetTemperature", name="Hvac", temperature=22), answer("Done.")),
        "Done.",
        {"climate.hvac": "cool"},
        {"climate.hvac": {"temperature": 22}},
    ),
    Request(
        "hall curtains to 60",
        (tool_call("HassSetPosition", name="Hall Window", position=60), answer("Done.")),
        "Done.",
        {"cover.hall_window": "open|opening"},
    ),
    Request(
        "pause the living room",
        (tool_call("HassMediaPause", name="Living Room"), answer("Done.")),
        "Done.",
        {PLAYER: "paused"},
    ),
    Request(
        "living room volume 50",
        (tool_call("HassSetVolume", name="Living Room", volume_level=50), answer("Done.")),
        "Done.",
        {PLAYER: "playing"},
        {PLAYER: {"volume_level": 0.5}},
    ),
    Request(
        "start the vacuum",
        (tool_call("HassVacuumStart", name="Demo vacuum 0 ground floor"), answer("Done.")),
        "Done.",
        {VACUUM: "cleaning"},
    ),
    Request(
        "add eggs to the shopping list",
        (tool_call("HassListAddItem", name="Shopping list", item="eggs"), answer("Done.")),
        "Done.",
        {"todo.shopping_list": "1"},
    ),
    Request(
        "evening scene",
        (tool_call("HassTurnOn", name="Evening"), answer("Done.")),
        "Done.",
        {BED: "on", "switch.decorative_lights": "off"},
    ),
    Request(
        "movie time",
        (tool_call("HassTurnOn", name="Movie time"), answer("Done.")),
        "Done.",
        {KITCHEN: "off"},
    ),
    Request(
        "heat pump off",
        (tool_call("HassTurnOff", name="HeatPump"), answer("Done.")),
        "Done.",
        {"climate.heatpump": "off"},
    ),
    Request(
        "living room fan to 30 percent",
        (tool_call("HassFanSetSpeed", name="Living Room Fan", percentage=30), answer("Done.")),
        "Done.",
        {"fan.living_room_fan": "on"},
    ),
    Request(
        "resume the music in the kitchen",
        (
            tool_call("HassMediaPause", name="Kitchen"),
            tool_call("HassMediaUnpause", name="Kitchen"),
            answer("Done."),
        ),
        "Done.",
        {"media_player.kitchen": "playing"},
    ),
    Request(
        "mute the kitchen",
        (tool_call("HassMediaPlayerMute", name="Kitchen"), answer("Done.")),
        "Done.",
        {"media_player.kitchen": "playing"},
        {"media_player.kitchen": {"is_volume_muted": True}},
    ),
    Request(
        "stop the living room blinds",
        (tool_call("HassStopMoving", name="Living Room Window"), answer("Done.")),
        "Done.",
        {"cover.living_room_window": "open"},
    ),
    Request(
        "send the vacuum home",
        (tool_call("HassVacuumReturnToBase", name="Demo vacuum 0 ground floor"), answer("Done.")),
        "Done.",
        {VACUUM: "returning"},
    ),
    Request(
        "start movie time",
        (tool_call("script__movie_time"), answer("Done.")),
        "Done.",
        {KITCHEN: "off"},
    ),
    Request(
        "fan and AC on",
        (
            lambda seen: answer(
                "\n".join(
                    tool_call("HassTurnOn", name=name)(seen).split("</think>\n\n")[1]
                    for name in ("Ceiling Fan", "AC")
                )
            ),
            answer("Done."),
        ),
        "Done.",
        {"fan.ceiling_fan": "on", "switch.ac": "on"},
    ),
]


@pytest.mark.parametrize("request_", ASSIST_TOOLS, ids=[r.id for r in ASSIST_TOOLS])
async def test_assist_tools_do_everyday_things_at_once(
    hass: HomeAssistant,
    assist_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    caplog: pytest.LogCaptureFixture,
    request_: Request,
) -> None:
    result = await ask(hass, assist_agent, scripted_worker, request_, person)

    assert speech(result) == request_.said
    check_done(hass, request_, result)
    assert integration_errors(caplog) == []


async def agent_calling(
    hass: HomeAssistant,
    worker: ScriptedWorker,
    tool: str,
    arguments: dict[str, Any],
    *then: str,
    our_tool: bool,
) -> Agent:
    """An agent with our tools (`our_tool`) or Assist's whose model calls `tool`, then
    writes `then`."""
    agent = await async_setup_agent(hass, worker.info.path, **({} if our_tool else ASSIST))
    worker.will_write(ours(tool, **arguments) if our_tool else tool_call(tool, **arguments), *then)
    return agent


# Questions: the tool result carries the true value; nothing is asked, nothing changes.
QUESTIONS: list[tuple[str, dict[str, Any], str, str]] = [
    ("is the front door locked?", {"entity_id": "lock.front_door"}, "get_state", "locked"),
    ("is the garage door open?", {"entity_id": "cover.garage_door"}, "get_state", "closed"),
    ("how warm is it outside?", {"entity_id": "sensor.outside_temperature"}, "get_state", "15.6"),
    ("what's the weather?", {"entity_id": "weather.demo_weather_south"}, "get_state", "sunny"),
    ("what is on my shopping list?", {"entity_id": "todo.shopping_list"}, "get_state", "'0'"),
    ("is the front door locked?", {"name": "Front Door"}, "GetLiveContext", "locked"),
    ("what's on in the house?", {}, "GetLiveContext", "Front Door"),
    ("what's on the shopping list?", {"todo_list": "Shopping list"}, "todo__get_items", "[]"),
]


@pytest.mark.parametrize(
    ("text", "arguments", "tool", "truth"), QUESTIONS, ids=[f"{q[2]}: {q[0]}" for q in QUESTIONS]
)
async def test_questions_are_answered_without_a_question(
    hass: HomeAssistant,
    everyday_home: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    caplog: pytest.LogCaptureFixture,
    text: str,
    arguments: dict[str, Any],
    tool: str,
    truth: str,
) -> None:
    agent = await agent_calling(
        hass,
        scripted_worker,
        tool,
        arguments,
        answer("Here is what I found."),
        our_tool=tool == "get_state",
    )
    before = {entity_id: hass.states.get(entity_id) for entity_id in EXPOSED}

    result = await agent.ask(text, context=person)

    assert speech(result) == "Here is what I found."
    assert result.continue_conversation is False
    results = results_in(chat_log_of(hass, result))
    assert len(results) == 1
    assert "error" not in results[0], results
    assert truth in str(results[0])
    assert {e: hass.states.get(e) for e in EXPOSED} == before
    assert len(scripted_worker.requests) == 2  # the model answered from the result
    assert integration_errors(caplog) == []


async def test_a_state_changed_between_turns_is_what_the_next_turn_reads(
    hass: HomeAssistant, our_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """The agent prepares the next turn while the person listens; a light switched by hand
    meanwhile must not be read as it was."""
    scripted_worker.will_write(ours("light", action="turn_on", entity_id=BED))
    first = await our_agent.ask("bed light on", context=person)
    assert speech(first) == "Turned on Bed Light."
    await hass.services.async_call("light", "turn_off", {"entity_id": BED}, blocking=True)
    scripted_worker.will_write(ours("get_state", entity_id=BED), answer("It is off."))

    await our_agent.ask("is the bed light on?", conversation_id=first.conversation_id)

    second = scripted_worker.requests[1]
    results = results_in(chat_log_of(hass, first))
    assert results[-1]["entities"][0]["state"] == "off"
    # The prompt of the question shows the light as it is now.
    bed_lines = [line for line in second.dynamic_prompt.splitlines() if BED in line]
    assert bed_lines, second.dynamic_prompt
    assert "off" in bed_lines[-1], bed_lines


SENSITIVE_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("lock", {"action": "unlock", "entity_id": "lock.front_door"}, "Unlock Front Door?"),
    ("cover", {"action": "open_cover", "entity_id": "cover.garage_door"}, "Open Garage Door?"),
    ("HassTurnOff", {"name": "Front Door"}, "Unlock Front Door?"),
    ("HassTurnOn", {"name": "Garage Door"}, "Open Garage Door?"),
]

each_sensitive_call = pytest.mark.parametrize(
    ("tool", "arguments", "question"), SENSITIVE_CALLS, ids=[c[2] for c in SENSITIVE_CALLS]
)


@each_sensitive_call
async def test_what_is_sensitive_still_asks(
    hass: HomeAssistant,
    everyday_home: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    tool: str,
    arguments: dict[str, Any],
    question: str,
) -> None:
    agent = await agent_calling(
        hass, scripted_worker, tool, arguments, our_tool=tool in {"lock", "cover"}
    )
    before = {entity_id: hass.states.get(entity_id) for entity_id in SENSITIVE}

    result = await agent.ask("do it", context=person)

    assert speech(result) == f"{question} Say yes to confirm."
    assert result.continue_conversation is True
    assert {e: hass.states.get(e) for e in SENSITIVE} == before
    assert calls_in(chat_log_of(hass, result))


@each_sensitive_call
async def test_a_yes_does_it_and_says_so(
    hass: HomeAssistant,
    everyday_home: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    caplog: pytest.LogCaptureFixture,
    tool: str,
    arguments: dict[str, Any],
    question: str,
) -> None:
    """The confirmed call runs and the runner's check of what really happened accepts a
    door that is still moving."""
    agent = await agent_calling(
        hass, scripted_worker, tool, arguments, our_tool=tool in {"lock", "cover"}
    )
    asked = await agent.ask("do it", context=person)
    assert speech(asked) == f"{question} Say yes to confirm."

    done = await agent.ask("yes", conversation_id=asked.conversation_id, context=person)
    await hass.async_block_till_done()

    assert speech(done) == f"Done: {question[:1].lower()}{question[1:-1]}."
    assert done.continue_conversation is False
    changed = "lock.front_door" if "Front Door" in question else "cover.garage_door"
    assert hass.states.get(changed).state in {"unlocked", "unlocking", "open", "opening"}  # type: ignore[union-attr]
    assert integration_errors(caplog) == []


@pytest.mark.parametrize(
    ("language", "colour"),
    [
        ("de", "Blau"),
        ("fr", "bleue"),
        ("es", "azul"),
        ("it", "blu"),
        ("nl", "blauw"),
        ("pt", "azul"),
    ],
)
async def test_assist_tools_take_a_colour_in_the_conversation_language(
    hass: HomeAssistant,
    assist_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    colour: str,
) -> None:
    # "mach das Bettlicht blau": Home Assistant's HassLightSet takes English colour names only.
    scripted_worker.will_write(
        tool_call("HassLightSet", name="Bed Light", color=colour), answer("Ok.")
    )

    result = await assist_agent.ask("bed light blue", context=person, language=language)

    request = Request("", (), "Ok.", {BED: "on"}, {BED: {"rgb_color": (0, 0, 255)}})
    check_done(hass, request, result)


@pytest.mark.parametrize(
    ("language", "reply"),
    [
        ("de", "Ja, schließ sie auf"),
        ("fr", "oui, déverrouille-la"),
        ("es", "sí, desbloquéala"),
        ("it", "sì, sbloccala"),
        ("nl", "ja, ontgrendel hem"),
        ("pt", "sim, destranca-a"),
    ],
)
async def test_the_held_action_said_again_with_a_pronoun_does_it(
    hass: HomeAssistant,
    our_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    reply: str,
) -> None:
    scripted_worker.will_write(ours("lock", action="unlock", entity_id="lock.front_door"))
    asked = await our_agent.ask("unlock the front door", context=person, language=language)
    assert asked.continue_conversation is True

    done = await our_agent.ask(
        reply, conversation_id=asked.conversation_id, context=person, language=language
    )
    await hass.async_block_till_done()

    assert hass.states.get("lock.front_door").state in {"unlocked", "unlocking"}  # type: ignore[union-attr]
    assert len(scripted_worker.requests) == 1  # the reply never reached the model
    assert done.continue_conversation is False


async def test_a_held_colour_of_an_assist_tool_is_asked_about_in_the_conversation_language(
    hass: HomeAssistant, everyday_home: None, scripted_worker: ScriptedWorker, person: Context
) -> None:
    agent = await async_setup_agent(
        hass, scripted_worker.info.path, **{**ASSIST, CONF_SENSITIVE_ENTITIES: [BED]}
    )
    scripted_worker.will_write(tool_call("HassLightSet", name="Bed Light", color="blau"))

    asked = await agent.ask("Bettlicht blau", context=person, language="de")

    assert "(blau)" in speech(asked), speech(asked)
    assert "blue" not in speech(asked)


@pytest.mark.parametrize(
    ("colour", "shown"),
    [
        ("red", "'color_name': 'red'"),
        ("green", "'color_name': 'green'"),
        ("pink", "'color_name': 'pink'"),
    ],
)
async def test_a_lights_colour_is_read_by_its_name(
    hass: HomeAssistant,
    our_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    colour: str,
    shown: str,
) -> None:
    # "Welche Farbe hat das Bettlicht?": the model reads the colour's name, not only numbers
    # ("rgb_color": [255, 0, 0]) a small model turns into a wrong word.
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": BED, "color_name": colour}, blocking=True
    )
    scripted_worker.will_write(ours("get_state", entity_id=BED), answer("Rot."))

    result = await our_agent.ask("welche Farbe hat das Bettlicht?", context=person, language="de")

    results = results_in(chat_log_of(hass, result))
    assert shown in str(results[0]), results
    # The home list shows it so too.
    assert f"color_name={colour}" in scripted_worker.requests[-1].prompt.text


async def test_a_colour_no_name_fits_is_read_as_its_numbers(
    hass: HomeAssistant, our_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": BED, "hs_color": (200, 50)}, blocking=True
    )
    scripted_worker.will_write(ours("get_state", entity_id=BED), answer("Blau."))

    result = await our_agent.ask("welche Farbe hat das Bettlicht?", context=person, language="de")

    results = str(results_in(chat_log_of(hass, result))[0])
    assert "rgb_color" in results
    assert "color_name" not in results
