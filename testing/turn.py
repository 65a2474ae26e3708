"""Send one sentence to an agent and record what the turn did.

Recorded: the answer, every tool call with its result (from the chat log), the state changes
of the home, each model round's prompt and figures (at the worker boundary), the agent's
TurnReport, and the time spent rendering prompts (wrapped around the agent's renderer).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterator
from collections.abc import Mapping
import contextlib
from dataclasses import dataclass
from dataclasses import field
from dataclasses import fields
import time
from typing import Any
from unittest.mock import patch

from custom_components.local_agent.engine import chat_format
from custom_components.local_agent.engine.generation import GenerationOutput
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.generation import GenerationStats
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.turn.plain_answer import calls_with_results
from custom_components.local_agent.turn.report import TurnReport
from homeassistant.components import conversation
from homeassistant.components.conversation.chat_log import DATA_CHAT_LOGS
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from testing.agent import LocalAgentHandle
from testing.any_tokens import CUT_OFF

# Domains whose states change by themselves during a turn (the agent's own entity).
IGNORED_DOMAINS = frozenset({"conversation"})

type Snapshot = dict[str, tuple[str, dict[str, Any], Context]]


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """A call the model made and what it got back."""

    name: str
    arguments: dict[str, Any]
    result: Any
    error: bool


@dataclass(frozen=True, slots=True)
class StateChange:
    """How one entity changed during the turn; None for a state that (dis)appeared.

    `by_turn`: the change carries the turn's context (a service call the agent made), as
    opposed to a device changing by itself meanwhile (e.g. a demo sensor counting up).
    """

    entity_id: str
    old_state: str | None
    new_state: str | None
    attributes: dict[str, tuple[Any, Any]]
    by_turn: bool = True


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One model call: the prompt it saw and what it cost."""

    static_prompt: str
    dynamic_prompt: str
    tools: tuple[str, ...]
    stats: GenerationStats | None


@dataclass(slots=True)
class TurnRecord:
    """Everything one turn did."""

    text: str
    answer: str
    conversation_id: str | None
    continue_conversation: bool
    reasoning: list[str] = field(default_factory=list)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    state_changes: list[StateChange] = field(default_factory=list)
    rounds: list[RoundRecord] = field(default_factory=list)
    report: TurnReport | None = None
    render_seconds: float = 0.0
    wall_seconds: float = 0.0


@dataclass(slots=True)
class TurnProbe:
    """What probe_turn saw: each model round, and the time spent rendering prompts."""

    rounds: list[RoundRecord] = field(default_factory=list)
    render_seconds: float = 0.0


