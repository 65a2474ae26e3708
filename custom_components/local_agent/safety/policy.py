"""Which actions are sensitive: resolved in code from the real targets, never from the model.

A call changes its targets and whatever changes with them (groups, helpers, template and
Switch as X entities) and whatever that sets off (automations, waiting scripts, the entities'
own actions); each is judged. The entities an agent's options name are stored by registry id
(stored_options.py); the policy uses the entity ids those have now.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Container
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import fields
from dataclasses import is_dataclass
from dataclasses import replace
import re
from typing import Any
from typing import Final

import jinja2
import jinja2.nodes
import probatio

from custom_components.local_agent.compat import ANY_KIND_OF_SIGNAL
from custom_components.local_agent.compat import ANY_SIGNAL
from custom_components.local_agent.compat import EVENT_SIGNAL
from custom_components.local_agent.compat import LIFECYCLE_EVENTS
from custom_components.local_agent.compat import MESSAGE
from custom_components.local_agent.compat import MESSAGE_SIGNAL
from custom_components.local_agent.compat import MQTT
from custom_components.local_agent.compat import ON_OFF_MEMBERS
from custom_components.local_agent.compat import TARGET_KEYS
from custom_components.local_agent.compat import TARGETED_CORE_SERVICES
from custom_components.local_agent.compat import TTS_PLAYERS
from custom_components.local_agent.compat import AutomationTrigger
from custom_components.local_agent.compat import acts_on_its_targets
from custom_components.local_agent.compat import applies_states
from custom_components.local_agent.compat import armed_at_start
from custom_components.local_agent.compat import automation_sequence
from custom_components.local_agent.compat import automation_triggers
from custom_components.local_agent.compat import configuration_yaml_entities
from custom_components.local_agent.compat import connected_devices
from custom_components.local_agent.compat import creates_scenes
from custom_components.local_agent.compat import device_action_call
from custom_components.local_agent.compat import entities_with_actions
from custom_components.local_agent.compat import entity_action_sequences
from custom_components.local_agent.compat import entity_actions
from custom_components.local_agent.compat import entity_events_of_call
from custom_components.local_agent.compat import entity_events_stopped_by_call
from custom_components.local_agent.compat import follows_members_on_off
from custom_components.local_agent.compat import integration_events_of_call
from custom_components.local_agent.compat import keeps_player_state
from custom_components.local_agent.compat import light_profile_brightness
from custom_components.local_agent.compat import may_hear_call
from custom_components.local_agent.compat import mqtt_announcements
from custom_components.local_agent.compat import mqtt_entity_ids
from custom_components.local_agent.compat import mqtt_topics_of_entity
from custom_components.local_agent.compat import only_skips_update
from custom_components.local_agent.compat import program_restarts_a_run
from custom_components.local_agent.compat import record_event
from custom_components.local_agent.compat import running_programs
from custom_components.local_agent.compat import runs_a_command
from custom_components.local_agent.compat import runs_its_own_script
from custom_components.local_agent.compat import scene_may_be_made
from custom_components.local_agent.compat import scene_states
from custom_components.local_agent.compat import script_answering
from custom_components.local_agent.compat import script_sequence
from custom_components.local_agent.compat import sends_messages
from custom_components.local_agent.compat import sends_only_a_message
from custom_components.local_agent.compat import service_entities
from custom_components.local_agent.compat import speaks_on_players
from custom_components.local_agent.compat import switch_as_x_entities
from custom_components.local_agent.compat import switch_as_x_service
from custom_components.local_agent.compat import target_entities
from custom_components.local_agent.compat import template_followers
from custom_components.local_agent.compat import topics_meet
from custom_components.local_agent.compat import universal_children
from custom_components.local_agent.compat import unwatched_reads
from custom_components.local_agent.compat import update_skip_states
from custom_components.local_agent.compat import wait_watcher
from custom_components.local_agent.compat import wrapped_entity
from custom_components.local_agent.compat import wrapping_entities
from custom_components.local_agent.const import CONF_ALLOW_UNATTENDED
from custom_components.local_agent.const import CONF_CONFIRMATION_PIN
from custom_components.local_agent.const import CONF_CONFIRMATION_TIMEOUT
from custom_components.local_agent.const import CONF_EXEMPT_ENTITIES
from custom_components.local_agent.const import CONF_EXEMPT_TOOLS
from custom_components.local_agent.const import CONF_SENSITIVE_COVER_CLASSES
from custom_components.local_agent.const import CONF_SENSITIVE_DOMAINS
from custom_components.local_agent.const import CONF_SENSITIVE_ENTITIES
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.home.actions import Call
from custom_components.local_agent.home.actions import call_states
from custom_components.local_agent.home.tools import PlannedAction
from custom_components.local_agent.safety.reads import HouseReading
from custom_components.local_agent.safety.reads import keep_reading
from custom_components.local_agent.safety.reads import kept_reading
from custom_components.local_agent.safety.reads import with_reads
from custom_components.local_agent.turn.defaults import agent_data
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import ATTR_DEVICE_CLASS
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.const import ENTITY_MATCH_ALL
from homeassistant.const import ENTITY_MATCH_NONE
from homeassistant.const import EVENT_CALL_SERVICE
from homeassistant.const import SERVICE_TURN_ON
from homeassistant.const import STATE_OFF
from homeassistant.const import STATE_ON
from homeassistant.core import DOMAIN as CORE_DOMAIN
from homeassistant.core import HomeAssistant
from homeassistant.core import State
from homeassistant.core import split_entity_id
from homeassistant.core import valid_entity_id
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.template import Template
from homeassistant.helpers.template import is_template_string
from homeassistant.util.hass_dict import HassKey

# Groups of groups, and chains of programs, are followed this deep; deeper is treated as
# sensitive. A house as people write it needs 6: an input boolean sets off an automation that
# runs a script, which runs a script that turns on a scene of a light group's members.
MAX_GROUP_DEPTH = 8
# The entities (groups' members too) read of one scene's states that it sets off.
MAX_SCENE_MEMBERS: Final = 1000
# How deep the settings of a helper's entity object are read (a Bayesian sensor's observations:
# a list of objects that each name an entity).
_NESTED_SETTINGS_DEPTH: Final = 3
# An entity id written in a helper's template; an entity registry id (a uuid4 in hex).
_ID_IN_TEXT: Final = re.compile(r"\b[a-z0-9_]+\.[a-z0-9_]+\b")
_REGISTRY_ID: Final = re.compile(r"[0-9a-f]{32}")
# Per entry (its id), or per entity of configuration.yaml (its entity id): the settings read
# (the objects themselves) and the ids found in them.
_READ: HassKey[dict[str, tuple[tuple[object, ...], tuple[str, ...]]]] = HassKey(
    f"{DOMAIN}_helper_settings_read"
)
# Entities that run programs of their own: what running (or enabling) them changes is unknown,
# so they are treated as sensitive unless the user exempts them.
UNKNOWN_EFFECT_DOMAINS = frozenset({"automation", "script"})
SCRIPT_DOMAIN: Final = "script"
SCENE_DOMAIN: Final = "scene"
AUTOMATION_DOMAIN: Final = "automation"
LIGHT_DOMAIN: Final = "light"
# Entities whose call may reboot their device (a restart button, a firmware update).
RESTARTING_DOMAINS: Final = frozenset({"button", "update"})
# The Supervisor's updates (Home Assistant Core, its OS, the Supervisor, add-ons), told by the
# integration that made the entity: installing one may restart Home Assistant, or reboot its
# host. It is judged as a step that restarts it, which stops every running program.
UPDATE_DOMAIN: Final = "update"
SUPERVISOR: Final = "hassio"
_RESTART_STEPS: Final[list[Any]] = [{"action": "homeassistant.restart"}]
AUTOMATION_TRIGGER: Final = "trigger"
# The automation services that run its actions: at once, or whenever it is set off.
AUTOMATION_RUNS: Final = frozenset({AUTOMATION_TRIGGER, "turn_on", "toggle"})
SCRIPT_PREFIX: Final = f"{SCRIPT_DOMAIN}."
# The script services that act on script entities (every other one runs its own script).
SCRIPT_ENTITY_SERVICES: Final = frozenset({"turn_on", "turn_off", "toggle", "reload"})
# Entities that only report: every other entity on the same device as a sensitive one (a garage
# opener's relay or light, a lock's user code text or auto-relock number, an alarm's mode select)
# may be what really drives it, so changing it is sensitive too.
READ_ONLY_DOMAINS: Final = frozenset(
    {"binary_sensor", "calendar", "device_tracker", "event", "image", "sensor", "weather"}
)
# Steps of a user-written action that change nothing themselves.
_PASSIVE_STEPS: Final = frozenset(
    {
        cv.SCRIPT_ACTION_CHECK_CONDITION,
        cv.SCRIPT_ACTION_DELAY,
        cv.SCRIPT_ACTION_SET_CONVERSATION_RESPONSE,
        cv.SCRIPT_ACTION_STOP,
        cv.SCRIPT_ACTION_VARIABLES,
        cv.SCRIPT_ACTION_WAIT_FOR_TRIGGER,
        cv.SCRIPT_ACTION_WAIT_TEMPLATE,
    }
)
# Steps that wait for a change: a running program goes on when it comes.
_WAIT_STEPS: Final = frozenset({cv.SCRIPT_ACTION_WAIT_FOR_TRIGGER, cv.SCRIPT_ACTION_WAIT_TEMPLATE})
# The services that open up (unlock, disarm, open): an automation kept from running them by a
# stopped timer keeps the house as closed as it is. Any other sensitive step it would take
# (lock, arm, close, a program of unknown effect) may be what secures the house again.
RELEASING_SERVICES: Final = frozenset(
    {
        "alarm_control_panel.alarm_disarm",
        "cover.open_cover",
        "cover.open_cover_tilt",
        "lock.open",
        "lock.unlock",
        "valve.open_valve",
    }
)
# The services that send what a trigger may hear: the trigger platform that hears it.
_SIGNAL_SERVICES: Final = {"conversation.process": "conversation", "mqtt.publish": "mqtt"}
# The services that stop a running script or automation.
HALTING_SERVICES: Final = frozenset({"turn_off", "toggle"})
# A timer running when Home Assistant stops does not finish (unless it is restored).
TIMER_DOMAIN: Final = "timer"
NOTIFY_DOMAIN: Final = "notify"
SEND_MESSAGE: Final = "send_message"
TIMER_ACTIVE: Final = "active"
TIMER_STOPPED_AT_A_RESTART: Final = frozenset({"timer.finished"})
SHUTDOWN: Final = "shutdown"
# The services a step stops a program with: a script's runs, an automation's runs and every
# run to come (switched off). Toggling one is judged as running it (_runs_program).
CORE_TURN_OFF: Final = f"{CORE_DOMAIN}.turn_off"
_STOPPING_SERVICES: Final = frozenset(
    {f"{SCRIPT_DOMAIN}.turn_off", f"{AUTOMATION_DOMAIN}.turn_off", CORE_TURN_OFF}
)
# What a `scene.create` step's data names: the scene, and the entities it puts in it.
_SCENE_ID: Final = "scene_id"
_SCENE_ENTITIES: Final = "entities"
_SCENE_SNAPSHOT: Final = "snapshot_entities"
_SKIP_CONDITION: Final = "skip_condition"  # automation.trigger's: not data the run reads
# An exempt tool is one tool of one LLM API, written "API id/tool name".
TOOL_EXEMPTION_SEPARATOR: Final = "/"

# The states of a toggle entity, and of a group that follows its members'.
ON_OFF: Final = frozenset({"on", "off"})
# What steps change, each entity with the states they may leave it in (None: any state).
type Changes = dict[str, frozenset[str] | None]


def parse_tool_exemption(text: str) -> tuple[str, str] | None:
    """Read "API id/tool name"; None for anything else (a bare tool name exempts nothing)."""
    api_id, separator, tool_name = text.strip().partition(TOOL_EXEMPTION_SEPARATOR)
    if not separator or not api_id.strip() or not tool_name.strip():
        return None
    return api_id.strip(), tool_name.strip()


@dataclass(frozen=True, slots=True)
class SafetyPolicy:
    """An agent's rules for sensitive actions.

    `entities` and `exempt` are stored references (entity registry ids, or the entity ids of
    entities without a registry entry), resolved to entity ids whenever they are used.
    """

    domains: frozenset[str]
    cover_classes: frozenset[str]
    entities: frozenset[str]
    exempt: frozenset[str]
    exempt_tools: frozenset[tuple[str, str]]
    pin: str | None
    allow_unattended: bool
    timeout_seconds: float

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> SafetyPolicy:
        """Read an agent subentry's safety options; missing keys take AGENT_DEFAULTS."""
        data = agent_data(data)
        pin = str(data.get(CONF_CONFIRMATION_PIN) or "").strip()
        return cls(
            domains=frozenset(data[CONF_SENSITIVE_DOMAINS]),
            cover_classes=frozenset(data[CONF_SENSITIVE_COVER_CLASSES]),
            entities=frozenset(data[CONF_SENSITIVE_ENTITIES]),
            exempt=frozenset(data[CONF_EXEMPT_ENTITIES]),
            exempt_tools=frozenset(
                pair
                for text in data[CONF_EXEMPT_TOOLS]
                if (pair := parse_tool_exemption(str(text))) is not None
            ),
            pin=pin or None,
            allow_unattended=bool(data[CONF_ALLOW_UNATTENDED]),
            timeout_seconds=float(data[CONF_CONFIRMATION_TIMEOUT]),
        )

    def exempts_tool(self, api_id: str | None, tool_name: str) -> bool:
        """Whether this tool of this API runs without a question."""
        return api_id is not None and (api_id, tool_name) in self.exempt_tools

    def is_sensitive(self, hass: HomeAssistant, entity_id: str) -> bool:
        """Whether changing this one entity (a group: any member) needs confirmation."""
        return bool(self.sensitive_entities(hass, (entity_id,)))

    def sensitivity(self, hass: HomeAssistant) -> Callable[[str], bool]:
        """Return is_sensitive with the home read once, for the many entities of one question.

        Use it at once: it judges the home as it is now, not after a later change.
        """
        rules = self._rules(hass, None)
        return lambda entity_id: rules.is_sensitive(entity_id, (entity_id,), None)

    def named_entities(self, hass: HomeAssistant) -> NamedByPolicy:
        """Return the entities the policy names sensitive itself: by entity, domain or class.

        Asked one entity at a time, so a question reads the entities it asks about, not
        every lock and cover of the house.
        """
        return NamedByPolicy(self, hass, frozenset(current_entity_ids(hass, self.entities)))

    def names(self, hass: HomeAssistant, entities: frozenset[str], entity_id: str) -> bool:
        """Whether the policy's own rules name the entity: itself, its domain, its cover class.

        entities: the stored entities, resolved to entity ids.
        """
        if entity_id in entities:
            return True
        domain = split_entity_id(entity_id)[0]
        if domain in self.domains:
            return True
        return domain == "cover" and _device_class(hass, entity_id) in self.cover_classes

    def sensitive_entities(
        self,
        hass: HomeAssistant,
        entity_ids: Iterable[str],
        fired: frozenset[str] | None = None,
        *,
        aimed: frozenset[str] = frozenset(),
        stopped: frozenset[str] = frozenset(),
        halts: bool = True,
        installs: bool = True,
        becomes: Mapping[str, frozenset[str]] | None = None,
        said: str | None = None,
    ) -> list[str]:
        """Return the targets (groups expanded) whose change needs a person's confirmation.

        fired: the events of their own the call makes the targets fire (a timer's); None when
        the call is not known, so any of them. aimed: the scripts the call passes data to.
        stopped: the events of their own the call keeps the targets from firing later (a
        cancelled timer's finish). halts: whether the call may stop a running program that
        is a target (turning a script off; an unknown call may). becomes: the states the call
        may leave each target in (one not there: any state). installs: whether the call may
        install an update (one that only skips it does not). said: what the message the call
        sends its notify targets says, its texts one a line (None: it may say anything).
        """
        rules = self._rules(
            hass, fired, aimed=aimed, stopped=stopped, halts=halts, installs=installs, said=said
        )
        becomes = becomes or {}
        found: list[str] = []
        for entity_id in entity_ids:
            if (
                rules.is_sensitive(entity_id, (entity_id,), becomes.get(entity_id))
                and entity_id not in found
            ):
                found.append(entity_id)
        return found

    def calls_set_off_sensitive(
        self, hass: HomeAssistant, call: tuple[str, str] | None = None
    ) -> bool:
        """Whether a service call that changes nothing may set off a sensitive program.

        A read-only tool of another integration may read by calling a service (core's
        calendar__get_events calls calendar.get_events), whose `call_service` event an
        automation may hear: when which call it makes cannot be told (`call` None), any that
        does; a known call (domain, service), one whose event data does not rule it out. A
        trigger-based template entity that hears it changes: what follows that is judged.
        """
        rules = self._rules(hass, frozenset(), halts=False)
        called = {(EVENT_SIGNAL, EVENT_CALL_SERVICE)}

        def hears(watcher: AutomationTrigger) -> bool:
            return may_hear_call(watcher, *call) if call else watcher.hears(called)

        # Judged as any program a signal sets off: a record written or a message sent ("log
        # every call") changes no entity itself; what hears it is judged in turn.
        # Its run changes its own state too ("when Every call runs, unlock the front door").
        return any(
            (targets := rules.program_targets(steps)) is None
            or rules.changes_sensitive(targets, ("",))
            for automation in rules.may_hear(called)
            if hears(automation)
            for steps in rules.run_on_hearing(automation, called)
        ) or any(
            rules.is_sensitive(follower, (follower,), None)
            for follower, watcher in rules.followers
            if hears(watcher)
        )

    def kept_from_securing(
        self, hass: HomeAssistant, action: PlannedAction
    ) -> list[tuple[str | None, list[Any]]]:
        """Return the programs a call keeps from securing the house: entity and steps.

        A cancelled re-lock timer's automation, a stopped exempt "Courier" that would lock the
        door later: what the question says the call prevents. The steps are theirs with those
        of the programs they run ("Lock up", an exempt script that locks the door).
        """
        if action.read_only or action.domain is None or action.service is None:
            return []
        stopped = entity_events_stopped_by_call(action.domain, action.service)
        halts = action.service in HALTING_SERVICES
        rules = self._rules(hass, None, stopped=stopped, halts=halts)
        found: list[tuple[str | None, list[Any]]] = []
        for entity_id in action.entity_ids:
            if entity_id in rules.exempt:
                programs = (
                    rules.halted_programs(entity_id)
                    if halts
                    else rules.programs_stopped_by(entity_id, (entity_id,))
                )
                if not halts and program_restarts_a_run(hass, entity_id):
                    programs = [*rules.halted_programs(entity_id), *programs]
            else:
                programs = rules.stopped_programs(entity_id) if stopped else []
                if halts and split_entity_id(entity_id)[0] in UNKNOWN_EFFECT_DOMAINS:
                    # Asked anyway (its effect is unknown): the question says it too.
                    programs = [*rules.halted_programs(entity_id), *programs]
            found.extend(program for program in programs if program not in found)
        return [
            (own, [step for run in rules.run_by([steps]) for step in run]) for own, steps in found
        ]

    def driving(self, hass: HomeAssistant, action: PlannedAction) -> list[tuple[str, str]]:
        """Return what a call on a relay does through the sensitive entities that drive it.

        A template lock whose unlock switches the relay on: switching it on is that unlock,
        ("lock.side_door", "unlock"), what the question says it will do. Only an action of the
        driver that makes this very call on the relay is named. A relay that Switch as X shows
        as a lock (a cover, a valve) the policy names: switching it is that lock's service.
        """
        if action.read_only or action.domain is None or action.service is None:
            return []
        called = f"{action.domain}.{action.service}"
        rules = self._rules(hass, None)
        driven = rules.driven
        named = self.named_entities(hass)
        found: list[tuple[str, str]] = []
        for relay in action.entity_ids:
            for wrapper in wrapping_entities(hass, relay) if action.domain == "switch" else ():
                service = switch_as_x_service(hass, wrapper, action.service)
                if wrapper in named and service is not None and (wrapper, service) not in found:
                    found.append((wrapper, service))
            for driver in sorted(driven.get(relay, ())):
                domain = split_entity_id(driver)[0]
                for name, steps in entity_actions(hass, driver).items():
                    service = f"alarm_{name}" if domain == "alarm_control_panel" else name
                    if (driver, service) not in found and any(
                        isinstance(step, Mapping)
                        and step.get("action", step.get("service")) == called
                        and relay in named_targets(hass, [step])
                        for run in rules.run_by([steps])
                        for step in run
                    ):
                        found.append((driver, service))
        return found

    def setting_off(
        self, hass: HomeAssistant, action: PlannedAction
    ) -> Callable[[str, str], list[list[Any]]]:
        """Return what a service's change of an entity may set off (_Rules.set_off).

        The home is read once. The call's own targets, changed by its service, fire only the
        events the call makes them fire (a cancelled timer does not finish) and end in the
        states it leaves them in; changed by a program's step they may do anything.
        """
        fired = entity_events_of_call(action.domain or "", action.service or "")
        rules = self._rules(hass, fired, said=message_of_call(action))
        becomes = states_of_call(hass, action)

        def set_off(entity_id: str, service: str) -> list[list[Any]]:
            own = entity_id in action.entity_ids and service == action.service
            return rules.set_off(
                entity_id, own=own, becomes=becomes.get(entity_id) if own else None
            )

        return set_off

    def _rules(
        self,
        hass: HomeAssistant,
        fired: frozenset[str] | None,
        *,
        aimed: frozenset[str] = frozenset(),
        stopped: frozenset[str] = frozenset(),
        halts: bool = True,
        installs: bool = True,
        said: str | None = None,
    ) -> _Rules:
        house = kept_reading(hass)
        if house is None or house.announced != mqtt_announcements(hass):
            unwatched = unwatched_reads(hass)
            house = _read_house(hass)
            # What changes with no event (the time, a custom template) is read again each time.
            if unwatched_reads(hass) == unwatched:
                keep_reading(hass, house)
        exempt = frozenset(current_entity_ids(hass, self.exempt))
        # What runs now, and what exempt entities run, change with each run and each
        # exemption: read for each question (only the running programs and the exempt ones).
        live = (*waiting_programs(hass), *steered(hass, exempt))
        followers = template_followers(hass)
        read = with_reads(hass, [*live, *(watcher for _, watcher in followers)], "question")
        automations = (*house.automations, *read[: len(live)])
        rules = _Rules(
            self,
            hass,
            frozenset(current_entity_ids(hass, self.entities)),
            exempt,
            automations,
            house.groups,
            tuple(
                (follower, replace(now, any_entity=watcher.any_entity))
                for (follower, watcher), now in zip(followers, read[len(live) :], strict=True)
            ),
            helpers=house.helpers,
            switches=house.switches,
            fired=fired,
            hearing=_with_hearing(house.hearing, read[: len(live)], len(house.automations)),
            aimed=aimed,
            stopped=stopped,
            halts=halts,
            installs=installs,
            said=said,
        )
        return replace(rules, driven=rules.driven_targets())


