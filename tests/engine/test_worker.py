"""ModelWorker and ModelRegistry with real inference on the tiny random-weight qwen35 model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import replace
import gc
import logging
from pathlib import Path
import threading
import time
from typing import Any

import pytest

from custom_components.local_agent.engine.errors import GenerationCancelledError
from custom_components.local_agent.engine.errors import ModelFileMissingError
from custom_components.local_agent.engine.generation import GenerationOutput
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.generation import GenerationStats
from custom_components.local_agent.engine.local import worker as worker_module
from custom_components.local_agent.engine.local.llama import BACKGROUND_BATCH
from custom_components.local_agent.engine.local.llama import LoadedModel
from custom_components.local_agent.engine.local.worker import ModelRegistry
from custom_components.local_agent.engine.local.worker import ModelWorker
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.types import Conversation
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.engine.types import ToolSpec

from .runtime_support import STATIC_SYSTEM
from .runtime_support import TEST_SETTINGS
from .runtime_support import TOOLS
from .runtime_support import RecordingModel
from .runtime_support import make_request
from .runtime_support import prompt_parts


class TrackingRuntime(RecordingModel):
    """Records which requests ran, in which order, and how many ran at once."""

    def __init__(self, path: Path, settings: EngineSettings, **kwargs: Any) -> None:
        """Load the model."""
        super().__init__(path, settings, **kwargs)
        self.started: list[str] = []
        self.running = 0
        self.most_running = 0
        # A test may hold each generation at its start: `entered` tells it one got there.
        self.entered = threading.Event()
        self.go_on = threading.Event()
        self.go_on.set()
        self._lock = threading.Lock()

    @contextmanager
    def around_generation(self, request: GenerationRequest) -> Iterator[None]:
        """Keep count of concurrent generations, and note which request started."""
        with self._lock:
            self.running += 1
            self.most_running = max(self.most_running, self.running)
            self.started.append(self.render(request).dynamic)
        self.entered.set()
        self.go_on.wait()
        try:
            yield
        finally:
            with self._lock:
                self.running -= 1


type OpenWorker = Callable[..., tuple[ModelWorker, TrackingRuntime]]


@pytest.fixture
async def open_worker(qwen35_model_path: Path) -> AsyncIterator[OpenWorker]:
    """Wrap fresh tracking runtimes in workers; close them all at the end."""
    workers: list[ModelWorker] = []

    def open_(*, token_delay: float = 0.0) -> tuple[ModelWorker, TrackingRuntime]:
        runtime = TrackingRuntime(qwen35_model_path, TEST_SETTINGS, token_delay=token_delay)
        worker = ModelWorker(runtime)
        workers.append(worker)
        return worker, runtime

    yield open_
    for worker in workers:
        await worker.close()


def _reference(path: Path, request: GenerationRequest) -> GenerationOutput:
    runtime = LoadedModel(path, TEST_SETTINGS)
    try:
        return runtime.generate(request)
    finally:
        runtime.close()


async def test_generate_streams_events_on_the_event_loop(
    open_worker: OpenWorker, qwen35_model_path: Path
) -> None:
    worker, _ = open_worker()
    loop_thread = threading.get_ident()
    received: list[ParseEvent] = []
    threads: set[int] = set()

    def on_event(event: ParseEvent) -> None:
        received.append(event)
        threads.add(threading.get_ident())

    request = make_request(prompt_parts("hello"), max_tokens=32)
    output = await worker.generate(request, on_event)
    assert received == output.events  # all delivered before generate() returned
    assert threads == {loop_thread}
    assert output.text == _reference(qwen35_model_path, request).text
    assert not worker.busy
    assert worker.checkpoint_bytes > 0
    assert worker.info.architecture == "qwen35"
    assert worker.settings == TEST_SETTINGS


async def test_cancelling_the_task_stops_the_generation(
    open_worker: OpenWorker, qwen35_model_path: Path
) -> None:
    worker, runtime = open_worker(token_delay=0.001)
    short = make_request(prompt_parts("hello"), max_tokens=24)
    long = make_request(prompt_parts("hello"), thinking_budget=None, max_tokens=1000)
    streaming = asyncio.Event()

    def on_event(event: ParseEvent) -> None:
        streaming.set()

    task = asyncio.create_task(worker.generate(long, on_event))
    await asyncio.wait_for(streaming.wait(), 10)
    busy_while_generating = worker.busy
    assert busy_while_generating
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The generation thread has stopped by the time the cancelled task ends.
    assert runtime.running == 0
    assert not worker.busy
    assert runtime.sampled_after_cancel <= 2
    assert len(runtime.sampled) < 500

    output = await worker.generate(short)
    assert output.text == _reference(qwen35_model_path, short).text


async def test_queued_requests_run_one_at_a_time_in_order(
    open_worker: OpenWorker, qwen35_model_path: Path
) -> None:
    worker, runtime = open_worker(token_delay=0.0005)
    users = ["hello", "Turn on the kitchen light", "Lock the front door", "hi"]
    requests = [make_request(prompt_parts(user), max_tokens=40) for user in users]
    order: list[int] = []

    def recorder(index: int) -> Callable[[ParseEvent], None]:
        def on_event(event: ParseEvent) -> None:
            order.append(index)

        return on_event

    tasks = [
        asyncio.create_task(worker.generate(request, recorder(index)))
        for index, request in enumerate(requests)
    ]
    await asyncio.sleep(0)
    assert worker.busy
    outputs = await asyncio.gather(*tasks)

    assert runtime.started == [runtime.render(request).dynamic for request in requests]
    assert runtime.most_running == 1
    # Events of one request never interleave with another's.
    assert order == sorted(order)
    for request, output in zip(requests, outputs, strict=True):
        assert output.text == _reference(qwen35_model_path, request).text
    assert not worker.busy


async def test_cancelling_a_queued_request_lets_the_others_run(open_worker: OpenWorker) -> None:
    worker, runtime = open_worker(token_delay=0.001)
    first = make_request(prompt_parts("hello"), max_tokens=40)
    second = make_request(prompt_parts("hi"), max_tokens=40)
    third = make_request(prompt_parts("Lock the front door"), max_tokens=40)
    runtime.go_on.clear()  # the first generation waits while the second is queued
    tasks = [asyncio.create_task(worker.generate(request)) for request in (first, second, third)]
    assert await asyncio.get_running_loop().run_in_executor(None, runtime.entered.wait, 60)
    tasks[1].cancel()
    runtime.go_on.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert isinstance(results[1], asyncio.CancelledError)
    assert isinstance(results[0], GenerationOutput)
    assert isinstance(results[2], GenerationOutput)
    # Both ran their prompts (what they then wrote depends on the CPU: it may end at once).
    assert results[0].stats.evaluated_tokens > 0
    assert results[2].stats.evaluated_tokens > 0
    # The cancelled request never evaluated anything.
    assert runtime.prompt_evaluations == 2


# --- Registry -------------------------------------------------------------------------------


class CountingModel(LoadedModel):
    """Counts loads and closes across instances."""

    loads = 0
    closes = 0

    def __init__(self, path: Path, settings: EngineSettings) -> None:
        """Load and count."""
        super().__init__(path, settings)
        CountingModel.loads += 1

    def close(self) -> None:
        """Close and count."""
        CountingModel.closes += 1
        super().close()


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> type[CountingModel]:
    CountingModel.loads = CountingModel.closes = 0
    monkeypatch.setattr(worker_module, "LoadedModel", CountingModel)
    return CountingModel


class PreparingModel(TrackingRuntime):
    """Notes when preparing starts and how it ended."""

    def __init__(self, path: Path, settings: EngineSettings, **kwargs: Any) -> None:
        """Load the model."""
        super().__init__(path, settings, **kwargs)
        self.preparing = threading.Event()
        self.prepare_ended: list[str] = []

    def _decode(self, tokens: Sequence[int], *, background: bool = False, **options: Any) -> None:
        """Slow background batches down (10 ms each), so that a request surely meets one."""
        if not background:
            super()._decode(tokens, **options)
            return
        for start in range(0, len(tokens), BACKGROUND_BATCH):
            time.sleep(0.01)
            chunk = tokens[start : start + BACKGROUND_BATCH]
            super()._decode(chunk, background=True, **options)

    def prepare(
        self,
        conversation: Conversation,
        tools: Sequence[ToolSpec],
        cancel: threading.Event,
        **options: Any,
    ) -> GenerationStats | None:
        """Prepare, noting whether it ran to its end."""
        self.preparing.set()
        try:
            stats = super().prepare(conversation, tools, cancel, **options)
        except GenerationCancelledError:
            self.prepare_ended.append("stopped")
            raise
        self.prepare_ended.append("done")
        return stats


async def test_a_request_stops_the_preparation_of_the_next_turn(qwen35_model_path: Path) -> None:
    runtime = PreparingModel(qwen35_model_path, TEST_SETTINGS)
    worker = ModelWorker(runtime)
    try:
        long = Conversation(STATIC_SYSTEM, (Message("user", "Tell me about the house. " * 60),))
        request = make_request(prompt_parts("hello"), max_tokens=16)
        await worker.warm(Conversation(STATIC_SYSTEM), TOOLS, room=0)  # the agent's prefix
        runtime.prepare_ended.clear()
        runtime.preparing.clear()
        preparing = asyncio.create_task(worker.prepare(long, TOOLS))
        started = await asyncio.get_running_loop().run_in_executor(None, runtime.preparing.wait, 5)
        assert started

        output = await worker.generate(request)
        await preparing

        assert runtime.prepare_ended == ["stopped"]
        assert output.text == _reference(qwen35_model_path, request).text
        # Idle again: it runs to its end, and is skipped while a request waits.
        await worker.prepare(long, TOOLS)
        assert runtime.prepare_ended == ["stopped", "done"]
        generating = asyncio.create_task(worker.generate(request))
        await asyncio.sleep(0)
        await worker.prepare(replace(long, messages=(Message("user", "Something else."),)), TOOLS)
        await generating
        assert runtime.prepare_ended == ["stopped", "done"]
    finally:
        await worker.close()


async def test_background_work_is_skipped_once_the_executor_is_gone(
    qwen35_model_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that stops shuts its executor down first; late background work is best effort."""
    runtime = PreparingModel(qwen35_model_path, TEST_SETTINGS)
    worker = ModelWorker(runtime)
    loop = asyncio.get_running_loop()
    try:
        with monkeypatch.context() as patched:

            def shut_down(*_args: object) -> None:
                raise RuntimeError("Executor shutdown has been called")

            patched.setattr(loop, "run_in_executor", shut_down)
            await worker.prepare(Conversation(STATIC_SYSTEM, (Message("user", "hi"),)), TOOLS)
        assert runtime.prepare_ended == []
        output = await worker.generate(make_request(prompt_parts("hello"), max_tokens=4))
        assert output.stats.evaluated_tokens > 0  # the worker still serves requests
    finally:
        await worker.close()


