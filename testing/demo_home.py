"""Home Assistant's demo devices as a home to talk to, exposed to Assist as a user would."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Iterator
import contextlib
from typing import Final
from unittest.mock import patch

from custom_components.local_agent.const import ASSISTANT
from homeassistant.components import demo
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.config_entries import SOURCE_IMPORT
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from testing.hass_runner import HarnessError
from testing.home_builder import async_area
from testing.home_builder import async_place_in_area

# The demo platforms a home has (no cameras, calendars, speech, notify or date pickers).
DEMO_PLATFORMS: Final = (
    Platform.ALARM_CONTROL_PANEL,
    Platform.BINARY_SENSOR,
    Platform.BUTTON,
    Platform.CLIMATE,
    Platform.COVER,
    Platform.FAN,
    Platform.HUMIDIFIER,
    Platform.LIGHT,
    Platform.LOCK,
    Platform.MEDIA_PLAYER,
    Platform.NUMBER,
    Platform.SELECT,
    Platform.SENSOR,
    Platform.SIREN,
    Platform.SWITCH,
    Platform.VACUUM,
    Platform.VALVE,
    Platform.WATER_HEATER,
    Platform.WEATHER,
)

# Exposed on top of Home Assistant's defaults for new entities (lights, switches, covers,
# climate, fans, media players, … and sensors of common device classes): the domains whose
# actions our safety gate guards, so a run can show it.
EXTRA_EXPOSED_DOMAINS: Final = frozenset({"alarm_control_panel", "lock", "valve"})

# Where the demo's devices are, so the overview shows areas the way a real home does.
DEMO_AREAS: Final[dict[str, tuple[str, ...]]] = {
    "Kitchen": ("light.kitchen_lights", "cover.kitchen_window"),
    "Living Room": (
        "light.living_room_rgbww_lights",
        "media_player.living_room",
        "climate.hvac",
        "fan.living_room_fan",
    ),
    "Bedroom": ("light.bed_light", "media_player.bedroom", "climate.ecobee"),
    "Hallway": ("cover.hall_window", "lock.front_door"),
    "Garage": ("cover.garage_door", "lock.poorly_installed_door"),
}


@contextlib.contextmanager
def demo_platforms() -> Iterator[None]:
    """Limit the demo to DEMO_PLATFORMS while it is loaded (set up and unloaded)."""
    with patch.object(demo, "COMPONENTS_WITH_CONFIG_ENTRY_DEMO_PLATFORM", list(DEMO_PLATFORMS)):
        yield


@contextlib.contextmanager
def instant_demo(platforms: Iterable[Platform]) -> Iterator[None]:
    """Limit the demo to these platforms, with locks that unlock at once (no 2 s delay)."""
    with (
        patch.object(demo, "COMPONENTS_WITH_CONFIG_ENTRY_DEMO_PLATFORM", list(platforms)),
        patch("homeassistant.components.demo.lock.LOCK_UNLOCK_DELAY", 0),
    ):
        yield


async def async_setup_demo_home(hass: HomeAssistant) -> list[str]:
    """Add the demo config entry, place devices in areas, expose; return the exposed ids.

    Call inside `demo_platforms()`.
    """
    result = await hass.config_entries.flow.async_init(
        demo.DOMAIN, context={"source": SOURCE_IMPORT}, data={}
    )
    entry = result.get("result")
    await hass.async_block_till_done()
    if entry is None or entry.state is not ConfigEntryState.LOADED:
        raise HarnessError(f"The demo integration could not be set up: {result}")
    _place_in_areas(hass)
    return async_expose_home(hass)


def _place_in_areas(hass: HomeAssistant) -> None:
    for area_name, entity_ids in DEMO_AREAS.items():
        area_id = async_area(hass, area_name)
        for entity_id in entity_ids:
            async_place_in_area(hass, entity_id, area_id)


def async_expose_home(hass: HomeAssistant) -> list[str]:
    """Apply Home Assistant's default exposure plus EXTRA_EXPOSED_DOMAINS; return exposed ids."""
    exposed: list[str] = []
    for state in hass.states.async_all():
        if state.domain in EXTRA_EXPOSED_DOMAINS:
            async_expose_entity(hass, ASSISTANT, state.entity_id, True)
        if async_should_expose(hass, ASSISTANT, state.entity_id):
            exposed.append(state.entity_id)
    return sorted(exposed)
