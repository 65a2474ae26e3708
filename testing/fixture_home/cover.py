"""Covers: blinds, shutters, curtains, windows, garage doors and gates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.cover import ATTR_POSITION
from homeassistant.components.cover import ATTR_TILT_POSITION
from homeassistant.components.cover import CoverEntity
from homeassistant.components.cover import CoverEntityFeature
from testing.fixture_home.entity import setup_domain
from testing.fixture_home.entity import whole
from testing.fixture_home.opening import FixtureOpening


class FixtureCover(FixtureOpening, CoverEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A cover that moves at once; with a position when the fixture gives one."""

    HANDLED = frozenset({"current_position", "current_tilt_position"})

    @classmethod
    def features_type(cls) -> Any:
        """Cover features."""
        return CoverEntityFeature

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Open/close/stop; position and tilt when the fixture has them."""
        features = CoverEntityFeature.OPEN | CoverEntityFeature.CLOSE | CoverEntityFeature.STOP
        if "current_position" in attributes:
            features |= CoverEntityFeature.SET_POSITION
        if "current_tilt_position" in attributes:
            features |= (
                CoverEntityFeature.OPEN_TILT
                | CoverEntityFeature.CLOSE_TILT
                | CoverEntityFeature.STOP_TILT
                | CoverEntityFeature.SET_TILT_POSITION
            )
        self._attr_supported_features = features
        self._has_position = "current_position" in attributes

    def features_changed(self, features: int) -> None:
        """A position declared only in supported_features."""
        self._has_position = bool(features & CoverEntityFeature.SET_POSITION)

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """Open, closed, opening or closing, and the positions."""
        position = self.load_motion(state, attributes)
        self._attr_current_cover_position = position if self._has_position else None
        self._attr_current_cover_tilt_position = whole(attributes.get("current_tilt_position"))

    def has_position(self) -> bool:
        """A position from the fixture's attributes or its supported_features."""
        return self._has_position

    def show_position(self, position: int) -> None:
        """The cover's position."""
        self._attr_current_cover_position = position

    async def async_open_cover(self, **kwargs: Any) -> None:
        """Open fully."""
        self.move(100)

    async def async_close_cover(self, **kwargs: Any) -> None:
        """Close fully."""
        self.move(0)

    async def async_set_cover_position(self, **kwargs: Any) -> None:
        """Move to the position asked."""
        self.move(int(kwargs[ATTR_POSITION]))

    async def async_stop_cover(self, **kwargs: Any) -> None:
        """Stop where it is."""
        self.stop()

    async def async_open_cover_tilt(self, **kwargs: Any) -> None:
        """Tilt open."""
        self._attr_current_cover_tilt_position = 100
        self.changed()

    async def async_close_cover_tilt(self, **kwargs: Any) -> None:
        """Tilt closed."""
        self._attr_current_cover_tilt_position = 0
        self.changed()

    async def async_set_cover_tilt_position(self, **kwargs: Any) -> None:
        """Tilt to the position asked."""
        self._attr_current_cover_tilt_position = int(kwargs[ATTR_TILT_POSITION])
        self.changed()

    async def async_stop_cover_tilt(self, **kwargs: Any) -> None:
        """Nothing moves for long enough to stop."""
        self.changed()


async_setup_entry = setup_domain("cover", FixtureCover)
