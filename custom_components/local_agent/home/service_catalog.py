"""The curated Home Assistant services a small model may call, as compact schemas.

Field types, ranges and options come from each service's own description
(services.yaml selectors, as returned by `async_get_all_descriptions`); this
module only chooses which services and fields a voice user needs, and checks
argument values against them.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from dataclasses import field
import difflib
import json
import re
from typing import Any
from typing import Final

import probatio

from custom_components.local_agent.compat import registered_service
from custom_components.local_agent.compat import service_handler_facts
from custom_components.local_agent.engine.spoken_numbers import spoken_number
from custom_components.local_agent.engine.spoken_numbers import without_unit
from custom_components.local_agent.engine.tool_calls import finite_number
from custom_components.local_agent.engine.types import JsonSchema
from homeassistant.const import ATTR_SUPPORTED_FEATURES
from homeassistant.core import HomeAssistant
from homeassistant.core import State
from homeassistant.helpers import llm
from homeassistant.helpers import selector

# The field of vacuum.clean_area: the areas to clean, by id.
AREA_FIELD: Final = "cleaning_area_id"

# Per domain: the services a voice user would expect, each with the fields worth offering.
CURATED_SERVICES: Final[Mapping[str, Mapping[str, tuple[str, ...]]]] = {
    "alarm_control_panel": {
        "alarm_arm_away": ("code",),
        "alarm_arm_home": ("code",),
        "alarm_arm_night": ("code",),
        "alarm_arm_vacation": ("code",),
        "alarm_disarm": ("code",),
    },
    "automation": {"trigger": (), "turn_off": (), "turn_on": ()},
    "button": {"press": ()},
    "climate": {
        "set_fan_mode": ("fan_mode",),
        "set_humidity": ("humidity",),
        "set_hvac_mode": ("hvac_mode",),
        "set_preset_mode": ("preset_mode",),
        "set_swing_horizontal_mode": ("swing_horizontal_mode",),
        "set_swing_mode": ("swing_mode",),
        "set_temperature": ("temperature", "target_temp_low", "target_temp_high", "hvac_mode"),
        "turn_off": (),
        "turn_on": (),
    },
    "counter": {"decrement": (), "increment": (), "reset": ()},
    "cover": {
        "close_cover": (),
        "close_cover_tilt": (),
        "open_cover": (),
        "open_cover_tilt": (),
        "set_cover_position": ("position",),
        "set_cover_tilt_position": ("tilt_position",),
        "stop_cover": (),
    },
    "date": {"set_value": ("date",)},
    "datetime": {"set_value": ("datetime",)},
    "fan": {
        "decrease_speed": (),
        "increase_speed": (),
        "oscillate": ("oscillating",),
        "set_direction": ("direction",),
        "set_percentage": ("percentage",),
        "set_preset_mode": ("preset_mode",),
        "toggle": (),
        "turn_off": (),
        "turn_on": ("percentage", "preset_mode"),
    },
    "humidifier": {
        "set_humidity": ("humidity",),
        "set_mode": ("mode",),
        "toggle": (),
        "turn_off": (),
        "turn_on": (),
    },
    "input_boolean": {"toggle": (), "turn_off": (), "turn_on": ()},
    "input_button": {"press": ()},
    # A time and a date, not a timestamp (a number a small model would have to compute).
    "input_datetime": {"set_datetime": ("time", "date")},
    "input_number": {"decrement": (), "increment": (), "set_value": ("value",)},
    "input_select": {"select_next": (), "select_option": ("option",), "select_previous": ()},
    "input_text": {"set_value": ("value",)},
    "lawn_mower": {"dock": (), "pause": (), "start_mowing": ()},
    "light": {
        "toggle": (),
        "turn_off": (),
        # A step ("brighter", "dimmer"): the light's own, no arithmetic on its brightness.
        "turn_on": (
            "brightness_pct",
            "brightness_step_pct",
            "color_name",
            "color_temp_kelvin",
            "effect",
        ),
    },
    "lock": {"lock": (), "open": ("code",), "unlock": ("code",)},
    "media_player": {
        "media_next_track": (),
        "media_pause": (),
        "media_play": (),
        "media_previous_track": (),
        "media_stop": (),
        "repeat_set": ("repeat",),
        "select_sound_mode": ("sound_mode",),
        "select_source": ("source",),
        "shuffle_set": ("shuffle",),
        "turn_off": (),
        "turn_on": (),
        "volume_down": (),
        "volume_mute": ("is_volume_muted",),
        "volume_set": ("volume_level",),
        "volume_up": (),
    },
    # A message to a notify entity (a display, a phone): its text is the person's own words.
    "notify": {"send_message": ("message", "title")},
    "number": {"set_value": ("value",)},
    "remote": {"turn_off": (), "turn_on": ("activity",)},
    "scene": {"turn_on": ()},
    "script": {"turn_off": (), "turn_on": ()},
    "select": {"select_next": (), "select_option": ("option",), "select_previous": ()},
    "siren": {"toggle": (), "turn_off": (), "turn_on": ("tone", "volume_level", "duration")},
    "switch": {"toggle": (), "turn_off": (), "turn_on": ()},
    "text": {"set_value": ("value",)},
    "time": {"set_value": ("time",)},
    # change: time added to (or, negative, taken off) a running timer.
    "timer": {
        "cancel": (),
        "change": ("duration",),
        "finish": (),
        "pause": (),
        "start": ("duration",),
    },
    "todo": {
        "add_item": ("item",),
        "remove_item": ("item",),
        "update_item": ("item", "rename", "status"),
    },
    "update": {"clear_skipped": (), "install": (), "skip": ()},
    "vacuum": {
        # The areas are the ones the owner mapped to the vacuum's rooms (tools.py lists them).
        "clean_area": (AREA_FIELD,),
        "locate": (),
        "pause": (),
        "return_to_base": (),
        "set_fan_speed": ("fan_speed",),
        "start": (),
        "stop": (),
    },
    "valve": {
        "close_valve": (),
        "open_valve": (),
        "set_valve_position": ("position",),
        "stop_valve": (),
    },
    "water_heater": {
        "set_away_mode": ("away_mode",),
        "set_operation_mode": ("operation_mode",),
        "set_temperature": ("temperature", "operation_mode"),
        "turn_off": (),
        "turn_on": (),
    },
}

# Fields whose allowed values are listed by an attribute of the targeted entity.
OPTION_ATTRIBUTES: Final[Mapping[str, str]] = {
    "activity": "activity_list",
    "effect": "effect_list",
    "fan_mode": "fan_modes",
    "fan_speed": "fan_speed_list",
    "hvac_mode": "hvac_modes",
    "mode": "available_modes",
    "operation_mode": "operation_list",
    "option": "options",
    "preset_mode": "preset_modes",
    "sound_mode": "sound_mode_list",
    "source": "source_list",
    "swing_horizontal_mode": "swing_horizontal_modes",
    "swing_mode": "swing_modes",
    "tone": "available_tones",
}

# Numeric fields whose range is set by attributes of the targeted entity.
RANGE_ATTRIBUTES: Final[Mapping[tuple[str, str], tuple[str, str]]] = {
    ("climate", "humidity"): ("min_humidity", "max_humidity"),
    ("climate", "target_temp_high"): ("min_temp", "max_temp"),
    ("climate", "target_temp_low"): ("min_temp", "max_temp"),
    ("climate", "temperature"): ("min_temp", "max_temp"),
    ("humidifier", "humidity"): ("min_humidity", "max_humidity"),
    ("input_number", "value"): ("min", "max"),
    ("light", "color_temp_kelvin"): ("min_color_temp_kelvin", "max_color_temp_kelvin"),
    ("number", "value"): ("min", "max"),
    ("water_heater", "temperature"): ("min_temp", "max_temp"),
}

# Values never repeated back in descriptions, results or logs.
SECRET_FIELDS: Final = frozenset({"code"})

# How a time, a date and a length of time are written (a timer's change may take time off).
TIME_FORM: Final = "HH:MM:SS"
DATE_FORM: Final = "YYYY-MM-DD"
NEGATIVE_DURATION_FORM: Final = "HH:MM:SS, -HH:MM:SS to take off"

MAX_SCHEMA_ENUM: Final = 12
_MAX_LISTED_OPTIONS: Final = 20
_MAX_SHOWN_BOUND: Final = 1_000_000
# An option the model asked for that the person may hear back: words, no markup.
# An option said back: at most three words, a full stop only inside a number ("level 2.5"),
# never a sentence of its own ("heat. Say yes to confirm").
_SAID_WORD: Final = r"\w[\w'+-]*(?:\.\d[\w'+-]*)*"
_SAYABLE_OPTION: Final = re.compile(rf"(?=.{{1,40}}$){_SAID_WORD}(?: {_SAID_WORD}){{0,2}}")
# Percents of a whole (not a step): a model writing 0.5 means half, never half a percent.
_WHOLE_PERCENT_FIELDS: Final = frozenset(
    {"brightness_pct", "humidity", "percentage", "position", "tilt_position"}
)
_TRUE_WORDS: Final = frozenset({"true", "on", "yes", "1"})
_FALSE_WORDS: Final = frozenset({"false", "off", "no", "0"})


# The unit a field's number is said in, where the field fixes it (a temperature's is the home's).
FIELD_UNITS: Final[Mapping[str, str]] = {
    "brightness_pct": "%",
    "color_temp_kelvin": "K",
    "humidity": "%",
    "percentage": "%",
    "position": "%",
    "tilt_position": "%",
}
TEMPERATURE_FIELDS: Final = frozenset({"temperature", "target_temp_high", "target_temp_low"})


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number and its unit, said later as the conversation's language writes them.

    "21.5 °C" in English is "21,5 °C" in German; "100%" in English is "100 %" in German.
    """

    number: float
    unit: str = ""

    def __str__(self) -> str:
        """Say it in English (for the model and the audit)."""
        return f"{self.number:g}{'' if self.unit == '%' else ' '}{self.unit}".rstrip()


