"""Fixtures: llama-cpp-python's real server with the qwen35 test model, set-up server agents."""

from __future__ import annotations

from collections.abc import AsyncIterator
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import replace
from pathlib import Path
from typing import Any
from typing import Protocol

import pytest

from custom_components.local_agent.const import CONF_MAX_CONCURRENT
from custom_components.local_agent.const import CONF_SERVER_GRAMMAR
from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_MODEL
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.engine.server.settings import DEFAULT_READ_TIMEOUT
from custom_components.local_agent.engine.server.settings import ServerMode
from custom_components.local_agent.engine.server.settings import ServerSettings
from custom_components.local_agent.engine.server.worker import ServerWorker
from custom_components.local_agent.runtime import server as server_entry
from homeassistant.const import CONF_API_KEY
from homeassistant.core import HomeAssistant
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import serve_fake_openai
from testing.llama_server import LlamaServer
from testing.llama_server import missing_server_dependencies
from testing.llama_server import start_llama_server
from testing.real_llama_server import SKIP_REASONS
from testing.server_process import ServerProcess
from tests.integration.conftest import Agent
from tests.integration.conftest import async_setup_entry_with_agent

API_KEY = "test-key"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say loudly that the real llama-server tests did not run, and why."""
    for reason in SKIP_REASONS:
        terminalreporter.write_sep("!", "llama-server tests SKIPPED", yellow=True, bold=True)
        terminalreporter.write_line(reason, yellow=True)


@dataclass(frozen=True)
class LlamaServers:
    """The session's server, and a second one a test may kill."""

    main: LlamaServer
    disposable: LlamaServer


@pytest.fixture(scope="session")
def llama_servers(qwen35_model_path: Path) -> Iterator[LlamaServers]:
    """Two `python -m llama_cpp.server` processes with the qwen35 test model, started together."""
    if reason := missing_server_dependencies():
        pytest.skip(reason)
    # One thread each: more than the machine's cores make llama.cpp's spinning threads crawl.
    main = start_llama_server(qwen35_model_path, api_key=API_KEY)
    disposable = start_llama_server(qwen35_model_path)
    try:
        main.wait_ready()
        disposable.wait_ready()
        yield LlamaServers(main, disposable)
    finally:
        for server in (main, disposable):
            server.stop()
            server.log_path.unlink(missing_ok=True)


def alive[S: ServerProcess](server: S) -> S:
    """The server, alive: the test fails with the end of its log where it died."""
    if server.process.poll() is not None:
        pytest.fail(f"{server.PROGRAM} died:\n{server.log_tail()}")
    return server


@pytest.fixture
def llama_server(llama_servers: LlamaServers, socket_enabled: None) -> LlamaServer:
    """The session's llama-cpp-python server (API key API_KEY)."""
    return alive(llama_servers.main)


@pytest.fixture
async def fake_server(socket_enabled: None) -> AsyncIterator[FakeOpenAI]:
    """A scripted OpenAI-compatible server on loopback."""
    async with serve_fake_openai() as fake:
        yield fake


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retry an unreachable server after milliseconds; give up on a silent one sooner."""
    settings = server_entry.server_settings

    def fast(*args: Any) -> ServerSettings:
        chosen = settings(*args)
        read_timeout = 20 if chosen.read_timeout == DEFAULT_READ_TIMEOUT else chosen.read_timeout
        return replace(chosen, retry_delay=0.005, read_timeout=read_timeout)

    monkeypatch.setattr(server_entry, "server_settings", fast)


def server_entry_data(
    url: str, model: str, mode: ServerMode = ServerMode.COMPLETIONS, api_key: str | None = None
) -> dict[str, Any]:
    data: dict[str, Any] = {CONF_SERVER_URL: url, CONF_SERVER_MODEL: model, CONF_SERVER_MODE: mode}
    if api_key:
        data[CONF_API_KEY] = api_key
    return data


async def async_setup_server_agent(
    hass: HomeAssistant,
    url: str,
    model: str,
    *,
    mode: ServerMode = ServerMode.COMPLETIONS,
    api_key: str | None = None,
    max_concurrent: int = 2,
    grammar: bool = True,
    subentry_type: str = SUBENTRY_CONVERSATION,
    **agent_options: Any,
) -> Agent:
    """Create a server entry with one agent subentry (or an AI task: subentry_type) and set it
    up."""
    return await async_setup_entry_with_agent(
        hass,
        agent_options,
        subentry_type=subentry_type,
        title=model,
        data=server_entry_data(url, model, mode, api_key),
        options={CONF_MAX_CONCURRENT: max_concurrent, CONF_SERVER_GRAMMAR: grammar},
        unique_id=f"{url}#{model}",
    )


class ServedModel(Protocol):
    """A running server process and the model it serves (testing/llama_server.py and
    testing/real_llama_server.py)."""

    @property
    def base_url(self) -> str: ...

    @property
    def model_id(self) -> str: ...


async def async_setup_agent_on(hass: HomeAssistant, server: ServedModel, **setup: Any) -> Agent:
    """async_setup_server_agent on a running server, for the model it serves."""
    return await async_setup_server_agent(hass, server.base_url, server.model_id, **setup)


def worker_of(agent: Agent) -> ServerWorker:
    worker = agent.entry.runtime_data.worker
    assert isinstance(worker, ServerWorker)
    return worker
