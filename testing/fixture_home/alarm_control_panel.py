"""Alarm panels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.components.alarm_control_panel import AlarmControlPanelEntity
from homeassistant.components.alarm_control_panel.const import AlarmControlPanelEntityFeature
from homeassistant.components.alarm_control_panel.const import AlarmControlPanelState
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import moves_to
from testing.fixture_home.entity import setup_domain

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
    STATE_FIELD = "_attr_alarm_state"

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

    # Each service takes the code it is given without checking it.
    async_alarm_disarm = moves_to(AlarmControlPanelState.DISARMED, doc="Disarm.")
    async_alarm_arm_home = moves_to(AlarmControlPanelState.ARMED_HOME, doc="Arm (home).")
    async_alarm_arm_away = moves_to(AlarmControlPanelState.ARMED_AWAY, doc="Arm (away).")
    async_alarm_arm_night = moves_to(AlarmControlPanelState.ARMED_NIGHT, doc="Arm (night).")
    async_alarm_arm_vacation = moves_to(
        AlarmControlPanelState.ARMED_VACATION, doc="Arm (vacation)."
    )
    async_alarm_trigger = moves_to(AlarmControlPanelState.TRIGGERED, doc="Sound the alarm.")


async_setup_entry = setup_domain("alarm_control_panel", FixtureAlarm)
