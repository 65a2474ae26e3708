"""Exposed entities and their services as tools: schemas and validation.

One tool per domain with exposed entities (`action` + `entity_id` + that domain's
curated fields) and a read-only `get_state` tool. Every call is planned (validated)
before anything happens; home/runner.py then runs it with the user's context so Home
Assistant's own permission checks apply as well.

The parts live in service_catalog (services and argument checks), entity_view (how
entities read), resolver (references to ids) and actions (what a planned call is).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from typing import Any
from typing import Final

import probatio
from probatio.humanize import humanize_error

from custom_components.local_agent.compat import registered_service
from custom_components.local_agent.compat import vacuum_mapped_areas
from custom_components.local_agent.const import ASSISTANT
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.types import JsonSchema
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.engine.types import ToolSpec
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.const import ATTR_SUPPORTED_FEATURES
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.core import HomeAssistant
from homeassistant.core import State
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import llm
from homeassistant.helpers.service import async_get_all_descriptions
from homeassistant.util.hass_dict import HassKey

from .actions import PlannedAction
from .actions import ToolFailure
from .call_texts import Names
from .call_texts import Phrase
from .call_texts import said_area
from .call_texts import said_name
from .colours import COLOUR_FIELD
from .colours import COLOUR_FIELDS
from .colours import NO_WORDS
from .colours import ColourWords
from .colours import read_colour
from .entity_view import EntityLine
from .entity_view import entity_line
from .entity_view import one_line
from .exposed import exposed_entity_ids
from .resolver import EntityResolver
from .service_catalog import AREA_FIELD
from .service_catalog import ActionSpec
from .service_catalog import Refusal
from .service_catalog import ServiceCatalog
from .service_catalog import action_supported
from .service_catalog import build_catalog
from .service_catalog import coerce_value
from .service_catalog import entity_constraint_error
from .service_catalog import entity_option
from .service_catalog import field_supported
from .service_catalog import options_hint
from .service_catalog import redacted

__all__ = [
    "GET_STATE",
    "PLACE_TARGETS",
    "HomeTools",
    "PlannedAction",
    "ToolFailure",
    "async_build_home_tools",
]

GET_STATE: Final = "get_state"
# Our tools described as Home Assistant (2026.10+) describes an LLM tool: whose they are and what
# they may do. get_state only reads; a domain tool changes entities of this home, nothing else.
TOOL_INTEGRATION: Final = DOMAIN
READ_ONLY_TOOL: Final = llm.ToolAnnotations(
    read_only=True, destructive=False, idempotent=True, open_world=False
)
CONTROL_TOOL: Final = llm.ToolAnnotations(
    read_only=False, destructive=True, idempotent=False, open_world=False
)
# The prompt names each entity once, in the home list: entity_id is a plain string there. The
# call grammar holds it to the exposed ids (ToolSpec.grammar_parameters), up to this many
# per tool; past it any text, which validation refuses when it is no exposed id.
ENTITY_ENUM_LIMIT: Final = 5000
# A service's targets by place, which no tool of ours offers (a model may write them anyway).
PLACE_TARGETS: Final = frozenset({"area_id", "floor_id"})
# The reason a field the action does not take is refused with (the field is never said).
UNKNOWN_FIELD: Final = "refused_unknown_field"

_CATALOG_CACHE: HassKey[tuple[Mapping[str, Any], ServiceCatalog]] = HassKey(
    "local_agent_service_catalog"
)
_SPECS_CACHE: HassKey[dict[str, _CachedSpecs]] = HassKey("local_agent_tool_specs")


@dataclass(frozen=True, slots=True)
class DomainTool:
    """The tool of one domain: its offered actions and exposed entities."""

    domain: str
    actions: Mapping[str, ActionSpec]
    entity_ids: tuple[str, ...]
    # The areas each entity cleans (vacuum.clean_area's), where it has any.
    areas: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def spec(self) -> ToolSpec:
        """Return the schema shown to the model (sorted, so it is stable)."""
        fields: dict[str, JsonSchema] = {}
        for service in sorted(self.actions):
            for name, field_spec in self.actions[service].fields.items():
                fields.setdefault(name, field_spec.schema)
        if AREA_FIELD in fields:
            # One of the home's areas that a vacuum here cleans, never any text.
            cleaned = sorted({area for areas in self.areas.values() for area in areas})
            fields[AREA_FIELD] = {"type": "array", "items": {"type": "string", "enum": cleaned}}
        description = f"Control {self.domain} entities."
        if calls := [a.signature() for _, a in sorted(self.actions.items()) if a.fields]:
            description += f" Fields by action: {'; '.join(calls)}."

        def schema(entity: JsonSchema) -> JsonSchema:
            entity_id: JsonSchema = {"anyOf": [entity, {"type": "array", "items": entity}]}
            properties: dict[str, JsonSchema] = {
                "action": {"type": "string", "enum": sorted(self.actions)},
                "entity_id": entity_id,
            } | {name: fields[name] for name in sorted(fields)}
            return {"type": "object", "properties": properties, "required": ["action", "entity_id"]}

        return ToolSpec(
            name=self.domain,
            description=description,
            parameters=schema({"type": "string"}),
            grammar_parameters=schema(_entity_enum(self.entity_ids)),
            # Never entity_id: a target is an exposed id, never a name taken on trust.
            checked_by_tool=frozenset({"action", *_numbers(fields)}),
        )


@dataclass(frozen=True, slots=True)
class _CachedSpecs:
    catalog: ServiceCatalog
    key: tuple[tuple[Any, ...], ...]
    specs: list[ToolSpec]
    tools: dict[str, DomainTool]


def _numbers(fields: Mapping[str, JsonSchema]) -> list[str]:
    """Return the fields that take a number, which the catalog's coerce_value reads as written."""
    return [name for name, schema in fields.items() if schema.get("type") == "number"]