@dataclass(frozen=True, slots=True)
class NamedByPolicy(Container[str]):
    """The entities a policy names sensitive itself (SafetyPolicy.named_entities).

    entities: the stored entities, resolved to entity ids; any other is named while it has
    a state and its domain or cover class is named, read live when asked.
    """

    policy: SafetyPolicy
    hass: HomeAssistant
    entities: frozenset[str]

    def __contains__(self, entity_id: object) -> bool:
        if not isinstance(entity_id, str):
            return False
        if entity_id in self.entities:
            return True
        return self.hass.states.get(entity_id) is not None and self.policy.names(
            self.hass, self.entities, entity_id
        )


@dataclass(frozen=True, slots=True)
class _Rules:
    """A policy with its stored entities resolved, for one question."""

    policy: SafetyPolicy
    hass: HomeAssistant
    entities: frozenset[str]
    exempt: frozenset[str]
    automations: tuple[AutomationTrigger, ...]
    # The groups each entity is a member of: its change changes theirs.
    groups: Mapping[str, tuple[str, ...]]
    # Template entities and what a change must touch to change their state.
    followers: tuple[tuple[str, AutomationTrigger], ...] = ()
    # The entities of helpers set up on each entity (a threshold sensor, a min/max ...).
    helpers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # What each helper's settings name that it may switch (a generic thermostat's heater).
    switches: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # What the actions of sensitive entities (a template lock's unlock) change, and whose.
    driven: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # The events of their own the call makes its targets fire; None: any of them.
    fired: frozenset[str] | None = None
    # Which automations hear each signal of a kind, by key (_hearing): not every one's asked.
    hearing: Mapping[str, Mapping[str, tuple[int, ...]]] = field(default_factory=dict)
    # The scripts the call passes data to (a script tool's fields).
    aimed: frozenset[str] = frozenset()
    # The events of their own the call keeps its targets from firing later.
    stopped: frozenset[str] = frozenset()
    # Whether the call may stop a running program among its targets.
    halts: bool = True
    # Whether the call may install an update among its targets (a skip does not).
    installs: bool = True
    # What the message the call sends its notify targets says, one text a line; None: any.
    said: str | None = None
    # The entities being judged (on the path), with the states they were judged for: a chain
    # that changes one of them to another state is judged again for those (_revisited).
    judging: dict[str, frozenset[str] | None] = field(default_factory=dict)
    # The changes being judged on the path, each level's (entity, states) (changes_sensitive).
    under_way: list[frozenset[tuple[str, frozenset[str] | None]]] = field(default_factory=list)

    def is_sensitive(
        self, entity_id: str, path: tuple[str, ...], becomes: frozenset[str] | None
    ) -> bool:
        """Whether changing this entity needs a person's confirmation.

        path: the entities followed to this one (it last); one met again adds nothing, unless
        it is changed to a state it was not judged for. becomes: the states the change may
        leave it in (None: any).
        """
        on_path = entity_id in self.judging
        earlier = self.judging.get(entity_id)
        self.judging[entity_id] = becomes
        try:
            return self._judge(entity_id, path, becomes)
        finally:
            if on_path:
                self.judging[entity_id] = earlier
            else:
                del self.judging[entity_id]

    def _judge(self, entity_id: str, path: tuple[str, ...], becomes: frozenset[str] | None) -> bool:
        if entity_id in self.exempt:
            if entity_id in self.aimed and self._aimed_at_sensitive(entity_id, path):
                return True
            # The call stops it, or a program's step may (a toggle, `homeassistant.turn_off`:
            # any state but on): kept from securing the house, as when the person stops it.
            may_stop = self.halts if len(path) == 1 else becomes is None or STATE_ON not in becomes
            if may_stop and self._halts_securing(entity_id):
                return True
            return self._sets_off_sensitive(entity_id, path, becomes)
        if self._named_sensitive(entity_id):
            return True
        domain = split_entity_id(entity_id)[0]
        if domain in UNKNOWN_EFFECT_DOMAINS:
            return True
        if len(path) == 1 and self.stopped and self._stops_securing(entity_id):
            return True
        if domain not in READ_ONLY_DOMAINS and self._next_to_sensitive(entity_id):
            return True
        # A relay shown as a lock (Switch as X): switching it is what unlocking does.
        if self._shown_as_sensitive(entity_id):
            return True
        # The relay that a sensitive template entity (a DIY lock or garage door) drives.
        if self._driven_by_sensitive(entity_id):
            return True
        # A member of a group that is sensitive by what it is (a switch group Switch as X
        # shows as a lock): switching the member is what switching the group does.
        if self._in_sensitive_group(entity_id):
            return True
        # An MQTT entity on the topics of a sensitive one: the same device.
        if self._on_sensitive_topics(entity_id):
            return True
        if domain == "scene":
            # Only Home Assistant's own scenes say what they set; another integration's scene
            # (a hub's) may set anything. One that `scene.create` steps make (a snapshot
            # before a movie) sets what they put in it, also before it first exists.
            states = scene_states(self.hass, entity_id)
            created: list[str] | None = []
            if scene_may_be_made(self.hass, entity_id):
                created = self._created_scene_members(entity_id)
            if created is None or (states is None and not created):
                return True
            # A scene that sets an automation off switches it off, an exempt one too: judged
            # by what it would secure, as switching it off directly is.
            if any(
                member in self.exempt and self._halts_securing(member)
                for member in _automations_set_off(self.hass, entity_id)
            ):
                return True
            members = list(dict.fromkeys([*(states or {}), *created]))
        else:
            state = self.hass.states.get(entity_id)
            members = _group_members(state) if state is not None else []
        # A device's button (a restart, a factory reset) or update reboots the device: its
        # other entities go unavailable and come back as its firmware restores them.
        members.extend(m for m in self._restarted_with(entity_id) if m not in members)
        # An entity that runs actions of its own (a template switch, button, light ...) changes
        # what those actions change, and so does one whose change triggers an automation;
        # actions that cannot be read through are of unknown effect.
        # What an enabled automation does when this entity changes is done by changing it.
        # A Switch as X entity switches the entity it shows as another kind; a universal
        # media player passes its calls on to its children.
        if (wrapped := wrapped_entity(self.hass, entity_id)) and wrapped not in members:
            members.append(wrapped)
        members.extend(
            child for child in universal_children(self.hass, entity_id) if child not in members
        )
        sequences = _action_sequences(self.hass, entity_id, self.installs or len(path) > 1)
        if sequences is None:
            # A helper without actions of its own to read switches what its settings name (a
            # generic thermostat its heater, a generic hygrostat its humidifier).
            members.extend(m for m in self.switches.get(entity_id, ()) if m not in members)
        programs = [
            *(sequences or ()),
            *self._automations_triggered_by(
                entity_id, self.fired if len(path) == 1 else None, becomes, first=len(path) == 1
            ),
        ]
        changes: Changes = dict.fromkeys(members)
        for steps in programs:
            targets = self.program_targets(steps)
            if targets is None:
                return True
            merge_changes(changes, targets)
        return self.changes_sensitive(changes, path)

    def changes_sensitive(self, changes: Changes, path: tuple[str, ...]) -> bool:
        """Whether one of these changes, of a program on the path's last entity, is sensitive.

        An entity on the path adds nothing, unless it is changed to a state it was not judged
        for ("when the fan goes on, turn it off"; "when the fan goes off, unlock").
        """
        judged: list[tuple[str, frozenset[str] | None]] = []
        for target, states in changes.items():
            if target not in path:
                judged.append((target, states))
            elif (again := self._revisited(target, states)) is not None:
                judged.append(again)
        # A change that one higher on the path judges too (the lights that are on made warmer,
        # which each light's change sets off again) is judged there, with a shorter path:
        # following it again adds nothing, however many lights there are.
        judged = [c for c in judged if not any(c in earlier for earlier in self.under_way)]
        if not judged:
            return False
        if len(path) > MAX_GROUP_DEPTH:
            return True
        self.under_way.append(frozenset(judged))
        try:
            return any(self.is_sensitive(t, (*path, t), states) for t, states in judged)
        finally:
            self.under_way.pop()

    def _revisited(
        self, entity_id: str, states: frozenset[str] | None
    ) -> tuple[str, frozenset[str] | None] | None:
        """Return an entity on the path with the states to judge it for again; None if none.

        It was judged for some states only, and a program changes it to another: judged
        again for both (every state when the program's are unknown).
        """
        judged = self.judging.get(entity_id)
        if judged is None or (states is not None and states <= judged):
            return None
        return entity_id, None if states is None else judged | states

    def program_targets(
        self, steps: list[Any], followed: tuple[list[Any], ...] = ()
    ) -> Changes | None:
        """Return what a program's steps change, with what hears them; None when unknown.

        A notification ("the bed light is on") changes no entity itself: what it sets off is
        what hears a message (a tapped actionable notification fires an event), an automation
        (its actions, judged the same way) or a trigger-based template entity (its change).
        followed: the programs on the way here.
        """
        found = action_changes(self.hass, steps, heard=True)
        signals = _signals(self.hass, steps)
        if found is None or not signals:
            return found
        merge_changes(
            found,
            dict.fromkeys(
                follower for follower, watcher in self.followers if watcher.hears(signals)
            ),
        )
        programs = [
            actions
            for automation in self.automations
            if automation.hears(signals)
            for actions in self.run_on_hearing(automation, signals)
        ]
        followed = (*followed, steps)
        for actions in programs:
            if actions in followed:
                continue
            if len(followed) > MAX_GROUP_DEPTH:
                return None
            targets = self.program_targets(actions, followed)
            if targets is None:
                return None
            merge_changes(found, targets)
        return found

    def run_on_hearing(
        self, automation: AutomationTrigger, signals: Collection[tuple[str, str]]
    ) -> list[list[Any]]:
        """Return the actions an automation runs hearing these signals, and what its run sets off.

        Running changes its own state (last_triggered): the automations watching it run too.
        """
        found = [automation.actions_heard(signals)]
        if automation.entity_id is not None:
            found.extend(self._automations_triggered_by(automation.entity_id, None))
        return found

    def set_off(
        self, entity_id: str, *, own: bool, becomes: frozenset[str] | None = None
    ) -> list[list[Any]]:
        """Return the actions of the automations a change of this entity may set off.

        Those its change triggers, and those that hear what its own steps, or theirs, signal
        (an event they fire, a notification): what a question says the call may do. own:
        whether it is the call's own target, which fires only the call's events; becomes:
        the states the change may leave it in (None: any).
        """
        found: list[list[Any]] = []
        triggered = self._automations_triggered_by(
            entity_id, self.fired if own else None, becomes, first=own
        )
        # A restart button's press changes the other entities of its device too.
        for other in self._restarted_with(entity_id):
            triggered.extend(self._automations_triggered_by(other, None))
        for steps in [*triggered, *self._heard(self._own_sequences(entity_id))]:
            if steps not in found:
                found.append(steps)
        for steps in found:  # the list grows: what hears those steps in turn
            for heard in self._heard([steps]):
                if heard not in found:
                    found.append(heard)
        return found

    def _heard(self, sequences: list[list[Any]]) -> list[list[Any]]:
        """Return the actions of the automations that hear what these steps signal."""
        signals = _signals(self.hass, (step for steps in sequences for step in steps))
        return [a.actions_heard(signals) for a in self.automations if signals and a.hears(signals)]

    def _automations_triggered_by(
        self,
        entity_id: str,
        fired: frozenset[str] | None,
        becomes: frozenset[str] | None = None,
        *,
        first: bool = False,
    ) -> list[list[Any]]:
        """Return the actions of the enabled automations that a change of this entity triggers.

        Its change is also a change of every group it is in (a light group, an old-style
        group), of every template entity whose state follows it (a template binary sensor
        reading it) and of what shows it as another kind (Switch as X), and of theirs in
        turn: what watches them watches it. An automation it triggers changes its own state
        by running (last_triggered, current): what watches that watches it too. fired: the
        events of its own the entity fires (None: any); what changes with it only changes its
        state. becomes: the states its change may leave it in (None: any), compared with a
        state trigger's `to:`; first: whether the change is the call's own change of its
        target, which starts from the state it has now (compared with a state trigger's
        `from:`; any later change may come after another one, from any state); a group
        whose on and off follow its members' may go where a member goes (none goes off when
        a member goes on). An event its integration fires on the bus when it changes (the
        shopping list's) sets off what hears it.
        """
        registry = er.async_get(self.hass)
        changed = [entity_id]
        # The states each changed entity may be left in, where told (a group's: a member's).
        told: dict[str, frozenset[str] | None] = {entity_id: becomes}
        found: list[list[Any]] = []
        for current in changed:
            entry = registry.async_get(current)
            device_id = entry.device_id if entry is not None else None
            events = fired if current == entity_id else frozenset()
            states = told.get(current)
            for group in self.groups.get(current, ()):
                follows = (
                    states is not None
                    and states <= ON_OFF
                    and split_entity_id(current)[0] in ON_OFF_MEMBERS
                    and follows_members_on_off(self.hass, group)
                )
                merged = _either(told, group, states if follows else None)
                if group not in changed or merged != told.get(group):
                    # Judged again when another member may leave it in more states.
                    changed.append(group)
                told[group] = merged
            changed.extend(w for w in wrapping_entities(self.hass, current) if w not in changed)
            changed.extend(h for h in self.helpers.get(current, ()) if h not in changed)
            # What its integration fires on the bus when it changes (the shopping list's
            # `shopping_list_updated`), the MQTT messages a call on an MQTT entity publishes
            # (and its device answers with), and whatever a command of its own sends (a command
            # line switch's) set off what hears them.
            heard = {
                (EVENT_SIGNAL, event) for event in integration_events_of_call(self.hass, current)
            } | {(MQTT, topic) for topic in mqtt_topics_of_entity(self.hass, current)}
            if runs_a_command(self.hass, current):
                # A shell command or HTTP request of its own may send any signal.
                heard.add(ANY_KIND_OF_SIGNAL)
            if sends_messages(self.hass, current):
                # A notify entity's change is a message sent: any signal a message can be,
                # carrying what the call's message says (a sentence it does not say is not
                # heard); changed otherwise (a group's member), it may say anything.
                own = first and current == entity_id and self.said is not None
                heard.add((MESSAGE, self.said or "") if own else MESSAGE_SIGNAL)
            # The state it has before the change: what it let run that the change may stop.
            before = self.hass.states.get(current)
            now = before.state if before is not None else None
            was = now if first and current == entity_id else None
            # A template entity that reads every state (the community's count of unavailable
            # entities) is not followed: an automation that notifies on it would make every
            # request of such a home a question.
            changed.extend(
                follower
                for follower, watcher in self.followers
                if follower not in changed
                and (
                    (
                        not watcher.any_entity
                        and watcher.watches(current, device_id, events, states, was)
                    )
                    or (heard and watcher.hears(heard))
                )
            )
            for automation in self.automations:
                hears = bool(heard) and automation.hears(heard)
                if not hears and not automation.watches(current, device_id, events, states, was):
                    continue
                # Set off by its change alone: the branches it may take (actions_for).
                actions = (
                    automation.actions
                    if hears
                    else automation.actions_for(current, device_id, events, states, now)
                )
                if actions not in found:
                    found.append(actions)
                # Its run changes its own state, which sets off what watches that.
                if automation.entity_id is not None and automation.entity_id not in changed:
                    changed.append(automation.entity_id)
        return found

    def _stops_securing(self, entity_id: str) -> bool:
        """Whether the call keeps an automation from securing the house (a re-lock timer)."""
        return bool(self.stopped_programs(entity_id))

    def _stopped_by_a_restart(
        self, entity_id: str, path: tuple[str, ...]
    ) -> list[tuple[str | None, list[Any]]]:
        """Return what a restart or stop of Home Assistant keeps from securing the house.

        Stopping, Home Assistant stops every running script and automation ("Courier" that
        locks the door in ten minutes), and a running timer comes back idle (unless it is
        restored), so what its end would run does not run either.
        """
        found: list[tuple[str | None, list[Any]]] = [
            (own, steps)
            for own, steps in running_programs(self.hass)
            if own != entity_id and own not in path and self._would_secure(own or "", steps)
        ]
        for timer in self.hass.states.async_all(TIMER_DOMAIN):
            if timer.state == TIMER_ACTIVE:
                stopped = self.stopped_programs(timer.entity_id, TIMER_STOPPED_AT_A_RESTART)
                found.extend(program for program in stopped if program not in found)
        return found

    def stopped_programs(
        self, entity_id: str, stopped: frozenset[str] | None = None
    ) -> list[tuple[str | None, list[Any]]]:
        """Return the automations the call keeps from securing the house: entity and actions.

        "Unlock for the courier, lock again when the timer is up": cancelling or pausing the
        timer keeps the door unlocked. An automation that waits for an event the call stops
        is judged by what it would do, its opening steps (an unlock) left out: keeping those
        from running keeps the house as it is. stopped: the events kept from firing (the
        call's when None).
        """
        stopped = self.stopped if stopped is None else stopped
        domain = split_entity_id(entity_id)[0]
        return [
            (automation.entity_id, automation.actions)
            for automation in self.automations
            if any(
                watched in (entity_id, domain) and event in stopped
                for watched, event in automation.entity_events
            )
            and self._would_secure(entity_id, automation.actions)
        ]

    def _halts_securing(self, entity_id: str) -> bool:
        """Whether stopping this running program keeps it from securing the house."""
        return bool(self.halted_programs(entity_id))

    def halted_programs(self, entity_id: str) -> list[tuple[str | None, list[Any]]]:
        """Return this program's runs that stopping it keeps from securing the house.

        The exempt "Courier" unlocks the door and locks it ten minutes later: stopping it while
        it waits keeps the door unlocked. A running program is judged by its steps, its
        opening ones (an unlock) left out, as a stopped timer's automation is. An enabled
        automation switched off runs no more, now or later: the exempt "Nightly" that locks the
        door at bedtime is judged by its actions whether it runs now or not.
        """
        found: list[tuple[str | None, list[Any]]] = [
            (own, steps)
            for own, steps in running_programs(self.hass)
            if own == entity_id and self._would_secure(entity_id, steps)
        ]
        if split_entity_id(entity_id)[0] == AUTOMATION_DOMAIN:
            found.extend(
                program
                for automation in self.automations
                if automation.entity_id == entity_id
                and (program := (entity_id, automation.actions)) not in found
                and self._would_secure(entity_id, automation.actions)
            )
        return found

    def _stops_securing_programs(self, entity_id: str, path: tuple[str, ...]) -> bool:
        """Whether an exempt entity's own steps stop a program that would secure the house."""
        return bool(self.programs_stopped_by(entity_id, path))

    def programs_stopped_by(
        self, entity_id: str, path: tuple[str, ...]
    ) -> list[tuple[str | None, list[Any]]]:
        """Return the programs an exempt entity's own steps stop that would secure the house.

        "Welcome" turns off "Courier" (it locks the door in ten minutes) or switches off
        "Nightly" (it locks the door at bedtime): as when the person stops them directly, the
        door stays unlocked. A step runs later than the question, so a script is judged by its
        steps whether it runs now or not; one we cannot read may do anything.
        """
        found: list[tuple[str | None, list[Any]]] = []
        # An exempt scene's own states: an automation it sets off is switched off.
        if split_entity_id(entity_id)[0] == SCENE_DOMAIN:
            for program in _automations_set_off(self.hass, entity_id):
                runs = self.halted_programs(program) if program not in path else []
                found.extend(run for run in runs if run not in found)
        for steps in self._own_sequences(entity_id):
            if _may_stop_home_assistant(self.hass, steps):
                found.extend(
                    run for run in self._stopped_by_a_restart(entity_id, path) if run not in found
                )
            # A scene its steps activate switches off the automations it sets off.
            programs = _stopped_programs(self.hass, steps)
            for scene in _known_targets(self.hass, steps):
                if split_entity_id(scene)[0] == SCENE_DOMAIN:
                    programs.extend(
                        p for p in _automations_set_off(self.hass, scene) if p not in programs
                    )
            for program in programs:
                if program == entity_id or program in path:
                    continue
                runs = self.halted_programs(program)
                if split_entity_id(program)[0] == SCRIPT_DOMAIN:
                    sequence = script_sequence(self.hass, program)
                    if sequence is None and self.hass.states.get(program) is not None:
                        sequence = [None]  # a script we cannot read: of unknown effect
                    if sequence is not None and self._would_secure(program, sequence):
                        runs.append((program, sequence))
                found.extend(run for run in runs if run not in found)
        return found

    def _would_secure(self, entity_id: str, steps: list[Any]) -> bool:
        """Whether steps stopped by a change of entity_id do something sensitive besides opening.

        Their opening steps (an unlock) are left out: not running them keeps the house closed.
        So are the steps of the scripts and automations they run, and the states of the scenes
        they activate, exempt ones too: an exempt "Lock up" that "Nightly" runs at bedtime
        locks the door, whether or not running it needs a yes, and switching Nightly off
        keeps it from doing so.
        """
        messages = _message_actions(self.hass, steps)
        for run in self.run_by([steps]):
            # A message to a notify entity changes that entity (its last message): what
            # watches it is judged as for any change. A message of no entity only sends.
            sent = frozenset(
                action
                for action in _message_actions(self.hass, run)
                if _changes_no_entity(self.hass, action)
            )
            if self.acts_sensitively(entity_id, run, RELEASING_SERVICES | sent):
                return True
            # An exempt scene they activate sets what it holds ("Night" locks the door);
            # another integration's scene may set anything.
            for scene in action_targets(self.hass, run) or ():
                if scene in self.exempt and split_entity_id(scene)[0] == SCENE_DOMAIN:
                    members = scene_states(self.hass, scene)
                    if members is None or any(
                        self.is_sensitive(member, (entity_id, scene, member), None)
                        for member in members
                        if member != entity_id
                    ):
                        return True
        # A message not sent ("the tea is ready") changes nothing, unless what hears it would
        # act on it: then it may be what sets off securing the house. It says what it says
        # (not "good night" to a sentence trigger); a record not written: any signal.
        said = {signal for signal in _signals(self.hass, steps) if signal[0] == MESSAGE}
        if any(_record_event(self.hass, action) is not None for action in messages):
            said.add(MESSAGE_SIGNAL)
        return bool(said) and any(
            self.acts_sensitively(entity_id, automation.actions_heard(said))
            for automation in self.automations
            if automation.hears(said)
        )

    def acts_sensitively(
        self, entity_id: str, steps: list[Any], skip: frozenset[str] = frozenset()
    ) -> bool:
        """Whether the steps (but `skip`'s services) change a sensitive entity, or what, unknown."""
        targets = action_targets(self.hass, steps, skip=skip)
        return targets is None or any(
            self.is_sensitive(t, (entity_id, t), None) for t in targets if t != entity_id
        )

    def _sets_off_sensitive(
        self, entity_id: str, path: tuple[str, ...], becomes: frozenset[str] | None = None
    ) -> bool:
        """Whether an automation that an exempt entity's change sets off is sensitive.

        The exemption covers the entity: its own change, and an exempt script's or template
        entity's own steps. An automation on it ("when Welcome runs, unlock"), or on what
        those steps change ("when the kitchen lights go on, unlock"), is another program,
        judged as any other. becomes: the states its change may leave it in (None: any).
        """
        if len(path) > MAX_GROUP_DEPTH:
            return True
        # Run again in mode restart, a script or automation stops its run under way (which
        # would lock up later): the new one may take another way.
        if program_restarts_a_run(self.hass, entity_id) and self._halts_securing(entity_id):
            return True
        sequences = self._own_sequences(entity_id)
        # The steps of the exempt entities followed to this one are exempt with them here too
        # (a variable of "Welcome" names the bed light its step turns on: Welcome reads it).
        followed = [s for e in path[:-1] if e in self.exempt for s in self._own_sequences(e)]
        fired = self.fired if len(path) == 1 else None
        # What its own steps signal (an event they fire, a sentence they say) sets off what
        # hears it: "on guest_arrived, unlock" is another program.
        # A trigger-based template entity that hears it changes: what watches that is judged.
        signals = _signals(self.hass, (step for steps in sequences for step in steps))
        heard = [a.actions_heard(signals) for a in self.automations if signals and a.hears(signals)]
        # Its steps run in the asking person's context: what they say to one of these agents
        # in a given conversation may answer the question it asks there ("yes").
        if any(_may_answer_a_question(self.hass, steps) for steps in sequences):
            return True
        if any(
            follower not in path and self.is_sensitive(follower, (*path, follower), None)
            for follower, watcher in self.followers
            if signals and watcher.hears(signals)
        ):
            return True
        triggered = self._automations_triggered_by(entity_id, fired, becomes)
        # An exempt restart button's press reboots its device: what the change of the
        # device's other entities sets off is another program too.
        for other in self._restarted_with(entity_id):
            triggered.extend(self._automations_triggered_by(other, None))
        for steps in [*triggered, *heard]:
            if steps in sequences or steps in followed:
                continue  # its own steps, watching what they read: exempt with it
            targets = self.program_targets(steps)
            if targets is None or self.changes_sensitive(targets, path):
                return True
        # A program its steps stop or switch off is another program too: kept from securing.
        if self._stops_securing_programs(entity_id, path):
            return True
        # What its own steps change is exempt with it (steps of unknown effect too); what that
        # change sets off is not, nor what another entity they switch runs of its own (a
        # template switch whose turn-on unlocks, a script they run) unless that is exempt too
        # or named sensitive (the lock the step unlocks is the step itself).
        for steps in sequences:
            known = _known_targets(self.hass, steps)
            # A step that may restart Home Assistant switches on again the automations whose
            # configuration says `initial_state: true`: judged as switching them on.
            if ANY_KIND_OF_SIGNAL in _signals(self.hass, steps):
                known.extend(a for a in armed_at_start(self.hass) if a not in known)
            states = action_changes(self.hass, steps) or {}
            for target in known:
                if target in path:
                    # One followed already, changed back to another state ("when the bed
                    # light goes on, switch on Porch", whose turn-on turns the bed light off):
                    # judged again for that state, as in a program that is not exempt.
                    again = self._revisited(target, states.get(target))
                    if again is not None and self.is_sensitive(target, (*path, target), again[1]):
                        return True
                    continue
                step_path = (*path, target)
                if (
                    target not in self.exempt
                    and not self._named_sensitive(target)
                    and self._runs_sensitive(target, step_path)
                ):
                    return True
                if self._sets_off_sensitive(target, step_path):
                    return True
        return False

    def _created_scene_members(self, scene: str) -> list[str] | None:
        """Return what the `scene.create` steps of the house put in this scene.

        The steps of the automations and scripts; None when one of them may make any scene,
        or this one of what cannot be read (a template).
        """
        programs = [automation.actions for automation in self.automations]
        programs.extend(
            sequence
            for script in self.hass.states.async_entity_ids(SCRIPT_DOMAIN)
            if (sequence := script_sequence(self.hass, script)) is not None
        )
        found: list[str] = []
        for steps in programs:
            for step in _scene_creations(self.hass, steps):
                data = _call_data(step)
                scene_id = _plain_text(data.get(_SCENE_ID)) if data is not None else None
                if scene_id is None:
                    return None
                if f"scene.{scene_id}" != scene:
                    continue
                members = _created_members(step)
                if members is None:
                    return None
                found.extend(member for member in members if member not in found)
        return found

    def _own_sequences(self, entity_id: str) -> list[list[Any]]:
        """Return a script's steps, or the actions an entity runs of its own (a template's)."""
        if (sequence := script_sequence(self.hass, entity_id)) is not None:
            return [sequence]
        return _action_sequences(self.hass, entity_id) or []

    def _runs_sensitive(self, entity_id: str, path: tuple[str, ...]) -> bool:
        """Whether what an entity runs of its own may change anything sensitive.

        A template switch's turn-on, a script's steps, an automation's actions: a step whose
        effect cannot be told makes it so. A group runs what its members run.
        """
        if len(path) > MAX_GROUP_DEPTH:
            return True
        # A script we cannot read, or whose service another integration's code answers
        # ("script.open_sesame" with no script of that name): of unknown effect.
        if split_entity_id(entity_id)[0] == SCRIPT_DOMAIN and not runs_its_own_script(
            self.hass, entity_id
        ):
            return True
        state = self.hass.states.get(entity_id)
        for member in _group_members(state) if state is not None else ():
            if (
                member not in path
                and member not in self.exempt
                and not self._named_sensitive(member)
                and self._runs_sensitive(member, (*path, member))
            ):
                return True
        for steps in _action_sequences(self.hass, entity_id) or ():
            targets = self.program_targets(steps)
            if targets is None or self.changes_sensitive(targets, path):
                return True
        return False

    def _aimed_at_sensitive(self, entity_id: str, path: tuple[str, ...]) -> bool:
        """Whether the call's data may steer this exempt script to a sensitive change.

        The person exempted the script as they use it; the call's data may pick what it
        changes: a step whose target is a template ("turn on {{ which }}") anything at all, a
        branch it picks ("if which is garage, open the garage door") whatever that branch
        names. Called with data, a script stays exempt only where every step names its
        targets and none of those targets is sensitive.
        """
        sequence = script_sequence(self.hass, entity_id)
        targets = None if sequence is None else action_targets(self.hass, sequence)
        if targets is None:
            return True
        return any(self.is_sensitive(t, (*path, t), None) for t in targets if t not in path)

    def _on_sensitive_topics(self, entity_id: str) -> bool:
        """Whether an MQTT entity shares a topic with an MQTT entity that is sensitive.

        A buzzer that publishes where the MQTT door lock is commanded, or where it reports
        its state, drives that lock (or says it is unlocked): one device on both. So does one
        on the topics of an MQTT relay that is sensitive by what it is (Switch as X shows it
        as a lock, a template lock drives it, a sensitive group holds it).
        """
        topics = mqtt_topics_of_entity(self.hass, entity_id)
        return bool(topics) and any(
            other != entity_id
            and topics_meet(topics, mqtt_topics_of_entity(self.hass, other))
            and (
                self._named_sensitive(other)
                or (
                    other not in self.exempt
                    and (
                        self._shown_as_sensitive(other)
                        or self._driven_by_sensitive(other)
                        or self._in_sensitive_group(other)
                    )
                )
            )
            for other in mqtt_entity_ids(self.hass)
        )

    def _driven_by_sensitive(self, entity_id: str) -> bool:
        """Whether a sensitive entity's own actions (a template lock's unlock) change this one."""
        return any(driver != entity_id for driver in self.driven.get(entity_id, ()))

    def _shown_as_sensitive(self, entity_id: str) -> bool:
        """Whether Switch as X shows this entity as a sensitive one (a relay as a lock)."""
        return any(
            wrapper not in self.exempt and self._named_sensitive(wrapper)
            for wrapper in wrapping_entities(self.hass, entity_id)
        )

    def _in_sensitive_group(self, entity_id: str) -> bool:
        """Whether a group this entity is in (also through a group in a group) is sensitive.

        By what the group is, not its name: named sensitive (a cover group shown as a garage
        door), shown as a lock by Switch as X, or driven by a sensitive template entity's
        own actions. Its members are what really switch when it does; so does the entity a
        member of it shows as another kind (a relay that Switch as X shows as its cover).
        """
        changed = [entity_id]
        for current in changed:  # the list grows: the groups those are in, what shows them
            for other in (*self.groups.get(current, ()), *wrapping_entities(self.hass, current)):
                if other in changed:
                    continue
                changed.append(other)
                if other not in self.exempt and (
                    self._named_sensitive(other)
                    or self._driven_by_sensitive(other)
                    or self._shown_as_sensitive(other)
                ):
                    return True
        return False

    def driven_targets(self) -> dict[str, frozenset[str]]:
        """Return what the actions of sensitive entities name, with the entities that run them.

        Only the entities the policy can name sensitive run such actions that matter here:
        those of its domains and covers, and those the person named (a template switch
        "Garage opener" whose turn-on pulses the garage relay); a step whose target is a
        template names the relays written in it (named_targets). A sensitive Switch as X
        entity (a lock) switches what it shows, and what that runs of its own (a template
        switch that passes its turn-on to a relay) drives the relay too.
        """
        found: dict[str, set[str]] = {}
        domains = {*self.policy.domains, "cover", *(split_entity_id(e)[0] for e in self.entities)}
        acting = [
            (driver, sequences)
            for domain in domains
            for driver, sequences in entities_with_actions(self.hass, domain)
        ]
        for wrapper in switch_as_x_entities(self.hass):
            if (shown := wrapped_entity(self.hass, wrapper)) is not None:
                acting.append((wrapper, entity_action_sequences(self.hass, shown) or []))
        for driver, sequences in acting:
            if driver in self.exempt or not self._named_sensitive(driver):
                continue
            for steps in self.run_by(sequences):  # the scripts they run among them
                for target in _named_in_steps(self.hass, steps):
                    found.setdefault(target, set()).add(driver)
        return {target: frozenset(drivers) for target, drivers in found.items()}

    def run_by(self, sequences: list[list[Any]]) -> list[list[Any]]:
        """Return these steps and those of the automations they run, and theirs in turn.

        An automation runs when a step triggers it (`automation.trigger`, also while it is
        switched off) or sends what it hears: the event a DIY lock's unlock fires (which an
        automation answers by switching the relay), a sentence it says to Assist, an MQTT
        message it publishes (heard on that topic). A script it runs sends what its own steps
        send, and so does an entity it changes that runs actions of its own (a template
        button it presses, a template switch in a switch group it turns on). A step that may
        send any signal (a message, a Python script) is not taken to run every automation
        that hears one, nor does what the steps change count: the remote's light and the
        porch light that follows the relay are not what unlocks.
        """
        found = list(sequences)
        for steps in found:  # the list grows: what those run in turn
            # A script a step runs is read as one of `found` in its turn, once.
            named = _named_in_steps(self.hass, steps)
            triggered = {t for t in named if split_entity_id(t)[0] == AUTOMATION_DOMAIN}
            # A group a step switches switches its members (a switch group of a template
            # switch), and those of a group in it.
            reached = sorted(named)
            for target in reached:  # the list grows: the members of the groups reached
                state = self.hass.states.get(target)
                members = _group_members(state) if state is not None else []
                reached.extend(m for m in members if m not in reached)
            scripts = [
                sequence
                for target in reached
                if target.startswith(SCRIPT_PREFIX)
                and (sequence := script_sequence(self.hass, target))
            ]
            # An entity that runs actions of its own (a template button whose press switches
            # the relay) runs them when a step changes it.
            scripts += [
                sequence
                for target in reached
                if not target.startswith(SCRIPT_PREFIX)
                and split_entity_id(target)[0] != AUTOMATION_DOMAIN
                for sequence in _action_sequences(self.hass, target) or ()
            ]
            sent = {
                (kind, key)
                for kind, key in _signals(self.hass, steps)
                if kind not in (ANY_SIGNAL, MESSAGE, MQTT)
            } | {(MQTT, topic) for topic in _published_topics(steps)}
            # `automation.trigger` runs an automation that is switched off too.
            ran = [
                sequence
                for automation in sorted(triggered)
                if (sequence := automation_sequence(self.hass, automation)) is not None
            ]
            ran += [a.actions for a in self.may_hear(sent) if a.hears(sent)]
            found.extend(run for run in [*scripts, *ran] if run not in found)
        return found

    def may_hear(self, sent: set[tuple[str, str]]) -> list[AutomationTrigger]:
        """Return, in order, the automations that may hear one of these signals.

        Neither a message nor a signal of any kind: one of a kind is heard by a trigger of
        that kind on its key or on any key (on any topic for MQTT, where topics match by
        wildcards); of any key, by every trigger of its kind. AutomationTrigger.hears decides.
        """
        found: set[int] = set()
        for kind, key in sent:
            by_key = self.hearing.get(kind, {})
            if key == ANY_SIGNAL or kind == MQTT:
                found.update(index for indices in by_key.values() for index in indices)
            else:
                found.update((*by_key.get(key, ()), *by_key.get(ANY_SIGNAL, ())))
        return [self.automations[index] for index in sorted(found)]

    def _named_sensitive(self, entity_id: str) -> bool:
        """Sensitive by the policy's own rules: the entity, its domain, its cover class."""
        return self.policy.names(self.hass, self.entities, entity_id)

    def _restarted_with(self, entity_id: str) -> list[str]:
        """Return what a press of a device's button or its update's install may change too.

        Told by the entity's domain and its registry entry's device: the other entities of
        the device and of the devices connected through it (a hub's: `via_device_id`), in
        any state (unavailable while it reboots, then as they come back).
        """
        if split_entity_id(entity_id)[0] not in RESTARTING_DOMAINS:
            return []
        registry = er.async_get(self.hass)
        entry = registry.async_get(entity_id)
        if entry is None or entry.device_id is None:
            return []
        connected: dict[str, list[str]] = {}
        for device in dr.async_get(self.hass).devices:
            if device.via_device_id is not None:
                connected.setdefault(device.via_device_id, []).append(device.id)
        reached = [entry.device_id]
        for device_id in reached:  # the list grows: what is connected through those
            reached.extend(d for d in connected.get(device_id, ()) if d not in reached)
        return [
            other.entity_id
            for device_id in reached
            for other in er.async_entries_for_device(registry, device_id)
            if other.entity_id != entity_id
        ]

    def _next_to_sensitive(self, entity_id: str) -> bool:
        """Whether a sensitive entity (not exempt) shares this entity's device.

        Sensitive by the policy's rules (a lock) or by what it is: the relay a template lock
        or garage door switches, one Switch as X shows as a lock, one a sensitive group
        holds. The relay's device is the door's: its other controls may switch it too. So
        is the device it is a sub-device of (its `via_device`: an ESPHome controller's "Door"
        sub-device and the controller's mode select) and a sub-device of it; not a sibling
        sub-device (a Zigbee lamp beside a Zigbee lock under one coordinator).
        """
        registry = er.async_get(self.hass)
        entry = registry.async_get(entity_id)
        if entry is None or entry.device_id is None:
            return False
        return any(
            other.entity_id != entity_id
            and other.entity_id not in self.exempt
            and (
                self._named_sensitive(other.entity_id)
                or self._driven_by_sensitive(other.entity_id)
                or self._shown_as_sensitive(other.entity_id)
                or self._in_sensitive_group(other.entity_id)
            )
            for device_id in connected_devices(self.hass, entry.device_id)
            for other in er.async_entries_for_device(registry, device_id)
        )


