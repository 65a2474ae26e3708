"""What a tool of Home Assistant's LLM APIs will do, judged before it runs.

Every tool the agent offers is in one class, decided before the model sees it:

- read-only: known to change nothing;
- targeted: changes entities resolved exactly as Home Assistant's own handler resolves them.
  Generic service intents (HassTurnOn, HassSetPosition, ...) are dry-run through the handler's
  own matching (`name: all`, area, floor, domain, device class, the satellite's area), stopped
  just before any service is called; intents with handlers of their own are matched the same
  way inside the only domains they can touch;
- no entity effect: known to act on no entity (timers, broadcasts);
- unknown: everything else — intent scripts, other integrations' tools, any intent a later
  Home Assistant adds, a core intent whose registered handler is not core's own (another
  class, another instance of core's class calling another service, a method replaced), a
  subclass of Home Assistant's intent tool or namespace wrapper. An unknown tool is treated as
  sensitive: held for confirmation, refused without a person.

What a thing is decides, never what it is called: handlers and tools are matched by class
identity (not a module name a class can copy), a script tool by the service it calls, an
exemption by API and tool together. A tool's annotations (Home Assistant 2026.10+) only make
a rule stricter, except that a tool nobody classified is read-only when the integration whose
code it runs declares it so.

Arguments with a deferred effect (a timer's `conversation_command`, which Home Assistant runs
through its default agent when the timer ends, outside this gate) are never offered, and a
call that carries one anyway is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
import copy
from dataclasses import dataclass
import functools
import inspect
from pathlib import PurePath
import sys
import types
from typing import Any
from typing import Final

import probatio
import propcache.api
from slugify import slugify

from custom_components.local_agent.compat import action_tool_target
from custom_components.local_agent.compat import built_in_platform
from custom_components.local_agent.compat import entity_object_ref
from custom_components.local_agent.const import ASSISTANT
from custom_components.local_agent.engine.types import JsonSchema
from custom_components.local_agent.safety.intents import ASSIST_INTENTS
from custom_components.local_agent.safety.intents import AssistIntent
from custom_components.local_agent.safety.intents import ToolClass
from homeassistant import components as core_components
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.core import State
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import intent
from homeassistant.helpers import llm

# Service data keys that choose targets: a handler whose slots write one of them aims its
# service at something other than the entities it matched.
TARGET_SERVICE_KEYS: Final = frozenset(
    {"entity_id", "device_id", "area_id", "floor_id", "label_id"}
)

# Tools that are not intents, by their implementing class.
READ_ONLY_TOOLS: Final = frozenset(
    {
        "homeassistant.components.homeassistant.llm.GetLiveContextTool",
        "homeassistant.components.llm.llm.GetDateTimeTool",
        "homeassistant.components.calendar.llm.CalendarGetEventsTool",
        "homeassistant.components.todo.llm.TodoGetItemsTool",
        "homeassistant.components.media_player.llm.MediaSearchTool",
    }
)
# Of those, the ones that read without calling a service (whose call_service event a program
# may hear); a read-only intent of core's own handler reads without one too.
READ_WITHOUT_CALLS: Final = frozenset(
    {
        "homeassistant.components.homeassistant.llm.GetLiveContextTool",
        "homeassistant.components.llm.llm.GetDateTimeTool",
    }
)
# Of those, the ones known to read by calling one service: that service (domain, service).
READ_BY_ONE_CALL: Final[Mapping[str, tuple[str, str]]] = {
    "homeassistant.components.calendar.llm.CalendarGetEventsTool": ("calendar", "get_events"),
    "homeassistant.components.todo.llm.TodoGetItemsTool": ("todo", "get_items"),
}
SCRIPT_TOOL: Final = "homeassistant.components.script.llm.ScriptTool"
LIVE_CONTEXT_TOOL: Final = "homeassistant.components.homeassistant.llm.GetLiveContextTool"
# Tools that are not intents but target entities of one domain: their argument for each slot.
WITHIN_DOMAIN_TOOLS: Final[Mapping[str, tuple[frozenset[str], Mapping[str, str]]]] = {
    "homeassistant.components.media_player.llm.MediaPlayTool": (
        frozenset({"media_player"}),
        {"name": "player_name", "area": "player_area", "floor": "player_floor"},
    ),
}

# Arguments whose effect happens later, outside the gate.
DEFERRED_ARGUMENTS: Final[Mapping[str, frozenset[str]]] = {
    "HassStartTimer": frozenset({"conversation_command"}),
}

# Slots that choose targets; every other argument changes what happens to them.
TARGET_SLOTS: Final = frozenset(
    {"name", "area", "floor", "domain", "device_class", "preferred_area_id", "preferred_floor_id"}
)


@dataclass(frozen=True, slots=True)
class ToolReview:
    """What one call will do."""

    tool_class: ToolClass
    intent_type: str | None
    # Entities the call changes; None when they cannot be known (unknown tools).
    targets: tuple[str, ...] | None
    deferred: tuple[str, ...] = ()


def unwrap(tool: llm.Tool) -> llm.Tool:
    """Return the tool behind Home Assistant's API namespaces.

    Only Home Assistant's own wrapper is looked through: a subclass of it runs code of its own,
    so it is the tool.
    """
    while type(tool) is llm.NamespacedTool:
        tool = tool.tool
    return tool


def _qualified_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _loaded_class(path: str) -> type | None:
    """Return the class a path names ("module:Class" or "module.Class") if its module is loaded.

    Not imported: an object can only be an instance of a class whose module is loaded. The class
    is compared by identity, so a class that copies a module name is not it.
    """
    module_name, _, name = path.partition(":") if ":" in path else path.rpartition(".")
    found: Any = sys.modules.get(module_name)
    for part in name.split("."):
        found = getattr(found, part, None)
    return found if isinstance(found, type) else None


def _is_instance_of(obj: object, path: str) -> bool:
    return type(obj) is _loaded_class(path)


def is_live_context(tool: llm.Tool) -> bool:
    """Whether the tool is core's GetLiveContext (told by its class, not its name)."""
    return _is_instance_of(unwrap(tool), LIVE_CONTEXT_TOOL)


