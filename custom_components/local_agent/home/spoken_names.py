"""Look-alike names as a voice tells them apart: by where the thing is, not by its id.

Our texts name an entity whose name is heard like another's with its entity id ("Unlock Front
Door (lock.front_door)?"), which a satellite's text-to-speech reads as "lock dot front
underscore door". Said aloud, the name is followed instead by the first of its area, floor or
device that no look-alike of its domain shares ("Front Door in the Hall"), read from the
registries, never from a name. A spoken form that is itself heard like another entity's name (a
lock someone named "Front Door in the Hall") tells nothing apart and is not used; when nothing
spoken tells them apart, the id stays: it is exact, and it is what the person finds in the app.
"""

from __future__ import annotations

from collections.abc import Callable
import re
from typing import Final

from homeassistant.core import HomeAssistant
from homeassistant.core import split_entity_id
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr

from .call_texts import call_words
from .call_texts import entity_name
from .call_texts import heard
from .call_texts import hides_its_meaning
from .call_words import CallWords
from .entity_view import one_line

# An entity id in the brackets entity_name puts after a look-alike name.
_BRACKETED_ID: Final = re.compile(r"\(([a-z_][a-z0-9_]*\.[a-z0-9_]+)\)")

# Where an entity is, as the registries say it: its area, that area's floor, its device.
type Place = Callable[[HomeAssistant, er.RegistryEntry], str | None]


def _device(
    hass: HomeAssistant, entry: er.RegistryEntry
) -> dr.DeviceEntry | dr.ChildDeviceEntry | None:
    return dr.async_get(hass).async_get(entry.device_id) if entry.device_id else None


def _area(hass: HomeAssistant, entry: er.RegistryEntry) -> ar.AreaEntry | None:
    device = _device(hass, entry)
    area_id = entry.area_id or (device.area_id if device else None)
    return ar.async_get(hass).async_get_area(area_id) if area_id else None


def _area_name(hass: HomeAssistant, entry: er.RegistryEntry) -> str | None:
    area = _area(hass, entry)
    return area.name if area else None


def _floor_name(hass: HomeAssistant, entry: er.RegistryEntry) -> str | None:
    area = _area(hass, entry)
    floor = fr.async_get(hass).async_get_floor(area.floor_id) if area and area.floor_id else None
    return floor.name if floor else None


def _device_name(hass: HomeAssistant, entry: er.RegistryEntry) -> str | None:
    device = _device(hass, entry)
    return (device.name_by_user or device.name) if device else None


def _places(words: CallWords) -> tuple[tuple[str, Place], ...]:
    return (
        (words.in_area, _area_name),
        (words.on_floor, _floor_name),
        (words.of_device, _device_name),
    )


def spoken_name(hass: HomeAssistant, entity_id: str, language: str) -> str:
    """Return the entity's name as our texts say it aloud (entity_name, told apart by place)."""
    written = entity_name(hass, entity_id)
    state = hass.states.get(entity_id)
    name = one_line(state.name) if state is not None else ""
    entries = er.async_get(hass)
    entry = entries.async_get(entity_id)
    # Only a plain name said with its id because another is heard alike; a name that shows
    # other than it says, or one cut short, keeps its id.
    cut = state is not None and name != one_line(state.name, len(state.name))
    if entry is None or cut or written != f"{name} ({entity_id})" or hides_its_meaning(name):
        return written
    others = [
        other
        for other in hass.states.async_all(split_entity_id(entity_id)[0])
        if other.entity_id != entity_id
    ]
    said = heard(name)
    alike = [entries.async_get(o.entity_id) for o in others if heard(o.name) == said]
    names_heard = {_as_voiced(other.name) for other in others}
    places = _places(call_words(language))
    # Every place a look-alike is said by, of any kind: "in the Upstairs" and "on the
    # Upstairs" sound alike, so a floor named like a look-alike's area tells nothing apart.
    # A look-alike without a registry entry is in no place: told from one that is.
    there = [
        where
        for other in alike
        if other is not None
        for _, place in places
        if (where := place(hass, other))
    ]
    # One that shows other than it says ("Hall" with a Cyrillic H and a) may look like any.
    if any(hides_its_meaning(where) for where in there):
        return written
    voiced = {_as_voiced(one_line(where)) for where in there}
    for pattern, place in places:
        here = place(hass, entry)
        if not here or hides_its_meaning(here) or _as_voiced(one_line(here)) in voiced:
            continue
        told = pattern.format(name=name, place=one_line(here))
        if _as_voiced(told) not in names_heard:
            return told
    return written


def _as_voiced(text: str) -> str:
    """Return the text as a voice says it: its words folded, the gaps between them unheard.

    "Hallway" and "Hall way" are one word aloud; a place is compared as it is said, on one
    line and cut, so two long names alike up to the cut are alike.
    """
    return heard(text).replace(" ", "")


def aloud(hass: HomeAssistant, text: str, language: str) -> str:
    """Return our text with each look-alike name said by its place instead of its id."""
    for entity_id in dict.fromkeys(_BRACKETED_ID.findall(text)):
        written = entity_name(hass, entity_id)
        if written in text and (told := spoken_name(hass, entity_id, language)) != written:
            text = text.replace(written, told)
    return text
