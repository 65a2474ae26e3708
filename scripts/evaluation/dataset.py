"""Evaluation homes: `_fixtures.yaml` (areas, devices, entities) and task files.

The layout is that of the home-assistant-datasets project; eval/README.md documents what is
read and how. A home runs as Home Assistant would hold it: what Home Assistant would store is
stored (normalised the way it normalises it), what the fixture integration cannot simulate is
left out with one warning line per kind (`Findings`), and the tests that need it are skipped.
Only a file that cannot be read, or a home without tests, is an error (`DatasetError`).
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
import datetime as dt
import difflib
from pathlib import Path
import re
from typing import Any
from typing import ClassVar
from typing import Final

import yaml

from homeassistant.core import valid_entity_id
from homeassistant.util import slugify
from testing.fixture_home import SUPPORTED_DOMAINS as ENTITY_DOMAINS
from testing.fixture_home import entity_class

from .upstream import Problems
from .upstream import lift_state
from .upstream import normalise_attributes
from .upstream import normalise_entity
from .upstream import state_text

FIXTURES_FILE: Final = "_fixtures.yaml"
DATASET_CARD: Final = "dataset_card.yaml"
# Files of a home directory that are not task files (home-assistant-datasets ignores them too).
NOT_TASK_FILES: Final = frozenset({FIXTURES_FILE, "_home.yaml", "solution.yaml", DATASET_CARD})
# Domains set up by Home Assistant's own integration rather than fixture_home.
HELPER_DOMAINS: Final = frozenset({"timer"})
SUPPORTED_DOMAINS: Final = ENTITY_DOMAINS | HELPER_DOMAINS
TIMER_STATES: Final = ("idle", "active", "paused")

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
        "sentences", "setup", "expect_changes", "ignore_changes", "expect_confirmation",
        "expect_answer", "expect_response", "expect_question", "answer_from", "context_device",
        "context_now", "event", "note",
    }
)  # fmt: skip
_STATE_KEYS: Final = frozenset({"state", "attributes"})
_DURATION: Final = re.compile(r"^\d+:\d{1,2}(:\d{1,2})?$")

# Kinds of findings: one warning line each (eval/README.md, "What is skipped").
DOMAIN_LEFT_OUT: Final = "domain {!r} is not simulated: its entities are left out"
UNREADABLE_ENTITY: Final = (
    "entities with values that name nothing Home Assistant knows are left out"
)
NO_ENTITY_ID: Final = "entities without a usable entity id are left out"
DUPLICATE_ENTITY: Final = "entity ids used twice: Home Assistant keeps the first"
RENAMED: Final = "entity ids renamed as Home Assistant stores them"
UNKNOWN_KEY: Final = "unknown keys are ignored"
UNKNOWN_REFERENCE: Final = "areas, devices and floors that do not exist are ignored"
UNKNOWN_ENTITY: Final = "tests that name entities the home does not have are skipped"
UNREADABLE_TEST: Final = "tests with values that cannot be read are skipped"
NO_SENTENCES: Final = "tests without sentences are left out"
AUTOMATION_TEST: Final = (
    "tests that ask for an automation (with an `event`) are skipped: the evaluation runs "
    "requests, not automations"
)
NO_CATEGORY: Final = "task files without a category are named after the file"
NO_FIXTURES: Final = f"folders with task files but no {FIXTURES_FILE} are left out"
UNSIMULATED_CHANGE: Final = "{} {} is not simulated: tests that change {} are skipped"
MOMENTARY_STATE: Final = (
    "{} state {!r} is not simulated (the fixture changes at once): tests expecting it are skipped"
)
REFUSED: Final = (
    "values Home Assistant refuses: the entities, or the tests setting them, are skipped"
)
MAX_EXAMPLES: Final = 3


class NotAHomeSet(Exception):
    """The folder holds no evaluation homes (another kind of dataset); the message says why."""


class DatasetError(Exception):
    """A file cannot be read, or a home has no tests; the message lists every problem."""

    def __init__(self, problems: Sequence[str]) -> None:
        """Keep the problems; the message has one per line."""
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(slots=True)
class Findings:
    """What loading and running a home found that does not stop the evaluation, by kind."""

    details: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, detail: str) -> str:
        """Record one case of a kind; return the kind (a skipped test's reason)."""
        self.details.setdefault(kind, []).append(detail)
        return kind

    def lines(self, skipped: Mapping[str, int] | None = None) -> list[str]:
        """One line per kind: its first cases, and how many sentences it skipped."""
        lines: list[str] = []
        for kind, details in self.details.items():
            examples = "; ".join(details[:MAX_EXAMPLES])
            more = (
                f" (and {len(details) - MAX_EXAMPLES} more)" if len(details) > MAX_EXAMPLES else ""
            )
            count = (skipped or {}).get(kind, 0)
            tail = f" [{count} sentence{'s' * (count != 1)} skipped]" if count else ""
            lines.append(f"warning: {kind}: {examples}{more}{tail}")
        return lines


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
    expect_answer: tuple[str, ...] = ()  # all must appear in the answer
    expect_response: tuple[str, ...] = ()  # upstream: one of them must appear
    expect_question: bool = False
    answer_from: tuple[str, ...] = ()
    context_device: str | None = None  # a device id of the home: the request comes from it
    context_now: dt.datetime | None = None  # the home's clock when it is asked (None: now)
    skip: str | None = None  # why it is not run (a kind of Findings)

    @property
    def id(self) -> str:
        """E.g. `flat/lights#3` (file stem and 1-based position in it)."""
        return f"{self.home}/{Path(self.file).stem}#{self.index + 1}"

    @property
    def needs(self) -> frozenset[str]:
        """The entities the test sets up, expects or reads."""
        return frozenset(self.setup) | frozenset(self.expect_changes) | frozenset(self.answer_from)


@dataclass(frozen=True, slots=True)
class Home:
    """An evaluation home: its fixtures and its tests (skipped ones included)."""

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


def home_names(root: Path) -> list[str]:
    """The homes under root: every folder holding `_fixtures.yaml`, by relative path.

    Raises NotAHomeSet for a folder of another kind of dataset (no home in it, or a set whose
    dataset card turns the agent's Home Assistant API off: it scores written automations).
    """
    if not root.exists():
        raise DatasetError([f"{root}: no such directory"])
    if _api_off(dataset_card(root)):
        raise NotAHomeSet(
            "its dataset_card.yaml turns the agent's Home Assistant API off (llm_hass_api), "
            "so its sentences ask for automations to be written, not for actions"
        )
    if (root / FIXTURES_FILE).is_file():
        return [root.name]
    if not root.is_dir():
        raise DatasetError([f"{root}: no such directory"])
    names = sorted(p.parent.relative_to(root).as_posix() for p in root.rglob(FIXTURES_FILE))
    if not names:
        raise NotAHomeSet(
            f"no folder in it holds a {FIXTURES_FILE} (a home's areas, devices and entities) "
            "next to task files"
        )
    return names


def _api_off(card: Mapping[str, Any]) -> bool:
    """Whether a dataset card runs its conversation agent without a Home Assistant API."""
    options = card.get("config_entry_options")
    return isinstance(options, dict) and "llm_hass_api" in options and not options["llm_hass_api"]


def load_homes(
    root: Path, names: Iterable[str] | None = None, findings: Findings | None = None
) -> list[Home]:
    """Load every home under root (a home itself, or folders of homes), or the named ones."""
    findings = findings if findings is not None else Findings()
    if (root / FIXTURES_FILE).is_file():
        return [load_home(root, findings)]
    available = home_names(root)
    wanted = list(dict.fromkeys(names)) if names else available
    if unknown := [name for name in wanted if name not in available]:
        raise DatasetError(
            [f"{root}: no home named {name!r} (homes: {', '.join(available)})" for name in unknown]
        )
    if not names:
        homes_at = {root / name for name in available}
        for folder in sorted({p.parent for p in root.rglob("*.yaml")} - homes_at):
            if _task_files(folder) and not any(folder.is_relative_to(h) for h in homes_at):
                findings.add(NO_FIXTURES, folder.relative_to(root).as_posix())
    homes: list[Home] = []
    problems: list[str] = []
    for name in wanted:
        try:
            homes.append(load_home(root / name, findings, name))
        except DatasetError as err:
            problems.extend(err.problems)
    if problems:
        raise DatasetError(problems)
    return homes


def _task_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.yaml") if p.name not in NOT_TASK_FILES)


def load_home(path: Path, findings: Findings | None = None, name: str | None = None) -> Home:
    """Load one home directory; name: how it is called (default: the folder's name)."""
    findings = findings if findings is not None else Findings()
    name = name or path.name
    errors: list[str] = []
    raw = _read_yaml(path / FIXTURES_FILE, f"{name}/{FIXTURES_FILE}", errors)
    fixtures = _Fixtures.parse(raw, f"{name}/{FIXTURES_FILE}", findings) if raw else None
    tests: list[TestCase] = []
    task_files = _task_files(path)
    for task_file in task_files:
        where = f"{name}/{task_file.name}"
        raw_task = _read_yaml(task_file, where, errors)
        if raw_task is not None and fixtures is not None:
            found = _parse_tasks(raw_task, where=where, home=name, file=task_file.name, fx=fixtures)
            tests.extend(found)
            if not found:
                errors.append(f"{where}: has no tests (tests must list at least one test)")
    if not task_files:
        errors.append(f"{name}: no task files (*.yaml besides {FIXTURES_FILE})")
    if errors or fixtures is None:
        raise DatasetError(errors)
    return Home(
        name=name,
        path=path,
        title=fixtures.title or path.name,
        language=fixtures.language or dataset_language(path),
        floors=tuple(fixtures.floors.values()),
        areas=tuple(fixtures.areas.values()),
        devices=tuple(fixtures.devices.values()),
        entities=tuple(fixtures.entities.values()),
        tests=tuple(tests),
    )


def dataset_card(path: Path) -> dict[str, Any]:
    """The dataset_card.yaml of the set a home belongs to: the nearest one above it.

    Upstream writes the language of a whole set there (`assist-de`: `language: de`), not in
    each home. A card that cannot be read is an error (DatasetError): read as no card, a
    German set would be asked in English.
    """
    for folder in (path, *path.resolve().parents):
        card = folder / DATASET_CARD
        if card.is_file():
            errors: list[str] = []
            data = _read_yaml(card, str(card), errors)
            if errors:
                raise DatasetError(errors)
            return data if isinstance(data, dict) else {}
    return {}


def dataset_language(path: Path) -> str | None:
    """The `language` of the set a home belongs to (its dataset card), if it names one."""
    language = dataset_card(path).get("language")
    return language.strip() if isinstance(language, str) and language.strip() else None


def _read_yaml(path: Path, where: str, errors: list[str]) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        errors.append(f"{where}: cannot be read: {err.strerror or err}")
        return None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        errors.append(f"{where}: is not valid YAML: {err}")
        return None
    if not isinstance(data, dict):
        errors.append(f"{where}: must be a mapping at the top level")
        return None
    return data


def _text(value: Any) -> str | None:
    """A scalar as text; YAML's unquoted on/off/yes/no (booleans) read as on/off."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def _hint(word: str, known: Iterable[str]) -> str:
    found = difflib.get_close_matches(word, list(known), n=1, cutoff=0.75)
    return f" (did you mean {found[0]!r}?)" if found else ""


def stored_entity_id(text: str) -> str | None:
    """The id Home Assistant stores for an entity id written as text, or None if it has none.

    The state machine lower-cases ids and the entity registry makes the object id a slug
    (`sensor.price_per_kW` is stored as `sensor.price_per_kw`).
    """
    domain, _, object_id = text.strip().partition(".")
    stored = f"{domain.lower()}.{slugify(object_id)}"
    return stored if object_id and valid_entity_id(stored) else None


@dataclass(slots=True)
class _Fixtures:
    """A home's `_fixtures.yaml` as read, and what it left out (entity id -> kind)."""

    where: str
    findings: Findings
    title: str | None = None
    language: str | None = None
    floors: dict[str, Floor] = field(default_factory=dict)
    areas: dict[str, Area] = field(default_factory=dict)
    devices: dict[str, Device] = field(default_factory=dict)
    entities: dict[str, EntityFixture] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)
    renamed: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, data: Mapping[str, Any], where: str, findings: Findings) -> _Fixtures:
        fx = cls(where, findings)
        fx.unknown_keys(data, _FIXTURE_KEYS, "")
        for path, item in fx.items(data.get("floors"), "floors"):
            fx.add_floor(path, item)
        for path, item in fx.items(data.get("areas"), "areas"):
            fx.add_area(path, item)
        for path, item in fx.items(data.get("devices"), "devices"):
            fx.add_device(path, item)
        for path, item in fx.items(data.get("entities"), "entities"):
            fx.add_entity(path, item)
        fx.title = _text(data.get("name"))
        language = data.get("language")
        fx.language = language.strip() if isinstance(language, str) and language.strip() else None
        return fx

    def note(self, kind: str, detail: str) -> str:
        return self.findings.add(kind, f"{self.where}: {detail}")

    def unknown_keys(
        self, data: Mapping[str, Any], allowed: frozenset[str], path: str, where: str = ""
    ) -> None:
        for key in data:
            if key not in allowed:
                name = f"{path}.{key}" if path else str(key)
                detail = f"{where or self.where}: {name}{_hint(str(key), allowed)}"
                self.findings.add(UNKNOWN_KEY, detail)

    def items(self, value: Any, key: str) -> list[tuple[str, dict[str, Any]]]:
        """The mappings of a list, each with its path (anything else is noted and ignored)."""
        items = value if isinstance(value, list) else []
        if value is not None and not isinstance(value, list):
            self.note(UNKNOWN_KEY, f"{key} is not a list")
        return [(f"{key}[{i}]", item) for i, item in enumerate(items) if isinstance(item, dict)]

    def name_and_id(self, item: Mapping[str, Any], path: str) -> tuple[str, str]:
        name = _text(item.get("name")) or _text(item.get("id")) or path
        return name, _text(item.get("id")) or slugify(name)

    def reference(self, value: Any, known: Mapping[str, Any], kind: str, path: str) -> str | None:
        """Resolve a reference by id or by name; None (noted) when it names nothing."""
        text = _text(value)
        if value is None or text is None:
            return None
        if text in known:
            return text
        for key, item in known.items():
            if getattr(item, "name", None) == text:
                return key
        self.note(UNKNOWN_REFERENCE, f"{path}: no {kind} {text!r}{_hint(text, known)}")
        return None

    def add_floor(self, path: str, item: dict[str, Any]) -> None:
        self.unknown_keys(item, _FLOOR_KEYS, path)
        name, floor_id = self.name_and_id(item, path)
        level = item.get("level")
        level = level if isinstance(level, int) and not isinstance(level, bool) else None
        self.floors.setdefault(floor_id, Floor(floor_id, name, level))

    def add_area(self, path: str, item: dict[str, Any]) -> None:
        self.unknown_keys(item, _AREA_KEYS, path)
        name, area_id = self.name_and_id(item, path)
        floor_id = None
        if (floor := _text(item.get("floor"))) is not None:
            floor_id = next((k for k, f in self.floors.items() if floor in (k, f.name)), None)
            if floor_id is None:  # a floor no floors list names is created with it (upstream)
                floor_id = slugify(floor)
                self.floors.setdefault(floor_id, Floor(floor_id, floor))
        self.areas.setdefault(area_id, Area(area_id, name, floor_id))

    def add_device(self, path: str, item: dict[str, Any]) -> None:
        self.unknown_keys(item, _DEVICE_KEYS, path)
        name, device_id = self.name_and_id(item, path)
        area = self.reference(item.get("area"), self.areas, "area", f"{path}.area")
        info: dict[str, str] = {}
        nested = raw if isinstance(raw := item.get("info"), dict) else {}
        self.unknown_keys(nested, _DEVICE_INFO_KEYS, f"{path}.info")
        for source in (nested, item):
            for key in _DEVICE_INFO_KEYS:
                if (text := _text(source.get(key))) is not None:
                    info.setdefault(key, text)
        self.devices.setdefault(device_id, Device(device_id, name, area, info))

    def add_entity(self, path: str, item: dict[str, Any]) -> None:
        self.unknown_keys(item, _ENTITY_KEYS, path)
        written = _text(item.get("id")) or ""
        entity_id = stored_entity_id(written)
        label = f"{path} ({written})" if written else path
        if entity_id is None:
            self.note(NO_ENTITY_ID, label)
            return
        if entity_id != written:
            self.renamed[written] = entity_id
            self.note(RENAMED, f"{written} -> {entity_id}")
        domain = entity_id.split(".", 1)[0]
        if domain not in SUPPORTED_DOMAINS:
            self.left_out[entity_id] = self.note(DOMAIN_LEFT_OUT.format(domain), entity_id)
            return
        if entity_id in self.entities or entity_id in self.left_out:
            self.note(DUPLICATE_ENTITY, label)
            return
        raw_attributes = item.get("attributes")
        problems = Problems()
        state, attributes = normalise_entity(
            domain,
            item.get("state"),
            raw_attributes if isinstance(raw_attributes, dict) else {},
            f"{label}.attributes",
            problems,
        )
        duration = attributes.get("duration")
        if domain == "timer" and duration is not None and not _DURATION.match(str(duration)):
            problems.add(f"{label}.attributes.duration must be H:MM:SS, got {duration!r}")
        if domain == "timer" and state not in TIMER_STATES:
            problems.add(f"{label}.state: a timer is {', '.join(TIMER_STATES)}, not {state!r}")
        if problems.items:
            self.left_out[entity_id] = self.note(UNREADABLE_ENTITY, "; ".join(problems.items))
            return
        name = _text(item.get("name"))
        aliases = item.get("aliases") or []
        device = self.reference(item.get("device"), self.devices, "device", f"{label}.device")
        area = self.reference(item.get("area"), self.areas, "area", f"{label}.area")
        if device is not None and area is not None and area == self.devices[device].area:
            area = None  # the device's area: the entity follows it, as in Home Assistant
        display_name = name or (self.devices[device].name if device is not None else "")
        if not name and device is None:
            name = display_name = entity_id.split(".", 1)[1].replace("_", " ").title()
        exposed = item.get("exposed", True)
        self.entities[entity_id] = EntityFixture(
            entity_id=entity_id,
            name=name,
            state=state,
            attributes=attributes,
            area=area,
            device=device,
            aliases=tuple(str(a) for a in aliases) if isinstance(aliases, list) else (),
            exposed=exposed if isinstance(exposed, bool) else True,
            display_name=display_name or entity_id,
        )

    def entity_ref(self, raw: Any) -> tuple[str | None, str | None]:
        """A test's entity id as stored, or why the test cannot use it (a kind)."""
        text = str(raw)
        for candidate in (text, self.renamed.get(text), stored_entity_id(text)):
            if candidate in self.entities:
                return candidate, None
            if candidate in self.left_out:
                return None, self.left_out[candidate]
        return None, UNKNOWN_ENTITY


