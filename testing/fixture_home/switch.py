"""Switches and smart plugs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.switch import SwitchEntity
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import setup_domain


class FixtureSwitch(FixtureEntity, SwitchEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """An on/off switch."""

    STATES = frozenset({"on", "off"})

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """On or off."""
        self._attr_is_on = state == "on"

    async def async_turn_on(self, **kwargs: Any) -> None:
        """Turn on."""
        self._attr_is_on = True
        self.changed()

    async def async_turn_off(self, **kwargs: Any) -> None:
        """Turn off."""
        self._attr_is_on = False
        self.changed()


async_setup_entry = setup_domain("switch", FixtureSwitch)
