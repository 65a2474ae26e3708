"""The safety gate: decides every call (allow, hold for a yes, refuse) and never runs one.

A sensitive call is never run on the model's word: it is held, the agent asks a fixed
question, and only the same person's next turn in the same conversation can release it.
What is allowed runs through home/runner.py, whichever turn it was allowed in: the agent
checks there whether the person may make a call before a question is asked about it, and
hands the gate back what a run did as an outcome and a reason to record.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from enum import Enum
from typing import Any
from typing import Final
from typing import NamedTuple

from custom_components.local_agent.compat import entity_object_ref
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.home.actions import ApiCall
from custom_components.local_agent.home.actions import Call
from custom_components.local_agent.home.actions import PlannedAction
from custom_components.local_agent.home.call_texts import ENGLISH
from custom_components.local_agent.home.call_texts import Phrase
from custom_components.local_agent.home.call_texts import Said
from custom_components.local_agent.home.call_texts import async_load_option_words
from custom_components.local_agent.home.call_texts import async_load_value_words
from custom_components.local_agent.home.call_texts import async_phrase
from custom_components.local_agent.home.call_texts import async_said
from custom_components.local_agent.home.call_texts import capitalized
from custom_components.local_agent.home.call_texts import describe_action
from custom_components.local_agent.home.call_texts import describe_api_call
from custom_components.local_agent.home.call_texts import entity_name
from custom_components.local_agent.home.call_texts import join_names
from custom_components.local_agent.home.call_texts import kept_text
from custom_components.local_agent.home.call_texts import restatements
from custom_components.local_agent.home.call_texts import said_name
from custom_components.local_agent.home.call_texts import speaks_only_english
from custom_components.local_agent.home.call_texts import told_name
from custom_components.local_agent.home.spoken_names import aloud
from custom_components.local_agent.home.turn_context import TurnContext
from homeassistant.components import conversation
from homeassistant.components import persistent_notification
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import intent
from homeassistant.helpers import llm

from .audit import AuditRecord
from .audit import Outcome
from .audit import async_get_audit_log
from .confirmation import Ending
from .confirmation import Identity
from .confirmation import PendingAction
from .confirmation import PendingConfirmation
from .confirmation import PinReply
from .confirmation import Reply
from .confirmation import async_get_confirmations
from .confirmation import classify_pin_reply
from .confirmation import classify_reply
from .confirmation import mask_digits
from .confirmation import mask_pin_guesses
from .confirmation import mask_possible_pins
from .confirmation import pin_matches
from .confirmation import said_as_number
from .confirmation import said_pin_words
from .confirmation import spoken_pin
from .intents import ToolClass
from .policy import RELEASING_SERVICES
from .policy import SafetyPolicy
from .policy import sensitive_targets_of_action
from .policy import states_of_call
from .tool_review import DEFERRED_ARGUMENTS
from .tool_review import TARGET_SLOTS
from .tool_review import aimed_scripts
from .tool_review import async_review
from .tool_review import async_tool_api_id
from .tool_review import intent_type_of
from .tool_review import read_by_core_code
from .tool_review import reads_by_calling
from .tool_review import script_tool_script
from .tool_review import service_read_by
from .tool_review import unwrap


@dataclass(slots=True)
class TurnSafety:
    """Sensitive calls met during one round of calls."""

    held: list[PendingAction] = field(default_factory=list)
    refused: list[PendingAction] = field(default_factory=list)
    locked_seconds: float = 0.0

    def hold(self, action: PendingAction) -> None:
        """Keep a held call for the round's question: one the person may make, now."""
        # The same call written twice in one answer is one action: asked about and run once.
        if all(held.call != action.call for held in self.held):
            self.held.append(action)


class Verdict(Enum):
    """What the gate decided for a call."""

    ALLOW = "allow"
    HOLD = "hold"
    REFUSE = "refuse"


@dataclass(frozen=True, slots=True)
class Decision:
    """The gate's decision about one call.

    `call` is what may run (ALLOW), its targets resolved; `action` is the sensitive action
    (held, refused, or allowed because a person confirmed it or the agent runs unattended);
    `message` is what the model reads when the call does not run now; `said`, why a confirmed
    action did not run, for the person who confirmed it.
    """

    verdict: Verdict
    call: Call | None = None
    action: PendingAction | None = None
    message: str | None = None
    confirmed: bool = False
    said: tuple[Said, ...] = ()


class ReplyOutcome(Enum):
    """What the user's answer to a held call led to."""

    EXECUTED = "executed"
    CANCELLED = "cancelled"
    REFUSED = "refused"
    FAILED = "failed"
    # Not an answer but a new request: the question is dropped and the turn goes on.
    SET_ASIDE = "set_aside"
    # A yes that opened a new conversation: its person's question, asked again there.
    ASKED_AGAIN = "asked_again"


@dataclass(frozen=True, slots=True)
class PendingReply:
    """The answer to a reply to the agent's question, or the actions the reply confirmed.

    When `confirmed` is not empty, the agent runs those actions (each through the gate and
    the runner) and then says `async_confirmed_reply`'s text; otherwise it says `text`. A
    reply SET_ASIDE is a new request: `text` says what was not done, next to its answer.
    """

    text: str
    outcome: ReplyOutcome
    confirmed: tuple[PendingAction, ...] = ()
    # Said to the sender alone: their message is not the conversation's (another person's).
    user_only: bool = False


# Assist's intents that switch their targets on: a program among them is not stopped.
SWITCHING_ON_INTENTS: Final = frozenset({intent.INTENT_TURN_ON})


