"""The response type of a turn, as Home Assistant's own conversation agent reports it.

`/api/conversation/process`, automations (`conversation.process` with a response) and the UI
read `response_type`: `action_done` only when something in the home was changed,
`query_answer` for an answer (or a question back) that changed nothing (a light turned on that
was on already: the runner's changed_something is the one rule), and `error` with Home
Assistant's error codes when the request was not carried out:

- `no_intent_match`: the model had no answer and did nothing ("Sorry, I have no answer").
- `failed_to_handle`: understood but not done: every action the model tried was refused or
  failed (or, with no action, every read), a sensitive action was refused without a person to
  confirm it (`action_done` with what changed, where other actions ran beside it), the model
  or its server failed, or the turn ran out of rounds or time.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

from custom_components.local_agent.home.failure_reasons import PartlyDone
from custom_components.local_agent.home.runner import ChangedNothing
from custom_components.local_agent.home.runner import TargetStates
from custom_components.local_agent.home.runner import changed_something
from custom_components.local_agent.home.runner import intent_response_of
from custom_components.local_agent.home.tools import GET_STATE
from custom_components.local_agent.safety.gate import ReplyOutcome
from custom_components.local_agent.safety.intents import ToolClass
from custom_components.local_agent.safety.tool_review import classify
from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import intent
from homeassistant.helpers import llm

from .report import TurnEnd

# How a turn ends when the request was not carried out.
NOT_CARRIED_OUT = frozenset(
    {TurnEnd.FAILED, TurnEnd.ROUND_LIMIT, TurnEnd.REFUSED, TurnEnd.TIMED_OUT}
)


@dataclass(slots=True)
class _Calls:
    """What this turn's tool calls did."""

    changed: list[dict[str, Any]] = field(default_factory=list)  # successful actions' data
    targets: list[dict[str, Any]] = field(default_factory=list)  # what our runner read of them
    failed_actions: int = 0
    read: int = 0
    failed_reads: int = 0
    found_as_asked: int = 0  # actions our runner found already done: carried out, no change
    refused: list[str] = field(default_factory=list)  # targets refused without a person


def _is_read_only(llm_api: llm.APIInstance | None, content: conversation.ToolResultContent) -> bool:
    """Whether the call only read: a query's answer, or a tool known to change nothing.

    An intent that only reads may still answer "action_done" (HassTimerStatus does): the
    tool's class decides then (safety/tool_review.py), so "how long is left?" is no action.
    """
    tool = (
        next((tool for tool in llm_api.tools if tool.name == content.tool_name), None)
        if llm_api is not None
        else None
    )
    if (response := intent_response_of(content.result)) is not None:
        if response.response_type is intent.IntentResponseType.QUERY_ANSWER:
            return True
        return (
            llm_api is not None
            and tool is not None
            and classify(llm_api.api.hass, tool) is ToolClass.READ_ONLY
        )
    if content.tool_name == GET_STATE:
        return True
    return tool is not None and tool.annotations.read_only


def _action_results(chat_log: conversation.ChatLog) -> list[conversation.ToolResultContent]:
    """Return the results of this turn's calls that did not only read."""
    return [
        content
        for content in chat_log.content[chat_log.llm_input_provided_index :]
        if isinstance(content, conversation.ToolResultContent)
        and not _is_read_only(chat_log.llm_api, content)
    ]


def _turn_calls(chat_log: conversation.ChatLog) -> _Calls:
    calls = _Calls()
    for content in chat_log.content[chat_log.llm_input_provided_index :]:
        if not isinstance(content, conversation.ToolResultContent):
            continue
        if _is_read_only(chat_log.llm_api, content):
            if content.result.error:
                calls.failed_reads += 1
            else:
                calls.read += 1
        elif content.result.error:
            calls.failed_actions += 1
            if isinstance(content.result, UnattendedRefusal):
                calls.refused.extend(content.result.targets)
            if isinstance(content.result, PartlyDone):  # some of its targets took it
                calls.changed.append({"entities": list(content.result.took)})
                calls.targets.extend(content.result.took)
        elif isinstance(content.result, TargetStates) and not changed_something([content.result]):
            calls.found_as_asked += 1
        elif isinstance(content.result, HeldResult):
            continue  # not done: it waits for a yes (or for nothing, its agent retired)
        else:
            data = content.result.data
            calls.changed.append(data if isinstance(data, dict) else {})
            if isinstance(content.result, TargetStates):
                calls.targets.extend(content.result.entities)
    return calls


def counts_as_done(
    llm_api: llm.APIInstance | None, content: conversation.ToolResultContent
) -> bool:
    """Whether a call changed something in the home, told by what produced its result.

    Our runner's TargetStates of an action, or a core intent's response of an action: another
    API's tool, a script or a tool of unknown effect may answer with any keys ("success",
    "entities") and says nothing by them. A read changed nothing: it may have read something
    else than the person named.
    """
    result = content.result
    if result.error or _is_read_only(llm_api, content):
        return False
    if isinstance(result, TargetStates):
        return changed_something([result])
    data = result.data
    return (
        isinstance(data, llm.IntentResponseDict)
        and isinstance(original := getattr(data, "original", None), intent.IntentResponse)
        and original.response_type is intent.IntentResponseType.ACTION_DONE
    )


