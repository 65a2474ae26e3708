"""What both server modes share: publishing parse events, timing and usage figures."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
import contextlib
from dataclasses import dataclass
import json
import time
from typing import Any

from ..generation import AnswerEnd
from ..generation import GenerationStats
from ..markup import TURN_MARKERS
from ..settings import SamplingSettings
from ..tool_calls import ParseEvent
from .errors import ServerResponseError
from .http import Json
from .http import ServerClient

_EVENT_CHARS = 80


def first_choice(url: str, event: Mapping[str, Any]) -> dict[str, Any] | None:
    """Return a stream event's first choice; None for an event without one (usage only).

    Servers differ in what they send, and some send what no client can read: a choice that is
    not an object is a broken answer (ServerResponseError, said as the server's failure), never
    an exception a turn does not expect.
    """
    choices = event.get("choices")
    if choices is None or choices == []:
        return None
    if not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise bad_event(url, event)
    return choices[0]


async def stream_choices(
    client: ServerClient, path: str, body: Mapping[str, Any], usage: Usage
) -> AsyncGenerator[tuple[Json, dict[str, Any]]]:
    """Stream a request's events that carry a choice, each with its first choice.

    Every event's usage figures go into `usage`, those of events without a choice too.
    Closing this generator closes the request's stream.
    """
    async with contextlib.aclosing(client.stream(path, body)) as events:
        async for event in events:
            usage.update(event)
            choice = first_choice(client.url, event)
            if choice is not None:
                yield event, choice


def event_field[T](
    url: str, event: Mapping[str, Any], holder: Mapping[str, Any], key: str, kind: type[T]
) -> T | None:
    """Return holder[key] when it is of the kind a stream event gives it, None when absent.

    Any other value makes the event unreadable (bad_event): a delta that is text instead of an
    object, a piece of the answer that is a number.
    """
    value = holder.get(key)
    if value is None or isinstance(value, kind):
        return value
    raise bad_event(url, event)


def bad_event(url: str, event: Mapping[str, Any]) -> ServerResponseError:
    """Return the error of a stream event that is JSON but not shaped as an OpenAI stream's."""
    return ServerResponseError(url, f"bad stream event {json.dumps(event)[:_EVENT_CHARS]!r}")


class EventSink:
    """Collects parse events and hands each to the caller's callback as it comes.

    The answer ends where the model starts writing the next turn itself (AnswerEnd).
    """

    def __init__(
        self, on_event: Callable[[ParseEvent], None] | None, stop: Sequence[str] = TURN_MARKERS
    ) -> None:
        """Forward to on_event (called in the event loop, in order); the answer ends at stop."""
        self.events: list[ParseEvent] = []
        self._on_event = on_event
        self._answer_end = AnswerEnd(stop)

    @property
    def answer_ended(self) -> bool:
        """Whether the model wrote a turn marker: nothing after it is published."""
        return self._answer_end.ended

    def publish(self, events: Iterable[ParseEvent]) -> None:
        """Record and forward events, up to the end of the answer."""
        self._deliver(self._answer_end.filter(list(events)))

    def finish(self) -> None:
        """Publish the text held back in case it started a turn marker."""
        self._deliver(self._answer_end.flush())

    def _deliver(self, events: list[ParseEvent]) -> None:
        for event in events:
            self.events.append(event)
            if self._on_event is not None:
                self._on_event(event)


@dataclass(slots=True)
class Usage:
    """Token counts a server reported for one request (None when it did not say)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None

    def update(self, event: Mapping[str, Any]) -> None:
        """Read `usage` (OpenAI, vLLM) and `timings` (llama-server) from a stream event."""
        usage = event.get("usage")
        if isinstance(usage, Mapping):
            self.prompt_tokens = _int(usage.get("prompt_tokens"), self.prompt_tokens)
            self.completion_tokens = _int(usage.get("completion_tokens"), self.completion_tokens)
            details = usage.get("prompt_tokens_details")
            if isinstance(details, Mapping):
                self.cached_tokens = _int(details.get("cached_tokens"), self.cached_tokens)
        timings = event.get("timings")
        if isinstance(timings, Mapping):
            self.cached_tokens = _int(timings.get("cache_n"), self.cached_tokens)
            if self.prompt_tokens is None and "prompt_n" in timings:
                evaluated = _int(timings.get("prompt_n"), None)
                if evaluated is not None:
                    self.prompt_tokens = evaluated + (self.cached_tokens or 0)
            self.completion_tokens = _int(timings.get("predicted_n"), self.completion_tokens)

    def fill_prompt(self, stats: GenerationStats) -> None:
        """Give the generation the prompt figures, unless an earlier request already did."""
        if stats.prompt_tokens:
            return
        stats.prompt_tokens = self.prompt_tokens or 0
        stats.cached_tokens = self.cached_tokens or 0
        stats.evaluated_tokens = max(stats.prompt_tokens - stats.cached_tokens, 0)


def _int(value: Any, default: int | None) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


class Clock:
    """Splits a request's time: until the first token (prompt) and after it (generation)."""

    def __init__(self) -> None:
        """Start now."""
        self._started = time.perf_counter()
        self._first: float | None = None

    def token(self) -> None:
        """Note that a piece of the answer arrived."""
        if self._first is None:
            self._first = time.perf_counter()

    def add_to(self, stats: GenerationStats) -> None:
        """Add this request's time to the generation's figures."""
        now = time.perf_counter()
        first = self._first if self._first is not None else now
        stats.prompt_seconds += first - self._started
        stats.generation_seconds += now - first


def sampling_fields(sampling: SamplingSettings) -> dict[str, Any]:
    """Return the request fields of SamplingSettings (OpenAI names, llama.cpp/vLLM extras)."""
    fields: dict[str, Any] = {
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
        "top_k": sampling.top_k,
        "min_p": sampling.min_p,
        "presence_penalty": sampling.presence_penalty,
    }
    if sampling.seed is not None:
        fields["seed"] = sampling.seed
    return fields