def _read_house(hass: HomeAssistant) -> HouseReading:
    """Read what the gate needs of the whole home's configuration (kept: reads.py).

    A trigger-based template entity renders what its templates read when it triggers: read
    as an automation's conditions are (one that reads every state stays followed by its
    triggers alone).
    """
    automations = tuple(with_reads(hass, automation_triggers(hass), "house"))
    helpers, switches = _helper_settings(hass)
    return HouseReading(
        automations,
        _hearing(automations),
        helpers,
        switches,
        _containing_groups(hass),
        mqtt_announcements(hass),
    )


def _hearing(
    automations: Sequence[AutomationTrigger], start: int = 0
) -> dict[str, dict[str, tuple[int, ...]]]:
    """Return the automations (by position, from `start`) that hear each signal: by kind, key."""
    found: dict[str, dict[str, list[int]]] = {}
    for index, automation in enumerate(automations, start):
        for kind, key in automation.heard:
            found.setdefault(kind, {}).setdefault(key, []).append(index)
    return {kind: {key: tuple(i) for key, i in by_key.items()} for kind, by_key in found.items()}


def _with_hearing(
    kept: Mapping[str, Mapping[str, tuple[int, ...]]],
    more: Sequence[AutomationTrigger],
    start: int,
) -> Mapping[str, Mapping[str, tuple[int, ...]]]:
    """Return the kept hearing with that of more programs, placed after them at `start`."""
    added = _hearing(more, start)
    if not added:
        return kept
    found = {kind: dict(by_key) for kind, by_key in kept.items()}
    for kind, by_key in added.items():
        into = found.setdefault(kind, {})
        for key, indices in by_key.items():
            into[key] = (*into.get(key, ()), *indices)
    return found