def _runs_its_class_code(obj: object) -> bool:
    """Whether no method of the object was replaced on the instance itself.

    An instance attribute may hold data (a cached property's value, a schema), never code.
    """
    try:
        attributes = vars(obj)
    except TypeError:
        return False
    cls = type(obj)
    for name, value in attributes.items():
        declared = inspect.getattr_static(cls, name, None)
        if isinstance(declared, types.FunctionType | staticmethod | classmethod):
            return False
        if callable(value) and not isinstance(value, probatio.Schema):
            return False
    return True


def _is_plain_tool(tool: llm.Tool) -> bool:
    """Whether the tool and every Home Assistant wrapper around it run their class's code."""
    while type(tool) is llm.NamespacedTool:
        if not _runs_its_class_code(tool):
            return False
        tool = tool.tool
    return _runs_its_class_code(tool)


def intent_type_of(tool: llm.Tool) -> str | None:
    """Return the intent a tool runs, if it is Home Assistant's intent tool."""
    inner = unwrap(tool)
    return inner.intent_type if type(inner) is llm.IntentTool else None


def _handler(hass: HomeAssistant, intent_type: str) -> intent.IntentHandler | None:
    return next((h for h in intent.async_get(hass) if h.intent_type == intent_type), None)


def reads_by_calling(hass: HomeAssistant, tool: llm.Tool) -> bool:
    """Whether a read-only tool may read by calling a service (calendar.get_events).

    A tool not known: it may. Core's own read-only intents and READ_WITHOUT_CALLS read states.
    """
    inner = unwrap(tool)
    if type(inner) is llm.IntentTool:
        rule = intent_rule(hass, inner.intent_type)
        return rule is None or rule.tool_class is not ToolClass.READ_ONLY
    name = _qualified_name(type(inner))
    return not (name in READ_WITHOUT_CALLS and _is_instance_of(inner, name))


def service_read_by(tool: llm.Tool) -> tuple[str, str] | None:
    """Return the one service a read-only tool reads by calling, when its class is known.

    Core's calendar tool calls calendar.get_events; a subclass, a look-alike or an instance
    with a method of its own may call anything: None.
    """
    inner = unwrap(tool)
    name = _qualified_name(type(inner))
    if name in READ_BY_ONE_CALL and _is_instance_of(inner, name) and _is_plain_tool(tool):
        return READ_BY_ONE_CALL[name]
    return None