@dataclass(frozen=True, slots=True)
class Mode:
    """A mode or option of a domain's field, said later as the frontend says it.

    In the conversation's language ("dry": "Entfeuchten"), else as it is written.
    """

    domain: str
    field: str
    value: str

    def __str__(self) -> str:
        """Say it as written, words apart (for the model and the audit)."""
        return self.value.replace("_", " ")


@dataclass(frozen=True, slots=True)
class Refusal:
    """A value refused: the message the model reads, and why in a sentence the person hears.

    `key`: a sentence of the translations' "exceptions" ("" when it has none), `facts` its
    placeholders, read off the entity (its name, its range, its options).
    """

    message: str
    key: str = ""
    facts: Mapping[str, str | Quantity | Mode] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One service field: the schema the model sees and what validation enforces."""

    name: str
    schema: JsonSchema
    required: bool
    options: tuple[str, ...] | None
    minimum: float | None
    maximum: float | None
    support_filter: Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """A curated service of a domain, with its fields and registry facts."""

    domain: str
    service: str
    fields: Mapping[str, FieldSpec]
    required_features: tuple[int, ...] | None
    admin_only: bool

    def signature(self) -> str:
        """Return the compact call form used in tool descriptions, e.g. `set(position)`."""
        params = (name if spec.required else f"{name}?" for name, spec in self.fields.items())
        return f"{self.service}({', '.join(params)})"


type ServiceCatalog = Mapping[str, Mapping[str, ActionSpec]]


def build_catalog(hass: HomeAssistant, descriptions: Mapping[str, Any]) -> ServiceCatalog:
    """Return the curated services that are registered, keyed by domain and service."""
    catalog: dict[str, dict[str, ActionSpec]] = {}
    for domain, services in CURATED_SERVICES.items():
        for service, field_names in services.items():
            description = descriptions.get(domain, {}).get(service)
            handler = registered_service(hass, domain, service)
            if description is None or handler is None:
                continue
            fields = _flatten_fields(description.get("fields", {}))
            specs = {
                name: _field_spec(domain, name, fields[name])
                for name in field_names
                if name in fields
            }
            required_features, admin_only = service_handler_facts(handler)
            catalog.setdefault(domain, {})[service] = ActionSpec(
                domain, service, specs, required_features, admin_only
            )
    return catalog


def _flatten_fields(fields: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Lift fields out of collapsible sections such as light's `additional_fields`."""
    flat: dict[str, Mapping[str, Any]] = {}
    for name, config in fields.items():
        if "fields" in config:
            flat.update(_flatten_fields(config["fields"]))
        else:
            flat[name] = config
    return flat