@dataclass(slots=True)
class _TestReader:
    """Reads one test; the first reason it cannot run becomes its `skip`."""

    fx: _Fixtures
    where: str
    path: str
    skip: str | None = None

    def cannot(self, kind: str, detail: str) -> None:
        reason = self.fx.findings.add(kind, f"{self.where}: {detail}")
        self.skip = self.skip or reason

    def entity(self, raw: Any, path: str) -> str | None:
        entity_id, why = self.fx.entity_ref(raw)
        if why is not None:
            self.cannot(why, f"{path}: {raw}")
        return entity_id

    def strings(self, value: Any, path: str) -> tuple[str, ...]:
        if value is None:
            return ()
        items = value if isinstance(value, list) else [value]
        texts = tuple(text for item in items if (text := _text(item)) is not None)
        if len(texts) != len(items):
            self.cannot(UNREADABLE_TEST, f"{path} must be texts")
        return texts

    def moment(self, value: Any, path: str) -> dt.datetime | None:
        """A date and time with its offset from UTC (`2025-04-02 08:30+10:00`)."""
        if value is None:
            return None
        try:
            moment = value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(value)
        except TypeError, ValueError:
            moment = None
        if moment is None or moment.utcoffset() is None:
            self.cannot(UNREADABLE_TEST, f"{path} must be a date and time with its UTC offset")
            return None
        return moment

    def flag(self, value: Any, path: str, default: bool | None) -> bool | None:
        if value is None or isinstance(value, bool):
            return default if value is None else value
        self.cannot(UNREADABLE_TEST, f"{path} must be true or false")
        return default

    def state_specs(self, value: Any, path: str) -> dict[str, StateSpec]:
        specs: dict[str, StateSpec] = {}
        if not isinstance(value, dict):
            if value is not None:
                self.cannot(UNREADABLE_TEST, f"{path} must map entity ids to states")
            return specs
        for raw_id, raw in value.items():
            entry = f"{path}.{raw_id}"
            entity_id = self.entity(raw_id, path)
            if entity_id is None:
                continue
            spec = raw if isinstance(raw, dict) else {}
            self.fx.unknown_keys(spec, _STATE_KEYS, entry, self.where)
            domain = entity_id.split(".", 1)[0]
            problems = Problems()
            raw_attributes = spec.get("attributes")
            attributes = normalise_attributes(
                domain,
                raw_attributes if isinstance(raw_attributes, dict) else {},
                f"{entry}.attributes",
                problems,
            )
            state = lift_state(domain, spec.get("state"), attributes)
            text = state_text(domain, state) if state is not None else None
            if domain == "timer" and text is not None and text not in TIMER_STATES:
                problems.add(f"{entry}.state: a timer is {', '.join(TIMER_STATES)}")
            for problem in problems.items:
                self.cannot(UNREADABLE_TEST, problem)
            specs[entity_id] = StateSpec(text, attributes)
        return specs

    def unsimulated(self, expect: Mapping[str, StateSpec], setup: Mapping[str, StateSpec]) -> None:
        """Expected changes the fixture cannot produce (a feature it lacks, a passing state)."""
        for entity_id, spec in expect.items():
            domain = entity_id.split(".", 1)[0]
            if domain in HELPER_DOMAINS:
                continue
            fixture = entity_class(domain)
            for attribute, feature in fixture.UNSIMULATED.items():
                if attribute in spec.attributes:
                    kind = UNSIMULATED_CHANGE.format(domain, feature, attribute)
                    self.cannot(kind, f"{self.path}: {entity_id}")
            before = setup[entity_id].state if entity_id in setup else None
            before = before or self.fx.entities[entity_id].state
            if spec.state in fixture.MOMENTARY and spec.state != before:
                self.cannot(MOMENTARY_STATE.format(domain, spec.state), f"{self.path}: {entity_id}")


