"""Fans with a speed and oscillation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.fan import FanEntity
from homeassistant.components.fan.const import FanEntityFeature

from .entity import SyntheticEntity, setup_domain


class SyntheticFan(SyntheticEntity, FanEntity):
    """A fan."""

    _attr_supported_features = (
        FanEntityFeature.SET_SPEED
        | FanEntityFeature.OSCILLATE
        | FanEntityFeature.TURN_ON
        | FanEntityFeature.TURN_OFF
    )

    def __init__(self, spec: Mapping[str, Any]) -> None:
        """Start off."""
        super().__init__(spec)
        self._attr_percentage = 0
        self._attr_oscillating = False

    @property
    def is_on(self) -> bool:
        """On at any speed above zero."""
        return bool(self._attr_percentage)

    async def async_turn_on(
        self, percentage: int | None = None, preset_mode: str | None = None, **kwargs: Any
    ) -> None:
        """Turn on at the speed asked, or half speed."""
        self._attr_percentage = percentage or 50
        self.changed()

    async def async_turn_off(self, **kwargs: Any) -> None:
        """Stop."""
        self._attr_percentage = 0
        self.changed()

    async def async_set_percentage(self, percentage: int) -> None:
        """Set the speed."""
        self._attr_percentage = percentage
        self.changed()

    async def async_oscillate(self, oscillating: bool) -> None:
        """Swing or not."""
        self._attr_oscillating = oscillating
        self.changed()


async_setup_entry = setup_domain("fan", SyntheticFan)
