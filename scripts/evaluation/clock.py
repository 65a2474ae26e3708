"""The home's clock: real time, or the fixed moment a test is asked at (`context_now`).

freezegun moves Python's clocks (datetime, time.time) to the moment and lets them tick on
from there; the event loop keeps its own monotonic clock, so Home Assistant's timers and
waits run as usual. Starting freezegun walks every loaded module (about half a second), so
one freeze serves a run of fixed-time tests and only moves between them.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from typing import Final

from freezegun import freeze_time

# Etc/GMT zones name whole hours, their sign reversed (Etc/GMT-10 is UTC+10).
_MAX_OFFSET_HOURS: Final = 14


def offset_time_zone(moment: dt.datetime) -> str | None:
    """The time zone of a moment's UTC offset, as Home Assistant takes one (None: none fits)."""
    offset = moment.utcoffset()
    if offset is None:
        return None
    hours, rest = divmod(offset, dt.timedelta(hours=1))
    if rest or abs(hours) > _MAX_OFFSET_HOURS:
        return None
    return "Etc/UTC" if hours == 0 else f"Etc/GMT{-hours:+d}"


class HomeClock:
    """Set before each sentence: the test's moment, or None for the real time."""

    def __init__(self) -> None:
        """Start at the real time."""
        self._freezer: Any = None
        self._frozen: Any = None

    def at(self, moment: dt.datetime | None) -> None:
        """Run the clock from moment on (None: the real time)."""
        if moment is None:
            self.release()
        elif self._freezer is None:
            self._freezer = freeze_time(moment, tick=True, real_asyncio=True)
            self._frozen = self._freezer.start()
        else:
            self._frozen.move_to(moment)

    def release(self) -> None:
        """Back to the real time."""
        if self._freezer is not None:
            self._freezer.stop()
            self._freezer = self._frozen = None