def _entity_enum(entity_ids: Sequence[str]) -> JsonSchema:
    """Return what the grammar lets entity_id be: one of these ids (unless there are too many)."""
    entity: JsonSchema = {"type": "string"}
    if len(entity_ids) <= ENTITY_ENUM_LIMIT:
        entity["enum"] = sorted(entity_ids)
    return entity


def get_state_spec(entity_ids: Sequence[str]) -> ToolSpec:
    """Return the read-only tool; the grammar holds its entity_id to the exposed ids."""

    def schema(entity: JsonSchema) -> JsonSchema:
        return {"type": "object", "properties": {"entity_id": entity}, "required": ["entity_id"]}

    return ToolSpec(
        name=GET_STATE,
        description="Read the current state of any listed entity.",
        parameters=schema({"type": "string"}),
        grammar_parameters=schema(_entity_enum(entity_ids)),
    )


async def async_build_home_tools(hass: HomeAssistant, *, assistant: str = ASSISTANT) -> HomeTools:
    """Return the tools for the entities exposed to `assistant`, as of now."""
    descriptions = await async_get_all_descriptions(hass)
    catalog = _catalog(hass, descriptions)
    exposed = {
        entity_id: state
        for entity_id in exposed_entity_ids(hass, assistant)
        if (state := hass.states.get(entity_id)) is not None
    }
    specs, tools = _specs(hass, assistant, catalog, exposed)
    return HomeTools(hass, assistant, exposed, specs, tools)


def _catalog(hass: HomeAssistant, descriptions: Mapping[str, Any]) -> ServiceCatalog:
    """Reuse the catalog while Home Assistant returns the same descriptions object."""
    cached = hass.data.get(_CATALOG_CACHE)
    if cached is not None and cached[0] is descriptions:
        return cached[1]
    catalog = build_catalog(hass, descriptions)
    hass.data[_CATALOG_CACHE] = (descriptions, catalog)
    return catalog


def _specs(
    hass: HomeAssistant,
    assistant: str,
    catalog: ServiceCatalog,
    exposed: Mapping[str, State],
) -> tuple[list[ToolSpec], dict[str, DomainTool]]:
    """Return cached specs unless exposure, entity features or services changed."""
    controllable = [state for state in exposed.values() if state.domain in catalog]
    areas = _cleaned_areas(hass, catalog, controllable)
    key = (
        tuple(sorted(exposed)),
        tuple(sorted(areas.items())),
        *(
            (
                state.entity_id,
                state.attributes.get(ATTR_SUPPORTED_FEATURES),
                # The only attribute that curated fields' filters look at (light colour modes).
                tuple(state.attributes.get("supported_color_modes") or ()),
            )
            for state in sorted(controllable, key=lambda s: s.entity_id)
        ),
    )
    cache = hass.data.setdefault(_SPECS_CACHE, {})
    cached = cache.get(assistant)
    if cached is not None and cached.catalog is catalog and cached.key == key:
        return list(cached.specs), cached.tools
    tools: dict[str, DomainTool] = {}
    for domain in sorted({state.domain for state in controllable}):
        states = sorted((s for s in controllable if s.domain == domain), key=lambda s: s.entity_id)
        if actions := _offered_actions(catalog[domain], states, areas):
            entity_ids = tuple(s.entity_id for s in states)
            own = {entity_id: areas[entity_id] for entity_id in entity_ids if entity_id in areas}
            tools[domain] = DomainTool(domain, actions, entity_ids, own)
    specs = [tool.spec() for tool in tools.values()] + [get_state_spec(list(exposed))]
    cache[assistant] = _CachedSpecs(catalog, key, specs, tools)
    return list(specs), tools


