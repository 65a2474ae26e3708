"""Evaluation homes: `_fixtures.yaml` (areas, devices, entities) and task files, validated.

The layout is that of the home-assistant-datasets project; eval/README.md documents exactly
what is accepted. Every problem in a home is collected and reported at once, each with the
file and the path inside it (`flat/lights.yaml: tests[2].expect_changes.light.kitchn: ...`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
import difflib
from pathlib import Path
import re
from typing import Any, ClassVar, Final

import yaml  # type: ignore[import-untyped]

from testing.fixture_home import SUPPORTED_DOMAINS as ENTITY_DOMAINS

from .upstream import Problems, normalise_attributes, normalise_entity, state_text

FIXTURES_FILE: Final = "_fixtures.yaml"
# Domains set up by Home Assistant's own integration rather than fixture_home.
HELPER_DOMAINS: Final = frozenset({"timer"})
SUPPORTED_DOMAINS: Final = ENTITY_DOMAINS | HELPER_DOMAINS

_FIXTURE_KEYS: Final = frozenset(
    {"name", "description", "language", "floors", "areas", "devices", "entities"}
)
_FLOOR_KEYS: Final = frozenset({"name", "id", "level"})
_AREA_KEYS: Final = frozenset({"name", "id", "floor"})
_DEVICE_INFO_KEYS: Final = frozenset(
    {"manufacturer", "model", "model_id", "sw_version", "hw_version", "serial_number"}
)
_DEVICE_KEYS: Final = frozenset({"name", "id", "area", "info"}) | _DEVICE_INFO_KEYS
_ENTITY_KEYS: Final = frozenset(
    {"name", "id", "state", "attributes", "area", "device", "aliases", "exposed"}
)
_TASK_KEYS: Final = frozenset({"category", "description", "tests"})
_TEST_KEYS: Final = frozenset(
    {
        "sentences",
        "setup",
        "expect_changes",
        "ignore_changes",
        "expect_confirmation",
        "expect_answer",
        "expect_question",
        "answer_from",
        "context_device",
        "note",
    }
)
_STATE_KEYS: Final = frozenset({"state", "attributes"})
_DURATION: Final = re.compile(r"^\d+:\d{1,2}(:\d{1,2})?$")
_ON_OFF: Final = ("on", "off")
_OPENING: Final = ("open", "closed", "opening", "closing")
# The states an entity of each domain can be in (domains not listed: any text).
VALID_STATES: Final[Mapping[str, tuple[str, ...]]] = {
    "alarm_control_panel": (
        "disarmed", "armed_home", "armed_away", "armed_night", "armed_vacation",
        "armed_custom_bypass", "pending", "arming", "disarming", "triggered",
    ),
    "binary_sensor": _ON_OFF,
    "climate": ("off", "heat", "cool", "heat_cool", "auto", "dry", "fan_only"),
    "cover": _OPENING,
    "fan": _ON_OFF,
    "light": _ON_OFF,
    "lock": ("locked", "unlocked", "open", "jammed", "locking", "unlocking", "opening"),
    "media_player": ("off", "on", "idle", "playing", "paused", "standby", "buffering"),
    "switch": _ON_OFF,
    "timer": ("idle", "active", "paused"),
    "vacuum": ("cleaning", "docked", "idle", "paused", "returning", "error"),
    "valve": _OPENING,
}  # fmt: skip


class DatasetError(Exception):
    """A home or task file does not follow the schema; the message lists every problem."""

    def __init__(self, problems: Sequence[str]) -> None:
        """Keep the problems; the message has one per line."""
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True, slots=True)
class Floor:
    """A floor of the home."""

    id: str
    name: str
    level: int | None = None


@dataclass(frozen=True, slots=True)
class Area:
    """A room; floor is a floor id."""

    id: str
    name: str
    floor: str | None = None


@dataclass(frozen=True, slots=True)
class Device:
    """A device; area is an area id."""

    id: str
    name: str
    area: str | None = None
    info: Mapping[str, str] = field(default_factory=dict)  # manufacturer, model, sw_version, ...

    @property
    def manufacturer(self) -> str | None:
        """The manufacturer, when given."""
        return self.info.get("manufacturer")

    @property
    def model(self) -> str | None:
        """The model, when given."""
        return self.info.get("model")


@dataclass(frozen=True, slots=True)
class EntityFixture:
    """An entity as the home starts; area and device are ids.

    name is None for an entity without a name of its own: Home Assistant names it after its
    device (display_name has that name).
    """

    entity_id: str
    name: str | None
    state: str
    attributes: Mapping[str, Any] = field(default_factory=dict)
    area: str | None = None
    device: str | None = None
    aliases: tuple[str, ...] = ()
    exposed: bool = True
    display_name: str = ""

    @property
    def domain(self) -> str:
        """The entity's domain."""
        return self.entity_id.split(".", 1)[0]


