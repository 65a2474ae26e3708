"""The Local Agent integration: a tool-calling language model inside Home Assistant."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryError, ConfigEntryNotReady
from homeassistant.util.hass_dict import HassKey

from .const import (
    CONF_CONTEXT_SIZE,
    CONF_FLASH_ATTENTION,
    CONF_MODEL_PATH,
    CONF_THREADS,
    DEFAULT_CONTEXT_SIZE,
    DOMAIN,
)
from .engine.chat_format import ChatTemplate, ChatTemplateError, load_template
from .engine.errors import EngineError, EngineOutOfMemoryError
from .engine.settings import EngineSettings
from .engine.worker import ModelRegistry, ModelWorker
from .model_file import check_model_file

PLATFORMS = (Platform.CONVERSATION,)
MODEL_REGISTRY: HassKey[ModelRegistry] = HassKey(f"{DOMAIN}_models")


@dataclass(slots=True)
class LocalAgentData:
    """What a loaded model entry holds while it is set up."""

    model_path: Path
    worker: ModelWorker
    chat_template: ChatTemplate


type LocalAgentConfigEntry = ConfigEntry[LocalAgentData]


def engine_settings(entry: ConfigEntry) -> EngineSettings:
    """Engine settings from the entry's options."""
    options = entry.options
    threads = int(options.get(CONF_THREADS, 0))
    flash = options.get(CONF_FLASH_ATTENTION)
    return EngineSettings(
        n_ctx=int(options.get(CONF_CONTEXT_SIZE, DEFAULT_CONTEXT_SIZE)),
        n_threads=threads or None,
        flash_attention=None if flash in (None, "auto") else flash == "on",
    )


async def async_setup_entry(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> bool:
    """Load the entry's model (shared with other entries of the same file) and its agents."""
    model_path = Path(entry.data[CONF_MODEL_PATH])
    problem = await hass.async_add_executor_job(check_model_file, model_path)
    if problem is not None:
        raise ConfigEntryError(
            translation_domain=DOMAIN,
            translation_key=problem.value,
            translation_placeholders={"path": str(model_path)},
        )
    registry = hass.data.setdefault(MODEL_REGISTRY, ModelRegistry())
    try:
        worker = await registry.acquire(model_path, engine_settings(entry))
    except EngineOutOfMemoryError as err:
        raise ConfigEntryNotReady(
            translation_domain=DOMAIN,
            translation_key="model_out_of_memory",
            translation_placeholders={"error": str(err)},
        ) from err
    except EngineError as err:
        raise ConfigEntryError(
            translation_domain=DOMAIN,
            translation_key="model_load_failed",
            translation_placeholders={"error": str(err)},
        ) from err
    try:
        chat_template = load_template(worker.info.metadata)
    except ChatTemplateError as err:
        await registry.release(worker)
        raise ConfigEntryError(
            translation_domain=DOMAIN,
            translation_key="model_load_failed",
            translation_placeholders={"error": str(err)},
        ) from err
    entry.runtime_data = LocalAgentData(
        model_path=model_path, worker=worker, chat_template=chat_template
    )
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    entry.async_on_unload(entry.add_update_listener(_async_reload))
    return True


async def async_unload_entry(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> bool:
    """Unload the agents, then give the model back (freed when no other entry uses it)."""
    if not await hass.config_entries.async_unload_platforms(entry, PLATFORMS):
        return False
    await hass.data[MODEL_REGISTRY].release(entry.runtime_data.worker)
    return True


async def _async_reload(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> None:
    await hass.config_entries.async_reload(entry.entry_id)
