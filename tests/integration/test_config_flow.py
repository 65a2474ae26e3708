"""The config flow that creates a model entry."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.local_agent.const import CONF_BACKEND
from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_FLASH_ATTENTION
from custom_components.local_agent.const import CONF_KEY_CACHE
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_THINKING
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.local.worker import ModelWorker
from custom_components.local_agent.flows import progress
from custom_components.local_agent.models import safe_load
from custom_components.local_agent.models.safe_load import ProbeOutcome
from custom_components.local_agent.models.safe_load import ProbeResult
from custom_components.local_agent.runtime.local import LOCAL_ENGINES
from custom_components.local_agent.runtime.local import LocalEngines
from custom_components.local_agent.runtime.local import local_engines
from custom_components.local_agent.turn.defaults import agent_data
from homeassistant import config_entries
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.const import CONF_NAME
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import device_registry as dr
from homeassistant.setup import async_setup_component

from .conftest import Agent
from .conftest import async_setup_agent
from .flow_helpers import agent_form
from .flow_helpers import async_add_subentry
from .flow_helpers import async_through_progress
from .scripted_model import ScriptedWorker

# What the qwen35 test model's GGUF header calls it: its name, then its file type.
TEST_MODEL_TITLE = "Local Agent tiny Qwen3.5 test model (random weights) F32"


async def start_flow(hass: HomeAssistant) -> str:
    """Open the add-model flow and choose "a file on this machine" in its menu."""
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    assert result["type"] is FlowResultType.MENU
    assert result["menu_options"] == ["catalog", "hub", "local_file", "server"]
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "local_file"}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "local_file"
    return result["flow_id"]


async def test_local_file_creates_entry_with_an_agent(
    hass: HomeAssistant, qwen35_model_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A file another test proved loadable in this process would skip the check.
    monkeypatch.setattr(safe_load, "_PROVEN", set())
    # Every task shows its step, however fast this machine runs it.
    monkeypatch.setattr(progress, "PROGRESS_GRACE", 0.0)
    flow_id = await start_flow(hass)
    steps: list[str] = []
    with patch.object(ModelWorker, "load", wraps=ModelWorker.load) as load:
        result = await hass.config_entries.flow.async_configure(
            flow_id, {CONF_MODEL_PATH: str(qwen35_model_path)}
        )
        result = await async_through_progress(hass, result, steps)

    # The dialog says what takes the time: the separate-process check, then the load.
    assert steps == ["check_model", "load_model"]
    assert result["type"] is FlowResultType.CREATE_ENTRY
    # Named after the model in the file (its GGUF name and quantization), not the file.
    assert result["title"] == TEST_MODEL_TITLE
    assert result["data"] == {
        CONF_BACKEND: "llama_cpp",
        CONF_MODEL_PATH: str(qwen35_model_path.resolve()),  # noqa: ASYNC240
    }
    entry = result["result"]
    assert (entry.version, entry.minor_version) == (1, 3)
    assert [sub.subentry_type for sub in entry.subentries.values()] == ["conversation"]
    assert [sub.title for sub in entry.subentries.values()] == [f"Local Agent ({TEST_MODEL_TITLE})"]
    devices = dr.async_entries_for_config_entry(dr.async_get(hass), entry.entry_id)
    assert sorted(str(device.name) for device in devices) == [
        f"Local Agent ({TEST_MODEL_TITLE})",
        TEST_MODEL_TITLE,
    ]
    assert entry.state is ConfigEntryState.LOADED
    # The entry took over the model the flow loaded: loaded once, still held by the entry.
    assert load.call_count == 1
    assert local_engines(hass).registry.loaded == 1


async def test_file_that_fails_the_load_check_is_not_added(
    hass: HomeAssistant, tmp_path: Path
) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + bytes(60))
    flow_id = await start_flow(hass)
    failed = ProbeResult(ProbeOutcome.LOAD_FAILED, "exit status 3", "llama_load: bad tensor")

    async def check(*_args: object) -> ProbeResult:
        return failed

    hass.data[LOCAL_ENGINES] = LocalEngines(check=check)
    result = await hass.config_entries.flow.async_configure(flow_id, {CONF_MODEL_PATH: str(model)})
    result = await async_through_progress(hass, result)

    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "local_file"
    assert result["errors"] == {"base": "model_load_failed"}
    placeholders = result["description_placeholders"]
    assert placeholders is not None
    assert placeholders["error"] == "llama_load: bad tensor"
    assert not hass.config_entries.async_entries(DOMAIN)


async def test_a_file_set_up_already_keeps_the_form_to_correct_the_path(
    hass: HomeAssistant, tmp_path: Path, qwen35_model_path: Path
) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + bytes(60))
    MockConfigEntry(
        domain=DOMAIN, unique_id=str(model), data={CONF_MODEL_PATH: str(model)}
    ).add_to_hass(hass)
    flow_id = await start_flow(hass)
    result = await hass.config_entries.flow.async_configure(flow_id, {CONF_MODEL_PATH: str(model)})
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "local_file"
    assert result["errors"] == {"base": "already_configured"}

    # The user corrects the path in the same dialog.
    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_MODEL_PATH: str(qwen35_model_path)}
    )
    result = await async_through_progress(hass, result)
    assert result["type"] is FlowResultType.CREATE_ENTRY


async def test_a_truncated_file_shows_llama_cpps_own_reason(
    hass: HomeAssistant, truncated_model: Path
) -> None:
    flow_id = await start_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_MODEL_PATH: str(truncated_model)}
    )
    result = await async_through_progress(hass, result)

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "model_load_failed"}
    placeholders = result["description_placeholders"]
    assert placeholders is not None
    error = placeholders["error"]
    assert error.endswith("data is not within the file bounds, model is corrupted or incomplete")
    assert not error.startswith("llama.cpp could not load")


@pytest.mark.parametrize(
    ("make_path", "error"),
    [
        (lambda tmp: tmp / "missing.gguf", "model_not_found"),
        (lambda tmp: tmp, "model_not_a_file"),
        (
            lambda tmp: (tmp / "notes.txt", (tmp / "notes.txt").write_text("hello"))[0],
            "model_not_gguf",
        ),
    ],
)
async def test_bad_paths_show_error_and_keep_form(
    hass: HomeAssistant, tmp_path: Path, make_path: Callable[[Path], Path], error: str
) -> None:
    path = make_path(tmp_path)
    flow_id = await start_flow(hass)

    result = await hass.config_entries.flow.async_configure(flow_id, {CONF_MODEL_PATH: str(path)})

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_MODEL_PATH: error}


async def test_agent_subentry_can_be_added_and_reconfigured(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    agent = await async_setup_agent(hass, qwen35_model_path)
    entry = agent.entry

    result = await async_add_subentry(hass, entry.entry_id, "conversation")
    assert result["type"] is FlowResultType.FORM
    form = {**agent_data(), CONF_NAME: "Kitchen helper", CONF_THINKING_BUDGET: 64}
    form.pop(CONF_LLM_HASS_API)
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], agent_form(hass, form)
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert hass.states.get("conversation.kitchen_helper") is not None
    added = next(sub for sub in entry.subentries.values() if sub.title == "Kitchen helper")
    assert added.data[CONF_THINKING_BUDGET] == 64

    result = await entry.start_subentry_reconfigure_flow(hass, added.subentry_id)
    assert result["type"] is FlowResultType.FORM
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], agent_form(hass, {**form, CONF_NAME: "Kitchen", CONF_THINKING: False})
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    await hass.async_block_till_done()
    assert entry.subentries[added.subentry_id].title == "Kitchen"
    assert entry.subentries[added.subentry_id].data[CONF_THINKING] is False


async def test_engine_options_reload_the_model(
    hass: HomeAssistant, qwen35_model_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = await async_setup_agent(hass, qwen35_model_path)
    # However fast the tiny model reloads here, the dialog shows it.
    monkeypatch.setattr(progress, "PROGRESS_GRACE", 0.0)
    progress_shown = reloads_wait_for(hass, monkeypatch)

    result = await hass.config_entries.options.async_init(agent.entry.entry_id)
    # The number fields give floats; the options keep whole numbers.
    result = await hass.config_entries.options.async_configure(
        result["flow_id"],
        {
            CONF_CONTEXT_SIZE: 2048.0,
            CONF_THREADS: 1.0,
            CONF_FLASH_ATTENTION: "off",
            CONF_KEY_CACHE: "f16",
        },
    )
    # The dialog shows the reload while it runs.
    assert result["type"] is FlowResultType.SHOW_PROGRESS
    assert result["progress_action"] == "reload"
    progress_shown.set()
    result = await async_through_progress(hass, result, manager=hass.config_entries.options)

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert agent.entry.state is ConfigEntryState.LOADED
    assert agent.entry.options == {
        CONF_CONTEXT_SIZE: 2048,
        CONF_THREADS: 1,
        CONF_FLASH_ATTENTION: "off",
        CONF_KEY_CACHE: "f16",
    }
    assert all(type(value) is not float for value in agent.entry.options.values())
    settings = agent.entry.runtime_data.worker.settings
    assert (settings.n_ctx, settings.n_threads, settings.flash_attention) == (2048, 1, False)
    assert settings.key_cache == "f16"


async def test_engine_options_refuse_a_context_past_what_the_model_was_trained_on(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    """Before: 65,536 tokens on a model trained on 32,768 were saved and loaded without a word
    (llama.cpp warns in the log alone) and its answers fell apart. Now the field says the
    model's own limit, read from its file, and nothing is saved; the limit itself is taken."""
    agent = await async_setup_agent(hass, qwen35_model_path)
    before = dict(agent.entry.options)
    options = {CONF_THREADS: 1.0, CONF_FLASH_ATTENTION: "auto", CONF_KEY_CACHE: "auto"}
    result = await hass.config_entries.options.async_init(agent.entry.entry_id)

    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {CONF_CONTEXT_SIZE: 65536.0, **options}
    )

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_CONTEXT_SIZE: "context_over_trained"}
    assert (result["description_placeholders"] or {})["trained_context"] == "32768"
    assert agent.entry.options == before

    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {CONF_CONTEXT_SIZE: 32768.0, **options}
    )
    assert result["type"] is not FlowResultType.FORM
    await async_through_progress(hass, result, manager=hass.config_entries.options)
    assert agent.entry.options[CONF_CONTEXT_SIZE] == 32768


