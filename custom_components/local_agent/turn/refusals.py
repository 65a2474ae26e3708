"""When nothing the model tried went through: which calls, said in the model's own terms.

The sentence echoes only what the model wrote (tool, action, target as written), never what
Home Assistant knows about them: it enters the conversation the model reads next time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from typing import Final

from homeassistant.components import conversation
from homeassistant.helpers import llm

# Arguments that say what a call is about, in the order they are worth naming.
_TARGET_ARGUMENTS: Final = ("entity_id", "name", "area", "floor", "domain")
MAX_DESCRIBED: Final = 3


def describe_call(tool_name: str, arguments: Mapping[str, Any]) -> str:
    """Name a call briefly: "lock (unlock lock.front_door)", "HassTurnOn (Kitchen Light)"."""
    what = [str(arguments["action"])] if arguments.get("action") else []
    for key in _TARGET_ARGUMENTS:
        if (value := arguments.get(key)) not in (None, "", []):
            what.append(", ".join(map(str, value)) if isinstance(value, list) else str(value))
            break
    return f"{tool_name} ({' '.join(what)})" if what else tool_name


def refused_calls(chat_log: conversation.ChatLog) -> list[str]:
    """Describe this turn's calls when there were some and every one failed or was refused.

    Empty when the model called nothing, or when any call ran, read something or waits for a
    confirmation.
    """
    calls: dict[str, llm.ToolInput] = {}
    results: dict[str, llm.ToolResult] = {}
    for content in chat_log.content[chat_log.llm_input_provided_index :]:
        if isinstance(content, conversation.AssistantContent):
            calls.update((call.id, call) for call in content.tool_calls or ())
        elif isinstance(content, conversation.ToolResultContent):
            results[content.tool_call_id] = content.result
    if not calls or any(not result.error for result in results.values()):
        return []
    described = list(
        dict.fromkeys(describe_call(call.tool_name, call.tool_args) for call in calls.values())
    )
    if len(described) > MAX_DESCRIBED:
        described[MAX_DESCRIBED:] = ["…"]
    return described
