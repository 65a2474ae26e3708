"""When what the model tried did not go through: which calls, in the conversation's language.

A call is said as the agent says its own actions ("turn on Bed Light", "Bed Light
einschalten"), never as markup, a service name or an entity id. Its targets are named by what
the model wrote, never by what Home Assistant knows about them unless the model may see it
anyway (an exposed entity's name is in its home list): the sentence enters the conversation
the model reads next time, and an entity that is not exposed must stay unnamed there. A call
that cannot be said so (a tool or action that does not exist, no target) is not described.
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import replace
import json
import re
from typing import Any
from typing import Final

from custom_components.local_agent.const import ASSISTANT
from custom_components.local_agent.home.call_texts import Names
from custom_components.local_agent.home.call_texts import Phrase
from custom_components.local_agent.home.call_texts import Said
from custom_components.local_agent.home.call_texts import call_words
from custom_components.local_agent.home.call_texts import fill
from custom_components.local_agent.home.call_texts import join_few_names
from custom_components.local_agent.home.call_texts import join_names
from custom_components.local_agent.home.call_texts import said_action
from custom_components.local_agent.home.call_texts import said_fields
from custom_components.local_agent.home.call_texts import said_intent
from custom_components.local_agent.home.call_texts import said_name
from custom_components.local_agent.home.call_texts import said_value
from custom_components.local_agent.home.call_words import ENGLISH_WORDS
from custom_components.local_agent.home.entity_view import one_line
from custom_components.local_agent.home.failure_reasons import CoreRefusal
from custom_components.local_agent.home.failure_reasons import PartlyDone
from custom_components.local_agent.home.failure_reasons import ReasonedFailure
from custom_components.local_agent.home.failure_reasons import RefusedByName
from custom_components.local_agent.home.resolver import NO_SUCH_ENTITY
from custom_components.local_agent.home.runner import partly_failed
from custom_components.local_agent.home.service_catalog import CURATED_SERVICES
from custom_components.local_agent.home.tools import GET_STATE
from custom_components.local_agent.safety.intents import ASSIST_INTENTS
from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.core import valid_entity_id
from homeassistant.helpers import llm

# Arguments of an LLM API tool that name its targets, in the order they are worth naming.
_API_TARGETS: Final = ("name", "area", "floor")
# Never said as a name: what reads as markup or as a value of a program.
_MARKUP: Final = re.compile(r"[\[\]{}<>\"\\]")


def _turn_calls(
    chat_log: conversation.ChatLog,
) -> tuple[list[list[llm.ToolInput]], dict[str, llm.ToolResult]]:
    """Return this turn's calls, by round, and their results by call id."""
    rounds: list[list[llm.ToolInput]] = []
    results: dict[str, llm.ToolResult] = {}
    for content in chat_log.content[chat_log.llm_input_provided_index :]:
        if isinstance(content, conversation.AssistantContent) and content.tool_calls:
            rounds.append(list(content.tool_calls))
        elif isinstance(content, conversation.ToolResultContent):
            results[content.tool_call_id] = content.result
    return rounds, results


def refused_calls(chat_log: conversation.ChatLog) -> list[llm.ToolInput]:
    """Return this turn's calls when there were some and every one failed or was refused.

    Empty when the model called nothing, or when any call ran, read something or waits for a
    confirmation.
    """
    rounds, results = _turn_calls(chat_log)
    calls = [call for calls in rounds for call in calls]
    ran = (not result.error or isinstance(result, PartlyDone) for result in results.values())
    if not calls or any(ran):
        return []
    return calls


def failure_reasons(chat_log: conversation.ChatLog, calls: Sequence[llm.ToolInput]) -> list[Said]:
    """Return why these calls failed, where the agent can say it itself (ReasonedFailure)."""
    _, results = _turn_calls(chat_log)
    reasons = [
        reason
        for call in calls
        if isinstance(result := results.get(call.id), ReasonedFailure)
        for reason in result.reason
    ]
    return _names_together(reasons)


# Reasons said once for all the names they give: "Attic and shed: no entity … has that name".
_SAID_TOGETHER: Final = frozenset({NO_SUCH_ENTITY})


