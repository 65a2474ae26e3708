"""Turns a Home Assistant chat log into engine messages, within a token budget."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
import json

from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.home.failure_reasons import PartlyDone
from custom_components.local_agent.home.runner import TargetStates
from homeassistant.components import conversation

from .notices import is_user_only

# A rough tokens-per-character ratio for budgeting history before tokenization.
CHARS_PER_TOKEN = 3.5
# The share of the history budget the turns kept fill after the oldest were dropped.
REFILL_SHARE = 0.5


def to_messages(content: Sequence[conversation.Content]) -> list[Message]:
    """Convert chat log content (system content excluded) to engine messages.

    What the agent said to the user alone (turn/notices.py) is not the model's to read, nor
    is an answer of the model's that said nothing: the person heard what the agent said
    instead, which follows it.
    """
    messages: list[Message] = []
    for item in content:
        if is_user_only(item):
            continue
        if isinstance(item, conversation.UserContent):
            messages.append(Message("user", item.content))
        elif isinstance(item, conversation.AssistantContent):
            if not item.content and not item.tool_calls:
                continue
            calls = [
                ToolCall(name=call.tool_name, arguments=dict(call.tool_args))
                for call in item.tool_calls or ()
            ]
            messages.append(
                Message(
                    "assistant",
                    item.content or "",
                    reasoning=item.thinking_content,
                    tool_calls=calls,
                )
            )
        elif isinstance(item, conversation.ToolResultContent):
            messages.append(
                Message(
                    "tool",
                    tool_result_text(item.result.data),
                    tool_name=item.tool_name,
                    shows_states=isinstance(item.result, TargetStates | PartlyDone),
                )
            )
    return messages


def tool_result_text(data: object) -> str:
    """Render a tool result the way the model reads it: compact JSON."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def estimate_tokens(message: Message) -> int:
    """Estimate a message's tokens without a tokenizer."""
    size = len(message.content) + len(message.reasoning or "")
    size += sum(len(json.dumps(call.arguments, default=str)) + 40 for call in message.tool_calls)
    return int(size / CHARS_PER_TOKEN) + 8


def trim_history(messages: list[Message], budget_tokens: int) -> list[Message]:
    """Drop the oldest whole turns so that the history fits; the current turn is always kept.

    A turn starts at a user message; cutting anywhere else would leave tool results without
    the call that produced them. Where the history starts is worked out turn by turn from the
    conversation's first: when the turns kept outgrow the budget, the oldest go until they
    fill at most REFILL_SHARE of it, and the start then stays put for the turns that follow.
    Dropping one turn at a time moved the start at every turn once the budget was full, and
    the engine read the whole history again each time instead of only the new message.
    """
    turn_starts = [i for i, message in enumerate(messages) if message.role == "user"]
    if not turn_starts:
        return messages
    costs = [
        sum(estimate_tokens(m) for m in messages[start:end])
        for start, end in pairwise([*turn_starts, len(messages)])
    ]
    kept, used = 0, 0
    for last, cost in enumerate(costs):
        used += cost
        if used <= budget_tokens:
            continue
        while kept < last and used > budget_tokens * REFILL_SHARE:
            used -= costs[kept]
            kept += 1
    return messages[turn_starts[kept] :]