@contextlib.contextmanager
def probe_turn(
    handle: LocalAgentHandle, on_event: Callable[[ParseEvent], None] | None = None
) -> Iterator[TurnProbe]:
    """Record each generation request and time the agent's prompt rendering.

    on_event: each event the engine parsed, as it parsed it (before the agent streams it).
    """
    probe = TurnProbe()
    worker = handle.worker
    generate = worker.generate

    async def recording_generate(
        request: GenerationRequest, agent_on_event: Callable[[ParseEvent], None] | None = None
    ) -> GenerationOutput:
        tools = tuple(spec.name for spec in request.tools)
        index = len(probe.rounds)
        probe.rounds.append(RoundRecord("", "", tools, None))

        def both(event: ParseEvent) -> None:
            if on_event is not None:
                on_event(event)
            if agent_on_event is not None:
                agent_on_event(event)

        output = await generate(request, both)
        probe.rounds[index] = RoundRecord(
            output.prompt.static, output.prompt.dynamic, tools, output.stats
        )
        return output

    render = chat_format.render_split

    def timed_render(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return render(*args, **kwargs)
        finally:
            # The engine renders each request's prompt; preparing the next turn is not counted.
            if kwargs.get("add_generation_prompt", True):
                probe.render_seconds += time.perf_counter() - started

    with (
        patch.object(worker, "generate", recording_generate),
        patch.object(chat_format, "render_split", timed_render),
    ):
        yield probe


def snapshot(hass: HomeAssistant) -> Snapshot:
    """Return every state, its attributes and context, except IGNORED_DOMAINS."""
    return {
        state.entity_id: (state.state, dict(state.attributes), state.context)
        for state in hass.states.async_all()
        if state.domain not in IGNORED_DOMAINS
    }


def state_changes(
    before: Snapshot, after: Snapshot, turn_context: Context | None = None
) -> list[StateChange]:
    """Return what differs between two snapshots, sorted by entity id.

    With turn_context, each change says whether the turn caused it (its context or a child).
    """
    changes: list[StateChange] = []
    for entity_id in sorted(before.keys() | after.keys()):
        old_state, old_attributes, _ = before.get(entity_id, (None, {}, None))
        new_state, new_attributes, context = after.get(entity_id, (None, {}, None))
        attributes = {
            key: (old_attributes.get(key), new_attributes.get(key))
            for key in sorted(old_attributes.keys() | new_attributes.keys())
            if old_attributes.get(key) != new_attributes.get(key)
        }
        if old_state == new_state and not attributes:
            continue
        by_turn = turn_context is None or (
            context is not None and turn_context.id in (context.id, context.parent_id)
        )
        changes.append(StateChange(entity_id, old_state, new_state, attributes, by_turn))
    return changes


def chat_log_of(
    hass: HomeAssistant, result: conversation.ConversationResult
) -> conversation.ChatLog:
    """The chat log of a turn that an agent answered (so it has a conversation id)."""
    assert result.conversation_id is not None, "the turn has no conversation id"
    return hass.data[DATA_CHAT_LOGS][result.conversation_id]


def logged_words(chat_log: conversation.ChatLog) -> str:
    """Everything a chat log keeps of what was said and done, but not when (its timestamps'
    digits could read like a PIN)."""
    return repr(
        [
            {f.name: getattr(content, f.name) for f in fields(content) if f.name != "created"}
            for content in chat_log.content
        ]
    )


def calls_in(chat_log: conversation.ChatLog) -> list[llm.ToolInput]:
    """The tool calls the model made in a chat log, in order."""
    return [
        call
        for content in chat_log.content
        if isinstance(content, conversation.AssistantContent)
        for call in content.tool_calls or ()
    ]


def results_in(chat_log: conversation.ChatLog) -> list[dict[str, Any]]:
    """The data of each tool result in a chat log, in order."""
    return [
        dict(content.result.data)
        for content in chat_log.content
        if isinstance(content, conversation.ToolResultContent)
    ]


def check_calls_ran_or_were_refused(
    chat_log: conversation.ChatLog, offered: Collection[str]
) -> list[llm.ToolInput]:
    """Check a random model's grammar-bound calls, as they hold for any tokens; return them.

    The first is of an offered tool; each either ran or was refused with the reason: a value
    the grammar cannot check (such as a range), or the end of the answer cutting it off.
    """
    calls, results = calls_in(chat_log), results_in(chat_log)
    assert calls, "the grammar-constrained model wrote no call"
    assert calls[0].tool_name in offered
    assert len(results) == len(calls)
    for call, result in zip(calls, results, strict=True):
        error = result.get("error")
        assert ("entities" in result) or error
        if not call.tool_args:
            assert isinstance(error, str), error
            assert "Parameter '" in error or error.endswith(CUT_OFF), error
    return calls


def check_every_call_held(
    hass: HomeAssistant,
    result: conversation.ConversationResult,
    tool: str,
    before: Mapping[str, str],
) -> None:
    """Check that every call of the turn was of `tool` and waits for the person's yes.

    Nothing changed (`before`: the states of the entities it could change) and the agent
    asked its question.
    """
    chat_log = chat_log_of(hass, result)
    calls = [call.tool_name for call in calls_in(chat_log)]
    results = results_in(chat_log)
    assert calls, results
    assert set(calls) == {tool}, (calls, results)
    assert all("waiting for the user's confirmation" in str(item) for item in results)
    now = {entity_id: hass.states.get(entity_id) for entity_id in before}
    assert {entity_id: s.state if s else None for entity_id, s in now.items()} == before
    assert str(result.response.speech["plain"]["speech"]).endswith("Say yes to confirm.")
    assert result.continue_conversation is True


def _chat_log_content(hass: HomeAssistant, conversation_id: str | None) -> list[Any]:
    if conversation_id is None:
        return []
    chat_log = hass.data.get(DATA_CHAT_LOGS, {}).get(conversation_id)
    return list(chat_log.content) if chat_log is not None else []


def tool_calls(content: list[Any]) -> list[ToolCallRecord]:
    """Pair the calls in chat log content with their results."""
    return [
        ToolCallRecord(
            name=call.tool_name,
            arguments=dict(call.tool_args),
            result=result.data if result else None,
            error=result.error if result else True,
        )
        for call, result in calls_with_results(content)
    ]


def _reasoning(content: list[Any]) -> list[str]:
    return [
        item.thinking_content
        for item in content
        if isinstance(item, conversation.AssistantContent) and item.thinking_content
    ]


async def async_run_turn(
    handle: LocalAgentHandle,
    text: str,
    *,
    conversation_id: str | None = None,
    language: str = "en",
    user_id: str | None = None,
    device_id: str | None = None,
    on_delta: Callable[[dict[str, Any]], None] | None = None,
    on_event: Callable[[ParseEvent], None] | None = None,
) -> TurnRecord:
    """Send text to the agent (continuing conversation_id) and record the turn.

    user_id: the person speaking; None is how an automation calls the agent.
    device_id: the device it was spoken to (a satellite in its area), if any.
    on_delta: each piece of the answer as it streams (LocalAgentHandle.async_ask).
    on_event: each event the engine parsed, when it parsed it (probe_turn).
    """
    hass = handle.hass
    seen = len(_chat_log_content(hass, conversation_id))
    previous_report = handle.agent.last_report
    before = snapshot(hass)
    context = Context(user_id=user_id)
    with probe_turn(handle, on_event) as probe:
        started = time.perf_counter()
        result = await handle.async_ask(
            text,
            conversation_id=conversation_id,
            language=language,
            context=context,
            device_id=device_id,
            on_delta=on_delta,
        )
        wall_seconds = time.perf_counter() - started
    await hass.async_block_till_done()
    content = _chat_log_content(hass, result.conversation_id)[seen:]
    speech = result.response.speech.get("plain", {}).get("speech", "")
    report = handle.agent.last_report
    return TurnRecord(
        text=text,
        answer=str(speech),
        conversation_id=result.conversation_id,
        continue_conversation=result.continue_conversation,
        reasoning=_reasoning(content),
        tool_calls=tool_calls(content),
        state_changes=state_changes(before, snapshot(hass), context),
        rounds=probe.rounds,
        report=report if report is not previous_report else None,
        render_seconds=probe.render_seconds,
        wall_seconds=wall_seconds,
    )
