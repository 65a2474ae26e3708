"""A model entry whose model runs in this process: the checks, the load check, then one load.

Where model files become engines is held in one object in hass.data (LocalEngines): Home
Assistant's (the separate-process load check of models/safe_load.py, then ModelWorker.load
through the shared registry), or the one tests and scripts put there to run a stand-in engine.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.chat_format import ChatTemplateError
from custom_components.local_agent.engine.errors import EngineError
from custom_components.local_agent.engine.errors import EngineOutOfMemoryError
from custom_components.local_agent.engine.errors import UnsupportedArchitectureError
from custom_components.local_agent.engine.local.worker import ModelRegistry
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.models import runtime_package
from custom_components.local_agent.models import safe_load
from custom_components.local_agent.models.file_checks import ModelFileProblem
from custom_components.local_agent.models.file_checks import check_model_file
from custom_components.local_agent.models.safe_load import ProbeResult
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HassJob
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryError
from homeassistant.exceptions import ConfigEntryNotReady
from homeassistant.util.hass_dict import HassKey

from . import issues
from .data import ModelSetup
from .data import engine_settings
from .data import prefix_store_path
from .memory import release_freed_memory

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


async def async_setup_local(hass: HomeAssistant, entry: ConfigEntry) -> ModelSetup:
    """Load the entry's model in this process (shared with other entries of the same file).

    Order: the file is there, llama_cpp is installed, the model loads in a child process (first
    time only), then it loads here. Each failure is a repair issue plus an entry error; only
    transient ones (memory, a slow probe, a file not there yet) are ConfigEntryNotReady, retried
    by Home Assistant.
    """
    stored = entry.data.get(CONF_MODEL_PATH)
    if not isinstance(stored, str) or not stored.strip():
        # Data edited by hand or cut short: the repair chooses a file (or downloads it again).
        issues.async_raise_model_problem(hass, entry, "model_missing", "the entry names no file")
        raise ConfigEntryError(translation_domain=DOMAIN, translation_key="model_path_missing")
    model_path = Path(stored)
    problem = await hass.async_add_executor_job(check_model_file, model_path)
    if problem is not None:
        issue = "model_missing" if problem is ModelFileProblem.NOT_FOUND else "model_unusable"
        # Why, as a translation key: the repair says it in the dialog's language.
        issues.async_raise_model_problem(hass, entry, issue, str(model_path), problem.value)
        # A missing file may be on a disk not mounted yet: retried, it loads once it is there
        # (the repair stays offered meanwhile). A file that is there but unusable stays so.
        error = ConfigEntryNotReady if problem is ModelFileProblem.NOT_FOUND else ConfigEntryError
        raise error(
            translation_domain=DOMAIN,
            translation_key=problem.value,
            translation_placeholders={"path": str(model_path)},
        )
    version = await hass.async_add_executor_job(runtime_package.llama_cpp_version)
    if version is None:
        issues.async_raise_runtime_missing(hass, "llama_cpp is not installed")
        # No reason to add: an English one would be the only English in the entry's error.
        raise ConfigEntryError(translation_domain=DOMAIN, translation_key="runtime_not_installed")
    issues.async_clear_runtime_issue(hass)
    settings = engine_settings(entry, prefix_store=prefix_store_path(hass))
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
        # The file is at fault (its architecture, its own chat template): the repair replaces it.
        if isinstance(err, UnsupportedArchitectureError | ChatTemplateError):
            issues.async_raise_model_problem(hass, entry, "model_unusable", str(err))
        raise ConfigEntryError(
            translation_domain=DOMAIN,
            translation_key="model_load_failed",
            translation_placeholders={"error": str(err)},
        ) from err

    # Home Assistant interrupts its executor's threads 10 s after its last stopping stage: a
    # batch of the model's still running then (long on a slow board) must end while it stops.
    entry.async_on_unload(hass.async_add_shutdown_job(HassJob(worker.close)))

    async def release() -> None:
        await registry.release(worker)
        await hass.async_add_executor_job(release_freed_memory)

    return ModelSetup(
        model_path=model_path,
        worker=worker,
        release=release,
        software=f"llama-cpp-python {version}",
    )
