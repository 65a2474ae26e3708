"""HTTP to an OpenAI-compatible server: JSON requests and SSE streams, errors typed.

Retries (with exponential backoff) only where nothing of an answer can have been used: the
connection could not be made, broke before the server sent any of the response body, or the
server said it is busy or restarting (429, 502, 503, 504). A stream that has delivered any
byte is never repeated. 500 is not retried: llama.cpp servers and vLLM use it for failures
that repeat identically (a template that cannot render, say).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from collections.abc import Mapping
import json
import logging
import re
from typing import Any
from typing import Final

import aiohttp

from .errors import ServerAuthError
from .errors import ServerConnectionLostError
from .errors import ServerContextOverflowError
from .errors import ServerError
from .errors import ServerModelMissingError
from .errors import ServerResponseError
from .errors import ServerTimeoutError
from .errors import ServerToolsNotSupportedError
from .errors import ServerUnreachableError
from .errors import Unreachable
from .settings import ServerSettings
from .sse import SseDecoder

_LOGGER = logging.getLogger(__name__)

RETRY_STATUSES: Final = frozenset({429, 502, 503, 504})
DONE: Final = "[DONE]"
_MESSAGE_CHARS: Final = 300
# llama-server's error type for a prompt larger than a slot's context.
OVERFLOW_TYPE: Final = "exceed_context_size_error"
# The same from vLLM ("This model's maximum context length is 4096 tokens. However, you
# requested 5000 tokens (4900 in the messages, 100 in the completion)...") and llama-cpp-python's
# server ("Requested tokens (5000) exceed context window of 4096").
_VLLM_OVERFLOW: Final = re.compile(r"maximum context length is (\d+) tokens")
_VLLM_MESSAGES: Final = re.compile(r"(\d+) in the messages")
_VLLM_REQUESTED: Final = re.compile(r"requested (\d+) tokens")
_LLAMA_CPP_PYTHON_OVERFLOW: Final = re.compile(
    r"Requested tokens \((\d+)\) exceed context window of (\d+)"
)

type Json = dict[str, Any]


class _Retry(Exception):
    """A failure after which the request may be sent again."""

    def __init__(self, error: ServerError) -> None:
        super().__init__(str(error))
        self.error = error


class ServerClient:
    """Requests to one server, with its key, timeouts and retry policy."""

    def __init__(self, session: aiohttp.ClientSession, settings: ServerSettings) -> None:
        """Use the caller's session (Home Assistant's shared one); it is never closed here."""
        self._session = session
        self.settings = settings
        self._timeout = aiohttp.ClientTimeout(
            total=None, connect=settings.connect_timeout, sock_read=settings.read_timeout
        )
        self.available = True

    @property
    def url(self) -> str:
        """The server's address, for messages."""
        return self.settings.root

    def _headers(self, *, stream: bool) -> dict[str, str]:
        headers = {"Accept": "text/event-stream" if stream else "application/json"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        return headers

    async def get_json(self, path: str, *, optional: bool = False) -> Any:
        """GET an endpoint's JSON; None for a missing optional one (404, 405 or not JSON)."""
        return await self._request_json("GET", path, None, optional=optional)

    async def post_json(self, path: str, body: Mapping[str, Any]) -> Any:
        """POST a request and return its JSON answer (retried like a stream before any byte)."""
        return await self._request_json("POST", path, body, optional=False)

    async def _request_json(
        self, method: str, path: str, body: Mapping[str, Any] | None, *, optional: bool
    ) -> Any:
        attempt = 0
        while True:
            try:
                async with self._session.request(
                    method,
                    self.settings.url(path),
                    json=dict(body) if body is not None else None,
                    headers=self._headers(stream=False),
                    timeout=self._timeout,
                ) as response:
                    if optional and response.status in (404, 405):
                        return None
                    await self._check(response, body)
                    try:
                        return await response.json(content_type=None)
                    except ValueError as err:
                        if optional:
                            return None
                        raise ServerResponseError(
                            self.url, f"{path} answered no JSON", response.status
                        ) from err
            except _Retry as retry:
                failure: ServerError = retry.error
            except aiohttp.ClientError as err:
                failure = self._connection_failure(err, received=False)
            attempt = await self._backoff(attempt, failure)

    async def stream(self, path: str, body: Mapping[str, Any]) -> AsyncGenerator[Json]:
        """POST a streaming request and yield each event's JSON until [DONE] or the end.

        Leaving the iteration early (or cancelling the caller) closes the connection, which
        tells the server to stop. Use it with contextlib.aclosing.
        """
        attempt = 0
        while True:
            received = False
            try:
                async with self._session.post(
                    self.settings.url(path),
                    json=dict(body),
                    headers=self._headers(stream=True),
                    timeout=self._timeout,
                ) as response:
                    await self._check(response, body)
                    complete = False
                    try:
                        decoder = SseDecoder()
                        async for chunk in response.content.iter_any():
                            received = True
                            for data in decoder.feed(chunk):
                                if data.strip() == DONE:
                                    complete = True
                                    return
                                yield self._event(data)
                        for data in decoder.finish():
                            if data.strip() != DONE:
                                yield self._event(data)
                        complete = True
                        return
                    finally:
                        if not complete:
                            response.close()
            except _Retry as retry:
                failure: ServerError = retry.error
            except aiohttp.ClientError as err:
                failure = self._connection_failure(err, received=received)
            attempt = await self._backoff(attempt, failure)

    async def _backoff(self, attempt: int, failure: ServerError) -> int:
        """Wait before the next attempt, or raise the failure when it may not be retried."""
        if not isinstance(failure, _RETRIABLE) or attempt >= self.settings.retries:
            if isinstance(failure, ServerUnreachableError) and self.available:
                # Logged once when the server goes away, once when it is back.
                self.available = False
                _LOGGER.warning("The model server %s is unavailable: %s", self.url, failure)
            raise failure
        await asyncio.sleep(self.settings.retry_delay * 2**attempt)
        return attempt + 1

    def _connection_failure(self, err: aiohttp.ClientError, *, received: bool) -> ServerError:
        if isinstance(err, aiohttp.ConnectionTimeoutError):
            return ServerUnreachableError(self.url, "connection timed out", Unreachable.TIMED_OUT)
        if isinstance(err, aiohttp.SocketTimeoutError):
            seconds = f"{self.settings.read_timeout:g}"
            return ServerTimeoutError(self.url, f"nothing received for {seconds} s")
        if isinstance(err, aiohttp.ClientConnectorError):
            return ServerUnreachableError(self.url, _os_reason(err), _unreachable(err))
        if isinstance(err, aiohttp.ClientConnectionError | aiohttp.ClientPayloadError):
            if received:
                return ServerConnectionLostError(self.url, _reason(err))
            return _NotYetAnswered(self.url, _reason(err))
        return ServerResponseError(self.url, _reason(err))

    async def _check(
        self, response: aiohttp.ClientResponse, body: Mapping[str, Any] | None
    ) -> None:
        """Raise the typed error of a failed response (or _Retry for a retriable one)."""
        status = response.status
        if not self.available:
            self.available = True
            _LOGGER.info("The model server %s is available again", self.url)
        if 200 <= status < 300:
            return
        text = await response.text(errors="replace")
        message = _error_message(text, response.reason)
        if overflow := _context_overflow(self.url, text, message):
            raise overflow
        if status in (401, 403):
            raise ServerAuthError(self.url, f"HTTP {status}: {message}")
        if status == 404 and body is not None and "model" in message.lower():
            model = str(body.get("model", self.settings.model))
            raise ServerModelMissingError(self.url, model)
        if body is not None and body.get("tools") and _about_tools(message):
            raise ServerToolsNotSupportedError(self.url, f"HTTP {status}: {message}")
        error = ServerResponseError(self.url, f"HTTP {status}: {message}", status)
        if status in RETRY_STATUSES:
            raise _Retry(_Busy(self.url, error.detail, status))
        raise error

    def _event(self, data: str) -> Json:
        try:
            event = json.loads(data)
        except ValueError as err:
            raise ServerResponseError(self.url, f"bad stream event {data[:80]!r}") from err
        if not isinstance(event, dict):
            raise ServerResponseError(self.url, f"bad stream event {data[:80]!r}")
        if "error" in event:
            text = json.dumps(event)
            message = _error_message(text, None)
            raise _context_overflow(self.url, text, message) or ServerResponseError(
                self.url, message
            )
        return event


class _NotYetAnswered(ServerUnreachableError):
    """The connection broke before any of the answer arrived (retriable)."""


class _Busy(ServerResponseError):
    """The server asked to come back later (retriable)."""


_RETRIABLE: Final = (ServerUnreachableError, _Busy)


def _about_tools(message: str) -> bool:
    lowered = message.lower()
    return "tool" in lowered or "jinja" in lowered


def _context_overflow(url: str, text: str, message: str) -> ServerContextOverflowError | None:
    """Return the overflow error an error body describes, None if it says something else."""
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict) and error.get("type") == OVERFLOW_TYPE:
        return ServerContextOverflowError(
            url, message, _size(error.get("n_prompt_tokens")), _size(error.get("n_ctx"))
        )
    if found := _VLLM_OVERFLOW.search(message):
        # "(4900 in the messages, ...)" is the prompt; some versions say only "requested N".
        prompt = _VLLM_MESSAGES.search(message) or _VLLM_REQUESTED.search(message)
        prompt_tokens = int(prompt[1]) if prompt else 0
        return ServerContextOverflowError(url, message, prompt_tokens, int(found[1]))
    if found := _LLAMA_CPP_PYTHON_OVERFLOW.search(message):
        return ServerContextOverflowError(url, message, int(found[1]), int(found[2]))
    return None