@dataclass(frozen=True, slots=True)
class StateSpec:
    """A state and/or attributes, as in `setup` and `expect_changes`."""

    state: str | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TestCase:
    """One test of a task file: sentences that should all lead to the same outcome."""

    __test__: ClassVar[bool] = False  # not a pytest test class

    home: str
    file: str
    index: int
    category: str
    sentences: tuple[str, ...]
    setup: Mapping[str, StateSpec] = field(default_factory=dict)
    expect_changes: Mapping[str, StateSpec] = field(default_factory=dict)
    ignore_changes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    expect_confirmation: bool | None = None
    expect_answer: tuple[str, ...] = ()
    expect_question: bool = False
    answer_from: tuple[str, ...] = ()
    context_device: str | None = None  # a device id of the home: the request comes from it

    @property
    def id(self) -> str:
        """E.g. `flat/lights#3` (file stem and 1-based position in it)."""
        return f"{self.home}/{Path(self.file).stem}#{self.index + 1}"


@dataclass(frozen=True, slots=True)
class Home:
    """An evaluation home: its fixtures and its tests."""

    name: str
    path: Path
    title: str
    language: str | None
    floors: tuple[Floor, ...]
    areas: tuple[Area, ...]
    devices: tuple[Device, ...]
    entities: tuple[EntityFixture, ...]
    tests: tuple[TestCase, ...]

    def entity(self, entity_id: str) -> EntityFixture:
        """Return the fixture of an entity."""
        return next(e for e in self.entities if e.entity_id == entity_id)

    @property
    def categories(self) -> list[str]:
        """The categories of its tests, in file order."""
        return list(dict.fromkeys(test.category for test in self.tests))


class _Problems:
    """Collects problems, each prefixed with its file."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.items.append(f"{where}: {message}")


def load_homes(root: Path, names: Iterable[str] | None = None) -> list[Home]:
    """Load every home under root (a directory holding `_fixtures.yaml`), or the named ones."""
    if (root / FIXTURES_FILE).is_file():
        return [load_home(root)]
    if not root.is_dir():
        raise DatasetError([f"{root}: no such directory"])
    available = sorted(p.name for p in root.iterdir() if (p / FIXTURES_FILE).is_file())
    if not available:
        raise DatasetError([f"{root}: no home directories (with {FIXTURES_FILE}) in it"])
    wanted = list(dict.fromkeys(names)) if names else available
    if unknown := [name for name in wanted if name not in available]:
        raise DatasetError(
            [f"{root}: no home named {name!r} (homes: {', '.join(available)})" for name in unknown]
        )
    homes: list[Home] = []
    problems: list[str] = []
    for name in wanted:
        try:
            homes.append(load_home(root / name))
        except DatasetError as err:
            problems.extend(err.problems)
    if problems:
        raise DatasetError(problems)
    return homes


def load_home(path: Path) -> Home:
    """Load and validate one home directory."""
    problems = _Problems()
    name = path.name
    fixtures_file = path / FIXTURES_FILE
    raw = _read_yaml(fixtures_file, f"{name}/{FIXTURES_FILE}", problems)
    fixtures = (
        _Fixtures.parse(raw, f"{name}/{FIXTURES_FILE}", problems) if raw is not None else None
    )
    tests: list[TestCase] = []
    task_files = sorted(p for p in path.glob("*.yaml") if p.name != FIXTURES_FILE)
    if fixtures is not None:
        for task_file in task_files:
            where = f"{name}/{task_file.name}"
            raw_task = _read_yaml(task_file, where, problems)
            if raw_task is not None:
                tests.extend(
                    _parse_tasks(
                        raw_task,
                        where=where,
                        home=name,
                        file=task_file.name,
                        fixtures=fixtures,
                        p=problems,
                    )
                )
        if not task_files:
            problems.add(name, "no task files (*.yaml besides _fixtures.yaml)")
    if problems.items or fixtures is None:
        raise DatasetError(problems.items)
    return Home(
        name=name,
        path=path,
        title=fixtures.title or name,
        language=fixtures.language,
        floors=fixtures.floors,
        areas=fixtures.areas,
        devices=fixtures.devices,
        entities=fixtures.entities,
        tests=tuple(tests),
    )


def _read_yaml(path: Path, where: str, problems: _Problems) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        problems.add(where, f"cannot be read: {err.strerror or err}")
        return None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        problems.add(where, f"is not valid YAML: {err}")
        return None
    if not isinstance(data, dict):
        problems.add(where, "must be a mapping at the top level")
        return None
    return data


def _unknown_keys(
    data: Mapping[str, Any], allowed: frozenset[str], where: str, p: _Problems
) -> None:
    for key in data:
        if key not in allowed:
            hint = difflib.get_close_matches(str(key), allowed, n=1)
            suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
            p.add(where, f"unknown key {key!r}{suggestion}; allowed: {', '.join(sorted(allowed))}")


def _text(value: Any) -> str | None:
    """A scalar as text; YAML's unquoted on/off/yes/no (booleans) read as on/off."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def state_problem(domain: str, state: str) -> str | None:
    """Say why state is impossible for the domain, or None."""
    valid = VALID_STATES.get(domain)
    if valid is None or state in valid:
        return None
    return f"{state!r} is not a {domain} state (one of: {', '.join(valid)})"


