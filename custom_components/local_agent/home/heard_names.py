"""The names a domain's entities are heard by, kept as an index so a question does not walk it.

Built for a domain by walking its states the first time a question names one of its entities,
then dropped when an entity of that domain comes or goes or its name changes (a state change:
a name is a state's). Dropped at once, before any question is asked again, so a question never
takes a name for the only one of its kind while another entity is heard the same.
"""

from __future__ import annotations

from homeassistant.const import EVENT_STATE_CHANGED
from homeassistant.core import CALLBACK_TYPE
from homeassistant.core import Event
from homeassistant.core import EventStateChangedData
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.core import split_entity_id
from homeassistant.util.hass_dict import HassKey

from .entity_view import heard

_INDEX: HassKey[dict[str, dict[str, frozenset[str]]]] = HassKey("local_agent_heard_names")
_UNLISTEN: HassKey[CALLBACK_TYPE] = HassKey("local_agent_heard_names_listener")


def entities_heard_as(hass: HomeAssistant, domain: str, said: str) -> frozenset[str]:
    """Return the entities of the domain whose name is heard as `said` (entity_view.heard)."""
    if _INDEX not in hass.data:
        _listen_for_changes(hass)
    index = hass.data[_INDEX]
    if (names := index.get(domain)) is None:
        found: dict[str, set[str]] = {}
        for state in hass.states.async_all(domain):
            found.setdefault(heard(state.name), set()).add(state.entity_id)
        names = index[domain] = {name: frozenset(ids) for name, ids in found.items()}
    return names.get(said, frozenset())


@callback
def _listen_for_changes(hass: HomeAssistant) -> None:
    hass.data[_INDEX] = {}

    @callback
    def forget(event: Event[EventStateChangedData]) -> None:
        hass.data[_INDEX].pop(split_entity_id(event.data["entity_id"])[0], None)

    @callback
    def renamed(event_data: EventStateChangedData) -> bool:
        old, new = event_data["old_state"], event_data["new_state"]
        return old is None or new is None or old.name != new.name

    hass.data[_UNLISTEN] = hass.bus.async_listen(EVENT_STATE_CHANGED, forget, event_filter=renamed)


@callback
def forget_heard_names(hass: HomeAssistant) -> None:
    """Drop the index and stop listening (no entry of ours is loaded any more)."""
    if (unlisten := hass.data.pop(_UNLISTEN, None)) is not None:
        unlisten()
    hass.data.pop(_INDEX, None)