def _names_together(reasons: list[Said]) -> list[Said]:
    """Return the reasons, each of _SAID_TOGETHER once, with every name it gave, in order."""
    together: dict[str, list[str]] = {}
    said: list[Said] = []
    for reason in reasons:
        if (
            isinstance(reason, Phrase)
            and reason.key in _SAID_TOGETHER
            and isinstance(name := reason.placeholders.get("name"), str)
        ):
            if reason.key not in together:
                together[reason.key] = []
                said.append(reason)
            together[reason.key].append(name)
        else:
            said.append(reason)
    return [
        Phrase(reason.key, {"name": _model_wrote(together[reason.key])})
        if isinstance(reason, Phrase) and reason.key in together
        else reason
        for reason in said
    ]


def _model_wrote(names: list[str]) -> Names:
    """Return the names the model wrote that name nothing: a sentence they start is capitalised."""
    return Names(tuple(dict.fromkeys(names)), as_written=False)


def refused_by_core(chat_log: conversation.ChatLog, calls: Sequence[llm.ToolInput]) -> bool:
    """Return whether core refused each of these calls with a sentence of its own."""
    _, results = _turn_calls(chat_log)
    return bool(calls) and all(isinstance(results.get(call.id), CoreRefusal) for call in calls)


def as_missed(
    chat_log: conversation.ChatLog, calls: Sequence[llm.ToolInput]
) -> list[llm.ToolInput]:
    """Return the calls, each that some of its targets took as made on the others alone.

    "I could not turn on Kitchen Lights", not the six lights of the call, five of them on.
    """
    _, results = _turn_calls(chat_log)
    return [_as_missed(call, results.get(call.id)) for call in calls]


def _as_missed(call: llm.ToolInput, result: llm.ToolResult | None) -> llm.ToolInput:
    if isinstance(result, RefusedByName):  # said by the names of the entities it names
        return replace(call, tool_args={**call.tool_args, ATTR_ENTITY_ID: list(result.entity_ids)})
    named = call.tool_args.get(ATTR_ENTITY_ID)
    if not isinstance(result, PartlyDone) or not isinstance(named, str | list):
        return call
    took = {entity.get(ATTR_ENTITY_ID) for entity in result.took}
    missed = [e for e in ([named] if isinstance(named, str) else named) if e not in took]
    return replace(call, tool_args={**call.tool_args, ATTR_ENTITY_ID: missed}) if missed else call


def failed_in_last_round(
    chat_log: conversation.ChatLog, *, said_apart: type[llm.ToolResult] | None = None
) -> list[llm.ToolInput]:
    """Return the calls of the turn's last round of calls that failed or were refused.

    said_apart: the class of the results said in a sentence of their own, left out here.
    """
    rounds, results = _turn_calls(chat_log)
    if not rounds:
        return []
    return [
        call
        for call in rounds[-1]
        if (result := results.get(call.id)) is None
        or (result.error and not (said_apart and isinstance(result, said_apart)))
    ]


def partly_failed_in_last_round(chat_log: conversation.ChatLog) -> bool:
    """Whether a call of the turn's last round of calls worked for some of its devices only."""
    rounds, results = _turn_calls(chat_log)
    if not rounds:
        return False
    return any(
        result is not None and partly_failed(result)
        for result in (results.get(call.id) for call in rounds[-1])
    )


@callback
def describe_calls(
    hass: HomeAssistant,
    calls: Sequence[llm.ToolInput],
    language: str,
    home_tools: Collection[str],
    *,
    with_values: bool = True,
) -> str | None:
    """Say the calls that can be said ("turn on Bed Light and attic"), or None if none can.

    Calls of the same action are said once, with all their targets ("read the state of
    value 1, value 2 and value 3", not "read the state of value 1, read the state of ...").
    `with_values`: say the values asked; not where a reason that follows says them itself.
    """
    targets_by_pattern: dict[str, list[str]] = {}
    for call in calls:
        said = _said_call(
            hass, call.tool_name, call.tool_args, language, home_tools, with_values=with_values
        )
        if said is None:
            continue
        pattern, names = said
        targets = targets_by_pattern.setdefault(pattern, [])
        targets.extend(name for name in names if name not in targets)
    if not targets_by_pattern:
        return None
    # As a done answer names them: a voice reads "and 2 more", never a trailing "and …".
    described = [
        fill(pattern, call_words(language), names=join_few_names(names, language))
        if names
        else pattern
        for pattern, names in targets_by_pattern.items()
    ]
    return join_few_names(described, language)


