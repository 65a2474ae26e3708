"""Which product files a call's path crosses: every function start, by file, with its caller.

Only what runs under one of the `roots` (functions where the path starts) is recorded, so the
prompt and the model of a turn stay out of a call's path.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
import sys
from types import CodeType
from types import FrameType
from typing import Any

PACKAGE = Path(__file__).resolve().parents[2] / "custom_components" / "local_agent"
_TOOL_ID = 4  # a sys.monitoring id of its own ("a profiler"), free in the test process


def product_file(code: CodeType | None) -> str | None:
    """The file of a code object, relative to the integration; None outside it."""
    if code is None or not code.co_filename.startswith(str(PACKAGE)):
        return None
    return str(Path(code.co_filename).relative_to(PACKAGE))


def _fires_an_event(code: CodeType) -> bool:
    """Whether this is Home Assistant's event bus handing an event to its listeners."""
    return code.co_name == "async_fire_internal" and code.co_filename.endswith(
        "homeassistant/core.py"
    )


@dataclass
class CallPath:
    """The product files entered, in order of first entry, who called whom, and re-entries.

    A file is entered from below when one of its functions starts while the file is already
    on the call stack beneath the caller: it handed work down and the work came back up.
    """

    roots: frozenset[CodeType]
    files: list[str] = field(default_factory=list)
    calls: dict[str, set[str]] = field(default_factory=dict)
    from_below: list[tuple[str, str]] = field(default_factory=list)

    def started(self, frame: FrameType) -> None:
        callee = product_file(frame.f_code)
        if callee is None:
            return
        stack: list[str] = []
        rooted = frame.f_code in self.roots
        below = frame.f_back
        while below is not None:
            if not rooted and _fires_an_event(below.f_code):
                return  # a listener the call's state change woke up, not the call's own path
            rooted = rooted or below.f_code in self.roots
            if (name := product_file(below.f_code)) is not None:
                stack.append(name)
            below = below.f_back
        if not rooted:
            return
        if callee not in self.files:
            self.files.append(callee)
        caller = stack[0] if stack else None
        if caller is None or caller == callee:
            return
        self.calls.setdefault(caller, set()).add(callee)
        if callee in stack[1:]:
            self.from_below.append((caller, callee))

    @property
    def main_line(self) -> list[str]:
        """The files that hand the call on to another product file (the others are helpers)."""
        return [name for name in self.files if self.calls.get(name)]


@contextmanager
def traced(roots: Iterable[Callable[..., Any]]) -> Iterator[CallPath]:
    """Record every product function started in this thread under one of `roots`."""
    path = CallPath(frozenset(root.__code__ for root in roots))
    monitoring = sys.monitoring

    def on_start(code: CodeType, _offset: int) -> Any:
        frame = sys._getframe(1)
        if frame.f_code is code:
            path.started(frame)

    monitoring.use_tool_id(_TOOL_ID, "call_path")
    try:
        monitoring.register_callback(_TOOL_ID, monitoring.events.PY_START, on_start)
        monitoring.set_events(_TOOL_ID, monitoring.events.PY_START)
        yield path
    finally:
        monitoring.set_events(_TOOL_ID, 0)
        monitoring.register_callback(_TOOL_ID, monitoring.events.PY_START, None)
        monitoring.free_tool_id(_TOOL_ID)
