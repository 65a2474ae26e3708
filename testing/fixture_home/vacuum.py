"""Robot vacuums."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.vacuum import StateVacuumEntity
from homeassistant.components.vacuum.const import VacuumActivity, VacuumEntityFeature
from testing.fixture_home.entity import FixtureEntity, setup_domain, text_list

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

    def _set(self, activity: VacuumActivity) -> None:
        self._attr_activity = activity
        self.changed()

    async def async_start(self) -> None:
        """Start cleaning."""
        self._set(VacuumActivity.CLEANING)

    async def async_pause(self) -> None:
        """Pause."""
        self._set(VacuumActivity.PAUSED)

    async def async_stop(self, **kwargs: Any) -> None:
        """Stop where it is."""
        self._set(VacuumActivity.IDLE)

    async def async_return_to_base(self, **kwargs: Any) -> None:
        """Head back to the dock."""
        self._set(VacuumActivity.RETURNING)

    async def async_clean_spot(self, **kwargs: Any) -> None:
        """Clean around here."""
        self._set(VacuumActivity.CLEANING)

    async def async_locate(self, **kwargs: Any) -> None:
        """Beep (nothing changes)."""

    async def async_set_fan_speed(self, fan_speed: str, **kwargs: Any) -> None:
        """Change the suction."""
        self._attr_fan_speed = fan_speed
        self.changed()


async_setup_entry = setup_domain("vacuum", FixtureVacuum)
