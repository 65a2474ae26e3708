"""Drive config flows through their progress steps as the frontend does."""

from __future__ import annotations

from collections.abc import Mapping
import json
from pathlib import Path
from typing import Any

from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.flows.subentry_forms import agent_schema
from custom_components.local_agent.flows.subentry_forms import nest
from homeassistant import config_entries
from homeassistant.config_entries import ConfigFlowResult
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowManager
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.data_entry_flow import section

TRANSLATIONS = Path(__file__).resolve().parents[2] / "custom_components/local_agent/translations"


def translation(language: str) -> dict[str, Any]:
    """One language's translation file."""
    loaded: dict[str, Any] = json.loads(
        (TRANSLATIONS / f"{language}.json").read_text(encoding="utf-8")
    )
    return loaded


def agent_form(hass: HomeAssistant, flat: dict[str, Any]) -> dict[str, Any]:
    """Fill the agent form with flat settings: grouped in its sections, as it takes them."""
    return nest(agent_schema(hass), flat)


async def async_add_subentry(hass: HomeAssistant, entry_id: str, subentry_type: str) -> Any:
    """Open, as the user, the flow that adds a subentry of this type to an entry."""
    return await hass.config_entries.subentries.async_init(
        (entry_id, subentry_type), context={"source": config_entries.SOURCE_USER}
    )


def suggested_values(schema: Any) -> dict[str, Any]:
    """The values a form shows, by section (a field outside one stands on its own)."""
    values: dict[str, Any] = {}
    for key, value in schema.schema.items():
        if isinstance(value, section):
            values[str(key)] = suggested_values(value.schema)
        elif key.description and "suggested_value" in key.description:
            values[str(key)] = key.description["suggested_value"]
    return values


async def async_through_progress[R: Mapping[str, Any]](
    hass: HomeAssistant,
    result: R,
    seen: list[str] | None = None,
    manager: FlowManager[Any, Any, Any] | None = None,
) -> R:
    """Wait out every progress step (recording its action) and return the next result.

    `manager`: the flows' manager when they are not config flows (options, say).
    """
    flows: FlowManager[Any, Any, Any] = manager or hass.config_entries.flow
    while result["type"] in (FlowResultType.SHOW_PROGRESS, FlowResultType.SHOW_PROGRESS_DONE):
        if result["type"] is FlowResultType.SHOW_PROGRESS and seen is not None:
            seen.append(result["progress_action"])
        await hass.async_block_till_done(wait_background_tasks=True)
        result = await flows.async_configure(result["flow_id"])
    await hass.async_block_till_done()
    return result


async def async_check_server_address(hass: HomeAssistant, url: str) -> ConfigFlowResult:
    """Add a model on a server as the user does: its form given `url` (completions mode), then
    through the checks' progress steps."""
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "server"}
    )
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_SERVER_URL: url, CONF_SERVER_MODE: "completions"}
    )
    return await async_through_progress(hass, result)


async def async_reconfigure_to_file(
    hass: HomeAssistant, entry: MockConfigEntry, path: Path, seen: list[str] | None = None
) -> ConfigFlowResult:
    """Reconfigure a model entry as the user does: from its menu to the local file form, that
    form given `path`, then through the progress steps (their actions recorded in `seen`)."""
    result = await entry.start_reconfigure_flow(hass)
    assert result["type"] is FlowResultType.MENU
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "local_file"}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "local_file"
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_MODEL_PATH: str(path)}
    )
    return await async_through_progress(hass, result, seen)
