"""The Local Agent integration: a tool-calling language model inside Home Assistant."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryError

from .const import CONF_MODEL_PATH, DOMAIN
from .model_file import check_model_file


@dataclass(slots=True)
class LocalAgentData:
    """What a loaded model entry holds while it is set up."""

    model_path: Path


type LocalAgentConfigEntry = ConfigEntry[LocalAgentData]


async def async_setup_entry(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> bool:
    """Set up a model entry."""
    model_path = Path(entry.data[CONF_MODEL_PATH])
    problem = await hass.async_add_executor_job(check_model_file, model_path)
    if problem is not None:
        raise ConfigEntryError(
            translation_domain=DOMAIN,
            translation_key=problem.value,
            translation_placeholders={"path": str(model_path)},
        )
    entry.runtime_data = LocalAgentData(model_path=model_path)
    return True


async def async_unload_entry(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> bool:
    """Unload a model entry."""
    return True
