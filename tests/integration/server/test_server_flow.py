"""Adding a model on a server: the real llama-cpp-python server, and each failure."""

from __future__ import annotations

from typing import Any

from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_BACKEND
from custom_components.local_agent.const import CONF_CONNECT_TIMEOUT
from custom_components.local_agent.const import CONF_MAX_CONCURRENT
from custom_components.local_agent.const import CONF_READ_TIMEOUT
from custom_components.local_agent.const import CONF_SERVER_GRAMMAR
from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_MODEL
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.engine.chat_format import (
    BUNDLED_TEMPLATE_PATH as BUNDLED_TEMPLATE,
)
from custom_components.local_agent.engine.server.worker import ServerWorker
from homeassistant import config_entries
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import CONF_API_KEY
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from testing.fake_openai import FakeOpenAI
from testing.llama_server import LlamaServer
from testing.server_process import free_local_port
from tests.integration.conftest import async_add_entry
from tests.integration.conftest import entry_state

from .conftest import API_KEY
from .conftest import async_setup_server_agent
from .conftest import server_entry_data


async def open_server_step(hass: HomeAssistant) -> str:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    assert result["type"] is FlowResultType.MENU
    assert "server" in result["menu_options"]
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "server"}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "server"
    return str(result["flow_id"])


async def submit_server(
    hass: HomeAssistant, url: str, *, mode: str = "completions", **extra: Any
) -> dict[str, Any]:
    flow_id = await open_server_step(hass)
    form = {CONF_SERVER_URL: url, CONF_SERVER_MODE: mode, CONF_MAX_CONCURRENT: 3, **extra}
    return dict(await hass.config_entries.flow.async_configure(flow_id, form))


async def test_real_server_entry_is_created_and_loads(
    hass: HomeAssistant, llama_server: LlamaServer
) -> None:
    result = await submit_server(hass, llama_server.base_url, **{CONF_API_KEY: API_KEY})
    await hass.async_block_till_done()

    # One model served: the model step is skipped.
    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    assert result["title"] == f"{llama_server.model.name} on 127.0.0.1:{llama_server.port}"
    assert result["data"] == {
        CONF_BACKEND: "server",
        CONF_SERVER_URL: f"http://127.0.0.1:{llama_server.port}",
        CONF_SERVER_MODEL: llama_server.model_id,
        CONF_SERVER_MODE: "completions",
        CONF_API_KEY: API_KEY,
    }
    assert result["options"] == {CONF_MAX_CONCURRENT: 3}
    entry = result["result"]
    assert [sub.subentry_type for sub in entry.subentries.values()] == [SUBENTRY_CONVERSATION]
    assert entry.state is ConfigEntryState.LOADED
    worker = entry.runtime_data.worker
    assert isinstance(worker, ServerWorker)
    assert worker.server.max_concurrent == 3
    assert entry.runtime_data.worker.chat_template.source == "bundled"
    assert entry.runtime_data.model_path is None

    again = await submit_server(hass, llama_server.base_url, **{CONF_API_KEY: API_KEY})
    assert again["type"] is FlowResultType.ABORT
    assert again["reason"] == "server_already_configured"

    assert await hass.config_entries.async_unload(entry.entry_id)


async def test_real_server_accepts_tools_in_chat_mode(
    hass: HomeAssistant, llama_server: LlamaServer
) -> None:
    result = await submit_server(
        hass, llama_server.base_url, mode="chat", **{CONF_API_KEY: API_KEY}
    )
    await hass.async_block_till_done()

    assert result["type"] is FlowResultType.CREATE_ENTRY, result
    assert result["data"][CONF_SERVER_MODE] == "chat"
    assert await hass.config_entries.async_unload(result["result"].entry_id)


async def test_wrong_api_key(hass: HomeAssistant, llama_server: LlamaServer) -> None:
    result = await submit_server(hass, llama_server.base_url, **{CONF_API_KEY: "wrong"})

    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "server"
    assert result["errors"] == {"base": "invalid_auth"}