def _parse_tasks(
    data: Mapping[str, Any], *, where: str, home: str, file: str, fx: _Fixtures
) -> list[TestCase]:
    fx.unknown_keys(data, _TASK_KEYS, "", where)
    raw_category = data.get("category")
    # Upstream categories may be a list (`[weather, question]`): the first one groups it.
    if isinstance(raw_category, list) and raw_category:
        raw_category = raw_category[0]
    category = _text(raw_category)
    if not category:
        fx.findings.add(NO_CATEGORY, where)
        category = Path(file).stem
    raw_tests = data.get("tests")
    if not isinstance(raw_tests, list):
        return []
    devices = fx.devices
    tests: list[TestCase] = []
    for index, item in enumerate(raw_tests):
        path = f"tests[{index}]"
        if not isinstance(item, dict):
            fx.findings.add(NO_SENTENCES, f"{where}: {path}")
            continue
        fx.unknown_keys(item, _TEST_KEYS, path, where)
        raw_sentences = item.get("sentences")
        sentences = raw_sentences if isinstance(raw_sentences, list) else [raw_sentences]
        texts = tuple(t.strip() for s in sentences if (t := _text(s)) is not None and t.strip())
        if not texts:
            fx.findings.add(NO_SENTENCES, f"{where}: {path}")
            continue
        read = _TestReader(fx, where, path)
        setup = read.state_specs(item.get("setup"), f"{path}.setup")
        expect = read.state_specs(item.get("expect_changes"), f"{path}.expect_changes")
        read.unsimulated(expect, setup)
        context_now = read.moment(item.get("context_now"), f"{path}.context_now")
        if "event" in item:
            # Upstream's automation tests: the sentence asks for an automation that the
            # event sets off later. Run as a request, it would be scored as something else.
            read.cannot(AUTOMATION_TEST, path)
        answer_from = tuple(
            e
            for raw in read.strings(item.get("answer_from"), f"{path}.answer_from")
            if (e := read.entity(raw, f"{path}.answer_from")) is not None
        )
        context_device = None
        if (device := _text(item.get("context_device"))) is not None:
            context_device = next((k for k, d in devices.items() if device in (k, d.name)), None)
            if context_device is None:
                read.cannot(UNKNOWN_ENTITY, f"{path}.context_device: no device {device!r}")
        tests.append(
            TestCase(
                home=home,
                file=file,
                index=index,
                category=category,
                sentences=texts,
                setup=setup,
                expect_changes=expect,
                ignore_changes=_ignore(item.get("ignore_changes"), fx),
                expect_confirmation=read.flag(
                    item.get("expect_confirmation"), f"{path}.expect_confirmation", None
                ),
                expect_answer=read.strings(item.get("expect_answer"), f"{path}.expect_answer"),
                expect_response=read.strings(
                    item.get("expect_response"), f"{path}.expect_response"
                ),
                expect_question=bool(
                    read.flag(item.get("expect_question"), f"{path}.expect_question", False)
                ),
                answer_from=answer_from,
                context_device=context_device,
                context_now=context_now,
                skip=read.skip,
            )
        )
    return tests


