"""Qwen3.5 prompt rendering with the chat template from the GGUF file, or a bundled copy.

Templates run in Jinja's immutable sandbox with the globals and filters Hugging Face provides,
so a template taken from any GGUF renders as it does in `transformers`.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
from datetime import datetime
import json
import os
from pathlib import Path
import secrets
from typing import Any
from typing import Literal
from typing import NoReturn

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .errors import EngineError
from .markup import THINK_OPEN
from .markup import TURN_MARKERS
from .markup import escape_message
from .markup import escape_text
from .markup import escape_tools
from .markup import format_value
from .types import Conversation
from .types import Message
from .types import ToolCall
from .types import ToolSpec

GGUF_TEMPLATE_KEY = "tokenizer.chat_template"
BUNDLED_TEMPLATE_PATH = Path(__file__).parent / "templates" / "qwen3_5.jinja"
SYSTEM_SEPARATOR = "\n\n"

# "server": the model server showed it (llama-server's /props).
type TemplateSource = Literal["gguf", "bundled", "server"]


class ChatTemplateError(EngineError):
    """The chat template is broken, refused the conversation, or cannot be split."""


@dataclass(frozen=True, slots=True)
class ChatTemplate:
    """A compiled chat template and where it came from."""

    text: str
    source: TemplateSource
    compiled: jinja2.Template


@dataclass(frozen=True, slots=True)
class PromptParts:
    """A prompt cut where the part that never changes between turns ends."""

    static: str
    dynamic: str = ""
    # Where in `dynamic` the rendered messages end and the generation prompt begins (for the
    # start of a next turn: where its new message begins): the next request of the same
    # conversation repeats the text up to here. None if unknown.
    stable_end: int | None = None
    # Whether the model starts inside its reasoning; None: as the generation prompt says.
    opens_reasoning: bool | None = None
    # Text at which the answer ends even if the model goes on (the next turn's markers).
    stop: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The whole prompt."""
        return self.static + self.dynamic

    @property
    def starts_in_reasoning(self) -> bool:
        """Whether the generation prompt opens a reasoning block (Gemma's template has none)."""
        if self.opens_reasoning is not None:
            return self.opens_reasoning
        return self.dynamic.rstrip().endswith(THINK_OPEN)


def _raise_exception(message: str) -> NoReturn:
    raise jinja2.TemplateError(message)


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def _strftime_now(format_string: str) -> str:
    return datetime.now().strftime(format_string)


def _environment() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    return env


_ENV = _environment()
# Read at import (Home Assistant imports integrations in an executor thread), never later in the
# event loop: load_template runs in async_setup_entry.
BUNDLED_TEMPLATE_TEXT = BUNDLED_TEMPLATE_PATH.read_text(encoding="utf-8")


def compile_template(text: str, source: TemplateSource) -> ChatTemplate:
    """Compile template text, raising ChatTemplateError if it is not valid Jinja."""
    try:
        compiled = _ENV.from_string(text)
    except jinja2.TemplateSyntaxError as err:
        raise ChatTemplateError(
            f"The {source} chat template is not valid Jinja (line {err.lineno}): {err.message}"
        ) from err
    return ChatTemplate(text=text, source=source, compiled=compiled)


def load_template(gguf_metadata: Mapping[str, str] | None) -> ChatTemplate:
    """Use the model's own chat template when its GGUF metadata has one, else the bundled one."""
    text = (gguf_metadata or {}).get(GGUF_TEMPLATE_KEY, "")
    if text.strip():
        return compile_template(text, "gguf")
    return compile_template(BUNDLED_TEMPLATE_TEXT, "bundled")


def _tool_dict(tool: ToolSpec) -> dict[str, Any]:
    function = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    return {"type": "function", "function": function}


def _tool_call_dict(call: ToolCall) -> dict[str, Any]:
    arguments = {key: format_value(value) for key, value in call.arguments.items()}
    return {"type": "function", "function": {"name": call.name, "arguments": arguments}}


def _message_dict(message: Message) -> dict[str, Any]:
    item: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.reasoning is not None:
        item["reasoning_content"] = message.reasoning
    if message.tool_calls:
        item["tool_calls"] = [_tool_call_dict(call) for call in message.tool_calls]
    if message.tool_name is not None:
        item["name"] = message.tool_name
    return item


def render_prompt(
    template: ChatTemplate,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    enable_thinking: bool,
    add_generation_prompt: bool = True,
) -> str:
    """Render a conversation into the prompt text the model continues (as given: unescaped)."""
    try:
        return template.compiled.render(
            messages=[_message_dict(message) for message in messages],
            tools=[_tool_dict(tool) for tool in tools] or None,
            enable_thinking=enable_thinking,
            add_generation_prompt=add_generation_prompt,
        )
    except jinja2.TemplateError as err:
        raise ChatTemplateError(
            f"The {template.source} chat template could not render the conversation: {err}"
        ) from err


