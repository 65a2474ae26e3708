"""What covers and valves share: open, closed, opening or closing, and a move made at once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import whole


class FixtureOpening(FixtureEntity):
    """Opens and closes at once; with a position when the fixture gives one (`has_position`)."""

    STATES = frozenset({"open", "closed", "opening", "closing"})
    RESTING = "closed"
    MOMENTARY = frozenset({"opening", "closing"})

    _attr_is_closed: bool | None
    _attr_is_opening: bool | None
    _attr_is_closing: bool | None

    def has_position(self) -> bool:
        """Whether the entity reports a position."""
        raise NotImplementedError

    def show_position(self, position: int) -> None:
        """Set the position the entity reports."""
        raise NotImplementedError

    def load_motion(self, state: str, attributes: Mapping[str, Any]) -> int | None:
        """Take open, closed, opening or closing; return the fixture's position, if any.

        An entity with a position that the fixture leaves out is fully closed or fully open.
        """
        position = whole(attributes.get("current_position"))
        if self.has_position() and position is None:
            position = 0 if state == "closed" else 100
        self._attr_is_closed = state == "closed"
        self._attr_is_opening = state == "opening"
        self._attr_is_closing = state == "closing"
        return position

    def move(self, position: int) -> None:
        """Go to position (0: closed) at once."""
        if self.has_position():
            self.show_position(position)
        self._attr_is_closed = position == 0
        self.stop()

    def stop(self) -> None:
        """Stop where it is (it never moves for long)."""
        self._attr_is_opening = self._attr_is_closing = False
        self.changed()
