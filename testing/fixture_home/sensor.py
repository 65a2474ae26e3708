"""Sensors (read-only): numbers with a unit, dates and times, or text."""

from __future__ import annotations

from collections.abc import Mapping
import datetime as dt
from typing import Any

from homeassistant.components.sensor import SensorDeviceClass
from homeassistant.components.sensor import SensorEntity
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import number
from testing.fixture_home.entity import setup_domain
from testing.fixture_home.entity import text_list


class FixtureSensor(FixtureEntity, SensorEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A measurement (numeric when it has a unit, device class or state class) or a text.

    Date and timestamp sensors take ISO texts, enum sensors their `options`. A value Home
    Assistant refuses (a text for a number, a date that is none) is given to it as it is: the
    state write fails as it would for any integration, and `refused` says why.
    """

    HANDLED = frozenset({"unit_of_measurement", "state_class", "options"})

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Unit, state class and options."""
        self._attr_native_unit_of_measurement = attributes.get("unit_of_measurement")
        self._attr_state_class = attributes.get("state_class")
        self._attr_options = text_list(attributes.get("options")) or None
        device_class = attributes.get("device_class")
        self._numeric = bool(
            self._attr_native_unit_of_measurement
            or self._attr_state_class
            or (device_class and device_class not in ("date", "timestamp", "enum"))
        )

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """The value."""
        if state in ("unknown", "unavailable"):
            self._attr_native_value = None
            return
        try:
            if self._attr_device_class == SensorDeviceClass.DATE:
                self._attr_native_value = dt.date.fromisoformat(state)
                return
            if self._attr_device_class == SensorDeviceClass.TIMESTAMP:
                moment = dt.datetime.fromisoformat(state)
                self._attr_native_value = moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
                return
        except ValueError:
            # Not a date or time: Home Assistant refuses the text when the state is written.
            self._attr_native_value = state
            return
        value = number(state) if self._numeric else None
        if value is None:
            self._attr_native_value = state
        else:
            self._attr_native_value = (
                int(value) if value.is_integer() and "." not in state else value
            )


async_setup_entry = setup_domain("sensor", FixtureSensor)
