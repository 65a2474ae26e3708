"""A flow's progress steps: shown for tasks that take a while, skipped for those that do not."""

from __future__ import annotations

import asyncio
from typing import Any

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
