"""Fans: speed, oscillation, direction and presets as the fixture says."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.fan import FanEntity
from homeassistant.components.fan.const import FanEntityFeature
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import number
from testing.fixture_home.entity import setup_domain
from testing.fixture_home.entity import text_list
from testing.fixture_home.entity import whole


class FixtureFan(FixtureEntity, FanEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A fan; on at any speed above zero when it has speeds."""

    STATES = frozenset({"on", "off"})
    HANDLED = frozenset(
        {"percentage", "percentage_step", "oscillating", "direction", "preset_mode", "preset_modes"}
    )

    @classmethod
    def features_type(cls) -> Any:
        """Fan features."""
        return FanEntityFeature

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Speeds, oscillation, direction and presets when the fixture has them."""
        features = FanEntityFeature.TURN_ON | FanEntityFeature.TURN_OFF
        self._has_speed = "percentage" in attributes
        if self._has_speed:
            features |= FanEntityFeature.SET_SPEED
        if "oscillating" in attributes:
            features |= FanEntityFeature.OSCILLATE
        if "direction" in attributes:
            features |= FanEntityFeature.DIRECTION
        if presets := text_list(attributes.get("preset_modes")):
            features |= FanEntityFeature.PRESET_MODE
            self._attr_preset_modes = presets
        self._attr_supported_features = features
        step = number(attributes.get("percentage_step"))
        self._attr_speed_count = round(100 / step) if step else 100

    def features_changed(self, features: int) -> None:
        """A speed declared only in supported_features; on/off always (as upstream)."""
        self._has_speed = bool(features & FanEntityFeature.SET_SPEED)
        self._attr_supported_features |= FanEntityFeature.TURN_ON | FanEntityFeature.TURN_OFF

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """On/off and the current speed, oscillation, direction and preset."""
        self._on = state == "on"
        # The speed "turn on" goes back to: the fixture's, else full speed.
        self._last_percentage = whole(attributes.get("percentage")) or 100
        if self._has_speed:
            self._attr_percentage = self._last_percentage if self._on else 0
        oscillating = attributes.get("oscillating")
        self._attr_oscillating = None if oscillating is None else bool(oscillating)
        self._attr_current_direction = attributes.get("direction")
        self._attr_preset_mode = attributes.get("preset_mode")

    @property
    def is_on(self) -> bool:
        """On or off."""
        return self._on

    def _speed(self, percentage: int) -> None:
        self._on = percentage > 0
        if self._has_speed:
            self._attr_percentage = percentage
            if percentage:
                self._last_percentage = percentage

    async def async_turn_on(
        self, percentage: int | None = None, preset_mode: str | None = None, **kwargs: Any
    ) -> None:
        """Turn on at the speed asked, or the last speed."""
        self._speed(percentage or self._last_percentage)
        if preset_mode is not None:
            self._attr_preset_mode = preset_mode
        self.changed()

    async def async_turn_off(self, **kwargs: Any) -> None:
        """Stop."""
        self._speed(0)
        self.changed()

    async def async_set_percentage(self, percentage: int) -> None:
        """Set the speed (0 turns it off)."""
        self._speed(percentage)
        self.changed()

    async def async_oscillate(self, oscillating: bool) -> None:
        """Swing or not."""
        self._attr_oscillating = oscillating
        self.changed()

    async def async_set_direction(self, direction: str) -> None:
        """Forward or reverse."""
        self._attr_current_direction = direction
        self.changed()

    async def async_set_preset_mode(self, preset_mode: str) -> None:
        """Switch to a preset (turns the fan on)."""
        self._attr_preset_mode = preset_mode
        if not self._on:
            self._speed(self._last_percentage)
        self.changed()


async_setup_entry = setup_domain("fan", FixtureFan)
