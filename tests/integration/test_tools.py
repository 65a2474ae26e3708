"""Exposed entities as tools: specs, overview, planning (running them: test_runner.py)."""

from __future__ import annotations

from collections.abc import Iterable
import json
from typing import Any

import pytest

from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.engine.types import ToolSpec
from custom_components.local_agent.home.call_texts import describe_action
from custom_components.local_agent.home.call_texts import restatements
from custom_components.local_agent.home.entity_view import grouped_text
from custom_components.local_agent.home.entity_view import line_state_of_summary
from custom_components.local_agent.home.entity_view import state_summary
from custom_components.local_agent.home.service_catalog import CURATED_SERVICES
from custom_components.local_agent.home.tools import GET_STATE
from custom_components.local_agent.home.tools import TOOL_INTEGRATION
from custom_components.local_agent.home.tools import HomeTools
from custom_components.local_agent.home.tools import PlannedAction
from custom_components.local_agent.home.tools import ToolFailure
from custom_components.local_agent.home.tools import async_build_home_tools
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers.service import async_get_all_descriptions
from homeassistant.setup import async_setup_component

from .conftest import plan


def refuse(tools: HomeTools, name: str, **arguments: Any) -> str:
    result = tools.plan(ToolCall(name, arguments))
    assert isinstance(result, ToolFailure), result
    return result.message


async def test_specs_cover_exposed_domains_and_entities_only(
    hass: HomeAssistant, tools: HomeTools
) -> None:
    assert tools.tool_names == ["climate", "cover", "light", "lock", "switch", "update", GET_STATE]
    light = next(spec for spec in tools.specs if spec.name == "light")
    # The prompt names each id once (in the home list); the call grammar holds it to them.
    assert light.parameters["properties"]["entity_id"]["anyOf"][0] == {"type": "string"}
    entity_choice = light.enforced_parameters["properties"]["entity_id"]["anyOf"][0]
    assert entity_choice["enum"] == ["light.bed_light", "light.kitchen_lights"]
    assert light.parameters["properties"]["action"]["enum"] == ["toggle", "turn_off", "turn_on"]
    assert light.parameters["required"] == ["action", "entity_id"]
    assert (
        "turn_on(brightness_pct?, brightness_step_pct?, color_name?, color_temp_kelvin?, effect?)"
        in light.description
    )
    assert count_chars(tools.specs) < 4000

    again = await async_build_home_tools(hass)
    assert again.specs == tools.specs

    async_expose_entity(hass, "conversation", "light.bed_light", False)
    async_expose_entity(hass, "conversation", "switch.ac", False)
    changed = await async_build_home_tools(hass)
    assert "switch" not in changed.tool_names
    light = next(spec for spec in changed.specs if spec.name == "light")
    assert light.enforced_parameters["properties"]["entity_id"]["anyOf"][0]["enum"] == [
        "light.kitchen_lights"
    ]


async def test_our_tools_carry_home_assistants_annotations(tools: HomeTools) -> None:
    """As Home Assistant 2026.10 describes LLM tools: get_state only reads; domain tools act on
    this home's entities (never the open world); a name that is not ours has none."""
    read = tools.annotations(GET_STATE)
    assert read is not None
    assert (read.read_only, read.destructive, read.open_world) == (True, False, False)
    for name in tools.tool_names[:-1]:
        control = tools.annotations(name)
        assert control is not None
        assert (control.read_only, control.open_world) == (False, False), name
    assert tools.annotations("intent__HassTurnOn") is None
    assert TOOL_INTEGRATION == "local_agent"