async def test_engine_options_take_any_context_when_the_file_does_not_say_its_limit(
    hass: HomeAssistant, scripted_agent: Agent
) -> None:
    """Guard (passed at once): a file whose header names no trained context is not refused
    on a guess; the model's load says what it cannot do, as a server's limit is its own."""
    result = await hass.config_entries.options.async_init(scripted_agent.entry.entry_id)

    result = await hass.config_entries.options.async_configure(
        result["flow_id"],
        {CONF_CONTEXT_SIZE: 65536.0, CONF_THREADS: 1.0, CONF_FLASH_ATTENTION: "auto"},
    )

    assert result["type"] is not FlowResultType.FORM
    await async_through_progress(hass, result, manager=hass.config_entries.options)
    assert scripted_agent.entry.options[CONF_CONTEXT_SIZE] == 65536


def reloads_wait_for(hass: HomeAssistant, monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Hold every entry reload until the returned event is set.

    A test that needs the dialog's progress step sets it once it has the step: the scripted
    model reloads so fast that, on some machines, the reload ended within the step's grace.
    """
    release = asyncio.Event()
    reload_now = hass.config_entries.async_reload

    async def reload_when_released(entry_id: str) -> bool:
        await release.wait()
        return await reload_now(entry_id)

    monkeypatch.setattr(hass.config_entries, "async_reload", reload_when_released)
    return release


async def test_the_dialog_hears_the_end_of_a_reload_that_ended_before_it_listened(
    hass: HomeAssistant,
    scripted_agent: Agent,
    hass_client: ClientSessionGenerator,
    hass_ws_client: WebSocketGenerator,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As the frontend does: it listens for a progress step's end only once it has the step."""
    monkeypatch.setattr(progress, "PROGRESS_GRACE", 0.0)
    monkeypatch.setattr(progress, "PROGRESS_SHOWN_AT_LEAST", 2.0)
    assert await async_setup_component(hass, "config", {})
    websocket = await hass_ws_client(hass)  # sets up the websocket API before the server starts
    client = await hass_client()
    entry = scripted_agent.entry
    reloaded = asyncio.Event()
    entry.async_on_state_change(
        lambda: reloaded.set() if entry.state is ConfigEntryState.LOADED else None
    )
    progress_shown = reloads_wait_for(hass, monkeypatch)

    response = await client.post(
        "/api/config/config_entries/options/flow", json={"handler": entry.entry_id}
    )
    flow_id = (await response.json())["flow_id"]
    options = {CONF_CONTEXT_SIZE: 0, CONF_THREADS: 1, CONF_FLASH_ATTENTION: "auto"}
    response = await client.post(f"/api/config/config_entries/options/flow/{flow_id}", json=options)
    assert (await response.json())["type"] == "progress"
    progress_shown.set()
    # The reload is over before the dialog listens (a quick reload, a slow browser).
    async with asyncio.timeout(10):
        await reloaded.wait()
    await asyncio.sleep(0.3)
    await websocket.send_json_auto_id(
        {"type": "subscribe_events", "event_type": "data_entry_flow_progressed"}
    )
    assert (await websocket.receive_json())["success"]

    async with asyncio.timeout(5):
        event = await websocket.receive_json()
    assert event["event"]["data"]["flow_id"] == flow_id
    response = await client.get(f"/api/config/config_entries/options/flow/{flow_id}")
    assert (await response.json())["type"] == "create_entry"
    assert entry.options[CONF_THREADS] == 1


async def test_a_check_that_is_over_at_once_shows_no_progress_step(
    hass: HomeAssistant, scripted_worker: ScriptedWorker
) -> None:
    # The frontend listens for progress only once it shows a progress step: a task over
    # before then would leave the dialog spinning (seen in Chromium with a remembered check).
    flow_id = await start_flow(hass)

    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_MODEL_PATH: str(scripted_worker.info.path)}
    )

    assert result["type"] is FlowResultType.CREATE_ENTRY
