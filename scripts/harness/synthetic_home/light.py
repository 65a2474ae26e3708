"""Lights: dimmable, some with colour temperature."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.light import LightEntity
from homeassistant.components.light.const import (
    ATTR_BRIGHTNESS,
    ATTR_COLOR_TEMP_KELVIN,
    ColorMode,
)

from .entity import SyntheticEntity, setup_domain


class SyntheticLight(SyntheticEntity, LightEntity):
    """A dimmable light; every other one also sets its colour temperature."""

    _attr_min_color_temp_kelvin = 2200
    _attr_max_color_temp_kelvin = 6500

    def __init__(self, spec: Mapping[str, Any]) -> None:
        """Start on or off by index."""
        super().__init__(spec)
        tunable = self.index % 2 == 0
        mode = ColorMode.COLOR_TEMP if tunable else ColorMode.BRIGHTNESS
        self._attr_supported_color_modes = {mode}
        self._attr_color_mode = mode
        self._attr_is_on = self.index % 3 == 0
        self._attr_brightness = 180 if self._attr_is_on else None
        self._attr_color_temp_kelvin = 3000 if tunable else None

    async def async_turn_on(self, **kwargs: Any) -> None:
        """Turn on, at the brightness and colour temperature asked."""
        self._attr_is_on = True
        self._attr_brightness = kwargs.get(ATTR_BRIGHTNESS, self._attr_brightness or 255)
        if self._attr_color_mode == ColorMode.COLOR_TEMP:
            kelvin = kwargs.get(ATTR_COLOR_TEMP_KELVIN, self._attr_color_temp_kelvin)
            self._attr_color_temp_kelvin = kelvin
        self.changed()

    async def async_turn_off(self, **kwargs: Any) -> None:
        """Turn off."""
        self._attr_is_on = False
        self.changed()


async_setup_entry = setup_domain("light", SyntheticLight)
