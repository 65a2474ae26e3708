"""One AI task (ai_task.generate_data) on the entry's model: prompt, generation, result.

No tools are offered and none are run: an AI task reads and writes text only, so it can never
change the home. With a `structure`, the answer is sampled under a grammar built from it
(engine/structure.py) where the engine can apply one (in process, a llama.cpp server in
completions mode); the result is checked against the structure in every case, so a server that
applies no grammar cannot return data of other types. Nothing is retried and the prompt never
asks for JSON. Reasoning, when the subentry thinks, stays in the chat log's trace.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import probatio

from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_THINKING
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import LOGGER
from custom_components.local_agent.const import MAX_TEXT_ATTACHMENT_BYTES
from custom_components.local_agent.engine.errors import EngineError
from custom_components.local_agent.engine.generation import GenerationOutput
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.markup import THINK_CLOSE
from custom_components.local_agent.engine.settings import SamplingSettings
from custom_components.local_agent.engine.structure import StructureError
from custom_components.local_agent.engine.structure import parse_structure
from custom_components.local_agent.engine.tool_calls import ReasoningDelta
from custom_components.local_agent.engine.tool_calls import TextDelta
from custom_components.local_agent.engine.tool_calls import ToolCallFailed
from custom_components.local_agent.engine.tool_calls import ToolCallParsed
from custom_components.local_agent.engine.types import Conversation
from custom_components.local_agent.engine.types import JsonSchema
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.runtime.data import LocalAgentData
from homeassistant.components import ai_task
from homeassistant.components import conversation
from homeassistant.components.ai_task.const import DEFAULT_SYSTEM_PROMPT
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm
from homeassistant.util import dt as dt_util

from .defaults import ai_task_data
from .defaults import sampling_settings
from .error_text import engine_error_text

# Attachments a text-only model can read as they are.
TEXT_MIME_TYPES = frozenset(
    {"application/json", "application/xml", "application/yaml", "application/x-yaml"}
)


@dataclass(frozen=True, slots=True)
class TaskOptions:
    """An AI task subentry's settings."""

    thinking: bool
    thinking_budget: int | None  # None: no limit
    sampling: SamplingSettings
    max_tokens: int  # for the answer; the thinking budget comes on top

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> TaskOptions:
        """Read the subentry's data, with AI_TASK_DEFAULTS for what it lacks."""
        data = ai_task_data(data)
        budget = int(data[CONF_THINKING_BUDGET])
        return cls(
            thinking=bool(data[CONF_THINKING]),
            thinking_budget=budget or None,
            sampling=sampling_settings(data),
            max_tokens=int(data[CONF_MAX_TOKENS]),
        )


def _error(key: str, **placeholders: str) -> HomeAssistantError:
    return HomeAssistantError(
        translation_domain=DOMAIN, translation_key=key, translation_placeholders=placeholders
    )


def structure_schema(structure: probatio.Schema) -> JsonSchema:
    """Return the task's structure as a JSON schema, as core's LLM integrations convert it."""
    schema: JsonSchema = probatio.to_openapi(
        structure, custom_serializer=llm.selector_serializer, openapi_version="3.1.0"
    )
    return schema


def _is_text(mime_type: str) -> bool:
    kind = mime_type.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind in TEXT_MIME_TYPES or kind.endswith("+json")


def _read_text(path: Path) -> str | None:
    """Return the file's text, or None when it is too large or not UTF-8. Blocking."""
    with path.open("rb") as file:
        data = file.read(MAX_TEXT_ATTACHMENT_BYTES + 1)
    if len(data) > MAX_TEXT_ATTACHMENT_BYTES:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


