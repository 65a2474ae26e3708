"""What a generation is asked and what it gives back: shared by the in-process and server engines.

Nothing here needs llama-cpp-python (or numpy), so a model on a server runs without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from .settings import SamplingSettings
from .tool_calls import ParseEvent
from .types import Conversation, JsonSchema, ToolSpec

# Text the engine writes itself: the end of the reasoning, the start of a forced call.
THINK_CLOSE: Final = "\n</think>\n\n"
CALL_OPEN: Final = "<tool_call>"
# Calls the grammar lets the model write one after another in a single answer.
MAX_CALLS_PER_ANSWER: Final = 4


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """One model call: a prompt split for caching, the tools the grammar allows, limits."""

    static_prompt: str
    dynamic_prompt: str
    tools: Sequence[ToolSpec] = ()
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    max_tokens: int = 512
    starts_in_reasoning: bool = True
    thinking_budget: int | None = 256
    constrain_tool_calls: bool = True
    force_tool_call: bool = False
    # Text that ends the answer when the model writes it (a model that ignores its end token
    # goes on with the next turn's markers); it stops like an end-of-turn token.
    stop: tuple[str, ...] = ()
    # Where in dynamic_prompt the text the next request repeats ends (the last message's end,
    # before the generation prompt): a checkpoint is kept there for it. None: no such point.
    checkpoint_at: int | None = None
    # The same prompt as messages, for a server that renders it (the in-process engine and a
    # server in completions mode use the prompt text above).
    conversation: Conversation | None = None
    # The answer must be one JSON value of this schema (an AI task's structure): once the
    # reasoning is over, it is sampled under a grammar built from the schema (structure.py).
    answer_schema: JsonSchema | None = None


def reasoning_ended(recent: str, request: GenerationRequest) -> bool:
    """Whether the text just written ends the reasoning.

    "</think>" does; so does the start of a tool call (Qwen3.5 may call without closing its
    reasoning), except for a structured answer: it has no tools, and its answer begins only
    after "</think>", where its grammar takes over.
    """
    if "</think>" in recent:
        return True
    return request.answer_schema is None and CALL_OPEN in recent


@dataclass(slots=True)
class GenerationStats:
    """What one generation cost."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    evaluated_tokens: int = 0
    generated_tokens: int = 0
    reasoning_tokens: int = 0
    prompt_seconds: float = 0.0
    generation_seconds: float = 0.0
    thinking_budget_hit: bool = False
    checkpoint_restored: bool = False
    finish_reason: str = "stop"

    @property
    def generation_tokens_per_second(self) -> float:
        """Generated tokens per second, 0 when nothing was generated."""
        if not self.generation_seconds:
            return 0.0
        return self.generated_tokens / self.generation_seconds

    @property
    def prompt_tokens_per_second(self) -> float:
        """Evaluated prompt tokens per second, 0 when nothing was evaluated."""
        if not self.prompt_seconds:
            return 0.0
        return self.evaluated_tokens / self.prompt_seconds


@dataclass(slots=True)
class GenerationOutput:
    """Raw text and parse events of one generation."""

    text: str
    events: list[ParseEvent]
    stats: GenerationStats


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
