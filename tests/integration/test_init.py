"""Set-up and unload of a model entry in a real Home Assistant."""

from __future__ import annotations

from pathlib import Path

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_MODEL_PATH, DOMAIN


def gguf_file(tmp_path: Path) -> Path:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF" + bytes(60))
    return path


async def test_entry_loads_and_unloads(hass: HomeAssistant, tmp_path: Path) -> None:
    path = gguf_file(tmp_path)
    entry = MockConfigEntry(domain=DOMAIN, data={CONF_MODEL_PATH: str(path)}, unique_id=str(path))
    entry.add_to_hass(hass)

    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.model_path == path

    assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.NOT_LOADED


async def test_entry_with_missing_file_fails_with_reason(
    hass: HomeAssistant, tmp_path: Path
) -> None:
    entry = MockConfigEntry(domain=DOMAIN, data={CONF_MODEL_PATH: str(tmp_path / "gone.gguf")})
    entry.add_to_hass(hass)

    await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()

    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert entry.reason is not None
    assert "gone.gguf" in entry.reason
