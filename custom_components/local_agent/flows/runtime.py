"""Installing the runtime from a dialog: the first dialog of the config flow and the repair.

Both show the same offer (size, platform, where the wheel comes from), run the same
installation as a background task behind a progress step, and on success clear the
``runtime_missing`` issue and reload the entries that failed for want of it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import probatio

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import LOGGER
from custom_components.local_agent.models import runtime_package
from custom_components.local_agent.models.runtime_package import RuntimeWheel
from custom_components.local_agent.models.runtime_package import async_find_runtime
from custom_components.local_agent.models.runtime_package import async_install_runtime
from custom_components.local_agent.models.runtime_package import offline_folder
from custom_components.local_agent.runtime.issues import async_clear_runtime_issue
from homeassistant.config_entries import ConfigEntryState
from homeassistant.config_entries import ConfigFlow
from homeassistant.config_entries import ConfigFlowResult
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.data_entry_flow import FlowHandler
from homeassistant.data_entry_flow import FlowResult

from .progress import show_progress


def runtime_placeholders(hass: HomeAssistant, wheel: RuntimeWheel) -> dict[str, str]:
    """Return the placeholders the offer and its outcome show."""
    return {
        "wheel": wheel.described,
        "source": str(wheel.local_file) if wheel.local_file is not None else wheel.url,
        "folder": str(offline_folder(hass.config.config_dir)),
    }


class RuntimeInstallJob:
    """One installation of the runtime wheel, in the background, shown as a flow's progress."""

    def __init__(self, hass: HomeAssistant, wheel: RuntimeWheel) -> None:
        """Start installing."""
        self.wheel = wheel
        self.task: asyncio.Task[bool] = hass.async_create_background_task(
            async_install_runtime(hass, wheel), "local_agent install runtime"
        )

    @property
    def done(self) -> bool:
        """Return whether the installer has finished."""
        return self.task.done()

    def progress[R: FlowResult[Any, Any]](self, flow: FlowHandler[Any, R, Any], step_id: str) -> R:
        """Show the installation's progress in a flow's step (the config flow's or the repair's)."""
        return show_progress(
            flow,
            step_id,
            self.task,
            runtime_placeholders(flow.hass, self.wheel),
            action="install_runtime",
        )

    @property
    def installed(self) -> bool:
        """Return whether it finished with llama_cpp installed."""
        if not self.task.done() or self.task.cancelled():
            return False
        if (error := self.task.exception()) is not None:
            LOGGER.error("Installing %s failed: %s", self.wheel.url, error)
            return False
        return self.task.result()


@callback
def async_runtime_installed(hass: HomeAssistant) -> None:
    """Clear the issue and reload the entries that failed without the runtime."""
    async_clear_runtime_issue(hass)
    for entry in hass.config_entries.async_entries(DOMAIN):
        if entry.state is ConfigEntryState.SETUP_ERROR:
            hass.config_entries.async_schedule_reload(entry.entry_id)


class RuntimeOfferSteps(ConfigFlow):
    """The config flow's first dialog when the runtime is missing: install it now, or later.

    Mixed into the config flow, whose ``_show_menu("user")`` comes after the offer (a model
    on a server needs no runtime; a model file then fails with the repair issue until it is
    installed).
    """

    _runtime_wheel: RuntimeWheel | None = None
    _runtime_job: RuntimeInstallJob | None = None
    _runtime_failure_shown = False

    def _show_menu(self, step_id: str) -> ConfigFlowResult:
        raise NotImplementedError

    async def _async_runtime_offer(self) -> ConfigFlowResult | None:
        """Return the offer when llama_cpp is missing and a wheel fits, else None."""
        if await self.hass.async_add_executor_job(runtime_package.llama_cpp_version) is not None:
            return None
        self._runtime_wheel = await async_find_runtime(self.hass)
        if self._runtime_wheel is None:
            return None
        return self.async_show_menu(
            step_id="runtime",
            menu_options=["install_runtime", "runtime_later"],
            description_placeholders=runtime_placeholders(self.hass, self._runtime_wheel),
        )

    async def async_step_runtime(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Show the offer (again), or the model menu once the runtime is there."""
        return await self._async_runtime_offer() or self._show_menu("user")

    async def async_step_runtime_later(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Go on to the model, without the runtime or with it just installed.

        Without it, the repair issue offers it again; installed, this follows the progress.
        """
        return self._show_menu("user")

    async_step_runtime_installed = async_step_runtime_later

    async def async_step_install_runtime(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Install with progress, then the model menu (or why it failed)."""
        assert self._runtime_wheel is not None
        if self._runtime_job is None:
            self._runtime_job = RuntimeInstallJob(self.hass, self._runtime_wheel)
        if not self._runtime_job.done:
            return self._runtime_job.progress(self, "install_runtime")
        installed = self._runtime_job.installed
        if installed:
            async_runtime_installed(self.hass)
        return self.async_show_progress_done(
            next_step_id="runtime_installed" if installed else "runtime_failed"
        )

    async def async_step_runtime_failed(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Say that the installation failed; go on to the model when confirmed."""
        assert self._runtime_wheel is not None
        # Shown once before anything counts as its confirmation: Home Assistant may hand this
        # step the input of the step that led here when the installer finished at once.
        if not self._runtime_failure_shown:
            self._runtime_failure_shown = True
            return self.async_show_form(
                step_id="runtime_failed",
                data_schema=probatio.Schema({}),
                description_placeholders=runtime_placeholders(self.hass, self._runtime_wheel),
            )
        self._runtime_job = None
        return self._show_menu("user")
