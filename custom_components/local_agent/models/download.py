"""Model downloads inside Home Assistant flows: a background task, real progress, cancellation.

The config flow and the repair flow both use it: prepare() checks the Hub and the disk (a form
error on failure), start() runs the transfer in an executor thread while the flow shows a
progress step, and the outcome is a path or a ModelStoreError with a translation key.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
import threading
from typing import Any

from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import ESTIMATED_CONTEXT_SIZE
from custom_components.local_agent.const import LOGGER
from homeassistant.core import HomeAssistant

from .store import ModelSource
from .store import ModelStoreError
from .store import RemoteFile
from .store import check_disk_space
from .store import download
from .store import estimate_ram
from .store import fetch_remote_file
from .store import format_bytes
from .store import free_space
from .store import local_path
from .store import models_dir
from .store import partial_bytes

CONF_REPO_ID = "repo_id"
CONF_FILENAME = "filename"
CONF_REVISION = "revision"
# Progress events are sent when the fraction grew by at least this much.
PROGRESS_STEP = 0.01


@dataclass(frozen=True, slots=True)
class PreparedDownload:
    """A Hub file checked to exist and to fit on the disk."""

    remote: RemoteFile
    target: Path
    resumed_bytes: int
    free_bytes: int

    def placeholders(self) -> dict[str, str]:
        """Facts shown before the download starts."""
        return {
            "repo_id": self.remote.source.repo_id,
            "filename": self.remote.source.filename,
            "size": format_bytes(self.remote.size),
            "ram": format_bytes(estimate_ram(self.remote.size, ESTIMATED_CONTEXT_SIZE)),
            "free": format_bytes(self.free_bytes),
            "resumed": format_bytes(self.resumed_bytes),
            "path": str(self.target),
        }

    def entry_data(self) -> dict[str, Any]:
        """Return what a model entry stores about a downloaded file (to download it again)."""
        source = self.remote.source
        return {
            CONF_MODEL_PATH: str(self.target),
            CONF_REPO_ID: source.repo_id,
            CONF_FILENAME: source.filename,
            CONF_REVISION: source.revision,
        }


def source_from_data(data: dict[str, Any]) -> ModelSource | None:
    """Return the Hub source a model entry was downloaded from, if any."""
    if not data.get(CONF_REPO_ID) or not data.get(CONF_FILENAME):
        return None
    return ModelSource(
        repo_id=str(data[CONF_REPO_ID]),
        filename=str(data[CONF_FILENAME]),
        revision=str(data.get(CONF_REVISION) or "main"),
    )


def _prepare(config_dir: str, source: ModelSource) -> PreparedDownload:
    remote = fetch_remote_file(source)
    target = local_path(models_dir(config_dir), source)
    check_disk_space(target, remote)
    return PreparedDownload(
        remote=remote,
        target=target,
        resumed_bytes=partial_bytes(target, remote),
        free_bytes=free_space(target.parent),
    )


async def async_prepare(hass: HomeAssistant, source: ModelSource) -> PreparedDownload:
    """Ask the Hub about the file and check the disk; raise ModelStoreError otherwise."""
    try:
        return await hass.async_add_executor_job(_prepare, hass.config.config_dir, source)
    except ModelStoreError:
        raise
    except Exception as err:
        LOGGER.exception("Unexpected error while checking %s", source)
        raise ModelStoreError(str(err)) from err


class DownloadJob:
    """One download in an executor thread, reporting progress to the event loop."""

    def __init__(
        self,
        hass: HomeAssistant,
        prepared: PreparedDownload,
        on_progress: Callable[[float], None],
    ) -> None:
        """Start downloading now."""
        self._hass = hass
        self._prepared = prepared
        self._on_progress = on_progress
        self._cancel = threading.Event()
        self._reported = -1.0
        self.error: ModelStoreError | None = None
        self.task: asyncio.Task[Path | None] = hass.async_create_background_task(
            self._async_run(), f"local_agent download {prepared.remote.source.filename}"
        )

    def _progress(self, done: int, total: int) -> None:
        """Report progress; runs in the worker thread for every chunk."""
        fraction = done / total if total else 1.0
        if fraction - self._reported >= PROGRESS_STEP or (done == total and self._reported < 1):
            self._reported = fraction
            self._hass.loop.call_soon_threadsafe(self._on_progress, fraction)

    async def _async_run(self) -> Path | None:
        prepared = self._prepared
        job = partial(
            download,
            prepared.remote,
            prepared.target,
            progress=self._progress,
            cancel=self._cancel,
        )
        try:
            return await self._hass.async_add_executor_job(job)
        except ModelStoreError as err:
            self.error = err
        except asyncio.CancelledError:
            self._cancel.set()
            raise
        except Exception as err:
            LOGGER.exception("Unexpected error while downloading %s", prepared.remote.url)
            self.error = ModelStoreError(str(err))
        return None

    @property
    def done(self) -> bool:
        """Whether the download ended (successfully or not)."""
        return self.task.done()

    @property
    def path(self) -> Path | None:
        """The verified file, once the download succeeded."""
        if not self.task.done() or self.task.cancelled():
            return None
        return self.task.result()

    def cancel(self) -> None:
        """Stop the transfer (the part stays for a later resume)."""
        self._cancel.set()
        self.task.cancel()
