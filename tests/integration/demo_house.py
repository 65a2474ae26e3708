"""The whole demo as everyday houses start from: Home Assistant's own blueprints and two
imported ones, a phone to notify; the `demo_house` fixture (conftest.py offers it to every test
of the folder), which leaves nothing running after the test."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
import shutil
from typing import Any
from typing import ClassVar
from typing import Final
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from homeassistant.components import automation as automation_component
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.notify.legacy import BaseNotificationService
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
from testing.demo_home import DEMO_PLATFORMS

from .home import async_setup_demo
from .scene import Home
from .scripted_model import ScriptedWorker


@dataclass
class DemoHome(Home):
    """A house on the whole demo: its locks, garage door, alarm and valves are what must not
    change before a yes."""

    sensitive: ClassVar[tuple[str, ...]] = (
        "lock.front_door",
        "lock.kitchen_door",
        "cover.garage_door",
        "alarm_control_panel.security",
        "valve.front_garden",
        "valve.back_garden",
        "valve.orchard",
        "valve.trees",
    )


class Phone(BaseNotificationService):
    """A phone's notify platform (as mobile_app's): it only sends messages."""

    def send_message(self, message: str = "", **kwargs: Any) -> None:
        """Send nothing: a test's phone."""


async def phone_notifications(hass: HomeAssistant) -> None:
    """Set up notify with the notify platform services "notify.notify" and "notify.phone"."""
    assert await async_setup_component(hass, "notify", {})
    for name in ("notify", "phone"):
        service = Phone()
        await service.async_setup(hass, name, name)
        await service.async_register_services()


LOW_BATTERY_BLUEPRINT: Final = """\
blueprint:
  name: Low battery level detection & notification for all battery sensors
  domain: automation
  input:
    threshold:
      name: Battery warning level threshold
      default: 20
      selector:
        number:
          min: 5
          max: 100
    time:
      name: Time to test on
      default: "10:00:00"
      selector:
        time: {}
    actions:
      name: Actions
      selector:
        action: {}
variables:
  threshold: !input threshold
  sensors: >-
    {% set result = namespace(sensors=[]) %}
    {% for state in states.sensor | selectattr('attributes.device_class', '==', 'battery') %}
      {% if 0 <= state.state | int(-1) < threshold | int %}
        {% set result.sensors = result.sensors + [state.name] %}
      {% endif %}
    {% endfor %}
    {{ result.sensors | join(', ') }}
triggers:
  - trigger: time
    at: !input time
conditions:
  - "{{ sensors != '' }}"
actions:
  - choose: []
    default: !input actions
mode: single
"""


ZHA_REMOTE_BLUEPRINT: Final = """\
blueprint:
  name: ZHA - IKEA five button remote for lights
  domain: automation
  input:
    remote:
      name: Remote
      selector:
        device:
          integration: zha
    light:
      name: Light(s)
      selector:
        target:
          entity:
            domain: light
triggers:
  - trigger: event
    event_type: zha_event
    event_data:
      device_id: !input remote
actions:
  - variables:
      command: "{{ trigger.event.data.command }}"
  - choose:
      - conditions: "{{ command == 'toggle' }}"
        sequence:
          - action: light.toggle
            target: !input light
      - conditions: "{{ command == 'step_with_on_off' }}"
        sequence:
          - action: light.turn_on
            target: !input light
            data:
              brightness_step_pct: 10
      - conditions: "{{ command == 'step' }}"
        sequence:
          - action: light.turn_on
            target: !input light
            data:
              brightness_step_pct: -10
mode: restart
max_exceeded: silent
"""


async def set_up_demo_house(hass: HomeAssistant, tmp_path: Path) -> None:
    """The whole demo, Home Assistant's own blueprints and two imported ones, a phone."""
    hass.config.config_dir = str(tmp_path)
    blueprints = tmp_path / "blueprints" / "automation"
    shutil.copytree(
        Path(automation_component.__file__).parent / "blueprints", blueprints / "homeassistant"
    )
    (blueprints / "community").mkdir()
    (blueprints / "community" / "low_battery.yaml").write_text(LOW_BATTERY_BLUEPRINT)
    (blueprints / "community" / "zha_remote.yaml").write_text(ZHA_REMOTE_BLUEPRINT)
    await async_setup_demo(hass, DEMO_PLATFORMS)
    for component in ("zone", "persistent_notification"):
        assert await async_setup_component(hass, component, {})
    await phone_notifications(hass)
    for current in hass.states.async_all():
        async_expose_entity(hass, "conversation", current.entity_id, False)


async def stop_everything(hass: HomeAssistant) -> None:
    """Sun and time triggers, timers, covers and valves: none outlives the test."""
    # A house that never set up automations or timers has none running.
    if "automation" in hass.config.components:
        await hass.services.async_call(
            "automation", "turn_off", {"entity_id": "all"}, blocking=True
        )
    if "timer" in hass.config.components:
        await hass.services.async_call("timer", "cancel", {"entity_id": "all"}, blocking=True)
    for service in ("stop_cover", "stop_cover_tilt"):
        await hass.services.async_call("cover", service, {"entity_id": "all"}, blocking=True)
    await hass.services.async_call("valve", "stop_valve", {"entity_id": "all"}, blocking=True)
    if "schedule" in hass.config.components:
        with patch("homeassistant.config.load_yaml_config_file", return_value={}):
            await hass.services.async_call("schedule", "reload", blocking=True)


@pytest.fixture
async def demo_house(
    hass: HomeAssistant, scripted_worker: ScriptedWorker, person: Context, tmp_path: Path
) -> AsyncGenerator[Home]:
    """The whole demo (set_up_demo_house), before each house adds its own; after the test,
    nothing left running, and a minute for what settles late (a vacuum sent home docks)."""
    await set_up_demo_house(hass, tmp_path)
    yield DemoHome(hass, scripted_worker, person)
    await stop_everything(hass)
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(minutes=1))
    await hass.async_block_till_done()