# Where Home Assistant's own integrations live: their entities' code is core's, reviewed.
_CORE_INTEGRATIONS: Final = "homeassistant.components."
# What each domain's read service asks of the entity (calendar.get_events, todo.get_items).
_READ_BY: Final[Mapping[str, str]] = {"calendar": "async_get_events", "todo": "todo_items"}


def read_by_core_code(hass: HomeAssistant, domain: str) -> bool:
    """Whether each exposed entity of the domain is a built-in integration's, by what it is.

    Core's calendar tool calls calendar.get_events on the calendar its name matches, and that
    service asks the entity for its events: a custom integration's entity (or one whose method
    was replaced) runs code of its own there, which may call any service. The tool may read
    any calendar it offers (the exposed ones): each is judged. None exposed: nothing is known.
    """
    entities = [
        ref() if (ref := entity_object_ref(hass, state.entity_id)) is not None else None
        for state in hass.states.async_all(domain)
        if async_should_expose(hass, ASSISTANT, state.entity_id)
    ]
    read = _READ_BY.get(domain)
    return (
        bool(entities)
        and read is not None
        and all(entity is not None and _is_core_entity(hass, entity, read) for entity in entities)
    )


def _is_core_entity(hass: HomeAssistant, entity: object, read: str) -> bool:
    """Whether an entity runs a built-in integration's code when `read` is asked of it.

    Added by that integration's entity platform; of the very class its module holds, in that
    integration (a class may copy any module name); `read` written in a module of core's; no
    method replaced on the instance.
    """
    cls = type(entity)
    return (
        cls.__module__.startswith(_CORE_INTEGRATIONS)
        and _loaded_class(_qualified_name(cls)) is cls
        and integration_of_module(cls.__module__) == built_in_platform(hass, entity)
        and _written_in_core(_own_code(cls, read))
        and _runs_its_class_code(entity)
    )


def _own_code(cls: type, name: str) -> object:
    """Return the function a class runs for a method or property, as its class holds it."""
    found = inspect.getattr_static(cls, name, None)
    if isinstance(found, property):
        return found.fget
    # Told by their very types: any descriptor may carry a `func`.
    if type(found) in (functools.cached_property, propcache.api.cached_property):
        return found.func
    return found


def _written_in_core(code: object) -> bool:
    """Whether a function was written in a module of core's integrations.

    Told by its globals, which are that loaded module's own: a function's `__module__` is a
    name anyone may set. A plain function only: a method bound to another object forwards its
    function's globals, and runs on that object.
    """
    if not isinstance(code, types.FunctionType):
        return False
    own = code.__globals__
    name = own.get("__name__")
    if not isinstance(name, str) or not name.startswith(_CORE_INTEGRATIONS):
        return False
    module = sys.modules.get(name)
    return module is not None and vars(module) is own and _loaded_from_its_file(module)


# Where Home Assistant's own integrations are: their modules are loaded from files there.
_CORE_DIRS: Final = tuple(PurePath(path) for path in core_components.__path__)


def _loaded_from_its_file(module: types.ModuleType) -> bool:
    """Whether a core module was loaded from the file of its name in core's integrations.

    Any code may put a module of its own into sys.modules under a name of core's
    ("homeassistant.components.demo.errands"): it was not loaded from that file.
    """
    origin = getattr(getattr(module, "__spec__", None), "origin", None)
    if not isinstance(origin, str):
        return False
    parts = module.__name__.removeprefix(_CORE_INTEGRATIONS).split(".")
    return any(
        PurePath(origin)
        in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py"))
        for base in _CORE_DIRS
    )


def intent_rule(hass: HomeAssistant, intent_type: str) -> AssistIntent | None:
    """Return an intent's rule when the registered handler is core's own."""
    rule = ASSIST_INTENTS.get(intent_type)
    handler = _handler(hass, intent_type)
    if rule is None or handler is None or not is_cores_handler(handler, rule):
        return None
    return rule


