"""How exposed entities look to the model and sound to a person: names, areas, aliases, state."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from datetime import timedelta
import re
from typing import Any
from typing import Final
import unicodedata
from unicodedata import combining

from custom_components.local_agent.engine.spoken_numbers import spoken_number
from custom_components.local_agent.engine.words import DIGIT_WORDS
from custom_components.local_agent.engine.words import MINUS_WORD
from custom_components.local_agent.engine.words import NUMBER_JOINERS
from custom_components.local_agent.engine.words import NUMBER_WORDS
from custom_components.local_agent.engine.words import ORDINAL_DIGITS
from custom_components.local_agent.engine.words import ORDINAL_WORDS
from custom_components.local_agent.engine.words import QUANTITY_WORDS
from custom_components.local_agent.engine.words import fold
from homeassistant.components.sensor import async_rounded_state
from homeassistant.const import ATTR_UNIT_OF_MEASUREMENT
from homeassistant.const import EVENT_STATE_CHANGED
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.const import STATE_UNKNOWN
from homeassistant.core import CALLBACK_TYPE
from homeassistant.core import Event
from homeassistant.core import EventStateChangedData
from homeassistant.core import HomeAssistant
from homeassistant.core import State
from homeassistant.core import callback
from homeassistant.core import split_entity_id
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.util import dt as dt_util
from homeassistant.util.hass_dict import HassKey

from .call_words import ENGLISH_WORDS
from .call_words import WORDS_BY_LANGUAGE
from .colours import named_colour

NO_AREA: Final = "No area"
_MINUTES: Final = "%Y-%m-%d %H:%M"
_SECONDS: Final = "%Y-%m-%d %H:%M:%S"
# Others write the names and values the home list shows (an area, a floor, a song's title), and
# each is said on one line of at most this many characters: a line break in one started a
# heading or an entity line of its own ("Kitchen):\n- lock.front_door: unlocked").
MAX_NAME_CHARS: Final = 100
MAX_VALUE_CHARS: Final = 200
# Characters that only reorder how a text is displayed (a right-to-left override).
_DIRECTION_CONTROLS: Final = re.compile("[\u202a-\u202e\u2066-\u2069]")
# Control characters that are no space (NUL, BEL, ESC, DEL, C1): neither seen nor said.
_CONTROLS: Final = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]")
# A run of spaces and line breaks; not a no-break space (French puts one before ":" "?" "!").
_SPACES: Final = re.compile("[^\\S\u00a0\u202f]+")
# Keys of a state_summary other than its attributes.
_SUMMARY_KEYS: Final = frozenset({"entity_id", "name", "area", "state"})

# Per domain: (state attribute, key shown to the model). Keys match tool field names
# where one exists, so "position=70" reads as the value set_cover_position takes.
_ATTRIBUTES: Final[Mapping[str, tuple[tuple[str, str], ...]]] = {
    "binary_sensor": (("device_class", "device_class"),),
    "climate": (
        ("current_temperature", "current_temperature"),
        ("temperature", "temperature"),
        ("target_temp_low", "target_temp_low"),
        ("target_temp_high", "target_temp_high"),
        ("current_humidity", "current_humidity"),
        ("hvac_action", "hvac_action"),
        ("hvac_modes", "hvac_modes"),
        ("preset_mode", "preset_mode"),
        ("preset_modes", "preset_modes"),
        ("fan_mode", "fan_mode"),
        ("fan_modes", "fan_modes"),
    ),
    "cover": (
        ("device_class", "device_class"),
        ("current_position", "position"),
        ("current_tilt_position", "tilt_position"),
    ),
    "fan": (
        ("percentage", "percentage"),
        ("preset_mode", "preset_mode"),
        ("preset_modes", "preset_modes"),
        ("oscillating", "oscillating"),
        ("direction", "direction"),
    ),
    "humidifier": (
        ("humidity", "humidity"),
        ("current_humidity", "current_humidity"),
        ("mode", "mode"),
        ("available_modes", "available_modes"),
    ),
    "input_number": (("min", "min"), ("max", "max"), ("unit_of_measurement", "unit")),
    "input_select": (("options", "options"),),
    "media_player": (
        ("media_title", "media_title"),
        ("media_artist", "media_artist"),
        ("volume_level", "volume_level"),
        ("is_volume_muted", "is_volume_muted"),
        ("source", "source"),
        ("source_list", "source_list"),
    ),
    "number": (("min", "min"), ("max", "max"), ("unit_of_measurement", "unit")),
    "remote": (("current_activity", "activity"), ("activity_list", "activity_list")),
    "select": (("options", "options"),),
    "siren": (("available_tones", "available_tones"),),
    "timer": (("duration", "duration"), ("remaining", "remaining"), ("finishes_at", "finishes_at")),
    "update": (("installed_version", "installed_version"), ("latest_version", "latest_version")),
    "vacuum": (
        ("fan_speed", "fan_speed"),
        ("fan_speed_list", "fan_speed_list"),
        ("battery_level", "battery_level"),
    ),
    "valve": (("device_class", "device_class"), ("current_position", "position")),
    "water_heater": (
        ("current_temperature", "current_temperature"),
        ("temperature", "temperature"),
        ("operation_mode", "operation_mode"),
        ("operation_list", "operation_list"),
        ("away_mode", "away_mode"),
    ),
}

# A weather entity's values, each with the attribute of its unit (the entity's own, which
# may differ from the home's): "wind_speed=15 km/h", where a bare 15 could be mph.
_WEATHER_UNITS: Final[Mapping[str, str | None]] = {
    "temperature": "temperature_unit",
    "humidity": None,  # percent
    "wind_speed": "wind_speed_unit",
    "pressure": "pressure_unit",
}


# A binary sensor's on and off in words, by device class (after Home Assistant's state names,
# with the kind where the word alone would not say it): "on" is unlocked for a lock sensor,
# low for a battery, and "on; device_class=door" costs the model six tokens to say "open".
_BINARY_SENSOR_WORDS: Final[Mapping[str, tuple[str, str]]] = {
    "battery": ("battery normal", "battery low"),
    "battery_charging": ("not charging", "charging"),
    "carbon_monoxide": ("no carbon monoxide", "carbon monoxide detected"),
    "cold": ("not cold", "cold"),
    "connectivity": ("disconnected", "connected"),
    "door": ("door closed", "door open"),
    "garage_door": ("garage door closed", "garage door open"),
    "gas": ("no gas", "gas detected"),
    "glass_break": ("no glass break", "glass break detected"),
    "heat": ("not hot", "hot"),
    "light": ("no light", "light detected"),
    "lock": ("locked", "unlocked"),
    "moisture": ("dry", "wet"),
    "motion": ("no motion", "motion detected"),
    "moving": ("not moving", "moving"),
    "occupancy": ("not occupied", "occupied"),
    "opening": ("closed", "open"),
    "plug": ("unplugged", "plugged in"),
    "presence": ("away", "home"),
    "problem": ("no problem", "problem"),
    "running": ("not running", "running"),
    "safety": ("safe", "unsafe"),
    "smoke": ("no smoke", "smoke detected"),
    "sound": ("no sound", "sound detected"),
    "tamper": ("no tampering", "tampering detected"),
    "update": ("up to date", "update available"),
    "vibration": ("no vibration", "vibration detected"),
    "window": ("window closed", "window open"),
}

# Per domain and state: attribute values the state already says (a fan that is off is at 0 %).
_IMPLIED_BY_STATE: Final[Mapping[tuple[str, str], Mapping[str, Any]]] = {
    ("fan", "off"): {"percentage": 0},
    ("cover", "closed"): {"position": 0},
    ("cover", "open"): {"position": 100},
    ("valve", "closed"): {"position": 0},
    ("valve", "open"): {"position": 100},
}

# Values that change by the second, each with the steady one that says them (a running
# timer's time left, by its end): read when asked, never a change of the home list.
_LIVE: Final = {"remaining": "finishes_at"}

# Choices an entity offers; stable, long, and only needed when the model picks one.
_OPTION_LISTS: Final = frozenset(
    {
        "activity_list",
        "available_modes",
        "available_tones",
        "fan_modes",
        "fan_speed_list",
        "hvac_modes",
        "operation_list",
        "options",
        "preset_modes",
        "source_list",
    }
)


@dataclass(frozen=True, slots=True)
class EntityInfo:
    """Who an entity is, in the words a user would use."""

    entity_id: str
    name: str
    area: str | None
    aliases: tuple[str, ...]
    floor: str | None = None
    # What else the area and its floor answer to, as Home Assistant's own intents match them.
    area_aliases: tuple[str, ...] = ()
    floor_aliases: tuple[str, ...] = ()

    @property
    def area_heading(self) -> str:
        """The area as the home list heads its entities, said once per area.

        With its aliases, and its floor with the floor's: "the lounge" or "downstairs" finds
        its entities.
        """
        if self.area is None:
            return NO_AREA
        heading = one_line(self.area) + _aliases_text(self.area_aliases)
        if self.floor is None:
            return heading
        return f"{heading} (floor: {one_line(self.floor)}{_aliases_text(self.floor_aliases)})"


def _aliases_text(aliases: Iterable[str]) -> str:
    """Return " (aliases: a, b)", each alias on one line; nothing without one."""
    said = ", ".join(one_line(alias) for alias in aliases)
    return f" (aliases: {said})" if said else ""


def one_line(text: str, limit: int = MAX_NAME_CHARS) -> str:
    """Return text on one line, its runs of spaces and breaks one space, cut at limit."""
    flat = _SPACES.sub(" ", _CONTROLS.sub("", _DIRECTION_CONTROLS.sub("", text))).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def entity_info(hass: HomeAssistant, state: State) -> EntityInfo:
    """Return the name, area and aliases of an entity."""
    entry = er.async_get(hass).async_get(state.entity_id)
    name = state.name.strip()
    if entry is None:
        return EntityInfo(state.entity_id, name, None, ())
    aliases = er.async_get_entity_aliases(hass, entry)
    unique = tuple(dict.fromkeys(a for a in aliases if a and a.casefold() != name.casefold()))
    area = _area(hass, entry)
    if area is None:
        return EntityInfo(state.entity_id, name, None, unique)
    floor = fr.async_get(hass).async_get_floor(area.floor_id) if area.floor_id else None
    return EntityInfo(
        state.entity_id,
        name,
        area.name,
        unique,
        floor.name if floor else None,
        _other_names(area.aliases, area.name),
        _other_names(floor.aliases, floor.name) if floor else (),
    )


def _other_names(aliases: Iterable[str], name: str) -> tuple[str, ...]:
    """Return the aliases that differ from the name and each other, sorted (a set has no order)."""
    said = {alias.strip().casefold(): alias.strip() for alias in sorted(aliases) if alias.strip()}
    said.pop(name.strip().casefold(), None)
    return tuple(said.values())


def _area(hass: HomeAssistant, entry: er.RegistryEntry) -> ar.AreaEntry | None:
    area_id = entry.area_id
    if area_id is None and entry.device_id is not None:
        device = dr.async_get(hass).async_get(entry.device_id)
        area_id = dr.async_get_effective_area_id(hass, device) if device else None
    return ar.async_get(hass).async_get_area(area_id) if area_id else None


def relevant_attributes(hass: HomeAssistant, state: State) -> dict[str, Any]:
    """Return the attributes that matter for talking about this entity."""
    attributes: dict[str, Any] = {}
    if state.domain == "light":
        attributes.update(_light_attributes(hass, state))
    if state.domain == "weather":
        attributes.update(_weather_attributes(state))
    for attribute, key in _ATTRIBUTES.get(state.domain, ()):
        value = state.attributes.get(attribute)
        if value is not None and value != []:
            attributes[key] = _plain(value)
    if _binary_sensor_words(state) is not None:
        del attributes["device_class"]  # the state's words say it
    if (ends := local_moment(attributes.get("finishes_at"))) is not None:
        # A running timer's remaining is what it was when it started: its end says it.
        attributes["finishes_at"] = ends
        attributes.pop("remaining", None)
    return attributes


def local_moment(value: Any) -> str | None:
    """Return a moment Home Assistant keeps in UTC as the home's clocks show it.

    None when the value is no moment with its time zone.
    """
    moment = _moment(value)
    if moment is None:
        return None
    try:
        local = dt_util.as_local(moment)
    except OverflowError:  # year 1 or 9999, written by another integration: no clock shows it
        return None
    return local.strftime(_SECONDS if moment.second else _MINUTES)


def _moment(value: Any) -> datetime | None:
    moment = dt_util.parse_datetime(value) if isinstance(value, str) else None
    return moment if moment is not None and moment.tzinfo is not None else None


def _time_left(state: State) -> dict[str, str]:
    """Return how long a running timer has left now, as Home Assistant writes a duration."""
    ends = _moment(state.attributes.get("finishes_at")) if state.domain == "timer" else None
    if ends is None:
        return {}
    left = max(timedelta(), ends - dt_util.utcnow())
    return {"remaining": str(timedelta(seconds=round(left.total_seconds())))}


def _binary_sensor_words(state: State) -> tuple[str, str] | None:
    """Return the words for off and on of a binary sensor whose device class has them."""
    if state.domain != "binary_sensor":
        return None
    return _BINARY_SENSOR_WORDS.get(str(state.attributes.get("device_class")))


def _light_attributes(hass: HomeAssistant, state: State) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    if isinstance(brightness := state.attributes.get("brightness"), (int, float)):
        attributes["brightness_pct"] = max(1, round(brightness / 255 * 100)) if brightness else 0
    if state.attributes.get("color_mode") == "color_temp":
        if (kelvin := state.attributes.get("color_temp_kelvin")) is not None:
            attributes["color_temp_kelvin"] = kelvin
    elif (name := named_colour(hass, state.attributes.get("hs_color"))) is not None:
        attributes["color_name"] = name  # what a small model says right ("rot"), unlike RGB
    elif (rgb := state.attributes.get("rgb_color")) is not None:
        attributes["rgb_color"] = list(rgb)
    return attributes


def _weather_attributes(state: State) -> dict[str, str]:
    attributes: dict[str, str] = {}
    for key, unit_key in _WEATHER_UNITS.items():
        value = state.attributes.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        try:
            number = f"{value:g}"
        except OverflowError:  # an int no float holds, written by another integration
            continue
        unit = state.attributes.get(unit_key) if unit_key else "%"
        attributes[key] = f"{number} {unit}" if unit else number
    return attributes


def temperature_unit_text(hass: HomeAssistant) -> str:
    """Return the line that says the unit of temperatures shown without one (a thermostat's).

    Home Assistant shows a climate or water heater entity's temperatures in the home's unit.
    """
    return f"Temperatures without a unit are in {hass.config.units.temperature_unit}."


def _plain(value: Any) -> Any:
    """Turn enum members and tuples into plain JSON values."""
    if isinstance(value, (list, tuple, set)):
        return [_plain(item) for item in value]
    if isinstance(value, bool | int | float) or value is None:
        return value
    return str(value)


def shown_state(hass: HomeAssistant, state: State) -> str:
    """Return the state as shown to the model.

    Sensors are rounded and carry their unit; binary sensors say it in the words of their
    device class ("door open").
    """
    if (words := _binary_sensor_words(state)) is not None and state.state in ("off", "on"):
        return words[state.state == "on"]
    if state.domain == "datetime" or state.attributes.get("device_class") == "timestamp":
        return local_moment(state.state) or state.state
    if state.domain != "sensor" or state.state in (STATE_UNAVAILABLE, STATE_UNKNOWN):
        # Not "unavailable °C": a unit after it reads as a value the sensor gave.
        return state.state
    value = async_rounded_state(hass, state.entity_id, state)
    unit = state.attributes.get(ATTR_UNIT_OF_MEASUREMENT)
    return f"{value} {unit}" if unit else value


def state_summary(hass: HomeAssistant, state: State) -> dict[str, Any]:
    """Return an entity's state for a tool result.

    Its name and area on one line, cut as the home list cuts them: a name can neither start a
    line of its own nor cost thousands of tokens.
    """
    info = entity_info(hass, state)
    summary: dict[str, Any] = {"entity_id": state.entity_id, "name": one_line(info.name)}
    if info.area:
        summary["area"] = one_line(info.area)
    summary["state"] = shown_state(hass, state)
    summary.update(relevant_attributes(hass, state))
    summary.update(_time_left(state))
    return summary


@dataclass(frozen=True, slots=True)
class EntityLine:
    """One entity as the home list shows it: who it is, then its state."""

    entity_id: str
    area: str
    identity: str  # "light.kitchen 'Kitchen Light' (aliases: ...)": changes with the registry
    state: str  # "on; brightness_pct=40": changes with the entity's state

    @property
    def text(self) -> str:
        """The whole line."""
        return f"{self.identity}: {self.state}"


def entity_line(hass: HomeAssistant, state: State) -> EntityLine:
    """Return an entity's line, split into who it is and what state it is in."""
    return _entity_line(hass, state, entity_info(hass, state))


def grouped_text(lines: Iterable[EntityLine]) -> str:
    """Return the lines grouped by area (areas sorted, "No area" last), ids sorted within."""
    by_area: dict[str, list[str]] = {}
    for line in sorted(lines, key=lambda line: line.entity_id):
        by_area.setdefault(line.area, []).append(line.text)
    areas = sorted(by_area, key=lambda area: (area == NO_AREA, area.casefold()))
    return "\n".join(f"{area}:\n" + "\n".join(by_area[area]) for area in areas)


def _entity_line(hass: HomeAssistant, state: State, info: EntityInfo) -> EntityLine:
    """One compact line: every token of the home list counts.

    The name is left out when the entity id already says it, and option lists and false flags
    are left out (get_state and tool results carry them; a wrong option gets the list back).
    """
    identity = state.entity_id
    if _slug(info.name) != state.object_id:
        identity += f" '{one_line(info.name)}'"
    if info.aliases:
        identity += f" (aliases: {', '.join(one_line(alias) for alias in info.aliases)})"
    return EntityLine(
        state.entity_id,
        info.area_heading,
        identity,
        _state_text(state.domain, shown_state(hass, state), relevant_attributes(hass, state)),
    )


def line_state_of_summary(summary: Mapping[str, Any]) -> str | None:
    """Return the state as the home list would show it, from a tool result's state_summary.

    None when the summary is not one (the caller then treats the state as unknown).
    """
    state, entity_id = summary.get("state"), summary.get("entity_id")
    if not isinstance(state, str) or not isinstance(entity_id, str):
        return None
    attributes = {key: value for key, value in summary.items() if key not in _SUMMARY_KEYS}
    return _state_text(entity_id.partition(".")[0], state, attributes)


def _state_text(domain: str, shown: str, attributes: Mapping[str, Any]) -> str:
    """Return the state, then the attributes worth a line.

    Left out: option lists, false flags, and values the state already says.
    """
    implied = _IMPLIED_BY_STATE.get((domain, shown), {})
    kept = {
        key: value
        for key, value in attributes.items()
        if key not in _OPTION_LISTS
        and not (key in _LIVE and _LIVE[key] in attributes)
        and value is not False
        and not (key in implied and implied[key] == value)
    }
    shown = one_line(shown, MAX_VALUE_CHARS)
    if not kept:
        return shown
    return shown + "; " + ", ".join(f"{key}={_text(value)}" for key, value in kept.items())


def _slug(name: str) -> str:
    return "_".join("".join(c if c.isalnum() else " " for c in name.casefold()).split())


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_text(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return one_line(str(value), MAX_VALUE_CHARS)


# Said to the model with our own tools: Home Assistant starts a satellite's timer through its
# Assist intent only, which none of our tools calls.
VOICE_TIMER_LINE: Final = (
    "No tool starts a voice timer ('set a timer for 5 minutes'): only a timer entity of the "
    "home list can be started; if there is none, say that you cannot set timers."
)


# What a name shows against what it says, and the name as a voice says it.
#
# A question before a sensitive action names its targets ("Unlock Front Door? Say yes to
# confirm."). A name is text anyone who can name an entity chose, and what the person reads or a
# satellite speaks is not all of it: a zero-width space, a soft hyphen or a bidi control is not
# seen, an emoji is not spoken, "Front" with a full-width "F" or a Cyrillic "o" looks like
# "Front", and a name may carry words of ours: "Garage Light (lock.front_door)" or "Back Door?
# Say yes to confirm. Front Door". Such a name, or one heard like another entity's of its
# domain, is said with its entity id, so the person can always tell which thing it means;
# a name that holds an entity id itself is said as its entity id alone.

# Marks our own sentences and asides are made of, and chat markup's: a name holding one reads
# as part of them (a sentence's end in "Front Door. Turn on Kitchen Lights" makes the question
# after it another); so does a mark that opens one or ends it in another script ("¿", "¡", "‽",
# Arabic and Devanagari ones), or Armenian, Ethiopic, Myanmar and Khmer ones; so do Latin
# letters drawn as our marks: clicks U+01C0 and U+01C3 ("|", "!"), glottal stop U+0294 ("?").
# An entity id, in any case, names its object with a letter: "PM2.5" or "V2.0" is a number.
_OUR_MARKS: Final = re.compile(
    r"[?!()\[\]:;<>|\u3002\uff01\uff1f\u00a1\u00bf\u203d\u2e18\u061f\u06d4\u0964\u0965"
    r"\u01c0\u01c3\u0294\u0589\u055c\u055e\u1362\u1367\u1368\u104a\u104b\u17d4\u17d5]"
    r"|\.\s|[a-z_][a-z0-9_]*\.[0-9]*[a-z_][a-z0-9_]*",
    re.IGNORECASE,
)
# Unicode categories of characters that are neither seen nor spoken as letters: format
# characters (zero-width, soft hyphen, bidi), symbols (emoji), private use and unassigned ones.
_UNHEARD: Final = frozenset({"Cf", "Co", "Cn", "Cs", "So", "Sk"})
# An entity id written in a name ("Garage Light (lock.front_door)", "lock.1234"), as Home
# Assistant writes one. Entity domains hold no digit: a version ("v1.2 Hub") is not an id.
_ENTITY_ID: Final = re.compile(
    r"(?<![\w.])(?:[a-z_]+\.[a-z0-9_]+|[a-z_][a-z0-9_]*\.[0-9_]*[a-z][a-z0-9_]*)(?![\w.])"
)
# The first word of a letter's Unicode name is its script ("LATIN", "CYRILLIC", "GREEK").
_SCRIPT_WORD: Final = re.compile(r"\w+")


def heard(name: str) -> str:
    """Return the name as a voice says it and an ear compares it: its words, folded.

    Neither case, accents, marks nor the gaps between words are heard ("Front Door",
    "Frontdoor", "Frönt Door"), nor whether a number is written in digits or in words ("Door
    2", "Door two", "Tür zwei", "Door ٢"), nor a place ("1st Door", "First Door", "1º Piso"),
    nor a number's sign and unit, as marks or in words ("Gate -1", "Gate minus 1", "Gate 2°",
    "Gate 2 degrees"): a satellite says the marks in words (turn/spoken_text), a degree sign
    too where Italian writes a place with it ("1° Piano": a sign, so said with its id).
    """
    kept = "".join(c for c in unicodedata.normalize("NFKC", name) if not _unheard(c))
    return "".join(_without_sign_and_unit(list(_numbers_as_digits(_plain_words(kept)))))


def _plain_words(text: str) -> list[str]:
    """Return the text's words folded: no case, no accents."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not combining(c))
    return re.findall(r"\w+", plain)


# What follows a place heard as its number ("1st", "first": "1#"): no word holds it, so a place
# is never heard as the number itself ("Door 1st" is not "Door 1").
_PLACE: Final = "#"
# The most words a number in a name is said in ("nine hundred ninety nine thousand …").
_LONGEST_SAID_NUMBER: Final = 10
# A word made of number words alone, maybe joined ("two", "einundzwanzig", "veintiuno"): only
# such a word may begin a number said in words, so a name without one is never read for it.
_NUMBER_PARTS: Final = "|".join(
    sorted(map(re.escape, {*DIGIT_WORDS, *NUMBER_WORDS, "a", "ein", "eine"}), key=len, reverse=True)
)
_NUMBER_WORD: Final = re.compile(
    rf"(?:{_NUMBER_PARTS})(?:(?:{'|'.join(map(fold, NUMBER_JOINERS))})?(?:{_NUMBER_PARTS}))*"
)


def _numbers_as_digits(words: list[str]) -> Iterator[str]:
    """Yield the words with each number said in words or in any script's digits as its digits."""
    start = 0
    while start < len(words):
        number, end = None, start + 1
        if _NUMBER_WORD.fullmatch(words[start]):
            # The longest run of words from here that says one number ("twenty one": 21).
            for end in range(min(len(words), start + _LONGEST_SAID_NUMBER), start, -1):
                if (number := spoken_number(" ".join(words[start:end]))) is not None:
                    break
        if (place := _place(words[start])) is not None:
            yield f"{place}{_PLACE}"
        elif number is not None and float(number).is_integer():
            yield str(int(number))
        else:
            end = start + 1
            yield "".join(_digit(c) for c in words[start])
        start = end


def _place(word: str) -> int | None:
    """Return the place one folded word says ("first", "zweiten", "1st", "2e"), or None."""
    if (value := ORDINAL_WORDS.get(word)) is not None:
        return value
    if written := ORDINAL_DIGITS.fullmatch(word):
        return int(written[1])
    return None


def _digit(char: str) -> str:
    """Return a digit of any script as the digit it is: "٢" is "2"."""
    digit = unicodedata.digit(char, None)
    return char if digit is None else str(digit)


# A number's sign and unit as a voice says them ("Gate minus 1", "Valve 50 percent", "Gate 5
# minutes"): a name that writes them as marks ("Gate -1", "Gate 5 min", "Valve 50 K") is said
# so aloud; neither the marks nor the words are heard.
_SIGN_WORDS: Final = frozenset(word for said in MINUS_WORD.values() for word in _plain_words(said))


def _unit_sayings() -> Iterator[str]:
    """Yield each unit as written and as said, in every language ("K", "kelvin", "5 min")."""
    for mark, languages in QUANTITY_WORDS.items():
        yield mark
        yield from (said for pair in languages.values() for said in pair)
    for words in (ENGLISH_WORDS, *WORDS_BY_LANGUAGE.values()):
        yield from (said.format("") for pair in words.durations.values() for said in pair)
    yield from ("min", "h", "s")


_UNIT_SAID: Final = sorted(
    {tuple(_numbers_as_digits(_plain_words(said))) for said in _unit_sayings()} - {()},
    key=len,
    reverse=True,
)


def _without_sign_and_unit(words: list[str]) -> Iterator[str]:
    """Yield the words without those that say a sign before a number or a unit after one."""
    index = 0
    while index < len(words):
        word = words[index]
        if word in _SIGN_WORDS and index + 1 < len(words) and words[index + 1].isdigit():
            index += 1
            continue
        yield word
        index += 1
        if word.isdigit():
            index += next(
                (
                    len(unit)
                    for unit in _UNIT_SAID
                    if tuple(words[index : index + len(unit)]) == unit
                ),
                0,
            )


def writes_an_entity_id(name: str) -> bool:
    """Whether a name holds an entity id: said after it, ours would be one of two to pick from."""
    return _ENTITY_ID.search(name) is not None


def holds_our_marks(text: str) -> bool:
    """Whether the text holds a mark our sentences are made of ("?", ". ", brackets, an id)."""
    return _OUR_MARKS.search(text) is not None


def hides_its_meaning(name: str) -> bool:
    """Whether the name shows other than it says, mixes scripts or holds marks of ours."""
    if holds_our_marks(name):
        return True
    if unicodedata.normalize("NFKC", name) != name or any(_unheard(c) for c in name):
        return True
    return len({_script(c) for c in name if c.isalpha()}) > 1


def _unheard(char: str) -> bool:
    return unicodedata.category(char) in _UNHEARD


def _script(letter: str) -> str:
    words = _SCRIPT_WORD.match(unicodedata.name(letter, "UNKNOWN"))
    return words.group(0) if words else "UNKNOWN"


# The names a domain's entities are heard by (each one's name and aliases: the back door the
# house calls "main entrance" is heard so as much as a lock named "Main Entrance"), kept as an
# index so a question does not walk the domain: built for a domain the first time a question
# names one of its entities, dropped when an entity of that domain comes or goes, its name
# changes (a state change: a name is a state's) or its aliases do (a registry change), before
# any question is asked again; a question then never takes a name for the only one of its
# kind while another entity is heard the same.
_INDEX: HassKey[dict[str, dict[str, frozenset[str]]]] = HassKey("local_agent_heard_names")
_UNLISTEN: HassKey[CALLBACK_TYPE] = HassKey("local_agent_heard_names_listener")


def entities_heard_as(hass: HomeAssistant, domain: str, said: str) -> frozenset[str]:
    """Return the entities of the domain whose name is heard as `said` (entity_view.heard)."""
    if _INDEX not in hass.data:
        _listen_for_changes(hass)
    index = hass.data[_INDEX]
    if (names := index.get(domain)) is None:
        registry = er.async_get(hass)
        found: dict[str, set[str]] = {}
        for state in hass.states.async_all(domain):
            entry = registry.async_get(state.entity_id)
            aliases = er.async_get_entity_aliases(hass, entry) if entry is not None else []
            for name in (state.name, *aliases):
                found.setdefault(heard(name), set()).add(state.entity_id)
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

    @callback
    def forget_aliased(event: Event[er.EventEntityRegistryUpdatedData]) -> None:
        hass.data[_INDEX].pop(split_entity_id(event.data["entity_id"])[0], None)

    @callback
    def aliased(event_data: er.EventEntityRegistryUpdatedData) -> bool:
        return event_data["action"] == "update" and "aliases" in event_data["changes"]

    unlisteners = (
        hass.bus.async_listen(EVENT_STATE_CHANGED, forget, event_filter=renamed),
        hass.bus.async_listen(
            er.EVENT_ENTITY_REGISTRY_UPDATED, forget_aliased, event_filter=aliased
        ),
    )

    @callback
    def unlisten() -> None:
        for each in unlisteners:
            each()

    hass.data[_UNLISTEN] = unlisten


@callback
def forget_heard_names(hass: HomeAssistant) -> None:
    """Drop the index and stop listening (no entry of ours is loaded any more)."""
    if (unlisten := hass.data.pop(_UNLISTEN, None)) is not None:
        unlisten()
    hass.data.pop(_INDEX, None)
