"""One conversation turn: prompt -> engine -> tool calls -> validation -> execution -> loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from datetime import datetime
from functools import partial
from math import ceil
from math import inf
from time import monotonic
from typing import Any
from typing import Final

import probatio

from custom_components.local_agent.compat import with_timer_tools_last
from custom_components.local_agent.const import CONF_HISTORY_TOKENS
from custom_components.local_agent.const import CONF_HOME_TOOLS
from custom_components.local_agent.const import CONF_MAX_ROUNDS
from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_MODEL_PHRASES_ANSWERS
from custom_components.local_agent.const import CONF_THINKING
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from custom_components.local_agent.const import DEFAULT_API_INSTRUCTIONS
from custom_components.local_agent.const import DEFAULT_INSTRUCTIONS
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import LOGGER
from custom_components.local_agent.engine.errors import EngineError
from custom_components.local_agent.engine.generation import GenerationOutput
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.interface import GenerationEngine
from custom_components.local_agent.engine.settings import SamplingSettings
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.tool_calls import ReasoningDelta
from custom_components.local_agent.engine.tool_calls import TextDelta
from custom_components.local_agent.engine.tool_calls import ToolCallFailed
from custom_components.local_agent.engine.tool_calls import ToolCallParsed
from custom_components.local_agent.engine.tool_calls import calls_written_as_text
from custom_components.local_agent.engine.types import Conversation
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.engine.types import ToolCallError
from custom_components.local_agent.engine.types import ToolSpec
from custom_components.local_agent.engine.words import asks_for_later
from custom_components.local_agent.home.actions import ApiCall
from custom_components.local_agent.home.actions import Call
from custom_components.local_agent.home.actions import PlannedAction
from custom_components.local_agent.home.call_texts import Phrase
from custom_components.local_agent.home.call_texts import Said
from custom_components.local_agent.home.call_texts import as_sentence
from custom_components.local_agent.home.call_texts import async_load_value_words
from custom_components.local_agent.home.call_texts import async_phrase
from custom_components.local_agent.home.call_texts import async_said as async_said_parts
from custom_components.local_agent.home.call_texts import capitalized
from custom_components.local_agent.home.call_texts import join_few_names
from custom_components.local_agent.home.call_texts import names_in
from custom_components.local_agent.home.call_texts import with_entity_names
from custom_components.local_agent.home.colours import COLOUR_FIELD
from custom_components.local_agent.home.colours import NO_WORDS
from custom_components.local_agent.home.colours import async_colour_words
from custom_components.local_agent.home.colours import read_slot_colours
from custom_components.local_agent.home.entity_view import VOICE_TIMER_LINE
from custom_components.local_agent.home.entity_view import EntityLine
from custom_components.local_agent.home.entity_view import temperature_unit_text
from custom_components.local_agent.home.failure_reasons import RefusedByName
from custom_components.local_agent.home.failure_reasons import refused_result
from custom_components.local_agent.home.live_context import bounded_api_prompt
from custom_components.local_agent.home.resolver import NO_SUCH_ENTITY
from custom_components.local_agent.home.resolver import parse_entity_ids
from custom_components.local_agent.home.runner import Problem
from custom_components.local_agent.home.runner import RunResult
from custom_components.local_agent.home.runner import already_secured
from custom_components.local_agent.home.runner import already_so
from custom_components.local_agent.home.runner import async_check
from custom_components.local_agent.home.runner import async_llm_api
from custom_components.local_agent.home.runner import async_run
from custom_components.local_agent.home.runner import changed_something
from custom_components.local_agent.home.runner import error_result
from custom_components.local_agent.home.runner import found_as_asked
from custom_components.local_agent.home.runner import partly_failed
from custom_components.local_agent.home.tools import GET_STATE
from custom_components.local_agent.home.tools import PLACE_TARGETS
from custom_components.local_agent.home.tools import UNKNOWN_FIELD
from custom_components.local_agent.home.tools import HomeTools
from custom_components.local_agent.home.tools import ToolFailure
from custom_components.local_agent.home.tools import async_build_home_tools
from custom_components.local_agent.home.turn_context import TurnContext
from custom_components.local_agent.home.unexposed import nameless_names_in
from custom_components.local_agent.home.unexposed import unexposed_names_in
from custom_components.local_agent.runtime.stats import AgentStats
from custom_components.local_agent.safety.audit import Outcome
from custom_components.local_agent.safety.confirmation import PendingAction
from custom_components.local_agent.safety.confirmation import Reply
from custom_components.local_agent.safety.confirmation import classify_reply
from custom_components.local_agent.safety.gate import Decision
from custom_components.local_agent.safety.gate import PendingReply
from custom_components.local_agent.safety.gate import ReplyOutcome
from custom_components.local_agent.safety.gate import SafetyGate
from custom_components.local_agent.safety.gate import TurnSafety
from custom_components.local_agent.safety.gate import Verdict
from custom_components.local_agent.safety.intents import ASSIST_INTENTS
from custom_components.local_agent.safety.intents import ToolClass
from custom_components.local_agent.safety.policy import SafetyPolicy
from custom_components.local_agent.safety.tool_review import classify
from custom_components.local_agent.safety.tool_review import intent_rule
from custom_components.local_agent.safety.tool_review import intent_type_of
from custom_components.local_agent.safety.tool_review import offered_parameters
from homeassistant.components import conversation
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.const import CONF_PROMPT
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.core import valid_entity_id
from homeassistant.exceptions import HomeAssistantError
from homeassistant.exceptions import TemplateError
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import intent
from homeassistant.helpers import llm
from homeassistant.helpers import template
from homeassistant.helpers.chat_session import CONVERSATION_TIMEOUT
from homeassistant.util import dt as dt_util

from . import notices
from .api_prompt import NO_API_PROMPT
from .api_prompt import DeviceLines
from .api_prompt import PromptsByDevice
from .api_prompt import SplitPrompt
from .asked_from import asked_from_line
from .core_speech import async_core_speech
from .defaults import agent_data
from .defaults import sampling_settings
from .error_text import engine_error_text
from .history import to_messages
from .history import trim_history
from .home_context import HomeContext
from .home_context import kept_conversations
from .home_context import message_start
from .imitated_question import async_without_imitated_question
from .imitated_question import remember_imitation
from .notices import TurnStream
from .notices import async_said
from .notices import last_answer
from .notices import said_content
from .notices import user_only_deltas
from .plain_answer import DoneAction
from .plain_answer import actions_done_in
from .plain_answer import already_as_asked
from .plain_answer import async_in_words
from .plain_answer import done_actions
from .plain_answer import left_as_they_were
from .plain_answer import sentence
from .plain_answer import speaks
from .plain_answer import states_read
from .refusals import as_missed
from .refusals import describe_calls
from .refusals import failed_in_last_round
from .refusals import failure_reasons
from .refusals import partly_failed_in_last_round
from .refusals import refused_by_core
from .refusals import refused_calls
from .report import TurnEnd
from .report import TurnReport
from .results import HeldResult
from .results import UnattendedRefusal
from .results import async_set_reply_response_type
from .results import async_set_response_type
from .results import carried_out
from .results import changed_the_home
from .results import ran_beside_held
from .spoken_text import said_aloud
from .spoken_text import spoken


@dataclass(frozen=True, slots=True)
class AgentOptions:
    """A conversation agent's settings, from its subentry."""

    instructions: str
    llm_apis: tuple[str, ...]
    home_tools: bool
    thinking: bool
    thinking_budget: int | None
    sampling: SamplingSettings
    max_tokens: int
    max_rounds: int
    history_tokens: int
    safety: SafetyPolicy
    # Let the model phrase the answer after plain actions too (plain_answer.py).
    model_phrases_answers: bool = False

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> AgentOptions:
        """Read subentry data; missing keys take AGENT_DEFAULTS."""
        data = agent_data(data)
        apis = data[CONF_LLM_HASS_API] or ()
        budget = int(data[CONF_THINKING_BUDGET])
        return cls(
            instructions=data[CONF_PROMPT] or DEFAULT_INSTRUCTIONS,
            llm_apis=(apis,) if isinstance(apis, str) else tuple(apis),
            home_tools=bool(data[CONF_HOME_TOOLS]),
            thinking=bool(data[CONF_THINKING]),
            thinking_budget=budget if budget > 0 else None,
            sampling=sampling_settings(data),
            max_tokens=int(data[CONF_MAX_TOKENS]),
            max_rounds=int(data[CONF_MAX_ROUNDS]),
            history_tokens=int(data[CONF_HISTORY_TOKENS]),
            safety=SafetyPolicy.from_data(data),
            model_phrases_answers=bool(data[CONF_MODEL_PHRASES_ANSWERS]),
        )

    @property
    def turn_room(self) -> int:
        """Tokens a turn needs after the agent's prefix: history, messages, answers."""
        thinking = (self.thinking_budget or 0) if self.thinking else 0
        return self.history_tokens + 2 * (self.max_tokens + thinking) + MESSAGE_ROOM