def render_split(
    template: ChatTemplate,
    *,
    static_system: str,
    dynamic_system: str,
    history: Sequence[Message],
    tools: Sequence[ToolSpec],
    enable_thinking: bool,
    add_generation_prompt: bool = True,
) -> PromptParts:
    """Render the prompt whose system message is static_system, SYSTEM_SEPARATOR, dynamic_system.

    The static part ends right after the separator, so it depends only on the template, the
    tools and static_system; the dynamic system text and the history follow it. With an empty
    dynamic_system the whole system message is static_system and the static part ends right
    after its text: what changes from turn to turn then lives in the messages.

    Every text is escaped first (markup.py): only the template itself writes markup.
    """
    static_system, dynamic_system = escape_text(static_system), escape_text(dynamic_system)
    history = [escape_message(message) for message in history]
    tools = escape_tools(tools)
    if not static_system.strip():
        raise ValueError("static_system must contain text")
    if dynamic_system and not dynamic_system.strip():
        raise ValueError("dynamic_system must contain text or be empty")
    marker = f"<split-{secrets.token_hex(16)}>"

    def render(middle: str, *, generation: bool = add_generation_prompt) -> str:
        text = (
            static_system + SYSTEM_SEPARATOR + middle + dynamic_system
            if dynamic_system
            else static_system + middle
        )
        return render_prompt(
            template,
            [Message("system", text), *history],
            tools,
            enable_thinking=enable_thinking,
            add_generation_prompt=generation,
        )

    full = render("")
    static, found, dynamic = render(marker).partition(marker)
    if (
        found
        and not dynamic_system
        and static + dynamic != full
        and static_system != static_system.rstrip()
    ):
        # The marker shields trailing whitespace the template trims (Qwen3.5: `|trim` on the
        # system content); the rendered prompt is the same without it.
        static_system = static_system.rstrip()
        if render("") == full:
            static, found, dynamic = render(marker).partition(marker)
    if not found or marker in dynamic or static + dynamic != full:
        raise ChatTemplateError(
            f"The {template.source} chat template does not keep the system message text "
            "contiguous, so the prompt cannot be split for prefix caching"
        )
    stable_end: int | None = None
    if add_generation_prompt and history:
        messages_only = render("", generation=False)
        if full.startswith(messages_only) and len(messages_only) > len(static):
            stable_end = len(messages_only) - len(static)
    return PromptParts(static=static, dynamic=dynamic, stable_end=stable_end, stop=TURN_MARKERS)


def render_conversation(
    template: ChatTemplate,
    conversation: Conversation,
    tools: Sequence[ToolSpec],
    *,
    add_generation_prompt: bool = True,
) -> PromptParts:
    """Render a conversation, cut after its system text (the part every turn shares)."""
    return render_split(
        template,
        static_system=conversation.system,
        dynamic_system=conversation.system_context,
        history=conversation.messages,
        tools=tools,
        enable_thinking=conversation.enable_thinking,
        add_generation_prompt=add_generation_prompt,
    )


def next_turn_start(
    template: ChatTemplate, conversation: Conversation, tools: Sequence[ToolSpec]
) -> PromptParts | None:
    """Return the text the next turn of this conversation starts with, into its new message.

    Once a new user message follows, a template may render the last answers differently
    (Qwen3.5 drops their reasoning), so the next prompt shares with the one just answered only
    up to this turn's first answer. The text two different next messages share is what the
    next turn surely starts with. It goes on with the conversation's next_message_start when
    the template renders that as it is; stable_end is then where the new message begins (a
    next message that starts otherwise goes on from there), or past the part of it that lasts
    (next_message_lasting). None if the template gives no such text.
    """
    opening = conversation.next_message_start
    first, second = (
        render_conversation(
            template,
            replace(
                conversation,
                messages=(*conversation.messages, Message("user", opening + probe)),
            ),
            tools,
            add_generation_prompt=False,
        )
        for probe in ("A", "B")
    )
    shared = os.path.commonprefix([first.dynamic, second.dynamic])  # noqa: RUF071 - text, not paths
    if not shared or first.static != second.static:
        return None
    if opening and shared.endswith(opening):
        lasting = min(max(conversation.next_message_lasting, 0), len(opening))
        return PromptParts(
            static=first.static, dynamic=shared, stable_end=len(shared) - len(opening) + lasting
        )
    if opening:
        without = replace(conversation, next_message_start="", next_message_lasting=0)
        return next_turn_start(template, without, tools)
    return PromptParts(static=first.static, dynamic=shared)
