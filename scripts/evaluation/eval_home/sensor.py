"""Sensors (read-only): numbers with a unit, or text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.sensor import SensorEntity

from .entity import FixtureEntity, number, setup_domain


class FixtureSensor(FixtureEntity, SensorEntity):
    """A measurement (numeric when it has a unit, device class or state class) or a text."""

    HANDLED = frozenset({"unit_of_measurement", "state_class"})

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Unit and state class."""
        self._attr_native_unit_of_measurement = attributes.get("unit_of_measurement")
        self._attr_state_class = attributes.get("state_class")
        self._numeric = bool(
            self._attr_native_unit_of_measurement
            or self._attr_state_class
            or attributes.get("device_class")
        )

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """The value."""
        value = number(state) if self._numeric else None
        if value is None:
            self._attr_native_value = state
        else:
            self._attr_native_value = (
                int(value) if value.is_integer() and "." not in state else value
            )


async_setup_entry = setup_domain("sensor", FixtureSensor)