def _slug(name: str) -> str:
    return "_".join("".join(c if c.isalnum() else " " for c in name.lower()).split())


@dataclass(slots=True)
class _Fixtures:
    title: str | None
    language: str | None
    floors: tuple[Floor, ...]
    areas: tuple[Area, ...]
    devices: tuple[Device, ...]
    entities: tuple[EntityFixture, ...]

    @property
    def entity_ids(self) -> dict[str, EntityFixture]:
        return {entity.entity_id: entity for entity in self.entities}

    @classmethod
    def parse(cls, data: Mapping[str, Any], where: str, p: _Problems) -> _Fixtures:
        _unknown_keys(data, _FIXTURE_KEYS, where, p)
        floors = _parse_floors(data.get("floors"), where, p)
        areas = _parse_areas(data.get("areas"), where, floors, p)
        devices = _parse_devices(data.get("devices"), where, areas, p)
        entities = _parse_entities(data.get("entities"), where, areas, devices, p)
        title = _text(data.get("name"))
        language = data.get("language")
        if language is not None and not (isinstance(language, str) and language.strip()):
            p.add(where, "language must be a language code such as en")
            language = None
        return cls(
            title,
            language.strip() if language else None,
            tuple(floors.values()),
            tuple(areas.values()),
            devices,
            entities,
        )


def _items(value: Any, key: str, where: str, p: _Problems) -> list[tuple[str, dict[str, Any]]]:
    """The mappings of a list, each with its path; problems for anything else."""
    if value is None:
        return []
    if not isinstance(value, list):
        p.add(where, f"{key} must be a list")
        return []
    items: list[tuple[str, dict[str, Any]]] = []
    for index, item in enumerate(value):
        path = f"{key}[{index}]"
        if not isinstance(item, dict):
            p.add(where, f"{path} must be a mapping")
            continue
        items.append((path, item))
    return items


def _name_and_id(item: Mapping[str, Any], path: str, where: str, p: _Problems) -> tuple[str, str]:
    name = _text(item.get("name"))
    if not name:
        p.add(where, f"{path}.name is required")
        name = path
    return name, _text(item.get("id")) or _slug(name)


def _parse_floors(value: Any, where: str, p: _Problems) -> dict[str, Floor]:
    floors: dict[str, Floor] = {}
    for path, item in _items(value, "floors", where, p):
        _unknown_keys(item, _FLOOR_KEYS, f"{where}: {path}", p)
        name, floor_id = _name_and_id(item, path, where, p)
        level = item.get("level")
        if level is not None and not isinstance(level, int):
            p.add(where, f"{path}.level must be a whole number")
            level = None
        if floor_id in floors:
            p.add(where, f"{path}: floor id {floor_id!r} is used twice")
        floors[floor_id] = Floor(floor_id, name, level)
    return floors