# Tokens of a user message and its context block (time, changed states), beyond the history.
MESSAGE_ROOM = 512
# A command that must wait this long for its agent's prefix to be evaluated says so first.
WAIT_NOTICE_SECONDS = 3.0
# After taking an outgrown home list again in the background, the next such retake waits this
# many times as long as the last one took: at most a quarter of the machine's time.
RETAKE_PAUSE_FACTOR = 3.0


@dataclass(slots=True)
class _Toolbox:
    """The tools offered in one turn and how to run each."""

    specs: list[ToolSpec]
    home: HomeTools | None
    llm_api: llm.APIInstance | None
    # The exposed entities as the turn started (None without the home tools).
    lines: list[EntityLine] | None = None
    # The LLM API's prompt: its part for the prefix, this request's lines for its block.
    api_prompt: SplitPrompt = NO_API_PROMPT


@dataclass(frozen=True, slots=True)
class _FollowUp:
    """A conversation's next turn as prepared, and until when it can still come."""

    conversation: Conversation
    specs: list[ToolSpec]
    until: datetime
    conversation_id: str


async def async_turn_context(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    conversation_id: str,
    llm_apis: tuple[str, ...] = (),
) -> TurnContext:
    """Read who asks in this turn."""
    # A caller may pass no context at all (conversation.async_converse with context=None).
    context = user_input.context or Context()
    user_id = context.user_id
    return TurnContext(
        conversation_id=conversation_id,
        context=context,
        user_id=user_id,
        user=await hass.auth.async_get_user(user_id) if user_id else None,
        device_id=user_input.device_id,
        satellite_id=user_input.satellite_id,
        answering_device=user_input.device_id or user_input.satellite_id,
        language=user_input.language,
        text=user_input.text,
        llm_context=user_input.as_llm_context(DOMAIN),
        llm_apis=llm_apis,
    )


@dataclass(slots=True)
class Turn:
    """One turn on the call path: who asks and with which tools, what was said, what it did.

    `safety` holds the sensitive calls of the turn's current round of calls (held, refused).
    """

    context: TurnContext
    chat_log: conversation.ChatLog
    report: TurnReport = field(default_factory=TurnReport)
    safety: TurnSafety = field(default_factory=TurnSafety)


@dataclass(slots=True)
class _RunningTurn:
    """One turn in progress: what was said, the turn, its tools and prompt, what it streamed."""

    user_input: conversation.ConversationInput
    turn: Turn
    toolbox: _Toolbox
    static_system: str
    stream: TurnStream
    # Said first: a held action the person's reply set aside instead of answering.
    set_aside: str | None = None

    @property
    def home_tools(self) -> list[str]:
        """Return the names of our own tools offered in this turn (none: Assist's alone)."""
        return self.toolbox.home.tool_names if self.toolbox.home is not None else []


