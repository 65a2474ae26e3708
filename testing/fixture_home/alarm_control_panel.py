"""Alarm panels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.alarm_control_panel import AlarmControlPanelEntity
from homeassistant.components.alarm_control_panel.const import (
    AlarmControlPanelEntityFeature,
    AlarmControlPanelState,
)
from testing.fixture_home.entity import FixtureEntity, setup_domain

_ALL_MODES = (
    AlarmControlPanelEntityFeature.ARM_HOME
    | AlarmControlPanelEntityFeature.ARM_AWAY
    | AlarmControlPanelEntityFeature.ARM_NIGHT
    | AlarmControlPanelEntityFeature.ARM_VACATION
    | AlarmControlPanelEntityFeature.TRIGGER
)


class FixtureAlarm(FixtureEntity, AlarmControlPanelEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A panel that arms and disarms at once; no code unless the fixture asks for one."""

    HANDLED = frozenset({"code_format", "code_arm_required", "changed_by"})
    STATES = frozenset(state.value for state in AlarmControlPanelState)
    RESTING = AlarmControlPanelState.DISARMED.value
    MOMENTARY = frozenset({"arming", "disarming", "pending"})

    @classmethod
    def features_type(cls) -> Any:
        """Alarm features."""
        return AlarmControlPanelEntityFeature

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Every arming mode; a code only when the fixture says so."""
        self._attr_supported_features = _ALL_MODES
        self._attr_code_format = attributes.get("code_format")
        self._attr_code_arm_required = bool(attributes.get("code_arm_required", False))

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """One of the alarm states."""
        self._attr_alarm_state = AlarmControlPanelState(state)

    def _set(self, state: AlarmControlPanelState) -> None:
        self._attr_alarm_state = state
        self.changed()

    async def async_alarm_disarm(self, code: str | None = None) -> None:
        """Disarm."""
        self._set(AlarmControlPanelState.DISARMED)

    async def async_alarm_arm_home(self, code: str | None = None) -> None:
        """Arm (home)."""
        self._set(AlarmControlPanelState.ARMED_HOME)

    async def async_alarm_arm_away(self, code: str | None = None) -> None:
        """Arm (away)."""
        self._set(AlarmControlPanelState.ARMED_AWAY)

    async def async_alarm_arm_night(self, code: str | None = None) -> None:
        """Arm (night)."""
        self._set(AlarmControlPanelState.ARMED_NIGHT)

    async def async_alarm_arm_vacation(self, code: str | None = None) -> None:
        """Arm (vacation)."""
        self._set(AlarmControlPanelState.ARMED_VACATION)

    async def async_alarm_trigger(self, code: str | None = None) -> None:
        """Sound the alarm."""
        self._set(AlarmControlPanelState.TRIGGERED)


async_setup_entry = setup_domain("alarm_control_panel", FixtureAlarm)
