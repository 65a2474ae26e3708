"""The calls a turn can make: a planned call of our own tools, or a call of an LLM API tool.

Also the states a call may leave the entities it targets in. A state trigger with `to:`
("when the house mode becomes Night, lock the front door") fires only when the entity's
state changes to a state it names: selecting "Away" does not set it off. They are told for
the services whose entity classes fix their state (a toggle entity's on or off, a select's
option, a climate entity's HVAC mode, a cover's, valve's or lock's movement), and only where
Home Assistant's entity service calls the target's own method (compat.service_entities: the
handler, not the name). Any other call may leave any state (None).
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
import math
from types import MappingProxyType
from typing import TYPE_CHECKING
from typing import Any
from typing import Final

from homeassistant.const import STATE_OFF
from homeassistant.const import STATE_ON
from homeassistant.core import split_entity_id
from homeassistant.helpers import intent
from homeassistant.helpers import llm
from homeassistant.helpers.template import Template

if TYPE_CHECKING:
    from .call_texts import Said

# Toggle entities: their state is on or off, whatever their integration (ToggleEntity's final
# `state`).
_SWITCHED: Final = frozenset(
    {"fan", "humidifier", "input_boolean", "light", "remote", "siren", "switch"}
)
_TOGGLED: Final = frozenset({STATE_ON, STATE_OFF})
# Core's intents that switch a toggle entity, with the service their handler calls.
_SWITCHING_INTENTS: Final = {intent.INTENT_TURN_ON: "turn_on", intent.INTENT_TURN_OFF: "turn_off"}
# Core's intents that change only a media player's volume, with the service whose entity
# method their handler calls (HassSetVolumeRelative calls volume_up, volume_down or
# set_volume_level itself): the player's state stays as it is (compat.keeps_player_state).
_VOLUME_INTENTS: Final = {
    "HassSetVolume": "volume_set",
    "HassSetVolumeRelative": "volume_set",
    "HassMediaPlayerMute": "volume_mute",
    "HassMediaPlayerUnmute": "volume_mute",
}
# Core's HassLightSet: its handler calls `light.turn_on` on the lights it matched, with its
# brightness slot as `brightness_pct` (0 turns the light off) and a colour that leaves it on.
_LIGHT_SET: Final = "HassLightSet"
_LIGHT_SET_BRIGHTNESS: Final = ("brightness", "brightness_pct")
# A turn-on with one of these values at zero or below turns a light or fan off, as Home
# Assistant converts it (_lit): `white: 0` too.
_DIMMING: Final = ("brightness", "brightness_pct", "percentage", "white")
# Converted as round(255 * value / 100); the others are cut to whole numbers (Coerce(int)).
_PERCENT_OF_FULL: Final = "brightness_pct"
# What a light profile sets (0 to 255).
_BRIGHTNESS: Final = "brightness"
# A turn-on with one of these may end off: a step down, a flash (on and back).
_MAY_END_OFF: Final = ("brightness_step", "brightness_step_pct", "percentage_step", "flash")
# What may end off after a turn-on: a siren sounds for its duration (its own default when the
# call gives none); a switch may be a momentary relay (a door strike's, a gate's button) that
# its firmware releases; a remote starts the activity its hub is given, and a hub's "power
# off" is one (Harmony's `PowerOff`: its remote is off when that runs).
_MAY_SWITCH_BACK: Final = frozenset({"remote", "siren", "switch"})
# Services whose targets end in these states, moving or stuck on the way. A cover or valve
# stopped on its way (its stop button, an obstruction) is open, whichever way it moved: Home
# Assistant says open for anything not closed; one being closed that reverses on an
# obstruction is opening on its way back.
_MOVING: Final[Mapping[tuple[str, str], frozenset[str]]] = {
    ("cover", "open_cover"): frozenset({"opening", "open"}),
    ("cover", "close_cover"): frozenset({"closing", "closed", "opening", "open"}),
    ("valve", "open_valve"): frozenset({"opening", "open"}),
    ("valve", "close_valve"): frozenset({"closing", "closed", "opening", "open"}),
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


def call_states(
    domain: str, service: str, data: Mapping[str, Any], profiles: Iterable[Any] = ()
) -> frozenset[str] | None:
    """Return the states an entity service's call may leave a target of its domain in.

    None when it may leave any. Only where the service's registered handler calls the
    target's own method (safety/policy.py checks that, by the handler). profiles: the
    brightnesses a light's profiles may give its turn-on (compat.light_profile_brightness).
    """
    if domain in _SWITCHED:
        if service == "turn_off":
            return frozenset({STATE_OFF})
        if service == "turn_on":
            ends_off = (
                domain in _MAY_SWITCH_BACK
                or any(key in data for key in _MAY_END_OFF)
                or any(key in data and not _lit(key, data[key]) for key in _DIMMING)
                or any(not _lit(_BRIGHTNESS, value) for value in profiles)
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
    except ValueError, OverflowError:
        return False
    if not math.isfinite(number):
        return False
    if key == _PERCENT_OF_FULL:
        return round(255 * number / 100) > 0
    return int(number) > 0


@dataclass(frozen=True, slots=True)
class ToolFailure:
    """A call refused before anything happened; the message is for the model.

    `reason`: why, as the person hears it after "I could not …" (empty: no short reason).
    """

    message: str
    reason: tuple[Said, ...] = ()


@dataclass(frozen=True, slots=True)
class PlannedAction:
    """A validated call, exactly as it will be executed; `data` excludes entity_id.

    `domain` and `service` are None for the read-only `get_state` tool.
    """

    tool_name: str
    domain: str | None
    service: str | None
    entity_ids: tuple[str, ...]
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Freeze the data so a stored (pending) action cannot be altered."""
        object.__setattr__(self, "data", MappingProxyType(dict(self.data)))

    @property
    def read_only(self) -> bool:
        """Return whether this action only reads states."""
        return self.service is None

    @property
    def targets(self) -> tuple[str, ...]:
        """The entities the call acts on."""
        return self.entity_ids

    def services(self) -> dict[str, tuple[str, str, Mapping[str, Any]]]:
        """Return each target with the service called on it and its data (none: read only)."""
        if self.domain is None or self.service is None:
            return {}
        return dict.fromkeys(self.entity_ids, (self.domain, self.service, self.data))