async def test_registry_shares_one_model_per_file_and_settings(
    counting: type[CountingModel], qwen35_model_path: Path, tmp_path: Path
) -> None:
    registry = ModelRegistry()
    alias = tmp_path / "link.gguf"
    alias.symlink_to(qwen35_model_path)

    first, second = await asyncio.gather(
        registry.acquire(qwen35_model_path, TEST_SETTINGS),
        registry.acquire(alias, TEST_SETTINGS),  # the same file by another name
    )
    assert first is second
    assert counting.loads == 1
    assert registry.loaded == 1

    bigger = await registry.acquire(qwen35_model_path, replace(TEST_SETTINGS, n_ctx=4096))
    assert bigger is not first
    assert counting.loads == 2
    assert registry.loaded == 2

    output = await first.generate(make_request(prompt_parts("hello"), max_tokens=4))
    assert output.stats.evaluated_tokens > 0
    assert output.stats.generated_tokens <= 4

    await registry.release(first)
    assert registry.loaded == 2  # still held by the second user
    assert counting.closes == 0
    await registry.release(second)
    assert registry.loaded == 1
    assert counting.closes == 1
    await registry.release(bigger)
    assert registry.loaded == 0
    assert counting.closes == 2

    again = await registry.acquire(qwen35_model_path, TEST_SETTINGS)
    assert again is not first
    assert counting.loads == 3
    await registry.release(again)
    assert registry.loaded == 0


async def test_registry_load_error_leaves_nothing_behind(
    counting: type[CountingModel], tmp_path: Path
) -> None:
    registry = ModelRegistry()
    with pytest.raises(ModelFileMissingError):
        await registry.acquire(tmp_path / "missing.gguf", TEST_SETTINGS)
    assert registry.loaded == 0
    assert counting.loads == 0


async def test_a_cancelled_generation_logs_no_error(
    open_worker: OpenWorker, caplog: pytest.LogCaptureFixture
) -> None:
    # The agent cancels a generation whenever the visible answer has ended: that is routine.
    worker, _ = open_worker(token_delay=0.001)
    long = make_request(prompt_parts("hello"), thinking_budget=None, max_tokens=1000)
    streaming = asyncio.Event()

    task = asyncio.create_task(worker.generate(long, lambda _event: streaming.set()))
    await asyncio.wait_for(streaming.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0)
    gc.collect()

    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == [], caplog.text