def _cleaned_areas(
    hass: HomeAssistant, catalog: ServiceCatalog, states: Sequence[State]
) -> dict[str, tuple[str, ...]]:
    """Return the areas each vacuum that cleans by area cleans (none: left out)."""
    by_area = {
        domain
        for domain, actions in catalog.items()
        if any(AREA_FIELD in action.fields for action in actions.values())
    }
    return {
        state.entity_id: areas
        for state in states
        if state.domain in by_area and (areas := vacuum_mapped_areas(hass, state.entity_id))
    }


def _offered_actions(
    actions: Mapping[str, ActionSpec],
    states: Sequence[State],
    areas: Mapping[str, tuple[str, ...]],
) -> dict[str, ActionSpec]:
    """Keep the actions, and their fields, that at least one exposed entity supports.

    An area's cleaning is supported by a vacuum with areas mapped to its rooms.
    """
    offered: dict[str, ActionSpec] = {}
    for service, action in sorted(actions.items()):
        supporting = [
            state
            for state in states
            if action_supported(action, state)
            and (AREA_FIELD not in action.fields or state.entity_id in areas)
        ]
        if not supporting:
            continue
        fields = {
            name: spec
            for name, spec in action.fields.items()
            if any(field_supported(spec, state) for state in supporting)
        }
        offered[service] = replace(action, fields=fields)
    return offered


