"""A stand-in for a loaded model that writes scripted outputs through the real parser.

Only for deterministic behaviour tests; end-to-end tests load a real GGUF.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from custom_components.local_agent.engine.chat_format import GGUF_TEMPLATE_KEY
from custom_components.local_agent.engine.local.llama import (
    GenerationOutput,
    GenerationRequest,
    GenerationStats,
    ModelInfo,
)
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.engine.tool_calls import (
    ParseEvent,
    ToolCallStreamParser,
    format_tool_call,
)
from custom_components.local_agent.engine.types import ToolCall

BUNDLED_TEMPLATE = (
    Path(__file__).parents[2]
    / "custom_components"
    / "local_agent"
    / "engine"
    / "templates"
    / "qwen3_5.jinja"
)

type Script = str | Callable[[GenerationRequest], str]


def call(function: str, /, **arguments: object) -> str:
    """Write a tool call the way Qwen3.5 does (the engine's own formatter)."""
    return format_tool_call(ToolCall(function, dict(arguments)))


def answer(text: str, *, reasoning: str = "The user wants something.") -> str:
    """Reasoning, then visible text and/or calls."""
    return f"{reasoning}\n</think>\n\n{text}"


class ScriptedWorker:
    """Answers each generation with the next scripted output."""

    def __init__(self, model_path: Path, settings: EngineSettings) -> None:
        self.settings = settings
        self.scripts: list[Script] = []
        self.requests: list[GenerationRequest] = []
        self.info = ModelInfo(
            path=model_path,
            architecture="qwen35",
            name="Scripted",
            size_bytes=0,
            parameters=0,
            n_ctx=settings.n_ctx,
            n_ctx_train=settings.n_ctx,
            n_vocab=0,
            chat_template=None,
            metadata={GGUF_TEMPLATE_KEY: BUNDLED_TEMPLATE.read_text()},
        )
        self.busy = False
        self.checkpoint_bytes = 0
        self.prepared: list[tuple[str, str]] = []

    def will_write(self, *scripts: Script) -> None:
        """Queue outputs for the next generations."""
        self.scripts.extend(scripts)

    async def generate(
        self,
        request: GenerationRequest,
        on_event: Callable[[ParseEvent], None] | None = None,
    ) -> GenerationOutput:
        self.requests.append(request)
        script = self.scripts.pop(0) if self.scripts else answer("I have nothing more to say.")
        text = script(request) if callable(script) else script
        parser = ToolCallStreamParser(
            request.tools, starts_in_reasoning=request.starts_in_reasoning
        )
        events = parser.feed(text) + parser.finish()
        for event in events:
            if on_event is not None:
                on_event(event)
        stats = GenerationStats(
            prompt_tokens=len(request.static_prompt + request.dynamic_prompt) // 4,
            generated_tokens=len(text) // 4,
        )
        return GenerationOutput(text=text, events=events, stats=stats)

    async def prepare(self, static_prompt: str, dynamic_prompt: str) -> None:
        """Record what the agent asked to evaluate ahead of the next turn."""
        self.prepared.append((static_prompt, dynamic_prompt))

    async def close(self) -> None:
        """Nothing to free."""
