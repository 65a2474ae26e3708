"""Robot vacuums."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.vacuum import StateVacuumEntity
from homeassistant.components.vacuum.const import VacuumActivity
from homeassistant.components.vacuum.const import VacuumEntityFeature
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import moves_to
from testing.fixture_home.entity import setup_domain
from testing.fixture_home.entity import stores
from testing.fixture_home.entity import text_list

_FEATURES = (
    VacuumEntityFeature.START
    | VacuumEntityFeature.PAUSE
    | VacuumEntityFeature.STOP
    | VacuumEntityFeature.RETURN_HOME
    | VacuumEntityFeature.LOCATE
    | VacuumEntityFeature.CLEAN_SPOT
    | VacuumEntityFeature.STATE
)


class FixtureVacuum(FixtureEntity, StateVacuumEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A vacuum whose activity changes at once; return_to_base leaves it `returning`."""

    HANDLED = frozenset({"fan_speed", "fan_speed_list"})
    STATES = frozenset(activity.value for activity in VacuumActivity)
    RESTING = VacuumActivity.IDLE.value
    MOMENTARY = frozenset({"error"})
    STATE_FIELD = "_attr_activity"

    @classmethod
    def features_type(cls) -> Any:
        """Vacuum features."""
        return VacuumEntityFeature

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Start, pause, stop, return, locate; fan speeds when listed."""
        features = _FEATURES
        self._attr_fan_speed_list = text_list(attributes.get("fan_speed_list"))
        if self._attr_fan_speed_list:
            features |= VacuumEntityFeature.FAN_SPEED
        self._attr_supported_features = features

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """The activity and the fan speed."""
        self._attr_activity = VacuumActivity(state)
        self._attr_fan_speed = attributes.get("fan_speed")

    async_start = moves_to(VacuumActivity.CLEANING, doc="Start cleaning.")
    async_pause = moves_to(VacuumActivity.PAUSED, doc="Pause.")
    async_stop = moves_to(VacuumActivity.IDLE, doc="Stop where it is.")
    async_return_to_base = moves_to(VacuumActivity.RETURNING, doc="Head back to the dock.")
    async_clean_spot = moves_to(VacuumActivity.CLEANING, doc="Clean around here.")
    async_set_fan_speed = stores("fan_speed", doc="Change the suction.")

    async def async_locate(self, **kwargs: Any) -> None:
        """Beep (nothing changes)."""


async_setup_entry = setup_domain("vacuum", FixtureVacuum)
