"""AI tasks on a model server: the structure's grammar goes to a llama.cpp server; other servers'
answers are checked against the structure and refused when they do not fit."""

from __future__ import annotations

from typing import Any

import pytest

from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.const import CONF_THINKING
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from custom_components.local_agent.const import SUBENTRY_AI_TASK
from custom_components.local_agent.engine.server.settings import ServerMode
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from testing.any_tokens import longest_structure_tokens
from testing.fake_openai import Chunk
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import chat_chunk
from testing.fake_openai import text_chunk
from testing.llama_server import LlamaServer
from tests.integration.conftest import generate_data

from .conftest import API_KEY
from .conftest import async_setup_server_agent

STRUCTURE: dict[str, Any] = {
    "urgent": {"selector": {"boolean": {}}, "required": True},
    "room": {"selector": {"text": {}}, "required": True},
    "kind": {"selector": {"select": {"options": ["alarm", "info"]}}, "required": True},
}


async def setup_task(hass: HomeAssistant, url: str, model: str, **setup: Any) -> str:
    """A server entry with one AI task (one request at a time), set up: the task's entity."""
    task = await async_setup_server_agent(
        hass, url, model, max_concurrent=1, subentry_type=SUBENTRY_AI_TASK, **setup
    )
    return task.entity_id


async def generate(hass: HomeAssistant, entity_id: str, **fields: Any) -> Any:
    return (await generate_data(hass, entity_id, **fields))["data"]


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


@pytest.mark.parametrize(
    ("reasoning", "room", "prompt_end"),
    [
        # The reasoning ends with </think> split across chunks; what follows it is dropped.
        (
            [text_chunk("Smoke means fire.</thi"), text_chunk("nk>\n\n{"), text_chunk("ignored")],
            "kitchen",
            "Smoke means fire.</think>",
        ),
        # End of text before </think>: the reasoning is closed and the answer still owed.
        ([text_chunk("Smoke means", finish="stop")], "hall", "Smoke means\n</think>\n\n"),
    ],
    ids=["reasoning closed", "model ended inside its reasoning"],
)
async def test_completions_reasoning_is_free_then_the_grammar_applies(
    hass: HomeAssistant,
    fake_server: FakeOpenAI,
    reasoning: list[Chunk],
    room: str,
    prompt_end: str,
) -> None:
    fake_server.will_stream(
        reasoning,
        [text_chunk(f'{{"urgent": true, "room": "{room}", "kind": "alarm"}}', finish="stop")],
    )
    entity_id = await setup_task(hass, fake_server.url, "fake-model", thinking=True)

    data = await generate(hass, entity_id, instructions="Smoke!", structure=STRUCTURE)

    assert data == {"urgent": True, "room": room, "kind": "alarm"}
    first, second = fake_server.requests
    assert "grammar" not in first
    assert second["prompt"].endswith(prompt_end)
    assert second["grammar"].startswith("root ::= ")
    assert '"\\"urgent\\"" ":" " "? boolean' in second["grammar"]


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
    placeholders = caught.value.translation_placeholders
    assert placeholders is not None
    error = placeholders["error"]
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