def is_cores_handler(handler: intent.IntentHandler, rule: AssistIntent) -> bool:
    """Whether a handler is the one core registers for the rule's intent.

    The very class core uses, no method replaced on the instance, the service core's handler
    calls, and no slot that writes the service's targets.
    """
    if not _is_instance_of(handler, rule.handler) or not _runs_its_class_code(handler):
        return False
    if isinstance(handler, intent.ServiceIntentHandler) and (
        rule.service is None or (handler.domain, handler.service) != rule.service
    ):
        return False
    if isinstance(handler, intent.DynamicServiceIntentHandler):
        slots = {**handler.required_slots, **handler.optional_slots}
        if any(
            (info.service_data_name or key) in TARGET_SERVICE_KEYS for key, info in slots.items()
        ):
            return False
    return not rule.generic or _handles_generically(handler)


def _handles_generically(handler: intent.IntentHandler) -> bool:
    return (
        isinstance(handler, intent.DynamicServiceIntentHandler)
        and type(handler).async_handle is intent.DynamicServiceIntentHandler.async_handle
    )


def classify(hass: HomeAssistant, tool: llm.Tool) -> ToolClass:
    """Classify a tool before any call.

    A tool's own annotations can only make it stricter (a read-only rule needs the tool to say
    it is read-only; a no-entity rule needs it to stay inside Home Assistant), except that a
    tool nobody classified counts as read-only when the integration whose code it runs
    declares it so (`read_only` and its `integration`).
    """
    inner = unwrap(tool)
    if not _is_plain_tool(tool):
        return ToolClass.UNKNOWN
    if type(inner) is llm.IntentTool:
        rule = intent_rule(hass, inner.intent_type)
        if rule is not None:
            return _as_annotated(rule.tool_class, inner.annotations)
        handler = _handler(hass, inner.intent_type)
        if inner.intent_type in ASSIST_INTENTS or handler is None:
            return ToolClass.UNKNOWN  # core's intent name with someone else's handler
        if not _runs_its_class_code(handler):
            return ToolClass.UNKNOWN  # its class is not the code that runs
        return _declared_read_only(hass, inner, type(handler))
    name = _qualified_name(type(inner))
    if name in READ_ONLY_TOOLS and _is_instance_of(inner, name):
        return _as_annotated(ToolClass.READ_ONLY, inner.annotations)
    if name in WITHIN_DOMAIN_TOOLS and _is_instance_of(inner, name):
        return ToolClass.TARGETED
    if name == SCRIPT_TOOL and _is_instance_of(inner, name) and script_of(hass, inner):
        return ToolClass.TARGETED
    if isinstance(inner, llm.IntentTool):
        return ToolClass.UNKNOWN  # a subclass of the intent tool runs code of its own
    return _declared_read_only(hass, inner, type(inner))


def _as_annotated(tool_class: ToolClass, annotations: llm.ToolAnnotations) -> ToolClass:
    if tool_class is ToolClass.READ_ONLY and not annotations.read_only:
        return ToolClass.UNKNOWN
    if tool_class is ToolClass.NO_ENTITY_EFFECT and annotations.open_world:
        return ToolClass.UNKNOWN
    return tool_class


def _declared_read_only(hass: HomeAssistant, tool: llm.Tool, code: type) -> ToolClass:
    """Read-only if the loaded integration whose code runs declares the tool read-only.

    The code's class must be the one its module really holds: a class that copies another
    integration's module name is not that integration's.
    """
    integration = tool.integration
    if (
        tool.annotations.read_only
        and integration
        and integration in hass.config.components
        and integration_of_module(code.__module__) == integration
        and _loaded_class(_qualified_name(code)) is code
    ):
        return ToolClass.READ_ONLY
    return ToolClass.UNKNOWN


def integration_of_module(module: str) -> str | None:
    """Return the domain of the integration a module belongs to."""
    for prefix in ("custom_components.", "homeassistant.components."):
        if module.startswith(prefix):
            return module.removeprefix(prefix).partition(".")[0]
    return None


def script_of(hass: HomeAssistant, tool: llm.Tool) -> str | None:
    """Return the script a script tool runs: found by the service it calls, not by its name."""
    target = action_tool_target(tool)
    if target is None or target[0] != "script":
        return None
    action = target[1]
    entity_id = er.async_get(hass).async_get_entity_id("script", "script", action)
    return entity_id or f"script.{action}"


