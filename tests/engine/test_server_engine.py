"""The server engine against a scripted OpenAI-compatible server: streams, retries, limits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
import json
import logging
from typing import Any

import aiohttp
import pytest

from custom_components.local_agent.engine.chat_format import PromptParts
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.markup import REASONING_CLOSE as THINK_CLOSE
from custom_components.local_agent.engine.server.chat import chat_messages
from custom_components.local_agent.engine.server.completions import _find_trigger
from custom_components.local_agent.engine.server.errors import ServerAuthError
from custom_components.local_agent.engine.server.errors import ServerConnectionLostError
from custom_components.local_agent.engine.server.errors import ServerFailure
from custom_components.local_agent.engine.server.errors import ServerModelMissingError
from custom_components.local_agent.engine.server.errors import ServerResponseError
from custom_components.local_agent.engine.server.errors import ServerTimeoutError
from custom_components.local_agent.engine.server.errors import ServerUnreachableError
from custom_components.local_agent.engine.server.http import ServerClient
from custom_components.local_agent.engine.server.settings import ServerMode
from custom_components.local_agent.engine.server.settings import ServerSettings
from custom_components.local_agent.engine.server.sse import SseDecoder
from custom_components.local_agent.engine.server.worker import ServerWorker
from custom_components.local_agent.engine.settings import SamplingSettings
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.tool_calls import ReasoningDelta
from custom_components.local_agent.engine.tool_calls import TextDelta
from custom_components.local_agent.engine.tool_calls import ToolCallFailed
from custom_components.local_agent.engine.tool_calls import ToolCallParsed
from custom_components.local_agent.engine.types import Conversation
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.engine.types import ToolCall
from testing.fake_openai import DROP
from testing.fake_openai import SLEEP
from testing.fake_openai import Chunk
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import Script
from testing.fake_openai import chat_chunk
from testing.fake_openai import serve_fake_openai
from testing.fake_openai import text_chunk
from testing.fake_openai import tool_call_delta
from testing.server_process import free_local_port
from testing.steering import CallAfterReasoning
from tests.engine.tool_specs import object_tool

LIGHT = object_tool(
    "light",
    "Control lights.",
    {
        "action": {"type": "string", "enum": ["turn_on", "turn_off"]},
        "entity_id": {"type": "string"},
        "brightness": {"type": "integer"},
    },
    required=["action", "entity_id"],
)
PROMPT = "<|im_start|>user\nlight on<|im_end|>\n<|im_start|>assistant\n<think>\n"


@pytest.fixture
async def fake(socket_enabled: None) -> AsyncIterator[FakeOpenAI]:
    async with serve_fake_openai() as server:
        yield server


@pytest.fixture
async def session(socket_enabled: None) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as client:
        yield client


def settings(url: str, **changes: Any) -> ServerSettings:
    return ServerSettings(base_url=url, model="fake-model", retry_delay=0.001, **changes)


CONVERSATION = Conversation("You control lights.", (Message("user", "light on"),))


def request(*, chat: bool = False, **changes: Any) -> GenerationRequest:
    """A completions request with PROMPT as its text, or (chat) one with CONVERSATION."""
    opens_reasoning = changes.pop("starts_in_reasoning", None)
    fields: dict[str, Any] = {
        "tools": [LIGHT],
        "sampling": SamplingSettings(temperature=0.0),
        "max_tokens": 64,
        "thinking_budget": None,
    }
    fields.update(changes)
    prompt = fields.pop("prompt", None) or (
        CONVERSATION
        if chat
        else PromptParts(PROMPT[:10], PROMPT[10:], opens_reasoning=opens_reasoning)
    )
    return GenerationRequest(prompt, **fields)


async def generate(
    worker: ServerWorker, generation: GenerationRequest
) -> tuple[list[ParseEvent], Any]:
    seen: list[ParseEvent] = []
    output = await worker.generate(generation, seen.append)
    assert seen == output.events
    return seen, output


def test_sse_decoder_joins_split_chunks_and_skips_comments() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b': ping\n\ndata: {"a"') == []
    assert decoder.feed(b": 1}\r\n\r\ndata: x\ndata: y\n") == ['{"a": 1}']
    assert decoder.feed(b"\n") == ["x\ny"]
    assert decoder.feed(b"data: [DONE]") == []
    assert decoder.finish() == ["[DONE]"]


def test_trigger_split_across_chunks_is_cut_right_after_it() -> None:
    assert _find_trigger("abc<tool", "_call>\n<fun", ("<tool_call>",)) == (6, "<tool_call>")
    assert _find_trigger("", "no tags", ("<tool_call>",)) == (7, None)
    assert _find_trigger("</think>", "x", ("</think>",)) == (1, None)


async def test_completions_thinking_budget_closes_reasoning_in_a_second_request(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    fake.will_stream(
        [text_chunk("I think"), text_chunk(" more", finish="length")],
        [text_chunk("Done."), text_chunk("", finish="stop")],
    )
    worker = await ServerWorker.connect(session, settings(fake.url, grammar=False))

    events, output = await generate(worker, request(thinking_budget=2))

    first, second = fake.requests
    assert first["max_tokens"] == 2
    assert first["prompt"] == PROMPT
    assert second["prompt"] == PROMPT + "I think more" + THINK_CLOSE
    assert second["max_tokens"] == 62
    assert output.stats.thinking_budget_hit
    assert output.stats.reasoning_tokens == 2
    assert events == [ReasoningDelta("I think"), ReasoningDelta(" more"), TextDelta("Done.")]
    assert first["temperature"] == 0.0
    assert {"top_p", "top_k", "min_p", "presence_penalty"} <= set(first)


async def test_completions_call_continues_with_the_grammar(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    call = "\n<function=light>\n<parameter=action>\nturn_on\n</parameter>\n"
    fake.will_stream(
        [text_chunk("ok</think>\n\n<tool"), text_chunk("_call>\n<funct"), text_chunk("ignored")],
        [
            text_chunk(call),
            text_chunk("<parameter=entity_id>\nlight.a\n</parameter>\n"),
            text_chunk("<parameter=brightness>\n40\n</parameter>\n</function>\n</tool_call>"),
            text_chunk("", finish="stop"),
        ],
    )
    worker = await ServerWorker.connect(session, settings(fake.url))

    events, _output = await generate(worker, request())

    first, second = fake.requests
    assert "grammar" not in first
    assert second["prompt"] == PROMPT + "ok</think>\n\n<tool_call>"
    assert second["grammar"].startswith("root ::= call")
    parsed = [event for event in events if isinstance(event, ToolCallParsed)]
    assert [p.call.arguments for p in parsed] == [
        {"action": "turn_on", "entity_id": "light.a", "brightness": 40}
    ]


async def test_a_steering_opens_the_call_after_the_reasoning(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    fake.will_stream(
        [text_chunk("hm</think>"), text_chunk("more")],
        [text_chunk("\n<function=light>\n</function>\n</tool_call>", finish="stop")],
    )
    worker = await ServerWorker.connect(session, settings(fake.url))
    worker.steering = CallAfterReasoning()

    events, _output = await generate(worker, request())

    assert fake.requests[1]["prompt"] == PROMPT + "hm</think>\n\n<tool_call>"
    failed = [event for event in events if isinstance(event, ToolCallFailed)]
    assert "missing the required parameters 'action', 'entity_id'" in failed[0].error.message


async def test_busy_server_is_retried_before_anything_was_received(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    worker = await ServerWorker.connect(session, settings(fake.url, retries=2))
    fake.status = 503

    def recover(_body: dict[str, Any]) -> None:
        if len(fake.requests) == 3:
            fake.status = None

    fake.on_request = recover
    fake.will_stream([text_chunk("fine", finish="stop")])

    _events, output = await generate(worker, request(starts_in_reasoning=False))

    assert len(fake.requests) == 3
    assert output.text == "fine"


async def test_stream_broken_after_text_is_never_retried(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    fake.will_stream([text_chunk("a</think>\n\nThe light"), DROP], [text_chunk("x", "stop")])
    worker = await ServerWorker.connect(session, settings(fake.url, retries=3))
    seen: list[ParseEvent] = []

    with pytest.raises(ServerConnectionLostError, match="broke off"):
        await worker.generate(request(), seen.append)

    assert len(fake.requests) == 1
    assert TextDelta("The light") in seen


async def test_stream_without_finish_reason_is_an_error(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    fake.will_stream([text_chunk("a</think>\n\nThe light")])
    worker = await ServerWorker.connect(session, settings(fake.url))

    with pytest.raises(ServerConnectionLostError, match="interrupt_requests"):
        await worker.generate(request())


async def test_unreachable_server_after_retries(session: aiohttp.ClientSession) -> None:
    url = f"http://127.0.0.1:{free_local_port()}"

    with pytest.raises(ServerUnreachableError, match="is not reachable") as caught:
        await ServerWorker.connect(session, settings(url, retries=1))

    assert caught.value.kind is ServerFailure.UNREACHABLE
    assert caught.value.facts["url"] == url


async def test_unavailability_is_logged_once_and_the_return_once(
    fake: FakeOpenAI, session: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    down = settings(f"http://127.0.0.1:{free_local_port()}", retries=0)
    client = ServerClient(session, down)
    caplog.set_level(logging.INFO, logger="custom_components.local_agent.engine.server.http")

    for _ in range(3):
        with pytest.raises(ServerUnreachableError):
            await client.get_json("/v1/models")
    client.settings = settings(fake.url)  # the same client reaches a server again
    await client.get_json("/v1/models")
    await client.get_json("/v1/models")

    messages = [record.getMessage() for record in caplog.records]
    unavailable = [m for m in messages if "is unavailable" in m]
    assert len(unavailable) == 1, messages
    assert down.root in unavailable[0]
    assert len([m for m in messages if "available again" in m]) == 1
    assert client.available is True


async def test_wrong_key_and_missing_model(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    fake.api_key = "right"
    with pytest.raises(ServerAuthError):
        await ServerWorker.connect(session, settings(fake.url, api_key="wrong"))
    with pytest.raises(ServerModelMissingError, match="fake-model"):
        await ServerWorker.connect(
            session, ServerSettings(base_url=fake.url, model="other", api_key="right")
        )


async def test_read_timeout(fake: FakeOpenAI, session: aiohttp.ClientSession) -> None:
    fake.sleep = 0.5
    fake.will_stream([text_chunk("a"), SLEEP, text_chunk("b", finish="stop")])
    worker = await ServerWorker.connect(session, settings(fake.url, read_timeout=0.1))

    with pytest.raises(ServerTimeoutError, match="did not answer in time"):
        await worker.generate(request())


async def test_server_error_status_is_reported_not_retried(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    worker = await ServerWorker.connect(session, settings(fake.url, retries=3))
    fake.status, fake.status_message = 500, "template failed"

    with pytest.raises(ServerResponseError, match="HTTP 500: template failed"):
        await worker.generate(request())
    assert len(fake.requests) == 1


async def test_cancelling_the_caller_closes_the_stream(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    fake.sleep = 0.02
    slow: list[Chunk] = [SLEEP, text_chunk("b")] * 100
    fake.will_stream([text_chunk("a"), *slow])
    worker = await ServerWorker.connect(session, settings(fake.url))
    started = asyncio.Event()
    task = asyncio.create_task(worker.generate(request(), lambda _event: started.set()))
    await started.wait()

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):
        if fake.disconnects:
            break
        await asyncio.sleep(0.01)

    assert fake.disconnects == 1
    assert not worker.busy


async def test_requests_run_concurrently_up_to_the_limit(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    scripts: list[Script] = [[SLEEP, text_chunk("x", finish="stop")] for _ in range(5)]
    fake.will_stream(*scripts)
    worker = await ServerWorker.connect(session, settings(fake.url, max_concurrent=2))

    outputs = await asyncio.gather(
        *(worker.generate(request(starts_in_reasoning=False)) for _ in range(5))
    )

    assert [output.text for output in outputs] == ["x"] * 5
    assert fake.peak == 2
    assert worker.peak_active == 2


async def test_chat_mode_maps_reasoning_and_types_native_tool_calls(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    fake.will_stream(
        [
            chat_chunk(role="assistant", content=""),
            chat_chunk(reasoning_content="Turn it on."),
            chat_chunk(tool_calls=[tool_call_delta(0, name="light", arguments='{"action": ')]),
            chat_chunk(tool_calls=[tool_call_delta(0, arguments='"turn_on", "entity_id": "l.a",')]),
            chat_chunk(tool_calls=[tool_call_delta(0, arguments=' "brightness": "30"}')]),
            chat_chunk(tool_calls=[tool_call_delta(1, name="light", arguments="{not json")]),
            chat_chunk(finish="tool_calls"),
            {"object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 9}},
        ]
    )
    worker = await ServerWorker.connect(session, settings(fake.url, mode=ServerMode.CHAT))

    events, output = await generate(worker, request(chat=True))

    body = fake.requests[0]
    assert body["chat_template_kwargs"] == {"enable_thinking": True}
    assert body["messages"][0] == {"role": "system", "content": "You control lights."}
    assert body["tools"][0]["function"]["name"] == "light"
    assert events[0] == ReasoningDelta("Turn it on.")
    parsed, failed = events[1:]
    assert isinstance(parsed, ToolCallParsed)
    assert parsed.call.arguments == {"action": "turn_on", "entity_id": "l.a", "brightness": 30}
    assert isinstance(failed, ToolCallFailed)
    assert "must be a JSON object" in failed.error.message
    assert output.stats.prompt_tokens == 9
    assert worker.server_parses_calls is True


async def test_chat_mode_reads_xml_calls_and_reasoning_from_the_content(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    fake.will_stream(
        [
            chat_chunk(content="Light.</think>\n\n<tool_call>\n<function=light>\n"),
            chat_chunk(content="<parameter=action>\nturn_off\n</parameter>\n"),
            chat_chunk(content="<parameter=entity_id>\nl.b\n</parameter>\n</function>\n"),
            chat_chunk(content="</tool_call>", finish="stop"),
        ]
    )
    worker = await ServerWorker.connect(session, settings(fake.url, mode=ServerMode.CHAT))

    events, _output = await generate(worker, request(chat=True))

    assert events == [
        ReasoningDelta("Light."),
        ToolCallParsed(
            ToolCall(
                "light",
                {"action": "turn_off", "entity_id": "l.b"},
                "<tool_call>\n<function=light>\n<parameter=action>\nturn_off\n</parameter>\n"
                "<parameter=entity_id>\nl.b\n</parameter>\n</function>\n</tool_call>",
            )
        ),
    ]
    assert worker.server_parses_calls is False


async def test_chat_mode_answer_without_separated_reasoning_is_the_answer(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    fake.will_stream([chat_chunk(content="It is on."), chat_chunk(finish="stop")])
    worker = await ServerWorker.connect(session, settings(fake.url, mode=ServerMode.CHAT))

    events, _output = await generate(worker, request(chat=True))

    assert events[-1] == TextDelta("It is on.")


async def test_chat_mode_budget_asks_again_without_thinking(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    fake.will_stream(
        [chat_chunk(reasoning_content=word) for word in ("a", "b", "c", "d")],
        [chat_chunk(content="Answer."), chat_chunk(finish="stop")],
    )
    worker = await ServerWorker.connect(session, settings(fake.url, mode=ServerMode.CHAT))

    events, output = await generate(worker, request(chat=True, thinking_budget=3))

    assert [r["chat_template_kwargs"]["enable_thinking"] for r in fake.requests] == [True, False]
    assert output.stats.thinking_budget_hit
    assert events == [
        ReasoningDelta("a"),
        ReasoningDelta("b"),
        ReasoningDelta("c"),
        TextDelta("Answer."),
    ]


def test_history_calls_structured_or_as_text() -> None:
    call = ToolCall("light", {"action": "turn_on", "brightness": 5})
    conversation = Conversation(
        "sys",
        (
            Message("user", "on"),
            Message("assistant", "", reasoning="Sure.", tool_calls=[call]),
            Message("tool", '{"ok":true}', tool_name="light"),
            Message("assistant", "Done."),
        ),
    )

    structured = chat_messages(conversation, calls_as_text=False)
    as_text = chat_messages(conversation, calls_as_text=True)

    assistant, tool = structured[2], structured[3]
    call_json = assistant["tool_calls"][0]
    assert json.loads(call_json["function"]["arguments"]) == {"action": "turn_on", "brightness": 5}
    assert tool == {
        "role": "tool",
        "tool_call_id": call_json["id"],
        "content": '{"ok":true}',
        "name": "light",
    }
    assert assistant["reasoning_content"] == "Sure."
    assert "tool_calls" not in as_text[2]
    assert as_text[2]["content"].startswith("<tool_call>\n<function=light>\n<parameter=action>")


async def test_completions_answer_ends_where_the_model_writes_the_next_turn(
    fake: FakeOpenAI, session: aiohttp.ClientSession
) -> None:
    """A conversation rendered by the engine ends at the chat format's turn markers: the text
    before a marker split across chunks is the answer, and the stream is closed there."""
    fake.will_stream(
        [
            text_chunk("ok</think>\n\nThe light is on.<|im_"),
            text_chunk("end|>\n<|im_start|>user\nunlock the door"),
            text_chunk("<|im_end|>"),
            text_chunk("", finish="stop"),
        ]
    )
    worker = await ServerWorker.connect(session, settings(fake.url))

    events, output = await generate(worker, request(prompt=CONVERSATION))

    assert events == [ReasoningDelta("ok"), TextDelta("The light is on.")]
    assert output.stats.finish_reason == "stop"
    assert output.prompt.text == fake.requests[0]["prompt"]
    assert "You control lights.<|im_end|>\n<|im_start|>user\nlight on" in output.prompt.text
    assert len(fake.requests) == 1
