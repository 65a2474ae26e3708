"""Temperature and humidity sensors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.sensor import SensorDeviceClass, SensorEntity, SensorStateClass
from homeassistant.const import PERCENTAGE, UnitOfTemperature

from .entity import SyntheticEntity, setup_domain


class SyntheticSensor(SyntheticEntity, SensorEntity):
    """A measurement that does not change."""

    _attr_state_class = SensorStateClass.MEASUREMENT

    def __init__(self, spec: Mapping[str, Any]) -> None:
        """Measure temperature or humidity, by device class."""
        super().__init__(spec)
        if spec.get("device_class") == SensorDeviceClass.HUMIDITY:
            self._attr_native_unit_of_measurement = PERCENTAGE
            self._attr_native_value = 40 + self.index % 20
        else:
            self._attr_native_unit_of_measurement = UnitOfTemperature.CELSIUS
            self._attr_native_value = 18.0 + (self.index % 50) / 10


async_setup_entry = setup_domain("sensor", SyntheticSensor)
