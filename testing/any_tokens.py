"""What a test may assert about a random-weight model's output: what holds for any tokens.

Which tokens a random model picks depends on the CPU's kernels and the thread count, so a test
asserts only what the engine guarantees whatever they are:

* `longest_text_bytes`: how long a text a GBNF grammar allows, in UTF-8 bytes, the most tokens
  any model can write under it (every token of a byte-level vocabulary is at least one byte).
  A test that forces a call gives it that much room: the call then ends by itself and is never
  cut off at max_tokens.
* `check_grammar_calls`: every complete call written under the tool-call grammar is a
  well-formed call of an offered tool (one of its values may still be refused: the grammar
  knows types, not ranges); only the last call may be cut off, and only at max_tokens.
* `only_lock_calls`: tools that pin a forced call down to what a test needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import replace
import math
import re
from typing import Any

from custom_components.local_agent.engine.generation import MAX_CALLS_PER_ANSWER
from custom_components.local_agent.engine.grammar import build_tool_call_grammar
from custom_components.local_agent.engine.structure import build_structure_grammar
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.tool_calls import ToolCallFailed
from custom_components.local_agent.engine.tool_calls import ToolCallParsed
from custom_components.local_agent.engine.types import ToolSpec

type CallEvent = ToolCallParsed | ToolCallFailed

# How the message of a call cut off before it was complete ends.
CUT_OFF = "was cut off before it was complete."

_TOKEN = re.compile(
    r'(?P<literal>"(?:[^"\\]|\\.)*")|(?P<charclass>\[(?:[^\]\\]|\\.)*\])|(?P<name>[a-zA-Z0-9-]+)'
    r"|(?P<repeat>\{\s*\d+\s*(?:,\s*\d*\s*)?\})|(?P<syntax>[()|*+?])|(?P<space>\s+)"
)
_UTF8_MAX = 4


def longest_text_bytes(grammar: str) -> float:
    """The most UTF-8 bytes a text of this (non-recursive) grammar can have; inf if unbounded."""
    rules = {
        name.strip(): body for name, body in (line.split("::=", 1) for line in grammar.splitlines())
    }
    known: dict[str, float] = {}

    def rule(name: str) -> float:
        if name not in known:
            tokens = [
                (match.lastgroup or "", match.group())
                for match in _TOKEN.finditer(rules[name])
                if match.lastgroup != "space"
            ]
            length, end = _alternatives(tokens, 0, rule)
            assert end == len(tokens), rules[name]
            known[name] = length
        return known[name]

    return rule("root")


def longest_call_tokens(tools: Sequence[ToolSpec], *, calls: int = 1) -> int:
    """The most tokens a grammar-constrained answer of up to `calls` calls of these tools can
    take after its `<tool_call>`."""
    length = longest_text_bytes(build_tool_call_grammar(tools, max_calls=calls))
    assert math.isfinite(length)
    return int(length)


def longest_structure_tokens(structure: Mapping[str, Any]) -> int:
    """The most tokens the answer of an AI task with this structure (as ai_task.generate_data
    takes it) can take under the structure's grammar."""
    from custom_components.local_agent.turn.data_task import structure_schema
    from homeassistant.components.ai_task.services import _validate_structure_fields

    schema = structure_schema(_validate_structure_fields(dict(structure)))
    length = longest_text_bytes(build_structure_grammar(schema))
    assert math.isfinite(length)
    return int(length)


def longest_answer_tokens(tools: Sequence[ToolSpec]) -> int:
    """The most tokens a forced answer can take after `<tool_call>`: every call the engine
    allows in one answer."""
    return longest_call_tokens(tools, calls=MAX_CALLS_PER_ANSWER)


def only_lock_calls(tools: Sequence[ToolSpec], entity_id: str) -> list[ToolSpec]:
    """The lock tool alone, for one lock and with no free text: whatever a model writes under
    its grammar is a whole, well-formed call that locks, unlocks or opens that lock."""
    return [
        replace(
            tool,
            parameters={
                **tool.parameters,
                "properties": {
                    "action": tool.parameters["properties"]["action"],
                    "entity_id": {"type": "string", "enum": [entity_id]},
                },
                "required": ["action", "entity_id"],
            },
        )
        for tool in tools
        if tool.name == "lock"
    ]


def call_events(events: Sequence[ParseEvent]) -> list[CallEvent]:
    """The calls of an answer, in order: parsed or failed."""
    return [event for event in events if isinstance(event, ToolCallParsed | ToolCallFailed)]


def is_cut_off(event: CallEvent) -> bool:
    """A call the answer's end cut off before it was complete."""
    return isinstance(event, ToolCallFailed) and event.error.message.endswith(CUT_OFF)


def is_value_refused(event: CallEvent) -> bool:
    """A well-formed call one of whose values was refused ("Parameter 'x' of tool 'y': ...")."""
    return isinstance(event, ToolCallFailed) and event.error.message.startswith("Parameter '")


def check_grammar_calls(
    events: Sequence[ParseEvent], finish_reason: str | None, tools: Sequence[ToolSpec]
) -> list[CallEvent]:
    """Assert what holds for any tokens of calls written under the tool-call grammar; return
    the calls."""
    calls = call_events(events)
    offered = {tool.name for tool in tools}
    for number, event in enumerate(calls):
        if isinstance(event, ToolCallParsed):
            assert event.call.name in offered, event
        elif number == len(calls) - 1 and is_cut_off(event):
            assert finish_reason == "length", event
        else:
            assert is_value_refused(event), event
    return calls


type _Tokens = list[tuple[str, str]]


def _alternatives(tokens: _Tokens, at: int, rule: object) -> tuple[float, int]:
    best, at = _sequence(tokens, at, rule)
    while at < len(tokens) and tokens[at][1] == "|":
        length, at = _sequence(tokens, at + 1, rule)
        best = max(best, length)
    return best, at


def _sequence(tokens: _Tokens, at: int, rule: object) -> tuple[float, int]:
    total = 0.0
    while at < len(tokens) and tokens[at][1] not in ("|", ")"):
        length, at = _atom(tokens, at, rule)
        if at < len(tokens):
            kind, text = tokens[at]
            if kind == "repeat":
                bounds = text.strip("{}").split(",")
                most = bounds[-1].strip()
                length = length * int(most) if most else math.inf
                at += 1
            elif text in ("*", "+"):
                length = math.inf if length else 0.0
                at += 1
            elif text == "?":
                at += 1
        total += length
    return total, at


def _atom(tokens: _Tokens, at: int, rule: object) -> tuple[float, int]:
    kind, text = tokens[at]
    if kind == "literal":
        value = text[1:-1].encode("ascii").decode("unicode_escape")
        return float(len(value.encode("utf-8"))), at + 1
    if kind == "charclass":
        wide = text.startswith("[^") or any(ord(c) > 0x7F for c in _class_chars(text))
        return float(_UTF8_MAX if wide else 1), at + 1
    if kind == "name":
        assert callable(rule)
        return float(rule(text)), at + 1
    assert text == "(", tokens[at:]
    length, at = _alternatives(tokens, at + 1, rule)
    assert tokens[at][1] == ")"
    return length, at + 1


def _class_chars(text: str) -> str:
    return text[1:-1].encode("ascii").decode("unicode_escape")