class HomeTools:
    """The tools of one turn: specs for the prompt, the home's lines, and call planning."""

    def __init__(
        self,
        hass: HomeAssistant,
        assistant: str,
        exposed: Mapping[str, State],
        specs: list[ToolSpec],
        tools: Mapping[str, DomainTool],
    ) -> None:
        """Hold one turn's view of the exposed home."""
        self.hass = hass
        self.assistant = assistant
        self.specs = specs
        self._exposed = exposed
        self._tools = tools
        self._entities = EntityResolver(hass, assistant, exposed, tools)

    @property
    def tool_names(self) -> list[str]:
        """Return the names of the offered tools."""
        return [spec.name for spec in self.specs]

    def annotations(self, name: str) -> llm.ToolAnnotations | None:
        """Return what one of our tools may do (None: not one of this turn's tools)."""
        if name == GET_STATE:
            return READ_ONLY_TOOL
        return CONTROL_TOOL if name in self._tools else None

    def lines(self) -> list[EntityLine]:
        """Return each exposed entity's line (who it is, its current state), by entity id."""
        states = (self.hass.states.get(entity_id) for entity_id in sorted(self._exposed))
        return [entity_line(self.hass, state) for state in states if state is not None]

    def plan(self, call: ToolCall, colours: ColourWords = NO_WORDS) -> PlannedAction | ToolFailure:
        """Validate a call completely; nothing is executed here.

        `colours`: the conversation language's colour words, which name a light's colour as
        well as its CSS name does ("rot" is "red").
        """
        if call.name == GET_STATE:
            return self._plan_get_state(call.arguments)
        tool = self._tools.get(call.name)
        if tool is None:
            return ToolFailure(f"Unknown tool {call.name!r}. Tools: {', '.join(self.tool_names)}.")
        arguments = dict(call.arguments)
        action = _resolve_action(tool, arguments.pop("action", None))
        if isinstance(action, ToolFailure):
            return action
        if by_place := sorted(PLACE_TARGETS & arguments.keys()):
            return _refused_by_place(tool, by_place[0])
        entity_ids = self._entities.resolve(arguments.pop(ATTR_ENTITY_ID, None), tool.domain)
        if isinstance(entity_ids, ToolFailure):
            return entity_ids
        states = [self.hass.states.get(entity_id) for entity_id in entity_ids]
        checked = [state for state in states if state is not None]
        if failure := _target_error(action, checked):
            return failure
        if COLOUR_FIELD in arguments:
            read_colour(arguments, colours, checked)
        data = _check_fields(self.hass, tool, action, arguments, checked)
        if isinstance(data, ToolFailure):
            return data
        if error := self._schema_error(action, entity_ids, data):
            return ToolFailure(error)
        return PlannedAction(tool.domain, tool.domain, action.service, entity_ids, data)

    def entity_hint(self, tool_name: str, written: Any) -> str | None:
        """Return which exposed entities an entity_id as written may mean (None: none).

        For the model's retry after the call was refused; nothing is resolved to run.
        """
        tool = self._tools.get(tool_name)
        if tool is None and tool_name != GET_STATE:
            return None
        return self._entities.suggestion(written, tool.domain if tool is not None else None)

    def _plan_get_state(self, arguments: Mapping[str, Any]) -> PlannedAction | ToolFailure:
        if unknown := sorted(set(arguments) - {ATTR_ENTITY_ID}):
            return ToolFailure(f"get_state takes only entity_id, not {', '.join(unknown)}.")
        entity_ids = self._entities.resolve(arguments.get(ATTR_ENTITY_ID), None)
        if isinstance(entity_ids, ToolFailure):
            return entity_ids
        return PlannedAction(GET_STATE, None, None, entity_ids)

    def _schema_error(
        self, action: ActionSpec, entity_ids: tuple[str, ...], data: Mapping[str, Any]
    ) -> str | None:
        """Run the service's own schema, as registered, on the exact call data."""
        handler = registered_service(self.hass, action.domain, action.service)
        if handler is None:
            return f"{action.domain}.{action.service} is not available right now."
        if handler.schema is None:
            return None
        payload = {**data, ATTR_ENTITY_ID: list(entity_ids)}
        try:
            handler.schema(payload)
        except probatio.Invalid as err:
            return (
                f"Invalid arguments for {action.service}: {humanize_error(redacted(payload), err)}"
            )
        return None


def _resolve_action(tool: DomainTool, raw: Any) -> ActionSpec | ToolFailure:
    allowed = ", ".join(tool.actions)
    if not isinstance(raw, str) or not raw.strip():
        return ToolFailure(f"action is required. {tool.domain} actions: {allowed}.")
    name = raw.strip().lower().removeprefix(f"{tool.domain}.")
    if (action := tool.actions.get(name)) is None:
        return ToolFailure(f"Unknown action {raw!r} for {tool.domain}. Allowed: {allowed}.")
    return action


def _target_error(action: ActionSpec, states: Sequence[State]) -> ToolFailure | None:
    for state in states:
        if state.state == STATE_UNAVAILABLE:
            # Said to the person too: "I could not turn off A and B" alone does not say why.
            return ToolFailure(
                f"{one_line(state.name)} ({state.entity_id}) is unavailable right now.",
                (Phrase("reason_unavailable", {"name": said_name(state.name, state.entity_id)}),),
            )
        if not action_supported(action, state):
            return _unsupported(state, action.service)
    return None


def _unsupported(state: State, what: str) -> ToolFailure:
    """Refuse a service or a field the entity's features do not have (a colour: said so)."""
    key = "refused_no_colour" if what in COLOUR_FIELDS else "refused_unsupported"
    return ToolFailure(
        f"{one_line(state.name)} ({state.entity_id}) does not support {what}.",
        (Phrase(key, {"name": said_name(state.name, state.entity_id)}),),
    )


# A thermostat that holds a low and a high target, never a single one.
RANGE_FIELDS: Final = frozenset({"target_temp_low", "target_temp_high"})


def _unsupported_field(state: State, action: ActionSpec, name: str) -> ToolFailure:
    """Refuse a field the entity lacks, naming the action's fields it has.

    A thermostat that holds a range takes target_temp_low/high, never temperature: told so, the
    model can retry with them.
    """
    failure = _unsupported(state, name)
    usable = [
        other
        for other, spec in action.fields.items()
        if other != name and field_supported(spec, state)
    ]
    if not usable:
        return failure
    reason = failure.reason
    if name == "temperature" and RANGE_FIELDS.issubset(usable):
        said = said_name(state.name, state.entity_id)
        reason = (Phrase("refused_range_only", {"name": said}),)
    return ToolFailure(f"{failure.message} {action.service} takes: {', '.join(usable)}.", reason)


