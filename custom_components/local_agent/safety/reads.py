"""What a program reads: the entities whose state decides what it does the next time it runs.

An automation that unlocks the front door when the hall temperature rises above a number
helper, or that runs every minute and unlocks only while a guest-mode switch is on, does so a
moment after that helper or switch is changed: changing it sets the unlock off as surely as a
change its trigger watches. So every entity such a program reads counts as watched: named in
its triggers' settings (a threshold), its conditions and variables, in the conditions, waits
and templates of its actions (not the targets of its steps: those it changes), or read by any
of their templates; an id a template that reads states builds from a written domain and a
value of the run (`is_state('input_boolean.' ~ trigger.id, 'on')`) may be any entity of that
domain.

What is written in a program is read once for each of its parts (the validated objects Home
Assistant keeps until a reload) and kept; only its templates are rendered for each question.

The home's programs are read once and kept until what they were read from changes (Kept,
below): the gate's reading of the whole home.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from itertools import pairwise
import re
from typing import Any
from typing import Final

from custom_components.local_agent.compat import AutomationTrigger
from custom_components.local_agent.compat import note_time_read
from custom_components.local_agent.const import DOMAIN
from homeassistant.config_entries import SIGNAL_CONFIG_ENTRY_CHANGED
from homeassistant.const import ATTR_DEVICE_ID
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
from homeassistant.core import valid_entity_id
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.area_registry import EVENT_AREA_REGISTRY_UPDATED
from homeassistant.helpers.device_registry import EVENT_DEVICE_REGISTRY_UPDATED
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.entity_registry import EVENT_ENTITY_REGISTRY_UPDATED
from homeassistant.helpers.floor_registry import EVENT_FLOOR_REGISTRY_UPDATED
from homeassistant.helpers.issue_registry import EVENT_REPAIRS_ISSUE_REGISTRY_UPDATED
from homeassistant.helpers.label_registry import EVENT_LABEL_REGISTRY_UPDATED
from homeassistant.helpers.template import Template
from homeassistant.util.event_type import EventType
from homeassistant.util.hass_dict import HassKey

# The keys of a step whose values are conditions or waits: read whole.
_CHECKED_IN_STEPS: Final = frozenset(
    {"if", "conditions", "while", "until", "wait_for_trigger", "wait_template"}
)
# A variables step: its values (ScriptVariables' public `variables`) are read whole, as an
# automation's variables are: a variable that names an entity is what a later template reads.
_VARIABLES: Final = "variables"
# A condition (a step of its own or one of a list): read whole.
_CONDITION: Final = "condition"
# Words joined by dots in a template's text: each pair of neighbours may be an entity id
# (`states.input_boolean.guest_mode.state` names input_boolean.guest_mode).
_DOTTED: Final = re.compile(r"[a-z0-9_]+(?:\.[a-z0-9_]+)+")
# An entity id a template builds from a written domain and a value of the run: the domain in a
# text joined to more (`'input_boolean.' ~ trigger.id`, `'input_boolean.guest_%s' % who`), one
# with a placeholder (`'input_boolean.%s'|format(who)`, `'input_boolean.{}'.format(who)`), the
# domain joined to a dot or to a text after it (`'input_boolean' ~ '.' ~ who`,
# `'input_boolean' ~ '.guest_mode'`, `['input_boolean', who]|join('.')`,
# `'.'.join(['input_boolean', who])`), or looked up in the domain's states
# (`states.input_boolean[name]`, `states['input_boolean'][name]`, and `.guest_mode` after
# it: no text writes the id whole, and rendered now, without the run's `trigger`, the template
# may stop before it). Read, it may be any of the domain; a template that reads no state only
# names a target with it (what a step changes).
_BUILT_ID: Final = re.compile(
    r"""['"]([a-z0-9_]+)\.[a-z0-9_]*['"]\s*[~+%]"""
    r"""|['"]([a-z0-9_]+)\.[^'"]*(?:%|\{\})[^'"]*['"]"""
    r"""|['"]([a-z0-9_]+)['"]\s*[~+]\s*['"]\."""
    r"""|\[\s*['"]([a-z0-9_]+)['"]\s*,[^\]]*\]\s*\|\s*join\(\s*['"]\.['"]"""
    r"""|['"]\.['"]\s*\.\s*join\(\s*\[\s*['"]([a-z0-9_]+)['"]"""
    r"""|\bstates\.([a-z0-9_]+)\s*\["""
    r"""|\bstates\s*\[\s*['"]([a-z0-9_]+)['"]\s*\]"""
)
_READS_STATE: Final = re.compile(
    r"\b(?:states|is_state|state_attr|is_state_attr|has_value|expand|state_translated)\b"
)