async def test_field_schemas_come_from_service_descriptions(tools: HomeTools) -> None:
    properties = {spec.name: spec.parameters["properties"] for spec in tools.specs}
    assert properties["light"]["brightness_pct"] == {"type": "number", "minimum": 0, "maximum": 100}
    assert properties["cover"]["position"] == {"type": "number", "minimum": 0, "maximum": 100}
    # 148 colour names are validated, not listed in the prompt.
    assert properties["light"]["color_name"] == {"type": "string"}
    # Only the hall window can be positioned, the only actions offered are those some entity has.
    assert "set_cover_tilt_position" not in properties["cover"]["action"]["enum"]
    assert "tilt_position" not in properties["cover"]


async def test_curated_services_exist_in_home_assistant(hass: HomeAssistant) -> None:
    for domain in CURATED_SERVICES:
        assert await async_setup_component(hass, domain, {}), domain
    descriptions = await async_get_all_descriptions(hass)
    for domain, services in CURATED_SERVICES.items():
        for service, fields in services.items():
            assert service in descriptions[domain], f"{domain}.{service}"
            flat = str(descriptions[domain][service].get("fields", {}))
            for field in fields:
                assert f"'{field}'" in flat, f"{domain}.{service}.{field}"


async def test_overview_groups_exposed_entities_by_area(tools: HomeTools) -> None:
    overview = grouped_text(tools.lines())
    kitchen, _, rest = overview.partition("\nNo area:\n")
    # Names the entity id already says are left out; so are option lists and false flags.
    assert kitchen.startswith("Kitchen:\nlight.kitchen_lights (aliases: cooking light): on")
    assert "brightness_pct=71" in kitchen
    assert rest.startswith("climate.hvac: cool; current_temperature=22, temperature=21")
    assert "hvac_modes" not in rest
    assert "\ncover.hall_window: open; position=10\n" in rest
    assert "\nsensor.outside_temperature: 15.6 °C" in rest
    assert "ceiling_lights" not in overview
    assert "fan." not in overview
    assert overview == grouped_text(tools.lines())


async def test_a_state_is_shown_in_words_and_without_what_it_already_says(
    hass: HomeAssistant, demo_home: None
) -> None:
    states: dict[str, tuple[str, dict[str, Any]]] = {
        "binary_sensor.back_door_bolt": ("on", {"device_class": "lock"}),  # on: unlocked
        "binary_sensor.hall_motion": ("off", {"device_class": "motion"}),
        "binary_sensor.patio": ("on", {"device_class": "door"}),
        "binary_sensor.mains": ("on", {"device_class": "power"}),  # no words of its own
        "binary_sensor.leak": ("on", {}),
        "binary_sensor.gone": ("unavailable", {"device_class": "window"}),
        "fan.attic": ("off", {"percentage": 0}),
        "fan.desk": ("on", {"percentage": 0}),
        "cover.shed": ("closed", {"device_class": "shutter", "current_position": 0}),
        "cover.porch": ("open", {"current_position": 100}),
        "cover.study": ("open", {"current_position": 40}),
    }
    for entity_id, (value, attributes) in states.items():
        hass.states.async_set(entity_id, value, attributes)
        async_expose_entity(hass, "conversation", entity_id, True)
    tools = await async_build_home_tools(hass)
    shown = {line.entity_id: line.state for line in tools.lines()}

    assert {entity_id: shown[entity_id] for entity_id in states} == {
        "binary_sensor.back_door_bolt": "unlocked",
        "binary_sensor.hall_motion": "no motion",
        "binary_sensor.patio": "door open",
        "binary_sensor.mains": "on; device_class=power",
        "binary_sensor.leak": "on",
        "binary_sensor.gone": "unavailable",
        "fan.attic": "off",
        "fan.desk": "on; percentage=0",
        "cover.shed": "closed; device_class=shutter",
        "cover.porch": "open",
        "cover.study": "open; position=40",
    }
    # A tool result's summary gives the line back (the next turn's changes are told so).
    for entity_id, line in shown.items():
        current = hass.states.get(entity_id)
        assert current is not None, entity_id
        summary = state_summary(hass, current)
        assert line_state_of_summary(summary) == line, entity_id