class ConversationAgent:
    """Runs turns for one conversation entity."""

    def __init__(
        self,
        hass: HomeAssistant,
        worker: GenerationEngine,
        options: AgentOptions,
        *,
        agent_id: str,
        subentry_id: str,
        stats: AgentStats,
    ) -> None:
        """Bind the agent to a loaded model, its settings and where its figures are kept."""
        self.hass = hass
        self.worker = worker
        self.options = options
        self.agent_id = agent_id
        self.gate = SafetyGate(hass, options.safety, agent_id)
        self.last_report: TurnReport | None = None
        self.stats = stats
        self.home_context = HomeContext(kept_conversations(hass, subentry_id))
        # The follow-up the engine was last given to prepare, until its chat session ends.
        self._follow_up: _FollowUp | None = None
        # The lines of the LLM API's prompt that depend on the device (turn/api_prompt.py).
        self._device_lines = DeviceLines()
        # By device: the LLM API's prompt without it.
        self._general_prompts = PromptsByDevice()
        # When (time.monotonic) the home list may next be taken again in the background.
        self._next_retake = 0.0
        # What each running turn streamed, by conversation.
        self._streams: dict[str, TurnStream] = {}
        # Who warms this agent up (turn/warm_up.py), told when a turn stops before its end.
        self.on_turn_stopped: Callable[[], None] | None = None
        # The conversations whose last answer imitated our confirmation question.
        self._imitated: set[str] = set()

    async def async_handle(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> conversation.ConversationResult:
        """Answer one user message, calling tools as the model asks.

        Home Assistant keeps the conversation from the end of the turn: so does its owner's
        claim on it. A question is said when its turn ends asking it (the conversation kept
        open for the answer); a turn that ends otherwise (stopped by Home Assistant, cut off
        at its time limit, failed after the hold) takes back the question it held, which
        nobody heard.
        """
        asked_in = user_input.context.id
        try:
            result = await self._async_handle(user_input, chat_log)
        except BaseException:
            self.gate.async_turn_stopped(chat_log.conversation_id, asked_in)
            raise
        if not result.continue_conversation:
            self.gate.async_turn_stopped(chat_log.conversation_id, asked_in)
        self.gate.async_turn_ended(chat_log.conversation_id, asked_in)
        if (user_input.device_id or user_input.satellite_id) and (
            said := result.response.speech.get("plain", {}).get("speech")
        ):
            # Our own sentences too ("Settings > Repairs", "50%", "(lock.front_door)"): a
            # device says what it is given.
            result.response.async_set_speech(said_aloud(said, user_input.language))
        return result

    async def _async_handle(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> conversation.ConversationResult:
        options = self.options
        turn = Turn(
            await async_turn_context(
                self.hass, user_input, chat_log.conversation_id, options.llm_apis
            ),
            chat_log,
        )
        reply = await self._async_reply(turn)
        self.gate.async_redact_pin(turn.context, chat_log)
        set_aside = None
        if reply is not None and reply.outcome is ReplyOutcome.SET_ASIDE:
            set_aside, reply = reply.text, None
        if reply is not None:
            await self._async_say(chat_log, reply.text, user_only=reply.user_only)
            replied = conversation.async_get_result_from_chat_log(user_input, chat_log)
            async_set_reply_response_type(replied.response, reply.outcome)
            if reply.outcome is ReplyOutcome.ASKED_AGAIN:
                replied.continue_conversation = True
            return replied
        llm_context = user_input.as_llm_context(DOMAIN)
        try:
            await chat_log.async_provide_llm_data(
                llm_context,
                list(options.llm_apis) or None,
                options.instructions,
                user_input.extra_system_prompt,
            )
        except conversation.ConverseError as err:
            # Core's words ("Sorry, I had a problem with my template", "Error preparing LLM
            # API") are English in every conversation and say nothing of what to fix.
            key = (
                "prompt_render_failed"
                if isinstance(err.__cause__, TemplateError)
                else "llm_api_unavailable"
            )
            err.response.async_set_error(
                intent.IntentResponseErrorCode.UNKNOWN,
                await async_phrase(self.hass, user_input.language, key),
            )
            return err.as_conversation_result()

        report = self.last_report = turn.report
        started = asyncio.get_running_loop().time()
        toolbox = await self._async_toolbox(
            chat_log.llm_api,
            await self._async_prompt_without_device(llm_context, chat_log.llm_api),
        )
        turn.context.home, turn.context.llm_api = toolbox.home, toolbox.llm_api
        static_system = self._static_system(
            llm_context, toolbox, await self._async_user_name(llm_context)
        )
        report.build_seconds = asyncio.get_running_loop().time() - started
        stream = self._streams[chat_log.conversation_id] = TurnStream(
            await async_phrase(self.hass, user_input.language, "slow_turn_notice"),
            started=started,
            aloud_in=user_input.language
            if user_input.device_id or user_input.satellite_id
            else None,
        )
        running = _RunningTurn(user_input, turn, toolbox, static_system, stream, set_aside)
        try:
            await self._async_wait_notice(running)
            return await self._async_turn(running)
        finally:
            self._streams.pop(chat_log.conversation_id, None)

    async def _async_turn(self, running: _RunningTurn) -> conversation.ConversationResult:
        """Run the rounds in time, say what is left to say, and make the turn's result."""
        options = self.options
        user_input, turn = running.user_input, running.turn
        chat_log, report = turn.chat_log, turn.report
        end = TurnEnd.ANSWERED
        try:
            end = await self._async_rounds_in_time(running)
            if end is TurnEnd.ROUND_LIMIT:
                await self._async_say(
                    chat_log,
                    await async_phrase(
                        self.hass,
                        user_input.language,
                        "too_many_rounds",
                        rounds=str(options.max_rounds),
                    ),
                )
        except EngineError as err:
            end = TurnEnd.FAILED
            if err.warn_in_turn:
                LOGGER.warning("The model failed: %s", err)
            else:
                LOGGER.debug("The model failed: %s", err)
            key, placeholders = engine_error_text(err)
            await self._async_say(
                chat_log, await async_phrase(self.hass, user_input.language, key, **placeholders)
            )
        answered = last_answer(chat_log) is not None
        spoken = await self._async_closing_words(running, end, answered)
        self.stats.record(report, failed=end in (TurnEnd.FAILED, TurnEnd.TIMED_OUT))
        if end not in (TurnEnd.FAILED, TurnEnd.TIMED_OUT):
            self._prepare_next_turn(running)
        result = conversation.async_get_result_from_chat_log(user_input, chat_log)
        result.response.async_set_speech(" ".join(part for part, _streamed in spoken if part))
        if end is TurnEnd.CONFIRMATION_ASKED:
            result.continue_conversation = True
        async_set_response_type(result.response, chat_log, ended=end, model_answered=answered)
        unstreamed = " ".join(part for part, streamed in spoken if part and not streamed)
        shown = not (user_input.device_id or user_input.satellite_id)
        if result.response.response_type is intent.IntentResponseType.ERROR and shown:
            # The Assist dialog keeps what was streamed in its bubble and shows an error's
            # speech in one of its own (core's agents end so too), none when it is empty:
            # said there once, not twice. A satellite shows nothing: its text-to-speech says
            # the whole speech, or (a streaming one, once the answer is long) the stream alone.
            result.response.async_set_speech(unstreamed)
        return result

    async def _async_reply(self, turn: Turn) -> PendingReply | None:
        """Answer a reply to this agent's question; None when the turn is a new request.

        A yes right after the model imitated our question (no question of ours waits) is told
        that nothing waits for it: the model never reads it as the consent it asked for.
        """
        context = turn.context
        imitated = context.conversation_id in self._imitated
        self._imitated.discard(context.conversation_id)
        reply = await self.gate.async_answer_pending(context, turn.chat_log)
        if (
            reply is None
            and imitated
            and classify_reply(context.text, context.language) is Reply.YES
        ):
            return PendingReply(
                await async_phrase(self.hass, context.language, "nothing_waits_for_yes"),
                ReplyOutcome.CANCELLED,
            )
        if reply is not None and reply.confirmed:
            return await self._async_run_confirmed(turn, reply.confirmed)
        return reply

    async def _async_closing_words(
        self, running: _RunningTurn, end: TurnEnd, answered: bool
    ) -> list[tuple[str | None, bool]]:
        """Finish what the user hears; return its parts, each with whether it was streamed.

        A held action the reply set aside is said first. When every call the model made was
        refused, one sentence says which, before the model's own answer (or instead of "no
        answer"); so does one for the calls of its last round that failed beside others that
        ran, whatever the model's answer claims. When nothing was done and the user named an
        entity that is not exposed, a hint says how to expose it: to the user alone.
        """
        user_input, chat_log = running.user_input, running.turn.chat_log
        language = user_input.language
        refusal = None
        answer = last_answer(chat_log) if answered else None
        # A turn that ended otherwise said why already (a question, a refusal, a limit).
        if end is TurnEnd.ANSWERED and (refused := refused_calls(chat_log)):
            refusal = await self._async_refusal(running, refused, "calls_refused_unnamed")
        elif end is TurnEnd.ANSWERED and answer is not None:
            # Some went through: the model's answer may still say "Done." for all of them.
            if failed := failed_in_last_round(chat_log):
                refusal = await self._async_refusal(running, failed, "calls_some_refused_unnamed")
            if partly_failed_in_last_round(chat_log):
                partly = await async_phrase(self.hass, language, "devices_partly_failed")
                refusal = f"{refusal} {partly}" if refusal else partly
        if refusal is not None:
            await self._async_say(chat_log, refusal)
        elif answer is None:
            answer = await self._async_no_answer(running)
            await self._async_say(chat_log, answer)
        if running.set_aside is not None:
            await self._async_say(chat_log, running.set_aside)

        # Streamed only where someone listened (a pipeline: the Assist dialog, a satellite);
        # an automation's or the API's caller gets the speech alone.
        def went_out(part: str | None) -> bool:
            streamed = running.stream.streamed_text if chat_log.delta_listener else ""
            return bool(part and streamed and part.strip() in streamed)

        spoken = [(part, went_out(part)) for part in (running.set_aside, refusal, answer)]
        if end is TurnEnd.ANSWERED and running.stream.imitated_question:
            # The model asked for a yes itself (that tail was never shown): nothing is held,
            # and the person hears so.
            remember_imitation(self._imitated, chat_log.conversation_id)
            note = await async_phrase(self.hass, language, "model_asked_for_yes")
            await self._async_say(chat_log, note)
            spoken.append((note, went_out(note)))
        nothing_done = end in (TurnEnd.ANSWERED, TurnEnd.REFUSED) and not changed_the_home(chat_log)
        if nothing_done and (names := unexposed_names_in(self.hass, user_input.text)):
            hint = await async_phrase(
                self.hass, language, "not_exposed_hint", names=", ".join(names)
            )
            await self._async_say(chat_log, hint, user_only=True)
            spoken.append((hint, went_out(hint)))
        if nothing_done and running.toolbox.home is None and running.toolbox.llm_api is not None:
            # Assist's intents find entities by name only: one without a name is out of reach.
            said = [user_input.text, *_names_called(chat_log)]
            if names := nameless_names_in(self.hass, said):
                hint = capitalized(
                    await async_phrase(self.hass, language, "no_name_hint", names=", ".join(names))
                )
                await self._async_say(chat_log, hint, user_only=True)
                spoken.append((hint, went_out(hint)))
        return spoken

    async def _async_refusal(
        self, running: _RunningTurn, calls: list[llm.ToolInput], unnamed: str
    ) -> str:
        """Say which of the model's calls did not go through, in the conversation's words.

        unnamed: the phrase for calls that cannot be said in words. Then why, where the agent
        knows it itself (a timer that cannot run longer than it was set for). Calls core
        refused with a sentence of its own are said by that sentence alone, once, as core's
        agent says it ("Sorry, timers are not supported on this device").
        """
        chat_log, language = running.turn.chat_log, running.turn.context.language
        home_tools = running.home_tools
        reasons = [
            as_sentence(await async_said_parts(self.hass, language, [reason]), names_in([reason]))
            for reason in failure_reasons(chat_log, calls)
        ]
        if refused_by_core(chat_log, calls):
            return " ".join(dict.fromkeys(reasons))
        # A reason says the value it refuses ("not 40 °C"): the call is said without it.
        domains = {call.tool_name for call in calls if call.tool_name in home_tools}
        await async_load_value_words(self.hass, language, domains)
        described = describe_calls(
            self.hass, as_missed(chat_log, calls), language, home_tools, with_values=not reasons
        )
        if described is not None:
            said = await async_phrase(self.hass, language, "calls_refused", calls=described)
        else:
            said = await async_phrase(self.hass, language, unnamed)
        return " ".join([said, *reasons])

    async def _async_no_answer(self, running: _RunningTurn) -> str:
        """Return what the agent says when the model wrote no answer: only what is true.

        Nothing changed (the model only read, or did nothing): it has no answer. Something
        changed: what our tools did, when the agent speaks the language ("Done." otherwise),
        and then which calls of the last round did not go through.
        """
        chat_log, language = running.turn.chat_log, running.turn.context.language
        home_tools = running.home_tools
        content = chat_log.content[chat_log.llm_input_provided_index :]
        if not carried_out(chat_log):
            if core_said := await async_core_speech(self.hass, language, chat_log):
                return core_said
            if speaks(language) and (read := states_read(content)):
                labels = [await async_said_parts(self.hass, language, [label]) for label in read]
                return as_sentence(join_few_names(labels, language), names_in(read))
            return await async_phrase(self.hass, language, "no_answer")
        done = actions_done_in(content, home_tools)
        # A switch-on the device did not take is said as it is: "Küchenlicht ist noch aus."
        left = left_as_they_were(content, home_tools) if speaks(language) else []
        left += already_as_asked(content, home_tools) if speaks(language) else []
        if (done or left) and speaks(language):
            said = await self._async_done_words(language, done, left)
        else:
            said = await async_phrase(self.hass, language, "empty_answer")
        if failed := failed_in_last_round(chat_log):
            said += " " + await self._async_refusal(running, failed, "calls_partly_refused_unnamed")
        if partly_failed_in_last_round(chat_log):
            said += " " + await async_phrase(self.hass, language, "devices_partly_failed")
        return said

    async def _async_rounds_in_time(self, running: _RunningTurn) -> TurnEnd:
        """Run the rounds within the turn's time limit; log a turn Home Assistant abandons.

        Past the limit the generation stops and the agent says so, before Home Assistant's
        own pipeline timeout would end the turn with a bare error and no word from us.
        """
        chat_log, report = running.turn.chat_log, running.turn.report
        started = running.stream.started
        try:
            async with asyncio.timeout_at(started + notices.TURN_TIME_LIMIT) as limit:
                return await self._async_rounds(running)
        except TimeoutError:
            if not limit.expired():
                raise
            LOGGER.warning(
                "%s stopped a turn at its time limit (%.0f s) in round %d; a smaller model, "
                "fewer threads on a busy machine or a shorter request answer sooner",
                self.agent_id,
                notices.TURN_TIME_LIMIT,
                report.rounds + 1,
            )
            self._go_on_warming()
            language = running.user_input.language
            seconds = f"{notices.TURN_TIME_LIMIT:.0f}"
            await self._async_say(
                chat_log, await async_phrase(self.hass, language, "turn_too_slow", seconds=seconds)
            )
            return TurnEnd.TIMED_OUT
        except asyncio.CancelledError:
            LOGGER.warning(
                "A turn of %s was abandoned after %.1f s in round %d: Home Assistant cancelled "
                "it (its pipeline timed out, or the client left); the generation was stopped",
                self.agent_id,
                asyncio.get_running_loop().time() - started,
                report.rounds + 1,
            )
            self._go_on_warming()
            raise

    @callback
    def _go_on_warming(self) -> None:
        """Tell the warm-up that a turn stopped: it goes on with the prefix the turn left.

        The engine keeps what it evaluated up to the stop, so the next command of a home that
        takes longer than the turn's limit to read finds more of it ready, and in the end all.
        """
        if self.on_turn_stopped is not None:
            self.on_turn_stopped()

    async def async_warm(self) -> None:
        """Have the engine evaluate this agent's prefix now, before its next command.

        After a load or a change of the home (turn/warm_up.py): the system text and tools as
        a command would see them now, for a person in no particular room, and the time line
        a new conversation's first message starts with.
        """
        found = await self._async_opening_toolbox()
        if found is not None:
            await self._async_warm_opening(*found)

    async def async_prepare_this_minute(self) -> None:
        """Have the engine evaluate, while idle, the next message's start with this minute.

        Each minute (turn/warm_up.py): the last conversation's next turn while its chat
        session lasts and its home list is the one taken (the context holds it; going
        elsewhere would cost its history), else a new conversation. A home list that more
        states outgrew than a message lists is taken again and evaluated now instead, so that
        no command has to (_async_retake_home_list).
        """
        now = dt_util.now()
        found = await self._async_opening_toolbox()
        if found is None:
            return
        llm_context, toolbox = found
        if toolbox.lines is not None and not self.home_context.holds(toolbox.lines):
            # A change of the home's structure is warmed up by turn/warm_up.py's own listeners.
            if self.home_context.outgrown(toolbox.lines):
                await self._async_retake_home_list(llm_context, toolbox)
            return
        follow_up, snapshot = self._follow_up, self.home_context.snapshot
        if (
            follow_up is not None
            and now < follow_up.until
            and snapshot is not None
            and snapshot.text in follow_up.conversation.system
        ):
            start = self.home_context.opening(
                toolbox.lines,
                now,
                conversation_id=follow_up.conversation_id,
                history=follow_up.conversation.messages,
            )
            next_turn = replace(follow_up.conversation, next_message_start=start)
            await self.worker.prepare(next_turn, follow_up.specs)
            return
        # Over another home list, that conversation evaluates its history again whatever the
        # context holds.
        self._follow_up = None
        await self.worker.prepare(*self._opening(llm_context, toolbox))

    async def _async_retake_home_list(self, llm_context: llm.LLMContext, toolbox: _Toolbox) -> None:
        """Take the home list again and have the engine evaluate it, in the background.

        The next command would otherwise evaluate the whole prefix itself (34 s for 200
        entities on 2 cores). Homes whose sensors keep changing would keep the engine at it,
        so after a retake of s seconds the next waits RETAKE_PAUSE_FACTOR * s, and none starts
        while one runs; a command that finds the list outgrown meanwhile takes it again
        itself, as before.
        """
        if monotonic() < self._next_retake:
            return
        started = monotonic()
        self._next_retake = inf  # none while this one runs (it may outlast several minutes)
        try:
            await self._async_warm_opening(llm_context, toolbox)
        finally:
            ended = monotonic()
            self._next_retake = ended + RETAKE_PAUSE_FACTOR * (ended - started)

    async def _async_warm_opening(self, llm_context: llm.LLMContext, toolbox: _Toolbox) -> None:
        """Have the engine evaluate the prefix and a new conversation's opening with it.

        A large home's prefix takes minutes, and the minute's job prepares nothing while it is
        evaluated: when the minute changed meanwhile, its time line is prepared right after
        (unless a command took another home list meanwhile: that one is the context's now).
        """
        opening, specs = self._opening(llm_context, toolbox)
        snapshot = self.home_context.snapshot
        await self.worker.warm(opening, specs, room=self.options.turn_room)
        if self.home_context.snapshot is not snapshot:
            return
        now_opening, specs = self._opening(llm_context, toolbox)
        if now_opening.next_message_start != opening.next_message_start:
            await self.worker.prepare(now_opening, specs)

    async def _async_opening_toolbox(self) -> tuple[llm.LLMContext, _Toolbox] | None:
        """Return a new conversation's context and tools now (None: its LLM API is gone)."""
        llm_context = llm.LLMContext(
            platform=DOMAIN,
            context=None,
            language=self.hass.config.language,
            assistant=conversation.DOMAIN,
            device_id=None,
        )
        llm_api: llm.APIInstance | None = None
        if self.options.llm_apis:
            try:
                llm_api = await llm.async_get_api(
                    self.hass, list(self.options.llm_apis), llm_context
                )
            except HomeAssistantError as err:
                LOGGER.debug("Not warming up: %s", err)
                return None
        return llm_context, await self._async_toolbox(llm_api)

    def _opening(
        self, llm_context: llm.LLMContext, toolbox: _Toolbox
    ) -> tuple[Conversation, list[ToolSpec]]:
        """Return what a new conversation starts with now (taking the home list if it must).

        Its first message's changed states last past this minute; its time line does not.
        """
        system = self._static_system(llm_context, toolbox, None)
        now = dt_util.now()
        start = self.home_context.opening(toolbox.lines, now)
        opening = Conversation(
            system=system,
            enable_thinking=self.options.thinking,
            next_message_start=start,
            next_message_lasting=len(start) - len(message_start(now)),
        )
        return opening, toolbox.specs

    async def _async_wait_notice(self, running: _RunningTurn) -> None:
        """Say first that the command waits for the home to be read, when that takes long."""
        chat_log, language = running.turn.chat_log, running.turn.context.language
        seconds = self.worker.warming_seconds(running.static_system)
        if seconds is None or seconds < WAIT_NOTICE_SECONDS:
            return
        text = await async_phrase(self.hass, language, "reading_home", seconds=str(ceil(seconds)))
        # Streamed now, whatever the pipeline does with the stream: the Assist dialog shows it
        # at once, the model's text in a paragraph of its own after it (as the slow-turn
        # notice, which it stands for: that one is then not said).
        text += "\n\n"
        running.stream.take_notice()
        running.stream.streamed(text)
        async for _content in chat_log.async_add_delta_content_stream(
            self.agent_id, async_said(text, user_only=True)
        ):
            pass

    async def _async_prompt_without_device(
        self, llm_context: llm.LLMContext, llm_api: llm.APIInstance | None
    ) -> str | None:
        """Return the LLM API's prompt as core says it for no device (None: the same).

        Built again only when this device's prompt changes: core's prompt lists the exposed
        entities by name, alias and area, so it changes with the home's structure (as the home
        list does), and with the device's area or abilities. The device's prompt is built
        again beside it: the turn's own was built as the turn began, and an entity renamed or
        exposed since would make its line read as the device's (and be learned so, out of the
        prefix for every request). When the home changed, this turn learns nothing.
        """
        if not self.options.llm_apis or llm_context.device_id is None or llm_api is None:
            return None
        user_id = llm_context.context.user_id if llm_context.context else None
        key = (
            tuple(self.options.llm_apis),
            llm_context.assistant,
            llm_context.language,
            user_id,
            llm_api.api_prompt,
        )
        if (cached := self._general_prompts.get(llm_context.device_id, key)) is not None:
            return cached
        apis = list(self.options.llm_apis)
        try:
            general = await llm.async_get_api(self.hass, apis, replace(llm_context, device_id=None))
            again = await llm.async_get_api(self.hass, apis, llm_context)
        except HomeAssistantError as err:
            LOGGER.debug("The LLM API's prompt stays whole: %s", err)
            return None
        if again.api_prompt != llm_api.api_prompt:
            LOGGER.debug("The home changed as the turn began: no device line is learned")
            return None
        if dr.async_get(self.hass).async_get(llm_context.device_id) is not None:
            self._general_prompts.keep(llm_context.device_id, key, general.api_prompt)
        return general.api_prompt

    async def _async_toolbox(
        self, llm_api: llm.APIInstance | None, without_device: str | None = None
    ) -> _Toolbox:
        """Return the turn's tools; without_device: the API's prompt for no device."""
        specs: list[ToolSpec] = []
        home: HomeTools | None = None
        lines: list[EntityLine] | None = None
        if self.options.home_tools:
            home = await async_build_home_tools(self.hass)
            specs.extend(home.specs)
            lines = home.lines()
        if llm_api is not None:
            llm_api.tools = with_timer_tools_last(self.hass, llm_api.tools)
            specs.extend(
                ToolSpec(
                    name=tool.name,
                    description=tool.description or "",
                    parameters=offered_parameters(
                        tool,
                        probatio.to_openapi(
                            tool.parameters,
                            custom_serializer=llm_api.custom_serializer,
                            openapi_version="3.1.0",
                        ),
                    ),
                )
                for tool in llm_api.tools
            )
        api_prompt = NO_API_PROMPT
        if llm_api is not None:
            general = llm_api.api_prompt if without_device is None else without_device
            api_prompt = self._device_lines.split(
                bounded_api_prompt(general), bounded_api_prompt(llm_api.api_prompt)
            )
        return _Toolbox(specs=specs, home=home, llm_api=llm_api, lines=lines, api_prompt=api_prompt)

    async def _async_user_name(self, llm_context: llm.LLMContext) -> str | None:
        """Return the name of the user talking, as core passes it to the instructions."""
        user_id = llm_context.context.user_id if llm_context.context else None
        user = await self.hass.auth.async_get_user(user_id) if user_id else None
        return user.name if user else None

    def _static_system(
        self, llm_context: llm.LLMContext, toolbox: _Toolbox, user_name: str | None
    ) -> str:
        """Return the system message: the reusable prefix of every turn in this home.

        Instructions, the LLM API's prompt and the home list (turn/home_context.py); it changes
        only with them, and the home list only when exposure, names, aliases or areas change
        or too many states have changed since it was taken.
        """
        # The default rules speak of our tools: without them, of the tools offered.
        default = DEFAULT_INSTRUCTIONS if toolbox.home is not None else DEFAULT_API_INSTRUCTIONS
        instructions = self.options.instructions
        if instructions == DEFAULT_INSTRUCTIONS:
            instructions = default
        try:
            instructions = template.Template(instructions, self.hass).async_render(
                # The variables core's own agents render the instructions with.
                {
                    "ha_name": self.hass.config.location_name,
                    "user_name": user_name,
                    "llm_context": llm_context,
                },
                parse_result=False,
            )
        except HomeAssistantError as err:
            LOGGER.error("The instructions template does not render: %s", err)
            instructions = default.replace("{{ ha_name }}", self.hass.config.location_name)
        parts = [instructions.strip()]
        if toolbox.api_prompt.shared:
            parts.append(toolbox.api_prompt.shared)
        if toolbox.lines is not None:
            parts.append(temperature_unit_text(self.hass))
            if not self.options.llm_apis:
                parts.append(VOICE_TIMER_LINE)
            parts.append(self.home_context.home_text(toolbox.lines, dt_util.now()))
        return "\n\n".join(parts)

    def _conversation(self, running: _RunningTurn) -> Conversation:
        """One round's prompt: the system prefix, then the messages.

        Each user message carries its context block (changed states, time, language): what changes
        from turn to turn is at the end, after everything the engine has checkpointed.
        """
        history = self._history(running)
        return Conversation(
            system=running.static_system,
            messages=tuple(history),
            enable_thinking=self.options.thinking,
        )

    def _prepare_next_turn(self, running: _RunningTurn) -> None:
        """Have the engine evaluate now what the next turn of this conversation starts with.

        Done while the user reads or listens: the next turn then evaluates only its message.
        """
        chat_log, toolbox = running.turn.chat_log, running.toolbox
        now = dt_util.now()
        answered = self._conversation(running)
        start = self.home_context.opening(
            # The states now: the calls of this turn changed some.
            toolbox.home.lines() if toolbox.home is not None else None,
            now,
            conversation_id=chat_log.conversation_id,
            history=answered.messages,
        )
        next_turn = replace(answered, next_message_start=start)
        self._follow_up = _FollowUp(
            next_turn, toolbox.specs, now + CONVERSATION_TIMEOUT, chat_log.conversation_id
        )
        self.hass.async_create_background_task(
            self.worker.prepare(next_turn, toolbox.specs),
            f"{DOMAIN} prepares the next turn of {chat_log.conversation_id}",
        )

    def _history(self, running: _RunningTurn) -> list[Message]:
        """Return the kept messages, each user message with its context block."""
        chat_log, toolbox, user_input = running.turn.chat_log, running.toolbox, running.user_input
        messages = to_messages(chat_log.content[1:])
        history = trim_history(messages, self.options.history_tokens)
        dropped = sum(m.role == "user" for m in messages) - sum(m.role == "user" for m in history)
        return self.home_context.messages(
            chat_log.conversation_id,
            history,
            first_ordinal=dropped,
            lines=toolbox.lines,
            now=dt_util.now(),
            extra="\n".join(
                line
                for line in (user_input.extra_system_prompt, _hidden_digits(chat_log, user_input))
                if line
            ),
            language=user_input.language,
            place=self._asked_from(toolbox, user_input),
        )

    def _heard(self, user_input: conversation.ConversationInput) -> Callable[[str], str]:
        """Return what turns the model's text into what the person hears.

        An exposed entity's id is said as its name, unless the person asked for it; a request
        from a satellite or another device is answered aloud: no Markdown, no emoji.
        """
        asked = user_input.text
        if user_input.device_id or user_input.satellite_id:
            language = user_input.language
            return lambda text: with_entity_names(self.hass, spoken(text, language), asked)
        return lambda text: with_entity_names(self.hass, text, asked)

    def _asked_from(self, toolbox: _Toolbox, user_input: conversation.ConversationInput) -> str:
        """Return the lines of this request's device: the API's own, else where it is.

        Assist's API prompt places a request from a device itself ("You are in area ...").
        """
        assist = toolbox.llm_api is not None and llm.LLM_API_ASSIST in self.options.llm_apis
        if assist and user_input.device_id:
            return toolbox.api_prompt.own
        place = asked_from_line(self.hass, user_input.device_id, user_input.satellite_id)
        return "\n".join(line for line in (toolbox.api_prompt.own, place) if line)

    async def _async_rounds(self, running: _RunningTurn) -> TurnEnd:
        """Run model rounds until it answers without a call, asks, or hits the limit."""
        options = self.options
        user_input, turn, toolbox = running.user_input, running.turn, running.toolbox
        chat_log, report = turn.chat_log, turn.report
        for _round in range(options.max_rounds):
            request = GenerationRequest(
                self._conversation(running),
                tools=toolbox.specs,
                sampling=options.sampling,
                # An answer cut off at the limit (a call left open) gets more room next round.
                max_tokens=options.max_tokens * (2 if report.last_finish_reason == "length" else 1),
                thinking_budget=options.thinking_budget if options.thinking else None,
            )
            calls: list[ToolCallParsed | ToolCallFailed] = []
            outputs: list[GenerationOutput] = []
            async for _content in chat_log.async_add_delta_content_stream(
                self.agent_id,
                self._async_stream(running, request, calls, outputs),
            ):
                pass
            if outputs:
                _trace_round(chat_log, outputs[0])
            if not calls:
                return TurnEnd.ANSWERED
            turn.safety = safety = TurnSafety()
            await self._async_run_calls(turn, calls)
            if safety.locked_seconds:
                await self._async_say(
                    chat_log,
                    await self.gate.async_locked_phrase(user_input.language, safety.locked_seconds),
                )
                return TurnEnd.REFUSED
            if safety.refused:
                # An automation reads what ran beside the refusal: the light is on, the door
                # stays locked.
                refusal = await self.gate.async_refusal(turn.context, safety.refused)
                done = await self._async_done_so_far(running)
                await self._async_say(chat_log, " ".join(part for part in (done, refusal) if part))
                return TurnEnd.REFUSED
            if safety.held:
                question = await self.gate.async_hold(turn.context, safety.held)
                # What ran beside it is said first: the light is on while the door waits; so
                # is what did not work beside it (a bulb that stayed off).
                done = await self._async_done_so_far(running)
                said = " ".join(part for part in (done, question) if part)
                await self._async_say(chat_log, said)
                asked = self.gate.asks(turn.context)
                return TurnEnd.CONFIRMATION_ASKED if asked else TurnEnd.REFUSED
            if await self._async_plain_answer(turn):
                return TurnEnd.ANSWERED
        return TurnEnd.ROUND_LIMIT

    async def _async_plain_answer(self, turn: Turn) -> bool:
        """Say what the round's plain actions did, instead of another model round, if they were.

        Only when every call was an action of our own tools that ran and succeeded (never a
        held, refused or failed one), the agent lets the model phrase no answer itself and the
        conversation is in a language the agent's sentences are written in.
        """
        chat_log, home, language = turn.chat_log, turn.context.home, turn.context.language
        if self.options.model_phrases_answers or home is None or not speaks(language):
            return False
        actions = done_actions(chat_log.content, home.tool_names)
        if actions is None:
            return False
        content = chat_log.content[chat_log.llm_input_provided_index :]
        await self._async_say(
            chat_log,
            await self._async_done_words(
                language, actions, already_as_asked(content, home.tool_names)
            ),
        )
        turn.report.plain_answer = True
        return True

    async def _async_done_words(
        self, language: str, actions: Sequence[DoneAction], also: Sequence[Phrase]
    ) -> str:
        """Say what the actions did, then `also` (what they found or left as it was)."""
        parts = []
        if actions:
            in_words = await async_in_words(self.hass, language, actions)
            parts.append(
                capitalized(
                    await async_phrase(
                        self.hass, language, "actions_done", actions=sentence(in_words, language)
                    ),
                    [name for action in in_words for name in action.names],
                )
            )
        if also:
            parts.append(
                as_sentence(await async_said_parts(self.hass, language, also), names_in(also))
            )
        return " ".join(parts)

    async def _async_done_so_far(self, running: _RunningTurn) -> str | None:
        """Say what the actions of this turn did ("Erledigt: Küchenlicht einschalten.").

        Our tools' actions and Assist's intents (by the entities Home Assistant says they
        changed), then the calls of the round that did not work ("Das ging nicht: ..."), and
        an intent's devices that failed. None when nothing of this was, or when the agent does
        not speak the language.
        """
        chat_log, language = running.turn.chat_log, running.turn.context.language
        if not speaks(language):
            return None
        content = chat_log.content[chat_log.llm_input_provided_index :]
        home_tools = running.home_tools
        said: list[str] = []
        if done := actions_done_in(content, home_tools, intents=True):
            said.append(await self._async_done_words(language, done, ()))
        elif ran_beside_held(chat_log):
            # A call that ran and has no words of its own (a script's tool of Assist).
            said.append(await async_phrase(self.hass, language, "empty_answer"))
        if failed := failed_in_last_round(chat_log, said_apart=UnattendedRefusal):
            said.append(await self._async_refusal(running, failed, "calls_partly_refused_unnamed"))
        if partly_failed_in_last_round(chat_log):
            said.append(await async_phrase(self.hass, language, "devices_partly_failed"))
        return " ".join(said) or None

    async def _async_stream(
        self,
        running: _RunningTurn,
        request: GenerationRequest,
        calls: list[ToolCallParsed | ToolCallFailed],
        outputs: list[GenerationOutput],
    ) -> AsyncGenerator[conversation.AssistantContentDeltaDict]:
        """Stream the model's reasoning into the chat log as it writes; its text at the end.

        Calls are recorded as external: this agent validates and executes them itself; the
        model's text is said as the person hears it (_heard).
        """
        report, stream = running.turn.report, running.stream
        said = self._heard(running.user_input)
        queue: asyncio.Queue[ParseEvent | None] = asyncio.Queue()
        generation = asyncio.ensure_future(self.worker.generate(request, queue.put_nowait))
        generation.add_done_callback(lambda _task: queue.put_nowait(None))
        yield {"role": "assistant"}
        try:
            async for delta in _deltas_with_notice(
                queue,
                calls,
                stream,
                request.tools,
                said,
                unasked=partial(async_without_imitated_question, self.hass),
            ):
                yield delta
            output = await generation
            outputs.append(output)
            report.add(output.stats)
        finally:
            if not generation.done():
                generation.cancel()
                await asyncio.wait([generation])
        calls[:] = _without_undoing_repeats(calls)
        if len(calls) > MAX_CALLS_PER_ROUND:
            # A model looping on call markup would otherwise flood the next prompt with results.
            # What is left out is one failed call: never said done as if it were all (the
            # plain answer), and the model reads what was not run.
            LOGGER.debug("Read %d calls in one answer; kept %d", len(calls), MAX_CALLS_PER_ROUND)
            calls[MAX_CALLS_PER_ROUND:] = [_calls_left_out(calls[MAX_CALLS_PER_ROUND:])]
        if calls:
            stream.calls_streamed()
            yield {"tool_calls": [_tool_input(event) for event in calls]}

    async def _async_run_calls(
        self, turn: Turn, calls: list[ToolCallParsed | ToolCallFailed]
    ) -> None:
        chat_log, report = turn.chat_log, turn.report
        assistant = chat_log.content[-1]
        assert isinstance(assistant, conversation.AssistantContent)
        inputs = assistant.tool_calls or []
        started = asyncio.get_running_loop().time()
        for event, tool_input in zip(calls, inputs, strict=True):
            report.tool_calls += 1
            result = await self._async_run_parsed(turn, event)
            if result.error:
                report.tool_errors += 1
            chat_log.async_add_assistant_content_without_tools(
                conversation.ToolResultContent(
                    agent_id=self.agent_id,
                    tool_call_id=tool_input.id,
                    tool_name=tool_input.tool_name,
                    result=result,
                )
            )
        report.tool_seconds += asyncio.get_running_loop().time() - started

    async def _async_run_parsed(
        self, turn: Turn, event: ToolCallParsed | ToolCallFailed
    ) -> llm.ToolResult:
        """Turn the model's call into a validated one, and run it through the one call path."""
        asker = turn.context
        if isinstance(event, ToolCallFailed):
            error = event.error
            tool = _find_tool(asker.llm_api, error.name or "")
            if tool is not None and (
                refusal := await self.gate.async_refuse_unoffered(tool, error.arguments, asker)
            ):
                return error_result(refusal)
            return _failed_call(asker, error)
        call = event.call
        proposed: Call
        if asker.home is not None and call.name in asker.home.tool_names:
            colours = NO_WORDS
            if isinstance(call.arguments.get(COLOUR_FIELD), str):
                colours = await async_colour_words(self.hass, asker.language)
            planned = asker.home.plan(call, colours)
            if isinstance(planned, PlannedAction):
                planned = _not_for_later(asker, planned)
            if isinstance(planned, ToolFailure):
                return refused_result(planned)
            proposed = planned
        elif tool := _find_tool(asker.llm_api, call.name):
            if _acts_now(self.hass, tool) and (later := _for_later(asker)) is not None:
                return refused_result(later)
            proposed = ApiCall(
                tool, await _async_css_colours(self.hass, asker, tool, call.arguments)
            )
        else:
            known = ", ".join(
                [*(asker.home.tool_names if asker.home else ()), *_tool_names(asker.llm_api)]
            )
            return error_result(
                f"There is no tool named {call.name!r}. The available tools are: {known}."
            )
        decision, run = await self._async_run_call(proposed, turn)
        if decision.verdict is Verdict.HOLD:
            return HeldResult(data={"status": decision.message})
        if run is None and decision.action is not None and decision.action in turn.safety.refused:
            return UnattendedRefusal(
                data={"error": decision.message}, error=True, targets=decision.action.targets
            )
        if run is None:
            return error_result(decision.message or "Refused.")
        return run.result

    async def _async_run_call(
        self, call: Call, turn: Turn, confirmed: PendingAction | None = None
    ) -> tuple[Decision, RunResult | None]:
        """Run one call on the one call path: the gate decides, the runner runs what it allows.

        A call the model just made, or (`confirmed`) one the person has just said yes to.
        """
        if confirmed is None:
            decision = await self.gate.async_decide(call, turn.context, turn.safety)
        else:
            decision = await self._async_decide_confirmed(confirmed, turn)
        if decision.verdict is Verdict.HOLD and decision.call and decision.action:
            # Never ask a person to confirm what they may not do, or what cannot be done now.
            if refusal := await async_check(self.hass, decision.call, turn.context):
                return self.gate.async_refuse_held(turn.context, decision, refusal.message), None
            # Nothing to ask about: a lock that reports locked is said so, and nothing runs;
            # the request is in the audit all the same, as found so.
            if (found := already_secured(self.hass, decision.call)) is not None:
                self.gate.async_record(
                    turn.context, decision.action, Outcome.ALREADY, "every target already so"
                )
                return replace(decision, verdict=Verdict.ALLOW), RunResult(found)
            turn.safety.hold(decision.action)
            return decision, None
        if decision.verdict is not Verdict.ALLOW or decision.call is None:
            return decision, None
        # What the agent says itself must be true: a confirmed action's result, a plain
        # action of our tools ("Turned on Bed Light.", said without the model) and an intent
        # of Assist ("Done.", or said beside a question) are checked.
        run = await async_run(self.hass, decision.call, turn.context, verify=True)
        self.gate.async_record_run(turn.context, decision, _audit_outcome(run), run.error)
        return decision, run

    async def _async_decide_confirmed(self, action: PendingAction, turn: Turn) -> Decision:
        """Ask the gate about a confirmed action; a held tool with the turn's LLM API."""
        api_error = None
        if not isinstance(action.call, PlannedAction):
            try:
                await async_llm_api(self.hass, turn.context)
            except HomeAssistantError as err:
                api_error = str(err)
        return await self.gate.async_decide_confirmed(action, turn.context, api_error=api_error)

    async def _async_run_confirmed(
        self, turn: Turn, actions: tuple[PendingAction, ...]
    ) -> PendingReply:
        """Run exactly the actions the person confirmed; say what really happened."""
        done: list[str] = []
        found: list[Phrase] = []
        failed: list[tuple[str, tuple[Said, ...]]] = []
        partly = False
        runs: list[tuple[PendingAction, RunResult | None]] = []
        for action in actions:
            decision, run = await self._async_run_call(action.call, turn, action)
            error = decision.message if run is None else run.error
            if error is None:
                runs.append((action, run))
            else:
                said = decision.said if run is None else run.said
                failed.append((action.said, said or (error,)))
        # Asked all the same (the state read may be stale): said as it was found, when the
        # whole yes changed nothing.
        changed = changed_something([run.result for _action, run in runs if run is not None])
        for action, run in runs:
            if (
                run is not None
                and not changed
                and isinstance(action.call, PlannedAction)
                and already_so(run.result) >= set(action.call.entity_ids)
            ):
                found.extend(found_as_asked(action.call.domain or "", run.result))
                continue
            done.append(action.said)
            partly = partly or (run is not None and partly_failed(run.result))
        found_text = (
            as_sentence(
                await async_said_parts(self.hass, turn.context.language, found), names_in(found)
            )
            if found
            else ""
        )
        reply = await self.gate.async_confirmed_reply(turn.context, done, failed, found_text)
        if not partly:
            return reply
        # An intent that worked for some of its devices only (the held one among them, or not).
        partly_said = await async_phrase(self.hass, turn.context.language, "devices_partly_failed")
        return replace(reply, text=f"{reply.text} {partly_said}")

    async def _async_say(
        self, chat_log: conversation.ChatLog, text: str, *, user_only: bool = False
    ) -> None:
        """Add a sentence the agent says itself (not the model); user_only: not for the model.

        Streamed when a voice pipeline may already speak the turn's stream (it would never
        speak it otherwise); else added whole, and the pipeline speaks the final answer.
        """
        stream = self._streams.get(chat_log.conversation_id)
        if stream is None or not stream.pipeline_speaks_the_stream:
            chat_log.async_add_assistant_content_without_tools(
                said_content(self.agent_id, text, user_only=user_only)
            )
            return
        if stream.aloud_in is not None:
            text = said_aloud(text, stream.aloud_in)
        stream.streamed(text)
        async for _content in chat_log.async_add_delta_content_stream(
            self.agent_id, async_said(text, user_only=user_only)
        ):
            pass


async def _deltas_with_notice(
    queue: asyncio.Queue[ParseEvent | None],
    calls: list[ToolCallParsed | ToolCallFailed],
    stream: TurnStream,
    tools: Sequence[ToolSpec] = (),
    said: Callable[[str], str] = str,
    *,
    unasked: Callable[[str], Awaitable[str | None]] | None = None,
) -> AsyncGenerator[conversation.AssistantContentDeltaDict]:
    """Turn the model's events into deltas (calls are collected), with the slow-turn notice.

    `said` turns the model's text into what the person hears (an entity id said as its name);
    `unasked` returns it without a tail that asks for a yes in our question's words (None when
    none does): a question nobody holds is never shown nor streamed.

    While the notice may still come, reasoning is held back: the notice is then a message of
    its own before the model's, and the model's message stays whole. The model's visible text
    waits for the end of its round: with calls after it, it is dropped (a voice pipeline would
    speak it as the calls stream, before the gate has held any: "Done, unlocked!" before our
    question), and what the calls did, or the question, is said instead. A text that is only
    calls to `tools` written in JSON is those calls failed, never read out.
    """
    held: list[conversation.AssistantContentDeltaDict] = []
    text: list[str] = []
    while True:
        try:
            async with asyncio.timeout_at(stream.notice_due if stream.notice else None):
                event = await queue.get()
        except TimeoutError:
            if (notice := stream.take_notice()) is not None:
                for delta in user_only_deltas(notice):
                    stream.streamed(delta.get("content") or "")
                    yield delta
            for delta in held:
                yield delta
            held.clear()
            continue
        if event is None:
            break
        if isinstance(event, ReasoningDelta):
            if stream.notice is not None:
                held.append({"thinking_content": event.text})
            else:
                yield {"thinking_content": event.text}
        elif isinstance(event, TextDelta):
            text.append(event.text)
        else:
            calls.append(event)
    for delta in held:
        yield delta
    if text and not calls:
        calls += calls_written_as_text("".join(text), tools)
    if text and not calls:
        stream.visible_text_came()
        answer = said("".join(text))
        if unasked is not None and (kept := await unasked(answer)) is not None:
            stream.imitated_question = True
            answer = kept
        stream.streamed(answer)
        yield {"content": answer}


def _audit_outcome(run: RunResult) -> Outcome:
    """Return what the audit trail records of a run: refused when its user may not make it."""
    if run.problem is Problem.NOT_ALLOWED:
        return Outcome.REFUSED
    return Outcome.FAILED if run.error else Outcome.EXECUTED


def _tool_input(event: ToolCallParsed | ToolCallFailed) -> llm.ToolInput:
    if isinstance(event, ToolCallParsed):
        return llm.ToolInput(
            tool_name=event.call.name, tool_args=dict(event.call.arguments), external=True
        )
    # The call cannot be used; the tool result carries the error the model must see. Its
    # arguments are kept as written, unchecked (they name the call when nothing went through).
    return llm.ToolInput(
        tool_name=event.error.name or "invalid_tool_call",
        tool_args=dict(event.error.arguments),
        external=True,
    )


# Calls read from one answer; more than a turn ever needs, few enough to bound the next prompt.
MAX_CALLS_PER_ROUND = 8


# Actions that a second, identical call in the same answer undoes.
# Domains whose calls a request for a time from now means as they are: "a timer for ten
# minutes", "remind me in an hour" (a to-do item), a time or date set.
_TIMED_DOMAINS: Final = frozenset({"timer", "todo", "input_datetime", "date", "time", "datetime"})
_UNDONE_BY_A_REPEAT: Final = frozenset({"toggle", "media_play_pause"})


def _without_undoing_repeats(
    calls: list[ToolCallParsed | ToolCallFailed],
) -> list[ToolCallParsed | ToolCallFailed]:
    """Drop a toggle that repeats one of the same answer: run, it would switch it back.

    A small model repeats a call word for word; nobody asks to switch a thing and switch it
    back in one breath. Any other repeat runs as written (twice the next track is two).
    """
    kept: list[ToolCallParsed | ToolCallFailed] = []
    for event in calls:
        if not (
            isinstance(event, ToolCallParsed)
            and event.call.arguments.get("action") in _UNDONE_BY_A_REPEAT
            and any(
                isinstance(earlier, ToolCallParsed)
                and (earlier.call.name, earlier.call.arguments)
                == (event.call.name, event.call.arguments)
                for earlier in kept
            )
        ):
            kept.append(event)
    return kept


def _calls_left_out(left_out: list[ToolCallParsed | ToolCallFailed]) -> ToolCallFailed:
    """One failed call for the calls of an answer beyond MAX_CALLS_PER_ROUND, none of them run."""
    count = len(left_out)
    calls = "call in this answer was" if count == 1 else "calls in this answer were"
    message = (
        f"{count} more {calls} not run: at most {MAX_CALLS_PER_ROUND} calls are read from "
        "one answer. Make the calls still needed in your next answer."
    )
    return ToolCallFailed(ToolCallError(message, ""))


# Told with a message whose digits the safety gate hid (they could be a PIN): a small model
# otherwise guesses the number or says "****", which a voice leaves out.
HIDDEN_DIGITS_LINE: Final = (
    "Digits written as * in this message were hidden from you, as they could be a PIN. Never "
    "guess them: if the request needs that number, say you could not read it and ask for it "
    "with its unit (seconds, kelvin, percent) or as a date."
)


def _hidden_digits(
    chat_log: conversation.ChatLog, user_input: conversation.ConversationInput
) -> str | None:
    """Return HIDDEN_DIGITS_LINE when the gate masked digits of the person's latest message.

    The chat log then keeps the message with some characters turned into asterisks.
    """
    said = user_input.text
    for content in reversed(chat_log.content):
        if isinstance(content, conversation.UserContent):
            kept = content.content
            masked = kept != said and len(kept) == len(said)
            if masked and all(a in (b, "*") for a, b in zip(kept, said, strict=True)):
                return HIDDEN_DIGITS_LINE
            return None
    return None


def _trace_round(chat_log: conversation.ChatLog, output: GenerationOutput) -> None:
    """Put the prompt the model really read, and its token figures, in the conversation trace.

    The chat log's system content is Home Assistant's rendering of the instructions; the model
    reads ours (instructions, home list, each message's context block), so the trace gets it.
    """
    stats = output.stats
    chat_log.async_trace(
        {
            "prompt": output.prompt.text,
            "stats": {
                "input_tokens": stats.evaluated_tokens,
                "cached_input_tokens": stats.cached_tokens,
                "output_tokens": stats.generated_tokens,
            },
        }
    )


async def _async_css_colours(
    hass: HomeAssistant, turn: TurnContext, tool: llm.Tool, arguments: Mapping[str, Any]
) -> Mapping[str, Any]:
    """Return an intent's arguments with a colour said in the language as its CSS name.

    Home Assistant's HassLightSet reads "red", not "rot": the slot that sets light.turn_on's
    color_name takes the language's words as our own light tool does, and a white's name
    ("warm white") is its colour temperature.
    """
    assist_intent = ASSIST_INTENTS.get(intent_type_of(tool) or "")
    slots = assist_intent.slots if assist_intent is not None else {}
    if not any(slots.get(key) == COLOUR_FIELD for key in arguments):
        return arguments
    colours = await async_colour_words(hass, turn.language)
    return read_slot_colours(arguments, slots, colours)


def _not_for_later(turn: TurnContext, planned: PlannedAction) -> PlannedAction | ToolFailure:
    """Refuse a call that acts now on a request for later ("lights off in ten minutes").

    Nothing of ours waits: run now, it would do what was asked at the wrong time, and the
    person hears that it cannot be done later. What is itself timed (a timer, a to-do item, a
    time or date set) and a read run as asked.
    """
    if planned.service is None or planned.domain in _TIMED_DOMAINS:
        return planned
    return _for_later(turn) or planned


def _acts_now(hass: HomeAssistant, tool: llm.Tool) -> bool:
    """Whether an Assist tool's call changes the home when it runs, as our own calls do.

    Not a read, a timer (core's own way to do something later) or a to-do item: any other,
    an intent, a script or a tool no one classified, acts now.
    """
    tool_class = classify(hass, tool)
    if tool_class in (ToolClass.READ_ONLY, ToolClass.NO_ENTITY_EFFECT):
        return False
    rule = intent_rule(hass, intent_type_of(tool) or "")
    return rule is None or rule.domains is None or not rule.domains <= _TIMED_DOMAINS


def _for_later(turn: TurnContext) -> ToolFailure | None:
    """Return the refusal of a call that acts now, when the request is for later."""
    if not asks_for_later(turn.text, turn.language):
        return None
    return ToolFailure(
        "Not done: the user asked for this at a later time, and no tool can wait. Tell them "
        "it can only be done now, if they ask again without the time.",
        reason=(Phrase("not_later"),),
    )


def _failed_call(turn: TurnContext, error: ToolCallError) -> llm.ToolResult:
    """Return a call the parser refused; a read of ours says why as a refused plan would.

    The grammar holds entity_id to the exposed ids, so "nowhere" never reaches the plan: the
    plan of what was written says why ("nowhere: no entity exposed to Assist has that name");
    it runs nothing, and the model reads the parser's message. So does an area or a floor
    written as a target, which no tool of ours takes ("name the devices"), and a field the
    action does not take (the person hears so; the field the model wrote is never said), and an
    entity id that names no exposed entity ("light.kitchen_lights": "kitchen lights"). Any
    other refusal is said as the call alone: what the model wrote in place of an entity (a
    name, a template, a number) is not read back to the person. An entity_id that is a name
    or a near id tells the model what it may mean ("Did you mean: light.kitchen_lights
    (Kitchen Lights)?"); the call stays refused.
    """
    if turn.home is None or (error.name != GET_STATE and error.name not in turn.home.tool_names):
        return error_result(error.message)
    message = error.message
    if hint := turn.home.entity_hint(error.name, error.arguments.get(ATTR_ENTITY_ID)):
        message = f"{message} {hint}"
    planned = turn.home.plan(ToolCall(error.name, dict(error.arguments)))
    if isinstance(planned, ToolFailure) and planned.reason and _says_why(error, planned):
        return refused_result(ToolFailure(message, planned.reason))
    if isinstance(planned, PlannedAction) and planned.entity_ids:
        return RefusedByName(data={"error": message}, error=True, entity_ids=planned.entity_ids)
    return error_result(message)


def _says_why(error: ToolCallError, planned: ToolFailure) -> bool:
    """Whether the person hears the plan's reason for a call the parser refused."""
    return (
        error.name == GET_STATE
        or bool(PLACE_TARGETS & error.arguments.keys())
        or all(isinstance(r, Phrase) and r.key == UNKNOWN_FIELD for r in planned.reason)
        or _ids_naming_nothing(error, planned)
    )


def _ids_naming_nothing(error: ToolCallError, planned: ToolFailure) -> bool:
    """Whether the targets were written as entity ids and one names no exposed entity.

    "light.kitchen_lights" where the house has light.kitchen: said as its words ("kitchen
    lights: no such entity exposed"), never a name or markup the model wrote in its place.
    """
    written = parse_entity_ids(error.arguments.get(ATTR_ENTITY_ID))
    return (
        bool(written)
        and all(valid_entity_id(target) for target in written)
        and all(isinstance(r, Phrase) and r.key == NO_SUCH_ENTITY for r in planned.reason)
    )


def _find_tool(api: llm.APIInstance | None, name: str) -> llm.Tool | None:
    if api is None:
        return None
    return next((tool for tool in api.tools if tool.name == name), None)


def _tool_names(api: llm.APIInstance | None) -> list[str]:
    return [tool.name for tool in api.tools] if api is not None else []


__all__ = ["AgentOptions", "ConversationAgent"]


def _names_called(chat_log: conversation.ChatLog) -> list[str]:
    """Return the `name` arguments of this turn's calls (what an intent was to find)."""
    return [
        name
        for content in chat_log.content[chat_log.llm_input_provided_index :]
        if isinstance(content, conversation.AssistantContent)
        for call in content.tool_calls or ()
        if isinstance(name := call.tool_args.get("name"), str)
    ]