def _reference(
    value: Any, known: Mapping[str, Any], kind: str, *, path: str, where: str, p: _Problems
) -> str | None:
    """Resolve a reference by id or by name; None (and a problem) when it names nothing."""
    if value is None:
        return None
    text = _text(value)
    if text is None:
        p.add(where, f"{path} must be the id or name of a {kind}")
        return None
    if text in known:
        return text
    for key, item in known.items():
        if getattr(item, "name", None) == text:
            return key
    hint = difflib.get_close_matches(text, list(known), n=1)
    suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
    p.add(where, f"{path}: no {kind} {text!r}{suggestion}")
    return None


def _parse_areas(value: Any, where: str, floors: dict[str, Floor], p: _Problems) -> dict[str, Area]:
    areas: dict[str, Area] = {}
    # Without a floors list, an area's floor is a name: the floor is created with the area.
    implicit_floors = not floors
    for path, item in _items(value, "areas", where, p):
        _unknown_keys(item, _AREA_KEYS, f"{where}: {path}", p)
        name, area_id = _name_and_id(item, path, where, p)
        floor = item.get("floor")
        floor_id = None
        if floor is not None and implicit_floors and (text := _text(floor)):
            floor_id = _slug(text)
            floors.setdefault(floor_id, Floor(floor_id, text))
        elif floor is not None:
            floor_id = _reference(floor, floors, "floor", path=f"{path}.floor", where=where, p=p)
        if area_id in areas:
            p.add(where, f"{path}: area id {area_id!r} is used twice")
        areas[area_id] = Area(area_id, name, floor_id)
    return areas


def _parse_devices(
    value: Any, where: str, areas: dict[str, Area], p: _Problems
) -> tuple[Device, ...]:
    devices: dict[str, Device] = {}
    for path, item in _items(value, "devices", where, p):
        _unknown_keys(item, _DEVICE_KEYS, f"{where}: {path}", p)
        name, device_id = _name_and_id(item, path, where, p)
        area = _reference(item.get("area"), areas, "area", path=f"{path}.area", where=where, p=p)
        if device_id in devices:
            p.add(where, f"{path}: device id {device_id!r} is used twice")
        devices[device_id] = Device(device_id, name, area, _device_info(item, path, where, p))
    return tuple(devices.values())


def _device_info(item: Mapping[str, Any], path: str, where: str, p: _Problems) -> dict[str, str]:
    """Manufacturer, model, ...: upstream nests them under `info`; top-level keys also work."""
    info: dict[str, str] = {}
    nested = item.get("info")
    if nested is not None and not isinstance(nested, dict):
        p.add(where, f"{path}.info must be a mapping (manufacturer, model, sw_version, ...)")
        nested = None
    if nested:
        _unknown_keys(nested, _DEVICE_INFO_KEYS, f"{where}: {path}.info", p)
    for source in (nested or {}, item):
        for key in _DEVICE_INFO_KEYS:
            if source.get(key) is not None:
                text = _text(source[key])
                if text is None:
                    p.add(where, f"{path}.{key} must be a text")
                else:
                    info.setdefault(key, text)
    return info


