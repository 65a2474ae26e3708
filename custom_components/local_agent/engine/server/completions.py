r"""Completions mode: our prompt, our parser, our thinking budget and grammar, a server's model.

One generation may take several requests, each continuing the text so far (the prompt plus
everything written or inserted), which is how the in-process engine's interventions are made
over HTTP:

* Thinking budget: while the model reasons, a request may write at most the tokens left in the
  budget. When it stops there still reasoning, the next request continues after
  `\\n</think>\\n\\n`, so the model answers.
* Tool-call grammar: reasoning and answers stay free; as soon as the model writes
  `<tool_call>` the stream is closed there and the next request continues after it with our
  GBNF as `grammar` (llama-server and llama-cpp-python's server accept GBNF; other servers
  ignore the field, and the parser's validation still reports a malformed call). llama.cpp's
  lazy grammars (`grammar_lazy`, `grammar_triggers`) would save that request, but only
  llama-server has them; llama-cpp-python's server takes a plain `grammar` only.
* A Steering (tests, benchmarks: generation.Steering) is asked before each request; its text
  is written and the next request continues after it. With one set, the stream is also closed
  at `</think>`, so it can open the answer (a call, say).
* Structured answer (`answer_schema`, an AI task's structure): once reasoning is over (the
  stream is closed at `</think>`), the rest is requested with the GBNF of structure.py as
  `grammar`; where the server takes no grammar, the caller checks the answer instead.

Nothing is retried after text was streamed: a broken stream fails the generation, and the
agent runs no call of an unfinished generation.
"""

from __future__ import annotations

from collections.abc import Callable
import contextlib
from dataclasses import dataclass
from typing import Any
from typing import Final

from ..chat_format import PromptParts
from ..generation import MAX_CALLS_PER_ANSWER
from ..generation import AnswerProgress
from ..generation import GenerationOutput
from ..generation import GenerationRequest
from ..generation import GenerationStats
from ..generation import Steering
from ..generation import reasoning_ended
from ..grammar import build_tool_call_grammar
from ..markup import CALL_OPEN
from ..markup import REASONING_CLOSE
from ..markup import THINK_CLOSE
from ..structure import build_structure_grammar
from ..tool_calls import ParseEvent
from ..tool_calls import ToolCallStreamParser
from .errors import ServerConnectionLostError
from .http import ServerClient
from .stream import Clock
from .stream import EventSink
from .stream import Usage
from .stream import event_field
from .stream import sampling_fields
from .stream import stream_choices

ENDPOINT: Final = "/v1/completions"


@dataclass(slots=True)
class _Phase:
    """How one request ended."""

    finish: str | None = None  # "stop", "length", or None when we closed it at a trigger
    generated: int = 0
    reasoning: int = 0
    triggered: str | None = None


