"""AI tasks on a model server: the structure's grammar goes to a llama.cpp server; other servers'
answers are checked against the structure and refused when they do not fit."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import (
    CONF_MAX_CONCURRENT,
    CONF_MAX_TOKENS,
    CONF_SERVER_GRAMMAR,
    CONF_TEMPERATURE,
    CONF_THINKING,
    CONF_THINKING_BUDGET,
    DOMAIN,
    SUBENTRY_AI_TASK,
)
from custom_components.local_agent.engine.server.settings import ServerMode
from custom_components.local_agent.turn.defaults import ai_task_data
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import entity_registry as er
from testing.any_tokens import longest_structure_tokens
from testing.fake_openai import FakeOpenAI, chat_chunk, text_chunk
from testing.llama_server import LlamaServer

from .conftest import API_KEY, server_entry_data

STRUCTURE: dict[str, Any] = {
    "urgent": {"selector": {"boolean": {}}, "required": True},
    "room": {"selector": {"text": {}}, "required": True},
    "kind": {"selector": {"select": {"options": ["alarm", "info"]}}, "required": True},
}


async def setup_task(
    hass: HomeAssistant,
    url: str,
    model: str,
    *,
    mode: ServerMode = ServerMode.COMPLETIONS,
    api_key: str | None = None,
    grammar: bool = True,
    **options: Any,
) -> str:
    entry = MockConfigEntry(
        domain=DOMAIN,
        title=model,
        data=server_entry_data(url, model, mode, api_key),
        options={CONF_MAX_CONCURRENT: 1, CONF_SERVER_GRAMMAR: grammar},
        unique_id=f"{url}#{model}",
        subentries_data=[
            ConfigSubentryData(
                data={**ai_task_data(), **options},
                subentry_type=SUBENTRY_AI_TASK,
                title="Task",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    entity_id = er.async_get(hass).async_get_entity_id(
        "ai_task", DOMAIN, next(iter(entry.subentries))
    )
    assert entity_id is not None
    return entity_id


async def generate(hass: HomeAssistant, entity_id: str, **fields: Any) -> Any:
    response = await hass.services.async_call(
        "ai_task",
        "generate_data",
        {"task_name": "test", "entity_id": entity_id, **fields},
        blocking=True,
        return_response=True,
    )
    assert response is not None
    return response["data"]


@pytest.mark.parametrize("thinking", [False, True])
async def test_llama_server_writes_the_structure_under_our_grammar(
    hass: HomeAssistant, llama_server: LlamaServer, thinking: bool
) -> None:
    """The random-weight model on a real server: the `grammar` field makes the data valid.
    The task has room for the longest answer the grammar allows, so it is never cut off."""
    room = longest_structure_tokens(STRUCTURE)
    entity_id = await setup_task(
        hass,
        llama_server.base_url,
        llama_server.model_id,
        api_key=API_KEY,
        **{CONF_THINKING: thinking, CONF_THINKING_BUDGET: 8, CONF_TEMPERATURE: 1.0},
        **{CONF_MAX_TOKENS: room},
    )

    for _ in range(2):
        data = await generate(hass, entity_id, instructions="Smoke!", structure=STRUCTURE)
        assert isinstance(data["urgent"], bool)
        assert isinstance(data["room"], str)
        assert data["kind"] in ("alarm", "info")


async def test_completions_reasoning_is_free_then_the_grammar_applies(
    hass: HomeAssistant, fake_server: FakeOpenAI
) -> None:
    fake_server.will_stream(
        [text_chunk("Smoke means fire.</thi"), text_chunk("nk>\n\n{"), text_chunk("ignored")],
        [text_chunk('{"urgent": true, "room": "kitchen", "kind": "alarm"}', finish="stop")],
    )
    entity_id = await setup_task(hass, fake_server.url, "fake-model", thinking=True)

    data = await generate(hass, entity_id, instructions="Smoke!", structure=STRUCTURE)

    assert data == {"urgent": True, "room": "kitchen", "kind": "alarm"}
    first, second = fake_server.requests
    assert "grammar" not in first
    assert second["prompt"].endswith("Smoke means fire.</think>")
    assert second["grammar"].startswith("root ::= ")
    assert '"\\"urgent\\"" ":" " "? boolean' in second["grammar"]


async def test_a_model_ending_inside_its_reasoning_still_owes_the_structure(
    hass: HomeAssistant, fake_server: FakeOpenAI
) -> None:
    """End of text before </think>: the reasoning is closed and the answer follows."""
    fake_server.will_stream(
        [text_chunk("Smoke means", finish="stop")],
        [text_chunk('{"urgent": true, "room": "hall", "kind": "alarm"}', finish="stop")],
    )
    entity_id = await setup_task(hass, fake_server.url, "fake-model", thinking=True)

    data = await generate(hass, entity_id, instructions="Smoke!", structure=STRUCTURE)

    assert data == {"urgent": True, "room": "hall", "kind": "alarm"}
    first, second = fake_server.requests
    assert "grammar" not in first
    assert second["prompt"].endswith("Smoke means\n</think>\n\n")
    assert second["grammar"].startswith("root ::= ")


async def test_a_server_without_grammar_returning_other_types_is_refused(
    hass: HomeAssistant, fake_server: FakeOpenAI
) -> None:
    """Chat mode on a server that ignores response_format: the answer is checked, not trusted."""
    fake_server.will_stream(
        [
            chat_chunk(role="assistant", content='{"urgent": "very", "room": "kitchen"}'),
            chat_chunk(finish="stop"),
        ]
    )
    entity_id = await setup_task(
        hass, fake_server.url, "fake-model", mode=ServerMode.CHAT, thinking=False
    )

    with pytest.raises(HomeAssistantError) as caught:
        await generate(hass, entity_id, instructions="Smoke!", structure=STRUCTURE)

    assert caught.value.translation_key == "structure_invalid"
    error = caught.value.translation_placeholders["error"]
    assert "urgent must be of type boolean" in error
    assert "lacks the required field 'kind'" in error
    body = fake_server.requests[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == [
        "urgent",
        "room",
        "kind",
    ]
    assert "tools" not in body
