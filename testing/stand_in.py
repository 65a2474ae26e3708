"""The one stand-in for a loaded model, for tests, the evaluation and the benchmarks.

It renders each request's prompt as an engine does (with its chat template), writes a scripted
output through the real streaming parser and the engine's end-of-answer filter, so the agent
gets the same events as from a model. Behaviour tests queue outputs (`will_write`); the
evaluation answers with a policy (`script`); benchmarks measure everything but the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import takewhile
from pathlib import Path
from typing import Any

from custom_components.local_agent.engine.chat_format import BUNDLED_TEMPLATE_PATH
from custom_components.local_agent.engine.chat_format import GGUF_TEMPLATE_KEY
from custom_components.local_agent.engine.chat_format import PromptParts
from custom_components.local_agent.engine.chat_format import compile_template
from custom_components.local_agent.engine.chat_format import next_turn_start
from custom_components.local_agent.engine.generation import AnswerEnd
from custom_components.local_agent.engine.generation import GenerationOutput
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.generation import GenerationStats
from custom_components.local_agent.engine.generation import ModelInfo
from custom_components.local_agent.engine.generation import Steering
from custom_components.local_agent.engine.generation import render_request
from custom_components.local_agent.engine.local.worker import ModelRegistry
from custom_components.local_agent.engine.markup import REASONING_CLOSE
from custom_components.local_agent.engine.markup import format_tool_call
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.tool_calls import ReasoningDelta
from custom_components.local_agent.engine.tool_calls import ToolCallStreamParser
from custom_components.local_agent.engine.types import Conversation
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.engine.types import ToolSpec
from custom_components.local_agent.models.safe_load import ProbeOutcome
from custom_components.local_agent.models.safe_load import ProbeResult
from custom_components.local_agent.runtime.local import LocalEngines


@dataclass(frozen=True, slots=True)
class SeenRequest:
    """A request as the stand-in received it, with its prompt rendered as an engine would."""

    request: GenerationRequest
    prompt: PromptParts

    @property
    def static_prompt(self) -> str:
        return self.prompt.static

    @property
    def dynamic_prompt(self) -> str:
        return self.prompt.dynamic

    @property
    def conversation(self) -> Conversation | None:
        prompt = self.request.prompt
        return prompt if isinstance(prompt, Conversation) else None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.request, name)


type Script = str | Callable[[SeenRequest], str]


def call(function: str, /, **arguments: object) -> str:
    """Write a tool call the way Qwen3.5 does (the engine's own formatter)."""
    return format_tool_call(ToolCall(function, dict(arguments)))


def answer(text: str, *, reasoning: str = "The user wants something.") -> str:
    """Reasoning, then visible text and/or calls."""
    return f"{reasoning}{REASONING_CLOSE}{text}"


DEFAULT_OUTPUT = answer("Hello.", reasoning="The user greets me.")


class StandInWorker:
    """Quacks like ModelWorker; each generation writes the next queued output, else the script's
    answer to the request, else `output`.
    """

    def __init__(
        self,
        model_path: Path,
        settings: EngineSettings | None = None,
        *,
        chat_template: str | None = None,
        output: str = DEFAULT_OUTPUT,
        script: Script | None = None,
        name: str = "Stand-in",
        approximate_tokens: bool = False,
    ) -> None:
        """Describe a model whose chat template is the given one (default: bundled Qwen3.5).

        approximate_tokens: report a token per four characters instead of zero.
        """
        self.settings = settings or EngineSettings()
        template = chat_template or BUNDLED_TEMPLATE_PATH.read_text(encoding="utf-8")
        self.chat_template = compile_template(template, "gguf")
        self.info = ModelInfo(
            path=model_path,
            architecture="qwen35",
            name=name,
            size_bytes=0,
            parameters=0,
            n_ctx=self.settings.n_ctx,
            n_ctx_train=self.settings.n_ctx,
            n_vocab=0,
            chat_template=template,
            metadata={GGUF_TEMPLATE_KEY: template},
        )
        self.output = output
        self.script = script
        self.approximate_tokens = approximate_tokens
        self.queued: list[Script] = []
        self.requests: list[SeenRequest] = []
        self.prepared: list[tuple[str, str]] = []
        # Agent prefixes warmed: (system text, tool names, room).
        self.warmed: list[tuple[str, tuple[str, ...], int]] = []
        self.warming_left: float | None = None
        self.steering: Steering | None = None
        self.busy = False
        self.checkpoint_bytes = 0
        # Seconds the stand-in takes after its reasoning, before the rest of its output: a
        # model that reads a long prompt or thinks long (cancelling the caller stops it).
        self.thinking_seconds = 0.0

    def will_write(self, *scripts: Script) -> None:
        """Queue outputs for the next generations."""
        self.queued.extend(scripts)

    async def generate(
        self,
        request: GenerationRequest,
        on_event: Callable[[ParseEvent], None] | None = None,
    ) -> GenerationOutput:
        """Answer with the next output, parsed and ended as the engine does a model's."""
        prompt = render_request(self.chat_template, request)
        seen = SeenRequest(request, prompt)
        self.requests.append(seen)
        script = self.queued.pop(0) if self.queued else (self.script or self.output)
        text = script(seen) if callable(script) else script
        parser = ToolCallStreamParser(request.tools, starts_in_reasoning=prompt.starts_in_reasoning)
        answer_end = AnswerEnd(prompt.stop)
        events = answer_end.filter(parser.feed(text) + parser.finish()) + answer_end.flush()
        thinking = len(list(takewhile(lambda event: isinstance(event, ReasoningDelta), events)))
        for index, event in enumerate(events):
            if index == thinking and self.thinking_seconds:
                await asyncio.sleep(self.thinking_seconds)
            if on_event is not None:
                on_event(event)
        stats = GenerationStats()
        if self.approximate_tokens:
            stats.prompt_tokens = len(prompt.text) // 4
            stats.generated_tokens = len(text) // 4
        return GenerationOutput(text=text, events=events, stats=stats, prompt=prompt)

    async def prepare(self, conversation: Conversation, tools: Sequence[ToolSpec]) -> None:
        """Record what the engine would evaluate ahead of the next turn."""
        start = next_turn_start(self.chat_template, conversation, tools)
        if start is not None:
            self.prepared.append((start.static, start.dynamic))

    async def warm(
        self, conversation: Conversation, tools: Sequence[ToolSpec], *, room: int
    ) -> None:
        """Record the agent prefix the engine would evaluate (and how much room it wants)."""
        self.warmed.append((conversation.system, tuple(tool.name for tool in tools), room))

    def warming_seconds(self, system: str) -> float | None:
        """What a test set in warming_left: seconds a warm-up would still take."""
        return self.warming_left

    async def close(self) -> None:
        """Nothing to free."""


def stand_in_engines(engine: StandInWorker, *, loading_seconds: float = 0.0) -> LocalEngines:
    """Local engines whose every model file is this stand-in: put in hass.data[LOCAL_ENGINES].

    loading_seconds: how long each load takes, as a real model's does.
    """

    async def load(_path: Path, _settings: EngineSettings) -> StandInWorker:
        await asyncio.sleep(loading_seconds)
        return engine

    async def check(*_args: object) -> ProbeResult:
        # The stand-in's file is never loaded: there is nothing to prove in a child process.
        return ProbeResult(ProbeOutcome.OK, reason="a stand-in engine")

    return LocalEngines(registry=ModelRegistry(load), check=check)