def waiting_programs(hass: HomeAssistant) -> list[AutomationTrigger]:
    """Return what the waits of running scripts and automations watch, with their actions.

    A run that waits for a change goes on when the change comes: "wait until the courier
    switch goes on, then unlock the front door" unlocks it when the switch is turned on. The
    program's actions are judged whole: which of them are still to come is the run's own.
    A run also reads what its conditions read when it comes to them ("after ten minutes, if
    guest mode is on, unlock"): each running program watches nothing more than it reads.
    Going on, it ends, which changes its own entity's state: what watches that is judged too.
    """
    found: list[AutomationTrigger] = []
    for own, steps in running_programs(hass):
        found.append(AutomationTrigger(frozenset(), frozenset(), steps, entity_id=own))
        for wait in _wait_steps(steps):
            if (watcher := wait_watcher(hass, wait, steps)) is not None:
                found.append(replace(watcher, entity_id=own))
    return found


def steered(hass: HomeAssistant, exempt: Iterable[str]) -> list[AutomationTrigger]:
    """Return the actions of the exempt entities, each watching only what it reads.

    An exempt script (or template entity) runs without a question as the person uses it;
    what it reads may pick what it changes ("if house mode is guest, open the garage
    door"). Changing that steers its next run, which no question stops: judged by what
    those actions change, as a change that an automation's conditions read is.
    """
    found: list[AutomationTrigger] = []
    for entity_id in exempt:
        if split_entity_id(entity_id)[0] == SCRIPT_DOMAIN:
            sequence = script_sequence(hass, entity_id)
            sequences = None if sequence is None else [sequence]
        else:
            sequences = entity_action_sequences(hass, entity_id)
        found.extend(
            AutomationTrigger(frozenset(), frozenset(), steps) for steps in sequences or ()
        )
    return found


