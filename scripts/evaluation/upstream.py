"""The value forms of the home-assistant-datasets (synthetic-home) inventory, made canonical.

Upstream fixtures write values the way Home Assistant's Python code names them
(`cover.CoverDeviceClass.GARAGE`, `supported_features: [open, close]`, `native_value`,
`target_temperature`, `todo_items`, ...) and may leave out an entity's state (each domain has
a default). `normalise_entity` turns one entity into the state and attributes Home Assistant
itself would report; `normalise_attributes` does the same for a test's `setup` and
`expect_changes`. Every value that cannot be read is a problem, never a silent default: a
garage door read as a plain cover would switch the safety gate off for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from enum import IntFlag
import importlib
import re
from typing import Any
from typing import Final

from homeassistant import const as ha_const
from testing.fixture_home.entity import number

# `domain.EnumClass.MEMBER` or `EnumClass.MEMBER` (a class name starts upper case).
ENUM_NAME: Final = re.compile(
    r"^(?:(?P<domain>[a-z_]+)\.)?(?P<cls>[A-Z][A-Za-z]+)\.(?P<member>\w+)$"
)

# The name of each domain's device class enum, in the domain's module (domains not listed have
# none).
DEVICE_CLASSES: Final[Mapping[str, str]] = {
    "binary_sensor": "BinarySensorDeviceClass",
    "cover": "CoverDeviceClass",
    "media_player": "MediaPlayerDeviceClass",
    "sensor": "SensorDeviceClass",
    "switch": "SwitchDeviceClass",
    "valve": "ValveDeviceClass",
}
# The name of each domain's supported-features flags, in the domain's module (domains not
# listed have none).
FEATURES: Final[Mapping[str, str]] = {
    "alarm_control_panel": "AlarmControlPanelEntityFeature",
    "calendar": "CalendarEntityFeature",
    "climate": "ClimateEntityFeature",
    "cover": "CoverEntityFeature",
    "fan": "FanEntityFeature",
    "light": "LightEntityFeature",
    "lock": "LockEntityFeature",
    "media_player": "MediaPlayerEntityFeature",
    "todo": "TodoListEntityFeature",
    "vacuum": "VacuumEntityFeature",
    "valve": "ValveEntityFeature",
    "weather": "WeatherEntityFeature",
}
# Attributes the fixture builds an enum from: (attribute, domain) -> the enum's name in the
# domain's module.
VALUE_ENUMS: Final[Mapping[tuple[str, str], str]] = {
    ("color_mode", "light"): "ColorMode",
    ("supported_color_modes", "light"): "ColorMode",
    ("hvac_modes", "climate"): "HVACMode",
    ("hvac_action", "climate"): "HVACAction",
}
_WEATHER_VALUES: Final = (
    "temperature", "temperature_unit", "apparent_temperature", "dew_point", "pressure",
    "pressure_unit", "wind_speed", "wind_speed_unit", "wind_gust_speed", "visibility",
    "visibility_unit", "precipitation_unit",
)  # fmt: skip
# Upstream attribute names (entity properties) -> the attribute Home Assistant reports.
RENAMED: Final[Mapping[str, Mapping[str, str]]] = {
    "sensor": {"native_unit_of_measurement": "unit_of_measurement"},
    "climate": {"target_temperature": "temperature"},
    # A weather entity's values are in its own units: the fixture takes them as they are.
    "weather": {f"native_{name}": name for name in _WEATHER_VALUES},
}
# The attribute upstream writes an entity's state in, per domain (the state wins if both).
STATE_ATTRIBUTES: Final[Mapping[str, str]] = {
    "climate": "hvac_mode",
    "sensor": "native_value",
    "weather": "condition",
}
_TODO_STATUSES: Final = ("needs_action", "completed")


class Problems:
    """The problems found in one entity (or one state spec), each with its path."""

    def __init__(self) -> None:
        """Start with none."""
        self.items: list[str] = []

    def add(self, message: str) -> None:
        """Record a problem."""
        self.items.append(message)


def enum_class(module: str, name: str) -> type[Enum] | None:
    """An enum of Home Assistant by module (a domain, or None for homeassistant.const) and name."""
    try:
        found = getattr(importlib.import_module(f"homeassistant.components.{module}"), name, None)
    except ImportError:
        found = None
    if found is None:
        try:
            found = getattr(
                importlib.import_module(f"homeassistant.components.{module}.const"), name
            )
        except ImportError, AttributeError:
            found = None
    return found if isinstance(found, type) and issubclass(found, Enum) else None


def _const_enum(name: str) -> type[Enum] | None:
    found = getattr(ha_const, name, None)
    return found if isinstance(found, type) and issubclass(found, Enum) else None


def resolve_enum_name(text: str, domain: str) -> tuple[Any, str | None]:
    """`cover.CoverDeviceClass.GARAGE` -> ("garage", None); (text, why) when it names nothing.

    Texts that do not look like enum names come back unchanged, without a problem.
    """
    match = ENUM_NAME.match(text)
    if match is None:
        return text, None
    cls_name, member = match["cls"], match["member"]
    module = match["domain"] or domain
    cls = enum_class(module, cls_name) or _const_enum(cls_name)
    if cls is None:
        return text, f"{text!r} names no Home Assistant enum ({cls_name} is unknown)"
    found = _member(cls, member)
    if found is None:
        names = ", ".join(cls.__members__)
        return text, f"{text!r}: {cls_name} has no member {member} (members: {names})"
    return found.value, None


def _member(cls: type[Enum], name: str) -> Enum | None:
    """A member by name (any case) or by value."""
    for key, member in cls.__members__.items():
        if key.casefold() == name.casefold() or str(member.value).casefold() == name.casefold():
            return member
    return None


def _resolve(value: Any, domain: str, path: str, p: Problems) -> Any:
    """Resolve enum names anywhere in a value (lists and mappings too)."""
    if isinstance(value, str):
        resolved, problem = resolve_enum_name(value.strip(), domain)
        if problem is not None:
            p.add(f"{path}: {problem}")
        return resolved
    if isinstance(value, list):
        return [_resolve(item, domain, f"{path}[{i}]", p) for i, item in enumerate(value)]
    if isinstance(value, dict):
        return {k: _resolve(v, domain, f"{path}.{k}", p) for k, v in value.items()}
    return value


def _enum_value(
    value: Any, module: str, cls_name: str, path: str, p: Problems, *, what: str
) -> Any:
    """Check that value is a value of the enum (after enum names were resolved)."""
    cls = enum_class(module, cls_name)
    if cls is None or isinstance(value, bool) or not isinstance(value, (str, int)):
        p.add(f"{path}: {value!r} is not a {what}")
        return None
    member = _member(cls, str(value))
    if member is None:
        valid = ", ".join(str(m.value) for m in cls)
        p.add(f"{path}: {value!r} is not a {what} (one of: {valid})")
        return None
    return member.value


def features_value(domain: str, value: Any, path: str, p: Problems) -> int | None:
    """`supported_features` as a number: a number already, or a list of feature names."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # a number is stored as it is, known flags or not
    cls_name = FEATURES.get(domain)
    if cls_name is None:
        p.add(f"{path}: {domain} entities have no supported features")
        return None
    cls = enum_class(domain, cls_name)
    assert cls is not None
    assert issubclass(cls, IntFlag)
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list):
        p.add(f"{path} must be a number or a list of {cls_name} names")
        return None
    total = 0
    for index, item in enumerate(items):
        text = str(item).strip()
        if (match := ENUM_NAME.match(text)) is not None:
            if match["cls"] != cls.__name__:
                p.add(f"{path}[{index}]: {text!r} is not a {cls_name}")
                continue
            text = match["member"]
        member = _member(cls, text) if not isinstance(item, bool) else None
        if member is None:
            names = ", ".join(cls.__members__)
            p.add(f"{path}[{index}]: {text!r} is not a {cls_name} (one of: {names})")
            continue
        total |= int(member.value)
    return total