def _field_spec(domain: str, name: str, config: Mapping[str, Any]) -> FieldSpec:
    selector_config: Mapping[str, Any] = config.get("selector") or {"text": {}}
    schema, options = _selector_schema(selector_config)
    if (domain, name) in RANGE_ATTRIBUTES:
        schema = {"type": "number"}
    minimum = schema.get("minimum")
    maximum = schema.get("maximum")
    for bound in ("minimum", "maximum"):
        if abs(schema.get(bound, 0)) >= _MAX_SHOWN_BOUND:
            del schema[bound]
    return FieldSpec(
        name=name,
        schema=schema,
        required=bool(config.get("required", False)),
        options=options,
        minimum=minimum,
        maximum=maximum,
        support_filter=config.get("filter"),
    )


def _selector_schema(config: Mapping[str, Any]) -> tuple[JsonSchema, tuple[str, ...] | None]:
    """Convert a selector with Home Assistant's own serializer, then make it compact."""
    try:
        sel = selector.selector(config)
    except probatio.Invalid, KeyError, ValueError:
        return {"type": "string"}, None
    if form := _written_form(sel):
        return {"type": "string", "description": form}, None
    serialized = llm.selector_serializer(sel)
    if not isinstance(serialized, dict):
        return {"type": "string"}, None
    schema = {
        key: serialized[key]
        for key in ("type", "minimum", "maximum", "enum", "items")
        if key in serialized
    }
    for bound in ("minimum", "maximum"):
        if isinstance(value := schema.get(bound), float) and value.is_integer():
            schema[bound] = int(value)
    options = tuple(str(option) for option in schema.get("enum", ())) or None
    if options and len(options) > MAX_SCHEMA_ENUM:
        del schema["enum"]
    return schema, options


