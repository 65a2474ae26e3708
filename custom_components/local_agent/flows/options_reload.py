"""Options of a model entry that the dialog saves and reloads while it says so.

A model entry's options (context size, threads, a server's timeouts) take effect when the entry
reloads, which loads the model again: seconds on a small machine. Instead of saying "saved" and
reloading unseen, the dialog shows a progress step while it saves and reloads, then says whether
the model came back.
"""

from __future__ import annotations

import asyncio
from typing import Any

from homeassistant.config_entries import ConfigEntryState
from homeassistant.config_entries import ConfigFlowResult
from homeassistant.config_entries import OptionsFlow

from .progress import async_progress_step

RELOAD_STEP = "reload"


class ReloadingOptionsFlow(OptionsFlow):
    """An options flow whose save is a visible reload of the entry."""

    _new_options: dict[str, Any] | None = None
    _reload: asyncio.Task[bool] | None = None

    async def async_save_options(self, options: dict[str, Any]) -> ConfigFlowResult:
        """Save these options and reload the entry, showing it in the dialog."""
        self._new_options = options
        self._reload = self.hass.async_create_task(
            self._async_save_and_reload(options), f"reload {self.config_entry.title}"
        )
        return await self.async_step_reload()

    async def async_step_reload(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Reload the entry with the new options while the dialog says so."""
        assert self._reload is not None
        return await async_progress_step(
            self,
            RELOAD_STEP,
            self._reload,
            {"title": self.config_entry.title},
            next_step_id="reloaded",
        )

    async def async_step_reloaded(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Close the dialog: saved and loaded, or saved and not loaded (with the reason)."""
        assert self._new_options is not None
        entry = self.config_entry
        if entry.state is not ConfigEntryState.LOADED:
            return self.async_abort(
                reason="reload_failed", description_placeholders={"reason": entry.reason or "?"}
            )
        # The options are saved already: finishing with the same ones changes nothing more.
        return self.async_create_entry(data=self._new_options)

    async def _async_save_and_reload(self, options: dict[str, Any]) -> bool:
        entry = self.config_entry
        self.hass.config_entries.async_update_entry(entry, options=options)
        return await self.hass.config_entries.async_reload(entry.entry_id)
