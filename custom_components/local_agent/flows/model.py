"""What the config flow needs to add a model file: forms, sources, the load check and load.

The steps themselves are LocalAgentConfigFlow's (config_flow.py): choose a known model or any
Hub file (downloaded with progress) or a local file, prove in a separate process that it
loads, load it for the new entry. Also the engine options of such an entry.
"""

from __future__ import annotations

import asyncio
import math
import os
from pathlib import Path
from pathlib import PurePosixPath
from typing import Any
from typing import Final

import probatio

from custom_components.local_agent.const import CONF_BACKEND
from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_FLASH_ATTENTION
from custom_components.local_agent.const import CONF_KEY_CACHE
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DEFAULT_CONTEXT_SIZE
from custom_components.local_agent.const import LOGGER
from custom_components.local_agent.engine.errors import EngineError
from custom_components.local_agent.engine.gguf_file import read_gguf_header
from custom_components.local_agent.engine.interface import GenerationEngine
from custom_components.local_agent.engine.local.probe import KEY_CACHE_CHOICES
from custom_components.local_agent.models import runtime_package as llama_package
from custom_components.local_agent.models.catalog import DEFAULT_MODEL
from custom_components.local_agent.models.catalog import KNOWN_MODELS
from custom_components.local_agent.models.catalog import known_model
from custom_components.local_agent.models.download import CONF_FILENAME
from custom_components.local_agent.models.download import CONF_REPO_ID
from custom_components.local_agent.models.download import CONF_REVISION
from custom_components.local_agent.models.file_checks import ModelFileProblem
from custom_components.local_agent.models.file_checks import check_model_file
from custom_components.local_agent.models.safe_load import ProbeOutcome
from custom_components.local_agent.models.safe_load import ProbeResult
from custom_components.local_agent.models.store import DEFAULT_REVISION
from custom_components.local_agent.models.store import DownloadInterruptedError
from custom_components.local_agent.models.store import HubUnreachableError
from custom_components.local_agent.models.store import ModelSource
from custom_components.local_agent.models.store import ModelStoreError
from custom_components.local_agent.runtime.backend import Backend
from custom_components.local_agent.runtime.data import LocalAgentData
from custom_components.local_agent.runtime.data import engine_settings
from custom_components.local_agent.runtime.data import prefix_store_path
from custom_components.local_agent.runtime.local import local_engines
from homeassistant.config_entries import ConfigEntryState
from homeassistant.config_entries import ConfigFlowResult
from homeassistant.core import HomeAssistant
from homeassistant.helpers.selector import SelectSelector
from homeassistant.helpers.selector import SelectSelectorConfig
from homeassistant.helpers.selector import SelectSelectorMode
from homeassistant.helpers.selector import TextSelector

from .options_reload import ReloadingOptionsFlow
from .selectors import OUT_OF_RANGE
from .selectors import number_box
from .selectors import range_problem

CONF_MODEL = "model"
# Load-check outcomes that mean the file must not be used (the others are retried at setup).
_REJECTED = (ProbeOutcome.CRASHED, ProbeOutcome.LOAD_FAILED)
MODEL_MENU = ["catalog", "hub", "local_file", "server"]

LOCAL_FILE_SCHEMA = probatio.Schema({probatio.Required(CONF_MODEL_PATH): TextSelector()})
HUB_SCHEMA = probatio.Schema(
    {
        probatio.Required(CONF_REPO_ID): TextSelector(),
        probatio.Required(CONF_FILENAME): TextSelector(),
        probatio.Optional(CONF_REVISION): TextSelector(),
    }
)
CATALOG_SCHEMA = probatio.Schema(
    {
        probatio.Required(CONF_MODEL): SelectSelector(
            SelectSelectorConfig(
                options=[model.key for model in KNOWN_MODELS],
                translation_key="known_model",
                mode=SelectSelectorMode.LIST,
            )
        )
    }
)
# The form each way of choosing a file shows (and shows again with an error).
ORIGIN_SCHEMAS = {"catalog": CATALOG_SCHEMA, "hub": HUB_SCHEMA, "local_file": LOCAL_FILE_SCHEMA}
# What the forms suggest when they first open.
CATALOG_SUGGESTED = {CONF_MODEL: DEFAULT_MODEL.key}
HUB_SUGGESTED = {CONF_REVISION: DEFAULT_REVISION}
ORIGIN_SUGGESTED: dict[str, dict[str, Any]] = {"catalog": CATALOG_SUGGESTED, "hub": HUB_SUGGESTED}


def inspect_path(text: str) -> tuple[Path, ModelFileProblem | None]:
    """Resolve a user-typed path and say what is wrong with it. Blocking."""
    path = Path(text.strip()).expanduser()
    return path.resolve(), check_model_file(path)


