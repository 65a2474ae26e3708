"""The safety gate between the model's calls and Home Assistant.

A sensitive call is never executed on the model's word: it is held, the agent asks a fixed
question, and only the same user's next turn in the same conversation can release it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import intent, llm

from .actions import join_names
from .audit import AuditRecord, Outcome, async_get_audit_log
from .confirmation import (
    PendingAction,
    PendingConfirmation,
    Reply,
    async_get_confirmations,
    classify_reply,
    pin_matches,
    spoken_pin,
)
from .const import DOMAIN
from .safety import (
    SafetyPolicy,
    resolve_llm_tool_targets,
    sensitive_targets_of_action,
    sensitive_targets_of_llm_tool,
)
from .speech import async_phrase
from .tools import PlannedAction, async_check_permission, async_execute, check_exposure

ASSISTANT = "conversation"
PIN_PLACEHOLDER = "[PIN]"


@dataclass(slots=True)
class TurnSafety:
    """Sensitive calls met during one round of calls."""

    conversation_id: str
    held: list[PendingAction] = field(default_factory=list)
    refused: list[PendingAction] = field(default_factory=list)


class SafetyGate:
    """Judges calls, holds sensitive ones and answers the user's confirmation."""

    def __init__(self, hass: HomeAssistant, policy: SafetyPolicy, agent_id: str) -> None:
        """Bind the gate to one agent's policy."""
        self.hass = hass
        self.policy = policy
        self.agent_id = agent_id

    # During a turn ---------------------------------------------------------------------------

    def review_home_action(self, action: PlannedAction) -> PendingAction | None:
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

    def review_llm_tool(self, tool: llm.Tool, arguments: dict[str, Any]) -> PendingAction | None:
        """Return a Home Assistant LLM API call as a PendingAction when it needs confirmation."""
        sensitive = sensitive_targets_of_llm_tool(
            self.hass, self.policy, tool, arguments, ASSISTANT
        )
        if not sensitive:
            return None
        targets = resolve_llm_tool_targets(self.hass, tool, arguments, ASSISTANT) or sensitive
        names = join_names(_name(self.hass, entity_id) for entity_id in targets)
        return PendingAction(
            service=tool.name,
            targets=tuple(targets),
            description=f"{_intent_verb(tool.name, targets)} {names}",
            tool_name=tool.name,
            tool_args=dict(arguments),
        )

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
        """Write one audit record."""
        async_get_audit_log(self.hass).async_record(
            self.hass,
            AuditRecord(
                agent_id=self.agent_id,
                conversation_id=conversation_id,
                user_id=user_input.context.user_id,
                device_id=user_input.device_id,
                service=action.service,
                targets=list(action.targets),
                description=action.description,
                outcome=outcome,
                reason=reason,
            ),
            context=user_input.context,
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
    ) -> str | None:
        """Handle a reply to a pending question; None when the turn is a new request."""
        pending = async_get_confirmations(self.hass).async_take(
            self.agent_id, chat_log.conversation_id
        )
        if pending is None:
            return None
        language = user_input.language
        same_person = pending.user_id == user_input.context.user_id and pending.device_id == (
            user_input.device_id or user_input.satellite_id
        )
        if not same_person:
            self._record_all(user_input, pending, Outcome.CANCELLED, "another user or device")
            return None
        if self.policy.pin:
            return await self._async_answer_pin(user_input, chat_log, pending)
        reply = classify_reply(user_input.text, language)
        if reply is Reply.YES:
            return await self._async_execute(user_input, chat_log, pending)
        if reply is Reply.NO:
            self._record_all(user_input, pending, Outcome.CANCELLED, "the user said no")
            return await async_phrase(self.hass, language, "confirmation_cancelled")
        self._record_all(user_input, pending, Outcome.CANCELLED, "the user asked something else")
        return None

    async def _async_answer_pin(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        pending: PendingConfirmation,
    ) -> str | None:
        assert self.policy.pin is not None
        language = user_input.language
        said_digits = spoken_pin(user_input.text)
        if said_digits:
            _redact_last_user_message(chat_log)
        if pin_matches(user_input.text, self.policy.pin):
            return await self._async_execute(user_input, chat_log, pending)
        if said_digits or classify_reply(user_input.text, language) is not Reply.OTHER:
            reason = "wrong PIN" if said_digits else "no PIN given"
            self._record_all(user_input, pending, Outcome.REFUSED, reason)
            return await async_phrase(self.hass, language, "confirmation_wrong_pin")
        self._record_all(user_input, pending, Outcome.CANCELLED, "the user asked something else")
        return None

    async def _async_execute(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        pending: PendingConfirmation,
    ) -> str:
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
                await async_phrase(self.hass, language, "confirmed_done", actions=_join(done))
            )
        if failed:
            parts.append(
                await async_phrase(
                    self.hass, language, "confirmed_failed", errors="; ".join(failed)
                )
            )
        return " ".join(parts)

    async def _async_run(
        self,
        user_input: conversation.ConversationInput,
        pending: PendingConfirmation,
        action: PendingAction,
    ) -> str | None:
        if action.planned is not None:
            planned = action.planned
            if problem := check_exposure(self.hass, planned, ASSISTANT):
                return problem
            if problem := await async_check_permission(
                self.hass, planned, user_input.context.user_id
            ):
                return problem
            outcome = await async_execute(self.hass, planned, user_input.context)
            return None if outcome.success else str(outcome.data.get("error"))
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
        targets = resolve_llm_tool_targets(self.hass, tool, action.tool_args, ASSISTANT)
        if targets is not None and tuple(targets) != action.targets:
            return "the devices it would change are not the same any more"
        try:
            result = await api.async_call_tool(
                llm.ToolInput(tool_name=action.tool_name, tool_args=dict(action.tool_args))
            )
        except (HomeAssistantError, intent.IntentError) as err:
            return str(err) or type(err).__name__
        if result.error:
            return str(result.data)
        return None

    @callback
    def async_drop_pending(self, reason: str) -> None:
        """Cancel what this agent holds (the agent is unloaded or Home Assistant stops)."""
        for pending in async_get_confirmations(self.hass).async_clear(self.agent_id):
            for action in pending.actions:
                async_get_audit_log(self.hass).async_record(
                    self.hass,
                    AuditRecord(
                        agent_id=self.agent_id,
                        conversation_id=pending.conversation_id,
                        user_id=pending.user_id,
                        device_id=pending.device_id,
                        service=action.service,
                        targets=list(action.targets),
                        description=action.description,
                        outcome=Outcome.CANCELLED,
                        reason=reason,
                    ),
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


def _redact_last_user_message(chat_log: conversation.ChatLog) -> None:
    """Keep a spoken PIN out of the chat log, and so out of every later prompt."""
    for index in range(len(chat_log.content) - 1, -1, -1):
        if isinstance(chat_log.content[index], conversation.UserContent):
            chat_log.content[index] = conversation.UserContent(content=PIN_PLACEHOLDER)
            return


def _name(hass: HomeAssistant, entity_id: str) -> str:
    state = hass.states.get(entity_id)
    return state.name if state is not None else entity_id


_INTENT_VERBS = {
    ("HassTurnOn", "lock"): "lock",
    ("HassTurnOff", "lock"): "unlock",
    ("HassTurnOn", "cover"): "open",
    ("HassTurnOff", "cover"): "close",
    ("HassTurnOn", "valve"): "open",
    ("HassTurnOff", "valve"): "close",
    ("HassTurnOn", "script"): "run",
    ("HassTurnOn", None): "turn on",
    ("HassTurnOff", None): "turn off",
    ("HassToggle", None): "toggle",
    ("HassSetPosition", None): "set the position of",
}


def _intent_verb(tool_name: str, targets: list[str]) -> str:
    """Name what an intent does to these targets ("HassTurnOff" on a lock unlocks it)."""
    intent_name = tool_name.rsplit("__", 1)[-1]
    domain = targets[0].split(".", 1)[0] if targets else None
    verb = _INTENT_VERBS.get((intent_name, domain)) or _INTENT_VERBS.get((intent_name, None))
    if verb is not None:
        return verb
    if tool_name.startswith(("script__", "assist__script__")) or domain == "script":
        return "run"
    return f"run {intent_name} on"


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _sentence(actions: list[PendingAction]) -> str:
    text = _join([action.description for action in actions])
    return text[:1].upper() + text[1:]