async def test_plan_valid_calls(hass: HomeAssistant, tools: HomeTools) -> None:
    action = plan(
        tools, "light", action="turn_on", entity_id="light.kitchen_lights", brightness_pct=50
    )
    assert action == PlannedAction(
        "light", "light", "turn_on", ("light.kitchen_lights",), {"brightness_pct": 50}
    )
    assert describe_action(hass, action) == "turn on Kitchen Lights at 50%"

    by_alias = plan(tools, "light", action="turn_off", entity_id="Cooking Light")
    assert by_alias.entity_ids == ("light.kitchen_lights",)
    several = plan(
        tools, "light", action="turn_off", entity_id=["light.bed_light", "light.kitchen_lights"]
    )
    assert describe_action(hass, several) == "turn off Bed Light and Kitchen Lights"
    colour = plan(
        tools, "light", action="turn_on", entity_id="light.kitchen_lights", color_name="Red"
    )
    assert colour.data == {"color_name": "red"}

    unlock = plan(tools, "lock", action="unlock", entity_id="lock.front_door", code="1234")
    assert describe_action(hass, unlock) == "unlock Front Door"
    read = plan(tools, GET_STATE, entity_id="sensor.outside_temperature")
    assert read.read_only
    assert (read.domain, read.service) == (None, None)


@pytest.mark.parametrize(
    ("language", "unlock", "several"),
    [
        ("en-GB", "unlock Front Door", "turn off Bed Light and Kitchen Lights"),
        ("de-CH", "Front Door aufschließen", "Bed Light und Kitchen Lights ausschalten"),
        ("fr", "déverrouiller Front Door", "éteindre Bed Light et Kitchen Lights"),
        ("es", "desbloquear Front Door", "apagar Bed Light y Kitchen Lights"),
        ("it", "sbloccare Front Door", "spegnere Bed Light e Kitchen Lights"),
        ("nl", "Front Door ontgrendelen", "Bed Light en Kitchen Lights uitschakelen"),
        ("pt-BR", "destrancar Front Door", "desligar Bed Light e Kitchen Lights"),
        ("sv", "unlock Front Door", "turn off Bed Light and Kitchen Lights"),
    ],
)
async def test_a_call_reads_in_the_conversation_language(
    hass: HomeAssistant, tools: HomeTools, language: str, unlock: str, several: str
) -> None:
    """The languages the agent reads yes and no in; English in any other."""
    door = plan(tools, "lock", action="unlock", entity_id="lock.front_door")
    lights = plan(
        tools, "light", action="turn_off", entity_id=["light.bed_light", "light.kitchen_lights"]
    )

    assert describe_action(hass, door, language=language) == unlock
    assert describe_action(hass, lights, language=language) == several


def test_an_action_said_again_with_a_pronoun() -> None:
    off = PlannedAction("switch", "switch", "turn_off", ("switch.gate",), {})
    unlock = PlannedAction("lock", "lock", "unlock", ("lock.front_door",), {})
    back = PlannedAction("lock", "lock", "unlock", ("lock.back_door",), {})

    assert {"turn it off", "turn them off", "turn off that"} <= restatements([off])
    assert "unlock them" in restatements([unlock, back])
    assert {"unlock", "turn off"} <= restatements([unlock]) | restatements([off])
    assert restatements([unlock, off]) == frozenset()


