"""How long a text a GBNF grammar allows, in UTF-8 bytes: the most tokens any model can write
under it (every token of a byte-level vocabulary is at least one byte).

A test that forces a tool call gives the generation at least this many tokens: then the call
ends by itself, whatever tokens the model picks, and is never cut off at max_tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
import math
import re

from custom_components.local_agent.engine.generation import MAX_CALLS_PER_ANSWER
from custom_components.local_agent.engine.grammar import build_tool_call_grammar
from custom_components.local_agent.engine.types import ToolSpec

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


def longest_answer_tokens(tools: Sequence[ToolSpec]) -> int:
    """The most tokens a forced answer can take after `<tool_call>`: every call the engine
    allows in one answer."""
    return longest_call_tokens(tools, calls=MAX_CALLS_PER_ANSWER)


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
