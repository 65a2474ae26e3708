"""Thermostats."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.climate import ClimateEntity
from homeassistant.components.climate.const import (
    ATTR_HVAC_MODE,
    ClimateEntityFeature,
    HVACMode,
)
from homeassistant.const import ATTR_TEMPERATURE, UnitOfTemperature

from .entity import SyntheticEntity, setup_domain


class SyntheticClimate(SyntheticEntity, ClimateEntity):
    """A thermostat with a target temperature and four modes."""

    _attr_supported_features = (
        ClimateEntityFeature.TARGET_TEMPERATURE
        | ClimateEntityFeature.TURN_ON
        | ClimateEntityFeature.TURN_OFF
    )
    _attr_temperature_unit = UnitOfTemperature.CELSIUS
    _attr_target_temperature_step = 0.5
    _attr_min_temp = 7
    _attr_max_temp = 30

    def __init__(self, spec: Mapping[str, Any]) -> None:
        """Start heating to 21 °C."""
        super().__init__(spec)
        self._attr_hvac_modes = [HVACMode.OFF, HVACMode.HEAT, HVACMode.COOL, HVACMode.AUTO]
        self._attr_hvac_mode = HVACMode.HEAT
        self._attr_target_temperature = 21.0
        self._attr_current_temperature = 19.5 + self.index % 4

    async def async_set_temperature(self, **kwargs: Any) -> None:
        """Set the target (and the mode, when given)."""
        if (temperature := kwargs.get(ATTR_TEMPERATURE)) is not None:
            self._attr_target_temperature = float(temperature)
        if (mode := kwargs.get(ATTR_HVAC_MODE)) is not None:
            self._attr_hvac_mode = HVACMode(mode)
        self.changed()

    async def async_set_hvac_mode(self, hvac_mode: HVACMode) -> None:
        """Change the mode."""
        self._attr_hvac_mode = hvac_mode
        self.changed()

    async def async_turn_on(self) -> None:
        """Heat."""
        await self.async_set_hvac_mode(HVACMode.HEAT)

    async def async_turn_off(self) -> None:
        """Switch off."""
        await self.async_set_hvac_mode(HVACMode.OFF)


async_setup_entry = setup_domain("climate", SyntheticClimate)
