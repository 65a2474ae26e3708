"""What a generation is asked and what it gives back: shared by the in-process and server engines.

Nothing here needs llama-cpp-python (or numpy), so a model on a server runs without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import fields
from pathlib import Path
from typing import Final
from typing import Protocol

from .chat_format import ChatTemplate
from .chat_format import PromptParts
from .chat_format import render_conversation
from .markup import CALL_OPEN
from .markup import THINK_CLOSE
from .settings import SamplingSettings
from .tool_calls import ParseEvent
from .tool_calls import TextDelta
from .types import Conversation
from .types import JsonSchema
from .types import ToolSpec

# Calls the grammar lets the model write one after another in a single answer.
MAX_CALLS_PER_ANSWER: Final = 4


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """One model call: a prompt, the tools the grammar allows, limits.

    The prompt is a conversation, which the backend renders with its model's chat template (or
    a server renders), or text already rendered and cut for caching (benchmarks, engine tests).
    """

    prompt: Conversation | PromptParts
    tools: Sequence[ToolSpec] = ()
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    max_tokens: int = 512
    thinking_budget: int | None = 256
    constrain_tool_calls: bool = True
    # The answer must be one JSON value of this schema (an AI task's structure): once the
    # reasoning is over, it is sampled under a grammar built from the schema (structure.py).
    answer_schema: JsonSchema | None = None


def render_request(template: ChatTemplate, request: GenerationRequest) -> PromptParts:
    """Return the request's prompt as text: its conversation rendered, or the text it carries."""
    if isinstance(request.prompt, PromptParts):
        return request.prompt
    return render_conversation(template, request.prompt, request.tools)


def reasoning_ended(recent: str, request: GenerationRequest) -> bool:
    """Whether the text just written ends the reasoning.

    "</think>" does; so does the start of a tool call (Qwen3.5 may call without closing its
    reasoning), except for a structured answer: it has no tools, and its answer begins only
    after "</think>", where its grammar takes over.
    """
    if THINK_CLOSE in recent:
        return True
    return request.answer_schema is None and CALL_OPEN in recent


@dataclass(frozen=True, slots=True)
class AnswerProgress:
    """Where an answer stands: what a Steering decides on."""

    request: GenerationRequest
    text: str  # written so far, reasoning and markup included
    in_reasoning: bool
    in_call: bool


class Steering(Protocol):
    """Decides what the model writes next instead of the model: the one seam to pin output.

    The product sets none. Tests and benchmarks set one on an engine (`engine.steering`) so
    that a random-weight model writes what they need (testing/steering.py). Engines ask it
    before each sampled token (in process) or each request (completions mode) and write the
    text as the model would: in process token by token, each token checked by the call grammar
    when it is on. "" ends the answer; None leaves the choice to the model.
    """

    def next_text(self, progress: AnswerProgress) -> str | None:
        """Return the text to write from here, "" to end the answer, None to sample."""


@dataclass(slots=True)
class GenerationCounts:
    """What generations add up to: the tokens read and written and the seconds they took.

    One generation's stats hold them, and a turn's report (turn/report.py) their sums over its
    rounds. generated_tokens counts the sampled tokens (the ones max_tokens limits); the tokens
    of tool calls that the grammar forced and the engine appended in batches (jump-forward
    decoding, in process) are call_forced_tokens, apart from call_sampled_tokens.
    """

    prompt_tokens: int = 0
    cached_tokens: int = 0
    generated_tokens: int = 0
    reasoning_tokens: int = 0
    call_sampled_tokens: int = 0
    call_forced_tokens: int = 0
    prompt_seconds: float = 0.0
    generation_seconds: float = 0.0

    def add_counts(self, other: GenerationCounts) -> None:
        """Add another's counts to these (every field of GenerationCounts, none forgotten)."""
        for count in fields(GenerationCounts):
            setattr(self, count.name, getattr(self, count.name) + getattr(other, count.name))


@dataclass(slots=True)
class GenerationStats(GenerationCounts):
    """What one generation cost: its counts, and how it went."""

    evaluated_tokens: int = 0
    # Of generation_seconds: evaluating the batches of forced call tokens (each batch with
    # the token written just before them).
    forced_seconds: float = 0.0
    thinking_budget_hit: bool = False
    checkpoint_restored: bool = False
    # The static prefix came from a file saved by an earlier run (prefix_store.py).
    prefix_from_disk: bool = False
    finish_reason: str = "stop"


@dataclass(slots=True)
class GenerationOutput:
    """Raw text and parse events of one generation, and the prompt the model read."""

    text: str
    events: list[ParseEvent]
    stats: GenerationStats
    # The rendered prompt (for a server that renders it: the messages as sent, as JSON).
    prompt: PromptParts = field(default_factory=lambda: PromptParts(""))


class AnswerEnd:
    """Passes the answer text through until the model starts writing the next turn itself.

    A model that ignores its template's end token (one without a chat template of its own)
    goes on with "<|im_end|>", "<|im_start|>user" and so on: nothing from there is its answer.
    Text that may be the start of such a marker is held until the next text tells.
    """

    def __init__(self, markers: Sequence[str]) -> None:
        """End the answer at any of these markers."""
        self._markers = tuple(markers)
        self._held = ""
        self.ended = False

    def filter(self, events: Sequence[ParseEvent]) -> list[ParseEvent]:
        """Return the events to publish: answer text up to a marker, everything else as is."""
        kept: list[ParseEvent] = []
        for event in events:
            if not isinstance(event, TextDelta):
                if not self.ended:
                    kept.append(event)
            elif text := self._feed(event.text):
                kept.append(TextDelta(text))
        return kept

    def flush(self) -> list[ParseEvent]:
        """Release the text held at the end of the generation."""
        released, self._held = ("" if self.ended else self._held), ""
        return [TextDelta(released)] if released else []

    def _feed(self, text: str) -> str:
        if self.ended:
            return ""
        self._held += text
        found = [i for marker in self._markers if (i := self._held.find(marker)) >= 0]
        if found:
            self.ended = True
            released, self._held = self._held[: min(found)], ""
            return released
        keep = max(
            (
                n
                for marker in self._markers
                for n in range(1, len(marker))
                if self._held.endswith(marker[:n])
            ),
            default=0,
        )
        cut = len(self._held) - keep
        released, self._held = self._held[:cut], self._held[cut:]
        return released


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """Facts about a loaded model."""

    path: Path
    architecture: str | None
    name: str | None
    size_bytes: int
    parameters: int
    n_ctx: int
    n_ctx_train: int
    n_vocab: int
    chat_template: str | None
    metadata: dict[str, str]
    # How the attention cache stores keys ("f16", "q8_0"); None where a server decides.
    key_cache: str | None = None
