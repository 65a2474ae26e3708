"""A prompt larger than the server's context is spoken as such, whichever server says it.

llama-server's own error (type `exceed_context_size_error`) is covered against the real server
in test_real_llama_server.py; vLLM and llama-cpp-python's server say it in the message.
"""

from __future__ import annotations

import pytest

from custom_components.local_agent.engine.server.settings import ServerMode
from homeassistant.core import HomeAssistant
from testing.fake_openai import FakeOpenAI

from .conftest import async_setup_server_agent

VLLM = (
    "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens "
    "(4096 in the messages, 1024 in the completion). Please reduce the length of the messages "
    "or completion."
)
LLAMA_CPP_PYTHON = "Requested tokens (6000) exceed context window of 4096"


@pytest.mark.parametrize(
    ("mode", "message", "prompt_tokens"),
    [(ServerMode.CHAT, VLLM, "4096"), (ServerMode.COMPLETIONS, LLAMA_CPP_PYTHON, "6000")],
)
async def test_context_overflow_is_spoken_as_such(
    hass: HomeAssistant,
    demo_home: None,
    fake_server: FakeOpenAI,
    mode: ServerMode,
    message: str,
    prompt_tokens: str,
) -> None:
    agent = await async_setup_server_agent(hass, fake_server.url, "fake-model", mode=mode)
    fake_server.status, fake_server.status_message = 400, message

    result = await agent.ask("turn on the bed light")

    assert result.response.speech["plain"]["speech"] == (
        f"This conversation is too long for the model server at {fake_server.url}: it needs "
        f"{prompt_tokens} tokens but the server gives a conversation 4096. Start a new "
        "conversation, expose fewer entities, or start the server with a larger --ctx-size "
        "(llama-server divides it among its --parallel slots)."
    )
    assert len(fake_server.requests) == 1  # a 400 is not retried


async def test_other_bad_requests_stay_generic_failures(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    agent = await async_setup_server_agent(hass, fake_server.url, "fake-model")
    fake_server.status, fake_server.status_message = 400, "temperature must be positive"

    result = await agent.ask("turn on the bed light")

    assert result.response.speech["plain"]["speech"] == (
        f"Sorry, the model server at {fake_server.url} failed: HTTP 400: "
        "temperature must be positive"
    )
