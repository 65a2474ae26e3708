"""The server mode against llama.cpp's own `llama-server` (built by scripts/setup).

A real Home Assistant agent, set up through its config entry, talks to the real server on
127.0.0.1 with the qwen35 test model (random weights: gibberish, but the real architecture,
tokenizer and chat template) and with the real Gemma 3 270M model, in completions and chat mode.
Everything skips, with the reason in the test summary, where llama-server is not built.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import replace
import json
from pathlib import Path
import re
import time
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_HOME_TOOLS
from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.const import CONF_THINKING
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.chat_format import ChatTemplate
from custom_components.local_agent.engine.chat_format import PromptParts
from custom_components.local_agent.engine.generation import GenerationOutput
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.generation import render_request
from custom_components.local_agent.engine.server import chat as server_chat
from custom_components.local_agent.engine.server import completions as server_completions
from custom_components.local_agent.engine.server import worker as server_worker_module
from custom_components.local_agent.engine.server.http import ServerClient
from custom_components.local_agent.engine.server.settings import ServerMode
from custom_components.local_agent.engine.server.worker import ServerWorker
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.tool_calls import ReasoningDelta
from custom_components.local_agent.engine.tool_calls import ToolCallParsed
from custom_components.local_agent.engine.types import Conversation
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.turn import agent as agent_module
from homeassistant import config_entries
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import CONF_API_KEY
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from testing.any_tokens import check_grammar_calls
from testing.any_tokens import is_cut_off
from testing.any_tokens import longest_call_tokens
from testing.model_files import QWEN35_TEMPLATE_PATH
from testing.model_files import qwen35_high_byte_tokens
from testing.real_llama_server import RealLlamaServer
from testing.real_llama_server import require_llama_server
from testing.real_llama_server import running_real_llama_server
from testing.real_llama_server import start_real_llama_server
from testing.steering import CallAfterReasoning
from testing.steering import first_round_of_turn
from tests.integration.agents import speech
from tests.integration.conftest import async_add_entry
from tests.integration.conftest import entry_state
from tests.integration.scene import tool_results

from .conftest import alive
from .conftest import async_setup_agent_on
from .conftest import server_entry_data
from .conftest import worker_of

KEY = "real-llama-server-key"
GREEDY = {CONF_TEMPERATURE: 0.0, CONF_THINKING_BUDGET: 4}
BED_LIGHT = "light.bed_light"


@pytest.fixture(scope="module")
def qwen_server(qwen35_model_path: Path) -> Iterator[RealLlamaServer]:
    """llama-server with the qwen35 test model: two slots of 8,192 tokens, an API key."""
    require_llama_server()
    with running_real_llama_server(
        qwen35_model_path, api_key=KEY, parallel=2, n_ctx=16384, alias="qwen35-test"
    ) as server:
        yield server


@pytest.fixture(scope="module")
def gemma_server(gemma_model_path: Path) -> Iterator[RealLlamaServer]:
    """llama-server with Gemma 3 270M (its own chat template in /props), two threads."""
    require_llama_server()
    with running_real_llama_server(
        gemma_model_path, threads=2, n_ctx=4096, alias="gemma-3-270m"
    ) as server:
        yield server


@pytest.fixture
def qwen(qwen_server: RealLlamaServer, socket_enabled: None) -> RealLlamaServer:
    """The module's qwen35 server, alive."""
    return alive(qwen_server)


@pytest.fixture
def gemma(gemma_server: RealLlamaServer, socket_enabled: None) -> RealLlamaServer:
    """The module's Gemma server, alive."""
    return alive(gemma_server)