def _written_form(sel: selector.Selector[Any]) -> str | None:
    """Return how a time, date or length of time is written for Home Assistant to read it."""
    if isinstance(sel, selector.DurationSelector):
        return NEGATIVE_DURATION_FORM if sel.config.get("allow_negative") else TIME_FORM
    if isinstance(sel, selector.TimeSelector):
        return TIME_FORM
    if isinstance(sel, selector.DateSelector):
        return DATE_FORM
    if isinstance(sel, selector.DateTimeSelector):
        return f"{DATE_FORM} {TIME_FORM}"
    return None


def redacted(data: Mapping[str, Any]) -> dict[str, Any]:
    """Return the data with secret values (codes) hidden, for messages and logs."""
    return {key: "<hidden>" if key in SECRET_FIELDS else value for key, value in data.items()}


def field_supported(spec: FieldSpec, state: State) -> bool:
    """Return whether the entity supports the field, per the field's own filter."""
    if not spec.support_filter:
        return True
    if features := spec.support_filter.get("supported_features"):
        supported = int(state.attributes.get(ATTR_SUPPORTED_FEATURES) or 0)
        if not any(supported & int(feature) for feature in features):
            return False
    for attribute, wanted in (spec.support_filter.get("attribute") or {}).items():
        value = state.attributes.get(attribute)
        values = value if isinstance(value, (list, tuple, set)) else [value]
        if not any(str(item) in {str(w) for w in wanted} for item in values):
            return False
    return True


def action_supported(action: ActionSpec, state: State) -> bool:
    """Return whether the entity has the features the service requires."""
    if not action.required_features:
        return True
    supported = int(state.attributes.get(ATTR_SUPPORTED_FEATURES) or 0)
    return any(supported & mask == mask for mask in action.required_features)