def file_title(path: Path) -> str:
    """Name an entry after the model in the file: "Gemma 3 270M Q4_K_M". Blocking.

    The GGUF header's name, size and quantization; the file's name without .gguf when the
    header names nothing (or cannot be read: the load check will say why).
    """
    try:
        title = read_gguf_header(path).title()
    except EngineError, OSError:
        title = None
    return title or path.stem


def catalog_source(user_input: dict[str, Any]) -> tuple[ModelSource, str]:
    """Return the file of the known model chosen in the catalog form, and its title."""
    model = known_model(user_input[CONF_MODEL]) or DEFAULT_MODEL
    return ModelSource(model.repo_id, model.filename), model.title


def hub_source(user_input: dict[str, Any]) -> tuple[ModelSource, str]:
    """Return the Hub file named in the hub form, and its title (the file's name)."""
    source = ModelSource(
        repo_id=str(user_input[CONF_REPO_ID]).strip(),
        filename=str(user_input[CONF_FILENAME]).strip().lstrip("/"),
        revision=str(user_input.get(CONF_REVISION) or DEFAULT_REVISION).strip(),
    )
    return source, PurePosixPath(source.filename).name


def is_unreachable(error: ModelStoreError) -> bool:
    """Say whether no connection to the Hub was made at all (not a transfer that broke off).

    An interrupted download keeps its part and continues when tried again: its form says so.
    """
    return isinstance(error, HubUnreachableError) and not isinstance(
        error, DownloadInterruptedError
    )


def model_entry_data(data: dict[str, Any]) -> dict[str, Any]:
    """Return the data of an entry for a model file (it runs in this process)."""
    return {CONF_BACKEND: Backend.LLAMA_CPP.value, **data}


def is_rejected(result: ProbeResult | None) -> bool:
    """Say whether the load check proved the file unusable (None: llama-cpp is missing)."""
    return result is not None and result.outcome in _REJECTED


def check_failure(result: ProbeResult) -> tuple[str, str]:
    """Return the form error for a rejected file, and what the test process said."""
    error = result.error
    key = "model_crashed" if result.outcome is ProbeOutcome.CRASHED else "model_load_failed"
    return key, error


class ModelLoad:
    """Check a chosen file in a separate process, then load it for the entry that takes it."""

    def __init__(
        self,
        hass: HomeAssistant,
        path: Path,
        data: dict[str, Any],
        title: str,
        options: dict[str, Any],
    ) -> None:
        """Hold the file, the entry's data and title for it; nothing runs yet."""
        self.hass = hass
        self.path = path
        self.data = data
        self.title = title
        self._options = options
        self._check: asyncio.Task[ProbeResult | None] | None = None
        self._load: asyncio.Task[GenerationEngine | None] | None = None

    def placeholders(self) -> dict[str, str]:
        """Name the file in the progress texts."""
        return {"filename": self.path.name}

    def check(self) -> asyncio.Task[ProbeResult | None]:
        """Start (once) the separate-process load check: native code can crash."""
        if self._check is None:
            self._check = self.hass.async_create_task(
                self._async_check(), f"local_agent load check {self.path.name}"
            )
        return self._check

    def load(self) -> asyncio.Task[GenerationEngine | None]:
        """Start (once) the load into the shared registry, held until the flow ends."""
        if self._load is None:
            self._load = self.hass.async_create_task(
                self._async_load(), f"local_agent load {self.path.name}"
            )
        return self._load

    def release(self) -> None:
        """Let go when the flow ends: a new entry set up by now holds the model; else free it."""
        if self._load is not None:
            self._load.add_done_callback(self._release_hold)

    async def _async_check(self) -> ProbeResult | None:
        """Run the separate-process load check; None when llama-cpp-python is missing."""
        version = await self.hass.async_add_executor_job(llama_package.llama_cpp_version)
        if version is None:
            return None
        return await local_engines(self.hass).check(
            self.hass,
            self.path,
            version,
            engine_settings(self._options, prefix_store=prefix_store_path(self.hass)),
        )

    async def _async_load(self) -> GenerationEngine | None:
        registry = local_engines(self.hass).registry
        try:
            return await registry.acquire(
                self.path, engine_settings(self._options, prefix_store=prefix_store_path(self.hass))
            )
        except EngineError as err:
            # The entry's setup loads it again and reports the error the usual way.
            LOGGER.warning("Loading %s failed: %s", self.path.name, err)
            return None

    def _release_hold(self, task: asyncio.Task[GenerationEngine | None]) -> None:
        if task.cancelled() or task.exception() is not None or (worker := task.result()) is None:
            return
        registry = local_engines(self.hass).registry
        self.hass.async_create_background_task(
            registry.release(worker), f"local_agent release {worker.info.path.name}"
        )