@dataclass(slots=True)
class _Written:
    """What one part of a program names: entities, devices, and templates that may read more."""

    entity_ids: set[str] = field(default_factory=set)
    device_ids: set[str] = field(default_factory=set)
    templates: list[Template] = field(default_factory=list)

    def add(self, other: _Written) -> None:
        self.entity_ids.update(other.entity_ids)
        self.device_ids.update(other.device_ids)
        self.templates.extend(t for t in other.templates if t not in self.templates)


# Per part of a program (its id, and whether all of it is read), with the part itself: what
# is written in it. Kept apart for each reader (the home's programs, a question's running
# ones): one reader's parts do not push out another's.
type _Kept = dict[tuple[int, bool], tuple[object, _Written]]
_WRITTEN: HassKey[dict[str, _Kept]] = HassKey(f"{DOMAIN}_program_reads")


def with_reads(
    hass: HomeAssistant, programs: Iterable[AutomationTrigger], reader: str
) -> list[AutomationTrigger]:
    """Return the programs, each also watching every entity it reads (see the module).

    reader: who reads them, whose parts read before are kept apart from any other's.
    """
    kept_by_reader = hass.data.setdefault(_WRITTEN, {})
    earlier = kept_by_reader.get(reader, {})
    kept: _Kept = {}
    registry = er.async_get(hass)
    found: list[AutomationTrigger] = []
    for program in programs:
        written = _Written()
        for part, whole in _parts(program):
            written.add(_written_in(registry, part, whole=whole, earlier=earlier, kept=kept))
        found.append(_watching(program, written))
    kept_by_reader[reader] = kept
    return found


def _parts(program: AutomationTrigger) -> Iterator[tuple[Any, bool]]:
    """Yield each part of a program with whether all of it is read (else: its checks)."""
    for check in program.checks:
        for part in check if isinstance(check, list) else [check]:
            yield part, True
    for step in program.actions:
        yield step, False


def _written_in(
    registry: er.EntityRegistry,
    part: Any,
    *,
    whole: bool,
    earlier: _Kept,
    kept: _Kept,
) -> _Written:
    """Return what a part names, read again only when it is no longer the object read before."""
    key = (id(part), whole)
    known = earlier.get(key) or kept.get(key)
    if known is not None and known[0] is part:
        kept[key] = known
        return known[1]
    written = _Written()
    if whole:
        _read_whole(registry, part, written)
    else:
        _read_checks(registry, part, written)
    if isinstance(part, (Mapping, list)):  # strings and None are no lasting objects
        kept[key] = (part, written)
    return written


def _read_whole(
    registry: er.EntityRegistry, value: Any, written: _Written, key: Any = None
) -> None:
    """Read every entity and device named in a value, and keep its templates."""
    if isinstance(value, Template):
        written.templates.append(value)
    elif isinstance(value, str):
        if key == ATTR_DEVICE_ID:
            written.device_ids.add(value)
        elif (entity_id := er.async_resolve_entity_id(registry, value)) is not None:
            written.entity_ids.add(entity_id)
    elif isinstance(value, Mapping):
        if value.get("enabled") is False:
            return  # switched off in the editor: Home Assistant skips it
        for item_key, item in value.items():
            _read_whole(registry, item, written, item_key)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _read_whole(registry, item, written, key)


def _read_checks(registry: er.EntityRegistry, value: Any, written: _Written) -> None:
    """Read the conditions and waits of steps whole, and keep every template elsewhere.

    What a step targets by name is what it changes, not what it reads; a target written as
    a template reads what it renders (and makes the step's effect unknown: policy.py).
    """
    if isinstance(value, Template):
        written.templates.append(value)
    elif isinstance(value, Mapping):
        if value.get("enabled") is False:
            return
        if _CONDITION in value:
            _read_whole(registry, value, written)
            return
        for key, item in value.items():
            if key in _CHECKED_IN_STEPS:
                _read_whole(registry, item, written, key)
            elif key == _VARIABLES and isinstance(
                declared := getattr(item, _VARIABLES, None), Mapping
            ):
                _read_whole(registry, declared, written, key)
            else:
                _read_checks(registry, item, written)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _read_checks(registry, item, written)


def _watching(program: AutomationTrigger, written: _Written) -> AutomationTrigger:
    """Return the program also watching what it names and what its templates read now."""
    entity_ids = set(written.entity_ids)
    domains: set[str] = set()
    any_entity = False
    for template in written.templates:
        entity_ids.update(_ids_written_in(template.template))
        domains.update(_domains_of_built_ids(template.template))
        rendered, read_domains, reads_all = _rendered_reads(template)
        entity_ids.update(rendered)
        domains.update(read_domains)
        any_entity = any_entity or reads_all
    reads = AutomationTrigger(
        frozenset(entity_ids), frozenset(written.device_ids), [], frozenset(domains), any_entity
    )
    return replace(
        program,
        entity_ids=program.entity_ids | entity_ids,
        device_ids=program.device_ids | written.device_ids,
        domains=program.domains | domains,
        any_entity=program.any_entity or any_entity,
        read=reads,
    )


