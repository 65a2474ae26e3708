"""Door locks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.lock import LockEntity

from .entity import SyntheticEntity, setup_domain


class SyntheticLock(SyntheticEntity, LockEntity):
    """A lock that locks and unlocks at once."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        """Start locked."""
        super().__init__(spec)
        self._attr_is_locked = True

    async def async_lock(self, **kwargs: Any) -> None:
        """Lock."""
        self._attr_is_locked = True
        self.changed()

    async def async_unlock(self, **kwargs: Any) -> None:
        """Unlock."""
        self._attr_is_locked = False
        self.changed()


async_setup_entry = setup_domain("lock", SyntheticLock)