async def async_user_text(hass: HomeAssistant, content: conversation.UserContent) -> str:
    """Return the instructions with the text attachments; refuse any other attachment.

    The model reads text only: an image, a sound or a video cannot be passed on, and leaving
    it out silently would make the model answer about something it never saw.
    """
    parts = [content.content]
    for attachment in content.attachments or ():
        name = attachment.path.name or attachment.media_content_id
        if not _is_text(attachment.mime_type):
            raise _error("attachment_not_text", name=name, mime_type=attachment.mime_type)
        text = await hass.async_add_executor_job(_read_text, attachment.path)
        if text is None:
            raise _error(
                "attachment_unreadable",
                name=name,
                max_kib=str(MAX_TEXT_ATTACHMENT_BYTES // 1024),
            )
        parts.append(f"Attachment {name}:\n{text}")
    return "\n\n".join(parts)


def build_request(
    options: TaskOptions, user_text: str, schema: JsonSchema | None
) -> GenerationRequest:
    """Return the generation of one task: no tools, the structure's grammar, thinking as set."""
    now = dt_util.now().strftime("%A %Y-%m-%d %H:%M")
    budget = options.thinking_budget if options.thinking else None
    return GenerationRequest(
        Conversation(
            system=DEFAULT_SYSTEM_PROMPT,
            system_context=f"The current date and time is {now}.",
            messages=(Message("user", user_text),),
            enable_thinking=options.thinking,
        ),
        sampling=options.sampling,
        # Room for the reasoning on top of the answer's.
        max_tokens=options.max_tokens + (budget or 0),
        thinking_budget=budget,
        answer_schema=schema,
    )


def _answer_text(request: GenerationRequest, output: GenerationOutput) -> str:
    """Return what the model wrote after its reasoning (the engine ends it at a turn marker)."""
    if request.answer_schema is not None:
        if not output.prompt.starts_in_reasoning:
            return output.text.strip()
        # The grammar starts at the end of the reasoning; its JSON may hold any text.
        _reasoning, found, after = output.text.partition(THINK_CLOSE)
        return after.strip() if found else ""
    return "".join(e.text for e in output.events if isinstance(e, TextDelta)).strip()


async def async_generate_data(
    hass: HomeAssistant,
    *,
    data: LocalAgentData,
    options: TaskOptions,
    task: ai_task.GenDataTask,
    chat_log: conversation.ChatLog,
    agent_id: str,
) -> ai_task.GenDataTaskResult:
    """Run the task on the model, in turn with every other generation on it."""
    user = next(
        (c for c in reversed(chat_log.content) if isinstance(c, conversation.UserContent)), None
    )
    if user is None:
        raise _error("task_no_answer")
    if task.llm_api is not None:
        LOGGER.debug("AI task %s: tools of %s are not offered", task.name, task.llm_api.id)
    user_text = await async_user_text(hass, user)
    schema = structure_schema(task.structure) if task.structure else None
    request = build_request(options, user_text, schema)
    try:
        output = await data.worker.generate(request)
    except EngineError as err:
        key, placeholders = engine_error_text(err, context_key="task_too_long")
        raise _error(key, **placeholders) from err

    reasoning = "".join(e.text for e in output.events if isinstance(e, ReasoningDelta))
    text = _answer_text(request, output)
    cut_off = output.stats.finish_reason == "length"
    result: Any = text
    if not text:
        if cut_off:
            raise _error("task_cut_off", max_tokens=str(request.max_tokens))
        if any(isinstance(e, ToolCallParsed | ToolCallFailed) for e in output.events):
            # Nothing was called: the task offers no tools. Told apart from an empty answer,
            # whose advice (a thinking budget) would not help.
            raise _error("task_tool_call")
        raise _error("task_no_answer")
    if schema is not None:
        try:
            result = parse_structure(text, schema)
        except StructureError as err:
            LOGGER.warning("AI task %s: the answer is not the structure: %s", task.name, err)
            if cut_off:
                raise _error("task_cut_off", max_tokens=str(request.max_tokens)) from err
            # The grammar a local model writes under makes this rare (a grammar that could
            # not say every rule of the structure): the server's advice would be untrue here.
            key = "structure_invalid" if data.model_path is None else "structure_invalid_local"
            raise _error(key, error=str(err)) from err
    chat_log.async_add_assistant_content_without_tools(
        conversation.AssistantContent(
            agent_id=agent_id, content=text, thinking_content=reasoning or None
        )
    )
    return ai_task.GenDataTaskResult(conversation_id=chat_log.conversation_id, data=result)