def _size(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _error_message(text: str, reason: str | None) -> str:
    """Return the message of an OpenAI-style, FastAPI-style or vLLM-style error body."""
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    found: Any = None
    if isinstance(payload, dict):
        error = payload.get("error")
        found = (
            (error.get("message") if isinstance(error, dict) else error)
            or payload.get("message")
            or payload.get("detail")
        )
    if found:
        message = str(found)
    elif _looks_like_html(text):
        # A web page (another service on that port, a proxy's error page): its markup was
        # shown in the dialog and spoken by Assist; the status's reason says what it means.
        message = reason or "an HTML page"
    else:
        message = text.strip() or reason or "no details"
    return message[:_MESSAGE_CHARS]


def _looks_like_html(text: str) -> bool:
    return text.lstrip()[:1] == "<"


def _os_reason(err: aiohttp.ClientConnectorError) -> str:
    os_error = err.os_error
    return os_error.strerror or str(os_error) or type(os_error).__name__


def _unreachable(err: aiohttp.ClientConnectorError) -> Unreachable:
    """Why a connection failed, where the system said so plainly."""
    if isinstance(err, aiohttp.ClientConnectorDNSError):
        return Unreachable.UNKNOWN_HOST
    if isinstance(err.os_error, ConnectionRefusedError):
        return Unreachable.REFUSED
    if isinstance(err.os_error, TimeoutError):
        return Unreachable.TIMED_OUT
    return Unreachable.OTHER


def _reason(err: BaseException) -> str:
    return str(err) or type(err).__name__
