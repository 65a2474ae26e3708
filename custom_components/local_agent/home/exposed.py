"""The entities exposed to an assistant, kept as an index so a turn does not walk the house.

Built once by walking every state, then dropped (and built again on the next turn) when an
entity comes or goes, a registry entry changes (its exposure is kept in its options, its
category and hidden flag decide the default) or an unregistered entity's exposure is set. A
stale index can only offer or hide an entity in the prompt: every call is checked against
Home Assistant's exposure again when it runs (runner.py).
"""

from __future__ import annotations

from typing import Any

from homeassistant.components.homeassistant.exposed_entities import async_listen_entity_updates
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.const import EVENT_STATE_CHANGED
from homeassistant.core import CALLBACK_TYPE
from homeassistant.core import Event
from homeassistant.core import EventStateChangedData
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import entity_registry as er
from homeassistant.util.hass_dict import HassKey

_INDEX: HassKey[dict[str, tuple[str, ...] | None]] = HassKey("local_agent_exposed_index")
_UNLISTEN: HassKey[list[CALLBACK_TYPE]] = HassKey("local_agent_exposed_index_listeners")


def exposed_entity_ids(hass: HomeAssistant, assistant: str) -> tuple[str, ...]:
    """Return the ids of the entities exposed to `assistant`, in the state machine's order."""
    if _INDEX not in hass.data:
        _listen_for_changes(hass)
    index = hass.data[_INDEX]
    if assistant not in index:

        @callback
        def exposure_set() -> None:
            index[assistant] = None

        hass.data[_UNLISTEN].append(async_listen_entity_updates(hass, assistant, exposure_set))
    if (found := index.get(assistant)) is None:
        # Built before it is stored: the registry updates that deciding a new entity's
        # default exposure makes must not drop the index this walk builds.
        found = _walk(hass, assistant)
        index[assistant] = found
    return found


def _walk(hass: HomeAssistant, assistant: str) -> tuple[str, ...]:
    return tuple(
        state.entity_id
        for state in hass.states.async_all()
        if async_should_expose(hass, assistant, state.entity_id)
    )


@callback
def _listen_for_changes(hass: HomeAssistant) -> None:
    """Drop every assistant's index when an entity comes or goes or a registry entry changes."""
    hass.data[_INDEX] = {}

    @callback
    def forget(_event: Event[Any]) -> None:
        index = hass.data[_INDEX]
        for assistant in index:
            index[assistant] = None

    @callback
    def came_or_went(event_data: EventStateChangedData) -> bool:
        return event_data["old_state"] is None or event_data["new_state"] is None

    hass.data[_UNLISTEN] = [
        hass.bus.async_listen(EVENT_STATE_CHANGED, forget, event_filter=came_or_went),
        hass.bus.async_listen(er.EVENT_ENTITY_REGISTRY_UPDATED, forget),
    ]


@callback
def forget_exposed_index(hass: HomeAssistant) -> None:
    """Drop the index and stop listening (no entry of ours is loaded any more)."""
    for unlisten in hass.data.pop(_UNLISTEN, []):
        unlisten()
    if (index := hass.data.pop(_INDEX, None)) is not None:
        index.clear()
