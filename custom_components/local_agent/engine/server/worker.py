"""A model on a server: ServerWorker has the in-process ModelWorker's interface, over HTTP.

The agent, its prompts, its tools and its safety gate stay exactly the same; only generations
go to an OpenAI-compatible server. Two modes (server_settings.ServerMode):

* ``completions`` (completions.py): the raw `/v1/completions` endpoint with our own
  prompt rendering, streaming XML parser, thinking budget and tool-call grammar.
* ``chat`` (chat.py): `/v1/chat/completions`; the server renders the prompt and parses
  tool calls (vLLM ``--tool-call-parser qwen3_xml``, llama-server ``--jinja``), with our XML
  parser as the fallback for servers that return calls as text.

HTTP, retries and error types: http.py, errors.py. No Home Assistant imports:
the caller passes an aiohttp session (Home Assistant's shared one).

Unlike the in-process engine, which queues requests behind one lock, requests run at the same
time up to `max_concurrent` (a semaphore); the rest wait in arrival order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from pathlib import PurePosixPath
from typing import Any
from typing import Final
from typing import Self

import aiohttp

from ..errors import EngineError
from ..generation import GenerationOutput
from ..generation import GenerationRequest
from ..generation import ModelInfo
from ..generation import Steering
from ..generation import render_request
from ..settings import EngineSettings
from ..tool_calls import ParseEvent
from ..types import Conversation
from ..types import ToolSpec
from .chat import ChatGeneration
from .completions import CompletionsGeneration
from .errors import ServerAuthError
from .errors import ServerModelMissingError
from .errors import ServerNotAnApiError
from .errors import ServerResponseError
from .http import ServerClient
from .settings import ServerMode
from .settings import ServerSettings
from .template import server_template

# How /v1/models answers where no model server listens: a web page (200, no JSON), or no such
# path (404, 405: a file server, Home Assistant itself).
_NO_API_STATUSES: Final = (200, 404, 405)


@dataclass(frozen=True, slots=True)
class ServerFacts:
    """What a server says about itself."""

    models: list[str]
    kind: str
    model_entries: dict[str, dict[str, Any]]
    props: dict[str, Any] | None

    @property
    def chat_template(self) -> str | None:
        """The model's chat template, where the server shows it (llama-server's /props)."""
        template = (self.props or {}).get("chat_template")
        return template if isinstance(template, str) and template.strip() else None

    def context_size(self, model: str) -> int:
        """Return the context window the server runs the model with, 0 when it does not say."""
        settings = (self.props or {}).get("default_generation_settings")
        if isinstance(settings, dict) and isinstance(settings.get("n_ctx"), int):
            return int(settings["n_ctx"])
        entry = self.model_entries.get(model, {})
        for key in ("max_model_len", "context_length"):
            if isinstance(entry.get(key), int):
                return int(entry[key])
        return 0


async def async_read_facts(client: ServerClient) -> ServerFacts:
    """Read /v1/models (required) and /props (llama-server only)."""
    try:
        listing = await client.get_json("/v1/models")
    except ServerResponseError as err:
        if err.status in _NO_API_STATUSES:
            raise ServerNotAnApiError(client.url, err.detail, err.status) from err
        raise
    data = listing.get("data") if isinstance(listing, dict) else None
    entries = {
        str(item["id"]): item
        for item in (data if isinstance(data, list) else [])
        if isinstance(item, dict) and "id" in item
    }
    props = await client.get_json("/props", optional=True)
    props = props if isinstance(props, dict) else None
    if props is not None and ("build_info" in props or "chat_template" in props):
        kind = "llama.cpp server"
    elif any("max_model_len" in entry for entry in entries.values()):
        kind = "vLLM"
    else:
        kind = "OpenAI-compatible server"
    return ServerFacts(models=list(entries), kind=kind, model_entries=entries, props=props)


async def async_read_serving_facts(client: ServerClient) -> ServerFacts:
    """Read the server's facts; raise ServerModelMissingError if it does not serve our model."""
    facts = await async_read_facts(client)
    if client.settings.model not in facts.models:
        raise ServerModelMissingError(client.url, client.settings.model, facts.models)
    return facts


