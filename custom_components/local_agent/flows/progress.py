"""A flow's progress steps: shown for tasks that take a while, skipped for those that do not."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from custom_components.local_agent.models.download import DownloadJob
from custom_components.local_agent.models.download import PreparedDownload
from homeassistant.core import callback
from homeassistant.data_entry_flow import FlowHandler
from homeassistant.data_entry_flow import FlowResult

# How long a step waits for its task before it shows a progress step instead.
PROGRESS_GRACE = 1.0


async def async_finished_soon(task: asyncio.Task[Any]) -> bool:
    """Give a flow's task a moment; say whether it finished (then no progress step is shown).

    The frontend listens for a flow's progress only once it shows a progress step: a task that
    finishes before that (a check remembered from before, a stand-in engine) would leave the
    dialog spinning for good.
    """
    await asyncio.wait({task}, timeout=PROGRESS_GRACE)
    return task.done()


def show_progress[R: FlowResult[Any, Any]](
    flow: FlowHandler[Any, R, Any],
    step_id: str,
    task: asyncio.Task[Any],
    placeholders: Mapping[str, str],
    *,
    action: str | None = None,
) -> R:
    """Show a step's progress while its task runs.

    Its action (the text it shows) is named as the step unless `action` names another.
    """
    return flow.async_show_progress(
        step_id=step_id,
        progress_action=action or step_id,
        progress_task=task,
        description_placeholders=placeholders,
    )


async def async_progress_step[R: FlowResult[Any, Any]](
    flow: FlowHandler[Any, R, Any],
    step_id: str,
    task: asyncio.Task[Any],
    placeholders: Mapping[str, str],
    next_step_id: str,
) -> R:
    """Show a step's progress while its task runs (after a moment's grace), then go on."""
    if not await async_finished_soon(task):
        return show_progress(flow, step_id, task, placeholders)
    return flow.async_show_progress_done(next_step_id=next_step_id)


class DownloadStep[R: FlowResult[Any, Any]](FlowHandler[Any, R, Any]):
    """The `download` step of a flow that downloads a model file (the config flow, the repair).

    The flow prepares the download (`_prepared`) and has the steps it goes on to:
    `download_finished` and `download_failed`.
    """

    _prepared: PreparedDownload | None = None
    _job: DownloadJob | None = None

    async def async_step_download(self, user_input: dict[str, Any] | None = None) -> R:
        """Download with a progress bar; the flow moves on when the task ends."""
        assert self._prepared is not None
        if self._job is None:
            self._job = DownloadJob(self.hass, self._prepared, self.async_update_progress)
        if not self._job.done:
            return show_progress(self, "download", self._job.task, self._prepared.placeholders())
        next_step = "download_finished" if self._job.path is not None else "download_failed"
        return self.async_show_progress_done(next_step_id=next_step)

    @callback
    def async_remove(self) -> None:
        """Stop a running download when the dialog closes (the part is kept)."""
        if self._job is not None and not self._job.done:
            self._job.cancel()
