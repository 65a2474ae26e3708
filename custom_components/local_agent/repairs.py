"""Fix flows of the repair issues raised in runtime/issues.py.

* ``model_file_<entry>`` (file removed, damaged, not loadable): download it again (entries made
  from the Hub remember repo and file) or choose another local file. The entry reloads; the
  issue is deleted when it loads.
* ``runtime_missing``: install the llama-cpp-python wheel that fits this machine (the offline
  folder's, else the published one), then reload the entries that failed (flows/runtime.py).
* ``prefer_local_intents``: turn "Prefer handling commands locally" off in the pipelines that
  bypass an agent's confirmations, or keep it on knowingly (safety/local_intents.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import probatio

from homeassistant.components.repairs import ConfirmRepairFlow
from homeassistant.components.repairs import RepairsFlow
from homeassistant.components.repairs import RepairsFlowResult
from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant

from .const import CONF_MODEL_PATH
from .const import DOMAIN
from .flows.model import LOCAL_FILE_SCHEMA
from .flows.model import inspect_path
from .flows.progress import DownloadStep
from .flows.runtime import RuntimeInstallJob
from .flows.runtime import async_runtime_installed
from .flows.runtime import runtime_placeholders
from .models.download import async_prepare
from .models.download import source_from_data
from .models.file_checks import ModelFileProblem
from .models.runtime_package import RuntimeWheel
from .models.runtime_package import async_find_runtime
from .models.runtime_package import machine_description
from .models.runtime_package import offline_folder
from .models.store import ModelStoreError
from .models.store import models_dir
from .runtime.issues import MODEL_ISSUE_PREFIX
from .runtime.issues import PREFER_LOCAL_ISSUE
from .runtime.issues import RUNTIME_ISSUE
from .safety import local_intents


async def async_create_fix_flow(
    hass: HomeAssistant, issue_id: str, data: dict[str, str | int | float | None] | None
) -> RepairsFlow:
    """Return the flow that fixes this issue."""
    if issue_id == RUNTIME_ISSUE:
        return RuntimeInstallFlow()
    if issue_id == PREFER_LOCAL_ISSUE:
        return PreferLocalRepairFlow()
    if issue_id.startswith(MODEL_ISSUE_PREFIX) and data and isinstance(data.get("entry_id"), str):
        problem = data.get("problem")
        return ModelFileRepairFlow(
            str(data["entry_id"]),
            str(data.get("error") or "?"),
            ModelFileProblem(problem)
            if isinstance(problem, str) and problem in KNOWN_PROBLEMS
            else None,
        )
    return ConfirmRepairFlow()


KNOWN_PROBLEMS: frozenset[str] = frozenset(problem.value for problem in ModelFileProblem)
REDOWNLOAD_PLACEHOLDERS = ("repo_id", "filename", "size", "ram", "free", "error")


class ModelFileRepairFlow(DownloadStep[RepairsFlowResult], RepairsFlow):
    """Replace a missing or unusable model file: download it again, or choose another one."""

    def __init__(
        self, entry_id: str, error: str = "?", problem: ModelFileProblem | None = None
    ) -> None:
        """Fix the model of this entry, which cannot be used because of `error`.

        `problem`: what the file check found (then `error` is the path), said in the dialog's
        language as the file form's error until another path is given.
        """
        self._entry_id = entry_id
        self._error = error
        self._problem = problem

    def _entry(self) -> ConfigEntry | None:
        return self.hass.config_entries.async_get_entry(self._entry_id)

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> RepairsFlowResult:
        """Offer a new download when the entry came from the Hub, else a local file."""
        entry = self._entry()
        if entry is None:
            return self.async_abort(reason="entry_removed")
        if source_from_data(dict(entry.data)) is None:
            return await self.async_step_local_file()
        return self.async_show_menu(
            step_id="init",
            menu_options=["redownload", "local_file"],
            description_placeholders={"title": entry.title, "error": self._error},
        )

    async def async_step_redownload(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Check the Hub and the disk, show the size, then download on confirmation."""
        entry = self._entry()
        source = source_from_data(dict(entry.data)) if entry else None
        if source is None:
            return self.async_abort(reason="entry_removed")
        try:
            self._prepared = await async_prepare(self.hass, source)
        except ModelStoreError as err:
            return self._redownload_form(err)
        if user_input is not None:
            return await self.async_step_download()
        return self._redownload_form()

    def _redownload_form(self, error: ModelStoreError | None = None) -> RepairsFlowResult:
        entry = self._entry()
        source = source_from_data(dict(entry.data)) if entry else None
        placeholders = dict.fromkeys(REDOWNLOAD_PLACEHOLDERS, "?")
        if source is not None:
            placeholders |= {"repo_id": source.repo_id, "filename": source.filename}
        if self._prepared is not None and error is None:
            placeholders |= self._prepared.placeholders()
        if error is not None:
            placeholders |= error.placeholders
        return self.async_show_form(
            step_id="redownload",
            data_schema=probatio.Schema({}),
            errors={"base": error.key} if error is not None else None,
            description_placeholders=placeholders,
        )

    async def async_step_download_failed(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Back to the confirmation, with the reason (submitting tries again)."""
        job, self._job = self._job, None
        return self._redownload_form((job.error if job is not None else None) or ModelStoreError())

    async def async_step_download_finished(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Point the entry at the fresh file and reload it."""
        assert self._prepared is not None
        self._job = None
        return await self._async_use(self._prepared.target, self._prepared.entry_data())

    async def async_step_local_file(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Use another GGUF file on this machine."""
        errors: dict[str, str] = {}
        if user_input is None and self._problem is not None:
            errors["base"] = self._problem.value  # why the current file cannot be used
        if user_input is not None:
            resolved, problem = await self.hass.async_add_executor_job(
                inspect_path, user_input[CONF_MODEL_PATH]
            )
            if problem is not None:
                errors[CONF_MODEL_PATH] = problem.value
            elif self._taken_by_another_entry(resolved):
                # The user may have meant another file: let them correct the path.
                errors[CONF_MODEL_PATH] = "already_configured"
            else:
                return await self._async_use(resolved, {CONF_MODEL_PATH: str(resolved)})
        # The entry's own path to start from: a file that is back (a disk mounted again, a
        # copy restored) needs only a submit, and a path is corrected rather than retyped.
        entry = self._entry()
        suggested = user_input or (
            {CONF_MODEL_PATH: entry.data[CONF_MODEL_PATH]}
            if entry is not None and entry.data.get(CONF_MODEL_PATH)
            else None
        )
        return self.async_show_form(
            step_id="local_file",
            data_schema=self.add_suggested_values_to_schema(LOCAL_FILE_SCHEMA, suggested),
            errors=errors,
            description_placeholders={
                "error": self._error,
                "models_dir": str(models_dir(self.hass.config.config_dir)),
            },
        )

    def _taken_by_another_entry(self, path: Path) -> bool:
        return any(
            other.unique_id == str(path) and other.entry_id != self._entry_id
            for other in self.hass.config_entries.async_entries(DOMAIN)
        )

    async def _async_use(self, path: Path, data: dict[str, Any]) -> RepairsFlowResult:
        entry = self._entry()
        if entry is None:
            return self.async_abort(reason="entry_removed")
        if self._taken_by_another_entry(path):
            return self.async_abort(reason="already_configured")
        self.hass.config_entries.async_update_entry(entry, data=data, unique_id=str(path))
        await self.hass.config_entries.async_reload(entry.entry_id)
        if entry.state is not ConfigEntryState.LOADED:
            # Setup raised a new issue with the new reason: keep it (an abort deletes nothing).
            return self.async_abort(
                reason="still_failing", description_placeholders={"reason": entry.reason or "?"}
            )
        return self.async_create_entry(data={})


class RuntimeInstallFlow(RepairsFlow):
    """Install the llama-cpp-python wheel that fits this machine."""

    def __init__(self) -> None:
        """Nothing chosen yet."""
        self._wheel: RuntimeWheel | None = None
        self._job: RuntimeInstallJob | None = None

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> RepairsFlowResult:
        """Start with the confirmation (the repairs manager passes the issue id as input)."""
        return await self.async_step_confirm()

    async def async_step_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Show which wheel will be installed and its size; install on confirmation."""
        if self._wheel is None:
            self._wheel = await async_find_runtime(self.hass)
        if self._wheel is None:
            machine = await self.hass.async_add_executor_job(machine_description)
            return self.async_abort(
                reason="no_wheel",
                description_placeholders={"machine": machine, **self._folder()},
            )
        if user_input is not None:
            return await self.async_step_install()
        return self.async_show_form(
            step_id="confirm",
            data_schema=probatio.Schema({}),
            description_placeholders=runtime_placeholders(self.hass, self._wheel),
        )

    async def async_step_install(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Run the installer (progress spinner), then reload the failed entries."""
        assert self._wheel is not None
        if self._job is None:
            self._job = RuntimeInstallJob(self.hass, self._wheel)
        if not self._job.done:
            return self._job.progress(self, "install")
        return self.async_show_progress_done(next_step_id="finish")

    async def async_step_finish(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Reload what failed for want of the runtime, or explain the failure."""
        assert self._wheel is not None
        assert self._job is not None
        if not self._job.installed:
            return self.async_abort(
                reason="install_failed",
                description_placeholders=runtime_placeholders(self.hass, self._wheel),
            )
        async_runtime_installed(self.hass)
        return self.async_create_entry(data={})

    def _folder(self) -> dict[str, str]:
        return {"folder": str(offline_folder(self.hass.config.config_dir))}


class PreferLocalRepairFlow(RepairsFlow):
    """Turn "Prefer handling commands locally" off where it bypasses confirmations, or keep it."""

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> RepairsFlowResult:
        """Offer both choices, naming the pipelines and entities again."""
        return self.async_show_menu(
            step_id="init",
            menu_options=["turn_off", "keep_on"],
            description_placeholders=local_intents.issue_placeholders(self.hass),
        )

    async def async_step_turn_off(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Switch the option off in those pipelines: every sentence then reaches the agent."""
        watch = await local_intents.async_watch(self.hass)
        await watch.async_turn_off()
        return self.async_create_entry(data={})

    async def async_step_keep_on(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Keep the option on knowingly: the issue stays away until it is turned off and on."""
        watch = await local_intents.async_watch(self.hass)
        watch.async_keep_on()
        return self.async_create_entry(data={})
