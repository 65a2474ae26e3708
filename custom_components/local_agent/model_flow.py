"""Steps of the model entry's config flow: choose, download (with progress) or point at a file.

LocalAgentConfigFlow (config_flow.py) inherits these steps; they also serve its reconfigure
flow, which changes the entry's model file and reloads it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path, PurePosixPath
from typing import Any

import probatio

from homeassistant.config_entries import (
    SOURCE_RECONFIGURE,
    ConfigFlowResult,
    ConfigSubentryData,
)
from homeassistant.core import callback
from homeassistant.helpers.selector import (
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TextSelector,
)

from . import MODEL_REGISTRY, engine_settings, llama_package, safe_load
from .backend import Backend
from .const import CONF_BACKEND, CONF_MODEL_PATH, LOGGER
from .engine.errors import EngineError
from .engine.local.worker import ModelRegistry, ModelWorker
from .model_catalog import DEFAULT_MODEL, KNOWN_MODELS, known_model
from .model_download import (
    CONF_FILENAME,
    CONF_REPO_ID,
    CONF_REVISION,
    DownloadJob,
    PreparedDownload,
    async_prepare,
)
from .model_file import ModelFileProblem, check_model_file
from .model_store import DEFAULT_REVISION, ModelSource, ModelStoreError, models_dir
from .safe_load import ProbeOutcome, ProbeResult
from .server_flow import ServerEntryFlow

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


def inspect_path(text: str) -> tuple[Path, ModelFileProblem | None]:
    """Resolve a user-typed path and say what is wrong with it. Blocking."""
    path = Path(text.strip()).expanduser()
    return path.resolve(), check_model_file(path)


class ModelEntryFlow(ServerEntryFlow):
    """Choose a model: a known one or any Hub file (downloaded here), or a local file."""

    def __init__(self) -> None:
        """Start with nothing chosen."""
        self._origin = "catalog"
        self._origin_input: dict[str, Any] | None = None
        self._title = ""
        self._prepared: PreparedDownload | None = None
        self._job: DownloadJob | None = None
        # The chosen file, its entry data and title, while it is checked and loaded.
        self._finish: tuple[Path, dict[str, Any], str] | None = None
        self._check: asyncio.Task[ProbeResult | None] | None = None
        self._load: asyncio.Task[ModelWorker | None] | None = None

    def initial_subentries(self, model_title: str) -> list[ConfigSubentryData]:
        """Subentries a new model entry starts with (the agent flow defines them)."""
        return []

    # Menus ------------------------------------------------------------------------------------

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Offer the ways to get a model."""
        return self.async_show_menu(
            step_id="user", menu_options=MODEL_MENU, description_placeholders=self._placeholders()
        )

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Change the model file of an entry (same choices as when adding one)."""
        return self.async_show_menu(
            step_id="reconfigure",
            menu_options=MODEL_MENU,
            description_placeholders=self._placeholders(),
        )

    # Choices ----------------------------------------------------------------------------------

    async def async_step_catalog(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Pick one of the known models."""
        if user_input is None:
            return self._show_origin("catalog", {CONF_MODEL: DEFAULT_MODEL.key})
        model = known_model(user_input[CONF_MODEL]) or DEFAULT_MODEL
        self._title = model.title
        return await self._async_prepare(
            "catalog", user_input, ModelSource(model.repo_id, model.filename)
        )

    async def async_step_hub(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Name any GGUF file on the Hugging Face Hub."""
        if user_input is None:
            return self._show_origin("hub", {CONF_REVISION: DEFAULT_REVISION})
        source = ModelSource(
            repo_id=str(user_input[CONF_REPO_ID]).strip(),
            filename=str(user_input[CONF_FILENAME]).strip().lstrip("/"),
            revision=str(user_input.get(CONF_REVISION) or DEFAULT_REVISION).strip(),
        )
        self._title = PurePosixPath(source.filename).name
        return await self._async_prepare("hub", user_input, source)

    async def async_step_local_file(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Use a GGUF file already on this machine."""
        errors: dict[str, str] = {}
        suggested = user_input
        self._origin, self._origin_input = "local_file", user_input
        if user_input is not None:
            resolved, problem = await self.hass.async_add_executor_job(
                inspect_path, user_input[CONF_MODEL_PATH]
            )
            if problem is None:
                return await self._async_finish(
                    resolved, {CONF_MODEL_PATH: str(resolved)}, resolved.name
                )
            errors[CONF_MODEL_PATH] = problem.value
        elif self.source == SOURCE_RECONFIGURE:
            suggested = {CONF_MODEL_PATH: self._get_reconfigure_entry().data[CONF_MODEL_PATH]}
        return self.async_show_form(
            step_id="local_file",
            data_schema=self.add_suggested_values_to_schema(LOCAL_FILE_SCHEMA, suggested),
            errors=errors,
            description_placeholders=self._placeholders(),
        )

    # Download ---------------------------------------------------------------------------------

    async def async_step_confirm_download(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Show size, RAM and free disk space; download on confirmation."""
        assert self._prepared is not None
        if user_input is not None:
            return await self.async_step_download()
        return self.async_show_form(
            step_id="confirm_download",
            description_placeholders=self._placeholders(self._prepared.placeholders()),
        )

    async def async_step_download(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Download with a progress bar; the flow moves on when the task ends."""
        assert self._prepared is not None
        if self._job is None:
            self._job = DownloadJob(self.hass, self._prepared, self.async_update_progress)
        if not self._job.done:
            return self.async_show_progress(
                step_id="download",
                progress_action="download",
                progress_task=self._job.task,
                description_placeholders=self._prepared.placeholders(),
            )
        next_step = "download_finished" if self._job.path is not None else "download_failed"
        return self.async_show_progress_done(next_step_id=next_step)

    async def async_step_download_failed(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Back to the choice, with the reason."""
        job, self._job = self._job, None
        error = (job.error if job is not None else None) or ModelStoreError()
        return self._show_origin(self._origin, self._origin_input, error)

    async def async_step_download_finished(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Create (or update) the entry for the verified file."""
        assert self._prepared is not None
        self._job = None
        prepared = self._prepared
        return await self._async_finish(prepared.target, prepared.entry_data(), self._title)

    # Check and load -----------------------------------------------------------------------------

    async def async_step_check_model(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Prove in a separate process that the model loads (native code can crash)."""
        assert self._finish is not None
        path = self._finish[0]
        if self._check is None:
            self._check = self.hass.async_create_task(
                self._async_check_model(path), f"local_agent load check {path.name}"
            )
        if not self._check.done():
            return self.async_show_progress(
                step_id="check_model",
                progress_action="check_model",
                progress_task=self._check,
                description_placeholders={"filename": path.name},
            )
        result = self._check.result()
        if result is not None and result.outcome in _REJECTED:
            return self.async_show_progress_done(next_step_id="check_failed")
        # A missing runtime, a lack of memory or a slow check: the entry's setup reports them
        # (repair issue, retries) as it does at every start.
        new_entry = self.source != SOURCE_RECONFIGURE and result is not None
        return self.async_show_progress_done(
            next_step_id="load_model" if new_entry else "finish_model"
        )

    async def async_step_check_failed(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Back to the choice, with what the test process said."""
        assert self._check is not None
        result = self._check.result()
        self._check, self._finish = None, None
        assert result is not None
        error = result.detail.splitlines()[-1] if result.detail else result.reason
        key = "model_crashed" if result.outcome is ProbeOutcome.CRASHED else "model_load_failed"
        return self._show_failure(key, error)

    async def async_step_load_model(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Load the model while the dialog says so; the new entry takes it over."""
        assert self._finish is not None
        path = self._finish[0]
        if self._load is None:
            self._load = self.hass.async_create_task(
                self._async_load_model(path), f"local_agent load {path.name}"
            )
        if not self._load.done():
            return self.async_show_progress(
                step_id="load_model",
                progress_action="load_model",
                progress_task=self._load,
                description_placeholders={"filename": path.name},
            )
        return self.async_show_progress_done(next_step_id="finish_model")

    async def async_step_finish_model(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Create (or change) the entry; its setup finds the model loaded already."""
        assert self._finish is not None
        path, data, title = self._finish
        return self._create_or_update(path, data, title)

    async def _async_check_model(self, path: Path) -> ProbeResult | None:
        """Run the separate-process load check; None when llama-cpp-python is missing."""
        version = await self.hass.async_add_executor_job(llama_package.llama_cpp_version)
        if version is None:
            return None
        return await safe_load.async_check_model(
            self.hass, path, version, engine_settings(self._entry_options())
        )

    async def _async_load_model(self, path: Path) -> ModelWorker | None:
        """Load the model into the shared registry and hold it until the flow ends."""
        registry = self.hass.data.setdefault(MODEL_REGISTRY, ModelRegistry())
        try:
            return await registry.acquire(path, engine_settings(self._entry_options()))
        except EngineError as err:
            # The entry's setup loads it again and reports the error the usual way.
            LOGGER.warning("Loading %s failed: %s", path.name, err)
            return None

    def _entry_options(self) -> dict[str, Any]:
        if self.source == SOURCE_RECONFIGURE:
            return dict(self._get_reconfigure_entry().options)
        return {}

    @callback
    def async_remove(self) -> None:
        """Stop a running download when the dialog closes (the part is kept); free a hold."""
        if self._job is not None and not self._job.done:
            self._job.cancel()
        if self._load is not None:
            # Set up by now, the new entry holds the model itself; if not, it is freed.
            self._load.add_done_callback(self._release_hold)

    def _release_hold(self, task: asyncio.Task[ModelWorker | None]) -> None:
        if task.cancelled() or task.exception() is not None or (worker := task.result()) is None:
            return
        registry = self.hass.data[MODEL_REGISTRY]
        self.hass.async_create_background_task(
            registry.release(worker), f"local_agent release {worker.info.path.name}"
        )

    # Helpers ----------------------------------------------------------------------------------

    def _placeholders(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return {"models_dir": str(models_dir(self.hass.config.config_dir)), **(extra or {})}

    def _show_origin(
        self,
        step_id: str,
        user_input: dict[str, Any] | None,
        error: ModelStoreError | None = None,
    ) -> ConfigFlowResult:
        if error is None:
            return self._show_origin_error(step_id, user_input, None, {})
        return self._show_origin_error(step_id, user_input, error.key, error.placeholders)

    def _show_origin_error(
        self,
        step_id: str,
        user_input: dict[str, Any] | None,
        key: str | None,
        placeholders: dict[str, str],
    ) -> ConfigFlowResult:
        schema = {"catalog": CATALOG_SCHEMA, "local_file": LOCAL_FILE_SCHEMA}.get(
            step_id, HUB_SCHEMA
        )
        return self.async_show_form(
            step_id=step_id,
            data_schema=self.add_suggested_values_to_schema(schema, user_input),
            errors={"base": key} if key is not None else None,
            description_placeholders=self._placeholders(placeholders),
        )

    def _show_failure(self, key: str, error: str) -> ConfigFlowResult:
        """Show the form the file was chosen in again, with an error about that file."""
        return self._show_origin_error(self._origin, self._origin_input, key, {"error": error})

    async def _async_prepare(
        self, origin: str, user_input: dict[str, Any], source: ModelSource
    ) -> ConfigFlowResult:
        self._origin, self._origin_input = origin, user_input
        try:
            self._prepared = await async_prepare(self.hass, source)
        except ModelStoreError as err:
            return self._show_origin(origin, user_input, err)
        if self.source != SOURCE_RECONFIGURE:
            # Never download a file that an entry already uses.
            await self.async_set_unique_id(str(self._prepared.target))
            self._abort_if_unique_id_configured()
        return await self.async_step_confirm_download()

    async def _async_finish(self, path: Path, data: dict[str, Any], title: str) -> ConfigFlowResult:
        """Check the file is not set up twice, then check and load it (progress steps)."""
        unique_id = str(path)
        if self.source == SOURCE_RECONFIGURE:
            entry = self._get_reconfigure_entry()
            if any(
                other.unique_id == unique_id and other.entry_id != entry.entry_id
                for other in self._async_current_entries(include_ignore=False)
            ):
                return self.async_abort(reason="already_configured")
        else:
            await self.async_set_unique_id(unique_id)
            self._abort_if_unique_id_configured()
        self._finish, self._check, self._load = (path, data, title), None, None
        return await self.async_step_check_model()

    def _create_or_update(self, path: Path, data: dict[str, Any], title: str) -> ConfigFlowResult:
        unique_id = str(path)
        data = {CONF_BACKEND: Backend.LLAMA_CPP.value, **data}
        if self.source == SOURCE_RECONFIGURE:
            return self.async_update_reload_and_abort(
                self._get_reconfigure_entry(), unique_id=unique_id, title=title, data=data
            )
        return self.async_create_entry(
            title=title, data=data, subentries=self.initial_subentries(title)
        )