def changed_the_home(chat_log: conversation.ChatLog) -> bool:
    """Whether a call of this turn changed something in the home (counts_as_done)."""
    return any(
        counts_as_done(chat_log.llm_api, content)
        for content in chat_log.content[chat_log.llm_input_provided_index :]
        if isinstance(content, conversation.ToolResultContent)
    )


def carried_out(chat_log: conversation.ChatLog) -> bool:
    """Whether an action of this turn succeeded: it changed the home or found it as asked."""
    calls = _turn_calls(chat_log)
    return bool(calls.changed or calls.found_as_asked)


@dataclass(slots=True)
class HeldResult(ChangedNothing):
    """The result of a call that waits for a person's yes: what the model reads meanwhile.

    Told by its class, not by its data: another API's tool may answer with the same keys.
    Its data is {"status": the gate's message}.
    """


@dataclass(slots=True)
class UnattendedRefusal(llm.ToolResult):
    """The result of a sensitive call refused for want of a person to confirm it.

    Told by its class: the refusal says it in full, so the calls said not to have worked
    beside it leave it out. Its data is {"error": the gate's message}; `targets`, the entity ids
    of the refused action.
    """

    targets: tuple[str, ...] = ()


def ran_beside_held(chat_log: conversation.ChatLog) -> bool:
    """Whether a call of this turn that changed something ran, not one waiting for a yes."""
    return any(
        not isinstance(content.result, HeldResult)
        for content in _action_results(chat_log)
        if not content.result.error
    )


def _targets(entities: list[dict[str, Any]]) -> list[intent.IntentResponseTarget]:
    """Return the entities our own tools changed (an intent's response carries its own)."""
    return [
        intent.IntentResponseTarget(
            type=intent.IntentResponseTargetType.ENTITY,
            name=str(entity.get("name") or entity["entity_id"]),
            id=str(entity["entity_id"]),
        )
        for entity in entities
        if isinstance(entity, dict) and entity.get("entity_id")
    ]


def _refused_targets(
    hass: HomeAssistant, entity_ids: list[str]
) -> list[intent.IntentResponseTarget]:
    """Return the entities of the actions refused without a person, by their names now."""
    return [
        intent.IntentResponseTarget(
            type=intent.IntentResponseTargetType.ENTITY,
            name=state.name if (state := hass.states.get(entity_id)) else entity_id,
            id=entity_id,
        )
        for entity_id in dict.fromkeys(entity_ids)
    ]


@callback
def async_set_response_type(
    response: intent.IntentResponse,
    chat_log: conversation.ChatLog,
    *,
    ended: TurnEnd,
    model_answered: bool,
) -> None:
    """Set the response type and error code of a finished turn; the speech stays as it is.

    `model_answered` is whether the model wrote the answer itself (False when the agent had to
    say it had none).
    """
    speech = response.speech.get("plain", {}).get("speech", "")
    calls = _turn_calls(chat_log)
    # A refusal beside actions that ran: the automation reads what changed and what was
    # refused, as core's intents answer a request done in part.
    if ended in NOT_CARRIED_OUT and not (ended is TurnEnd.REFUSED and calls.changed):
        response.async_set_error(intent.IntentResponseErrorCode.FAILED_TO_HANDLE, speech)
        return
    if ended is TurnEnd.CONFIRMATION_ASKED:
        # A question back (a confirmation): nothing was done yet.
        response.response_type = intent.IntentResponseType.QUERY_ANSWER
        return
    if calls.changed:
        response.response_type = intent.IntentResponseType.ACTION_DONE
        if not response.success_results:
            response.async_set_results(
                _targets(calls.targets), _refused_targets(chat_log.hass, calls.refused)
            )
    elif calls.failed_actions or (calls.failed_reads and not calls.read):
        # Every action failed, or every read did: nothing asked for was carried out.
        response.async_set_error(intent.IntentResponseErrorCode.FAILED_TO_HANDLE, speech)
    elif not model_answered and not calls.read and not calls.found_as_asked:
        response.async_set_error(intent.IntentResponseErrorCode.NO_INTENT_MATCH, speech)
    else:
        response.response_type = intent.IntentResponseType.QUERY_ANSWER


@callback
def async_set_reply_response_type(response: intent.IntentResponse, outcome: ReplyOutcome) -> None:
    """Set the response type of a turn that answered a confirmation question.

    The held actions ran (EXECUTED), the user said no (CANCELLED: nothing to do, not an error),
    the question was asked again in a new conversation (ASKED_AGAIN), or they were not
    carried out (REFUSED: wrong PIN, locked, or a yes too late; FAILED: they
    ran and failed).
    """
    speech = response.speech.get("plain", {}).get("speech", "")
    if outcome is ReplyOutcome.EXECUTED:
        response.response_type = intent.IntentResponseType.ACTION_DONE
    elif outcome in (ReplyOutcome.CANCELLED, ReplyOutcome.ASKED_AGAIN):
        # Nothing to do, not an error; or the question again (as when first asked).
        response.response_type = intent.IntentResponseType.QUERY_ANSWER
    else:
        response.async_set_error(intent.IntentResponseErrorCode.FAILED_TO_HANDLE, speech)
