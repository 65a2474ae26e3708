"""Async access to a loaded model: requests queued in order, one generation at a time.

Blocking work runs in the event loop's default executor (Home Assistant's), serialised by an
asyncio lock per model; no thread of our own outlives a request.

Loading the same file twice (with the same settings) shares one model; it is freed when the
last user releases it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
import logging
from pathlib import Path
import threading
from typing import Self

from ..chat_format import ChatTemplate
from ..errors import GenerationCancelledError
from ..errors import ModelUnloadedError
from ..generation import GenerationOutput
from ..generation import GenerationRequest
from ..generation import ModelInfo
from ..generation import Steering
from ..interface import GenerationEngine
from ..settings import EngineSettings
from ..tool_calls import ParseEvent
from ..types import Conversation
from ..types import ToolSpec
from .llama import MIN_ANSWER_TOKENS
from .llama import CheckpointStats
from .llama import LoadedModel
from .llama import PrefixProgress

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Warming:
    """An agent's prefix being evaluated in the background: whose, and how far."""

    system: str
    progress: PrefixProgress


@dataclass(slots=True)
class _Shared:
    worker: GenerationEngine
    users: int


type EngineLoader = Callable[[Path, EngineSettings], Awaitable[GenerationEngine]]


class ModelWorker:
    """Owns a LoadedModel; lets one request at a time touch it, in arrival order."""

    def __init__(self, model: LoadedModel) -> None:
        """Use load() instead."""
        self._model = model
        self._lock = asyncio.Lock()
        self._queued = 0
        self._closed = False
        # Set by close(): what runs now stops, what waits is refused.
        self._closing = False
        # Set to stop the generation running now, if any (close sets it).
        self._generation_cancel: threading.Event | None = None
        # Set to stop the background evaluation running now (prepare, warm), if any.
        self._background_cancel: threading.Event | None = None
        self._warming: _Warming | None = None

    @classmethod
    async def load(cls, path: Path, settings: EngineSettings) -> Self:
        """Load the model in an executor thread."""
        loop = asyncio.get_running_loop()
        model = await loop.run_in_executor(None, LoadedModel, path, settings)
        return cls(model)

    @property
    def info(self) -> ModelInfo:
        """Facts about the loaded model."""
        return self._model.info

    @property
    def settings(self) -> EngineSettings:
        """Settings the model was loaded with."""
        return self._model.settings

    @property
    def chat_template(self) -> ChatTemplate:
        """The chat template prompts are rendered with (the model's own, else the bundled one)."""
        return self._model.chat_template

    @property
    def busy(self) -> bool:
        """Whether a generation is running or waiting."""
        return self._queued > 0

    @property
    def steering(self) -> Steering | None:
        """What the model is made to write (tests and benchmarks; None in the product)."""
        return self._model.steering

    @steering.setter
    def steering(self, steering: Steering | None) -> None:
        self._model.steering = steering

    @property
    def checkpoint_bytes(self) -> int:
        """Memory held by prefix checkpoints."""
        return self._model.checkpoint_bytes

    @property
    def checkpoint_stats(self) -> CheckpointStats:
        """Checkpoint figures (held, bytes against the limit, saved, restored, evicted)."""
        return self._model.checkpoint_stats

    async def generate(
        self,
        request: GenerationRequest,
        on_event: Callable[[ParseEvent], None] | None = None,
    ) -> GenerationOutput:
        """Run one generation after those already queued; cancelling the caller stops it.

        on_event is called in the event loop, in order, as the model writes.
        """
        loop = asyncio.get_running_loop()
        cancel = threading.Event()

        def forward(event: ParseEvent) -> None:
            if on_event is not None:
                loop.call_soon_threadsafe(on_event, event)

        self._queued += 1
        self._stop_background()
        try:
            async with self._lock:
                self._check_open()
                future = loop.run_in_executor(None, self._model.generate, request, cancel, forward)
                self._generation_cancel = cancel
                try:
                    # Not asyncio.shield: since Python 3.13 a shielded future that fails after
                    # its caller was cancelled is logged as an error (here: every early stop).
                    await asyncio.wait([future])
                except asyncio.CancelledError:
                    cancel.set()
                    # Hold the lock until the thread stops: the next request needs a quiet context.
                    await asyncio.wait([future])
                    if not future.cancelled():
                        future.exception()  # GenerationCancelledError, expected: mark it seen
                    raise
                finally:
                    self._generation_cancel = None
                error = None if future.cancelled() else future.exception()
                if self._closing and isinstance(error, GenerationCancelledError):
                    raise ModelUnloadedError from error
                output = future.result()
        finally:
            self._queued -= 1
        # Let events scheduled by the worker run before the caller sees the result.
        await asyncio.sleep(0)
        return output

    async def prepare(self, conversation: Conversation, tools: Sequence[ToolSpec]) -> None:
        """Evaluate, while the model is idle, the text the conversation's next turn starts with.

        Best effort and never in the way: skipped when a request is waiting, stopped between
        two short batches when one arrives, failures only logged; only on the prefix the
        context holds (another agent's is not evaluated over it: warm does that). An agent's
        prefix the context now holds for the first time is saved to disk afterwards.
        """
        if self._queued or self._closing or self._lock.locked():
            return
        async with self._lock:  # free: taken without waiting
            await self._run_background(
                "Preparing the next prompt",
                lambda cancel: self._model.warm(
                    conversation, tools, cancel, room=MIN_ANSWER_TOKENS, held_prefix_only=True
                ),
            )

    async def warm(
        self, conversation: Conversation, tools: Sequence[ToolSpec], *, room: int
    ) -> None:
        """Evaluate an agent's prefix (its system text and tools) in the background.

        After a load or a change of the home, so that the first command costs what any other
        does; restored from disk when an earlier run saved it, and saved there otherwise.
        Waits for a running request; skipped when one is waiting (it evaluates what it needs
        itself, faster); a request arriving meanwhile stops it between two short batches.
        room: the tokens turns need after the prefix (history and answers), which an
        automatic context makes room for.
        """
        warming = _Warming(conversation.system, PrefixProgress())
        self._warming = warming
        try:
            async with self._lock:
                if self._queued or self._closing:
                    return
                await self._run_background(
                    "Warming up the prefix",
                    lambda cancel: self._model.warm(
                        conversation, tools, cancel, room=room, progress=warming.progress
                    ),
                )
        finally:
            if self._warming is warming:
                self._warming = None

    def warming_seconds(self, system: str) -> float | None:
        """Seconds an agent's prefix (by its system text) still needs, while it is warming.

        None when it is not warming now, or before its first batch was timed.
        """
        warming = self._warming
        if warming is None or warming.system != system:
            return None
        return warming.progress.seconds_left

    async def _run_background(self, what: str, work: Callable[[threading.Event], object]) -> None:
        """Run work in the executor with the lock held; a request's arrival cancels it."""
        loop = asyncio.get_running_loop()
        cancel = threading.Event()
        self._background_cancel = cancel
        try:
            future = loop.run_in_executor(None, work, cancel)
        except RuntimeError as err:  # the loop's executor is shut down: the process is stopping
            self._background_cancel = None
            _LOGGER.debug("%s skipped: %s", what, err)
            return
        try:
            await asyncio.wait([future])
        except asyncio.CancelledError:
            cancel.set()
            await asyncio.wait([future])
            raise
        finally:
            self._background_cancel = None
            if future.done() and not future.cancelled():
                error = future.exception()
                if error is not None and not isinstance(error, GenerationCancelledError):
                    _LOGGER.debug("%s failed: %s", what, error)

    def _stop_background(self) -> None:
        if self._background_cancel is not None:
            self._background_cancel.set()

    def _check_open(self) -> None:
        if self._closing:
            raise ModelUnloadedError

    async def close(self) -> None:
        """Free the model: a running generation stops, waiting and later requests fail.

        Each fails with ModelUnloadedError. An entry's unload or reload (new options) does not
        wait for an answer no one will use, which could take minutes.
        """
        self._closing = True
        self._stop_background()
        if self._generation_cancel is not None:
            self._generation_cancel.set()
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            await asyncio.get_running_loop().run_in_executor(None, self._model.close)


