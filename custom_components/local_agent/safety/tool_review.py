"""What a tool of Home Assistant's LLM APIs will do, judged before it runs.

Every tool the agent offers is in one class, decided before the model sees it:

- read-only: known to change nothing;
- targeted: changes entities resolved exactly as Home Assistant's own handler resolves them.
  Generic service intents (HassTurnOn, HassSetPosition, ...) are dry-run through the handler's
  own matching (`name: all`, area, floor, domain, device class, the satellite's area), stopped
  just before any service is called; intents with handlers of their own are matched the same
  way inside the only domains they can touch;
- no entity effect: known to act on no entity (timers, broadcasts);
- unknown: everything else — scripts, intent scripts, other integrations' tools, any intent a
  later Home Assistant adds, or a known intent whose handler was replaced. An unknown tool is
  treated as sensitive: held for confirmation, refused without a person.

Arguments with a deferred effect (a timer's `conversation_command`, which Home Assistant runs
through its default agent when the timer ends, outside this gate) are never offered, and a
call that carries one anyway is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
import copy
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

import probatio

from custom_components.local_agent.engine.types import JsonSchema
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.core import Context, HomeAssistant, State
from homeassistant.helpers import intent, llm


class ToolClass(Enum):
    """What kind of effect a tool has."""

    READ_ONLY = "read_only"
    TARGETED = "targeted"
    NO_ENTITY_EFFECT = "no_entity_effect"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class IntentRule:
    """How one intent of Home Assistant behaves.

    `modules` are the modules its handler class may come from: a handler registered by
    something else under the same name (an intent script, a custom integration) is unknown.
    `domains` are the only domains a handler with its own matching can change.
    """

    tool_class: ToolClass
    modules: frozenset[str]
    domains: frozenset[str] | None = None
    generic: bool = False


_HELPER: Final = "homeassistant.helpers.intent"


def _read_only(*modules: str) -> IntentRule:
    return IntentRule(ToolClass.READ_ONLY, frozenset(modules))


def _no_entity(*modules: str) -> IntentRule:
    return IntentRule(ToolClass.NO_ENTITY_EFFECT, frozenset(modules))


def _generic(*modules: str) -> IntentRule:
    return IntentRule(ToolClass.TARGETED, frozenset(modules), generic=True)


def _within(domains: set[str], *modules: str) -> IntentRule:
    return IntentRule(ToolClass.TARGETED, frozenset(modules), domains=frozenset(domains))


_INTENT: Final = "homeassistant.components.intent"
_TIMERS: Final = "homeassistant.components.intent.timers"
_MEDIA: Final = "homeassistant.components.media_player.intent"

# Every intent Home Assistant 2026.10/2026.11 registers. A test fails when a release adds one.
INTENT_RULES: Final[Mapping[str, IntentRule]] = {
    # Read-only.
    "HassGetState": _read_only(_INTENT),
    "HassGetWeather": _read_only("homeassistant.components.weather.intent"),
    "HassClimateGetTemperature": _read_only(_INTENT),
    "HassGetCurrentDate": _read_only(_INTENT),
    "HassGetCurrentTime": _read_only(_INTENT),
    "HassTimerStatus": _read_only(_TIMERS),
    "HassNevermind": _read_only(_INTENT),
    "HassRespond": _read_only(_INTENT),
    "HassShoppingListLastItems": _read_only("homeassistant.components.shopping_list.intent"),
    # Timers and announcements act on no entity.
    "HassStartTimer": _no_entity(_TIMERS),
    "HassCancelTimer": _no_entity(_TIMERS),
    "HassCancelAllTimers": _no_entity(_TIMERS),
    "HassIncreaseTimer": _no_entity(_TIMERS),
    "HassDecreaseTimer": _no_entity(_TIMERS),
    "HassPauseTimer": _no_entity(_TIMERS),
    "HassUnpauseTimer": _no_entity(_TIMERS),
    "HassBroadcast": _no_entity("homeassistant.components.assist_satellite.intent"),
    # Generic service intents: resolved by the handler's own matching.
    "HassTurnOn": _generic(_INTENT),
    "HassTurnOff": _generic(_INTENT),
    "HassToggle": _generic(_HELPER, _INTENT),
    "HassSetPosition": _generic(_INTENT),
    "HassStopMoving": _generic(_INTENT),
    "HassOpenCover": _generic(_HELPER),
    "HassCloseCover": _generic(_HELPER),
    "HassLightSet": _generic(_HELPER),
    "HassFanSetSpeed": _generic(_HELPER),
    "HassMediaNext": _generic(_HELPER),
    "HassMediaPrevious": _generic(_HELPER),
    "HassMediaPause": _generic(_MEDIA),
    "HassMediaUnpause": _generic(_MEDIA),
    "HassSetVolume": _generic(_HELPER),
    "HassVacuumStart": _generic(_HELPER),
    "HassVacuumReturnToBase": _generic(_HELPER),
    "HassLawnMowerDock": _generic(_HELPER),
    "HassLawnMowerStartMowing": _generic(_HELPER),
    # Handlers with matching of their own, each inside its domain.
    "HassMediaPlayerMute": _within({"media_player"}, _MEDIA),
    "HassMediaPlayerUnmute": _within({"media_player"}, _MEDIA),
    "HassSetVolumeRelative": _within({"media_player"}, _MEDIA),
    "HassMediaSearchAndPlay": _within({"media_player"}, _MEDIA),
    "HassClimateSetTemperature": _within({"climate"}, "homeassistant.components.climate.intent"),
    "HassClimateSetFanMode": _within({"climate"}, "homeassistant.components.climate.intent"),
    "HassHumidifierMode": _within({"humidifier"}, "homeassistant.components.humidifier.intent"),
    "HassHumidifierSetpoint": _within({"humidifier"}, "homeassistant.components.humidifier.intent"),
    "HassVacuumCleanArea": _within({"vacuum"}, "homeassistant.components.vacuum.intent"),
    "HassListAddItem": _within({"todo"}, "homeassistant.components.todo.intent"),
    "HassListCompleteItem": _within({"todo"}, "homeassistant.components.todo.intent"),
    "HassListRemoveItem": _within({"todo"}, "homeassistant.components.todo.intent"),
    "HassShoppingListAddItem": _within({"todo"}, "homeassistant.components.shopping_list.intent"),
    "HassShoppingListCompleteItem": _within(
        {"todo"}, "homeassistant.components.shopping_list.intent"
    ),
}

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
SCRIPT_TOOL: Final = "homeassistant.components.script.llm.ScriptTool"
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
    """Return the tool behind its API namespaces."""
    while isinstance(tool, llm.NamespacedTool):
        tool = tool.tool
    return tool


def _qualified_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def intent_type_of(tool: llm.Tool) -> str | None:
    """Return the intent a tool runs, if it is an intent tool."""
    inner = unwrap(tool)
    return inner.intent_type if isinstance(inner, llm.IntentTool) else None


def _handler(hass: HomeAssistant, intent_type: str) -> intent.IntentHandler | None:
    return next((h for h in intent.async_get(hass) if h.intent_type == intent_type), None)


def intent_rule(hass: HomeAssistant, intent_type: str) -> IntentRule | None:
    """Return an intent's rule when the registered handler is the one the rule describes."""
    rule = INTENT_RULES.get(intent_type)
    handler = _handler(hass, intent_type)
    if rule is None or handler is None:
        return None
    if type(handler).__module__ not in rule.modules:
        return None
    if rule.generic and not _handles_generically(handler):
        return None
    return rule


def _handles_generically(handler: intent.IntentHandler) -> bool:
    return (
        isinstance(handler, intent.DynamicServiceIntentHandler)
        and type(handler).async_handle is intent.DynamicServiceIntentHandler.async_handle
    )


def classify(hass: HomeAssistant, tool: llm.Tool) -> ToolClass:
    """Classify a tool before any call."""
    inner = unwrap(tool)
    if isinstance(inner, llm.IntentTool):
        rule = intent_rule(hass, inner.intent_type)
        return rule.tool_class if rule is not None else ToolClass.UNKNOWN
    name = _qualified_name(type(inner))
    if name in READ_ONLY_TOOLS:
        return ToolClass.READ_ONLY
    if name == SCRIPT_TOOL or name in WITHIN_DOMAIN_TOOLS:
        return ToolClass.TARGETED
    return ToolClass.UNKNOWN


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
    intent_type = inner.intent_type if isinstance(inner, llm.IntentTool) else None
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
    if isinstance(inner, llm.IntentTool):
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
    # A script tool runs its own script.
    return ToolReview(tool_class, None, (f"script.{inner.name.split('__', 1)[1]}",))


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