def _ids_written_in(text: str) -> set[str]:
    """Return the entity ids written in a template's text."""
    return {
        candidate
        for dotted in _DOTTED.findall(text)
        for first, second in pairwise(dotted.split("."))
        if valid_entity_id(candidate := f"{first}.{second}")
    }


def _domains_of_built_ids(text: str) -> set[str]:
    """Return the domains of the entity ids a template's text builds and reads (_BUILT_ID)."""
    if not _READS_STATE.search(text):
        return set()
    domains = {next(filter(None, match.groups())) for match in _BUILT_ID.finditer(text)}
    return {domain for domain in domains if valid_entity_id(f"{domain}.x")}


def _rendered_reads(template: Template) -> tuple[set[str], set[str], bool]:
    """Return what rendering the template now reads: entities, domains, whether every state.

    Rendered without the run's variables (the trigger, the run's own): a template that needs
    them stops there, and what it wrote (_ids_written_in) stands for the rest.
    """
    if template.is_static or template.hass is None:
        return set(), set(), False
    try:
        info = template.async_render_to_info({}, strict=False, log_fn=_quiet)
    except Exception:  # a template that cannot be rendered now reads what it wrote
        note_time_read(template, None)
        return set(), set(), False
    note_time_read(template, info)
    return (
        set(info.entities),
        set(info.domains | info.domains_lifecycle),
        info.all_states or info.all_states_lifecycle,
    )


def _quiet(_level: int, _message: str) -> None:
    """Say nothing of a variable the run would have: this is no run."""


# Kept: the home's programs, read once and kept until what they were read from changes.
#
# Reading every automation's triggers, conditions and actions (and rendering their templates),
# the helpers that follow each entity and the groups each entity is in grew with the house:
# 150 ms a question at 1,000 automations, on the event loop. The reading is kept and dropped,
# to be read again at the next question, on any change it may depend on: a reload, a registry
# (repair issues too) or config entry change, an integration or a service that comes or goes,
# an entity added or removed, an automation's own state (switched on or off, a run begun or
# ended), a group's members, and any entity or domain the programs watch or their templates
# read (every state change, when one reads all states). A reading that read what changes with
# no event is not kept (templates that read the time or a custom template: custom_templates/);
# one read before an MQTT device trigger was announced again (a discovery update changes it
# in place, with no event) is read again at the next question.

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
    # watching what it reads (above).
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
class _KeptReading:
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


_KEPT: HassKey[_KeptReading] = HassKey(f"{DOMAIN}_house_reading")


def _watch_of(programs: tuple[AutomationTrigger, ...]) -> _Watch:
    """Return what these programs watch and read among the states, as one _Watch."""
    return _Watch(
        frozenset(e for p in programs for e in p.entity_ids),
        _ALWAYS_WATCHED | {d for p in programs for d in p.domains},
        any(p.any_entity for p in programs),
    )


def kept_reading(hass: HomeAssistant) -> HouseReading | None:
    """Return the kept reading, None when there is none (see "Kept" above).

    The caller compares its `announced` with MQTT's device triggers now.
    """
    kept = hass.data.get(_KEPT)
    return kept.reading if kept is not None else None


def keep_reading(hass: HomeAssistant, reading: HouseReading) -> None:
    """Keep this reading until what it was read from changes (see "Kept" above).

    Only a reading that read nothing that changes with no event (see "Kept" above) may be
    kept: the caller tells.
    """
    kept = hass.data.get(_KEPT)
    if kept is None:
        kept = hass.data[_KEPT] = _KeptReading()
        kept.unsubscribes.extend(
            hass.bus.async_listen(event_type, kept.dropped) for event_type in CONFIGURATION_EVENTS
        )
        kept.unsubscribes.append(hass.bus.async_listen(EVENT_STATE_CHANGED, kept.state_changed))
        kept.unsubscribes.append(
            async_dispatcher_connect(hass, SIGNAL_CONFIG_ENTRY_CHANGED, kept.drop)
        )
    kept.reading, kept.watch = reading, _watch_of(reading.automations)


@callback
def forget_reading(hass: HomeAssistant) -> None:
    """Forget the kept reading and stop listening (the integration's last entry unloads)."""
    if (kept := hass.data.pop(_KEPT, None)) is not None:
        for unsubscribe in kept.unsubscribes:
            unsubscribe()
