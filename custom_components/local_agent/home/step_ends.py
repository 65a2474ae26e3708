"""Which targets a step ("dimmer", "louder", "faster") finds already at the end it steps toward.

Home Assistant's own handlers stop a step at its end: a light stepped down from off stays off
(its brightness counts as 0), one at full brightness stepped up stays at 100 %, a player's
volume stays between 0 and 1, a fan's speed between 0 and 100 %, and a player that is off has
no volume to step. Such a call succeeds and changes nothing; what the person hears is that the
target already was so, not the model's "I dimmed it".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from typing import Final

from homeassistant.const import STATE_OFF
from homeassistant.core import HomeAssistant
from homeassistant.core import State

from .actions import Call
from .actions import PlannedAction
from .service_catalog import Quantity

# A light's step fields, and a field a step may come with that changes nothing at its end.
_LIGHT_STEPS: Final = frozenset({"brightness_step", "brightness_step_pct"})
_WITH_A_STEP: Final = frozenset({"transition"})
_FULL_BRIGHTNESS: Final = 255
# Steps without fields, by domain: up (+1) or down (-1), and the attribute (0 to `top`) they move.
_STEPS: Final[Mapping[tuple[str, str], tuple[int, str, float]]] = {
    ("media_player", "volume_up"): (1, "volume_level", 1),
    ("media_player", "volume_down"): (-1, "volume_level", 1),
    ("fan", "increase_speed"): (1, "percentage", 100),
    ("fan", "decrease_speed"): (-1, "percentage", 100),
}
# Every (domain, service) that may step (a light's turn_on with a step field): what the runner
# asks about, so a call of any other kind never reaches this module.
STEP_SERVICES: Final = frozenset({("light", "turn_on"), *_STEPS})
# The attributes a step moves.
_LEVELS: Final = ("brightness", "volume_level", "percentage")
# Said at their end in percent (a volume is a fraction of one).
_PERCENT_OF: Final[Mapping[str, float]] = {"volume_level": 100, "percentage": 1}


def at_their_end(hass: HomeAssistant, call: Call) -> dict[str, Quantity | None]:
    """Return each target the step finds at its end, with the level it is at (None: its state).

    Empty for a call that is no step or for a target that is not at the end; read before the
    call runs (the runner then checks nothing moved).
    """
    if not isinstance(call, PlannedAction) or call.domain is None or call.service is None:
        return {}
    ends: dict[str, Quantity | None] = {}
    for entity_id in call.entity_ids:
        state = hass.states.get(entity_id)
        if state is None or entity_id.split(".", 1)[0] != call.domain:
            continue
        if (found := _end_found(call, state)) is not None:
            ends[entity_id] = found if isinstance(found, Quantity) else None
    return ends


def still_there(hass: HomeAssistant, before: Mapping[str, State]) -> bool:
    """Whether each target shows the state and levels it showed before the step ran."""
    return all(
        (now := hass.states.get(entity_id)) is not None
        and now.state == was.state
        and all(now.attributes.get(key) == was.attributes.get(key) for key in _LEVELS)
        for entity_id, was in before.items()
    )


def _end_found(call: PlannedAction, state: State) -> Quantity | str | None:
    """Return the level the step finds `state` at when that is its end ("off": off); else None."""
    if call.domain == "light" and call.service == "turn_on":
        return _light_end(call.data, state)
    step = _STEPS.get((str(call.domain), str(call.service)))
    if step is None or call.data:
        return None
    direction, attribute, top = step
    if state.state == STATE_OFF:
        # Off: nothing to turn up on a player; a fan slowed down from off stays off.
        return STATE_OFF if call.domain == "media_player" or direction < 0 else None
    level = _number(state.attributes.get(attribute))
    if level is None or level != (top if direction > 0 else 0):
        return None
    return Quantity(round(level * _PERCENT_OF[attribute]), "%")


def _light_end(data: Mapping[str, Any], state: State) -> Quantity | str | None:
    steps = [_number(data[key]) for key in _LIGHT_STEPS & data.keys()]
    if len(steps) != 1 or data.keys() - _LIGHT_STEPS - _WITH_A_STEP:
        return None
    step = steps[0]
    if step is None or step == 0:
        return None
    if state.state == STATE_OFF and step < 0:
        return STATE_OFF
    if step > 0 and _number(state.attributes.get("brightness")) == _FULL_BRIGHTNESS:
        return Quantity(100, "%")
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