def _either(
    told: Mapping[str, frozenset[str] | None], entity_id: str, states: frozenset[str] | None
) -> frozenset[str] | None:
    """Return the states an entity may be left in by this change or one told before."""
    if entity_id not in told:
        return states
    earlier = told[entity_id]
    return None if earlier is None or states is None else earlier | states


def _readable_steps(steps: Iterable[Any]) -> Iterator[tuple[Mapping[str, Any], str]]:
    """Yield each step readable as a step, with its kind (also one switched off)."""
    for step in steps:
        if not isinstance(step, Mapping):
            continue
        try:
            kind = cv.determine_script_action(dict(step))
        except ValueError:
            continue
        yield step, kind


def _enabled_steps(steps: Iterable[Any]) -> Iterator[tuple[Mapping[str, Any], str]]:
    """Yield each step that is switched on and readable as a step, with its kind."""
    return (
        (step, kind) for step, kind in _readable_steps(steps) if step.get("enabled") is not False
    )


def _device_class(hass: HomeAssistant, entity_id: str) -> Any:
    state = hass.states.get(entity_id)
    if state is not None:
        return state.attributes.get(ATTR_DEVICE_CLASS)
    entry = er.async_get(hass).async_get(entity_id)
    return entry and (entry.device_class or entry.original_device_class)


def _action_sequences(
    hass: HomeAssistant, entity_id: str, installs: bool = True
) -> list[list[Any]] | None:
    """Return the actions an entity runs of its own (entity_action_sequences); None: none.

    Installing a Supervisor's update restarts Home Assistant (or reboots its host): a step
    that restarts it, judged as one in a script is; a call that only skips it (`installs`
    False) restarts nothing.
    """
    sequences = entity_action_sequences(hass, entity_id)
    if not installs or split_entity_id(entity_id)[0] != UPDATE_DOMAIN:
        return sequences
    entry = er.async_get(hass).async_get(entity_id)
    if entry is None or entry.platform != SUPERVISOR:
        return sequences
    return [*(sequences or ()), _RESTART_STEPS]


def _wait_steps(steps: Iterable[Any]) -> list[Mapping[str, Any]]:
    """Return the wait steps among these steps and the steps nested in them."""
    found: list[Mapping[str, Any]] = []
    for step, kind in _enabled_steps(steps):
        if kind in _WAIT_STEPS:
            found.append(step)
        elif (nested := _nested_steps(step, kind)) is not None:
            found.extend(_wait_steps(nested))
    return found


def _containing_groups(hass: HomeAssistant) -> dict[str, tuple[str, ...]]:
    """Return, for each entity, the group-like entities whose members it is.

    A scene lists the entities it sets, but its state is when it was last activated, not
    theirs: a member's change is no change of the scene.
    """
    found: dict[str, list[str]] = {}
    for state in hass.states.async_all():
        if state.domain == "scene":
            continue
        for member in _group_members(state):
            if member != state.entity_id:
                found.setdefault(member, []).append(state.entity_id)
    return {member: tuple(groups) for member, groups in found.items()}


