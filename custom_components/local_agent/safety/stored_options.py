"""An agent's safety options as stored: the entities it names kept by registry id.

A registry id stays the same when the entity id is renamed in the UI, so a renamed entity
stays chosen; the options show the entity ids those ids have now. An entity without a
registry entry (no unique id) can never be renamed: its entity id is stored as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any
from typing import Final

from custom_components.local_agent.const import CONF_EXEMPT_ENTITIES
from custom_components.local_agent.const import CONF_SENSITIVE_ENTITIES
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .policy import current_entity_ids


def stored_refs(hass: HomeAssistant, entity_ids: Iterable[str]) -> list[str]:
    """Return what to store for entities the user chose: registry ids where there are some."""
    registry = er.async_get(hass)
    refs: list[str] = []
    for entity_id in entity_ids:
        entry = registry.async_get(entity_id)
        ref = entry.id if entry is not None else entity_id
        if ref not in refs:
            refs.append(ref)
    return refs


ENTITY_OPTIONS: Final = (CONF_SENSITIVE_ENTITIES, CONF_EXEMPT_ENTITIES)


def options_to_store(hass: HomeAssistant, data: Mapping[str, Any]) -> dict[str, Any]:
    """Return an agent's options with the entities it names as registry ids."""
    return _with_entities(data, lambda refs: stored_refs(hass, refs))


def options_to_show(hass: HomeAssistant, data: Mapping[str, Any]) -> dict[str, Any]:
    """Return an agent's options with the entities it names as the entity ids they have now."""
    return _with_entities(data, lambda refs: current_entity_ids(hass, refs))


def _with_entities(
    data: Mapping[str, Any], convert: Callable[[list[str]], list[str]]
) -> dict[str, Any]:
    converted = dict(data)
    for key in ENTITY_OPTIONS:
        if isinstance(converted.get(key), list):
            converted[key] = convert(converted[key])
    return converted