class SafetyGate:
    """Judges calls, holds sensitive ones and reads the user's confirmation."""

    def __init__(self, hass: HomeAssistant, policy: SafetyPolicy, agent_id: str) -> None:
        """Bind the gate to one agent's policy."""
        self.hass = hass
        self.policy = policy
        self.agent_id = agent_id
        # Why this gate dropped what it held (its agent removed, restarted or rebuilt with new
        # settings); it holds nothing after: the agent in its place would take the yes.
        self.retired: Ending | None = None

    # Who is asking ---------------------------------------------------------------------------

    @staticmethod
    def person_present(turn: TurnContext) -> bool:
        """Whether a person asks, who can be asked a question and answer it.

        A user id must be a real person: an active user that Home Assistant did not generate
        (Supervisor add-ons and other integrations' service users are generated). A request
        without one is a person's when it comes from a device or voice satellite.
        """
        if turn.user_id is not None:
            user = turn.user
            return user is not None and user.is_active and not user.system_generated
        return bool(turn.device_id or turn.satellite_id)

    # During a turn ---------------------------------------------------------------------------

    async def async_decide(self, call: Call, turn: TurnContext, safety: TurnSafety) -> Decision:
        """Decide whether a validated call may run now: allow, hold for a yes, or refuse."""
        if isinstance(call, PlannedAction):
            resolved: Call = call
            action = await self._async_sensitive_action(call, turn.language)
        else:
            reviewed = await self._async_review(call, turn)
            if isinstance(reviewed, Decision):
                return reviewed
            resolved, action = reviewed
        if action is None:
            return Decision(Verdict.ALLOW, resolved)
        if locked := self.pin_locked_seconds():
            safety.locked_seconds = locked
            return self._refuse(
                turn,
                action,
                "Refused: confirmation is locked after too many wrong PINs.",
                "PIN entry locked",
            )
        if self.person_present(turn):
            # Held once the agent has checked the person may make the call (TurnSafety.hold).
            return Decision(
                Verdict.HOLD, resolved, action, "Not done yet: waiting for the user's confirmation."
            )
        if self.policy.allow_unattended:
            return Decision(Verdict.ALLOW, resolved, action)
        if all(refused.call != action.call for refused in safety.refused):
            safety.refused.append(action)
        return self._refuse(
            turn,
            action,
            "Refused: this action needs a person to confirm it.",
            "no person to confirm",
        )

    def async_refuse_held(self, turn: TurnContext, decision: Decision, reason: str) -> Decision:
        """Refuse a held call the person may not make, or that cannot be done now: never asked."""
        assert decision.action is not None
        return self._refuse(turn, decision.action, reason, reason)

    async def async_refuse_unoffered(
        self, tool: llm.Tool, arguments: Mapping[str, Any], turn: TurnContext
    ) -> str | None:
        """Refuse (and audit) a call that failed to parse because it carried a deferred argument.

        The argument is not offered, so the parser rejects it; the attempt is still a refusal
        of a command that would run later, outside the gate, and recorded like every other.
        """
        call = ApiCall(tool, arguments, (), intent_type_of(tool))
        if not self._deferred(call):
            return None
        return self._refuse_deferred(turn, call).message

    @callback
    def async_record_run(
        self, turn: TurnContext, decision: Decision, outcome: Outcome, reason: str | None
    ) -> None:
        """Record what an allowed call did: a sensitive one, or one its user may not make.

        outcome: REFUSED when the runner found the user may not make the call, else EXECUTED
        or FAILED; reason: the runner's error, if any.
        """
        action = decision.action
        if outcome is Outcome.REFUSED:
            if action is None and decision.call is not None:
                action = self._action(decision.call, [], turn.language)
            if action is not None:
                self.async_record(turn, action, Outcome.REFUSED, reason)
            return
        if action is None:
            return
        said = reason if decision.confirmed else "allowed without a person"
        self.async_record(turn, action, outcome, said)

    async def _async_sensitive_action(
        self, call: PlannedAction, language: str
    ) -> PendingAction | None:
        """Return the action as a PendingAction when it needs confirmation."""
        if not sensitive_targets_of_action(self.hass, self.policy, call):
            return None
        if call.domain is not None:
            # A mode the question names, in Home Assistant's words for the language.
            await async_load_value_words(self.hass, language, [call.domain])
            await async_load_option_words(self.hass, language, call.entity_ids)
        return self._action(call, [], language)

    async def _async_review(
        self, call: ApiCall, turn: TurnContext
    ) -> tuple[ApiCall, PendingAction | None] | Decision:
        """Resolve what an LLM API call changes; say whether it needs confirmation."""
        resolved = await self._async_resolve(call, turn)
        if self._deferred(resolved):
            return self._refuse_deferred(turn, resolved)
        tool = resolved.tool
        policy = self.policy
        if await self._async_exempt(tool, turn):
            # A script tool exempted as a tool is exempt as its script is: as the person uses
            # it, not where the model's data aims it, nor what its run sets off. A tool whose
            # targets are resolved from its arguments (HassTurnOn) is aimed by the model
            # whole: it is judged by them as if not exempt. Only a tool whose effect cannot be
            # told (another integration's, an intent script) runs at once.
            script = script_tool_script(self.hass, tool)
            if script is not None:
                policy = replace(policy, exempt=policy.exempt | {script})
            elif resolved.targets is None:
                return resolved, None
        if resolved.targets is None or (
            resolved.read_only
            and reads_by_calling(self.hass, tool)
            and policy.calls_set_off_sensitive(self.hass, self._service_read_by(resolved))
        ):
            return resolved, self._action(resolved, [], turn.language)
        sensitive = self._sensitive_targets(resolved, policy)
        if not sensitive:
            return resolved, None
        return resolved, self._action(resolved, sensitive, turn.language)

    def _service_read_by(self, call: ApiCall) -> tuple[str, str] | None:
        """Return the one service a read calls, when that and what it reads are core's code."""
        service = service_read_by(call.tool)
        if service is None or not read_by_core_code(self.hass, service[0]):
            return None
        return service

    def _sensitive_targets(self, call: ApiCall, policy: SafetyPolicy | None = None) -> list[str]:
        """Return the call's targets that need confirmation, with the scripts it aims by data."""
        aimed = aimed_scripts(self.hass, call.tool, call.arguments)
        policy = policy or self.policy
        # Only core's switching on (its handler is checked) is known to stop no program.
        halts = call.intent_type not in SWITCHING_ON_INTENTS
        return policy.sensitive_entities(
            self.hass,
            call.targets or (),
            aimed=aimed,
            halts=halts,
            becomes=states_of_call(self.hass, call),
        )

    async def _async_exempt(self, tool: llm.Tool, turn: TurnContext) -> bool:
        """Whether the user exempted this very tool: its name and the API that offers it."""
        name = unwrap(tool).name
        api = turn.llm_api
        if api is None or not any(exempt == name for _, exempt in self.policy.exempt_tools):
            return False
        api_id = await async_tool_api_id(self.hass, api, tool)
        return self.policy.exempts_tool(api_id, name)

    async def _async_resolve(self, call: ApiCall, turn: TurnContext) -> ApiCall:
        review = await async_review(self.hass, call.tool, call.arguments, turn.llm_context)
        return ApiCall(
            call.tool,
            call.arguments,
            review.targets,
            review.intent_type,
            read_only=review.tool_class is ToolClass.READ_ONLY,
        )

    @staticmethod
    def _deferred(call: ApiCall) -> list[str]:
        return sorted(
            key
            for key in DEFERRED_ARGUMENTS.get(call.intent_type or "", ())
            if not intent.is_blank_slot_value(call.arguments.get(key))
        )

    def _refuse_deferred(self, turn: TurnContext, call: ApiCall) -> Decision:
        message = (
            f"{', '.join(self._deferred(call))} is not available: a command that runs later "
            "would escape the confirmation of sensitive actions. Call the tool without it."
        )
        action = self._action(call, list(call.targets or ()), turn.language)
        return self._refuse(turn, action, message, "deferred command")

    def _refuse(
        self, turn: TurnContext, action: PendingAction, message: str, reason: str
    ) -> Decision:
        self.async_record(turn, action, Outcome.REFUSED, reason)
        return Decision(Verdict.REFUSE, None, action, message)

    def _describe(self, call: Call, sensitive: list[str], language: str = ENGLISH) -> str:
        named = self.policy.named_entities(self.hass)
        is_sensitive = self.policy.sensitivity(self.hass)
        if isinstance(call, PlannedAction):
            driving = self.policy.driving(self.hass, call)
            sets_off = self.policy.setting_off(self.hass, call)
            kept = kept_text(
                self.hass,
                self.policy.kept_from_securing(self.hass, call),
                is_sensitive,
                language,
                RELEASING_SERVICES,
            )
            return describe_action(
                self.hass,
                call,
                is_sensitive,
                language,
                named,
                driving=driving,
                sets_off=sets_off,
                kept=kept,
            )
        inner = unwrap(call.tool)
        return describe_api_call(
            self.hass,
            label=call.tool.title or inner.title or call.tool.name,
            intent_type=call.intent_type,
            outcome={
                key: value
                for key, value in call.arguments.items()
                if key not in TARGET_SLOTS and value not in (None, "", [])
            },
            sensitive=sensitive,
            is_sensitive=is_sensitive,
            language=language,
            by_name=named,
        )

    def _action(self, call: Call, sensitive: list[str], language: str) -> PendingAction:
        """Return the call as an action to hold or record: in English, and for the person."""
        description = self._describe(call, sensitive)
        spoken = "" if speaks_only_english(language) else self._describe(call, sensitive, language)
        if isinstance(call, PlannedAction):
            service = f"{call.domain}.{call.service}" if call.service else call.tool_name
        else:
            service = call.tool_name
        targets = tuple(call.targets or ())
        return PendingAction(
            service,
            targets,
            description,
            call,
            spoken,
            _identities(self.hass, targets),
            tuple(sensitive),
        )

    async def _async_held_in(
        self, pending: PendingConfirmation, language: str
    ) -> list[PendingAction]:
        """Return the held actions as said in this language.

        An answer may come in another language than the question (the next person at the same
        dialog, a question moved to another conversation): it is told in its own.
        """
        if pending.language == language:
            return list(pending.actions)
        return [await self._async_said_in(action, language) for action in pending.actions]

    async def _async_said_in(self, action: PendingAction, language: str) -> PendingAction:
        """Return the held action as said in this language (a question asked again elsewhere)."""
        call = action.call
        if isinstance(call, PlannedAction) and call.domain is not None:
            await async_load_value_words(self.hass, language, [call.domain])
            await async_load_option_words(self.hass, language, call.entity_ids)
        spoken = (
            ""
            if speaks_only_english(language)
            else self._describe(call, list(action.sensitive), language)
        )
        return replace(action, spoken=spoken)

    def pin_locked_seconds(self) -> float:
        """Seconds this agent's PIN confirmation is locked after too many wrong PINs."""
        if not self.policy.pin:
            return 0.0
        store = async_get_confirmations(self.hass)
        return store.pin_guard.locked_for(self.agent_id, store.clock())

    def _actions(self, actions: list[PendingAction], turn: TurnContext) -> str:
        """Say the held actions together, as the person asking hears them."""
        return self._said_to(turn, join_names([a.said for a in actions], turn.language))

    def _names(self, actions: list[PendingAction]) -> list[str]:
        """Return the names the actions are said with: a question writes them as they are."""
        return [entity_name(self.hass, target) for a in actions for target in a.targets]

    def _places_heard(self, action: PendingAction) -> str:
        """Return the action as a device names its targets: by place, as the registries say."""
        return aloud(self.hass, action.description, ENGLISH)

    def _said_to(self, turn: TurnContext, text: str) -> str:
        """Return our text as the turn's person hears it: aloud from a device (spoken_names)."""
        return aloud(self.hass, text, turn.language) if turn.answering_device else text

    @callback
    def async_redact_pin(self, turn: TurnContext, chat_log: conversation.ChatLog) -> None:
        """Keep a configured PIN out of the chat log, and so out of every prompt.

        A message read as the answer to a PIN question was masked as one; any other (up front
        with the request: "unlock the door, pin 4711") has what could be a PIN hidden, by its
        shape alone: what is hidden never tells whether a number was the PIN.
        """
        if self.policy.pin and not turn.read_as_pin_answer:
            _mask_last_user_message(chat_log, mask_possible_pins)

    def _mask_pin_answer(
        self, turn: TurnContext, chat_log: conversation.ChatLog, *, whole: bool
    ) -> None:
        """Mask a message read as an answer to a PIN question (whole: the answer is a PIN)."""
        _mask_last_user_message(chat_log, mask_digits if whole else mask_pin_guesses)
        turn.read_as_pin_answer = True

    @callback
    def async_record(
        self,
        turn: TurnContext,
        action: PendingAction,
        outcome: Outcome,
        reason: str | None = None,
    ) -> None:
        """Write one audit record for a turn of this user."""
        self._async_write(_asked_in_turn(turn), action, outcome, reason, turn)

    @callback
    def _async_write(
        self,
        asked: Asked,
        action: PendingAction,
        outcome: Outcome,
        reason: str | None,
        turn: TurnContext | None = None,
        *,
        language: str | None = None,
    ) -> None:
        """Record one step of an action of the turn `asked` says, in `language`."""
        if language is None:
            language = turn.language if turn is not None else ENGLISH
        record = AuditRecord(
            agent_id=self.agent_id,
            conversation_id=asked.conversation_id,
            user_id=asked.user_id,
            device_id=asked.device_id,
            satellite_id=asked.satellite_id,
            service=action.service,
            targets=list(action.targets),
            description=action.description,
            outcome=outcome,
            reason=reason,
            said=action.spoken,
            language=language if action.spoken else ENGLISH,
        )
        async_get_audit_log(self.hass).async_record(
            self.hass, record, context=turn.context if turn is not None else None
        )

    async def async_hold(
        self, turn: TurnContext, held: list[PendingAction], *, again: bool = False
    ) -> str:
        """Keep the actions for the user's answer; return the question to ask.

        again: the same question asked again where it was proposed (its record still open).
        """
        if self.retired is not None:
            # A turn that began before its agent was removed or rebuilt: nothing is held.
            for action in held:
                self.async_record(turn, action, Outcome.CANCELLED, _DROPPED[self.retired])
            return capitalized(
                await async_phrase(
                    self.hass, turn.language, self.retired.value, actions=self._actions(held, turn)
                ),
                self._names(held),
            )
        if turn.answering_device:
            if too_many := _too_long_to_say(held):
                # Fail closed: a yes would run targets the person could not have followed.
                for action in held:
                    self.async_record(turn, action, Outcome.REFUSED, "too long to confirm aloud")
                return await async_phrase(
                    self.hass,
                    turn.language,
                    "confirm_too_long_aloud",
                    count=str(too_many),
                    most=str(MAX_NAMES_ALOUD),
                )
            held = [replace(a, heard_places=self._places_heard(a)) for a in held]
        pending = PendingConfirmation(
            agent_id=self.agent_id,
            conversation_id=turn.conversation_id,
            user_id=turn.user_id,
            device_id=turn.device_id,
            satellite_id=turn.satellite_id,
            language=turn.language,
            actions=held,
            with_pin=self.policy.pin is not None,
            asked_in=turn.context.id,
        )

        @callback
        def expired(expired_pending: PendingConfirmation) -> None:
            for action in expired_pending.actions:
                self.async_record(turn, action, Outcome.EXPIRED)

        store = async_get_confirmations(self.hass)
        if not store.async_hold(self.hass, pending, self.policy.timeout_seconds, expired):
            # Another turn of this conversation, run at once with this one, holds a question:
            # a yes would answer only one of the two, and which one its person heard last is
            # unknown. That one waits; this one is never asked.
            for action in held:
                self.async_record(turn, action, Outcome.REFUSED, "another question waits")
            return capitalized(
                await async_phrase(
                    self.hass,
                    turn.language,
                    "confirmation_another_waits",
                    actions=self._actions(held, turn),
                ),
                self._names(held),
            )
        for action in held if not again else ():
            self.async_record(turn, action, Outcome.PROPOSED)
        key = "confirm_with_pin" if self.policy.pin else "confirm_question"
        return capitalized(
            await async_phrase(self.hass, turn.language, key, actions=self._actions(held, turn)),
            self._names(held),
        )

    @callback
    def asks(self, turn: TurnContext) -> bool:
        """Whether the question waiting in the turn's conversation is the one the turn held."""
        return async_get_confirmations(self.hass).async_asks(
            self.agent_id, turn.conversation_id, turn.context.id
        )

    def _asked_again(self, turn: TurnContext) -> ReplyOutcome:
        """How a reply that asks its question again ends: asked, or refused (not held)."""
        return ReplyOutcome.ASKED_AGAIN if self.asks(turn) else ReplyOutcome.REFUSED

    async def async_refusal(self, turn: TurnContext, refused: list[PendingAction]) -> str:
        """Return the fixed answer when nobody is there to confirm."""
        return capitalized(
            await async_phrase(
                self.hass,
                turn.language,
                "refused_unattended",
                actions=self._actions(refused, turn),
            ),
            self._names(refused),
        )

    # The next turn ---------------------------------------------------------------------------

    async def async_answer_pending(
        self, turn: TurnContext, chat_log: conversation.ChatLog
    ) -> PendingReply | None:
        """Read a reply to a pending question; None when the turn is a new request.

        A message from another user or device neither confirms nor cancels the question: it
        is refused, and the question keeps waiting for its own person until its timeout. Home
        Assistant 2026.11 refuses another user's message in the conversation before any agent
        runs; this gives 2026.10 (and another device of the same user) the same behaviour.
        Such a message is taken out of the conversation, and the refusal is said to its
        sender alone: Home Assistant 2026.10 has put it in the chat log, where the model
        would read it later as the asking person's own words and act on it with their rights.
        Every message of the conversation's owner keeps it theirs, an answer as much as a
        request (Home Assistant's chat session lasts as long after either), and no message
        of another user reaches the model, whatever became of the question.
        """
        store = async_get_confirmations(self.hass)
        admitted = store.owners.admits(turn.conversation_id, turn.user_id, store.clock())
        waiting = store.async_peek(self.agent_id, turn.conversation_id)
        if waiting is None:
            if not admitted:
                return await self._async_refuse_other_user(turn, chat_log)
            if _opens(chat_log) and (here := await self._async_ask_here(turn, chat_log)):
                return here
            return await self._async_answer_late(turn, chat_log)
        language = turn.language
        # A script that asked answers in the context of its own run: the person who ran it
        # never heard the question.
        asked_itself = waiting.asked_in in (turn.context.id, turn.context.parent_id)
        same_person = (
            not asked_itself
            and waiting.user_id == turn.user_id
            and waiting.answering_device == turn.answering_device
            and self.person_present(turn)
        )
        if not same_person and not waiting.expired(store.clock()):
            if asked_itself:
                reason = "an answer from the run that asked"
            elif self.person_present(turn):
                reason = "an answer from another user or device"
            else:
                reason = "an answer from no person"
            self._record_all(turn, waiting, Outcome.ANSWER_REFUSED, reason)
            _drop_last_user_message(chat_log)
            return PendingReply(
                await async_phrase(self.hass, language, "confirmation_other_person"),
                ReplyOutcome.REFUSED,
                user_only=True,
            )
        if not waiting.said and not waiting.expired(store.clock()):
            # Its turn is still saying it (or what ran beside it): the person never heard it.
            self._record_all(turn, waiting, Outcome.ANSWER_REFUSED, "an answer before the question")
            _drop_last_user_message(chat_log)
            return PendingReply(
                await async_phrase(self.hass, language, "confirmation_not_asked_yet"),
                ReplyOutcome.REFUSED,
                user_only=True,
            )
        pending = store.async_take(self.agent_id, turn.conversation_id)
        if pending is None:
            # Past its timeout (its timer had not run yet): as when nothing waits.
            if not admitted:
                return await self._async_refuse_other_user(turn, chat_log)
            return await self._async_answer_late(turn, chat_log)
        if not same_person:
            return None
        if self.policy.pin:
            return await self._async_answer_pin(turn, chat_log, pending)
        reply = classify_reply(turn.text, language, _restating(pending, language))
        if reply is Reply.YES:
            return PendingReply("", ReplyOutcome.EXECUTED, tuple(pending.actions))
        if reply is Reply.NO:
            return await self._async_cancelled(turn, pending)
        return await self._async_set_aside(turn, pending, "confirmation_set_aside")

    @callback
    def async_turn_ended(self, conversation_id: str, asked_in: str) -> None:
        """Keep the conversation its owner's from the end of a turn, as long as it lasts.

        The question the turn (of context `asked_in`) held is said now, and may be answered.
        """
        store = async_get_confirmations(self.hass)
        store.owners.renew(conversation_id, store.clock())
        store.async_said(self.agent_id, conversation_id, asked_in)

    @callback
    def async_turn_stopped(self, conversation_id: str, asked_in: str) -> None:
        """Take back the question a stopped turn held: nobody heard it, so no yes answers it."""
        store = async_get_confirmations(self.hass)
        if withdrawn := store.async_withdraw(self.agent_id, conversation_id, asked_in):
            self._async_cancelled_unanswered(withdrawn, "the turn that asked was stopped")

    async def _async_refuse_other_user(
        self, turn: TurnContext, chat_log: conversation.ChatLog
    ) -> PendingReply:
        """Refuse a user's message in a conversation another user started; leave no trace.

        As Home Assistant 2026.11 does before any agent runs: on 2026.10 the message is in the
        chat log, where the owner's model would read it as the owner's own words.
        """
        _drop_last_user_message(chat_log)
        return PendingReply(
            await async_phrase(self.hass, turn.language, "conversation_other_user"),
            ReplyOutcome.REFUSED,
            user_only=True,
        )

    async def _async_ask_here(
        self, turn: TurnContext, chat_log: conversation.ChatLog
    ) -> PendingReply | None:
        """Ask again here a question its person answers in a new conversation of theirs.

        The Assist dialog starts a new conversation each time it opens (in a second tab, on
        the phone, after it was closed): a yes that opens one, from the person (and device)
        whose one question waits in another, would reach the model as a new request and the
        question stay where nobody answers it. Nothing runs on it: the question moves into
        this conversation, asked in full, and a yes there confirms it. Their no cancels it, as
        it would where it was asked: it runs nothing either way.
        """
        if turn.user_id is None or not self.person_present(turn):
            return None
        store = async_get_confirmations(self.hass)
        waiting = store.async_waiting_for(
            self.agent_id,
            lambda p: p.user_id == turn.user_id and p.answering_device == turn.answering_device,
        )
        if len(waiting) != 1:
            return None  # none, or which one it answers would be a guess
        elsewhere, language = waiting[0], turn.language
        restating = _restating(elsewhere, language)
        reply = classify_reply(turn.text, language, restating)
        if reply is Reply.NO:
            return await self._async_cancel_elsewhere(turn, elsewhere)
        answered = reply is Reply.YES
        if elsewhere.with_pin and said_pin_words(turn.text):
            answered = classify_pin_reply(turn.text, language, restating) is PinReply.PIN
            # Never checked here: it is asked for again.
            self._mask_pin_answer(turn, chat_log, whole=answered)
        if not answered:
            return None
        moved = store.async_move(self.agent_id, elsewhere.conversation_id)
        if moved is None:
            return None  # past its time meanwhile
        for action in moved.actions:
            # Its proposal there ends: it is proposed again here, and answered here.
            self._async_write(
                _asked_of(moved),
                action,
                Outcome.MOVED,
                "asked again in another conversation",
                turn,
                language=moved.language,
            )
        question = await self.async_hold(turn, await self._async_held_in(moved, language))
        return PendingReply(question, self._asked_again(turn))

    async def _async_cancel_elsewhere(
        self, turn: TurnContext, elsewhere: PendingConfirmation
    ) -> PendingReply | None:
        """Cancel the person's question waiting in another conversation, on their no here."""
        store = async_get_confirmations(self.hass)
        cancelled = store.async_take(self.agent_id, elsewhere.conversation_id)
        if cancelled is None:
            return None  # past its time meanwhile: a new request
        return await self._async_cancelled(turn, cancelled)

    async def _async_cancelled(
        self, turn: TurnContext, pending: PendingConfirmation
    ) -> PendingReply:
        """Record the person's no to a question and tell them nothing was done."""
        self._record_all(turn, pending, Outcome.CANCELLED, "the user said no")
        return PendingReply(
            await async_phrase(self.hass, turn.language, "confirmation_cancelled"),
            ReplyOutcome.CANCELLED,
        )

    async def _async_answer_late(
        self, turn: TurnContext, chat_log: conversation.ChatLog
    ) -> PendingReply | None:
        """Tell a yes (or a PIN) to a question that closed unanswered that it came too late.

        The question timed out, or the agent's settings changed or it restarted before the
        answer (Home Assistant's too: the question is read back after its restart); the person
        hears which. Only its own person's, in its conversation or as the first words of a new
        one (the dialog asked in is gone: it was closed, or Home Assistant restarted), within
        LATE_ANSWER_SECONDS; anything else is a new request, and another's message leaves it
        for them. Nothing is run: the question is gone, and so is
        its yes.
        """

        def theirs(late: PendingConfirmation) -> bool:
            return (
                late.user_id == turn.user_id
                and late.answering_device == turn.answering_device
                and self.person_present(turn)
            )

        store = async_get_confirmations(self.hass)
        late = store.async_take_expired(self.agent_id, turn.conversation_id, theirs)
        if late is None and turn.user_id is not None and _opens(chat_log):
            # The dialog asked in is gone (closed, or Home Assistant restarted since).
            late = store.async_take_expired_for(self.agent_id, theirs)
        if late is None:
            return None
        language = turn.language
        if late.with_pin:  # as asked, whatever the settings say now
            answered = classify_pin_reply(turn.text, language) is PinReply.PIN
            if said_pin_words(turn.text):
                # A late guess, right or close, stays out of the chat log as any answer's does,
                # and beside another request too (that request goes on to the model).
                self._mask_pin_answer(turn, chat_log, whole=answered)
            elif late.ended is Ending.WRONG_PIN:
                # After "That PIN is not right" only another try is an answer: "thanks" or
                # "ok" is none, and a no is told nothing will be done, as a no always is.
                if classify_reply(turn.text, language) is Reply.NO:
                    return PendingReply(
                        await async_phrase(self.hass, language, "confirmation_cancelled"),
                        ReplyOutcome.CANCELLED,
                    )
                # The question stays closed: a try after the courtesy is still told so.
                store.async_keep_closed(late)
                return None
        else:
            answered = classify_reply(turn.text, language, _restating(late, language)) is Reply.YES
        if not answered:
            return None
        ending = late.ended or Ending.TIMED_OUT
        held = await self._async_held_in(late, language)
        text = await async_phrase(
            self.hass, language, ending.value, actions=self._actions(held, turn)
        )
        return PendingReply(capitalized(text, self._names(late.actions)), ReplyOutcome.REFUSED)

    async def _async_set_aside(
        self, turn: TurnContext, pending: PendingConfirmation, key: str
    ) -> PendingReply:
        """Drop the question for a reply that asks for something else, and say so.

        Without a word the person could take the held action for done ("yes, and turn on the
        lights": the lights go on, the door stays locked).
        """
        self._record_all(turn, pending, Outcome.CANCELLED, "the user asked something else")
        held = await self._async_held_in(pending, turn.language)
        text = await async_phrase(self.hass, turn.language, key, actions=self._actions(held, turn))
        return PendingReply(capitalized(text, self._names(pending.actions)), ReplyOutcome.SET_ASIDE)

    async def _async_answer_pin(
        self,
        turn: TurnContext,
        chat_log: conversation.ChatLog,
        pending: PendingConfirmation,
    ) -> PendingReply | None:
        assert self.policy.pin is not None
        language = turn.language
        text = turn.text
        said_digits = spoken_pin(text)
        reading = classify_pin_reply(text, language, _restating(pending, language))
        if said_pin_words(text):
            # A wrong guess may be close to the PIN: keep every answer's digits out too, and a
            # number said beside something else ("forty eleven, and turn on the light"); an
            # ordinary number in another request ("what is 2 plus 2") stays.
            self._mask_pin_answer(turn, chat_log, whole=reading is PinReply.PIN)
        if reading is PinReply.PIN and said_as_number(text):
            # Not read, so no guess: the same question, asking for the digits one by one.
            heard = await async_phrase(self.hass, language, "confirmation_pin_as_number")
            question = await self.async_hold(turn, list(pending.actions), again=True)
            return PendingReply(f"{heard} {question}", self._asked_again(turn))
        if reading is PinReply.OTHER:
            return await self._async_set_aside(turn, pending, "confirmation_set_aside_pin")
        if reading is PinReply.NO:
            self._record_all(turn, pending, Outcome.CANCELLED, "the user said no")
            return PendingReply(
                await async_phrase(self.hass, language, "confirmation_cancelled"),
                ReplyOutcome.CANCELLED,
            )
        if locked := self.pin_locked_seconds():
            self._record_all(turn, pending, Outcome.REFUSED, "PIN entry locked")
            return PendingReply(
                await self.async_locked_phrase(language, locked), ReplyOutcome.REFUSED
            )
        store = async_get_confirmations(self.hass)
        guard = store.pin_guard
        if pin_matches(text, self.policy.pin):
            guard.succeeded(self.agent_id)
            return PendingReply("", ReplyOutcome.EXECUTED, tuple(pending.actions))
        reason = "wrong PIN" if said_digits else "no PIN given"
        self._record_all(turn, pending, Outcome.REFUSED, reason)
        if said_digits:
            # The person's next try is no answer: it is kept out of the model's sight as one.
            store.async_close(pending, Ending.WRONG_PIN)
        if said_digits and guard.failed(self.agent_id, store.clock()):
            await self._async_lock_out(turn, pending)
            return PendingReply(
                await self.async_locked_phrase(language, self.pin_locked_seconds()),
                ReplyOutcome.REFUSED,
            )
        return PendingReply(
            await async_phrase(
                self.hass,
                language,
                "confirmation_wrong_pin" if said_digits else "confirmation_pin_missing",
            ),
            ReplyOutcome.REFUSED,
        )

    async def async_locked_phrase(self, language: str, seconds: float) -> str:
        """Return the answer while PIN confirmation is locked."""
        minutes = max(1, round(seconds / 60))
        return await async_phrase(self.hass, language, "pin_locked", minutes=str(minutes))

    async def _async_lock_out(self, turn: TurnContext, pending: PendingConfirmation) -> None:
        """Record the lock-out and tell the owner where they look: a notification."""
        self._record_all(turn, pending, Outcome.REFUSED, "too many wrong PINs")
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

    async def async_decide_confirmed(
        self, action: PendingAction, turn: TurnContext, *, api_error: str | None = None
    ) -> Decision:
        """Allow exactly the confirmed action, resolved again; refuse it if it changed.

        A held tool is looked up again in the turn's LLM API, which the agent gets before it
        asks (api_error: why it could not).
        """
        self.async_record(turn, action, Outcome.CONFIRMED)
        # A look-alike moved, or its place renamed, since a device named it by its place: the
        # yes may mean the one now said there.
        if action.heard_places and self._places_heard(action) != action.heard_places:
            return self._failed(turn, action, _CHANGED, _SAID_CHANGED)
        held = action.call
        if isinstance(held, PlannedAction):
            if _identities(self.hass, held.targets) != action.identities:
                return self._failed(turn, action, _CHANGED, _SAID_CHANGED)
            if self._describe(held, []) != action.description:
                return self._failed_changed(turn, action, held.targets)
            return Decision(Verdict.ALLOW, held, action, confirmed=True)
        api = turn.llm_api
        if api is None:
            error = api_error or "the assistant's tools are not available"
            return self._failed(turn, action, error, error)
        tool = next((t for t in api.tools if t.name == held.tool_name), None)
        if tool is None:
            return self._failed(
                turn,
                action,
                f"{held.tool_name} is no longer available",
                Phrase("reason_tool_gone", {"tool": held.tool_name}),
            )
        now = await self._async_resolve(ApiCall(tool, held.arguments), turn)
        if self._deferred(now):
            return self._failed(
                turn, action, "it would run a command later", Phrase("reason_deferred")
            )
        if (
            now.targets != held.targets
            or _identities(self.hass, now.targets or ()) != action.identities
        ):
            return self._failed(turn, action, _CHANGED, _SAID_CHANGED)
        # What runs inside the targets (a scene made again, a group's members) is what the
        # person heard: the question said it, so the same words must say it now.
        sensitive = self._sensitive_targets(now)
        if self._describe(now, sensitive) != action.description:
            return self._failed_changed(turn, action, now.targets or ())
        return Decision(Verdict.ALLOW, now, action, confirmed=True)

    def _failed_changed(
        self, turn: TurnContext, action: PendingAction, targets: Sequence[str]
    ) -> Decision:
        """Refuse a held action whose question no longer says it, and say why.

        The same entities (their registry entries checked before): one gone since (disabled,
        removed) is said gone by the name it had; one renamed is said by its name now, so the
        person hears it is the same device and can ask for it again. Anything else (what the
        action would set off, a group's members) is a change of the devices it would change.
        """
        registry = er.async_get(self.hass)
        for entity_id in targets:
            if self.hass.states.get(entity_id) is None:
                entry = registry.async_get(entity_id)
                name = (er.async_get_full_entity_name(self.hass, entry) if entry else "") or ""
                said = told_name(self.hass, entity_id, name) if name else entity_id
                return self._failed(
                    turn, action, f"{said} is gone", Phrase("reason_gone", {"name": said})
                )
        # Said as our questions say a name: with its id where it could be taken for another
        # device's or holds marks of our sentences ("Shed Door. Opened Garage Door").
        renamed = [
            entity_name(self.hass, entity_id)
            for entity_id in targets
            if (state := self.hass.states.get(entity_id)) is not None
            and said_name(state.name, entity_id) not in action.description
        ]
        if not renamed:
            return self._failed(turn, action, _CHANGED, _SAID_CHANGED)
        names = join_names(renamed, turn.language)
        return self._failed(
            turn,
            action,
            f"now called {join_names(renamed)}",
            Phrase("reason_renamed", {"names": names}),
        )

    def _failed(self, turn: TurnContext, action: PendingAction, error: str, said: Said) -> Decision:
        self.async_record(turn, action, Outcome.FAILED, error)
        return Decision(Verdict.REFUSE, None, action, error, confirmed=True, said=(said,))

    async def async_confirmed_reply(
        self,
        turn: TurnContext,
        done: list[str],
        failed: list[tuple[str, tuple[Said, ...]]],
        already: str = "",
    ) -> PendingReply:
        """Say what the confirmed actions really did: `failed` pairs an action with why.

        already: the sentence saying the targets that ran found as they asked, none changed.
        """
        language = turn.language
        parts = []
        if done:
            parts.append(
                await async_phrase(
                    self.hass, language, "confirmed_done", actions=join_names(done, language)
                )
            )
        if already:
            parts.append(already)
        if failed:
            errors = [
                await async_phrase(
                    self.hass,
                    language,
                    "confirmed_failed_because",
                    action=action,
                    reason=await async_said(self.hass, language, why),
                )
                for action, why in failed
            ]
            parts.append(
                await async_phrase(
                    self.hass, language, "confirmed_failed", errors="; ".join(errors)
                )
            )
        ran = done or already
        said = self._said_to(turn, " ".join(parts))
        return PendingReply(said, ReplyOutcome.EXECUTED if ran else ReplyOutcome.FAILED)

    @callback
    def async_drop_pending(self, ending: Ending) -> None:
        """Cancel what this agent holds: its settings changed, or it stops or restarts."""
        reason = _DROPPED[ending]
        self.retired = ending
        for pending in async_get_confirmations(self.hass).async_clear(self.agent_id, ending):
            self._async_cancelled_unanswered(pending, reason)

    @callback
    def _async_cancelled_unanswered(self, pending: PendingConfirmation, reason: str) -> None:
        """Record a question closed without its person's answer, for `reason`."""
        for action in pending.actions:
            self._async_write(
                _asked_of(pending), action, Outcome.CANCELLED, reason, language=pending.language
            )

    def _record_all(
        self, turn: TurnContext, pending: PendingConfirmation, outcome: Outcome, reason: str
    ) -> None:
        for action in pending.actions:
            self.async_record(turn, action, outcome, reason)


