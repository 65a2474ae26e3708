"""A flow's progress steps: shown for tasks that take a while, skipped for those that do not."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any
import weakref

from custom_components.local_agent.models.download import DownloadJob
from custom_components.local_agent.models.download import PreparedDownload
from homeassistant.core import callback
from homeassistant.data_entry_flow import FlowHandler
from homeassistant.data_entry_flow import FlowResult

# How long a step waits for its task before it shows a progress step instead.
PROGRESS_GRACE = 1.0
# How long a progress step stays up at least. The frontend starts listening for the step's end
# only once it has the progress step; a task that ended in between would leave it spinning.
PROGRESS_SHOWN_AT_LEAST = 3.0
# The task Home Assistant watches for each task a step shows (the same one on every call).
_WATCHED: weakref.WeakKeyDictionary[asyncio.Task[Any], asyncio.Task[None]] = (
    weakref.WeakKeyDictionary()
)


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
    watched = _WATCHED.get(task)
    if watched is None:
        watched = _WATCHED[task] = flow.hass.async_create_task(
            _async_shown_for_a_while(task), f"progress of {step_id}"
        )
    return flow.async_show_progress(
        step_id=step_id,
        progress_action=action or step_id,
        progress_task=watched,
        description_placeholders=placeholders,
    )


async def _async_shown_for_a_while(task: asyncio.Task[Any]) -> None:
    """End with the task, but no sooner than PROGRESS_SHOWN_AT_LEAST after the step showed.

    Cancelled (the dialog was closed), it cancels the task, as Home Assistant does with the
    task of a progress step.
    """
    loop = asyncio.get_running_loop()
    until = loop.time() + PROGRESS_SHOWN_AT_LEAST
    try:
        await asyncio.wait({task})
        await asyncio.sleep(max(0.0, until - loop.time()))
    except asyncio.CancelledError:
        task.cancel()
        raise


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
