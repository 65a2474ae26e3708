"""The house of scripts/develop: the demo's devices in rooms on two floors, as a real house has.

On the first start (no floor yet) the demo's lights, covers, fans and climate go to areas on
a ground and a first floor, the first demo vacuum gets its rooms mapped to the kitchen and
the living room (its owner's "area mapping"), and locks, alarms and valves are
exposed to Assist on top of Home Assistant's defaults. Later starts keep what the user changed.
"""

from __future__ import annotations

from typing import Final

from homeassistant.const import EVENT_HOMEASSISTANT_STARTED
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from testing.demo_home import async_expose_home
from testing.home_builder import async_area
from testing.home_builder import async_floor
from testing.home_builder import async_place_in_area

GROUND_FLOOR: Final = "Ground floor"
FIRST_FLOOR: Final = "First floor"
# Floor -> area -> the demo entities in it. The demo's locks and media players have no unique id,
# so no registry entry and no area: Home Assistant cannot place them.
HOUSE: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    GROUND_FLOOR: {
        "Kitchen": ("light.kitchen_lights", "cover.kitchen_window"),
        "Living Room": (
            "light.living_room_rgbww_lights",
            "cover.living_room_window",
            "fan.living_room_fan",
            "climate.hvac",
            "vacuum.demo_vacuum_0_ground_floor",
        ),
        "Dining Room": ("light.ceiling_lights",),
        "Hallway": ("light.entrance_color_white_lights",),
        "Garage": ("cover.garage_door",),
        "Garden": ("cover.pergola_roof",),
    },
    FIRST_FLOOR: {
        "Bedroom": (
            "light.bed_light",
            "fan.ceiling_fan",
            "climate.ecobee",
        ),
        "Office": ("light.office_rgbw_lights", "fan.percentage_full_fan"),
        "Landing": ("cover.hall_window",),
    },
}
# The demo vacuum's rooms (its segments) for each area it cleans.
VACUUM: Final = "vacuum.demo_vacuum_0_ground_floor"
VACUUM_ROOMS: Final = {"Kitchen": "kitchen", "Living Room": "living_room"}


def furnish(hass: HomeAssistant) -> None:
    """Place the demo's devices in the house, map the vacuum's rooms, expose; once only."""
    if fr.async_get(hass).async_list_floors():
        return
    for level, (floor_name, areas) in enumerate(HOUSE.items()):
        floor_id = async_floor(hass, floor_name, level)
        for area_name, entity_ids in areas.items():
            area_id = async_area(hass, area_name, floor_id)
            ar.async_get(hass).async_update(area_id, floor_id=floor_id)  # one made before
            for entity_id in entity_ids:
                async_place_in_area(hass, entity_id, area_id)
    mapping = {async_area(hass, area): [room] for area, room in VACUUM_ROOMS.items()}
    if er.async_get(hass).async_get(VACUUM) is not None:
        er.async_get(hass).async_update_entity_options(VACUUM, "vacuum", {"area_mapping": mapping})
    async_expose_home(hass)


def furnish_when_started(hass: HomeAssistant) -> None:
    """Furnish the house once Home Assistant has set up the demo's entities."""

    @callback
    def started(_event: Event) -> None:
        furnish(hass)

    hass.bus.async_listen_once(EVENT_HOMEASSISTANT_STARTED, started)