# The smallest fixed context the form takes: Qwen3.5's tokenizer makes a 10-entity home's
# prompt 1,715 tokens (README, Benchmarks), and a turn needs room for its answer on top; a
# smaller one loads, and then every request is "too long for me".
MIN_FIXED_CONTEXT: Final = 2048


def _cores() -> int:
    """CPU cores this process may use (its affinity, else the machine's)."""
    return os.process_cpu_count() or os.cpu_count() or 1


def trained_context(path: Path) -> int | None:
    """Return the context the model file was trained for; None when unknown. Blocking."""
    try:
        return read_gguf_header(path).context_length
    except EngineError, OSError:
        return None


def _engine_option_errors(user_input: dict[str, Any], trained: int | None) -> dict[str, str]:
    """Say which engine option cannot work: a context out of range, more threads than cores.

    A fixed context too small, or larger than the model was trained for (`trained`, when
    known). 0 is automatic for both (an automatic context never grows past the trained one).
    """
    errors: dict[str, str] = {}
    if not all(math.isfinite(user_input[key]) for key in (CONF_CONTEXT_SIZE, CONF_THREADS)):
        return errors  # NaN or infinity: out of every range, which the form says
    context = int(user_input[CONF_CONTEXT_SIZE])
    if 0 < context < MIN_FIXED_CONTEXT:
        errors[CONF_CONTEXT_SIZE] = "context_too_small"
    elif trained is not None and context > trained:
        # llama.cpp would load it and warn in the log alone; past what the model was
        # trained on, its answers fall apart.
        errors[CONF_CONTEXT_SIZE] = "context_over_trained"
    if int(user_input[CONF_THREADS]) > _cores():
        errors[CONF_THREADS] = "too_many_threads"
    return errors


class EngineOptionsFlow(ReloadingOptionsFlow):
    """Context size, threads, flash attention and key cache of a loaded model."""

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Show the engine options; saving reloads the model with them, visibly."""
        model_path = Path(self.config_entry.data[CONF_MODEL_PATH])
        trained = await self.hass.async_add_executor_job(trained_context, model_path)
        schema = probatio.Schema(
            {
                probatio.Required(CONF_CONTEXT_SIZE, default=DEFAULT_CONTEXT_SIZE): number_box(
                    0, 262144, 256
                ),
                probatio.Required(CONF_THREADS, default=0): number_box(0, 256, 1),
                probatio.Required(CONF_FLASH_ATTENTION, default="auto"): SelectSelector(
                    SelectSelectorConfig(
                        options=["auto", "on", "off"],
                        translation_key=CONF_FLASH_ATTENTION,
                        mode=SelectSelectorMode.DROPDOWN,
                    )
                ),
                probatio.Required(CONF_KEY_CACHE, default="auto"): SelectSelector(
                    SelectSelectorConfig(
                        options=list(KEY_CACHE_CHOICES),
                        translation_key=CONF_KEY_CACHE,
                        mode=SelectSelectorMode.DROPDOWN,
                    )
                ),
            }
        )
        errors: dict[str, str] = {}
        out_of_range: dict[str, str] = {}
        if user_input is not None:
            errors = _engine_option_errors(user_input, trained)
            # Our own words for a field first ("more threads than cores"), else its range.
            problem = range_problem(schema, user_input)
            if problem is not None and problem[0] not in errors:
                errors[problem[0]] = OUT_OF_RANGE
                out_of_range = problem[1]
        if user_input is not None and not errors:
            return await self.async_save_options(
                {
                    **user_input,
                    # Whole numbers, stored as such (the number field gives floats).
                    CONF_CONTEXT_SIZE: int(user_input[CONF_CONTEXT_SIZE]),
                    CONF_THREADS: int(user_input[CONF_THREADS]),
                }
            )
        suggested = self.add_suggested_values_to_schema(
            schema, user_input if user_input is not None else self.config_entry.options
        )
        # The numbers an error names (no thousands separator, as below).
        limits = {
            "minimum_context": str(MIN_FIXED_CONTEXT),
            "cores": str(_cores()),
            **out_of_range,
        }
        if trained is not None:
            limits["trained_context"] = str(trained)
        if self.config_entry.state is not ConfigEntryState.LOADED:
            return self.async_show_form(
                step_id="init_not_loaded",
                data_schema=suggested,
                errors=errors,
                description_placeholders=limits,
            )
        data: LocalAgentData = self.config_entry.runtime_data
        # The context the loaded model has now (an automatic one grows with the home).
        return self.async_show_form(
            step_id="init",
            data_schema=suggested,
            errors=errors,
            # No thousands separator: the dialog's language is not known here, and "8,192"
            # read wrong in French and German (where the comma is the decimal mark).
            description_placeholders={"context_now": str(data.worker.info.n_ctx), **limits},
        )

    async def async_step_init_not_loaded(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Show the same options for a model that is not loaded (it failed to load, or is off)."""
        return await self.async_step_init(user_input)
