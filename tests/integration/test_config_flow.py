"""The config flow that creates a model entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from custom_components.local_agent.const import CONF_MODEL_PATH, DOMAIN
from homeassistant import config_entries
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType


async def start_flow(hass: HomeAssistant) -> str:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"
    return result["flow_id"]


async def test_local_file_creates_entry(hass: HomeAssistant, tmp_path: Path) -> None:
    model = tmp_path / "botpsy-0.8b-q8_0.gguf"
    model.write_bytes(b"GGUF" + bytes(60))
    flow_id = await start_flow(hass)

    result = await hass.config_entries.flow.async_configure(flow_id, {CONF_MODEL_PATH: str(model)})

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "botpsy-0.8b-q8_0.gguf"
    assert result["data"] == {CONF_MODEL_PATH: str(model.resolve())}


async def test_same_file_twice_aborts(hass: HomeAssistant, tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + bytes(60))
    for _ in range(2):
        flow_id = await start_flow(hass)
        result = await hass.config_entries.flow.async_configure(
            flow_id, {CONF_MODEL_PATH: str(model)}
        )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"


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
    hass: HomeAssistant, tmp_path: Path, make_path: object, error: str
) -> None:
    path = make_path(tmp_path)  # type: ignore[operator]
    flow_id = await start_flow(hass)

    result = await hass.config_entries.flow.async_configure(flow_id, {CONF_MODEL_PATH: str(path)})

    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_MODEL_PATH: error}
