"""Calls a model writes without our grammar (a server without it, a model that ignores it).

The parser is then the first judge: what is unambiguous (a number in its field's own unit, a
decimal comma, the tool's domain in front of an action, capitals) runs as the tool layer
normalises it; anything else is refused with a reason the person and the model can use.
"""

from __future__ import annotations

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import text_chunk
from testing.turn import chat_log_of
from testing.turn import results_in
from tests.integration.agents import speech
from tests.integration.conftest import state

from .conftest import async_setup_server_agent

KITCHEN = "light.kitchen_lights"


def written_call(tool: str, **parameters: str) -> str:
    written = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in parameters.items())
    return f"<tool_call>\n<function={tool}>\n{written}</function>\n</tool_call>"


async def ask_with_call(
    hass: HomeAssistant, fake_server: FakeOpenAI, call: str
) -> conversation.ConversationResult:
    fake_server.will_stream(
        [text_chunk("</think>\n\n"), text_chunk(call, finish="stop")],
        [text_chunk("</think>\n\nDone.", finish="stop")],
    )
    agent = await async_setup_server_agent(hass, fake_server.url, "fake-model", grammar=False)
    return await agent.ask("turn on the kitchen lights")


def attribute_of(hass: HomeAssistant, entity_id: str, name: str) -> Any:
    current = hass.states.get(entity_id)
    assert current is not None
    return current.attributes[name]


async def turned_off(hass: HomeAssistant) -> None:
    await hass.services.async_call("light", "turn_off", {"entity_id": KITCHEN}, blocking=True)


@pytest.mark.parametrize(
    ("field", "written", "attribute", "expected"),
    [
        ("brightness_pct", "50%", "brightness", 128),
        ("brightness_pct", "50 %", "brightness", 128),
        ("color_temp_kelvin", "3000K", "color_temp_kelvin", 3000),
    ],
)
async def test_number_in_its_fields_own_unit_runs(
    hass: HomeAssistant,
    demo_home: None,
    fake_server: FakeOpenAI,
    field: str,
    written: str,
    attribute: str,
    expected: int,
) -> None:
    await turned_off(hass)
    call = written_call("light", action="turn_on", entity_id=KITCHEN, **{field: written})

    result = await ask_with_call(hass, fake_server, call)

    assert state(hass, KITCHEN) == "on", results_in(chat_log_of(hass, result))
    assert attribute_of(hass, KITCHEN, attribute) == expected


@pytest.mark.parametrize("written", ["21,5", "21,5 °C", "21.5°C"])
async def test_temperature_with_a_decimal_comma_or_degrees_runs(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI, written: str
) -> None:
    call = written_call(
        "climate", action="set_temperature", entity_id="climate.hvac", temperature=written
    )

    result = await ask_with_call(hass, fake_server, call)

    assert attribute_of(hass, "climate.hvac", "temperature") == 21.5, results_in(
        chat_log_of(hass, result)
    )


@pytest.mark.parametrize("action", ["light.turn_on", "TURN_ON", " Light.Turn_On "])
async def test_action_with_the_tools_domain_or_capitals_runs(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI, action: str
) -> None:
    await turned_off(hass)

    result = await ask_with_call(
        hass, fake_server, written_call("light", action=action, entity_id=KITCHEN)
    )

    assert state(hass, KITCHEN) == "on", results_in(chat_log_of(hass, result))


@pytest.mark.parametrize(
    ("field", "written"),
    [("brightness_pct", "50K"), ("brightness_pct", "1,000"), ("color_temp_kelvin", "3000%")],
)
async def test_number_in_another_unit_or_ambiguous_is_refused_with_the_reason(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI, field: str, written: str
) -> None:
    await turned_off(hass)
    call = written_call("light", action="turn_on", entity_id=KITCHEN, **{field: written})

    result = await ask_with_call(hass, fake_server, call)

    assert state(hass, KITCHEN) == "off"
    [refused] = results_in(chat_log_of(hass, result))
    assert "must be a number" in str(refused)
    assert repr(written) in str(refused)


@pytest.mark.parametrize("written", ["Kitchen Lights", "Kitchen", "light.kitchen_light"])
async def test_entity_named_or_near_is_never_guessed_but_suggested(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI, written: str
) -> None:
    await turned_off(hass)

    result = await ask_with_call(
        hass, fake_server, written_call("light", action="turn_on", entity_id=written)
    )

    assert state(hass, KITCHEN) == "off"
    [refused] = results_in(chat_log_of(hass, result))
    assert "error" in refused
    # The model reads what it may mean, for its retry; nothing is resolved to run.
    assert "Did you mean: light.kitchen_lights (Kitchen Lights)" in str(refused)


async def test_entity_by_part_of_a_name_is_refused_and_not_read_back_as_a_reason(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    """What the model wrote for an entity is no reason the person hears (a template, a number,
    "value 0, value 1" read back as "… : no such entity" said nothing true): the call alone."""
    await turned_off(hass)

    result = await ask_with_call(
        hass, fake_server, written_call("light", action="turn_on", entity_id="Kitchen")
    )

    assert state(hass, KITCHEN) == "off"
    [refused] = results_in(chat_log_of(hass, result))
    assert "expected one of 'light.bed_light', 'light.kitchen_lights'" in str(refused)
    assert speech(result).startswith("I could not turn on Kitchen.")
    assert "no such entity" not in speech(result)


@pytest.mark.parametrize(
    ("tool", "action", "entity_id", "field", "written", "name"),
    [
        ("light", "turn_on", KITCHEN, "brightness", "50", "Kitchen Lights"),
        ("light", "turn_on", KITCHEN, "color", "red", "Kitchen Lights"),
        ("climate", "set_temperature", "climate.hvac", "target_temp", "21", "Hvac"),
    ],
)
async def test_neighbour_field_is_refused_with_a_reason_the_person_hears(
    hass: HomeAssistant,
    demo_home: None,
    fake_server: FakeOpenAI,
    tool: str,
    action: str,
    entity_id: str,
    field: str,
    written: str,
    name: str,
) -> None:
    await turned_off(hass)
    before = hass.states.get(entity_id)
    call = written_call(tool, action=action, entity_id=entity_id, **{field: written})

    result = await ask_with_call(hass, fake_server, call)

    assert hass.states.get(entity_id) == before
    [refused] = results_in(chat_log_of(hass, result))
    assert f"has no parameter '{field}'" in str(refused)
    said = speech(result)
    assert f"{name}: the model asked for a setting this action does not have." in said
    assert field not in said.replace(name, "")
