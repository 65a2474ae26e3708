"""Valves: water and gas."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.valve.const import ValveEntityFeature
from homeassistant.components.valve.entity import ValveEntity
from testing.fixture_home.entity import setup_domain
from testing.fixture_home.opening import FixtureOpening


class FixtureValve(FixtureOpening, ValveEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A valve that moves at once; with a position when the fixture gives one."""

    HANDLED = frozenset({"current_position"})

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
        self._attr_current_valve_position = self.load_motion(state, attributes)

    def has_position(self) -> bool:
        """Whether Home Assistant shows the valve's position."""
        return self._attr_reports_position

    def show_position(self, position: int) -> None:
        """The valve's position."""
        self._attr_current_valve_position = position

    async def async_open_valve(self) -> None:
        """Open fully."""
        self.move(100)

    async def async_close_valve(self) -> None:
        """Close fully."""
        self.move(0)

    async def async_set_valve_position(self, position: int) -> None:
        """Move to the position asked."""
        self.move(position)

    async def async_stop_valve(self) -> None:
        """Stop where it is."""
        self.stop()


async_setup_entry = setup_domain("valve", FixtureValve)
