"""Where model files become engines in this process: the load check, then one load per file.

Both steps are held in one object in hass.data: Home Assistant's (the separate-process load
check of safe_load.py, then ModelWorker.load through the shared registry), or the one tests and
scripts put there to run a stand-in engine instead of a model file.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from homeassistant.core import HomeAssistant
from homeassistant.util.hass_dict import HassKey

from . import safe_load
from .const import DOMAIN
from .engine.local.worker import ModelRegistry
from .engine.settings import EngineSettings
from .safe_load import ProbeResult

type LoadCheck = Callable[[HomeAssistant, Path, str, EngineSettings], Awaitable[ProbeResult]]


@dataclass(slots=True)
class LocalEngines:
    """The load check a model file must pass, and the registry that loads and shares models."""

    registry: ModelRegistry = field(default_factory=ModelRegistry)
    check: LoadCheck = safe_load.async_check_model


LOCAL_ENGINES: HassKey[LocalEngines] = HassKey(f"{DOMAIN}_local_engines")


def local_engines(hass: HomeAssistant) -> LocalEngines:
    """Return this Home Assistant's local engines (created on first use)."""
    return hass.data.setdefault(LOCAL_ENGINES, LocalEngines())
