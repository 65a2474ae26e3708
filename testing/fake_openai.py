"""A scripted OpenAI-compatible server on loopback (aiohttp), for what a real one won't do.

It answers /v1/models, refuses a wrong API key, refuses tools like vLLM without a tool parser,
and streams scripted chunks: vLLM-style `reasoning_content` and `tool_calls` deltas, or a stream
that breaks off after some chunks. Every request body is recorded.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from collections.abc import Callable
import contextlib
from dataclasses import dataclass
from dataclasses import field
import json
from typing import Any
from typing import Final

from aiohttp import web

DROP: Final = "<drop the connection>"
SLEEP: Final = "<sleep>"  # wait FakeOpenAI.sleep seconds before the next chunk

type Chunk = dict[str, Any] | str
type Script = list[Chunk]


@dataclass
class FakeOpenAI:
    """Scriptable behaviour; `url` once started."""

    models: list[str] = field(default_factory=lambda: ["fake-model"])
    api_key: str | None = None
    tools_error: str | None = None
    status: int | None = None
    status_message: str = "server error"
    scripts: list[Script] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    on_request: Callable[[dict[str, Any]], None] | None = None
    sleep: float = 0.05
    props: dict[str, Any] | None = None  # llama-server's /props; 404 when None
    active: int = 0
    peak: int = 0
    disconnects: int = 0

    def will_stream(self, *scripts: Script) -> None:
        """Queue the chunks of the next streamed answers."""
        self.scripts.extend(scripts)

    def _authorized(self, request: web.Request) -> bool:
        return self.api_key is None or request.headers.get("Authorization") == (
            f"Bearer {self.api_key}"
        )

    async def models_handler(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return web.json_response({"error": {"message": "Invalid API key"}}, status=401)
        data = [{"id": model, "object": "model", "max_model_len": 4096} for model in self.models]
        return web.json_response({"object": "list", "data": data})

    async def props_handler(self, request: web.Request) -> web.Response:
        if self.props is None:
            raise web.HTTPNotFound
        return web.json_response(self.props)

    async def generate_handler(self, request: web.Request) -> web.StreamResponse:
        if not self._authorized(request):
            return web.json_response({"error": {"message": "Invalid API key"}}, status=401)
        body = await request.json()
        self.requests.append(body)
        if self.on_request is not None:
            self.on_request(body)
        if self.status is not None:
            return web.json_response(
                {"error": {"message": self.status_message}}, status=self.status
            )
        if body.get("model") not in self.models:
            message = f"The model `{body.get('model')}` does not exist."
            return web.json_response({"object": "error", "message": message}, status=404)
        if body.get("tools") and self.tools_error:
            return web.json_response({"object": "error", "message": self.tools_error}, status=400)
        if not body.get("stream"):
            return web.json_response(_complete_answer(request.path))
        return await self._stream(request, self.scripts.pop(0) if self.scripts else [])

    async def _stream(self, request: web.Request, script: Script) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            await response.prepare(request)
            for chunk in script:
                if chunk == DROP:
                    assert request.transport is not None
                    request.transport.close()
                    return response
                if chunk == SLEEP:
                    await asyncio.sleep(self.sleep)
                    continue
                data = chunk if isinstance(chunk, str) else json.dumps(chunk)
                await response.write(f"data: {data}\n\n".encode())
            await response.write(b"data: [DONE]\n\n")
            await response.write_eof()
        except ConnectionError:
            self.disconnects += 1
        finally:
            self.active -= 1
        return response


def _complete_answer(path: str) -> dict[str, Any]:
    if path.endswith("/chat/completions"):
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": "Hi"},
            "finish_reason": "length",
        }
    else:
        choice = {"index": 0, "text": "Hi", "finish_reason": "length"}
    return {"object": "completion", "choices": [choice]}


def text_chunk(text: str, finish: str | None = None) -> dict[str, Any]:
    """A /v1/completions stream chunk."""
    return {
        "object": "text_completion",
        "choices": [{"index": 0, "text": text, "finish_reason": finish}],
    }


def chat_chunk(finish: str | None = None, **delta: Any) -> dict[str, Any]:
    """A /v1/chat/completions stream chunk with the given delta fields."""
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def tool_call_delta(index: int, *, name: str | None = None, arguments: str = "") -> dict[str, Any]:
    """One piece of a streamed tool call, as vLLM sends it."""
    function: dict[str, Any] = {"arguments": arguments}
    piece: dict[str, Any] = {"index": index, "function": function}
    if name is not None:
        piece |= {"id": f"chatcmpl-tool-{index}", "type": "function"}
        function["name"] = name
    return piece


@contextlib.asynccontextmanager
async def serve_fake_openai(fake: FakeOpenAI | None = None) -> AsyncIterator[FakeOpenAI]:
    """Run the fake on a free port of 127.0.0.1 in the current event loop."""
    fake = fake or FakeOpenAI()
    app = web.Application()
    app.router.add_get("/v1/models", fake.models_handler)
    app.router.add_get("/props", fake.props_handler)
    app.router.add_post("/v1/completions", fake.generate_handler)
    app.router.add_post("/v1/chat/completions", fake.generate_handler)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    fake.url = f"http://127.0.0.1:{port}"
    try:
        yield fake
    finally:
        await runner.cleanup()
