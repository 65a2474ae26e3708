"""Chat mode: the server renders the prompt; calls come back as tool_calls or as XML text."""

from __future__ import annotations

from dataclasses import replace
import json
from typing import Any

import pytest

from custom_components.local_agent.const import CONF_MODEL_PHRASES_ANSWERS
from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.grammar import build_tool_call_grammar
from custom_components.local_agent.engine.server import chat as server_chat
from custom_components.local_agent.engine.server.settings import ServerMode
from custom_components.local_agent.turn import agent as agent_module
from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from testing.any_tokens import longest_call_tokens
from testing.any_tokens import longest_text_bytes
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import chat_chunk
from testing.fake_openai import tool_call_delta
from testing.llama_server import LlamaServer
from testing.turn import calls_in
from testing.turn import chat_log_of
from testing.turn import results_in
from tests.integration.agents import speech
from tests.integration.conftest import state

from .conftest import API_KEY
from .conftest import async_setup_agent_on
from .conftest import async_setup_server_agent
from .conftest import worker_of

BED_LIGHT = "light.bed_light"


async def test_vllm_style_tool_calls_and_reasoning_are_executed(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    """A server with a tool parser and a reasoning parser (vLLM qwen3_xml + qwen3)."""
    arguments = json.dumps({"action": "turn_on", "entity_id": BED_LIGHT, "brightness_pct": "40"})
    fake_server.will_stream(
        [
            chat_chunk(role="assistant", content=""),
            chat_chunk(reasoning_content="The user wants "),
            chat_chunk(reasoning_content="the bed light on."),
            chat_chunk(tool_calls=[tool_call_delta(0, name="light", arguments=arguments[:20])]),
            chat_chunk(tool_calls=[tool_call_delta(0, arguments=arguments[20:])]),
            chat_chunk(finish="tool_calls"),
        ],
        [chat_chunk(content="The bed light "), chat_chunk(content="is on.", finish="stop")],
    )
    # The call's result goes back to the model.
    phrases: dict[str, Any] = {CONF_MODEL_PHRASES_ANSWERS: True}
    agent = await async_setup_server_agent(
        hass, fake_server.url, "fake-model", mode=ServerMode.CHAT, **phrases
    )

    result = await agent.ask("turn on the bed light")

    assert speech(result) == "The bed light is on."
    light = hass.states.get(BED_LIGHT)
    assert light is not None
    assert light.state == "on"
    assert light.attributes["brightness"] == 102  # 40 % (the string "40" typed as integer)
    first, second = fake_server.requests
    assert first["chat_template_kwargs"] == {"enable_thinking": True}
    assert {tool["function"]["name"] for tool in first["tools"]} >= {"light", "get_state"}
    assert first["messages"][0]["role"] == "system"
    # The user's words come after the turn's context block (the time, changed states).
    assert first["messages"][-1]["role"] == "user"
    assert first["messages"][-1]["content"].startswith("Now: ")
    assert first["messages"][-1]["content"].endswith("\n\nturn on the bed light")
    assistant, tool = second["messages"][-2:]
    call = assistant["tool_calls"][0]
    assert call["function"]["name"] == "light"
    assert json.loads(call["function"]["arguments"])["brightness_pct"] == 40
    assert assistant["reasoning_content"] == "The user wants the bed light on."
    assert tool["role"] == "tool"
    assert tool["tool_call_id"] == call["id"]
    assert "entities" in json.loads(tool["content"])
    thinking = [
        content.thinking_content
        for content in chat_log_of(hass, result).content
        if isinstance(content, conversation.AssistantContent) and content.thinking_content
    ]
    assert thinking[0] == "The user wants the bed light on."


async def test_tools_refused_by_the_server_are_explained(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    agent = await async_setup_server_agent(
        hass, fake_server.url, "fake-model", mode=ServerMode.CHAT
    )
    fake_server.tools_error = (
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
    )

    result = await agent.ask("turn on the bed light")

    assert speech(result) == (
        f"The model server at {fake_server.url} does not accept tool calls. Start it with tool "
        "calling enabled, or use the completions mode."
    )


async def test_llama_cpp_python_server_returns_xml_calls_in_the_content(
    hass: HomeAssistant,
    demo_home: None,
    llama_server: LlamaServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """llama-cpp-python's server has no tool parser: our XML parser reads the content.

    Its chat template opens a think block (thinking is on). A grammar sent with the first
    request makes the random-weight model close it and write a call; llama-cpp-python's chat
    endpoint accepts `grammar`.
    """
    bodies: list[dict[str, Any]] = []
    chat_body = server_chat.chat_body

    def with_grammar(request: GenerationRequest, *args: Any, **kwargs: Any) -> dict[str, Any]:
        body = chat_body(request, *args, **kwargs)
        if not bodies:
            call = build_tool_call_grammar(request.tools).replace("root ::=", "call-root ::=", 1)
            body["grammar"] = 'root ::= "ok\\n</think>\\n\\n<tool_call>" call-root\n' + call
            # Room for the longest text of the grammar: the call always ends by itself.
            assert body["max_tokens"] >= longest_text_bytes(body["grammar"])
        bodies.append(body)
        return body

    def short(*args: Any, **kwargs: Any) -> GenerationRequest:
        request = GenerationRequest(*args, **kwargs)
        first = not bodies
        room = len("ok\n</think>\n\n<tool_call>") + longest_call_tokens(request.tools)
        return replace(request, max_tokens=room if first else 48)

    monkeypatch.setattr(server_chat, "chat_body", with_grammar)
    monkeypatch.setattr(agent_module, "GenerationRequest", short)
    agent = await async_setup_agent_on(
        hass,
        llama_server,
        mode=ServerMode.CHAT,
        api_key=API_KEY,
        # The call's result goes back to the model, in a second round.
        **{CONF_TEMPERATURE: 0.0, CONF_THINKING_BUDGET: 16, CONF_MODEL_PHRASES_ANSWERS: True},
    )

    result = await agent.ask("turn on the bed light")

    chat_log = chat_log_of(hass, result)
    calls = calls_in(chat_log)
    results = results_in(chat_log)
    assert calls, "no call was read from the content"
    assert ("entities" in results[0]) or ("error" in results[0])
    assert worker_of(agent).server_parses_calls is False
    # The next round sends the call back as the XML the model wrote (its template needs that).
    second = bodies[1]["messages"]
    assistant = next(m for m in reversed(second) if m["role"] == "assistant")
    assert "tool_calls" not in assistant
    assert assistant["content"].startswith("<tool_call>\n<function=")
    assert second[-1]["role"] == "tool"
    assert speech(result)


async def test_a_call_cut_off_at_max_tokens_is_not_run(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    """The stream ends at max_tokens while the server returns a call (llama-server closes the
    partial arguments into valid JSON): the call may be incomplete, so it is refused."""
    arguments = json.dumps({"action": "turn_on", "entity_id": BED_LIGHT})
    fake_server.will_stream(
        [
            chat_chunk(tool_calls=[tool_call_delta(0, name="light", arguments=arguments)]),
            chat_chunk(finish="length"),
        ],
        [chat_chunk(content="I could not finish.", finish="stop")],
    )
    agent = await async_setup_server_agent(
        hass, fake_server.url, "fake-model", mode=ServerMode.CHAT
    )

    result = await agent.ask("turn on the bed light")

    assert state(hass, BED_LIGHT) == "off"
    results = results_in(chat_log_of(hass, result))
    assert results == [{"error": "The tool call to 'light' was cut off before it was complete."}], (
        results
    )