@callback
def _said_call(
    hass: HomeAssistant,
    tool_name: str,
    arguments: dict[str, Any],
    language: str,
    home_tools: Collection[str],
    *,
    with_values: bool = True,
) -> tuple[str, list[str]] | None:
    """Say one call the model made, as the agent says actions; None if it cannot be said.

    Its words with {names} and the names of its targets, or a whole text and no names.
    """
    words = call_words(language)
    if tool_name == GET_STATE:
        pattern = words.read_state
        names = _entity_names(hass, arguments.get(ATTR_ENTITY_ID))
    elif tool_name in home_tools:
        service = arguments.get("action")
        if not isinstance(service, str):
            return None
        service = service.strip().lower().removeprefix(f"{tool_name}.")
        if service not in CURATED_SERVICES.get(tool_name, {}):
            return None
        # Said as the question says it, with the values it asked for ("set Fan speed to 3").
        offered = CURATED_SERVICES[tool_name][service] if with_values else ()
        fields = said_fields(
            hass,
            ((key, arguments.get(key)) for key in offered),
            _entity_names_written(arguments.get(ATTR_ENTITY_ID)),
        )
        if words is not ENGLISH_WORDS:  # a mode as the frontend says it ("Heizbetrieb")
            fields = {k: said_value(hass, language, tool_name, k, v) for k, v in fields.items()}
        pattern = said_action(tool_name, service, "{names}", fields, words)[0]
        names = _entity_names(hass, arguments.get(ATTR_ENTITY_ID))
    else:
        # An intent tool of an LLM API ("HassTurnOn", "HassLightSet"), as the service it calls.
        target = next((arguments[key] for key in _API_TARGETS if arguments.get(key)), None)
        names = [one_line(str(target))] if isinstance(target, str | int | float) else []
        if not names:
            return None
        intent_type = tool_name.rpartition("__")[2]
        said = said_intent(
            intent_type,
            _one_domain(intent_type, arguments.get("domain")),
            join_names(names, language),
            {key: value for key, value in arguments.items() if _sayable(value)},
            words,
        )
        return (said[0], []) if said is not None else None
    if not names:
        return None
    return pattern, names


def _one_domain(intent_type: str, value: Any) -> str:
    """Return the one domain a `domain` slot names where the intent calls that domain's own.

    HassTurnOn opens a cover and presses a button (the table of Assist's intents); else "".
    """
    if isinstance(value, str) and value.strip().startswith("["):
        # A list written as JSON, as a call that did not validate keeps it.
        with suppress(ValueError):
            value = json.loads(value)
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    assist_intent = ASSIST_INTENTS.get(intent_type)
    said_apart = assist_intent.services_by_domain if assist_intent is not None else {}
    return value if isinstance(value, str) and value in said_apart else ""


def _sayable(value: Any) -> bool:
    """Whether a value the model wrote may be said: a number, or words without markup."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    return isinstance(value, str) and not _MARKUP.search(value) and any(c.isalpha() for c in value)


def _entity_names_written(value: Any) -> list[str]:
    """Return the entity ids among the targets the model wrote, for said_fields."""
    written = value if isinstance(value, list) else [value]
    return [target for target in written if isinstance(target, str) and valid_entity_id(target)]


def _entity_names(hass: HomeAssistant, value: Any) -> list[str]:
    """Name the targets as the model may read them: an exposed entity's name, else its words.

    "light.attic" reads "attic"; a name the model wrote instead of an id stays as written.
    """
    if isinstance(value, str) and value.strip().startswith("["):
        # A list written as JSON, as a call that did not validate keeps it.
        with suppress(ValueError):
            value = json.loads(value)
    written = value if isinstance(value, list) else [value]
    names: list[str] = []
    for target in written:
        if not isinstance(target, str) or not (text := target.strip()):
            continue
        if not valid_entity_id(text):
            # A name, not markup, a program's value half read, or a bare number.
            if not _MARKUP.search(text) and any(c.isalpha() for c in text):
                names.append(one_line(text))
        elif (state := hass.states.get(text)) is not None and async_should_expose(
            hass, ASSISTANT, text
        ):
            names.append(said_name(state.name, text))
        elif words := text.partition(".")[2].replace("_", " ").strip():
            names.append(words)
    return list(dict.fromkeys(names))