def coerce_value(
    spec: FieldSpec, value: Any, temperature_unit: str = ""
) -> tuple[Any, Refusal | None]:
    """Return the value converted to the field's type, or why it is refused.

    A number may be written in its field's own unit ("50%", "3000K", "21°C" where the home's
    temperatures are °C) and with a decimal comma ("21,5"): a model without the call grammar
    writes them so.
    """
    kind = spec.schema.get("type", "string")
    if kind != "array":
        value = one_value(value)
    if kind == "number":
        return _coerce_number(spec, value, _written_unit(spec.name, temperature_unit))
    if kind == "boolean":
        return _coerce_boolean(spec, value)
    if kind == "array":
        if isinstance(value, list):
            return value, None
        if isinstance(value, str):  # one item, as Home Assistant's own schemas take it
            return [value], None
        return None, Refusal(f"{spec.name} must be a list, got {value!r}.")
    if isinstance(value, (dict, list)):
        return None, Refusal(f"{spec.name} must be text, got {value!r}.")
    text = value if isinstance(value, str) else str(value)
    if spec.schema.get("description") == TIME_FORM and text.strip().startswith("-"):
        # Only a timer's change takes time off; a start, a siren's duration or a time cannot.
        return None, Refusal(f"{spec.name} must be {TIME_FORM}, not negative, got {text!r}.")
    if spec.options is None:
        return text, None
    for option in spec.options:
        if option.casefold() == text.strip().casefold():
            return option, None
    return None, Refusal(f"{spec.name} {text!r} is not allowed. {options_hint(spec.options, text)}")


def one_value(value: Any) -> Any:
    """Return the value of a list of one, where the field takes one value; else the value.

    A model writes a value as it writes entity_id, as a list (`["a"]`, or that text where the
    field takes text).
    """
    written = value
    if isinstance(value, str) and value.strip().startswith("["):
        with suppress(ValueError, RecursionError):
            written = json.loads(value)
    if (
        isinstance(written, list)
        and len(written) == 1
        and isinstance(written[0], str | int | float)
    ):
        return written[0]
    return value


def options_hint(options: Sequence[str], wrong: str) -> str:
    """Return "Use one of: …", or the closest options when the list is long."""
    if len(options) <= _MAX_LISTED_OPTIONS:
        return f"Use one of: {', '.join(options)}."
    close = difflib.get_close_matches(wrong.casefold(), options, n=5, cutoff=0.5)
    return f"Close matches: {', '.join(close)}." if close else "See the allowed values."


def _coerce_number(spec: FieldSpec, value: Any, unit: str) -> tuple[Any, Refusal | None]:
    number: float | None = None
    with_unit = False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str):
        number, with_unit = _written_number(value, unit)
    if number is None or not finite_number(number):
        return None, Refusal(f"{spec.name} must be a number{_range_text(spec)}, got {value!r}.")
    if spec.name in _WHOLE_PERCENT_FIELDS and 0 < number < 1 and not with_unit:
        # A share of the whole: 0.5 is half; "0.5 %" (its unit written) is half a percent.
        number = round(number * 100, 4)
    if refused := out_of_range(number, spec.minimum, spec.maximum, FIELD_UNITS.get(spec.name, "")):
        return None, Refusal(
            f"{spec.name} {number:g} is out of range{_range_text(spec)}.", *refused
        )
    return (int(number) if float(number).is_integer() else number), None


def _written_unit(name: str, temperature_unit: str) -> str:
    if name in TEMPERATURE_FIELDS:
        return temperature_unit
    return FIELD_UNITS.get(name) or ("%" if name.endswith("_pct") else "")


# A decimal comma ("21,5"); three digits after it may group thousands ("1,000"), so not those.
_DECIMAL_COMMA: Final = re.compile(r"[+-]?[0-9]+,(?![0-9]{3}$)[0-9]+")