def _parse_entities(
    value: Any,
    where: str,
    areas: dict[str, Area],
    devices: tuple[Device, ...],
    p: _Problems,
) -> tuple[EntityFixture, ...]:
    by_device = {device.id: device for device in devices}
    entities: dict[str, EntityFixture] = {}
    if not value:
        p.add(where, "entities is required and must list at least one entity")
    for path, item in _items(value, "entities", where, p):
        _unknown_keys(item, _ENTITY_KEYS, f"{where}: {path}", p)
        entity_id = _text(item.get("id")) or ""
        label = f"{path} ({entity_id})" if entity_id else path
        domain, _, object_id = entity_id.partition(".")
        if not object_id or _slug(object_id) != object_id or not domain:
            p.add(where, f"{label}.id must be an entity id like light.kitchen")
            continue
        if domain not in SUPPORTED_DOMAINS:
            p.add(
                where,
                f"{label}: domain {domain!r} is not supported "
                f"(supported: {', '.join(sorted(SUPPORTED_DOMAINS))})",
            )
            continue
        if entity_id in entities:
            p.add(where, f"{label}: entity id is used twice")
        name = _text(item.get("name"))
        raw_attributes = item.get("attributes") or {}
        if not isinstance(raw_attributes, dict):
            p.add(where, f"{label}.attributes must be a mapping")
            raw_attributes = {}
        problems = Problems(lambda message: p.add(where, message))
        state, attributes = normalise_entity(
            domain, item.get("state"), raw_attributes, label, problems
        )
        if problem := state_problem(domain, state):
            p.add(where, f"{label}.state: {problem}")
        duration = attributes.get("duration")
        if domain == "timer" and duration is not None and not _DURATION.match(str(duration)):
            p.add(where, f"{label}.attributes.duration must be H:MM:SS, got {duration!r}")
        aliases = item.get("aliases") or []
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            p.add(where, f"{label}.aliases must be a list of names")
            aliases = []
        device = _reference(
            item.get("device"), by_device, "device", path=f"{label}.device", where=where, p=p
        )
        area = _reference(item.get("area"), areas, "area", path=f"{label}.area", where=where, p=p)
        display_name = name
        if device is not None and area is not None and area == by_device[device].area:
            area = None  # the device's area: the entity follows it, as in Home Assistant
        if not name and device is not None:
            display_name = by_device[device].name  # Home Assistant names it after its device
        elif not name:
            display_name = object_id.replace("_", " ").title()
            name = display_name
        exposed = item.get("exposed", True)
        if not isinstance(exposed, bool):
            p.add(where, f"{label}.exposed must be true or false")
            exposed = True
        entities[entity_id] = EntityFixture(
            entity_id=entity_id,
            name=name,
            state=state,
            attributes=attributes,
            area=area,
            device=device,
            aliases=tuple(aliases),
            exposed=exposed,
            display_name=display_name or entity_id,
        )
    return tuple(entities.values())


def _parse_tasks(
    data: Mapping[str, Any],
    *,
    where: str,
    home: str,
    file: str,
    fixtures: _Fixtures,
    p: _Problems,
) -> list[TestCase]:
    _unknown_keys(data, _TASK_KEYS, where, p)
    category = _text(data.get("category"))
    if not category:
        p.add(where, "category is required")
        category = Path(file).stem
    raw_tests = data.get("tests")
    if not isinstance(raw_tests, list) or not raw_tests:
        p.add(where, "tests is required and must list at least one test")
        return []
    known = fixtures.entity_ids
    tests: list[TestCase] = []
    for path, item in _items(raw_tests, "tests", where, p):
        index = int(path.removeprefix("tests[").removesuffix("]"))
        _unknown_keys(item, _TEST_KEYS, f"{where}: {path}", p)
        sentences = item.get("sentences")
        if (
            not isinstance(sentences, list)
            or not sentences
            or not all(isinstance(s, str) and s.strip() for s in sentences)
        ):
            p.add(where, f"{path}.sentences must be a list of at least one sentence")
            sentences = []
        setup = _state_specs(item.get("setup"), f"{path}.setup", where, known, p)
        expect = _state_specs(item.get("expect_changes"), f"{path}.expect_changes", where, known, p)
        ignore = _ignore(item.get("ignore_changes"), f"{path}.ignore_changes", where, known, p)
        confirmation = item.get("expect_confirmation")
        if confirmation is not None and not isinstance(confirmation, bool):
            p.add(where, f"{path}.expect_confirmation must be true or false")
            confirmation = None
        question = item.get("expect_question", False)
        if not isinstance(question, bool):
            p.add(where, f"{path}.expect_question must be true or false")
            question = False
        answer = _strings(item.get("expect_answer"), f"{path}.expect_answer", where, p)
        answer_from = _strings(item.get("answer_from"), f"{path}.answer_from", where, p)
        for entity_id in answer_from:
            if entity_id not in known:
                p.add(where, f"{path}.answer_from: {_unknown_entity(entity_id, known)}")
        devices = {device.id: device for device in fixtures.devices}
        context_device = _reference(
            item.get("context_device"),
            devices,
            "device",
            path=f"{path}.context_device",
            where=where,
            p=p,
        )
        tests.append(
            TestCase(
                home=home,
                file=file,
                index=index,
                category=category,
                sentences=tuple(s.strip() for s in sentences),
                setup=setup,
                expect_changes=expect,
                ignore_changes=ignore,
                expect_confirmation=confirmation,
                expect_answer=answer,
                expect_question=question,
                answer_from=answer_from,
                context_device=context_device,
            )
        )
    return tests