def state_text(domain: str, value: Any) -> str:
    """A state as the text Home Assistant stores.

    YAML booleans read as open/closed (covers, valves) or on/off; the in/out form of Home
    Assistant's intent tests (`{in: normal, out: "off"}`) is the state `out`; anything else
    is stored as its text, as the state machine does.
    """
    if isinstance(value, bool):
        if domain in ("cover", "valve"):
            return "open" if value else "closed"
        return "on" if value else "off"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, Mapping) and "out" in value:
        return state_text(domain, value["out"])
    return str(value)


def lift_state(domain: str, state: Any, attributes: dict[str, Any]) -> Any:
    """Take the state out of the attribute upstream writes it in (the given state wins)."""
    name = STATE_ATTRIBUTES.get(domain)
    if name is None or name not in attributes:
        return state
    value = attributes.pop(name)
    return value if state is None else state


def default_state(domain: str, attributes: Mapping[str, Any]) -> str:
    """The state of an entity written without one (eval/README.md lists the rules)."""
    match domain:
        case "light":
            return "on" if (number(attributes.get("brightness")) or 0) > 0 else "off"
        case "fan":
            return "on" if (number(attributes.get("percentage")) or 0) > 0 else "off"
        case "cover" | "valve":
            return "open" if (number(attributes.get("current_position")) or 0) > 0 else "closed"
        case "climate":
            return "off"
        case "sensor" | "weather":
            return "unknown"
        case "todo":
            return str(len(attributes.get("items") or ()))
        case "lock":
            return "locked"
        case "alarm_control_panel":
            return "disarmed"
        case "vacuum":
            return "docked"
        case "media_player":
            return "off"
        case "timer":
            return "idle"
        case _:
            return "off"