def _written_number(text: str, unit: str) -> tuple[float | None, bool]:
    """Return the number a text writes in digits or words (None: none), and if in `unit`."""
    bare = text.strip()
    written = without_unit(bare, unit)
    with_unit = written != bare
    if _DECIMAL_COMMA.fullmatch(written):
        written = written.replace(",", ".")
    try:
        return float(written), with_unit
    except ValueError:
        return spoken_number(written), with_unit


def out_of_range(
    number: float, low: Any, high: Any, unit: str
) -> tuple[str, dict[str, str | Quantity]] | None:
    """Return the sentence and facts that say a number is out of its range; None when within."""
    low, high = _bound(low), _bound(high)
    if (low is None or number >= low) and (high is None or number <= high):
        return None
    if low is None or high is None:
        return "", {}  # a range open at one end has no short sentence
    # "The range is 7 to 35 °C, not 40 °C": the unit after the high end and the value.
    return "refused_out_of_range", {
        "low": Quantity(low),
        "high": Quantity(high, unit),
        "value": Quantity(number, unit),
    }


def _bound(value: Any) -> float | None:
    """Return a range's end as the entity reports it; None when no finite number (NaN, a bool)."""
    return value if finite_number(value) else None


def _coerce_boolean(spec: FieldSpec, value: Any) -> tuple[Any, Refusal | None]:
    if isinstance(value, bool):
        return value, None
    word = str(value).strip().lower()
    if word in _TRUE_WORDS:
        return True, None
    if word in _FALSE_WORDS:
        return False, None
    return None, Refusal(f"{spec.name} must be true or false, got {value!r}.")


def _range_text(spec: FieldSpec) -> str:
    if spec.minimum is not None and spec.maximum is not None:
        return f" from {spec.minimum:g} to {spec.maximum:g}"
    if spec.minimum is not None:
        return f" of at least {spec.minimum:g}"
    if spec.maximum is not None:
        return f" of at most {spec.maximum:g}"
    return ""


def entity_option(name: str, value: Any, state: State) -> Any:
    """Return the entity's own option that a value writes differently, else the value.

    Only case, spaces, hyphens and underscores may differ ("Heat Cool" is "heat_cool"), and
    only when exactly one of the entity's options matches: anything else is checked as written.
    """
    attribute = OPTION_ATTRIBUTES.get(name)
    allowed = state.attributes.get(attribute) if attribute else None
    if not isinstance(value, str) or not isinstance(allowed, (list, tuple)):
        return value
    options = [str(option) for option in allowed]
    if value in options:
        return value
    matches = [option for option in options if _option_key(option) == _option_key(value)]
    return matches[0] if len(matches) == 1 else value


def _option_key(text: str) -> str:
    return re.sub(r"[\s_-]+", "_", text.strip().casefold())


def entity_constraint_error(
    domain: str, spec: FieldSpec, value: Any, state: State, temperature_unit: str
) -> Refusal | None:
    """Check a value against limits that depend on the entity (its options or range)."""
    name = state.name
    if (attribute := OPTION_ATTRIBUTES.get(spec.name)) and isinstance(value, str):
        allowed = state.attributes.get(attribute)
        if isinstance(allowed, (list, tuple)) and value not in [str(a) for a in allowed]:
            hint = options_hint([str(a) for a in allowed], value)
            message = f"{name} has no {spec.name} {value!r}. {hint}"
            if not _SAYABLE_OPTION.fullmatch(value):  # markup is never said back
                return Refusal(message)
            facts: dict[str, str | Quantity | Mode] = {
                "name": name,
                "value": Mode(domain, spec.name, value),
            }
            return Refusal(message, "refused_no_option", facts)
    if (attrs := RANGE_ATTRIBUTES.get((domain, spec.name))) and isinstance(value, (int, float)):
        low, high = (state.attributes.get(attr) for attr in attrs)
        unit = temperature_unit if spec.name in TEMPERATURE_FIELDS else FIELD_UNITS.get(spec.name)
        if refused := out_of_range(value, low, high, unit or ""):
            message = f"{spec.name} {value:g} is out of range for {name}: from {low} to {high}."
            return Refusal(message, *refused)
    return None