def _refused(refusal: Refusal) -> ToolFailure:
    reason = (Phrase(refusal.key, refusal.facts),) if refusal.key else ()
    return ToolFailure(refusal.message, reason)


def _check_fields(
    hass: HomeAssistant,
    tool: DomainTool,
    action: ActionSpec,
    arguments: Mapping[str, Any],
    states: Sequence[State],
) -> dict[str, Any] | ToolFailure:
    temperature_unit = hass.config.units.temperature_unit
    data: dict[str, Any] = {}
    for name, value in sorted(arguments.items()):
        if value is None:
            continue
        spec = action.fields.get(name)
        if spec is None:
            return _refused_field(tool, action, name, states)
        converted, refusal = coerce_value(spec, value, temperature_unit)
        if refusal is not None:
            return _refused(refusal)
        for state in states:
            converted = entity_option(name, converted, state)
            if not field_supported(spec, state):
                return _unsupported_field(state, action, name)
            if refusal := entity_constraint_error(
                tool.domain, spec, converted, state, temperature_unit
            ):
                return _refused(refusal)
            if name == AREA_FIELD and (failure := _area_error(hass, tool, converted, state)):
                return failure
        data[name] = converted
    if missing := [n for n, spec in action.fields.items() if spec.required and n not in data]:
        return ToolFailure(
            f"{action.service} needs {', '.join(missing)}. Call it as {action.signature()}."
        )
    return data


def _area_error(
    hass: HomeAssistant, tool: DomainTool, areas: list[Any], state: State
) -> ToolFailure | None:
    """Refuse an area the vacuum cleans not (Home Assistant would skip that vacuum)."""
    cleaned = tool.areas.get(state.entity_id, ())
    name = {"name": said_name(state.name, state.entity_id)}
    if not cleaned:
        return ToolFailure(
            f"{one_line(state.name)} ({state.entity_id}) has no areas mapped to its rooms.",
            (Phrase("refused_no_rooms", name),),
        )
    if not areas:  # Home Assistant would clean nothing and say nothing
        return ToolFailure(f"{AREA_FIELD} names no area. {options_hint(cleaned, '')}")
    if unknown := [area for area in areas if area not in cleaned]:
        wrong = unknown[0]
        message = (
            f"{one_line(state.name)} cleans no area {wrong!r}. {options_hint(cleaned, str(wrong))}"
        )
        # Said by the area's own name; one that is no area of the home is not said at all.
        if not isinstance(wrong, str) or (area := ar.async_get(hass).async_get_area(wrong)) is None:
            return ToolFailure(message)
        said = {"area": said_area(area.name, area.id)}
        return ToolFailure(message, (Phrase("refused_no_room_for", name | said),))
    return None


def _refused_by_place(tool: DomainTool, key: str) -> ToolFailure:
    """Refuse an area or a floor as the target: our tools act on the entities named only."""
    return ToolFailure(
        f"{tool.domain} takes no {key}: name each exposed {tool.domain} entity of that place "
        "in entity_id (the home list shows where each one is).",
        (Phrase("refused_by_area", {}),),
    )


def _refused_field(
    tool: DomainTool, action: ActionSpec, name: str, states: Sequence[State]
) -> ToolFailure:
    """Refuse a field the action does not take; the person hears so, not the field as written.

    The field is the model's word ("brightness" for brightness_pct), never said to the person.
    """
    message = _unknown_field(tool, action, name)
    if not states:
        return ToolFailure(message)
    names = Names(
        tuple(said_name(state.name, state.entity_id) for state in states),
        tuple(state.entity_id for state in states),
    )
    return ToolFailure(message, (Phrase(UNKNOWN_FIELD, {"name": names}),))


def _unknown_field(tool: DomainTool, action: ActionSpec, name: str) -> str:
    takes = f"{action.service} takes {', '.join(action.fields) or 'no other fields'}."
    users = [service for service, other in tool.actions.items() if name in other.fields]
    if users:
        return f"{name} is not used by {action.service}; it belongs to {', '.join(users)}. {takes}"
    return f"Unknown field {name!r} for {tool.domain}. {takes}"
