"""Error paths: a bad model file, stored settings, a download, a server or an unload mid-answer.

Each case checks what the user is told (a translated entry reason, repair issue, form error or
the agent's words), the entry's state, that no traceback is logged but Home Assistant's own
log of a ConfigEntryError, that nothing is lost, and that the next action works.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.server.settings import ServerMode
from custom_components.local_agent.models import safe_load
from custom_components.local_agent.runtime import server as server_entry
from custom_components.local_agent.runtime.issues import model_issue_id
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryError
from homeassistant.helpers import issue_registry as ir
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import serve_fake_openai
from testing.fake_openai import text_chunk

from .conftest import speech
from .server.conftest import async_setup_server_agent


@pytest.fixture(autouse=True)
def fresh_process_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget which files this test process already proved loadable."""
    monkeypatch.setattr(safe_load, "_PROVEN", set())


def stray_tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Tracebacks logged, but Home Assistant's own log of a ConfigEntryError."""
    return [
        f"{record.name}: {record.getMessage()}"
        for record in caplog.records
        if record.exc_info
        and record.exc_info[0] is not None
        and record.exc_info[0] is not ConfigEntryError
        and "turbojpeg" not in record.getMessage()  # the test machine's camera library
    ]


def model_issue(hass: HomeAssistant, entry: MockConfigEntry) -> ir.IssueEntry | None:
    return ir.async_get(hass).async_get_issue(DOMAIN, model_issue_id(entry.entry_id))


# A model server that answers what no client can read ----------------------------------------


@pytest.fixture
async def fake_server(
    socket_enabled: None, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[FakeOpenAI]:
    settings = server_entry.server_settings

    def fast(*args: Any) -> Any:
        return replace(settings(*args), retry_delay=0.005, read_timeout=5)

    monkeypatch.setattr(server_entry, "server_settings", fast)
    async with serve_fake_openai() as server:
        yield server


@pytest.mark.parametrize(
    ("mode", "event"),
    [
        (ServerMode.CHAT, {"choices": [None]}),
        (ServerMode.CHAT, {"choices": ["Hello"]}),
        (ServerMode.CHAT, {"choices": [{"delta": "Hello"}]}),
        (
            ServerMode.CHAT,
            {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": "light"}]}}]},
        ),
        (ServerMode.CHAT, {"choices": [{"delta": {"tool_calls": ["light"]}}]}),
        (ServerMode.COMPLETIONS, {"choices": [{"text": 5, "finish_reason": "stop"}]}),
        (ServerMode.COMPLETIONS, {"choices": "Hello"}),
    ],
    ids=str,
)
async def test_a_stream_event_of_the_wrong_shape_is_the_servers_failure(
    hass: HomeAssistant,
    fake_server: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    mode: ServerMode,
    event: dict[str, Any],
) -> None:
    """Each raised AttributeError or TypeError out of the turn: Home Assistant's 'Unexpected
    error during intent recognition' and a traceback."""
    agent = await async_setup_server_agent(hass, fake_server.url, "fake-model", mode=mode)
    fake_server.will_stream([event], [text_chunk("Hello.", "stop")])

    result = await agent.ask("hello")

    assert speech(result).startswith(f"Sorry, the model server at {fake_server.url} failed")
    assert "bad stream event" in speech(result)
    assert stray_tracebacks(caplog) == []
    assert "failed" not in speech(await agent.ask("hello"))  # the next turn is a turn