def describe_model(settings: ServerSettings, facts: ServerFacts) -> ModelInfo:
    """ModelInfo for a served model, from what the server tells (zeros where it does not)."""
    entry = facts.model_entries.get(settings.model, {})
    found = entry.get("meta")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}

    def number(key: str) -> int:
        value = meta.get(key)
        return int(value) if isinstance(value, int | float) else 0

    n_ctx = facts.context_size(settings.model)
    return ModelInfo(
        path=Path(settings.model),  # a name on the server, not a file here
        architecture=None,
        name=PurePosixPath(settings.model).name or settings.model,
        size_bytes=number("size"),
        parameters=number("n_params"),
        n_ctx=n_ctx,
        n_ctx_train=number("n_ctx_train") or n_ctx,
        n_vocab=number("n_vocab"),
        chat_template=facts.chat_template,
        metadata={
            "server.url": settings.root,
            "server.kind": facts.kind,
            "server.mode": str(settings.mode),
            "server.model": settings.model,
        },
    )


class ServerWorker:
    """Generations on a model server; several at once up to the configured limit."""

    # What the model is made to write (generation.Steering): tests and benchmarks only.
    steering: Steering | None = None

    def __init__(
        self,
        session: aiohttp.ClientSession,
        settings: ServerSettings,
        info: ModelInfo,
        on_auth_failed: Callable[[], None] | None = None,
    ) -> None:
        """Use connect() to check the server first.

        on_auth_failed is called (in the event loop) when the server refuses the API key.
        """
        self.server = settings
        self._on_auth_failed = on_auth_failed
        self.info = info
        # What completions mode renders prompts with; chat mode sends the messages instead.
        self.chat_template = server_template(info.chat_template)
        self.settings = EngineSettings(n_ctx=info.n_ctx or EngineSettings().n_ctx)
        self._client = ServerClient(session, settings)
        self._slots = asyncio.Semaphore(max(settings.max_concurrent, 1))
        self.waiting = 0
        self.active = 0
        self.peak_active = 0
        self.checkpoint_bytes = 0
        # Whether the server returns calls as tool_calls (True) or as text in the content
        # (False); unknown until it has returned a call.
        self.server_parses_calls: bool | None = None
        self._closed = False

    @classmethod
    async def connect(
        cls,
        session: aiohttp.ClientSession,
        settings: ServerSettings,
        on_auth_failed: Callable[[], None] | None = None,
    ) -> Self:
        """Check that the server answers and serves the model; raise a ServerError if not."""
        facts = await async_read_serving_facts(ServerClient(session, settings))
        return cls(session, settings, describe_model(settings, facts), on_auth_failed)

    @property
    def busy(self) -> bool:
        """Whether a generation is running or waiting."""
        return self.active + self.waiting > 0

    async def generate(
        self,
        request: GenerationRequest,
        on_event: Callable[[ParseEvent], None] | None = None,
    ) -> GenerationOutput:
        """Run one generation when a slot is free; cancelling the caller closes its stream.

        on_event is called in the event loop, in order, as the server streams.
        """
        self.waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self.waiting -= 1
        try:
            if self._closed:
                raise EngineError("The model server entry was unloaded")
            self.active += 1
            self.peak_active = max(self.peak_active, self.active)
            try:
                return await self._generate(request, on_event)
            except ServerAuthError:
                if self._on_auth_failed is not None:
                    self._on_auth_failed()
                raise
            finally:
                self.active -= 1
        finally:
            self._slots.release()

    async def _generate(
        self, request: GenerationRequest, on_event: Callable[[ParseEvent], None] | None
    ) -> GenerationOutput:
        if self.server.mode is ServerMode.CHAT:
            chat = ChatGeneration(
                self._client,
                request,
                on_event,
                calls_as_text=self.server_parses_calls is False,
                steering=self.steering,
            )
            output = await chat.run()
            if chat.native_calls:
                self.server_parses_calls = True
            elif chat.text_calls and self.server_parses_calls is None:
                self.server_parses_calls = False
            return output
        prompt = render_request(self.chat_template, request)
        return await CompletionsGeneration(
            self._client, request, prompt, on_event, self.steering
        ).run()

    async def prepare(self, conversation: Conversation, tools: Sequence[ToolSpec]) -> None:
        """Nothing ahead of time: the server keeps its own prompt cache."""

    async def warm(
        self, conversation: Conversation, tools: Sequence[ToolSpec], *, room: int
    ) -> None:
        """Nothing ahead of time: the server keeps its own prompt cache."""

    def warming_seconds(self, system: str) -> float | None:
        """Never warming here."""
        return None

    async def close(self) -> None:
        """Refuse later requests; the shared HTTP session stays open (it is not ours)."""
        self._closed = True