def _unknown_entity(entity_id: str, known: Mapping[str, EntityFixture]) -> str:
    hint = difflib.get_close_matches(entity_id, list(known), n=1)
    suggestion = f" (did you mean {hint[0]}?)" if hint else ""
    return f"{entity_id} is not an entity of {FIXTURES_FILE}{suggestion}"


def _strings(value: Any, path: str, where: str, p: _Problems) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return tuple(str(v) for v in value)
    p.add(where, f"{path} must be a text or a list of texts")
    return ()


def _state_specs(
    value: Any, path: str, where: str, known: Mapping[str, EntityFixture], p: _Problems
) -> dict[str, StateSpec]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        p.add(where, f"{path} must map entity ids to {{state, attributes}}")
        return {}
    specs: dict[str, StateSpec] = {}
    for entity_id, raw in value.items():
        entry = f"{path}.{entity_id}"
        if entity_id not in known:
            p.add(where, f"{entry}: {_unknown_entity(str(entity_id), known)}")
            continue
        if not isinstance(raw, dict):
            p.add(where, f"{entry} must be a mapping with state and/or attributes")
            continue
        _unknown_keys(raw, _STATE_KEYS, f"{where}: {entry}", p)
        domain = str(entity_id).split(".", 1)[0]
        raw_attributes = raw.get("attributes") or {}
        if not isinstance(raw_attributes, dict):
            p.add(where, f"{entry}.attributes must be a mapping")
            raw_attributes = {}
        problems = Problems(lambda message: p.add(where, message))
        attributes = normalise_attributes(domain, raw_attributes, f"{entry}.attributes", problems)
        state = raw.get("state")
        # The state written as an attribute, as upstream does for thermostats and sensors.
        for lifted in ("hvac_mode",) if domain == "climate" else ("native_value",):
            if lifted in attributes:
                value = attributes.pop(lifted)
                state = value if state is None else state
        text = state_text(domain, state) if state is not None else None
        if state is not None and text is None:
            p.add(where, f"{entry}.state must be a text")
        elif text is not None and (problem := state_problem(domain, text)):
            p.add(where, f"{entry}.state: {problem}")
        if text is None and not attributes:
            p.add(where, f"{entry} needs a state or attributes")
        specs[str(entity_id)] = StateSpec(text, attributes)
    return specs


IGNORE_ALL: Final = "*"


def _ignore(
    value: Any, path: str, where: str, known: Mapping[str, EntityFixture], p: _Problems
) -> dict[str, tuple[str, ...]]:
    """Changes that do not count, per entity: attribute names, `state`, or `*` (everything).

    Forms: a list of entity ids (anything about them may change), or a mapping from entity id
    to a list of names, one name, null (everything), or a mapping whose keys are the names
    (`state`, attribute names, or `attributes` with a list of names).
    """
    if value is None:
        return {}
    if isinstance(value, list):
        value = dict.fromkeys(value)
    if not isinstance(value, dict):
        p.add(where, f"{path} must list entity ids or map entity ids to attribute names")
        return {}
    ignored: dict[str, tuple[str, ...]] = {}
    for entity_id, names in value.items():
        entry = f"{path}.{entity_id}"
        if not isinstance(entity_id, str) or entity_id not in known:
            p.add(where, f"{entry}: {_unknown_entity(str(entity_id), known)}")
            continue
        read = _ignored_names(names)
        if read is None:
            p.add(
                where,
                f"{entry} must be null, a name, a list of names or a mapping of names "
                "(attribute names or 'state')",
            )
            continue
        ignored[entity_id] = read
    return ignored


def _ignored_names(names: Any) -> tuple[str, ...] | None:
    if names is None:
        return (IGNORE_ALL,)
    if isinstance(names, str):
        return (names,)
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        return tuple(names)
    if isinstance(names, dict):
        result: list[str] = []
        for key, inner in names.items():
            if key == "attributes" and isinstance(inner, (list, dict)):
                result.extend(str(n) for n in inner)
            elif isinstance(key, str):
                result.append(key)
            else:
                return None
        return tuple(result)
    return None