@pytest.fixture
async def disposable(
    hass: HomeAssistant, qwen35_model_path: Path, socket_enabled: None
) -> AsyncIterator[Callable[..., RealLlamaServer]]:
    """Start a qwen35 llama-server of the test's own (to kill, or with a tiny context)."""
    require_llama_server()
    started: list[RealLlamaServer] = []

    def start(**options: Any) -> RealLlamaServer:
        server = start_real_llama_server(qwen35_model_path, alias="qwen35-test", **options)
        started.append(server)
        server.wait_ready()
        return server

    yield start
    for server in started:
        server.stop()
        server.log_path.unlink(missing_ok=True)


class Recorder:
    """Every generation of a worker: its request, its events with arrival times, its output."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.requests: list[GenerationRequest] = []
        self.outputs: list[GenerationOutput] = []
        self.events: list[tuple[float, ParseEvent]] = []
        # Arrival times of the streamed pieces of answer text, as the server sent them (the
        # engine publishes an answer only up to a turn marker).
        self.pieces: list[float] = []
        self.on_first_event: Callable[[], None] | None = None
        generate = ServerWorker.generate
        stream = ServerClient.stream

        async def timed_stream(
            client: ServerClient, path: str, body: Mapping[str, Any]
        ) -> AsyncGenerator[dict[str, Any]]:
            async for event in stream(client, path, body):
                choices = event.get("choices") or [{}]
                delta = choices[0].get("delta") or {}
                if delta.get("content") or choices[0].get("text"):
                    self.pieces.append(time.monotonic())
                yield event

        monkeypatch.setattr(ServerClient, "stream", timed_stream)

        async def recorded(
            worker: ServerWorker,
            request: GenerationRequest,
            on_event: Callable[[ParseEvent], None] | None = None,
        ) -> GenerationOutput:
            self.requests.append(request)

            def note(event: ParseEvent) -> None:
                self.events.append((time.monotonic(), event))
                if len(self.events) == 1 and self.on_first_event is not None:
                    self.on_first_event()
                if on_event is not None:
                    on_event(event)

            output = await generate(worker, request, note)
            self.outputs.append(output)
            return output

        monkeypatch.setattr(ServerWorker, "generate", recorded)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    return Recorder(monkeypatch)


def _force_calls(
    monkeypatch: pytest.MonkeyPatch, max_tokens: Callable[[GenerationRequest], int]
) -> None:
    def build(*args: Any, **kwargs: Any) -> GenerationRequest:
        request = GenerationRequest(*args, **kwargs)
        return replace(request, max_tokens=max_tokens(request))

    monkeypatch.setattr(agent_module, "GenerationRequest", build)
    monkeypatch.setattr(ServerWorker, "steering", CallAfterReasoning(wants=first_round_of_turn))


@pytest.fixture
def forced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Force a call in the first round of each turn, with room for the reasoning and the
    longest call the grammar allows (later rounds answer freely, in 120 tokens)."""

    def room(request: GenerationRequest) -> int:
        if not first_round_of_turn(request):
            return 120
        return (request.thinking_budget or 0) + longest_call_tokens(request.tools)

    _force_calls(monkeypatch, room)


@pytest.fixture
def forced_whole_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """Force a call, with room for the longest one the grammar allows (a random model may write
    any of them)."""
    _force_calls(monkeypatch, lambda _request: 800)


# The markup that starts or ends reasoning or a call (single tokens of the test model).
MARKUP = ("<think>", "</think>", "<tool_call>")


def shape_answers(
    monkeypatch: pytest.MonkeyPatch,
    *,
    endless: bool = True,
    never: tuple[str, ...] = (),
    utf8: bool = False,
) -> None:
    """Shape every generation, whatever tokens the random model would pick (llama-server's
    ignore_eos and logit_bias): `endless` runs it to max_tokens, without turn markers (a random
    model writes them, and completions mode ends the answer there); it writes none of the
    tokens `never` names; with `utf8`, no byte that could make its text invalid UTF-8 (which
    llama-server's chat endpoint fails on)."""
    bans: list[list[Any]] = [[text, False] for text in never]
    if utf8:
        bans += [[token, False] for token in qwen35_high_byte_tokens()]
    extra: dict[str, Any] = {"ignore_eos": True} if endless else {}
    if bans:
        extra["logit_bias"] = bans
    for module in (server_completions, server_chat):
        fields = module.sampling_fields

        def shaped_fields(sampling: Any, fields: Any = fields) -> dict[str, Any]:
            return {**fields(sampling), **extra}

        monkeypatch.setattr(module, "sampling_fields", shaped_fields)
    if not endless:
        return

    # The worker's own render_request is the one it imports from generation.py.
    def without_stops(template: ChatTemplate, request: GenerationRequest) -> PromptParts:
        return replace(render_request(template, request), stop=())

    monkeypatch.setattr(server_worker_module, "render_request", without_stops)


