"""Count the states a piece of code reads from Home Assistant's state machine.

Each `hass.states.get` is one state, each `async_all`/`async_entity_ids` as many as it
returned; a call that returned more than WALK_SIZE states is a walk, counted by the innermost
frame of our integration that made it (file:line). The wrapper patches the state machine's
class while inside, for benchmarks and tests only, never the product.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
import contextlib
from dataclasses import dataclass
from dataclasses import field
import traceback
from typing import Any
from typing import Final
from unittest.mock import patch

from homeassistant.core import State
from homeassistant.core import StateMachine

WALK_SIZE: Final = 50
PRODUCT: Final = "custom_components/local_agent/"


@dataclass(slots=True)
class StateReads:
    """States read from the state machine while counting, and where the walks were made."""

    count: int = 0
    walks: Counter[str] = field(default_factory=Counter)

    def read(self, states: int) -> None:
        self.count += states
        if states > WALK_SIZE:
            self.walks[_product_caller()] += states


def _product_caller() -> str:
    """The innermost frame of our integration on the stack (file:line), else "elsewhere"."""
    for frame in reversed(traceback.extract_stack(limit=30)):
        if PRODUCT in frame.filename:
            return f"{frame.filename.split(PRODUCT)[1]}:{frame.lineno}"
    return "elsewhere"


@contextlib.contextmanager
def counting_state_reads() -> Iterator[StateReads]:
    """Count the states read through hass.states while inside."""
    reads = StateReads()
    get, async_all, entity_ids = (
        StateMachine.get,
        StateMachine.async_all,
        StateMachine.async_entity_ids,
    )

    def counted_get(machine: StateMachine, entity_id: str) -> State | None:
        reads.read(1)
        return get(machine, entity_id)

    def counted_all(machine: StateMachine, *args: Any, **kwargs: Any) -> list[State]:
        found = async_all(machine, *args, **kwargs)
        reads.read(len(found))
        return found

    def counted_ids(machine: StateMachine, *args: Any, **kwargs: Any) -> list[str]:
        found = entity_ids(machine, *args, **kwargs)
        reads.read(len(found))
        return found

    with (
        patch.object(StateMachine, "get", counted_get),
        patch.object(StateMachine, "async_all", counted_all),
        patch.object(StateMachine, "async_entity_ids", counted_ids),
    ):
        yield reads
