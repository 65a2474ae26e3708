"""Covers: blinds, shutters, windows and garage doors, with a position."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.cover import ATTR_POSITION, CoverEntity, CoverEntityFeature

from .entity import SyntheticEntity, setup_domain


class SyntheticCover(SyntheticEntity, CoverEntity):
    """A cover that moves to a position at once."""

    _attr_supported_features = (
        CoverEntityFeature.OPEN
        | CoverEntityFeature.CLOSE
        | CoverEntityFeature.STOP
        | CoverEntityFeature.SET_POSITION
    )

    def __init__(self, spec: Mapping[str, Any]) -> None:
        """Start open or closed by index."""
        super().__init__(spec)
        self._attr_current_cover_position = 100 if self.index % 2 == 0 else 0

    @property
    def is_closed(self) -> bool:
        """Closed at position 0."""
        return self._attr_current_cover_position == 0

    def _move(self, position: int) -> None:
        self._attr_current_cover_position = position
        self.changed()

    async def async_open_cover(self, **kwargs: Any) -> None:
        """Open fully."""
        self._move(100)

    async def async_close_cover(self, **kwargs: Any) -> None:
        """Close fully."""
        self._move(0)

    async def async_set_cover_position(self, **kwargs: Any) -> None:
        """Move to the position asked."""
        self._move(int(kwargs[ATTR_POSITION]))

    async def async_stop_cover(self, **kwargs: Any) -> None:
        """Nothing moves for long enough to stop."""


async_setup_entry = setup_domain("cover", SyntheticCover)