async def test_a_verb_may_stand_around_the_names(hass: HomeAssistant) -> None:
    vacuum = PlannedAction("vacuum", "vacuum", "return_to_base", ("vacuum.robot",), {})

    assert describe_action(hass, vacuum) == "send vacuum.robot back to base"


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("garage", {"action": "open"}, "Unknown tool 'garage'. Tools: climate, cover, light"),
        (
            "light",
            {"action": "explode", "entity_id": "light.bed_light"},
            "Unknown action 'explode' for light. Allowed: toggle, turn_off, turn_on.",
        ),
        ("light", {"entity_id": "light.bed_light"}, "action is required."),
        (
            "light",
            {"action": "turn_on", "entity_id": "light.kitchen"},
            "There is no exposed light entity 'light.kitchen'. "
            "Did you mean: light.kitchen_lights (Kitchen Lights)?",
        ),
        (
            "light",
            {"action": "turn_on", "entity_id": "light.ceiling_lights"},
            "There is no exposed light entity 'light.ceiling_lights'.",
        ),
        (
            "light",
            {"action": "turn_on"},
            "entity_id is required: Exposed: light.bed_light, light.kitchen_lights.",
        ),
        (
            "switch",
            {"action": "turn_on", "entity_id": "lock.front_door"},
            "lock.front_door is a lock entity, not switch: use the lock tool.",
        ),
        (
            "light",
            {"action": "turn_on", "entity_id": "light.bed_light", "brightness_pct": "bright"},
            "brightness_pct must be a number from 0 to 100, got 'bright'.",
        ),
        (
            "light",
            {"action": "turn_on", "entity_id": "light.bed_light", "brightness_pct": 150},
            "brightness_pct 150 is out of range from 0 to 100.",
        ),
        (
            "light",
            {"action": "turn_on", "entity_id": "light.bed_light", "flash": "long"},
            "Unknown field 'flash' for light. "
            "turn_on takes brightness_pct, brightness_step_pct, color_name, color_temp_kelvin, "
            "effect.",
        ),
        (
            "light",
            {"action": "turn_off", "entity_id": "light.bed_light", "brightness_pct": 5},
            "brightness_pct is not used by turn_off; it belongs to turn_on.",
        ),
        (
            "light",
            {"action": "turn_on", "entity_id": "light.bed_light", "color_name": "redd"},
            "color_name 'redd' is not allowed. Close matches: red",
        ),
        (
            "cover",
            {"action": "set_cover_position", "entity_id": "cover.kitchen_window", "position": 20},
            "Kitchen Window (cover.kitchen_window) does not support set_cover_position.",
        ),
        (
            "cover",
            {"action": "set_cover_position", "entity_id": "cover.hall_window"},
            "set_cover_position needs position. Call it as set_cover_position(position).",
        ),
        (
            "climate",
            {"action": "set_temperature", "entity_id": "climate.hvac", "temperature": 50},
            "temperature 50 is out of range for Hvac: from 7 to 35.",
        ),
        (
            "climate",
            {"action": "set_hvac_mode", "entity_id": "climate.hvac", "hvac_mode": "sauna"},
            "Hvac has no hvac_mode 'sauna'. Use one of: off, heat, cool, auto, dry, fan_only.",
        ),
        (
            "climate",
            {"action": "set_temperature", "entity_id": "climate.hvac"},
            "Invalid arguments for set_temperature: at least one of",
        ),
        (
            GET_STATE,
            {"entity_id": "light.ceiling_lights"},
            "There is no exposed entity 'light.ceiling_lights'.",
        ),
    ],
)
async def test_plan_refuses_with_precise_messages(
    tools: HomeTools, name: str, arguments: dict[str, Any], message: str
) -> None:
    assert message in refuse(tools, name, **arguments)


async def test_planned_action_cannot_be_altered(hass: HomeAssistant, tools: HomeTools) -> None:
    action = plan(tools, "lock", action="unlock", entity_id="lock.front_door", code="1234")
    with pytest.raises(TypeError):
        action.data["code"] = "0000"  # type: ignore[index]
    assert "1234" not in describe_action(hass, action)


def count_chars(specs: Iterable[ToolSpec]) -> int:
    """The size of the specs as JSON, as a chat template renders them."""
    return sum(
        len(
            json.dumps(
                {
                    "type": "function",
                    "function": {
                        "name": spec.name,
                        "description": spec.description,
                        "parameters": spec.parameters,
                    },
                },
                ensure_ascii=False,
            )
        )
        for spec in specs
    )
