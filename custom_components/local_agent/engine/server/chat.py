"""Chat mode: /v1/chat/completions, where the server renders the prompt and parses tool calls.

The request carries the agent's system text, history and tools in OpenAI form, with
`chat_template_kwargs: {"enable_thinking": ...}` (vLLM and llama-server pass it to the
template; llama-cpp-python's server ignores it and takes `--chat_template_kwargs` at start).

The stream is mapped to the engine's events:
* `reasoning_content` (llama-server, older vLLM) or `reasoning` (vLLM) -> ReasoningDelta;
* `content` -> our XML parser, so a server without a tool parser (llama-cpp-python's) still
  yields calls; a server without a reasoning parser sends the reasoning as content, ending with
  `</think>`: with thinking on, content that arrives before any reasoning is read as reasoning
  until `</think>` (and turned into the answer if no `</think>` ever comes);
* `tool_calls` deltas (arguments accumulated as JSON text) -> ToolCallParsed/ToolCallFailed,
  typed and validated by the same code as XML calls.

Calls in the history go back as OpenAI `tool_calls` with matching `tool_call_id`s, except to a
server that has returned calls as text: its template cannot read structured calls
(llama-cpp-python renders `arguments` as a string and fails), so they go back as the XML the
model wrote.

Thinking budget: after that many reasoning pieces (one per token on llama.cpp servers and
vLLM) the stream is closed and the request sent again with thinking off, so the model answers.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
import contextlib
from dataclasses import dataclass
from dataclasses import field
import json
from typing import Any
from typing import Final

from ..chat_format import SYSTEM_SEPARATOR
from ..chat_format import PromptParts
from ..errors import EngineError
from ..generation import AnswerProgress
from ..generation import GenerationOutput
from ..generation import GenerationRequest
from ..generation import GenerationStats
from ..generation import Steering
from ..markup import CALL_CLOSE
from ..markup import CALL_OPEN
from ..markup import REASONING_CLOSE
from ..markup import THINK_CLOSE
from ..markup import escape_conversation
from ..markup import escape_tools
from ..markup import format_tool_call
from ..tool_calls import ParseEvent
from ..tool_calls import ReasoningDelta
from ..tool_calls import TextDelta
from ..tool_calls import ToolCallFailed
from ..tool_calls import ToolCallParsed
from ..tool_calls import ToolCallStreamParser
from ..types import Conversation
from ..types import Message
from ..types import ToolCallError
from ..types import ToolSpec
from .errors import ServerConnectionLostError
from .http import ServerClient
from .stream import Clock
from .stream import EventSink
from .stream import Usage
from .stream import bad_event
from .stream import event_field
from .stream import sampling_fields
from .stream import stream_choices

ENDPOINT: Final = "/v1/chat/completions"

type Json = dict[str, Any]


def tool_dict(tool: ToolSpec) -> Json:
    """Return a tool in OpenAI form."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def chat_messages(conversation: Conversation, *, calls_as_text: bool) -> list[Json]:
    """Return the system text and history in OpenAI form, every text escaped (markup.py)."""
    conversation = escape_conversation(conversation)
    system = conversation.system
    if conversation.system_context:
        system += SYSTEM_SEPARATOR + conversation.system_context
    messages: list[Json] = [{"role": "system", "content": system}]
    pending_ids: list[str] = []
    for index, message in enumerate(conversation.messages):
        if message.role == "tool":
            call_id = pending_ids.pop(0) if pending_ids else f"call_{index}"
            item: Json = {"role": "tool", "tool_call_id": call_id, "content": message.content}
            if message.tool_name is not None:
                item["name"] = message.tool_name
        elif message.role == "assistant":
            item = _assistant(message, index, pending_ids, calls_as_text=calls_as_text)
        else:
            item = {"role": message.role, "content": message.content}
        messages.append(item)
    return messages


def _assistant(
    message: Message, index: int, pending_ids: list[str], *, calls_as_text: bool
) -> Json:
    item: Json = {"role": "assistant", "content": message.content}
    if message.reasoning:
        item["reasoning_content"] = message.reasoning
    if not message.tool_calls:
        return item
    if calls_as_text:
        calls = "\n".join(format_tool_call(call) for call in message.tool_calls)
        item["content"] = f"{message.content}\n\n{calls}" if message.content else calls
        return item
    calls_json = []
    for number, call in enumerate(message.tool_calls):
        call_id = f"call_{index}_{number}"
        pending_ids.append(call_id)
        arguments = json.dumps(call.arguments, ensure_ascii=False, default=str)
        calls_json.append(
            {
                "id": call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": arguments},
            }
        )
    item["tool_calls"] = calls_json
    return item


