"""What the agent needs from an engine: the in-process ModelWorker or a ServerWorker."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .generation import GenerationOutput, GenerationRequest, ModelInfo
from .settings import EngineSettings
from .tool_calls import ParseEvent


class GenerationEngine(Protocol):
    """Runs generations for the agent and describes the model."""

    @property
    def info(self) -> ModelInfo:
        """Facts about the model."""

    @property
    def settings(self) -> EngineSettings:
        """Settings of the engine (context size and such)."""

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

    async def prepare(self, static_prompt: str, dynamic_prompt: str) -> None:
        """Evaluate, while idle, a prompt the next request will continue (best effort)."""

    async def close(self) -> None:
        """Free what the engine holds."""
