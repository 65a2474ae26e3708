"""Door, window, motion and other on/off sensors (read-only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.binary_sensor import BinarySensorEntity
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import setup_domain


class FixtureBinarySensor(FixtureEntity, BinarySensorEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """An on/off sensor."""

    STATES = frozenset({"on", "off"})

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """On or off."""
        self._attr_is_on = state == "on"


async_setup_entry = setup_domain("binary_sensor", FixtureBinarySensor)
