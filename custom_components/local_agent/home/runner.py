"""Runs every call, immediate or confirmed: exposure, permission and availability checked once.

The one place a call reaches Home Assistant: our own tools' service calls and Home Assistant's
LLM API tools alike. A run checks, at that moment, that every target is still exposed and
available and that the requesting user may act on it, then calls with the user's context (so
Home Assistant's own checks apply as well). A run of a call whose result the agent says itself
(a confirmed one, and a plain action of our own tools) also checks what really happened.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from enum import Enum
from typing import Any
from typing import Final

import probatio
from probatio.humanize import humanize_error

from custom_components.local_agent.compat import registered_service
from custom_components.local_agent.compat import service_handler_facts
from custom_components.local_agent.compat import timer_tool_refusal
from custom_components.local_agent.const import ASSISTANT
from custom_components.local_agent.const import LOGGER
from custom_components.local_agent.engine.tool_calls import finite_number
from custom_components.local_agent.safety.tool_review import TARGET_SLOTS
from custom_components.local_agent.safety.tool_review import intent_type_of
from custom_components.local_agent.safety.tool_review import is_live_context
from homeassistant.auth.permissions.const import POLICY_CONTROL
from homeassistant.auth.permissions.const import POLICY_READ
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.const import ATTR_ASSUMED_STATE
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.const import ATTR_RESTORED
from homeassistant.const import STATE_OFF
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.const import STATE_UNKNOWN
from homeassistant.core import Context
from homeassistant.core import Event
from homeassistant.core import EventStateChangedData
from homeassistant.core import HomeAssistant
from homeassistant.core import State
from homeassistant.core import callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.exceptions import ServiceNotFound
from homeassistant.exceptions import Unauthorized
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import intent
from homeassistant.helpers import llm
from homeassistant.helpers.event import async_track_state_change_event
from homeassistant.util.json import JsonValueType

from .actions import ApiCall
from .actions import Call
from .actions import PlannedAction
from .call_texts import MAX_REASON
from .call_texts import Names
from .call_texts import Phrase
from .call_texts import Said
from .call_texts import StateWord
from .call_texts import describe_action
from .call_texts import entity_name
from .call_texts import intent_call
from .call_texts import intent_service
from .call_texts import join_names
from .call_texts import said_name
from .call_texts import service_of
from .entity_view import one_line
from .entity_view import state_summary
from .failure_reasons import NO_TIMER_SUPPORT
from .failure_reasons import PartlyDone
from .failure_reasons import Ran
from .failure_reasons import ReasonedFailure
from .failure_reasons import async_refused_by_core
from .failure_reasons import failure_reason
from .failure_reasons import integration_reason
from .listings import async_listing
from .live_context import async_bounded_live_context
from .service_catalog import SECRET_FIELDS
from .service_catalog import Quantity
from .service_catalog import redacted
from .turn_context import TurnContext


class Problem(Enum):
    """Why a call did not do what it was asked."""

    NOT_EXPOSED = "not_exposed"
    NOT_ALLOWED = "not_allowed"
    UNAVAILABLE = "unavailable"
    FAILED = "failed"
    NO_EFFECT = "no_effect"


@dataclass(frozen=True, slots=True)
class RunResult:
    """What a run did: the tool result the model reads, and what went wrong, if anything.

    `said` is what went wrong in words for the user, in their language (the model reads the
    English error of the result).
    """

    result: llm.ToolResult
    problem: Problem | None = None
    said: tuple[Said, ...] = ()

    @property
    def error(self) -> str | None:
        """Why the call failed, or None when it did what it was asked."""
        return error_text(self.result)


@dataclass(frozen=True, slots=True)
class Refusal:
    """A call that may not run now, and why (for the model and the audit; `said`: the user)."""

    problem: Problem
    message: str
    said: tuple[Said, ...]


@dataclass(slots=True)
class TargetStates(llm.ToolResult):
    """What our runner read of a call's targets after it ran: {"entities": their summaries}.

    Told by its class: another API's tool, a script or an intent may answer with the same key,
    and only what our runner read may be said to have been done. `entities`: those summaries.
    """

    entities: tuple[dict[str, Any], ...] = ()
    # The targets it found already in the state it asked for (said as they were, not done).
    already: frozenset[str] = frozenset()
    # The level a step found some of those at its end at ("already 100%"); others: their state.
    levels: Mapping[str, Quantity] = field(default_factory=dict)
    # Whether the call only read its targets (get_state): a read changes nothing.
    read: bool = False
    # The call as it ran: its data as the tools planned it, not as the model wrote it.
    ran: Ran | None = None

    @property
    def changed(self) -> bool:
        """Whether the call changed a target: an action on one it did not find as asked."""
        return not self.read and any(
            entity.get("entity_id") not in self.already for entity in self.entities
        )


@dataclass(slots=True)
class ChangedNothing(llm.ToolResult):
    """A successful result of ours that changed nothing in the home (told by its class)."""


def error_result(message: str) -> llm.ToolResult:
    """Return a failed call, with the reason the model (or the user) reads."""
    return llm.ToolResult(data={"error": message}, error=True)


def error_text(result: llm.ToolResult) -> str | None:
    """Return why a call failed, or None when it succeeded."""
    if not result.error:
        return None
    return str(result.data.get("error", result.data))


def partly_failed(result: llm.ToolResult) -> bool:
    """Whether an intent's result lists entities it failed on beside others it worked on.

    Home Assistant's intent handler calls each entity it matched and lists those whose call
    raised (a device that did not answer) as failed beside the ones that worked. Which ones
    failed is not said: Home Assistant 2026.10's handler pairs the entities with the calls in
    the order the calls finish, not the order they were made, so the names it lists may be
    the wrong ones (2026.11 pairs them in order).
    """
    if result.error or not isinstance(result.data, dict):
        return False
    data = result.data.get("data")
    return isinstance(data, dict) and bool(data.get("failed"))


# Checks --------------------------------------------------------------------------------------


async def async_check(hass: HomeAssistant, call: Call, turn: TurnContext) -> Refusal | None:
    """Why the call may not run now (exposure, permission, availability), or None."""
    targets = call.targets or ()
    for entity_id in targets:
        if hass.states.get(entity_id) is None or not async_should_expose(
            hass, ASSISTANT, entity_id
        ):
            return Refusal(
                Problem.NOT_EXPOSED,
                f"{entity_id} is no longer exposed to the assistant.",
                (Phrase("reason_not_exposed", {"name": entity_name(hass, entity_id)}),),
            )
    if reason := _permission_problem(hass, call, turn):
        return Refusal(Problem.NOT_ALLOWED, reason, (Phrase("reason_not_allowed"),))
    if call.read_only:
        return None
    for entity_id in targets:
        state = hass.states.get(entity_id)
        if state is not None and state.state == STATE_UNAVAILABLE:
            return Refusal(
                Problem.UNAVAILABLE,
                f"{one_line(state.name)} ({entity_id}) is unavailable right now.",
                (Phrase("reason_unavailable", {"name": said_name(state.name, entity_id)}),),
            )
    return None


def _permission_problem(hass: HomeAssistant, call: Call, turn: TurnContext) -> str | None:
    """Why the requesting user may not make the call, or None when they may.

    What Home Assistant enforces on its own service calls, applied to every call (some LLM
    API handlers drop the context or write to entities directly): no user (automations) or
    an admin may do anything; otherwise admin-only services are refused and every target
    needs the control permission (read permission for a call that only reads). A call whose
    targets cannot be known (a tool of unknown effect) needs control of every entity.
    """
    if turn.user_id is None:
        return None
    user = turn.user
    if user is None:
        return "The requesting user is unknown, so nothing was done."
    if not user.is_active:
        return "The requesting user is not active, so nothing was done."
    if user.is_admin:
        return None
    if (
        isinstance(call, PlannedAction)
        and call.domain
        and call.service
        and _is_admin_only(hass, call.domain, call.service)
    ):
        return (
            f"You are not allowed to {describe_action(hass, call)}: "
            f"only administrators may use {call.domain}.{call.service}."
        )
    policy = POLICY_READ if call.read_only else POLICY_CONTROL
    if call.targets is None and not user.permissions.access_all_entities(policy):
        return (
            f"You are not allowed to use {call.tool_name}: what it changes is not known, and "
            "only a user who may control everything may run it."
        )
    denied = [e for e in call.targets or () if not user.permissions.check_entity(e, policy)]
    if denied:
        verb = "read" if call.read_only else "control"
        return (
            f"You are not allowed to {verb} {join_names([entity_name(hass, e) for e in denied])}."
        )
    return None


def _is_admin_only(hass: HomeAssistant, domain: str, service: str) -> bool:
    handler = registered_service(hass, domain, service)
    return handler is not None and service_handler_facts(handler)[1]


# Runs ----------------------------------------------------------------------------------------


async def async_run(
    hass: HomeAssistant, call: Call, turn: TurnContext, *, verify: bool = False
) -> RunResult:
    """Check the call at this moment, then run it with the user's context; never raises.

    With `verify` (a call whose result the agent speaks itself: a confirmed action, a plain
    action of our tools, an intent whose "done" it says), a call that "succeeds" without its
    targets reaching the state it asks for is reported as failed.
    """
    if refusal := await async_check(hass, call, turn):
        return RunResult(error_result(refusal.message), refusal.problem, refusal.said)
    targets = call.targets or ()
    before = {
        entity_id: state.state
        for entity_id in _checked(hass, call.targets or ())
        if verify and (state := hass.states.get(entity_id))
    }
    positions = {
        entity_id: position
        for entity_id in (call.targets or ())
        if verify and (position := _position(hass, entity_id)) is not None
    }
    # A step that finds every target at its end ("dimmer" on a light that is off).
    ends = _at_their_end(hass, call) if verify else {}
    at_end = {e: s for e in ends if (s := hass.states.get(e))} if len(ends) == len(targets) else {}
    with _states_shown(hass, before) as shown:
        if isinstance(call, PlannedAction):
            result = await _async_execute(hass, call, turn.context)
        else:
            result = await _async_call_tool(hass, call, turn)
    if result.error:
        # Home Assistant's own error is English and may name entity ids or services ("Failed
        # to call set_cover_position for: ['cover.garage_door']"): the model and the audit read
        # it; the person hears that it failed, in their language.
        said = result.reason if isinstance(result, ReasonedFailure) else ()
        return RunResult(result, Problem.FAILED, said or (Phrase("reason_failed"),))
    # An intent that reports some of its devices failed says so itself (partly_failed), and
    # which ones it cannot tell: its targets are not checked one by one.
    if (
        verify
        and not partly_failed(result)
        and (missed := await _async_missed_targets(hass, call, before, positions))
    ):
        english, said, missed_ids = missed
        return RunResult(_partly_done(call, result, english, missed_ids), Problem.NO_EFFECT, said)
    if isinstance(result, TargetStates) and (
        already := _already_so(hass, call, before, shown)
        or (list(at_end) if at_end and _still_there(hass, at_end) else [])
    ):
        result.already = frozenset(already)
        result.levels = {e: level for e, level in ends.items() if level is not None}
        listed: list[JsonValueType] = list(already)
        result.data[ALREADY] = listed
    return RunResult(result)


def already_secured(hass: HomeAssistant, call: Call) -> TargetStates | None:
    """Return what a held call that only secures finds when every target already is so.

    "Lock the front door" on a door that reports locked changes nothing: it is said so, with
    no question and nothing run, whichever tool asks it: a plain call of our tools (no field
    but a PIN), or core's intent (its handler checked: `intent_type`) with nothing but its
    targets ("HassTurnOff" on a garage door closes it). Only one that locks, closes or arms
    targets of the very domain it calls, whose state their device reports now (not restored
    at start-up, not assumed) and is the very one the call ends in (armed in that mode, a
    cover at its end). Never an unlock, open or disarm; None otherwise (asked).
    """
    services = _securing_services(call)
    if services is None:
        return None
    secured = [
        state
        for entity_id, service in services.items()
        if (state := hass.states.get(entity_id)) is not None
        and state.state in _SECURED.get(service, ())
        and not state.attributes.get(ATTR_RESTORED)
        and not state.attributes.get(ATTR_ASSUMED_STATE)
        and state.attributes.get(_POSITION) in (None, _ENDS.get(service))
    ]
    if len(secured) != len(services):
        return None
    summaries = [state_summary(hass, state) for state in secured]
    found = frozenset(services)
    data: dict[str, Any] = {"entities": summaries, ALREADY: sorted(found)}
    ran = _ran(call) if isinstance(call, PlannedAction) else None
    return TargetStates(data=data, entities=tuple(summaries), already=found, ran=ran)


def _securing_services(call: Call) -> dict[str, str] | None:
    """Return the service a plain call makes on each target, in the target's own domain.

    None when it has none, sets more than a state, or calls another domain's service on one.
    """
    called: dict[str, tuple[str | None, str]] = {}
    if isinstance(call, PlannedAction):
        if call.data.keys() - SECRET_FIELDS:
            return None
        called = dict.fromkeys(call.entity_ids, (call.domain, call.service or ""))
    else:
        if not call.targets or call.intent_type is None or call.arguments.keys() - TARGET_SLOTS:
            return None
        for entity_id in call.targets:
            made = intent_call(call.intent_type, entity_id.partition(".")[0], {})
            if made is None or made[2]:
                return None
            called[entity_id] = (made[0], made[1])
    services: dict[str, str] = {}
    for entity_id, (domain, service) in called.items():
        if domain != entity_id.partition(".")[0]:
            return None
        services[entity_id] = service
    return services or None


def changed_something(results: Iterable[llm.ToolResult | None]) -> bool:
    """Whether a successful call changed something: then none is said to have been so already.

    The one place that decides it, over a whole turn or a whole yes: "turn off everything
    downstairs" is done for all it names, not done for four lights and a sentence for each fan
    that was off before; two held actions on one door, the first unlocking it, are both done.
    Told by the result's class: our runner's read changes nothing and its action changed the
    targets it did not find as asked; a call held for a yes (ChangedNothing) has changed
    nothing yet; any other tool that succeeded may have changed anything.
    """
    for result in results:
        if result is None or result.error or isinstance(result, ChangedNothing):
            continue
        if not isinstance(result, TargetStates) or result.changed:
            return True
    return False


def already_so(result: llm.ToolResult | None) -> frozenset[str]:
    """Return the targets our runner found already in the state a call asked for, untouched."""
    return result.already if isinstance(result, TargetStates) else frozenset()


def found_as_asked(domain: str, result: llm.ToolResult) -> list[Phrase]:
    """Say the targets of a call on `domain` its run found as it asked (already_so), together.

    Those in one state are named in one phrase: "Kitchen Lights and Bed Light: already on";
    a call may find its targets as asked in different states ("unlocked", "open").
    """
    already = already_so(result)
    entities = result.data.get("entities") if already else None
    found = [
        entity
        for entity in (entities if isinstance(entities, list) else ())
        if isinstance(entity, dict) and str(entity.get("entity_id")) in already
    ]
    # Said together by the state each shows: a lock left "open" by an unlock is no "unlocked".
    levels = result.levels if isinstance(result, TargetStates) else {}
    by_state: dict[StateWord | Quantity, dict[str, str]] = {}
    for entity in found:
        entity_id = str(entity["entity_id"])
        name = said_name(str(entity.get("name") or entity_id), entity_id)
        state = levels.get(entity_id) or StateWord(domain, str(entity.get("state")))
        by_state.setdefault(state, {})[entity_id] = name
    return [
        Phrase(
            "reason_already",
            {"name": Names(tuple(names.values()), tuple(names)), "state": state},
        )
        for state, names in by_state.items()
    ]


def _already_so(
    hass: HomeAssistant,
    call: Call,
    before: Mapping[str, str],
    shown: Mapping[str, Collection[str]],
) -> list[str]:
    """Return the targets of a plain call (no field but a PIN) when it found each as it asks.

    A state on its way there ("unlocking"), one that changed and came back during the call or
    a call that sets more than the state (a light's brightness) is not "already". Nor is a
    call that changed some of its targets: "turn off everything downstairs" is done for all
    (each is now as asked), not done for four lights and a sentence for each thing that was
    off before.
    """
    if not isinstance(call, PlannedAction) or call.data.keys() - SECRET_FIELDS:
        return []
    already = []
    for entity_id, was in before.items():
        domain = entity_id.split(".", 1)[0]
        expected = _expected(call, entity_id) or _ALREADY_ONLY.get((domain, call.service or ""))
        now = hass.states.get(entity_id)
        service = service_of(domain, call.service or "")
        if (
            expected
            and was in expected
            and not was.endswith("ing")
            and now
            and now.state == was
            and all(seen == was or seen.endswith("ing") for seen in shown.get(entity_id, ()))
            and service not in _NEVER_ALREADY
            and now.attributes.get(_POSITION) in (None, _ENDS.get(service))
        ):
            already.append(entity_id)
    return already if len(already) == len(before) else []


@contextmanager
def _states_shown(
    hass: HomeAssistant, entity_ids: Collection[str]
) -> Iterator[Mapping[str, Collection[str]]]:
    """Collect the states each entity shows while the block runs (on the event loop)."""
    shown: dict[str, set[str]] = {entity_id: set() for entity_id in entity_ids}

    @callback
    def record(event: Event[EventStateChangedData]) -> None:
        if (new := event.data["new_state"]) is not None:
            shown[event.data["entity_id"]].add(new.state)

    unsubscribe = async_track_state_change_event(hass, list(shown), record)
    try:
        yield shown
    finally:
        unsubscribe()


async def async_llm_api(hass: HomeAssistant, turn: TurnContext) -> llm.APIInstance:
    """Return the turn's LLM API instance; create one if the turn has none yet."""
    if turn.llm_api is None:
        turn.llm_api = await llm.async_get_api(hass, list(turn.llm_apis), turn.llm_context)
    return turn.llm_api


async def _async_call_tool(hass: HomeAssistant, call: ApiCall, turn: TurnContext) -> llm.ToolResult:
    """Run a tool of a Home Assistant LLM API (such as Assist's intents)."""
    if refusal := timer_tool_refusal(hass, call.tool_name, turn.llm_context.device_id):
        refused = await async_refused_by_core(hass, turn.language, NO_TIMER_SUPPORT, refusal)
        return refused or error_result(refusal)
    try:
        api = await async_llm_api(hass, turn)
        result = await api.async_call_tool(
            llm.ToolInput(tool_name=call.tool_name, tool_args=dict(call.arguments))
        )
    except intent.IntentHandleError as err:
        # Core's own agent says the error's sentence ("timer_not_found"): so does ours, for an
        # intent that Home Assistant's intent tool ran, never another tool raising the error.
        message = str(err) or type(err).__name__
        if (
            err.response_key
            and any(tool.name == call.tool_name and intent_type_of(tool) for tool in api.tools)
            and (
                refused := await async_refused_by_core(
                    hass, turn.language, err.response_key, message
                )
            )
        ):
            return refused
        return error_result(message)
    except (HomeAssistantError, probatio.Invalid) as err:
        return error_result(str(err) or type(err).__name__)
    if isinstance(result.data, llm.IntentResponseDict) and intent_response_of(result) is None:
        # An intent's dict made from a plain one: core's helpers read the intent response it
        # lacks ("no attribute 'original'"), so it is kept as the plain answer it is.
        result = llm.ToolResult(data=dict(result.data), error=result.error)
    if any(tool.name == call.tool_name and is_live_context(tool) for tool in api.tools):
        return await async_bounded_live_context(hass, result)
    return result


def intent_response_of(result: llm.ToolResult) -> intent.IntentResponse | None:
    """Return the intent response a tool result was made from; None for any other result.

    Any tool may answer with an IntentResponseDict made from a plain dict: it has none.
    """
    original = getattr(result.data, "original", None)
    return original if isinstance(original, intent.IntentResponse) else None


async def _async_execute(
    hass: HomeAssistant, action: PlannedAction, context: Context
) -> llm.ToolResult:
    """Run a planned call of our own tools; return the targets' new states."""
    if action.domain is not None and action.service is not None:
        payload = {**action.data, ATTR_ENTITY_ID: list(action.entity_ids)}
        switched = _switched_to(hass, action)
        if failure := await _async_call_service(hass, action, payload, context):
            return failure
        # Read once they report it (a light that answers late is said on): the check of the
        # targets after it (async_run's verify) then waits no longer.
        await _async_settle(hass, switched, SETTLE_SECONDS)
    states = (hass.states.get(entity_id) for entity_id in action.entity_ids)
    summaries = [state_summary(hass, state) for state in states if state is not None]
    if action.read_only:
        for summary in summaries:
            summary.update(await async_listing(hass, summary["entity_id"]))
    data: dict[str, Any] = {"entities": summaries}
    return TargetStates(
        data=data, entities=tuple(summaries), read=action.read_only, ran=_ran(action)
    )


def _ran(action: PlannedAction) -> Ran | None:
    """Return what the action runs, less a PIN; None for a read."""
    if action.domain is None or action.service is None:
        return None
    fields = tuple((k, v) for k, v in sorted(action.data.items()) if k not in SECRET_FIELDS)
    return Ran(action.domain, action.service, fields)


async def _async_call_service(
    hass: HomeAssistant, action: PlannedAction, payload: dict[str, Any], context: Context
) -> llm.ToolResult | None:
    """Call the service; return its failure (the message the model reads) when it fails."""
    assert action.domain is not None
    assert action.service is not None
    domain, service = action.domain, action.service
    try:
        await hass.services.async_call(domain, service, payload, blocking=True, context=context)
    except Unauthorized:
        return error_result(f"You are not allowed to {describe_action(hass, action)}.")
    except ServiceNotFound:
        return error_result(f"The action {domain}.{service} does not exist.")
    except probatio.Invalid as err:
        return error_result(
            f"Invalid arguments for {service}: {humanize_error(redacted(payload), err)}"
        )
    except HomeAssistantError as err:
        # Written by the integration, its placeholders too: one line the prompt can hold.
        message = one_line(str(err), MAX_REASON) or f"Could not {describe_action(hass, action)}."
        if reason := failure_reason(hass, action) or integration_reason(err):
            return ReasonedFailure(data={"error": message}, error=True, reason=reason)
        return error_result(message)
    except Exception:
        LOGGER.exception("Unexpected error from %s.%s", domain, service)
        return error_result(f"Could not {describe_action(hass, action)}: unexpected error.")
    return None


# What really happened ------------------------------------------------------------------------

# The states a target may show once a service did what it asks (moving ones count).
EXPECTED_STATES: Final[Mapping[str, frozenset[str]]] = {
    "lock": frozenset({"locked", "locking"}),
    "unlock": frozenset({"unlocked", "unlocking", "open", "opening"}),
    "open": frozenset({"open", "opening", "unlocked"}),
    "open_cover": frozenset({"open", "opening"}),
    "close_cover": frozenset({"closed", "closing"}),
    "open_valve": frozenset({"open", "opening"}),
    "close_valve": frozenset({"closed", "closing"}),
    "alarm_arm_away": frozenset({"armed_away", "arming", "pending"}),
    "alarm_arm_home": frozenset({"armed_home", "arming", "pending"}),
    "alarm_arm_night": frozenset({"armed_night", "arming", "pending"}),
    "alarm_arm_vacation": frozenset({"armed_vacation", "arming", "pending"}),
    "alarm_disarm": frozenset({"disarmed"}),
}
# Domains whose turn_on / turn_off end in "on" / "off" (a script's run or a scene's does not).
ON_OFF_DOMAINS: Final = frozenset({"fan", "input_boolean", "light", "siren", "switch"})
_OFF: Final = frozenset({"off"})
# The group integration (old-style groups' domain, and the platform of its helpers).
GROUP: Final = "group"
# How long a device may take to report the state it was asked for.
SETTLE_SECONDS = 3.0
# The key of a tool result that lists the targets a call found already as it asked: the model
# reads it, and the person hears they already were.
ALREADY: Final = "already"
# Calls that change nothing on a target found in these states, though the state they end in
# varies (a player switched off may show "standby"): said "already", never checked after.
_ALREADY_ONLY: Final[Mapping[tuple[str, str], frozenset[str]]] = {
    ("media_player", "turn_off"): frozenset({"off"}),
    ("media_player", "media_pause"): frozenset({"paused"}),
}
# Calls that only secure, and the one state each ends in: one that finds all its targets so
# is said "already" before any question (already_secured). Never one that opens or disarms.
_SECURED: Final[Mapping[str, frozenset[str]]] = {
    "lock": frozenset({"locked"}),
    "close_cover": frozenset({"closed"}),
    "close_valve": frozenset({"closed"}),
    "alarm_arm_away": frozenset({"armed_away"}),
    "alarm_arm_home": frozenset({"armed_home"}),
    "alarm_arm_night": frozenset({"armed_night"}),
    "alarm_arm_vacation": frozenset({"armed_vacation"}),
    "alarm_arm_custom_bypass": frozenset({"armed_custom_bypass"}),
}
# Calls that act whatever the state shows: a lock's "open" unlatches an unlocked door too.
_NEVER_ALREADY: Final = frozenset({"open"})
# Where an open or close takes a target that tells its position: a blind at 50 % is "open",
# and an open_cover still moves it.
_ENDS: Final[Mapping[str, int]] = {
    "open_cover": 100,
    "close_cover": 0,
    "open_valve": 100,
    "close_valve": 0,
}
# A cover's position (0 closed to 100 open), the one state some covers report.
_POSITION: Final = "current_position"
# Where each cover service takes a cover that reports its position: the field that names
# the position, or the position itself.
_POSITION_SERVICES: Final[Mapping[str, str | int]] = {
    "open_cover": 100,
    "close_cover": 0,
    "set_cover_position": "position",
}
# A turn-on's fields that set a level: 0 turns the light (the fan) off, a fraction of one may
# round to 0 as Home Assistant converts it.
_LEVELS: Final = frozenset({"brightness", "brightness_pct", "percentage"})
# A turn-on's fields that may end it off, whatever their value (a step down, a dark profile,
# a white level, a flash).
_MAY_END_OFF: Final = frozenset(
    {"brightness_step", "brightness_step_pct", "flash", "profile", "white"}
)


def _expected(call: Call, entity_id: str) -> frozenset[str] | None:
    domain = entity_id.split(".", 1)[0]
    if isinstance(call, PlannedAction):
        service = service_of(domain, call.service) if call.service else None
    else:
        service = intent_service(call.intent_type, domain)
    if service in {"turn_on", "turn_off"}:
        if domain not in ON_OFF_DOMAINS:
            return None
        if service == "turn_on" and isinstance(call, PlannedAction):
            return _turned_on(call.data)
        return frozenset({service.removeprefix("turn_")})
    return EXPECTED_STATES.get(service or "")


def _turned_on(data: Mapping[str, Any]) -> frozenset[str] | None:
    """Return the state a turn-on with these fields leaves its target in; None: either."""
    if _MAY_END_OFF & data.keys():
        return None
    levels = [data[key] for key in _LEVELS & data.keys()]
    if any(isinstance(level, bool) or not isinstance(level, int | float) for level in levels):
        return None
    if any(level == 0 for level in levels):
        return frozenset({"off"})
    if any(level < 1 for level in levels):
        return None
    return frozenset({"on"})


def _switched_to(hass: HomeAssistant, action: PlannedAction) -> dict[str, frozenset[str]]:
    """Return the states each target of a plain switch-on or -off shows once done (_expected).

    Nothing for other calls, for a turn-on whose fields may end it either way, nor for a
    target that has reported no state yet (an MQTT plug that has not spoken: it cannot tell).
    """
    if action.domain not in ON_OFF_DOMAINS or action.service not in {"turn_on", "turn_off"}:
        return {}
    return {
        entity_id: wanted
        for entity_id in action.entity_ids
        if (wanted := _expected(action, entity_id)) is not None
        and (state := hass.states.get(entity_id)) is not None
        and state.state != STATE_UNKNOWN
    }


async def _async_settle(
    hass: HomeAssistant, expected: Mapping[str, frozenset[str]], seconds: float
) -> None:
    """Wait at most `seconds` until every entity shows one of its expected states."""

    def missed() -> list[str]:
        return [
            entity_id
            for entity_id, wanted in expected.items()
            if (state := hass.states.get(entity_id)) is None or state.state not in wanted
        ]

    await _async_until(hass, missed(), lambda: not missed(), seconds)


def _checked(hass: HomeAssistant, targets: Iterable[str]) -> list[str]:
    """Return the targets with the members of those that are Home Assistant's groups.

    A light, switch or fan group (the group integration's entity) or an old-style group
    says on while one member is on: what the call did is told by each member too.
    """
    registry = er.async_get(hass)
    found: list[str] = []
    for entity_id in targets:
        found.append(entity_id)
        entry = registry.async_get(entity_id)
        if entity_id.split(".", 1)[0] != GROUP and (entry is None or entry.platform != GROUP):
            continue
        state = hass.states.get(entity_id)
        members = state.attributes.get(ATTR_ENTITY_ID) if state is not None else None
        if isinstance(members, list | tuple):
            found.extend(m for m in members if isinstance(m, str) and m not in found)
    return found


def _position(hass: HomeAssistant, entity_id: str) -> int | None:
    """Return a cover's position when that is all it tells: its state is unknown."""
    state = hass.states.get(entity_id)
    if state is None or state.domain != "cover" or state.state != STATE_UNKNOWN:
        return None
    position = state.attributes.get(_POSITION)
    return position if isinstance(position, int) and not isinstance(position, bool) else None


def _named_again(hass: HomeAssistant, entity_id: str) -> str:
    """Return a target's name in the reason that follows what was not done.

    The sentence before it named the target, with its entity id where the name could be taken
    for another's or was cut; the reason says the name alone, not the id a second time.
    """
    state = hass.states.get(entity_id)
    if state is None:
        return entity_id
    return said_name(state.name, entity_id).removesuffix(f" ({entity_id})")


def _position_missed(
    hass: HomeAssistant, call: Call, entity_id: str, before: int
) -> tuple[str, Phrase] | None:
    """Say a cover that reports only its position when the call did not move it.

    Done when it is where the call takes it, or has moved that way (a cover takes its time).
    """
    if not isinstance(call, PlannedAction) or call.service is None:
        return None
    to = _POSITION_SERVICES.get(call.service)
    wanted = call.data.get(to) if isinstance(to, str) else to
    now = _position(hass, entity_id)
    if not isinstance(wanted, int | float) or now is None:
        return None
    if now == wanted or (now - before) * (wanted - before) > 0:
        return None
    name = entity_name(hass, entity_id)
    state = Quantity(now, "%")
    return f"{name} is still at {state}", Phrase(
        "reason_still", {"name": _named_again(hass, entity_id), "state": state}
    )


async def _async_missed_targets(
    hass: HomeAssistant,
    call: Call,
    before: dict[str, str],
    positions: Mapping[str, int],
) -> tuple[str, tuple[Phrase, ...], frozenset[str]] | None:
    """Say which targets did not reach the state the call asks for, waiting a little.

    In English (for the model and the audit) and as phrases for the user's language; "still"
    only for a state the target had before the call (`before`), else the state it went to.
    A group's members are checked with it (one unavailable is not turned on); a cover that
    tells only its position (`positions`, before the call) by whether it moved the way asked.
    """
    # A target that had reported no state before the call (an MQTT plug that has not spoken
    # yet) cannot tell what the call did: taken as done, as Home Assistant reports it. A
    # group's member that was unavailable before a switch-off (a bulb switched off at the
    # wall) is left out as the group's own state leaves it: switched on, it is checked.
    targets = call.targets or ()
    expected = {
        entity_id: wanted
        for entity_id in _checked(hass, targets)
        if (wanted := _expected(call, entity_id)) is not None
        and before.get(entity_id) != STATE_UNKNOWN
        and not (
            entity_id not in targets
            and wanted == _OFF
            and before.get(entity_id) == STATE_UNAVAILABLE
        )
    }

    def missed() -> list[str]:
        return [
            entity_id
            for entity_id, wanted in expected.items()
            if (state := hass.states.get(entity_id)) is None or state.state not in wanted
        ]

    started = hass.loop.time()
    await _async_settle(hass, expected, SETTLE_SECONDS)
    if positions:
        # A cover that tells only its position: given the rest of the wait to start moving.
        left = SETTLE_SECONDS - (hass.loop.time() - started)
        await _async_until(
            hass,
            list(positions),
            lambda: all(_position_missed(hass, call, e, p) is None for e, p in positions.items()),
            max(left, 0),
        )
    still = missed()
    parts: list[str] = []
    said: list[Phrase] = []
    missed_ids = set(still)
    for entity_id, position in positions.items():
        if (moved := _position_missed(hass, call, entity_id, position)) is not None:
            parts.append(moved[0])
            said.append(moved[1])
            missed_ids.add(entity_id)
    if not still and not parts:
        return None
    for entity_id in still:
        state = hass.states.get(entity_id)
        name = entity_name(hass, entity_id)
        again = _named_again(hass, entity_id)
        if state is None:
            parts.append(f"{name} is gone")
            said.append(Phrase("reason_gone", {"name": again}))
        elif state.state == STATE_UNAVAILABLE:
            parts.append(f"{name} is {state.state}")
            said.append(Phrase("reason_unavailable", {"name": again}))
        else:
            kept = before.get(entity_id) == state.state
            parts.append(f"{name} is {'still ' if kept else ''}{state.state}")
            word = StateWord(state.domain, state.state)
            said.append(
                Phrase("reason_still" if kept else "reason_now", {"name": again, "state": word})
            )
    return join_names(parts), tuple(said), frozenset(missed_ids)


def _partly_done(
    call: Call, result: llm.ToolResult, english: str, missed: frozenset[str]
) -> llm.ToolResult:
    """Return the failure of a call some of whose own targets did not take it.

    With the targets that did (as the result read them) when every one missed is a target of
    the call itself (not a group's member): what worked is said as done, the rest as failed.
    """
    targets = set(call.targets or ())
    took = tuple(
        entity
        for entity in (result.entities if isinstance(result, TargetStates) else ())
        if entity.get("entity_id") in targets and entity.get("entity_id") not in missed
    )
    if not took or not missed <= targets:
        return error_result(english)
    # The model reads what did take it beside what did not, as a done call's result lists it.
    ran = result.ran if isinstance(result, TargetStates) else None
    return PartlyDone(
        data={"error": english, "entities": list(took)}, error=True, took=took, ran=ran
    )


async def _async_until(
    hass: HomeAssistant, entity_ids: list[str], done: Callable[[], bool], seconds: float
) -> None:
    """Wait at most `seconds` until `done` holds, read again as these entities change."""
    if done():
        return
    reached = asyncio.Event()

    @callback
    def state_changed(_event: Event[EventStateChangedData]) -> None:
        if done():
            reached.set()

    unsubscribe = async_track_state_change_event(hass, entity_ids, state_changed)
    try:
        async with asyncio.timeout(seconds):
            await reached.wait()
    except TimeoutError:
        pass
    finally:
        unsubscribe()


__all__ = [
    "Problem",
    "Refusal",
    "RunResult",
    "async_check",
    "async_llm_api",
    "async_run",
    "error_result",
    "error_text",
]


# Steps at their end ----------------------------------------------------------------------
# Which targets a step ("dimmer", "louder", "faster") finds already at the end it steps toward.
#
# Home Assistant's own handlers stop a step at its end: a light stepped down from off stays off
# (its brightness counts as 0), one at full brightness stepped up stays at 100 %, a player's
# volume stays between 0 and 1, a fan's speed between 0 and 100 %, and a player that is off has
# no volume to step. Such a call succeeds and changes nothing; what the person hears is that the
# target already was so, not the model's "I dimmed it".

# A light's step fields, and a field a step may come with that changes nothing at its end.
_LIGHT_STEPS: Final = frozenset({"brightness_step", "brightness_step_pct"})
_WITH_A_STEP: Final = frozenset({"transition"})
_FULL_BRIGHTNESS: Final = 255
# Steps without fields, by domain: up (+1) or down (-1), and the attribute (0 to `top`) they move.
_STEPS: Final[Mapping[tuple[str, str], tuple[int, str, float]]] = {
    ("media_player", "volume_up"): (1, "volume_level", 1),
    ("media_player", "volume_down"): (-1, "volume_level", 1),
    ("fan", "increase_speed"): (1, "percentage", 100),
    ("fan", "decrease_speed"): (-1, "percentage", 100),
}
# The attributes a step moves.
_STEPPED_LEVELS: Final = ("brightness", "volume_level", "percentage")
# Said at their end in percent (a volume is a fraction of one).
_PERCENT_OF: Final[Mapping[str, float]] = {"volume_level": 100, "percentage": 1}


def _at_their_end(hass: HomeAssistant, call: Call) -> dict[str, Quantity | None]:
    """Return each target the step finds at its end, with the level it is at (None: its state).

    Empty for a call that is no step or for a target that is not at the end; read before the
    call runs (the runner then checks nothing moved).
    """
    if not isinstance(call, PlannedAction) or call.domain is None or call.service is None:
        return {}
    ends: dict[str, Quantity | None] = {}
    for entity_id in call.entity_ids:
        state = hass.states.get(entity_id)
        if state is None or entity_id.split(".", 1)[0] != call.domain:
            continue
        if (found := _end_found(call, state)) is not None:
            ends[entity_id] = found if isinstance(found, Quantity) else None
    return ends


def _still_there(hass: HomeAssistant, before: Mapping[str, State]) -> bool:
    """Whether each target shows the state and levels it showed before the step ran."""
    return all(
        (now := hass.states.get(entity_id)) is not None
        and now.state == was.state
        and all(now.attributes.get(key) == was.attributes.get(key) for key in _STEPPED_LEVELS)
        for entity_id, was in before.items()
    )


def _end_found(call: PlannedAction, state: State) -> Quantity | str | None:
    """Return the level the step finds `state` at when that is its end ("off": off); else None."""
    if call.domain == "light" and call.service == "turn_on":
        return _light_end(call.data, state)
    step = _STEPS.get((str(call.domain), str(call.service)))
    if step is None or call.data:
        return None
    direction, attribute, top = step
    if state.state == STATE_OFF:
        # Off: nothing to turn up on a player; a fan slowed down from off stays off.
        return STATE_OFF if call.domain == "media_player" or direction < 0 else None
    level = _number(state.attributes.get(attribute))
    if level is None or level != (top if direction > 0 else 0):
        return None
    return Quantity(round(level * _PERCENT_OF[attribute]), "%")


def _light_end(data: Mapping[str, Any], state: State) -> Quantity | str | None:
    steps = [_number(data[key]) for key in _LIGHT_STEPS & data.keys()]
    if len(steps) != 1 or data.keys() - _LIGHT_STEPS - _WITH_A_STEP:
        return None
    step = steps[0]
    if step is None or step == 0:
        return None
    if state.state == STATE_OFF and step < 0:
        return STATE_OFF
    if step > 0 and _number(state.attributes.get("brightness")) == _FULL_BRIGHTNESS:
        return Quantity(100, "%")
    return None


def _number(value: Any) -> float | None:
    return float(value) if finite_number(value) else None
