"""Switches and smart plugs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.switch import SwitchEntity

from .entity import SyntheticEntity, setup_domain


class SyntheticSwitch(SyntheticEntity, SwitchEntity):
    """An on/off switch."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        """Start on or off by index."""
        super().__init__(spec)
        self._attr_is_on = self.index % 2 == 1

    async def async_turn_on(self, **kwargs: Any) -> None:
        """Turn on."""
        self._attr_is_on = True
        self.changed()

    async def async_turn_off(self, **kwargs: Any) -> None:
        """Turn off."""
        self._attr_is_on = False
        self.changed()


async_setup_entry = setup_domain("switch", SyntheticSwitch)
