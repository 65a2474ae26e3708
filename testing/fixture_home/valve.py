"""Valves: water and gas."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.valve.const import ValveEntityFeature
from homeassistant.components.valve.entity import ValveEntity
from testing.fixture_home.entity import FixtureEntity, setup_domain, whole


class FixtureValve(FixtureEntity, ValveEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A valve that moves at once; with a position when the fixture gives one."""

    HANDLED = frozenset({"current_position"})
    STATES = frozenset({"open", "closed", "opening", "closing"})
    RESTING = "closed"
    MOMENTARY = frozenset({"opening", "closing"})

    @classmethod
    def features_type(cls) -> Any:
        """Valve features."""
        return ValveEntityFeature

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Open/close/stop; a position when the fixture has one."""
        self._attr_reports_position = "current_position" in attributes
        features = ValveEntityFeature.OPEN | ValveEntityFeature.CLOSE | ValveEntityFeature.STOP
        if self._attr_reports_position:
            features |= ValveEntityFeature.SET_POSITION
        self._attr_supported_features = features

    def features_changed(self, features: int) -> None:
        """A position declared only in supported_features."""
        self._attr_reports_position = bool(features & ValveEntityFeature.SET_POSITION)

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """Open, closed, opening or closing, and the position."""
        position = whole(attributes.get("current_position"))
        if self._attr_reports_position and position is None:
            position = 0 if state == "closed" else 100
        self._attr_current_valve_position = position
        self._attr_is_closed = state == "closed"
        self._attr_is_opening = state == "opening"
        self._attr_is_closing = state == "closing"

    def _move(self, position: int) -> None:
        if self._attr_reports_position:
            self._attr_current_valve_position = position
        self._attr_is_closed = position == 0
        self._attr_is_opening = self._attr_is_closing = False
        self.changed()

    async def async_open_valve(self) -> None:
        """Open fully."""
        self._move(100)

    async def async_close_valve(self) -> None:
        """Close fully."""
        self._move(0)

    async def async_set_valve_position(self, position: int) -> None:
        """Move to the position asked."""
        self._move(position)

    async def async_stop_valve(self) -> None:
        """Stop where it is."""
        self._attr_is_opening = self._attr_is_closing = False
        self.changed()


async_setup_entry = setup_domain("valve", FixtureValve)
