"""The safety gate between the model's calls and Home Assistant.

A sensitive call is never executed on the model's word: it is held, the agent asks a fixed
question, and only the same user's next turn in the same conversation can release it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
import time
from typing import Any

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.home.actions import entity_name, join_names
from custom_components.local_agent.home.runner import (
    async_run_api_tool,
    async_run_home_action,
    error_text,
)
from custom_components.local_agent.home.tools import PlannedAction
from custom_components.local_agent.turn.phrases import async_phrase
from homeassistant.components import conversation, persistent_notification
from homeassistant.core import Context, HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm

from .audit import AuditRecord, Outcome, async_get_audit_log
from .pending import (
    PendingAction,
    PendingConfirmation,
    Reply,
    async_get_confirmations,
    classify_reply,
    contains_pin,
    mask_digits,
    pin_matches,
    spoken_pin,
)
from .policy import SafetyPolicy, sensitive_targets_of_action
from .tool_review import TARGET_SLOTS, ToolClass, ToolReview, async_review, intent_type_of, unwrap

ASSISTANT = "conversation"


@dataclass(slots=True)
class TurnSafety:
    """Sensitive calls met during one round of calls."""

    conversation_id: str
    held: list[PendingAction] = field(default_factory=list)
    refused: list[PendingAction] = field(default_factory=list)
    locked_seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Refusal:
    """A call that is never run: the message the model reads, the reason the audit keeps."""

    action: PendingAction
    message: str
    reason: str


@dataclass(frozen=True, slots=True)
class HomeCall:
    """A validated call of our own tools."""

    planned: PlannedAction


@dataclass(frozen=True, slots=True)
class ApiCall:
    """A call of a Home Assistant LLM API tool, with the context it runs in."""

    tool: llm.Tool
    arguments: Mapping[str, Any]
    llm_context: llm.LLMContext


class ReplyOutcome(Enum):
    """What the user's answer to a held call led to."""

    EXECUTED = "executed"
    CANCELLED = "cancelled"
    REFUSED = "refused"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class PendingReply:
    """The agent's answer to a reply to its question, and what the reply led to."""

    text: str
    outcome: ReplyOutcome


class Verdict(Enum):
    """What the gate decided for a call."""

    ALLOW = "allow"
    HOLD = "hold"
    REFUSE = "refuse"


@dataclass(frozen=True, slots=True)
class Decision:
    """The gate's decision; `action` is the sensitive action, `message` what the model reads."""

    verdict: Verdict
    action: PendingAction | None = None
    message: str | None = None


