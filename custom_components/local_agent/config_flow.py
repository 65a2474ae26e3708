"""Config flow for Local Agent: an entry is one model (a file or on a server).

One class holds every step, for adding an entry and for reconfiguring one; the forms, sources
and checks it uses are plain helpers in flows/model.py (a model file) and flows/server.py (a
model on a server). Agents and AI tasks are subentries (flows/subentry.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from homeassistant.config_entries import SOURCE_RECONFIGURE
from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigFlow
from homeassistant.config_entries import ConfigFlowResult
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.config_entries import ConfigSubentryFlow
from homeassistant.config_entries import OptionsFlow
from homeassistant.core import callback

from .const import CONF_MAX_CONCURRENT
from .const import CONF_MODEL_PATH
from .const import CONF_SERVER_MODEL
from .const import CONF_SERVER_URL
from .const import DOMAIN
from .const import SUBENTRY_AI_TASK
from .const import SUBENTRY_CONVERSATION
from .engine.server.errors import ServerError
from .engine.server.settings import ServerSettings
from .flows import model as model_flow
from .flows import server as server_flow
from .flows.progress import DownloadStep
from .flows.progress import async_finished_soon
from .flows.progress import async_progress_step
from .flows.progress import show_progress
from .flows.runtime import RuntimeOfferSteps
from .flows.selectors import OUT_OF_RANGE
from .flows.selectors import range_problem
from .flows.subentry import AITaskFlow
from .flows.subentry import ConversationAgentFlow
from .flows.subentry import default_agent_name
from .models.download import async_prepare
from .models.store import HubUnreachableError
from .models.store import ModelSource
from .models.store import ModelStoreError
from .models.store import models_dir
from .runtime.server import is_server_entry
from .runtime.server import server_title
from .turn.defaults import agent_data


class LocalAgentConfigFlow(
    RuntimeOfferSteps, DownloadStep[ConfigFlowResult], ConfigFlow, domain=DOMAIN
):
    """Add (or change) a model entry: download, a local file or a server."""

    VERSION = 1
    # 2: the entry's data names its backend (CONF_BACKEND).
    MINOR_VERSION = 3

    def __init__(self) -> None:
        """Start with nothing chosen."""
        # The form the model file was chosen in, shown again when the file fails.
        self._origin = "catalog"
        self._origin_input: dict[str, Any] | None = None
        self._title = ""
        # The chosen file while it is checked and loaded.
        self._model_load: model_flow.ModelLoad | None = None
        self._server_input: dict[str, Any] | None = None
        self._server_models: tuple[str, ...] = ()
        self._server_model_input: dict[str, Any] = {}
        # A question to the server while its progress step shows: the task, the progress
        # text, the step that reads its answer, the text's placeholders.
        self._server_task: tuple[asyncio.Task[Any], str, str, dict[str, str]] | None = None
        self._server_progress_shown = False
        self._models_task: asyncio.Task[tuple[tuple[str, ...], ServerError | None]] | None = None
        self._check_task: asyncio.Task[ServerError | None] | None = None
        # Why the Hub could not be reached, shown in the menu that offers the other ways.
        self._hub_error: ModelStoreError = HubUnreachableError()

    def initial_subentries(self, model_title: str) -> list[ConfigSubentryData]:
        """Give a new model entry one agent, named after the model."""
        return [
            ConfigSubentryData(
                subentry_type=SUBENTRY_CONVERSATION,
                data=agent_data(),
                title=default_agent_name(self.hass, model_title),
                unique_id=None,
            )
        ]

    @classmethod
    @callback
    def async_get_supported_subentry_types(
        cls, config_entry: ConfigEntry
    ) -> dict[str, type[ConfigSubentryFlow]]:
        """Agents and AI tasks are subentries of a model entry."""
        return {SUBENTRY_CONVERSATION: ConversationAgentFlow, SUBENTRY_AI_TASK: AITaskFlow}

    @staticmethod
    @callback
    def async_get_options_flow(config_entry: ConfigEntry) -> OptionsFlow:
        """Engine options of a model file, or the options of a server."""
        if is_server_entry(config_entry):
            return server_flow.ServerOptionsFlow()
        return model_flow.EngineOptionsFlow()

    # Menus ------------------------------------------------------------------------------------

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Offer the runtime when it is missing (flows/runtime.py), then the ways to get a model."""
        return await self.async_step_runtime()

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Change the model of an entry (same choices as when adding one)."""
        return self._show_menu("reconfigure")

    # A model file: choose it ------------------------------------------------------------------

    async def async_step_catalog(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Pick one of the known models."""
        if user_input is None:
            return self._show_origin("catalog", self._retry_input("catalog"))
        source, self._title = model_flow.catalog_source(user_input)
        return await self._async_prepare("catalog", user_input, source)

    async def async_step_hub(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Name any GGUF file on the Hugging Face Hub."""
        if user_input is None:
            return self._show_origin("hub", self._retry_input("hub"))
        source, self._title = model_flow.hub_source(user_input)
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
                model_flow.inspect_path, user_input[CONF_MODEL_PATH]
            )
            if problem is None:
                return await self._async_finish(
                    resolved, {CONF_MODEL_PATH: str(resolved)}, resolved.name
                )
            errors[CONF_MODEL_PATH] = problem.value
        elif self.source == SOURCE_RECONFIGURE:
            suggested = {CONF_MODEL_PATH: self._get_reconfigure_entry().data.get(CONF_MODEL_PATH)}
        return self.async_show_form(
            step_id="local_file",
            data_schema=self.add_suggested_values_to_schema(
                model_flow.LOCAL_FILE_SCHEMA, suggested
            ),
            errors=errors,
            description_placeholders=self._placeholders(),
        )

    # A model file: download it ----------------------------------------------------------------

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

    async def async_step_download_failed(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Back to the choice, with the reason."""
        job, self._job = self._job, None
        error = (job.error if job is not None else None) or ModelStoreError()
        if model_flow.is_unreachable(error):
            return await self.async_step_hub_unreachable(error=error)
        return self._show_origin(self._origin, self._origin_input, error.key, error.placeholders)

    async def async_step_hub_unreachable(
        self, user_input: dict[str, Any] | None = None, *, error: ModelStoreError | None = None
    ) -> ConfigFlowResult:
        """No connection to the Hub: say why and offer to try again or another way (a file)."""
        if error is not None:
            self._hub_error = error
        # One step per cause (hub_unreachable_refused, …): each says it in the dialog's words.
        return self.async_show_menu(
            step_id=self._hub_error.key,
            menu_options=[self._origin, "local_file", "server"],
            description_placeholders=self._placeholders(self._hub_error.placeholders),
        )

    # Home Assistant wants a method for each step it shows: the same menu, its cause's words.
    async_step_hub_unreachable_refused = async_step_hub_unreachable
    async_step_hub_unreachable_unknown_host = async_step_hub_unreachable
    async_step_hub_unreachable_timed_out = async_step_hub_unreachable
    async_step_hub_unreachable_tls = async_step_hub_unreachable

    async def async_step_download_finished(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Create (or update) the entry for the verified file."""
        assert self._prepared is not None
        self._job = None
        prepared = self._prepared
        return await self._async_finish(prepared.target, prepared.entry_data(), self._title)

    # A model file: check and load it ----------------------------------------------------------

    async def async_step_check_model(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Prove in a separate process that the model loads (native code can crash)."""
        assert self._model_load is not None
        check = self._model_load.check()
        if not await async_finished_soon(check):
            return show_progress(self, "check_model", check, self._model_load.placeholders())
        result = check.result()
        if model_flow.is_rejected(result):
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
        assert self._model_load is not None
        result = self._model_load.check().result()
        self._model_load = None
        assert result is not None
        key, error = model_flow.check_failure(result)
        return self._show_origin(self._origin, self._origin_input, key, {"error": error})

    async def async_step_load_model(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Load the model while the dialog says so; the new entry takes it over."""
        assert self._model_load is not None
        return await async_progress_step(
            self,
            "load_model",
            self._model_load.load(),
            self._model_load.placeholders(),
            next_step_id="finish_model",
        )

    async def async_step_finish_model(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Create (or change) the entry; its setup finds the model loaded already."""
        assert self._model_load is not None
        load = self._model_load
        return self._create_or_update(
            str(load.path), load.title, model_flow.model_entry_data(load.data)
        )

    @callback
    def async_remove(self) -> None:
        """Stop a running download when the dialog closes (the part is kept); free a hold."""
        super().async_remove()
        if self._model_load is not None:
            self._model_load.release()

    # A model on a server ----------------------------------------------------------------------

    async def async_step_server(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Where the server is and how to talk to it."""
        if user_input is None:
            return self._show_server_form(None, None)
        self._server_input = dict(user_input)
        if url_problem := server_flow.url_problem(str(user_input[CONF_SERVER_URL])):
            return self._show_server_form(user_input, None, {CONF_SERVER_URL: url_problem})
        if problem := range_problem(server_flow.SERVER_SCHEMA, user_input):
            field, placeholders = problem
            return self._show_server_form(user_input, None, {field: OUT_OF_RANGE}, placeholders)
        settings = server_flow.server_input_settings(user_input)
        self._models_task = self.hass.async_create_task(
            server_flow.async_server_models(self.hass, settings)
        )
        return await self._async_ask_server(
            self._models_task, "server_list", "server_listed", settings
        )

    async def async_step_server_check(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask the server while the dialog says so (it may take seconds), then go on.

        A quick answer goes on at once: no progress step is shown for it.
        """
        assert self._server_task is not None
        task, action, next_step, placeholders = self._server_task
        if self._server_progress_shown and task.done():
            self._server_progress_shown = False
            return self.async_show_progress_done(next_step_id=next_step)
        if not await async_finished_soon(task):
            self._server_progress_shown = True
            return show_progress(self, "server_check", task, placeholders, action=action)
        step: Callable[[], Awaitable[ConfigFlowResult]] = getattr(self, f"async_step_{next_step}")
        return await step()

    async def async_step_server_listed(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Offer the server's models, or show the form again with what failed."""
        assert self._models_task is not None
        self._server_models, failure = self._models_task.result()
        if failure is not None:
            return self._show_server_form(self._server_input, failure)
        return await self.async_step_server_model()

    async def async_step_server_model(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Which of the server's models; then check everything and create the entry."""
        if user_input is None and len(self._server_models) == 1:
            user_input = {CONF_SERVER_MODEL: self._server_models[0]}
        if user_input is None:
            return self._show_server_model_form(None, None)
        assert self._server_input is not None
        model = str(user_input[CONF_SERVER_MODEL]).strip()
        settings = server_flow.server_input_settings(self._server_input, model)
        self._server_model_input = dict(user_input)
        self._check_task = self.hass.async_create_task(
            server_flow.async_check_server(self.hass, settings)
        )
        return await self._async_ask_server(
            self._check_task, "server_validate", "server_checked", settings
        )

    async def async_step_server_checked(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Create the entry once the whole check passed, or say what failed."""
        assert self._check_task is not None
        if (failure := self._check_task.result()) is None:
            assert self._server_input is not None
            model = str(self._server_model_input[CONF_SERVER_MODEL]).strip()
            settings = server_flow.server_input_settings(self._server_input, model)
            return await self._async_finish_server(settings)
        return self._show_server_model_form(self._server_model_input, failure)

    async def _async_ask_server(
        self, task: asyncio.Task[Any], action: str, next_step: str, settings: ServerSettings
    ) -> ConfigFlowResult:
        """Run a question to the server behind a progress step (shown if it takes a while)."""
        seconds = f"{server_flow.MODEL_LIST_TIMEOUT:g}"
        self._server_task = (task, action, next_step, {"url": settings.root, "seconds": seconds})
        return await self.async_step_server_check()

    def _show_server_form(
        self,
        user_input: Mapping[str, Any] | None,
        failure: ServerError | None,
        errors: dict[str, str] | None = None,
        error_placeholders: Mapping[str, str] | None = None,
    ) -> ConfigFlowResult:
        """Show the server form, with what the user typed and what failed."""
        form_errors, placeholders = server_flow.form_errors(failure)
        placeholders = {**placeholders, **(error_placeholders or {})}
        suggested = user_input or server_flow.current_server_data(self._reconfigure_entry())
        return self.async_show_form(
            step_id="server",
            data_schema=self.add_suggested_values_to_schema(server_flow.SERVER_SCHEMA, suggested),
            errors=errors or form_errors,
            description_placeholders=placeholders,
        )

    def _show_server_model_form(
        self, user_input: Mapping[str, Any] | None, failure: ServerError | None
    ) -> ConfigFlowResult:
        """Show the choice of the server's model, with what was chosen and what failed."""
        errors, placeholders = server_flow.form_errors(failure)
        suggested = user_input or server_flow.suggested_server_model(
            self._server_models, self._reconfigure_entry()
        )
        return self.async_show_form(
            step_id="server_model",
            data_schema=self.add_suggested_values_to_schema(
                server_flow.server_model_schema(self._server_models), suggested
            ),
            errors=errors,
            description_placeholders={
                **placeholders,
                # No word when it lists none: "none" stayed English in every language.
                "models": ", ".join(self._server_models) or "—",
            },
        )

    async def async_step_reauth(self, entry_data: Mapping[str, Any]) -> ConfigFlowResult:
        """Ask for a new key: the model server refused the entry's."""
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask for the key; check it against the server before saving it."""
        entry = self._get_reauth_entry()
        failure: ServerError | None = None
        if user_input is not None:
            data = server_flow.reauth_data(entry, user_input)
            settings = server_flow.flow_settings(data, entry.options)
            if (failure := await server_flow.async_check_server(self.hass, settings)) is None:
                # Named, so our own text says it (the default is core's, English only).
                return self.async_update_reload_and_abort(
                    entry, data=data, reason="reauth_successful"
                )
        errors, placeholders = server_flow.form_errors(failure)
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=server_flow.REAUTH_SCHEMA,
            errors=errors,
            description_placeholders={**server_flow.reauth_placeholders(entry), **placeholders},
        )

    # Helpers ----------------------------------------------------------------------------------

    def _reconfigure_entry(self) -> ConfigEntry | None:
        return self._get_reconfigure_entry() if self.source == SOURCE_RECONFIGURE else None

    def _retry_input(self, step_id: str) -> dict[str, Any]:
        """Return what a download form suggests: the earlier choice when it is tried again."""
        if self._origin == step_id and self._origin_input is not None:
            return self._origin_input
        return model_flow.ORIGIN_SUGGESTED[step_id]

    def _show_menu(self, step_id: str) -> ConfigFlowResult:
        return self.async_show_menu(
            step_id=step_id,
            menu_options=model_flow.MODEL_MENU,
            description_placeholders=self._placeholders(),
        )

    def _placeholders(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return {"models_dir": str(models_dir(self.hass.config.config_dir)), **(extra or {})}

    def _show_origin(
        self,
        step_id: str,
        user_input: dict[str, Any] | None,
        key: str | None = None,
        placeholders: dict[str, str] | None = None,
    ) -> ConfigFlowResult:
        """Show the form a file is chosen in (again), with an error about that file."""
        return self.async_show_form(
            step_id=step_id,
            data_schema=self.add_suggested_values_to_schema(
                model_flow.ORIGIN_SCHEMAS[step_id], user_input
            ),
            errors={"base": key} if key is not None else None,
            description_placeholders=self._placeholders(placeholders),
        )

    async def _async_prepare(
        self, origin: str, user_input: dict[str, Any], source: ModelSource
    ) -> ConfigFlowResult:
        self._origin, self._origin_input = origin, user_input
        try:
            self._prepared = await async_prepare(self.hass, source)
        except ModelStoreError as err:
            if model_flow.is_unreachable(err):
                # Offline, the form alone would be a dead end: the menu offers a file instead.
                return await self.async_step_hub_unreachable(error=err)
            return self._show_origin(origin, user_input, err.key, err.placeholders)
        # Never download a file that an entry already uses: the user chooses another.
        if await self._async_taken(str(self._prepared.target)):
            return self._show_origin(origin, user_input, "already_configured")
        return await self.async_step_confirm_download()

    async def _async_finish(self, path: Path, data: dict[str, Any], title: str) -> ConfigFlowResult:
        """Check the file is not set up twice, then check and load it (progress steps)."""
        if await self._async_taken(str(path)):
            # A slip of the path, most likely: the form stays, with the path to correct.
            return self._show_origin(self._origin, self._origin_input, "already_configured")
        if self._origin != "catalog":
            # A catalog model has its own name; any other is named by its file's metadata.
            title = await self.hass.async_add_executor_job(model_flow.file_title, path)
        entry = self._reconfigure_entry()
        options = dict(entry.options) if entry is not None else {}
        self._model_load = model_flow.ModelLoad(self.hass, path, data, title, options)
        return await self.async_step_check_model()

    async def _async_finish_server(self, settings: ServerSettings) -> ConfigFlowResult:
        """Create (or change) the entry for the checked model on a server."""
        unique_id = server_flow.server_unique_id(settings)
        if await self._async_taken(unique_id):
            return self.async_abort(reason="server_already_configured")
        return self._create_or_update(
            unique_id,
            server_title(settings),
            server_flow.server_entry_data(settings),
            {CONF_MAX_CONCURRENT: settings.max_concurrent},
        )

    async def _async_taken(self, unique_id: str) -> bool:
        """Say whether another entry has this unique id; if not, this flow takes it."""
        entry = self._reconfigure_entry()
        if any(
            other.unique_id == unique_id and (entry is None or other.entry_id != entry.entry_id)
            for other in self._async_current_entries(include_ignore=False)
        ):
            return True
        if entry is None:
            await self.async_set_unique_id(unique_id)
        return False

    def _create_or_update(
        self,
        unique_id: str,
        title: str,
        data: dict[str, Any],
        options: dict[str, Any] | None = None,
    ) -> ConfigFlowResult:
        """Create the entry with its first agent, or change the reconfigured one and reload it."""
        if (entry := self._reconfigure_entry()) is not None:
            return self.async_update_reload_and_abort(
                entry,
                unique_id=unique_id,
                title=title,
                data=data,
                options={**entry.options, **(options or {})},
                reason="reconfigure_successful",  # ours, in seven languages; core's is English
            )
        return self.async_create_entry(
            title=title, data=data, options=options, subentries=self.initial_subentries(title)
        )