class ModelRegistry:
    """Shares loaded models between users of the same file and settings."""

    def __init__(self, loader: EngineLoader | None = None) -> None:
        """Start empty; models are loaded by ModelWorker.load unless another loader is given."""
        self._models: dict[tuple[Path, EngineSettings], _Shared] = {}
        self._lock = asyncio.Lock()
        self._loader: EngineLoader = loader or ModelWorker.load

    async def acquire(self, path: Path, settings: EngineSettings) -> GenerationEngine:
        """Return the loaded model for path, loading it on first use."""
        resolved = await asyncio.get_running_loop().run_in_executor(None, path.resolve)
        key = (resolved, settings)
        async with self._lock:
            shared = self._models.get(key)
            if shared is None:
                worker = await self._loader(key[0], settings)
                shared = self._models[key] = _Shared(worker=worker, users=0)
            shared.users += 1
            return shared.worker

    async def release(self, worker: GenerationEngine) -> None:
        """Give a model back; the last release frees it."""
        async with self._lock:
            for key, shared in list(self._models.items()):
                if shared.worker is worker:
                    shared.users -= 1
                    if shared.users == 0:
                        del self._models[key]
                        await worker.close()
                    return

    @property
    def loaded(self) -> int:
        """Number of distinct models in memory."""
        return len(self._models)