class CompletionsGeneration:
    """One generation through /v1/completions."""

    def __init__(
        self,
        client: ServerClient,
        request: GenerationRequest,
        prompt: PromptParts,
        on_event: Callable[[ParseEvent], None] | None,
        steering: Steering | None = None,
    ) -> None:
        """Prepare the parser; nothing is sent yet. prompt: the request's, rendered."""
        self._client = client
        self._request = request
        self._steering = steering
        self._sink = EventSink(on_event, prompt.stop)
        self._parser = ToolCallStreamParser(
            request.tools, starts_in_reasoning=prompt.starts_in_reasoning
        )
        self._prompt = prompt.text
        self._prompt_parts = prompt
        self._written: list[str] = []
        self._tail = ""
        self._in_reasoning = prompt.starts_in_reasoning
        self._steered_end = False
        self._grammar = (
            build_tool_call_grammar(request.tools, max_calls=MAX_CALLS_PER_ANSWER)
            if request.tools and request.constrain_tool_calls and client.settings.grammar
            else None
        )
        self._answer_grammar = (
            build_structure_grammar(request.answer_schema)
            if request.answer_schema is not None and client.settings.grammar
            else None
        )
        self.stats = GenerationStats(finish_reason="length")

    async def run(self) -> GenerationOutput:
        """Send requests until the answer is complete or the token limit is reached."""
        request, stats = self._request, self.stats
        remaining = request.max_tokens
        while remaining > 0:
            self._intervene()
            if self._steered_end:
                stats.finish_reason = "stop"
                break
            # A structured answer has no tools: "<tool_call>" in its reasoning is only text.
            in_call = self._parser.in_tool_call and self._answer_grammar is None
            limit = remaining
            budget = request.thinking_budget
            if self._in_reasoning and budget is not None:
                limit = min(limit, max(budget - stats.reasoning_tokens, 1))
            structured = self._answer_grammar is not None and not self._in_reasoning
            phase = await self._request_once(limit, grammar=in_call or structured)
            remaining -= phase.generated
            stats.generated_tokens += phase.generated
            stats.reasoning_tokens += phase.reasoning
            if phase.triggered is not None:
                continue
            if self._in_reasoning and self._answer_grammar is not None and phase.finish != "length":
                # A structured answer is owed: a model that ends inside its reasoning has it
                # closed, and the answer follows under the grammar.
                self._write(REASONING_CLOSE)
                continue
            stats.finish_reason = phase.finish or "stop"
            # A grammar starts again at its root in a new request: a cut-off call or structure
            # is not continued.
            if phase.finish != "length" or in_call or structured or phase.generated == 0:
                break
        self._publish(self._parser.finish())
        self._sink.finish()
        return GenerationOutput(
            text="".join(self._written),
            events=self._sink.events,
            stats=stats,
            prompt=self._prompt_parts,
        )

    def _intervene(self) -> None:
        """Insert the text the engine writes itself (the end of reasoning), or a Steering's."""
        budget = self._request.thinking_budget
        if self._in_reasoning and budget is not None and self.stats.reasoning_tokens >= budget:
            self.stats.thinking_budget_hit = True
            self._write(REASONING_CLOSE)
        if self._steering is not None:
            progress = AnswerProgress(
                self._request,
                "".join(self._written),
                in_reasoning=self._in_reasoning,
                in_call=self._parser.in_tool_call,
            )
            text = self._steering.next_text(progress)
            if text == "":
                self._steered_end = True
            elif text is not None:
                self._write(text)

    def _triggers(self, *, grammar: bool) -> tuple[str, ...]:
        """Texts at which this request's stream is closed to continue differently."""
        triggers: list[str] = []
        if self._grammar is not None and not grammar:
            triggers.append(CALL_OPEN)
        steered = self._steering is not None
        if self._in_reasoning and (steered or self._answer_grammar is not None):
            triggers.append(THINK_CLOSE)
        return tuple(triggers)

    async def _request_once(self, limit: int, *, grammar: bool) -> _Phase:
        body: dict[str, Any] = {
            "model": self._client.settings.model,
            "prompt": self._prompt + "".join(self._written),
            "max_tokens": limit,
            "stream": True,
            "stream_options": {"include_usage": True},
            # vLLM drops special tokens from the text by default; Qwen's tags must stay.
            "skip_special_tokens": False,
            **sampling_fields(self._request.sampling),
        }
        if grammar and self._answer_grammar is not None:
            body["grammar"] = self._answer_grammar
        elif grammar and self._grammar is not None:
            body["grammar"] = self._grammar
        triggers = self._triggers(grammar=grammar)
        phase = _Phase()
        usage = Usage()
        clock = Clock()
        chunks = 0
        scan = ""
        choices = stream_choices(self._client, ENDPOINT, body, usage)
        async with contextlib.aclosing(choices):
            async for event, choice in choices:
                text = event_field(self._client.url, event, choice, "text", str) or ""
                if text:
                    clock.token()
                    chunks += 1
                    if self._in_reasoning:
                        phase.reasoning += 1
                    cut, phase.triggered = _find_trigger(scan, text, triggers)
                    scan = (scan + text)[-16:]
                    self._write(text[:cut])
                    if self._sink.answer_ended and self._request.answer_schema is None:
                        # The model went on with the next turn: closing the stream stops it.
                        phase.finish = "stop"
                        break
                    if phase.triggered is not None:
                        break
                if choice.get("finish_reason"):
                    phase.finish = str(choice["finish_reason"])
        clock.add_to(self.stats)
        if phase.triggered is None and phase.finish is None:
            raise ServerConnectionLostError(
                self._client.url,
                "the stream ended before the answer was complete (llama-cpp-python's server "
                "does this to a request when another arrives, unless started with "
                "--interrupt_requests False)",
            )
        phase.generated = _generated(phase, usage, chunks, limit)
        if phase.finish == "length" and self._in_reasoning:
            phase.reasoning = phase.generated
        usage.fill_prompt(self.stats)
        return phase

    def _write(self, text: str) -> None:
        if not text:
            return
        self._written.append(text)
        joined = self._tail + text
        self._tail = joined[-16:]
        if self._in_reasoning and reasoning_ended(joined, self._request):
            self._in_reasoning = False
        self._publish(self._parser.feed(text))

    def _publish(self, events: list[ParseEvent]) -> None:
        self._sink.publish(events)


def _find_trigger(before: str, text: str, triggers: tuple[str, ...]) -> tuple[int, str | None]:
    """Where in `text` to cut (just after the earliest trigger) and which trigger it was.

    `before` is the end of what came earlier, so a trigger split across chunks is found.
    """
    joined = before + text
    found = [
        (end, trigger)
        for trigger in triggers
        if (index := joined.find(trigger)) >= 0 and (end := index + len(trigger)) > len(before)
    ]
    if not found:
        return len(text), None
    end, trigger = min(found)
    return end - len(before), trigger


def _generated(phase: _Phase, usage: Usage, chunks: int, limit: int) -> int:
    """Tokens a request wrote: as reported, else the limit it hit, else one per chunk."""
    if usage.completion_tokens is not None and phase.triggered is None:
        return usage.completion_tokens
    if phase.finish == "length":
        return limit
    return chunks
