"""What core's own agent would say of an intent's answer, when the model wrote nothing.

An intent that answers a question with data only ("HassTimerStatus": its timers) leaves the
sentence to the conversation agent: core's renders the intent's response template with that
data ("No timers.", "Es laufen keine Timer."). When the model read such an answer and wrote
nothing, the agent says that sentence instead of "I have no answer". The template is core's
own file for the language; its data is what the intent handed back, never the model's words.
"""

from __future__ import annotations

from typing import Any
from typing import Final

from home_assistant_intents import get_intents
from home_assistant_intents import get_languages

from custom_components.local_agent.home.entity_view import one_line
from custom_components.local_agent.home.runner import intent_response_of
from custom_components.local_agent.safety.tool_review import intent_type_of
from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import TemplateError
from homeassistant.helpers import template
from homeassistant.util.hass_dict import HassKey

# Core's response templates of intents, by language, read once each.
_TEMPLATES: HassKey[dict[str, dict[str, Any]]] = HassKey("local_agent_core_response_templates")
_INTENT_LANGUAGES: Final = frozenset(get_languages())
MAX_CORE_SPEECH: Final = 300


async def async_core_speech(
    hass: HomeAssistant, language: str, chat_log: conversation.ChatLog
) -> str | None:
    """Return core's sentence for the turn's one intent answer with speech data; else None."""
    answers = [
        content
        for content in chat_log.content[chat_log.llm_input_provided_index :]
        if isinstance(content, conversation.ToolResultContent)
    ]
    if len(answers) != 1 or (intent_type := _intent_answered(chat_log, answers[0])) is None:
        return None
    # What core's intent handed back, not the keys of a result: any tool may answer with those.
    response = intent_response_of(answers[0].result)
    if response is None or not (slots := response.speech_slots):
        return None
    responses = await _async_responses(hass, language)
    source = (responses.get(intent_type) or {}).get("default")
    if not isinstance(source, str):
        return None
    try:
        said = template.Template(source, hass).async_render({"slots": slots}, parse_result=False)
    except TemplateError:
        return None
    return one_line(str(said), MAX_CORE_SPEECH) or None


def _intent_answered(
    chat_log: conversation.ChatLog, answer: conversation.ToolResultContent
) -> str | None:
    """Return the intent whose tool (Home Assistant's own) gave the answer; None for another.

    Told by the tool that ran, never by its name: another API's tool may be "HassTimerStatus".
    """
    tools = chat_log.llm_api.tools if chat_log.llm_api is not None else ()
    tool = next((tool for tool in tools if tool.name == answer.tool_name), None)
    return intent_type_of(tool) if tool is not None else None


async def _async_responses(hass: HomeAssistant, language: str) -> dict[str, Any]:
    """Return core's intent responses in the language ("pt-BR", else "pt"); {} for none."""
    cache = hass.data.setdefault(_TEMPLATES, {})
    for name in dict.fromkeys((language, language.split("-", maxsplit=1)[0])):
        # Only a language core's intents ship is read: the name is a file name ("../x").
        if name not in _INTENT_LANGUAGES:
            continue
        if (responses := cache.get(name)) is None:
            responses = cache[name] = await hass.async_add_executor_job(_responses, name)
        return responses
    return {}


def _responses(language: str) -> dict[str, Any]:
    intents = ((get_intents(language) or {}).get("responses") or {}).get("intents")
    return intents if isinstance(intents, dict) else {}
