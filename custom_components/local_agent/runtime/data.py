"""What a model entry holds while it is set up, and the engine settings its options name."""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_FLASH_ATTENTION
from custom_components.local_agent.const import CONF_KEY_CACHE
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DEFAULT_CONTEXT_SIZE
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import LOGGER
from custom_components.local_agent.engine.interface import GenerationEngine
from custom_components.local_agent.engine.settings import EngineSettings
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant

from .stats import AgentStats


@dataclass(frozen=True, slots=True)
class ModelSetup:
    """A model made ready by one backend's set-up (runtime/local.py or runtime/server.py)."""

    model_path: Path | None  # None for a model on a server
    worker: GenerationEngine
    # Gives the model back when the entry unloads (each backend its own way).
    release: Callable[[], Awaitable[None]]
    # What runs it, for the model's device ("llama-cpp-python 0.3.36").
    software: str


@dataclass(slots=True)
class LocalAgentData:
    """What a loaded model entry holds while it is set up."""

    model_path: Path | None  # None for a model on a server
    worker: GenerationEngine
    release: Callable[[], Awaitable[None]]
    # The model's device in the device registry; the agents' devices point to it.
    device_id: str | None = None
    # Each agent's figures, by subentry id (kept across the agent's own reloads).
    agent_stats: dict[str, AgentStats] = field(default_factory=dict)


type LocalAgentConfigEntry = ConfigEntry[LocalAgentData]


def engine_settings(
    entry: ConfigEntry | Mapping[str, Any], *, prefix_store: Path | None = None
) -> EngineSettings:
    """Engine settings from the entry's options (or from options not yet saved in an entry).

    prefix_store: where evaluated prompt prefixes are kept for the next start
    (prefix_store_path), None for none.
    """
    options = entry.options if isinstance(entry, ConfigEntry) else entry
    threads = stored_number(options, CONF_THREADS, 0, minimum=0)
    flash = options.get(CONF_FLASH_ATTENTION)
    return EngineSettings(
        n_ctx=stored_number(options, CONF_CONTEXT_SIZE, DEFAULT_CONTEXT_SIZE, minimum=0),
        n_threads=threads or None,
        flash_attention=None if flash in (None, "auto") else flash == "on",
        key_cache=str(options.get(CONF_KEY_CACHE, "auto")),
        prefix_store=prefix_store,
    )


def stored_number[N: (int, float)](
    options: Mapping[str, Any], key: str, default: N, *, minimum: N
) -> N:
    """Return a number option as stored, or its default where the stored value is unusable.

    The option flows store numbers in range; a value edited by hand in .storage, or left by an
    older version, may be text, None or out of range: the entry then loads with the default
    (and the log says which option was set aside) instead of failing with a traceback.
    """
    value = options.get(key, default)
    kind = type(default)
    try:
        number = kind(value) if not isinstance(value, bool) else None
    except TypeError, ValueError, OverflowError:
        number = None
    if number is None or not number >= minimum:  # also NaN
        LOGGER.warning("The option %s is %r, which is not usable: %s is used", key, value, default)
        return default
    return number


def prefix_store_path(hass: HomeAssistant) -> Path:
    """Return the folder of saved prefixes: <config>/local_agent/prefixes, by the models."""
    return Path(hass.config.path(DOMAIN, "prefixes"))