def _helper_settings(
    hass: HomeAssistant,
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Return the helpers that follow each entity, and the entities each helper may switch.

    The first: for each entity, the entities of the other config entries that name it; the
    second: for each entity of such an entry, the entities it names that can be changed.
    A helper made in the UI (threshold, min/max, utility meter, statistics, Bayesian ...) keeps
    the entities it follows in its config entry's data, options or subentries, by entity id,
    registry id or in a template; its own entities' states follow theirs. An entity its own
    entry names (a hub listing its devices) follows nothing. An entry that names an entity
    without following it only makes more questions. The other way round, a helper's entity
    that can be changed may switch what it names and can be changed too (a generic
    thermostat its heater); one that only reports (a sensor) is switched by nothing.
    A helper set up in configuration.yaml has no entry: its entity object keeps what it
    names in attributes of its own (_ids_in_attributes), and is read the same way.
    """
    registry = er.async_get(hass)
    read = hass.data.get(_READ, {})
    kept: dict[str, tuple[tuple[object, ...], tuple[str, ...]]] = {}
    found: dict[str, list[str]] = {}
    switched: dict[str, tuple[str, ...]] = {}
    for entry in hass.config_entries.async_entries():
        if entry.domain == DOMAIN:
            continue
        settings = _settings(entry)
        earlier = read.get(entry.entry_id)
        if earlier is not None and _same(earlier[0], settings):
            ids = earlier[1]
        else:
            ids = tuple(dict.fromkeys(i for text in _texts_in(settings) for i in _ids_in(text)))
        kept[entry.entry_id] = (settings, ids)
        own = [e.entity_id for e in er.async_entries_for_config_entry(registry, entry.entry_id)]
        _add_named(hass, registry, own, ids, found=found, switched=switched)
    for entity_id, entity in configuration_yaml_entities(hass):
        # A helper's settings change in place (`input_select.reload`): its values, not itself.
        settings = (entity, *getattr(entity, "__dict__", {}).values())
        earlier = read.get(entity_id)
        if earlier is not None and _same(earlier[0], settings):
            ids = earlier[1]
        else:
            ids = tuple(_ids_in_attributes(entity))
        kept[entity_id] = (settings, ids)
        _add_named(hass, registry, [entity_id], ids, found=found, switched=switched)
    hass.data[_READ] = kept
    return {source: tuple(entities) for source, entities in found.items()}, switched


def _add_named(
    hass: HomeAssistant,
    registry: er.EntityRegistry,
    own: list[str],
    ids: Iterable[str],
    *,
    found: dict[str, list[str]],
    switched: dict[str, tuple[str, ...]],
) -> None:
    """Add what the settings of one helper (its own entities) name: followed and switched."""
    named = {
        entity_id
        for word in ids
        if (entity_id := er.async_resolve_entity_id(registry, word)) is not None
        and (hass.states.get(entity_id) is not None or entity_id in registry.entities)
    }
    if not named or not own:
        return
    sources = sorted(named.difference(own))
    for source in sources:
        found.setdefault(source, []).extend(own)
    if switchable := tuple(s for s in sources if split_entity_id(s)[0] not in READ_ONLY_DOMAINS):
        for entity_id in own:
            if split_entity_id(entity_id)[0] not in READ_ONLY_DOMAINS:
                switched[entity_id] = switchable


def _ids_in_attributes(entity: Any) -> Iterator[str]:
    """Yield the entity ids an entity object of configuration.yaml holds as its settings.

    Such a helper (a generic thermostat's heater, a threshold sensor's source) keeps what it
    follows or switches in an attribute of its own: a text that is an entity id, or a
    template that names it, nested in lists, mappings (keys too) and settings objects (a
    Bayesian sensor's observations), a few levels deep.
    """
    own = _own_modules(entity)
    for value in getattr(entity, "__dict__", {}).values():
        yield from _ids_nested(value, _NESTED_SETTINGS_DEPTH, own)


def _own_modules(entity: Any) -> tuple[str, ...]:
    """Return the module prefixes of the integration whose platform made the entity object.

    An object of its own integration's classes (a YAML history stats sensor's coordinator and
    the history it keeps) holds its settings as the entity does: it is read too. Told by the
    platform (``platform_name``, which Home Assistant sets), not the entity's name.
    """
    name = getattr(getattr(entity, "platform", None), "platform_name", None)
    if not isinstance(name, str) or not name:
        return ()
    return (f"homeassistant.components.{name}.", f"custom_components.{name}.")


def _ids_nested(value: Any, depth: int, own: tuple[str, ...] = ()) -> Iterator[str]:
    if isinstance(value, str):
        if valid_entity_id(value):
            yield value
        return
    if isinstance(value, Template):
        # A template setting (a Bayesian sensor's template observation) follows what it
        # reads: the ids written in it, as in a helper's settings made in the UI.
        yield from _ID_IN_TEXT.findall(value.template)
        return
    if depth == 0:
        return
    if isinstance(value, Mapping):
        items: Iterable[Any] = (*value.keys(), *value.values())
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = value
    elif is_dataclass(value) and not isinstance(value, type):
        items = (getattr(value, f.name, None) for f in fields(value))
    elif own and f"{type(value).__module__}.".startswith(own) and hasattr(value, "__dict__"):
        items = vars(value).values()
    else:
        return
    for item in items:
        yield from _ids_nested(item, depth - 1, own)


def _settings(entry: ConfigEntry) -> tuple[object, ...]:
    return (entry.data, entry.options, *(sub.data for sub in entry.subentries.values()))


def _same(earlier: tuple[object, ...], now: tuple[object, ...]) -> bool:
    """Whether these are the settings read before: an update replaces them with new objects."""
    return len(earlier) == len(now) and all(a is b for a, b in zip(earlier, now, strict=True))


def _ids_in(text: str) -> Iterator[str]:
    """Yield what in a setting may name an entity: all of it, or the ids in its template."""
    if valid_entity_id(text) or _REGISTRY_ID.fullmatch(text):
        yield text
        return
    yield from _ID_IN_TEXT.findall(text)


def _texts_in(value: Any) -> Iterator[str]:
    """Yield every string in nested mappings and sequences."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _texts_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts_in(item)


def _group_members(state: State) -> list[str]:
    """Members of a group-like entity (old-style groups, light/cover/lock groups)."""
    members = state.attributes.get(ATTR_ENTITY_ID)
    if isinstance(members, str):
        return [members]
    if isinstance(members, Collection):
        return [member for member in members if isinstance(member, str)]
    return []


def action_targets(
    hass: HomeAssistant,
    steps: Iterable[Any],
    skip: frozenset[str] = frozenset(),
    *,
    heard: bool = False,
) -> list[str] | None:
    """Return the entities the steps of a user-written action change; None when unknown.

    See action_changes.
    """
    changes = action_changes(hass, steps, skip, heard=heard)
    return None if changes is None else list(changes)


def action_changes(
    hass: HomeAssistant,
    steps: Iterable[Any],
    skip: frozenset[str] = frozenset(),
    *,
    heard: bool = False,
) -> Changes | None:
    """Return what the steps of a user-written action change, and to what; None when unknown.

    Each entity with the states the steps may leave it in (states_after; None: any).

    Fail closed: a service call whose service or targets are templates, or that names no
    target at all (what it does is the service's own), a script run with data (which may steer
    it), a device action, an event (which anything may listen to): what they change cannot be
    told. A script or automation run without data changes that entity (judged as it is).
    skip: services whose steps are left out (written out as `domain.service`).
    heard: a notification (told by its handler) changes no entity itself: the caller judges
    what hears it (_Rules.program_targets). An event stays unknown: whatever listens to it
    (an automation or another integration's code) is what it was fired for.
    """
    found: Changes = {}
    for step in steps:
        changes = _step_changes(hass, step, skip, heard=heard)
        if changes is None:
            return None
        merge_changes(found, changes)
    return found


def merge_changes(found: Changes, more: Mapping[str, frozenset[str] | None]) -> None:
    """Add what more steps change to what others do: the states of both (None: any)."""
    for entity_id, states in more.items():
        if entity_id not in found:
            found[entity_id] = states
        elif (earlier := found[entity_id]) is not None:
            found[entity_id] = None if states is None else earlier | states


def _step_targets(hass: HomeAssistant, step: Any) -> list[str] | None:
    changes = _step_changes(hass, step)
    return None if changes is None else list(changes)


def _step_changes(
    hass: HomeAssistant, step: Any, skip: frozenset[str] = frozenset(), *, heard: bool = False
) -> Changes | None:
    if not isinstance(step, Mapping):
        return None
    if step.get("enabled") is False:
        return {}  # a step switched off in the editor is skipped (a template decides later)
    try:
        kind = cv.determine_script_action(dict(step))
    except ValueError:
        return None
    if kind in _PASSIVE_STEPS:
        return {}
    if kind == cv.SCRIPT_ACTION_CALL_SERVICE:
        action = _plain_text(step.get("action", step.get("service")))
        if action in skip:
            return {}
        if heard and action is not None and _changes_no_entity(hass, action):
            return {}
        if (
            action is not None
            and _is_service(action)
            and creates_scenes(hass, *action.split(".", 1))
        ):
            # It changes the scene it makes: judged by what the scene sets.
            data = _call_data(step)
            scene_id = _plain_text(data.get(_SCENE_ID)) if data is not None else None
            return None if scene_id is None else {f"scene.{scene_id}": None}
        if (
            action is not None
            and _is_service(action)
            and applies_states(hass, *action.split(".", 1))
        ):
            # `scene.apply` sets the entities it names, as a scene of them would.
            return _any_state(_created_members(step))
        if _runs_program(step) and not _passes_script_data(step):
            if _foreign_script_service(hass, action):
                return None  # no script's own: another integration's code, whatever its name
            # Running a script or an automation is that entity's change: judged as the entity
            # is (an exempt one by what its steps set off, any other asks). Data it passes
            # may steer what the script does: then of unknown effect.
            targets = _service_targets(hass, step, programs=True)
            return None if targets is None else dict.fromkeys(targets, _program_states(action))
        targets = _service_targets(hass, step)
        if targets is None and action is not None and _unreadable_target(step):
            targets = _templated_targets(hass, action)
        if targets is None or action is None:
            return None
        domain, _, service = action.partition(".")
        if domain == CORE_DOMAIN and _passes_data_to_scripts(step, targets):
            return None  # data that may steer the script it runs: of unknown effect
        parts = (step.get("data") or {}, step.get("data_template") or {})
        if not all(isinstance(part, Mapping) for part in parts):
            return dict.fromkeys(targets)  # data written whole as a template: any state
        data = {**parts[0], **parts[1]}
        return {t: states_after(hass, domain, service, data, t) for t in targets}
    if kind == cv.SCRIPT_ACTION_ACTIVATE_SCENE:
        scene = _plain_text(step.get("scene"))
        return {scene: None} if scene is not None and valid_entity_id(scene) else None
    if kind == cv.SCRIPT_ACTION_DEVICE_AUTOMATION:
        if (call := device_action_call(hass, step)) is None:
            return None
        entity_id, service = call
        return {} if f"{split_entity_id(entity_id)[0]}.{service}" in skip else {entity_id: None}
    nested = _nested_steps(step, kind)
    return None if nested is None else action_changes(hass, nested, skip, heard=heard)


def _any_state(targets: list[str] | None) -> Changes | None:
    """Return these targets changed to states that cannot be told; None when unknown."""
    return None if targets is None else dict.fromkeys(targets)


def _known_targets(hass: HomeAssistant, steps: Iterable[Any]) -> list[str]:
    """Return what the steps may change, a program they run included.

    A script run by its own service or `script.turn_on` and an automation run by
    `automation.trigger` are what those steps change. A step of an entity service whose
    targets cannot be read (a template, `all`) may change any entity of its service's domain
    (any entity at all for `homeassistant.turn_on` and its kin), a scene step written as a
    template any scene. Other steps of unknown effect are skipped (see _signals).
    """
    found: list[str] = []
    for step, kind in _enabled_steps(steps):
        if (nested := _nested_steps(step, kind)) is not None:
            targets: list[str] | None = _known_targets(hass, nested)
        elif kind == cv.SCRIPT_ACTION_CALL_SERVICE and _runs_program(step):
            targets = _service_targets(hass, step, programs=True)
        else:
            targets = _step_targets(hass, step)
        if targets is None:
            targets = _any_target(hass, step, kind)
        found.extend(target for target in targets if target not in found)
    return found


def _any_target(hass: HomeAssistant, step: Mapping[str, Any], kind: str) -> list[str]:
    """Return every entity a step whose targets cannot be read may change; [] for others.

    Only a step that would be followed with its targets written out: an entity service (not
    one that enables or stops a program), a program run, core's `homeassistant.turn_on` and
    its kin, a scene.
    """
    if kind == cv.SCRIPT_ACTION_ACTIVATE_SCENE:
        scene = _plain_text(step.get("scene"))
        return [] if scene is not None else hass.states.async_entity_ids("scene")
    if kind != cv.SCRIPT_ACTION_CALL_SERVICE or not _unreadable_target(step):
        return []
    action = _plain_text(step.get("action", step.get("service"))) or ""
    if not _is_service(action):
        return []
    domain, _, service = action.partition(".")
    if domain == CORE_DOMAIN and service in TARGETED_CORE_SERVICES:
        return hass.states.async_entity_ids()
    if _runs_program(step) or (
        domain not in UNKNOWN_EFFECT_DOMAINS and acts_on_its_targets(hass, domain, service)
    ):
        return hass.states.async_entity_ids(domain)
    return []


def _templated_targets(hass: HomeAssistant, action: str) -> list[str] | None:
    """Return what a service step whose target cannot be read (a template) may change.

    An entity service changes only entities its handler was registered for (read from the
    handler, as for `entity_id: all`): "turn the lights that are on warmer" may change any
    light, each judged, not the lock. Core's `homeassistant.turn_on` may change any entity.
    A program run, a service that is no entity service (a shell command) or one that also
    plays on media players its data names: None, unknown.
    """
    if not _is_service(action):
        return None
    domain, _, service = action.partition(".")
    if (
        domain in UNKNOWN_EFFECT_DOMAINS
        or not acts_on_its_targets(hass, domain, service)
        or speaks_on_players(hass, domain, service) is not None
    ):
        return None
    return _every_target(hass, domain, service)


def _unreadable_target(step: Mapping[str, Any]) -> bool:
    """Whether a service step's target is written so that it cannot be read (a template, all)."""
    parts = (step.get("data") or {}, step.get("data_template") or {}, step.get("target") or {})
    if not all(isinstance(part, Mapping) for part in parts):
        return True
    values = [value for part in parts for key, value in part.items() if key in TARGET_KEYS]
    if ATTR_ENTITY_ID in step:
        values.append(step[ATTR_ENTITY_ID])
    return any((ids := _plain_ids(value)) is None or ENTITY_MATCH_ALL in ids for value in values)


def _signals(hass: HomeAssistant, steps: Iterable[Any]) -> set[tuple[str, str]]:
    """Return what the steps send that a trigger may hear (AutomationTrigger.heard).

    An `event` step its event (one that cannot be read: any), `conversation.process` a sentence
    and `mqtt.publish` a message (any of them: their text decides which trigger hears it). A
    service that is no entity service (a Python script, a shell or REST command, another
    integration's) or one written as a template may send anything: an event, a request to a
    webhook, a message; what a script or automation it runs sends is that program's own.
    """
    found: set[tuple[str, str]] = set()
    for step, kind in _enabled_steps(steps):
        if (nested := _nested_steps(step, kind)) is not None:
            found |= _signals(hass, nested)
        elif kind == cv.SCRIPT_ACTION_FIRE_EVENT:
            found.add((EVENT_SIGNAL, _plain_text(step.get("event")) or ANY_SIGNAL))
        elif kind == cv.SCRIPT_ACTION_CALL_SERVICE:
            # A template whose every outcome is written out sends what each of them sends.
            for action in _outcomes(step.get("action", step.get("service"))) or [""]:
                if (platform := _SIGNAL_SERVICES.get(action)) is not None:
                    found.add((platform, ANY_SIGNAL))
                elif (event := _record_event(hass, action)) is not None:
                    found.add((EVENT_SIGNAL, event))  # a logbook entry, a log line
                elif _is_message(hass, action):
                    # a notify entity's message too (an MQTT one's); what it says when known
                    texts = _texts_of_message(step)  # `data`, `data_template`, its target …
                    found.add(MESSAGE_SIGNAL if texts is None else (MESSAGE, "\n".join(texts)))
                elif _may_send_anything(hass, action):
                    found.add(ANY_KIND_OF_SIGNAL)
    return found


def _may_answer_a_question(hass: HomeAssistant, steps: Iterable[Any]) -> bool:
    """Whether a step says something to one of this integration's agents in a conversation.

    `conversation.process` with a conversation id (also a template) and an agent that is
    one of ours by its registry entry, or a template that may name one; an action written
    as a template may be `conversation.process`, and data (or a target, which Home Assistant
    merges into the data) written whole as a template may hold any conversation id and
    agent. A step runs in the context of whoever ran its program, so the agent reads it as
    that person's words: a "yes" to the question it asked them. Without a conversation id
    it starts a new one, where no question waits; Home Assistant's own agent (no agent id)
    holds none.
    """
    for step, kind in _enabled_steps(steps):
        if (nested := _nested_steps(step, kind)) is not None:
            if _may_answer_a_question(hass, nested):
                return True
            continue
        if kind != cv.SCRIPT_ACTION_CALL_SERVICE:
            continue
        actions = _outcomes(step.get("action", step.get("service")))
        if actions is not None and _CONVERSATION_PROCESS not in actions:
            continue
        # Home Assistant merges a step's target into its data: a target written as a
        # template may name the conversation and the agent too.
        if (data := _call_data(step)) is None:
            return True  # written whole as a template: any conversation, any agent
        if data.get(_CONVERSATION_ID) is None or (agent := data.get(_AGENT_ID)) is None:
            continue
        agent_id = _plain_text(agent)
        entry = er.async_get(hass).async_get(agent_id) if agent_id else None
        if agent_id is None or (entry is not None and entry.platform == DOMAIN):
            return True
    return False


_CONVERSATION_PROCESS: Final = "conversation.process"
_CONVERSATION_ID: Final = "conversation_id"
_AGENT_ID: Final = "agent_id"


def _published_topics(steps: Iterable[Any]) -> set[str]:
    """Return the topics the steps' `mqtt.publish` calls publish on (ANY_SIGNAL: a template).

    Only where the topic is written out in its `data`; what a script it runs publishes is
    that program's own.
    """
    found: set[str] = set()
    for step, kind in _enabled_steps(steps):
        if (nested := _nested_steps(step, kind)) is not None:
            found |= _published_topics(nested)
        elif (
            kind == cv.SCRIPT_ACTION_CALL_SERVICE
            and _SIGNAL_SERVICES.get(_plain_text(step.get("action", step.get("service"))) or "")
            == MQTT
        ):
            parts = (step.get("data") or {}, step.get("data_template") or {})
            topic = (
                {**parts[0], **parts[1]}.get("topic")
                if all(isinstance(part, Mapping) for part in parts)
                else None  # data written whole as a template: any topic
            )
            found.add(_plain_text(topic) or ANY_SIGNAL)
    return found


def _texts_of_message(data: Any) -> list[str] | None:
    """Return every text a message step holds (its message, title, actions' ids …).

    None when one is a template: what it says is known only when it runs. A message without
    text says one empty line.
    """
    parts: list[Any]
    if isinstance(data, Mapping):
        parts = [part for item in data.items() for part in item]
    elif isinstance(data, list):
        parts = data
    elif isinstance(data, Template):
        text = _plain_text(data)
        return None if text is None else [text]
    elif isinstance(data, str):
        return None if is_template_string(data) else [data]
    else:
        return [] if data is None else [str(data)]
    found: list[str] = []
    for part in parts:
        texts = _texts_of_message(part)
        if texts is None:
            return None
        found.extend(texts)
    return found or [""]


def _may_send_anything(hass: HomeAssistant, action: str) -> bool:
    """Whether a service step may send anything: its effect is unknown.

    action: the step's action as plain text (empty for a template). No entity service, nor a
    script or automation it runs: those are followed as programs.
    """
    if not _is_service(action):
        return True
    domain, _, service = action.partition(".")
    return (
        domain not in UNKNOWN_EFFECT_DOMAINS
        and not acts_on_its_targets(hass, domain, service)
        and speaks_on_players(hass, domain, service) is None
        and not creates_scenes(hass, domain, service)
        and not applies_states(hass, domain, service)
    )


def _runs_program(step: Mapping[str, Any]) -> bool:
    """Whether a service step runs a script or an automation (not one that stops them).

    Switching an automation on (`automation.turn_on`, `toggle`) runs its actions whenever it
    is set off from then on: judged as running it.
    """
    action = _plain_text(step.get("action", step.get("service")))
    domain, _, service = (action or "").partition(".")
    if domain == SCRIPT_DOMAIN:
        return service not in {"turn_off", "reload"}
    return domain == AUTOMATION_DOMAIN and service in AUTOMATION_RUNS


def _program_states(action: str | None) -> frozenset[str] | None:
    """Return the states a step that runs a program leaves it in; None: any.

    A script's run goes on and back off, a triggered automation keeps its state, one switched
    on is on; a toggle may switch an automation off, or stop a script's run.
    """
    domain, _, service = (action or "").partition(".")
    if service == "toggle":
        return None
    if domain == AUTOMATION_DOMAIN and service == SERVICE_TURN_ON:
        return frozenset({STATE_ON})
    return frozenset({STATE_ON, STATE_OFF})


def _foreign_script_service(hass: HomeAssistant, action: str | None) -> bool:
    """Whether `script.<name>` is a service that no script of ours answers (compat.py)."""
    domain, _, service = (action or "").partition(".")
    return (
        domain == SCRIPT_DOMAIN
        and service not in SCRIPT_ENTITY_SERVICES
        and script_answering(hass, service) is None
    )


def _passes_script_data(step: Mapping[str, Any]) -> bool:
    """Whether a step that runs a script or an automation passes it data that may steer it.

    A script's fields and `script.turn_on`'s `variables` (its `data`); a script's own service
    also hands it its target (Home Assistant puts a call's target among its data: the
    script's `entity_id`, `area_id` …); `automation.trigger`'s `variables` (anything in its
    data but `skip_condition`).
    """
    action = _plain_text(step.get("action", step.get("service")))
    domain, _, service = (action or "").partition(".")
    parts = [step.get(key) for key in ("data", "data_template")]
    if domain == AUTOMATION_DOMAIN and service == AUTOMATION_TRIGGER:
        return any(
            not isinstance(part, Mapping) or set(part) - {_SKIP_CONDITION}
            for part in parts
            if part is not None
        )
    if domain != SCRIPT_DOMAIN:
        return False
    if service not in SCRIPT_ENTITY_SERVICES:
        parts.extend([step.get("target"), step.get(ATTR_ENTITY_ID)])
    return any(part not in (None, {}) for part in parts)


def _passes_data_to_scripts(step: Mapping[str, Any], targets: Iterable[str]) -> bool:
    """Whether core's `homeassistant.turn_on` (or kin) passes data on to a script it runs.

    Home Assistant hands the call's data, but its target, to each domain's own service:
    `script.turn_on`'s `variables`, which may steer the script.
    """
    if not any(split_entity_id(target)[0] == SCRIPT_DOMAIN for target in targets):
        return False
    parts = [step.get(key) for key in ("data", "data_template")]
    return any(
        not isinstance(part, Mapping) or set(part) - TARGET_KEYS
        for part in parts
        if part is not None
    )


def _automations_set_off(hass: HomeAssistant, scene: str) -> list[str]:
    """Return the automations a scene of Home Assistant's sets off (switches off).

    Also those in a group it sets off (an old-style group turns its members off).
    """
    found: list[str] = []
    pending = [m for m, value in (scene_states(hass, scene) or {}).items() if value != STATE_ON]
    seen: set[str] = set()
    while pending:
        member = pending.pop()
        if member in seen or len(seen) > MAX_SCENE_MEMBERS:
            continue
        seen.add(member)
        if split_entity_id(member)[0] == AUTOMATION_DOMAIN:
            found.append(member)
        elif (state := hass.states.get(member)) is not None:
            pending.extend(_group_members(state))
    return found


def _may_stop_home_assistant(hass: HomeAssistant, steps: Iterable[Any]) -> bool:
    """Whether the steps may restart or stop Home Assistant (or fire its stop event).

    A step of unknown effect (`homeassistant.restart`, a shell command) may; a notification
    may not (MESSAGE_SIGNAL).
    """
    signals = _signals(hass, steps)
    return bool(
        signals
        & {
            ANY_KIND_OF_SIGNAL,
            (EVENT_SIGNAL, ANY_SIGNAL),
            (EVENT_SIGNAL, LIFECYCLE_EVENTS[SHUTDOWN]),
        }
    )


def _stopped_programs(hass: HomeAssistant, steps: Iterable[Any]) -> list[str]:
    """Return the scripts and automations the steps stop or switch off, nested ones included.

    `script.turn_off`, `automation.turn_off` and core's `homeassistant.turn_off` on them, and
    a service written as a template on its targets; a target that cannot be read (a
    template, `all`) may be any of them.
    """
    programs = (SCRIPT_DOMAIN, AUTOMATION_DOMAIN)
    found: list[str] = []
    for step, kind in _enabled_steps(steps):
        targets: list[str] | None
        if (nested := _nested_steps(step, kind)) is not None:
            targets = _stopped_programs(hass, nested)
        elif kind != cv.SCRIPT_ACTION_CALL_SERVICE:
            continue
        else:
            action = _plain_text(step.get("action", step.get("service")))
            if action is not None and action not in _STOPPING_SERVICES:
                continue
            # A service written as a template may be any of them: on its targets.
            as_written = step if action is not None else {**step, "action": CORE_TURN_OFF}
            targets = _service_targets(hass, as_written, stops=True)
            if targets is None:
                domain = (action or CORE_DOMAIN).partition(".")[0]
                kinds = programs if domain == CORE_DOMAIN else (domain,)
                targets = [e for each in kinds for e in hass.states.async_entity_ids(each)]
        found.extend(
            target
            for target in targets
            if split_entity_id(target)[0] in programs and target not in found
        )
    return found


def _message_actions(hass: HomeAssistant, steps: Iterable[Any]) -> frozenset[str]:
    """Return the message services (`notify.phone`) the steps call, nested ones included."""
    found: set[str] = set()
    for step, kind in _enabled_steps(steps):
        if (nested := _nested_steps(step, kind)) is not None:
            found |= _message_actions(hass, nested)
        elif kind == cv.SCRIPT_ACTION_CALL_SERVICE:
            action = _plain_text(step.get("action", step.get("service"))) or ""
            if _is_message(hass, action) or _record_event(hass, action) is not None:
                found.add(action)
    return frozenset(found)


def _is_message(hass: HomeAssistant, action: str) -> bool:
    """Whether a step's action (plain text) only sends a message (a notification).

    A phone's notification, one in the UI: told by the service's handler, not its domain.
    """
    return _is_service(action) and sends_only_a_message(hass, *action.split(".", 1))


def _scene_creations(hass: HomeAssistant, steps: Iterable[Any]) -> list[Mapping[str, Any]]:
    """Return the `scene.create` steps among these steps and the steps nested in them.

    Also those switched off in the editor: a template may switch them on.
    """
    found: list[Mapping[str, Any]] = []
    for step, kind in _readable_steps(steps):
        if (nested := _nested_steps(step, kind)) is not None:
            found.extend(_scene_creations(hass, nested))
        elif kind == cv.SCRIPT_ACTION_CALL_SERVICE:
            action = _plain_text(step.get("action", step.get("service"))) or ""
            if _is_service(action) and creates_scenes(hass, *action.split(".", 1)):
                found.append(step)
    return found


def _call_data(step: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """Return the data a service step's call gets; None when a template may hold any.

    As Home Assistant prepares the call: `data`, then the older `data_template`, then the
    target over both (a target written as a template may set `scene_id` too).
    """
    parts = [step.get(key) or {} for key in ("data", "data_template", "target")]
    if not all(isinstance(part, Mapping) for part in parts):
        return None
    return {key: value for part in parts for key, value in part.items()}


def _created_members(step: Mapping[str, Any]) -> list[str] | None:
    """Return the entities a `scene.create` step puts in its scene; None if unreadable.

    Also those a `scene.apply` step sets (it has no snapshot).
    """
    data = _call_data(step)
    if data is None:
        return None
    entities = data.get(_SCENE_ENTITIES) or {}
    snapshot = _plain_ids(data.get(_SCENE_SNAPSHOT) or [])
    if not isinstance(entities, Mapping) or snapshot is None:
        return None
    named = [_plain_text(key) for key in entities]
    if any(key is None for key in named):
        return None
    return list(dict.fromkeys([*(key for key in named if key is not None), *snapshot]))


def _record_event(hass: HomeAssistant, action: str) -> str | None:
    """Return the event a step that only writes a record fires (`logbook.log`); else None.

    Told by the service's handler (compat.record_event): the record changes no entity.
    """
    return record_event(hass, *action.split(".", 1)) if _is_service(action) else None


def _changes_no_entity(hass: HomeAssistant, action: str) -> bool:
    """Whether a step only sends a message to no entity or only writes a record.

    What it sets off is what hears it: the caller judges that (_signals).
    """
    return _only_sends(hass, action) or _record_event(hass, action) is not None


def _only_sends(hass: HomeAssistant, action: str) -> bool:
    """Whether a service step only sends a message to no entity (a phone's notification).

    A message to a notify entity changes that entity (its last message): a target as any.
    """
    return _is_message(hass, action) and not acts_on_its_targets(hass, *action.split(".", 1))


def _nested_steps(step: Mapping[str, Any], kind: str) -> list[Any] | None:
    """Return the steps inside a branch, repeat, parallel or sequence step; None otherwise."""
    nested: list[Any] = []
    if kind == cv.SCRIPT_ACTION_CHOOSE:
        options = step.get("choose")
        if not isinstance(options, list):
            return None
        nested = [option.get("sequence") for option in options if isinstance(option, Mapping)]
        if len(nested) != len(options):
            return None
        nested.append(step.get("default") or [])
    elif kind == cv.SCRIPT_ACTION_IF:
        nested = [step.get("then"), step.get("else") or []]
    elif kind == cv.SCRIPT_ACTION_REPEAT:
        repeat = step.get("repeat")
        nested = [repeat.get("sequence") if isinstance(repeat, Mapping) else None]
    elif kind == cv.SCRIPT_ACTION_PARALLEL:
        nested = [step.get("parallel")]
    elif kind == cv.SCRIPT_ACTION_SEQUENCE:
        nested = [step.get("sequence")]
    else:
        return None
    if not all(isinstance(sequence, list) for sequence in nested):
        return None
    return [inner for sequence in nested for inner in sequence]


def named_targets(
    hass: HomeAssistant, steps: Iterable[Any], scripts: frozenset[str] = frozenset()
) -> list[str]:
    """Return every entity the steps name as what they change, skipping steps that name none.

    Unlike action_targets this is no judgement of what the steps do: it finds the relay a
    template lock switches, also beside a step of unknown effect, in a device action (the
    entity it names, by registry id) and in the steps of a script it runs (`script.turn_on`,
    the script's own service, `homeassistant.turn_on`), also where its target is a template
    (the ids written in it); scripts: those followed already. Each script's steps are read
    once, however many steps run it: scripts that each run the next two would otherwise be
    read once for every way through them (twice as often with each more).
    """
    followed = set(scripts)
    sequences: list[Iterable[Any]] = [steps]
    found: list[str] = []
    for sequence in sequences:  # the list grows: the steps of the scripts they run
        for target in _named_in_steps(hass, sequence):
            if target in found:
                continue
            found.append(target)
            if target.startswith(SCRIPT_PREFIX) and target not in followed:
                followed.add(target)
                if script := script_sequence(hass, target):
                    sequences.append(script)
    return found


def _named_in_steps(hass: HomeAssistant, steps: Iterable[Any]) -> list[str]:
    """Return what the steps themselves name as what they change (named_targets), in order."""
    found: list[str] = []
    for step, kind in _readable_steps(steps):
        named: list[str] | None = None
        if kind == cv.SCRIPT_ACTION_CALL_SERVICE:
            named = _service_targets(hass, step, programs=True)
            if named is None:
                named = _written_targets(hass, step)
        elif kind == cv.SCRIPT_ACTION_DEVICE_AUTOMATION:
            entity = _plain_text(step.get(ATTR_ENTITY_ID))
            resolved = entity and er.async_resolve_entity_id(er.async_get(hass), entity)
            named = [resolved] if resolved else None
        elif kind == cv.SCRIPT_ACTION_ACTIVATE_SCENE:
            scene = _plain_text(step.get("scene"))
            named = [scene] if scene is not None else None
        elif (nested := _nested_steps(step, kind)) is not None:
            named = _named_in_steps(hass, nested)
        # A scene it activates switches the entities the scene sets ("Door open": the relay).
        for scene in [n for n in named or () if n.startswith("scene.")]:
            named = [*(named or ()), *(scene_states(hass, scene) or {})]
        found.extend(target for target in named or () if target not in found)
    return found


def _written_targets(hass: HomeAssistant, step: Mapping[str, Any]) -> list[str]:
    """Return the entities written in a service step's targets that are templates.

    "{{ 'switch.door_relay' if ... else 'switch.spare_relay' }}" may switch either relay.
    """
    parts = (step.get("data"), step.get("data_template"), step.get("target"))
    values = [
        value
        for part in parts
        if isinstance(part, Mapping)
        for key, value in part.items()
        if key in TARGET_KEYS
    ]
    values.extend(part for part in (*parts, step.get(ATTR_ENTITY_ID)) if isinstance(part, Template))
    registry = er.async_get(hass)
    found: list[str] = []
    for value in values:
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, Template) or item.is_static:
                continue
            for word in _ID_IN_TEXT.findall(item.template):
                entity_id = er.async_resolve_entity_id(registry, word)
                if entity_id is not None and entity_id not in found:
                    found.append(entity_id)
    return found


def _service_targets(
    hass: HomeAssistant, step: Mapping[str, Any], *, programs: bool = False, stops: bool = False
) -> list[str] | None:
    """Return the entities a service step targets; None when unknown.

    programs: a script's own service (`script.garage_pulse`) names that script, and
    `script.turn_on` (and `automation.trigger`) its targets; otherwise a script or automation
    run as a service is a program of unknown effect, and so is a service that is no entity
    service (a shell or REST command), whatever its data names. stops: the step stops or
    switches off programs (`script.turn_off`, `automation.turn_off`): their targets.
    """
    action = _plain_text(step.get("action", step.get("service")))
    if action is None or not _is_service(action):
        return None
    domain, _, service = action.partition(".")
    if domain in UNKNOWN_EFFECT_DOMAINS and not stops:
        if not programs or (domain != SCRIPT_DOMAIN and service not in AUTOMATION_RUNS):
            return None
        if domain == SCRIPT_DOMAIN and service not in SCRIPT_ENTITY_SERVICES:
            # Registered under the script's key, which its entity id need not match (renamed
            # in the UI): the script whose handler answers it; else the name (of unknown effect).
            return [script_answering(hass, service) or f"{SCRIPT_PREFIX}{service}"]
    elif (
        not (programs or stops)
        and not acts_on_its_targets(hass, domain, service)
        and speaks_on_players(hass, domain, service) is None
    ):
        return None  # a shell or REST command: the ids in its data are its own variables
    # As Home Assistant prepares the call: `data` then the older `data_template`, then the
    # target, with the older top-level `entity_id` in it, over both.
    data, data_template = step.get("data") or {}, step.get("data_template") or {}
    target = step.get("target") or {}
    if not all(isinstance(part, Mapping) for part in (data, data_template, target)):
        return None  # a template that may name any target
    target = dict(target)
    if ATTR_ENTITY_ID in step:
        target[ATTR_ENTITY_ID] = step[ATTR_ENTITY_ID]
    plain: dict[str, list[str]] = {}
    for key, value in {**data, **data_template, **target}.items():
        if key not in TARGET_KEYS:
            continue
        ids = _plain_ids(value)
        if ids is not None and ENTITY_MATCH_ALL in ids and key == ATTR_ENTITY_ID:
            # "Turn off all lights": every entity the service's handler acts on.
            ids = _every_target(hass, domain, service)
        if ids is None or ENTITY_MATCH_ALL in ids:
            return None
        if key == ATTR_ENTITY_ID:
            resolved = [er.async_resolve_entity_id(er.async_get(hass), i) for i in ids]
            if None in resolved:
                return None
            ids = [i for i in resolved if i is not None]
        if ids := [i for i in ids if i != ENTITY_MATCH_NONE]:
            plain[key] = ids
    if not plain or not target_entities(hass, plain):
        return None  # names nothing there is: what it will name cannot be told
    found = target_entities(hass, plain, (domain, service))
    if speaks_on_players(hass, domain, service) == TTS_PLAYERS:
        # `tts.speak` also plays on the media players its data names: they change too.
        players = _plain_ids({**data, **data_template}.get(TTS_PLAYERS))
        if players is None or ENTITY_MATCH_ALL in players:
            return None
        registry = er.async_get(hass)
        for player in players:
            if (known := er.async_resolve_entity_id(registry, player)) is None:
                return None
            if known not in found:
                found.append(known)
    return found


def _every_target(hass: HomeAssistant, domain: str, service: str) -> list[str] | None:
    """Return what a service aimed at `entity_id: all` changes; None when unknown.

    An entity service: every entity its handler was registered for (read from the handler,
    not the domain: `light.turn_off` all lights, not the lock); core's `homeassistant.turn_off`
    and its kin: every entity.
    """
    if domain == CORE_DOMAIN and service in TARGETED_CORE_SERVICES:
        return (
            hass.states.async_entity_ids() if acts_on_its_targets(hass, domain, service) else None
        )
    entities = service_entities(hass, domain, service)
    return None if entities is None else sorted(entities)


def _is_service(action: str) -> bool:
    try:
        cv.service(action)
    except probatio.Invalid:
        return False
    return True


def _plain_text(value: Any) -> str | None:
    """Return the text of a value that is no template (a template without code: its text)."""
    if isinstance(value, Template):
        return value.template if value.is_static else None
    return value if isinstance(value, str) else None


def _outcomes(value: Any) -> list[str] | None:
    """Return every service a step's action may be; None when a template's cannot be told.

    Plain text is itself. A template is read from its text only where that is certain: text
    and string constants chosen between by `if` blocks and `… if … else …` ("{{ 'light.turn_on'
    if is_state('sun.sun', 'below_horizon') else 'light.turn_off' }}"), whatever their
    conditions read; anything else (a variable, a filter, a `set`) may yield any service. In
    lower case and stripped, as Home Assistant checks the rendered service.
    """
    if (text := _plain_text(value)) is not None:
        return [text]
    if not isinstance(value, Template):
        return None
    try:
        body = _TEMPLATES.parse(value.template).body
    except jinja2.TemplateError:
        return None
    found = _texts_of_nodes(body)
    return None if found is None else sorted({text.strip().lower() for text in found})


_TEMPLATES: Final = jinja2.Environment(autoescape=False)  # noqa: S701 (parsed, never rendered)
_MOST_OUTCOMES: Final = 16


def _texts_of_nodes(body: Sequence[jinja2.nodes.Node]) -> set[str] | None:
    """Every text these template nodes may render, one after another; None: not certain."""
    nodes = jinja2.nodes
    found = {""}
    for node in body:
        texts: set[str] | None
        if isinstance(node, nodes.Output):
            texts = _texts_of_nodes(node.nodes)
        elif isinstance(node, nodes.TemplateData):
            texts = {node.data}
        elif isinstance(node, nodes.Const) and isinstance(node.value, str):
            texts = {node.value}
        elif isinstance(node, nodes.CondExpr) and node.expr2 is not None:
            texts = _texts_of_either([node.expr1], [node.expr2])
        elif isinstance(node, nodes.If):
            branches = [node.body, *(branch.body for branch in node.elif_), node.else_]
            texts = _texts_of_either(*branches)
        else:
            return None
        if texts is None or len(found) * len(texts) > _MOST_OUTCOMES:
            return None
        found = {before + text for before in found for text in texts}
    return found


def _texts_of_either(*branches: Sequence[jinja2.nodes.Node]) -> set[str] | None:
    found: set[str] = set()
    for branch in branches:
        if (texts := _texts_of_nodes(branch)) is None:
            return None
        found |= texts
    return found


def _plain_ids(value: Any) -> list[str] | None:
    values = value if isinstance(value, list) else [value]
    texts = [_plain_text(item) for item in values]
    if any(text is None for text in texts):
        return None
    return [
        part.strip()
        for text in texts
        if text is not None
        for part in text.split(",")
        if part.strip()
    ]


def sensitive_targets_of_action(
    hass: HomeAssistant, policy: SafetyPolicy, action: PlannedAction
) -> list[str]:
    """Sensitive entities a planned call of our own tools would change."""
    if action.read_only:
        return []
    domain, service = action.domain or "", action.service or ""
    return policy.sensitive_entities(
        hass,
        action.entity_ids,
        entity_events_of_call(domain, service),
        stopped=entity_events_stopped_by_call(domain, service),
        halts=service in HALTING_SERVICES,
        installs=not only_skips_update(hass, domain, service),
        becomes=states_of_call(hass, action),
        said=message_of_call(action),
    )


def message_of_call(action: PlannedAction) -> str | None:
    """Return what a notify entity's message says, its texts one a line; None: not known.

    Our notify tool's send_message: the call as a program's message step writes it (its
    action, target, message and title), read as that step's texts are (_texts_of_message):
    an event its integration fires may carry the target's id too. Any other call: None.
    """
    if (action.domain, action.service) != (NOTIFY_DOMAIN, SEND_MESSAGE):
        return None
    step = {
        "action": f"{NOTIFY_DOMAIN}.{SEND_MESSAGE}",
        "target": {ATTR_ENTITY_ID: list(action.entity_ids)},
        "data": dict(action.data),
    }
    texts = _texts_of_message(step)
    return None if texts is None else "\n".join(texts)


def states_of_call(hass: HomeAssistant, call: Call) -> dict[str, frozenset[str]]:
    """Return the states a call may leave each target in, where they can be told."""
    return {
        entity_id: states
        for entity_id, (domain, service, data) in call.services().items()
        if (states := states_after(hass, domain, service, data, entity_id)) is not None
    }


def states_after(
    hass: HomeAssistant, domain: str, service: str, data: Mapping[str, Any], entity_id: str
) -> frozenset[str] | None:
    """Return the states a service's call may leave this target in; None when it may leave any.

    Only where the registered handler is an entity service that calls the target's own
    method (told by the handler, not the name): a target of another domain (a group), or one
    the handler was not registered for, may do anything; so may what Switch as X shows of a
    switch (its light or cover follows the switch, which may be a momentary relay).
    """
    if split_entity_id(entity_id)[0] != domain or wrapped_entity(hass, entity_id) is not None:
        return None
    entities = service_entities(hass, domain, service)
    if entities is None or entity_id not in entities:
        return None
    if (skipped := update_skip_states(hass, domain, service)) is not None:
        # A skip leaves the update off (offered again: on or off), so a step that installs
        # it (an automation that installs what is offered) is another change of it, judged
        # again as the install it is (_revisited), not as the skip.
        return skipped
    if keeps_player_state(hass, domain, service) and not entity_action_sequences(hass, entity_id):
        # A media player's volume: it stays as it is (one with commands of its own: any).
        now = hass.states.get(entity_id)
        return None if now is None else frozenset({now.state})
    # A light's profile may dim its turn-on to nothing (light_profiles.csv).
    profiles = (
        light_profile_brightness(hass, entity_id, data)
        if (domain, service) == (LIGHT_DOMAIN, SERVICE_TURN_ON)
        else []
    )
    return call_states(domain, service, data, profiles)


def current_entity_ids(hass: HomeAssistant, refs: Iterable[str]) -> list[str]:
    """Return the entity ids stored references have now (an entity removed since: left out)."""
    registry = er.async_get(hass)
    found: list[str] = []
    for ref in refs:
        entity_id = er.async_resolve_entity_id(registry, ref)
        if entity_id is not None and entity_id not in found:
            found.append(entity_id)
    return found
