"""The entities of helpers set up on an entity: their state follows the entity's.

A helper made in the UI (threshold, min/max, utility meter, statistics, Bayesian ...) keeps the
entities it follows in its config entry's data, options or subentries, by entity id, registry
id or in a template. An entity its own entry names (a hub listing its devices) follows nothing.
An entry that names an entity without following it only makes more questions.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Mapping
import re
from typing import Any
from typing import Final

from custom_components.local_agent.const import DOMAIN
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.core import valid_entity_id
from homeassistant.helpers import entity_registry as er
from homeassistant.util.hass_dict import HassKey

_ID_IN_TEXT: Final = re.compile(r"\b[a-z0-9_]+\.[a-z0-9_]+\b")
# Per entry: the settings read (the objects themselves) and the ids found in them.
_READ: HassKey[dict[str, tuple[tuple[object, ...], tuple[str, ...]]]] = HassKey(
    f"{DOMAIN}_helper_settings_read"
)


def helper_followers(hass: HomeAssistant) -> dict[str, tuple[str, ...]]:
    """Return, for each entity, the entities of the other config entries that name it."""
    registry = er.async_get(hass)
    read = hass.data.get(_READ, {})
    kept: dict[str, tuple[tuple[object, ...], tuple[str, ...]]] = {}
    found: dict[str, list[str]] = {}
    for entry in hass.config_entries.async_entries():
        if entry.domain == DOMAIN:
            continue
        settings = _settings(entry)
        earlier = read.get(entry.entry_id)
        if earlier is not None and _same(earlier[0], settings):
            ids = earlier[1]
        else:
            ids = tuple(dict.fromkeys(i for text in _texts_in(settings) for i in _ids_in(text)))
        kept[entry.entry_id] = (settings, ids)
        named = {
            entity_id
            for word in ids
            if (entity_id := er.async_resolve_entity_id(registry, word)) is not None
            and (hass.states.get(entity_id) is not None or entity_id in registry.entities)
        }
        if not named:
            continue
        own = [e.entity_id for e in er.async_entries_for_config_entry(registry, entry.entry_id)]
        if not own:
            continue
        for source in named.difference(own):
            found.setdefault(source, []).extend(own)
    hass.data[_READ] = kept
    return {source: tuple(entities) for source, entities in found.items()}


def _settings(entry: ConfigEntry) -> tuple[object, ...]:
    return (entry.data, entry.options, *(sub.data for sub in entry.subentries.values()))


def _same(earlier: tuple[object, ...], now: tuple[object, ...]) -> bool:
    """Whether these are the settings read before: an update replaces them with new objects."""
    return len(earlier) == len(now) and all(a is b for a, b in zip(earlier, now, strict=True))


def _ids_in(text: str) -> Iterator[str]:
    """Yield what in a setting may name an entity: all of it, or the ids in its template."""
    if valid_entity_id(text) or "." not in text:
        yield text
        return
    yield from _ID_IN_TEXT.findall(text)


def _texts_in(value: Any) -> Iterator[str]:
    """Yield every string in nested mappings and sequences."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _texts_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts_in(item)
