"""Set-up and unload of a model entry in a real Home Assistant, with a real GGUF model."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_BACKEND
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_SERVER_MODEL
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.runtime.local import local_engines
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .conftest import async_add_entry
from .conftest import async_setup_agent
from .conftest import async_setup_model_entry
from .conftest import entry_state


async def test_entry_loads_model_creates_agent_and_unload_frees_it(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    agent = await async_setup_agent(hass, qwen35_model_path)

    assert agent.entry.state is ConfigEntryState.LOADED
    assert agent.entry.runtime_data.worker.info.architecture == "qwen35"
    assert agent.entry.runtime_data.worker.chat_template.source == "gguf"
    assert hass.states.get(agent.entity_id) is not None
    assert er.async_get(hass).async_get(agent.entity_id) is not None
    assert local_engines(hass).registry.loaded == 1

    assert await hass.config_entries.async_unload(agent.entry.entry_id)
    await hass.async_block_till_done()

    assert entry_state(agent.entry) is ConfigEntryState.NOT_LOADED
    assert local_engines(hass).registry.loaded == 0


@pytest.mark.parametrize(
    ("name", "content", "reason", "entry_state_after"),
    [
        # Perhaps on a disk not mounted yet: Home Assistant tries again.
        ("gone.gguf", None, "gone.gguf", ConfigEntryState.SETUP_RETRY),
        ("damaged.gguf", b"GGUF" + bytes(60), "could not be loaded", ConfigEntryState.SETUP_ERROR),
    ],
    ids=["missing file", "damaged model"],
)
async def test_entry_whose_model_cannot_load_fails_with_reason(
    hass: HomeAssistant,
    tmp_path: Path,
    name: str,
    content: bytes | None,
    reason: str,
    entry_state_after: ConfigEntryState,
) -> None:
    model_path = tmp_path / name
    if content is not None:
        model_path.write_bytes(content)

    entry = await async_setup_model_entry(hass, model_path)

    assert entry.state is entry_state_after
    assert entry.reason is not None
    assert reason in entry.reason


async def test_entries_of_the_first_format_get_their_backend_named(
    hass: HomeAssistant, qwen35_model_path: Path, socket_enabled: None
) -> None:
    """Minor version 1 told a server entry by its address; version 1.2 names the backend."""
    model = MockConfigEntry(domain=DOMAIN, data={CONF_MODEL_PATH: str(qwen35_model_path)})
    server = MockConfigEntry(
        domain=DOMAIN,
        data={CONF_SERVER_URL: "http://127.0.0.1:9/v1", CONF_SERVER_MODEL: "m"},
    )
    for entry in (model, server):
        entry.add_to_hass(hass)
        assert entry.minor_version == 1
        await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done()

    assert model.state is ConfigEntryState.LOADED
    assert model.data == {CONF_MODEL_PATH: str(qwen35_model_path), CONF_BACKEND: "llama_cpp"}
    assert model.minor_version == 3
    # Nothing listens there: the entry is retried later, but its data is migrated already.
    assert server.state is ConfigEntryState.SETUP_RETRY
    assert server.data[CONF_BACKEND] == "server"
    assert server.minor_version == 3
    assert await hass.config_entries.async_unload(model.entry_id)


async def test_an_entry_of_a_later_version_is_left_alone(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    entry = MockConfigEntry(
        domain=DOMAIN, version=2, data={CONF_MODEL_PATH: str(qwen35_model_path)}
    )
    await async_add_entry(hass, entry)

    assert entry.state is ConfigEntryState.MIGRATION_ERROR
    assert entry.data == {CONF_MODEL_PATH: str(qwen35_model_path)}
