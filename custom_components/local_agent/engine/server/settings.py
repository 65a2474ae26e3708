"""How to reach a model server and how to talk to it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ServerMode(StrEnum):
    """Which endpoint the engine uses."""

    # /v1/completions: our prompt, our parser, our thinking budget and tool-call grammar.
    COMPLETIONS = "completions"
    # /v1/chat/completions: the server renders the prompt and parses the tool calls.
    CHAT = "chat"


DEFAULT_MAX_CONCURRENT = 2
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_READ_TIMEOUT = 60.0
DEFAULT_RETRIES = 2
DEFAULT_RETRY_DELAY = 0.5


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """One model on one OpenAI-compatible server.

    read_timeout bounds the wait for each piece of the stream, the first one included (the
    server evaluates the prompt before it sends anything). retries: extra attempts for
    requests that failed before the server sent any of its answer; the wait doubles from
    retry_delay on each. grammar: send our tool-call GBNF inside calls (completions mode; the
    llama.cpp servers apply it, others ignore the field).
    """

    base_url: str
    model: str
    api_key: str | None = None
    mode: ServerMode = ServerMode.COMPLETIONS
    max_concurrent: int = DEFAULT_MAX_CONCURRENT
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    retries: int = DEFAULT_RETRIES
    retry_delay: float = DEFAULT_RETRY_DELAY
    grammar: bool = True

    @property
    def root(self) -> str:
        """The base URL without a trailing slash or /v1 (both are accepted from users)."""
        url = self.base_url.strip().rstrip("/")
        return url.removesuffix("/v1")

    def url(self, path: str) -> str:
        """Absolute URL of an endpoint such as /v1/models."""
        return self.root + path