def aimed_scripts(
    hass: HomeAssistant, tool: llm.Tool, arguments: Mapping[str, Any]
) -> frozenset[str]:
    """Return the script a call passes data to: a script tool's arguments are its fields.

    What such a script changes may be picked by that data ("turn on {{ which }}"), so an
    exemption of the script does not cover it (policy.py). Other tools pass none.
    """
    if all(intent.is_blank_slot_value(value) for value in arguments.values()):
        return frozenset()
    script = script_tool_script(hass, tool)
    return frozenset() if script is None else frozenset({script})


def script_tool_script(hass: HomeAssistant, tool: llm.Tool) -> str | None:
    """Return the script a script tool runs (told by what the tool is); None for other tools."""
    inner = unwrap(tool)
    if _qualified_name(type(inner)) != SCRIPT_TOOL or not _is_instance_of(inner, SCRIPT_TOOL):
        return None
    return script_of(hass, inner)


async def async_tool_api_id(
    hass: HomeAssistant, api: llm.APIInstance, tool: llm.Tool
) -> str | None:
    """Return the id of the LLM API that offers this tool; None when it cannot be told.

    A merged instance does not say where each tool came from (2026.10 prefixes every name with
    the slug of its API's name, 2026.11 only clashing names with the slug of its id), so each
    member API is asked for its own tools with the same context.
    """
    if not isinstance(api.api, llm.MergedAPI):
        return api.api.id
    inner = unwrap(tool)
    offering: list[llm.API] = []
    for member in api.api.llm_apis:
        try:
            own = await llm.async_get_api(hass, member.id, api.llm_context)
        except HomeAssistantError:
            continue
        if any(
            unwrap(candidate).name == inner.name and type(unwrap(candidate)) is type(inner)
            for candidate in own.tools
        ):
            offering.append(member)
    if len(offering) > 1 and type(tool) is llm.NamespacedTool:
        namespace = tool.namespace
        offering = [m for m in offering if namespace in {slugify(m.id), slugify(m.name)}]
    return offering[0].id if len(offering) == 1 else None


def offered_parameters(tool: llm.Tool, parameters: JsonSchema) -> JsonSchema:
    """Drop the arguments whose effect would escape the gate from a tool's schema."""
    deferred = DEFERRED_ARGUMENTS.get(intent_type_of(tool) or "", frozenset())
    properties = parameters.get("properties")
    if not deferred or not isinstance(properties, dict):
        return parameters
    kept = dict(parameters)
    kept["properties"] = {k: v for k, v in properties.items() if k not in deferred}
    if isinstance(required := parameters.get("required"), list):
        kept["required"] = [k for k in required if k not in deferred]
    return kept


async def async_review(
    hass: HomeAssistant,
    tool: llm.Tool,
    arguments: Mapping[str, Any],
    llm_context: llm.LLMContext,
) -> ToolReview:
    """Judge one call: its class and, for targeted tools, the entities it will change."""
    tool_class = classify(hass, tool)
    inner = unwrap(tool)
    intent_type = intent_type_of(tool)
    deferred = tuple(
        sorted(
            key
            for key in DEFERRED_ARGUMENTS.get(intent_type or "", ())
            if not intent.is_blank_slot_value(arguments.get(key))
        )
    )
    if tool_class is ToolClass.READ_ONLY or tool_class is ToolClass.NO_ENTITY_EFFECT:
        return ToolReview(tool_class, intent_type, (), deferred)
    if tool_class is ToolClass.UNKNOWN:
        return ToolReview(tool_class, intent_type, None, deferred)
    if type(inner) is llm.IntentTool:
        assert isinstance(inner, llm.IntentTool)
        targets = await _async_intent_targets(hass, inner, arguments, llm_context)
        return ToolReview(tool_class, intent_type, targets, deferred)
    if within := WITHIN_DOMAIN_TOOLS.get(_qualified_name(type(inner))):
        domains, slot_arguments = within
        slots = {
            slot: {"value": arguments[argument]}
            for slot, argument in slot_arguments.items()
            if argument in arguments
        }
        return ToolReview(
            tool_class, None, _match_within(hass, domains, slots, llm_context.assistant)
        )
    script = script_of(hass, inner)
    assert script is not None
    return ToolReview(tool_class, None, (script,))


class _Matched(Exception):
    """Raised inside the dry run with the entities the handler matched."""

    def __init__(self, states: list[State]) -> None:
        super().__init__()
        self.entity_ids = tuple(state.entity_id for state in states)


