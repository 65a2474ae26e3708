"""The home's programs, read once and kept until what they were read from changes.

Reading every automation's triggers, conditions and actions (and rendering their templates),
the helpers that follow each entity and the groups each entity is in grew with the house:
150 ms a question at 1,000 automations, on the event loop. The reading is kept and dropped,
to be read again at the next question, on any change it may depend on: a reload, a registry
(repair issues too) or config entry change, an integration or a service that comes or goes,
an entity added or removed, an automation's own state (switched on or off, a run begun or
ended), a group's members, and any entity or domain the programs watch or their templates
read (every state change, when one reads all states). A reading that read what changes with
no event is not kept (templates that read the time or a custom template: custom_templates/);
one read before an MQTT device trigger was announced again (a discovery update changes it
in place, with no event) is read again at the next question.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Final

from custom_components.local_agent.compat import AutomationTrigger
from custom_components.local_agent.const import DOMAIN
from homeassistant.config_entries import SIGNAL_CONFIG_ENTRY_CHANGED
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.const import EVENT_COMPONENT_LOADED
from homeassistant.const import EVENT_CORE_CONFIG_UPDATE
from homeassistant.const import EVENT_SERVICE_REGISTERED
from homeassistant.const import EVENT_SERVICE_REMOVED
from homeassistant.const import EVENT_STATE_CHANGED
from homeassistant.core import CALLBACK_TYPE
from homeassistant.core import Event
from homeassistant.core import EventStateChangedData
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.core import split_entity_id
from homeassistant.helpers.area_registry import EVENT_AREA_REGISTRY_UPDATED
from homeassistant.helpers.device_registry import EVENT_DEVICE_REGISTRY_UPDATED
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.entity_registry import EVENT_ENTITY_REGISTRY_UPDATED
from homeassistant.helpers.floor_registry import EVENT_FLOOR_REGISTRY_UPDATED
from homeassistant.helpers.issue_registry import EVENT_REPAIRS_ISSUE_REGISTRY_UPDATED
from homeassistant.helpers.label_registry import EVENT_LABEL_REGISTRY_UPDATED
from homeassistant.util.event_type import EventType
from homeassistant.util.hass_dict import HassKey

# The events after which any reading may be out of date (blueprints are read again with the
# automations that use them: their reload fires these). A script reload fires no event: it
# replaces each changed script's entity, whose state goes and comes, and the reading keeps no
# script's steps (they are read at each question).
CONFIGURATION_EVENTS: Final[tuple[EventType[Any] | str, ...]] = (
    "automation_reloaded",
    "scene_reloaded",
    "event_template_reloaded",
    EVENT_COMPONENT_LOADED,
    EVENT_CORE_CONFIG_UPDATE,
    EVENT_SERVICE_REGISTERED,
    EVENT_SERVICE_REMOVED,
    EVENT_ENTITY_REGISTRY_UPDATED,
    EVENT_DEVICE_REGISTRY_UPDATED,
    EVENT_AREA_REGISTRY_UPDATED,
    EVENT_FLOOR_REGISTRY_UPDATED,
    EVENT_LABEL_REGISTRY_UPDATED,
    # What templates read with `issues()` and `issue()`.
    EVENT_REPAIRS_ISSUE_REGISTRY_UPDATED,
)
# Whose every state change may change the reading: an automation's (on, off, running).
_ALWAYS_WATCHED: Final = frozenset({"automation"})


@dataclass(frozen=True, slots=True)
class _Watch:
    """What a kept reading depends on among the states."""

    entity_ids: frozenset[str] = frozenset()
    domains: frozenset[str] = frozenset()
    any_entity: bool = False

    def touched_by(self, data: EventStateChangedData) -> bool:
        old, new = data["old_state"], data["new_state"]
        if old is None or new is None or self.any_entity:
            return True
        entity_id = data["entity_id"]
        return (
            entity_id in self.entity_ids
            or split_entity_id(entity_id)[0] in self.domains
            or old.attributes.get(ATTR_ENTITY_ID) != new.attributes.get(ATTR_ENTITY_ID)
        )


@dataclass(frozen=True, slots=True)
class HouseReading:
    """What the gate reads of the whole home for a question, beside what the call names."""

    # Every enabled automation (and trigger-based template section with actions), also
    # watching what it reads (safety/reads.py).
    automations: tuple[AutomationTrigger, ...]
    # Which of them hear each signal of a kind, by key (policy._hearing).
    hearing: Mapping[str, Mapping[str, tuple[int, ...]]]
    # The helpers that follow each entity, and what each helper may switch.
    helpers: Mapping[str, tuple[str, ...]]
    switches: Mapping[str, tuple[str, ...]]
    # The groups each entity is a member of.
    groups: Mapping[str, tuple[str, ...]]
    # What MQTT's device triggers were announced as when it was read (compat): one
    # announced anew since changed in place, with no event, and the reading is read again.
    announced: tuple[tuple[object, ...], ...] = ()


@dataclass(slots=True)
class _Kept:
    reading: HouseReading | None = None
    watch: _Watch = field(default_factory=_Watch)
    unsubscribes: list[CALLBACK_TYPE] = field(default_factory=list)

    @callback
    def drop(self, *_: object) -> None:
        self.reading = None

    @callback
    def dropped(self, _event: Event[Any]) -> None:
        self.reading = None

    @callback
    def state_changed(self, event: Event[EventStateChangedData]) -> None:
        if self.reading is not None and self.watch.touched_by(event.data):
            self.reading = None


_KEPT: HassKey[_Kept] = HassKey(f"{DOMAIN}_house_reading")


def _watching(programs: tuple[AutomationTrigger, ...]) -> _Watch:
    """Return what these programs watch and read among the states, as one _Watch."""
    return _Watch(
        frozenset(e for p in programs for e in p.entity_ids),
        _ALWAYS_WATCHED | {d for p in programs for d in p.domains},
        any(p.any_entity for p in programs),
    )


def kept_reading(hass: HomeAssistant) -> HouseReading | None:
    """Return the kept reading, None when there is none (see the module).

    The caller compares its `announced` with MQTT's device triggers now.
    """
    kept = hass.data.get(_KEPT)
    return kept.reading if kept is not None else None


def keep_reading(hass: HomeAssistant, reading: HouseReading) -> None:
    """Keep this reading until what it was read from changes (see the module).

    Only a reading that read nothing that changes with no event (see the module) may be
    kept: the caller tells.
    """
    kept = hass.data.get(_KEPT)
    if kept is None:
        kept = hass.data[_KEPT] = _Kept()
        kept.unsubscribes.extend(
            hass.bus.async_listen(event_type, kept.dropped) for event_type in CONFIGURATION_EVENTS
        )
        kept.unsubscribes.append(hass.bus.async_listen(EVENT_STATE_CHANGED, kept.state_changed))
        kept.unsubscribes.append(
            async_dispatcher_connect(hass, SIGNAL_CONFIG_ENTRY_CHANGED, kept.drop)
        )
    kept.reading, kept.watch = reading, _watching(reading.automations)


@callback
def forget_reading(hass: HomeAssistant) -> None:
    """Forget the kept reading and stop listening (the integration's last entry unloads)."""
    if (kept := hass.data.pop(_KEPT, None)) is not None:
        for unsubscribe in kept.unsubscribes:
            unsubscribe()