@dataclass(frozen=True, slots=True)
class ApiCall:
    """A call of a Home Assistant LLM API tool, with what the safety gate found it changes.

    `targets` are the entities it changes, resolved as Home Assistant's own handler resolves
    them; None when they cannot be known (a tool of unknown effect). `intent_type` is the
    intent it runs, if it is an intent tool.
    """

    tool: llm.Tool
    arguments: Mapping[str, Any]
    targets: tuple[str, ...] | None = None
    intent_type: str | None = None
    read_only: bool = False

    def __post_init__(self) -> None:
        """Freeze the arguments so a stored (pending) call cannot be altered."""
        object.__setattr__(self, "arguments", MappingProxyType(dict(self.arguments)))

    @property
    def tool_name(self) -> str:
        """The tool's name as the API offers it."""
        return self.tool.name

    def services(self) -> dict[str, tuple[str, str, Mapping[str, Any]]]:
        """Return the targets whose service is known, with it and its data.

        Core's HassTurnOn and HassTurnOff (their handler is checked where the call is
        reviewed: `intent_type` is set only then) call a toggle entity's own `turn_on` and
        `turn_off`; other targets (a cover, a lock) get other services. Core's HassLightSet
        calls a light's `turn_on` with its brightness (as `brightness_pct`); its volume
        intents a media player's volume service.
        """
        if self.intent_type == _LIGHT_SET:
            slot, field_name = _LIGHT_SET_BRIGHTNESS
            data = {field_name: self.arguments[slot]} if slot in self.arguments else {}
            return {
                entity_id: ("light", "turn_on", data)
                for entity_id in self.targets or ()
                if split_entity_id(entity_id)[0] == "light"
            }
        if (volume := _VOLUME_INTENTS.get(self.intent_type or "")) is not None:
            return {
                entity_id: ("media_player", volume, {})
                for entity_id in self.targets or ()
                if split_entity_id(entity_id)[0] == "media_player"
            }
        service = _SWITCHING_INTENTS.get(self.intent_type or "")
        if service is None:
            return {}
        return {
            entity_id: (domain, service, {})
            for entity_id in self.targets or ()
            if (domain := split_entity_id(entity_id)[0]) in _SWITCHED
        }


type Call = PlannedAction | ApiCall
