"""Door, window and motion sensors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.binary_sensor import BinarySensorEntity

from .entity import SyntheticEntity, setup_domain


class SyntheticBinarySensor(SyntheticEntity, BinarySensorEntity):
    """A contact or motion sensor."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        """Start on or off by index."""
        super().__init__(spec)
        self._attr_is_on = self.index % 4 == 0


async_setup_entry = setup_domain("binary_sensor", SyntheticBinarySensor)
