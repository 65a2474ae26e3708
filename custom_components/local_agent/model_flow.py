"""Steps of the model entry's config flow: choose, download (with progress) or point at a file.

LocalAgentConfigFlow (config_flow.py) inherits these steps; they also serve its reconfigure
flow, which changes the entry's model file and reloads it.
"""

from __future__ import annotations

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

from .const import CONF_MODEL_PATH
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
from .server_flow import ServerEntryFlow

CONF_MODEL = "model"
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

    def initial_subentries(self) -> list[ConfigSubentryData]:
        """Subentries a new model entry starts with (the agent flow defines them)."""
        return []

    # Menus ------------------------------------------------------------------------------------

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Offer the ways to get a model."""
        return self.async_show_menu(step_id="user", menu_options=MODEL_MENU)

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Change the model file of an entry (same choices as when adding one)."""
        return self.async_show_menu(step_id="reconfigure", menu_options=MODEL_MENU)

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

    @callback
    def async_remove(self) -> None:
        """Stop a running download when the user closes the dialog (the part is kept)."""
        if self._job is not None and not self._job.done:
            self._job.cancel()

    # Helpers ----------------------------------------------------------------------------------

    def _placeholders(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return {"models_dir": str(models_dir(self.hass.config.config_dir)), **(extra or {})}

    def _show_origin(
        self,
        step_id: str,
        user_input: dict[str, Any] | None,
        error: ModelStoreError | None = None,
    ) -> ConfigFlowResult:
        schema = CATALOG_SCHEMA if step_id == "catalog" else HUB_SCHEMA
        return self.async_show_form(
            step_id=step_id,
            data_schema=self.add_suggested_values_to_schema(schema, user_input),
            errors={"base": error.key} if error is not None else None,
            description_placeholders=self._placeholders(error.placeholders if error else None),
        )

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
        unique_id = str(path)
        if self.source == SOURCE_RECONFIGURE:
            entry = self._get_reconfigure_entry()
            if any(
                other.unique_id == unique_id and other.entry_id != entry.entry_id
                for other in self._async_current_entries(include_ignore=False)
            ):
                return self.async_abort(reason="already_configured")
            if not entry.update_listeners:
                return self.async_update_reload_and_abort(
                    entry, unique_id=unique_id, title=title, data=data
                )
            # A loaded entry reloads through its update listener.
            self.hass.config_entries.async_update_entry(
                entry, unique_id=unique_id, title=title, data=data
            )
            return self.async_abort(reason="reconfigure_successful")
        await self.async_set_unique_id(unique_id)
        self._abort_if_unique_id_configured()
        return self.async_create_entry(title=title, data=data, subentries=self.initial_subentries())