def chat_body(
    request: GenerationRequest,
    conversation: Conversation,
    model: str,
    *,
    enable_thinking: bool,
    max_tokens: int,
    calls_as_text: bool,
    call_required: bool = False,
) -> Json:
    """Return the JSON of one chat completions request.

    call_required: the answer must be a call (`tool_choice: required`; a Steering's wish).
    """
    body: Json = {
        "model": model,
        "messages": chat_messages(conversation, calls_as_text=calls_as_text),
        "max_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
        "chat_template_kwargs": {"enable_thinking": enable_thinking},
        **sampling_fields(request.sampling),
    }
    if request.answer_schema is not None and not enable_thinking:
        # A grammar from the first token would constrain the reasoning too, so only an answer
        # without reasoning asks for the structure; the caller checks the answer either way.
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": request.answer_schema, "strict": True},
        }
    if request.tools:
        body["tools"] = [tool_dict(tool) for tool in escape_tools(request.tools)]
        if call_required:
            body["tool_choice"] = "required"
    return body


@dataclass(slots=True)
class _CallDelta:
    """A tool call being streamed: its name and the JSON text of its arguments so far."""

    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Attempt:
    finish: str | None = None
    reasoning_pieces: int = 0
    pieces: int = 0
    budget_hit: bool = False
    in_reasoning: bool = False


class ChatGeneration:
    """One generation through /v1/chat/completions."""

    def __init__(
        self,
        client: ServerClient,
        request: GenerationRequest,
        on_event: Callable[[ParseEvent], None] | None,
        *,
        calls_as_text: bool,
        steering: Steering | None = None,
    ) -> None:
        """Prepare; nothing is sent yet. calls_as_text: send history calls as XML text.

        Chat mode cannot insert text: a Steering is asked once, at the start of the answer,
        and a call it would open there becomes `tool_choice: required`.
        """
        if not isinstance(request.prompt, Conversation):
            raise EngineError("Chat mode sends a conversation; this request has prompt text")
        start = AnswerProgress(request, "", in_reasoning=False, in_call=False)
        wanted = steering.next_text(start) if steering is not None else None
        self._call_required = bool(wanted and wanted.startswith(CALL_OPEN))
        self._client = client
        self._request = request
        self._conversation = request.prompt
        self._sink = EventSink(on_event)
        self._calls_as_text = calls_as_text
        self._reasoning: list[str] = []
        self._content: list[str] = []
        self._calls: dict[int, _CallDelta] = {}
        self._native_text: list[str] = []
        self.stats = GenerationStats()
        self.native_calls = 0
        self.text_calls = 0

    async def run(self) -> GenerationOutput:
        """Stream the answer; once more without thinking if the budget ran out."""
        request = self._request
        thinking = self._conversation.enable_thinking
        attempt = await self._attempt(thinking, request.max_tokens)
        if attempt.budget_hit:
            self.stats.thinking_budget_hit = True
            remaining = max(request.max_tokens - attempt.pieces, 1)
            attempt = await self._attempt(False, remaining)
        self.stats.finish_reason = attempt.finish or "stop"
        # A stream that stopped at max_tokens may have cut the last call short, even where the
        # server returns it as complete JSON (llama-server closes partial arguments): fail closed.
        self._publish_native_calls(cut_off=attempt.finish == "length")
        text = "".join(self._content) + "".join(self._native_text)
        if self._reasoning:
            text = "".join(self._reasoning) + REASONING_CLOSE + text
        self._sink.finish()
        return GenerationOutput(
            text=text,
            events=self._sink.events,
            stats=self.stats,
            prompt=PromptParts(
                json.dumps(
                    chat_messages(self._conversation, calls_as_text=self._calls_as_text),
                    ensure_ascii=False,
                ),
                opens_reasoning=bool(self._reasoning),
            ),
        )

    async def _attempt(self, thinking: bool, max_tokens: int) -> _Attempt:
        request = self._request
        body = chat_body(
            request,
            self._conversation,
            self._client.settings.model,
            enable_thinking=thinking,
            max_tokens=max_tokens,
            calls_as_text=self._calls_as_text,
            call_required=self._call_required,
        )
        budget = request.thinking_budget if thinking else None
        reader = _ContentReader(request.tools, maybe_reasoning=thinking)
        attempt = _Attempt()
        usage = Usage()
        clock = Clock()
        choices = stream_choices(self._client, ENDPOINT, body, usage)
        async with contextlib.aclosing(choices):
            async for event, choice in choices:
                delta = event_field(self._client.url, event, choice, "delta", dict) or {}
                for call in event_field(self._client.url, event, delta, "tool_calls", list) or ():
                    if not isinstance(call, dict) or not isinstance(
                        call.get("function") or {}, dict
                    ):
                        raise bad_event(self._client.url, event)
                if self._read_delta(delta, reader, attempt, clock):
                    attempt.pieces += 1
                if choice.get("finish_reason"):
                    attempt.finish = str(choice["finish_reason"])
                if (
                    budget is not None
                    and attempt.in_reasoning
                    and attempt.reasoning_pieces >= budget
                ):
                    attempt.budget_hit = True
                    break
        clock.add_to(self.stats)
        if attempt.finish is None and not attempt.budget_hit:
            raise ServerConnectionLostError(
                self._client.url, "the stream ended before the answer was complete"
            )
        self._sink.publish(reader.finish(cut_short=attempt.budget_hit))
        self.text_calls += reader.calls
        stats = self.stats
        reported = usage.completion_tokens
        stats.generated_tokens += reported if reported is not None else attempt.pieces
        stats.reasoning_tokens += attempt.reasoning_pieces
        usage.fill_prompt(stats)
        return attempt

    def _read_delta(
        self, delta: Json, reader: _ContentReader, attempt: _Attempt, clock: Clock
    ) -> bool:
        """Publish what one delta carries; True if it carried any of the answer."""
        carried = False
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            clock.token()
            carried = True
            attempt.reasoning_pieces += 1
            attempt.in_reasoning = True
            reader.reasoning_seen()
            self._reasoning.append(reasoning)
            self._sink.publish([ReasoningDelta(reasoning)])
        content = delta.get("content")
        if isinstance(content, str) and content:
            clock.token()
            carried = True
            self._content.append(content)
            self._sink.publish(reader.feed(content))
            attempt.in_reasoning = reader.reasoning
            if reader.reasoning:
                attempt.reasoning_pieces += 1
        for call in delta.get("tool_calls") or ():
            if isinstance(call, dict):
                clock.token()
                carried = True
                attempt.in_reasoning = False
                self._add_call_delta(call)
        return carried

    def _add_call_delta(self, delta: Json) -> None:
        index = delta.get("index", len(self._calls))
        call = self._calls.setdefault(
            index if isinstance(index, int) else len(self._calls), _CallDelta()
        )
        function = delta.get("function") or {}
        if isinstance(function.get("name"), str):
            call.name += function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call.arguments.append(arguments)
        elif isinstance(arguments, dict):  # a server that sends the object itself
            call.arguments.append(json.dumps(arguments))

    def _publish_native_calls(self, *, cut_off: bool) -> None:
        last = max(self._calls, default=None)
        for index in sorted(self._calls):
            call = self._calls[index]
            if cut_off and index == last:
                raw = json.dumps({"name": call.name, "arguments": "".join(call.arguments)})
                message = f"The tool call to '{call.name}' was cut off before it was complete."
                self._sink.publish([ToolCallFailed(ToolCallError(message, raw, call.name))])
                self.native_calls += 1
                continue
            events = _typed_call(call, self._request.tools)
            self._sink.publish(events)
            self._native_text += [
                format_tool_call(event.call)
                for event in events
                if isinstance(event, ToolCallParsed)
            ]
            self.native_calls += 1
        self._calls.clear()