class SafetyGate:
    """Judges calls, holds sensitive ones and answers the user's confirmation."""

    def __init__(self, hass: HomeAssistant, policy: SafetyPolicy, agent_id: str) -> None:
        """Bind the gate to one agent's policy."""
        self.hass = hass
        self.policy = policy
        self.agent_id = agent_id

    # During a turn ---------------------------------------------------------------------------

    async def async_authorize(
        self,
        call: HomeCall | ApiCall,
        user_input: conversation.ConversationInput,
        turn: TurnSafety,
    ) -> Decision:
        """Decide whether a validated call may run now: allow, hold for a yes, or refuse."""
        review = (
            self._review_home_action(call.planned)
            if isinstance(call, HomeCall)
            else await self._async_review_api_call(call)
        )
        if isinstance(review, Refusal):
            self.async_record(
                user_input, turn.conversation_id, review.action, Outcome.REFUSED, review.reason
            )
            return Decision(Verdict.REFUSE, review.action, review.message)
        if review is None:
            return Decision(Verdict.ALLOW)
        if locked := self.pin_locked_seconds():
            turn.locked_seconds = locked
            self.async_record(
                user_input, turn.conversation_id, review, Outcome.REFUSED, "PIN entry locked"
            )
            return Decision(
                Verdict.REFUSE,
                review,
                "Refused: confirmation is locked after too many wrong PINs.",
            )
        if self.person_present(user_input):
            turn.held.append(review)
            return Decision(
                Verdict.HOLD, review, "Not done yet: waiting for the user's confirmation."
            )
        if self.policy.allow_unattended:
            return Decision(Verdict.ALLOW, review)
        turn.refused.append(review)
        self.async_record(
            user_input, turn.conversation_id, review, Outcome.REFUSED, "no person to confirm"
        )
        return Decision(
            Verdict.REFUSE, review, "Refused: this action needs a person to confirm it."
        )

    @callback
    def async_record_run(
        self,
        user_input: conversation.ConversationInput,
        turn: TurnSafety,
        decision: Decision,
        result: llm.ToolResult,
    ) -> None:
        """Record a sensitive action this agent was allowed to run without a person."""
        if decision.action is None:
            return
        outcome = Outcome.FAILED if result.error else Outcome.EXECUTED
        self.async_record(
            user_input, turn.conversation_id, decision.action, outcome, "allowed without a person"
        )

    def _review_home_action(self, action: PlannedAction) -> PendingAction | None:
        """Return the action as a PendingAction when it needs confirmation."""
        targets = sensitive_targets_of_action(self.hass, self.policy, action)
        if not targets:
            return None
        return PendingAction(
            service=f"{action.domain}.{action.service}",
            targets=action.entity_ids,
            description=action.describe(self.hass),
            planned=action,
        )

    async def _async_review_api_call(self, call: ApiCall) -> PendingAction | Refusal | None:
        """Judge a Home Assistant LLM API call: None runs it, a PendingAction waits for a yes."""
        tool, arguments = call.tool, call.arguments
        review = await async_review(self.hass, tool, arguments, call.llm_context)
        targets = review.targets or ()
        if review.deferred:
            action = self._llm_action(tool, arguments, review, list(targets))
            return Refusal(
                action,
                f"{', '.join(review.deferred)} is not available: a command that runs later would "
                "escape the confirmation of sensitive actions. Call the tool without it.",
                "deferred command",
            )
        if {tool.name, unwrap(tool).name} & self.policy.exempt_tools:
            return None
        if review.tool_class is ToolClass.UNKNOWN:
            return self._llm_action(tool, arguments, review, [])
        sensitive = self.policy.sensitive_entities(self.hass, targets)
        if not sensitive:
            return None
        return self._llm_action(tool, arguments, review, sensitive)

    def _llm_action(
        self,
        tool: llm.Tool,
        arguments: Mapping[str, Any],
        review: ToolReview,
        sensitive: list[str],
    ) -> PendingAction:
        return PendingAction(
            service=tool.name,
            targets=review.targets or (),
            description=describe_llm_call(self.hass, tool, arguments, review, sensitive),
            tool_name=tool.name,
            tool_args=dict(arguments),
        )

    def pin_locked_seconds(self) -> float:
        """Seconds this agent's PIN confirmation is locked after too many wrong PINs."""
        if not self.policy.pin:
            return 0.0
        guard = async_get_confirmations(self.hass).pin_guard
        return guard.locked_for(self.agent_id, time.monotonic())

    @callback
    def async_redact_pin(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> None:
        """Keep a configured PIN out of the chat log, and so out of every prompt.

        Whatever the conversation's state: said as an answer, too late, from another device,
        or up front with the request ("unlock the door, pin 4711").
        """
        if self.policy.pin and contains_pin(user_input.text, self.policy.pin):
            _mask_last_user_message(chat_log)

    @staticmethod
    def person_present(user_input: conversation.ConversationInput) -> bool:
        """Whether someone can answer a question: a user, a voice satellite or a device."""
        return bool(user_input.context.user_id or user_input.device_id or user_input.satellite_id)

    @callback
    def async_record(
        self,
        user_input: conversation.ConversationInput,
        conversation_id: str,
        action: PendingAction,
        outcome: Outcome,
        reason: str | None = None,
    ) -> None:
        """Write one audit record for a turn of this user."""
        self._async_write(
            conversation_id,
            user_input.context.user_id,
            user_input.device_id,
            action,
            outcome,
            reason,
            user_input.context,
        )

    @callback
    def _async_write(  # noqa: PLR0917 - one audit record's fields
        self,
        conversation_id: str,
        user_id: str | None,
        device_id: str | None,
        action: PendingAction,
        outcome: Outcome,
        reason: str | None,
        context: Context | None = None,
    ) -> None:
        async_get_audit_log(self.hass).async_record(
            self.hass,
            AuditRecord(
                agent_id=self.agent_id,
                conversation_id=conversation_id,
                user_id=user_id,
                device_id=device_id,
                service=action.service,
                targets=list(action.targets),
                description=action.description,
                outcome=outcome,
                reason=reason,
            ),
            context=context,
        )

    async def async_hold(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        held: list[PendingAction],
        llm_apis: tuple[str, ...],
    ) -> str:
        """Keep the actions for the user's answer; return the question to ask."""
        pending = PendingConfirmation(
            agent_id=self.agent_id,
            conversation_id=chat_log.conversation_id,
            user_id=user_input.context.user_id,
            device_id=user_input.device_id or user_input.satellite_id,
            language=user_input.language,
            llm_apis=llm_apis,
            actions=held,
        )

        @callback
        def expired(expired_pending: PendingConfirmation) -> None:
            for action in expired_pending.actions:
                self.async_record(
                    user_input, expired_pending.conversation_id, action, Outcome.EXPIRED
                )

        async_get_confirmations(self.hass).async_hold(
            self.hass, pending, self.policy.timeout_seconds, expired
        )
        for action in held:
            self.async_record(user_input, chat_log.conversation_id, action, Outcome.PROPOSED)
        key = "confirm_with_pin" if self.policy.pin else "confirm_question"
        return await async_phrase(self.hass, user_input.language, key, actions=_sentence(held))

    async def async_refusal(
        self, user_input: conversation.ConversationInput, refused: list[PendingAction]
    ) -> str:
        """Return the fixed answer when nobody is there to confirm."""
        return await async_phrase(
            self.hass, user_input.language, "refused_unattended", actions=_sentence(refused)
        )

    # The next turn ---------------------------------------------------------------------------

    async def async_answer_pending(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> PendingReply | None:
        """Handle a reply to a pending question; None when the turn is a new request.

        A message from another user or device neither confirms nor cancels the question: it
        is refused, and the question keeps waiting for its own person until its timeout. Home
        Assistant 2026.11 refuses another user's message in the conversation before any agent
        runs; this gives 2026.10 (and another device of the same user) the same behaviour.
        """
        store = async_get_confirmations(self.hass)
        waiting = store.async_peek(self.agent_id, chat_log.conversation_id)
        if waiting is None:
            return None
        language = user_input.language
        same_person = waiting.user_id == user_input.context.user_id and waiting.device_id == (
            user_input.device_id or user_input.satellite_id
        )
        if not same_person and not waiting.expired(time.monotonic()):
            self._record_all(
                user_input, waiting, Outcome.REFUSED, "an answer from another user or device"
            )
            return PendingReply(
                await async_phrase(self.hass, language, "confirmation_other_person"),
                ReplyOutcome.REFUSED,
            )
        pending = store.async_take(self.agent_id, chat_log.conversation_id)
        if pending is None or not same_person:
            return None
        if self.policy.pin:
            return await self._async_answer_pin(user_input, chat_log, pending)
        reply = classify_reply(user_input.text, language)
        if reply is Reply.YES:
            return await self._async_execute(user_input, chat_log, pending)
        if reply is Reply.NO:
            self._record_all(user_input, pending, Outcome.CANCELLED, "the user said no")
            return PendingReply(
                await async_phrase(self.hass, language, "confirmation_cancelled"),
                ReplyOutcome.CANCELLED,
            )
        self._record_all(user_input, pending, Outcome.CANCELLED, "the user asked something else")
        return None

    async def _async_answer_pin(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        pending: PendingConfirmation,
    ) -> PendingReply | None:
        assert self.policy.pin is not None
        language = user_input.language
        said_digits = spoken_pin(user_input.text)
        if said_digits:
            # A wrong guess may be close to the PIN: keep every answer's digits out too.
            _mask_last_user_message(chat_log)
        if locked := self.pin_locked_seconds():
            self._record_all(user_input, pending, Outcome.REFUSED, "PIN entry locked")
            return PendingReply(
                await self.async_locked_phrase(language, locked), ReplyOutcome.REFUSED
            )
        guard = async_get_confirmations(self.hass).pin_guard
        if pin_matches(user_input.text, self.policy.pin):
            guard.succeeded(self.agent_id)
            return await self._async_execute(user_input, chat_log, pending)
        if said_digits or classify_reply(user_input.text, language) is not Reply.OTHER:
            reason = "wrong PIN" if said_digits else "no PIN given"
            self._record_all(user_input, pending, Outcome.REFUSED, reason)
            if said_digits and guard.failed(self.agent_id, time.monotonic()):
                await self._async_lock_out(user_input, pending)
                return PendingReply(
                    await self.async_locked_phrase(language, self.pin_locked_seconds()),
                    ReplyOutcome.REFUSED,
                )
            return PendingReply(
                await async_phrase(self.hass, language, "confirmation_wrong_pin"),
                ReplyOutcome.REFUSED,
            )
        self._record_all(user_input, pending, Outcome.CANCELLED, "the user asked something else")
        return None

    async def async_locked_phrase(self, language: str, seconds: float) -> str:
        """Return the answer while PIN confirmation is locked."""
        minutes = max(1, round(seconds / 60))
        return await async_phrase(self.hass, language, "pin_locked", minutes=str(minutes))

    async def _async_lock_out(
        self, user_input: conversation.ConversationInput, pending: PendingConfirmation
    ) -> None:
        """Record the lock-out and tell the owner where they look: a notification."""
        self._record_all(user_input, pending, Outcome.REFUSED, "too many wrong PINs")
        message = await async_phrase(
            self.hass,
            self.hass.config.language,
            "pin_lockout_notice",
            agent=self.agent_id,
            minutes=str(round(self.pin_locked_seconds() / 60)),
        )
        persistent_notification.async_create(
            self.hass,
            message,
            title="Local Agent",
            notification_id=f"{DOMAIN}_pin_lockout_{self.agent_id}",
        )

    async def _async_execute(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        pending: PendingConfirmation,
    ) -> PendingReply:
        """Run exactly the held actions, after checking exposure and permission again."""
        done: list[str] = []
        failed: list[str] = []
        for action in pending.actions:
            self.async_record(user_input, pending.conversation_id, action, Outcome.CONFIRMED)
            error = await self._async_run(user_input, pending, action)
            if error is None:
                self.async_record(user_input, pending.conversation_id, action, Outcome.EXECUTED)
                done.append(action.description)
            else:
                self.async_record(
                    user_input, pending.conversation_id, action, Outcome.FAILED, error
                )
                failed.append(f"{action.description}: {error}")
        language = user_input.language
        parts = []
        if done:
            parts.append(
                await async_phrase(self.hass, language, "confirmed_done", actions=join_names(done))
            )
        if failed:
            parts.append(
                await async_phrase(
                    self.hass, language, "confirmed_failed", errors="; ".join(failed)
                )
            )
        return PendingReply(" ".join(parts), ReplyOutcome.EXECUTED if done else ReplyOutcome.FAILED)

    async def _async_run(
        self,
        user_input: conversation.ConversationInput,
        pending: PendingConfirmation,
        action: PendingAction,
    ) -> str | None:
        if action.planned is not None:
            return error_text(
                await async_run_home_action(self.hass, action.planned, user_input.context)
            )
        return await self._async_run_llm_tool(user_input, pending, action)

    async def _async_run_llm_tool(
        self,
        user_input: conversation.ConversationInput,
        pending: PendingConfirmation,
        action: PendingAction,
    ) -> str | None:
        assert action.tool_name is not None
        assert action.tool_args is not None
        try:
            api = await llm.async_get_api(
                self.hass, list(pending.llm_apis), user_input.as_llm_context(DOMAIN)
            )
        except HomeAssistantError as err:
            return str(err)
        tool = next((t for t in api.tools if t.name == action.tool_name), None)
        if tool is None:
            return f"{action.tool_name} is no longer available"
        review = await async_review(self.hass, tool, action.tool_args, api.llm_context)
        if review.deferred:
            return "it would run a command later"
        if (review.targets or ()) != action.targets:
            return "the devices it would change are not the same any more"
        return error_text(await async_run_api_tool(api, action.tool_name, action.tool_args))

    @callback
    def async_drop_pending(self, reason: str) -> None:
        """Cancel what this agent holds (the agent is unloaded or Home Assistant stops)."""
        for pending in async_get_confirmations(self.hass).async_clear(self.agent_id):
            for action in pending.actions:
                self._async_write(
                    pending.conversation_id,
                    pending.user_id,
                    pending.device_id,
                    action,
                    Outcome.CANCELLED,
                    reason,
                )

    def _record_all(
        self,
        user_input: conversation.ConversationInput,
        pending: PendingConfirmation,
        outcome: Outcome,
        reason: str,
    ) -> None:
        for action in pending.actions:
            self.async_record(user_input, pending.conversation_id, action, outcome, reason)


def _mask_last_user_message(chat_log: conversation.ChatLog) -> None:
    """Replace the digits of the user's latest message (a PIN among them) by asterisks."""
    for index in range(len(chat_log.content) - 1, -1, -1):
        content = chat_log.content[index]
        if isinstance(content, conversation.UserContent):
            chat_log.content[index] = replace(content, content=mask_digits(content.content))
            return


_INTENT_VERBS = {
    ("HassTurnOn", "lock"): "lock",
    ("HassTurnOff", "lock"): "unlock",
    ("HassTurnOn", "cover"): "open",
    ("HassTurnOff", "cover"): "close",
    ("HassTurnOn", "valve"): "open",
    ("HassTurnOff", "valve"): "close",
    ("HassTurnOn", "script"): "run",
    ("HassToggle", "script"): "run",
    ("HassOpenCover", None): "open",
    ("HassCloseCover", None): "close",
    ("HassStopMoving", None): "stop",
    ("HassTurnOn", None): "turn on",
    ("HassTurnOff", None): "turn off",
    ("HassToggle", None): "toggle",
    ("HassSetPosition", None): "set the position of",
}


def _intent_verb(intent_type: str | None, domain: str) -> str:
    """Name what an intent does to a domain's entities ("HassTurnOff" on a lock unlocks it)."""
    if intent_type is None:
        return "run"
    verb = _INTENT_VERBS.get((intent_type, domain)) or _INTENT_VERBS.get((intent_type, None))
    if verb is not None:
        return verb
    if domain in {"script", "automation"} and intent_type == "HassTurnOn":
        return "run"
    return f"run {intent_type} on"


def describe_llm_call(
    hass: HomeAssistant,
    tool: llm.Tool,
    arguments: Mapping[str, Any],
    review: ToolReview,
    sensitive: list[str],
) -> str:
    """Say what a held call does to its sensitive targets.

    Every argument that changes the outcome is named ("set the position of Hall Window to 30 %").
    """
    outcome = {
        key: value
        for key, value in arguments.items()
        if key not in TARGET_SLOTS and value not in (None, "", [])
    }
    if review.tool_class is ToolClass.UNKNOWN or not sensitive:
        inner = unwrap(tool)
        label = tool.title or inner.title or tool.name
        text = f"use {label}"
        return f"{text} with {_arguments_text(outcome)}" if outcome else text
    intent_type = intent_type_of(tool)
    by_verb: dict[str, list[str]] = {}
    for entity_id in sensitive:
        verb = _intent_verb(intent_type, entity_id.split(".", 1)[0])
        by_verb.setdefault(verb, []).append(entity_name(hass, entity_id))
    parts = [f"{verb} {join_names(sorted(names))}" for verb, names in by_verb.items()]
    text = " and ".join(parts)
    if intent_type == "HassSetPosition" and "position" in outcome:
        text += f" to {outcome.pop('position')} %"
    if outcome:
        text += f" ({_arguments_text(outcome)})"
    return text


def _arguments_text(arguments: Mapping[str, Any]) -> str:
    def value_text(value: Any) -> str:
        if isinstance(value, list):
            return join_names(str(item) for item in value)
        return str(value)

    return ", ".join(f"{key.replace('_', ' ')} {value_text(v)}" for key, v in arguments.items())


def _sentence(actions: list[PendingAction]) -> str:
    text = join_names([action.description for action in actions])
    return text[:1].upper() + text[1:]
