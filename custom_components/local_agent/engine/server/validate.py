"""Check a server before an entry uses it: reachable, key accepted, model served, it answers.

For chat mode also a request with a tool: vLLM without `--enable-auto-tool-choice
--tool-call-parser ...` and llama-server without `--jinja` refuse it.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import aiohttp

from .errors import ServerResponseError
from .http import ServerClient
from .settings import ServerMode
from .settings import ServerSettings
from .worker import ServerFacts
from .worker import async_read_facts
from .worker import async_read_serving_facts

PROBE_TOOL: Final[dict[str, Any]] = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Return the current time.",
        "parameters": {"type": "object", "properties": {}},
    },
}


async def async_list_models(
    session: aiohttp.ClientSession, settings: ServerSettings
) -> ServerFacts:
    """Reach the server and read its models; raise a ServerError if it cannot be used."""
    return await async_read_facts(ServerClient(session, settings))


async def async_validate(session: aiohttp.ClientSession, settings: ServerSettings) -> ServerFacts:
    """Run every check; raise the ServerError of the first that fails."""
    client = ServerClient(session, settings)
    facts = await async_read_serving_facts(client)
    if settings.mode is ServerMode.CHAT:
        body: dict[str, Any] = {
            "model": settings.model,
            "messages": [{"role": "user", "content": "What time is it?"}],
            "tools": [PROBE_TOOL],
            "max_tokens": 1,
            "temperature": 0,
        }
        answer = await client.post_json("/v1/chat/completions", body)
    else:
        body = {"model": settings.model, "prompt": "Hello", "max_tokens": 1, "temperature": 0}
        answer = await client.post_json("/v1/completions", body)
    if not isinstance(answer, dict) or not isinstance(answer.get("choices"), list):
        raise ServerResponseError(client.url, "the test request returned no choices")
    return facts