IGNORE_ALL: Final = "*"


def _ignore(value: Any, fx: _Fixtures) -> dict[str, tuple[str, ...]]:
    """Changes that do not count, per entity: attribute names, `state`, or `*` (everything).

    Forms: a list of entity ids (anything about them may change), or a mapping from entity id
    to a list of names, one name, null (everything), or a mapping whose keys are the names
    (`state`, attribute names, or `attributes` with a list of names). Entities the home does
    not have are left out: nothing of theirs can change.
    """
    if isinstance(value, list):
        value = dict.fromkeys(str(v) for v in value)
    if not isinstance(value, dict):
        return {}
    ignored: dict[str, tuple[str, ...]] = {}
    for raw_id, names in value.items():
        entity_id, _ = fx.entity_ref(raw_id)
        if entity_id is not None:
            ignored[entity_id] = _ignored_names(names)
    return ignored


def _ignored_names(names: Any) -> tuple[str, ...]:
    if names is None:
        return (IGNORE_ALL,)
    if isinstance(names, (str, int, float)):
        return (str(names),)
    if isinstance(names, list):
        return tuple(str(n) for n in names)
    if isinstance(names, dict):
        result: list[str] = []
        for key, inner in names.items():
            if key == "attributes" and isinstance(inner, (list, dict)):
                result.extend(str(n) for n in inner)
            else:
                result.append(str(key))
        return tuple(result)
    return (IGNORE_ALL,)
