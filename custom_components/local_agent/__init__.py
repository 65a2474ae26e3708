"""The Local Agent integration: a tool-calling language model inside Home Assistant."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryError, ConfigEntryNotReady
from homeassistant.helpers import device_registry as dr

from . import entry_updates, issues, llama_package, safe_load, server_entry
from .backend import Backend, entry_backend
from .const import (
    CONF_BACKEND,
    CONF_CONTEXT_SIZE,
    CONF_FLASH_ATTENTION,
    CONF_MODEL_PATH,
    CONF_THREADS,
    DEFAULT_CONTEXT_SIZE,
    DOMAIN,
)
from .engine.errors import EngineError, EngineOutOfMemoryError, UnsupportedArchitectureError
from .engine.interface import GenerationEngine
from .engine.settings import EngineSettings
from .local_engines import local_engines
from .memory import release_freed_memory
from .model_file import ModelFileProblem, check_model_file
from .stats import AgentStats

PLATFORMS = (Platform.AI_TASK, Platform.CONVERSATION)


@dataclass(slots=True)
class LocalAgentData:
    """What a loaded model entry holds while it is set up."""

    model_path: Path | None  # None for a model on a server
    worker: GenerationEngine
    # Gives the model back when the entry unloads (each backend its own way).
    release: Callable[[], Awaitable[None]]
    # The model's device in the device registry; the agents' devices point to it.
    device_id: str | None = None
    # Each agent's figures, by subentry id (kept across the agent's own reloads).
    agent_stats: dict[str, AgentStats] = field(default_factory=dict)


type LocalAgentConfigEntry = ConfigEntry[LocalAgentData]


def engine_settings(entry: ConfigEntry | Mapping[str, Any]) -> EngineSettings:
    """Engine settings from the entry's options (or from options not yet saved in an entry)."""
    options = entry.options if isinstance(entry, ConfigEntry) else entry
    threads = int(options.get(CONF_THREADS, 0))
    flash = options.get(CONF_FLASH_ATTENTION)
    return EngineSettings(
        n_ctx=int(options.get(CONF_CONTEXT_SIZE, DEFAULT_CONTEXT_SIZE)),
        n_threads=threads or None,
        flash_attention=None if flash in (None, "auto") else flash == "on",
    )


async def async_migrate_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Bring an entry made by an earlier version up to date (a later version's: refused)."""
    if entry.version > 1:
        return False
    if entry.minor_version < 2:
        hass.config_entries.async_update_entry(
            entry, data={**entry.data, CONF_BACKEND: entry_backend(entry).value}, minor_version=2
        )
    return True


async def async_setup_entry(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> bool:
    """Set up the entry's model where its backend runs it, then its agents."""
    setup = {
        Backend.LLAMA_CPP: _async_setup_llama_entry,
        Backend.SERVER: _async_setup_server_entry,
    }[entry_backend(entry)]
    return await setup(hass, entry)


async def _async_setup_llama_entry(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> bool:
    """Load the entry's model in this process (shared with other entries of the same file).

    Order: the file is there, llama_cpp is installed, the model loads in a child process (first
    time only), then it loads here. Each failure is a repair issue plus an entry error; only
    transient ones (memory, a slow probe) are ConfigEntryNotReady, retried by Home Assistant.
    """
    model_path = Path(entry.data[CONF_MODEL_PATH])
    problem = await hass.async_add_executor_job(check_model_file, model_path)
    if problem is not None:
        issue = "model_missing" if problem is ModelFileProblem.NOT_FOUND else "model_unusable"
        issues.async_raise_model_problem(hass, entry, issue, problem.value)
        raise ConfigEntryError(
            translation_domain=DOMAIN,
            translation_key=problem.value,
            translation_placeholders={"path": str(model_path)},
        )
    version = await hass.async_add_executor_job(llama_package.llama_cpp_version)
    if version is None:
        issues.async_raise_runtime_missing(hass, "llama_cpp is not installed")
        raise ConfigEntryError(
            translation_domain=DOMAIN,
            translation_key="runtime_missing",
            translation_placeholders={"reason": "llama_cpp is not installed"},
        )
    issues.async_clear_runtime_issue(hass)
    settings = engine_settings(entry)
    engines = local_engines(hass)
    result = await engines.check(hass, model_path, version, settings)
    safe_load.async_raise_unless_loadable(hass, entry, result)

    registry = engines.registry
    try:
        worker = await registry.acquire(model_path, settings)
    except EngineOutOfMemoryError as err:
        raise ConfigEntryNotReady(
            translation_domain=DOMAIN,
            translation_key="model_out_of_memory",
            translation_placeholders={"error": str(err)},
        ) from err
    except EngineError as err:
        if isinstance(err, UnsupportedArchitectureError):
            issues.async_raise_model_problem(hass, entry, "model_unusable", str(err))
        raise ConfigEntryError(
            translation_domain=DOMAIN,
            translation_key="model_load_failed",
            translation_placeholders={"error": str(err)},
        ) from err
    issues.async_clear_entry_issues(hass, entry.entry_id)
    device_id = _async_register_model_device(hass, entry, worker, f"llama-cpp-python {version}")

    async def release() -> None:
        await registry.release(worker)
        await hass.async_add_executor_job(release_freed_memory)

    entry.runtime_data = LocalAgentData(
        model_path=model_path,
        worker=worker,
        release=release,
        device_id=device_id,
    )
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    entry_updates.async_listen(hass, entry, device_id)
    return True


async def _async_setup_server_entry(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> bool:
    """Connect to the entry's model server; its agents work as with a local model."""
    worker = await server_entry.async_connect(hass, entry)
    software = f"{worker.info.metadata['server.kind']} ({worker.server.mode} mode)"
    device_id = _async_register_model_device(hass, entry, worker, software)
    entry.runtime_data = LocalAgentData(
        model_path=None,
        worker=worker,
        release=worker.close,
        device_id=device_id,
    )
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    entry_updates.async_listen(hass, entry, device_id)
    return True


@callback
def _async_register_model_device(
    hass: HomeAssistant, entry: ConfigEntry, worker: GenerationEngine, software: str
) -> str:
    """Register one device per model entry; the agents' devices point to it (via_device_id)."""
    info = worker.info
    device = dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id,
        identifiers={(DOMAIN, entry.entry_id)},
        name=entry.title,
        manufacturer="Local Agent",
        model=info.name or info.path.name,
        model_id=info.architecture,
        sw_version=software,
        entry_type=dr.DeviceEntryType.SERVICE,
    )
    return device.id


async def async_unload_entry(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> bool:
    """Unload the agents, then give the model back (freed when no other entry uses it)."""
    if not await hass.config_entries.async_unload_platforms(entry, PLATFORMS):
        return False
    await entry.runtime_data.release()
    return True


async def async_remove_entry(hass: HomeAssistant, entry: ConfigEntry) -> None:
    """Forget the entry's repair issues (a downloaded model file stays on disk)."""
    issues.async_clear_entry_issues(hass, entry.entry_id)