async def test_unreachable_server(hass: HomeAssistant, socket_enabled: None) -> None:
    result = await submit_server(hass, f"http://127.0.0.1:{free_local_port()}")

    assert result["type"] is FlowResultType.FORM
    # Said in the dialog's words (test_browser_walk_thirteenth), not the system's.
    assert result["errors"] == {"base": "cannot_connect_refused"}


async def test_address_that_is_no_http_url_is_refused_before_asking(
    hass: HomeAssistant,
) -> None:
    # Seen in a browser walk: "192.168.1.20:8080" (no scheme) or a typo went to the HTTP
    # client, whose refusal read "The server answered with an error: not%20a%20url/v1/models".
    for url in ("192.168.1.20:8080", "not a url", "ftp://192.168.1.20", "http://"):
        result = await submit_server(hass, url)

        assert result["type"] is FlowResultType.FORM
        assert result["step_id"] == "server"
        assert result["errors"] == {CONF_SERVER_URL: "invalid_url"}, url


async def test_model_not_served(hass: HomeAssistant, fake_server: FakeOpenAI) -> None:
    fake_server.models = ["qwen3.5-0.8b", "botpsy-0.8b"]

    result = await submit_server(hass, fake_server.url)
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "server_model"
    assert result["description_placeholders"]["models"] == "qwen3.5-0.8b, botpsy-0.8b"

    result = dict(
        await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_SERVER_MODEL: "gemma"}
        )
    )
    assert result["errors"] == {"base": "server_model_not_found"}

    result = dict(
        await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_SERVER_MODEL: "botpsy-0.8b"}
        )
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"][CONF_SERVER_MODEL] == "botpsy-0.8b"
    assert fake_server.requests[-1]["prompt"] == "Hello"
    assert fake_server.requests[-1]["max_tokens"] == 1


async def test_tools_not_enabled_on_the_server(
    hass: HomeAssistant, fake_server: FakeOpenAI
) -> None:
    fake_server.tools_error = (
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
    )

    result = await submit_server(hass, fake_server.url, mode="chat")

    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "server_model"
    assert result["errors"] == {"base": "tools_not_supported"}
    assert "--enable-auto-tool-choice" in result["description_placeholders"]["error"]


async def test_server_error_on_the_test_request(
    hass: HomeAssistant, fake_server: FakeOpenAI
) -> None:
    fake_server.status, fake_server.status_message = 500, "out of memory"

    result = await submit_server(hass, fake_server.url)

    assert result["errors"] == {"base": "server_error"}
    assert result["description_placeholders"]["error"] == "HTTP 500: out of memory"


async def test_options_of_a_server_entry(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    agent = await async_setup_server_agent(hass, fake_server.url, "fake-model")

    result = await hass.config_entries.options.async_init(agent.entry.entry_id)
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "server"
    result = await hass.config_entries.options.async_configure(
        result["flow_id"],
        {
            CONF_MAX_CONCURRENT: 4,
            CONF_CONNECT_TIMEOUT: 5,
            CONF_READ_TIMEOUT: 30,
            CONF_SERVER_GRAMMAR: False,
        },
    )
    await hass.async_block_till_done()

    assert result["type"] is FlowResultType.CREATE_ENTRY
    worker = agent.entry.runtime_data.worker
    assert isinstance(worker, ServerWorker)
    assert worker.server.max_concurrent == 4
    assert worker.server.read_timeout == 30
    assert worker.server.grammar is False


async def test_reconfigure_switches_the_mode(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    agent = await async_setup_server_agent(hass, fake_server.url, "fake-model")
    entry = agent.entry

    result = await entry.start_reconfigure_flow(hass)
    assert result["type"] is FlowResultType.MENU
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "server"}
    )
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"],
        {CONF_SERVER_URL: fake_server.url, CONF_SERVER_MODE: "chat", CONF_MAX_CONCURRENT: 1},
    )
    await hass.async_block_till_done()

    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    assert entry.data[CONF_SERVER_MODE] == "chat"
    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.worker.server.max_concurrent == 1


