"""A stand-in for a loaded model that answers at once, for measuring everything but the model.

It writes a fixed output through the real streaming parser (so the agent gets the same events
as from a model) and reports the prompt it was given. Token counts are left at zero: count
the prompt with a real tokenizer (tokenizer.py) instead.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from custom_components.local_agent.engine.chat_format import (
    BUNDLED_TEMPLATE_PATH,
    GGUF_TEMPLATE_KEY,
)
from custom_components.local_agent.engine.local.llama import (
    GenerationOutput,
    GenerationRequest,
    GenerationStats,
    ModelInfo,
)
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.engine.tool_calls import ParseEvent, ToolCallStreamParser

DEFAULT_OUTPUT = "The user greets me.\n</think>\n\nHello."

type Script = Callable[[GenerationRequest], str]


class StandInWorker:
    """Quacks like ModelWorker; every generation returns `output` (or `script(request)`)."""

    def __init__(
        self,
        model_path: Path,
        *,
        chat_template: str | None = None,
        output: str = DEFAULT_OUTPUT,
        script: Script | None = None,
    ) -> None:
        """Describe a model whose chat template is the given one (default: bundled Qwen3.5)."""
        self.settings = EngineSettings()
        template = chat_template or BUNDLED_TEMPLATE_PATH.read_text(encoding="utf-8")
        self.info = ModelInfo(
            path=model_path,
            architecture="stand-in",
            name="Stand-in",
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
        self.requests: list[GenerationRequest] = []
        self.busy = False
        self.checkpoint_bytes = 0

    async def generate(
        self,
        request: GenerationRequest,
        on_event: Callable[[ParseEvent], None] | None = None,
    ) -> GenerationOutput:
        """Answer with the scripted output, parsed as the engine parses a model's."""
        self.requests.append(request)
        text = self.script(request) if self.script is not None else self.output
        parser = ToolCallStreamParser(
            request.tools, starts_in_reasoning=request.starts_in_reasoning
        )
        events = parser.feed(text) + parser.finish()
        if on_event is not None:
            for event in events:
                on_event(event)
        return GenerationOutput(text=text, events=events, stats=GenerationStats())

    async def prepare(self, static_prompt: str, dynamic_prompt: str) -> None:
        """Nothing to evaluate."""

    async def close(self) -> None:
        """Nothing to free."""
