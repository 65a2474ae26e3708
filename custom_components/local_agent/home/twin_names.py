"""Targets of one sentence that share a name, told apart by where each is: "Lamp (Hall)".

"Lamp and Lamp: already off" says neither lamp. A name several targets of one answer share is
followed by the first of its area, floor or device that none of its twins has, as the
registries place them (never as the model named the place), in brackets: the place's name is
the user's, said without a noun or an article of ours ("in the The Hall"). Where nothing tells
it apart (both in the Hall, of one device), its entity id does: it is exact, and it is what the
person finds in the app.
"""

from __future__ import annotations

from collections.abc import Sequence

from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr

from .entity_view import heard
from .entity_view import hides_its_meaning
from .entity_view import one_line

# Where a target is, as the registries say it: its area, that area's floor, its device.
type Places = tuple[str | None, str | None, str | None]
NOWHERE: Places = (None, None, None)


def places_of(hass: HomeAssistant, entity_id: str) -> Places:
    """Return the entity's area, floor and device names; None for each it has not."""
    entry = er.async_get(hass).async_get(entity_id)
    if entry is None:
        return NOWHERE
    device = dr.async_get(hass).async_get(entry.device_id) if entry.device_id else None
    area_id = entry.area_id or (dr.async_get_effective_area_id(hass, device) if device else None)
    area = ar.async_get(hass).async_get_area(area_id) if area_id else None
    floor = fr.async_get(hass).async_get_floor(area.floor_id) if area and area.floor_id else None
    return (
        area.name if area else None,
        floor.name if floor else None,
        (device.name_by_user or device.name) if device else None,
    )


def told_apart(
    names: Sequence[str], entity_ids: Sequence[str | None], places: Sequence[Places]
) -> tuple[str, ...]:
    """Return the names, each one that several targets share followed by a place of its own.

    `entity_ids` (None where it is not known) and `places` are the targets', by the names'
    order; without them for every name, the names stay as they are.
    """
    if not shares_a_name(names) or not len(names) == len(entity_ids) == len(places):
        return tuple(names)
    said = []
    for index, name in enumerate(names):
        twins = [i for i, other in enumerate(names) if other == name and i != index]
        if not twins:
            said.append(name)
            continue
        theirs = {_heard(place) for i in twins for place in places[i] if place}
        # A place that shows other than it says or holds marks of our sentences ("Kitchen:
        # unlocked", "Hall" in two scripts) is passed over, as such a name is.
        sayable = [p for p in places[index] if p and not hides_its_meaning(p)]
        own = next((p for p in sayable if _heard(p) not in theirs), None)
        told = one_line(own) if own else entity_ids[index]
        said.append(f"{name} ({told})" if told else name)
    return tuple(said)


def shares_a_name(names: Sequence[str]) -> bool:
    """Whether two of the names are one: then their places are worth reading."""
    return len(set(names)) != len(names)


def _heard(place: str) -> str:
    """Return the place as an ear compares it, as spoken_names does: "Hallway", "Hall way"."""
    return heard(one_line(place))
