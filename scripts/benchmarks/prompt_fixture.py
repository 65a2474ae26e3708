"""A realistic Local Agent prompt for benchmarks: instructions and tool schemas, then the home.

The static part (system instructions + tool schemas) is what a prefix checkpoint covers; the
dynamic part (time, a home overview, the user's message) changes with every request.
"""

from __future__ import annotations

from custom_components.local_agent.engine.chat_format import PromptParts
from custom_components.local_agent.engine.chat_format import load_template
from custom_components.local_agent.engine.chat_format import render_split
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.engine.types import ToolSpec

INSTRUCTIONS = (
    "You are a voice assistant for Home Assistant. Answer questions about the world "
    "truthfully. Answer in plain text. Keep it simple and to the point. When controlling "
    "Home Assistant, always call the intent tools. Use HassTurnOn to lock and HassTurnOff to "
    "unlock a lock. When controlling a device, prefer passing just name and domain. When "
    "controlling an area, prefer passing just area name and domain. When a user asks to turn "
    "on all devices of a specific type, ask the user to specify an area, unless there is only "
    "one device of that type. Only use the tools when the user asks for something that needs "
    "them; for greetings and small talk answer directly. If no tool fits, say so briefly. "
    "Never invent entity names: use the names from the overview below."
)


def _tool(name: str, description: str, properties: dict[str, object], *required: str) -> ToolSpec:
    return ToolSpec(
        name=name,
        description=description,
        parameters={"type": "object", "properties": properties, "required": list(required)},
    )


_NAME = {"type": "string", "description": "Name of the device or entity"}
_AREA = {"type": "string", "description": "Name of the area"}
_FLOOR = {"type": "string", "description": "Name of the floor"}
_DOMAIN = {"type": "array", "items": {"type": "string"}, "description": "Entity domains"}
_DEVICE_CLASS = {"type": "array", "items": {"type": "string"}}

TOOLS: tuple[ToolSpec, ...] = (
    _tool(
        "HassTurnOn",
        "Turns on/opens/presses a device or entity. For locks, this performs a 'lock' action.",
        {"name": _NAME, "area": _AREA, "floor": _FLOOR, "domain": _DOMAIN},
    ),
    _tool(
        "HassTurnOff",
        "Turns off/closes a device or entity. For locks, this performs an 'unlock' action.",
        {"name": _NAME, "area": _AREA, "floor": _FLOOR, "domain": _DOMAIN},
    ),
    _tool(
        "HassLightSet",
        "Sets the brightness percentage or color of a light",
        {
            "name": _NAME,
            "area": _AREA,
            "brightness": {
                "type": "integer",
                "description": "The brightness percentage of the light between 0 and 100",
            },
            "color": {"type": "string", "description": "The color to set"},
        },
    ),
    _tool(
        "HassClimateSetTemperature",
        "Sets the target temperature of a climate device or entity",
        {"name": _NAME, "area": _AREA, "temperature": {"type": "number"}},
        "temperature",
    ),
    _tool(
        "HassMediaPause",
        "Pauses a media player",
        {"name": _NAME, "area": _AREA},
    ),
    _tool(
        "GetLiveContext",
        "Provides real-time information about the CURRENT state, value, or mode of devices, "
        "sensors, entities, or areas.",
        {"device_class": _DEVICE_CLASS},
    ),
)

_HOME = (
    ("Kitchen", "light.kitchen", "Kitchen Light", "off"),
    ("Kitchen", "light.kitchen_counter", "Counter Lights", "on (brightness 60%)"),
    ("Kitchen", "sensor.kitchen_temperature", "Kitchen Temperature", "21.4 °C"),
    ("Living Room", "light.living_room", "Living Room Lamp", "on (brightness 80%)"),
    ("Living Room", "media_player.living_room_tv", "Living Room TV", "playing"),
    ("Living Room", "climate.living_room", "Thermostat", "heat (target 21 °C, current 20.5 °C)"),
    ("Living Room", "cover.living_room_blinds", "Blinds", "open (position 100)"),
    ("Bedroom", "light.bedroom", "Bedroom Lamp", "off"),
    ("Bedroom", "fan.bedroom", "Ceiling Fan", "off"),
    ("Hallway", "lock.front_door", "Front Door", "locked"),
    ("Hallway", "light.hallway", "Hallway Light", "off"),
    ("Garage", "cover.garage_door", "Garage Door", "closed"),
    ("Office", "light.office", "Desk Lamp", "on"),
    ("Garden", "switch.sprinkler", "Sprinkler", "off"),
    ("Garden", "sensor.outdoor_temperature", "Outdoor Temperature", "12.8 °C"),
)


def home_overview(time: str, changed: dict[str, str] | None = None) -> str:
    """The dynamic system text: the time and every exposed entity with its state."""
    changed = changed or {}
    lines = [f"The current time is {time}.", "Static context: An overview of the home:"]
    for area, entity_id, name, state in _HOME:
        lines.append(f"- {name} ({entity_id}, area {area}): {changed.get(entity_id, state)}")
    return "\n".join(lines)


def prompt(user: str, *, time: str, changed: dict[str, str] | None = None) -> PromptParts:
    """Render the prompt for one user message with the bundled Qwen3.5 template."""
    return render_split(
        load_template(None),
        static_system=INSTRUCTIONS,
        dynamic_system=home_overview(time, changed),
        history=[Message("user", user)],
        tools=TOOLS,
        enable_thinking=True,
    )


def first_request() -> PromptParts:
    """A first request."""
    return prompt("Turn on the kitchen light and set it to 40 percent", time="18:30 on Monday")


def repeat_request() -> PromptParts:
    """A later request: same instructions and tools, new time, states and message."""
    return prompt(
        "Is the front door locked?",
        time="18:34 on Monday",
        changed={"light.kitchen": "on (brightness 40%)"},
    )
