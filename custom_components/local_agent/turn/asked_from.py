"""Where the person asks from: the area (and floor) of the satellite or device that heard them.

Home Assistant's Assist API tells the model "You are in area Kitchen (floor …)" for a request
from a device with an area; with our own tools nothing else would. The place is read from the
registries, never from a name in the text: the satellite entity's own area, else its device's,
else the requesting device's (a child device takes its parent's). The line goes in the block of
this request's message (turn/home_context.py), never in the home prefix every satellite shares.
"""

from __future__ import annotations

from typing import Final

from custom_components.local_agent.home.entity_view import one_line
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr

# Said to the model in English, like the rest of the block around the person's words.
AREA_LINE: Final = (
    "The person speaks from the area {area}: commands that name no place, like 'turn on the "
    "lights', mean this area."
)
AREA_ON_FLOOR_LINE: Final = (
    "The person speaks from the area {area} (floor {floor}): commands that name no place, like "
    "'turn on the lights', mean this area."
)


def asked_from_area(
    hass: HomeAssistant, device_id: str | None, satellite_id: str | None
) -> ar.AreaEntry | None:
    """Return the area the request came from, or None when no registry entry places it."""
    devices = dr.async_get(hass)
    if satellite_id and (satellite := er.async_get(hass).async_get(satellite_id)):
        if satellite.area_id:
            return ar.async_get(hass).async_get_area(satellite.area_id)
        device_id = satellite.device_id or device_id
    if not device_id or (device := devices.async_get(device_id)) is None:
        return None
    area_id = dr.async_get_effective_area_id(hass, device)
    return ar.async_get(hass).async_get_area(area_id) if area_id else None


def asked_from_line(hass: HomeAssistant, device_id: str | None, satellite_id: str | None) -> str:
    """Return the line that tells the model where the person is ("" when nowhere known)."""
    area = asked_from_area(hass, device_id, satellite_id)
    if area is None:
        return ""
    floor = fr.async_get(hass).async_get_floor(area.floor_id) if area.floor_id else None
    if floor is None:
        return AREA_LINE.format(area=one_line(area.name))
    return AREA_ON_FLOOR_LINE.format(area=one_line(area.name), floor=one_line(floor.name))
