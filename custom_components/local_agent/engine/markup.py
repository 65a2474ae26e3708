"""The chat format's markup, in one place: every marker, the one value formatter, and escaping.

Qwen3.5 writes `reasoning</think>answer` and calls as XML (`<tool_call>`, `<function=NAME>`,
`<parameter=KEY>`, value, `</parameter>`, `</function>`, `</tool_call>`); the chat template puts
tool results in `<tool_response>` and turns in `<|im_start|>`/`<|im_end|>`. Every other engine
module takes these names from here.

Only the chat template may produce markup. Everything else that goes into a prompt — entity
names and states, tool descriptions and results, the history, the user's own words — is text,
and llama.cpp (in process, and a server in completions or chat mode) parses special tokens in
the rendered prompt: `<|im_end|>` or `<tool_call>` in an entity name would be read as the real
token. `escape_text` breaks every such marker with a zero-width space after its `<`, so it
tokenizes as the text it is and reads the same; `escape_conversation` and `escape_tools` apply
it to every text a prompt is made of, before any template sees it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
import json
import re
from typing import Any
from typing import Final

from .types import Conversation
from .types import Message
from .types import ToolCall
from .types import ToolSpec

THINK_OPEN: Final = "<think>"
THINK_CLOSE: Final = "</think>"
# What the engine writes itself to end the model's reasoning (the template's own spacing).
REASONING_CLOSE: Final = f"\n{THINK_CLOSE}\n\n"
CALL_OPEN: Final = "<tool_call>"
CALL_CLOSE: Final = "</tool_call>"
# How a call follows the reasoning, as the chat template writes it.
CALL_AFTER_REASONING: Final = "\n\n" + CALL_OPEN
FUNCTION_OPEN: Final = "<function="
FUNCTION_CLOSE: Final = "</function>"
PARAMETER_OPEN: Final = "<parameter="
PARAMETER_CLOSE: Final = "</parameter>"
RESPONSE_OPEN: Final = "<tool_response>"
RESPONSE_CLOSE: Final = "</tool_response>"
TURN_START: Final = "<|im_start|>"
TURN_END: Final = "<|im_end|>"

# Text that starts the next turn: a model that ignores its end token goes on with these, and
# nothing from there on is its answer (every backend stops there and holds them back).
TURN_MARKERS: Final = (
    TURN_END,
    TURN_START,
    "<|endoftext|>",
    "<end_of_turn>",
    RESPONSE_OPEN,
    RESPONSE_CLOSE,
)

# A "<" that may begin markup of any chat format: `<|...|>` (ChatML, Llama 3), `</...>` and
# `<name...>` tags (Qwen's think/tool tags, `<function=`, Gemma's turns), DeepSeek's full-width
# bar. A "<" before a space or a digit ("< 20 °C") is left alone.
_MARKUP_START: Final = re.compile(r"<(?=[|/A-Za-z_\uff5c])")
ZERO_WIDTH_SPACE: Final = "\u200b"
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")
REPLACEMENT: Final = "\ufffd"


def format_value(value: Any) -> str:
    """Write an argument value as the model does: strings as they are, everything else as JSON.

    With JSON's default separators, as the chat template's `tojson` writes values: prompts of
    every backend and the calls the engine writes itself are the same byte for byte.
    """
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def format_tool_call(call: ToolCall) -> str:
    """Render a call in the exact XML the model writes."""
    parameters = "".join(
        f"{PARAMETER_OPEN}{key}>\n{format_value(value)}\n{PARAMETER_CLOSE}\n"
        for key, value in call.arguments.items()
    )
    return f"{CALL_OPEN}\n{FUNCTION_OPEN}{call.name}>\n{parameters}{FUNCTION_CLOSE}\n{CALL_CLOSE}"


def escape_text(text: str) -> str:
    """Break every chat markup in a text so that it can only be read as text.

    A lone surrogate (the bytes of a name that was not UTF-8, as Python keeps them) becomes
    U+FFFD: no prompt that holds one can be encoded for a tokenizer or a server.
    """
    return _LONE_SURROGATE.sub(REPLACEMENT, _MARKUP_START.sub("<" + ZERO_WIDTH_SPACE, text))


def escape_data(value: Any) -> Any:
    """Escape every string (keys too) in JSON-like data."""
    if isinstance(value, str):
        return escape_text(value)
    if isinstance(value, dict):
        return {escape_data(key): escape_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [escape_data(item) for item in value]
    return value


def escape_message(message: Message) -> Message:
    """Return a message whose every text (content, reasoning, calls, tool name) is escaped."""
    return replace(
        message,
        content=escape_text(message.content),
        reasoning=None if message.reasoning is None else escape_text(message.reasoning),
        tool_calls=[
            ToolCall(escape_text(call.name), escape_data(call.arguments), call.raw)
            for call in message.tool_calls
        ],
        tool_name=None if message.tool_name is None else escape_text(message.tool_name),
    )


def escape_conversation(conversation: Conversation) -> Conversation:
    """Return the conversation with every text escaped: system texts and messages."""
    return replace(
        conversation,
        system=escape_text(conversation.system),
        system_context=escape_text(conversation.system_context),
        messages=tuple(escape_message(message) for message in conversation.messages),
    )


def escape_tools(tools: Sequence[ToolSpec]) -> list[ToolSpec]:
    """Return tools whose names, descriptions and schemas (enum values, titles) are escaped."""
    return [
        ToolSpec(
            name=escape_text(tool.name),
            description=escape_text(tool.description),
            parameters=escape_data(tool.parameters),
        )
        for tool in tools
    ]