async def test_setup_retries_while_the_server_is_down(
    hass: HomeAssistant, demo_home: None, socket_enabled: None
) -> None:
    agent_url = f"http://127.0.0.1:{free_local_port()}"
    entry = MockConfigEntry(domain=DOMAIN, data=server_entry_data(agent_url, "m"))
    entry.add_to_hass(hass)

    await hass.config_entries.async_setup(entry.entry_id)

    assert entry.state is ConfigEntryState.SETUP_RETRY
    assert entry.reason is not None
    assert entry.reason.startswith(f"The model server at {agent_url} is not reachable.")


async def test_refused_key_starts_reauthentication(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    """Setup fails, Home Assistant asks for the key; a wrong one is refused, the right one loads."""
    fake_server.api_key = "right"
    entry = MockConfigEntry(
        domain=DOMAIN, data=server_entry_data(fake_server.url, "fake-model", api_key="wrong")
    )
    await async_add_entry(hass, entry)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [flow["context"]["source"] for flow in flows] == [config_entries.SOURCE_REAUTH]
    assert flows[0]["step_id"] == "reauth_confirm"
    flow_id = flows[0]["flow_id"]
    result = await hass.config_entries.flow.async_configure(flow_id, {CONF_API_KEY: "still wrong"})
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "invalid_auth"}

    result = await hass.config_entries.flow.async_configure(flow_id, {CONF_API_KEY: "right"})
    await hass.async_block_till_done()

    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reauth_successful"
    assert entry.data[CONF_API_KEY] == "right"
    assert entry_state(entry) is ConfigEntryState.LOADED


async def test_chat_template_shown_by_llama_server_is_used(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    template = BUNDLED_TEMPLATE.read_text()
    fake_server.props = {
        "chat_template": template,
        "build_info": "b7000",
        "default_generation_settings": {"n_ctx": 16384},
    }

    agent = await async_setup_server_agent(hass, fake_server.url, "fake-model")

    data = agent.entry.runtime_data
    assert data.worker.chat_template.source == "server"
    assert data.worker.chat_template.text == template
    assert data.worker.info.n_ctx == 16384
    assert data.worker.info.metadata["server.kind"] == "llama.cpp server"


async def test_chat_template_that_cannot_render_our_prompt_is_replaced(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    fake_server.props = {"chat_template": "{{ raise_exception('no system role') }}"}

    agent = await async_setup_server_agent(hass, fake_server.url, "fake-model")

    assert agent.entry.runtime_data.worker.chat_template.source == "bundled"


async def test_key_refused_in_a_conversation_starts_reauthentication(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    fake_server.api_key = "right"
    agent = await async_setup_server_agent(hass, fake_server.url, "fake-model", api_key="right")
    assert not hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    fake_server.api_key = "changed on the server"

    result = await agent.ask("turn on the bed light")
    await hass.async_block_till_done()

    assert result.response.speech["plain"]["speech"] == (
        f"The model server at {fake_server.url} refused the API key. Enter the right key where "
        "Home Assistant asks for it (Settings, Devices & services)."
    )
    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [flow["context"]["source"] for flow in flows] == [config_entries.SOURCE_REAUTH]
    assert flows[0]["context"]["entry_id"] == agent.entry.entry_id


async def test_chat_template_that_drops_the_tools_is_replaced(
    hass: HomeAssistant, demo_home: None, fake_server: FakeOpenAI
) -> None:
    """llama-server shows a generic ChatML template for a model file without one."""
    fake_server.props = {
        "chat_template": (
            "{%- for message in messages -%}{{- '<|im_start|>' + message.role + '\\n' + "
            "message.content + '<|im_end|>\\n' -}}{%- endfor -%}"
            "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
        ),
        "build_info": "b7000",
    }

    agent = await async_setup_server_agent(hass, fake_server.url, "fake-model")

    assert agent.entry.runtime_data.worker.chat_template.source == "bundled"
