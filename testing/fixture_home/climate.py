"""Thermostats and air conditioners."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from typing import ClassVar

from homeassistant.components.climate import ClimateEntity
from homeassistant.components.climate.const import ATTR_HVAC_MODE
from homeassistant.components.climate.const import ATTR_TARGET_TEMP_HIGH
from homeassistant.components.climate.const import ATTR_TARGET_TEMP_LOW
from homeassistant.components.climate.const import ClimateEntityFeature
from homeassistant.components.climate.const import HVACAction
from homeassistant.components.climate.const import HVACMode
from homeassistant.const import ATTR_TEMPERATURE
from homeassistant.const import UnitOfTemperature
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import number
from testing.fixture_home.entity import setup_domain
from testing.fixture_home.entity import stores
from testing.fixture_home.entity import text_list

# The targets and current values, by field.
_NUMBERS = {
    "target_temperature": "temperature",
    "target_temperature_low": "target_temp_low",
    "target_temperature_high": "target_temp_high",
    "current_temperature": "current_temperature",
    "current_humidity": "current_humidity",
    "target_humidity": "humidity",
}


class FixtureClimate(FixtureEntity, ClimateEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A thermostat: modes, targets, fan and preset modes as the fixture lists them."""

    HANDLED = frozenset(
        {
            "hvac_modes", "hvac_action", "temperature", "current_temperature",
            "target_temp_low", "target_temp_high", "target_temp_step", "min_temp", "max_temp",
            "fan_mode", "fan_modes", "preset_mode", "preset_modes", "swing_mode", "swing_modes",
            "current_humidity", "humidity", "min_humidity", "max_humidity",
        }
    )  # fmt: skip
    STATES = frozenset(mode.value for mode in HVACMode)
    UNSIMULATED: ClassVar[Mapping[str, str]] = {
        "swing_mode": "SWING_MODE",
        "swing_horizontal_mode": "SWING_HORIZONTAL_MODE",
    }
    _attr_temperature_unit = UnitOfTemperature.CELSIUS

    @classmethod
    def features_type(cls) -> Any:
        """Climate features."""
        return ClimateEntityFeature

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Modes, ranges and the features the attributes imply."""
        modes = text_list(attributes.get("hvac_modes")) or [HVACMode.OFF, HVACMode.HEAT]
        self._attr_hvac_modes = [HVACMode(mode) for mode in modes]
        features = ClimateEntityFeature.TURN_ON | ClimateEntityFeature.TURN_OFF
        if "temperature" in attributes:
            features |= ClimateEntityFeature.TARGET_TEMPERATURE
        if "target_temp_low" in attributes or "target_temp_high" in attributes:
            features |= ClimateEntityFeature.TARGET_TEMPERATURE_RANGE
        # A feature may come without its list (upstream thermostats): Home Assistant shows None.
        self._attr_fan_modes = text_list(attributes.get("fan_modes")) or None
        self._attr_preset_modes = text_list(attributes.get("preset_modes")) or None
        self._attr_swing_modes = text_list(attributes.get("swing_modes")) or None
        self._attr_swing_horizontal_modes = None
        if self._attr_fan_modes:
            features |= ClimateEntityFeature.FAN_MODE
        if self._attr_preset_modes:
            features |= ClimateEntityFeature.PRESET_MODE
        if "humidity" in attributes:
            features |= ClimateEntityFeature.TARGET_HUMIDITY
        self._attr_supported_features = features
        self._attr_min_temp = number(attributes.get("min_temp"), 7.0) or 7.0
        self._attr_max_temp = number(attributes.get("max_temp"), 35.0) or 35.0
        self._attr_target_temperature_step = number(attributes.get("target_temp_step"), 0.5)
        self._attr_min_humidity = number(attributes.get("min_humidity"), 30.0) or 30.0
        self._attr_max_humidity = number(attributes.get("max_humidity"), 99.0) or 99.0
        on_modes = [mode for mode in self._attr_hvac_modes if mode != HVACMode.OFF]
        self._default_on_mode = (
            HVACMode.HEAT if HVACMode.HEAT in on_modes or not on_modes else on_modes[0]
        )

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """The mode (the state), targets, current values and modes."""
        self._attr_hvac_mode = HVACMode(state)
        self._last_on_mode = (
            self._default_on_mode if self._attr_hvac_mode == HVACMode.OFF else self._attr_hvac_mode
        )
        action = attributes.get("hvac_action")
        self._attr_hvac_action = HVACAction(action) if action else None
        self.take(attributes, _NUMBERS, number)
        self.take(attributes, ("fan_mode", "preset_mode", "swing_mode"))
        self._attr_swing_horizontal_mode = None

    async def async_set_temperature(self, **kwargs: Any) -> None:
        """Set the target(s), and the mode when given."""
        if (temperature := kwargs.get(ATTR_TEMPERATURE)) is not None:
            self._attr_target_temperature = float(temperature)
        if (low := kwargs.get(ATTR_TARGET_TEMP_LOW)) is not None:
            self._attr_target_temperature_low = float(low)
        if (high := kwargs.get(ATTR_TARGET_TEMP_HIGH)) is not None:
            self._attr_target_temperature_high = float(high)
        if (mode := kwargs.get(ATTR_HVAC_MODE)) is not None:
            self._set_mode(HVACMode(mode))
        self.changed()

    def _set_mode(self, mode: HVACMode) -> None:
        self._attr_hvac_mode = mode
        if mode != HVACMode.OFF:
            self._last_on_mode = mode

    async def async_set_hvac_mode(self, hvac_mode: HVACMode) -> None:
        """Change the mode."""
        self._set_mode(hvac_mode)
        self.changed()

    async def async_turn_on(self) -> None:
        """Back to the last mode that was not off."""
        await self.async_set_hvac_mode(self._last_on_mode)

    async def async_turn_off(self) -> None:
        """Switch off."""
        await self.async_set_hvac_mode(HVACMode.OFF)

    async_set_fan_mode = stores("fan_mode", doc="Change the fan mode.")
    async_set_preset_mode = stores("preset_mode", doc="Change the preset.")

    async def async_set_humidity(self, humidity: int) -> None:
        """Set the target humidity."""
        self._attr_target_humidity = float(humidity)
        self.changed()


async_setup_entry = setup_domain("climate", FixtureClimate)
