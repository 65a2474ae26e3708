"""The states a service call may leave the entities it targets in.

A state trigger with `to:` ("when the house mode becomes Night, lock the front door") fires
only when the entity's state changes to a state it names: selecting "Away" does not set it
off. What an entity service's call leaves its target in is told here for the services whose
entity classes fix their state (a toggle entity's on or off, a select's option, a climate
entity's HVAC mode, a cover's or valve's movement), and only where Home Assistant's entity
service calls the target's own method (compat.service_entities: the handler, not the name).
Any other call may leave any state (None).
"""

from __future__ import annotations

from collections.abc import Mapping
import math
from typing import Any
from typing import Final

from custom_components.local_agent.compat import service_entities
from homeassistant.const import STATE_OFF
from homeassistant.const import STATE_ON
from homeassistant.core import HomeAssistant
from homeassistant.core import split_entity_id
from homeassistant.helpers import intent
from homeassistant.helpers.template import Template

# Toggle entities: their state is on or off, whatever their integration (ToggleEntity's final
# `state`).
_SWITCHED: Final = frozenset(
    {"fan", "humidifier", "input_boolean", "light", "remote", "siren", "switch"}
)
_TOGGLED: Final = frozenset({STATE_ON, STATE_OFF})
# Core's intents that switch a toggle entity, with the service their handler calls.
_SWITCHING_INTENTS: Final = {intent.INTENT_TURN_ON: "turn_on", intent.INTENT_TURN_OFF: "turn_off"}
# A turn-on with one of these values at zero or below turns a light or fan off, as Home
# Assistant converts it (_lit): `white: 0` too.
_DIMMING: Final = ("brightness", "brightness_pct", "percentage", "white")
# Converted as round(255 * value / 100); the others are cut to whole numbers (Coerce(int)).
_PERCENT_OF_FULL: Final = "brightness_pct"
# A turn-on with one of these may end off: a step down, a flash (on and back).
_MAY_END_OFF: Final = ("brightness_step", "brightness_step_pct", "percentage_step", "flash")
# What may switch itself back off after a turn-on: a siren sounds for its duration (its own
# default when the call gives none); a switch may be a momentary relay (a door strike's, a
# gate's button) that its firmware releases.
_MAY_SWITCH_BACK: Final = frozenset({"siren", "switch"})
# Services whose targets end in these states, moving or stuck on the way.
_MOVING: Final[Mapping[tuple[str, str], frozenset[str]]] = {
    ("cover", "open_cover"): frozenset({"opening", "open"}),
    ("cover", "close_cover"): frozenset({"closing", "closed"}),
    ("valve", "open_valve"): frozenset({"opening", "open"}),
    ("valve", "close_valve"): frozenset({"closing", "closed"}),
    ("lock", "lock"): frozenset({"locking", "locked", "jammed"}),
    # A lock that unlatches as it unlocks may say it is open.
    ("lock", "unlock"): frozenset({"unlocking", "unlocked", "opening", "open", "jammed"}),
}
# Services whose targets take the state their data names: (domain, service): the data key.
_CHOSEN: Final[Mapping[tuple[str, str], str]] = {
    ("input_select", "select_option"): "option",
    ("select", "select_option"): "option",
    ("climate", "set_hvac_mode"): "hvac_mode",
}


def states_after(
    hass: HomeAssistant, domain: str, service: str, data: Mapping[str, Any], entity_id: str
) -> frozenset[str] | None:
    """Return the states a call may leave this target in; None when it may leave any.

    A target of another domain than the service's (a group) or one the service's handler was
    not registered for may do anything.
    """
    if split_entity_id(entity_id)[0] != domain:
        return None
    entities = service_entities(hass, domain, service)
    if entities is None or entity_id not in entities:
        return None
    return _states(domain, service, data)


def _states(domain: str, service: str, data: Mapping[str, Any]) -> frozenset[str] | None:
    if domain in _SWITCHED:
        if service == "turn_off":
            return frozenset({STATE_OFF})
        if service == "turn_on":
            ends_off = (
                domain in _MAY_SWITCH_BACK
                or any(key in data for key in _MAY_END_OFF)
                or any(key in data and not _lit(key, data[key]) for key in _DIMMING)
            )
            return _TOGGLED if ends_off else frozenset({STATE_ON})
        if service == "toggle":
            return _TOGGLED
        return None
    if (moving := _MOVING.get((domain, service))) is not None:
        return moving
    if domain == "climate" and service == "turn_off":
        return frozenset({STATE_OFF})
    key = _CHOSEN.get((domain, service))
    value = None if key is None else data.get(key)
    if isinstance(value, Template) and value.is_static:
        value = value.template
    return frozenset({value}) if isinstance(value, str) else None


def _lit(key: str, value: Any) -> bool:
    """Whether a dimming value leaves the light or fan on once Home Assistant converts it.

    A brightness of 0.1 % is round(255 * 0.1 / 100) = 0, a brightness (or fan percentage) of
    0.4 is cut to 0: both turn it off. A template or text that is no number: unknown.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return False
    try:
        number = float(value)
    except ValueError:
        return False
    if not math.isfinite(number):
        return False
    if key == _PERCENT_OF_FULL:
        return round(255 * number / 100) > 0
    return int(number) > 0


def states_after_intent(
    hass: HomeAssistant, intent_type: str | None, entity_id: str
) -> frozenset[str] | None:
    """Return the states core's switching intent may leave a target in; None: any.

    Core's HassTurnOn and HassTurnOff (their handler is checked where the call is reviewed)
    call a toggle entity's own `turn_on` and `turn_off`; other targets (a cover, a lock) get
    other services.
    """
    service = _SWITCHING_INTENTS.get(intent_type or "")
    domain = split_entity_id(entity_id)[0]
    if service is None or domain not in _SWITCHED:
        return None
    return states_after(hass, domain, service, {}, entity_id)