def intent_slots(
    hass: HomeAssistant,
    tool: llm.IntentTool,
    arguments: Mapping[str, Any],
    llm_context: llm.LLMContext,
) -> dict[str, Any]:
    """Build the slots Home Assistant's IntentTool builds from the same arguments."""
    slots: dict[str, Any] = {
        key: {"value": value}
        for key, value in arguments.items()
        if not intent.is_blank_slot_value(value)
    }
    if tool.extra_slots:
        preferences = llm.async_get_match_preferences(hass, llm_context)
        for slot_name, slot_value in (
            ("preferred_area_id", preferences.area_id),
            ("preferred_floor_id", preferences.floor_id),
        ):
            if slot_value and slot_name in tool.extra_slots:
                slots[slot_name] = {"value": slot_value}
    return slots


async def _async_intent_targets(
    hass: HomeAssistant,
    tool: llm.IntentTool,
    arguments: Mapping[str, Any],
    llm_context: llm.LLMContext,
) -> tuple[str, ...]:
    rule = intent_rule(hass, tool.intent_type)
    handler = _handler(hass, tool.intent_type)
    assert rule is not None
    assert handler is not None
    slots = intent_slots(hass, tool, arguments, llm_context)
    if rule.generic:
        assert isinstance(handler, intent.DynamicServiceIntentHandler)
        return await _async_dry_run(hass, handler, tool.intent_type, slots, llm_context)
    assert rule.domains is not None
    return _match_within(hass, rule.domains, slots, llm_context.assistant)


async def _async_dry_run(
    hass: HomeAssistant,
    handler: intent.DynamicServiceIntentHandler,
    intent_type: str,
    slots: dict[str, Any],
    llm_context: llm.LLMContext,
) -> tuple[str, ...]:
    """Run the handler's own matching and stop before it calls any service.

    A call the handler rejects (no match, invalid slots, no constraint at all) changes
    nothing when it really runs either: it fails the same way, on the same states.
    """
    probe = copy.copy(handler)

    async def stop_before_acting(
        intent_obj: intent.Intent,
        match_result: intent.MatchTargetsResult,
        match_constraints: intent.MatchTargetsConstraints,
        match_preferences: intent.MatchTargetsPreferences | None = None,
    ) -> intent.IntentResponse:
        raise _Matched(match_result.states)

    probe.async_handle_states = stop_before_acting  # type: ignore[method-assign]
    intent_obj = intent.Intent(
        hass,
        platform=llm_context.platform,
        intent_type=intent_type,
        slots=copy.deepcopy(slots),
        text_input=None,
        context=llm_context.context or Context(),
        language=llm_context.language or hass.config.language,
        assistant=llm_context.assistant,
        device_id=llm_context.device_id,
    )
    try:
        await intent.DynamicServiceIntentHandler.async_handle(probe, intent_obj)
    except _Matched as matched:
        return matched.entity_ids
    except intent.IntentError, probatio.Invalid:
        return ()
    # The handler returned without reaching its service calls: nothing was matched.
    return ()


def _match_within(
    hass: HomeAssistant, domains: frozenset[str], slots: Mapping[str, Any], assistant: str
) -> tuple[str, ...]:
    """Entities of these domains the call can reach; every exposed one when in doubt."""

    def slot(name: str) -> str | None:
        value = slots.get(name, {}).get("value")
        return value if isinstance(value, str) and value.strip() else None

    name = slot("name")
    constraints = intent.MatchTargetsConstraints(
        name=None if name == "all" else name,
        area_name=slot("area"),
        floor_name=slot("floor"),
        domains=set(domains),
        assistant=assistant,
        allow_duplicate_names=True,
    )
    if name not in {None, "all"} or constraints.area_name or constraints.floor_name:
        result = intent.async_match_targets(
            hass,
            constraints,
            intent.MatchTargetsPreferences(
                area_id=slot("preferred_area_id"), floor_id=slot("preferred_floor_id")
            ),
        )
        if result.is_match:
            return tuple(state.entity_id for state in result.states)
    return tuple(
        state.entity_id
        for domain in sorted(domains)
        for state in hass.states.async_all(domain)
        if async_should_expose(hass, assistant, state.entity_id)
    )
