"""Home Assistant APIs whose shape differs between releases, and the private ones we read.

Supported: 2026.10 and 2026.11 (README, hacs.json). Each difference, and every access to a
private Home Assistant internal, is here, once, so the rest of the code calls one function
with one signature and a release that changes an internal breaks one tested place.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from datetime import datetime
from datetime import timedelta
from functools import partial
import inspect
import logging
import re
import sys
from typing import Any
from typing import Final
import weakref

from custom_components.local_agent.automation_runs import OneTrigger
from custom_components.local_agent.automation_runs import all_hold
from custom_components.local_agent.automation_runs import hides_run_names
from custom_components.local_agent.automation_runs import runs_of
from custom_components.local_agent.automation_runs import set_off_only_by
from custom_components.local_agent.automation_runs import steps_taken
from custom_components.local_agent.const import EVENT_ACTION
from homeassistant import loader
from homeassistant import requirements
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.const import EVENT_CALL_SERVICE
from homeassistant.const import EVENT_HOMEASSISTANT_STARTED
from homeassistant.const import EVENT_HOMEASSISTANT_STOP
from homeassistant.const import EVENT_LOGBOOK_ENTRY
from homeassistant.const import EVENT_STATE_CHANGED
from homeassistant.const import MATCH_ALL
from homeassistant.const import SERVICE_TURN_OFF
from homeassistant.const import SERVICE_TURN_ON
from homeassistant.const import STATE_OFF
from homeassistant.const import STATE_ON
from homeassistant.core import CALLBACK_TYPE
from homeassistant.core import DOMAIN as CORE_DOMAIN
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.core import Service
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import chat_session
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_platform
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import llm
from homeassistant.helpers import service as service_helper
from homeassistant.helpers import target as target_helper
from homeassistant.helpers.entity_component import DATA_INSTANCES
from homeassistant.helpers.script import SCRIPT_MODE_RESTART
from homeassistant.helpers.script import Script
from homeassistant.helpers.storage import Store
from homeassistant.helpers.template import Template
from homeassistant.helpers.template.render_info import RenderInfo
from homeassistant.helpers.trigger.entity_trigger import EntityTargetStateTriggerBase
from homeassistant.helpers.trigger.entity_trigger import EntityTransitionTriggerBase
from homeassistant.util import dt as dt_util
from homeassistant.util.hass_dict import HassKey

# Events that a call fires, whatever it calls: the call and the state changes it makes; our
# audit record of it; a program it starts (written out: the bus's public names).
EVENTS_OF_A_CALL: Final = frozenset(
    {
        EVENT_CALL_SERVICE,
        EVENT_STATE_CHANGED,
        EVENT_ACTION,
        "automation_triggered",
        "script_started",
    }
)
# The device triggers of toggle entities that are state triggers on the entity: the domains
# whose built-in device triggers are toggle_entity's, and the state each type waits for.
TOGGLE_DEVICE_DOMAINS: Final = frozenset({"fan", "humidifier", "light", "remote", "switch"})
TOGGLE_DEVICE_TRIGGERS: Final[Mapping[Any, str]] = {"turned_on": "on", "turned_off": "off"}
# The device triggers of Home Assistant's own entity integrations that it attaches as a state
# trigger on their entity to one state (each domain's device_trigger.async_attach_trigger).
STATE_DEVICE_TRIGGERS: Final[Mapping[str, Mapping[Any, str]]] = {
    **dict.fromkeys(TOGGLE_DEVICE_DOMAINS, TOGGLE_DEVICE_TRIGGERS),
    "cover": {"opened": "open", "closed": "closed", "opening": "opening", "closing": "closing"},
    "media_player": {
        "buffering": "buffering",
        "idle": "idle",
        "turned_off": "off",
        "turned_on": "on",
        "paused": "paused",
        "playing": "playing",
    },
    "lock": {
        state: state
        for state in ("jammed", "opening", "locking", "open", "unlocking", "locked", "unlocked")
    },
    "alarm_control_panel": {
        state: state
        for state in (
            "triggered",
            "disarmed",
            "arming",
            "armed_home",
            "armed_away",
            "armed_night",
            "armed_vacation",
        )
    },
    "vacuum": {"cleaning": "cleaning", "docked": "docked"},
}
# The members whose on and off an old-style group's on and off follow.
ON_OFF_MEMBERS: Final = frozenset({"fan", "input_boolean", "light", "switch"})
# The keys of a trigger that names what it watches for the states it fires for (states_to).
WATCHED_KEYS: Final = frozenset({"entity_id", "device_id", "target"})
# The newer entity triggers that compare a target's state with the states they were made for.
_STATE_TRIGGER_BASES: Final = (EntityTargetStateTriggerBase, EntityTransitionTriggerBase)
# The events a timer fires, naming itself in their data, for each service called on it: at
# once (`timer.finish` fires `timer.finished` now), or when the time it sets is up (a started
# or changed timer finishes later, unless it is stopped first). Written out: the event types
# are the bus's public names, while their constants moved from the timer component's
# __init__ (2026.10) to its const module (2026.11).
TIMER: Final = "timer"
TIMER_SERVICE_EVENTS: Final[Mapping[str, frozenset[str]]] = {
    "start": frozenset({"timer.started", "timer.restarted", "timer.finished"}),
    "pause": frozenset({"timer.paused"}),
    "cancel": frozenset({"timer.cancelled"}),
    "finish": frozenset({"timer.finished"}),
    "change": frozenset({"timer.changed", "timer.finished"}),
}
ENTITY_EVENTS_OF_A_CALL: Final = frozenset().union(*TIMER_SERVICE_EVENTS.values())
# The events an integration fires on the bus when a call changes one of its entities (by the
# integration that made the entity): what an event trigger on them hears of the call.
INTEGRATION_EVENTS_OF_A_CALL: Final[Mapping[str, frozenset[str]]] = {
    "shopping_list": frozenset({"shopping_list_updated"}),
}
# The events a running timer would fire later that the call keeps it from firing: a
# cancelled or paused timer does not finish.
TIMER_SERVICE_STOPS: Final[Mapping[str, frozenset[str]]] = {
    "pause": frozenset({"timer.finished"}),
    "cancel": frozenset({"timer.finished"}),
}
# The device actions of Home Assistant's own entity domains, each one service call on its
# entity: (domain, type) to the service. Any other device action does what its integration
# makes of it (a Z-Wave lock's user code, a ZHA command): of unknown effect.
_TOGGLE_TYPES: Final = ("turn_on", "turn_off", "toggle")
DEVICE_ACTION_SERVICES: Final[Mapping[tuple[str, str], str]] = {
    **{("lock", kind): kind for kind in ("lock", "unlock", "open")},
    ("cover", "open"): "open_cover",
    ("cover", "close"): "close_cover",
    ("cover", "stop"): "stop_cover",
    ("cover", "open_tilt"): "open_cover_tilt",
    ("cover", "close_tilt"): "close_cover_tilt",
    ("cover", "set_position"): "set_cover_position",
    ("cover", "set_tilt_position"): "set_cover_tilt_position",
    **{
        ("alarm_control_panel", kind): f"alarm_{kind}"
        for kind in ("arm_away", "arm_home", "arm_night", "arm_vacation", "disarm", "trigger")
    },
    **{
        (domain, kind): kind
        for domain in ("fan", "light", "remote", "switch")
        for kind in _TOGGLE_TYPES
    },
    **{
        ("light", kind): "turn_on"
        for kind in ("brightness_increase", "brightness_decrease", "flash")
    },
}
TEMPLATE: Final = "template"
CONF_TRIGGERS: Final = "triggers"
CONF_ACTIONS: Final = "actions"
CONF_CONDITIONS: Final = "conditions"
CONF_VARIABLES: Final = "variables"
SWITCH_AS_X: Final = "switch_as_x"
HOMEASSISTANT_SCENE_PLATFORM: Final = "homeassistant_scene"
TARGET_KEYS: Final = frozenset({"entity_id", "device_id", "area_id", "floor_id", "label_id"})
# Triggers on a message a step can send (a sentence to `conversation.process`, an MQTT
# message, a request to a webhook, a persistent notification), heard as (platform,
# ANY_SIGNAL); an event trigger hears ("event", its type).
SIGNAL_TRIGGERS: Final = frozenset({"conversation", "mqtt", "persistent_notification", "webhook"})
EVENT_SIGNAL: Final = "event"
# An MQTT trigger hears ("mqtt", its topic filter) when the topic is written out; a call on an
# MQTT entity sends ("mqtt", topic) for each topic of the entity (mqtt_topics_of_entity).
MQTT: Final = "mqtt"
_AVAILABILITY: Final = "availability"
# The integrations whose entities run a command of their owner's when called (runs_a_command).
COMMAND_PLATFORMS: Final = frozenset({"command_line"})
TAG: Final = "tag"
TAG_SCANNED: Final = "tag_scanned"
ANY_SIGNAL: Final = ""
# What a step of unknown effect may send (a Python script, a shell or REST command): any
# signal of any kind, heard by every trigger that hears one.
ANY_KIND_OF_SIGNAL: Final = (ANY_SIGNAL, ANY_SIGNAL)
# What a notification may send (a phone's, one in the UI, a notify entity's message): any
# signal a message can be (an event, a webhook request, an MQTT message …), but no restart or
# stop of Home Assistant, which only a program of unknown effect may cause.
MESSAGE: Final = "message"
MESSAGE_SIGNAL: Final = (MESSAGE, ANY_SIGNAL)
# What a message must say to set off a trigger that hears it (AutomationTrigger.needs): a
# sentence trigger one of its sentences, an event trigger with event data each of its values,
# an MQTT trigger with a payload that payload.
# A message of known words is (MESSAGE, its texts, one a line): a signal made of it (a request,
# an event, a sentence) carries what it says, not what it does not.
SENTENCE_NEED: Final = "sentence"
VALUES_NEED: Final = "values"
# What a call_service event trigger's data asks of the call: its domain and service, each
# "key=value" (a key it does not name, or names by a template, matches any).
CALL_NEED: Final = "call"
type Need = tuple[str, frozenset[str]]
# hassil's template syntax: a sentence with any of it may match many texts.
_SENTENCE_SYNTAX: Final = frozenset("[](){}<>|")
# Home Assistant's own start and stop: a `homeassistant` trigger on start runs when the
# started event fires (once, after a restart, or when a step fires it), one on shutdown
# when Home Assistant stops (a restart or stop service: of no entity, so of unknown effect).
LIFECYCLE_EVENTS: Final[Mapping[str, str]] = {
    "start": str(EVENT_HOMEASSISTANT_STARTED),
    "shutdown": str(EVENT_HOMEASSISTANT_STOP),
}


def pip_install_kwargs(config_dir: str) -> dict[str, Any]:
    """Return Home Assistant's keyword arguments for ``install_package`` (constraints, target).

    2026.10: ``pip_kwargs(config_dir)`` (adds a ``<config>/deps`` target outside a venv and
    Docker); 2026.11 dropped the argument and the deps folder: ``pip_kwargs()``.
    """
    pip_kwargs: Callable[..., dict[str, Any]] = requirements.pip_kwargs
    if inspect.signature(pip_kwargs).parameters:
        return dict(pip_kwargs(config_dir))
    return dict(pip_kwargs())


def async_get_chat_session(
    hass: HomeAssistant, conversation_id: str | None, context: Context | None
) -> AbstractContextManager[chat_session.ChatSession]:
    """Return Home Assistant's chat session context manager for this conversation.

    2026.11 wants the caller's ``context`` (its user becomes the session's owner; another
    user's context raises Unauthorized; None: no user) and reports calls without it; 2026.10
    takes no context.
    """
    get_session: Callable[..., AbstractContextManager[chat_session.ChatSession]] = (
        chat_session.async_get_chat_session
    )
    if "context" in inspect.signature(get_session).parameters:
        return get_session(hass, conversation_id, context=context)
    return get_session(hass, conversation_id)


def registered_service(hass: HomeAssistant, domain: str, service: str) -> Service | None:
    """Return a registered service with its schema and handler (a private registry view)."""
    return hass.services.async_services_internal().get(domain, {}).get(service)


def service_handler_facts(handler: Service) -> tuple[tuple[int, ...] | None, bool]:
    """Read required features and admin-only from a registered service handler.

    Home Assistant keeps both only in the handler it registers: entity services are
    `partial(entity_service_call, ..., required_features=..., admin_only=...)` and
    admin services are `partial(_async_admin_handler, ...)`.
    """
    target = handler.job.target
    if not isinstance(target, partial):
        return None, False
    if target.func is service_helper._async_admin_handler:
        return None, True
    features = target.keywords.get("required_features")
    admin_only = bool(target.keywords.get("admin_only", False))
    return (tuple(int(f) for f in features) if features else None), admin_only


VACUUM: Final = "vacuum"


def vacuum_mapped_areas(hass: HomeAssistant, entity_id: str) -> tuple[str, ...]:
    """Return the areas a vacuum cleans by clean_area: those its owner mapped to its rooms.

    The vacuum component keeps the mapping in the entity's registry options (its own
    `area_mapping`: an area's id to the vacuum's segments) and cleans only those areas,
    skipping a vacuum that has none of the areas asked. An area since deleted is left out.
    """
    entry = er.async_get(hass).async_get(entity_id)
    options: Any = entry.options.get(VACUUM) if entry is not None else None
    mapping = options.get("area_mapping") if isinstance(options, Mapping) else None
    if not isinstance(mapping, Mapping):
        return ()
    areas = ar.async_get(hass)
    mapped = (area for area, segments in mapping.items() if segments)
    return tuple(sorted(area for area in mapped if areas.async_get_area(area) is not None))


# The services of Home Assistant's own `homeassistant` domain that pass a call on to each of
# its targets' domains (turn_on, ...) or ask the targets to poll (update_entity).
TARGETED_CORE_SERVICES: Final = frozenset({"turn_on", "turn_off", "toggle", "update_entity"})


def acts_on_its_targets(hass: HomeAssistant, domain: str, service: str) -> bool:
    """Whether a registered service changes the entities its target names, and nothing else.

    Entity services do: Home Assistant calls each target's own method (their handler is
    `partial(entity_service_call, ...)`, or its batched form). So do core's
    `homeassistant.turn_on`, `turn_off`, `toggle` and `update_entity`, told by the module their
    handler was written in (its globals, which no other code has), not by a name. Any other
    service (a shell or REST command, a Python script) does what it does: the entity ids in
    its data are its own variables, and it may change anything.
    """
    handler = registered_service(hass, domain, service)
    if handler is None:
        return False
    target = handler.job.target
    if isinstance(target, partial):
        return target.func in (
            service_helper.entity_service_call,
            service_helper.batched_entity_service_call,
        )
    from homeassistant.components import homeassistant as core_services

    return (
        domain == CORE_DOMAIN
        and service in TARGETED_CORE_SERVICES
        and getattr(target, "__globals__", None) is vars(core_services)
    )


# The modules whose services only write a record, with the event the record fires: a
# logbook entry (`logbook.log`), a line in Home Assistant's log (`system_log.write`).
RECORD_EVENTS: Final[Mapping[str, str]] = {
    "homeassistant.components.logbook": str(EVENT_LOGBOOK_ENTRY),
    "homeassistant.components.system_log": "system_log_event",
}
# The module of the older text-to-speech services (`tts.google_translate_say`, `tts.cloud_say`):
# each says its message on the media players its `entity_id` names.
LEGACY_TTS_MODULE: Final = "homeassistant.components.tts.legacy"
TTS_DOMAIN: Final = "tts"
# The module of `scene.create`: Home Assistant's own scene platform.
SCENE_MODULE: Final = "homeassistant.components.homeassistant.scene"
SCENE_CREATOR: Final = "create_service"
SCENE_APPLIER: Final = "apply_service"
TTS_SPEAK: Final = "speak"
TTS_PLAYERS: Final = "media_player_entity_id"


def _handler_module(hass: HomeAssistant, domain: str, service: str) -> str | None:
    """Return the module a registered service's handler was written in; None if unknown.

    Told by the handler's globals, which are that loaded module's own and no other code's: a
    name another integration could give its service, or its function, proves nothing.
    """
    handler = registered_service(hass, domain, service)
    own = None if handler is None else getattr(handler.job.target, "__globals__", None)
    name = own.get("__name__") if isinstance(own, dict) else None
    module = sys.modules.get(name) if isinstance(name, str) else None
    return name if module is not None and vars(module) is own else None


def record_event(hass: HomeAssistant, domain: str, service: str) -> str | None:
    """Return the event a service that only writes a record fires; None for other services.

    `logbook.log` writes a logbook entry and `system_log.write` a log line, told by their
    handlers: they change no entity; the event the record fires is what a trigger may hear.
    """
    module = _handler_module(hass, domain, service)
    return None if module is None else RECORD_EVENTS.get(module)


def creates_scenes(hass: HomeAssistant, domain: str, service: str) -> bool:
    """Whether a service is Home Assistant's `scene.create`: its handler, in that module.

    It makes (or remakes) the scene its `scene_id` names, of the states its `entities` and
    `snapshot_entities` give; it changes no other entity.
    """
    return _scene_handler(hass, domain, service) == SCENE_CREATOR


def applies_states(hass: HomeAssistant, domain: str, service: str) -> bool:
    """Whether a service is Home Assistant's `scene.apply`: its handler, in that module.

    It sets the entities its `entities` names to the states given there, and nothing else.
    """
    return _scene_handler(hass, domain, service) == SCENE_APPLIER


def _scene_handler(hass: HomeAssistant, domain: str, service: str) -> str | None:
    """Return the name of a service's handler written in Home Assistant's scene platform."""
    handler = registered_service(hass, domain, service)
    name = None if handler is None else getattr(handler.job.target, "__name__", None)
    return name if _handler_module(hass, domain, service) == SCENE_MODULE else None


def speaks_on_players(hass: HomeAssistant, domain: str, service: str) -> str | None:
    """Return the data key naming the media players a text-to-speech service plays on.

    `tts.speak` (an entity service of the text-to-speech entities, told by the entities its
    handler was registered with) plays on `media_player_entity_id`; the older say services
    (their handler written in tts's legacy module) on `entity_id`. None for other services.
    """
    if _handler_module(hass, domain, service) == LEGACY_TTS_MODULE:
        return ATTR_ENTITY_ID
    handler = registered_service(hass, domain, service)
    target = None if handler is None else handler.job.target
    component = hass.data.get(DATA_INSTANCES, {}).get(TTS_DOMAIN)
    if (
        isinstance(target, partial)
        and target.func
        in (service_helper.entity_service_call, service_helper.batched_entity_service_call)
        and len(target.args) > 2
        and component is not None
        and target.args[1] is getattr(component, "_entities", None)
        and target.args[2] == f"async_{TTS_SPEAK}"
    ):
        return TTS_PLAYERS
    return None


# Home Assistant's media player services whose MediaPlayerEntity method sets only how the
# player sounds or what it plays next (volume, mute, shuffle, repeat, sound mode), with that
# method: the player's state stays as it is. Play, pause, stop, turn on or off, a source, a
# seek, media to play may change it.
_PLAYER_STATE_KEPT: Final[Mapping[tuple[str, str], str]] = {
    ("media_player", "volume_set"): "async_set_volume_level",
    ("media_player", "volume_up"): "async_volume_up",
    ("media_player", "volume_down"): "async_volume_down",
    ("media_player", "volume_mute"): "async_mute_volume",
    ("media_player", "shuffle_set"): "async_set_shuffle",
    ("media_player", "repeat_set"): "async_set_repeat",
    ("media_player", "select_sound_mode"): "async_select_sound_mode",
}


# The update component's service wrappers that only skip or un-skip the offered version, with
# the states they leave the update in: a skipped version shows it off; offered again, it is on
# while that version is newer than the installed one.
_UPDATE_SKIPS: Final[Mapping[str, frozenset[str]]] = {
    "_async_skip": frozenset({STATE_OFF}),
    "_async_clear_skipped": frozenset({STATE_ON, STATE_OFF}),
}


def keeps_player_state(hass: HomeAssistant, domain: str, service: str) -> bool:
    """Whether a call of the service leaves a media player's state as it is (its volume).

    Told by the registered handler, not the name: the media player component's own entity
    service (on the component's entities) calling that very MediaPlayerEntity method. A
    service of that name another integration registers may do anything.
    """
    method = _PLAYER_STATE_KEPT.get((domain, service))
    calls = _component_entity_service(hass, domain, service)
    return method is not None and calls is not None and calls == method


def only_skips_update(hass: HomeAssistant, domain: str, service: str) -> bool:
    """Whether a call of the service only skips (or un-skips) an update's offered version."""
    return update_skip_states(hass, domain, service) is not None


def update_skip_states(hass: HomeAssistant, domain: str, service: str) -> frozenset[str] | None:
    """Return the states a skip (or un-skip) of an update's offered version leaves it in.

    None when the call is no such skip. Told by the registered handler, not the name: the
    update component's own entity service (on its entities) with its skip or clear-skipped
    wrapper, which calls UpdateEntity's final method that only records the version. Nothing
    is installed, nothing restarts.
    """
    if domain != "update":
        return None
    try:
        from homeassistant.components.update import services as update_services
    except ImportError:  # another Home Assistant: the call may install
        return None
    target = getattr(_component_entity_service(hass, domain, service), "target", None)
    return next(
        (
            states
            for name, states in _UPDATE_SKIPS.items()
            if target is not None and target is getattr(update_services, name, None)
        ),
        None,
    )


def _component_entity_service(hass: HomeAssistant, domain: str, service: str) -> Any:
    """Return what the domain's own entity service calls on its entities; None: another.

    A method name, or a job wrapping a function. The handler must be `entity_service_call`
    on the entities of the component that owns the domain: a service of the same name
    another integration registers is not it.
    """
    handler = registered_service(hass, domain, service)
    target = None if handler is None else handler.job.target
    component = hass.data.get(DATA_INSTANCES, {}).get(domain)
    if (
        isinstance(target, partial)
        and target.func is service_helper.entity_service_call
        and len(target.args) > 2
        and component is not None
        and target.args[1] is getattr(component, "_entities", None)
    ):
        return target.args[2]
    return None


def sends_only_a_message(hass: HomeAssistant, domain: str, service: str) -> bool:
    """Whether a registered service only sends a notification, told by its handler.

    A notify platform's service (a phone's: a method of a BaseNotificationService), notify's
    entity service on its notify entities (`notify.send_message`) and the services of
    notify's and persistent_notification's own modules (their handlers' globals, which no
    other code has). Not the domain a service is registered in: any integration may pick
    `notify` for one that opens the garage.
    """
    handler = registered_service(hass, domain, service)
    if handler is None:
        return False
    from homeassistant.components import persistent_notification
    from homeassistant.components.notify import const as notify_const
    from homeassistant.components.notify import legacy as notify_legacy
    from homeassistant.components.notify import services as notify_services

    target = handler.job.target
    if isinstance(getattr(target, "__self__", None), notify_legacy.BaseNotificationService):
        return True
    if isinstance(target, partial):
        return domain == notify_const.DOMAIN and acts_on_its_targets(hass, domain, service)

    own = getattr(target, "__globals__", None)
    return any(own is vars(module) for module in (persistent_notification, notify_services))


def script_sequence(hass: HomeAssistant, entity_id: str) -> list[Any] | None:
    """Return the validated steps of a script entity; None when it is no script we can read.

    The script component keeps its entities in ``hass.data["script"]`` (its EntityComponent);
    each entity's ``script`` is the helpers.script.Script that runs, blueprints substituted.
    """
    component = hass.data.get("script")
    get_entity = getattr(component, "get_entity", None)
    entity = get_entity(entity_id) if get_entity is not None else None
    sequence = getattr(getattr(entity, "script", None), "sequence", None)
    return list(sequence) if isinstance(sequence, list) else None


def automation_sequence(hass: HomeAssistant, entity_id: str) -> list[Any] | None:
    """Return the validated actions of an automation entity, on or off; None when unread.

    `automation.trigger` runs them whether the automation is on or off. The automation
    component keeps its entities in ``hass.data["automation"]`` (its EntityComponent); each
    entity's ``action_script`` is the helpers.script.Script that runs.
    """
    component = hass.data.get("automation")
    get_entity = getattr(component, "get_entity", None)
    entity = get_entity(entity_id) if get_entity is not None else None
    sequence = getattr(getattr(entity, "action_script", None), "sequence", None)
    return list(sequence) if isinstance(sequence, list) else None


def runs_its_own_script(hass: HomeAssistant, entity_id: str) -> bool:
    """Whether a script entity exists whose steps we read and whose own service runs it.

    The script integration registers `script.<name>` with the entity's own handler (a bound
    method of it); another integration may register a service of that name (with or without a
    script of it), whose code does what it does.
    """
    component = hass.data.get("script")
    get_entity = getattr(component, "get_entity", None)
    entity = get_entity(entity_id) if get_entity is not None else None
    if entity is None or script_sequence(hass, entity_id) is None:
        return False
    handler = registered_service(hass, *entity_id.split(".", 1))
    return handler is not None and getattr(handler.job.target, "__self__", None) is entity


def script_answering(hass: HomeAssistant, service: str) -> str | None:
    """Return the script entity whose own handler answers `script.<service>`; None for none.

    Home Assistant registers a script's service under the script's key (its unique id), which
    its entity id need not match once renamed in the UI; another integration may register a
    service of that name. Told by the registered handler (a bound method of the entity).
    """
    handler = registered_service(hass, "script", service)
    entity = getattr(handler.job.target, "__self__", None) if handler is not None else None
    entity_id = getattr(entity, "entity_id", None)
    get_entity = getattr(hass.data.get("script"), "get_entity", None)
    if not isinstance(entity_id, str) or get_entity is None or get_entity(entity_id) is not entity:
        return None
    return entity_id


def entity_action_sequences(hass: HomeAssistant, entity_id: str) -> list[list[Any]] | None:
    """Return the action sequences an entity runs of its own; None when it runs none we know of.

    Template entities (switches, buttons, lights, covers, ... whose turn on, press or open is
    a user-written action) keep them in the private ``_action_scripts`` of their base class,
    each a helpers.script.Script with its validated ``sequence``; other entities that run
    user-written actions (Wake on LAN's turn-off action, another integration's) hold a Script
    in an attribute of their own. A script whose steps cannot be read comes back as a sequence
    of one unreadable step.
    """
    entity = _entity_object(hass, entity_id)
    if (commands := _universal_commands(entity)) is not None:
        return commands
    scripts = getattr(entity, "_action_scripts", None)
    found = list(scripts.values()) if isinstance(scripts, dict) else []
    found.extend(
        value
        for value in getattr(entity, "__dict__", {}).values()
        if isinstance(value, Script) and value not in found
    )
    if not found:
        return None
    sequences: list[list[Any]] = []
    for script in found:
        sequence = getattr(script, "sequence", None)
        sequences.append(list(sequence) if isinstance(sequence, list) else [None])
    return sequences


def entity_service_steps(hass: HomeAssistant, entity_id: str, service: str) -> list[Any] | None:
    """Return the steps an entity runs of its own for a service; None when it runs none.

    A template entity keeps each action under its name (``turn_on``, ``press``, ``unlock``,
    the service's own name): that one; otherwise all it runs (entity_action_sequences). A
    turn-on with a value runs the action that sets it instead (a light's ``set_effect`` or
    ``set_level``) or after it (a fan's ``set_percentage``): every action but ``turn_off``.
    """
    scripts = getattr(_entity_object(hass, entity_id), "_action_scripts", None)
    if service == SERVICE_TURN_ON and isinstance(scripts, dict) and service in scripts:
        settings = [
            getattr(s, "sequence", None) for n, s in scripts.items() if n != SERVICE_TURN_OFF
        ]
        return [
            step for steps in settings for step in (steps if isinstance(steps, list) else [None])
        ]
    own = scripts.get(service) if isinstance(scripts, dict) else None
    if isinstance(sequence := getattr(own, "sequence", None), list):
        return list(sequence)
    sequences = entity_action_sequences(hass, entity_id)
    return None if sequences is None else [step for steps in sequences for step in steps]


def entity_actions(hass: HomeAssistant, entity_id: str) -> dict[str, list[Any]]:
    """Return a template entity's own actions by name ("unlock": its steps); {} for others."""
    scripts = getattr(_entity_object(hass, entity_id), "_action_scripts", None)
    if not isinstance(scripts, dict):
        return {}
    return {
        name: list(sequence)
        for name, script in scripts.items()
        if isinstance(name, str) and isinstance(sequence := getattr(script, "sequence", None), list)
    }


def device_action_call(hass: HomeAssistant, step: Mapping[str, Any]) -> tuple[str, str] | None:
    """Return the entity and the service (`lock.unlock`) a device action calls; None: unknown.

    Only the device actions of DEVICE_ACTION_SERVICES are known, on an entity of their own
    domain, named by its registry id (as the editor writes it) or its entity id.
    """
    domain, kind, entity = step.get("domain"), step.get("type"), step.get("entity_id")
    if not (isinstance(domain, str) and isinstance(kind, str) and isinstance(entity, str)):
        return None
    service = DEVICE_ACTION_SERVICES.get((domain, kind))
    entity_id = er.async_resolve_entity_id(er.async_get(hass), entity)
    if service is None or entity_id is None or entity_id.partition(".")[0] != domain:
        return None
    return entity_id, service


def entity_object_ref(hass: HomeAssistant, entity_id: str) -> weakref.ref[Any] | None:
    """Return a weak reference to the entity object behind an entity id, if there is one.

    For an entity without a registry entry this is what it is: a reload or another platform
    that takes its id makes a new object, and a dead reference equals no other.
    """
    entity = _entity_object(hass, entity_id)
    try:
        return weakref.ref(entity) if entity is not None else None
    except TypeError:
        return None


def _entity_object(hass: HomeAssistant, entity_id: str) -> Any:
    """Return the entity object behind an entity id (its domain's EntityComponent's)."""
    component = hass.data.get(entity_id.partition(".")[0])
    get_entity = getattr(component, "get_entity", None)
    return get_entity(entity_id) if callable(get_entity) else None


def follows_members_on_off(hass: HomeAssistant, group_id: str) -> bool:
    """Whether a group's state is on or off as its members are (any on, or all with `all`).

    Home Assistant's light, switch and fan groups, and an old-style group of lights,
    switches, fans and input booleans (told by the entity object's very class, not a name):
    a member turned on may turn the group on, never off, and one turned off the reverse. Only
    while the group is on or off: one that is unknown (with `all`, a member has not reported)
    may become either once the member reports (turned on, beside a member that is off).
    """
    from homeassistant.components.group.entity import Group
    from homeassistant.components.group.fan import FanGroup
    from homeassistant.components.group.light import LightGroup
    from homeassistant.components.group.switch import SwitchGroup

    now = hass.states.get(group_id)
    if now is None or now.state not in (STATE_ON, STATE_OFF):
        return False
    entity = _entity_object(hass, group_id)
    if type(entity) in (FanGroup, LightGroup, SwitchGroup):
        return True
    if type(entity) is not Group:
        return False
    members = getattr(entity, "tracking", None)
    return isinstance(members, tuple) and all(
        isinstance(member, str) and member.partition(".")[0] in ON_OFF_MEMBERS for member in members
    )


def _universal_commands(entity: Any) -> list[list[Any]] | None:
    """Return a universal media player's commands, each one step; None for other entities.

    The universal platform runs each configured command (a validated service call, kept in
    the private ``_cmds``) instead of passing the service to its active child.
    """
    from homeassistant.components.universal.media_player import UniversalMediaPlayer

    if not isinstance(entity, UniversalMediaPlayer):
        return None
    commands = getattr(entity, "_cmds", None)
    if not isinstance(commands, Mapping):
        return [[None]]
    return [[command] for command in commands.values()]


def universal_children(hass: HomeAssistant, entity_id: str) -> list[str]:
    """Return the media players a universal media player passes the calls it gets on to.

    Its configured ``children`` (private ``_children``): the active one gets each call that
    no command of its own replaces.
    """
    from homeassistant.components.universal.media_player import UniversalMediaPlayer

    entity = _entity_object(hass, entity_id)
    if not isinstance(entity, UniversalMediaPlayer):
        return []
    children = getattr(entity, "_children", None)
    if not isinstance(children, list):
        return []
    return [child for child in children if isinstance(child, str)]


def connected_devices(hass: HomeAssistant, device_id: str) -> list[str]:
    """Return a device, the devices of the same hardware and those connected through it.

    A child device (Home Assistant 2026.10's sub-device: an ESPHome controller's "Door")
    is part of its parent and its parent of it. A device connected through this one (its
    `via_device` is this: a controller's, a bridge's) is driven through it, and so is one
    connected through that in turn (a relay board on the controller's "Door"); not the other
    way round: a lamp connected through a Homematic IP access point or an Aqara hub, whose
    own entities include the house alarm, is no part of the hub. Siblings are left out.
    """
    registry = dr.async_get(hass)
    found = [device_id]
    children = getattr(dr, "async_entries_for_parent_device", None)
    for current in found:  # the list grows: what is connected through those, in turn
        below = [child.id for child in children(registry, current)] if children else []
        below.extend(other.id for other in registry.devices if other.via_device_id == current)
        found.extend(other for other in below if other not in found)
    parent = getattr(registry.async_get(device_id), "parent_device_id", None)
    if isinstance(parent, str) and parent not in found:
        found.insert(1, parent)
    return found


@dataclass(frozen=True, slots=True)
class AutomationTrigger:
    """An enabled automation: what a change must touch to trigger it, and the actions it runs.

    Its triggers watch the entities in `entity_ids`, every entity of the devices in
    `device_ids` and of the domains in `domains`, or, with `any_entity`, any change at all.
    """

    entity_ids: frozenset[str]
    device_ids: frozenset[str]
    actions: list[Any]
    domains: frozenset[str] = frozenset()
    any_entity: bool = False
    # Events an entity fires of its own (a timer's): (the entity, or any of a domain; event).
    entity_events: frozenset[tuple[str, str]] = frozenset()
    # What it checks each time it runs, every entity named or read in it read (safety/reads.py):
    # its triggers' settings (a threshold), conditions and variables. Its actions are read too.
    checks: tuple[Any, ...] = ()
    # What its triggers hear that a step may send and no entity's change is: (kind, key), an
    # event of a type ("event", type), a sentence or MQTT message (platform, ANY_SIGNAL).
    heard: frozenset[tuple[str, str]] = frozenset()
    # The program's own entity: a run changes its state (an automation's last_triggered and
    # current, a script's on and off), which other automations and templates may watch. None
    # for a template section's actions.
    entity_id: str | None = None
    # Entities watched only for the states a state trigger's `to:` names: (entity, state).
    entity_states: frozenset[tuple[str, str]] = frozenset()
    # Entities watched only for a change from the states a state trigger's `from:` names,
    # where it names no `to:`: (entity, state).
    entity_leaving: frozenset[tuple[str, str]] = frozenset()
    # For a heard signal that only some words of a message set off, what it must say (one of
    # these needs, MESSAGE's); a heard signal not in it is set off by any message.
    needs: tuple[tuple[tuple[str, str], tuple[Need, ...]], ...] = ()
    # Each trigger, with its own watch and id (`condition: trigger` names it); empty when the
    # triggers cannot be told apart.
    by_id: tuple[OneTrigger, ...] = ()
    # Its own conditions (all must hold for its actions to run).
    conditions: tuple[Any, ...] = ()
    # What may hide its templates' `trigger`, `states` and `is_state` from the run (its
    # variables, triggers and steps: hides_run_names), read only when a branch is judged;
    # None: no template of it is decided.
    run_values: tuple[Any, ...] | None = None
    # What it reads (safety/reads.py): a change of it steers every branch, whichever trigger
    # fires next (the doorbell's branch that unlocks while the bed light is on).
    read: AutomationTrigger | None = None

    def watches(
        self,
        entity_id: str,
        device_id: str | None,
        fired: Collection[str] | None = None,
        becomes: Collection[str] | None = None,
        was: str | None = None,
    ) -> bool:
        """Whether a change of this entity (on this device) may trigger the automation.

        fired: the events of its own the change makes the entity fire (None: any of them).
        becomes: the states the change may leave the entity in (None: any state).
        was: the state the change starts from, where only the call's own change of its
        target can come first (None: any, as for a change some step makes later).
        """
        domain = entity_id.partition(".")[0]
        return (
            self.any_entity
            or entity_id in self.entity_ids
            or domain in self.domains
            or (device_id is not None and device_id in self.device_ids)
            or any(
                watched in (entity_id, domain) and (fired is None or event in fired)
                for watched, event in self.entity_events
            )
            or any(
                watched == entity_id and (becomes is None or state in becomes)
                for watched, state in self.entity_states
            )
            or any(
                watched == entity_id and may_leave(state, becomes, was)
                for watched, state in self.entity_leaving
            )
        )

    def actions_for(
        self,
        entity_id: str,
        device_id: str | None,
        fired: Collection[str] | None = None,
        becomes: Collection[str] | None = None,
        now: str | None = None,
    ) -> list[Any]:
        """Return the actions a change that `watches` may run: the branches it may take.

        A run is set off now by a trigger the change sets off; a change of what the
        automation reads also steers the runs its other triggers set off later (the next
        doorbell's), in the state the change leaves, and keeps from them what the state it
        had (`now`) would have let run (a branch that secures the house counts). Its
        conditions and those of a `choose` option, `if` or condition step are judged for
        each run where what they read is known (condition_holds): the trigger's id
        ("triggered by"), and the entity's state (`becomes`, one at a time: a state condition
        on it, a template of `trigger.to_state` when the trigger is a state trigger on it, of
        `is_state` or `states` of it). A branch that no run takes is left out; anything else
        they read keeps it.
        """
        if not self.by_id:
            return self.actions
        templates = self.run_values is not None and not hides_run_names(*self.run_values)
        set_off = [
            one
            for one in self.by_id
            if one.watch is not None and one.watch.watches(entity_id, device_id, fired, becomes)
        ]
        runs = runs_of(set_off, entity_id, becomes, templates=templates)
        if self.read is not None and self.read.watches(entity_id, device_id, fired):
            # Later runs set off by other changes (a trigger on the entity alone is set off
            # later only by its later changes, not this one's): their `trigger` is another's.
            states = None if becomes is None or now is None else {*becomes, now}
            later = [one for one in self.by_id if not set_off_only_by(one, entity_id)]
            runs += runs_of(later, entity_id, states, templates=templates, reported=False)
        elif not set_off:  # set off by what no trigger alone watches: any of them
            runs = runs_of(self.by_id, entity_id, None, templates=templates)
        return steps_taken(
            self.actions,
            [run for run in runs if all_hold(list(self.conditions), run) is not False],
        )

    def actions_heard(self, signals: Collection[tuple[str, str]]) -> list[Any]:
        """Return the actions a run that one of these signals sets off may take.

        The run is set off by a trigger that hears one of them (a remote's "on" press hears a
        message that says "on", not its "hold"): its id is what "triggered by" and
        `trigger.id` read; nothing else of the run is known. Triggers not told apart: every
        action.
        """
        set_off = [one for one in self.by_id if one.watch is not None and one.watch.hears(signals)]
        if not set_off:
            return self.actions
        templates = self.run_values is not None and not hides_run_names(*self.run_values)
        runs = runs_of(set_off, "", None, templates=templates, reported=False)
        return steps_taken(
            self.actions,
            [run for run in runs if all_hold(list(self.conditions), run) is not False],
        )

    def hears(self, signals: Collection[tuple[str, str]]) -> bool:
        """Whether one of these signals of a step may trigger it (ANY_SIGNAL: any kind, key).

        A message (MESSAGE_SIGNAL) may be any signal but Home Assistant's start or stop; one
        whose words are known ((MESSAGE, its texts)) only what they can make: not a sentence
        trigger's sentence it does not say, not an event whose data values it does not hold.
        """
        lifecycle = {(EVENT_SIGNAL, event) for event in LIFECYCLE_EVENTS.values()}
        needs = dict(self.needs)
        return any(
            (heard_kind, heard_key) not in lifecycle
            and (key == ANY_SIGNAL or _says(key, needs.get((heard_kind, heard_key))))
            if kind == MESSAGE
            else kind in (heard_kind, ANY_SIGNAL)
            and (
                key == heard_key
                or ANY_SIGNAL in (key, heard_key)
                or (kind == heard_kind == MQTT and _topic_matches(heard_key, key))
            )
            for kind, key in signals
            for heard_kind, heard_key in self.heard
        )


def may_hear_call(watcher: AutomationTrigger, domain: str, service: str) -> bool:
    """Whether the call_service event of a call of `domain`.`service` may set the trigger off.

    Heard by a trigger on call_service whose data names another domain (or that domain and
    another service) only when another of its triggers hears any event.
    """
    signal = (EVENT_SIGNAL, EVENT_CALL_SERVICE)
    if not watcher.hears({signal}):
        return False
    if watcher.hears({(EVENT_SIGNAL, _NO_SUCH_EVENT)}):
        return True  # an event trigger of any type ("*", a template)
    needs = dict(watcher.needs).get(signal)
    call = {f"domain={domain}", f"service={service}"}
    return needs is None or any(kind != CALL_NEED or asked <= call for kind, asked in needs)


# An event type no one fires: a trigger that hears it hears every event.
_NO_SUCH_EVENT: Final = "\x00no such event"


def _words(text: str) -> str:
    """Return a text as the default agent compares sentences: its words, in lower case."""
    return " ".join("".join(c if c.isalnum() else " " for c in text.casefold()).split())


def _says(texts: str, needs: tuple[Need, ...] | None) -> bool:
    """Whether a message of these texts (one a line) may say what one of the needs asks."""
    if needs is None:
        return True
    said = [f" {_words(text)} " for text in texts.splitlines()]
    whole = texts.casefold()
    return any(
        any(f" {sentence} " in text for sentence in wanted for text in said)
        if kind == SENTENCE_NEED
        # A message sent to the bus may be a call_service event of any call.
        else kind == CALL_NEED or all(value.casefold() in whole for value in wanted)
        for kind, wanted in needs
    )


def _sentence_need(trigger: Mapping[str, Any]) -> Need | None:
    """Return what a message must say to set off a sentence trigger; None: any text may."""
    commands = trigger.get("command")
    sentences = [_static_text(c) for c in (commands if isinstance(commands, list) else [commands])]
    if not sentences or any(s is None or _SENTENCE_SYNTAX & set(s) for s in sentences):
        return None
    return SENTENCE_NEED, frozenset(_words(s) for s in sentences if s is not None)


def _call_need(data: Any) -> Need | None:
    """Return the call a call_service trigger's data asks for; None: any call.

    Only a plain domain narrows it: Home Assistant matches the event's data by equality.
    """
    if not isinstance(data, Mapping) or not isinstance(domain := data.get("domain"), str):
        return None
    asked = {f"domain={domain}"}
    if isinstance(service := data.get("service"), str):
        asked.add(f"service={service}")
    return CALL_NEED, frozenset(asked)


def _values_need(data: Any) -> Need | None:
    """Return what a message must hold to make an event trigger's data; None: anything."""
    if not isinstance(data, Mapping):
        return None
    values = {
        text
        for value in data.values()
        if (text := _static_text(value) if not isinstance(value, int | float) else str(value))
    }
    return (VALUES_NEED, frozenset(values)) if values else None


def sends_messages(hass: HomeAssistant, entity_id: str) -> bool:
    """Whether this entity is a notify entity: it changes by sending a message.

    Told by the entity object (a NotifyEntity), not by its name. What it sends is its
    integration's: an event on the bus (the demo display's "notify"), an MQTT message, a
    phone's notification, which an automation may hear.
    """
    from homeassistant.components.notify import NotifyEntity

    return isinstance(_entity_object(hass, entity_id), NotifyEntity)


def runs_a_command(hass: HomeAssistant, entity_id: str) -> bool:
    """Whether a call on this entity runs a command its owner wrote, of unknown effect.

    A command line entity runs a shell command (`curl` to Home Assistant's own webhook or
    API, maybe), which may send any signal, as a shell command step does. Told by the
    platform that made the entity object (its EntityPlatform's ``platform_name``, which Home
    Assistant sets), not by the entity's name.
    """
    platform = getattr(_entity_object(hass, entity_id), "platform", None)
    return getattr(platform, "platform_name", None) in COMMAND_PLATFORMS


def _topic_matches(subscription: str, topic: str) -> bool:
    """Whether an MQTT topic filter (`+` one level, `#` the rest) takes a message's topic."""
    levels = subscription.split("/")
    if levels[0] == "$share" and len(levels) > 2:
        levels = levels[2:]  # a shared subscription: $share/<group>/<filter>
    parts = topic.split("/")
    for index, level in enumerate(levels):
        if level == "#":
            return True
        if index >= len(parts) or level not in ("+", parts[index]):
            return False
    return len(levels) == len(parts)


def mqtt_topics_of_entity(hass: HomeAssistant, entity_id: str) -> frozenset[str]:
    """Return the topics a call on an MQTT entity publishes to, or its device answers on.

    Told by the entity object (an MqttEntity), not by its name or registry entry: its
    validated configuration (the private ``_config``) holds its command topics, and its
    state and attribute topics, on which the device answers a command (not its availability
    topics). An automation on any of them hears the call.
    """
    if MQTT not in hass.config.components:
        return frozenset()
    from homeassistant.components.mqtt.entity import MqttEntity

    entity = _entity_object(hass, entity_id)
    config = getattr(entity, "_config", None) if isinstance(entity, MqttEntity) else None
    return frozenset(_topics_in(config, 3)) if isinstance(config, Mapping) else frozenset()


def mqtt_device_trigger(
    hass: HomeAssistant, trigger: Mapping[str, Any]
) -> tuple[str, str | None] | None:
    """Return the topic and payload an MQTT device trigger fires on; None when unknown.

    Home Assistant's own MQTT integration attaches its device trigger (a button's press that
    zigbee2mqtt or Tasmota announced) as an MQTT trigger on the topic its discovery gave it,
    with its payload (any message when a value template reads it). Its MqttData (the
    private ``device_triggers``) keeps each by the deprecated discovery id or else by
    `<device>_<type>_<subtype>`, found as MQTT's own attach finds it. One not announced yet
    (no topic) or of another integration: None, every change of its device may set it off.
    """
    if trigger.get("domain") != MQTT or not _built_in(hass, MQTT):
        return None
    from homeassistant.components.mqtt.device_trigger import Trigger
    from homeassistant.components.mqtt.models import DATA_MQTT

    known = getattr(hass.data.get(DATA_MQTT), "device_triggers", None)
    if not isinstance(known, Mapping):
        return None
    found: Any = None
    if (discovery_id := trigger.get("discovery_id")) is not None:
        found = next(
            (one for one in known.values() if getattr(one, "discovery_id", None) == discovery_id),
            None,
        )
    if found is None:
        found = known.get(
            f"{trigger.get('device_id')}_{trigger.get('type')}_{trigger.get('subtype')}"
        )
    if not isinstance(found, Trigger) or not isinstance(found.topic, str):
        return None
    payload = found.payload if found.payload and found.value_template is None else None
    return found.topic, payload if isinstance(payload, str) else None


def mqtt_announcements(hass: HomeAssistant) -> tuple[tuple[object, ...], ...]:
    """Return what MQTT's discovery announced each device trigger as (mqtt_device_trigger).

    Announced again (another topic or payload), MQTT changes its trigger in place and fires
    no event: a reading of the home that found one is good while these are the same.
    """
    if not _built_in(hass, MQTT):
        return ()
    from homeassistant.components.mqtt.models import DATA_MQTT

    known = getattr(hass.data.get(DATA_MQTT), "device_triggers", None)
    if not isinstance(known, Mapping):
        return ()
    return tuple(
        (key, *(getattr(one, name, None) for name in _ANNOUNCED)) for key, one in known.items()
    )


_ANNOUNCED: Final = ("discovery_id", "topic", "payload", "value_template")


def mqtt_entity_ids(hass: HomeAssistant) -> list[str]:
    """Return the entities of MQTT's platforms (their objects are MqttEntity objects)."""
    if MQTT not in hass.config.components:
        return []
    return [
        entity_id
        for platform in entity_platform.async_get_platforms(hass, MQTT)
        for entity_id in platform.entities
    ]


def topics_meet(one: Iterable[str], other: Iterable[str]) -> bool:
    """Whether a topic (or filter) of one is a topic (or filter) of the other."""
    return any(
        _topic_matches(first, second) or _topic_matches(second, first)
        for first in one
        for second in other
    )


def _topics_in(value: Any, depth: int) -> Iterable[str]:
    """Yield the texts of `*topic` keys in nested settings, but the availability ones."""
    if depth == 0:
        return
    items: Iterable[Any] = ()
    if isinstance(value, Mapping):
        # An availability topic is the bridge's or the broker's (every device of a bridge may
        # share it): no call publishes there, and no device answers a call there.
        items = [
            item
            for key, item in value.items()
            if not (isinstance(key, str) and key.startswith(_AVAILABILITY))
        ]
        for key, item in value.items():
            if (
                isinstance(key, str)
                and key.endswith("topic")
                and not key.startswith(_AVAILABILITY)
                and isinstance(item, str)
            ):
                yield item
    elif isinstance(value, (list, tuple)):
        items = value
    for item in items:
        if isinstance(item, (Mapping, list, tuple)):
            yield from _topics_in(item, depth - 1)


def _static_text(value: Any) -> str | None:
    """Return a plain string, or a template's text when it has nothing to render; else None."""
    if isinstance(value, str):
        return value
    if isinstance(value, Template) and value.is_static:
        return value.template
    return None


@dataclass(slots=True)
class _Watched:
    """What the triggers of one automation watch, gathered trigger by trigger."""

    entity_ids: set[str]
    device_ids: set[str]
    domains: set[str]
    any_entity: bool = False
    entity_events: set[tuple[str, str]] = field(default_factory=set)
    heard: set[tuple[str, str]] = field(default_factory=set)
    entity_states: set[tuple[str, str]] = field(default_factory=set)
    entity_leaving: set[tuple[str, str]] = field(default_factory=set)
    # What a message must say for each heard signal (None: anything), trigger by trigger.
    needs: dict[tuple[str, str], list[Need] | None] = field(default_factory=dict)

    def hear(self, signal: tuple[str, str], need: Need | None = None) -> None:
        """Hear a signal; with need, only a message that says it sets this trigger off."""
        self.heard.add(signal)
        known = self.needs.setdefault(signal, [])
        if need is None or known is None:
            self.needs[signal] = None
        else:
            known.append(need)

    def absorb(self, other: _Watched) -> None:
        """Watch also what another trigger of the same automation watches."""
        self.entity_ids |= other.entity_ids
        self.device_ids |= other.device_ids
        self.domains |= other.domains
        self.any_entity = self.any_entity or other.any_entity
        self.entity_events |= other.entity_events
        self.entity_states |= other.entity_states
        self.entity_leaving |= other.entity_leaving
        for signal, needs in other.needs.items():
            if needs is None:
                self.hear(signal)
            for need in needs or ():
                self.hear(signal, need)

    def trigger(self, actions: list[Any], checks: tuple[Any, ...] = ()) -> AutomationTrigger | None:
        """Return what was watched, with the actions it runs; None if nothing was.

        checks: what the program checks when it runs; with them (or actions to read) it is
        returned even when its triggers watch nothing (a time pattern), for what it reads.
        """
        if not (
            self.entity_ids
            or self.device_ids
            or self.domains
            or self.any_entity
            or self.entity_events
            or self.heard
            or self.entity_states
            or self.entity_leaving
            or checks
            or actions
        ):
            return None
        return AutomationTrigger(
            frozenset(self.entity_ids),
            frozenset(self.device_ids),
            actions,
            frozenset(self.domains),
            self.any_entity,
            frozenset(self.entity_events),
            checks,
            heard=frozenset(self.heard),
            entity_states=frozenset(self.entity_states),
            entity_leaving=frozenset(self.entity_leaving),
            needs=tuple(
                (signal, tuple(needs)) for signal, needs in self.needs.items() if needs is not None
            ),
        )

    def add_template(
        self, value: Any, variables: Mapping[str, Any] | None, *, strict: bool = False
    ) -> None:
        """Watch what a template trigger's template reads, as Home Assistant tracks it.

        variables: what the automation renders its triggers with (None: they cannot be read);
        strict: a variable the template needs and they lack makes it watch anything.
        """
        if not isinstance(value, Template) or variables is None:
            self.any_entity = True
            return
        try:
            info = value.async_render_to_info(variables, strict=strict)
        except Exception:  # a template that cannot be read watches anything
            self.any_entity = True
            return
        note_time_read(value, info)
        if info.exception is not None or info.all_states or info.all_states_lifecycle:
            self.any_entity = True
            return
        self.entity_ids.update(info.entities)
        self.domains.update(info.domains | info.domains_lifecycle)

    def add_event(self, registry: er.EntityRegistry, trigger: Mapping[str, Any]) -> None:
        """Watch what an event trigger hears of a call: the call, a state change, a timer's."""
        types = trigger.get("event_type")
        data = trigger.get("event_data")
        named = _static_text(data.get("entity_id")) if isinstance(data, Mapping) else None
        for event_type in types if isinstance(types, list) else [types]:
            text = _static_text(event_type)
            if text is None or text == MATCH_ALL:
                # Templated, or every event ("*"): ours too, and a call's that changes nothing.
                self.any_entity = True
                self.hear((EVENT_SIGNAL, ANY_SIGNAL))
            elif text in EVENTS_OF_A_CALL:
                if text == EVENT_STATE_CHANGED and named is not None:
                    self.add_entities(registry, named)
                else:
                    self.any_entity = True
                if text == EVENT_CALL_SERVICE:
                    # Also a call that changes nothing: a read-only tool that reads by a service.
                    self.hear((EVENT_SIGNAL, text), _call_need(data))
            elif text in ENTITY_EVENTS_OF_A_CALL:
                self.add_entity_event(registry, named, text)
            else:
                # fired by a step (an `event` step), or a message's data values
                self.hear((EVENT_SIGNAL, text), _values_need(data))

    def add_entity_event(self, registry: er.EntityRegistry, named: Any, event: str) -> None:
        """Watch an entity's own event: fired by the entity named, or by any of its domain."""
        if named is None:
            self.entity_events.add((event.partition(".")[0], event))
            return
        resolved = er.async_resolve_entity_id(registry, named)
        if resolved is not None:
            self.entity_events.add((resolved, event))

    def add_entities(
        self,
        registry: er.EntityRegistry,
        named: Any,
        states: frozenset[str] | None = None,
        leaving: frozenset[str] | None = None,
    ) -> None:
        """Watch the entities named by id or registry id (others are unknown, so not added).

        states: watched only for a change to one of these (a state trigger's `to:`);
        leaving: else only for a change from one of these (its `from:`).
        """
        for name in named if isinstance(named, list) else [named]:
            if isinstance(name, str) and (resolved := er.async_resolve_entity_id(registry, name)):
                if states is not None:
                    self.entity_states.update((resolved, state) for state in states)
                elif leaving is not None:
                    self.entity_leaving.update((resolved, state) for state in leaving)
                else:
                    self.entity_ids.add(resolved)


def states_to(hass: HomeAssistant, trigger: Mapping[str, Any]) -> frozenset[str] | None:
    """Return the states a trigger on an entity fires for, when it names them; else None.

    Home Assistant compares a state trigger's `to:` (a state or a list) with the entity's new
    state and fires only when the state changed to one of them (with `attribute:`, the
    attribute's value is compared instead: any change may then do). `to: null`, `not_to:` and
    a trigger without `to:` fire for other states too. A device trigger "turned on" or
    "turned off" of a toggle entity (the automation editor's "Bed Light turned off"), and a
    cover's, media player's, lock's, alarm panel's or vacuum's of one state ("Blinds closed"),
    is such a state trigger on its entity, when the domain's built-in device triggers
    answer it (STATE_DEVICE_TRIGGERS).
    """
    kind = trigger.get("trigger", trigger.get("platform"))
    if isinstance(kind, str) and "." in kind:
        return _entity_trigger_states(hass, kind)
    if kind == "device":
        domain = trigger.get("domain")
        by_type = STATE_DEVICE_TRIGGERS.get(domain) if isinstance(domain, str) else None
        state = by_type.get(trigger.get("type")) if by_type is not None else None
        if state is None or not isinstance(domain, str) or not _built_in(hass, domain):
            return None
        return frozenset({state})
    if kind != "state" or "attribute" in trigger:
        return None
    to = trigger.get("to")
    states = to if isinstance(to, list) else [to]
    if not states or not all(isinstance(state, str) for state in states):
        return None
    return frozenset(states)


def _on_its_entity(
    hass: HomeAssistant, registry: er.EntityRegistry, trigger: Mapping[str, Any]
) -> bool:
    """Whether a device trigger is attached to the entity it names, not to its device.

    Home Assistant's own entity integrations of STATE_DEVICE_TRIGGERS attach every device
    trigger of theirs (also "changed states", a cover's position) as a state or numeric
    state trigger on the entity it names: told when the built-in integration answers it and
    the entity is one of that domain.
    """
    domain = trigger.get("domain")
    named = trigger.get("entity_id")
    if not isinstance(domain, str) or domain not in STATE_DEVICE_TRIGGERS:
        return False
    if not isinstance(named, str) or not _built_in(hass, domain):
        return False
    resolved = er.async_resolve_entity_id(registry, named)
    return resolved is not None and resolved.partition(".")[0] == domain


def states_from(trigger: Mapping[str, Any]) -> frozenset[str] | None:
    """Return the states a state trigger fires only when leaving, when it names them; else None.

    A state trigger with `from:` (a state or a list) and no attribute fires only for a change
    of the entity's state from one of them: a change of its attributes alone, or from
    another state, does not set it off, whatever its `to:`, `not_to:` or `not_from:`.
    """
    if trigger.get("trigger", trigger.get("platform")) != "state" or "attribute" in trigger:
        return None
    left = trigger.get("from")
    states = left if isinstance(left, list) else [left]
    if not states or not all(isinstance(state, str) for state in states):
        return None
    return frozenset(states)


def may_leave(left: str, becomes: Collection[str] | None, was: str | None) -> bool:
    """Whether a change may take the entity's state from `left` (a trigger's `from:`).

    becomes: the states the change may leave it in (None: any); was: the state it starts
    from (None: any). A change to one state goes from `was` to it and no further (what
    changes it again is judged as its own change); one through several states (a cover
    opening, then open) may leave each of them.
    """
    if becomes is None or was is None:
        return True
    if len(becomes) == 1:
        return left == was and was not in becomes
    return left == was or left in becomes


def _time_entities(at: Any) -> list[Any]:
    """Return the entities a time trigger's `at` names: by id, or with an offset."""
    return [
        item.get("entity_id") if isinstance(item, Mapping) else item
        for item in (at if isinstance(at, list) else [at])
    ]


_UNWATCHED_READS: HassKey[int] = HassKey("local_agent_unwatched_reads")
# A template that imports or includes one of custom_templates/: reloaded with no event.
_READS_A_FILE: Final = re.compile(r"\{%[-+]?\s*(?:from|import|include)\b")


def automation_triggers(hass: HomeAssistant) -> list[AutomationTrigger]:
    """Return every enabled automation with what a change must touch to trigger it.

    An automation's entity keeps its validated triggers in the private ``_trigger_config`` and
    its actions in ``action_script`` (a helpers.script.Script). State and numeric state
    triggers name entities (``entity_id``), device triggers a device (``device_id``), the
    newer entity triggers a ``target`` (entities, devices, areas, floors, labels); a template
    trigger watches what its template reads, and an event trigger on the events a call fires
    (a state change, the call itself) watches that entity or any.

    A trigger-based template section with ``actions`` runs them as an automation does: its
    coordinator (``hass.data["template"]``) keeps the validated section as ``config``.
    """
    component = hass.data.get("automation")
    registry = er.async_get(hass)
    found: list[AutomationTrigger] = []
    for automation in getattr(component, "entities", ()):
        if getattr(automation, "is_on", False) is not True:
            continue
        triggers = getattr(automation, "_trigger_config", None)
        if not isinstance(triggers, list):
            continue
        sequence = getattr(getattr(automation, "action_script", None), "sequence", None)
        actions = list(sequence) if isinstance(sequence, list) else [None]
        variables = _trigger_variables(hass, automation)
        checks = _automation_checks(hass, automation, triggers)
        if (
            watcher := _watcher(hass, registry, triggers, variables, actions, checks=checks)
        ) is not None:
            own = getattr(automation, "entity_id", None)
            conditions = getattr(getattr(automation, "_condition", None), "config", None)
            found.append(
                replace(
                    watcher,
                    entity_id=own if isinstance(own, str) else None,
                    # A run that a new one stops (mode restart) keeps from happening what it
                    # would still do: which branch the new run takes does not tell it all.
                    by_id=() if _restarts_a_run(automation) else watcher.by_id,
                    # Conditions that cannot be read are not known to hold: kept unread.
                    conditions=tuple(conditions) if isinstance(conditions, list) else (),
                    run_values=(
                        *(
                            {CONF_VARIABLES: declared}
                            for name in ("_variables", "_trigger_variables")
                            if (declared := getattr(automation, name, None)) is not None
                        ),
                        triggers,
                        actions,
                    ),
                )
            )
    for section in _template_trigger_sections(hass):
        if CONF_ACTIONS not in section:
            continue
        actions = section[CONF_ACTIONS]
        actions = list(actions) if isinstance(actions, list) else [None]
        triggers = section.get(CONF_TRIGGERS)
        checks = (
            _checked_triggers(triggers),
            section.get(CONF_CONDITIONS),
            section.get(CONF_VARIABLES),
        )
        if (watcher := _watcher(hass, registry, triggers, {}, actions, checks=checks)) is not None:
            found.append(watcher)
    return found


def note_time_read(template: Template, info: RenderInfo | None) -> None:
    """Count a render whose reads may change with no event.

    One that read the time (`now()`) or a custom template (`reload_custom_templates` fires
    no event); info: None when the render failed.
    """
    read_time = info is not None and info.has_time
    if (read_time or _READS_A_FILE.search(template.template)) and (
        hass := template.hass
    ) is not None:
        note_unwatched_read(hass)


def note_unwatched_read(hass: HomeAssistant) -> None:
    """Count a read of what may change with no event the kept home reading hears."""
    hass.data[_UNWATCHED_READS] = hass.data.get(_UNWATCHED_READS, 0) + 1


def unwatched_reads(hass: HomeAssistant) -> int:
    """Return how many reads of what may change with no event were made so far."""
    return hass.data.get(_UNWATCHED_READS, 0)


def _restarts_a_run(automation: Any) -> bool:
    """Whether the automation's next run stops one under way (its mode is restart).

    Its ``action_script`` (a helpers.script.Script) keeps the mode as ``script_mode``.
    """
    return _restarts(getattr(automation, "action_script", None))


def program_restarts_a_run(hass: HomeAssistant, entity_id: str) -> bool:
    """Whether running this script or automation again stops its run under way (mode restart).

    The script entity's ``script`` (an automation entity's ``action_script``), a
    helpers.script.Script, keeps the mode; any other entity: False.
    """
    domain = entity_id.partition(".")[0]
    if domain not in ("script", "automation"):
        return False
    component = hass.data.get(domain)
    get_entity = getattr(component, "get_entity", None)
    entity = get_entity(entity_id) if get_entity is not None else None
    return _restarts(getattr(entity, "script" if domain == "script" else "action_script", None))


def _restarts(script: Any) -> bool:
    """Whether a helpers.script.Script runs in mode restart and a run of it is under way."""
    return (
        getattr(script, "is_running", False) is True
        and getattr(script, "script_mode", None) == SCRIPT_MODE_RESTART
    )


def _automation_checks(
    hass: HomeAssistant, automation: Any, triggers: list[Any]
) -> tuple[Any, ...]:
    """Return what an automation checks each time it runs (AutomationTrigger.checks).

    Its triggers' settings (an event trigger's are read as the events it hears), the
    validated conditions (the private ``_condition``, an IfAction with its ``config``) and
    its variables and trigger variables (private ScriptVariables with public ``variables``).
    """
    return (
        _checked_triggers(triggers),
        getattr(getattr(automation, "_condition", None), "config", None),
        getattr(getattr(automation, "_variables", None), "variables", None),
        getattr(getattr(automation, "_trigger_variables", None), "variables", None),
    )


def light_profile_brightness(
    hass: HomeAssistant, entity_id: str, data: Mapping[str, Any]
) -> list[Any]:
    """Return the brightnesses light profiles may give a light's turn-on that names none.

    Home Assistant's turn-on applies the profile the call names (`profile`), then the light's
    default profile (`light.<id>.default`, `group.all_lights.default` of light_profiles.csv),
    each only where the call leaves the brightness out; a brightness of 0 then turns the
    light off. Read from the profiles Home Assistant loaded (the light integration's
    ``Profiles``, its ``data``), not from the profile's name. A profile named by a template,
    or profiles that cannot be read: None, a brightness that cannot be told.
    """
    from homeassistant.components.light.const import DATA_PROFILES

    if "brightness" in data or "brightness_pct" in data:
        return []
    profiles = getattr(hass.data.get(DATA_PROFILES), "data", None)
    if not isinstance(profiles, Mapping):
        return [None]
    names = [f"{entity_id}.default", "group.all_lights.default"]
    if "profile" in data:
        if (named := _static_text(data["profile"])) is None:
            return [None]
        names.insert(0, named)
    return [
        brightness
        for name in names
        if name in profiles
        and (brightness := getattr(profiles[name], "brightness", None)) is not None
    ]


def _entity_trigger_states(hass: HomeAssistant, kind: str) -> frozenset[str] | None:
    """Return the states one of the newer entity triggers fires for ("light.turned_off").

    Only a trigger of a built-in integration's trigger platform (its `TRIGGERS`) whose class
    compares the target's state, as Home Assistant's own state triggers do, with the states
    it was made for: one that reads an attribute (a brightness) or a class that replaces the
    comparison may fire for any state (None).
    """
    domain, _, name = kind.partition(".")
    if not _built_in(hass, domain):
        return None
    module = loader.async_get_loaded_integration(hass, domain).get_platform_cached("trigger")
    triggers = getattr(module, "TRIGGERS", None)
    cls = triggers.get(name) if isinstance(triggers, Mapping) else None
    if not isinstance(cls, type):
        return None
    base = next((b for b in _STATE_TRIGGER_BASES if issubclass(cls, b)), None)
    specs = getattr(cls, "_domain_specs", None)
    states = getattr(cls, "_to_states", None)
    if (
        base is None
        or getattr(cls, "is_valid_state", None) is not base.is_valid_state
        or getattr(cls, "_get_tracked_value", None) is not base._get_tracked_value
        or not isinstance(specs, Mapping)
        or any(getattr(spec, "value_source", True) is not None for spec in specs.values())
        or not isinstance(states, (set, frozenset))
        or not all(isinstance(state, str) for state in states)
    ):
        return None
    return frozenset(states)


def built_in_platform(hass: HomeAssistant, entity: object) -> str | None:
    """Return the integration whose entity platform added an entity object, if a built-in one.

    Told by the platform Home Assistant gave the entity as it added it and by the loader (a
    custom integration may take a built-in's domain), not by a name the entity's class carries.
    """
    domain = getattr(getattr(entity, "platform", None), "platform_name", None)
    return domain if isinstance(domain, str) and _built_in(hass, domain) else None


def _built_in(hass: HomeAssistant, domain: str) -> bool:
    """Whether Home Assistant's own integration of this domain is loaded (no custom one)."""
    try:
        return loader.async_get_loaded_integration(hass, domain).is_built_in
    except loader.IntegrationNotLoaded:
        return False


def _checked_triggers(triggers: Any) -> list[Any]:
    """Return the triggers whose settings are read: all but event triggers (see add_event).

    What a trigger watches (its entities, device, target) is watched, not read: its change
    sets off that trigger's own run (for the states it fires for, states_to), and steers no
    other trigger's. The rest of its settings (a threshold, a `for:` template) are read.
    """
    if not isinstance(triggers, list):
        return []
    return [
        {key: value for key, value in trigger.items() if key not in WATCHED_KEYS}
        if isinstance(trigger, Mapping)
        else trigger
        for trigger in triggers
        if not isinstance(trigger, Mapping)
        or trigger.get("trigger", trigger.get("platform")) != "event"
    ]


def _template_trigger_sections(hass: HomeAssistant) -> list[Mapping[str, Any]]:
    """Return the validated trigger-based sections of the template integration."""
    coordinators = hass.data.get(TEMPLATE)
    if not isinstance(coordinators, list):
        return []
    return [
        config
        for coordinator in coordinators
        if isinstance(config := getattr(coordinator, "config", None), Mapping)
    ]


def _watcher(
    hass: HomeAssistant,
    registry: er.EntityRegistry,
    triggers: Any,
    variables: Mapping[str, Any] | None,
    actions: list[Any],
    *,
    strict: bool = False,
    checks: tuple[Any, ...] = (),
) -> AutomationTrigger | None:
    """Return what these triggers watch, with the actions they run; None if they watch none.

    strict: a template trigger that needs a variable that `variables` lack watches anything;
    checks: what the program checks each time it runs (AutomationTrigger.checks).
    """
    if not isinstance(triggers, list):
        return None
    watched = _Watched(set(), set(), set())
    # Each trigger's own watch, by its id (its number when it has none), for what `condition:
    # trigger` steps pick (AutomationTrigger.by_id).
    by_id: list[OneTrigger] = []
    for index, trigger in enumerate(triggers):
        if not isinstance(trigger, Mapping) or trigger.get("enabled") is False:
            continue  # Home Assistant does not attach a trigger switched off in the editor
        single = _Watched(set(), set(), set())
        _watch(hass, registry, single, trigger, variables, strict=strict)
        watched.absorb(single)
        trigger_id = trigger.get("id", str(index))
        by_id.append(OneTrigger(str(trigger_id), single.trigger([]), _reported(registry, trigger)))
    found = watched.trigger(actions, checks)
    return found if found is None else replace(found, by_id=tuple(by_id))


def _reported(registry: er.EntityRegistry, trigger: Mapping[str, Any]) -> frozenset[str]:
    """Return the entities a state trigger reports as `trigger.to_state` (none for others)."""
    if trigger.get("trigger", trigger.get("platform")) != "state" or CONF_VARIABLES in trigger:
        return frozenset()
    named = trigger.get("entity_id")
    return frozenset(
        resolved
        for name in (named if isinstance(named, list) else [named])
        if isinstance(name, str) and (resolved := er.async_resolve_entity_id(registry, name))
    )


def _watch(
    hass: HomeAssistant,
    registry: er.EntityRegistry,
    watched: _Watched,
    trigger: Mapping[str, Any],
    variables: Mapping[str, Any] | None,
    *,
    strict: bool,
) -> None:
    """Add what one trigger watches (see _watcher)."""
    kind = trigger.get("trigger", trigger.get("platform"))
    if kind == "template":
        watched.add_template(trigger.get("value_template"), variables, strict=strict)
    elif kind == "event":
        watched.add_event(registry, trigger)
    elif kind == MQTT:
        # A topic written out is heard only by what a message on it sets off.
        # One with a payload hears a message that says it (read as is: no value template).
        payload = None if "value_template" in trigger else trigger.get("payload")
        need = _values_need({"payload": payload}) if payload is not None else None
        watched.hear((MQTT, _static_text(trigger.get("topic")) or ANY_SIGNAL), need)
    elif kind in SIGNAL_TRIGGERS:
        need = _sentence_need(trigger) if kind == "conversation" else None
        watched.hear((kind, ANY_SIGNAL), need)
    elif kind == TAG:
        watched.hear((EVENT_SIGNAL, TAG_SCANNED))  # a tag trigger hears that event
    elif kind == CORE_DOMAIN:
        # Home Assistant starting or stopping: heard as the event of it a step may fire.
        event = LIFECYCLE_EVENTS.get(_static_text(trigger.get("event")) or "")
        watched.hear((EVENT_SIGNAL, event or ANY_SIGNAL))
    elif kind == "time":
        # Fires at the time an entity holds (a date/time helper): setting it sets it off.
        watched.add_entities(registry, _time_entities(trigger.get("at")))
    states = states_to(hass, trigger)
    if isinstance(device_id := trigger.get("device_id"), str) and states is None:
        if kind == "device" and (button := mqtt_device_trigger(hass, trigger)) is not None:
            # A remote's or switch's button announced by MQTT: a message on its topic.
            topic, payload = button
            need = _values_need({"payload": payload}) if payload is not None else None
            watched.hear((MQTT, topic), need)
        elif not (kind == "device" and _on_its_entity(hass, registry, trigger)):
            watched.device_ids.add(device_id)
    leaving = states_from(trigger) if states is None else None
    watched.add_entities(registry, trigger.get("entity_id"), states, leaving)
    if isinstance(target := trigger.get("target"), Mapping):
        watched.add_entities(registry, target_entities(hass, target), states)


def entity_events_of_call(domain: str, service: str) -> frozenset[str] | None:
    """Return the events of their own a service makes its targets fire; None when unknown."""
    if domain != TIMER:
        return frozenset()
    return TIMER_SERVICE_EVENTS.get(service)


def integration_events_of_call(hass: HomeAssistant, entity_id: str) -> frozenset[str]:
    """Return the events an entity's integration fires of its own when a call changes it.

    Told by the integration that made the entity (its registry entry's platform), not by the
    entity's name: the shopping list fires `shopping_list_updated` for every item added,
    completed or removed, through its intents or its to-do entity.
    """
    entry = er.async_get(hass).async_get(entity_id)
    if entry is None:
        return frozenset()
    return INTEGRATION_EVENTS_OF_A_CALL.get(entry.platform, frozenset())


def entity_events_stopped_by_call(domain: str, service: str) -> frozenset[str]:
    """Return the events of their own a service keeps its targets from firing later."""
    return TIMER_SERVICE_STOPS.get(service, frozenset()) if domain == TIMER else frozenset()


def armed_at_start(hass: HomeAssistant) -> list[str]:
    """Return the automations that are off and that Home Assistant switches on when it starts.

    An automation whose configuration sets `initial_state: true` starts on whatever state it
    had before: its entity keeps that setting in the private ``_initial_state``.
    """
    return [
        own
        for automation in getattr(hass.data.get("automation"), "entities", ())
        if getattr(automation, "is_on", None) is False
        and getattr(automation, "_initial_state", None) is True
        and isinstance(own := getattr(automation, "entity_id", None), str)
    ]


def running_programs(hass: HomeAssistant) -> list[tuple[str | None, list[Any]]]:
    """Return the entity and steps of every script and automation that is running now.

    A script entity keeps its helpers.script.Script as ``script``, an automation as
    ``action_script``; the Script's public ``is_running`` and ``sequence`` tell the rest.
    """
    found: list[tuple[str | None, list[Any]]] = []
    for domain, attribute in (("script", "script"), ("automation", "action_script")):
        for entity in getattr(hass.data.get(domain), "entities", ()):
            program = getattr(entity, attribute, None)
            if getattr(program, "is_running", False) is not True:
                continue
            sequence = getattr(program, "sequence", None)
            own = getattr(entity, "entity_id", None)
            found.append(
                (
                    own if isinstance(own, str) else None,
                    list(sequence) if isinstance(sequence, list) else [None],
                )
            )
    return found


def wait_watcher(
    hass: HomeAssistant, wait: Mapping[str, Any], actions: list[Any]
) -> AutomationTrigger | None:
    """Return what a wait step of a running program watches, with the program's actions.

    `wait_for_trigger` holds triggers as an automation does; templates are rendered without
    the run's variables (private to the run): one that needs them watches anything.
    """
    if "wait_template" in wait:
        watched = _Watched(set(), set(), set())
        watched.add_template(wait["wait_template"], {}, strict=True)
        return watched.trigger(actions)
    triggers = wait.get("wait_for_trigger")
    return _watcher(hass, er.async_get(hass), triggers, {}, actions, strict=True)


def template_followers(hass: HomeAssistant) -> list[tuple[str, AutomationTrigger]]:
    """Return each template entity with what a change must touch to change its state.

    A state-based template entity follows what Home Assistant tracks for its templates: the
    public ``listeners`` of its private ``_template_result_info`` (entities, domains, or all
    states). A trigger-based one changes when its section's triggers fire (its
    ``coordinator``'s ``config``), to what its templates (its private ``_config``) render
    then: those, the section's conditions, variables and triggers' settings are its checks,
    read as an automation's are (safety/reads.py). The AutomationTrigger's actions are empty.
    """
    registry = er.async_get(hass)
    found: list[tuple[str, AutomationTrigger]] = []
    for platform in entity_platform.async_get_platforms(hass, TEMPLATE):
        for entity_id, entity in list(platform.entities.items()):
            listeners = _template_listeners(entity)
            watcher: AutomationTrigger | None = None
            if isinstance(listeners, Mapping):
                entities, domains = listeners.get("entities"), listeners.get("domains")
                watcher = AutomationTrigger(
                    frozenset(entities) if isinstance(entities, set) else frozenset(),
                    frozenset(),
                    [],
                    frozenset(domains) if isinstance(domains, set) else frozenset(),
                    listeners.get("all") is True,
                )
            elif isinstance(
                config := getattr(getattr(entity, "coordinator", None), "config", None), Mapping
            ):
                own = getattr(entity, "_config", None)
                checks = (
                    _checked_triggers(config.get(CONF_TRIGGERS)),
                    config.get(CONF_CONDITIONS),
                    config.get(CONF_VARIABLES),
                    own if isinstance(own, Mapping) else config,
                )
                watcher = _watcher(hass, registry, config.get(CONF_TRIGGERS), {}, [], checks=checks)
            if watcher is not None:
                found.append((entity_id, watcher))
    return found


def _template_listeners(entity: Any) -> Mapping[str, Any] | None:
    """Return what a state-based template entity's templates read; None for other entities.

    Its ``_template_result_info`` (a TrackTemplateResultInfo) keeps the latest RenderInfo of
    each template in the private ``_info``; its public ``listeners`` lag behind a template
    that reads every state under a rate limit, so the render infos are read. What cannot be
    read reads every state.
    """
    info = getattr(entity, "_template_result_info", None)
    if info is None:
        return None
    renders = getattr(info, "_info", None)
    if not isinstance(renders, Mapping):
        return {"all": True}
    entities: set[str] = set()
    domains: set[str] = set()
    for render in renders.values():
        if not isinstance(render, RenderInfo):
            return {"all": True}
        if render.all_states or render.all_states_lifecycle:
            return {"all": True}
        entities.update(render.entities)
        domains.update(render.domains | render.domains_lifecycle)
    return {"all": False, "entities": entities, "domains": domains}


def _trigger_variables(hass: HomeAssistant, automation: Any) -> Mapping[str, Any] | None:
    """Return the variables the automation renders its triggers with; None if they fail.

    As ``AutomationEntity._async_attach_triggers`` does: ``this`` (the automation's own state)
    and its ``trigger_variables`` (private ``_trigger_variables``), rendered limited.
    """
    own = hass.states.get(getattr(automation, "entity_id", "") or "")
    variables: dict[str, Any] = {"this": own.as_dict() if own is not None else None}
    declared = getattr(automation, "_trigger_variables", None)
    if not declared:
        return variables
    try:
        rendered = declared.async_render(hass, variables, limited=True)
    except Exception:  # what cannot be rendered is unknown: watch anything
        return None
    return rendered if isinstance(rendered, Mapping) else None


def wrapping_entities(hass: HomeAssistant, entity_id: str) -> list[str]:
    """Return the entities that show this one as another kind (Switch as X: a relay as a lock).

    Switch as X keeps the wrapped entity in its entry's options (an entity id or a registry
    id); switching the wrapped entity does what the wrapper's service does.
    """
    registry = er.async_get(hass)
    found: list[str] = []
    for entry in hass.config_entries.async_entries(SWITCH_AS_X):
        wrapped = entry.options.get("entity_id")
        if not isinstance(wrapped, str):
            continue
        if er.async_resolve_entity_id(registry, wrapped) != entity_id:
            continue
        found.extend(
            e.entity_id for e in er.async_entries_for_config_entry(registry, entry.entry_id)
        )
    return found


# The wrapper's services that switch its switch on and off (Switch as X's lock, cover and
# valve: unlocking or opening turns the switch on unless the wrapper inverts it).
_SWITCH_AS_X_SERVICES: Final[Mapping[str, tuple[str, str]]] = {
    "lock": ("unlock", "lock"),
    "cover": ("open_cover", "close_cover"),
    "valve": ("open_valve", "close_valve"),
}


def switch_as_x_service(hass: HomeAssistant, wrapper: str, switch_service: str) -> str | None:
    """Return the service of a Switch as X lock, cover or valve that switching its switch is.

    Turning the switch on is what unlocking (opening) does, or locking (closing) where the
    wrapper's entry inverts it; None for another service or kind of wrapper.
    """
    services = _SWITCH_AS_X_SERVICES.get(wrapper.split(".", 1)[0])
    config_entry = _switch_as_x_entry(hass, wrapper)
    if services is None or config_entry is None or switch_service not in {"turn_on", "turn_off"}:
        return None
    on = (switch_service == "turn_on") != bool(config_entry.options.get("invert"))
    return services[0] if on else services[1]


def wrapped_entity(hass: HomeAssistant, entity_id: str) -> str | None:
    """Return the entity a Switch as X entity shows as another kind; None for other entities.

    Its Switch as X entry's options name the wrapped entity (an entity id or a registry id):
    turning the wrapper on switches it.
    """
    config_entry = _switch_as_x_entry(hass, entity_id)
    wrapped = config_entry.options.get("entity_id") if config_entry is not None else None
    if not isinstance(wrapped, str):
        return None
    return er.async_resolve_entity_id(er.async_get(hass), wrapped)


def switch_as_x_entities(hass: HomeAssistant) -> list[str]:
    """Return every entity of a Switch as X entry (from the registry's index by entry).

    Bounded by the number of such entities, not the house: a turn's safety question asks it.
    """
    registry = er.async_get(hass)
    return [
        entity.entity_id
        for config_entry in hass.config_entries.async_entries(SWITCH_AS_X)
        for entity in er.async_entries_for_config_entry(registry, config_entry.entry_id)
    ]


def _switch_as_x_entry(hass: HomeAssistant, entity_id: str) -> ConfigEntry | None:
    """Return the Switch as X config entry whose entity this is (by its registry entry)."""
    entry = er.async_get(hass).async_get(entity_id)
    if entry is None or entry.platform != SWITCH_AS_X or entry.config_entry_id is None:
        return None
    config_entry = hass.config_entries.async_get_entry(entry.config_entry_id)
    if config_entry is None or config_entry.domain != SWITCH_AS_X:
        return None
    return config_entry


def configuration_yaml_entities(hass: HomeAssistant) -> list[tuple[str, Any]]:
    """Return each entity of a platform set up in configuration.yaml, with its object.

    Every entity platform keeps itself in ``hass.data[DATA_ENTITY_PLATFORM]`` (by integration);
    one set up from configuration.yaml has no ``config_entry``. Its public ``entities`` maps
    entity ids to the objects.
    """
    found: list[tuple[str, Any]] = []
    for platforms in hass.data.get(entity_platform.DATA_ENTITY_PLATFORM, {}).values():
        for platform in platforms:
            if platform.config_entry is None:
                found.extend(platform.entities.items())
    return found


def entities_with_actions(hass: HomeAssistant, domain: str) -> list[tuple[str, list[list[Any]]]]:
    """Return every entity of a domain that runs actions of its own, with those actions.

    As ``entity_action_sequences`` reads them (template entities' ``_action_scripts``).
    """
    found: list[tuple[str, list[list[Any]]]] = []
    for entity in getattr(hass.data.get(domain), "entities", ()):
        entity_id = getattr(entity, "entity_id", None)
        if not isinstance(entity_id, str):
            continue
        if (sequences := entity_action_sequences(hass, entity_id)) is not None:
            found.append((entity_id, sequences))
    return found


def scene_may_be_made(hass: HomeAssistant, entity_id: str) -> bool:
    """Whether `scene.create` may make this scene: there is none, or it made the one there is.

    Home Assistant's scene platform keeps a scene of the service apart (its entities'
    ``from_service``) and makes no scene over one of a file, the UI or another integration.
    """
    platform = hass.data.get(HOMEASSISTANT_SCENE_PLATFORM)
    entities = getattr(platform, "entities", None)
    entity = entities.get(entity_id) if isinstance(entities, dict) else None
    if entity is not None:
        return getattr(entity, "from_service", False) is True
    return hass.states.get(entity_id) is None and er.async_get(hass).async_get(entity_id) is None


def scene_states(hass: HomeAssistant, entity_id: str) -> dict[str, str] | None:
    """Return the state each member gets from a Home Assistant scene; None for other scenes.

    Only the ``homeassistant`` scene platform says what its scenes set: its entities' private
    ``scene_config.states`` (``entities_in_scene`` gives the ids alone).
    """
    platform = hass.data.get(HOMEASSISTANT_SCENE_PLATFORM)
    entities = getattr(platform, "entities", None)
    entity = entities.get(entity_id) if isinstance(entities, dict) else None
    states = getattr(getattr(entity, "scene_config", None), "states", None)
    if not isinstance(states, dict):
        return None
    return {member: str(getattr(state, "state", state)) for member, state in states.items()}


def target_entities(
    hass: HomeAssistant, target: Mapping[str, Any], service: tuple[str, str] | None = None
) -> list[str]:
    """Return the entities a service target names (entity, device, area, floor, label ids).

    2026.10 and 2026.11 read targets with ``helpers.target.TargetSelection``; values that are
    templates are left out (they are only known when the call runs). service: the entity
    service called, which changes only its own entities of a device, area, floor or label
    (`light.turn_on` on an area: its lights, not its lock); entities named by id are kept.
    """
    plain = {
        key: value for key, value in target.items() if key in TARGET_KEYS and _plain_ids(value)
    }
    if not plain:
        return []
    selected = target_helper.async_extract_referenced_entity_ids(
        hass, target_helper.TargetSelection(plain)
    )
    indirect = selected.indirectly_referenced
    if service is not None and (own := service_entities(hass, *service)) is not None:
        indirect = indirect & own
    return sorted(selected.referenced | indirect)


def service_entities(hass: HomeAssistant, domain: str, service: str) -> frozenset[str] | None:
    """Return the entities an entity service can change; None for any other service.

    Those its handler was registered with (an entity component's or a platform's), read from
    the handler itself, not from the service's domain: any integration may register a
    service in the `light` domain for its lock.
    """
    handler = registered_service(hass, domain, service)
    target = None if handler is None else handler.job.target
    if not isinstance(target, partial) or target.func not in (
        service_helper.entity_service_call,
        service_helper.batched_entity_service_call,
    ):
        return None
    registered = target.args[1] if len(target.args) > 1 else None
    if callable(registered):
        registered = registered()
    if not isinstance(registered, Mapping):
        return None
    return frozenset(str(entity_id) for entity_id in registered)


def _plain_ids(value: Any) -> bool:
    if isinstance(value, str):
        return True
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def action_tool_target(tool: llm.Tool) -> tuple[str, str] | None:
    """Return the (domain, service) an action tool (a script's tool) calls.

    Home Assistant's ActionTool keeps them only in private attributes; a tool whose name says
    "script__x" may call anything, so the gate reads what it will really call.
    """
    if not isinstance(tool, llm.ActionTool):
        return None
    domain, action = getattr(tool, "_domain", None), getattr(tool, "_action", None)
    if not isinstance(domain, str) or not isinstance(action, str):
        return None
    return domain, action


def async_listen_pipelines(
    hass: HomeAssistant, listener: Callable[[], None]
) -> CALLBACK_TYPE | None:
    """Call listener whenever an Assist pipeline is created, changed or deleted.

    Home Assistant has no public hook for it: the pipeline store (a private attribute of the
    assist_pipeline data) notifies its change-set listeners. None without assist_pipeline.
    """
    if "assist_pipeline" not in hass.config.components:
        return None
    from homeassistant.components.assist_pipeline.pipeline import KEY_ASSIST_PIPELINE

    data = hass.data.get(KEY_ASSIST_PIPELINE)
    if data is None:
        return None

    async def changed(_change_set: Iterable[Any]) -> None:
        listener()

    return data.pipeline_store.async_add_change_set_listener(changed)


def entry_entity_platform(
    hass: HomeAssistant, entry: ConfigEntry, domain: str
) -> entity_platform.EntityPlatform:
    """Return an entity platform of an entry that Home Assistant did not set up.

    EntityPlatform's own constructor: for entities that stand in while the entry does not
    load. Its entities take their registered ids and devices, as the entry's own would.
    """
    platform = entity_platform.EntityPlatform(
        hass=hass,
        logger=logging.getLogger(entry.domain),
        domain=domain,
        platform_name=entry.domain,
        platform=None,
        scan_interval=timedelta(seconds=30),
        entity_namespace=None,
    )
    platform.config_entry = entry
    return platform


async def async_calendar_events(
    hass: HomeAssistant, entity_id: str, start: datetime, end: datetime, limit: int
) -> tuple[list[dict[str, Any]], int]:
    """Return a calendar's first `limit` events in [start, end), and how many it has there.

    The events as get_events lists them.

    Only those are converted: a recurring event every minute is 10,080 events a week.

    Read from its entity object, as the service does: a read fires no `call_service` event,
    which an automation may hear ("when a calendar action is called, unlock the door").
    Raises HomeAssistantError when the entity is no calendar.
    """
    from homeassistant.components.calendar import CalendarEntity
    from homeassistant.components.calendar.helper import list_events_dict_factory

    entity = _entity_object(hass, entity_id)
    if not isinstance(entity, CalendarEntity):
        raise HomeAssistantError(f"{entity_id} is not a calendar")
    events = await entity.async_get_events(hass, dt_util.as_local(start), dt_util.as_local(end))
    converted = [asdict(event, dict_factory=list_events_dict_factory) for event in events[:limit]]
    return converted, len(events)


async def async_todo_summaries(hass: HomeAssistant, entity_id: str) -> list[str]:
    """Return the summaries of a to-do list's items still to do, from its entity object.

    As its get_items service reads them, firing no `call_service` event. Raises
    HomeAssistantError when the entity is no to-do list.
    """
    from homeassistant.components.todo.const import TodoItemStatus
    from homeassistant.components.todo.entity import TodoListEntity

    entity = _entity_object(hass, entity_id)
    if not isinstance(entity, TodoListEntity):
        raise HomeAssistantError(f"{entity_id} is not a to-do list")
    return [
        str(item.summary)
        for item in entity.todo_items or ()
        if item.summary and item.status == TodoItemStatus.NEEDS_ACTION
    ]


def timer_tool_refusal(hass: HomeAssistant, tool_name: str, device_id: str | None) -> str | None:
    """Core's refusal of a timer tool to a device that cannot start timers, or None.

    Core offers its timer tools only to such a device; we offer them to every request (one
    prefix), so the refusal core's start handler alone gives is given here to all of them:
    cancel, pause, change and status find a timer by name or as the only one in the house,
    and would reach another device's timer from the dialog or an automation.
    """
    from homeassistant.components.intent import llm as intent_llm
    from homeassistant.components.intent.timers import TimersNotSupportedError
    from homeassistant.components.intent.timers import async_device_supports_timers

    intent_type = tool_name.removeprefix("intent__")  # core's intent tools' prefix
    if intent_type == tool_name or intent_type not in intent_llm.TIMER_INTENTS:
        return None
    if device_id is not None and async_device_supports_timers(hass, device_id):
        return None
    return str(TimersNotSupportedError(device_id))


def with_timer_tools_last(hass: HomeAssistant, tools: list[llm.Tool]) -> list[llm.Tool]:
    """Return Assist's tools with core's timer tools last, in one order, whatever the device.

    Core (components/intent/llm.py) offers its timer tools only to a device that can start
    timers; the tool list is part of the home prefix, so every kind of device would have a
    prefix of its own. Offered to every request, a call from a device that cannot start timers
    ends in core's own refusal (its TimersNotSupportedError). Other APIs' tools: unchanged.
    """
    from homeassistant.components.intent import llm as intent_llm
    from homeassistant.helpers import intent

    prefix = "intent__"  # core's intent tools are named after its intent domain
    if not any(tool.name.startswith(prefix) for tool in tools):
        return tools
    names = [f"{prefix}{intent_type}" for intent_type in intent_llm.TIMER_INTENTS]
    offered = {tool.name: tool for tool in tools if tool.name in names}
    handlers = {handler.intent_type: handler for handler in intent.async_get(hass)}
    for intent_type, name in zip(intent_llm.TIMER_INTENTS, names, strict=True):
        if name not in offered and (handler := handlers.get(intent_type)) is not None:
            offered[name] = llm.IntentTool(
                name,
                handler,
                title=intent_llm.INTENT_TITLES[intent_type],
                integration="intent",
                annotations=intent_llm.INTENT_ANNOTATIONS[intent_type],
            )
    kept = [tool for tool in tools if tool.name not in names]
    return kept + [offered[name] for name in names if name in offered]


def cancel_pending_save(store: Store[Any]) -> None:
    """Cancel a store's delayed save and its write at stop.

    Store.async_remove does too, but only once it runs, and the test harness replaces it with
    one that does not.
    """
    store._async_cleanup_delay_listener()
    store._async_cleanup_final_write_listener()