# A spoken question a person can follow: about as many names as one keeps in mind at once
# (four to seven). Each name is cut at 100 characters (entity_view), so this bounds its length.
MAX_NAMES_ALOUD: Final = 5


def _too_long_to_say(held: list[PendingAction]) -> int:
    """Return how many things the spoken question names when they are too many, else 0."""
    names = len({target for action in held for target in action.targets}) or len(held)
    return names if names > MAX_NAMES_ALOUD else 0


_CHANGED = "the devices it would change are not the same any more"
_DROPPED: Final = {
    Ending.SETTINGS_CHANGED: "the agent's settings changed",
    Ending.RESTARTED: "the agent stopped",
    Ending.TIMED_OUT: "the question timed out",
}
_SAID_CHANGED = Phrase("reason_changed")


class Asked(NamedTuple):
    """Whose turn an audit record is of: where, by whom, from which device and satellite."""

    conversation_id: str
    user_id: str | None
    device_id: str | None
    satellite_id: str | None


def _asked_in_turn(turn: TurnContext) -> Asked:
    return Asked(turn.conversation_id, turn.user_id, turn.device_id, turn.satellite_id)


def _asked_of(pending: PendingConfirmation) -> Asked:
    """Return the turn that asked a question: its records are that turn's, wherever written."""
    return Asked(pending.conversation_id, pending.user_id, pending.device_id, pending.satellite_id)


