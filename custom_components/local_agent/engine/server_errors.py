"""Errors of a model server, each naming the server and carrying the sentence the agent says.

`key` is a translation key under "exceptions" in translations/*.json; `placeholders` fill it.
"""

from __future__ import annotations

from typing import ClassVar

from .errors import EngineError


class ServerError(EngineError):
    """Base class of the model server's errors."""

    key: ClassVar[str] = "server_failed"

    def __init__(self, url: str, detail: str = "") -> None:
        """Name the server and what went wrong."""
        self.url = url
        self.detail = detail
        super().__init__(self.describe())

    def describe(self) -> str:
        """Return the log message."""
        return f"The model server at {self.url} failed: {self.detail or 'unknown error'}"

    @property
    def placeholders(self) -> dict[str, str]:
        """Values for the translated sentence."""
        return {"url": self.url, "error": self.detail or type(self).__name__}


class ServerUnreachableError(ServerError):
    """No connection could be made (refused, reset, DNS, connect timeout), even after retries."""

    key = "server_unreachable"

    def describe(self) -> str:
        """Return the log message."""
        return f"The model server at {self.url} is not reachable ({self.detail})"


class ServerAuthError(ServerError):
    """The server refused the API key (401 or 403)."""

    key = "server_auth_failed"

    def describe(self) -> str:
        """Return the log message."""
        return f"The model server at {self.url} refused the API key ({self.detail})"


class ServerModelMissingError(ServerError):
    """The server does not serve the configured model."""

    key = "server_model_missing"

    def __init__(self, url: str, model: str, available: list[str] | None = None) -> None:
        """Name the model and what the server offers."""
        self.model = model
        self.available = list(available or [])
        offered = ", ".join(self.available) or "none"
        super().__init__(url, f"model {model!r} not served; it serves: {offered}")

    def describe(self) -> str:
        """Return the log message."""
        return f"The model server at {self.url} does not serve the model: {self.detail}"

    @property
    def placeholders(self) -> dict[str, str]:
        """Values for the translated sentence."""
        return {"url": self.url, "model": self.model}


class ServerToolsNotSupportedError(ServerError):
    """The server rejected a request with tools (vLLM without --enable-auto-tool-choice...)."""

    key = "server_tools_unsupported"

    def describe(self) -> str:
        """Return the log message."""
        return f"The model server at {self.url} does not accept tools: {self.detail}"


class ServerTimeoutError(ServerError):
    """The server stopped sending for longer than the read timeout."""

    key = "server_timeout"

    def describe(self) -> str:
        """Return the log message."""
        return f"The model server at {self.url} did not answer in time ({self.detail})"


class ServerConnectionLostError(ServerError):
    """The connection broke, or the stream ended, before the answer was complete."""

    key = "server_connection_lost"

    def describe(self) -> str:
        """Return the log message."""
        return f"The connection to the model server at {self.url} broke off ({self.detail})"


class ServerContextOverflowError(ServerError):
    """The prompt does not fit in the context the server runs the model with (per slot).

    llama-server says so with the error type `exceed_context_size_error` and both sizes;
    vLLM and llama-cpp-python's server in the message. Sizes are 0 where it did not say.
    """

    key = "server_context_overflow"

    def __init__(self, url: str, detail: str, prompt_tokens: int = 0, n_ctx: int = 0) -> None:
        """Keep the sizes."""
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx
        super().__init__(url, detail)

    def describe(self) -> str:
        """Return the log message."""
        return f"The prompt is larger than the context of the model server at {self.url}: " + (
            self.detail
        )

    @property
    def placeholders(self) -> dict[str, str]:
        """Values for the translated sentence ("?" for a size the server did not give)."""
        return {
            "url": self.url,
            "prompt_tokens": str(self.prompt_tokens or "?"),
            "context_size": str(self.n_ctx or "?"),
        }


class ServerResponseError(ServerError):
    """The server answered with an error status or something that is not the expected JSON."""

    key = "server_failed"

    def __init__(self, url: str, detail: str, status: int | None = None) -> None:
        """Keep the HTTP status."""
        self.status = status
        super().__init__(url, detail)
