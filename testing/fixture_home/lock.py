"""Door locks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.lock import LockEntity
from homeassistant.components.lock.const import LockEntityFeature
from homeassistant.components.lock.const import LockState
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import moves_to
from testing.fixture_home.entity import setup_domain


class FixtureLock(FixtureEntity, LockEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A lock that locks, unlocks (and opens, with the OPEN feature) at once."""

    HANDLED = frozenset({"code_format", "changed_by"})
    STATES = frozenset(state.value for state in LockState)
    RESTING = LockState.LOCKED.value
    MOMENTARY = frozenset({"locking", "unlocking", "opening", "jammed"})

    @classmethod
    def features_type(cls) -> Any:
        """Lock features."""
        return LockEntityFeature

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """A code format, when the fixture requires a code."""
        self._attr_code_format = attributes.get("code_format")

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """Locked, unlocked, open, jammed, or on the way."""
        self._attr_is_locked = state == "locked"
        self._attr_is_open = state == "open"
        self._attr_is_jammed = state == "jammed"
        self._attr_is_locking = state == "locking"
        self._attr_is_unlocking = state == "unlocking"
        self._attr_is_opening = state == "opening"

    def _set(self, state: str) -> None:
        self.load_state(state, {})
        self.changed()

    async_lock = moves_to("locked", doc="Lock.")
    async_unlock = moves_to("unlocked", doc="Unlock.")
    async_open = moves_to("open", doc="Open the latch.")


async_setup_entry = setup_domain("lock", FixtureLock)