def normalise_attributes(
    domain: str, attributes: Mapping[str, Any], path: str, p: Problems
) -> dict[str, Any]:
    """Upstream attribute forms -> the attributes Home Assistant reports; problems for the rest."""
    result: dict[str, Any] = {}
    renamed = RENAMED.get(domain, {})
    for key, raw in attributes.items():
        name = renamed.get(str(key), str(key))
        if name in result and name != key:
            continue  # the reported name, when both are given, wins
        value = (
            raw
            if name in ("supported_features", "todo_items")
            else _resolve(raw, domain, f"{path}.{key}", p)
        )
        result[name] = value
    if "device_class" in result:
        result["device_class"] = _device_class(domain, result["device_class"])
    for (name, enum_domain), cls_name in VALUE_ENUMS.items():
        if enum_domain != domain or result.get(name) is None:
            continue
        value = result[name]
        if name == "color_mode" and isinstance(value, list):
            # Upstream writes the current colour mode as a one-element list.
            if len(value) != 1:
                p.add(f"{path}.{name}: one colour mode, got {value!r}")
                result[name] = None
                continue
            value = value[0]
        what = f"{cls_name} value"
        if isinstance(value, list):
            result[name] = [
                _enum_value(v, domain, cls_name, f"{path}.{name}[{i}]", p, what=what)
                for i, v in enumerate(value)
            ]
        else:
            result[name] = _enum_value(value, domain, cls_name, f"{path}.{name}", p, what=what)
    if "supported_features" in result:
        features = features_value(
            domain, result["supported_features"], f"{path}.supported_features", p
        )
        if features is not None and domain == "fan":
            # Upstream's fans always turn on and off, whatever their features list says.
            features |= 16 | 32  # FanEntityFeature.TURN_OFF | TURN_ON
        result["supported_features"] = features
        if features is None:
            del result["supported_features"]
    if domain == "todo" and "todo_items" in result:
        _todo_items(result, path, p)
    return result


def _device_class(domain: str, value: Any) -> Any:
    """A device class in its canonical spelling; one Home Assistant does not know as it is."""
    cls_name = DEVICE_CLASSES.get(domain)
    cls = enum_class(domain, cls_name) if cls_name else None
    member = _member(cls, value) if cls is not None and isinstance(value, str) else None
    return value if member is None else member.value


def _todo_items(result: dict[str, Any], path: str, p: Problems) -> None:
    """`todo_items` ({summary, status} or texts) -> `items` (open) and `completed`."""
    raw = result.pop("todo_items")
    if not isinstance(raw, list):
        p.add(f"{path}.todo_items must be a list of items")
        return
    open_items = list(result.get("items") or [])
    done = list(result.get("completed") or [])
    for index, item in enumerate(raw):
        where = f"{path}.todo_items[{index}]"
        if isinstance(item, (str, int, float)) and not isinstance(item, bool):
            open_items.append(str(item))
            continue
        if not isinstance(item, dict) or not item.get("summary"):
            p.add(f"{where} must be a text or a mapping with a summary")
            continue
        status = _resolve(item.get("status", "needs_action"), "todo", f"{where}.status", p)
        if str(status) not in _TODO_STATUSES:
            p.add(
                f"{where}.status: {status!r} is not a to-do status "
                "(one of: needs_action, completed)"
            )
            continue
        (done if status == "completed" else open_items).append(str(item["summary"]))
    result["items"] = open_items
    result["completed"] = done


def normalise_entity(
    domain: str, state: Any, attributes: Mapping[str, Any], path: str, p: Problems
) -> tuple[str, dict[str, Any]]:
    """The state and attributes of a fixture entity (its state may be missing)."""
    result = normalise_attributes(domain, attributes, path, p)
    state = lift_state(domain, state, result)
    text = state_text(domain, state) if state is not None else default_state(domain, result)
    if domain == "light" and isinstance(result.get("color_mode"), str):
        supported = result.get("supported_color_modes")
        if isinstance(supported, list) and result["color_mode"] not in supported:
            p.add(
                f"{path}.color_mode: {result['color_mode']!r} is not one of "
                f"supported_color_modes {supported}"
            )
    forecast = result.get("forecast")
    if domain == "weather" and forecast is not None and not _mappings(forecast):
        p.add(f"{path}.forecast must be a list of forecasts (datetime, condition, ...)")
    return text, result


def _mappings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, Mapping) for item in value)