def _typed_call(call: _CallDelta, tools: Sequence[ToolSpec]) -> list[ParseEvent]:
    """Validate and type a server-parsed call with the same code as a JSON call in text."""
    arguments = "".join(call.arguments).strip() or "{}"
    text = json.dumps({"name": call.name, "arguments": arguments}, ensure_ascii=False)
    parser = ToolCallStreamParser(tools, starts_in_reasoning=False)
    events = parser.feed(f"{CALL_OPEN}{text}{CALL_CLOSE}") + parser.finish()
    return [event for event in events if isinstance(event, ToolCallParsed | ToolCallFailed)]


class _ContentReader:
    """Content through our XML parser; reasoning first if the server left it in the content."""

    def __init__(self, tools: Sequence[ToolSpec], *, maybe_reasoning: bool) -> None:
        self._tools = tools
        self._maybe_reasoning = maybe_reasoning
        self._parser: ToolCallStreamParser | None = None
        self._held_reasoning: list[str] = []
        self._closed = False
        self._tail = ""
        self.reasoning = False
        self.calls = 0

    def reasoning_seen(self) -> None:
        """Note that the server separates reasoning: content is the answer only."""
        self._maybe_reasoning = False

    def feed(self, content: str) -> list[ParseEvent]:
        if self._parser is None:
            self.reasoning = self._maybe_reasoning
            self._parser = ToolCallStreamParser(self._tools, starts_in_reasoning=self.reasoning)
        joined = self._tail + content
        self._tail = joined[-16:]
        if self.reasoning and (THINK_CLOSE in joined or CALL_OPEN in joined):
            self.reasoning = False
            self._closed = True
        return self._note(self._parser.feed(content))

    def finish(self, *, cut_short: bool) -> list[ParseEvent]:
        if self._parser is None:
            return []
        events = self._note(self._parser.finish())
        if self.reasoning and not self._closed and self._held_reasoning and not cut_short:
            # No </think> ever came: the server had separated the reasoning after all, and
            # this was the answer.
            events.append(TextDelta("".join(self._held_reasoning)))
        return events

    def _note(self, events: list[ParseEvent]) -> list[ParseEvent]:
        for event in events:
            if isinstance(event, ReasoningDelta):
                self._held_reasoning.append(event.text)
            if isinstance(event, ToolCallParsed | ToolCallFailed):
                self.calls += 1
        return events
