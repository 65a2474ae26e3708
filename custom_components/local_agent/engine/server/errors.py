"""Errors of a model server, each naming the server and saying what kind of failure it was.

`kind` says what failed and `facts` the values a sentence about it needs (the server's address
and what it said); the integration turns them into its translated sentences (turn/error_text.py).
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from ..errors import EngineError


class ServerFailure(StrEnum):
    """What kind of failure a model server's error is."""

    FAILED = "failed"
    UNREACHABLE = "unreachable"
    AUTH = "auth"
    MODEL_MISSING = "model_missing"
    TOOLS_UNSUPPORTED = "tools_unsupported"
    TIMEOUT = "timeout"
    CONNECTION_LOST = "connection_lost"
    CONTEXT_OVERFLOW = "context_overflow"


class ServerError(EngineError):
    """Base class of the model server's errors."""

    kind: ClassVar[ServerFailure] = ServerFailure.FAILED
    log_message: ClassVar[str] = "The model server at {url} failed: {detail}"

    def __init__(self, url: str, detail: str = "") -> None:
        """Name the server and what went wrong."""
        self.url = url
        self.detail = detail
        super().__init__(self.describe())

    def describe(self) -> str:
        """Return the log message: the class's `log_message` with the server and the detail."""
        return self.log_message.format(url=self.url, detail=self.detail or "unknown error")

    @property
    def facts(self) -> dict[str, str]:
        """Values a sentence about the failure needs."""
        return {"url": self.url, "error": self.detail or type(self).__name__}


class Unreachable(StrEnum):
    """Why no connection could be made, where the system said so plainly."""

    REFUSED = "refused"  # nothing listens at that port
    UNKNOWN_HOST = "unknown_host"  # the name does not resolve
    TIMED_OUT = "timed_out"  # no answer to the connection at all (off, a firewall)
    OTHER = "other"


class ServerUnreachableError(ServerError):
    """No connection could be made (refused, reset, DNS, connect timeout), even after retries."""

    kind = ServerFailure.UNREACHABLE
    log_message = "The model server at {url} is not reachable ({detail})"
    warn_in_turn = False  # the connection logs it once, and again when it is back

    def __init__(self, url: str, detail: str = "", why: Unreachable = Unreachable.OTHER) -> None:
        """Name the server, the system's words and, where known, why (to say it translated)."""
        self.why = why
        super().__init__(url, detail)


class ServerAuthError(ServerError):
    """The server refused the API key (401 or 403)."""

    kind = ServerFailure.AUTH
    log_message = "The model server at {url} refused the API key ({detail})"


class ServerModelMissingError(ServerError):
    """The server does not serve the configured model."""

    kind = ServerFailure.MODEL_MISSING
    log_message = "The model server at {url} does not serve the model: {detail}"

    def __init__(self, url: str, model: str, available: list[str] | None = None) -> None:
        """Name the model and what the server offers."""
        self.model = model
        self.available = list(available or [])
        offered = ", ".join(self.available) or "none"
        super().__init__(url, f"model {model!r} not served; it serves: {offered}")

    @property
    def facts(self) -> dict[str, str]:
        """Values a sentence about the failure needs."""
        return {"url": self.url, "model": self.model}


class ServerToolsNotSupportedError(ServerError):
    """The server rejected a request with tools (vLLM without --enable-auto-tool-choice...)."""

    kind = ServerFailure.TOOLS_UNSUPPORTED
    log_message = "The model server at {url} does not accept tools: {detail}"


class ServerTimeoutError(ServerError):
    """The server stopped sending for longer than the read timeout."""

    kind = ServerFailure.TIMEOUT
    log_message = "The model server at {url} did not answer in time ({detail})"


class ServerConnectionLostError(ServerError):
    """The connection broke, or the stream ended, before the answer was complete."""

    kind = ServerFailure.CONNECTION_LOST
    log_message = "The connection to the model server at {url} broke off ({detail})"


class ServerContextOverflowError(ServerError):
    """The prompt does not fit in the context the server runs the model with (per slot).

    llama-server says so with the error type `exceed_context_size_error` and both sizes;
    vLLM and llama-cpp-python's server in the message. Sizes are 0 where it did not say.
    """

    kind = ServerFailure.CONTEXT_OVERFLOW
    log_message = "The prompt is larger than the context of the model server at {url}: {detail}"

    def __init__(self, url: str, detail: str, prompt_tokens: int = 0, n_ctx: int = 0) -> None:
        """Keep the sizes."""
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx
        super().__init__(url, detail)

    @property
    def facts(self) -> dict[str, str]:
        """Values a sentence about the failure needs ("?" for a size the server did not give)."""
        return {
            "url": self.url,
            "prompt_tokens": str(self.prompt_tokens or "?"),
            "context_size": str(self.n_ctx or "?"),
        }


class ServerResponseError(ServerError):
    """The server answered with an error status or something that is not the expected JSON."""

    kind = ServerFailure.FAILED

    def __init__(self, url: str, detail: str, status: int | None = None) -> None:
        """Keep the HTTP status."""
        self.status = status
        super().__init__(url, detail)


class ServerNotAnApiError(ServerResponseError):
    """Something answers at the address, but no OpenAI API: /v1/models is missing or no JSON.

    Another service on that port (a router's page, Home Assistant itself, a file server).
    """

    log_message = "The address {url} answers, but not as a model server ({detail})"