@pytest.fixture
def endless(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every generation run to max_tokens."""
    shape_answers(monkeypatch)


@pytest.fixture
def plain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every generation plain UTF-8 text (or reasoning) that runs to max_tokens."""
    shape_answers(monkeypatch, never=MARKUP, utf8=True)


def without_conversation(
    hass: HomeAssistant, states: dict[str, str] | None = None
) -> dict[str, str]:
    """Every entity's state but the agents' own (which note when they last answered)."""
    if states is None:
        states = {state.entity_id: state.state for state in hass.states.async_all()}
    return {key: value for key, value in states.items() if not key.startswith("conversation.")}


def shared_start(first: str, second: str) -> int:
    """How many characters two texts share from their start."""
    length = 0
    for mine, theirs in zip(first, second, strict=False):
        if mine != theirs:
            break
        length += 1
    return length


async def get_json(hass: HomeAssistant, server: RealLlamaServer, path: str) -> Any:
    headers = {"Authorization": f"Bearer {server.api_key}"} if server.api_key else {}
    async with async_get_clientsession(hass).get(server.root + path, headers=headers) as response:
        assert response.status == 200, await response.text()
        return await response.json()


def expose_only(hass: HomeAssistant, *entity_ids: str) -> None:
    """A small home keeps Gemma's prompt (evaluated at ~230 tok/s on 2 threads) short."""
    for state in hass.states.async_all():
        async_expose_entity(hass, "conversation", state.entity_id, state.entity_id in entity_ids)


# --- Completions mode -------------------------------------------------------------------------


async def test_completions_prompt_from_props_and_grammar_through_the_agent(
    hass: HomeAssistant,
    demo_home: None,
    qwen: RealLlamaServer,
    forced_whole_calls: None,
    recorder: Recorder,
) -> None:
    """The prompt is rendered with the template llama-server shows at /props; the forced call
    continues under our GBNF, so whatever the model writes, each call it completes is
    well-formed and the agent runs it (or refuses a value precisely); a call cut off at
    max_tokens is refused, never run. The first call always has room to end by itself."""
    agent = await async_setup_agent_on(hass, qwen, api_key=KEY, **GREEDY)
    props = await get_json(hass, qwen, "/props")
    data = agent.entry.runtime_data
    assert data.worker.chat_template.source == "server"
    assert data.worker.chat_template.text == props["chat_template"]
    assert props["chat_template"].strip() == QWEN35_TEMPLATE_PATH.read_text().strip()
    assert data.worker.info.n_ctx == 8192  # 16,384 shared by --parallel 2
    assert data.worker.info.metadata["server.kind"] == "llama.cpp server"

    result = await agent.ask("turn on the bed light")

    first = recorder.outputs[0]
    calls = check_grammar_calls(first.events, first.stats.finish_reason, recorder.requests[0].tools)
    assert calls, first.text
    assert not is_cut_off(calls[0]), first.text
    assert recorder.outputs[0].prompt.static.startswith("<|im_start|>system\n")
    results = tool_results(hass, result)
    assert len(results) >= len(calls)  # later rounds may call again
    for call, tool_result in zip(calls, results, strict=False):
        if isinstance(call, ToolCallParsed):
            assert ("entities" in tool_result) or ("error" in tool_result)  # ran, or refused
        else:
            assert tool_result == {"error": call.error.message}  # never run
    assert first.stats.prompt_tokens > 1000
    assert speech(result)


@pytest.mark.parametrize("grammar", [True, False])
async def test_a_call_that_breaks_the_grammar_is_impossible(
    hass: HomeAssistant,
    demo_home: None,
    qwen: RealLlamaServer,
    forced: None,
    recorder: Recorder,
    grammar: bool,
) -> None:
    """Six sampled answers (temperature 1, six seeds) after `<tool_call>`. With our grammar
    sent to llama-server each complete call is a well-formed call of an offered tool with its
    own parameters (a value may still be refused: the grammar does not know ranges), and the
    first always has room to end by itself; without it the random model writes no valid call."""
    agent = await async_setup_agent_on(
        hass, qwen, api_key=KEY, grammar=grammar, **{**GREEDY, CONF_THINKING: False}
    )
    await agent.ask("turn on the bed light")
    request = recorder.requests[0]
    assert first_round_of_turn(request)
    worker = worker_of(agent)
    limit = longest_call_tokens(request.tools) if grammar else 200

    for seed in range(6):
        sampling = replace(request.sampling, temperature=1.0, seed=seed)
        output = await worker.generate(replace(request, sampling=sampling, max_tokens=limit))
        if grammar:
            calls = check_grammar_calls(output.events, output.stats.finish_reason, request.tools)
            assert calls, output.text
            assert not is_cut_off(calls[0]), output.text
        else:
            assert not any(isinstance(event, ToolCallParsed) for event in output.events)


# --- Chat mode --------------------------------------------------------------------------------


async def test_chat_mode_renders_tools_and_calls_in_the_history(
    hass: HomeAssistant,
    demo_home: None,
    qwen: RealLlamaServer,
    forced: None,
    recorder: Recorder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """llama-server --jinja renders our messages, tools and a round's calls and results (sent
    back as OpenAI `tool_calls` with matching ids) with the model's template, and answers.
    (The random model does not write calls of its own in chat mode: the server's `required`
    grammar lets it write text first, so this test gives it a call in the history. It writes
    valid UTF-8 only, which the chat endpoint needs.)"""
    shape_answers(monkeypatch, endless=False, utf8=True)
    agent = await async_setup_agent_on(
        hass,
        qwen,
        mode=ServerMode.CHAT,
        api_key=KEY,
        **{**GREEDY, CONF_THINKING: False, CONF_MAX_TOKENS: 24},
    )
    await agent.ask("turn on the bed light")
    first = recorder.requests[0]
    assert isinstance(first.prompt, Conversation)
    call = ToolCall("light", {"action": "turn_on", "entity_id": BED_LIGHT})
    history = (
        *first.prompt.messages,
        Message("assistant", "", tool_calls=[call]),
        Message("tool", json.dumps({"entities": [BED_LIGHT]}), tool_name="light"),
    )
    conversation_ = replace(first.prompt, messages=history)
    shape_answers(monkeypatch, never=MARKUP, utf8=True)  # 24 tokens of text, whatever they are

    output = await worker_of(agent).generate(replace(first, prompt=conversation_, max_tokens=24))

    assert output.stats.finish_reason == "length"
    assert output.stats.generated_tokens == 24
    # The rendered history is longer than the first round's prompt by the call and its result.
    assert output.stats.prompt_tokens > recorder.outputs[0].stats.prompt_tokens + 20
    assert worker_of(agent).server_parses_calls is not False  # no call came back as text


async def test_chat_mode_honours_enable_thinking(
    hass: HomeAssistant, demo_home: None, qwen: RealLlamaServer, recorder: Recorder, plain: None
) -> None:
    """Thinking on: the template opens a think block and the server streams reasoning_content.
    Off: the template writes an empty think block (a longer prompt) and no reasoning comes.
    (The model writes 16 tokens and no think tags, whatever it would pick.)"""
    outputs = {}
    for thinking in (True, False):
        agent = await async_setup_agent_on(
            hass,
            qwen,
            mode=ServerMode.CHAT,
            api_key=KEY,
            **{CONF_TEMPERATURE: 0.0, CONF_THINKING: thinking, CONF_MAX_TOKENS: 16},
            **{CONF_THINKING_BUDGET: 0},
        )
        recorder.outputs.clear()
        await agent.ask("hello")
        outputs[thinking] = recorder.outputs[0]
        await hass.config_entries.async_unload(agent.entry.entry_id)

    on, off = outputs[True], outputs[False]
    assert any(isinstance(event, ReasoningDelta) for event in on.events)
    assert on.stats.reasoning_tokens > 0
    assert not any(isinstance(event, ReasoningDelta) for event in off.events)
    assert off.stats.reasoning_tokens == 0
    # "<think>\n\n</think>\n\n" instead of "<think>\n": two more prompt tokens.
    assert off.stats.prompt_tokens - on.stats.prompt_tokens == 2


async def test_gemma_answer_streams_in_chat_mode(
    hass: HomeAssistant, demo_home: None, gemma: RealLlamaServer, recorder: Recorder, endless: None
) -> None:
    """The real Gemma model; llama-server renders the prompt (its file carries no template, so
    the server's generic one). The answer streams: its pieces arrive one by one while the
    server is still writing, not all at the end. (It writes all 32 tokens: a CPU on which it
    would end sooner changes nothing.)"""
    expose_only(hass, BED_LIGHT)
    agent = await async_setup_agent_on(
        hass,
        gemma,
        mode=ServerMode.CHAT,
        # No tools: a shorter prompt (Gemma evaluates ~230 tokens/s on 2 idle cores).
        **{CONF_TEMPERATURE: 0.0, CONF_THINKING: False, CONF_MAX_TOKENS: 32},
        **{CONF_HOME_TOOLS: False},
    )
    props = await get_json(hass, gemma, "/props")
    assert "tools" not in props["chat_template"]
    assert agent.entry.runtime_data.worker.chat_template.source == "bundled"  # for completions mode
    started = time.monotonic()

    result = await agent.ask("Say hello to the family.")

    ended = time.monotonic()
    output = recorder.outputs[0]
    assert output.stats.prompt_tokens > 100
    assert output.stats.generated_tokens == 32, output.text
    texts = recorder.pieces
    assert len(texts) >= 8
    assert texts[0] - started < (ended - started) * 0.9
    assert texts[-1] - texts[0] > 0.1  # ~34 tokens/s on 2 threads
    assert speech(result)


# --- Several conversations, cancellation, failures ---------------------------------------------


async def test_four_conversations_on_two_slots(
    hass: HomeAssistant,
    demo_home: None,
    qwen: RealLlamaServer,
    recorder: Recorder,
    monkeypatch: pytest.MonkeyPatch,
    plain: None,
) -> None:
    """Four at once, two on the server at a time: each gets its own answer, none mixed up.
    (Each answer is 40 tokens of text, whatever they are: none ends early or calls a tool.)"""
    agent = await async_setup_agent_on(
        hass,
        qwen,
        api_key=KEY,
        max_concurrent=2,
        **{CONF_TEMPERATURE: 0.0, CONF_THINKING: False, CONF_MAX_TOKENS: 40},
    )
    questions = [f"What is number {n}?" for n in range(4)]

    def seeded(*args: Any, **kwargs: Any) -> GenerationRequest:
        # Sampled (temperature 1) with a seed of each question's own: different answers that
        # must come out the same whether the conversation ran alone or beside the others.
        request = GenerationRequest(*args, **kwargs)
        assert isinstance(request.prompt, Conversation)
        asked = [m.content for m in request.prompt.messages if m.role == "user"]
        seed = next(n for n, question in enumerate(questions) if question in asked[-1])
        return replace(request, sampling=replace(request.sampling, temperature=1.0, seed=seed))

    monkeypatch.setattr(agent_module, "GenerationRequest", seeded)
    alone = [speech(await agent.ask(question)) for question in questions]
    worker = worker_of(agent)
    assert worker.peak_active == 1

    together = await asyncio.gather(*(agent.ask(question) for question in questions))

    assert worker.peak_active == 2
    assert not worker.busy
    assert all(alone), alone
    assert len(set(alone)) > 1, "the questions should get different answers"
    # Each conversation got its own answer, not pieces of another's: llama-server does not
    # promise bit-identical numbers when two slots share a batch, so a seeded answer may drift
    # after a while, but it starts as the same conversation alone did, unlike the others.
    for number, result in enumerate(together):
        answer = speech(result)
        shared = [shared_start(answer, other) for other in alone]
        own = shared.pop(number)
        assert own > max(shared), (number, answer, alone)
    slots = await get_json(hass, qwen, "/slots")
    assert len(slots) == 2
    assert all(slot["n_ctx"] == 8192 for slot in slots)


async def test_cancelling_the_turn_stops_the_servers_generation(
    hass: HomeAssistant, demo_home: None, qwen: RealLlamaServer, endless: None
) -> None:
    agent = await async_setup_agent_on(
        hass,
        qwen,
        api_key=KEY,
        **{CONF_TEMPERATURE: 1.0, CONF_THINKING: False, CONF_MAX_TOKENS: 6000},
    )
    log_start = len(qwen.log())
    turn = hass.async_create_task(agent.ask("write a long story"))

    slot = await wait_for_slot(hass, qwen, lambda slot: slot_decoded(slot) > 20)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    await wait_for_slots_idle(hass, qwen)

    # The server's own record. A turn may run in several requests (a random model that writes
    # <tool_call> has its stream closed and continued under the grammar), but with ignore_eos
    # none of them can end by itself: every one was cancelled, the last by the turn's cancel.
    log = await wait_for_log(hass, qwen, log_start, every_launched_task_released)
    launched = [int(task) for task in re.findall(r"launch_slot_: id +\d+ \| task (\d+)", log)]
    cancelled = {int(task) for task in re.findall(r"cancel task, id_task = (\d+)", log)}
    assert slot["id_task"] in launched, log
    assert set(launched) <= cancelled, log
    assert "eval time" not in log, "a generation of the turn ran to its end"
    assert not worker_of(agent).busy


async def test_server_killed_mid_answer_runs_nothing_and_says_so(
    hass: HomeAssistant,
    demo_home: None,
    disposable: Callable[..., RealLlamaServer],
    recorder: Recorder,
    endless: None,
) -> None:
    server = await hass.async_add_executor_job(disposable)
    agent = await async_setup_agent_on(
        hass, server, **{CONF_TEMPERATURE: 1.0, CONF_THINKING: False, CONF_MAX_TOKENS: 6000}
    )
    recorder.on_first_event = server.kill
    states = without_conversation(hass)

    result = await agent.ask("turn on the bed light")

    assert recorder.events, "nothing was streamed before the kill"
    assert speech(result) == (
        f"The connection to the model server at {server.root} broke off before the answer "
        "was complete, so I did nothing."
    )
    assert tool_results(hass, result) == []
    assert without_conversation(hass) == states


async def test_wrong_api_key_asks_for_the_right_one(
    hass: HomeAssistant, demo_home: None, qwen: RealLlamaServer
) -> None:
    entry = MockConfigEntry(
        domain=DOMAIN,
        data=server_entry_data(qwen.base_url, qwen.model_id, api_key="wrong"),
        unique_id=f"{qwen.root}#{qwen.model_id}",
    )
    await async_add_entry(hass, entry)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert entry.reason is not None
    assert entry.reason.startswith(f"The model server at {qwen.root} refused the API key.")
    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [flow["context"]["source"] for flow in flows] == [config_entries.SOURCE_REAUTH]
    flow_id = flows[0]["flow_id"]
    refused = await hass.config_entries.flow.async_configure(flow_id, {CONF_API_KEY: "wrong 2"})
    assert refused["type"] is FlowResultType.FORM
    assert refused["errors"] == {"base": "invalid_auth"}

    done = await hass.config_entries.flow.async_configure(flow_id, {CONF_API_KEY: KEY})
    await hass.async_block_till_done()

    assert done["type"] is FlowResultType.ABORT
    assert done["reason"] == "reauth_successful"
    assert entry_state(entry) is ConfigEntryState.LOADED
    assert entry.data[CONF_API_KEY] == KEY


@pytest.mark.parametrize("mode", [ServerMode.COMPLETIONS, ServerMode.CHAT])
async def test_context_overflow_is_spoken_as_such(
    hass: HomeAssistant,
    demo_home: None,
    disposable: Callable[..., RealLlamaServer],
    mode: ServerMode,
) -> None:
    server = await hass.async_add_executor_job(lambda: disposable(n_ctx=512))
    agent = await async_setup_agent_on(hass, server, mode=mode)

    result = await agent.ask("turn on the bed light")

    said = re.fullmatch(
        rf"This conversation is too long for the model server at {re.escape(server.root)}: "
        r"it needs (\d+) tokens but the server gives a conversation 512\. Start a new "
        r"conversation, expose fewer entities, or start the server with a larger --ctx-size "
        r"\(llama-server divides it among its --parallel slots\)\.",
        speech(result),
    )
    assert said, speech(result)
    assert int(said[1]) > 512
    # The server's log is written by a thread of its own: the line may come after the answer.
    overflow = "exceeds the available context size"
    assert overflow in await wait_for_log(hass, server, 0, lambda log: overflow in log)


# --- /slots -------------------------------------------------------------------------------------


def slot_decoded(slot: dict[str, Any]) -> int:
    next_token = slot.get("next_token") or [{}]
    return int(next_token[0].get("n_decoded", 0))


async def wait_for_slot(
    hass: HomeAssistant,
    server: RealLlamaServer,
    condition: Callable[[dict[str, Any]], bool],
    seconds: float = 30.0,
) -> dict[str, Any]:
    """Poll /slots until a processing slot meets the condition; return it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for slot in await get_json(hass, server, "/slots"):
            if slot["is_processing"] and condition(slot):
                return dict(slot)
        await asyncio.sleep(0.02)
    raise AssertionError(f"no slot got there in {seconds} s:\n{server.log_tail()}")


def every_launched_task_released(log: str) -> bool:
    launched = re.findall(r"launch_slot_: id +\d+ \| task (\d+)", log)
    released = re.findall(r"release: id +\d+ \| task (\d+)", log)
    return set(launched) <= set(released)


async def wait_for_log(
    hass: HomeAssistant,
    server: RealLlamaServer,
    start: int,
    condition: Callable[[str], bool],
    seconds: float = 5.0,
) -> str:
    """The server's log from start on, once it meets the condition (it is written by a thread)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition(server.log()[start:]):
            break
        await asyncio.sleep(0.05)
    # Lines written just before the last release (the cancel) may still be on their way.
    await asyncio.sleep(0.2)
    return server.log()[start:]


async def wait_for_slots_idle(
    hass: HomeAssistant, server: RealLlamaServer, seconds: float = 5.0
) -> list[dict[str, Any]]:
    """Poll /slots until no slot is processing; return them."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        slots: list[dict[str, Any]] = await get_json(hass, server, "/slots")
        if not any(slot["is_processing"] for slot in slots):
            return slots
        await asyncio.sleep(0.05)
    raise AssertionError(f"the server still generates {seconds} s after the cancel")