def _identities(hass: HomeAssistant, entity_ids: Iterable[str]) -> tuple[Identity, ...]:
    """Return what each entity is: its registry entry, else its entity object, else its id.

    An entity id can pass to another entity (renamed away, another renamed to it); the
    registry entry's id stays with the entity. An entity without one is known by its object
    (compared by identity; a reload makes a new one, and the yes is then refused); an id
    with no object behind it (a state set by hand) is all there is to know.
    """
    registry = er.async_get(hass)
    return tuple(
        entry.id
        if (entry := registry.async_get(entity_id))
        else entity_object_ref(hass, entity_id) or entity_id
        for entity_id in entity_ids
    )


def _mask_last_user_message(chat_log: conversation.ChatLog, mask: Callable[[str], str]) -> None:
    """Replace the user's latest message by what `mask` leaves of it."""
    for index in range(len(chat_log.content) - 1, -1, -1):
        content = chat_log.content[index]
        if isinstance(content, conversation.UserContent):
            chat_log.content[index] = replace(content, content=mask(content.content))
            return


def _drop_last_user_message(chat_log: conversation.ChatLog) -> None:
    """Take the latest user message out of the chat log: it is not this conversation's."""
    for index in range(len(chat_log.content) - 1, -1, -1):
        if isinstance(chat_log.content[index], conversation.UserContent):
            del chat_log.content[index]
            return


def _opens(chat_log: conversation.ChatLog) -> bool:
    """Whether the turn's message is the first of its conversation."""
    said = [c for c in chat_log.content if isinstance(c, conversation.UserContent)]
    return len(said) <= 1


def _restating(pending: PendingConfirmation, language: str) -> frozenset[str]:
    """Return what says the held actions again and so reads as a yes ("unlock it")."""
    return restatements([action.call for action in pending.actions], language)
