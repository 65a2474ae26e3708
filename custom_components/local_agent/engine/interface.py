"""What the agent needs from an engine: the in-process ModelWorker or a ServerWorker."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
from typing import Protocol

from .chat_format import ChatTemplate
from .generation import GenerationOutput
from .generation import GenerationRequest
from .generation import ModelInfo
from .generation import Steering
from .settings import EngineSettings
from .tool_calls import ParseEvent
from .types import Conversation
from .types import ToolSpec


class GenerationEngine(Protocol):
    """Runs generations for the agent and describes the model."""

    # What the model is made to write (tests and benchmarks; None in the product).
    steering: Steering | None

    @property
    def info(self) -> ModelInfo:
        """Facts about the model."""

    @property
    def settings(self) -> EngineSettings:
        """Settings of the engine (context size and such)."""

    @property
    def chat_template(self) -> ChatTemplate:
        """The chat template the engine renders prompts with."""

    @property
    def busy(self) -> bool:
        """Whether a generation is running or waiting."""

    @property
    def checkpoint_bytes(self) -> int:
        """Memory held by prompt-prefix checkpoints (0 where the server holds them)."""

    async def generate(
        self,
        request: GenerationRequest,
        on_event: Callable[[ParseEvent], None] | None = None,
    ) -> GenerationOutput:
        """Run one generation, streaming parse events to on_event."""

    async def prepare(self, conversation: Conversation, tools: Sequence[ToolSpec]) -> None:
        """Evaluate, while idle, the start of the conversation's next turn (best effort)."""

    async def warm(
        self, conversation: Conversation, tools: Sequence[ToolSpec], *, room: int
    ) -> None:
        """Evaluate an agent's prefix (system text, tools) in the background (best effort)."""

    def warming_seconds(self, system: str) -> float | None:
        """Seconds the prefix of an agent with this system text still needs, while warming."""

    async def close(self) -> None:
        """Free what the engine holds."""
